/*
 * test_tbf.c — Timing Bloom filter and Block Timing Bloom filter
 * (src/lib/designs/tbf.c, paper 002 section 3).
 *
 * Properties: no false negatives inside the window (the generic driver on
 * distinct keys, then a stream with repeats checked against the exact
 * insertion ages); the exact boundary of a BTBF (a key younger than
 * n_live(b) = b + B ceil((w-b)/B) insertions is always reported, b being
 * the inserts since the timestamp last advanced); keys past the slack are
 * reported at the false-positive rate only, also when cells sit untouched
 * for many laps of the timestamp (the expiry scan at work); queries change
 * nothing.
 *
 * Statistics.  A never-inserted key is reported iff its k cells are live,
 * i.e. touched by the last n_live(b) insertions, so the expected FP at
 * phase b is (1 - (1 - 1/m)^(k n_live(b)))^k.  The measured rate, over
 * several filters and all phases, must sit in the 99.9% band: binomial
 * noise plus the random fill of each filter (delta method: the live
 * fraction r has the occupancy variance of k n draws into m cells, and
 * FP = r^k, so Var FP ~ (k r^(k-1))^2 Var r, divided by the filters).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h" /* drv_add_index, drv_contains_index: key i of a stream */
#include "util/bits.h" /* tdbf_cells, white box */
#include "stream.h"

static tdbf_config tbf_config(tdbf_design design, uint64_t window,
                              double error, uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.window_items = window;
    cfg.error = error;
    cfg.seed = seed;
    return cfg;
}

/* Insertions whose cells are live at phase b: b + B ceil((w - b)/B). */
static uint64_t live_inserts(uint64_t window, uint64_t block, uint64_t fill)
{
    return fill + block * ((window - fill + block - 1) / block);
}

/* (1 - (1 - 1/m)^(k n))^k */
static double fp_of(double n, uint64_t m, unsigned k)
{
    return pow(-expm1((double)k * n * log1p(-1.0 / (double)m)), (double)k);
}

/* ======================================================================
 * No false negatives: the generic driver (distinct keys)
 * ====================================================================== */

/* check_fp: 0 for windows of a few keys, where the end state's FP
 * depends on how many distinct cells those few keys happened to hit. */
static void run_driver_fp(const char *label, const tdbf_config *cfg,
                          uint64_t inserts, size_t batch, int check_fp)
{
    drv_result r;
    drv_run_count(label, cfg, inserts, batch, &r);
    CHECK_U64_EQ(r.stats.window_items, cfg->window_items);
    CHECK_U64_EQ(r.stats.items, inserts);
    if (!check_fp)
        return;
    /* The end state is one phase: FP below the worst phase + a band for
     * one filter's random fill (5% relative). */
    double p = r.stats.error_planned;
    double band = drv_band(p, (double)r.probes, (0.05 * p) * (0.05 * p));
    if (r.fp_rate > p + band)
        fail_msg("%s: FP at the end %.6f above planned %.6f + band %.6f",
                 label, r.fp_rate, p, band);
}

static void run_driver(const char *label, const tdbf_config *cfg,
                       uint64_t inserts, size_t batch)
{
    run_driver_fp(label, cfg, inserts, batch, 1);
}

/* The planner's shapes, 10^6 inserts each. */
static void test_no_fn_planned(void **state)
{
    static const struct {
        tdbf_design design;
        uint64_t window;
        double error;
    } shapes[] = {
        {TDBF_TBF, 1000, 0.01}, {TDBF_TBF, 20000, 0.001},
        {TDBF_BTBF, 1000, 0.01}, {TDBF_BTBF, 50000, 0.05},
    };
    (void)state;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char label[64];
        tdbf_config cfg = tbf_config(shapes[i].design, shapes[i].window,
                                     shapes[i].error, 0x7bf1 + i);
        snprintf(label, sizeof label, "%s w=%llu e=%g",
                 tdbf_design_name(shapes[i].design),
                 (unsigned long long)shapes[i].window, shapes[i].error);
        run_driver(label, &cfg, DRV_PICK(1000000, 150000), 0);
    }
}

static void test_no_fn_btbf_blocks(void **state)
{
    /* B dividing w, not dividing it, B = 1, B = w, B = w - 1. */
    static const uint64_t blocks[] = {1, 7, 125, 333, 999, 1000};
    (void)state;
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        char label[64];
        tdbf_config cfg = tbf_config(TDBF_BTBF, 1000, 0.01, 0xb10c + i);
        cfg.timer_block = (unsigned)blocks[i];
        snprintf(label, sizeof label, "btbf w=1000 B=%llu", (unsigned long long)blocks[i]);
        run_driver(label, &cfg, DRV_PICK(300000, 40000), 0);
        tdbf *f = drv_open(&cfg);
        CHECK_U64_EQ(stats_of(f).generation_size, blocks[i]);
        tdbf_close(f);
    }
}

static void test_no_fn_tiny_and_crowded(void **state)
{
    (void)state;
    for (uint64_t w = 1; w <= 4; w++) {
        char label[64];
        tdbf_config cfg = tbf_config(TDBF_TBF, w, 0.01, 0x71 + w);
        snprintf(label, sizeof label, "tbf w=%llu", (unsigned long long)w);
        run_driver_fp(label, &cfg, DRV_PICK(100000, 20000), 0, 0);
        cfg = tbf_config(TDBF_BTBF, w, 0.01, 0x81 + w);
        cfg.timer_block = (unsigned)w;
        snprintf(label, sizeof label, "btbf w=%llu B=w", (unsigned long long)w);
        run_driver_fp(label, &cfg, DRV_PICK(100000, 20000), 0, 0);
    }
    /* Far too few cells: most of a key's cells are overwritten within the
     * window; answers are nearly always yes, but never a wrong no. */
    tdbf_config cfg = tbf_config(TDBF_BTBF, 500, 0.01, 0xc0);
    cfg.timer_cells = 64;
    cfg.k = 3;
    cfg.timer_block = 10;
    run_driver_fp("btbf w=500 m=64 k=3 B=10 (crowded)", &cfg, DRV_PICK(200000, 30000), 0, 0);
}

static void test_no_fn_narrow_timers(void **state)
{
    (void)state;
    /* 3-bit timers: T_Omega <= 6, so B is forced up to about w/4 and the
     * scan checks more than k cells per add. */
    tdbf_config cfg = tbf_config(TDBF_BTBF, 1000, 0.01, 0x3b);
    cfg.timer_bits = 3;
    run_driver("btbf w=1000 bits=3", &cfg, DRV_PICK(300000, 40000), 0);
    tdbf *f = drv_open(&cfg);
    tdbf_stats st = stats_of(f);
    CHECK_U64_EQ(st.cell_bits, 3);
    print_message("  bits=3: B=%llu P=%llu scan=%llu per add, k=%u m=%llu\n",
                  (unsigned long long)st.generation_size,
                  (unsigned long long)st.padding,
                  (unsigned long long)st.scan_per_insert, st.k,
                  (unsigned long long)st.cells);
    tdbf_close(f);
}

static void test_no_fn_batched(void **state)
{
    (void)state;
    tdbf_config cfg = tbf_config(TDBF_BTBF, 2000, 0.01, 0xba7);
    run_driver("btbf w=2000 batch=97", &cfg, DRV_PICK(300000, 50000), 97);
    cfg.design = TDBF_TBF;
    run_driver("tbf w=2000 batch=97", &cfg, DRV_PICK(300000, 50000), 97);
}

/* ======================================================================
 * A stream with repeats, against the exact insertion ages
 * ====================================================================== */

/* Keys drawn from a universe of `universe` with replacement (re-adds
 * refresh).  After every insert, a random key is queried: inside the
 * window it must be present, and below n_live(b) it must be present too
 * (the block effect is deterministic); past n_live(b) + 0 it counts as a
 * probe of the false-positive rate.  Every `sweep` inserts the whole
 * universe is checked. */
static void run_repeats(tdbf_design design, uint64_t window, uint64_t block,
                        uint64_t universe, uint64_t inserts, uint64_t seed)
{
    tdbf_config cfg = tbf_config(design, window, 0.01, seed);
    cfg.timer_block = (unsigned)block;
    tdbf *f = drv_open(&cfg);
    tdbf_stats st = stats_of(f);
    uint64_t *last = test_calloc(universe, sizeof *last); /* 1 + index of the latest add */
    uint64_t rng = seed, old_probes = 0, old_hits = 0, checks = 0;
    double expected_hits = 0.0;
    uint64_t t;

    for (t = 0; t < inserts; t++) {
        uint64_t x = drv_below(&rng, universe);
        drv_add_index(f, seed, x);
        last[x] = t + 1;
        uint64_t fill = (t + 1) % st.generation_size;
        uint64_t n_live = live_inserts(window, st.generation_size, fill);
        uint64_t y = drv_below(&rng, universe);
        int answer = drv_contains_index(f, seed, y);
        uint64_t age = last[y] ? t + 1 - last[y] : UINT64_MAX; /* I_y */
        checks++;
        if (age < n_live && answer != 1)
            fail_msg("%s w=%llu B=%llu: key %llu of age %llu (< n_live %llu, "
                     "window %llu) reported absent after %llu inserts",
                     tdbf_design_name(design), (unsigned long long)window,
                     (unsigned long long)st.generation_size,
                     (unsigned long long)y, (unsigned long long)age,
                     (unsigned long long)n_live, (unsigned long long)window,
                     (unsigned long long)(t + 1));
        if (age >= n_live) {
            /* Distinct keys among the live inserts <= n_live: the distinct-
             * key FP is an upper bound. */
            old_probes++;
            old_hits += (uint64_t)answer;
            expected_hits += fp_of((double)n_live, st.cells, st.k);
        }
        if ((t + 1) % (4 * window) == 0) {
            for (uint64_t z = 0; z < universe; z++) {
                uint64_t zage = last[z] ? t + 1 - last[z] : UINT64_MAX;
                if (zage < n_live && drv_contains_index(f, seed, z) != 1)
                    fail_msg("sweep: key %llu of age %llu reported absent "
                             "(n_live %llu)", (unsigned long long)z,
                             (unsigned long long)zage, (unsigned long long)n_live);
                checks++;
            }
        }
    }
    double bound = expected_hits / (double)old_probes;
    double rate = (double)old_hits / (double)old_probes;
    double band = drv_band(bound, (double)old_probes, (0.1 * bound) * (0.1 * bound));
    print_message("  %s w=%llu B=%llu |U|=%llu: %llu inserts, %llu checks, 0 FN; "
                  "keys past n_live reported %.5f (distinct-key bound %.5f)\n",
                  tdbf_design_name(design), (unsigned long long)window,
                  (unsigned long long)st.generation_size,
                  (unsigned long long)universe, (unsigned long long)inserts,
                  (unsigned long long)checks, rate, bound);
    if (rate > bound + band)
        fail_msg("old keys reported %.5f > bound %.5f + band %.5f", rate, bound, band);
    test_free(last);
    tdbf_close(f);
}

static void test_no_fn_with_repeats(void **state)
{
    (void)state;
    run_repeats(TDBF_TBF, 1000, 0, 3000, DRV_PICK(1000000, 100000), 0x2e1);
    run_repeats(TDBF_BTBF, 1000, 0, 3000, DRV_PICK(1000000, 100000), 0x2e2);
    run_repeats(TDBF_BTBF, 1000, 37, 1500, DRV_PICK(500000, 50000), 0x2e3);
    /* A universe smaller than the window: everything is always inside. */
    run_repeats(TDBF_BTBF, 1000, 0, 300, DRV_PICK(200000, 30000), 0x2e4);
}

/* ======================================================================
 * Re-adding refreshes; expiry; stale cells and the scan
 * ====================================================================== */

static void test_readd_refreshes(void **state)
{
    static const uint8_t hot[] = {'h', 0, 't'};
    (void)state;
    for (int d = 0; d < 2; d++) {
        tdbf_config cfg = tbf_config(d ? TDBF_BTBF : TDBF_TBF, 1000, 0.01, 0x4ead + d);
        tdbf *f = drv_open(&cfg);
        uint64_t fresh = 0;
        CHECK_RC(tdbf_add(f, hot, sizeof hot, 0), 0);
        for (int round = 0; round < DRV_PICK(200, 30); round++) {
            for (uint64_t i = 0; i < 999; i++) /* its add is 999 back: I = 999 < w */
                drv_add_index(f, cfg.seed, fresh++);
            int r = tdbf_add(f, hot, sizeof hot, 0);
            if (r != 1)
                fail_msg("%s: re-add #%d of the hot key returned %d, expected 1",
                         tdbf_design_name(cfg.design), round, r);
        }
        tdbf_close(f);
    }
}

/* Keys past the slack (age >= w + B - 1) are reported at the FP rate of
 * the live cells only.  With k = 1 and m >> w most cells sit untouched
 * for many laps of T_+: without the expiry scan their stale stamps would
 * come round as young ones (aliasing) and old keys would be reported far
 * above that rate.  Ages are chosen as multiples of the lap length
 * (T_Omega + 1) B, where an aliased stamp would look brand new. */
static void check_old_keys(tdbf_design design, uint64_t window, unsigned k,
                           uint64_t cells, unsigned bits, uint64_t block,
                           uint64_t seed)
{
    tdbf_config cfg = tbf_config(design, window, 0.01, seed);
    cfg.k = k;
    cfg.timer_cells = cells;
    cfg.timer_bits = bits;
    cfg.timer_block = (unsigned)block;
    tdbf *f = drv_open(&cfg);
    tdbf_stats st = stats_of(f);
    uint64_t top = st.padding + (window + st.generation_size - 1) / st.generation_size + 1;
    uint64_t lap = (top + 1) * st.generation_size;
    uint64_t probes = 0, hits = 0, t = 0, next = 0;
    double expected = 0.0;
    uint64_t rounds = DRV_PICK(1000, 300); /* aliasing would report ~all */

    for (uint64_t round = 0; round < rounds; round++) {
        uint64_t target = next++;          /* the key we will come back to */
        drv_add_index(f, seed, target);
        t++;
        uint64_t laps = 1 + round % 5, wait = laps * lap;
        if (wait < window + st.generation_size)
            wait += lap;
        for (uint64_t i = 1; i < wait; i++) {
            drv_add_index(f, seed, next++);
            t++;
        }
        uint64_t fill = t % st.generation_size;
        uint64_t n_live = live_inserts(window, st.generation_size, fill);
        hits += (uint64_t)drv_contains_index(f, seed, target);
        probes++;
        expected += fp_of((double)n_live, st.cells, st.k);
    }
    double p = expected / (double)probes;
    double rate = (double)hits / (double)probes;
    double band = drv_band(p, (double)probes, 0.0) + 3.0 / (double)probes;
    print_message("  %s w=%llu k=%u m=%llu bits=%u B=%llu (lap %llu inserts): "
                  "keys 1-5 laps old reported %llu/%llu = %.5f, expected %.5f\n",
                  tdbf_design_name(design), (unsigned long long)window, st.k,
                  (unsigned long long)st.cells, st.cell_bits,
                  (unsigned long long)st.generation_size,
                  (unsigned long long)lap, (unsigned long long)hits,
                  (unsigned long long)probes, rate, p);
    if (rate > p + band)
        fail_msg("old keys reported at %.5f, above the FP %.5f + %.5f: stale "
                 "stamps alias", rate, p, band);
    tdbf_close(f);
}

static void test_stale_cells_do_not_alias(void **state)
{
    (void)state;
    check_old_keys(TDBF_TBF, 100, 1, 5000, 8, 0, 0xa11a);
    check_old_keys(TDBF_BTBF, 100, 1, 5000, 4, 10, 0xa11b);
    check_old_keys(TDBF_BTBF, 300, 2, 6000, 5, 0, 0xa11c);
}

/* Keys just past the window are still reported while younger than
 * n_live(b), and from w + B - 1 on only as false positives. */
static void test_expiry_boundary(void **state)
{
    (void)state;
    tdbf_config cfg = tbf_config(TDBF_BTBF, 1000, 0.001, 0xed9e);
    cfg.timer_block = 100;
    tdbf *f = drv_open(&cfg);
    tdbf_stats st = stats_of(f);
    uint64_t B = st.generation_size, n = DRV_PICK(200000, 30000);
    uint64_t past = 0, past_hits = 0, rng = 0xed;
    double expected = 0.0;
    for (uint64_t t = 0; t < n; t++) {
        drv_add_index(f, cfg.seed, t);
        uint64_t done = t + 1, fill = done % B;
        uint64_t n_live = live_inserts(1000, B, fill);
        /* a key that is not live: age n_live + j, j random (a fixed age
         * would query one key B times in a row) */
        uint64_t age = n_live + drv_below(&rng, 10 * B);
        if (done > age) {
            past_hits += (uint64_t)drv_contains_index(f, cfg.seed, done - 1 - age);
            expected += fp_of((double)n_live, st.cells, st.k);
            past++;
        }
        /* the oldest live one: age n_live - 1 >= w - 1 */
        if (done >= n_live && drv_contains_index(f, cfg.seed, done - n_live) != 1)
            fail_msg("key of age %llu (n_live %llu, b %llu) not reported",
                     (unsigned long long)(n_live - 1), (unsigned long long)n_live,
                     (unsigned long long)fill);
        if (n_live < 1000 || n_live > 1000 + B - 1)
            fail_msg("n_live %llu outside [w, w + B - 1]", (unsigned long long)n_live);
    }
    double p = expected / (double)past;
    print_message("  btbf w=1000 B=100: keys of age >= n_live(b) reported %llu/%llu "
                  "(FP %.5f, worst phase %.5f)\n", (unsigned long long)past_hits,
                  (unsigned long long)past, p, st.error_planned);
    if ((double)past_hits / (double)past > p + drv_band(p, (double)past, 0.0))
        fail_msg("keys of age n_live reported %.5f > FP %.5f", (double)past_hits / past, p);
    tdbf_close(f);
}

/* Queries leave the filter as it was: two filters fed the same adds, one
 * queried a million times in between, answer every probe alike. */
static void test_queries_do_not_mutate(void **state)
{
    (void)state;
    tdbf_config cfg = tbf_config(TDBF_BTBF, 3000, 0.05, 0x9e7);
    tdbf *quiet = drv_open(&cfg), *busy = drv_open(&cfg);
    uint64_t probe = 0;
    for (uint64_t t = 0; t < DRV_PICK(20000, 5000); t++) {
        drv_add_index(quiet, cfg.seed, t);
        drv_add_index(busy, cfg.seed, t);
        for (int j = 0; j < 50; j++)
            (void)drv_probe_hits(busy, cfg.seed, probe++, 1, 0);
    }
    uint64_t a = drv_probe_hits(quiet, cfg.seed, 0, 100000, 0);
    uint64_t b = drv_probe_hits(busy, cfg.seed, 0, 100000, 0);
    CHECK_U64_EQ(a, b);
    for (uint64_t t = 0; t < 3000; t++)
        CHECK_U64_EQ(drv_contains_index(busy, cfg.seed, 20000 - 1 - t), drv_contains_index(quiet, cfg.seed, 20000 - 1 - t));
    tdbf_close(quiet);
    tdbf_close(busy);
}

/* ======================================================================
 * False positives against the analytic rate, all phases
 * ====================================================================== */

static void measure_fp(tdbf_design design, uint64_t window, double error,
                       uint64_t block, unsigned filters, uint64_t steps,
                       uint64_t per_step)
{
    double hits = 0.0, probes = 0.0, expected = 0.0, var_fill = 0.0;
    tdbf_stats st;
    memset(&st, 0, sizeof st);
    for (unsigned s = 0; s < filters; s++) {
        tdbf_config cfg = tbf_config(design, window, error, 0xf9000 + s);
        cfg.timer_block = (unsigned)block;
        tdbf *f = drv_open(&cfg);
        st = stats_of(f);
        uint64_t B = st.generation_size, t, probe = 0;
        for (t = 0; t < 3 * (window + B); t++) /* warm up: steady state */
            drv_add_index(f, cfg.seed, t);
        for (uint64_t step = 0; step < steps; step++, t++) {
            drv_add_index(f, cfg.seed, t);
            uint64_t n_live = live_inserts(window, B, (t + 1) % B);
            hits += (double)drv_probe_hits(f, cfg.seed, probe, per_step, 0);
            probe += per_step;
            probes += (double)per_step;
            expected += fp_of((double)n_live, st.cells, st.k) * (double)per_step;
        }
        tdbf_close(f);
    }
    double p = expected / probes, rate = hits / probes;
    /* Fill variance of one filter at the mean load, per filter. */
    double n_mean = (double)window + (double)(st.generation_size - 1) / 2.0;
    double r = -expm1((double)st.k * n_mean * log1p(-1.0 / (double)st.cells));
    double slope = (double)st.k * pow(r, (double)st.k - 1.0);
    var_fill = slope * slope * drv_fill_variance((uint64_t)((double)st.k * n_mean), st.cells) / filters;
    double band = drv_band(p, probes, var_fill);
    print_message("  FP %s w=%llu e=%g (k=%u m=%llu bits=%u B=%llu, %.1f bits/item): "
                  "measured %.6f over %.0f probes, analytic %.6f, band [%.6f, %.6f], "
                  "planned worst phase %.6f\n",
                  tdbf_design_name(design), (unsigned long long)window, error,
                  st.k, (unsigned long long)st.cells, st.cell_bits,
                  (unsigned long long)st.generation_size, st.bits_per_item,
                  rate, probes, p, p - band, p + band, st.error_planned);
    if (fabs(rate - p) > band)
        fail_msg("%s w=%llu: measured FP %.6f outside analytic %.6f +- %.6f",
                 tdbf_design_name(design), (unsigned long long)window, rate, p, band);
    if (!(st.error_planned <= error))
        fail_msg("planned FP %.6g above the configured %.6g", st.error_planned, error);
}

static void test_fp_tbf(void **state)
{
    (void)state;
    measure_fp(TDBF_TBF, 1000, 0.01, 0, DRV_PICK(20, 4), DRV_PICK(5000, 2000), 20);
    measure_fp(TDBF_TBF, 10000, 0.05, 0, DRV_PICK(6, 2), DRV_PICK(20000, 5000), 10);
}

static void test_fp_btbf(void **state)
{
    (void)state;
    measure_fp(TDBF_BTBF, 1000, 0.01, 0, DRV_PICK(20, 4), DRV_PICK(5000, 2000), 20);
    measure_fp(TDBF_BTBF, 1000, 0.01, 250, DRV_PICK(20, 4), DRV_PICK(5000, 2000), 20);
    measure_fp(TDBF_BTBF, 20000, 0.001, 0, DRV_PICK(4, 2), DRV_PICK(40000, 8000), 25);
}

/* ======================================================================
 * Configuration, planner, stats
 * ====================================================================== */

static void test_config_errors(void **state)
{
    (void)state;
    tdbf_config cfg = tbf_config(TDBF_TBF, 1000, 0.01, 1);
    drv_expect_open(&cfg, TDBF_OK, "tbf w=1000");
    cfg.l = 3;
    drv_expect_open(&cfg, TDBF_EPARAM, "tbf with l");
    cfg = tbf_config(TDBF_TBF, 1000, 0.01, 1);
    cfg.timer_block = 2;
    drv_expect_open(&cfg, TDBF_EPARAM, "tbf with B = 2");
    cfg = tbf_config(TDBF_BTBF, 1000, 0.01, 1);
    cfg.timer_block = 1001;
    drv_expect_open(&cfg, TDBF_EPARAM, "btbf with B > w");
    cfg.timer_block = 1000;
    drv_expect_open(&cfg, TDBF_OK, "btbf with B = w");
    cfg = tbf_config(TDBF_BTBF, 1000, 0.01, 1);
    cfg.timer_bits = 1;
    drv_expect_open(&cfg, TDBF_EPARAM, "timer_bits 1");
    cfg.timer_bits = 63;
    drv_expect_open(&cfg, TDBF_EPARAM, "timer_bits 63");
    cfg = tbf_config(TDBF_TBF, 1000, 0.01, 1);
    cfg.timer_bits = 9; /* 2^9 - 2 < w + 1: no stamp range fits */
    drv_expect_open(&cfg, TDBF_EPARAM, "tbf w=1000 with 9-bit timers");
    cfg.timer_bits = 10; /* T_Omega = 1022: P = 21, a longer scan */
    drv_expect_open(&cfg, TDBF_OK, "tbf w=1000 with 10-bit timers");
    cfg = tbf_config(TDBF_TBF, 0, 0.01, 1);
    drv_expect_open(&cfg, TDBF_EWINDOW, "tbf without window");
    cfg.window_ns = 1000000000;
    drv_expect_open(&cfg, TDBF_EWINDOW, "tbf with a time window");
    cfg = tbf_config(TDBF_BTBF, 1000000, 1e-6, 1);
    cfg.max_memory = 100000;
    drv_expect_open(&cfg, TDBF_ETOOBIG, "btbf over max_memory");
    cfg = tbf_config(TDBF_TBF, UINT64_C(1) << 60, 0.01, 1);
    drv_expect_open(&cfg, TDBF_ETOOBIG, "tbf w=2^60");
    cfg = tbf_config(TDBF_TBF, 1000, 0.01, 1);
    cfg.k = 65;
    drv_expect_open(&cfg, TDBF_EPARAM, "k = 65");
}

static void test_explicit_shape_and_stats(void **state)
{
    (void)state;
    tdbf_config cfg = tbf_config(TDBF_BTBF, 1000, 0.01, 0x5a);
    cfg.k = 4;
    cfg.timer_cells = 12345;
    cfg.timer_bits = 6;
    cfg.timer_block = 50;
    tdbf *f = drv_open(&cfg);
    tdbf_stats st = stats_of(f);
    CHECK_U64_EQ(st.k, 4);
    CHECK_U64_EQ(st.cells, 12345);
    CHECK_U64_EQ(st.cell_bits, 6);
    CHECK_U64_EQ(st.generation_size, 50);
    CHECK_U64_EQ(st.window_items, 1000);
    /* T_Omega = 2^6 - 2 = 62 = ceil(1000/50) + 1 + P */
    CHECK_U64_EQ(st.padding, 62 - 21);
    CHECK_U64_EQ(st.scan_per_insert, (12345 + 50 * 42 - 1) / (50 * 42));
    CHECK_NEAR(st.error_planned, fp_of(1049.0, 12345, 4), 1e-12);
    CHECK_U64_GE(st.memory_bytes, (12345 * 6 + 7) / 8);
    if (st.memory_bytes > (12345 * 6 + 63) / 64 * 8 + 4096)
        fail_msg("memory %llu bytes: more than the cells and a small header",
                 (unsigned long long)st.memory_bytes);
    CHECK_NEAR(st.error_estimated, 0.0, 0.0);
    for (uint64_t t = 0; t < 5025; t++)
        drv_add_index(f, cfg.seed, t);
    st = stats_of(f);
    CHECK_U64_EQ(st.items, 5025);
    CHECK_U64_EQ(st.generations, 5025 / 50);
    CHECK_U64_EQ(st.generation_fill, 25);
    /* Estimated from the live cells at b = 25: n_live = 25 + 50*20 = 1025. */
    double want = fp_of(1025.0, 12345, 4);
    print_message("  stats: error_estimated %.6f, analytic at this phase %.6f\n",
                  st.error_estimated, want);
    if (fabs(st.error_estimated - want) > 0.2 * want)
        fail_msg("error_estimated %.6f not within 20%% of %.6f", st.error_estimated, want);
    tdbf_close(f);

    /* The planner meets the error and the TBF needs more bits per item. */
    tdbf_config t = tbf_config(TDBF_TBF, 100000, 0.01, 1);
    tdbf_config b = tbf_config(TDBF_BTBF, 100000, 0.01, 1);
    tdbf *ft = drv_open(&t), *fb = drv_open(&b);
    tdbf_stats s_t = stats_of(ft), s_b = stats_of(fb);
    print_message("  planned w=10^5 e=0.01: tbf k=%u bits=%u %.1f bits/item scan %llu; "
                  "btbf k=%u bits=%u B=%llu P=%llu %.1f bits/item scan %llu\n",
                  s_t.k, s_t.cell_bits, s_t.bits_per_item,
                  (unsigned long long)s_t.scan_per_insert, s_b.k, s_b.cell_bits,
                  (unsigned long long)s_b.generation_size,
                  (unsigned long long)s_b.padding, s_b.bits_per_item,
                  (unsigned long long)s_b.scan_per_insert);
    if (!(s_t.error_planned <= 0.01 && s_b.error_planned <= 0.01))
        fail_msg("planned FP %.6g / %.6g above 0.01", s_t.error_planned, s_b.error_planned);
    CHECK_U64_EQ(s_t.generation_size, 1);
    if (s_b.generation_size > 100000 / 8)
        fail_msg("planner chose B = %llu > w/8", (unsigned long long)s_b.generation_size);
    if (!(s_b.bits_per_item < s_t.bits_per_item / 2))
        fail_msg("btbf %.1f bits/item not under half the tbf's %.1f",
                 s_b.bits_per_item, s_t.bits_per_item);
    if (s_t.scan_per_insert > s_t.k || s_b.scan_per_insert > s_b.k)
        fail_msg("scan %llu / %llu cells per add exceeds k", (unsigned long long)s_t.scan_per_insert,
                 (unsigned long long)s_b.scan_per_insert);
    tdbf_close(ft);
    tdbf_close(fb);
}

/* The packed cells (bits.c) of every width against a plain array:
 * random writes, neighbours untouched, cells straddling words. */
static void test_packed_cells(void **state)
{
    (void)state;
    tdbf_config cfg = tbf_config(TDBF_TBF, 10, 0.1, 0xce11);
    tdbf *f = drv_open(&cfg);
    uint64_t before = stats_of(f).memory_bytes, rng = 0xce11;
    for (unsigned bits = 1; bits <= 64; bits++) {
        const uint64_t count = 301; /* 301 * bits is rarely a multiple of 64 */
        uint64_t mask = UINT64_MAX >> (64 - bits), want[301];
        tdbf_cells cells;
        CHECK_RC(tdbf_cells_open(f, &cells, count, bits), TDBF_OK);
        for (uint64_t i = 0; i < count; i++) {
            want[i] = 0;
            CHECK_U64_EQ(tdbf_cell_get(&cells, i), 0);
        }
        for (int step = 0; step < 5000; step++) {
            uint64_t i = drv_below(&rng, count), v = drv_rand(&rng) & mask;
            if (step % 7 == 0)
                v = mask; /* all ones next to zeros */
            tdbf_cell_set(&cells, i, v);
            want[i] = v;
            uint64_t j = drv_below(&rng, count);
            if (tdbf_cell_get(&cells, j) != want[j])
                fail_msg("bits=%u cell %llu: read %llu, wrote %llu", bits,
                         (unsigned long long)j,
                         (unsigned long long)tdbf_cell_get(&cells, j),
                         (unsigned long long)want[j]);
        }
        for (uint64_t i = 0; i < count; i++)
            CHECK_U64_EQ(tdbf_cell_get(&cells, i), want[i]);
        CHECK_NEAR(tdbf_cells_bytes(count, bits), (double)((count * bits + 63) / 64 * 8), 0.0);
        tdbf_cells_close(f, &cells);
    }
    CHECK_U64_EQ(stats_of(f).memory_bytes, before);
    tdbf_cells bad;
    CHECK_RC(tdbf_cells_open(f, &bad, 10, 0), TDBF_EPARAM);
    CHECK_RC(tdbf_cells_open(f, &bad, 10, 65), TDBF_EPARAM);
    CHECK_RC(tdbf_cells_open(f, &bad, 0, 8), TDBF_EPARAM);
    tdbf_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_fn_planned),
        cmocka_unit_test(test_no_fn_btbf_blocks),
        cmocka_unit_test(test_no_fn_tiny_and_crowded),
        cmocka_unit_test(test_no_fn_narrow_timers),
        cmocka_unit_test(test_no_fn_batched),
        cmocka_unit_test(test_no_fn_with_repeats),
        cmocka_unit_test(test_readd_refreshes),
        cmocka_unit_test(test_stale_cells_do_not_alias),
        cmocka_unit_test(test_expiry_boundary),
        cmocka_unit_test(test_queries_do_not_mutate),
        cmocka_unit_test(test_fp_tbf),
        cmocka_unit_test(test_fp_btbf),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_explicit_shape_and_stats),
        cmocka_unit_test(test_packed_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
