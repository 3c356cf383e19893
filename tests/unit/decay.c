/*
 * decay.c — helpers for the tests of designs that forget at random; see
 * decay.h.
 */
#include "decay.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

tdbf_config decay_config(tdbf_design design, uint64_t window, double error,
                         double survival, uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.window_items = window;
    cfg.error = error;
    cfg.survival = survival;
    cfg.seed = seed;
    return cfg;
}

tdbf_decay_plan decay_plan(const tdbf_config *cfg)
{
    tdbf_decay_plan plan;
    memset(&plan, 0, sizeof plan);
    CHECK_RC(tdbf_plan_decay(cfg, &plan), TDBF_OK);
    return plan;
}

void decay_driver_check(const char *label, const tdbf_config *cfg,
                        uint64_t inserts, size_t batch)
{
    tdbf_decay_plan plan = decay_plan(cfg);
    drv_opts o;
    drv_result r;
    double edge, fn_rate, band;

    memset(&o, 0, sizeof o);
    o.window_kind = DRV_COUNT_WINDOW;
    o.inserts = inserts;
    o.probes = 100000;
    o.key_seed = cfg->seed;
    o.batch = batch;
    o.allow_fn = 1;
    drv_run(cfg, &o, &r);
    drv_check(label, &r, 1);

    edge = 1.0 - plan.survival;
    fn_rate = (double)r.false_negatives / (double)r.checks;
    band = drv_band(edge, (double)r.checks, 0.0);
    print_message("  %s: forgotten %.6f of the checked keys, edge 1 - P(yes "
                  "at w) = %.6f (+ band %.6f); plan %u cells per key of %u "
                  "bits, %.2f bits/item\n", label, fn_rate, edge, band,
                  plan.k, plan.cell_bits, plan.bits_per_item);
    if (fn_rate > edge + band)
        fail_msg("%s: %.6f of the keys inside the window forgotten, more "
                 "than the edge rate %.6f + %.6f", label, fn_rate, edge, band);
    CHECK_U64_EQ(r.stats.items, r.inserted);
    CHECK_U64_EQ(r.stats.window_items, cfg->window_items);
    CHECK_U64_EQ(r.stats.k, plan.k);
    CHECK_U64_EQ(r.stats.slices, 1);
    CHECK_U64_EQ(r.stats.slice_bits, plan.cells * plan.cell_bits);
    CHECK_NEAR(r.stats.error_planned, plan.fp, 0);
    CHECK_U64_GE(r.stats.memory_bytes, plan.bytes);
    if (r.bits_per_item > plan.bits_per_item * 1.01)
        fail_msg("%s: %.3f bits/item, plan %.3f", label, r.bits_per_item,
                 plan.bits_per_item);
}

void decay_curve_run(tdbf *f, decay_curve *c)
{
    uint64_t oldest = 0, first = c->adds, i;
    size_t a;

    for (a = 0; a < c->ages; a++) {
        c->yes[a] = 0;
        if (c->age[a] > oldest)
            oldest = c->age[a];
    }
    /* Queries start once the oldest age reaches back into this run. */
    for (i = first; i < first + oldest + c->steps; i++) {
        drv_add_index(f, c->key_seed, i);
        if (i < first + oldest)
            continue;
        for (a = 0; a < c->ages; a++)
            c->yes[a] += (uint64_t)drv_contains_index(f, c->key_seed, i - c->age[a]);
    }
    c->adds = i;
}

double decay_count_band(double p, double trials)
{
    if (p <= 0.0 || p >= 1.0)
        return 0.0;   /* a certain outcome must be exact */
    return DRV_Z999 * sqrt(trials * p * (1.0 - p)) + 1.0;
}

void decay_curve_check(const char *label, const decay_curve *c,
                       const double *p_yes)
{
    double steps = (double)c->steps;
    size_t a, outside = 0;

    print_message("  %s: %llu trials per age\n"
                  "  %10s %10s %10s %10s\n", label,
                  (unsigned long long)c->steps, "age t", "measured", "formula",
                  "band +-");
    for (a = 0; a < c->ages; a++) {
        double want = steps * p_yes[a];
        double band = decay_count_band(p_yes[a], steps);
        int out = fabs((double)c->yes[a] - want) > band;
        print_message("  %10llu %10.6f %10.6f %10.6f%s\n",
                      (unsigned long long)c->age[a],
                      (double)c->yes[a] / steps, p_yes[a], band / steps,
                      out ? "  <- outside" : "");
        outside += (size_t)out;
    }
    for (a = 0; a < c->ages; a++) {
        double want = steps * p_yes[a];
        double band = decay_count_band(p_yes[a], steps);
        if (fabs((double)c->yes[a] - want) > band)
            fail_msg("%s: age %llu: %llu of %llu answered yes (%.6f), "
                     "formula %.6f, band +- %.6f (%zu ages outside)",
                     label, (unsigned long long)c->age[a],
                     (unsigned long long)c->yes[a],
                     (unsigned long long)c->steps, (double)c->yes[a] / steps,
                     p_yes[a], band / steps, outside);
    }
}

double decay_t999(size_t df)
{
    static const double quantile[] = {
        0, 636.62, 31.599, 12.924, 8.610, 6.869, 5.959, 5.408, 5.041,
        4.781, 4.587, 4.437, 4.318, 4.221, 4.140, 4.073
    };
    if (df < 1 || df >= sizeof quantile / sizeof quantile[0])
        fail_msg("decay_t999: %zu degrees of freedom not tabulated", df);
    return quantile[df];
}

void decay_curves_check(const char *label, const decay_curve *curves,
                        size_t runs, const double *p_yes)
{
    double steps = (double)curves[0].steps, quantile = decay_t999(runs - 1);
    size_t a, r, outside = 0;
    double mean[DECAY_MAX_AGES], band[DECAY_MAX_AGES];

    for (a = 0; a < curves[0].ages; a++) {
        double sum = 0.0, squares = 0.0;
        for (r = 0; r < runs; r++)
            sum += (double)curves[r].yes[a] / steps;
        mean[a] = sum / (double)runs;
        for (r = 0; r < runs; r++) {
            double x = (double)curves[r].yes[a] / steps - mean[a];
            squares += x * x;
        }
        band[a] = p_yes[a] <= 0.0 || p_yes[a] >= 1.0
                      ? 0.0
                      : quantile * sqrt(squares / (double)(runs - 1) / (double)runs) +
                            1.0 / steps;
    }
    print_message("  %s: %zu filters x %llu trials per age\n"
                  "  %10s %10s %10s %10s\n", label, runs,
                  (unsigned long long)curves[0].steps, "age t", "measured",
                  "formula", "band +-");
    for (a = 0; a < curves[0].ages; a++) {
        int out = fabs(mean[a] - p_yes[a]) > band[a];
        print_message("  %10llu %10.6f %10.6f %10.6f%s\n",
                      (unsigned long long)curves[0].age[a], mean[a], p_yes[a],
                      band[a], out ? "  <- outside" : "");
        outside += (size_t)out;
    }
    for (a = 0; a < curves[0].ages; a++)
        if (fabs(mean[a] - p_yes[a]) > band[a])
            fail_msg("%s: age %llu: mean rate of yes %.6f over %zu filters, "
                     "formula %.6f, band +- %.6f (%zu ages outside)", label,
                     (unsigned long long)curves[0].age[a], mean[a], runs,
                     p_yes[a], band[a], outside);
}
