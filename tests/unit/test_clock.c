/*
 * test_clock.c — the continuous clock-cell filter (src/lib/designs/clock.c).
 *
 * A key added at t0 (tick tau0 = t0 / L, L = ceil(T/d)) must be present
 * while now - t0 < T, and is gone (reported only at the FP rate) once the
 * tick passes tau0 + d: the expiry bound (d+1)·L ~ (d+1)/d·T.  The tests:
 * the no-false-negative property under adversarial schedules (steady,
 * 10x and 100x rates, bursts at one timestamp, idle gaps longer than T and
 * than several clock laps, one insert per tick, jitter) for every cell
 * width; the exact expiry tick; the aliasing regression (a key idle for a
 * multiple of the clock's P ticks must not come back); FP at steady state
 * against the analytic rate; read-only queries; configuration errors;
 * tdbf_current_error from the per-tick add counts (at the planned load, in
 * bursts of 10x and 100x, after expiry, and after a save and load, which
 * must infer the counts from the cells and leave the bytes as they were).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

#define SEC UINT64_C(1000000000)

typedef struct clock_shape {
    unsigned cell_bits;   /* 0 = default (4) */
    unsigned resolution;  /* 0 = default (2) */
} clock_shape;

static tdbf_config clock_config(double error, uint64_t window_ns, uint64_t capacity,
                                clock_shape shape, uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_CLOCK;
    cfg.error = error;
    cfg.window_ns = window_ns;
    cfg.capacity = capacity;
    cfg.cell_bits = shape.cell_bits;
    cfg.resolution = shape.resolution;
    cfg.seed = seed;
    return cfg;
}

static tdbf *open_clock(double error, uint64_t window_ns, uint64_t capacity,
                        clock_shape shape, uint64_t seed)
{
    tdbf_config cfg = clock_config(error, window_ns, capacity, shape, seed);
    return drv_open(&cfg);
}

/* The effective d and L of a filter (the defaults resolved). */
static unsigned resolution_of(clock_shape shape)
{
    if (shape.resolution)
        return shape.resolution;
    return shape.cell_bits == 2 ? 1 : 2;
}

static uint64_t tick_ns_of(uint64_t window_ns, unsigned d)
{
    return window_ns / d + (window_ns % d != 0);
}

static unsigned positions_of(clock_shape shape)
{
    return (1u << (shape.cell_bits ? shape.cell_bits : 4)) - 1;
}

/* ---- property: no false negatives under adversarial timing ------------- */

/* The shared schedule (stream.h), then what is hard for a clock: idle
 * gaps of many laps and of a few ticks, one insert per tick, every d
 * ticks, every d+1 ticks, just under a tick apart. */
static void adversarial_schedule(stream *s, uint64_t T, uint64_t L, unsigned positions,
                                 uint64_t per_window, uint64_t scale)
{
    uint64_t lap = (uint64_t)positions * L, step = T / per_window;
    stream_schedule(s, T, per_window, scale);
    stream_phase(s, 1, 20 * lap + L / 3, 0);                 /* idle for 20 laps */
    stream_phase(s, 1, 0, 0);
    stream_phase(s, 10 * per_window / scale, step, 0);
    stream_phase(s, 1, 7 * L, 0);                            /* idle for 7 ticks */
    stream_phase(s, 4 * positions, L, 0);                    /* one insert per tick */
    stream_phase(s, 4 * positions, L + 1, L / 2);            /* one per tick or two */
    stream_phase(s, 2 * positions, 2 * L, 0);                /* every 2 ticks */
    stream_phase(s, 2 * positions, 3 * L, 0);                /* every 3 ticks */
    stream_phase(s, 2 * positions, L - 1, 0);                /* just under a tick */
    stream_phase(s, 5 * per_window / scale, step, step);
}

static uint64_t schedule_length(uint64_t per_window, uint64_t scale, unsigned positions)
{
    return stream_schedule_keys(per_window, scale) + 15 * per_window / scale
         + 14 * (uint64_t)positions + 3;
}

static void test_no_false_negatives_any_schedule(void **state)
{
    (void)state;
    const uint64_t T = SEC, per_window = 10000;
    const uint64_t scale = DRV_PICK(1, 10);
    const clock_shape shape = {0, 0};
    stream s;
    tdbf *f = open_clock(0.01, T, per_window, shape, 11);
    uint64_t L = tick_ns_of(T, resolution_of(shape));
    stream_init(&s, f, T, SEC, schedule_length(per_window, scale, 15), 21);
    adversarial_schedule(&s, T, L, positions_of(shape), per_window, scale);
    tdbf_stats st = stats_of(f);
    print_message("schedule: %llu inserts, %llu window checks, %llu false negatives, "
                  "%llu ticks\n", (unsigned long long)s.next, (unsigned long long)s.checks,
                  (unsigned long long)s.false_negatives, (unsigned long long)st.generations);
    CHECK_U64_EQ(s.false_negatives, 0);
    CHECK_U64_GE(s.next, DRV_PICK(1000000, 100000));
    stream_end(&s);
}

/* Every cell width, with the smallest and largest resolutions. */
static void test_cell_widths(void **state)
{
    (void)state;
    const clock_shape shapes[] = {{2, 0}, {4, 1}, {4, 13}, {8, 0}, {8, 7}, {8, 253}};
    const uint64_t T = 10 * SEC, per_window = 2000;
    const uint64_t scale = DRV_PICK(10, 40);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        clock_shape shape = shapes[i];
        unsigned d = resolution_of(shape), positions = positions_of(shape);
        uint64_t L = tick_ns_of(T, d);
        stream s;
        tdbf *f = open_clock(0.01, T, per_window, shape, 100 + i);
        stream_init(&s, f, T, 5 * SEC, schedule_length(per_window, scale, positions), 200 + i);
        adversarial_schedule(&s, T, L, positions, per_window, scale);
        tdbf_stats st = stats_of(f);
        print_message("c=%u d=%u: %llu inserts, %llu checks, %llu false negatives, "
                      "k=%u, %.1f bits/key\n", shape.cell_bits, d,
                      (unsigned long long)s.next, (unsigned long long)s.checks,
                      (unsigned long long)s.false_negatives, st.k, st.bits_per_item);
        CHECK_U64_EQ(s.false_negatives, 0);
        CHECK_U64_EQ(st.slice_bits % shape.cell_bits, 0);
        stream_end(&s);
    }
}

/* 64-bit ns time: nothing wraps at 2^32 ms, 2^63 ns or near 2^64; the
 * last key lives until its tick + d ends (d = 2, L = T/2). */
static tdbf *open_for_wraps(uint64_t window_ns)
{
    return open_clock(0.01, window_ns, 6000, (clock_shape){0, 0}, 5);
}

static uint64_t tick_expiry(uint64_t added_ns, uint64_t window_ns)
{
    uint64_t L = window_ns / 2;
    return (added_ns / L + 3) * L;
}

static void test_time_near_boundaries(void **state)
{
    (void)state;
    stream_wrap_test(open_for_wraps, 60 * SEC, tick_expiry);
}

/* ---- expiry bound ------------------------------------------------------ */

/* Exact: a key is present iff its tick is at most d ticks old; so every
 * key younger than T is, and none older than (d+1)·L is (but at the FP
 * rate).  Between T and (d+1)·L it depends on where in its tick it was
 * added. */
static void test_expiry_bound(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC, rate = 2000;
    const clock_shape shapes[] = {{0, 0}, {8, 5}};
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        unsigned d = resolution_of(shapes[c]);
        uint64_t L = tick_ns_of(T, d);
        stream s;
        tdbf *f = open_clock(0.01, T, rate * 10, shapes[c], 37 + c);
        stream_init(&s, f, T, SEC, rate * 60 + 10, 12);
        stream_phase(&s, rate * 60, SEC / rate, 0);
        tdbf_stats st = stats_of(f);
        uint64_t live_missing = 0, live = 0, slack = 0, slack_hits = 0, old = 0, old_hits = 0;
        uint64_t now_tick = s.now / L;
        for (uint64_t i = 0; i < s.next; i++) {
            uint64_t age = s.now - s.times[i];
            int present = stream_has(&s, i, s.now);
            if (now_tick - s.times[i] / L <= d) {
                live++;
                live_missing += present != 1;
                if (age >= T) {
                    slack++;
                    slack_hits += present == 1;
                }
            } else {
                old++;
                old_hits += present == 1;
                if (!(age >= T))
                    fail_msg("key of age %llu ns < T %llu is past its tick", (unsigned long long)age,
                             (unsigned long long)T);
            }
            if (age >= (uint64_t)(d + 1) * L && now_tick - s.times[i] / L <= d)
                fail_msg("key of age %llu ns >= (d+1)L = %llu ns still in a live tick",
                         (unsigned long long)age, (unsigned long long)((d + 1) * L));
        }
        char label[64];
        snprintf(label, sizeof label, "c=%u d=%u", shapes[c].cell_bits ? shapes[c].cell_bits : 4, d);
        print_message("%s: %llu keys in live ticks (%llu older than T), %llu missing\n", label,
                      (unsigned long long)live, (unsigned long long)slack,
                      (unsigned long long)live_missing);
        CHECK_U64_EQ(live_missing, 0);
        CHECK_U64_EQ(slack_hits, slack);
        check_expired_rate(label, old_hits, old, st.error_estimated);
        stream_end(&s);
    }
}

/* ---- aliasing ---------------------------------------------------------- */

/* Keys written at tick tau0 and never rewritten, queried at the ticks
 * where a clock of P positions reads them as 0..d ticks old again
 * (tau0 + jP + a).  Without the sweep nearly all of them would be
 * reported; with it, none (the few live cells make FPs negligible). */
static uint64_t aliased_hits(const stream *s, uint64_t old_keys, uint64_t tick0,
                             uint64_t L, unsigned positions, unsigned d, unsigned laps,
                             uint64_t *queries)
{
    uint64_t hits = 0;
    for (unsigned lap = 1; lap <= laps; lap++)
        for (unsigned a = 0; a <= d; a++) {
            uint64_t when = (tick0 + (uint64_t)lap * positions + a) * L + L / 2;
            if (when < s->now)
                continue;  /* queries see the filter as of now at the earliest */
            for (uint64_t i = 0; i < old_keys; i++)
                hits += stream_has(s, i, when) == 1;
            *queries += old_keys;
        }
    return hits;
}

typedef enum { FILL_ADD, FILL_ADVANCE, FILL_NOTHING } filler;

/* Old keys at tick 1, then `laps` clock laps with an add (or advance, or
 * nothing) every `every` ticks; at each aliased tick on the way, and at
 * the end, the old keys must be absent. */
static void run_aliasing(clock_shape shape, filler fill, unsigned every, unsigned laps)
{
    const uint64_t T = 10 * SEC, old_keys = 1000;
    unsigned d = resolution_of(shape), positions = positions_of(shape);
    uint64_t L = tick_ns_of(T, d);
    /* k = 2: a key aliases as soon as two cells escape the sweep. */
    tdbf_config cfg = clock_config(0.01, T, old_keys, shape, 41);
    cfg.k = 2;
    tdbf *f = drv_open(&cfg);
    stream s;
    stream_init(&s, f, T, L, old_keys + (uint64_t)laps * positions + 10, 43);
    for (uint64_t i = 0; i < old_keys; i++)
        stream_insert(&s);
    uint64_t hits = 0, queries = 0, end = 1 + (uint64_t)laps * positions + d + 1;
    for (uint64_t tick = 1 + every; tick <= end; tick += every) {
        s.now = tick * L + L / 4;
        if (fill == FILL_ADD)
            stream_insert(&s);
        else if (fill == FILL_ADVANCE)
            CHECK_RC(tdbf_advance(f, s.now), TDBF_OK);
        /* Query the old keys now if this tick aliases tick 1. */
        uint64_t age = tick - 1;
        if (age >= positions && age % positions <= d) {
            for (uint64_t i = 0; i < old_keys; i++)
                hits += stream_has(&s, i, s.now) == 1;
            queries += old_keys;
        }
    }
    /* And from the end, read-only, at the aliased ticks still ahead. */
    hits += aliased_hits(&s, old_keys, 1, L, positions, d, laps + 3, &queries);
    print_message("c=%u d=%u, %s every %u ticks for %u laps: old keys reported %llu of %llu "
                  "queries at aliased ticks\n", shape.cell_bits ? shape.cell_bits : 4, d,
                  fill == FILL_ADD ? "add" : fill == FILL_ADVANCE ? "advance" : "nothing",
                  every, laps, (unsigned long long)hits, (unsigned long long)queries);
    CHECK_U64_GE(queries, old_keys);
    CHECK_U64_EQ(hits, 0);
    stream_end(&s);
}

static void test_aliasing_regression(void **state)
{
    (void)state;
    const clock_shape shapes[] = {{0, 0}, {2, 0}, {8, 2}, {4, 6}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        unsigned d = resolution_of(shapes[i]);
        run_aliasing(shapes[i], FILL_ADD, 1, 4);
        if (d > 1)
            run_aliasing(shapes[i], FILL_ADD, d, 4);
        run_aliasing(shapes[i], FILL_ADD, d + 1, 4);
        run_aliasing(shapes[i], FILL_ADVANCE, 1, 3);
        run_aliasing(shapes[i], FILL_NOTHING, 1, 5);
    }
}

/* A long idle gap: old keys stay gone, a key added after it is present. */
static void test_long_idle_gap(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC, L = 5 * SEC, lap = 15 * L;
    tdbf *f = open_clock(0.01, T, 1000, (clock_shape){0, 0}, 47);
    stream s;
    stream_init(&s, f, T, SEC, 3000, 49);
    stream_phase(&s, 1000, T / 1000, 0);
    uint64_t before = s.next;
    for (unsigned laps = 1; laps <= 7; laps++) {
        uint64_t when = s.now + laps * lap;
        uint64_t hits = 0;
        for (uint64_t i = 0; i < before; i++)
            hits += stream_has(&s, i, when) == 1;
        if (hits)
            fail_msg("%llu of %llu keys reported %u laps later", (unsigned long long)hits,
                     (unsigned long long)before, laps);
    }
    /* Idle for five laps, then new keys: present, and the old ones not. */
    s.now += 5 * lap;
    stream_phase(&s, 500, T / 1000, 0);
    uint64_t old_hits = 0;
    for (uint64_t i = 0; i < before; i++)
        old_hits += stream_has(&s, i, s.now) == 1;
    for (uint64_t i = before; i < s.next; i++)
        assert_int_equal(stream_has(&s, i, s.now), 1);
    print_message("after 5 idle laps: %llu new keys present, %llu of %llu old keys reported\n",
                  (unsigned long long)(s.next - before), (unsigned long long)old_hits,
                  (unsigned long long)before);
    CHECK_U64_EQ(old_hits, 0);
    stream_end(&s);
}

/* ---- false positives at steady state ------------------------------------ */

/* At the end of a tick the live cells hold d+1 full ticks of keys, the
 * planned load: the measured FP must sit in the band of the filter's own
 * live-cell estimate, and that at or below the analytic worst case. */
static void check_steady_fp(double error, uint64_t window_ns, uint64_t per_window,
                            clock_shape shape)
{
    unsigned d = resolution_of(shape);
    uint64_t L = tick_ns_of(window_ns, d), step = window_ns / per_window;
    uint64_t ticks = 5 * d;                 /* five windows, ending a tick */
    uint64_t inserts = ticks * L / step - 1;
    stream s;
    tdbf *f = open_clock(error, window_ns, per_window, shape, 53);
    stream_init(&s, f, window_ns, 0, inserts + 1, 57);
    stream_phase(&s, inserts, step, 0);
    assert_true(s.now / L == ticks - 1 && s.now + step >= ticks * L);
    tdbf_stats st = stats_of(f);
    uint64_t probes = DRV_PICK(1000000, 200000);
    uint64_t hits = drv_probe_hits(f, 59, 0, probes, s.now);
    double fp = (double)hits / (double)probes;
    double band = drv_band(st.error_estimated, (double)probes, 0.0);
    double planned_band = drv_band(st.error_planned, (double)probes, 0.0);
    print_message("clock T=%llus C=%llu c=%u d=%u error %g: k=%u, %llu cells, %.1f bits/key; "
                  "FP %.5f (%llu/%llu), estimated %.5f +- %.5f, planned %.5f\n",
                  (unsigned long long)(window_ns / SEC), (unsigned long long)per_window,
                  shape.cell_bits ? shape.cell_bits : 4, d, error, st.k,
                  (unsigned long long)(st.slice_bits / (shape.cell_bits ? shape.cell_bits : 4)),
                  st.bits_per_item, fp, (unsigned long long)hits,
                  (unsigned long long)probes, st.error_estimated, band, st.error_planned);
    CHECK_U64_EQ(s.false_negatives, 0);
    if (!(st.error_planned <= error))
        fail_msg("planned FP %.6g above the target %g", st.error_planned, error);
    if (fabs(fp - st.error_estimated) > band)
        fail_msg("FP %.6f outside the estimate %.6f +- %.6f", fp, st.error_estimated, band);
    if (!(fp <= st.error_planned + planned_band))
        fail_msg("FP %.6f above the planned %.6f + %.6f", fp, st.error_planned, planned_band);
    /* The live load is the planned one: the estimate is close to plan. */
    if (!(st.error_estimated > 0.8 * st.error_planned))
        fail_msg("estimated FP %.6f far below the planned %.6f at full load",
                 st.error_estimated, st.error_planned);
    /* The count-based estimate agrees with the cells' and the probes'. */
    check_current_error("  current error", f, s.now, DRV_PICK(200000, 50000), 60, 0.05, NULL);
    stream_end(&s);
}

static void test_steady_state_fp(void **state)
{
    (void)state;
    check_steady_fp(0.01, 60 * SEC, DRV_PICK(60000, 12000), (clock_shape){0, 0});
    check_steady_fp(0.001, 10 * SEC, DRV_PICK(20000, 5000), (clock_shape){8, 4});
    check_steady_fp(0.05, 10 * SEC, DRV_PICK(20000, 5000), (clock_shape){2, 0});
}

/* The generic driver (every design goes through it) on a time window. */
static void test_generic_driver(void **state)
{
    (void)state;
    tdbf_config cfg = clock_config(0.01, SEC, 10000, (clock_shape){0, 0}, 61);
    drv_opts o;
    drv_result r;
    memset(&o, 0, sizeof o);
    o.window_kind = DRV_TIME_WINDOW;
    o.time_step_ns = SEC / 10000;
    o.key_seed = 63;
    o.batch = 16;
    drv_run(&cfg, &o, &r);
    drv_check("clock, driver", &r, 0);
}

/* ---- tdbf_current_error ------------------------------------------------- */

/* A filter sized for 1024 keys per minute takes bursts of 10 and 100
 * minutes' keys at one timestamp without a false negative, its FP going
 * to 0.95 and 1: the estimate from the add counts says so, and falls to 0
 * once the burst's tick has expired ((d+1) L after its start). */
static void test_current_error_reports_overload(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, L = tick_ns_of(T, 2), C = 1024;
    const uint64_t probes = DRV_PICK(100000, 20000);
    stream s;
    tdbf *f = open_clock(0.01, T, C, (clock_shape){0, 0}, 71);
    stream_init(&s, f, T, SEC, 3 * C + 100 * C + C / 2 + 10, 73);
    stream_phase(&s, 3 * C, T / C, 0);             /* three windows, planned rate */
    double fp, planned = stats_of(f).error_planned;
    /* (a tick into the window: d ticks and a second of keys are live) */
    double steady = check_current_error("clock C=1024, planned rate", f, s.now, probes, 75,
                                        0.05, &fp);
    if (!(steady <= planned))
        fail_msg("current error %.6f above the planned %.6f at the planned rate", steady,
                 planned);
    stream_phase(&s, 10 * C, 0, 0);                /* 10 windows' keys at once */
    double ten = check_current_error("clock, burst of 10x", f, s.now, probes, 77, 0.05, &fp);
    if (!(fp > 50 * planned && ten > 0.9))
        fail_msg("after 10x: measured %.4f, current %.4f (planned %.4f)", fp, ten, planned);
    stream_phase(&s, 90 * C, 0, 0);                /* 100x in all */
    double hundred = check_current_error("clock, burst of 100x", f, s.now, probes, 79, 0.05,
                                         &fp);
    if (!(hundred > 0.999))
        fail_msg("after 100x: current %.6f, measured %.6f", hundred, fp);
    /* Live until the burst's tick is d ticks behind, gone at the next. */
    uint64_t gone = (s.now / L + 3) * L;
    CHECK_NEAR(current_error_of(f, gone - 1), hundred, 0.0);
    CHECK_NEAR(current_error_of(f, gone), 0.0, 0.0);
    CHECK_U64_EQ(drv_probe_hits(f, 79, 0, 1000, gone), 0);
    CHECK_RC(tdbf_advance(f, gone), TDBF_OK);
    CHECK_NEAR(current_error_of(f, gone), 0.0, 0.0);
    CHECK_NEAR(current_error_of(f, 0), 0.0, 0.0);    /* clamped to `gone` */
    check_estimate_restarts(&s, gone, C, T, steady);   /* fresh adds count from zero */
    stream_end(&s);
}

/* The add counts are not saved: load infers them from the cells' ages.
 * The estimate after a load is the original's, tick by tick as the ticks
 * expire; the saved bytes are the ones the format had before the counts
 * existed (the trailing checksum, pinned here, covers every byte). */
static void test_current_error_after_load(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, L = tick_ns_of(T, 2), C = 4096;
    stream s;
    tdbf *f = open_clock(0.01, T, C, (clock_shape){0, 0}, 81);
    stream_init(&s, f, T, SEC, 5 * C + 10, 83);
    stream_phase(&s, 5 * C, T / C, 0);
    uint64_t checksum;
    tdbf *g = reload(f, &checksum);
    print_message("saved form's checksum %016llx\n", (unsigned long long)checksum);
    CHECK_U64_EQ(checksum, UINT64_C(0x96d799a4a4013bea));
    for (uint64_t tick = s.now / L; tick <= s.now / L + 3; tick++) {
        uint64_t when = tick == s.now / L ? s.now : tick * L;
        double before = current_error_of(f, when), after = current_error_of(g, when);
        print_message("tick +%llu: current error %.6f, after load %.6f\n",
                      (unsigned long long)(tick - s.now / L), before, after);
        CHECK_NEAR(after, before, 0.03 * before);
    }
    /* Both keep counting the same adds. */
    uint8_t key[DRV_KEY_MAX];
    for (uint64_t i = 0; i < C; i++) {
        size_t len = drv_key(key, DRV_SPACE_PROBE, 85, i);
        CHECK_RC(tdbf_add(f, key, len, s.now), tdbf_add(g, key, len, s.now));
    }
    CHECK_NEAR(current_error_of(g, s.now), current_error_of(f, s.now),
               0.03 * current_error_of(f, s.now));
    tdbf_close(g);
    stream_end(&s);
}

static void test_current_error_arguments(void **state)
{
    (void)state;
    tdbf *f = open_clock(0.01, SEC, 1000, (clock_shape){0, 0}, 87);
    double error = 0.5;
    CHECK_RC(tdbf_current_error(NULL, 0, &error), TDBF_EINVAL);
    CHECK_RC(tdbf_current_error(f, 0, NULL), TDBF_EINVAL);
    CHECK_NEAR(error, 0.5, 0.0);
    CHECK_RC(tdbf_current_error(f, 0, &error), TDBF_OK);  /* empty: nothing live */
    CHECK_NEAR(error, 0.0, 0.0);
    tdbf_close(f);
}

/* ---- read-only queries, clamped time, configuration --------------------- */

static void test_queries_do_not_mutate(void **state)
{
    (void)state;
    const uint64_t T = 5 * SEC, lap = 15 * tick_ns_of(5 * SEC, 2);
    stream s;
    tdbf *f = open_clock(0.01, T, 5000, (clock_shape){0, 0}, 13);
    stream_init(&s, f, T, SEC, 20000, 6);
    stream_phase(&s, 12000, T / 5000, 0);
    /* The past, now, the far future, and a lap ahead (aliasing). */
    const uint64_t when[] = {0, s.now, s.now + 10 * T, s.now + lap};
    stream_check_read_only(&s, when, 4);
    stream_end(&s);
}

static void test_time_backwards_is_clamped(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC, L = 5 * SEC;
    tdbf *f = open_clock(0.01, T, 1000, (clock_shape){0, 0}, 17);
    CHECK_RC(tdbf_add(f, "late", 4, 100 * SEC), 0);
    /* An add stamped in the past is treated as happening at 100 s. */
    CHECK_RC(tdbf_add(f, "early", 5, 1 * SEC), 0);
    CHECK_U64_EQ(stats_of(f).now_ns, 100 * SEC);
    uint64_t expiry = (100 * SEC / L + 3) * L;
    assert_int_equal(tdbf_contains(f, "early", 5, 100 * SEC + T - 1), 1);
    assert_int_equal(tdbf_contains(f, "early", 5, expiry - 1), 1);
    assert_int_equal(tdbf_contains(f, "early", 5, expiry), 0);
    CHECK_RC(tdbf_advance(f, 0), TDBF_OK);
    CHECK_U64_EQ(stats_of(f).now_ns, 100 * SEC);
    assert_int_equal(tdbf_contains(f, "late", 4, 100 * SEC), 1);
    /* Re-adding refreshes: added again at 110 s, it outlives the first. */
    CHECK_RC(tdbf_add(f, "late", 4, 110 * SEC), 1);
    assert_int_equal(tdbf_contains(f, "late", 4, expiry), 1);
    assert_int_equal(tdbf_contains(f, "early", 5, expiry), 0);
    tdbf_close(f);
}

static void test_config_errors(void **state)
{
    (void)state;
    tdbf *f = NULL;
    tdbf_config cfg = clock_config(0.01, 0, 1000, (clock_shape){0, 0}, 1);
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EWINDOW);      /* no window */
    cfg.window_items = 1000;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EWINDOW);      /* count window */
    cfg.window_ns = SEC;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EWINDOW);      /* both */
    cfg.window_items = 0;
    const clock_shape bad[] = {{3, 0}, {1, 0}, {16, 0}, {2, 2}, {4, 14}, {8, 254}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg.cell_bits = bad[i].cell_bits;
        cfg.resolution = bad[i].resolution;
        CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    }
    cfg.cell_bits = 0;
    cfg.resolution = 0;
    cfg.l = 2;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);       /* l is not a clock parameter */
    cfg.l = 0;
    check_size_errors(&cfg, &cfg.capacity);
    assert_null(f);

    /* The largest resolutions are accepted; an explicit k is honoured. */
    const clock_shape edge[] = {{2, 1}, {4, 13}, {8, 253}};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        tdbf_config ok = clock_config(0.01, SEC, 100, edge[i], 3);
        ok.k = 3;
        tdbf *g = drv_open(&ok);
        tdbf_stats st = stats_of(g);
        CHECK_U64_EQ(st.k, 3);
        CHECK_U64_EQ(st.window_ns, SEC);
        CHECK_U64_EQ(st.slices, 1);
        CHECK_U64_EQ(st.slice_bits % 64, 0);   /* whole words of cells */
        tdbf_close(g);
    }
}

/* tdbf_plan_clock_rotating sizes exactly as open does: same cells, k, memory and
 * planned FP, without allocating; and refuses what open refuses. */
static void test_plan_matches_open(void **state)
{
    (void)state;
    static const clock_shape shapes[] = {{2, 1}, {4, 2}, {8, 4}, {4, 0}};
    static const double errors[] = {0.05, 0.01, 0.001};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t e = 0; e < sizeof errors / sizeof errors[0]; e++) {
            tdbf_config cfg = clock_config(errors[e], 60 * SEC, 1000 + 777 * e, shapes[i], 7);
            tdbf_clock_rotating_plan plan;
            CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_OK);
            tdbf *f = drv_open(&cfg);
            tdbf_stats st = stats_of(f);
            CHECK_U64_EQ(plan.design, TDBF_CLOCK);
            CHECK_U64_EQ(plan.memory_bytes, st.memory_bytes);
            CHECK_U64_EQ(plan.bits, st.slice_bits);
            CHECK_U64_EQ(plan.k, st.k);
            CHECK_U64_EQ(plan.filters, st.slices);
            CHECK_U64_EQ(plan.cells * plan.cell_bits, plan.bits);
            CHECK_NEAR(plan.fp, st.error_planned, 0.0);
            CHECK_NEAR(plan.bits_per_item, st.bits_per_item, 1e-12);
            CHECK_U64_GE((uint64_t)(errors[e] * 1e9), (uint64_t)(plan.fp * 1e9));
            tdbf_close(f);
        }

    tdbf_config cfg = clock_config(0.01, 60 * SEC, 60000, (clock_shape){4, 2}, 7);
    tdbf_clock_rotating_plan plan;
    CHECK_RC(tdbf_plan_clock_rotating(NULL, &plan), TDBF_EINVAL);
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, NULL), TDBF_EINVAL);
    cfg.max_memory = 4096;
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_ETOOBIG);
    tdbf *f = NULL;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_ETOOBIG);
    cfg.max_memory = 0;
    cfg.cell_bits = 3;
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_EPARAM);
    cfg.cell_bits = 4;
    cfg.error = 0.0;
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_EERROR);
    cfg.error = 0.01;
    cfg.window_ns = 0;
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_EWINDOW);
    cfg.design = TDBF_APBF;
    CHECK_RC(tdbf_plan_clock_rotating(&cfg, &plan), TDBF_EDESIGN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_false_negatives_any_schedule),
        cmocka_unit_test(test_cell_widths),
        cmocka_unit_test(test_time_near_boundaries),
        cmocka_unit_test(test_expiry_bound),
        cmocka_unit_test(test_aliasing_regression),
        cmocka_unit_test(test_long_idle_gap),
        cmocka_unit_test(test_steady_state_fp),
        cmocka_unit_test(test_generic_driver),
        cmocka_unit_test(test_current_error_reports_overload),
        cmocka_unit_test(test_current_error_after_load),
        cmocka_unit_test(test_current_error_arguments),
        cmocka_unit_test(test_queries_do_not_mutate),
        cmocka_unit_test(test_time_backwards_is_clamped),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_plan_matches_open),
    };
    return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
