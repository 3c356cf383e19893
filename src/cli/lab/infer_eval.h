/*
 * infer_eval.h — paper 002's penalty experiment (section 5) on the BTBF
 * and the APBF, for `tdbf eval tbf`, `tdbf eval apbf-posterior` and the
 * unit tests of the library's posteriors (infer_eval.c).
 *
 * A synthetic stream (uniform or Zipf s = 1 over |U| keys) feeds a BTBF;
 * after `warmup` inserts, each item is queried and then inserted, and
 * each query draws penalties $FP and $FN uniformly from [1, 10).  The
 * standard answer (tdbf_contains) and the minimum-penalty answer
 * (tdbf_decide, with the key's true p_x) are charged for their errors
 * against the exact insertion ages.  Parameters follow section 5.1.2:
 * memory w * bits_per_item bits, max(k, 3) bits per timer, m the cells
 * that fit, the smallest padding that checks at most k cells per insert
 * (the BTBF planner with k, timer_bits and timer_cells fixed); each answer
 * keeps its own best k over k_min .. k_max.
 */
#ifndef TDBF_CLI_LAB_INFER_EVAL_H
#define TDBF_CLI_LAB_INFER_EVAL_H

#include <stdint.h>

#include <tdbf_model.h>

typedef struct cli_infer_eval {
    tdbf_prior_model stream;   /* TDBF_PRIOR_UNIFORM or TDBF_PRIOR_POWER_LAW */
    uint64_t universe;         /* |U|, 2 .. 2^28 keys */
    uint64_t window;           /* w, insertions */
    double   bits_per_item;    /* memory budget per item of the window */
    unsigned k_min, k_max;     /* k tried; 0, 0 = the paper's 1 .. 30 */
    uint64_t warmup;           /* inserts before the first query (paper: 2^20) */
    uint64_t queries;          /* query-then-insert steps (paper: 2^22) */
    uint64_t seed;             /* the stream and the penalties */
} cli_infer_eval;

typedef struct cli_infer_eval_result {
    unsigned k_standard;          /* the standard answers' best k */
    unsigned k_inferential;       /* the minimum-penalty answers' best k */
    double   penalty_standard;    /* total penalty at k_standard */
    double   penalty_inferential; /* total penalty at k_inferential */
    uint64_t inside, outside;     /* queries with I_x < w and the others */
    double   posterior_error;     /* eq 28 at k_inferential */
    uint64_t bin_queries[20];     /* queries with posterior in [i/20, (i+1)/20) */
    double   bin_inside[20];      /* the fraction of them inside the window */
    unsigned l_standard;          /* APBF: the l of k_standard (0: BTBF) */
    unsigned l_inferential;       /* APBF: the l of k_inferential (0: BTBF) */
} cli_infer_eval_result;

/* Run the experiment.  Returns TDBF_OK, TDBF_EINVAL (NULL argument, a
 * model other than the two, |U| out of range, window or queries 0,
 * bits_per_item not positive, k_min > k_max or k_max > TDBF_MAX_K),
 * TDBF_EINFEASIBLE (no k fits the memory), TDBF_ENOMEM.  Deterministic for
 * a seed.  Cost: (k_max - k_min + 1) (warmup + queries) inserts and
 * queries; the paper's full size takes minutes. */
int cli_infer_evaluate(const cli_infer_eval *cfg, cli_infer_eval_result *out);

/* The same experiment on `design`: TDBF_BTBF (cli_infer_evaluate) or
 * TDBF_APBF, whose k slices per insert run over k_min .. k_max with, for
 * each k, the smallest l whose (k + l) m bits fit w * bits_per_item (m and
 * g planned for w: tdbf_plan_eval); its answers are charged against its
 * own window l g (>= w, by less than l).  Returns as cli_infer_evaluate,
 * and TDBF_EINVAL for another design. */
int cli_infer_evaluate_design(tdbf_design design,
                              const cli_infer_eval *cfg,
                              cli_infer_eval_result *out);

#endif /* TDBF_CLI_LAB_INFER_EVAL_H */
