/*
 * eval_burst.c — `tdbf eval burst`: the false-positive rate of every
 * time-window design at the worst moment of the arrival patterns users
 * meet, beside the target and the design's own estimate.
 *
 * The promise under test (design.md, "No silent degradation"): a filter
 * stays at or below its configured error, checked at the worst moment —
 * the peak of a burst, or just before a shift — or it says it does not
 * (tdbf_current_error rises past the target, and the front can stop).
 * Every design that takes a time window (tdbf_plan_shape accepts
 * window_ns: tlbf-line, the default of `tdbf dedup --window`, tlbf,
 * clock, rotating, and the exact set as the 0 baseline), window T = 10
 * minutes on a simulated clock, errors 0.01 and 0.001, four patterns:
 *
 *   file       a file read at full speed, as `tdbf dedup --window 10m`
 *              reads it: blocks of 4096 keys per timestamp, the clock 5
 *              us further per block, so a few million keys arrive inside
 *              one generation; capacity hint = the file's lines, as dedup
 *              gives it (dedup_open.c).  Moment: the end of the file (all
 *              keys live, none expired: the peak).
 *   steady     C keys per window, evenly spaced, for 4 windows (capacity
 *              hint C, a user who states the rate).  Moments: ends of
 *              generations in the last window.
 *   jump10     C per window for 3 windows, then 10 C: moments over the
 *              1.5 windows after the jump (old and new keys live).
 *   burst1000  C per window, and at 3 T a burst of 1000 times the steady
 *              per-generation count (C / l, l of tlbf-line's plan) at one
 *              timestamp.  Moments: the peak (right after the burst, at
 *              its timestamp), then ends of generations of the window
 *              after it.
 *
 * "End of a generation" is the last nanosecond of one of the design's age
 * steps — T / l for the APBF family (tlbf-line's generations are aligned
 * on multiples of ceil(T / l)), T / N for rotating, T / 8 for the others —
 * where a design's newest step holds the most and nothing has left yet.
 * Of those moments, at most 8 (3 in --quick) spread over the span; each
 * is probed with fresh never-added keys (about 2000 / error, 300 in
 * --quick) and the row shows the moment of the highest measured rate,
 * with its 95 % Wilson interval.  Keys per window and bits per key count
 * the keys added in (now - T, now] at that moment.  Within target: "yes"
 * when the whole interval is at or below the error, "~" when the error is
 * inside it (the probes cannot tell), "NO" when the interval is above.
 *
 * Fixed-size designs (clock, rotating, sized by the hint) are not meant
 * to hold a burst past their capacity: their rows say how far they go
 * over, and their tdbf_current_error shows it (what the CLI watches).
 * Exit status 1 if a tlbf-line row is over its target (NO).
 */
#define _POSIX_C_SOURCE 200809L

#include "../cli.h"
#include "eval.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include <tdbf_model.h>

#define BURST_WINDOW_NS     (600 * EVAL_NS)    /* --window 10m */
#define BURST_FILE_BLOCK    4096               /* keys per read block, as dedup reads */
#define BURST_FILE_STEP_NS  UINT64_C(5000)     /* clock advance per block */
#define BURST_FACTOR        1000.0             /* burst1000: x the per-generation count */
#define BURST_JUMP          10.0               /* jump10: x the steady rate */
#define BURST_CHANGE_AT     3                  /* windows of steady rate before a change */
#define BURST_OTHER_STEPS   8                  /* age steps per window without an l or N */
#define BURST_MIN_PROBES    20000.0
#define BURST_MAX_PROBES    20000000.0
#define BURST_MAX_MOMENTS   8

/* The sizes of a run: full, or --quick. */
typedef struct burst_sizes {
    uint64_t file_keys;      /* lines of the file */
    uint64_t steady_keys;    /* C: keys per window at the steady rate */
    double   hits;           /* false positives a moment's probes aim at */
    unsigned moments;        /* moments probed per run, at most */
} burst_sizes;

/* C = 10^5 keys per window (--quick 10^4): a filter of thousands of units,
 * whose FP is the model's mean; at a few hundred units (C = 2 10^4) a
 * filter's own spread of unit loads moved tlbf-line's steady FP at 0.001
 * from 0.93 to 1.05 times the target. */
static const burst_sizes full_sizes = {4000000, 100000, 2000.0, BURST_MAX_MOMENTS};
static const burst_sizes quick_sizes = {200000, 10000, 300.0, 3};

typedef enum { SCENARIO_FILE, SCENARIO_STEADY, SCENARIO_JUMP, SCENARIO_BURST } scenario_kind;

typedef struct scenario {
    const char   *name;
    scenario_kind kind;
    double        rate_after;      /* x C per window from the change on */
    double        measured_windows;/* the span probed, from the change, in windows */
} scenario;

static const scenario scenarios[] = {
    {"file", SCENARIO_FILE, 1.0, 0.0},
    {"steady", SCENARIO_STEADY, 1.0, 1.0},
    {"jump10", SCENARIO_JUMP, BURST_JUMP, 1.5},
    {"burst1000", SCENARIO_BURST, 1.0, 1.0},
};

static const double burst_errors[] = {0.01, 0.001};

/* One run: a design, a pattern, an error; its arrivals so far and the
 * worst moment measured. */
typedef struct burst_run {
    const scenario *sc;
    tdbf_design     design;
    double          error;
    uint64_t        steady;        /* C */
    uint64_t        burst;         /* keys of the burst (burst1000) */
    uint64_t        file_keys;
    uint64_t        next_key;      /* ids added: 0 .. next_key - 1 */
    uint64_t        next_probe;
    uint64_t        added_until;   /* arrivals before this time are added */
    /* the worst moment */
    int             measured;
    uint64_t        moment_ns;
    int             peak;          /* the moment is a burst's or file's peak */
    uint64_t        probes, hits;
    uint64_t        window_keys, memory_bytes;
    double          current_error;
} burst_run;

/* ---- arrivals ------------------------------------------------------------ */

static uint64_t change_ns(void)
{
    return BURST_CHANGE_AT * BURST_WINDOW_NS;
}

/* Keys per window of the steady phases in force at time t. */
static double rate_at(const burst_run *run, uint64_t t)
{
    return (double)run->steady * (t < change_ns() ? 1.0 : run->sc->rate_after);
}

/* Arrivals of an even phase that began at `start` with `per_window` keys
 * per window: key i at start + i T / per_window.  How many fall before t. */
static uint64_t even_before(uint64_t start, double per_window, uint64_t t)
{
    if (t <= start)
        return 0;
    double spacing = (double)BURST_WINDOW_NS / per_window;
    return (uint64_t)ceil((double)(t - start) / spacing);
}

/* The pattern's keys with times in [from, to) (the steady phases and the
 * burst; not the file, which is all live at its one moment). */
static uint64_t keys_between(const burst_run *run, uint64_t from, uint64_t to)
{
    uint64_t change = change_ns(), n = 0;
    double before = (double)run->steady, after = before * run->sc->rate_after;
    uint64_t cut_from = from < change ? from : change, cut_to = to < change ? to : change;
    n += even_before(0, before, cut_to) - even_before(0, before, cut_from);
    if (to > change) {
        uint64_t a = from > change ? from : change;
        n += even_before(change, after, to) - even_before(change, after, a);
        if (from <= change)
            n += run->burst;
    }
    return n;
}

/* Add the arrivals of the steady phases in [run->added_until, until): the
 * even keys of each phase through eval_add_keys, the burst at its time
 * first. */
static int add_until(tdbf *f, burst_run *run, uint64_t until)
{
    uint64_t change = change_ns();
    while (run->added_until < until) {
        uint64_t from = run->added_until;
        uint64_t start = from < change ? 0 : change;
        uint64_t to = from < change && until > change ? change : until;
        double per_window = rate_at(run, from);
        if (from == change && run->burst > 0) {
            int rc = eval_add_keys(f, &run->next_key, run->burst, change, 0, NULL);
            if (rc != TDBF_OK)
                return rc;
        }
        uint64_t first = even_before(start, per_window, from);
        uint64_t count = even_before(start, per_window, to) - first;
        double spacing = (double)BURST_WINDOW_NS / per_window;
        uint64_t first_ns = start + (uint64_t)ceil((double)first * spacing);
        int rc = eval_add_keys(f, &run->next_key, count, first_ns,
                               (uint64_t)((double)count * spacing), NULL);
        if (rc != TDBF_OK)
            return rc;
        run->added_until = to;
    }
    return TDBF_OK;
}

/* The file: blocks of BURST_FILE_BLOCK keys, one timestamp each, the
 * clock BURST_FILE_STEP_NS further per block (from 1 s).  Returns its
 * last timestamp in *end. */
static int add_file(tdbf *f, burst_run *run, uint64_t *end)
{
    uint64_t now = EVAL_NS;
    for (uint64_t left = run->file_keys; left > 0; now += BURST_FILE_STEP_NS) {
        uint64_t block = left < BURST_FILE_BLOCK ? left : BURST_FILE_BLOCK;
        int rc = eval_add_keys(f, &run->next_key, block, now, 0, NULL);
        if (rc != TDBF_OK)
            return rc;
        left -= block;
        *end = now;
    }
    return TDBF_OK;
}

/* ---- moments and probes -------------------------------------------------- */

/* The design's age step: T / l (APBF family), T / N (rotating: N + 1
 * filters), else T / BURST_OTHER_STEPS; rounded up, as tlbf-line's. */
static uint64_t age_step_ns(const tdbf_stats *st)
{
    uint64_t steps = st->l > 0 ? st->l
                   : st->design == TDBF_ROTATING && st->slices > 1 ? st->slices - 1
                   : BURST_OTHER_STEPS;
    return BURST_WINDOW_NS / steps + (BURST_WINDOW_NS % steps != 0);
}

/* Probe the filter at `now` with fresh keys; keep the moment if its rate
 * is the highest so far. */
static int probe_moment(const tdbf *f, burst_run *run, uint64_t now, int peak,
                        uint64_t window_keys, uint64_t probes)
{
    uint64_t first = run->next_probe;
    double fp;
    int rc = eval_probe_fp(f, probes, &run->next_probe, now, &fp);
    if (rc != TDBF_OK)
        return rc;
    uint64_t hits = (uint64_t)llround(fp * (double)(run->next_probe - first));
    if (run->measured && hits * run->probes <= run->hits * probes)
        return TDBF_OK;
    tdbf_stats st;
    rc = tdbf_get_stats(f, &st);
    if (rc == TDBF_OK)
        rc = tdbf_current_error(f, now, &run->current_error);
    if (rc != TDBF_OK)
        return rc;
    run->measured = 1;
    run->moment_ns = now;
    run->peak = peak;
    run->probes = probes;
    run->hits = hits;
    run->window_keys = window_keys;
    run->memory_bytes = st.memory_bytes;
    return TDBF_OK;
}

/* The moments of a steady-phase pattern: ends of the design's age steps
 * in the probed span (after the burst's own peak), at most `most` of
 * them spread evenly, each probed after the arrivals up to it. */
static int probe_steps(tdbf *f, burst_run *run, const burst_sizes *z, uint64_t probes)
{
    tdbf_stats st;
    int rc = tdbf_get_stats(f, &st);
    if (rc != TDBF_OK)
        return rc;
    uint64_t step = age_step_ns(&st), from = change_ns();
    uint64_t to = from + (uint64_t)(run->sc->measured_windows * (double)BURST_WINDOW_NS);
    uint64_t first = from / step + 1, last = to / step;     /* ends (j step) - 1 */
    unsigned most = z->moments - (run->burst > 0), count = 0;
    uint64_t ends = last >= first ? last - first + 1 : 0;
    for (unsigned i = 0; i < most && ends > 0; i++) {
        uint64_t j = first + (most > 1 ? (ends - 1) * i / (most - 1) : ends - 1);
        uint64_t now = j * step - 1;
        if (count > 0 && now <= run->added_until - 1)
            continue;                         /* fewer ends than moments */
        rc = add_until(f, run, now + 1);
        if (rc == TDBF_OK)
            rc = probe_moment(f, run, now, 0, keys_between(run, now + 1 - BURST_WINDOW_NS, now + 1),
                              probes);
        if (rc != TDBF_OK)
            return rc;
        count++;
    }
    return TDBF_OK;
}

static uint64_t probes_for(double error, const burst_sizes *z)
{
    double want = z->hits / error;
    want = want < BURST_MIN_PROBES ? BURST_MIN_PROBES : want;
    return (uint64_t)(want > BURST_MAX_PROBES ? BURST_MAX_PROBES : want);
}

/* ---- one run -------------------------------------------------------------- */

/* A design over the 10-minute window with a capacity hint. */
static tdbf_config window_config(tdbf_design design, double error, uint64_t capacity,
                                 uint64_t seed)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.error = error;
    cfg.window_ns = BURST_WINDOW_NS;
    cfg.capacity = capacity;
    cfg.seed = seed;
    return cfg;
}

static int measure_run(burst_run *run, const burst_sizes *z, uint64_t seed)
{
    tdbf_config cfg = window_config(run->design, run->error,
                                    run->sc->kind == SCENARIO_FILE ? run->file_keys
                                                                   : run->steady, seed);
    tdbf *f;
    int rc = tdbf_open(&f, &cfg);
    if (rc != TDBF_OK)
        return rc;
    uint64_t probes = probes_for(run->error, z);
    run->next_probe = 0;
    if (run->sc->kind == SCENARIO_FILE) {
        uint64_t end = 0;
        rc = add_file(f, run, &end);
        if (rc == TDBF_OK)
            rc = probe_moment(f, run, end, 1, run->file_keys, probes);
    } else {
        rc = add_until(f, run, change_ns());
        if (rc == TDBF_OK && run->burst > 0) {
            rc = add_until(f, run, change_ns() + 1);      /* the burst and its timestamp */
            if (rc == TDBF_OK)
                rc = probe_moment(f, run, change_ns(), 1,
                                  keys_between(run, change_ns() + 1 - BURST_WINDOW_NS,
                                               change_ns() + 1), probes);
        }
        if (rc == TDBF_OK)
            rc = probe_steps(f, run, z, probes);
    }
    tdbf_close(f);
    return rc;
}

/* The burst of burst1000: BURST_FACTOR x the steady keys of one of
 * tlbf-line's generations (T / l) at this error. */
static int burst_keys(double error, uint64_t steady, uint64_t seed, uint64_t *keys)
{
    tdbf_config cfg = window_config(TDBF_TLBF_LINE, error, steady, seed);
    tdbf_shape shape;
    int rc = tdbf_plan_shape(&cfg, &shape);
    if (rc != TDBF_OK)
        return rc;
    *keys = (uint64_t)(BURST_FACTOR * (double)steady / (double)(shape.l ? shape.l : 1));
    return TDBF_OK;
}

/* ---- the table ------------------------------------------------------------ */

/* 1: within the target with the whole interval; 0: the target is inside
 * the interval; -1: over it. */
static int within_target(double error, double low, double high)
{
    return high <= error ? 1 : low <= error ? 0 : -1;
}

static void report_run(const burst_run *run, cli_table *t, eval_csv *csv)
{
    double low, high, measured = (double)run->hits / (double)run->probes;
    lab_wilson95(run->hits, run->probes, &low, &high);
    int within = within_target(run->error, low, high);
    double bits = run->window_keys ? 8.0 * (double)run->memory_bytes / (double)run->window_keys
                                   : 0.0;
    double at_s = (double)run->moment_ns / (double)EVAL_NS;
    const char *name = tdbf_design_name(run->design);
    cli_table_cell(t, "%s", name);
    cli_table_cell(t, "%s", run->sc->name);
    cli_table_cell(t, "%g", run->error);
    if (run->peak)
        cli_table_cell(t, "peak %.3f s", at_s);
    else
        cli_table_cell(t, "step end %.1f s", at_s);
    cli_table_cell(t, "%llu", (unsigned long long)run->window_keys);
    cli_table_cell(t, "%.2f", bits);
    cli_table_cell(t, "%.3g", measured);
    cli_table_cell(t, "%.3g .. %.3g", low, high);
    cli_table_cell(t, "%.3g", run->current_error);
    cli_table_cell(t, "%s", within > 0 ? "yes" : within == 0 ? "~" : "NO");
    csv_line(csv, "%s,%s,%g,%.9f,%d,%llu,%llu,%.4f,%llu,%llu,%.6g,%.6g,%.6g,%.6g,%d", name,
             run->sc->name, run->error, at_s, run->peak, (unsigned long long)run->window_keys,
             (unsigned long long)run->memory_bytes, bits, (unsigned long long)run->probes,
             (unsigned long long)run->hits, measured, low, high, run->current_error, within);
}

/* The designs with a time window, tlbf-line (the default) first. */
static size_t time_designs(tdbf_design *out)
{
    size_t n = 0;
    out[n++] = TDBF_TLBF_LINE;
    for (int d = 0; d < TDBF_DESIGN_COUNT; d++) {
        tdbf_config cfg = window_config((tdbf_design)d, 0.01, 0, 1);
        tdbf_shape shape;
        if (d != TDBF_TLBF_LINE && tdbf_plan_shape(&cfg, &shape) == TDBF_OK)
            out[n++] = (tdbf_design)d;
    }
    return n;
}

static void print_notes(const eval_request *req, const burst_sizes *z)
{
    printf("Time-window designs at the worst moment, window 10 min (simulated clock)%s.\n"
           "file: %llu keys read at full speed (blocks of %d per timestamp, 5 us\n"
           "apart; capacity hint = the lines, as tdbf dedup gives it); steady: %llu keys\n"
           "per window (the hint); jump10: then 10x; burst1000: then 1000x the steady\n"
           "count of a tlbf-line generation at one timestamp.  moment: the peak of the\n"
           "file or burst, or the end of one of the design's age steps (T/l; rotating\n"
           "T/N; else T/8), the highest measured of up to %u.  Never-added probes,\n"
           "~%.0f / error per moment; 95 %% Wilson interval.  estimate:\n"
           "tdbf_current_error at that moment.  within: yes (interval <= error), ~ (the\n"
           "error inside it), NO (above it).\n\n",
           req->quick ? "\n-- QUICK RUN (--quick): a smaller file, rate and fewer probes" : "",
           (unsigned long long)z->file_keys, BURST_FILE_BLOCK,
           (unsigned long long)z->steady_keys, z->moments, z->hits);
}

static int run_burst(const char *cmd, const eval_request *req, eval_csv *csv)
{
    const burst_sizes *z = req->quick ? &quick_sizes : &full_sizes;
    tdbf_design designs[TDBF_DESIGN_COUNT];
    size_t n_designs = time_designs(designs);
    size_t n_scenarios = sizeof scenarios / sizeof scenarios[0];
    size_t n_errors = sizeof burst_errors / sizeof burst_errors[0];
    size_t steps = n_designs * n_scenarios * n_errors, step = 0;
    int progress = isatty(STDERR_FILENO);

    cli_table t;
    cli_table_init(&t, 10, "llrrrrrrrr");
    static const char *const headers[] = {
        "design", "scenario", "error", "moment", "keys/window", "bits/key", "measured",
        "95 % interval", "estimate", "within"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "design,scenario,error,moment_s,peak,window_keys,memory_bytes,bits_per_key,"
                  "probes,hits,measured,low95,high95,current_error,within_target");
    unsigned default_over = 0, over = 0;
    for (size_t e = 0; e < n_errors; e++) {
        uint64_t burst = 0;
        int rc = burst_keys(burst_errors[e], z->steady_keys, req->seed, &burst);
        for (size_t s = 0; s < n_scenarios && rc == TDBF_OK; s++) {
            for (size_t d = 0; d < n_designs && rc == TDBF_OK; d++) {
                burst_run run = {.sc = &scenarios[s], .design = designs[d],
                                 .error = burst_errors[e], .steady = z->steady_keys,
                                 .file_keys = z->file_keys};
                run.burst = run.sc->kind == SCENARIO_BURST ? burst : 0;
                lab_progress(progress, cmd, ++step, steps, "%s, %s, error %g",
                             tdbf_design_name(run.design), run.sc->name, run.error);
                rc = measure_run(&run, z, req->seed);
                if (rc != TDBF_OK) {
                    lab_progress_end(progress);
                    cli_table_free(&t);
                    return cli_lib_error(cmd, tdbf_design_name(run.design), rc);
                }
                double low, high;
                lab_wilson95(run.hits, run.probes, &low, &high);
                int missed = within_target(run.error, low, high) < 0;
                over += (unsigned)missed;
                default_over += (unsigned)(missed && run.design == TDBF_TLBF_LINE);
                report_run(&run, &t, csv);
            }
        }
        if (rc != TDBF_OK) {
            lab_progress_end(progress);
            cli_table_free(&t);
            return cli_lib_error(cmd, "tlbf-line", rc);
        }
    }
    lab_progress_end(progress);
    print_notes(req, z);
    int status = eval_print_table(&t, cmd, req);
    if (status != CLI_EXIT_OK)
        return status;
    printf("\n%zu runs, %u over the target, %u of them tlbf-line's (the default).\n", steps,
           over, default_over);
    return default_over ? CLI_EXIT_DATA : CLI_EXIT_OK;
}

const eval_experiment eval_burst = {
    "burst", "time designs' FP at the worst moment: file read, steady, rate x10, burst x1000",
    run_burst
};
