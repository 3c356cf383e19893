/*
 * sqf_core.c — the sliding quotient filter: fingerprints with age tags
 * in cache-line bins, a count window of W adds, no false negatives.
 *
 * Why.  A Bloom filter with age slices pays Bloom's ~1.44x over the
 * information bound and then the slices; storing each key's fingerprint
 * once, with a small age tag, costs about log2(1/e) + 3 tag bits + the
 * quotient coding's ~2 bits an item, and one cache line per operation.
 *
 * One hash, one bin.  The key's XXH3-128 (util/hash.h) gives the bin
 * (multiply-shift of the low half), the quotient q in [0, Q) (multiply-
 * shift of the high half) and the r-bit remainder (bits 1..r of the high
 * half: its bit 0 the key hash always sets).  The fingerprint is (bin, q,
 * remainder).
 *
 * A bin, drawn bit by bit (bit i is bit i mod 64 of word i / 64, words
 * little-endian on disk):
 *
 *   0      5       10        17                 17+Q+C
 *   | gw:5 | gs:5  | spill:7 | header: Q+C bits | C slots of r+3 bits | 0.. |
 *
 *   gw     the generation of the bin's last write, modulo 32
 *   gs     the generation of its last spill, modulo 32
 *   spill  how many of the top quotients may have entries in the spare
 *          (0: none): entries with q < Q - spill are all in the bin
 *   header a pocket dictionary: for q = 0, 1, ..., Q-1, one 1 per stored
 *          entry of quotient q, then a 0; the bits after the Q-th 0 are 0
 *          too, so zeroed memory is an empty bin
 *   slots  the entries in header order: remainder << 3 | tag
 *
 * Generations.  Adds are numbered; add a is in generation a / g with
 * g = ceil(W / L), L = 7.  A tag is its entry's generation modulo 8 and
 * decodes relative to gw: an entry's age is (G - gw mod 32) +
 * (gw - tag mod 8).  An entry answers only while its age is at most L.
 * The key added W - 1 adds ago is at most L generations old (L g >= W),
 * so the window is covered; the filter answers for up to W + g - 1 adds,
 * the slack.
 *
 * The expiry rule.  The first write to a bin in a generation purges the
 * entries older than L and sets gw: every entry left is then at most 7
 * generations old, so its tag is unambiguous relative to the new gw.  A
 * bin not written for 32 or more generations decodes its entries as
 * younger than they are: a false positive at worst, never a negative
 * (a live entry's bin was written at most L generations after it, so its
 * age always decodes exactly).
 *
 * Test-and-set.  An add that finds its fingerprint refreshes the tag to
 * the current generation; one that does not inserts it, even when the
 * spare answers "present" (otherwise a false positive would later become
 * a false negative).
 *
 * The overflow rule.  When a bin would hold C + 1 live entries, the one
 * with the largest q (the oldest on ties) moves to the spare and the
 * bin's spill count grows to cover its q; gs := G.  The spare is a Bloom
 * filter of lines of 8 words, one word per generation modulo 8, addressed
 * by the fingerprint (the evicted entry's key is unknown); the entry sets
 * spare_k bits in the word of its own generation.  At the turn into
 * generation G every line's word G mod 8 is cleared: it held generation
 * G - 8, now expired.  A query reads the spare only when its q is in the
 * bin's spill range and the spill mark is live (G - gs <= L); the spill
 * count restarts from 0 at the first spill after the mark has expired.
 *
 * Why no live key is lost.  After adding key x in generation Gx its
 * fingerprint is either in the bin tagged Gx, or in the spare word of Gx
 * with gs = Gx and q_x in the spill range.  An entry leaves the bin only
 * by the purge (age > L: outside the window), by a refresh (it gets
 * younger and still stands for x), or by a spill, which writes it to the
 * spare word of its own generation, sets gs to the current generation
 * and widens the spill range over its q.  The spill range only widens
 * while the mark is live, and it is reset only when the last spill is
 * more than L generations old, when every spilled entry has expired.  A
 * spare word is cleared only at age 8.  So while x is in the window
 * (age <= L) either the bin holds it with a live tag, or the mark is live
 * (gs >= the spill's generation >= Gx), q_x is in the range, and its
 * spare word still holds its bits: the query answers present.
 *
 * The code.  This file holds the shape, the spare and the clock.  The
 * bins are changed in place, a word at a time, never decoded: bin.h has
 * the steps (range shifts of the packed header and slots, the purge's
 * word-parallel age test, broadword select of a run), bin_ops.h the
 * operations built from them, compiled once for any CPU and once for
 * x86-64 with POPCNT and BMI2 (bin_x86.c), each also for the planner's
 * geometries apart.  tdbf_sqf_core_init picks the copy for the CPU and
 * the shape, so an add or a query makes one indirect call.  Every copy
 * leaves exactly the bits the layout above prescribes (the bins are the
 * saved format): tests/unit/test_sqf.c checks a digest of the whole memory
 * after fixed streams on each.  The spare's writes are held back a few
 * spills, their lines asked for ahead ("the spare's writes" below).
 */
#include <string.h>

#include "designs/sqf/bin_ops.h"
#include "designs/sqf/internal.h"
#include "util/bits.h"
#include "util/serial.h"
#include "util/wide.h"

/* ---- shape -------------------------------------------------------------- */

int tdbf_sqf_shape_check(const sqf_shape *s)
{
    if (s->window == 0 || s->gen_items == 0 || s->bins == 0)
        return -1;
    if (s->bin_words != 8 && s->bin_words != 16)
        return -1;
    if (s->quotients == 0 || s->quotients > SQF_MAX_QUOTIENTS)
        return -1;
    if (s->slots == 0 || s->slots > SQF_MAX_SLOTS)
        return -1;
    if (s->quotients + s->slots > 64 * SQF_HEADER_WORDS)
        return -1;
    if (s->rem_bits == 0 || s->rem_bits > 32)
        return -1;
    if (s->spare_lines == 0 || s->spare_k == 0 || s->spare_k > 16)
        return -1;
    sqf_geom g = geom_of(s);
    uint64_t used = (uint64_t)geom_slots_pos(g) + (uint64_t)s->slots * geom_slot_bits(g);
    return used <= 64u * s->bin_words ? 0 : -1;
}

uint64_t tdbf_sqf_core_bytes(const sqf_shape *s)
{
    return 8 * (s->bins * s->bin_words + s->spare_lines * SQF_TAGS);
}

void tdbf_sqf_core_init(sqf_core *c, const sqf_shape *s, uint64_t *mem, int turn_on_count)
{
    c->shape = *s;
    c->gen = 0;
    c->gen_adds = 0;
    c->turn_every = turn_on_count ? s->gen_items : 0;
    c->adds = 0;
    c->spills = 0;
    c->bins = mem;
    c->spare = mem + s->bins * s->bin_words;
    c->pending_count = 0;
    c->pending_next = 0;
#if SQF_X86_PATH
    c->ops = tdbf_sqf_x86_usable() ? tdbf_sqf_x86_ops(s) : bin_ops_for(s);
#else
    c->ops = bin_ops_for(s);
#endif
}

/* ---- the key's fingerprint --------------------------------------------- */

static TDBF_ALWAYS_INLINE sqf_print fingerprint(const sqf_shape *s, const tdbf_hash128 *h)
{
    sqf_print p;
    p.bin = tdbf_sqf_bin_index(s, h);
    p.q = (unsigned)tdbf_reduce(h->hi, s->quotients);
    p.rem = (uint32_t)((h->hi >> 1) & low_mask(s->rem_bits));
    return p;
}

/* ---- the spare ------------------------------------------------------------ */

/* The bits a fingerprint sets in its word, and its line. */
static uint64_t spare_mask(const sqf_shape *s, uint64_t x)
{
    uint64_t mask = 0, y = tdbf_mix64(x);
    for (unsigned j = 0; j < s->spare_k; j++) {
        if (j % 10 == 9)
            y = tdbf_mix64(y);
        mask |= UINT64_C(1) << (y & 63);
        y >>= 6;
    }
    return mask;
}

/* ---- the spare's writes ------------------------------------------------
 * A spill's write to the spare reads a random line of it (the spare is
 * megabytes: 14 MB at W = 10^8, 0.01), so made at once it holds the add
 * up for a DRAM miss, ~300 ns on the machine of docs/results.md, at
 * about one add in 17.  Instead a core holds back its last SQF_PENDING
 * spills' writes, word and mask, and asks for their lines at once: the
 * oldest is made when a ninth spill comes (its line has long arrived),
 * the rest at the next turn (which clears words) or settle.  Until then
 * a spare word is its memory OR the masks pending for it: spare_contains
 * and the saved form read it so, and every answer and every saved byte
 * is the one the write made at once gives (tests/unit/test_sqf.c).
 * (Measured with a build whose spare writes all hit one cached line: a
 * batch add at W = 10^8, 0.01 spent ~1/4 of its time on these misses.) */

/* Spare words [first, first + count) as they read: `words` holds their
 * memory, and the masks pending for them are OR'd in. */
static void add_pending(const sqf_core *c, uint64_t first, unsigned count, uint64_t *words)
{
    for (unsigned i = 0; i < c->pending_count; i++) {
        uint64_t word = c->pending[i].word;
        if (word >= first && word - first < count)
            words[word - first] |= c->pending[i].mask;
    }
}

void tdbf_sqf_core_settle(sqf_core *c)
{
    for (unsigned i = 0; i < c->pending_count; i++)
        c->spare[c->pending[i].word] |= c->pending[i].mask;
    c->pending_count = 0;
    c->pending_next = 0;
}

void tdbf_sqf_spare_add(sqf_core *c, const sqf_print *p, uint64_t gen)
{
    const sqf_shape *s = &c->shape;
    uint64_t x = spare_hash(p);
    sqf_spare_write *slot = &c->pending[c->pending_next];
    if (c->pending_count == SQF_PENDING)
        c->spare[slot->word] |= slot->mask;   /* the oldest pending write */
    else
        c->pending_count++;
    slot->word = spare_first_word(s, x) + (gen & (SQF_TAGS - 1));
    slot->mask = spare_mask(s, x);
    tdbf_prefetch(c->spare + slot->word, 1);
    c->pending_next = (c->pending_next + 1) % SQF_PENDING;
    c->spills++;
}

int tdbf_sqf_spare_contains(const sqf_core *c, const sqf_print *p)
{
    const sqf_shape *s = &c->shape;
    uint64_t x = spare_hash(p);
    uint64_t first = spare_first_word(s, x), mask = spare_mask(s, x);
    uint64_t words[SQF_TAGS];
    memcpy(words, c->spare + first, sizeof words);
    add_pending(c, first, SQF_TAGS, words);
    for (unsigned t = 0; t < SQF_TAGS; t++)
        if ((words[t] & mask) == mask)
            return 1;
    return 0;
}

/* The bins' words, then the spare's as saved: memory OR pending. */
void tdbf_sqf_save_core_words(tdbf_out *out, const sqf_core *c)
{
    const sqf_shape *s = &c->shape;
    uint64_t spare_words = s->spare_lines * SQF_TAGS, from = 0;
    tdbf_out_words(out, c->bins, s->bins * s->bin_words);
    for (;;) {
        /* the next word at or after `from` with a write pending */
        uint64_t next = spare_words;
        for (unsigned i = 0; i < c->pending_count; i++)
            if (c->pending[i].word >= from && c->pending[i].word < next)
                next = c->pending[i].word;
        tdbf_out_words(out, c->spare + from, next - from);
        if (next == spare_words)
            return;
        uint64_t word = c->spare[next];
        add_pending(c, next, 1, &word);
        tdbf_out_u64(out, word);
        from = next + 1;
    }
}

/* At the turn into generation `gen`: every line's word for gen mod 8 held
 * generation gen - 8, expired. */
static void spare_turn(sqf_core *c, uint64_t gen)
{
    for (uint64_t i = 0; i < c->shape.spare_lines; i++)
        c->spare[i * SQF_TAGS + (gen & (SQF_TAGS - 1))] = 0;
}

void tdbf_sqf_core_turn(sqf_core *c, uint64_t steps)
{
    tdbf_sqf_core_settle(c);
    /* Eight turns clear every word: the rest only move the clock. */
    for (uint64_t i = 0; i < steps && i < SQF_TAGS; i++)
        spare_turn(c, c->gen + i + 1);
    c->gen += steps;
    c->gen_adds = 0;
}


static void count_add(sqf_core *c)
{
    c->adds++;
    c->gen_adds++;
    if (c->gen_adds == c->turn_every)
        tdbf_sqf_core_turn(c, 1);
}

int tdbf_sqf_core_add(sqf_core *c, const tdbf_hash128 *h)
{
    sqf_print p = fingerprint(&c->shape, h);
    int present = c->ops.add(c, &p);
    count_add(c);
    return present;
}

int tdbf_sqf_core_contains(const sqf_core *c, const tdbf_hash128 *h)
{
    sqf_print p = fingerprint(&c->shape, h);
    return c->ops.contains(c, &p);
}

/* ---- a loaded core ---------------------------------------------------------- */

/* Is bin w as the operations write it?  Its header holds at most C ones,
 * each before the Q-th 0 (so every entry decodes to a quotient below Q
 * and its run stays inside the slots), and every bit past its n entries'
 * slots is 0.  A bin that passes cannot make an operation read or write
 * outside it. */
static int bin_canonical(sqf_geom g, const uint64_t *w)
{
    uint64_t h[SQF_HEADER_WORDS];
    header_load(g, w, h);
    unsigned n = 0, last = 0;
    for (unsigned j = 0; j < SQF_HEADER_WORDS; j++) {
        n += count_ones(h[j]);
        if (h[j] != 0)
            last = 64 * j + highest_one(h[j]);
    }
    if (n > g.slots || (n > 0 && last + 1 >= n + g.quotients))
        return 0;
    unsigned from = slot_pos(g, n), end = 64 * g.words;
    for (unsigned pos = from; pos < end; pos += 64) {
        unsigned bits = end - pos < 64 ? end - pos : 64;
        if (field_get(w, pos, bits) != 0)
            return 0;
    }
    return 1;
}

int tdbf_sqf_core_check(const sqf_core *c)
{
    const sqf_shape *s = &c->shape;
    for (uint64_t b = 0; b < s->bins; b++)
        if (!bin_canonical(geom_of(s), bin_of(c, b)))
            return -1;
    return 0;
}
