/*
 * apbbf.c — Age-Partitioned Blocked Bloom Filter, count window.
 *
 * Shtul, Baquero, Almeida, "Age-Partitioned Bloom Filters" (paper 004),
 * section 6.
 *
 * Model.  APBF (apbf.c) with each slice replaced by a blocked Bloom filter:
 * k+l segments in a circular buffer, each an array of `blocks` blocks of
 * B bits (B = 64: one word; B = 512: one 64-byte cache line).  An insert
 * picks one block in each of the k newest logical segments s_0 .. s_{k-1}
 * and sets b bits in it; every g = floor(blocks lambda / k) inserts the
 * buffer shifts and the oldest segment is cleared, lambda = ln2 / -ln(1 -
 * b/B) being the load per block at which a segment counts as full
 * (plan_blocked.c).  A query is Algorithm 1 over segments, a segment
 * matching when all b bits of the key's block are set.  So an insert
 * touches k cache lines (or words) instead of k*b, and a negative query
 * about 2-4 (paper Table 3, "false").
 *
 *     segment (blocks * B bits, 64-byte aligned, B = 512):
 *
 *       block 0          block 1               block blocks-1
 *     +----------------+----------------+ ... +----------------+
 *     | 512 bits       |                |     |                |
 *     +----------------+----------------+ ... +----------------+
 *              one block, split into b parts (here b = 4, 128 bits each):
 *     +--------+--------+--------+--------+
 *     | part 0 | part 1 | part 2 | part 3 |    a key sets one bit per part
 *     +--------+--------+--------+--------+
 *
 * Bits in a block.  Part j covers bits floor(jB/b) .. floor((j+1)B/b) - 1,
 * and a key sets one bit in each part: b distinct bits, and the model's
 * match probability (1 - (1 - b/B)^X)^b for X keys in the block is then
 * exact (plan_blocked.c explains why uniform random distinct bits would
 * not be).  This is the paper's "each block a partitioned Bloom filter".
 *
 * Hashing.  Buffer position j owns fixed derived hashes of the key's one
 * 128-bit hash (a shift must not move a key's bits): x = h_j picks the
 * block by multiply-shift, blocks * x / 2^64, and the low half of that
 * product, x * blocks mod 2^64, is what is left of x's randomness; the
 * part offsets are read from it in turn the same way (offset = size * y /
 * 2^64, then y = size * y mod 2^64: the digits of x in a mixed radix).
 * Each digit costs log2(radix) bits; once 48 bits are used the digits
 * continue from a fresh derived hash h_{j + t(k+l)}, t = 1, 2, .., which
 * keeps each digit within 2^-16 of uniform.  A small filter with b = 4 reads
 * one derived hash per segment, B = 512 with b = 8 two.  No division.
 *
 * Window, slack, expiry: as APBF.  A key is found while its k segments are
 * among s_0 .. s_{k+l-1}, i.e. for at least w = l*g later inserts; it may
 * linger up to k more generations (slack k*g), reported with probability
 * about r^i after losing i segments (r = a full segment's match rate,
 * ~2^-b, so the slack is much "thinner" than APBF's 2^-i).
 *
 * False positives.  Worst just before a shift: F(k,l,0,0) over the
 * segments' match probabilities, computed for this filter's exact loads
 * (plan_blocked.c, stats.error_planned).  Measured by
 * tests/unit/test_apbbf.c just before shifts (3 filters x 12 generations,
 * g = 10^5): k=2 l=3 B=64 b=4 0.016038 vs 0.015986 planned (band
 * +-0.000249); k=2 l=5 B=512 b=4 0.019719 vs 0.019765 (+-0.000294).
 *
 * Worked example.  w = 2^16, k = 2, l = 5, B = 512, b = 4: lambda = 88.4
 * keys per block, 297 blocks (19 KB) per segment, g = 13123, window
 * 65615; 7 segments = 133 KB, 16.2 bits per element (paper Table 4), FP
 * 0.0198; an insert writes 2 cache lines, a negative query reads 3.3.
 *
 * add() is test-and-set like apbf.c: query, then a due shift, then the k
 * blocks.  Bits are cleared only a whole segment at a time by a shift, so
 * a key inside the window never loses a bit: no false negatives.  The
 * batch calls of a filter of TDBF_WALK_MIN_BYTES or more walk their
 * queries interleaved, each prefetching the block it reads next, and set
 * the adds' blocks in order (tdbf_find_run_batch, tdbf_add_run_batch in
 * model/run.h); they answer exactly as single calls.
 */
#include <math.h>
#include <string.h>

#include "util/block.h"
#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"
#include "model/run.h"
#include "model/inference.h"
#include "model/planning.h"

typedef struct apbbf {
    unsigned  k;            /* segments set per insert */
    unsigned  l;            /* extra segments: the window is l generations */
    unsigned  segments;     /* k + l */
    unsigned  base;         /* buffer position of logical segment s_0 */
    tdbf_block_layout layout; /* blocks per segment, B, b, parts */
    uint64_t  segment_words;/* 64-bit words per segment */
    uint64_t  g;            /* generation size: inserts between shifts */
    uint64_t  fill;         /* inserts in the current generation, 0..g */
    uint64_t  shifts;       /* shifts since open */
    double    fp_planned;   /* plan_blocked.c exact-load F(k,l,0,0) */
    uint64_t *bits;         /* segments * segment_words, 64-byte aligned,
                               right after this struct */
    /* Single calls of a filter of many segments: those whose blocks are
     * asked for before the walk (tdbf_run_ahead_slices). */
    unsigned  ahead_count;
    uint16_t  ahead[TDBF_RUN_AHEAD];
} apbbf;

/* The state and its segments are one 64-byte aligned allocation: the
 * struct, padded to a cache line, then the segments. */
static size_t header_bytes(void)
{
    return (sizeof(apbbf) + 63) / 64 * 64;
}

static size_t allocation_bytes(const apbbf *a)
{
    return header_bytes() + (size_t)a->segments * (size_t)a->segment_words * sizeof(uint64_t);
}

/* Buffer position of logical segment i (0 <= i < k+l), without division. */
static inline unsigned position(const apbbf *a, unsigned i)
{
    unsigned pos = a->base + i;
    return pos >= a->segments ? pos - a->segments : pos;
}

/* A key's block in the segment at buffer position pos.  Position pos
 * draws its digits from h_pos, h_{pos + (k+l)}, h_{pos + 2(k+l)}, ..:
 * fixed per position, so a shift never moves a key's bits. */
static inline uint64_t *block_at(const apbbf *a, unsigned pos,
                                 const tdbf_hash128 *h, tdbf_block_digits *d)
{
    uint64_t block = tdbf_block_pick(&a->layout, h, pos, a->segments, d);
    return a->bits + pos * a->segment_words + block * a->layout.block_words;
}

static inline int segment_has(const apbbf *a, unsigned logical, const tdbf_hash128 *h)
{
    tdbf_block_digits d;
    const uint64_t *block = block_at(a, position(a, logical), h, &d);
    return tdbf_block_has(&a->layout, block, &d);
}

static inline void segment_set(apbbf *a, unsigned logical, const tdbf_hash128 *h)
{
    tdbf_block_digits d;
    uint64_t *block = block_at(a, position(a, logical), h, &d);
    tdbf_block_set(&a->layout, block, &d);
}

/* Algorithm 1 (section 5.4) over segments. */
static int segment_test(const void *state, unsigned logical, const tdbf_hash128 *h)
{
    return segment_has(state, logical, h);
}

/* The line (B = 512) or word (B = 64) segment_test reads. */
static const void *segment_line(const void *state, unsigned logical, const tdbf_hash128 *h)
{
    const apbbf *a = state;
    tdbf_block_digits d;
    return block_at(a, position(a, logical), h, &d);
}

static int query(const apbbf *a, const tdbf_hash128 *h)
{
    return tdbf_find_run(a, a->k, a->l, h, segment_test);
}

/* Retire the oldest segment: it becomes the new, empty s_0. */
static void shift(apbbf *a)
{
    a->base = a->base == 0 ? a->segments - 1 : a->base - 1;
    memset(a->bits + (size_t)a->base * a->segment_words, 0,
           a->segment_words * sizeof(uint64_t));
    a->fill = 0;
    a->shifts++;
}

/* Write the key into s_0 .. s_{k-1} and count it (no shift is due). */
static void set_key(void *state, const tdbf_hash128 *h)
{
    apbbf *a = state;
    for (unsigned i = 0; i < a->k; i++)
        segment_set(a, i, h);
    a->fill++;
}

static int add_one(void *state, const tdbf_hash128 *h)
{
    apbbf *a = state;
    int present = query(a, h);
    if (a->fill == a->g)
        shift(a);
    set_key(a, h);
    return present;
}

/* ---- single calls ------------------------------------------------------
 * Each segment's block comes from the key's hash alone, so a single call
 * need not read one block, test it, then read the next.  With few
 * segments (k + l <= TDBF_RUN_AHEAD: the default plans at 0.01, k = 1,
 * l = 4, B = 512) it computes every segment's block once, asks for all
 * of them, then walks Algorithm 1 over the computed blocks, and an add
 * sets its k blocks from the same computation: the reads overlap, nothing
 * is computed twice.  With more segments it asks for the blocks of the
 * walk's first candidates (tdbf_run_ahead), and for an add the k blocks
 * it sets, then walks as before; that costs recomputing their addresses,
 * which pays only once the filter is out of the caches
 * (f->settings.walk_min_bytes, as the batch walks).  Measured at w =
 * 10^7, error 0.01, best of 6
 * rounds of 10^5 single calls, ns per add / query: B = 512 (k = 1, l = 4)
 * 485-515 / 367-399 before, 242 / 219-222 after; B = 64 (k = 5, l = 13,
 * the tree) 368-380 / 351-353 before, 257-269 / 322-327 after. */

/* A key's block and digits in each logical segment, for few segments. */
typedef struct apbbf_probe {
    const apbbf       *a;
    uint64_t          *block[TDBF_RUN_AHEAD];
    tdbf_block_digits  digits[TDBF_RUN_AHEAD];
} apbbf_probe;

static int probe_test(const void *state, unsigned logical, const tdbf_hash128 *h)
{
    (void)h;
    const apbbf_probe *p = state;
    tdbf_block_digits d = p->digits[logical];
    return tdbf_block_has(&p->a->layout, p->block[logical], &d);
}

/* Every segment's block of the key, each asked for as it is computed
 * (for writing in s_0 .. s_{k-1} when for_add). */
static TDBF_ALWAYS_INLINE void probe_fill(apbbf_probe *p, const apbbf *a,
                                          const tdbf_hash128 *h, bool for_add)
{
    p->a = a;
    for (unsigned i = 0; i < a->segments; i++) {
        p->block[i] = block_at(a, position(a, i), h, &p->digits[i]);
        tdbf_prefetch(p->block[i], for_add && i < a->k);
    }
}

static bool few_segments(const apbbf *a)
{
    return a->segments <= TDBF_RUN_AHEAD;
}

static bool far(const tdbf *f)
{
    return f->state.memory_bytes >= f->settings.walk_min_bytes;
}

static int apbbf_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    apbbf *a = f->state.impl;
    const tdbf_hash128 *h = &key->hash;
    if (few_segments(a)) {
        apbbf_probe p;
        probe_fill(&p, a, h, true);
        int present = tdbf_find_run(&p, a->k, a->l, h, probe_test);
        if (a->fill == a->g) { /* the shift moves s_0: set as usual */
            shift(a);
            set_key(a, h);
            return present;
        }
        for (unsigned i = 0; i < a->k; i++) {
            tdbf_block_digits d = p.digits[i];
            tdbf_block_set(&a->layout, p.block[i], &d);
        }
        a->fill++;
        return present;
    }
    if (far(f)) {
        for (unsigned i = 0; i < a->k; i++)
            tdbf_prefetch(segment_line(a, i, h), 1);
        tdbf_run_ahead(a, a->ahead, a->ahead_count, h, segment_line);
    }
    return add_one(a, h);
}

static int apbbf_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    const apbbf *a = f->state.impl;
    const tdbf_hash128 *h = &key->hash;
    if (few_segments(a)) {
        apbbf_probe p;
        probe_fill(&p, a, h, false);
        return tdbf_find_run(&p, a->k, a->l, h, probe_test);
    }
    if (far(f))
        tdbf_run_ahead(a, a->ahead, a->ahead_count, h, segment_line);
    return query(a, h);
}

/* ---- batch calls -----------------------------------------------------
 * Queries walk Algorithm 1 interleaved, on exactly the blocks each reads
 * (model/run.h); adds too, then set their blocks in order. */

static uint64_t room(const void *state, unsigned *l)
{
    const apbbf *a = state;
    *l = a->l;
    return a->g - a->fill;
}

static void apbbf_contains_many(const tdbf *f, const tdbf_key *keys, size_t n,
                                uint64_t now_ns, uint8_t *found)
{
    (void)now_ns;
    const apbbf *a = f->state.impl;
    tdbf_find_run_batch(a, a->k, a->l, keys, n, segment_test, segment_line, found);
}

static int apbbf_add_many(tdbf *f, const tdbf_key *keys, size_t n,
                          uint64_t now_ns, uint8_t *present)
{
    (void)now_ns;
    apbbf *a = f->state.impl;
    tdbf_add_run_batch(a, a->k, keys, n, segment_test, segment_line, set_key, add_one, room,
                       present);
    return TDBF_OK;
}

/* ---- lifecycle ---------------------------------------------------------- */

/* The segments a single call of a filter of many asks for first. */
static void plan_ahead(apbbf *a)
{
    a->ahead_count = tdbf_run_ahead_slices(a->k, a->l, a->ahead);
}

/* The parameters open builds for cfg: the given (k, l, b), or the
 * planner's least memory within the tolerance (paper 004 section 6). */
static int apbbf_size(const tdbf_config *cfg, tdbf_plan_blocked *plan)
{
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    unsigned block_bits = cfg->block_bits ? cfg->block_bits : TDBF_BLOCK_LINE;
    if ((cfg->k == 0) != (cfg->l == 0) ||
        (block_bits != TDBF_BLOCK_WORD && block_bits != TDBF_BLOCK_LINE) ||
        cfg->block_hashes > TDBF_MAX_BLOCK_HASHES)
        return TDBF_EPARAM;
    int rc = cfg->k && cfg->block_hashes
           ? tdbf_plan_apbbf_size(cfg->k, cfg->l, block_bits, cfg->block_hashes,
                                  cfg->window_items, plan)
           : tdbf_plan_apbbf_search(cfg->window_items, cfg->error, block_bits,
                                    cfg->k, cfg->l, cfg->block_hashes,
                                    tdbf_plan_tolerance(cfg), plan);
    if (rc != TDBF_OK)
        return rc;
    /* (The aligned allocator adds up to 64 + sizeof(size_t) bytes.) */
    double bytes = (double)plan->bits / 8.0 + (double)header_bytes() + 64.0 + sizeof(size_t);
    return tdbf_fits(bytes, cfg->max_memory) ? TDBF_OK : TDBF_ETOOBIG;
}

static int apbbf_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_plan_blocked plan;
    int rc = apbbf_size(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    out->k = plan.k;
    out->l = plan.l;
    out->window_items = (uint64_t)plan.l * plan.g;
    out->error_planned = plan.fp;
    out->memory_bytes = sizeof(tdbf) + header_bytes() + TDBF_ALIGNED_OVERHEAD +
                        (uint64_t)(plan.k + plan.l) * plan.blocks * (plan.block_bits / 8);
    return TDBF_OK;
}

static int apbbf_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_plan_blocked plan;
    int rc = apbbf_size(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;

    apbbf layout = {
        .k = plan.k,
        .l = plan.l,
        .segments = plan.k + plan.l,
        .segment_words = plan.blocks * (plan.block_bits / 64),
        .g = plan.g,
        .fp_planned = plan.fp,
    };
    tdbf_block_layout_init(&layout.layout, plan.block_bits, plan.block_hashes, plan.blocks);
    apbbf *a = tdbf_mem_calloc_aligned(f, allocation_bytes(&layout));
    if (!a)
        return TDBF_ENOMEM;
    *a = layout;
    a->bits = (uint64_t *)((unsigned char *)a + header_bytes());
    plan_ahead(a);
    f->state.impl = a;
    f->state.error_planned = a->fp_planned;
    return TDBF_OK;
}

static void apbbf_close(tdbf *f)
{
    apbbf *a = f->state.impl;
    tdbf_mem_free_aligned(f, a, allocation_bytes(a));
}

/* Each logical segment's match probability, newest first, estimated from
 * its population count: the fill gives the mean load per block
 * (inverting the expected fill), the load the match probability. */
static void measured_matches(const apbbf *a, double *matches)
{
    double segment_bits = (double)a->segment_words * 64.0;
    for (unsigned i = 0; i < a->segments; i++) {
        const uint64_t *segment = a->bits + (size_t)position(a, i) * a->segment_words;
        double fill = (double)tdbf_popcount(segment, a->segment_words) / segment_bits;
        double load = tdbf_apbbf_load_for_fill(a->layout.block_bits,
                                               a->layout.block_hashes, fill);
        matches[i] = load == INFINITY ? 1.0
                   : tdbf_apbbf_match_poisson(a->layout.block_bits,
                                              a->layout.block_hashes, load);
    }
}

/* The inference (infer_apbf.c, as APBF's with a block's match in place of
 * a bit) reads every segment, not only Algorithm 1's path. */
static int apbbf_infer(const tdbf *f, const tdbf_key *key, uint64_t now_ns,
                       const tdbf_prior *prior, tdbf_inference *out)
{
    (void)now_ns;
    const apbbf *a = f->state.impl;
    tdbf_slice_view view = {a->k, a->l, a->g, a->fill, a->shifts, a->layout.blocks,
                            a->layout.block_bits, a->layout.block_hashes};
    return tdbf_slice_infer(&view, a, segment_test, &key->hash, prior, out);
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void apbbf_shape(const tdbf *f, tdbf_shape *out)
{
    const apbbf *a = f->state.impl;
    out->k = a->k;
    out->l = a->l;
    out->window_items = (uint64_t)a->l * a->g;
    out->error_planned = a->fp_planned;
}

static void apbbf_stats(const tdbf *f, tdbf_stats *st)
{
    const apbbf *a = f->state.impl;
    double matches[TDBF_MAX_K + TDBF_MAX_L];
    measured_matches(a, matches);
    st->slices = a->segments;
    st->slice_bits = a->layout.blocks * a->layout.block_bits;
    st->generation_size = a->g;
    st->generation_fill = a->fill;
    st->generations = a->shifts;
    st->error_estimated = tdbf_apbf_fp(a->k, a->l, matches);
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 k, u32 l, u32 B, u32 b, u64 blocks per segment, u64 fill,
 * u64 shifts, u32 base, u32 0, then the segments' words in buffer order.
 * g and the planned FP follow from these (plan_blocked.c). */

enum { APBBF_FIELDS_BYTES = 48 };

static uint64_t segments_bytes(const apbbf *a)
{
    return (uint64_t)a->segments * a->segment_words * sizeof(uint64_t);
}

static uint64_t apbbf_payload_size(const tdbf *f)
{
    return APBBF_FIELDS_BYTES + segments_bytes(f->state.impl);
}

static void apbbf_save(const tdbf *f, tdbf_out *out)
{
    const apbbf *a = f->state.impl;
    tdbf_out_u32(out, a->k);
    tdbf_out_u32(out, a->l);
    tdbf_out_u32(out, a->layout.block_bits);
    tdbf_out_u32(out, a->layout.block_hashes);
    tdbf_out_u64(out, a->layout.blocks);
    tdbf_out_u64(out, a->fill);
    tdbf_out_u64(out, a->shifts);
    tdbf_out_u32(out, a->base);
    tdbf_out_u32(out, 0);
    tdbf_out_words(out, a->bits, (uint64_t)a->segments * a->segment_words);
}

static int apbbf_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    uint32_t k, l, block_bits, block_hashes, base, reserved;
    uint64_t blocks, fill, shifts;
    tdbf_in_u32(in, &k);
    tdbf_in_u32(in, &l);
    tdbf_in_u32(in, &block_bits);
    tdbf_in_u32(in, &block_hashes);
    tdbf_in_u64(in, &blocks);
    tdbf_in_u64(in, &fill);
    tdbf_in_u64(in, &shifts);
    tdbf_in_u32(in, &base);
    if (tdbf_in_u32(in, &reserved) != TDBF_OK)
        return in->rc;
    tdbf_plan_blocked plan;
    if (reserved != 0 ||
        tdbf_plan_apbbf_from_blocks(k, l, block_bits, block_hashes, blocks, &plan) != TDBF_OK ||
        fill > plan.g || base >= k + l)
        return TDBF_ECORRUPT;
    apbbf layout = {
        .k = k,
        .l = l,
        .segments = k + l,
        .base = base,
        .segment_words = blocks * (block_bits / 64),
        .g = plan.g,
        .fill = fill,
        .shifts = shifts,
        .fp_planned = plan.fp,
    };
    if (in->remaining != segments_bytes(&layout))
        return TDBF_ECORRUPT;
    if (!tdbf_fits((double)allocation_bytes(&layout) + 64.0, max_memory))
        return TDBF_ETOOBIG;
    tdbf_block_layout_init(&layout.layout, block_bits, block_hashes, blocks);
    apbbf *a = tdbf_mem_calloc_aligned(f, allocation_bytes(&layout));
    if (!a)
        return TDBF_ENOMEM;
    *a = layout;
    a->bits = (uint64_t *)((unsigned char *)a + header_bytes());
    int rc = tdbf_in_words(in, a->bits, (uint64_t)a->segments * a->segment_words);
    if (rc != TDBF_OK) {
        tdbf_mem_free_aligned(f, a, allocation_bytes(a));
        return rc;
    }
    plan_ahead(a);
    f->state.impl = a;
    f->state.error_planned = a->fp_planned;
    return TDBF_OK;
}

const tdbf_ops tdbf_apbbf_ops = {
    .plan = apbbf_plan,
    .open = apbbf_open,
    .close = apbbf_close,
    .add = apbbf_add,
    .contains = apbbf_contains,
    .advance = NULL,
    .stats = apbbf_stats,
    .shape = apbbf_shape,
    .contains_many = apbbf_contains_many,
    .add_many = apbbf_add_many,
    .payload_size = apbbf_payload_size,
    .save = apbbf_save,
    .load = apbbf_load,
    .infer = apbbf_infer,
};
