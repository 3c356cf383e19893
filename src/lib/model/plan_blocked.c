/*
 * plan_blocked.c — APBBF analytics and sizing (paper 004, section 6).
 *
 * A segment of an Age-Partitioned Blocked Bloom filter is an array of
 * `blocks` blocks of B bits (B = 64: one word; B = 512: one cache line).  A
 * key picks one block per segment and sets b bits in it.  apbbf.c splits a
 * block into b near-equal parts (part j is bits floor(jB/b) ..
 * floor((j+1)B/b) - 1) and sets one bit in each part: the paper's "each
 * block a partitioned Bloom filter", so the b bits are distinct by
 * construction.  Everything of section 5 then carries over with "slice
 * fill" replaced by "probability that a segment matches a never-inserted
 * key" (the paper says so at the start of section 6).
 *
 * Match probability.  A block that has received X keys has, in a part of
 * s bits, each bit still clear with probability (1 - 1/s)^X, independently
 * across the parts (each key picks its bit in each part independently), so
 * a never-inserted key finds all its b bits set with probability
 *
 *     m(X) = prod_j (1 - (1 - 1/s_j)^X)  =  (1 - (1 - b/B)^X)^b  when b | B.
 *
 * That closed form is the model design.md gives for Table 3; it is exact
 * for partitioned blocks.  (It is not exact for b bits drawn as a random
 * distinct subset of the block: bits of one key exclude each other, and
 * the true m(X) is lower — for B = 64, b = 4 by 12 % at half the capacity
 * and 5 % at capacity, for b = 8 by 25 % and 13 % — so whole filters of
 * Table 3 built that way run 10 % (k=2, l=3, B=64, b=4) to 25 % (b=8)
 * below the table: a gap the statistical tests would see.)
 *
 * The load X of a block is the number of keys of the segment that chose
 * it: Binomial(n, 1/blocks) for n keys, which the paper's model
 * approximates by Poisson(n / blocks).  A segment's match probability is
 * r = E[m(X)], summed here from the mode of X outwards until the terms
 * vanish (the pmf is built by its ratio recurrence and normalized by its
 * own sum, so no factorials appear).
 *
 * Capacity.  The paper stops filling a segment at expected fill 1/2 and
 * takes the per-block load at that point as the mean load:
 * (1 - b/B)^lambda = 1/2, i.e. lambda = ln2 / -ln(1 - b/B) keys per block
 * (slightly below the B ln2 / b of a plain Bloom filter).  Relative to an
 * APBF with (k*b, l*b) slices in the same memory the window is therefore
 * lambda / (B ln2 / b): Table 3's "cap." column (0.968 for B = 64, b = 4;
 * 0.996 for B = 512, b = 4).  Generation size: g = floor(blocks lambda / k).
 *
 * False positives.  As for APBF (plan.c): just before a shift logical
 * segment i < k holds (i+1) generations, the others k, and the FP rate is
 * F(k,l,0,0) over r_0 .. r_{k+l-1}.  Two sets of loads are used:
 *   - the paper's model: Poisson with mean lambda (i+1)/k, or lambda
 *     (plan.fp_paper, and the access and NPWS columns of Table 3);
 *   - the filter's own: Binomial((i+1) g, 1/blocks) with its integer g
 *     and block count (plan.fp: what the filter really does, the rate its
 *     statistical test measures).
 * Table 3 reproduced by this model (k, l, B, b: APBBF fp, "false" reads):
 *     2  3   64 4  0.0159865 2.25     2  3  512 8  0.0000738 2.02
 *     3  8  512 4  0.0017993 3.38     3  8   64 8  0.0000178 3.08
 * — every printed digit of every row agrees (tests/unit/test_apbbf.c).
 *
 * Accesses.  tdbf_apbf_accesses_false (plan.c) gives the expected reads of
 * a negative query.  Reads of queries that answer yes use the same phase
 * decomposition of Algorithm 1 (see plan.c) with both outcomes tracked:
 * a phase starting at segment s after p matches either completes its k - p
 * matches (answer yes, k - p reads) or misses after c matches and hands
 * over to the phase at s + c - k with p = c.  A key inside the window is a
 * query whose own k consecutive segments match with probability 1; its
 * expected reads are averaged over the l generations of the window (the
 * paper's "win." column; for APBF this reproduces Table 2's as well).
 *
 * NPWS.  A generation that has lost i of its k segments is reported only
 * if the i segments that replace them in the run match by chance: with
 * probability about r^i for a full segment's r (1/2^i for APBF), so the
 * peak NPWS is sum_{i<k} r^i / l.
 */
#include <math.h>
#include <string.h>

#include "util/mem.h"
#include "util/memo.h"
#include "model/planning.h"

/* ------------------------------------------------------------------ */
/* Block geometry                                                       */

/* The b parts of a block: n_small of floor(B/b) bits, n_large one bit
 * larger (B mod b of them), matching tdbf_apbbf_part_start. */
typedef struct block_parts {
    unsigned block_bits;
    unsigned n_small, n_large;
    double   small;
} block_parts;

static block_parts parts_of(unsigned block_bits, unsigned block_hashes)
{
    block_parts parts;
    parts.block_bits = block_bits;
    parts.n_large = block_bits % block_hashes;
    parts.n_small = block_hashes - parts.n_large;
    parts.small = (double)(block_bits / block_hashes);
    return parts;
}

static bool valid_block(unsigned block_bits, unsigned block_hashes)
{
    return (block_bits == TDBF_BLOCK_WORD || block_bits == TDBF_BLOCK_LINE) &&
           block_hashes >= 1 && block_hashes <= TDBF_MAX_BLOCK_HASHES;
}

double tdbf_apbbf_capacity(unsigned block_bits, unsigned block_hashes)
{
    return TDBF_LN2 / -log1p(-(double)block_hashes / block_bits);
}

/* x^n for a small integer n. */
static double power(double x, unsigned n)
{
    double result = 1.0;
    for (; n; n >>= 1, x *= x)
        if (n & 1u)
            result *= x;
    return result;
}

/* A block holding some number x of keys, through the probability that a
 * given bit is still clear in a small part, (1 - 1/s)^x, and in a large
 * one.  One key more or less multiplies or divides them by (1 - 1/s). */
typedef struct block_state {
    double clear_small, clear_large;
} block_state;

static block_state state_at(const block_parts *parts, double x)
{
    block_state st;
    st.clear_small = exp(x * log1p(-1.0 / parts->small));
    st.clear_large = exp(x * log1p(-1.0 / (parts->small + 1.0)));
    return st;
}

static void state_step(const block_parts *parts, block_state *st, int up)
{
    double keep_small = 1.0 - 1.0 / parts->small;
    double keep_large = 1.0 - 1.0 / (parts->small + 1.0);
    st->clear_small = up ? st->clear_small * keep_small : st->clear_small / keep_small;
    st->clear_large = up ? st->clear_large * keep_large : st->clear_large / keep_large;
}

/* m(X): a block in this state matches a never-inserted key. */
static double match_in(const block_parts *parts, const block_state *st)
{
    double m = power(1.0 - st->clear_small, parts->n_small);
    return parts->n_large ? m * power(1.0 - st->clear_large, parts->n_large) : m;
}

/* ------------------------------------------------------------------ */
/* Expectations over the load of a block                                */

/* Keys per block: Poisson(mean) when keys == 0, else Binomial(keys,
 * 1/blocks) (mean = keys / blocks). */
typedef struct block_load {
    double mean;
    double keys;
    double blocks;
} block_load;

/* Terms below this fraction of the mode's probability are dropped. */
#define NEGLIGIBLE 1e-19

/* E[m(X)], summed from the mode both ways with the pmf ratio recurrence,
 * normalized by the sum of the (unnormalized) pmf. */
static double expected_match(const block_parts *parts, const block_load *load)
{
    bool binomial = load->keys > 0.0;
    if (load->mean <= 0.0)
        return 0.0;
    /* Saturated: a bit of a part of s <= B bits stays clear with
     * probability about e^(-mean/s) < e^-64, so every key matches.  The
     * sums below would need ~sqrt(mean) terms (a corrupt file once asked
     * for mean 10^18). */
    if (load->mean > 64.0 * parts->block_bits)
        return 1.0;
    if (binomial && load->blocks <= 1.0) {
        block_state all = state_at(parts, load->keys);
        return match_in(parts, &all);
    }
    double odds = binomial ? 1.0 / (load->blocks - 1.0) : 0.0; /* p/(1-p) */
    double mode = binomial ? floor((load->keys + 1.0) / load->blocks) : floor(load->mean);
    if (binomial && mode > load->keys)
        mode = load->keys;
    block_state at_mode = state_at(parts, mode), st = at_mode;
    double total = 1.0, sum = match_in(parts, &st), weight = 1.0;
    for (double x = mode; !binomial || x < load->keys; x++) {
        weight *= binomial ? (load->keys - x) / (x + 1.0) * odds : load->mean / (x + 1.0);
        if (weight < NEGLIGIBLE)
            break;
        state_step(parts, &st, 1);
        total += weight;
        sum += weight * match_in(parts, &st);
    }
    weight = 1.0;
    st = at_mode;
    for (double x = mode; x > 0.0; x--) {
        weight *= binomial ? x / (load->keys - x + 1.0) / odds : x / load->mean;
        if (weight < NEGLIGIBLE)
            break;
        state_step(parts, &st, 0);
        total += weight;
        sum += weight * match_in(parts, &st);
    }
    return sum / total;
}

double tdbf_apbbf_match(unsigned block_bits, unsigned block_hashes,
                        uint64_t keys, uint64_t blocks)
{
    if (!valid_block(block_bits, block_hashes) || blocks == 0)
        return -1.0;
    block_parts parts = parts_of(block_bits, block_hashes);
    block_load load = {(double)keys / (double)blocks, (double)keys, (double)blocks};
    return expected_match(&parts, &load);
}

double tdbf_apbbf_match_poisson(unsigned block_bits, unsigned block_hashes,
                                double mean)
{
    block_parts parts = parts_of(block_bits, block_hashes);
    block_load load = {mean, 0.0, 0.0};
    return expected_match(&parts, &load);
}

/* Expected fraction of set bits in a segment at Poisson mean load `mean`:
 * a bit of a part of s bits is clear with probability E[(1-1/s)^X] =
 * exp(-mean/s). */
static double expected_fill(const block_parts *parts, double mean)
{
    double clear = parts->n_small * parts->small * exp(-mean / parts->small);
    if (parts->n_large)
        clear += parts->n_large * (parts->small + 1.0) * exp(-mean / (parts->small + 1.0));
    return 1.0 - clear / parts->block_bits;
}

double tdbf_apbbf_load_for_fill(unsigned block_bits, unsigned block_hashes,
                                double fill)
{
    if (!(fill > 0.0))
        return 0.0;
    if (fill >= 1.0)
        return INFINITY;
    block_parts parts = parts_of(block_bits, block_hashes);
    /* Exact when all parts are equal; Newton corrects unequal ones (the
     * fill is increasing and concave in the load: it converges). */
    double mean = -(double)block_bits / block_hashes * log1p(-fill);
    for (int step = 0; step < 50; step++) {
        double slope = parts.n_small * exp(-mean / parts.small);
        if (parts.n_large)
            slope += parts.n_large * exp(-mean / (parts.small + 1.0));
        double delta = (expected_fill(&parts, mean) - fill) * block_bits / slope;
        mean -= delta;
        if (fabs(delta) <= 1e-12 * mean)
            break;
    }
    return mean;
}

/* ------------------------------------------------------------------ */
/* Accesses of queries that answer yes                                  */

/* Per phase (p, s): probability and read-weighted probability of ending
 * yes and of ending no. */
enum { YES, YES_READS, NO, NO_READS, OUTCOMES };

static size_t paths_cells(unsigned k, unsigned l)
{
    return (size_t)k * (l + 1) * OUTCOMES;
}

/* The phase recursion over a caller's table of paths_cells() doubles.
 * Rows below from_s are taken as already computed for this `match`. */
static void paths_in(unsigned k, unsigned l, const double *match, double *table,
                     unsigned from_s, tdbf_query_paths *out)
{
    static const double before_start[OUTCOMES] = {0.0, 0.0, 1.0, 0.0};
    for (unsigned s = from_s; s <= l; s++) {
        for (unsigned p = 0; p < k; p++) {
            double *phase = table + ((size_t)s * k + p) * OUTCOMES;
            double run = 1.0; /* probability of c matches in a row */
            memset(phase, 0, OUTCOMES * sizeof *phase);
            for (unsigned c = 0; c < k - p; c++) {
                double miss = run * (1.0 - match[s + c]);
                long next_s = (long)s + (long)c - (long)k;
                const double *next = next_s < 0 ? before_start
                                   : table + ((size_t)next_s * k + c) * OUTCOMES;
                phase[YES] += miss * next[YES];
                phase[YES_READS] += miss * ((c + 1.0) * next[YES] + next[YES_READS]);
                phase[NO] += miss * next[NO];
                phase[NO_READS] += miss * ((c + 1.0) * next[NO] + next[NO_READS]);
                run *= match[s + c];
            }
            phase[YES] += run;
            phase[YES_READS] += run * (double)(k - p);
        }
    }
    const double *first = table + (size_t)l * k * OUTCOMES;
    out->p_true = first[YES];
    out->reads_true = first[YES_READS];
    out->p_false = first[NO];
    out->reads_false = first[NO_READS];
}

static double *paths_table(unsigned k, unsigned l)
{
    const tdbf_allocator *alloc = tdbf_default_allocator();
    return alloc->alloc(alloc->opaque, paths_cells(k, l) * sizeof(double));
}

static void paths_table_free(double *table)
{
    const tdbf_allocator *alloc = tdbf_default_allocator();
    alloc->free(alloc->opaque, table);
}

int tdbf_apbf_query_paths(unsigned k, unsigned l, const double *match,
                          tdbf_query_paths *out)
{
    if (k < 1 || k > TDBF_MAX_K || l < 1 || l > TDBF_MAX_L || !match || !out)
        return TDBF_EINVAL;
    double *table = paths_table(k, l);
    if (!table)
        return TDBF_ENOMEM;
    paths_in(k, l, match, table, 0, out);
    paths_table_free(table);
    return TDBF_OK;
}

/* Expected reads of a query for a key inserted t generations ago, t =
 * 0 .. l-1, averaged: its own segments t .. t+k-1 always match.  A phase
 * starting at s reads segments below s + k only, so the rows s <= t - k
 * are those of plain `fills`; going down from t = l-1 each t recomputes
 * only the rows above t - k.  O(k^2 l^2 / 2) in all. */
static double accesses_window(unsigned k, unsigned l, const double *fills)
{
    double *table = paths_table(k, l);
    if (!table)
        return -1.0;
    double match[TDBF_MAX_K + TDBF_MAX_L], total = 0.0;
    tdbf_query_paths paths;
    paths_in(k, l, fills, table, 0, &paths);
    for (unsigned age = l; age > 0; age--) {
        unsigned t = age - 1;
        for (unsigned i = 0; i < k + l; i++)
            match[i] = i >= t && i < t + k ? 1.0 : fills[i];
        paths_in(k, l, match, table, t >= k ? t - k + 1 : 0, &paths);
        total += paths.reads_true + paths.reads_false;
    }
    paths_table_free(table);
    return total / l;
}

static double accesses_fp(unsigned k, unsigned l, const double *fills)
{
    tdbf_query_paths paths;
    if (tdbf_apbf_query_paths(k, l, fills, &paths) != TDBF_OK)
        return -1.0;
    return paths.p_true > 0.0 ? paths.reads_true / paths.p_true : 0.0;
}

/* ------------------------------------------------------------------ */
/* Fills and sizing                                                     */

/* The paper's loads: Poisson, mean lambda (i+1)/k for i < k, else lambda. */
static void fills_model(unsigned k, unsigned l, unsigned block_bits,
                        unsigned block_hashes, double *fills)
{
    double lambda = tdbf_apbbf_capacity(block_bits, block_hashes);
    double full = tdbf_apbbf_match_poisson(block_bits, block_hashes, lambda);
    for (unsigned i = 0; i < k + l; i++)
        fills[i] = i < k ? tdbf_apbbf_match_poisson(block_bits, block_hashes,
                                                    lambda * (i + 1) / k)
                         : full;
}

static void fills_exact(const tdbf_plan_blocked *p, double *fills)
{
    unsigned k = p->k;
    double full = tdbf_apbbf_match(p->block_bits, p->block_hashes, k * p->g, p->blocks);
    for (unsigned i = 0; i < k + p->l; i++)
        fills[i] = i < k ? tdbf_apbbf_match(p->block_bits, p->block_hashes,
                                            (i + 1) * p->g, p->blocks)
                         : full;
}

static uint64_t generation(uint64_t blocks, unsigned k, double lambda)
{
    return (uint64_t)floor((double)blocks * lambda / k);
}

static int check_params(unsigned k, unsigned l, unsigned block_bits,
                        unsigned block_hashes)
{
    if (k < 1 || k > TDBF_MAX_K || l < 1 || l > TDBF_MAX_L ||
        !valid_block(block_bits, block_hashes))
        return TDBF_EPARAM;
    return TDBF_OK;
}

/* Sizes only: blocks, g, window, bits.  Cheap, for searching. */
static int blocked_size(unsigned k, unsigned l, unsigned block_bits,
                        unsigned block_hashes, uint64_t window,
                        tdbf_plan_blocked *out)
{
    int rc = check_params(k, l, block_bits, block_hashes);
    if (rc != TDBF_OK)
        return rc;
    if (window == 0)
        return TDBF_EWINDOW;
    double lambda = tdbf_apbbf_capacity(block_bits, block_hashes);
    uint64_t g_min = window / l + (window % l != 0);
    if ((double)g_min * k / lambda * (k + l) * block_bits > 0x1p52)
        return TDBF_ETOOBIG;
    memset(out, 0, sizeof *out);
    out->k = k;
    out->l = l;
    out->block_bits = block_bits;
    out->block_hashes = block_hashes;
    out->blocks = (uint64_t)ceil((double)g_min * k / lambda);
    while (generation(out->blocks, k, lambda) < g_min)
        out->blocks++;
    while (out->blocks > 1 && generation(out->blocks - 1, k, lambda) >= g_min)
        out->blocks--;
    out->g = generation(out->blocks, k, lambda);
    out->window = (uint64_t)l * out->g;
    out->slack = (uint64_t)k * out->g;
    out->bits = (uint64_t)(k + l) * out->blocks * block_bits;
    out->bits_per_item = (double)out->bits / (double)window;
    return TDBF_OK;
}

static double blocked_fp_exact(const tdbf_plan_blocked *p)
{
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    fills_exact(p, fills);
    return tdbf_apbf_fp(p->k, p->l, fills);
}

int tdbf_plan_apbbf_size(unsigned k, unsigned l, unsigned block_bits,
                         unsigned block_hashes, uint64_t window,
                         tdbf_plan_blocked *out)
{
    if (!out)
        return TDBF_EINVAL;
    if (block_bits == 0)
        block_bits = TDBF_BLOCK_LINE;
    int rc = blocked_size(k, l, block_bits, block_hashes, window, out);
    if (rc == TDBF_OK)
        out->fp = blocked_fp_exact(out);
    return rc;
}

int tdbf_plan_apbbf_from_blocks(unsigned k, unsigned l, unsigned block_bits,
                                unsigned block_hashes, uint64_t blocks,
                                tdbf_plan_blocked *out)
{
    int rc = check_params(k, l, block_bits, block_hashes);
    if (rc != TDBF_OK)
        return rc;
    if (blocks < 1 || (double)blocks * block_bits * (k + l) > 0x1p52)
        return TDBF_ETOOBIG;
    double lambda = tdbf_apbbf_capacity(block_bits, block_hashes);
    memset(out, 0, sizeof *out);
    out->k = k;
    out->l = l;
    out->block_bits = block_bits;
    out->block_hashes = block_hashes;
    out->blocks = blocks;
    out->g = generation(blocks, k, lambda);
    out->window = (uint64_t)l * out->g;
    out->slack = (uint64_t)k * out->g;
    out->bits = (uint64_t)(k + l) * blocks * block_bits;
    if (out->g < 1)
        return TDBF_EPARAM;
    out->bits_per_item = (double)out->bits / (double)out->window;
    out->fp = blocked_fp_exact(out);
    return TDBF_OK;
}

int tdbf_plan_apbbf_eval(unsigned k, unsigned l, unsigned block_bits,
                         unsigned block_hashes, uint64_t window,
                         tdbf_plan_blocked *out)
{
    int rc = tdbf_plan_apbbf_size(k, l, block_bits, block_hashes, window, out);
    if (rc != TDBF_OK)
        return rc;
    block_bits = out->block_bits;

    double fills[TDBF_MAX_K + TDBF_MAX_L];
    fills_model(k, l, block_bits, block_hashes, fills);
    out->fp_paper = tdbf_apbf_fp(k, l, fills);
    out->accesses_false = tdbf_apbf_accesses_false(k, l, fills);
    out->accesses_window = accesses_window(k, l, fills);
    out->accesses_fp = accesses_fp(k, l, fills);
    double weighted = 0.0, reported = 1.0;
    for (unsigned i = 0; i < k; i++, reported *= fills[k + l - 1])
        weighted += reported;
    out->npws = weighted / l;
    out->capacity = tdbf_apbbf_capacity(block_bits, block_hashes) * block_hashes /
                    (block_bits * TDBF_LN2);

    /* Table 3's APBF column: (k*b, l*b) slices, the paper's linear fills. */
    tdbf_plan apbf;
    out->fp_apbf = tdbf_plan_eval(k * block_hashes, l * block_hashes, window,
                                  &apbf) == TDBF_OK ? apbf.fp_paper : -1.0;
    return TDBF_OK;
}

/* ------------------------------------------------------------------ */
/* Search                                                               */

/* A candidate is feasible when its exact FP meets the error. */
static bool feasible(unsigned k, unsigned l, unsigned block_bits,
                     unsigned block_hashes, uint64_t window, double error,
                     tdbf_plan_blocked *out)
{
    return blocked_size(k, l, block_bits, block_hashes, window, out) == TDBF_OK &&
           blocked_fp_exact(out) <= error;
}

/* The cheapest feasible l for (k, b): FP grows with l (more starting
 * segments) while memory shrinks (a generation is window/l), so find the
 * largest feasible l by bisection, then let the rounding of small windows
 * pick a slightly smaller l if it is cheaper.  0 if none. */
static unsigned cheapest_l(unsigned k, unsigned block_bits, unsigned block_hashes,
                           uint64_t window, double error)
{
    tdbf_plan_blocked p;
    if (!feasible(k, 1, block_bits, block_hashes, window, error, &p))
        return 0;
    unsigned low = 1, high = TDBF_MAX_L + 1; /* low feasible, high not */
    while (high - low > 1) {
        unsigned mid = low + (high - low) / 2;
        if (feasible(k, mid, block_bits, block_hashes, window, error, &p))
            low = mid;
        else
            high = mid;
    }
    unsigned best = low;
    uint64_t best_bits = UINT64_MAX;
    for (unsigned l = low; l >= 1; l--)
        if (blocked_size(k, l, block_bits, block_hashes, window, &p) == TDBF_OK &&
            p.bits < best_bits && (l == low || blocked_fp_exact(&p) <= error)) {
            best_bits = p.bits;
            best = l;
        }
    return best;
}

/* The fast plan's families are (k, b), numbered b * (TDBF_MAX_K + 1) + k. */
typedef struct blocked_target {
    uint64_t window;
    double error;
    unsigned block_bits;
} blocked_target;

enum { FAMILY_B = TDBF_MAX_K + 1 };

static uint64_t blocked_bits(const void *ctx, unsigned family, unsigned l)
{
    const blocked_target *t = ctx;
    tdbf_plan_blocked p;
    return blocked_size(family % FAMILY_B, l, t->block_bits, family / FAMILY_B,
                        t->window, &p) == TDBF_OK ? p.bits : 0;
}

/* The model's reads (plan.accesses_false); the exact FP decides. */
static double blocked_reads(const void *ctx, unsigned family, unsigned l)
{
    const blocked_target *t = ctx;
    unsigned k = family % FAMILY_B, b = family / FAMILY_B;
    tdbf_plan_blocked p;
    if (blocked_size(k, l, t->block_bits, b, t->window, &p) != TDBF_OK ||
        blocked_fp_exact(&p) > t->error)
        return -1.0;
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    fills_model(k, l, t->block_bits, b, fills);
    return tdbf_apbf_accesses_false(k, l, fills);
}

static int search_blocked(uint64_t window, double error, unsigned block_bits,
                          unsigned fixed_k, unsigned fixed_l, unsigned fixed_hashes,
                          double tolerance, tdbf_plan_blocked *best)
{
    if (block_bits == 0)
        block_bits = TDBF_BLOCK_LINE;
    if ((block_bits != TDBF_BLOCK_WORD && block_bits != TDBF_BLOCK_LINE) ||
        fixed_hashes > TDBF_MAX_BLOCK_HASHES || fixed_k > TDBF_MAX_K ||
        fixed_l > TDBF_MAX_L || (fixed_k == 0) != (fixed_l == 0))
        return TDBF_EPARAM;
    if (!(error > 0.0 && error < 1.0))
        return TDBF_EERROR;
    if (window == 0)
        return TDBF_EWINDOW;
    if (fixed_l || !(tolerance > 0.0))
        tolerance = 0.0;

    unsigned max_hashes = block_bits == TDBF_BLOCK_LINE ? 16 : 8;
    unsigned b_from = fixed_hashes ? fixed_hashes : 1;
    unsigned b_to = fixed_hashes ? fixed_hashes : max_hashes;
    unsigned k_from = fixed_k ? fixed_k : 1, k_to = fixed_k ? fixed_k : TDBF_MAX_K;
    /* The cheapest l of each (b, k), 0 where none is feasible. */
    unsigned short cheapest[TDBF_MAX_BLOCK_HASHES + 1][TDBF_MAX_K + 1] = {{0}};
    tdbf_plan_blocked cand;
    uint64_t best_bits = UINT64_MAX;
    unsigned best_k = 0, best_l = 0, best_b = 0;
    for (unsigned b = b_from; b <= b_to; b++) {
        double lambda = tdbf_apbbf_capacity(block_bits, b);
        for (unsigned k = k_from; k <= k_to; k++) {
            /* Each key of the window takes b bits in each of k segments
             * kept at load lambda: more than k*window*B/lambda bits in
             * all.  Once that passes the best (and the tolerance), larger
             * k only cost more. */
            if (best_k && (double)k * (double)window * block_bits / lambda >
                              (double)best_bits * (1.0 + tolerance))
                break;
            unsigned l = fixed_l;
            if (l ? !feasible(k, l, block_bits, b, window, error, &cand)
                  : (l = cheapest_l(k, block_bits, b, window, error)) == 0)
                continue;
            if (blocked_size(k, l, block_bits, b, window, &cand) != TDBF_OK)
                continue;
            cheapest[b][k] = (unsigned short)l;
            if (cand.bits < best_bits) {
                best_bits = cand.bits;
                best_k = k;
                best_l = l;
                best_b = b;
            }
        }
    }
    if (best_k == 0) {
        /* Nothing fits the doubles (> 2^52 bits) even at the cheapest
         * shape, or nothing meets the error. */
        tdbf_plan_blocked cheapest_shape;
        return blocked_size(1, TDBF_MAX_L, block_bits, 1, window, &cheapest_shape) == TDBF_ETOOBIG
                   ? TDBF_ETOOBIG : TDBF_EINFEASIBLE;
    }
    if (tolerance > 0.0) {
        blocked_target target = {window, error, block_bits};
        tdbf_fast_sizer sizer = {&target, blocked_bits, blocked_reads};
        unsigned least = best_b * FAMILY_B + best_k;
        tdbf_fast_shape fast = {least, best_l, best_bits,
                                blocked_reads(&target, least, best_l)};
        double limit = (double)best_bits * (1.0 + tolerance);
        for (unsigned b = b_from; b <= b_to; b++)
            for (unsigned k = k_from; k <= k_to; k++)
                if (cheapest[b][k])
                    tdbf_fast_consider(&sizer, b * FAMILY_B + k, cheapest[b][k],
                                       limit, &fast);
        best_k = fast.family % FAMILY_B;
        best_b = fast.family / FAMILY_B;
        best_l = fast.l;
    }
    return tdbf_plan_apbbf_size(best_k, best_l, block_bits, best_b, window, best);
}

/* The search is a pure function of its arguments and takes ~5 ms (the
 * exact FP of every candidate shape), and a server that creates a filter
 * per key asks it the same question every time: the last few answers are
 * kept per thread (util/memo.h). */
typedef struct blocked_question {
    uint64_t window;
    double   error, tolerance;
    unsigned block_bits, fixed_k, fixed_l, fixed_hashes;
} blocked_question;

typedef struct blocked_answer {
    blocked_question  question;
    int               rc;
    tdbf_plan_blocked plan;
} blocked_answer;

int tdbf_plan_apbbf_search(uint64_t window, double error, unsigned block_bits,
                           unsigned fixed_k, unsigned fixed_l,
                           unsigned fixed_hashes, double tolerance,
                           tdbf_plan_blocked *best)
{
    static _Thread_local TDBF_MEMO(blocked_answer, 8) memo;
    if (!best)
        return TDBF_EINVAL;
    blocked_question q;
    memset(&q, 0, sizeof q);
    q.window = window;
    q.error = error;
    q.tolerance = tolerance;
    q.block_bits = block_bits;
    q.fixed_k = fixed_k;
    q.fixed_l = fixed_l;
    q.fixed_hashes = fixed_hashes;
    blocked_answer *a = TDBF_MEMO_FIND(&memo, &q);
    if (!a) {
        a = TDBF_MEMO_TAKE(&memo, &q);
        a->rc = search_blocked(window, error, block_bits, fixed_k, fixed_l, fixed_hashes,
                               tolerance, &a->plan);
    }
    if (a->rc == TDBF_OK)
        *best = a->plan;
    return a->rc;
}

int tdbf_plan_apbbf(uint64_t window, double error, unsigned block_bits,
                    tdbf_plan_blocked *best)
{
    return tdbf_plan_apbbf_fast(window, error, block_bits, 0.0, best);
}

int tdbf_plan_apbbf_fast(uint64_t window, double error, unsigned block_bits,
                         double tolerance, tdbf_plan_blocked *best)
{
    if (!(tolerance >= 0.0 && tolerance <= 1.0))
        return TDBF_EPARAM;
    int rc = tdbf_plan_apbbf_search(window, error, block_bits, 0, 0, 0, tolerance, best);
    if (rc != TDBF_OK)
        return rc;
    return tdbf_plan_apbbf_eval(best->k, best->l, best->block_bits,
                                best->block_hashes, window, best);
}
