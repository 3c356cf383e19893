/*
 * apbf_line.c — the line-local age-partitioned filter ("apbf-line"), count
 * window.
 *
 * The APBF of paper 004 (section 5) keeps k + l slices as separate bit
 * arrays: a query walks Algorithm 1 through them, each read depending on
 * the one before, and an insert writes k random cache lines.  apbf-line
 * keeps the APBF's semantics — k + l age slices in a ring, an insert
 * marks the k newest, a key is present while a run of k consecutive slices
 * all match it, a shift every g inserts retires the oldest — but gives
 * every key ONE unit of memory (a 64-byte cache line, or 128 bytes: two
 * adjacent lines, which the hardware fetches as a pair), and cuts every
 * unit into fields, one per slice: field p of every unit belongs to ring
 * slice p.  An operation reads (and an insert writes) that one unit; the
 * walk runs in registers.
 *
 *     one unit = U bits (512 or 1024), F fields of W bits, F W = U,
 *     W = 16, 32 or 64: every field inside one 64-bit word
 *     +--------+--------+--------+-- ... --+---------+
 *     | field 0| field 1| field 2|         |field F-1|
 *     +--------+--------+--------+-- ... --+---------+
 *     field p holds bits p*W .. p*W + W - 1, within word p*W / 64
 *
 *     ages:  physical field (head + a) mod F has age a; ages 0 .. k-1 are
 *            the ones an insert marks, 0 .. k+l-1 the ones a query reads;
 *            F = k + l (rolling), or k + l + 1 with a spare (age k + l,
 *            being emptied for the next shift)
 *
 * A key x hashes (hash.h, once) to its unit, and in each physical field p
 * to b bit offsets (b = cfg.block_hashes, 1 .. 4), taken from one remixed
 * hash per unit word at the bits where the field sits (ring.h): the
 * offsets must differ from field to field, or two keys colliding in one
 * field would collide in every field they share generations in, and the
 * run test would see correlated matches.  They form x's b-bit mask m_p
 * for field p; the field matches x when (field & m_p) == m_p.  A probe
 * builds the masks of all F fields before it reads the unit, then turns
 * the compares into an F-bit match mask (a few word or vector
 * operations: simd.c runs them on AVX2 or AVX-512), rotated to ages,
 * whose run of k ones is found in log2 k shifts and ANDs: no branch
 * depends on the data.  Fields
 * aligned in words cost some freedom (F = U / W is 8, 16, 32 or 64, so
 * l = F - k, or F - 1 - k with a spare) and save the shifts and masks of
 * straddling fields.
 *
 * Insert: test (as a query), then set x's b bits in the fields of ages
 * 0 .. k-1 of its unit.  Every g inserts a generation ends: the field of
 * age k+l-1 must be emptied and become age 0.  Emptying a field in all
 * units at once is a stop-the-world pause (10 ms at a 10^8 window), so it
 * is spread over the inserts, one of two ways:
 *   - Rolling turns (F = k + l, the default).  Each insert moves a sweep
 *     on by units / g units (a remainder kept without division: turned =
 *     floor(fill units / g)), and every unit the sweep passes takes its
 *     turn: its oldest field is emptied and is its age 0 from then on
 *     (head_turned = head - 1 mod F, for units below `turned`).  A unit's
 *     turns come exactly g inserts apart, at its own phase, so each unit is
 *     an APBF with generations of g whose window argument (below) holds
 *     unit by unit; when the sweep has passed every unit the filter's
 *     head moves and the sweep restarts.  No field is spare, and since the
 *     units are at every phase of their generations at once, the FP no
 *     longer peaks before a shift: it is the same at every moment.
 *   - A spare (F = k + l + 1: cfg.concurrent, and tlbf_line.c's rings,
 *     which their owner shifts all at once).  The whole ring shifts every
 *     g inserts: head moves back one field, the spare becomes age 0 and
 *     the field of age k+l-1 becomes the spare.  Each insert empties the
 *     spare of the next ceil(units / g) units, position min(units, fill *
 *     ceil(units / g)), so after g inserts every spare is empty, when
 *     needed.  Concurrent adds need this: a rolling turn would race with
 *     an add writing the field it empties, while a late sweep of a spare
 *     can back off (concurrent.c).  It costs one field of
 *     every unit (6 % at F = 16) and FP at its worst before each shift.
 * Which layout a filter has follows from (k, l, U): F and F + 1 are never
 * both powers of two, so one of k + l and k + l + 1 divides U into a
 * valid width (layout_spare).
 *
 * Window and expiry (as APBF).  A key inserted in generation G marks ages
 * 0 .. k-1 of its unit; s turns (or shifts) of that unit later it sits in
 * ages s .. s+k-1, all read by a query while s <= l.  The unit's turns
 * come g inserts apart, so the (l+1)-th after x's insert comes no sooner
 * than l g inserts later: the window is w = l g, g = ceil(window / l), as
 * the APBF's.  A key may be reported for up to (k + l) g inserts (the
 * expiry bound).
 *
 * False positives (the model) and the planner (tdbf_plan_apbf_line):
 * model.c.  Many threads at once: concurrent.c.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"
#include "util/wide.h"
#include "designs/apbf_line/internal.h"
#include "model/inference.h"

/* ---- turns: how the ring moves on ----------------------------------------
 * The placement of the fields an insert marks, the rolling turns, the
 * spare's sweep and the end of a generation (the essay's two layouts):
 * what the adds here, simd.c's (which inline the common case and call
 * here for the rest) and the rings' owners share. */

/* The ring's placement for the current head: the fields an insert marks
 * (ages 0 .. k-1, contiguous modulo F), at head and at head_turned; and
 * the field a rolling turn empties. */
void tdbf_line_place_ring(line_filter *t)
{
    unsigned per_word = 64 / t->field_bits;
    t->head_turned = t->head == 0 ? t->fields - 1 : t->head - 1;
    memset(t->set_mask, 0, sizeof t->set_mask);
    for (unsigned turned = 0; turned < 2; turned++) {
        unsigned head = head_of(t, turned);
        for (unsigned a = 0; a < t->k; a++) {
            unsigned p = physical_at(t, head, a);
            t->set_mask[turned][p / per_word] |= field_ones(t) << (p % per_word * t->field_bits);
        }
    }
    t->turn_word = field_word(t, t->head_turned);
    t->turn_keep = ~(field_ones(t) << field_shift(t, t->head_turned));
}

/* Rolling: the turns due by this fill, turned = floor(fill units / g),
 * kept without a division (the remainder is fill units mod g). */
void tdbf_line_set_turns(line_filter *t)
{
    if (t->spare) {
        t->turned = 0;
        t->turn_rest = 0;
        return;
    }
    /* min(fill, g) * units / g <= units: the quotient fits in 64 bits. */
    tdbf_u128 done = tdbf_mul_wide(t->fill < t->g ? t->fill : t->g, t->units);
    t->turned = tdbf_div_wide(done, t->g, &t->turn_rest);
    TDBF_ASSERT(t->fill > t->g || turns_account_for_fill(t));
}

/* Unit `index`'s turn: its oldest field (age k + l - 1, physical
 * head_turned) is emptied and becomes its age 0. */
static void take_turn(line_filter *t, uint64_t index)
{
    t->bits[index * t->unit_words + t->turn_word] &= t->turn_keep;
}

void tdbf_line_take_turns(line_filter *t)
{
    while (t->turn_rest >= t->g && t->turned < t->units) {
        t->turn_rest -= t->g;
        take_turn(t, t->turned++);
    }
    TDBF_ASSERT(turns_account_for_fill(t));
}

int tdbf_line_turn_then_answer(line_filter *t, int present)
{
    tdbf_line_take_turns(t);
    return present;
}

void tdbf_line_clear_spare(line_filter *t, uint64_t from, uint64_t to)
{
    unsigned p = physical(t, t->k + t->l);
    uint64_t keep = ~(field_ones(t) << field_shift(t, p));
    uint64_t *word = t->bits + from * t->unit_words + field_word(t, p);
    for (uint64_t i = from; i < to; i++, word += t->unit_words)
        *word &= keep;
}

void tdbf_line_shift(line_filter *t)
{
    /* Normally a no-op: the sweep has emptied every spare by now, or
     * every unit has taken its turn. */
    if (t->spare)
        tdbf_line_clear_spare(t, sweep_position(t), t->units);
    else
        while (t->turned < t->units)
            take_turn(t, t->turned++);
    TDBF_ASSERT(t->spare || t->turned == t->units);
    t->head = t->head_turned;
    t->fill = 0;
    t->turned = 0;
    t->turn_rest = 0;
    t->shifts++;
    tdbf_line_place_ring(t);
}

int tdbf_line_shift_then_add(tdbf *f, tdbf_hash128 h)
{
    tdbf_line_shift(f->state.impl);
    return f->state.add_hashed(f, h);
}

/* One add's share of the turns: units / g of them on average. */
static TDBF_ALWAYS_INLINE void roll(line_filter *t)
{
    t->turn_rest += t->units;
    if (t->turn_rest >= t->g)
        tdbf_line_take_turns(t);
}

/* ---- probes: a key's masks and the unit's matching fields -------------- */

/* The portable probe of each shape (ring.h), the shape's numbers constants
 * in it; simd.c has the vector ones.  [unit words 8, 16][width 16,
 * 32, 64][b - 1]. */
#define PORTABLE_PROBE(W, B, WORDS)                                                        \
    static uint64_t probe_##W##_##B##_##WORDS(const uint64_t *unit, const tdbf_hash128 *h, \
                                              uint64_t *mask)                              \
    {                                                                                       \
        line_key_masks(h, W, B, WORDS, mask);                                               \
        return line_matches(unit, mask, W, WORDS);                                          \
    }                                                                                       \
    static uint64_t mark_##W##_##B##_##WORDS(uint64_t *unit, const tdbf_hash128 *h,        \
                                             const uint64_t *set)                           \
    {                                                                                       \
        return line_probe_mark(unit, h, set, W, B, WORDS);                                  \
    }
#define PORTABLE_PROBES_OF_WIDTH(W, WORDS)                                  \
    PORTABLE_PROBE(W, 1, WORDS) PORTABLE_PROBE(W, 2, WORDS)                 \
    PORTABLE_PROBE(W, 3, WORDS) PORTABLE_PROBE(W, 4, WORDS)
PORTABLE_PROBES_OF_WIDTH(16, 8)
PORTABLE_PROBES_OF_WIDTH(32, 8)
PORTABLE_PROBES_OF_WIDTH(64, 8)
PORTABLE_PROBES_OF_WIDTH(16, 16)
PORTABLE_PROBES_OF_WIDTH(32, 16)
PORTABLE_PROBES_OF_WIDTH(64, 16)

#define PORTABLE_ROW(KIND, W, WORDS)                                        \
    {KIND##_##W##_1_##WORDS, KIND##_##W##_2_##WORDS, KIND##_##W##_3_##WORDS, \
     KIND##_##W##_4_##WORDS}
static const tdbf_line_probe portable_probes[2][3][LINE_MAX_B] = {
    {PORTABLE_ROW(probe, 16, 8), PORTABLE_ROW(probe, 32, 8), PORTABLE_ROW(probe, 64, 8)},
    {PORTABLE_ROW(probe, 16, 16), PORTABLE_ROW(probe, 32, 16), PORTABLE_ROW(probe, 64, 16)},
};
static const tdbf_line_mark portable_marks[2][3][LINE_MAX_B] = {
    {PORTABLE_ROW(mark, 16, 8), PORTABLE_ROW(mark, 32, 8), PORTABLE_ROW(mark, 64, 8)},
    {PORTABLE_ROW(mark, 16, 16), PORTABLE_ROW(mark, 32, 16), PORTABLE_ROW(mark, 64, 16)},
};
/* The whole add and query of each 64-bit-field shape (internal.h). */
#define PORTABLE_ENTRY(B, WORDS)                                                            \
    static TDBF_ALWAYS_INLINE int add_##B##_##WORDS(tdbf *f, tdbf_hash128 h)                \
    {                                                                                       \
        line_filter *t = f->state.impl;                                                     \
        if (__builtin_expect(t->fill == t->g, 0))                                           \
            return tdbf_line_shift_then_add(f, h);                                          \
        line_site site = line_site_of(t, &h, WORDS);                                        \
        uint64_t match = line_probe_mark(site.unit, &h, site.set, 64, B, WORDS);            \
        return line_add_done(t, run_in_short(t, site.head, match));                         \
    }                                                                                       \
    static TDBF_ALWAYS_INLINE int contains_##B##_##WORDS(const tdbf *f, tdbf_hash128 h)     \
    {                                                                                       \
        const line_filter *t = f->state.impl;                                               \
        uint64_t mask[LINE_MAX_WORDS];                                                      \
        line_site site = line_site_of(t, &h, WORDS);                                        \
        return run_in_short(t, site.head, probe_64_##B##_##WORDS(site.unit, &h, mask));     \
    }                                                                                       \
    LINE_BATCH_ENTRIES(, B##_##WORDS, WORDS)
PORTABLE_ENTRY(1, 8) PORTABLE_ENTRY(2, 8) PORTABLE_ENTRY(3, 8) PORTABLE_ENTRY(4, 8)
PORTABLE_ENTRY(1, 16) PORTABLE_ENTRY(2, 16) PORTABLE_ENTRY(3, 16) PORTABLE_ENTRY(4, 16)

#define PORTABLE_ENTRIES(B, WORDS)                                                          \
    {add_##B##_##WORDS, contains_##B##_##WORDS, add_many_##B##_##WORDS,                      \
     contains_many_##B##_##WORDS}
static const line_entries portable_entries[2][LINE_MAX_B] = {
    {PORTABLE_ENTRIES(1, 8), PORTABLE_ENTRIES(2, 8), PORTABLE_ENTRIES(3, 8),
     PORTABLE_ENTRIES(4, 8)},
    {PORTABLE_ENTRIES(1, 16), PORTABLE_ENTRIES(2, 16), PORTABLE_ENTRIES(3, 16),
     PORTABLE_ENTRIES(4, 16)},
};

/* The probe and mark of the filter's shape on the path tdbf_simd_in_use
 * names. */
static void choose_probe(line_filter *t)
{
    unsigned size = t->unit_words == 16, wide = t->field_log2 - 4;
    t->path = tdbf_simd_in_use();
    t->probe = tdbf_line_simd_probe(t->path, t->unit_words, t->field_bits, t->b);
    t->mark = tdbf_line_simd_mark(t->path, t->unit_words, t->field_bits, t->b);
    t->entries = tdbf_line_simd_entries(t->path, t->unit_words, t->b);
    if (!t->probe || !t->mark) {
        t->path = TDBF_SIMD_PORTABLE;
        t->probe = portable_probes[size][wide][t->b - 1];
        t->mark = portable_marks[size][wide][t->b - 1];
        t->entries = portable_entries[size][t->b - 1];
    }
    if (t->field_bits != 64)
        t->entries = (line_entries){NULL, NULL, NULL, NULL};
}

/* Test, then set the key's bits in the fields of ages 0 .. k-1, then
 * sweep the next units' spares or take the turns due.  The unit's address
 * is computed before the probe builds the masks, the read comes after:
 * the arithmetic does not wait for memory. */
static TDBF_ALWAYS_INLINE int add_in_generation(line_filter *t, const tdbf_hash128 *h)
{
    uint64_t index = unit_index(t, h);
    uint64_t *unit = t->bits + index * t->unit_words;
    unsigned turned = has_turned(t, index);
    int present = run_in(t, head_of(t, turned), t->mark(unit, h, t->set_mask[turned]));
    if (t->spare) {
        uint64_t from = sweep_position(t);
        t->fill++;
        if (from < t->units)        /* (once swept, until the next shift) */
            tdbf_line_clear_spare(t, from, sweep_position(t));
    } else {
        t->fill++;
        roll(t);
    }
    return present;
}

/* The sequential add and query through the filter's mark and probe: for
 * the shapes without entries (fields of 16 or 32 bits), and the add of a
 * layout with a spare.  The others go through f->state.add_hashed and
 * f->state.contains_hashed (choose_mode), never through these. */
static int line_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    line_filter *t = f->state.impl;
    if (t->fill == t->g)
        tdbf_line_shift(t);
    return add_in_generation(t, &key->hash);
}

static int line_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    const line_filter *t = f->state.impl;
    uint64_t mask[LINE_MAX_WORDS];
    uint64_t index = unit_index(t, &key->hash);
    return run_in(t, head_of(t, has_turned(t, index)),
                  t->probe(t->bits + index * t->unit_words, &key->hash, mask));
}

/* ---- many threads at once (cfg.concurrent) ---------------------------------
 * The adds and queries, and how they stay safe: concurrent.c. */

/* The filter as the sequential fields describe it (head, fill, shifts,
 * the ring's placement), for stats and save: a concurrent filter's
 * state follows from its tickets.  Needs the adds to have stopped. */
static line_filter settled(const line_filter *t)
{
    line_filter now = *t;
    if (t->concurrent) {
        uint64_t v = __atomic_load_n(tickets_of(t), __ATOMIC_ACQUIRE);
        uint64_t r = query_generation(t, v);
        now.head = head_after(t, r);
        now.fill = v - r * t->g;
        now.shifts = t->shifts + r;
        tdbf_line_place_ring(&now);
    }
    return now;
}

/* Sequential or concurrent entry points, by the shell's flag (set from
 * cfg.concurrent or the load options).  Concurrent adds need the spare
 * (rolling turns would race with adds into the turned field):
 * TDBF_ENOTSUP for a rolling filter. */
static int choose_mode(tdbf *f, line_filter *t)
{
    if (f->concurrent && !t->spare)
        return TDBF_ENOTSUP;
    t->concurrent = f->concurrent;
    *tickets_of(t) = t->fill;
    t->items_at_base = atomic_load_explicit(&f->items, memory_order_relaxed);
    f->state.own_items = t->concurrent;       /* the tickets count the adds */
    f->state.add = t->concurrent ? tdbf_line_add_concurrent : line_add;
    f->state.contains = t->concurrent ? tdbf_line_contains_concurrent : line_contains;
    f->state.prefetch_ahead = TDBF_PREFETCH_AHEAD_LINE;   /* one unit per key */
    f->state.add_hashed = t->concurrent || t->spare ? NULL : t->entries.add;
    f->state.contains_hashed = t->concurrent ? NULL : t->entries.contains;
    return TDBF_OK;
}

/* Adds since open of a concurrent filter (ops->items). */
static uint64_t line_items(const tdbf *f)
{
    const line_filter *t = f->state.impl;
    return t->items_at_base + __atomic_load_n(tickets_of(t), __ATOMIC_ACQUIRE) - t->fill;
}

/* The unit's lines: one, or the adjacent pair of a 128-byte unit. */
static void line_prefetch(const tdbf *f, const tdbf_key *key, int for_add)
{
    const line_filter *t = f->state.impl;
    line_prefetch_unit(unit_of(t, &key->hash), t->unit_words, for_add);
}

/* A batch (ops->add_many and contains_many, at every size): the shape's
 * batch entry (internal.h), or, for a shape without entries and in
 * the concurrent mode, key by key through f->state.add and f->state.contains with the
 * same prefetches.  No add can fail. */
static int line_add_many(tdbf *f, const tdbf_key *keys, size_t n, uint64_t now_ns,
                         uint8_t *present)
{
    const line_filter *t = f->state.impl;
    if (f->state.add_hashed) {
        t->entries.add_many(f, keys, n, present);
        return TDBF_OK;
    }
    line_prefetch_first(t, keys, n, t->unit_words, 1);
    for (size_t i = 0; i < n; i++) {
        line_prefetch_next(t, keys, i, n, t->unit_words, 1);
        present[i] = (uint8_t)f->state.add(f, &keys[i], now_ns);
    }
    return TDBF_OK;
}

static void line_contains_many(const tdbf *f, const tdbf_key *keys, size_t n, uint64_t now_ns,
                               uint8_t *found)
{
    const line_filter *t = f->state.impl;
    if (f->state.contains_hashed) {
        t->entries.contains_many(f, keys, n, found);
        return;
    }
    line_prefetch_first(t, keys, n, t->unit_words, 0);
    for (size_t i = 0; i < n; i++) {
        line_prefetch_next(t, keys, i, n, t->unit_words, 0);
        found[i] = (uint8_t)f->state.contains(f, &keys[i], now_ns);
    }
}

/* ---- open, close, stats ----------------------------------------------- */

static size_t unit_array_bytes(const line_filter *t)
{
    return (size_t)(t->units * t->unit_words * sizeof(uint64_t));
}

/* run_in's constants: the starts, ages 0 .. l, and the steps by which a
 * run of n ones grows to one of k (line_has_run's, computed once). */
static void set_run_test(line_filter *t)
{
    t->run_starts = t->l + 1 >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << (t->l + 1)) - 1;
    t->run_steps = 0;
    for (unsigned n = 1; n < t->k;) {
        unsigned s = n < t->k - n ? n : t->k - n;
        t->run_shift[t->run_steps++] = (unsigned char)s;
        n += s;
    }
}

/* Everything that follows from the parameters (open and load). */
static unsigned log2_of(unsigned power_of_two)
{
    unsigned n = 0;
    while ((1u << n) < power_of_two)
        n++;
    return n;
}

static void set_shape(line_filter *t)
{
    t->unit_words = t->unit_bits / 64;
    t->spare = layout_spare(t->k, t->l, t->unit_bits) == 1;
    t->fields = t->k + t->l + t->spare;
    t->field_bits = t->unit_bits / t->fields;
    t->field_log2 = log2_of(t->field_bits);
    t->sweep_per_add = t->units / t->g + (t->units % t->g != 0);
    t->swept_at = t->units / t->sweep_per_add + 1;
    set_run_test(t);
    tdbf_line_set_turns(t);
    tdbf_line_place_ring(t);
}

int tdbf_line_ring_open(tdbf *f, const tdbf_line_plan *plan, tdbf_line_ring **out)
{
    line_filter *t = tdbf_mem_calloc(f, 1, sizeof *t);
    if (!t)
        return TDBF_ENOMEM;
    t->k = plan->k;
    t->l = plan->l;
    t->b = plan->b;
    t->unit_bits = plan->unit_bits;
    t->units = plan->units;
    t->g = plan->generation;
    set_shape(t);
    t->fp_planned = plan->fp;          /* the model, as the planner evaluated it */
    t->bits = tdbf_mem_calloc_aligned(f, unit_array_bytes(t));
    if (!t->bits) {
        tdbf_mem_free(f, t, sizeof *t);
        return TDBF_ENOMEM;
    }
    choose_probe(t);
    *out = t;
    return TDBF_OK;
}

void tdbf_line_ring_close(tdbf *f, tdbf_line_ring *t)
{
    tdbf_mem_free_aligned(f, t->bits, unit_array_bytes(t));
    tdbf_mem_free(f, t, sizeof *t);
}

uint64_t tdbf_line_ring_bytes(const tdbf_line_ring *t)
{
    return unit_array_bytes(t) + TDBF_ALIGNED_OVERHEAD + sizeof *t;
}

double tdbf_line_ring_bytes_planned(const tdbf_line_plan *plan)
{
    return (double)plan->bytes + (double)(TDBF_ALIGNED_OVERHEAD + sizeof(line_filter));
}

/* The ring open builds for cfg, within cfg.max_memory. */
static int line_size(const tdbf_config *cfg, tdbf_line_plan *plan)
{
    int rc = tdbf_plan_apbf_line(cfg, plan);
    if (rc != TDBF_OK)
        return rc;
    return tdbf_fits(tdbf_line_ring_bytes_planned(plan), cfg->max_memory) ? TDBF_OK
                                                                          : TDBF_ETOOBIG;
}

static int line_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_line_plan plan;
    int rc = line_size(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    out->k = plan.k;
    out->l = plan.l;
    out->window_items = plan.window;
    out->error_planned = plan.fp;
    out->memory_bytes = sizeof(tdbf) + (uint64_t)tdbf_line_ring_bytes_planned(&plan);
    return TDBF_OK;
}

static int line_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_line_plan plan;
    int rc = line_size(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    line_filter *t;
    rc = tdbf_line_ring_open(f, &plan, &t);
    if (rc != TDBF_OK)
        return rc;
    f->state.impl = t;
    f->state.error_planned = t->fp_planned;
    return choose_mode(f, t);
}

static void line_close(tdbf *f)
{
    tdbf_line_ring_close(f, f->state.impl);
}

/* P(d given distinct positions of W are all among the s set): s/W (s-1)/
 * (W-1) ... — the exact chance, for a unit's real fills. */
static double set_covers(unsigned d, unsigned set, unsigned width)
{
    double p = 1.0;
    for (unsigned i = 0; i < d; i++)
        p *= set > i ? (double)(set - i) / (double)(width - i) : 0.0;
    return p;
}

/* The FP of a never-inserted key in one unit, from its fields' real fills:
 * the run probability over P(its positions are all set). */
static double unit_fp_from_bits(const line_filter *t, uint64_t index, const double *distinct)
{
    const uint64_t *unit = t->bits + index * t->unit_words;
    unsigned head = head_of(t, has_turned(t, index));
    double r[TDBF_MAX_K + TDBF_MAX_L];
    for (unsigned a = 0; a < t->k + t->l; a++) {
        unsigned p = physical_at(t, head, a);
        uint64_t field = (unit[field_word(t, p)] >> field_shift(t, p)) & field_ones(t);
        unsigned set = (unsigned)__builtin_popcountll(field);
        r[a] = 0.0;
        for (unsigned d = 1; d <= t->b; d++)
            r[a] += distinct[d] * set_covers(d, set, t->field_bits);
    }
    return tdbf_line_run_probability(t->k, t->l, r);
}

/* Units read for error_estimated: all of them up to this many, else an
 * even sample (a big filter's stats stay fast). */
enum { STATS_UNITS = 1 << 16 };

double tdbf_line_ring_estimated(const tdbf_line_ring *t)
{
    double distinct[LINE_MAX_B + 1], sum = 0.0;
    tdbf_line_distinct_positions(t->b, (double)t->field_bits, distinct);
    uint64_t step = t->units > STATS_UNITS ? t->units / STATS_UNITS : 1, read = 0;
    for (uint64_t i = 0; i < t->units; i += step, read++)
        sum += unit_fp_from_bits(t, i, distinct);
    return sum / (double)read;
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void line_shape(const tdbf *f, tdbf_shape *out)
{
    const line_filter *t = f->state.impl;
    out->k = t->k;
    out->l = t->l;
    out->window_items = window_of(t->l, t->g);
    out->error_planned = t->fp_planned;
}

static void line_stats(const tdbf *f, tdbf_stats *st)
{
    line_filter now = settled(f->state.impl);
    const line_filter *t = &now;
    st->slices = t->fields;
    st->slice_bits = t->field_bits;
    st->generation_size = t->g;
    st->generation_fill = t->fill;
    st->generations = t->shifts;
    st->error_estimated = tdbf_line_ring_estimated(t);
    st->simd = t->path;
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 k, u32 l, u32 b, u32 head, u32 unit bits (512 or 1024),
 * u32 key layout (1: ring.h's derivation of a key's positions), u64 units,
 * u64 g, u64 fill, u64 shifts; then the units' words.
 * The layout, F, W, the sweep's position or the turns taken, and the spare's
 * mask follow from these. */

enum { LINE_FIELDS_BYTES = 56, KEY_LAYOUT = 1 };

uint64_t tdbf_line_ring_payload_size(const tdbf_line_ring *t)
{
    return LINE_FIELDS_BYTES + unit_array_bytes(t);
}

static uint64_t line_payload_size(const tdbf *f)
{
    return tdbf_line_ring_payload_size(f->state.impl);
}

static void line_save(const tdbf *f, tdbf_out *out)
{
    line_filter now = settled(f->state.impl);
    tdbf_line_ring_save(&now, out);
}

void tdbf_line_ring_save(const tdbf_line_ring *t, tdbf_out *out)
{
    tdbf_out_u32(out, t->k);
    tdbf_out_u32(out, t->l);
    tdbf_out_u32(out, t->b);
    tdbf_out_u32(out, t->head);
    tdbf_out_u32(out, t->unit_bits);
    tdbf_out_u32(out, KEY_LAYOUT);
    tdbf_out_u64(out, t->units);
    tdbf_out_u64(out, t->g);
    /* An owner that holds a ring past its generation (tlbf-line at its
     * cap) leaves fill above g; the sweep is complete from g on, so g says
     * the same and keeps the payload one apbf-line accepts. */
    tdbf_out_u64(out, t->fill < t->g ? t->fill : t->g);
    tdbf_out_u64(out, t->shifts);
    tdbf_out_words(out, t->bits, t->units * t->unit_words);
}

/* The units the sweep has passed have an empty spare: anything else is
 * not a filter this code wrote. */
static bool units_consistent(const void *state)
{
    const line_filter *t = state;
    if (!t->spare)
        return true;       /* rolling: every field may hold keys */
    unsigned p = physical(t, t->k + t->l);
    uint64_t spare = field_ones(t) << field_shift(t, p);
    const uint64_t *word = t->bits + field_word(t, p);
    uint64_t swept = sweep_position(t);
    for (uint64_t i = 0; i < swept; i++, word += t->unit_words)
        if (*word & spare)
            return false;
    return true;
}

int tdbf_line_ring_load(tdbf *f, tdbf_in *in, uint64_t max_memory, tdbf_line_ring **out)
{
    line_filter h = {0};
    uint32_t layout;
    tdbf_in_u32(in, &h.k);
    tdbf_in_u32(in, &h.l);
    tdbf_in_u32(in, &h.b);
    tdbf_in_u32(in, &h.head);
    tdbf_in_u32(in, &h.unit_bits);
    tdbf_in_u32(in, &layout);
    tdbf_in_u64(in, &h.units);
    tdbf_in_u64(in, &h.g);
    tdbf_in_u64(in, &h.fill);
    if (tdbf_in_u64(in, &h.shifts) != TDBF_OK)
        return in->rc;
    if (layout != KEY_LAYOUT)
        return TDBF_EVERSION;   /* positions derived otherwise: answers would differ */
    if (!shape_ok(h.k, h.l, h.b, h.unit_bits) || h.head >= fields_of(h.k, h.l, h.unit_bits) ||
        h.units < 1 || h.units > (UINT64_C(1) << 40) || h.g < 1 ||
        h.g > (UINT64_C(1) << 50) || h.fill > h.g || h.shifts > (UINT64_C(1) << 62))
        return TDBF_ECORRUPT;       /* (shifts bounded: later shifts count on) */
    if (in->remaining != h.units * (h.unit_bits / 8))
        return TDBF_ECORRUPT;
    if (!tdbf_fits((double)h.units * (h.unit_bits / 8) + sizeof h + TDBF_ALIGNED_OVERHEAD,
                   max_memory))
        return TDBF_ETOOBIG;
    set_shape(&h);
    h.fp_planned = tdbf_line_model_fp(h.k, h.l, h.b, h.unit_bits, h.units, h.g);
    void *state;
    int rc = tdbf_load_part(f, in, &h, sizeof h, offsetof(line_filter, bits),
                            h.units * h.unit_words, units_consistent, &state);
    if (rc != TDBF_OK)
        return rc;
    choose_probe(state);
    *out = state;
    return TDBF_OK;
}

static int line_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    line_filter *t;
    int rc = tdbf_line_ring_load(f, in, max_memory, &t);
    if (rc != TDBF_OK)
        return rc;
    rc = choose_mode(f, t);
    if (rc != TDBF_OK) {
        tdbf_line_ring_close(f, t);
        return rc;
    }
    f->state.impl = t;
    f->state.error_planned = t->fp_planned;
    return TDBF_OK;
}

/* ---- inference ------------------------------------------------------------
 *
 * The APBF posterior (infer_apbf.c) over the key's fields: logical slice
 * j is the field of age j, and a field is matched by other keys as a
 * block of an APBBF segment is (a W-bit block, b bits a key, the unit's
 * keys Poisson over the units: the same match model).  The correlation
 * of neighbouring fields' loads, which the planner's model keeps, is left
 * out here, as the APBBF's posterior leaves out its segments'. */

/* The unit's own generation count and fill (its turns come g adds apart,
 * the first after s = ceil((index + 1) g / units) adds: so units' ages
 * run on staggered clocks); with a spare, the filter's. */
static void unit_generations(const line_filter *t, uint64_t index, unsigned turned,
                             uint64_t *fill, uint64_t *shifts)
{
    *fill = t->fill;
    *shifts = t->shifts;
    if (t->spare)
        return;
    /* ceil((index + 1) g / units) <= g for index < units: fits in 64 bits. */
    uint64_t unused;
    uint64_t first = tdbf_div_wide(tdbf_add_wide(tdbf_mul_wide(index + 1, t->g), t->units - 1),
                                   t->units, &unused);
    if (turned) {
        *fill = t->fill - first;
        *shifts = t->shifts + 1;
    } else if (t->shifts > 0) {
        *fill = t->fill + t->g - first;
    }
}

typedef struct line_evidence {
    uint64_t ages;           /* bit j: the field of age j matches */
} line_evidence;

static int age_matches(const void *state, unsigned slice, const tdbf_hash128 *h)
{
    (void)h;
    return (int)(((const line_evidence *)state)->ages >> slice & 1);
}

static int line_infer(const tdbf *f, const tdbf_key *key, uint64_t now_ns,
                      const tdbf_prior *prior, tdbf_inference *out)
{
    (void)now_ns;
    line_filter now = settled(f->state.impl);
    uint64_t index = unit_index(&now, &key->hash), copy[LINE_MAX_WORDS];
    copy_unit(&now, now.bits + index * now.unit_words, copy);
    uint64_t mask[LINE_MAX_WORDS];
    unsigned turned = has_turned(&now, index);
    line_evidence e = {line_by_age(now.probe(copy, &key->hash, mask), head_of(&now, turned),
                                   now.fields)};
    tdbf_slice_view view = {now.k, now.l, now.g, now.fill, now.shifts, now.units,
                            now.field_bits, now.b};
    unit_generations(&now, index, turned, &view.generation_fill, &view.shifts);
    return tdbf_slice_infer(&view, &e, age_matches, &key->hash, prior, out);
}

/* ---- the rest of the ring interface (ring.h) ---------------------------- */

int tdbf_line_ring_add(tdbf_line_ring *t, const tdbf_hash128 *h)
{
    return add_in_generation(t, h);
}

uint64_t tdbf_line_ring_ages(const tdbf_line_ring *t, const tdbf_hash128 *h)
{
    uint64_t mask[LINE_MAX_WORDS], index = unit_index(t, h);
    uint64_t ages = line_by_age(t->probe(t->bits + index * t->unit_words, h, mask),
                                head_of(t, has_turned(t, index)), t->fields);
    return ages & ((UINT64_C(1) << (t->k + t->l)) - 1);     /* k + l < 64 */
}

void tdbf_line_ring_shift(tdbf_line_ring *t)
{
    tdbf_line_shift(t);
}

uint64_t tdbf_line_ring_fill(const tdbf_line_ring *t)
{
    return t->fill;
}

const uint64_t *tdbf_line_ring_unit(const tdbf_line_ring *t, const tdbf_hash128 *h)
{
    return unit_of(t, h);
}

tdbf_simd tdbf_line_ring_simd(const tdbf_line_ring *t)
{
    return t->path;
}

void tdbf_line_ring_plan(const tdbf_line_ring *t, tdbf_line_plan *out)
{
    tdbf_line_fill_shape(t->k, t->l, t->b, t->unit_bits, t->units, t->g, out);
    out->fp = t->fp_planned;
}

const tdbf_ops tdbf_apbf_line_ops = {
    .plan = line_plan,
    .open = line_open,
    .close = line_close,
    .add = line_add,
    .contains = line_contains,
    .stats = line_stats,
    .shape = line_shape,
    .prefetch = line_prefetch,
    .contains_many = line_contains_many,
    .add_many = line_add_many,
    .batch_at_every_size = true,
    .payload_size = line_payload_size,
    .save = line_save,
    .load = line_load,
    .infer = line_infer,
    .concurrent_on_request = true,
    .items = line_items,
};
