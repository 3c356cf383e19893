/*
 * filter.c — the generic API: validation, hashing, the clock, dispatch.
 *
 * Each design is a table of operations (designs/ops.h).  This file is the only
 * place that checks arguments, hashes keys (once per key, XXH3-128 with the
 * filter's seed), clamps time (a `now` behind the largest seen is treated
 * as that largest value, so a design never sees time go backwards), counts
 * adds and answers the version and error-name questions.
 */
#define _DEFAULT_SOURCE /* getentropy() */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "util/bits.h"
#include "util/hash_key.h"
#include "util/mem.h"
#include "designs/ops.h"

/* ---- version and errors --------------------------------------------- */

unsigned tdbf_version_number(void)
{
    return TDBF_VERSION_NUMBER;
}

const char *tdbf_version_string(void)
{
    return TDBF_VERSION_STRING;
}

const char *tdbf_strerror(int code)
{
    switch (code) {
    case TDBF_OK:          return "success";
    case TDBF_EINVAL:      return "invalid argument";
    case TDBF_ENOMEM:      return "out of memory";
    case TDBF_EDESIGN:     return "unknown or unavailable design";
    case TDBF_EERROR:      return "error rate must be strictly between 0 and 1";
    case TDBF_EWINDOW:     return "missing, zero or wrong kind of window for this design";
    case TDBF_EPARAM:      return "parameter out of range (k and l: both or neither, 1..64 and 1..512; see the config fields)";
    case TDBF_ETOOBIG:     return "filter would exceed the memory cap";
    case TDBF_ENOTSUP:     return "operation not supported by this design";
    case TDBF_ECORRUPT:    return "corrupt or malformed data";
    case TDBF_EVERSION:    return "unsupported format version";
    case TDBF_EIO:         return "input/output error";
    case TDBF_EINFEASIBLE: return "no parameters meet the requested error rate";
    default:               return "unknown error";
    }
}

/* ---- lifecycle ------------------------------------------------------ */

void tdbf_config_init(tdbf_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->design = TDBF_APBF_LINE;    /* the fastest count design, ~1.1x APBF's memory */
    cfg->error = 0.01;
    cfg->max_memory = TDBF_DEFAULT_MAX_MEMORY;
}

/* A random nonzero seed.  The library reads no clock; entropy comes from
 * the kernel, mixed with an address as a fallback. */
static uint64_t random_seed(void)
{
    uint64_t seed = 0;
    if (getentropy(&seed, sizeof seed) != 0)
        seed = tdbf_mix64((uint64_t)(uintptr_t)&seed);
    return seed ? seed : 1;
}

int tdbf_open(tdbf **out, const tdbf_config *cfg)
{
    if (!out)
        return TDBF_EINVAL;
    *out = NULL;
    if (!cfg)
        return TDBF_EINVAL;
    tdbf_config local;
    int check = tdbf_config_normalize(cfg, &local);
    if (check != TDBF_OK)
        return check;
    const tdbf_allocator *alloc = cfg->allocator ? cfg->allocator : tdbf_default_allocator();
    if (!alloc->alloc || !alloc->calloc || !alloc->free)
        return TDBF_EINVAL;

    const tdbf_ops *ops = tdbf_design_ops(cfg->design);
    if (cfg->concurrent && !ops->concurrent && !ops->concurrent_on_request)
        return TDBF_ENOTSUP;
    tdbf *f = tdbf_shell_new(alloc, cfg->design, cfg->error,
                             cfg->seed ? cfg->seed : random_seed());
    if (!f)
        return TDBF_ENOMEM;
    f->concurrent = f->concurrent || cfg->concurrent;
    int rc = f->ops->open(f, &local);
    if (rc != TDBF_OK) {
        tdbf_shell_free(f);
        return rc;
    }
    f->settings.opened_with = local;
    f->settings.opened_with.seed = f->seed;
    f->settings.opened_with.allocator = NULL;   /* f->alloc is the one in use */
    f->settings.has_config = true;
    *out = f;
    return TDBF_OK;
}

int tdbf_clear(tdbf *f)
{
    if (!f)
        return TDBF_EINVAL;
    if (!f->settings.has_config)
        return TDBF_ENOTSUP;
    /* A new state from the same configuration, opened into a second shell
     * on the same allocator; only once it exists is the old one dropped,
     * so a failure leaves f as it was. */
    tdbf *fresh = tdbf_shell_new(&f->alloc, f->design, f->error, f->seed);
    if (!fresh)
        return TDBF_ENOMEM;
    fresh->concurrent = f->concurrent;
    int rc = fresh->ops->open(fresh, &f->settings.opened_with);
    if (rc != TDBF_OK) {
        tdbf_shell_free(fresh);
        return rc;
    }
    f->ops->close(f);
    f->state = fresh->state;   /* the clock stays f's */
    atomic_store_explicit(&f->items, 0, memory_order_relaxed);
    tdbf_shell_free(fresh);
    return TDBF_OK;
}

/* tdbf_copy's buffer: the saved form, written through tdbf_save. */
typedef struct copy_buffer {
    unsigned char *bytes;
    uint64_t       size, used;
} copy_buffer;

static int copy_write(void *ctx, const void *buf, size_t len)
{
    copy_buffer *b = ctx;
    if (len > b->size - b->used)
        return -1;
    memcpy(b->bytes + b->used, buf, len);
    b->used += len;
    return 0;
}

int tdbf_copy(tdbf **out, const tdbf *f)
{
    if (!out)
        return TDBF_EINVAL;
    *out = NULL;
    if (!f)
        return TDBF_EINVAL;
    copy_buffer b = {NULL, tdbf_saved_size(f), 0};
    if (b.size > SIZE_MAX || !(b.bytes = f->alloc.alloc(f->alloc.opaque, (size_t)b.size)))
        return TDBF_ENOMEM;
    int rc = tdbf_save(f, copy_write, &b);
    if (rc == TDBF_OK) {
        /* f exists, so its size is allowed: no cap but the allocator's */
        tdbf_load_options opts = {UINT64_MAX, &f->alloc,
                                  f->concurrent && f->ops->concurrent_on_request};
        rc = tdbf_load_buffer(out, b.bytes, (size_t)b.used, &opts);
    }
    f->alloc.free(f->alloc.opaque, b.bytes);
    if (rc == TDBF_OK)
        (*out)->settings = f->settings;
    return rc;
}

/* ---- operations ----------------------------------------------------- */

/* The shell's counters, now_ns and items, are atomics accessed relaxed: for
 * most designs that is a plain load and store; a `concurrent` design
 * (FPDECAY) has adds from many threads at once, so its clock is raised by
 * compare-and-swap and its count by an atomic add.  Relaxed is enough:
 * they must not tear or lose updates, they order nothing else.
 * one_writer is a constant at every call: true where the caller knows the
 * adds come from one thread and the shell counts them (a design with
 * f->state.add_hashed, ops.h), so the tests fold away on tdbf_add's jump. */
static TDBF_ALWAYS_INLINE uint64_t clamp_now(const tdbf *f, uint64_t now_ns)
{
    uint64_t seen = atomic_load_explicit(&f->now_ns, memory_order_relaxed);
    return now_ns > seen ? now_ns : seen;
}

/* Raise the clock to now_ns (never lower it); returns the clamped time. */
static TDBF_ALWAYS_INLINE uint64_t raise_clock(tdbf *f, uint64_t now_ns, bool one_writer)
{
    uint64_t seen = atomic_load_explicit(&f->now_ns, memory_order_relaxed);
    if (one_writer || !f->concurrent) {
        if (now_ns > seen)
            atomic_store_explicit(&f->now_ns, now_ns, memory_order_relaxed);
    } else {
        /* a failed exchange reloads `seen`; stop once it is >= now_ns */
        while (now_ns > seen &&
               !atomic_compare_exchange_weak_explicit(&f->now_ns, &seen, now_ns,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed))
            ;
    }
    return now_ns > seen ? now_ns : seen;
}

static TDBF_ALWAYS_INLINE void count_adds(tdbf *f, uint64_t adds, bool one_writer)
{
    if (!one_writer && f->state.own_items)
        return;
    if (!one_writer && f->concurrent)
        atomic_fetch_add_explicit(&f->items, adds, memory_order_relaxed);
    else
        atomic_store_explicit(&f->items,
                              atomic_load_explicit(&f->items, memory_order_relaxed) + adds,
                              memory_order_relaxed);
}

static TDBF_ALWAYS_INLINE void make_key(const tdbf *f, const void *bytes, size_t len,
                                         tdbf_key *key)
{
    key->bytes = bytes;
    key->len = len;
    key->hash = tdbf_hash_key_inline(f->seed, bytes, len);
}

/* The add and query of keys longer than 16 bytes, or of a design without
 * the jump: out of line, so that their calls (hash.c's XXH3, the design's
 * key entries f->state.add and f->state.contains) leave tdbf_add and
 * tdbf_contains without a frame. */
static TDBF_HASH_INLINED __attribute__((noinline)) int add_by_key(tdbf *f, const void *key,
                                                                  size_t len, uint64_t now_ns)
{
    if (f->state.add_hashed) {
        raise_clock(f, now_ns, true);
        count_adds(f, 1, true);
        return f->state.add_hashed(f, tdbf_hash_key(f->seed, key, len));
    }
    tdbf_key k;
    make_key(f, key, len, &k);
    int rc = f->state.add(f, &k, raise_clock(f, now_ns, false));
    if (rc >= 0)
        count_adds(f, 1, false);
    return rc;
}

static TDBF_HASH_INLINED __attribute__((noinline)) int contains_by_key(const tdbf *f,
                                                                       const void *key,
                                                                       size_t len,
                                                                       uint64_t now_ns)
{
    if (f->state.contains_hashed)
        return f->state.contains_hashed(f, tdbf_hash_key(f->seed, key, len));
    tdbf_key k;
    make_key(f, key, len, &k);
    return f->state.contains(f, &k, clamp_now(f, now_ns));
}

/* Keys of up to 16 bytes, the XXH3 path of a few registers' arithmetic,
 * are hashed here and jump straight into the design; nothing else is
 * live, so the call needs no frame (a single add of a DRAM-sized filter
 * costs what the core can overlap of consecutive calls' misses, which
 * every instruction of the path shortens). */
TDBF_HASH_INLINED int tdbf_add(tdbf *f, const void *key, size_t len, uint64_t now_ns)
{
    if (!f || (!key && len))
        return TDBF_EINVAL;
    if (!f->state.add_hashed || len > 16)
        return add_by_key(f, key, len, now_ns);
    raise_clock(f, now_ns, true);
    count_adds(f, 1, true);
    return f->state.add_hashed(f, tdbf_hash_key_inline(f->seed, key, len));
}

TDBF_HASH_INLINED int tdbf_contains(const tdbf *f, const void *key, size_t len,
                                    uint64_t now_ns)
{
    if (!f || (!key && len))
        return TDBF_EINVAL;
    if (!f->state.contains_hashed || len > 16)
        return contains_by_key(f, key, len, now_ns);
    return f->state.contains_hashed(f, tdbf_hash_key_inline(f->seed, key, len));
}

int tdbf_advance(tdbf *f, uint64_t now_ns)
{
    if (!f)
        return TDBF_EINVAL;
    uint64_t now = raise_clock(f, now_ns, false);
    return f->ops->advance ? f->ops->advance(f, now) : TDBF_OK;
}

/* ---- batch ---------------------------------------------------------- */

static bool batch_args_ok(size_t n, const void *const *keys, const size_t *lens)
{
    if (n == 0)
        return true;
    if (!keys || !lens)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!keys[i] && lens[i])
            return false;
    return true;
}

/* Keys are hashed in chunks so the hashes stay in L1, and a design that
 * can prefetch is asked to load key i + f->state.prefetch_ahead's memory while
 * key i is processed: with many loads in flight a DRAM-sized filter pays
 * for its misses in parallel.  Designs whose queries walk a
 * data-dependent path (APBF, APBBF: Algorithm 1) take whole chunks
 * instead (ops->contains_many, ops->add_many: designs/ops.h), as does
 * apbf-line, whose batch entries inline its single ones.  Answers are
 * exactly those of single calls. */
enum { BATCH_CHUNK = 256 };

static bool walks(const tdbf *f)
{
    return f->ops->batch_at_every_size || f->state.memory_bytes >= f->settings.walk_min_bytes;
}

static TDBF_HASH_INLINED size_t hash_chunk(const tdbf *f, size_t from, size_t n,
                                           const void *const *keys, const size_t *lens,
                                           tdbf_key *chunk)
{
    size_t count = n - from < BATCH_CHUNK ? n - from : BATCH_CHUNK;
    for (size_t i = 0; i < count; i++)
        make_key(f, keys[from + i], lens[from + i], &chunk[i]);
    return count;
}

static void prefetch_first(const tdbf *f, const tdbf_key *chunk, size_t count,
                           int for_add)
{
    if (f->ops->prefetch)
        for (size_t i = 0; i < count && i < f->state.prefetch_ahead; i++)
            f->ops->prefetch(f, &chunk[i], for_add);
}

static void prefetch_ahead(const tdbf *f, const tdbf_key *chunk, size_t i,
                           size_t count, int for_add)
{
    if (f->ops->prefetch && i + f->state.prefetch_ahead < count)
        f->ops->prefetch(f, &chunk[i + f->state.prefetch_ahead], for_add);
}

int tdbf_add_batch(tdbf *f, size_t n, const void *const *keys,
                   const size_t *lens, uint64_t now_ns, uint8_t *results)
{
    if (!f || !batch_args_ok(n, keys, lens))
        return TDBF_EINVAL;
    uint64_t now = raise_clock(f, now_ns, false);
    tdbf_key chunk[BATCH_CHUNK];
    uint8_t present[BATCH_CHUNK];
    for (size_t done = 0; done < n;) {
        size_t count = hash_chunk(f, done, n, keys, lens, chunk);
        if (f->ops->add_many && walks(f)) {
            int rc = f->ops->add_many(f, chunk, count, now, results ? results + done : present);
            if (rc < 0)
                return rc;
            count_adds(f, count, false);
            done += count;
            continue;
        }
        prefetch_first(f, chunk, count, 1);
        for (size_t i = 0; i < count; i++) {
            prefetch_ahead(f, chunk, i, count, 1);
            int rc = f->state.add_hashed ? f->state.add_hashed(f, chunk[i].hash)
                                         : f->state.add(f, &chunk[i], now);
            if (rc < 0)
                return rc;
            count_adds(f, 1, false);
            if (results)
                results[done + i] = (uint8_t)rc;
        }
        done += count;
    }
    return TDBF_OK;
}

int tdbf_contains_batch(const tdbf *f, size_t n, const void *const *keys,
                        const size_t *lens, uint64_t now_ns, uint8_t *results)
{
    if (!f || !results || !batch_args_ok(n, keys, lens))
        return TDBF_EINVAL;
    uint64_t now = clamp_now(f, now_ns);
    tdbf_key chunk[BATCH_CHUNK];
    for (size_t done = 0; done < n;) {
        size_t count = hash_chunk(f, done, n, keys, lens, chunk);
        if (f->ops->contains_many && walks(f)) {
            f->ops->contains_many(f, chunk, count, now, results + done);
        } else {
            prefetch_first(f, chunk, count, 0);
            for (size_t i = 0; i < count; i++) {
                prefetch_ahead(f, chunk, i, count, 0);
                results[done + i] = (uint8_t)(f->state.contains_hashed
                                                  ? f->state.contains_hashed(f, chunk[i].hash)
                                                  : f->state.contains(f, &chunk[i], now));
            }
        }
        done += count;
    }
    return TDBF_OK;
}

/* ---- introspection -------------------------------------------------- */

int tdbf_get_shape(const tdbf *f, tdbf_shape *out)
{
    if (!f || !out)
        return TDBF_EINVAL;
    memset(out, 0, sizeof *out);
    out->design = f->design;
    out->seed = f->seed;
    out->error_configured = f->error;
    out->concurrent = f->concurrent;
    f->ops->shape(f, out);
    out->memory_bytes = f->state.memory_bytes;
    tdbf_shape_set_slack(out, f->ops->slack_step ? f->ops->slack_step(f, NULL) : 0);
    return TDBF_OK;
}

int tdbf_slack(const tdbf *f, uint64_t *slack_items, uint64_t *slack_ns)
{
    tdbf_shape shape;
    int rc = tdbf_get_shape(f, &shape);
    if (rc != TDBF_OK)
        return rc;
    if (slack_items)
        *slack_items = shape.slack_items;
    if (slack_ns)
        *slack_ns = shape.slack_ns;
    return TDBF_OK;
}

int tdbf_get_stats(const tdbf *f, tdbf_stats *out)
{
    if (!f || !out)
        return TDBF_EINVAL;
    memset(out, 0, sizeof *out);
    tdbf_shape shape;
    tdbf_get_shape(f, &shape);
    out->k = shape.k;
    out->l = shape.l;
    out->window_items = shape.window_items;
    out->window_ns = shape.window_ns;
    out->error_planned = shape.error_planned;
    out->design = f->design;
    out->simd = TDBF_SIMD_PORTABLE;     /* a design with vector paths says which */
    out->items = tdbf_items(f);
    out->seed = f->seed;
    out->now_ns = atomic_load_explicit(&f->now_ns, memory_order_relaxed);
    out->error_configured = f->error;
    f->ops->stats(f, out);
    out->memory_bytes = f->state.memory_bytes;
    if (out->window_items)
        out->bits_per_item = 8.0 * (double)out->memory_bytes / (double)out->window_items;
    return TDBF_OK;
}

int tdbf_current_error(const tdbf *f, uint64_t now_ns, double *error)
{
    if (!f || !error)
        return TDBF_EINVAL;
    double fp = f->ops->current_error ? f->ops->current_error(f, clamp_now(f, now_ns))
                                      : f->state.error_planned;
    /* Into [0, 1]; a NaN (never expected) reads as the worst case. */
    if (!(fp <= 1.0))
        fp = 1.0;
    *error = fp > 0.0 ? fp : 0.0;
    return TDBF_OK;
}
