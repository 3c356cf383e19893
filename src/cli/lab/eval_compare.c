/*
 * eval_compare.c — `tdbf eval compare`: every windowed design at one
 * setting, side by side, on a synthetic and on a real stream.
 *
 * The setting.  A window of w = 10^6 keys (--quick: 10^4): the count
 * designs remember the last w insertions; the time designs (TLBF-LINE,
 * TLBF, CLOCK)
 * remember the last 60 s of a simulated clock that advances 60 s / w per
 * insertion, so that their window holds the same w keys (they are told
 * cfg.capacity = w, as the count designs are told their window).  Target
 * errors 0.01 and 0.001.  The designs, each with the planner's defaults:
 *
 *     apbf-line  apbf  apbbf-512  apbbf-64  tbf  btbf  rotating  fpdecay
 *     stable                               (count window; apbf-line is
 *                                          what tdbf dedup --last builds)
 *     tlbf-line  tlbf  clock               (time window, 60 s; tlbf-line
 *                                          is what dedup --window builds)
 *     bloom     classic Bloom filter of capacity w: the ns/op baseline
 *     exact, exact-60s   the exact sliding window: ground truth
 *
 * The streams (both deterministic for a --seed).  Events are key ids;
 * N = 4w events are fed, so keys of every age up to 3w exist at the end.
 *
 *     synthetic  each event draws its id uniformly from a universe of 2w
 *                ids (cli_rng_next % 2w); id -> 16 bytes (two cli_mix64
 *                words).  About 0.79 w distinct keys per window.
 *     words      real keys from Debian's wamerican word list
 *                (/usr/share/dict/american-english, W = 104,334 words in
 *                2020.12.07-2): with probability 1/2 an event replays the
 *                event d back, d uniform in 1..2w (a key coming back
 *                after a while, inside or past the window), otherwise it
 *                takes the next new id.  Id n is the two-word phrase
 *                "word[a] word[b]", a = v mod W, b = v div W for
 *                v = (n * (2^31 - 1) + offset) mod W^2: a bijection of the
 *                W^2 phrases (2^31 - 1 is a prime above W), so distinct ids
 *                are distinct strings; offset comes from the seed.
 *                About 0.81 w distinct keys per window.
 *
 * What is measured, per design (one filter at a time):
 *
 *   bits/el   8 * stats.memory_bytes / w after the stream (all of the
 *             filter's allocations; TLBF's grows and shrinks, this is the
 *             end of a steady stream);
 *   fp        the share of 1000/error fresh keys (never inserted: ids
 *             beyond the stream's) that answer yes: about 1000 expected
 *             false positives at the target, +-3% (one standard deviation);
 *   fn        the share of the keys whose latest add lies in the window
 *             (per the exact reference of the same window kind) that
 *             answer no.  0 is the contract of every design but FPDECAY
 *             and STABLE, which forget at random by design;
 *   ins, qry  ns per tdbf_add (the last 3w events: the filter at steady
 *             state) and per tdbf_contains, each the median over chunks of
 *             4096 calls (cli_chunk_times: a chunk that lost the CPU to
 *             another process does not count), then the median of three
 *             runs a whole pass of the designs apart (runs 2 and 3 time
 *             the last 2w events, the first w untimed, and 2^18 absent
 *             keys), so that a burst of load spoils one run at most.  qry
 *             is the mean of the medians over present keys (the window's)
 *             and absent keys (the fresh ones), a 50/50 mix.  x bloom: the
 *             ratio to the classic Bloom filter of the same error, same
 *             run.  Keys are built into a buffer before a chunk's clock
 *             starts;
 *   stale     the share of keys whose latest add is w..2w (and 2w..3w)
 *             insertions old that still answer yes: slack, with the fp
 *             rate as its floor.  Averaged over 32 bins of ages, not over
 *             keys: the stream leaves fewer keys of the older ages (many
 *             came again), and each age should count alike.  npws: the
 *             same area above the fp rate, (stale w..2w - fp) + (stale
 *             2w..3w - fp), beside the planner's peak NPWS (APBF, APBBF:
 *             paper 004 sections 5.4 and 6).  It is a snapshot at the end
 *             of the stream, a whole number of windows: CLOCK (ticks of
 *             T/2) and ROTATING (a rotation every w/4) are then at the end
 *             of a period, their peak slack of 1/2 and 1/4 window.
 *
 * The Bloom filter has no window: it gets the first w events only, so it
 * is measured at its capacity; it has no stale keys.
 */
#define _POSIX_C_SOURCE 200809L

#include "eval.h"
#include "timing.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tdbf_model.h>

#define COMPARE_WINDOW        UINT64_C(1000000)
#define COMPARE_QUICK_WINDOW  UINT64_C(10000)
#define COMPARE_WINDOW_NS     (UINT64_C(60) * UINT64_C(1000000000))
#define COMPARE_WINDOWS       4u      /* stream length, in windows */
#define FP_HITS               1000.0  /* expected false positives probed */
#define QUICK_FP_HITS         200.0
#define KEY_MAX               64u     /* a phrase: two words and a space */
#define WORD_MAX              31u     /* longer lines are skipped */
#define WORDS_PATH            "/usr/share/dict/american-english"
#define PHRASE_STRIDE         UINT64_C(2147483647)   /* prime, > W */
#define STALE_BUCKETS         2u      /* ages w..2w and 2w..3w */
#define STALE_BINS            32u     /* age bins per bucket */
#define COMPARE_REPS          3u      /* timings: median of this many runs */
#define TIMING_PROBES         (UINT64_C(1) << 18)  /* absent keys, runs 2.. */

static const double compare_errors[] = {0.01, 0.001};

#define COMPARE_ERRORS (sizeof compare_errors / sizeof compare_errors[0])

/* ---- the designs ------------------------------------------------------ */

enum { ROW_FILTER, ROW_BASELINE, ROW_REFERENCE };
enum { KIND_COUNT, KIND_TIME, KINDS };

typedef struct compare_design {
    const char *name;
    tdbf_design design;
    unsigned    block_bits;   /* cfg.block_bits (APBBF) */
    int         kind;         /* KIND_COUNT: w insertions; KIND_TIME: 60 s */
    int         role;
} compare_design;

static const compare_design compare_designs[] = {
    {"apbf-line", TDBF_APBF_LINE, 0,              KIND_COUNT, ROW_FILTER},
    {"apbf",      TDBF_APBF,     0,               KIND_COUNT, ROW_FILTER},
    {"apbbf-512", TDBF_APBBF,    TDBF_BLOCK_LINE, KIND_COUNT, ROW_FILTER},
    {"apbbf-64",  TDBF_APBBF,    TDBF_BLOCK_WORD, KIND_COUNT, ROW_FILTER},
    {"tlbf-line", TDBF_TLBF_LINE, 0,              KIND_TIME,  ROW_FILTER},
    {"tlbf",      TDBF_TLBF,     0,               KIND_TIME,  ROW_FILTER},
    {"tbf",       TDBF_TBF,      0,               KIND_COUNT, ROW_FILTER},
    {"btbf",      TDBF_BTBF,     0,               KIND_COUNT, ROW_FILTER},
    {"clock",     TDBF_CLOCK,    0,               KIND_TIME,  ROW_FILTER},
    {"rotating",  TDBF_ROTATING, 0,               KIND_COUNT, ROW_FILTER},
    {"fpdecay",   TDBF_FPDECAY,  0,               KIND_COUNT, ROW_FILTER},
    {"stable",    TDBF_STABLE,   0,               KIND_COUNT, ROW_FILTER},
    {"bloom",     TDBF_BLOOM,    0,               KIND_COUNT, ROW_BASELINE},
    {"exact",     TDBF_EXACT,    0,               KIND_COUNT, ROW_REFERENCE},
    {"exact-60s", TDBF_EXACT,    0,               KIND_TIME,  ROW_REFERENCE},
};

#define COMPARE_DESIGNS (sizeof compare_designs / sizeof compare_designs[0])

/* ---- the streams ------------------------------------------------------ */

typedef struct word_list {
    char     *text;      /* the file, each line NUL-terminated in place */
    char    **words;
    size_t    count;
} word_list;

typedef struct compare_stream {
    const char      *name;       /* "synthetic", "words" */
    const word_list *words;      /* NULL: 16 random bytes per id */
    uint64_t         key_seed;   /* synthetic key bytes, phrase offset */
    uint32_t        *ids;        /* event -> key id */
    uint64_t         events;     /* N */
    uint64_t         fresh_id;   /* ids from here on were never inserted */
    /* probes: events whose key is not inserted again later */
    uint32_t        *in_window;  /* events N-w .. N-1 */
    size_t           in_count;
    uint32_t        *stale;      /* events N-3w .. N-w-1 */
    size_t           stale_count;
} compare_stream;

static void words_free(word_list *list)
{
    free(list->text);
    free(list->words);
    memset(list, 0, sizeof *list);
}

/* Read the word list: one word per line; empty lines and lines longer
 * than WORD_MAX bytes are skipped.  Returns 0, or -1 with errno set. */
static int words_load(word_list *list, const char *path)
{
    memset(list, 0, sizeof *list);
    FILE *in = fopen(path, "rb");
    if (in == NULL)
        return -1;
    size_t size = 0, capacity = 0;
    for (;;) {
        if (size + 4096 + 1 > capacity) {
            capacity = capacity ? 2 * capacity : 1 << 20;
            char *grown = realloc(list->text, capacity);
            if (grown == NULL)
                break;
            list->text = grown;
        }
        size_t got = fread(list->text + size, 1, 4096, in);
        size += got;
        if (got < 4096)
            break;
    }
    int failed = ferror(in) || list->text == NULL || size + 1 > capacity;
    fclose(in);
    if (failed) {
        words_free(list);
        errno = EIO;
        return -1;
    }
    list->text[size] = '\n';
    size_t lines = 0;
    for (size_t i = 0; i <= size; i++)
        lines += list->text[i] == '\n';
    list->words = malloc(lines * sizeof *list->words);
    if (list->words == NULL) {
        words_free(list);
        errno = ENOMEM;
        return -1;
    }
    for (size_t start = 0, i = 0; i <= size; i++) {
        if (list->text[i] != '\n')
            continue;
        list->text[i] = '\0';
        if (i > start && i - start <= WORD_MAX)
            list->words[list->count++] = list->text + start;
        start = i + 1;
    }
    return 0;
}

/* The bytes of key `id` into out[KEY_MAX]; returns their length. */
static size_t stream_key(const compare_stream *s, uint64_t id, unsigned char *out)
{
    if (s->words == NULL) {
        lab_key16(s->key_seed, id, out);
        return LAB_KEY16_BYTES;
    }
    uint64_t w = s->words->count, phrases = w * w;
    uint64_t v = (id * PHRASE_STRIDE + s->key_seed % phrases) % phrases;
    const char *first = s->words->words[v % w], *second = s->words->words[v / w];
    size_t a = strlen(first), b = strlen(second);
    memcpy(out, first, a);
    out[a] = ' ';
    memcpy(out + a + 1, second, b);
    return a + 1 + b;
}

/* The events of [from, to) whose key does not come again before the end:
 * their age is exact.  Returns the count written to out. */
static size_t latest_events(const compare_stream *s, const uint32_t *last,
                            uint64_t from, uint64_t to, uint32_t *out)
{
    size_t n = 0;
    for (uint64_t p = from; p < to; p++)
        if (last[s->ids[p]] == p)
            out[n++] = (uint32_t)p;
    return n;
}

static void stream_free(compare_stream *s)
{
    free(s->ids);
    free(s->in_window);
    free(s->stale);
    s->ids = s->in_window = s->stale = NULL;
}

/* Generate the ids of `s` and its probe lists.  Returns TDBF_OK or
 * TDBF_ENOMEM. */
static int stream_make(compare_stream *s, uint64_t window, uint64_t seed)
{
    s->events = COMPARE_WINDOWS * window;
    s->key_seed = cli_mix64(seed ^ UINT64_C(0x6b657973));    /* "keys" */
    s->ids = malloc(s->events * sizeof *s->ids);
    s->in_window = malloc(window * sizeof *s->in_window);
    s->stale = malloc(2 * window * sizeof *s->stale);
    uint32_t *last = malloc(s->events * sizeof *last);
    if (!s->ids || !s->in_window || !s->stale || !last) {
        free(last);
        stream_free(s);
        return TDBF_ENOMEM;
    }
    /* Synthetic ids: uniform over a universe of 2w.  Word ids: half the
     * events replay the event d back (d uniform in 1..2w), the others
     * take the next new id. */
    if (s->words == NULL)
        s->fresh_id = lab_ids_uniform(s->ids, s->events, 2 * window, seed);
    else
        s->fresh_id = lab_ids_replay(s->ids, s->events, 2 * window, seed);
    for (uint64_t p = 0; p < s->events; p++)
        last[s->ids[p]] = (uint32_t)p;
    uint64_t n = s->events;
    s->in_count = latest_events(s, last, n - window, n, s->in_window);
    s->stale_count = latest_events(s, last, n - 3 * window, n - window, s->stale);
    free(last);
    return TDBF_OK;
}

/* ---- one measurement --------------------------------------------------- */

/* Keys of one chunk, built before its clock starts. */
typedef struct key_chunk {
    unsigned char bytes[LAB_CHUNK][KEY_MAX];
    const void   *ptrs[LAB_CHUNK];      /* ptrs[j] = bytes[j] */
    size_t        lens[LAB_CHUNK];
    uint64_t      times[LAB_CHUNK];     /* feed: each add's time */
} key_chunk;

typedef struct compare_run {
    const eval_request *req;
    uint64_t         window;
    uint64_t         step_ns;      /* simulated time per event */
    compare_stream  *stream;
    key_chunk       *chunk;
    uint32_t        *first;        /* events 0 .. w-1: the Bloom filter's keys */
    uint8_t         *answers;      /* per probe of the list being queried */
    /* the exact reference's answers, per kind, per probe */
    uint8_t         *ref_in[KINDS], *ref_stale[KINDS];
    cli_chunk_times  times;
    int              progress;
    size_t           step, steps;
} compare_run;

typedef struct compare_result {
    int      status;               /* TDBF_OK, or tdbf_open's code: n/a */
    uint64_t memory_bytes;
    uint64_t fp_probes, fp_yes;
    uint64_t fn_probes, fn_no;
    /* keys w..3w old, in bins of w / STALE_BINS ages */
    uint64_t stale_probes[STALE_BUCKETS * STALE_BINS];
    uint64_t stale_yes[STALE_BUCKETS * STALE_BINS];
    /* per repetition: median ns per add, per present and absent query */
    double   insert_ns[COMPARE_REPS], present_ns[COMPARE_REPS];
    double   absent_ns[COMPARE_REPS];
    double   npws_plan;            /* NAN: no planner figure */
} compare_result;

static double share(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : NAN;
}

/* The median of the repetitions' medians. */
static double reps_median(const double *reps)
{
    double copy[COMPARE_REPS];
    memcpy(copy, reps, sizeof copy);
    cli_chunk_times t = {copy, COMPARE_REPS, COMPARE_REPS};
    return cli_chunk_times_median(&t);
}

static double insert_ns(const compare_result *r)
{
    return reps_median(r->insert_ns);
}

/* A 50/50 mix of present and absent keys. */
static double query_ns(const compare_result *r)
{
    return (reps_median(r->present_ns) + reps_median(r->absent_ns)) / 2.0;
}

/* The share of keys w..2w (bucket 0) or 2w..3w (bucket 1) old that answer
 * yes, averaged over the bins of ages: every age counts alike, however
 * many keys of that age the stream left (fewer of the older ones: many
 * came again later). */
static double stale_share(const compare_result *r, size_t bucket)
{
    double sum = 0.0;
    size_t bins = 0;
    for (size_t b = bucket * STALE_BINS; b < (bucket + 1) * STALE_BINS; b++) {
        if (r->stale_probes[b] == 0)
            continue;
        sum += share(r->stale_yes[b], r->stale_probes[b]);
        bins++;
    }
    return bins ? sum / (double)bins : NAN;
}

/* Measured NPWS over ages w..3w: the area of P(yes | age) above the fp
 * rate, in windows.  (FPDECAY and STABLE still answer yes past 3w: for
 * them it is a lower bound.) */
static double npws_measured(const compare_result *r)
{
    double fp = share(r->fp_yes, r->fp_probes);
    return stale_share(r, 0) - fp + stale_share(r, 1) - fp;
}

/* Feed events [from, to): keys built per chunk untimed, the chunks from
 * event `timed_from` on timed into run->times. */
static int feed(compare_run *run, tdbf *f, int timed_clock, uint64_t from,
                uint64_t to, uint64_t timed_from)
{
    const compare_stream *s = run->stream;
    key_chunk *c = run->chunk;
    uint64_t step = timed_clock ? run->step_ns : 0;
    cli_chunk_times_reset(&run->times);
    lab_calls calls = {.keys = c->ptrs, .lens = c->lens, .times = c->times};
    for (uint64_t p = from; p < to; p += LAB_CHUNK) {
        size_t n = to - p < LAB_CHUNK ? (size_t)(to - p) : LAB_CHUNK;
        for (size_t j = 0; j < n; j++) {
            c->lens[j] = stream_key(s, s->ids[p + j], c->bytes[j]);
            c->times[j] = (p + j) * step;
        }
        uint64_t start = cli_now_ns();
        int64_t rc = lab_run_calls(f, LAB_ADD, &calls, 0, n);
        uint64_t took = cli_now_ns() - start;
        if (rc < 0)
            return (int)rc;
        if (p >= timed_from && cli_chunk_times_add(&run->times, took, n) != 0)
            return TDBF_ENOMEM;
    }
    return TDBF_OK;
}

/* Query `count` keys: the keys of events[i] or, if events is NULL, the
 * fresh ids fresh_id + i.  Answers into run->answers[i]; chunk timings
 * into run->times.  Returns TDBF_OK or an error code. */
static int query(compare_run *run, const tdbf *f, uint64_t now,
                 const uint32_t *events, size_t count)
{
    const compare_stream *s = run->stream;
    key_chunk *c = run->chunk;
    cli_chunk_times_reset(&run->times);
    for (size_t i = 0; i < count; i += LAB_CHUNK) {
        size_t n = count - i < LAB_CHUNK ? count - i : LAB_CHUNK;
        for (size_t j = 0; j < n; j++) {
            uint64_t id = events ? s->ids[events[i + j]] : s->fresh_id + i + j;
            c->lens[j] = stream_key(s, id, c->bytes[j]);
        }
        lab_calls calls = {.keys = c->ptrs, .lens = c->lens, .now = now,
                           .answers = run->answers + i};
        uint64_t start = cli_now_ns();
        int64_t rc = lab_run_calls((tdbf *)f, LAB_CONTAINS, &calls, 0, n);
        uint64_t took = cli_now_ns() - start;
        if (rc < 0)
            return (int)rc;
        if (cli_chunk_times_add(&run->times, took, n) != 0)
            return TDBF_ENOMEM;
    }
    return TDBF_OK;
}

/* The window's keys (the Bloom filter: the w it holds), timed.  On the
 * first repetition a reference row records its answers and every other
 * row counts a false negative where the reference said yes and it says
 * no (the Bloom filter: all its keys are in). */
static int probe_window(compare_run *run, const compare_design *d,
                        const tdbf *f, uint64_t now, size_t rep,
                        compare_result *out)
{
    const compare_stream *s = run->stream;
    int baseline = d->role == ROW_BASELINE;
    const uint32_t *events = baseline ? run->first : s->in_window;
    size_t count = baseline ? (size_t)run->window : s->in_count;
    int rc = query(run, f, now, events, count);
    if (rc != TDBF_OK)
        return rc;
    out->present_ns[rep] = cli_chunk_times_median(&run->times);
    if (rep != 0)
        return TDBF_OK;
    uint8_t *ref = run->ref_in[d->kind];
    for (size_t i = 0; i < count; i++) {
        if (d->role == ROW_REFERENCE)
            ref[i] = run->answers[i];
        int inside = d->role == ROW_FILTER ? ref[i] : 1;
        out->fn_probes += (uint64_t)inside;
        out->fn_no += (uint64_t)(inside && !run->answers[i]);
    }
    return TDBF_OK;
}

/* Keys w..3w old that the reference does not hold: the answers per bin
 * of ages. */
static int probe_stale(compare_run *run, const compare_design *d,
                       const tdbf *f, uint64_t now, compare_result *out)
{
    const compare_stream *s = run->stream;
    int rc = query(run, f, now, s->stale, s->stale_count);
    if (rc != TDBF_OK)
        return rc;
    uint8_t *ref = run->ref_stale[d->kind];
    for (size_t i = 0; i < s->stale_count; i++) {
        if (d->role == ROW_REFERENCE)
            ref[i] = run->answers[i];
        if (ref[i])
            continue;               /* the reference's window holds it */
        uint64_t age = s->events - 1 - s->stale[i];
        size_t bin = (size_t)((age - run->window) * STALE_BINS / run->window);
        out->stale_probes[bin]++;
        out->stale_yes[bin] += run->answers[i];
    }
    return TDBF_OK;
}

static int probe_fresh(compare_run *run, const tdbf *f, uint64_t now,
                       uint64_t probes, size_t rep, compare_result *out)
{
    int rc = query(run, f, now, NULL, (size_t)probes);
    if (rc != TDBF_OK)
        return rc;
    out->absent_ns[rep] = cli_chunk_times_median(&run->times);
    if (rep != 0)
        return TDBF_OK;
    out->fp_probes = probes;
    for (uint64_t i = 0; i < probes; i++)
        out->fp_yes += run->answers[i];
    return TDBF_OK;
}

/* The planner's peak NPWS of the filter tdbf_open built (APBF, APBBF). */
static double planned_npws(const compare_design *d, const tdbf_stats *st,
                           uint64_t window, double error)
{
    if (d->design == TDBF_APBF) {
        tdbf_plan plan;
        if (tdbf_plan_eval(st->k, st->l, window, &plan) == TDBF_OK)
            return plan.npws;
    } else if (d->design == TDBF_APBBF) {
        tdbf_plan_blocked plan;
        if (tdbf_plan_apbbf_fast(window, error, d->block_bits,
                                 TDBF_DEFAULT_PLAN_TOLERANCE, &plan) == TDBF_OK &&
            plan.k == st->k && plan.l == st->l)
            return plan.npws;
    }
    return NAN;
}

static void design_config(const compare_run *run, const compare_design *d,
                          double error, tdbf_config *cfg)
{
    tdbf_config_init(cfg);
    cfg->design = d->design;
    cfg->error = error;
    cfg->seed = run->req->seed;
    cfg->block_bits = d->block_bits;
    if (d->kind == KIND_TIME) {
        cfg->window_ns = COMPARE_WINDOW_NS;
        cfg->capacity = run->window;
    } else {
        cfg->window_items = run->window;
    }
}

/* Open, feed, probe and close one design.  Repetition 0 measures
 * everything on the whole stream; the others only time, on the last 2w
 * events (the first w untimed) and fewer absent keys.  A design tdbf_open
 * refuses is recorded as n/a (out->status); other errors are returned. */
static int measure_design(compare_run *run, const compare_design *d,
                          double error, size_t rep, compare_result *out)
{
    if (rep == 0) {
        memset(out, 0, sizeof *out);
        out->npws_plan = NAN;
    }
    tdbf_config cfg;
    design_config(run, d, error, &cfg);
    tdbf *f;
    out->status = tdbf_open(&f, &cfg);
    if (out->status != TDBF_OK)
        return TDBF_OK;

    int baseline = d->role == ROW_BASELINE;
    int timed_clock = d->kind == KIND_TIME;
    uint64_t w = run->window, end = baseline ? w : run->stream->events;
    uint64_t from = baseline || rep == 0 ? 0 : end - 2 * w;
    uint64_t now = timed_clock ? (end - 1) * run->step_ns : 0;
    double hits = run->req->quick ? QUICK_FP_HITS : FP_HITS;
    uint64_t probes = (uint64_t)ceil(hits / error);
    if (rep != 0 && probes > TIMING_PROBES)
        probes = TIMING_PROBES;
    tdbf_stats st;
    int rc = feed(run, f, timed_clock, from, end, baseline ? 0 : end - 3 * w);
    if (rc == TDBF_OK) {
        out->insert_ns[rep] = cli_chunk_times_median(&run->times);
        rc = tdbf_get_stats(f, &st);
    }
    if (rc == TDBF_OK && rep == 0) {
        out->memory_bytes = st.memory_bytes;
        out->npws_plan = planned_npws(d, &st, w, error);
    }
    if (rc == TDBF_OK)
        rc = probe_window(run, d, f, now, rep, out);
    if (rc == TDBF_OK && rep == 0 && !baseline)
        rc = probe_stale(run, d, f, now, out);
    if (rc == TDBF_OK)
        rc = probe_fresh(run, f, now, probes, rep, out);
    tdbf_close(f);
    return rc;
}

/* ---- output -------------------------------------------------------------- */

static void table_row(cli_table *t, const compare_stream *s, double error,
                      const compare_design *d, const compare_result *r,
                      const compare_result *bloom, uint64_t window)
{
    cli_table_cell(t, "%s", s->name);
    cli_table_cell(t, "%g", error);
    cli_table_cell(t, "%s%s", d->name, d->kind == KIND_TIME && d->role != ROW_REFERENCE
                   ? " (60 s)" : "");
    if (r->status != TDBF_OK) {
        for (int c = 0; c < 11; c++)
            cli_table_cell(t, "n/a");
        return;
    }
    cli_table_cell(t, "%.1f", 8.0 * (double)r->memory_bytes / (double)window);
    cli_table_cell(t, "%.3g", share(r->fp_yes, r->fp_probes));
    if (r->fn_no == 0)
        cli_table_cell(t, "0");
    else
        cli_table_cell(t, "%.2e", share(r->fn_no, r->fn_probes));
    cli_table_cell(t, "%.0f", insert_ns(r));
    cli_table_cell(t, "%.2f", insert_ns(r) / insert_ns(bloom));
    cli_table_cell(t, "%.0f", query_ns(r));
    cli_table_cell(t, "%.2f", query_ns(r) / query_ns(bloom));
    if (d->role == ROW_BASELINE) {
        for (int c = 0; c < 3; c++)
            cli_table_cell(t, "-");
    } else {
        cli_table_cell(t, "%.3f", stale_share(r, 0));
        cli_table_cell(t, "%.3f", stale_share(r, 1));
        cli_table_cell(t, "%.3f", npws_measured(r));
    }
    if (isnan(r->npws_plan))
        cli_table_cell(t, "-");
    else
        cli_table_cell(t, "%.3f", r->npws_plan);
}

static void csv_row(eval_csv *csv, const compare_stream *s, double error,
                    const compare_design *d, const compare_result *r,
                    const compare_result *bloom, uint64_t window)
{
    if (r->status != TDBF_OK)
        return;
    int baseline = d->role == ROW_BASELINE;
    csv_line(csv, "%s,%g,%s,%s,%llu,%.10g,%llu,%.10g,%llu,%.10g,%llu,%.10g,"
             "%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g",
             s->name, error, d->name, d->kind == KIND_TIME ? "time" : "count",
             (unsigned long long)window,
             8.0 * (double)r->memory_bytes / (double)window,
             (unsigned long long)r->memory_bytes,
             share(r->fp_yes, r->fp_probes), (unsigned long long)r->fp_probes,
             share(r->fn_no, r->fn_probes), (unsigned long long)r->fn_probes,
             insert_ns(r), insert_ns(r) / insert_ns(bloom), query_ns(r),
             query_ns(r) / query_ns(bloom), reps_median(r->present_ns),
             reps_median(r->absent_ns),
             baseline ? NAN : stale_share(r, 0), baseline ? NAN : stale_share(r, 1),
             baseline ? NAN : npws_measured(r), r->npws_plan);
}

static const char compare_csv_header[] =
    "stream,error,design,window_kind,window_items,bits_per_element,"
    "memory_bytes,fp,fp_probes,fn,fn_probes,insert_ns,insert_ratio_bloom,"
    "query_ns,query_ratio_bloom,query_present_ns,query_absent_ns,stale_1w,"
    "stale_2w,npws_measured,npws_plan";

/* ---- the experiment ------------------------------------------------------ */

/* All designs at one error on one stream, one repetition: references
 * first (the others are judged against them), then the rest. */
static int compare_error(compare_run *run, double error, size_t rep,
                         compare_result *results, const char **failed)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < COMPARE_DESIGNS; i++) {
            const compare_design *d = &compare_designs[i];
            if ((d->role == ROW_REFERENCE) != (pass == 0))
                continue;
            lab_progress(run->progress, "eval", ++run->step, run->steps,
                          "%s, error %g, %s: %s", run->stream->name, error,
                          rep ? "timing" : "measuring", d->name);
            int rc = measure_design(run, d, error, rep, &results[i]);
            if (rc == TDBF_OK && d->role == ROW_REFERENCE)
                rc = results[i].status;
            if (rc != TDBF_OK) {
                *failed = d->name;
                return rc;
            }
        }
    }
    return TDBF_OK;
}

static const compare_result *bloom_of(const compare_result *results)
{
    for (size_t i = 0; i < COMPARE_DESIGNS; i++)
        if (compare_designs[i].role == ROW_BASELINE)
            return &results[i];
    return NULL;
}

/* Buffers sized for the largest list of one stream. */
static int compare_buffers(compare_run *run, const compare_stream *s,
                           uint64_t most_fp_probes)
{
    size_t most = s->in_count > s->stale_count ? s->in_count : s->stale_count;
    if (most < run->window)
        most = (size_t)run->window;
    if (most < most_fp_probes)
        most = (size_t)most_fp_probes;
    free(run->answers);
    run->answers = malloc(most);
    if (run->answers == NULL)
        return TDBF_ENOMEM;
    for (int k = 0; k < KINDS; k++) {
        free(run->ref_in[k]);
        free(run->ref_stale[k]);
        run->ref_in[k] = calloc(s->in_count + 1, 1);
        run->ref_stale[k] = calloc(s->stale_count + 1, 1);
        if (!run->ref_in[k] || !run->ref_stale[k])
            return TDBF_ENOMEM;
    }
    return TDBF_OK;
}

static void compare_run_free(compare_run *run)
{
    free(run->chunk);
    free(run->first);
    free(run->answers);
    for (int k = 0; k < KINDS; k++) {
        free(run->ref_in[k]);
        free(run->ref_stale[k]);
    }
    cli_chunk_times_free(&run->times);
}

/* One stream: generate it, run every repetition of every error (the
 * repetitions of a design lie a whole pass apart, so a burst of load on
 * the machine spoils at most one), add the rows. */
static int compare_stream_run(const char *cmd, compare_run *run,
                              compare_stream *s, cli_table *t, eval_csv *csv)
{
    int rc = stream_make(s, run->window, run->req->seed);
    double hits = run->req->quick ? QUICK_FP_HITS : FP_HITS;
    uint64_t most_probes = (uint64_t)ceil(hits / compare_errors[COMPARE_ERRORS - 1]);
    if (rc == TDBF_OK)
        rc = compare_buffers(run, s, most_probes);
    if (rc != TDBF_OK) {
        stream_free(s);
        return cli_lib_error(cmd, s->name, rc);
    }
    run->stream = s;
    compare_result results[COMPARE_ERRORS][COMPARE_DESIGNS];
    for (size_t rep = 0; rep < COMPARE_REPS; rep++) {
        for (size_t e = 0; e < COMPARE_ERRORS; e++) {
            const char *failed = "";
            rc = compare_error(run, compare_errors[e], rep, results[e], &failed);
            if (rc != TDBF_OK) {
                char what[64];
                snprintf(what, sizeof what, "%s stream, error %g, %s", s->name,
                         compare_errors[e], failed);
                stream_free(s);
                return cli_lib_error(cmd, what, rc);
            }
        }
    }
    for (size_t e = 0; e < COMPARE_ERRORS; e++) {
        const compare_result *bloom = bloom_of(results[e]);
        for (size_t i = 0; i < COMPARE_DESIGNS; i++) {
            table_row(t, s, compare_errors[e], &compare_designs[i],
                      &results[e][i], bloom, run->window);
            csv_row(csv, s, compare_errors[e], &compare_designs[i],
                    &results[e][i], bloom, run->window);
        }
    }
    stream_free(s);
    return CLI_EXIT_OK;
}

static void print_compare_notes(const compare_run *run, const word_list *words,
                                uint64_t took_ns)
{
    char w[32], took[32];
    cli_format_count(w, sizeof w, run->window);
    cli_format_duration_ns(took, sizeof took, took_ns);
    printf("\nbits/el = memory bits / %s keys; fp on %.0f/error fresh keys; "
           "fn = window keys (per\nthe exact window of the same kind) "
           "answered no; ins, qry = ns per call, median over\n%d runs of "
           "the median over chunks of %u calls (qry: mean of present and "
           "absent\nkeys); x bloom = ratio to the classic Bloom filter of "
           "capacity %s, same run;\nstale = share of keys w..2w and 2w..3w "
           "insertions old still reported, averaged over\nages (fp is its "
           "floor); npws = measured (stale - fp, summed up to 3w) and the "
           "planner's\npeak NPWS (APBF, APBBF).\n",
           w, run->req->quick ? QUICK_FP_HITS : FP_HITS, COMPARE_REPS,
           LAB_CHUNK, w);
    printf("Streams: synthetic = %u w events uniform over 2w ids (16-byte "
           "keys); words = two-word\nphrases of %s (%zu words), half the "
           "events replaying\nthe event 1..2w back.  Took %s.\n",
           COMPARE_WINDOWS, WORDS_PATH, words->count, took);
}

static int run_compare(const char *cmd, const eval_request *req, eval_csv *csv)
{
    uint64_t started = cli_now_ns();
    word_list words;
    if (words_load(&words, WORDS_PATH) != 0)
        return cli_io_error(cmd, "cannot read %s (%s): install Debian's wamerican "
                         "(sh scripts/deps.sh plot)", WORDS_PATH, strerror(errno));
    if (words.count < 2) {
        words_free(&words);
        return cli_error(cmd, "%s: fewer than 2 words", WORDS_PATH);
    }

    compare_run run;
    memset(&run, 0, sizeof run);
    run.req = req;
    run.window = req->quick ? COMPARE_QUICK_WINDOW : COMPARE_WINDOW;
    run.step_ns = COMPARE_WINDOW_NS / run.window;
    run.chunk = malloc(sizeof *run.chunk);
    for (size_t j = 0; run.chunk && j < LAB_CHUNK; j++)
        run.chunk->ptrs[j] = run.chunk->bytes[j];
    run.first = malloc(run.window * sizeof *run.first);
    for (uint64_t p = 0; run.first && p < run.window; p++)
        run.first[p] = (uint32_t)p;
    run.progress = isatty(STDERR_FILENO);
    run.steps = 2 * COMPARE_REPS * COMPARE_ERRORS * COMPARE_DESIGNS;
    compare_stream streams[] = {
        {.name = "synthetic"},
        {.name = "words", .words = &words},
    };

    cli_table t;
    cli_table_init(&t, 14, "llrrrrrrrrrrrr");
    static const char *const headers[] = {
        "stream", "error", "design", "bits/el", "fp", "fn", "ins ns",
        "x bloom", "qry ns", "x bloom", "stale w-2w", "stale 2w-3w",
        "npws", "npws plan"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "%s", compare_csv_header);

    int status = run.chunk && run.first ? CLI_EXIT_OK : cli_error(cmd, "out of memory");
    for (size_t i = 0; i < 2 && status == CLI_EXIT_OK; i++)
        status = compare_stream_run(cmd, &run, &streams[i], &t, csv);
    lab_progress_end(run.progress);
    compare_run_free(&run);
    if (status != CLI_EXIT_OK) {
        cli_table_free(&t);
        words_free(&words);
        return status;
    }

    char w[32];
    printf("Every windowed design at one setting: window %s keys (count) or "
           "60 s holding %s keys\n(time designs, simulated clock), errors "
           "0.01 and 0.001, seed %llu%s.\n\n",
           cli_format_count(w, sizeof w, run.window), w,
           (unsigned long long)req->seed,
           req->quick ? " -- QUICK RUN (--quick), window 10^4" : "");
    status = lab_print_table(&t, cmd, 1) == 0 ? CLI_EXIT_OK : CLI_EXIT_DATA;
    if (status == CLI_EXIT_OK)
        print_compare_notes(&run, &words, cli_now_ns() - started);
    words_free(&words);
    return status;
}

const eval_experiment eval_compare = {
    "compare", "all designs: bits/element, FP, FN, ns/op, slack (synthetic and wamerican words)",
    run_compare
};
