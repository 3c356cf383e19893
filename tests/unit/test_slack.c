/*
 * test_slack.c — tdbf_slack, the expiry bound of every design.
 *
 *   numbers   each design reports the slack its essay documents, from
 *             the parameters tdbf_get_stats shows (k, l, g, B) or the
 *             configuration (CLOCK d, ROTATING N), and tdbf_plan_shape
 *             reports the same before the filter is built;
 *   tight     where the bound is exact (CLOCK, ROTATING on a count
 *             window) a key added at the worst moment is still found
 *             one step inside it;
 *   kept      keys whose latest add is older than window + slack are
 *             reported no more often than the planned false-positive
 *             rate (95 % Wilson interval), for count and time windows.
 */
#include "driver.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SECOND UINT64_C(1000000000)

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static tdbf_config count_config(tdbf_design design, uint64_t window)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.window_items = window;
    cfg.seed = 0x5eed;
    return cfg;
}

static tdbf_config time_config(tdbf_design design, uint64_t window_ns, uint64_t capacity)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.window_ns = window_ns;
    cfg.capacity = capacity;
    cfg.seed = 0x5eed;
    return cfg;
}

/* The filter's slack, checked against what tdbf_plan_shape said before. */
static void slack_of(const tdbf_config *cfg, tdbf *f, uint64_t *items, uint64_t *ns)
{
    CHECK_RC(tdbf_slack(f, items, ns), TDBF_OK);
    tdbf_shape planned;
    CHECK_RC(tdbf_plan_shape(cfg, &planned), TDBF_OK);
    CHECK_U64_EQ(planned.slack_items, *items);
    CHECK_U64_EQ(planned.slack_ns, *ns);
}

/* Count window: the slack in adds, no ns. */
static void check_count_slack(const tdbf_config *cfg, uint64_t want_of_stats(const tdbf_stats *))
{
    tdbf *f = drv_open(cfg);
    tdbf_stats st;
    CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
    uint64_t items = 1, ns = 1;
    slack_of(cfg, f, &items, &ns);
    CHECK_U64_EQ(items, want_of_stats(&st));
    CHECK_U64_EQ(ns, 0);
    tdbf_close(f);
}

static uint64_t k_generations(const tdbf_stats *st)
{
    /* paper 004 section 5.2: window l g, slack k g */
    CHECK_U64_EQ(st->window_items, (uint64_t)st->l * st->generation_size);
    return (uint64_t)st->k * st->generation_size;
}

static uint64_t one_share(const tdbf_stats *st)
{
    return st->generation_size;
}

static uint64_t block_less_one(const tdbf_stats *st)
{
    return st->generation_size - 1;
}

static uint64_t none(const tdbf_stats *st)
{
    (void)st;
    return 0;
}

static uint64_t unbounded(const tdbf_stats *st)
{
    (void)st;
    return UINT64_MAX;
}

static const struct {
    tdbf_design design;
    uint64_t    window;
    int         concurrent;
    uint64_t  (*want)(const tdbf_stats *);
} count_cases[] = {
    {TDBF_APBF, 100000, 0, k_generations},
    {TDBF_APBBF, 20000, 0, k_generations},
    {TDBF_APBF_LINE, 100000, 0, k_generations},
    {TDBF_APBF_LINE, 100000, 1, k_generations},   /* the spare-field layout */
    {TDBF_ROTATING, 1000, 0, one_share},
    {TDBF_BTBF, 10000, 0, block_less_one},
    {TDBF_TBF, 10000, 0, none},
    {TDBF_EXACT, 1000, 0, none},
    {TDBF_BLOOM, 1000, 0, unbounded},
    {TDBF_FPDECAY, 1000, 0, unbounded},
    {TDBF_STABLE, 1000, 0, unbounded},
};

static void test_count_window_numbers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof count_cases / sizeof count_cases[0]; i++) {
        tdbf_config cfg = count_config(count_cases[i].design, count_cases[i].window);
        cfg.concurrent = count_cases[i].concurrent;
        check_count_slack(&cfg, count_cases[i].want);
    }
}

/* Time window: the slack in ns, no adds. */
static uint64_t time_slack(const tdbf_config *cfg, tdbf_stats *st)
{
    tdbf *f = drv_open(cfg);
    CHECK_RC(tdbf_get_stats(f, st), TDBF_OK);
    uint64_t items = 1, ns = 1;
    slack_of(cfg, f, &items, &ns);
    CHECK_U64_EQ(items, 0);
    tdbf_close(f);
    return ns;
}

static void test_time_window_numbers(void **state)
{
    (void)state;
    const uint64_t t = 60 * SECOND, odd = 10 * SECOND + 1;
    tdbf_stats st;

    tdbf_config cfg = time_config(TDBF_TLBF, t, 0);
    uint64_t ns = time_slack(&cfg, &st);
    CHECK_U64_EQ(ns, (uint64_t)(st.k + 1) * ceil_div(t, st.l));

    cfg = time_config(TDBF_TLBF_LINE, t, 0);
    ns = time_slack(&cfg, &st);
    CHECK_U64_EQ(ns, (uint64_t)(st.k + st.l) * ceil_div(t, st.l) - t);

    /* CLOCK: (d+1)/d T; d = 2 by default, 4 asked for, and a T that d
     * does not divide */
    cfg = time_config(TDBF_CLOCK, t, 0);
    CHECK_U64_EQ(time_slack(&cfg, &st), t / 2);
    cfg = time_config(TDBF_CLOCK, odd, 0);
    cfg.resolution = 4;
    CHECK_U64_EQ(time_slack(&cfg, &st), 5 * ceil_div(odd, 4) - odd);

    /* ROTATING: T + T/N, + 1 ns when N does not divide T */
    cfg = time_config(TDBF_ROTATING, t, 0);
    CHECK_U64_EQ(time_slack(&cfg, &st), t / 4);
    cfg = time_config(TDBF_ROTATING, odd, 0);
    cfg.filters = 3;
    CHECK_U64_EQ(time_slack(&cfg, &st), ceil_div(odd, 3) + 1);

    cfg = time_config(TDBF_EXACT, t, 0);
    CHECK_U64_EQ(time_slack(&cfg, &st), 0);
}

static void test_null_arguments(void **state)
{
    (void)state;
    uint64_t items, ns;
    CHECK_RC(tdbf_slack(NULL, &items, &ns), TDBF_EINVAL);
    tdbf_config cfg = count_config(TDBF_APBF, 1000);
    tdbf *f = drv_open(&cfg);
    CHECK_RC(tdbf_slack(f, NULL, NULL), TDBF_OK);
    CHECK_RC(tdbf_slack(f, &items, NULL), TDBF_OK);
    tdbf_close(f);
}

/* ---- tight: found one step inside the bound --------------------------- */

/* CLOCK: a key added at the first ns of a tick lives (d+1) ticks. */
static void test_clock_key_found_just_inside(void **state)
{
    (void)state;
    tdbf_config cfg = time_config(TDBF_CLOCK, 10 * SECOND, 0);
    tdbf *f = drv_open(&cfg);
    uint64_t slack = 0;
    CHECK_RC(tdbf_slack(f, NULL, &slack), TDBF_OK);
    CHECK_RC(drv_add_index(f, 1, 0), 0);
    uint64_t last = cfg.window_ns + slack - 1;
    CHECK_RC(tdbf_advance(f, last), TDBF_OK);
    CHECK_RC(drv_contains_index(f, 1, 0), 1);
    tdbf_close(f);
}

/* ROTATING, count window: the first key of a filter stays until the
 * filter is cleared, (N+1) g adds later. */
static void test_rotating_key_found_just_inside(void **state)
{
    (void)state;
    tdbf_config cfg = count_config(TDBF_ROTATING, 1000);
    tdbf *f = drv_open(&cfg);
    tdbf_stats st;
    CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
    uint64_t slack = 0;
    CHECK_RC(tdbf_slack(f, &slack, NULL), TDBF_OK);
    CHECK_RC(drv_add_index(f, 2, 0), 0);
    /* age = adds since: up to window + slack - 1 it is still there */
    for (uint64_t i = 1; i < st.window_items + slack; i++)
        CHECK_RC(drv_add_index(f, 2, i) < 0, 0);
    CHECK_RC(drv_contains_index(f, 2, 0), 1);
    tdbf_close(f);
}

/* ---- kept: past the bound, only false positives ----------------------- */

/* Fails unless `hits` of `probes` is consistent with a rate <= fp: the
 * lower end of its 95 % Wilson interval is at most fp. */
static void check_at_most_fp(const char *what, uint64_t hits, uint64_t probes, double fp)
{
    const double z = 1.96;
    double n = (double)probes, p = (double)hits / n;
    double centre = p + z * z / (2 * n);
    double spread = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n));
    double lower = (centre - spread) / (1 + z * z / n);
    if (lower > fp)
        fail_msg("%s: %llu of %llu keys past the bound reported (rate %.5f, Wilson "
                 "95%% lower %.5f) above the planned fp %.5f", what,
                 (unsigned long long)hits, (unsigned long long)probes, p, lower, fp);
}

static uint64_t found_of(const tdbf *f, uint64_t key_seed, uint64_t count, uint64_t now)
{
    uint8_t key[DRV_KEY_MAX];
    uint64_t found = 0;
    for (uint64_t i = 0; i < count; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, key_seed, i);
        found += tdbf_contains(f, key, len, now) == 1;
    }
    return found;
}

/* Count window: `old` keys, then window + slack other adds: the youngest
 * old key is then exactly window + slack adds old (checked at the last
 * add, the worst moment for designs that peak before a shift).  Pooled
 * over a few hash seeds: one filter's rate varies with its own fill. */
#define BOUND_SEEDS 4

static void check_count_bound(tdbf_design design, uint64_t window)
{
    uint64_t hits = 0, probes = 0;
    double fp = 0.0;
    for (uint64_t seed = 1; seed <= BOUND_SEEDS; seed++) {
        tdbf_config cfg = count_config(design, window);
        cfg.seed = seed;
        tdbf *f = drv_open(&cfg);
        tdbf_stats st;
        CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
        uint64_t slack = 0;
        CHECK_RC(tdbf_slack(f, &slack, NULL), TDBF_OK);
        uint64_t old = st.window_items;
        for (uint64_t i = 0; i < old + st.window_items + slack; i++)
            CHECK_RC(drv_add_index(f, seed, i) < 0, 0);
        hits += found_of(f, seed, old, 0);
        probes += old;
        fp = st.error_planned;
        tdbf_close(f);
    }
    check_at_most_fp(tdbf_design_name(design), hits, probes, fp);
}

static void test_count_designs_forget_past_the_bound(void **state)
{
    (void)state;
    uint64_t window = DRV_PICK(20000, 5000);
    check_count_bound(TDBF_APBF, window);
    check_count_bound(TDBF_APBBF, window);
    check_count_bound(TDBF_APBF_LINE, window);
    check_count_bound(TDBF_ROTATING, window);
    check_count_bound(TDBF_BTBF, window);
}

/* Time window, at the planned rate (capacity keys per window, evenly
 * spread): the keys of the first window, then the stream runs on until
 * the last of them is window + slack old; they are queried then. */
static void check_time_bound(tdbf_design design)
{
    const uint64_t window_ns = 10 * SECOND, capacity = DRV_PICK(20000, 4000);
    tdbf_config cfg = time_config(design, window_ns, capacity);
    tdbf *f = drv_open(&cfg);
    uint64_t slack = 0;
    CHECK_RC(tdbf_slack(f, NULL, &slack), TDBF_OK);
    const uint64_t step = window_ns / capacity;
    uint64_t last_old = (capacity - 1) * step, end = last_old + window_ns + slack;
    uint64_t i = 0;
    for (uint64_t now = 0; now <= end; now += step, i++)
        CHECK_RC(drv_add_index(f, 4, i) < 0, 0);
    double fp = 0.0;
    CHECK_RC(tdbf_current_error(f, end, &fp), TDBF_OK);
    tdbf_shape shape;
    CHECK_RC(tdbf_get_shape(f, &shape), TDBF_OK);
    if (shape.error_planned > fp)
        fp = shape.error_planned;
    uint64_t hits = found_of(f, 4, capacity, end);
    check_at_most_fp(tdbf_design_name(design), hits, capacity, fp);
    tdbf_close(f);
}

static void test_time_designs_forget_past_the_bound(void **state)
{
    (void)state;
    check_time_bound(TDBF_TLBF);
    check_time_bound(TDBF_TLBF_LINE);
    check_time_bound(TDBF_CLOCK);
    check_time_bound(TDBF_ROTATING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_window_numbers),
        cmocka_unit_test(test_time_window_numbers),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_clock_key_found_just_inside),
        cmocka_unit_test(test_rotating_key_found_just_inside),
        cmocka_unit_test(test_count_designs_forget_past_the_bound),
        cmocka_unit_test(test_time_designs_forget_past_the_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
