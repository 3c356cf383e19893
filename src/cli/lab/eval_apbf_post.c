/*
 * eval_apbf_post.c — `tdbf eval apbf-posterior`: the posterior of the
 * APBF (docs/apbf_posterior.md) measured as paper 002 section 5 measures
 * the BTBF's, through cli_infer_evaluate_design: penalty ratio
 * standard/inferential and posterior error (eq 28, 20 bins), beside the
 * BTBF on the same stream, penalties and memory.
 */
#define _POSIX_C_SOURCE 200809L

#include "eval.h"
#include "infer_eval.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <tdbf_model.h>

typedef struct post_stream {
    const char      *name;      /* CSV and table */
    tdbf_prior_model model;
    unsigned         universe_log2, window_log2;
} post_stream;

/* Paper 002's [Pos ~ Neg] streams (Table 3), as `tdbf eval tbf`. */
static const post_stream post_streams[] = {
    {"uniform",   TDBF_PRIOR_UNIFORM,   16, 16},
    {"power_law", TDBF_PRIOR_POWER_LAW, 16, 11},
};

static const double post_bits_per_item[] = {2.0, 4.0, 8.0, 16.0};

#define POST_STREAMS (sizeof post_streams / sizeof post_streams[0])
#define POST_POINTS  (sizeof post_bits_per_item / sizeof post_bits_per_item[0])

/* One point: the APBF and the BTBF, each answer with its best k. */
typedef struct post_point {
    cli_infer_eval_result apbf, btbf;
    tdbf_plan plan;             /* the APBF of apbf.k_inferential */
} post_point;

static int post_run_point(const post_stream *s, double bpi, const cli_infer_eval *sizes,
                          post_point *out)
{
    cli_infer_eval cfg = *sizes;
    cfg.stream = s->model;
    cfg.universe = UINT64_C(1) << s->universe_log2;
    cfg.window = UINT64_C(1) << s->window_log2;
    cfg.bits_per_item = bpi;
    int rc = cli_infer_evaluate_design(TDBF_APBF, &cfg, &out->apbf);
    if (rc == TDBF_OK)
        rc = cli_infer_evaluate_design(TDBF_BTBF, &cfg, &out->btbf);
    if (rc == TDBF_OK)
        rc = tdbf_plan_eval(out->apbf.k_inferential, out->apbf.l_inferential, cfg.window,
                            &out->plan);
    return rc;
}

static double ratio(double num, double den)
{
    return den > 0.0 ? num / den : NAN;
}

static void post_row(cli_table *t, eval_csv *csv, const post_stream *s, double bpi,
                     const cli_infer_eval *sizes, const post_point *pt)
{
    const cli_infer_eval_result *a = &pt->apbf, *b = &pt->btbf;
    double apbf_ratio = ratio(a->penalty_standard, a->penalty_inferential);
    double btbf_ratio = ratio(b->penalty_standard, b->penalty_inferential);
    double pos_neg = ratio((double)a->inside, (double)a->outside);
    cli_table_cell(t, "%s", s->name);
    cli_table_cell(t, "2^%u", s->window_log2);
    cli_table_cell(t, "%g", bpi);
    cli_table_cell(t, "%u,%u", a->k_standard, a->l_standard);
    cli_table_cell(t, "%u,%u", a->k_inferential, a->l_inferential);
    cli_table_cell(t, "%.2f", pt->plan.bits_per_item);
    cli_table_cell(t, "%.3f", apbf_ratio);
    cli_table_cell(t, "%.4f", a->posterior_error);
    cli_table_cell(t, "%u", b->k_inferential);
    cli_table_cell(t, "%.3f", btbf_ratio);
    cli_table_cell(t, "%.4f", b->posterior_error);
    cli_table_cell(t, "%.3f", ratio(a->penalty_inferential, b->penalty_inferential));
    cli_table_cell(t, "%.3f", pos_neg);
    csv_line(csv, "%s,%llu,%llu,%g,%llu,%llu,%u,%u,%u,%u,%u,%llu,%.6g,%.10g,%.10g,"
             "%.10g,%.10g,%u,%u,%.10g,%.10g,%.10g,%.10g,%.10g",
             s->name, 1ULL << s->universe_log2, 1ULL << s->window_log2, bpi,
             (unsigned long long)sizes->warmup, (unsigned long long)sizes->queries,
             sizes->k_max, a->k_standard, a->l_standard, a->k_inferential,
             a->l_inferential, (unsigned long long)pt->plan.window,
             pt->plan.bits_per_item, a->penalty_standard, a->penalty_inferential,
             apbf_ratio, a->posterior_error, b->k_standard, b->k_inferential,
             b->penalty_standard, b->penalty_inferential, btbf_ratio,
             b->posterior_error, pos_neg);
}

static int run_apbf_posterior(const char *cmd, const eval_request *req, eval_csv *csv)
{
    /* The paper's sizes, k in 1..30 (the APBF's k is bounded by the memory:
     * more than w k / ln2 bits, so k <= 11 at 16 bits per item). */
    cli_infer_eval sizes = {.k_min = 1, .k_max = 30, .warmup = UINT64_C(1) << 20,
                             .queries = UINT64_C(1) << 22, .seed = req->seed};
    if (req->quick) {
        sizes.warmup = UINT64_C(1) << 17;
        sizes.queries = UINT64_C(1) << 15;
        sizes.k_max = 8;
    }
    int progress = isatty(STDERR_FILENO);
    uint64_t started = cli_now_ns();
    cli_table t;
    cli_table_init(&t, 13, "lrrrrrrrrrrrr");
    static const char *const headers[] = {
        "stream", "w", "bits/item", "APBF k,l std", "k,l inf", "bits used",
        "std/inf", "post_error", "BTBF k inf", "std/inf", "post_error",
        "inf APBF/BTBF", "pos/neg"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "stream,universe,window,bits_per_item,warmup,queries,k_max,"
             "apbf_k_standard,apbf_l_standard,apbf_k_inferential,apbf_l_inferential,"
             "apbf_window,apbf_bits_per_item,apbf_penalty_standard,"
             "apbf_penalty_inferential,apbf_standard_over_inferential,"
             "apbf_posterior_error,btbf_k_standard,btbf_k_inferential,"
             "btbf_penalty_standard,btbf_penalty_inferential,"
             "btbf_standard_over_inferential,btbf_posterior_error,pos_neg");

    double worst[POST_STREAMS][2] = {{0}};
    for (size_t si = 0; si < POST_STREAMS; si++) {
        for (size_t pi = 0; pi < POST_POINTS; pi++) {
            const post_stream *s = &post_streams[si];
            double bpi = post_bits_per_item[pi];
            post_point pt;
            lab_progress(progress, "eval", si * POST_POINTS + pi + 1, POST_STREAMS * POST_POINTS,
                          "%s, %g bits/item", s->name, bpi);
            int rc = post_run_point(s, bpi, &sizes, &pt);
            if (rc != TDBF_OK) {
                char what[64];
                lab_progress_end(progress);
                snprintf(what, sizeof what, "%s stream, %g bits/item", s->name, bpi);
                cli_table_free(&t);
                return cli_lib_error(cmd, what, rc);
            }
            post_row(&t, csv, s, bpi, &sizes, &pt);
            worst[si][0] = fmax(worst[si][0], pt.apbf.posterior_error);
            worst[si][1] = fmax(worst[si][1], pt.btbf.posterior_error);
        }
    }
    lab_progress_end(progress);

    char took[32];
    cli_format_duration_ns(took, sizeof took, cli_now_ns() - started);
    printf("APBF posterior (docs/apbf_posterior.md) in paper 002's penalty experiment "
           "(cli_infer_evaluate_design), |U| = 2^16:\n");
    if (req->quick)
        printf("QUICK RUN (--quick): %llu warm-up inserts, %llu queries, k in 1..%u "
               "-- the full run uses\n2^20, 2^22 and 1..30; numbers are noisier.\n",
               (unsigned long long)sizes.warmup, (unsigned long long)sizes.queries,
               sizes.k_max);
    else
        printf("full size: 2^20 warm-up inserts, 2^22 queries, k in 1..30.\n");
    printf("\n");
    if (lab_print_table(&t, cmd, 1) != 0)
        return CLI_EXIT_DATA;
    printf("\nAPBF: k,l std / k,l inf = the standard and the minimum-penalty answers' best "
           "k, each with\nthe smallest l that fits the memory; bits used = that filter's "
           "bits per item of w; its\nanswers are charged against its own window l g (>= w). "
           "BTBF: tdbf eval tbf's filter on the\nsame stream and penalties. std/inf = "
           "total penalty of the standard answers over the\nminimum-penalty ones; "
           "post_error = eq 28 (20 bins) at the inferential k; inf APBF/BTBF =\nthe "
           "APBF's minimum-penalty total over the BTBF's (above 1: the APBF pays more).\n\n");
    printf("Worst posterior error: uniform APBF %.4f (BTBF %.4f), power law APBF %.4f "
           "(BTBF %.4f).\nTook %s.\n", worst[0][0], worst[0][1], worst[1][0],
           worst[1][1], took);
    return CLI_EXIT_OK;
}

const eval_experiment eval_apbf_posterior = {
    "apbf-posterior", "APBF posterior (beyond the papers): penalty ratio, posterior "
    "error beside the BTBF", run_apbf_posterior
};
