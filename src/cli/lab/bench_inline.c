/*
 * bench_inline.c — a classic Bloom filter written inline, the baseline of
 * `tdbf-lab bench` (bench_inline.h).
 *
 * Everything a hand-written filter would do and nothing more: the key is
 * hashed once with XXH3-128 (libxxhash with XXH_INLINE_ALL, as the library
 * does, with the same per-filter seed and the high half forced odd), the
 * k indices are Kirsch-Mitzenmacher double hashes x_i = lo + i*hi, each
 * remixed by one multiply-xorshift round as the library derives its
 * indices (src/lib/util/hash.h explains why), mapped into [0, m) by
 * multiply-shift; an add is one pass that tests and sets each bit, a
 * query stops at the first clear bit (the textbook loop).  So it sets
 * exactly the bits the library's classic `bloom` sets for the same keys,
 * and the difference in add time is the library's generic path alone.  The timed
 * loops live in this file with the filter, so the compiler inlines the
 * hash and the bit work into them: no call per key.
 *
 * (Without the remix, plain lo + i*hi, an add measured 2.5 ns less at
 * w = 10^6, error 0.01: the price of the remix, paid by every design.)
 *
 * The batch loop hashes a group of keys first, then handles them in order
 * with the words of the key PREFETCH_AHEAD places ahead requested — what
 * the library's batch calls do for its classic `bloom` design.
 *
 * Its bit array gets the same transparent-huge-page advice the library
 * gives its filters (alloc.c), so neither side pays page walks the other
 * does not.
 */
#if defined(__linux__)
#define _DEFAULT_SOURCE
#include <sys/mman.h>
#endif
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bench_inline.h"
#include "../../lib/util/wide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { INLINE_MAX_K = 64, GROUP = 256, PREFETCH_AHEAD = 8 };

struct inline_bloom {
    uint64_t  m;       /* bits */
    unsigned  k;       /* indices per key */
    uint64_t  seed;
    uint64_t *words;   /* ceil(m / 64), 64-byte aligned */
};

typedef struct key_hash {
    uint64_t lo, hi;   /* hi odd: the stride of the double hashing */
} key_hash;

static inline key_hash hash_key(const inline_bloom *b, const void *key, size_t len)
{
    XXH128_hash_t x = XXH3_128bits_withSeed(key, len, b->seed);
    key_hash h = {x.low64, x.high64 | 1u};
    return h;
}

/* Bit i of the key: (x_i * m) >> 64, x_i = lo + i*hi remixed (wraps on
 * purpose). */
static inline uint64_t bit_index(const inline_bloom *b, const key_hash *h, unsigned i)
{
    uint64_t x = h->lo + (uint64_t)i * h->hi;
    x ^= x >> 32;
    x *= UINT64_C(0xd6e8feb86659fd93);
    x ^= x >> 32;
    return tdbf_reduce(x, b->m);
}

static inline int test_and_set(inline_bloom *b, const key_hash *h)
{
    uint64_t all = 1;
    for (unsigned i = 0; i < b->k; i++) {
        uint64_t bit = bit_index(b, h, i);
        uint64_t *word = &b->words[bit >> 6];
        all &= *word >> (bit & 63);
        *word |= UINT64_C(1) << (bit & 63);
    }
    return (int)(all & 1);
}

static inline int query(const inline_bloom *b, const key_hash *h)
{
    for (unsigned i = 0; i < b->k; i++) {
        uint64_t bit = bit_index(b, h, i);
        if (!(b->words[bit >> 6] >> (bit & 63) & 1))
            return 0;
    }
    return 1;
}

static inline void prefetch_key(const inline_bloom *b, const key_hash *h, int insert)
{
    for (unsigned i = 0; i < b->k; i++) {
        const uint64_t *word = &b->words[bit_index(b, h, i) >> 6];
        if (insert)
            __builtin_prefetch(word, 1, 3);
        else
            __builtin_prefetch(word, 0, 3);
    }
}

inline_bloom *inline_bloom_new(uint64_t window, double error, uint64_t seed)
{
    inline_bloom *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    double n = (double)window, ln2 = log(2.0);
    double m = ceil(-n * log(error) / (ln2 * ln2));
    long k = lround(m / n * ln2);
    b->m = (uint64_t)m;
    b->k = k < 1 ? 1u : k > INLINE_MAX_K ? (unsigned)INLINE_MAX_K : (unsigned)k;
    b->seed = seed;
    size_t bytes = (size_t)((b->m + 511) / 512 * 64);
    size_t huge = (size_t)2 << 20;
    bytes = bytes >= 4 * huge ? (bytes + huge - 1) / huge * huge : bytes;
    b->words = aligned_alloc(bytes >= 4 * huge ? huge : 64, bytes);
    if (b->words == NULL) {
        free(b);
        return NULL;
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= 4 * huge)
        (void)madvise(b->words, bytes, MADV_HUGEPAGE);
#endif
    memset(b->words, 0, bytes);
    return b;
}

void inline_bloom_free(inline_bloom *b)
{
    if (b == NULL)
        return;
    free(b->words);
    free(b);
}

void inline_bloom_clear(inline_bloom *b)
{
    memset(b->words, 0, (size_t)((b->m + 511) / 512 * 64));
}

uint64_t inline_bloom_bits(const inline_bloom *b)
{
    return b->m;
}

unsigned inline_bloom_hashes(const inline_bloom *b)
{
    return b->k;
}

int inline_bloom_add(inline_bloom *b, const void *key, size_t len)
{
    key_hash h = hash_key(b, key, len);
    return test_and_set(b, &h);
}

int inline_bloom_contains(const inline_bloom *b, const void *key, size_t len)
{
    key_hash h = hash_key(b, key, len);
    return query(b, &h);
}

static uint64_t run_single(inline_bloom *b, int insert, const void *const *keys,
                           size_t n, size_t len)
{
    uint64_t yes = 0;
    if (insert) {
        for (size_t i = 0; i < n; i++) {
            key_hash h = hash_key(b, keys[i], len);
            yes += (uint64_t)test_and_set(b, &h);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            key_hash h = hash_key(b, keys[i], len);
            yes += (uint64_t)query(b, &h);
        }
    }
    return yes;
}

/* One group of at most GROUP keys: hash all, then answer in order with
 * the words of key i + PREFETCH_AHEAD requested.  The answers go to an
 * array first, as a batch call's do, and are counted from it. */
static uint64_t run_group(inline_bloom *b, int insert, const void *const *keys,
                          size_t count, size_t len)
{
    key_hash hash[GROUP];
    unsigned char answer[GROUP];
    for (size_t i = 0; i < count; i++)
        hash[i] = hash_key(b, keys[i], len);
    for (size_t i = 0; i < count && i < PREFETCH_AHEAD; i++)
        prefetch_key(b, &hash[i], insert);
    for (size_t i = 0; i < count; i++) {
        if (i + PREFETCH_AHEAD < count)
            prefetch_key(b, &hash[i + PREFETCH_AHEAD], insert);
        answer[i] = (unsigned char)(insert ? test_and_set(b, &hash[i]) : query(b, &hash[i]));
    }
    uint64_t yes = 0;
    for (size_t i = 0; i < count; i++)
        yes += answer[i];
    return yes;
}

uint64_t inline_bloom_run(inline_bloom *b, int insert, const void *const *keys,
                          size_t n, size_t len, size_t batch)
{
    if (batch == 0)
        return run_single(b, insert, keys, n, len);
    uint64_t yes = 0;
    for (size_t i = 0; i < n; i += batch) {
        size_t count = n - i < batch ? n - i : batch;
        for (size_t g = 0; g < count; g += GROUP)
            yes += run_group(b, insert, keys + i + g,
                             count - g < GROUP ? count - g : GROUP, len);
    }
    return yes;
}
