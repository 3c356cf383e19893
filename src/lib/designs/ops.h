/*
 * ops.h — the filter shell and the per-design operation tables (private).
 *
 * A filter is a generic shell (struct tdbf: allocator, seed, clock, counts)
 * around one design's state (impl), reached through a per-design table of
 * operations (tdbf_ops).  shell.c makes the shell and holds the tables;
 * filter.c, the API over it, validates arguments, hashes the key once,
 * clamps time, and dispatches.  A design file never sees a NULL filter or
 * a backwards clock.
 */
#ifndef TDBF_OPS_H
#define TDBF_OPS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdbf_model.h"
#include "util/hash.h"

/* Defined by codec.h and inference.h; the table takes them by pointer. */
typedef struct tdbf_out tdbf_out;
typedef struct tdbf_in tdbf_in;
typedef struct tdbf_inference tdbf_inference;

typedef struct tdbf_ops {
    /* Size a checked cfg exactly as open does, without allocating: the
     * design's k, l, window_items or window_ns, error_planned, and
     * memory_bytes = what open allocates, shell included (at the planned
     * rate, for a design that grows).  open's errors, ETOOBIG included
     * (tdbf_plan_shape, planner.c, fills the other fields). */
    int  (*plan)(const tdbf_config *cfg, tdbf_shape *out);
    /* Plan, check cfg->max_memory, allocate, and store the state in f->state.impl. */
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
     * design's memory accesses overlapped (model/run.h); when
     * set, tdbf_contains_batch uses it. */
    void (*contains_many)(const tdbf *f, const tdbf_key *keys, size_t n,
                          uint64_t now_ns, uint8_t *found);
    /* Optional: present[i] = add(keys[i]) for i < n in order, exactly,
     * with the memory accesses overlapped (model/run.h); when
     * set, tdbf_add_batch uses it.  TDBF_OK, or the error the first add
     * would return, with nothing added (later adds cannot fail). */
    int (*add_many)(tdbf *f, const tdbf_key *keys, size_t n,
                    uint64_t now_ns, uint8_t *present);
    /* true: the batch calls take contains_many and add_many at every
     * filter size; false: only once the filter is out of the caches
     * (f->settings.walk_min_bytes), below which the key-by-key loop is
     * faster.
     * (APBF_LINE: its batch entries cost fewer instructions than that
     * loop at any size.) */
    bool batch_at_every_size;
    /* Serialization (codec.c), every design has it.  payload_size is the
     * exact byte count save writes; load reads the payload, validating
     * every field before it allocates or uses it, and sets f->state.impl. */
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
     * the shell answers f->state.error_planned.  Read-only. */
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
     * itself (f->state.own_items set by its open or load): a concurrent design
     * with a ticket counter spares the shell a second shared counter per
     * add.  Needs the adds to have stopped, as stats and save do. */
    uint64_t (*items)(const tdbf *f);
    /* Optional: the one parameter of the design's expiry bound that
     * tdbf_shape does not hold (slack.c): CLOCK d, ticks per window;
     * ROTATING N, filters per window; TBF and BTBF B, adds per timestamp.
     * Of the filter f, or, when f is NULL, of the checked configuration
     * cfg (tdbf_plan_shape).  NULL: the shape alone gives the bound. */
    uint64_t (*slack_step)(const tdbf *f, const tdbf_config *cfg);
} tdbf_ops;

/* What a design's open or load sets in its shell, and nothing else: one
 * struct, so that tdbf_clear takes a freshly opened state with one
 * assignment and a field added here cannot be missed. */
typedef struct tdbf_state {
    /* The single-key entry points, copied from ops by tdbf_shell_new so a
     * call loads one pointer, not two; a design's open or load may point
     * them at a variant specialised for its parameters (bloom.c: its k). */
    int  (*add)(tdbf *f, const tdbf_key *key, uint64_t now_ns);
    int  (*contains)(const tdbf *f, const tdbf_key *key, uint64_t now_ns);
    /* Optional, set by a design's open or load (NULL otherwise): the add
     * and query of a key by its hash alone, for a filter that reads
     * neither the key's bytes nor the time, whose adds cannot fail and
     * come from one thread at a time (apbf-line's sequential layouts).
     * tdbf_add then counts, hashes and jumps: no key on the stack and no
     * return through the shell.  An operation at a window beyond the
     * caches costs what the processor can overlap of consecutive calls'
     * misses, which is bounded by the instructions each call holds in the
     * out-of-order window (designs/apbf_line/ring.h, tdbf_line_mark). */
    int  (*add_hashed)(tdbf *f, tdbf_hash128 h);
    int  (*contains_hashed)(const tdbf *f, tdbf_hash128 h);
    bool            own_items;  /* ops->items counts the adds, not f->items */
    uint64_t        memory_bytes; /* through f->alloc, the shell included */
    /* stats.error_planned, for tdbf_current_error of the designs without
     * ops->current_error: their open and load set it (EXACT leaves 0). */
    double          error_planned;
    /* Batch calls that go key by key ask for the memory of key i +
     * prefetch_ahead while key i is handled, so that many keys' misses
     * are in flight at once: TDBF_PREFETCH_AHEAD from the shell; a design
     * with one or two lines per key raises it at open and load. */
    unsigned        prefetch_ahead;
    void           *impl;       /* the design's state */
} tdbf_state;

/* What the shell was told rather than what a design built, and the saved
 * form does not hold: one struct, so that tdbf_copy carries it over to
 * the loaded copy with one assignment. */
typedef struct tdbf_settings {
    /* Batch calls hand whole chunks to ops->contains_many / add_many, and
     * single APBF adds and APBBF calls (many segments) ask for their
     * first reads ahead, only from this filter size up
     * (TDBF_WALK_MIN_BYTES; tests set 0). */
    uint64_t        walk_min_bytes;
    /* The configuration tdbf_open made it from, seed included, allocator
     * not (tdbf_clear opens it again); has_config is false for a filter
     * from tdbf_load. */
    tdbf_config     opened_with;
    bool            has_config;
} tdbf_settings;

struct tdbf {
    const tdbf_ops *ops;
    tdbf_state      state;      /* set by the design's open or load */
    /* ops->concurrent, copied for the same reason as state.add, or
     * requested (cfg.concurrent, load options) from a design that has a
     * concurrent mode. */
    bool            concurrent;
    tdbf_allocator  alloc;      /* copied at open: frees go back to it */
    tdbf_design     design;
    double          error;      /* cfg.error */
    uint64_t        seed;       /* never 0 */
    /* Atomic so that a `concurrent` design can take adds from many threads;
     * filter.c accesses them relaxed: plain loads and stores on the usual
     * targets, an atomic add and a compare-and-swap for concurrent designs. */
    _Atomic uint64_t items;     /* adds since open */
    _Atomic uint64_t now_ns;    /* largest time seen (clamp, never rewind) */
    tdbf_settings   settings;   /* what a copy keeps that no file holds */
};

/* Interleaved walks pay once a filter's lines miss the caches; below
 * that the one-by-one loop is faster (measurements: docs/results.md, "Speed against a classic Bloom filter"). */
#define TDBF_WALK_MIN_BYTES (UINT64_C(4) << 20)

/* Keys ahead that a batch prefetches (f->state.prefetch_ahead): enough
 * that several keys' misses are in flight while one is handled.  A
 * design of several lines per key has many loads per key already (a
 * classic Bloom filter's k = 7 at 0.01 makes 56 lines in flight at 8);
 * apbf-line, one unit per key, needs more keys ahead for as many loads. */
#define TDBF_PREFETCH_AHEAD 8
#define TDBF_PREFETCH_AHEAD_LINE 32

/* A configuration field and its deprecated alias (tdbf.h: unit_bits and
 * block_bits for APBF_LINE and TLBF_LINE, max_rings and max_slices for
 * TLBF_LINE): the field, else the alias; TDBF_EPARAM when both are set
 * and differ.  The alias goes with the release after next. */
static inline int tdbf_config_field(unsigned field, unsigned alias, unsigned *out)
{
    if (field && alias && field != alias)
        return TDBF_EPARAM;
    *out = field ? field : alias;
    return TDBF_OK;
}

/* Adds since open: the shell's count, or the design's own (ops->items). */
uint64_t tdbf_items(const tdbf *f);

/* Per-design operation tables (shell.c indexes them by tdbf_design). */
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
extern const tdbf_ops tdbf_sqf_ops;

/* ---- the shell (shell.c) ---- */
/* The ops of `design`, or NULL for a value outside tdbf_design. */
const tdbf_ops *tdbf_design_ops(tdbf_design design);
/* tdbf_open's generic checks of cfg (design, error, k/l range); on
 * success *local is cfg with defaults filled in (max_memory). */
int tdbf_config_normalize(const tdbf_config *cfg, tdbf_config *local);
/* A filter shell with no design state yet (impl NULL), or NULL. */
tdbf *tdbf_shell_new(const tdbf_allocator *alloc, tdbf_design design,
                     double error, uint64_t seed);
/* Free a shell whose design state is gone (or was never made). */
void tdbf_shell_free(tdbf *f);

/* ---- the expiry bound (slack.c) ---- */
/* Set shape->slack_items and slack_ns from the rest of *shape (design,
 * k, l, window) and the design's slack step (ops->slack_step; 0 for the
 * designs without one).  tdbf_get_shape and tdbf_plan_shape call it, so
 * a filter and its plan report one bound. */
void tdbf_shape_set_slack(tdbf_shape *shape, uint64_t step);

#endif
