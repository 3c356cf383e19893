/*
 * rings.c — tlbf-line's rings over time (tlbf_line.c's essay): the slots
 * that hold them, the end of a generation (a shift by time, by count, a
 * gap), growth into a successor ring in a burst and shrinking after it,
 * and the model: how big a ring is made, and a ring's FP from its counts.
 * tlbf_line.c's operations, open and stats, and tlbf_line_save.c's load, call here;
 * nothing here calls them.
 */
#include <math.h>
#include <string.h>

#include "util/mem.h"
#include "designs/tlbf_line/internal.h"

/* ---- slots --------------------------------------------------------------- */

/* A ring's model FP at its g and what scales its count estimate. */
void tdbf_tlbf_line_set_ring_fp(const tlbf_line *t, ring_slot *s, double fp)
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
void tdbf_tlbf_line_retire(const tlbf_line *t, ring_slot *s)
{
    s->realized = 1.0;
    double counted = tdbf_tlbf_line_slot_fp(t, s, 0, true);
    if (counted > 0.0)
        s->realized = tdbf_line_ring_estimated(s->ring) / counted;
}

void tdbf_tlbf_line_close_slot(tdbf *f, ring_slot *s)
{
    tdbf_line_ring_close(f, s->ring);
    memset(s, 0, sizeof *s);
}

/* Rings left behind by more than l generations hold nothing a query may
 * read: free them (they are the oldest, at the end). */
void tdbf_tlbf_line_drop_stale(tdbf *f, tlbf_line *t, uint64_t G)
{
    while (t->count > 0 && ages_read(t, &t->slots[t->count - 1], G) == 0) {
        tdbf_tlbf_line_close_slot(f, &t->slots[--t->count]);
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
 * stands.  TDBF_OK, TDBF_ETOOBIG (max_rings, max_memory, size) or
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
        !tdbf_fits((double)f->state.memory_bytes + tdbf_line_ring_bytes_planned(&plan) + slots,
                   t->max_memory))
        return TDBF_ETOOBIG;
    rc = reserve_slot(f, t);
    tdbf_line_ring *ring = NULL;
    if (rc == TDBF_OK)
        rc = tdbf_line_ring_open(f, &plan, &ring);
    if (rc != TDBF_OK)
        return rc;
    if (t->count > 0)
        tdbf_tlbf_line_retire(t, &t->slots[0]);
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
    tdbf_tlbf_line_set_ring_fp(t, s, plan.fp);
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
void tdbf_tlbf_line_count_generation(tlbf_line *t, uint64_t G)
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
bool tdbf_tlbf_line_untouched(const tlbf_line *t)
{
    return t->count == 1 && t->slots[0].keys == 0;
}

/* Bring the active ring to generation G before an add. */
int tdbf_tlbf_line_settle(tdbf *f, tlbf_line *t, uint64_t G, uint64_t now_ns)
{
    if (tdbf_tlbf_line_untouched(t)) {
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
    tdbf_tlbf_line_drop_stale(f, t, G);
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

double tdbf_tlbf_line_rings_fp(const tlbf_line *t, uint64_t G)
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

void tdbf_tlbf_line_consider_growth(tdbf *f, tlbf_line *t, uint64_t G, uint64_t now_ns)
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
        tdbf_tlbf_line_retire(t, a);           /* what its bits hold, for the budget */
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
void tdbf_tlbf_line_keep_fp(tlbf_line *t, uint64_t G)
{
    if (t->fp_kept && t->fp_G == G && t->fp_adds > 0) {
        t->fp_adds--;
        return;
    }
    t->fp_current = tdbf_tlbf_line_rings_fp(t, G);
    t->fp_G = G;
    t->fp_adds = t->slots[0].g / 64;
    t->fp_kept = true;
}

/* ---- the state the rings share ------------------------------------------ */

/* What open and load share once k, l, b, unit, T and the home ring are
 * known (and fp_planned). */
void tdbf_tlbf_line_set_derived(tlbf_line *t)
{
    t->span_ns = ceil_div(t->window_ns, t->l);
    t->min_g = t->home_g / MIN_FRACTION ? t->home_g / MIN_FRACTION : 1;
    tdbf_tlbf_line_derive(t);
}

/* What the live rings' FPs may sum to: SUM_SHARE of cfg.error, or, for a
 * file whose home ring was planned for more than HOME_SHARE of it (before
 * this rule), as much over its home ring's FP as a new filter has. */
void tdbf_tlbf_line_set_sum_limit(tlbf_line *t, double error)
{
    double home = t->fp_planned / HOME_SHARE;
    t->fp_sum_limit = SUM_SHARE * (home > error ? home : error);
}

void tdbf_tlbf_line_free_rings(tdbf *f, tlbf_line *t)
{
    while (t->count > 0)
        tdbf_tlbf_line_close_slot(f, &t->slots[--t->count]);
    tdbf_mem_free(f, t->slots, t->slots_allocated * sizeof *t->slots);
    tdbf_mem_free(f, t, sizeof *t);
}

/* ---- sizing ---------------------------------------------------------- */

/* Units for g keys per generation at the home ring's load per unit (so
 * its model FP); at a lower load when fp asks for less than the home
 * ring's (a burst's later rings, tlbf_line.c's essay). */
static double units_for(const tlbf_line *t, uint64_t g, double fp)
{
    double home = (double)t->home_g / (double)t->home_units;
    double load = fp < t->fp_planned
                ? tdbf_line_load_for(t->k, t->l, t->b, t->unit_bits, fp, home) : home;
    if (load >= home)
        return ceil((double)g * (double)t->home_units / (double)t->home_g);
    return load > 0.0 ? ceil((double)g / load) : INFINITY;
}

/* The plan of a ring for g keys per generation whose FP at that load is
 * at most fp (at least the home ring's). */
int tdbf_tlbf_line_plan_ring(const tlbf_line *t, uint64_t g, double fp, tdbf_line_plan *out)
{
    if (g > (UINT64_C(1) << 50))
        return TDBF_ETOOBIG;
    double units = units_for(t, g, fp);
    if (!(units <= (double)(UINT64_C(1) << 40)))
        return TDBF_ETOOBIG;
    uint64_t whole = units < 1.0 ? 1 : (uint64_t)units;
    tdbf_line_fill_shape(t->k, t->l, t->b, t->unit_bits, whole, g, out);
    /* the model at the size chosen: what the ring keeps, and recomputes
     * from its size when loaded */
    out->fp = tdbf_apbf_line_fp(t->k, t->l, t->b, t->unit_bits, whole, g);
    return TDBF_OK;
}

/* Keys per generation for a ring that must take n (tlbf_line.c's essay). */
uint64_t tdbf_tlbf_line_sized_for(const tlbf_line *t, double n)
{
    double home = (double)t->home_g, g = 2.0 * n;
    if (n <= home + home / HOME_TOLERANCE && g > home)
        g = home;
    if (g < (double)t->min_g)
        g = (double)t->min_g;
    return g >= 0x1p62 ? UINT64_C(1) << 62 : (uint64_t)ceil(g);
}

/* ---- the FP from counts (tlbf_line.c's essay) ---------------------- */

/* E[(1 - q^X)^b], X ~ Poisson(load): a field of `load` keys per unit on
 * average covers a never-added key's b positions (bits independent). */
static double field_match(const tlbf_line *t, double load)
{
    double total = 0.0, choose = 1.0, q_i = 1.0;
    for (unsigned i = 0; i <= t->b; i++) {
        total += (i % 2 ? -choose : choose) * exp(-load * (1.0 - q_i));
        choose = choose * (double)(t->b - i) / (double)(i + 1);
        q_i *= t->miss_per_key;
    }
    return total > 0.0 ? total : 0.0;
}

/* Independent-field run probability over the first `ages` loads. */
static double loads_fp(const tlbf_line *t, const double *load, unsigned ages)
{
    double r[COUNTS];
    for (unsigned a = 0; a < ages; a++)
        r[a] = field_match(t, load[a]);
    return tdbf_line_run_probability(t->k, ages - t->k, r);
}

/* Mean keys per unit of the ring's fields, ages 0 .. ages-1: age a holds
 * generations G_r - a .. min(G_r, G_r - a + k - 1). */
static void slot_loads(const tlbf_line *t, const ring_slot *s, unsigned ages, double *load)
{
    unsigned newest = (unsigned)(s->generation % COUNTS);
    for (unsigned a = 0; a < ages; a++) {
        uint64_t keys = 0;
        for (unsigned j = 0; j <= a && j < t->k; j++)
            keys = saturating_add(keys, s->counts[(newest + COUNTS - a + j) % COUNTS]);
        load[a] = (double)keys / (double)s->units;
    }
}

/* A ring's FP at G from its counts, calibrated (and, retired, scaled to
 * what its bits hold); `all` ages instead of the ones still read gives
 * its FP as if it were current. */
double tdbf_tlbf_line_slot_fp(const tlbf_line *t, const ring_slot *s, uint64_t G, bool all)
{
    unsigned ages = all ? t->k + t->l : ages_read(t, s, G);
    if (ages == 0)
        return 0.0;
    double load[COUNTS];
    slot_loads(t, s, ages, load);
    return s->realized * s->calibration * loads_fp(t, load, ages);
}

/* q = (1 - 1/W)^b, W the bits of a field: what one key leaves unset of a
 * never-added key's positions in a field. */
void tdbf_tlbf_line_derive(tlbf_line *t)
{
    unsigned field_bits = t->unit_bits / (t->k + t->l + 1);
    t->miss_per_key = pow(1.0 - 1.0 / (double)field_bits, (double)t->b);
}

/* The ring's model FP over the independent estimate, both at its own
 * planned load just before a shift (age a holds min(a + 1, k)
 * generations of g keys): exact for a full ring, proportional below.
 * Per ring, because the ratio moves with the load (a burst's rings,
 * planned under the home ring's FP, measured 1.4-2x over the home ring's
 * ratio). */
double tdbf_tlbf_line_calibration(const tlbf_line *t, const ring_slot *s)
{
    double load[COUNTS], lambda = (double)s->g / (double)s->units;
    for (unsigned a = 0; a < t->k + t->l; a++)
        load[a] = lambda * (double)(a + 1 < t->k ? a + 1 : t->k);
    double independent = loads_fp(t, load, t->k + t->l);
    return independent > 0.0 ? s->fp / independent : 1.0;
}
