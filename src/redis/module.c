/*
 * module.c — the tdbf Redis module's entry point.
 *
 *   redis-server --loadmodule ./build/tdbf.so [DEFAULT_ERROR 0.01]
 *       [DEFAULT_DESIGN apbf-line] [DEFAULT_TIME_DESIGN tlbf] [MAX_MEMORY bytes]
 *       [AUTOCREATE yes] [DEFAULT_WINDOW 100000] [DEFAULT_EX seconds]
 *       [MAX_ERROR_RATIO 1.5] [ALLOW_ADDAT no]
 *
 * RedisModule_OnLoad binds the Module API (module_api.h explains how),
 * routes every libtdbf allocation through RedisModule_Alloc/Free (so
 * used_memory and maxmemory see the filters) under a budget that keeps a
 * client's command within maxmemory, reads the module arguments, creates
 * the "tdbf-filt" data type (type.c), the TDBF.* commands (commands.c)
 * and their COMMAND DOCS (command_info.c), and the INFO section
 * tdbf_stats (refusal counters; refusals are logged at most once per
 * 10 s).  RedisModule_OnLoad is the only symbol the module exports.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "command_info.h"
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

/* ======================================================================
 * Allocator: every byte of every filter comes from the server's allocator.
 * TryAlloc (Redis 7.0+) returns NULL instead of ending the server when the
 * allocation fails, so an oversized filter becomes TDBF_ENOMEM, an error
 * reply; RedisModule_Alloc is the fallback on servers without it.
 *
 * The budget.  Redis refuses a `deny-oom` command only when memory is
 * already over maxmemory, but a filter's size comes from its error rate
 * and window, not from the command's length: one TDBF.RESERVE could ask
 * for gigabytes.  So while a command may allocate on behalf of a client
 * (creating a filter, an add that grows one, a restore), the caller opens
 * a budget: the bytes maxmemory leaves (tdbf_memory_headroom).  Every
 * request is checked against it *before* the server allocator is called;
 * one that does not fit gets NULL, which the library turns into
 * TDBF_ENOMEM (or, for a growing time filter, into its documented
 * degradation) with nothing of that size ever allocated or touched.
 * Commands run on the main thread only, so one budget at a time suffices.
 * ====================================================================== */

static struct {
    bool     open;
    uint64_t limit;      /* bytes the operation may allocate in all */
    uint64_t spent;      /* bytes granted so far (frees are not credited) */
    uint64_t refused;    /* the first request refused, 0 if none */
} budget;

void tdbf_budget_begin(uint64_t bytes)
{
    budget.open = bytes != UINT64_MAX;
    budget.limit = bytes;
    budget.spent = 0;
    budget.refused = 0;
}

uint64_t tdbf_budget_end(uint64_t *spent)
{
    budget.open = false;
    if (spent)
        *spent = budget.spent;
    return budget.refused;
}

static bool budget_grants(size_t size)
{
    if (!budget.open)
        return true;
    if (size > budget.limit - budget.spent) {
        if (!budget.refused)
            budget.refused = size;
        return false;
    }
    budget.spent += size;
    return true;
}

static void *module_alloc(void *opaque, size_t size)
{
    (void)opaque;
    if (size == 0)
        size = 1;
    if (!budget_grants(size))
        return NULL;
    return RedisModule_TryAlloc ? RedisModule_TryAlloc(size) : RedisModule_Alloc(size);
}

static void *module_calloc(void *opaque, size_t count, size_t size)
{
    (void)opaque;
    if (count != 0 && size > SIZE_MAX / count)
        return NULL;
    size_t bytes = count * size;
    if (!budget_grants(bytes ? bytes : 1))
        return NULL;
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
 * maxmemory headroom
 *
 * Only a primary serving a client is held to maxmemory: replicas and
 * loading (AOF, RDB) apply what the primary accepted, as Redis itself
 * does (replica-ignore-maxmemory), or they would diverge.  Without an
 * eviction policy a new allocation must fit in maxmemory - used_memory;
 * with one it must fit in maxmemory by itself (eviction frees room for
 * the rest at the next command, as for any large write).
 *
 * maxmemory is read from INFO memory at most once a second (adds of
 * growing filters ask on every call; INFO costs microseconds), and
 * used_memory follows from GetUsedMemoryRatio, which is cheap.
 * ====================================================================== */

static uint64_t cached_maxmemory(RedisModuleCtx *ctx)
{
    static uint64_t value;
    static long long read_at = -1;
    long long now = RedisModule_Milliseconds();
    if (read_at >= 0 && now >= read_at && now - read_at < 1000)
        return value;
    RedisModuleServerInfoData *info = RedisModule_GetServerInfo(ctx, "memory");
    if (!info)
        return 0;
    int err = 0;
    unsigned long long maxmemory = RedisModule_ServerInfoGetFieldUnsigned(info, "maxmemory", &err);
    RedisModule_FreeServerInfo(ctx, info);
    value = err ? 0 : (uint64_t)maxmemory;
    read_at = now;
    return value;
}

uint64_t tdbf_memory_headroom(RedisModuleCtx *ctx)
{
    if (!ctx || !RedisModule_GetContextFlags || !RedisModule_GetUsedMemoryRatio ||
        !RedisModule_GetServerInfo || !RedisModule_ServerInfoGetFieldUnsigned)
        return UINT64_MAX;
    int flags = RedisModule_GetContextFlags(ctx);
    if (!(flags & REDISMODULE_CTX_FLAGS_MASTER) || !(flags & REDISMODULE_CTX_FLAGS_MAXMEMORY) ||
        (flags & (REDISMODULE_CTX_FLAGS_LOADING | REDISMODULE_CTX_FLAGS_REPLICATED)))
        return UINT64_MAX;
    uint64_t maxmemory = cached_maxmemory(ctx);
    if (maxmemory == 0)
        return UINT64_MAX;
    if (flags & REDISMODULE_CTX_FLAGS_EVICT)
        return maxmemory;
    double used = (double)RedisModule_GetUsedMemoryRatio() * (double)maxmemory;
    return used >= (double)maxmemory ? 0 : (uint64_t)((double)maxmemory - used);
}

/* ======================================================================
 * Refusals: counted always, logged at most once per 10 s
 *
 * A hostile client can provoke refusals by the million; one log line each
 * would fill the disk.  The counters are in INFO (section tdbf_stats).
 * ====================================================================== */

tdbf_refusal_counters tdbf_refusals;

static struct {
    long long last_ms;
    uint64_t  suppressed;
} refusal_log = {.last_ms = -1};

void tdbf_refusal_log(RedisModuleCtx *ctx, RedisModuleIO *io, const char *fmt, ...)
{
    long long now = RedisModule_Milliseconds();
    if (refusal_log.last_ms >= 0 && now >= refusal_log.last_ms &&
        now - refusal_log.last_ms < 10000) {
        refusal_log.suppressed++;
        tdbf_refusals.log_suppressed++;
        return;
    }
    char line[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char note[96] = "";
    if (refusal_log.suppressed)
        snprintf(note, sizeof note, " (%llu similar lines suppressed; see INFO tdbf_stats)",
                 (unsigned long long)refusal_log.suppressed);
    if (io)
        RedisModule_LogIOError(io, "warning", "tdbf: %s%s", line, note);
    else
        RedisModule_Log(ctx, "warning", "tdbf: %s%s", line, note);
    refusal_log.last_ms = now;
    refusal_log.suppressed = 0;
}

static void info_section(RedisModuleInfoCtx *ctx, int for_crash_report)
{
    (void)for_crash_report;
    RedisModule_InfoAddSection(ctx, "stats");
    static const struct {
        const char *name;
        const uint64_t *value;
    } fields[] = {
        {"refused_payloads", &tdbf_refusals.payloads},
        {"refused_oom", &tdbf_refusals.oom},
        {"refused_overload", &tdbf_refusals.overload},
        {"refused_addat", &tdbf_refusals.addat},
        {"log_lines_suppressed", &tdbf_refusals.log_suppressed},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        RedisModule_InfoAddFieldULongLong(ctx, fields[i].name, *fields[i].value);
}

/* ======================================================================
 * Module arguments
 * ====================================================================== */

RedisModuleType *tdbf_type = NULL;
tdbf_module_config tdbf_settings = {
    .default_error = 0.01,
    .default_count_design = TDBF_APBF_LINE,
    .default_time_design = TDBF_TLBF,
    .max_memory = 0,
    .allow_addat = false,
    .autocreate = true,
    .default_window_items = 100000,
    .default_window_ms = 0,
    .max_error_ratio = 1.5,
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
    bool fits = len < sizeof name && !memchr(s, '\0', len);
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

/* yes|no, for the switches. */
static int parse_switch(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleString *arg,
                        bool *out)
{
    if (arg_is(arg, "yes") || arg_is(arg, "no")) {
        *out = arg_is(arg, "yes");
        return REDISMODULE_OK;
    }
    RedisModule_Log(ctx, "warning", "tdbf: %s takes yes or no",
                    RedisModule_StringPtrLen(name, NULL));
    return REDISMODULE_ERR;
}

/* A positive integer no larger than `most`. */
static int parse_count(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleString *arg,
                       long long most, uint64_t *out)
{
    long long x;
    if (RedisModule_StringToLongLong(arg, &x) != REDISMODULE_OK || x < 1 || x > most) {
        RedisModule_Log(ctx, "warning", "tdbf: %s must be an integer from 1 to %lld",
                        RedisModule_StringPtrLen(name, NULL), most);
        return REDISMODULE_ERR;
    }
    *out = (uint64_t)x;
    return REDISMODULE_OK;
}

static int parse_module_arg(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleString *arg)
{
    tdbf_module_config *c = &tdbf_settings;
    if (arg_is(name, "DEFAULT_ERROR")) {
        double e;
        if (RedisModule_StringToDouble(arg, &e) != REDISMODULE_OK || !(e > 0.0 && e < 1.0)) {
            RedisModule_Log(ctx, "warning",
                            "tdbf: DEFAULT_ERROR must be a number between 0 and 1");
            return REDISMODULE_ERR;
        }
        c->default_error = e;
        return REDISMODULE_OK;
    }
    if (arg_is(name, "DEFAULT_DESIGN"))
        return parse_design_arg(ctx, arg, &c->default_count_design);
    if (arg_is(name, "DEFAULT_TIME_DESIGN"))
        return parse_design_arg(ctx, arg, &c->default_time_design);
    if (arg_is(name, "MAX_MEMORY"))
        return parse_count(ctx, name, arg, LLONG_MAX, &c->max_memory);
    if (arg_is(name, "ALLOW_ADDAT"))
        return parse_switch(ctx, name, arg, &c->allow_addat);
    if (arg_is(name, "AUTOCREATE"))
        return parse_switch(ctx, name, arg, &c->autocreate);
    if (arg_is(name, "DEFAULT_WINDOW"))
        return parse_count(ctx, name, arg, LLONG_MAX, &c->default_window_items);
    if (arg_is(name, "DEFAULT_EX")) {
        uint64_t seconds;
        if (parse_count(ctx, name, arg, (long long)(UINT64_MAX / 1000000000u), &seconds))
            return REDISMODULE_ERR;
        c->default_window_ms = seconds * 1000u;
        return REDISMODULE_OK;
    }
    if (arg_is(name, "MAX_ERROR_RATIO")) {
        double r;
        if (RedisModule_StringToDouble(arg, &r) != REDISMODULE_OK ||
            !(r == 0.0 || (r >= 1.0 && r <= 1e6))) {
            RedisModule_Log(ctx, "warning",
                            "tdbf: MAX_ERROR_RATIO must be 0 (off) or a number from 1 to 1e6");
            return REDISMODULE_ERR;
        }
        c->max_error_ratio = r;
        return REDISMODULE_OK;
    }
    RedisModule_Log(ctx, "warning", "tdbf: unknown module argument '%s'",
                    RedisModule_StringPtrLen(name, NULL));
    return REDISMODULE_ERR;
}

static int parse_module_args(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    for (int i = 0; i < argc; i += 2) {
        if (i + 1 >= argc) {
            RedisModule_Log(ctx, "warning", "tdbf: module argument '%s' needs a value",
                            RedisModule_StringPtrLen(argv[i], NULL));
            return REDISMODULE_ERR;
        }
        if (parse_module_arg(ctx, argv[i], argv[i + 1]) != REDISMODULE_OK)
            return REDISMODULE_ERR;
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
    /* Fails only on a defect in our own table, which every 7.0+ server
     * would show: refuse to load rather than serve undocumented commands. */
    if (tdbf_command_info_register(ctx) != REDISMODULE_OK)
        return REDISMODULE_ERR;
    if (RedisModule_RegisterInfoFunc && RedisModule_InfoAddSection &&
        RedisModule_InfoAddFieldULongLong)
        RedisModule_RegisterInfoFunc(ctx, info_section);
    RedisModule_Log(ctx, "notice",
                    "tdbf %s loaded: default error %g, designs %s (count) and %s (time)",
                    tdbf_version_string(), tdbf_settings.default_error,
                    tdbf_design_name(tdbf_settings.default_count_design),
                    tdbf_design_name(tdbf_settings.default_time_design));
    return REDISMODULE_OK;
}
