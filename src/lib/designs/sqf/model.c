/*
 * model.c — the sliding quotient filter's false-positive model and its
 * planner (sqf_core.c is the filter, and its essay the mechanics).
 *
 * The worst moment is the end of a generation: a bin then holds the
 * entries of 8 generations (ages 0 .. L), the most it ever answers for.
 * A query of a never-added key meets the entries of its bin and quotient,
 * each matching its r-bit remainder with chance 2^-r, and, when its bin's
 * spill mark is live and covers its quotient, the spare line of its
 * fingerprint: 8 words, one a generation, each a small Bloom filter of
 * spare_k bits.  So
 *
 *     FP = E[entries a bin holds] / (Q 2^r)
 *        + P(the query reads the spare) * P(a spare line matches).
 *
 * The bins.  Keys fall into bins at random: per generation a bin takes
 * X ~ Poisson(g / bins) keys.  A bin's occupancy is not a plain Poisson
 * count, though: it is capped at C, and the entries a full bin spills
 * live on in the spare for their remaining generations, while the bin's
 * spill mark stays live for L generations after its last spill.  These
 * depend on a bin's history, so the model simulates one bin through
 * many generations (counts per age, the expiry, the overflow rule with
 * a victim of random age: the victim is the entry of largest quotient,
 * which is independent of its age), with a fixed seed, so that a plan is
 * a pure function of its inputs (model/draw.h).
 *
 * The spare read.  A spill moves the entry of largest quotient out; m
 * spills while a mark is live have taken about the m largest quotients
 * of the C + m entries the bin saw, so the mark covers a fraction
 * m / (C + m + 1) of the quotients, plus half a quotient on average (the
 * range always covers the victim's own).  A query reads the spare with
 * the mean of that over the simulated generations.
 *
 * The spare line.  Word t of a line holds the spilled entries of the
 * generation t ago; the simulation gives their mean per bin, so per word
 * nu_t = bins * spilled_t / lines, Poisson across lines.  A word of n
 * entries matches with (1 - (1 - 1/64)^(k n))^k, and the line with
 * 1 - prod_t (1 - match_t).
 *
 * Planner.  For 64- and 128-byte bins, every r, Q and the C that fills
 * the bin, the largest mean load lambda (live entries a bin, 8 g /
 * bins) at which the Poisson bins alone stay at 90 % of the target and
 * at most 3 % of the entries overflow; the few shapes of least bin
 * memory then go through the full model at loads from there down, the
 * spare sized for the rest of the target (the least lines, over k), and
 * the least total memory wins.  The search runs once per error and bin
 * size, at a reference window; a window takes bins and spare lines in
 * proportion (tdbf_sqf_plan), so a server creating filters of many
 * windows plans each in the time of one model (~2 ms).
 * The target is error / TDBF_SQF_PLAN_MARGIN, so that filters, not
 * only the model, meet the error at the worst moment.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "designs/sqf/internal.h"
#include "model/draw.h"
#include "util/memo.h"

enum {
    SIM_WARMUP = 64,           /* generations before the simulation counts */
    SIM_GENERATIONS = 8000,    /* generations it averages over */
    MAX_ARRIVALS = 1024,       /* a bin's keys a generation the table holds */
    BEST_SHAPES = 3,           /* shapes per bin size the full model sees */
    LOAD_STEPS = 12            /* loads the full model tries a shape at */
};

#define BIN_SHARE 0.9          /* of the target, for the bins' first pass */
#define MAX_EXCESS 0.03        /* entries beyond C the first pass allows */
#define LOAD_STEP 0.96         /* from one load to the next */

/* ---- Poisson tables ------------------------------------------------------ */

typedef struct poisson_table {
    double   pmf[MAX_ARRIVALS + 1];
    double   cdf[MAX_ARRIVALS + 1];
    unsigned top;              /* beyond it the mass is below 10^-15 */
} poisson_table;

static void poisson_table_init(double mean, poisson_table *t)
{
    /* Start from the mode's neighbourhood in logs, so a large mean does
     * not underflow exp(-mean). */
    double mass = exp(-mean), sum = 0.0;
    unsigned n = 0;
    for (; n < MAX_ARRIVALS; n++) {
        if (n > 0)
            mass *= mean / (double)n;
        t->pmf[n] = mass;
        sum += mass;
        t->cdf[n] = sum;
        if (sum >= 1.0 - 1e-15 && (double)n >= mean)
            break;
    }
    t->top = n;
}

/* E[min(N, C)] for N ~ Poisson(mean). */
static double mean_capped(double mean, unsigned cap)
{
    double mass = exp(-mean), below = 0.0, total = 0.0;
    for (unsigned n = 0; n < cap; n++) {
        if (n > 0)
            mass *= mean / (double)n;
        total += (double)n * mass;
        below += mass;
    }
    return total + (double)cap * (1.0 - below);
}

/* ---- one bin, simulated -------------------------------------------------- */

typedef struct bin_history {
    double held;                   /* entries in the bin at the worst point */
    double spilled[SQF_TAGS];      /* live spilled entries, by age */
    double reads;                  /* P(a query reads the spare) */
    double spills;                 /* spills a generation */
} bin_history;

typedef struct bin_sim {
    unsigned count[SQF_TAGS];      /* entries in the bin, by age */
    unsigned spare[SQF_TAGS];      /* its entries in the spare, by age */
    unsigned since_spill;          /* generations since the last spill */
    unsigned mark_spills;          /* spills while the mark has been live */
    unsigned held;
} bin_sim;

static void sim_turn(bin_sim *b)
{
    b->held -= b->count[SQF_KEPT];   /* the expiry rule */
    for (unsigned a = SQF_KEPT; a > 0; a--) {
        b->count[a] = b->count[a - 1];
        b->spare[a] = b->spare[a - 1];
    }
    b->count[0] = 0;
    b->spare[0] = 0;
    if (b->since_spill <= SQF_KEPT)
        b->since_spill++;
}

/* The overflow rule: a victim of random age leaves for the spare. */
static void sim_spill(bin_sim *b, uint64_t *state)
{
    unsigned pick = (unsigned)(tdbf_draw_uniform(state) * b->held), a = 0;
    while (pick >= b->count[a]) {
        pick -= b->count[a];
        a++;
    }
    b->count[a]--;
    b->spare[a]++;
    b->held--;
    if (b->since_spill > SQF_KEPT)
        b->mark_spills = 0;
    b->mark_spills++;
    b->since_spill = 0;
}

static double mark_cover(const sqf_shape *s, const bin_sim *b)
{
    if (b->since_spill > SQF_KEPT)
        return 0.0;
    double m = b->mark_spills, q = s->quotients;
    double cover = (q * m / (s->slots + m + 1.0) + 0.5) / q;
    return cover < 1.0 ? cover : 1.0;
}

static void simulate_bin(const sqf_shape *s, bin_history *h)
{
    poisson_table arrivals;
    poisson_table_init((double)s->gen_items / (double)s->bins, &arrivals);
    bin_sim b;
    memset(&b, 0, sizeof b);
    b.since_spill = SQF_KEPT + 1;
    memset(h, 0, sizeof *h);
    uint64_t state = UINT64_C(0x5f0fb1115eed);
    double spills = 0.0;
    for (unsigned gen = 0; gen < SIM_WARMUP + SIM_GENERATIONS; gen++) {
        sim_turn(&b);
        unsigned x = tdbf_draw_from_cdf(arrivals.cdf, arrivals.top, &state);
        b.count[0] += x;
        b.held += x;
        unsigned spilled = 0;
        while (b.held > s->slots) {
            sim_spill(&b, &state);
            spilled++;
        }
        if (gen < SIM_WARMUP)
            continue;
        spills += spilled;
        h->held += b.held;
        for (unsigned a = 0; a < SQF_TAGS; a++)
            h->spilled[a] += b.spare[a];
        h->reads += mark_cover(s, &b);
    }
    double n = SIM_GENERATIONS;
    h->held /= n;
    for (unsigned a = 0; a < SQF_TAGS; a++)
        h->spilled[a] /= n;
    h->reads /= n;
    h->spills = spills / n;
}

/* ---- the spare ----------------------------------------------------------- */

/* P(a word of Poisson(mean) entries of k bits each matches k bits). */
static double word_match(double mean, unsigned k)
{
    poisson_table t;
    poisson_table_init(mean, &t);
    double miss = 1.0 - 1.0 / 64.0, total = 0.0;
    for (unsigned n = 0; n <= t.top; n++) {
        double fill = 1.0 - pow(miss, (double)k * n);
        total += t.pmf[n] * pow(fill, (double)k);
    }
    return total;
}

static double line_match(const sqf_shape *s, const bin_history *h)
{
    double none = 1.0;
    for (unsigned a = 0; a < SQF_TAGS; a++) {
        double mean = (double)s->bins * h->spilled[a] / (double)s->spare_lines;
        none *= 1.0 - word_match(mean, s->spare_k);
    }
    return 1.0 - none;
}

static void model_of(const sqf_shape *s, const bin_history *h, sqf_model *out)
{
    out->fp_bins = h->held / s->quotients / ldexp(1.0, (int)s->rem_bits);
    out->spare_reads = h->reads;
    out->fp_spare = h->reads * line_match(s, h);
    out->fp = out->fp_bins + out->fp_spare;
    out->spill_rate = h->spills * (double)s->bins / (double)s->gen_items;
}

void tdbf_sqf_model(const sqf_shape *s, sqf_model *out)
{
    bin_history h;
    simulate_bin(s, &h);
    model_of(s, &h, out);
}

/* ---- the planner ----------------------------------------------------------- */

static unsigned bin_bits(unsigned bin_words)
{
    return 64 * bin_words;
}

/* The most slots a bin of this size, Q and r holds (0: none). */
static unsigned slots_that_fit(unsigned bin_words, unsigned q, unsigned r)
{
    int room = (int)bin_bits(bin_words) - (int)SQF_STATE_BITS - (int)q;
    if (room <= 0)
        return 0;
    unsigned c = (unsigned)room / (r + SQF_TAG_BITS + 1);
    if (c > SQF_MAX_SLOTS)
        c = SQF_MAX_SLOTS;
    if (q + c > SQF_HEADER_BITS)
        c = q < SQF_HEADER_BITS ? SQF_HEADER_BITS - q : 0;
    return c;
}

/* The largest mean load (entries a bin at the worst point) at which the
 * Poisson bins' FP stays at `target`. */
static double load_for(unsigned q, unsigned c, unsigned r, double target)
{
    double scale = (double)q * ldexp(1.0, (int)r), lo = 0.0, hi = 2.0 * c + 8.0;
    if (mean_capped(hi, c) / scale <= target)
        return hi;
    for (int i = 0; i < 48; i++) {
        double mid = 0.5 * (lo + hi);
        if (mean_capped(mid, c) / scale <= target)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The largest mean load at which a Poisson bin's entries beyond C are
 * at most `share` of its load (more spills buy the spare's memory). */
static double load_spilling(unsigned c, double share)
{
    double lo = 0.0, hi = 2.0 * c + 8.0;
    for (int i = 0; i < 48; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid - mean_capped(mid, c) <= share * mid)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static uint64_t bins_for(const sqf_shape *s, double load)
{
    double live = (double)s->gen_items * SQF_TAGS;
    double bins = ceil(live / load);
    return bins < 1.0 ? 1 : (uint64_t)bins;
}

/* The least spare lines that keep the spare's FP at `budget` with k bits
 * an entry (0: none within `most`). */
static uint64_t spare_lines_for(sqf_shape *s, const bin_history *h, unsigned k, double budget)
{
    uint64_t lo = 1, hi = s->bins * s->bin_words / SQF_TAGS + 1;
    s->spare_k = k;
    s->spare_lines = hi;
    if (h->reads * line_match(s, h) > budget)
        return 0;
    while (lo < hi) {
        s->spare_lines = lo + (hi - lo) / 2;
        if (h->reads * line_match(s, h) <= budget)
            hi = s->spare_lines;
        else
            lo = s->spare_lines + 1;
    }
    return lo;
}

/* The least spare (lines, over spare_k) that keeps the spare's FP at
 * `budget`; false when none does within the memory of the bins.  A word
 * of a line matches with about budget / (8 reads), and a Bloom filter's
 * best k is about log2 of its inverse: the search tries k around it. */
static bool size_spare(sqf_shape *s, const bin_history *h, double budget)
{
    double word = h->reads > 0.0 ? budget / (SQF_TAGS * h->reads) : 0.5;
    int centre = word < 0.5 ? (int)lround(-log2(word)) : 1;
    uint64_t best_lines = 0;
    unsigned best_k = 0;
    for (int k = centre - 2; k <= centre + 2; k++) {
        if (k < 1 || k > (int)SQF_MAX_SPARE_K)
            continue;
        uint64_t lines = spare_lines_for(s, h, (unsigned)k, budget);
        if (lines && (best_k == 0 || lines < best_lines)) {
            best_lines = lines;
            best_k = (unsigned)k;
        }
    }
    s->spare_lines = best_lines;
    s->spare_k = best_k;
    return best_k != 0;
}

/* The full model on a first-pass shape: for loads from the first pass's
 * down, the bins, then the least spare for the rest of the target; the
 * load of least total memory.  False when none fits. */
static bool finish_shape(sqf_shape *s, double load, double target)
{
    sqf_shape best;
    uint64_t best_bytes = 0;
    for (int step = 0; step < LOAD_STEPS; step++, load *= LOAD_STEP) {
        sqf_shape t = *s;
        t.bins = bins_for(&t, load);
        t.spare_lines = 1;
        if (best_bytes && tdbf_sqf_core_bytes(&t) >= best_bytes)
            break;   /* lower loads only cost more */
        bin_history h;
        simulate_bin(&t, &h);
        double bins_fp = h.held / t.quotients / ldexp(1.0, (int)t.rem_bits);
        if (bins_fp >= target || !size_spare(&t, &h, target - bins_fp))
            continue;
        if (best_bytes == 0 || tdbf_sqf_core_bytes(&t) < best_bytes) {
            best = t;
            best_bytes = tdbf_sqf_core_bytes(&t);
        }
    }
    if (best_bytes)
        *s = best;
    return best_bytes != 0;
}

typedef struct candidate {
    unsigned q, c, r;
    double   load;
    double   bytes_per_live;   /* bin bytes per live entry */
} candidate;

static void keep_best(candidate *best, const candidate *c)
{
    for (unsigned i = 0; i < BEST_SHAPES; i++) {
        if (best[i].load == 0.0 || c->bytes_per_live < best[i].bytes_per_live) {
            memmove(&best[i + 1], &best[i], (BEST_SHAPES - 1 - i) * sizeof *best);
            best[i] = *c;
            return;
        }
    }
}

/* The remainders worth trying: the bins' FP is about (lambda / Q) 2^-r,
 * and the least-memory shapes keep lambda / Q near 1. */
static void first_pass(unsigned bin_words, double target, candidate *best)
{
    int bits = (int)ceil(-log2(target));
    unsigned r_lo = bits > 5 ? (unsigned)(bits - 4) : 1;
    unsigned r_hi = bits + 6 < (int)SQF_MAX_REM_BITS ? (unsigned)(bits + 6) : SQF_MAX_REM_BITS;
    for (unsigned r = r_lo; r <= r_hi; r++) {
        for (unsigned q = 2; q <= SQF_MAX_QUOTIENTS; q++) {
            unsigned c = slots_that_fit(bin_words, q, r);
            if (c < 2)
                continue;
            double load = load_for(q, c, r, BIN_SHARE * target);
            double most = load_spilling(c, MAX_EXCESS);
            candidate cand = { q, c, r, load < most ? load : most, 0.0 };
            if (cand.load < 0.5)
                continue;
            cand.bytes_per_live = 8.0 * bin_words / cand.load;
            keep_best(best, &cand);
        }
    }
}

/* A plan scales with the window: the model sees a bin only through its
 * keys a generation, g / bins, and the spare through its entries a line,
 * so the search runs once per error and bin size, at a reference window
 * of REF_GEN adds a generation, and a window of g adds a generation takes
 * its bins and spare lines in proportion, rounded up: no more keys a bin
 * and no more spilled entries a line than the reference, so no more FP
 * than it. */
enum { REF_GEN = 1 << 16 };

typedef struct plan_question {
    double   error;
    unsigned bin_words;
} plan_question;

typedef struct plan_record {
    plan_question question;
    int           rc;
    sqf_shape     shape;      /* at the reference window */
} plan_record;

static int plan_search(const plan_question *pq, sqf_shape *out)
{
    double target = pq->error / TDBF_SQF_PLAN_MARGIN;
    uint64_t best_bytes = 0;
    for (unsigned bw = 8; bw <= 16; bw += 8) {
        if (pq->bin_words != 0 && bw != pq->bin_words)
            continue;
        candidate best[BEST_SHAPES + 1];
        memset(best, 0, sizeof best);
        first_pass(bw, target, best);
        for (unsigned i = 0; i < BEST_SHAPES && best[i].load > 0.0; i++) {
            sqf_shape s;
            memset(&s, 0, sizeof s);
            s.window = (uint64_t)REF_GEN * SQF_KEPT;
            s.gen_items = REF_GEN;
            s.bin_words = bw;
            s.quotients = best[i].q;
            s.slots = best[i].c;
            s.rem_bits = best[i].r;
            if (!finish_shape(&s, best[i].load, target) || tdbf_sqf_shape_check(&s) != 0)
                continue;
            uint64_t bytes = tdbf_sqf_core_bytes(&s);
            if (best_bytes == 0 || bytes < best_bytes) {
                best_bytes = bytes;
                *out = s;
            }
        }
    }
    return best_bytes ? 0 : -1;
}

/* ceil(count * gen / REF_GEN), at least 1. */
static uint64_t in_proportion(uint64_t count, uint64_t gen)
{
    uint64_t whole = gen / REF_GEN, part = gen % REF_GEN;
    uint64_t n = count * whole + (count * part + REF_GEN - 1) / REF_GEN;
    return n ? n : 1;
}

int tdbf_sqf_plan(uint64_t window, double error, unsigned bin_words, sqf_shape *out,
                  double *fp)
{
    static _Thread_local TDBF_MEMO(plan_record, 8) memo;
    if (window > SQF_MAX_WINDOW)
        return TDBF_ETOOBIG;
    plan_question pq;
    memset(&pq, 0, sizeof pq);
    pq.error = error;
    pq.bin_words = bin_words;
    plan_record *rec = TDBF_MEMO_FIND(&memo, &pq);
    if (!rec) {
        rec = TDBF_MEMO_TAKE(&memo, &pq);
        rec->rc = plan_search(&pq, &rec->shape);
    }
    if (rec->rc != 0 || window == 0)
        return TDBF_EINFEASIBLE;
    *out = rec->shape;
    out->window = window;
    out->gen_items = window / SQF_KEPT + (window % SQF_KEPT != 0);
    out->bins = in_proportion(rec->shape.bins, out->gen_items);
    out->spare_lines = in_proportion(rec->shape.spare_lines, out->gen_items);
    sqf_model m;
    tdbf_sqf_model(out, &m);
    *fp = m.fp;
    return TDBF_OK;
}
