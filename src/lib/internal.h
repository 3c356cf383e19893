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
    /* Optional batch versions (hashes already computed); NULL = loop. */
    int  (*add_batch)(tdbf *f, size_t n, const tdbf_key *keys,
                      uint64_t now_ns, uint8_t *results);
    void (*contains_batch)(const tdbf *f, size_t n, const tdbf_key *keys,
                           uint64_t now_ns, uint8_t *results);
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

/* Bytes needed, as a double so huge requests cannot overflow. */
bool tdbf_fits(double bytes, uint64_t max_memory);

#endif
