/*
 * bin_ops.h — the operations on one bin: the purge, the search, the insert
 * and the overflow, the add and the query, and their copies compiled for
 * the planner's geometries (private to designs/sqf/; sqf_core.c has the
 * rules they implement, bin.h the word-level steps).
 *
 * A header of static functions because two files compile it: sqf_core.c
 * for every CPU, and bin_x86.c for x86-64 CPUs with POPCNT and BMI2,
 * where bin.h's counts and selects are single instructions.  The two
 * builds write the same bits (tests/unit/test_sqf.c runs the golden
 * streams on both).
 */
#ifndef TDBF_SQF_BIN_OPS_H
#define TDBF_SQF_BIN_OPS_H

#include <string.h>

#include "designs/sqf/bin.h"

/* The spare (sqf_core.c): a spilled entry's bits in the word of its
 * generation; does the spare hold this fingerprint in a live word? */
void tdbf_sqf_spare_add(sqf_core *c, const sqf_print *p, uint64_t gen);
int tdbf_sqf_spare_contains(const sqf_core *c, const sqf_print *p);

/* A fingerprint's place in the spare: its hash, and the first word of
 * its line (a word per generation modulo 8). */
static TDBF_ALWAYS_INLINE uint64_t spare_hash(const sqf_print *p)
{
    return tdbf_mix64(p->bin ^ tdbf_mix64(((uint64_t)p->q << 32) | p->rem));
}

static TDBF_ALWAYS_INLINE uint64_t spare_first_word(const sqf_shape *s, uint64_t x)
{
    return tdbf_reduce(x, s->spare_lines) * SQF_TAGS;
}

/* Ask for a fingerprint's spare line.  Inline, as every prefetch helper
 * (util/bits.h): in sqf_core.c's own copy of the operations GCC deleted
 * the calls to an out-of-line one, which only prefetches. */
static TDBF_ALWAYS_INLINE void spare_prefetch(const sqf_core *c, const sqf_print *p)
{
    tdbf_prefetch(c->spare + spare_first_word(&c->shape, spare_hash(p)), 0);
}

/* The copy of the operations for x86-64 with POPCNT and BMI2 (bin_x86.c),
 * and whether this CPU runs it and the caller has not asked for the
 * portable code (tdbf_set_simd). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SQF_X86_PATH 1
sqf_bin_ops tdbf_sqf_x86_ops(const sqf_shape *s);
int tdbf_sqf_x86_usable(void);
#else
#define SQF_X86_PATH 0
#endif

/* ---- a bin's state and entries --------------------------------------------- */

static TDBF_ALWAYS_INLINE unsigned state_last_write(const uint64_t *w)
{
    return (unsigned)(w[0] & (SQF_GENS - 1));
}

static TDBF_ALWAYS_INLINE unsigned state_last_spill(const uint64_t *w)
{
    return (unsigned)(w[0] >> SQF_GEN_BITS) & (SQF_GENS - 1);
}

static TDBF_ALWAYS_INLINE unsigned state_spill_range(const uint64_t *w)
{
    return (unsigned)(w[0] >> (2 * SQF_GEN_BITS)) & SQF_MAX_QUOTIENTS;
}

/* An entry's age in generations: d since the bin's last write gw, plus
 * its tag's distance below gw (the essay's decoding rule). */
static TDBF_ALWAYS_INLINE unsigned age_of(uint64_t slot, unsigned gw, unsigned d)
{
    return d + mod_diff(gw, slot, SQF_TAGS);
}

/* The purge's pass over the slots, a window of whole slots at a time:
 * the expired ones are noted in `gone` (bit i: entry i), and from the
 * first of them on the kept ones are packed down behind the writer
 * (which never passes the reader); the slots before it stay where they
 * are. */
typedef struct purge_pass {
    uint64_t   gone[SQF_MAX_SLOTS / 64];
    bit_writer out;
    int        writing;   /* an expired entry was met: out is in use */
} purge_pass;

/* The window of `count` slots from slot i (count <= 64 / (r + 3));
 * lanes: bit 0 of each whole slot of a window (slot_lanes). */
static TDBF_ALWAYS_INLINE void purge_window(sqf_geom g, uint64_t *w, purge_pass *pp, unsigned i,
                                            unsigned count, uint64_t lanes, unsigned gw, unsigned d)
{
    unsigned sb = geom_slot_bits(g), bits = count * sb;
    uint64_t valid = lanes & low_mask(bits);
    uint64_t window = field_window(w, g.words, slot_pos(g, i));
    uint64_t found = expired_in_window(window, lanes, gw, d) & valid;
    if (found == 0) {
        if (pp->writing)
            writer_put(&pp->out, window & low_mask(bits), bits);
        return;
    }
    if (!pp->writing) {
        pp->out = writer_at(w, slot_pos(g, i));
        pp->writing = 1;
    }
    uint64_t keep = valid & ~found;
    writer_put(&pp->out, compress_bits(window, keep * low_mask(sb)), count_ones(keep) * sb);
    field_set(pp->gone, i, count, lane_flags(found, lanes, sb));
}

/* The expiry rule, in place: the entries older than L leave; d > 0
 * generations since the bin's last write gw.  The whole windows come
 * first, each of the same constant size, then the last few slots. */
static TDBF_ALWAYS_INLINE void bin_purge(sqf_geom g, uint64_t *w, unsigned gw, unsigned d)
{
    uint64_t h[SQF_HEADER_WORDS];
    header_load(g, w, h);
    unsigned n = header_entries(g, h);
    if (n == 0)
        return;
    if (d > SQF_KEPT) {   /* all expired: an empty header and no slots */
        range_clear(w, SQF_HEADER_POS, slot_pos(g, n));
        return;
    }
    purge_pass pp;
    memset(pp.gone, 0, sizeof pp.gone);
    pp.writing = 0;
    uint64_t lanes = slot_lanes(g);
    unsigned per_window = 64 / geom_slot_bits(g), whole = n - n % per_window;
    for (unsigned i = 0; i < whole; i += per_window)
        purge_window(g, w, &pp, i, per_window, lanes, gw, d);
    if (whole < n)
        purge_window(g, w, &pp, whole, n - whole, lanes, gw, d);
    if (pp.writing) {
        writer_end(&pp.out, slot_pos(g, n));
        header_drop(g, w, h, pp.gone);
    }
}

/* A 128-byte bin is two cache lines, and which slots an operation reads
 * depends on the header in the first: ask for the second at once, so the
 * two misses of a bin in DRAM overlap instead of following each other. */
static TDBF_ALWAYS_INLINE void ask_second_line(sqf_geom g, const uint64_t *w, int for_write)
{
    if (g.words > 8)
        tdbf_prefetch(w + 8, for_write);
}

/* The first live entry of slots [first, end) holding `rem`, or -1. */
static TDBF_ALWAYS_INLINE int run_find(sqf_geom g, const uint64_t *w, unsigned first, unsigned end,
                                       uint32_t rem, unsigned gw, unsigned d)
{
    for (unsigned i = first; i < end; i++) {
        uint64_t slot = slot_get(g, w, i);
        if ((uint32_t)(slot >> SQF_TAG_BITS) == rem && age_of(slot, gw, d) <= SQF_KEPT)
            return (int)i;
    }
    return -1;
}

static int mark_live(unsigned gs, unsigned spill, uint64_t gen)
{
    return spill != 0 && mod_diff(gen, gs, SQF_GENS) <= SQF_KEPT;
}

/* Does the spare have to answer for quotient q of this bin? */
static int spill_covers(const sqf_shape *s, const uint64_t *w, unsigned q, uint64_t gen)
{
    unsigned spill = state_spill_range(w);
    return mark_live(state_last_spill(w), spill, gen) && q + spill >= s->quotients;
}

/* ---- operations --------------------------------------------------------- */

/* The entry to spill from a full bin that `p` joins: the largest q, the
 * oldest on ties (the first stored of those, the newcomer being last of
 * its run); `p` itself when its q is above every stored one.  Every entry
 * is live (the bin was purged in this generation), its age (gen - tag)
 * mod 8.  Returns its slot's index, or -1 for `p`. */
static TDBF_ALWAYS_INLINE int overflow_victim(sqf_geom g, const uint64_t *w,
                                              const uint64_t h[SQF_HEADER_WORDS], unsigned q,
                                              uint64_t gen, unsigned *victim_q)
{
    unsigned n = g.slots;
    unsigned top_q = header_one(g, h, n - 1) - (n - 1);
    if (q > top_q)
        return -1;
    *victim_q = top_q;
    unsigned first, end, victim = n - 1, oldest = 0;
    quotient_run(g, h, top_q, &first, &end);
    for (unsigned i = end; i > first; i--) {   /* from the last: ties go to the first */
        unsigned age = mod_diff(gen, slot_get(g, w, i - 1), SQF_TAGS);
        if (age >= oldest) {
            oldest = age;
            victim = i - 1;
        }
    }
    return (int)victim;
}

/* The overflow rule: the bin holds C entries and `p` (tagged gen) joins;
 * one of them moves to the spare and the spill mark covers its q. */
static TDBF_ALWAYS_INLINE void bin_overflow(sqf_core *c, sqf_geom g, uint64_t *w, const sqf_print *p,
                                            uint64_t gen)
{
    uint64_t h[SQF_HEADER_WORDS];
    header_load(g, w, h);
    sqf_print victim = *p;
    uint64_t victim_gen = gen;
    int v = overflow_victim(g, w, h, p->q, gen, &victim.q);
    if (v >= 0) {
        uint64_t slot = slot_get(g, w, (unsigned)v);
        victim.rem = (uint32_t)(slot >> SQF_TAG_BITS);
        victim_gen = slot;   /* its tag: its generation modulo 8 */
        entry_remove(g, w, (unsigned)v, victim.q + (unsigned)v, g.slots);
        unsigned first, end;
        header_load(g, w, h);
        quotient_run(g, h, p->q, &first, &end);
        entry_insert(g, w, p->q, end, ((uint64_t)p->rem << SQF_TAG_BITS) | (gen & (SQF_TAGS - 1)),
                     g.slots - 1);
    }
    tdbf_sqf_spare_add(c, &victim, victim_gen);
    unsigned spill = mark_live(state_last_spill(w), state_spill_range(w), gen) ? state_spill_range(w) : 0;
    if (g.quotients - victim.q > spill)
        spill = g.quotients - victim.q;
    field_set(w, SQF_GEN_BITS, SQF_GEN_BITS + SQF_SAFE_BITS,
              (gen & (SQF_GENS - 1)) | (uint64_t)spill << SQF_GEN_BITS);
}

/* Test-and-set on one bin: purge at the generation's first write, then
 * refresh the key's entry or insert it (spilling one when full). */
static TDBF_ALWAYS_INLINE int add_in_bin(sqf_core *c, sqf_geom g, const sqf_print *p)
{
    uint64_t gen = c->gen, *w = bin_of(c, p->bin);
    ask_second_line(g, w, 1);
    int covered = spill_covers(&c->shape, w, p->q, gen);
    if (covered)   /* a new entry will read the spare: ask for it now */
        spare_prefetch(c, p);
    unsigned gw = state_last_write(w);
    unsigned d = mod_diff(gen, gw, SQF_GENS);
    if (d != 0) {
        bin_purge(g, w, gw, d);
        gw = (unsigned)(gen & (SQF_GENS - 1));
        w[0] = (w[0] & ~low_mask(SQF_GEN_BITS)) | gw;
    }
    uint64_t h[SQF_HEADER_WORDS];
    header_load(g, w, h);
    unsigned first, end;
    quotient_run(g, h, p->q, &first, &end);
    uint64_t tag = gen & (SQF_TAGS - 1);
    int found = run_find(g, w, first, end, p->rem, gw, 0);
    if (found >= 0) {   /* refresh */
        field_set(w, slot_pos(g, (unsigned)found), SQF_TAG_BITS, tag);
        return 1;
    }
    /* A new entry even when the spare says present: otherwise that false
     * positive could later turn into a false negative. */
    int present = covered && tdbf_sqf_spare_contains(c, p);
    unsigned n = header_entries(g, h);
    if (n < g.slots)
        entry_insert(g, w, p->q, end, ((uint64_t)p->rem << SQF_TAG_BITS) | tag, n);
    else
        bin_overflow(c, g, w, p, gen);
    return present;
}

/* A query reads the bin in place: the quotient's run, then its slots. */
static TDBF_ALWAYS_INLINE int contains_in_bin(const sqf_core *c, sqf_geom g, const sqf_print *p)
{
    uint64_t gen = c->gen;
    const uint64_t *w = bin_of(c, p->bin);
    ask_second_line(g, w, 0);
    int covered = spill_covers(&c->shape, w, p->q, gen);
    if (covered)   /* its line, while the bin is searched */
        spare_prefetch(c, p);
    unsigned gw = state_last_write(w);
    unsigned d = mod_diff(gen, gw, SQF_GENS);
    if (d <= SQF_KEPT) {   /* else every entry of the bin has expired */
        uint64_t h[SQF_HEADER_WORDS];
        header_load(g, w, h);
        unsigned first, end;
        quotient_run(g, h, p->q, &first, &end);
        if (run_find(g, w, first, end, p->rem, gw, d) >= 0)
            return 1;
    }
    return covered && tdbf_sqf_spare_contains(c, p);
}

/* ---- the planner's shapes, compiled for their geometry -------------------
 * The planner's least-memory shapes have, for each error rate, one bin
 * size, one remainder width and one header length (Q and C move a little
 * with W).  With those three constant, every mask, shift and loop bound
 * of bin.h is folded at compile time; any other shape takes the generic
 * path, the same code with the numbers in registers. */

#define GEOM_KEY(words, header_words, rem_bits) \
    ((words) << 16 | (header_words) << 8 | (rem_bits))
#define GEOM(words, header_words, rem_bits, s) \
    ((sqf_geom){ words, header_words, rem_bits, (s)->quotients, (s)->slots })
/* Each planned geometry: X(bin words, header words, r). */
#define PLANNED_GEOMS(X) \
    X(16, 3, 6)   /* 128-byte bins: 0.02 */ \
    X(16, 3, 7)   /* 0.01 */ \
    X(16, 3, 8)   /* 0.005 */ \
    X(16, 3, 10)  /* 0.001 */ \
    X(8, 2, 6)    /* 64-byte bins: 0.01 */ \
    X(8, 2, 9)    /* 0.001 */

static unsigned geom_key(const sqf_shape *s)
{
    return GEOM_KEY(s->bin_words, (s->quotients + s->slots + 63) / 64, s->rem_bits);
}

/* add_W_H_R and contains_W_H_R for each planned geometry. */
#define GEOM_OPS(words, header_words, rem_bits) \
    static int add_##words##_##header_words##_##rem_bits(sqf_core *c, const sqf_print *p) \
    { \
        return add_in_bin(c, GEOM(words, header_words, rem_bits, &c->shape), p); \
    } \
    static int contains_##words##_##header_words##_##rem_bits(const sqf_core *c, \
                                                              const sqf_print *p) \
    { \
        return contains_in_bin(c, GEOM(words, header_words, rem_bits, &c->shape), p); \
    }
PLANNED_GEOMS(GEOM_OPS)

static int add_any(sqf_core *c, const sqf_print *p)
{
    return add_in_bin(c, geom_of(&c->shape), p);
}

static int contains_any(const sqf_core *c, const sqf_print *p)
{
    return contains_in_bin(c, geom_of(&c->shape), p);
}

#define OPS_CASE(words, header_words, rem_bits) \
    case GEOM_KEY(words, header_words, rem_bits): \
        ops.add = add_##words##_##header_words##_##rem_bits; \
        ops.contains = contains_##words##_##header_words##_##rem_bits; \
        break;

/* The operations compiled for this shape's geometry, else the generic
 * ones: chosen once, at init, so an operation pays one indirect call. */
static sqf_bin_ops bin_ops_for(const sqf_shape *s)
{
    sqf_bin_ops ops = { add_any, contains_any };
    switch (geom_key(s)) {
    PLANNED_GEOMS(OPS_CASE)
    default:
        break;
    }
    return ops;
}

#endif
