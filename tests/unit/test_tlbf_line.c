/*
 * test_tlbf_line.c — apbf-line rings over a time window (src/lib/designs/tlbf_line/tlbf_line.c).
 *
 *   - no false negatives inside the window: the adversarial schedule every
 *     time design passes (steady, 10x up and down, bursts at one
 *     timestamp, idle gaps, jitter, 100x up), idle gaps of 1.5 and 3
 *     generations and of more than the window, 20 000 keys at one ns, a
 *     clock stepping back, batch calls, 64-bit time near its ends, and a
 *     save and load in the middle of a stream;
 *   - the FP at a steady rate, through a 10x rate jump and after a burst
 *     within the binomial band of the target (measured and planned
 *     printed), and tdbf_current_error beside them;
 *   - the FP promise at the worst moment of each arrival pattern (a
 *     steady rate, a 10x jump, a file read at full speed, a 1000x burst;
 *     errors 0.01 and 0.001): the upper end of the 95 % Wilson interval
 *     at most the target, tdbf_current_error within 2x of the interval;
 *   - memory at a steady rate against TLBF's at the same error and
 *     capacity (at most 1.1x at 0.01, 1.25x at 0.001), and back near it a
 *     window after a jump;
 *   - keys past the expiry bound at the FP rate, queries read-only, the
 *     ring cap degrading without false negatives;
 *   - forged files refused.
 * Single-call latency at a steady rate is printed, not asserted.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream.h"

#define SEC UINT64_C(1000000000)

static tdbf_config line_config(double error, uint64_t window_ns, uint64_t capacity,
                               uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_TLBF_LINE;
    cfg.error = error;
    cfg.window_ns = window_ns;
    cfg.capacity = capacity;
    cfg.seed = seed;
    return cfg;
}

static tdbf *open_line(double error, uint64_t window_ns, uint64_t capacity, uint64_t seed)
{
    tdbf_config cfg = line_config(error, window_ns, capacity, seed);
    return drv_open(&cfg);
}

static double probe_fp(const tdbf *f, uint64_t probes, uint64_t seed, uint64_t now)
{
    return (double)drv_probe_hits(f, seed, 0, probes, now) / (double)probes;
}

/* One generation of a filter: ceil(T / l). */
static uint64_t span_of(const tdbf *f)
{
    tdbf_stats st = stats_of(f);
    return st.window_ns / st.l + (st.window_ns % st.l != 0);
}

/* ---- no false negatives ------------------------------------------------------ */

static void test_no_false_negatives_any_schedule(void **state)
{
    (void)state;
    const uint64_t T = SEC, scale = DRV_PICK(1, 10);
    stream s;
    tdbf *f = open_line(0.01, T, 10000, 11);
    stream_init(&s, f, T, SEC, stream_schedule_keys(10000, scale), 21);
    stream_schedule(&s, T, 10000, scale);
    tdbf_stats st = stats_of(f);
    print_message("schedule: %llu inserts, %llu window checks, %llu false negatives; "
                  "%u fields live (%u rings), %llu cap hits\n",
                  (unsigned long long)s.next, (unsigned long long)s.checks,
                  (unsigned long long)s.false_negatives, st.slices, st.slices / (st.k + st.l + 1),
                  (unsigned long long)st.cap_hits);
    CHECK_U64_GE(s.next, DRV_PICK(1000000, 100000));
    stream_end(&s);
}

/* Idle gaps of 1.5 and 3 generations (the active ring owes shifts: the
 * first add shifts or retires it; queries before it mask its ages) and
 * of more than the window (everything freed). */
static void test_idle_gaps(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC, C = 5000;
    stream s;
    tdbf *f = open_line(0.01, T, C, 13);
    uint64_t span = span_of(f);
    stream_init(&s, f, T, SEC, 20 * C, 14);
    for (int round = 0; round < 3; round++) {
        stream_phase(&s, C, T / C, 0);
        stream_phase(&s, 1, span + span / 2, 0);    /* 1.5 generations idle */
        stream_phase(&s, C / 4, T / C, 0);
        s.now += 3 * span;                          /* 3 generations idle */
        stream_sweep(&s);                           /* queries ahead of the adds */
        stream_phase(&s, C / 2, T / C, T / C);
        stream_phase(&s, C / 10, 0, 0);             /* a batch at one time */
    }
    tdbf_stats busy = stats_of(f);
    s.now += T + span;                              /* more than the window */
    stream_sweep(&s);
    CHECK_RC(tdbf_advance(f, s.now), TDBF_OK);
    tdbf_stats idle = stats_of(f);
    print_message("gaps: %llu checks, %u rings busy\n", (unsigned long long)s.checks,
                  busy.slices / (busy.k + busy.l + 1));
    check_idle_released(&busy, &idle);
    stream_phase(&s, C, T / C, 0);                  /* and it works again */
    stream_end(&s);
}

/* The memory of one ring planned for a count window of `keys` keys, in
 * f's shape: what a burst of that many would take at the steady load. */
static double ring_bytes_for(const tdbf *f, double error, uint64_t keys)
{
    tdbf_stats st = stats_of(f);
    tdbf_config ring = line_config(error, 0, 0, 3);
    ring.design = TDBF_APBF_LINE;
    ring.window_items = keys;
    ring.k = st.k;
    ring.l = st.l;
    tdbf_line_plan plan;
    CHECK_RC(tdbf_plan_apbf_line(&ring, &plan), TDBF_OK);
    return (double)plan.bytes;
}

/* 20 000 keys at one ns after a steady rate of 20/s: a few rings (each
 * shifts on count in its first generation, then the next opens 4x as
 * wide, planned for a third of what the live rings leave of the target),
 * FP within the target's band, memory at most 4x a
 * ring of exactly the burst (growth by 4x adds at most 4/3 of the last
 * ring, which may be nearly empty; a ring that could not shift on count
 * would take about l times that).  Then the steady rate again for a
 * window: no false negatives, and the burst's rings age out. */
static void test_burst_at_one_timestamp(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, burst = 20000;
    const double error = 0.01;
    stream s;
    tdbf *f = open_line(error, T, 1200, 3);
    stream_init(&s, f, T, 1000 * SEC, 80000, 4);
    stream_phase(&s, 20 * 300, SEC / 20, 0);        /* 20/s for five minutes */
    tdbf_stats before = stats_of(f);
    stream_phase(&s, burst, 0, 0);
    tdbf_stats after = stats_of(f);
    uint64_t probes = DRV_PICK(400000, 100000);
    double fp = probe_fp(f, probes, 77, s.now), band = drv_band(error, (double)probes, 0.0);
    double bits = 8.0 * (double)after.memory_bytes / (double)(burst + 1200);
    double exact = ring_bytes_for(f, error, burst + 1200);
    unsigned fields = after.k + after.l + 1;
    print_message("burst: rings %u -> %u, memory %llu -> %llu bytes (%.1f bits/key; %.2fx a "
                  "ring of exactly the burst), FP %.5f (target %.2g, current error %.5f)\n",
                  before.slices / fields, after.slices / fields,
                  (unsigned long long)before.memory_bytes, (unsigned long long)after.memory_bytes,
                  bits, (double)after.memory_bytes / exact, fp, error, current_error_of(f, s.now));
    if (!(fp <= error + band))
        fail_msg("FP after the burst %.5f above the target %.3g + %.4f", fp, error, band);
    if (after.slices / fields > 8)
        fail_msg("%u rings after one burst", after.slices / fields);
    if (!((double)after.memory_bytes <= 4.0 * exact))
        fail_msg("%llu bytes after the burst, above 4x %.0f",
                 (unsigned long long)after.memory_bytes, exact);
    stream_phase(&s, 20 * 90, SEC / 20, 0);         /* a window and a half at 20/s */
    tdbf_stats later = stats_of(f);
    print_message("  a window and a half later: %u rings, %llu bytes\n",
                  later.slices / fields, (unsigned long long)later.memory_bytes);
    /* (the ring array stays grown: a little over the ring before) */
    CHECK_U64_EQ(later.slices / fields, before.slices / fields);
    if (!((double)later.memory_bytes <= 1.25 * (double)before.memory_bytes))
        fail_msg("%llu bytes after the burst aged out, %llu before it",
                 (unsigned long long)later.memory_bytes, (unsigned long long)before.memory_bytes);
    stream_end(&s);
}

/* A burst of the hint's keys into a new filter, half at the last ns of a
 * generation and half at the first of the next: the one ring planned for
 * the hint shifts on count and takes it all (no other ring, the planned
 * memory), FP within the band of the target.  Then keys at the hinted
 * rate while the ring is ahead of the clock, and past it, for two
 * windows: no false negatives, still one ring, FP at the target. */
static void test_burst_of_the_capacity_hint(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, C = DRV_PICK(200000, 50000);
    const double error = 0.01;
    stream s;
    tdbf *f = open_line(error, T, C, 41);
    tdbf_stats open = stats_of(f);
    stream_init(&s, f, T, 1000 * SEC, 4 * C, 42);
    uint64_t span = span_of(f);
    s.now = (s.now / span + 1) * span - 1;
    stream_phase(&s, C / 2, 0, 0);
    s.now += 1;
    stream_phase(&s, C - C / 2, 0, 0);
    tdbf_stats after = stats_of(f);
    unsigned fields = after.k + after.l + 1;
    uint64_t probes = DRV_PICK(400000, 100000);
    double fp = probe_fp(f, probes, 78, s.now), band = drv_band(error, (double)probes, 0.0);
    print_message("hint %llu, all at once: %u rings, %.1f bits/key (planned %.1f), FP %.5f "
                  "(current error %.5f)\n", (unsigned long long)C, after.slices / fields,
                  8.0 * (double)after.memory_bytes / (double)C,
                  8.0 * (double)open.memory_bytes / (double)C, fp, current_error_of(f, s.now));
    CHECK_U64_EQ(after.slices / fields, 1);
    CHECK_U64_EQ(after.memory_bytes, open.memory_bytes);
    if (!(fp <= error + band))
        fail_msg("FP after the hint's burst %.5f above the target %.3g + %.4f", fp, error, band);
    stream_phase(&s, 2 * C, T / C, 0);
    tdbf_stats steady = stats_of(f);
    fp = probe_fp(f, probes, 79, s.now);
    print_message("  then two windows at the hinted rate: %u rings, FP %.5f, %llu checks, "
                  "%llu false negatives\n", steady.slices / fields, fp,
                  (unsigned long long)s.checks, (unsigned long long)s.false_negatives);
    CHECK_U64_EQ(steady.slices / fields, 1);
    if (!(fp <= error + band))
        fail_msg("FP at the hinted rate %.5f above the target %.3g + %.4f", fp, error, band);
    stream_end(&s);
}

/* Time stepping back is clamped: adds stamped in the past count as now. */
static void test_clock_steps_back(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC;
    tdbf *f = open_line(0.01, T, 1000, 17);
    check_clock_clamped(f, T);
    assert_int_equal(tdbf_contains(f, "late", 4, 0), 1);
    tdbf_close(f);

    /* A stream whose clock jumps back by up to a window every 50 adds:
     * each key lives from the clamped time it was added. */
    f = open_line(0.01, T, 2000, 18);
    check_clock_steps_back(f, T, 40000, 19);
    tdbf_close(f);
}

/* Batch adds and queries: groups of 64 at one timestamp, the window
 * checked with tdbf_contains_batch. */
static void test_batches(void **state)
{
    (void)state;
    const uint64_t T = 5 * SEC, C = 8000;
    tdbf *f = open_line(0.01, T, C, 23);
    enum { BATCH = 64 };
    const uint64_t total = DRV_PICK(200000, 40000);
    uint8_t (*keys)[DRV_KEY_MAX] = malloc(total * DRV_KEY_MAX);
    size_t *lens = malloc(total * sizeof *lens);
    const void **ptrs = malloc(total * sizeof *ptrs);
    uint64_t *times = malloc(total * sizeof *times);
    uint8_t *results = malloc(total);
    assert_true(keys && lens && ptrs && times && results);
    for (uint64_t i = 0; i < total; i++) {
        lens[i] = drv_key(keys[i], DRV_SPACE_INSERT, 24, i);
        ptrs[i] = keys[i];
    }
    uint64_t now = SEC, fn = 0, checks = 0;
    for (uint64_t i = 0; i < total; i += BATCH) {
        /* the planned rate, 10x it for a while, then a quarter of it */
        uint64_t step = i < total / 3 ? T / C : i < 2 * total / 3 ? T / C / 10 : 4 * T / C;
        now += step * BATCH;
        size_t n = total - i < BATCH ? (size_t)(total - i) : BATCH;
        CHECK_RC(tdbf_add_batch(f, n, ptrs + i, lens + i, now, results + i), TDBF_OK);
        for (size_t j = 0; j < n; j++)
            times[i + j] = now;
        if ((i / BATCH) % 200 == 199) {
            uint64_t first = i + n;
            while (first > 0 && now - times[first - 1] < T)
                first--;
            CHECK_RC(tdbf_contains_batch(f, (size_t)(i + n - first), ptrs + first,
                                         lens + first, now, results), TDBF_OK);
            for (uint64_t j = 0; j < i + n - first; j++)
                fn += results[j] != 1;
            checks += i + n - first;
        }
    }
    print_message("batches: %llu adds, %llu batch checks, %llu false negatives\n",
                  (unsigned long long)total, (unsigned long long)checks,
                  (unsigned long long)fn);
    CHECK_U64_EQ(fn, 0);
    free(keys);
    free(lens);
    free(ptrs);
    free(times);
    free(results);
    tdbf_close(f);
}

/* 64-bit time: across 2^32 ms, 2^63 ns, near 2^64.  A key leaves with its
 * ring's last read age: l + 1 generations after its own. */
static unsigned wrap_l;

static tdbf *open_for_wraps(uint64_t window_ns)
{
    tdbf *f = open_line(0.01, window_ns, 6000, 5);
    wrap_l = stats_of(f).l;
    return f;
}

static uint64_t line_expiry(uint64_t added_ns, uint64_t window_ns)
{
    uint64_t span = window_ns / wrap_l + (window_ns % wrap_l != 0);
    return (added_ns / span + wrap_l + 1) * span;
}

static void test_time_near_boundaries(void **state)
{
    (void)state;
    stream_wrap_test(open_for_wraps, 60 * SEC, line_expiry);
}

/* Save and load in the middle of a stream (after a jump: several rings):
 * the copy answers as the original, then takes the same adds alike. */
static void test_save_load_mid_stream(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC, C = 4000;
    stream s;
    tdbf *f = open_line(0.01, T, C, 29);
    stream_init(&s, f, T, SEC, 20 * C, 30);
    stream_phase(&s, 2 * C, T / C, 0);
    stream_phase(&s, 3 * C, T / C / 10, T / C / 10);
    stream_phase(&s, 2 * C, 0, 0);                 /* a burst: shifts on count */
    stream_phase(&s, C / 3, T / C, 0);
    tdbf_stats st = stats_of(f);
    CHECK_U64_GE(st.slices / (st.k + st.l + 1), 2);
    print_message("save/load with %u rings\n", st.slices / (st.k + st.l + 1));
    check_reload_mid_stream(&s, C, 30);
    stream_end(&s);
}

/* ---- false positives, memory ---------------------------------------------- */

/* TLBF's memory at the same error and capacity after the same stream. */
static double tlbf_bits(double error, uint64_t T, uint64_t rate, uint64_t windows)
{
    tdbf_config cfg = line_config(error, T, rate * (T / SEC), 33);
    cfg.design = TDBF_TLBF;
    tdbf *f = drv_open(&cfg);
    uint64_t now = SEC;
    for (uint64_t i = 0; i < windows * rate * (T / SEC); i++) {
        uint8_t key[DRV_KEY_MAX];
        size_t len = drv_key(key, DRV_SPACE_INSERT, 34, i);
        now += SEC / rate;
        CHECK_RC(tdbf_add(f, key, len, now) >= 0, 1);
    }
    double bits = 8.0 * (double)stats_of(f).memory_bytes / (double)(rate * (T / SEC));
    tdbf_close(f);
    return bits;
}

/* Single calls at the steady rate, ns each (printed only). */
static void time_calls(tdbf *f, uint64_t now, uint64_t step)
{
    enum { CALLS = 200000 };
    struct timespec a, b, c;
    uint8_t key[DRV_KEY_MAX];
    uint64_t yes = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t i = 0; i < CALLS; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, 36, i);
        now += step;
        yes += (uint64_t)tdbf_add(f, key, len, now);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    for (uint64_t i = 0; i < CALLS; i++) {
        size_t len = drv_key(key, DRV_SPACE_PROBE, 37, i);
        yes += (uint64_t)tdbf_contains(f, key, len, now);
    }
    clock_gettime(CLOCK_MONOTONIC, &c);
    double add = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / CALLS;
    double query = ((double)(c.tv_sec - b.tv_sec) * 1e9 + (double)(c.tv_nsec - b.tv_nsec)) / CALLS;
    print_message("  single calls at the steady rate: add %.0f ns, query %.0f ns "
                  "(%llu yes; timing only, not asserted)\n", add, query,
                  (unsigned long long)yes);
}

static void test_steady_rate_fp_and_memory(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, rate = 1000;       /* 60 000 keys per window */
    const double errors[] = {0.01, 0.001};
    for (size_t e = 0; e < DRV_PICK(2u, 1u); e++) {
        double error = errors[e];
        stream s;
        tdbf *f = open_line(error, T, rate * 60, 31 + e);
        stream_init(&s, f, T, SEC, rate * 600 + 10, 40 + e);
        stream_phase(&s, DRV_PICK(rate * 600, rate * 180), SEC / rate, 0);
        tdbf_stats st = stats_of(f);
        uint64_t probes = (uint64_t)(DRV_PICK(400, 40) / error);
        uint64_t hits = drv_probe_hits(f, 91, 0, probes, s.now);
        double fp = (double)hits / (double)probes, band = drv_band(error, (double)probes, 0.0);
        double bits = 8.0 * (double)st.memory_bytes / (double)(rate * 60);
        double tlbf = tlbf_bits(error, T, rate, DRV_PICK(3, 1));
        print_message("error %g: k %u l %u, %u rings, FP %.5f (%llu/%llu; planned %.5f, "
                      "current error %.5f, from the bits %.5f; target + band %.5f)\n",
                      error, st.k, st.l, st.slices / (st.k + st.l + 1), fp,
                      (unsigned long long)hits, (unsigned long long)probes, st.error_planned,
                      current_error_of(f, s.now), st.error_estimated, error + band);
        print_message("  memory %.2f bits/key of the window, TLBF %.2f: %.3fx\n", bits, tlbf,
                      bits / tlbf);
        if (!(fp <= error + band))
            fail_msg("FP %.5f above the target's band %.5f", fp, error + band);
        if (!(st.error_planned <= error))
            fail_msg("planned FP %.5f above the target %g", st.error_planned, error);
        /* a guard on the cost against TLBF: both counts include per-slice
         * and per-ring structures whose size follows the pointer width
         * (at 0.01: 1.098x on x86-64, 1.103x on i686), hence 1.12; after
         * the sanitizer's one window TLBF has not grown to its steady
         * size yet */
        double most = DRV_SANITIZER ? 1.3 : error >= 0.01 ? 1.12 : 1.25;
        if (!(bits <= most * tlbf))
            fail_msg("%.2f bits/key, above %.2fx TLBF's %.2f", bits, most, tlbf);
        CHECK_U64_EQ(st.slices, st.k + st.l + 1);    /* one ring at a steady rate */
        if (e == 0)
            time_calls(f, s.now, SEC / rate);
        stream_end(&s);
    }
}

/* The rate jumps 10x and stays: FP probed at points through the next
 * window stays within the target's band.  Back at the planned rate for a
 * window, memory returns to the steady ring's. */
static void test_rate_jumps(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, rate = 1000, C = rate * 60;
    const double error = 0.01;
    stream s;
    tdbf *f = open_line(error, T, C, 51);
    uint64_t span = span_of(f);
    stream_init(&s, f, T, SEC, DRV_PICK(36 * C, 8 * C), 52);
    stream_phase(&s, DRV_PICK(3 * C, C), SEC / rate, 0);
    tdbf_stats steady = stats_of(f);
    uint64_t probes = DRV_PICK(200000, 50000);
    double worst = 0.0;
    /* 10x: through one window, probing at a few points of it */
    const uint64_t points[] = {span / 5, span, 3 * span, T / 2, T};
    uint64_t done = 0;
    for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
        uint64_t until = points[p] * 10 * rate / SEC;
        stream_phase(&s, DRV_PICK(until, until / 4) - done, SEC / rate / 10, 0);
        done = DRV_PICK(until, until / 4);
        double fp = probe_fp(f, probes, 53 + p, s.now);
        tdbf_stats st = stats_of(f);
        print_message("  10x up, +%5.1f s: FP %.5f, current error %.5f, %u rings, %.1f bits/key\n",
                      (double)points[p] / 1e9, fp, current_error_of(f, s.now),
                      st.slices / (st.k + st.l + 1),
                      8.0 * (double)st.memory_bytes / (double)(st.keys ? st.keys : 1));
        worst = fp > worst ? fp : worst;
    }
    double band = drv_band(error, (double)probes, 0.0);
    print_message("10x jump: worst FP %.5f (planned %.5f; bound target + band %.5f)\n", worst,
                  steady.error_planned, error + band);
    if (!(worst <= error + band))
        fail_msg("FP %.5f during the jump above the target %.3g + %.4f", worst, error, band);
    /* 10x down, for a window and a bit: the jump's rings retire, shrink */
    stream_phase(&s, DRV_PICK(C + C / 5, C / 3), SEC / rate, 0);
    tdbf_stats back = stats_of(f);
    double fp = probe_fp(f, probes, 60, s.now);
    print_message("back at the planned rate a window later: %u rings, %llu bytes "
                  "(steady %llu), FP %.5f\n", back.slices / (back.k + back.l + 1),
                  (unsigned long long)back.memory_bytes,
                  (unsigned long long)steady.memory_bytes, fp);
    if (!DRV_SANITIZER && !((double)back.memory_bytes <= 1.1 * (double)steady.memory_bytes))
        fail_msg("memory %llu a window after the jump, steady %llu",
                 (unsigned long long)back.memory_bytes, (unsigned long long)steady.memory_bytes);
    if (!(fp <= error + band))
        fail_msg("FP %.5f after the jump", fp);
    stream_end(&s);
}

/* ---- the FP promise at the worst moment -------------------------------------
 * Each arrival pattern is probed where the live rings' FPs peak: just
 * before a shift at a steady rate, at the end of every generation of a
 * 10x rate jump, at the end of a burst.  The upper end of the 95 % Wilson
 * interval of the measured rate must be at most cfg.error, and
 * tdbf_current_error within a factor of 2 of that interval (it is what
 * the CLI and the Redis module refuse adds by). */

#define WILSON_Z 1.96

typedef struct interval {
    double low, high;
} interval;

/* The 95 % Wilson score interval of hits in n trials. */
static interval wilson(uint64_t hits, uint64_t n)
{
    double dn = (double)n, p = (double)hits / dn, z2 = WILSON_Z * WILSON_Z;
    double centre = p + z2 / (2.0 * dn);
    double spread = WILSON_Z * sqrt(p * (1.0 - p) / dn + z2 / (4.0 * dn * dn));
    interval iv = {(centre - spread) / (1.0 + z2 / dn), (centre + spread) / (1.0 + z2 / dn)};
    return iv;
}

/* The highest FP a scenario measured, and its costs then. */
typedef struct worst_fp {
    double fp, high, estimate, bits;
} worst_fp;

/* Never-added keys per unit of error probed at each worst moment: the
 * interval's upper end then lies within about 10 % (3 % for the final
 * probes) of the rate. */
static uint64_t probes_for(double error, double per_error)
{
    return (uint64_t)(DRV_PICK(per_error, per_error / 4) / error);
}

/* Probe f at now: tdbf_current_error checked against the measured
 * interval, the point kept in *worst if its rate is the highest yet;
 * returns the interval. */
static interval check_estimate(const char *label, const tdbf *f, uint64_t now, double error,
                               uint64_t probes, uint64_t seed, worst_fp *worst)
{
    uint64_t hits = drv_probe_hits(f, seed, 0, probes, now);
    interval iv = wilson(hits, probes);
    double fp = (double)hits / (double)probes, estimate = current_error_of(f, now);
    tdbf_stats st = stats_of(f);
    double bits = st.keys ? 8.0 * (double)st.memory_bytes / (double)st.keys : 0.0;
    print_message("    %s: FP %.5f (95%% %.5f .. %.5f), current error %.5f, %u rings, "
                  "%.1f bits/key\n", label, fp, iv.low, iv.high, estimate,
                  st.slices / (st.k + st.l + 1), bits);
    double slack = error / 20;   /* rates far under the target: absolute */
    if (!(estimate >= iv.low / 2 - slack && estimate <= 2 * iv.high + slack))
        fail_msg("%s: current error %.5f, the measured interval %.5f .. %.5f", label, estimate,
                 iv.low, iv.high);
    if (fp >= worst->fp) {
        worst_fp now_worst = {fp, iv.high, estimate, bits};
        *worst = now_worst;
    }
    return iv;
}

/* check_estimate, and the promise: the interval's upper end at most
 * cfg.error. */
static void check_promise(const char *label, const tdbf *f, uint64_t now, double error,
                          uint64_t probes, uint64_t seed, worst_fp *worst)
{
    interval iv = check_estimate(label, f, now, error, probes, seed, worst);
    if (!(iv.high <= error))
        fail_msg("%s: its FP's interval reaches %.5f, above the target %g", label, iv.high,
                 error);
}

static void print_worst(const char *scenario, double error, const worst_fp *w)
{
    print_message("%s, error %g: worst FP %.5f (95%% up to %.5f, %.2fx the target), "
                  "current error %.5f, %.1f bits/key\n", scenario, error, w->fp, w->high,
                  w->fp / error, w->estimate, w->bits);
}

/* The end of a scenario whose worst moment is now: the promise checked
 * there with the final probes, the stream's keys all checked, closed. */
static void end_at_worst(stream *s, const char *scenario, const char *moment, double error,
                         uint64_t seed)
{
    worst_fp worst = {0};
    check_promise(moment, s->f, s->now, error, probes_for(error, 4000), seed, &worst);
    print_worst(scenario, error, &worst);
    stream_end(s);
}

static const double promise_errors[] = {0.01, 0.001};
#define PROMISE_ERRORS (sizeof promise_errors / sizeof promise_errors[0])

/* A steady rate: two windows at the planned 1000/s, probed at the end of
 * a generation, just before the shift. */
static void test_promise_steady_rate(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, rate = 1000, C = rate * 60;
    for (size_t e = 0; e < PROMISE_ERRORS; e++) {
        double error = promise_errors[e];
        stream s;
        tdbf *f = open_line(error, T, C, 101 + e);
        stream_init(&s, f, T, SEC, DRV_PICK(3, 2) * C, 102 + e);
        stream_phase(&s, DRV_PICK(2, 1) * C, SEC / rate, 0);
        stream_fill_generation(&s, span_of(f), SEC / rate);
        stream_sweep(&s);
        end_at_worst(&s, "steady rate", "before a shift", error, 103);
    }
}

/* The rate jumps from the planned 1000/s to 10 000/s for a window, the
 * filter's clock stopping at the end of every generation.  The first run
 * (stop_at 0) finds the end where tdbf_current_error peaks, checking it
 * against a modest probe at each; a second, identical run (fixed seeds)
 * probes that end with enough keys for a narrow interval.  Returns the
 * number of the peak's end. */
static unsigned run_rate_jump(double error, uint64_t seed, unsigned stop_at, worst_fp *worst)
{
    const uint64_t T = 60 * SEC, rate = 1000, C = rate * 60;
    stream s;
    tdbf *f = open_line(error, T, C, seed);
    uint64_t span = span_of(f), step = SEC / rate / 10;
    stream_init(&s, f, T, SEC, 2 * C + 10 * C + 10 * rate * span / SEC, seed + 1);
    stream_phase(&s, C, SEC / rate, 0);
    stream_fill_generation(&s, span, SEC / rate);
    uint64_t jump = s.now;
    unsigned end = 0, peak = 0;
    double highest = -1.0;
    while (s.now - jump < T + span) {
        stream_fill_generation(&s, span, step);
        end++;
        char label[64];
        snprintf(label, sizeof label, "10x, end %u (+%.0f s)", end,
                 (double)(s.now - jump) / 1e9);
        if (stop_at == 0) {
            double estimate = current_error_of(f, s.now);
            if (estimate > highest) {
                highest = estimate;
                peak = end;
            }
            worst_fp scan = {0};
            check_estimate(label, f, s.now, error, probes_for(error, 200), seed + 2, &scan);
        } else if (end == stop_at) {
            check_promise(label, f, s.now, error, probes_for(error, 4000), seed + 3, worst);
            break;
        }
        s.now += step;
    }
    stream_sweep(&s);
    stream_end(&s);
    return peak;
}

static void test_promise_rate_jump(void **state)
{
    (void)state;
    for (size_t e = 0; e < PROMISE_ERRORS; e++) {
        double error = promise_errors[e];
        worst_fp worst = {0};
        unsigned peak = run_rate_jump(error, 111 + 10 * e, 0, &worst);
        run_rate_jump(error, 111 + 10 * e, peak, &worst);
        print_worst("10x rate jump", error, &worst);
    }
}

/* Blocks of 4096 keys at one timestamp, the clock 1 ms on between them:
 * `tdbf dedup --window 10m` reading a pipe (the capacity hint the
 * library's default), 600 000 keys inside one generation (six rings). */
static void test_promise_file_at_full_speed(void **state)
{
    (void)state;
    const uint64_t T = 600 * SEC, keys = DRV_PICK(600000, 100000), block = 4096;
    for (size_t e = 0; e < PROMISE_ERRORS; e++) {
        double error = promise_errors[e];
        stream s;
        tdbf *f = open_line(error, T, 0, 121 + e);
        stream_init(&s, f, T, 1000 * SEC, keys, 122 + e);
        for (uint64_t i = 0; i < keys; i++) {
            if (i % block == 0)
                s.now += SEC / 1000;
            stream_insert(&s);
        }
        stream_sweep(&s);
        end_at_worst(&s, "file at full speed", "end of the file", error, 123);
    }
}

/* 20/s for five minutes, then 1000 times a generation's keys at four
 * timestamps 1 ms apart: probed at the peak. */
static void test_promise_1000x_burst(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC, C = 1200;
    for (size_t e = 0; e < PROMISE_ERRORS; e++) {
        double error = promise_errors[e];
        stream s;
        tdbf *f = open_line(error, T, C, 131 + e);
        uint64_t burst = DRV_PICK(1000, 250) * (C / stats_of(f).l);
        stream_init(&s, f, T, SEC, 20 * 300 + burst, 132 + e);
        stream_phase(&s, 20 * 300, SEC / 20, 0);
        for (int at = 0; at < 4; at++) {
            s.now += SEC / 1000;
            stream_phase(&s, burst / 4, 0, 0);
        }
        end_at_worst(&s, "1000x burst", "end of the burst", error, 133);
    }
}

static void put_le(unsigned char *p, uint64_t v, unsigned bytes);

/* A file whose home ring was planned for all of its error (as before the
 * rings' FP budget): made by rewriting a new file's error to its home
 * ring's planned FP.  A burst read at full speed into it keeps the same
 * room over that ring's FP as a new filter has (at most 1.03x the error
 * it states, by the model), and costs about what it costs a new filter. */
static void test_file_whose_home_ring_took_the_error(void **state)
{
    (void)state;
    const uint64_t T = 600 * SEC, keys = DRV_PICK(200000, 50000), block = 4096;
    const double error = 0.01;
    tdbf *fresh = open_line(error, T, 0, 141);
    tdbf_stats planned = stats_of(fresh);
    byte_sink file = save_bytes(fresh);
    uint64_t bits;
    memcpy(&bits, &planned.error_planned, sizeof bits);
    put_le(file.data + 40, bits, 8);        /* header: the configured error */
    reseal_checksum(&file);
    tdbf *f = NULL;
    CHECK_RC(tdbf_load_buffer(&f, file.data, file.len, NULL), TDBF_OK);
    free(file.data);
    stream s, twin;
    stream_init(&s, f, T, 1000 * SEC, keys, 142);
    stream_init(&twin, fresh, T, 1000 * SEC, keys, 142);
    for (uint64_t i = 0; i < keys; i++) {
        if (i % block == 0) {
            s.now += SEC / 1000;
            twin.now = s.now;
        }
        stream_insert(&s);
        stream_insert(&twin);
    }
    stream_sweep(&s);
    double stated = planned.error_planned, now_bytes = (double)stats_of(f).memory_bytes;
    double fresh_bytes = (double)stats_of(fresh).memory_bytes;
    print_message("home ring planned for all of the error %.5f: current error %.5f, "
                  "%.0f bytes (a new filter's %.0f)\n", stated, current_error_of(f, s.now),
                  now_bytes, fresh_bytes);
    worst_fp worst = {0};
    interval iv = check_estimate("end of the burst", f, s.now, stated,
                                 probes_for(stated, 4000), 143, &worst);
    if (!(iv.high <= 1.03 * stated))
        fail_msg("FP up to %.5f, above 1.03x the error %.5f the file states", iv.high, stated);
    if (!(now_bytes <= 1.5 * fresh_bytes))
        fail_msg("%.0f bytes, a new filter %.0f", now_bytes, fresh_bytes);
    stream_end(&twin);
    stream_end(&s);
}

/* tdbf_plan_tlbf_line sizes the first ring as tdbf_open does: the same
 * shape, planned error and memory for the ring, at most 0.92 of the
 * target (less for a small ring), and the argument errors. */
static void test_plan_matches_open(void **state)
{
    (void)state;
    const uint64_t capacities[] = {0, 1200, 60000};
    for (size_t e = 0; e < PROMISE_ERRORS; e++) {
        for (size_t c = 0; c < sizeof capacities / sizeof capacities[0]; c++) {
            tdbf_config cfg = line_config(promise_errors[e], 60 * SEC, capacities[c], 151);
            tdbf_line_plan plan;
            CHECK_RC(tdbf_plan_tlbf_line(&cfg, &plan), TDBF_OK);
            tdbf *f = drv_open(&cfg);
            tdbf_stats st = stats_of(f);
            print_message("error %g, capacity %llu: ring of %llu units, fp %.5f (%.2f of the "
                          "target)\n", cfg.error, (unsigned long long)capacities[c],
                          (unsigned long long)plan.units, plan.fp, plan.fp / cfg.error);
            CHECK_U64_EQ(st.k, plan.k);
            CHECK_U64_EQ(st.l, plan.l);
            if (!(st.error_planned == plan.fp && plan.fp <= 0.92 * cfg.error))
                fail_msg("planned %.6f, opened %.6f, target %g", plan.fp, st.error_planned,
                         cfg.error);
            if (!(st.memory_bytes >= plan.bytes && st.memory_bytes <= plan.bytes + 4096))
                fail_msg("opened %llu bytes for a ring of %llu",
                         (unsigned long long)st.memory_bytes, (unsigned long long)plan.bytes);
            tdbf_close(f);
        }
    }
    tdbf_config cfg = line_config(0.01, 60 * SEC, 0, 152);
    tdbf_line_plan plan;
    CHECK_RC(tdbf_plan_tlbf_line(NULL, &plan), TDBF_EINVAL);
    CHECK_RC(tdbf_plan_tlbf_line(&cfg, NULL), TDBF_EINVAL);
    cfg.error = 1.0;
    CHECK_RC(tdbf_plan_tlbf_line(&cfg, &plan), TDBF_EERROR);
    cfg.error = 0.01;
    cfg.window_ns = 0;
    CHECK_RC(tdbf_plan_tlbf_line(&cfg, &plan), TDBF_EWINDOW);
}

/* Keys older than (k + l + 1) generations answer at the FP rate. */
static void test_expired_keys_at_fp_rate(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC, rate = 2000;
    const double error = 0.01;
    stream s;
    tdbf *f = open_line(error, T, rate * 10, 37);
    uint64_t span = span_of(f);
    stream_init(&s, f, T, SEC, rate * 60 + 10, 38);
    stream_phase(&s, rate * 60, SEC / rate, 0);
    tdbf_stats st = stats_of(f);
    uint64_t old, hits = stream_aged_hits(&s, (uint64_t)(st.k + st.l + 1) * span, 3 * T, &old);
    check_expired_rate("tlbf-line, older than (k+l+1) generations", hits, old, error);
    stream_end(&s);
}

static void test_queries_do_not_mutate(void **state)
{
    (void)state;
    const uint64_t T = 5 * SEC;
    stream s;
    tdbf *f = open_line(0.01, T, 5000, 43);
    stream_init(&s, f, T, SEC, 30000, 44);
    stream_phase(&s, 8000, T / 5000, 0);
    stream_phase(&s, 12000, T / 50000, 0);          /* rings grow */
    const uint64_t when[] = {0, s.now, s.now + T / 2, s.now + 10 * T};
    stream_check_read_only(&s, when, 4);
    stream_end(&s);
}

/* At the ring cap growth is refused: the active ring overfills (FP up,
 * counted in cap_hits), never a false negative. */
static void test_ring_cap(void **state)
{
    (void)state;
    const uint64_t T = 60 * SEC;
    tdbf_config cfg = line_config(0.01, T, 1000, 47);
    cfg.max_rings = 1;
    tdbf *f = drv_open(&cfg);
    stream s;
    stream_init(&s, f, T, SEC, 60000, 48);
    stream_phase(&s, 50000, T / 100000, 0);          /* 100x the planned rate */
    tdbf_stats st = stats_of(f);
    print_message("cap of 1 ring: %llu cap hits, current error %.3f\n",
                  (unsigned long long)st.cap_hits, current_error_of(f, s.now));
    CHECK_U64_EQ(st.slices, st.k + st.l + 1);
    assert_true(st.cap_hits > 0);
    assert_true(current_error_of(f, s.now) > 0.1);
    /* a tiny memory cap: the same */
    tdbf *g = NULL;
    cfg.max_rings = 0;
    cfg.max_memory = stats_of(f).memory_bytes + 4096;
    CHECK_RC(tdbf_open(&g, &cfg), TDBF_OK);
    stream_end(&s);
    stream_init(&s, g, T, SEC, 60000, 49);
    stream_phase(&s, 50000, T / 100000, 0);
    CHECK_U64_GE(stats_of(g).cap_hits, 1);
    assert_true(stats_of(g).memory_bytes <= cfg.max_memory);
    stream_end(&s);
}

/* The ring open makes is the one the first add uses, whenever it comes
 * (the clock is far past its generation 0 then), and advance leaves it. */
static void test_first_add_keeps_the_planned_ring(void **state)
{
    (void)state;
    tdbf *f = open_line(0.01, 60 * SEC, 100000, 45);
    tdbf_stats open = stats_of(f);
    CHECK_RC(tdbf_advance(f, UINT64_C(1700000000) * SEC), TDBF_OK);
    tdbf_close(reload(f, NULL));            /* saved as it stands, and loaded */
    CHECK_RC(tdbf_add(f, "first", 5, UINT64_C(1700000000) * SEC + 7), 0);
    tdbf_stats added = stats_of(f);
    CHECK_U64_EQ(added.generation_size, open.generation_size);
    CHECK_U64_EQ(added.memory_bytes, open.memory_bytes);
    CHECK_U64_EQ(added.generation_fill, 1);
    assert_int_equal(tdbf_contains(f, "first", 5, UINT64_C(1700000000) * SEC + 7), 1);
    tdbf_close(f);
}

/* tdbf_open's answer for cfg, the filter closed again. */
static int open_answer(const tdbf_config *cfg)
{
    tdbf *f = NULL;
    int rc = tdbf_open(&f, cfg);
    tdbf_close(f);
    return rc;
}

static void test_config_errors(void **state)
{
    (void)state;
    tdbf_config cfg = line_config(0.01, 0, 0, 1);
    tdbf *f = NULL;
    check_time_window_errors(cfg);
    cfg.window_ns = SEC;
    cfg.max_rings = 5000;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);
    /* max_slices, the cap's deprecated alias: read when max_rings is 0,
     * refused when both are set and differ. */
    cfg.max_rings = 0;
    cfg.max_slices = 5000;
    CHECK_RC(open_answer(&cfg), TDBF_EPARAM);
    cfg.max_slices = 3;
    CHECK_RC(open_answer(&cfg), TDBF_OK);
    cfg.max_rings = 4;
    CHECK_RC(open_answer(&cfg), TDBF_EPARAM);
    cfg.max_rings = 3;
    CHECK_RC(open_answer(&cfg), TDBF_OK);
    cfg.max_rings = 0;
    cfg.max_slices = 0;
    cfg.concurrent = 1;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_ENOTSUP);
    cfg.concurrent = 0;
    check_size_errors(&cfg, &cfg.capacity);
    assert_null(f);
}

/* ---- forged files ---------------------------------------------------------- */

#define PAYLOAD 56

static void put_le(unsigned char *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void test_forged_files(void **state)
{
    (void)state;
    const uint64_t T = 10 * SEC;
    stream s;
    tdbf *f = open_line(0.01, T, 300, 61);
    stream_init(&s, f, T, SEC, 5000, 62);
    stream_phase(&s, 600, T / 300, 0);
    stream_phase(&s, 1500, T / 3000, 0);            /* grown: two or more rings */
    tdbf_stats st = stats_of(f);
    unsigned rings = st.slices / (st.k + st.l + 1), kl = st.k + st.l;
    assert_true(rings >= 2);
    byte_sink b = save_bytes(f);
    unsigned char *orig = malloc(b.len);
    assert_non_null(orig);
    memcpy(orig, b.data, b.len);
    const size_t rec = PAYLOAD + 120, rec2 = rec + 32 + 8 * kl, ring0 = rec + rings * (32 + 8 * kl);
    const struct {
        size_t at;
        unsigned bytes;
        uint64_t value;
        int rc;
        const char *what;
    } edits[] = {
        {PAYLOAD + 0, 4, 0, TDBF_ECORRUPT, "k = 0"},
        {PAYLOAD + 4, 4, 80, TDBF_ECORRUPT, "k + l past 63"},
        {PAYLOAD + 8, 4, 9, TDBF_ECORRUPT, "b = 9"},
        {PAYLOAD + 12, 4, 768, TDBF_ECORRUPT, "768-bit units"},
        {PAYLOAD + 16, 4, 0, TDBF_ECORRUPT, "no rings allowed"},
        {PAYLOAD + 16, 4, 5000, TDBF_ECORRUPT, "max rings 5000"},
        {PAYLOAD + 20, 4, 1000, TDBF_ECORRUPT, "ring count 1000"},
        {PAYLOAD + 20, 4, rings - 1, TDBF_ECORRUPT, "a ring fewer"},
        {PAYLOAD + 24, 4, 0, TDBF_ECORRUPT, "no slots"},
        {PAYLOAD + 28, 4, 1, TDBF_ECORRUPT, "reserved"},
        {PAYLOAD + 32, 8, 0, TDBF_ECORRUPT, "T = 0"},
        {PAYLOAD + 40, 8, 0, TDBF_ECORRUPT, "g0 = 0"},
        {PAYLOAD + 48, 8, UINT64_C(1) << 41, TDBF_ECORRUPT, "units0 = 2^41"},
        {PAYLOAD + 56, 8, UINT64_MAX, TDBF_ECORRUPT, "counted generation ahead of now"},
        {PAYLOAD + 64, 8, UINT64_MAX, TDBF_ECORRUPT, "generation keys 2^64 - 1"},
        {PAYLOAD + 80, 8, UINT64_MAX, TDBF_ECORRUPT, "watched from the future"},
        {PAYLOAD + 112, 8, 0, TDBF_ECORRUPT, "max_memory 0"},
        {rec + 0, 8, UINT64_MAX, TDBF_ECORRUPT, "ring generation ahead of now"},
        {rec + 0, 8, 0, TDBF_ECORRUPT, "ring older than the window"},
        {rec + 16, 8, UINT64_MAX, TDBF_ECORRUPT, "ring payload 2^64 - 1"},
        {rec + 16, 8, 8, TDBF_ECORRUPT, "ring payload 8 bytes"},
        {rec + 24, 4, 1, TDBF_ECORRUPT, "first ring retired"},
        {rec2 + 24, 4, 0, TDBF_ECORRUPT, "second ring active"},
        {rec + 28, 4, 7, TDBF_ECORRUPT, "a burst word without its flag"},
        {rec + 28, 4, UINT32_C(1) << 31 | 40, TDBF_ECORRUPT, "shifts on count past l"},
        {rec + 28, 4, UINT32_C(1) << 31 | 1, TDBF_ECORRUPT, "first key after the newest field"},
        {rec + 28, 4, UINT32_C(1) << 31 | 0x7fffff00, TDBF_ECORRUPT, "first key before time"},
        {rec + 32, 8, UINT64_MAX, TDBF_ECORRUPT, "a count of 2^64 - 1"},
        {rec + 32, 8, 3, TDBF_ECORRUPT, "the fill no longer the ring's"},
        {ring0 + 0, 4, st.k + 1, TDBF_ECORRUPT, "a ring of another k"},
        {ring0 + 20, 4, 9, TDBF_EVERSION, "a ring of another key layout"},
        {ring0 + 24, 8, 1, TDBF_ECORRUPT, "a ring of one unit"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(b.data, orig, b.len);
        put_le(b.data + edits[i].at, edits[i].value, edits[i].bytes);
        reseal_checksum(&b);
        tdbf *g = (tdbf *)&g;
        int rc = tdbf_load_buffer(&g, b.data, b.len, NULL);
        if (rc != edits[i].rc)
            fail_msg("%s: load returned %d (%s), expected %d", edits[i].what, rc,
                     tdbf_strerror(rc), edits[i].rc);
        assert_null(g);
    }
    /* Every truncation, a byte too many, and a cap below the size. */
    memcpy(b.data, orig, b.len);
    for (size_t len = 0; len < b.len; len += 1 + len / 64) {
        tdbf *g = (tdbf *)&g;
        CHECK_RC(tdbf_load_buffer(&g, b.data, len, NULL), TDBF_ECORRUPT);
        assert_null(g);
    }
    tdbf_load_options small = {.max_memory = st.memory_bytes / 2, .allocator = NULL};
    tdbf *g = NULL;
    CHECK_RC(tdbf_load_buffer(&g, b.data, b.len, &small), TDBF_ETOOBIG);
    put_le(b.data + 8, 7, 4);                      /* format version */
    reseal_checksum(&b);
    CHECK_RC(tdbf_load_buffer(&g, b.data, b.len, NULL), TDBF_EVERSION);
    print_message("forged files: %zu field edits and every truncation of %zu bytes refused\n",
                  sizeof edits / sizeof edits[0], b.len);
    free(orig);
    free(b.data);
    stream_end(&s);
}

/* A burst word whose latest key lies before the clock's first generation
 * (a ring of generation 0 whose last key is 4 generations back): found by
 * libFuzzer, where computing it wrapped below zero before the word was
 * refused (clang's unsigned-overflow trap, the sanitizer build). */
static void test_burst_word_before_time(void **state)
{
    (void)state;
    tdbf *f = open_line(0.01, 10 * SEC, 300, 63);
    for (uint64_t i = 0; i < 20; i++)
        CHECK_RC(tdbf_add(f, &i, sizeof i, 0), 0);
    byte_sink b = save_bytes(f);
    const size_t rec = PAYLOAD + 120;
    uint64_t generation = 0;
    for (unsigned i = 0; i < 8; i++)
        generation |= (uint64_t)b.data[rec + i] << (8 * i);
    CHECK_U64_EQ(generation, 0);                 /* the ring of time 0 */
    const uint32_t words[] = {
        UINT32_C(1) << 31 | 4u << 6,             /* last 4 back, first at 0 */
        UINT32_C(1) << 31 | 1u << 13 | 1u << 6,  /* both 1 back */
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        byte_sink forged = save_bytes(f);
        put_le(forged.data + rec + 28, words[i], 4);
        reseal_checksum(&forged);
        tdbf *g = (tdbf *)&g;
        CHECK_RC(tdbf_load_buffer(&g, forged.data, forged.len, NULL), TDBF_ECORRUPT);
        assert_null(g);
        free(forged.data);
    }
    free(b.data);
    tdbf_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_false_negatives_any_schedule),
        cmocka_unit_test(test_idle_gaps),
        cmocka_unit_test(test_burst_at_one_timestamp),
        cmocka_unit_test(test_burst_of_the_capacity_hint),
        cmocka_unit_test(test_clock_steps_back),
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_time_near_boundaries),
        cmocka_unit_test(test_save_load_mid_stream),
        cmocka_unit_test(test_steady_rate_fp_and_memory),
        cmocka_unit_test(test_rate_jumps),
        cmocka_unit_test(test_promise_steady_rate),
        cmocka_unit_test(test_promise_rate_jump),
        cmocka_unit_test(test_promise_file_at_full_speed),
        cmocka_unit_test(test_promise_1000x_burst),
        cmocka_unit_test(test_file_whose_home_ring_took_the_error),
        cmocka_unit_test(test_plan_matches_open),
        cmocka_unit_test(test_expired_keys_at_fp_rate),
        cmocka_unit_test(test_queries_do_not_mutate),
        cmocka_unit_test(test_ring_cap),
        cmocka_unit_test(test_first_add_keeps_the_planned_ring),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_forged_files),
        cmocka_unit_test(test_burst_word_before_time),
    };
    return cmocka_run_group_tests_name("tlbf-line", tests, NULL, NULL);
}
