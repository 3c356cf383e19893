/*
 * inference.h — inferential queries: what a design hands infer.c and
 * infer_apbf.c, and what they answer (private).
 */
#ifndef TDBF_INFERENCE_H
#define TDBF_INFERENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "tdbf_model.h"
#include "util/hash.h"

typedef struct tdbf_inference {
    double p_in_window;   /* P(I_x < w | R_x), in [0, 1] */
    double expected_age;  /* E[I_x | R_x], insertions */
} tdbf_inference;

/* What a key's timer cells show, for the (B)TBF inference (infer.c,
 * paper 002 section 4; tbf.c fills it). */
typedef struct tdbf_timer_view {
    uint64_t window;      /* w */
    uint64_t block;       /* B (1 for the TBF) */
    uint64_t block_fill;  /* b, 0 .. B-1 */
    uint64_t live_age;    /* ceil((w - b)/B): the oldest age in the window */
    uint64_t age;         /* lambda_x, the oldest age among the cells; when
                             `expired`, a lower bound on it */
    unsigned distinct;    /* r_x = |R_x| */
    unsigned oldest;      /* c_x: cells of age lambda_x (0 if all expired) */
    bool     expired;     /* some cell holds T_eps (lambda_x infinite) */
    double   log_untouched; /* k ln(1 - 1/m) */
} tdbf_timer_view;
/* The posterior (eqs 23, 26, 27) and E[I_x | R_x] (eq 8) of a view.
 * Returns TDBF_OK or TDBF_EINVAL (invalid prior). */
int tdbf_timer_infer(const tdbf_timer_view *view, const tdbf_prior *prior,
                     tdbf_inference *out);

/* The prior handling of infer.c, shared with infer_apbf.c.  p_x of the
 * queried key (given, or UNIFORM's 1/|U|): TDBF_OK or TDBF_EINVAL (invalid
 * prior). */
int tdbf_prior_key_probability(const tdbf_prior *prior, double *p);
/* D(from + len) - D(from) of a valid prior: the distinct keys among `len`
 * insertions that did not occur in the `from` before them. */
double tdbf_prior_fresh(const tdbf_prior *prior, double from, double len);
/* The mean of a geometric prior p (1 - p)^i over i >= a whose likelihood
 * is 1 on a .. a + len - 1 and rho after (infer.c's essay). */
double tdbf_geometric_age(double p, double a, double len, double rho);

/* ---- the APBF and APBBF inference (infer_apbf.c) ---- */
/* A slices filter's shape and age, as apbf.c and apbbf.c hold them. */
typedef struct tdbf_slice_view {
    unsigned k, l;             /* slices set per insert, extra slices */
    uint64_t generation;       /* g: inserts between shifts */
    uint64_t generation_fill;  /* inserts in the current generation, 0..g */
    uint64_t shifts;           /* shifts since open */
    uint64_t slice_cells;      /* APBF: bits per slice; APBBF: blocks per segment */
    unsigned block_bits;       /* APBBF: B; 0 for APBF */
    unsigned block_hashes;     /* APBBF: b; 0 for APBF (one bit per slice) */
} tdbf_slice_view;
/* P(I_x < l g | which slices match) and E[I_x | the same], reading every
 * logical slice 0 .. k+l-1 of `state` through `has` (Algorithm 1's test,
 * run.h's tdbf_slice_test).
 * Returns TDBF_OK or TDBF_EINVAL (invalid prior). */
int tdbf_slice_infer(const tdbf_slice_view *view, const void *state,
                     int (*has)(const void *state, unsigned slice, const tdbf_hash128 *h),
                     const tdbf_hash128 *h,
                     const tdbf_prior *prior, tdbf_inference *out);

#endif
