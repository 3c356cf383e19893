/*
 * bin.h — a sliding quotient filter's bin worked on in place, a word at a
 * time (private to designs/sqf/; sqf_core.c has the layout and the rules).
 *
 * Why in place.  The first core decoded a whole bin into arrays (quotient,
 * remainder, age of every entry) and encoded it back bit by bit on every
 * first write of a generation: ~40 field reads and writes an add, where
 * the change itself moves a handful of bits.  Here each change is done on
 * the packed words:
 *
 *   an insert   shifts the header's bits above the new 1 up by one and
 *               the slots above the new slot up by r + 3 bits
 *               (range_shift_up, two words a step with SSE2 in the x86
 *               copy): a few words, whatever the load;
 *   a removal   (the overflow's) shifts them down (range_shift_down);
 *   the purge   finds the expired entries several slots at once: a 64-bit
 *               window holds floor(64 / (r + 3)) whole slots, and one
 *               subtraction gives every slot's (gw - tag) mod 8 (each slot
 *               has a spare bit above its 3-bit tag, so no borrow crosses
 *               slots), one addition of d its age's overflow past L
 *               (expired_in_window); the kept slots of the window are
 *               packed (compress_bits: PEXT where the CPU has it) and
 *               appended behind a writer that never passes the reader
 *               (bit_writer); the expired entries are noted one bit an
 *               entry, and the header is rebuilt from them a word at a
 *               time (header_drop: their 1s placed on the word's 1s by
 *               PDEP, the rest packed by PEXT): the bin is crossed once,
 *               however many entries expire (this step was ~600
 *               instructions a purge when each 1 was cut alone, ~1/10
 *               of all an add ran);
 *   a run       is found by selecting the q-th 0 of the header with
 *               broadword rank/select (select_one: byte counts, then the
 *               bit inside the byte), not a loop over the quotients.
 *
 * Every change leaves exactly the bits the decode/encode core wrote: the
 * entries keep their order, kept tags are unchanged (a tag is the entry's
 * generation modulo 8, independent of gw), and the bits after the last
 * slot and after the header's last 0 stay 0 (tests/unit/test_sqf.c checks
 * a digest of the whole memory against the first core's).
 *
 * The geometry is passed by value so that the shapes the planner uses,
 * compiled with constant geometry (sqf_core.c), fold every width and
 * position into the instructions; any other shape runs the same code with
 * the numbers in registers.
 *
 * No unsigned arithmetic here wraps (the sanitizer build traps it): every
 * subtraction is of a smaller number, every byte or slot lane stays below
 * its width, and masks are built without 1 << 64.
 */
#ifndef TDBF_SQF_BIN_H
#define TDBF_SQF_BIN_H

#include <stdint.h>

#include "designs/sqf/internal.h"
#include "util/bits.h"   /* TDBF_ALWAYS_INLINE */

/* A shape's bin, as far as the bits are concerned. */
typedef struct sqf_geom {
    unsigned words;         /* 64-bit words a bin */
    unsigned header_words;  /* ceil((Q + C) / 64) */
    unsigned rem_bits;      /* r */
    unsigned quotients;     /* Q */
    unsigned slots;         /* C */
} sqf_geom;

#define SQF_HEADER_POS SQF_STATE_BITS
#define SQF_HEADER_WORDS 3u   /* Q + C <= 192 */

static TDBF_ALWAYS_INLINE unsigned geom_slot_bits(sqf_geom g)
{
    return g.rem_bits + SQF_TAG_BITS;
}

static TDBF_ALWAYS_INLINE unsigned geom_header_bits(sqf_geom g)
{
    return g.quotients + g.slots;
}

static TDBF_ALWAYS_INLINE unsigned geom_header_words(sqf_geom g)
{
    return g.header_words;
}

static TDBF_ALWAYS_INLINE unsigned geom_slots_pos(sqf_geom g)
{
    return SQF_HEADER_POS + geom_header_bits(g);
}

static TDBF_ALWAYS_INLINE unsigned slot_pos(sqf_geom g, unsigned i)
{
    return geom_slots_pos(g) + i * geom_slot_bits(g);
}

static TDBF_ALWAYS_INLINE sqf_geom geom_of(const sqf_shape *s)
{
    sqf_geom g = { s->bin_words, (s->quotients + s->slots + 63) / 64, s->rem_bits,
                   s->quotients, s->slots };
    return g;
}

/* A key's fingerprint: its bin, quotient and remainder (sqf_core.c). */
typedef struct sqf_print {
    uint64_t bin;
    unsigned q;
    uint32_t rem;
} sqf_print;

static TDBF_ALWAYS_INLINE uint64_t *bin_of(const sqf_core *c, uint64_t bin)
{
    return c->bins + bin * c->shape.bin_words;
}

/* (a - b) mod m for a power of two m, without wrapping an unsigned type
 * (the sanitizer builds trap unsigned wrap-around in the library). */
static TDBF_ALWAYS_INLINE unsigned mod_diff(uint64_t a, uint64_t b, unsigned m)
{
    return (unsigned)(((a & (m - 1)) + m - (b & (m - 1))) & (m - 1));
}


/* ---- words ---------------------------------------------------------------- */

/* The low `bits` bits set, 0 < bits <= 64 (no branch: masks are on every
 * path). */
static TDBF_ALWAYS_INLINE uint64_t low_mask(unsigned bits)
{
    return ~UINT64_C(0) >> (64 - bits);
}

/* The bits below bit b, b < 64. */
static TDBF_ALWAYS_INLINE uint64_t bits_below(unsigned b)
{
    return (UINT64_C(1) << b) - 1;
}

static TDBF_ALWAYS_INLINE unsigned count_ones(uint64_t x)
{
#if defined(SQF_BITS_X86) || \
    (defined(__GNUC__) && (defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))))
    return (unsigned)__builtin_popcountll(x);
#else
    /* x86 without POPCNT: GCC's builtin becomes a library call; the
     * broadword count is faster. */
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    x += x >> 8;
    x += x >> 16;
    x += x >> 32;
    return (unsigned)(x & 127);
#endif
}

static TDBF_ALWAYS_INLINE unsigned lowest_one(uint64_t x)   /* x != 0 */
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned n = 0;
    for (; !(x & 1); x >>= 1)
        n++;
    return n;
#endif
}

static TDBF_ALWAYS_INLINE unsigned highest_one(uint64_t x)   /* x != 0 */
{
#if defined(__GNUC__)
    return 63u - (unsigned)__builtin_clzll(x);
#else
    unsigned n = 0;
    for (; x >>= 1;)
        n++;
    return n;
#endif
}

#define BYTES_ONE  UINT64_C(0x0101010101010101)
#define BYTES_HIGH UINT64_C(0x8080808080808080)

/* Bytes 0..7 of x hold small counts (< 128); byte i of the result holds
 * the sum of bytes 0..i (prefix sums by shifts: nothing wraps). */
static TDBF_ALWAYS_INLINE uint64_t byte_prefix_sums(uint64_t x)
{
    x += x << 8;
    x += x << 16;
    return x + (x << 32);
}

/* How many bytes of `sums` (each < 128) are at most k (k < 128). */
static TDBF_ALWAYS_INLINE unsigned bytes_at_most(uint64_t sums, unsigned k)
{
    uint64_t at_most = ((k * BYTES_ONE) | BYTES_HIGH) - sums;   /* 128 + k - sum >= 1 */
    uint64_t flags = (at_most & BYTES_HIGH) >> 7;
    return (unsigned)(byte_prefix_sums(flags) >> 56);
}

/* The position of the k-th (from 0) 1 of x; k < count_ones(x).  Broadword
 * select: each byte's count, their prefix sums, the byte where the sum
 * passes k, then the same inside that byte with one bit per byte lane. */
static TDBF_ALWAYS_INLINE unsigned select_one(uint64_t x, unsigned k)
{
#if defined(SQF_BITS_X86)
    return lowest_one(_pdep_u64(UINT64_C(1) << k, x));   /* bin_x86.c */
#else
    uint64_t counts = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    counts = (counts & UINT64_C(0x3333333333333333)) + ((counts >> 2) & UINT64_C(0x3333333333333333));
    counts = (counts + (counts >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    uint64_t sums = byte_prefix_sums(counts);
    unsigned byte = bytes_at_most(sums, k);
    unsigned before = byte == 0 ? 0 : (unsigned)(sums >> (8 * byte - 8)) & 0xff;
    uint64_t bits = (x >> (8 * byte)) & 0xff;
    /* lane j of `spread`: bit j of the byte, as 0 or 1 */
    uint64_t spread = ((bits * BYTES_ONE) & UINT64_C(0x8040201008040201)) + UINT64_C(0x7f7f7f7f7f7f7f7f);
    spread = (spread & BYTES_HIGH) >> 7;
    return 8 * byte + bytes_at_most(byte_prefix_sums(spread), k - before);
#endif
}

/* ---- bit fields and ranges of a bin ------------------------------------- */

/* Bits [pos, pos + bits) of the bin, bits <= 64, inside the bin. */
static TDBF_ALWAYS_INLINE uint64_t field_get(const uint64_t *w, unsigned pos, unsigned bits)
{
    unsigned word = pos >> 6, shift = pos & 63;
    uint64_t v = w[word] >> shift;
    if (shift != 0 && shift + bits > 64)
        v |= w[word + 1] << (64 - shift);
    return v & low_mask(bits);
}

static TDBF_ALWAYS_INLINE void field_set(uint64_t *w, unsigned pos, unsigned bits, uint64_t v)
{
    unsigned word = pos >> 6, shift = pos & 63;
    uint64_t mask = low_mask(bits);
    v &= mask;
    w[word] = (w[word] & ~(mask << shift)) | (v << shift);
    if (shift != 0 && shift + bits > 64) {
        unsigned low = 64 - shift;
        w[word + 1] = (w[word + 1] & ~(mask >> low)) | (v >> low);
    }
}

/* 64 bits from pos, the bits past the bin's end read as 0. */
static TDBF_ALWAYS_INLINE uint64_t field_window(const uint64_t *w, unsigned words, unsigned pos)
{
    unsigned word = pos >> 6, shift = pos & 63;
    uint64_t v = w[word] >> shift;
    if (shift != 0 && word + 1 < words)
        v |= w[word + 1] << (64 - shift);
    return v;
}

/* The words of bits [from, limit) and, in its first and last word, the
 * bits outside it, which every range operation keeps. */
typedef struct bit_range {
    unsigned first, last;   /* words */
    uint64_t below;         /* the first word's bits below `from` */
    uint64_t above;         /* the last word's bits from `limit` on */
} bit_range;

static TDBF_ALWAYS_INLINE bit_range range_of(unsigned from, unsigned limit)
{
    bit_range r = { from >> 6, (limit - 1) >> 6, bits_below(from & 63),
                    ~low_mask(((limit - 1) & 63) + 1) };
    return r;
}

/* Bits [from, limit - by) move up to [from + by, limit); [from, from + by)
 * become 0; bits outside [from, limit) keep their values.  0 < by < 64. */
static TDBF_ALWAYS_INLINE void range_shift_up(uint64_t *w, unsigned from, unsigned limit,
                                              unsigned by)
{
    bit_range r = range_of(from, limit);
    uint64_t keep_low = w[r.first] & r.below, keep_high = w[r.last] & r.above;
    w[r.first] &= ~r.below;
    unsigned j = r.last;
#if defined(SQF_BITS_X86)
    /* Two words a step (SSE2, in every x86-64): words j - 1 and j take
     * their bits from j - 2 .. j, read before any of them is written. */
    __m128i up = _mm_cvtsi32_si128((int)by), down = _mm_cvtsi32_si128((int)(64 - by));
    for (; j >= r.first + 2; j -= 2) {
        __m128i high = _mm_loadu_si128((const __m128i *)(w + j - 1));
        __m128i low = _mm_loadu_si128((const __m128i *)(w + j - 2));
        _mm_storeu_si128((__m128i *)(w + j - 1),
                         _mm_or_si128(_mm_sll_epi64(high, up), _mm_srl_epi64(low, down)));
    }
#endif
    for (; j > r.first; j--)
        w[j] = (w[j] << by) | (w[j - 1] >> (64 - by));
    w[r.first] = (w[r.first] << by) | keep_low;
    w[r.last] = (w[r.last] & ~r.above) | keep_high;
}

/* Bits [from + by, limit) move down to [from, limit - by); [limit - by,
 * limit) become 0; bits outside [from, limit) keep their values.
 * 0 < by < 64. */
static TDBF_ALWAYS_INLINE void range_shift_down(uint64_t *w, unsigned from, unsigned limit,
                                                unsigned by)
{
    bit_range r = range_of(from, limit);
    uint64_t keep_low = w[r.first] & r.below, keep_high = w[r.last] & r.above;
    w[r.last] &= ~r.above;
    for (unsigned j = r.first; j < r.last; j++)
        w[j] = (w[j] >> by) | (w[j + 1] << (64 - by));
    w[r.last] >>= by;
    w[r.first] = (w[r.first] & ~r.below) | keep_low;
    w[r.last] |= keep_high;
}

/* Bits [from, limit) become 0. */
static TDBF_ALWAYS_INLINE void range_clear(uint64_t *w, unsigned from, unsigned limit)
{
    bit_range r = range_of(from, limit);
    if (r.first == r.last) {
        w[r.first] &= r.below | r.above;
        return;
    }
    w[r.first] &= r.below;
    for (unsigned j = r.first + 1; j < r.last; j++)
        w[j] = 0;
    w[r.last] &= r.above;
}

/* The bits of x where mask has 1s, packed to the low end (PEXT). */
static TDBF_ALWAYS_INLINE uint64_t compress_bits(uint64_t x, uint64_t mask)
{
#if defined(SQF_BITS_X86)
    return _pext_u64(x, mask);   /* bin_x86.c */
#else
    /* A run of 1s at a time: the purge's masks have one or two. */
    uint64_t out = 0;
    unsigned at = 0;
    while (mask != 0) {
        unsigned low = lowest_one(mask);
        uint64_t run = ~(mask >> low);
        unsigned len = run == 0 ? 64 - low : lowest_one(run);
        out |= ((x >> low) & low_mask(len)) << at;
        at += len;
        mask &= ~(low_mask(len) << low);
    }
    return out;
#endif
}

/* The low bits of x placed, in order, where mask has 1s (PDEP). */
static TDBF_ALWAYS_INLINE uint64_t deposit_bits(uint64_t x, uint64_t mask)
{
#if defined(SQF_BITS_X86)
    return _pdep_u64(x, mask);   /* bin_x86.c */
#else
    uint64_t out = 0;
    for (; mask != 0 && x != 0; mask &= mask - 1, x >>= 1)
        if (x & 1)
            out |= mask & ~(mask - 1);
    return out;
#endif
}

/* Bit j set for each lane j (of `sb` bits, from bit 0) whose bit 0 is
 * set in x, and no other bits set in x: PEXT on the lanes' bit 0s where
 * the CPU has it, else a step a set bit (the purge finds one or two a
 * window). */
static TDBF_ALWAYS_INLINE uint64_t lane_flags(uint64_t x, uint64_t lanes, unsigned sb)
{
#if defined(SQF_BITS_X86)
    (void)sb;
    return _pext_u64(x, lanes);
#else
    (void)lanes;
    uint64_t flags = 0;
    for (; x != 0; x &= x - 1)
        flags |= UINT64_C(1) << (lowest_one(x) / sb);
    return flags;
#endif
}

/* Bits appended to a bin at increasing positions, a whole word written at
 * a time; the bits below the first position are kept. */
typedef struct bit_writer {
    uint64_t *w;
    unsigned  word;   /* the word being filled */
    unsigned  used;   /* its bits filled, < 64 */
    uint64_t  acc;    /* its value so far */
} bit_writer;

static TDBF_ALWAYS_INLINE bit_writer writer_at(uint64_t *w, unsigned pos)
{
    bit_writer out = { w, pos >> 6, pos & 63, w[pos >> 6] & bits_below(pos & 63) };
    return out;
}

/* Appends the low `bits` bits of v (its bits above are 0), bits <= 64. */
static TDBF_ALWAYS_INLINE void writer_put(bit_writer *out, uint64_t v, unsigned bits)
{
    out->acc |= v << out->used;
    if (out->used + bits < 64) {
        out->used += bits;
        return;
    }
    out->w[out->word++] = out->acc;
    out->acc = out->used == 0 ? 0 : v >> (64 - out->used);
    out->used = out->used + bits - 64;
}

/* Writes the last word; the bits after the stream, up to `limit`, become
 * 0. */
static TDBF_ALWAYS_INLINE void writer_end(bit_writer *out, unsigned limit)
{
    unsigned end = 64 * out->word + out->used;
    if (end < limit)
        range_clear(out->w, end, limit);
    if (out->used != 0)
        out->w[out->word] = (out->w[out->word] & ~bits_below(out->used)) | out->acc;
}

/* ---- the header ----------------------------------------------------------- */

/* The header as words of its own (bit j of the header is bit j mod 64 of
 * word j / 64); the words past Q + C bits are 0. */
static TDBF_ALWAYS_INLINE void header_load(sqf_geom g, const uint64_t *w,
                                           uint64_t h[SQF_HEADER_WORDS])
{
    unsigned last = geom_header_words(g) - 1;
    for (unsigned j = 0; j < SQF_HEADER_WORDS; j++)
        h[j] = j < last ? field_get(w, SQF_HEADER_POS + 64 * j, 64) : 0;
    h[last] = field_get(w, SQF_HEADER_POS + 64 * last, geom_header_bits(g) - 64 * last);
}

/* Entries stored: the header's 1s. */
static TDBF_ALWAYS_INLINE unsigned header_entries(sqf_geom g, const uint64_t h[SQF_HEADER_WORDS])
{
    unsigned n = 0;
    for (unsigned j = 0; j < geom_header_words(g); j++)
        n += count_ones(h[j]);
    return n;
}

/* The position of the header's k-th 0, k < Q (it lies inside the header:
 * the header's Q-th 0 closes its last quotient). */
static TDBF_ALWAYS_INLINE unsigned header_zero(sqf_geom g, const uint64_t h[SQF_HEADER_WORDS],
                                               unsigned k)
{
    for (unsigned j = 0; j + 1 < geom_header_words(g); j++) {
        uint64_t zeros = ~h[j];
        unsigned n = count_ones(zeros);
        if (k < n)
            return 64 * j + select_one(zeros, k);
        k -= n;
    }
    return 64 * (geom_header_words(g) - 1) + select_one(~h[geom_header_words(g) - 1], k);
}

/* The position of the header's k-th 1, k < its number of 1s. */
static TDBF_ALWAYS_INLINE unsigned header_one(sqf_geom g, const uint64_t h[SQF_HEADER_WORDS],
                                              unsigned k)
{
    for (unsigned j = 0; j + 1 < geom_header_words(g); j++) {
        unsigned n = count_ones(h[j]);
        if (k < n)
            return 64 * j + select_one(h[j], k);
        k -= n;
    }
    return 64 * (geom_header_words(g) - 1) + select_one(h[geom_header_words(g) - 1], k);
}

/* The position just after the last 0 below position `z` (0 if none): where
 * the run of 1s that ends at z starts. */
static TDBF_ALWAYS_INLINE unsigned run_start(const uint64_t h[SQF_HEADER_WORDS], unsigned z)
{
    unsigned j = z >> 6;
    uint64_t zeros = ~h[j] & bits_below(z & 63);
    while (zeros == 0) {
        if (j == 0)
            return 0;
        zeros = ~h[--j];
    }
    return 64 * j + highest_one(zeros) + 1;
}

/* Slots [*first, *end) hold quotient q's entries: the 1s between the
 * header's (q-1)-th and q-th 0s, the i-th 1 being slot i. */
static TDBF_ALWAYS_INLINE void quotient_run(sqf_geom g, const uint64_t h[SQF_HEADER_WORDS],
                                            unsigned q, unsigned *first, unsigned *end)
{
    unsigned zero = header_zero(g, h, q);
    *end = zero - q;
    *first = q == 0 ? 0 : run_start(h, zero) - q;
}

/* The header words written back to the bin (the bits past Q + C are the
 * slots', kept). */
static TDBF_ALWAYS_INLINE void header_store(sqf_geom g, uint64_t *w, const uint64_t h[SQF_HEADER_WORDS])
{
    unsigned last = geom_header_words(g) - 1;
    for (unsigned j = 0; j < last; j++)
        field_set(w, SQF_HEADER_POS + 64 * j, 64, h[j]);
    field_set(w, SQF_HEADER_POS + 64 * last, geom_header_bits(g) - 64 * last, h[last]);
}

/* The header without the 1s of the entries in `gone` (bit i: entry i,
 * the header's i-th 1), its other bits closed up and 0s after them:
 * each header word's leaving 1s are the next bits of `gone` placed on
 * its 1s (deposit), and the rest of the word is packed (compress), so
 * the header is rebuilt in a few steps a word, however many leave. */
static TDBF_ALWAYS_INLINE void header_drop(sqf_geom g, uint64_t *w, const uint64_t h[SQF_HEADER_WORDS],
                                           const uint64_t gone[SQF_MAX_SLOTS / 64])
{
    uint64_t kept[SQF_HEADER_WORDS] = { 0 };
    bit_writer out = writer_at(kept, 0);
    unsigned last = geom_header_words(g) - 1, entry = 0;
    for (unsigned j = 0; j <= last; j++) {
        uint64_t valid = j < last ? ~UINT64_C(0) : low_mask(geom_header_bits(g) - 64 * last);
        unsigned ones = count_ones(h[j]);
        uint64_t leave = ones ? field_get(gone, entry, ones) : 0;
        uint64_t keep = valid & ~deposit_bits(leave, h[j]);
        writer_put(&out, compress_bits(h[j], keep), count_ones(keep));
        entry += ones;
    }
    writer_end(&out, geom_header_bits(g));
    header_store(g, w, kept);
}

/* ---- entries ------------------------------------------------------------------ */

static TDBF_ALWAYS_INLINE uint64_t slot_get(sqf_geom g, const uint64_t *w, unsigned i)
{
    return field_get(w, slot_pos(g, i), geom_slot_bits(g));
}

/* Entry i (slot i, the i-th 1 of the header, at header position `one`)
 * leaves; `entries` were stored. */
static TDBF_ALWAYS_INLINE void entry_remove(sqf_geom g, uint64_t *w, unsigned i, unsigned one,
                                           unsigned entries)
{
    range_shift_down(w, slot_pos(g, i), slot_pos(g, entries), geom_slot_bits(g));
    range_shift_down(w, SQF_HEADER_POS + one, SQF_HEADER_POS + g.quotients + entries, 1);
}

/* A new entry of quotient q as slot i (the end of q's run); `entries`
 * were stored, fewer than C. */
static TDBF_ALWAYS_INLINE void entry_insert(sqf_geom g, uint64_t *w, unsigned q, unsigned i,
                                            uint64_t slot, unsigned entries)
{
    range_shift_up(w, slot_pos(g, i), slot_pos(g, entries + 1), geom_slot_bits(g));
    field_set(w, slot_pos(g, i), geom_slot_bits(g), slot);
    unsigned one = SQF_HEADER_POS + q + i;   /* after q 0s and i 1s */
    range_shift_up(w, one, SQF_HEADER_POS + g.quotients + entries + 1, 1);
    w[one >> 6] |= UINT64_C(1) << (one & 63);
}

/* ---- the purge's age test ---------------------------------------------------- */

/* Bit 0 of each whole slot a 64-bit window holds. */
static TDBF_ALWAYS_INLINE uint64_t slot_lanes(sqf_geom g)
{
    uint64_t lanes = 0;
    for (unsigned at = 0; at + geom_slot_bits(g) <= 64; at += geom_slot_bits(g))
        lanes |= UINT64_C(1) << at;
    return lanes;
}

/* In a window of slots (lanes: their bit 0), bit 0 of each slot whose
 * entry is older than L: age = d + (gw - tag mod 8) > 7.  A lane's
 * (8 + gw) - tag is 1..15 (no borrow into the next lane, which starts at
 * least 4 bits up); its low 3 bits plus d (< 8) carry into bit 3 exactly
 * when the age passes 7. */
static TDBF_ALWAYS_INLINE uint64_t expired_in_window(uint64_t window, uint64_t lanes, unsigned gw,
                                                     unsigned d)
{
    uint64_t tags = window & (lanes * (SQF_TAGS - 1));
    uint64_t back = ((lanes * (SQF_TAGS | gw)) - tags) & (lanes * (SQF_TAGS - 1));
    return ((back + lanes * d) >> SQF_TAG_BITS) & lanes;
}

#endif
