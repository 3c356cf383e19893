/*
 * cmd_demo.c — `tdbf demo`: a Zipf stream through an APBF (count window)
 * and a TLBF (time window), each checked against exact sliding windows.
 *
 * The workload: N events drawn from a universe of K keys with Zipf(s)
 * popularity (rank r has probability proportional to r^-s), each key the
 * string "user:<id>/page:<rank>".  Keys are generated once into a packed
 * array that both runs share, so that the timed loops measure the filters
 * only.
 *
 * A run streams every event through three filters with tdbf_add
 * (test-and-insert):
 *   F  the filter under test;
 *   A  an exact window of the span F guarantees;
 *   B  an exact window of that span plus F's slack: the longest a key's
 *      own bits can survive in F;
 * and classifies it:
 *   F present, A absent, B absent   false positive
 *   F present, A absent, B present  slack hit: an expired key still
 *                                   partially stored (expected)
 *   F absent,  A present            false negative: a bug, never expected
 * The measured FP rate is FPs / (events B reports absent), with its 95 %
 * Wilson interval.
 *
 * Count-window run: F is the APBF planned for window W and error E; A
 * holds its guaranteed l*g insertions, B l*g + k*g + g (l+k shifts, plus
 * the unfinished generation).  The FP rate is set against the planned
 * worst case stats.error_planned, over the whole run and after warm-up.
 *
 * Time-window run: the same keys get arrival times, a Poisson stream at
 * rate R for the first third of the events, 10 R for the middle third and
 * R again for the last third.  (Thirds of the events, not of the time: at
 * the defaults, 3M events and T = 60 s, equal times would end the stream
 * before its first window is full.)  F is a TLBF for window T and error E
 * with the capacity hint R*T; A holds the last T, B the last
 * T + (k+1)*T/l, the expiry bound of tlbf.c.  The TLBF has to adapt to
 * the rate twice; its slices and memory are sampled about 100 times during
 * the pass and reported per phase, with the FP rate of each phase.
 *
 * Then each filter is timed alone over the same keys (and times): ns per
 * add and ns per contains, against the exact window A.
 */
#define _POSIX_C_SOURCE 200809L

#include "../cli.h"

#include <math.h>
#include <stdarg.h>
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
#define DEMO_DEFAULT_TIME_WINDOW (UINT64_C(60) * NS_PER_S)
#define DEMO_DEFAULT_RATE   UINT64_C(20000)

#define DEMO_MAX_EVENTS     UINT64_C(200000000)   /* ~6 GB of keys */
#define DEMO_MAX_WINDOW     UINT64_C(1000000000)
#define DEMO_MAX_KEYS       UINT64_C(1000000000)  /* 125 MB bitmap */
#define DEMO_MAX_ZIPF       10.0
#define DEMO_MAX_KEY_LEN    48
#define DEMO_MAX_RATE       UINT64_C(100000000)   /* the burst: 1 event/ns */
/* 30 days: rate x T, its 10x and T + slack stay far from 2^64. */
#define DEMO_MAX_TIME_WINDOW (UINT64_C(30) * 86400 * NS_PER_S)

#define NS_PER_S            UINT64_C(1000000000)
#define BURST_FACTOR        10     /* the middle phase's rate, times the base */
#define SAMPLES_PER_RUN     100    /* stats samples of F and A per time run */

/* A run's events fall into DEMO_SEGMENTS consecutive segments, reported
 * separately: warm-up and steady state in the count run (the third is
 * empty), the three rate phases in the time run. */
#define DEMO_SEGMENTS       3
enum { PHASE_BEFORE, PHASE_BURST, PHASE_AFTER };   /* time-run segments */

#define PROGRESS_EVERY      65536                 /* events between clock reads */

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
 * Random numbers: common/rng.h's generator, one state word
 * ====================================================================== */

typedef struct demo_rng {
    uint64_t state;
} demo_rng;

static void rng_seed(demo_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

/* Uniform in [0, 1) with 53 random bits. */
static double rng_uniform(demo_rng *rng)
{
    return (double)(cli_rng_next(&rng->state) >> 11) * 0x1.0p-53;
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
    n += put_decimal(out + n, cli_mix64(rank ^ salt) % UINT64_C(100000000));
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
        cli_progress("demo", "%s", p->phase);
    else
        cli_progress("demo", "%-22s %3d%%  %s / %s", p->phase, (int)(done * 100 / p->total),
                     cli_format_count(a, sizeof a, done),
                     cli_format_count(b, sizeof b, p->total));
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
    if (now - p->last_ns >= CLI_PROGRESS_PERIOD_NS) {
        p->last_ns = now;
        progress_show(p, done);
    }
}

static void progress_clear(progress *p)
{
    if (p->enabled)
        cli_progress_clear();
}

/* ======================================================================
 * The stream: keys for both runs, arrival times for the time-window run
 * ====================================================================== */

/* Generate the keys.  Returns 0, or -1 on allocation failure.  Counts
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
    uint64_t salt = cli_mix64(args->seed ^ UINT64_C(0x5a17));
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

/* The segment holding event i, moving forward from `segment` (events are
 * visited in order).  first_event[0] is 0. */
static size_t segment_at(const uint64_t *first_event, size_t segment,
                         uint64_t i)
{
    while (segment + 1 < DEMO_SEGMENTS && i >= first_event[segment + 1])
        segment++;
    return segment;
}

/* The time run's stream: three phases of a third of the events each. */
typedef struct demo_schedule {
    uint64_t *times;                        /* arrival of each event, ns */
    uint64_t  first_event[DEMO_SEGMENTS];   /* first event of each phase */
    uint64_t  rate[DEMO_SEGMENTS];          /* events per second */
    uint64_t  end_ns[DEMO_SEGMENTS];        /* arrival of its last event */
    uint64_t  peak_in_window;   /* most insertions ever within T */
    uint64_t  peak_at_ns;       /* ... reached at this arrival */
    uint64_t  in_window_at_end; /* insertions within T of the last one */
} demo_schedule;

/* Poisson arrivals: exponential gaps of mean 1/rate, at the base rate,
 * then BURST_FACTOR times faster, then at the base rate again.  A stream
 * of its own, so that the keys are those of the count run.  Returns 0, or
 * -1 on allocation failure. */
static int generate_times(const demo_args *args, size_t count,
                          demo_schedule *sched, progress *prog)
{
    memset(sched, 0, sizeof *sched);
    sched->times = malloc(count * sizeof *sched->times);
    if (sched->times == NULL)
        return -1;
    for (size_t phase = 0; phase < DEMO_SEGMENTS; phase++) {
        sched->first_event[phase] = (uint64_t)count * phase / DEMO_SEGMENTS;
        sched->rate[phase] = phase == PHASE_BURST ? args->rate * BURST_FACTOR
                                                  : args->rate;
    }

    demo_rng rng;
    rng_seed(&rng, cli_mix64(args->seed ^ UINT64_C(0x74696d6573)));   /* "times" */
    double now_ns = 0.0;
    size_t phase = 0;
    progress_begin(prog, "generating times", count);
    for (size_t i = 0; i < count; i++) {
        if ((i & (PROGRESS_EVERY - 1)) == 0)
            progress_update(prog, i);
        phase = segment_at(sched->first_event, phase, i);
        double mean_gap_ns = (double)NS_PER_S / (double)sched->rate[phase];
        now_ns += -log1p(-rng_uniform(&rng)) * mean_gap_ns;
        sched->times[i] = (uint64_t)now_ns;
        sched->end_ns[phase] = sched->times[i];
    }
    for (size_t p = 1; p < DEMO_SEGMENTS; p++)   /* empty phases (count < 3) */
        if (sched->end_ns[p] < sched->end_ns[p - 1])
            sched->end_ns[p] = sched->end_ns[p - 1];
    return 0;
}

/* rate x T at the base rate (in floating point: rate * ns overflows). */
static uint64_t insertions_per_window(const demo_args *args)
{
    return (uint64_t)((double)args->rate * (double)args->time_window /
                      (double)NS_PER_S);
}

/* How many insertions a window of window_ns holds: at most, and at the
 * end.  "Within" as the exact window counts it: now - arrival < T. */
static void window_occupancy(demo_schedule *sched, size_t count,
                             uint64_t window_ns)
{
    size_t oldest = 0;
    for (size_t i = 0; i < count; i++) {
        while (sched->times[i] - sched->times[oldest] >= window_ns)
            oldest++;
        if (i - oldest + 1 > sched->peak_in_window) {
            sched->peak_in_window = i - oldest + 1;
            sched->peak_at_ns = sched->times[i];
        }
    }
    sched->in_window_at_end = count - oldest;
}

/* ======================================================================
 * A run: F against the exact windows A and B, then timings
 * ====================================================================== */

typedef struct demo_counts {
    uint64_t false_positives;
    uint64_t slack_hits;
    uint64_t false_negatives;
    uint64_t b_absent;          /* events truly absent (B said absent) */
    uint64_t first_fn_event;    /* index of the first false negative */
    uint64_t segment_fp[DEMO_SEGMENTS];      /* false positives ... */
    uint64_t segment_absent[DEMO_SEGMENTS];  /* ... of b_absent, per segment */
} demo_counts;

/* F and A as sampled during a pass: the most they held, and what they
 * held at the end of each segment. */
typedef struct demo_samples {
    unsigned max_slices;                        /* F */
    uint64_t max_memory;                        /* F, bytes */
    uint64_t max_exact_memory;                  /* A, bytes */
    unsigned end_slices[DEMO_SEGMENTS];
    uint64_t end_memory[DEMO_SEGMENTS];
    uint64_t end_exact_memory[DEMO_SEGMENTS];
} demo_samples;

/* One classification pass. */
typedef struct demo_pass {
    const demo_keys *keys;
    const uint64_t  *times;      /* arrival per event; NULL: all at time 0 */
    tdbf            *filter;     /* F */
    tdbf            *exact_a;    /* A: F's guaranteed window */
    tdbf            *exact_b;    /* B: A plus F's slack */
    uint64_t         first_event[DEMO_SEGMENTS];  /* segment starts, [0] = 0 */
    uint64_t         sample_every; /* events between samples of F and A, 0: none */
    const char      *phase;      /* progress label */
} demo_pass;

typedef struct demo_timing {
    double add_ns;              /* ns per tdbf_add */
    double contains_ns;         /* ns per tdbf_contains */
    uint64_t sink;              /* results, so that nothing is dropped */
} demo_timing;

/* What a run measured, for its report. */
typedef struct demo_run {
    tdbf_stats  filter;         /* F after the stream */
    tdbf_stats  exact;          /* A after the stream */
    demo_counts counts;
    demo_samples samples;       /* taken in the time run only */
    demo_timing t_filter;
    demo_timing t_exact;
    uint64_t    started_ns;     /* when the run began */
} demo_run;

/* The configuration shared by the demo's filters: one seed for all. */
static void demo_config(tdbf_config *cfg, tdbf_design design, double error,
                        uint64_t seed)
{
    tdbf_config_init(cfg);
    cfg->design = design;
    cfg->error = error;
    cfg->seed = seed;
}

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

static int read_stats(const tdbf *f, tdbf_stats *out)
{
    int rc = tdbf_get_stats(f, out);
    return rc == TDBF_OK ? CLI_EXIT_OK : cli_lib_error("demo", "tdbf_get_stats", rc);
}

/* Fold F's slices and memory and A's memory into the maxima, and record
 * them as the segment's end values (the last sample of a segment is taken
 * at its last event).  Returns TDBF_OK or the library's error. */
static int take_sample(const demo_pass *pass, size_t segment,
                       demo_samples *samples)
{
    tdbf_stats filter, exact;
    int rc = tdbf_get_stats(pass->filter, &filter);
    if (rc == TDBF_OK)
        rc = tdbf_get_stats(pass->exact_a, &exact);
    if (rc != TDBF_OK)
        return rc;
    if (filter.slices > samples->max_slices)
        samples->max_slices = filter.slices;
    if (filter.memory_bytes > samples->max_memory)
        samples->max_memory = filter.memory_bytes;
    if (exact.memory_bytes > samples->max_exact_memory)
        samples->max_exact_memory = exact.memory_bytes;
    samples->end_slices[segment] = filter.slices;
    samples->end_memory[segment] = filter.memory_bytes;
    samples->end_exact_memory[segment] = exact.memory_bytes;
    return TDBF_OK;
}

/* Stream every event through F, A and B and classify it; with `samples`,
 * sample F and A every pass->sample_every events and at each segment's
 * end. */
static int classify(const demo_pass *pass, demo_counts *counts,
                    demo_samples *samples, progress *prog)
{
    const demo_keys *keys = pass->keys;
    const char *key = keys->bytes;
    size_t segment = 0;
    int rc = TDBF_OK;
    const char *failed_call = "tdbf_add";

    memset(counts, 0, sizeof *counts);
    if (samples != NULL)
        memset(samples, 0, sizeof *samples);
    progress_begin(prog, pass->phase, keys->count);
    for (size_t i = 0; i < keys->count; i++) {
        if ((i & (PROGRESS_EVERY - 1)) == 0)
            progress_update(prog, i);
        segment = segment_at(pass->first_event, segment, i);
        size_t len = keys->lens[i];
        uint64_t now = pass->times != NULL ? pass->times[i] : 0;
        int in_filter = tdbf_add(pass->filter, key, len, now);
        int in_window = tdbf_add(pass->exact_a, key, len, now);
        int in_linger = tdbf_add(pass->exact_b, key, len, now);
        key += len;
        if (in_filter < 0 || in_window < 0 || in_linger < 0) {
            rc = in_filter < 0 ? in_filter : in_window < 0 ? in_window : in_linger;
            break;
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
            counts->segment_absent[segment]++;
            counts->segment_fp[segment] += (uint64_t)(in_filter != 0);
        }
        if (samples != NULL && pass->sample_every != 0) {
            uint64_t segment_end = segment + 1 < DEMO_SEGMENTS
                                       ? pass->first_event[segment + 1] : keys->count;
            if ((i + 1) % pass->sample_every == 0 || i + 1 == segment_end) {
                rc = take_sample(pass, segment, samples);
                failed_call = "tdbf_get_stats";
                if (rc != TDBF_OK)
                    break;
            }
        }
    }
    if (rc != TDBF_OK) {
        progress_clear(prog);
        return cli_lib_error("demo", failed_call, rc);
    }
    return CLI_EXIT_OK;
}

/* Open A (F's guaranteed window) and B (that plus the slack), classify
 * the pass, and read A's final stats into run->exact.  F stays open. */
static int check_against_exact(demo_pass *pass, const tdbf_config *window_cfg,
                               const tdbf_config *linger_cfg, demo_run *run,
                               demo_samples *samples, progress *prog)
{
    int status = open_filter(&pass->exact_a, window_cfg, "exact window");
    if (status == CLI_EXIT_OK)
        status = open_filter(&pass->exact_b, linger_cfg, "exact linger window");
    if (status == CLI_EXIT_OK)
        status = classify(pass, &run->counts, samples, prog);
    if (status == CLI_EXIT_OK)
        status = read_stats(pass->exact_a, &run->exact);
    tdbf_close(pass->exact_b);
    tdbf_close(pass->exact_a);
    pass->exact_a = pass->exact_b = NULL;
    return status;
}

/* Time add then contains over every key (at its arrival time, if any) on
 * a fresh filter. */
static int time_filter(const demo_keys *keys, const uint64_t *times,
                       const tdbf_config *cfg, const char *what,
                       demo_timing *timing, progress *prog)
{
    tdbf *f;
    int status = open_filter(&f, cfg, what);
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
        int rc = tdbf_add(f, key, keys->lens[i], times != NULL ? times[i] : 0);
        failed |= rc < 0;
        sink += (uint64_t)rc;
        key += keys->lens[i];
    }
    uint64_t middle = cli_now_ns();
    key = keys->bytes;
    for (size_t i = 0; i < keys->count; i++) {
        int rc = tdbf_contains(f, key, keys->lens[i], times != NULL ? times[i] : 0);
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

/* ======================================================================
 * Reports
 * ====================================================================== */

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

static double fp_rate(uint64_t false_positives, uint64_t absent)
{
    return ratio((double)false_positives, (double)absent);
}

/* A row of a probability (an FP rate) with a fixed note. */
static void rate_row(cli_table *t, const char *label, double value,
                     const char *note)
{
    cli_table_cell(t, "%s", label);
    cli_table_cell(t, "%.3g", value);
    cli_table_cell(t, "%s", note);
}

/* The rows of the first table both runs share.  `linger` names B's
 * window ("115,000 insertions"). */
static void accuracy_rows(cli_table *t, const demo_counts *counts,
                          const char *linger)
{
    char a[32], b[32];
    double low, high;
    cli_table_cell(t, "false negatives");
    cli_table_cell(t, "%llu", (unsigned long long)counts->false_negatives);
    cli_table_cell(t, "%s", counts->false_negatives == 0 ? "(must be 0)"
                                                        : "<-- BUG");
    cli_table_cell(t, "slack hits");
    cli_table_cell(t, "%s", cli_format_count(a, sizeof a, counts->slack_hits));
    cli_table_cell(t, "expired keys still reported (expected, not FPs)");
    cli_table_cell(t, "false positives");
    cli_table_cell(t, "%s", cli_format_count(a, sizeof a,
                                             counts->false_positives));
    cli_table_cell(t, "of %s events absent from the last %s",
                   cli_format_count(b, sizeof b, counts->b_absent), linger);
    wilson95(counts->false_positives, counts->b_absent, &low, &high);
    cli_table_cell(t, "FP measured");
    cli_table_cell(t, "%.3g", fp_rate(counts->false_positives, counts->b_absent));
    cli_table_cell(t, "95%% CI %.3g .. %.3g", low, high);
}

/* Print a table and free it.  Returns 0, or -1 if it could not be built. */
static int table_flush(cli_table *t, int header_rule)
{
    int failed = cli_table_print(t, stdout, "  ", header_rule) != 0;
    cli_table_free(t);
    return failed ? -1 : 0;
}

/* F against the exact window A: memory, bits per item of the window
 * (window_items, insertions), and speed.  With samples, also the most
 * memory either held during the run. */
static int print_cost_table(const char *name, const demo_run *run,
                            uint64_t window_items, const demo_samples *samples)
{
    char a[32], b[32];
    const tdbf_stats *filter = &run->filter, *exact = &run->exact;
    cli_table t;

    fputc('\n', stdout);
    cli_table_init(&t, 4, "lrrr");
    cli_table_cell(&t, "%s", "");
    cli_table_cell(&t, "%s", name);
    cli_table_cell(&t, "exact window");
    cli_table_cell(&t, "exact/%s", name);
    cli_table_cell(&t, "%s", samples != NULL ? "memory at the end" : "memory");
    cli_table_cell(&t, "%s", cli_format_bytes(a, sizeof a, filter->memory_bytes));
    cli_table_cell(&t, "%s", cli_format_bytes(b, sizeof b, exact->memory_bytes));
    cli_table_cell(&t, "%.1fx", ratio((double)exact->memory_bytes,
                                      (double)filter->memory_bytes));
    if (samples != NULL) {
        cli_table_cell(&t, "memory, peak sampled");
        cli_table_cell(&t, "%s", cli_format_bytes(a, sizeof a, samples->max_memory));
        cli_table_cell(&t, "%s", cli_format_bytes(b, sizeof b,
                                                  samples->max_exact_memory));
        cli_table_cell(&t, "%.1fx", ratio((double)samples->max_exact_memory,
                                          (double)samples->max_memory));
    }
    cli_table_cell(&t, "%s", samples != NULL ? "bits per window item at the end"
                                             : "bits per window item");
    cli_table_cell(&t, "%.2f", ratio((double)filter->memory_bytes * 8.0,
                                     (double)window_items));
    cli_table_cell(&t, "%.1f", ratio((double)exact->memory_bytes * 8.0,
                                     (double)window_items));
    cli_table_cell(&t, "%s", "");
    cli_table_cell(&t, "ns per add");
    cli_table_cell(&t, "%.1f", run->t_filter.add_ns);
    cli_table_cell(&t, "%.1f", run->t_exact.add_ns);
    cli_table_cell(&t, "%.2fx", ratio(run->t_exact.add_ns, run->t_filter.add_ns));
    cli_table_cell(&t, "ns per contains");
    cli_table_cell(&t, "%.1f", run->t_filter.contains_ns);
    cli_table_cell(&t, "%.1f", run->t_exact.contains_ns);
    cli_table_cell(&t, "%.2fx", ratio(run->t_exact.contains_ns,
                                      run->t_filter.contains_ns));
    return table_flush(&t, 1);
}

/* The closing line of a run: the whole-run FP rate against `bound`:
 * below it, or at least not significantly above it (its 95% interval
 * reaches the bound). */
static void print_verdict(const demo_run *run, double bound,
                          const char *bound_name)
{
    const demo_counts *counts = &run->counts;
    if (counts->false_negatives != 0)
        return;
    double fp = fp_rate(counts->false_positives, counts->b_absent);
    double low, high;
    wilson95(counts->false_positives, counts->b_absent, &low, &high);
    const char *verdict = fp <= bound ? "<="
                          : low <= bound ? "within noise of" : "ABOVE";
    printf("\nOK: no false negatives; measured FP %.3g %s the %s %.3g.  "
           "(%.1f s)\n", fp, verdict, bound_name, bound,
           (double)(cli_now_ns() - run->started_ns) / 1e9);
}

/* Say loudly, on stderr after the report, that F lost keys it must hold. */
static void report_false_negatives(const demo_counts *counts,
                                   const char *filter, const char *window)
{
    fflush(stdout);
    cli_error("demo", "FAILED: %llu FALSE NEGATIVES in the %s (first at "
              "event %llu): keys added within the last %s were reported "
              "absent.  This is a bug in the library.",
              (unsigned long long)counts->false_negatives, filter,
              (unsigned long long)counts->first_fn_event, window);
}

/* ======================================================================
 * The other designs: a compact table per run
 *
 * ROTATING, FPDECAY and STABLE in the count-window run, on at most the
 * first EXTRA_EVENTS events (the exact windows triple the cost of a
 * pass), and CLOCK and ROTATING in the time-window run, on all of it (the
 * burst), each through the same classification against exact windows.  CLOCK and ROTATING must have
 * no false negatives; FPDECAY and STABLE forget at random by design, so
 * their false-negative rate is reported as expected, not as a failure.
 * ====================================================================== */

#define EXTRA_EVENTS UINT64_C(1000000)

typedef struct extra_design {
    const char *name;
    tdbf_config cfg;          /* F */
    tdbf_config window_cfg;   /* A: the window F answers for */
    tdbf_config linger_cfg;   /* B: A plus F's slack */
    int         forgets;      /* FPDECAY, STABLE: FN expected */
} extra_design;

static void extra_header(cli_table *t, const char *per_item)
{
    cli_table_cell(t, "design");
    cli_table_cell(t, "memory");
    cli_table_cell(t, "%s", per_item);
    cli_table_cell(t, "FP measured");
    cli_table_cell(t, "FP planned");
    cli_table_cell(t, "FN rate");
    cli_table_cell(t, "ns/add");
}

/* Run one design over `keys` and add its row; sets *failed on a false
 * negative of a design that must have none. */
static int extra_row(cli_table *t, const demo_keys *keys, const uint64_t *times,
                     extra_design *x, uint64_t per_window, progress *prog,
                     int *failed)
{
    demo_run run;
    tdbf *f = NULL;
    char phase[48], memory[32];

    memset(&run, 0, sizeof run);
    int status = open_filter(&f, &x->cfg, x->name);
    if (status != CLI_EXIT_OK)
        return status;
    snprintf(phase, sizeof phase, "%s vs exact windows", x->name);
    demo_pass pass = {
        .keys = keys,
        .times = times,
        .filter = f,
        .first_event = {0, keys->count, keys->count},
        .phase = phase,
    };
    status = check_against_exact(&pass, &x->window_cfg, &x->linger_cfg, &run,
                                 NULL, prog);
    if (status == CLI_EXIT_OK)
        status = read_stats(f, &run.filter);
    tdbf_close(f);
    if (status == CLI_EXIT_OK)
        status = time_filter(keys, times, &x->cfg, x->name, &run.t_filter, prog);
    progress_clear(prog);
    if (status != CLI_EXIT_OK)
        return status;

    const demo_counts *c = &run.counts;
    uint64_t present = keys->count - c->b_absent;   /* B said present */
    cli_table_cell(t, "%s", x->name);
    cli_table_cell(t, "%s", cli_format_bytes(memory, sizeof memory,
                                             run.filter.memory_bytes));
    cli_table_cell(t, "%.1f", 8.0 * (double)run.filter.memory_bytes /
                                  (double)(per_window ? per_window : 1));
    cli_table_cell(t, "%.3g", fp_rate(c->false_positives, c->b_absent));
    cli_table_cell(t, "%.3g", run.filter.error_planned);
    if (x->forgets)
        cli_table_cell(t, "%.3g (expected)",
                       ratio((double)c->false_negatives, (double)present));
    else
        cli_table_cell(t, "%s", c->false_negatives == 0 ? "0" : "NONZERO: bug");
    cli_table_cell(t, "%.1f", run.t_filter.add_ns);
    if (!x->forgets && c->false_negatives != 0) {
        char window[48];
        snprintf(window, sizeof window, "the %s window", x->name);
        report_false_negatives(c, x->name, window);
        *failed = 1;
    }
    return CLI_EXIT_OK;
}

/* The first EXTRA_EVENTS keys (a view: nothing is copied). */
static demo_keys extra_prefix(const demo_keys *keys)
{
    demo_keys prefix = *keys;
    if (prefix.count > EXTRA_EVENTS)
        prefix.count = (size_t)EXTRA_EVENTS;
    return prefix;
}

static int extra_table(const char *title, const demo_keys *keys,
                       const uint64_t *times, extra_design *designs,
                       size_t count, uint64_t per_window, const char *per_item,
                       progress *prog, int *failed)
{
    cli_table t;
    char events[32];
    cli_table_init(&t, 7, "lrrrrrr");
    extra_header(&t, per_item);
    int status = CLI_EXIT_OK;
    for (size_t i = 0; i < count && status == CLI_EXIT_OK; i++)
        status = extra_row(&t, keys, times, &designs[i], per_window, prog, failed);
    if (status != CLI_EXIT_OK) {
        cli_table_free(&t);
        return status;
    }
    printf("\n%s, over %s %s events:\n", title,
           keys->count > EXTRA_EVENTS ? "all" : "the first",
           cli_format_count(events, sizeof events, keys->count));
    if (table_flush(&t, 1) != 0)
        return cli_error("demo", "out of memory printing the report");
    return CLI_EXIT_OK;
}

/* ROTATING, FPDECAY and STABLE for the count window W.  FP counts yes for
 * keys B has not seen: ROTATING's B is its window N*g plus one share g
 * (a key stays until its filter retires); FPDECAY and STABLE have no hard
 * window, so their B is 8 W (by then a key has almost surely faded) and
 * their FN is a miss of a key seen in the last W insertions. */
static int count_extra_run(const demo_args *args, const demo_keys *all,
                           uint64_t filter_seed, progress *prog, int *failed)
{
    static const tdbf_design designs[] = {TDBF_ROTATING, TDBF_FPDECAY, TDBF_STABLE};
    extra_design x[3];
    demo_keys keys = extra_prefix(all);
    for (size_t i = 0; i < 3; i++) {
        extra_design *d = &x[i];
        demo_config(&d->cfg, designs[i], args->error, filter_seed);
        d->cfg.window_items = args->window;
        d->name = designs[i] == TDBF_ROTATING ? "ROTATING"
                : designs[i] == TDBF_FPDECAY ? "FPDECAY" : "STABLE";
        d->forgets = designs[i] != TDBF_ROTATING;
        demo_config(&d->window_cfg, TDBF_EXACT, args->error, filter_seed);
        d->window_cfg.window_items = args->window;
        d->linger_cfg = d->window_cfg;
        d->linger_cfg.window_items = 8 * args->window;
        if (designs[i] == TDBF_ROTATING) {
            tdbf_design_plan plan;
            int rc = tdbf_plan_design(&d->cfg, &plan);
            if (rc != TDBF_OK)
                return cli_lib_error("demo", "planning ROTATING", rc);
            uint64_t share = plan.capacity / plan.resolution;
            d->window_cfg.window_items = plan.capacity;
            d->linger_cfg.window_items = plan.capacity + share;
        }
    }
    return extra_table("The other count-window designs (FPDECAY and STABLE "
                       "forget at random by design:\ntheir FN rate is "
                       "expected; FP counts keys unseen for 8 W)",
                       &keys, NULL, x, 3, args->window, "bits/item of W",
                       prog, failed);
}

/* CLOCK and ROTATING for the time window T with the TLBF's capacity hint
 * C (fixed memory: FP rises in the burst, never a false negative).  B is
 * T plus the expiry slack: CLOCK (d+1)L - T + d + 1 ns, L = ceil(T/d);
 * ROTATING one span ceil(T/N) + 1 ns while the ring is not capped. */
static int time_extra_run(const demo_args *args, const demo_keys *all,
                          const uint64_t *times, uint64_t capacity,
                          uint64_t filter_seed, progress *prog, int *failed)
{
    static const tdbf_design designs[] = {TDBF_CLOCK, TDBF_ROTATING};
    extra_design x[2];
    /* the whole stream: the burst is what these fixed-memory designs show */
    demo_keys keys = *all;
    uint64_t T = args->time_window;
    for (size_t i = 0; i < 2; i++) {
        extra_design *d = &x[i];
        demo_config(&d->cfg, designs[i], args->error, filter_seed);
        d->cfg.window_ns = T;
        d->cfg.capacity = capacity;
        d->name = designs[i] == TDBF_CLOCK ? "CLOCK" : "ROTATING";
        d->forgets = 0;
        tdbf_design_plan plan;
        int rc = tdbf_plan_design(&d->cfg, &plan);
        if (rc != TDBF_OK)
            return cli_lib_error("demo", "planning the time-window designs", rc);
        uint64_t d_ticks = plan.resolution;
        uint64_t slack = designs[i] == TDBF_CLOCK
            ? (d_ticks + 1) * (T / d_ticks + (T % d_ticks != 0)) - T + d_ticks + 1
            : T / d_ticks + (T % d_ticks != 0) + 1;
        demo_config(&d->window_cfg, TDBF_EXACT, args->error, filter_seed);
        d->window_cfg.window_ns = T;
        d->linger_cfg = d->window_cfg;
        d->linger_cfg.window_ns = T + slack;
    }
    return extra_table("The other time-window designs (fixed memory sized for "
                       "the base rate:\nFP rises in the burst, never a false "
                       "negative)",
                       &keys, times, x, 2, capacity, "bits/item of R*T",
                       prog, failed);
}

/* ======================================================================
 * The count-window run: APBF
 * ====================================================================== */

static int print_count_report(const demo_args *args, uint64_t distinct,
                              const demo_run *run, uint64_t linger,
                              uint64_t warmup)
{
    char a[32], b[32], c[32];
    const tdbf_stats *apbf = &run->filter;
    const demo_counts *counts = &run->counts;
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
    snprintf(c, sizeof c, "%s insertions", cli_format_count(a, sizeof a, linger));
    accuracy_rows(&t, counts, c);
    /* Segment 0 is the warm-up, segment 1 the steady state. */
    wilson95(counts->segment_fp[1], counts->segment_absent[1], &low, &high);
    cli_table_cell(&t, "FP measured, steady state");
    cli_table_cell(&t, "%.3g", fp_rate(counts->segment_fp[1],
                                       counts->segment_absent[1]));
    cli_table_cell(&t, "after the first %s events; 95%% CI %.3g .. %.3g",
                   cli_format_count(a, sizeof a, warmup), low, high);
    rate_row(&t, "FP planned (worst case)", apbf->error_planned,
             "just before a shift, all keys distinct");
    rate_row(&t, "FP estimated at the end", apbf->error_estimated,
             "from the fill of the slices");
    int failed = table_flush(&t, 0) != 0;
    failed |= print_cost_table("APBF", run, apbf->window_items, NULL) != 0;
    if (failed)
        return cli_error("demo", "out of memory printing the report");

    printf("\nThe planned FP is the analytic worst case, reached just before "
           "each shift with\nall keys distinct; on average over a generation "
           "the rate is lower, and repeated\nkeys (Zipf) fill fewer bits, "
           "lowering it further.  Timings: one pass of adds\nthen one of "
           "contains over the same %s pre-generated keys, one thread.\n",
           cli_format_count(a, sizeof a, args->events));
    print_verdict(run, apbf->error_planned, "planned worst case");
    return CLI_EXIT_OK;
}

/* Open F (APBF), A and B, classify, time; then report.  Sets *failed if
 * the APBF had false negatives. */
static int count_window_run(const demo_args *args, const demo_keys *keys,
                            uint64_t distinct, uint64_t filter_seed,
                            demo_run *run, progress *prog, int *failed)
{
    tdbf_config apbf_cfg, window_cfg, linger_cfg;
    tdbf_stats *st = &run->filter;
    tdbf *apbf = NULL;
    uint64_t linger = 0, warmup = 0;

    demo_config(&apbf_cfg, TDBF_APBF, args->error, filter_seed);
    apbf_cfg.window_items = args->window;
    int status = open_filter(&apbf, &apbf_cfg, "APBF");
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
        linger = st->window_items + (uint64_t)st->k * g + g;
        /* Steady state: every slice has been cleared once. */
        warmup = ((uint64_t)st->k + st->l + 1) * g;
        demo_config(&window_cfg, TDBF_EXACT, args->error, filter_seed);
        window_cfg.window_items = st->window_items;
        linger_cfg = window_cfg;
        linger_cfg.window_items = linger;
        demo_pass pass = {
            .keys = keys,
            .filter = apbf,
            .first_event = {0, warmup, keys->count},
            .phase = "APBF vs exact windows",
        };
        status = check_against_exact(&pass, &window_cfg, &linger_cfg, run,
                                     NULL, prog);
    }
    if (status == CLI_EXIT_OK)
        status = read_stats(apbf, st);
    tdbf_close(apbf);
    if (status == CLI_EXIT_OK)
        status = time_filter(keys, NULL, &apbf_cfg, "APBF", &run->t_filter, prog);
    if (status == CLI_EXIT_OK)
        status = time_filter(keys, NULL, &window_cfg, "exact window",
                             &run->t_exact, prog);
    progress_clear(prog);
    if (status != CLI_EXIT_OK)
        return status;

    status = print_count_report(args, distinct, run, linger, warmup);
    if (status == CLI_EXIT_OK && run->counts.false_negatives != 0) {
        char window[48];
        snprintf(window, sizeof window, "%s insertions",
                 cli_format_count(window, sizeof window, st->window_items));
        report_false_negatives(&run->counts, "APBF", window);
        *failed = 1;
    }
    if (status == CLI_EXIT_OK)
        status = count_extra_run(args, keys, filter_seed, prog, failed);
    return status;
}

/* ======================================================================
 * The time-window run: TLBF
 * ====================================================================== */

static const char *const phase_names[DEMO_SEGMENTS] = {
    "1 (base)", "2 (burst)", "3 (base)"
};

#define WRAP_COLUMNS 80

/* printf a paragraph, wrapped at WRAP_COLUMNS on spaces. */
static void print_wrapped(const char *fmt, ...) CLI_PRINTF(1, 2);
static void print_wrapped(const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const char *line = text;
    while (strlen(line) > WRAP_COLUMNS) {
        size_t cut = WRAP_COLUMNS;
        while (cut > 0 && line[cut] != ' ')
            cut--;
        if (cut == 0)                 /* one long word: break after it */
            cut = strcspn(line, " ");
        size_t end = cut;
        while (end > 0 && line[end - 1] == ' ')
            end--;                    /* the first of two spaces */
        printf("%.*s\n", (int)end, line);
        line += cut;
        line += strspn(line, " ");
    }
    if (*line != '\0')
        printf("%s\n", line);
}

/* Per phase: rate, time span and FP, and what the TLBF and the exact
 * window held at its end. */
static int print_phase_table(const demo_schedule *sched, const demo_run *run)
{
    const demo_counts *counts = &run->counts;
    const demo_samples *samples = &run->samples;
    char a[32], b[32];
    cli_table t;

    fputc('\n', stdout);
    cli_table_init(&t, 8, "lrrrlrrr");
    cli_table_cell(&t, "phase");
    cli_table_cell(&t, "events/s");
    cli_table_cell(&t, "stream time");
    cli_table_cell(&t, "FP measured");
    cli_table_cell(&t, "95%% CI");
    cli_table_cell(&t, "slices");
    cli_table_cell(&t, "TLBF memory");
    cli_table_cell(&t, "exact memory");
    for (size_t p = 0; p < DEMO_SEGMENTS; p++) {
        double low, high;
        wilson95(counts->segment_fp[p], counts->segment_absent[p], &low, &high);
        cli_table_cell(&t, "%s", phase_names[p]);
        cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, sched->rate[p]));
        cli_table_cell(&t, "%s .. %s",
                       cli_format_duration_ns(a, sizeof a,
                                              p == 0 ? 0 : sched->end_ns[p - 1]),
                       cli_format_duration_ns(b, sizeof b, sched->end_ns[p]));
        cli_table_cell(&t, "%.3g", fp_rate(counts->segment_fp[p],
                                           counts->segment_absent[p]));
        cli_table_cell(&t, "%.3g .. %.3g", low, high);
        cli_table_cell(&t, "%u", samples->end_slices[p]);
        cli_table_cell(&t, "%s", cli_format_bytes(a, sizeof a,
                                                  samples->end_memory[p]));
        cli_table_cell(&t, "%s", cli_format_bytes(a, sizeof a,
                                                  samples->end_exact_memory[p]));
    }
    return table_flush(&t, 1);
}

/* How the TLBF followed the rate, from the samples at the phase ends. */
static void print_adaptation(const demo_args *args, const demo_schedule *sched,
                             const demo_run *run, uint64_t slack_ns)
{
    const demo_samples *samples = &run->samples;
    const tdbf_stats *tlbf = &run->filter;
    char a[32], b[32], c[32], d[32], last_phase[320];
    uint64_t last_phase_ns = sched->end_ns[PHASE_AFTER] - sched->end_ns[PHASE_BURST];
    uint64_t linger_ns = args->time_window + slack_ns;

    cli_format_duration_ns(a, sizeof a, last_phase_ns);
    cli_format_bytes(c, sizeof c, samples->end_memory[PHASE_AFTER]);
    if (last_phase_ns >= linger_ns) {
        snprintf(last_phase, sizeof last_phase, "The last phase lasted %s, "
                 "more than T + slack: the burst's slices have retired, "
                 "leaving %u (%s) at the end.", a,
                 samples->end_slices[PHASE_AFTER], c);
    } else {
        /* The longest T whose T + (k+1)*T/l fits in the last phase. */
        uint64_t fitting = (uint64_t)((double)last_phase_ns * tlbf->l /
                                      (tlbf->l + tlbf->k + 1));
        snprintf(last_phase, sizeof last_phase, "The last phase lasted only "
                 "%s, less than T + slack = %s: the burst is still in the "
                 "window at the end, so its slices are still live (%u, %s).  "
                 "With a --time-window under about %s they would retire before "
                 "the end.", a, cli_format_duration_ns(b, sizeof b, linger_ns),
                 samples->end_slices[PHASE_AFTER], c,
                 cli_format_duration_ns(d, sizeof d, fitting));
    }
    printf("\n");
    print_wrapped("The rate changes %dx twice, and the TLBF adapts: it sizes "
                  "each generation from the rate of the last one, so over "
                  "the burst it went from %u slices in %s to %u in %s, and "
                  "its FP rate during the burst was %.3g.  %s",
                  BURST_FACTOR, samples->end_slices[PHASE_BEFORE],
                  cli_format_bytes(a, sizeof a, samples->end_memory[PHASE_BEFORE]),
                  samples->end_slices[PHASE_BURST],
                  cli_format_bytes(b, sizeof b, samples->end_memory[PHASE_BURST]),
                  fp_rate(run->counts.segment_fp[PHASE_BURST],
                          run->counts.segment_absent[PHASE_BURST]),
                  last_phase);
    printf("\n");
    print_wrapped("Phase table: slices and memory at the end of each phase; "
                  "peaks: maxima of %d samples over the run.  The exact window "
                  "frees expired keys but keeps its grown tables.  Timings: "
                  "one pass of adds then one of contains over the same keys "
                  "and times, one thread.", SAMPLES_PER_RUN);
}

static int print_time_report(const demo_args *args, const demo_schedule *sched,
                             size_t count, const demo_run *run,
                             uint64_t slack_ns)
{
    char a[32], b[32], c[32];
    const tdbf_stats *tlbf = &run->filter;
    uint64_t burst_rate = args->rate * BURST_FACTOR;
    uint64_t per_window = insertions_per_window(args);

    char base[32], seed[32] = "";
    if (!args->run_count)             /* no count-run header above */
        snprintf(seed, sizeof seed, ", seed 0x%llx",
                 (unsigned long long)args->seed);
    if (args->run_count)
        printf("\n");
    print_wrapped("tdbf demo, time window: %s%s events, Zipf s=%g over %s "
                  "keys%s, arriving (Poisson) at %s/s for the first third of "
                  "the events, %s/s (%dx) for the middle third, and %s/s "
                  "again for the last",
                  args->run_count ? "the same " : "",
                  cli_format_count(a, sizeof a, (uint64_t)count), args->zipf,
                  cli_format_count(b, sizeof b, args->keys), seed,
                  cli_format_count(base, sizeof base, args->rate),
                  cli_format_count(c, sizeof c, burst_rate), BURST_FACTOR,
                  base);
    print_wrapped("TLBF k=%u l=%u for window T = %s, generations of T/l = "
                  "%s, capacity hint %s (rate x T), error %g",
                  tlbf->k, tlbf->l,
                  cli_format_duration_ns(a, sizeof a, args->time_window),
                  cli_format_duration_ns(b, sizeof b, args->time_window / tlbf->l),
                  cli_format_count(c, sizeof c, per_window), args->error);
    printf("\n");

    cli_table t;
    cli_table_init(&t, 3, "lrl");
    cli_table_cell(&t, "events");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, (uint64_t)count));
    cli_table_cell(&t, "over %s of stream time",
                   cli_format_duration_ns(b, sizeof b, sched->end_ns[PHASE_AFTER]));
    cli_table_cell(&t, "window T");
    cli_table_cell(&t, "%s", cli_format_duration_ns(a, sizeof a, args->time_window));
    cli_table_cell(&t, "never a false negative in it");
    cli_table_cell(&t, "rate");
    cli_table_cell(&t, "%s/s", cli_format_count(a, sizeof a, args->rate));
    cli_table_cell(&t, "base; %s/s (%dx) in the middle third",
                   cli_format_count(b, sizeof b, burst_rate), BURST_FACTOR);
    cli_table_cell(&t, "insertions per window");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, per_window));
    cli_table_cell(&t, "at the base rate; %s at %dx (rate x T)",
                   cli_format_count(b, sizeof b, per_window * BURST_FACTOR),
                   BURST_FACTOR);
    cli_table_cell(&t, "insertions in the window, peak");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, sched->peak_in_window));
    cli_table_cell(&t, "at %s; %s at the end",
                   cli_format_duration_ns(b, sizeof b, sched->peak_at_ns),
                   cli_format_count(c, sizeof c, sched->in_window_at_end));
    cli_table_cell(&t, "slack");
    cli_table_cell(&t, "%s", cli_format_duration_ns(a, sizeof a, slack_ns));
    cli_table_cell(&t, "(k+1)*T/l: keys fade out over T + slack");
    cli_table_cell(&t, "slices");
    cli_table_cell(&t, "%u", tlbf->slices);
    cli_table_cell(&t, "at the end; peak %u; k+l = %u",
                   run->samples.max_slices, tlbf->k + tlbf->l);
    cli_format_duration_ns(c, sizeof c, args->time_window + slack_ns);
    accuracy_rows(&t, &run->counts, c);
    rate_row(&t, "FP target", args->error,
             "new slices are sized to keep the FP within it");
    rate_row(&t, "FP planned", tlbf->error_planned,
             "k+l slices at fill 1/2, at the hinted capacity");
    cli_table_cell(&t, "cap hits");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, tlbf->cap_hits));
    cli_table_cell(&t, "growth refused by the slice or memory cap (FP rises)");
    int failed = table_flush(&t, 0) != 0;
    failed |= print_phase_table(sched, run) != 0;
    failed |= print_cost_table("TLBF", run, sched->in_window_at_end,
                               &run->samples) != 0;
    if (failed)
        return cli_error("demo", "out of memory printing the report");

    print_adaptation(args, sched, run, slack_ns);
    /* The whole-run rate can hide a phase above the target. */
    for (size_t p = 0; p < DEMO_SEGMENTS; p++) {
        const demo_counts *counts = &run->counts;
        double low, high;
        wilson95(counts->segment_fp[p], counts->segment_absent[p], &low, &high);
        if (low <= args->error)
            continue;
        printf("\n");
        print_wrapped("NOTE: in phase %s the FP rate, %.3g (95%% CI %.3g .. "
                      "%.3g), is above the target %g.", phase_names[p],
                      fp_rate(counts->segment_fp[p], counts->segment_absent[p]),
                      low, high, args->error);
    }
    print_verdict(run, args->error, "target");
    return CLI_EXIT_OK;
}

/* Generate the times, open F (TLBF), A and B, classify, time; then
 * report.  Sets *failed if the TLBF had false negatives. */
static int time_window_run(const demo_args *args, const demo_keys *keys,
                           uint64_t filter_seed, demo_run *run,
                           progress *prog, int *failed)
{
    tdbf_config tlbf_cfg, window_cfg, linger_cfg;
    tdbf_stats *st = &run->filter;
    tdbf *tlbf = NULL;
    uint64_t slack_ns = 0;
    demo_schedule sched;

    int generated = generate_times(args, keys->count, &sched, prog);
    progress_clear(prog);             /* before any message */
    if (generated != 0)
        return cli_error("demo", "out of memory generating %llu times",
                         (unsigned long long)keys->count);
    window_occupancy(&sched, keys->count, args->time_window);

    demo_config(&tlbf_cfg, TDBF_TLBF, args->error, filter_seed);
    tlbf_cfg.window_ns = args->time_window;
    tlbf_cfg.capacity = insertions_per_window(args);
    if (tlbf_cfg.capacity == 0)
        tlbf_cfg.capacity = 1;
    int status = open_filter(&tlbf, &tlbf_cfg, "TLBF");
    if (status == CLI_EXIT_OK)
        status = read_stats(tlbf, st);
    if (status == CLI_EXIT_OK && (st->l == 0 || st->window_ns != args->time_window))
        status = cli_error("demo", "inconsistent TLBF stats: l %u, window_ns "
                           "%llu (requested %llu)", st->l,
                           (unsigned long long)st->window_ns,
                           (unsigned long long)args->time_window);
    if (status == CLI_EXIT_OK) {
        /* tlbf.c: a key's newest slice goes stale at most k+1 generation
         * spans of T/l after T. */
        slack_ns = ((uint64_t)st->k + 1) * (st->window_ns / st->l);
        demo_config(&window_cfg, TDBF_EXACT, args->error, filter_seed);
        window_cfg.window_ns = args->time_window;
        linger_cfg = window_cfg;
        linger_cfg.window_ns = args->time_window + slack_ns;
        uint64_t every = keys->count / SAMPLES_PER_RUN;
        demo_pass pass = {
            .keys = keys,
            .times = sched.times,
            .filter = tlbf,
            .sample_every = every != 0 ? every : 1,
            .phase = "TLBF vs exact windows",
        };
        memcpy(pass.first_event, sched.first_event, sizeof pass.first_event);
        status = check_against_exact(&pass, &window_cfg, &linger_cfg, run,
                                     &run->samples, prog);
    }
    if (status == CLI_EXIT_OK)
        status = read_stats(tlbf, st);
    tdbf_close(tlbf);
    if (status == CLI_EXIT_OK)
        status = time_filter(keys, sched.times, &tlbf_cfg, "TLBF",
                             &run->t_filter, prog);
    if (status == CLI_EXIT_OK)
        status = time_filter(keys, sched.times, &window_cfg, "exact window",
                             &run->t_exact, prog);
    progress_clear(prog);

    if (status == CLI_EXIT_OK)
        status = print_time_report(args, &sched, keys->count, run, slack_ns);
    if (status == CLI_EXIT_OK)
        status = time_extra_run(args, keys, sched.times, tlbf_cfg.capacity,
                                filter_seed, prog, failed);
    free(sched.times);
    if (status == CLI_EXIT_OK && run->counts.false_negatives != 0) {
        char window[32];
        report_false_negatives(&run->counts, "TLBF",
                               cli_format_duration_ns(window, sizeof window,
                                                      args->time_window));
        *failed = 1;
    }
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
    progress prog = {0};
    prog.enabled = !args.quiet && isatty(STDERR_FILENO);
    /* The filters get their own seed, derived from the workload's; never 0
     * (0 asks the library for a random seed). */
    uint64_t filter_seed = cli_mix64(args.seed) | 1;

    demo_keys keys;
    uint64_t distinct = 0;
    int generated = generate_keys(&args, &keys, &distinct, &prog);
    progress_clear(&prog);            /* before any message */
    if (generated != 0)
        return cli_error("demo", "out of memory generating %llu keys",
                         (unsigned long long)args.events);

    /* The first run's time includes generating the keys. */
    int failed = 0;
    demo_run run;
    if (args.run_count) {
        memset(&run, 0, sizeof run);
        run.started_ns = started;
        status = count_window_run(&args, &keys, distinct, filter_seed, &run,
                                  &prog, &failed);
        started = cli_now_ns();
    }
    if (status == CLI_EXIT_OK && args.run_time) {
        memset(&run, 0, sizeof run);
        run.started_ns = started;
        fflush(stdout);
        status = time_window_run(&args, &keys, filter_seed, &run, &prog,
                                 &failed);
    }
    keys_free(&keys);
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
        "Count-window run: adds each event to an APBF planned for window W\n"
        "and error E, and to two exact sliding windows: one of the APBF's\n"
        "guaranteed window l*g (a miss there is a false negative: must never\n"
        "happen) and one of the longest time a key can linger, (l+k+1)*g (a\n"
        "hit absent from it is a false positive; one between the two is a\n"
        "slack hit).\n"
        "\n"
        "Time-window run: the same events get Poisson arrival times at R per\n"
        "second for the first third of the events, 10R for the middle third\n"
        "and R again for the last third.  They go to a TLBF for window T and\n"
        "error E with the capacity hint R*T, and to exact windows of T and of\n"
        "T + (k+1)*T/l, the TLBF's slack.  The TLBF must adapt to both rate\n"
        "changes; its slices and memory are sampled during the run, and the\n"
        "FP rate is reported per phase.\n"
        "\n"
        "Each run then times adds and queries of its filter and of the exact\n"
        "window over the same pre-generated keys (and times).  Exit status 1\n"
        "if either filter had a false negative.\n",
    .options = demo_options,
    .run = run_demo,
};
