/*
 * command_info.c — what COMMAND DOCS and COMMAND INFO say about the TDBF.*
 * commands, and their arities (RedisModule_SetCommandInfo, Redis 7.0+).
 *
 * Each command gets a one-sentence summary, its complexity, since
 * ("0.1.0", the module version that added it), its arity (negative: at
 * least that many words, the command name included) and the tree of its
 * arguments, which clients and redis-cli use for hints.  The semantics are
 * those of commands_filter.c, commands_admin.c and docs/redis.md.
 *
 * Key specs.  The commands are created with (firstkey, lastkey, step) =
 * (1, 1, 1), which the server turns into one key spec at argv[1] flagged
 * RW ACCESS UPDATE whatever the command does.  It would keep that spec if
 * the info gave none, but then ACL key permissions treat every TDBF.*
 * command as a write: a user allowed only to read keys (%R~pattern) is
 * refused TDBF.EXISTS.  So each command declares the same single key,
 * argv[1] (begin_search index 1, find_keys range {0, 1, 0}), with flags
 * that say what it does: reads RO ACCESS; adds RW ACCESS UPDATE (the reply
 * tells whether the item was present, and a window moving on forgets old
 * items); TDBF.RESERVE OW INSERT (it creates the key only if absent, as
 * SETNX); TDBF.LOADCHUNK RW UPDATE.  The server derives the same legacy
 * (1, 1, 1) from it for COMMAND INFO, and cluster routing and COMMAND
 * GETKEYS find the key as before (tests/redis/test_command_docs.py).
 */
#include <limits.h>
#include <stdint.h>

#include "command_info.h"
#include "commands.h"

/* ======================================================================
 * The ABI: our structs against the Redis 7.0 server's (LP64)
 * ====================================================================== */

#if UINTPTR_MAX == UINT64_MAX && INT_MAX == 2147483647 && SIZE_MAX == UINT64_MAX
_Static_assert(sizeof(RedisModuleCommandArgType) == 4, "enum is an int");
_Static_assert(offsetof(RedisModuleCommandArg, type) == 8, "arg.type");
_Static_assert(offsetof(RedisModuleCommandArg, key_spec_index) == 12, "arg.key_spec_index");
_Static_assert(offsetof(RedisModuleCommandArg, token) == 16, "arg.token");
_Static_assert(offsetof(RedisModuleCommandArg, flags) == 40, "arg.flags");
_Static_assert(offsetof(RedisModuleCommandArg, deprecated_since) == 48, "arg.deprecated_since");
_Static_assert(offsetof(RedisModuleCommandArg, subargs) == 56, "arg.subargs");
_Static_assert(offsetof(RedisModuleCommandArg, display_text) == 64, "arg.display_text");
_Static_assert(sizeof(RedisModuleCommandArg) == 72, "arg size");
_Static_assert(offsetof(RedisModuleCommandKeySpec, begin_search_type) == 16, "spec.bs type");
_Static_assert(offsetof(RedisModuleCommandKeySpec, bs) == 24, "spec.bs");
_Static_assert(offsetof(RedisModuleCommandKeySpec, find_keys_type) == 40, "spec.fk type");
_Static_assert(offsetof(RedisModuleCommandKeySpec, fk) == 44, "spec.fk");
_Static_assert(sizeof(RedisModuleCommandKeySpec) == 56, "key spec size");
_Static_assert(sizeof(RedisModuleCommandHistoryEntry) == 16, "history entry size");
_Static_assert(offsetof(RedisModuleCommandInfoVersion, sizeof_historyentry) == 8, "version");
_Static_assert(sizeof(RedisModuleCommandInfoVersion) == 32, "version size");
_Static_assert(offsetof(RedisModuleCommandInfo, history) == 32, "info.history");
_Static_assert(offsetof(RedisModuleCommandInfo, arity) == 48, "info.arity");
_Static_assert(offsetof(RedisModuleCommandInfo, key_specs) == 56, "info.key_specs");
_Static_assert(offsetof(RedisModuleCommandInfo, args) == 64, "info.args");
_Static_assert(sizeof(RedisModuleCommandInfo) == 72, "info size");
#endif

static const RedisModuleCommandInfoVersion info_version = {
    .version = TDBF_COMMAND_INFO_VERSION,
    .sizeof_historyentry = sizeof(RedisModuleCommandHistoryEntry),
    .sizeof_keyspec = sizeof(RedisModuleCommandKeySpec),
    .sizeof_arg = sizeof(RedisModuleCommandArg),
};

/* ======================================================================
 * Key specs: one key, argv[1]
 * ====================================================================== */

#define KEY_AT_1(fl)                                                                \
    {.notes = NULL, .flags = (fl), .begin_search_type = REDISMODULE_KSPEC_BS_INDEX, \
     .bs.index.pos = 1, .find_keys_type = REDISMODULE_KSPEC_FK_RANGE,               \
     .fk.range = {.lastkey = 0, .keystep = 1, .limit = 0}}
#define END_SPEC                                                                    \
    {.notes = NULL, .flags = 0, .begin_search_type = REDISMODULE_KSPEC_BS_INVALID,  \
     .bs.index.pos = 0, .find_keys_type = REDISMODULE_KSPEC_FK_OMITTED,             \
     .fk.range = {.lastkey = 0, .keystep = 0, .limit = 0}}

static RedisModuleCommandKeySpec reads_key[] = {
    KEY_AT_1(REDISMODULE_CMD_KEY_RO | REDISMODULE_CMD_KEY_ACCESS),
    END_SPEC,
};

static RedisModuleCommandKeySpec adds_to_key[] = {
    KEY_AT_1(REDISMODULE_CMD_KEY_RW | REDISMODULE_CMD_KEY_ACCESS | REDISMODULE_CMD_KEY_UPDATE),
    END_SPEC,
};

static RedisModuleCommandKeySpec creates_key[] = {
    KEY_AT_1(REDISMODULE_CMD_KEY_OW | REDISMODULE_CMD_KEY_INSERT),
    END_SPEC,
};

static RedisModuleCommandKeySpec restores_key[] = {
    KEY_AT_1(REDISMODULE_CMD_KEY_RW | REDISMODULE_CMD_KEY_UPDATE),
    END_SPEC,
};

/* ======================================================================
 * Argument trees
 * ====================================================================== */

/* Every field spelled out, so no initializer is missing one. */
#define ARG(nm, ty, tok, fl, sub, sum)                                              \
    {.name = (nm), .type = (ty), .key_spec_index = -1, .token = (tok),              \
     .summary = (sum), .since = NULL, .flags = (fl), .deprecated_since = NULL,      \
     .subargs = (sub), .display_text = NULL}
#define KEY_ARG                                                                     \
    {.name = "key", .type = REDISMODULE_ARG_TYPE_KEY, .key_spec_index = 0,          \
     .token = NULL, .summary = "the filter's key", .since = NULL,                   \
     .flags = REDISMODULE_CMD_ARG_NONE, .deprecated_since = NULL, .subargs = NULL,  \
     .display_text = NULL}
#define END_ARG ARG(NULL, REDISMODULE_ARG_TYPE_STRING, NULL, 0, NULL, NULL)

#define T_STRING  REDISMODULE_ARG_TYPE_STRING
#define T_INTEGER REDISMODULE_ARG_TYPE_INTEGER
#define T_DOUBLE  REDISMODULE_ARG_TYPE_DOUBLE
#define T_TIME    REDISMODULE_ARG_TYPE_UNIX_TIME
#define T_TOKEN   REDISMODULE_ARG_TYPE_PURE_TOKEN
#define T_ONEOF   REDISMODULE_ARG_TYPE_ONEOF
#define OPT       REDISMODULE_CMD_ARG_OPTIONAL
#define MULTI     REDISMODULE_CMD_ARG_MULTIPLE

/* WINDOW n|T | EX seconds | PX milliseconds (the server copies the trees,
 * so RESERVE and INSERT share this one). */
static RedisModuleCommandArg window_choice[] = {
    ARG("count_or_duration", T_STRING, "WINDOW", 0, NULL,
        "a count (1000, 1e6, 1M): the filter remembers the last n insertions; or a "
        "duration (10m, 1h30m, 250ms): a time window"),
    ARG("seconds", T_INTEGER, "EX", 0, NULL, "time window in seconds"),
    ARG("milliseconds", T_INTEGER, "PX", 0, NULL, "time window in milliseconds"),
    END_ARG,
};

#define CAPACITY_ARG                                                                \
    ARG("capacity", T_INTEGER, "CAPACITY", OPT, NULL,                               \
        "expected items per window; time windows only (a count window is sized "   \
        "by itself)")
#define DESIGN_ARG                                                                  \
    ARG("design", T_STRING, "DESIGN", OPT, NULL,                                    \
        "apbf, apbbf, apbf-line, sqf, tbf, btbf, fpdecay, stable, bloom (count "    \
        "windows), tlbf, tlbf-line, clock (time windows), rotating, exact (both); " \
        "default: the module's")
#define SEED_ARG                                                                    \
    ARG("seed", T_INTEGER, "SEED", OPT, NULL,                                       \
        "hash seed, 1 to 2^64-1; left out, one is drawn at random")

static RedisModuleCommandArg reserve_args[] = {
    KEY_ARG,
    ARG("error_rate", T_DOUBLE, NULL, 0, NULL,
        "target false-positive rate, between 0 and 1 exclusive (0.01, 1e-2, 1%)"),
    ARG("window", T_ONEOF, NULL, 0, window_choice, "what the filter remembers"),
    CAPACITY_ARG,
    DESIGN_ARG,
    SEED_ARG,
    END_ARG,
};

static RedisModuleCommandArg add_args[] = {
    KEY_ARG,
    ARG("item", T_STRING, NULL, 0, NULL, NULL),
    END_ARG,
};

static RedisModuleCommandArg items_args[] = {   /* MADD, MEXISTS */
    KEY_ARG,
    ARG("item", T_STRING, NULL, MULTI, NULL, NULL),
    END_ARG,
};

static RedisModuleCommandArg insert_args[] = {
    KEY_ARG,
    ARG("error", T_DOUBLE, "ERROR", OPT, NULL,
        "false-positive rate if the filter is created; default: the module's"),
    ARG("window", T_ONEOF, NULL, OPT, window_choice,
        "window if the filter is created (required then)"),
    CAPACITY_ARG,
    DESIGN_ARG,
    SEED_ARG,
    ARG("nocreate", T_TOKEN, "NOCREATE", OPT, NULL,
        "fail if the filter does not exist; no creation options allowed"),
    ARG("item", T_STRING, "ITEMS", MULTI, NULL, "the items to add"),
    END_ARG,
};

static RedisModuleCommandArg addat_args[] = {
    KEY_ARG,
    ARG("timestamp_ms", T_TIME, NULL, 0, NULL,
        "the time of the add, Unix time in milliseconds"),
    ARG("item", T_STRING, NULL, MULTI, NULL, NULL),
    END_ARG,
};

static RedisModuleCommandArg model_choice[] = {
    ARG("uniform", T_TOKEN, "UNIFORM", 0, NULL,
        "UNIVERSE equally likely items (the default)"),
    ARG("powerlaw", T_TOKEN, "POWERLAW", 0, NULL,
        "rank x has probability x^-EXPONENT / H(UNIVERSE, EXPONENT)"),
    END_ARG,
};

static RedisModuleCommandArg prob_args[] = {
    KEY_ARG,
    ARG("item", T_STRING, NULL, 0, NULL, NULL),
    ARG("model", T_ONEOF, "MODEL", OPT, model_choice, "the prior on the stream"),
    ARG("universe", T_DOUBLE, "UNIVERSE", OPT, NULL,
        "distinct items in the stream, at least 1; default: the window"),
    ARG("exponent", T_DOUBLE, "EXPONENT", OPT, NULL,
        "power-law exponent s > 0 (MODEL powerlaw); default 1"),
    ARG("rank", T_DOUBLE, "RANK", OPT, NULL,
        "the item's popularity rank, 1 = most frequent (MODEL powerlaw); default: "
        "the average item"),
    END_ARG,
};

static RedisModuleCommandArg key_only_args[] = {   /* CARD */
    KEY_ARG,
    END_ARG,
};

static RedisModuleCommandArg info_args[] = {
    KEY_ARG,
    ARG("field", T_STRING, NULL, OPT, NULL,
        "one field: design, error, error_planned, error_estimated, window_items, "
        "window_ms, items, card, memory_bytes, bits_per_item, k, l, slices, "
        "generation_size, generations, seed, now_ms, cap_hits"),
    END_ARG,
};

static RedisModuleCommandArg scandump_args[] = {
    KEY_ARG,
    ARG("cursor", T_INTEGER, NULL, 0, NULL,
        "0 to start, then the cursor the previous call returned"),
    END_ARG,
};

static RedisModuleCommandArg loadchunk_args[] = {
    KEY_ARG,
    ARG("cursor", T_INTEGER, NULL, 0, NULL, "the cursor TDBF.SCANDUMP returned with chunk"),
    ARG("chunk", T_STRING, NULL, 0, NULL, "the chunk TDBF.SCANDUMP returned"),
    END_ARG,
};

/* ======================================================================
 * The commands
 * ====================================================================== */

static const struct {
    const char            *name;
    int                    arity;
    const char            *summary;
    const char            *complexity;
    RedisModuleCommandArg *args;
    RedisModuleCommandKeySpec *key_specs;
} commands[] = {
    {"tdbf.reserve", -5,
     "Creates an empty time-decaying Bloom filter at key with the given false-positive "
     "rate and a count (WINDOW) or time (EX/PX) window; replies OK, or an error if the "
     "key exists.",
     "O(memory): the new filter is allocated and cleared", reserve_args, creates_key},
    {"tdbf.add", 3,
     "Adds an item to the filter, which is created with the module's defaults if the key "
     "is missing (unless the module is loaded with AUTOCREATE no); replies 1 if the item "
     "was new within the window, 0 if it was already present (now refreshed).",
     "O(k), k the filter's hash probes; amortized, as a window shift may clear a "
     "generation",
     add_args, adds_to_key},
    {"tdbf.madd", -3,
     "Adds one or more items like TDBF.ADD; replies an array of 1 (new within the window) "
     "or 0 (already present) for each item.",
     "O(k) per item", items_args, adds_to_key},
    {"tdbf.insert", -4,
     "Adds one or more items, first creating the filter from the given options if the key "
     "is missing (unless NOCREATE); replies an array of 1 (new within the window) or 0 "
     "(already present) for each item.",
     "O(k) per item, plus O(memory) when it creates the filter", insert_args, adds_to_key},
    {"tdbf.addat", -4,
     "Internal: adds items as of the given time in milliseconds, the form in which "
     "time-window writes are replicated and written to the AOF (refused from clients "
     "unless the module is loaded with ALLOW_ADDAT yes); replies an array of 1 or 0 for "
     "each item.",
     "O(k) per item", addat_args, adds_to_key},
    {"tdbf.exists", 3,
     "Tells whether an item was added within the filter's window, with false positives at "
     "about the configured rate; replies 1 if present, 0 if absent or the key is missing.",
     "O(k)", add_args, reads_key},
    {"tdbf.mexists", -3,
     "Checks one or more items like TDBF.EXISTS; replies an array of 1 (present) or 0 "
     "(absent) for each item.",
     "O(k) per item", items_args, reads_key},
    {"tdbf.prob", -3,
     "Estimates the probability that an item was added within the window from the "
     "filter's cells and a prior on the stream (designs tbf, btbf, apbf, apbbf, "
     "apbf-line); replies a number between 0 and 1.",
     "O(k) (k + l slices for apbf and apbbf)", prob_args, reads_key},
    {"tdbf.card", 2,
     "Estimates how many distinct items the filter's window holds (an item added many "
     "times counts once; HyperLogLog, 4.6 % standard error); replies an integer, 0 if the "
     "key is missing.",
     "O(1); O(memory) for an exact filter, or one loaded from TDBF.SCANDUMP chunks until "
     "a window of adds has turned over",
     key_only_args, reads_key},
    {"tdbf.info", -2,
     "Returns the filter's parameters and statistics as a map of field to value, or the "
     "value of the one field named.",
     "O(memory)", info_args, reads_key},
    {"tdbf.scandump", 3,
     "Returns the piece of the filter's serialization after cursor (0 to start) as "
     "[next cursor, chunk], or [0, \"\"] once it is complete.",
     "O(memory)", scandump_args, reads_key},
    {"tdbf.loadchunk", 4,
     "Restores a filter from TDBF.SCANDUMP's [cursor, chunk] pairs fed in order, "
     "validating it when the last chunk arrives (a time filter whose clock is more than "
     "60 s ahead of the server's is refused); replies OK.",
     "O(n) in the chunk's size; O(memory) for the last chunk, which validates the filter",
     loadchunk_args, restores_key},
};

int rtdbf_command_info_register(RedisModuleCtx *ctx)
{
    if (!RedisModule_GetCommand || !RedisModule_SetCommandInfo)
        return REDISMODULE_OK;   /* before Redis 7.0: nothing to describe with */
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        RedisModuleCommand *command = RedisModule_GetCommand(ctx, commands[i].name);
        if (!command) {
            RedisModule_Log(ctx, "warning", "tdbf: no command %s to describe",
                            commands[i].name);
            return REDISMODULE_ERR;
        }
        const RedisModuleCommandInfo info = {
            .version = &info_version,
            .summary = commands[i].summary,
            .complexity = commands[i].complexity,
            .since = "0.1.0",
            .history = NULL,
            .tips = NULL,
            .arity = commands[i].arity,
            .key_specs = commands[i].key_specs,
            .args = commands[i].args,
        };
        if (RedisModule_SetCommandInfo(command, &info) != REDISMODULE_OK) {
            RedisModule_Log(ctx, "warning", "tdbf: the server refused the command info of "
                                            "%s (see the line above)", commands[i].name);
            return REDISMODULE_ERR;
        }
    }
    return REDISMODULE_OK;
}
