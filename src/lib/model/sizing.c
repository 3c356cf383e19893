/*
 * sizing.c — exact Bloom sizing for the designs built on plain k-index
 * arrays: the clock filter's cells (clock.c) and the rotating ring's
 * sub-filters (rotating.c).
 *
 * bloom.c sizes with the textbook optimum m = -n ln e / ln^2 2 and rounds
 * k.  That is within a few percent, but these designs re-plan with budgets
 * that are already tight (an error split over N+1 filters, a load inflated
 * by (d+1)/d), so here m is the least that provably meets the error under
 * the standard model, for each k, and the cheapest k wins.
 *
 * Model: n distinct keys, k indices each, uniform over m cells.  A cell is
 * untouched with probability (1 - 1/m)^(kn); a never-inserted key matches
 * when its k cells are all touched:
 *
 *     FP(n, m, k) = (1 - (1 - 1/m)^(kn))^k
 *
 * FP <= e  <=>  1 - (1 - 1/m)^(kn) <= e^(1/k)
 *          <=>  m >= 1 / -expm1( log1p(-e^(1/k)) / (k n) )
 *
 * Worked example: n = 1000, e = 0.01 gives k = 7, m = 9 594 (9.59 bits
 * per key, FP 0.009997); the textbook m = 9 586 with k = 7 gives 0.01004,
 * just over the target.
 */
#include <math.h>

#include "designs/ops.h"
#include "model/planning.h"

/* Beyond 2^52 cells a double no longer counts them exactly; no real
 * filter is that big. */
#define MAX_CELLS 4503599627370496.0

double tdbf_bloom_fp(double keys, uint64_t m, unsigned k)
{
    if (m == 0 || k == 0)
        return 1.0;
    double untouched = exp((double)k * keys * log1p(-1.0 / (double)m));
    return pow(1.0 - untouched, (double)k);
}

/* The least m for this k, as a double (may exceed MAX_CELLS). */
static double cells_for(double keys, double error, unsigned k)
{
    double per_cell = -expm1(log1p(-pow(error, 1.0 / k)) / ((double)k * keys));
    double m = ceil(1.0 / per_cell);
    /* Rounding in the closed form may leave FP a hair above the target. */
    while (m < MAX_CELLS && tdbf_bloom_fp(keys, (uint64_t)m, k) > error)
        m += 1.0 + ceil(m * 1e-12);
    return m;
}

int tdbf_bloom_size(double keys, double error, unsigned fixed_k,
                    tdbf_bloom_shape *out)
{
    if (!(keys >= 1.0))
        keys = 1.0;
    unsigned first = fixed_k ? fixed_k : 1, last = fixed_k ? fixed_k : TDBF_MAX_K;
    double best = INFINITY;
    for (unsigned k = first; k <= last; k++) {
        double m = cells_for(keys, error, k);
        if (m < best) {
            best = m;
            out->k = k;
        }
    }
    if (!(best <= MAX_CELLS))
        return TDBF_ETOOBIG;
    out->m = (uint64_t)best;
    out->fp = tdbf_bloom_fp(keys, out->m, out->k);
    return TDBF_OK;
}
