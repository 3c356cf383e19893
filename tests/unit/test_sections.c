/*
 * test_sections.c — the sections after a filter record (src/lib/api/
 * section.c, docs/format.md "Sections").
 *
 * A filter followed by well-formed sections loads from a buffer and a
 * file; the sections are skipped unless asked for, and shown whole when
 * they are.  Nothing after a filter is ignored silently: every truncation
 * inside a section, a flipped bit in any section byte, stray bytes and a
 * tag of another shape are refused.  The layout is the key section
 * `tdbf dedup` wrote before sections were general, byte for byte.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "stream.h"

/* A filter with a few keys, saved, then two sections: an unknown one and
 * one shaped like tdbf dedup's key section. */
typedef struct saved_file {
    byte_sink bytes;
    size_t    filter_len;   /* where the sections start */
    tdbf     *filter;
} saved_file;

static const char unknown_tag[TDBF_SECTION_TAG_BYTES] = {'T', 'D', 'B', 'F', 'T', 'E', 'S', '1'};
static const char keys_tag[TDBF_SECTION_TAG_BYTES] = {'T', 'D', 'B', 'F', 'K', 'E', 'Y', 'S'};

static tdbf_section section_of(const char *tag, uint32_t version, const void *body,
                               uint32_t length)
{
    tdbf_section s = {.version = version, .length = length, .body = body};
    memcpy(s.tag, tag, TDBF_SECTION_TAG_BYTES);
    return s;
}

static saved_file make_saved_file(void)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.window_items = 1000;
    cfg.seed = 2024;
    saved_file out;
    out.filter = drv_open(&cfg);
    for (int i = 0; i < 300; i++) {
        char key[16];
        int len = snprintf(key, sizeof key, "key-%d", i);
        assert_true(tdbf_add(out.filter, key, (size_t)len, 0) >= 0);
    }
    out.bytes = save_bytes(out.filter);
    out.filter_len = out.bytes.len;
    static const char note[] = "a body no loader here understands";
    tdbf_section unknown = section_of(unknown_tag, 7, note, sizeof note - 1);
    CHECK_RC(tdbf_save_section(byte_sink_write, &out.bytes, &unknown), TDBF_OK);
    unsigned char keys_body[44] = {0};
    keys_body[0] = 100;   /* --last 100 */
    tdbf_section keys = section_of(keys_tag, 2, keys_body, sizeof keys_body);
    CHECK_RC(tdbf_save_section(byte_sink_write, &out.bytes, &keys), TDBF_OK);
    return out;
}

static void free_saved_file(saved_file *f)
{
    free(f->bytes.data);
    tdbf_close(f->filter);
}

static int load_prefix(const saved_file *f, size_t len)
{
    tdbf *g = NULL;
    int rc = tdbf_load_buffer(&g, f->bytes.data, len, NULL);
    if (rc == TDBF_OK) {
        assert_int_equal(tdbf_contains(g, "key-7", 5, 0), 1);
        tdbf_close(g);
    } else {
        assert_null(g);
    }
    return rc;
}

/* ---- the layout ------------------------------------------------------------ */

static uint64_t fnv1a(const unsigned char *p, size_t len)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

static void test_layout_is_tag_version_length_body_checksum(void **state)
{
    (void)state;
    byte_sink s = {NULL, 0, 0, -1};
    static const unsigned char body[5] = {1, 2, 3, 4, 5};
    tdbf_section sec = section_of(keys_tag, 0x01020304, body, sizeof body);
    CHECK_RC(tdbf_save_section(byte_sink_write, &s, &sec), TDBF_OK);
    CHECK_U64_EQ(s.len, 16 + sizeof body + 8);
    assert_memory_equal(s.data, "TDBFKEYS", 8);
    static const unsigned char head[8] = {4, 3, 2, 1, 5, 0, 0, 0};
    assert_memory_equal(s.data + 8, head, 8);
    assert_memory_equal(s.data + 16, body, sizeof body);
    uint64_t sum = 0;
    for (int i = 7; i >= 0; i--)
        sum = sum << 8 | s.data[16 + sizeof body + (size_t)i];
    CHECK_U64_EQ(sum, fnv1a(body, sizeof body));
    free(s.data);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    byte_sink s = {NULL, 0, 0, -1};
    static const char *bad_tags[] = {"TDBFkeys", "XDBFKEYS", "TDBF KEY", "TDBFKEY\n"};
    for (size_t i = 0; i < sizeof bad_tags / sizeof bad_tags[0]; i++) {
        tdbf_section sec = section_of(bad_tags[i], 1, "x", 1);
        CHECK_RC(tdbf_save_section(byte_sink_write, &s, &sec), TDBF_EINVAL);
    }
    tdbf_section sec = section_of(keys_tag, 1, NULL, 3);
    CHECK_RC(tdbf_save_section(byte_sink_write, &s, &sec), TDBF_EINVAL);
    CHECK_RC(tdbf_save_section(NULL, &s, &sec), TDBF_EINVAL);
    CHECK_RC(tdbf_save_section(byte_sink_write, &s, NULL), TDBF_EINVAL);
    CHECK_U64_EQ(s.len, 0);
    sec = section_of(keys_tag, 1, NULL, 0);   /* an empty body is fine */
    CHECK_RC(tdbf_save_section(byte_sink_write, &s, &sec), TDBF_OK);
    for (long fail = 0; fail < 2; fail++) {
        byte_sink failing = {NULL, 0, 0, fail};
        CHECK_RC(tdbf_save_section(byte_sink_write, &failing, &sec), TDBF_EIO);
        free(failing.data);
    }
    CHECK_RC(tdbf_read_sections(NULL, NULL, NULL, NULL, NULL), TDBF_EINVAL);
    free(s.data);
}

/* ---- loading ----------------------------------------------------------------- */

static void test_filter_with_sections_loads(void **state)
{
    (void)state;
    saved_file f = make_saved_file();
    CHECK_RC(load_prefix(&f, f.bytes.len), TDBF_OK);
    CHECK_RC(load_prefix(&f, f.filter_len), TDBF_OK);   /* no sections */

    char dir[] = "/tmp/tdbf-sections-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/state.tdbf", dir);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(f.bytes.data, 1, f.bytes.len, out), f.bytes.len);
    assert_int_equal(fclose(out), 0);
    tdbf *g = NULL;
    CHECK_RC(tdbf_load_file(&g, path, NULL), TDBF_OK);
    for (int i = 0; i < 300; i++) {
        char key[16];
        int len = snprintf(key, sizeof key, "key-%d", i);
        assert_int_equal(tdbf_contains(g, key, (size_t)len, 0), 1);
    }
    tdbf_close(g);
    /* stray bytes after the sections, in a file */
    out = fopen(path, "ab");
    assert_non_null(out);
    assert_int_equal(fputs("\n", out) >= 0, 1);
    assert_int_equal(fclose(out), 0);
    CHECK_RC(tdbf_load_file(&g, path, NULL), TDBF_ECORRUPT);
    assert_null(g);
    unlink(path);
    rmdir(dir);
    free_saved_file(&f);
}

static void test_every_cut_and_flip_is_refused(void **state)
{
    (void)state;
    saved_file f = make_saved_file();
    size_t cuts = 0, flips = 0;
    size_t second = f.filter_len + 16 + 33 + 8;   /* the key section's start */
    for (size_t len = f.filter_len + 1; len < f.bytes.len; len++, cuts++) {
        int rc = load_prefix(&f, len);
        if (rc != (len == second ? TDBF_OK : TDBF_ECORRUPT))
            fail_msg("a cut at %zu of %zu bytes gave %d", len, f.bytes.len, rc);
    }
    /* Every bit of the sections: tag, version, length, body, checksum.
     * The version fields are the owner's business (any value loads here).
     * A flip in the tag's last four letters that leaves one of A-Z 0-9
     * names another section, which a loader skips (tdbf info lists it);
     * every other flip must be refused. */
    size_t renamed = 0;
    for (size_t at = f.filter_len; at < f.bytes.len; at++) {
        size_t offset = at < second ? at - f.filter_len : at - second;
        int version = offset >= 8 && offset < 12;
        int tag_letter = offset >= 4 && offset < 8;
        for (int bit = 0; bit < 8; bit++, flips++) {
            f.bytes.data[at] ^= (unsigned char)(1u << bit);
            unsigned char c = f.bytes.data[at];
            int still_tag = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            int rc = load_prefix(&f, f.bytes.len);
            f.bytes.data[at] ^= (unsigned char)(1u << bit);
            renamed += tag_letter && still_tag;
            int want = version || (tag_letter && still_tag) ? TDBF_OK : TDBF_ECORRUPT;
            if (rc != want)
                fail_msg("bit %d of byte %zu (section byte %zu) gave %d, not %d", bit, at,
                         at - f.filter_len, rc, want);
        }
    }
    print_message("  %zu cuts and %zu bit flips in %zu section bytes: all refused but the "
                  "versions' and %zu that rename a section\n", cuts, flips,
                  f.bytes.len - f.filter_len, renamed);
    /* a second filter record after the first is not a section */
    byte_sink twice = save_bytes(f.filter);
    byte_sink once = save_bytes(f.filter);   /* a copy: appending grows twice */
    assert_int_equal(byte_sink_write(&twice, once.data, once.len), 0);
    free(once.data);
    tdbf *g = NULL;
    CHECK_RC(tdbf_load_buffer(&g, twice.data, twice.len, NULL), TDBF_ECORRUPT);
    assert_null(g);
    free(twice.data);
    free_saved_file(&f);
}

/* ---- reading sections ---------------------------------------------------------- */

typedef struct seen_sections {
    int      count;
    char     tags[4][TDBF_SECTION_TAG_BYTES];
    uint32_t versions[4];
    uint32_t lengths[4];
    int      stop_with;   /* returned by the visitor after the first */
} seen_sections;

static int remember(void *ctx, const tdbf_section *section)
{
    seen_sections *seen = ctx;
    if (seen->count > 0 && seen->stop_with != TDBF_OK)
        return seen->stop_with;
    int i = seen->count++;
    memcpy(seen->tags[i], section->tag, TDBF_SECTION_TAG_BYTES);
    seen->versions[i] = section->version;
    seen->lengths[i] = section->length;
    if (memcmp(section->tag, keys_tag, TDBF_SECTION_TAG_BYTES) == 0)
        assert_int_equal(((const unsigned char *)section->body)[0], 100);
    return TDBF_OK;
}

static int walk(const saved_file *f, const char *tag, seen_sections *seen)
{
    byte_source r = {f->bytes.data + f->filter_len, f->bytes.len - f->filter_len};
    return tdbf_read_sections(byte_source_read, &r, tag, remember, seen);
}

static void test_read_sections_shows_what_is_asked(void **state)
{
    (void)state;
    saved_file f = make_saved_file();
    seen_sections seen = {0};
    CHECK_RC(walk(&f, keys_tag, &seen), TDBF_OK);
    assert_int_equal(seen.count, 1);
    assert_int_equal(seen.versions[0], 2);
    assert_int_equal(seen.lengths[0], 44);

    memset(&seen, 0, sizeof seen);
    CHECK_RC(walk(&f, NULL, &seen), TDBF_OK);
    assert_int_equal(seen.count, 2);
    assert_memory_equal(seen.tags[0], unknown_tag, TDBF_SECTION_TAG_BYTES);
    assert_int_equal(seen.versions[0], 7);
    assert_memory_equal(seen.tags[1], keys_tag, TDBF_SECTION_TAG_BYTES);

    memset(&seen, 0, sizeof seen);
    seen.stop_with = -1234;    /* the visitor's own code comes back */
    CHECK_RC(walk(&f, NULL, &seen), -1234);
    assert_int_equal(seen.count, 1);

    /* a tag nobody wrote: nothing shown, all checked */
    memset(&seen, 0, sizeof seen);
    CHECK_RC(walk(&f, "TDBFNONE", &seen), TDBF_OK);
    assert_int_equal(seen.count, 0);
    f.bytes.data[f.bytes.len - 1] ^= 0x40;
    CHECK_RC(walk(&f, "TDBFNONE", &seen), TDBF_ECORRUPT);
    free_saved_file(&f);
}

static void test_huge_section_is_skipped_not_held(void **state)
{
    (void)state;
    /* A section claiming 4 GiB - 1 bytes over a few: the skip reads until
     * the input ends (corrupt), the visit refuses before allocating. */
    unsigned char bytes[16 + 8] = {'T', 'D', 'B', 'F', 'B', 'I', 'G', '1', 1, 0, 0, 0,
                                   0xff, 0xff, 0xff, 0xff};
    byte_source r = {bytes, sizeof bytes};
    CHECK_RC(tdbf_read_sections(byte_source_read, &r, NULL, NULL, NULL), TDBF_ECORRUPT);
    seen_sections seen = {0};
    r = (byte_source){bytes, sizeof bytes};
    CHECK_RC(tdbf_read_sections(byte_source_read, &r, "TDBFBIG1", remember, &seen),
             TDBF_ETOOBIG);
    assert_int_equal(seen.count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_is_tag_version_length_body_checksum),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_filter_with_sections_loads),
        cmocka_unit_test(test_every_cut_and_flip_is_refused),
        cmocka_unit_test(test_read_sections_shows_what_is_asked),
        cmocka_unit_test(test_huge_section_is_skipped_not_held),
    };
    return cmocka_run_group_tests_name("sections", tests, NULL, NULL);
}
