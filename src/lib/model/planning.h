/*
 * planning.h — the planners' internals, shared by the planners and the
 * designs that open with them (private; plan.c, plan_blocked.c, sizing.c,
 * plan_decay.c).
 */
#ifndef TDBF_PLANNING_H
#define TDBF_PLANNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdbf_model.h"

/* ---- planner internals (plan.c) ---- */
/* The paper's APBF false-positive recursion F(k, l, 0, 0) (paper 004
 * section 5.3) over explicit fill ratios fills[0 .. k+l-1] (logical slice
 * order, newest first).  Returns the probability, or -1.0 if an argument
 * is invalid (k or l out of range, fills NULL, a fill outside [0, 1] or
 * NaN).  Not exported: the library's designs and planners, and the unit
 * tests (linked with the static library), call it. */
double tdbf_apbf_fp(unsigned k, unsigned l, const double *fills);
/* Expected slice reads of Algorithm 1 for a query that returns false,
 * A(k,l,0,0,0,l) / (1 - F(k,l,0,0)) (paper 004 section 5.4), over the
 * same fills.  Returns the expectation, or -1.0 if an argument is
 * invalid. */
double tdbf_apbf_accesses_false(unsigned k, unsigned l, const double *fills);
/* Exact expected fill ratios of the k+l logical slices just before a
 * shift, for slice size m and generation g: slice i has seen (i+1)*g
 * inserts (i < k) or k*g (i >= k):  r = 1 - (1 - 1/m)^inserts (the exact
 * form of paper 004 section 5.3's [1/2k, .., k/2k, 1/2, .., 1/2]). */
void tdbf_apbf_fills_exact(unsigned k, unsigned l, uint64_t m, uint64_t g,
                           double *fills);
/* Generation size for slice size m: floor(m ln2 / k) (paper 004 §5.2). */
uint64_t tdbf_apbf_generation(uint64_t m, unsigned k);

#define TDBF_LN2 0.69314718055994530942

/* tdbf_plan_apbf with l limited to max_l (designs whose cost grows with
 * the slice count, such as TLBF, plan with a smaller l). */
int tdbf_plan_search(uint64_t window, double error, unsigned max_l,
                     double tolerance, tdbf_plan *best, tdbf_plan *alts,
                     size_t max_alts, size_t *n_alts);
/* cfg->plan_tolerance as the planners take it: 0 -> the default 5 %,
 * negative -> 0 (least memory). */
double tdbf_plan_tolerance(const tdbf_config *cfg);

/* Fast plans, shared by the APBF and APBBF planners (plan.c).  A planner
 * groups its shapes in families (APBF: k; APBBF: k and b) and offers each
 * family with the l of its least memory.  tdbf_fast_consider takes the
 * family's smallest l whose bits are within `limit` (fewer slices between
 * s_l and s_0 to walk) and keeps it in *best if it meets the error and
 * its negative queries read fewer slices (ties: fewer bits).  *best
 * starts as the least-memory plan. */
typedef struct tdbf_fast_shape {
    unsigned family, l;
    uint64_t bits;
    double   reads;         /* expected reads of a negative query */
} tdbf_fast_shape;

typedef struct tdbf_fast_sizer {
    const void *ctx;
    /* Total bits of (family, l), or 0 if it cannot be sized. */
    uint64_t (*bits)(const void *ctx, unsigned family, unsigned l);
    /* Expected reads of a negative query if (family, l) meets the error,
     * else -1.0. */
    double (*reads)(const void *ctx, unsigned family, unsigned l);
} tdbf_fast_sizer;

void tdbf_fast_consider(const tdbf_fast_sizer *sizer, unsigned family,
                        unsigned max_l, double limit, tdbf_fast_shape *best);

/* ---- APBBF planner internals (plan_blocked.c; paper 004 section 6) ---- */
/* First bit of part j (0 <= j <= b) of a B-bit block split into b
 * near-equal parts; part j is bits start(j) .. start(j+1) - 1.  The
 * filter and the model share this split. */
static inline unsigned tdbf_apbbf_part_start(unsigned block_bits,
                                             unsigned block_hashes, unsigned j)
{
    return j * block_bits / block_hashes;
}
/* Keys per block at which a segment is "full" (expected fill 1/2 at that
 * mean load): lambda = ln2 / -ln(1 - b/B). */
double tdbf_apbbf_capacity(unsigned block_bits, unsigned block_hashes);
/* The probability r that a never-inserted key matches an APBBF segment of
 * `blocks` blocks (block_bits 64 or 512, block_hashes b bits per key) into
 * which `keys` distinct keys have been inserted: E[m(X)] over the block
 * load X ~ Binomial(keys, 1/blocks).  These r feed tdbf_apbf_fp and
 * tdbf_apbf_accesses_false exactly as slice fills do for APBF (for a
 * filter with generation g just before a shift: keys = (i+1)g for segment
 * i < k, k*g for the others).  Returns r in [0, 1], or -1.0 if an
 * argument is invalid. */
double tdbf_apbbf_match(unsigned block_bits, unsigned block_hashes,
                        uint64_t keys, uint64_t blocks);
/* Match probability of a segment whose blocks have Poisson(mean) keys. */
double tdbf_apbbf_match_poisson(unsigned block_bits, unsigned block_hashes,
                                double mean);
/* The Poisson mean load at which a segment's expected fill is `fill`
 * (INFINITY for fill >= 1): inverts the fill to estimate a segment's load
 * from its population count. */
double tdbf_apbbf_load_for_fill(unsigned block_bits, unsigned block_hashes,
                                double fill);
/* tdbf_plan_apbbf_eval without the model metrics: sizes and the exact
 * fp only (what a filter needs to open; cheap). */
int tdbf_plan_apbbf_size(unsigned k, unsigned l, unsigned block_bits,
                         unsigned block_hashes, uint64_t window,
                         tdbf_plan_blocked *out);
/* The plan of a filter with `blocks` blocks per segment (loading a saved
 * one): g, window and the exact-load FP.  TDBF_EPARAM for bad (k, l, B,
 * b) or a generation of 0, TDBF_ETOOBIG beyond 2^52 bits. */
int tdbf_plan_apbbf_from_blocks(unsigned k, unsigned l, unsigned block_bits,
                                unsigned block_hashes, uint64_t blocks,
                                tdbf_plan_blocked *out);

/* tdbf_plan_apbbf_fast with some parameters fixed (0 = search): k and l
 * together, and/or b; with k and l fixed the tolerance is not used.
 * Fills *best as tdbf_plan_apbbf_size does.  Returns what
 * tdbf_plan_apbbf does, plus TDBF_EPARAM for a fixed value out of range
 * and TDBF_ETOOBIG when no shape fits 2^52 bits. */
int tdbf_plan_apbbf_search(uint64_t window, double error, unsigned block_bits,
                           unsigned fixed_k, unsigned fixed_l,
                           unsigned fixed_hashes, double tolerance,
                           tdbf_plan_blocked *best);

/* Both outcomes of Algorithm 1 (paper 004 section 5.4; its access
 * recursion A, for a yes as well as a no) over match probabilities
 * match[0..k+l-1] (1.0 for segments known to hold the key): the
 * probability of answering yes and no, each with its read-weighted
 * probability (expected reads of a yes = reads_true / p_true). */
typedef struct tdbf_query_paths {
    double p_true, reads_true;
    double p_false, reads_false;
} tdbf_query_paths;
int tdbf_apbf_query_paths(unsigned k, unsigned l, const double *match,
                          tdbf_query_paths *out);

/* Bytes needed, as a double so huge requests cannot overflow. */

/* ---- exact Bloom sizing (sizing.c), for clock.c and rotating.c ---- */
typedef struct tdbf_bloom_shape {
    uint64_t m;     /* cells (bits) */
    unsigned k;     /* indices per key */
    double   fp;    /* tdbf_bloom_fp(keys, m, k) */
} tdbf_bloom_shape;
/* (1 - (1 - 1/m)^(k keys))^k: a never-inserted key's match probability. */
double tdbf_bloom_fp(double keys, uint64_t m, unsigned k);
/* The least m whose FP for `keys` keys meets `error`, over k = 1 ..
 * TDBF_MAX_K (or k = fixed_k if not 0; ties to the smaller k).  Returns
 * TDBF_OK or TDBF_ETOOBIG (more than 2^52 cells). */
int tdbf_bloom_size(double keys, double error, unsigned fixed_k,
                    tdbf_bloom_shape *out);

/* The sizing of tdbf_open for CLOCK (clock.c) and ROTATING (rotating.c),
 * behind tdbf_plan_clock_rotating (api/planner.c), which has already checked the
 * design, the error, cfg.k, cfg.l and defaulted cfg.max_memory.  Open
 * calls the same function. */
int tdbf_clock_plan(const tdbf_config *cfg, tdbf_clock_rotating_plan *out);
int tdbf_rotating_plan(const tdbf_config *cfg, tdbf_clock_rotating_plan *out);

/* ---- the designs that forget at random (plan_decay.c) ---- */
/* The sizing of tdbf_open for FPDECAY (fpdecay.c) and STABLE (stable.c),
 * behind tdbf_plan_decay (api/planner.c), which has checked the design.
 * tdbf_decay_plan_by checks the error, the window and the fields both
 * read, runs the design's search for the survival target, checks the
 * memory cap and fills the window, bits per item and target;
 * tdbf_decay_shape is a plan as ops->plan reports it (state_bytes: the
 * design's struct, beside its one aligned array). */
typedef int (*tdbf_decay_search)(const tdbf_config *cfg, double target, tdbf_decay_plan *out);
int tdbf_fpdecay_plan(const tdbf_config *cfg, tdbf_decay_plan *out);
/* FPDECAY (fpdecay.c): the least cell count (a multiple of n) for which
 * tdbf_fpdecay_survival(cells, n, b, window) >= survival; it grows about
 * like n / ln(n / -ln(1 - survival)) per window key (paper 003 suggests
 * s proportional to log2 n).  Returns TDBF_OK and sets *cells, or
 * TDBF_EINVAL (cells NULL), TDBF_EPARAM (n, b, or survival not in
 * (0, 1)), TDBF_EWINDOW (window 0) or TDBF_ETOOBIG (more than 2^52 bits). */
int tdbf_fpdecay_size(uint64_t window, unsigned n, unsigned b,
                      double survival, uint64_t *cells);
int tdbf_stable_plan(const tdbf_config *cfg, tdbf_decay_plan *out);
int tdbf_decay_plan_by(const tdbf_config *cfg, tdbf_design design, tdbf_decay_search search,
                       tdbf_decay_plan *out);
void tdbf_decay_shape(const tdbf_decay_plan *plan, size_t state_bytes, tdbf_shape *out);

#endif
