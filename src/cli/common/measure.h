/*
 * measure.h — what the experiments measure with: the monotonic clock,
 * chunked timings (median ns/op) and the pseudo-random numbers of
 * generated workloads (the tdbf command-line tools).
 */
#ifndef TDBF_CLI_COMMON_MEASURE_H
#define TDBF_CLI_COMMON_MEASURE_H

#include <stddef.h>
#include <stdint.h>

/* ======================================================================
 * Clock
 * ====================================================================== */

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t cli_now_ns(void);

/* Timings of a measurement cut into chunks of operations (the clock is
 * read once per chunk).  Reported as the median ns/op over the chunks: on
 * a shared machine a chunk that lost a time slice to another process (a
 * few ms) is an outlier the median ignores, where the mean would absorb
 * it.  Start zeroed ({0}); reset between measurements keeps the memory. */
typedef struct cli_chunk_times {
    double *ns_per_op;       /* one entry per chunk */
    size_t  count, capacity;
} cli_chunk_times;

/* Record a chunk of `ops` operations (>= 1) that took `elapsed_ns`.
 * Returns 0, or -1 when out of memory. */
int cli_chunk_times_add(cli_chunk_times *t, uint64_t elapsed_ns, uint64_t ops);
/* The median ns/op over the chunks recorded (sorts them); NaN if none. */
double cli_chunk_times_median(cli_chunk_times *t);
/* Forget the chunks recorded (the memory is kept for the next). */
void cli_chunk_times_reset(cli_chunk_times *t);
void cli_chunk_times_free(cli_chunk_times *t);

/* ======================================================================
 * Pseudo-random numbers for generated workloads (not for secrets)
 * ====================================================================== */

/* MurmurHash3's 64-bit finalizer: a bijective scramble of x. */
uint64_t cli_mix64(uint64_t x);
/* The next number of the sequence *state: adds the golden-ratio increment
 * 0x9e3779b97f4a7c15 to *state and returns it scrambled by cli_mix64.
 * Any seed, 0 included, gives a full-period sequence. */
uint64_t cli_rng_next(uint64_t *state);

#endif /* TDBF_CLI_COMMON_MEASURE_H */
