/*
 * test_rotating.c — rotating Bloom filters (src/lib/designs/rotating.c).
 *
 * Count window: the generic driver's no-false-negative property over many
 * windows and odd sizes, the exact expiry (a key lives while its filter is
 * among the N+1 newest), FP right before a rotation (all N+1 filters full,
 * the analytic worst case) and bits per key at 10^6.  Time window: the
 * schedule-driven property (steady, 10x and 100x rates, bursts at one
 * timestamp, idle gaps, jitter), growth instead of early retirement when
 * rotating on capacity, the cap, release by tdbf_advance, the expiry
 * bound T + T/N, steady-state FP.  Both: read-only queries, configuration
 * errors, and tdbf_current_error from the filters' insert counts (at the
 * planned load, in bursts of 10x and 100x, after expiry, after a load).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

#define SEC UINT64_C(1000000000)

static tdbf_config rotating_config(double error, uint64_t window_items, uint64_t window_ns,
                                   uint64_t capacity, unsigned filters, uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_ROTATING;
    cfg.error = error;
    cfg.window_items = window_items;
    cfg.window_ns = window_ns;
    cfg.capacity = capacity;
    cfg.filters = filters;
    cfg.seed = seed;
    return cfg;
}

static tdbf *open_timed(double error, uint64_t window_ns, uint64_t capacity,
                        unsigned filters, uint64_t seed)
{
    tdbf_config cfg = rotating_config(error, 0, window_ns, capacity, filters, seed);
    return drv_open(&cfg);
}

static int has_key(const tdbf *f, uint64_t seed, uint64_t index, uint64_t now)
{
    uint8_t key[DRV_KEY_MAX];
    size_t len = drv_key(key, DRV_SPACE_INSERT, seed, index);
    return tdbf_contains(f, key, len, now);
}

static void add_keys(tdbf *f, uint64_t seed, uint64_t first, uint64_t n, uint64_t now)
{
    uint8_t key[DRV_KEY_MAX];
    for (uint64_t i = first; i < first + n; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, seed, i);
        int rc = tdbf_add(f, key, len, now);
        if (rc < 0)
            fail_msg("tdbf_add returned %d (%s)", rc, tdbf_strerror(rc));
    }
}

/* The measured FP must sit in the band of the filter's own estimate
 * (from the fill of its live filters), and not above the planned worst
 * case; returns the measured rate. */
static double check_fp(const tdbf *f, const char *label, uint64_t probes, uint64_t seed,
                       uint64_t now)
{
    tdbf_stats st = stats_of(f);
    uint64_t hits = drv_probe_hits(f, seed, 0, probes, now);
    double fp = (double)hits / (double)probes;
    double band = drv_band(st.error_estimated, (double)probes, 0.0);
    double planned_band = drv_band(st.error_planned, (double)probes, 0.0);
    print_message("%s: N+1=%u filters of %llu bits, k=%u, %.2f bits/key; FP %.5f (%llu/%llu), "
                  "estimated %.5f +- %.5f, planned %.5f\n", label, st.slices,
                  (unsigned long long)st.slice_bits, st.k, st.bits_per_item, fp,
                  (unsigned long long)hits, (unsigned long long)probes, st.error_estimated,
                  band, st.error_planned);
    if (!(st.error_planned <= st.error_configured))
        fail_msg("%s: planned FP %.6g above the target %g", label, st.error_planned,
                 st.error_configured);
    if (fabs(fp - st.error_estimated) > band)
        fail_msg("%s: FP %.6f outside the estimate %.6f +- %.6f", label, fp,
                 st.error_estimated, band);
    if (!(fp <= st.error_planned + planned_band))
        fail_msg("%s: FP %.6f above the planned %.6f + %.6f", label, fp, st.error_planned,
                 planned_band);
    return fp;
}

/* ======================================================================
 * Count window
 * ====================================================================== */

static void test_count_window_driver(void **state)
{
    (void)state;
    const uint64_t window = DRV_PICK(100000, 10000);
    tdbf_config cfg = rotating_config(0.01, window, 0, 0, 0, 71);
    drv_opts o;
    drv_result r;
    memset(&o, 0, sizeof o);
    o.window_kind = DRV_COUNT_WINDOW;
    o.inserts = 10 * window;
    o.sweep_every = window / 2;
    o.key_seed = 73;
    drv_run(&cfg, &o, &r);
    drv_check("rotating, count window", &r, 0);
    CHECK_U64_GE(r.stats.window_items, window);
    CHECK_U64_GE(r.inserted, DRV_PICK(1000000, 100000));
    /* Batches answer exactly as single calls. */
    o.batch = 64;
    o.inserts = 3 * window;
    drv_run(&cfg, &o, &r);
    drv_check("rotating, count window, batched", &r, 0);
}

/* Small and odd windows and ring sizes: the guaranteed window N·ceil(C/N)
 * is at least C, and holds. */
static void test_count_window_small(void **state)
{
    (void)state;
    const uint64_t windows[] = {1, 2, 3, 7, 100, 1001};
    const unsigned filters[] = {1, 2, 3, 4, 7, 256};
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
        for (size_t n = 0; n < sizeof filters / sizeof filters[0]; n++) {
            tdbf_config cfg = rotating_config(0.05, windows[w], 0, 0, filters[n], 75 + w);
            drv_opts o;
            drv_result r;
            char label[64];
            memset(&o, 0, sizeof o);
            o.window_kind = DRV_COUNT_WINDOW;
            o.inserts = 6 * windows[w] + 50;
            o.sweep_every = windows[w] < 50 ? 1 : 0;
            o.probes = 1000;
            o.key_seed = 77 + n;
            snprintf(label, sizeof label, "C=%llu N=%u", (unsigned long long)windows[w],
                     filters[n]);
            drv_run(&cfg, &o, &r);
            if (r.error || r.false_negatives)
                drv_check(label, &r, 0);
            CHECK_U64_GE(r.stats.window_items, windows[w]);
            CHECK_U64_EQ(r.stats.slices, filters[n] + 1);
        }
}

/* A key is held while its filter is among the N+1 newest: exactly the
 * keys of the last N full shares plus the newest's are present; older
 * ones (more than (N+1)·g inserts back) only at the FP rate. */
static void test_count_expiry_bound(void **state)
{
    (void)state;
    const uint64_t window = 10000, seed = 79;
    tdbf_config cfg = rotating_config(0.01, window, 0, 0, 4, 81);
    tdbf *f = drv_open(&cfg);
    uint64_t inserted = 10 * window + 1234;
    add_keys(f, seed, 0, inserted, 0);
    tdbf_stats st = stats_of(f);
    uint64_t g = st.generation_size, newest = (inserted - 1) / g;
    uint64_t held = 0, missing = 0, old = 0, old_hits = 0;
    for (uint64_t i = 0; i < inserted; i++) {
        int present = has_key(f, seed, i, 0);
        if (i / g + 4 >= newest) {
            held++;
            missing += present != 1;
        } else {
            old++;
            old_hits += present == 1;
        }
    }
    print_message("g=%llu: %llu keys in the 5 newest filters (window %llu), %llu missing\n",
                  (unsigned long long)g, (unsigned long long)held,
                  (unsigned long long)st.window_items, (unsigned long long)missing);
    CHECK_U64_EQ(missing, 0);
    CHECK_U64_GE(held, st.window_items);
    if (!(held <= 5 * g))
        fail_msg("%llu keys held, more than (N+1)g = %llu", (unsigned long long)held,
                 (unsigned long long)(5 * g));
    check_expired_rate("count window, older than (N+1)g", old_hits, old, st.error_estimated);
    tdbf_close(f);
}

/* Right before a rotation all N+1 filters hold g keys: the planned worst
 * case.  10^6 keys, error 0.01. */
static void test_count_fp_before_rotation(void **state)
{
    (void)state;
    const uint64_t window = DRV_PICK(1000000, 100000);
    const double errors[] = {0.01, 0.001};
    for (size_t e = 0; e < DRV_PICK(2u, 1u); e++) {
        tdbf_config cfg = rotating_config(errors[e], window, 0, 0, 0, 83 + e);
        tdbf *f = drv_open(&cfg);
        tdbf_stats st = stats_of(f);
        uint64_t g = st.generation_size;
        add_keys(f, 85, 0, 5 * g, 0);
        st = stats_of(f);
        CHECK_U64_EQ(st.generations, 4);   /* the 4 empty filters, in turn */
        CHECK_U64_EQ(st.generation_fill, g);
        char label[64];
        snprintf(label, sizeof label, "count window %llu, error %g",
                 (unsigned long long)window, errors[e]);
        double fp = check_fp(f, label, DRV_PICK(1000000, 200000), 87, 0);
        check_current_error("  current error", f, 0, DRV_PICK(200000, 50000), 88, 0.05, NULL);
        /* At full load the filter is at its plan, not below. */
        if (!(st.error_estimated > 0.9 * st.error_planned))
            fail_msg("estimated FP %.6f well below the planned %.6f at full load",
                     st.error_estimated, st.error_planned);
        print_message("  %.2f bits per key of the window, FP %.5f vs analytic %.5f\n",
                      st.bits_per_item, fp, st.error_planned);
        /* N+1 filters of (N+1)/N the window's keys: about 16 bits at 1%. */
        if (!(st.bits_per_item < (e == 0 ? 16.5 : 23.5)))
            fail_msg("%.2f bits per key", st.bits_per_item);
        tdbf_close(f);
    }
}

/* ======================================================================
 * Time window
 * ====================================================================== */

/* The shared schedule (stream.h): at 10x the ring grows, at 100x it
 * reaches the cap (12 filters here); then a few keys per window. */
static void test_time_no_false_negatives_any_schedule(void **state)
{
    (void)state;
    const uint64_t T = SEC, per_window = 10000;
    const uint64_t scale = DRV_PICK(1, 10);
    tdbf_config cfg = rotating_config(0.01, 0, T, per_window, 0, 11);
    cfg.max_slices = 12;
    tdbf *f = drv_open(&cfg);
    stream s;
    stream_init(&s, f, T, SEC, stream_schedule_keys(per_window, scale) + 20000 / scale, 21);
    stream_schedule(&s, T, per_window, scale);
    stream_phase(&s, 10000 / scale, T / 4, 0);               /* four per window */
    stream_phase(&s, 10000 / scale, T / per_window, T / 5000);
    tdbf_stats st = stats_of(f);
    print_message("schedule: %llu inserts, %llu window checks, %llu false negatives; "
                  "%llu rotations, %llu cap hits\n", (unsigned long long)s.next,
                  (unsigned long long)s.checks, (unsigned long long)s.false_negatives,
                  (unsigned long long)st.generations, (unsigned long long)st.cap_hits);
    CHECK_U64_EQ(s.false_negatives, 0);
    CHECK_U64_GE(s.next, DRV_PICK(1000000, 100000));
    assert_true(st.cap_hits > 0);
    stream_end(&s);
}

/* 64-bit ns time: the last key's filter turns stale exactly T after it. */
static tdbf *open_for_wraps(uint64_t window_ns)
{
    return open_timed(0.01, window_ns, 6000, 0, 5);
}

static void test_time_near_boundaries(void **state)
{
    (void)state;
    stream_wrap_test(open_for_wraps, 60 * SEC, NULL);
}

static void test_time_steady_fp(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, rate = DRV_PICK(1000, 200);
    stream s;
    tdbf *f = open_timed(0.01, T, rate * 60, 0, 31);
    stream_init(&s, f, T, SEC, rate * 300 + 10, 33);
    stream_phase(&s, rate * 300, SEC / rate, 0);   /* five windows */
    CHECK_U64_EQ(s.false_negatives, 0);
    CHECK_U64_EQ(stats_of(f).slices, 5);          /* no growth at the planned rate */
    check_fp(f, "time window 60 s", DRV_PICK(1000000, 200000), 35, s.now);
    check_current_error("  current error", f, s.now, DRV_PICK(200000, 50000), 36, 0.05, NULL);
    stream_end(&s);
}

/* Keys younger than T: all present.  Older than T + span: only at the FP
 * rate.  Between: those whose filter's latest insert is younger than T. */
static void test_time_expiry_bound(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC, rate = 2000;
    const unsigned filters[] = {4, 1, 9};
    for (size_t n = 0; n < sizeof filters / sizeof filters[0]; n++) {
        uint64_t span = T / filters[n] + (T % filters[n] != 0);
        stream s;
        tdbf *f = open_timed(0.01, T, rate * 10, filters[n], 37 + n);
        stream_init(&s, f, T, SEC, rate * 60 + 10, 12);
        stream_phase(&s, rate * 60, SEC / rate, 0);
        tdbf_stats st = stats_of(f);
        uint64_t slack = 0, slack_hits = 0, old = 0, old_hits = 0;
        for (uint64_t i = 0; i < s.next; i++) {
            uint64_t age = s.now - s.times[i];
            if (age < T)
                continue;   /* checked by the stream */
            int present = stream_has(&s, i, s.now);
            if (age < T + span) {
                slack++;
                slack_hits += present == 1;
            } else {
                old++;
                old_hits += present == 1;
            }
        }
        char label[64];
        snprintf(label, sizeof label, "N=%u, older than T + T/N", filters[n]);
        print_message("N=%u: slack zone (T .. T+T/N): %llu of %llu reported\n", filters[n],
                      (unsigned long long)slack_hits, (unsigned long long)slack);
        CHECK_U64_EQ(s.false_negatives, 0);
        check_expired_rate(label, old_hits, old, st.error_estimated);
        stream_end(&s);
    }
}

/* Rotating on capacity must not retire keys younger than T: the ring
 * grows, then shrinks back when the burst's filters turn stale. */
static void test_burst_grows_then_releases(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC;
    stream s;
    tdbf *f = open_timed(0.01, T, 1000, 4, 91);
    stream_init(&s, f, T, SEC, 20000, 93);
    stream_phase(&s, 3000, SEC / 100, 0);          /* planned rate, 30 s */
    tdbf_stats before = stats_of(f);
    stream_phase(&s, 5000, 0, 0);                  /* 20 shares at one timestamp */
    tdbf_stats busy = stats_of(f);
    uint64_t probes = DRV_PICK(200000, 50000);
    double fp = (double)drv_probe_hits(f, 95, 0, probes, s.now) / (double)probes;
    print_message("burst: %u -> %u filters, %llu -> %llu bytes, FP %.4f (estimated %.4f, "
                  "planned %.4f for N+1), cap hits %llu\n", before.slices, busy.slices,
                  (unsigned long long)before.memory_bytes, (unsigned long long)busy.memory_bytes,
                  fp, busy.error_estimated, busy.error_planned,
                  (unsigned long long)busy.cap_hits);
    CHECK_U64_EQ(s.false_negatives, 0);
    CHECK_U64_EQ(busy.cap_hits, 0);
    CHECK_U64_GE(busy.slices, before.slices + 19);
    /* FP grows with the filters live: about L times each one's share. */
    if (!(fp <= busy.error_estimated + drv_band(busy.error_estimated, (double)probes, 0.0)))
        fail_msg("FP %.4f above the estimate %.4f", fp, busy.error_estimated);
    /* Half a window later the burst is still there (only filters of the
     * steady phase before it may have been released) ... */
    CHECK_RC(tdbf_advance(f, s.now + T / 2), TDBF_OK);
    CHECK_U64_GE(stats_of(f).slices, 21);
    for (uint64_t i = s.next - 5000; i < s.next; i++)
        assert_int_equal(stream_has(&s, i, s.now + T / 2), 1);
    /* ... a window later the extra filters are released. */
    CHECK_RC(tdbf_advance(f, s.now + T), TDBF_OK);
    tdbf_stats idle = stats_of(f);
    print_message("after T idle: %u filters, %llu bytes\n", idle.slices,
                  (unsigned long long)idle.memory_bytes);
    CHECK_U64_EQ(idle.slices, 5);
    CHECK_U64_EQ(idle.memory_bytes, before.memory_bytes);
    assert_int_equal(stream_has(&s, s.next - 1, s.now + T), 0);
    /* And it works again. */
    s.now += 2 * T;
    stream_phase(&s, 2000, SEC / 100, 0);
    stream_end(&s);
}

/* At the cap the newest takes more than its share: FP up, never a false
 * negative. */
static void test_cap_degrades_without_false_negatives(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC;
    tdbf_config cfg = rotating_config(0.01, 0, T, 100, 4, 23);
    cfg.max_slices = 5;
    tdbf *f = drv_open(&cfg);
    stream s;
    stream_init(&s, f, T, SEC, 60000, 8);
    stream_phase(&s, 50000, T / 100000, 0);     /* 500x the planned rate */
    tdbf_stats st = stats_of(f);
    print_message("cap: %u filters (max 5), %llu cap hits, estimated FP %.3g\n", st.slices,
                  (unsigned long long)st.cap_hits, st.error_estimated);
    CHECK_U64_EQ(s.false_negatives, 0);
    CHECK_U64_EQ(st.slices, 5);
    assert_true(st.cap_hits > 0);
    tdbf_close(f);
    stream_free(&s);
    /* A memory cap stops growth the same way. */
    cfg.max_slices = 0;
    cfg.max_memory = 4096;
    f = drv_open(&cfg);
    stream_init(&s, f, T, SEC, 5000, 10);
    stream_phase(&s, 4000, 0, 0);
    st = stats_of(f);
    CHECK_U64_EQ(s.false_negatives, 0);
    assert_true(st.cap_hits > 0);
    assert_true(st.memory_bytes <= 4096);
    tdbf_close(f);
    stream_free(&s);
}

/* ---- tdbf_current_error ------------------------------------------------- */

/* Sized for 1024 keys per minute, the ring takes bursts of 10 and 100
 * minutes' keys at one timestamp by growing to its cap, then filling the
 * newest past its share: its FP climbs, and the estimate from the counts
 * says so.  A window and a span later nothing is live: 0. */
static void test_current_error_reports_overload(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, C = 1024, probes = DRV_PICK(100000, 20000);
    stream s;
    tdbf *f = open_timed(0.01, T, C, 4, 97);
    stream_init(&s, f, T, SEC, 103 * C + C / 2 + 10, 99);
    stream_phase(&s, 3 * C, T / C, 0);
    double fp, planned = stats_of(f).error_planned;
    double steady = check_current_error("rotating C=1024, planned rate", f, s.now, probes, 101,
                                        0.05, &fp);
    if (!(steady <= planned))
        fail_msg("current error %.6f above the planned %.6f at the planned rate", steady,
                 planned);
    stream_phase(&s, 10 * C, 0, 0);
    double ten = check_current_error("rotating, burst of 10x", f, s.now, probes, 103, 0.05,
                                     &fp);
    if (!(fp > 5 * planned && ten > 5 * planned))
        fail_msg("after 10x: measured %.4f, current %.4f (planned %.4f)", fp, ten, planned);
    stream_phase(&s, 90 * C, 0, 0);
    double hundred = check_current_error("rotating, burst of 100x", f, s.now, probes, 105,
                                         0.05, &fp);
    tdbf_stats st = stats_of(f);
    print_message("  %u filters, %llu cap hits\n", st.slices, (unsigned long long)st.cap_hits);
    if (!(hundred > 0.99))
        fail_msg("after 100x: current %.6f, measured %.6f", hundred, fp);
    /* Every filter's latest insert is the burst's: all stale T later. */
    CHECK_NEAR(current_error_of(f, s.now + T - 1), hundred, 0.0);
    CHECK_NEAR(current_error_of(f, s.now + T), 0.0, 0.0);
    CHECK_RC(tdbf_advance(f, s.now + T), TDBF_OK);
    CHECK_NEAR(current_error_of(f, s.now + T), 0.0, 0.0);
    check_estimate_restarts(&s, s.now + T, C, T, steady);
    stream_end(&s);
}

/* The estimate after a load is the original's, exactly (it comes from the
 * saved counts); the saved bytes are as before tdbf_current_error (the
 * trailing checksum, pinned here, covers every byte). */
static void test_current_error_after_load(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, C = 1024;
    stream s;
    tdbf *f = open_timed(0.01, T, C, 4, 107);
    stream_init(&s, f, T, SEC, 8 * C + 10, 109);
    stream_phase(&s, 3 * C, T / C, 0);
    stream_phase(&s, 5 * C, 0, 0);                 /* a grown ring */
    check_estimate_survives_reload(f, UINT64_C(0x579a666fd5884009), s.now, T, 8, 0.0);
    /* A count window too. */
    tdbf_config cfg = rotating_config(0.01, 10000, 0, 0, 4, 111);
    tdbf *h = drv_open(&cfg);
    add_keys(h, 113, 0, 12345, 0);
    tdbf *copy = reload(h, NULL);
    CHECK_NEAR(current_error_of(copy, 0), current_error_of(h, 0), 0.0);
    tdbf_close(copy);
    tdbf_close(h);
    stream_end(&s);
}

static void test_time_backwards_is_clamped(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC;
    tdbf *f = open_timed(0.01, T, 1000, 0, 17);
    CHECK_RC(tdbf_add(f, "late", 4, 100 * SEC), 0);
    CHECK_RC(tdbf_add(f, "early", 5, 1 * SEC), 0);   /* treated as 100 s */
    CHECK_U64_EQ(stats_of(f).now_ns, 100 * SEC);
    assert_int_equal(tdbf_contains(f, "early", 5, 100 * SEC + T - 1), 1);
    assert_int_equal(tdbf_contains(f, "early", 5, 100 * SEC + T), 0);
    CHECK_RC(tdbf_advance(f, 0), TDBF_OK);
    CHECK_U64_EQ(stats_of(f).now_ns, 100 * SEC);
    /* Re-adding refreshes the key's age. */
    CHECK_RC(tdbf_add(f, "late", 4, 105 * SEC), 1);
    assert_int_equal(tdbf_contains(f, "late", 4, 105 * SEC + T - 1), 1);
    tdbf_close(f);
}

/* ======================================================================
 * Both
 * ====================================================================== */

static void test_queries_do_not_mutate(void **state)
{
    (void)state;
    const uint64_t T = 5 * SEC;
    for (int timed = 0; timed <= 1; timed++) {
        tdbf_config cfg = rotating_config(0.01, timed ? 0 : 5000, timed ? T : 0, 5000, 0, 13);
        tdbf *f = drv_open(&cfg);
        stream s;
        stream_init(&s, f, T, SEC, 20000, 6);
        stream_phase(&s, 12000, T / 5000, 0);
        const uint64_t when[] = {0, s.now, s.now + 10 * T};
        stream_check_read_only(&s, when, 3);
        stream_end(&s);
    }
}

static void test_config_errors(void **state)
{
    (void)state;
    tdbf *f = NULL;
    tdbf_config cfg = rotating_config(0.01, 0, 0, 0, 0, 1);
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EWINDOW);      /* no window */
    cfg.window_items = 1000;
    cfg.window_ns = SEC;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EWINDOW);      /* both */
    cfg.window_ns = 0;
    cfg.filters = 257;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    cfg.filters = 4;
    cfg.l = 3;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    cfg.l = 0;
    cfg.max_slices = 4;                               /* below N+1 */
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    cfg.max_slices = 4097;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    cfg.max_slices = 0;
    check_size_errors(&cfg, &cfg.window_items);
    cfg.window_items = 0;
    cfg.window_ns = SEC;
    check_size_errors(&cfg, &cfg.capacity);
    assert_null(f);

    /* Defaults: N = 4, an explicit k is honoured; the count window is
     * N·ceil(C/N). */
    cfg = rotating_config(0.01, 1001, 0, 0, 0, 2);
    cfg.k = 5;
    f = drv_open(&cfg);
    tdbf_stats st = stats_of(f);
    CHECK_U64_EQ(st.slices, 5);
    CHECK_U64_EQ(st.k, 5);
    CHECK_U64_EQ(st.window_items, 4 * 251);
    CHECK_U64_EQ(st.window_ns, 0);
    tdbf_close(f);
    cfg = rotating_config(0.01, 0, SEC, 0, 1, 2);
    f = drv_open(&cfg);
    st = stats_of(f);
    CHECK_U64_EQ(st.slices, 2);
    CHECK_U64_EQ(st.window_ns, SEC);
    CHECK_U64_EQ(st.window_items, 0);
    CHECK_U64_EQ(st.generation_size, 1024);          /* default capacity / N */
    tdbf_close(f);
}

/* tdbf_plan_clock_rotating sizes exactly as open does, count and time window. */
static void test_plan_matches_open(void **state)
{
    (void)state;
    static const double errors[] = {0.05, 0.01, 0.001};
    static const unsigned filters[] = {0, 1, 4, 9};
    for (size_t e = 0; e < sizeof errors / sizeof errors[0]; e++)
        for (size_t n = 0; n < sizeof filters / sizeof filters[0]; n++)
            for (int timed = 0; timed < 2; timed++) {
                tdbf_config cfg = timed
                    ? rotating_config(errors[e], 0, 60 * SEC, 5000 + n, filters[n], 9)
                    : rotating_config(errors[e], 100003 + e, 0, 0, filters[n], 9);
                tdbf_clock_rotating_plan plan;
                CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_OK);
                tdbf *f = drv_open(&cfg);
                tdbf_stats st = stats_of(f);
                CHECK_U64_EQ(plan.design, TDBF_ROTATING);
                CHECK_U64_EQ(plan.memory_bytes, st.memory_bytes);
                CHECK_U64_EQ(plan.cells, st.slice_bits);
                CHECK_U64_EQ(plan.bits, st.slice_bits * st.slices);
                CHECK_U64_EQ(plan.filters, st.slices);
                CHECK_U64_EQ(plan.k, st.k);
                CHECK_NEAR(plan.fp, st.error_planned, 0.0);
                CHECK_NEAR(plan.bits_per_item, st.bits_per_item, 1e-12);
                CHECK_U64_GE((uint64_t)(errors[e] * 1e9), (uint64_t)(plan.fp * 1e9));
                if (!timed)
                    CHECK_U64_EQ(plan.capacity, st.window_items);
                tdbf_close(f);
            }

    tdbf_config cfg = rotating_config(0.01, 1000000, 0, 0, 4, 9);
    tdbf_clock_rotating_plan plan;
    cfg.max_memory = 100000;
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_ETOOBIG);
    tdbf *f = NULL;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_ETOOBIG);
    cfg.max_memory = 0;
    cfg.window_ns = SEC;
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_EWINDOW);
    cfg.window_ns = 0;
    cfg.filters = 257;
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_EPARAM);
    cfg.filters = 4;
    cfg.k = 65;
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_EPARAM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_window_driver),
        cmocka_unit_test(test_count_window_small),
        cmocka_unit_test(test_count_expiry_bound),
        cmocka_unit_test(test_count_fp_before_rotation),
        cmocka_unit_test(test_time_no_false_negatives_any_schedule),
        cmocka_unit_test(test_time_near_boundaries),
        cmocka_unit_test(test_time_steady_fp),
        cmocka_unit_test(test_time_expiry_bound),
        cmocka_unit_test(test_burst_grows_then_releases),
        cmocka_unit_test(test_cap_degrades_without_false_negatives),
        cmocka_unit_test(test_current_error_reports_overload),
        cmocka_unit_test(test_current_error_after_load),
        cmocka_unit_test(test_time_backwards_is_clamped),
        cmocka_unit_test(test_queries_do_not_mutate),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_plan_matches_open),
    };
    return cmocka_run_group_tests_name("rotating", tests, NULL, NULL);
}
