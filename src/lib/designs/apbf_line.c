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
 * hash per unit word at the bits where the field sits (line.h): the
 * offsets must differ from field to field, or two keys colliding in one
 * field would collide in every field they share generations in, and the
 * run test would see correlated matches.  They form x's b-bit mask m_p
 * for field p; the field matches x when (field & m_p) == m_p.  A probe
 * builds the masks of all F fields before it reads the unit, then turns
 * the compares into an F-bit match mask (a few word or vector
 * operations: line_simd.c runs them on AVX2 or AVX-512), rotated to ages,
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
 *     can back off (see "many threads at once").  It costs one field of
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
 * False positives: the model.  Just before a shift, field age a of a unit
 * holds the keys its unit received in generations a-k+1 .. a (those that
 * marked it); per generation a unit receives X ~ Poisson(lambda = g /
 * units) keys.  The n b bit throws of a field's n keys must cover a
 * never-inserted key's d distinct positions (d <= b): by inclusion-
 * exclusion sum_i (-1)^i C(d, i) (1 - i/W)^(n b) (field_match; the usual
 * (1 - (1 - 1/W)^(n b))^b treats the bits as independent and erred by 30 %
 * at 10^-4).  Given the unit's loads the fields match independently (the
 * key's offsets differ per field), so its FP is the probability of a run
 * of k matches among ages 0 .. k+l-1, a small recursion over the run
 * length.  But the loads of neighbouring fields are NOT independent:
 * fields a and a+1 share k - 1 generations of the same keys, so a heavy
 * unit is heavy in all its fields at once, and averaging each field over
 * independent loads underestimates the FP (by 20-40 % at the usual
 * plans).  The model therefore draws the generation loads X_0 ..
 * X_{k+l-1} of a unit, builds each field's load as the sum of its
 * generations, and averages the run probability over 4096 such units, with
 * a fixed seed so that a plan is a pure function of its inputs
 * (tdbf_apbf_line_fp).  With a spare that is the worst case, just before a
 * shift.  Rolling, each simulated unit also draws the phase of its
 * current generation, uniform, and keeps each of X_0's keys with that
 * probability (Poisson thinning): the FP at any moment.  Measured against
 * it (tests/unit/test_apbf_line.c, FP probed at the end of a generation
 * and, rolling, at its quarters): within -6.2 .. +7.3 % from 0.1 to 10^-4
 * and windows of 10^4 to 10^7.  Rolling and the lost spare together: 20.5
 * and 30.2 bits per key at 0.01 and 0.001 (a 10^6 window), 1.04x and
 * 1.17x the least-memory APBF, against 22.0 and 32.7 with a spare.
 *
 * Planner (tdbf_plan_apbf_line).  Over W = 32, 64 (16 when k and l ask
 * for it; l = F - k, or F - 1 - k for a spare), k and b, the shape of
 * least memory by the model on 256 simulated units; then its largest load
 * lambda* on the full model, and units = ceil(g / lambda*) (see
 * "planning" below).  Many threads at once: "many threads at once" below.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/codec.h"
#include "core/mem.h"
#include "core/ops.h"
#include "designs/line.h"
#include "inference/inference.h"

enum {
    LINE_MAX_FIELDS = 64,                 /* 16-bit fields in 1024 bits */
    LINE_MIN_FIELD_BITS = 16,
    MODEL_SAMPLES = 4096,
    MODEL_MAX_LOAD = 2048                 /* keys per field the model tabulates */
};

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
    /* What an insert marks (place_ring): the fields of ages 0 .. k-1, in
     * set_count words from set_first (modulo the unit); [0] at head, [1]
     * at head_turned (a unit that has turned). */
    uint64_t  set_mask[2][LINE_MAX_WORDS];
    unsigned  set_first[2], set_count[2];
    tdbf_line_probe probe;   /* this shape's, on the chosen path (choose_probe) */
    tdbf_simd path;
    /* Concurrent mode (see "many threads at once"): head, fill and shifts
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

/* ---- shape --------------------------------------------------------------- */

static bool unit_ok(unsigned unit_bits)
{
    return unit_bits == 512 || unit_bits == 1024;
}

/* F fields of W = U / F bits, W a power of two, 16 .. 64? */
static bool fields_ok(unsigned fields, unsigned unit_bits)
{
    if (fields > LINE_MAX_FIELDS || unit_bits % fields != 0)
        return false;
    unsigned width = unit_bits / fields;
    return width >= LINE_MIN_FIELD_BITS && width <= 64 && (width & (width - 1)) == 0;
}

/* The layout (k, l, U) implies: 1 if U / (k + l + 1) is a field width (a
 * spare), 0 if U / (k + l) is (rolling), -1 if neither.  Never both: F
 * and F + 1 are not both powers of two for F >= 3. */
static int layout_spare(unsigned k, unsigned l, unsigned unit_bits)
{
    return fields_ok(k + l + 1, unit_bits) ? 1 : fields_ok(k + l, unit_bits) ? 0 : -1;
}

static bool shape_ok(unsigned k, unsigned l, unsigned b, unsigned unit_bits)
{
    if (k < 1 || k > TDBF_MAX_K || l < 1 || l >= LINE_MAX_FIELDS || b < 1 || b > LINE_MAX_B ||
        !unit_ok(unit_bits))
        return false;                     /* (l first bounded: k + l + 1 cannot wrap) */
    return layout_spare(k, l, unit_bits) >= 0;
}

static unsigned fields_of(unsigned k, unsigned l, unsigned unit_bits)
{
    return k + l + (layout_spare(k, l, unit_bits) == 1);
}

static unsigned log2_of(unsigned power_of_two)
{
    unsigned n = 0;
    while ((1u << n) < power_of_two)
        n++;
    return n;
}

static unsigned physical_at(const line_filter *t, unsigned head, unsigned age)
{
    unsigned p = head + age;
    return p >= t->fields ? p - t->fields : p;
}

static unsigned physical(const line_filter *t, unsigned age)
{
    return physical_at(t, t->head, age);
}

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

/* min(units, fill * ceil(units / g)); fill may pass g in a ring whose
 * owner shifts it (tdbf_line_ring_add), so the product is not formed once
 * it would pass units. */
static uint64_t sweep_position(const line_filter *t)
{
    if (t->fill >= t->units / t->sweep_per_add + 1)
        return t->units;
    uint64_t done = t->fill * t->sweep_per_add;
    return done < t->units ? done : t->units;
}

/* The guaranteed window (see the essay). */
static uint64_t window_of(unsigned l, uint64_t g)
{
    return (uint64_t)l * g;
}

/* ---- a key's unit, and the operations ------------------------------------ */

static TDBF_ALWAYS_INLINE uint64_t unit_index(const line_filter *t, const tdbf_hash128 *h)
{
    return tdbf_reduce(h->lo ^ (h->hi >> 1), t->units);
}

static TDBF_ALWAYS_INLINE uint64_t *unit_of(const line_filter *t, const tdbf_hash128 *h)
{
    return t->bits + unit_index(t, h) * t->unit_words;
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

/* The ring's placement for the current head: the words, and the fields in
 * them, that an insert marks (ages 0 .. k-1, contiguous modulo F), at
 * head and at head_turned; and the field a rolling turn empties. */
static void place_ring(line_filter *t)
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
        unsigned first = physical_at(t, head, 0) / per_word;
        unsigned last = physical_at(t, head, t->k - 1) / per_word;
        t->set_first[turned] = first;
        t->set_count[turned] = (last + t->unit_words - first) % t->unit_words + 1;
    }
    t->turn_word = field_word(t, t->head_turned);
    t->turn_keep = ~(field_ones(t) << field_shift(t, t->head_turned));
}

/* Rolling: the turns due by this fill, turned = floor(fill units / g),
 * kept without a division (the remainder is fill units mod g). */
static void set_turns(line_filter *t)
{
    __extension__ typedef unsigned __int128 u128;
    u128 done = (u128)(t->fill < t->g ? t->fill : t->g) * t->units;
    t->turned = t->spare ? 0 : (uint64_t)(done / t->g);
    t->turn_rest = t->spare ? 0 : (uint64_t)(done % t->g);
}

/* Unit `index`'s turn: its oldest field (age k + l - 1, physical
 * head_turned) is emptied and becomes its age 0. */
static TDBF_ALWAYS_INLINE void take_turn(line_filter *t, uint64_t index)
{
    t->bits[index * t->unit_words + t->turn_word] &= t->turn_keep;
}

/* One add's share of the turns: units / g of them on average. */
static TDBF_ALWAYS_INLINE void roll(line_filter *t)
{
    t->turn_rest += t->units;
    while (t->turn_rest >= t->g && t->turned < t->units) {
        t->turn_rest -= t->g;
        take_turn(t, t->turned++);
    }
}

static void clear_spare(line_filter *t, uint64_t from, uint64_t to)
{
    unsigned p = physical(t, t->k + t->l);
    uint64_t keep = ~(field_ones(t) << field_shift(t, p));
    uint64_t *word = t->bits + from * t->unit_words + field_word(t, p);
    for (uint64_t i = from; i < to; i++, word += t->unit_words)
        *word &= keep;
}

static void shift(line_filter *t)
{
    /* Normally a no-op: the sweep has emptied every spare by now, or
     * every unit has taken its turn. */
    if (t->spare)
        clear_spare(t, sweep_position(t), t->units);
    else
        while (t->turned < t->units)
            take_turn(t, t->turned++);
    t->head = t->head_turned;
    t->fill = 0;
    t->turned = 0;
    t->turn_rest = 0;
    t->shifts++;
    place_ring(t);
}

/* ---- probes: a key's masks and the unit's matching fields -------------- */

/* The portable probe of each shape (line.h), the shape's numbers constants
 * in it; line_simd.c has the vector ones.  [unit words 8, 16][width 16,
 * 32, 64][b - 1]. */
#define PORTABLE_PROBE(W, B, WORDS)                                                        \
    static uint64_t probe_##W##_##B##_##WORDS(const uint64_t *unit, const tdbf_hash128 *h, \
                                              uint64_t *mask)                              \
    {                                                                                       \
        line_key_masks(h, W, B, WORDS, mask);                                               \
        return line_matches(unit, mask, W, WORDS);                                          \
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

#define PORTABLE_ROW(W, WORDS) \
    {probe_##W##_1_##WORDS, probe_##W##_2_##WORDS, probe_##W##_3_##WORDS, probe_##W##_4_##WORDS}
static const tdbf_line_probe portable_probes[2][3][LINE_MAX_B] = {
    {PORTABLE_ROW(16, 8), PORTABLE_ROW(32, 8), PORTABLE_ROW(64, 8)},
    {PORTABLE_ROW(16, 16), PORTABLE_ROW(32, 16), PORTABLE_ROW(64, 16)},
};

/* The probe of the filter's shape on the path tdbf_simd_in_use names. */
static void choose_probe(line_filter *t)
{
    unsigned size = t->unit_words == 16, wide = t->field_log2 - 4;
    t->path = tdbf_simd_in_use();
    t->probe = tdbf_line_simd_probe(t->path, t->unit_words, t->field_bits, t->b);
    if (!t->probe) {
        t->path = TDBF_SIMD_PORTABLE;
        t->probe = portable_probes[size][wide][t->b - 1];
    }
}

/* A run of k matching fields among ages 0 .. k+l-1, age 0 at `head`? */
static TDBF_ALWAYS_INLINE int run_in(const line_filter *t, unsigned head,
                                     uint64_t physical_match)
{
    return line_has_run(line_by_age(physical_match, head, t->fields), t->k, t->k + t->l);
}

/* Test, then set the key's bits in the fields of ages 0 .. k-1, then
 * sweep the next units' spares or take the turns due.  The unit's address
 * is computed before the probe builds the masks, the read comes after:
 * the arithmetic does not wait for memory. */
static TDBF_ALWAYS_INLINE int add_in_generation(line_filter *t, const tdbf_hash128 *h)
{
    uint64_t mask[LINE_MAX_WORDS];
    uint64_t index = unit_index(t, h);
    uint64_t *unit = t->bits + index * t->unit_words;
    unsigned turned = has_turned(t, index);
    int present = run_in(t, head_of(t, turned), t->probe(unit, h, mask));
    const uint64_t *set = t->set_mask[turned];
    for (unsigned c = 0; c < t->set_count[turned]; c++) {
        unsigned w = (t->set_first[turned] + c) & (t->unit_words - 1);
        unit[w] |= mask[w] & set[w];
    }
    if (t->spare) {
        uint64_t from = sweep_position(t);
        t->fill++;
        clear_spare(t, from, sweep_position(t));
    } else {
        t->fill++;
        roll(t);
    }
    return present;
}

static int line_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    line_filter *t = f->impl;
    if (t->fill == t->g)
        shift(t);
    return add_in_generation(t, &key->hash);
}

static int line_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    const line_filter *t = f->impl;
    uint64_t mask[LINE_MAX_WORDS];
    uint64_t index = unit_index(t, &key->hash);
    return run_in(t, head_of(t, has_turned(t, index)),
                  t->probe(t->bits + index * t->unit_words, &key->hash, mask));
}

/* ---- many threads at once (cfg.concurrent) ---------------------------------
 *
 * One counter orders the adds: an add takes ticket v (atomic fetch-add;
 * v counts from the base's fill), and its generation, r = v / g after the
 * base, follows from it as the sequential filter's would (the shift is
 * the ticket that crosses a multiple of g), so nobody has to take the
 * shift: the ring's head for generation r is a function of r.  The add
 * reads its unit with atomic loads (into a copy the probe tests), sets its
 * bits in the fields of generation r with atomic ORs, and sweeps its share
 * of generation r's spare (fill * ceil(units / g) onward, as the
 * sequential sweep) with compare-and-swap.
 *
 * The one hazard is a late sweep: a thread stalled in generation r could
 * clear its share of the spare after generation r + 1 has begun writing
 * new keys into that very field.  So the sweep reads the tickets between
 * loading a word and swapping it: once a ticket of generation r + 1 has
 * been drawn it leaves the rest of its share alone (old bits stay: false
 * positives, never a false negative), and a swap fails if a new key's
 * bits arrived after the load.  (A new key's ticket is drawn before its
 * OR, so a sweep that sees the OR's bits sees the ticket.)
 *
 * A query reads the tickets once and tests the ring of the generation
 * they name.  Adds that finish during the query may move the ring on; the
 * query's answer is then the one it would have had at some point during
 * the call, and a key whose add had returned before the query began is in
 * its window at every such point as long as fewer than l g adds were
 * counted after its own (the guarantee of the sequential filter).
 *
 * The GNU __atomic builtins act on the plain words of the unit array, so
 * the sequential mode keeps its plain accesses (no atomics, no fences). */

static uint64_t *tickets_of(const line_filter *t)
{
    uintptr_t line = ((uintptr_t)t->ticket_line + 63) & ~(uintptr_t)63;
    return (uint64_t *)line;
}

/* Head of the ring in generation base + r. */
static unsigned head_after(const line_filter *t, uint64_t r)
{
    return (unsigned)((t->head + t->fields - r % t->fields) % t->fields);
}

static void copy_unit(const line_filter *t, const uint64_t *unit, uint64_t *copy)
{
    for (unsigned w = 0; w < t->unit_words; w++)
        copy[w] = __atomic_load_n(&unit[w], __ATOMIC_ACQUIRE);
}

/* The key's bits into the fields of ages 0 .. k-1 of the ring at head. */
static void mark_atomic(const line_filter *t, uint64_t *unit, const uint64_t *mask,
                        unsigned head)
{
    unsigned per_word = 64 / t->field_bits;
    for (unsigned a = 0; a < t->k; a++) {
        unsigned p = (head + a) % t->fields;
        unsigned w = p / per_word;
        uint64_t bits = mask[w] & field_ones(t) << (p % per_word * t->field_bits);
        __atomic_fetch_or(&unit[w], bits, __ATOMIC_RELEASE);
    }
}

/* Empty the spare of generation r in the share of the add with this fill,
 * unless generation r + 1 has begun (see above). */
static void sweep_atomic(line_filter *t, uint64_t r, uint64_t fill)
{
    uint64_t from = fill * t->sweep_per_add;      /* fill < g: no overflow */
    if (from >= t->units)
        return;
    uint64_t to = t->units - from < t->sweep_per_add ? t->units : from + t->sweep_per_add;
    unsigned p = (head_after(t, r) + t->fields - 1) % t->fields;
    uint64_t spare = field_ones(t) << field_shift(t, p), next = (r + 1) * t->g;
    uint64_t *word = t->bits + from * t->unit_words + field_word(t, p);
    for (uint64_t i = from; i < to; i++, word += t->unit_words) {
        uint64_t old = __atomic_load_n(word, __ATOMIC_ACQUIRE);
        while (old & spare) {
            if (__atomic_load_n(tickets_of(t), __ATOMIC_SEQ_CST) > next)
                return;
            if (__atomic_compare_exchange_n(word, &old, old & ~spare, true, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                break;
        }
    }
}

static int line_add_concurrent(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    line_filter *t = f->impl;
    uint64_t *unit = unit_of(t, &key->hash);
    uint64_t v = __atomic_fetch_add(tickets_of(t), 1, __ATOMIC_SEQ_CST);
    uint64_t r = v / t->g;
    unsigned head = head_after(t, r);
    uint64_t copy[LINE_MAX_WORDS], mask[LINE_MAX_WORDS];
    copy_unit(t, unit, copy);
    int present = run_in(t, head, t->probe(copy, &key->hash, mask));
    mark_atomic(t, unit, mask, head);
    sweep_atomic(t, r, v - r * t->g);
    return present;
}

/* The generation a query sees after v tickets: the last add's (a full
 * generation shifts at the next add, as in the sequential filter). */
static uint64_t query_generation(const line_filter *t, uint64_t v)
{
    return v == 0 ? 0 : (v - 1) / t->g;
}

static int line_contains_concurrent(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    const line_filter *t = f->impl;
    const uint64_t *unit = unit_of(t, &key->hash);
    uint64_t v = __atomic_load_n(tickets_of(t), __ATOMIC_ACQUIRE);
    uint64_t copy[LINE_MAX_WORDS], mask[LINE_MAX_WORDS];
    copy_unit(t, unit, copy);
    return run_in(t, head_after(t, query_generation(t, v)), t->probe(copy, &key->hash, mask));
}

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
        place_ring(&now);
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
    f->own_items = t->concurrent;       /* the tickets count the adds */
    f->add = t->concurrent ? line_add_concurrent : line_add;
    f->contains = t->concurrent ? line_contains_concurrent : line_contains;
    return TDBF_OK;
}

/* Adds since open of a concurrent filter (ops->items). */
static uint64_t line_items(const tdbf *f)
{
    const line_filter *t = f->impl;
    return t->items_at_base + __atomic_load_n(tickets_of(t), __ATOMIC_ACQUIRE) - t->fill;
}

/* The unit's lines: one, or the adjacent pair of a 128-byte unit. */
static void line_prefetch(const tdbf *f, const tdbf_key *key, int for_add)
{
    const line_filter *t = f->impl;
    line_prefetch_unit(unit_of(t, &key->hash), t->unit_words, for_add);
}

/* ---- the model ----------------------------------------------------------- */

/* P(b uniform draws from `width` positions hit exactly d distinct ones),
 * d = 1 .. b (one draw at a time: a new position or a repeat). */
static void distinct_positions(unsigned b, double width, double *out)
{
    double p[LINE_MAX_B + 1] = {0.0, 1.0};
    for (unsigned draw = 1; draw < b; draw++) {
        double next[LINE_MAX_B + 1] = {0.0};
        for (unsigned d = 1; d <= draw; d++) {
            next[d] += p[d] * (double)d / width;
            next[d + 1] += p[d] * (width - (double)d) / width;
        }
        memcpy(p, next, sizeof p);
    }
    memcpy(out, p, sizeof p);
}

/* P(a never-inserted key matches a field of `width` bits holding n keys):
 * the n b throws must cover its d distinct positions (see the essay). */
static double field_match(unsigned b, double width, unsigned n, const double *distinct)
{
    double throws = (double)b * (double)n, total = 0.0;
    for (unsigned d = 1; d <= b; d++) {
        double covered = 0.0, choose = 1.0;
        for (unsigned i = 0; i <= d; i++) {
            double miss = i == 0 ? 1.0 : pow(1.0 - (double)i / width, throws);
            covered += (i % 2 ? -choose : choose) * miss;
            choose = choose * (double)(d - i) / (double)(i + 1);
        }
        total += distinct[d] * (covered > 0.0 ? covered : 0.0);
    }
    return total;
}

/* P(a run of k matches among ages 0 .. k+l-1) for independent matches
 * r[0 .. k+l-1]: the chance of no run yet, by current run length (line.h). */
double tdbf_line_run_probability(unsigned k, unsigned l, const double *r)
{
    double no_run[TDBF_MAX_K] = {1.0}, hit = 0.0;
    for (unsigned a = 0; a < k + l; a++) {
        double carry = 0.0, miss = 0.0;
        for (unsigned j = 0; j < k; j++) {
            miss += no_run[j] * (1.0 - r[a]);
            double up = no_run[j] * r[a];
            no_run[j] = carry;
            carry = up;
        }
        hit += carry;        /* a run of k - 1 met one more match */
        no_run[0] = miss;
    }
    return hit;
}

/* What both estimates need: r(n) for n keys in a field, and the Poisson
 * CDF of a unit's load per generation.  `top`: loads beyond it have
 * probability below 10^-15.  False if the loads outgrow the table (every
 * field is then full: FP 1). */
typedef struct model_tables {
    double   match[MODEL_MAX_LOAD + 1];
    double   cdf[MODEL_MAX_LOAD + 1];
    double   pmf[MODEL_MAX_LOAD + 1];
    unsigned top;
} model_tables;

static bool model_tables_init(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                              double lambda, model_tables *m)
{
    double width = (double)(unit_bits / fields_of(k, l, unit_bits));
    double distinct[LINE_MAX_B + 1];
    distinct_positions(b, width, distinct);
    double mass = exp(-lambda), sum = 0.0;
    unsigned n = 0;
    for (; n <= MODEL_MAX_LOAD / k; n++) {
        if (n > 0)
            mass *= lambda / (double)n;
        m->pmf[n] = mass;
        sum += mass;
        m->cdf[n] = sum;
        if (sum >= 1.0 - 1e-15 && n >= lambda)
            break;
    }
    if (n > MODEL_MAX_LOAD / k)
        return false;
    m->top = n;
    for (unsigned keys = 0; keys <= k * n; keys++)
        m->match[keys] = field_match(b, width, keys, distinct);
    return true;
}

/* splitmix64: the model's fixed-seed stream of uniforms (its counter
 * wraps on purpose). */
TDBF_WRAPS static double model_uniform(uint64_t *state)
{
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return (double)(tdbf_mix64(*state) >> 11) * 0x1p-53;
}

/* A Poisson(lambda) load from the table. */
static unsigned model_load(const model_tables *m, uint64_t *state)
{
    double u = model_uniform(state);
    unsigned x = 0;
    while (x < m->top && u > m->cdf[x])
        x++;
    return x;
}

/* Rolling: the unit's current generation is at a uniform phase of its
 * own; of its Poisson(lambda) keys each has come with that probability
 * (thinning: Poisson(phase lambda)). */
static unsigned model_phase_load(unsigned x, uint64_t *state)
{
    double phase = model_uniform(state);
    unsigned kept = 0;
    for (unsigned i = 0; i < x; i++)
        kept += model_uniform(state) < phase;
    return kept;
}

static double model_fp(unsigned k, unsigned l, bool rolling, const model_tables *m,
                       unsigned samples)
{
    uint64_t state = UINT64_C(0x5eed11e7f00d);
    double total = 0.0;
    for (unsigned s = 0; s < samples; s++) {
        unsigned load[TDBF_MAX_K + TDBF_MAX_L], field_load = 0;
        double r[TDBF_MAX_K + TDBF_MAX_L];
        for (unsigned a = 0; a < k + l; a++) {
            unsigned x = model_load(m, &state);
            if (a == 0 && rolling)
                x = model_phase_load(x, &state);
            load[a] = x;
            field_load += x;
            if (a >= k)
                field_load -= load[a - k];
            r[a] = m->match[field_load];
        }
        total += tdbf_line_run_probability(k, l, r);
    }
    return total / samples;
}

/* The model's FP at a mean load of `lambda` keys per unit and generation,
 * over `samples` simulated units. */
static double load_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits, double lambda,
                      unsigned samples)
{
    model_tables m;
    if (!model_tables_init(k, l, b, unit_bits, lambda, &m))
        return 1.0;          /* units so loaded that every field is full */
    return model_fp(k, l, layout_spare(k, l, unit_bits) == 0, &m, samples);
}

static double line_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits, uint64_t units,
                      uint64_t generation)
{
    return load_fp(k, l, b, unit_bits, (double)generation / (double)units, MODEL_SAMPLES);
}

double tdbf_apbf_line_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                         uint64_t units, uint64_t generation)
{
    if (!shape_ok(k, l, b, unit_bits) || units < 1 || generation < 1)
        return -1.0;
    return line_fp(k, l, b, unit_bits, units, generation);
}

/* ---- planning ------------------------------------------------------------
 *
 * The FP of a shape (k, l, b, U) depends on the window only through the
 * load lambda = g / units, so a shape's cost is U / (lambda* l) bits per
 * window item, lambda* the largest load meeting the error.  The shapes:
 * W = 16, 32 or 64 (F = U / W fields, l = F - k, or F - 1 - k with a
 * spare), k = 1 .. 8, b = 1 .. 4; lambda* by bisection on log lambda with the model on 256
 * simulated units (the same draws at every point, so costs compare
 * smoothly); then the cheapest shape's lambda* on the full 4096-unit
 * model, and units = ceil(g / lambda*) (size_shape).  The search takes
 * ~0.1 s and is kept per thread (cached_shape); a plan is then ~1.5 ms. */

enum { SEARCH_SAMPLES = 256, SEARCH_STEPS = 7, SIZING_STEPS = 17 };

/* The largest load meeting `error` on `samples` simulated units (0 if
 * none above 2^-20), bracketed from `start` (a neighbouring shape's
 * answer) by doubling or halving, then `steps` bisections of log load:
 * the bracket's ratio ends at 2^(2^-steps).  The model's FP rises with
 * the load (every sampled unit's loads do, with the same uniforms), so
 * any load below the answer meets the error too. */
static double max_load(unsigned k, unsigned l, unsigned b, unsigned unit_bits, double error,
                       double start, unsigned samples, int steps)
{
    double lo = start, hi;
    if (load_fp(k, l, b, unit_bits, lo, samples) > error) {
        do {
            hi = lo;
            lo /= 2.0;
            if (lo < 0x1p-20)
                return 0.0;
        } while (load_fp(k, l, b, unit_bits, lo, samples) > error);
    } else {
        hi = 2.0 * lo;
        while (load_fp(k, l, b, unit_bits, hi, samples) <= error) {
            lo = hi;
            hi *= 2.0;
            if (hi > MODEL_MAX_LOAD)
                return lo;
        }
    }
    for (int step = 0; step < steps; step++) {
        double mid = sqrt(lo * hi);
        if (load_fp(k, l, b, unit_bits, mid, samples) <= error)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* A plan's shape and size fields (fill_plan adds the model's FP). */
static void fill_shape(unsigned k, unsigned l, unsigned b, unsigned unit_bits, uint64_t units,
                       uint64_t g, tdbf_line_plan *out)
{
    out->k = k;
    out->l = l;
    out->b = b;
    out->unit_bits = unit_bits;
    out->fields = fields_of(k, l, unit_bits);
    out->field_bits = unit_bits / out->fields;
    out->units = units;
    out->generation = g;
    out->window = window_of(l, g);
    out->bytes = units * (unit_bits / 8);
    out->bits_per_item = 8.0 * (double)out->bytes / (double)out->window;
}

static void fill_plan(unsigned k, unsigned l, unsigned b, unsigned unit_bits, uint64_t units,
                      uint64_t g, tdbf_line_plan *out)
{
    fill_shape(k, l, b, unit_bits, units, g, out);
    out->fp = line_fp(k, l, b, unit_bits, units, g);
}

/* Size (k, l, b) for a window: units = ceil(g / lambda*), lambda* the
 * shape's largest load meeting the error on the full model (its FP is a
 * function of g / units alone), within 2^(2^-17) - 1 = 5 10^-6 of the
 * exact bound: so within one unit per 190 000 of the fewest.  A rounding
 * of g / units above lambda* is caught by evaluating the plan itself. */
static int size_shape(unsigned k, unsigned l, unsigned b, unsigned unit_bits, uint64_t window,
                      double error, uint64_t most, double lambda, tdbf_line_plan *out)
{
    uint64_t g = window / l + (window % l != 0);
    if (lambda <= 0.0)
        return TDBF_EINFEASIBLE;
    double need = ceil((double)g / lambda);
    if (need > (double)most)
        return TDBF_ETOOBIG;
    uint64_t units = need < 1.0 ? 1 : (uint64_t)need;
    fill_plan(k, l, b, unit_bits, units, g, out);
    while (out->fp > error) {
        if (units >= most)
            return TDBF_ETOOBIG;
        fill_plan(k, l, b, unit_bits, ++units, g, out);
    }
    return TDBF_OK;
}

/* The search (see above), for a shape request: k, l, b fixed or 0.  A
 * shape's cost depends on the error and the unit alone, not the window,
 * so the answer is kept: a few recent searches per thread (a planner
 * call is then the final sizing only, ~1 ms instead of ~0.1 s). */
typedef struct shape_request {
    double   error;
    unsigned unit_bits, k, l, b;
    unsigned spare;          /* 1: shapes with a spare field only */
} shape_request;

typedef struct shape_answer {
    shape_request request;
    unsigned      k, l, b;
    double        lambda;    /* the shape's largest load on the full model */
    int           rc;
} shape_answer;

enum { SHAPE_CACHE = 8 };

static int search_shape(const shape_request *q, unsigned *k_out, unsigned *l_out, unsigned *b_out)
{
    double least = INFINITY, start = 1.0;
    unsigned b_lo = q->b ? q->b : 1, b_hi = q->b ? q->b : LINE_MAX_B;
    for (unsigned width = LINE_MIN_FIELD_BITS; width <= 64; width *= 2) {
        unsigned fields = q->unit_bits / width;
        if (fields > LINE_MAX_FIELDS || (q->k && fields_of(q->k, q->l, q->unit_bits) != fields))
            continue;
        /* 16-bit fields: 32 or 64 per unit, 2-4x the model's work per
         * shape, and never the least memory from 10^-1 to 10^-5 (their
         * loads per field are too small for b bits to pay); searched
         * only when asked for by k and l. */
        if (width == 16 && !q->k)
            continue;
        for (unsigned k = q->k ? q->k : 1; k <= (q->k ? q->k : 8); k++) {
            if (k + 1 + q->spare > fields)
                break;
            unsigned l = fields - q->spare - k;
            for (unsigned b = b_lo; b <= b_hi; b++) {
                double lambda = max_load(k, l, b, q->unit_bits, q->error, start,
                                         SEARCH_SAMPLES, SEARCH_STEPS);
                if (lambda <= 0.0)
                    continue;
                start = lambda;
                double cost = (double)q->unit_bits / (lambda * (double)l);
                if (cost < least) {
                    least = cost;
                    *k_out = k;
                    *l_out = l;
                    *b_out = b;
                }
            }
        }
    }
    return least == INFINITY ? TDBF_EINFEASIBLE : TDBF_OK;
}

/* The shape for a request (searched unless k, l and b are all given)
 * and its lambda*, from the cache when this thread asked before. */
static shape_answer cached_shape(const shape_request *q)
{
    static _Thread_local shape_answer cache[SHAPE_CACHE];
    static _Thread_local unsigned next;
    for (unsigned i = 0; i < SHAPE_CACHE; i++)
        if (cache[i].request.unit_bits && memcmp(&cache[i].request, q, sizeof *q) == 0)
            return cache[i];
    shape_answer a = {.request = *q, .k = q->k, .l = q->l, .b = q->b, .rc = TDBF_OK};
    if (!q->k || !q->b)
        a.rc = search_shape(q, &a.k, &a.l, &a.b);
    if (a.rc == TDBF_OK) {
        double rough = max_load(a.k, a.l, a.b, q->unit_bits, q->error, 1.0, SEARCH_SAMPLES,
                                SEARCH_STEPS);
        a.lambda = max_load(a.k, a.l, a.b, q->unit_bits, q->error, rough > 0.0 ? rough : 1.0,
                            MODEL_SAMPLES, SIZING_STEPS);
    }
    cache[next++ % SHAPE_CACHE] = a;
    return a;
}

/* The checks of tdbf_plan_apbf_line that do not concern the window; fills
 * the shape request and the unit budget. */
static int line_request(const tdbf_config *cfg, unsigned spare, shape_request *q,
                        uint64_t *most)
{
    if (!(cfg->error > 0.0 && cfg->error < 1.0))
        return TDBF_EERROR;
    if ((cfg->k == 0) != (cfg->l == 0) || cfg->block_hashes > LINE_MAX_B ||
        (cfg->block_bits && !unit_ok(cfg->block_bits)) ||
        (cfg->k && (cfg->k > TDBF_MAX_K || cfg->l >= LINE_MAX_FIELDS ||
                    cfg->k + cfg->l + 1 > LINE_MAX_FIELDS)))
        return TDBF_EPARAM;
    uint64_t max_memory = cfg->max_memory ? cfg->max_memory : TDBF_DEFAULT_MAX_MEMORY;
    unsigned unit_bits = cfg->block_bits ? cfg->block_bits : TDBF_LINE_DEFAULT_UNIT;
    *most = max_memory / (unit_bits / 8);
    if (*most > (UINT64_C(1) << 40))
        *most = UINT64_C(1) << 40;
    if (*most < 1)
        return TDBF_ETOOBIG;
    if (cfg->k && (!shape_ok(cfg->k, cfg->l, cfg->block_hashes ? cfg->block_hashes : 1,
                             unit_bits) ||
                   (spare && layout_spare(cfg->k, cfg->l, unit_bits) != 1)))
        return TDBF_EPARAM;
    memset(q, 0, sizeof *q);     /* padding too: the cache compares bytes */
    q->error = cfg->error;
    q->unit_bits = unit_bits;
    q->k = cfg->k;
    q->l = cfg->l;
    q->b = cfg->block_hashes;
    q->spare = spare;
    return TDBF_OK;
}

/* Size the shape for `window` (l g >= window); `spare`: a layout with a
 * spare field (concurrent adds, rings shifted by their owner). */
static int plan_window(const tdbf_config *cfg, uint64_t window, unsigned spare,
                       tdbf_line_plan *out)
{
    shape_request q;
    uint64_t most;
    int rc = line_request(cfg, spare, &q, &most);
    if (rc != TDBF_OK)
        return rc;
    shape_answer a = cached_shape(&q);
    if (a.rc != TDBF_OK)
        return a.rc;
    if (window == 0) {          /* one generation of cfg->capacity keys */
        uint64_t g = cfg->capacity ? cfg->capacity : 1;
        window = g > UINT64_MAX / a.l ? UINT64_MAX : g * a.l;
    }
    return size_shape(a.k, a.l, a.b, q.unit_bits, window, q.error, most, a.lambda, out);
}

int tdbf_plan_apbf_line(const tdbf_config *cfg, tdbf_line_plan *out)
{
    if (!cfg || !out)
        return TDBF_EINVAL;
    if (!(cfg->error > 0.0 && cfg->error < 1.0))
        return TDBF_EERROR;
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    return plan_window(cfg, cfg->window_items, cfg->concurrent ? 1 : 0, out);
}

int tdbf_line_plan_ring(const tdbf_config *cfg, uint64_t window, tdbf_line_plan *out)
{
    return plan_window(cfg, window ? window : 1, 1, out);
}

/* ---- open, close, stats ----------------------------------------------- */

static size_t unit_array_bytes(const line_filter *t)
{
    return (size_t)(t->units * t->unit_words * sizeof(uint64_t));
}

/* Everything that follows from the parameters (open and load). */
static void set_shape(line_filter *t)
{
    t->unit_words = t->unit_bits / 64;
    t->spare = layout_spare(t->k, t->l, t->unit_bits) == 1;
    t->fields = t->k + t->l + t->spare;
    t->field_bits = t->unit_bits / t->fields;
    t->field_log2 = log2_of(t->field_bits);
    t->sweep_per_add = t->units / t->g + (t->units % t->g != 0);
    set_turns(t);
    place_ring(t);
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

static int line_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_line_plan plan;
    int rc = tdbf_plan_apbf_line(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    if (!tdbf_fits(tdbf_line_ring_bytes_planned(&plan), cfg->max_memory))
        return TDBF_ETOOBIG;
    line_filter *t;
    rc = tdbf_line_ring_open(f, &plan, &t);
    if (rc != TDBF_OK)
        return rc;
    f->impl = t;
    f->error_planned = t->fp_planned;
    return choose_mode(f, t);
}

static void line_close(tdbf *f)
{
    tdbf_line_ring_close(f, f->impl);
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
    distinct_positions(t->b, (double)t->field_bits, distinct);
    uint64_t step = t->units > STATS_UNITS ? t->units / STATS_UNITS : 1, read = 0;
    for (uint64_t i = 0; i < t->units; i += step, read++)
        sum += unit_fp_from_bits(t, i, distinct);
    return sum / (double)read;
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void line_shape(const tdbf *f, tdbf_shape *out)
{
    const line_filter *t = f->impl;
    out->k = t->k;
    out->l = t->l;
    out->window_items = window_of(t->l, t->g);
    out->error_planned = t->fp_planned;
}

static void line_stats(const tdbf *f, tdbf_stats *st)
{
    line_filter now = settled(f->impl);
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
 * u32 key layout (1: line.h's derivation of a key's positions), u64 units,
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
    return tdbf_line_ring_payload_size(f->impl);
}

static void line_save(const tdbf *f, tdbf_out *out)
{
    line_filter now = settled(f->impl);
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
    h.fp_planned = line_fp(h.k, h.l, h.b, h.unit_bits, h.units, h.g);
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
    f->impl = t;
    f->error_planned = t->fp_planned;
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
    __extension__ typedef unsigned __int128 u128;
    *fill = t->fill;
    *shifts = t->shifts;
    if (t->spare)
        return;
    uint64_t first = (uint64_t)(((u128)(index + 1) * t->g + t->units - 1) / t->units);
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
    line_filter now = settled(f->impl);
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

/* ---- the rest of the ring interface (line.h) ---------------------------- */

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
    shift(t);
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
    fill_shape(t->k, t->l, t->b, t->unit_bits, t->units, t->g, out);
    out->fp = t->fp_planned;
}

const tdbf_ops tdbf_apbf_line_ops = {
    .open = line_open,
    .close = line_close,
    .add = line_add,
    .contains = line_contains,
    .stats = line_stats,
    .shape = line_shape,
    .prefetch = line_prefetch,
    .payload_size = line_payload_size,
    .save = line_save,
    .load = line_load,
    .infer = line_infer,
    .concurrent_on_request = true,
    .items = line_items,
};
