/*
 * infer_run.c — the inference tests' shared stream and calibration check
 * (infer_run.h).
 */
#include "infer_run.h"

#include <math.h>
#include <string.h>

#include "driver.h"

size_t infer_item_key(uint8_t *buf, uint64_t x)
{
    for (int i = 0; i < 8; i++)
        buf[i] = (uint8_t)(x >> (8 * i));
    return 8;
}

void infer_add_item(tdbf *f, uint64_t x)
{
    uint8_t key[8];
    size_t len = infer_item_key(key, x);
    int rc = tdbf_add(f, key, len, 0);
    if (rc < 0)
        fail_msg("tdbf_add(item %llu) returned %d (%s)", (unsigned long long)x, rc,
                 tdbf_strerror(rc));
}

int infer_contains_item(const tdbf *f, uint64_t x)
{
    uint8_t key[8];
    size_t len = infer_item_key(key, x);
    int rc = tdbf_contains(f, key, len, 0);
    if (rc < 0)
        fail_msg("tdbf_contains(item %llu) returned %d (%s)", (unsigned long long)x, rc,
                 tdbf_strerror(rc));
    return rc;
}

double infer_posterior_of(const tdbf *f, uint64_t x, const tdbf_prior *prior)
{
    uint8_t key[8];
    size_t len = infer_item_key(key, x);
    double p = -1.0;
    int rc = tdbf_posterior(f, key, len, 0, prior, &p);
    if (rc != TDBF_OK)
        fail_msg("tdbf_posterior(item %llu) returned %d (%s)", (unsigned long long)x, rc,
                 tdbf_strerror(rc));
    if (!(p >= 0.0 && p <= 1.0))
        fail_msg("posterior of item %llu is %.17g, not in [0, 1]", (unsigned long long)x, p);
    return p;
}

double infer_unit(uint64_t *rng)
{
    return (double)(drv_rand(rng) >> 11) / 9007199254740992.0;
}

/* Draws item x (rank x + 1) of a Zipf law from its cumulative table. */
static uint64_t draw_zipf(const double *cumulative, uint64_t universe, uint64_t *rng)
{
    double u = infer_unit(rng);
    uint64_t lo = 0, hi = universe - 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (cumulative[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* One query of item x at step t (then x is inserted). */
static void query_step(tdbf *f, const infer_stream *s, const tdbf_prior *prior,
                       const uint64_t *last, uint64_t x, uint64_t t, uint64_t *rng,
                       infer_result *res)
{
    double cost_fp = 1.0 + 9.0 * infer_unit(rng);
    double cost_fn = 1.0 + 9.0 * infer_unit(rng);
    uint8_t key[8];
    size_t len = infer_item_key(key, x);
    double p, age;
    CHECK_RC(tdbf_posterior(f, key, len, 0, prior, &p), TDBF_OK);
    CHECK_RC(tdbf_expected_age(f, key, len, 0, prior, &age), TDBF_OK);
    int standard = infer_contains_item(f, x);
    int decision = tdbf_decide(f, key, len, 0, prior, cost_fp, cost_fn);
    if (decision < 0)
        fail_msg("tdbf_decide returned %d (%s)", decision, tdbf_strerror(decision));
    /* I_x: inserts since x's latest add (never added: outside). */
    int inside = last[x] != 0 && t - last[x] < s->window;
    int bin = (int)(p * 20.0);
    bin = bin > 19 ? 19 : bin;
    res->bin_count[bin] += 1.0;
    res->bin_inside[bin] += inside;
    res->bin_posterior[bin] += p;
    res->penalty_standard += standard && !inside ? cost_fp : !standard && inside ? cost_fn : 0.0;
    res->penalty_inferential += decision && !inside ? cost_fp : !decision && inside ? cost_fn : 0.0;
    if (last[x] != 0) {
        res->mean_true_age += (double)(t - last[x]);
        res->mean_expected_age += age;
    }
    res->inside += (uint64_t)inside;
    res->outside += (uint64_t)!inside;
}

void infer_run_stream(tdbf *f, const infer_stream *s, infer_result *res)
{
    uint64_t *last = test_calloc(s->universe, sizeof *last); /* 1 + insert index */
    double *cumulative = NULL, *probability = NULL;
    uint64_t rng = s->seed, t = 0;
    tdbf_prior prior;
    tdbf_prior_init(&prior, s->power_law ? TDBF_PRIOR_POWER_LAW : TDBF_PRIOR_UNIFORM,
                    (double)s->universe);
    memset(res, 0, sizeof *res);
    if (s->power_law) {
        double sum = 0.0;
        cumulative = test_malloc(s->universe * sizeof *cumulative);
        probability = test_malloc(s->universe * sizeof *probability);
        for (uint64_t x = 0; x < s->universe; x++) {
            probability[x] = tdbf_prior_rank_probability(&prior, (double)(x + 1));
            sum += probability[x];
            cumulative[x] = sum;
        }
    }
    for (uint64_t q = 0; q < s->warmup + s->queries; q++, t++) {
        uint64_t x = cumulative ? draw_zipf(cumulative, s->universe, &rng)
                                : drv_below(&rng, s->universe);
        if (q >= s->warmup) {
            if (probability)
                prior.key_probability = probability[x];
            query_step(f, s, &prior, last, x, t, &rng, res);
        }
        infer_add_item(f, x);
        last[x] = t + 1;
    }
    res->mean_true_age /= (double)s->queries;
    res->mean_expected_age /= (double)s->queries;
    CHECK_RC(tdbf_get_stats(f, &res->stats), TDBF_OK);
    test_free(last);
    test_free(cumulative);
    test_free(probability);
}

double infer_check_bins(const char *label, const infer_result *res, unsigned min_bins,
                        double max_z)
{
    double error_sum = 0.0, total = 0.0, worst = 0.0, worst_z = 0.0;
    unsigned checked = 0;
    int worst_bin = -1, worst_z_bin = -1;
    print_message("  bin  midpoint   queries  observed  mean posterior\n");
    for (int b = 0; b < 20; b++) {
        double mid = 0.025 + 0.05 * b, n = res->bin_count[b];
        double observed = n > 0 ? res->bin_inside[b] / n : NAN;
        double mean = n > 0 ? res->bin_posterior[b] / n : NAN;
        print_message("  %3d  %8.3f  %8.0f  %8.4f  %8.4f\n", b, mid, n, observed, mean);
        error_sum += n > 0 ? fabs(observed - mid) * n : 0.0; /* eq 28 */
        total += n;
        if (n < 1000)
            continue;
        checked++;
        if (fabs(observed - mid) > worst) {
            worst = fabs(observed - mid);
            worst_bin = b;
        }
        /* The bin's fraction inside against its mean posterior, in
         * binomial standard errors: sharper than the midpoint. */
        double z = fabs(observed - mean) / (sqrt(mean * (1.0 - mean) / n) + 1e-3);
        if (z > worst_z) {
            worst_z = z;
            worst_z_bin = b;
        }
    }
    print_message("  posterior error (eq 28) %.4f; %u bins with >= 1000 queries, "
                  "worst |observed - midpoint| %.4f, |observed - mean posterior| %.1f "
                  "standard errors\n", error_sum / total, checked, worst, worst_z);
    if (worst > 0.05)
        fail_msg("%s: bin %d [%.2f, %.2f): %.0f queries, %.4f inside, midpoint %.3f "
                 "(tolerance 0.05)", label, worst_bin, 0.05 * worst_bin,
                 0.05 * (worst_bin + 1), res->bin_count[worst_bin],
                 res->bin_inside[worst_bin] / res->bin_count[worst_bin],
                 0.025 + 0.05 * worst_bin);
    if (max_z > 0.0 && worst_z > max_z)
        fail_msg("%s: bin %d: %.4f inside, mean posterior %.4f: %.1f standard errors apart",
                 label, worst_z_bin, res->bin_inside[worst_z_bin] / res->bin_count[worst_z_bin],
                 res->bin_posterior[worst_z_bin] / res->bin_count[worst_z_bin], worst_z);
    if (checked < min_bins)
        fail_msg("%s: only %u of 20 bins had >= 1000 queries (want %u)", label, checked,
                 min_bins);
    return error_sum / total;
}
