/*
 * codec.c — the serialized form of a filter (docs/format.md).
 *
 * Layout, all integers little-endian, doubles as their IEEE-754 bits:
 *
 *     offset  size  field
 *          0     8  magic 89 54 44 42 46 0D 0A 1A  ("\x89TDBF\r\n\x1a": a
 *                   high byte catches 7-bit channels, CR LF catches
 *                   newline translation, ^Z stops DOS type)
 *          8     4  format version (1)
 *         12     4  design (tdbf_design value)
 *         16     8  seed (never 0)
 *         24     8  items: adds since open
 *         32     8  now_ns: the largest time seen
 *         40     8  error: configured FP rate, 0 < e < 1
 *         48     8  payload length P in bytes
 *         56     P  payload: the design's parameters, state and arrays
 *     56 + P     8  XXH3-64 (seed 0) of bytes 0 .. 56+P-1
 *     64 + P     …  sections, zero or more (section.c): whole inputs
 *                   (buffers, files) may carry them, tdbf_load stops
 *                   before them
 *
 * Writing streams through a callback in pieces (a header field, a few KiB
 * of words at a time): a 10 GB filter is never copied.  Reading checks
 * each field as it arrives, and the design's loader checks its parameters
 * against each other, against the payload length and against the memory
 * cap before it allocates anything; the checksum is verified last, so a
 * bit flip that leaves every field plausible is still caught.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/serial.h"
#include "util/mem.h"
#include "util/check.h"
#include "designs/ops.h"

enum { FORMAT_VERSION = 1, HEADER_BYTES = 56, TRAILER_BYTES = 8 };

static const unsigned char MAGIC[8] = {0x89, 'T', 'D', 'B', 'F', '\r', '\n', 0x1a};

/* ---- save ------------------------------------------------------------ */

uint64_t tdbf_saved_size(const tdbf *f)
{
    if (!f)
        return 0;
    return HEADER_BYTES + f->ops->payload_size(f) + TRAILER_BYTES;
}

int tdbf_save(const tdbf *f, tdbf_write_fn write, void *ctx)
{
    if (!f || !write)
        return TDBF_EINVAL;
    tdbf_out out = {.write = write, .ctx = ctx, .rc = TDBF_OK};
    tdbf_checksum_init(&out.sum);
    tdbf_out_bytes(&out, MAGIC, sizeof MAGIC);
    tdbf_out_u32(&out, FORMAT_VERSION);
    tdbf_out_u32(&out, (uint32_t)f->design);
    tdbf_out_u64(&out, f->seed);
    tdbf_out_u64(&out, tdbf_items(f));
    tdbf_out_u64(&out, f->now_ns);
    tdbf_out_f64(&out, f->error);
    tdbf_out_u64(&out, f->ops->payload_size(f));
    f->ops->save(f, &out);
    if (out.rc != TDBF_OK)
        return out.rc;
    /* ops.h: payload_size is the exact byte count save writes (readers
     * size buffers by it, tdbf_copy among them). */
    TDBF_ASSERT(out.written == HEADER_BYTES + f->ops->payload_size(f));
    unsigned char trailer[8];
    tdbf_store_le64(trailer, tdbf_checksum_value(&out.sum));
    return write(ctx, trailer, sizeof trailer) == 0 ? TDBF_OK : TDBF_EIO;
}

/* ---- load ------------------------------------------------------------ */

typedef struct header {
    uint32_t design;
    uint64_t seed, items, now_ns, payload;
    double   error;
} header;

static int read_header(tdbf_in *in, header *h)
{
    unsigned char magic[sizeof MAGIC];
    uint32_t version;
    in->remaining = HEADER_BYTES;
    if (tdbf_in_bytes(in, magic, sizeof magic) != TDBF_OK ||
        memcmp(magic, MAGIC, sizeof MAGIC) != 0)
        return TDBF_ECORRUPT;
    if (tdbf_in_u32(in, &version) != TDBF_OK)
        return TDBF_ECORRUPT;
    if (version != FORMAT_VERSION)
        return TDBF_EVERSION;
    tdbf_in_u32(in, &h->design);
    tdbf_in_u64(in, &h->seed);
    tdbf_in_u64(in, &h->items);
    tdbf_in_u64(in, &h->now_ns);
    tdbf_in_f64(in, &h->error);
    tdbf_in_u64(in, &h->payload);
    if (in->rc != TDBF_OK)
        return in->rc;
    if (h->design >= TDBF_DESIGN_COUNT)
        return TDBF_ECORRUPT;
    if (!tdbf_design_available((tdbf_design)h->design))
        return TDBF_EDESIGN;
    if (h->seed == 0 || !(h->error > 0.0 && h->error < 1.0))
        return TDBF_ECORRUPT;
    return TDBF_OK;
}

static int verify_checksum(tdbf_in *in)
{
    unsigned char trailer[8];
    uint64_t expected = tdbf_checksum_value(&in->sum);
    if (in->remaining != 0 || in->read(in->ctx, trailer, sizeof trailer) != 0)
        return TDBF_ECORRUPT;
    return tdbf_load_le64(trailer) == expected ? TDBF_OK : TDBF_ECORRUPT;
}

int tdbf_load(tdbf **out, tdbf_read_fn read, void *ctx, const tdbf_load_options *opts)
{
    if (!out)
        return TDBF_EINVAL;
    *out = NULL;
    if (!read)
        return TDBF_EINVAL;
    uint64_t max_memory = opts && opts->max_memory ? opts->max_memory
                                                   : TDBF_DEFAULT_MAX_MEMORY;
    const tdbf_allocator *alloc = opts && opts->allocator ? opts->allocator
                                                          : tdbf_default_allocator();
    tdbf_in in = {.read = read, .ctx = ctx, .rc = TDBF_OK};
    tdbf_checksum_init(&in.sum);
    header h;
    int rc = read_header(&in, &h);
    if (rc != TDBF_OK)
        return rc;
    const tdbf_ops *ops = tdbf_design_ops((tdbf_design)h.design);
    TDBF_ASSERT(ops != NULL);   /* read_header checked the design */
    bool concurrent = opts && opts->concurrent;
    if (concurrent && !ops->concurrent && !ops->concurrent_on_request)
        return TDBF_ENOTSUP;
    /* The payload is the filter's memory, give or take its bookkeeping. */
    if (!tdbf_fits((double)h.payload, max_memory))
        return TDBF_ETOOBIG;

    tdbf *f = tdbf_shell_new(alloc, (tdbf_design)h.design, h.error, h.seed);
    if (!f)
        return TDBF_ENOMEM;
    f->items = h.items;
    f->now_ns = h.now_ns;
    f->concurrent = f->concurrent || concurrent;
    in.remaining = h.payload;
    rc = ops->load(f, &in, max_memory);
    if (rc == TDBF_OK && in.rc != TDBF_OK)
        rc = in.rc;   /* the loader ignored a failed read */
    if (rc != TDBF_OK) {
        tdbf_shell_free(f);   /* the loader freed what it allocated */
        return rc;
    }
    rc = verify_checksum(&in);
    if (rc != TDBF_OK) {
        tdbf_close(f);
        return rc;
    }
    /* A valid payload is read whole, and saving the filter again writes
     * as many bytes (what tdbf_copy and the size checks rely on). */
    TDBF_ASSERT(in.remaining == 0 && ops->payload_size(f) == h.payload);
    *out = f;
    return TDBF_OK;
}

/* ---- buffers and files ------------------------------------------------- */

/* A whole input holds the filter record and then only well-formed
 * sections (section.c): what the walk over them returned decides whether
 * the loaded filter is kept. */
static int after_filter(tdbf **out, int sections_rc)
{
    if (sections_rc != TDBF_OK) {
        tdbf_close(*out);
        *out = NULL;
    }
    return sections_rc;
}

typedef struct buffer_source {
    const unsigned char *data;
    size_t left;
} buffer_source;

static int read_buffer(void *ctx, void *buf, size_t len)
{
    buffer_source *src = ctx;
    if (len > src->left)
        return -1;
    memcpy(buf, src->data, len);
    src->data += len;
    src->left -= len;
    return 0;
}

int tdbf_load_buffer(tdbf **out, const void *buf, size_t len,
                     const tdbf_load_options *opts)
{
    if (!buf && len)
        return TDBF_EINVAL;
    buffer_source src = {buf, len};
    int rc = tdbf_load(out, read_buffer, &src, opts);
    if (rc == TDBF_OK)
        rc = after_filter(out, tdbf_read_sections(read_buffer, &src, NULL, NULL, NULL));
    return rc;
}

/* Buffered writes to a file descriptor. */
typedef struct file_sink {
    int fd;
    size_t used;
    unsigned char buf[1 << 16];
} file_sink;

static int flush_sink(file_sink *s)
{
    size_t done = 0;
    while (done < s->used) {
        ssize_t n = write(s->fd, s->buf + done, s->used - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    s->used = 0;
    return 0;
}

static int write_sink(void *ctx, const void *buf, size_t len)
{
    file_sink *s = ctx;
    const unsigned char *p = buf;
    while (len > 0) {
        if (s->used == sizeof s->buf && flush_sink(s) != 0)
            return -1;
        size_t room = sizeof s->buf - s->used;
        size_t n = len < room ? len : room;
        memcpy(s->buf + s->used, p, n);
        s->used += n;
        p += n;
        len -= n;
    }
    return 0;
}

/* fsync the directory holding path, so the rename itself is durable. */
static int sync_parent(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    free(copy);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int tdbf_save_file(const tdbf *f, const char *path)
{
    if (!f || !path)
        return TDBF_EINVAL;
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    file_sink *sink = malloc(sizeof *sink);
    if (!tmp || !sink) {
        free(tmp);
        free(sink);
        return TDBF_ENOMEM;
    }
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp.XXXXXX", 12);
    int rc = TDBF_EIO;
    sink->fd = mkstemp(tmp);
    sink->used = 0;
    if (sink->fd >= 0) {
        rc = tdbf_save(f, write_sink, sink);
        if (rc == TDBF_OK && (flush_sink(sink) != 0 || fsync(sink->fd) != 0))
            rc = TDBF_EIO;
        if (close(sink->fd) != 0 && rc == TDBF_OK)
            rc = TDBF_EIO;
        if (rc == TDBF_OK && (rename(tmp, path) != 0 || sync_parent(path) != 0))
            rc = TDBF_EIO;
        if (rc != TDBF_OK) {
            int saved = errno;
            unlink(tmp);
            errno = saved;
        }
    }
    free(tmp);
    free(sink);
    return rc;
}

static int read_file(void *ctx, void *buf, size_t len)
{
    return fread(buf, 1, len, ctx) == len ? 0 : -1;
}

int tdbf_load_file(tdbf **out, const char *path, const tdbf_load_options *opts)
{
    if (!out)
        return TDBF_EINVAL;
    *out = NULL;
    if (!path)
        return TDBF_EINVAL;
    FILE *file = fopen(path, "rb");
    if (!file)
        return TDBF_EIO;
    int rc = tdbf_load(out, read_file, file, opts);
    if (rc == TDBF_OK) {
        rc = tdbf_read_sections(read_file, file, NULL, NULL, NULL);
        rc = after_filter(out, rc == TDBF_OK && ferror(file) ? TDBF_EIO : rc);
    }
    if (rc == TDBF_ECORRUPT && ferror(file))
        rc = TDBF_EIO;
    fclose(file);
    return rc;
}
