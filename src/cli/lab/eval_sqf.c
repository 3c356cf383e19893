/*
 * eval_sqf.c — `tdbf eval sqf-model`: the sliding quotient filter's model
 * of its worst-case FP against the filters its planner builds.
 *
 * The planner (designs/sqf/model.c) sizes an sqf filter from a simulation
 * of one bin through its generations, spills and spill marks, aiming the
 * modelled FP below the error by a margin.  This experiment checks both
 * where they are used: for every window 10^4 .. 10^7 (10^8 with --large)
 * and error 0.1 .. 10^-5, in 64- and 128-byte bins, it opens the filter
 * through tdbf_open, adds distinct keys for four windows and stops at the
 * worst moment, the add before a generation's last (the next add turns the
 * generation and expires the oldest: until then the bins answer for 8
 * generations, the most they ever do), then probes never-added keys.
 *
 * A point agrees when the 95 % Wilson interval of the measured rate meets
 * [0.9, 1.1] x the model; it meets the target when the whole interval is
 * within the error asked for ("yes"), and otherwise says by how much the
 * interval's top ("~": the rate itself is within) or the rate ("NO") is
 * over.  Probes aim at SQF_HITS false positives a point, so the interval
 * is about +-3 % wide; small filters (a few hundred bins) differ from one
 * another by their bins' loads, so windows below 10^6 average several
 * filters (seeds).  Beside each point: the bits per item of the least-
 * memory APBF (tdbf_plan_apbf) and of apbf-line (the planner's unit) at
 * the same window and error, and sqf's over each.
 *
 * Exit status 1 if any point disagrees with the model or measures over
 * the error.
 */
#define _POSIX_C_SOURCE 200809L

#include "../cli.h"
#include "eval.h"

#include <string.h>
#include <unistd.h>

#include <tdbf_model.h>

/* Keys and probes: 16-byte keys, an even and an odd stream (eval_keys16:
 * a probe is never an added key). */
#define SQF_KEY_STREAM   UINT64_C(0x5af0)
#define SQF_PROBE_STREAM UINT64_C(0x5af1)
/* False positives a point's probes aim at (~ +-3.1 % at 95 %), and bounds:
 * at least 10^7 probes from a window of 10^6 on. */
#define SQF_HITS         4000.0
#define SQF_MIN_PROBES   200000.0
#define SQF_LARGE_PROBES 10000000.0
#define SQF_MAX_PROBES   250000000.0
#define SQF_TOLERANCE    0.10
/* Windows a fill spans before the probes. */
#define SQF_FILL_WINDOWS 4
/* The largest window, --large, and the memory it wants (~2 GB at 10^-3). */
#define SQF_LARGE_WINDOW UINT64_C(100000000)

typedef struct sqf_point {
    uint64_t window;
    double   error;
    unsigned bin_bits;
    int      planners_bin;    /* the bin tdbf_open picks by default */
    unsigned filters;
    uint64_t probes, hits;
    double   model;           /* mean of the filters' error_planned */
    double   bits;            /* 8 memory_bytes / window */
    double   apbf_bits;       /* least-memory APBF, bits/item */
    double   line_bits;       /* apbf-line, bits/item (0: no plan) */
} sqf_point;

static unsigned filters_for(uint64_t window, int quick)
{
    if (window < 100000)
        return quick ? 4 : 8;
    return window < 1000000 ? 2 : 1;
}

static uint64_t probes_for(const sqf_point *p, int quick)
{
    double want = SQF_HITS / p->error;
    double least = p->window >= 1000000 ? SQF_LARGE_PROBES : SQF_MIN_PROBES;
    want = want < least ? least : want;
    want = want > SQF_MAX_PROBES ? SQF_MAX_PROBES : want;
    return (uint64_t)(quick ? want / 4 : want);
}

static tdbf_config sqf_config(uint64_t window, double error, unsigned bin_bits, uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_SQF;
    cfg.window_items = window;
    cfg.error = error;
    cfg.unit_bits = bin_bits;
    cfg.seed = seed;
    return cfg;
}

/* At least SQF_FILL_WINDOWS windows, ending one add before a generation's
 * last (that add turns the generation). */
static eval_worst sqf_worst(const tdbf_stats *st)
{
    uint64_t g = st->generation_size;
    uint64_t generations = (SQF_FILL_WINDOWS * st->window_items + g - 1) / g + 1;
    eval_worst w = {generations * g - 1, g - 1};
    return w;
}

/* One filter of the point: opened, filled to the worst moment, probed. */
static int measure_filter(sqf_point *p, uint64_t seed, uint64_t probes)
{
    tdbf_config cfg = sqf_config(p->window, p->error, p->bin_bits, seed);
    tdbf_stats st;
    int rc = eval_probe_worst(&cfg, sqf_worst, SQF_KEY_STREAM ^ seed, SQF_PROBE_STREAM ^ seed,
                              probes, &st, &p->hits);
    if (rc == TDBF_OK) {
        p->model += st.error_planned / p->filters;
        p->bits = 8.0 * (double)st.memory_bytes / (double)p->window;
        p->probes += probes;
    }
    return rc;
}

/* The bits per item of the Bloom-type designs beside sqf: the least-
 * memory APBF and apbf-line with the unit its planner picks. */
static int compare_designs(sqf_point *p)
{
    tdbf_plan apbf;
    int rc = tdbf_plan_apbf(p->window, p->error, &apbf, NULL, 0, NULL);
    if (rc != TDBF_OK)
        return rc;
    p->apbf_bits = apbf.bits_per_item;
    tdbf_config cfg = sqf_config(p->window, p->error, 0, 1);
    cfg.design = TDBF_APBF_LINE;
    tdbf_line_plan line;
    p->line_bits = tdbf_plan_apbf_line(&cfg, &line) == TDBF_OK ? line.bits_per_item : 0.0;
    return TDBF_OK;
}

/* Is this bin the one tdbf_open picks when the caller leaves it to the
 * planner?  The planner keeps the bin of least memory. */
static int planners_bin(const sqf_point *p, int *yes)
{
    tdbf_config cfg = sqf_config(p->window, p->error, 0, 1);
    tdbf_shape chosen, this_bin;
    int rc = tdbf_plan_shape(&cfg, &chosen);
    cfg.unit_bits = p->bin_bits;
    if (rc == TDBF_OK)
        rc = tdbf_plan_shape(&cfg, &this_bin);
    *yes = rc == TDBF_OK && chosen.memory_bytes == this_bin.memory_bytes;
    return rc;
}

static int measure_point(sqf_point *p, const eval_request *req)
{
    int rc = planners_bin(p, &p->planners_bin);
    if (rc == TDBF_OK)
        rc = compare_designs(p);
    p->filters = filters_for(p->window, req->quick);
    uint64_t probes = probes_for(p, req->quick) / p->filters;
    for (unsigned r = 0; r < p->filters && rc == TDBF_OK; r++)
        rc = measure_filter(p, req->seed * 1000003 + r * 7919 + p->window, probes);
    return rc;
}

/* Does the 95 % interval of the measured rate meet the band of
 * +-SQF_TOLERANCE around the model? */
static int agrees(const sqf_point *p, double low, double high)
{
    return high >= (1.0 - SQF_TOLERANCE) * p->model &&
           low <= (1.0 + SQF_TOLERANCE) * p->model;
}

/* The target column: "yes", or by how much the interval's top ("~ +x %")
 * or the rate itself ("NO +x %") is over the error.  Returns 1, 0 or -1
 * for the three. */
static int within_target(const sqf_point *p, double high, char *text, size_t size)
{
    double measured = (double)p->hits / (double)p->probes;
    if (high <= p->error) {
        snprintf(text, size, "yes");
        return 1;
    }
    if (measured <= p->error) {
        snprintf(text, size, "~ top +%.1f %%", 100.0 * (high / p->error - 1.0));
        return 0;
    }
    snprintf(text, size, "NO +%.1f %%", 100.0 * (measured / p->error - 1.0));
    return -1;
}

static void ratio_cell(cli_table *t, double ours, double theirs)
{
    if (theirs > 0.0)
        cli_table_cell(t, "%.3f", ours / theirs);
    else
        cli_table_cell(t, "-");
}

static void report_point(const sqf_point *p, cli_table *t, eval_csv *csv, int ok, double low,
                         double high, int within, const char *target)
{
    double measured = (double)p->hits / (double)p->probes;
    cli_table_cell(t, "%llu", (unsigned long long)p->window);
    cli_table_cell(t, "%g", p->error);
    cli_table_cell(t, "%u B%s", p->bin_bits / 8, p->planners_bin ? " *" : "");
    cli_table_cell(t, "%.2f", p->bits);
    cli_table_cell(t, "%.3g", p->model);
    cli_table_cell(t, "%.3g", measured);
    cli_table_cell(t, "%.3g .. %.3g", low, high);
    cli_table_cell(t, "%.3f", measured / p->model);
    cli_table_cell(t, "%s", ok ? "yes" : "NO");
    cli_table_cell(t, "%s", target);
    cli_table_cell(t, "%.2f", p->apbf_bits);
    if (p->line_bits > 0.0)
        cli_table_cell(t, "%.2f", p->line_bits);
    else
        cli_table_cell(t, "-");
    ratio_cell(t, p->bits, p->apbf_bits);
    ratio_cell(t, p->bits, p->line_bits);
    csv_line(csv, "%llu,%g,%u,%d,%.4f,%u,%llu,%llu,%.6g,%.6g,%.6g,%.6g,%.4f,%d,%d,%.4f,%.4f",
             (unsigned long long)p->window, p->error, p->bin_bits / 8, p->planners_bin, p->bits,
             p->filters, (unsigned long long)p->probes, (unsigned long long)p->hits, p->model,
             measured, low, high, measured / p->model, ok, within, p->apbf_bits, p->line_bits);
}

/* Bytes of memory the system has available (MemAvailable), 0 if unknown. */
static uint64_t memory_available(void)
{
    FILE *in = fopen("/proc/meminfo", "r");
    if (in == NULL)
        return 0;
    char line[128];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, in) != NULL)
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(in);
    return (uint64_t)kib * 1024;
}

/* --large: can the largest window's filter be held, with room to spare? */
static int large_fits(void)
{
    tdbf_config cfg = sqf_config(SQF_LARGE_WINDOW, 1e-5, 0, 1);
    tdbf_shape shape;
    uint64_t available = memory_available();
    return tdbf_plan_shape(&cfg, &shape) == TDBF_OK &&
           (available == 0 || shape.memory_bytes + shape.memory_bytes / 4 < available);
}

typedef struct sqf_grid {
    uint64_t windows[5];
    size_t   n_windows;
    size_t   n_errors;
} sqf_grid;

static const double sqf_errors[] = {0.1, 0.01, 0.001, 0.0001, 0.00001};
static const unsigned sqf_bins[] = {512, 1024};

/* The windows and errors of the run; a CLI_EXIT_* code. */
static int choose_grid(const char *cmd, const eval_request *req, sqf_grid *g)
{
    static const uint64_t windows[] = {10000, 100000, 1000000, 10000000};
    memset(g, 0, sizeof *g);
    if (req->large && req->quick)
        return cli_usage_error(cmd, "--large and --quick: one or the other");
    g->n_windows = req->quick ? 2 : 4;
    memcpy(g->windows, windows, g->n_windows * sizeof windows[0]);
    g->n_errors = req->quick ? 4 : 5;
    if (req->large) {
        if (large_fits())
            g->windows[g->n_windows++] = SQF_LARGE_WINDOW;
        else
            fprintf(stderr, "%s %s: --large: not enough memory for a window of 10^8; "
                    "skipped\n", cli_program(), cmd);
    }
    return CLI_EXIT_OK;
}

static void print_legend(const eval_request *req)
{
    printf("sqf: the model's worst-case FP (tdbf_get_shape's error_planned) against the\n"
           "filters the planner builds: %d windows of distinct 16-byte keys, stopped one\n"
           "add before a generation's last, probed with never-added keys.\n",
           SQF_FILL_WINDOWS);
    if (req->quick)
        printf("-- QUICK RUN (--quick): windows 10^4, 10^5, errors to 10^-4, fewer probes.\n");
    printf("bin: * the one tdbf_open picks by default; bits/item: 8 memory_bytes / window.\n"
           "agrees: the 95 %% interval meets +-%.0f %% of the model.  target: the whole\n"
           "interval within the error (yes), or how far its top (~: the rate is within)\n"
           "or the rate (NO) is over.  APBF: the least-memory APBF plan; line: apbf-line\n"
           "(its planner's unit); x APBF, x line: sqf's bits per item over theirs.\n\n",
           100.0 * SQF_TOLERANCE);
}

static int run_sqf_model(const char *cmd, const eval_request *req, eval_csv *csv)
{
    sqf_grid grid;
    int status = choose_grid(cmd, req, &grid);
    if (status != CLI_EXIT_OK)
        return status;
    size_t steps = grid.n_windows * grid.n_errors * 2, step = 0;
    int progress = isatty(STDERR_FILENO);

    cli_table t;
    cli_table_init(&t, 14, "rrrrrrrrrlrrrr");
    static const char *const headers[] = {
        "window", "error", "bin", "bits/item", "model", "measured", "95 % interval",
        "meas/model", "agrees", "target", "APBF", "line", "x APBF", "x line"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "window,error,bin_bytes,planners_bin,bits_per_item,filters,probes,hits,model,"
                  "measured,low95,high95,measured_over_model,agrees,within_target,"
                  "apbf_bits_per_item,apbf_line_bits_per_item");
    unsigned disagree = 0, over = 0;
    for (size_t w = 0; w < grid.n_windows; w++) {
        for (size_t e = 0; e < grid.n_errors; e++) {
            for (size_t b = 0; b < 2; b++) {
                sqf_point p = {.window = grid.windows[w], .error = sqf_errors[e],
                               .bin_bits = sqf_bins[b]};
                lab_progress(progress, cmd, ++step, steps, "window %llu, error %g, %u-byte bins",
                             (unsigned long long)p.window, p.error, p.bin_bits / 8);
                int rc = measure_point(&p, req);
                if (rc != TDBF_OK)
                    return eval_point_failed(cmd, progress, &t, "sqf", p.window, rc);
                double low, high;
                char target[32];
                lab_wilson95(p.hits, p.probes, &low, &high);
                int ok = agrees(&p, low, high);
                int within = within_target(&p, high, target, sizeof target);
                disagree += !ok;
                over += within < 0;
                report_point(&p, &t, csv, ok, low, high, within, target);
            }
        }
    }
    lab_progress_end(progress);
    print_legend(req);
    status = eval_print_table(&t, cmd, req);
    if (status != CLI_EXIT_OK)
        return status;
    printf("\n%zu points, %u outside the band, %u measured over the error.\n", steps, disagree,
           over);
    return disagree || over ? CLI_EXIT_DATA : CLI_EXIT_OK;
}

const eval_experiment eval_sqf_model = {
    "sqf-model", "sqf: the model's worst-case FP vs measured, windows 10^4..10^7, errors 0.1..10^-5",
    run_sqf_model
};
