/*
 * test_sqf.c — the sliding quotient filter's core (designs/sqf/).
 *
 *   no_fn_distinct   every key of the last W adds answers present, on a
 *                    stream of distinct keys, checked after every add;
 *   no_fn_repeats    the same on a stream drawn from 3 W keys (refreshes);
 *   no_fn_one_bin    half of all adds go to one bin and one quotient:
 *                    the spare takes the overflow, nothing is lost;
 *   idle_bins        bins untouched for 40+ generations (tags and the
 *                    generation counter wrap) lose no live key;
 *   fp_worst_point   false positives at the end of a generation (the most
 *                    entries a query sees) within a band of the model
 *                    (live entries per quotient) / 2^r;
 *   golden_memory    fixed-seed streams (distinct keys, repeats, one hot
 *                    bin, idle bins, a caller-turned clock) on bins of 64
 *                    and 128 bytes and several (Q, C, r): a digest of the
 *                    whole core memory and of every answer equals the one
 *                    recorded from the first, decode-everything core.  The
 *                    bin layout is the file format, so every faster path
 *                    must leave the same bits and give the same answers.
 */
#include "driver.h"
#include "stream.h"
#include "designs/sqf/internal.h"
#include "util/serial.h"
#include "util/wide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEED UINT64_C(0x5f0f)

/* Key `id` is its 8 bytes little-endian, on every machine (the golden
 * digests need the same keys on s390x). */
static tdbf_hash128 key_hash(uint64_t id)
{
    unsigned char key[8];
    tdbf_store_le64(key, id);
    return tdbf_hash_key(SEED, key, sizeof key);
}

/* 64-byte bins, Q = 32, C = 42, r = 7: 17 + 32 + 42 + 42 * 10 = 511 bits;
 * `load` live entries a bin at the end of a generation. */
static sqf_shape shape_for(uint64_t window, double load)
{
    sqf_shape s;
    memset(&s, 0, sizeof s);
    s.window = window;
    s.gen_items = (window + SQF_KEPT - 1) / SQF_KEPT;
    double live = (double)s.gen_items * (SQF_KEPT + 1);
    s.bins = (uint64_t)ceil(live / load);
    s.bin_words = 8;
    s.quotients = 32;
    s.slots = 42;
    s.rem_bits = 7;
    s.spare_k = 6;
    s.spare_lines = s.gen_items / 64 + 1;
    return s;
}

typedef struct core_box {
    sqf_core  core;
    uint64_t *mem;
} core_box;

static void box_open(core_box *box, const sqf_shape *s)
{
    assert_int_equal(tdbf_sqf_shape_check(s), 0);
    box->mem = calloc(1, tdbf_sqf_core_bytes(s));
    assert_non_null(box->mem);
    tdbf_sqf_core_init(&box->core, s, box->mem, 1);
}

static void box_close(core_box *box)
{
    free(box->mem);
}

static void test_shape_check(void **state)
{
    (void)state;
    sqf_shape s = shape_for(1000, 36);
    assert_int_equal(tdbf_sqf_shape_check(&s), 0);
    s.slots = 43;   /* 17 + 32 + 43 + 430 = 522 bits: over a line */
    assert_int_equal(tdbf_sqf_shape_check(&s), -1);
    s = shape_for(1000, 36);
    s.spare_lines = 0;
    assert_int_equal(tdbf_sqf_shape_check(&s), -1);
}

static void test_no_fn_distinct(void **state)
{
    (void)state;
    const uint64_t W = 20000, N = 10 * W;
    sqf_shape s = shape_for(W, 36);
    core_box box;
    box_open(&box, &s);
    uint64_t misses = 0;
    for (uint64_t i = 0; i < N; i++) {
        tdbf_hash128 h = key_hash(i);
        tdbf_sqf_core_add(&box.core, &h);
        /* the oldest key of the window, the newest, one between */
        uint64_t first = i + 1 >= W ? i + 1 - W : 0;
        uint64_t probes[3] = { first, i, first + (i - first) / 2 };
        for (int j = 0; j < 3; j++) {
            tdbf_hash128 p = key_hash(probes[j]);
            misses += !tdbf_sqf_core_contains(&box.core, &p);
        }
    }
    assert_int_equal(misses, 0);
    box_close(&box);
}

static void test_no_fn_repeats(void **state)
{
    (void)state;
    const uint64_t W = 20000, U = 3 * W, N = 10 * W;
    sqf_shape s = shape_for(W, 36);
    core_box box;
    box_open(&box, &s);
    uint64_t *last = malloc(U * sizeof *last);
    assert_non_null(last);
    for (uint64_t k = 0; k < U; k++)
        last[k] = UINT64_MAX;
    uint64_t rng = 7;
    uint64_t misses = 0, wrong_present = 0;
    for (uint64_t i = 0; i < N; i++) {
        uint64_t k = drv_below(&rng, U);
        tdbf_hash128 h = key_hash(k);
        int was = tdbf_sqf_core_add(&box.core, &h);
        int in_window = last[k] != UINT64_MAX && i - last[k] <= W - 1;
        misses += in_window && !was;
        wrong_present += !in_window && was;
        last[k] = i;
        uint64_t probe = drv_below(&rng, U);
        tdbf_hash128 p = key_hash(probe);
        if (last[probe] != UINT64_MAX && i - last[probe] < W)
            misses += !tdbf_sqf_core_contains(&box.core, &p);
    }
    assert_int_equal(misses, 0);
    /* Present outside the window: slack or a false positive, a minority. */
    assert_true(wrong_present < N / 4);
    free(last);
    box_close(&box);
}

/* Keys whose fingerprint lands in bin 0, quotient 0. */
static uint64_t next_hot_key(const sqf_shape *s, uint64_t *id)
{
    for (;;) {
        tdbf_hash128 h = key_hash(++*id);
        if (tdbf_reduce(h.lo, s->bins) == 0 && tdbf_reduce(h.hi, s->quotients) == 0)
            return *id;
    }
}

static void test_no_fn_one_bin(void **state)
{
    (void)state;
    const uint64_t W = 2000, N = 8 * W;
    sqf_shape s = shape_for(W, 36);
    core_box box;
    box_open(&box, &s);
    uint64_t *keys = malloc(N * sizeof *keys);
    assert_non_null(keys);
    uint64_t hot = 0, cold = UINT64_C(1) << 40, misses = 0;
    for (uint64_t i = 0; i < N; i++) {
        keys[i] = i % 2 ? next_hot_key(&s, &hot) : cold++;
        tdbf_hash128 h = key_hash(keys[i]);
        tdbf_sqf_core_add(&box.core, &h);
        if (i % 97 == 0 || i + 1 == N) {
            for (uint64_t j = i + 1 >= W ? i + 1 - W : 0; j <= i; j++) {
                tdbf_hash128 p = key_hash(keys[j]);
                misses += !tdbf_sqf_core_contains(&box.core, &p);
            }
        }
    }
    assert_int_equal(misses, 0);
    assert_true(box.core.spills > N / 4);   /* the spare did take the overflow */
    free(keys);
    box_close(&box);
}

/* Two key sets: A fills the filter, then B alone for 40 generations while
 * A's bins see no write (B's keys avoid A's bins), then A's recent keys
 * are re-added and must answer for the window. */
static void test_idle_bins(void **state)
{
    (void)state;
    const uint64_t W = 7000;
    sqf_shape s = shape_for(W, 36);
    core_box box;
    box_open(&box, &s);
    uint64_t half = s.bins / 2, misses = 0, id = 0;
    uint64_t a_keys[64];
    unsigned na = 0;
    while (na < 64) {   /* A: keys of the low half of the bins */
        tdbf_hash128 h = key_hash(++id);
        if (tdbf_reduce(h.lo, s.bins) < half) {
            a_keys[na++] = id;
            tdbf_sqf_core_add(&box.core, &h);
        }
    }
    uint64_t target = box.core.adds + 40 * s.gen_items;
    while (box.core.adds < target) {   /* B: the high half only */
        tdbf_hash128 h = key_hash(++id);
        if (tdbf_reduce(h.lo, s.bins) >= half)
            tdbf_sqf_core_add(&box.core, &h);
    }
    for (unsigned i = 0; i < na; i++) {
        tdbf_hash128 h = key_hash(a_keys[i]);
        tdbf_sqf_core_add(&box.core, &h);
    }
    for (unsigned i = 0; i < na; i++) {
        tdbf_hash128 h = key_hash(a_keys[i]);
        misses += !tdbf_sqf_core_contains(&box.core, &h);
    }
    assert_int_equal(misses, 0);
    box_close(&box);
}

static void test_fp_worst_point(void **state)
{
    (void)state;
    const uint64_t W = DRV_PICK(700000, 70000);
    sqf_shape s = shape_for(W, 36);
    core_box box;
    box_open(&box, &s);
    /* Run 4 windows, stopping at the last add of a generation. */
    uint64_t n = 4 * W;
    n += s.gen_items - 1 - (n % s.gen_items);
    for (uint64_t i = 0; i < n; i++) {
        tdbf_hash128 h = key_hash(i);
        tdbf_sqf_core_add(&box.core, &h);
    }
    const uint64_t probes = DRV_PICK(2000000, 200000);
    uint64_t fp = 0;
    for (uint64_t i = 0; i < probes; i++) {
        tdbf_hash128 h = key_hash((UINT64_C(1) << 50) + i);
        fp += (uint64_t)tdbf_sqf_core_contains(&box.core, &h);
    }
    /* Live entries a bin: (L + 1) g - 1 adds over the bins; a query meets
     * those of its quotient, each matching with chance 2^-r. */
    double live = (double)((SQF_KEPT + 1) * s.gen_items - 1) / (double)s.bins;
    double model = live / s.quotients / (double)(1u << s.rem_bits);
    double rate = (double)fp / (double)probes;
    double sd = sqrt(model * (1 - model) / (double)probes);
    printf("sqf: W %llu, %.2f bits/item, FP %.5f (model %.5f), spills %.2f %%\n",
           (unsigned long long)W, 8.0 * (double)tdbf_sqf_core_bytes(&s) / (double)W, rate, model,
           100.0 * (double)box.core.spills / (double)n);
    /* The spare adds a little above the bins' model: allow it 10 %. */
    assert_true(rate > model - 4 * sd);
    assert_true(rate < model * 1.10 + 4 * sd);
    box_close(&box);
}

/* ---- golden memory -------------------------------------------------------- */

/* A shape with bins loaded to `load` live entries at a generation's end. */
static sqf_shape shape_of(uint64_t window, unsigned bin_words, unsigned quotients,
                          unsigned slots, unsigned rem_bits, double load)
{
    sqf_shape s;
    memset(&s, 0, sizeof s);
    s.window = window;
    s.gen_items = (window + SQF_KEPT - 1) / SQF_KEPT;
    s.bins = (uint64_t)ceil((double)s.gen_items * (SQF_KEPT + 1) / load);
    s.bin_words = bin_words;
    s.quotients = quotients;
    s.slots = slots;
    s.rem_bits = rem_bits;
    s.spare_k = 5;
    s.spare_lines = s.gen_items / 128 + 1;
    return s;
}

static void digest_step(uint64_t *digest, uint64_t value)
{
    *digest = tdbf_mix64(*digest ^ value);
}

/* The core's whole memory (bins and spare) and its counters. */
static void digest_core(uint64_t *digest, const sqf_core *c)
{
    uint64_t words = tdbf_sqf_core_bytes(&c->shape) / 8;
    for (uint64_t i = 0; i < words; i++)
        digest_step(digest, c->bins[i]);
    digest_step(digest, c->gen);
    digest_step(digest, c->adds);
    digest_step(digest, c->spills);
}

/* Adds key `id` and asks for `probe`; both answers go into the digest. */
static void golden_op(uint64_t *digest, sqf_core *c, uint64_t id, uint64_t probe)
{
    tdbf_hash128 h = key_hash(id);
    tdbf_hash128 p = key_hash(probe);
    digest_step(digest, (uint64_t)tdbf_sqf_core_add(c, &h));
    digest_step(digest, (uint64_t)tdbf_sqf_core_contains(c, &p) << 1);
}

/* Distinct keys, then keys drawn from 3 W (refreshes), then a stream whose
 * every other key lands in bin 0 and quotient 0 (the spare's adversary),
 * then keys of the upper half of the bins only for 40 generations (the
 * lower half idles through tag and generation wrap-around) and the first
 * keys again.  Probes mix window keys and never-added ones. */
static uint64_t golden_run(const sqf_shape *s, int caller_turns)
{
    core_box box;
    box_open(&box, s);
    if (caller_turns)
        tdbf_sqf_core_init(&box.core, s, box.mem, 0);
    uint64_t digest = 0, rng = 11, id = 0, W = s->window;
    for (uint64_t i = 0; i < 3 * W; i++, id++) {
        golden_op(&digest, &box.core, id, drv_below(&rng, 2) ? drv_below(&rng, id + 1)
                                                              : (UINT64_C(1) << 50) + i);
        if (caller_turns && drv_below(&rng, s->gen_items) == 0) {
            /* One draw a statement: C leaves the order of operands open. */
            uint64_t jumps = drv_below(&rng, 3);
            tdbf_sqf_core_turn(&box.core, 1 + jumps * drv_below(&rng, 20));
        }
    }
    for (uint64_t i = 0; i < 4 * W; i++) {
        uint64_t key = id + drv_below(&rng, 3 * W);
        golden_op(&digest, &box.core, key, id + drv_below(&rng, 6 * W));
    }
    id += 6 * W;
    uint64_t hot = id;
    for (uint64_t i = 0; i < 2 * W; i++)
        golden_op(&digest, &box.core, i % 2 ? next_hot_key(s, &hot) : id + i, hot);
    id = hot + 1;
    uint64_t half = s->bins / 2, target = box.core.adds + 40 * s->gen_items;
    while (box.core.adds < target) {
        tdbf_hash128 h = key_hash(++id);
        if (tdbf_reduce(h.lo, s->bins) >= half)
            golden_op(&digest, &box.core, id, id - drv_below(&rng, W));
        if (caller_turns && box.core.adds % s->gen_items == 0)
            tdbf_sqf_core_turn(&box.core, 1);
    }
    for (uint64_t i = 0; i < W / 4; i++)
        golden_op(&digest, &box.core, i, drv_below(&rng, W));
    tdbf_sqf_core_settle(&box.core);
    digest_core(&digest, &box.core);
    box_close(&box);
    return digest;
}

typedef struct golden_case {
    unsigned bin_words, quotients, slots, rem_bits;
    double   load;
    uint64_t count_digest, time_digest;   /* turned on count; by the caller */
} golden_case;

static void test_golden_memory(void **state)
{
    (void)state;
    /* Bits used: 17 + Q + C + C (r + 3) of 512 or 1024. */
    static const golden_case cases[] = {
        /* 511: FP ~0.009 */
        { 8, 32, 42, 7, 36, UINT64_C(0x559399cb4fb29a8b),
          UINT64_C(0x91576fea8a9a20ac) },
        /* 501 */
        { 8, 16, 39, 8, 33, UINT64_C(0xe31d9752805d8a10),
          UINT64_C(0x54ed886aecec87fa) },
        /* 505: slots of 23 bits */
        { 8, 8, 20, 20, 17, UINT64_C(0x70c239062a96af6d),
          UINT64_C(0xfdbf10491685fc12) },
        /* 1005: FP ~0.001 */
        { 16, 64, 66, 10, 56, UINT64_C(0x048dfe1df15d449c),
          UINT64_C(0x4b4072eed56f9b43) },
        /* 1009 */
        { 16, 40, 68, 10, 58, UINT64_C(0x0a39eea39eb2f84f),
          UINT64_C(0x6b840c3580d388da) },
        /* 1009: slots of 35 bits */
        { 16, 20, 27, 32, 23, UINT64_C(0x55fadd95db99f441),
          UINT64_C(0xca1b9866b0a3d636) },
        /* 1016 */
        { 16, 64, 55, 13, 47, UINT64_C(0x1f6be3e088b6e2b8),
          UINT64_C(0xb2f29ef7ad71ab73) },
        /* the planner's shapes at 0.02, 0.01, 0.005 and 0.001 (128-byte bins)
         * and at 0.01 and 0.001 (64-byte bins): sqf_core.c compiles these
         * geometries apart */
        { 16, 84, 92, 6, 86, UINT64_C(0x1917bd3183a5a10f),
          UINT64_C(0x1fb44841e773656f) },
        { 16, 76, 84, 7, 78, UINT64_C(0x500b22788d97e734),
          UINT64_C(0x28efc3bde54a3e61) },
        { 16, 71, 78, 8, 72, UINT64_C(0xf22227c97daa6f47),
          UINT64_C(0x9e0aec220d5f01d4) },
        { 16, 74, 66, 10, 60, UINT64_C(0xcebabc65d8cdbfd7),
          UINT64_C(0x8f32803c8f2f6010) },
        { 8, 73, 42, 6, 38, UINT64_C(0x4feb9f5a2987a6f9),
          UINT64_C(0xa5606abb8a25810b) },
        { 8, 66, 33, 9, 29, UINT64_C(0xe0e261687a88f7e3),
          UINT64_C(0x58813e92175706ac) },
    };
    const uint64_t W = 3000;
    /* The bins' code this CPU runs, then the portable one (the CPU-specific
     * copy, bin_x86.c, where there is one, must write the same bits). */
    const tdbf_simd paths[] = { TDBF_SIMD_AUTO, TDBF_SIMD_PORTABLE };
    unsigned wrong = 0;
    for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
        CHECK_RC(tdbf_set_simd(paths[k]), TDBF_OK);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            const golden_case *g = &cases[i];
            sqf_shape s = shape_of(W, g->bin_words, g->quotients, g->slots, g->rem_bits, g->load);
            uint64_t on_count = golden_run(&s, 0), on_time = golden_run(&s, 1);
            if (on_count != g->count_digest || on_time != g->time_digest) {
                printf("golden (%s): %u words Q %u C %u r %u: digests 0x%016llx 0x%016llx,"
                       " expected 0x%016llx 0x%016llx\n", tdbf_simd_name(paths[k]),
                       g->bin_words, g->quotients, g->slots, g->rem_bits,
                       (unsigned long long)on_count, (unsigned long long)on_time,
                       (unsigned long long)g->count_digest, (unsigned long long)g->time_digest);
                wrong++;
            }
        }
    }
    CHECK_RC(tdbf_set_simd(TDBF_SIMD_AUTO), TDBF_OK);
    assert_int_equal(wrong, 0);
}

/* The core's saved words, into a fresh sink (stream.h). */
static void save_words(const sqf_core *c, byte_sink *sink)
{
    tdbf_out out = { .write = byte_sink_write, .ctx = sink, .rc = TDBF_OK };
    tdbf_checksum_init(&out.sum);
    sink->len = 0;
    tdbf_sqf_save_core_words(&out, c);
    assert_int_equal(out.rc, TDBF_OK);
    assert_int_equal(sink->len, tdbf_sqf_core_bytes(&c->shape));
}

/* A spill's write to the spare is held back (sqf_core.c): while it is,
 * the answers and the saved words are those of the core with it made.
 * At load 40 a bin of C = 42 spills often; at every 97th add a copy of
 * the core settles its writes; both find every key of the window asked
 * (all of it every 8th time: the keys of the pending writes among them),
 * give the same answers for fresh keys, and save the same bytes, which
 * are the settled copy's memory. */
static void test_held_back_spare_writes(void **state)
{
    (void)state;
    const uint64_t W = 8000, N = 6 * W;
    sqf_shape s = shape_for(W, 40);
    core_box box, copy;
    box_open(&box, &s);
    box_open(&copy, &s);
    size_t bytes = (size_t)tdbf_sqf_core_bytes(&s);
    byte_sink held = { NULL, 0, 0, -1 }, made = { NULL, 0, 0, -1 };
    uint64_t checks = 0, with_pending = 0, rng = 5;
    for (uint64_t i = 0; i < N; i++) {
        tdbf_hash128 h = key_hash(i);
        tdbf_sqf_core_add(&box.core, &h);
        if (i % 97 != 0)
            continue;
        with_pending += box.core.pending_count != 0;
        memcpy(copy.mem, box.mem, bytes);
        uint64_t *copy_mem = copy.mem;
        copy.core = box.core;
        copy.core.bins = copy_mem;
        copy.core.spare = copy_mem + s.bins * s.bin_words;
        tdbf_sqf_core_settle(&copy.core);
        assert_int_equal(copy.core.pending_count, 0);
        /* the whole window every 8th time (a pending entry's key among
         * them), else a sample; as many fresh keys */
        uint64_t first = i + 1 >= W ? i + 1 - W : 0, step = checks % 8 ? 1 + drv_below(&rng, 97) : 1;
        for (uint64_t id = first; id <= i; id += step) {
            tdbf_hash128 p = key_hash(id), fresh = key_hash((UINT64_C(1) << 48) + id);
            assert_true(tdbf_sqf_core_contains(&box.core, &p));
            assert_int_equal(tdbf_sqf_core_contains(&copy.core, &p), 1);
            assert_int_equal(tdbf_sqf_core_contains(&box.core, &fresh),
                             tdbf_sqf_core_contains(&copy.core, &fresh));
        }
        save_words(&box.core, &held);
        save_words(&copy.core, &made);
        assert_memory_equal(held.data, made.data, bytes);
        for (uint64_t w = 0; w < bytes / 8; w++)
            assert_int_equal(tdbf_load_le64(made.data + 8 * w), copy_mem[w]);
        checks++;
    }
    assert_true(box.core.spills > N / 50);
    assert_true(with_pending > checks / 2);   /* the case this test is for */
    free(held.data);
    free(made.data);
    box_close(&copy);
    box_close(&box);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_check),
        cmocka_unit_test(test_no_fn_distinct),
        cmocka_unit_test(test_no_fn_repeats),
        cmocka_unit_test(test_no_fn_one_bin),
        cmocka_unit_test(test_idle_bins),
        cmocka_unit_test(test_fp_worst_point),
        cmocka_unit_test(test_golden_memory),
        cmocka_unit_test(test_held_back_spare_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
