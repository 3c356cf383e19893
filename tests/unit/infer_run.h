/*
 * infer_run.h — what the inference tests share (test_infer.c for the TBF
 * and BTBF, test_infer_apbf.c for the APBF and APBBF): item keys, the
 * query-then-insert stream of paper 002 section 5.1, and its calibration
 * check (section 5.1.4: 20 posterior bins, eq 28).
 */
#ifndef TDBF_TEST_INFER_RUN_H
#define TDBF_TEST_INFER_RUN_H

#include <stddef.h>
#include <stdint.h>

#include <tdbf_model.h>

/* Item x of a stream is the 8 bytes of x, little-endian. */
size_t infer_item_key(uint8_t *buf, uint64_t x);
/* tdbf_add, tdbf_contains, tdbf_posterior of item x; a negative code, or
 * a posterior outside [0, 1], fails the test. */
void infer_add_item(tdbf *f, uint64_t x);
int infer_contains_item(const tdbf *f, uint64_t x);
double infer_posterior_of(const tdbf *f, uint64_t x, const tdbf_prior *prior);
/* Uniform in [0, 1) with 53 bits. */
double infer_unit(uint64_t *rng);

/* The stream: |U| items, uniform or Zipf (s = 1, item x of rank x + 1);
 * `warmup` inserts, then `queries` query-then-insert steps; an answer is
 * charged against I_x < window (an item not seen yet is outside). */
typedef struct infer_stream {
    uint64_t universe, window, warmup, queries, seed;
    int      power_law;
} infer_stream;

typedef struct infer_result {
    double   bin_count[20], bin_inside[20], bin_posterior[20];
    double   penalty_standard, penalty_inferential;
    double   mean_true_age, mean_expected_age;   /* over the queries */
    uint64_t inside, outside;
    tdbf_stats stats;                            /* at the end */
} infer_result;

/* Each query: the posterior and the expected age under the item's true
 * p_x, the standard answer and tdbf_decide under penalties drawn from
 * [1, 10) ($FP, then $FN), charged, then the item is inserted. */
void infer_run_stream(tdbf *f, const infer_stream *stream, infer_result *res);

/* Print the 20-bin table; fail if a bin with at least 1000 queries is more
 * than 0.05 from its midpoint, or (max_z > 0) more than max_z binomial
 * standard errors (+ 0.001) from its mean posterior, or if fewer than
 * min_bins bins have 1000 queries.  Returns the posterior error, eq 28. */
double infer_check_bins(const char *label, const infer_result *res,
                        unsigned min_bins, double max_z);

#endif /* TDBF_TEST_INFER_RUN_H */
