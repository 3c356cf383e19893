/*
 * infer_eval.c — the penalty experiment of Dautrich & Ravishankar
 * (paper 002, section 5), as a library call for `tdbf eval` and tests.
 *
 * Protocol (section 5.1).  A stream draws items from U = {0 .. |U|-1}:
 * uniformly (section 5.2, p_x = 1/|U|) or by a Zipf law, item x having
 * rank x + 1 and p_x = 1/((x+1) H_|U|) (section 5.3.1).  All timers start
 * expired; `warmup` items are inserted without queries; then for each of
 * `queries` items x: draw $FP and $FN independently and uniformly from
 * [1, 10), query x, charge the answer against the truth I_x < w (I_x from
 * the exact position of x's previous occurrence; an item not seen yet is
 * outside), then insert x whatever the answer (section 5.1.1).  The
 * standard answer is tdbf_contains; the inferential one is the
 * minimum-penalty rule of section 2.6 on tdbf_posterior with the item's
 * true p_x.  Both come from the same filter, so one pass per k serves both.
 *
 * Parameters (section 5.1.2-5.1.3).  The memory is w * bits_per_item
 * bits; bits per timer = k (at least 3); m = floor(memory / bits) cells;
 * the padding is the smallest that checks at most k timers per insert,
 * which with the timer width fixed is the BTBF planner's smallest block B
 * (tbf.c).  Every k in k_min .. k_max is tried on the same stream and the
 * same penalties, and each answer keeps the k with its least total
 * penalty, so neither depends on a parameter-selection rule.  The
 * posterior bins (20 of width 0.05) and the posterior error (eq 28) are
 * reported for the inferential answer's k.
 *
 * The APBF (tdbf_infer_evaluate_design; its posterior: infer_apbf.c).
 * Beyond the paper: the same streams, penalties and charges, with each k
 * in k_min .. k_max taking the smallest l whose k + l slices (m and g as
 * tdbf_plan_eval sizes them for w) fit w * bits_per_item bits, the most
 * memory the budget allows that k; its answers are charged against its
 * own window l g (>= w, by less than l: the posterior is about it).
 *
 * Table 3's conditions: uniform |U| = 2^16 with w = 2^16 (Pos/Neg 1.718)
 * and 2^18 (53.5); Zipf |U| = 2^16 with w = 2^11 (1.182) and 2^18 (13.45).
 * A run of the paper's size (2^20 + 2^22 steps for each of 30 k) takes
 * minutes; tests/unit/test_infer.c runs a small one.
 */
#include <math.h>
#include <string.h>

#include "core/hash.h"
#include "core/mem.h"
#include "planning/planning.h"

#define MAX_UNIVERSE (UINT64_C(1) << 28)
#define PAPER_K_MAX 30
#define BINS 20

/* One k's totals. */
typedef struct eval_pass {
    unsigned l;                 /* APBF: its l; 0 for the BTBF */
    double   penalty_standard, penalty_inferential;
    uint64_t inside, outside;
    uint64_t bin_queries[BINS];
    uint64_t bin_inside[BINS];
} eval_pass;

/* The stream: the generator state and, for Zipf, the tables. */
typedef struct eval_stream {
    const tdbf_infer_eval *cfg;
    const double *cumulative;   /* Zipf: P(item <= x) */
    const double *probability;  /* Zipf: p_x */
    uint64_t state;
} eval_stream;

/* splitmix64: a Weyl sequence (which wraps by design) through the mixer. */
TDBF_WRAPS static uint64_t next_random(uint64_t *state)
{
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return tdbf_mix64(*state);
}

/* Uniform in [0, 1) with 53 bits. */
static double next_unit(uint64_t *state)
{
    return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t next_item(eval_stream *s)
{
    if (!s->cumulative)
        return tdbf_reduce(next_random(&s->state), s->cfg->universe);
    double u = next_unit(&s->state);
    uint64_t lo = 0, hi = s->cfg->universe - 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (s->cumulative[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The item's key: its 8 bytes, little-endian on every platform. */
static void item_key(uint64_t x, unsigned char key[8])
{
    for (int i = 0; i < 8; i++)
        key[i] = (unsigned char)(x >> (8 * i));
}

/* The paper's BTBF for k (section 5.1.2). */
static int open_btbf(const tdbf_infer_eval *cfg, unsigned k, tdbf_config *fc)
{
    unsigned bits = k < 3 ? 3 : k;
    double cells = floor((double)cfg->window * cfg->bits_per_item / bits);
    if (cells < k)
        return TDBF_EINFEASIBLE;
    fc->design = TDBF_BTBF;
    fc->k = k;
    fc->timer_bits = bits;
    fc->timer_cells = (uint64_t)cells;
    return TDBF_OK;
}

/* The APBF for k: the smallest l whose k + l slices fit the memory (the
 * most slices of a generation's slack that the budget buys). */
static int open_apbf(const tdbf_infer_eval *cfg, unsigned k, tdbf_config *fc)
{
    double budget = (double)cfg->window * cfg->bits_per_item;
    /* (k + l) m > l m >= w k / ln2 for every l: no l fits. */
    if ((double)cfg->window * k / TDBF_LN2 >= budget)
        return TDBF_EINFEASIBLE;
    for (unsigned l = 1; l <= TDBF_MAX_L; l++) {
        tdbf_plan plan;
        if (tdbf_plan_eval(k, l, cfg->window, &plan) == TDBF_OK && (double)plan.bits <= budget) {
            fc->design = TDBF_APBF;
            fc->k = k;
            fc->l = l;
            return TDBF_OK;
        }
    }
    return TDBF_EINFEASIBLE;
}

/* The filter of one pass, and the window its answers are charged
 * against: w for the BTBF, the APBF's own l g (>= w, the window its
 * posterior is about). */
static int open_filter(const tdbf_infer_eval *cfg, tdbf_design design, unsigned k,
                       tdbf **f, uint64_t *window, unsigned *l)
{
    tdbf_config fc;
    tdbf_config_init(&fc);
    fc.window_items = cfg->window;
    fc.seed = tdbf_mix64(cfg->seed ^ k) | 1;
    fc.max_memory = UINT64_MAX;
    int rc = design == TDBF_APBF ? open_apbf(cfg, k, &fc) : open_btbf(cfg, k, &fc);
    if (rc == TDBF_OK)
        rc = tdbf_open(f, &fc);
    if (rc == TDBF_EPARAM || rc == TDBF_EINFEASIBLE || rc == TDBF_ETOOBIG)
        return TDBF_EINFEASIBLE;
    if (rc != TDBF_OK)
        return rc;
    tdbf_stats st;
    tdbf_get_stats(*f, &st);
    *window = design == TDBF_APBF ? st.window_items : cfg->window;
    *l = fc.l;
    return TDBF_OK;
}

static int run_pass(const tdbf_infer_eval *cfg, tdbf_design design, unsigned k,
                    eval_stream *s, uint64_t *last, eval_pass *pass)
{
    tdbf *f;
    uint64_t window;
    unsigned l;
    int rc = open_filter(cfg, design, k, &f, &window, &l);
    if (rc != TDBF_OK)
        return rc;

    tdbf_prior prior;
    tdbf_prior_init(&prior, cfg->stream, (double)cfg->universe);
    memset(pass, 0, sizeof *pass);
    pass->l = l;
    memset(last, 0, cfg->universe * sizeof *last);
    s->state = cfg->seed;
    uint64_t t = 0;
    unsigned char key[8];
    for (; t < cfg->warmup && rc >= 0; t++) {
        uint64_t x = next_item(s);
        item_key(x, key);
        rc = tdbf_add(f, key, sizeof key, 0);
        last[x] = t + 1;
    }
    for (uint64_t q = 0; q < cfg->queries && rc >= 0; q++, t++) {
        uint64_t x = next_item(s);
        double cost_fp = 1.0 + 9.0 * next_unit(&s->state);
        double cost_fn = 1.0 + 9.0 * next_unit(&s->state);
        double p;
        item_key(x, key);
        if (s->probability)
            prior.key_probability = s->probability[x];
        int standard = tdbf_contains(f, key, sizeof key, 0);
        rc = tdbf_posterior(f, key, sizeof key, 0, &prior, &p);
        if (standard < 0 || rc < 0) {
            rc = standard < 0 ? standard : rc;
            break;
        }
        int decision = cost_fp * (1.0 - p) < cost_fn * p; /* tdbf_decide's rule */
        int inside = last[x] != 0 && t - last[x] < window;
        pass->penalty_standard += standard && !inside ? cost_fp : !standard && inside ? cost_fn : 0.0;
        pass->penalty_inferential += decision && !inside ? cost_fp : !decision && inside ? cost_fn : 0.0;
        pass->inside += (uint64_t)inside;
        pass->outside += (uint64_t)!inside;
        int bin = p >= 1.0 ? BINS - 1 : (int)(p * BINS);
        pass->bin_queries[bin]++;
        pass->bin_inside[bin] += (uint64_t)inside;
        rc = tdbf_add(f, key, sizeof key, 0);
        last[x] = t + 1;
    }
    tdbf_close(f);
    return rc < 0 ? rc : TDBF_OK;
}

static int eval_ok(const tdbf_infer_eval *cfg)
{
    if (cfg->stream != TDBF_PRIOR_UNIFORM && cfg->stream != TDBF_PRIOR_POWER_LAW)
        return 0;
    if (cfg->universe < 2 || cfg->universe > MAX_UNIVERSE || cfg->window == 0 ||
        cfg->queries == 0 || !(cfg->bits_per_item > 0.0) || !isfinite(cfg->bits_per_item))
        return 0;
    if (cfg->k_min == 0 && cfg->k_max == 0)
        return 1;
    return cfg->k_min >= 1 && cfg->k_min <= cfg->k_max && cfg->k_max <= TDBF_MAX_K;
}

/* Zipf tables, or NULL for the uniform stream. */
static int zipf_tables(const tdbf_infer_eval *cfg, const tdbf_allocator *a,
                       double **cumulative, double **probability)
{
    *cumulative = *probability = NULL;
    if (cfg->stream != TDBF_PRIOR_POWER_LAW)
        return TDBF_OK;
    *cumulative = a->alloc(a->opaque, cfg->universe * sizeof **cumulative);
    *probability = a->alloc(a->opaque, cfg->universe * sizeof **probability);
    if (!*cumulative || !*probability)
        return TDBF_ENOMEM;
    tdbf_prior prior;
    tdbf_prior_init(&prior, TDBF_PRIOR_POWER_LAW, (double)cfg->universe);
    double sum = 0.0;
    for (uint64_t x = 0; x < cfg->universe; x++) {
        (*probability)[x] = tdbf_prior_rank_probability(&prior, (double)(x + 1));
        sum += (*probability)[x];
        (*cumulative)[x] = sum;
    }
    return TDBF_OK;
}

static void keep_best(const eval_pass *pass, unsigned k, tdbf_infer_eval_result *out)
{
    if (out->k_standard == 0 || pass->penalty_standard < out->penalty_standard) {
        out->k_standard = k;
        out->l_standard = pass->l;
        out->penalty_standard = pass->penalty_standard;
    }
    if (out->k_inferential == 0 || pass->penalty_inferential < out->penalty_inferential) {
        double error = 0.0, total = (double)(pass->inside + pass->outside);
        out->k_inferential = k;
        out->l_inferential = pass->l;
        out->penalty_inferential = pass->penalty_inferential;
        for (int b = 0; b < BINS; b++) {
            double n = (double)pass->bin_queries[b];
            out->bin_queries[b] = pass->bin_queries[b];
            out->bin_inside[b] = n > 0 ? (double)pass->bin_inside[b] / n : 0.0;
            if (n > 0) /* eq 28 */
                error += fabs(out->bin_inside[b] - (0.05 * b + 0.025)) * n;
        }
        out->posterior_error = error / total;
    }
    out->inside = pass->inside;
    out->outside = pass->outside;
}

int tdbf_infer_evaluate_design(tdbf_design design, const tdbf_infer_eval *cfg,
                               tdbf_infer_eval_result *out)
{
    if (!cfg || !out || !eval_ok(cfg) || (design != TDBF_BTBF && design != TDBF_APBF))
        return TDBF_EINVAL;
    memset(out, 0, sizeof *out);
    unsigned k_min = cfg->k_min ? cfg->k_min : 1;
    unsigned k_max = cfg->k_max ? cfg->k_max : PAPER_K_MAX;
    const tdbf_allocator *a = tdbf_default_allocator();
    double *cumulative, *probability;
    uint64_t *last = a->alloc(a->opaque, cfg->universe * sizeof *last);
    int rc = zipf_tables(cfg, a, &cumulative, &probability);
    if (rc == TDBF_OK && !last)
        rc = TDBF_ENOMEM;
    eval_stream stream = {.cfg = cfg, .cumulative = cumulative, .probability = probability};
    for (unsigned k = k_min; k <= k_max && rc == TDBF_OK; k++) {
        eval_pass pass;
        int pass_rc = run_pass(cfg, design, k, &stream, last, &pass);
        if (pass_rc == TDBF_OK)
            keep_best(&pass, k, out);
        else if (pass_rc != TDBF_EINFEASIBLE)
            rc = pass_rc;
    }
    if (rc == TDBF_OK && out->k_standard == 0)
        rc = TDBF_EINFEASIBLE;
    a->free(a->opaque, last);
    a->free(a->opaque, cumulative);
    a->free(a->opaque, probability);
    return rc;
}

int tdbf_infer_evaluate(const tdbf_infer_eval *cfg, tdbf_infer_eval_result *out)
{
    return tdbf_infer_evaluate_design(TDBF_BTBF, cfg, out);
}
