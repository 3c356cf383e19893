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
typedef struct rtdbf_piece {
    struct rtdbf_piece *next;
    size_t              len;
    char               *bytes;  /* RedisModule_Alloc'd */
} rtdbf_piece;

typedef struct rtdbf_pieces {
    rtdbf_piece *head;
    rtdbf_piece *tail;
    uint64_t     len;           /* bytes in all pieces */
} rtdbf_pieces;

/* TDBF.CARD's sketch of the distinct items in the window (card.c). */
typedef struct rtdbf_card rtdbf_card;

/* A key's value.  `filter` is the filter; while a TDBF.LOADCHUNK restore is
 * in progress it is NULL and `restore` holds the bytes received so far, of
 * restore_total, which the first chunk's header claims (a claim: nothing
 * is allocated for it, and the restore is validated when it completes). */
typedef struct rtdbf_value {
    tdbf          *filter;
    rtdbf_pieces   restore;
    uint64_t       restore_total;
    uint64_t       restore_cap;  /* the cap the restore's first chunk was held to */
    bool           timed;        /* the filter has a time window */
    bool           grows;        /* adds may allocate (tlbf, tlbf-line, rotating, exact,
                                    sqf over a time window) */
    double         error;        /* its target false-positive rate */
    uint64_t       capacity;     /* CAPACITY given at creation, 0 if none (or
                                    restored from a dump, which has no room
                                    for it: see TDBF.INFO) */
    rtdbf_card    *card;         /* NULL if it could not be allocated */
} rtdbf_value;

/* The registered type (NULL until rtdbf_type_register succeeds). */
extern RedisModuleType *rtdbf_type;

int  rtdbf_type_register(RedisModuleCtx *ctx);
rtdbf_value *rtdbf_value_new(tdbf *filter); /* filter may be NULL */
void rtdbf_value_set_filter(rtdbf_value *v, tdbf *filter);
void rtdbf_value_free(void *value);

/* The value of a filter created now (not restored): its sketch has seen
 * every add (a restored one counts from its first add on). */
void rtdbf_value_mark_new(rtdbf_value *v);

/* Distinct items in v's window (TDBF.CARD): false if v's sketch cannot
 * tell yet (restored from a dump without it, and not a window of adds
 * since), else *out is the estimate at now_ms. */
bool rtdbf_value_card(const rtdbf_value *v, uint64_t now_ms, uint64_t *out);

/* Record an accepted add of item at now_ms in v's sketch. */
void rtdbf_value_count_add(rtdbf_value *v, const void *item, size_t len, uint64_t now_ms);

/* ---- card.c: the sketch behind the three above ------------------------- */

/* A sketch for a filter of this shape (its window and seed); complete:
 * it sees the filter's every add from the start.  NULL: out of memory. */
rtdbf_card *rtdbf_card_new(const tdbf_shape *shape, bool complete);
void        rtdbf_card_free(rtdbf_card *c);
void        rtdbf_card_add(rtdbf_card *c, const void *item, size_t len, uint64_t now_ms);
/* False if the sketch missed adds still in the window, else *out. */
bool        rtdbf_card_estimate(const rtdbf_card *c, uint64_t now_ms, uint64_t *out);
/* The saved form (fixed size); load refuses one made for another window
 * or with impossible registers, leaving c as it was. */
size_t      rtdbf_card_saved_size(void);
void        rtdbf_card_save(const rtdbf_card *c, unsigned char *out);
bool        rtdbf_card_load(rtdbf_card *c, const unsigned char *in, size_t len);

/* Little-endian u64 in saved forms (the record, the sketch). */
void     rtdbf_put_le64(unsigned char *p, uint64_t x);
uint64_t rtdbf_get_le64(const unsigned char *p);

/* Serialize f, handing it to `sink` in pieces of exactly TDBF_CHUNK_BYTES
 * (the last one shorter) starting at byte `from` and stopping after at
 * most `limit` bytes (UINT64_MAX: all).  Returns a TDBF_* code. */
typedef int (*rtdbf_chunk_fn)(void *ctx, const unsigned char *buf, size_t len);
int rtdbf_serialize_chunks(const tdbf *f, uint64_t from, uint64_t limit,
                           rtdbf_chunk_fn sink, void *ctx);

/* Why a client may not restore f (NULL: it may): a time filter whose clock
 * is more than TDBF_MAX_AHEAD_MS ahead of the server's, which would keep
 * every later item past its window by that much.  The message is written
 * to buf (an "ERR ..." reply). */
const char *rtdbf_restore_clock_problem(const tdbf *f, char *buf, size_t size);

/* TDBF.LOADCHUNK's state machine, on a key's value.  cap is the largest
 * filter the caller may restore (rtdbf_filter_cap). `offset` is where the
 * chunk belongs.  Returns NULL when the chunk was taken (and *done is true
 * when it completed the filter), or a static error message (the caller
 * then deletes the key if the restore cannot continue: *fatal). */
const char *rtdbf_restore_start(rtdbf_value **out, const unsigned char *chunk,
                                size_t len, uint64_t cap);
const char *rtdbf_restore_append(rtdbf_value *v, uint64_t offset,
                                 const unsigned char *chunk, size_t len,
                                 bool *done, bool *fatal);

#endif /* TDBF_REDIS_TYPE_H */
