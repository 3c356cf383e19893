/*
 * test_baselines.c — the two baselines every benchmark and every property
 * test leans on:
 *
 *   TDBF_BLOOM  a classic Bloom filter: no expiry; window_items is its
 *               capacity.  No false negatives up to the capacity, and the
 *               false-positive rate at capacity within the 99.9% band of
 *               its own stats.error_planned.
 *   TDBF_EXACT  the exact sliding-window set, ground truth for the others.
 *               Compared operation by operation with a naive reference
 *               written here: count window (present iff added within the
 *               last window_items adds) and time window (present iff its
 *               last add time > now - window_ns, with time clamped so it
 *               never goes backwards).
 *
 * tdbf_current_error of each: BLOOM's from the adds since open (at the
 * capacity the plan, past it the climbing measured rate, the same after
 * a load), EXACT's 0.
 */
#include "stream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tdbf_stats get_stats(const tdbf *f)
{
    tdbf_stats st;
    memset(&st, 0, sizeof st);
    CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
    return st;
}

/* ======================================================================
 * Bloom
 * ====================================================================== */

static void check_bloom(uint64_t capacity, double error, size_t batch)
{
    tdbf_config cfg;
    drv_opts o;
    drv_result r;
    double p, fill, var_fp, band;
    char label[96];

    tdbf_config_init(&cfg);
    cfg.design = TDBF_BLOOM;
    cfg.window_items = capacity;
    cfg.error = error;
    cfg.seed = 0xb100 + capacity;
    memset(&o, 0, sizeof o);
    o.window_kind = DRV_NO_EXPIRY;
    o.probes = DRV_PICK(400000, 100000);
    o.key_seed = cfg.seed;
    o.batch = batch;
    o.sweep_every = capacity / 4;
    snprintf(label, sizeof label, "bloom n=%llu e=%g%s",
             (unsigned long long)capacity, error, batch > 1 ? " batched" : "");
    drv_run(&cfg, &o, &r);
    drv_check(label, &r, 0);

    CHECK_U64_EQ(r.inserted, capacity);
    CHECK_U64_EQ(r.stats.design, TDBF_BLOOM);
    CHECK_U64_EQ(r.stats.window_items, capacity);
    CHECK_U64_EQ(r.stats.items, capacity);
    CHECK_U64_EQ(r.stats.seed, cfg.seed);
    CHECK_U64_GE(r.stats.memory_bytes, r.stats.slice_bits / 8);
    if (r.stats.k == 0 || r.stats.slice_bits == 0)
        fail_msg("%s: k=%u, %llu bits", label, r.stats.k,
                 (unsigned long long)r.stats.slice_bits);

    /* The plan meets the target (a few % over from rounding k is fine). */
    p = r.stats.error_planned;
    if (!(p > 0 && p <= error * 1.05))
        fail_msg("%s: error_planned %.6g vs configured %g", label, p, error);
    /* Measured vs planned: binomial noise plus the fill of this one
     * filter (k n bit sets into m bits; FP = fill^k, delta method). */
    fill = drv_fill((uint64_t)r.stats.k * capacity, r.stats.slice_bits);
    var_fp = pow(r.stats.k * pow(fill, r.stats.k - 1), 2) *
             drv_fill_variance((uint64_t)r.stats.k * capacity,
                               r.stats.slice_bits);
    band = drv_band(p, (double)r.probes, var_fp);
    print_message("  %s: k=%u m=%llu bits (%.2f bits/item): FP at capacity "
                  "%.6f, planned %.6f, band [%.6f, %.6f]; estimated %.6f\n",
                  label, r.stats.k, (unsigned long long)r.stats.slice_bits,
                  r.bits_per_item, r.fp_rate, p, p - band, p + band,
                  r.stats.error_estimated);
    if (fabs(r.fp_rate - p) > band)
        fail_msg("%s: FP at capacity %.6f outside %.6f +- %.6f", label,
                 r.fp_rate, p, band);
    if (fabs(r.stats.error_estimated - p) > 0.1 * p)
        fail_msg("%s: error_estimated %.6f not within 10%% of planned %.6f",
                 label, r.stats.error_estimated, p);
}

static void test_bloom(void **state)
{
    (void)state;
    check_bloom(DRV_PICK(100000, 20000), 0.01, 0);
    check_bloom(DRV_PICK(100000, 20000), 0.001, 0);
    check_bloom(DRV_PICK(30000, 10000), 0.05, 64);
}

/* E[(1 - (1 - b/B)^X)^power], X ~ Poisson(load): a block's match
 * probability (power = b) and its square (power = 2b), summed here
 * independently of the library's model. */
static double poisson_match_moment(unsigned block_bits, unsigned b, double load,
                                   unsigned power)
{
    double q = 1.0 - (double)b / block_bits, term = exp(-load), sum = 0.0;
    for (unsigned x = 0; x < 4 * block_bits; x++) {
        sum += term * pow(1.0 - pow(q, x), power);
        term *= load / (x + 1);
    }
    return sum;
}

/* Blocked variant (cfg.block_bits): one block per key.  The FP is the
 * mean over blocks of each block's match probability (Poisson loads), so
 * besides the binomial noise of the probes it varies with this filter's
 * loads by Var(match) / blocks. */
static void check_blocked_bloom(uint64_t capacity, double error,
                                unsigned block_bits, size_t batch)
{
    tdbf_config cfg;
    drv_opts o;
    drv_result r;
    char label[96];

    tdbf_config_init(&cfg);
    cfg.design = TDBF_BLOOM;
    cfg.window_items = capacity;
    cfg.error = error;
    cfg.block_bits = block_bits;
    cfg.seed = 0xb10c + capacity + block_bits;
    memset(&o, 0, sizeof o);
    o.window_kind = DRV_NO_EXPIRY;
    o.probes = DRV_PICK(400000, 100000);
    o.key_seed = cfg.seed;
    o.batch = batch;
    o.sweep_every = capacity / 4;
    snprintf(label, sizeof label, "blocked bloom B=%u n=%llu e=%g%s", block_bits,
             (unsigned long long)capacity, error, batch > 1 ? " batched" : "");
    drv_run(&cfg, &o, &r);
    drv_check(label, &r, 0);

    double p = r.stats.error_planned;
    double blocks = (double)r.stats.slice_bits / block_bits;
    double load = (double)capacity / blocks;
    double mean = poisson_match_moment(block_bits, r.stats.k, load, r.stats.k);
    double square = poisson_match_moment(block_bits, r.stats.k, load, 2 * r.stats.k);
    double band = drv_band(p, (double)r.probes, (square - mean * mean) / blocks);
    /* (The library accounts for parts of unequal size when b does not
     * divide B; equal parts are assumed here: agree to 1 %.) */
    CHECK_NEAR(mean, p, 1e-2 * p);
    print_message("  %s: b=%u, %.0f blocks (%.2f bits/item): FP at capacity %.6f, "
                  "planned %.6f +- %.6f; estimated %.6f\n", label, r.stats.k, blocks,
                  r.bits_per_item, r.fp_rate, p, band, r.stats.error_estimated);
    if (!(p > 0 && p <= error))
        fail_msg("%s: error_planned %.6g vs configured %g", label, p, error);
    if (fabs(r.fp_rate - p) > band)
        fail_msg("%s: FP at capacity %.6f outside %.6f +- %.6f", label,
                 r.fp_rate, p, band);
}

static void test_blocked_bloom(void **state)
{
    (void)state;
    check_blocked_bloom(DRV_PICK(100000, 20000), 0.01, TDBF_BLOCK_LINE, 0);
    check_blocked_bloom(DRV_PICK(100000, 20000), 0.001, TDBF_BLOCK_LINE, 64);
    check_blocked_bloom(DRV_PICK(100000, 20000), 0.01, TDBF_BLOCK_WORD, 0);

    /* Bad block sizes and conflicting parameters are refused. */
    tdbf_config cfg;
    tdbf *f = NULL;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_BLOOM;
    cfg.window_items = 1000;
    cfg.block_bits = 128;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    cfg.block_bits = TDBF_BLOCK_LINE;
    cfg.block_hashes = TDBF_MAX_BLOCK_HASHES + 1;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    cfg.block_bits = 0;
    cfg.block_hashes = 4;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    assert_null(f);
}

/* tdbf_current_error: the FP after the adds since open, never below the
 * measured rate.  At the capacity it is the plan; at 2x and 10x it climbs
 * with the measured rate.  A load keeps it; its bytes are as before (the
 * trailing checksum, pinned, covers every byte). */
static void check_bloom_current_error(unsigned block_bits, uint64_t want_checksum)
{
    const uint64_t capacity = DRV_PICK(20000, 5000), probes = DRV_PICK(200000, 50000);
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_BLOOM;
    cfg.window_items = capacity;
    cfg.block_bits = block_bits;
    cfg.seed = 0xc0 + block_bits;
    tdbf *f = drv_open(&cfg);
    CHECK_NEAR(current_error_of(f, 0), 0.0, 0.0);
    const uint64_t loads[] = {1, 2, 10};
    uint64_t added = 0;
    char label[64];
    for (size_t i = 0; i < sizeof loads / sizeof loads[0]; i++) {
        for (; added < loads[i] * capacity; added++)
            drv_add_index(f, cfg.seed, added);
        snprintf(label, sizeof label, "bloom B=%u, %llux the capacity", block_bits,
                 (unsigned long long)loads[i]);
        double fp, current = check_current_error(label, f, 0, probes, 0xc1, 0.05, &fp);
        if (i == 0 && !(current <= 1.05 * get_stats(f).error_planned))
            fail_msg("%s: current error %.6f, planned %.6f", label, current,
                     get_stats(f).error_planned);
        if (i > 0 && !(fp > 5 * cfg.error))
            fail_msg("%s: measured %.6f, not the overload expected", label, fp);
    }
    uint64_t checksum;
    tdbf *g = reload(f, &checksum);
    print_message("  saved form's checksum %016llx\n", (unsigned long long)checksum);
    if (want_checksum)
        CHECK_U64_EQ(checksum, want_checksum);
    CHECK_NEAR(current_error_of(g, 0), current_error_of(f, 0), 0.02 * current_error_of(f, 0));
    tdbf_close(g);
    tdbf_close(f);
}

static void test_bloom_current_error(void **state)
{
    (void)state;
    /* (the sanitizer build's smaller capacity saves other bytes) */
    check_bloom_current_error(0, DRV_SANITIZER ? 0 : UINT64_C(0x19f2a9482f8d8258));
    check_bloom_current_error(TDBF_BLOCK_LINE, DRV_SANITIZER ? 0 : UINT64_C(0xc08c9a01d32b8589));
    check_bloom_current_error(TDBF_BLOCK_WORD, 0);
}

/* ======================================================================
 * EXACT, count window
 * ====================================================================== */

#define UNIVERSE 3000
#define NEVER UINT64_MAX

/* Key u of the test's universe (space 0, stream 9). */
static size_t universe_key(uint8_t *buf, uint64_t u)
{
    return drv_key(buf, DRV_SPACE_INSERT, 9, u);
}

/* Mostly a hot set of 40 keys, otherwise uniform over the universe. */
static uint64_t pick_key(uint64_t *rng)
{
    return drv_below(rng, 4) == 0 ? drv_below(rng, 40)
                                  : drv_below(rng, UNIVERSE);
}

static void test_exact_count_window_vs_reference(void **state)
{
    const uint64_t window = 1000;
    tdbf_config cfg;
    tdbf *f;
    uint64_t *last_add = test_malloc(UNIVERSE * sizeof *last_add);
    uint64_t adds = 0, rng = 0xe8ac7, step, steps = DRV_PICK(200000, 30000);
    uint64_t present_answers = 0, queries = 0;
    uint8_t key[DRV_KEY_MAX];
    size_t i;
    (void)state;

    tdbf_config_init(&cfg);
    cfg.design = TDBF_EXACT;
    cfg.window_items = window;
    cfg.seed = 0xe8ac7;
    f = drv_open(&cfg);
    CHECK_U64_EQ(get_stats(f).window_items, window);
    for (i = 0; i < UNIVERSE; i++)
        last_add[i] = NEVER;

    for (step = 0; step < steps; step++) {
        uint64_t u = pick_key(&rng);
        size_t len = universe_key(key, u);
        /* Before this add, `adds` adds happened: the window is the adds
         * numbered adds-window .. adds-1. */
        int want = last_add[u] != NEVER && last_add[u] + window >= adds;
        int got = tdbf_add(f, key, len, 0);
        if (got != want)
            fail_msg("add #%llu of key %llu (last added at #%lld, window %llu):"
                     " got %d, reference %d", (unsigned long long)adds,
                     (unsigned long long)u,
                     last_add[u] == NEVER ? -1LL : (long long)last_add[u],
                     (unsigned long long)window, got, want);
        last_add[u] = adds++;

        for (i = 0; i < 3; i++) {
            uint64_t q = drv_below(&rng, UNIVERSE);
            len = universe_key(key, q);
            want = last_add[q] != NEVER && last_add[q] + window >= adds;
            got = tdbf_contains(f, key, len, 0);
            if (got != want)
                fail_msg("after %llu adds, key %llu (last added at #%lld, "
                         "window %llu): contains %d, reference %d",
                         (unsigned long long)adds, (unsigned long long)q,
                         last_add[q] == NEVER ? -1LL : (long long)last_add[q],
                         (unsigned long long)window, got, want);
            present_answers += (uint64_t)want;
            queries++;
        }
        /* Never-inserted keys: exactly absent. */
        len = drv_key(key, DRV_SPACE_PROBE, 9, step);
        CHECK_RC(tdbf_contains(f, key, len, 0), 0);
    }
    CHECK_U64_EQ(get_stats(f).items, steps);
    print_message("  exact count window %llu: %llu adds and %llu queries match "
                  "the reference (%llu present)\n", (unsigned long long)window,
                  (unsigned long long)steps, (unsigned long long)queries,
                  (unsigned long long)present_answers);
    if (present_answers == 0 || present_answers == queries)
        fail_msg("degenerate stream: %llu of %llu present",
                 (unsigned long long)present_answers,
                 (unsigned long long)queries);
    tdbf_close(f);
    test_free(last_add);
}

/* ======================================================================
 * EXACT, time window
 * ====================================================================== */

typedef struct time_ref {
    uint64_t window_ns;
    uint64_t clock;       /* the largest time seen by add/advance */
    int      has_clock;
    uint64_t last[UNIVERSE];
    int      added[UNIVERSE];
} time_ref;

/* Present as of `at` (the later of at and the clock)? */
static int ref_present(const time_ref *ref, uint64_t u, uint64_t at)
{
    uint64_t now = ref->has_clock && ref->clock > at ? ref->clock : at;
    if (!ref->added[u])
        return 0;
    return now < ref->window_ns || ref->last[u] > now - ref->window_ns;
}

static void ref_tick(time_ref *ref, uint64_t now)
{
    if (!ref->has_clock || now > ref->clock)
        ref->clock = now;
    ref->has_clock = 1;
}

static void run_exact_time(uint64_t start, const char *label)
{
    const uint64_t window_ns = 1000000;
    tdbf_config cfg;
    tdbf *f;
    time_ref *ref = test_calloc(1, sizeof *ref);
    uint64_t rng = 0x71ae ^ start, now = start, step;
    uint64_t steps = DRV_PICK(200000, 30000), queries = 0, present = 0;
    uint8_t key[DRV_KEY_MAX];
    int i;

    tdbf_config_init(&cfg);
    cfg.design = TDBF_EXACT;
    cfg.window_ns = window_ns;
    cfg.seed = 0x71ae;
    f = drv_open(&cfg);
    CHECK_U64_EQ(get_stats(f).window_ns, window_ns);
    ref->window_ns = window_ns;

    for (step = 0; step < steps; step++) {
        uint64_t u, at, call = now, r = drv_below(&rng, 10000);
        size_t len;
        int want, got;

        /* The caller's clock moves forward in small steps, sits still for
         * bursts of one timestamp, rarely jumps over a long idle gap; some
         * calls carry a stale timestamp, up to 1.5 windows behind (the
         * filter clamps it to its clock). */
        if (r < 6000) {
            now += drv_below(&rng, window_ns / 1000);
            call = now;
        } else if (r < 9500) {
            call = now; /* same timestamp */
        } else if (r < 9998) {
            uint64_t back = drv_below(&rng, 3 * window_ns / 2);
            call = back <= now - start ? now - back : start;
        } else {
            now += 2 * window_ns + drv_below(&rng, 3 * window_ns);
            call = now;
        }

        if (drv_below(&rng, 50) == 0) {
            CHECK_RC(tdbf_advance(f, call), TDBF_OK);
            ref_tick(ref, call);
        }
        u = pick_key(&rng);
        len = universe_key(key, u);
        want = ref_present(ref, u, call);
        got = tdbf_add(f, key, len, call);
        if (got != want)
            fail_msg("%s step %llu: add of key %llu at now=%llu (clock %llu, "
                     "last add %llu): got %d, reference %d", label,
                     (unsigned long long)step, (unsigned long long)u,
                     (unsigned long long)call, (unsigned long long)ref->clock,
                     (unsigned long long)ref->last[u], got, want);
        ref_tick(ref, call);
        ref->last[u] = ref->clock; /* an add is stamped with the clamped time */
        ref->added[u] = 1;

        for (i = 0; i < 3; i++) {
            uint64_t q = drv_below(&rng, UNIVERSE);
            /* Ask as of the call's time (maybe behind the clock), or a
             * bit ahead of the clock. */
            at = i == 2 ? ref->clock + drv_below(&rng, 2 * window_ns) : call;
            len = universe_key(key, q);
            want = ref_present(ref, q, at);
            got = tdbf_contains(f, key, len, at);
            if (got != want)
                fail_msg("%s step %llu: contains key %llu at %llu (clock %llu,"
                         " last add %llu, added %d): got %d, reference %d",
                         label, (unsigned long long)step,
                         (unsigned long long)q, (unsigned long long)at,
                         (unsigned long long)ref->clock,
                         (unsigned long long)ref->last[q], ref->added[q], got,
                         want);
            present += (uint64_t)want;
            queries++;
        }
        len = drv_key(key, DRV_SPACE_PROBE, 9, step);
        CHECK_RC(tdbf_contains(f, key, len, call), 0);
    }
    CHECK_U64_EQ(get_stats(f).now_ns, ref->clock);
    print_message("  %s: %llu adds and %llu queries match the reference "
                  "(%llu present), clock advanced %llu ns\n", label,
                  (unsigned long long)steps, (unsigned long long)queries,
                  (unsigned long long)present,
                  (unsigned long long)(ref->clock - start));
    if (present == 0 || present == queries)
        fail_msg("%s: degenerate stream: %llu of %llu present", label,
                 (unsigned long long)present, (unsigned long long)queries);
    tdbf_close(f);
    test_free(ref);
}

static void test_exact_time_window_vs_reference(void **state)
{
    (void)state;
    run_exact_time(0, "exact time window from 0");
    run_exact_time(UINT64_C(1) << 40, "exact time window from 2^40");
    /* Near the top of the 64-bit range (the run advances < 2^40 ns). */
    run_exact_time(UINT64_MAX - (UINT64_C(1) << 40), "exact time window near 2^64");
}

static void test_exact_time_edges(void **state)
{
    const uint64_t t = UINT64_C(1000000000), window_ns = 1000000;
    tdbf_config cfg;
    tdbf *f;
    (void)state;

    tdbf_config_init(&cfg);
    cfg.design = TDBF_EXACT;
    cfg.window_ns = window_ns;
    cfg.seed = 0xed9e;
    f = drv_open(&cfg);
    CHECK_RC(tdbf_add(f, "edge", 4, t), 0);
    CHECK_RC(tdbf_contains(f, "edge", 4, t + window_ns - 1), 1);
    CHECK_RC(tdbf_contains(f, "edge", 4, t + window_ns), 0);
    CHECK_RC(tdbf_contains(f, "edge", 4, t + 100 * window_ns), 0);
    /* Queries did not move the clock. */
    CHECK_RC(tdbf_contains(f, "edge", 4, t), 1);
    CHECK_U64_EQ(get_stats(f).now_ns, t);
    /* An add in the past is stamped with the clock. */
    CHECK_RC(tdbf_add(f, "late", 4, t - 5 * window_ns), 0);
    CHECK_RC(tdbf_contains(f, "late", 4, t + window_ns - 1), 1);
    CHECK_RC(tdbf_contains(f, "late", 4, t + window_ns), 0);
    /* Re-adding refreshes. */
    CHECK_RC(tdbf_add(f, "edge", 4, t + window_ns / 2), 1);
    CHECK_RC(tdbf_contains(f, "edge", 4, t + window_ns + window_ns / 2 - 1), 1);
    /* advance expires. */
    CHECK_RC(tdbf_advance(f, t + 10 * window_ns), TDBF_OK);
    CHECK_U64_EQ(get_stats(f).now_ns, t + 10 * window_ns);
    CHECK_RC(tdbf_contains(f, "edge", 4, 0), 0);
    CHECK_RC(tdbf_add(f, "edge", 4, 0), 0);
    tdbf_close(f);
}

/* ======================================================================
 * EXACT through the generic driver: zero FN and exactly zero FP
 * ====================================================================== */

static void test_exact_driver(void **state)
{
    tdbf_config cfg;
    drv_opts o;
    drv_result r;
    (void)state;

    tdbf_config_init(&cfg);
    cfg.design = TDBF_EXACT;
    cfg.window_items = 5000;
    cfg.seed = 0xd41;
    memset(&o, 0, sizeof o);
    o.window_kind = DRV_COUNT_WINDOW;
    o.inserts = DRV_PICK(200000, 30000);
    o.probes = 100000;
    o.key_seed = 0xd41;
    drv_run(&cfg, &o, &r);
    drv_check("exact count w=5000", &r, 0);
    CHECK_U64_EQ(r.false_positives, 0);
    CHECK_U64_EQ(r.add_present, 0);

    tdbf_config_init(&cfg);
    cfg.design = TDBF_EXACT;
    cfg.window_ns = 5000000; /* 5 ms at 1 us per insert: 5000 keys */
    cfg.seed = 0xd42;
    memset(&o, 0, sizeof o);
    o.window_kind = DRV_TIME_WINDOW;
    o.time_step_ns = 1000;
    o.inserts = DRV_PICK(200000, 30000);
    o.probes = 100000;
    o.key_seed = 0xd42;
    drv_run(&cfg, &o, &r);
    drv_check("exact time 5 ms, 1 us/insert", &r, 0);
    CHECK_U64_EQ(r.window, 5000);
    CHECK_U64_EQ(r.false_positives, 0);

    /* Batched, several keys per timestamp. */
    cfg.seed = 0xd43;
    o.batch = 37;
    o.key_seed = 0xd43;
    drv_run(&cfg, &o, &r);
    drv_check("exact time 5 ms, batches of 37", &r, 0);
    CHECK_U64_EQ(r.false_positives, 0);
}

/* EXACT has no false positives: its current error is 0, always. */
static void test_exact_current_error(void **state)
{
    (void)state;
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_EXACT;
    cfg.window_items = 100;
    tdbf *f = drv_open(&cfg);
    for (uint64_t i = 0; i < 1000; i++)
        drv_add_index(f, 0xe1, i);
    CHECK_NEAR(current_error_of(f, 0), 0.0, 0.0);
    tdbf_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bloom),
        cmocka_unit_test(test_blocked_bloom),
        cmocka_unit_test(test_bloom_current_error),
        cmocka_unit_test(test_exact_count_window_vs_reference),
        cmocka_unit_test(test_exact_time_window_vs_reference),
        cmocka_unit_test(test_exact_time_edges),
        cmocka_unit_test(test_exact_driver),
        cmocka_unit_test(test_exact_current_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
