/*
 * test_sqf_filter.c — the sliding quotient filter through the public API
 * (src/lib/designs/sqf/sqf.c; the core's own tests: test_sqf.c).
 *
 *   - no false negatives inside the window (generic driver), 64- and
 *     128-byte bins, single and batch adds, and a window of 10 (g = 2);
 *   - a filter saved and loaded in the middle of a generation goes on
 *     exactly as the original: the same answers to the same adds and
 *     queries, and the same bytes saved at the end;
 *   - batch adds and queries answer as single ones and leave the same
 *     bytes;
 *   - forged files: every field the loader vets, and bins no operation
 *     writes (a header with more entries than slots, an entry past the
 *     last quotient, bits past the last entry), are refused;
 *   - what the design refuses at open.
 */
#include "driver.h"
#include "stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tdbf_config sqf_config(uint64_t window, double error, unsigned unit_bits, uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_SQF;
    cfg.window_items = window;
    cfg.error = error;
    cfg.unit_bits = unit_bits;
    cfg.seed = seed;
    return cfg;
}

static void test_no_false_negatives(void **state)
{
    (void)state;
    const unsigned bins[] = {512, 1024};
    for (size_t u = 0; u < 2; u++) {
        for (size_t batch = 1; batch <= 64; batch += 63) {
            tdbf_config cfg = sqf_config(DRV_PICK(20000, 5000), 0.01, bins[u], 0x5f + u + batch);
            drv_result res;
            char label[64];
            snprintf(label, sizeof label, "sqf bin %u bits, batch %zu", bins[u], batch);
            drv_run_count(label, &cfg, 0, batch, &res);
        }
    }
    tdbf_config tiny = sqf_config(10, 0.1, 0, 7);
    drv_result res;
    drv_run_count("sqf window 10", &tiny, 0, 1, &res);
    tdbf_config strict = sqf_config(DRV_PICK(20000, 5000), 1e-5, 0, 8);
    drv_run_count("sqf error 1e-5", &strict, 0, 1, &res);
}

/* Key i of this file's stream: inserted keys, then probes from 2^40. */
static size_t key_of(uint64_t i, uint8_t *buf)
{
    return i < (UINT64_C(1) << 40) ? drv_key(buf, DRV_SPACE_INSERT, 0x5f1e, i)
                                   : drv_key(buf, DRV_SPACE_PROBE, 0x5f1e, i);
}

/* Adds keys [from, to) (from 3/4 of a stream drawn from `to` keys: some
 * repeat) to both filters, which must answer alike. */
static void add_to_both(tdbf *a, tdbf *b, uint64_t from, uint64_t to)
{
    uint8_t key[DRV_KEY_MAX];
    for (uint64_t i = from; i < to; i++) {
        uint64_t id = i % 4 == 3 ? i / 2 : i;
        size_t len = key_of(id, key);
        int ra = tdbf_add(a, key, len, 0), rb = tdbf_add(b, key, len, 0);
        if (ra < 0 || ra != rb)
            fail_msg("add %llu: %d and %d", (unsigned long long)i, ra, rb);
    }
}

static void test_save_load_mid_generation(void **state)
{
    (void)state;
    const uint64_t w = 9000;
    for (unsigned u = 512; u <= 1024; u += 512) {
        tdbf_config cfg = sqf_config(w, 0.001, u, 0x10ad);
        tdbf *f = drv_open(&cfg), *twin = drv_open(&cfg);
        add_to_both(f, twin, 0, 2 * w + w / 3);   /* mid-generation */
        tdbf_stats st;
        CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
        assert_true(st.generation_fill > 0 && st.generation_fill < st.generation_size);
        byte_sink s = save_bytes(f);
        tdbf *g = NULL;
        CHECK_RC(tdbf_load_buffer(&g, s.data, s.len, NULL), TDBF_OK);
        free(s.data);
        tdbf_close(f);
        expect_same_saved_bytes(g, twin);
        add_to_both(g, twin, 2 * w + w / 3, 5 * w);
        uint8_t key[DRV_KEY_MAX];
        for (uint64_t i = 0; i < 20000; i++) {
            size_t len = key_of((UINT64_C(1) << 40) + i, key);
            assert_int_equal(tdbf_contains(g, key, len, 0), tdbf_contains(twin, key, len, 0));
        }
        expect_same_saved_bytes(g, twin);
        tdbf_shape sg, st2;
        CHECK_RC(tdbf_get_shape(g, &sg), TDBF_OK);
        CHECK_RC(tdbf_get_shape(twin, &st2), TDBF_OK);
        assert_memory_equal(&sg.error_planned, &st2.error_planned, sizeof(double));
        tdbf_close(g);
        tdbf_close(twin);
    }
}

enum { CHUNK = 37 };

static void test_batch_is_single(void **state)
{
    (void)state;
    const uint64_t w = 6000, n = 4 * w;
    tdbf_config cfg = sqf_config(w, 0.01, 0, 0xba7c);
    tdbf *single = drv_open(&cfg), *batch = drv_open(&cfg);
    uint8_t keys[CHUNK][DRV_KEY_MAX];
    const void *ptrs[CHUNK];
    size_t lens[CHUNK];
    uint8_t got[CHUNK];
    for (uint64_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? (size_t)(n - i) : CHUNK;
        for (size_t j = 0; j < m; j++) {
            uint64_t id = (i + j) % 3 == 2 ? (i + j) / 3 : i + j;   /* some repeat */
            lens[j] = key_of(id, keys[j]);
            ptrs[j] = keys[j];
        }
        CHECK_RC(tdbf_add_batch(batch, m, ptrs, lens, 0, got), TDBF_OK);
        for (size_t j = 0; j < m; j++)
            assert_int_equal(got[j], tdbf_add(single, keys[j], lens[j], 0));
        for (size_t j = 0; j < m; j++)
            lens[j] = key_of((i + j) % 2 ? (UINT64_C(1) << 40) + i + j : (i + j) / 2, keys[j]);
        CHECK_RC(tdbf_contains_batch(batch, m, ptrs, lens, 0, got), TDBF_OK);
        for (size_t j = 0; j < m; j++)
            assert_int_equal(got[j], tdbf_contains(single, keys[j], lens[j], 0));
    }
    expect_same_saved_bytes(single, batch);
    tdbf_close(single);
    tdbf_close(batch);
}

/* ---- forged files ---------------------------------------------------------- */

enum {
    HEADER = 56,               /* the file's header, then the payload */
    FIELDS = HEADER + 88,      /* then the core's words: bins first */
    STATE_BITS = 17            /* a bin's gw, gs and spill fields */
};

typedef struct sqf_file {
    byte_sink s;
    unsigned  bin_words, quotients, slots, rem_bits;
} sqf_file;

static uint32_t u32_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le(unsigned char *p, unsigned bytes, uint64_t v)
{
    for (unsigned j = 0; j < bytes; j++)
        p[j] = (unsigned char)(v >> (8 * j));
}

static void set_bin_bit(unsigned char *bin, unsigned bit)
{
    bin[bit / 8] |= (unsigned char)(1u << (bit % 8));
}

static int load_rc(byte_sink *s)
{
    reseal_checksum(s);
    tdbf *g = NULL;
    int rc = tdbf_load_buffer(&g, s->data, s->len, NULL);
    if (rc == TDBF_OK)
        tdbf_close(g);
    else
        assert_null(g);
    return rc;
}

static void test_forged_files(void **state)
{
    (void)state;
    tdbf_config cfg = sqf_config(700, 0.01, 512, 0xf0);
    tdbf *f = drv_open(&cfg);
    for (uint64_t i = 0; i < 1000; i++)
        drv_add_index(f, 0xf1, i);
    sqf_file file = { save_bytes(f), 0, 0, 0, 0 };
    tdbf_close(f);
    unsigned char *p = file.s.data + HEADER;
    file.bin_words = u32_at(p + 4);
    file.quotients = u32_at(p + 8);
    file.slots = u32_at(p + 12);
    file.rem_bits = u32_at(p + 16);
    CHECK_RC(load_rc(&file.s), TDBF_OK);
    const struct {
        size_t   at;
        unsigned bytes;
        uint64_t value;
        const char *what;
        int rc;
    } edits[] = {
        {0, 4, 3, "unknown layout 3", TDBF_EVERSION},
        {4, 4, 12, "bins of 12 words", TDBF_ECORRUPT},
        {8, 4, 0, "no quotients", TDBF_ECORRUPT},
        {12, 4, 200, "slots past the bin", TDBF_ECORRUPT},
        {16, 4, 0, "no remainder", TDBF_ECORRUPT},
        {20, 4, 0, "spare k 0", TDBF_ECORRUPT},
        {24, 8, 0, "window 0", TDBF_ECORRUPT},
        {32, 8, 99, "g not ceil(W / 7)", TDBF_ECORRUPT},
        {40, 8, 0, "no bins", TDBF_ECORRUPT},
        {40, 8, 1000, "more bins than words", TDBF_ECORRUPT},
        {48, 8, 0, "no spare", TDBF_ECORRUPT},
        {64, 8, 100, "a generation past g", TDBF_ECORRUPT},
        {80, 8, UINT64_C(1) << 40, "more spills than adds", TDBF_ECORRUPT},
    };
    unsigned char *orig = malloc(file.s.len);
    assert_non_null(orig);
    memcpy(orig, file.s.data, file.s.len);
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(file.s.data, orig, file.s.len);
        put_le(p + edits[i].at, edits[i].bytes, edits[i].value);
        int rc = load_rc(&file.s);
        if (rc != edits[i].rc)
            fail_msg("%s: load returned %d (%s)", edits[i].what, rc, tdbf_strerror(rc));
    }
    /* Bins no operation writes.  Bin 0's header: all ones is more
     * entries than slots; one 1 after Q zeros is past the last quotient;
     * the last bit of the bin is past its entries' slots. */
    unsigned char *bin = file.s.data + FIELDS;
    unsigned header_bits = file.quotients + file.slots;
    memcpy(file.s.data, orig, file.s.len);
    for (unsigned b = 0; b < header_bits; b++)
        set_bin_bit(bin, STATE_BITS + b);
    CHECK_RC(load_rc(&file.s), TDBF_ECORRUPT);
    memcpy(file.s.data, orig, file.s.len);
    memset(bin, 0, 8u * file.bin_words);
    set_bin_bit(bin, STATE_BITS + file.quotients);
    CHECK_RC(load_rc(&file.s), TDBF_ECORRUPT);
    memcpy(file.s.data, orig, file.s.len);
    memset(bin, 0, 8u * file.bin_words);
    set_bin_bit(bin, 64 * file.bin_words - 1);
    CHECK_RC(load_rc(&file.s), TDBF_ECORRUPT);
    /* An empty bin with any state fields is one the operations can meet. */
    memcpy(file.s.data, orig, file.s.len);
    memset(bin, 0, 8u * file.bin_words);
    bin[0] = 0xff;
    bin[1] = 0xff;
    CHECK_RC(load_rc(&file.s), TDBF_OK);
    free(orig);
    free(file.s.data);
}

static void test_refusals(void **state)
{
    (void)state;
    tdbf_config cfg = sqf_config(1000, 0.01, 0, 1);
    cfg.k = 3;
    drv_expect_open(&cfg, TDBF_EPARAM, "k set");
    cfg = sqf_config(1000, 0.01, 0, 1);
    cfg.l = 7;
    drv_expect_open(&cfg, TDBF_EPARAM, "l set");
    cfg = sqf_config(1000, 0.01, 768, 1);
    drv_expect_open(&cfg, TDBF_EPARAM, "bins of 768 bits");
    cfg = sqf_config(1000, 0.01, 512, 1);
    cfg.block_bits = 1024;
    drv_expect_open(&cfg, TDBF_EPARAM, "unit_bits and its alias differ");
    cfg = sqf_config(1000, 0.01, 0, 1);
    cfg.concurrent = 1;
    drv_expect_open(&cfg, TDBF_ENOTSUP, "concurrent adds");
    cfg = sqf_config(UINT64_C(1) << 40, 0.01, 0, 1);
    drv_expect_open(&cfg, TDBF_ETOOBIG, "a window past the memory cap");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_false_negatives),
        cmocka_unit_test(test_save_load_mid_generation),
        cmocka_unit_test(test_batch_is_single),
        cmocka_unit_test(test_forged_files),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
