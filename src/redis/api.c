/*
 * api.c — the Redis Module API pointers, and their binding.
 *
 * Layer 0 (README.md): every other file of the module calls the server
 * through these pointers, so they sit below everything.  module_api.h
 * declares them and explains how a module finds them: the first pointer
 * stored in the context RedisModule_OnLoad receives is a lookup function
 * from an API name to its address.  module.c calls rtdbf_module_bind_api
 * before anything else; until then every pointer is NULL.
 */
#include <stdbool.h>
#include <string.h>

#include "module_api.h"

/* ======================================================================
 * The API pointers and their binding
 * ====================================================================== */

#define TDBF_RM_DEFINE(ret, name, args) ret (*RedisModule_##name) args = NULL

TDBF_RM_DEFINE(void, SetModuleAttribs, (RedisModuleCtx *, const char *, int, int));
TDBF_RM_DEFINE(int, IsModuleNameBusy, (const char *));
TDBF_RM_DEFINE(void, SetModuleOptions, (RedisModuleCtx *, int));
TDBF_RM_DEFINE(int, CreateCommand, (RedisModuleCtx *, const char *, RedisModuleCmdFunc,
                                    const char *, int, int, int));
TDBF_RM_DEFINE(RedisModuleType *, CreateDataType, (RedisModuleCtx *, const char *, int,
                                                   RedisModuleTypeMethods *));
TDBF_RM_DEFINE(void, Log, (RedisModuleCtx *, const char *, const char *, ...));
TDBF_RM_DEFINE(void, LogIOError, (RedisModuleIO *, const char *, const char *, ...));
TDBF_RM_DEFINE(void *, Alloc, (size_t));
TDBF_RM_DEFINE(void *, TryAlloc, (size_t));
TDBF_RM_DEFINE(void *, Calloc, (size_t, size_t));
TDBF_RM_DEFINE(void *, TryCalloc, (size_t, size_t));
TDBF_RM_DEFINE(void, Free, (void *));
TDBF_RM_DEFINE(RedisModuleKey *, OpenKey, (RedisModuleCtx *, RedisModuleString *, int));
TDBF_RM_DEFINE(void, CloseKey, (RedisModuleKey *));
TDBF_RM_DEFINE(int, KeyType, (RedisModuleKey *));
TDBF_RM_DEFINE(int, DeleteKey, (RedisModuleKey *));
TDBF_RM_DEFINE(int, ModuleTypeSetValue, (RedisModuleKey *, RedisModuleType *, void *));
TDBF_RM_DEFINE(RedisModuleType *, ModuleTypeGetType, (RedisModuleKey *));
TDBF_RM_DEFINE(void *, ModuleTypeGetValue, (RedisModuleKey *));
TDBF_RM_DEFINE(const char *, StringPtrLen, (const RedisModuleString *, size_t *));
TDBF_RM_DEFINE(int, StringToLongLong, (const RedisModuleString *, long long *));
TDBF_RM_DEFINE(int, StringToDouble, (const RedisModuleString *, double *));
TDBF_RM_DEFINE(int, WrongArity, (RedisModuleCtx *));
TDBF_RM_DEFINE(int, ReplyWithError, (RedisModuleCtx *, const char *));
TDBF_RM_DEFINE(int, ReplyWithSimpleString, (RedisModuleCtx *, const char *));
TDBF_RM_DEFINE(int, ReplyWithLongLong, (RedisModuleCtx *, long long));
TDBF_RM_DEFINE(int, ReplyWithDouble, (RedisModuleCtx *, double));
TDBF_RM_DEFINE(int, ReplyWithBool, (RedisModuleCtx *, int));
TDBF_RM_DEFINE(int, ReplyWithArray, (RedisModuleCtx *, long));
TDBF_RM_DEFINE(int, ReplyWithMap, (RedisModuleCtx *, long));
TDBF_RM_DEFINE(int, ReplyWithStringBuffer, (RedisModuleCtx *, const char *, size_t));
TDBF_RM_DEFINE(int, GetContextFlags, (RedisModuleCtx *));
TDBF_RM_DEFINE(float, GetUsedMemoryRatio, (void));
TDBF_RM_DEFINE(RedisModuleServerInfoData *, GetServerInfo, (RedisModuleCtx *, const char *));
TDBF_RM_DEFINE(void, FreeServerInfo, (RedisModuleCtx *, RedisModuleServerInfoData *));
TDBF_RM_DEFINE(unsigned long long, ServerInfoGetFieldUnsigned,
               (RedisModuleServerInfoData *, const char *, int *));
TDBF_RM_DEFINE(RedisModuleCtx *, GetContextFromIO, (RedisModuleIO *));
TDBF_RM_DEFINE(int, RegisterInfoFunc, (RedisModuleCtx *, RedisModuleInfoFunc));
TDBF_RM_DEFINE(int, InfoAddSection, (RedisModuleInfoCtx *, const char *));
TDBF_RM_DEFINE(int, InfoAddFieldULongLong, (RedisModuleInfoCtx *, const char *,
                                            unsigned long long));
TDBF_RM_DEFINE(int, NotifyKeyspaceEvent, (RedisModuleCtx *, int, const char *,
                                          RedisModuleString *));
TDBF_RM_DEFINE(RedisModuleCommand *, GetCommand, (RedisModuleCtx *, const char *));
TDBF_RM_DEFINE(int, SetCommandInfo, (RedisModuleCommand *,
                                     const struct RedisModuleCommandInfo *));
TDBF_RM_DEFINE(int, Replicate, (RedisModuleCtx *, const char *, const char *, ...));
TDBF_RM_DEFINE(int, ReplicateVerbatim, (RedisModuleCtx *));
TDBF_RM_DEFINE(long long, Milliseconds, (void));
TDBF_RM_DEFINE(void, SaveUnsigned, (RedisModuleIO *, uint64_t));
TDBF_RM_DEFINE(uint64_t, LoadUnsigned, (RedisModuleIO *));
TDBF_RM_DEFINE(void, SaveStringBuffer, (RedisModuleIO *, const char *, size_t));
TDBF_RM_DEFINE(char *, LoadStringBuffer, (RedisModuleIO *, size_t *));
TDBF_RM_DEFINE(int, IsIOError, (RedisModuleIO *));
TDBF_RM_DEFINE(void, EmitAOF, (RedisModuleIO *, const char *, const char *, ...));
TDBF_RM_DEFINE(void, DigestAddStringBuffer, (RedisModuleDigest *, const char *, size_t));
TDBF_RM_DEFINE(void, DigestAddLongLong, (RedisModuleDigest *, long long));
TDBF_RM_DEFINE(void, DigestEndSequence, (RedisModuleDigest *));

#undef TDBF_RM_DEFINE

typedef int (*rtdbf_get_api_fn)(const char *name, void *out);

int rtdbf_module_bind_api(RedisModuleCtx *ctx, const char **missing)
{
    /* The lookup function is the first pointer stored in the context. */
    void *first;
    memcpy(&first, (void *)ctx, sizeof first);
    rtdbf_get_api_fn get_api;
    memcpy(&get_api, &first, sizeof get_api);

    static const struct {
        const char *name;
        void *slot;
        bool optional;
    } table[] = {
#define BIND(name) {"RedisModule_" #name, (void *)&RedisModule_##name, false}
#define BIND_OPTIONAL(name) {"RedisModule_" #name, (void *)&RedisModule_##name, true}
        BIND(SetModuleAttribs), BIND_OPTIONAL(IsModuleNameBusy),
        BIND(SetModuleOptions), BIND(CreateCommand), BIND(CreateDataType),
        BIND(Log), BIND(LogIOError), BIND(Alloc), BIND_OPTIONAL(TryAlloc),
        BIND(Calloc), BIND_OPTIONAL(TryCalloc), BIND(Free), BIND(OpenKey),
        BIND(CloseKey), BIND(KeyType), BIND(DeleteKey), BIND(ModuleTypeSetValue),
        BIND(ModuleTypeGetType),
        BIND(ModuleTypeGetValue), BIND(StringPtrLen), BIND(StringToLongLong),
        BIND(StringToDouble), BIND(WrongArity), BIND(ReplyWithError),
        BIND(ReplyWithSimpleString), BIND(ReplyWithLongLong),
        BIND(ReplyWithDouble), BIND(ReplyWithBool), BIND(ReplyWithArray),
        BIND(ReplyWithMap), BIND(ReplyWithStringBuffer),
        BIND_OPTIONAL(GetContextFlags), BIND_OPTIONAL(GetUsedMemoryRatio), BIND(Replicate),
        BIND(ReplicateVerbatim), BIND(Milliseconds), BIND(SaveUnsigned),
        BIND(LoadUnsigned), BIND(SaveStringBuffer), BIND(LoadStringBuffer),
        BIND(IsIOError), BIND(EmitAOF), BIND(DigestAddStringBuffer),
        BIND(DigestAddLongLong), BIND(DigestEndSequence),
        BIND_OPTIONAL(GetServerInfo), BIND_OPTIONAL(FreeServerInfo),
        BIND_OPTIONAL(ServerInfoGetFieldUnsigned), BIND_OPTIONAL(GetContextFromIO),
        BIND_OPTIONAL(RegisterInfoFunc), BIND_OPTIONAL(InfoAddSection),
        BIND_OPTIONAL(InfoAddFieldULongLong), BIND(NotifyKeyspaceEvent),
        BIND_OPTIONAL(GetCommand), BIND_OPTIONAL(SetCommandInfo),
#undef BIND
#undef BIND_OPTIONAL
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (get_api(table[i].name, table[i].slot) != REDISMODULE_OK &&
            !table[i].optional) {
            *missing = table[i].name;
            return REDISMODULE_ERR;
        }
    }
    return REDISMODULE_OK;
}
