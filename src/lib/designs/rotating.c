/*
 * rotating.c — rotating Bloom filters: a ring of N+1 classic filters.
 *
 * Paper 000 ("Rotating Filters"): the simple baseline every windowed
 * design is measured against.
 *
 * Model.  N+1 Bloom filters of m bits (N = cfg.filters, default 4), kept
 * newest first.  Each covers a 1/N share of the window: C/N insertions of
 * a count window C (cfg.window_items), or T/N of a time window T
 * (cfg.window_ns).  An insert sets k bits in the newest; a query answers
 * yes if any live filter has all k bits.  When the newest has had its
 * share, the ring rotates: the oldest is cleared and becomes the newest.
 * The k bit indices come from the shared double hashing (hash.h), once per
 * key: every filter has the same m, so a key's bits sit at the same
 * offsets in each of them.
 *
 *     filters[0]     filters[1]           filters[N]
 *     +----------+   +----------+         +----------+
 *     | m bits   |   | m bits   |   ...   | m bits   |   each with count,
 *     +----------+   +----------+         +----------+   limit, start and
 *       ^ inserts       queries read every live one       stamp (ns)
 *     rotate: clear filters[N], move it to the front, shift the rest back
 *
 * Count window.  The newest takes g = ceil(C/N) inserts.  A key sits in
 * one filter, which is cleared N+1 rotations after it became the newest,
 * i.e. at least N·g >= C later inserts: no false negatives within the
 * last C (stats.window_items = N·g).  Expiry bound: a key may be reported
 * for up to (N+1)·g inserts (the filter it was in, full, plus N more),
 * about C + C/N; older keys only at the FP rate.
 *
 * Time window.  The newest takes inserts for span = ceil(T/N) ns from its
 * first one (rotation happens in the add that finds the span over), or
 * until it has C/N of them (C = cfg.capacity, the expected keys per
 * window, default 1024), whichever comes first.  Each filter keeps the
 * time of its latest insert (stamp); stamps fall with age, since only the
 * newest takes inserts.  Two rules make the window exact:
 *   - queries read the filters newest first and stop at the first whose
 *     stamp is >= T old: all its keys, and all of older filters, are;
 *   - a filter is cleared only when its stamp is >= T old (or it is
 *     empty).  Rotating on time alone, that always holds for the oldest:
 *     the N newer filters each lasted a span, N·span >= T.
 * Rotating on capacity (the rate ran above C per T) can come while the
 * oldest still holds keys younger than T.  Retiring it would drop them
 * before their time, so tdbf grows the ring by a new filter instead, like
 * tlbf.c grows slices; the extra filters are released once their stamps
 * turn stale (at a rotation, or by tdbf_advance).  Growth stops at
 * cfg.max_slices filters (default 2(N+1) + 32) and at cfg.max_memory;
 * there the newest keeps taking inserts past its share (its fill and the
 * FP rate rise; stats.cap_hits counts each refusal), never a false
 * negative.  Expiry bound: a key added at t0 is in a filter whose inserts
 * all came within one span, so its stamp is < t0 + span and the key is
 * reported until at most T + span = T + T/N after t0 (T + T/N + 1 ns when
 * N does not divide T); past that only at the FP rate.  At the cap the
 * newest's inserts stretch over more than a span, and so does this bound.
 *
 * False positives.  A query can match in any of the N+1 filters, each
 * holding up to g keys just before a rotation, so the combined worst case
 * is
 *
 *     FP = 1 - (1 - e_i)^(N+1),   e_i = (1 - (1 - 1/m)^(k g))^k,
 *
 * and each filter is sized (sizing.c) for e_i <= 1 - (1 - error)^(1/(N+1)),
 * about error/(N+1).  Memory is (N+1)·m bits: for error 0.01 and N = 4,
 * e_i = 0.00201, 12.9 bits per key of a filter and (N+1)/N of that per key
 * of the window, 16.2 bits.  A growing ring (bursts in a time window)
 * holds L > N+1 filters and its FP is about L·e_i until they retire.
 *
 * Measured (tests/unit/test_rotating.c, error 0.01, N = 4): count window
 * 10^6, k = 9, 16.2 bits per key; FP 0.0101 over 10^6 probes right before
 * a rotation, against the analytic 0.0100 (0.00097 vs 0.00100 at error
 * 0.001, 22.2 bits).  Time window 60 s at the planned 1000 keys/s: 16.5
 * bits per key, FP 0.0079 (the oldest filter has turned stale by then, so
 * N filters count, the newest partly filled).  A burst of 20 shares at
 * one timestamp grew the ring from 5 to 24 filters, FP 0.045, and
 * tdbf_advance released them all a window later.
 *
 * Current error (tdbf_current_error): the same product over the filters a
 * query at that time reads, each e_i from its insert count instead of its
 * bits.  Only the newest's count changes, so each other filter keeps
 * ln(1 - e_i), set when it stops taking inserts: O(filters) additions and
 * one e_i, cheap enough to call before every add.  A burst that grows
 * the ring shows as the sum of the grown filters' terms.
 *
 * stats: slices = filters allocated (N+1, more while grown), slice_bits =
 * m, generation_size = g, generation_fill = inserts in the newest,
 * generations = rotations (and growths), keys = inserts held in live
 * filters, error_estimated = 1 - prod (1 - fill_i^k) over live filters.
 */
#include <math.h>
#include <string.h>

#include "util/bits.h"
#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"
#include "model/planning.h"

typedef struct subfilter {
    uint64_t *bits;     /* m bits, 64-byte aligned */
    uint64_t  count;    /* inserts received */
    uint64_t  limit;    /* inserts before a capacity rotation */
    uint64_t  start;    /* ns: its first insert (time window) */
    uint64_t  stamp;    /* ns: its latest insert (time window) */
    double    log_miss; /* ln(1 - e_i) of count, once it no longer takes
                           inserts (not saved) */
} subfilter;

typedef struct rotating {
    unsigned   n;           /* N: the window is N filters' shares */
    unsigned   k;           /* bits per key */
    unsigned   base;        /* N + 1: filters always allocated */
    unsigned   max_filters; /* cap while growing (time window) */
    unsigned   count;       /* filters allocated, newest first */
    bool       timed;       /* time window (else count window) */
    uint64_t   m;           /* bits per filter */
    uint64_t   words;       /* 64-bit words per filter */
    uint64_t   share;       /* g: inserts per filter, ceil(C / N) */
    uint64_t   capacity;    /* C */
    uint64_t   window_ns;   /* T */
    uint64_t   span_ns;     /* ceil(T / N) */
    uint64_t   rotations;
    uint64_t   cap_hits;
    uint64_t   max_memory;
    double     fp_planned;  /* 1 - (1 - e_i)^(N+1) */
    subfilter *filters;     /* max_filters entries */
} rotating;

/* ---- filters ---------------------------------------------------------- */

static size_t filter_bytes(const rotating *r)
{
    return (size_t)r->words * sizeof(uint64_t);
}

static void key_bits(const rotating *r, const tdbf_hash128 *h, uint64_t *bits)
{
    for (unsigned j = 0; j < r->k; j++)
        bits[j] = tdbf_reduce(tdbf_hash_nth(h, j), r->m);
}

static int holds(const rotating *r, const subfilter *s, const uint64_t *bits)
{
    for (unsigned j = 0; j < r->k; j++)
        if (!tdbf_bit_get(s->bits, bits[j]))
            return 0;
    return 1;
}

/* Filters a query reads: the prefix whose stamps are younger than T. */
static unsigned live_filters(const rotating *r, uint64_t now_ns)
{
    if (!r->timed)
        return r->count;
    unsigned live = 0;
    while (live < r->count && now_ns - r->filters[live].stamp < r->window_ns)
        live++;
    return live;
}

/* May be cleared: empty, or every key in it is at least T old. */
static bool reusable(const rotating *r, const subfilter *s, uint64_t now_ns)
{
    return s->count == 0 || (r->timed && now_ns - s->stamp >= r->window_ns);
}

/* ln(1 - e_i) of a filter holding `count` inserts: its share of the
 * combined miss probability. */
static double log_miss_of(const rotating *r, uint64_t count)
{
    return log1p(-tdbf_bloom_fp((double)count, r->m, r->k));
}

/* Put `fresh` in front of the ring (which must have room for it). */
static void push_front(rotating *r, subfilter fresh)
{
    /* the newest takes no more inserts: its count is final */
    r->filters[0].log_miss = log_miss_of(r, r->filters[0].count);
    memmove(&r->filters[1], &r->filters[0], r->count * sizeof *r->filters);
    r->filters[0] = fresh;
    r->count++;
    r->rotations++;
}

static subfilter empty_filter(const rotating *r, uint64_t *bits, uint64_t now_ns)
{
    return (subfilter){.bits = bits, .limit = r->share, .start = now_ns, .stamp = now_ns};
}

/* The oldest filter, cleared, becomes the newest. */
static void recycle_oldest(rotating *r, uint64_t now_ns)
{
    uint64_t *bits = r->filters[--r->count].bits;
    memset(bits, 0, filter_bytes(r));
    push_front(r, empty_filter(r, bits, now_ns));
}

/* Release grown filters whose keys are all older than T. */
static void release_stale(tdbf *f, rotating *r, uint64_t now_ns)
{
    while (r->count > r->base && reusable(r, &r->filters[r->count - 1], now_ns))
        tdbf_mem_free_aligned(f, r->filters[--r->count].bits, filter_bytes(r));
}

/* Bytes an aligned allocation adds to its size (alloc.c), at most. */
enum { ALIGNED_EXTRA = 128 };

static int grow(tdbf *f, rotating *r, uint64_t now_ns)
{
    if (r->count >= r->max_filters ||
        !tdbf_fits((double)f->state.memory_bytes + (double)filter_bytes(r) + ALIGNED_EXTRA,
                   r->max_memory))
        return TDBF_ETOOBIG;
    uint64_t *bits = tdbf_mem_calloc_aligned(f, filter_bytes(r));
    if (!bits)
        return TDBF_ENOMEM;
    push_front(r, empty_filter(r, bits, now_ns));
    return TDBF_OK;
}

/* Time window: the newest has had its span or its share.  Never clear a
 * filter holding keys younger than T: grow instead, or at the cap keep
 * filling the newest for another span and share. */
static void rotate_timed(tdbf *f, rotating *r, uint64_t now_ns)
{
    release_stale(f, r, now_ns);
    if (reusable(r, &r->filters[r->count - 1], now_ns)) {
        recycle_oldest(r, now_ns);
    } else if (grow(f, r, now_ns) != TDBF_OK) {
        subfilter *newest = &r->filters[0];
        newest->limit += r->share;
        newest->start = now_ns;
        r->cap_hits++;
    }
}

/* ---- operations ------------------------------------------------------- */

static int query(const rotating *r, const uint64_t *bits, uint64_t now_ns)
{
    unsigned live = live_filters(r, now_ns);
    for (unsigned i = 0; i < live; i++)
        if (holds(r, &r->filters[i], bits))
            return 1;
    return 0;
}

static int rotating_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    rotating *r = f->state.impl;
    uint64_t bits[TDBF_MAX_K];
    key_bits(r, &key->hash, bits);
    int present = query(r, bits, now_ns);
    subfilter *newest = &r->filters[0];
    if (!r->timed) {
        if (newest->count >= r->share)
            recycle_oldest(r, now_ns);
    } else if (newest->count == 0) {
        newest->start = now_ns;
    } else if (now_ns - newest->start >= r->span_ns || newest->count >= newest->limit) {
        rotate_timed(f, r, now_ns);
    }
    newest = &r->filters[0];
    for (unsigned j = 0; j < r->k; j++)
        tdbf_bit_set(newest->bits, bits[j]);
    newest->count++;
    newest->stamp = now_ns;
    return present;
}

static int rotating_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    const rotating *r = f->state.impl;
    uint64_t bits[TDBF_MAX_K];
    key_bits(r, &key->hash, bits);
    return query(r, bits, now_ns);
}

static int rotating_advance(tdbf *f, uint64_t now_ns)
{
    rotating *r = f->state.impl;
    if (r->timed)
        release_stale(f, r, now_ns);
    return TDBF_OK;
}

/* The word of the first bit in every filter (where most negative queries
 * end), and for an add the k words of the newest. */
static void rotating_prefetch(const tdbf *f, const tdbf_key *key, int for_add)
{
    const rotating *r = f->state.impl;
    uint64_t bits[TDBF_MAX_K];
    key_bits(r, &key->hash, bits);
    for (unsigned i = 0; i < r->count; i++)
        tdbf_prefetch(&r->filters[i].bits[bits[0] >> 6], 0);
    if (for_add)
        for (unsigned j = 0; j < r->k; j++)
            tdbf_prefetch(&r->filters[0].bits[bits[j] >> 6], 1);
}

/* ---- open, close, stats ----------------------------------------------- */

enum {
    ROTATING_DEFAULT_FILTERS = 4,
    ROTATING_MAX_N = 256,
    ROTATING_MAX_RING = 4096,
    ROTATING_DEFAULT_CAPACITY = 1024
};

static void free_filters(tdbf *f, rotating *r)
{
    while (r->count)
        tdbf_mem_free_aligned(f, r->filters[--r->count].bits, filter_bytes(r));
    tdbf_mem_free(f, r->filters, (size_t)r->max_filters * sizeof *r->filters);
    tdbf_mem_free(f, r, sizeof *r);
}

/* What open derives from the parameters a saved filter keeps too (N, k,
 * m, C, T). */
static void set_shape(rotating *r, unsigned n, unsigned k, uint64_t m, uint64_t capacity,
                      uint64_t window_ns)
{
    r->n = n;
    r->k = k;
    r->base = n + 1;
    r->timed = window_ns != 0;
    r->m = m;
    r->words = m / 64;
    r->share = capacity / n + (capacity % n != 0);
    r->capacity = capacity;
    r->window_ns = window_ns;
    r->span_ns = window_ns / n + (window_ns % n != 0);
    r->fp_planned = -expm1((double)r->base * log1p(-tdbf_bloom_fp((double)r->share, m, k)));
}

/* The memory of a ring of `filters` filters, checked against the cap. */
static double ring_bytes(const tdbf *f, unsigned filters, uint64_t words, unsigned max_filters)
{
    return (double)f->state.memory_bytes
         + (double)filters * ((double)words * 8.0 + ALIGNED_EXTRA)
         + sizeof(rotating) + (double)max_filters * sizeof(subfilter);
}

/* The sizing open does, and tdbf_plan_clock_rotating reports: N, the ring cap and
 * C from the configuration, g = ceil(C / N), then the least whole words
 * per filter whose e_i meets the split error (sizing.c).  cfg.max_memory
 * must not be 0. */
static int plan_ring(const tdbf_config *cfg, tdbf_clock_rotating_plan *out, unsigned *ring_cap)
{
    bool timed = cfg->window_ns != 0;
    if (timed == (cfg->window_items != 0))
        return TDBF_EWINDOW;
    unsigned n = cfg->filters ? cfg->filters : ROTATING_DEFAULT_FILTERS;
    unsigned base = n + 1;
    if (n > ROTATING_MAX_N || cfg->l != 0 ||
        (cfg->max_slices && (cfg->max_slices < base || cfg->max_slices > ROTATING_MAX_RING)))
        return TDBF_EPARAM;
    unsigned max_filters = !timed ? base : cfg->max_slices ? cfg->max_slices : 2 * base + 32;
    uint64_t capacity = !timed ? cfg->window_items
                      : cfg->capacity ? cfg->capacity : ROTATING_DEFAULT_CAPACITY;
    uint64_t share = capacity / n + (capacity % n != 0);
    /* Split the error: 1 - (1 - e_i)^(N+1) <= error. */
    double each = -expm1(log1p(-cfg->error) / base);
    tdbf_bloom_shape shape;
    int rc = tdbf_bloom_size((double)share, each, cfg->k, &shape);
    if (rc != TDBF_OK)
        return rc;
    uint64_t words = tdbf_words_for_bits(shape.m);
    /* the handle, the ring's state and records, N+1 aligned filters */
    double memory = (double)sizeof(tdbf) + sizeof(rotating)
                  + (double)max_filters * sizeof(subfilter)
                  + (double)base * ((double)words * 8.0 + TDBF_ALIGNED_OVERHEAD);
    if (!tdbf_fits(memory, cfg->max_memory))
        return TDBF_ETOOBIG;
    memset(out, 0, sizeof *out);
    out->design = TDBF_ROTATING;
    out->k = shape.k;
    out->filters = base;
    out->cell_bits = 1;
    out->resolution = n;
    out->cells = words * 64;    /* whole words: the tail bits are free */
    out->capacity = timed ? capacity : (uint64_t)n * share;
    out->bits = base * out->cells;
    out->memory_bytes = (uint64_t)memory;
    out->bits_per_item = 8.0 * memory / (double)out->capacity;
    /* as set_shape computes it */
    out->fp = -expm1((double)base * log1p(-tdbf_bloom_fp((double)share, out->cells, shape.k)));
    *ring_cap = max_filters;
    return TDBF_OK;
}

int tdbf_rotating_plan(const tdbf_config *cfg, tdbf_clock_rotating_plan *out)
{
    unsigned ring_cap;
    return plan_ring(cfg, out, &ring_cap);
}

static int rotating_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_clock_rotating_plan plan;
    int rc = tdbf_rotating_plan(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    out->k = plan.k;
    out->window_items = cfg->window_ns ? 0 : plan.capacity;
    out->window_ns = cfg->window_ns;
    out->error_planned = plan.fp;
    out->memory_bytes = plan.memory_bytes;
    return TDBF_OK;
}

static int rotating_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_clock_rotating_plan plan;
    unsigned max_filters;
    int rc = plan_ring(cfg, &plan, &max_filters);
    if (rc != TDBF_OK)
        return rc;
    unsigned n = plan.resolution, base = plan.filters;
    /* C as sized: plan.capacity is N*g for a count window */
    uint64_t capacity = cfg->window_ns ? plan.capacity : cfg->window_items;

    rotating *r = tdbf_mem_calloc(f, 1, sizeof *r);
    if (!r)
        return TDBF_ENOMEM;
    /* whole words: the tail bits are free */
    set_shape(r, n, plan.k, plan.cells, capacity, cfg->window_ns);
    r->max_filters = max_filters;
    r->max_memory = cfg->max_memory;
    r->filters = tdbf_mem_calloc(f, max_filters, sizeof *r->filters);
    if (!r->filters) {
        tdbf_mem_free(f, r, sizeof *r);
        return TDBF_ENOMEM;
    }
    while (r->count < base) {
        uint64_t *bits = tdbf_mem_calloc_aligned(f, filter_bytes(r));
        if (!bits) {
            free_filters(f, r);
            return TDBF_ENOMEM;
        }
        r->filters[r->count++] = empty_filter(r, bits, 0);
    }
    f->state.impl = r;
    return TDBF_OK;
}

static void rotating_close(tdbf *f)
{
    free_filters(f, f->state.impl);
}

/* 1 - prod (1 - e_i) over the filters live at now_ns. */
static double rotating_current_error(const tdbf *f, uint64_t now_ns)
{
    const rotating *r = f->state.impl;
    unsigned live = live_filters(r, now_ns);
    if (live == 0)
        return 0.0;
    double log_miss = log_miss_of(r, r->filters[0].count);
    for (unsigned i = 1; i < live; i++)
        log_miss += r->filters[i].log_miss;
    return -expm1(log_miss);
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void rotating_shape(const tdbf *f, tdbf_shape *out)
{
    const rotating *r = f->state.impl;
    out->k = r->k;
    out->window_items = r->timed ? 0 : (uint64_t)r->n * r->share;
    out->window_ns = r->window_ns;
    out->error_planned = r->fp_planned;
}

static void rotating_stats(const tdbf *f, tdbf_stats *st)
{
    const rotating *r = f->state.impl;
    unsigned live = live_filters(r, f->now_ns);
    double miss = 1.0;
    uint64_t held = 0;
    for (unsigned i = 0; i < live; i++) {
        const subfilter *s = &r->filters[i];
        double fill = (double)tdbf_popcount(s->bits, r->words) / (double)r->m;
        miss *= 1.0 - pow(fill, (double)r->k);
        held += s->count;
    }
    st->slices = r->count;
    st->slice_bits = r->m;
    st->generation_size = r->share;
    st->generation_fill = r->filters[0].count;
    st->generations = r->rotations;
    st->error_estimated = 1.0 - miss;
    st->keys = held;
    st->cap_hits = r->cap_hits;
    if (r->timed)
        st->bits_per_item = 8.0 * (double)f->state.memory_bytes / (double)r->capacity;
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 N, u32 k, u32 max filters, u32 L (filters allocated),
 * u64 m, u64 C, u64 T (0: count window), u64 rotations, u64 cap hits,
 * u64 max_memory; then L filter records, newest first (u64 count, u64
 * limit, u64 start, u64 stamp); then the L filters' words in the same
 * order.  g, the span and the planned FP follow from (N, k, m, C, T). */

enum { ROTATING_FIELDS_BYTES = 64, ROTATING_RECORD_BYTES = 32 };

static uint64_t rotating_payload_size(const tdbf *f)
{
    const rotating *r = f->state.impl;
    return ROTATING_FIELDS_BYTES + (uint64_t)r->count * (ROTATING_RECORD_BYTES + filter_bytes(r));
}

static void rotating_save(const tdbf *f, tdbf_out *out)
{
    const rotating *r = f->state.impl;
    tdbf_out_u32(out, r->n);
    tdbf_out_u32(out, r->k);
    tdbf_out_u32(out, r->max_filters);
    tdbf_out_u32(out, r->count);
    tdbf_out_u64(out, r->m);
    tdbf_out_u64(out, r->capacity);
    tdbf_out_u64(out, r->window_ns);
    tdbf_out_u64(out, r->rotations);
    tdbf_out_u64(out, r->cap_hits);
    tdbf_out_u64(out, r->max_memory);
    for (unsigned i = 0; i < r->count; i++) {
        const subfilter *s = &r->filters[i];
        tdbf_out_u64(out, s->count);
        tdbf_out_u64(out, s->limit);
        tdbf_out_u64(out, s->start);
        tdbf_out_u64(out, s->stamp);
    }
    for (unsigned i = 0; i < r->count; i++)
        tdbf_out_words(out, r->filters[i].bits, r->words);
}

/* The ring's fields against each other: a count window never grows, and
 * a time window holds N+1 filters up to its cap. */
static int check_ring(const rotating *h, unsigned count)
{
    if (!h->timed)
        return h->max_filters == h->base && count == h->base && h->cap_hits == 0
               ? TDBF_OK : TDBF_ECORRUPT;
    return h->max_filters >= h->base && h->max_filters <= ROTATING_MAX_RING &&
           count >= h->base && count <= h->max_filters && h->rotations >= count - h->base
           ? TDBF_OK : TDBF_ECORRUPT;
}

/* Filter records: count <= limit (a full newest rotates or grows its
 * limit), limits of whole shares, each extra share a cap hit; start <=
 * stamp <= now, stamps never increasing with age (live filters are a
 * prefix). */
static int load_records(tdbf_in *in, rotating *r, unsigned count, uint64_t now_ns)
{
    for (unsigned i = 0; i < count; i++) {
        subfilter *s = &r->filters[i];
        tdbf_in_u64(in, &s->count);
        tdbf_in_u64(in, &s->limit);
        tdbf_in_u64(in, &s->start);
        if (tdbf_in_u64(in, &s->stamp) != TDBF_OK)
            return in->rc;
        bool limit_ok = r->timed ? s->limit >= r->share && s->limit % r->share == 0 &&
                                       s->limit / r->share - 1 <= r->cap_hits
                                 : s->limit == r->share;
        if (!limit_ok || s->count > s->limit || s->start > s->stamp || s->stamp > now_ns ||
            (i > 0 && s->stamp > r->filters[i - 1].stamp))
            return TDBF_ECORRUPT;
        s->log_miss = log_miss_of(r, s->count);
    }
    return TDBF_OK;
}

static int rotating_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    rotating h = {0};
    uint32_t n, k, count;
    uint64_t m, capacity, window_ns;
    tdbf_in_u32(in, &n);
    tdbf_in_u32(in, &k);
    tdbf_in_u32(in, &h.max_filters);
    tdbf_in_u32(in, &count);
    tdbf_in_u64(in, &m);
    tdbf_in_u64(in, &capacity);
    tdbf_in_u64(in, &window_ns);
    tdbf_in_u64(in, &h.rotations);
    tdbf_in_u64(in, &h.cap_hits);
    if (tdbf_in_u64(in, &h.max_memory) != TDBF_OK)
        return in->rc;
    if (n < 1 || n > ROTATING_MAX_N || k < 1 || k > TDBF_MAX_K || m < 64 ||
        m > (UINT64_C(1) << 52) || m % 64 != 0 || capacity == 0 || h.max_memory == 0)
        return TDBF_ECORRUPT;
    set_shape(&h, n, k, m, capacity, window_ns);
    int rc = check_ring(&h, count);
    if (rc != TDBF_OK)
        return rc;
    /* count <= 4096 and words <= 2^46: no overflow */
    if (in->remaining != (uint64_t)count * (ROTATING_RECORD_BYTES + h.words * 8))
        return TDBF_ECORRUPT;
    if (!tdbf_fits(ring_bytes(f, count, h.words, h.max_filters), max_memory))
        return TDBF_ETOOBIG;

    rotating *r = tdbf_mem_calloc(f, 1, sizeof *r);
    if (!r)
        return TDBF_ENOMEM;
    *r = h;
    r->filters = tdbf_mem_calloc(f, r->max_filters, sizeof *r->filters);
    rc = r->filters ? load_records(in, r, count, f->now_ns) : TDBF_ENOMEM;
    /* r->count: the filters with bits, which free_filters releases */
    while (rc == TDBF_OK && r->count < count) {
        subfilter *s = &r->filters[r->count];
        s->bits = tdbf_mem_calloc_aligned(f, filter_bytes(r));
        if (!s->bits) {
            rc = TDBF_ENOMEM;
            break;
        }
        r->count++;
        rc = tdbf_in_words(in, s->bits, r->words);
    }
    if (rc != TDBF_OK) {
        free_filters(f, r);
        return rc;
    }
    f->state.impl = r;
    return TDBF_OK;
}

/* N, filters per window: a key lingers one more filter's share. */
static uint64_t rotating_slack_step(const tdbf *f, const tdbf_config *cfg)
{
    if (f) {
        const rotating *r = f->state.impl;
        return r->n;
    }
    tdbf_clock_rotating_plan plan;
    return tdbf_rotating_plan(cfg, &plan) == TDBF_OK ? plan.resolution : 0;
}

const tdbf_ops tdbf_rotating_ops = {
    .plan = rotating_plan,
    .open = rotating_open,
    .close = rotating_close,
    .add = rotating_add,
    .contains = rotating_contains,
    .advance = rotating_advance,
    .stats = rotating_stats,
    .shape = rotating_shape,
    .prefetch = rotating_prefetch,
    .current_error = rotating_current_error,
    .payload_size = rotating_payload_size,
    .save = rotating_save,
    .load = rotating_load,
    .slack_step = rotating_slack_step,
};
