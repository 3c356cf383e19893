/*
 * test_infer_eval.c — the lab's run of paper 002's penalty experiment
 * (section 5: src/cli/lab/infer_eval.c, behind `tdbf eval tbf` and
 * `tdbf eval apbf-posterior`), at a test size.
 *
 *  - BTBF (cli_infer_evaluate): Table 3's two uniform conditions scaled
 *    to |U| = 2^12 (Pos/Neg within 10 % of 1 - (1 - 1/|U|)^w over its
 *    complement) and the power law; the minimum-penalty answers cost no
 *    more than the standard ones, the posterior error stays under 0.05,
 *    every query is counted once; the same seed gives the same run; bad
 *    arguments are refused.
 *  - APBF (cli_infer_evaluate_design): the same on both streams, plus the
 *    calibration bins (within 0.05 of the midpoint where 1000 queries
 *    fall), l the smallest that fits the memory, and the BTBF reached
 *    through either entry point.
 *
 * The library's own posteriors and decisions are tested in tests/unit
 * (test_infer.c, test_infer_apbf.c) on library calls only; this is the
 * lab's experiment, so it is built with the lab's files and run by
 * `make test` beside the unit tests.  It borrows their assertion macros
 * (tests/unit/driver.h).
 */
#include <math.h>
#include <stdio.h>

#include "driver.h"
#include "infer_eval.h"

/* The lab's run of the paper's experiment (cli_infer_evaluate), at a
 * test size: |U| = 2^12, k = 1..4, Table 3's two conditions scaled. */
static void test_btbf_experiment(void **state)
{
    (void)state;
    cli_infer_eval cfg = {TDBF_PRIOR_UNIFORM, 4096, 4096, 8.0, 1, 4, 1 << 14,
                           DRV_PICK(1 << 17, 1 << 14), 0xe7a1};
    cli_infer_eval_result r;
    static const struct {
        tdbf_prior_model stream;
        uint64_t window;
        double pos_neg; /* expected Pos/Neg */
        const char *label;
    } conditions[] = {
        /* uniform: P(I < w) = 1 - (1 - 1/|U|)^w */
        {TDBF_PRIOR_UNIFORM, 4096, 1.7180, "uniform |U|=w=2^12 [Pos~Neg]"},
        {TDBF_PRIOR_UNIFORM, 16384, 53.6, "uniform |U|=2^12 w=2^14 [Pos>Neg]"},
        {TDBF_PRIOR_POWER_LAW, 128, 0.0, "power law |U|=2^12 w=2^7"},
    };
    for (size_t i = 0; i < sizeof conditions / sizeof conditions[0]; i++) {
        cfg.stream = conditions[i].stream;
        cfg.window = conditions[i].window;
        CHECK_RC(cli_infer_evaluate(&cfg, &r), TDBF_OK);
        double pos_neg = (double)r.inside / (double)r.outside;
        print_message("  %s, 8 bits/item: Pos/Neg %.3f; penalty standard %.0f (k=%u), "
                      "min-penalty %.0f (k=%u), ratio %.3f; posterior error %.4f\n",
                      conditions[i].label, pos_neg, r.penalty_standard, r.k_standard,
                      r.penalty_inferential, r.k_inferential,
                      r.penalty_standard / r.penalty_inferential, r.posterior_error);
        if (r.penalty_inferential > r.penalty_standard)
            fail_msg("%s: min-penalty %.0f > standard %.0f", conditions[i].label,
                     r.penalty_inferential, r.penalty_standard);
        if (r.posterior_error > 0.05)
            fail_msg("%s: posterior error %.4f > 0.05", conditions[i].label, r.posterior_error);
        if (conditions[i].pos_neg > 0.0 &&
            fabs(pos_neg - conditions[i].pos_neg) > 0.1 * conditions[i].pos_neg)
            fail_msg("%s: Pos/Neg %.3f, expected %.3f", conditions[i].label, pos_neg,
                     conditions[i].pos_neg);
        uint64_t total = 0;
        for (int b = 0; b < 20; b++)
            total += r.bin_queries[b];
        CHECK_U64_EQ(total, cfg.queries);
        CHECK_U64_EQ(r.inside + r.outside, cfg.queries);
    }
    /* Deterministic for a seed. */
    cli_infer_eval_result again;
    CHECK_RC(cli_infer_evaluate(&cfg, &again), TDBF_OK);
    CHECK_NEAR(again.penalty_inferential, r.penalty_inferential, 0.0);
    CHECK_NEAR(again.penalty_standard, r.penalty_standard, 0.0);
    /* Errors. */
    CHECK_RC(cli_infer_evaluate(NULL, &r), TDBF_EINVAL);
    CHECK_RC(cli_infer_evaluate(&cfg, NULL), TDBF_EINVAL);
    cli_infer_eval bad = cfg;
    bad.stream = TDBF_PRIOR_SAMPLED;
    CHECK_RC(cli_infer_evaluate(&bad, &r), TDBF_EINVAL);
    bad = cfg;
    bad.k_min = 5;
    CHECK_RC(cli_infer_evaluate(&bad, &r), TDBF_EINVAL);
    bad = cfg;
    bad.bits_per_item = 0.0;
    CHECK_RC(cli_infer_evaluate(&bad, &r), TDBF_EINVAL);
    bad = cfg;
    bad.universe = 1;
    CHECK_RC(cli_infer_evaluate(&bad, &r), TDBF_EINVAL);
    bad = cfg;
    bad.bits_per_item = 0.0001; /* not one cell per hash */
    CHECK_RC(cli_infer_evaluate(&bad, &r), TDBF_EINFEASIBLE);
}

/* The lab's run of paper 002's experiment on the APBF
 * (cli_infer_evaluate_design), at a test size, on the uniform stream
 * and on the power law (Zipf s = 1, p_x known): the calibration bin test
 * (within 0.05 of the midpoint where 1000 queries fall) on both. */
static void check_experiment(const cli_infer_eval *cfg, const char *label,
                             cli_infer_eval_result *r)
{
    CHECK_RC(cli_infer_evaluate_design(TDBF_APBF, cfg, r), TDBF_OK);
    print_message("  %s, 8 bits/item: APBF standard %.0f (k=%u l=%u), min-penalty %.0f "
                  "(k=%u l=%u), ratio %.3f; posterior error %.4f\n", label,
                  r->penalty_standard, r->k_standard, r->l_standard, r->penalty_inferential,
                  r->k_inferential, r->l_inferential,
                  r->penalty_standard / r->penalty_inferential, r->posterior_error);
    if (r->penalty_inferential > r->penalty_standard)
        fail_msg("%s: min-penalty %.0f > standard %.0f", label, r->penalty_inferential,
                 r->penalty_standard);
    if (r->posterior_error > 0.05)
        fail_msg("%s: posterior error %.4f > 0.05", label, r->posterior_error);
    for (int b = 0; b < 20; b++)
        if (r->bin_queries[b] >= 1000 && fabs(r->bin_inside[b] - (0.025 + 0.05 * b)) > 0.05)
            fail_msg("%s: bin %d: %llu queries, %.4f inside", label, b,
                     (unsigned long long)r->bin_queries[b], r->bin_inside[b]);
}

static void test_apbf_experiment(void **state)
{
    (void)state;
    cli_infer_eval cfg = {TDBF_PRIOR_POWER_LAW, 4096, 128, 8.0, 1, 4, 1 << 14,
                           DRV_PICK(1 << 16, 1 << 13), 0xe7a2};
    cli_infer_eval_result r, again, btbf;
    check_experiment(&cfg, "power law |U|=2^12 w=2^7", &r);
    cfg.stream = TDBF_PRIOR_UNIFORM;
    cfg.window = 4096;
    check_experiment(&cfg, "uniform |U|=w=2^12", &r);
    /* Each k with the smallest l that fits 8 bits per item. */
    tdbf_plan plan, smaller;
    CHECK_RC(tdbf_plan_eval(r.k_inferential, r.l_inferential, cfg.window, &plan), TDBF_OK);
    if ((double)plan.bits > 8.0 * (double)cfg.window)
        fail_msg("k=%u l=%u: %llu bits > the budget", r.k_inferential, r.l_inferential,
                 (unsigned long long)plan.bits);
    if (r.l_inferential > 1 &&
        tdbf_plan_eval(r.k_inferential, r.l_inferential - 1, cfg.window, &smaller) == TDBF_OK &&
        (double)smaller.bits <= 8.0 * (double)cfg.window)
        fail_msg("k=%u: l=%u fits too", r.k_inferential, r.l_inferential - 1);
    uint64_t total = 0;
    for (int b = 0; b < 20; b++)
        total += r.bin_queries[b];
    CHECK_U64_EQ(total, cfg.queries);
    CHECK_RC(cli_infer_evaluate_design(TDBF_APBF, &cfg, &again), TDBF_OK);
    CHECK_NEAR(again.penalty_inferential, r.penalty_inferential, 0.0);
    /* The BTBF through either entry point; other designs refused. */
    cfg.k_max = 2;
    CHECK_RC(cli_infer_evaluate_design(TDBF_BTBF, &cfg, &btbf), TDBF_OK);
    CHECK_RC(cli_infer_evaluate(&cfg, &again), TDBF_OK);
    CHECK_NEAR(again.penalty_inferential, btbf.penalty_inferential, 0.0);
    CHECK_U64_EQ(btbf.l_inferential, 0);
    CHECK_RC(cli_infer_evaluate_design(TDBF_TLBF, &cfg, &r), TDBF_EINVAL);
    cfg.bits_per_item = 1.0; /* below w k / ln2 bits for every k */
    CHECK_RC(cli_infer_evaluate_design(TDBF_APBF, &cfg, &r), TDBF_EINFEASIBLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_btbf_experiment),
        cmocka_unit_test(test_apbf_experiment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
