/*
 * fpdecay.c — the fingerprint decay array: membership with probabilistic
 * time decay, lock-free.
 *
 * Paper 003 (an engineering blog post): "an approximate membership filter
 * with probabilistic time decay", s cells, n positions per key,
 * b-bit fingerprints.  Its formulas are restated here; the array is split
 * into segments, the one change from the post (see "Survival").
 *
 * Model.  An array of s cells of b bits, split into n segments of
 * c = s/n cells.  A key x has a fingerprint f(x) in 1 .. 2^b - 1 (0 marks
 * an empty cell) and one cell h_j(x) in each segment j.  add(x) writes f(x)
 * into its n cells, overwriting whatever was there; contains(x) answers
 * yes iff at least one of its n cells still holds f(x).  Nothing is ever
 * cleared: newer keys overwrite older ones at random, so an old key fades
 * out -- "remember newer data with a higher probability and older data
 * with a lower probability" (paper 003).
 *
 *      segment 0                segment 1               segment n-1
 *     +----+----+----+----+----+----+----+----+     +----+----+----+----+
 *     | 0  | f7 | f3 | f2 | f5 | 0  | f3 | f9 | ... | f3 | f1 | f4 | 0  |
 *     +----+----+----+----+----+----+----+----+     +----+----+----+----+
 *                 ^ h_0(x)            ^ h_1(x)        ^ h_{n-1}(x)
 *     c = s/n cells per segment; each cell one C11 _Atomic uint8_t,
 *     uint16_t or uint32_t (b = 8, 16, 32), 64-byte aligned array.
 *
 * Hashing.  The key's one 128-bit hash gives h_j = reduce(hash_nth(j), c)
 * for j < n and the fingerprint f = 1 + reduce(hash_nth(64), 2^b - 1):
 * uniform over the 2^b - 1 nonzero values, independent of the positions.
 *
 * Survival (paper 003, "the probability phi of an event after t event
 * insertions").  A later key writes exactly one cell of every segment, so
 * our cell in segment j escapes it with probability 1 - 1/c = 1 - n/s,
 * independently for every later key and every segment:
 *
 *     q(t) = (1 - n/s)^t.
 *
 * The post has (1 - 1/s)^(n t) -- n writes anywhere, a key's own n cells
 * possibly colliding; segments make the n cells distinct and their fates
 * independent, and the two agree to first order in n/s (at s = 10^6,
 * n = 8, t = s/n they differ by 3.5 * 10^-6 of q).  An overwritten cell
 * holds some later key's fingerprint, equal to ours with probability
 * e_b = 1/(2^b - 1) (the post writes 2^-b; 0 is reserved here).  So one
 * cell matches with probability q + (1 - q) e_b and
 *
 *     phi(t) = 1 - ((1 - q)(1 - e_b))^n                 (paper 003)
 *
 * is the probability that a key added t adds ago answers yes.  It starts
 * at 1, falls like a smoothed step with its middle (phi ~ 1/2) near
 * t = c ln(n / ln 2) (larger n: a sharper step, paper 003's figure) and levels off at phi(inf) = 1 - (1 - e_b)^n.
 *
 * False positives.  A never-inserted key y matches cell j iff the cell is
 * filled and holds f(y): probability fill * e_b with
 * fill = 1 - (1 - n/s)^N after N adds, so
 *
 *     FP(N) = 1 - (1 - fill e_b)^n  ->  1 - (1 - e_b)^n ~ n / 2^b
 *
 * once the array is full: the floor of phi.  b and n set the FP; s and n
 * set the survival curve.
 *
 * Sizing (plan_decay.c).  phi(w) >= S holds iff
 * q(w) >= q* = 1 - (1 - S)^(1/n) / (1 - e_b), i.e.
 *
 *     c >= 1 / (1 - q*^(1/w))   (~ w / -ln q*),   s = n c.
 *
 * With L = -ln(1 - S) and e_b -> 0, (1 - S)^(1/n) = e^(-L/n), so once
 * n >> L, q* ~ L/n and s/w ~ n / ln(n/L).  Cells per window key at
 * S = 0.99, b = 16: n = 1: 99.5, 2: 19.0, 4: 10.5, 8: 9.7, 16: 11.5,
 * 32: 15.9, 64: 24.0 -- least near n = 7, and for n = 8..32 within
 * 2.3-2.7 log2(2n): the post's "s proportional to log2 n" guideline.
 * The planner takes the least memory s*b over b in {8, 16, 32} and
 * n in 1..64 with FP(inf) <= error and phi(w) >= S (cfg.survival, default
 * 1 - error).  At w = 10^6, error = 0.01, S = 0.99
 * it picks b = 8, n = 2 (FP 0.0078): 151 bits per window key; b = 16
 * needs n = 7 and 154 bits.  That is almost 8x an APBF of the same FP
 * and window (19.7 bits), which never forgets inside its window: the
 * price of a structure with no generations, no shifts and no shared state
 * but the cells.
 *
 * What it guarantees, and what not.  No hard window: a key added t adds
 * ago is forgotten with probability 1 - phi(t) > 0 for every t >= 1,
 * <= 1 - S for t <= w (far less for young keys), and remembered forever
 * with probability phi(inf) (the FP floor).  Re-adding rewrites all n
 * cells, so its age restarts.  now is ignored (count-based).  The model
 * assumes distinct keys; a hot key re-added often only refreshes itself.
 *
 * Concurrency.  The point of the design: adds and queries from any number
 * of threads without locks.  Every cell is an independent atomic
 * register, read and written with memory_order_relaxed: no tearing, no
 * lost cell, and nothing else to order -- there is no pointer, no count
 * and no invariant spanning cells.  A key's n stores are not one atomic
 * step, but a query answers yes as soon as any one of its cells matches,
 * so a query racing an add sees the key as soon as the first store is
 * visible; two racing adds of one new key may both answer "new".  On x86
 * and ARM relaxed loads and stores are plain moves: the single-threaded
 * path costs what non-atomic code would.  The shell's add counter and
 * clock are atomic too (filter.c, ops.concurrent).
 *
 * Measured (tests/unit/test_fpdecay.c).  phi(t) at 12 ages from 0 to 4w,
 * 20000 trials each, for (b = 8, n = 2, s = 10474) and (b = 16, n = 8,
 * s = 11552), both sized for w = 2000 at S = 0.9: every age inside the
 * 99.9% binomial band (at t = w: 0.9006 and 0.8978 against 0.9000; at
 * 4w: 0.390 against 0.392 and 0.0310 against 0.0310).  FP of 10^6
 * never-inserted keys on a full array: 0.00794 against 0.00783 (b = 8,
 * n = 2), 0.000128 against 0.000122 (b = 16, n = 8).  4 threads x 10^6
 * adds, each thread querying its own keys at 5 lags: at a mean t of
 * 39278 adds 0.88667 answered yes, phi over the bounds of t that the
 * concurrency leaves is 0.88648 .. 0.88656 (+- 0.0005).
 */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "util/bits.h"
#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"
#include "model/planning.h"

#if ATOMIC_CHAR_LOCK_FREE != 2 || ATOMIC_SHORT_LOCK_FREE != 2 || ATOMIC_INT_LOCK_FREE != 2
#error "fpdecay.c needs always-lock-free 8, 16 and 32-bit atomics"
#endif
_Static_assert(sizeof(_Atomic uint8_t) == 1 && sizeof(_Atomic uint16_t) == 2 &&
               sizeof(_Atomic uint32_t) == 4,
               "atomic cells must be as small as plain ones");

/* The derived hash that gives the fingerprint: past every position index. */
#define FINGERPRINT_HASH TDBF_MAX_K

typedef struct fpdecay {
    unsigned n;             /* cells per key = segments */
    unsigned b;             /* fingerprint bits: 8, 16 or 32 */
    uint64_t segment;       /* c: cells per segment */
    uint64_t cells;         /* s = n * c */
    uint64_t window;        /* window sized for (cfg.window_items) */
    double   fp_planned;    /* FP of the full array */
    union {                 /* the cell array, by width (calloc'd: all 0) */
        _Atomic uint8_t  *u8;
        _Atomic uint16_t *u16;
        _Atomic uint32_t *u32;
        void             *any;
    } cell;
} fpdecay;

static size_t array_bytes(const fpdecay *a)
{
    return (size_t)a->cells * (a->b / 8);
}

static inline uint32_t load_cell(const fpdecay *a, uint64_t i)
{
    switch (a->b) {
    case 8:  return atomic_load_explicit(&a->cell.u8[i], memory_order_relaxed);
    case 16: return atomic_load_explicit(&a->cell.u16[i], memory_order_relaxed);
    default: return atomic_load_explicit(&a->cell.u32[i], memory_order_relaxed);
    }
}

static inline void store_cell(fpdecay *a, uint64_t i, uint32_t fingerprint)
{
    switch (a->b) {
    case 8:
        atomic_store_explicit(&a->cell.u8[i], (uint8_t)fingerprint, memory_order_relaxed);
        break;
    case 16:
        atomic_store_explicit(&a->cell.u16[i], (uint16_t)fingerprint, memory_order_relaxed);
        break;
    default:
        atomic_store_explicit(&a->cell.u32[i], fingerprint, memory_order_relaxed);
        break;
    }
}

static inline uint32_t fingerprint_of(const fpdecay *a, const tdbf_hash128 *h)
{
    uint64_t values = (UINT64_C(1) << a->b) - 1;   /* nonzero fingerprints */
    return (uint32_t)(1 + tdbf_reduce(tdbf_hash_nth(h, FINGERPRINT_HASH), values));
}

/* Cell of the key in segment j. */
static inline uint64_t cell_of(const fpdecay *a, const tdbf_hash128 *h, unsigned j)
{
    return (uint64_t)j * a->segment + tdbf_reduce(tdbf_hash_nth(h, j), a->segment);
}

static int query(const fpdecay *a, const tdbf_hash128 *h)
{
    uint32_t fingerprint = fingerprint_of(a, h);
    for (unsigned j = 0; j < a->n; j++)
        if (load_cell(a, cell_of(a, h, j)) == fingerprint)
            return 1;
    return 0;
}

static int fpdecay_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    fpdecay *a = f->state.impl;
    uint32_t fingerprint = fingerprint_of(a, &key->hash);
    int present = 0;
    for (unsigned j = 0; j < a->n; j++) {
        uint64_t i = cell_of(a, &key->hash, j);
        present |= load_cell(a, i) == fingerprint;
        store_cell(a, i, fingerprint);
    }
    return present;
}

static int fpdecay_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    return query(f->state.impl, &key->hash);
}

static void fpdecay_prefetch(const tdbf *f, const tdbf_key *key, int for_add)
{
    const fpdecay *a = f->state.impl;
    for (unsigned j = 0; j < a->n; j++) {
        uint64_t i = cell_of(a, &key->hash, j);
        tdbf_prefetch((const char *)a->cell.any + i * (a->b / 8), for_add);
    }
}

/* e_b: the chance that a foreign fingerprint equals ours. */
static double foreign_match_rate(unsigned b)
{
    return 1.0 / (double)((UINT64_C(1) << b) - 1);
}

/* 1 - (1 - e_b)^n: the FP once every cell holds some fingerprint. */
static double full_fp(unsigned n, unsigned b)
{
    return -expm1((double)n * log1p(-foreign_match_rate(b)));
}

/* ---- sizing (plan_decay.c reads a window request as two targets) ------ */

static int plan_fpdecay(const tdbf_config *cfg, double target, tdbf_decay_plan *out)
{
    static const unsigned widths[] = {8, 16, 32};
    unsigned fixed_b = cfg->fingerprint_bits, fixed_n = cfg->positions;
    if (fixed_b != 0 && fixed_b != 8 && fixed_b != 16 && fixed_b != 32)
        return TDBF_EPARAM;
    bool found = false, too_big = false;
    double best_bits = 0.0;

    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        unsigned b = widths[i];
        if (fixed_b && b != fixed_b)
            continue;
        unsigned n_last = fixed_n ? fixed_n : TDBF_MAX_K;
        for (unsigned n = fixed_n ? fixed_n : 1; n <= n_last; n++) {
            double fp = full_fp(n, b);
            if (fp > cfg->error)
                break;              /* and more so for larger n */
            uint64_t cells;
            int rc = tdbf_fpdecay_size(cfg->window_items, n, b, target, &cells);
            if (rc == TDBF_ETOOBIG) {
                too_big = true;
                continue;
            }
            if (rc != TDBF_OK)
                return rc;
            double bits = (double)cells * b;
            if (found && bits >= best_bits)
                continue;
            found = true;
            best_bits = bits;
            out->cells = cells;
            out->k = n;
            out->cell_bits = b;
            out->bytes = cells * (b / 8);
            out->fp = fp;
            out->survival = tdbf_fpdecay_survival(cells, n, b, cfg->window_items);
        }
    }
    if (!found)
        return too_big ? TDBF_ETOOBIG : TDBF_EINFEASIBLE;
    out->decrements = 0;
    return TDBF_OK;
}

int tdbf_fpdecay_plan(const tdbf_config *cfg, tdbf_decay_plan *out)
{
    return tdbf_decay_plan_by(cfg, TDBF_FPDECAY, plan_fpdecay, out);
}

static int fpdecay_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    tdbf_decay_plan plan;
    int rc = tdbf_fpdecay_plan(cfg, &plan);
    if (rc == TDBF_OK)
        tdbf_decay_shape(&plan, sizeof(fpdecay), out);
    return rc;
}

static int fpdecay_open(tdbf *f, const tdbf_config *cfg)
{
    tdbf_decay_plan plan;
    int rc = tdbf_fpdecay_plan(cfg, &plan);
    if (rc != TDBF_OK)
        return rc;
    fpdecay *a = tdbf_mem_calloc(f, 1, sizeof *a);
    if (!a)
        return TDBF_ENOMEM;
    a->n = plan.k;
    a->b = plan.cell_bits;
    a->cells = plan.cells;
    a->segment = plan.cells / plan.k;
    a->window = plan.window;
    a->fp_planned = plan.fp;
    /* Zeroed memory is the all-empty array: the atomic types are lock-free
     * and exactly as wide as their integers (asserted above). */
    a->cell.any = tdbf_mem_calloc_aligned(f, array_bytes(a));
    if (!a->cell.any) {
        tdbf_mem_free(f, a, sizeof *a);
        return TDBF_ENOMEM;
    }
    f->state.impl = a;
    f->state.error_planned = a->fp_planned;
    return TDBF_OK;
}

static void fpdecay_close_state(tdbf *f, fpdecay *a)
{
    tdbf_mem_free_aligned(f, a->cell.any, array_bytes(a));
    tdbf_mem_free(f, a, sizeof *a);
}

static void fpdecay_close(tdbf *f)
{
    fpdecay_close_state(f, f->state.impl);
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void fpdecay_shape(const tdbf *f, tdbf_shape *out)
{
    const fpdecay *a = f->state.impl;
    out->k = a->n;
    out->window_items = a->window;
    out->error_planned = a->fp_planned;
}

static void fpdecay_stats(const tdbf *f, tdbf_stats *st)
{
    const fpdecay *a = f->state.impl;
    uint64_t filled = 0;
    for (uint64_t i = 0; i < a->cells; i++)
        filled += load_cell(a, i) != 0;
    double fill = (double)filled / (double)a->cells;
    double foreign_match = 1.0 / (double)((UINT64_C(1) << a->b) - 1);
    st->slices = 1;
    st->slice_bits = a->cells * a->b;
    /* FP(N) = 1 - (1 - fill e_b)^n over the measured fill */
    st->error_estimated = -expm1((double)a->n * log1p(-fill * foreign_match));
}

static bool shape_ok(unsigned n, unsigned b)
{
    return n >= 1 && n <= TDBF_MAX_K && (b == 8 || b == 16 || b == 32);
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 n, u32 b, u64 s (cells), u64 window; then the s cells,
 * b/8 bytes each, little-endian, zero-padded to a multiple of 8 bytes.
 * c = s/n and the planned FP follow from (n, b, s).  Cells go through a
 * byte buffer and are read and written with the same relaxed atomics as
 * add and contains (tdbf_save still needs the handle to itself). */

enum { FPDECAY_FIELDS_BYTES = 24, CELL_CHUNK = 1024 };

static const unsigned char zero_pad[8];

static uint64_t padding_bytes(const fpdecay *a)
{
    return (8 - array_bytes(a) % 8) % 8;
}

static uint64_t fpdecay_payload_size(const tdbf *f)
{
    const fpdecay *a = f->state.impl;
    return FPDECAY_FIELDS_BYTES + array_bytes(a) + padding_bytes(a);
}

static void fpdecay_save(const tdbf *f, tdbf_out *out)
{
    const fpdecay *a = f->state.impl;
    unsigned char buf[CELL_CHUNK * 4];
    unsigned width = a->b / 8;
    tdbf_out_u32(out, a->n);
    tdbf_out_u32(out, a->b);
    tdbf_out_u64(out, a->cells);
    tdbf_out_u64(out, a->window);
    for (uint64_t first = 0; first < a->cells && out->rc == TDBF_OK; first += CELL_CHUNK) {
        size_t count = a->cells - first < CELL_CHUNK ? (size_t)(a->cells - first) : CELL_CHUNK;
        for (size_t i = 0; i < count; i++) {
            uint32_t cell = load_cell(a, first + i);
            for (unsigned j = 0; j < width; j++)
                buf[i * width + j] = (unsigned char)(cell >> (8 * j));
        }
        tdbf_out_bytes(out, buf, count * width);
    }
    tdbf_out_bytes(out, zero_pad, (size_t)padding_bytes(a));
}

/* The cells, then the padding, which must be zero. */
static int load_cells(fpdecay *a, tdbf_in *in)
{
    unsigned char buf[CELL_CHUNK * 4];
    unsigned width = a->b / 8;
    for (uint64_t first = 0; first < a->cells; first += CELL_CHUNK) {
        size_t count = a->cells - first < CELL_CHUNK ? (size_t)(a->cells - first) : CELL_CHUNK;
        if (tdbf_in_bytes(in, buf, count * width) != TDBF_OK)
            return in->rc;
        for (size_t i = 0; i < count; i++) {
            uint32_t cell = 0;
            for (unsigned j = 0; j < width; j++)
                cell |= (uint32_t)buf[i * width + j] << (8 * j);
            store_cell(a, first + i, cell);
        }
    }
    unsigned char pad[8];
    if (tdbf_in_bytes(in, pad, (size_t)padding_bytes(a)) != TDBF_OK)
        return in->rc;
    return memcmp(pad, zero_pad, (size_t)padding_bytes(a)) == 0 ? TDBF_OK : TDBF_ECORRUPT;
}

static int fpdecay_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    fpdecay h = {0};
    uint64_t cells;
    tdbf_in_u32(in, &h.n);
    tdbf_in_u32(in, &h.b);
    tdbf_in_u64(in, &cells);
    if (tdbf_in_u64(in, &h.window) != TDBF_OK)
        return in->rc;
    /* As the planner sizes it: n segments of c >= 1 cells, s b <= 2^52. */
    if (!shape_ok(h.n, h.b) || cells < h.n || cells % h.n != 0 ||
        cells > (UINT64_C(1) << 52) / h.b || h.window == 0)
        return TDBF_ECORRUPT;
    h.cells = cells;
    h.segment = cells / h.n;
    /* plan_decay.c's full-array FP, 1 - (1 - e_b)^n */
    h.fp_planned = full_fp(h.n, h.b);
    if (in->remaining != array_bytes(&h) + padding_bytes(&h))
        return TDBF_ECORRUPT;
    if (!tdbf_fits((double)array_bytes(&h), max_memory))
        return TDBF_ETOOBIG;

    fpdecay *a = tdbf_mem_calloc(f, 1, sizeof *a);
    if (!a)
        return TDBF_ENOMEM;
    *a = h;
    a->cell.any = tdbf_mem_calloc_aligned(f, array_bytes(a));
    int rc = a->cell.any ? load_cells(a, in) : TDBF_ENOMEM;
    if (rc != TDBF_OK) {
        fpdecay_close_state(f, a);
        return rc;
    }
    f->state.impl = a;
    f->state.error_planned = a->fp_planned;
    return TDBF_OK;
}

const tdbf_ops tdbf_fpdecay_ops = {
    .plan = fpdecay_plan,
    .open = fpdecay_open,
    .close = fpdecay_close,
    .add = fpdecay_add,
    .contains = fpdecay_contains,
    .stats = fpdecay_stats,
    .shape = fpdecay_shape,
    .prefetch = fpdecay_prefetch,
    .payload_size = fpdecay_payload_size,
    .save = fpdecay_save,
    .load = fpdecay_load,
    .concurrent = true,
};

/* ---- the formulas (tdbf.h section 12; the planner is plan_decay.c) ---- */

double tdbf_fpdecay_survival(uint64_t cells, unsigned n, unsigned b, uint64_t t)
{
    if (!shape_ok(n, b) || cells < n)
        return -1.0;
    uint64_t segment = cells / n;
    double escaped;   /* q(t): our cell outlived t later keys */
    if (t == 0)
        escaped = 1.0;
    else if (segment == 1)
        escaped = 0.0;
    else
        escaped = exp((double)t * log1p(-1.0 / (double)segment));
    /* 1 - ((1 - q)(1 - e_b))^n */
    return 1.0 - pow((1.0 - escaped) * (1.0 - foreign_match_rate(b)), (double)n);
}

int tdbf_fpdecay_size(uint64_t window, unsigned n, unsigned b, double survival,
                      uint64_t *cells)
{
    if (!cells)
        return TDBF_EINVAL;
    if (!shape_ok(n, b) || !(survival > 0.0 && survival < 1.0))
        return TDBF_EPARAM;
    if (window == 0)
        return TDBF_EWINDOW;
    /* phi(w) >= S  <=>  q(w) >= q* = 1 - (1 - S)^(1/n) / (1 - e_b)
     *              <=>  c >= 1 / (1 - q*^(1/w)) */
    double q_star = 1.0 - pow(1.0 - survival, 1.0 / n) / (1.0 - foreign_match_rate(b));
    double segment = q_star > 0.0 ? ceil(-1.0 / expm1(log(q_star) / (double)window)) : 1.0;
    double max_segment = ldexp(1.0, 52) / ((double)n * (double)b);
    if (!(segment <= max_segment))
        return TDBF_ETOOBIG;
    /* The closed form is exact up to rounding: settle the last cell. */
    uint64_t c = (uint64_t)segment;
    while (c > 1 && tdbf_fpdecay_survival((c - 1) * n, n, b, window) >= survival)
        c--;
    while (tdbf_fpdecay_survival(c * n, n, b, window) < survival)
        if ((double)++c > max_segment)
            return TDBF_ETOOBIG;
    *cells = c * n;
    return TDBF_OK;
}
