/*
 * rng.h — pseudo-random numbers for generated workloads (the tdbf command-line tool).
 */
#ifndef TDBF_CLI_COMMON_RNG_H
#define TDBF_CLI_COMMON_RNG_H

#include <stdint.h>

/* ======================================================================
 * Pseudo-random numbers for generated workloads (not for secrets)
 * ====================================================================== */

/* MurmurHash3's 64-bit finalizer: a bijective scramble of x. */
uint64_t cli_mix64(uint64_t x);
/* The next number of the sequence *state: adds the golden-ratio increment
 * 0x9e3779b97f4a7c15 to *state and returns it scrambled by cli_mix64.
 * Any seed, 0 included, gives a full-period sequence. */
uint64_t cli_rng_next(uint64_t *state);

#endif /* TDBF_CLI_COMMON_RNG_H */
