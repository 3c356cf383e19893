/*
 * block.h — addressing inside blocked Bloom filters (private).
 *
 * Shared by apbbf.c (one blocked filter per segment) and bloom.c's blocked
 * variant.  A key's block in an array of `blocks` blocks of B bits is
 * multiply-shift of a derived hash x: blocks * x / 2^64.  The low half of
 * that product, x * blocks mod 2^64, is what is left of x's randomness;
 * the block is split into b parts (part j covers bits floor(jB/b) ..
 * floor((j+1)B/b) - 1, one bit set per part: b distinct bits, for which
 * the match model (1 - (1 - b/B)^X)^b is exact), and the offsets inside
 * the parts are read from the leftover in turn the same way (offset =
 * size * y / 2^64, then y = size * y mod 2^64: the digits of x in a mixed
 * radix).  Each digit costs log2(radix) bits; once DIGIT_BUDGET bits are
 * used the digits continue from a fresh derived hash, which keeps each
 * digit within 2^-16 of uniform.  No division anywhere.
 */
#ifndef TDBF_BLOCK_H
#define TDBF_BLOCK_H

#include "tdbf.h"
#include "util/bits.h"
#include "util/hash.h"

typedef struct tdbf_block_layout {
    uint64_t blocks;        /* blocks in the array */
    unsigned block_bits;    /* B: 64 or 512 */
    unsigned block_words;   /* B / 64 */
    unsigned block_hashes;  /* b: bits set per key in its block */
    uint32_t fresh;         /* bit j: part j's digit starts a new hash */
    uint16_t part_start[TDBF_MAX_BLOCK_HASHES];
    uint16_t part_size[TDBF_MAX_BLOCK_HASHES];
} tdbf_block_layout;

/* Part bounds, and which parts start a fresh derived hash. */
void tdbf_block_layout_init(tdbf_block_layout *layout, unsigned block_bits,
                            unsigned block_hashes, uint64_t blocks);

/* A key's digits: the derived hashes h_{first}, h_{first + stride}, ... */
typedef struct tdbf_block_digits {
    const tdbf_hash128 *hash;
    uint64_t first;
    uint64_t stride;
    uint64_t draws;
    uint64_t rest;          /* randomness left in the current hash */
} tdbf_block_digits;

/* Index of the key's block; starts the digits for its bits. */
static inline uint64_t tdbf_block_pick(const tdbf_block_layout *layout,
                                       const tdbf_hash128 *h, uint64_t first,
                                       uint64_t stride, tdbf_block_digits *d)
{
    tdbf_u128 product = tdbf_mul_wide(tdbf_hash_nth(h, first), layout->blocks);
    d->hash = h;
    d->first = first;
    d->stride = stride;
    d->draws = 0;
    d->rest = product.lo;
    return product.hi;
}

/* The key's bit in part j of its block (call for j = 0, 1, .. in order). */
static inline unsigned tdbf_block_bit(const tdbf_block_layout *layout,
                                      unsigned j, tdbf_block_digits *d)
{
    if (layout->fresh >> j & 1u)
        d->rest = tdbf_hash_nth(d->hash, d->first + d->stride * ++d->draws);
    tdbf_u128 product = tdbf_mul_wide(d->rest, layout->part_size[j]);
    d->rest = product.lo;
    return layout->part_start[j] + (unsigned)product.hi;
}

/* All b bits of the key set in `block`?  Every bit is read, without an
 * early exit: a bit is set about half the time, so an exit per bit
 * mispredicts, and b reads of one cache line cost less than that. */
static inline int tdbf_block_has(const tdbf_block_layout *layout,
                                 const uint64_t *block, tdbf_block_digits *d)
{
    uint64_t missing = 0;
    for (unsigned j = 0; j < layout->block_hashes; j++) {
        unsigned bit = tdbf_block_bit(layout, j, d);
        missing |= ~block[bit >> 6] >> (bit & 63);
    }
    return (int)(~missing & 1);
}

static inline void tdbf_block_set(const tdbf_block_layout *layout,
                                  uint64_t *block, tdbf_block_digits *d)
{
    for (unsigned j = 0; j < layout->block_hashes; j++)
        tdbf_bit_set(block, tdbf_block_bit(layout, j, d));
}

#endif
