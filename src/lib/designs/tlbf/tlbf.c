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
 *     (Eqs 4-7, and the fill r of Eq 8 below: "sizing", below.)
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

size_t tdbf_tlbf_slice_bytes(uint64_t m)
{
    return (size_t)tdbf_words_for_bits(m) * sizeof(uint64_t);
}

static void retire_oldest(tdbf *f, tlbf *t)
{
    slice *s = at(t, t->count - 1);
    tdbf_mem_free(f, s->bits, tdbf_tlbf_slice_bytes(s->m));
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
double tdbf_tlbf_expected_fill(const slice *s)
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
    if (!tdbf_fits((double)f->state.memory_bytes + (double)tdbf_tlbf_slice_bytes(m) + 128.0,
                   t->max_memory))
        return TDBF_ETOOBIG;
    uint64_t *bits = tdbf_mem_calloc(f, 1, tdbf_tlbf_slice_bytes(m));
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
        at(t, t->k)->fill = tdbf_tlbf_expected_fill(at(t, t->k));
    return TDBF_OK;
}

/* ---- sizing: Eqs 4-7 with the essay's fixes ----------------------------- */

/* Largest fill r <= 1/2 for full slices such that F over L slices (the k
 * inserting ones at their exact ramp 1 - (1-r)^((i+1)/k)) meets the error. */
static double tdbf_tlbf_target_fill(const tlbf *t, unsigned slices)
{
    if (slices <= t->k + t->l)
        return 0.5;
    unsigned l = slices - t->k;
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    double lo = 0.01, hi = 0.5;
    for (int iter = 0; iter < 30; iter++) {
        double r = 0.5 * (lo + hi);
        for (unsigned i = 0; i < slices; i++)
            fills[i] = i < t->k ? -expm1((double)(i + 1) / t->k * log1p(-r)) : r;
        if (tdbf_apbf_fp(t->k, l, fills) <= t->error)
            lo = r;
        else
            hi = r;
    }
    return lo;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Eqs 4-5: inserts before one of s_0..s_{k-1} reaches its capacity. */
static uint64_t tdbf_tlbf_generation_length(const tlbf *t)
{
    uint64_t g = UINT64_MAX;
    unsigned inserting = t->count < t->k ? t->count : t->k;
    for (unsigned i = 0; i < inserting; i++) {
        uint64_t left = ceil_div(room(at(t, i)), t->k - i);
        if (left < g)
            g = left;
    }
    return g == 0 || g == UINT64_MAX ? 1 : g;
}

/* Eq 7: capacity for the new s_0.  The current s_0..s_{k-2} become
 * s_1..s_{k-1}; new position j has k - j generations of inserts left.
 * Walk from i = k down: the slice that would run out first (least room
 * per remaining generation, after what the walk already committed) caps
 * those generations; once none caps below g*, the rest run at g*. */
static uint64_t tdbf_tlbf_new_capacity(const tlbf *t, uint64_t g_target)
{
    uint64_t committed = 0;
    unsigned i = t->k;
    while (i > 1) {
        uint64_t q_min = UINT64_MAX;
        unsigned j_min = 0;
        for (unsigned j = i - 1; j >= 1; j--) {
            if (j - 1 >= t->count)
                continue;  /* no slice will be there */
            uint64_t left = room(at(t, j - 1));
            left = left > committed ? left - committed : 0;
            uint64_t q = ceil_div(left, i - j);
            if (q < q_min) {
                q_min = q;
                j_min = j;
            }
        }
        if (j_min == 0 || g_target <= q_min)
            break;
        committed += q_min * (i - j_min);
        i = j_min;
    }
    return committed + (uint64_t)i * g_target;
}

/* Eq 6 with the burst fix: the rate-derived target may at most quadruple
 * the generation just completed.  (Growing the previous *target* instead
 * lets it run away while old, small slices keep the real generations
 * short: a 20 000-key burst then sized a slice for 14 million keys.)
 * Measured on that burst (k=11, l=45, target 0.01): growth 2x gave 66
 * extra slices and FP 0.018; 4x 40 slices, FP 0.0146, 38 bits/key; 8x 31
 * slices, FP 0.013 but 64 bits/key. */
enum { BURST_GROWTH = 4 };

/* The rate over at least one span T/l, as a generation target: the
 * inserts after slice j's stamp over the time since, for the newest slice
 * j >= k stamped a span or more ago; 0 if no slice is that old.  Slice j
 * last took an insert in the generation of slice j-k+1, so the inserts
 * after its stamp are the generations of slices 0 .. j-k.
 *
 * Why: eq 6 reads the rate off the last generation alone.  When keys come
 * in batches at one timestamp (a clock with 1 s resolution, say), a
 * generation is a fragment of a batch: dt = 0, or a few keys over a whole
 * tick, and the target fed on itself down to slices of 100 bits; at 100
 * keys/s in 1 s batches the filter hit its 230-slice cap within 20 s and
 * FP went to 1 (tdbf eval tlbf-faults, "batches").  A rate over a span or
 * more is immune to how the keys are grouped inside it. */
static uint64_t span_target(const tlbf *t, uint64_t now_ns)
{
    uint64_t inserts = 0, target = 0;
    for (unsigned j = t->k; j < t->count; j++) {
        const slice *s = at(t, j);
        if (stale(t, s, now_ns))
            break;
        inserts += at(t, j - t->k)->generation;
        uint64_t dt = now_ns - s->stamp;
        if (dt >= t->span_ns)
            target = (uint64_t)ceil((double)inserts * (double)t->span_ns / (double)dt) + 1;
    }
    return target;
}

/* Inserts made at the instant now_ns, as far as the slices tell (called
 * when the generation just completed started at now_ns, dt = 0): that
 * generation, and each older one that also lay wholly at now_ns.  The
 * generation of slice i started after the last insert into slice i+k
 * (which left the k newest when slice i+1's generation ended), so it lay
 * at now_ns if that slice is stamped now_ns. */
static uint64_t instant_inserts(const tlbf *t, uint64_t now_ns)
{
    uint64_t inserts = at(t, 0)->generation;
    for (unsigned i = 1; i + t->k < t->count && at(t, i + t->k)->stamp == now_ns; i++)
        inserts += at(t, i)->generation;
    return inserts;
}

/* The capacity hint believed: while the live slices hold fewer keys than
 * the l home generations the hint promised a window (cfg.capacity), a
 * generation is sized for at most 1/k of the rest of the promise (and at
 * least home_g): a slice is sized for the k generations it takes inserts
 * in (Eq 7), so a burst that ends at the promise does not leave its last
 * slices sized for generations that never come.  It still grows as its
 * rate asks while far from the promise, so a burst past it starts its
 * growth from large slices.  Past the promise the rate rules alone.
 * Measured at 0.001, 10^6 keys at one instant with the hint 10^6: 29.7
 * bits per key, FP 0.0002 (46.9 sized from the rate alone; a steady load
 * takes 29.6); 10^5 and 2·10^6 keys on a hint of 2·10^4: FP 0.0006 and
 * 0.0008. */
static double believe_hint(const tlbf *t, uint64_t now_ns, double want)
{
    if (t->home_g == 0 || want <= (double)t->home_g)
        return want;
    uint64_t held = held_in(t, live_slices(t, now_ns));
    uint64_t promised = (uint64_t)t->l * t->home_g;
    if (held >= promised)
        return want;
    double rest = (double)(promised - held) / t->k;
    return fmin(want, fmax(rest, (double)t->home_g));
}

static uint64_t tdbf_tlbf_next_target(const tlbf *t, uint64_t now_ns)
{
    uint64_t g = at(t, 0)->generation;
    uint64_t dt = now_ns - t->last_shift_ns;
    double steady = (double)span_target(t, now_ns);
    double limit = BURST_GROWTH * fmax((double)(g ? g : 1), steady);
    /* dt = 0: the whole last generation came at this instant.  More than
     * a span's worth at one instant is a burst (grow); up to that, a batch
     * of a stream that the steady rate describes. */
    double want = dt != 0 ? ceil((double)g * (double)t->span_ns / (double)dt) + 1.0
                : (double)instant_inserts(t, now_ns) > steady ? limit : steady;
    want = fmax(want, steady);
    if (want > limit)
        want = limit;
    want = believe_hint(t, now_ns, want);
    return want < 1.0 ? 1 : (uint64_t)want;
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
        fills[i] = i < t->k ? tdbf_tlbf_expected_fill(at(t, i)) : at(t, i)->fill;
    return slices_fp(t, live, fills);
}

/* Recompute the kept F as of now_ns (see the essay). */
void tdbf_tlbf_keep_fp(tlbf *t, uint64_t now_ns)
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
    const tlbf *t = f->state.impl;
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
        tdbf_tlbf_keep_fp(t, now_ns);
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
    return add_hash(f, f->state.impl, &key->hash, now_ns);
}

static int tlbf_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    return query(f->state.impl, &key->hash, now_ns);
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
    tlbf_batch b = {NULL, f->state.impl, now_ns};
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
    tlbf_batch b = {f, f->state.impl, now_ns};
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
    tlbf *t = f->state.impl;
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
enum { TLBF_MAX_L = 160 };

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
    double steady = (double)base * (double)tdbf_tlbf_slice_bytes(plan->m);
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
                        base * tdbf_tlbf_slice_bytes(plan.m);
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
    f->state.impl = t;
    return TDBF_OK;
}

static void tlbf_close(tdbf *f)
{
    tlbf *t = f->state.impl;
    while (t->count)
        retire_oldest(f, t);
    tdbf_mem_free(f, t->ring, t->ring_size * sizeof *t->ring);
    tdbf_mem_free(f, t, sizeof *t);
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void tlbf_shape(const tdbf *f, tdbf_shape *out)
{
    const tlbf *t = f->state.impl;
    out->k = t->k;
    out->l = t->l;
    out->window_ns = t->window_ns;
    out->error_planned = t->fp_planned;
}

static void tlbf_stats(const tdbf *f, tdbf_stats *st)
{
    const tlbf *t = f->state.impl;
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
        st->bits_per_item = 8.0 * (double)f->state.memory_bytes / (double)held;
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
    .payload_size = tdbf_tlbf_payload_size,
    .save = tdbf_tlbf_save,
    .load = tdbf_tlbf_load,
};
