/*
 * budget.c — where the module's memory comes from, and how much of it a
 * client's command may take (layer 1, services.h).
 *
 * The filters' bytes come from the server's allocator (so used_memory,
 * INFO and maxmemory see them), under a budget that keeps one command from
 * allocating past maxmemory.
 */
#include <string.h>

#include "services.h"

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
 * Installing the hook
 * ====================================================================== */

int tdbf_allocator_install(void)
{
    static const tdbf_allocator allocator = {
        .alloc = module_alloc, .calloc = module_calloc, .free = module_free,
        .opaque = NULL,
    };
    return tdbf_set_allocator(&allocator);
}
