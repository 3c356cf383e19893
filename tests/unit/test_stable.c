/*
 * test_stable.c — the Stable Bloom filter (Deng & Rafiei 2006, stable.c).
 *
 * It forgets at random by design; the tests measure its two error rates at
 * the stable point against the formulas, and check the formulas against an
 * independent model:
 *   - the model: one cell as a Markov chain over 0 .. Max (per add:
 *     decrement with probability P/m, then set to Max with probability
 *     K/m), iterated step by step here.  The library's closed forms (zero
 *     fraction after N adds, stable point, FN after t adds) must agree
 *     with it, and the stable point with the paper's expression;
 *   - false negatives: keys added t adds ago, at 12 ages, answer no at the
 *     rate FN(t) = 1 - (1 - z(t))^K within the 99.9% binomial band
 *     (exactly never for t < Max: a cell needs Max decrements);
 *   - false positives of never-inserted keys and the fraction of zero
 *     cells, at the stable point and on the way there;
 *   - the generic driver, the planner, reproducibility from the seed.
 *
 * Cells decremented by one run of P consecutive cells are correlated with
 * their neighbours, so the zero fraction of one filter varies more than
 * m independent cells would: the bands on it use the variance measured
 * over several seeds' filters, never a formula that assumes independence.
 */
#include "decay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Filters (seeds) measured side by side where one filter's trials are
 * correlated: the bands use their spread. */
enum { FILTERS = 8 };

/* ---- the model: one cell's Markov chain -------------------------------- */

typedef struct chain {
    double   p_drain;   /* P/m: decremented by an add */
    double   p_set;     /* 1/c = K/m: set to Max by an add */
    unsigned max;
    double   state[256];
} chain;

static void chain_init(chain *c, const tdbf_decay_plan *plan, unsigned start)
{
    memset(c, 0, sizeof *c);
    c->p_drain = (double)plan->decrements / (double)plan->cells;
    c->p_set = 1.0 / (double)(plan->cells / plan->k);
    c->max = (1u << plan->cell_bits) - 1;
    c->state[start ? c->max : 0] = 1.0;
}

/* One add: first the decrements, then the key's cells are set. */
static void chain_step(chain *c)
{
    unsigned v;
    double set = 0.0;
    c->state[0] += c->p_drain * c->state[1];
    for (v = 1; v < c->max; v++)
        c->state[v] = (1.0 - c->p_drain) * c->state[v] + c->p_drain * c->state[v + 1];
    c->state[c->max] *= 1.0 - c->p_drain;
    for (v = 0; v <= c->max; v++) {
        set += c->p_set * c->state[v];
        c->state[v] *= 1.0 - c->p_set;
    }
    c->state[c->max] += set;
}

/* The fraction of zero cells, read back from the stats estimate
 * (1 - zeros)^K. */
static double zero_fraction(const tdbf *f)
{
    tdbf_stats st;
    CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
    return 1.0 - pow(st.error_estimated, 1.0 / st.k);
}

/* Adds so many that the zero fraction is within 10^-6 of the stable point. */
static uint64_t adds_to_stable(const tdbf_decay_plan *plan)
{
    double stable = tdbf_stable_zeros(plan->cells, plan->k, plan->cell_bits,
                                      plan->decrements, UINT64_MAX);
    uint64_t n = plan->cells / plan->k;
    while (fabs(tdbf_stable_zeros(plan->cells, plan->k, plan->cell_bits,
                                  plan->decrements, n) - stable) > 1e-6)
        n *= 2;
    return n;
}

/* ======================================================================
 * The formulas against the chain, and the paper's stable point
 * ====================================================================== */

static void check_formulas(const tdbf_config *cfg)
{
    tdbf_decay_plan plan = decay_plan(cfg);
    unsigned max = (1u << plan.cell_bits) - 1;
    chain from_set, from_empty;
    double paper, zero_now;
    uint64_t t, steps;

    /* Deng & Rafiei: zeros = (1 / (1 + 1/(P (1/K - 1/m))))^Max */
    paper = pow(1.0 / (1.0 + 1.0 / ((double)plan.decrements *
                                    (1.0 / plan.k - 1.0 / (double)plan.cells))),
                max);
    CHECK_NEAR(tdbf_stable_zeros(plan.cells, plan.k, plan.cell_bits,
                                 plan.decrements, UINT64_MAX), paper, 1e-12);
    CHECK_NEAR(plan.fp, pow(1.0 - paper, plan.k), 1e-12);
    /* ... and P is the paper's least P for the error, rounded up */
    {
        double z = 1.0 - pow(cfg->error, 1.0 / plan.k);
        double p = 1.0 / ((pow(z, -1.0 / max) - 1.0) *
                          (1.0 / plan.k - 1.0 / (double)plan.cells));
        if (!((double)plan.decrements >= p - 1e-6 && (double)plan.decrements < p + 1.0))
            fail_msg("P = %llu, the paper's formula gives %.4f",
                     (unsigned long long)plan.decrements, p);
    }

    chain_init(&from_set, &plan, 1);
    chain_init(&from_empty, &plan, 0);
    steps = adds_to_stable(&plan);
    if (steps > 20 * plan.window)
        steps = 20 * plan.window;
    for (t = 0; t <= steps; t++) {
        if (t % 97 == 0 || t < 2 * max) {
            zero_now = 1.0 - pow(1.0 - from_set.state[0], plan.k);
            CHECK_NEAR(tdbf_stable_forget(plan.cells, plan.k, plan.cell_bits,
                                          plan.decrements, t), zero_now, 1e-9);
            CHECK_NEAR(tdbf_stable_zeros(plan.cells, plan.k, plan.cell_bits,
                                         plan.decrements, t),
                       from_empty.state[0], 1e-9);
        }
        chain_step(&from_set);
        chain_step(&from_empty);
    }
    /* the stable point is where the chain ends up */
    if (steps == adds_to_stable(&plan))
        CHECK_NEAR(from_empty.state[0], paper, 2e-6);
    print_message("  stable d=%u K=%u m=%llu P=%llu: zeros at the stable point "
                  "%.6f (paper's form %.6f), FP %.6f; FN(w) %.6f; closed forms "
                  "= chain to 1e-9 over %llu adds\n",
                  plan.cell_bits, plan.k, (unsigned long long)plan.cells,
                  (unsigned long long)plan.decrements,
                  tdbf_stable_zeros(plan.cells, plan.k, plan.cell_bits,
                                    plan.decrements, UINT64_MAX),
                  paper, plan.fp, 1.0 - plan.survival,
                  (unsigned long long)steps);
}

static void test_formulas(void **state)
{
    tdbf_config cfg = decay_config(TDBF_STABLE, 2000, 0.05, 0.9, 1);
    (void)state;
    check_formulas(&cfg);
    cfg.cell_max_bits = 1;
    check_formulas(&cfg);
    cfg.cell_max_bits = 3;
    cfg.error = 0.01;
    check_formulas(&cfg);
    cfg.cell_max_bits = 8;
    check_formulas(&cfg);
}

/* ======================================================================
 * False negatives at the stable point
 * ====================================================================== */

static void check_forget_curve(unsigned d, uint64_t seed)
{
    const uint64_t window = 2000;
    tdbf_config cfg = decay_config(TDBF_STABLE, window, 0.05, 0.9, seed);
    tdbf_decay_plan plan;
    decay_curve curves[FILTERS];
    double p_yes[DECAY_MAX_AGES];
    chain cell;
    char label[112];
    uint64_t t, i;
    size_t a = 0, r;
    unsigned max;

    cfg.cell_max_bits = d;
    plan = decay_plan(&cfg);
    max = (1u << d) - 1;
    memset(curves, 0, sizeof curves);
    {
        const uint64_t ages[] = {0, 1, max - 1, window / 16, window / 8,
                                 window / 4, window / 2, window, 3 * window / 2,
                                 2 * window, 4 * window, 8 * window};
        curves[0].ages = sizeof ages / sizeof ages[0];
        memcpy(curves[0].age, ages, sizeof ages);
    }
    curves[0].steps = DRV_PICK(20000, 4000) / FILTERS;
    /* yes = 1 - FN(t), FN from the chain (the library's closed form is
     * checked against the same chain in test_formulas) */
    chain_init(&cell, &plan, 1);
    for (t = 0; a < curves[0].ages; t++) {
        while (a < curves[0].ages && curves[0].age[a] == t)
            p_yes[a++] = pow(1.0 - cell.state[0], plan.k);
        chain_step(&cell);
    }

    for (r = 0; r < FILTERS; r++) {
        tdbf *f;
        cfg.seed = seed + r;
        f = drv_open(&cfg);
        if (r > 0)
            curves[r] = curves[0];
        curves[r].key_seed = cfg.seed;
        curves[r].adds = 0;
        /* warm up to the stable point (FN does not depend on it; FP does) */
        for (i = adds_to_stable(&plan); i > 0; i--)
            drv_add_index(f, cfg.seed ^ 0x3a3a, i);
        decay_curve_run(f, &curves[r]);
        tdbf_close(f);
    }
    snprintf(label, sizeof label,
             "stable d=%u K=%u m=%llu P=%llu (w=%llu): answers yes",
             d, plan.k, (unsigned long long)plan.cells,
             (unsigned long long)plan.decrements, (unsigned long long)window);
    decay_curves_check(label, curves, FILTERS, p_yes);
}

static void test_forget_curve(void **state)
{
    (void)state;
    check_forget_curve(4, 0x5b04);
    check_forget_curve(2, 0x5b02);
}

/* ======================================================================
 * Zero cells and false positives, over several filters
 * ====================================================================== */


static double mean_of(const double *x, size_t n)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

static double variance_of(const double *x, size_t n)
{
    double mean = mean_of(x, n), sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += (x[i] - mean) * (x[i] - mean);
    return sum / (double)(n - 1);
}

/* Runs FILTERS filters (seeds) side by side; at each checkpoint compares
 * the mean zero fraction with tdbf_stable_zeros(N), and at the last one,
 * the stable point, also the FP of never-inserted keys. */
static void check_zeros_and_fp(unsigned d, double error)
{
    /* in segment sizes c; the last one, at least adds_to_stable() */
    static const double checkpoints[] = {0.25, 1, 4, 16};
    const size_t n_points = sizeof checkpoints / sizeof checkpoints[0];
    tdbf_config cfg = decay_config(TDBF_STABLE, 5000, error, 0.9, 0);
    tdbf_decay_plan plan;
    tdbf *filters[FILTERS];
    double zeros[FILTERS], fp[FILTERS];
    uint64_t probes = DRV_PICK(100000, 20000), done = 0, segment;
    size_t i, p;

    cfg.cell_max_bits = d;
    plan = decay_plan(&cfg);
    segment = plan.cells / plan.k;
    for (i = 0; i < FILTERS; i++) {
        cfg.seed = 0x2e805 + i;
        filters[i] = drv_open(&cfg);
    }
    print_message("  stable d=%u K=%u m=%llu P=%llu, %d filters:\n"
                  "  %10s %10s %10s %10s\n", d, plan.k,
                  (unsigned long long)plan.cells,
                  (unsigned long long)plan.decrements, FILTERS, "adds",
                  "zeros", "formula", "band +-");
    for (p = 0; p < n_points; p++) {
        uint64_t adds = (uint64_t)(checkpoints[p] * (double)segment);
        if (p + 1 == n_points && adds < adds_to_stable(&plan))
            adds = adds_to_stable(&plan);
        double want, band;
        for (i = 0; i < FILTERS; i++) {
            uint64_t j;
            for (j = done; j < adds; j++)
                drv_add_index(filters[i], 0x2e805 + i, j);
            zeros[i] = zero_fraction(filters[i]);
        }
        done = adds;
        want = tdbf_stable_zeros(plan.cells, plan.k, plan.cell_bits,
                                 plan.decrements, adds);
        /* the mean of FILTERS filters, with their own measured spread */
        band = decay_t999(FILTERS - 1) * sqrt(variance_of(zeros, FILTERS) / FILTERS) + 1e-9;
        print_message("  %10llu %10.6f %10.6f %10.6f\n", (unsigned long long)adds,
                      mean_of(zeros, FILTERS), want, band);
        if (fabs(mean_of(zeros, FILTERS) - want) > band)
            fail_msg("after %llu adds: zero fraction %.6f, formula %.6f, "
                     "band +- %.6f", (unsigned long long)adds,
                     mean_of(zeros, FILTERS), want, band);
    }

    /* False positives at the last checkpoint, the stable point: each
     * filter's rate is its own (1 - zeros)^K plus probe noise, so the
     * mean over filters is compared within the spread of the filters. */
    {
        double want = pow(1.0 - tdbf_stable_zeros(plan.cells, plan.k, plan.cell_bits,
                                                  plan.decrements, done), plan.k);
        double band, measured;
        for (i = 0; i < FILTERS; i++)
            fp[i] = (double)drv_probe_hits(filters[i], 0x2e805 + i, 0, probes, 0) /
                    (double)probes;
        measured = mean_of(fp, FILTERS);
        band = decay_t999(FILTERS - 1) * sqrt(variance_of(fp, FILTERS) / FILTERS) + 1e-9;
        print_message("  FP at the stable point: %.6f (filters %.6f .. ), "
                      "formula %.6f, band +- %.6f, planned %.6f <= error %g\n",
                      measured, fp[0], want, band, plan.fp, error);
        if (fabs(measured - want) > band)
            fail_msg("stable d=%u: FP %.6f, formula %.6f, band +- %.6f", d,
                     measured, want, band);
        CHECK_NEAR(plan.fp, pow(1.0 - tdbf_stable_zeros(plan.cells, plan.k,
                                                        plan.cell_bits,
                                                        plan.decrements,
                                                        UINT64_MAX), plan.k),
                   1e-12);
        if (!(plan.fp <= error))
            fail_msg("planned FP %.6f above the error %g", plan.fp, error);
    }
    for (i = 0; i < FILTERS; i++)
        tdbf_close(filters[i]);
}

static void test_zeros_and_fp(void **state)
{
    (void)state;
    check_zeros_and_fp(4, 0.05);
    check_zeros_and_fp(3, 0.01);
}

/* ======================================================================
 * The generic driver; reproducibility; planner; errors
 * ====================================================================== */

static void test_driver(void **state)
{
    tdbf_config cfg = decay_config(TDBF_STABLE, 5000, 0.01, 0, 0x5d71);
    (void)state;
    decay_driver_check("stable planned e=0.01 w=5000", &cfg, 8 * cfg.window_items, 0);
    cfg.seed = 0x5d72;
    decay_driver_check("stable planned e=0.01 w=5000 batch=64", &cfg,
                       8 * cfg.window_items, 64);
}

static void test_same_seed_same_filter(void **state)
{
    tdbf_config cfg = decay_config(TDBF_STABLE, 1000, 0.05, 0.9, 0x5eed);
    tdbf *a = drv_open(&cfg), *b = drv_open(&cfg), *other;
    uint64_t i, differ = 0;
    (void)state;
    cfg.seed = 0x5eee;
    other = drv_open(&cfg);
    for (i = 0; i < 20000; i++) {
        int ra = drv_add_index(a, 7, i), rb = drv_add_index(b, 7, i);
        drv_add_index(other, 7, i);
        if (ra != rb)
            fail_msg("add #%llu: %d and %d from two filters with one seed",
                     (unsigned long long)i, ra, rb);
    }
    for (i = 0; i < 20000; i++) {
        int ra = drv_contains_index(a, 7, i), rb = drv_contains_index(b, 7, i);
        if (ra != rb)
            fail_msg("key %llu: %d and %d from two filters with one seed",
                     (unsigned long long)i, ra, rb);
        differ += (uint64_t)(ra != drv_contains_index(other, 7, i));
    }
    CHECK_NEAR(zero_fraction(a), zero_fraction(b), 0);
    if (differ == 0)
        fail_msg("a different seed gave the very same answers");
    tdbf_close(a);
    tdbf_close(b);
    tdbf_close(other);
}

static void test_planner(void **state)
{
    unsigned d;
    (void)state;
    print_message("  stable plans for w=10^6, e=0.01, FN(w) <= 0.01:\n"
                  "  %2s %3s %6s %11s %10s %9s %9s\n", "d", "K", "P", "m",
                  "bits/item", "fp", "FN(w)");
    for (d = 1; d <= 8; d++) {
        tdbf_config cfg = decay_config(TDBF_STABLE, 1000000, 0.01, 0, 1);
        tdbf_decay_plan plan;
        cfg.cell_max_bits = d;
        cfg.max_memory = UINT64_MAX;
        plan = decay_plan(&cfg);
        print_message("  %2u %3u %6llu %11llu %10.2f %9.6f %9.6f\n", d, plan.k,
                      (unsigned long long)plan.decrements,
                      (unsigned long long)plan.cells, plan.bits_per_item,
                      plan.fp, 1.0 - plan.survival);
        if (!(plan.fp <= 0.01 && plan.survival >= 0.99))
            fail_msg("d=%u: plan FP %.6f, survival %.6f", d, plan.fp,
                     plan.survival);
        /* one segment cell less would forget too much */
        if (tdbf_stable_forget(plan.cells - plan.k, plan.k, d, plan.decrements,
                               plan.window) <= 0.01 &&
            pow(1.0 - tdbf_stable_zeros(plan.cells - plan.k, plan.k, d,
                                        plan.decrements, UINT64_MAX), plan.k) <= 0.01)
            fail_msg("d=%u: m=%llu is not the least", d,
                     (unsigned long long)plan.cells);
    }
    {
        /* explicit P and K */
        tdbf_config cfg = decay_config(TDBF_STABLE, 10000, 0.05, 0.9, 1);
        tdbf_decay_plan plan;
        cfg.positions = 3;
        cfg.decrements = 120;     /* the formula would take 97 */
        plan = decay_plan(&cfg);
        CHECK_U64_EQ(plan.k, 3);
        CHECK_U64_EQ(plan.decrements, 120);
        CHECK_U64_EQ(plan.cell_bits, 4);
    }
}

static void test_errors(void **state)
{
    tdbf_config good = decay_config(TDBF_STABLE, 1000, 0.01, 0, 1), cfg;
    tdbf_decay_plan plan;
    tdbf *f = NULL;
    (void)state;

    /* (the checks common to both designs are in test_fpdecay.c) */
    cfg = good; cfg.cell_max_bits = 9;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    /* one decrement per add cannot drain enough cells for 1% FP */
    cfg = good; cfg.decrements = 1;
    CHECK_RC(tdbf_plan_decay(&cfg, &plan), TDBF_EINFEASIBLE);
    cfg = good; cfg.max_memory = 100;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_ETOOBIG);
    if (f != NULL)
        fail_msg("a failed tdbf_open left a handle");

    CHECK_NEAR(tdbf_stable_zeros(100, 0, 4, 10, 5), -1.0, 0);
    CHECK_NEAR(tdbf_stable_zeros(100, 2, 9, 10, 5), -1.0, 0);
    CHECK_NEAR(tdbf_stable_zeros(3, 2, 4, 1, 5), -1.0, 0);
    CHECK_NEAR(tdbf_stable_zeros(100, 2, 4, 101, 5), -1.0, 0);
    CHECK_NEAR(tdbf_stable_forget(100, 2, 4, 0, 5), -1.0, 0);
    CHECK_NEAR(tdbf_stable_zeros(100, 2, 4, 10, 0), 1.0, 0);
    /* a cell needs Max decrements: nothing is forgotten before t = Max */
    CHECK_NEAR(tdbf_stable_forget(100, 2, 4, 10, 14), 0.0, 0);
    if (!(tdbf_stable_forget(100, 2, 4, 10, 15) > 0.0))
        fail_msg("FN(Max) should be positive");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formulas),
        cmocka_unit_test(test_forget_curve),
        cmocka_unit_test(test_zeros_and_fp),
        cmocka_unit_test(test_driver),
        cmocka_unit_test(test_same_seed_same_filter),
        cmocka_unit_test(test_planner),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("stable", tests, NULL, NULL);
}
