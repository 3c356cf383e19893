/*
 * stream.c — timed insert streams for time-window property tests
 * (stream.h).
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "stream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stream_init(stream *s, tdbf *f, uint64_t window_ns, uint64_t start,
                 uint64_t capacity, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->f = f;
    s->window_ns = window_ns;
    s->seed = seed;
    s->now = start;
    s->capacity = capacity;
    s->times = calloc(capacity, sizeof *s->times);
    assert_non_null(s->times);
    s->rng = seed ^ 0x5eed;
}

void stream_free(stream *s)
{
    free(s->times);
    s->times = NULL;
}

void stream_end(stream *s)
{
    CHECK_U64_EQ(s->false_negatives, 0);
    stream_free(s);
    tdbf_close(s->f);
    s->f = NULL;
}

int stream_has(const stream *s, uint64_t index, uint64_t now)
{
    uint8_t key[DRV_KEY_MAX];
    size_t len = drv_key(key, DRV_SPACE_INSERT, s->seed, index);
    return tdbf_contains(s->f, key, len, now);
}

/* The oldest key with now - t < T is the one most at risk: check it. */
static void check_oldest(stream *s)
{
    while (s->oldest < s->next && s->now - s->times[s->oldest] >= s->window_ns)
        s->oldest++;
    if (s->oldest == s->next)
        return;
    s->checks++;
    if (stream_has(s, s->oldest, s->now) != 1) {
        if (s->false_negatives == 0)
            print_message("first false negative: key %llu added at %llu, now %llu (age %llu ns < T %llu)\n",
                          (unsigned long long)s->oldest,
                          (unsigned long long)s->times[s->oldest],
                          (unsigned long long)s->now,
                          (unsigned long long)(s->now - s->times[s->oldest]),
                          (unsigned long long)s->window_ns);
        s->false_negatives++;
    }
}

void stream_sweep(stream *s)
{
    for (uint64_t i = s->oldest; i < s->next; i++) {
        if (s->now - s->times[i] >= s->window_ns)
            continue;
        s->checks++;
        if (stream_has(s, i, s->now) != 1)
            s->false_negatives++;
    }
}

void stream_insert(stream *s)
{
    assert_true(s->next < s->capacity);
    uint8_t key[DRV_KEY_MAX];
    size_t len = drv_key(key, DRV_SPACE_INSERT, s->seed, s->next);
    int rc = tdbf_add(s->f, key, len, s->now);
    if (rc < 0)
        fail_msg("tdbf_add returned %d (%s)", rc, tdbf_strerror(rc));
    s->times[s->next++] = s->now;
    check_oldest(s);
}

void stream_phase(stream *s, uint64_t n, uint64_t step_ns, uint64_t jitter_ns)
{
    for (uint64_t i = 0; i < n; i++) {
        s->now += step_ns + (jitter_ns ? drv_below(&s->rng, jitter_ns) : 0);
        stream_insert(s);
    }
    stream_sweep(s);
}

void stream_schedule(stream *s, uint64_t window_ns, uint64_t per_window, uint64_t scale)
{
    uint64_t step = window_ns / per_window;
    stream_phase(s, 20 * per_window / scale, step, 0);          /* planned rate */
    stream_phase(s, 20 * per_window / scale, step / 10, 0);     /* 10x up */
    stream_phase(s, 5 * per_window / scale, step, 0);           /* 10x down */
    stream_phase(s, 2 * per_window, 0, 0);                      /* burst, one timestamp */
    stream_phase(s, 1, 3 * window_ns, 0);                       /* idle gap > T */
    stream_phase(s, 10 * per_window / scale, step, 0);
    stream_phase(s, 20 * per_window / scale, 0, 2 * step);      /* jitter, ties included */
    stream_phase(s, 2 * per_window, 0, 0);                      /* another burst */
    stream_phase(s, 20 * per_window / scale, step / 100, 0);    /* 100x up */
    stream_phase(s, 10 * per_window / scale, 10 * step, 10 * step); /* slow, jittered */
}

uint64_t stream_schedule_keys(uint64_t per_window, uint64_t scale)
{
    return 105 * per_window / scale + 4 * per_window + 1;
}

void stream_wrap_test(tdbf *(*open_filter)(uint64_t window_ns), uint64_t window_ns,
                      uint64_t (*expiry)(uint64_t added_ns, uint64_t window_ns))
{
    const uint64_t sec = UINT64_C(1000000000);
    const uint64_t starts[] = {
        UINT64_C(4294967296) * 1000000 - 120 * sec,  /* across 2^32 ms */
        1,                                           /* across 2^32 ns */
        (UINT64_C(1) << 63) - 150 * sec,             /* across 2^63 ns */
        UINT64_MAX - 400 * sec,                      /* ends near 2^64 */
    };
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
        stream s;
        tdbf *f = open_filter(window_ns);
        stream_init(&s, f, window_ns, starts[i], 40000, 9);
        stream_phase(&s, 30000, window_ns / 6000, 0);
        CHECK_U64_EQ(s.false_negatives, 0);
        uint64_t last = s.next - 1, added = s.times[last];
        uint64_t end = expiry ? expiry(added, window_ns) : added + window_ns;
        assert_int_equal(stream_has(&s, last, added + window_ns - 1), 1);
        assert_int_equal(stream_has(&s, last, end - 1), 1);
        assert_int_equal(stream_has(&s, last, end), 0);
        stream_free(&s);
        tdbf_close(f);
    }
}

tdbf_stats stats_of(const tdbf *f)
{
    tdbf_stats st;
    CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
    return st;
}

uint64_t stream_check_read_only(const stream *s, const uint64_t *when, size_t n_when)
{
    tdbf_stats before = stats_of(s->f);
    uint8_t key[DRV_KEY_MAX];
    uint64_t present = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        uint8_t space = i % 2 ? DRV_SPACE_PROBE : DRV_SPACE_INSERT;
        size_t len = drv_key(key, space, s->seed, s->next ? i % s->next : i);
        int rc = tdbf_contains(s->f, key, len, when[i % n_when]);
        if (rc < 0)
            fail_msg("tdbf_contains returned %d (%s)", rc, tdbf_strerror(rc));
        present += (uint64_t)rc;
    }
    tdbf_stats after = stats_of(s->f);
    print_message("100000 queries (%llu present) left the stats unchanged\n",
                  (unsigned long long)present);
    assert_memory_equal(&before, &after, sizeof before);
    return present;
}

void check_expired_rate(const char *label, uint64_t hits, uint64_t n, double fp)
{
    double rate = n ? (double)hits / (double)n : 0.0;
    double band = drv_band(fp, (double)n, 0.0);
    print_message("%s: %llu of %llu expired keys reported (%.4f; FP %.4f + band %.4f)\n",
                  label, (unsigned long long)hits, (unsigned long long)n, rate, fp, band);
    if (n == 0)
        fail_msg("%s: no expired keys to check", label);
    if (!(rate <= fp + band))
        fail_msg("%s: expired keys reported at %.4f, above FP %.4f + %.4f", label, rate, fp,
                 band);
}

uint64_t stream_aged_hits(const stream *s, uint64_t from, uint64_t to, uint64_t *n)
{
    uint64_t hits = 0;
    *n = 0;
    for (uint64_t i = 0; i < s->next; i++) {
        uint64_t age = s->now - s->times[i];
        if (age >= from && age <= to) {
            (*n)++;
            hits += (uint64_t)(stream_has(s, i, s->now) == 1);
        }
    }
    return hits;
}

void check_time_window_errors(tdbf_config cfg)
{
    tdbf *f = NULL;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EWINDOW);      /* no window */
    cfg.window_items = 1000;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EWINDOW);      /* count window */
    cfg.window_ns = UINT64_C(1000000000);
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EWINDOW);      /* both */
    cfg.window_items = 0;
    cfg.k = 3;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_EPARAM);       /* k without l */
    assert_null(f);
}

void check_clock_clamped(tdbf *f, uint64_t window_ns)
{
    const uint64_t sec = UINT64_C(1000000000);
    CHECK_RC(tdbf_add(f, "late", 4, 100 * sec), 0);
    CHECK_RC(tdbf_add(f, "early", 5, 1 * sec), 0);
    CHECK_U64_EQ(stats_of(f).now_ns, 100 * sec);
    assert_int_equal(tdbf_contains(f, "early", 5, 100 * sec + window_ns - 1), 1);
    CHECK_RC(tdbf_advance(f, 0), TDBF_OK);
    CHECK_U64_EQ(stats_of(f).now_ns, 100 * sec);
    assert_int_equal(tdbf_contains(f, "late", 4, 100 * sec), 1);
}

void check_idle_released(const tdbf_stats *busy, const tdbf_stats *idle)
{
    print_message("advance: %u slices / %llu bytes busy, %u / %llu after T idle\n",
                  busy->slices, (unsigned long long)busy->memory_bytes, idle->slices,
                  (unsigned long long)idle->memory_bytes);
    CHECK_U64_EQ(idle->slices, 0);
    if (!(idle->memory_bytes * 4 < busy->memory_bytes))
        fail_msg("memory after idle %llu not well below busy %llu",
                 (unsigned long long)idle->memory_bytes,
                 (unsigned long long)busy->memory_bytes);
}

void check_size_errors(tdbf_config *cfg, uint64_t *size)
{
    tdbf_config saved = *cfg;
    tdbf *f = NULL;
    cfg->error = 1.0;
    CHECK_RC(tdbf_open(&f, cfg), TDBF_EERROR);
    cfg->error = 0.0;
    CHECK_RC(tdbf_open(&f, cfg), TDBF_EERROR);
    *cfg = saved;
    cfg->max_memory = 1024;
    CHECK_RC(tdbf_open(&f, cfg), TDBF_ETOOBIG);
    *cfg = saved;
    *size = UINT64_C(1) << 62;
    CHECK_RC(tdbf_open(&f, cfg), TDBF_ETOOBIG);
    *cfg = saved;
    assert_null(f);
}

/* ---- tdbf_current_error ------------------------------------------------ */

double current_error_of(const tdbf *f, uint64_t now)
{
    double error = -1.0;
    CHECK_RC(tdbf_current_error(f, now, &error), TDBF_OK);
    return error;
}

double check_current_error(const char *label, const tdbf *f, uint64_t now, uint64_t probes,
                           uint64_t seed, double relative, double *measured)
{
    double current = current_error_of(f, now);
    tdbf_stats st = stats_of(f);
    uint64_t hits = drv_probe_hits(f, seed, 0, probes, now);
    double fp = (double)hits / (double)probes;
    double band = drv_band(current, (double)probes, 0.0);
    print_message("%s: current error %.5f, estimated from the bits %.5f, measured %.5f "
                  "(%llu/%llu, band %.5f), planned %.5f\n", label, current,
                  st.error_estimated, fp, (unsigned long long)hits,
                  (unsigned long long)probes, band, st.error_planned);
    if (!(current >= 0.0 && current <= 1.0))
        fail_msg("%s: current error %.6g outside [0, 1]", label, current);
    if (!(fabs(current - st.error_estimated) <= relative * st.error_estimated + 1e-12))
        fail_msg("%s: current error %.6f not within %.0f%% of the estimate from the bits "
                 "%.6f", label, current, 100.0 * relative, st.error_estimated);
    if (!(fabs(current - fp) <= relative * fp + band))
        fail_msg("%s: current error %.6f not within %.0f%% + %.6f of the measured FP %.6f",
                 label, current, 100.0 * relative, band, fp);
    if (measured)
        *measured = fp;
    return current;
}

void check_estimate_restarts(stream *s, uint64_t gone, uint64_t capacity, uint64_t window_ns,
                             double steady)
{
    s->now = gone;
    stream_phase(s, capacity / 2, window_ns / capacity, 0);
    double again = current_error_of(s->f, s->now);
    print_message("after expiry: 0; after half a window at the planned rate: %.6f\n", again);
    if (!(again > 0.0 && again < steady))
        fail_msg("current error %.6f after half a window (steady %.6f)", again, steady);
}

/* ---- saving and loading -------------------------------------------------- */

int byte_source_read(void *ctx, void *buf, size_t len)
{
    byte_source *src = ctx;
    if (len > src->left)
        return -1;
    memcpy(buf, src->at, len);
    src->at += len;
    src->left -= len;
    return 0;
}

int byte_sink_write(void *ctx, const void *buf, size_t len)
{
    byte_sink *s = ctx;
    if (s->fail_after == 0)
        return -1;
    if (s->fail_after > 0)
        s->fail_after--;
    if (s->len + len > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        while (cap < s->len + len)
            cap *= 2;
        unsigned char *data = realloc(s->data, cap);
        assert_non_null(data);
        s->data = data;
        s->cap = cap;
    }
    memcpy(s->data + s->len, buf, len);
    s->len += len;
    return 0;
}

byte_sink save_bytes(const tdbf *f)
{
    byte_sink s = {NULL, 0, 0, -1};
    CHECK_RC(tdbf_save(f, byte_sink_write, &s), TDBF_OK);
    CHECK_U64_EQ(s.len, tdbf_saved_size(f));
    return s;
}

void expect_same_saved_bytes(const tdbf *a, const tdbf *b)
{
    byte_sink x = save_bytes(a), y = save_bytes(b);
    CHECK_U64_EQ(x.len, y.len);
    assert_memory_equal(x.data, y.data, x.len);
    free(x.data);
    free(y.data);
}

void reseal_checksum(byte_sink *s)
{
    uint64_t sum = XXH3_64bits(s->data, s->len - 8);
    for (int i = 0; i < 8; i++)
        s->data[s->len - 8 + (size_t)i] = (unsigned char)(sum >> (8 * i));
}

tdbf *reload(const tdbf *f, uint64_t *checksum)
{
    byte_sink saved = save_bytes(f);
    tdbf *copy = NULL;
    CHECK_RC(tdbf_load_buffer(&copy, saved.data, saved.len, NULL), TDBF_OK);
    byte_sink again = save_bytes(copy);
    CHECK_U64_EQ(again.len, saved.len);
    assert_memory_equal(again.data, saved.data, saved.len);
    if (checksum) {
        *checksum = 0;
        for (int i = 7; i >= 0; i--)
            *checksum = *checksum << 8 | saved.data[saved.len - 8 + (size_t)i];
    }
    free(saved.data);
    free(again.data);
    return copy;
}

void check_estimate_survives_reload(const tdbf *f, uint64_t checksum, uint64_t now,
                                    uint64_t window_ns, unsigned steps, double relative)
{
    uint64_t saved;
    tdbf *g = reload(f, &saved);
    print_message("saved form's checksum %016llx\n", (unsigned long long)saved);
    CHECK_U64_EQ(saved, checksum);
    for (unsigned i = 0; i <= steps; i++) {
        uint64_t at = now + i * (window_ns / steps);
        double before = current_error_of(f, at), after = current_error_of(g, at);
        print_message("+%llu ms: current error %.6f, after load %.6f\n",
                      (unsigned long long)((at - now) / 1000000u), before, after);
        CHECK_NEAR(after, before, relative * before);
    }
    tdbf_close(g);
}

void check_clock_steps_back(tdbf *f, uint64_t window_ns, uint64_t n, uint64_t key_seed)
{
    const uint64_t sec = UINT64_C(1000000000);
    uint64_t clock = 1000 * sec, seen = 0, rng = 5;
    uint64_t *added = calloc(n, sizeof *added);
    assert_non_null(added);
    uint64_t fn = 0, checks = 0;
    for (uint64_t i = 0; i < n; i++) {
        clock += window_ns / 2000;
        uint64_t stamp = i % 50 == 49 ? clock - drv_below(&rng, window_ns) : clock;
        seen = stamp > seen ? stamp : seen;
        uint8_t key[DRV_KEY_MAX];
        size_t len = drv_key(key, DRV_SPACE_INSERT, key_seed, i);
        CHECK_RC(tdbf_add(f, key, len, stamp) >= 0, 1);
        added[i] = seen;
        if (i % 997 == 0)
            for (uint64_t j = 0; j <= i; j++) {
                if (seen - added[j] >= window_ns)
                    continue;
                len = drv_key(key, DRV_SPACE_INSERT, key_seed, j);
                checks++;
                fn += tdbf_contains(f, key, len, seen - drv_below(&rng, window_ns)) != 1;
            }
    }
    print_message("clock back every 50 adds: %llu checks, %llu false negatives\n",
                  (unsigned long long)checks, (unsigned long long)fn);
    CHECK_U64_EQ(fn, 0);
    free(added);
}

void stream_fill_generation(stream *s, uint64_t span, uint64_t step_ns)
{
    uint64_t last = (s->now / span + 1) * span - 1;
    for (uint64_t n = (last - s->now) / step_ns; n > 0; n--) {
        s->now += step_ns;
        stream_insert(s);
    }
}

uint64_t check_reload_mid_stream(const stream *s, uint64_t per_window, uint64_t key_seed)
{
    const uint64_t T = s->window_ns;
    tdbf *f = s->f;
    tdbf_stats st = stats_of(f);
    tdbf *g = reload(f, NULL);
    tdbf_stats sg = stats_of(g);
    assert_memory_equal(&st, &sg, sizeof st);
    uint64_t differ = 0, present = 0;
    const uint64_t when[] = {s->now, s->now + T / 3, s->now + T, s->now + 2 * T};
    for (uint64_t i = 0; i < 40000; i++) {
        uint8_t key[DRV_KEY_MAX];
        size_t len = drv_key(key, (uint8_t)(i % 2), key_seed, i / 2);
        uint64_t at = when[i % 4];
        int a = tdbf_contains(f, key, len, at), b = tdbf_contains(g, key, len, at);
        differ += a != b;
        present += (uint64_t)a;
    }
    for (uint64_t i = 0; i < 3 * per_window; i++) {
        uint8_t key[DRV_KEY_MAX];
        size_t len = drv_key(key, DRV_SPACE_INSERT, key_seed + 1, i % (2 * per_window));
        uint64_t at = s->now + i * (T / per_window);
        differ += tdbf_add(f, key, len, at) != tdbf_add(g, key, len, at);
    }
    print_message("save/load: %llu of 40000 queries present, %llu answers differ\n",
                  (unsigned long long)present, (unsigned long long)differ);
    CHECK_U64_EQ(differ, 0);
    expect_same_saved_bytes(f, g);
    tdbf_close(g);
    return present;
}
