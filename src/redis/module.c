/*
 * module.c — the tdbf Redis module's entry point, and the top of its
 * layers.
 *
 *   redis-server --loadmodule ./build/tdbf.so [DEFAULT_ERROR 0.01]
 *       [DEFAULT_DESIGN sqf] [DEFAULT_TIME_DESIGN sqf] [MAX_MEMORY bytes]
 *       [AUTOCREATE yes] [DEFAULT_WINDOW 1000] [DEFAULT_EX seconds]
 *       [MAX_ERROR_RATIO 1.5] [ALLOW_ADDAT no]
 *
 * RedisModule_OnLoad binds the Module API (api.c; module_api.h explains
 * how), routes every libtdbf allocation through RedisModule_Alloc/Free (so
 * used_memory and maxmemory see the filters) under a budget that keeps a
 * client's command within maxmemory (budget.c), reads the module arguments
 * (settings.c), creates the "tdbf-filt" data type (type.c), the TDBF.*
 * commands from the table below (commands_filter.c, commands_admin.c) and
 * their COMMAND DOCS (command_info.c), and the INFO section tdbf_stats
 * (refusal counters; refusals are logged at most once per 10 s).
 * RedisModule_OnLoad is the only symbol the module exports.
 *
 * The module is in layers (api, services, type, commands, module), this
 * file the top one: the table of which file is in which layer, and the
 * rule, is src/redis/README.md's (scripts/check-redis-layers.sh reads and
 * checks it).  The module's own functions and types are named rtdbf_*;
 * tdbf_* is the library's public API, which is below every layer.
 */
#include <stdio.h>

#include "commands.h"

#define TDBF_MODULE_NAME    "tdbf"
/* The library's version as Redis reads a module's (MODULE LIST "ver"):
 * MAJOR*10000 + MINOR*100 + PATCH, from tdbf.h, the version's one home. */
#define TDBF_MODULE_VERSION TDBF_VERSION_NUMBER

/* Every TDBF.* command, with the flags Redis uses to route, refuse under
 * maxmemory (deny-oom) and let replicas and scripts serve (readonly). */
static int register_commands(RedisModuleCtx *ctx)
{
    static const struct {
        const char        *name;
        RedisModuleCmdFunc func;
        const char        *flags;
    } table[] = {
        {"tdbf.reserve",   rtdbf_cmd_reserve,   "write deny-oom"},
        {"tdbf.add",       rtdbf_cmd_add,       "write deny-oom"},
        {"tdbf.madd",      rtdbf_cmd_madd,      "write deny-oom"},
        {"tdbf.insert",    rtdbf_cmd_insert,    "write deny-oom"},
        {"tdbf.addat",     rtdbf_cmd_addat,     "write deny-oom"},
        {"tdbf.exists",    rtdbf_cmd_exists,    "readonly fast"},
        {"tdbf.mexists",   rtdbf_cmd_mexists,   "readonly fast"},
        {"tdbf.prob",      rtdbf_cmd_prob,      "readonly fast"},
        {"tdbf.card",      rtdbf_cmd_card,      "readonly"},
        {"tdbf.info",      rtdbf_cmd_info,      "readonly"},
        {"tdbf.scandump",  rtdbf_cmd_scandump,  "readonly"},
        {"tdbf.loadchunk", rtdbf_cmd_loadchunk, "write deny-oom"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (RedisModule_CreateCommand(ctx, table[i].name, table[i].func, table[i].flags,
                                      1, 1, 1) != REDISMODULE_OK)
            return REDISMODULE_ERR;
    return REDISMODULE_OK;
}

/* The planners keep what they searched, per thread: the first sqf filter
 * at an error rate takes ~0.25 s to plan (apbf-line, tlbf-line ~40 ms),
 * another window ~50 ms, the same again nothing.  Commands run on this thread, so the defaults are planned now,
 * not in the first client's command (an auto-created key's). */
static void plan_the_defaults(void)
{
    tdbf_config cfg;
    tdbf_shape shape;
    tdbf_config_init(&cfg);
    cfg.error = rtdbf_settings.default_error;
    cfg.max_memory = rtdbf_settings.max_memory;
    cfg.design = rtdbf_settings.default_count_design;
    cfg.window_items = rtdbf_settings.default_window_items;
    (void)tdbf_plan_shape(&cfg, &shape);
    cfg.design = rtdbf_settings.default_time_design;
    cfg.window_items = 0;
    uint64_t window_ms = rtdbf_settings.default_window_ms ? rtdbf_settings.default_window_ms
                                                           : 60000;
    cfg.window_ns = rtdbf_ms_to_ns(window_ms);
    (void)tdbf_plan_shape(&cfg, &shape);
}

__attribute__((visibility("default"))) int
RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

__attribute__((visibility("default"))) int
RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    const char *missing = NULL;
    if (rtdbf_module_bind_api(ctx, &missing) != REDISMODULE_OK) {
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

    if (rtdbf_allocator_install() != TDBF_OK)
        return REDISMODULE_ERR;
    if (rtdbf_settings_parse(ctx, argv, argc) != REDISMODULE_OK)
        return REDISMODULE_ERR;
    if (rtdbf_type_register(ctx) != REDISMODULE_OK) {
        RedisModule_Log(ctx, "warning", "tdbf: cannot create the %s data type",
                        TDBF_TYPE_NAME);
        return REDISMODULE_ERR;
    }
    if (register_commands(ctx) != REDISMODULE_OK) {
        RedisModule_Log(ctx, "warning", "tdbf: cannot register the commands");
        return REDISMODULE_ERR;
    }
    /* Fails only on a defect in our own table, which every 7.0+ server
     * would show: refuse to load rather than serve undocumented commands. */
    if (rtdbf_command_info_register(ctx) != REDISMODULE_OK)
        return REDISMODULE_ERR;
    rtdbf_stats_info_register(ctx);
    plan_the_defaults();
    RedisModule_Log(ctx, "notice",
                    "tdbf %s loaded: default error %g, designs %s (count) and %s (time)",
                    tdbf_version_string(), rtdbf_settings.default_error,
                    tdbf_design_name(rtdbf_settings.default_count_design),
                    tdbf_design_name(rtdbf_settings.default_time_design));
    return REDISMODULE_OK;
}
