/*
 * tdbf_module.h — what the files of the Redis module share (private).
 *
 *   module.c        the API binding, the allocator hook and its budget,
 *                   maxmemory headroom, refusal counters and their log,
 *                   module arguments, RedisModule_OnLoad
 *   type.c          the "tdbf-filt" data type: values, RDB, AOF rewrite,
 *                   digest, memory usage, copy, and chunked dump/restore
 *   commands.c      the TDBF.* commands and their table
 *   command_info.c  their COMMAND DOCS / COMMAND INFO metadata
 *
 * The module uses only the public libtdbf API (tdbf.h) and links the static
 * library, like any other user.
 */
#ifndef TDBF_REDIS_MODULE_H
#define TDBF_REDIS_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "module_api.h"
#include "tdbf.h"

#define TDBF_MODULE_NAME    "tdbf"
#define TDBF_MODULE_VERSION 100          /* 0.1.0 as M*10000 + m*100 + p */
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
    bool           grows;        /* adds may allocate (tlbf, rotating, exact) */
    double         error;        /* its target false-positive rate */
} tdbf_value;

/* Module-wide settings (module arguments). */
typedef struct tdbf_module_config {
    double      default_error;        /* DEFAULT_ERROR, 0.01 */
    tdbf_design default_count_design; /* DEFAULT_DESIGN, apbf-line */
    tdbf_design default_time_design;  /* DEFAULT_TIME_DESIGN, tlbf */
    uint64_t    max_memory;           /* MAX_MEMORY bytes per filter, 0 = 4 GiB */
    bool        allow_addat;          /* ALLOW_ADDAT: clients may send TDBF.ADDAT */
    bool        autocreate;           /* AUTOCREATE: ADD/MADD/INSERT create a missing key */
    uint64_t    default_window_items; /* DEFAULT_WINDOW: count window of auto-created filters */
    uint64_t    default_window_ms;    /* DEFAULT_EX (s), here in ms; 0: use DEFAULT_WINDOW */
    double      max_error_ratio;      /* MAX_ERROR_RATIO: refuse adds while the estimated FP
                                         is above this times the target; 0 = never */
} tdbf_module_config;

/* Refusals since the module loaded (INFO section tdbf_stats). */
typedef struct tdbf_refusal_counters {
    uint64_t payloads;       /* LOADCHUNK chunks, RESTORE and RDB values refused */
    uint64_t oom;            /* allocations refused at maxmemory or MAX_MEMORY */
    uint64_t overload;       /* adds refused: the filter's estimated FP too high */
    uint64_t addat;          /* TDBF.ADDAT refused (from a client, or too far ahead) */
    uint64_t log_suppressed; /* refusal log lines not written (rate limit) */
} tdbf_refusal_counters;

extern RedisModuleType *tdbf_type;
extern tdbf_module_config tdbf_settings;
extern tdbf_refusal_counters tdbf_refusals;

/* ---- module.c ------------------------------------------------------------ */

/* Allocate `bytes` through the server's allocator, or NULL (too large for
 * this address space, or the server is out of memory): used for sizes that
 * come from clients or from disk. */
void *tdbf_module_try_alloc(uint64_t bytes);

/* Bytes a client's command may still allocate before the server passes
 * maxmemory (UINT64_MAX: no limit applies — no maxmemory, a replica,
 * loading, or a write from our primary). */
uint64_t tdbf_memory_headroom(RedisModuleCtx *ctx);

/* Hold every allocation of the library and the module to `bytes` in all
 * (UINT64_MAX: no limit) until tdbf_budget_end, which returns the size
 * of the first request refused (0: none was) and, if spent is not NULL,
 * stores the bytes granted. */
void     tdbf_budget_begin(uint64_t bytes);
uint64_t tdbf_budget_end(uint64_t *spent);

/* Log a refusal (through io when given, else ctx; either may be NULL),
 * at most one line per 10 seconds; the others are counted. */
void tdbf_refusal_log(RedisModuleCtx *ctx, RedisModuleIO *io, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- type.c ------------------------------------------------------------ */

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

/* ---- commands.c ---------------------------------------------------------- */

int tdbf_register_commands(RedisModuleCtx *ctx);

#endif /* TDBF_REDIS_MODULE_H */
