/*
 * dedup_state.c — load and save the state files of `tdbf dedup` (the
 * layout is in dedup_state.h and docs/format.md).
 *
 * The filter goes through tdbf_save / tdbf_load with stdio callbacks, so
 * the library's own format and checks apply unchanged; the key section
 * follows it in the same file, which is written to a temporary name and
 * renamed, so the two are always saved together.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fsync, fdopen */

#include "dedup_state.h"
#include "dedup_parse.h"
#include "common/printf_attr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char section_magic[8] = {'T', 'D', 'B', 'F', 'K', 'E', 'Y', 'S'};

enum {
    SECTION_VERSION = 1,
    BODY_FIXED = 8 + 8 + 4 * 5,   /* the body before the regex bytes */
    REGEX_MAX = 1 << 16           /* a longer pattern is not a real one */
};

/* ---- little-endian fields and the body's checksum ------------------------ */

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

/* FNV-1a, 64 bits: enough to tell a torn or edited section. */
static uint64_t fnv1a(const unsigned char *p, size_t len)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* ---- loading --------------------------------------------------------------- */

static int read_stdio(void *ctx, void *buf, size_t len)
{
    return fread(buf, 1, len, ctx) == len ? 0 : -1;
}

/* The key section after the filter, if any.  Returns DEDUP_STATE_OK,
 * DEDUP_STATE_CORRUPT (*why) or DEDUP_STATE_NOMEM. */
static int read_section(FILE *file, dedup_state *state, const char **why)
{
    unsigned char head[16];
    size_t got = fread(head, 1, sizeof head, file);
    if (got == 0 && feof(file))
        return DEDUP_STATE_OK;            /* an older state: no section */
    *why = "bytes after the filter are not a tdbf dedup key section";
    if (got != sizeof head || memcmp(head, section_magic, sizeof section_magic) != 0)
        return DEDUP_STATE_CORRUPT;
    if (get_u32(head + 8) != SECTION_VERSION) {
        *why = "its key section has a version this tdbf does not read";
        return DEDUP_STATE_CORRUPT;
    }
    uint32_t size = get_u32(head + 12);
    if (size < BODY_FIXED || size > BODY_FIXED + REGEX_MAX) {
        *why = "its key section has an impossible length";
        return DEDUP_STATE_CORRUPT;
    }
    unsigned char *body = malloc((size_t)size + 8);
    if (body == NULL)
        return DEDUP_STATE_NOMEM;
    int rc = DEDUP_STATE_CORRUPT;
    *why = "its key section is truncated or damaged";
    if (fread(body, 1, (size_t)size + 8, file) != (size_t)size + 8 ||
        fgetc(file) != EOF || get_u64(body + size) != fnv1a(body, size))
        goto done;
    uint32_t delimiter = get_u32(body + 20);
    uint32_t regex_len = get_u32(body + 32);
    if (regex_len != size - BODY_FIXED || (delimiter > 255 && delimiter != UINT32_MAX) ||
        memchr(body + BODY_FIXED, '\0', regex_len) != NULL)
        goto done;
    dedup_keyspec *spec = &state->spec;
    spec->window_items = get_u64(body);
    spec->window_ns = get_u64(body + 8);
    spec->field = get_u32(body + 16);
    spec->delimiter = delimiter == UINT32_MAX ? DEDUP_BLANKS : (int)delimiter;
    spec->time_field = get_u32(body + 24);
    spec->time_format = get_u32(body + 28);
    spec->regex = NULL;
    if (regex_len > 0) {
        state->regex_buf = malloc(regex_len + 1);
        if (state->regex_buf == NULL) {
            rc = DEDUP_STATE_NOMEM;
            goto done;
        }
        memcpy(state->regex_buf, body + BODY_FIXED, regex_len);
        state->regex_buf[regex_len] = '\0';
        spec->regex = state->regex_buf;
    }
    state->has_spec = 1;
    rc = DEDUP_STATE_OK;
done:
    free(body);
    return rc;
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
    rc = read_section(file, state, why);
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
    free(state->regex_buf);
    memset(state, 0, sizeof *state);
}

/* ---- saving ---------------------------------------------------------------- */

static int write_stdio(void *ctx, const void *buf, size_t len)
{
    return fwrite(buf, 1, len, ctx) == len ? 0 : -1;
}

/* The section of `spec`, in a new buffer of *len bytes (NULL: no memory). */
static unsigned char *encode_section(const dedup_keyspec *spec, size_t *len)
{
    size_t regex_len = spec->regex != NULL ? strlen(spec->regex) : 0;
    if (regex_len > REGEX_MAX)
        regex_len = REGEX_MAX;   /* the parser never lets one this long by */
    size_t body = BODY_FIXED + regex_len;
    unsigned char *out = malloc(16 + body + 8);
    if (out == NULL)
        return NULL;
    unsigned char *p = out + 16;
    memcpy(out, section_magic, sizeof section_magic);
    put_u32(out + 8, SECTION_VERSION);
    put_u32(out + 12, (uint32_t)body);
    put_u64(p, spec->window_items);
    put_u64(p + 8, spec->window_ns);
    put_u32(p + 16, spec->field);
    put_u32(p + 20, spec->delimiter == DEDUP_BLANKS ? UINT32_MAX : (uint32_t)spec->delimiter);
    put_u32(p + 24, spec->time_field);
    put_u32(p + 28, spec->time_format);
    put_u32(p + 32, (uint32_t)regex_len);
    if (regex_len > 0)
        memcpy(p + BODY_FIXED, spec->regex, regex_len);
    put_u64(p + body, fnv1a(p, body));
    *len = 16 + body + 8;
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

/* Filter, then section, into an open temporary file; flushed and synced. */
static int write_all_of(FILE *out, const tdbf *f, const unsigned char *section,
                        size_t section_len)
{
    if (tdbf_save(f, write_stdio, out) != TDBF_OK ||
        fwrite(section, 1, section_len, out) != section_len || fflush(out) != 0 ||
        fsync(fileno(out)) != 0)
        return -1;
    return 0;
}

static void unlink_keeping_errno(const char *name)
{
    int saved = errno;
    unlink(name);
    errno = saved;
}

int dedup_state_save(const char *path, const tdbf *f, const dedup_keyspec *spec)
{
    size_t section_len = 0;
    unsigned char *section = encode_section(spec, &section_len);
    char *temp = temp_name(path);
    if (section == NULL || temp == NULL) {
        free(section);
        free(temp);
        return DEDUP_STATE_NOMEM;
    }
    int rc = DEDUP_STATE_IO;
    int fd = mkstemp(temp);
    FILE *out = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (out == NULL && fd >= 0)
        close(fd);
    if (out != NULL) {
        int failed = write_all_of(out, f, section, section_len);
        failed |= fclose(out) != 0;
        if (!failed && rename(temp, path) == 0 && sync_directory(path) == 0)
            rc = DEDUP_STATE_OK;
    }
    if (rc != DEDUP_STATE_OK && fd >= 0)
        unlink_keeping_errno(temp);   /* errno says why the save failed */
    free(section);
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

static int same_regex(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

int dedup_keyspec_equal(const dedup_keyspec *a, const dedup_keyspec *b)
{
    /* the delimiter matters only where a field is cut out */
    int cuts = a->field != 0 || a->time_field != 0;
    return a->field == b->field && a->time_field == b->time_field &&
           a->time_format == b->time_format && same_regex(a->regex, b->regex) &&
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
    buf[0] = '\0';
    if (spec->field != 0)
        append(buf, size, "--field %u", spec->field);
    if (spec->regex != NULL)
        append(buf, size, "--key-regex '%s'", spec->regex);
    if (spec->time_field != 0)
        append(buf, size, "--time-field %u --time-format %s", spec->time_field,
               dedup_time_format_name((dedup_time_format)spec->time_format));
    if ((spec->field != 0 || spec->time_field != 0) && spec->delimiter != DEDUP_BLANKS) {
        if (spec->delimiter == '\t')
            append(buf, size, "--delimiter '\\t'");
        else
            append(buf, size, "--delimiter '%c'", spec->delimiter);
    }
    if (spec->field == 0 && spec->regex == NULL)
        append(buf, size, "%s", spec->time_field != 0 ? "(key: the whole line)"
                                                      : "(key: the whole line; time: arrival)");
}
