/*
 * test_line_threads.c — an apbf-line filter opened with cfg.concurrent,
 * added to and queried by two threads at once, no lock (also built under
 * ThreadSanitizer: `make tsan`).
 *
 *   - zero false negatives: each thread queries its own earlier keys at
 *     several lags right after each add; a key must answer yes whenever
 *     fewer than `window` adds can have been counted after its own.  The
 *     bound is taken conservatively from two shared counters: adds started
 *     (bumped before an add draws its ticket) and adds completed (bumped
 *     after it returns).  Every ticket drawn after key j's is from an add
 *     that started before the query ended, and key j's ticket is at least
 *     the adds completed before j's add began, so
 *         started(at query end) - completed(at j's add start) <= window
 *     guarantees key j is inside its window;
 *   - one thread adds one key a call, the other in batches, while both
 *     query, across many generations (shifts taken by whichever thread's
 *     ticket crosses them);
 *   - afterwards: every add counted, never-added keys answer at about the
 *     planned rate, and the filter saved and loaded without the flag
 *     answers exactly as the concurrent one does;
 *   - throughput of 1 and 2 threads printed (never asserted).
 */
#include "driver.h"
#include "stream.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if TDBF_TEST_SANITIZER
enum { ADDS_PER_THREAD = 30000, WINDOW = 4000 };
#else
enum { ADDS_PER_THREAD = 400000, WINDOW = 20000 };
#endif
enum { THREADS = 2, BATCH = 16 };

typedef struct shared {
    tdbf *f;
    atomic_uint_fast64_t started, completed;
    atomic_uint_fast64_t false_negatives, checked;
} shared;

typedef struct worker {
    shared   *s;
    unsigned  id;
    uint64_t *completed_at_start;   /* per key of this thread */
} worker;

static size_t key_of(unsigned thread, uint64_t i, uint8_t *buf)
{
    return drv_key(buf, (uint8_t)(0x40 + thread), 0x7ead, i);
}

/* Query this thread's key j; count it a false negative if it said no while
 * certainly inside the window. */
static void check_key(worker *w, uint64_t j)
{
    uint8_t key[32];
    size_t len = key_of(w->id, j, key);
    int yes = tdbf_contains(w->s->f, key, len, 0);
    assert_true(yes >= 0);
    uint64_t started = atomic_load(&w->s->started);
    if (started - w->completed_at_start[j] <= WINDOW) {
        atomic_fetch_add(&w->s->checked, 1);
        if (!yes)
            atomic_fetch_add(&w->s->false_negatives, 1);
    }
}

static void check_lags(worker *w, uint64_t i)
{
    static const uint64_t lags[] = {0, 1, 97, WINDOW / 8, WINDOW / 4, WINDOW / 2 - 3};
    for (size_t l = 0; l < sizeof lags / sizeof lags[0]; l++)
        if (i >= lags[l])
            check_key(w, i - lags[l]);
}

static void add_one(worker *w, uint64_t i)
{
    uint8_t key[32];
    size_t len = key_of(w->id, i, key);
    w->completed_at_start[i] = atomic_load(&w->s->completed);
    atomic_fetch_add(&w->s->started, 1);
    assert_true(tdbf_add(w->s->f, key, len, 0) >= 0);
    atomic_fetch_add(&w->s->completed, 1);
}

static void add_batch(worker *w, uint64_t from)
{
    uint8_t keys[BATCH][32];
    const void *ptrs[BATCH];
    size_t lens[BATCH];
    uint64_t at_start = atomic_load(&w->s->completed);
    for (unsigned b = 0; b < BATCH; b++) {
        lens[b] = key_of(w->id, from + b, keys[b]);
        ptrs[b] = keys[b];
        w->completed_at_start[from + b] = at_start;
    }
    atomic_fetch_add(&w->s->started, BATCH);
    assert_int_equal(tdbf_add_batch(w->s->f, BATCH, ptrs, lens, 0, NULL), TDBF_OK);
    atomic_fetch_add(&w->s->completed, BATCH);
}

static void *work(void *arg)
{
    worker *w = arg;
    for (uint64_t i = 0; i < ADDS_PER_THREAD;) {
        if (w->id == 0) {
            add_one(w, i);
            check_lags(w, i);
            i++;
        } else {
            add_batch(w, i);
            for (unsigned b = 0; b < BATCH; b++)
                check_lags(w, i + b);
            i += BATCH;
        }
    }
    return NULL;
}

static tdbf_config threads_config(void)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_APBF_LINE;
    cfg.window_items = WINDOW;
    cfg.error = 0.01;
    cfg.seed = 0x7ead5;
    cfg.concurrent = 1;
    return cfg;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_two_threads_no_false_negatives(void **state)
{
    (void)state;
    tdbf_config cfg = threads_config();
    shared s = {.f = drv_open(&cfg)};
    worker w[THREADS];
    pthread_t th[THREADS];
    for (unsigned t = 0; t < THREADS; t++) {
        w[t] = (worker){&s, t, calloc(ADDS_PER_THREAD + BATCH, sizeof(uint64_t))};
        assert_non_null(w[t].completed_at_start);
        assert_int_equal(pthread_create(&th[t], NULL, work, &w[t]), 0);
    }
    for (unsigned t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(th[t], NULL), 0);

    tdbf_stats st;
    CHECK_RC(tdbf_get_stats(s.f, &st), TDBF_OK);
    printf("  2 threads x %d adds (one single, one in batches of %d), window %llu: "
           "%llu in-window checks, %llu false negatives, %llu generations\n",
           ADDS_PER_THREAD, BATCH, (unsigned long long)st.window_items,
           (unsigned long long)atomic_load(&s.checked),
           (unsigned long long)atomic_load(&s.false_negatives),
           (unsigned long long)st.generations);
    assert_int_equal(atomic_load(&s.false_negatives), 0);
    assert_true(atomic_load(&s.checked) > (uint64_t)ADDS_PER_THREAD * THREADS);
    assert_int_equal(st.items, (uint64_t)ADDS_PER_THREAD * THREADS);
    assert_true(st.generations > 20);

    /* Never-added keys: the planned rate, within a generous band (the
     * stress can leave a few spares unswept: FP, never FN). */
    unsigned yes = 0, probes = 20000;
    for (uint64_t i = 0; i < probes; i++)
        yes += (unsigned)drv_contains_index(s.f, 0x99, i);
    double fp = (double)yes / probes;
    printf("  FP of never-added keys %.4f (planned %.4f)\n", fp, st.error_planned);
    assert_true(fp < 2.0 * st.error_planned + 0.005);

    /* Saved, loaded single-threaded: the same answers. */
    byte_sink bytes = save_bytes(s.f);
    tdbf *g = NULL;
    CHECK_RC(tdbf_load_buffer(&g, bytes.data, bytes.len, NULL), TDBF_OK);
    for (unsigned t = 0; t < THREADS; t++)
        for (uint64_t i = ADDS_PER_THREAD - 2 * WINDOW; i < ADDS_PER_THREAD; i++) {
            uint8_t key[32];
            size_t len = key_of(t, i, key);
            assert_int_equal(tdbf_contains(g, key, len, 0), tdbf_contains(s.f, key, len, 0));
        }
    free(bytes.data);
    tdbf_close(g);
    tdbf_close(s.f);
    for (unsigned t = 0; t < THREADS; t++)
        free(w[t].completed_at_start);
}

/* ---- throughput (printed) -------------------------------------------------- */

typedef struct timed {
    tdbf *f;
    unsigned id;
    uint64_t n;
} timed;

static void *add_many(void *arg)
{
    timed *t = arg;
    for (uint64_t i = 0; i < t->n; i++)
        drv_add_index(t->f, (uint8_t)t->id, i);
    return NULL;
}

static void *query_many(void *arg)
{
    timed *t = arg;
    unsigned yes = 0;
    for (uint64_t i = 0; i < t->n; i++)
        yes += (unsigned)drv_contains_index(t->f, 0x50, i);
    return (void *)(uintptr_t)yes;
}

/* Operations per second of `threads` threads adding (or querying, after
 * one thread's adds) on one filter of window 10^6. */
static double ops_per_second(int concurrent, unsigned threads, uint64_t per_thread, int query)
{
    tdbf_config cfg = threads_config();
    cfg.window_items = 1000000;
    cfg.concurrent = concurrent;
    tdbf *f = drv_open(&cfg);
    pthread_t th[THREADS];
    timed t[THREADS];
    if (query) {
        timed fill = {f, 0x50, per_thread};
        add_many(&fill);
    }
    double start = seconds_now();
    for (unsigned i = 0; i < threads; i++) {
        t[i] = (timed){f, 0x50 + i, per_thread};
        assert_int_equal(pthread_create(&th[i], NULL, query ? query_many : add_many, &t[i]), 0);
    }
    for (unsigned i = 0; i < threads; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    double elapsed = seconds_now() - start;
    tdbf_close(f);
    return (double)(per_thread * threads) / elapsed;
}

static void test_throughput_printed(void **state)
{
    (void)state;
    uint64_t n = ADDS_PER_THREAD;
    for (int query = 0; query <= 1; query++) {
        double plain = ops_per_second(0, 1, n, query), one = ops_per_second(1, 1, n, query),
               two = ops_per_second(1, 2, n, query);
        printf("  window 10^6 %s/s: one writer %.2f M; concurrent mode 1 thread %.2f M, "
               "2 threads %.2f M (%.2fx of 1 thread)\n",
               query ? "queries" : "adds", plain / 1e6, one / 1e6, two / 1e6, two / one);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_threads_no_false_negatives),
        cmocka_unit_test(test_throughput_printed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
