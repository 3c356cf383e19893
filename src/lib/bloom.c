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
 */
#include <math.h>

#include "internal.h"

typedef struct bloom {
    uint64_t  m;          /* bits */
    unsigned  k;          /* indices per key */
    uint64_t  capacity;   /* n: keys it was sized for */
    double    fp_planned; /* FP at capacity */
    uint64_t *bits;
} bloom;

static size_t bloom_bytes(const bloom *b)
{
    return (size_t)tdbf_words_for_bits(b->m) * sizeof(uint64_t);
}

static int query(const bloom *b, const tdbf_hash128 *h)
{
    for (unsigned i = 0; i < b->k; i++)
        if (!tdbf_bit_get(b->bits, tdbf_reduce(tdbf_hash_nth(h, i), b->m)))
            return 0;
    return 1;
}

static int bloom_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    bloom *b = f->impl;
    int present = query(b, &key->hash);
    for (unsigned i = 0; i < b->k; i++)
        tdbf_bit_set(b->bits, tdbf_reduce(tdbf_hash_nth(&key->hash, i), b->m));
    return present;
}

static int bloom_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    return query(f->impl, &key->hash);
}

static int bloom_open(tdbf *f, const tdbf_config *cfg)
{
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    if (cfg->l != 0 || cfg->k > TDBF_MAX_K)
        return TDBF_EPARAM;
    double n = (double)cfg->window_items;
    double m = ceil(-n * log(cfg->error) / (TDBF_LN2 * TDBF_LN2));
    if (!tdbf_fits(m / 8.0 + sizeof(bloom), cfg->max_memory))
        return TDBF_ETOOBIG;
    unsigned k = cfg->k ? cfg->k : (unsigned)lround(m / n * TDBF_LN2);
    if (k < 1)
        k = 1;
    if (k > TDBF_MAX_K)
        k = TDBF_MAX_K;

    bloom *b = tdbf_mem_calloc(f, 1, sizeof *b);
    if (!b)
        return TDBF_ENOMEM;
    b->m = (uint64_t)m;
    b->k = k;
    b->capacity = cfg->window_items;
    b->fp_planned = pow(-expm1(-(double)k * n / m), (double)k);
    b->bits = tdbf_mem_calloc_aligned(f, bloom_bytes(b));
    if (!b->bits) {
        tdbf_mem_free(f, b, sizeof *b);
        return TDBF_ENOMEM;
    }
    f->impl = b;
    return TDBF_OK;
}

static void bloom_close(tdbf *f)
{
    bloom *b = f->impl;
    tdbf_mem_free_aligned(f, b->bits, bloom_bytes(b));
    tdbf_mem_free(f, b, sizeof *b);
}

static void bloom_stats(const tdbf *f, tdbf_stats *st)
{
    const bloom *b = f->impl;
    double fill = (double)tdbf_popcount(b->bits, tdbf_words_for_bits(b->m)) / (double)b->m;
    st->k = b->k;
    st->slices = 1;
    st->slice_bits = b->m;
    st->window_items = b->capacity;
    st->error_planned = b->fp_planned;
    st->error_estimated = pow(fill, (double)b->k);
}

const tdbf_ops tdbf_bloom_ops = {
    .open = bloom_open,
    .close = bloom_close,
    .add = bloom_add,
    .contains = bloom_contains,
    .stats = bloom_stats,
};
