/*
 * test_codec.c — the serialized form (src/lib/api/codec.c, docs/format.md).
 *
 * Every design that can be saved round-trips: after load, its stats, its
 * answers and its later behaviour equal the original's.  And the loader
 * survives what the world sends it: truncation at every byte, random bit
 * flips, a wrong version, and fields made absurd with the checksum fixed
 * up (so the field checks, not the checksum, must catch them).
 */
#define _POSIX_C_SOURCE 200809L
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "stream.h"

#define SEC UINT64_C(1000000000)

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* ---- the designs under test ---------------------------------------------- */

enum { MAX_CASES = 26 };

typedef struct design_case {
    const char *name;
    tdbf_config cfg;
    int timed;          /* time window: keys get timestamps */
} design_case;

static size_t make_cases(design_case *cases)
{
    size_t n = 0;
    tdbf_config cfg;

    tdbf_config_init(&cfg);
    cfg.design = TDBF_APBF;
    cfg.seed = 101;
    cfg.window_items = 5000;
    cases[n++] = (design_case){"apbf", cfg, 0};
    cfg.k = 4;
    cfg.l = 3;
    cfg.window_items = 777;   /* m not a multiple of 64: tail bits */
    cases[n++] = (design_case){"apbf k=4 l=3", cfg, 0};

    tdbf_config_init(&cfg);
    cfg.seed = 102;
    cfg.design = TDBF_BLOOM;
    cfg.window_items = 3000;
    cases[n++] = (design_case){"bloom", cfg, 0};
    cfg.block_bits = TDBF_BLOCK_LINE;
    cases[n++] = (design_case){"blocked bloom", cfg, 0};

    tdbf_config_init(&cfg);
    cfg.seed = 103;
    cfg.design = TDBF_APBBF;
    cfg.window_items = 5000;
    cases[n++] = (design_case){"apbbf 512", cfg, 0};
    cfg.block_bits = TDBF_BLOCK_WORD;
    cases[n++] = (design_case){"apbbf 64", cfg, 0};

    tdbf_config_init(&cfg);
    cfg.seed = 113;
    cfg.design = TDBF_APBF_LINE;
    cfg.window_items = 5000;
    cases[n++] = (design_case){"apbf-line", cfg, 0};
    cfg.block_bits = 512;          /* 64-byte units, mid-sweep at every size */
    cfg.k = 4;
    cfg.l = 11;
    cfg.block_hashes = 2;
    cases[n++] = (design_case){"apbf-line 512 (4,11,2)", cfg, 0};

    /* 20 000 inserts at 20 per ms against 500 per 2 s: rings grow,
     * retire and age out, some mid-sweep at every size. */
    tdbf_config_init(&cfg);
    cfg.seed = 114;
    cfg.design = TDBF_TLBF_LINE;
    cfg.window_ns = 2 * SEC;
    cfg.capacity = 500;
    cases[n++] = (design_case){"tlbf-line", cfg, 1};
    cfg.block_bits = 512;
    cfg.capacity = 5000;
    cases[n++] = (design_case){"tlbf-line 512", cfg, 1};

    tdbf_config_init(&cfg);
    cfg.seed = 104;
    cfg.design = TDBF_TLBF;
    cfg.window_ns = 10 * SEC;
    cfg.capacity = 2000;
    cases[n++] = (design_case){"tlbf", cfg, 1};

    tdbf_config_init(&cfg);
    cfg.seed = 105;
    cfg.design = TDBF_EXACT;
    cfg.window_items = 1000;
    cases[n++] = (design_case){"exact count", cfg, 0};
    cfg.window_items = 0;
    cfg.window_ns = 5 * SEC;
    cases[n++] = (design_case){"exact time", cfg, 1};

    /* 20 000 inserts at 1000/s run the clock through many sweeps and
     * idle-free ticks; 8-bit cells with d = 4 leave a shorter lap. */
    tdbf_config_init(&cfg);
    cfg.seed = 106;
    cfg.design = TDBF_CLOCK;
    cfg.window_ns = 2 * SEC;
    cfg.capacity = 1000;
    cases[n++] = (design_case){"clock", cfg, 1};
    cfg.cell_bits = 8;
    cfg.resolution = 4;
    cfg.capacity = 300;
    cases[n++] = (design_case){"clock 8-bit d=4", cfg, 1};

    /* The time window runs at 10x its capacity: the ring grows to its cap
     * of 12 filters and counts cap hits. */
    tdbf_config_init(&cfg);
    cfg.seed = 107;
    cfg.design = TDBF_ROTATING;
    cfg.window_items = 2000;
    cases[n++] = (design_case){"rotating count", cfg, 0};
    cfg.window_items = 0;
    cfg.window_ns = 5 * SEC;
    cfg.capacity = 500;
    cfg.max_slices = 12;
    cases[n++] = (design_case){"rotating time", cfg, 1};

    tdbf_config_init(&cfg);
    cfg.seed = 108;
    cfg.design = TDBF_FPDECAY;
    cfg.window_items = 500;
    cases[n++] = (design_case){"fpdecay", cfg, 0};
    cfg.fingerprint_bits = 16;
    cfg.window_items = 301;
    cases[n++] = (design_case){"fpdecay b=16", cfg, 0};

    tdbf_config_init(&cfg);
    cfg.seed = 109;
    cfg.design = TDBF_STABLE;
    cfg.window_items = 1000;
    cases[n++] = (design_case){"stable", cfg, 0};
    cfg.cell_max_bits = 3;   /* 21 cells a word, the top bit idle */
    cfg.window_items = 500;
    cases[n++] = (design_case){"stable d=3", cfg, 0};

    /* Narrow timers make T_+ wrap many times in 20 000 adds (11 bits:
     * every 2047; 5 bits with B = 50: every 1550), and cells straddle
     * words. */
    tdbf_config_init(&cfg);
    cfg.seed = 110;
    cfg.design = TDBF_TBF;
    cfg.window_items = 1000;
    cases[n++] = (design_case){"tbf", cfg, 0};
    cfg.timer_bits = 11;
    cases[n++] = (design_case){"tbf 11-bit", cfg, 0};

    tdbf_config_init(&cfg);
    cfg.seed = 111;
    cfg.design = TDBF_BTBF;
    cfg.window_items = 5000;
    cases[n++] = (design_case){"btbf", cfg, 0};
    cfg.window_items = 1000;
    cfg.k = 3;
    cfg.timer_bits = 5;
    cfg.timer_block = 50;
    cases[n++] = (design_case){"btbf k=3 5-bit B=50", cfg, 0};
    assert_true(n <= MAX_CASES);
    return n;
}

/* Insert `count` keys starting at `first`; time advances 1 ms per key
 * (bursts of 50 at one timestamp) for timed designs. */
static void feed(tdbf *f, const design_case *c, uint64_t first, uint64_t count,
                 uint64_t *now, uint8_t *answers)
{
    uint8_t key[DRV_KEY_MAX];
    for (uint64_t i = 0; i < count; i++) {
        if (c->timed && (first + i) % 50 == 0)
            *now += 50 * SEC / 1000;
        size_t len = drv_key(key, DRV_SPACE_INSERT, 7, (first + i) % 4000);
        int rc = tdbf_add(f, key, len, *now);
        if (rc < 0)
            fail_msg("%s: add %d", c->name, rc);
        if (answers)
            answers[i] = (uint8_t)rc;
    }
}

static void probe(const tdbf *f, uint64_t now, uint8_t *answers, uint64_t count)
{
    uint8_t key[DRV_KEY_MAX];
    for (uint64_t i = 0; i < count; i++) {
        size_t len = drv_key(key, (uint8_t)(i % 2), 7, i % 6000);
        answers[i] = (uint8_t)tdbf_contains(f, key, len, now);
    }
}

static int saveable(const design_case *c)
{
    tdbf *f = drv_open(&c->cfg);
    byte_sink s = {NULL, 0, 0, -1};
    int rc = tdbf_save(f, byte_sink_write, &s);
    free(s.data);
    tdbf_close(f);
    return rc == TDBF_OK;
}

/* ---- round trips ------------------------------------------------------- */

static void round_trip(const design_case *c, uint64_t inserts)
{
    enum { PROBES = 12000, MORE = 3000 };
    static uint8_t before[PROBES], after[PROBES], more_a[MORE], more_b[MORE];
    uint64_t now = 1000 * SEC;
    tdbf *f = drv_open(&c->cfg);
    feed(f, c, 0, inserts, &now, NULL);
    byte_sink s = save_bytes(f);

    tdbf *g = NULL;
    CHECK_RC(tdbf_load_buffer(&g, s.data, s.len, NULL), TDBF_OK);
    tdbf_stats sf, sg;
    CHECK_RC(tdbf_get_stats(f, &sf), TDBF_OK);
    CHECK_RC(tdbf_get_stats(g, &sg), TDBF_OK);
    if (memcmp(&sf, &sg, sizeof sf) != 0)
        fail_msg("%s after %llu inserts: stats differ after load (memory %llu vs %llu, "
                 "items %llu vs %llu, est %.9g vs %.9g)", c->name,
                 (unsigned long long)inserts, (unsigned long long)sf.memory_bytes,
                 (unsigned long long)sg.memory_bytes, (unsigned long long)sf.items,
                 (unsigned long long)sg.items, sf.error_estimated, sg.error_estimated);
    probe(f, now, before, PROBES);
    probe(g, now, after, PROBES);
    assert_memory_equal(before, after, PROBES);

    /* Later behaviour: the same adds give the same answers. */
    uint64_t now_g = now;
    feed(f, c, inserts, MORE, &now, more_a);
    feed(g, c, inserts, MORE, &now_g, more_b);
    assert_memory_equal(more_a, more_b, MORE);
    probe(f, now, before, PROBES);
    probe(g, now, after, PROBES);
    assert_memory_equal(before, after, PROBES);

    /* Saving the loaded filter gives the same bytes... after the same adds. */
    byte_sink s2 = save_bytes(g);
    byte_sink s1 = save_bytes(f);
    CHECK_U64_EQ(s1.len, s2.len);
    assert_memory_equal(s1.data, s2.data, s1.len);
    free(s.data);
    free(s1.data);
    free(s2.data);
    tdbf_close(f);
    tdbf_close(g);
}

static void test_round_trip_every_design(void **state)
{
    (void)state;
    design_case cases[MAX_CASES];
    size_t n = make_cases(cases);
    for (size_t i = 0; i < n; i++) {
        if (!saveable(&cases[i]))
            fail_msg("%s cannot be saved: every design has a file format", cases[i].name);
        const uint64_t sizes[] = {0, 1, 999, 20000};
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
            round_trip(&cases[i], sizes[j]);
        print_message("  %s: round trip OK at 0, 1, 999, 20000 inserts\n", cases[i].name);
    }
}

/* ---- damaged input ------------------------------------------------------- */

static int load_rc(const byte_sink *s, size_t len)
{
    tdbf *g = (tdbf *)&g;   /* must be reset to NULL on failure */
    int rc = tdbf_load_buffer(&g, s->data, len, NULL);
    if (rc == TDBF_OK)
        tdbf_close(g);
    else
        assert_null(g);
    return rc;
}

static void test_truncation_at_every_byte(void **state)
{
    (void)state;
    design_case cases[MAX_CASES];
    size_t n = make_cases(cases);
    for (size_t i = 0; i < n; i++) {
        tdbf_config cfg = cases[i].cfg;
        uint64_t now = SEC;
        tdbf *f = drv_open(&cfg);
        feed(f, &cases[i], 0, 300, &now, NULL);
        byte_sink s = save_bytes(f);
        /* Every length of a file of up to `lengths` bytes, else that
         * many evenly spaced (fewer in small builds: sanitizers, qemu). */
        size_t lengths = DRV_PICK(20000, 2000);
        size_t step = s.len > lengths ? s.len / lengths + 1 : 1;
        for (size_t len = 0; len < s.len; len += step) {
            int rc = load_rc(&s, len);
            if (rc != TDBF_ECORRUPT)
                fail_msg("%s: %zu of %zu bytes loaded with %d (%s)", cases[i].name, len,
                         s.len, rc, tdbf_strerror(rc));
        }
        /* And one byte too many. */
        unsigned char *longer = malloc(s.len + 1);
        assert_non_null(longer);
        memcpy(longer, s.data, s.len);
        longer[s.len] = 0;
        tdbf *g = NULL;
        CHECK_RC(tdbf_load_buffer(&g, longer, s.len + 1, NULL), TDBF_ECORRUPT);
        print_message("  %s: every truncation of %zu bytes rejected\n", cases[i].name, s.len);
        free(longer);
        free(s.data);
        tdbf_close(f);
    }
}

static void test_bit_flips(void **state)
{
    (void)state;
    design_case cases[MAX_CASES];
    size_t n = make_cases(cases);
    uint64_t rng = 99;
    for (size_t i = 0; i < n; i++) {
        if (!saveable(&cases[i]))
            continue;
        uint64_t now = SEC;
        tdbf *f = drv_open(&cases[i].cfg);
        feed(f, &cases[i], 0, 500, &now, NULL);
        byte_sink s = save_bytes(f);
        for (int trial = 0; trial < DRV_PICK(2000, 500); trial++) {
            size_t at = (size_t)drv_below(&rng, s.len);
            unsigned bit = (unsigned)drv_below(&rng, 8);
            s.data[at] ^= (unsigned char)(1u << bit);
            int rc = load_rc(&s, s.len);
            s.data[at] ^= (unsigned char)(1u << bit);
            if (rc == TDBF_OK)
                fail_msg("%s: flip of bit %u at byte %zu was not detected", cases[i].name, bit, at);
        }
        CHECK_RC(load_rc(&s, s.len), TDBF_OK);
        free(s.data);
        tdbf_close(f);
    }
}

/* Header fields made absurd, checksum fixed up: the checks catch them. */
static void test_absurd_fields(void **state)
{
    (void)state;
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_APBF;
    cfg.window_items = 2000;
    cfg.k = 5;
    cfg.l = 7;
    cfg.seed = 5;
    tdbf *f = drv_open(&cfg);
    uint64_t now = 0;
    design_case c = {"apbf", cfg, 0};
    feed(f, &c, 0, 1000, &now, NULL);
    byte_sink s = save_bytes(f);
    unsigned char *orig = malloc(s.len);
    assert_non_null(orig);
    memcpy(orig, s.data, s.len);

    static const struct {
        size_t offset;
        int bytes;
        uint64_t value;
        int want;
        const char *what;
    } edits[] = {
        {0, 1, 'x', TDBF_ECORRUPT, "magic"},
        {8, 4, 2, TDBF_EVERSION, "format version 2"},
        {8, 4, 0, TDBF_EVERSION, "format version 0"},
        {12, 4, 99, TDBF_ECORRUPT, "design 99"},
        {16, 8, 0, TDBF_ECORRUPT, "seed 0"},
        {40, 8, 0, TDBF_ECORRUPT, "error 0.0"},
        {40, 8, UINT64_C(0x3ff0000000000000), TDBF_ECORRUPT, "error 1.0"},
        {40, 8, UINT64_C(0x7ff8000000000000), TDBF_ECORRUPT, "error NaN"},
        {48, 8, UINT64_MAX, TDBF_ETOOBIG, "payload 2^64-1"},
        {48, 8, UINT64_C(1) << 40, TDBF_ETOOBIG, "payload 1 TiB"},
        {48, 8, 7, TDBF_ECORRUPT, "payload too short"},
        {56, 4, 0, TDBF_ECORRUPT, "k = 0"},
        {56, 4, 1000, TDBF_ECORRUPT, "k = 1000"},
        {60, 4, 100000, TDBF_ECORRUPT, "l = 100000"},
        {64, 8, UINT64_C(1) << 60, TDBF_ECORRUPT, "m = 2^60"},
        {64, 8, 1, TDBF_ECORRUPT, "m = 1 (g mismatch, length mismatch)"},
        {72, 8, 12345, TDBF_ECORRUPT, "g inconsistent with m"},
        {80, 8, UINT64_MAX, TDBF_ECORRUPT, "fill > g"},
        {96, 4, 12, TDBF_ECORRUPT, "base = k + l"},
        {100, 4, 1, TDBF_ECORRUPT, "reserved"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        memcpy(s.data, orig, s.len);
        put_le(s.data + edits[i].offset, edits[i].value, edits[i].bytes);
        reseal_checksum(&s);
        int rc = load_rc(&s, s.len);
        if (rc != edits[i].want)
            fail_msg("%s: load returned %d (%s), expected %d (%s)", edits[i].what, rc,
                     tdbf_strerror(rc), edits[i].want, tdbf_strerror(edits[i].want));
    }
    /* A set bit past m in a slice's last word. */
    memcpy(s.data, orig, s.len);
    tdbf_stats st;
    CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
    assert_true(st.slice_bits % 64 != 0);
    size_t words = (size_t)(st.slice_bits + 63) / 64;
    s.data[104 + 8 * (words - 1) + 7] |= 0x80;
    reseal_checksum(&s);
    CHECK_RC(load_rc(&s, s.len), TDBF_ECORRUPT);

    /* A small memory cap refuses a filter that would fit the default. */
    memcpy(s.data, orig, s.len);
    tdbf_load_options opts = {.max_memory = 256, .allocator = NULL};
    tdbf *g = NULL;
    CHECK_RC(tdbf_load_buffer(&g, s.data, s.len, &opts), TDBF_ETOOBIG);
    assert_null(g);
    free(orig);
    free(s.data);
    tdbf_close(f);
}

/* Payload fields of the other designs made absurd, checksum fixed up.
 * Offsets are into the file (PAYLOAD + the payload offset of
 * docs/format.md), or from its end if negative; a value of RELATIVE + d
 * means the saved value plus d, HEADER_NOW the header's now. */
#define PAYLOAD 56
#define RELATIVE (UINT64_C(1) << 63)
#define HEADER_NOW (UINT64_MAX - 1)

typedef struct field_edit {
    long at;
    int bytes;
    uint64_t value;
    const char *what;
} field_edit;

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static const design_case *find_case(const design_case *cases, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(cases[i].name, name) == 0)
            return &cases[i];
    fail_msg("no case %s", name);
    return NULL;
}

/* Each edit alone must give TDBF_ECORRUPT; the unedited bytes load, and
 * not under a 1 KiB memory cap. */
static void check_field_edits(const design_case *c, uint64_t inserts, const field_edit *edits,
                              size_t n)
{
    uint64_t now = SEC;
    tdbf *f = drv_open(&c->cfg);
    feed(f, c, 0, inserts, &now, NULL);
    byte_sink s = save_bytes(f);
    unsigned char *orig = malloc(s.len);
    assert_non_null(orig);
    memcpy(orig, s.data, s.len);
    CHECK_RC(load_rc(&s, s.len), TDBF_OK);
    for (size_t i = 0; i < n; i++) {
        memcpy(s.data, orig, s.len);
        size_t at = edits[i].at < 0 ? s.len - (size_t)-edits[i].at : (size_t)edits[i].at;
        assert_true(at >= PAYLOAD && at + (size_t)edits[i].bytes <= s.len - 8);
        unsigned char *p = s.data + at;
        uint64_t value = edits[i].value;
        if (value == HEADER_NOW)
            value = get_le(s.data + 32, 8);
        else if (value & RELATIVE)
            value = get_le(p, edits[i].bytes) + (value & ~RELATIVE);
        put_le(p, value, edits[i].bytes);
        reseal_checksum(&s);
        int rc = load_rc(&s, s.len);
        if (rc != TDBF_ECORRUPT)
            fail_msg("%s, %s: load returned %d (%s)", c->name, edits[i].what, rc,
                     tdbf_strerror(rc));
    }
    memcpy(s.data, orig, s.len);
    tdbf_load_options opts = {.max_memory = 1024, .allocator = NULL};
    tdbf *g = NULL;
    CHECK_RC(tdbf_load_buffer(&g, s.data, s.len, &opts), TDBF_ETOOBIG);
    assert_null(g);
    free(orig);
    free(s.data);
    tdbf_close(f);
}

#define CHECK_EDITS(c, inserts, edits) \
    check_field_edits(c, inserts, edits, sizeof edits / sizeof edits[0])

static void test_absurd_design_fields(void **state)
{
    (void)state;
    design_case cases[MAX_CASES];
    size_t n = make_cases(cases);
    const uint64_t huge = UINT64_C(1) << 60;

    /* CLOCK: k, c, d, started, dirty, 0, words, T, C, tick, first tick,
     * sweep owed, sweep next; cells at 80.  After 300 adds at 1 ms apart
     * within one tick it is started and dirty. */
    const field_edit clock_edits[] = {
        {PAYLOAD + 0, 4, 0, "k = 0"},
        {PAYLOAD + 0, 4, 65, "k = 65"},
        {PAYLOAD + 4, 4, 3, "3-bit cells"},
        {PAYLOAD + 8, 4, 0, "d = 0"},
        {PAYLOAD + 8, 4, 14, "d = 14 > P - 2"},
        {PAYLOAD + 8, 4, UINT32_MAX, "d = 2^32 - 1"},
        {PAYLOAD + 12, 4, 2, "started = 2"},
        {PAYLOAD + 12, 4, 0, "not started, yet a tick"},
        {PAYLOAD + 16, 4, 2, "dirty = 2"},
        {PAYLOAD + 16, 4, 0, "clean, yet cells set"},
        {PAYLOAD + 20, 4, 1, "reserved"},
        {PAYLOAD + 24, 8, RELATIVE + 1, "words + 1"},
        {PAYLOAD + 24, 8, huge, "words = 2^60"},
        {PAYLOAD + 24, 8, 0, "words = 0"},
        {PAYLOAD + 32, 8, 0, "T = 0"},
        {PAYLOAD + 40, 8, 0, "C = 0"},
        {PAYLOAD + 48, 8, RELATIVE + 1, "tick after now"},
        {PAYLOAD + 56, 8, RELATIVE + 1, "first tick after tick"},
        {PAYLOAD + 64, 8, huge, "sweep owed > share"},
        {PAYLOAD + 72, 8, RELATIVE + 1000000, "sweep next past the words"},
    };
    CHECK_EDITS(find_case(cases, n, "clock"), 300, clock_edits);

    /* ROTATING: N, k, max filters, L, m, C, T, rotations, cap hits,
     * max_memory; records of 32 bytes at 64 (count, limit, start, stamp).
     * The count window's records all have stamp = now; the time window
     * after 999 adds has grown to 8 filters, no cap hit yet. */
    const field_edit rotating_count_edits[] = {
        {PAYLOAD + 0, 4, 0, "N = 0"},
        {PAYLOAD + 0, 4, 257, "N = 257"},
        {PAYLOAD + 0, 4, 5, "N = 5: L = N + 1 no longer"},
        {PAYLOAD + 4, 4, 0, "k = 0"},
        {PAYLOAD + 8, 4, 6, "count window, max filters > N + 1"},
        {PAYLOAD + 12, 4, 6, "count window, L > N + 1"},
        {PAYLOAD + 16, 8, RELATIVE + 64, "m + 64: length"},
        {PAYLOAD + 16, 8, RELATIVE + 1, "m not whole words"},
        {PAYLOAD + 16, 8, huge, "m = 2^60"},
        {PAYLOAD + 24, 8, 0, "C = 0"},
        {PAYLOAD + 48, 8, 1, "count window with a cap hit"},
        {PAYLOAD + 56, 8, 0, "max_memory = 0"},
        {PAYLOAD + 64, 8, UINT64_MAX, "count > limit"},
        {PAYLOAD + 72, 8, RELATIVE + 1, "limit is not g"},
        {PAYLOAD + 80, 8, huge, "start after stamp"},
        {PAYLOAD + 88, 8, huge, "stamp after now"},
    };
    CHECK_EDITS(find_case(cases, n, "rotating count"), 300, rotating_count_edits);
    const field_edit rotating_time_edits[] = {
        {PAYLOAD + 8, 4, 4097, "max filters > 4096"},
        {PAYLOAD + 8, 4, 4, "max filters < N + 1"},
        {PAYLOAD + 12, 4, 4, "L < N + 1"},
        {PAYLOAD + 12, 4, 13, "L > max filters"},
        {PAYLOAD + 32, 8, 0, "T = 0 (a count window of more filters)"},
        {PAYLOAD + 40, 8, 0, "rotations < L - (N + 1)"},
        {PAYLOAD + 72, 8, RELATIVE + 1, "limit not whole shares"},
        {PAYLOAD + 72, 8, 0, "limit 0"},
        {PAYLOAD + 72 + 32, 8, 1000000, "limit needs more cap hits"},
        {PAYLOAD + 64 + 7 * 32 + 24, 8, HEADER_NOW, "oldest stamp grows with age"},
    };
    CHECK_EDITS(find_case(cases, n, "rotating time"), 999, rotating_time_edits);

    /* FPDECAY: n, b, s, window; cells at 24, padded to 8. */
    const field_edit fpdecay_edits[] = {
        {PAYLOAD + 0, 4, 0, "n = 0"},
        {PAYLOAD + 0, 4, 65, "n = 65"},
        {PAYLOAD + 0, 4, 3, "s not a multiple of n"},
        {PAYLOAD + 4, 4, 12, "b = 12"},
        {PAYLOAD + 4, 4, 16, "b = 16: length"},
        {PAYLOAD + 8, 8, 0, "s = 0"},
        {PAYLOAD + 8, 8, RELATIVE + 8, "s + 8: length"},
        {PAYLOAD + 8, 8, huge, "s = 2^60"},
        {PAYLOAD + 16, 8, 0, "window = 0"},
        {-9, 1, 1, "padding not zero"},
    };
    CHECK_EDITS(find_case(cases, n, "fpdecay"), 300, fpdecay_edits);

    /* STABLE: K, d, m, P, window, generator; words at 40. */
    const field_edit stable_edits[] = {
        {PAYLOAD + 0, 4, 0, "K = 0"},
        {PAYLOAD + 0, 4, 65, "K = 65"},
        {PAYLOAD + 0, 4, 7, "m not a multiple of K"},
        {PAYLOAD + 4, 4, 0, "d = 0"},
        {PAYLOAD + 4, 4, 9, "d = 9"},
        {PAYLOAD + 4, 4, 4, "d = 4: length"},
        {PAYLOAD + 8, 8, RELATIVE + 126, "m + 6 words of cells: length"},
        {PAYLOAD + 8, 8, huge, "m = 2^60"},
        {PAYLOAD + 8, 8, 6, "m < 2K"},
        {PAYLOAD + 16, 8, 0, "P = 0"},
        {PAYLOAD + 16, 8, huge, "P > m"},
        {PAYLOAD + 24, 8, 0, "window = 0"},
        {PAYLOAD + 40 + 7, 1, 0x80, "idle top bit of a word"},
        {-10, 1, 1, "a cell slot past m in the last word"},
    };
    CHECK_EDITS(find_case(cases, n, "stable d=3"), 300, stable_edits);
}

/* ---- files and errors ---------------------------------------------------- */

static void test_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/tdbf-codec-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/filter.tdbf", dir);

    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.window_items = 10000;
    cfg.seed = 77;
    tdbf *f = drv_open(&cfg);
    CHECK_RC(tdbf_add(f, "hello", 5, 0), 0);
    CHECK_RC(tdbf_save_file(f, path), TDBF_OK);
    /* Overwrite in place: still atomic, no temp files left behind. */
    CHECK_RC(tdbf_add(f, "world", 5, 0), 0);
    CHECK_RC(tdbf_save_file(f, path), TDBF_OK);
    tdbf *g = NULL;
    CHECK_RC(tdbf_load_file(&g, path, NULL), TDBF_OK);
    assert_int_equal(tdbf_contains(g, "hello", 5, 0), 1);
    assert_int_equal(tdbf_contains(g, "world", 5, 0), 1);
    tdbf_close(g);

    char cmd[512];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 1", dir);
    assert_int_equal(system(cmd), 0);

    CHECK_RC(tdbf_load_file(&g, "/nonexistent/dir/x.tdbf", NULL), TDBF_EIO);
    assert_null(g);
    CHECK_RC(tdbf_save_file(f, "/nonexistent/dir/x.tdbf"), TDBF_EIO);
    CHECK_RC(tdbf_save_file(NULL, path), TDBF_EINVAL);
    CHECK_RC(tdbf_load_file(NULL, path, NULL), TDBF_EINVAL);

    /* A failing sink is an I/O error, at every write. */
    for (long fail = 0; fail < 12; fail++) {
        byte_sink s = {NULL, 0, 0, fail};
        CHECK_RC(tdbf_save(f, byte_sink_write, &s), TDBF_EIO);
        free(s.data);
    }
    CHECK_RC(tdbf_save(f, NULL, NULL), TDBF_EINVAL);
    CHECK_U64_EQ(tdbf_saved_size(NULL), 0);

    unlink(path);
    rmdir(dir);
    tdbf_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_design),
        cmocka_unit_test(test_truncation_at_every_byte),
        cmocka_unit_test(test_bit_flips),
        cmocka_unit_test(test_absurd_fields),
        cmocka_unit_test(test_absurd_design_fields),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests_name("codec", tests, NULL, NULL);
}
