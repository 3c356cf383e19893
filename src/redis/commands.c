/*
 * commands.c — the TDBF.* commands.
 *
 *   TDBF.RESERVE key error_rate (WINDOW n | EX s | PX ms) [CAPACITY n]
 *                [DESIGN d] [SEED n]                          -> OK
 *   TDBF.ADD key item                       -> 1 new (added), 0 was present
 *   TDBF.MADD key item [item ...]           -> array of the same
 *   TDBF.INSERT key [ERROR r] [WINDOW n | EX s | PX ms] [CAPACITY n]
 *               [DESIGN d] [SEED n] [NOCREATE] ITEMS item [item ...]
 *   TDBF.EXISTS key item                    -> 1 present, 0 absent
 *   TDBF.MEXISTS key item [item ...]        -> array of the same
 *   TDBF.PROB key item [MODEL uniform|powerlaw] [UNIVERSE n] [EXPONENT s]
 *             [RANK r]        -> P(added within the window): apbf, apbbf, tbf, btbf
 *   TDBF.INFO key [field]                   -> map (RESP2: flat array) / [value]
 *   TDBF.CARD key                           -> estimated items in the window
 *   TDBF.SCANDUMP key cursor                -> [next cursor, chunk]; [0, ""] at end
 *   TDBF.LOADCHUNK key cursor chunk         -> OK
 *   TDBF.ADDAT key timestamp_ms item [item ...]  (internal: replication, AOF)
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
 *
 * Hostile clients.  No command allocates what a client merely claims:
 * creation and growth are held to maxmemory's headroom before the
 * allocator is called, LOADCHUNK holds what arrived (type.c), adds to a
 * filter whose estimated FP passed MAX_ERROR_RATIO x its target are
 * refused ("ERR filter is full") rather than answered wrongly.  Refusals
 * are counted in INFO tdbf_stats.  Writes notify keyspace events of the
 * module class: tdbf.reserve, tdbf.add, tdbf.loadchunk.
 *
 * Replies use RESP3 booleans for membership (integers 1/0 under RESP2) and
 * doubles for rates and probabilities (RESP2: bulk strings).  Every bad
 * argument gets an "ERR ..." naming it; refusals for memory an "OOM ...".
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tdbf_module.h"

/* ======================================================================
 * Small helpers
 * ====================================================================== */

static bool arg_is(RedisModuleString *arg, const char *word)
{
    size_t len;
    const char *s = RedisModule_StringPtrLen(arg, &len);
    return len == strlen(word) && strncasecmp(s, word, len) == 0;
}

/* A plain decimal unsigned 64-bit number: digits only, no sign, no
 * overflow. */
static bool parse_u64(RedisModuleString *arg, uint64_t *out)
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

static int reply_errorf(RedisModuleCtx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int reply_errorf(RedisModuleCtx *ctx, const char *fmt, ...)
{
    char message[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return RedisModule_ReplyWithError(ctx, message);
}

static long long clamp_ll(uint64_t x)
{
    return x > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)x;
}

static uint64_t server_now_ms(void)
{
    long long ms = RedisModule_Milliseconds();
    return ms < 0 ? 0 : (uint64_t)ms;
}

static uint64_t ms_to_ns(uint64_t ms)
{
    return ms > UINT64_MAX / 1000000u ? UINT64_MAX : ms * 1000000u;
}

/* ======================================================================
 * Opening keys
 * ====================================================================== */

enum { KEY_FOUND = 0, KEY_EMPTY = 1, KEY_REPLIED = -1 };

/* Open argv key for `mode`.  KEY_FOUND: *v is a complete filter.
 * KEY_EMPTY: no such key.  KEY_REPLIED: an error was sent (another type,
 * or a restore in progress).  *key must be closed by the caller in every
 * case. */
static int open_filter(RedisModuleCtx *ctx, RedisModuleString *name, int mode,
                       RedisModuleKey **key, tdbf_value **v)
{
    *key = RedisModule_OpenKey(ctx, name, mode);
    *v = NULL;
    int type = RedisModule_KeyType(*key);
    if (type == REDISMODULE_KEYTYPE_EMPTY)
        return KEY_EMPTY;
    if (type != REDISMODULE_KEYTYPE_MODULE ||
        RedisModule_ModuleTypeGetType(*key) != tdbf_type) {
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

static int reply_not_found(RedisModuleCtx *ctx)
{
    return RedisModule_ReplyWithError(ctx, "ERR not found: create the filter with "
                                           "TDBF.RESERVE or TDBF.INSERT first");
}

/* ======================================================================
 * Memory: what a command may allocate
 *
 * A filter's size comes from its error rate and window, not from the
 * command's length, so Redis' own deny-oom check (memory already over
 * maxmemory) cannot stop one TDBF.RESERVE from asking for gigabytes.  The
 * module therefore opens an allocation budget (module.c) of the bytes
 * maxmemory leaves before anything that may allocate for a client:
 * creating a filter, an add to a filter that grows (tlbf, tlbf-line,
 * rotating, exact), a LOADCHUNK chunk.  Requests beyond it are refused before the
 * server allocator is called, so a refusal allocates (and touches)
 * nothing of the refused size.  MAX_MEMORY, the per-filter cap, is checked
 * by the library against the planned size before it allocates at all.
 * ====================================================================== */

/* Reply the OOM error for a refused allocation of `bytes`. */
static void reply_oom(RedisModuleCtx *ctx, const char *what, uint64_t bytes, uint64_t headroom)
{
    tdbf_refusals.oom++;
    reply_errorf(ctx, "OOM %s needs at least %llu bytes; maxmemory leaves %llu",
                 what, (unsigned long long)bytes, (unsigned long long)headroom);
}

/* ======================================================================
 * Creation options
 * ====================================================================== */

typedef struct create_args {
    double      error;
    bool        has_error;
    uint64_t    window_items;   /* WINDOW n */
    uint64_t    window_ms;      /* EX s, PX ms */
    uint64_t    capacity;
    bool        has_capacity;
    tdbf_design design;
    bool        has_design;
    uint64_t    seed;           /* 0: random */
    bool        has_seed;
} create_args;

static bool has_window(const create_args *a)
{
    return a->window_items || a->window_ms;
}

/* A design name: a known one, and no NUL hidden inside the bulk string. */
static bool parse_design(RedisModuleString *val, tdbf_design *out)
{
    char design[32];
    size_t len;
    const char *s = RedisModule_StringPtrLen(val, &len);
    if (len >= sizeof design || memchr(s, '\0', len))
        return false;
    memcpy(design, s, len);
    design[len] = '\0';
    return tdbf_design_parse(design, out) == TDBF_OK && tdbf_design_available(*out);
}

/* WINDOW n, EX s or PX ms into a; false after replying an error. */
static bool parse_window(RedisModuleCtx *ctx, RedisModuleString *opt, RedisModuleString *val,
                         create_args *a)
{
    const char *name = RedisModule_StringPtrLen(opt, NULL);
    const char *text = RedisModule_StringPtrLen(val, NULL);
    bool is_window = arg_is(opt, "WINDOW"), is_ex = arg_is(opt, "EX");
    uint64_t n;
    if (has_window(a)) {
        RedisModule_ReplyWithError(ctx, "ERR a window given twice: give one of WINDOW, EX "
                                        "or PX, once");
        return false;
    }
    if (!parse_u64(val, &n) || n == 0) {
        reply_errorf(ctx, "ERR bad %s '%.40s': it must be a positive integer%s", name, text,
                     is_window ? " (insertions)" : is_ex ? " (seconds)" : " (milliseconds)");
        return false;
    }
    if ((is_ex && n > UINT64_MAX / 1000u / 1000000u) || (!is_window && n > UINT64_MAX / 1000000u)) {
        reply_errorf(ctx, "ERR %s %.40s is too long", name, text);
        return false;
    }
    if (is_window)
        a->window_items = n;
    else
        a->window_ms = is_ex ? n * 1000u : n;
    return true;
}

/* Parse one creation option at argv[*i].  Returns 1 (consumed, *i moved
 * past it), 0 (not a creation option) or -1 (an error was replied).  An
 * option given twice is an error, as a second window always was: taking
 * the last value silently hides a mistake. */
static int parse_create_option(RedisModuleCtx *ctx, RedisModuleString **argv, int argc,
                               int *i, create_args *a, bool allow_error)
{
    RedisModuleString *opt = argv[*i];
    const char *name = RedisModule_StringPtrLen(opt, NULL);
    bool is_error = allow_error && arg_is(opt, "ERROR");
    bool is_window = arg_is(opt, "WINDOW") || arg_is(opt, "EX") || arg_is(opt, "PX");
    bool is_capacity = arg_is(opt, "CAPACITY"), is_design = arg_is(opt, "DESIGN"),
         is_seed = arg_is(opt, "SEED");
    if (!(is_error || is_window || is_capacity || is_design || is_seed))
        return 0;
    if (*i + 1 >= argc) {
        reply_errorf(ctx, "ERR %s needs a value", name);
        return -1;
    }
    if ((is_error && a->has_error) || (is_capacity && a->has_capacity) ||
        (is_design && a->has_design) || (is_seed && a->has_seed)) {
        reply_errorf(ctx, "ERR %s given twice", name);
        return -1;
    }
    RedisModuleString *val = argv[*i + 1];
    const char *text = RedisModule_StringPtrLen(val, NULL);
    *i += 2;
    if (is_window)
        return parse_window(ctx, opt, val, a) ? 1 : -1;
    if (is_error) {
        double e;
        if (RedisModule_StringToDouble(val, &e) != REDISMODULE_OK || !(e > 0.0 && e < 1.0)) {
            reply_errorf(ctx, "ERR bad error rate '%.40s': it must be a number between 0 "
                              "and 1, exclusive", text);
            return -1;
        }
        a->error = e;
        a->has_error = true;
    } else if (is_capacity) {
        if (!parse_u64(val, &a->capacity) || a->capacity == 0) {
            reply_errorf(ctx, "ERR bad CAPACITY '%.40s': it must be a positive integer "
                              "(expected items per window)", text);
            return -1;
        }
        a->has_capacity = true;
    } else if (is_design) {
        if (!parse_design(val, &a->design)) {
            reply_errorf(ctx, "ERR unknown design '%.40s' (apbf, apbbf, apbf-line, tlbf, "
                              "tlbf-line, tbf, btbf, clock, rotating, fpdecay, stable, bloom, "
                              "exact)",
                         text);
            return -1;
        }
        a->has_design = true;
    } else {
        if (!parse_u64(val, &a->seed)) {
            reply_errorf(ctx, "ERR bad SEED '%.40s': it must be an integer from 0 (random) "
                              "to 2^64-1", text);
            return -1;
        }
        a->has_seed = true;
    }
    return 1;
}

/* Fill in what the client left out from the module's defaults: the
 * window of an auto-created filter (DEFAULT_EX, else DEFAULT_WINDOW), the
 * design for that kind of window, the error rate. */
static void apply_defaults(create_args *a)
{
    if (!has_window(a)) {
        if (tdbf_settings.default_window_ms)
            a->window_ms = tdbf_settings.default_window_ms;
        else
            a->window_items = tdbf_settings.default_window_items;
    }
    if (!a->has_design)
        a->design = a->window_items ? tdbf_settings.default_count_design
                                    : tdbf_settings.default_time_design;
    if (!a->has_error)
        a->error = tdbf_settings.default_error;
}

/* Reply why tdbf_open(a) failed with rc. */
static void reply_open_error(RedisModuleCtx *ctx, const create_args *a, int rc,
                             uint64_t refused, uint64_t headroom)
{
    const char *design = tdbf_design_name(a->design);
    switch (rc) {
    case TDBF_EWINDOW:
        reply_errorf(ctx, "ERR design %s does not take a %s window", design,
                     a->window_items ? "count (WINDOW)" : "time (EX/PX)");
        return;
    case TDBF_EINFEASIBLE:
        reply_errorf(ctx, "ERR design %s cannot reach error rate %g", design, a->error);
        return;
    case TDBF_ETOOBIG:
        tdbf_refusals.oom++;
        reply_errorf(ctx, "ERR the filter would need more memory than the %llu-byte cap "
                          "per filter (module argument MAX_MEMORY)",
                     (unsigned long long)(tdbf_settings.max_memory ? tdbf_settings.max_memory
                                                                   : TDBF_DEFAULT_MAX_MEMORY));
        return;
    case TDBF_ENOMEM:
        if (refused)
            reply_oom(ctx, "the new filter", refused, headroom);
        else
            RedisModule_ReplyWithError(ctx, "OOM out of memory creating the filter");
        return;
    default:
        reply_errorf(ctx, "ERR cannot create a %s filter: %s", design, tdbf_strerror(rc));
    }
}

/* Open a filter from parsed options; on failure replies and returns NULL.
 * Nothing larger than maxmemory's headroom is ever allocated (above). */
static tdbf *create_filter(RedisModuleCtx *ctx, create_args *a)
{
    apply_defaults(a);
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = a->design;
    cfg.error = a->error;
    cfg.window_items = a->window_items;
    cfg.window_ns = ms_to_ns(a->window_ms);
    cfg.capacity = a->capacity;
    cfg.seed = a->seed;
    cfg.max_memory = tdbf_settings.max_memory;

    tdbf *f = NULL;
    uint64_t headroom = tdbf_memory_headroom(ctx);
    tdbf_budget_begin(headroom);
    int rc = tdbf_open(&f, &cfg);
    uint64_t refused = tdbf_budget_end(NULL);
    if (rc != TDBF_OK) {
        reply_open_error(ctx, a, rc, refused, headroom);
        return NULL;
    }
    if (tdbf_saved_size(f) == 0) {
        tdbf_close(f);
        reply_errorf(ctx, "ERR design %s cannot be saved by this build of libtdbf, so "
                          "Redis could not persist it; choose another DESIGN",
                     tdbf_design_name(a->design));
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
    char error[40], window[24], capacity[24], seed[24];
    snprintf(error, sizeof error, "%.17g", a->error);
    snprintf(window, sizeof window, "%llu",
             (unsigned long long)(a->window_items ? a->window_items : a->window_ms));
    snprintf(capacity, sizeof capacity, "%llu", (unsigned long long)a->capacity);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)st.seed);
    if (a->capacity)
        RedisModule_Replicate(ctx, "TDBF.RESERVE", "sccccccccc", key, error,
                              a->window_items ? "WINDOW" : "PX", window, "CAPACITY", capacity,
                              "DESIGN", tdbf_design_name(a->design), "SEED", seed);
    else
        RedisModule_Replicate(ctx, "TDBF.RESERVE", "sccccccc", key, error,
                              a->window_items ? "WINDOW" : "PX", window,
                              "DESIGN", tdbf_design_name(a->design), "SEED", seed);
}

/* Create the filter for key (empty, opened for writing) from a: set the
 * value, propagate the canonical RESERVE, notify.  NULL after replying an
 * error. */
static tdbf_value *create_value(RedisModuleCtx *ctx, RedisModuleKey *key,
                                RedisModuleString *name, create_args *a)
{
    tdbf *f = create_filter(ctx, a);
    if (!f)
        return NULL;
    tdbf_value *v = tdbf_value_new(f);
    if (!v) {
        tdbf_close(f);
        RedisModule_ReplyWithError(ctx, "OOM out of memory creating the filter");
        return NULL;
    }
    RedisModule_ModuleTypeSetValue(key, tdbf_type, v);
    replicate_reserve(ctx, name, f, a);
    RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, "tdbf.reserve", name);
    return v;
}

/* ======================================================================
 * Adding
 * ====================================================================== */

/* The time handed to the library for value v.  Count-window filters get 0
 * always: they ignore time, but their serialization records the largest
 * time seen, and a constant keeps replicas byte-identical under verbatim
 * propagation. */
static uint64_t filter_time_ns(const tdbf_value *v, uint64_t now_ms)
{
    return v->timed ? ms_to_ns(now_ms) : 0;
}

/* Writes from our primary or from the AOF are applied as they come: the
 * primary already decided them, and refusing here would diverge. */
static bool applying_decided_writes(RedisModuleCtx *ctx)
{
    if (!RedisModule_GetContextFlags)
        return false;
    int flags = RedisModule_GetContextFlags(ctx);
    return (flags & (REDISMODULE_CTX_FLAGS_REPLICATED | REDISMODULE_CTX_FLAGS_LOADING)) != 0;
}

/* Overload: once the filter's estimated false-positive rate (from its
 * counts: tdbf_current_error, O(1)) is above MAX_ERROR_RATIO times its
 * target, adds are refused until items expire.  A fixed-size filter (a
 * clock filter, a rotating one at its cap, a Bloom filter with no
 * window) fed far above the rate it was sized for would otherwise answer
 * "present" for almost everything; a refusal is an answer the client can
 * act on, a false "present" is not. */
static bool overloaded(const tdbf_value *v, uint64_t now_ns, double *estimate)
{
    if (tdbf_settings.max_error_ratio <= 0.0)
        return false;
    return tdbf_current_error(v->filter, now_ns, estimate) == TDBF_OK &&
           *estimate > tdbf_settings.max_error_ratio * v->error;
}

static void reply_overloaded(RedisModuleCtx *ctx, const tdbf_value *v, double estimate)
{
    tdbf_refusals.overload++;
    reply_errorf(ctx, "ERR filter is full: its estimated false-positive rate %.3g is above "
                      "%g x its target %g; create it for more items (%s), or wait for "
                      "items to expire", estimate, tdbf_settings.max_error_ratio, v->error,
                 v->timed ? "CAPACITY" : "WINDOW");
}

/* Add items[0 .. n-1] at now_ms; reply a single answer or an array.  The
 * items really added are stored in accepted[] (for replication); the
 * count is returned. */
static int add_items(RedisModuleCtx *ctx, tdbf_value *v, RedisModuleString **items, int n,
                     uint64_t now_ms, bool array, RedisModuleString **accepted)
{
    uint64_t now_ns = filter_time_ns(v, now_ms);
    bool decided = applying_decided_writes(ctx);
    uint64_t headroom = v->grows && !decided ? tdbf_memory_headroom(ctx) : UINT64_MAX;
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
        tdbf_budget_begin(headroom);
        int rc = tdbf_add(v->filter, item, len, now_ns);
        uint64_t refused = tdbf_budget_end(&spent);
        if (headroom != UINT64_MAX)   /* the command's adds share one headroom */
            headroom -= spent < headroom ? spent : headroom;
        if (rc == TDBF_ENOMEM && refused) {
            reply_oom(ctx, "adding to the filter", refused, headroom);
        } else if (rc < 0) {
            reply_errorf(ctx, "ERR add failed: %s", tdbf_strerror(rc));
        } else {
            /* A growing time filter refused new memory degrades (its FP
             * rises; the overload check above then steps in). */
            if (refused)
                tdbf_refusals.oom++;
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
static void replicate_adds(RedisModuleCtx *ctx, RedisModuleString *key, const tdbf_value *v,
                           RedisModuleString **items, int n, uint64_t now_ms)
{
    if (n == 0)
        return;
    if (v->timed)
        RedisModule_Replicate(ctx, "TDBF.ADDAT", "slv", key, clamp_ll(now_ms), items,
                              (size_t)n);
    else
        RedisModule_Replicate(ctx, "TDBF.MADD", "sv", key, items, (size_t)n);
    RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, "tdbf.add", key);
}

/* Add, reply, replicate and notify: the common tail of every add command. */
static void add_and_propagate(RedisModuleCtx *ctx, RedisModuleString *key, tdbf_value *v,
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
static tdbf_value *autocreate(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString *name)
{
    if (!tdbf_settings.autocreate) {
        reply_not_found(ctx);
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
    tdbf_value *v;
    int found = open_filter(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &v);
    if (found == KEY_EMPTY)
        v = autocreate(ctx, key, argv[1]);
    if (found != KEY_REPLIED && v)
        add_and_propagate(ctx, argv[1], v, argv + 2, argc - 2, server_now_ms(), multi);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

static int cmd_add(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return add_command(ctx, argv, argc, false);
}

static int cmd_madd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return add_command(ctx, argv, argc, true);
}

/* How far ahead of the server's clock a client's TDBF.ADDAT may stamp. */
#define ADDAT_MAX_AHEAD_MS 60000u

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
 * ADDAT_MAX_AHEAD_MS ahead of this server's clock is refused.  Replicated
 * and replayed stamps are not bounded: the primary's clock decided them,
 * and refusing them would make this copy diverge. */
static bool addat_allowed(RedisModuleCtx *ctx, RedisModuleString *stamp, uint64_t at_ms)
{
    if (applying_decided_writes(ctx))
        return true;
    if (!tdbf_settings.allow_addat) {
        tdbf_refusals.addat++;
        RedisModule_ReplyWithError(ctx, "ERR TDBF.ADDAT is internal (replication and AOF); "
                                        "load the module with ALLOW_ADDAT yes to backfill "
                                        "recorded events");
        return false;
    }
    uint64_t now_ms = server_now_ms();
    if (at_ms > now_ms && at_ms - now_ms > ADDAT_MAX_AHEAD_MS) {
        tdbf_refusals.addat++;
        reply_errorf(ctx, "ERR timestamp %.24s is more than %u s ahead of the server's clock",
                     RedisModule_StringPtrLen(stamp, NULL), ADDAT_MAX_AHEAD_MS / 1000u);
        return false;
    }
    return true;
}

/* TDBF.ADDAT key timestamp_ms item ...: add at the given time. */
static int cmd_addat(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 4)
        return RedisModule_WrongArity(ctx);
    uint64_t at_ms;
    if (!parse_u64(argv[2], &at_ms))
        return reply_errorf(ctx, "ERR bad timestamp '%.40s': milliseconds, an "
                                 "unsigned integer", RedisModule_StringPtrLen(argv[2], NULL));
    if (!addat_allowed(ctx, argv[2], at_ms))
        return REDISMODULE_OK;
    RedisModuleKey *key;
    tdbf_value *v;
    int found = open_filter(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &v);
    if (found == KEY_EMPTY)
        reply_not_found(ctx);
    if (found == KEY_FOUND)
        add_and_propagate(ctx, argv[1], v, argv + 3, argc - 3, at_ms, true);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* TDBF.RESERVE key error_rate (WINDOW n | EX s | PX ms) [CAPACITY n] [DESIGN d]
 * [SEED n] */
static int cmd_reserve(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 5)
        return RedisModule_WrongArity(ctx);
    create_args a = {0};
    if (RedisModule_StringToDouble(argv[2], &a.error) != REDISMODULE_OK ||
        !(a.error > 0.0 && a.error < 1.0))
        return reply_errorf(ctx, "ERR bad error rate '%.40s': it must be a number between 0 "
                                 "and 1, exclusive", RedisModule_StringPtrLen(argv[2], NULL));
    a.has_error = true;
    for (int i = 3; i < argc;) {
        int rc = parse_create_option(ctx, argv, argc, &i, &a, false);
        if (rc < 0)
            return REDISMODULE_OK;
        if (rc == 0)
            return reply_errorf(ctx, "ERR unknown argument '%.40s'",
                                RedisModule_StringPtrLen(argv[i], NULL));
    }
    if (!has_window(&a))
        return RedisModule_ReplyWithError(ctx, "ERR a window is required: WINDOW n "
                                               "(insertions), EX seconds or PX milliseconds");
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
static int cmd_insert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 4)
        return RedisModule_WrongArity(ctx);
    create_args a = {0};
    bool nocreate = false;
    int items_at = -1;
    for (int i = 2; i < argc;) {
        if (arg_is(argv[i], "ITEMS")) {
            items_at = i + 1;
            break;
        }
        if (arg_is(argv[i], "NOCREATE")) {
            nocreate = true;
            i++;
            continue;
        }
        int rc = parse_create_option(ctx, argv, argc, &i, &a, true);
        if (rc < 0)
            return REDISMODULE_OK;
        if (rc == 0)
            return reply_errorf(ctx, "ERR unknown argument '%.40s'",
                                RedisModule_StringPtrLen(argv[i], NULL));
    }
    if (items_at < 0 || items_at >= argc)
        return RedisModule_ReplyWithError(ctx, "ERR ITEMS and at least one item are required");
    if (nocreate && (has_window(&a) || a.has_error || a.has_design || a.has_capacity ||
                     a.has_seed))
        return RedisModule_ReplyWithError(ctx, "ERR NOCREATE cannot be combined with "
                                               "creation options");

    RedisModuleKey *key;
    tdbf_value *v;
    int found = open_filter(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE, &key, &v);
    if (found == KEY_EMPTY) {
        if (nocreate)
            RedisModule_ReplyWithError(ctx, "ERR not found (NOCREATE)");
        else if (!has_window(&a) && !tdbf_settings.autocreate)
            RedisModule_ReplyWithError(ctx, "ERR not found, and this server does not create "
                                            "filters with default windows (AUTOCREATE no): "
                                            "give WINDOW, EX or PX");
        else
            v = create_value(ctx, key, argv[1], &a);
    }
    if (found != KEY_REPLIED && v)
        add_and_propagate(ctx, argv[1], v, argv + items_at, argc - items_at, server_now_ms(),
                          true);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* ======================================================================
 * Queries
 * ====================================================================== */

static int exists_command(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, bool multi)
{
    if (multi ? argc < 3 : argc != 3)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    tdbf_value *v;
    int found = open_filter(ctx, argv[1], REDISMODULE_READ, &key, &v);
    if (found == KEY_REPLIED) {
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    uint64_t now_ms = server_now_ms();
    if (multi)
        RedisModule_ReplyWithArray(ctx, argc - 2);
    for (int i = 2; i < argc; i++) {
        if (found == KEY_EMPTY) {
            RedisModule_ReplyWithBool(ctx, 0);
            continue;
        }
        size_t len;
        const char *item = RedisModule_StringPtrLen(argv[i], &len);
        int rc = tdbf_contains(v->filter, item, len, filter_time_ns(v, now_ms));
        if (rc < 0)
            reply_errorf(ctx, "ERR query failed: %s", tdbf_strerror(rc));
        else
            RedisModule_ReplyWithBool(ctx, rc == 1);
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

static int cmd_exists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return exists_command(ctx, argv, argc, false);
}

static int cmd_mexists(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    return exists_command(ctx, argv, argc, true);
}

/* Estimated items in the window, from the filter's state as of its latest
 * write: time windows (TLBF, ROTATING) and EXACT count the insertions their
 * live generations hold (stats.keys); count windows hold the last
 * min(adds, window) insertions.  Re-adds count again, so this is an upper
 * bound on the distinct items.  Designs that track neither (a time-window
 * CLOCK) report their adds since creation. */
static uint64_t card_of(const tdbf_stats *st)
{
    if (st->design == TDBF_EXACT || (st->window_ns && st->keys))
        return st->keys;
    if (st->window_items && !st->window_ns)
        return st->items < st->window_items ? st->items : st->window_items;
    return st->items;
}

static int cmd_card(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc != 2)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    tdbf_value *v;
    int found = open_filter(ctx, argv[1], REDISMODULE_READ, &key, &v);
    if (found == KEY_EMPTY)
        RedisModule_ReplyWithLongLong(ctx, 0);
    if (found == KEY_FOUND) {
        tdbf_stats st;
        tdbf_get_stats(v->filter, &st);
        RedisModule_ReplyWithLongLong(ctx, clamp_ll(card_of(&st)));
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* TDBF.INFO fields, in reply order: ours, then RedisBloom's names for
 * the ones that mean the same here. */
enum info_field {
    F_DESIGN, F_ERROR, F_ERROR_PLANNED, F_ERROR_ESTIMATED, F_WINDOW_ITEMS, F_WINDOW_MS,
    F_ITEMS, F_CARD, F_MEMORY, F_BITS_PER_ITEM, F_K, F_L, F_SLICES, F_GENERATION_SIZE,
    F_GENERATIONS, F_SEED, F_NOW_MS, F_CAP_HITS, F_RB_CAPACITY, F_RB_SIZE, F_RB_ITEMS,
    F_COUNT
};

static const char *const info_names[F_COUNT] = {
    "design", "error", "error_planned", "error_estimated", "window_items", "window_ms",
    "items", "card", "memory_bytes", "bits_per_item", "k", "l", "slices",
    "generation_size", "generations", "seed", "now_ms", "cap_hits",
    "Capacity", "Size", "Number of items inserted",
};

/* A single-field request: our names, and RedisBloom's BF.INFO tokens
 * (CAPACITY, SIZE, ITEMS; its FILTERS and EXPANSION mean nothing for a
 * windowed filter).  -1 if unknown. */
static int info_field_named(RedisModuleString *name)
{
    if (arg_is(name, "capacity"))
        return F_RB_CAPACITY;
    if (arg_is(name, "size"))
        return F_RB_SIZE;
    for (int f = 0; f < F_RB_CAPACITY; f++)
        if (arg_is(name, info_names[f]))
            return f;
    return -1;
}

/* RedisBloom's Capacity: the items the filter is sized for.  A count
 * window's guaranteed window; a time window's items per window as sized
 * (CAPACITY, for clock and rotating; the live generations', for tlbf,
 * which resizes as the rate changes), from memory / bits per item. */
static uint64_t capacity_of(const tdbf_stats *st)
{
    if (st->window_items)
        return st->window_items;
    if (st->bits_per_item > 0.0)
        return (uint64_t)llround(8.0 * (double)st->memory_bytes / st->bits_per_item);
    return 0;
}

static void reply_info_field(RedisModuleCtx *ctx, enum info_field field, const tdbf_stats *st)
{
    char seed[24];
    switch (field) {
    case F_DESIGN: {
        const char *name = tdbf_design_name(st->design);
        RedisModule_ReplyWithStringBuffer(ctx, name, strlen(name));
        return;
    }
    case F_ERROR: RedisModule_ReplyWithDouble(ctx, st->error_configured); return;
    case F_ERROR_PLANNED: RedisModule_ReplyWithDouble(ctx, st->error_planned); return;
    case F_ERROR_ESTIMATED: RedisModule_ReplyWithDouble(ctx, st->error_estimated); return;
    case F_WINDOW_ITEMS: RedisModule_ReplyWithLongLong(ctx, clamp_ll(st->window_items)); return;
    case F_WINDOW_MS:
        RedisModule_ReplyWithLongLong(ctx, clamp_ll(st->window_ns / 1000000u));
        return;
    case F_ITEMS:
    case F_RB_ITEMS: RedisModule_ReplyWithLongLong(ctx, clamp_ll(st->items)); return;
    case F_CARD: RedisModule_ReplyWithLongLong(ctx, clamp_ll(card_of(st))); return;
    case F_MEMORY:
    case F_RB_SIZE: RedisModule_ReplyWithLongLong(ctx, clamp_ll(st->memory_bytes)); return;
    case F_BITS_PER_ITEM: RedisModule_ReplyWithDouble(ctx, st->bits_per_item); return;
    case F_K: RedisModule_ReplyWithLongLong(ctx, st->k); return;
    case F_L: RedisModule_ReplyWithLongLong(ctx, st->l); return;
    case F_SLICES: RedisModule_ReplyWithLongLong(ctx, st->slices); return;
    case F_GENERATION_SIZE:
        RedisModule_ReplyWithLongLong(ctx, clamp_ll(st->generation_size));
        return;
    case F_GENERATIONS: RedisModule_ReplyWithLongLong(ctx, clamp_ll(st->generations)); return;
    case F_SEED:
        /* A seed may exceed 2^63: a string keeps it exact. */
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)st->seed);
        RedisModule_ReplyWithStringBuffer(ctx, seed, strlen(seed));
        return;
    case F_NOW_MS: RedisModule_ReplyWithLongLong(ctx, clamp_ll(st->now_ns / 1000000u)); return;
    case F_CAP_HITS: RedisModule_ReplyWithLongLong(ctx, clamp_ll(st->cap_hits)); return;
    case F_RB_CAPACITY: RedisModule_ReplyWithLongLong(ctx, clamp_ll(capacity_of(st))); return;
    case F_COUNT: break;
    }
}

/* TDBF.INFO key [field]: every field as a map (RESP2: a flat array), or
 * one field as an array of one value, as RedisBloom's BF.INFO answers. */
static int cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc != 2 && argc != 3)
        return RedisModule_WrongArity(ctx);
    int only = argc == 3 ? info_field_named(argv[2]) : -1;
    if (argc == 3 && only < 0)
        return reply_errorf(ctx, "ERR unknown INFO field '%.40s'",
                            RedisModule_StringPtrLen(argv[2], NULL));
    RedisModuleKey *key;
    tdbf_value *v;
    int found = open_filter(ctx, argv[1], REDISMODULE_READ, &key, &v);
    if (found == KEY_EMPTY)
        reply_not_found(ctx);
    if (found == KEY_FOUND) {
        tdbf_stats st;
        tdbf_get_stats(v->filter, &st);
        if (only >= 0) {
            RedisModule_ReplyWithArray(ctx, 1);
            reply_info_field(ctx, (enum info_field)only, &st);
        } else {
            RedisModule_ReplyWithMap(ctx, F_COUNT);
            for (int f = 0; f < F_COUNT; f++) {
                RedisModule_ReplyWithStringBuffer(ctx, info_names[f], strlen(info_names[f]));
                reply_info_field(ctx, (enum info_field)f, &st);
            }
        }
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* ======================================================================
 * Inference
 * ====================================================================== */

/* TDBF.PROB's prior, from [MODEL uniform|powerlaw] [UNIVERSE n]
 * [EXPONENT s] [RANK r] in any order.  Defaults: a uniform stream over as
 * many keys as the window holds.  Under a power law the item has the
 * probability of rank r, or without RANK the average one, 1/|U|.  Returns
 * false after replying an error. */
static bool parse_prior(RedisModuleCtx *ctx, RedisModuleString **argv, int argc,
                        uint64_t window, tdbf_prior *prior)
{
    bool power = false, has_exponent = false, has_rank = false;
    double universe = (double)window, exponent = 1.0, rank = 0.0;
    for (int i = 0; i < argc; i += 2) {
        const char *name = RedisModule_StringPtrLen(argv[i], NULL);
        bool is_model = arg_is(argv[i], "MODEL"), is_universe = arg_is(argv[i], "UNIVERSE"),
             is_exponent = arg_is(argv[i], "EXPONENT"), is_rank = arg_is(argv[i], "RANK");
        if (!(is_model || is_universe || is_exponent || is_rank)) {
            reply_errorf(ctx, "ERR unknown argument '%.40s' (MODEL, UNIVERSE, EXPONENT "
                              "or RANK)", name);
            return false;
        }
        if (i + 1 >= argc) {
            reply_errorf(ctx, "ERR %s needs a value", name);
            return false;
        }
        RedisModuleString *val = argv[i + 1];
        const char *text = RedisModule_StringPtrLen(val, NULL);
        if (is_model) {
            power = arg_is(val, "powerlaw");
            if (!power && !arg_is(val, "uniform")) {
                reply_errorf(ctx, "ERR unknown MODEL '%.40s' (uniform or powerlaw)", text);
                return false;
            }
            continue;
        }
        double x;
        if (RedisModule_StringToDouble(val, &x) != REDISMODULE_OK || !isfinite(x) ||
            (is_exponent ? !(x > 0.0) : !(x >= 1.0))) {
            reply_errorf(ctx, "ERR bad %s '%.40s': it must be a number %s", name, text,
                         is_exponent ? "above 0" : "of at least 1");
            return false;
        }
        if (is_universe)
            universe = x;
        else if (is_exponent)
            exponent = x, has_exponent = true;
        else
            rank = x, has_rank = true;
    }
    if (!power && (has_exponent || has_rank)) {
        RedisModule_ReplyWithError(ctx, "ERR EXPONENT and RANK need MODEL powerlaw");
        return false;
    }
    if (rank > universe) {
        reply_errorf(ctx, "ERR RANK %g is beyond the UNIVERSE of %g keys", rank, universe);
        return false;
    }
    tdbf_prior_init(prior, power ? TDBF_PRIOR_POWER_LAW : TDBF_PRIOR_UNIFORM, universe);
    prior->exponent = exponent;
    prior->key_probability = has_rank ? tdbf_prior_rank_probability(prior, rank)
                                      : 1.0 / universe;
    return true;
}

/* TDBF.PROB key item [prior]: P(the item was added within the window |
 * its timer cells), for the designs with inference (TBF, BTBF). */
static int cmd_prob(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 3)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    tdbf_value *v;
    int found = open_filter(ctx, argv[1], REDISMODULE_READ, &key, &v);
    if (found == KEY_EMPTY)
        reply_not_found(ctx);
    tdbf_prior prior;
    tdbf_shape shape = {0};
    if (found == KEY_FOUND)
        tdbf_get_shape(v->filter, &shape);    /* O(1): the window and the design */
    if (found == KEY_FOUND &&
        parse_prior(ctx, argv + 3, argc - 3, shape.window_items ? shape.window_items : 1,
                    &prior)) {
        size_t len;
        const char *item = RedisModule_StringPtrLen(argv[2], &len);
        double p = 0.0;
        int rc = tdbf_posterior(v->filter, item, len, filter_time_ns(v, server_now_ms()),
                                &prior, &p);
        if (rc == TDBF_OK) {
            RedisModule_ReplyWithDouble(ctx, p);
        } else if (rc == TDBF_ENOTSUP) {
            reply_errorf(ctx, "ERR design %s has no inference: TDBF.PROB needs an apbf, "
                              "apbbf, tbf or btbf filter", tdbf_design_name(shape.design));
        } else {
            reply_errorf(ctx, "ERR cannot infer: %s", tdbf_strerror(rc));
        }
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* ======================================================================
 * Chunked dump and restore
 *
 * A dump is the filter's serialization (docs/format.md) in chunks of up to
 * TDBF_CHUNK_BYTES.  A cursor is 1 + the offset one past a chunk:
 * TDBF.SCANDUMP key 0 returns the first chunk and its cursor; passing the
 * cursor back returns the next; [0, ""] ends.  TDBF.LOADCHUNK key cursor
 * chunk takes the pairs in the same order; the chunk that completes the
 * dump runs the library's validating loader (field checks and checksum),
 * and a dump that fails it is refused and the key deleted.  If the filter
 * changes between SCANDUMP calls the chunks do not fit together, and the
 * checksum refuses them.
 * ====================================================================== */

typedef struct chunk_buffer {
    unsigned char *buf;
    size_t         len;
} chunk_buffer;

static int chunk_take(void *ctx, const unsigned char *buf, size_t len)
{
    chunk_buffer *c = ctx;
    memcpy(c->buf + c->len, buf, len);   /* at most one chunk arrives */
    c->len += len;
    return 0;
}

static int cmd_scandump(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc != 3)
        return RedisModule_WrongArity(ctx);
    uint64_t cursor;
    if (!parse_u64(argv[2], &cursor))
        return reply_errorf(ctx, "ERR bad cursor '%.40s'", RedisModule_StringPtrLen(argv[2], NULL));
    RedisModuleKey *key;
    tdbf_value *v;
    int found = open_filter(ctx, argv[1], REDISMODULE_READ, &key, &v);
    if (found == KEY_EMPTY)
        reply_not_found(ctx);
    if (found != KEY_FOUND) {
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    uint64_t offset = cursor ? cursor - 1 : 0;
    uint64_t total = tdbf_saved_size(v->filter);
    if (offset >= total) {
        RedisModule_ReplyWithArray(ctx, 2);
        RedisModule_ReplyWithLongLong(ctx, 0);
        RedisModule_ReplyWithStringBuffer(ctx, "", 0);
    } else {
        chunk_buffer c = {.buf = RedisModule_Alloc(TDBF_CHUNK_BYTES), .len = 0};
        int rc = tdbf_serialize_chunks(v->filter, offset, TDBF_CHUNK_BYTES, chunk_take, &c);
        if (rc != TDBF_OK) {
            reply_errorf(ctx, "ERR cannot dump the filter: %s", tdbf_strerror(rc));
        } else {
            RedisModule_ReplyWithArray(ctx, 2);
            RedisModule_ReplyWithLongLong(ctx, clamp_ll(offset + c.len + 1));
            RedisModule_ReplyWithStringBuffer(ctx, (const char *)c.buf, c.len);
        }
        RedisModule_Free(c.buf);
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* The first chunk of a restore: a new value holding nothing yet, or NULL
 * after replying why the chunk is refused. */
static tdbf_value *start_restore(RedisModuleCtx *ctx, uint64_t offset,
                                 const unsigned char *chunk, size_t len)
{
    if (offset != 0) {
        RedisModule_ReplyWithError(ctx, "ERR chunk out of order: a restore starts at "
                                        "cursor 0's chunk");
        return NULL;
    }
    tdbf_value *v;
    const char *err = tdbf_restore_start(&v, chunk, len);
    if (err)
        RedisModule_ReplyWithError(ctx, err);
    return v;
}

/* TDBF.LOADCHUNK key cursor chunk.  Memory grows by the bytes received,
 * never by what the first chunk's header claims (a forged header costs
 * its sender an error or 56 bytes, nobody else anything); each chunk is
 * held to maxmemory's headroom like any write. */
static int cmd_loadchunk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc != 4)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    int type = RedisModule_KeyType(key);
    if (type != REDISMODULE_KEYTYPE_EMPTY && (type != REDISMODULE_KEYTYPE_MODULE ||
                                              RedisModule_ModuleTypeGetType(key) != tdbf_type)) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    }
    uint64_t cursor;
    size_t len;
    const unsigned char *chunk = (const unsigned char *)RedisModule_StringPtrLen(argv[3], &len);
    if (!parse_u64(argv[2], &cursor) || cursor == 0 || cursor - 1 < len || len == 0) {
        RedisModule_CloseKey(key);
        tdbf_refusals.payloads++;
        return reply_errorf(ctx, "ERR bad cursor '%.40s' for a chunk of %zu bytes",
                            RedisModule_StringPtrLen(argv[2], NULL), len);
    }
    uint64_t offset = cursor - 1 - len;
    bool fresh = type == REDISMODULE_KEYTYPE_EMPTY;
    tdbf_value *v = fresh ? start_restore(ctx, offset, chunk, len)
                          : RedisModule_ModuleTypeGetValue(key);
    if (!v) {
        tdbf_refusals.payloads++;
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    bool done, fatal;
    uint64_t headroom = tdbf_memory_headroom(ctx);
    tdbf_budget_begin(headroom);
    const char *err = tdbf_restore_append(v, offset, chunk, len, &done, &fatal);
    if (tdbf_budget_end(NULL))
        tdbf_refusals.oom++;
    if (err) {
        tdbf_refusals.payloads++;
        if (fresh)
            tdbf_value_free(v);
        else if (fatal)
            RedisModule_DeleteKey(key);
        if (fatal && !fresh)
            RedisModule_ReplicateVerbatim(ctx);   /* the replicas delete it too */
        RedisModule_ReplyWithError(ctx, err);
    } else {
        if (fresh)
            RedisModule_ModuleTypeSetValue(key, tdbf_type, v);
        RedisModule_ReplicateVerbatim(ctx);
        RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, "tdbf.loadchunk",
                                        argv[1]);
        RedisModule_ReplyWithSimpleString(ctx, "OK");
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* ======================================================================
 * The command table
 * ====================================================================== */

int tdbf_register_commands(RedisModuleCtx *ctx)
{
    static const struct {
        const char        *name;
        RedisModuleCmdFunc func;
        const char        *flags;
    } table[] = {
        {"tdbf.reserve",   cmd_reserve,   "write deny-oom"},
        {"tdbf.add",       cmd_add,       "write deny-oom"},
        {"tdbf.madd",      cmd_madd,      "write deny-oom"},
        {"tdbf.insert",    cmd_insert,    "write deny-oom"},
        {"tdbf.addat",     cmd_addat,     "write deny-oom"},
        {"tdbf.exists",    cmd_exists,    "readonly fast"},
        {"tdbf.mexists",   cmd_mexists,   "readonly fast"},
        {"tdbf.prob",      cmd_prob,      "readonly fast"},
        {"tdbf.card",      cmd_card,      "readonly"},
        {"tdbf.info",      cmd_info,      "readonly"},
        {"tdbf.scandump",  cmd_scandump,  "readonly"},
        {"tdbf.loadchunk", cmd_loadchunk, "write deny-oom"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (RedisModule_CreateCommand(ctx, table[i].name, table[i].func, table[i].flags,
                                      1, 1, 1) != REDISMODULE_OK)
            return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
