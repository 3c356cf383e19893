/*
 * test_sqf_readers.c — an sqf filter queried by several threads at once
 * while no add runs, as tdbf.h section 7 allows every design (also built
 * under ThreadSanitizer: `make tsan`, which fails on any write a query
 * makes to shared memory).
 *
 *   - each thread asks every key of the last window (all present: zero
 *     false negatives) and a run of never-added keys, single and batch;
 *   - every thread's answers are the same, bit for bit, as one thread's
 *     asked before the threads started.
 */
#include "driver.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, BATCH = 64 };
#define WINDOW DRV_PICK(40000, 8000)
#define PROBES DRV_PICK(200000, 20000)

typedef struct reader {
    tdbf    *f;
    uint8_t *answers;    /* WINDOW window keys, then PROBES probes */
    uint64_t first;      /* the window's first key */
    int      batch;
    int      rc;
} reader;

static size_t key_at(uint64_t i, uint8_t *buf)
{
    return i < (UINT64_C(1) << 40) ? drv_key(buf, DRV_SPACE_INSERT, 0x5eed, i)
                                   : drv_key(buf, DRV_SPACE_PROBE, 0x5eed, i);
}

/* The i-th key this test asks: the window's, then the probes. */
static size_t asked(const reader *r, uint64_t i, uint8_t *buf)
{
    return i < WINDOW ? key_at(r->first + i, buf) : key_at((UINT64_C(1) << 40) + i, buf);
}

static int ask_single(reader *r)
{
    uint8_t key[DRV_KEY_MAX];
    for (uint64_t i = 0; i < WINDOW + PROBES; i++) {
        int rc = tdbf_contains(r->f, key, asked(r, i, key), 0);
        if (rc < 0)
            return rc;
        r->answers[i] = (uint8_t)rc;
    }
    return TDBF_OK;
}

static int ask_batch(reader *r)
{
    uint8_t keys[BATCH][DRV_KEY_MAX];
    const void *ptrs[BATCH];
    size_t lens[BATCH];
    for (uint64_t i = 0; i < WINDOW + PROBES; i += BATCH) {
        size_t n = WINDOW + PROBES - i < BATCH ? WINDOW + PROBES - i : BATCH;
        for (size_t j = 0; j < n; j++) {
            ptrs[j] = keys[j];
            lens[j] = asked(r, i + j, keys[j]);
        }
        int rc = tdbf_contains_batch(r->f, n, ptrs, lens, 0, r->answers + i);
        if (rc < 0)
            return rc;
    }
    return TDBF_OK;
}

static void *reader_main(void *arg)
{
    reader *r = arg;
    r->rc = r->batch ? ask_batch(r) : ask_single(r);
    return NULL;
}

static void test_readers_agree(void **state)
{
    (void)state;
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_SQF;
    cfg.window_items = WINDOW;
    cfg.error = 0.01;
    cfg.seed = 0x5f0f;
    tdbf *f;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_OK);
    uint8_t key[DRV_KEY_MAX];
    const uint64_t adds = 3 * WINDOW + WINDOW / 3;
    for (uint64_t i = 0; i < adds; i++)
        assert_true(tdbf_add(f, key, key_at(i, key), 0) >= 0);

    reader one = { f, malloc(WINDOW + PROBES), adds - WINDOW, 0, 0 };
    assert_non_null(one.answers);
    CHECK_RC(ask_single(&one), TDBF_OK);
    for (uint64_t i = 0; i < WINDOW; i++)
        if (!one.answers[i])
            fail_msg("key %llu of the window answered no", (unsigned long long)(one.first + i));

    reader r[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        r[i] = one;
        r[i].answers = calloc(1, WINDOW + PROBES);
        assert_non_null(r[i].answers);
        r[i].batch = i % 2;
        assert_int_equal(pthread_create(&t[i], NULL, reader_main, &r[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        CHECK_RC(r[i].rc, TDBF_OK);
        assert_memory_equal(r[i].answers, one.answers, WINDOW + PROBES);
        free(r[i].answers);
    }
    uint64_t fp = 0;
    for (uint64_t i = WINDOW; i < WINDOW + PROBES; i++)
        fp += one.answers[i];
    tdbf_shape shape;
    CHECK_RC(tdbf_get_shape(f, &shape), TDBF_OK);
    /* A query in the middle of a generation: under the worst point's rate. */
    assert_true((double)fp / PROBES < 1.2 * shape.error_planned);
    free(one.answers);
    tdbf_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readers_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
