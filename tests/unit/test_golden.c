/*
 * test_golden.c — saved filters written once, on x86-64, must keep loading
 * everywhere (docs/format.md, "Golden files").
 *
 * tests/unit/golden/ holds small saved filters of every design (count and
 * time windows where a design has both), each NAME.tdbf beside NAME.expect:
 * the answers it must give and the statistics it must report, as text.  On
 * whatever machine this test runs (s390x big-endian, aarch64, i686 under
 * qemu in `make test-cross`), every file must load, answer every probe as
 * written, report the same statistics, and save back to the very same
 * bytes.  A change of the loader or of the format that alters any of these
 * fails here: the files are regenerated (`make golden`) only for a
 * deliberate format change.
 *
 * NAME.expect, one "field value" per line ('#' starts a comment):
 *
 *   bytes N             size of NAME.tdbf
 *   xxh64 HEX           XXH64 (seed 0) of NAME.tdbf's bytes
 *   STAT VALUE          a tdbf_stats field (integers exact; doubles to
 *                       1e-12 relative: a 32-bit x87 build may round the
 *                       last bit of a derived figure differently)
 *   probe NOW KEY 0|1   tdbf_contains(KEY, NOW) must give this; KEY in hex
 *
 * Statistics that depend on the machine rather than the file (memory_bytes
 * and bits_per_item follow sizeof of the machine's structs, simd its CPU)
 * are not written.
 *
 * `test_golden --write DIR` (make golden) writes the files: fixed seeds,
 * fixed keys (driver.h's drv_key), fixed times.
 */
#define _POSIX_C_SOURCE 200809L
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "stream.h"

#define MS UINT64_C(1000000)
#define GOLDEN_DIR_DEFAULT "tests/unit/golden"
#define KEY_SEED 0x601d

/* ---- the filters --------------------------------------------------------- */

typedef struct golden_case {
    const char  *name;
    tdbf_design  design;
    uint64_t     window_items;
    uint64_t     window_ns;
    unsigned     block_bits;   /* APBBF, BLOOM, APBF_LINE, TLBF_LINE */
    uint64_t     capacity;     /* time designs: expected keys per window */
    unsigned     adds;         /* keys added before saving */
    uint64_t     step_ns;      /* time between adds (0: one timestamp) */
    uint64_t     seed;
} golden_case;

/* Small windows, so each file is a few KiB; enough adds that count
 * windows have shifted (keys have expired) and time windows have retired
 * slices, rings or sub-filters.  The start time is 1 s, not 0. */
static const golden_case cases[] = {
    {"apbf-count",          TDBF_APBF,      200, 0, 0,   0,   500, 0,      0x601d0001},
    {"apbf-empty",          TDBF_APBF,      100, 0, 0,   0,   0,   0,      0x601d0002},
    {"apbbf-512-count",     TDBF_APBBF,     300, 0, 512, 0,   700, 0,      0x601d0003},
    {"apbbf-64-count",      TDBF_APBBF,     200, 0, 64,  0,   450, 0,      0x601d0004},
    {"tlbf-time",           TDBF_TLBF,      0, 100 * MS, 0, 200, 600, MS,  0x601d0005},
    {"tlbf-burst",          TDBF_TLBF,      0, 50 * MS, 0, 100, 300, 0,    0x601d0006},
    {"tbf-count",           TDBF_TBF,       150, 0, 0,   0,   400, 0,      0x601d0007},
    {"btbf-count",          TDBF_BTBF,      300, 0, 0,   0,   800, 0,      0x601d0008},
    {"clock-time",          TDBF_CLOCK,     0, 40 * MS, 0, 150, 500, MS / 4, 0x601d0009},
    {"rotating-count",      TDBF_ROTATING,  200, 0, 0,   0,   520, 0,      0x601d000a},
    {"rotating-time",       TDBF_ROTATING,  0, 30 * MS, 0, 100, 400, MS / 5, 0x601d000b},
    {"fpdecay-count",       TDBF_FPDECAY,   150, 0, 0,   0,   300, 0,      0x601d000c},
    {"stable-count",        TDBF_STABLE,    150, 0, 0,   0,   300, 0,      0x601d000d},
    {"bloom",               TDBF_BLOOM,     200, 0, 0,   0,   150, 0,      0x601d000e},
    {"bloom-blocked-512",   TDBF_BLOOM,     200, 0, 512, 0,   150, 0,      0x601d000f},
    {"exact-count",         TDBF_EXACT,     60,  0, 0,   0,   150, 0,      0x601d0010},
    {"exact-time",          TDBF_EXACT,     0, 20 * MS, 0, 0, 120, MS / 2, 0x601d0011},
    {"apbf-line-1024-count", TDBF_APBF_LINE, 300, 0, 0,  0,   700, 0,      0x601d0012},
    {"apbf-line-512-count", TDBF_APBF_LINE, 300, 0, 512, 0,   700, 0,      0x601d0013},
    {"tlbf-line-time",      TDBF_TLBF_LINE, 0, 100 * MS, 512, 200, 600, MS, 0x601d0014},
    {"tlbf-line-burst",     TDBF_TLBF_LINE, 0, 50 * MS, 512, 100, 400, 0,  0x601d0015},
    {"sqf-count",           TDBF_SQF,       300, 0, 0,   0,   700, 0,      0x601d0016},
    {"sqf-512-count",       TDBF_SQF,       300, 0, 512, 0,   700, 0,      0x601d0017},
    {"sqf-time",            TDBF_SQF,       0, 100 * MS, 512, 200, 900, MS / 4, 0x601d0018},
};
enum { CASE_COUNT = sizeof cases / sizeof cases[0] };

#define START_NS (1000 * MS)

static int timed(const golden_case *c)
{
    return c->window_ns != 0;
}

static tdbf_config config_of(const golden_case *c)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = c->design;
    cfg.window_items = c->window_items;
    cfg.window_ns = c->window_ns;
    cfg.block_bits = c->block_bits;
    cfg.capacity = c->capacity;
    cfg.seed = c->seed;
    cfg.error = 0.05;
    return cfg;
}

/* ---- the statistics written and compared --------------------------------- */

typedef struct stat_field {
    const char *name;
    size_t      offset;
    enum { STAT_U64, STAT_UNSIGNED, STAT_DESIGN, STAT_DOUBLE } type;
} stat_field;

#define STAT(field, type) {#field, offsetof(tdbf_stats, field), type}
static const stat_field stat_fields[] = {
    STAT(design, STAT_DESIGN),
    STAT(items, STAT_U64),
    STAT(window_items, STAT_U64),
    STAT(window_ns, STAT_U64),
    STAT(seed, STAT_U64),
    STAT(k, STAT_UNSIGNED),
    STAT(l, STAT_UNSIGNED),
    STAT(slices, STAT_UNSIGNED),
    STAT(slice_bits, STAT_U64),
    STAT(generation_size, STAT_U64),
    STAT(generation_fill, STAT_U64),
    STAT(generations, STAT_U64),
    STAT(now_ns, STAT_U64),
    STAT(keys, STAT_U64),
    STAT(cap_hits, STAT_U64),
    STAT(cells, STAT_U64),
    STAT(cell_bits, STAT_UNSIGNED),
    STAT(padding, STAT_U64),
    STAT(scan_per_insert, STAT_U64),
    STAT(error_configured, STAT_DOUBLE),
    STAT(error_planned, STAT_DOUBLE),
    STAT(error_estimated, STAT_DOUBLE),
};
#undef STAT
enum { STAT_COUNT = sizeof stat_fields / sizeof stat_fields[0] };

/* The field as an integer (STAT_DOUBLE: not used). */
static uint64_t stat_u64(const tdbf_stats *st, const stat_field *sf)
{
    const char *at = (const char *)st + sf->offset;
    switch (sf->type) {
    case STAT_U64: { uint64_t v; memcpy(&v, at, sizeof v); return v; }
    case STAT_UNSIGNED: { unsigned v; memcpy(&v, at, sizeof v); return v; }
    case STAT_DESIGN: { tdbf_design v; memcpy(&v, at, sizeof v); return (uint64_t)v; }
    default: return 0;
    }
}

static double stat_double(const tdbf_stats *st, const stat_field *sf)
{
    double v;
    memcpy(&v, (const char *)st + sf->offset, sizeof v);
    return v;
}

static const stat_field *stat_named(const char *name)
{
    for (size_t i = 0; i < STAT_COUNT; i++)
        if (strcmp(stat_fields[i].name, name) == 0)
            return &stat_fields[i];
    return NULL;
}

/* ---- files ---------------------------------------------------------------- */

static char *path_of(const char *dir, const char *name, const char *ext)
{
    size_t len = strlen(dir) + strlen(name) + strlen(ext) + 3;
    char *path = malloc(len);
    assert_non_null(path);
    snprintf(path, len, "%s/%s.%s", dir, name, ext);
    return path;
}

/* The whole file, or fails the test. */
static byte_sink read_all(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        fail_msg("%s: %s", path, strerror(errno));
    byte_sink s = {NULL, 0, 0, -1};
    unsigned char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, in)) > 0)
        byte_sink_write(&s, chunk, got);
    int failed = ferror(in);
    fclose(in);
    if (failed)
        fail_msg("%s: read error", path);
    return s;
}

static void hex_of(char *out, const uint8_t *bytes, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Hex text to bytes; returns the length, or -1 if not even-length hex
 * that fits in `cap`. */
static long bytes_of_hex(uint8_t *out, size_t cap, const char *hex)
{
    size_t len = strlen(hex);
    if (len % 2 != 0 || len / 2 > cap)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(len / 2);
}

/* ---- writing (make golden) -------------------------------------------- */

/* The filter of case c, with its adds done; *now gets the last add's time. */
static tdbf *build(const golden_case *c, uint64_t *now)
{
    tdbf_config cfg = config_of(c);
    tdbf *f = NULL;
    int rc = tdbf_open(&f, &cfg);
    if (rc != TDBF_OK) {
        fprintf(stderr, "golden: %s: open: %s\n", c->name, tdbf_strerror(rc));
        return NULL;
    }
    uint8_t key[DRV_KEY_MAX];
    *now = START_NS;
    for (unsigned i = 0; i < c->adds && rc >= 0; i++, *now += c->step_ns)
        rc = tdbf_add(f, key, drv_key(key, DRV_SPACE_INSERT, KEY_SEED, i), *now);
    if (c->adds > 0)
        *now -= c->step_ns;
    if (rc < 0) {
        fprintf(stderr, "golden: %s: add: %s\n", c->name, tdbf_strerror(rc));
        tdbf_close(f);
        return NULL;
    }
    return f;
}

static void write_probe(FILE *out, const tdbf *f, uint64_t now, uint8_t space,
                        uint64_t index)
{
    uint8_t key[DRV_KEY_MAX];
    char hex[2 * DRV_KEY_MAX + 1];
    size_t len = drv_key(key, space, KEY_SEED, index);
    hex_of(hex, key, len);
    fprintf(out, "probe %" PRIu64 " %s %d\n", now, hex, tdbf_contains(f, key, len, now));
}

/* Probes at `now`: the newest 48 added keys, an even spread of at most 24
 * older ones (expired in count windows) and 24 keys never added. */
static void write_probes_at(FILE *out, const tdbf *f, const golden_case *c, uint64_t now)
{
    unsigned newest = c->adds < 48 ? c->adds : 48;
    unsigned older = c->adds - newest;
    unsigned stride = older > 24 ? (older + 23) / 24 : 1;
    for (unsigned i = 0; i < older; i += stride)
        write_probe(out, f, now, DRV_SPACE_INSERT, i);
    for (unsigned i = older; i < c->adds; i++)
        write_probe(out, f, now, DRV_SPACE_INSERT, i);
    for (unsigned i = 0; i < 24; i++)
        write_probe(out, f, now, DRV_SPACE_PROBE, i);
}

static void write_stats(FILE *out, const tdbf *f)
{
    tdbf_stats st;
    tdbf_get_stats(f, &st);
    for (size_t i = 0; i < STAT_COUNT; i++) {
        const stat_field *sf = &stat_fields[i];
        if (sf->type == STAT_DOUBLE)
            fprintf(out, "%s %.17g\n", sf->name, stat_double(&st, sf));
        else
            fprintf(out, "%s %" PRIu64 "\n", sf->name, stat_u64(&st, sf));
    }
}

static int write_case(const char *dir, const golden_case *c)
{
    uint64_t now;
    tdbf *f = build(c, &now);
    if (!f)
        return -1;
    char *data_path = path_of(dir, c->name, "tdbf");
    char *expect_path = path_of(dir, c->name, "expect");
    byte_sink bytes = save_bytes(f);
    FILE *data = fopen(data_path, "wb");
    FILE *expect = fopen(expect_path, "w");
    int ok = data && expect && fwrite(bytes.data, 1, bytes.len, data) == bytes.len;
    if (ok) {
        fprintf(expect, "# %s: written by `make golden` (tests/unit/test_golden.c);\n"
                        "# regenerate only for a deliberate format change.\n",
                c->name);
        fprintf(expect, "bytes %zu\nxxh64 %016" PRIx64 "\n", bytes.len,
                (uint64_t)XXH64(bytes.data, bytes.len, 0));
        write_stats(expect, f);
        write_probes_at(expect, f, c, now);
        /* Time windows: again half a window later, when the older half of
         * the keys has expired (queries never move the clock). */
        if (timed(c))
            write_probes_at(expect, f, c, now + c->window_ns / 2);
    }
    ok = (data && fclose(data) == 0) && ok;
    ok = (expect && fclose(expect) == 0) && ok;
    if (!ok)
        fprintf(stderr, "golden: %s: cannot write %s or %s\n", c->name, data_path, expect_path);
    else
        printf("golden: %s.tdbf %zu bytes\n", c->name, bytes.len);
    free(bytes.data);
    free(data_path);
    free(expect_path);
    tdbf_close(f);
    return ok ? 0 : -1;
}

static int write_all(const char *dir)
{
    int failed = 0;
    for (size_t i = 0; i < CASE_COUNT; i++)
        failed |= write_case(dir, &cases[i]) != 0;
    return failed ? 1 : 0;
}

/* ---- checking -------------------------------------------------------------- */

static const char *golden_dir = GOLDEN_DIR_DEFAULT;

typedef struct check_state {
    const golden_case *c;
    const tdbf_stats  *stats;   /* of the loaded filter */
    const tdbf        *f;
    const byte_sink   *bytes;   /* the file */
    unsigned           probes;
    unsigned           stats_seen;
} check_state;

static void check_stat(check_state *cs, const char *name, const char *value, unsigned line)
{
    const stat_field *sf = stat_named(name);
    if (!sf)
        fail_msg("%s.expect:%u: unknown field '%s'", cs->c->name, line, name);
    if (sf->type == STAT_DOUBLE) {
        double want = strtod(value, NULL);
        double got = stat_double(cs->stats, sf);
        if (!(fabs(got - want) <= 1e-12 * fabs(want)))
            fail_msg("%s: %s = %.17g after load, expected %.17g", cs->c->name, name, got,
                     want);
    } else {
        uint64_t want = strtoull(value, NULL, 10);
        uint64_t got = stat_u64(cs->stats, sf);
        if (got != want)
            fail_msg("%s: %s = %" PRIu64 " after load, expected %" PRIu64, cs->c->name, name,
                     got, want);
    }
    cs->stats_seen++;
}

static void check_probe(check_state *cs, const char *rest, unsigned line)
{
    char now_text[32], hex[2 * DRV_KEY_MAX + 2];
    int want;
    uint8_t key[DRV_KEY_MAX];
    if (sscanf(rest, "%31s %49s %d", now_text, hex, &want) != 3)
        fail_msg("%s.expect:%u: malformed probe", cs->c->name, line);
    long len = bytes_of_hex(key, sizeof key, hex);
    if (len < 0)
        fail_msg("%s.expect:%u: bad key '%s'", cs->c->name, line, hex);
    uint64_t now = strtoull(now_text, NULL, 10);
    int got = tdbf_contains(cs->f, key, (size_t)len, now);
    if (got != want)
        fail_msg("%s: key %s at %" PRIu64 " ns: contains gave %d, expected %d", cs->c->name,
                 hex, now, got, want);
    cs->probes++;
}

static void check_line(check_state *cs, char *text, unsigned line)
{
    text[strcspn(text, "\r\n")] = '\0';
    if (text[0] == '#' || text[0] == '\0')
        return;
    char *value = strchr(text, ' ');
    if (!value)
        fail_msg("%s.expect:%u: no value in '%s'", cs->c->name, line, text);
    *value++ = '\0';
    if (strcmp(text, "probe") == 0) {
        check_probe(cs, value, line);
    } else if (strcmp(text, "bytes") == 0) {
        CHECK_U64_EQ(cs->bytes->len, strtoull(value, NULL, 10));
    } else if (strcmp(text, "xxh64") == 0) {
        uint64_t got = XXH64(cs->bytes->data, cs->bytes->len, 0);
        if (got != strtoull(value, NULL, 16))
            fail_msg("%s.tdbf: XXH64 %016" PRIx64 ", expected %s: the file itself changed",
                     cs->c->name, got, value);
    } else {
        check_stat(cs, text, value, line);
    }
}

/* Load NAME.tdbf, give every answer and statistic of NAME.expect, and
 * save back to the same bytes. */
static void test_golden_file(void **state)
{
    const golden_case *c = *state;
    char *data_path = path_of(golden_dir, c->name, "tdbf");
    char *expect_path = path_of(golden_dir, c->name, "expect");
    byte_sink bytes = read_all(data_path);

    tdbf *f = NULL;
    CHECK_RC(tdbf_load_buffer(&f, bytes.data, bytes.len, NULL), TDBF_OK);
    tdbf_stats st = stats_of(f);
    check_state cs = {.c = c, .stats = &st, .f = f, .bytes = &bytes};

    FILE *expect = fopen(expect_path, "r");
    if (!expect)
        fail_msg("%s: %s", expect_path, strerror(errno));
    char text[256];
    for (unsigned line = 1; fgets(text, sizeof text, expect); line++)
        check_line(&cs, text, line);
    fclose(expect);
    CHECK_U64_EQ(cs.stats_seen, STAT_COUNT);
    CHECK_U64_GE(cs.probes, 24);

    byte_sink again = save_bytes(f);
    CHECK_U64_EQ(again.len, bytes.len);
    if (memcmp(again.data, bytes.data, bytes.len) != 0) {
        size_t at = 0;
        while (again.data[at] == bytes.data[at])
            at++;
        fail_msg("%s: saved again, byte %zu is 0x%02x, the file's 0x%02x", c->name, at,
                 again.data[at], bytes.data[at]);
    }
    print_message("%s: %u probes, %u statistics, %zu bytes saved back identical\n", c->name,
                  cs.probes, cs.stats_seen, bytes.len);
    free(again.data);
    tdbf_close(f);
    free(bytes.data);
    free(data_path);
    free(expect_path);
}

/* Every design has a golden file (a new design needs one). */
static void test_every_design_has_one(void **state)
{
    (void)state;
    for (int d = 0; d < TDBF_DESIGN_COUNT; d++) {
        int found = 0;
        for (size_t i = 0; i < CASE_COUNT; i++)
            found |= cases[i].design == (tdbf_design)d;
        if (!found)
            fail_msg("design %s has no golden file", tdbf_design_name((tdbf_design)d));
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_all(argv[2]);
    if (argc == 2 && argv[1][0] != '-')
        golden_dir = argv[1];
    else if (argc != 1) {
        fprintf(stderr, "usage: %s [DIR]          check the golden files in DIR (default %s)\n"
                        "       %s --write DIR    write them (a deliberate format change only)\n",
                argv[0], GOLDEN_DIR_DEFAULT, argv[0]);
        return 2;
    }
    struct CMUnitTest tests[CASE_COUNT + 1];
    for (size_t i = 0; i < CASE_COUNT; i++)
        tests[i] = (struct CMUnitTest){cases[i].name, test_golden_file, NULL, NULL,
                                       (void *)(uintptr_t)&cases[i]};
    tests[CASE_COUNT] = (struct CMUnitTest)cmocka_unit_test(test_every_design_has_one);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
