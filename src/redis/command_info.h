/*
 * command_info.h — the structures RedisModule_SetCommandInfo takes
 * (COMMAND DOCS, COMMAND INFO, arity checks): part of the Module API's
 * declarations (layer 0, with module_api.h); command_info.c fills them in
 * for the TDBF.* commands.
 *
 * RedisModule_SetCommandInfo (Redis 7.0+, Modules API reference, "Commands
 * API") takes a RedisModuleCommandInfo whose layout is part of the server's
 * ABI.  Like module_api.h, these are our own declarations of the documented
 * structures, written from that reference and checked against the Redis
 * 7.0 server: same field order, same types, same enum values.  A mismatch
 * here would make the server read garbage, so command_info.c asserts the
 * sizes and offsets at compile time (LP64).
 *
 * Versioning.  The info carries a pointer to a RedisModuleCommandInfoVersion
 * giving the API version (1, the only one so far) and the sizes of our
 * history-entry, key-spec and argument structs.  The server walks those
 * arrays with the sizes we give it, so a module compiled with smaller
 * (older) structs still works with a newer server, and larger ones with an
 * older server.  RedisModuleCommandArg here includes `display_text`, which
 * the Modules API reference documents from Redis 7.2: a 7.0 server steps
 * over it (it uses our sizeof_arg), and 7.2+ servers read it
 * unconditionally, so declaring it keeps them from reading past the end of
 * each of our elements.
 */
#ifndef TDBF_REDIS_COMMAND_INFO_H
#define TDBF_REDIS_COMMAND_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "module_api.h"

/* ---- argument types and flags (RedisModuleCommandArg) ------------------ */

/* RedisModuleCommandArgType, in the server's numbering. */
typedef enum RedisModuleCommandArgType {
    REDISMODULE_ARG_TYPE_STRING = 0,
    REDISMODULE_ARG_TYPE_INTEGER = 1,
    REDISMODULE_ARG_TYPE_DOUBLE = 2,
    REDISMODULE_ARG_TYPE_KEY = 3,        /* a key name (key_spec_index) */
    REDISMODULE_ARG_TYPE_PATTERN = 4,
    REDISMODULE_ARG_TYPE_UNIX_TIME = 5,
    REDISMODULE_ARG_TYPE_PURE_TOKEN = 6, /* the token alone, no value */
    REDISMODULE_ARG_TYPE_ONEOF = 7,      /* one of subargs */
    REDISMODULE_ARG_TYPE_BLOCK = 8       /* subargs together */
} RedisModuleCommandArgType;

/* RedisModuleCommandArg.flags */
#define REDISMODULE_CMD_ARG_NONE           0
#define REDISMODULE_CMD_ARG_OPTIONAL       (1 << 0) /* [arg] */
#define REDISMODULE_CMD_ARG_MULTIPLE       (1 << 1) /* arg [arg ...] */
#define REDISMODULE_CMD_ARG_MULTIPLE_TOKEN (1 << 2) /* TOKEN arg [TOKEN arg ...] */

/* ---- key specs (RedisModuleCommandKeySpec) ----------------------------- */

typedef enum RedisModuleKeySpecBeginSearchType {
    REDISMODULE_KSPEC_BS_INVALID = 0,    /* ends the key_specs array */
    REDISMODULE_KSPEC_BS_UNKNOWN = 1,
    REDISMODULE_KSPEC_BS_INDEX = 2,      /* bs.index.pos */
    REDISMODULE_KSPEC_BS_KEYWORD = 3     /* bs.keyword */
} RedisModuleKeySpecBeginSearchType;

typedef enum RedisModuleKeySpecFindKeysType {
    REDISMODULE_KSPEC_FK_OMITTED = 0,    /* one key: range {0, 1, 0} */
    REDISMODULE_KSPEC_FK_UNKNOWN = 1,
    REDISMODULE_KSPEC_FK_RANGE = 2,      /* fk.range */
    REDISMODULE_KSPEC_FK_KEYNUM = 3      /* fk.keynum */
} RedisModuleKeySpecFindKeysType;

/* Key-spec flags: exactly one of RO/RW/OW/RM; ACCESS and at most one of
 * UPDATE/INSERT/DELETE describe what happens to the user's data. */
#define REDISMODULE_CMD_KEY_RO             (1ULL << 0)
#define REDISMODULE_CMD_KEY_RW             (1ULL << 1)
#define REDISMODULE_CMD_KEY_OW             (1ULL << 2)
#define REDISMODULE_CMD_KEY_RM             (1ULL << 3)
#define REDISMODULE_CMD_KEY_ACCESS         (1ULL << 4)
#define REDISMODULE_CMD_KEY_UPDATE         (1ULL << 5)
#define REDISMODULE_CMD_KEY_INSERT         (1ULL << 6)
#define REDISMODULE_CMD_KEY_DELETE         (1ULL << 7)
#define REDISMODULE_CMD_KEY_NOT_KEY        (1ULL << 8)
#define REDISMODULE_CMD_KEY_INCOMPLETE     (1ULL << 9)
#define REDISMODULE_CMD_KEY_VARIABLE_FLAGS (1ULL << 10)

typedef struct RedisModuleCommandKeySpec {
    const char *notes;
    uint64_t flags;                                  /* REDISMODULE_CMD_KEY_* */
    RedisModuleKeySpecBeginSearchType begin_search_type;
    union {
        struct {
            int pos;             /* argv index of the first key */
        } index;
        struct {
            const char *keyword; /* keys follow this word */
            int startfrom;       /* where to look for it (negative: from the end) */
        } keyword;
    } bs;
    RedisModuleKeySpecFindKeysType find_keys_type;
    union {
        struct {
            int lastkey;         /* relative to the first key; negative: from the end */
            int keystep;
            int limit;
        } range;
        struct {
            int keynumidx;
            int firstkey;
            int keystep;
        } keynum;
    } fk;
} RedisModuleCommandKeySpec;

/* ---- arguments, history, the info ------------------------------------- */

typedef struct RedisModuleCommandArg {
    const char *name;                 /* NULL ends an array */
    RedisModuleCommandArgType type;
    int key_spec_index;               /* KEY: index into key_specs; else -1 (or 0) */
    const char *token;                /* the word before the value, e.g. "EX" */
    const char *summary;
    const char *since;
    int flags;                        /* REDISMODULE_CMD_ARG_* */
    const char *deprecated_since;
    struct RedisModuleCommandArg *subargs; /* ONEOF and BLOCK only */
    const char *display_text;         /* read by 7.2+ only (see above) */
} RedisModuleCommandArg;

typedef struct RedisModuleCommandHistoryEntry {
    const char *since;                /* NULL ends the array */
    const char *changes;
} RedisModuleCommandHistoryEntry;

typedef struct RedisModuleCommandInfoVersion {
    int version;                      /* 1 */
    size_t sizeof_historyentry;
    size_t sizeof_keyspec;
    size_t sizeof_arg;
} RedisModuleCommandInfoVersion;

#define TDBF_COMMAND_INFO_VERSION 1

/* The tag matches module_api.h's forward declaration. */
typedef struct RedisModuleCommandInfo {
    const RedisModuleCommandInfoVersion *version;
    const char *summary;
    const char *complexity;
    const char *since;                /* the module's version that added it */
    RedisModuleCommandHistoryEntry *history;
    const char *tips;                 /* space-separated */
    int arity;                        /* 0: unchanged; -N: at least N */
    RedisModuleCommandKeySpec *key_specs; /* NULL: keep CreateCommand's keys */
    RedisModuleCommandArg *args;
} RedisModuleCommandInfo;

#endif /* TDBF_REDIS_COMMAND_INFO_H */
