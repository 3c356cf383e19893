/*
 * simd.c — the probe of a line-local unit in vector registers (x86-64
 * AVX2 and AVX-512), chosen at run time (ring.h).
 *
 * A probe builds a key's masks over the unit's words and tests them
 * against the unit: ring.h's line_key_masks and line_matches, bit for bit.
 * The portable probe spends ~400 instructions on a 16-word unit, most of
 * them 16 remix rounds and 3 variable shifts per field; an operation that
 * long fills the out-of-order window on its own, so the next key's memory
 * read cannot start before this key's has returned, and a DRAM-sized
 * filter pays one full miss per call.  Here every word is a vector lane,
 * and the same steps take ~40 instructions for the unit (AVX-512).
 *
 * The lanes compute exactly what the scalar code does: word w's derived
 * hash z_w = remix(lo + (w + 1) hi) (hash.h: the multiply is done in 64-bit
 * lanes, emulated from 32-bit multiplies under AVX2), and field i of the
 * word sits in the vector's field-sized lane, where it finds its offsets
 * at the same bits of z_w.  tests/unit/test_apbf_line.c compares every
 * path with the portable one on every shape.
 *
 * Compiled for any target: the vector functions carry their own target
 * attributes, and nothing here runs unless the CPU reports the features.
 */
#include <stdatomic.h>
#include <stdbool.h>

#include "designs/apbf_line/internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LINE_X86 1
#include <immintrin.h>
#else
#define LINE_X86 0
#endif

#if LINE_X86

#define AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
#define AVX2   __attribute__((target("avx2")))

/* ---- AVX-512: 8 words per register ------------------------------------- */

/* z_w for the 8 words of `index` (each w + 1). */
static AVX512 inline __m512i remix_512(__m512i lo, __m512i hi, __m512i index)
{
    __m512i x = _mm512_add_epi64(lo, _mm512_mullo_epi64(index, hi));
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 32));
    x = _mm512_mullo_epi64(x, _mm512_set1_epi64((long long)TDBF_REMIX_MULTIPLIER));
    return _mm512_xor_si512(x, _mm512_srli_epi64(x, 32));
}

/* The key's masks from z: in each field-sized lane, b bits at the offsets
 * the lane's own bits of z give (line_word_mask). */
static AVX512 inline __m512i masks_512(__m512i z, unsigned width, unsigned b)
{
    __m512i m = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (unsigned j = 0; j < b; j++) {
        __m512i o;
        if (width == 64) {
            o = _mm512_and_si512(_mm512_srli_epi64(z, 6 * j), _mm512_set1_epi64(63));
            m = _mm512_or_si512(m, _mm512_sllv_epi64(_mm512_set1_epi64(1), o));
        } else if (width == 32) {
            o = _mm512_and_si512(_mm512_srli_epi32(z, 5 * j), _mm512_set1_epi32(31));
            m = _mm512_or_si512(m, _mm512_sllv_epi32(_mm512_set1_epi32(1), o));
        } else {
            o = _mm512_and_si512(_mm512_srli_epi16(z, 4 * j), _mm512_set1_epi16(15));
            m = _mm512_or_si512(m, _mm512_sllv_epi16(_mm512_set1_epi16(1), o));
        }
    }
    return m;
}

/* Bit per field-sized lane: the unit holds all the key's bits there. */
static AVX512 inline uint64_t clear_512(__m512i miss, unsigned width)
{
    if (width == 64)
        return _mm512_testn_epi64_mask(miss, miss);
    if (width == 32)
        return _mm512_testn_epi32_mask(miss, miss);
    return _mm512_testn_epi16_mask(miss, miss);
}

/* One pass over the unit: the key's masks (into mask, unless NULL), the
 * match bits, and for a mark (write = unit) the unit's words or-ed with
 * mask & set, straight from the registers (ring.h). */
static AVX512 TDBF_ALWAYS_INLINE uint64_t pass_512(const uint64_t *unit, uint64_t *write,
                                                   const tdbf_hash128 *h, uint64_t *mask,
                                                   const uint64_t *set, unsigned width,
                                                   unsigned b, unsigned words)
{
    __m512i lo = _mm512_set1_epi64((long long)h->lo), hi = _mm512_set1_epi64((long long)h->hi);
    __m512i index = _mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1);
    uint64_t match = 0;
#pragma GCC unroll 2
    for (unsigned v = 0; v < words / 8; v++) {
        __m512i m = masks_512(remix_512(lo, hi, index), width, b);
        __m512i u = _mm512_loadu_si512((const void *)(unit + 8 * v));
        if (mask)
            _mm512_storeu_si512((void *)(mask + 8 * v), m);
        match |= clear_512(_mm512_andnot_si512(u, m), width) << (v * (512 / width));
        if (write) {
            __m512i add = _mm512_and_si512(m, _mm512_loadu_si512((const void *)(set + 8 * v)));
            _mm512_storeu_si512((void *)(write + 8 * v), _mm512_or_si512(u, add));
        }
        index = _mm512_add_epi64(index, _mm512_set1_epi64(8));
    }
    return match;
}

static AVX512 TDBF_ALWAYS_INLINE uint64_t probe_512(const uint64_t *unit, const tdbf_hash128 *h,
                                                    uint64_t *mask, unsigned width, unsigned b,
                                                    unsigned words)
{
    return pass_512(unit, NULL, h, mask, NULL, width, b, words);
}

static AVX512 TDBF_ALWAYS_INLINE uint64_t mark_512(uint64_t *unit, const tdbf_hash128 *h,
                                                   const uint64_t *set, unsigned width,
                                                   unsigned b, unsigned words)
{
    return pass_512(unit, unit, h, NULL, set, width, b, words);
}

/* ---- AVX2: 4 words per register ----------------------------------------- */

/* The low 64 bits of a * b in each lane, from 32 x 32-bit multiplies. */
static AVX2 inline __m256i mul64_256(__m256i a, __m256i b)
{
    __m256i low = _mm256_mul_epu32(a, b);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
                                     _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
    return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
}

static AVX2 inline __m256i remix_256(__m256i lo, __m256i hi, __m256i index)
{
    __m256i x = _mm256_add_epi64(lo, mul64_256(index, hi));
    x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 32));
    x = mul64_256(x, _mm256_set1_epi64x((long long)TDBF_REMIX_MULTIPLIER));
    return _mm256_xor_si256(x, _mm256_srli_epi64(x, 32));
}

/* As masks_512; AVX2 has no 16-bit variable shift, so a 32-bit lane's two
 * 16-bit fields are shifted apart: the low one's count is at bits 4j, the
 * high one's at 16 + 4j, and neither can leave its half (counts < 16). */
static AVX2 inline __m256i masks_256(__m256i z, unsigned width, unsigned b)
{
    __m256i m = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (unsigned j = 0; j < b; j++) {
        if (width == 64) {
            __m256i o = _mm256_and_si256(_mm256_srli_epi64(z, (int)(6 * j)),
                                         _mm256_set1_epi64x(63));
            m = _mm256_or_si256(m, _mm256_sllv_epi64(_mm256_set1_epi64x(1), o));
        } else if (width == 32) {
            __m256i o = _mm256_and_si256(_mm256_srli_epi32(z, (int)(5 * j)),
                                         _mm256_set1_epi32(31));
            m = _mm256_or_si256(m, _mm256_sllv_epi32(_mm256_set1_epi32(1), o));
        } else {
            __m256i low = _mm256_and_si256(_mm256_srli_epi32(z, (int)(4 * j)),
                                           _mm256_set1_epi32(15));
            __m256i high = _mm256_and_si256(_mm256_srli_epi32(z, (int)(16 + 4 * j)),
                                            _mm256_set1_epi32(15));
            m = _mm256_or_si256(m, _mm256_sllv_epi32(_mm256_set1_epi32(1), low));
            m = _mm256_or_si256(m, _mm256_sllv_epi32(_mm256_set1_epi32(1 << 16), high));
        }
    }
    return m;
}

/* Every other bit of a 32-bit byte mask, packed: one bit per 16-bit lane. */
static inline uint64_t even_bits(uint32_t x)
{
    x &= 0x55555555u;
    x = (x | x >> 1) & 0x33333333u;
    x = (x | x >> 2) & 0x0f0f0f0fu;
    x = (x | x >> 4) & 0x00ff00ffu;
    x = (x | x >> 8) & 0x0000ffffu;
    return x;
}

static AVX2 inline uint64_t clear_256(__m256i miss, unsigned width)
{
    __m256i zero = _mm256_setzero_si256();
    if (width == 64)
        return (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(miss, zero)));
    if (width == 32)
        return (uint64_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(miss, zero)));
    return even_bits((uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi16(miss, zero)));
}

/* As pass_512, four words at a time. */
static AVX2 TDBF_ALWAYS_INLINE uint64_t pass_256(const uint64_t *unit, uint64_t *write,
                                                 const tdbf_hash128 *h, uint64_t *mask,
                                                 const uint64_t *set, unsigned width,
                                                 unsigned b, unsigned words)
{
    __m256i lo = _mm256_set1_epi64x((long long)h->lo), hi = _mm256_set1_epi64x((long long)h->hi);
    __m256i index = _mm256_set_epi64x(4, 3, 2, 1);
    uint64_t match = 0;
#pragma GCC unroll 4
    for (unsigned v = 0; v < words / 4; v++) {
        __m256i m = masks_256(remix_256(lo, hi, index), width, b);
        __m256i u = _mm256_loadu_si256((const __m256i *)(unit + 4 * v));
        if (mask)
            _mm256_storeu_si256((__m256i *)(mask + 4 * v), m);
        match |= clear_256(_mm256_andnot_si256(u, m), width) << (v * (256 / width));
        if (write) {
            __m256i add = _mm256_and_si256(m, _mm256_loadu_si256((const __m256i *)(set + 4 * v)));
            _mm256_storeu_si256((__m256i *)(write + 4 * v), _mm256_or_si256(u, add));
        }
        index = _mm256_add_epi64(index, _mm256_set1_epi64x(4));
    }
    return match;
}

static AVX2 TDBF_ALWAYS_INLINE uint64_t probe_256(const uint64_t *unit, const tdbf_hash128 *h,
                                                  uint64_t *mask, unsigned width, unsigned b,
                                                  unsigned words)
{
    return pass_256(unit, NULL, h, mask, NULL, width, b, words);
}

static AVX2 TDBF_ALWAYS_INLINE uint64_t mark_256(uint64_t *unit, const tdbf_hash128 *h,
                                                 const uint64_t *set, unsigned width,
                                                 unsigned b, unsigned words)
{
    return pass_256(unit, unit, h, NULL, set, width, b, words);
}

/* ---- one probe and one mark per shape and path ------------------------- */

#define SIMD_PROBE(PATH, ATTR, W, B, WORDS)                                                  \
    static ATTR uint64_t probe_##PATH##_##W##_##B##_##WORDS(                                 \
        const uint64_t *unit, const tdbf_hash128 *h, uint64_t *mask)                         \
    {                                                                                        \
        return probe_##PATH(unit, h, mask, W, B, WORDS);                                     \
    }                                                                                        \
    static ATTR uint64_t mark_##PATH##_##W##_##B##_##WORDS(                                  \
        uint64_t *unit, const tdbf_hash128 *h, const uint64_t *set)                          \
    {                                                                                        \
        return mark_##PATH(unit, h, set, W, B, WORDS);                                       \
    }
#define SIMD_PROBES_OF_WIDTH(PATH, ATTR, W, WORDS)                                          \
    SIMD_PROBE(PATH, ATTR, W, 1, WORDS) SIMD_PROBE(PATH, ATTR, W, 2, WORDS)                  \
    SIMD_PROBE(PATH, ATTR, W, 3, WORDS) SIMD_PROBE(PATH, ATTR, W, 4, WORDS)
#define SIMD_PROBES(PATH, ATTR)                                                             \
    SIMD_PROBES_OF_WIDTH(PATH, ATTR, 16, 8) SIMD_PROBES_OF_WIDTH(PATH, ATTR, 32, 8)          \
    SIMD_PROBES_OF_WIDTH(PATH, ATTR, 64, 8) SIMD_PROBES_OF_WIDTH(PATH, ATTR, 16, 16)         \
    SIMD_PROBES_OF_WIDTH(PATH, ATTR, 32, 16) SIMD_PROBES_OF_WIDTH(PATH, ATTR, 64, 16)

SIMD_PROBES(512, AVX512)
SIMD_PROBES(256, AVX2)

#define SIMD_ROW(KIND, PATH, W, WORDS)                                                  \
    {KIND##_##PATH##_##W##_1_##WORDS, KIND##_##PATH##_##W##_2_##WORDS,                  \
     KIND##_##PATH##_##W##_3_##WORDS, KIND##_##PATH##_##W##_4_##WORDS}
#define SIMD_TABLE(KIND, PATH)                                                              \
    {{SIMD_ROW(KIND, PATH, 16, 8), SIMD_ROW(KIND, PATH, 32, 8), SIMD_ROW(KIND, PATH, 64, 8)},  \
     {SIMD_ROW(KIND, PATH, 16, 16), SIMD_ROW(KIND, PATH, 32, 16), SIMD_ROW(KIND, PATH, 64, 16)}}

static const tdbf_line_probe avx512_probes[2][3][LINE_MAX_B] = SIMD_TABLE(probe, 512);
static const tdbf_line_probe avx2_probes[2][3][LINE_MAX_B] = SIMD_TABLE(probe, 256);
static const tdbf_line_mark avx512_marks[2][3][LINE_MAX_B] = SIMD_TABLE(mark, 512);
static const tdbf_line_mark avx2_marks[2][3][LINE_MAX_B] = SIMD_TABLE(mark, 256);

/* The whole add and query of each 64-bit-field shape (internal.h). */
#define SIMD_ENTRY(PATH, ATTR, B, WORDS)                                                    \
    static ATTR TDBF_ALWAYS_INLINE int add_##PATH##_##B##_##WORDS(tdbf *f, tdbf_hash128 h)   \
    {                                                                                        \
        line_filter *t = f->state.impl;                                                      \
        if (__builtin_expect(t->fill == t->g, 0))                                            \
            return tdbf_line_shift_then_add(f, h);                                           \
        line_site site = line_site_of(t, &h, WORDS);                                         \
        uint64_t match = mark_##PATH(site.unit, &h, site.set, 64, B, WORDS);                 \
        return line_add_done(t, run_in_short(t, site.head, match));                          \
    }                                                                                        \
    static ATTR TDBF_ALWAYS_INLINE int contains_##PATH##_##B##_##WORDS(const tdbf *f,        \
                                                                       tdbf_hash128 h)   \
    {                                                                                        \
        const line_filter *t = f->state.impl;                                                \
        line_site site = line_site_of(t, &h, WORDS);                                         \
        return run_in_short(t, site.head, probe_##PATH(site.unit, &h, NULL, 64, B, WORDS));  \
    }                                                                                        \
    LINE_BATCH_ENTRIES(ATTR, PATH##_##B##_##WORDS, WORDS)
#define SIMD_ENTRIES(PATH, ATTR, WORDS)                                                     \
    SIMD_ENTRY(PATH, ATTR, 1, WORDS) SIMD_ENTRY(PATH, ATTR, 2, WORDS)                        \
    SIMD_ENTRY(PATH, ATTR, 3, WORDS) SIMD_ENTRY(PATH, ATTR, 4, WORDS)
SIMD_ENTRIES(512, AVX512, 8)
SIMD_ENTRIES(512, AVX512, 16)
SIMD_ENTRIES(256, AVX2, 8)
SIMD_ENTRIES(256, AVX2, 16)

#define ENTRY(PATH, B, WORDS)                                                               \
    {add_##PATH##_##B##_##WORDS, contains_##PATH##_##B##_##WORDS,                            \
     add_many_##PATH##_##B##_##WORDS, contains_many_##PATH##_##B##_##WORDS}
#define ENTRY_TABLE(PATH)                                                                  \
    {{ENTRY(PATH, 1, 8), ENTRY(PATH, 2, 8), ENTRY(PATH, 3, 8), ENTRY(PATH, 4, 8)},         \
     {ENTRY(PATH, 1, 16), ENTRY(PATH, 2, 16), ENTRY(PATH, 3, 16), ENTRY(PATH, 4, 16)}}

static const line_entries avx512_entries[2][LINE_MAX_B] = ENTRY_TABLE(512);
static const line_entries avx2_entries[2][LINE_MAX_B] = ENTRY_TABLE(256);

static bool cpu_has(tdbf_simd path)
{
    __builtin_cpu_init();
    if (path == TDBF_SIMD_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    return path == TDBF_SIMD_AVX2 && __builtin_cpu_supports("avx2");
}

tdbf_line_probe tdbf_line_simd_probe(tdbf_simd path, unsigned words, unsigned width, unsigned b)
{
    unsigned size = words == 16, wide = line_width_log2(width) - 4;
    if (path == TDBF_SIMD_AVX512)
        return avx512_probes[size][wide][b - 1];
    if (path == TDBF_SIMD_AVX2)
        return avx2_probes[size][wide][b - 1];
    return NULL;
}

tdbf_line_mark tdbf_line_simd_mark(tdbf_simd path, unsigned words, unsigned width, unsigned b)
{
    unsigned size = words == 16, wide = line_width_log2(width) - 4;
    if (path == TDBF_SIMD_AVX512)
        return avx512_marks[size][wide][b - 1];
    if (path == TDBF_SIMD_AVX2)
        return avx2_marks[size][wide][b - 1];
    return NULL;
}

line_entries tdbf_line_simd_entries(tdbf_simd path, unsigned words, unsigned b)
{
    line_entries none = {NULL, NULL, NULL, NULL};
    if (path == TDBF_SIMD_AVX512)
        return avx512_entries[words == 16][b - 1];
    if (path == TDBF_SIMD_AVX2)
        return avx2_entries[words == 16][b - 1];
    return none;
}

#else /* no vector path on this target */

static bool cpu_has(tdbf_simd path)
{
    (void)path;
    return false;
}

tdbf_line_probe tdbf_line_simd_probe(tdbf_simd path, unsigned words, unsigned width, unsigned b)
{
    (void)path, (void)words, (void)width, (void)b;
    return NULL;
}

tdbf_line_mark tdbf_line_simd_mark(tdbf_simd path, unsigned words, unsigned width, unsigned b)
{
    (void)path, (void)words, (void)width, (void)b;
    return NULL;
}

line_entries tdbf_line_simd_entries(tdbf_simd path, unsigned words, unsigned b)
{
    (void)path, (void)words, (void)b;
    line_entries none = {NULL, NULL, NULL, NULL};
    return none;
}

#endif

/* ---- the process-wide choice ------------------------------------------- */

static _Atomic int simd_choice = TDBF_SIMD_AUTO;

int tdbf_simd_available(tdbf_simd path)
{
    return path == TDBF_SIMD_PORTABLE ||
           ((path == TDBF_SIMD_AVX2 || path == TDBF_SIMD_AVX512) && cpu_has(path));
}

int tdbf_set_simd(tdbf_simd path)
{
    if (path != TDBF_SIMD_AUTO && path != TDBF_SIMD_PORTABLE && path != TDBF_SIMD_AVX2 &&
        path != TDBF_SIMD_AVX512)
        return TDBF_EINVAL;
    if (path != TDBF_SIMD_AUTO && !tdbf_simd_available(path))
        return TDBF_ENOTSUP;
    atomic_store_explicit(&simd_choice, (int)path, memory_order_relaxed);
    return TDBF_OK;
}

tdbf_simd tdbf_simd_in_use(void)
{
    tdbf_simd chosen = (tdbf_simd)atomic_load_explicit(&simd_choice, memory_order_relaxed);
    if (chosen != TDBF_SIMD_AUTO)
        return chosen;
    return tdbf_simd_available(TDBF_SIMD_AVX512) ? TDBF_SIMD_AVX512
         : tdbf_simd_available(TDBF_SIMD_AVX2)   ? TDBF_SIMD_AVX2
                                                  : TDBF_SIMD_PORTABLE;
}

const char *tdbf_simd_name(tdbf_simd path)
{
    switch (path) {
    case TDBF_SIMD_AUTO:     return "auto";
    case TDBF_SIMD_PORTABLE: return "portable";
    case TDBF_SIMD_AVX2:     return "avx2";
    case TDBF_SIMD_AVX512:   return "avx512";
    }
    return "unknown";
}
