/*
 * test_sqf_model.c — the sliding quotient filter's model and planner
 * (designs/sqf/model.c) against the filters they build.
 *
 *   measured_within_model  planned filters (tdbf_open), filled for 4
 *                          windows and stopped at the worst moment (one
 *                          add before a generation's last): the FP on
 *                          never-added keys is within a band of the model
 *                          (tdbf_get_shape's error_planned) and its whole
 *                          95 % interval within cfg.error;
 *   plan_deterministic     a plan searched afresh in another thread (the
 *                          planner keeps its answers per thread) is the
 *                          same shape and the same modelled FP;
 *   plans_every_error      the planner refuses no error in 0.1 .. 10^-5,
 *                          for either bin size or its own choice, and its
 *                          model stays at error / TDBF_SQF_PLAN_MARGIN.
 */
#include "driver.h"
#include "designs/sqf/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define SEED UINT64_C(0x5f0f0de1)
#define PROBE_BIT (UINT64_C(1) << 62)
/* The model's accuracy the eval (tdbf eval sqf-model) holds it to. */
#define MODEL_TOLERANCE 0.10

/* ---- measured against the model ------------------------------------------ */

static tdbf *open_sqf(uint64_t window, double error, unsigned bin_bits)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_SQF;
    cfg.window_items = window;
    cfg.error = error;
    cfg.unit_bits = bin_bits;
    cfg.seed = SEED;
    tdbf *f = NULL;
    assert_int_equal(tdbf_open(&f, &cfg), TDBF_OK);
    return f;
}

/* Add distinct keys for 4 windows, up to one add before a generation's
 * last: the next add would expire the oldest generation, so the bins
 * answer for the most entries now. */
static void fill_to_worst(tdbf *f, uint64_t window)
{
    tdbf_stats st;
    assert_int_equal(tdbf_get_stats(f, &st), TDBF_OK);
    uint64_t g = st.generation_size;
    uint64_t adds = ((4 * window + g - 1) / g + 1) * g - 1;
    for (uint64_t id = 0; id < adds; id++)
        assert_true(tdbf_add(f, &id, sizeof id, 0) >= 0);
    assert_int_equal(tdbf_get_stats(f, &st), TDBF_OK);
    assert_int_equal(st.generation_fill + 1, st.generation_size);
}

static uint64_t count_false_positives(const tdbf *f, uint64_t probes)
{
    uint64_t hits = 0;
    for (uint64_t i = 0; i < probes; i++) {
        uint64_t id = PROBE_BIT | i;   /* never added: added ids are below */
        int rc = tdbf_contains(f, &id, sizeof id, 0);
        assert_true(rc >= 0);
        hits += (uint64_t)rc;
    }
    return hits;
}

static void check_point(uint64_t window, double error, unsigned bin_bits, uint64_t probes)
{
    tdbf *f = open_sqf(window, error, bin_bits);
    tdbf_shape shape;
    assert_int_equal(tdbf_get_shape(f, &shape), TDBF_OK);
    fill_to_worst(f, window);
    uint64_t hits = count_false_positives(f, probes);
    double rate = (double)hits / (double)probes, low, high;
    drv_wilson95(hits, probes, &low, &high);
    double model = shape.error_planned;
    printf("sqf model: W %llu, error %g, bins of %u bits (0: the planner's): FP %.5g "
           "(95 %% %.5g .. %.5g), model %.5g, measured/model %.3f\n",
           (unsigned long long)window, error, bin_bits, rate, low, high, model, rate / model);
    /* The interval meets the model's band, and the filter meets its error
     * with the whole interval. */
    if (high < (1.0 - MODEL_TOLERANCE) * model || low > (1.0 + MODEL_TOLERANCE) * model)
        fail_msg("measured %.5g (%.5g .. %.5g) outside +-%.0f %% of the model %.5g", rate,
                 low, high, 100.0 * MODEL_TOLERANCE, model);
    if (high > error)
        fail_msg("measured %.5g, 95 %% interval up to %.5g: over the error %g", rate, high,
                 error);
    tdbf_close(f);
}

static void test_measured_within_model(void **state)
{
    (void)state;
    const uint64_t window = DRV_PICK(30000, 10000);
    check_point(window, 0.01, 512, DRV_PICK(2000000, 600000));
    check_point(window, 0.01, 1024, DRV_PICK(2000000, 600000));
    check_point(window, 0.001, 0, DRV_PICK(12000000, 3000000));
}

/* ---- the planner ------------------------------------------------------------ */

typedef struct plan_run {
    uint64_t  window;
    double    error;
    unsigned  bin_words;
    int       rc;
    sqf_shape shape;
    sqf_model model;
} plan_run;

static void plan_once(plan_run *p)
{
    memset(&p->shape, 0, sizeof p->shape);
    double fp = 0.0;
    p->rc = tdbf_sqf_plan(p->window, p->error, p->bin_words, &p->shape, &fp);
    if (p->rc == TDBF_OK) {
        tdbf_sqf_model(&p->shape, &p->model);
        assert_memory_equal(&fp, &p->model.fp, sizeof fp);
    }
}

static void *plan_in_thread(void *arg)
{
    plan_once(arg);
    return NULL;
}

static void assert_same_shape(const sqf_shape *a, const sqf_shape *b)
{
    assert_int_equal(a->window, b->window);
    assert_int_equal(a->gen_items, b->gen_items);
    assert_int_equal(a->bins, b->bins);
    assert_int_equal(a->spare_lines, b->spare_lines);
    assert_int_equal(a->bin_words, b->bin_words);
    assert_int_equal(a->quotients, b->quotients);
    assert_int_equal(a->slots, b->slots);
    assert_int_equal(a->rem_bits, b->rem_bits);
    assert_int_equal(a->spare_k, b->spare_k);
}

static void test_plan_deterministic(void **state)
{
    (void)state;
    plan_run here = {.window = 50000, .error = 0.001, .bin_words = 0};
    plan_run there = here;
    plan_once(&here);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, plan_in_thread, &there), 0);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(here.rc, 0);
    assert_int_equal(there.rc, 0);
    assert_same_shape(&here.shape, &there.shape);
    if (memcmp(&here.model.fp, &there.model.fp, sizeof here.model.fp) != 0)
        fail_msg("modelled FP %.17g, then %.17g", here.model.fp, there.model.fp);
}

static void test_plans_every_error(void **state)
{
    (void)state;
    static const double errors[] = {0.1, 0.01, 0.001, 0.0001, 0.00001};
    static const unsigned sizes[] = {8, 16, 0};
    for (size_t e = 0; e < sizeof errors / sizeof errors[0]; e++) {
        for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; b++) {
            plan_run p = {.window = 5000, .error = errors[e], .bin_words = sizes[b]};
            plan_once(&p);
            if (p.rc != 0)
                fail_msg("no plan at error %g, bin words %u", p.error, p.bin_words);
            assert_int_equal(tdbf_sqf_shape_check(&p.shape), 0);
            if (sizes[b] != 0)
                assert_int_equal(p.shape.bin_words, sizes[b]);
            double target = p.error / TDBF_SQF_PLAN_MARGIN;
            if (!(p.model.fp > 0.0 && p.model.fp <= target * (1.0 + 1e-9)))
                fail_msg("error %g, bin words %u: modelled FP %.5g over the target %.5g",
                         p.error, p.bin_words, p.model.fp, target);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measured_within_model),
        cmocka_unit_test(test_plan_deterministic),
        cmocka_unit_test(test_plans_every_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
