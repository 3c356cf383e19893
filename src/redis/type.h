/*
 * type.h — layer 2 of the Redis module (README.md): the "tdbf-filt" data
 * type (type.c).  A key's value, how it is serialized in fixed pieces
 * (RDB, AOF rewrite, digest, TDBF.SCANDUMP), and the TDBF.LOADCHUNK
 * restore it may be in the middle of.  Built on services.h; the commands
 * above use it, it never calls them.
 */
#ifndef TDBF_REDIS_TYPE_H
#define TDBF_REDIS_TYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "services.h"

#define TDBF_TYPE_NAME      "tdbf-filt"  /* exactly 9 characters */
#define TDBF_TYPE_ENCVER    1

/* Bytes per piece when a serialized filter is cut up: RDB string buffers,
 * AOF rewrite commands, digest input and TDBF.SCANDUMP chunks. */
#define TDBF_CHUNK_BYTES (1u << 20)

/* Bytes held as a list of pieces of at most TDBF_CHUNK_BYTES, each its
 * own allocation: a restore grows by exactly the bytes that arrived (no
 * buffer sized from what a header claims) and never copies what it holds. */
typedef struct tdbf_piece {
    struct tdbf_piece *next;
    size_t             len;
    char              *bytes;   /* RedisModule_Alloc'd */
} tdbf_piece;

typedef struct tdbf_pieces {
    tdbf_piece *head;
    tdbf_piece *tail;
    uint64_t    len;            /* bytes in all pieces */
} tdbf_pieces;

/* A key's value.  `filter` is the filter; while a TDBF.LOADCHUNK restore is
 * in progress it is NULL and `restore` holds the bytes received so far, of
 * restore_total, which the first chunk's header claims (a claim: nothing
 * is allocated for it, and the restore is validated when it completes). */
typedef struct tdbf_value {
    tdbf          *filter;
    tdbf_pieces    restore;
    uint64_t       restore_total;
    bool           timed;        /* the filter has a time window */
    bool           grows;        /* adds may allocate (tlbf, tlbf-line, rotating, exact) */
    double         error;        /* its target false-positive rate */
} tdbf_value;

/* The registered type (NULL until tdbf_type_register succeeds). */
extern RedisModuleType *tdbf_type;

int  tdbf_type_register(RedisModuleCtx *ctx);
tdbf_value *tdbf_value_new(tdbf *filter);   /* filter may be NULL */
void tdbf_value_set_filter(tdbf_value *v, tdbf *filter);
void tdbf_value_free(void *value);

/* Serialize f, handing it to `sink` in pieces of exactly TDBF_CHUNK_BYTES
 * (the last one shorter) starting at byte `from` and stopping after at
 * most `limit` bytes (UINT64_MAX: all).  Returns a TDBF_* code. */
typedef int (*tdbf_chunk_fn)(void *ctx, const unsigned char *buf, size_t len);
int tdbf_serialize_chunks(const tdbf *f, uint64_t from, uint64_t limit,
                          tdbf_chunk_fn sink, void *ctx);

/* TDBF.LOADCHUNK's state machine, on a key's value.  `offset` is where the
 * chunk belongs.  Returns NULL when the chunk was taken (and *done is true
 * when it completed the filter), or a static error message (the caller
 * then deletes the key if the restore cannot continue: *fatal). */
const char *tdbf_restore_start(tdbf_value **out, const unsigned char *chunk,
                               size_t len);
const char *tdbf_restore_append(tdbf_value *v, uint64_t offset,
                                const unsigned char *chunk, size_t len,
                                bool *done, bool *fatal);

#endif /* TDBF_REDIS_TYPE_H */
