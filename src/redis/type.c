/*
 * type.c — the "tdbf-filt" Redis data type (layer 2, type.h).
 *
 * A key holds a rtdbf_value: a libtdbf filter, or, while a TDBF.LOADCHUNK
 * restore is in progress, the serialized bytes received so far.  Every
 * persistent form uses the library's own byte format (docs/format.md:
 * magic, version, design, parameters, payload, XXH3-64 checksum) and its
 * validating loader, so RDB files, AOF rewrites, DUMP/RESTORE payloads and
 * TDBF.SCANDUMP chunks are all checked the same way before a byte of them
 * is trusted.
 *
 * RDB value, encoding version 2 (all integers as RedisModule_SaveUnsigned):
 *
 *     kind              0 = a filter, 1 = a restore in progress
 *     total             bytes of the serialized filter (kind 0: exactly
 *                       tdbf_saved_size; kind 1: the size the restore
 *                       expects)
 *     kind 1 only:      received, bytes held so far (< total)
 *     string buffers    the bytes (kind 0: all total of them; kind 1: the
 *                       `received` held ones), cut into pieces of
 *                       TDBF_CHUNK_BYTES, the last one shorter
 *     string buffer     (version 2) the module's record: the CAPACITY
 *                       the filter was created with and TDBF.CARD's
 *                       sketch (below); version 1 values load without
 *
 * Sizes are claims until the bytes arrive.  A save streams the filter
 * through tdbf_save in those pieces and never holds a second copy of it.
 * A load first reads the pieces the value really carries, each length
 * checked against what `total` leaves before it is kept, and only when
 * exactly `total` bytes are held builds the filter from them (freeing
 * each piece as the library consumes it): a RESTORE payload whose framing
 * or header claims a 4 GiB filter over a few bytes of data is refused
 * before anything of the claimed size is allocated.  The cost is a peak
 * of the serialized size plus the filter's while a value loads.  A
 * restore in progress likewise holds the chunks received (rtdbf_pieces),
 * never a buffer sized from its header.  A value that fails any check
 * (unknown encoding version or kind, piece sizes that do not add up, the
 * library loader's field checks, its checksum) is refused: rdb_load
 * returns NULL, which Redis reports as a bad RDB value (RESTORE answers
 * an error; a server loading its RDB at start-up stops with the log
 * line) — never a crash.  Refusals are counted (INFO tdbf_stats) and
 * logged at most once per 10 s.
 *
 * AOF rewrite emits the same pieces as TDBF.LOADCHUNK commands, so an AOF
 * replay rebuilds the filter byte for byte; DEBUG DIGEST-VALUE hashes the
 * same bytes.
 */
#include <stdio.h>
#include <string.h>

#include "type.h"

RedisModuleType *rtdbf_type = NULL;

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

/* The largest serialized filter accepted from outside when filters are
 * capped at `cap` bytes (rtdbf_filter_cap): the payload holds the filter's
 * memory, so it cannot be larger than the filter may be. */
static uint64_t max_serialized_bytes(uint64_t cap)
{
    return cap + HEADER_BYTES + TRAILER_BYTES;
}

/* ======================================================================
 * Pieces: bytes held as they arrived
 * ====================================================================== */

static void pieces_free(rtdbf_pieces *p)
{
    for (rtdbf_piece *x = p->head, *next; x; x = next) {
        next = x->next;
        RedisModule_Free(x->bytes);
        RedisModule_Free(x);
    }
    p->head = p->tail = NULL;
    p->len = 0;
}

/* Take ownership of `bytes` (RedisModule_Alloc'd, 1 .. TDBF_CHUNK_BYTES).
 * False (and bytes freed) if the list node cannot be allocated. */
static bool pieces_adopt(rtdbf_pieces *p, char *bytes, size_t len)
{
    rtdbf_piece *x = rtdbf_module_try_alloc(sizeof *x);
    if (!x) {
        RedisModule_Free(bytes);
        return false;
    }
    x->next = NULL;
    x->len = len;
    x->bytes = bytes;
    if (p->tail)
        p->tail->next = x;
    else
        p->head = x;
    p->tail = x;
    p->len += len;
    return true;
}

/* Append a copy of len bytes, cut into pieces of at most TDBF_CHUNK_BYTES.
 * False if memory runs out (what was appended stays). */
static bool pieces_append(rtdbf_pieces *p, const unsigned char *bytes, uint64_t len)
{
    for (uint64_t at = 0; at < len; at += TDBF_CHUNK_BYTES) {
        size_t n = len - at < TDBF_CHUNK_BYTES ? (size_t)(len - at) : TDBF_CHUNK_BYTES;
        char *copy = rtdbf_module_try_alloc(n);
        if (!copy)
            return false;
        memcpy(copy, bytes + at, n);
        if (!pieces_adopt(p, copy, n))
            return false;
    }
    return true;
}

static int pieces_emit(const rtdbf_pieces *p, rtdbf_chunk_fn sink, void *ctx)
{
    for (const rtdbf_piece *x = p->head; x; x = x->next)
        if (sink(ctx, (const unsigned char *)x->bytes, x->len))
            return TDBF_EIO;
    return TDBF_OK;
}

/* tdbf_load's source over a piece list, freeing each piece once read: the
 * serialized copy shrinks as the filter fills. */
typedef struct pieces_reader {
    rtdbf_pieces *p;
    size_t       pos;    /* bytes of the head piece already read */
} pieces_reader;

static int pieces_read(void *ctx, void *buf, size_t len)
{
    pieces_reader *r = ctx;
    unsigned char *out = buf;
    while (len > 0) {
        rtdbf_piece *x = r->p->head;
        if (!x)
            return 1;
        size_t n = x->len - r->pos < len ? x->len - r->pos : len;
        memcpy(out, x->bytes + r->pos, n);
        out += n;
        len -= n;
        r->pos += n;
        r->p->len -= n;
        if (r->pos == x->len) {
            r->p->head = x->next;
            if (!x->next)
                r->p->tail = NULL;
            RedisModule_Free(x->bytes);
            RedisModule_Free(x);
            r->pos = 0;
        }
    }
    return 0;
}

/* Build a filter of at most cap bytes (0: the library's default cap) from
 * all of p (which is consumed either way).  Bytes after the checksum must
 * be whole sections (a file of `tdbf dedup --state` ends with one): the
 * library checks and skips them; anything else there is corruption. */
static int pieces_load_filter(rtdbf_pieces *p, uint64_t cap, tdbf **out)
{
    tdbf_load_options opts = {.max_memory = cap, .allocator = NULL};
    pieces_reader r = {.p = p, .pos = 0};
    int rc = tdbf_load(out, pieces_read, &r, &opts);
    if (rc == TDBF_OK) {
        rc = tdbf_read_sections(pieces_read, &r, NULL, NULL, NULL);
        if (rc != TDBF_OK) {
            tdbf_close(*out);
            *out = NULL;
        }
    }
    pieces_free(p);
    return rc;
}

/* ======================================================================
 * Values
 * ====================================================================== */

void rtdbf_value_set_filter(rtdbf_value *v, tdbf *filter)
{
    tdbf_shape st;
    v->filter = filter;
    rtdbf_card_free(v->card);
    v->card = NULL;
    /* What every add asks, kept beside the handle (tdbf_get_shape is O(1)
     * but a call); the rest is asked when needed. */
    bool ok = filter && tdbf_get_shape(filter, &st) == TDBF_OK;
    v->timed = ok && st.window_ns != 0;
    v->error = ok ? st.error_configured : 0.0;
    /* The designs whose adds may allocate (tdbf_open's contract lists the
     * others as allocating everything up front). */
    v->grows = ok && (st.design == TDBF_TLBF || st.design == TDBF_TLBF_LINE ||
                      st.design == TDBF_ROTATING || st.design == TDBF_EXACT ||
                      (st.design == TDBF_SQF && v->timed));
    if (ok)
        v->card = rtdbf_card_new(&st, false);
}

void rtdbf_value_mark_new(rtdbf_value *v)
{
    tdbf_shape st;
    if (!v->card || tdbf_get_shape(v->filter, &st) != TDBF_OK)
        return;
    rtdbf_card_free(v->card);
    v->card = rtdbf_card_new(&st, true);
}

bool rtdbf_value_card(const rtdbf_value *v, uint64_t now_ms, uint64_t *out)
{
    return v->card && rtdbf_card_estimate(v->card, now_ms, out);
}

void rtdbf_value_count_add(rtdbf_value *v, const void *item, size_t len, uint64_t now_ms)
{
    if (v->card)
        rtdbf_card_add(v->card, item, len, now_ms);
}

rtdbf_value *rtdbf_value_new(tdbf *filter)
{
    rtdbf_value *v = rtdbf_module_try_alloc(sizeof *v);
    if (!v)
        return NULL;
    memset(v, 0, sizeof *v);
    rtdbf_value_set_filter(v, filter);
    return v;
}

void rtdbf_value_free(void *value)
{
    rtdbf_value *v = value;
    if (!v)
        return;
    tdbf_close(v->filter);
    rtdbf_card_free(v->card);
    pieces_free(&v->restore);
    RedisModule_Free(v);
}

/* ======================================================================
 * The module's record: what the library's format has no room for
 *
 *   8 bytes   magic 89 54 44 42 46 6D 6F 64 ("\x89TDBFmod")
 *   u64       capacity: the CAPACITY given at creation, 0 if none
 *   u64       S, the sketch's bytes: 0 or rtdbf_card_saved_size()
 *   S bytes   TDBF.CARD's sketch (card.c)
 *
 * Saved after the filter in RDB values (encoding version 2) and, as one
 * more TDBF.LOADCHUNK after the dump's last chunk, by AOF rewrites: a
 * restart or a replica keeps both.  TDBF.SCANDUMP hands out the library's
 * format only (the dump a tdbf file holds), so a filter moved that way
 * counts distinct items again from its next adds (TDBF.CARD).
 * ====================================================================== */

static const unsigned char record_magic[8] = {0x89, 'T', 'D', 'B', 'F', 'm', 'o', 'd'};
#define RECORD_HEAD_BYTES 24

/* v's record, in a RedisModule_Alloc'd buffer of *len bytes. */
static unsigned char *record_encode(const rtdbf_value *v, size_t *len)
{
    size_t sketch = v->card ? rtdbf_card_saved_size() : 0;
    *len = RECORD_HEAD_BYTES + sketch;
    unsigned char *out = RedisModule_Alloc(*len);
    memcpy(out, record_magic, sizeof record_magic);
    rtdbf_put_le64(out + 8, v->capacity);
    rtdbf_put_le64(out + 16, sketch);
    if (sketch)
        rtdbf_card_save(v->card, out + RECORD_HEAD_BYTES);
    return out;
}

/* Take a record into v.  False (v unchanged) if it is not one, or its
 * sizes or sketch do not fit v's filter. */
static bool record_apply(rtdbf_value *v, const unsigned char *in, size_t len)
{
    if (len < RECORD_HEAD_BYTES || memcmp(in, record_magic, sizeof record_magic) != 0)
        return false;
    uint64_t sketch = rtdbf_get_le64(in + 16);
    if (sketch != len - RECORD_HEAD_BYTES || (sketch && sketch != rtdbf_card_saved_size()))
        return false;
    if (sketch && v->card && !rtdbf_card_load(v->card, in + RECORD_HEAD_BYTES, (size_t)sketch))
        return false;
    v->capacity = rtdbf_get_le64(in + 8);
    return true;
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
    rtdbf_chunk_fn sink;
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

int rtdbf_serialize_chunks(const tdbf *f, uint64_t from, uint64_t limit,
                           rtdbf_chunk_fn sink, void *ctx)
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

/* A value's bytes: the filter's serialization, or the restore's bytes. */
static int emit_value(const rtdbf_value *v, rtdbf_chunk_fn sink, void *ctx)
{
    return v->filter ? rtdbf_serialize_chunks(v->filter, 0, UINT64_MAX, sink, ctx)
                     : pieces_emit(&v->restore, sink, ctx);
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
    rtdbf_value *v = value;
    if (v->filter) {
        RedisModule_SaveUnsigned(rdb, KIND_FILTER);
        RedisModule_SaveUnsigned(rdb, tdbf_saved_size(v->filter));
    } else {
        RedisModule_SaveUnsigned(rdb, KIND_RESTORE);
        RedisModule_SaveUnsigned(rdb, v->restore_total);
        RedisModule_SaveUnsigned(rdb, v->restore.len);
    }
    int rc = emit_value(v, rdb_sink, rdb);
    if (rc != TDBF_OK)
        RedisModule_LogIOError(rdb, "warning", "tdbf: cannot serialize a filter: %s",
                               tdbf_strerror(rc));
    size_t len;
    unsigned char *record = record_encode(v, &len);
    RedisModule_SaveStringBuffer(rdb, (const char *)record, len);
    RedisModule_Free(record);
}

/* Read string-buffer pieces from the RDB stream until exactly `total`
 * bytes are held.  Returns NULL, or why the value is refused (p then
 * holds what was read; the caller frees it).  Every length is checked
 * against what remains *before* the bytes are kept, and nothing is
 * allocated beyond the bytes the stream really carries. */
static const char *rdb_read_pieces(RedisModuleIO *rdb, uint64_t total, rtdbf_pieces *p)
{
    while (p->len < total) {
        size_t n = 0;
        char *piece = RedisModule_LoadStringBuffer(rdb, &n);
        if (RedisModule_IsIOError(rdb) || !piece) {
            if (piece)
                RedisModule_Free(piece);
            return "the value is shorter than its header says";
        }
        if (n == 0 || n > TDBF_CHUNK_BYTES || n > total - p->len) {
            RedisModule_Free(piece);
            return "a piece of the value has an impossible length";
        }
        if (!pieces_adopt(p, piece, n))
            return "out of memory";
    }
    return NULL;
}

static void refuse_value(RedisModuleIO *rdb, const char *why, const char *detail)
{
    rtdbf_refusals.payloads++;
    rtdbf_refusal_log(NULL, rdb, "refusing a %s value: %s", why, detail);
}

/* Kind 0: read all the pieces first (so a value that claims more bytes
 * than it carries is refused before the filter is allocated), then build
 * the filter, of at most cap bytes, from them, freeing each piece as it is
 * consumed.  Peak: the serialized size plus the filter's.  A client's
 * RESTORE (client true) of a time filter whose clock is ahead of the
 * server's is refused, as TDBF.LOADCHUNK refuses it. */
static void *load_filter_value(RedisModuleIO *rdb, uint64_t total, uint64_t cap, bool client)
{
    rtdbf_pieces p = {0};
    const char *problem = rdb_read_pieces(rdb, total, &p);
    if (problem) {
        pieces_free(&p);
        refuse_value(rdb, "corrupt filter", problem);
        return NULL;
    }
    tdbf *f = NULL;
    int rc = pieces_load_filter(&p, cap, &f);
    if (rc != TDBF_OK) {
        refuse_value(rdb, "corrupt filter", tdbf_strerror(rc));
        return NULL;
    }
    char why[192];
    const char *clock = client ? rtdbf_restore_clock_problem(f, why, sizeof why) : NULL;
    rtdbf_value *v = clock ? NULL : rtdbf_value_new(f);
    if (clock)
        refuse_value(rdb, "filter", clock);
    if (!v)
        tdbf_close(f);
    return v;
}

/* Kind 1: a restore in progress, `received` of the `total` its header
 * claims; only the received bytes are held. */
static void *load_restore_value(RedisModuleIO *rdb, uint64_t total)
{
    uint64_t received = RedisModule_LoadUnsigned(rdb);
    if (RedisModule_IsIOError(rdb) || received >= total) {
        refuse_value(rdb, "corrupt restore", "received bytes out of range");
        return NULL;
    }
    rtdbf_value *v = rtdbf_value_new(NULL);
    if (!v) {
        refuse_value(rdb, "restore", "out of memory");
        return NULL;
    }
    v->restore_total = total;
    const char *problem = rdb_read_pieces(rdb, received, &v->restore);
    if (problem) {
        rtdbf_value_free(v);
        refuse_value(rdb, "corrupt restore", problem);
        return NULL;
    }
    return v;
}

/* Read the record that follows a version 2 value into v. */
static bool load_record(RedisModuleIO *rdb, rtdbf_value *v)
{
    size_t len = 0;
    char *record = RedisModule_LoadStringBuffer(rdb, &len);
    bool ok = !RedisModule_IsIOError(rdb) && record &&
              record_apply(v, (const unsigned char *)record, len);
    if (record)
        RedisModule_Free(record);
    return ok;
}

static void *type_rdb_load(RedisModuleIO *rdb, int encver)
{
    if (encver < 1 || encver > TDBF_TYPE_ENCVER) {
        char detail[96];
        snprintf(detail, sizeof detail, "encoding version %d (this module reads version %d)",
                 encver, TDBF_TYPE_ENCVER);
        refuse_value(rdb, "filter", detail);
        return NULL;
    }
    uint64_t kind = RedisModule_LoadUnsigned(rdb);
    uint64_t total = RedisModule_LoadUnsigned(rdb);
    if (RedisModule_IsIOError(rdb))
        return NULL;
    /* RESTORE runs for a client: hold it to maxmemory and the per-filter
     * cap like any write, and refuse a clock ahead of ours (server
     * start-up and replicas are loading: no limit but the library's). */
    RedisModuleCtx *ctx = RedisModule_GetContextFromIO ? RedisModule_GetContextFromIO(rdb) : NULL;
    bool client = ctx && !rtdbf_decided_write(ctx);
    uint64_t cap = rtdbf_filter_cap(ctx);
    if (total < HEADER_BYTES + TRAILER_BYTES || total > max_serialized_bytes(cap)) {
        char detail[128];
        snprintf(detail, sizeof detail, "%llu bytes (allowed: %llu to %llu)",
                 (unsigned long long)total, (unsigned long long)(HEADER_BYTES + TRAILER_BYTES),
                 (unsigned long long)max_serialized_bytes(cap));
        refuse_value(rdb, "filter", detail);
        return NULL;
    }
    if (kind != KIND_FILTER && kind != KIND_RESTORE) {
        refuse_value(rdb, "filter", "unknown kind");
        return NULL;
    }
    rtdbf_budget_begin(rtdbf_memory_headroom(ctx));
    rtdbf_value *v = kind == KIND_FILTER ? load_filter_value(rdb, total, cap, client)
                                        : load_restore_value(rdb, total);
    if (rtdbf_budget_end(NULL))
        rtdbf_refusals.oom++;
    if (v && encver >= 2 && !load_record(rdb, v)) {
        rtdbf_value_free(v);
        refuse_value(rdb, "filter", "its record (capacity, CARD sketch) is damaged");
        return NULL;
    }
    return v;
}

/* ======================================================================
 * AOF rewrite: TDBF.LOADCHUNK key cursor piece, the pieces in order, then
 * the record.  A cursor is 1 + the offset one past the piece
 * (TDBF.SCANDUMP's).
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
    rtdbf_value *v = value;
    aof_emitter e = {.aof = aof, .key = key, .offset = 0};
    int rc = emit_value(v, aof_sink, &e);
    if (rc != TDBF_OK) {
        RedisModule_LogIOError(aof, "warning", "tdbf: cannot rewrite a filter: %s",
                               tdbf_strerror(rc));
    } else if (v->filter) {
        size_t len;
        unsigned char *record = record_encode(v, &len);
        aof_sink(&e, record, len);
        RedisModule_Free(record);
    }
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
    rtdbf_value *v = value;
    RedisModule_DigestAddLongLong(md, v->filter ? KIND_FILTER : KIND_RESTORE);
    emit_value(v, digest_sink, md);
    RedisModule_DigestEndSequence(md);
}

static size_t type_mem_usage(const void *value)
{
    const rtdbf_value *v = value;
    size_t bytes = sizeof *v + (v->card ? rtdbf_card_saved_size() : 0);
    if (v->filter) {
        tdbf_shape st;    /* O(1): MEMORY USAGE never scans the bits */
        if (tdbf_get_shape(v->filter, &st) == TDBF_OK)
            bytes += (size_t)st.memory_bytes;
    } else {
        for (const rtdbf_piece *x = v->restore.head; x; x = x->next)
            bytes += sizeof *x + x->len;
    }
    return bytes;
}

static int pieces_sink(void *ctx, const unsigned char *buf, size_t len)
{
    return pieces_append(ctx, buf, len) ? 0 : 1;
}

/* COPY: through the format, like every other way a filter is duplicated,
 * so the copy is validated like a load. */
static void *type_copy(RedisModuleString *fromkey, RedisModuleString *tokey,
                       const void *value)
{
    (void)fromkey;
    (void)tokey;
    const rtdbf_value *v = value;
    rtdbf_pieces bytes = {0};
    if (emit_value(v, pieces_sink, &bytes) != TDBF_OK) {
        pieces_free(&bytes);
        return NULL;   /* COPY answers an error */
    }
    if (!v->filter) {
        rtdbf_value *copy = rtdbf_value_new(NULL);
        if (!copy) {
            pieces_free(&bytes);
            return NULL;
        }
        copy->restore = bytes;
        copy->restore_total = v->restore_total;
        copy->capacity = v->capacity;
        return copy;
    }
    tdbf *f = NULL;
    if (pieces_load_filter(&bytes, rtdbf_settings.max_memory, &f) != TDBF_OK)
        return NULL;
    rtdbf_value *copy = rtdbf_value_new(f);
    if (!copy) {
        tdbf_close(f);
        return NULL;
    }
    size_t len;
    unsigned char *record = record_encode(v, &len);
    record_apply(copy, record, len);
    RedisModule_Free(record);
    return copy;
}

/* ======================================================================
 * TDBF.LOADCHUNK restores
 * ====================================================================== */

const char *rtdbf_restore_start(rtdbf_value **out, const unsigned char *chunk, size_t len,
                                uint64_t cap)
{
    *out = NULL;
    if (len < HEADER_BYTES)
        return "ERR the first chunk must hold the whole 56-byte header";
    if (memcmp(chunk, format_magic, sizeof format_magic) != 0)
        return "ERR the chunk is not a tdbf dump (bad magic)";
    /* The header's payload length is only a claim until the bytes arrive:
     * it bounds the restore, nothing is allocated for it. */
    uint64_t payload = rtdbf_get_le64(chunk + HEADER_PAYLOAD_AT);
    if (payload > max_serialized_bytes(cap) - HEADER_BYTES - TRAILER_BYTES)
        return "ERR the dump is larger than this server's cap per filter (module argument "
               "MAX_MEMORY)";
    uint64_t total = HEADER_BYTES + payload + TRAILER_BYTES;
    rtdbf_value *v = rtdbf_value_new(NULL);
    if (!v)
        return "OOM no memory for the restore";
    v->restore_total = total;
    v->restore_cap = cap;
    *out = v;
    return NULL;
}

const char *rtdbf_restore_clock_problem(const tdbf *f, char *buf, size_t size)
{
    tdbf_stats st;
    if (tdbf_get_stats(f, &st) != TDBF_OK || st.window_ns == 0)
        return NULL;    /* count windows ignore time */
    uint64_t filter_ms = st.now_ns / 1000000u, now_ms = rtdbf_server_now_ms();
    if (!rtdbf_too_far_ahead(filter_ms, now_ms))
        return NULL;
    snprintf(buf, size, "ERR the filter's clock (%llu ms) is more than %u s ahead of the "
                        "server's (%llu ms): it would keep every later item past its window",
             (unsigned long long)filter_ms, TDBF_MAX_AHEAD_MS / 1000u,
             (unsigned long long)now_ms);
    return buf;
}

const char *rtdbf_restore_append(rtdbf_value *v, uint64_t offset,
                                 const unsigned char *chunk, size_t len,
                                 bool *done, bool *fatal)
{
    *done = false;
    *fatal = false;
    /* The record an AOF rewrite writes after a filter's last chunk. */
    if (v->filter && offset == tdbf_saved_size(v->filter) && record_apply(v, chunk, len))
        return NULL;
    if (v->filter)
        return "ERR the key already holds a complete filter";
    if (offset != v->restore.len)
        return "ERR chunk out of order: its cursor does not follow the previous chunk";
    /* A chunk may run past the filter record: a file's sections (docs/
     * format.md) travel in the chunk that ends the record, and the load
     * below checks that they are whole and well formed. */
    rtdbf_pieces added = {0};
    if (!pieces_append(&added, chunk, len)) {
        pieces_free(&added);
        return "OOM no memory for the chunk under maxmemory; nothing was added";
    }
    if (v->restore.tail)
        v->restore.tail->next = added.head;
    else
        v->restore.head = added.head;
    v->restore.tail = added.tail;
    v->restore.len += added.len;
    if (v->restore.len < v->restore_total)
        return NULL;

    tdbf *f = NULL;
    int rc = pieces_load_filter(&v->restore, v->restore_cap, &f);
    v->restore_total = 0;
    if (rc != TDBF_OK) {
        *fatal = true;
        static char message[160];
        snprintf(message, sizeof message, "%s the dump is invalid: %s",
                 rc == TDBF_ENOMEM ? "OOM" : "ERR", tdbf_strerror(rc));
        return message;
    }
    rtdbf_value_set_filter(v, f);
    *done = true;
    return NULL;
}

/* ======================================================================
 * Registration
 * ====================================================================== */

int rtdbf_type_register(RedisModuleCtx *ctx)
{
    RedisModuleTypeMethods methods = {
        .version = REDISMODULE_TYPE_METHOD_VERSION,
        .rdb_load = type_rdb_load,
        .rdb_save = type_rdb_save,
        .aof_rewrite = type_aof_rewrite,
        .mem_usage = type_mem_usage,
        .digest = type_digest,
        .free = rtdbf_value_free,
        .copy = type_copy,
    };
    rtdbf_type = RedisModule_CreateDataType(ctx, TDBF_TYPE_NAME, TDBF_TYPE_ENCVER, &methods);
    return rtdbf_type ? REDISMODULE_OK : REDISMODULE_ERR;
}
