/*
 * tlbf_line.c — the line-local age-partitioned filter over a time window
 * ("tlbf-line"): apbf-line's rings (apbf_line.c, line.h), shifted by the
 * clock, and chained as the rate changes.
 *
 * What it keeps of each paper.  From TLBF (paper 001; tlbf.c): the window
 * is T of time, a generation is a fixed span of it, and the filter is
 * sized from the rate it observes, growing when keys come faster.  From
 * APBF (paper 004, section 5): k + l age slices, an insert marks the k
 * newest, a key is present while a run of k consecutive slices holds it.
 * From apbf-line: the slices of a key live in one unit of memory (128 or
 * 64 bytes), so an operation reads one unit per ring, not k + l lines.
 *
 * Generations.  span = ceil(T / l) ns, and generation G(t) = floor(t /
 * span) of the filter's clock (clamped by filter.c, never back).  A ring's
 * field of age a holds generation G_r - a, G_r the generation of its
 * newest field; a key added at t marks ages 0 .. k-1 in generation G(t).
 * A query at t' reads ring ages up to k + l - 1 - (G(t') - G_r), so it
 * finds the key while G(t') - G(t) <= l; and t' - t < T = l span - (l span
 * - T) gives G(t') - G(t) < (t' - t) / span + 1 <= l + 1 - 1/span, so
 * every query inside the window finds it (no false negative).  The key
 * may answer for up to k + l generations after its own: its fields are
 * emptied when they reach age k + l (the expiry bound, (k + l) span).
 *
 * Rings.  Every ring has the same shape (k, l, b, unit), planned once for
 * the capacity hint (g0 = ceil(capacity / l) keys per generation, the
 * "home" size) by apbf-line's planner, for a little under cfg.error
 * ("False positives"); a ring for g keys per generation takes ceil(g
 * units0 / g0) units, so its load per unit, and its model FP, is the home
 * ring's, unless it is a burst's, planned for less (a lower load per
 * unit, from the model's curve).  New keys go into the newest ring, the
 * ACTIVE one; the others are RETIRED: they take no more keys and need no
 * sweeping, and their newest field stays at G_last, the generation they
 * stopped in.
 *
 *     slots:  [0] active, G_r = now's G   [1] retired at G_last  [2] ...
 *             newest first; freed once G - G_last > l
 *
 * Why a retired ring is read correctly without ever shifting it.  At
 * generation G its field of age a holds generation G_last - a, which is
 * really of age a + (G - G_last); a run of k must start at a real age <=
 * l, so only ring ages 0 .. k + l - 1 - (G - G_last) are read: the ages
 * vector from tdbf_line_ring_ages is cut to that many low bits before
 * line_has_run.  The fields a shift would have emptied (the spare, whose
 * sweep stopped, and the oldest) are never among them.  The active ring
 * is read the same way between its last add and a query ahead in time
 * (the shifts it owes are made by the next add), so a query changes
 * nothing and answers as if they had been made.
 *
 * When the active ring changes.
 *   - One generation on (add at G_r + 1): tdbf_line_ring_shift (the rest
 *     of the sweep, then the ring turns).  But if that generation brought
 *     under g/4 keys (measured over the part of it the filter saw, at
 *     least half) and the ring is above the minimum g0/16, it is retired
 *     and a smaller successor opens (shrink), so memory follows the rate.
 *   - More generations on (an idle gap): shifting costs a pass over every
 *     unit per generation, so the ring is retired (the masking above
 *     covers the generations it missed) and a fresh one opens, sized from
 *     the last generations' rate.  A small ring (units times generations
 *     missed within 4096) is shifted through instead: cheaper than a new
 *     one.  A ring left behind by more than l generations is freed
 *     (advance does that too).
 *   - Full (its g inserts taken in its newest field): the rate is
 *     projected from this generation's keys over its elapsed part, or
 *     from the ring's keys since it opened if that is faster (a
 *     generation that began slowly hides a burst's pace); a generation
 *     that will end within 1/16 more keys is let overfill (slightly
 *     higher FP, never a false negative).  Else, in the ring's first
 *     generation, or while its keys allow, it shifts on count (Bursts,
 *     below) if the other rings leave room for its FP (False positives).
 *     Else a successor opens for twice the projection, at least 2 g (or
 *     the home g0, from a smaller ring), at most 4 g: a burst at one
 *     timestamp (no elapsed time, an infinite rate) grows by 4x per ring.
 *
 *   Sizing from an observed n keys per generation: twice n, but no more
 *   than g0 when n is within 1/16 of g0 (the hint is believed then, so
 *   a rate back at home returns memory to the home ring), at least g0/16.
 *
 * Bursts.  A ring's fields are generations of the ring ("field
 * generations"), numbered so that G_r >= G always; a key added at G goes
 * into field generation G_r, so no field generation is older than its
 * keys, nor than the ring's first key (generation `born`).  A full ring
 * may also shift on count, whenever every live key keeps its run of k
 * after it: the oldest field generation that may hold a live key (a lower
 * bound, first_live in tlbf_line_state.h) at most l below the new newest
 * one.  A ring steady on the clock never may (first_live = G - l, G_r =
 * G); a fresh one may up to l times while its first generation's keys are
 * live, so it takes (l + 1) g keys of one generation at the steady load
 * instead of g (a file read in seconds into a window of minutes is one
 * such burst), even across a generation's end.  The shifts made in
 * generation born ("excess") leave field generations born .. born +
 * excess - 1 holding keys of born alone, which lets first_live skip them
 * once born has left the window.  The ring is then ahead of the clock
 * (G_r > G) and shifts by time again once G passes G_r.  A query at G must
 * find the keys of G - l and later, so it reads from the newest field down
 * to first_live, plus k - 1, never more than k + l ages: no false
 * negative, and with no shift on count the ages of "Why a retired
 * ring...".  A ring whose latest key (`last`) is older than G - l is
 * freed.  A burst beyond (l + 1) g opens a successor, fresh, that shifts
 * on count in turn; such rings fill all their fields while their
 * predecessors are still read, so they are planned against what those
 * leave of cfg.error (False positives).  A ring left ahead of the clock
 * waits for no shift to shrink: at the first add of each generation the
 * last one's rate is judged as above.
 *
 * False positives.  A never-added key is a false positive if any live
 * ring answers yes, and every query reads every live ring: at most the
 * sum of their FPs, which the rings are planned to keep within cfg.error
 * at every moment, the worst (just before a shift, the peak of a burst)
 * included:
 *   - the home ring is planned for HOME_SHARE = 0.92 of cfg.error (less
 *     when it has under 256 units: a small ring's FP spreads around the
 *     model's, one standard deviation about 1.7 / sqrt(units) of it, and
 *     such a ring is planned for three of them less: a unit or two more;
 *     filled in a burst, 38 units measured 0.81x its model on average
 *     over 300 seeds, 0.29x the deviation, 2.2x at most, and then the
 *     home ring alone is past cfg.error); at a steady rate it is the only
 *     ring, and its model FP, reached just before a shift, is the
 *     filter's;
 *   - the sum is kept to SUM_SHARE = 0.95 of cfg.error (the rest covers
 *     the model's spread).  A retired ring's FP only falls (no key comes,
 *     and it is read over fewer ages as it ages), so a ring planned for
 *     what the live rings leave of that when it opens keeps the sum
 *     within it, however fast it fills;
 *   - a ring fills all its fields while the others are still read when
 *     it shifts on count: it may only while its model FP fits in what the
 *     other live rings leave (else a successor opens);
 *   - a successor opened while keys come faster than it can take them on
 *     the clock (it will shift on count: a burst) is planned for a third
 *     (1 / BURST_SHARE) of what the live rings leave, so however long a
 *     burst's chain grows its sum stays within the limit (1/3 + 2/9 +
 *     4/27 + ... of the room), and a long burst's last rings, which hold
 *     most of its keys, still find room (a third measured 54.8 bits per
 *     key at the end of 10^6 keys read at full speed, a half 59.0);
 *     other successors (a shrink, a gap, growth with the rate within 2 to
 *     4 g) fill at the clock's pace as their predecessors age and take the
 *     home ring's FP;
 *   - each ring's FP is the count estimate below, calibrated at its own
 *     planned load; a retired ring's is scaled to what its bits hold
 *     (read once when it retires, at most 2^16 units), so a burst's later
 *     rings are planned for the room its early, small rings really leave;
 *   - a file whose home ring took all of cfg.error (written before this
 *     rule) keeps the same room over its home ring's FP: its sum may pass
 *     cfg.error by up to 3 %, and tdbf_current_error says so;
 *   - no ring is planned under the home ring's FP / 1024, and a ring
 *     planned at that floor may shift on count: the limit is spent then,
 *     and growing by 4x at every g keys would only cost memory (10^4x,
 *     measured, when a small home ring was 2.2x its model).
 * Measured (test_tlbf_line.c, fixed seeds; the FP at the worst moment
 * over 4 000 / error never-added keys, its 95 % Wilson interval's upper
 * end; bits per key of the window then):
 *
 *     pattern, error                 FP / target (upper)   bits/key
 *     steady 1000/s, 0.01                 0.91 (0.95)         21.0
 *     steady 1000/s, 0.001                0.94 (0.97)         30.7
 *     10x rate jump, 0.01                 0.83 (0.85)        103.7
 *     10x rate jump, 0.001                0.82 (0.85)        124.5
 *     600 000 keys, 4096 a ms, 0.01       0.83 (0.86)         90.0
 *     600 000 keys, 4096 a ms, 0.001      0.86 (0.89)        126.3
 *     20/s, then 50 000 at once, 0.01     0.72 (0.75)         33.6
 *     20/s, then 50 000 at once, 0.001    0.75 (0.78)         96.7
 *
 * (planned for half the predecessor's FP, the chain summed to up to twice
 * the first ring's: 1.07x, 1.01x, 1.38x, 1.61x, 1.54x and 1.43x the
 * target in the last six rows, and 0.98x and 1.01x at a steady rate).
 * `tdbf dedup --window 10m` of 3 000 000 distinct lines from a pipe drops
 * 0.80-0.81 % of them at --error 0.01 and 0.084-0.086 % at 0.001, in
 * 26-27 and 35-37 MiB (three runs each; before, 1.35-1.57 % and
 * 0.10-0.14 %, in 31.2 and 40.1 MiB).
 *
 * Memory.  At a steady rate one ring: 22.7 and 33.5 bits per key of the
 * window at 0.01 and 0.001, 1.10x and 1.22x TLBF's (tlbf.c, same error
 * and capacity; 1.08x and 1.21x with the home ring planned for all of
 * cfg.error).  A burst inside one generation: the hint's worth of keys
 * at once fills the home ring by shifting on count (no other ring, the
 * planned memory); 20 000 keys at one ns on a hint of 1 200 a window
 * open two rings beyond the home ring, 38.7 bits per key, 1.9x one ring
 * of exactly the burst (test_tlbf_line.c; 431 bits per key before rings
 * shifted on count).  A burst's rings cost more per key than the home
 * ring (a lower load for a lower FP) and are oversized up to 4x when it
 * ends (the table above); they age out a window later.  Through a 10x
 * jump, 1.1-1.5x the bits per key of rings planned at half their
 * predecessor's FP, the same moments compared.
 *
 * The current error (tdbf_current_error) is computed from counts, not
 * bits: every ring keeps its keys per generation (64 of them, k + l < 64),
 * so a field of age a holds the keys of generations G_r - a .. G_r - a +
 * k - 1 (no later than G_r), a mean load of lambda_a keys per unit; a
 * field of W bits then matches a never-added key's b bits with
 * E[(1 - q^X)^b] = sum_i C(b,i) (-1)^i exp(-lambda_a (1 - q^i)), q = (1 -
 * 1/W)^b, X ~ Poisson(lambda_a); the run probability over the ages still
 * read follows (tdbf_line_run_probability).  Fields of neighbouring ages
 * share keys, which independent fields ignore (apbf_line_plan.c measured
 * 20-40 %), so the result is scaled by the ring's model FP over this
 * estimate at its own planned load (the ratio moves with the load: the
 * home ring's ratio on a burst's rings, planned for less, read 1.4-2x
 * under their measured FP): exact at steady state, proportional
 * elsewhere; and a retired ring's by what its bits hold over its count
 * estimate (retired rings take no keys, so the ratio is read once).  A
 * few hundred ns for a few rings; stats.error_estimated
 * scales each ring's estimate from its bits (tdbf_line_ring_estimated,
 * which reads all its ages) by the same masked-over-unmasked ratio.
 * The ring sizing and this model: tlbf_line_model.c.
 *
 * Bounds.  cfg.max_slices caps the live rings (0: 2 (k + l) + 32) and
 * cfg.max_memory the bytes.  A successor refused by either: growth keeps
 * filling the active ring (FP rises, never a false negative) and counts
 * stats.cap_hits, trying again g keys later; a shrink or a gap shifts the
 * active ring instead.
 */
#include <math.h>
#include <string.h>

#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"
#include "designs/apbf_line/line.h"
#include "designs/tlbf_line/internal.h"

/* Counts and times loaded from a file are at most this, so adds can count
 * on without wrapping. */
#define COUNT_LIMIT (UINT64_C(1) << 60)

/* ---- slots --------------------------------------------------------------- */

/* A ring's model FP at its g and what scales its count estimate. */
static void set_ring_fp(const tlbf_line *t, ring_slot *s, double fp)
{
    s->fp = fp;
    s->calibration = tdbf_tlbf_line_calibration(t, s);
    s->realized = 1.0;
}

/* A ring takes no more keys: from now on its count estimate follows what
 * its bits hold (a small ring's FP spreads around the model's: 20 % at
 * 34 units, 2 % at 3 000, over 40 seeds), so a burst's later rings are
 * planned for the FP its predecessors really have.  Read once (at most
 * 2^16 units), as its bits never change again. */
static void retire(const tlbf_line *t, ring_slot *s)
{
    s->realized = 1.0;
    double counted = tdbf_tlbf_line_slot_fp(t, s, 0, true);
    if (counted > 0.0)
        s->realized = tdbf_line_ring_estimated(s->ring) / counted;
}

static void close_slot(tdbf *f, ring_slot *s)
{
    tdbf_line_ring_close(f, s->ring);
    memset(s, 0, sizeof *s);
}

/* Rings left behind by more than l generations hold nothing a query may
 * read: free them (they are the oldest, at the end). */
static void drop_stale(tdbf *f, tlbf_line *t, uint64_t G)
{
    while (t->count > 0 && ages_read(t, &t->slots[t->count - 1], G) == 0) {
        close_slot(f, &t->slots[--t->count]);
        t->fp_kept = false;
    }
}

/* Room for one more slot (count < max_rings). */
static int reserve_slot(tdbf *f, tlbf_line *t)
{
    if (t->count < t->slots_allocated)
        return TDBF_OK;
    unsigned size = t->slots_allocated * 2 < t->max_rings ? t->slots_allocated * 2
                                                          : t->max_rings;
    ring_slot *slots = tdbf_mem_calloc(f, size, sizeof *slots);
    if (!slots)
        return TDBF_ENOMEM;
    memcpy(slots, t->slots, t->count * sizeof *slots);
    tdbf_mem_free(f, t->slots, t->slots_allocated * sizeof *slots);
    t->slots = slots;
    t->slots_allocated = size;
    return TDBF_OK;
}

/* A new active ring for g keys per generation at FP fp (the home ring's
 * or less), newest field at G; the previous one, if any, is retired as it
 * stands.  TDBF_OK, TDBF_ETOOBIG (max_slices, max_memory, size) or
 * TDBF_ENOMEM: then nothing changed. */
static int open_successor(tdbf *f, tlbf_line *t, uint64_t g, double fp, uint64_t G)
{
    tdbf_line_plan plan;
    int rc = tdbf_tlbf_line_plan_ring(t, g, fp, &plan);
    if (rc != TDBF_OK)
        return rc;
    double slots = t->count < t->slots_allocated ? 0.0
                 : 2.0 * (double)t->slots_allocated * sizeof(ring_slot);
    if (t->count >= t->max_rings ||
        !tdbf_fits((double)f->memory_bytes + tdbf_line_ring_bytes_planned(&plan) + slots,
                   t->max_memory))
        return TDBF_ETOOBIG;
    rc = reserve_slot(f, t);
    tdbf_line_ring *ring = NULL;
    if (rc == TDBF_OK)
        rc = tdbf_line_ring_open(f, &plan, &ring);
    if (rc != TDBF_OK)
        return rc;
    if (t->count > 0)
        retire(t, &t->slots[0]);
    memmove(t->slots + 1, t->slots, t->count * sizeof *t->slots);
    t->fp_kept = false;
    t->count++;
    ring_slot *s = &t->slots[0];
    memset(s, 0, sizeof *s);
    s->ring = ring;
    s->generation = G;
    s->born = G;
    s->last = G;
    s->opened_ns = t->add_ns;
    s->g = g;
    s->units = plan.units;
    set_ring_fp(t, s, plan.fp);
    t->check_at = g;
    return TDBF_OK;
}

/* ---- generations ------------------------------------------------------- */

/* The filter starts watching the rate (open, or after everything aged). */
static void begin_observing(tlbf_line *t, uint64_t G, uint64_t now_ns)
{
    t->gen_of = G;
    t->gen_keys = 0;
    t->prev_keys = 0;
    t->observed_from = now_ns;
}

/* Keys added in generation G so far (the counter moves on to G). */
static void count_generation(tlbf_line *t, uint64_t G)
{
    if (t->gen_of == G)
        return;
    t->prev_keys = G - t->gen_of == 1 ? t->gen_keys : 0;
    t->gen_of = G;
    t->gen_keys = 0;
}

/* Shift the active ring on to G, one generation at a time (at most k + l
 * + 1: after those every field has been emptied once). */
static void shift_active(tlbf_line *t, uint64_t G)
{
    ring_slot *a = &t->slots[0];
    uint64_t behind = G - a->generation, steps = t->k + t->l + 1;
    if (behind > steps) {
        memset(a->counts, 0, sizeof a->counts);
        behind = steps;
    }
    for (uint64_t i = 0; i < behind; i++) {
        tdbf_line_ring_shift(a->ring);
        a->counts[(G - behind + i + 1) % COUNTS] = 0;
    }
    t->generations = saturating_add(t->generations, G - a->generation);
    a->generation = G;
    t->check_at = a->g;
    if (a->excess > 0 && G - a->born > t->l + a->excess)
        a->excess = 0;          /* the burst's keys have all left the window */
}

/* Keys in the active ring's generation as a rate per whole generation,
 * from the part of it the filter watched; negative when it watched less
 * than half of it (no judgement then). */
static double ended_rate(const tlbf_line *t, uint64_t ended)
{
    uint64_t start = ended * t->span_ns, end = start + t->span_ns;
    uint64_t from = t->observed_from > start ? t->observed_from : start;
    if (from >= end || end - from < t->span_ns / 2)
        return -1.0;
    double keys = t->gen_of == ended ? (double)t->gen_keys : 0.0;
    return keys * (double)t->span_ns / (double)(end - from);
}

/* Generation G - 1 has ended: if it brought under g/4 keys, a smaller
 * successor takes over (true).  Then the active ring is retired as it
 * stands, which also suits one still ahead of the clock after a burst. */
static bool shrink(tdbf *f, tlbf_line *t, uint64_t G)
{
    const ring_slot *a = &t->slots[0];
    double rate = ended_rate(t, G - 1);
    if (rate < 0.0 || rate * SHRINK_BELOW >= (double)a->g || a->g <= t->min_g)
        return false;
    uint64_t g = tdbf_tlbf_line_sized_for(t, rate);
    if (g >= a->g || open_successor(f, t, g, t->fp_planned, G) != TDBF_OK)
        return false;
    t->generations = saturating_add(t->generations, 1);
    return true;
}

/* The active ring's generation has ended, G = G_r + 1: shift, or shrink. */
static void next_generation(tdbf *f, tlbf_line *t, uint64_t G)
{
    if (!shrink(f, t, G))
        shift_active(t, G);
}

/* An idle gap: the active ring is two or more generations behind G. */
static void after_gap(tdbf *f, tlbf_line *t, uint64_t G)
{
    ring_slot *a = &t->slots[0];
    uint64_t behind = G - a->generation;
    if (behind <= t->k + t->l && a->units <= SHIFT_THROUGH_UNITS / behind) {
        shift_active(t, G);
        return;
    }
    double recent = 0.0;
    if (t->gen_of == a->generation)
        recent = (double)(t->gen_keys > t->prev_keys ? t->gen_keys : t->prev_keys);
    uint64_t g = recent * SHRINK_BELOW >= (double)a->g ? a->g : tdbf_tlbf_line_sized_for(t, recent);
    if (open_successor(f, t, g, t->fp_planned, G) == TDBF_OK)
        t->generations = saturating_add(t->generations, behind);
    else
        shift_active(t, G);
}

/* Everything aged out (or nothing opened yet after a load of none): a new
 * active ring at G for the last rate seen, or the smallest. */
static int restart(tdbf *f, tlbf_line *t, uint64_t G, uint64_t now_ns)
{
    double recent = (double)(t->gen_keys > t->prev_keys ? t->gen_keys : t->prev_keys);
    int rc = open_successor(f, t, tdbf_tlbf_line_sized_for(t, recent), t->fp_planned, G);
    if (rc != TDBF_OK)
        rc = open_successor(f, t, t->min_g, t->fp_planned, G);
    if (rc == TDBF_OK)
        begin_observing(t, G, now_ns);
    return rc;
}

/* The ring open made, before any add: it holds nothing, so it belongs to
 * no generation yet (whatever its stamp) and is never stale. */
static bool untouched(const tlbf_line *t)
{
    return t->count == 1 && t->slots[0].keys == 0;
}

/* Bring the active ring to generation G before an add. */
static int settle(tdbf *f, tlbf_line *t, uint64_t G, uint64_t now_ns)
{
    if (untouched(t)) {
        ring_slot *fresh = &t->slots[0];
        if (fresh->generation != G) {   /* never used: it may start anywhere */
            fresh->generation = G;
            fresh->born = G;
            fresh->last = G;
            memset(fresh->counts, 0, sizeof fresh->counts);
            begin_observing(t, G, now_ns);
        }
        fresh->opened_ns = now_ns;
        return TDBF_OK;
    }
    drop_stale(f, t, G);
    if (t->count == 0)
        return restart(f, t, G, now_ns);
    ring_slot *a = &t->slots[0];
    if (G <= a->generation) {   /* its generation, or ahead after a burst */
        if (a->excess > 0 && G > a->born && t->gen_of == G - 1)
            shrink(f, t, G);    /* (a burst's ring waits for no shift) */
        return TDBF_OK;
    }
    if (G - a->generation == 1)
        next_generation(f, t, G);
    else
        after_gap(f, t, G);
    return TDBF_OK;
}

/* The FPs of the live rings from slots[first] on, from their counts at G
 * (a few hundred ns a ring: exp per age and bit). */
static double rings_fp_from(const tlbf_line *t, unsigned first, uint64_t G)
{
    double fp = 0.0;
    for (unsigned i = first; i < t->count; i++)
        fp += tdbf_tlbf_line_slot_fp(t, &t->slots[i], G, false);
    return fp < 1.0 ? fp : 1.0;
}

static double rings_fp(const tlbf_line *t, uint64_t G)
{
    return rings_fp_from(t, 0, G);
}

/* What the limit on the sum leaves once the rings from slots[first] on
 * answer as they do at G.  A retired ring's FP only falls as it ages
 * (fewer ages read, no new keys), so a ring planned within this at G
 * keeps the sum within the limit however fast it fills ("False
 * positives"). */
static double fp_left(const tlbf_line *t, unsigned first, uint64_t G)
{
    return t->fp_sum_limit - rings_fp_from(t, first, G);
}

/* The least FP a ring is planned for.  Below it the limit is spent (a
 * small home ring far over its model, a cap): the promise is lost
 * whatever the next rings cost, so they are planned at this and may
 * shift on count, rather than grow by 4x at every g keys. */
static double fp_floor(const tlbf_line *t)
{
    return t->fp_planned / FP_FLOOR;
}

/* May the active ring fill all its fields now, FP-wise: the other live
 * rings leave room for its model FP, or it was planned at the floor. */
static bool room_to_shift(const tlbf_line *t, const ring_slot *a, uint64_t G)
{
    return a->fp <= fp_floor(t) || a->fp <= fp_left(t, 1, G);
}

/* Would every key the active ring holds keep its run of k after a shift
 * on count at G?  When the oldest field generation that may hold a live
 * key (first_live) is at most l below the new newest one.  Then also
 * every later time shift keeps them (the essay's "Bursts").  A ring
 * steady on the clock never would (first_live = G - l); a fresh one would
 * up to l times in its first generation, and after it as long as its
 * keys of that generation are live and the l are not spent. */
static bool keys_allow_shift(const tlbf_line *t, const ring_slot *a, uint64_t G)
{
    return a->born != BORN_UNKNOWN && a->generation + 1 - first_live(t, a, G) <= t->l;
}

/* Only the shifts of the first generation count as its excess: the fields
 * they leave behind hold keys of that generation alone. */
static void shift_on_count(tlbf_line *t, ring_slot *a, uint64_t G)
{
    tdbf_line_ring_shift(a->ring);      /* its spare is swept: g keys came */
    a->generation++;
    a->excess += G == a->born;
    a->counts[a->generation % COUNTS] = 0;
    t->check_at = a->g;
    t->fp_kept = false;
}

/* The FP a successor is planned for.  In a burst it will shift on count
 * and fill all its fields while every live ring is still read: a share
 * (1 / BURST_SHARE) of what they leave of the limit on the sum, so a
 * burst's chain of rings stays within it however long it grows.  Else
 * the home ring's: it fills at the clock's pace as its predecessors age
 * (and may shift on count only within what they leave). */
static double successor_fp(const tlbf_line *t, bool burst, uint64_t G)
{
    if (!burst)
        return t->fp_planned;
    double fp = fp_left(t, 0, G) / BURST_SHARE, floor = fp_floor(t);
    return fp < floor ? floor : fp < t->fp_planned ? fp : t->fp_planned;
}

/* The active ring took its check_at keys in its newest field at G: allow
 * a last few, shift on count (a burst in the ring's first generation),
 * grow, or (refused) keep filling (see the essay). */
/* Keys per generation at the pace the active ring fills: this
 * generation's over its watched part, or the ring's own since it opened
 * if faster (a generation that began slowly hides a burst's pace). */
static double projected_rate(const tlbf_line *t, const ring_slot *a, uint64_t G, uint64_t now_ns)
{
    uint64_t start = G * t->span_ns;
    if (t->observed_from > start)
        start = t->observed_from;
    double span = (double)t->span_ns;
    double elapsed = (double)(now_ns - start), lived = (double)(now_ns - a->opened_ns);
    double generation = elapsed > 0.0 ? (double)t->gen_keys * span / elapsed : INFINITY;
    double ring = lived > 0.0 ? (double)a->keys * span / lived : INFINITY;
    return ring > generation ? ring : generation;
}

static void consider_growth(tdbf *f, tlbf_line *t, uint64_t G, uint64_t now_ns)
{
    ring_slot *a = &t->slots[0];
    uint64_t fill = a->counts[a->generation % COUNTS];
    double projected = projected_rate(t, a, G, now_ns);
    double g = (double)a->g;
    if (t->check_at == a->g && projected <= g + g / HOME_TOLERANCE) {
        t->check_at = a->g + a->g / HOME_TOLERANCE + 1;
        return;
    }
    /* A ring that fills faster than the clock shifts on count if the
     * other rings leave room for all its fields ("False positives") */
    bool fills_fast = keys_allow_shift(t, a, G);
    if (fills_fast && room_to_shift(t, a, G)) {
        shift_on_count(t, a, G);
        return;
    }
    double want = isinf(projected) ? INFINITY : (double)tdbf_tlbf_line_sized_for(t, projected);
    double lo = 2.0 * g, hi = GROWTH_MAX * g;
    if (a->g < t->home_g && (double)t->home_g < lo)
        lo = (double)t->home_g;
    if (a->excess > 0 && G != a->born)
        lo = (double)t->min_g;  /* the field it fills is the burst's: the rate may be back */
    want = want < lo ? lo : want > hi ? hi : want;
    /* a burst: keys come faster than the successor takes them on the
     * clock, so it will shift on count */
    bool burst = projected > want + want / HOME_TOLERANCE;
    if (burst)
        retire(t, a);           /* what its bits hold, for the budget */
    if (open_successor(f, t, (uint64_t)want, successor_fp(t, burst, G), G) != TDBF_OK) {
        a->realized = 1.0;      /* still active after all */
        t->cap_hits++;
        t->check_at = saturating_add(fill, a->g);
    }
}

/* Adds keep the sum (a caller such as the Redis module asks before every
 * add): recomputed at each generation, each change of rings and every
 * 1/64 of the active ring's g adds, so it lags the active field's load by
 * at most 1/64 of it. */
static void keep_fp(tlbf_line *t, uint64_t G)
{
    if (t->fp_kept && t->fp_G == G && t->fp_adds > 0) {
        t->fp_adds--;
        return;
    }
    t->fp_current = rings_fp(t, G);
    t->fp_G = G;
    t->fp_adds = t->slots[0].g / 64;
    t->fp_kept = true;
}

/* ---- operations ------------------------------------------------------- */

/* Does ring s hold the key in a run of k among the ages still read at G? */
static int slot_has(const tlbf_line *t, const ring_slot *s, const tdbf_hash128 *h, uint64_t G)
{
    unsigned ages = ages_read(t, s, G);
    return ages && line_has_run(tdbf_line_ring_ages(s->ring, h), t->k, ages);
}

static int tlbf_line_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    tlbf_line *t = f->impl;
    uint64_t G = now_ns / t->span_ns;
    t->add_ns = now_ns;
    if (t->settled_next == 0 || G != t->settled_next - 1) {
        /* Once settled at G, another settle at G would find nothing: the
         * stale rings are gone, the active ring is at G or ahead, and the
         * generation's first add has shrunk a burst's ring if it was due.
         * (An add's successor is at G or ahead too.) */
        int rc = settle(f, t, G, now_ns);
        if (rc != TDBF_OK)
            return rc;
        t->settled_next = G < UINT64_MAX ? G + 1 : 0;
    }
    count_generation(t, G);
    if (t->slots[0].counts[t->slots[0].generation % COUNTS] >= t->check_at)
        consider_growth(f, t, G, now_ns);
    ring_slot *a = &t->slots[0];
    int present;
    uint64_t first = first_live(t, a, G);
    if (first > a->born && a->generation - first < t->l) {
        /* after a burst, fields of expired keys (older than first_live,
         * newer than born: below born they are empty) that the ring's own
         * test would read: answer as a query would, then add */
        present = slot_has(t, a, &key->hash, G);
        tdbf_line_ring_add(a->ring, &key->hash);
    } else {
        present = tdbf_line_ring_add(a->ring, &key->hash);
    }
    a->counts[a->generation % COUNTS]++;
    a->last = G;
    keep_fp(t, G);
    a->keys++;
    t->gen_keys++;
    for (unsigned i = 1; i < t->count && !present; i++)
        present = slot_has(t, &t->slots[i], &key->hash, G);
    return present;
}

static int tlbf_line_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    const tlbf_line *t = f->impl;
    uint64_t G = now_ns / t->span_ns;
    for (unsigned i = 0; i < t->count; i++)
        if (slot_has(t, &t->slots[i], &key->hash, G))
            return 1;
    return 0;
}

/* Free what has aged out; the active ring's owed shifts wait for an add
 * (queries read it correctly meanwhile). */
static int tlbf_line_advance(tdbf *f, uint64_t now_ns)
{
    tlbf_line *t = f->impl;
    if (untouched(t))
        t->slots[0].generation = now_ns / t->span_ns;   /* (saved rings are all live) */
    else
        drop_stale(f, t, now_ns / t->span_ns);
    return TDBF_OK;
}

/* The key's unit in the first four rings, which an add or query reads
 * when the key is absent (an add writes the first). */
static void tlbf_line_prefetch(const tdbf *f, const tdbf_key *key, int for_add)
{
    const tlbf_line *t = f->impl;
    for (unsigned i = 0; i < t->count && i < 4; i++) {
        line_prefetch_unit(tdbf_line_ring_unit(t->slots[i].ring, &key->hash),
                           t->unit_bits / 64, for_add && i == 0);
    }
}

static double tlbf_line_current_error(const tdbf *f, uint64_t now_ns)
{
    const tlbf_line *t = f->impl;
    uint64_t G = now_ns / t->span_ns;
    return t->fp_kept && t->fp_G == G ? t->fp_current : rings_fp(t, G);
}

/* ---- open, close, stats ------------------------------------------------ */

/* What open and load share once k, l, b, unit, T and the home ring are
 * known (and fp_planned). */
static void set_derived(tlbf_line *t)
{
    t->span_ns = ceil_div(t->window_ns, t->l);
    t->min_g = t->home_g / MIN_FRACTION ? t->home_g / MIN_FRACTION : 1;
    tdbf_tlbf_line_derive(t);
}

/* What the live rings' FPs may sum to: SUM_SHARE of cfg.error, or, for a
 * file whose home ring was planned for more than HOME_SHARE of it (before
 * this rule), as much over its home ring's FP as a new filter has. */
static void set_sum_limit(tlbf_line *t, double error)
{
    double home = t->fp_planned / HOME_SHARE;
    t->fp_sum_limit = SUM_SHARE * (home > error ? home : error);
}

static unsigned default_rings(unsigned k, unsigned l)
{
    return 2 * (k + l) + 32;
}

/* The home ring open builds for cfg: apbf-line's plan for a count
 * window of `capacity`, so g0 = ceil(capacity / l). */
static int tlbf_line_size(const tdbf_config *cfg, tdbf_line_plan *plan)
{
    if (cfg->window_ns == 0 || cfg->window_items != 0)
        return TDBF_EWINDOW;
    if (cfg->max_slices > RING_LIMIT)
        return TDBF_EPARAM;
    uint64_t capacity = cfg->capacity ? cfg->capacity : TLBF_LINE_DEFAULT_CAPACITY;
    tdbf_config home = *cfg;
    /* the rest for a burst's rings; HOME_SHARE is this design's own margin
     * under the model, so the planner's (line.h) is not taken twice */
    home.error = cfg->error * HOME_SHARE * TDBF_LINE_PLAN_MARGIN;
    int rc = tdbf_line_plan_ring(&home, capacity, plan);
    if (rc == TDBF_OK && plan->units < FEW_UNITS) {
        /* a small ring's FP spreads around the model's ("False
         * positives", above): planned three spreads under */
        home.error /= 1.0 + 3.0 * UNIT_SPREAD / sqrt((double)plan->units);
        rc = tdbf_line_plan_ring(&home, capacity, plan);
    }
    if (rc != TDBF_OK)
        return rc;
    double fixed = (double)(sizeof(tlbf_line) + FIRST_SLOTS * sizeof(ring_slot));
    return tdbf_fits(tdbf_line_ring_bytes_planned(plan) + fixed, cfg->max_memory)
               ? TDBF_OK : TDBF_ETOOBIG;
}

int tdbf_plan_tlbf_line(const tdbf_config *cfg, tdbf_line_plan *out)
{
    if (!cfg || !out)
        return TDBF_EINVAL;
    if (!(cfg->error > 0.0 && cfg->error < 1.0))
        return TDBF_EERROR;
    return tlbf_line_size(cfg, out);
}

static unsigned first_slots(unsigned max_rings)
{
    return max_rings < FIRST_SLOTS ? max_rings : FIRST_SLOTS;
}

/* At a steady rate one ring is live: the home ring open allocates. */
static int tlbf_line_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_line_plan plan;
    int rc = tlbf_line_size(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    unsigned max_rings = cfg->max_slices ? cfg->max_slices : default_rings(plan.k, plan.l);
    out->k = plan.k;
    out->l = plan.l;
    out->window_ns = cfg->window_ns;
    out->error_planned = plan.fp;
    out->memory_bytes = sizeof(tdbf) + sizeof(tlbf_line) +
                        first_slots(max_rings) * sizeof(ring_slot) +
                        (uint64_t)tdbf_line_ring_bytes_planned(&plan);
    return TDBF_OK;
}

static int tlbf_line_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_line_plan plan;
    int rc = tlbf_line_size(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;

    tlbf_line *t = tdbf_mem_calloc(f, 1, sizeof *t);
    if (!t)
        return TDBF_ENOMEM;
    t->k = plan.k;
    t->l = plan.l;
    t->b = plan.b;
    t->unit_bits = plan.unit_bits;
    t->max_rings = cfg->max_slices ? cfg->max_slices : default_rings(plan.k, plan.l);
    t->window_ns = cfg->window_ns;
    t->home_g = plan.generation;
    t->home_units = plan.units;
    t->max_memory = cfg->max_memory;
    t->fp_planned = plan.fp;
    set_sum_limit(t, f->error);
    set_derived(t);
    t->slots_allocated = first_slots(t->max_rings);
    t->slots = tdbf_mem_calloc(f, t->slots_allocated, sizeof *t->slots);
    rc = t->slots ? tdbf_line_ring_open(f, &plan, &t->slots[0].ring) : TDBF_ENOMEM;
    if (rc != TDBF_OK) {
        if (t->slots)
            tdbf_mem_free(f, t->slots, t->slots_allocated * sizeof *t->slots);
        tdbf_mem_free(f, t, sizeof *t);
        return rc;
    }
    t->count = 1;
    t->slots[0].g = plan.generation;
    t->slots[0].units = plan.units;
    set_ring_fp(t, &t->slots[0], plan.fp);
    t->check_at = plan.generation;
    f->impl = t;
    f->error_planned = t->fp_planned;
    return TDBF_OK;
}

static void free_rings(tdbf *f, tlbf_line *t)
{
    while (t->count > 0)
        close_slot(f, &t->slots[--t->count]);
    tdbf_mem_free(f, t->slots, t->slots_allocated * sizeof *t->slots);
    tdbf_mem_free(f, t, sizeof *t);
}

static void tlbf_line_close(tdbf *f)
{
    free_rings(f, f->impl);
}

/* Keys of the field generations a query at G still reads (first_live
 * .. G_r, at most l + 1 of them). */
static uint64_t window_keys(const tlbf_line *t, const ring_slot *s, uint64_t G)
{
    uint64_t keys = 0;
    if (ages_read(t, s, G) == 0)
        return 0;
    for (uint64_t r = first_live(t, s, G); r <= s->generation; r++)
        keys = saturating_add(keys, s->counts[r % COUNTS]);
    return keys;
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void tlbf_line_shape(const tdbf *f, tdbf_shape *out)
{
    const tlbf_line *t = f->impl;
    out->k = t->k;
    out->l = t->l;
    out->window_ns = t->window_ns;
    out->error_planned = t->fp_planned;
}

static void tlbf_line_stats(const tdbf *f, tdbf_stats *st)
{
    const tlbf_line *t = f->impl;
    uint64_t G = atomic_load_explicit(&f->now_ns, memory_order_relaxed) / t->span_ns;
    double estimated = 0.0;
    uint64_t keys = 0;
    for (unsigned i = 0; i < t->count; i++) {
        const ring_slot *s = &t->slots[i];
        double all = tdbf_tlbf_line_slot_fp(t, s, G, true);
        double read = tdbf_tlbf_line_slot_fp(t, s, G, false);
        if (all > 0.0 && read > 0.0)
            estimated += tdbf_line_ring_estimated(s->ring) * (read / all);
        keys = saturating_add(keys, window_keys(t, s, G));
    }
    st->slices = t->count * (t->k + t->l + 1);
    st->slice_bits = t->unit_bits / (t->k + t->l + 1);
    st->generation_size = t->count ? t->slots[0].g : 0;
    st->generation_fill = t->count ? t->slots[0].counts[t->slots[0].generation % COUNTS] : 0;
    st->generations = t->generations;
    st->error_estimated = estimated < 1.0 ? estimated : 1.0;
    st->keys = keys;
    st->cap_hits = t->cap_hits;
    st->simd = t->count ? tdbf_line_ring_simd(t->slots[0].ring) : tdbf_simd_in_use();
    if (keys)
        st->bits_per_item = 8.0 * (double)f->memory_bytes / (double)keys;
}

/* ---- serialization (codec.c, docs/format.md) ------------------------------
 * Payload: u32 k, u32 l, u32 b, u32 unit bits, u32 max rings, u32 rings
 * (live), u32 slots allocated, u32 0; u64 T, u64 g0, u64 units0, u64
 * generation counted, u64 its keys, u64 the previous one's, u64 watched
 * since (ns), u64 check_at, u64 generations, u64 cap hits, u64 max_memory;
 * then per ring, newest first: u64 generation G_r, u64 keys, u64 payload
 * bytes, u32 retired (0 for the first, 1 after), u32 burst word (born,
 * last and excess: burst_word), k + l u64 counts
 * (ages 0 .. k+l-1, generation G_r - a); then each ring's apbf-line
 * payload (tdbf_line_ring_save) in the same order.  The home ring's FP,
 * the span and the calibration follow from these.  All records come
 * before any ring, so the memory is checked before allocating. */

enum { FIELDS_BYTES = 120, RECORD_FIXED_BYTES = 32 };

/* A ring record's burst word: 0 when the generations of the ring's first
 * and latest keys are not recorded (files before they were; a ring older
 * than 2^17 generations), else BORN_KNOWN | (G_r - born) << 13 | (G_r -
 * last) << 6 | excess: G_r - last and excess at most l. */
#define BORN_KNOWN (UINT32_C(1) << 31)
enum { BORN_SHIFT = 13, BORN_LIMIT = 1 << 17, LAST_SHIFT = 6, FIELD_MASK = 63 };

static uint32_t burst_word(const ring_slot *s)
{
    if (s->born > s->generation || s->generation - s->born >= BORN_LIMIT ||
        s->last > s->generation || s->generation - s->last > FIELD_MASK)
        return 0;
    return BORN_KNOWN | (uint32_t)(s->generation - s->born) << BORN_SHIFT |
           (uint32_t)(s->generation - s->last) << LAST_SHIFT | s->excess;
}

/* The word back into born, last and excess, checked against the record's
 * G_r, the shape and the clock's generation G (the invariants of the
 * essay's "Bursts"). */
static bool read_burst_word(const tlbf_line *h, ring_slot *s, uint32_t word, uint64_t G)
{
    if (!(word & BORN_KNOWN)) {
        s->born = BORN_UNKNOWN;
        s->last = s->generation;
        s->excess = 0;
        return word == 0 && s->generation <= G;
    }
    uint64_t born = (word & ~BORN_KNOWN) >> BORN_SHIFT;
    uint64_t last = word >> LAST_SHIFT & FIELD_MASK;
    s->excess = word & FIELD_MASK;
    if (born > s->generation || last > s->generation || s->excess > h->l ||
        born < s->excess || last > h->l)
        return false;
    s->born = s->generation - born;
    s->last = s->generation - last;
    return s->born <= s->last && s->last <= G &&
           s->generation <= (s->born + h->l > G ? s->born + h->l : G);
}

/* Older rings first took keys no later than newer ones: a ring's first
 * generation after a burst, else its newest field's. */
static uint64_t order_of(const ring_slot *s)
{
    return s->excess > 0 ? s->born : s->generation;
}

static uint64_t record_bytes(const tlbf_line *t)
{
    return RECORD_FIXED_BYTES + 8 * (uint64_t)(t->k + t->l);
}

static uint64_t tlbf_line_payload_size(const tdbf *f)
{
    const tlbf_line *t = f->impl;
    uint64_t bytes = FIELDS_BYTES + t->count * record_bytes(t);
    for (unsigned i = 0; i < t->count; i++)
        bytes += tdbf_line_ring_payload_size(t->slots[i].ring);
    return bytes;
}

static void tlbf_line_save(const tdbf *f, tdbf_out *out)
{
    const tlbf_line *t = f->impl;
    const uint32_t header[8] = {t->k, t->l, t->b, t->unit_bits, t->max_rings, t->count,
                                t->slots_allocated, 0};
    const uint64_t fields[11] = {t->window_ns, t->home_g, t->home_units, t->gen_of,
                                 t->gen_keys, t->prev_keys, t->observed_from, t->check_at,
                                 t->generations, t->cap_hits, t->max_memory};
    for (unsigned i = 0; i < 8; i++)
        tdbf_out_u32(out, header[i]);
    for (unsigned i = 0; i < 11; i++)
        tdbf_out_u64(out, fields[i]);
    for (unsigned i = 0; i < t->count; i++) {
        const ring_slot *s = &t->slots[i];
        tdbf_out_u64(out, s->generation);
        tdbf_out_u64(out, s->keys);
        tdbf_out_u64(out, tdbf_line_ring_payload_size(s->ring));
        tdbf_out_u32(out, i > 0);
        tdbf_out_u32(out, burst_word(s));
        for (unsigned a = 0; a < t->k + t->l; a++)
            tdbf_out_u64(out, s->counts[(s->generation % COUNTS + COUNTS - a) % COUNTS]);
    }
    for (unsigned i = 0; i < t->count; i++)
        tdbf_line_ring_save(t->slots[i].ring, out);
}

/* The filter's own fields, checked against each other; the home ring's
 * FP from the model, which also refuses a shape apbf-line has not. */
static int load_fields(tdbf_in *in, tlbf_line *h, uint64_t now_ns)
{
    uint32_t header[8];
    uint64_t fields[11];
    for (unsigned i = 0; i < 8; i++)
        tdbf_in_u32(in, &header[i]);
    for (unsigned i = 0; i < 11; i++)
        tdbf_in_u64(in, &fields[i]);
    if (in->rc != TDBF_OK)
        return in->rc;
    h->k = header[0];
    h->l = header[1];
    h->b = header[2];
    h->unit_bits = header[3];
    h->max_rings = header[4];
    h->count = header[5];
    h->slots_allocated = header[6];
    h->window_ns = fields[0];
    h->home_g = fields[1];
    h->home_units = fields[2];
    h->gen_of = fields[3];
    h->gen_keys = fields[4];
    h->prev_keys = fields[5];
    h->observed_from = fields[6];
    h->check_at = fields[7];
    h->generations = fields[8];
    h->cap_hits = fields[9];
    h->max_memory = fields[10];
    if (h->k < 1 || h->l < 1 || h->k >= COUNTS || h->l >= COUNTS ||   /* (then k + l) */
        h->k + h->l >= COUNTS || header[7] != 0 ||
        h->max_rings < 1 || h->max_rings > RING_LIMIT || h->count > h->max_rings ||
        h->slots_allocated < 1 || h->slots_allocated > h->max_rings ||
        h->slots_allocated < h->count || h->window_ns == 0 || h->home_g < 1 ||
        h->home_g > (UINT64_C(1) << 50) || h->home_units < 1 ||
        h->home_units > (UINT64_C(1) << 40) || h->max_memory == 0 ||
        h->observed_from > now_ns || h->gen_of > now_ns / ceil_div(h->window_ns, h->l) ||
        h->gen_keys > COUNT_LIMIT || h->prev_keys > COUNT_LIMIT ||
        h->check_at > COUNT_LIMIT || h->generations > COUNT_LIMIT ||
        h->cap_hits > COUNT_LIMIT)
        return TDBF_ECORRUPT;
    h->fp_planned = tdbf_apbf_line_fp(h->k, h->l, h->b, h->unit_bits, h->home_units, h->home_g);
    if (h->fp_planned < 0.0)
        return TDBF_ECORRUPT;
    set_derived(h);
    return TDBF_OK;
}

/* The ring records into slots[0 .. count-1]: newest first, none older than
 * the window (drop_stale has run at every add and advance), none ahead of
 * now; *bytes gets the rings' payloads in all. */
static int load_records(tdbf_in *in, const tlbf_line *h, ring_slot *slots, uint64_t G,
                        uint64_t *bytes)
{
    *bytes = 0;
    for (unsigned i = 0; i < h->count; i++) {
        ring_slot *s = &slots[i];
        uint64_t payload;
        uint32_t retired, burst;
        tdbf_in_u64(in, &s->generation);
        tdbf_in_u64(in, &s->keys);
        tdbf_in_u64(in, &payload);
        tdbf_in_u32(in, &retired);
        tdbf_in_u32(in, &burst);
        for (unsigned a = 0; a < h->k + h->l; a++) {
            uint64_t c = 0;
            tdbf_in_u64(in, &c);
            s->counts[(s->generation % COUNTS + COUNTS - a) % COUNTS] = c;
            if (c > COUNT_LIMIT)
                return TDBF_ECORRUPT;
        }
        if (in->rc != TDBF_OK)
            return in->rc;
        if (!read_burst_word(h, s, burst, G) || ages_read(h, s, G) == 0 ||
            s->keys > COUNT_LIMIT || retired != (i > 0) || payload > in->remaining - *bytes ||
            (i > 0 && order_of(s) > order_of(&slots[i - 1])))
            return TDBF_ECORRUPT;
        s->units = payload;       /* until the ring is read */
        *bytes += payload;
    }
    return TDBF_OK;
}

/* When a loaded ring opened, for the pace it fills at (not saved): the
 * start of its first generation, or of the watched time if later. */
static uint64_t opened_before(const tlbf_line *h, const ring_slot *s, uint64_t now_ns)
{
    uint64_t first = s->born != BORN_UNKNOWN ? s->born : s->generation;
    uint64_t opened = first <= now_ns / h->span_ns ? first * h->span_ns : now_ns;
    return opened > h->observed_from ? opened : h->observed_from;
}

/* Each ring from its apbf-line payload, confined to its recorded length,
 * and checked against the filter: same shape, fill as counted.  *loaded
 * counts the rings held (to be freed on failure). */
static int load_rings(tdbf *f, tdbf_in *in, const tlbf_line *h, ring_slot *slots,
                      uint64_t max_memory, unsigned *loaded)
{
    uint64_t now_ns = atomic_load_explicit(&f->now_ns, memory_order_relaxed);
    for (*loaded = 0; *loaded < h->count;) {
        ring_slot *s = &slots[*loaded];
        uint64_t rest = in->remaining - s->units;
        in->remaining = s->units;
        int rc = tdbf_line_ring_load(f, in, max_memory, &s->ring);
        if (rc != TDBF_OK)
            return rc;
        (*loaded)++;
        in->remaining = rest;
        tdbf_line_plan p;
        tdbf_line_ring_plan(s->ring, &p);
        s->g = p.generation;
        s->units = p.units;
        set_ring_fp(h, s, p.fp);
        if (s != slots)
            retire(h, s);
        s->opened_ns = opened_before(h, s, now_ns);
        uint64_t fill = s->counts[s->generation % COUNTS];
        if (p.k != h->k || p.l != h->l || p.b != h->b || p.unit_bits != h->unit_bits ||
            p.fields != p.k + p.l + 1 ||     /* rings keep the spare (tdbf_line_plan_ring) */
            tdbf_line_ring_fill(s->ring) != (fill < p.generation ? fill : p.generation))
            return TDBF_ECORRUPT;
    }
    return TDBF_OK;
}

static int tlbf_line_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    tlbf_line h;
    memset(&h, 0, sizeof h);
    int rc = load_fields(in, &h, f->now_ns);
    if (rc != TDBF_OK)
        return rc;
    double fixed = (double)sizeof h + (double)h.slots_allocated * sizeof(ring_slot);
    if (!tdbf_fits(fixed + (double)f->memory_bytes, max_memory))
        return TDBF_ETOOBIG;
    tlbf_line *t = tdbf_mem_calloc(f, 1, sizeof *t);
    ring_slot *slots = tdbf_mem_calloc(f, h.slots_allocated, sizeof *slots);
    if (!t || !slots) {
        tdbf_mem_free(f, slots, h.slots_allocated * sizeof *slots);
        tdbf_mem_free(f, t, sizeof *t);
        return TDBF_ENOMEM;
    }
    *t = h;
    set_sum_limit(t, f->error);
    t->add_ns = f->now_ns;
    t->slots = slots;
    t->count = 0;              /* rings held so far, for free_rings */
    uint64_t bytes = 0;
    rc = load_records(in, &h, slots, f->now_ns / h.span_ns, &bytes);
    /* Every ring's struct and alignment beside its payload (which counts
     * its 56 header bytes: a little over). */
    tdbf_line_plan bare;
    memset(&bare, 0, sizeof bare);
    double rings = (double)bytes + (double)h.count * tdbf_line_ring_bytes_planned(&bare);
    if (rc == TDBF_OK && in->remaining != bytes)
        rc = TDBF_ECORRUPT;
    if (rc == TDBF_OK && !tdbf_fits(rings + (double)f->memory_bytes, max_memory))
        rc = TDBF_ETOOBIG;
    if (rc == TDBF_OK)
        rc = load_rings(f, in, &h, slots, max_memory, &t->count);
    if (rc != TDBF_OK) {
        free_rings(f, t);
        return rc;
    }
    f->impl = t;
    f->error_planned = t->fp_planned;
    return TDBF_OK;
}

const tdbf_ops tdbf_tlbf_line_ops = {
    .plan = tlbf_line_plan,
    .open = tlbf_line_open,
    .close = tlbf_line_close,
    .add = tlbf_line_add,
    .contains = tlbf_line_contains,
    .advance = tlbf_line_advance,
    .stats = tlbf_line_stats,
    .shape = tlbf_line_shape,
    .prefetch = tlbf_line_prefetch,
    .current_error = tlbf_line_current_error,
    .payload_size = tlbf_line_payload_size,
    .save = tlbf_line_save,
    .load = tlbf_line_load,
};
