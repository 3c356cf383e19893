/*
 * module.c — the tdbf Redis module's entry point.
 *
 *   redis-server --loadmodule ./build/tdbf.so [DEFAULT_ERROR 0.01]
 *       [DEFAULT_DESIGN apbf] [DEFAULT_TIME_DESIGN tlbf] [MAX_MEMORY bytes]
 *
 * RedisModule_OnLoad binds the Module API (module_api.h explains how),
 * routes every libtdbf allocation through RedisModule_Alloc/Free (so
 * used_memory and maxmemory see the filters), reads the module arguments,
 * creates the "tdbf-filt" data type (type.c) and the TDBF.* commands
 * (commands.c).  RedisModule_OnLoad is the only symbol the module exports.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tdbf_module.h"

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

typedef int (*tdbf_get_api_fn)(const char *name, void *out);

int tdbf_module_bind_api(RedisModuleCtx *ctx, const char **missing)
{
    /* The lookup function is the first pointer stored in the context. */
    void *first;
    memcpy(&first, (void *)ctx, sizeof first);
    tdbf_get_api_fn get_api;
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
        BIND(Calloc), BIND(Free), BIND(OpenKey), BIND(CloseKey), BIND(KeyType),
        BIND(DeleteKey), BIND(ModuleTypeSetValue), BIND(ModuleTypeGetType),
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

/* ======================================================================
 * Allocator: every byte of every filter comes from the server's allocator.
 * TryAlloc (Redis 7.0+) returns NULL instead of ending the server when the
 * allocation fails, so an oversized filter becomes TDBF_ENOMEM, an error
 * reply; RedisModule_Alloc is the fallback on servers without it.
 * ====================================================================== */

static void *module_alloc(void *opaque, size_t size)
{
    (void)opaque;
    if (size == 0)
        size = 1;
    return RedisModule_TryAlloc ? RedisModule_TryAlloc(size) : RedisModule_Alloc(size);
}

static void *module_calloc(void *opaque, size_t count, size_t size)
{
    (void)opaque;
    if (count != 0 && size > SIZE_MAX / count)
        return NULL;
    size_t bytes = count * size;
    if (!RedisModule_TryAlloc)
        return RedisModule_Calloc(count ? count : 1, size ? size : 1);
    void *p = RedisModule_TryAlloc(bytes ? bytes : 1);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void *tdbf_module_try_alloc(uint64_t bytes)
{
    if (bytes > SIZE_MAX)
        return NULL;
    return module_alloc(NULL, (size_t)bytes);
}

static void module_free(void *opaque, void *ptr)
{
    (void)opaque;
    if (ptr)
        RedisModule_Free(ptr);
}

/* ======================================================================
 * Module arguments
 * ====================================================================== */

RedisModuleType *tdbf_type = NULL;
tdbf_module_config tdbf_settings = {
    .default_error = 0.01,
    .default_count_design = TDBF_APBF,
    .default_time_design = TDBF_TLBF,
    .max_memory = 0,
};

static bool arg_is(RedisModuleString *arg, const char *word)
{
    size_t len;
    const char *s = RedisModule_StringPtrLen(arg, &len);
    return len == strlen(word) && strncasecmp(s, word, len) == 0;
}

static int parse_design_arg(RedisModuleCtx *ctx, RedisModuleString *arg,
                            tdbf_design *out)
{
    size_t len;
    const char *s = RedisModule_StringPtrLen(arg, &len);
    char name[32];
    bool fits = len < sizeof name;
    if (fits) {
        memcpy(name, s, len);
        name[len] = '\0';
    }
    if (!fits || tdbf_design_parse(name, out) != TDBF_OK || !tdbf_design_available(*out)) {
        RedisModule_Log(ctx, "warning", "tdbf: unknown design '%.*s'",
                        (int)(len > 32 ? 32 : len), s);
        return REDISMODULE_ERR;
    }
    return REDISMODULE_OK;
}

static int parse_module_args(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    for (int i = 0; i < argc; i += 2) {
        if (i + 1 >= argc) {
            RedisModule_Log(ctx, "warning", "tdbf: module argument '%s' needs a value",
                            RedisModule_StringPtrLen(argv[i], NULL));
            return REDISMODULE_ERR;
        }
        if (arg_is(argv[i], "DEFAULT_ERROR")) {
            double e;
            if (RedisModule_StringToDouble(argv[i + 1], &e) != REDISMODULE_OK ||
                !(e > 0.0 && e < 1.0)) {
                RedisModule_Log(ctx, "warning",
                                "tdbf: DEFAULT_ERROR must be a number between 0 and 1");
                return REDISMODULE_ERR;
            }
            tdbf_settings.default_error = e;
        } else if (arg_is(argv[i], "DEFAULT_DESIGN")) {
            if (parse_design_arg(ctx, argv[i + 1], &tdbf_settings.default_count_design))
                return REDISMODULE_ERR;
        } else if (arg_is(argv[i], "DEFAULT_TIME_DESIGN")) {
            if (parse_design_arg(ctx, argv[i + 1], &tdbf_settings.default_time_design))
                return REDISMODULE_ERR;
        } else if (arg_is(argv[i], "MAX_MEMORY")) {
            long long bytes;
            if (RedisModule_StringToLongLong(argv[i + 1], &bytes) != REDISMODULE_OK ||
                bytes < 1) {
                RedisModule_Log(ctx, "warning",
                                "tdbf: MAX_MEMORY must be a positive number of bytes");
                return REDISMODULE_ERR;
            }
            tdbf_settings.max_memory = (uint64_t)bytes;
        } else {
            RedisModule_Log(ctx, "warning", "tdbf: unknown module argument '%s'",
                            RedisModule_StringPtrLen(argv[i], NULL));
            return REDISMODULE_ERR;
        }
    }
    return REDISMODULE_OK;
}

/* ======================================================================
 * Entry point
 * ====================================================================== */

__attribute__((visibility("default"))) int
RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

__attribute__((visibility("default"))) int
RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    const char *missing = NULL;
    if (tdbf_module_bind_api(ctx, &missing) != REDISMODULE_OK) {
        /* Without Log we cannot say which: stderr is the server's log
         * only when it logs to stdout, but it is all we have. */
        fprintf(stderr, "tdbf: this server lacks %s\n", missing);
        return REDISMODULE_ERR;
    }
    if (RedisModule_IsModuleNameBusy && RedisModule_IsModuleNameBusy(TDBF_MODULE_NAME))
        return REDISMODULE_ERR;
    RedisModule_SetModuleAttribs(ctx, TDBF_MODULE_NAME, TDBF_MODULE_VERSION,
                                 REDISMODULE_APIVER_1);
    RedisModule_SetModuleOptions(ctx, REDISMODULE_OPTIONS_HANDLE_IO_ERRORS);

    static const tdbf_allocator allocator = {
        .alloc = module_alloc, .calloc = module_calloc, .free = module_free,
        .opaque = NULL,
    };
    if (tdbf_set_allocator(&allocator) != TDBF_OK)
        return REDISMODULE_ERR;

    if (parse_module_args(ctx, argv, argc) != REDISMODULE_OK)
        return REDISMODULE_ERR;
    if (tdbf_type_register(ctx) != REDISMODULE_OK) {
        RedisModule_Log(ctx, "warning", "tdbf: cannot create the %s data type",
                        TDBF_TYPE_NAME);
        return REDISMODULE_ERR;
    }
    if (tdbf_register_commands(ctx) != REDISMODULE_OK) {
        RedisModule_Log(ctx, "warning", "tdbf: cannot register the commands");
        return REDISMODULE_ERR;
    }
    RedisModule_Log(ctx, "notice",
                    "tdbf %s loaded: default error %g, designs %s (count) and %s (time)",
                    tdbf_version_string(), tdbf_settings.default_error,
                    tdbf_design_name(tdbf_settings.default_count_design),
                    tdbf_design_name(tdbf_settings.default_time_design));
    return REDISMODULE_OK;
}
