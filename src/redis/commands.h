/*
 * commands.h — layer 3 of the Redis module (README.md): the TDBF.*
 * commands.  Built on type.h (and through it services.h); module.c, the
 * one file above, puts the handlers below in its command table.
 *
 *   TDBF.RESERVE key error_rate (WINDOW n | EX s | PX ms) [CAPACITY n]
 *                [DESIGN d] [SEED n]                          -> OK
 *   TDBF.ADD key item                       -> 1 new (added), 0 was present
 *   TDBF.MADD key item [item ...]           -> array of the same
 *   TDBF.INSERT key [ERROR r] [WINDOW n | EX s | PX ms] [CAPACITY n]
 *               [DESIGN d] [SEED n] [NOCREATE] ITEMS item [item ...]
 *   TDBF.EXISTS key item                    -> 1 present, 0 absent
 *   TDBF.MEXISTS key item [item ...]        -> array of the same
 *   TDBF.ADDAT key timestamp_ms item [item ...]  (internal: replication, AOF)
 *                                                 commands_filter.c
 *   TDBF.PROB key item [MODEL uniform|powerlaw] [UNIVERSE n] [EXPONENT s]
 *             [RANK r]        -> P(added within the window), for the designs
 *                                with inference: apbf, apbbf, apbf-line,
 *                                tbf, btbf
 *   TDBF.INFO key [field]                   -> map (RESP2: flat array) / [value]
 *   TDBF.CARD key                           -> estimated distinct items in the window
 *   TDBF.SCANDUMP key cursor                -> [next cursor, chunk]; [0, ""] at end
 *   TDBF.LOADCHUNK key cursor chunk         -> OK
 *                                                 commands_admin.c
 *   their COMMAND DOCS / COMMAND INFO           command_info.c
 *   what the two families share                 commands_common.c
 *
 * Hostile clients.  No command allocates what a client merely claims:
 * creation and growth are held to maxmemory's headroom before the
 * allocator is called (budget.c), a new filter to the per-filter cap
 * (rtdbf_filter_cap: MAX_MEMORY, or 64 MiB without maxmemory), LOADCHUNK
 * holds what arrived (type.c) and refuses a clock ahead of the server's,
 * adds to a filter whose estimated FP passed MAX_ERROR_RATIO x its target
 * are refused ("ERR filter is full") rather than answered wrongly.
 * Refusals are counted in INFO tdbf_stats.  Writes notify keyspace events
 * of the module class: tdbf.reserve, tdbf.add, tdbf.loadchunk.
 *
 * Replies use RESP3 booleans for membership (integers 1/0 under RESP2) and
 * doubles for rates and probabilities (RESP2: bulk strings).  Every bad
 * argument gets an "ERR ..." naming it; refusals for memory an "OOM ...".
 */
#ifndef TDBF_REDIS_COMMANDS_H
#define TDBF_REDIS_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "type.h"

/* ---- the handlers (module.c's command table) ---------------------------- */

int rtdbf_cmd_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_madd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_addat(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_exists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_mexists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

int rtdbf_cmd_prob(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_card(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_scandump(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);
int rtdbf_cmd_loadchunk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

/* ---- command_info.c ------------------------------------------------------ */

/* Describe every TDBF.* command to the server: summary, complexity, since
 * (the module's version, "0.1.0"), arity and arguments.  Call once, after
 * the commands are created (RedisModule_OnLoad).  The arity makes the
 * server itself refuse a wrong number of arguments before the command
 * runs.  Each command's key spec is the key RedisModule_CreateCommand
 * was given (argv[1]), flagged for what the command does with it (read
 * only, add, create, restore), which ACL key permissions use.
 *
 * Returns REDISMODULE_OK, also on servers without the API (before 7.0:
 * nothing is done).  REDISMODULE_ERR (with a log line) if a command is
 * missing or the server refuses its info, which is a bug in this file. */
int rtdbf_command_info_register(RedisModuleCtx *ctx);

/* ---- commands_common.c: what both families use -------------------------- */

/* A plain decimal unsigned 64-bit number: digits only, no sign, no
 * overflow. */
bool rtdbf_parse_u64(RedisModuleString *arg, uint64_t *out);

/* Reply an error formatted like printf (at most 255 bytes). */
int rtdbf_reply_errorf(RedisModuleCtx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* x as a reply integer: values past LLONG_MAX become LLONG_MAX. */
long long rtdbf_clamp_ll(uint64_t x);

/* ms as the library's ns (saturating). */
uint64_t rtdbf_ms_to_ns(uint64_t ms);

/* The time handed to the library for value v at now_ms (0 for count
 * windows: see commands_common.c). */
uint64_t rtdbf_filter_time_ns(const rtdbf_value *v, uint64_t now_ms);

enum { KEY_FOUND = 0, KEY_EMPTY = 1, KEY_REPLIED = -1 };

/* Open argv key for `mode`.  KEY_FOUND: *v is a complete filter.
 * KEY_EMPTY: no such key.  KEY_REPLIED: an error was sent (another type,
 * or a restore in progress).  *key must be closed by the caller in every
 * case. */
int rtdbf_open_filter(RedisModuleCtx *ctx, RedisModuleString *name, int mode,
                      RedisModuleKey **key, rtdbf_value **v);

/* Reply that the key holds no filter. */
int rtdbf_reply_not_found(RedisModuleCtx *ctx);

/* rtdbf_open_filter for a command that needs the filter to exist: true
 * when *v is a complete filter; otherwise an error was replied (not found
 * included).  *key must be closed by the caller in every case. */
bool rtdbf_open_existing(RedisModuleCtx *ctx, RedisModuleString *name, int mode,
                         RedisModuleKey **key, rtdbf_value **v);

#endif /* TDBF_REDIS_COMMANDS_H */
