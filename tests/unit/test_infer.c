/*
 * test_infer.c — inferential queries (src/lib/model/infer.c, paper 002 sections
 * 2 and 4) over the TBF and BTBF.
 *
 *  - The closed forms (eqs 23, 26, 27 and the expected age) against brute
 *    force sums of P(i) P(R_x | i) over i with the likelihoods of eqs 22,
 *    24 and 25 (white box: tdbf_timer_infer from model/inference.h).
 *  - The distinct-item models D(j) (eqs 16-18) against direct sums.
 *  - Calibration, the paper's experiment (section 5.1.4): on a uniform
 *    stream whose p_x is known, each item is queried and then inserted;
 *    queries are binned by posterior into 20 bins and in every bin with at
 *    least 1000 queries the fraction truly inside the window must be
 *    within 0.05 of the bin's midpoint.
 *  - Decisions (section 5.1.1): random per-query penalties in [1, 10); the
 *    minimum-penalty answers must cost no more than the standard ones.
 *  - Sanity: posteriors finite and in [0, 1], 0 exactly when the standard
 *    query says no, near 1 for a key just added, monotone in the age;
 *    TDBF_ENOTSUP for designs without inference, TDBF_EINVAL for bad
 *    priors and costs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "infer_run.h"
#include "model/inference.h"

static tdbf_config btbf_config(uint64_t window, unsigned k, uint64_t cells,
                               unsigned bits, uint64_t block, uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_BTBF;
    cfg.window_items = window;
    cfg.k = k;
    cfg.timer_cells = cells;
    cfg.timer_bits = bits;
    cfg.timer_block = (unsigned)block;
    cfg.seed = seed;
    return cfg;
}

/* ======================================================================
 * Closed forms against brute-force sums
 * ====================================================================== */

/* P(R_x | i) relative to its value on the first stretch (eqs 22, 24 and
 * 25 as refined in infer.c's essay). */
static double likelihood(const tdbf_timer_view *v, double i, double f0, double rho)
{
    double B = (double)v->block, b = (double)v->block_fill;
    if (v->expired || v->age > v->live_age)
        return i >= (double)(v->age - 1) * B + b ? 1.0 : 0.0;
    if (v->age == 0)
        return i < b ? 1.0 : f0;
    double a = (double)(v->age - 1) * B + b;
    return i < a ? 0.0 : i < a + B ? 1.0 : rho;
}

static void brute_force(const tdbf_timer_view *v, const tdbf_prior *prior,
                        double p, tdbf_inference *out)
{
    double B = (double)v->block, b = (double)v->block_fill;
    double a = v->age ? (double)(v->age - 1) * B + b : 0.0;
    /* a cell last touched within the B insertions before the last a */
    double fresh = tdbf_prior_distinct(prior, a + B) - tdbf_prior_distinct(prior, a);
    double touched_b = -expm1(v->log_untouched * tdbf_prior_distinct(prior, b));
    double touched_B = -expm1(v->log_untouched * fresh);
    double f0 = pow(touched_b, (double)v->distinct), rho = pow(touched_B, (double)v->oldest);
    double mass = 0.0, inside = 0.0, first = 0.0, q_i = 1.0;
    /* Sum until the terms are 1e-19 of the first nonzero one. */
    double negligible = 1e-19 * pow(1.0 - p, v->age ? a : 0.0);
    for (double i = 0.0; q_i > negligible; i++, q_i *= 1.0 - p) {
        double term = p * q_i * likelihood(v, i, f0, rho);
        mass += term;
        first += i * term;
        if (i < (double)v->window)
            inside += term;
    }
    out->p_in_window = inside / mass;
    out->expected_age = first / mass;
}

static void test_closed_forms_match_sums(void **state)
{
    (void)state;
    static const double probabilities[] = {0.3, 0.01, 1e-3, 2e-4};
    static const uint64_t blocks[] = {1, 7, 50};
    tdbf_prior prior;
    tdbf_prior_init(&prior, TDBF_PRIOR_UNIFORM, 5000.0);
    unsigned cases = 0;
    double worst_p = 0.0, worst_e = 0.0;

    for (size_t bi = 0; bi < 3; bi++) {
        uint64_t B = blocks[bi], w = 400;
        for (uint64_t b = 0; b < B; b += (B > 3 ? B / 3 : 1)) {
            uint64_t live_age = (w - b + B - 1) / B;
            for (uint64_t age = 0; age <= live_age + 2; age += (age < 3 || age + 3 > live_age ? 1 : live_age / 5)) {
                for (unsigned c = 1; c <= 4; c++) {
                    for (size_t pi = 0; pi < 4; pi++) {
                        tdbf_timer_view v;
                        memset(&v, 0, sizeof v);
                        v.window = w;
                        v.block = B;
                        v.block_fill = b;
                        v.live_age = live_age;
                        v.age = age;
                        v.distinct = 4;
                        v.oldest = age == 0 ? 4 : c;
                        v.expired = age == live_age + 2;
                        v.log_untouched = 3.0 * log1p(-1.0 / 900.0);
                        if (age == 0 && b == 0)
                            continue; /* cannot happen (see infer.c) */
                        prior.key_probability = probabilities[pi];
                        tdbf_inference got, want;
                        CHECK_RC(tdbf_timer_infer(&v, &prior, &got), TDBF_OK);
                        brute_force(&v, &prior, probabilities[pi], &want);
                        double dp = fabs(got.p_in_window - want.p_in_window);
                        double de = fabs(got.expected_age - want.expected_age) /
                                    (1.0 + want.expected_age);
                        worst_p = dp > worst_p ? dp : worst_p;
                        worst_e = de > worst_e ? de : worst_e;
                        if (dp > 1e-9 || de > 1e-8)
                            fail_msg("w=%llu B=%llu b=%llu age=%llu (L=%llu) c=%u p=%g: "
                                     "posterior %.12g vs sum %.12g, E %.12g vs sum %.12g",
                                     (unsigned long long)w, (unsigned long long)B,
                                     (unsigned long long)b, (unsigned long long)age,
                                     (unsigned long long)live_age, c, probabilities[pi],
                                     got.p_in_window, want.p_in_window,
                                     got.expected_age, want.expected_age);
                        cases++;
                    }
                }
            }
        }
    }
    print_message("  %u views: closed forms vs sums, max |dP| %.2g, max rel dE %.2g\n",
                  cases, worst_p, worst_e);
}

/* Fewer insertions since the key's stamp (a younger oldest cell) or more
 * cells still holding it can only raise the posterior.  (The first holds
 * when D(j) grows linearly, here |U| = 2^40; with few keys an old stamp
 * is also evidence that few keys share the cell, and the posterior may
 * rise a little with the age: see infer.c.) */
static void test_monotone(void **state)
{
    (void)state;
    tdbf_prior prior;
    tdbf_prior_init(&prior, TDBF_PRIOR_UNIFORM, 1099511627776.0);
    prior.key_probability = 1.0 / 65536.0;
    tdbf_timer_view v;
    memset(&v, 0, sizeof v);
    v.window = 10000;
    v.block = 100;
    v.block_fill = 40;
    v.live_age = (10000 - 40 + 99) / 100;
    v.distinct = 5;
    v.log_untouched = 5.0 * log1p(-1.0 / 50000.0);
    for (unsigned c = 1; c <= 5; c++) {
        double previous = 2.0, previous_age = -1.0;
        v.oldest = c;
        for (uint64_t age = 1; age <= v.live_age + 1; age++) {
            tdbf_inference r;
            v.age = age;
            CHECK_RC(tdbf_timer_infer(&v, &prior, &r), TDBF_OK);
            if (r.p_in_window > previous + 1e-15)
                fail_msg("c=%u: posterior rises from %.12g to %.12g at age %llu",
                         c, previous, r.p_in_window, (unsigned long long)age);
            if (r.expected_age < previous_age)
                fail_msg("c=%u: expected age falls from %.6g to %.6g at age %llu",
                         c, previous_age, r.expected_age, (unsigned long long)age);
            previous = r.p_in_window;
            previous_age = r.expected_age;
            if (age == v.live_age + 1)
                CHECK_NEAR(r.p_in_window, 0.0, 0.0);
        }
    }
    double previous = -1.0;
    v.age = 30;
    for (unsigned c = 1; c <= 5; c++) {
        tdbf_inference r;
        v.oldest = c;
        CHECK_RC(tdbf_timer_infer(&v, &prior, &r), TDBF_OK);
        if (r.p_in_window < previous)
            fail_msg("age 30: posterior falls from %.12g to %.12g at c=%u",
                     previous, r.p_in_window, c);
        previous = r.p_in_window;
    }
}

/* ======================================================================
 * D(j)
 * ====================================================================== */

static double brute_distinct_power(double universe, double s, double j)
{
    double h = 0.0, d = 0.0;
    for (double x = 1.0; x <= universe; x++)
        h += pow(x, -s);
    for (double x = 1.0; x <= universe; x++)
        d += -expm1(j * log1p(-pow(x, -s) / h));
    return d;
}

static void test_distinct_models(void **state)
{
    (void)state;
    tdbf_prior prior;
    static const double js[] = {2.0, 10.0, 300.0, 5000.0, 1e5, 1e7};

    tdbf_prior_init(&prior, TDBF_PRIOR_UNIFORM, 1000.0);
    CHECK_NEAR(tdbf_prior_distinct(&prior, 0.0), 0.0, 0.0);
    CHECK_NEAR(tdbf_prior_distinct(&prior, 1.0), 1.0, 1e-12);
    CHECK_NEAR(tdbf_prior_distinct(&prior, 1000.0), 1000.0 * (1.0 - pow(0.999, 1000.0)), 1e-9);
    CHECK_NEAR(tdbf_prior_distinct(&prior, 1e9), 1000.0, 1e-9);
    CHECK_NEAR(tdbf_prior_distinct(&prior, -1.0), -1.0, 0.0);
    tdbf_prior one;
    tdbf_prior_init(&one, TDBF_PRIOR_UNIFORM, 1.0); /* p = 1: no 0 * -inf */
    CHECK_NEAR(tdbf_prior_distinct(&one, 5.0), 1.0, 0.0);
    CHECK_NEAR(tdbf_prior_distinct(&prior, NAN), -1.0, 0.0);

    /* Power law: the numeric sum; eq 17 (s = 1) printed for comparison. */
    static const double exponents[] = {0.7, 1.0, 1.4};
    for (size_t e = 0; e < 3; e++) {
        tdbf_prior_init(&prior, TDBF_PRIOR_POWER_LAW, 20000.0);
        prior.exponent = exponents[e];
        double worst = 0.0, sum = 0.0;
        for (size_t i = 0; i < sizeof js / sizeof js[0]; i++) {
            double got = tdbf_prior_distinct(&prior, js[i]);
            double want = brute_distinct_power(20000.0, exponents[e], js[i]);
            double rel = fabs(got - want) / want;
            worst = rel > worst ? rel : worst;
            if (rel > (exponents[e] == 1.0 ? 1e-3 : 1e-4))
                fail_msg("power law s=%g |U|=20000: D(%g) = %.8g, direct sum %.8g",
                         exponents[e], js[i], got, want);
            if (exponents[e] == 1.0) {
                double h = log(20000.0) + 0.57721566490153286 + 1.0 / 40000.0;
                double eq17 = js[i] / h * (1.0 - 0.57721566490153286 + log(20000.0 * h / js[i]));
                print_message("    D(%g): direct %.1f, eq 17 %.1f (%+.2f%%)\n", js[i],
                              want, eq17, 100.0 * (eq17 - want) / want);
            }
        }
        for (double x = 1.0; x <= 20000.0; x++)
            sum += tdbf_prior_rank_probability(&prior, x);
        print_message("  power law s=%g: D(j) within %.2g (relative) of the direct "
                      "sum; sum of p_x over ranks %.12f\n", exponents[e], worst, sum);
        CHECK_NEAR(sum, 1.0, 1e-9);
    }
    CHECK_NEAR(tdbf_prior_rank_probability(&prior, 0.5), -1.0, 0.0);
    CHECK_NEAR(tdbf_prior_rank_probability(&prior, 20001.0), -1.0, 0.0);

    /* Sampled: exact at the samples, eq 18 between, D <= j. */
    static const double sj[] = {10.0, 100.0, 1000.0};
    static const double sd[] = {9.5, 80.0, 500.0};
    tdbf_prior_init(&prior, TDBF_PRIOR_SAMPLED, 0.0);
    prior.sample_inserts = sj;
    prior.sample_distinct = sd;
    prior.samples = 3;
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(tdbf_prior_distinct(&prior, sj[i]), sd[i], 1e-9 * sd[i]);
    CHECK_NEAR(tdbf_prior_distinct(&prior, sqrt(1000.0)), sqrt(9.5 * 80.0), 1e-9);
    CHECK_NEAR(tdbf_prior_distinct(&prior, sqrt(10.0)), sqrt(9.5), 1e-9);
    CHECK_NEAR(tdbf_prior_distinct(&prior, 10000.0), 500.0 * 500.0 / 80.0, 1e-6);
    CHECK_NEAR(tdbf_prior_distinct(&prior, 1.0), 1.0, 0.0);
    double previous = 0.0;
    for (double j = 1.0; j < 1e6; j *= 1.3) {
        double d = tdbf_prior_distinct(&prior, j);
        if (d < previous || d > j)
            fail_msg("sampled D(%g) = %.9g (previous %.9g)", j, d, previous);
        previous = d;
    }
    CHECK_NEAR(tdbf_prior_rank_probability(&prior, 1.0), -1.0, 0.0);
}

/* ======================================================================
 * Errors
 * ====================================================================== */

static void test_errors(void **state)
{
    (void)state;
    tdbf_config cfg = btbf_config(1000, 0, 0, 0, 0, 0xe77);
    tdbf *f = drv_open(&cfg);
    tdbf_prior prior, bad;
    double p = 0.0;
    tdbf_prior_init(&prior, TDBF_PRIOR_UNIFORM, 1000.0);

    CHECK_RC(tdbf_posterior(NULL, "a", 1, 0, &prior, &p), TDBF_EINVAL);
    CHECK_RC(tdbf_posterior(f, NULL, 1, 0, &prior, &p), TDBF_EINVAL);
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, NULL, &p), TDBF_EINVAL);
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &prior, NULL), TDBF_EINVAL);
    CHECK_RC(tdbf_expected_age(f, "a", 1, 0, &prior, NULL), TDBF_EINVAL);
    CHECK_RC(tdbf_posterior(f, NULL, 0, 0, &prior, &p), TDBF_OK); /* empty key */
    CHECK_RC(tdbf_decide(f, "a", 1, 0, &prior, -1.0, 1.0), TDBF_EINVAL);
    CHECK_RC(tdbf_decide(f, "a", 1, 0, &prior, 1.0, NAN), TDBF_EINVAL);
    CHECK_RC(tdbf_decide(f, "a", 1, 0, &prior, 1.0, INFINITY), TDBF_EINVAL);
    CHECK_RC(tdbf_decide(f, "a", 1, 0, &prior, 0.0, 0.0), 0);
    /* A universe of one key: p_x = 1, every insertion is this key. */
    tdbf_prior one;
    tdbf_prior_init(&one, TDBF_PRIOR_UNIFORM, 1.0);
    CHECK_RC(tdbf_add(f, "a", 1, 0), 0);
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &one, &p), TDBF_OK);
    CHECK_NEAR(p, 1.0, 0.0);
    CHECK_RC(tdbf_expected_age(f, "a", 1, 0, &one, &p), TDBF_OK);
    if (!(p >= 0.0 && p < 1.0))
        fail_msg("expected age with p_x = 1: %.17g, want in [0, 1)", p);

    bad = prior;
    bad.universe = 0.5;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL);
    bad.universe = NAN;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL);
    bad = prior;
    bad.key_probability = 1.5;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL);
    bad.key_probability = -0.1;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL);
    bad = prior;
    bad.model = (tdbf_prior_model)7;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL);
    tdbf_prior_init(&bad, TDBF_PRIOR_POWER_LAW, 1000.0);
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL); /* p_x unknown */
    bad.key_probability = 0.001;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_OK);
    bad.exponent = -1.0;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL);
    static const double unsorted_j[] = {10.0, 5.0}, ok_d[] = {5.0, 5.0};
    static const double ok_j[] = {10.0, 50.0}, too_big_d[] = {11.0, 20.0};
    tdbf_prior_init(&bad, TDBF_PRIOR_SAMPLED, 0.0);
    bad.key_probability = 0.001;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL); /* no table */
    bad.sample_inserts = unsorted_j;
    bad.sample_distinct = ok_d;
    bad.samples = 2;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL);
    bad.sample_inserts = ok_j;
    bad.sample_distinct = too_big_d;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_EINVAL);
    bad.sample_distinct = ok_d;
    CHECK_RC(tdbf_posterior(f, "a", 1, 0, &bad, &p), TDBF_OK);
    tdbf_close(f);
    tdbf_prior_init(NULL, TDBF_PRIOR_UNIFORM, 1.0); /* no-op */
}

/* Every other available design says TDBF_ENOTSUP. */
static void test_not_supported(void **state)
{
    (void)state;
    tdbf_prior prior;
    tdbf_prior_init(&prior, TDBF_PRIOR_UNIFORM, 1000.0);
    for (unsigned d = 0; d < TDBF_DESIGN_COUNT; d++) {
        if (d == TDBF_TBF || d == TDBF_BTBF || d == TDBF_APBF || d == TDBF_APBBF ||
            d == TDBF_APBF_LINE || !tdbf_design_available((tdbf_design)d))
            continue; /* APBF, APBBF, APBF_LINE: tests/unit/test_infer_apbf.c */
        tdbf_config cfg;
        tdbf_config_init(&cfg);
        cfg.design = (tdbf_design)d;
        cfg.window_items = 1000;
        cfg.seed = 5;
        tdbf *f = NULL;
        if (tdbf_open(&f, &cfg) != TDBF_OK) {
            cfg.window_items = 0;
            cfg.window_ns = UINT64_C(1000000000);
            if (tdbf_open(&f, &cfg) != TDBF_OK)
                fail_msg("design %s opens with neither window", tdbf_design_name((tdbf_design)d));
        }
        double p, age;
        CHECK_RC(tdbf_add(f, "x", 1, 1), 0);
        CHECK_RC(tdbf_posterior(f, "x", 1, 1, &prior, &p), TDBF_ENOTSUP);
        CHECK_RC(tdbf_expected_age(f, "x", 1, 1, &prior, &age), TDBF_ENOTSUP);
        CHECK_RC(tdbf_decide(f, "x", 1, 1, &prior, 1.0, 1.0), TDBF_ENOTSUP);
        print_message("  %s: ENOTSUP\n", tdbf_design_name((tdbf_design)d));
        tdbf_close(f);
    }
}

/* ======================================================================
 * On a stream
 * ====================================================================== */

/* A just-added key is almost surely inside; the posterior is 0 exactly
 * when the standard query says no; decide() agrees with its rule. */
static void test_sanity_on_stream(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++) {
        tdbf_config cfg = btbf_config(2000, 0, 0, 0, d ? 0 : 1, 0x5a + d);
        cfg.design = d ? TDBF_BTBF : TDBF_TBF;
        cfg.error = 0.01;
        tdbf *f = drv_open(&cfg);
        tdbf_prior prior;
        tdbf_prior_init(&prior, TDBF_PRIOR_UNIFORM, 8000.0);
        uint64_t rng = 0x5eed + d, zero = 0, positive = 0;
        double lowest_fresh = 1.0;
        for (uint64_t t = 0; t < DRV_PICK(100000, 20000); t++) {
            uint64_t x = drv_below(&rng, 8000);
            infer_add_item(f, x);
            double fresh = infer_posterior_of(f, x, &prior);
            lowest_fresh = fresh < lowest_fresh ? fresh : lowest_fresh;
            uint64_t y = drv_below(&rng, 8000);
            double p = infer_posterior_of(f, y, &prior);
            int standard = infer_contains_item(f, y);
            if ((p > 0.0) != (standard == 1))
                fail_msg("item %llu: posterior %.17g but the standard query says %d",
                         (unsigned long long)y, p, standard);
            zero += p == 0.0;
            positive += p > 0.0;
            uint8_t key[8];
            size_t len = infer_item_key(key, y);
            double age;
            CHECK_RC(tdbf_expected_age(f, key, len, 0, &prior, &age), TDBF_OK);
            if (!(age >= 0.0 && isfinite(age)))
                fail_msg("expected age %.17g", age);
            CHECK_RC(tdbf_decide(f, key, len, 0, &prior, 3.0, 2.0), 3.0 * (1.0 - p) < 2.0 * p);
            CHECK_RC(tdbf_decide(f, key, len, 0, &prior, 0.0, 1.0), p > 0.0);
        }
        print_message("  %s: just-added keys' posterior >= %.6f; %llu queries at 0, "
                      "%llu above\n", tdbf_design_name(cfg.design), lowest_fresh,
                      (unsigned long long)zero, (unsigned long long)positive);
        if (lowest_fresh < 0.99)
            fail_msg("a key added just now has posterior %.6f < 0.99", lowest_fresh);
        tdbf_close(f);
    }
}

/* The paper's experiment on a uniform stream (sections 5.1, 5.2): |U| and
 * w, a BTBF of a given shape, warm-up inserts, then for each item: ask the
 * posterior, the expected age, the standard answer and the decision under
 * penalties drawn from [1, 10), then insert it (infer_run.c). */
typedef struct stream_run {
    const char *label;
    uint64_t universe, window, warmup, queries, seed;
    unsigned k, bits;
    uint64_t cells, block;      /* block 1 with a TBF */
    tdbf_design design;         /* 0 (APBF) means BTBF here */
    int      power_law;         /* Zipf (s = 1) instead of uniform */
} stream_run;

static void run_stream(const stream_run *run, infer_result *res)
{
    tdbf_config cfg = btbf_config(run->window, run->k, run->cells, run->bits,
                                  run->block, run->seed);
    if (run->design != TDBF_APBF)
        cfg.design = run->design;
    tdbf *f = drv_open(&cfg);
    infer_stream stream = {run->universe, run->window, run->warmup, run->queries,
                           run->seed, run->power_law};
    infer_run_stream(f, &stream, res);
    tdbf_close(f);
}

/* Runs the stream, prints the 20-bin table, fails if a bin with at least
 * 1000 queries is more than 0.05 from its midpoint or fewer than
 * min_bins bins have 1000 queries.  Returns the posterior error, eq 28. */
static double check_calibration(const stream_run *run, unsigned min_bins,
                                infer_result *res)
{
    run_stream(run, res);
    print_message("  %s: %s k=%u m=%llu bits=%u B=%llu (%.2f bits/item), %llu queries, "
                  "Pos/Neg %.3f\n", run->label, tdbf_design_name(res->stats.design),
                  res->stats.k, (unsigned long long)res->stats.cells,
                  res->stats.cell_bits, (unsigned long long)res->stats.generation_size,
                  (double)res->stats.cells * res->stats.cell_bits / (double)run->window,
                  (unsigned long long)run->queries,
                  (double)res->inside / (double)res->outside);
    return infer_check_bins(run->label, res, min_bins, 0.0);
}

static void test_calibration_uniform(void **state)
{
    (void)state;
    /* Uniform, [Pos ~ Neg] (Table 3: |U| = w = 2^16, Pos/Neg 1.718), a
     * BTBF of 4-bit timers at 6 bits per item: posteriors spread over the
     * whole range, every bin gets its 1000 queries. */
    stream_run run = {"uniform |U|=w=2^16", 65536, 65536, 1 << 20,
                      DRV_PICK(1 << 21, 1 << 18), 0xca1, 2, 4, 98304, 0, 0, 0};
    infer_result res;
    check_calibration(&run, DRV_PICK(20u, 5u), &res);
    print_message("  mean true age %.1f, mean E[I|R] %.1f (over queried keys)\n",
                  res.mean_true_age, res.mean_expected_age);
    if (fabs(res.mean_expected_age - res.mean_true_age) > 0.05 * res.mean_true_age)
        fail_msg("mean expected age %.1f vs mean true age %.1f: more than 5%% apart",
                 res.mean_expected_age, res.mean_true_age);
}

static void test_calibration_tbf_and_power_law(void **state)
{
    (void)state;
    infer_result res;
    /* The TBF (B = 1): stamps are exact, the posterior leans on the cells
     * that still hold the oldest one. */
    stream_run tbf = {"uniform |U|=w=2^12, TBF", 4096, 4096, 1 << 16,
                      DRV_PICK(1 << 19, 1 << 16), 0xca2, 2, 0, 4096, 1, TDBF_TBF, 0};
    check_calibration(&tbf, DRV_PICK(6u, 2u), &res);
    /* Zipf over 2^16 keys, [Pos ~ Neg] (Table 3: w = 2^11), p_x known. */
    stream_run zipf = {"power law |U|=2^16 w=2^11", 65536, 2048, 1 << 20,
                       DRV_PICK(1 << 19, 1 << 16), 0xca3, 2, 4, 3072, 0, 0, 1};
    check_calibration(&zipf, DRV_PICK(8u, 2u), &res);
}

static void test_decisions_reduce_penalty(void **state)
{
    (void)state;
    /* The paper's synthetic conditions (Table 3), at a few memory sizes. */
    stream_run runs[] = {
        {"uniform [Pos~Neg] w=2^16 ~6 bits/item", 65536, 65536, 1 << 20,
         DRV_PICK(1 << 20, 1 << 17), 0xdec1, 2, 4, 98304, 0, 0, 0},
        {"uniform [Pos~Neg] w=2^16 ~16 bits/item", 65536, 65536, 1 << 20,
         DRV_PICK(1 << 20, 1 << 17), 0xdec2, 3, 4, 262144, 0, 0, 0},
        {"uniform [Pos>Neg] w=2^18 ~6 bits/item", 65536, 262144, 1 << 20,
         DRV_PICK(1 << 20, 1 << 17), 0xdec3, 2, 4, 393216, 0, 0, 0},
        {"power law [Pos~Neg] w=2^11 ~6 bits/item", 65536, 2048, 1 << 20,
         DRV_PICK(1 << 19, 1 << 16), 0xdec4, 2, 4, 3072, 0, 0, 1},
        {"power law [Pos>Neg] w=2^18 ~6 bits/item", 65536, 262144, 1 << 20,
         DRV_PICK(1 << 19, 1 << 16), 0xdec5, 2, 4, 393216, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        infer_result res;
        run_stream(&runs[i], &res);
        print_message("  %s (k=%u B=%llu): Pos/Neg %.3f, penalty standard %.0f, "
                      "min-penalty %.0f, ratio %.3f\n", runs[i].label, res.stats.k,
                      (unsigned long long)res.stats.generation_size,
                      (double)res.inside / (double)res.outside,
                      res.penalty_standard, res.penalty_inferential,
                      res.penalty_standard / res.penalty_inferential);
        if (res.penalty_inferential > res.penalty_standard)
            fail_msg("%s: min-penalty answers cost %.0f > standard %.0f",
                     runs[i].label, res.penalty_inferential, res.penalty_standard);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_forms_match_sums),
        cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_distinct_models),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_not_supported),
        cmocka_unit_test(test_sanity_on_stream),
        cmocka_unit_test(test_calibration_uniform),
        cmocka_unit_test(test_calibration_tbf_and_power_law),
        cmocka_unit_test(test_decisions_reduce_penalty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
