/*
 * apbf_line_state.h — the apbf-line filter's struct and the small inline
 * accessors that apbf_line.c and apbf_line_concurrent.c both read
 * (private).  The layout they describe is apbf_line.c's essay.
 */
#ifndef TDBF_APBF_LINE_STATE_H
#define TDBF_APBF_LINE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ops.h"
#include "designs/line.h"

typedef struct line_filter {
    unsigned  k, l, b;
    unsigned  unit_bits;     /* U: 512 or 1024 */
    unsigned  unit_words;    /* U / 64 */
    unsigned  spare;         /* 1: one spare field, 0: rolling turns (layout_spare) */
    unsigned  fields;        /* F = k + l + spare */
    unsigned  field_bits;    /* W = U / F: 16, 32 or 64 */
    unsigned  field_log2;    /* log2 W */
    unsigned  head;          /* physical field of age 0 (rolling: in units yet to turn) */
    unsigned  head_turned;   /* head - 1 mod F: age 0 in units that turned */
    uint64_t  units;
    uint64_t  g;             /* inserts per generation */
    uint64_t  fill;          /* inserts in the current generation, 0 .. g */
    uint64_t  shifts;
    uint64_t  sweep_per_add; /* spare: ceil(units / g) */
    /* Rolling: units 0 .. turned-1 have turned in this generation, turned
     * = floor(fill units / g); turn_rest = fill units mod g. */
    uint64_t  turned, turn_rest;
    unsigned  turn_word;     /* the word and keep-mask of field head_turned, */
    uint64_t  turn_keep;     /* which a unit's turn empties */
    /* What an insert marks (place_ring): all ones over the fields of ages
     * 0 .. k-1, zeros elsewhere; [0] at head, [1] at head_turned (a unit
     * that has turned). */
    uint64_t  set_mask[2][LINE_MAX_WORDS];
    /* run_in's test: the ages a run may start at, 0 .. l (bits), and the
     * shifts that leave bit i of a match set iff bits i .. i+k-1 were. */
    uint64_t  run_starts;
    unsigned  run_steps;
    unsigned char run_shift[8];
    tdbf_line_probe probe;   /* this shape's, on the chosen path (choose_probe) */
    tdbf_line_mark  mark;
    tdbf_simd path;
    /* Concurrent mode (apbf_line_concurrent.c): head, fill and shifts
     * above stay at the base (open or load) and the tickets say the rest. */
    bool      concurrent;
    /* The ticket counter: fill at the base + adds since, atomic, alone in
     * a cache line somewhere in here (tickets_of), so the adds of other
     * threads that bump it do not also evict the fields every operation
     * reads. */
    uint64_t  ticket_line[16];
    uint64_t  items_at_base; /* the shell's adds since open, at the base */
    double    fp_planned;
    uint64_t *bits;          /* units * unit_words words, 64-byte aligned */
} line_filter;

/* Field p: its word in the unit, its shift in the word, its ones. */
static TDBF_ALWAYS_INLINE unsigned field_word(const line_filter *t, unsigned p)
{
    return (p << t->field_log2) >> 6;
}

static TDBF_ALWAYS_INLINE unsigned field_shift(const line_filter *t, unsigned p)
{
    return (p << t->field_log2) & 63;
}

static TDBF_ALWAYS_INLINE uint64_t field_ones(const line_filter *t)
{
    return t->field_bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << t->field_bits) - 1;
}

static TDBF_ALWAYS_INLINE uint64_t unit_index(const line_filter *t, const tdbf_hash128 *h)
{
    return tdbf_reduce(h->lo ^ (h->hi >> 1), t->units);
}

static TDBF_ALWAYS_INLINE uint64_t *unit_of(const line_filter *t, const tdbf_hash128 *h)
{
    return t->bits + unit_index(t, h) * t->unit_words;
}

/* A run of k matching fields among ages 0 .. k+l-1, age 0 at `head`?
 * line_has_run on line_by_age's ages, in fewer instructions, which the
 * insert path counts (line.h, tdbf_line_mark): with F < 64 the match bits
 * are doubled rather than rotated, so that bit head + a is age a for every
 * a < F, and a run may start at head .. head + l (ages 0 .. l); with F =
 * 64 one rotate gives the ages.  The run's log2 k shifts are precomputed
 * (run_shift), and a run of k ones starting at bit i leaves bit i set. */
static TDBF_ALWAYS_INLINE int run_in(const line_filter *t, unsigned head,
                                     uint64_t physical_match)
{
    uint64_t run, starts = t->run_starts;
    if (t->fields == 64) {
        run = physical_match >> head | physical_match << ((64 - head) & 63);
    } else {
        run = physical_match | physical_match << t->fields;
        starts <<= head;
    }
    for (unsigned i = 0; i < t->run_steps; i++)
        run &= run >> t->run_shift[i];
    return (run & starts) != 0;
}

/* ---- many threads at once (apbf_line_concurrent.c) ---------------------- */

static inline uint64_t *tickets_of(const line_filter *t)
{
    uintptr_t line = ((uintptr_t)t->ticket_line + 63) & ~(uintptr_t)63;
    return (uint64_t *)line;
}

/* Head of the ring in generation base + r. */
static inline unsigned head_after(const line_filter *t, uint64_t r)
{
    return (unsigned)((t->head + t->fields - r % t->fields) % t->fields);
}

/* The generation a query sees after v tickets: the last add's (a full
 * generation shifts at the next add, as in the sequential filter). */
static inline uint64_t query_generation(const line_filter *t, uint64_t v)
{
    return v == 0 ? 0 : (v - 1) / t->g;
}

static inline void copy_unit(const line_filter *t, const uint64_t *unit, uint64_t *copy)
{
    for (unsigned w = 0; w < t->unit_words; w++)
        copy[w] = __atomic_load_n(&unit[w], __ATOMIC_ACQUIRE);
}

int tdbf_line_add_concurrent(tdbf *f, const tdbf_key *key, uint64_t now_ns);
int tdbf_line_contains_concurrent(const tdbf *f, const tdbf_key *key, uint64_t now_ns);

#endif
