/*
 * bits.h — bit arrays, packed cell arrays and prefetching (private;
 * bits.c).
 */
#ifndef TDBF_BITS_H
#define TDBF_BITS_H

#include <stdint.h>

#include "tdbf.h"

/* ---- bit arrays (bits.c): arrays of 64-bit words ---- */
static inline int tdbf_bit_get(const uint64_t *words, uint64_t bit)
{
    return (int)((words[bit >> 6] >> (bit & 63)) & 1u);
}
static inline void tdbf_bit_set(uint64_t *words, uint64_t bit)
{
    words[bit >> 6] |= UINT64_C(1) << (bit & 63);
}
static inline uint64_t tdbf_words_for_bits(uint64_t bits)
{
    return (bits + 63) / 64;
}

/* ---- packed cell arrays (bits.c): `count` cells of `bits` bits each
 * (1..64), back to back from bit 0 of word 0, so a cell may straddle two
 * words.  Cell i holds bits i*bits .. i*bits + bits - 1.  Created zeroed,
 * 64-byte aligned, through the filter's allocator. ---- */
typedef struct tdbf_cells {
    uint64_t *words;
    uint64_t  count;  /* cells */
    uint64_t  mask;   /* 2^bits - 1 */
    unsigned  bits;   /* bits per cell */
} tdbf_cells;
/* Bytes of the word array (a double, to check against the memory cap
 * before allocating). */
double tdbf_cells_bytes(uint64_t count, unsigned bits);
/* TDBF_OK, TDBF_EPARAM (bits not in 1..64, count 0 or above 2^52) or
 * TDBF_ENOMEM. */
int  tdbf_cells_open(tdbf *f, tdbf_cells *cells, uint64_t count, unsigned bits);
void tdbf_cells_close(tdbf *f, tdbf_cells *cells);
static inline uint64_t tdbf_cell_get(const tdbf_cells *c, uint64_t i)
{
    uint64_t bit = i * c->bits;
    uint64_t word = bit >> 6;
    unsigned shift = (unsigned)(bit & 63);
    uint64_t value = c->words[word] >> shift;
    if (shift + c->bits > 64)
        value |= c->words[word + 1] << (64 - shift);
    return value & c->mask;
}
static inline void tdbf_cell_set(tdbf_cells *c, uint64_t i, uint64_t value)
{
    uint64_t bit = i * c->bits;
    uint64_t word = bit >> 6;
    unsigned shift = (unsigned)(bit & 63);
    value &= c->mask;
    c->words[word] = (c->words[word] & ~(c->mask << shift)) | (value << shift);
    if (shift + c->bits > 64) {
        unsigned low = 64 - shift; /* bits that went into `word` */
        c->words[word + 1] = (c->words[word + 1] & ~(c->mask >> low)) | (value >> low);
    }
}
/* Ask for the cache line holding p (__builtin_prefetch wants a constant
 * read/write flag, hence the branch).
 *
 * A design's prefetch helpers must be TDBF_ALWAYS_INLINE all the way up to
 * its ops->prefetch callback: GCC treats __builtin_prefetch as having no
 * effect, so its IPA pure-const pass finds a separate helper that only
 * prefetches "const" and deletes every call to it, and the batch calls
 * then run no faster than single ones without any test noticing.  So
 * scripts/check-prefetch.sh, run by `make test`, fails the build when a
 * batch callback (*_prefetch, *_contains_many, *_add_many) or a single
 * call of APBF or APBBF that asks ahead has no prefetch instruction. */
#define TDBF_ALWAYS_INLINE __attribute__((always_inline)) inline
static TDBF_ALWAYS_INLINE void tdbf_prefetch(const void *p, int for_write)
{
    if (for_write)
        __builtin_prefetch(p, 1, 3);
    else
        __builtin_prefetch(p, 0, 3);
}

/* Number of set bits in words[0 .. nwords-1]. */
uint64_t tdbf_popcount(const uint64_t *words, uint64_t nwords);

#endif
