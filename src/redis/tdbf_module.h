/*
 * tdbf_module.h — what the files of the Redis module share (private).
 *
 *   module.c    the API binding, the allocator hook, module arguments,
 *               RedisModule_OnLoad and the command table
 *   type.c      the "tdbf-filt" data type: values, RDB, AOF rewrite,
 *               digest, memory usage, copy, and chunked dump/restore
 *   commands.c  the TDBF.* commands
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

/* A key's value.  `filter` is the filter; while a TDBF.LOADCHUNK restore is
 * in progress it is NULL and `restore` holds the bytes received so far
 * (restore_len of restore_total, which the first chunk's header gives). */
typedef struct tdbf_value {
    tdbf          *filter;
    unsigned char *restore;
    uint64_t       restore_len;
    uint64_t       restore_total;
    bool           timed;      /* the filter has a time window */
    uint64_t       window_items; /* its count window (0: a time window) */
} tdbf_value;

/* Module-wide settings (module arguments). */
typedef struct tdbf_module_config {
    double      default_error;        /* DEFAULT_ERROR, 0.01 */
    tdbf_design default_count_design; /* DEFAULT_DESIGN, apbf */
    tdbf_design default_time_design;  /* DEFAULT_TIME_DESIGN, tlbf */
    uint64_t    max_memory;           /* MAX_MEMORY bytes per filter, 0 = 4 GiB */
} tdbf_module_config;

extern RedisModuleType *tdbf_type;
extern tdbf_module_config tdbf_settings;

/* ---- module.c ------------------------------------------------------------ */

/* Allocate `bytes` through the server's allocator, or NULL (too large for
 * this address space, or the server is out of memory): used for sizes that
 * come from clients or from disk. */
void *tdbf_module_try_alloc(uint64_t bytes);

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
