/*
 * fuzz_load.c — libFuzzer target for the loader (tdbf_load_buffer).
 *
 * Every input is offered to the loader with a 64 MiB cap.  Most are
 * refused, which is the point: the loader must refuse without crashing,
 * leaking, reading out of bounds or allocating past the cap.  When one
 * loads, it must behave like a filter:
 *   - saving it again gives back exactly the input's filter record (the
 *     format has one encoding per state, and tdbf_saved_size predicts
 *     it), and the rest of the input reads as sections;
 *   - adds and queries at times around its clock (up to 2^64 - 1) work,
 *     and a key just added is present (no false negatives);
 *   - after them it still saves to tdbf_saved_size bytes, and those load.
 * A broken property stops the fuzzer with a message and a trap.
 *
 * Every input is also given to tdbf_read_sections as it is.
 *
 * Seeds: build/fuzz/gen_corpus writes saved filters of every
 * design in several sizes, and a few followed by sections (make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tdbf.h>

#define FUZZ_MAX_MEMORY (UINT64_C(64) << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A growing memory sink for tdbf_save. */
typedef struct sink {
    unsigned char *buf;
    size_t len, cap;
} sink;

static int sink_write(void *ctx, const void *bytes, size_t len)
{
    sink *s = ctx;
    if (len > s->cap - s->len) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap - s->len < len)
            cap *= 2;
        unsigned char *grown = realloc(s->buf, cap);
        if (grown == NULL)
            return -1;
        s->buf = grown;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, bytes, len);
    s->len += len;
    return 0;
}

static void fail(const char *what, long long a, long long b)
{
    fprintf(stderr, "fuzz_load: %s (%lld, %lld)\n", what, a, b);
    __builtin_trap();
}

/* Save f into *s (emptied first); trap unless it takes saved_size bytes. */
static void save_exactly(const tdbf *f, sink *s)
{
    s->len = 0;
    uint64_t expected = tdbf_saved_size(f);
    int rc = tdbf_save(f, sink_write, s);
    if (rc != TDBF_OK)
        fail("a loaded filter does not save", rc, 0);
    if ((uint64_t)s->len != expected)
        fail("tdbf_save wrote other than tdbf_saved_size bytes",
             (long long)s->len, (long long)expected);
}

static uint64_t saturating_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Adds and queries with keys cut from the input, at times from the
 * filter's clock up to the end of time. */
static void exercise(tdbf *f, const uint8_t *data, size_t size)
{
    tdbf_stats st;
    if (tdbf_get_stats(f, &st) != TDBF_OK)
        fail("stats of a loaded filter", 0, 0);
    uint64_t span = st.window_ns ? st.window_ns : 1000;
    const uint64_t times[] = {
        0, st.now_ns, saturating_add(st.now_ns, span / 3),
        saturating_add(st.now_ns, span), saturating_add(st.now_ns, 3 * span),
        UINT64_MAX - 1, UINT64_MAX,
    };
    const size_t n_times = sizeof times / sizeof times[0];
    for (size_t i = 0; i < 24; i++) {
        size_t start = size ? (i * 131) % size : 0;
        size_t len = i % 9 < size - start ? i % 9 : size - start;
        const uint8_t *key = data + start;
        uint64_t now = times[i % n_times];
        int before = tdbf_contains(f, key, len, now);
        int added = tdbf_add(f, key, len, now);
        if (before < 0 || added < 0)
            fail("add or contains failed", before, added);
        /* time is clamped, so "now" for the check is the filter's clock */
        if (tdbf_get_stats(f, &st) != TDBF_OK)
            fail("stats", 0, 0);
        if (tdbf_contains(f, key, len, st.now_ns) != 1)
            fail("a key just added is absent", (long long)i,
                 (long long)st.design);
        if (i % 8 == 7 && tdbf_advance(f, now) != TDBF_OK)
            fail("advance failed", (long long)i, 0);
    }
    const void *keys[4] = {data, data, data, data};
    size_t lens[4] = {0, size > 0, size > 1 ? 2 : 0, size > 2 ? 3 : 0};
    uint8_t results[4];
    if (tdbf_add_batch(f, 4, keys, lens, st.now_ns, results) != TDBF_OK ||
        tdbf_contains_batch(f, 4, keys, lens, st.now_ns, results) != TDBF_OK)
        fail("batch calls failed", 0, 0);
    for (size_t i = 0; i < 4; i++)
        if (results[i] != 1)
            fail("a key added in a batch is absent", (long long)i, 0);
}

/* tdbf_read_fn over a byte range. */
typedef struct byte_source {
    const uint8_t *at;
    size_t left;
} byte_source;

static int read_source(void *ctx, void *buf, size_t len)
{
    byte_source *src = ctx;
    if (len > src->left)
        return -1;
    memcpy(buf, src->at, len);
    src->at += len;
    src->left -= len;
    return 0;
}

/* A visitor that reads every byte of a body (so the sanitizers see a
 * body shorter than its length claims). */
static int touch_section(void *ctx, const tdbf_section *section)
{
    (void)ctx;
    const unsigned char *body = section->body;
    unsigned sum = 0;
    for (uint32_t i = 0; i < section->length; i++)
        sum += body[i];
    return sum == UINT32_MAX ? TDBF_ECORRUPT : TDBF_OK;   /* never: 4 GiB of 0xff */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The section reader alone, over the raw input: it must refuse or
     * accept without reading past it. */
    byte_source raw = {data, size};
    (void)tdbf_read_sections(read_source, &raw, NULL, touch_section, NULL);

    tdbf_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.max_memory = FUZZ_MAX_MEMORY;
    tdbf *f;
    if (tdbf_load_buffer(&f, data, size, &opts) != TDBF_OK)
        return 0;

    sink s = {NULL, 0, 0};
    save_exactly(f, &s);
    if (s.len > size || memcmp(s.buf, data, s.len) != 0)
        fail("saving a loaded filter does not give back its bytes",
             (long long)s.len, (long long)size);
    /* what follows the record loaded as sections: shown whole, they must
     * read the same */
    byte_source rest = {data + s.len, size - s.len};
    int walked = tdbf_read_sections(read_source, &rest, NULL, touch_section, NULL);
    if (walked != TDBF_OK)
        fail("the sections after a loaded filter do not read", walked, (long long)s.len);

    exercise(f, data, size);
    save_exactly(f, &s);
    tdbf_close(f);

    /* what it saved loads (it may have grown past the fuzzing cap) */
    int rc = tdbf_load_buffer(&f, s.buf, s.len, NULL);
    if (rc != TDBF_OK)
        fail("a filter saved after adds does not load", rc, (long long)s.len);
    tdbf_close(f);
    free(s.buf);
    return 0;
}
