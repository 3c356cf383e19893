/*
 * apbf.c — Age-Partitioned Bloom Filter, count window.
 *
 * Shtul, Baquero, Almeida, "Age-Partitioned Bloom Filters" (paper 004),
 * section 5.
 *
 * Model.  k+l slices of m bits each, kept in a circular buffer.  An insert
 * sets one bit in each of the k newest logical slices s_0 .. s_{k-1}.  Every
 * g = floor(m ln2 / k) inserts (a generation) the buffer shifts: the oldest
 * slice s_{k+l-1} is cleared and becomes the new s_0.  A slice takes inserts
 * for k generations, k*g <= m ln2 keys, so it stops at fill 1/2.  A query
 * answers yes iff some k consecutive logical slices s_j .. s_{j+k-1},
 * 0 <= j <= l, all have the key's bit set (Algorithm 1 finds such a run
 * reading few slices: start at s_l, walk towards older slices counting
 * matches, on a miss jump k back).
 *
 *     buffer position:   0     1     2     3     4     5     6    (k=3, l=4)
 *                      +-----+-----+-----+-----+-----+-----+-----+
 *     logical slice:   | s_5 | s_6 | s_0 | s_1 | s_2 | s_3 | s_4 |
 *                      +-----+-----+-----+-----+-----+-----+-----+
 *                                   ^ base: a shift moves it one left
 *                                     (mod k+l) and clears that slice.
 *
 * Hashing.  Each buffer position j owns a fixed hash h_j (section 5.1: the
 * mapping must not move when slices shift), derived from the key's one
 * 128-bit hash as lo + j*hi and reduced to [0, m) by multiply-shift.
 *
 * Window.  A key inserted in some generation sits in s_t .. s_{t+k-1} after
 * t shifts and is found while t <= l, i.e. for at least l*g further inserts:
 * the window is w = l*g with no false negatives (section 5.2).  It may
 * linger up to k more generations (slack k*g), reported with probability
 * halving per lost slice (peak NPWS ~ 2/l).
 *
 * False positives.  Worst just before a shift, F(k,l,0,0) over the slices'
 * fills (section 5.3, plan.c).  Measured on 10^4 keys through a 10^3 window,
 * the rate sits inside the binomial band of plan.c's exact-fill F (see
 * tests/unit/test_apbf.c).
 *
 * add() is test-and-set: it runs the query first (the answer a contains()
 * would have given), then performs a due shift and sets the k bits.  Bits
 * are only ever cleared a whole slice at a time by a shift, so a key inside
 * the window can never lose a bit: no false negatives, for any key bytes.
 */
#include <stddef.h>
#include <string.h>

#include "util/bits.h"
#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"
#include "model/run.h"
#include "model/inference.h"
#include "model/planning.h"

typedef struct apbf {
    unsigned  k;            /* slices set per insert */
    unsigned  l;            /* extra slices: the window is l generations */
    unsigned  slices;       /* k + l */
    unsigned  base;         /* buffer position of logical slice s_0 */
    uint64_t  m;            /* bits per slice */
    uint64_t  words;        /* 64-bit words per slice */
    uint64_t  g;            /* generation size: inserts between shifts */
    uint64_t  fill;         /* inserts in the current generation, 0..g */
    uint64_t  shifts;       /* shifts since open */
    double    fp_planned;   /* plan.c exact-fill F(k,l,0,0) */
    uint64_t *bits;         /* slices * words, 64-byte aligned */
    /* Single adds: the slices whose words are asked for before the walk
     * (tdbf_run_ahead_slices). */
    unsigned  ahead_count;
    uint16_t  ahead[TDBF_RUN_AHEAD];
} apbf;

static size_t apbf_bytes(const apbf *a)
{
    return (size_t)a->slices * (size_t)a->words * sizeof(uint64_t);
}

/* Buffer position of logical slice i (0 <= i < k+l), without division. */
static inline unsigned position(const apbf *a, unsigned i)
{
    unsigned pos = a->base + i;
    return pos >= a->slices ? pos - a->slices : pos;
}

static inline uint64_t bit_of(const apbf *a, unsigned pos, const tdbf_hash128 *h)
{
    return (uint64_t)pos * a->words * 64 + tdbf_reduce(tdbf_hash_nth(h, pos), a->m);
}

static inline int slice_has(const apbf *a, unsigned logical, const tdbf_hash128 *h)
{
    return tdbf_bit_get(a->bits, bit_of(a, position(a, logical), h));
}

static int slice_test(const void *state, unsigned logical, const tdbf_hash128 *h)
{
    return slice_has(state, logical, h);
}

/* The word slice_test reads. */
static const void *slice_line(const void *state, unsigned logical, const tdbf_hash128 *h)
{
    const apbf *a = state;
    return a->bits + (bit_of(a, position(a, logical), h) >> 6);
}

/* Algorithm 1 (section 5.4), from s_l. */
static int query(const apbf *a, const tdbf_hash128 *h)
{
    return tdbf_find_run(a, a->k, a->l, h, slice_test);
}

/* Retire the oldest slice: it becomes the new, empty s_0. */
static void shift(apbf *a)
{
    a->base = a->base == 0 ? a->slices - 1 : a->base - 1;
    memset(a->bits + (size_t)a->base * a->words, 0, a->words * sizeof(uint64_t));
    a->fill = 0;
    a->shifts++;
}

/* Write the key into s_0 .. s_{k-1} and count it (no shift is due). */
static void set_key(void *state, const tdbf_hash128 *h)
{
    apbf *a = state;
    for (unsigned i = 0; i < a->k; i++)
        tdbf_bit_set(a->bits, bit_of(a, position(a, i), h));
    a->fill++;
}

static int add_one(void *state, const tdbf_hash128 *h)
{
    apbf *a = state;
    int present = query(a, h);
    if (a->fill == a->g)
        shift(a);
    set_key(a, h);
    return present;
}

/* Single calls.  Which slices Algorithm 1 reads depends on what it reads,
 * but the words of its first candidates (s_l, then s_{l+1} or s_{l-k},
 * ..: tdbf_run_ahead) do not, nor do the k an add sets.  Once the filter
 * is out of the caches (f->settings.walk_min_bytes, as the batch walks)
 * an add asks for all of them before its walk, so those misses overlap; in
 * cache computing their addresses twice costs more than it saves.
 * Measured at w = 10^7, error 0.01 (k = 10, l = 24), best of 5 rounds of
 * 10^5: an add 339 -> 281-300 ns.  A query gains nothing from it: with
 * the first 8, 3 or even only s_l asked for ahead it measured 360-420 ns
 * against 290-330 without (its path leaves the tree after ~3 of its ~5.6
 * reads, and a loop of queries already overlaps one query's first miss
 * with the previous one's last), so queries walk as before. */
static bool far(const tdbf *f)
{
    return f->state.memory_bytes >= f->settings.walk_min_bytes;
}

static int apbf_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    apbf *a = f->state.impl;
    if (far(f)) {
        /* no shift due: after a shift s_0 is elsewhere, once a generation */
        for (unsigned i = 0; i < a->k; i++)
            tdbf_prefetch(slice_line(a, i, &key->hash), 1);
        tdbf_run_ahead(a, a->ahead, a->ahead_count, &key->hash, slice_line);
    }
    return add_one(a, &key->hash);
}

static int apbf_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    return query(f->state.impl, &key->hash);
}

/* ---- batch calls (filter.c) ----
 * Queries walk Algorithm 1 interleaved, on exactly the lines each reads
 * (model/run.h): a query's path is data-dependent (slices match about
 * half the time), so no fixed prefetch covers it.  Adds walk the same
 * way, then set their bits in order. */

static uint64_t room(const void *state, unsigned *l)
{
    const apbf *a = state;
    *l = a->l;
    return a->g - a->fill;
}

static void apbf_contains_many(const tdbf *f, const tdbf_key *keys, size_t n,
                               uint64_t now_ns, uint8_t *found)
{
    (void)now_ns;
    const apbf *a = f->state.impl;
    tdbf_find_run_batch(a, a->k, a->l, keys, n, slice_test, slice_line, found);
}

static int apbf_add_many(tdbf *f, const tdbf_key *keys, size_t n,
                         uint64_t now_ns, uint8_t *present)
{
    (void)now_ns;
    apbf *a = f->state.impl;
    tdbf_add_run_batch(a, a->k, keys, n, slice_test, slice_line, set_key, add_one, room,
                       present);
    return TDBF_OK;
}

/* The slices a single add asks for first. */
static void plan_ahead(apbf *a)
{
    a->ahead_count = tdbf_run_ahead_slices(a->k, a->l, a->ahead);
}

/* The parameters open builds for cfg: the given (k, l), or the planner's
 * least memory within the tolerance (paper 004 section 5.3). */
static int apbf_size(const tdbf_config *cfg, tdbf_plan *plan)
{
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    if ((cfg->k == 0) != (cfg->l == 0))
        return TDBF_EPARAM;
    int rc = cfg->k ? tdbf_plan_eval(cfg->k, cfg->l, cfg->window_items, plan)
                    : tdbf_plan_search(cfg->window_items, cfg->error, TDBF_MAX_L,
                                       tdbf_plan_tolerance(cfg), plan, NULL, 0, NULL);
    if (rc != TDBF_OK)
        return rc;
    double bytes = (double)(plan->k + plan->l) * (double)tdbf_words_for_bits(plan->m) * 8.0;
    return tdbf_fits(bytes + sizeof(apbf), cfg->max_memory) ? TDBF_OK : TDBF_ETOOBIG;
}

static int apbf_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_plan plan;
    int rc = apbf_size(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    out->k = plan.k;
    out->l = plan.l;
    out->window_items = (uint64_t)plan.l * plan.g;
    out->error_planned = plan.fp;
    out->memory_bytes = sizeof(tdbf) + sizeof(apbf) + TDBF_ALIGNED_OVERHEAD +
                        (uint64_t)(plan.k + plan.l) * tdbf_words_for_bits(plan.m) * 8;
    return TDBF_OK;
}

static int apbf_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_plan plan;
    int rc = apbf_size(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;

    apbf *a = tdbf_mem_calloc(f, 1, sizeof *a);
    if (!a)
        return TDBF_ENOMEM;
    a->k = plan.k;
    a->l = plan.l;
    a->slices = plan.k + plan.l;
    a->m = plan.m;
    a->words = tdbf_words_for_bits(plan.m);
    a->g = plan.g;
    a->fp_planned = plan.fp;
    a->bits = tdbf_mem_calloc_aligned(f, apbf_bytes(a));
    if (!a->bits) {
        tdbf_mem_free(f, a, sizeof *a);
        return TDBF_ENOMEM;
    }
    plan_ahead(a);
    f->state.impl = a;
    f->state.error_planned = a->fp_planned;
    return TDBF_OK;
}

static void apbf_close(tdbf *f)
{
    apbf *a = f->state.impl;
    tdbf_mem_free_aligned(f, a->bits, apbf_bytes(a));
    tdbf_mem_free(f, a, sizeof *a);
}

/* Current fill of each logical slice, newest first. */
static void measured_fills(const apbf *a, double *fills)
{
    for (unsigned i = 0; i < a->slices; i++) {
        const uint64_t *slice = a->bits + (size_t)position(a, i) * a->words;
        fills[i] = (double)tdbf_popcount(slice, a->words) / (double)a->m;
    }
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void apbf_shape(const tdbf *f, tdbf_shape *out)
{
    const apbf *a = f->state.impl;
    out->k = a->k;
    out->l = a->l;
    out->window_items = (uint64_t)a->l * a->g;
    out->error_planned = a->fp_planned;
}

static void apbf_stats(const tdbf *f, tdbf_stats *st)
{
    const apbf *a = f->state.impl;
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    measured_fills(a, fills);
    st->slices = a->slices;
    st->slice_bits = a->m;
    st->generation_size = a->g;
    st->generation_fill = a->fill;
    st->generations = a->shifts;
    st->error_estimated = tdbf_apbf_fp(a->k, a->l, fills);
}

/* The inference (infer_apbf.c) reads every slice, not only Algorithm 1's
 * path. */
static int apbf_infer(const tdbf *f, const tdbf_key *key, uint64_t now_ns,
                      const tdbf_prior *prior, tdbf_inference *out)
{
    (void)now_ns;
    const apbf *a = f->state.impl;
    tdbf_slice_view view = {a->k, a->l, a->g, a->fill, a->shifts, a->m, 0, 0};
    return tdbf_slice_infer(&view, a, slice_test, &key->hash, prior, out);
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 k, u32 l, u64 m, u64 g, u64 fill, u64 shifts, u32 base,
 * u32 0, then the (k+l) slices' words in buffer order. */

enum { APBF_FIELDS_BYTES = 48 };

static uint64_t apbf_payload_size(const tdbf *f)
{
    const apbf *a = f->state.impl;
    return APBF_FIELDS_BYTES + apbf_bytes(a);
}

static void apbf_save(const tdbf *f, tdbf_out *out)
{
    const apbf *a = f->state.impl;
    tdbf_out_u32(out, a->k);
    tdbf_out_u32(out, a->l);
    tdbf_out_u64(out, a->m);
    tdbf_out_u64(out, a->g);
    tdbf_out_u64(out, a->fill);
    tdbf_out_u64(out, a->shifts);
    tdbf_out_u32(out, a->base);
    tdbf_out_u32(out, 0);
    tdbf_out_words(out, a->bits, (uint64_t)a->slices * a->words);
}

static bool slice_tails_clear(const void *state)
{
    const apbf *a = state;
    for (unsigned i = 0; i < a->slices; i++)
        if (!tdbf_tail_clear(a->bits + (size_t)i * a->words, a->m))
            return false;
    return true;
}

/* Every field checked against the others and the payload length before
 * the slices are allocated. */
static int apbf_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    apbf h = {0};
    uint32_t k, l, base, reserved;
    tdbf_in_u32(in, &k);
    tdbf_in_u32(in, &l);
    tdbf_in_u64(in, &h.m);
    tdbf_in_u64(in, &h.g);
    tdbf_in_u64(in, &h.fill);
    tdbf_in_u64(in, &h.shifts);
    tdbf_in_u32(in, &base);
    if (tdbf_in_u32(in, &reserved) != TDBF_OK)
        return in->rc;
    if (k < 1 || k > TDBF_MAX_K || l < 1 || l > TDBF_MAX_L || reserved != 0 ||
        h.m < 1 || h.m > (UINT64_C(1) << 52) || base >= k + l)
        return TDBF_ECORRUPT;
    h.k = k;
    h.l = l;
    h.slices = k + l;
    h.base = base;
    h.words = tdbf_words_for_bits(h.m);
    if (h.g < 1 || h.g != tdbf_apbf_generation(h.m, k) || h.fill > h.g)
        return TDBF_ECORRUPT;
    if (in->remaining / 8 / h.slices != h.words || in->remaining != apbf_bytes(&h))
        return TDBF_ECORRUPT;
    if (!tdbf_fits((double)apbf_bytes(&h) + sizeof(apbf), max_memory))
        return TDBF_ETOOBIG;
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    tdbf_apbf_fills_exact(h.k, h.l, h.m, h.g, fills);
    h.fp_planned = tdbf_apbf_fp(h.k, h.l, fills);
    f->state.error_planned = h.fp_planned;
    plan_ahead(&h);

    return tdbf_load_state(f, in, &h, sizeof h, offsetof(apbf, bits),
                           (uint64_t)h.slices * h.words, slice_tails_clear);
}

const tdbf_ops tdbf_apbf_ops = {
    .plan = apbf_plan,
    .open = apbf_open,
    .close = apbf_close,
    .add = apbf_add,
    .contains = apbf_contains,
    .advance = NULL,
    .stats = apbf_stats,
    .shape = apbf_shape,
    .contains_many = apbf_contains_many,
    .add_many = apbf_add_many,
    .payload_size = apbf_payload_size,
    .save = apbf_save,
    .load = apbf_load,
    .infer = apbf_infer,
};
