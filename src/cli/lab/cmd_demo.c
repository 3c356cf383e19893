/*
 * cmd_demo.c — `tdbf-lab demo`: a Zipf stream through the count-window
 * filters (APBF, apbf-line) and the time-window one (TLBF), each checked
 * against exact sliding windows, in a few screens.
 *
 * The workload (workload.c): N events drawn from K keys with Zipf(s)
 * popularity, each key the text "user:<id>/page:<rank>", generated once
 * for every run.
 *
 * Each filter F sees every event with tdbf_add (test-and-insert) beside
 * two exact windows:
 *   A  the span F guarantees (l*g insertions, or T);
 *   B  that span plus F's slack: the longest its own bits may survive;
 * and the event is classified:
 *   F present, A absent, B absent   false positive
 *   F present, A absent, B present  slack hit: an expired key still
 *                                   partially stored (expected)
 *   F absent,  A present            false negative: a bug, never expected
 * The FP rate is FPs / (events B reports absent), with its 95 % Wilson
 * interval (report.c).
 *
 * Count window: the APBF and the line-local APBF planned for window W and
 * error E; B is l*g + k*g + g (l+k shifts, plus the unfinished
 * generation).  Time window: the same keys arrive as a Poisson stream at
 * rate R for the first third of the events, 10 R for the middle third and
 * R again for the last (thirds of the events, not of the time: at the
 * defaults equal times would end the stream before its first window is
 * full); F is a TLBF for window T with the capacity hint R*T, B is
 * T + (k+1)*T/l, the expiry bound of tlbf.c.  The FP rate, the TLBF's
 * slices and memory are reported per phase.
 *
 * Then each filter and its exact window A are timed alone over the same
 * keys with the lab's timed loop (timing.c, as `tdbf-lab bench` and
 * `tdbf eval compare` time): the median ns per call over chunks of
 * calls.  The other designs against exact windows are `tdbf eval
 * compare`'s job, speed in depth `tdbf-lab bench`'s.
 */
#define _POSIX_C_SOURCE 200809L

#include "../cli.h"
#include "report.h"
#include "workload.h"
#include "timing.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tdbf.h>

#define NS_PER_S            UINT64_C(1000000000)

#define DEMO_DEFAULT_EVENTS UINT64_C(3000000)
#define DEMO_DEFAULT_WINDOW UINT64_C(100000)
#define DEMO_DEFAULT_ERROR  0.01
#define DEMO_DEFAULT_KEYS   UINT64_C(10000000)
#define DEMO_DEFAULT_ZIPF   1.0
#define DEMO_DEFAULT_SEED   UINT64_C(0x7464626664656d6f)   /* "tdbfdemo" */
#define DEMO_DEFAULT_TIME_WINDOW (UINT64_C(60) * NS_PER_S)
#define DEMO_DEFAULT_RATE   UINT64_C(20000)

#define DEMO_MAX_EVENTS     UINT64_C(200000000)   /* ~6 GB of keys */
#define DEMO_MAX_WINDOW     UINT64_C(1000000000)
#define DEMO_MAX_KEYS       UINT64_C(1000000000)  /* 125 MB bitmap */
#define DEMO_MAX_ZIPF       10.0
#define DEMO_MAX_RATE       UINT64_C(100000000)   /* the burst: 1 event/ns */
/* 30 days: rate x T, its 10x and T + slack stay far from 2^64. */
#define DEMO_MAX_TIME_WINDOW (UINT64_C(30) * 86400 * NS_PER_S)

#define BURST_FACTOR        10     /* the middle phase's rate, times the base */
#define PHASES              3      /* base, burst, base */
#define PROGRESS_EVERY      (UINT64_C(1) << 18)   /* events between redraws */

enum {
    OPT_EVENTS,
    OPT_WINDOW,
    OPT_ERROR,
    OPT_KEYS,
    OPT_ZIPF,
    OPT_SEED,
    OPT_TIME_WINDOW,
    OPT_RATE,
    OPT_NO_TIME,
    OPT_TIME_ONLY,
    OPT_QUIET
};

static const cli_option demo_options[] = {
    [OPT_EVENTS] = {"events", "N", "events in the stream of each run (default 3M)"},
    [OPT_WINDOW] = {"window", "W", "APBF window in insertions (default 100k)"},
    [OPT_ERROR]  = {"error", "E", "target false-positive rate of both filters "
                                  "(default 0.01)"},
    [OPT_KEYS]   = {"keys", "K", "size of the key universe (default 10M)"},
    [OPT_ZIPF]   = {"zipf", "S", "Zipf exponent, 0 = uniform (default 1.0)"},
    [OPT_SEED]   = {"seed", "X", "seed of the workload and the filters (default fixed)"},
    [OPT_TIME_WINDOW] = {"time-window", "T", "TLBF window, a duration such as 60s "
                                             "or 500ms (default 60s)"},
    [OPT_RATE]   = {"rate", "R", "base arrival rate, events/s (default 20k; "
                                 "10x in the middle third)"},
    [OPT_NO_TIME]   = {"no-time", NULL, "skip the time-window run (TLBF)"},
    [OPT_TIME_ONLY] = {"time-only", NULL, "skip the count-window run (APBF)"},
    [OPT_QUIET]  = {"quiet", NULL, "no progress line on stderr"},
    {NULL, NULL, NULL}
};

typedef struct demo_args {
    uint64_t events;
    uint64_t window;
    double   error;
    uint64_t keys;
    double   zipf;
    uint64_t seed;
    uint64_t time_window;    /* T, ns */
    uint64_t rate;           /* base arrival rate, events/s */
    int      run_count;      /* the APBF run */
    int      run_time;       /* the TLBF run */
    int      quiet;
} demo_args;

/* ======================================================================
 * The stream: keys for both runs, arrival times for the time-window run
 * ====================================================================== */

typedef struct demo_keys {
    char        *bytes;      /* every key, back to back, no terminators */
    const void **ptrs;       /* key i */
    size_t      *lens;       /* its length */
    size_t       count;
    uint64_t     distinct;   /* distinct keys among them */
} demo_keys;

/* What every step of a run needs. */
typedef struct demo_ctx {
    const demo_args *args;
    demo_keys        keys;
    uint64_t        *times;          /* time run: arrival of each event, ns */
    uint64_t         first[PHASES];  /* first event of each phase (segment) */
    uint64_t         rate[PHASES];   /* events per second */
    uint64_t         end_ns[PHASES]; /* arrival of a phase's last event */
    uint64_t         filter_seed;
    int              progress;       /* draw the progress line */
    size_t           step, steps;
    cli_chunk_times  chunks;         /* timings */
} demo_ctx;

static void progress(demo_ctx *ctx, const char *what, uint64_t done, uint64_t total)
{
    lab_progress(ctx->progress, "demo", ctx->step, ctx->steps, "%s %3d%%", what,
                 total ? (int)(done * 100 / total) : 0);
}

static void keys_free(demo_keys *keys)
{
    free(keys->bytes);
    free(keys->ptrs);
    free(keys->lens);
    memset(keys, 0, sizeof *keys);
}

/* Draw the keys, count the distinct ranks.  Returns 0, or -1 when out of
 * memory. */
static int generate_keys(demo_ctx *ctx)
{
    const demo_args *args = ctx->args;
    demo_keys *keys = &ctx->keys;
    size_t n = (size_t)args->events, used = 0, capacity = n * 28;
    keys->bytes = malloc(capacity);
    keys->ptrs = malloc(n * sizeof *keys->ptrs);
    keys->lens = malloc(n * sizeof *keys->lens);
    uint64_t *seen = calloc((size_t)(args->keys / 64 + 1), sizeof *seen);
    int failed = !keys->bytes || !keys->ptrs || !keys->lens || !seen;

    uint64_t rng = args->seed, salt = cli_mix64(args->seed ^ UINT64_C(0x5a17));
    lab_zipf zipf;
    lab_zipf_init(&zipf, args->keys, args->zipf);
    ctx->step++;
    for (size_t i = 0; i < n && !failed; i++) {
        if (i % PROGRESS_EVERY == 0)
            progress(ctx, "generating keys", i, n);
        if (capacity - used < LAB_KEY_TEXT_MAX) {
            char *grown = realloc(keys->bytes, capacity * 3 / 2);
            failed = grown == NULL;
            if (failed)
                break;
            keys->bytes = grown;
            capacity = capacity * 3 / 2;
        }
        uint64_t rank = lab_zipf_next(&zipf, &rng), bit = rank - 1;
        keys->distinct += !(seen[bit / 64] >> (bit % 64) & 1);
        seen[bit / 64] |= UINT64_C(1) << (bit % 64);
        keys->lens[i] = lab_key_text(keys->bytes + used, rank, salt);
        used += keys->lens[i];
    }
    free(seen);
    if (failed) {
        keys_free(keys);
        return -1;
    }
    /* Pointers only now: the buffer moved while it grew. */
    for (size_t i = 0, at = 0; i < n; at += keys->lens[i++])
        keys->ptrs[i] = keys->bytes + at;
    keys->count = n;
    return 0;
}

/* The phase (segment) of event i, moving forward from `phase`. */
static size_t phase_at(const demo_ctx *ctx, size_t phase, uint64_t i)
{
    while (phase + 1 < PHASES && i >= ctx->first[phase + 1])
        phase++;
    return phase;
}

/* Poisson arrivals: exponential gaps of mean 1/rate, at the base rate,
 * then BURST_FACTOR times faster, then at the base rate again; a random
 * stream of its own, so that the keys are those of the count run.
 * Returns 0, or -1 when out of memory. */
static int generate_times(demo_ctx *ctx)
{
    const demo_args *args = ctx->args;
    size_t n = ctx->keys.count, phase = 0;
    ctx->times = malloc(n * sizeof *ctx->times);
    if (ctx->times == NULL)
        return -1;
    for (size_t p = 0; p < PHASES; p++) {
        ctx->first[p] = (uint64_t)n * p / PHASES;
        ctx->rate[p] = p == 1 ? args->rate * BURST_FACTOR : args->rate;
    }
    uint64_t rng = cli_mix64(args->seed ^ UINT64_C(0x74696d6573));   /* "times" */
    double now_ns = 0.0;
    for (size_t i = 0; i < n; i++) {
        phase = phase_at(ctx, phase, i);
        now_ns += -log1p(-lab_uniform(&rng)) * (double)NS_PER_S / (double)ctx->rate[phase];
        ctx->times[i] = (uint64_t)now_ns;
        ctx->end_ns[phase] = ctx->times[i];
    }
    for (size_t p = 1; p < PHASES; p++)   /* empty phases (fewer than 3 events) */
        if (ctx->end_ns[p] < ctx->end_ns[p - 1])
            ctx->end_ns[p] = ctx->end_ns[p - 1];
    return 0;
}

/* ======================================================================
 * A filter against its exact windows, then timed
 * ====================================================================== */

/* One filter's run. */
typedef struct demo_result {
    const char *name;                  /* "APBF" */
    tdbf_config cfg;
    tdbf_stats  stats;                 /* F after the stream */
    tdbf_stats  exact;                 /* A after the stream */
    uint64_t    slack;                 /* insertions, or ns */
    uint64_t    false_positives, slack_hits, false_negatives;
    uint64_t    absent;                /* events B reports absent */
    uint64_t    first_fn_event;
    uint64_t    phase_fp[PHASES], phase_absent[PHASES];
    unsigned    phase_slices[PHASES];  /* F at the end of each phase */
    uint64_t    phase_memory[PHASES], phase_exact_memory[PHASES];
    double      add_ns, contains_ns;   /* F, median per call */
    double      exact_add_ns, exact_contains_ns;
} demo_result;

static int open_filter(tdbf **out, const tdbf_config *cfg, const char *what)
{
    int rc = tdbf_open(out, cfg);
    if (rc == TDBF_OK)
        return CLI_EXIT_OK;
    char window[32], msg[96];
    if (cfg->window_ns != 0)
        cli_format_duration_ns(window, sizeof window, cfg->window_ns);
    else
        cli_format_count(window, sizeof window, cfg->window_items);
    snprintf(msg, sizeof msg, "cannot open the %s (window %s)", what, window);
    return cli_lib_error("demo", msg, rc);
}

/* The filter's verdict on one event, against A (in_window) and B. */
static void classify(demo_result *r, size_t phase, uint64_t i, int in_filter,
                     int in_window, int in_linger)
{
    if (in_filter && !in_window) {
        r->slack_hits += (uint64_t)(in_linger != 0);
        r->false_positives += (uint64_t)(in_linger == 0);
    }
    if (!in_filter && in_window && r->false_negatives++ == 0)
        r->first_fn_event = i;
    if (!in_linger) {
        r->absent++;
        r->phase_absent[phase]++;
        r->phase_fp[phase] += (uint64_t)(in_filter != 0);
    }
}

/* F's and A's state at the end of a phase. */
static int phase_end(demo_result *r, size_t phase, const tdbf *f, const tdbf *a)
{
    tdbf_stats fs, as;
    int rc = tdbf_get_stats(f, &fs);
    if (rc == TDBF_OK)
        rc = tdbf_get_stats(a, &as);
    if (rc != TDBF_OK)
        return rc;
    r->phase_slices[phase] = fs.slices;
    r->phase_memory[phase] = fs.memory_bytes;
    r->phase_exact_memory[phase] = as.memory_bytes;
    return TDBF_OK;
}

/* Every event through F, A (window_cfg) and B (A + the slack). */
static int check_pass(demo_ctx *ctx, demo_result *r, tdbf *f, tdbf *a, tdbf *b)
{
    const demo_keys *keys = &ctx->keys;
    size_t phase = 0;
    ctx->step++;
    for (size_t i = 0; i < keys->count; i++) {
        if (i % PROGRESS_EVERY == 0)
            progress(ctx, r->name, i, keys->count);
        phase = phase_at(ctx, phase, i);
        uint64_t now = ctx->times != NULL ? ctx->times[i] : 0;
        const void *key = keys->ptrs[i];
        size_t len = keys->lens[i];
        int in_filter = tdbf_add(f, key, len, now);
        int in_window = tdbf_add(a, key, len, now);
        int in_linger = tdbf_add(b, key, len, now);
        if (in_filter < 0 || in_window < 0 || in_linger < 0)
            return in_filter < 0 ? in_filter : in_window < 0 ? in_window : in_linger;
        classify(r, phase, i, in_filter, in_window, in_linger);
        if (i + 1 == (phase + 1 < PHASES ? ctx->first[phase + 1] : keys->count)) {
            int rc = phase_end(r, phase, f, a);
            if (rc != TDBF_OK)
                return rc;
        }
    }
    int rc = tdbf_get_stats(f, &r->stats);
    return rc == TDBF_OK ? tdbf_get_stats(a, &r->exact) : rc;
}

/* Time tdbf_add then tdbf_contains over every key on a fresh filter:
 * the lab's timed loop, median ns per call. */
static int time_filter(demo_ctx *ctx, const tdbf_config *cfg, const char *what,
                       double *add_ns, double *contains_ns)
{
    tdbf *f;
    int status = open_filter(&f, cfg, what);
    if (status != CLI_EXIT_OK)
        return status;
    ctx->step++;
    progress(ctx, "timing", 0, 0);
    lab_calls calls = {.keys = ctx->keys.ptrs, .lens = ctx->keys.lens, .times = ctx->times};
    uint64_t yes = 0;
    int rc = lab_time_calls(f, LAB_ADD, &calls, ctx->keys.count, &ctx->chunks, &yes);
    *add_ns = cli_chunk_times_median(&ctx->chunks);
    if (rc == TDBF_OK)
        rc = lab_time_calls(f, LAB_CONTAINS, &calls, ctx->keys.count, &ctx->chunks, &yes);
    *contains_ns = cli_chunk_times_median(&ctx->chunks);
    tdbf_close(f);
    return rc == TDBF_OK ? CLI_EXIT_OK : cli_lib_error("demo", what, rc);
}

/* The exact window of F's guaranteed span (A), or of that plus the slack
 * (B, linger != 0). */
static void exact_config(const demo_ctx *ctx, const demo_result *r, int linger,
                         tdbf_config *cfg)
{
    tdbf_config_init(cfg);
    cfg->design = TDBF_EXACT;
    cfg->seed = ctx->filter_seed;
    if (r->cfg.window_ns != 0)
        cfg->window_ns = r->stats.window_ns + (linger ? r->slack : 0);
    else
        cfg->window_items = r->stats.window_items + (linger ? r->slack : 0);
}

/* Open F, read its shape and slack, run it against A and B, time F and
 * A.  r->name and r->cfg are set. */
static int run_filter(demo_ctx *ctx, demo_result *r)
{
    tdbf *f = NULL, *a = NULL, *b = NULL;
    tdbf_config a_cfg, b_cfg;
    int status = open_filter(&f, &r->cfg, r->name);
    if (status != CLI_EXIT_OK)
        return status;
    int rc = tdbf_get_stats(f, &r->stats);
    const tdbf_stats *st = &r->stats;
    if (rc == TDBF_OK && (st->l == 0 || (r->cfg.window_ns == 0 && st->generation_size == 0)))
        rc = TDBF_EINVAL;     /* no shape to derive the slack from */
    if (rc == TDBF_OK) {
        /* count: a key's bits survive l + k shifts after the end of its
         * generation; time (tlbf.c): its newest slice goes stale at most
         * k+1 generation spans of T/l after T. */
        r->slack = r->cfg.window_ns != 0
                       ? ((uint64_t)st->k + 1) * (st->window_ns / st->l)
                       : ((uint64_t)st->k + 1) * st->generation_size;
        exact_config(ctx, r, 0, &a_cfg);
        exact_config(ctx, r, 1, &b_cfg);
        status = open_filter(&a, &a_cfg, "exact window");
        if (status == CLI_EXIT_OK)
            status = open_filter(&b, &b_cfg, "exact window with the slack");
    }
    if (rc == TDBF_OK && status == CLI_EXIT_OK)
        rc = check_pass(ctx, r, f, a, b);
    tdbf_close(b);
    tdbf_close(a);
    tdbf_close(f);
    if (rc != TDBF_OK)
        return cli_lib_error("demo", r->name, rc);
    if (status == CLI_EXIT_OK)
        status = time_filter(ctx, &r->cfg, r->name, &r->add_ns, &r->contains_ns);
    if (status == CLI_EXIT_OK)
        status = time_filter(ctx, &a_cfg, "exact window", &r->exact_add_ns,
                             &r->exact_contains_ns);
    return status;
}

/* ======================================================================
 * Reports
 * ====================================================================== */

static double ratio(double numerator, double denominator)
{
    return denominator > 0.0 ? numerator / denominator : 0.0;
}

static double fp_rate(const demo_result *r)
{
    return ratio((double)r->false_positives, (double)r->absent);
}

/* One row: a label, a formatted value per filter (fmt gets a double),
 * the exact window's (NAN: blank). */
typedef double (*demo_value)(const demo_result *r);

static void value_row(cli_table *t, const char *label, const demo_result *rs, size_t n,
                      const char *fmt, demo_value value, double exact)
{
    cli_table_cell(t, "%s", label);
    for (size_t i = 0; i < n; i++)
        cli_table_cell(t, fmt, value(&rs[i]));
    if (isnan(exact))
        cli_table_cell(t, "%s", "");
    else
        cli_table_cell(t, fmt, exact);
}

/* The same for counts: thousands separators. */
static void count_row(cli_table *t, const char *label, const demo_result *rs, size_t n,
                      demo_value value)
{
    char cell[32];
    cli_table_cell(t, "%s", label);
    for (size_t i = 0; i < n; i++)
        cli_table_cell(t, "%s", cli_format_count(cell, sizeof cell, (uint64_t)value(&rs[i])));
    cli_table_cell(t, "%s", "");
}

static double v_false_negatives(const demo_result *r) { return (double)r->false_negatives; }
static double v_slack_hits(const demo_result *r) { return (double)r->slack_hits; }
static double v_false_positives(const demo_result *r) { return (double)r->false_positives; }
static double v_fp(const demo_result *r) { return fp_rate(r); }
static double v_add_ns(const demo_result *r) { return r->add_ns; }
static double v_contains_ns(const demo_result *r) { return r->contains_ns; }

static double v_fp_high(const demo_result *r)
{
    double low, high;
    lab_wilson95(r->false_positives, r->absent, &low, &high);
    return high;
}

static double v_planned(const demo_result *r) { return r->stats.error_planned; }

static double v_memory_ratio(const demo_result *r)
{
    return ratio((double)r->exact.memory_bytes, (double)r->stats.memory_bytes);
}

/* Cells built by hand: counts with separators, bytes, durations. */
static void text_row(cli_table *t, const char *label, char (*cells)[32], size_t n,
                     const char *exact)
{
    cli_table_cell(t, "%s", label);
    for (size_t i = 0; i < n; i++)
        cli_table_cell(t, "%s", cells[i]);
    cli_table_cell(t, "%s", exact);
}

/* The table of a run: its filters (rs[0 .. n-1]) side by side, then the
 * exact window of the first one's span.  `items` is the number of keys a
 * window holds, for bits per item. */
static int print_results(const demo_result *rs, size_t n, uint64_t items, int time_window)
{
    char cells[2][32], exact[32];
    const demo_result *first = &rs[0];
    cli_table t;
    cli_table_init(&t, n + 2, NULL);
    cli_table_cell(&t, "%s", "");
    for (size_t i = 0; i < n; i++)
        cli_table_cell(&t, "%s", rs[i].name);
    cli_table_cell(&t, "exact window");
    for (size_t i = 0; i < n; i++) {
        if (time_window)
            cli_format_duration_ns(cells[i], sizeof cells[i], rs[i].stats.window_ns);
        else
            cli_format_count(cells[i], sizeof cells[i], rs[i].stats.window_items);
    }
    text_row(&t, time_window ? "window" : "window guaranteed", cells, n, cells[0]);
    for (size_t i = 0; i < n; i++) {
        if (time_window)
            cli_format_duration_ns(cells[i], sizeof cells[i], rs[i].slack);
        else
            cli_format_count(cells[i], sizeof cells[i], rs[i].slack);
    }
    text_row(&t, "slack", cells, n, "");
    count_row(&t, "false negatives", rs, n, v_false_negatives);
    count_row(&t, "slack hits", rs, n, v_slack_hits);
    count_row(&t, "false positives", rs, n, v_false_positives);
    value_row(&t, "FP measured", rs, n, "%.3g", v_fp, NAN);
    value_row(&t, "FP, 95% upper bound", rs, n, "%.3g", v_fp_high, NAN);
    value_row(&t, time_window ? "FP planned at the hint" : "FP planned (worst case)", rs, n,
              "%.3g", v_planned, NAN);
    for (size_t i = 0; i < n; i++)
        cli_format_bytes(cells[i], sizeof cells[i], rs[i].stats.memory_bytes);
    text_row(&t, time_window ? "memory at the end" : "memory", cells, n,
             cli_format_bytes(exact, sizeof exact, first->exact.memory_bytes));
    for (size_t i = 0; i < n; i++)
        snprintf(cells[i], sizeof cells[i], "%.2f",
                 ratio((double)rs[i].stats.memory_bytes * 8.0, (double)items));
    snprintf(exact, sizeof exact, "%.1f",
             ratio((double)first->exact.memory_bytes * 8.0, (double)items));
    text_row(&t, "bits per window item", cells, n, exact);
    value_row(&t, "exact/filter memory", rs, n, "%.1fx", v_memory_ratio, NAN);
    value_row(&t, "ns per add", rs, n, "%.1f", v_add_ns, first->exact_add_ns);
    value_row(&t, "ns per contains", rs, n, "%.1f", v_contains_ns, first->exact_contains_ns);
    return lab_print_table(&t, "demo", 1);
}

/* The TLBF per phase: rate, span, FP, and what it and the exact window
 * held at the phase's end. */
static int print_phases(const demo_ctx *ctx, const demo_result *r)
{
    static const char *const names[PHASES] = {"1 (base)", "2 (burst)", "3 (base)"};
    char a[32], b[32];
    cli_table t;
    cli_table_init(&t, 7, "lrrrrrr");
    static const char *const headers[] = {"phase", "events/s", "stream time", "FP measured",
                                          "slices", "TLBF memory", "exact memory"};
    for (size_t c = 0; c < 7; c++)
        cli_table_cell(&t, "%s", headers[c]);
    for (size_t p = 0; p < PHASES; p++) {
        cli_table_cell(&t, "%s", names[p]);
        cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, ctx->rate[p]));
        cli_table_cell(&t, "%s .. %s",
                       cli_format_duration_ns(a, sizeof a, p == 0 ? 0 : ctx->end_ns[p - 1]),
                       cli_format_duration_ns(b, sizeof b, ctx->end_ns[p]));
        cli_table_cell(&t, "%.3g", ratio((double)r->phase_fp[p], (double)r->phase_absent[p]));
        cli_table_cell(&t, "%u", r->phase_slices[p]);
        cli_table_cell(&t, "%s", cli_format_bytes(a, sizeof a, r->phase_memory[p]));
        cli_table_cell(&t, "%s", cli_format_bytes(a, sizeof a, r->phase_exact_memory[p]));
    }
    return lab_print_table(&t, "demo", 1);
}

/* The closing line: no false negatives, and the FP rate against `bound`
 * (below it, or at least not significantly above: its interval reaches
 * it).  A false negative is said loudly on stderr: a library bug. */
static int print_verdict(const demo_result *rs, size_t n, double bound, const char *bound_name)
{
    int failed = 0;
    fputc('\n', stdout);
    for (size_t i = 0; i < n; i++) {
        const demo_result *r = &rs[i];
        double low, high, fp = fp_rate(r);
        lab_wilson95(r->false_positives, r->absent, &low, &high);
        double limit = isnan(bound) ? r->stats.error_planned : bound;
        if (r->false_negatives == 0) {
            printf("OK: %s: no false negatives; measured FP %.3g %s the %s %.3g.\n", r->name,
                   fp, fp <= limit ? "<=" : low <= limit ? "within noise of" : "ABOVE",
                   bound_name, limit);
            continue;
        }
        fflush(stdout);
        cli_error("demo", "FAILED: %llu FALSE NEGATIVES in the %s (first at event %llu): "
                  "keys added within its window were reported absent.  This is a bug "
                  "in the library.", (unsigned long long)r->false_negatives, r->name,
                  (unsigned long long)r->first_fn_event);
        failed = 1;
    }
    return failed;
}

/* ======================================================================
 * The two runs
 * ====================================================================== */

/* How many insertions the last window_ns of the time run holds ("within"
 * as the exact window counts it: now - arrival < T). */
static uint64_t in_window_at_end(const demo_ctx *ctx, uint64_t window_ns)
{
    size_t n = ctx->keys.count, oldest = n;
    while (oldest > 0 && ctx->times[n - 1] - ctx->times[oldest - 1] < window_ns)
        oldest--;
    return n - oldest;
}

static void filter_config(const demo_ctx *ctx, tdbf_design design, demo_result *r)
{
    tdbf_config_init(&r->cfg);
    r->cfg.design = design;
    r->cfg.error = ctx->args->error;
    r->cfg.seed = ctx->filter_seed;
}

static int count_run(demo_ctx *ctx, int *failed)
{
    const demo_args *args = ctx->args;
    char a[32], b[32];
    demo_result rs[2] = {{.name = "APBF"}, {.name = "apbf-line"}};
    filter_config(ctx, TDBF_APBF, &rs[0]);
    filter_config(ctx, TDBF_APBF_LINE, &rs[1]);
    for (size_t i = 0; i < 2; i++) {
        rs[i].cfg.window_items = args->window;
        int status = run_filter(ctx, &rs[i]);
        if (status != CLI_EXIT_OK) {
            lab_progress_end(ctx->progress);
            return status;
        }
    }
    lab_progress_end(ctx->progress);
    printf("\nCount window: the last %s insertions, error %g\n",
           cli_format_count(a, sizeof a, args->window), args->error);
    for (size_t i = 0; i < 2; i++)
        printf("  %-9s  k=%u l=%u, generation g=%s, %s\n", rs[i].name, rs[i].stats.k,
               rs[i].stats.l, cli_format_count(b, sizeof b, rs[i].stats.generation_size),
               i == 0 ? "slices of its own (the paper's layout)"
                      : "every key's slices in one cache-line unit");
    printf("\n");
    int status = print_results(rs, 2, rs[0].stats.window_items, 0);
    if (status == CLI_EXIT_OK)
        printf("\nA false negative, a key of the guaranteed window reported absent, must never\n"
               "happen.  A slack hit is an expired key still reported present (expected); a\n"
               "false positive, a key absent from the window and its slack reported present.\n"
               "FP planned: the analytic worst case, just before a shift with all keys\n"
               "distinct; repeated keys (Zipf) fill fewer bits.  Timings: median ns per call\n"
               "over chunks of %u calls, one pass of adds then one of contains, one thread.\n",
               LAB_CHUNK);
    if (status == CLI_EXIT_OK)
        *failed |= print_verdict(rs, 2, NAN, "planned worst case");
    return status;
}

static int time_run(demo_ctx *ctx, int *failed)
{
    const demo_args *args = ctx->args;
    char a[32], b[32], c[32], d[32];
    if (generate_times(ctx) != 0)
        return cli_error("demo", "out of memory generating %zu times", ctx->keys.count);
    demo_result r = {.name = "TLBF"};
    filter_config(ctx, TDBF_TLBF, &r);
    r.cfg.window_ns = args->time_window;
    /* rate x T at the base rate (in floating point: rate * ns overflows) */
    uint64_t hint = (uint64_t)((double)args->rate * (double)args->time_window / (double)NS_PER_S);
    r.cfg.capacity = hint != 0 ? hint : 1;
    int status = run_filter(ctx, &r);
    lab_progress_end(ctx->progress);
    if (status != CLI_EXIT_OK)
        return status;
    printf("\nTime window: the last %s, error %g; the same events arrive (Poisson) at %s/s,\n"
           "%s/s (%dx) in the middle third of the events, then %s/s again: %s of stream time\n",
           cli_format_duration_ns(a, sizeof a, args->time_window), args->error,
           cli_format_count(b, sizeof b, args->rate),
           cli_format_count(c, sizeof c, args->rate * BURST_FACTOR), BURST_FACTOR, b,
           cli_format_duration_ns(d, sizeof d, ctx->end_ns[PHASES - 1]));
    printf("  TLBF  k=%u l=%u, generations of T/l = %s, capacity hint %s (rate x T)\n\n",
           r.stats.k, r.stats.l,
           cli_format_duration_ns(a, sizeof a, args->time_window / r.stats.l),
           cli_format_count(b, sizeof b, r.cfg.capacity));
    status = print_results(&r, 1, in_window_at_end(ctx, args->time_window), 1);
    if (status == CLI_EXIT_OK) {
        printf("\nBits per window item: over the %s insertions of the last T.  The TLBF sizes\n"
               "each generation from the rate of the last one: its slices and memory at the end\n"
               "of each phase.\n",
               cli_format_count(a, sizeof a, in_window_at_end(ctx, args->time_window)));
        status = print_phases(ctx, &r);
    }
    if (status == CLI_EXIT_OK)
        *failed |= print_verdict(&r, 1, args->error, "target");
    return status;
}

/* ======================================================================
 * The command
 * ====================================================================== */

static int parse_args(const cli_command *self, int argc, char **argv,
                      demo_args *args)
{
    const char *cmd = self->name;
    cli_parser parser;
    cli_parser_init(&parser, cmd, self->options, argc, argv);
    const char *value;
    int opt;

    args->events = DEMO_DEFAULT_EVENTS;
    args->window = DEMO_DEFAULT_WINDOW;
    args->error = DEMO_DEFAULT_ERROR;
    args->keys = DEMO_DEFAULT_KEYS;
    args->zipf = DEMO_DEFAULT_ZIPF;
    args->seed = DEMO_DEFAULT_SEED;
    args->time_window = DEMO_DEFAULT_TIME_WINDOW;
    args->rate = DEMO_DEFAULT_RATE;
    args->run_count = 1;
    args->run_time = 1;
    args->quiet = 0;

    while ((opt = cli_next_option(&parser, &value)) != CLI_OPT_END) {
        int rc = 0;
        switch (opt) {
        case CLI_OPT_HELP:
            cli_command_help(self, stdout);
            return -1;
        case CLI_OPT_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_EVENTS:
            rc = cli_parse_count(cmd, "events", value, 1, DEMO_MAX_EVENTS,
                                 &args->events);
            break;
        case OPT_WINDOW:
            rc = cli_parse_count(cmd, "window", value, 1, DEMO_MAX_WINDOW,
                                 &args->window);
            break;
        case OPT_ERROR:
            rc = cli_parse_probability(cmd, "error", value, &args->error);
            break;
        case OPT_KEYS:
            rc = cli_parse_count(cmd, "keys", value, 1, DEMO_MAX_KEYS,
                                 &args->keys);
            break;
        case OPT_ZIPF:
            rc = cli_parse_real(cmd, "zipf", value, 0.0, DEMO_MAX_ZIPF,
                                &args->zipf);
            break;
        case OPT_SEED:
            rc = cli_parse_count(cmd, "seed", value, 0, UINT64_MAX,
                                 &args->seed);
            break;
        case OPT_TIME_WINDOW:
            rc = cli_parse_duration_ns(cmd, "time-window", value,
                                       &args->time_window);
            if (rc == 0 && args->time_window > DEMO_MAX_TIME_WINDOW) {
                cli_usage_error(cmd, "--time-window: '%s' is longer than 30 "
                                "days", value);
                rc = -1;
            }
            break;
        case OPT_RATE:
            rc = cli_parse_count(cmd, "rate", value, 1, DEMO_MAX_RATE,
                                 &args->rate);
            break;
        case OPT_NO_TIME:
            args->run_time = 0;
            break;
        case OPT_TIME_ONLY:
            args->run_count = 0;
            break;
        case OPT_QUIET:
            args->quiet = 1;
            break;
        default:
            return CLI_EXIT_USAGE;
        }
        if (rc != 0)
            return CLI_EXIT_USAGE;
    }
    if (!args->run_count && !args->run_time)
        return cli_usage_error(cmd, "--no-time and --time-only leave nothing "
                               "to run");
    return CLI_EXIT_OK;
}

static int run_demo(const cli_command *self, int argc, char **argv)
{
    demo_args args;
    int status = parse_args(self, argc, argv, &args);
    if (status < 0)
        return CLI_EXIT_OK;           /* --help */
    if (status != CLI_EXIT_OK)
        return status;

    uint64_t started = cli_now_ns();
    demo_ctx ctx = {.args = &args};
    ctx.progress = !args.quiet && isatty(STDERR_FILENO);
    /* keys; per filter a check and two timings */
    ctx.steps = 1 + (args.run_count ? 2 * 3 : 0) + (args.run_time ? 3 : 0);
    /* The filters get their own seed, derived from the workload's; never 0
     * (0 asks the library for a random seed). */
    ctx.filter_seed = cli_mix64(args.seed) | 1;
    /* One run keeps its phases (the time run's), the count run one. */
    ctx.first[1] = ctx.first[2] = args.events;

    int generated = generate_keys(&ctx);
    lab_progress_end(ctx.progress);
    if (generated != 0)
        return cli_error("demo", "out of memory generating %llu keys",
                         (unsigned long long)args.events);
    char a[32], b[32], c[32];
    printf("tdbf-lab demo: %s events, Zipf s=%g over %s keys (\"user:<id>/page:<rank>\"), "
           "seed 0x%llx:\n%s distinct.  Each filter sees every event beside an exact "
           "window of\nthe span it guarantees and one of that span plus its slack.\n",
           cli_format_count(a, sizeof a, args.events), args.zipf,
           cli_format_count(b, sizeof b, args.keys), (unsigned long long)args.seed,
           cli_format_count(c, sizeof c, ctx.keys.distinct));

    int failed = 0;
    if (args.run_count)
        status = count_run(&ctx, &failed);
    if (status == CLI_EXIT_OK && args.run_time) {
        fflush(stdout);
        status = time_run(&ctx, &failed);
    }
    if (status == CLI_EXIT_OK)
        printf("\nThe other designs against exact windows: tdbf eval compare.  Speed in "
               "depth:\ntdbf-lab bench.  (%.1f s)\n", (double)(cli_now_ns() - started) / 1e9);
    keys_free(&ctx.keys);
    free(ctx.times);
    cli_chunk_times_free(&ctx.chunks);
    if (status == CLI_EXIT_OK && failed)
        status = CLI_EXIT_DATA;
    return status;
}

const cli_command cli_cmd_demo = {
    .name = "demo",
    .summary = "a Zipf stream through an APBF and a TLBF vs exact windows",
    .usage = "[--events N] [--window W] [--error E] [--keys K] [--zipf S] "
             "[--seed X] [--time-window T] [--rate R] [--no-time | --time-only] "
             "[--quiet]",
    .details =
        "Generates N events over K keys with Zipf(S) popularity.\n"
        "\n"
        "Count-window run: adds each event to an APBF and a line-local APBF\n"
        "(apbf-line) planned for window W and error E, each beside two exact\n"
        "sliding windows: one of the filter's guaranteed window l*g (a miss\n"
        "there is a false negative: must never happen) and one of the longest\n"
        "time a key can linger, (l+k+1)*g (a hit absent from it is a false\n"
        "positive; one between the two is a slack hit).\n"
        "\n"
        "Time-window run: the same events get Poisson arrival times at R per\n"
        "second for the first third of the events, 10R for the middle third\n"
        "and R again for the last third.  They go to a TLBF for window T and\n"
        "error E with the capacity hint R*T, and to exact windows of T and of\n"
        "T + (k+1)*T/l, the TLBF's slack.  The TLBF must adapt to both rate\n"
        "changes; its FP rate, slices and memory are reported per phase.\n"
        "\n"
        "Each filter and its exact window are then timed over the same keys\n"
        "(and times), the median ns per call over chunks of calls.  Exit\n"
        "status 1 if a filter had a false negative.  The other designs:\n"
        "tdbf eval compare; speed in depth: tdbf-lab bench.\n",
    .options = demo_options,
    .run = run_demo,
};
