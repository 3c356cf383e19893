/*
 * plan.c — APBF analytics and sizing (paper 004, sections 5.2-5.5).
 *
 * False positives.  Just before a shift, the k+l logical slices have fill
 * ratios r_0 .. r_{k+l-1}; a never-inserted key matches slice i with
 * probability r_i independently, and the query answers yes iff some k
 * consecutive slices starting at j <= l all match.  The paper's recursion
 * (section 5.3)
 *
 *     F(a, i) = 1                                       if a = k
 *             = 0                                       if i > l + a
 *             = r_i F(a+1, i+1) + (1 - r_i) F(0, i+1)   otherwise
 *
 * gives the FP rate F(0, 0).  It depends on i only through i+1, so it is
 * evaluated from the last slice backwards with one column of k+1 values.
 *
 * Fill ratios.  The paper approximates them linearly, [1/2k, 2/2k, ..,
 * k/2k, 1/2, .., 1/2] (Table 2 uses this: fp_paper).  The expected fill of
 * a slice that has received n inserts into m bits is 1 - (1 - 1/m)^n, so
 * slice i < k, which holds (i+1) generations of g = floor(m ln2/k) keys, is
 * fuller than (i+1)/2k: 1 - 2^-(i+1)/k > (i+1)/2k.  The linear model thus
 * underestimates FP by 4 % (k=9,l=14) to 22 % (k=10,l=7); the planner sizes
 * filters with the exact fills (plan.fp) and reports both.
 *
 * Accesses.  Algorithm 1 starts at slice l, counts consecutive matches c
 * walking towards older slices, and on a miss jumps k slices back keeping p
 * = c.  The paper's A(k,l,p,c,a,i) recursion (section 5.4) walks single
 * slices.  Here it is regrouped by phase: a phase starts at slice s with p
 * earlier matches; it ends either with k - p matches (answer true) or with
 * its first miss after c matches (c + 1 reads), and the next phase starts
 * at s + c - k with p = c.  With P(p, s) the probability that the query
 * ends false from there and N(p, s) the expected reads on those paths,
 *
 *     P(p, s) = 1, N(p, s) = 0                     if s < 0
 *     q_c     = r_s .. r_{s+c-1} (1 - r_{s+c})     for c < k - p
 *     P(p, s) = sum_c q_c P(c, s+c-k)
 *     N(p, s) = sum_c q_c [(c+1) P(c, s+c-k) + N(c, s+c-k)]
 *
 * and the expected reads of a negative query are N(0, l) / P(0, l), which
 * is the paper's A(k,l,0,0,0,l) / (1 - F).  Every next phase starts lower,
 * so P and N fill in order of increasing s.
 */
#include <math.h>
#include <string.h>

#include "util/mem.h"
#include "util/memo.h"
#include "model/planning.h"

/* ------------------------------------------------------------------ */
/* Fill ratios                                                          */

static void fills_paper(unsigned k, unsigned l, double *fills)
{
    for (unsigned i = 0; i < k + l; i++)
        fills[i] = i < k ? (double)(i + 1) / (2.0 * k) : 0.5;
}

static double fill_after(uint64_t inserts, uint64_t m)
{
    return -expm1((double)inserts * log1p(-1.0 / (double)m));
}

void tdbf_apbf_fills_exact(unsigned k, unsigned l, uint64_t m, uint64_t g,
                           double *fills)
{
    double full = fill_after((uint64_t)k * g, m);
    for (unsigned i = 0; i < k + l; i++)
        fills[i] = i < k ? fill_after((uint64_t)(i + 1) * g, m) : full;
}

uint64_t tdbf_apbf_generation(uint64_t m, unsigned k)
{
    return (uint64_t)floor((double)m * TDBF_LN2 / k);
}

/* ------------------------------------------------------------------ */
/* F and A recursions                                                   */

static bool valid_kl(unsigned k, unsigned l)
{
    return k >= 1 && k <= TDBF_MAX_K && l >= 1 && l <= TDBF_MAX_L;
}

/* Every fill a probability (NaN fails the comparison too). */
static bool valid_fills(unsigned k, unsigned l, const double *fills)
{
    if (!valid_kl(k, l) || !fills)
        return false;
    for (unsigned i = 0; i < k + l; i++)
        if (!(fills[i] >= 0.0 && fills[i] <= 1.0))
            return false;
    return true;
}

double tdbf_apbf_fp(unsigned k, unsigned l, const double *fills)
{
    if (!valid_fills(k, l, fills))
        return -1.0;
    /* Two columns, swapped rather than copied: copying TDBF_MAX_K + 1
     * doubles per column was 80 % of the time (k = 7, l = 45: 1.66 us,
     * now 0.30 us; TLBF's tdbf_current_error runs this). */
    double columns[2][TDBF_MAX_K + 1];
    double *next = columns[0], *cur = columns[1];
    /* Column i = k+l: past the last slice only a completed run counts. */
    for (unsigned a = 0; a <= k; a++)
        next[a] = a == k ? 1.0 : 0.0;
    for (unsigned col = k + l; col > 0; col--) {
        unsigned i = col - 1;
        double r = fills[i], miss = (1.0 - r) * next[0];
        /* a < i - l: fewer than k - a slices left past slice i */
        unsigned dead = i > l ? i - l : 0;
        cur[k] = 1.0;
        for (unsigned a = 0; a < dead; a++)
            cur[a] = 0.0;
        for (unsigned a = dead; a < k; a++)
            cur[a] = r * next[a + 1] + miss;
        double *done = cur;
        cur = next;
        next = done;
    }
    return next[0];
}

double tdbf_apbf_accesses_false(unsigned k, unsigned l, const double *fills)
{
    if (!valid_fills(k, l, fills))
        return -1.0;
    const tdbf_allocator *a = tdbf_default_allocator();
    size_t cells = (size_t)k * (l + 1);
    double *P = a->alloc(a->opaque, 2 * cells * sizeof *P);
    if (!P)
        return -1.0;
    double *N = P + cells;
#define AT(arr, p, s) (arr)[(size_t)(s) * k + (p)]
    for (unsigned s = 0; s <= l; s++) {
        for (unsigned p = 0; p < k; p++) {
            double prob = 0.0, reads = 0.0, run = 1.0;
            for (unsigned c = 0; c < k - p; c++) {
                double q = run * (1.0 - fills[s + c]);
                long next = (long)s + (long)c - (long)k;
                double pn = next < 0 ? 1.0 : AT(P, c, next);
                double nn = next < 0 ? 0.0 : AT(N, c, next);
                prob += q * pn;
                reads += q * ((double)(c + 1) * pn + nn);
                run *= fills[s + c];
            }
            AT(P, p, s) = prob;
            AT(N, p, s) = reads;
        }
    }
    double prob = AT(P, 0, l), reads = AT(N, 0, l);
#undef AT
    a->free(a->opaque, P);
    return prob > 0.0 ? reads / prob : 0.0;
}

/* ------------------------------------------------------------------ */
/* Sizing                                                               */

/* Smallest slice m whose generation floor(m ln2/k) holds g keys. */
static uint64_t slice_bits_for(uint64_t g, unsigned k)
{
    uint64_t m = (uint64_t)ceil((double)g * k / TDBF_LN2);
    while (tdbf_apbf_generation(m, k) < g)
        m++;
    return m;
}

/* Sizes only (m, g, window, bits), no recursions: cheap, for searching. */
static int plan_size(unsigned k, unsigned l, uint64_t window, tdbf_plan *out)
{
    if (!valid_kl(k, l))
        return TDBF_EPARAM;
    if (window == 0)
        return TDBF_EWINDOW;
    uint64_t g = window / l + (window % l != 0);
    /* Beyond 2^52 bits doubles lose the integer: no real filter is there. */
    if ((double)g * k / TDBF_LN2 * (k + l) > 0x1p52)
        return TDBF_ETOOBIG;
    memset(out, 0, sizeof *out);
    out->k = k;
    out->l = l;
    out->m = slice_bits_for(g, k);
    out->g = tdbf_apbf_generation(out->m, k);
    out->window = (uint64_t)l * out->g;
    out->slack = (uint64_t)k * out->g;
    out->bits = (uint64_t)(k + l) * out->m;
    out->bits_per_item = (double)out->bits / (double)window;
    return TDBF_OK;
}

static double plan_fp_exact(const tdbf_plan *p)
{
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    tdbf_apbf_fills_exact(p->k, p->l, p->m, p->g, fills);
    return tdbf_apbf_fp(p->k, p->l, fills);
}

int tdbf_plan_eval(unsigned k, unsigned l, uint64_t window, tdbf_plan *out)
{
    if (!out)
        return TDBF_EINVAL;
    int rc = plan_size(k, l, window, out);
    if (rc != TDBF_OK)
        return rc;
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    fills_paper(k, l, fills);
    out->fp_paper = tdbf_apbf_fp(k, l, fills);
    out->accesses_false = tdbf_apbf_accesses_false(k, l, fills);
    /* Section 5.5: a Bloom filter at fill 1/2 with FP f needs k_b =
     * log2(1/f) bits per item per ln2; eff = (k_b / k) * l / (k + l). */
    double k_bloom = -log2(out->fp_paper);
    out->eff = k_bloom / k * (double)l / (double)(k + l);
    /* Section 5.2: the generation missing i slices is reported with
     * probability 2^-i, i = 0..k-1, relative to the l generations. */
    double weighted = 0.0;
    for (unsigned i = 0; i < k; i++)
        weighted += ldexp(1.0, -(int)i);
    out->npws = weighted / l;
    out->fp = plan_fp_exact(out);
    return TDBF_OK;
}

/* Largest l in [1, TDBF_MAX_L] whose exact FP meets `error` for this k
 * (FP grows with l: more starting positions), or 0 if none. */
static unsigned largest_feasible_l(unsigned k, uint64_t window, double error,
                                   unsigned max_l)
{
    unsigned lo = 0, hi = max_l;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo + 1) / 2;
        tdbf_plan p;
        if (plan_size(k, mid, window, &p) == TDBF_OK && plan_fp_exact(&p) <= error)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* For one k: sizes and exact FP of the feasible l with the fewest total
 * bits (rounding of g can make a slightly smaller l cheaper for small
 * windows).  The recursions for the report are left to tdbf_plan_eval. */
static int best_for_k(unsigned k, uint64_t window, double error,
                      unsigned max_l, tdbf_plan *out)
{
    unsigned lmax = largest_feasible_l(k, window, error, max_l);
    if (lmax == 0) {
        /* Too big to size at all is not the same as too inaccurate. */
        tdbf_plan p;
        int rc = plan_size(k, 1, window, &p);
        return rc == TDBF_OK ? TDBF_EINFEASIBLE : rc;
    }
    unsigned best_l = lmax;
    uint64_t best_bits = UINT64_MAX;
    for (unsigned l = lmax; l >= 1; l--) {
        tdbf_plan p;
        if (plan_size(k, l, window, &p) == TDBF_OK && p.bits < best_bits) {
            best_bits = p.bits;
            best_l = l;
        }
    }
    int rc = plan_size(k, best_l, window, out);
    if (rc == TDBF_OK && plan_fp_exact(out) > error)
        rc = plan_size(k, lmax, window, out);
    return rc;
}

int tdbf_plan_apbf(uint64_t window, double error, tdbf_plan *best,
                   tdbf_plan *alts, size_t max_alts, size_t *n_alts)
{
    return tdbf_plan_search(window, error, TDBF_MAX_L, 0.0, best, alts, max_alts, n_alts);
}

int tdbf_plan_apbf_fast(uint64_t window, double error, double tolerance,
                        tdbf_plan *best)
{
    if (!(tolerance >= 0.0 && tolerance <= 1.0))
        return TDBF_EPARAM;
    return tdbf_plan_search(window, error, TDBF_MAX_L, tolerance, best, NULL, 0, NULL);
}

void tdbf_fast_consider(const tdbf_fast_sizer *sizer, unsigned family,
                        unsigned max_l, double limit, tdbf_fast_shape *best)
{
    for (unsigned l = 1; l <= max_l; l++) {
        uint64_t bits = sizer->bits(sizer->ctx, family, l);
        if (bits == 0 || (double)bits > limit)
            continue;
        double reads = sizer->reads(sizer->ctx, family, l);
        if (reads >= 0.0 &&
            (reads < best->reads || (reads == best->reads && bits < best->bits)))
            *best = (tdbf_fast_shape){family, l, bits, reads};
        return;
    }
}

/* APBF's families are the k. */
typedef struct apbf_target {
    uint64_t window;
    double error;
} apbf_target;

static uint64_t apbf_bits(const void *ctx, unsigned k, unsigned l)
{
    const apbf_target *t = ctx;
    tdbf_plan p;
    return plan_size(k, l, t->window, &p) == TDBF_OK ? p.bits : 0;
}

static double apbf_reads(const void *ctx, unsigned k, unsigned l)
{
    const apbf_target *t = ctx;
    tdbf_plan p;
    return tdbf_plan_eval(k, l, t->window, &p) == TDBF_OK && p.fp <= t->error
               ? p.accesses_false : -1.0;
}

/* Among plans within (1 + tolerance) of the least bits, the one whose
 * negative queries read the fewest slices: for each feasible k, its
 * smallest l under the limit (fewer slices between s_l and s_0 to walk).
 * Measured: at 10^6 keys and 0.001 the least-memory (16, 139) inserts in
 * 492 ns, (15, 73) in 255 ns for 1.4 % more bits. */
static void fastest_within(const tdbf_plan *cand, const bool *ok, unsigned last_k,
                           uint64_t window, double error, double tolerance,
                           tdbf_plan *best)
{
    apbf_target target = {window, error};
    tdbf_fast_sizer sizer = {&target, apbf_bits, apbf_reads};
    tdbf_fast_shape fast = {best->k, best->l, best->bits, best->accesses_false};
    double limit = (double)best->bits * (1.0 + tolerance);
    for (unsigned k = 1; k <= last_k; k++)
        if (ok[k])
            tdbf_fast_consider(&sizer, k, cand[k].l, limit, &fast);
    if (fast.family != best->k || fast.l != best->l)
        tdbf_plan_eval(fast.family, fast.l, window, best);
}

static int search_plans(uint64_t window, double error, unsigned max_l, double tolerance,
                        tdbf_plan *best, tdbf_plan *alts, size_t max_alts, size_t *n_alts)
{
    if (!(error > 0.0 && error < 1.0))
        return TDBF_EERROR;
    if (window == 0)
        return TDBF_EWINDOW;
    if (n_alts)
        *n_alts = 0;

    tdbf_plan cand[TDBF_MAX_K + 1];
    bool ok[TDBF_MAX_K + 1] = {false};
    unsigned best_k = 0;
    int last_rc = TDBF_EINFEASIBLE;
    for (unsigned k = 1; k <= TDBF_MAX_K; k++) {
        /* Any plan with this k needs more than k*window/ln2 bits (each of
         * the window's keys sets k bits in slices kept at most half full):
         * once that passes the best, larger k only get worse. */
        if (best_k && k > best_k + 4 &&
            (double)k * (double)window / TDBF_LN2 > (double)cand[best_k].bits * (1.0 + tolerance))
            break;
        int rc = best_for_k(k, window, error, max_l, &cand[k]);
        if (rc != TDBF_OK) {
            if (rc != TDBF_EINFEASIBLE)
                last_rc = rc;
            continue;
        }
        ok[k] = true;
        if (best_k == 0 || cand[k].bits < cand[best_k].bits)
            best_k = k;
    }
    if (best_k == 0)
        return last_rc;
    tdbf_plan_eval(best_k, cand[best_k].l, window, best);
    if (tolerance > 0.0) {
        unsigned last_k = best_k + 4 < TDBF_MAX_K ? best_k + 4 : TDBF_MAX_K;
        fastest_within(cand, ok, last_k, window, error, tolerance, best);
    }

    if (!alts || max_alts == 0)
        return TDBF_OK;
    /* The nearest other k on both sides: smaller k = fewer slices read and
     * more slack per window; larger k = lower NPWS, more reads. */
    bool taken[TDBF_MAX_K + 1] = {false};
    size_t count = 0;
    for (unsigned dist = 1; dist <= TDBF_MAX_K && count < max_alts; dist++) {
        unsigned below = best_k > dist ? best_k - dist : 0;
        unsigned above = best_k + dist;
        if (below && ok[below] && count < max_alts) {
            taken[below] = true;
            count++;
        }
        if (above <= TDBF_MAX_K && ok[above] && count < max_alts) {
            taken[above] = true;
            count++;
        }
    }
    size_t n = 0;
    for (unsigned k = 1; k <= TDBF_MAX_K; k++)
        if (taken[k])
            tdbf_plan_eval(k, cand[k].l, window, &alts[n++]);
    if (n_alts)
        *n_alts = n;
    return TDBF_OK;
}

/* The search evaluates the exact FP of ~l shapes for every k, ~0.3 ms,
 * and a server that creates an APBF or TLBF filter per key asks it the
 * same question each time: the last answers without alternatives are
 * kept per thread (util/memo.h). */
typedef struct plan_question {
    uint64_t window;
    double   error, tolerance;
    uint64_t max_l;
} plan_question;

typedef struct plan_answer {
    plan_question question;
    int           rc;
    tdbf_plan     plan;
} plan_answer;

int tdbf_plan_search(uint64_t window, double error, unsigned max_l,
                     double tolerance, tdbf_plan *best, tdbf_plan *alts,
                     size_t max_alts, size_t *n_alts)
{
    static _Thread_local TDBF_MEMO(plan_answer, 8) memo;
    if (!best || max_l == 0 || max_l > TDBF_MAX_L)
        return TDBF_EINVAL;
    if (alts && max_alts > 0)
        return search_plans(window, error, max_l, tolerance, best, alts, max_alts, n_alts);
    if (n_alts)
        *n_alts = 0;
    plan_question q;
    memset(&q, 0, sizeof q);
    q.window = window;
    q.error = error;
    q.tolerance = tolerance;
    q.max_l = max_l;
    plan_answer *a = TDBF_MEMO_FIND(&memo, &q);
    if (!a) {
        a = TDBF_MEMO_TAKE(&memo, &q);
        a->rc = search_plans(window, error, max_l, tolerance, &a->plan, NULL, 0, NULL);
    }
    if (a->rc == TDBF_OK)
        *best = a->plan;
    return a->rc;
}

double tdbf_plan_tolerance(const tdbf_config *cfg)
{
    if (cfg->plan_tolerance < 0.0)
        return 0.0;
    return cfg->plan_tolerance > 0.0 ? cfg->plan_tolerance : TDBF_DEFAULT_PLAN_TOLERANCE;
}
