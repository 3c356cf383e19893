/*
 * bench_inline.h — the inline Bloom filter `tdbf-lab bench` measures every
 * design against (bench_inline.c).
 *
 * A classic Bloom filter written the way a program that needs nothing else
 * would write it: no library, no dispatch, no clock, no counters; the key
 * hashed with XXH3-128 inlined, k indices by double hashing, a
 * test-and-set add.  What tdbf's own `bloom` design costs on top of it is
 * the price of the generic API.
 */
#ifndef TDBF_CLI_BENCH_INLINE_H
#define TDBF_CLI_BENCH_INLINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct inline_bloom inline_bloom;

/* A filter sized as tdbf's classic `bloom` design for `window` keys at
 * rate `error` (m = ceil(-n ln e / ln^2 2), k = round(m/n ln 2)), hashing
 * with `seed`; NULL if out of memory. */
inline_bloom *inline_bloom_new(uint64_t window, double error, uint64_t seed);
void inline_bloom_free(inline_bloom *b);

/* Forget every key (all bits zero). */
void inline_bloom_clear(inline_bloom *b);

uint64_t inline_bloom_bits(const inline_bloom *b);   /* m */
unsigned inline_bloom_hashes(const inline_bloom *b); /* k */

/* One key, one call: the add (returns 1 if the key was already there,
 * else 0) and the query (1 yes, 0 no) a program would call per key.
 * Out of line on purpose, like tdbf_add and tdbf_contains, so that timing
 * each call compares call with call. */
int inline_bloom_add(inline_bloom *b, const void *key, size_t len);
int inline_bloom_contains(const inline_bloom *b, const void *key, size_t len);

/* Test-and-set add (insert != 0) or query of keys[0 .. n-1], each `len`
 * bytes, one call per key (batch == 0) or `batch` keys at a time (hashed
 * first, then their words prefetched a few keys ahead, like the
 * library's batch calls).  Returns the number of yes answers: each answer
 * is used, so no work can be optimised away. */
uint64_t inline_bloom_run(inline_bloom *b, int insert, const void *const *keys,
                          size_t n, size_t len, size_t batch);

#endif
