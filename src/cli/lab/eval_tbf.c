/*
 * eval_tbf.c — `tdbf eval tbf`: paper 002 section 5 through
 * cli_infer_evaluate (penalty ratio, posterior error eq 28, Pos/Neg).
 */
#define _POSIX_C_SOURCE 200809L

#include "eval.h"
#include "infer_eval.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include <tdbf_model.h>

/* ---- tbf: paper 002 section 5 ---------------------------------------- */

typedef struct tbf_stream {
    const char      *name;
    tdbf_prior_model model;
    unsigned         universe_log2, window_log2;
    double           paper_pos_neg;    /* Table 3 of paper 002 */
} tbf_stream;

static const tbf_stream tbf_streams[] = {
    {"uniform",   TDBF_PRIOR_UNIFORM,   16, 16, 1.718},
    {"power law", TDBF_PRIOR_POWER_LAW, 16, 11, 1.182},
};

static const double tbf_bits_per_item[] = {2.0, 4.0, 8.0, 16.0};

#define TBF_STREAMS (sizeof tbf_streams / sizeof tbf_streams[0])
#define TBF_POINTS  (sizeof tbf_bits_per_item / sizeof tbf_bits_per_item[0])
#define TBF_K_MAX   30u   /* the paper's k range is 1 .. 30 */

/* Sizes: the paper's, or --quick's. */
typedef struct tbf_sizes {
    uint64_t warmup, queries;
    unsigned k_max;
} tbf_sizes;


/* One (stream, bits per item) point: every k in 1 .. k_max, one call per
 * k so that the progress line moves; each answer keeps its own best k, as
 * cli_infer_evaluate does over a range (strictly smaller penalty wins, so
 * the smallest such k). */
static int tbf_point(const tbf_stream *s, double bpi, const tbf_sizes *sizes,
                     uint64_t seed, int progress, size_t *step, size_t steps,
                     cli_infer_eval_result *best)
{
    int found = 0;
    memset(best, 0, sizeof *best);
    for (unsigned k = 1; k <= sizes->k_max; k++) {
        cli_infer_eval cfg = {
            .stream = s->model,
            .universe = UINT64_C(1) << s->universe_log2,
            .window = UINT64_C(1) << s->window_log2,
            .bits_per_item = bpi,
            .k_min = k,
            .k_max = k,
            .warmup = sizes->warmup,
            .queries = sizes->queries,
            .seed = seed,
        };
        cli_infer_eval_result r;
        lab_progress(progress, "eval", ++*step, steps, "%s, %g bits/item, k=%u",
                     s->name, bpi, k);
        int rc = cli_infer_evaluate(&cfg, &r);
        if (rc == TDBF_EINFEASIBLE)
            continue;
        if (rc != TDBF_OK)
            return rc;
        if (!found || r.penalty_standard < best->penalty_standard) {
            best->k_standard = k;
            best->penalty_standard = r.penalty_standard;
        }
        if (!found || r.penalty_inferential < best->penalty_inferential) {
            best->k_inferential = k;
            best->penalty_inferential = r.penalty_inferential;
            best->posterior_error = r.posterior_error;
            memcpy(best->bin_queries, r.bin_queries, sizeof r.bin_queries);
            memcpy(best->bin_inside, r.bin_inside, sizeof r.bin_inside);
        }
        best->inside = r.inside;
        best->outside = r.outside;
        found = 1;
    }
    return found ? TDBF_OK : TDBF_EINFEASIBLE;
}

static int run_tbf(const char *cmd, const eval_request *req, eval_csv *csv)
{
    tbf_sizes sizes = {UINT64_C(1) << 20, UINT64_C(1) << 22, TBF_K_MAX};
    if (req->quick) {
        sizes.warmup = UINT64_C(1) << 17;
        sizes.queries = UINT64_C(1) << 15;
        sizes.k_max = 8;
    }
    int progress = isatty(STDERR_FILENO);
    size_t step = 0, steps = TBF_STREAMS * TBF_POINTS * sizes.k_max;
    uint64_t started = cli_now_ns();

    cli_table t;
    cli_table_init(&t, 12, "lrrrrrrrrrrr");
    static const char *const headers[] = {
        "stream", "w", "bits/item", "k_std", "k_inf", "penalty_std",
        "penalty_inf", "std/inf", "inf/std", "post_error", "pos/neg",
        "paper:pos/neg"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "stream,universe,window,bits_per_item,warmup,queries,k_max,"
             "k_standard,k_inferential,penalty_standard,penalty_inferential,"
             "ratio_standard_inferential,ratio_inferential_standard,"
             "posterior_error,pos_neg,paper_pos_neg");

    double ratio_sum[TBF_STREAMS] = {0};
    double post_max[TBF_STREAMS] = {0};
    for (size_t si = 0; si < TBF_STREAMS; si++) {
        const tbf_stream *s = &tbf_streams[si];
        for (size_t pi = 0; pi < TBF_POINTS; pi++) {
            cli_infer_eval_result r;
            int rc = tbf_point(s, tbf_bits_per_item[pi], &sizes, req->seed,
                               progress, &step, steps, &r);
            if (rc != TDBF_OK) {
                char what[64];
                lab_progress_end(progress);
                snprintf(what, sizeof what, "%s stream, %g bits/item", s->name,
                         tbf_bits_per_item[pi]);
                cli_table_free(&t);
                return cli_lib_error(cmd, what, rc);
            }
            double std_inf = r.penalty_inferential > 0.0
                ? r.penalty_standard / r.penalty_inferential : NAN;
            double inf_std = r.penalty_standard > 0.0
                ? r.penalty_inferential / r.penalty_standard : NAN;
            double pos_neg = r.outside > 0 ? (double)r.inside / (double)r.outside : NAN;
            ratio_sum[si] += inf_std;
            if (r.posterior_error > post_max[si])
                post_max[si] = r.posterior_error;

            cli_table_cell(&t, "%s", s->name);
            cli_table_cell(&t, "2^%u", s->window_log2);
            cli_table_cell(&t, "%g", tbf_bits_per_item[pi]);
            cli_table_cell(&t, "%u", r.k_standard);
            cli_table_cell(&t, "%u", r.k_inferential);
            cli_table_cell(&t, "%.0f", r.penalty_standard);
            cli_table_cell(&t, "%.0f", r.penalty_inferential);
            cli_table_cell(&t, "%.3f", std_inf);
            cli_table_cell(&t, "%.3f", inf_std);
            cli_table_cell(&t, "%.4f", r.posterior_error);
            cli_table_cell(&t, "%.3f", pos_neg);
            cli_table_cell(&t, "%.3f", s->paper_pos_neg);
            csv_line(csv, "%s,%llu,%llu,%g,%llu,%llu,%u,%u,%u,%.10g,%.10g,%.10g,"
                     "%.10g,%.10g,%.10g,%g",
                     si == 0 ? "uniform" : "power_law",
                     1ULL << s->universe_log2, 1ULL << s->window_log2,
                     tbf_bits_per_item[pi], (unsigned long long)sizes.warmup,
                     (unsigned long long)sizes.queries, sizes.k_max,
                     r.k_standard, r.k_inferential, r.penalty_standard,
                     r.penalty_inferential, std_inf, inf_std, r.posterior_error,
                     pos_neg, s->paper_pos_neg);
        }
    }
    lab_progress_end(progress);

    char took[32];
    cli_format_duration_ns(took, sizeof took, cli_now_ns() - started);
    printf("TBF/BTBF penalty experiment of paper 002 section 5 "
           "(cli_infer_evaluate), |U| = 2^16:\n");
    if (req->quick)
        printf("QUICK RUN (--quick): %llu warm-up inserts, %llu queries, k in "
               "1..%u -- the paper uses\n2^20, 2^22 and 1..30; numbers are "
               "noisier and Pos/Neg is near, not at, steady state.\n",
               (unsigned long long)sizes.warmup,
               (unsigned long long)sizes.queries, sizes.k_max);
    else
        printf("paper's sizes: 2^20 warm-up inserts, 2^22 queries, k in "
               "1..30.\n");
    printf("\n");
    if (lab_print_table(&t, cmd, 1) != 0)
        return CLI_EXIT_DATA;
    printf("\nk_std, k_inf = each answer's best k; penalties = totals over the "
           "queries ($FP, $FN\nuniform in [1, 10)); post_error = eq 28 (20 bins) "
           "at k_inf; pos/neg = queries with\nI_x < w over the others.\n\n");
    printf("The paper's statements (section 5.2-5.3, Table 3) beside ours:\n"
           "  uniform, inferential / standard penalty:  paper ~ 80%%,   ours "
           "%.0f%% (mean over the points)\n"
           "  uniform, posterior error:                 paper < 0.025, ours "
           "max %.4f\n"
           "  power law, posterior error:               paper < 0.035, ours "
           "max %.4f\n"
           "  Pos/Neg: uniform w = 2^16 paper 1.718, power law w = 2^11 paper "
           "1.182 (column above);\n"
           "           the paper's w = 2^18 runs (53.547, 13.451) are not part "
           "of this experiment.\n"
           "Took %s.\n",
           100.0 * ratio_sum[0] / (double)TBF_POINTS, post_max[0], post_max[1],
           took);
    return CLI_EXIT_OK;
}

const eval_experiment eval_tbf = {
    "tbf", "TBF/BTBF: paper 002 penalty ratios, posterior error, Pos/Neg", run_tbf
};
