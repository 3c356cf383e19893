/*
 * infer_eval.c — the penalty experiment of Dautrich & Ravishankar
 * (paper 002, section 5), for `tdbf eval tbf`, `eval apbf-posterior` and
 * the unit tests that check it.  It uses the library only through tdbf.h.
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
 * The APBF (cli_infer_evaluate_design; its posterior: the library's
 * model/infer_apbf.c).
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
#include "infer_eval.h"
#include "workload.h"
#include "../common/measure.h"
#include "../../lib/util/wide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ln 2, for the memory an APBF slice needs per key (m >= g k / ln 2). */
#define LN2 0.69314718055994530942

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

/* The stream: the generator state and, for Zipf, the sampler and p_x. */
typedef struct eval_stream {
    const cli_infer_eval *cfg;
    lab_zipf      zipf;         /* Zipf: ranks x + 1 */
    const double *probability;  /* Zipf: p_x; NULL: uniform */
    uint64_t state;
} eval_stream;

/* Uniform items are the generator's output scaled into [0, universe) by
 * its high bits (multiply-shift: no bias or division of x % n). */
static uint64_t next_item(eval_stream *s)
{
    if (!s->probability)
        return tdbf_reduce(cli_rng_next(&s->state), s->cfg->universe);
    return lab_zipf_next(&s->zipf, &s->state) - 1;
}

/* The paper's BTBF for k (section 5.1.2). */
static int open_btbf(const cli_infer_eval *cfg, unsigned k, tdbf_config *fc)
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
static int open_apbf(const cli_infer_eval *cfg, unsigned k, tdbf_config *fc)
{
    double budget = (double)cfg->window * cfg->bits_per_item;
    /* (k + l) m > l m >= w k / ln2 for every l: no l fits. */
    if ((double)cfg->window * k / LN2 >= budget)
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
static int open_filter(const cli_infer_eval *cfg, tdbf_design design, unsigned k,
                       tdbf **f, uint64_t *window, unsigned *l)
{
    tdbf_config fc;
    tdbf_config_init(&fc);
    fc.window_items = cfg->window;
    fc.seed = cli_mix64(cfg->seed ^ k) | 1;
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

static int run_pass(const cli_infer_eval *cfg, tdbf_design design, unsigned k,
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
        lab_key_u64(x, key);
        rc = tdbf_add(f, key, sizeof key, 0);
        last[x] = t + 1;
    }
    for (uint64_t q = 0; q < cfg->queries && rc >= 0; q++, t++) {
        uint64_t x = next_item(s);
        double cost_fp = 1.0 + 9.0 * lab_uniform(&s->state);
        double cost_fn = 1.0 + 9.0 * lab_uniform(&s->state);
        double p;
        lab_key_u64(x, key);
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

static int eval_ok(const cli_infer_eval *cfg)
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

/* The Zipf stream's p_x, or NULL for the uniform stream. */
static int zipf_probabilities(const cli_infer_eval *cfg, double **probability)
{
    *probability = NULL;
    if (cfg->stream != TDBF_PRIOR_POWER_LAW)
        return TDBF_OK;
    *probability = malloc(cfg->universe * sizeof **probability);
    if (!*probability)
        return TDBF_ENOMEM;
    tdbf_prior prior;
    tdbf_prior_init(&prior, TDBF_PRIOR_POWER_LAW, (double)cfg->universe);
    for (uint64_t x = 0; x < cfg->universe; x++)
        (*probability)[x] = tdbf_prior_rank_probability(&prior, (double)(x + 1));
    return TDBF_OK;
}

static void keep_best(const eval_pass *pass, unsigned k, cli_infer_eval_result *out)
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

int cli_infer_evaluate_design(tdbf_design design, const cli_infer_eval *cfg,
                               cli_infer_eval_result *out)
{
    if (!cfg || !out || !eval_ok(cfg) || (design != TDBF_BTBF && design != TDBF_APBF))
        return TDBF_EINVAL;
    memset(out, 0, sizeof *out);
    unsigned k_min = cfg->k_min ? cfg->k_min : 1;
    unsigned k_max = cfg->k_max ? cfg->k_max : PAPER_K_MAX;
    double *probability;
    uint64_t *last = malloc(cfg->universe * sizeof *last);
    int rc = zipf_probabilities(cfg, &probability);
    if (rc == TDBF_OK && !last)
        rc = TDBF_ENOMEM;
    eval_stream stream = {.cfg = cfg, .probability = probability};
    lab_zipf_init(&stream.zipf, cfg->universe, 1.0);  /* the power law: s = 1 */
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
    free(last);
    free(probability);
    return rc;
}

int cli_infer_evaluate(const cli_infer_eval *cfg, cli_infer_eval_result *out)
{
    return cli_infer_evaluate_design(TDBF_BTBF, cfg, out);
}
