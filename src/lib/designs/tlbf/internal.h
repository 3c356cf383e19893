/*
 * internal.h — the one header of designs/tlbf/ (private): the TLBF's
 * struct, the small inline accessors, and what tlbf.c (the essay, the
 * slices, their sizing, the operations) and tlbf_save.c (the saved form) call
 * of each other.  What the fields mean is tlbf.c's essay.
 */
#ifndef TDBF_TLBF_INTERNAL_H
#define TDBF_TLBF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "designs/ops.h"
#include "util/serial.h"

/* The capacity open plans for without a hint (cfg.capacity 0), which a
 * loaded file without home_g was planned for too. */
enum { TLBF_DEFAULT_CAPACITY = 1024 };

typedef struct slice {
    uint64_t *bits;
    uint64_t  m;          /* bits */
    uint64_t  capacity;   /* C_i: inserts that bring it to its target fill */
    uint64_t  count;      /* c_i: inserts received */
    uint64_t  generation; /* inserts received while it was s_0 */
    uint64_t  stamp;      /* t_i: time of the latest insert, ns */
    unsigned  hash;       /* hash function index, 0 .. k-1 */
    double    fill;       /* expected fill from count, once it takes no more
                             inserts (logical >= k; not saved) */
} slice;

typedef struct tlbf {
    unsigned  k, l;
    unsigned  max_slices;    /* cap on L */
    unsigned  ring_size;     /* allocated ring entries, grows up to max_slices */
    uint64_t  window_ns;     /* T */
    uint64_t  span_ns;       /* T / l: target time per generation */
    slice    *ring;          /* ring_size entries */
    unsigned  head;          /* ring index of s_0 */
    unsigned  count;         /* L */
    unsigned  next_hash;
    uint64_t  countdown;     /* Eq 5: inserts left in this generation */
    uint64_t  gen_target;    /* g* (Eq 6) */
    uint64_t  home_g;        /* the plan's g for cfg.capacity (0: unknown, a
                                file saved without it): the hint a burst
                                is sized by while the window is short of
                                l home_g inserts (tdbf_tlbf_next_target) */
    uint64_t  last_shift_ns;
    uint64_t  shifts;
    uint64_t  cap_hits;
    uint64_t  max_memory;
    double    fp_planned;    /* exact-fill F for k+l slices at fill 1/2 */
    double    error;
    /* tdbf_current_error's F, kept by add (not saved): over the first
     * fp_live slices, fp_adds adds ago; recomputed after fp_stride. */
    double    fp_current;
    unsigned  fp_live;
    uint64_t  fp_adds;
    uint64_t  fp_stride;
} tlbf;

static inline slice *at(const tlbf *t, unsigned logical)
{
    unsigned i = t->head + logical;
    return &t->ring[i >= t->ring_size ? i - t->ring_size : i];
}

static inline bool stale(const tlbf *t, const slice *s, uint64_t now_ns)
{
    return now_ns - s->stamp >= t->window_ns;
}

/* Slices not yet stale at now_ns: a prefix, since stamps never increase
 * with age (tlbf.c's essay). */
static inline unsigned live_slices(const tlbf *t, uint64_t now_ns)
{
    unsigned live = t->count;
    while (live > 0 && stale(t, at(t, live - 1), now_ns))
        live--;
    return live;
}

/* Inserts the first `live` slices took while each was s_0, saturating (a
 * loaded file's counts are only checked one by one). */
static inline uint64_t held_in(const tlbf *t, unsigned live)
{
    uint64_t held = 0;
    for (unsigned i = 0; i < live; i++) {
        uint64_t g = at(t, i)->generation;
        held = g > UINT64_MAX - held ? UINT64_MAX : held + g;
    }
    return held;
}

static inline uint64_t room(const slice *s)
{
    return s->count >= s->capacity ? 0 : s->capacity - s->count;
}

/* ---- what tlbf.c and tlbf_save.c share ---- */

/* Bytes of a slice of m bits: whole 64-bit words. */
size_t tdbf_tlbf_slice_bytes(uint64_t m);
/* A slice's expected fill from its count (the essay's fill model). */
double tdbf_tlbf_expected_fill(const slice *s);
/* Recompute the FP the live slices give now (the current error). */
void tdbf_tlbf_keep_fp(tlbf *t, uint64_t now_ns);
/* tdbf_ops' payload_size, save and load (tlbf_save.c). */
uint64_t tdbf_tlbf_payload_size(const tdbf *f);
void tdbf_tlbf_save(const tdbf *f, tdbf_out *out);
int  tdbf_tlbf_load(tdbf *f, tdbf_in *in, uint64_t max_memory);

#endif
