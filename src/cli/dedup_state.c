/*
 * dedup_state.c — load and save the state files of `tdbf dedup` (the
 * layout is in dedup_state.h and docs/format.md).
 *
 * The filter goes through tdbf_save / tdbf_load with stdio callbacks, so
 * the library's own format and checks apply unchanged; the key section
 * follows it in the same file as one of the library's sections
 * (tdbf_save_section / tdbf_read_sections: tag, version, length, body,
 * checksum), so every loader steps over it.  The file is written to a
 * temporary name and renamed, so the two are always saved together.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fsync, fdopen */

#include "dedup_state.h"
#include "dedup_parse.h"
#include "common/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The key section's tag among the sections after the filter. */
static const char section_tag[TDBF_SECTION_TAG_BYTES] = {'T', 'D', 'B', 'F', 'K', 'E', 'Y', 'S'};

enum {
    SECTION_VERSION = 2,          /* written; 1 is still read */
    BODY_V1_FIXED = 8 + 8 + 4 * 5,/* a version 1 body before the regex */
    BODY_V2_LEAST = 8 + 8 + 4 * 7,/* a version 2 body with no field, no text */
    FLAG_IGNORE_CASE = 1,         /* the flags word of version 2 */
    REGEX_MAX = 1 << 16,          /* a longer pattern is not a real one */
    BODY_MAX = BODY_V2_LEAST + 2 * 4 * DEDUP_MAX_FIELDS + 2 * REGEX_MAX
};

/* ---- little-endian fields -------------------------------------------------- */

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* ---- loading --------------------------------------------------------------- */

static int read_stdio(void *ctx, void *buf, size_t len)
{
    return fread(buf, 1, len, ctx) == len ? 0 : -1;
}

/* A cursor over a section body: reads fail once past its end. */
typedef struct body_reader {
    const unsigned char *at;
    size_t               left;
    int                  failed;
} body_reader;

static const unsigned char *take(body_reader *r, size_t len)
{
    if (r->failed || r->left < len) {
        r->failed = 1;
        return NULL;
    }
    const unsigned char *p = r->at;
    r->at += len;
    r->left -= len;
    return p;
}

static uint32_t take_u32(body_reader *r)
{
    const unsigned char *p = take(r, 4);
    return p != NULL ? get_u32(p) : 0;
}

static uint64_t take_u64(body_reader *r)
{
    const unsigned char *p = take(r, 8);
    return p != NULL ? get_u64(p) : 0;
}

/* A count-prefixed field list of version 2: distinct fields from 1. */
static void take_fields(body_reader *r, dedup_fields *fields)
{
    uint32_t count = take_u32(r);
    fields->count = 0;
    if (count > DEDUP_MAX_FIELDS) {
        r->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < count && !r->failed; i++) {
        uint32_t index = take_u32(r);
        for (uint32_t j = 0; j < i; j++)
            r->failed |= fields->index[j] == index;
        r->failed |= index == 0 || index > DEDUP_MAX_FIELD;
        fields->index[fields->count++] = index;
    }
}

/* A length-prefixed string: a NUL-terminated copy at *dst (advanced), or
 * NULL for length 0. */
static const char *take_text(body_reader *r, char **dst)
{
    uint32_t len = take_u32(r);
    const unsigned char *text = take(r, len);
    if (text == NULL || len > REGEX_MAX || memchr(text, '\0', len) != NULL) {
        r->failed = 1;
        return NULL;
    }
    if (len == 0)
        return NULL;
    char *copy = *dst;
    memcpy(copy, text, len);
    copy[len] = '\0';
    *dst += len + 1;
    return copy;
}

/* The one field of a version 1 body as a list. */
static void single_field(unsigned field, dedup_fields *fields)
{
    fields->count = field != 0;
    fields->index[0] = field;
}

/* Version 1: window, field, delimiter, time field, format, regex. */
static void decode_v1(body_reader *r, dedup_keyspec *spec, char **strings)
{
    spec->window_items = take_u64(r);
    spec->window_ns = take_u64(r);
    spec->field = take_u32(r);
    uint32_t delimiter = take_u32(r);
    spec->delimiter = delimiter == UINT32_MAX ? DEDUP_BLANKS : (int)delimiter;
    spec->time_field = take_u32(r);
    spec->time_format = take_u32(r);
    spec->regex = take_text(r, strings);
    r->failed |= (delimiter > 255 && delimiter != UINT32_MAX) ||
                 spec->field > DEDUP_MAX_FIELD || spec->time_field > DEDUP_MAX_FIELD ||
                 spec->time_format > DEDUP_TIME_ISO8601;
    single_field(spec->field, &spec->key_fields);
    single_field(spec->time_field, &spec->time_fields);
}

/* Version 2: window, delimiter, format, flags, field lists, regex, time
 * pattern. */
static void decode_v2(body_reader *r, dedup_keyspec *spec, char **strings)
{
    spec->window_items = take_u64(r);
    spec->window_ns = take_u64(r);
    uint32_t delimiter = take_u32(r);
    spec->delimiter = delimiter == UINT32_MAX ? DEDUP_BLANKS : (int)delimiter;
    spec->time_format = take_u32(r);
    uint32_t flags = take_u32(r);
    spec->ignore_case = (flags & FLAG_IGNORE_CASE) != 0;
    take_fields(r, &spec->key_fields);
    take_fields(r, &spec->time_fields);
    spec->regex = take_text(r, strings);
    spec->time_pattern = take_text(r, strings);
    spec->field = spec->key_fields.count > 0 ? spec->key_fields.index[0] : 0;
    spec->time_field = spec->time_fields.count > 0 ? spec->time_fields.index[0] : 0;
    int pattern = spec->time_format == DEDUP_TIME_PATTERN;
    r->failed |= (delimiter > 255 && delimiter != UINT32_MAX) ||
                 (flags & ~(uint32_t)FLAG_IGNORE_CASE) != 0 ||
                 spec->time_format > DEDUP_TIME_PATTERN ||
                 pattern != (spec->time_pattern != NULL) ||
                 (pattern && dedup_check_time_pattern(spec->time_pattern, NULL) != NULL);
}

/* What the walk over the sections after the filter (tdbf_read_sections)
 * fills in: the key section, decoded, and why it was refused. */
typedef struct key_reading {
    dedup_state *state;
    const char  *why;
    int          nomem;
} key_reading;

/* Note a section in the state's list. */
static void list_section(dedup_state *state, const tdbf_section *section, int known)
{
    if (state->sections < DEDUP_SECTIONS_LISTED) {
        dedup_section_seen *seen = &state->seen[state->sections];
        memcpy(seen->tag, section->tag, TDBF_SECTION_TAG_BYTES);
        seen->tag[TDBF_SECTION_TAG_BYTES] = '\0';
        seen->version = section->version;
        seen->length = section->length;
        seen->known = known;
    }
    state->sections++;
}

/* tdbf_write_fn appending to state->others. */
static int keep_bytes(void *ctx, const void *buf, size_t len)
{
    dedup_state *state = ctx;
    unsigned char *grown = realloc(state->others, state->others_len + len);
    if (grown == NULL)
        return -1;
    memcpy(grown + state->others_len, buf, len);
    state->others = grown;
    state->others_len += len;
    return 0;
}

/* The visitor of every section: decode the key section's body into the
 * state; list the others and keep them for the next save. */
static int read_key_section(void *ctx, const tdbf_section *section)
{
    key_reading *reading = ctx;
    dedup_state *state = reading->state;
    uint32_t version = section->version, size = section->length;
    int known = memcmp(section->tag, section_tag, TDBF_SECTION_TAG_BYTES) == 0;
    list_section(state, section, known);
    if (!known) {
        reading->nomem = tdbf_save_section(keep_bytes, state, section) != TDBF_OK;
        return reading->nomem ? TDBF_ENOMEM : TDBF_OK;
    }
    reading->why = "it has two key sections";
    if (state->has_spec)
        return TDBF_ECORRUPT;
    reading->why = "its key section has a version this tdbf does not read";
    if (version != 1 && version != SECTION_VERSION)
        return TDBF_ECORRUPT;
    reading->why = "its key section has an impossible length";
    if (size < (version == 1 ? BODY_V1_FIXED : BODY_V2_LEAST) || size > BODY_MAX)
        return TDBF_ECORRUPT;
    state->strings = malloc(size);   /* the strings are shorter than the body */
    if (state->strings == NULL) {
        reading->nomem = 1;
        return TDBF_ENOMEM;
    }
    body_reader reader = {section->body, size, 0};
    char *strings = state->strings;
    memset(&state->spec, 0, sizeof state->spec);
    if (version == 1)
        decode_v1(&reader, &state->spec, &strings);
    else
        decode_v2(&reader, &state->spec, &strings);
    reading->why = "its key section is damaged";
    if (reader.failed || reader.left != 0)
        return TDBF_ECORRUPT;
    state->has_spec = 1;
    reading->why = NULL;   /* a later failure is not this section's */
    return TDBF_OK;
}

/* The sections after the filter, the key section decoded if there is
 * one.  Returns DEDUP_STATE_OK, DEDUP_STATE_CORRUPT (*why) or
 * DEDUP_STATE_NOMEM. */
static int read_sections(FILE *file, dedup_state *state, const char **why)
{
    key_reading reading = {state, NULL, 0};
    int rc = tdbf_read_sections(read_stdio, file, NULL, read_key_section, &reading);
    if (rc == TDBF_OK)
        return DEDUP_STATE_OK;
    if (rc == TDBF_ENOMEM || reading.nomem)
        return DEDUP_STATE_NOMEM;
    if (reading.why != NULL && rc == TDBF_ECORRUPT)
        *why = reading.why;
    else if (rc == TDBF_ECORRUPT)
        *why = "its key section, or another section after the filter, is truncated or "
               "damaged";
    else
        *why = tdbf_strerror(rc);
    return DEDUP_STATE_CORRUPT;
}

int dedup_state_load(const char *path, const tdbf_load_options *opts,
                     dedup_state *state, const char **why)
{
    memset(state, 0, sizeof *state);
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return DEDUP_STATE_IO;
    int rc = tdbf_load(&state->filter, read_stdio, file, opts);
    if (rc != TDBF_OK) {
        int io = ferror(file) || rc == TDBF_EIO;
        int saved = errno;
        fclose(file);
        errno = saved;
        if (io)
            return DEDUP_STATE_IO;
        if (rc == TDBF_ENOMEM)
            return DEDUP_STATE_NOMEM;
        *why = tdbf_strerror(rc);
        return DEDUP_STATE_CORRUPT;
    }
    rc = read_sections(file, state, why);
    if (rc == DEDUP_STATE_CORRUPT && ferror(file))
        rc = DEDUP_STATE_IO;
    int saved = errno;
    fclose(file);
    errno = saved;
    if (rc != DEDUP_STATE_OK)
        dedup_state_free(state);
    return rc;
}

void dedup_state_free(dedup_state *state)
{
    tdbf_close(state->filter);
    free(state->strings);
    free(state->others);
    memset(state, 0, sizeof *state);
}

/* ---- saving ---------------------------------------------------------------- */

static int write_stdio(void *ctx, const void *buf, size_t len)
{
    return fwrite(buf, 1, len, ctx) == len ? 0 : -1;
}

/* A cursor writing a section body. */
typedef struct body_writer {
    unsigned char *at;
} body_writer;

static void give_u32(body_writer *w, uint32_t v)
{
    put_u32(w->at, v);
    w->at += 4;
}

static void give_u64(body_writer *w, uint64_t v)
{
    put_u64(w->at, v);
    w->at += 8;
}

static void give_fields(body_writer *w, const dedup_fields *fields)
{
    give_u32(w, fields->count);
    for (unsigned i = 0; i < fields->count; i++)
        give_u32(w, fields->index[i]);
}

static void give_text(body_writer *w, const char *text, size_t len)
{
    give_u32(w, (uint32_t)len);
    if (len > 0)
        memcpy(w->at, text, len);
    w->at += len;
}

/* Length of a string kept in the section (the parser never lets a longer
 * one by). */
static size_t kept_len(const char *text)
{
    size_t len = text != NULL ? strlen(text) : 0;
    return len > REGEX_MAX ? REGEX_MAX : len;
}

/* The body of the key section of `spec`, in a new buffer of *len bytes
 * (NULL: no memory). */
static unsigned char *encode_body(const dedup_keyspec *spec, size_t *len)
{
    size_t regex_len = kept_len(spec->regex);
    size_t pattern_len = kept_len(spec->time_pattern);
    size_t body = BODY_V2_LEAST + 4 * (size_t)(spec->key_fields.count +
                                               spec->time_fields.count) +
                  regex_len + pattern_len;
    unsigned char *out = malloc(body);
    if (out == NULL)
        return NULL;
    body_writer w = {out};
    give_u64(&w, spec->window_items);
    give_u64(&w, spec->window_ns);
    give_u32(&w, spec->delimiter == DEDUP_BLANKS ? UINT32_MAX : (uint32_t)spec->delimiter);
    give_u32(&w, spec->time_format);
    give_u32(&w, spec->ignore_case ? FLAG_IGNORE_CASE : 0);
    give_fields(&w, &spec->key_fields);
    give_fields(&w, &spec->time_fields);
    give_text(&w, spec->regex, regex_len);
    give_text(&w, spec->time_pattern, pattern_len);
    *len = body;
    return out;
}

/* "DIR/.NAME.XXXXXX"-style template beside path: path + ".tmp.XXXXXX". */
static char *temp_name(const char *path)
{
    size_t len = strlen(path);
    char *name = malloc(len + sizeof ".tmp.XXXXXX");
    if (name != NULL) {
        memcpy(name, path, len);
        memcpy(name + len, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    }
    return name;
}

/* Make the rename durable: fsync the directory that holds path (the part
 * before its last '/', or "." without one). */
static int sync_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t len = slash == NULL ? 1 : slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(len + 1);
    if (dir == NULL)
        return -1;
    memcpy(dir, slash == NULL ? "." : path, len);
    dir[len] = '\0';
    int fd = open(dir, O_RDONLY);
    free(dir);
    int rc = fd >= 0 ? fsync(fd) : -1;
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Filter, key section, then the other sections as they were read, into
 * an open temporary file; flushed and synced. */
static int write_all_of(FILE *out, const tdbf *f, const unsigned char *body,
                        size_t body_len, const unsigned char *others, size_t others_len)
{
    tdbf_section section = {.version = SECTION_VERSION, .length = (uint32_t)body_len,
                            .body = body};
    memcpy(section.tag, section_tag, sizeof section.tag);
    if (tdbf_save(f, write_stdio, out) != TDBF_OK ||
        tdbf_save_section(write_stdio, out, &section) != TDBF_OK ||
        (others_len != 0 && fwrite(others, 1, others_len, out) != others_len) ||
        fflush(out) != 0 || fsync(fileno(out)) != 0)
        return -1;
    return 0;
}

static void unlink_keeping_errno(const char *name)
{
    int saved = errno;
    unlink(name);
    errno = saved;
}

int dedup_state_save(const char *path, const tdbf *f, const dedup_keyspec *spec,
                     const unsigned char *others, size_t others_len)
{
    size_t body_len = 0;
    unsigned char *body = encode_body(spec, &body_len);
    char *temp = temp_name(path);
    if (body == NULL || temp == NULL) {
        free(body);
        free(temp);
        return DEDUP_STATE_NOMEM;
    }
    int rc = DEDUP_STATE_IO;
    int fd = mkstemp(temp);
    FILE *out = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (out == NULL && fd >= 0)
        close(fd);
    if (out != NULL) {
        int failed = write_all_of(out, f, body, body_len, others, others_len);
        failed |= fclose(out) != 0;
        if (!failed && rename(temp, path) == 0 && sync_directory(path) == 0)
            rc = DEDUP_STATE_OK;
    }
    if (rc != DEDUP_STATE_OK && fd >= 0)
        unlink_keeping_errno(temp);   /* errno says why the save failed */
    free(body);
    free(temp);
    return rc;
}

int dedup_state_writable(const char *path)
{
    char *temp = temp_name(path);
    if (temp == NULL)
        return DEDUP_STATE_NOMEM;
    int fd = mkstemp(temp);
    if (fd >= 0) {
        close(fd);
        unlink(temp);
    }
    free(temp);
    return fd >= 0 ? DEDUP_STATE_OK : DEDUP_STATE_IO;
}

/* ---- comparing and describing ---------------------------------------------- */

static int same_text(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

static int same_fields(const dedup_fields *a, const dedup_fields *b)
{
    if (a->count != b->count)
        return 0;
    for (unsigned i = 0; i < a->count; i++)
        if (a->index[i] != b->index[i])
            return 0;
    return 1;
}

int dedup_keyspec_equal(const dedup_keyspec *a, const dedup_keyspec *b)
{
    /* the delimiter matters only where a field is cut out */
    int cuts = a->key_fields.count != 0 || a->time_fields.count != 0;
    return same_fields(&a->key_fields, &b->key_fields) &&
           same_fields(&a->time_fields, &b->time_fields) &&
           a->time_format == b->time_format &&
           same_text(a->time_pattern, b->time_pattern) &&
           !a->ignore_case == !b->ignore_case && same_text(a->regex, b->regex) &&
           (!cuts || a->delimiter == b->delimiter);
}

/* Append the formatted words to buf, after a space unless it is empty. */
static void append(char *buf, size_t size, const char *fmt, ...) CLI_PRINTF(3, 4);
static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return;
    if (used > 0) {
        buf[used++] = ' ';
        buf[used] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

void dedup_keyspec_describe(const dedup_keyspec *spec, char *buf, size_t size)
{
    if (size == 0)
        return;
    char list[DEDUP_MAX_FIELDS * 8];
    buf[0] = '\0';
    if (spec->key_fields.count != 0) {
        dedup_fields_format(&spec->key_fields, list, sizeof list);
        append(buf, size, "--field %s", list);
    }
    if (spec->regex != NULL)
        append(buf, size, "--key-regex '%s'", spec->regex);
    if (spec->ignore_case)
        append(buf, size, "--ignore-case");
    if (spec->time_fields.count != 0) {
        dedup_fields_format(&spec->time_fields, list, sizeof list);
        if (spec->time_pattern != NULL)
            append(buf, size, "--time-field %s --time-format '%s'", list,
                   spec->time_pattern);
        else
            append(buf, size, "--time-field %s --time-format %s", list,
                   dedup_time_format_name((dedup_time_format)spec->time_format));
    }
    if ((spec->key_fields.count != 0 || spec->time_fields.count != 0) &&
        spec->delimiter != DEDUP_BLANKS) {
        if (spec->delimiter == '\t')
            append(buf, size, "--delimiter '\\t'");
        else
            append(buf, size, "--delimiter '%c'", spec->delimiter);
    }
    if (spec->key_fields.count == 0 && spec->regex == NULL)
        append(buf, size, "%s", spec->time_fields.count != 0 ? "(key: the whole line)"
                                                      : "(key: the whole line; time: arrival)");
}

void dedup_sections_describe(const dedup_state *state, char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    unsigned listed = state->sections < DEDUP_SECTIONS_LISTED ? state->sections
                                                              : DEDUP_SECTIONS_LISTED;
    for (unsigned i = 0; i < listed; i++) {
        const dedup_section_seen *seen = &state->seen[i];
        int last = i + 1 == state->sections;
        append(buf, size, "%s v%u, %u bytes%s%s", seen->tag, (unsigned)seen->version,
               (unsigned)seen->length, seen->known ? "" : " (not read by this tdbf)",
               last ? "" : ";");
    }
    if (state->sections > listed)
        append(buf, size, "and %u more", state->sections - listed);
}
