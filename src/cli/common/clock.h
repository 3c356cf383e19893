/*
 * clock.h — the monotonic clock and chunked timings (median ns/op) (the tdbf command-line tool).
 */
#ifndef TDBF_CLI_COMMON_CLOCK_H
#define TDBF_CLI_COMMON_CLOCK_H

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

#endif /* TDBF_CLI_COMMON_CLOCK_H */
