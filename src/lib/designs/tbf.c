/*
 * tbf.c — Timing Bloom Filter (TBF) and Block Timing Bloom Filter (BTBF),
 * count window.
 *
 * Dautrich & Ravishankar, "Inferential Time-Decaying Bloom Filters"
 * (paper 002), section 3; the TBF is Zhang & Guan's (its reference [23]).
 * The inferential queries over these cells live in infer.c (section 4).
 *
 * Model.  m timer cells and k hash functions.  Each cell holds a
 * timestamp in 0 .. T_Omega, or the reserved value T_eps, "expired".  The
 * filter keeps the current timestamp T_+, which cycles through
 * 0 .. T_Omega, and b, the insertions since T_+ last advanced.  An insert
 * writes T_+ into the key's k cells and counts b up; every B insertions
 * (the block) T_+ advances by one and b returns to 0 (section 3.2.1).  The
 * TBF is the BTBF with B = 1 (b is then always 0); this file is both.
 *
 * The age of a timestamp T is the number of times T_+ advanced since T
 * was written: lambda(T) = (T_+ - T) mod (T_Omega + 1), computed here as
 * T_+ - T or T_+ + T_Omega + 1 - T, so no unsigned value ever wraps.  It is
 * the true age only while that is at most T_Omega: the scan below makes
 * sure every cell is marked expired before it could get older.
 *
 * Memory layout.  The m cells are packed back to back, `bits` bits each,
 * in 64-bit words (tdbf_cells, bits.c); a cell may straddle two words.
 * Stored value 0 is T_eps (so a zeroed array is all expired, the state
 * the paper starts from), and t + 1 is timestamp t:
 *
 *     bit:  0      5      10     15     20     25     30      64
 *          +------+------+------+------+------+------+--- ... --+------
 *  word 0  | c0   | c1   | c2   | c3   | c4   | c5   |  ...  c12|c12 ...
 *          +------+------+------+------+------+------+--- ... --+------
 *           bits = 5: T_Omega <= 2^5 - 2 = 30, values 1..31 = T 0..30,
 *           0 = expired; c12 spans bits 60..64 (4 in word 0, 1 in word 1)
 *
 * Which ages are in the window.  Let a key x have insertion age I_x (the
 * insertions after its latest add).  If one of its cells shows age
 * lambda >= 1, x was added in a block at least lambda blocks back, and
 * the b insertions of the current block and lambda - 1 whole blocks came
 * after it:
 *
 *     I_x >= (lambda - 1) B + b                                   (3.2.2)
 *
 * So a cell of age >= ceil((w - b)/B) + 1 proves I_x >= w: that is
 * Definition 9's expiry rule, and a standard query answers yes iff all k
 * cells hold live timestamps of age <= live_age = ceil((w - b)/B).  For
 * B = 1 this is age <= w (section 3.1.2).
 *
 * No false negatives, proved.  Take x with I_x < w.  (i) Each of its
 * cells was written by x's latest add or later, so its age lambda
 * satisfies (lambda - 1) B + b <= I_x <= w - 1 when lambda >= 1, i.e.
 * lambda <= floor((w - 1 - b)/B) + 1 = ceil((w - b)/B), the query's bound
 * (and lambda = 0 passes trivially).  (ii) None of its cells is T_eps: the
 * scan marks a cell only at age >= expire_age = ceil(w/B) + 1 >=
 * ceil((w - b)/B) + 1, older than any cell of x by (i).  (iii) The age the
 * query computes is the true age: a cell becomes `expire_age` old at some
 * advance of T_+ during an add; from that add on, it stays at ages
 * expire_age .. T_Omega for (P + 1) B adds, where the padding
 * P = T_Omega - (ceil(w/B) + 1) (Definition 8; the paper's "P = T_Omega -
 * w" for the TBF counts the minimum T_Omega as w, but its own example,
 * P = 1 giving T_Omega = w + 2, takes the minimum w + 1 as here).  Each add
 * checks `scan` = ceil(m / (B (P + 1))) consecutive cells (cyclically),
 * after its advance of T_+, so those (P + 1) B adds check (P+1) B scan >= m
 * consecutive cells: all of them, each while its age is still honest.
 * Together: x's k cells are live and at most live_age old, so the query
 * says yes.  This holds for any key bytes, any repetition pattern and any
 * phase b, and needs no assumption about hashing.
 *
 * Expiry bound (slack).  The live cells at phase b were written by the
 * last n_live(b) = b + B ceil((w - b)/B) = w + ((b - w) mod B) insertions,
 * between w and w + B - 1 of them: a key up to w + B - 2 insertions old may
 * still be reported (the block effect of the paper's Figure 4), and one
 * older than that only as a false positive.  The TBF (B = 1) has no slack.
 *
 * False positives.  A never-inserted key is reported iff its k cells are
 * all live.  A cell is live iff one of the last n_live(b) insertions
 * touched it; with D(n) distinct keys among them (D(n) = n for a stream of
 * distinct keys, fewer with repeats) and k uniform indices per key, a cell
 * is untouched with probability (1 - 1/m)^(k D(n)), so
 *
 *     FP(b) = (1 - (1 - 1/m)^(k n_live(b)))^k    (distinct keys; eq 21's
 *                                                 F(k, 0, n) with r_x = k)
 *
 * and the worst phase, n = w + B - 1, is what the planner sizes for and
 * stats.error_planned reports.  Repeated keys only lower it.
 *
 * Sizing (the planner).  Given w and the error e, over k = 1..32 and
 * bits per timer, with m the least number of cells whose worst-phase FP
 * meets e (tdbf_bloom_size, sizing.c) for n = w + B - 1:
 *   - a timer must hold T_Omega + 2 values (T_Omega + 1 timestamps and
 *     T_eps), and T_Omega >= ceil(w/B) + 1 + P;
 *   - the paper's rule of thumb P ~ m/(k B) (section 3.2.3; m/k for the
 *     TBF) is applied as a bound: the scan checks at most k cells per add,
 *     so P + 1 >= ceil(m / (k B));
 *   - TBF: B = 1.  BTBF: for each bits, the smallest B that fits, up to
 *     B <= w/8 (slack at most 12.5% of the window; the memory curve is
 *     nearly flat beyond, and APBF's planned slack is of the same order);
 *   - the plan with the fewest total bits m * bits wins; its padding is
 *     then raised to all the bits allow, P = 2^bits - 3 - ceil(w/B), which
 *     costs nothing and shortens the scan.
 * Planned bits per item (w = 10^6; TBF k, bits / BTBF k, B, bits):
 *     e = 0.1     TBF 105.3 (5, 21)    BTBF 26.1 (4, 76924, 5)
 *     e = 0.01    TBF 206.6 (9, 21)    BTBF 52.0 (7, 83334, 5)
 *     e = 0.001   TBF 311.8 (14, 21)   BTBF 78.1 (11, 83334, 5)
 * The TBF's log2(w)-bit timers are the problem the BTBF solves (the paper's
 * section 3.2: 303 bits per item for its w = 2^20 example); neither is a
 * small filter, their point is the information in the timers (infer.c).
 * Explicit cfg.k, cfg.timer_bits, cfg.timer_block and cfg.timer_cells pin
 * those choices; with timer_bits fixed, B may go up to w; with
 * timer_cells fixed, the error is not a target and the least FP wins.
 *
 * Measured (tests/unit/test_tbf.c): the FP of never-inserted keys over all
 * phases b sits inside the 99.9% band of the formula above, e.g. TBF
 * w = 1000, e = 0.01: 0.01008 measured vs 0.00999 (2*10^6 probes, 20
 * filters); BTBF w = 1000, e = 0.01 (B = 84): 0.00843 vs 0.00833; BTBF
 * w = 20000, e = 0.001: 0.000778 vs 0.000757.  The average over phases is
 * below the planned worst phase, n = w + B - 1.
 */
#include <math.h>
#include <string.h>

#include "util/bits.h"
#include "util/serial.h"
#include "util/mem.h"
#include "util/memo.h"
#include "designs/ops.h"
#include "model/inference.h"
#include "model/planning.h"

typedef struct tbf {
    tdbf_cells cells;       /* m timers: 0 = T_eps, t + 1 = timestamp t */
    unsigned  k;            /* cells per key */
    uint64_t  window;       /* w, insertions */
    uint64_t  block;        /* B: insertions per timestamp (TBF: 1) */
    uint64_t  block_fill;   /* b: insertions since T_+ advanced, 0..B-1 */
    uint64_t  stamp;        /* T_+, 0 .. top */
    uint64_t  top;          /* T_Omega */
    uint64_t  live_age;     /* ceil((w - b)/B): the oldest age in the window */
    uint64_t  expire_age;   /* ceil(w/B) + 1: the scan retires cells this old */
    uint64_t  scan;         /* cells checked per add */
    uint64_t  sweep;        /* the next cell the scan checks */
    uint64_t  advances;     /* times T_+ advanced since open */
    double    fp_planned;   /* FP at the worst phase, n = w + B - 1 */
    double    log_untouched;/* k ln(1 - 1/m): the static (1 - 1/m)^k of §4.4 */
} tbf;

/* ======================================================================
 * Planner
 * ====================================================================== */

/* Beyond 2^52 a double no longer counts exactly; no real window is that
 * long. */
#define MAX_WINDOW (UINT64_C(1) << 52)
#define MAX_TIMER_BITS 62
#define SEARCH_MAX_K 32

typedef struct tbf_shape {
    unsigned k;
    unsigned bits;          /* per timer */
    uint64_t m;             /* cells */
    uint64_t block;         /* B */
    uint64_t top;           /* T_Omega */
    uint64_t scan;          /* cells checked per add */
    double   fp;            /* worst phase */
} tbf_shape;

/* What the caller fixed (0 = the planner chooses) and the limits. */
typedef struct tbf_request {
    uint64_t window;
    double   error;
    unsigned fixed_k;
    unsigned fixed_bits;
    uint64_t fixed_block;
    uint64_t fixed_cells;
    uint64_t max_block;     /* largest B the planner may choose */
    int      scan_bounded;  /* 1: the scan may check at most k cells per add */
} tbf_request;

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Largest T_Omega a timer of `bits` bits can hold: T_Omega + 1 stamps
 * stored as 1 .. T_Omega + 1, and 0 for T_eps. */
static uint64_t top_for_bits(unsigned bits)
{
    return (UINT64_C(1) << bits) - 2;
}

/* m for (k, B): fixed, or the least meeting the error at n = w + B - 1.
 * Returns 0 when that is beyond 2^52 cells. */
static uint64_t cells_for(const tbf_request *rq, unsigned k, uint64_t block,
                          double *fp)
{
    double keys = (double)(rq->window + block - 1);
    if (rq->fixed_cells) {
        *fp = tdbf_bloom_fp(keys, rq->fixed_cells, k);
        return rq->fixed_cells;
    }
    tdbf_bloom_shape shape;
    if (tdbf_bloom_size(keys, rq->error, k, &shape) != TDBF_OK)
        return 0;
    *fp = shape.fp;
    return shape.m;
}

/* Does a B-block filter with m cells fit timers of `bits` bits?  It needs
 * T_Omega >= ceil(w/B) + 1 + P with P + 1 >= ceil(m / (k B)) when the
 * scan is bounded by k cells per add. */
static int fits(const tbf_request *rq, unsigned k, unsigned bits,
                uint64_t block, uint64_t m)
{
    uint64_t padding = 0;
    if (rq->scan_bounded) {
        uint64_t rounds = ceil_div(m, (uint64_t)k * block); /* P + 1 */
        padding = rounds - 1;
    }
    uint64_t need = ceil_div(rq->window, block) + 1;
    return need <= top_for_bits(bits) && padding <= top_for_bits(bits) - need;
}

/* The smallest B in 1..max_block that fits `bits` (feasibility grows with
 * B: fewer stamps per window and fewer scan rounds), or 0. */
static uint64_t smallest_block(const tbf_request *rq, unsigned k,
                               unsigned bits)
{
    double fp;
    uint64_t hi = rq->max_block, m = cells_for(rq, k, hi, &fp);
    if (m == 0 || !fits(rq, k, bits, hi, m))
        return 0;
    uint64_t lo = 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        m = cells_for(rq, k, mid, &fp);
        if (m != 0 && fits(rq, k, bits, mid, m))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Is candidate c better than the best so far?  Free m: fewer total bits,
 * then the smaller B.  Fixed m: the lower FP, then fewer bits. */
static int better(const tbf_request *rq, const tbf_shape *c,
                  const tbf_shape *best)
{
    if (best->m == 0)
        return 1;
    double c_bits = (double)c->m * c->bits, b_bits = (double)best->m * best->bits;
    if (rq->fixed_cells) {
        if (c->fp != best->fp)
            return c->fp < best->fp;
        return c_bits < b_bits;
    }
    if (c_bits != b_bits)
        return c_bits < b_bits;
    return c->block < best->block;
}

static void finish_shape(unsigned k, unsigned bits, uint64_t block,
                         uint64_t m, double fp, uint64_t window,
                         tbf_shape *out)
{
    out->k = k;
    out->bits = bits;
    out->m = m;
    out->block = block;
    out->fp = fp;
    /* All the padding the bits allow: free, and it shortens the scan. */
    out->top = top_for_bits(bits);
    uint64_t padding = out->top - (ceil_div(window, block) + 1);
    out->scan = ceil_div(ceil_div(m, block), padding + 1); /* m/(B(P+1)) */
}

static int search_shapes(const tbf_request *rq, tbf_shape *best)
{
    unsigned k_lo = rq->fixed_k ? rq->fixed_k : 1;
    unsigned k_hi = rq->fixed_k ? rq->fixed_k : SEARCH_MAX_K;
    unsigned bits_lo = rq->fixed_bits ? rq->fixed_bits : 2;
    unsigned bits_hi = rq->fixed_bits ? rq->fixed_bits : MAX_TIMER_BITS;
    int too_big = 0;

    memset(best, 0, sizeof *best);
    for (unsigned k = k_lo; k <= k_hi; k++) {
        for (unsigned bits = bits_lo; bits <= bits_hi; bits++) {
            uint64_t block = rq->fixed_block ? rq->fixed_block
                                             : smallest_block(rq, k, bits);
            if (block == 0)
                continue;
            double fp;
            uint64_t m = cells_for(rq, k, block, &fp);
            if (m == 0) {
                too_big = 1;
                break;
            }
            if (!fits(rq, k, bits, block, m))
                continue;
            tbf_shape c;
            finish_shape(k, bits, block, m, fp, rq->window, &c);
            if (better(rq, &c, best))
                *best = c;
            /* More bits can only lower B; once B is as small as it may
             * be, they only cost memory. */
            if (rq->fixed_block || block == 1)
                break;
        }
    }
    if (best->m)
        return TDBF_OK;
    return too_big ? TDBF_ETOOBIG : TDBF_EINFEASIBLE;
}

/* The search sizes the cells for every (k, bits), ~0.35 ms, and a server
 * that creates a TBF or BTBF filter per key asks it the same question
 * each time: the last answers are kept per thread (util/memo.h; the
 * request copied field by field into a zeroed one, so that its padding
 * compares equal). */
typedef struct tbf_answer {
    tbf_request question;
    int         rc;
    tbf_shape   shape;
} tbf_answer;

static int search(const tbf_request *rq, tbf_shape *best)
{
    static _Thread_local TDBF_MEMO(tbf_answer, 8) memo;
    tbf_request q;
    memset(&q, 0, sizeof q);
    q.window = rq->window;
    q.error = rq->error;
    q.fixed_k = rq->fixed_k;
    q.fixed_bits = rq->fixed_bits;
    q.fixed_block = rq->fixed_block;
    q.fixed_cells = rq->fixed_cells;
    q.max_block = rq->max_block;
    q.scan_bounded = rq->scan_bounded;
    tbf_answer *a = TDBF_MEMO_FIND(&memo, &q);
    if (!a) {
        a = TDBF_MEMO_TAKE(&memo, &q);
        a->rc = search_shapes(&q, &a->shape);
    }
    *best = a->shape;
    return a->rc;
}

static int plan(const tdbf_config *cfg, int block_design, tbf_shape *shape)
{
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    if (cfg->window_items > MAX_WINDOW || cfg->timer_cells > MAX_WINDOW)
        return TDBF_ETOOBIG;
    if (cfg->l != 0 || (cfg->timer_bits && (cfg->timer_bits < 2 ||
                                            cfg->timer_bits > MAX_TIMER_BITS)))
        return TDBF_EPARAM;
    if (block_design ? cfg->timer_block > cfg->window_items : cfg->timer_block > 1)
        return TDBF_EPARAM;

    tbf_request rq = {
        .window = cfg->window_items,
        .error = cfg->error,
        .fixed_k = cfg->k,
        .fixed_bits = cfg->timer_bits,
        .fixed_block = block_design ? cfg->timer_block : 1,
        .fixed_cells = cfg->timer_cells,
        .scan_bounded = 1,
    };
    /* The planner's own B keeps the slack within w/8; a caller who fixes
     * the timer width accepts whatever B it takes. */
    rq.max_block = cfg->timer_bits ? rq.window : rq.window / 8;
    if (rq.max_block == 0)
        rq.max_block = 1;
    int rc = search(&rq, shape);
    if (rc == TDBF_EINFEASIBLE && (cfg->timer_bits || rq.fixed_block)) {
        /* Timers fixed too narrow for a k-cell scan: scan more per add. */
        rq.scan_bounded = 0;
        rc = search(&rq, shape);
    }
    if (rc == TDBF_EINFEASIBLE && cfg->timer_bits)
        return TDBF_EPARAM; /* not even one stamp per block fits */
    return rc;
}

/* ======================================================================
 * The filter
 * ====================================================================== */

static inline uint64_t cell_of(const tbf *t, const tdbf_hash128 *h, unsigned i)
{
    return tdbf_reduce(tdbf_hash_nth(h, i), t->cells.count);
}

/* Age of a stored (non-expired) value: advances of T_+ since it was
 * written, mod T_Omega + 1, without unsigned wrap. */
static inline uint64_t age_of(const tbf *t, uint64_t stored)
{
    uint64_t stamp = stored - 1;
    return t->stamp >= stamp ? t->stamp - stamp : t->stamp + (t->top + 1) - stamp;
}

static inline int live(const tbf *t, uint64_t stored)
{
    return stored != 0 && age_of(t, stored) <= t->live_age;
}

/* Standard query (sections 3.1.2, 3.2.2): all k cells live and young. */
static int query(const tbf *t, const tdbf_hash128 *h)
{
    for (unsigned i = 0; i < t->k; i++)
        if (!live(t, tdbf_cell_get(&t->cells, cell_of(t, h, i))))
            return 0;
    return 1;
}

/* Definition 9: ceil((w - b)/B); w >= B > b, so w - b > 0. */
static uint64_t live_age(const tbf *t)
{
    return ceil_div(t->window - t->block_fill, t->block);
}

/* Mark expired the next `scan` cells that are expire_age old or older
 * (section 3.1.3). */
static void retire(tbf *t)
{
    for (uint64_t i = 0; i < t->scan; i++) {
        uint64_t stored = tdbf_cell_get(&t->cells, t->sweep);
        if (stored != 0 && age_of(t, stored) >= t->expire_age)
            tdbf_cell_set(&t->cells, t->sweep, 0);
        t->sweep = t->sweep + 1 == t->cells.count ? 0 : t->sweep + 1;
    }
}

static int tbf_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    tbf *t = f->state.impl;
    int present = query(t, &key->hash);
    for (unsigned i = 0; i < t->k; i++)
        tdbf_cell_set(&t->cells, cell_of(t, &key->hash, i), t->stamp + 1);
    if (++t->block_fill == t->block) {
        t->block_fill = 0;
        t->stamp = t->stamp == t->top ? 0 : t->stamp + 1;
        t->advances++;
    }
    t->live_age = live_age(t);
    retire(t);
    return present;
}

static int tbf_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    return query(f->state.impl, &key->hash);
}

/* The timer array open builds for cfg, within cfg.max_memory. */
static int size_design(const tdbf_config *cfg, int block_design, tbf_shape *shape)
{
    int rc = plan(cfg, block_design, shape);
    if (rc != TDBF_OK)
        return rc;
    if (!tdbf_fits(tdbf_cells_bytes(shape->m, shape->bits) + sizeof(tbf), cfg->max_memory))
        return TDBF_ETOOBIG;
    return TDBF_OK;
}

static int plan_design(const tdbf_config *cfg, int block_design, tdbf_shape *out)
{
    tbf_shape shape;
    int rc = size_design(cfg, block_design, &shape);
    if (rc != TDBF_OK)
        return rc;
    out->k = shape.k;
    out->window_items = cfg->window_items;
    out->error_planned = shape.fp;
    out->memory_bytes = sizeof(tdbf) + sizeof(tbf) + TDBF_ALIGNED_OVERHEAD +
                        (uint64_t)tdbf_cells_bytes(shape.m, shape.bits);
    return TDBF_OK;
}

static int tbf_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    return plan_design(cfg, 0, out);
}

static int btbf_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    return plan_design(cfg, 1, out);
}

static int open_design(tdbf *f, const tdbf_config *cfg, int block_design)
{
    tbf_shape shape;
    int rc = size_design(cfg, block_design, &shape);
    if (rc != TDBF_OK)
        return rc;

    tbf *t = tdbf_mem_calloc(f, 1, sizeof *t);
    if (!t)
        return TDBF_ENOMEM;
    rc = tdbf_cells_open(f, &t->cells, shape.m, shape.bits);
    if (rc != TDBF_OK) {
        tdbf_mem_free(f, t, sizeof *t);
        return rc;
    }
    t->k = shape.k;
    t->window = cfg->window_items;
    t->block = shape.block;
    t->top = shape.top;
    t->expire_age = ceil_div(t->window, t->block) + 1;
    t->scan = shape.scan;
    t->fp_planned = shape.fp;
    t->log_untouched = (double)shape.k * log1p(-1.0 / (double)shape.m);
    t->live_age = live_age(t);
    f->state.impl = t;
    f->state.error_planned = t->fp_planned;
    return TDBF_OK;
}

static int tbf_open(tdbf *f, const tdbf_config *cfg)
{
    return open_design(f, cfg, 0);
}

static int btbf_open(tdbf *f, const tdbf_config *cfg)
{
    return open_design(f, cfg, 1);
}

static void tbf_close(tdbf *f)
{
    tbf *t = f->state.impl;
    tdbf_cells_close(f, &t->cells);
    tdbf_mem_free(f, t, sizeof *t);
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void tbf_shape_of(const tdbf *f, tdbf_shape *out)
{
    const tbf *t = f->state.impl;
    out->k = t->k;
    out->window_items = t->window;
    out->error_planned = t->fp_planned;
}

static void tbf_stats(const tdbf *f, tdbf_stats *st)
{
    const tbf *t = f->state.impl;
    uint64_t live_cells = 0;
    for (uint64_t i = 0; i < t->cells.count; i++)
        live_cells += (uint64_t)live(t, tdbf_cell_get(&t->cells, i));
    st->slices = 1;
    st->slice_bits = t->cells.count * t->cells.bits;
    st->generation_size = t->block;
    st->generation_fill = t->block_fill;
    st->generations = t->advances;
    st->error_estimated = pow((double)live_cells / (double)t->cells.count, (double)t->k);
    st->cells = t->cells.count;
    st->cell_bits = t->cells.bits;
    st->padding = t->top - t->expire_age;
    st->scan_per_insert = t->scan;
}

/* What the key's cells say (section 4): r_x distinct cells, the oldest
 * age lambda_x among them and how many cells c_x show it; an expired cell
 * makes lambda_x "infinite", known only to be at least expire_age. */
static int tbf_infer(const tdbf *f, const tdbf_key *key, uint64_t now_ns,
                     const tdbf_prior *prior, tdbf_inference *out)
{
    (void)now_ns;
    const tbf *t = f->state.impl;
    uint64_t seen[TDBF_MAX_K];
    tdbf_timer_view view = {
        .window = t->window,
        .block = t->block,
        .block_fill = t->block_fill,
        .live_age = t->live_age,
        .log_untouched = t->log_untouched,
    };
    for (unsigned i = 0; i < t->k; i++) {
        uint64_t cell = cell_of(t, &key->hash, i), j;
        for (j = 0; j < view.distinct && seen[j] != cell; j++)
            ;
        if (j < view.distinct)
            continue; /* R_x is a set: a repeated index counts once */
        seen[view.distinct++] = cell;
        uint64_t stored = tdbf_cell_get(&t->cells, cell);
        if (stored == 0) {
            view.expired = true;
            continue;
        }
        uint64_t age = age_of(t, stored);
        if (view.oldest == 0 || age > view.age) {
            view.age = age;
            view.oldest = 1;
        } else if (age == view.age) {
            view.oldest++;
        }
    }
    if (view.expired && view.age < t->expire_age)
        view.age = t->expire_age;
    return tdbf_timer_infer(&view, prior, out);
}

/* ======================================================================
 * Serialization (codec.c, docs/format.md)
 *
 * Payload: u32 k, u32 bits per timer, u64 m, u64 w, u64 B, u64 b,
 * u64 T_+, u64 advances, u64 sweep; then the ceil(m bits / 64) words of
 * the packed cells.  T_Omega, the ages, the scan and the planned FP
 * follow from (k, bits, m, w, B), as open derives them.  The counters
 * are tied to the shell's adds: advances B + b = items (mod 2^64),
 * T_+ = advances mod (T_Omega + 1), sweep = items scan mod m.
 * ====================================================================== */

enum { TBF_FIELDS_BYTES = 64 };

static uint64_t tbf_payload_size(const tdbf *f)
{
    const tbf *t = f->state.impl;
    return TBF_FIELDS_BYTES + (uint64_t)tdbf_cells_bytes(t->cells.count, t->cells.bits);
}

static void tbf_save(const tdbf *f, tdbf_out *out)
{
    const tbf *t = f->state.impl;
    tdbf_out_u32(out, t->k);
    tdbf_out_u32(out, t->cells.bits);
    tdbf_out_u64(out, t->cells.count);
    tdbf_out_u64(out, t->window);
    tdbf_out_u64(out, t->block);
    tdbf_out_u64(out, t->block_fill);
    tdbf_out_u64(out, t->stamp);
    tdbf_out_u64(out, t->advances);
    tdbf_out_u64(out, t->sweep);
    tdbf_out_words(out, t->cells.words, tdbf_words_for_bits(t->cells.count * t->cells.bits));
}

/* a * b mod m without overflow (m <= 2^52, so a sum of two residues fits
 * in 53 bits). */
static uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t m)
{
    uint64_t r = 0;
    a %= m;
    for (b %= m; b; b >>= 1) {
        if (b & 1)
            r = (r + a) % m;
        a = (a * 2) % m;
    }
    return r;
}

/* The cells, vetted once read: no bits past the last cell, and every
 * timestamp one this filter could hold -- no older than its advances, and
 * if already due to expire (age >= expire_age), reached by the scan before
 * its age would wrap past T_Omega.  The cell at distance d past the sweep
 * is checked by the (d / scan + 1)-th add from now, after the advances of
 * those adds; the no-false-negative proof above keeps every saved filter
 * inside this bound, and a loaded one inside it stays honest. */
static bool cells_consistent(const void *state)
{
    const tbf *t = state;
    uint64_t m = t->cells.count;
    if (!tdbf_tail_clear(t->cells.words, m * t->cells.bits))
        return false;
    for (uint64_t i = 0; i < m; i++) {
        uint64_t stored = tdbf_cell_get(&t->cells, i);
        if (stored == 0)
            continue;
        uint64_t age = age_of(t, stored);
        if (age > t->advances)
            return false;
        if (age < t->expire_age)
            continue;
        uint64_t distance = i >= t->sweep ? i - t->sweep : i + m - t->sweep;
        uint64_t adds = distance / t->scan + 1;
        if (age + (t->block_fill + adds) / t->block > t->top)
            return false;
    }
    return true;
}

/* The shape as open plans it: k, timer width, cells and window in range,
 * B = 1 for the TBF and 1 .. w for the BTBF, and room in the timers for
 * a window's stamps, ceil(w/B) + 1 <= T_Omega. */
static int load_shape(tbf *h, uint32_t k, uint32_t bits, uint64_t cells,
                      int block_design)
{
    if (k < 1 || k > TDBF_MAX_K || bits < 2 || bits > MAX_TIMER_BITS || cells < 1 ||
        cells > MAX_WINDOW || h->window < 1 || h->window > MAX_WINDOW || h->block < 1 ||
        h->block > (block_design ? h->window : 1))
        return TDBF_ECORRUPT;
    h->k = k;
    h->top = top_for_bits(bits);
    h->expire_age = ceil_div(h->window, h->block) + 1;
    if (h->expire_age > h->top)
        return TDBF_ECORRUPT;
    h->cells.count = cells;
    h->cells.bits = bits;
    h->cells.mask = UINT64_MAX >> (64 - bits);
    h->scan = ceil_div(ceil_div(cells, h->block), h->top - h->expire_age + 1);
    h->fp_planned = tdbf_bloom_fp((double)(h->window + h->block - 1), cells, k);
    h->log_untouched = (double)k * log1p(-1.0 / (double)cells);
    return TDBF_OK;
}

/* The counters against each other and the shell's count of adds. */
static int load_counters(const tbf *h, uint64_t items)
{
    /* advances * block + fill = items, checked without overflowing: a
     * forged advances count must not wrap (the fuzzer found it did). */
    if (h->block_fill >= h->block || h->stamp > h->top ||
        h->stamp != h->advances % (h->top + 1) || h->block_fill > items ||
        h->advances != (items - h->block_fill) / h->block ||
        (items - h->block_fill) % h->block != 0 ||
        h->sweep != mul_mod(items, h->scan, h->cells.count))
        return TDBF_ECORRUPT;
    return TDBF_OK;
}

static int load_design(tdbf *f, tdbf_in *in, uint64_t max_memory, int block_design)
{
    tbf h = {0};
    uint32_t k, bits;
    uint64_t cells;
    tdbf_in_u32(in, &k);
    tdbf_in_u32(in, &bits);
    tdbf_in_u64(in, &cells);
    tdbf_in_u64(in, &h.window);
    tdbf_in_u64(in, &h.block);
    tdbf_in_u64(in, &h.block_fill);
    tdbf_in_u64(in, &h.stamp);
    tdbf_in_u64(in, &h.advances);
    if (tdbf_in_u64(in, &h.sweep) != TDBF_OK)
        return in->rc;
    int rc = load_shape(&h, k, bits, cells, block_design);
    if (rc == TDBF_OK)
        rc = load_counters(&h, f->items);
    if (rc != TDBF_OK)
        return rc;
    h.live_age = live_age(&h);
    double bytes = tdbf_cells_bytes(cells, bits);
    if (in->remaining != (uint64_t)bytes)
        return TDBF_ECORRUPT;
    if (!tdbf_fits(bytes + sizeof(tbf), max_memory))
        return TDBF_ETOOBIG;
    f->state.error_planned = h.fp_planned;
    return tdbf_load_state(f, in, &h, sizeof h, offsetof(tbf, cells.words),
                           tdbf_words_for_bits(cells * bits), cells_consistent);
}

static int tbf_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    return load_design(f, in, max_memory, 0);
}

static int btbf_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    return load_design(f, in, max_memory, 1);
}

/* B, adds per timestamp: a key up to w + B - 2 adds old may still be
 * reported (the essay's expiry bound). */
static uint64_t tbf_slack_step(const tdbf *f, const tdbf_config *cfg)
{
    if (f) {
        const tbf *t = f->state.impl;
        return t->block;
    }
    tbf_shape shape;
    return plan(cfg, cfg->design == TDBF_BTBF, &shape) == TDBF_OK ? shape.block : 0;
}

const tdbf_ops tdbf_tbf_ops = {
    .plan = tbf_plan,
    .open = tbf_open,
    .close = tbf_close,
    .add = tbf_add,
    .contains = tbf_contains,
    .stats = tbf_stats,
    .shape = tbf_shape_of,
    .payload_size = tbf_payload_size,
    .save = tbf_save,
    .load = tbf_load,
    .infer = tbf_infer,
    .slack_step = tbf_slack_step,
};

const tdbf_ops tdbf_btbf_ops = {
    .plan = btbf_plan,
    .open = btbf_open,
    .close = tbf_close,
    .add = tbf_add,
    .contains = tbf_contains,
    .stats = tbf_stats,
    .shape = tbf_shape_of,
    .payload_size = tbf_payload_size,
    .save = tbf_save,
    .load = btbf_load,
    .infer = tbf_infer,
    .slack_step = tbf_slack_step,
};
