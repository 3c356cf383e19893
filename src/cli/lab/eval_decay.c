/*
 * eval_decay.c — `tdbf eval` experiments of the designs outside the APBF
 * family:
 *   clock-rotating    paper 000: the continuous clock-cell filter and the
 *                     ring of Bloom filters, FP over time and the share of
 *                     keys still reported by age, beside the planner;
 *   fpdecay-survival  paper 003: survival curves phi(t) of the fingerprint
 *                     decay array, several n at s ~ 1000, b = 8 and 32
 *                     (~ exact matching), beside the post's formula;
 *   stable            Stable Bloom filter (Deng & Rafiei 2006): FP while
 *                     filling and at the stable point, FN by age.
 */
#define _POSIX_C_SOURCE 200809L

#include "eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tdbf_model.h>

/* Report a library error of experiment `cmd` about `what`, freeing t. */
static int decay_fail(const char *cmd, cli_table *t, const char *what, int rc)
{
    cli_table_free(t);
    return cli_lib_error(cmd, what, rc);
}

/* Answers by age in a count window: warm up with `warm` adds, then after
 * each of `steps` adds ask for the keys added a*step adds before the
 * latest one, a = 0 .. ages-1; yes[a] counts the yes answers. */
static int ages_measure(tdbf *f, uint64_t *next, uint64_t warm, uint64_t steps,
                        unsigned ages, uint64_t step, uint64_t *yes)
{
    int rc = eval_add_keys(f, next, warm, 0, 0, NULL);
    for (uint64_t i = 0; i < steps && rc == TDBF_OK; i++) {
        rc = eval_add_keys(f, next, 1, 0, 0, NULL);
        for (unsigned a = 0; a < ages && rc == TDBF_OK; a++) {
            rc = eval_has_key(f, *next - 1 - (uint64_t)a * step, 0);
            if (rc > 0)
                yes[a]++;
            rc = rc < 0 ? rc : TDBF_OK;
        }
    }
    return rc;
}

/* ---- clock-rotating: paper 000 ---------------------------------------- */

#define CR_WINDOW_S  60u
#define CR_RATE      100u                 /* distinct keys per simulated s */
#define CR_ERROR     0.01
#define CR_AGE_BINS  (2u * CR_WINDOW_S)   /* 1 s bins of age, 0 .. 2T */

typedef struct cr_design {
    const char *name;
    tdbf_design design;
} cr_design;

static const cr_design cr_designs[] = {
    {"clock",    TDBF_CLOCK},       /* paper's 4-bit cells, divisor 2 */
    {"rotating", TDBF_ROTATING},    /* N = 4 (the library default) */
};

#define CR_DESIGNS (sizeof cr_designs / sizeof cr_designs[0])

/* What one run measured beyond the per-second rows. */
typedef struct cr_result {
    tdbf_clock_rotating_plan plan;
    uint64_t yes[CR_AGE_BINS], kept[CR_AGE_BINS], asked[CR_AGE_BINS];
    uint64_t window_misses;    /* keys younger than T that answered no */
    double   fp_sum;           /* measured FP summed over steady samples */
    unsigned fp_samples;
    double   fp_max;
} cr_result;

/* Paper 000's expiry rule, the same for both designs: time is cut into
 * units of L = T/d (a clock tick, d = resolution; a sub-filter's period,
 * d = N), and a key added in unit u is kept while the current unit is at
 * most u + d -- for a clock cell "elapsed time greater than the resolution
 * divisor" expires it, for the ring the filter of unit u is reset at unit
 * u + d + 1.  So a key is kept for T to T + L, never less (no false
 * negatives); past that it answers yes only as a false positive. */
static int cr_kept(const tdbf_clock_rotating_plan *plan, uint64_t added_ns, uint64_t now_ns)
{
    uint64_t unit = (CR_WINDOW_S * EVAL_NS + plan->resolution - 1) / plan->resolution;
    return now_ns / unit - added_ns / unit <= plan->resolution;
}

/* Query every key of the last 2T at second s, by 1 s bins of age. */
static int cr_ages(const tdbf *f, unsigned s, cr_result *r)
{
    uint64_t now = (uint64_t)s * EVAL_NS;
    for (unsigned b = 0; b < CR_AGE_BINS; b++) {
        /* key j was added at j/rate s: age in (b, b+1) s */
        uint64_t last = (uint64_t)(s - b) * CR_RATE;
        uint64_t first = (uint64_t)(s - b - 1) * CR_RATE + 1;
        for (uint64_t j = first; j < last; j++) {
            int rc = eval_has_key(f, j, now);
            if (rc < 0)
                return rc;
            r->yes[b] += (uint64_t)rc;
            r->kept[b] += (uint64_t)cr_kept(&r->plan, j * (EVAL_NS / CR_RATE), now);
            r->asked[b]++;
            if (rc == 0 && b < CR_WINDOW_S)
                r->window_misses++;
        }
    }
    return TDBF_OK;
}

static int cr_open(const cr_design *d, uint64_t seed, tdbf **f, tdbf_clock_rotating_plan *plan)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = d->design;
    cfg.error = CR_ERROR;
    cfg.window_ns = CR_WINDOW_S * EVAL_NS;
    cfg.capacity = (uint64_t)CR_WINDOW_S * CR_RATE;
    cfg.seed = seed;
    int rc = tdbf_plan_clock_rotating(&cfg, plan);
    return rc != TDBF_OK ? rc : tdbf_open(f, &cfg);
}

static int cr_run(const cr_design *d, unsigned seconds, uint64_t probes,
                  uint64_t seed, eval_csv *csv, cli_table *t, cr_result *r)
{
    memset(r, 0, sizeof *r);
    tdbf *f;
    int rc = cr_open(d, seed, &f, &r->plan);
    if (rc != TDBF_OK)
        return rc;
    uint64_t next = 0, next_probe = 0;
    for (unsigned s = 1; s <= seconds && rc == TDBF_OK; s++) {
        uint64_t now = (uint64_t)s * EVAL_NS;
        rc = eval_add_keys(f, &next, CR_RATE, now - EVAL_NS, EVAL_NS, NULL);
        if (rc == TDBF_OK)
            rc = tdbf_advance(f, now);
        tdbf_stats st;
        double fp = 0.0;
        if (rc == TDBF_OK)
            rc = tdbf_get_stats(f, &st);
        if (rc == TDBF_OK)
            rc = eval_probe_fp(f, probes, &next_probe, now, &fp);
        if (rc == TDBF_OK && s >= 2 * CR_WINDOW_S)
            rc = cr_ages(f, s, r);
        if (rc != TDBF_OK)
            break;
        if (s > CR_WINDOW_S) {
            r->fp_sum += fp;
            r->fp_samples++;
            if (fp > r->fp_max)
                r->fp_max = fp;
        }
        csv_line(csv, "%s,fp,%u,%.10g,%.10g,%.10g,%llu", d->name, s, fp,
                 st.error_estimated, r->plan.fp, (unsigned long long)probes);
        if (s % 15 == 0) {
            cli_table_cell(t, "%s", d->name);
            cli_table_cell(t, "%u", s);
            cli_table_cell(t, "%.5f", fp);
            cli_table_cell(t, "%.5f", st.error_estimated);
            cli_table_cell(t, "%.5f", r->plan.fp);
        }
    }
    tdbf_close(f);
    return rc;
}

static void cr_age_rows(const cr_design *d, const cr_result *r, eval_csv *csv,
                        cli_table *t)
{
    unsigned unit = CR_WINDOW_S / r->plan.resolution;
    for (unsigned b = 0; b < CR_AGE_BINS; b++) {
        if (r->asked[b] == 0)
            continue;
        double yes = (double)r->yes[b] / (double)r->asked[b];
        double model = (double)r->kept[b] / (double)r->asked[b];
        csv_line(csv, "%s,yes,%.1f,%.10g,%.10g,%.10g,%llu", d->name, b + 0.5,
                 yes, model, r->plan.fp, (unsigned long long)r->asked[b]);
        if (b % 10 == 9 || (b >= CR_WINDOW_S && b < CR_WINDOW_S + unit && b % 5 == 4)) {
            cli_table_cell(t, "%s", d->name);
            cli_table_cell(t, "%.1f", b + 0.5);
            cli_table_cell(t, "%.4f", yes);
            cli_table_cell(t, "%.4f", model);
            cli_table_cell(t, "%llu", (unsigned long long)r->asked[b]);
        }
    }
}

static int run_clock_rotating(const char *cmd, const eval_request *req,
                              eval_csv *csv)
{
    unsigned seconds = req->quick ? 150u : 300u;
    uint64_t probes = (uint64_t)((req->quick ? 5.0 : 100.0) / CR_ERROR);
    cli_table fp_table, age_table;
    cli_table_init(&fp_table, 5, "lrrrr");
    cli_table_init(&age_table, 5, "lrrrr");
    static const char *const fp_headers[] = {
        "design", "t (s)", "fp measured", "fp from fill", "fp planned"
    };
    static const char *const age_headers[] = {
        "design", "age (s)", "still yes", "model", "keys asked"
    };
    table_header(&fp_table, fp_headers, 5);
    table_header(&age_table, age_headers, 5);
    csv_line(csv, "design,series,x,measured,model,bound,samples");

    cr_result r[CR_DESIGNS];
    int progress = isatty(STDERR_FILENO);
    for (size_t i = 0; i < CR_DESIGNS; i++) {
        lab_progress(progress, "eval", i + 1, CR_DESIGNS, "%s", cr_designs[i].name);
        int rc = cr_run(&cr_designs[i], seconds, probes, req->seed, csv,
                        &fp_table, &r[i]);
        if (rc != TDBF_OK) {
            lab_progress_end(progress);
            cli_table_free(&age_table);
            return decay_fail(cmd, &fp_table, cr_designs[i].name, rc);
        }
    }
    lab_progress_end(progress);
    for (size_t i = 0; i < CR_DESIGNS; i++)
        cr_age_rows(&cr_designs[i], &r[i], csv, &age_table);

    printf("Paper 000: continuous clock filter (4-bit cells, divisor 2) and "
           "rotating filters (N = 4),\nT = %u s, error %g, %u distinct keys/s on "
           "a simulated clock (capacity %u per window),\n%u s%s; FP on %llu "
           "fresh keys per second.  Table: every 15 s; the CSV has every "
           "second.\n\n", CR_WINDOW_S, CR_ERROR, CR_RATE, CR_WINDOW_S * CR_RATE,
           seconds, req->quick ? " -- QUICK RUN (--quick)" : "",
           (unsigned long long)probes);
    if (lab_print_table(&fp_table, cmd, 1) != 0) {
        cli_table_free(&age_table);
        return CLI_EXIT_DATA;
    }
    printf("\nShare of keys still reported by age (every key of the last 2T, "
           "every second from 2T on);\nmodel = paper 000's rule for the same "
           "keys: kept while the current unit of L = T/d is at\nmost d after "
           "the key's (clock: tick, d = 2; rotating: a filter's period, d = N "
           "= 4):\n\n");
    if (lab_print_table(&age_table, cmd, 1) != 0)
        return CLI_EXIT_DATA;
    printf("\n");
    for (size_t i = 0; i < CR_DESIGNS; i++)
        printf("%s: k = %u, %.1f bits/key, FP after T mean %.5f, max %.5f, "
               "planned (worst case) %.5f; keys younger than T answering no: "
               "%llu.\n", cr_designs[i].name, r[i].plan.k,
               r[i].plan.bits_per_item, r[i].fp_sum / r[i].fp_samples,
               r[i].fp_max, r[i].plan.fp, (unsigned long long)r[i].window_misses);
    for (size_t i = 0; i < CR_DESIGNS; i++)
        if (r[i].window_misses)
            return cli_error(cmd, "%s: false negatives inside the window",
                             cr_designs[i].name);
    return CLI_EXIT_OK;
}

const eval_experiment eval_clock_rotating = {
    "clock-rotating",
    "paper 000: clock and rotating filters, FP over time and keys kept by age",
    run_clock_rotating
};

/* ---- fpdecay-survival: paper 003 ------------------------------------- */

#define FS_CELLS   1000u     /* the post's s, fixed for its figures */
#define FS_AGE_MAX 3000u
#define FS_AGE_STEP 50u
#define FS_AGES    (FS_AGE_MAX / FS_AGE_STEP + 1)

static const unsigned fs_positions[] = {1, 2, 4, 8, 16};
static const unsigned fs_widths[] = {8, 32};   /* 32: as good as exact */

#define FS_POSITIONS (sizeof fs_positions / sizeof fs_positions[0])
#define FS_WIDTHS    (sizeof fs_widths / sizeof fs_widths[0])

/* The filter is sized by the planner from a window and a survival target;
 * find the window for which it gets the s nearest FS_CELLS (a multiple of
 * n).  Cells grow with the window, so bisect it. */
static int fs_config(unsigned n, unsigned b, uint64_t seed, tdbf_config *cfg,
                     tdbf_decay_plan *plan)
{
    tdbf_config_init(cfg);
    cfg->design = TDBF_FPDECAY;
    cfg->positions = n;
    cfg->fingerprint_bits = b;
    cfg->error = 0.5;        /* only checked against the FP floor */
    cfg->survival = 0.5;
    cfg->seed = seed;
    uint64_t lo = 1, hi = 100 * FS_CELLS;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        cfg->window_items = mid;
        int rc = tdbf_plan_decay(cfg, plan);
        if (rc != TDBF_OK)
            return rc;
        if (plan->cells <= FS_CELLS)
            lo = mid;
        else
            hi = mid;
    }
    cfg->window_items = lo;
    return tdbf_plan_decay(cfg, plan);
}

static int fs_run(unsigned n, unsigned b, uint64_t steps, uint64_t seed,
                  eval_csv *csv, cli_table *t, double *floor_measured)
{
    tdbf_config cfg;
    tdbf_decay_plan plan;
    int rc = fs_config(n, b, seed, &cfg, &plan);
    tdbf *f;
    if (rc == TDBF_OK)
        rc = tdbf_open(&f, &cfg);
    if (rc != TDBF_OK)
        return rc;
    /* warm up until every cell has been written about 10 times */
    uint64_t yes[FS_AGES] = {0}, next = 0;
    rc = ages_measure(f, &next, 10u * FS_CELLS + FS_AGE_MAX, steps, FS_AGES,
                      FS_AGE_STEP, yes);
    tdbf_close(f);
    if (rc != TDBF_OK)
        return rc;
    for (unsigned a = 0; a < FS_AGES; a++) {
        uint64_t age = (uint64_t)a * FS_AGE_STEP;
        double measured = (double)yes[a] / (double)steps;
        double model = tdbf_fpdecay_survival(plan.cells, n, b, age);
        double exact = tdbf_fpdecay_survival(plan.cells, n, 32, age);
        csv_line(csv, "%u,%u,%llu,%llu,%.10g,%.10g,%.10g,%llu", n, b,
                 (unsigned long long)plan.cells, (unsigned long long)age,
                 measured, model, exact, (unsigned long long)steps);
        if (age % 500 == 0) {
            cli_table_cell(t, "%u", n);
            cli_table_cell(t, "%u", b);
            cli_table_cell(t, "%llu", (unsigned long long)plan.cells);
            cli_table_cell(t, "%llu", (unsigned long long)age);
            cli_table_cell(t, "%.4f", measured);
            cli_table_cell(t, "%.4f", model);
            cli_table_cell(t, "%.4f", exact);
        }
        if (a == FS_AGES - 1)
            *floor_measured = measured;
    }
    return TDBF_OK;
}

static int run_fpdecay_survival(const char *cmd, const eval_request *req,
                                eval_csv *csv)
{
    uint64_t steps = req->quick ? 2000u : 200000u;
    cli_table t;
    cli_table_init(&t, 7, "rrrrrrr");
    static const char *const headers[] = {
        "n", "b", "s", "t (adds)", "phi measured", "phi(t) model", "exact (b=inf)"
    };
    table_header(&t, headers, 7);
    csv_line(csv, "n,b,cells,t,phi_measured,phi_model,phi_exact,samples");

    double tail[FS_POSITIONS][FS_WIDTHS];
    size_t step = 0;
    int progress = isatty(STDERR_FILENO);
    for (size_t i = 0; i < FS_POSITIONS; i++)
        for (size_t j = 0; j < FS_WIDTHS; j++) {
            lab_progress(progress, "eval", ++step, FS_POSITIONS * FS_WIDTHS,
                          "n=%u b=%u", fs_positions[i], fs_widths[j]);
            int rc = fs_run(fs_positions[i], fs_widths[j], steps, req->seed,
                            csv, &t, &tail[i][j]);
            if (rc != TDBF_OK) {
                char what[32];
                lab_progress_end(progress);
                snprintf(what, sizeof what, "n=%u, b=%u", fs_positions[i],
                         fs_widths[j]);
                return decay_fail(cmd, &t, what, rc);
            }
        }
    lab_progress_end(progress);

    printf("Paper 003: survival phi(t) of the fingerprint decay array, the "
           "probability that a key\nadded t adds ago still answers yes; s ~ %u "
           "cells (the nearest multiple of n the\nplanner gives), n = 1..16 "
           "positions, b = 8 and 32-bit fingerprints; each age measured\non "
           "%llu keys%s.  Table: every 500 adds; the CSV has every %u.\n\n",
           FS_CELLS, (unsigned long long)steps,
           req->quick ? " -- QUICK RUN (--quick)" : "", FS_AGE_STEP);
    if (lab_print_table(&t, cmd, 1) != 0)
        return CLI_EXIT_DATA;
    printf("\nmodel = tdbf_fpdecay_survival(s, n, b, t): q = (1 - n/s)^t, "
           "phi = 1 - ((1 - q)(1 - 1/(2^b - 1)))^n;\nexact = the same with "
           "b = 32, i.e. the post's exact matching 1 - (1 - q)^n to 1e-8.\n"
           "Floor at t = %u, b = 8 (n / 255 for large t):", FS_AGE_MAX);
    for (size_t i = 0; i < FS_POSITIONS; i++)
        printf("%s n=%u %.4f", i ? "," : "", fs_positions[i], tail[i][0]);
    printf(".\n");
    return CLI_EXIT_OK;
}

const eval_experiment eval_fpdecay_survival = {
    "fpdecay-survival",
    "paper 003: fingerprint decay survival phi(t), several n, b = 8 vs exact",
    run_fpdecay_survival
};

/* ---- stable: Stable Bloom filter (Deng & Rafiei 2006) ---------------- */

#define SB_WINDOW  UINT64_C(10000)
#define SB_ERROR   0.01

static const unsigned sb_cell_bits[] = {2, 4};   /* Max = 3 and 15 */

#define SB_SHAPES (sizeof sb_cell_bits / sizeof sb_cell_bits[0])

typedef struct sb_sizes {
    uint64_t fill_samples; /* FP samples while filling */
    uint64_t probes;       /* fresh keys per FP sample */
    uint64_t steps;        /* adds of the FN-by-age series */
} sb_sizes;

/* Filling lasts 6 Max m / P adds: a cell drains from Max to 0 in Max m/P
 * adds on average, so by then zeros(N) has settled at the stable point. */
static uint64_t sb_fill_every(const tdbf_decay_plan *p, const sb_sizes *z)
{
    double max = (double)((1u << p->cell_bits) - 1);
    double adds = 6.0 * max * (double)p->cells / (double)p->decrements;
    return (uint64_t)ceil(adds / (double)z->fill_samples);
}

#define SB_AGES     41u
#define SB_AGE_STEP (SB_WINDOW / 10)   /* ages 0 .. 4w */

static double sb_fp(const tdbf_decay_plan *p, uint64_t adds)
{
    double zeros = tdbf_stable_zeros(p->cells, p->k, p->cell_bits,
                                     p->decrements, adds);
    return pow(1.0 - zeros, (double)p->k);
}

static void sb_row(eval_csv *csv, const tdbf_decay_plan *p, const char *series,
                   uint64_t x, double measured, double model, double bound,
                   uint64_t samples)
{
    csv_line(csv, "%u,%u,%llu,%llu,%s,%llu,%.10g,%.10g,%.10g,%llu",
             p->cell_bits, p->k, (unsigned long long)p->cells,
             (unsigned long long)p->decrements, series, (unsigned long long)x,
             measured, model, bound, (unsigned long long)samples);
}

/* One printed row; x is adds (series fp) or an age (series fn). */
static void sb_table_row(cli_table *t, const tdbf_decay_plan *p,
                         const char *series, uint64_t x, double measured,
                         double model, double limit)
{
    int fp = strcmp(series, "fp") == 0;
    cli_table_cell(t, "%u", p->cell_bits);
    cli_table_cell(t, "%s", series);
    cli_table_cell(t, "%s%llu%s", fp ? "" : "age ", (unsigned long long)x,
                   fp ? " adds" : "");
    cli_table_cell(t, "%.5f", measured);
    cli_table_cell(t, "%.5f", model);
    cli_table_cell(t, "%.5f", limit);
}

/* FP of fresh keys while the filter fills from empty to its stable point;
 * *settled = the mean over the second half of the samples. */
static int sb_fill(tdbf *f, const tdbf_decay_plan *p, const sb_sizes *z,
                   uint64_t *next, eval_csv *csv, cli_table *t, double *settled)
{
    uint64_t next_probe = 0, every = sb_fill_every(p, z);
    double stable_point = sb_fp(p, UINT64_MAX);
    *settled = 0.0;
    for (uint64_t i = 1; i <= z->fill_samples; i++) {
        uint64_t n = i * every;
        double fp;
        int rc = eval_add_keys(f, next, every, 0, 0, NULL);
        if (rc == TDBF_OK)
            rc = eval_probe_fp(f, z->probes, &next_probe, 0, &fp);
        if (rc != TDBF_OK)
            return rc;
        double model = sb_fp(p, n);
        sb_row(csv, p, "fp", n, fp, model, stable_point, z->probes);
        if (i > z->fill_samples / 2)
            *settled += fp / (double)(z->fill_samples - z->fill_samples / 2);
        if (i % (z->fill_samples / 5) == 0)
            sb_table_row(t, p, "fp", n, fp, model, stable_point);
    }
    return TDBF_OK;
}

/* FN by age, past the stable point: every add is followed by a query of
 * the key added t adds before, for each age t. */
static int sb_ages(tdbf *f, const tdbf_decay_plan *p, const sb_sizes *z,
                   uint64_t *next, eval_csv *csv, cli_table *t, double *fn_window)
{
    uint64_t yes[SB_AGES] = {0};
    int rc = ages_measure(f, next, SB_AGES * SB_AGE_STEP, z->steps, SB_AGES,
                          SB_AGE_STEP, yes);
    if (rc != TDBF_OK)
        return rc;
    double limit = 1.0 - pow(1.0 - tdbf_stable_zeros(p->cells, p->k, p->cell_bits,
                                                     p->decrements, UINT64_MAX),
                             (double)p->k);
    for (unsigned a = 0; a < SB_AGES; a++) {
        uint64_t age = (uint64_t)a * SB_AGE_STEP;
        double measured = (double)(z->steps - yes[a]) / (double)z->steps;
        double model = tdbf_stable_forget(p->cells, p->k, p->cell_bits,
                                          p->decrements, age);
        sb_row(csv, p, "fn", age, measured, model, limit, z->steps);
        if (age == SB_WINDOW)
            *fn_window = measured;
        if (a % 5 == 0)
            sb_table_row(t, p, "fn", age, measured, model, limit);
    }
    return TDBF_OK;
}

static int sb_run(unsigned d, const sb_sizes *z, uint64_t seed, eval_csv *csv,
                  cli_table *t, tdbf_decay_plan *plan, double *fp_last,
                  double *fn_window)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_STABLE;
    cfg.error = SB_ERROR;
    cfg.window_items = SB_WINDOW;
    cfg.cell_max_bits = d;
    cfg.seed = seed;
    int rc = tdbf_plan_decay(&cfg, plan);
    tdbf *f;
    if (rc == TDBF_OK)
        rc = tdbf_open(&f, &cfg);
    if (rc != TDBF_OK)
        return rc;
    uint64_t next = 0;
    rc = sb_fill(f, plan, z, &next, csv, t, fp_last);
    if (rc == TDBF_OK)
        rc = sb_ages(f, plan, z, &next, csv, t, fn_window);
    tdbf_close(f);
    return rc;
}

static int run_stable(const char *cmd, const eval_request *req, eval_csv *csv)
{
    sb_sizes z = req->quick ? (sb_sizes){10, 1000, 2000}
                            : (sb_sizes){50, 20000, 50000};
    cli_table t;
    cli_table_init(&t, 6, "rlrrrr");
    static const char *const headers[] = {
        "d", "series", "at", "measured", "model", "limit"
    };
    table_header(&t, headers, 6);
    csv_line(csv, "d,K,cells,P,series,x,measured,model,bound,samples");

    tdbf_decay_plan plan[SB_SHAPES];
    double fp_last[SB_SHAPES], fn_window[SB_SHAPES];
    int progress = isatty(STDERR_FILENO);
    for (size_t i = 0; i < SB_SHAPES; i++) {
        lab_progress(progress, "eval", i + 1, SB_SHAPES, "d=%u", sb_cell_bits[i]);
        int rc = sb_run(sb_cell_bits[i], &z, req->seed, csv, &t, &plan[i],
                        &fp_last[i], &fn_window[i]);
        if (rc != TDBF_OK) {
            char what[16];
            lab_progress_end(progress);
            snprintf(what, sizeof what, "d=%u", sb_cell_bits[i]);
            return decay_fail(cmd, &t, what, rc);
        }
    }
    lab_progress_end(progress);

    printf("Stable Bloom filter (Deng & Rafiei 2006), sized by tdbf_plan_decay "
           "for w = %llu, error %g,\nsurvival 0.99; d = 2 and 4 bits per cell.  "
           "fp: fresh keys (%llu per sample) while\nfilling from empty, model = "
           "(1 - zeros(N))^K, limit = the stable point; fn: share of\nkeys added "
           "t adds ago answering no (%llu keys per age), model = FN(t), limit = "
           "FN(inf)%s.\n\n", (unsigned long long)SB_WINDOW, SB_ERROR,
           (unsigned long long)z.probes, (unsigned long long)z.steps,
           req->quick ? " -- QUICK RUN (--quick)" : "");
    if (lab_print_table(&t, cmd, 1) != 0)
        return CLI_EXIT_DATA;
    printf("\n");
    for (size_t i = 0; i < SB_SHAPES; i++)
        printf("d = %u: K = %u, m = %llu cells, P = %llu, %.1f bits/key; FP "
               "from %llu adds on %.5f (stable point %.5f); FN at t = w %.5f "
               "(model %.5f).\n", plan[i].cell_bits, plan[i].k,
               (unsigned long long)plan[i].cells,
               (unsigned long long)plan[i].decrements, plan[i].bits_per_item,
               (unsigned long long)(sb_fill_every(&plan[i], &z) * (z.fill_samples / 2)),
               fp_last[i], plan[i].fp,
               fn_window[i], 1.0 - plan[i].survival);
    return CLI_EXIT_OK;
}

const eval_experiment eval_stable = {
    "stable", "Stable BF: FP to the stable point, FN by age (Deng & Rafiei)",
    run_stable
};
