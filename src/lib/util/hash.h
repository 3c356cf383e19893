/*
 * hash.h — the one hash per key, and index derivation (private).
 *
 * Every design hashes a key exactly once, with XXH3-128 seeded per filter,
 * and derives all its indices from the two 64-bit halves (Kirsch &
 * Mitzenmacher double hashing: x_j = lo + j*hi, then remixed).  Indices are mapped into
 * [0, n) by multiply-shift (Lemire's "fastrange": (x * n) >> 64), which uses
 * the high bits of x and needs no division.
 */
#ifndef TDBF_HASH_H
#define TDBF_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "util/wide.h"   /* tdbf_reduce: the multiply-shift */

typedef struct tdbf_hash128 {
    uint64_t lo;
    uint64_t hi;   /* forced odd: the stride of the double hashing */
} tdbf_hash128;

/* A key as the designs see it: its bytes and its one hash. */
typedef struct tdbf_key {
    const void  *bytes;
    size_t       len;
    tdbf_hash128 hash;
} tdbf_key;

/* Hash `len` bytes at `key` with `seed`.  key may be NULL when len is 0. */
tdbf_hash128 tdbf_hash_key(uint64_t seed, const void *key, size_t len);

/* Hashing wraps around on purpose: exempt from clang's unsigned-overflow
 * check (the sanitizer builds). */
#if defined(__clang__)
#define TDBF_WRAPS __attribute__((no_sanitize("unsigned-integer-overflow")))
#else
#define TDBF_WRAPS
#endif

/* A 64-bit mixer (splitmix64 finalizer) for deriving seeds, and the
 * planner's model's stream of uniforms (inline: millions of calls a
 * plan). */
TDBF_WRAPS static inline uint64_t tdbf_mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* The remix's multiplier (apbf_line/simd.c repeats the round in vector lanes). */
#define TDBF_REMIX_MULTIPLIER UINT64_C(0xd6e8feb86659fd93)

/* The j-th derived 64-bit hash of a key.  Plain double hashing lo + j*hi
 * fixes a key's whole index tuple by two numbers; reduced into a small
 * range (a slice of a few hundred bits) tuples of different keys then
 * coincide far more often than independent hashes would, and a 100-key
 * APBF window measured 3x its planned FP.  One multiply-xorshift round per
 * index breaks that structure (measured back on plan). */
TDBF_WRAPS static inline uint64_t tdbf_hash_nth(const tdbf_hash128 *h, uint64_t j)
{
    uint64_t x = h->lo + j * h->hi;
    x ^= x >> 32;
    x *= TDBF_REMIX_MULTIPLIER;
    x ^= x >> 32;
    return x;
}

/* Streaming XXH3-64 of serialized data.  Opaque storage large enough for
 * XXH3_state_t (hash.c checks), so no allocation is needed. */
typedef struct tdbf_checksum {
    _Alignas(64) unsigned char state[640];
} tdbf_checksum;

void tdbf_checksum_init(tdbf_checksum *c);
void tdbf_checksum_update(tdbf_checksum *c, const void *buf, size_t len);
uint64_t tdbf_checksum_value(const tdbf_checksum *c);

#endif
