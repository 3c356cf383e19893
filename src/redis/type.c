/*
 * type.c — the "tdbf-filt" Redis data type.
 *
 * A key holds a tdbf_value: a libtdbf filter, or, while a TDBF.LOADCHUNK
 * restore is in progress, the serialized bytes received so far.  Every
 * persistent form uses the library's own byte format (docs/format.md:
 * magic, version, design, parameters, payload, XXH3-64 checksum) and its
 * validating loader, so RDB files, AOF rewrites, DUMP/RESTORE payloads and
 * TDBF.SCANDUMP chunks are all checked the same way before a byte of them
 * is trusted.
 *
 * RDB value, encoding version 1 (all integers as RedisModule_SaveUnsigned):
 *
 *     kind              0 = a filter, 1 = a restore in progress
 *     total             bytes of the serialized filter (kind 0: exactly
 *                       tdbf_saved_size; kind 1: the size the restore
 *                       expects)
 *     kind 1 only:      received, bytes held so far (< total)
 *     string buffers    the bytes (kind 0: all total of them; kind 1: the
 *                       `received` held ones), cut into pieces of
 *                       TDBF_CHUNK_BYTES, the last one shorter
 *
 * The filter is streamed through tdbf_save/tdbf_load in those pieces: a
 * save never holds a second copy of a filter, a load at most one piece.
 * A value that fails any check (unknown encoding version or kind, piece
 * sizes that do not add up, the library loader's field checks, its
 * checksum) is logged and refused: rdb_load returns NULL, which Redis
 * reports as a bad RDB value (RESTORE answers an error; a server loading
 * its RDB at start-up stops with the log line) — never a crash.
 *
 * AOF rewrite emits the same pieces as TDBF.LOADCHUNK commands, so an AOF
 * replay rebuilds the filter byte for byte; DEBUG DIGEST-VALUE hashes the
 * same bytes.
 */
#include <stdio.h>
#include <string.h>

#include "tdbf_module.h"

#define KIND_FILTER  0
#define KIND_RESTORE 1

/* Offsets in the format's header (docs/format.md). */
#define HEADER_MAGIC_BYTES   8
#define HEADER_PAYLOAD_AT    48
#define HEADER_BYTES         56
#define TRAILER_BYTES        8

static const unsigned char format_magic[HEADER_MAGIC_BYTES] = {
    0x89, 'T', 'D', 'B', 'F', '\r', '\n', 0x1a
};

/* The largest serialized filter the module accepts from outside. */
static uint64_t max_serialized_bytes(void)
{
    uint64_t cap = tdbf_settings.max_memory ? tdbf_settings.max_memory
                                            : TDBF_DEFAULT_MAX_MEMORY;
    return cap + HEADER_BYTES + TRAILER_BYTES;
}

/* ======================================================================
 * Values
 * ====================================================================== */

void tdbf_value_set_filter(tdbf_value *v, tdbf *filter)
{
    tdbf_stats st;
    v->filter = filter;
    /* Read once: tdbf_get_stats may cost O(memory). */
    bool ok = filter && tdbf_get_stats(filter, &st) == TDBF_OK;
    v->timed = ok && st.window_ns != 0;
    v->window_items = ok ? st.window_items : 0;
}

tdbf_value *tdbf_value_new(tdbf *filter)
{
    tdbf_value *v = RedisModule_Calloc(1, sizeof *v);
    tdbf_value_set_filter(v, filter);
    return v;
}

void tdbf_value_free(void *value)
{
    tdbf_value *v = value;
    if (!v)
        return;
    tdbf_close(v->filter);
    if (v->restore)
        RedisModule_Free(v->restore);
    RedisModule_Free(v);
}

/* ======================================================================
 * Serializing in fixed pieces
 * ====================================================================== */

typedef struct chunker {
    unsigned char *buf;     /* TDBF_CHUNK_BYTES */
    size_t         fill;
    uint64_t       pos;     /* bytes of the serialization seen so far */
    uint64_t       from;    /* first byte wanted */
    uint64_t       end;     /* one past the last byte wanted */
    tdbf_chunk_fn  sink;
    void          *ctx;
    int            sink_rc; /* nonzero: the sink failed */
    bool           stopped; /* past `end`: the save was cut short on purpose */
} chunker;

static int chunker_flush(chunker *c)
{
    if (c->fill == 0)
        return 0;
    int rc = c->sink(c->ctx, c->buf, c->fill);
    c->fill = 0;
    if (rc)
        c->sink_rc = rc;
    return rc;
}

static int chunker_write(void *ctx, const void *data, size_t len)
{
    chunker *c = ctx;
    const unsigned char *in = data;
    while (len > 0) {
        if (c->pos >= c->end) {
            c->stopped = true;
            return 1;      /* nothing more wanted: stop tdbf_save early */
        }
        if (c->pos < c->from) {
            uint64_t skip = c->from - c->pos;
            size_t n = skip < len ? (size_t)skip : len;
            c->pos += n;
            in += n;
            len -= n;
            continue;
        }
        uint64_t want = c->end - c->pos;
        size_t room = TDBF_CHUNK_BYTES - c->fill;
        size_t n = len < room ? len : room;
        if (n > want)
            n = (size_t)want;
        memcpy(c->buf + c->fill, in, n);
        c->fill += n;
        c->pos += n;
        in += n;
        len -= n;
        if (c->fill == TDBF_CHUNK_BYTES && chunker_flush(c))
            return 1;
    }
    return 0;
}

int tdbf_serialize_chunks(const tdbf *f, uint64_t from, uint64_t limit,
                          tdbf_chunk_fn sink, void *ctx)
{
    chunker c = {
        .buf = RedisModule_Alloc(TDBF_CHUNK_BYTES),
        .from = from,
        .end = limit > UINT64_MAX - from ? UINT64_MAX : from + limit,
        .sink = sink,
        .ctx = ctx,
    };
    int rc = tdbf_save(f, chunker_write, &c);
    if (rc == TDBF_EIO && c.stopped && !c.sink_rc)
        rc = TDBF_OK;
    if (rc == TDBF_OK && chunker_flush(&c))
        rc = TDBF_EIO;
    RedisModule_Free(c.buf);
    return rc;
}

/* Hand `len` bytes of plain memory to a sink in TDBF_CHUNK_BYTES pieces. */
static int emit_bytes(const unsigned char *buf, uint64_t len, tdbf_chunk_fn sink,
                      void *ctx)
{
    for (uint64_t at = 0; at < len; at += TDBF_CHUNK_BYTES) {
        uint64_t n = len - at < TDBF_CHUNK_BYTES ? len - at : TDBF_CHUNK_BYTES;
        if (sink(ctx, buf + at, (size_t)n))
            return TDBF_EIO;
    }
    return TDBF_OK;
}

/* A value's bytes: the filter's serialization, or the restore's bytes. */
static int emit_value(const tdbf_value *v, tdbf_chunk_fn sink, void *ctx)
{
    return v->filter ? tdbf_serialize_chunks(v->filter, 0, UINT64_MAX, sink, ctx)
                     : emit_bytes(v->restore, v->restore_len, sink, ctx);
}

/* ======================================================================
 * RDB
 * ====================================================================== */

static int rdb_sink(void *ctx, const unsigned char *buf, size_t len)
{
    RedisModule_SaveStringBuffer(ctx, (const char *)buf, len);
    return 0;
}

static void type_rdb_save(RedisModuleIO *rdb, void *value)
{
    tdbf_value *v = value;
    if (v->filter) {
        RedisModule_SaveUnsigned(rdb, KIND_FILTER);
        RedisModule_SaveUnsigned(rdb, tdbf_saved_size(v->filter));
    } else {
        RedisModule_SaveUnsigned(rdb, KIND_RESTORE);
        RedisModule_SaveUnsigned(rdb, v->restore_total);
        RedisModule_SaveUnsigned(rdb, v->restore_len);
    }
    int rc = emit_value(v, rdb_sink, rdb);
    if (rc != TDBF_OK)
        RedisModule_LogIOError(rdb, "warning", "tdbf: cannot serialize a filter: %s",
                               tdbf_strerror(rc));
}

/* Reads the string-buffer pieces of a value, for tdbf_load. */
typedef struct rdb_reader {
    RedisModuleIO *io;
    char          *piece;
    size_t         piece_len;
    size_t         pos;
    uint64_t       remaining;  /* bytes of pieces not yet loaded */
    const char    *problem;    /* why the last read failed */
} rdb_reader;

static int rdb_next_piece(rdb_reader *r)
{
    if (r->piece) {
        RedisModule_Free(r->piece);
        r->piece = NULL;
    }
    r->piece_len = r->pos = 0;
    if (r->remaining == 0) {
        r->problem = "the value is shorter than its header says";
        return 1;
    }
    size_t n = 0;
    char *piece = RedisModule_LoadStringBuffer(r->io, &n);
    if (RedisModule_IsIOError(r->io) || !piece) {
        if (piece)
            RedisModule_Free(piece);
        r->problem = "the RDB stream ended or failed";
        return 1;
    }
    if (n == 0 || n > TDBF_CHUNK_BYTES || n > r->remaining) {
        RedisModule_Free(piece);
        r->problem = "a piece of the value has an impossible length";
        return 1;
    }
    r->piece = piece;
    r->piece_len = n;
    r->remaining -= n;
    return 0;
}

static int rdb_read(void *ctx, void *buf, size_t len)
{
    rdb_reader *r = ctx;
    unsigned char *out = buf;
    while (len > 0) {
        if (r->pos == r->piece_len && rdb_next_piece(r))
            return 1;
        size_t n = r->piece_len - r->pos;
        if (n > len)
            n = len;
        memcpy(out, r->piece + r->pos, n);
        r->pos += n;
        out += n;
        len -= n;
    }
    return 0;
}

static void *type_rdb_load(RedisModuleIO *rdb, int encver)
{
    if (encver != TDBF_TYPE_ENCVER) {
        RedisModule_LogIOError(rdb, "warning",
                               "tdbf: refusing a value of encoding version %d "
                               "(this module reads version %d)", encver, TDBF_TYPE_ENCVER);
        return NULL;
    }
    uint64_t kind = RedisModule_LoadUnsigned(rdb);
    uint64_t total = RedisModule_LoadUnsigned(rdb);
    if (RedisModule_IsIOError(rdb))
        return NULL;
    if (total < HEADER_BYTES + TRAILER_BYTES || total > max_serialized_bytes()) {
        RedisModule_LogIOError(rdb, "warning",
                               "tdbf: refusing a value of %llu bytes (allowed: %llu to %llu)",
                               (unsigned long long)total,
                               (unsigned long long)(HEADER_BYTES + TRAILER_BYTES),
                               (unsigned long long)max_serialized_bytes());
        return NULL;
    }
    if (kind == KIND_FILTER) {
        rdb_reader r = {.io = rdb, .remaining = total};
        tdbf_load_options opts = {.max_memory = tdbf_settings.max_memory, .allocator = NULL};
        tdbf *f = NULL;
        int rc = tdbf_load(&f, rdb_read, &r, &opts);
        bool leftover = rc == TDBF_OK && (r.remaining != 0 || r.pos != r.piece_len);
        if (r.piece)
            RedisModule_Free(r.piece);
        if (rc != TDBF_OK || leftover) {
            tdbf_close(f);
            RedisModule_LogIOError(rdb, "warning", "tdbf: refusing a corrupt filter value: %s%s%s",
                                   leftover ? "bytes after the checksum" : tdbf_strerror(rc),
                                   r.problem ? ": " : "", r.problem ? r.problem : "");
            return NULL;
        }
        return tdbf_value_new(f);
    }
    if (kind == KIND_RESTORE) {
        uint64_t received = RedisModule_LoadUnsigned(rdb);
        if (RedisModule_IsIOError(rdb) || received >= total) {
            RedisModule_LogIOError(rdb, "warning", "tdbf: refusing a corrupt restore value");
            return NULL;
        }
        unsigned char *bytes = tdbf_module_try_alloc(total);
        if (!bytes) {
            RedisModule_LogIOError(rdb, "warning", "tdbf: out of memory loading a restore value");
            return NULL;
        }
        rdb_reader r = {.io = rdb, .remaining = received};
        int bad = received ? rdb_read(&r, bytes, (size_t)received) : 0;
        if (r.piece)
            RedisModule_Free(r.piece);
        if (bad || r.remaining != 0 || r.pos != r.piece_len) {
            RedisModule_Free(bytes);
            RedisModule_LogIOError(rdb, "warning", "tdbf: refusing a corrupt restore value: %s",
                                   r.problem ? r.problem : "pieces do not add up");
            return NULL;
        }
        tdbf_value *v = tdbf_value_new(NULL);
        v->restore = bytes;
        v->restore_len = received;
        v->restore_total = total;
        return v;
    }
    RedisModule_LogIOError(rdb, "warning", "tdbf: refusing a value of unknown kind %llu",
                           (unsigned long long)kind);
    return NULL;
}

/* ======================================================================
 * AOF rewrite: TDBF.LOADCHUNK key cursor piece, the pieces in order.
 * A cursor is 1 + the offset one past the piece (TDBF.SCANDUMP's).
 * ====================================================================== */

typedef struct aof_emitter {
    RedisModuleIO     *aof;
    RedisModuleString *key;
    uint64_t           offset;
} aof_emitter;

static int aof_sink(void *ctx, const unsigned char *buf, size_t len)
{
    aof_emitter *e = ctx;
    e->offset += len;
    RedisModule_EmitAOF(e->aof, "TDBF.LOADCHUNK", "slb", e->key,
                        (long long)(e->offset + 1), (const char *)buf, len);
    return 0;
}

static void type_aof_rewrite(RedisModuleIO *aof, RedisModuleString *key, void *value)
{
    tdbf_value *v = value;
    aof_emitter e = {.aof = aof, .key = key, .offset = 0};
    int rc = emit_value(v, aof_sink, &e);
    if (rc != TDBF_OK)
        RedisModule_LogIOError(aof, "warning", "tdbf: cannot rewrite a filter: %s",
                               tdbf_strerror(rc));
}

/* ======================================================================
 * Digest, memory usage, copy
 * ====================================================================== */

static int digest_sink(void *ctx, const unsigned char *buf, size_t len)
{
    RedisModule_DigestAddStringBuffer(ctx, (const char *)buf, len);
    return 0;
}

static void type_digest(RedisModuleDigest *md, void *value)
{
    tdbf_value *v = value;
    RedisModule_DigestAddLongLong(md, v->filter ? KIND_FILTER : KIND_RESTORE);
    emit_value(v, digest_sink, md);
    RedisModule_DigestEndSequence(md);
}

static size_t type_mem_usage(const void *value)
{
    const tdbf_value *v = value;
    size_t bytes = sizeof *v;
    if (v->filter) {
        tdbf_stats st;
        if (tdbf_get_stats(v->filter, &st) == TDBF_OK)
            bytes += (size_t)st.memory_bytes;
    } else {
        bytes += (size_t)v->restore_total;
    }
    return bytes;
}

typedef struct buffer_sink {
    unsigned char *buf;
    uint64_t       len;
    uint64_t       cap;
} buffer_sink;

static int buffer_append(void *ctx, const unsigned char *buf, size_t len)
{
    buffer_sink *b = ctx;
    if (len > b->cap - b->len)
        return 1;
    memcpy(b->buf + b->len, buf, len);
    b->len += len;
    return 0;
}

static void *type_copy(RedisModuleString *fromkey, RedisModuleString *tokey,
                       const void *value)
{
    (void)fromkey;
    (void)tokey;
    const tdbf_value *v = value;
    uint64_t size = v->filter ? tdbf_saved_size(v->filter) : v->restore_total;
    buffer_sink b = {.buf = tdbf_module_try_alloc(size), .len = 0, .cap = size};
    if (!b.buf)
        return NULL;
    tdbf_value *copy = NULL;
    if (v->filter) {
        tdbf *f = NULL;
        if (tdbf_serialize_chunks(v->filter, 0, UINT64_MAX, buffer_append, &b) == TDBF_OK &&
            tdbf_load_buffer(&f, b.buf, (size_t)b.len, NULL) == TDBF_OK)
            copy = tdbf_value_new(f);
        RedisModule_Free(b.buf);
    } else {
        memcpy(b.buf, v->restore, (size_t)v->restore_len);
        copy = tdbf_value_new(NULL);
        copy->restore = b.buf;
        copy->restore_len = v->restore_len;
        copy->restore_total = v->restore_total;
    }
    return copy;   /* NULL: COPY answers an error */
}

/* ======================================================================
 * TDBF.LOADCHUNK restores
 * ====================================================================== */

static uint64_t read_le64(const unsigned char *p)
{
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = (x << 8) | p[i];
    return x;
}

const char *tdbf_restore_start(tdbf_value **out, const unsigned char *chunk, size_t len)
{
    *out = NULL;
    if (len < HEADER_BYTES)
        return "ERR the first chunk must hold the whole 56-byte header";
    if (memcmp(chunk, format_magic, sizeof format_magic) != 0)
        return "ERR the chunk is not a tdbf dump (bad magic)";
    uint64_t payload = read_le64(chunk + HEADER_PAYLOAD_AT);
    uint64_t cap = max_serialized_bytes() - HEADER_BYTES - TRAILER_BYTES;
    if (payload > cap)
        return "ERR the dump is larger than this server's MAX_MEMORY for a filter";
    uint64_t total = HEADER_BYTES + payload + TRAILER_BYTES;
    if (len > total)
        return "ERR the chunk is longer than the dump its header describes";
    unsigned char *bytes = tdbf_module_try_alloc(total);
    if (!bytes)
        return "ERR out of memory for the restore";
    tdbf_value *v = tdbf_value_new(NULL);
    v->restore = bytes;
    v->restore_total = total;
    v->restore_len = 0;
    *out = v;
    return NULL;
}

const char *tdbf_restore_append(tdbf_value *v, uint64_t offset,
                                const unsigned char *chunk, size_t len,
                                bool *done, bool *fatal)
{
    *done = false;
    *fatal = false;
    if (v->filter)
        return "ERR the key already holds a complete filter";
    if (offset != v->restore_len)
        return "ERR chunk out of order: its cursor does not follow the previous chunk";
    if (len > v->restore_total - v->restore_len) {
        *fatal = true;
        return "ERR the chunk runs past the end of the dump";
    }
    memcpy(v->restore + v->restore_len, chunk, len);
    v->restore_len += len;
    if (v->restore_len < v->restore_total)
        return NULL;

    tdbf_load_options opts = {.max_memory = tdbf_settings.max_memory, .allocator = NULL};
    tdbf *f = NULL;
    int rc = tdbf_load_buffer(&f, v->restore, (size_t)v->restore_total, &opts);
    if (rc != TDBF_OK) {
        *fatal = true;
        static char message[160];
        snprintf(message, sizeof message, "ERR the dump is invalid: %s", tdbf_strerror(rc));
        return message;
    }
    RedisModule_Free(v->restore);
    v->restore = NULL;
    v->restore_len = v->restore_total = 0;
    tdbf_value_set_filter(v, f);
    *done = true;
    return NULL;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

int tdbf_type_register(RedisModuleCtx *ctx)
{
    RedisModuleTypeMethods methods = {
        .version = REDISMODULE_TYPE_METHOD_VERSION,
        .rdb_load = type_rdb_load,
        .rdb_save = type_rdb_save,
        .aof_rewrite = type_aof_rewrite,
        .mem_usage = type_mem_usage,
        .digest = type_digest,
        .free = tdbf_value_free,
        .copy = type_copy,
    };
    tdbf_type = RedisModule_CreateDataType(ctx, TDBF_TYPE_NAME, TDBF_TYPE_ENCVER, &methods);
    return tdbf_type ? REDISMODULE_OK : REDISMODULE_ERR;
}
