/*
 * measure.c — what the experiments measure with: the monotonic clock,
 * chunked timings (median ns/op) and the pseudo-random numbers of
 * generated workloads (the tdbf command-line tools).
 */
#define _POSIX_C_SOURCE 200809L
#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ======================================================================
 * The monotonic clock and chunked timings (median ns/op).
 * ====================================================================== */

uint64_t cli_now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

int cli_chunk_times_add(cli_chunk_times *t, uint64_t elapsed_ns, uint64_t ops)
{
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? 2 * t->capacity : 1024;
        double *grown = realloc(t->ns_per_op, capacity * sizeof *grown);
        if (grown == NULL)
            return -1;
        t->ns_per_op = grown;
        t->capacity = capacity;
    }
    t->ns_per_op[t->count++] = (double)elapsed_ns / (double)ops;
    return 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cli_chunk_times_median(cli_chunk_times *t)
{
    size_t n = t->count;
    if (n == 0)
        return NAN;
    qsort(t->ns_per_op, n, sizeof *t->ns_per_op, compare_doubles);
    return n % 2 ? t->ns_per_op[n / 2]
                 : (t->ns_per_op[n / 2 - 1] + t->ns_per_op[n / 2]) / 2.0;
}

void cli_chunk_times_reset(cli_chunk_times *t)
{
    t->count = 0;
}

void cli_chunk_times_free(cli_chunk_times *t)
{
    free(t->ns_per_op);
    memset(t, 0, sizeof *t);
}

/* ======================================================================
 * Pseudo-random numbers for generated workloads.
 * ====================================================================== */

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
