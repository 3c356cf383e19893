/*
 * workload.h — the one stream generator of the lab (eval, bench, demo):
 * keys made from numbers, a Zipf sampler, and streams of key ids that
 * come back (repeats).  Every draw comes from common/measure.h's generator,
 * so a seed fixes a whole experiment.
 */
#ifndef TDBF_CLI_LAB_WORKLOAD_H
#define TDBF_CLI_LAB_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

/* ---- keys --------------------------------------------------------------- */

#define LAB_KEY16_BYTES  16
/* The longest key lab_key_text writes. */
#define LAB_KEY_TEXT_MAX 48

/* Key `id` as its 8 bytes, little-endian on every platform. */
void lab_key_u64(uint64_t id, unsigned char out[8]);

/* Key `id` of the key stream `seed`: 16 pseudo-random bytes (two
 * cli_mix64 words), distinct for distinct ids with overwhelming
 * probability. */
void lab_key16(uint64_t seed, uint64_t id, unsigned char out[LAB_KEY16_BYTES]);

/* The text key of a rank, "user:<id>/page:<rank>": a stable pseudo-random
 * user id (so that popular keys are not neighbours) and the rank itself
 * (so that keys are distinct).  Writes at most LAB_KEY_TEXT_MAX bytes, no
 * terminator; returns the length. */
size_t lab_key_text(char *out, uint64_t rank, uint64_t salt);

/* ---- random reals and ranks ----------------------------------------------- */

/* Uniform in [0, 1) with 53 random bits of cli_rng_next(state). */
double lab_uniform(uint64_t *state);

/* Zipf(s) over ranks 1..n, P(r) proportional to r^-s (s = 0: uniform), by
 * rejection-inversion (workload.c): O(1) memory, about 1.1 draws per rank. */
typedef struct lab_zipf {
    uint64_t n;
    double   s;
    double   lower;      /* H(3/2) - h(1) */
    double   upper;      /* H(n + 1/2) */
    double   squeeze;    /* 2 - H^-1(H(5/2) - h(2)) */
} lab_zipf;

void lab_zipf_init(lab_zipf *z, uint64_t n, double s);
/* A rank in 1..n. */
uint64_t lab_zipf_next(const lab_zipf *z, uint64_t *state);

/* ---- streams of key ids ------------------------------------------------- */

/* ids[0 .. n-1] uniform over 0 .. universe-1.  Returns the first id never
 * drawn (universe). */
uint64_t lab_ids_uniform(uint32_t *ids, uint64_t n, uint64_t universe, uint64_t seed);

/* Repeats: with probability 1/2 event i replays the id of event i - d, d
 * uniform in 1..max_back (when there is one), otherwise it takes the next
 * new id.  Returns the first id never used. */
uint64_t lab_ids_replay(uint32_t *ids, uint64_t n, uint64_t max_back, uint64_t seed);

#endif /* TDBF_CLI_LAB_WORKLOAD_H */
