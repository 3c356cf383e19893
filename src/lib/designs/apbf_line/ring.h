/*
 * ring.h — what apbf-line offers the designs built on it (private): one
 * unit of a line-local filter (a key's masks, the match test and the
 * mark), and apbf-line's ring of fields, shifted by its owner.  The one
 * header of designs/apbf_line/ that another design includes (tlbf-line);
 * the folder's own files also read internal.h.
 *
 * A unit is `words` 64-bit words (8: one 64-byte cache line, 16: an
 * adjacent pair) cut into fields of `width` bits (16, 32 or 64), so a
 * field never straddles a word and a word holds 64 / width fields.  A key
 * owns b bit positions in every field; its masks are built for all the
 * unit's fields at once, one word per unit word, before the unit is read:
 * the arithmetic does not wait for memory, and the test that does wait is
 * a handful of word operations.
 *
 * Every function here takes the shape (width, b, words) as arguments and
 * is always inlined: a caller that passes constants gets the loops
 * unrolled and the shifts folded (apbf_line.c instantiates one add and one
 * query per shape).
 */
#ifndef TDBF_APBF_LINE_RING_H
#define TDBF_APBF_LINE_RING_H

#include "tdbf_model.h"
#include "util/bits.h"
#include "util/serial.h"
#include "util/hash.h"

enum { LINE_MAX_WORDS = 16, LINE_MAX_B = 4 };

/* log2 of a field width (16, 32, 64). */
static TDBF_ALWAYS_INLINE unsigned line_width_log2(unsigned width)
{
    return width == 16 ? 4 : width == 32 ? 5 : 6;
}

/* The key's b positions in every field, as masks over the unit's words.
 *
 * Word w of the unit draws on one derived hash of the key, z_w =
 * tdbf_hash_nth(h, w + 1) (hash.h: a multiply-xorshift remix of double
 * hashing), and field i of the word takes its b offsets (log2 width bits
 * each) from the bits of z_w where the field itself sits: offset j at bit
 * i*width + j*log2(width) (b log2 width <= width for every allowed shape).
 * The offsets are independent from field to field, as they must be: a key
 * colliding with another in one field must not collide in the next
 * fields, which hold the same generations' keys (the model, model.c,
 * assumes independent offsets).  And every word's arithmetic is the same
 * on its own data, so vector units do a whole unit at once (simd.c
 * computes exactly these masks). */
static TDBF_ALWAYS_INLINE uint64_t line_word_mask(const tdbf_hash128 *h, unsigned width,
                                                  unsigned b, unsigned w)
{
    const unsigned s = line_width_log2(width);
    uint64_t z = tdbf_hash_nth(h, (uint64_t)w + 1), mask = 0;
#pragma GCC unroll 4
    for (unsigned i = 0; i < 64 / width; i++) {
        uint64_t base = UINT64_C(1) << (i * width);
#pragma GCC unroll 4
        for (unsigned j = 0; j < b; j++)
            mask |= base << ((z >> (i * width + j * s)) & (width - 1));
    }
    return mask;
}

static TDBF_ALWAYS_INLINE void line_key_masks(const tdbf_hash128 *h, unsigned width,
                                              unsigned b, unsigned words, uint64_t *mask)
{
#pragma GCC unroll 16
    for (unsigned w = 0; w < words; w++)
        mask[w] = line_word_mask(h, width, b, w);
}

/* line_fields_clear's gathering multiply: the products it does not keep
 * pass the top of the word, on purpose. */
TDBF_WRAPS static inline uint64_t line_gather_tops(uint64_t tops)
{
    return tops * UINT64_C(0x0000200040008001);
}

/* Bit i set iff field i of the word `miss` is all zero. */
static TDBF_ALWAYS_INLINE uint64_t line_fields_clear(uint64_t miss, unsigned width)
{
    if (width == 64)
        return miss == 0;
    if (width == 32)
        return (uint64_t)((uint32_t)miss == 0) | (uint64_t)((miss >> 32) == 0) << 1;
    /* 16-bit fields, SWAR: a field's top bit after the add is set iff its
     * low 15 bits are not all zero; or-ed with the field, inverted, the
     * top bit says "all zero".  The multiply gathers the four top bits
     * (at 0, 16, 32, 48 after the shift) into bits 45 .. 48: the products'
     * other bits fall elsewhere, none overlapping (no carries). */
    const uint64_t low = UINT64_C(0x7fff7fff7fff7fff), top = UINT64_C(0x8000800080008000);
    uint64_t zero = ~(((miss & low) + low) | miss) & top;
    return line_gather_tops(zero >> 15) >> 45 & 0xf;
}

/* Bit p set iff field p of the unit holds all of the key's positions. */
static TDBF_ALWAYS_INLINE uint64_t line_matches(const uint64_t *unit, const uint64_t *mask,
                                                unsigned width, unsigned words)
{
    const unsigned per_word = 64 / width;
    uint64_t match = 0;
#pragma GCC unroll 16
    for (unsigned w = 0; w < words; w++)
        match |= line_fields_clear(mask[w] & ~unit[w], width) << (w * per_word);
    return match;
}

/* Physical field bits to age bits: field (head + a) mod fields has age a. */
static TDBF_ALWAYS_INLINE uint64_t line_by_age(uint64_t physical, unsigned head, unsigned fields)
{
    if (head == 0)
        return physical;
    if (fields == 64)
        return physical >> head | physical << (64 - head);
    uint64_t doubled = physical | physical << fields;     /* fields <= 32 */
    return doubled >> head;
}

/* A run of k consecutive set bits among the low `span` bits of ages?  A
 * run of n ones starting at i, and-ed with itself shifted by s <= n,
 * becomes one of n + s: log2 k steps. */
static TDBF_ALWAYS_INLINE int line_has_run(uint64_t ages, unsigned k, unsigned span)
{
    uint64_t run = span == 64 ? ages : ages & ((UINT64_C(1) << span) - 1);
    for (unsigned n = 1; n < k;) {
        unsigned s = n < k - n ? n : k - n;
        run &= run >> s;
        n += s;
    }
    return run != 0;
}

/* Ask for a unit's lines: one, or the adjacent pair of a 128-byte unit.
 * Always inlined, as every prefetch helper must be (util/bits.h: a helper
 * that only prefetches is otherwise taken for "const" and deleted). */
static TDBF_ALWAYS_INLINE void line_prefetch_unit(const uint64_t *unit, unsigned words,
                                                  int for_add)
{
    tdbf_prefetch(unit, for_add);
    if (words > 8)
        tdbf_prefetch(unit + 8, for_add);
}

/* A probe: the key's masks into mask[0 .. words-1], and the unit's
 * physical match bits (bit p: field p holds all the key's positions) —
 * line_key_masks then line_matches, for one shape.  The portable probes
 * are apbf_line.c's; vector ones come from simd.c, identical in
 * every bit. */
typedef uint64_t (*tdbf_line_probe)(const uint64_t *unit, const tdbf_hash128 *h,
                                    uint64_t *mask);

/* A mark: an insert's probe and write in one pass.  It returns the unit's
 * physical match bits as they were (a probe's), and sets the key's bits in
 * the fields `set` covers: unit[w] |= mask[w] & set[w] for every word, set
 * holding all ones over the fields of ages 0 .. k-1 and zeros elsewhere.
 * Words outside those fields are written back unchanged, so a mark is for
 * a unit no other thread writes (the sequential filter).
 *
 * Why one pass: an insert at a DRAM-sized window costs what the processor
 * can overlap of consecutive inserts' misses, and that is bounded by how
 * many instructions each insert puts in the out-of-order window (a miss
 * holds retirement, and the window is a few hundred entries).  Keeping the
 * masks in registers from the probe to the write, with no spill, no second
 * loop and no call between, leaves room for more inserts in flight. */
typedef uint64_t (*tdbf_line_mark)(uint64_t *unit, const tdbf_hash128 *h, const uint64_t *set);

static TDBF_ALWAYS_INLINE uint64_t line_probe_mark(uint64_t *unit, const tdbf_hash128 *h,
                                                   const uint64_t *set, unsigned width,
                                                   unsigned b, unsigned words)
{
    uint64_t mask[LINE_MAX_WORDS];
    line_key_masks(h, width, b, words, mask);
    uint64_t match = line_matches(unit, mask, width, words);
#pragma GCC unroll 16
    for (unsigned w = 0; w < words; w++)
        unit[w] |= mask[w] & set[w];
    return match;
}

/* The vector probe or mark of a shape on `path` (TDBF_SIMD_AVX2 or
 * _AVX512), or NULL where this build has none; the caller checks the CPU
 * first (tdbf_simd_in_use). */
tdbf_line_probe tdbf_line_simd_probe(tdbf_simd path, unsigned words, unsigned width, unsigned b);
tdbf_line_mark tdbf_line_simd_mark(tdbf_simd path, unsigned words, unsigned width, unsigned b);

/* ---- rings: apbf-line's ring of fields, shifted by its owner -------------
 *
 * A design that moves generations by something other than a count (the
 * time-window tlbf_line.c) keeps one or more rings of apbf_line.c, each
 * the whole of an APBF_LINE filter's state: units, fields, ring head, the
 * sweep of the spare.  The owner decides when a ring shifts; a ring's
 * adds sweep ceil(units / g) units each, g the generation it was planned
 * for, and a shift first empties what the sweep has not reached. */
typedef struct line_filter tdbf_line_ring;

/* The margin of apbf-line's planner: it sizes a filter (and a ring) for
 * a modelled FP of cfg.error / TDBF_LINE_PLAN_MARGIN, not cfg.error.  The
 * model (model.c) is an average over simulated units, and the
 * filters it sizes measured within -6.2 .. +7.3 % of it (windows 10^4 ..
 * 10^7, errors 0.1 .. 10^-4): aimed at the target itself, a filter ran
 * over it about half the time (0.0102 at 0.01, 0.00101 at 0.001, a 10^6
 * window).  The margin covers the model's largest measured excess and a
 * filter's own spread of unit loads (a filter with a spare measured 5 %
 * over the model at 0.001), so the measured FP, with its 95 % interval,
 * is at or below cfg.error (test_apbf_line: test_fp_within_target).  It
 * costs about 2 % more bits per key.  A caller that adds its own margin on
 * top of a ring's plan (tdbf_line_plan_ring) counts this one already;
 * tdbf_line_load_for takes the error as given, without it. */
#define TDBF_LINE_PLAN_MARGIN 1.10

/* The modelled FP the planner aims at for a target `error`. */
static inline double tdbf_line_planned_error(double error)
{
    return error / TDBF_LINE_PLAN_MARGIN;
}

/* The ring apbf-line would plan for cfg (shape, unit, error, max_memory)
 * and a count window of `window` keys, in the layout with a spare field:
 * a ring whose owner shifts it all at once (tlbf-line) cannot take the
 * rolling turns, which follow the ring's own adds. */
int tdbf_line_plan_ring(const tdbf_config *cfg, uint64_t window, tdbf_line_plan *out);

/* The largest load (keys per unit in a generation) at which the model's
 * FP of shape (k, l, b, unit) meets `error`, searched from `start`; 0 for
 * a shape apbf-line has not or no load above 2^-20.  A few points of the
 * model's curve the first time (about a millisecond each), then cached. */
double tdbf_line_load_for(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                          double error, double start);

/* A plan's shape and size fields (all but fp) for a ring of shape (k, l,
 * b, unit) with `units` units and generation g. */
void tdbf_line_fill_shape(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                          uint64_t units, uint64_t g, tdbf_line_plan *out);

/* A ring of plan's shape and size, empty, head at field 0, on the vector
 * path in use; memory from f's allocator.  TDBF_OK or TDBF_ENOMEM. */
int  tdbf_line_ring_open(tdbf *f, const tdbf_line_plan *plan, tdbf_line_ring **out);
void tdbf_line_ring_close(tdbf *f, tdbf_line_ring *r);
/* Test, then mark the key in the ring's newest k fields; sweep. */
int  tdbf_line_ring_add(tdbf_line_ring *r, const tdbf_hash128 *h);
/* Bit a set iff the key matches the field of age a, a < k + l. */
uint64_t tdbf_line_ring_ages(const tdbf_line_ring *r, const tdbf_hash128 *h);
/* One generation on: the spare emptied (the rest of the sweep), made the
 * newest field; the inserts of the generation start again at 0. */
void tdbf_line_ring_shift(tdbf_line_ring *r);
/* The ring's shape and size as a plan (fp: the model at its g), and the
 * inserts of its current generation. */
void tdbf_line_ring_plan(const tdbf_line_ring *r, tdbf_line_plan *out);
uint64_t tdbf_line_ring_fill(const tdbf_line_ring *r);
/* Bytes allocated for the ring, its struct included; and what a ring of
 * `plan` would take, before opening it (a memory cap's check). */
uint64_t tdbf_line_ring_bytes(const tdbf_line_ring *r);
double   tdbf_line_ring_bytes_planned(const tdbf_line_plan *plan);
/* The first word of the key's unit (unit_bits / 64 words), for an owner's
 * prefetch; the vector path the ring's probes take. */
const uint64_t *tdbf_line_ring_unit(const tdbf_line_ring *r, const tdbf_hash128 *h);
tdbf_simd tdbf_line_ring_simd(const tdbf_line_ring *r);
/* P(a run of k matches among ages 0 .. k+l-1) when age a matches with
 * probability r[a], independently (the model's inner step). */
double tdbf_line_run_probability(unsigned k, unsigned l, const double *r);
/* The FP of a never-added key from the ring's bits (stats), sampled. */
double tdbf_line_ring_estimated(const tdbf_line_ring *r);
/* Serialized as APBF_LINE's payload (docs/format.md). */
uint64_t tdbf_line_ring_payload_size(const tdbf_line_ring *r);
void tdbf_line_ring_save(const tdbf_line_ring *r, tdbf_out *out);
/* Reads one ring's payload, all of it checked; TDBF_OK, TDBF_ECORRUPT,
 * TDBF_EVERSION, TDBF_ETOOBIG, TDBF_ENOMEM or the read's error. */
int  tdbf_line_ring_load(tdbf *f, tdbf_in *in, uint64_t max_memory, tdbf_line_ring **out);

#endif
