/*
 * workload.c — the lab's stream generator (see workload.h).
 *
 * The Zipf sampler: rejection-inversion, after Hörmann & Derflinger,
 * "Rejection-inversion to generate variates from monotone discrete
 * distributions" (ACM TOMACS 6(3), 1996).  We want P(r) proportional to
 * h(r) = r^-s for r = 1..n.  Take the continuous hat
 * h(x) = x^-s and its integral H(x) = (x^(1-s) - 1)/(1-s) (log x at s = 1).
 * Since h is convex, the area of h over [r - 1/2, r + 1/2] is at least
 * h(r); draw u uniformly in (H(3/2) - h(1), H(n + 1/2)], invert
 * x = H^-1(u), round to r, and accept when u >= H(r + 1/2) - h(r): the
 * accepted strip of each r is exactly h(r) wide, so r has the wanted
 * probability.  (For r = 1 the strip is the whole interval: always
 * accepted.)  A cheap squeeze, r - x <= 2 - H^-1(H(5/2) - h(2)), accepts
 * most draws without evaluating H.  O(1) memory, about 1.1 tries per draw
 * for any n and s >= 0.
 */
#include "workload.h"
#include "../common/measure.h"

#include <math.h>
#include <string.h>

/* ---- keys --------------------------------------------------------------- */

void lab_key_u64(uint64_t id, unsigned char out[8])
{
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(id >> (8 * i));
}

void lab_key16(uint64_t seed, uint64_t id, unsigned char out[LAB_KEY16_BYTES])
{
    uint64_t halves[2] = {cli_mix64(seed + 2 * id), cli_mix64(seed + 2 * id + 1)};
    memcpy(out, halves, sizeof halves);
}

static size_t put_decimal(char *out, uint64_t value)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (size_t i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

size_t lab_key_text(char *out, uint64_t rank, uint64_t salt)
{
    size_t n = 0;
    memcpy(out + n, "user:", 5);
    n += 5;
    n += put_decimal(out + n, cli_mix64(rank ^ salt) % UINT64_C(100000000));
    memcpy(out + n, "/page:", 6);
    n += 6;
    n += put_decimal(out + n, rank);
    return n;
}

/* ---- random reals and ranks ----------------------------------------------- */

double lab_uniform(uint64_t *state)
{
    return (double)(cli_rng_next(state) >> 11) * 0x1.0p-53;
}

/* expm1(t)/t, continuous at 0. */
static double expm1_over(double t)
{
    return fabs(t) > 1e-8 ? expm1(t) / t : 1.0 + t / 2.0;
}

/* log1p(t)/t, continuous at 0. */
static double log1p_over(double t)
{
    return fabs(t) > 1e-8 ? log1p(t) / t : 1.0 - t / 2.0;
}

static double zipf_h(const lab_zipf *z, double x)
{
    return exp(-z->s * log(x));
}

/* H(x) = (x^(1-s) - 1)/(1-s) = log(x) * expm1((1-s) log x)/((1-s) log x) */
static double zipf_H(const lab_zipf *z, double x)
{
    double log_x = log(x);
    return log_x * expm1_over((1.0 - z->s) * log_x);
}

/* H^-1(y) = exp(log1p((1-s) y)/(1-s)) */
static double zipf_H_inverse(const lab_zipf *z, double y)
{
    return exp(y * log1p_over((1.0 - z->s) * y));
}

void lab_zipf_init(lab_zipf *z, uint64_t n, double s)
{
    z->n = n;
    z->s = s;
    z->lower = zipf_H(z, 1.5) - 1.0;
    z->upper = zipf_H(z, (double)n + 0.5);
    z->squeeze = 2.0 - zipf_H_inverse(z, zipf_H(z, 2.5) - zipf_h(z, 2.0));
}

/* A rank in 1..n. */
uint64_t lab_zipf_next(const lab_zipf *z, uint64_t *state)
{
    for (;;) {
        double u = z->upper + lab_uniform(state) * (z->lower - z->upper);
        double x = zipf_H_inverse(z, u);
        double rounded = floor(x + 0.5);
        uint64_t rank;
        if (!(rounded >= 1.0))
            rank = 1;
        else if (rounded >= (double)z->n)
            rank = z->n;
        else
            rank = (uint64_t)rounded;
        double r = (double)rank;
        if (r - x <= z->squeeze || u >= zipf_H(z, r + 0.5) - zipf_h(z, r))
            return rank;
    }
}

/* ---- streams of key ids ------------------------------------------------- */

uint64_t lab_ids_uniform(uint32_t *ids, uint64_t n, uint64_t universe, uint64_t seed)
{
    uint64_t rng = seed;
    for (uint64_t i = 0; i < n; i++)
        ids[i] = (uint32_t)(cli_rng_next(&rng) % universe);
    return universe;
}

uint64_t lab_ids_replay(uint32_t *ids, uint64_t n, uint64_t max_back, uint64_t seed)
{
    uint64_t rng = seed, next = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = cli_rng_next(&rng);
        uint64_t back = 1 + (r >> 1) % max_back;
        if ((r & 1) && back <= i)
            ids[i] = ids[i - back];
        else
            ids[i] = (uint32_t)next++;
    }
    return next;
}
