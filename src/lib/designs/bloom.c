/*
 * bloom.c — the classic Bloom filter (Bloom 1970), the baseline.
 *
 * One array of m bits, k indices per key by double hashing (Kirsch &
 * Mitzenmacher: lo + i*hi, reduced by multiply-shift).  It has no window:
 * cfg.window_items is its capacity n, after which its FP rate climbs.
 * Sizing is the textbook optimum for n keys at rate e:
 *
 *     m = ceil(-n ln e / (ln 2)^2),   k = round((m / n) ln 2),
 *     FP(n) = (1 - e^(-k n / m))^k
 *
 * so at capacity about half the bits are set.  Used by tests and benchmarks
 * as the reference every windowed design is compared with.
 *
 * Blocked variant (cfg.block_bits = 512 or 64; Putze, Sanders, Singler
 * 2007): each key picks one B-bit block and sets k bits in it, one per part
 * (block.h), so an add or a query touches one cache line (or word).  The
 * per-block load is Poisson with mean n/blocks, and the FP is the APBBF
 * segment match E[(1 - (1 - k/B)^X)^k] (plan_blocked.c); k and the block
 * count are the pair with the fewest bits that meets the error.
 *
 * Single calls.  An add derives each of the k indices once, tests all k
 * bits, then sets them; a query reads all k with no early exit (see
 * classic_query_k).  Open and load point the shell's f->state.add_hashed and
 * f->state.contains_hashed at them, so tdbf_add hashes and jumps (designs/ops.h),
 * and for the k of the common errors (3, 4, 5, 7, 10) all four entries at
 * copies with k a constant, whose loops unroll.  At w = 10^6, error 0.01 an add went from
 * 43 to 22 ns and a query from 26 to 17.5 through the public API, against
 * 17.5 / 19 ns for the same filter written inline (tdbf-lab bench).
 *
 * Current error (tdbf_current_error).  Nothing is ever forgotten, so the
 * FP follows from the adds since open: (1 - (1 - 1/m)^(k n))^k, or the
 * blocked model at mean load n / blocks, which climbs past the target once
 * n passes the capacity (re-adds count too: an upper bound).  The blocked
 * model sums a Poisson series (0.2 us at B = 64, 0.6 us at B = 512; the
 * classic formula 0.03 us; more when overloaded), so add keeps the value
 * for the end of a stretch of max(n, capacity)/256 + 1 adds and a caller
 * reads it in O(1): never low, and near the capacity about 0.7 k / 256
 * high (2 % at k = 7).  One formula per stretch costs an add 0.6 us * 256
 * / capacity (blocked: 15 ns at capacity 10^4, 0.15 ns at 10^6).
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/bits.h"
#include "util/block.h"
#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"
#include "model/planning.h"

typedef struct bloom {
    uint64_t  m;          /* bits */
    unsigned  k;          /* indices per key (bits per block when blocked) */
    uint64_t  capacity;   /* n: keys it was sized for */
    double    fp_planned; /* FP at capacity */
    bool      blocked;
    tdbf_block_layout layout; /* when blocked */
    double    fp_kept;    /* the FP at fp_until adds (not saved) */
    uint64_t  fp_until;
    uint64_t *bits;
} bloom;

static size_t bloom_bytes(const bloom *b)
{
    return (size_t)tdbf_words_for_bits(b->m) * sizeof(uint64_t);
}

static uint64_t *block_of(const bloom *b, const tdbf_hash128 *h, tdbf_block_digits *d)
{
    return b->bits + tdbf_block_pick(&b->layout, h, 0, 1, d) * b->layout.block_words;
}

/* The classic filter's query: all k bits read, none skipped.  An early
 * exit at the first clear bit is a branch that goes either way for the
 * queries of a stream (a fresh key's first clear bit is anywhere among
 * the k), and its mispredictions cost more than the k reads, which the
 * core issues in parallel (measured at w = 10^6, error 0.01: 25 ns with
 * the exit, 17.5 ns without).  The hash and the array are copied to
 * locals: the compiler cannot keep them in registers across stores it
 * cannot prove apart.  With k a constant (bloom_contains_k*) the loop
 * unrolls. */
static TDBF_ALWAYS_INLINE int classic_query_k(const bloom *b, const tdbf_hash128 *key_hash,
                                              unsigned k)
{
    const tdbf_hash128 h = *key_hash;
    const uint64_t *bits = b->bits;
    const uint64_t m = b->m;
    uint64_t all = 1;
#pragma GCC unroll 16
    for (unsigned i = 0; i < k; i++) {
        uint64_t index = tdbf_reduce(tdbf_hash_nth(&h, i), m);
        all &= bits[index >> 6] >> (index & 63);
    }
    return (int)(all & 1);
}

/* The classic filter's test-and-set: each of the k indices is derived
 * once, all k bits are tested, then set.  Testing every bit before any is
 * set keeps the answer exactly the query's (two indices of one key may
 * coincide).  With k a constant (bloom_add_k*) the loops unroll and the
 * indices stay in registers. */
static TDBF_ALWAYS_INLINE int classic_add_k(bloom *b, const tdbf_hash128 *key_hash,
                                            unsigned k)
{
    const tdbf_hash128 h = *key_hash;
    uint64_t *bits = b->bits;
    const uint64_t m = b->m;
    uint64_t index[TDBF_MAX_K];
    uint64_t all = 1;
#pragma GCC unroll 16
    for (unsigned i = 0; i < k; i++) {
        index[i] = tdbf_reduce(tdbf_hash_nth(&h, i), m);
        all &= bits[index[i] >> 6] >> (index[i] & 63);
    }
#pragma GCC unroll 16
    for (unsigned i = 0; i < k; i++)
        tdbf_bit_set(bits, index[i]);
    return (int)(all & 1);
}

static inline int query(const bloom *b, const tdbf_hash128 *h)
{
    if (b->blocked) {
        tdbf_block_digits d;
        const uint64_t *block = block_of(b, h, &d);
        return tdbf_block_has(&b->layout, block, &d);
    }
    return classic_query_k(b, h, b->k);
}

/* Test-and-set: the query's answer, then the key's bits set. */
static inline int test_and_set(bloom *b, const tdbf_hash128 *h)
{
    if (b->blocked) {
        tdbf_block_digits d;
        uint64_t *block = block_of(b, h, &d);
        tdbf_block_digits again = d;
        int present = tdbf_block_has(&b->layout, block, &d);
        tdbf_block_set(&b->layout, block, &again);
        return present;
    }
    return classic_add_k(b, h, b->k);
}

/* The FP after `adds` adds (the essay). */
static double fp_after(const bloom *b, uint64_t adds)
{
    if (b->blocked)
        return tdbf_apbbf_match_poisson(b->layout.block_bits, b->k,
                                        (double)adds / (double)b->layout.blocks);
    return tdbf_bloom_fp((double)adds, b->m, b->k);
}

/* Keep the FP for the end of the stretch that `adds` starts. */
static void keep_fp(bloom *b, uint64_t adds)
{
    uint64_t stretch = (adds > b->capacity ? adds : b->capacity) / 256 + 1;
    /* Saturating: a loaded file may claim any count of adds. */
    b->fp_until = stretch > UINT64_MAX - adds ? UINT64_MAX : adds + stretch;
    b->fp_kept = fp_after(b, b->fp_until);
}

/* The add, for a classic filter of k indices when k is not 0 (then a
 * constant: bloom_add_k*), else for any filter.  `counted`: the shell
 * counted this add before the call (f->state.add_hashed, designs/ops.h), rather
 * than after it returns (f->state.add). */
static TDBF_ALWAYS_INLINE int add_with(tdbf *f, const tdbf_hash128 *h, unsigned k,
                                       bool counted)
{
    bloom *b = f->state.impl;
    int present = k ? classic_add_k(b, h, k) : test_and_set(b, h);
    uint64_t adds = atomic_load_explicit(&f->items, memory_order_relaxed);
    if (!counted)
        adds += adds < UINT64_MAX;
    if (adds > b->fp_until)
        keep_fp(b, adds);
    return present;
}

static int bloom_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    return add_with(f, &key->hash, 0, false);
}

static int bloom_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    return query(f->state.impl, &key->hash);
}

/* The same by the key's hash: the shell's jump (designs/ops.h), which a
 * Bloom filter can take: it reads neither the key's bytes nor the time,
 * and its adds cannot fail. */
static int bloom_add_hashed(tdbf *f, tdbf_hash128 h)
{
    return add_with(f, &h, 0, true);
}

static int bloom_contains_hashed(const tdbf *f, tdbf_hash128 h)
{
    return query(f->state.impl, &h);
}

/* The single-key calls specialised for the k of the common errors: 7 and
 * 10 are the textbook k of 0.01 and 0.001, 3 .. 5 of 0.1 .. 0.03.  Their
 * loops unroll and the k indices stay in registers (w = 10^6, error
 * 0.01: an add 24 -> 22 ns).  Open and load point f->state.add and f->state.contains
 * at the pair that fits (use_specialised); answers are the same. */
#define BLOOM_CALLS_K(K)                                                         \
    static int bloom_add_k##K(tdbf *f, const tdbf_key *key, uint64_t now_ns)      \
    {                                                                            \
        (void)now_ns;                                                            \
        return add_with(f, &key->hash, K, false);                                \
    }                                                                            \
    static int bloom_contains_k##K(const tdbf *f, const tdbf_key *key,           \
                                   uint64_t now_ns)                              \
    {                                                                            \
        (void)now_ns;                                                            \
        return classic_query_k(f->state.impl, &key->hash, K);                    \
    }                                                                            \
    static int bloom_add_hashed_k##K(tdbf *f, tdbf_hash128 h)                    \
    {                                                                            \
        return add_with(f, &h, K, true);                                         \
    }                                                                            \
    static int bloom_contains_hashed_k##K(const tdbf *f, tdbf_hash128 h)         \
    {                                                                            \
        return classic_query_k(f->state.impl, &h, K);                            \
    }
BLOOM_CALLS_K(3)
BLOOM_CALLS_K(4)
BLOOM_CALLS_K(5)
BLOOM_CALLS_K(7)
BLOOM_CALLS_K(10)
#undef BLOOM_CALLS_K

#define USE_K(K)                                                                  \
    case K:                                                                       \
        f->state.add = bloom_add_k##K;                                            \
        f->state.contains = bloom_contains_k##K;                                  \
        f->state.add_hashed = bloom_add_hashed_k##K;                              \
        f->state.contains_hashed = bloom_contains_hashed_k##K;                    \
        break;

static void use_specialised(tdbf *f, const bloom *b)
{
    f->state.add_hashed = bloom_add_hashed;
    f->state.contains_hashed = bloom_contains_hashed;
    if (b->blocked)
        return;
    switch (b->k) {
    USE_K(3)
    USE_K(4)
    USE_K(5)
    USE_K(7)
    USE_K(10)
    default: break;
    }
}
#undef USE_K

static double bloom_current_error(const tdbf *f, uint64_t now_ns)
{
    (void)now_ns;
    const bloom *b = f->state.impl;
    uint64_t adds = atomic_load_explicit(&f->items, memory_order_relaxed);
    return adds <= b->fp_until ? b->fp_kept : fp_after(b, adds);
}

static void bloom_prefetch(const tdbf *f, const tdbf_key *key, int for_add)
{
    const bloom *b = f->state.impl;
    if (b->blocked) {
        tdbf_block_digits d;
        tdbf_prefetch(block_of(b, &key->hash, &d), for_add);
        return;
    }
    for (unsigned i = 0; i < b->k; i++)
        tdbf_prefetch(b->bits + (tdbf_reduce(tdbf_hash_nth(&key->hash, i), b->m) >> 6), for_add);
}

/* Classic sizing: m = -n ln e / ln^2 2, k = round(m/n ln 2). */
static int size_classic(const tdbf_config *cfg, bloom *b)
{
    if (cfg->block_hashes != 0)
        return TDBF_EPARAM;
    double n = (double)cfg->window_items;
    double m = ceil(-n * log(cfg->error) / (TDBF_LN2 * TDBF_LN2));
    if (!tdbf_fits(m / 8.0 + sizeof(bloom), cfg->max_memory))
        return TDBF_ETOOBIG;
    unsigned k = cfg->k ? cfg->k : (unsigned)lround(m / n * TDBF_LN2);
    b->k = k < 1 ? 1 : k > TDBF_MAX_K ? TDBF_MAX_K : k;
    b->m = (uint64_t)m;
    b->fp_planned = pow(-expm1(-(double)b->k * n / m), (double)b->k);
    return TDBF_OK;
}

/* Largest mean load per block at which k bits per block meet the error. */
static double max_load(unsigned block_bits, unsigned k, double error)
{
    double lo = 0.0, hi = (double)block_bits;
    for (int iter = 0; iter < 60; iter++) {
        double mid = 0.5 * (lo + hi);
        if (tdbf_apbbf_match_poisson(block_bits, k, mid) <= error)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Blocked sizing: the (k, blocks) with the fewest blocks. */
static int size_blocked(const tdbf_config *cfg, bloom *b)
{
    unsigned block_bits = cfg->block_bits;
    if ((block_bits != TDBF_BLOCK_WORD && block_bits != TDBF_BLOCK_LINE) ||
        cfg->block_hashes > TDBF_MAX_BLOCK_HASHES || cfg->k)
        return TDBF_EPARAM;
    double n = (double)cfg->window_items, best_blocks = INFINITY;
    unsigned best_k = 0;
    unsigned first = cfg->block_hashes ? cfg->block_hashes : 1;
    unsigned last = cfg->block_hashes ? cfg->block_hashes : TDBF_MAX_BLOCK_HASHES;
    for (unsigned k = first; k <= last; k++) {
        double load = max_load(block_bits, k, cfg->error);
        double blocks = load > 0.0 ? ceil(n / load) : INFINITY;
        if (blocks < best_blocks) {
            best_blocks = blocks;
            best_k = k;
        }
    }
    if (best_k == 0 || !tdbf_fits(best_blocks * block_bits / 8.0 + sizeof(bloom) + 72.0,
                                  cfg->max_memory))
        return TDBF_ETOOBIG;
    b->blocked = true;
    b->k = best_k;
    b->m = (uint64_t)best_blocks * block_bits;
    tdbf_block_layout_init(&b->layout, block_bits, best_k, (uint64_t)best_blocks);
    b->fp_planned = tdbf_apbbf_match_poisson(block_bits, best_k, n / best_blocks);
    return TDBF_OK;
}

/* The classic or blocked filter open builds for cfg's capacity. */
static int bloom_size(const tdbf_config *cfg, bloom *sized)
{
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    if (cfg->l != 0 || cfg->k > TDBF_MAX_K)
        return TDBF_EPARAM;
    *sized = (bloom){.capacity = cfg->window_items};
    return cfg->block_bits ? size_blocked(cfg, sized) : size_classic(cfg, sized);
}

static int bloom_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    bloom sized;
    int rc = bloom_size(cfg, &sized);
    if (rc != TDBF_OK)
        return rc;
    out->k = sized.k;
    out->window_items = sized.capacity;
    out->error_planned = sized.fp_planned;
    out->memory_bytes = sizeof(tdbf) + sizeof(bloom) + TDBF_ALIGNED_OVERHEAD + bloom_bytes(&sized);
    return TDBF_OK;
}

static int bloom_open(tdbf *f, const tdbf_config *cfg)
{
    bloom sized;
    int rc = bloom_size(cfg, &sized);
    if (rc != TDBF_OK)
        return rc;
    bloom *b = tdbf_mem_calloc(f, 1, sizeof *b);
    if (!b)
        return TDBF_ENOMEM;
    *b = sized;
    b->bits = tdbf_mem_calloc_aligned(f, bloom_bytes(b));
    if (!b->bits) {
        tdbf_mem_free(f, b, sizeof *b);
        return TDBF_ENOMEM;
    }
    f->state.impl = b;
    use_specialised(f, b);
    return TDBF_OK;
}

static void bloom_close(tdbf *f)
{
    bloom *b = f->state.impl;
    tdbf_mem_free_aligned(f, b->bits, bloom_bytes(b));
    tdbf_mem_free(f, b, sizeof *b);
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void bloom_shape(const tdbf *f, tdbf_shape *out)
{
    const bloom *b = f->state.impl;
    out->k = b->k;
    out->window_items = b->capacity;
    out->error_planned = b->fp_planned;
}

static void bloom_stats(const tdbf *f, tdbf_stats *st)
{
    const bloom *b = f->state.impl;
    double fill = (double)tdbf_popcount(b->bits, tdbf_words_for_bits(b->m)) / (double)b->m;
    st->slices = 1;
    st->slice_bits = b->m;
    if (b->blocked) {
        double load = tdbf_apbbf_load_for_fill(b->layout.block_bits, b->k, fill);
        st->error_estimated = load == INFINITY ? 1.0
            : tdbf_apbbf_match_poisson(b->layout.block_bits, b->k, load);
    } else {
        st->error_estimated = pow(fill, (double)b->k);
    }
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 k, u32 block_bits (0 = classic), u64 m, u64 capacity, then
 * the words. */

enum { BLOOM_FIELDS_BYTES = 24 };

static uint64_t bloom_payload_size(const tdbf *f)
{
    return BLOOM_FIELDS_BYTES + bloom_bytes(f->state.impl);
}

static void bloom_save(const tdbf *f, tdbf_out *out)
{
    const bloom *b = f->state.impl;
    tdbf_out_u32(out, b->k);
    tdbf_out_u32(out, b->blocked ? b->layout.block_bits : 0);
    tdbf_out_u64(out, b->m);
    tdbf_out_u64(out, b->capacity);
    tdbf_out_words(out, b->bits, tdbf_words_for_bits(b->m));
}

/* The planned FP is recomputed from the parameters, as open computes it. */
static int bloom_check(bloom *h, uint32_t block_bits)
{
    if (h->capacity < 1 || h->m < 1 || h->m > (UINT64_C(1) << 52))
        return TDBF_ECORRUPT;
    double n = (double)h->capacity, m = (double)h->m;
    if (block_bits == 0) {
        if (h->k < 1 || h->k > TDBF_MAX_K)
            return TDBF_ECORRUPT;
        h->fp_planned = pow(-expm1(-(double)h->k * n / m), (double)h->k);
        return TDBF_OK;
    }
    /* Open sizes blocks so a block's mean load stays below B. */
    if ((block_bits != TDBF_BLOCK_WORD && block_bits != TDBF_BLOCK_LINE) ||
        h->k < 1 || h->k > TDBF_MAX_BLOCK_HASHES || h->m % block_bits != 0 ||
        h->capacity / (h->m / block_bits) > block_bits)
        return TDBF_ECORRUPT;
    h->blocked = true;
    tdbf_block_layout_init(&h->layout, block_bits, h->k, h->m / block_bits);
    h->fp_planned = tdbf_apbbf_match_poisson(block_bits, h->k, n / (double)h->layout.blocks);
    return TDBF_OK;
}

static bool tail_clear(const void *state)
{
    const bloom *b = state;
    return tdbf_tail_clear(b->bits, b->m);
}

static int bloom_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    bloom h = {0};
    uint32_t block_bits;
    tdbf_in_u32(in, &h.k);
    tdbf_in_u32(in, &block_bits);
    tdbf_in_u64(in, &h.m);
    if (tdbf_in_u64(in, &h.capacity) != TDBF_OK)
        return in->rc;
    int rc = bloom_check(&h, block_bits);
    if (rc != TDBF_OK)
        return rc;
    if (in->remaining != bloom_bytes(&h))
        return TDBF_ECORRUPT;
    if (!tdbf_fits((double)bloom_bytes(&h) + sizeof(bloom), max_memory))
        return TDBF_ETOOBIG;
    keep_fp(&h, f->items);
    rc = tdbf_load_state(f, in, &h, sizeof h, offsetof(bloom, bits),
                         tdbf_words_for_bits(h.m), tail_clear);
    if (rc == TDBF_OK)
        use_specialised(f, f->state.impl);
    return rc;
}

const tdbf_ops tdbf_bloom_ops = {
    .plan = bloom_plan,
    .open = bloom_open,
    .close = bloom_close,
    .add = bloom_add,
    .contains = bloom_contains,
    .stats = bloom_stats,
    .shape = bloom_shape,
    .prefetch = bloom_prefetch,
    .current_error = bloom_current_error,
    .payload_size = bloom_payload_size,
    .save = bloom_save,
    .load = bloom_load,
};
