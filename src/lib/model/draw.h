/*
 * draw.h — the planners' fixed-seed random draws (private).
 *
 * A model that averages over simulated units or bins must be a pure
 * function of its inputs, so that a plan is the same on every run and
 * every machine: it draws from a splitmix64 stream with a fixed seed,
 * and Poisson loads from a tabulated CDF.
 */
#ifndef TDBF_DRAW_H
#define TDBF_DRAW_H

#include <stdint.h>

#include "util/hash.h"

/* A uniform in [0, 1) from the stream (its counter wraps on purpose). */
TDBF_WRAPS static inline double tdbf_draw_uniform(uint64_t *state)
{
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return (double)(tdbf_mix64(*state) >> 11) * 0x1p-53;
}

/* The least x <= top with u <= cdf[x] (top when none): a draw from the
 * distribution whose CDF is tabulated in cdf[0 .. top]. */
static inline unsigned tdbf_draw_from_cdf(const double *cdf, unsigned top, uint64_t *state)
{
    double u = tdbf_draw_uniform(state);
    unsigned x = 0;
    while (x < top && u > cdf[x])
        x++;
    return x;
}

#endif
