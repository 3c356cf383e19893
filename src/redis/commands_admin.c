/*
 * commands_admin.c — the commands that look into a filter or move it
 * whole (layer 3, commands.h): TDBF.CARD, TDBF.INFO, TDBF.PROB,
 * TDBF.SCANDUMP, TDBF.LOADCHUNK.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

/* ======================================================================
 * Counting and describing
 * ====================================================================== */

/* Insertions the window holds, as of the filter's latest write: time
 * windows (TLBF, ROTATING) count the insertions their live generations
 * hold (stats.keys); count windows the last min(adds, window).  Re-adds
 * count again: an upper bound on the distinct items.  Designs that track
 * neither (a time-window CLOCK) report their adds since creation. */
static uint64_t insertions_in_window(const tdbf_stats *st)
{
    if (st->window_ns && st->keys)
        return st->keys;
    if (st->window_items && !st->window_ns)
        return st->items < st->window_items ? st->items : st->window_items;
    return st->items;
}

/* Distinct items in the window (TDBF.CARD, INFO card), as RedisBloom's
 * BF.CARD counts them: EXACT knows them (stats.keys); the others estimate
 * them from the value's sketch (card.c: HyperLogLog per age bucket, 4.6 %
 * standard error).  A filter restored from TDBF.SCANDUMP chunks has no
 * sketch until its window has turned over with adds seen here, and
 * reports the insertions in its window meanwhile.  known: v's stats if
 * the caller has them (NULL: read here, only when needed). */
static uint64_t card_of(const rtdbf_value *v, const tdbf_stats *known, uint64_t now_ms)
{
    tdbf_shape shape;
    uint64_t distinct;
    tdbf_get_shape(v->filter, &shape);    /* O(1); the stats may scan the bits */
    if (shape.design != TDBF_EXACT && rtdbf_value_card(v, now_ms, &distinct))
        return distinct;
    tdbf_stats st;
    if (!known) {
        tdbf_get_stats(v->filter, &st);
        known = &st;
    }
    return shape.design == TDBF_EXACT ? known->keys : insertions_in_window(known);
}

int rtdbf_cmd_card(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc != 2)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    rtdbf_value *v;
    int found = rtdbf_open_filter(ctx, argv[1], REDISMODULE_READ, &key, &v);
    if (found == KEY_EMPTY)
        RedisModule_ReplyWithLongLong(ctx, 0);
    if (found == KEY_FOUND)
        RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(card_of(v, NULL, rtdbf_server_now_ms())));
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
    if (rtdbf_arg_is(name, "capacity"))
        return F_RB_CAPACITY;
    if (rtdbf_arg_is(name, "size"))
        return F_RB_SIZE;
    for (int f = 0; f < F_RB_CAPACITY; f++)
        if (rtdbf_arg_is(name, info_names[f]))
            return f;
    return -1;
}

/* RedisBloom's Capacity: the items the filter is sized for, never the
 * items it holds.  A count window's guaranteed window; a time window's
 * CAPACITY as created (the value keeps it: the library keeps only what it
 * planned from it).  A time filter created without one, or restored from
 * a dump (which has no room for it), reports what its sizing believes:
 * l generations of the planned size for tlbf, tlbf-line and sqf (their
 * default hint, or the rate they last adapted to), and memory / bits per item for
 * clock and rotating, whose bits_per_item is over the capacity planned. */
static uint64_t capacity_of(const rtdbf_value *v, const tdbf_stats *st)
{
    if (st->window_items)
        return st->window_items;
    if (v->capacity)
        return v->capacity;
    if (st->design == TDBF_TLBF || st->design == TDBF_TLBF_LINE || st->design == TDBF_SQF)
        return st->l * st->generation_size;
    if (st->design != TDBF_EXACT && st->bits_per_item > 0.0)
        return (uint64_t)llround(8.0 * (double)st->memory_bytes / st->bits_per_item);
    return 0;
}

static void reply_info_field(RedisModuleCtx *ctx, enum info_field field, const rtdbf_value *v,
                             const tdbf_stats *st)
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
    case F_WINDOW_ITEMS:
        RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(st->window_items));
        return;
    case F_WINDOW_MS:
        RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(st->window_ns / 1000000u));
        return;
    case F_ITEMS:
    case F_RB_ITEMS: RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(st->items)); return;
    case F_CARD:
        RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(card_of(v, st, rtdbf_server_now_ms())));
        return;
    case F_MEMORY:
    case F_RB_SIZE: RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(st->memory_bytes)); return;
    case F_BITS_PER_ITEM: RedisModule_ReplyWithDouble(ctx, st->bits_per_item); return;
    case F_K: RedisModule_ReplyWithLongLong(ctx, st->k); return;
    case F_L: RedisModule_ReplyWithLongLong(ctx, st->l); return;
    case F_SLICES: RedisModule_ReplyWithLongLong(ctx, st->slices); return;
    case F_GENERATION_SIZE:
        RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(st->generation_size));
        return;
    case F_GENERATIONS: RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(st->generations)); return;
    case F_SEED:
        /* A seed may exceed 2^63: a string keeps it exact. */
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)st->seed);
        RedisModule_ReplyWithStringBuffer(ctx, seed, strlen(seed));
        return;
    case F_NOW_MS:
        RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(st->now_ns / 1000000u));
        return;
    case F_CAP_HITS: RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(st->cap_hits)); return;
    case F_RB_CAPACITY:
        RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(capacity_of(v, st)));
        return;
    case F_COUNT: break;
    }
}

/* TDBF.INFO key [field]: every field as a map (RESP2: a flat array), or
 * one field as an array of one value, as RedisBloom's BF.INFO answers. */
int rtdbf_cmd_info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc != 2 && argc != 3)
        return RedisModule_WrongArity(ctx);
    int only = argc == 3 ? info_field_named(argv[2]) : -1;
    if (argc == 3 && only < 0)
        return rtdbf_reply_errorf(ctx, "ERR unknown INFO field '%.40s'",
                                  RedisModule_StringPtrLen(argv[2], NULL));
    RedisModuleKey *key;
    rtdbf_value *v;
    if (rtdbf_open_existing(ctx, argv[1], REDISMODULE_READ, &key, &v)) {
        tdbf_stats st;
        tdbf_get_stats(v->filter, &st);
        if (only >= 0) {
            RedisModule_ReplyWithArray(ctx, 1);
            reply_info_field(ctx, (enum info_field)only, v, &st);
        } else {
            RedisModule_ReplyWithMap(ctx, F_COUNT);
            for (int f = 0; f < F_COUNT; f++) {
                RedisModule_ReplyWithStringBuffer(ctx, info_names[f], strlen(info_names[f]));
                reply_info_field(ctx, (enum info_field)f, v, &st);
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
        bool is_model = rtdbf_arg_is(argv[i], "MODEL"),
             is_universe = rtdbf_arg_is(argv[i], "UNIVERSE"),
             is_exponent = rtdbf_arg_is(argv[i], "EXPONENT"),
             is_rank = rtdbf_arg_is(argv[i], "RANK");
        if (!(is_model || is_universe || is_exponent || is_rank)) {
            rtdbf_reply_errorf(ctx, "ERR unknown argument '%.40s' (MODEL, UNIVERSE, EXPONENT "
                                   "or RANK)", name);
            return false;
        }
        if (i + 1 >= argc) {
            rtdbf_reply_errorf(ctx, "ERR %s needs a value", name);
            return false;
        }
        RedisModuleString *val = argv[i + 1];
        const char *text = RedisModule_StringPtrLen(val, NULL);
        if (is_model) {
            power = rtdbf_arg_is(val, "powerlaw");
            if (!power && !rtdbf_arg_is(val, "uniform")) {
                rtdbf_reply_errorf(ctx, "ERR unknown MODEL '%.40s' (uniform or powerlaw)", text);
                return false;
            }
            continue;
        }
        double x;
        if (RedisModule_StringToDouble(val, &x) != REDISMODULE_OK || !isfinite(x) ||
            (is_exponent ? !(x > 0.0) : !(x >= 1.0))) {
            rtdbf_reply_errorf(ctx, "ERR bad %s '%.40s': it must be a number %s", name, text,
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
        rtdbf_reply_errorf(ctx, "ERR RANK %g is beyond the UNIVERSE of %g keys", rank, universe);
        return false;
    }
    tdbf_prior_init(prior, power ? TDBF_PRIOR_POWER_LAW : TDBF_PRIOR_UNIFORM, universe);
    prior->exponent = exponent;
    prior->key_probability = has_rank ? tdbf_prior_rank_probability(prior, rank)
                                      : 1.0 / universe;
    return true;
}

/* TDBF.PROB key item [prior]: P(the item was added within the window |
 * what its cells hold), for every design the library infers for
 * (tdbf_posterior: tbf and btbf from their timer cells, apbf, apbbf and
 * apbf-line from which age slices hold the item); the others answer
 * TDBF_ENOTSUP, replied as an error naming the design. */
int rtdbf_cmd_prob(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc < 3)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key;
    rtdbf_value *v;
    bool found = rtdbf_open_existing(ctx, argv[1], REDISMODULE_READ, &key, &v);
    tdbf_prior prior;
    tdbf_shape shape = {0};
    if (found)
        tdbf_get_shape(v->filter, &shape);    /* O(1): the window and the design */
    if (found &&
        parse_prior(ctx, argv + 3, argc - 3, shape.window_items ? shape.window_items : 1,
                    &prior)) {
        size_t len;
        const char *item = RedisModule_StringPtrLen(argv[2], &len);
        double p = 0.0;
        uint64_t now_ns = rtdbf_filter_time_ns(v, rtdbf_server_now_ms());
        int rc = tdbf_posterior(v->filter, item, len, now_ns, &prior, &p);
        if (rc == TDBF_OK) {
            RedisModule_ReplyWithDouble(ctx, p);
        } else if (rc == TDBF_ENOTSUP) {
            rtdbf_reply_errorf(ctx, "ERR design %s has no inference: TDBF.PROB needs an apbf, "
                                   "apbbf, apbf-line, tbf or btbf filter",
                              tdbf_design_name(shape.design));
        } else {
            rtdbf_reply_errorf(ctx, "ERR cannot infer: %s", tdbf_strerror(rc));
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

int rtdbf_cmd_scandump(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc != 3)
        return RedisModule_WrongArity(ctx);
    uint64_t cursor;
    if (!rtdbf_parse_u64(argv[2], &cursor))
        return rtdbf_reply_errorf(ctx, "ERR bad cursor '%.40s'",
                                  RedisModule_StringPtrLen(argv[2], NULL));
    RedisModuleKey *key;
    rtdbf_value *v;
    if (!rtdbf_open_existing(ctx, argv[1], REDISMODULE_READ, &key, &v)) {
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
        int rc = rtdbf_serialize_chunks(v->filter, offset, TDBF_CHUNK_BYTES, chunk_take, &c);
        if (rc != TDBF_OK) {
            rtdbf_reply_errorf(ctx, "ERR cannot dump the filter: %s", tdbf_strerror(rc));
        } else {
            RedisModule_ReplyWithArray(ctx, 2);
            RedisModule_ReplyWithLongLong(ctx, rtdbf_clamp_ll(offset + c.len + 1));
            RedisModule_ReplyWithStringBuffer(ctx, (const char *)c.buf, c.len);
        }
        RedisModule_Free(c.buf);
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

/* The first chunk of a restore: a new value holding nothing yet, or NULL
 * after replying why the chunk is refused. */
static rtdbf_value *start_restore(RedisModuleCtx *ctx, uint64_t offset,
                                  const unsigned char *chunk, size_t len)
{
    if (offset != 0) {
        RedisModule_ReplyWithError(ctx, "ERR chunk out of order: a restore starts at "
                                        "cursor 0's chunk");
        return NULL;
    }
    rtdbf_value *v;
    const char *err = rtdbf_restore_start(&v, chunk, len, rtdbf_filter_cap(ctx));
    if (err)
        RedisModule_ReplyWithError(ctx, err);
    return v;
}

/* Why the restore that v just completed is refused, or NULL.  A client's
 * restore (not our primary's, not the AOF's) may not bring a time filter
 * whose clock is ahead of the server's: the bound and the reason are
 * TDBF.ADDAT's (rtdbf_restore_clock_problem). */
static const char *completed_restore_problem(RedisModuleCtx *ctx, const rtdbf_value *v,
                                             char *buf, size_t size)
{
    if (rtdbf_decided_write(ctx))
        return NULL;
    return rtdbf_restore_clock_problem(v->filter, buf, size);
}

/* TDBF.LOADCHUNK key cursor chunk.  Memory grows by the bytes received,
 * never by what the first chunk's header claims (a forged header costs
 * its sender an error or 56 bytes, nobody else anything); each chunk is
 * held to maxmemory's headroom like any write, and the dump to the
 * per-filter cap (rtdbf_filter_cap). */
int rtdbf_cmd_loadchunk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc)
{
    if (argc != 4)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    int type = RedisModule_KeyType(key);
    if (type != REDISMODULE_KEYTYPE_EMPTY && (type != REDISMODULE_KEYTYPE_MODULE ||
                                              RedisModule_ModuleTypeGetType(key) != rtdbf_type)) {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    }
    uint64_t cursor;
    size_t len;
    const unsigned char *chunk = (const unsigned char *)RedisModule_StringPtrLen(argv[3], &len);
    if (!rtdbf_parse_u64(argv[2], &cursor) || cursor == 0 || cursor - 1 < len || len == 0) {
        RedisModule_CloseKey(key);
        rtdbf_refusals.payloads++;
        return rtdbf_reply_errorf(ctx, "ERR bad cursor '%.40s' for a chunk of %zu bytes",
                                  RedisModule_StringPtrLen(argv[2], NULL), len);
    }
    uint64_t offset = cursor - 1 - len;
    bool fresh = type == REDISMODULE_KEYTYPE_EMPTY;
    rtdbf_value *v = fresh ? start_restore(ctx, offset, chunk, len)
                          : RedisModule_ModuleTypeGetValue(key);
    if (!v) {
        rtdbf_refusals.payloads++;
        RedisModule_CloseKey(key);
        return REDISMODULE_OK;
    }
    bool done, fatal;
    uint64_t headroom = rtdbf_memory_headroom(ctx);
    rtdbf_budget_begin(headroom);
    const char *err = rtdbf_restore_append(v, offset, chunk, len, &done, &fatal);
    if (rtdbf_budget_end(NULL))
        rtdbf_refusals.oom++;
    char clock_problem[192];
    bool refused_clock = false;
    if (!err && done) {
        err = completed_restore_problem(ctx, v, clock_problem, sizeof clock_problem);
        refused_clock = fatal = err != NULL;
    }
    if (err) {
        rtdbf_refusals.payloads++;
        if (fresh)
            rtdbf_value_free(v);
        else if (fatal)
            RedisModule_DeleteKey(key);
        /* The replicas delete it too: a bad dump fails there as here, but
         * a clock ahead would not (replicated restores are exempt). */
        if (fatal && !fresh && refused_clock)
            RedisModule_Replicate(ctx, "DEL", "s", argv[1]);
        else if (fatal && !fresh)
            RedisModule_ReplicateVerbatim(ctx);
        RedisModule_ReplyWithError(ctx, err);
    } else {
        if (fresh)
            RedisModule_ModuleTypeSetValue(key, rtdbf_type, v);
        RedisModule_ReplicateVerbatim(ctx);
        RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, "tdbf.loadchunk",
                                        argv[1]);
        RedisModule_ReplyWithSimpleString(ctx, "OK");
    }
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

