/*
 * tlbf_line.c — the line-local age-partitioned filter over a time window
 * ("tlbf-line"): apbf-line's rings (apbf_line.c, ring.h), shifted by the
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
 * bound, first_live in internal.h) at most l below the new newest
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
 * share keys, which independent fields ignore (designs/apbf_line/model.c measured
 * 20-40 %), so the result is scaled by the ring's model FP over this
 * estimate at its own planned load (the ratio moves with the load: the
 * home ring's ratio on a burst's rings, planned for less, read 1.4-2x
 * under their measured FP): exact at steady state, proportional
 * elsewhere; and a retired ring's by what its bits hold over its count
 * estimate (retired rings take no keys, so the ratio is read once).  A
 * few hundred ns for a few rings; stats.error_estimated
 * scales each ring's estimate from its bits (tdbf_line_ring_estimated,
 * which reads all its ages) by the same masked-over-unmasked ratio.
 * The ring sizing and this model: rings.c.
 *
 * Bounds.  cfg.max_rings caps the live rings (0: 2 (k + l) + 32) and
 * cfg.max_memory the bytes.  A successor refused by either: growth keeps
 * filling the active ring (FP rises, never a false negative) and counts
 * stats.cap_hits, trying again g keys later; a shrink or a gap shifts the
 * active ring instead.
 */
#include <math.h>
#include <math.h>
#include <string.h>

#include "util/mem.h"
#include "designs/tlbf_line/internal.h"

/* ---- operations ------------------------------------------------------- */

/* Does ring s hold the key in a run of k among the ages still read at G? */
static int slot_has(const tlbf_line *t, const ring_slot *s, const tdbf_hash128 *h, uint64_t G)
{
    unsigned ages = ages_read(t, s, G);
    return ages && line_has_run(tdbf_line_ring_ages(s->ring, h), t->k, ages);
}

static int tlbf_line_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    tlbf_line *t = f->state.impl;
    uint64_t G = now_ns / t->span_ns;
    t->add_ns = now_ns;
    if (t->settled_next == 0 || G != t->settled_next - 1) {
        /* Once settled at G, another settle at G would find nothing: the
         * stale rings are gone, the active ring is at G or ahead, and the
         * generation's first add has shrunk a burst's ring if it was due.
         * (An add's successor is at G or ahead too.) */
        int rc = tdbf_tlbf_line_settle(f, t, G, now_ns);
        if (rc != TDBF_OK)
            return rc;
        t->settled_next = G < UINT64_MAX ? G + 1 : 0;
    }
    tdbf_tlbf_line_count_generation(t, G);
    if (t->slots[0].counts[t->slots[0].generation % COUNTS] >= t->check_at)
        tdbf_tlbf_line_consider_growth(f, t, G, now_ns);
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
    tdbf_tlbf_line_keep_fp(t, G);
    a->keys++;
    t->gen_keys++;
    for (unsigned i = 1; i < t->count && !present; i++)
        present = slot_has(t, &t->slots[i], &key->hash, G);
    return present;
}

static int tlbf_line_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    const tlbf_line *t = f->state.impl;
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
    tlbf_line *t = f->state.impl;
    if (tdbf_tlbf_line_untouched(t))
        t->slots[0].generation = now_ns / t->span_ns;   /* (saved rings are all live) */
    else
        tdbf_tlbf_line_drop_stale(f, t, now_ns / t->span_ns);
    return TDBF_OK;
}

/* The key's unit in the first four rings, which an add or query reads
 * when the key is absent (an add writes the first). */
static void tlbf_line_prefetch(const tdbf *f, const tdbf_key *key, int for_add)
{
    const tlbf_line *t = f->state.impl;
    for (unsigned i = 0; i < t->count && i < 4; i++) {
        line_prefetch_unit(tdbf_line_ring_unit(t->slots[i].ring, &key->hash),
                           t->unit_bits / 64, for_add && i == 0);
    }
}

static double tlbf_line_current_error(const tdbf *f, uint64_t now_ns)
{
    const tlbf_line *t = f->state.impl;
    uint64_t G = now_ns / t->span_ns;
    return t->fp_kept && t->fp_G == G ? t->fp_current : tdbf_tlbf_line_rings_fp(t, G);
}

/* ---- open, close, stats ------------------------------------------------ */

static unsigned default_rings(unsigned k, unsigned l)
{
    return 2 * (k + l) + 32;
}

/* The cap on live rings cfg asks for (cfg.max_rings, or its deprecated
 * alias max_slices), 0 = default_rings; TDBF_EPARAM past RING_LIMIT. */
static int rings_asked(const tdbf_config *cfg, unsigned *max_rings)
{
    int rc = tdbf_config_field(cfg->max_rings, cfg->max_slices, max_rings);
    return rc == TDBF_OK && *max_rings > RING_LIMIT ? TDBF_EPARAM : rc;
}

/* The home ring open builds for cfg: apbf-line's plan for a count
 * window of `capacity`, so g0 = ceil(capacity / l); and the cap on live
 * rings. */
static int tlbf_line_size(const tdbf_config *cfg, tdbf_line_plan *plan, unsigned *max_rings)
{
    if (cfg->window_ns == 0 || cfg->window_items != 0)
        return TDBF_EWINDOW;
    if (rings_asked(cfg, max_rings) != TDBF_OK)
        return TDBF_EPARAM;
    uint64_t capacity = cfg->capacity ? cfg->capacity : TLBF_LINE_DEFAULT_CAPACITY;
    tdbf_config home = *cfg;
    /* the rest for a burst's rings; HOME_SHARE is this design's own margin
     * under the model, so the planner's (ring.h) is not taken twice */
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
    if (*max_rings == 0)
        *max_rings = default_rings(plan->k, plan->l);
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
    unsigned max_rings;
    return tlbf_line_size(cfg, out, &max_rings);
}

static unsigned first_slots(unsigned max_rings)
{
    return max_rings < FIRST_SLOTS ? max_rings : FIRST_SLOTS;
}

/* At a steady rate one ring is live: the home ring open allocates. */
static int tlbf_line_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_line_plan plan;
    unsigned max_rings;
    int rc = tlbf_line_size(cfg, &plan, &max_rings);
    if (rc != TDBF_OK)
        return rc;
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
    unsigned max_rings;
    int rc = tlbf_line_size(cfg, &plan, &max_rings);
    if (rc != TDBF_OK)
        return rc;

    tlbf_line *t = tdbf_mem_calloc(f, 1, sizeof *t);
    if (!t)
        return TDBF_ENOMEM;
    t->k = plan.k;
    t->l = plan.l;
    t->b = plan.b;
    t->unit_bits = plan.unit_bits;
    t->max_rings = max_rings;
    t->window_ns = cfg->window_ns;
    t->home_g = plan.generation;
    t->home_units = plan.units;
    t->max_memory = cfg->max_memory;
    t->fp_planned = plan.fp;
    tdbf_tlbf_line_set_sum_limit(t, f->error);
    tdbf_tlbf_line_set_derived(t);
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
    tdbf_tlbf_line_set_ring_fp(t, &t->slots[0], plan.fp);
    t->check_at = plan.generation;
    f->state.impl = t;
    f->state.error_planned = t->fp_planned;
    return TDBF_OK;
}

static void tlbf_line_close(tdbf *f)
{
    tdbf_tlbf_line_free_rings(f, f->state.impl);
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
    const tlbf_line *t = f->state.impl;
    out->k = t->k;
    out->l = t->l;
    out->window_ns = t->window_ns;
    out->error_planned = t->fp_planned;
}

static void tlbf_line_stats(const tdbf *f, tdbf_stats *st)
{
    const tlbf_line *t = f->state.impl;
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
        st->bits_per_item = 8.0 * (double)f->state.memory_bytes / (double)keys;
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
    .payload_size = tdbf_tlbf_line_payload_size,
    .save = tdbf_tlbf_line_save,
    .load = tdbf_tlbf_line_load,
};

