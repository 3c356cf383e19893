/*
 * settings.c — the module's arguments, its refusal counters and their
 * log, and the INFO section that shows them (layer 1, services.h).
 *
 *   redis-server --loadmodule ./build/tdbf.so [DEFAULT_ERROR 0.01]
 *       [DEFAULT_DESIGN sqf] [DEFAULT_TIME_DESIGN sqf] [MAX_MEMORY size]
 *       [AUTOCREATE yes] [DEFAULT_WINDOW 1000 | 10m] [DEFAULT_EX seconds]
 *       [MAX_ERROR_RATIO 1.5] [ALLOW_ADDAT no]
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "services.h"

/* ======================================================================
 * Argument helpers (module arguments here, command arguments above)
 * ====================================================================== */

bool rtdbf_arg_is(RedisModuleString *arg, const char *word)
{
    size_t len;
    const char *s = RedisModule_StringPtrLen(arg, &len);
    return len == strlen(word) && strncasecmp(s, word, len) == 0;
}

const char *rtdbf_arg_text(RedisModuleString *arg)
{
    size_t len;
    const char *s = RedisModule_StringPtrLen(arg, &len);
    return memchr(s, '\0', len) == NULL ? s : NULL;
}

/* ======================================================================
 * The clock
 * ====================================================================== */

uint64_t rtdbf_server_now_ms(void)
{
    long long ms = RedisModule_Milliseconds();
    return ms < 0 ? 0 : (uint64_t)ms;
}

bool rtdbf_too_far_ahead(uint64_t stamp_ms, uint64_t now_ms)
{
    return stamp_ms > now_ms && stamp_ms - now_ms > TDBF_MAX_AHEAD_MS;
}

/* ======================================================================
 * Refusals: counted always, logged at most once per 10 s
 *
 * A hostile client can provoke refusals by the million; one log line each
 * would fill the disk.  The counters are in INFO (section tdbf_stats).
 * ====================================================================== */

rtdbf_refusal_counters rtdbf_refusals;

static struct {
    long long last_ms;
    uint64_t  suppressed;
} refusal_log = {.last_ms = -1};

void rtdbf_refusal_log(RedisModuleCtx *ctx, RedisModuleIO *io, const char *fmt, ...)
{
    long long now = RedisModule_Milliseconds();
    if (refusal_log.last_ms >= 0 && now >= refusal_log.last_ms &&
        now - refusal_log.last_ms < 10000) {
        refusal_log.suppressed++;
        rtdbf_refusals.log_suppressed++;
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
        {"refused_payloads", &rtdbf_refusals.payloads},
        {"refused_oom", &rtdbf_refusals.oom},
        {"refused_overload", &rtdbf_refusals.overload},
        {"refused_addat", &rtdbf_refusals.addat},
        {"log_lines_suppressed", &rtdbf_refusals.log_suppressed},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        RedisModule_InfoAddFieldULongLong(ctx, fields[i].name, *fields[i].value);
}

void rtdbf_stats_info_register(RedisModuleCtx *ctx)
{
    if (RedisModule_RegisterInfoFunc && RedisModule_InfoAddSection &&
        RedisModule_InfoAddFieldULongLong)
        RedisModule_RegisterInfoFunc(ctx, info_section);
}

/* ======================================================================
 * Module arguments
 * ====================================================================== */

rtdbf_module_config rtdbf_settings = {
    .default_error = 0.01,
    /* sqf, by measurement (make bench-redis, the same run): TDBF.ADD within
     * 5 % of apbf-line's and tlbf-line's requests/s (command processing
     * dominates the server's time), in 0.61x and 0.74x their bytes per
     * item; memory is what Redis users pay for. */
    .default_count_design = TDBF_SQF,
    .default_time_design = TDBF_SQF,
    .max_memory = 0,
    .allow_addat = false,
    .autocreate = true,
    /* An auto-created filter costs what a client's single TDBF.ADD may
     * reasonably cost: about 4 KB (apbf-line at 1 %; 100000 cost 330 KB a
     * key).  RedisBloom's BF.ADD starts at 100 items and grows; a window
     * does not grow, so it starts larger. */
    .default_window_items = 1000,
    .default_window_ms = 0,
    .max_error_ratio = 1.5,
};

/* yes|no, for the switches. */
static int parse_switch(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleString *arg,
                        bool *out)
{
    if (rtdbf_arg_is(arg, "yes") || rtdbf_arg_is(arg, "no")) {
        *out = rtdbf_arg_is(arg, "yes");
        return REDISMODULE_OK;
    }
    RedisModule_Log(ctx, "warning", "tdbf: %s takes yes or no",
                    RedisModule_StringPtrLen(name, NULL));
    return REDISMODULE_ERR;
}

/* A module argument in the library's parameter language (the one
 * commands and the other fronts use): "DEFAULT_ERROR 1%", "MAX_MEMORY
 * 64M", "DEFAULT_WINDOW 1M" or "DEFAULT_WINDOW 10m". */
typedef enum { ARG_ERROR, ARG_SIZE, ARG_WINDOW, ARG_SECONDS, ARG_DESIGN } arg_kind;

static int parse_language_arg(RedisModuleCtx *ctx, RedisModuleString *name,
                              RedisModuleString *arg, arg_kind kind)
{
    rtdbf_module_config *c = &rtdbf_settings;
    const char *text = rtdbf_arg_text(arg);
    char why[240] = "the value holds a NUL byte";
    uint64_t items = 0, ns = 0;
    int rc = TDBF_EINVAL;
    tdbf_config scratch;
    unsigned given = 0;
    tdbf_config_init(&scratch);
    if (text != NULL) {
        switch (kind) {
        case ARG_ERROR:
            rc = tdbf_parse_error(text, &c->default_error, why, sizeof why);
            break;
        case ARG_SIZE:
            rc = tdbf_parse_size(text, &c->max_memory, why, sizeof why);
            break;
        case ARG_WINDOW:
            rc = tdbf_parse_window(text, &items, &ns, why, sizeof why);
            if (rc == TDBF_OK && items != 0)
                c->default_window_items = items;
            else if (rc == TDBF_OK)
                c->default_window_ms = ns / 1000000u > 0 ? ns / 1000000u : 1;
            break;
        case ARG_SECONDS:
            rc = tdbf_parse_count(text, &items, why, sizeof why);
            if (rc == TDBF_OK && (items == 0 || items > UINT64_MAX / 1000000000u)) {
                snprintf(why, sizeof why, "'%s' seconds is out of range", text);
                rc = TDBF_EINVAL;
            } else if (rc == TDBF_OK) {
                c->default_window_ms = items * 1000u;
            }
            break;
        case ARG_DESIGN:
            rc = tdbf_config_set(&scratch, &given, TDBF_OPT_DESIGN, text, why, sizeof why);
            if (rc == TDBF_OK && rtdbf_arg_is(name, "DEFAULT_DESIGN"))
                c->default_count_design = scratch.design;
            else if (rc == TDBF_OK)
                c->default_time_design = scratch.design;
            break;
        }
    }
    if (rc == TDBF_OK)
        return REDISMODULE_OK;
    RedisModule_Log(ctx, "warning", "tdbf: bad %s: %s", RedisModule_StringPtrLen(name, NULL),
                    why);
    return REDISMODULE_ERR;
}

static int parse_module_arg(RedisModuleCtx *ctx, RedisModuleString *name, RedisModuleString *arg)
{
    static const struct {
        const char *name;
        arg_kind    kind;
    } language[] = {
        {"DEFAULT_ERROR", ARG_ERROR},      {"MAX_MEMORY", ARG_SIZE},
        {"DEFAULT_WINDOW", ARG_WINDOW},    {"DEFAULT_EX", ARG_SECONDS},
        {"DEFAULT_DESIGN", ARG_DESIGN},    {"DEFAULT_TIME_DESIGN", ARG_DESIGN},
    };
    rtdbf_module_config *c = &rtdbf_settings;
    for (size_t i = 0; i < sizeof language / sizeof language[0]; i++)
        if (rtdbf_arg_is(name, language[i].name))
            return parse_language_arg(ctx, name, arg, language[i].kind);
    if (rtdbf_arg_is(name, "ALLOW_ADDAT"))
        return parse_switch(ctx, name, arg, &c->allow_addat);
    if (rtdbf_arg_is(name, "AUTOCREATE"))
        return parse_switch(ctx, name, arg, &c->autocreate);
    if (rtdbf_arg_is(name, "MAX_ERROR_RATIO")) {
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

int rtdbf_settings_parse(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
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
