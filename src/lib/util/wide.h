/*
 * wide.h — 64 x 64 -> 128-bit arithmetic, on every target (private,
 * header-only).
 *
 * Index mapping (Lemire's multiply-shift: (x * n) >> 64, see hash.h), the
 * blocked filters' mixed-radix digits (block.h) and apbf-line's rolling
 * turns all need the full product of two 64-bit numbers, and the turns
 * divide such a product by a 64-bit number.  GCC and clang give a native
 * `unsigned __int128` on 64-bit targets only; i686, armhf and the other
 * 32-bit targets have none.  So each operation here has two paths:
 *
 *   native    unsigned __int128, where the compiler defines
 *             __SIZEOF_INT128__ (one MUL / UMULH instruction);
 *   portable  32-bit halves (schoolbook multiplication, restoring
 *             division), used where __SIZEOF_INT128__ is absent or when
 *             TDBF_NO_INT128 is defined, which the tests use to run the
 *             portable path on x86-64 too (`make test-portable`).
 *
 * Both paths return the same bits for every operand (the tests compare
 * them on random and edge operands), so a filter built on i686 sets the
 * same bits and saves the same bytes as one built on x86-64.
 *
 * The portable path never relies on unsigned wrap-around (the sanitizer
 * builds trap it outside hashing): every partial sum is bounded below
 * 2^64 by construction, as the comments show.
 *
 * The header includes <stdint.h> only and holds static inline functions
 * and no state, so the command-line tool's lab, which may include no
 * other private header of the library (scripts/check-wall.sh names this
 * one as the only exception), reuses it rather than keeping a copy.
 */
#ifndef TDBF_WIDE_H
#define TDBF_WIDE_H

#include <stdint.h>

#if defined(__SIZEOF_INT128__) && !defined(TDBF_NO_INT128)
#define TDBF_WIDE_NATIVE 1
#else
#define TDBF_WIDE_NATIVE 0
#endif

/* A 128-bit unsigned number as two 64-bit halves. */
typedef struct tdbf_u128 {
    uint64_t hi;
    uint64_t lo;
} tdbf_u128;

/* ---- portable path: 32-bit halves ----------------------------------- */

#define TDBF_LOW32(x) ((x) & UINT64_C(0xffffffff))

/* a * b from four 32 x 32 -> 64 products (each < 2^64).  The middle
 * column (carry of the low product plus the low halves of the cross
 * products) is < 3 * 2^32; the high half is exact, so its sum never
 * exceeds 2^64 - 1. */
static inline tdbf_u128 tdbf_mul_wide_portable(uint64_t a, uint64_t b)
{
    uint64_t a_lo = TDBF_LOW32(a), a_hi = a >> 32;
    uint64_t b_lo = TDBF_LOW32(b), b_hi = b >> 32;
    uint64_t lo_lo = a_lo * b_lo;
    uint64_t hi_lo = a_hi * b_lo;
    uint64_t lo_hi = a_lo * b_hi;
    uint64_t hi_hi = a_hi * b_hi;
    uint64_t middle = (lo_lo >> 32) + TDBF_LOW32(hi_lo) + TDBF_LOW32(lo_hi);
    tdbf_u128 product;
    product.hi = hi_hi + (hi_lo >> 32) + (lo_hi >> 32) + (middle >> 32);
    product.lo = (TDBF_LOW32(middle) << 32) | TDBF_LOW32(lo_lo);
    return product;
}

/* n / d and n % d for n.hi < d (so the quotient fits in 64 bits), one
 * quotient bit a step (restoring division).  The running remainder r
 * stays < d; shifted left it may need 65 bits: then 2^64 + r' >= d and
 * the difference, below d, is formed as r' + (2^64 - 1 - d) + 1. */
static inline uint64_t tdbf_div_wide_portable(tdbf_u128 n, uint64_t d, uint64_t *remainder)
{
    uint64_t rest = n.hi;
    uint64_t quotient = 0;
    for (int bit = 63; bit >= 0; bit--) {
        uint64_t carry = rest >> 63;
        rest = (rest << 1) | (n.lo >> bit & 1u);
        quotient <<= 1;
        if (carry) {
            rest = rest + (UINT64_MAX - d) + 1u;
            quotient |= 1u;
        } else if (rest >= d) {
            rest -= d;
            quotient |= 1u;
        }
    }
    *remainder = rest;
    return quotient;
}

/* n + x; the caller guarantees the sum fits in 128 bits. */
static inline tdbf_u128 tdbf_add_wide_portable(tdbf_u128 n, uint64_t x)
{
    if (x > UINT64_MAX - n.lo) {
        n.lo = x - (UINT64_MAX - n.lo) - 1u;
        n.hi++;
    } else {
        n.lo += x;
    }
    return n;
}

/* ---- native path: unsigned __int128 ---------------------------------- */

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 tdbf_native_u128;

static inline tdbf_native_u128 tdbf_u128_to_native(tdbf_u128 n)
{
    return (tdbf_native_u128)n.hi << 64 | n.lo;
}

static inline tdbf_u128 tdbf_u128_from_native(tdbf_native_u128 n)
{
    tdbf_u128 out;
    out.hi = (uint64_t)(n >> 64);
    out.lo = (uint64_t)n;
    return out;
}

static inline tdbf_u128 tdbf_mul_wide_native(uint64_t a, uint64_t b)
{
    return tdbf_u128_from_native((tdbf_native_u128)a * b);
}

static inline uint64_t tdbf_div_wide_native(tdbf_u128 n, uint64_t d, uint64_t *remainder)
{
    tdbf_native_u128 wide = tdbf_u128_to_native(n);
    *remainder = (uint64_t)(wide % d);
    return (uint64_t)(wide / d);
}

static inline tdbf_u128 tdbf_add_wide_native(tdbf_u128 n, uint64_t x)
{
    return tdbf_u128_from_native(tdbf_u128_to_native(n) + x);
}
#endif

/* ---- the operations the code calls ----------------------------------- */

#if TDBF_WIDE_NATIVE
#define TDBF_WIDE_PATH(operation) operation##_native
#else
#define TDBF_WIDE_PATH(operation) operation##_portable
#endif

/* The full 128-bit product a * b. */
static inline tdbf_u128 tdbf_mul_wide(uint64_t a, uint64_t b)
{
    return TDBF_WIDE_PATH(tdbf_mul_wide)(a, b);
}

/* The high 64 bits of a * b. */
static inline uint64_t tdbf_mul_hi64(uint64_t a, uint64_t b)
{
    return tdbf_mul_wide(a, b).hi;
}

/* Map a uniform 64-bit x to [0, n) by multiply-shift, (x * n) >> 64:
 * the high bits of x pick the index, with no division and no modulo
 * bias beyond n / 2^64. */
static inline uint64_t tdbf_reduce(uint64_t x, uint64_t n)
{
    return tdbf_mul_hi64(x, n);
}

/* n + x (the sum must fit in 128 bits). */
static inline tdbf_u128 tdbf_add_wide(tdbf_u128 n, uint64_t x)
{
    return TDBF_WIDE_PATH(tdbf_add_wide)(n, x);
}

/* n / d, and n % d in *remainder.  Requires d > 0 and n.hi < d, so the
 * quotient fits in 64 bits. */
static inline uint64_t tdbf_div_wide(tdbf_u128 n, uint64_t d, uint64_t *remainder)
{
    return TDBF_WIDE_PATH(tdbf_div_wide)(n, d, remainder);
}

#endif /* TDBF_WIDE_H */
