/*
 * cmd_demo.c — `tdbf demo`: a Zipf stream through an APBF, checked against
 * exact sliding windows.
 *
 * The workload: N events drawn from a universe of K keys with Zipf(s)
 * popularity (rank r has probability proportional to r^-s), each key the
 * string "user:<id>/page:<rank>".  Keys are generated once into a packed
 * array so that the timed loops measure the filters only.
 *
 * Every event goes through three filters with tdbf_add (test-and-insert):
 *   F  the APBF planned for window W and error E;
 *   A  an exact window of wg = l*g insertions, the APBF's guaranteed window;
 *   B  an exact window of wg + k*g + g insertions, the longest a key's own
 *      bits can survive in the APBF (l+k shifts, plus the unfinished
 *      generation).
 * and is classified:
 *   F present, A absent, B absent   false positive
 *   F present, A absent, B present  slack hit: an expired key still
 *                                   partially stored (expected)
 *   F absent,  A present            false negative: a bug, never expected
 * The measured FP rate is FPs / (events B reports absent), next to the
 * planned worst case stats.error_planned.
 *
 * Then each filter is timed alone over the same key array: ns per add and
 * ns per contains, APBF against the exact window of the same size.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tdbf.h>

#define DEMO_DEFAULT_EVENTS UINT64_C(3000000)
#define DEMO_DEFAULT_WINDOW UINT64_C(100000)
#define DEMO_DEFAULT_ERROR  0.01
#define DEMO_DEFAULT_KEYS   UINT64_C(10000000)
#define DEMO_DEFAULT_ZIPF   1.0
#define DEMO_DEFAULT_SEED   UINT64_C(0x7464626664656d6f)   /* "tdbfdemo" */

#define DEMO_MAX_EVENTS     UINT64_C(200000000)   /* ~6 GB of keys */
#define DEMO_MAX_WINDOW     UINT64_C(1000000000)
#define DEMO_MAX_KEYS       UINT64_C(1000000000)  /* 125 MB bitmap */
#define DEMO_MAX_ZIPF       10.0
#define DEMO_MAX_KEY_LEN    48

#define PROGRESS_EVERY      65536                 /* events between clock reads */
#define PROGRESS_PERIOD_NS  UINT64_C(500000000)

enum {
    OPT_EVENTS,
    OPT_WINDOW,
    OPT_ERROR,
    OPT_KEYS,
    OPT_ZIPF,
    OPT_SEED,
    OPT_QUIET
};

static const cli_option demo_options[] = {
    [OPT_EVENTS] = {"events", "N", "number of events in the stream (default 3M)"},
    [OPT_WINDOW] = {"window", "W", "APBF window in insertions (default 100k)"},
    [OPT_ERROR]  = {"error", "E", "APBF target false-positive rate (default 0.01)"},
    [OPT_KEYS]   = {"keys", "K", "size of the key universe (default 10M)"},
    [OPT_ZIPF]   = {"zipf", "S", "Zipf exponent, 0 = uniform (default 1.0)"},
    [OPT_SEED]   = {"seed", "X", "seed of the workload and the filters (default fixed)"},
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
    int      quiet;
} demo_args;

/* ======================================================================
 * Random numbers: xoshiro256** seeded through splitmix64
 * ====================================================================== */

typedef struct demo_rng {
    uint64_t state[4];
} demo_rng;

static uint64_t splitmix64_next(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A bijective scramble of one 64-bit value (the splitmix64 output step). */
static uint64_t mix64(uint64_t x)
{
    uint64_t copy = x;
    return splitmix64_next(&copy);
}

static void rng_seed(demo_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        rng->state[i] = splitmix64_next(&x);
}

static uint64_t rotl64(uint64_t x, int bits)
{
    return (x << bits) | (x >> (64 - bits));
}

static uint64_t rng_next(demo_rng *rng)
{
    uint64_t *s = rng->state;
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

/* Uniform in [0, 1) with 53 random bits. */
static double rng_uniform(demo_rng *rng)
{
    return (double)(rng_next(rng) >> 11) * 0x1.0p-53;
}

/* ======================================================================
 * Zipf sampler by rejection-inversion
 *
 * Hörmann & Derflinger, "Rejection-inversion to generate variates from
 * monotone discrete distributions" (ACM TOMACS 6(3), 1996).  We want
 * P(r) proportional to h(r) = r^-s for r = 1..n.  Take the continuous hat
 * h(x) = x^-s and its integral H(x) = (x^(1-s) - 1)/(1-s) (log x at s = 1).
 * Since h is convex, the area of h over [r - 1/2, r + 1/2] is at least
 * h(r); draw u uniformly in (H(3/2) - h(1), H(n + 1/2)], invert
 * x = H^-1(u), round to r, and accept when u >= H(r + 1/2) - h(r): the
 * accepted strip of each r is exactly h(r) wide, so r has the wanted
 * probability.  (For r = 1 the strip is the whole interval: always
 * accepted.)  A cheap squeeze, r - x <= 2 - H^-1(H(5/2) - h(2)), accepts
 * most draws without evaluating H.  O(1) memory, about 1.1 tries per draw
 * for any n and s >= 0.
 * ====================================================================== */

typedef struct zipf_sampler {
    uint64_t n;
    double   s;
    double   lower;      /* H(3/2) - h(1) */
    double   upper;      /* H(n + 1/2) */
    double   squeeze;    /* 2 - H^-1(H(5/2) - h(2)) */
} zipf_sampler;

/* expm1(t)/t, continuous at 0. */
static double expm1_over(double t)
{
    return fabs(t) > 1e-8 ? expm1(t) / t : 1.0 + t / 2.0;
}

/* log1p(t)/t, continuous at 0. */
static double log1p_over(double t)
{
    return fabs(t) > 1e-8 ? log1p(t) / t : 1.0 - t / 2.0;
}

static double zipf_h(const zipf_sampler *z, double x)
{
    return exp(-z->s * log(x));
}

/* H(x) = (x^(1-s) - 1)/(1-s) = log(x) * expm1((1-s) log x)/((1-s) log x) */
static double zipf_H(const zipf_sampler *z, double x)
{
    double log_x = log(x);
    return log_x * expm1_over((1.0 - z->s) * log_x);
}

/* H^-1(y) = exp(log1p((1-s) y)/(1-s)) */
static double zipf_H_inverse(const zipf_sampler *z, double y)
{
    return exp(y * log1p_over((1.0 - z->s) * y));
}

static void zipf_init(zipf_sampler *z, uint64_t n, double s)
{
    z->n = n;
    z->s = s;
    z->lower = zipf_H(z, 1.5) - 1.0;
    z->upper = zipf_H(z, (double)n + 0.5);
    z->squeeze = 2.0 - zipf_H_inverse(z, zipf_H(z, 2.5) - zipf_h(z, 2.0));
}

/* A rank in 1..n. */
static uint64_t zipf_next(const zipf_sampler *z, demo_rng *rng)
{
    for (;;) {
        double u = z->upper + rng_uniform(rng) * (z->lower - z->upper);
        double x = zipf_H_inverse(z, u);
        double rounded = floor(x + 0.5);
        uint64_t rank;
        if (!(rounded >= 1.0))
            rank = 1;
        else if (rounded >= (double)z->n)
            rank = z->n;
        else
            rank = (uint64_t)rounded;
        double r = (double)rank;
        if (r - x <= z->squeeze || u >= zipf_H(z, r + 0.5) - zipf_h(z, r))
            return rank;
    }
}

/* ======================================================================
 * Keys: "user:<id>/page:<rank>", packed back to back
 * ====================================================================== */

typedef struct demo_keys {
    char    *bytes;      /* every key, back to back, no terminators */
    uint8_t *lens;       /* lens[i] = length of key i */
    size_t   count;
    size_t   used;       /* bytes used */
    size_t   capacity;   /* bytes allocated */
} demo_keys;

static size_t put_decimal(char *out, uint64_t value)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (size_t i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

/* The key of a rank: a stable pseudo-random user id (so that popular keys
 * are not neighbours) and the rank itself (so that keys are distinct). */
static size_t format_key(char *out, uint64_t rank, uint64_t salt)
{
    size_t n = 0;
    memcpy(out + n, "user:", 5);
    n += 5;
    n += put_decimal(out + n, mix64(rank ^ salt) % UINT64_C(100000000));
    memcpy(out + n, "/page:", 6);
    n += 6;
    n += put_decimal(out + n, rank);
    return n;
}

static void keys_free(demo_keys *keys)
{
    free(keys->bytes);
    free(keys->lens);
    memset(keys, 0, sizeof *keys);
}

/* ======================================================================
 * Progress line on stderr (only on a terminal, only if not --quiet)
 * ====================================================================== */

typedef struct progress {
    int         enabled;
    const char *phase;
    uint64_t    total;
    uint64_t    last_ns;
} progress;

static void progress_show(progress *p, uint64_t done)
{
    char a[32], b[32];
    if (p->total == 0)                /* a phase without a count */
        fprintf(stderr, "\rtdbf demo: %-50s", p->phase);
    else
        fprintf(stderr, "\rtdbf demo: %-22s %3d%%  %s / %s ", p->phase,
                (int)(done * 100 / p->total),
                cli_format_count(a, sizeof a, done),
                cli_format_count(b, sizeof b, p->total));
    fflush(stderr);
}

static void progress_begin(progress *p, const char *phase, uint64_t total)
{
    p->phase = phase;
    p->total = total;
    p->last_ns = cli_now_ns();
    if (p->enabled)
        progress_show(p, 0);
}

/* Call every PROGRESS_EVERY events: redraws at most every 0.5 s. */
static void progress_update(progress *p, uint64_t done)
{
    if (!p->enabled)
        return;
    uint64_t now = cli_now_ns();
    if (now - p->last_ns >= PROGRESS_PERIOD_NS) {
        p->last_ns = now;
        progress_show(p, done);
    }
}

static void progress_clear(progress *p)
{
    if (p->enabled) {
        fprintf(stderr, "\r%72s\r", "");
        fflush(stderr);
    }
}

/* ======================================================================
 * The demo
 * ====================================================================== */

typedef struct demo_counts {
    uint64_t false_positives;
    uint64_t slack_hits;
    uint64_t false_negatives;
    uint64_t b_absent;          /* events truly absent (B said absent) */
    uint64_t fp_warm;           /* the same two after the warm-up */
    uint64_t b_absent_warm;
    uint64_t first_fn_event;    /* index of the first false negative */
} demo_counts;

typedef struct demo_timing {
    double add_ns;              /* ns per tdbf_add */
    double contains_ns;         /* ns per tdbf_contains */
    uint64_t sink;              /* results, so that nothing is dropped */
} demo_timing;

/* Generate the stream.  Returns 0, or -1 on allocation failure.  Counts
 * the distinct ranks in *distinct. */
static int generate_keys(const demo_args *args, demo_keys *keys,
                         uint64_t *distinct, progress *prog)
{
    memset(keys, 0, sizeof *keys);
    if (args->events > SIZE_MAX / (2 * DEMO_MAX_KEY_LEN))
        return -1;                    /* the buffers could not be sized */
    keys->lens = malloc((size_t)args->events);
    keys->capacity = (size_t)args->events * 28;
    keys->bytes = malloc(keys->capacity);
    uint64_t *seen = calloc((size_t)(args->keys / 64 + 1), sizeof *seen);
    if (keys->lens == NULL || keys->bytes == NULL || seen == NULL) {
        free(seen);
        keys_free(keys);
        return -1;
    }

    demo_rng rng;
    rng_seed(&rng, args->seed);
    zipf_sampler zipf;
    zipf_init(&zipf, args->keys, args->zipf);
    uint64_t salt = mix64(args->seed ^ UINT64_C(0x5a17));
    uint64_t count_distinct = 0;

    progress_begin(prog, "generating keys", args->events);
    for (uint64_t i = 0; i < args->events; i++) {
        if ((i & (PROGRESS_EVERY - 1)) == 0)
            progress_update(prog, i);
        if (keys->capacity - keys->used < DEMO_MAX_KEY_LEN) {
            size_t capacity = keys->capacity * 3 / 2;
            char *grown = realloc(keys->bytes, capacity);
            if (grown == NULL) {
                free(seen);
                keys_free(keys);
                return -1;
            }
            keys->bytes = grown;
            keys->capacity = capacity;
        }
        uint64_t rank = zipf_next(&zipf, &rng);
        uint64_t bit = rank - 1;
        if (!(seen[bit / 64] >> (bit % 64) & 1)) {
            seen[bit / 64] |= UINT64_C(1) << (bit % 64);
            count_distinct++;
        }
        size_t len = format_key(keys->bytes + keys->used, rank, salt);
        keys->lens[i] = (uint8_t)len;
        keys->used += len;
    }
    keys->count = (size_t)args->events;
    free(seen);
    *distinct = count_distinct;
    return 0;
}

static int open_filter(tdbf **out, tdbf_design design, uint64_t window,
                       double error, uint64_t seed, const char *what)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.window_items = window;
    cfg.error = error;
    cfg.seed = seed;
    int rc = tdbf_open(out, &cfg);
    if (rc != TDBF_OK) {
        char msg[96];
        snprintf(msg, sizeof msg, "cannot open the %s (window %llu)", what,
                 (unsigned long long)window);
        return cli_lib_error("demo", msg, rc);
    }
    return CLI_EXIT_OK;
}

/* The classification pass over F (apbf), A (exact wg), B (exact, longest
 * linger).  warmup = events before the APBF reaches steady state. */
static int classify(const demo_keys *keys, tdbf *apbf, tdbf *exact_a,
                    tdbf *exact_b, uint64_t warmup, demo_counts *counts,
                    progress *prog)
{
    memset(counts, 0, sizeof *counts);
    const char *key = keys->bytes;
    progress_begin(prog, "checking vs exact", keys->count);
    for (size_t i = 0; i < keys->count; i++) {
        if ((i & (PROGRESS_EVERY - 1)) == 0)
            progress_update(prog, i);
        size_t len = keys->lens[i];
        int in_filter = tdbf_add(apbf, key, len, 0);
        int in_window = tdbf_add(exact_a, key, len, 0);
        int in_linger = tdbf_add(exact_b, key, len, 0);
        key += len;
        if (in_filter < 0 || in_window < 0 || in_linger < 0) {
            progress_clear(prog);
            int rc = in_filter < 0 ? in_filter : in_window < 0 ? in_window
                                                               : in_linger;
            return cli_lib_error("demo", "tdbf_add", rc);
        }
        if (in_filter && !in_window) {
            if (in_linger)
                counts->slack_hits++;
            else
                counts->false_positives++;
        }
        if (!in_filter && in_window) {
            if (counts->false_negatives == 0)
                counts->first_fn_event = i;
            counts->false_negatives++;
        }
        if (!in_linger) {
            counts->b_absent++;
            if (i >= warmup) {
                counts->b_absent_warm++;
                counts->fp_warm += (uint64_t)(in_filter != 0);
            }
        }
    }
    return CLI_EXIT_OK;
}

/* Time add then contains over the whole key array on a fresh filter. */
static int time_filter(const demo_keys *keys, tdbf_design design,
                       uint64_t window, double error, uint64_t seed,
                       const char *what, demo_timing *timing, progress *prog)
{
    tdbf *f;
    int status = open_filter(&f, design, window, error, seed, what);
    if (status != CLI_EXIT_OK)
        return status;

    /* No progress updates inside the timed loops: just name the phase. */
    char phase[48];
    snprintf(phase, sizeof phase, "timing the %s...", what);
    progress_begin(prog, phase, 0);

    uint64_t sink = 0;
    int failed = 0;
    const char *key = keys->bytes;
    uint64_t start = cli_now_ns();
    for (size_t i = 0; i < keys->count; i++) {
        int rc = tdbf_add(f, key, keys->lens[i], 0);
        failed |= rc < 0;
        sink += (uint64_t)rc;
        key += keys->lens[i];
    }
    uint64_t middle = cli_now_ns();
    key = keys->bytes;
    for (size_t i = 0; i < keys->count; i++) {
        int rc = tdbf_contains(f, key, keys->lens[i], 0);
        failed |= rc < 0;
        sink += (uint64_t)rc;
        key += keys->lens[i];
    }
    uint64_t end = cli_now_ns();
    tdbf_close(f);

    if (failed) {
        progress_clear(prog);
        return cli_error("demo", "timing the %s: an add or contains failed",
                         what);
    }
    timing->add_ns = (double)(middle - start) / (double)keys->count;
    timing->contains_ns = (double)(end - middle) / (double)keys->count;
    timing->sink = sink;
    return CLI_EXIT_OK;
}

/* Wilson score interval for x successes out of n at 95 %. */
static void wilson95(uint64_t x, uint64_t n, double *low, double *high)
{
    if (n == 0) {
        *low = 0.0;
        *high = 1.0;
        return;
    }
    const double z = 1.959964;
    double p = (double)x / (double)n;
    double nn = (double)n;
    double denom = 1.0 + z * z / nn;
    double centre = (p + z * z / (2.0 * nn)) / denom;
    double half = z * sqrt(p * (1.0 - p) / nn + z * z / (4.0 * nn * nn)) / denom;
    *low = centre - half > 0.0 ? centre - half : 0.0;
    *high = centre + half < 1.0 ? centre + half : 1.0;
}

static double ratio(double numerator, double denominator)
{
    return denominator > 0.0 ? numerator / denominator : 0.0;
}

static int print_report(const demo_args *args, uint64_t distinct,
                         const tdbf_stats *apbf, const tdbf_stats *exact,
                         uint64_t linger, uint64_t warmup,
                         const demo_counts *counts, const demo_timing *t_apbf,
                         const demo_timing *t_exact, double elapsed_s)
{
    char a[32], b[32], c[32];
    double fp = ratio((double)counts->false_positives, (double)counts->b_absent);
    double fp_warm = ratio((double)counts->fp_warm, (double)counts->b_absent_warm);
    double low, high;

    printf("tdbf demo: %s events, Zipf s=%g over %s keys (\"user:<id>/page:<rank>\"), "
           "seed 0x%llx\n",
           cli_format_count(a, sizeof a, args->events), args->zipf,
           cli_format_count(b, sizeof b, args->keys),
           (unsigned long long)args->seed);
    printf("APBF k=%u l=%u, %s bits/slice, generation g=%s, planned for window "
           "%s at error %g\n\n",
           apbf->k, apbf->l, cli_format_count(a, sizeof a, apbf->slice_bits),
           cli_format_count(b, sizeof b, apbf->generation_size),
           cli_format_count(c, sizeof c, args->window), args->error);

    cli_table t;
    cli_table_init(&t, 3, "lrl");
    cli_table_cell(&t, "events");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, args->events));
    cli_table_cell(&t, "%s", "");
    cli_table_cell(&t, "distinct keys seen");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, distinct));
    cli_table_cell(&t, "%s", "");
    cli_table_cell(&t, "window requested");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, args->window));
    cli_table_cell(&t, "insertions");
    cli_table_cell(&t, "window guaranteed");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, apbf->window_items));
    cli_table_cell(&t, "l*g: never a false negative in it");
    cli_table_cell(&t, "slack");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, (uint64_t)apbf->k *
                                                           apbf->generation_size));
    cli_table_cell(&t, "k*g: keys fade out over %s more insertions",
                   cli_format_count(b, sizeof b, linger - apbf->window_items));
    cli_table_cell(&t, "false negatives");
    cli_table_cell(&t, "%llu", (unsigned long long)counts->false_negatives);
    cli_table_cell(&t, "%s", counts->false_negatives == 0 ? "(must be 0)"
                                                         : "<-- BUG");
    cli_table_cell(&t, "false positives");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a,
                                              counts->false_positives));
    cli_table_cell(&t, "of %s events absent from the last %s insertions",
                   cli_format_count(b, sizeof b, counts->b_absent),
                   cli_format_count(c, sizeof c, linger));
    wilson95(counts->false_positives, counts->b_absent, &low, &high);
    cli_table_cell(&t, "FP measured");
    cli_table_cell(&t, "%.3g", fp);
    cli_table_cell(&t, "95%% CI %.3g .. %.3g", low, high);
    wilson95(counts->fp_warm, counts->b_absent_warm, &low, &high);
    cli_table_cell(&t, "FP measured, steady state");
    cli_table_cell(&t, "%.3g", fp_warm);
    cli_table_cell(&t, "after the first %s events; 95%% CI %.3g .. %.3g",
                   cli_format_count(a, sizeof a, warmup), low, high);
    cli_table_cell(&t, "FP planned (worst case)");
    cli_table_cell(&t, "%.3g", apbf->error_planned);
    cli_table_cell(&t, "just before a shift, all keys distinct");
    cli_table_cell(&t, "FP estimated at the end");
    cli_table_cell(&t, "%.3g", apbf->error_estimated);
    cli_table_cell(&t, "from the fill of the slices");
    cli_table_cell(&t, "slack hits");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, counts->slack_hits));
    cli_table_cell(&t, "expired keys still reported (expected, not FPs)");
    int failed = cli_table_print(&t, stdout, "  ", 0) != 0;
    cli_table_free(&t);

    double apbf_bits = (double)apbf->memory_bytes * 8.0 / (double)apbf->window_items;
    double exact_bits = (double)exact->memory_bytes * 8.0 / (double)apbf->window_items;
    fputc('\n', stdout);
    cli_table_init(&t, 4, "lrrr");
    cli_table_cell(&t, "%s", "");
    cli_table_cell(&t, "APBF");
    cli_table_cell(&t, "exact window");
    cli_table_cell(&t, "exact/APBF");
    cli_table_cell(&t, "memory");
    cli_table_cell(&t, "%s", cli_format_bytes(a, sizeof a, apbf->memory_bytes));
    cli_table_cell(&t, "%s", cli_format_bytes(b, sizeof b, exact->memory_bytes));
    cli_table_cell(&t, "%.1fx", ratio((double)exact->memory_bytes,
                                      (double)apbf->memory_bytes));
    cli_table_cell(&t, "bits per window item");
    cli_table_cell(&t, "%.2f", apbf_bits);
    cli_table_cell(&t, "%.1f", exact_bits);
    cli_table_cell(&t, "%s", "");
    cli_table_cell(&t, "ns per add");
    cli_table_cell(&t, "%.1f", t_apbf->add_ns);
    cli_table_cell(&t, "%.1f", t_exact->add_ns);
    cli_table_cell(&t, "%.2fx", ratio(t_exact->add_ns, t_apbf->add_ns));
    cli_table_cell(&t, "ns per contains");
    cli_table_cell(&t, "%.1f", t_apbf->contains_ns);
    cli_table_cell(&t, "%.1f", t_exact->contains_ns);
    cli_table_cell(&t, "%.2fx", ratio(t_exact->contains_ns, t_apbf->contains_ns));
    failed |= cli_table_print(&t, stdout, "  ", 1) != 0;
    cli_table_free(&t);
    if (failed)
        return cli_error("demo", "out of memory printing the report");

    printf("\nThe planned FP is the analytic worst case, reached just before "
           "each shift with\nall keys distinct; on average over a generation "
           "the rate is lower, and repeated\nkeys (Zipf) fill fewer bits, "
           "lowering it further.  Timings: one pass of adds\nthen one of "
           "contains over the same %s pre-generated keys, one thread.\n",
           cli_format_count(a, sizeof a, args->events));

    /* The whole-run rate against the worst case: below it, or at least
     * not significantly above it (its 95% interval reaches the plan). */
    wilson95(counts->false_positives, counts->b_absent, &low, &high);
    const char *verdict = fp <= apbf->error_planned ? "<="
                          : low <= apbf->error_planned ? "within noise of"
                                                       : "ABOVE";
    if (counts->false_negatives == 0)
        printf("\nOK: no false negatives; measured FP %.3g %s the planned "
               "worst case %.3g.  (%.1f s)\n", fp, verdict,
               apbf->error_planned, elapsed_s);
    return CLI_EXIT_OK;
}

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
        case OPT_QUIET:
            args->quiet = 1;
            break;
        default:
            return CLI_EXIT_USAGE;
        }
        if (rc != 0)
            return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* What the accuracy pass found. */
typedef struct demo_result {
    tdbf_stats  apbf;       /* APBF stats after the stream */
    tdbf_stats  exact;      /* exact window (size l*g) stats after the stream */
    demo_counts counts;
    uint64_t    linger;     /* (l+k+1)*g: window of ground truth B */
    uint64_t    warmup;     /* events before the steady state */
} demo_result;

static int read_stats(const tdbf *f, tdbf_stats *out)
{
    int rc = tdbf_get_stats(f, out);
    return rc == TDBF_OK ? CLI_EXIT_OK : cli_lib_error("demo", "tdbf_get_stats", rc);
}

/* Open F, A and B, stream every key through them, classify. */
static int check_accuracy(const demo_args *args, const demo_keys *keys,
                          uint64_t filter_seed, demo_result *res,
                          progress *prog)
{
    tdbf *apbf = NULL, *exact_a = NULL, *exact_b = NULL;
    tdbf_stats *st = &res->apbf;

    memset(res, 0, sizeof *res);

    int status = open_filter(&apbf, TDBF_APBF, args->window, args->error,
                             filter_seed, "APBF");
    if (status == CLI_EXIT_OK)
        status = read_stats(apbf, st);
    if (status == CLI_EXIT_OK &&
        (st->window_items < args->window || st->generation_size == 0 ||
         st->window_items != (uint64_t)st->l * st->generation_size))
        status = cli_error("demo", "inconsistent APBF stats: window_items "
                           "%llu, l %u, generation_size %llu (requested "
                           "window %llu)",
                           (unsigned long long)st->window_items, st->l,
                           (unsigned long long)st->generation_size,
                           (unsigned long long)args->window);
    if (status == CLI_EXIT_OK) {
        uint64_t g = st->generation_size;
        /* The longest a key's own bits survive: l + k shifts after the end
         * of its generation. */
        res->linger = st->window_items + (uint64_t)st->k * g + g;
        /* Steady state: every slice has been cleared once. */
        res->warmup = ((uint64_t)st->k + st->l + 1) * g;
        status = open_filter(&exact_a, TDBF_EXACT, st->window_items,
                             args->error, filter_seed, "exact window");
    }
    if (status == CLI_EXIT_OK)
        status = open_filter(&exact_b, TDBF_EXACT, res->linger, args->error,
                             filter_seed, "exact linger window");
    if (status == CLI_EXIT_OK)
        status = classify(keys, apbf, exact_a, exact_b, res->warmup,
                          &res->counts, prog);
    if (status == CLI_EXIT_OK)
        status = read_stats(apbf, &res->apbf);
    if (status == CLI_EXIT_OK)
        status = read_stats(exact_a, &res->exact);
    tdbf_close(exact_b);
    tdbf_close(exact_a);
    tdbf_close(apbf);
    return status;
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
    progress prog = {0};
    prog.enabled = !args.quiet && isatty(STDERR_FILENO);
    /* The filters get their own seed, derived from the workload's; never 0
     * (0 asks the library for a random seed). */
    uint64_t filter_seed = mix64(args.seed) | 1;

    demo_keys keys;
    uint64_t distinct = 0;
    if (generate_keys(&args, &keys, &distinct, &prog) != 0) {
        progress_clear(&prog);
        return cli_error("demo", "out of memory generating %llu keys",
                         (unsigned long long)args.events);
    }

    demo_result res;
    demo_timing t_apbf, t_exact;
    status = check_accuracy(&args, &keys, filter_seed, &res, &prog);
    if (status == CLI_EXIT_OK)
        status = time_filter(&keys, TDBF_APBF, args.window, args.error,
                             filter_seed, "APBF", &t_apbf, &prog);
    if (status == CLI_EXIT_OK)
        status = time_filter(&keys, TDBF_EXACT, res.apbf.window_items,
                             args.error, filter_seed, "exact window", &t_exact,
                             &prog);
    progress_clear(&prog);
    keys_free(&keys);
    if (status != CLI_EXIT_OK)
        return status;

    status = print_report(&args, distinct, &res.apbf, &res.exact, res.linger,
                          res.warmup, &res.counts, &t_apbf, &t_exact,
                          (double)(cli_now_ns() - started) / 1e9);
    if (status != CLI_EXIT_OK)
        return status;

    if (res.counts.false_negatives != 0) {
        fflush(stdout);
        return cli_error("demo", "FAILED: %llu FALSE NEGATIVES (first at "
                         "event %llu): keys added within the last %llu "
                         "insertions were reported absent.  This is a bug "
                         "in the library.",
                         (unsigned long long)res.counts.false_negatives,
                         (unsigned long long)res.counts.first_fn_event,
                         (unsigned long long)res.apbf.window_items);
    }
    return CLI_EXIT_OK;
}

const cli_command cli_cmd_demo = {
    .name = "demo",
    .summary = "stream a Zipf workload through an APBF and exact windows, "
               "compare",
    .usage = "[--events N] [--window W] [--error E] [--keys K] [--zipf S] "
             "[--seed X] [--quiet]",
    .details =
        "Generates N events over K keys with Zipf(S) popularity, adds each to\n"
        "an APBF planned for window W and error E, and to two exact sliding\n"
        "windows: one of the APBF's guaranteed window l*g (a miss there is a\n"
        "false negative: must never happen) and one of the longest time a key\n"
        "can linger, (l+k+1)*g (a hit absent from it is a false positive; one\n"
        "between the two is a slack hit).  Then times adds and queries of the\n"
        "APBF and of the exact window over the same pre-generated keys.\n",
    .options = demo_options,
    .run = run_demo,
};
