/*
 * internal.h — what the designs share (private to libtdbf).
 *
 * A filter is a generic shell (struct tdbf: allocator, seed, clock, counts)
 * around one design's state (impl), reached through a per-design table of
 * operations (tdbf_ops).  filter.c owns the shell: it validates arguments,
 * hashes the key once, clamps time, and dispatches.  A design file never
 * sees a NULL filter or a backwards clock.
 */
#ifndef TDBF_INTERNAL_H
#define TDBF_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tdbf.h"
#include "core/hash.h"

/* A key as the designs see it: its bytes and its one hash. */
typedef struct tdbf_key {
    const void  *bytes;
    size_t       len;
    tdbf_hash128 hash;
} tdbf_key;

/* ---- serialization streams (codec.c) ----
 * A writer or reader of the little-endian format, checksumming as it goes.
 * Errors are sticky: after the first, calls do nothing and rc keeps it. */
typedef struct tdbf_out {
    tdbf_write_fn write;
    void         *ctx;
    tdbf_checksum sum;
    int           rc;
} tdbf_out;

typedef struct tdbf_in {
    tdbf_read_fn  read;
    void         *ctx;
    tdbf_checksum sum;
    uint64_t      remaining;  /* bytes the current section may still hold */
    int           rc;
} tdbf_in;

void tdbf_out_bytes(tdbf_out *out, const void *buf, size_t len);
void tdbf_out_u32(tdbf_out *out, uint32_t v);
void tdbf_out_u64(tdbf_out *out, uint64_t v);
void tdbf_out_f64(tdbf_out *out, double v);
void tdbf_out_words(tdbf_out *out, const uint64_t *words, uint64_t n);
/* Readers return TDBF_OK or the (sticky) error: TDBF_ECORRUPT for input
 * that ends early or overruns its declared section. */
int tdbf_in_bytes(tdbf_in *in, void *buf, size_t len);
int tdbf_in_u32(tdbf_in *in, uint32_t *v);
int tdbf_in_u64(tdbf_in *in, uint64_t *v);
int tdbf_in_f64(tdbf_in *in, double *v);
int tdbf_in_words(tdbf_in *in, uint64_t *words, uint64_t n);
/* The bits past `bits` in the last of the words must be zero. */
bool tdbf_tail_clear(const uint64_t *words, uint64_t bits);
/* The end of a loader whose state is one struct plus one array of words
 * (calloc'd struct, 64-byte-aligned array, as open allocates them): a new
 * `size`-byte copy of *fields whose `uint64_t *` member at offset `member`
 * points to a new array of `words` words read from `in`; then `check`, if
 * not NULL, vets the whole state (tail bits).  Sets f->impl on success;
 * on failure (TDBF_ENOMEM, the read's error, or TDBF_ECORRUPT from the
 * check) nothing is left allocated.  Call it once every field is checked
 * and the memory cap allows the allocation. */
int tdbf_load_state(tdbf *f, tdbf_in *in, const void *fields, size_t size,
                    size_t member, uint64_t words, bool (*check)(const void *state));
/* The same for one part of a design's state (a ring of several): the new
 * state in *out instead of f->impl. */
int tdbf_load_part(tdbf *f, tdbf_in *in, const void *fields, size_t size, size_t member,
                   uint64_t words, bool (*check)(const void *state), void **out);

/* What an inferential query answers (infer.c). */
typedef struct tdbf_inference {
    double p_in_window;   /* P(I_x < w | R_x), in [0, 1] */
    double expected_age;  /* E[I_x | R_x], insertions */
} tdbf_inference;

/* What a key's timer cells show, for the (B)TBF inference (infer.c,
 * paper 002 section 4; tbf.c fills it). */
typedef struct tdbf_timer_view {
    uint64_t window;      /* w */
    uint64_t block;       /* B (1 for the TBF) */
    uint64_t block_fill;  /* b, 0 .. B-1 */
    uint64_t live_age;    /* ceil((w - b)/B): the oldest age in the window */
    uint64_t age;         /* lambda_x, the oldest age among the cells; when
                             `expired`, a lower bound on it */
    unsigned distinct;    /* r_x = |R_x| */
    unsigned oldest;      /* c_x: cells of age lambda_x (0 if all expired) */
    bool     expired;     /* some cell holds T_eps (lambda_x infinite) */
    double   log_untouched; /* k ln(1 - 1/m) */
} tdbf_timer_view;
/* The posterior (eqs 23, 26, 27) and E[I_x | R_x] (eq 8) of a view.
 * Returns TDBF_OK or TDBF_EINVAL (invalid prior). */
int tdbf_timer_infer(const tdbf_timer_view *view, const tdbf_prior *prior,
                     tdbf_inference *out);

/* The prior handling of infer.c, shared with infer_apbf.c.  p_x of the
 * queried key (given, or UNIFORM's 1/|U|): TDBF_OK or TDBF_EINVAL (invalid
 * prior). */
int tdbf_prior_key_probability(const tdbf_prior *prior, double *p);
/* D(from + len) - D(from) of a valid prior: the distinct keys among `len`
 * insertions that did not occur in the `from` before them. */
double tdbf_prior_fresh(const tdbf_prior *prior, double from, double len);
/* The mean of a geometric prior p (1 - p)^i over i >= a whose likelihood
 * is 1 on a .. a + len - 1 and rho after (infer.c's essay). */
double tdbf_geometric_age(double p, double a, double len, double rho);


typedef struct tdbf_ops {
    /* Size a checked cfg exactly as open does, without allocating: the
     * design's k, l, window_items or window_ns, error_planned, and
     * memory_bytes = what open allocates, shell included (at the planned
     * rate, for a design that grows).  open's errors, ETOOBIG included
     * (tdbf_plan_shape; the shell fills the other fields). */
    int  (*plan)(const tdbf_config *cfg, tdbf_shape *out);
    /* Plan, check cfg->max_memory, allocate, and store the state in f->impl. */
    int  (*open)(tdbf *f, const tdbf_config *cfg);
    void (*close)(tdbf *f);
    /* Test-and-insert; 1 = was present, 0 = new, < 0 error. */
    int  (*add)(tdbf *f, const tdbf_key *key, uint64_t now_ns);
    int  (*contains)(const tdbf *f, const tdbf_key *key, uint64_t now_ns);
    /* NULL when the design has nothing to expire by time. */
    int  (*advance)(tdbf *f, uint64_t now_ns);
    /* Fill the design's fields of *st (the shell fills the generic ones,
     * and those of `shape`). */
    void (*stats)(const tdbf *f, tdbf_stats *st);
    /* O(1), no allocation: the design's k, l, window_items, window_ns and
     * error_planned (tdbf_get_shape; tdbf_get_stats starts from it). */
    void (*shape)(const tdbf *f, tdbf_shape *out);
    /* Optional: start loading the memory an add (for_add = 1) or a query
     * of this key will touch.  The batch calls issue it a few keys ahead
     * of the one they process, so the loads overlap. */
    void (*prefetch)(const tdbf *f, const tdbf_key *key, int for_add);
    /* Optional: found[i] = contains(keys[i]) for i < n, exactly, with the
     * design's memory accesses overlapped (tdbf_find_run_batch); when
     * set, tdbf_contains_batch uses it. */
    void (*contains_many)(const tdbf *f, const tdbf_key *keys, size_t n,
                          uint64_t now_ns, uint8_t *found);
    /* Optional: present[i] = add(keys[i]) for i < n in order, exactly,
     * with the memory accesses overlapped (tdbf_add_many_slices); when
     * set, tdbf_add_batch uses it.  TDBF_OK, or the error the first add
     * would return, with nothing added (later adds cannot fail). */
    int (*add_many)(tdbf *f, const tdbf_key *keys, size_t n,
                    uint64_t now_ns, uint8_t *present);
    /* Serialization (codec.c), every design has it.  payload_size is the
     * exact byte count save writes; load reads the payload, validating
     * every field before it allocates or uses it, and sets f->impl. */
    uint64_t (*payload_size)(const tdbf *f);
    void (*save)(const tdbf *f, tdbf_out *out);
    int  (*load)(tdbf *f, tdbf_in *in, uint64_t max_memory);
    /* Inference (infer.c): the posterior P(I_x < w | R_x) and E[I_x | R_x]
     * of a key under *prior; NULL = TDBF_ENOTSUP.  Read-only. */
    int  (*infer)(const tdbf *f, const tdbf_key *key, uint64_t now_ns,
                  const tdbf_prior *prior, tdbf_inference *out);
    /* Optional: the FP rate of a query at now_ns (>= the filter's time)
     * from the insert counts the design keeps, in [0, 1]: O(1) or
     * O(slices), never a scan of the bits (tdbf_current_error).  NULL:
     * the shell answers f->error_planned.  Read-only. */
    double (*current_error)(const tdbf *f, uint64_t now_ns);
    /* true: add and contains may run concurrently from many threads (the
     * design's cells are atomics); the shell then counts adds and raises
     * its clock with atomic read-modify-writes.  (FPDECAY) */
    bool concurrent;
    /* true: the design has a concurrent mode, taken on request
     * (cfg.concurrent, load options): open and load find f->concurrent
     * set and choose it.  (APBF_LINE) */
    bool concurrent_on_request;
    /* Optional: adds since open, for a filter whose design counts them
     * itself (f->own_items set by its open or load): a concurrent design
     * with a ticket counter spares the shell a second shared counter per
     * add.  Needs the adds to have stopped, as stats and save do. */
    uint64_t (*items)(const tdbf *f);
} tdbf_ops;

struct tdbf {
    const tdbf_ops *ops;
    /* The single-key entry points, copied from ops by tdbf_shell_new so a
     * call loads one pointer, not two; a design's open or load may point
     * them at a variant specialised for its parameters (bloom.c: its k).
     * `concurrent` is ops->concurrent, for the same reason. */
    int  (*add)(tdbf *f, const tdbf_key *key, uint64_t now_ns);
    int  (*contains)(const tdbf *f, const tdbf_key *key, uint64_t now_ns);
    bool            concurrent;
    bool            own_items;  /* ops->items counts the adds, not `items` */
    tdbf_allocator  alloc;      /* copied at open: frees go back to it */
    tdbf_design     design;
    double          error;      /* cfg.error */
    uint64_t        seed;       /* never 0 */
    /* Atomic so that a `concurrent` design can take adds from many threads;
     * filter.c accesses them relaxed: plain loads and stores on the usual
     * targets, an atomic add and a compare-and-swap for concurrent designs. */
    _Atomic uint64_t items;     /* adds since open */
    _Atomic uint64_t now_ns;    /* largest time seen (clamp, never rewind) */
    uint64_t        memory_bytes; /* bytes allocated through alloc */
    /* stats.error_planned, for tdbf_current_error of the designs without
     * ops->current_error: their open and load set it (EXACT leaves 0). */
    double          error_planned;
    /* Batch calls hand whole chunks to ops->contains_many / add_many, and
     * single APBF adds and APBBF calls (many segments) ask for their
     * first reads ahead, only from this filter size up
     * (TDBF_WALK_MIN_BYTES; tests set 0). */
    uint64_t        walk_min_bytes;
    void           *impl;       /* the design's state */
    /* The configuration tdbf_open made it from, seed included, allocator
     * not (tdbf_clear opens it again); has_config is false for a filter
     * from tdbf_load. */
    tdbf_config     opened_with;
    bool            has_config;
};

/* Interleaved walks pay once a filter's lines miss the caches.  Measured
 * on the 2-core EPYC (L2 1 MiB, L3 32 MiB), batch vs single calls, ns:
 * at 2.5 MB the one-by-one loop wins (APBF add 130 vs 100, query 78 vs
 * 74), at 10 MB the walks do (APBF add 145 vs 293, query 90 vs 187;
 * APBBF-512 add 100 vs 191, query 78 vs 162). */
#define TDBF_WALK_MIN_BYTES (UINT64_C(4) << 20)

/* Per-design operation tables (filter.c indexes them by tdbf_design). */
/* Adds since open: the shell's count, or the design's own (ops->items). */
uint64_t tdbf_items(const tdbf *f);

extern const tdbf_ops tdbf_apbf_ops;
extern const tdbf_ops tdbf_apbbf_ops;
extern const tdbf_ops tdbf_tlbf_ops;
extern const tdbf_ops tdbf_clock_ops;
extern const tdbf_ops tdbf_rotating_ops;
extern const tdbf_ops tdbf_tbf_ops;
extern const tdbf_ops tdbf_btbf_ops;
extern const tdbf_ops tdbf_bloom_ops;
extern const tdbf_ops tdbf_exact_ops;
extern const tdbf_ops tdbf_fpdecay_ops;
extern const tdbf_ops tdbf_stable_ops;
extern const tdbf_ops tdbf_apbf_line_ops;
extern const tdbf_ops tdbf_tlbf_line_ops;

/* ---- the shell (filter.c) ---- */
/* The ops of an available design, else NULL. */
const tdbf_ops *tdbf_design_ops(tdbf_design design);
/* tdbf_open's generic checks of cfg (design, error, k/l range); on
 * success *local is cfg with defaults filled in (max_memory). */
int tdbf_config_check(const tdbf_config *cfg, tdbf_config *local);
/* A filter shell with no design state yet (impl NULL), or NULL. */
tdbf *tdbf_shell_new(const tdbf_allocator *alloc, tdbf_design design,
                     double error, uint64_t seed);
/* Free a shell whose design state is gone (or was never made). */
void tdbf_shell_free(tdbf *f);

/* ---- memory (alloc.c): everything goes through the filter's allocator,
 * and is counted in f->memory_bytes. ---- */
void *tdbf_mem_alloc(tdbf *f, size_t size);
void *tdbf_mem_calloc(tdbf *f, size_t count, size_t size);
void  tdbf_mem_free(tdbf *f, void *ptr, size_t size);
/* 64-byte aligned, zeroed (cache-line aligned bit arrays). */
void *tdbf_mem_calloc_aligned(tdbf *f, size_t size);
void  tdbf_mem_free_aligned(tdbf *f, void *ptr, size_t size);
/* The process default allocator (after tdbf_set_allocator). */
const tdbf_allocator *tdbf_default_allocator(void);

/* ---- bit arrays (bits.c): arrays of 64-bit words ---- */
static inline int tdbf_bit_get(const uint64_t *words, uint64_t bit)
{
    return (int)((words[bit >> 6] >> (bit & 63)) & 1u);
}
static inline void tdbf_bit_set(uint64_t *words, uint64_t bit)
{
    words[bit >> 6] |= UINT64_C(1) << (bit & 63);
}
static inline uint64_t tdbf_words_for_bits(uint64_t bits)
{
    return (bits + 63) / 64;
}

/* ---- packed cell arrays (bits.c): `count` cells of `bits` bits each
 * (1..64), back to back from bit 0 of word 0, so a cell may straddle two
 * words.  Cell i holds bits i*bits .. i*bits + bits - 1.  Created zeroed,
 * 64-byte aligned, through the filter's allocator. ---- */
typedef struct tdbf_cells {
    uint64_t *words;
    uint64_t  count;  /* cells */
    uint64_t  mask;   /* 2^bits - 1 */
    unsigned  bits;   /* bits per cell */
} tdbf_cells;
/* Bytes of the word array (a double, to check against the memory cap
 * before allocating). */
double tdbf_cells_bytes(uint64_t count, unsigned bits);
/* TDBF_OK, TDBF_EPARAM (bits not in 1..64, count 0 or above 2^52) or
 * TDBF_ENOMEM. */
int  tdbf_cells_open(tdbf *f, tdbf_cells *cells, uint64_t count, unsigned bits);
void tdbf_cells_close(tdbf *f, tdbf_cells *cells);
static inline uint64_t tdbf_cell_get(const tdbf_cells *c, uint64_t i)
{
    uint64_t bit = i * c->bits;
    uint64_t word = bit >> 6;
    unsigned shift = (unsigned)(bit & 63);
    uint64_t value = c->words[word] >> shift;
    if (shift + c->bits > 64)
        value |= c->words[word + 1] << (64 - shift);
    return value & c->mask;
}
static inline void tdbf_cell_set(tdbf_cells *c, uint64_t i, uint64_t value)
{
    uint64_t bit = i * c->bits;
    uint64_t word = bit >> 6;
    unsigned shift = (unsigned)(bit & 63);
    value &= c->mask;
    c->words[word] = (c->words[word] & ~(c->mask << shift)) | (value << shift);
    if (shift + c->bits > 64) {
        unsigned low = 64 - shift; /* bits that went into `word` */
        c->words[word + 1] = (c->words[word + 1] & ~(c->mask >> low)) | (value >> low);
    }
}
/* Ask for the cache line holding p (__builtin_prefetch wants a constant
 * read/write flag, hence the branch).
 *
 * A design's prefetch helpers must be TDBF_ALWAYS_INLINE all the way up to
 * its ops->prefetch callback: GCC treats __builtin_prefetch as having no
 * effect, so its IPA pure-const pass finds a separate helper that only
 * prefetches "const" and deletes every call to it.  That silently emptied
 * apbf_prefetch and apbbf_prefetch (batched calls ran no faster than
 * single ones); scripts/check-prefetch.sh, run by `make test`, now fails
 * the build when any *_prefetch callback has no prefetch instruction. */
#define TDBF_ALWAYS_INLINE __attribute__((always_inline)) inline
static TDBF_ALWAYS_INLINE void tdbf_prefetch(const void *p, int for_write)
{
    if (for_write)
        __builtin_prefetch(p, 1, 3);
    else
        __builtin_prefetch(p, 0, 3);
}

/* Number of set bits in words[0 .. nwords-1]. */
uint64_t tdbf_popcount(const uint64_t *words, uint64_t nwords);

/* ---- Algorithm 1 (paper 004, section 5.4), shared by APBF, APBBF, TLBF ----
 * Is there a run of k consecutive matching slices s_j .. s_{j+k-1} with
 * j <= start?  Start at s_start, count matches walking towards older
 * slices; on a miss jump k back keeping the count as the part already
 * matched beyond the jump; stop when the parts add up to k (yes) or the
 * index goes below 0 (no).  `has` tests logical slice i; it is a constant
 * in every caller, so after inlining the call is direct. */
typedef int (*tdbf_slice_test)(const void *state, unsigned slice, const tdbf_hash128 *h);

/* Algorithm 1 as a resumable walk: the state between two slice tests. */
typedef struct tdbf_run_walk {
    int i;            /* the slice to test next */
    int before_jump;  /* matches counted beyond the last jump */
    int run;          /* matches since the last jump */
} tdbf_run_walk;

/* Feed the walk whether slice w->i matched.  Returns 1 (found), 0 (the
 * index went below 0: absent) or -1 (test slice w->i next). */
static TDBF_ALWAYS_INLINE int tdbf_run_step(tdbf_run_walk *w, unsigned k, int match)
{
    if (!match) {
        w->before_jump = w->run;
        w->run = 0;
        w->i -= (int)k;
        return w->i >= 0 ? -1 : 0;
    }
    if (w->before_jump + ++w->run == (int)k)
        return 1;
    w->i++;
    return -1;
}

static TDBF_ALWAYS_INLINE int tdbf_find_run(const void *state, unsigned k, unsigned start,
                                            const tdbf_hash128 *h, tdbf_slice_test has)
{
    tdbf_run_walk w = { .i = (int)start };
    int found;
    do
        found = tdbf_run_step(&w, k, has(state, (unsigned)w.i, h));
    while (found < 0);
    return found;
}

/* Algorithm 1's first reads for one key, asked for together.  Which
 * slice a walk reads next depends on what it read, but its first few
 * candidates do not: s_start, then s_{start+1} (a match) or s_{start-k} (a
 * miss), and so on down the tree of outcomes.  A single call that
 * prefetches the lines of the first TDBF_RUN_AHEAD distinct slices of that
 * tree (breadth first) before testing has those reads in flight at once
 * instead of one after another.  With k = 1 the tree is a chain through
 * s_start .. s_0, every slice a query can read: APBBF's k = 1, l = 4
 * plans are covered whole.  The slices depend on (k, start) alone, so a
 * filter lists them once at open (tdbf_run_ahead_slices).  8: a negative
 * APBBF-512 query at w = 10^7 reads ~4.3 blocks, APBF's ~5.6 slices
 * (about 3 of them among its first 8). */
enum { TDBF_RUN_AHEAD = 8 };

/* The first up to TDBF_RUN_AHEAD distinct slices of Algorithm 1's tree of
 * outcomes from s_start, breadth first, into slices[]; returns how many. */
static inline unsigned tdbf_run_ahead_slices(unsigned k, unsigned start,
                                             uint16_t slices[TDBF_RUN_AHEAD])
{
    tdbf_run_walk queue[2 * TDBF_RUN_AHEAD];
    unsigned head = 0, tail = 0, count = 0;
    queue[tail++] = (tdbf_run_walk){ .i = (int)start };
    while (head < tail && count < TDBF_RUN_AHEAD) {
        tdbf_run_walk w = queue[head++];
        bool seen = false;
        for (unsigned j = 0; j < count; j++)
            seen |= slices[j] == (unsigned)w.i;
        if (!seen)
            slices[count++] = (uint16_t)w.i;
        for (int match = 1; match >= 0; match--) {
            tdbf_run_walk next = w;
            if (tdbf_run_step(&next, k, match) < 0 && tail < 2 * TDBF_RUN_AHEAD)
                queue[tail++] = next;
        }
    }
    return count;
}

/* Prefetch the lines of slices[0 .. count-1] of the key (always inline:
 * a helper that only prefetches is deleted by GCC, see tdbf_prefetch). */
static TDBF_ALWAYS_INLINE void tdbf_run_ahead(
    const void *state, const uint16_t *slices, unsigned count, const tdbf_hash128 *h,
    const void *(*line)(const void *state, unsigned slice, const tdbf_hash128 *h))
{
    for (unsigned j = 0; j < count; j++)
        tdbf_prefetch(line(state, slices[j], h), 0);
}

/* Algorithm 1 for n keys at once, exactly tdbf_find_run per key.  Which
 * slices a query reads depends on what it has read, so no fixed set of
 * prefetches covers its path (a present key walks up its run; APBF's
 * slices match half the time).  Instead TDBF_WALK_LANES walks advance in
 * turn, one slice test each (32 lanes: 16 gave 150 ns per APBF query at
 * w = 2e7, 32 gave 104): a lane prefetches the line of its next
 * slice and yields, and by the time its turn comes back the line has
 * arrived.  So ~TDBF_WALK_LANES misses are in flight, on exactly the
 * lines the queries read.  `line` returns the address `has` will read. */
typedef const void *(*tdbf_slice_line)(const void *state, unsigned slice,
                                       const tdbf_hash128 *h);
enum { TDBF_WALK_LANES = 32 };

static TDBF_ALWAYS_INLINE void tdbf_find_run_batch(
    const void *state, unsigned k, unsigned start, const tdbf_key *keys,
    size_t n, tdbf_slice_test has, tdbf_slice_line line, uint8_t *found)
{
    tdbf_run_walk walk[TDBF_WALK_LANES];
    size_t key[TDBF_WALK_LANES], lanes = 0, next = 0;
    for (; lanes < TDBF_WALK_LANES && next < n; lanes++, next++) {
        walk[lanes] = (tdbf_run_walk){ .i = (int)start };
        key[lanes] = next;
        tdbf_prefetch(line(state, start, &keys[next].hash), 0);
    }
    while (lanes > 0) {
        for (size_t j = 0; j < lanes;) {
            const tdbf_hash128 *h = &keys[key[j]].hash;
            int r = tdbf_run_step(&walk[j], k, has(state, (unsigned)walk[j].i, h));
            if (r < 0) {
                tdbf_prefetch(line(state, (unsigned)walk[j].i, h), 0);
                j++;
                continue;
            }
            found[key[j]] = (uint8_t)r;
            if (next < n) { /* the lane takes the next key */
                walk[j] = (tdbf_run_walk){ .i = (int)start };
                key[j] = next;
                tdbf_prefetch(line(state, start, &keys[next].hash), 0);
                next++;
                j++;
            } else { /* no keys left: the last lane moves here */
                lanes--;
                walk[j] = walk[lanes];
                key[j] = key[lanes];
            }
        }
    }
}

/* Test-and-insert of n keys at once for APBF and APBBF, exactly n single
 * adds in order.  Per stretch of keys that ends before a shift is due:
 *   1. the queries are walked interleaved (tdbf_find_run_batch) on the
 *      state before the stretch;
 *   2. the keys are then set one by one, in order, with the k cells each
 *      writes prefetched a few keys ahead.
 * Within a stretch bits are only set, in s_0 .. s_{k-1}, so a walked
 * "present" stays right, and a walked "absent" can be wrong only if an
 * earlier key of the stretch wrote one of this key's own cells there: the
 * cells written are remembered in a small bitmap (by address), and a key
 * whose cell is in it is queried again, from cache.  A due shift is done
 * by the single add, between stretches. */
typedef struct tdbf_slices_ops {
    tdbf_slice_test has;   /* does logical slice i match the key */
    tdbf_slice_line line;  /* the line `has` reads; for slices 0 .. k-1 also
                              the cell (word or block) an add writes */
    /* Write the key into s_0 .. s_{k-1}, count it; no shift is due. */
    void (*set)(void *state, const tdbf_hash128 *h);
    /* The single add: query, shift if due, set. */
    int (*add)(void *state, const tdbf_hash128 *h);
    /* Adds that can still be made before one shifts (g - fill), and the
     * l of Algorithm 1 until then (*l: slices a query reads past k). */
    uint64_t (*room)(const void *state, unsigned *l);
} tdbf_slices_ops;

enum { TDBF_SET_AHEAD = 8, TDBF_WRITTEN_BITS = 1u << 16 };

/* A written cell's bit in the stretch's bitmap: Fibonacci hashing of its
 * word address (the product wraps on purpose). */
TDBF_WRAPS static inline uint64_t tdbf_written_slot(const void *cell)
{
    return ((uint64_t)(uintptr_t)cell >> 3) * UINT64_C(0x9e3779b97f4a7c15) >> 48;
}

static TDBF_ALWAYS_INLINE int tdbf_written_any(const uint64_t *written,
                                               const void *const *cell, unsigned k)
{
    for (unsigned c = 0; c < k; c++) {
        uint64_t slot = tdbf_written_slot(cell[c]);
        if (written[slot >> 6] >> (slot & 63) & 1)
            return 1;
    }
    return 0;
}

static TDBF_ALWAYS_INLINE void tdbf_written_mark(uint64_t *written,
                                                 const void *const *cell, unsigned k)
{
    for (unsigned c = 0; c < k; c++) {
        uint64_t slot = tdbf_written_slot(cell[c]);
        written[slot >> 6] |= UINT64_C(1) << (slot & 63);
    }
}

/* The k cells an add of the key writes, in s_0 .. s_{k-1}, asked for. */
static TDBF_ALWAYS_INLINE void tdbf_cells_ahead(const void *state, const tdbf_slices_ops *ops,
                                                const tdbf_hash128 *h, unsigned k,
                                                const void **cell)
{
    for (unsigned c = 0; c < k; c++) {
        cell[c] = ops->line(state, c, h);
        tdbf_prefetch(cell[c], 1);
    }
}

/* Keys [0, m) of a stretch: no shift falls inside it. */
static TDBF_ALWAYS_INLINE void tdbf_add_stretch(void *state, unsigned k, unsigned l,
                                                const tdbf_slices_ops *ops,
                                                const tdbf_key *keys, size_t m,
                                                uint64_t *written, uint8_t *present)
{
    const void *cell[TDBF_SET_AHEAD][TDBF_MAX_K];
    tdbf_find_run_batch(state, k, l, keys, m, ops->has, ops->line, present);
    memset(written, 0, TDBF_WRITTEN_BITS / 8);
    for (size_t i = 0; i < m && i < TDBF_SET_AHEAD; i++)
        tdbf_cells_ahead(state, ops, &keys[i].hash, k, cell[i]);
    for (size_t i = 0; i < m; i++) {
        const void **mine = cell[i % TDBF_SET_AHEAD];
        if (!present[i] && tdbf_written_any(written, mine, k))
            present[i] = (uint8_t)tdbf_find_run(state, k, l, &keys[i].hash, ops->has);
        ops->set(state, &keys[i].hash);
        tdbf_written_mark(written, mine, k);
        if (i + TDBF_SET_AHEAD < m)
            tdbf_cells_ahead(state, ops, &keys[i + TDBF_SET_AHEAD].hash, k, mine);
    }
}

static TDBF_ALWAYS_INLINE void tdbf_add_many_slices(void *state, unsigned k,
                                                    const tdbf_slices_ops *ops,
                                                    const tdbf_key *keys, size_t n,
                                                    uint8_t *present)
{
    uint64_t written[TDBF_WRITTEN_BITS / 64];
    for (size_t done = 0; done < n;) {
        unsigned l = 0;
        uint64_t room = ops->room(state, &l);
        if (room == 0) { /* this add shifts: the single add does it */
            present[done] = (uint8_t)ops->add(state, &keys[done].hash);
            done++;
            continue;
        }
        size_t m = n - done < room ? n - done : (size_t)room;
        tdbf_add_stretch(state, k, l, ops, keys + done, m, written, present + done);
        done += m;
    }
}

/* ---- the APBF and APBBF inference (infer_apbf.c) ---- */
/* A slices filter's shape and age, as apbf.c and apbbf.c hold them. */
typedef struct tdbf_slice_view {
    unsigned k, l;             /* slices set per insert, extra slices */
    uint64_t generation;       /* g: inserts between shifts */
    uint64_t generation_fill;  /* inserts in the current generation, 0..g */
    uint64_t shifts;           /* shifts since open */
    uint64_t slice_cells;      /* APBF: bits per slice; APBBF: blocks per segment */
    unsigned block_bits;       /* APBBF: B; 0 for APBF */
    unsigned block_hashes;     /* APBBF: b; 0 for APBF (one bit per slice) */
} tdbf_slice_view;
/* P(I_x < l g | which slices match) and E[I_x | the same], reading every
 * logical slice 0 .. k+l-1 of `state` through `has` (Algorithm 1's test).
 * Returns TDBF_OK or TDBF_EINVAL (invalid prior). */
int tdbf_slice_infer(const tdbf_slice_view *view, const void *state,
                     tdbf_slice_test has, const tdbf_hash128 *h,
                     const tdbf_prior *prior, tdbf_inference *out);

/* ---- planner internals (plan.c) ---- */
/* Exact expected fill ratios of the k+l logical slices just before a
 * shift, for slice size m and generation g: slice i has seen (i+1)*g
 * inserts (i < k) or k*g (i >= k):  r = 1 - (1 - 1/m)^inserts. */
void tdbf_apbf_fills_exact(unsigned k, unsigned l, uint64_t m, uint64_t g,
                           double *fills);
/* Generation size for slice size m: floor(m ln2 / k) (paper 004 §5.2). */
uint64_t tdbf_apbf_generation(uint64_t m, unsigned k);

#define TDBF_LN2 0.69314718055994530942

/* tdbf_plan_apbf with l limited to max_l (designs whose cost grows with
 * the slice count, such as TLBF, plan with a smaller l). */
int tdbf_plan_search(uint64_t window, double error, unsigned max_l,
                     double tolerance, tdbf_plan *best, tdbf_plan *alts,
                     size_t max_alts, size_t *n_alts);
/* cfg->plan_tolerance as the planners take it: 0 -> the default 5 %,
 * negative -> 0 (least memory). */
double tdbf_plan_tolerance(const tdbf_config *cfg);

/* Fast plans, shared by the APBF and APBBF planners (plan.c).  A planner
 * groups its shapes in families (APBF: k; APBBF: k and b) and offers each
 * family with the l of its least memory.  tdbf_fast_consider takes the
 * family's smallest l whose bits are within `limit` (fewer slices between
 * s_l and s_0 to walk) and keeps it in *best if it meets the error and
 * its negative queries read fewer slices (ties: fewer bits).  *best
 * starts as the least-memory plan. */
typedef struct tdbf_fast_shape {
    unsigned family, l;
    uint64_t bits;
    double   reads;         /* expected reads of a negative query */
} tdbf_fast_shape;

typedef struct tdbf_fast_sizer {
    const void *ctx;
    /* Total bits of (family, l), or 0 if it cannot be sized. */
    uint64_t (*bits)(const void *ctx, unsigned family, unsigned l);
    /* Expected reads of a negative query if (family, l) meets the error,
     * else -1.0. */
    double (*reads)(const void *ctx, unsigned family, unsigned l);
} tdbf_fast_sizer;

void tdbf_fast_consider(const tdbf_fast_sizer *sizer, unsigned family,
                        unsigned max_l, double limit, tdbf_fast_shape *best);

/* ---- APBBF planner internals (plan_blocked.c) ---- */
/* First bit of part j (0 <= j <= b) of a B-bit block split into b
 * near-equal parts; part j is bits start(j) .. start(j+1) - 1.  The
 * filter and the model share this split. */
static inline unsigned tdbf_apbbf_part_start(unsigned block_bits,
                                             unsigned block_hashes, unsigned j)
{
    return j * block_bits / block_hashes;
}
/* Keys per block at which a segment is "full" (expected fill 1/2 at that
 * mean load): lambda = ln2 / -ln(1 - b/B). */
double tdbf_apbbf_capacity(unsigned block_bits, unsigned block_hashes);
/* Match probability of a segment whose blocks have Poisson(mean) keys. */
double tdbf_apbbf_match_poisson(unsigned block_bits, unsigned block_hashes,
                                double mean);
/* The Poisson mean load at which a segment's expected fill is `fill`
 * (INFINITY for fill >= 1): inverts the fill to estimate a segment's load
 * from its population count. */
double tdbf_apbbf_load_for_fill(unsigned block_bits, unsigned block_hashes,
                                double fill);
/* tdbf_plan_apbbf_eval without the model metrics: sizes and the exact
 * fp only (what a filter needs to open; cheap). */
int tdbf_plan_apbbf_size(unsigned k, unsigned l, unsigned block_bits,
                         unsigned block_hashes, uint64_t window,
                         tdbf_plan_blocked *out);
/* The plan of a filter with `blocks` blocks per segment (loading a saved
 * one): g, window and the exact-load FP.  TDBF_EPARAM for bad (k, l, B,
 * b) or a generation of 0, TDBF_ETOOBIG beyond 2^52 bits. */
int tdbf_plan_apbbf_from_blocks(unsigned k, unsigned l, unsigned block_bits,
                                unsigned block_hashes, uint64_t blocks,
                                tdbf_plan_blocked *out);

/* tdbf_plan_apbbf_fast with some parameters fixed (0 = search): k and l
 * together, and/or b; with k and l fixed the tolerance is not used.
 * Fills *best as tdbf_plan_apbbf_size does.  Returns what
 * tdbf_plan_apbbf does, plus TDBF_EPARAM for a fixed value out of range
 * and TDBF_ETOOBIG when no shape fits 2^52 bits. */
int tdbf_plan_apbbf_search(uint64_t window, double error, unsigned block_bits,
                           unsigned fixed_k, unsigned fixed_l,
                           unsigned fixed_hashes, double tolerance,
                           tdbf_plan_blocked *best);

/* Both outcomes of Algorithm 1 over match probabilities match[0..k+l-1]
 * (1.0 for segments known to hold the key): the probability of answering
 * yes and no, each with its read-weighted probability (expected reads of
 * a yes = reads_true / p_true). */
typedef struct tdbf_query_paths {
    double p_true, reads_true;
    double p_false, reads_false;
} tdbf_query_paths;
int tdbf_apbf_query_paths(unsigned k, unsigned l, const double *match,
                          tdbf_query_paths *out);

/* Bytes needed, as a double so huge requests cannot overflow. */
bool tdbf_fits(double bytes, uint64_t max_memory);

/* ---- exact Bloom sizing (sizing.c), for clock.c and rotating.c ---- */
typedef struct tdbf_bloom_shape {
    uint64_t m;     /* cells (bits) */
    unsigned k;     /* indices per key */
    double   fp;    /* tdbf_bloom_fp(keys, m, k) */
} tdbf_bloom_shape;
/* (1 - (1 - 1/m)^(k keys))^k: a never-inserted key's match probability. */
double tdbf_bloom_fp(double keys, uint64_t m, unsigned k);
/* The least m whose FP for `keys` keys meets `error`, over k = 1 ..
 * TDBF_MAX_K (or k = fixed_k if not 0; ties to the smaller k).  Returns
 * TDBF_OK or TDBF_ETOOBIG (more than 2^52 cells). */
int tdbf_bloom_size(double keys, double error, unsigned fixed_k,
                    tdbf_bloom_shape *out);

/* Bytes tdbf_mem_calloc_aligned adds to a request (alloc.c: 64-byte
 * alignment slack and the stored offset). */
#define TDBF_ALIGNED_OVERHEAD (64u + sizeof(size_t))

/* The sizing of tdbf_open for CLOCK (clock.c) and ROTATING (rotating.c),
 * behind tdbf_plan_design (planner.c), which has already checked the
 * design, the error, cfg.k, cfg.l and defaulted cfg.max_memory.  Open
 * calls the same function. */
int tdbf_clock_plan(const tdbf_config *cfg, tdbf_design_plan *out);
int tdbf_rotating_plan(const tdbf_config *cfg, tdbf_design_plan *out);

/* The sizing of tdbf_open for FPDECAY (fpdecay.c) and STABLE (stable.c),
 * behind tdbf_plan_decay (planner.c), which has checked the design.  What
 * both share is plan_decay.c's: tdbf_decay_plan_by checks the error, the
 * window and the fields both read, runs the design's search for the
 * survival target, checks the memory cap and fills the window, bits per
 * item and target; tdbf_decay_shape is a plan as ops->plan reports it
 * (state_bytes: the design's struct, beside its one aligned array). */
typedef int (*tdbf_decay_search)(const tdbf_config *cfg, double target, tdbf_decay_plan *out);
int tdbf_fpdecay_plan(const tdbf_config *cfg, tdbf_decay_plan *out);
int tdbf_stable_plan(const tdbf_config *cfg, tdbf_decay_plan *out);
int tdbf_decay_plan_by(const tdbf_config *cfg, tdbf_design design, tdbf_decay_search search,
                       tdbf_decay_plan *out);
void tdbf_decay_shape(const tdbf_decay_plan *plan, size_t state_bytes, tdbf_shape *out);

#endif
