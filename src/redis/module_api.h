/*
 * module_api.h — the part of the Redis Modules API that the tdbf module
 * uses, declared from the public documentation (redis.io, "Modules API
 * reference" and "Modules API for native types").  No Debian package ships
 * redismodule.h, so these are our own declarations of the documented
 * names, signatures and constants; nothing else of the API is declared.
 *
 * How the binding works.  Redis calls the exported
 *     int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv,
 *                            int argc);
 * The first pointer stored in *ctx is a lookup function
 *     int get_api(const char *name, void *out)
 * which writes the address of the API function called `name` (for example
 * "RedisModule_OpenKey") into *(void **)out and returns REDISMODULE_OK, or
 * REDISMODULE_ERR if this server does not have it.  api.c fetches every
 * pointer declared below that way (rtdbf_module_bind_api, called first
 * thing by module.c), which then registers the module with
 * RedisModule_SetModuleAttribs(ctx, name, version, REDISMODULE_APIVER_1)
 * before creating the type and the commands.
 *
 * The pointers are defined once, in api.c; the other files see them
 * through the `extern` declarations here.  The module is built with
 * -fvisibility=hidden, so none of them is exported.
 */
#ifndef TDBF_REDIS_MODULE_API_H
#define TDBF_REDIS_MODULE_API_H

#include <stddef.h>
#include <stdint.h>

/* ---- constants ------------------------------------------------------- */

#define REDISMODULE_OK  0
#define REDISMODULE_ERR 1

#define REDISMODULE_APIVER_1 1

/* RedisModule_OpenKey modes. */
#define REDISMODULE_READ  (1 << 0)
#define REDISMODULE_WRITE (1 << 1)

/* RedisModule_KeyType results. */
#define REDISMODULE_KEYTYPE_EMPTY  0
#define REDISMODULE_KEYTYPE_STRING 1
#define REDISMODULE_KEYTYPE_LIST   2
#define REDISMODULE_KEYTYPE_HASH   3
#define REDISMODULE_KEYTYPE_SET    4
#define REDISMODULE_KEYTYPE_ZSET   5
#define REDISMODULE_KEYTYPE_MODULE 6
#define REDISMODULE_KEYTYPE_STREAM 7

/* RedisModuleTypeMethods.version: 3 covers the fields declared below
 * (free_effort, unlink, copy and defrag were added in version 3). */
#define REDISMODULE_TYPE_METHOD_VERSION 3

/* RedisModule_SetModuleOptions: the module checks RedisModule_IsIOError
 * after each RDB load call instead of letting the server abort on a short
 * read (diskless replication, RESTORE of a truncated payload). */
#define REDISMODULE_OPTIONS_HANDLE_IO_ERRORS (1 << 0)

/* RedisModule_GetContextFlags bits (the server's numbering). */
#define REDISMODULE_CTX_FLAGS_LUA       (1 << 0)
#define REDISMODULE_CTX_FLAGS_MULTI     (1 << 1)
#define REDISMODULE_CTX_FLAGS_MASTER    (1 << 2)
#define REDISMODULE_CTX_FLAGS_MAXMEMORY (1 << 8)
#define REDISMODULE_CTX_FLAGS_EVICT     (1 << 9)
#define REDISMODULE_CTX_FLAGS_REPLICATED (1 << 12) /* sent by our primary */
#define REDISMODULE_CTX_FLAGS_LOADING   (1 << 13)

/* RedisModule_NotifyKeyspaceEvent types: the module class ('d' in
 * notify-keyspace-events). */
#define REDISMODULE_NOTIFY_MODULE (1 << 13)

#define REDISMODULE_ERRORMSG_WRONGTYPE \
    "WRONGTYPE Operation against a key holding the wrong kind of value"

/* ---- opaque server types --------------------------------------------- */

typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleKey RedisModuleKey;
typedef struct RedisModuleString RedisModuleString;
typedef struct RedisModuleIO RedisModuleIO;
typedef struct RedisModuleType RedisModuleType;
typedef struct RedisModuleDigest RedisModuleDigest;
typedef struct RedisModuleDefragCtx RedisModuleDefragCtx;
typedef struct RedisModuleServerInfoData RedisModuleServerInfoData;
typedef struct RedisModuleInfoCtx RedisModuleInfoCtx;
typedef struct RedisModuleCommand RedisModuleCommand;
struct RedisModuleCommandInfo;   /* command_info.h */

/* ---- callbacks ------------------------------------------------------- */

typedef int (*RedisModuleCmdFunc)(RedisModuleCtx *ctx, RedisModuleString **argv,
                                  int argc);

typedef void (*RedisModuleInfoFunc)(RedisModuleInfoCtx *ctx, int for_crash_report);

typedef void *(*RedisModuleTypeLoadFunc)(RedisModuleIO *rdb, int encver);
typedef void (*RedisModuleTypeSaveFunc)(RedisModuleIO *rdb, void *value);
typedef void (*RedisModuleTypeRewriteFunc)(RedisModuleIO *aof,
                                           RedisModuleString *key, void *value);
typedef size_t (*RedisModuleTypeMemUsageFunc)(const void *value);
typedef void (*RedisModuleTypeDigestFunc)(RedisModuleDigest *digest, void *value);
typedef void (*RedisModuleTypeFreeFunc)(void *value);
typedef int (*RedisModuleTypeAuxLoadFunc)(RedisModuleIO *rdb, int encver, int when);
typedef void (*RedisModuleTypeAuxSaveFunc)(RedisModuleIO *rdb, int when);
typedef size_t (*RedisModuleTypeFreeEffortFunc)(RedisModuleString *key,
                                                const void *value);
typedef void (*RedisModuleTypeUnlinkFunc)(RedisModuleString *key, const void *value);
typedef void *(*RedisModuleTypeCopyFunc)(RedisModuleString *fromkey,
                                         RedisModuleString *tokey,
                                         const void *value);
typedef int (*RedisModuleTypeDefragFunc)(RedisModuleDefragCtx *ctx,
                                         RedisModuleString *key, void **value);

/* The type's callbacks, in the documented field order.  Fields after
 * `defrag` (versions 4 and later) are not declared: with version 3 the
 * server does not read past it. */
typedef struct RedisModuleTypeMethods {
    uint64_t version;
    RedisModuleTypeLoadFunc rdb_load;
    RedisModuleTypeSaveFunc rdb_save;
    RedisModuleTypeRewriteFunc aof_rewrite;
    RedisModuleTypeMemUsageFunc mem_usage;
    RedisModuleTypeDigestFunc digest;
    RedisModuleTypeFreeFunc free;
    RedisModuleTypeAuxLoadFunc aux_load;
    RedisModuleTypeAuxSaveFunc aux_save;
    int aux_save_triggers;
    RedisModuleTypeFreeEffortFunc free_effort;
    RedisModuleTypeUnlinkFunc unlink;
    RedisModuleTypeCopyFunc copy;
    RedisModuleTypeDefragFunc defrag;
} RedisModuleTypeMethods;

/* ---- the API functions (pointers filled in by rtdbf_module_bind_api) --- */

#define TDBF_RM_API(ret, name, args) extern ret (*RedisModule_##name) args

/* module registration */
TDBF_RM_API(void, SetModuleAttribs, (RedisModuleCtx *ctx, const char *name,
                                     int ver, int apiver));
TDBF_RM_API(int, IsModuleNameBusy, (const char *name));
TDBF_RM_API(void, SetModuleOptions, (RedisModuleCtx *ctx, int options));
TDBF_RM_API(int, CreateCommand, (RedisModuleCtx *ctx, const char *name,
                                 RedisModuleCmdFunc cmdfunc, const char *strflags,
                                 int firstkey, int lastkey, int keystep));
TDBF_RM_API(RedisModuleType *, CreateDataType, (RedisModuleCtx *ctx,
                                                const char *name, int encver,
                                                RedisModuleTypeMethods *typemethods));
TDBF_RM_API(void, Log, (RedisModuleCtx *ctx, const char *level,
                        const char *fmt, ...));
TDBF_RM_API(void, LogIOError, (RedisModuleIO *io, const char *levelstr,
                               const char *fmt, ...));

/* memory */
TDBF_RM_API(void *, Alloc, (size_t bytes));
TDBF_RM_API(void *, TryAlloc, (size_t bytes));   /* optional (7.0+) */
TDBF_RM_API(void *, Calloc, (size_t nmemb, size_t size));
TDBF_RM_API(void *, TryCalloc, (size_t nmemb, size_t size));   /* optional (7.4+) */
TDBF_RM_API(void, Free, (void *ptr));

/* keys and values */
TDBF_RM_API(RedisModuleKey *, OpenKey, (RedisModuleCtx *ctx,
                                        RedisModuleString *keyname, int mode));
TDBF_RM_API(void, CloseKey, (RedisModuleKey *key));
TDBF_RM_API(int, KeyType, (RedisModuleKey *key));
TDBF_RM_API(int, DeleteKey, (RedisModuleKey *key));
TDBF_RM_API(int, ModuleTypeSetValue, (RedisModuleKey *key, RedisModuleType *mt,
                                      void *value));
TDBF_RM_API(RedisModuleType *, ModuleTypeGetType, (RedisModuleKey *key));
TDBF_RM_API(void *, ModuleTypeGetValue, (RedisModuleKey *key));

/* strings */
TDBF_RM_API(const char *, StringPtrLen, (const RedisModuleString *str,
                                         size_t *len));
TDBF_RM_API(int, StringToLongLong, (const RedisModuleString *str, long long *ll));
TDBF_RM_API(int, StringToDouble, (const RedisModuleString *str, double *d));

/* replies */
TDBF_RM_API(int, WrongArity, (RedisModuleCtx *ctx));
TDBF_RM_API(int, ReplyWithError, (RedisModuleCtx *ctx, const char *err));
TDBF_RM_API(int, ReplyWithSimpleString, (RedisModuleCtx *ctx, const char *msg));
TDBF_RM_API(int, ReplyWithLongLong, (RedisModuleCtx *ctx, long long ll));
TDBF_RM_API(int, ReplyWithDouble, (RedisModuleCtx *ctx, double d));
TDBF_RM_API(int, ReplyWithBool, (RedisModuleCtx *ctx, int b));
TDBF_RM_API(int, ReplyWithArray, (RedisModuleCtx *ctx, long len));
TDBF_RM_API(int, ReplyWithMap, (RedisModuleCtx *ctx, long len));
TDBF_RM_API(int, ReplyWithStringBuffer, (RedisModuleCtx *ctx, const char *buf,
                                         size_t len));

/* server state (both optional: GetContextFlags 5.0+, GetUsedMemoryRatio
 * 6.0+; without them maxmemory is not checked at creation) */
TDBF_RM_API(int, GetContextFlags, (RedisModuleCtx *ctx));
TDBF_RM_API(float, GetUsedMemoryRatio, (void));

/* server INFO fields (optional, 6.0+): maxmemory and used_memory */
TDBF_RM_API(RedisModuleServerInfoData *, GetServerInfo, (RedisModuleCtx *ctx,
                                                         const char *section));
TDBF_RM_API(void, FreeServerInfo, (RedisModuleCtx *ctx, RedisModuleServerInfoData *data));
TDBF_RM_API(unsigned long long, ServerInfoGetFieldUnsigned,
            (RedisModuleServerInfoData *data, const char *field, int *out_err));
TDBF_RM_API(RedisModuleCtx *, GetContextFromIO, (RedisModuleIO *io));

/* our section of INFO (optional, 6.0+) */
TDBF_RM_API(int, RegisterInfoFunc, (RedisModuleCtx *ctx, RedisModuleInfoFunc cb));
TDBF_RM_API(int, InfoAddSection, (RedisModuleInfoCtx *ctx, const char *name));
TDBF_RM_API(int, InfoAddFieldULongLong, (RedisModuleInfoCtx *ctx, const char *field,
                                         unsigned long long value));

/* keyspace notifications */
TDBF_RM_API(int, NotifyKeyspaceEvent, (RedisModuleCtx *ctx, int type, const char *event,
                                       RedisModuleString *key));

/* command metadata for COMMAND DOCS / COMMAND INFO (optional, 7.0+) */
TDBF_RM_API(RedisModuleCommand *, GetCommand, (RedisModuleCtx *ctx, const char *name));
TDBF_RM_API(int, SetCommandInfo, (RedisModuleCommand *command,
                                  const struct RedisModuleCommandInfo *info));

/* replication and time */
TDBF_RM_API(int, Replicate, (RedisModuleCtx *ctx, const char *cmdname,
                             const char *fmt, ...));
TDBF_RM_API(int, ReplicateVerbatim, (RedisModuleCtx *ctx));
TDBF_RM_API(long long, Milliseconds, (void));

/* RDB, AOF, digest */
TDBF_RM_API(void, SaveUnsigned, (RedisModuleIO *io, uint64_t value));
TDBF_RM_API(uint64_t, LoadUnsigned, (RedisModuleIO *io));
TDBF_RM_API(void, SaveStringBuffer, (RedisModuleIO *io, const char *str,
                                     size_t len));
TDBF_RM_API(char *, LoadStringBuffer, (RedisModuleIO *io, size_t *lenptr));
TDBF_RM_API(int, IsIOError, (RedisModuleIO *io));
TDBF_RM_API(void, EmitAOF, (RedisModuleIO *io, const char *cmdname,
                            const char *fmt, ...));
TDBF_RM_API(void, DigestAddStringBuffer, (RedisModuleDigest *md,
                                          const char *ele, size_t len));
TDBF_RM_API(void, DigestAddLongLong, (RedisModuleDigest *md, long long ele));
TDBF_RM_API(void, DigestEndSequence, (RedisModuleDigest *md));

#undef TDBF_RM_API

/* Fill every pointer above through the lookup function found in *ctx.
 * Returns REDISMODULE_OK, or REDISMODULE_ERR naming the first function
 * the server lacks in *missing.  TryAlloc, TryCalloc, GetContextFlags and
 * GetUsedMemoryRatio are optional (NULL if absent). */
int rtdbf_module_bind_api(RedisModuleCtx *ctx, const char **missing);

#endif /* TDBF_REDIS_MODULE_API_H */
