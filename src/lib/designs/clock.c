/*
 * clock.c — the continuous clock-cell filter, time window.
 *
 * Paper 000 ("Continuous Filter"), generalised from 4-bit cells to 2, 4
 * or 8, with the aliasing hole of its design closed by a sweep.
 *
 * Model.  m cells of c bits (cfg.cell_bits, default 4).  Time is cut into
 * ticks of L = ceil(T/d) ns (d = cfg.resolution, default 2: the paper's
 * "resolution divisor"); the tick of a time t is floor(t / L) on the
 * caller's own scale.  A round-robin clock of P = 2^c - 1 positions names
 * the current tick: value (tick mod P) + 1, so 0 stays free for "unset".
 * An insert writes the current value into its k cells (indices by the
 * shared double hashing, hash.h).  A cell's age is the number of ticks
 * since it was written; a key is present iff all its k cells are set and
 * no older than d ticks.
 *
 *     one 64-bit word of cells (c = 4: 16 cells; c = 2: 32; c = 8: 8)
 *     bit 63                                                   bit 0
 *     +------+------+------+--- ... ---+------+------+------+
 *     | c_15 | c_14 | c_13 |           | c_2  | c_1  | c_0  |
 *     +------+------+------+--- ... ---+------+------+------+
 *     cell i lives in word i/16 at bits 4(i mod 16) .. 4(i mod 16)+3;
 *     0 = unset, 1..15 = (tick mod 15) + 1 of its latest write
 *
 *     ticks of L ns:  ... | tau0 | tau0+1 | tau0+2 | tau0+3 | ...   (d = 2)
 *     a key added in tau0:  live ---------------->| expired
 *
 * Window and expiry bound.  A key added at t0 (tick tau0) is present
 * while the current tick is <= tau0 + d, i.e. while now < (tau0+d+1)·L.
 * If now - t0 < T <= d·L then floor(now/L) - tau0 <= d: no false negative
 * inside the window.  It disappears (is reported only at the FP rate) as
 * soon as now >= (tau0 + d + 1)·L, so its lifetime is
 *
 *     T <= d·L  <=  lifetime = (tau0 + d + 1)·L - t0  <=  (d+1)·L
 *
 * — up to (d+1)/d·T (plus d+1 ns of rounding when d does not divide T):
 * 1.5 T at the default d = 2.  A larger d tightens the bound but leaves
 * fewer positions for the sweep (below), and 2-bit cells allow only d = 1.
 *
 * The aliasing hole, and the sweep that closes it.  The clock has only P
 * positions: a cell written at tau0 and never touched again reads as
 * "age 0" once more at tau0 + P, and the paper only resets expired cells
 * when a lookup happens to read them.  An idle key would come back to life
 * every P ticks.  tdbf clears stale cells with a sweep that visits every
 * word of cells once per S = P - 1 - d ticks, ceil(words / S) words per
 * tick: one word per add as it goes, the rest of a tick's share when the
 * next tick begins (in add or tdbf_advance).  A tick's share is swept at
 * that tick or, if no call came during it, at the first later tick that
 * add or advance processes, judging ages as of that later tick.
 * Invariant: at every tick tau_s that add or advance processes, every set
 * cell is at most P - 1 ticks old, so its age (tau_s mod P - value + 1)
 * mod P is exact.  Proof: a word swept at tick rho (in the share due at
 * sigma <= rho) keeps only cells of age <= d at rho; its next share is
 * due at sigma + S <= rho + S and is swept at the first processed tick at
 * or after that; at any processed tick before it, its cells are younger
 * than d + S = P - 1 ticks.  When time jumps by G ticks at once, the G
 * shares are done together; if G > d every cell is stale (nothing was
 * written since tau_s) and the whole array is cleared in one O(m) memset;
 * if G·share covers the array, one full pass of O(m).  A long idle gap
 * therefore costs one pass, and nothing aliases, however long it was.
 * At a steady rate one word per add covers the share (at the defaults the
 * share is about 0.075 C words per tick, the adds C/2), so no tick
 * boundary pays more than the leftover.
 *
 * Queries never write.  A query at tick tau >= tau_s computes a cell's age
 * as (tau - tau_s) + its exact age at tau_s, so it needs no sweep to have
 * run: after G > d idle ticks it answers "absent" for every key without
 * reading a cell.  (The paper's lookup reset cells; here add/advance do.)
 *
 * False positives.  A never-inserted key matches when its k cells are all
 * live.  Live cells hold the inserts of the current tick and the d before
 * it: at a steady C keys per window T, up to n = C·(d+1)·L/T ~ C(d+1)/d
 * keys, hence (sizing.c)
 *
 *     FP = (1 - (1 - 1/m)^(k n))^k,   m = least cells with FP <= error,
 *
 * over k = 1..64 (the usual k ~ log2(1/error)).  C is cfg.capacity
 * (expected keys per window; default 1024).  At a higher rate FP rises
 * (memory is fixed), never a false negative.  Memory is m·c bits: for
 * error 0.01 and d = 2, 1.5 x 9.59 cells per key x 4 bits = 57.6 bits
 * per key of the window.  Re-adding a key rewrites its cells: its age
 * restarts.
 *
 * Measured (tests/unit/test_clock.c, T = 60 s, C = 60 000, error 0.01,
 * c = 4, d = 2): k = 7, 863 376 cells, 57.6 bits per key of the window;
 * FP at the end of a tick 0.00996 over 10^6 probes against the analytic
 * 0.01000 and the live-cell estimate 0.00997.  8-bit cells, d = 4, error
 * 0.001: 0.00096 vs 0.00100; 2-bit cells, d = 1, error 0.05: 0.0498 vs
 * 0.0500 (25 bits per key).
 *
 * Current error (tdbf_current_error).  The same formula with n = the adds
 * of the live ticks, counted in a ring of d+1 counters (tick t in slot
 * t mod (d+1)): add bumps its tick's, a new tick clears the slots of the
 * ticks it skipped (all of them after a gap > d), and a query at tick tau
 * sums the slots of tau_s back to tau - d.  O(d), no cell read: cheap
 * enough to refuse adds to an overloaded filter.  Re-adds count again (an
 * upper bound).  The ring is not saved (the format predates it): load
 * infers it from the cells it reads anyway.  The cells of age <= j are
 * those written by the adds of the j+1 newest ticks, n_j of them, so
 * live_j / m ~ 1 - (1 - 1/m)^(k n_j) inverts to n_j, and tick tau_s - j
 * gets n_j - n_{j-1}: the estimate after a load falls tick by tick as the
 * original's would.
 *
 * stats: slices = 1, slice_bits = m·c, generations = ticks since the first
 * add, bits_per_item = memory bits / C, error_estimated = (live cells /
 * m)^k at the filter's latest time.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "util/bits.h"
#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"
#include "model/planning.h"

typedef struct clockf {
    unsigned  k;            /* cells per key */
    unsigned  cell_bits;    /* c: 2, 4 or 8 */
    unsigned  cell_mask;    /* 2^c - 1: the value mask, also P */
    unsigned  per_word_log2;/* log2(64 / c) */
    unsigned  resolution;   /* d: ticks per window; live = age <= d */
    unsigned  positions;    /* P = 2^c - 1 clock positions */
    unsigned  tick_mod;     /* tick mod P */
    unsigned  tick_slot;    /* tick mod (d+1): tau_s's slot in tick_adds */
    bool      started;      /* an add has happened */
    bool      dirty;        /* some cell may be set */
    uint64_t  m;            /* cells */
    uint64_t  words;        /* 64-bit words of cells */
    uint64_t  tick_ns;      /* L = ceil(T / d) */
    uint64_t  window_ns;    /* T */
    uint64_t  capacity;     /* C: keys per window the sizing assumed */
    uint64_t  tick;         /* tau_s: the latest tick add/advance processed */
    uint64_t  first_tick;   /* tick of the first add */
    uint64_t  sweep_share;  /* words per tick: ceil(words / S) */
    uint64_t  sweep_owed;   /* of this tick's share, words not yet swept */
    uint64_t  sweep_next;   /* next word the sweep visits */
    double    fp_planned;   /* FP with n = C (d+1) L / T keys live */
    uint64_t *cells;
    uint64_t *tick_adds;    /* d+1 slots: adds of tick t in t mod (d+1), for
                               the ticks tau_s - d .. tau_s (not saved) */
} clockf;

/* ---- cells ---------------------------------------------------------- */

static size_t cells_bytes(const clockf *c)
{
    return (size_t)c->words * sizeof(uint64_t);
}

static size_t tick_adds_bytes(unsigned d)
{
    return (size_t)(d + 1) * sizeof(uint64_t);
}

static inline uint64_t cell_of(const clockf *c, const tdbf_hash128 *h, unsigned j)
{
    return tdbf_reduce(tdbf_hash_nth(h, j), c->m);
}

static inline unsigned cell_shift(const clockf *c, uint64_t cell)
{
    uint64_t in_word = cell & ((UINT64_C(1) << c->per_word_log2) - 1);
    return (unsigned)in_word * c->cell_bits;
}

static inline unsigned cell_get(const clockf *c, uint64_t cell)
{
    uint64_t word = c->cells[cell >> c->per_word_log2];
    return (unsigned)(word >> cell_shift(c, cell)) & c->cell_mask;
}

static inline void cell_put(clockf *c, uint64_t cell, unsigned value)
{
    uint64_t *word = &c->cells[cell >> c->per_word_log2];
    unsigned shift = cell_shift(c, cell);
    *word = (*word & ~((uint64_t)c->cell_mask << shift)) | ((uint64_t)value << shift);
}

/* Ticks between the write of a set cell and tau_s: exact, because the
 * sweep keeps every set cell younger than P ticks (see the essay). */
static inline unsigned age_of(const clockf *c, unsigned value)
{
    unsigned back = c->tick_mod + 1 + c->positions - value;   /* 1 .. 2P-1 */
    return back >= c->positions ? back - c->positions : back;
}

/* ---- the sweep -------------------------------------------------------- */

/* Clear the cells of word w older than `limit` ticks (as of tau_s). */
static void sweep_word(clockf *c, uint64_t w, unsigned limit)
{
    uint64_t word = c->cells[w], keep = word;
    if (word == 0)
        return;
    for (unsigned shift = 0; shift < 64; shift += c->cell_bits) {
        unsigned value = (unsigned)(word >> shift) & c->cell_mask;
        if (value != 0 && age_of(c, value) > limit)
            keep &= ~((uint64_t)c->cell_mask << shift);
    }
    c->cells[w] = keep;
}

/* Visit the next `count` words (all of them, once, if count covers the
 * array), clearing cells older than `limit` ticks as of tau_s. */
static void sweep(clockf *c, uint64_t count, unsigned limit)
{
    if (count >= c->words) {
        for (uint64_t w = 0; w < c->words; w++)
            sweep_word(c, w, limit);
        return;
    }
    for (; count > 0; count--) {
        sweep_word(c, c->sweep_next, limit);
        c->sweep_next = c->sweep_next + 1 == c->words ? 0 : c->sweep_next + 1;
    }
}

/* Make `tick` the processed tick: do the sweep shares of the ticks that
 * passed, judging ages as of `tick` (gap + age at tau_s). */
static void move_to_tick(clockf *c, uint64_t tick)
{
    if (c->started && tick == c->tick)
        return;
    if (!c->started) {
        c->started = true;
        c->first_tick = tick;
    } else {
        uint64_t gap = tick - c->tick;
        if (gap > c->resolution) {
            /* Nothing was written after tau_s: every cell is stale. */
            if (c->dirty)
                memset(c->cells, 0, cells_bytes(c));
            c->dirty = false;
            memset(c->tick_adds, 0, tick_adds_bytes(c->resolution));
        } else {
            sweep(c, c->sweep_owed + (gap - 1) * c->sweep_share,
                  c->resolution - (unsigned)gap);
            for (uint64_t skipped = c->tick + 1; skipped <= tick; skipped++)
                c->tick_adds[skipped % (c->resolution + 1)] = 0;
        }
    }
    c->tick = tick;
    c->tick_mod = (unsigned)(tick % c->positions);
    c->tick_slot = (unsigned)(tick % (c->resolution + 1));
    c->sweep_owed = c->sweep_share;
}

/* ---- queries ---------------------------------------------------------- */

/* All k cells set and at most d ticks old at `tick` (>= tau_s)? */
static int query(const clockf *c, const tdbf_hash128 *h, uint64_t tick)
{
    uint64_t gap = tick - c->tick;
    if (gap > c->resolution)
        return 0;
    unsigned limit = c->resolution - (unsigned)gap;
    for (unsigned j = 0; j < c->k; j++) {
        unsigned value = cell_get(c, cell_of(c, h, j));
        if (value == 0 || age_of(c, value) > limit)
            return 0;
    }
    return 1;
}

/* ---- operations ------------------------------------------------------- */

static int clock_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    clockf *c = f->state.impl;
    uint64_t tick = now_ns / c->tick_ns;
    int present = query(c, &key->hash, tick);
    move_to_tick(c, tick);
    unsigned value = c->tick_mod + 1;
    for (unsigned j = 0; j < c->k; j++)
        cell_put(c, cell_of(c, &key->hash, j), value);
    c->dirty = true;
    c->tick_adds[c->tick_slot]++;
    if (c->sweep_owed) {
        sweep(c, 1, c->resolution);
        c->sweep_owed--;
    }
    return present;
}

static int clock_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    const clockf *c = f->state.impl;
    return query(c, &key->hash, now_ns / c->tick_ns);
}

static int clock_advance(tdbf *f, uint64_t now_ns)
{
    clockf *c = f->state.impl;
    if (c->started)
        move_to_tick(c, now_ns / c->tick_ns);
    return TDBF_OK;
}

/* Adds of the ticks live at now_ns's tick tau (>= tau_s): tau_s back to
 * tau - d; none once tau - tau_s > d. */
static double clock_current_error(const tdbf *f, uint64_t now_ns)
{
    const clockf *c = f->state.impl;
    uint64_t gap = now_ns / c->tick_ns - c->tick, adds = 0;
    if (gap > c->resolution)
        return 0.0;
    unsigned slot = c->tick_slot;
    for (uint64_t back = gap; back <= c->resolution; back++) {
        adds += c->tick_adds[slot];
        slot = slot ? slot - 1 : c->resolution;
    }
    return tdbf_bloom_fp((double)adds, c->m, c->k);
}

static void clock_prefetch(const tdbf *f, const tdbf_key *key, int for_add)
{
    const clockf *c = f->state.impl;
    for (unsigned j = 0; j < c->k; j++)
        tdbf_prefetch(&c->cells[cell_of(c, &key->hash, j) >> c->per_word_log2], for_add);
}

/* ---- open, close, stats ----------------------------------------------- */

/* CLOCK_MAX_TICKS: d + 1 <= P - 1 = 254 ticks live at once (8-bit cells). */
enum { CLOCK_DEFAULT_BITS = 4, CLOCK_DEFAULT_CAPACITY = 1024, CLOCK_MAX_TICKS = 254 };

/* 2, 4 or 8-bit cells: 32, 16 or 8 to a word. */
static unsigned per_word_log2_of(unsigned bits)
{
    return bits == 2 ? 5 : bits == 4 ? 4 : 3;
}

/* L = ceil(T / d). */
static uint64_t tick_length(uint64_t window_ns, unsigned d)
{
    return window_ns / d + (window_ns % d != 0);
}

/* Keys live at C keys per window: C (d+1) L / T (see the essay). */
static double live_keys(uint64_t capacity, unsigned d, uint64_t tick_ns, uint64_t window_ns)
{
    return (double)capacity * (double)(d + 1) * (double)tick_ns / (double)window_ns;
}

/* Everything open derives, from the parameters a saved filter keeps too
 * (k, c, d, words, T, C); the clock state stays as it is. */
static void set_shape(clockf *c, unsigned k, unsigned bits, unsigned d, uint64_t words,
                      uint64_t window_ns, uint64_t capacity)
{
    unsigned positions = (1u << bits) - 1;
    unsigned sweep_ticks = positions - 1 - d;
    c->k = k;
    c->cell_bits = bits;
    c->cell_mask = positions;
    c->per_word_log2 = per_word_log2_of(bits);
    c->resolution = d;
    c->positions = positions;
    c->m = words << c->per_word_log2;
    c->words = words;
    c->tick_ns = tick_length(window_ns, d);
    c->window_ns = window_ns;
    c->capacity = capacity;
    c->sweep_share = words / sweep_ticks + (words % sweep_ticks != 0);
    c->fp_planned = tdbf_bloom_fp(live_keys(capacity, d, c->tick_ns, window_ns), c->m, k);
}

/* The memory load checks against the cap (open: tdbf_clock_plan). */
static double clock_bytes(const tdbf *f, uint64_t words, unsigned d)
{
    /* 128: the aligned allocation's own overhead (alloc.c), at most. */
    return (double)f->state.memory_bytes + (double)words * 8.0 + 128.0 + sizeof(clockf)
         + (double)tick_adds_bytes(d);
}

/* The sizing open does, and tdbf_plan_clock_rotating reports: c, d and C from
 * the configuration, then the least whole words of cells whose FP at
 * n = C(d+1)L/T live keys meets the error (sizing.c).  cfg.max_memory
 * must not be 0. */
int tdbf_clock_plan(const tdbf_config *cfg, tdbf_clock_rotating_plan *out)
{
    if (cfg->window_ns == 0 || cfg->window_items != 0)
        return TDBF_EWINDOW;
    unsigned bits = cfg->cell_bits ? cfg->cell_bits : CLOCK_DEFAULT_BITS;
    if (bits != 2 && bits != 4 && bits != 8)
        return TDBF_EPARAM;
    unsigned positions = (1u << bits) - 1;
    unsigned d = cfg->resolution ? cfg->resolution : bits == 2 ? 1 : 2;
    /* The sweep needs S = P - 1 - d >= 1 ticks per lap. */
    if (cfg->l != 0 || d + 2 > positions)
        return TDBF_EPARAM;
    uint64_t capacity = cfg->capacity ? cfg->capacity : CLOCK_DEFAULT_CAPACITY;
    double live = live_keys(capacity, d, tick_length(cfg->window_ns, d), cfg->window_ns);
    tdbf_bloom_shape shape;
    int rc = tdbf_bloom_size(live, cfg->error, cfg->k, &shape);
    if (rc != TDBF_OK)
        return rc;
    /* Whole words: the cells of the last word are free, so use them. */
    unsigned per_word_log2 = per_word_log2_of(bits);
    uint64_t words = (shape.m >> per_word_log2) + ((shape.m & ((UINT64_C(1) << per_word_log2) - 1)) != 0);
    uint64_t memory = sizeof(tdbf) + sizeof(clockf) + words * 8 + TDBF_ALIGNED_OVERHEAD
                    + tick_adds_bytes(d);
    if (!tdbf_fits((double)memory, cfg->max_memory))
        return TDBF_ETOOBIG;
    memset(out, 0, sizeof *out);
    out->design = TDBF_CLOCK;
    out->k = shape.k;
    out->filters = 1;
    out->cell_bits = bits;
    out->resolution = d;
    out->cells = words << per_word_log2;
    out->capacity = capacity;
    out->bits = out->cells * bits;
    out->memory_bytes = memory;
    out->bits_per_item = 8.0 * (double)memory / (double)capacity;
    /* as set_shape computes it */
    out->fp = tdbf_bloom_fp(live, out->cells, shape.k);
    return TDBF_OK;
}

static int clock_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_clock_rotating_plan plan;
    int rc = tdbf_clock_plan(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    out->k = plan.k;
    out->window_ns = cfg->window_ns;
    out->error_planned = plan.fp;
    out->memory_bytes = plan.memory_bytes;
    return TDBF_OK;
}

static void clock_close(tdbf *f)
{
    clockf *c = f->state.impl;
    tdbf_mem_free(f, c->tick_adds, tick_adds_bytes(c->resolution));
    tdbf_mem_free_aligned(f, c->cells, cells_bytes(c));
    tdbf_mem_free(f, c, sizeof *c);
}

static int clock_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_clock_rotating_plan plan;
    int rc = tdbf_clock_plan(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    uint64_t words = plan.cells >> per_word_log2_of(plan.cell_bits);

    clockf *c = tdbf_mem_calloc(f, 1, sizeof *c);
    if (!c)
        return TDBF_ENOMEM;
    set_shape(c, plan.k, plan.cell_bits, plan.resolution, words, cfg->window_ns,
              plan.capacity);
    c->cells = tdbf_mem_calloc_aligned(f, cells_bytes(c));
    c->tick_adds = tdbf_mem_calloc(f, 1, tick_adds_bytes(c->resolution));
    f->state.impl = c;
    if (!c->cells || !c->tick_adds) {
        clock_close(f);
        return TDBF_ENOMEM;
    }
    return TDBF_OK;
}

/* Cells a query at `tick` counts as live. */
static uint64_t live_cells(const clockf *c, uint64_t tick)
{
    uint64_t gap = tick - c->tick, live = 0;
    if (gap > c->resolution)
        return 0;
    unsigned limit = c->resolution - (unsigned)gap;
    for (uint64_t cell = 0; cell < c->m; cell++) {
        unsigned value = cell_get(c, cell);
        live += value != 0 && age_of(c, value) <= limit;
    }
    return live;
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void clock_shape(const tdbf *f, tdbf_shape *out)
{
    const clockf *c = f->state.impl;
    out->k = c->k;
    out->window_ns = c->window_ns;
    out->error_planned = c->fp_planned;
}

static void clock_stats(const tdbf *f, tdbf_stats *st)
{
    const clockf *c = f->state.impl;
    double live = (double)live_cells(c, f->now_ns / c->tick_ns) / (double)c->m;
    st->slices = 1;
    st->slice_bits = c->m * c->cell_bits;
    st->generations = c->started ? c->tick - c->first_tick : 0;
    st->error_estimated = pow(live, (double)c->k);
    st->bits_per_item = 8.0 * (double)f->state.memory_bytes / (double)c->capacity;
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 k, u32 c (cell bits), u32 d, u32 started, u32 dirty, u32 0,
 * u64 words, u64 T, u64 C, u64 tick tau_s, u64 first tick, u64 sweep
 * owed, u64 sweep next; then the cell words.  L, P, m, the clock position
 * (tau_s mod P), the sweep share and the planned FP follow from these. */

enum { CLOCK_FIELDS_BYTES = 80 };

static uint64_t clock_payload_size(const tdbf *f)
{
    return CLOCK_FIELDS_BYTES + cells_bytes(f->state.impl);
}

static void clock_save(const tdbf *f, tdbf_out *out)
{
    const clockf *c = f->state.impl;
    tdbf_out_u32(out, c->k);
    tdbf_out_u32(out, c->cell_bits);
    tdbf_out_u32(out, c->resolution);
    tdbf_out_u32(out, c->started);
    tdbf_out_u32(out, c->dirty);
    tdbf_out_u32(out, 0);
    tdbf_out_u64(out, c->words);
    tdbf_out_u64(out, c->window_ns);
    tdbf_out_u64(out, c->capacity);
    tdbf_out_u64(out, c->tick);
    tdbf_out_u64(out, c->first_tick);
    tdbf_out_u64(out, c->sweep_owed);
    tdbf_out_u64(out, c->sweep_next);
    tdbf_out_words(out, c->cells, c->words);
}

/* Cells are only ever set by an add, which marks the filter dirty, and
 * only a whole-array clear makes it clean again. */
static bool clean_cells_zero(const void *state)
{
    const clockf *c = state;
    if (c->dirty)
        return true;
    for (uint64_t w = 0; w < c->words; w++)
        if (c->cells[w] != 0)
            return false;
    return true;
}

/* The clock fields: an unstarted filter is as open left it; a started
 * one's ticks run from its first add to at most the tick of `now`. */
static int check_clock(const clockf *h, uint32_t started, uint32_t dirty, uint64_t now_ns)
{
    if (started > 1 || dirty > 1 || h->sweep_owed > h->sweep_share ||
        h->sweep_next >= h->words)
        return TDBF_ECORRUPT;
    if (!started)
        return dirty || h->tick || h->first_tick || h->sweep_owed || h->sweep_next
                   ? TDBF_ECORRUPT : TDBF_OK;
    return h->first_tick <= h->tick && h->tick <= now_ns / h->tick_ns ? TDBF_OK
                                                                      : TDBF_ECORRUPT;
}

/* The adds per live tick, which the format does not keep, from the cells
 * (see the essay): live_j cells of age <= j hold the n_j adds of ticks
 * tau_s - j .. tau_s, live_j / m = 1 - (1 - 1/m)^(k n_j). */
static void infer_tick_adds(clockf *c)
{
    unsigned d = c->resolution;
    uint64_t by_age[CLOCK_MAX_TICKS] = {0};   /* live cells per age */
    for (uint64_t w = 0; w < c->words; w++) {
        uint64_t word = c->cells[w];
        for (; word != 0; word >>= c->cell_bits) {
            unsigned value = (unsigned)word & c->cell_mask, age = age_of(c, value);
            if (value != 0 && age <= d)
                by_age[age]++;
        }
    }
    double m = (double)c->m, per_add = (double)c->k * log1p(-1.0 / m);
    uint64_t live = 0, before = 0;
    for (unsigned age = 0; age <= d; age++) {
        live += by_age[age];
        /* all m live: as if half a cell were still free */
        double free_share = live < c->m ? 1.0 - (double)live / m : 0.5 / m;
        uint64_t adds = (uint64_t)llround(log(free_share) / per_add);
        /* tick tau_s - age */
        c->tick_adds[(c->tick_slot + d + 1 - age) % (d + 1)] = adds - before;
        before = adds;
    }
}

static int clock_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    clockf h = {0};
    uint32_t k, bits, d, started, dirty, reserved;
    uint64_t words, window_ns, capacity;
    tdbf_in_u32(in, &k);
    tdbf_in_u32(in, &bits);
    tdbf_in_u32(in, &d);
    tdbf_in_u32(in, &started);
    tdbf_in_u32(in, &dirty);
    tdbf_in_u32(in, &reserved);
    tdbf_in_u64(in, &words);
    tdbf_in_u64(in, &window_ns);
    tdbf_in_u64(in, &capacity);
    tdbf_in_u64(in, &h.tick);
    tdbf_in_u64(in, &h.first_tick);
    tdbf_in_u64(in, &h.sweep_owed);
    if (tdbf_in_u64(in, &h.sweep_next) != TDBF_OK)
        return in->rc;
    /* As open allows: c in {2, 4, 8}, 1 <= d <= P - 2, at most 2^52 cells. */
    if (k < 1 || k > TDBF_MAX_K || (bits != 2 && bits != 4 && bits != 8) || d < 1 ||
        d > (1u << bits) - 3 || reserved != 0 || words < 1 ||
        words > (UINT64_C(1) << 52) >> per_word_log2_of(bits) || window_ns == 0 ||
        capacity == 0)
        return TDBF_ECORRUPT;
    set_shape(&h, k, bits, d, words, window_ns, capacity);
    int rc = check_clock(&h, started, dirty, f->now_ns);
    if (rc != TDBF_OK)
        return rc;
    h.started = started;
    h.dirty = dirty;
    h.tick_mod = (unsigned)(h.tick % h.positions);
    h.tick_slot = (unsigned)(h.tick % (d + 1));
    if (in->remaining != words * 8)
        return TDBF_ECORRUPT;
    if (!tdbf_fits(clock_bytes(f, words, d), max_memory))
        return TDBF_ETOOBIG;
    rc = tdbf_load_state(f, in, &h, sizeof h, offsetof(clockf, cells), words,
                         clean_cells_zero);
    if (rc != TDBF_OK)
        return rc;
    clockf *c = f->state.impl;
    c->tick_adds = tdbf_mem_calloc(f, 1, tick_adds_bytes(c->resolution));
    if (!c->tick_adds) {
        clock_close(f);
        return TDBF_ENOMEM;
    }
    if (c->dirty)
        infer_tick_adds(c);
    return TDBF_OK;
}

/* d, ticks per window: a key lives up to (d+1)/d T (the essay). */
static uint64_t clock_slack_step(const tdbf *f, const tdbf_config *cfg)
{
    if (f) {
        const clockf *c = f->state.impl;
        return c->resolution;
    }
    tdbf_clock_rotating_plan plan;
    return tdbf_clock_plan(cfg, &plan) == TDBF_OK ? plan.resolution : 0;
}

const tdbf_ops tdbf_clock_ops = {
    .plan = clock_plan,
    .open = clock_open,
    .close = clock_close,
    .add = clock_add,
    .contains = clock_contains,
    .advance = clock_advance,
    .stats = clock_stats,
    .shape = clock_shape,
    .prefetch = clock_prefetch,
    .current_error = clock_current_error,
    .payload_size = clock_payload_size,
    .save = clock_save,
    .load = clock_load,
    .slack_step = clock_slack_step,
};
