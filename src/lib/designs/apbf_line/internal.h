/*
 * internal.h — the one header of designs/apbf_line/'s own files (private):
 * a shape's rules, the model's entry points (model.c), the filter's struct
 * and the small inline accessors that apbf_line.c, concurrent.c and
 * simd.c read.  The layout they describe is apbf_line.c's essay.  Another
 * design includes ring.h, never this.
 *
 * A shape is (k, l, b, U): U = 512 or 1024 bits per unit, cut into
 * F = k + l (+ 1 spare) fields of W = U / F bits, W a power of two from
 * 16 to 64.
 */
#ifndef TDBF_APBF_LINE_INTERNAL_H
#define TDBF_APBF_LINE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "designs/ops.h"
#include "util/check.h"
#include "util/wide.h"
#include "designs/apbf_line/ring.h"

/* ---- shapes --------------------------------------------------------- */

enum {
    LINE_MAX_FIELDS = 64,                 /* 16-bit fields in 1024 bits */
    LINE_MIN_FIELD_BITS = 16
};

static inline bool unit_ok(unsigned unit_bits)
{
    return unit_bits == 512 || unit_bits == 1024;
}

/* F fields of W = U / F bits, W a power of two, 16 .. 64? */
static inline bool fields_ok(unsigned fields, unsigned unit_bits)
{
    if (fields > LINE_MAX_FIELDS || unit_bits % fields != 0)
        return false;
    unsigned width = unit_bits / fields;
    return width >= LINE_MIN_FIELD_BITS && width <= 64 && (width & (width - 1)) == 0;
}

/* The layout (k, l, U) implies: 1 if U / (k + l + 1) is a field width (a
 * spare), 0 if U / (k + l) is (rolling), -1 if neither.  Never both: F
 * and F + 1 are not both powers of two for F >= 3. */
static inline int layout_spare(unsigned k, unsigned l, unsigned unit_bits)
{
    TDBF_ASSERT(!(fields_ok(k + l + 1, unit_bits) && fields_ok(k + l, unit_bits)));
    return fields_ok(k + l + 1, unit_bits) ? 1 : fields_ok(k + l, unit_bits) ? 0 : -1;
}

static inline bool shape_ok(unsigned k, unsigned l, unsigned b, unsigned unit_bits)
{
    if (k < 1 || k > TDBF_MAX_K || l < 1 || l >= LINE_MAX_FIELDS || b < 1 || b > LINE_MAX_B ||
        !unit_ok(unit_bits))
        return false;                     /* (l first bounded: k + l + 1 cannot wrap) */
    return layout_spare(k, l, unit_bits) >= 0;
}

static inline unsigned fields_of(unsigned k, unsigned l, unsigned unit_bits)
{
    return k + l + (layout_spare(k, l, unit_bits) == 1);
}

/* The guaranteed window (apbf_line.c's essay). */
static inline uint64_t window_of(unsigned l, uint64_t g)
{
    return (uint64_t)l * g;
}

/* ---- the model and the planner (model.c) ---------------------------- */

/* P(b uniform draws from `width` positions hit exactly d distinct ones),
 * into out[d], d = 1 .. b. */
void tdbf_line_distinct_positions(unsigned b, double width, double *out);
/* The model's FP of shape (k, l, b, U) with `units` units and generation
 * g, on its full sample of units. */
double tdbf_line_model_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                          uint64_t units, uint64_t generation);


/* ---- the filter ---------------------------------------------------- */

/* A shape's single-key entries on one path, by the key's hash (ops.h:
 * f->state.add_hashed, f->state.contains_hashed); the 64-bit field shapes have them,
 * which the planner chooses (the others run line_add and line_contains). */
typedef struct line_entries {
    int (*add)(tdbf *f, tdbf_hash128 h);
    int (*contains)(const tdbf *f, tdbf_hash128 h);
    /* The same for n keys of a batch, hashed (LINE_BATCH_ENTRIES). */
    void (*add_many)(tdbf *f, const tdbf_key *keys, size_t n, uint8_t *present);
    void (*contains_many)(const tdbf *f, const tdbf_key *keys, size_t n, uint8_t *found);
} line_entries;

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
    uint64_t  swept_at;      /* spare: the fill from which every spare is
                                empty, units / sweep_per_add + 1 */
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
    line_entries    entries; /* the same path's whole add (rolling) and query,
                                or NULLs for a shape without them */
    tdbf_simd path;
    /* Concurrent mode (concurrent.c): head, fill and shifts
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

/* The physical field of age `age` when age 0 is at `head`, and now. */
static inline unsigned physical_at(const line_filter *t, unsigned head, unsigned age)
{
    unsigned p = head + age;
    return p >= t->fields ? p - t->fields : p;
}

static inline unsigned physical(const line_filter *t, unsigned age)
{
    return physical_at(t, t->head, age);
}

/* min(units, fill * ceil(units / g)); fill may pass g in a ring whose
 * owner shifts it (tdbf_line_ring_add), so the product is not formed once
 * it would pass units. */
static inline uint64_t sweep_position(const line_filter *t)
{
    if (t->fill >= t->swept_at)
        return t->units;
    uint64_t done = t->fill * t->sweep_per_add;
    return done < t->units ? done : t->units;
}

/* Rolling: every add's share of the turns is accounted for, taken or
 * owed, turned g + turn_rest = fill units, and no unit turns twice in a
 * generation, turned <= units.  fill may pass g in a ring (its owner
 * shifts it, tdbf_line_ring_add): the turns stop at units and the rest
 * keeps counting.  A spare keeps turned = turn_rest = 0. */
static inline bool turns_account_for_fill(const line_filter *t)
{
    if (t->spare)
        return t->turned == 0 && t->turn_rest == 0;
    tdbf_u128 done = tdbf_add_wide(tdbf_mul_wide(t->turned, t->g), t->turn_rest);
    tdbf_u128 owed = tdbf_mul_wide(t->fill, t->units);
    return t->turned <= t->units && done.hi == owed.hi && done.lo == owed.lo;
}

/* 1 if unit `index` has taken its turn in this generation (rolling; never
 * with a spare, whose `turned` stays 0), and the head it reads by. */
static TDBF_ALWAYS_INLINE unsigned has_turned(const line_filter *t, uint64_t index)
{
    return index < t->turned;
}

static TDBF_ALWAYS_INLINE unsigned head_of(const line_filter *t, unsigned turned)
{
    return turned ? t->head_turned : t->head;
}

/* A run of k matching fields among ages 0 .. k+l-1, age 0 at `head`?
 * line_has_run on line_by_age's ages, in fewer instructions, which the
 * insert path counts (ring.h, tdbf_line_mark): with F < 64 the match bits
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

/* ---- the entries of a rolling filter's 64-bit-field shapes ---------------
 *
 * apbf_line.c's line_add does the steps of an add for every layout
 * through the filter's mark; a rolling filter of 64-bit fields instead
 * runs one function per shape and path (simd.c, apbf_line.c's
 * portable ones, chosen with the probe), built from the pieces below
 * around that shape's mark, inlined: one jump from the shell, no mask
 * stored between the mark and the test, and no frame.  A single add of a
 * DRAM-sized filter costs what the core can overlap of consecutive
 * calls' misses, and each instruction of the path shortens how far ahead
 * the next call's read can start, so the rare steps (the end of a
 * generation, the turns) are tail calls. */

/* How the ring moves on (apbf_line.c, "turns"): the placement for the
 * current head (set_mask, head_turned, the turn's word and mask); the
 * rolling turns due at the current fill; the turns one add brings once
 * turn_rest has reached g; the spares of units from .. to-1 emptied; and
 * the end of a generation. */
void tdbf_line_place_ring(line_filter *t);
void tdbf_line_set_turns(line_filter *t);
void tdbf_line_take_turns(line_filter *t);
void tdbf_line_clear_spare(line_filter *t, uint64_t from, uint64_t to);
void tdbf_line_shift(line_filter *t);

/* An entry's rare steps: the generation ends before this add (shift, then
 * add again through f->state.add_hashed); the turns this add brings, then its
 * answer. */
int tdbf_line_shift_then_add(tdbf *f, tdbf_hash128 h);
int tdbf_line_turn_then_answer(line_filter *t, int present);

typedef struct line_site {
    uint64_t       *unit;   /* the key's unit */
    const uint64_t *set;    /* the fields the insert marks there */
    unsigned        head;   /* the unit's age 0 */
} line_site;

/* The key's unit, what an insert marks there, and its head (a rolling
 * filter: the unit may have turned). */
static TDBF_ALWAYS_INLINE line_site line_site_of(const line_filter *t, const tdbf_hash128 *h,
                                                 unsigned words)
{
    uint64_t index = unit_index(t, h);
    unsigned turned = has_turned(t, index);
    line_site site = {t->bits + index * words, t->set_mask[turned], head_of(t, turned)};
    return site;
}

/* run_in for F < 64 (every 64-bit-field shape: F <= 16), its steps
 * unrolled: at most 4 for k < 16 (set_run_test), and in any order, since
 * each and-shift only widens the run the bits stand for. */
static TDBF_ALWAYS_INLINE int run_in_short(const line_filter *t, unsigned head, uint64_t match)
{
    uint64_t run = match | match << t->fields;
    switch (t->run_steps) {
    case 4: run &= run >> t->run_shift[3]; /* fall through */
    case 3: run &= run >> t->run_shift[2]; /* fall through */
    case 2: run &= run >> t->run_shift[1]; /* fall through */
    case 1: run &= run >> t->run_shift[0]; /* fall through */
    default: break;
    }
    return (run & t->run_starts << head) != 0;
}

/* After the mark: this add counted, and its share of the turns (units / g
 * of them on average) taken. */
static TDBF_ALWAYS_INLINE int line_add_done(line_filter *t, int present)
{
    t->fill++;
    t->turn_rest += t->units;
    if (t->turn_rest >= t->g)
        return tdbf_line_turn_then_answer(t, present);
    return present;
}

/* ---- batches ----------------------------------------------------------
 *
 * A batch runs its keys in order, each key's unit asked for
 * TDBF_PREFETCH_AHEAD_LINE keys before its turn, so that many misses are
 * in flight while the core works on earlier keys.  Through the shell's
 * key-by-key loop each key cost two indirect calls (the prefetch and the
 * entry) and the loop's own bookkeeping; a shape's batch entries below
 * inline its single entry into one loop, the prefetch computed in place
 * (one multiply for the unit): about a quarter fewer instructions per
 * key, and the rare steps of the single entries (shift, turns) taken as
 * they come. */
static TDBF_ALWAYS_INLINE void line_prefetch_key(const line_filter *t, const tdbf_key *key,
                                                 unsigned words, int for_add)
{
    line_prefetch_unit(t->bits + unit_index(t, &key->hash) * words, words, for_add);
}

static TDBF_ALWAYS_INLINE void line_prefetch_first(const line_filter *t, const tdbf_key *keys,
                                                   size_t n, unsigned words, int for_add)
{
    for (size_t i = 0; i < n && i < TDBF_PREFETCH_AHEAD_LINE; i++)
        line_prefetch_key(t, &keys[i], words, for_add);
}

/* Key i's turn: first ask for the unit of key i + TDBF_PREFETCH_AHEAD_LINE. */
static TDBF_ALWAYS_INLINE void line_prefetch_next(const line_filter *t, const tdbf_key *keys,
                                                  size_t i, size_t n, unsigned words,
                                                  int for_add)
{
    if (i + TDBF_PREFETCH_AHEAD_LINE < n)
        line_prefetch_key(t, &keys[i + TDBF_PREFETCH_AHEAD_LINE], words, for_add);
}

/* add_many_NAME and contains_many_NAME around the single entries add_NAME
 * and contains_NAME of a shape of WORDS-word units (compiled with ATTR).
 * The add reads f->state.impl for every key: a shift inside the batch moves
 * the ring, never the units. */
#define LINE_BATCH_ENTRIES(ATTR, NAME, WORDS)                                                 \
    static ATTR void add_many_##NAME(tdbf *f, const tdbf_key *keys, size_t n,                 \
                                     uint8_t *present)                                        \
    {                                                                                         \
        const line_filter *t = f->state.impl;                                                 \
        line_prefetch_first(t, keys, n, WORDS, 1);                                            \
        for (size_t i = 0; i < n; i++) {                                                      \
            line_prefetch_next(t, keys, i, n, WORDS, 1);                                      \
            present[i] = (uint8_t)add_##NAME(f, keys[i].hash);                                \
        }                                                                                     \
    }                                                                                         \
    static ATTR void contains_many_##NAME(const tdbf *f, const tdbf_key *keys, size_t n,      \
                                          uint8_t *found)                                     \
    {                                                                                         \
        const line_filter *t = f->state.impl;                                                 \
        line_prefetch_first(t, keys, n, WORDS, 0);                                            \
        for (size_t i = 0; i < n; i++) {                                                      \
            line_prefetch_next(t, keys, i, n, WORDS, 0);                                      \
            found[i] = (uint8_t)contains_##NAME(f, keys[i].hash);                             \
        }                                                                                     \
    }

/* The vector entries of a 64-bit-field shape on `path` (simd.c);
 * NULLs where this build has none. */
line_entries tdbf_line_simd_entries(tdbf_simd path, unsigned words, unsigned b);

/* ---- many threads at once (concurrent.c) ---------------------- */

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
