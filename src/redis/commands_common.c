/*
 * commands_common.c — what the command families share (layer 3,
 * commands.h): argument parsing, error replies, the clock, and opening a
 * key that should hold a filter.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "commands.h"

/* ======================================================================
 * Small helpers
 * ====================================================================== */

bool rtdbf_parse_u64(RedisModuleString *arg, uint64_t *out)
{
    size_t len;
    const char *s = RedisModule_StringPtrLen(arg, &len);
    if (len == 0 || len > 20)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned digit = (unsigned)(s[i] - '0');
        if (x > (UINT64_MAX - digit) / 10)
            return false;
        x = x * 10 + digit;
    }
    *out = x;
    return true;
}

int rtdbf_reply_errorf(RedisModuleCtx *ctx, const char *fmt, ...)
{
    char message[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return RedisModule_ReplyWithError(ctx, message);
}

long long rtdbf_clamp_ll(uint64_t x)
{
    return x > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)x;
}

uint64_t rtdbf_ms_to_ns(uint64_t ms)
{
    return ms > UINT64_MAX / 1000000u ? UINT64_MAX : ms * 1000000u;
}

/* ======================================================================
 * Opening keys
 * ====================================================================== */

int rtdbf_open_filter(RedisModuleCtx *ctx, RedisModuleString *name, int mode,
                      RedisModuleKey **key, rtdbf_value **v)
{
    *key = RedisModule_OpenKey(ctx, name, mode);
    *v = NULL;
    int type = RedisModule_KeyType(*key);
    if (type == REDISMODULE_KEYTYPE_EMPTY)
        return KEY_EMPTY;
    if (type != REDISMODULE_KEYTYPE_MODULE ||
        RedisModule_ModuleTypeGetType(*key) != rtdbf_type) {
        RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        return KEY_REPLIED;
    }
    *v = RedisModule_ModuleTypeGetValue(*key);
    if (!(*v)->filter) {
        RedisModule_ReplyWithError(ctx, "ERR the filter is being restored with "
                                        "TDBF.LOADCHUNK; finish the restore first");
        return KEY_REPLIED;
    }
    return KEY_FOUND;
}

int rtdbf_reply_not_found(RedisModuleCtx *ctx)
{
    return RedisModule_ReplyWithError(ctx, "ERR not found: create the filter with "
                                           "TDBF.RESERVE or TDBF.INSERT first");
}

bool rtdbf_open_existing(RedisModuleCtx *ctx, RedisModuleString *name, int mode,
                         RedisModuleKey **key, rtdbf_value **v)
{
    int found = rtdbf_open_filter(ctx, name, mode, key, v);
    if (found == KEY_EMPTY)
        rtdbf_reply_not_found(ctx);
    return found == KEY_FOUND;
}

/* ======================================================================
 * Time
 * ====================================================================== */

/* The time handed to the library for value v.  Count-window filters get 0
 * always: they ignore time, but their serialization records the largest
 * time seen, and a constant keeps replicas byte-identical under verbatim
 * propagation. */
uint64_t rtdbf_filter_time_ns(const rtdbf_value *v, uint64_t now_ms)
{
    return v->timed ? rtdbf_ms_to_ns(now_ms) : 0;
}
