/*
 * test_api.c — the generic API contract of tdbf.h: configuration errors and
 * their exact codes, keys as arbitrary bytes, argument checks, error names,
 * version, design names, allocator hooks (counting and failing), batch
 * calls against single calls on a twin filter, determinism of seeds, time
 * going backwards, queries that do not mutate, and what
 * tdbf_current_error answers for the designs that keep no counts.
 */
#include "stream.h"
#include "designs/ops.h" /* walk_min_bytes: batch paths at test sizes */

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A non-NULL value tdbf_open must overwrite with NULL on failure. */
static int sentinel_object;
#define SENTINEL ((tdbf *)(void *)&sentinel_object)

static tdbf_config base_config(tdbf_design design, uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.seed = seed;
    if (design == TDBF_APBF || design == TDBF_APBBF || design == TDBF_BLOOM ||
        design == TDBF_EXACT || design == TDBF_APBF_LINE)
        cfg.window_items = 1000;
    if (design == TDBF_TLBF_LINE)
        cfg.window_ns = UINT64_C(1000000000);
    return cfg;
}

static tdbf_stats get_stats(const tdbf *f)
{
    tdbf_stats st;
    memset(&st, 0, sizeof st);
    CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
    return st;
}

/* tdbf_open must fail with `want` and leave *out NULL. */
static void expect_open_fails(const tdbf_config *cfg, int want, const char *what)
{
    tdbf *f = SENTINEL;
    int rc = tdbf_open(&f, cfg);
    if (rc != want) {
        if (rc == TDBF_OK)
            tdbf_close(f);
        fail_msg("%s: tdbf_open returned %d (%s), expected %d (%s)", what, rc,
                 tdbf_strerror(rc), want, tdbf_strerror(want));
    }
    if (f != NULL)
        fail_msg("%s: tdbf_open failed but left *out = %p, not NULL", what,
                 (void *)f);
}

/* ======================================================================
 * Configuration
 * ====================================================================== */

static void test_config_defaults(void **state)
{
    tdbf_config cfg;
    (void)state;
    memset(&cfg, 0xa5, sizeof cfg);
    tdbf_config_init(&cfg);
    CHECK_U64_EQ(cfg.design, TDBF_APBF_LINE);
    CHECK_NEAR(cfg.error, 0.01, 0.0);
    CHECK_U64_EQ(cfg.window_items, 0);
    CHECK_U64_EQ(cfg.window_ns, 0);
    CHECK_U64_EQ(cfg.seed, 0);
    CHECK_U64_EQ(cfg.k, 0);
    CHECK_U64_EQ(cfg.l, 0);
    CHECK_U64_EQ(cfg.capacity, 0);
    CHECK_U64_EQ(cfg.max_memory, TDBF_DEFAULT_MAX_MEMORY);
    assert_null(cfg.allocator);
    tdbf_config_init(NULL); /* no-op */
}

static void test_open_bad_error(void **state)
{
    static const double bad_errors[] = {0.0, 1.0, -0.5, 1.5, -0.0};
    tdbf_config cfg;
    size_t i;
    (void)state;

    /* Error rate outside (0, 1). */
    for (i = 0; i < sizeof bad_errors / sizeof bad_errors[0]; i++) {
        char what[64];
        cfg = base_config(TDBF_APBF, 1);
        cfg.error = bad_errors[i];
        snprintf(what, sizeof what, "APBF error %g", bad_errors[i]);
        expect_open_fails(&cfg, TDBF_EERROR, what);
    }
    cfg = base_config(TDBF_APBF, 1);
    cfg.error = NAN;
    expect_open_fails(&cfg, TDBF_EERROR, "APBF error NaN");
    cfg.error = INFINITY;
    expect_open_fails(&cfg, TDBF_EERROR, "APBF error +inf");
}

static void test_open_bad_window(void **state)
{
    tdbf_config cfg;
    (void)state;

    cfg = base_config(TDBF_APBF, 1);
    cfg.window_items = 0;
    expect_open_fails(&cfg, TDBF_EWINDOW, "APBF without a window");
    cfg.window_ns = UINT64_C(1000000000);
    expect_open_fails(&cfg, TDBF_EWINDOW, "APBF with only window_ns");
    cfg = base_config(TDBF_BLOOM, 1);
    cfg.window_items = 0;
    expect_open_fails(&cfg, TDBF_EWINDOW, "Bloom without a capacity");
    cfg = base_config(TDBF_EXACT, 1);
    cfg.window_items = 0;
    expect_open_fails(&cfg, TDBF_EWINDOW, "EXACT without a window");
    cfg = base_config(TDBF_TLBF_LINE, 1);
    cfg.window_items = 1000;
    expect_open_fails(&cfg, TDBF_EWINDOW, "TLBF_LINE with a count window too");
    cfg.window_ns = 0;
    expect_open_fails(&cfg, TDBF_EWINDOW, "TLBF_LINE with only a count window");
}

static void test_open_bad_k_l(void **state)
{
    tdbf_config cfg;
    tdbf *f = SENTINEL;
    (void)state;

    /* Explicit k and l: both or neither, each in range. */
    cfg = base_config(TDBF_APBF, 1);
    cfg.k = 5;
    expect_open_fails(&cfg, TDBF_EPARAM, "APBF k without l");
    cfg.k = 0;
    cfg.l = 5;
    expect_open_fails(&cfg, TDBF_EPARAM, "APBF l without k");
    cfg.k = TDBF_MAX_K + 1;
    cfg.l = 3;
    expect_open_fails(&cfg, TDBF_EPARAM, "APBF k > TDBF_MAX_K");
    cfg.k = 4;
    cfg.l = TDBF_MAX_L + 1;
    expect_open_fails(&cfg, TDBF_EPARAM, "APBF l > TDBF_MAX_L");
    cfg.k = TDBF_MAX_K;
    cfg.l = 1;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_OK); /* the edge of the range */
    tdbf_close(f);
}

static void test_open_too_big(void **state)
{
    tdbf_config cfg;
    (void)state;

    cfg = base_config(TDBF_APBF, 1);
    cfg.window_items = 1000000;
    cfg.max_memory = 1000;
    expect_open_fails(&cfg, TDBF_ETOOBIG, "APBF w=10^6 under a 1000-byte cap");
    cfg = base_config(TDBF_BLOOM, 1);
    cfg.window_items = UINT64_C(1000000000000000);
    expect_open_fails(&cfg, TDBF_ETOOBIG, "Bloom capacity 10^15");
    /* Absurd: (k, l) meeting 1e-9 exist, they just need ~10^17 bytes. */
    cfg = base_config(TDBF_APBF, 1);
    cfg.window_items = UINT64_C(1000000000000000);
    cfg.error = 1e-9;
    expect_open_fails(&cfg, TDBF_ETOOBIG, "APBF w=10^15 error=1e-9");
}

static void test_open_bad_design(void **state)
{
    tdbf_config cfg;
    size_t i;
    (void)state;

    cfg = base_config(TDBF_APBF, 1);
    cfg.design = (tdbf_design)99;
    expect_open_fails(&cfg, TDBF_EDESIGN, "design 99");
    cfg.design = (tdbf_design)TDBF_DESIGN_COUNT;
    expect_open_fails(&cfg, TDBF_EDESIGN, "design TDBF_DESIGN_COUNT");
    for (i = 0; i < TDBF_DESIGN_COUNT; i++) {
        char what[64];
        if (tdbf_design_available((tdbf_design)i))
            continue;
        snprintf(what, sizeof what, "unavailable design %s",
                 tdbf_design_name((tdbf_design)i));
        cfg = base_config((tdbf_design)i, 1);
        cfg.window_items = 1000;
        expect_open_fails(&cfg, TDBF_EDESIGN, what);
        cfg.window_items = 0;
        cfg.window_ns = UINT64_C(1000000000);
        expect_open_fails(&cfg, TDBF_EDESIGN, what);
    }
}

static void test_open_null(void **state)
{
    tdbf_config cfg;
    (void)state;

    cfg = base_config(TDBF_APBF, 1);
    CHECK_RC(tdbf_open(NULL, &cfg), TDBF_EINVAL);
    expect_open_fails(NULL, TDBF_EINVAL, "cfg NULL");
}

static void test_open_each_available_design(void **state)
{
    unsigned d, available = 0;
    (void)state;
    assert_int_equal(tdbf_design_available(TDBF_APBF), 1);
    assert_int_equal(tdbf_design_available(TDBF_BLOOM), 1);
    assert_int_equal(tdbf_design_available(TDBF_EXACT), 1);
    assert_int_equal(tdbf_design_available((tdbf_design)99), 0);
    assert_int_equal(tdbf_design_available((tdbf_design)TDBF_DESIGN_COUNT), 0);
    print_message("  available designs:");
    for (d = 0; d < TDBF_DESIGN_COUNT; d++) {
        if (tdbf_design_available((tdbf_design)d)) {
            print_message(" %s", tdbf_design_name((tdbf_design)d));
            available++;
        }
    }
    print_message("\n");
    CHECK_U64_GE(available, 3);
}

/* ======================================================================
 * Keys are bytes
 * ====================================================================== */

static void check_byte_keys(tdbf_design design)
{
    tdbf_config cfg = base_config(design, 0xb17e5);
    tdbf *f = drv_open(&cfg);
    uint8_t all_bytes[256], big[10000];
    size_t i;

    /* The empty key, given as "" or as NULL. */
    CHECK_RC(tdbf_contains(f, "", 0, 0), 0);
    CHECK_RC(tdbf_add(f, "", 0, 0), 0);
    CHECK_RC(tdbf_contains(f, NULL, 0, 0), 1);
    CHECK_RC(tdbf_add(f, NULL, 0, 0), 1);

    /* NUL bytes are part of the key. */
    CHECK_RC(tdbf_add(f, "a\0b", 3, 0), 0);
    CHECK_RC(tdbf_contains(f, "a\0b", 3, 0), 1);
    CHECK_RC(tdbf_contains(f, "a\0c", 3, 0), 0);
    CHECK_RC(tdbf_contains(f, "a", 1, 0), 0);
    CHECK_RC(tdbf_contains(f, "a\0b\0", 4, 0), 0);
    CHECK_RC(tdbf_contains(f, "\0a\0b", 4, 0), 0);
    CHECK_RC(tdbf_add(f, "a", 1, 0), 0);
    CHECK_RC(tdbf_add(f, "a\0c", 3, 0), 0);
    CHECK_RC(tdbf_contains(f, "a\0c", 3, 0), 1);
    CHECK_RC(tdbf_contains(f, "\0", 1, 0), 0);
    CHECK_RC(tdbf_add(f, "\0", 1, 0), 0);
    CHECK_RC(tdbf_contains(f, "\0\0", 2, 0), 0);

    /* Every byte value, and a long key. */
    for (i = 0; i < 256; i++)
        all_bytes[i] = (uint8_t)i;
    CHECK_RC(tdbf_add(f, all_bytes, sizeof all_bytes, 0), 0);
    CHECK_RC(tdbf_contains(f, all_bytes, sizeof all_bytes, 0), 1);
    CHECK_RC(tdbf_contains(f, all_bytes, sizeof all_bytes - 1, 0), 0);
    memset(big, 0, sizeof big);
    CHECK_RC(tdbf_add(f, big, sizeof big, 0), 0);
    CHECK_RC(tdbf_contains(f, big, sizeof big, 0), 1);
    big[sizeof big - 1] = 1;
    CHECK_RC(tdbf_contains(f, big, sizeof big, 0), 0);
    tdbf_close(f);
}

static void test_keys_are_bytes(void **state)
{
    (void)state;
    check_byte_keys(TDBF_APBF);
    check_byte_keys(TDBF_BLOOM);
    check_byte_keys(TDBF_EXACT);
    check_byte_keys(TDBF_APBF_LINE);
    check_byte_keys(TDBF_TLBF_LINE);
}

/* ======================================================================
 * Argument checks
 * ====================================================================== */

static void test_null_arguments(void **state)
{
    tdbf_config cfg = base_config(TDBF_EXACT, 0xa11);
    tdbf *f = drv_open(&cfg);
    tdbf_stats st;
    const void *keys[3] = {"one", NULL, "three"};
    size_t lens[3] = {3, 2, 5};
    uint8_t results[3];
    (void)state;

    CHECK_RC(tdbf_add(NULL, "k", 1, 0), TDBF_EINVAL);
    CHECK_RC(tdbf_contains(NULL, "k", 1, 0), TDBF_EINVAL);
    CHECK_RC(tdbf_advance(NULL, 0), TDBF_EINVAL);
    CHECK_RC(tdbf_get_stats(NULL, &st), TDBF_EINVAL);
    CHECK_RC(tdbf_get_stats(f, NULL), TDBF_EINVAL);
    double error = 0.5;
    CHECK_RC(tdbf_current_error(NULL, 0, &error), TDBF_EINVAL);
    CHECK_RC(tdbf_current_error(f, 0, NULL), TDBF_EINVAL);
    CHECK_NEAR(error, 0.5, 0.0);
    CHECK_RC(tdbf_add(f, NULL, 1, 0), TDBF_EINVAL);
    CHECK_RC(tdbf_contains(f, NULL, 1, 0), TDBF_EINVAL);
    CHECK_U64_EQ(get_stats(f).items, 0);

    /* Batches: invalid arguments insert nothing, not even the valid keys
     * before the bad one. */
    CHECK_RC(tdbf_add_batch(NULL, 3, keys, lens, 0, results), TDBF_EINVAL);
    CHECK_RC(tdbf_add_batch(f, 3, NULL, lens, 0, results), TDBF_EINVAL);
    CHECK_RC(tdbf_add_batch(f, 3, keys, NULL, 0, results), TDBF_EINVAL);
    CHECK_RC(tdbf_add_batch(f, 3, keys, lens, 0, results), TDBF_EINVAL);
    CHECK_U64_EQ(get_stats(f).items, 0);
    CHECK_RC(tdbf_contains(f, "one", 3, 0), 0);
    CHECK_RC(tdbf_contains_batch(NULL, 3, keys, lens, 0, results), TDBF_EINVAL);
    CHECK_RC(tdbf_contains_batch(f, 3, keys, lens, 0, results), TDBF_EINVAL);
    keys[1] = "two";
    CHECK_RC(tdbf_contains_batch(f, 3, keys, lens, 0, NULL), TDBF_EINVAL);
    CHECK_RC(tdbf_contains_batch(f, 3, NULL, lens, 0, results), TDBF_EINVAL);
    CHECK_RC(tdbf_contains_batch(f, 3, keys, NULL, 0, results), TDBF_EINVAL);

    /* n = 0 is a valid empty batch. */
    CHECK_RC(tdbf_add_batch(f, 0, keys, lens, 0, results), TDBF_OK);
    CHECK_RC(tdbf_contains_batch(f, 0, keys, lens, 0, results), TDBF_OK);
    CHECK_U64_EQ(get_stats(f).items, 0);

    /* The valid batch now works, NULL results allowed. */
    CHECK_RC(tdbf_add_batch(f, 3, keys, lens, 0, NULL), TDBF_OK);
    CHECK_U64_EQ(get_stats(f).items, 3);
    memset(results, 7, sizeof results);
    CHECK_RC(tdbf_contains_batch(f, 3, keys, lens, 0, results), TDBF_OK);
    assert_int_equal(results[0], 1);
    assert_int_equal(results[1], 1);
    assert_int_equal(results[2], 1);

    tdbf_close(f);
    tdbf_close(NULL);
}

/* ======================================================================
 * Names and versions
 * ====================================================================== */

static void test_strerror(void **state)
{
    const char *names[13];
    int code, other;
    (void)state;

    for (code = 0; code >= -12; code--) {
        const char *s = tdbf_strerror(code);
        assert_non_null(s);
        if (s[0] == '\0' || strcmp(s, "unknown error") == 0)
            fail_msg("tdbf_strerror(%d) = \"%s\": the code has no name", code, s);
        for (other = 0; other > code; other--)
            if (strcmp(names[-other], s) == 0)
                fail_msg("codes %d and %d share the name \"%s\"", other, code, s);
        names[-code] = s;
    }
    assert_string_equal(tdbf_strerror(1), "unknown error");
    assert_string_equal(tdbf_strerror(-13), "unknown error");
    assert_string_equal(tdbf_strerror(12345), "unknown error");
    assert_string_equal(tdbf_strerror(INT_MIN), "unknown error");
    assert_string_equal(tdbf_strerror(INT_MAX), "unknown error");
}

static void test_version(void **state)
{
    char want[32];
    (void)state;
    CHECK_U64_EQ(tdbf_version_number(), TDBF_VERSION_NUMBER);
    assert_non_null(tdbf_version_string());
    assert_string_equal(tdbf_version_string(), TDBF_VERSION_STRING);
    snprintf(want, sizeof want, "%d.%d.%d", TDBF_VERSION_MAJOR,
             TDBF_VERSION_MINOR, TDBF_VERSION_PATCH);
    assert_string_equal(TDBF_VERSION_STRING, want);
    CHECK_U64_EQ(TDBF_VERSION_NUMBER, TDBF_VERSION_MAJOR * 10000 +
                                          TDBF_VERSION_MINOR * 100 +
                                          TDBF_VERSION_PATCH);
}

static void test_design_names(void **state)
{
    unsigned d, e;
    tdbf_design parsed;
    (void)state;

    for (d = 0; d < TDBF_DESIGN_COUNT; d++) {
        const char *name = tdbf_design_name((tdbf_design)d);
        char upper[64];
        size_t i;
        if (name == NULL || name[0] == '\0')
            fail_msg("design %u has no name", d);
        if (strlen(name) >= sizeof upper)
            fail_msg("design %u name too long: %s", d, name);
        for (i = 0; name[i]; i++) {
            if (isupper((unsigned char)name[i]) || isspace((unsigned char)name[i]))
                fail_msg("design %u name \"%s\" is not lower-case", d, name);
            upper[i] = (char)toupper((unsigned char)name[i]);
        }
        upper[i] = '\0';
        parsed = (tdbf_design)77;
        CHECK_RC(tdbf_design_parse(name, &parsed), TDBF_OK);
        CHECK_U64_EQ(parsed, d);
        parsed = (tdbf_design)77;
        CHECK_RC(tdbf_design_parse(upper, &parsed), TDBF_OK);
        CHECK_U64_EQ(parsed, d);
        for (e = 0; e < d; e++)
            if (strcmp(tdbf_design_name((tdbf_design)e), name) == 0)
                fail_msg("designs %u and %u share the name %s", e, d, name);
    }
    assert_string_equal(tdbf_design_name(TDBF_APBF), "apbf");
    CHECK_RC(tdbf_design_parse("bloom", &parsed), TDBF_OK);
    CHECK_U64_EQ(parsed, TDBF_BLOOM);
    CHECK_RC(tdbf_design_parse("Exact", &parsed), TDBF_OK);
    CHECK_U64_EQ(parsed, TDBF_EXACT);
    assert_null(tdbf_design_name((tdbf_design)TDBF_DESIGN_COUNT));
    assert_null(tdbf_design_name((tdbf_design)99));
    CHECK_RC(tdbf_design_parse("nonsense", &parsed), TDBF_EDESIGN);
    CHECK_RC(tdbf_design_parse("", &parsed), TDBF_EDESIGN);
    CHECK_RC(tdbf_design_parse("apbf ", &parsed), TDBF_EDESIGN);
    CHECK_RC(tdbf_design_parse("apb", &parsed), TDBF_EDESIGN);
    if (tdbf_design_parse(NULL, &parsed) >= 0)
        fail_msg("tdbf_design_parse(NULL) succeeded");
}

/* ======================================================================
 * Allocator hooks
 * ====================================================================== */

/* Every block carries its size in a 16-byte header (keeps 16-byte
 * alignment), so the counter knows the bytes outstanding. */
#define HEADER 16

typedef struct counting {
    size_t    calls;       /* alloc + calloc calls, failed ones included */
    size_t    allocs;      /* successful ones */
    size_t    frees;       /* free of a non-NULL pointer */
    long long outstanding; /* bytes allocated and not yet freed */
    size_t    fail_from;   /* calls numbered >= fail_from fail (SIZE_MAX: none) */
    size_t    fail_only;   /* only this call fails (SIZE_MAX: none) */
} counting;

static void counting_reset(counting *c)
{
    memset(c, 0, sizeof *c);
    c->fail_from = SIZE_MAX;
    c->fail_only = SIZE_MAX;
}

static void *counting_get(counting *c, size_t size, int zero)
{
    size_t call = c->calls++;
    unsigned char *block;
    if (call >= c->fail_from || call == c->fail_only)
        return NULL;
    if (size > SIZE_MAX - HEADER)
        return NULL;
    block = zero ? calloc(1, size + HEADER) : malloc(size + HEADER);
    if (block == NULL)
        return NULL;
    memcpy(block, &size, sizeof size);
    c->allocs++;
    c->outstanding += (long long)size;
    return block + HEADER;
}

static void *counting_alloc(void *opaque, size_t size)
{
    return counting_get(opaque, size, 0);
}

static void *counting_calloc(void *opaque, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        ((counting *)opaque)->calls++;
        return NULL;
    }
    return counting_get(opaque, count * size, 1);
}

static void counting_free(void *opaque, void *ptr)
{
    counting *c = opaque;
    unsigned char *block;
    size_t size;
    if (ptr == NULL)
        return;
    block = (unsigned char *)ptr - HEADER;
    memcpy(&size, block, sizeof size);
    c->frees++;
    c->outstanding -= (long long)size;
    free(block);
}

static tdbf_allocator counting_allocator(counting *c)
{
    tdbf_allocator a;
    a.alloc = counting_alloc;
    a.calloc = counting_calloc;
    a.free = counting_free;
    a.opaque = c;
    return a;
}

static void expect_all_freed(const counting *c, const char *what)
{
    if (c->allocs != c->frees || c->outstanding != 0)
        fail_msg("%s: %zu allocations, %zu frees, %lld bytes outstanding", what,
                 c->allocs, c->frees, c->outstanding);
}

/* The configurations the allocator tests cycle through. */
static tdbf_config alloc_config(int which)
{
    tdbf_config cfg;
    switch (which) {
    case 0:
        cfg = base_config(TDBF_APBF, 0xa10c);
        break;
    case 1:
        cfg = base_config(TDBF_BLOOM, 0xa10c);
        break;
    case 2:
        cfg = base_config(TDBF_EXACT, 0xa10c);
        break;
    case 3:   /* rings opened and freed while adding */
        cfg = base_config(TDBF_TLBF_LINE, 0xa10c);
        cfg.window_ns = UINT64_C(100000000);
        cfg.capacity = 200;
        break;
    default:
        cfg = base_config(TDBF_EXACT, 0xa10c);
        cfg.window_items = 0;
        cfg.window_ns = UINT64_C(1000000000);
        break;
    }
    return cfg;
}
#define ALLOC_CONFIGS 5

static void test_allocator_counts(void **state)
{
    int which;
    (void)state;

    for (which = 0; which < ALLOC_CONFIGS; which++) {
        counting c;
        tdbf_allocator a;
        tdbf_config cfg = alloc_config(which);
        const char *name = tdbf_design_name(cfg.design);
        tdbf *f;
        tdbf_stats st;
        size_t allocs_after_open;
        uint8_t key[DRV_KEY_MAX];
        uint64_t i;

        counting_reset(&c);
        a = counting_allocator(&c);
        cfg.allocator = &a;
        f = drv_open(&cfg);
        if (c.allocs == 0)
            fail_msg("%s: tdbf_open allocated nothing through cfg.allocator",
                     name);
        st = get_stats(f);
        print_message("  %s: %zu allocations, %lld bytes; stats.memory_bytes "
                      "%llu\n", name, c.allocs, c.outstanding,
                      (unsigned long long)st.memory_bytes);
        /* "bytes allocated by the filter, all included" */
        CHECK_U64_EQ(st.memory_bytes, c.outstanding);
        allocs_after_open = c.allocs;
        for (i = 0; i < 5000; i++) {
            size_t len = drv_key(key, DRV_SPACE_INSERT, 1, i % 3000);
            if (tdbf_add(f, key, len, i * 1000) < 0)
                fail_msg("%s: add failed", name);
            len = drv_key(key, DRV_SPACE_PROBE, 1, i);
            if (tdbf_contains(f, key, len, i * 1000) < 0)
                fail_msg("%s: contains failed", name);
        }
        /* tdbf.h: add/contains never allocate for APBF and Bloom. */
        if ((cfg.design == TDBF_APBF || cfg.design == TDBF_BLOOM) &&
            c.allocs != allocs_after_open)
            fail_msg("%s: add/contains allocated %zu times", name,
                     c.allocs - allocs_after_open);
        if (c.outstanding > 0)
            CHECK_U64_EQ(get_stats(f).memory_bytes, c.outstanding);
        tdbf_close(f);
        expect_all_freed(&c, name);
    }
}

static void test_allocator_failures(void **state)
{
    int which;
    (void)state;

    for (which = 0; which < ALLOC_CONFIGS; which++) {
        counting c;
        tdbf_allocator a = counting_allocator(&c);
        tdbf_config cfg = alloc_config(which);
        const char *name = tdbf_design_name(cfg.design);
        size_t needed, n;
        int mode;
        tdbf *f;

        cfg.allocator = &a;
        counting_reset(&c);
        f = drv_open(&cfg);
        needed = c.calls;
        tdbf_close(f);

        /* mode 0: every call from the n-th on fails; mode 1: only the
         * n-th fails (the next ones would succeed). */
        for (mode = 0; mode < 2; mode++) {
            for (n = 0; n < needed; n++) {
                int rc;
                counting_reset(&c);
                if (mode == 0)
                    c.fail_from = n;
                else
                    c.fail_only = n;
                f = SENTINEL;
                rc = tdbf_open(&f, &cfg);
                if (rc != TDBF_ENOMEM)
                    fail_msg("%s: allocation %zu of %zu failing (%s): "
                             "tdbf_open returned %d (%s), expected "
                             "TDBF_ENOMEM", name, n, needed,
                             mode ? "only" : "and all later", rc,
                             tdbf_strerror(rc));
                if (f != NULL)
                    fail_msg("%s: failed open left *out non-NULL", name);
                expect_all_freed(&c, name);
            }
        }
        /* With exactly enough it works. */
        counting_reset(&c);
        c.fail_from = needed;
        f = drv_open(&cfg);
        tdbf_close(f);
        expect_all_freed(&c, name);
    }
}

/* EXACT may allocate while adding: a failure must return TDBF_ENOMEM and
 * leave the filter as it was, and usable. */
static void test_allocator_failure_while_adding(void **state)
{
    counting c;
    tdbf_allocator a = counting_allocator(&c);
    tdbf_config cfg = alloc_config(2);
    tdbf *f;
    uint8_t key[DRV_KEY_MAX];
    uint64_t i, failures = 0;
    (void)state;

    cfg.window_items = 100000;
    cfg.allocator = &a;
    counting_reset(&c);
    f = drv_open(&cfg);
    for (i = 0; i < 50000; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, 2, i);
        uint64_t items_before = get_stats(f).items;
        int rc;
        /* Let every third allocation from now on fail. */
        c.fail_only = c.calls + (i % 3);
        rc = tdbf_add(f, key, len, 0);
        c.fail_only = SIZE_MAX;
        if (rc == TDBF_ENOMEM) {
            failures++;
            CHECK_U64_EQ(get_stats(f).items, items_before);
            CHECK_RC(tdbf_contains(f, key, len, 0), 0);
            rc = tdbf_add(f, key, len, 0); /* retry with memory */
        }
        CHECK_RC(rc, 0);
    }
    /* Everything added is still there. */
    for (i = 0; i < 50000; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, 2, i);
        CHECK_RC(tdbf_contains(f, key, len, 0), 1);
    }
    print_message("  exact: %llu adds failed with TDBF_ENOMEM and were retried "
                  "(%zu allocations in all)\n", (unsigned long long)failures,
                  c.allocs);
    tdbf_close(f);
    expect_all_freed(&c, "exact");
}

static void test_default_allocator(void **state)
{
    counting c, d;
    tdbf_allocator a, b, bad;
    tdbf_config cfg = base_config(TDBF_APBF, 0xdef);
    tdbf *f, *g;
    size_t allocs;
    (void)state;

    counting_reset(&c);
    counting_reset(&d);
    a = counting_allocator(&c);
    b = counting_allocator(&d);

    /* The default allocator is used when cfg.allocator is NULL. */
    CHECK_RC(tdbf_set_allocator(&a), TDBF_OK);
    f = drv_open(&cfg);
    if (c.allocs == 0)
        fail_msg("tdbf_set_allocator: open did not use the default allocator");
    /* A filter keeps the allocator it was opened with. */
    CHECK_RC(tdbf_set_allocator(&b), TDBF_OK);
    tdbf_close(f);
    expect_all_freed(&c, "filter opened under default allocator a");
    CHECK_U64_EQ(d.allocs, 0);
    CHECK_U64_EQ(d.frees, 0);

    /* A function missing: refused, and the default stays b. */
    bad = a;
    bad.alloc = NULL;
    CHECK_RC(tdbf_set_allocator(&bad), TDBF_EINVAL);
    bad = a;
    bad.calloc = NULL;
    CHECK_RC(tdbf_set_allocator(&bad), TDBF_EINVAL);
    bad = a;
    bad.free = NULL;
    CHECK_RC(tdbf_set_allocator(&bad), TDBF_EINVAL);
    allocs = c.allocs;
    f = drv_open(&cfg);
    if (d.allocs == 0 || c.allocs != allocs)
        fail_msg("after refused tdbf_set_allocator calls the default is not "
                 "the last valid one (b: %zu allocs, a: %zu new)", d.allocs,
                 c.allocs - allocs);

    /* NULL restores malloc: neither counter moves. */
    CHECK_RC(tdbf_set_allocator(NULL), TDBF_OK);
    allocs = c.allocs + d.allocs;
    g = drv_open(&cfg);
    CHECK_U64_EQ(c.allocs + d.allocs, allocs);
    tdbf_close(g);
    tdbf_close(f);
    expect_all_freed(&d, "filter opened under default allocator b");
    expect_all_freed(&c, "allocator a");
}

/* ======================================================================
 * Batch calls = single calls
 * ====================================================================== */

/* walk: hand every chunk to the design's interleaved batch walks
 * (ops->contains_many, add_many), which the library otherwise uses only
 * from TDBF_WALK_MIN_BYTES up, far above these test filters; the single
 * calls then ask for their first reads ahead (APBF, APBBF), as they do
 * from the same size up. */
static void check_batch_twin(tdbf_config cfg, uint64_t now_step, bool walk)
{
    tdbf *single, *batch, *quiet;
    uint64_t rng = 0xba7c4 ^ cfg.design, now = 0, round;
    uint8_t keys[300][DRV_KEY_MAX];
    const void *ptrs[300];
    size_t lens[300], n, i;
    uint8_t results[300];
    const char *name = tdbf_design_name(cfg.design);
    uint64_t present = 0, asked = 0;

    single = drv_open(&cfg);
    batch = drv_open(&cfg);
    quiet = drv_open(&cfg);
    if (walk)
        single->settings.walk_min_bytes = batch->settings.walk_min_bytes =
            quiet->settings.walk_min_bytes = 0;
    for (round = 0; round < 60; round++) {
        n = 1 + (size_t)drv_below(&rng, 300);
        for (i = 0; i < n; i++) {
            /* Keys from a universe of 3000, so many are re-adds; now and
             * then a key repeated from earlier in the same batch. */
            if (i > 0 && drv_below(&rng, 8) == 0) {
                size_t from = (size_t)drv_below(&rng, i);
                memcpy(keys[i], keys[from], DRV_KEY_MAX);
                lens[i] = lens[from];
            } else {
                lens[i] = drv_key(keys[i], DRV_SPACE_INSERT, 3,
                                  drv_below(&rng, 3000));
            }
            ptrs[i] = keys[i];
        }
        /* The explicit in-batch repeat: the last key again. */
        if (n >= 2) {
            memcpy(keys[n - 1], keys[0], DRV_KEY_MAX);
            lens[n - 1] = lens[0];
        }
        now += now_step;
        memset(results, 0x55, sizeof results);
        CHECK_RC(tdbf_add_batch(batch, n, ptrs, lens, now, results), TDBF_OK);
        CHECK_RC(tdbf_add_batch(quiet, n, ptrs, lens, now, NULL), TDBF_OK);
        for (i = 0; i < n; i++) {
            int want = tdbf_add(single, ptrs[i], lens[i], now);
            if (want < 0)
                fail_msg("%s: tdbf_add returned %d", name, want);
            if (results[i] != want)
                fail_msg("%s round %llu: add_batch result[%zu] = %d, single "
                         "add = %d", name, (unsigned long long)round, i,
                         results[i], want);
        }
        if (n >= 2 && results[n - 1] != 1)
            fail_msg("%s: a key repeated inside one batch was reported new",
                     name);

        /* Queries: half from the universe, half never inserted. */
        n = 200;
        for (i = 0; i < n; i++) {
            lens[i] = i % 2 ? drv_key(keys[i], DRV_SPACE_INSERT, 3,
                                      drv_below(&rng, 3000))
                            : drv_key(keys[i], DRV_SPACE_PROBE, 3,
                                      round * 1000 + i);
            ptrs[i] = keys[i];
        }
        memset(results, 0x55, sizeof results);
        CHECK_RC(tdbf_contains_batch(batch, n, ptrs, lens, now, results),
                 TDBF_OK);
        for (i = 0; i < n; i++) {
            int want = tdbf_contains(single, ptrs[i], lens[i], now);
            int quiet_answer = tdbf_contains(quiet, ptrs[i], lens[i], now);
            if (results[i] != want || quiet_answer != want)
                fail_msg("%s round %llu: contains_batch[%zu] = %d, twin "
                         "without results %d, single contains = %d", name,
                         (unsigned long long)round, i, results[i],
                         quiet_answer, want);
            present += (uint64_t)want;
            asked++;
        }
    }
    CHECK_U64_EQ(get_stats(batch).items, get_stats(single).items);
    CHECK_U64_EQ(get_stats(quiet).items, get_stats(single).items);
    print_message("  %s%s: batch == single over 60 rounds (%llu of %llu "
                  "queries present)\n", name, walk ? " (walks)" : "",
                  (unsigned long long)present,
                  (unsigned long long)asked);
    /* The comparison means something only if both answers occur. */
    if (present == 0 || present == asked)
        fail_msg("%s: degenerate batch test (%llu of %llu present)", name,
                 (unsigned long long)present, (unsigned long long)asked);
    tdbf_close(single);
    tdbf_close(batch);
    tdbf_close(quiet);
}

static void test_batch_equals_single(void **state)
{
    tdbf_config cfg;
    (void)state;
    for (int walk = 0; walk <= 1; walk++) {
        cfg = base_config(TDBF_APBF, 0x1234);
        cfg.k = 7;
        cfg.l = 5;
        check_batch_twin(cfg, 0, walk);
        cfg = base_config(TDBF_APBF, 0x1235); /* planner's choice */
        check_batch_twin(cfg, 0, walk);
        cfg = base_config(TDBF_APBBF, 0x1239);
        check_batch_twin(cfg, 0, walk);
        cfg.block_bits = 64;
        check_batch_twin(cfg, 0, walk);
        /* TLBF: shifts by count and by time inside batches, slices that
         * grow with the rate and retire, and a restart after each idle
         * window (the one add of a batch that may fail). */
        cfg = base_config(TDBF_TLBF, 0x123c);
        cfg.window_ns = 20000;
        cfg.capacity = 300;
        check_batch_twin(cfg, 1000, walk);
        cfg.capacity = 40;
        check_batch_twin(cfg, 300, walk);
        check_batch_twin(cfg, 30000, walk);
    }
    cfg = base_config(TDBF_BLOOM, 0x1236);
    cfg.window_items = 5000;
    check_batch_twin(cfg, 0, false);
    cfg = base_config(TDBF_EXACT, 0x1237);
    check_batch_twin(cfg, 0, false);
    cfg = base_config(TDBF_APBF_LINE, 0x123a);
    check_batch_twin(cfg, 0, false);
    cfg.block_bits = 512;
    check_batch_twin(cfg, 0, false);
    cfg = base_config(TDBF_EXACT, 0x1238);
    cfg.window_items = 0;
    cfg.window_ns = 20000;
    check_batch_twin(cfg, 1000, false);
    cfg = base_config(TDBF_TLBF_LINE, 0x123b);   /* rings grow, shift and retire */
    cfg.window_ns = 20000;
    cfg.capacity = 300;
    check_batch_twin(cfg, 1000, false);
}

/* ======================================================================
 * Seeds, time, read-only queries
 * ====================================================================== */

static void test_same_seed_same_answers(void **state)
{
    tdbf_config cfg = base_config(TDBF_APBF, 0x5eed);
    tdbf *a, *b, *c, *r1, *r2;
    uint8_t key[DRV_KEY_MAX];
    uint64_t i, differ = 0, hits = 0;
    (void)state;

    a = drv_open(&cfg);
    b = drv_open(&cfg);
    cfg.seed = 0x5eee;
    c = drv_open(&cfg);
    for (i = 0; i < 1000; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, 4, i);
        int ra = tdbf_add(a, key, len, 0);
        int rb = tdbf_add(b, key, len, 0);
        if (ra != rb)
            fail_msg("same seed, add #%llu: %d vs %d", (unsigned long long)i,
                     ra, rb);
        tdbf_add(c, key, len, 0);
    }
    for (i = 0; i < DRV_PICK(100000, 20000); i++) {
        size_t len = drv_key(key, DRV_SPACE_PROBE, 4, i);
        int ra = tdbf_contains(a, key, len, 0);
        int rb = tdbf_contains(b, key, len, 0);
        int rc = tdbf_contains(c, key, len, 0);
        if (ra != rb)
            fail_msg("same seed, probe #%llu: %d vs %d", (unsigned long long)i,
                     ra, rb);
        hits += (uint64_t)ra;
        differ += ra != rc;
    }
    /* Another seed gives other false positives (~1000 each here). */
    print_message("  same seed: %llu identical false positives; another seed "
                  "disagrees on %llu probes\n", (unsigned long long)hits,
                  (unsigned long long)differ);
    if (hits == 0 || differ == 0)
        fail_msg("seeds make no difference (hits %llu, differ %llu)",
                 (unsigned long long)hits, (unsigned long long)differ);
    CHECK_U64_EQ(get_stats(a).seed, 0x5eed);

    /* seed 0: random, never 0, different per filter. */
    cfg.seed = 0;
    r1 = drv_open(&cfg);
    r2 = drv_open(&cfg);
    if (get_stats(r1).seed == 0 || get_stats(r2).seed == 0)
        fail_msg("seed 0 left the seed at 0");
    if (get_stats(r1).seed == get_stats(r2).seed)
        fail_msg("two random seeds are equal: %llu",
                 (unsigned long long)get_stats(r1).seed);
    tdbf_close(r1);
    tdbf_close(r2);
    tdbf_close(a);
    tdbf_close(b);
    tdbf_close(c);
}

/* Count designs ignore time: a twin fed wild, backwards times answers
 * exactly like one fed 0, and keeps the no-false-negative property. */
static void check_time_ignored(tdbf_config cfg)
{
    tdbf *calm = drv_open(&cfg), *wild = drv_open(&cfg);
    uint64_t rng = 0x71e, i, window = get_stats(calm).window_items;
    uint8_t key[DRV_KEY_MAX];
    const char *name = tdbf_design_name(cfg.design);

    for (i = 0; i < 20000; i++) {
        uint64_t now;
        size_t len;
        int a, b;
        switch (i % 4) {
        case 0: now = UINT64_MAX - i; break;
        case 1: now = 0; break;
        case 2: now = drv_rand(&rng); break;
        default: now = UINT64_C(1000000000) * (20000 - i); break;
        }
        len = drv_key(key, DRV_SPACE_INSERT, 5, i);
        a = tdbf_add(calm, key, len, 0);
        b = tdbf_add(wild, key, len, now);
        if (a != b)
            fail_msg("%s add #%llu: %d at now=0, %d at now=%llu", name,
                     (unsigned long long)i, a, b, (unsigned long long)now);
        if (i + 1 >= window) {
            len = drv_key(key, DRV_SPACE_INSERT, 5, i + 1 - window);
            if (tdbf_contains(wild, key, len, drv_rand(&rng)) != 1)
                fail_msg("%s: key #%llu missing inside the window with "
                         "backwards time", name,
                         (unsigned long long)(i + 1 - window));
        }
        len = drv_key(key, DRV_SPACE_PROBE, 5, i);
        a = tdbf_contains(calm, key, len, 0);
        b = tdbf_contains(wild, key, len, now);
        if (a != b)
            fail_msg("%s probe #%llu: %d at now=0, %d at now=%llu", name,
                     (unsigned long long)i, a, b, (unsigned long long)now);
    }
    tdbf_close(calm);
    tdbf_close(wild);
}

static void test_time_backwards_count_designs(void **state)
{
    (void)state;
    check_time_ignored(base_config(TDBF_APBF, 0x7100));
    check_time_ignored(base_config(TDBF_EXACT, 0x7101));
    check_time_ignored(base_config(TDBF_APBF_LINE, 0x7102));
}

static void test_advance_apbf(void **state)
{
    tdbf_config cfg = base_config(TDBF_APBF, 0xadd);
    tdbf *f = drv_open(&cfg);
    uint8_t key[DRV_KEY_MAX];
    uint64_t i;
    tdbf_stats before, after;
    (void)state;

    for (i = 0; i < 1500; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, 6, i);
        tdbf_add(f, key, len, 0);
    }
    before = get_stats(f);
    CHECK_RC(tdbf_advance(f, 0), TDBF_OK);
    CHECK_RC(tdbf_advance(f, UINT64_MAX), TDBF_OK);
    CHECK_RC(tdbf_advance(f, 12345), TDBF_OK);
    after = get_stats(f);
    CHECK_U64_EQ(after.items, before.items);
    CHECK_U64_EQ(after.generations, before.generations);
    CHECK_U64_EQ(after.generation_fill, before.generation_fill);
    for (i = 500; i < 1500; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, 6, i);
        CHECK_RC(tdbf_contains(f, key, len, 0), 1);
    }
    tdbf_close(f);
}

static void expect_same_stats(const tdbf_stats *a, const tdbf_stats *b,
                              const char *what)
{
    CHECK_U64_EQ(a->design, b->design);
    CHECK_U64_EQ(a->memory_bytes, b->memory_bytes);
    CHECK_U64_EQ(a->items, b->items);
    CHECK_U64_EQ(a->window_items, b->window_items);
    CHECK_U64_EQ(a->window_ns, b->window_ns);
    CHECK_U64_EQ(a->seed, b->seed);
    CHECK_U64_EQ(a->k, b->k);
    CHECK_U64_EQ(a->l, b->l);
    CHECK_U64_EQ(a->slices, b->slices);
    CHECK_U64_EQ(a->slice_bits, b->slice_bits);
    CHECK_U64_EQ(a->generation_size, b->generation_size);
    CHECK_U64_EQ(a->generation_fill, b->generation_fill);
    CHECK_U64_EQ(a->generations, b->generations);
    CHECK_U64_EQ(a->now_ns, b->now_ns);
    if (a->error_configured != b->error_configured ||
        a->error_planned != b->error_planned ||
        a->error_estimated != b->error_estimated ||
        a->bits_per_item != b->bits_per_item)
        fail_msg("%s: error/bits fields changed: %.9g/%.9g/%.9g/%.9g -> "
                 "%.9g/%.9g/%.9g/%.9g", what, a->error_configured,
                 a->error_planned, a->error_estimated, a->bits_per_item,
                 b->error_configured, b->error_planned, b->error_estimated,
                 b->bits_per_item);
}

static void check_queries_read_only(tdbf_config cfg, uint64_t now)
{
    tdbf *f = drv_open(&cfg);
    uint8_t key[DRV_KEY_MAX];
    uint64_t i, n = DRV_PICK(100000, 20000), present = 0;
    tdbf_stats before, after;
    const char *name = tdbf_design_name(cfg.design);

    for (i = 0; i < 1700; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, 7, i);
        tdbf_add(f, key, len, now);
    }
    before = get_stats(f);
    for (i = 0; i < n; i++) {
        size_t len = i % 2 ? drv_key(key, DRV_SPACE_INSERT, 7, i % 1700)
                           : drv_key(key, DRV_SPACE_PROBE, 7, i);
        /* Queries far in the future or the past change nothing either. */
        uint64_t at = i % 3 == 0 ? now : i % 3 == 1 ? now * 1000 + i : i;
        int r = tdbf_contains(f, key, len, at);
        if (r < 0)
            fail_msg("%s: contains returned %d", name, r);
        present += (uint64_t)r;
    }
    after = get_stats(f);
    expect_same_stats(&before, &after, name);
    /* After queries "in the future", the recent keys are still present as
     * of the filter's own time. */
    for (i = 1700 - 500; i < 1700; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, 7, i);
        if (tdbf_contains(f, key, len, now) != 1)
            fail_msg("%s: key #%llu lost after queries", name,
                     (unsigned long long)i);
    }
    print_message("  %s: %llu queries (%llu present) left the stats "
                  "unchanged\n", name, (unsigned long long)n,
                  (unsigned long long)present);
    tdbf_close(f);
}

/* The designs sized so their fill cannot run past the plan (count
 * windows, decay per insert) answer tdbf_current_error with
 * stats.error_planned: empty, loaded far past the window, and after a
 * load. */
static void test_current_error_planned_designs(void **state)
{
    (void)state;
    static const tdbf_design designs[] = {TDBF_APBF, TDBF_APBBF, TDBF_TBF, TDBF_BTBF,
                                          TDBF_FPDECAY, TDBF_STABLE};
    for (size_t d = 0; d < sizeof designs / sizeof designs[0]; d++) {
        tdbf_config cfg = base_config(designs[d], 0xce + d);
        cfg.window_items = 1000;
        tdbf *f = drv_open(&cfg);
        double planned = get_stats(f).error_planned;
        print_message("  %-8s planned %.6f\n", tdbf_design_name(designs[d]), planned);
        if (!(planned > 0.0 && planned < 1.0))
            fail_msg("%s: planned %.6g", tdbf_design_name(designs[d]), planned);
        CHECK_NEAR(current_error_of(f, 0), planned, 0.0);
        for (uint64_t i = 0; i < 20000; i++)
            drv_add_index(f, cfg.seed, i);
        CHECK_NEAR(current_error_of(f, 0), planned, 0.0);
        tdbf *g = reload(f, NULL);
        CHECK_NEAR(current_error_of(g, 0), planned, 0.0);
        tdbf_close(g);
        tdbf_close(f);
    }
}

static void test_queries_do_not_mutate(void **state)
{
    tdbf_config cfg;
    (void)state;
    check_queries_read_only(base_config(TDBF_APBF, 0x40), 0);
    check_queries_read_only(base_config(TDBF_BLOOM, 0x41), 0);
    check_queries_read_only(base_config(TDBF_EXACT, 0x42), 0);
    check_queries_read_only(base_config(TDBF_APBF_LINE, 0x44), 0);
    check_queries_read_only(base_config(TDBF_TLBF_LINE, 0x45), UINT64_C(5000000000));
    cfg = base_config(TDBF_EXACT, 0x43);
    cfg.window_items = 0;
    cfg.window_ns = UINT64_C(1000000000);
    check_queries_read_only(cfg, UINT64_C(5000000000));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_defaults),
        cmocka_unit_test(test_open_bad_error),
        cmocka_unit_test(test_open_bad_window),
        cmocka_unit_test(test_open_bad_k_l),
        cmocka_unit_test(test_open_too_big),
        cmocka_unit_test(test_open_bad_design),
        cmocka_unit_test(test_open_null),
        cmocka_unit_test(test_open_each_available_design),
        cmocka_unit_test(test_keys_are_bytes),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_design_names),
        cmocka_unit_test(test_allocator_counts),
        cmocka_unit_test(test_allocator_failures),
        cmocka_unit_test(test_allocator_failure_while_adding),
        cmocka_unit_test(test_default_allocator),
        cmocka_unit_test(test_batch_equals_single),
        cmocka_unit_test(test_same_seed_same_answers),
        cmocka_unit_test(test_time_backwards_count_designs),
        cmocka_unit_test(test_advance_apbf),
        cmocka_unit_test(test_current_error_planned_designs),
        cmocka_unit_test(test_queries_do_not_mutate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
