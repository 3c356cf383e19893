/*
 * rng.c — pseudo-random numbers for generated workloads (see rng.h).
 */
#include "rng.h"

uint64_t cli_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    return x ^ (x >> 33);
}

uint64_t cli_rng_next(uint64_t *state)
{
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return cli_mix64(*state);
}
