/*
 * commands_filter.c — the commands that make and use a filter (layer 3,
 * commands.h): TDBF.RESERVE, TDBF.ADD, TDBF.MADD, TDBF.INSERT, TDBF.ADDAT,
 * TDBF.EXISTS, TDBF.MEXISTS.
 *
 * As RedisBloom's BF.ADD does, ADD, MADD and INSERT create a missing key
 * with the module's defaults (DEFAULT_WINDOW or DEFAULT_EX, DEFAULT_ERROR,
 * the default design) unless the module is loaded with AUTOCREATE no.
 *
 * Time.  The clock is the server's wall clock in milliseconds
 * (RedisModule_Milliseconds), times 10^6 for the library's nanoseconds.
 * Wall time survives restarts, so a filter saved by one process keeps
 * expiring under the next; if the clock steps back the library clamps
 * (the filter's time never rewinds).
 *
 * Determinism.  A time-window filter's answers depend on when each add
 * happened, so a replica or an AOF replay must not read its own clock.
 * Writes to time-window filters are therefore propagated (to replicas and
 * the AOF) as TDBF.ADDAT key <primary's timestamp in ms> item ..., which
 * adds at exactly that time; writes to count-window filters as TDBF.MADD.
 * Only the items the primary accepted travel.  Creation (RESERVE, and an
 * add that creates) is propagated as a canonical TDBF.RESERVE carrying the
 * seed the primary drew, so replicas hash identically.  The result:
 * replicas and replays hold byte-identical filters (same DEBUG
 * DIGEST-VALUE) whatever their clocks say.  TDBF.ADDAT itself is refused
 * from clients (see addat_allowed).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

/* ======================================================================
 * Memory: what a command may allocate
 *
 * A filter's size comes from its error rate and window, not from the
 * command's length, so Redis' own deny-oom check (memory already over
 * maxmemory) cannot stop one TDBF.RESERVE from asking for gigabytes.  The
 * module therefore opens an allocation budget (budget.c) of the bytes
 * maxmemory leaves before anything that may allocate for a client:
 * creating a filter, an add to a filter that grows (tlbf, tlbf-line,
 * rotating, exact, sqf over a time window), a LOADCHUNK chunk.  Requests beyond it are refused before the
 * server allocator is called, so a refusal allocates (and touches)
 * nothing of the refused size.  MAX_MEMORY, the per-filter cap, is checked
 * by the library against the planned size before it allocates at all.
 * ====================================================================== */

/* Reply the OOM error for a refused allocation of `bytes`. */
static void reply_oom(RedisModuleCtx *ctx, const char *what, uint64_t bytes, uint64_t headroom)
{
    rtdbf_refusals.oom++;
    rtdbf_reply_errorf(ctx, "OOM %s needs at least %llu bytes; maxmemory leaves %llu",
                       what, (unsigned long long)bytes, (unsigned long long)headroom);
}

/* ======================================================================
 * Creation options
 * ====================================================================== */

/* The options of RESERVE and INSERT, read by the library's parameter
 * language (tdbf_config_set): a value means here what it means to the
 * tool and the Python package ("1M", "10m", "1%"), and is refused with
 * the same reason.  WINDOW takes a count or a duration; EX and PX are
 * RedisBloom's spellings of a duration in seconds or milliseconds. */
typedef struct create_args {
    tdbf_config cfg;
    unsigned    given;          /* tdbf_option bits */
} create_args;

static void create_args_init(create_args *a)
{
    tdbf_config_init(&a->cfg);
    a->given = 0;
}

static bool has(const create_args *a, tdbf_option opt)
{
    return (a->given & (1u << opt)) != 0;
}

/* Set opt from text; false after replying "ERR bad NAME: why". */
static bool set_option(RedisModuleCtx *ctx, create_args *a, tdbf_option opt, const char *name,
                       const char *text)
{
    char why[240];
    if (tdbf_config_set(&a->cfg, &a->given, opt, text, why, sizeof why) == TDBF_OK)
        return true;
    rtdbf_reply_errorf(ctx, "ERR bad %s: %s", name, why);
    return false;
}

/* The text of a value as C text; NULL after replying an error if it holds
 * a NUL byte. */
static const char *value_text(RedisModuleCtx *ctx, const char *name, RedisModuleString *val)
{
    const char *text = rtdbf_arg_text(val);
    if (text == NULL)
        rtdbf_reply_errorf(ctx, "ERR bad %s: the value holds a NUL byte", name);
    return text;
}

/* WINDOW n|T, EX s or PX ms into a; false after replying an error. */
static bool parse_window(RedisModuleCtx *ctx, RedisModuleString *opt, RedisModuleString *val,
                         create_args *a)
{
    const char *name = RedisModule_StringPtrLen(opt, NULL);
    const char *text = value_text(ctx, name, val);
    if (text == NULL)
        return false;
    if (has(a, TDBF_OPT_WINDOW)) {
        RedisModule_ReplyWithError(ctx, "ERR a window given twice: give one of WINDOW, EX "
                                        "or PX, once");
        return false;
    }
    if (rtdbf_arg_is(opt, "WINDOW"))
        return set_option(ctx, a, TDBF_OPT_WINDOW, name, text);
    /* EX and PX: a count of seconds or milliseconds, as a duration */
    uint64_t n;
    char why[200], duration[48];
    if (tdbf_parse_count(text, &n, why, sizeof why) != TDBF_OK || n == 0) {
        rtdbf_reply_errorf(ctx, "ERR bad %s: %s", name, n == 0 ? "a window of 0" : why);
        return false;
    }
    snprintf(duration, sizeof duration, "%llu%s", (unsigned long long)n,
             rtdbf_arg_is(opt, "EX") ? "s" : "ms");
    return set_option(ctx, a, TDBF_OPT_WINDOW, name, duration);
}

/* Parse one creation option at argv[*i].  Returns 1 (consumed, *i moved
 * past it), 0 (not a creation option) or -1 (an error was replied).  An
 * option given twice is an error, as a second window always was: taking
 * the last value silently hides a mistake. */
static int parse_create_option(RedisModuleCtx *ctx, RedisModuleString **argv, int argc,
                               int *i, create_args *a, bool allow_error)
{
    static const struct {
        const char *name;
        tdbf_option opt;
    } named[] = {
        {"ERROR", TDBF_OPT_ERROR}, {"CAPACITY", TDBF_OPT_CAPACITY},
        {"DESIGN", TDBF_OPT_DESIGN}, {"SEED", TDBF_OPT_SEED},
    };
    RedisModuleString *opt = argv[*i];
    const char *name = RedisModule_StringPtrLen(opt, NULL);
    bool is_window = rtdbf_arg_is(opt, "WINDOW") || rtdbf_arg_is(opt, "EX") ||
                     rtdbf_arg_is(opt, "PX");
    int which = -1;
    for (int n = allow_error ? 0 : 1; n < (int)(sizeof named / sizeof named[0]); n++)
        if (rtdbf_arg_is(opt, named[n].name))
            which = n;
    if (!is_window && which < 0)
        return 0;
    if (*i + 1 >= argc) {
        rtdbf_reply_errorf(ctx, "ERR %s needs a value", name);
        return -1;
    }
    RedisModuleString *val = argv[*i + 1];
    *i += 2;
    if (is_window)
        return parse_window(ctx, opt, val, a) ? 1 : -1;
    if (has(a, named[which].opt)) {
        rtdbf_reply_errorf(ctx, "ERR %s given twice", named[which].name);
        return -1;
    }
    const char *label = named[which].opt == TDBF_OPT_ERROR ? "error rate" : named[which].name;
    const char *text = value_text(ctx, label, val);
    return text != NULL && set_option(ctx, a, named[which].opt, label, text) ? 1 : -1;
}

/* Fill in what the client left out from the module's defaults (the
 * window of an auto-created filter: DEFAULT_EX, else DEFAULT_WINDOW; the
 * error rate; the design for that kind of window), then the rules
 * between options every front applies (tdbf_config_check: CAPACITY only
 * with a time window).  False after replying an error. */
static bool apply_defaults(RedisModuleCtx *ctx, create_args *a)
{
    tdbf_config *c = &a->cfg;
    if (!has(a, TDBF_OPT_WINDOW)) {
        if (rtdbf_settings.default_window_ms)
            c->window_ns = rtdbf_ms_to_ns(rtdbf_settings.default_window_ms);
        else
            c->window_items = rtdbf_settings.default_window_items;
    }
    if (!has(a, TDBF_OPT_ERROR))
        c->error = rtdbf_settings.default_error;
    char why[240];
    if (tdbf_config_check(c, a->given, why, sizeof why) != TDBF_OK) {
        rtdbf_reply_errorf(ctx, "ERR %s%s", why, has(a, TDBF_OPT_CAPACITY) && c->window_ns == 0
                           ? " (WINDOW n; CAPACITY goes with WINDOW T, EX or PX)" : "");
        return false;
    }
    if (!has(a, TDBF_OPT_DESIGN))
        c->design = c->window_items ? rtdbf_settings.default_count_design
                                    : rtdbf_settings.default_time_design;
    c->max_memory = rtdbf_settings.max_memory;
    return true;
}

/* Reply why tdbf_open(a) failed with rc; cap is the per-filter cap that
 * applied (rtdbf_filter_cap). */
static void reply_open_error(RedisModuleCtx *ctx, const create_args *a, int rc,
                             uint64_t refused, uint64_t headroom, uint64_t cap)
{
    const char *design = tdbf_design_name(a->cfg.design);
    switch (rc) {
    case TDBF_EWINDOW:
        rtdbf_reply_errorf(ctx, "ERR design %s does not take a %s window", design,
                           a->cfg.window_items ? "count (WINDOW n)" : "time (WINDOW T, EX, PX)");
        return;
    case TDBF_EINFEASIBLE:
        rtdbf_reply_errorf(ctx, "ERR design %s cannot reach error rate %g", design, a->cfg.error);
        return;
    case TDBF_ETOOBIG:
        rtdbf_refusals.oom++;
        rtdbf_reply_errorf(ctx, "ERR the filter would need more memory than the %llu-byte cap "
                               "per filter (module argument MAX_MEMORY)",
                          (unsigned long long)cap);
        return;
    case TDBF_ENOMEM:
        if (refused)
            reply_oom(ctx, "the new filter", refused, headroom);
        else
            RedisModule_ReplyWithError(ctx, "OOM out of memory creating the filter");
        return;
    default:
        rtdbf_reply_errorf(ctx, "ERR cannot create a %s filter: %s", design, tdbf_strerror(rc));
    }
}

/* TDBF_ETOOBIG if cfg plans more than cap bytes (rtdbf_filter_cap), else
 * what planning it returns.  The cap is checked here, on the plan, rather
 * than passed as cfg.max_memory: a time filter keeps its max_memory as its
 * growth limit, and a replica (whose cap for replicated writes is the
 * library's) must build the very same filter as its primary. */
static int within_cap(const tdbf_config *cfg, uint64_t cap)
{
    tdbf_shape planned;
    int rc = tdbf_plan_shape(cfg, &planned);
    if (rc == TDBF_OK && planned.memory_bytes > cap)
        rc = TDBF_ETOOBIG;
    return rc;
}

/* Open a filter from parsed options; on failure replies and returns NULL.
 * Nothing larger than maxmemory's headroom is ever allocated (above). */
static tdbf *create_filter(RedisModuleCtx *ctx, create_args *a)
{
    if (!apply_defaults(ctx, a))
        return NULL;
    tdbf *f = NULL;
    uint64_t headroom = rtdbf_memory_headroom(ctx), cap = rtdbf_filter_cap(ctx);
    int rc = within_cap(&a->cfg, cap);
    uint64_t refused = 0;
    if (rc == TDBF_OK) {
        rtdbf_budget_begin(headroom);
        rc = tdbf_open(&f, &a->cfg);
        refused = rtdbf_budget_end(NULL);
    }
    if (rc != TDBF_OK) {
        reply_open_error(ctx, a, rc, refused, headroom, cap);
        return NULL;
    }
    return f;
}

/* Propagate the creation of f as a canonical TDBF.RESERVE with every
 * parameter spelled out, the seed included. */
static void replicate_reserve(RedisModuleCtx *ctx, RedisModuleString *key, tdbf *f,
                              const create_args *a)
{
    tdbf_shape st;
    tdbf_get_shape(f, &st);
    char error[40], window[32], capacity[24], seed[24];
    const tdbf_config *c = &a->cfg;
    /* %a: the replica reads back the very same double (tdbf_parse_error) */
    snprintf(error, sizeof error, "%a", c->error);
    if (c->window_items)
        snprintf(window, sizeof window, "%llu", (unsigned long long)c->window_items);
    else
        snprintf(window, sizeof window, "%lluns", (unsigned long long)c->window_ns);
    snprintf(capacity, sizeof capacity, "%llu", (unsigned long long)c->capacity);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)st.seed);
    if (has(a, TDBF_OPT_CAPACITY))
        RedisModule_Replicate(ctx, "TDBF.RESERVE", "sccccccccc", key, error, "WINDOW", window,
                              "CAPACITY", capacity, "DESIGN", tdbf_design_name(c->design),
                              "SEED", seed);
    else
        RedisModule_Replicate(ctx, "TDBF.RESERVE", "sccccccc", key, error, "WINDOW", window,
                              "DESIGN", tdbf_design_name(c->design), "SEED", seed);
}

/* Create the filter for key (empty, opened for writing) from a: set the
 * value, propagate the canonical RESERVE, notify.  NULL after replying an
 * error. */
static rtdbf_value *create_value(RedisModuleCtx *ctx, RedisModuleKey *key,
                                 RedisModuleString *name, create_args *a)
{
    tdbf *f = create_filter(ctx, a);
    if (!f)
        return NULL;
    rtdbf_value *v = rtdbf_value_new(f);
    if (!v) {
        tdbf_close(f);
        RedisModule_ReplyWithError(ctx, "OOM out of memory creating the filter");
        return NULL;
    }
    v->capacity = a->cfg.capacity;
    rtdbf_value_mark_new(v);
    RedisModule_ModuleTypeSetValue(key, rtdbf_type, v);
    replicate_reserve(ctx, name, f, a);
    RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, "tdbf.reserve", name);
    return v;
}

/* ======================================================================
 * Adding
 * ====================================================================== */

/* Overload: once the filter's estimated false-positive rate (from its
 * counts: tdbf_current_error, O(1)) is above MAX_ERROR_RATIO times its
 * target, adds are refused until items expire.  A fixed-size filter (a
 * clock filter, a rotating one at its cap, a Bloom filter with no
 * window) fed far above the rate it was sized for would otherwise answer
 * "present" for almost everything; a refusal is an answer the client can
 * act on, a false "present" is not. */
static bool overloaded(const rtdbf_value *v, uint64_t now_ns, double *estimate)
{
    if (rtdbf_settings.max_error_ratio <= 0.0)
        return false;
    return tdbf_current_error(v->filter, now_ns, estimate) == TDBF_OK &&
           *estimate > rtdbf_settings.max_error_ratio * v->error;
}

static void reply_overloaded(RedisModuleCtx *ctx, const rtdbf_value *v, double estimate)
{
    rtdbf_refusals.overload++;
    rtdbf_reply_errorf(ctx, "ERR filter is full: its estimated false-positive rate %.3g is above "
                           "%g x its target %g; create it for more items (%s), or wait for "
                           "items to expire", estimate, rtdbf_settings.max_error_ratio, v->error,
                      v->timed ? "CAPACITY" : "WINDOW");
}

/* Add items[0 .. n-1] at now_ms; reply a single answer or an array.  The
 * items really added are stored in accepted[] (for replication); the
 * count is returned. */
static int add_items(RedisModuleCtx *ctx, rtdbf_value *v, RedisModuleString **items, int n,
                     uint64_t now_ms, bool array, RedisModuleString **accepted)
{
    uint64_t now_ns = rtdbf_filter_time_ns(v, now_ms);
    bool decided = rtdbf_decided_write(ctx);
    uint64_t headroom = v->grows && !decided ? rtdbf_memory_headroom(ctx) : UINT64_MAX;
    int added = 0;
    if (array)
        RedisModule_ReplyWithArray(ctx, n);
    for (int i = 0; i < n; i++) {
        double estimate;
        if (!decided && overloaded(v, now_ns, &estimate)) {
            reply_overloaded(ctx, v, estimate);
            continue;
        }
        size_t len;
        uint64_t spent;
        const char *item = RedisModule_StringPtrLen(items[i], &len);
        rtdbf_budget_begin(headroom);
        int rc = tdbf_add(v->filter, item, len, now_ns);
        uint64_t refused = rtdbf_budget_end(&spent);
        if (headroom != UINT64_MAX)   /* the command's adds share one headroom */
            headroom -= spent < headroom ? spent : headroom;
        if (rc == TDBF_ENOMEM && refused) {
            reply_oom(ctx, "adding to the filter", refused, headroom);
        } else if (rc < 0) {
            rtdbf_reply_errorf(ctx, "ERR add failed: %s", tdbf_strerror(rc));
        } else {
            /* A growing time filter refused new memory degrades (its FP
             * rises; the overload check above then steps in). */
            if (refused)
                rtdbf_refusals.oom++;
            rtdbf_value_count_add(v, item, len, now_ms);
            accepted[added++] = items[i];
            RedisModule_ReplyWithBool(ctx, rc == 0);
        }
    }
    return added;
}

/* Propagate the adds that happened: time-window filters as TDBF.ADDAT at
 * the time used (replicas and the AOF must not read their own clocks),
 * count-window ones as TDBF.MADD.  Only accepted items: a replica must not
 * add what the primary refused. */
static void replicate_adds(RedisModuleCtx *ctx, RedisModuleString *key, const rtdbf_value *v,
                           RedisModuleString **items, int n, uint64_t now_ms)
{
    if (n == 0)
        return;
    if (v->timed)
        RedisModule_Replicate(ctx, "TDBF.ADDAT", "slv", key, rtdbf_clamp_ll(now_ms), items,
                              (size_t)n);
    else
        RedisModule_Replicate(ctx, "TDBF.MADD", "sv", key, items, (size_t)n);
    RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, "tdbf.add", key);
}

/* Add, reply, replicate and notify: the common tail of every add command. */
static void add_and_propagate(RedisModuleCtx *ctx, RedisModuleString *key, rtdbf_value *v,
                              RedisModuleString **items, int n, uint64_t now_ms, bool array)
{
    RedisModuleString **accepted = RedisModule_Alloc(sizeof *accepted * (size_t)n);
    int added = add_items(ctx, v, items, n, now_ms, array, accepted);
    replicate_adds(ctx, key, v, accepted, added, now_ms);
    RedisModule_Free(accepted);
}

/* A missing key for an add: create it from the module's defaults (as
 * RedisBloom's BF.ADD does), unless AUTOCREATE is off.  NULL after
 * replying. */
static rtdbf_value *autocreate(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString *name)
{
    if (!rtdbf_settings.autocreate) {
        rtdbf_reply_not_found(ctx);
        return NULL;
    }
    create_args a = {0};
    return create_value(ctx, key, name, &a);
}

/* TDBF.ADD key item / TDBF.MADD key item ... */
static int add_command(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, bool multi)
{
    if (multi ? argc < 3 : argc != 3)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    rtdbf_value *v;
    int found = rtdbf_open_filter(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &v);
    if (found == KEY_EMPTY)
        v = autocreate(ctx, key, argv[1]);
    if (found != KEY_REPLIED && v)
        add_and_propagate(ctx, argv[1], v, argv + 2, argc - 2, rtdbf_server_now_ms(), multi);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

int rtdbf_cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return add_command(ctx, argv, argc, false);
}

int rtdbf_cmd_madd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return add_command(ctx, argv, argc, true);
}

/* Whether TDBF.ADDAT is accepted here; replies the refusal if not.
 *
 * A stamp moves a time filter's clock, and a clock never goes back: one
 * stamp a day ahead makes every later item outlive its window by a day.
 * So ADDAT is what it was made for — the form in which time-window writes
 * travel to replicas and the AOF — and nothing else: accepted from our
 * primary's replication stream (also inside its MULTI/EXEC and scripts)
 * and while loading the AOF, where the stamp is one the primary's own
 * clock gave, and refused from clients.  An operator backfilling recorded
 * events enables it with ALLOW_ADDAT yes; even then a stamp more than
 * TDBF_MAX_AHEAD_MS ahead of this server's clock is refused.  Replicated
 * and replayed stamps are not bounded: the primary's clock decided them,
 * and refusing them would make this copy diverge. */
static bool addat_allowed(RedisModuleCtx *ctx, RedisModuleString *stamp, uint64_t at_ms)
{
    if (rtdbf_decided_write(ctx))
        return true;
    if (!rtdbf_settings.allow_addat) {
        rtdbf_refusals.addat++;
        RedisModule_ReplyWithError(ctx, "ERR TDBF.ADDAT is internal (replication and AOF); "
                                        "load the module with ALLOW_ADDAT yes to backfill "
                                        "recorded events");
        return false;
    }
    uint64_t now_ms = rtdbf_server_now_ms();
    if (rtdbf_too_far_ahead(at_ms, now_ms)) {
        rtdbf_refusals.addat++;
        rtdbf_reply_errorf(ctx, "ERR timestamp %.24s is more than %u s ahead of the server's clock",
                           RedisModule_StringPtrLen(stamp, NULL), TDBF_MAX_AHEAD_MS / 1000u);
        return false;
    }
    return true;
}

/* TDBF.ADDAT key timestamp_ms item ...: add at the given time. */
int rtdbf_cmd_addat(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 4)
        return RedisModule_WrongArity(ctx);
    uint64_t at_ms;
    if (!rtdbf_parse_u64(argv[2], &at_ms))
        return rtdbf_reply_errorf(ctx, "ERR bad timestamp '%.40s': milliseconds, an "
                                      "unsigned integer", RedisModule_StringPtrLen(argv[2], NULL));
    if (!addat_allowed(ctx, argv[2], at_ms))
        return REDISMODULE_OK;
    RedisModuleKey *key;
    rtdbf_value *v;
    if (rtdbf_open_existing(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &v))
        add_and_propagate(ctx, argv[1], v, argv + 3, argc - 3, at_ms, true);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* TDBF.RESERVE key error_rate (WINDOW n | EX s | PX ms) [CAPACITY n] [DESIGN d]
 * [SEED n] */
int rtdbf_cmd_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 5)
        return RedisModule_WrongArity(ctx);
    create_args a;
    create_args_init(&a);
    const char *error = value_text(ctx, "error rate", argv[2]);
    if (error == NULL || !set_option(ctx, &a, TDBF_OPT_ERROR, "error rate", error))
        return REDISMODULE_OK;
    for (int i = 3; i < argc;) {
        int rc = parse_create_option(ctx, argv, argc, &i, &a, false);
        if (rc < 0)
            return REDISMODULE_OK;
        if (rc == 0)
            return rtdbf_reply_errorf(ctx, "ERR unknown argument '%.40s'",
                                      RedisModule_StringPtrLen(argv[i], NULL));
    }
    if (!has(&a, TDBF_OPT_WINDOW))
        return RedisModule_ReplyWithError(ctx, "ERR a window is required: WINDOW n "
                                               "(insertions), WINDOW T (10m), EX seconds or "
                                               "PX milliseconds");
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    if (RedisModule_KeyType(key) != REDISMODULE_KEYTYPE_EMPTY)
        RedisModule_ReplyWithError(ctx, "ERR item exists: the key already holds a value");
    else if (create_value(ctx, key, argv[1], &a))
        RedisModule_ReplyWithSimpleString(ctx, "OK");
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* TDBF.INSERT key [ERROR r] [WINDOW n | EX s | PX ms] [CAPACITY n] [DESIGN d]
 * [SEED n] [NOCREATE] ITEMS item ... */
int rtdbf_cmd_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 4)
        return RedisModule_WrongArity(ctx);
    create_args a;
    create_args_init(&a);
    bool nocreate = false;
    int items_at = -1;
    for (int i = 2; i < argc;) {
        if (rtdbf_arg_is(argv[i], "ITEMS")) {
            items_at = i + 1;
            break;
        }
        if (rtdbf_arg_is(argv[i], "NOCREATE")) {
            nocreate = true;
            i++;
            continue;
        }
        int rc = parse_create_option(ctx, argv, argc, &i, &a, true);
        if (rc < 0)
            return REDISMODULE_OK;
        if (rc == 0)
            return rtdbf_reply_errorf(ctx, "ERR unknown argument '%.40s'",
                                      RedisModule_StringPtrLen(argv[i], NULL));
    }
    if (items_at < 0 || items_at >= argc)
        return RedisModule_ReplyWithError(ctx, "ERR ITEMS and at least one item are required");
    if (nocreate && a.given != 0)
        return RedisModule_ReplyWithError(ctx, "ERR NOCREATE cannot be combined with "
                                               "creation options");

    RedisModuleKey *key;
    rtdbf_value *v;
    int found = rtdbf_open_filter(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &v);
    if (found == KEY_EMPTY) {
        if (nocreate)
            RedisModule_ReplyWithError(ctx, "ERR not found (NOCREATE)");
        else if (!has(&a, TDBF_OPT_WINDOW) && !rtdbf_settings.autocreate)
            RedisModule_ReplyWithError(ctx, "ERR not found, and this server does not create "
                                            "filters with default windows (AUTOCREATE no): "
                                            "give WINDOW, EX or PX");
        else
            v = create_value(ctx, key, argv[1], &a);
    }
    if (found != KEY_REPLIED && v)
        add_and_propagate(ctx, argv[1], v, argv + items_at, argc - items_at, rtdbf_server_now_ms(),
                          true);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* ======================================================================
 * Queries
 * ====================================================================== */

/* Items a query hands the library at once: a batch call asks for every
 * item's memory before it tests the first, so a TDBF.MEXISTS on a filter
 * beyond the caches waits for about one miss, not one per item. */
enum { EXISTS_CHUNK = 64 };

/* Reply whether each of items[0 .. n-1] (n <= EXISTS_CHUNK) is in v. */
static void reply_exists(RedisModuleCtx *ctx, const rtdbf_value *v, RedisModuleString **items,
                         int n, uint64_t now_ns)
{
    const void *keys[EXISTS_CHUNK];
    size_t lens[EXISTS_CHUNK];
    uint8_t present[EXISTS_CHUNK];
    for (int i = 0; i < n; i++)
        keys[i] = RedisModule_StringPtrLen(items[i], &lens[i]);
    int rc = n == 1 ? tdbf_contains(v->filter, keys[0], lens[0], now_ns)
                    : tdbf_contains_batch(v->filter, (size_t)n, keys, lens, now_ns, present);
    if (n == 1 && rc >= 0)
        present[0] = (uint8_t)rc;
    for (int i = 0; i < n; i++) {
        if (rc < 0)
            rtdbf_reply_errorf(ctx, "ERR query failed: %s", tdbf_strerror(rc));
        else
            RedisModule_ReplyWithBool(ctx, present[i] == 1);
    }
}

static int exists_command(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, bool multi)
{
    if (multi ? argc < 3 : argc != 3)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    rtdbf_value *v;
    int found = rtdbf_open_filter(ctx, argv[1], REDISMODULE_READ, &key, &v);
    if (found == KEY_REPLIED) {
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    if (multi)
        RedisModule_ReplyWithArray(ctx, argc - 2);
    if (found == KEY_EMPTY) {
        for (int i = 2; i < argc; i++)
            RedisModule_ReplyWithBool(ctx, 0);
    } else {
        uint64_t now_ns = rtdbf_filter_time_ns(v, rtdbf_server_now_ms());
        for (int i = 2; i < argc; i += EXISTS_CHUNK)
            reply_exists(ctx, v, argv + i, argc - i < EXISTS_CHUNK ? argc - i : EXISTS_CHUNK,
                         now_ns);
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

int rtdbf_cmd_exists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return exists_command(ctx, argv, argc, false);
}

int rtdbf_cmd_mexists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return exists_command(ctx, argv, argc, true);
}

