/*
 * tlbf.c — Time-limited Bloom Filter: APBF over a time window.
 *
 * Paper 001 (time-based APBF), with the equations its copy lost restated in
 * shared/design.md ("TLBF"), and the reference module's defects fixed.
 *
 * Model.  Like APBF (apbf.c), a key is inserted into the k newest slices
 * and found if k consecutive slices hold it.  But the insert rate is not
 * known, so slices differ in size, and the number of slices L floats:
 *
 *     logical:  s_0 (newest)  s_1  ...  s_{k-1} | s_k  ...  s_{L-1} (oldest)
 *               <--- take inserts for k generations ---> <- read only ->
 *     each:     m_i bits, capacity C_i, count c_i, stamp t_i (latest insert)
 *
 *   - Retire (Eq 3): a slice is stale once now - t_i >= T.  Stamps never
 *     increase with age, so stale slices are a suffix: they are retired at
 *     shifts and by tdbf_advance, and queries ignore them (queries never
 *     change the filter).  A key added at t lies in slices whose stamp is
 *     >= t, so it stays present while now - t < T: no false negatives.
 *     Expiry bound: its oldest slice stopped taking inserts at the end of
 *     its generation, so T plus that generation's span after t its own run
 *     is gone; a run borrowing newer slices may still match it, with
 *     probability halving per further generation (APBF's slack), until its
 *     newest slice is stale too, T + (k+1) spans after t at most.  Past
 *     that it is reported only at the FP rate (tests/unit/test_tlbf.c).
 *   - Shift trigger (Eqs 4, 5): slice i < k can take
 *     left_i = ceil((C_i - c_i) / (k - i)) inserts per remaining generation;
 *     the generation lasts min_i left_i inserts.  tdbf also shifts when a
 *     generation has lasted T/l, so slow streams still age in steps of T/l.
 *   - Generation target (Eq 6): g* = ceil(g (T/l) / dt) + 1 from the last
 *     generation's g inserts in dt, but never below the rate measured over
 *     the last span or more (keys arriving in batches at one timestamp
 *     make single generations meaningless).  dt = 0 (a burst at one
 *     timestamp) is an infinite rate: g* may at most quadruple per shift,
 *     so a burst of N inserts adds about log4(N/g) slices instead of N/g.
 *   - The capacity hint believed (tdbf additions), when cfg.capacity is
 *     given: while the live slices hold fewer keys than the l generations
 *     of g0 = the plan's g for it, g* is at most 1/k of the rest of that
 *     promise (and at least g0).  The hint said that many keys come a
 *     window, so a burst that ends within it (a bulk load, a replay) is
 *     not left with slices sized for generations that never come
 *     (measured at 0.001, 10^6 keys at once on a hint of 10^6: 29.7 bits
 *     per key, FP 0.0002; 46.9 bits sized from the rate; a steady load
 *     29.6); past the promise the rate rules alone (ten times the hint at
 *     once: FP 0.63x the target; test_tlbf.c).
 *   - New slice capacity (Eq 7): walk the current slices from position k
 *     down, letting any that would fill first limit the coming generations,
 *     so s_0 is not sized for generations that cannot happen.
 *     (Eqs 4-7, and the fill r of Eq 8 below: tlbf_sizing.c.)
 *   - New slice size (Eq 8, generalised): m_0 = C_0 / -ln(1 - r) bits so it
 *     ends at fill r.  The paper keeps r = 1/2, but every slice beyond k+l
 *     adds starting positions and raises FP (bursts used to reach 13 % at a
 *     1 % target).  tdbf picks r per slice count L from the F recursion of
 *     paper 004 (plan.c): the largest r whose F over L slices, all full
 *     ones at r, meets the error.  The slices filled before the growth are
 *     still at 1/2, so during a burst FP still rises a little: measured
 *     1.06x the target after a 20 000-key burst at one timestamp (k=12,
 *     l=87; 1.5x with l=45; the reference reached 13x), back on target
 *     once the burst's slices retire.
 *   - Hash functions: slices k apart never take the same insert, so k hash
 *     functions suffice (section 6); slice j created by the j-th shift uses
 *     function j mod k.
 *
 * Current error (tdbf_current_error).  Each add sets one bit in each of
 * the k newest slices, so slice i's expected fill is 1 - (1 - 1/m_i)^c_i
 * from its count alone (fixed once it leaves s_0 .. s_{k-1}), and F over
 * the live slices at those fills predicts what stats.error_estimated
 * reads from the bits.  F is O(L k) and latency-bound: 0.56 us at k = 12,
 * L = 98 (capacity 1024) on the 2-core EPYC, 0.85 us with the fills,
 * against 0.20 us for an add.  So add keeps F, and a caller reads it in
 * 3.4 ns.  Add recomputes it after a restart, after 1 % more adds than
 * the live generations hold (F lags by at most those), and when two fewer
 * slices are live than it counted.  One fewer is let pass: the kept F
 * then still has the runs of an expired oldest slice, about 1/l of it,
 * and errs high; recomputing at every expiry doubled the cost, as the
 * live count moves by one at each expiry and shift.  A query at a time
 * that leaves two fewer slices live computes F afresh.  The cost to add
 * is one F per 1 % of the window: +80 ns an add at capacity 1024 (g =
 * 12), none measurable at 10^5.
 *
 * Bounds.  At most max_slices slices and max_memory bytes.  When a shift
 * would pass either, it is skipped: inserts keep going into the current
 * slices, whose fill (and the FP rate) rises, never a false negative;
 * stats.cap_hits counts it.  Time is 64-bit ns throughout: no 32-bit step,
 * no wrap; differences are taken as now - earlier with now clamped.
 */
#include <math.h>
#include <string.h>

#include "util/bits.h"
#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"
#include "model/run.h"
#include "designs/tlbf/internal.h"
#include "model/planning.h"

/* ---- slices ----------------------------------------------------------- */

static size_t slice_bytes(uint64_t m)
{
    return (size_t)tdbf_words_for_bits(m) * sizeof(uint64_t);
}

static void retire_oldest(tdbf *f, tlbf *t)
{
    slice *s = at(t, t->count - 1);
    tdbf_mem_free(f, s->bits, slice_bytes(s->m));
    memset(s, 0, sizeof *s);
    t->count--;
}

/* Bits for `capacity` inserts to end at fill r: n/m = -ln(1 - r).  Eq 8's
 * floor of 2k bits keeps tiny slices from saturating. */
static uint64_t bits_for(uint64_t capacity, double fill, unsigned k)
{
    double m = ceil((double)capacity / -log1p(-fill));
    return m < 2.0 * k ? 2u * k : (uint64_t)m;
}

/* Make room for one more slice in the ring (L < max_slices). */
static int reserve_slot(tdbf *f, tlbf *t)
{
    if (t->count < t->ring_size)
        return TDBF_OK;
    unsigned size = t->ring_size * 2 < t->max_slices ? t->ring_size * 2 : t->max_slices;
    slice *ring = tdbf_mem_calloc(f, size, sizeof *ring);
    if (!ring)
        return TDBF_ENOMEM;
    for (unsigned i = 0; i < t->count; i++)
        ring[i] = *at(t, i);
    tdbf_mem_free(f, t->ring, t->ring_size * sizeof *ring);
    t->ring = ring;
    t->ring_size = size;
    t->head = 0;
    return TDBF_OK;
}

/* A slice's expected fill: one bit per insert, 1 - (1 - 1/m)^count
 * (with no count, 0: 0 * -inf would be NaN for a loaded 1-bit slice). */
static double expected_fill(const slice *s)
{
    return s->count ? -expm1((double)s->count * log1p(-1.0 / (double)s->m)) : 0.0;
}

/* Allocate a new s_0 (L < max_slices). */
static int push_front(tdbf *f, tlbf *t, uint64_t capacity, double fill,
                      uint64_t now_ns)
{
    int rc = reserve_slot(f, t);
    if (rc != TDBF_OK)
        return rc;
    uint64_t m = bits_for(capacity, fill, t->k);
    if (!tdbf_fits((double)f->memory_bytes + (double)slice_bytes(m) + 128.0,
                   t->max_memory))
        return TDBF_ETOOBIG;
    uint64_t *bits = tdbf_mem_calloc(f, 1, slice_bytes(m));
    if (!bits)
        return TDBF_ENOMEM;
    t->head = t->head == 0 ? t->ring_size - 1 : t->head - 1;
    t->count++;
    slice *s = at(t, 0);
    s->bits = bits;
    s->m = m;
    s->capacity = capacity;
    s->count = 0;
    s->generation = 0;
    s->stamp = now_ns;
    s->hash = t->next_hash;
    t->next_hash = (t->next_hash + 1) % t->k;
    if (t->count > t->k) /* s_k took its last insert */
        at(t, t->k)->fill = expected_fill(at(t, t->k));
    return TDBF_OK;
}

/* ---- life cycle of slices ------------------------------------------------ */

static void retire_stale(tdbf *f, tlbf *t, uint64_t now_ns)
{
    while (t->count > t->k && stale(t, at(t, t->count - 1), now_ns))
        retire_oldest(f, t);
}

/* Start over with k empty slices sized for the current target: at open,
 * and when everything is stale (the filter has been idle for T). */
static int restart(tdbf *f, tlbf *t, uint64_t now_ns)
{
    while (t->count)
        retire_oldest(f, t);
    for (unsigned j = 0; j < t->k; j++) {
        /* Pushed oldest first: the slice ending at s_i gets (k - i)
         * generations of room, so all k limit the first generation alike. */
        unsigned i = t->k - 1 - j;
        int rc = push_front(f, t, (uint64_t)(t->k - i) * t->gen_target, 0.5, now_ns);
        if (rc != TDBF_OK) {
            while (t->count)
                retire_oldest(f, t);
            return rc;
        }
    }
    t->countdown = tdbf_tlbf_generation_length(t);
    t->last_shift_ns = now_ns;
    return TDBF_OK;
}

/* Shift order (design.md): target, retire, grow by a new s_0, recount. */
static void shift(tdbf *f, tlbf *t, uint64_t now_ns)
{
    uint64_t g_target = tdbf_tlbf_next_target(t, now_ns);
    retire_stale(f, t, now_ns);
    int rc = TDBF_ETOOBIG;
    if (t->count < t->max_slices) {
        double fill = tdbf_tlbf_target_fill(t, t->count + 1);
        rc = push_front(f, t, tdbf_tlbf_new_capacity(t, g_target), fill, now_ns);
    }
    if (rc != TDBF_OK) {
        /* Degrade: keep filling the current slices for another generation. */
        t->cap_hits++;
        t->countdown = t->gen_target ? t->gen_target : 1;
        t->last_shift_ns = now_ns;
        return;
    }
    t->gen_target = g_target;
    t->last_shift_ns = now_ns;
    t->shifts++;
    t->countdown = tdbf_tlbf_generation_length(t);
}

/* ---- queries ---------------------------------------------------------- */

static int slice_has(const tlbf *t, unsigned logical, const tdbf_hash128 *h)
{
    const slice *s = at(t, logical);
    return tdbf_bit_get(s->bits, tdbf_reduce(tdbf_hash_nth(h, s->hash), s->m));
}

/* Algorithm 1 of paper 004 over the live slices. */
static int slice_test(const void *state, unsigned logical, const tdbf_hash128 *h)
{
    return slice_has(state, logical, h);
}

static int query(const tlbf *t, const tdbf_hash128 *h, uint64_t now_ns)
{
    unsigned live = live_slices(t, now_ns);
    if (live < t->k)
        return 0;
    return tdbf_find_run(t, t->k, live - t->k, h, slice_test);
}

/* ---- the current error (see the essay) --------------------------------- */

/* F over the first `live` slices at these fills: Algorithm 1 reads runs
 * starting at s_0 .. s_{live-k}; with live = k only s_0's. */
static double slices_fp(const tlbf *t, unsigned live, const double *fills)
{
    if (live < t->k)
        return 0.0;
    if (live > t->k)
        return tdbf_apbf_fp(t->k, live - t->k, fills);
    double all = 1.0;
    for (unsigned i = 0; i < live; i++)
        all *= fills[i];
    return all;
}

/* F at the fills the first `live` slices' counts predict. */
static double counted_fp(const tlbf *t, unsigned live)
{
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    for (unsigned i = 0; i < live; i++)
        fills[i] = i < t->k ? expected_fill(at(t, i)) : at(t, i)->fill;
    return slices_fp(t, live, fills);
}

/* Recompute the kept F as of now_ns (see the essay). */
static void keep_fp(tlbf *t, uint64_t now_ns)
{
    unsigned live = live_slices(t, now_ns);
    uint64_t held = held_in(t, live);
    t->fp_current = counted_fp(t, live);
    t->fp_live = live;
    t->fp_adds = 0;
    t->fp_stride = held / 100 > 1 ? held / 100 : 1;
}

static double tlbf_current_error(const tdbf *f, uint64_t now_ns)
{
    const tlbf *t = f->impl;
    unsigned live = live_slices(t, now_ns);
    return live >= t->k && live + 1 >= t->fp_live ? t->fp_current : counted_fp(t, live);
}

/* ---- operations ------------------------------------------------------- */

/* Everything is stale (or nothing was ever added): start over. */
static bool restart_due(const tlbf *t, uint64_t now_ns)
{
    return t->count == 0 || stale(t, at(t, 0), now_ns);
}

static bool shift_due(const tlbf *t, uint64_t now_ns)
{
    return t->countdown == 0 || now_ns - t->last_shift_ns >= t->span_ns;
}

/* The key into s_0 .. s_{k-1}, counted, with no shift due. */
static void set_key(tlbf *t, const tdbf_hash128 *h, uint64_t now_ns, bool restarted)
{
    for (unsigned i = 0; i < t->k; i++) {
        slice *s = at(t, i);
        tdbf_bit_set(s->bits, tdbf_reduce(tdbf_hash_nth(h, s->hash), s->m));
        s->count++;
        s->stamp = now_ns;
    }
    at(t, 0)->generation++;
    t->countdown--;
    if (restarted || ++t->fp_adds >= t->fp_stride || live_slices(t, now_ns) + 1 < t->fp_live)
        keep_fp(t, now_ns);
}

static int add_hash(tdbf *f, tlbf *t, const tdbf_hash128 *h, uint64_t now_ns)
{
    int present = query(t, h, now_ns);
    bool restarted = restart_due(t, now_ns);
    if (restarted) {
        int rc = restart(f, t, now_ns);
        if (rc != TDBF_OK)
            return rc;
    } else if (shift_due(t, now_ns)) {
        shift(f, t, now_ns);
    }
    set_key(t, h, now_ns, restarted);
    return present;
}

static int tlbf_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    return add_hash(f, f->impl, &key->hash, now_ns);
}

static int tlbf_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    return query(f->impl, &key->hash, now_ns);
}

/* ---- batch calls (filter.c) ---------------------------------------------
 *
 * The APBF's engine (model/run.h: tdbf_find_run_batch, tdbf_add_run_batch)
 * walks Algorithm 1 for many keys at once, each prefetching the slice it
 * reads next, and sets the adds' bits in order.  All keys of a batch
 * share one time, so the live slices (the l of the walk) change only at
 * the shifts the engine leaves to the single add, and a restart, the one
 * add that can fail, can only be the batch's first. */

typedef struct tlbf_batch {
    tdbf    *f;
    tlbf    *t;
    uint64_t now_ns;
} tlbf_batch;

static int batch_has(const void *state, unsigned logical, const tdbf_hash128 *h)
{
    return slice_has(((const tlbf_batch *)state)->t, logical, h);
}

static const void *batch_line(const void *state, unsigned logical, const tdbf_hash128 *h)
{
    const slice *s = at(((const tlbf_batch *)state)->t, logical);
    return &s->bits[tdbf_reduce(tdbf_hash_nth(h, s->hash), s->m) >> 6];
}

static void batch_set(void *state, const tdbf_hash128 *h)
{
    tlbf_batch *b = state;
    set_key(b->t, h, b->now_ns, false);
}

static int batch_add(void *state, const tdbf_hash128 *h)
{
    tlbf_batch *b = state;
    return add_hash(b->f, b->t, h, b->now_ns);
}

/* Adds before a shift is due (0: the single add shifts), and the slices
 * past k a query reads until then. */
static uint64_t batch_room(const void *state, unsigned *l)
{
    const tlbf_batch *b = state;
    if (restart_due(b->t, b->now_ns) || shift_due(b->t, b->now_ns))
        return 0;
    *l = live_slices(b->t, b->now_ns) - b->t->k;    /* s_0 .. s_{k-1} are live */
    return b->t->countdown;
}

static void tlbf_contains_many(const tdbf *f, const tdbf_key *keys, size_t n,
                               uint64_t now_ns, uint8_t *found)
{
    tlbf_batch b = {NULL, f->impl, now_ns};
    unsigned live = live_slices(b.t, now_ns);
    if (live < b.t->k) {
        memset(found, 0, n);
        return;
    }
    tdbf_find_run_batch(&b, b.t->k, live - b.t->k, keys, n, batch_has, batch_line, found);
}

static int tlbf_add_many(tdbf *f, const tdbf_key *keys, size_t n, uint64_t now_ns,
                         uint8_t *present)
{
    tlbf_batch b = {f, f->impl, now_ns};
    if (n > 0 && restart_due(b.t, now_ns)) {
        int rc = add_hash(f, b.t, &keys[0].hash, now_ns);
        if (rc < 0)
            return rc;
        present[0] = (uint8_t)rc;
        keys++;
        present++;
        n--;
    }
    tdbf_add_run_batch(&b, b.t->k, keys, n, batch_has, batch_line, batch_set, batch_add,
                       batch_room, present);
    return TDBF_OK;
}

static int tlbf_advance(tdbf *f, uint64_t now_ns)
{
    tlbf *t = f->impl;
    if (t->count && stale(t, at(t, 0), now_ns)) {
        /* Idle for T: nothing is live; release every slice. */
        while (t->count)
            retire_oldest(f, t);
        return TDBF_OK;
    }
    retire_stale(f, t, now_ns);
    return TDBF_OK;
}

/* ---- open, close, stats ----------------------------------------------- */

/* l is planned up to 160 (APBF's planner allows 512), for the least memory
 * unless cfg.plan_tolerance asks otherwise (the fast plan's smaller l left
 * a 20 000-key burst at 2x the target FP, and 0.1 above Table 2's 13 bits):
 * more slices lower
 * the memory (at 0.001 and 10^6 keys per window: 26.8 bits/key with l <=
 * 64, 25.8 with l <= 160) and the FP rise in bursts, but a query for a
 * present key reads about l/k + k slices. */
enum { TLBF_MAX_L = 160, TLBF_DEFAULT_CAPACITY = 1024 };

/* The (k, l) open plans for cfg.capacity keys per window (paper 004
 * section 7: each slice sized for the generation the rate brings), and
 * the ring's cap. */
static int tlbf_size(const tdbf_config *cfg, tdbf_plan *plan, unsigned *max_slices)
{
    if (cfg->window_ns == 0 || cfg->window_items != 0)
        return TDBF_EWINDOW;
    if ((cfg->k == 0) != (cfg->l == 0))
        return TDBF_EPARAM;
    uint64_t capacity = cfg->capacity ? cfg->capacity : TLBF_DEFAULT_CAPACITY;
    int rc = cfg->k ? tdbf_plan_eval(cfg->k, cfg->l, capacity, plan)
                    : tdbf_plan_search(capacity, cfg->error, TLBF_MAX_L,
                                       cfg->plan_tolerance > 0.0 ? cfg->plan_tolerance : 0.0, plan,
                                       NULL, 0, NULL);
    if (rc != TDBF_OK)
        return rc;
    unsigned base = plan->k + plan->l;
    *max_slices = cfg->max_slices ? cfg->max_slices : 2 * base + 32;
    if (*max_slices <= base || *max_slices > plan->k + TDBF_MAX_L)
        return TDBF_EPARAM;
    double steady = (double)base * (double)slice_bytes(plan->m);
    return tdbf_fits(steady, cfg->max_memory) ? TDBF_OK : TDBF_ETOOBIG;
}

/* Open allocates no slice; at the planned rate k + l of them are live. */
static int tlbf_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_plan plan;
    unsigned max_slices;
    int rc = tlbf_size(cfg, &plan, &max_slices);
    if (rc != TDBF_OK)
        return rc;
    unsigned base = plan.k + plan.l;
    out->k = plan.k;
    out->l = plan.l;
    out->window_ns = cfg->window_ns;
    out->error_planned = plan.fp;
    out->memory_bytes = sizeof(tdbf) + sizeof(tlbf) + (base + 2) * sizeof(slice) +
                        base * slice_bytes(plan.m);
    return TDBF_OK;
}

static int tlbf_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_plan plan;
    unsigned max_slices;
    int rc = tlbf_size(cfg, &plan, &max_slices);
    if (rc != TDBF_OK)
        return rc;
    unsigned base = plan.k + plan.l;

    tlbf *t = tdbf_mem_calloc(f, 1, sizeof *t);
    if (!t)
        return TDBF_ENOMEM;
    t->ring_size = base + 2;
    t->ring = tdbf_mem_calloc(f, t->ring_size, sizeof *t->ring);
    if (!t->ring) {
        tdbf_mem_free(f, t, sizeof *t);
        return TDBF_ENOMEM;
    }
    t->k = plan.k;
    t->l = plan.l;
    t->max_slices = max_slices;
    t->window_ns = cfg->window_ns;
    t->span_ns = cfg->window_ns / plan.l ? cfg->window_ns / plan.l : 1;
    t->gen_target = plan.g;
    t->home_g = cfg->capacity ? plan.g : 0;    /* the default is no hint */
    t->max_memory = cfg->max_memory;
    t->fp_planned = plan.fp;
    t->error = cfg->error;
    f->impl = t;
    return TDBF_OK;
}

static void tlbf_close(tdbf *f)
{
    tlbf *t = f->impl;
    while (t->count)
        retire_oldest(f, t);
    tdbf_mem_free(f, t->ring, t->ring_size * sizeof *t->ring);
    tdbf_mem_free(f, t, sizeof *t);
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void tlbf_shape(const tdbf *f, tdbf_shape *out)
{
    const tlbf *t = f->impl;
    out->k = t->k;
    out->l = t->l;
    out->window_ns = t->window_ns;
    out->error_planned = t->fp_planned;
}

static void tlbf_stats(const tdbf *f, tdbf_stats *st)
{
    const tlbf *t = f->impl;
    unsigned live = live_slices(t, f->now_ns);
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    uint64_t held = 0;
    for (unsigned i = 0; i < live; i++) {
        const slice *s = at(t, i);
        fills[i] = (double)tdbf_popcount(s->bits, tdbf_words_for_bits(s->m)) / (double)s->m;
        held += s->generation;
    }
    st->slices = t->count;
    st->slice_bits = t->count ? at(t, 0)->m : 0;
    st->generation_size = t->gen_target;
    st->generation_fill = t->count ? at(t, 0)->generation : 0;
    st->generations = t->shifts;
    st->error_estimated = slices_fp(t, live, fills);
    st->keys = held;
    st->cap_hits = t->cap_hits;
    if (held)
        st->bits_per_item = 8.0 * (double)f->memory_bytes / (double)held;
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 k, u32 l, u32 max_slices, u32 L, u32 next_hash, u32 ring
 * size (so memory after load is byte for byte the same),
 * u64 T, u64 countdown, u64 g*, u64 last shift, u64 shifts, u64 cap hits,
 * u64 max_memory, f64 0 (see below); then L slice records, newest first
 * (u64 m, u64 capacity, u64 count, u64 generation, u64 stamp, u32 hash,
 * u32 0); then the L slices' words in the same order; then u64 home_g,
 * the capacity hint's generation (0: none; absent from files saved before
 * it was kept, which load with none).  All records come before any words
 * so the whole size is checked before allocating.
 *
 * The f64 once held the planned FP.  That number comes out of the F
 * recursion in doubles, whose last digit depends on how the machine
 * evaluates them (x87's 80-bit registers on i686 round it differently
 * from SSE2), so storing it made the bytes of a file depend on the
 * platform that wrote it.  It is now written as 0 and recomputed on load
 * from what fixed it at open: k, l and the capacity's generation (home_g;
 * the default capacity without a hint).  Files from before home_g keep
 * their stored value, the only record of their plan. */

enum { TLBF_FIELDS_BYTES = 88, TLBF_SLICE_BYTES = 48, TLBF_HINT_BYTES = 8 };
#define TLBF_MAX_HOME_G (UINT64_C(1) << 52)

/* The FP open planned for (k, l) and home_g: plan_size gives the same
 * slice bits m for a window of l * home_g as for the capacity that gave
 * home_g (the least m whose generation reaches it), so the same exact-fill
 * F; without a hint, open planned for the default capacity.  -1 if the
 * parameters cannot be planned (a damaged file). */
static double planned_fp(unsigned k, unsigned l, uint64_t home_g)
{
    tdbf_plan plan;
    uint64_t window = home_g ? (uint64_t)l * home_g : TLBF_DEFAULT_CAPACITY;
    return tdbf_plan_eval(k, l, window, &plan) == TDBF_OK ? plan.fp : -1.0;
}

static uint64_t tlbf_payload_size(const tdbf *f)
{
    const tlbf *t = f->impl;
    uint64_t bytes = TLBF_FIELDS_BYTES + (uint64_t)t->count * TLBF_SLICE_BYTES;
    for (unsigned i = 0; i < t->count; i++)
        bytes += slice_bytes(at(t, i)->m);
    return bytes + TLBF_HINT_BYTES;
}

static void tlbf_save(const tdbf *f, tdbf_out *out)
{
    const tlbf *t = f->impl;
    tdbf_out_u32(out, t->k);
    tdbf_out_u32(out, t->l);
    tdbf_out_u32(out, t->max_slices);
    tdbf_out_u32(out, t->count);
    tdbf_out_u32(out, t->next_hash);
    tdbf_out_u32(out, t->ring_size);
    tdbf_out_u64(out, t->window_ns);
    tdbf_out_u64(out, t->countdown);
    tdbf_out_u64(out, t->gen_target);
    tdbf_out_u64(out, t->last_shift_ns);
    tdbf_out_u64(out, t->shifts);
    tdbf_out_u64(out, t->cap_hits);
    tdbf_out_u64(out, t->max_memory);
    tdbf_out_f64(out, 0.0);       /* the planned FP: recomputed on load */
    for (unsigned i = 0; i < t->count; i++) {
        const slice *s = at(t, i);
        tdbf_out_u64(out, s->m);
        tdbf_out_u64(out, s->capacity);
        tdbf_out_u64(out, s->count);
        tdbf_out_u64(out, s->generation);
        tdbf_out_u64(out, s->stamp);
        tdbf_out_u32(out, s->hash);
        tdbf_out_u32(out, 0);
    }
    for (unsigned i = 0; i < t->count; i++)
        tdbf_out_words(out, at(t, i)->bits, tdbf_words_for_bits(at(t, i)->m));
    tdbf_out_u64(out, t->home_g);
}

/* Fields of the filter, checked against each other. */
static int load_fields(tdbf_in *in, tlbf *h, uint64_t now_ns)
{
    tdbf_in_u32(in, &h->k);
    tdbf_in_u32(in, &h->l);
    tdbf_in_u32(in, &h->max_slices);
    tdbf_in_u32(in, &h->count);
    tdbf_in_u32(in, &h->next_hash);
    tdbf_in_u32(in, &h->ring_size);
    tdbf_in_u64(in, &h->window_ns);
    tdbf_in_u64(in, &h->countdown);
    tdbf_in_u64(in, &h->gen_target);
    tdbf_in_u64(in, &h->last_shift_ns);
    tdbf_in_u64(in, &h->shifts);
    tdbf_in_u64(in, &h->cap_hits);
    tdbf_in_u64(in, &h->max_memory);
    if (tdbf_in_f64(in, &h->fp_planned) != TDBF_OK)
        return in->rc;
    if (h->k < 1 || h->k > TDBF_MAX_K || h->l < 1 || h->l > TDBF_MAX_L ||
        h->max_slices <= h->k + h->l || h->max_slices > h->k + TDBF_MAX_L ||
        h->count > h->max_slices || (h->count != 0 && h->count < h->k) ||
        h->next_hash >= h->k || h->ring_size < h->count || h->ring_size < 1 ||
        h->ring_size > h->max_slices || h->window_ns == 0 ||
        h->last_shift_ns > now_ns || h->gen_target == 0 ||
        !(h->fp_planned >= 0.0 && h->fp_planned <= 1.0))
        return TDBF_ECORRUPT;
    h->span_ns = h->window_ns / h->l ? h->window_ns / h->l : 1;
    return TDBF_OK;
}

/* Slice records: sizes bounded, stamps not after now and not increasing
 * with age (queries rely on stale slices being a suffix). */
static int load_slice_records(tdbf_in *in, const tlbf *h, slice *records,
                              uint64_t now_ns, uint64_t *words)
{
    *words = 0;
    for (unsigned i = 0; i < h->count; i++) {
        slice *s = &records[i];
        uint32_t hash, reserved;
        tdbf_in_u64(in, &s->m);
        tdbf_in_u64(in, &s->capacity);
        tdbf_in_u64(in, &s->count);
        tdbf_in_u64(in, &s->generation);
        tdbf_in_u64(in, &s->stamp);
        tdbf_in_u32(in, &hash);
        if (tdbf_in_u32(in, &reserved) != TDBF_OK)
            return in->rc;
        s->hash = hash;
        if (s->m < 1 || s->m > (UINT64_C(1) << 40) || hash >= h->k || reserved != 0 ||
            s->stamp > now_ns || (i > 0 && s->stamp > records[i - 1].stamp))
            return TDBF_ECORRUPT;
        *words += tdbf_words_for_bits(s->m);
    }
    return TDBF_OK;
}

static void free_slices(tdbf *f, slice *records, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        tdbf_mem_free(f, records[i].bits, slice_bytes(records[i].m));
}

static int tlbf_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    tlbf h = {0};
    int rc = load_fields(in, &h, f->now_ns);
    if (rc != TDBF_OK)
        return rc;
    h.error = f->error;
    tlbf *t = tdbf_mem_calloc(f, 1, sizeof *t);
    slice *ring = tdbf_mem_calloc(f, h.ring_size, sizeof *ring);
    uint64_t words = 0;
    rc = t && ring ? load_slice_records(in, &h, ring, f->now_ns, &words) : TDBF_ENOMEM;
    /* The hint's home_g ends the payload; files from before it end with
     * the words (and load with no hint). */
    bool hinted = rc == TDBF_OK && in->remaining == words * 8 + TLBF_HINT_BYTES;
    if (rc == TDBF_OK && in->remaining != words * 8 && !hinted)
        rc = TDBF_ECORRUPT;
    if (rc == TDBF_OK && !tdbf_fits((double)words * 8.0 + (double)f->memory_bytes, max_memory))
        rc = TDBF_ETOOBIG;
    unsigned loaded = 0;
    for (; rc == TDBF_OK && loaded < h.count; loaded++) {
        slice *s = &ring[loaded];
        s->bits = tdbf_mem_calloc(f, 1, slice_bytes(s->m));
        rc = s->bits ? tdbf_in_words(in, s->bits, tdbf_words_for_bits(s->m)) : TDBF_ENOMEM;
        if (rc == TDBF_OK && !tdbf_tail_clear(s->bits, s->m))
            rc = TDBF_ECORRUPT;
    }
    if (rc == TDBF_OK && hinted && tdbf_in_u64(in, &h.home_g) != TDBF_OK)
        rc = in->rc;
    if (rc == TDBF_OK && h.home_g > TLBF_MAX_HOME_G)
        rc = TDBF_ECORRUPT;
    if (rc == TDBF_OK && hinted) {
        h.fp_planned = planned_fp(h.k, h.l, h.home_g);
        if (h.fp_planned < 0.0)
            rc = TDBF_ECORRUPT;
    }
    if (rc != TDBF_OK) {
        if (ring)
            free_slices(f, ring, loaded);
        tdbf_mem_free(f, ring, h.ring_size * sizeof *ring);
        tdbf_mem_free(f, t, sizeof *t);
        return rc;
    }
    *t = h;
    t->ring = ring;
    t->head = 0;
    for (unsigned i = t->k; i < t->count; i++)
        ring[i].fill = expected_fill(&ring[i]);
    keep_fp(t, f->now_ns);
    f->impl = t;
    return TDBF_OK;
}

const tdbf_ops tdbf_tlbf_ops = {
    .plan = tlbf_plan,
    .open = tlbf_open,
    .close = tlbf_close,
    .add = tlbf_add,
    .contains = tlbf_contains,
    .contains_many = tlbf_contains_many,
    .add_many = tlbf_add_many,
    .advance = tlbf_advance,
    .stats = tlbf_stats,
    .shape = tlbf_shape,
    .current_error = tlbf_current_error,
    .payload_size = tlbf_payload_size,
    .save = tlbf_save,
    .load = tlbf_load,
};
