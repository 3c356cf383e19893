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
 * half; bit 0 is forced odd).  The fingerprint is (bin, q, remainder).
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
 */
#include <string.h>

#include "designs/sqf/internal.h"
#include "util/wide.h"

/* ---- bit fields inside a bin ------------------------------------------ */

static uint64_t field_get(const uint64_t *w, unsigned pos, unsigned bits)
{
    unsigned word = pos >> 6, shift = pos & 63;
    uint64_t v = w[word] >> shift;
    if (shift + bits > 64)
        v |= w[word + 1] << (64 - shift);
    return bits == 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

static void field_set(uint64_t *w, unsigned pos, unsigned bits, uint64_t v)
{
    unsigned word = pos >> 6, shift = pos & 63;
    uint64_t mask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    v &= mask;
    w[word] = (w[word] & ~(mask << shift)) | (v << shift);
    if (shift + bits > 64) {
        unsigned low = 64 - shift;
        w[word + 1] = (w[word + 1] & ~(mask >> low)) | (v >> low);
    }
}

/* (a - b) mod m for a power of two m, without wrapping an unsigned type
 * (the sanitizer builds trap unsigned wrap-around in the library). */
static unsigned mod_diff(uint64_t a, uint64_t b, unsigned m)
{
    return (unsigned)(((a & (m - 1)) + m - (b & (m - 1))) & (m - 1));
}

/* ---- shape -------------------------------------------------------------- */

static unsigned slot_bits(const sqf_shape *s)
{
    return s->rem_bits + SQF_TAG_BITS;
}

static unsigned header_pos(void)
{
    return SQF_STATE_BITS;
}

static unsigned slots_pos(const sqf_shape *s)
{
    return SQF_STATE_BITS + s->quotients + s->slots;
}

/* The header, Q + C <= SQF_HEADER_WORDS * 64 bits, as words of its own
 * (bit j of the header is bit j mod 64 of word j / 64). */
#define SQF_HEADER_WORDS 3u

static unsigned header_bits(const sqf_shape *s)
{
    return s->quotients + s->slots;
}

static void header_load(const sqf_shape *s, const uint64_t *w, uint64_t h[SQF_HEADER_WORDS])
{
    unsigned bits = header_bits(s);
    for (unsigned j = 0; j < SQF_HEADER_WORDS; j++) {
        unsigned at = 64 * j;
        h[j] = at < bits ? field_get(w, header_pos() + at, bits - at < 64 ? bits - at : 64) : 0;
    }
}

static void header_store(const sqf_shape *s, uint64_t *w, const uint64_t h[SQF_HEADER_WORDS])
{
    unsigned bits = header_bits(s);
    for (unsigned j = 0; j < SQF_HEADER_WORDS && 64 * j < bits; j++) {
        unsigned at = 64 * j;
        field_set(w, header_pos() + at, bits - at < 64 ? bits - at : 64, h[j]);
    }
}

static unsigned count_ones(uint64_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_popcountll(x);
#else
    unsigned n = 0;
    for (; x != 0; x &= x - 1)
        n++;
    return n;
#endif
}

static unsigned lowest_one(uint64_t x)   /* x != 0 */
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* The position of the k-th (from 0) 0 bit of the header's first `bits`
 * bits; `bits` when there are not so many. */
static unsigned select_zero(const uint64_t h[SQF_HEADER_WORDS], unsigned bits, unsigned k)
{
    for (unsigned j = 0; j < SQF_HEADER_WORDS && 64 * j < bits; j++) {
        uint64_t zeros = ~h[j];
        unsigned left = bits - 64 * j;
        if (left < 64)
            zeros &= (UINT64_C(1) << left) - 1;
        unsigned n = count_ones(zeros);
        if (k < n) {
            for (; k > 0; k--)
                zeros &= zeros - 1;
            return 64 * j + lowest_one(zeros);
        }
        k -= n;
    }
    return bits;
}

/* Slots [*first, *end) hold quotient q's entries. */
static void quotient_run(const sqf_shape *s, const uint64_t h[SQF_HEADER_WORDS], unsigned q,
                         unsigned *first, unsigned *end)
{
    unsigned bits = header_bits(s);
    *first = q == 0 ? 0 : select_zero(h, bits, q - 1) + 1 - q;
    *end = select_zero(h, bits, q) - q;
}

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
    if (header_bits(s) > 64 * SQF_HEADER_WORDS)
        return -1;
    if (s->rem_bits == 0 || s->rem_bits > 32)
        return -1;
    if (s->spare_lines == 0 || s->spare_k == 0 || s->spare_k > 16)
        return -1;
    uint64_t used = (uint64_t)slots_pos(s) + (uint64_t)s->slots * slot_bits(s);
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
}

/* ---- the key's fingerprint --------------------------------------------- */

typedef struct sqf_print {
    uint64_t bin;
    unsigned q;
    uint32_t rem;
} sqf_print;

static sqf_print fingerprint(const sqf_shape *s, const tdbf_hash128 *h)
{
    sqf_print p;
    p.bin = tdbf_reduce(h->lo, s->bins);
    p.q = (unsigned)tdbf_reduce(h->hi, s->quotients);
    p.rem = (uint32_t)((h->hi >> 1) & ((UINT64_C(1) << s->rem_bits) - 1));
    return p;
}

static uint64_t generation(const sqf_core *c)
{
    return c->gen;
}

/* ---- a bin, decoded ------------------------------------------------------
 * Adds decode the whole bin into arrays, change them and encode it back:
 * simple and obviously in order; queries read in place. */

typedef struct sqf_bin {
    unsigned n;                          /* entries */
    unsigned gw, gs, spill;              /* the state fields */
    uint8_t  q[SQF_MAX_SLOTS + 1];       /* one spare place for an insert */
    uint32_t rem[SQF_MAX_SLOTS + 1];
    uint8_t  age[SQF_MAX_SLOTS + 1];     /* generations, decoded */
} sqf_bin;

static unsigned age_of(unsigned tag, unsigned gw, unsigned d)
{
    return d + mod_diff(gw, tag, SQF_TAGS);
}

/* Ages are decoded against the current generation: d = G - gw mod 32. */
static void bin_decode(const sqf_shape *s, const uint64_t *w, uint64_t gen, sqf_bin *b)
{
    b->gw = (unsigned)field_get(w, 0, SQF_GEN_BITS);
    b->gs = (unsigned)field_get(w, SQF_GEN_BITS, SQF_GEN_BITS);
    b->spill = (unsigned)field_get(w, 2 * SQF_GEN_BITS, SQF_SAFE_BITS);
    unsigned d = mod_diff(gen, b->gw, SQF_GENS);
    /* The i-th 1 of the header, at position p, is an entry of quotient
     * p - i (the number of 0s before it). */
    uint64_t h[SQF_HEADER_WORDS];
    header_load(s, w, h);
    unsigned n = 0;
    for (unsigned j = 0; j < SQF_HEADER_WORDS; j++) {
        for (uint64_t ones = h[j]; ones != 0 && n < s->slots; ones &= ones - 1) {
            unsigned q = 64 * j + lowest_one(ones) - n;
            if (q >= s->quotients)
                break;
            b->q[n++] = (uint8_t)q;
        }
    }
    unsigned sp = slots_pos(s), sb = slot_bits(s);
    for (unsigned i = 0; i < n; i++) {
        uint64_t v = field_get(w, sp + i * sb, sb);
        b->rem[i] = (uint32_t)(v >> SQF_TAG_BITS);
        unsigned age = age_of((unsigned)(v & (SQF_TAGS - 1)), b->gw, d);
        b->age[i] = (uint8_t)(age > 255 ? 255 : age);
    }
    b->n = n;
}

/* Writes the bin as of generation `gen`: tags are gen - age mod 8. */
static void bin_encode(const sqf_shape *s, uint64_t *w, uint64_t gen, const sqf_bin *b)
{
    memset(w, 0, 8u * s->bin_words);
    field_set(w, 0, SQF_GEN_BITS, gen);
    field_set(w, SQF_GEN_BITS, SQF_GEN_BITS, b->gs);
    field_set(w, 2 * SQF_GEN_BITS, SQF_SAFE_BITS, b->spill);
    uint64_t h[SQF_HEADER_WORDS] = { 0 };
    unsigned i;
    for (i = 0; i < b->n; i++) {
        unsigned p = b->q[i] + i;   /* after q 0s and i 1s */
        h[p >> 6] |= UINT64_C(1) << (p & 63);
    }
    header_store(s, w, h);
    unsigned sp = slots_pos(s), sb = slot_bits(s);
    for (i = 0; i < b->n; i++) {
        uint64_t tag = mod_diff(gen, b->age[i], SQF_TAGS);
        field_set(w, sp + i * sb, sb, ((uint64_t)b->rem[i] << SQF_TAG_BITS) | tag);
    }
}

static void bin_remove(sqf_bin *b, unsigned i)
{
    memmove(&b->q[i], &b->q[i + 1], b->n - i - 1);
    memmove(&b->rem[i], &b->rem[i + 1], (b->n - i - 1) * sizeof b->rem[0]);
    memmove(&b->age[i], &b->age[i + 1], b->n - i - 1);
    b->n--;
}

/* Inserts at the end of quotient q's run, keeping header order. */
static void bin_insert(sqf_bin *b, unsigned q, uint32_t rem, unsigned age)
{
    unsigned i = 0;
    while (i < b->n && b->q[i] <= q)
        i++;
    memmove(&b->q[i + 1], &b->q[i], b->n - i);
    memmove(&b->rem[i + 1], &b->rem[i], (b->n - i) * sizeof b->rem[0]);
    memmove(&b->age[i + 1], &b->age[i], b->n - i);
    b->q[i] = (uint8_t)q;
    b->rem[i] = rem;
    b->age[i] = (uint8_t)age;
    b->n++;
}

/* The expiry rule: entries older than L go. */
static void bin_purge(sqf_bin *b)
{
    unsigned kept = 0;
    for (unsigned i = 0; i < b->n; i++) {
        if (b->age[i] > SQF_KEPT)
            continue;
        b->q[kept] = b->q[i];
        b->rem[kept] = b->rem[i];
        b->age[kept] = b->age[i];
        kept++;
    }
    b->n = kept;
}

static int bin_find(const sqf_bin *b, unsigned q, uint32_t rem)
{
    for (unsigned i = 0; i < b->n; i++)
        if (b->q[i] == q && b->rem[i] == rem && b->age[i] <= SQF_KEPT)
            return (int)i;
    return -1;
}

/* The entry to spill: the largest q, the oldest on ties. */
static unsigned bin_victim(const sqf_bin *b)
{
    unsigned v = 0;
    for (unsigned i = 1; i < b->n; i++)
        if (b->q[i] > b->q[v] || (b->q[i] == b->q[v] && b->age[i] > b->age[v]))
            v = i;
    return v;
}

/* ---- the spare ------------------------------------------------------------ */

static uint64_t spare_hash(const sqf_print *p)
{
    return tdbf_mix64(p->bin ^ tdbf_mix64(((uint64_t)p->q << 32) | p->rem));
}

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

static void spare_add(sqf_core *c, const sqf_print *p, uint64_t gen)
{
    const sqf_shape *s = &c->shape;
    uint64_t x = spare_hash(p);
    uint64_t *line = c->spare + tdbf_reduce(x, s->spare_lines) * SQF_TAGS;
    line[gen & (SQF_TAGS - 1)] |= spare_mask(s, x);
    c->spills++;
}

static int spare_contains(const sqf_core *c, const sqf_print *p)
{
    const sqf_shape *s = &c->shape;
    uint64_t x = spare_hash(p);
    const uint64_t *line = c->spare + tdbf_reduce(x, s->spare_lines) * SQF_TAGS;
    uint64_t mask = spare_mask(s, x);
    for (unsigned t = 0; t < SQF_TAGS; t++)
        if ((line[t] & mask) == mask)
            return 1;
    return 0;
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
    /* Eight turns clear every word: the rest only move the clock. */
    for (uint64_t i = 0; i < steps && i < SQF_TAGS; i++)
        spare_turn(c, c->gen + i + 1);
    c->gen += steps;
    c->gen_adds = 0;
}

static int mark_live(unsigned gs, unsigned spill, uint64_t gen)
{
    return spill != 0 && mod_diff(gen, gs, SQF_GENS) <= SQF_KEPT;
}

/* Does the spare have to answer for quotient q of this bin? */
static int spill_covers(const sqf_shape *s, unsigned gs, unsigned spill, unsigned q,
                        uint64_t gen)
{
    return mark_live(gs, spill, gen) && q + spill >= s->quotients;
}

/* ---- operations --------------------------------------------------------- */

/* The overflow rule: bin b holds C + 1 entries; one goes to the spare. */
static void spill_one(sqf_core *c, sqf_bin *b, uint64_t bin, uint64_t gen)
{
    const sqf_shape *s = &c->shape;
    unsigned v = bin_victim(b);
    sqf_print p = { bin, b->q[v], b->rem[v] };
    spare_add(c, &p, mod_diff(gen, b->age[v], SQF_TAGS));
    if (!mark_live(b->gs, b->spill, gen))
        b->spill = 0;
    unsigned covers = s->quotients - b->q[v];
    if (covers > b->spill)
        b->spill = covers;
    b->gs = (unsigned)(gen & (SQF_GENS - 1));
    bin_remove(b, v);
}

static void count_add(sqf_core *c)
{
    c->adds++;
    c->gen_adds++;
    if (c->gen_adds == c->turn_every)
        tdbf_sqf_core_turn(c, 1);
}

/* A 1 at header position pos, the bits from pos on moving up by one (the
 * header's last bit is a spare 0 while the bin has room). */
static void header_insert_one(uint64_t h[SQF_HEADER_WORDS], unsigned pos)
{
    unsigned at = pos >> 6, bit = pos & 63;
    for (unsigned j = SQF_HEADER_WORDS - 1; j > at; j--)
        h[j] = (h[j] << 1) | (h[j - 1] >> 63);
    uint64_t low = bit == 0 ? 0 : h[at] & (~UINT64_C(0) >> (64 - bit));
    h[at] = low | ((h[at] & ~low) << 1) | (UINT64_C(1) << bit);
}

/* The common add, in place: the bin was already written in this
 * generation (nothing to purge), and the key is found or there is room.
 * Returns 1 or 0 as tdbf_sqf_core_add, or -1 for the general path. */
static int add_in_place(sqf_core *c, uint64_t *w, const sqf_print *p, uint64_t gen)
{
    const sqf_shape *s = &c->shape;
    if (mod_diff(gen, field_get(w, 0, SQF_GEN_BITS), SQF_GENS) != 0)
        return -1;
    uint64_t hdr[SQF_HEADER_WORDS];
    header_load(s, w, hdr);
    unsigned first, end, sb = slot_bits(s), sp = slots_pos(s);
    uint64_t tag = gen & (SQF_TAGS - 1);
    quotient_run(s, hdr, p->q, &first, &end);
    for (unsigned i = first; i < end; i++) {   /* all live: written this generation */
        uint64_t v = field_get(w, sp + i * sb, sb);
        if ((uint32_t)(v >> SQF_TAG_BITS) == p->rem) {
            field_set(w, sp + i * sb, SQF_TAG_BITS, tag);   /* refresh */
            return 1;
        }
    }
    unsigned n = 0;
    for (unsigned j = 0; j < SQF_HEADER_WORDS; j++)
        n += count_ones(hdr[j]);
    if (n >= s->slots)
        return -1;
    unsigned gs = (unsigned)field_get(w, SQF_GEN_BITS, SQF_GEN_BITS);
    unsigned spill = (unsigned)field_get(w, 2 * SQF_GEN_BITS, SQF_SAFE_BITS);
    int present = spill_covers(s, gs, spill, p->q, gen) && spare_contains(c, p);
    for (unsigned i = n; i > end; i--)
        field_set(w, sp + i * sb, sb, field_get(w, sp + (i - 1) * sb, sb));
    field_set(w, sp + end * sb, sb, ((uint64_t)p->rem << SQF_TAG_BITS) | tag);
    header_insert_one(hdr, end + p->q);   /* before quotient q's 0 */
    header_store(s, w, hdr);
    return present;
}

int tdbf_sqf_core_add(sqf_core *c, const tdbf_hash128 *h)
{
    const sqf_shape *s = &c->shape;
    sqf_print p = fingerprint(s, h);
    uint64_t gen = generation(c);
    uint64_t *w = c->bins + p.bin * s->bin_words;
    int fast = add_in_place(c, w, &p, gen);
    if (fast >= 0) {
        count_add(c);
        return fast;
    }
    sqf_bin b;
    bin_decode(s, w, gen, &b);
    if (mod_diff(gen, b.gw, SQF_GENS) != 0)
        bin_purge(&b);
    int present;
    int i = bin_find(&b, p.q, p.rem);
    if (i >= 0) {
        b.age[i] = 0;   /* refresh */
        present = 1;
    } else {
        present = spill_covers(s, b.gs, b.spill, p.q, gen) &&
                  spare_contains(c, &p);
        bin_insert(&b, p.q, p.rem, 0);
        if (b.n > s->slots)
            spill_one(c, &b, p.bin, gen);
    }
    bin_encode(s, w, gen, &b);
    count_add(c);
    return present;
}

/* A query reads the bin in place: the quotient's run, then its slots. */
int tdbf_sqf_core_contains(const sqf_core *c, const tdbf_hash128 *h)
{
    const sqf_shape *s = &c->shape;
    sqf_print p = fingerprint(s, h);
    uint64_t gen = generation(c);
    const uint64_t *w = c->bins + p.bin * s->bin_words;
    unsigned gw = (unsigned)field_get(w, 0, SQF_GEN_BITS);
    unsigned d = mod_diff(gen, gw, SQF_GENS);
    if (d <= SQF_KEPT) {   /* else every entry of the bin has expired */
        uint64_t hdr[SQF_HEADER_WORDS];
        header_load(s, w, hdr);
        unsigned first, end, sb = slot_bits(s), sp = slots_pos(s);
        quotient_run(s, hdr, p.q, &first, &end);
        for (unsigned i = first; i < end; i++) {
            uint64_t v = field_get(w, sp + i * sb, sb);
            if ((uint32_t)(v >> SQF_TAG_BITS) == p.rem &&
                age_of((unsigned)(v & (SQF_TAGS - 1)), gw, d) <= SQF_KEPT)
                return 1;
        }
    }
    unsigned gs = (unsigned)field_get(w, SQF_GEN_BITS, SQF_GEN_BITS);
    unsigned spill = (unsigned)field_get(w, 2 * SQF_GEN_BITS, SQF_SAFE_BITS);
    return spill_covers(s, gs, spill, p.q, gen) && spare_contains(c, &p);
}

/* ---- a loaded core ---------------------------------------------------------- */

static unsigned highest_one(uint64_t x)   /* x != 0 */
{
#if defined(__GNUC__)
    return 63u - (unsigned)__builtin_clzll(x);
#else
    unsigned n = 0;
    while (x >>= 1)
        n++;
    return n;
#endif
}

/* Is bin w as the operations write it?  Its header holds at most C ones,
 * each before the Q-th 0 (so every entry decodes to a quotient below Q
 * and its run stays inside the slots), and every bit past its n entries'
 * slots is 0.  A bin that passes cannot make an operation read or write
 * outside it. */
static int bin_canonical(const sqf_shape *s, const uint64_t *w)
{
    uint64_t h[SQF_HEADER_WORDS];
    header_load(s, w, h);
    unsigned n = 0, last = 0;
    for (unsigned j = 0; j < SQF_HEADER_WORDS; j++) {
        n += count_ones(h[j]);
        if (h[j] != 0)
            last = 64 * j + highest_one(h[j]);
    }
    if (n > s->slots || (n > 0 && last + 1 >= n + s->quotients))
        return 0;
    unsigned from = slots_pos(s) + n * slot_bits(s), end = 64 * s->bin_words;
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
        if (!bin_canonical(s, c->bins + b * s->bin_words))
            return -1;
    return 0;
}
