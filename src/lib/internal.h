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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdbf.h"
#include "hash.h"

/* A key as the designs see it: its bytes and its one hash. */
typedef struct tdbf_key {
    const void  *bytes;
    size_t       len;
    tdbf_hash128 hash;
} tdbf_key;

typedef struct tdbf_ops {
    /* Plan, check cfg->max_memory, allocate, and store the state in f->impl. */
    int  (*open)(tdbf *f, const tdbf_config *cfg);
    void (*close)(tdbf *f);
    /* Test-and-insert; 1 = was present, 0 = new, < 0 error. */
    int  (*add)(tdbf *f, const tdbf_key *key, uint64_t now_ns);
    int  (*contains)(const tdbf *f, const tdbf_key *key, uint64_t now_ns);
    /* NULL when the design has nothing to expire by time. */
    int  (*advance)(tdbf *f, uint64_t now_ns);
    /* Fill the design's fields of *st (the shell fills the generic ones). */
    void (*stats)(const tdbf *f, tdbf_stats *st);
    /* Optional: start loading the memory an add (for_add = 1) or a query
     * of this key will touch.  The batch calls issue it a few keys ahead
     * of the one they process, so the loads overlap. */
    void (*prefetch)(const tdbf *f, const tdbf_key *key, int for_add);
} tdbf_ops;

struct tdbf {
    const tdbf_ops *ops;
    tdbf_allocator  alloc;      /* copied at open: frees go back to it */
    tdbf_design     design;
    double          error;      /* cfg.error */
    uint64_t        seed;       /* never 0 */
    uint64_t        items;      /* adds since open */
    uint64_t        now_ns;     /* largest time seen (clamp, never rewind) */
    uint64_t        memory_bytes; /* bytes allocated through alloc */
    void           *impl;       /* the design's state */
};

/* Per-design operation tables (NULL entries in filter.c's table are
 * designs not built yet). */
extern const tdbf_ops tdbf_apbf_ops;
extern const tdbf_ops tdbf_apbbf_ops;
extern const tdbf_ops tdbf_tlbf_ops;
extern const tdbf_ops tdbf_bloom_ops;
extern const tdbf_ops tdbf_exact_ops;

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
/* Ask for the cache line holding p (__builtin_prefetch wants a constant
 * read/write flag, hence the branch). */
static inline void tdbf_prefetch(const void *p, int for_write)
{
    if (for_write)
        __builtin_prefetch(p, 1, 3);
    else
        __builtin_prefetch(p, 0, 3);
}

/* Number of set bits in words[0 .. nwords-1]. */
uint64_t tdbf_popcount(const uint64_t *words, uint64_t nwords);

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
                     tdbf_plan *best, tdbf_plan *alts, size_t max_alts,
                     size_t *n_alts);

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
/* tdbf_plan_apbbf with some parameters fixed (0 = search): k and l
 * together, and/or b.  Fills *best as tdbf_plan_apbbf_size does.
 * Returns what tdbf_plan_apbbf does, plus TDBF_EPARAM for a fixed value
 * out of range and TDBF_ETOOBIG when no shape fits 2^52 bits. */
int tdbf_plan_apbbf_search(uint64_t window, double error, unsigned block_bits,
                           unsigned fixed_k, unsigned fixed_l,
                           unsigned fixed_hashes, tdbf_plan_blocked *best);

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

#endif
