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
#define TDBF_TYPE_ENCVER    2     /* 2: + the module's extras (type.c) */

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

/* TDBF.CARD's sketch of the distinct items in the window (card.c). */
typedef struct tdbf_card tdbf_card;

/* A key's value.  `filter` is the filter; while a TDBF.LOADCHUNK restore is
 * in progress it is NULL and `restore` holds the bytes received so far, of
 * restore_total, which the first chunk's header claims (a claim: nothing
 * is allocated for it, and the restore is validated when it completes). */
typedef struct tdbf_value {
    tdbf          *filter;
    tdbf_pieces    restore;
    uint64_t       restore_total;
    uint64_t       restore_cap;  /* the cap the restore's first chunk was held to */
    bool           timed;        /* the filter has a time window */
    bool           grows;        /* adds may allocate (tlbf, tlbf-line, rotating, exact) */
    double         error;        /* its target false-positive rate */
    uint64_t       capacity;     /* CAPACITY given at creation, 0 if none (or
                                    restored from a dump, which has no room
                                    for it: see TDBF.INFO) */
    tdbf_card     *card;         /* NULL if it could not be allocated */
} tdbf_value;

/* The registered type (NULL until tdbf_type_register succeeds). */
extern RedisModuleType *tdbf_type;

int  tdbf_type_register(RedisModuleCtx *ctx);
tdbf_value *tdbf_value_new(tdbf *filter);   /* filter may be NULL */
void tdbf_value_set_filter(tdbf_value *v, tdbf *filter);
void tdbf_value_free(void *value);

/* The value of a filter created now (not restored): its sketch has seen
 * every add (a restored one counts from its first add on). */
void tdbf_value_mark_new(tdbf_value *v);

/* Distinct items in v's window (TDBF.CARD): false if v's sketch cannot
 * tell yet (restored from a dump without it, and not a window of adds
 * since), else *out is the estimate at now_ms. */
bool tdbf_value_card(const tdbf_value *v, uint64_t now_ms, uint64_t *out);

/* Record an accepted add of item at now_ms in v's sketch. */
void tdbf_value_count_add(tdbf_value *v, const void *item, size_t len, uint64_t now_ms);

/* ---- card.c: the sketch behind the three above ------------------------- */

/* A sketch for a filter of this shape (its window and seed); complete:
 * it sees the filter's every add from the start.  NULL: out of memory. */
tdbf_card *tdbf_card_new(const tdbf_shape *shape, bool complete);
void       tdbf_card_free(tdbf_card *c);
void       tdbf_card_add(tdbf_card *c, const void *item, size_t len, uint64_t now_ms);
/* False if the sketch missed adds still in the window, else *out. */
bool       tdbf_card_estimate(const tdbf_card *c, uint64_t now_ms, uint64_t *out);
/* The saved form (fixed size); load refuses one made for another window
 * or with impossible registers, leaving c as it was. */
size_t     tdbf_card_saved_size(void);
void       tdbf_card_save(const tdbf_card *c, unsigned char *out);
bool       tdbf_card_load(tdbf_card *c, const unsigned char *in, size_t len);

/* Little-endian u64 in saved forms (the record, the sketch). */
void     tdbf_put_le64(unsigned char *p, uint64_t x);
uint64_t tdbf_get_le64(const unsigned char *p);

/* Serialize f, handing it to `sink` in pieces of exactly TDBF_CHUNK_BYTES
 * (the last one shorter) starting at byte `from` and stopping after at
 * most `limit` bytes (UINT64_MAX: all).  Returns a TDBF_* code. */
typedef int (*tdbf_chunk_fn)(void *ctx, const unsigned char *buf, size_t len);
int tdbf_serialize_chunks(const tdbf *f, uint64_t from, uint64_t limit,
                          tdbf_chunk_fn sink, void *ctx);

/* Why a client may not restore f (NULL: it may): a time filter whose clock
 * is more than TDBF_MAX_AHEAD_MS ahead of the server's, which would keep
 * every later item past its window by that much.  The message is written
 * to buf (an "ERR ..." reply). */
const char *tdbf_restore_clock_problem(const tdbf *f, char *buf, size_t size);

/* TDBF.LOADCHUNK's state machine, on a key's value.  cap is the largest
 * filter the caller may restore (tdbf_filter_cap).  `offset` is where the
 * chunk belongs.  Returns NULL when the chunk was taken (and *done is true
 * when it completed the filter), or a static error message (the caller
 * then deletes the key if the restore cannot continue: *fatal). */
const char *tdbf_restore_start(tdbf_value **out, const unsigned char *chunk,
                               size_t len, uint64_t cap);
const char *tdbf_restore_append(tdbf_value *v, uint64_t offset,
                                const unsigned char *chunk, size_t len,
                                bool *done, bool *fatal);

#endif /* TDBF_REDIS_TYPE_H */
