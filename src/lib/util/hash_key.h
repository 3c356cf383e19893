/*
 * hash_key.h — the key hash, for the translation units that inline it
 * (private; hash.c and filter.c).
 *
 * XXH3-128 of a 16-byte key is ~2 ns of arithmetic, about what a call into
 * hash.c around it costs (the call, the spills on either side, and the
 * length dispatch the compiler cannot fold without seeing the key
 * length).  filter.c's single-key calls hash inline through this header;
 * everything else calls tdbf_hash_key (hash.h), which is this same
 * function, so there is one definition of a key's hash.
 *
 * XXH3 wraps unsigned arithmetic on purpose: under clang's
 * -fsanitize=unsigned-integer-overflow (the sanitizer build) its inlined
 * functions are exempted here, as hash.o is in the Makefile, so the trap
 * still covers the code that includes this header.
 */
#ifndef TDBF_HASH_KEY_H
#define TDBF_HASH_KEY_H

#if defined(__clang__)
#pragma clang attribute push(__attribute__((no_sanitize("unsigned-integer-overflow"))), \
                             apply_to = function)
#endif
#define XXH_INLINE_ALL
#include <xxhash.h>
#if defined(__clang__)
#pragma clang attribute pop
#endif

#include "util/hash.h"

/* XXH3_128bits_withSeed is too big for the compiler to inline on its own
 * (a short-input path for each length class): a function marked
 * TDBF_HASH_INLINED has every call in it inlined (flatten), the hash's
 * short-input paths included, so a 16-byte key costs a predicted branch
 * on its length and the arithmetic; inputs above 240 bytes still call
 * out (XXH3 keeps those paths out of line).  For the single-key calls. */
#define TDBF_HASH_INLINED __attribute__((flatten))

/* The key's 128-bit hash with the filter's seed; the high half forced odd
 * (the stride of the double hashing).  key may be NULL when len is 0. */
static inline tdbf_hash128 tdbf_hash_key_inline(uint64_t seed, const void *key, size_t len)
{
    static const unsigned char empty[1] = {0};
    XXH128_hash_t x = XXH3_128bits_withSeed(len ? key : empty, len, seed);
    tdbf_hash128 h = {x.low64, x.high64 | 1u};
    return h;
}

#endif
