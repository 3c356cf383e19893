/*
 * bits.c — bit-array helpers shared by every design.
 */
#include "internal.h"

uint64_t tdbf_popcount(const uint64_t *words, uint64_t nwords)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < nwords; i++)
        total += (uint64_t)__builtin_popcountll(words[i]);
    return total;
}
