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
 * spare_k bits.  So, with the bin's and the spare's matches independent,
 *
 *     FP = B + S (1 - B),   B = E[entries a bin holds] / (Q 2^r),
 *     S = E[entries a bin has spilled] / (Q 2^r)
 *       + P(the query reads the spare) * P(a spare line matches).
 *
 * The second term of S is the query that has the very fingerprint of an
 * entry its bin spilled: the spare holds it for sure (the mark covers every
 * spilled entry while it lives), about a fifth of S at 0.01.
 *
 * The bins.  Keys fall into bins at random: per generation a bin takes
 * X ~ Poisson(g / bins) keys.  What a bin holds, spills and marks depends
 * on its history, so the model simulates one bin through many generations
 * with the core's own rules: entries with their quotient and generation,
 * the expiry at each turn, test-and-set (a key meeting an entry of its
 * quotient with the same remainder, chance (entries of q) / 2^r, refreshes
 * it: several per cent of the adds at 0.1), the overflow rule (the entry of
 * largest q, the oldest on ties, leaves; the mark widens to cover its q,
 * restarting after it expired).  It averages over the end of every
 * generation: B from the entries held, S's first term from the spilled
 * entries by age, P(read) from the mark's cover.  The draws use a fixed
 * seed (model/draw.h), so a plan is a pure function of its inputs.  A
 * shape's model averages 256000 generations: the spare's FP goes as about
 * the k-th power of its fill, and 8000 left the spills a few per cent off
 * (that was +-30 % on S); the planner's search uses 32000, then sizes the
 * spare of its choice again on the long run (settle_shape).
 *
 * The spare line.  Word t of a line holds the spilled entries of the
 * generation t ago; the simulation gives their mean per bin, so per word
 * nu_t = bins * spilled_t / lines, Poisson across lines and independent
 * across words.  An entry sets k bit positions drawn with repetition (the
 * core's spare_mask), so a query's mask has d <= k distinct bits; a word
 * of N entries has all d set with, by inclusion-exclusion over the bits
 * left clear, sum_j (-1)^j C(d, j) (1 - j/64)^(k N), whose Poisson mean
 * is sum_j (-1)^j C(d, j) exp(nu_t ((1 - j/64)^k - 1)).  The line matches
 * with E_d[1 - prod_t (1 - match_t(d))]: the words share the mask.
 *
 * Measured (tdbf eval sqf-model: 4 windows of distinct keys, stopped one
 * add before a generation's last, windows 10^4 .. 10^7, errors 0.1 ..
 * 10^-5, both bin sizes; docs/results.md) the filters are at 0.95 .. 1.09
 * of the model, 0.97 .. 1.04 from a window of 10^6 on.  The model this
 * one replaced (a Poisson count per age, a victim of random age, a mark
 * covering m / (C + m + 1) of the quotients, word fills to the k-th
 * power) was 11-13 % high at 0.1 and up to 10 % off elsewhere, and its
 * parts further: the spare's reads up to 2.9x high, its line matches up
 * to 1.5x low.
 *
 * Planner.  For 64- and 128-byte bins, every r, Q and the C that fills
 * the bin, the largest mean load lambda (live entries a bin, 8 g /
 * bins) at which the Poisson bins alone stay at 90 % of the target and
 * at most 3 % of the entries overflow; the few shapes of least bin
 * memory then go through the full model at loads from there down, the
 * spare sized for the rest of the target (the least lines, over
 * spare_k), and the least total memory wins.  The target is error /
 * TDBF_SQF_PLAN_MARGIN, so that filters, not only the model, meet the
 * error at the worst moment.  The search runs once per error and bin
 * size at a reference window (~0.25 s, kept per thread); a window takes
 * the reference's bins in proportion, rounded up, and a spare sized for
 * its own bins (plan_bins), in ~50 ms: a server creating filters of many
 * windows does not search again.  A filter's reported FP
 * (tdbf_sqf_model, at the first open and load of a shape) is its own
 * shape's long simulation; both are kept per thread.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "designs/sqf/internal.h"
#include "model/draw.h"
#include "util/memo.h"

enum {
    SIM_WARMUP = 64,           /* generations before the simulation counts */
    SIM_SEARCH = 32000,        /* generations the planner's search averages */
    SIM_FINAL = 256000,        /* generations a shape's model averages */
    MAX_ARRIVALS = 1024,       /* a bin's keys a generation the table holds */
    BEST_SHAPES = 3,           /* shapes per bin size the full model sees */
    LOAD_STEPS = 12            /* loads the full model tries a shape at */
};

#define BIN_SHARE 0.9          /* of the target, for the bins' first pass */
#define MAX_EXCESS 0.03        /* entries beyond C the first pass allows */
#define LOAD_STEP 0.96         /* from one load to the next */
#define SPARE_Z 2.0            /* deviations of the spare's load it is sized for */

/* ---- Poisson tables ------------------------------------------------------ */

typedef struct poisson_table {
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
    double spilled_var;            /* the variance of their sum */
    double reads;                  /* P(a query reads the spare) */
    double spills;                 /* spills a generation */
} bin_history;

/* A bin's entries as the core holds them, oldest first: quotient and the
 * generation of the entry's last add (remainders are drawn only when a
 * key meets its quotient: see sim_add); and its spill mark. */
typedef struct bin_sim {
    unsigned gen;                  /* the current generation */
    unsigned n;
    uint8_t  q[SQF_MAX_SLOTS + 1];
    unsigned born[SQF_MAX_SLOTS + 1];
    unsigned per_q[SQF_MAX_QUOTIENTS + 1];   /* entries of each quotient */
    unsigned spare[SQF_TAGS];      /* its entries in the spare, by age */
    unsigned since_spill;          /* generations since the last spill */
    unsigned spill;                /* top quotients the mark covers */
} bin_sim;

static void sim_remove(bin_sim *b, unsigned i)
{
    b->per_q[b->q[i]]--;
    b->n--;
    memmove(&b->q[i], &b->q[i + 1], b->n - i);
    memmove(&b->born[i], &b->born[i + 1], (b->n - i) * sizeof b->born[0]);
}

static void sim_append(bin_sim *b, unsigned q)
{
    b->q[b->n] = (uint8_t)q;
    b->born[b->n] = b->gen;
    b->per_q[q]++;
    b->n++;
}

/* The expiry rule at a turn: the entries past age L (the oldest, at the
 * front) go; the spare's words move on with them. */
static void sim_turn(bin_sim *b)
{
    b->gen++;
    unsigned expired = 0;
    while (expired < b->n && b->gen - b->born[expired] > SQF_KEPT)
        b->per_q[b->q[expired++]]--;
    b->n -= expired;
    memmove(b->q, b->q + expired, b->n);
    memmove(b->born, b->born + expired, b->n * sizeof b->born[0]);
    for (unsigned a = SQF_KEPT; a > 0; a--)
        b->spare[a] = b->spare[a - 1];
    b->spare[0] = 0;
    if (b->since_spill <= SQF_KEPT)
        b->since_spill++;
}

/* The overflow rule, as the core applies it: the entry of largest q
 * (the oldest on ties) leaves for the spare and the mark widens over its
 * quotient (restarting from none when it had expired). */
static void sim_spill(const sqf_shape *s, bin_sim *b)
{
    unsigned v = 0;
    for (unsigned i = 1; i < b->n; i++)
        if (b->q[i] > b->q[v])   /* the first of equals is the oldest */
            v = i;
    b->spare[b->gen - b->born[v]]++;
    if (b->since_spill > SQF_KEPT)
        b->spill = 0;
    if (s->quotients - b->q[v] > b->spill)
        b->spill = s->quotients - b->q[v];
    b->since_spill = 0;
    sim_remove(b, v);
}

/* One add of a key with a fresh fingerprint; 1 when it spills.  Test-and-
 * set: the bin's entries of one quotient have distinct remainders, so the
 * key meets one of the per_q[q] with chance per_q[q] / 2^r and refreshes
 * it instead of adding an entry (at 0.1 that merges several per cent of
 * the adds). */
static unsigned sim_add(const sqf_shape *s, bin_sim *b, uint64_t *state)
{
    unsigned q = (unsigned)(tdbf_draw_uniform(state) * s->quotients);
    if (b->per_q[q] > 0) {
        double meet = tdbf_draw_uniform(state) * ldexp(1.0, (int)s->rem_bits);
        if (meet < b->per_q[q]) {
            unsigned which = (unsigned)meet, i = 0;
            for (;; i++) {
                if (b->q[i] != q)
                    continue;
                if (which == 0)
                    break;
                which--;
            }
            sim_remove(b, i);
            sim_append(b, q);
            return 0;
        }
    }
    sim_append(b, q);
    if (b->n <= s->slots)
        return 0;
    sim_spill(s, b);
    return 1;
}

/* The share of quotients whose queries read the spare. */
static double mark_cover(const sqf_shape *s, const bin_sim *b)
{
    if (b->since_spill > SQF_KEPT)
        return 0.0;
    return b->spill < s->quotients ? (double)b->spill / s->quotients : 1.0;
}

static void simulate_bin(const sqf_shape *s, unsigned generations, bin_history *h)
{
    poisson_table arrivals;
    poisson_table_init((double)s->gen_items / (double)s->bins, &arrivals);
    bin_sim b;
    memset(&b, 0, sizeof b);
    b.since_spill = SQF_KEPT + 1;
    memset(h, 0, sizeof *h);
    uint64_t state = UINT64_C(0x5f0fb1115eed);
    double spills = 0.0;
    for (unsigned gen = 0; gen < SIM_WARMUP + generations; gen++) {
        sim_turn(&b);
        unsigned x = tdbf_draw_from_cdf(arrivals.cdf, arrivals.top, &state), spilled = 0;
        for (unsigned i = 0; i < x; i++)
            spilled += sim_add(s, &b, &state);
        if (gen < SIM_WARMUP)
            continue;
        spills += spilled;
        h->held += b.n;
        double live_spilled = 0.0;
        for (unsigned a = 0; a < SQF_TAGS; a++) {
            h->spilled[a] += b.spare[a];
            live_spilled += b.spare[a];
        }
        h->spilled_var += live_spilled * live_spilled;
        h->reads += mark_cover(s, &b);
    }
    double n = generations, mean_spilled = 0.0;
    h->held /= n;
    for (unsigned a = 0; a < SQF_TAGS; a++) {
        h->spilled[a] /= n;
        mean_spilled += h->spilled[a];
    }
    h->spilled_var = h->spilled_var / n - mean_spilled * mean_spilled;
    h->reads /= n;
    h->spills = spills / n;
}

/* ---- the spare ----------------------------------------------------------- */

/* P(k draws of 64 bit positions, with replacement, hit d distinct ones),
 * d = 0 .. k: a spare mask's bits (sqf_core.c spare_mask) may repeat. */
static void distinct_bits(unsigned k, double p[SQF_MAX_SPARE_K + 1])
{
    memset(p, 0, (SQF_MAX_SPARE_K + 1) * sizeof p[0]);
    p[0] = 1.0;
    for (unsigned draw = 0; draw < k; draw++) {
        for (unsigned d = draw + 1; d > 0; d--)
            p[d] = p[d] * d / 64.0 + p[d - 1] * (64.0 - (d - 1)) / 64.0;
        p[0] = 0.0;
    }
}

/* P(d given bits of a word are all set) when the word holds Poisson(mean)
 * entries of k bits each: by inclusion-exclusion over the bits left
 * unset, sum_j (-1)^j C(d, j) E[(1 - j/64)^(k N)], and for N Poisson
 * E[x^N] = exp(mean (x - 1)). */
static double word_match(double mean, unsigned k, unsigned d)
{
    double total = 0.0, choose = 1.0;
    for (unsigned j = 0; j <= d; j++) {
        double unset = pow(1.0 - j / 64.0, (double)k);
        total += (j % 2 ? -choose : choose) * exp(mean * (unset - 1.0));
        choose = choose * (d - j) / (j + 1);
    }
    return total > 0.0 ? total : 0.0;
}

/* P(a query's mask matches one of its line's 8 words): the words' loads
 * are independent Poisson, the mask (its distinct bits) is shared. */
static double line_match(const sqf_shape *s, const bin_history *h)
{
    double distinct[SQF_MAX_SPARE_K + 1], mean[SQF_TAGS], match = 0.0;
    distinct_bits(s->spare_k, distinct);
    for (unsigned a = 0; a < SQF_TAGS; a++)
        mean[a] = (double)s->bins * h->spilled[a] / (double)s->spare_lines;
    for (unsigned d = 1; d <= s->spare_k; d++) {
        double none = 1.0;
        for (unsigned a = 0; a < SQF_TAGS; a++)
            none *= 1.0 - word_match(mean[a], s->spare_k, d);
        match += distinct[d] * (1.0 - none);
    }
    return match;
}

/* The spare's FP: a query meets a spilled entry of its own fingerprint
 * (the spare holds it for sure: its bin's mark covers it), or the line's
 * words match its mask by chance. */
static double spare_fp(const sqf_shape *s, const bin_history *h)
{
    double spilled = 0.0;
    for (unsigned a = 0; a < SQF_TAGS; a++)
        spilled += h->spilled[a];
    return spilled / s->quotients / ldexp(1.0, (int)s->rem_bits) + h->reads * line_match(s, h);
}

static void model_of(const sqf_shape *s, const bin_history *h, sqf_model *out)
{
    out->fp_bins = h->held / s->quotients / ldexp(1.0, (int)s->rem_bits);
    out->spare_reads = h->reads;
    out->fp_spare = spare_fp(s, h);
    /* a query matches in the bin or, independently, in the spare */
    out->fp = out->fp_bins + out->fp_spare * (1.0 - out->fp_bins);
    out->spill_rate = h->spills * (double)s->bins / (double)s->gen_items;
}

typedef struct history_record {
    sqf_shape   shape;         /* the question, zeroed padding included */
    bin_history history;
} history_record;

typedef TDBF_MEMO(history_record, 8) history_memo;

/* A shape's simulation of `generations`, kept per thread in `memo`. */
static void kept_history(history_memo *memo, const sqf_shape *s, unsigned generations,
                         bin_history *h)
{
    sqf_shape question;
    memset(&question, 0, sizeof question);
    question.window = s->window;
    question.gen_items = s->gen_items;
    question.bins = s->bins;
    question.bin_words = s->bin_words;
    question.quotients = s->quotients;
    question.slots = s->slots;
    question.rem_bits = s->rem_bits;   /* not the spare: the bins' history
                                          does not depend on it */
    history_record *rec = TDBF_MEMO_FIND(memo, &question);
    if (!rec) {
        rec = TDBF_MEMO_TAKE(memo, &question);
        simulate_bin(s, generations, &rec->history);
    }
    *h = rec->history;
}

/* The long simulation (SIM_FINAL generations): the planner sizes its
 * reference shapes' spare on it, and a filter's reported FP comes from it
 * (tdbf_sqf_model, at the first open or load of a shape: 40-150 ms).
 * Shorter runs miss the spills of the rarer shapes (10^-5: the model 10-15 %
 * low at 32000 generations). */
static void final_history(const sqf_shape *s, bin_history *h)
{
    static _Thread_local history_memo memo;
    kept_history(&memo, s, SIM_FINAL, h);
}

void tdbf_sqf_model(const sqf_shape *s, sqf_model *out)
{
    bin_history h;
    final_history(s, &h);
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
    if (spare_fp(s, h) > budget)
        return 0;
    while (lo < hi) {
        s->spare_lines = lo + (hi - lo) / 2;
        if (spare_fp(s, h) <= budget)
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

/* The history with the spare's load raised by SPARE_Z standard
 * deviations of a filter's total: the bins spill independently, so the
 * total's relative deviation is sd(one bin) / (mean sqrt(bins)).  A small
 * filter's spare is a few hundred entries in a few dozen lines, and its
 * FP goes as about the k-th power of their count: measured at a window
 * of 10^4, filters of one plan ranged from 0.4x to 3.4x the modelled spare
 * FP.  The spare is ~5 % of the memory, so a robust one is cheap. */
static bin_history pessimistic_spare(const sqf_shape *s, const bin_history *h)
{
    bin_history worse = *h;
    double total = 0.0;
    for (unsigned a = 0; a < SQF_TAGS; a++)
        total += h->spilled[a];
    if (total <= 0.0 || h->spilled_var <= 0.0)
        return worse;
    double raise = 1.0 + SPARE_Z * sqrt(h->spilled_var) / (total * sqrt((double)s->bins));
    for (unsigned a = 0; a < SQF_TAGS; a++)
        worse.spilled[a] *= raise;
    return worse;
}

/* Size the spare for what the bins leave of the target (the FP is
 * bins + spare (1 - bins): model_of), at a pessimistic spare load; false
 * when the bins alone miss. */
static bool fit_spare(sqf_shape *s, const bin_history *h, double target)
{
    double bins_fp = h->held / s->quotients / ldexp(1.0, (int)s->rem_bits);
    bin_history worse = pessimistic_spare(s, h);
    return bins_fp < target && size_spare(s, &worse, (target - bins_fp) / (1.0 - bins_fp));
}

/* The planner's last step: the spare of the chosen shape sized again on
 * the long simulation, whose spills the short one's draws miss by a few
 * per cent (and the spare's FP goes as about the k-th power of its
 * fill). */
static bool settle_shape(sqf_shape *s, double target)
{
    bin_history h;
    final_history(s, &h);
    return fit_spare(s, &h, target);
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
        simulate_bin(&t, SIM_SEARCH, &h);
        if (!fit_spare(&t, &h, target))
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
 * keys a generation, g / bins, so the search runs once per error and bin
 * size at a reference window of REF_GEN adds a generation, and a window
 * of g adds a generation takes the reference's bins in proportion,
 * rounded up (no more keys a bin than the reference: no more FP from the
 * bins), and a spare sized again for its own bins (fit_spare: a small
 * filter's spill count varies more). */
enum { REF_GEN = 1 << 16 };

typedef struct plan_question {
    double   error;
    unsigned bin_words;
} plan_question;

typedef struct plan_record {
    plan_question question;
    int           rc;
    sqf_shape     shape;      /* at the reference window */
    bin_history   history;    /* its long simulation */
} plan_record;

/* The shape of least memory in bins of one size (pq->bin_words 8 or 16)
 * at the reference window. */
static int plan_search(const plan_question *pq, sqf_shape *out)
{
    double target = pq->error / TDBF_SQF_PLAN_MARGIN;
    unsigned bw = pq->bin_words;
    sqf_shape chosen;
    uint64_t chosen_bytes = 0;
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
        if (chosen_bytes == 0 || bytes < chosen_bytes) {
            chosen_bytes = bytes;
            chosen = s;
        }
    }
    if (chosen_bytes == 0 || !settle_shape(&chosen, target) || tdbf_sqf_shape_check(&chosen) != 0)
        return -1;
    *out = chosen;
    return 0;
}

/* ceil(count * gen / REF_GEN), at least 1. */
static uint64_t in_proportion(uint64_t count, uint64_t gen)
{
    uint64_t whole = gen / REF_GEN, part = gen % REF_GEN;
    uint64_t n = count * whole + (count * part + REF_GEN - 1) / REF_GEN;
    return n ? n : 1;
}

/* The reference plan of one bin size scaled to a window; false when the
 * error has none.  The reference is kept per thread: a server creating
 * filters of many windows searches once per error. */
static bool plan_bins(uint64_t window, double error, unsigned bin_words, sqf_shape *out)
{
    static _Thread_local TDBF_MEMO(plan_record, 8) memo;
    plan_question pq;
    memset(&pq, 0, sizeof pq);
    pq.error = error;
    pq.bin_words = bin_words;
    plan_record *rec = TDBF_MEMO_FIND(&memo, &pq);
    if (!rec) {
        rec = TDBF_MEMO_TAKE(&memo, &pq);
        rec->rc = plan_search(&pq, &rec->shape);
        if (rec->rc == 0)
            final_history(&rec->shape, &rec->history);
    }
    if (rec->rc != 0)
        return false;
    sqf_shape s = rec->shape;
    s.window = window;
    s.gen_items = window / SQF_KEPT + (window % SQF_KEPT != 0);
    s.bins = in_proportion(rec->shape.bins, s.gen_items);
    /* A small filter's spare may need more room than its bins give it
     * (size_spare's bound): a few more bins, each step a quarter. */
    double target = error / TDBF_SQF_PLAN_MARGIN;
    for (int step = 0; step < 24; step++, s.bins += s.bins / 4 + 1) {
        if (fit_spare(&s, &rec->history, target) && tdbf_sqf_shape_check(&s) == 0) {
            *out = s;
            return true;
        }
    }
    return false;
}

/* A window's plan: the reference scaled, its spare sized, the model of
 * the result; TDBF_OK or TDBF_EINFEASIBLE. */
static int plan_window(uint64_t window, double error, unsigned bin_words, sqf_shape *out,
                       double *fp)
{
    sqf_shape small, large;
    bool have_small = bin_words != 16 && plan_bins(window, error, 8, &small);
    bool have_large = bin_words != 8 && plan_bins(window, error, 16, &large);
    if (!have_small && !have_large)
        return TDBF_EINFEASIBLE;
    bool take_small = !have_large ||
                      (have_small && tdbf_sqf_core_bytes(&small) <= tdbf_sqf_core_bytes(&large));
    *out = take_small ? small : large;
    sqf_model m;
    tdbf_sqf_model(out, &m);
    *fp = m.fp;
    return TDBF_OK;
}

typedef struct window_question {
    uint64_t window;
    double   error;
    unsigned bin_words;
} window_question;

typedef struct window_record {
    window_question question;
    int             rc;
    sqf_shape       shape;
    double          fp;
} window_record;

int tdbf_sqf_plan(uint64_t window, double error, unsigned bin_words, sqf_shape *out,
                  double *fp)
{
    /* Sizing the spare takes a few ms: a server creating many filters of
     * one window and error (a filter per user) pays it once. */
    static _Thread_local TDBF_MEMO(window_record, 8) memo;
    if (window > SQF_MAX_WINDOW)
        return TDBF_ETOOBIG;
    if (window == 0)
        return TDBF_EINFEASIBLE;
    window_question q;
    memset(&q, 0, sizeof q);
    q.window = window;
    q.error = error;
    q.bin_words = bin_words;
    window_record *rec = TDBF_MEMO_FIND(&memo, &q);
    if (!rec) {
        rec = TDBF_MEMO_TAKE(&memo, &q);
        rec->rc = plan_window(window, error, bin_words, &rec->shape, &rec->fp);
    }
    if (rec->rc != TDBF_OK)
        return rec->rc;
    *out = rec->shape;
    *fp = rec->fp;
    return TDBF_OK;
}
