/*
 * services.h — layer 1 of the Redis module (README.md): what every file
 * above needs from the module as a whole.
 *
 *   budget.c    the allocator hook (libtdbf allocates through the server),
 *               the allocation budget that holds a client's command within
 *               maxmemory, and the headroom maxmemory leaves
 *   settings.c  the module arguments, the refusal counters and their
 *               rate-limited log, the INFO section tdbf_stats, the
 *               argument helpers that module arguments and commands share,
 *               and the server's clock with the bound on stamps ahead of it
 *
 * Nothing here knows the data type or the commands: they call down into
 * this layer, never the other way round.
 */
#ifndef TDBF_REDIS_SERVICES_H
#define TDBF_REDIS_SERVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "module_api.h"
#include "tdbf_model.h"

/* ---- budget.c ------------------------------------------------------------ */

/* Route every libtdbf allocation through the server's allocator, under
 * the budget below.  Returns a TDBF_* code. */
int rtdbf_allocator_install(void);

/* Allocate `bytes` through the server's allocator, or NULL (too large for
 * this address space, or the server is out of memory): used for sizes that
 * come from clients or from disk. */
void *rtdbf_module_try_alloc(uint64_t bytes);

/* Bytes a client's command may still allocate before the server passes
 * maxmemory (UINT64_MAX: no limit applies — no maxmemory, a replica,
 * loading, or a write from our primary). */
uint64_t rtdbf_memory_headroom(RedisModuleCtx *ctx);

/* Whether ctx applies writes already decided elsewhere: our primary's
 * replication stream or the AOF/RDB being loaded.  Those are applied as
 * they come (refusing one would make this copy diverge); only a client's
 * own commands are held to the limits. */
bool rtdbf_decided_write(RedisModuleCtx *ctx);

/* The per-filter cap without MAX_MEMORY, for a client's filter on a server
 * without maxmemory: 64 MiB, a count window of about 25 million items at
 * 1 % (apbf-line), created in a few ms (budget.c: its pages come zeroed
 * from calloc). */
#define TDBF_CLIENT_FILTER_CAP (UINT64_C(64) << 20)

/* The largest filter (bytes, as planned) ctx may create or restore:
 * MAX_MEMORY if given; else TDBF_CLIENT_FILTER_CAP for a client of a
 * server without maxmemory, TDBF_DEFAULT_MAX_MEMORY otherwise. */
uint64_t rtdbf_filter_cap(RedisModuleCtx *ctx);

/* Hold every allocation of the library and the module to `bytes` in all
 * (UINT64_MAX: no limit) until rtdbf_budget_end, which returns the size
 * of the first request refused (0: none was) and, if spent is not NULL,
 * stores the bytes granted. */
void     rtdbf_budget_begin(uint64_t bytes);
uint64_t rtdbf_budget_end(uint64_t *spent);

/* ---- settings.c ---------------------------------------------------------- */

/* Module-wide settings (module arguments). */
typedef struct rtdbf_module_config {
    double      default_error;        /* DEFAULT_ERROR, 0.01 */
    tdbf_design default_count_design; /* DEFAULT_DESIGN, sqf */
    tdbf_design default_time_design;  /* DEFAULT_TIME_DESIGN, sqf */
    uint64_t    max_memory;           /* MAX_MEMORY bytes per filter, 0 = the default
                                         (rtdbf_filter_cap) */
    bool        allow_addat;          /* ALLOW_ADDAT: clients may send TDBF.ADDAT */
    bool        autocreate;           /* AUTOCREATE: ADD/MADD/INSERT create a missing key */
    uint64_t    default_window_items; /* DEFAULT_WINDOW: count window of auto-created filters */
    uint64_t    default_window_ms;    /* DEFAULT_EX (s), here in ms; 0: use DEFAULT_WINDOW */
    double      max_error_ratio;      /* MAX_ERROR_RATIO: refuse adds while the estimated FP
                                         is above this times the target; 0 = never */
} rtdbf_module_config;

/* Refusals since the module loaded (INFO section tdbf_stats). */
typedef struct rtdbf_refusal_counters {
    uint64_t payloads;       /* LOADCHUNK chunks, RESTORE and RDB values refused */
    uint64_t oom;            /* allocations refused at maxmemory or MAX_MEMORY */
    uint64_t overload;       /* adds refused: the filter's estimated FP too high */
    uint64_t addat;          /* TDBF.ADDAT refused (from a client, or too far ahead) */
    uint64_t log_suppressed; /* refusal log lines not written (rate limit) */
} rtdbf_refusal_counters;

extern rtdbf_module_config rtdbf_settings;
extern rtdbf_refusal_counters rtdbf_refusals;

/* Read the module arguments (NAME value pairs) into rtdbf_settings.
 * REDISMODULE_ERR after logging what was wrong. */
int rtdbf_settings_parse(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

/* Add the INFO section tdbf_stats (the refusal counters), on servers that
 * have module INFO sections (6.0+). */
void rtdbf_stats_info_register(RedisModuleCtx *ctx);

/* Log a refusal (through io when given, else ctx; either may be NULL),
 * at most one line per 10 seconds; the others are counted. */
void rtdbf_refusal_log(RedisModuleCtx *ctx, RedisModuleIO *io, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The server's wall clock in ms (never negative). */
uint64_t rtdbf_server_now_ms(void);

/* How far ahead of the server's clock a client may move a time filter's
 * clock (TDBF.ADDAT with ALLOW_ADDAT, TDBF.LOADCHUNK and RESTORE of a
 * filter saved elsewhere).  A filter's clock never goes back, so a stamp
 * a day ahead would keep every later item a day past its window. */
#define TDBF_MAX_AHEAD_MS 60000u

/* Whether stamp_ms is more than TDBF_MAX_AHEAD_MS ahead of now_ms. */
bool rtdbf_too_far_ahead(uint64_t stamp_ms, uint64_t now_ms);

/* Whether arg is `word`, ignoring case. */
bool rtdbf_arg_is(RedisModuleString *arg, const char *word);

/* arg as C text, or NULL if the bulk string hides a NUL byte (the
 * library's parsers would read only the part before it). */
const char *rtdbf_arg_text(RedisModuleString *arg);

#endif /* TDBF_REDIS_SERVICES_H */
