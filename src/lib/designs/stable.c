/*
 * stable.c — the Stable Bloom filter, a baseline that forgets at random.
 *
 * Deng and Rafiei, "Approximately detecting duplicates for streaming data
 * using stable Bloom filters", SIGMOD 2006 (cited by papers 001 and 004 as
 * the first Bloom filter for unbounded streams).  Its formulas are public;
 * they are restated and derived here.
 *
 * Model.  m cells of d bits, counters 0 .. Max = 2^d - 1, split into K
 * segments of c = m/K cells; a key has one cell in each segment.  For
 * each incoming key:
 *   1. query: the key is a duplicate iff all its K cells are nonzero;
 *   2. decrement P cells chosen at random by 1 (0 stays 0);
 *   3. set the key's K cells to Max.
 * contains() is step 1 alone.  Cells that nobody sets drain to 0 at a rate
 * P/m per add, so the fraction of zero cells converges to a fixed point
 * (the "stable point") whatever the stream length: the filter's FP rate
 * stops growing, paid for with false negatives -- a key's cells may drain
 * to 0 before the key comes back.
 *
 * Layout.  Cells are packed floor(64/d) to a 64-bit word, none straddling
 * two words (d = 4: 16 per word, all 64 bits used; d = 3: 21 per word,
 * one bit idle):
 *
 *     word 0                                         word 1
 *     +----+----+----+----+- ... -+----+----+       +----+----+- ...
 *     | c0 | c1 | c2 | c3 |       |c14 |c15 |       |c16 |c17 |
 *     +----+----+----+----+- ... -+----+----+       +----+----+- ...
 *      bits 0-3 (cell 0 is the low end), d = 4
 *     |<-------- segment 0: cells 0 .. c-1 -------->|<- segment 1 ...
 *
 * Decrements.  The paper picks P random cells; here one random start is
 * drawn per add (splitmix64 seeded from the filter's seed, so a filter's
 * behaviour is reproducible) and the P consecutive cells from it, wrapping
 * at m, are decremented -- a word at a time: with L the lowest bit of
 * every cell, x - (OR_{i<d} (x >> i) & L) subtracts 1 from every nonzero
 * cell and never borrows across cells.  Each cell is still decremented
 * with probability exactly P/m per add, independently of the key hashes,
 * which is all the analysis below uses, so every rate below holds as an
 * expectation.  Requires P <= m.  The price: cells closer than P share
 * most of their decrements, so one filter's realized rates over a period
 * scatter more than with P independent cells -- measured, the FN rate at
 * t = w over 2500 keys varies between filters with 3x the binomial
 * standard deviation.  P independent cells would cost P random draws and
 * up to P cache misses per add, instead of one draw and P/16 adjacent
 * words (d = 4).
 *
 * Stable point (Deng & Rafiei's analysis, restated and derived).
 * Per add a given cell is set with probability r = 1/c = K/m and, first,
 * decremented with probability p = P/m.  Look back from now through past
 * adds, classifying each as S (the cell was set), D (decremented and not
 * set: probability a = p(1 - r)) or neither.  The cell is zero iff Max D's
 * come before the first S.  Dropping the "neither" adds, D and S form a
 * Bernoulli sequence with Prob(D) = rho = a/(a + r), so at the stable point
 *
 *     zeros = rho^Max = (1 / (1 + 1/(P (1/K - 1/m))))^Max,
 *     FP    = (1 - zeros)^K                            (as in the paper)
 *
 * and, solving for P, the least P whose FP meets a target e is
 *
 *     P = 1 / ((z^(-1/Max) - 1)(1/K - 1/m)),   z = 1 - e^(1/K)   (paper).
 *
 * After N adds into an empty filter the lookback ends at the start, where
 * every cell was 0: nonzero iff some S shows up within the N adds with
 * fewer than Max D's before it,
 *
 *     zeros(N) = 1 - sum_{j<Max} rho^j (1 - rho) P[Bin(N, a + r) >= j+1],
 *
 * which converges to rho^Max once N (a + r) >> Max.
 *
 * False negatives (the paper analyses them for a given gap; here in
 * closed form).  A key added t adds ago set its K cells to Max; one of
 * them is zero now iff Max D's came
 * before any S in the t adds since, i.e. the first Max of the non-neither
 * events are D's and there are at least Max of them:
 *
 *     z(t) = rho^Max P[Bin(t, a + r) >= Max],   FN(t) = 1 - (1 - z(t))^K.
 *
 * FN(t) rises from 0 (t < Max: a cell needs Max decrements) to the stable
 * zero fraction's 1 - (1 - rho^Max)^K: the filter forgets at random, so
 * "count window" is a probabilistic promise here.
 *
 * Sizing (plan_decay.c).  The window is w = cfg.window_items and the
 * survival target S = cfg.survival (0: 1 - error): for each K the planner
 * finds the least m at which P (the formula above, or cfg.decrements)
 * gives FN(w) <= 1 - S, and keeps the least memory.  At w = 10^6,
 * error = 0.01, S = 0.99: d = 4 (the default) gives K = 6, P = 142,
 * 90.6 bits per window key; d = 3 needs 116, d = 5..8 save at most 2% for
 * 2 to 17x the decrements.
 *
 * Guarantees.  FP at or below the target at the stable point (and below
 * it before: zeros(N) falls towards rho^Max from 1); no guarantee inside
 * the window: a key added t adds ago answers no with probability FN(t),
 * <= 1 - S for t <= w.  now is ignored.  Not concurrent: the decrements
 * read and write shared words and the generator state.
 *
 * Measured (tests/unit/test_stable.c; bands are Student t over 8
 * filters, for the reason above).  The closed forms equal a step-by-step
 * Markov chain of one cell to 1e-9.  d = 4, K = 4, m = 20784, P = 92
 * (sized for w = 2000, error 0.05, S = 0.9), at the stable point, yes
 * rates at 12 ages: at t = w 0.9006 against 0.9000 (+- 0.036); 20 filters
 * pooled, 2 * 10^6 keys: 0.90013 against 0.90001 (sd 0.0002).  Zero cells
 * at the stable point 0.5277 against 0.5281; FP of never-inserted keys
 * 0.0502 against 0.0496 (+- 0.0024); d = 3, error 0.01: 0.00950 against
 * 0.00971 (+- 0.00057).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "util/serial.h"
#include "util/mem.h"
#include "util/memo.h"
#include "designs/ops.h"
#include "model/planning.h"

typedef struct stable {
    unsigned  k;            /* K: cells per key = segments */
    unsigned  d;            /* bits per cell */
    unsigned  per_word;     /* cells per 64-bit word, floor(64/d) */
    uint64_t  max;          /* Max = 2^d - 1: a freshly set cell */
    uint64_t  low_bits;     /* the lowest bit of every cell slot of a word */
    uint64_t  segment;      /* c: cells per segment */
    uint64_t  cells;        /* m = K * c */
    uint64_t  decrements;   /* P: cells decremented per add */
    uint64_t  words;
    uint64_t  window;       /* window sized for (cfg.window_items) */
    double    fp_planned;   /* FP at the stable point */
    uint64_t  rng;          /* splitmix64 state */
    uint64_t *bits;
} stable;

static size_t stable_bytes(const stable *s)
{
    return (size_t)s->words * sizeof(uint64_t);
}

/* splitmix64: the decrement positions, reproducible from the seed. */
TDBF_WRAPS static uint64_t next_random(stable *s)
{
    s->rng += UINT64_C(0x9e3779b97f4a7c15);
    return tdbf_mix64(s->rng);
}

static inline uint64_t cell_get(const stable *s, uint64_t i)
{
    unsigned shift = (unsigned)(i % s->per_word) * s->d;
    return (s->bits[i / s->per_word] >> shift) & s->max;
}

static inline void cell_set_max(stable *s, uint64_t i)
{
    unsigned shift = (unsigned)(i % s->per_word) * s->d;
    s->bits[i / s->per_word] |= s->max << shift;
}

/* One low bit per nonzero cell of x (restricted to `slots`). */
static inline uint64_t nonzero_cells(const stable *s, uint64_t x, uint64_t slots)
{
    uint64_t any = x;
    for (unsigned i = 1; i < s->d; i++)
        any |= x >> i;
    return any & slots;
}

/* Low bits of the cell slots first .. first+count-1 of a word. */
static inline uint64_t slot_mask(const stable *s, unsigned first, unsigned count)
{
    unsigned lo = first * s->d, hi = (first + count) * s->d;
    uint64_t below_hi = hi >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << hi) - 1;
    uint64_t below_lo = (UINT64_C(1) << lo) - 1;
    return s->low_bits & below_hi & ~below_lo;
}

/* Decrement the nonzero cells among first .. first+count-1 (no wrap). */
static void decrement_run(stable *s, uint64_t first, uint64_t count)
{
    uint64_t word = first / s->per_word;
    unsigned slot = (unsigned)(first % s->per_word);
    while (count > 0) {
        unsigned take = s->per_word - slot;
        if (take > count)
            take = (unsigned)count;
        uint64_t x = s->bits[word];
        s->bits[word] = x - nonzero_cells(s, x, slot_mask(s, slot, take));
        count -= take;
        slot = 0;
        word++;
    }
}

static inline uint64_t cell_of(const stable *s, const tdbf_hash128 *h, unsigned j)
{
    return (uint64_t)j * s->segment + tdbf_reduce(tdbf_hash_nth(h, j), s->segment);
}

static int query(const stable *s, const tdbf_hash128 *h)
{
    for (unsigned j = 0; j < s->k; j++)
        if (cell_get(s, cell_of(s, h, j)) == 0)
            return 0;
    return 1;
}

static int stable_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    stable *s = f->state.impl;
    int present = query(s, &key->hash);
    uint64_t start = tdbf_reduce(next_random(s), s->cells);
    uint64_t to_end = s->cells - start;
    if (s->decrements <= to_end) {
        decrement_run(s, start, s->decrements);
    } else {
        decrement_run(s, start, to_end);
        decrement_run(s, 0, s->decrements - to_end);
    }
    for (unsigned j = 0; j < s->k; j++)
        cell_set_max(s, cell_of(s, &key->hash, j));
    return present;
}

static int stable_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    return query(f->state.impl, &key->hash);
}

/* What open derives from the parameters a saved filter keeps too (K, d,
 * m, P, w); fp_planned and the generator are set apart. */
static void set_shape(stable *s, unsigned k, unsigned d, uint64_t cells, uint64_t decrements,
                      uint64_t window)
{
    s->k = k;
    s->d = d;
    s->per_word = 64 / d;
    s->max = (UINT64_C(1) << d) - 1;
    s->low_bits = 0;
    for (unsigned i = 0; i < s->per_word; i++)
        s->low_bits |= UINT64_C(1) << (i * d);
    s->cells = cells;
    s->segment = cells / k;
    s->decrements = decrements;
    s->words = cells / s->per_word + (cells % s->per_word != 0);
    s->window = window;
}

/* ---- sizing (plan_decay.c reads a window request as two targets) ------ */

/* Cell arrays larger than this are not sized (like the APBF planner). */
#define MAX_BITS 4503599627370496.0   /* 2^52 */

/* d when cfg.cell_max_bits is 0 ("Sizing" above). */
#define STABLE_DEFAULT_BITS 4

typedef struct stable_request {
    uint64_t window;
    double   error, target;
    unsigned k, d;
    uint64_t fixed_decrements;  /* 0 = from the FP formula */
} stable_request;

/* The least P whose stable-point FP (1 - zeros)^K meets the error, for m
 * cells (Deng & Rafiei); 0 if none does with P <= m. */
static uint64_t least_decrements(const stable_request *sh, uint64_t cells)
{
    double zeros_needed = 1.0 - pow(sh->error, 1.0 / sh->k);
    double max = (double)((1u << sh->d) - 1);
    double p = 1.0 / ((pow(zeros_needed, -1.0 / max) - 1.0) *
                      (1.0 / sh->k - 1.0 / (double)cells));
    if (!(p >= 1.0))
        p = 1.0;
    if (!(p <= (double)cells))
        return 0;
    uint64_t decrements = (uint64_t)ceil(p);
    /* settle the rounding against the formula the filter reports */
    while (decrements > 1 &&
           pow(1.0 - tdbf_stable_zeros(cells, sh->k, sh->d, decrements - 1, UINT64_MAX),
               sh->k) <= sh->error)
        decrements--;
    while (pow(1.0 - tdbf_stable_zeros(cells, sh->k, sh->d, decrements, UINT64_MAX),
               sh->k) > sh->error)
        if (++decrements > cells)
            return 0;
    return decrements;
}

static uint64_t decrements_for(const stable_request *sh, uint64_t cells)
{
    if (sh->fixed_decrements)
        return sh->fixed_decrements <= cells ? sh->fixed_decrements : 0;
    return least_decrements(sh, cells);
}

/* Does a filter of `segment` cells per segment forget at most 1 - S of
 * the keys added `window` adds ago? */
static bool stable_meets(const stable_request *sh, uint64_t segment)
{
    uint64_t cells = segment * sh->k;
    uint64_t decrements = decrements_for(sh, cells);
    return decrements != 0 &&
           tdbf_stable_forget(cells, sh->k, sh->d, decrements, sh->window) <= 1.0 - sh->target;
}

/* The least segment size meeting the target for this K (0: none fits).
 * Forgetting falls as the array grows (P/m and K/m shrink together), so
 * a bisection finds it. */
static uint64_t stable_least_segment(const stable_request *sh)
{
    uint64_t lo = 2, hi = (uint64_t)(MAX_BITS / ((double)sh->k * sh->d));
    if (!stable_meets(sh, hi))
        return 0;
    if (stable_meets(sh, lo))
        return lo;
    while (hi - lo > 1) {            /* lo fails, hi meets */
        uint64_t mid = lo + (hi - lo) / 2;
        if (stable_meets(sh, mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static int search_stable(const tdbf_config *cfg, double target, tdbf_decay_plan *out)
{
    stable_request sh = {cfg->window_items, cfg->error, target, 0,
                       cfg->cell_max_bits ? cfg->cell_max_bits : STABLE_DEFAULT_BITS,
                       cfg->decrements};
    if (sh.d > 8)
        return TDBF_EPARAM;
    unsigned per_word = 64 / sh.d;
    bool found = false, fp_missed = false;
    uint64_t best_words = 0;

    unsigned k_last = cfg->positions ? cfg->positions : TDBF_MAX_K;
    for (sh.k = cfg->positions ? cfg->positions : 1; sh.k <= k_last; sh.k++) {
        uint64_t segment = stable_least_segment(&sh);
        if (segment == 0)
            continue;
        uint64_t cells = segment * sh.k;
        uint64_t decrements = decrements_for(&sh, cells);
        double fp = pow(1.0 - tdbf_stable_zeros(cells, sh.k, sh.d, decrements, UINT64_MAX),
                        sh.k);
        if (fp > sh.error) {            /* a fixed P too small for this m */
            fp_missed = true;
            continue;
        }
        uint64_t words = (cells + per_word - 1) / per_word;
        if (found && words >= best_words)
            continue;
        found = true;
        best_words = words;
        out->cells = cells;
        out->k = sh.k;
        out->cell_bits = sh.d;
        out->decrements = decrements;
        out->bytes = words * sizeof(uint64_t);
        out->fp = fp;
        out->survival = 1.0 - tdbf_stable_forget(cells, sh.k, sh.d, decrements, sh.window);
    }
    if (!found)
        return fp_missed ? TDBF_EINFEASIBLE : TDBF_ETOOBIG;
    return TDBF_OK;
}

/* The search bisects the segment size for every K, ~1.6 ms, and a server
 * that creates a STABLE filter per key asks it the same question each
 * time: the last answers are kept per thread (util/memo.h). */
typedef struct stable_question {
    uint64_t window;
    double   error, target;
    uint64_t decrements;
    unsigned cell_bits, positions;
} stable_question;

typedef struct stable_answer {
    stable_question question;
    int             rc;
    tdbf_decay_plan plan;
} stable_answer;

static int plan_stable(const tdbf_config *cfg, double target, tdbf_decay_plan *out)
{
    static _Thread_local TDBF_MEMO(stable_answer, 8) memo;
    stable_question q;
    memset(&q, 0, sizeof q);
    q.window = cfg->window_items;
    q.error = cfg->error;
    q.target = target;
    q.decrements = cfg->decrements;
    q.cell_bits = cfg->cell_max_bits;
    q.positions = cfg->positions;
    stable_answer *a = TDBF_MEMO_FIND(&memo, &q);
    if (!a) {
        a = TDBF_MEMO_TAKE(&memo, &q);
        a->plan = *out;
        a->rc = search_stable(cfg, target, &a->plan);
    }
    if (a->rc == TDBF_OK)
        *out = a->plan;
    return a->rc;
}

int tdbf_stable_plan(const tdbf_config *cfg, tdbf_decay_plan *out)
{
    return tdbf_decay_plan_by(cfg, TDBF_STABLE, plan_stable, out);
}

static int stable_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_decay_plan plan;
    int rc = tdbf_stable_plan(cfg, &plan);
    if (rc == TDBF_OK)
        tdbf_decay_shape(&plan, sizeof(stable), out);
    return rc;
}

static int stable_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_decay_plan plan;
    int rc = tdbf_stable_plan(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    stable *s = tdbf_mem_calloc(f, 1, sizeof *s);
    if (!s)
        return TDBF_ENOMEM;
    set_shape(s, plan.k, plan.cell_bits, plan.cells, plan.decrements, plan.window);
    s->fp_planned = plan.fp;
    s->rng = tdbf_mix64(f->seed ^ UINT64_C(0x5ab1e5ab1e5ab1e5));
    s->bits = tdbf_mem_calloc_aligned(f, stable_bytes(s));
    if (!s->bits) {
        tdbf_mem_free(f, s, sizeof *s);
        return TDBF_ENOMEM;
    }
    f->state.impl = s;
    f->state.error_planned = s->fp_planned;
    return TDBF_OK;
}

static void stable_close(tdbf *f)
{
    stable *s = f->state.impl;
    tdbf_mem_free_aligned(f, s->bits, stable_bytes(s));
    tdbf_mem_free(f, s, sizeof *s);
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void stable_shape(const tdbf *f, tdbf_shape *out)
{
    const stable *s = f->state.impl;
    out->k = s->k;
    out->window_items = s->window;
    out->error_planned = s->fp_planned;
}

static void stable_stats(const tdbf *f, tdbf_stats *st)
{
    const stable *s = f->state.impl;
    uint64_t nonzero = 0, full_words = s->cells / s->per_word;
    for (uint64_t w = 0; w < full_words; w++)
        nonzero += (uint64_t)__builtin_popcountll(nonzero_cells(s, s->bits[w], s->low_bits));
    unsigned tail = (unsigned)(s->cells % s->per_word);
    if (tail)
        nonzero += (uint64_t)__builtin_popcountll(
            nonzero_cells(s, s->bits[full_words], slot_mask(s, 0, tail)));
    st->slices = 1;
    st->slice_bits = s->cells * s->d;
    /* FP = (1 - zeros)^K over the measured zero fraction */
    st->error_estimated = pow((double)nonzero / (double)s->cells, (double)s->k);
}

static bool shape_ok(uint64_t cells, unsigned k, unsigned d, uint64_t decrements)
{
    return k >= 1 && k <= TDBF_MAX_K && d >= 1 && d <= 8 &&
           cells >= 2 * (uint64_t)k && decrements >= 1 && decrements <= cells;
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 K, u32 d, u64 m, u64 P, u64 window, u64 generator state;
 * then the ceil(m / floor(64/d)) words of cells.  c, the layout and the
 * planned FP follow from (K, d, m, P). */

enum { STABLE_FIELDS_BYTES = 40 };

static uint64_t stable_payload_size(const tdbf *f)
{
    return STABLE_FIELDS_BYTES + stable_bytes(f->state.impl);
}

static void stable_save(const tdbf *f, tdbf_out *out)
{
    const stable *s = f->state.impl;
    tdbf_out_u32(out, s->k);
    tdbf_out_u32(out, s->d);
    tdbf_out_u64(out, s->cells);
    tdbf_out_u64(out, s->decrements);
    tdbf_out_u64(out, s->window);
    tdbf_out_u64(out, s->rng);
    tdbf_out_words(out, s->bits, s->words);
}

/* Bits outside the cell slots (the idle high bits of a word when d does
 * not divide 64, and the slots past m in the last word) are never set. */
static bool idle_bits_clear(const void *state)
{
    const stable *s = state;
    unsigned tail = (unsigned)(s->cells % s->per_word);
    for (uint64_t w = 0; w < s->words; w++) {
        unsigned used = (w + 1 == s->words && tail ? tail : s->per_word) * s->d;
        uint64_t valid = used >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << used) - 1;
        if (s->bits[w] & ~valid)
            return false;
    }
    return true;
}

static int stable_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    stable h = {0};
    uint32_t k, d;
    uint64_t cells, decrements, window;
    tdbf_in_u32(in, &k);
    tdbf_in_u32(in, &d);
    tdbf_in_u64(in, &cells);
    tdbf_in_u64(in, &decrements);
    tdbf_in_u64(in, &window);
    if (tdbf_in_u64(in, &h.rng) != TDBF_OK)
        return in->rc;
    /* As the planner sizes it: K segments of c >= 2 cells, m d <= 2^52,
     * 1 <= P <= m. */
    if (!shape_ok(cells, k, d, decrements) || cells % k != 0 ||
        cells > (UINT64_C(1) << 52) / d || window == 0)
        return TDBF_ECORRUPT;
    set_shape(&h, k, d, cells, decrements, window);
    /* plan_decay.c's stable-point FP, (1 - zeros)^K */
    h.fp_planned = pow(1.0 - tdbf_stable_zeros(cells, k, d, decrements, UINT64_MAX), k);
    if (in->remaining != h.words * 8)
        return TDBF_ECORRUPT;
    if (!tdbf_fits((double)stable_bytes(&h), max_memory))
        return TDBF_ETOOBIG;
    f->state.error_planned = h.fp_planned;
    return tdbf_load_state(f, in, &h, sizeof h, offsetof(stable, bits), h.words,
                           idle_bits_clear);
}

const tdbf_ops tdbf_stable_ops = {
    .plan = stable_plan,
    .open = stable_open,
    .close = stable_close,
    .add = stable_add,
    .contains = stable_contains,
    .stats = stable_stats,
    .shape = stable_shape,
    .payload_size = stable_payload_size,
    .save = stable_save,
    .load = stable_load,
};

/* ---- the formulas (tdbf.h section 12; the planner is plan_decay.c) ---- */

/* Per-add event rates of one cell: r (set), a (decremented, not set). */
typedef struct cell_rates {
    double set;         /* r = 1/c */
    double drain;       /* a = p (1 - r), p = P/m */
    double rho;         /* a / (a + r): a non-idle add is a drain */
    unsigned max;       /* Max = 2^d - 1 */
} cell_rates;

static cell_rates rates_of(uint64_t cells, unsigned k, unsigned d, uint64_t decrements)
{
    cell_rates c;
    c.set = 1.0 / (double)(cells / k);
    c.drain = (double)decrements / (double)cells * (1.0 - c.set);
    c.rho = c.drain / (c.drain + c.set);
    c.max = (1u << d) - 1;
    return c;
}

/* P[Bin(trials, x) = i] for i = 0, 1, ... by the ratio of successive terms,
 * in logs so that a huge trials * x underflows to 0 instead of NaN. */
typedef struct binomial_walk {
    uint64_t trials;
    double   log_odds;  /* log(x / (1 - x)) */
    double   log_term;  /* log P[X = i] */
    uint64_t i;
} binomial_walk;

static binomial_walk walk_start(uint64_t trials, double x)
{
    binomial_walk b = {trials, log(x) - log1p(-x), (double)trials * log1p(-x), 0};
    return b;
}

/* P[X = i], then step to i + 1. */
static double walk_next(binomial_walk *b)
{
    if (b->i > b->trials)
        return 0.0;
    double term = exp(b->log_term);
    if (b->i < b->trials)
        b->log_term += log((double)(b->trials - b->i) / (double)(b->i + 1)) + b->log_odds;
    b->i++;
    return term;
}

/* P[Bin(trials, x) >= j]. */
static double binomial_at_least(uint64_t trials, double x, unsigned j)
{
    if (j == 0)
        return 1.0;
    if ((uint64_t)j > trials)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    binomial_walk b = walk_start(trials, x);
    double below = 0.0;
    if ((double)trials * x < (double)j) {
        /* small tail: sum it directly, terms fall faster than 1/2 */
        for (unsigned i = 0; i < j; i++)
            walk_next(&b);
        double tail = 0.0, term;
        do {
            term = walk_next(&b);
            tail += term;
        } while (term > tail * 1e-17 && b.i <= b.trials);
        return tail;
    }
    for (unsigned i = 0; i < j; i++)
        below += walk_next(&b);
    return below >= 1.0 ? 0.0 : 1.0 - below;
}

double tdbf_stable_zeros(uint64_t cells, unsigned k, unsigned d,
                         uint64_t decrements, uint64_t adds)
{
    if (!shape_ok(cells, k, d, decrements))
        return -1.0;
    cell_rates c = rates_of(cells, k, d, decrements);
    if (adds == UINT64_MAX)
        return pow(c.rho, (double)c.max);
    /* 1 - sum_{j<Max} rho^j (1 - rho) P[Bin(N, a + r) >= j + 1] */
    double nonzero = 0.0, rho_j = 1.0;
    for (unsigned j = 0; j < c.max; j++, rho_j *= c.rho)
        nonzero += rho_j * (1.0 - c.rho) * binomial_at_least(adds, c.drain + c.set, j + 1);
    return 1.0 - nonzero;
}

double tdbf_stable_forget(uint64_t cells, unsigned k, unsigned d,
                          uint64_t decrements, uint64_t t)
{
    if (!shape_ok(cells, k, d, decrements))
        return -1.0;
    cell_rates c = rates_of(cells, k, d, decrements);
    double zero = pow(c.rho, (double)c.max) *
                  binomial_at_least(t, c.drain + c.set, c.max);
    return -expm1((double)k * log1p(-zero));
}
