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
 * a budget: the bytes maxmemory leaves (rtdbf_memory_headroom). Every
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

void rtdbf_budget_begin(uint64_t bytes)
{
    budget.open = bytes != UINT64_MAX;
    budget.limit = bytes;
    budget.spent = 0;
    budget.refused = 0;
}

uint64_t rtdbf_budget_end(uint64_t *spent)
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

/* Zeroed memory.  A filter's bit array is most of it, and zeroing it by
 * hand touches every page while the server waits: a 63 MB filter took
 * 190 ms that way here, blocking every other client.  calloc hands large
 * requests fresh pages the kernel zeroes on first touch (0.4-7 ms for the
 * same filter, the page faults spread over the adds that follow).  So:
 * TryCalloc where the server has it (7.4+); before that, Calloc for up to
 * LAZY_CALLOC_BYTES — a failure there means the host is out of memory,
 * and the server would stop at its own next allocation anyway — and
 * TryAlloc plus memset above it, so an oversized request is an error
 * reply, never an abort. */
#define LAZY_CALLOC_BYTES TDBF_CLIENT_FILTER_CAP

static void *module_calloc(void *opaque, size_t count, size_t size)
{
    (void)opaque;
    if (count != 0 && size > SIZE_MAX / count)
        return NULL;
    size_t bytes = count * size;
    if (bytes == 0)
        bytes = 1;
    if (!budget_grants(bytes))
        return NULL;
    if (RedisModule_TryCalloc)
        return RedisModule_TryCalloc(1, bytes);
    if (!RedisModule_TryAlloc || bytes <= LAZY_CALLOC_BYTES)
        return RedisModule_Calloc(1, bytes);
    void *p = RedisModule_TryAlloc(bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void *rtdbf_module_try_alloc(uint64_t bytes)
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

bool rtdbf_decided_write(RedisModuleCtx *ctx)
{
    if (!ctx || !RedisModule_GetContextFlags)
        return false;
    int flags = RedisModule_GetContextFlags(ctx);
    return (flags & (REDISMODULE_CTX_FLAGS_REPLICATED | REDISMODULE_CTX_FLAGS_LOADING)) != 0;
}

uint64_t rtdbf_memory_headroom(RedisModuleCtx *ctx)
{
    if (!ctx || !RedisModule_GetContextFlags || !RedisModule_GetUsedMemoryRatio ||
        !RedisModule_GetServerInfo || !RedisModule_ServerInfoGetFieldUnsigned)
        return UINT64_MAX;
    int flags = RedisModule_GetContextFlags(ctx);
    if (!(flags & REDISMODULE_CTX_FLAGS_MASTER) || !(flags & REDISMODULE_CTX_FLAGS_MAXMEMORY) ||
        rtdbf_decided_write(ctx))
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
 * The size of one filter
 *
 * MAX_MEMORY, when given, caps every filter.  Without it a client's filter
 * is capped at TDBF_CLIENT_FILTER_CAP on a server without maxmemory:
 * nothing else would stop one TDBF.RESERVE ... WINDOW 1000000000 (2.6 GB)
 * or a few thousand auto-created keys from taking the host's memory.  With
 * maxmemory the headroom above bounds what a command takes, and the
 * library's own cap (4 GiB) applies.  Writes our primary or the AOF
 * decided, and loading, take the library's cap: a replica or a restart
 * must accept every filter its primary or its own past accepted.
 * ====================================================================== */

static bool server_has_maxmemory(RedisModuleCtx *ctx)
{
    return ctx && RedisModule_GetContextFlags &&
           (RedisModule_GetContextFlags(ctx) & REDISMODULE_CTX_FLAGS_MAXMEMORY);
}

uint64_t rtdbf_filter_cap(RedisModuleCtx *ctx)
{
    if (rtdbf_settings.max_memory)
        return rtdbf_settings.max_memory;
    /* No context (an RDB load on a server too old to say which): loading. */
    if (!ctx || rtdbf_decided_write(ctx) || server_has_maxmemory(ctx))
        return TDBF_DEFAULT_MAX_MEMORY;
    return TDBF_CLIENT_FILTER_CAP;
}

/* ======================================================================
 * Installing the hook
 * ====================================================================== */

int rtdbf_allocator_install(void)
{
    static const tdbf_allocator allocator = {
        .alloc = module_alloc, .calloc = module_calloc, .free = module_free,
        .opaque = NULL,
    };
    return tdbf_set_allocator(&allocator);
}
