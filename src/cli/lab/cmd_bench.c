/*
 * cmd_bench.c — `tdbf bench`: nanoseconds per insert and per query of the
 * count-window designs, each set against a classic Bloom filter measured
 * in the same run, both the library's and one written inline.
 *
 * What is compared.  At each window W (default 10^4, in cache, and 10^6;
 * 10^8 with --large) and each target error (0.01 and 0.001), these filters
 * of equal error and equal window:
 *
 *     inline-bloom  classic Bloom filter written inline   bench_inline.c
 *     bloom      classic Bloom filter, capacity W        TDBF_BLOOM
 *     bloom-512  cache-line blocked Bloom filter         TDBF_BLOOM, B = 512
 *     apbf       Age-Partitioned Bloom filter            TDBF_APBF
 *     apbbf-512  blocked APBF, one cache line per block  TDBF_APBBF, B = 512
 *     apbbf-64   blocked APBF, one word per block        TDBF_APBBF, B = 64
 *     apbf-line  line-local APBF, 128-byte units         TDBF_APBF_LINE
 *     apbf-line-64  the same, 64-byte units              TDBF_APBF_LINE, U = 512
 *
 * each through the single-key calls (tdbf_add, tdbf_contains) and the batch
 * calls (tdbf_add_batch, tdbf_contains_batch, 64 keys a call).  A design
 * this build refuses (tdbf_open fails) gets an "n/a" row and the run goes
 * on.
 *
 * Two baselines.  `bloom` is the library's classic Bloom filter through
 * the generic API; `inline-bloom` is the same filter (same size, k, seed,
 * XXH3-128 hash) written inline in the benchmark with no library at all,
 * timed by the same loops (single: one inlined test-and-set or query per
 * key; batch: groups hashed first, words prefetched 8 keys ahead), its
 * answers counted so no work can be dropped.  Every row carries both
 * ratios: insert/bloom, query/bloom over `bloom`'s single-key ns/op (as
 * before), and ins/inline, qry/inline over `inline-bloom`'s ns/op of the
 * same variant.  The inline one is the better yardstick for what a
 * design's own work costs: the gap between `bloom` and it is the price of
 * the generic path (argument checks, clock, counters, dispatch).
 *
 * How one filter is measured.  Keys are 16 random bytes from a fixed seed,
 * generated before anything is timed into one array; the keys of a
 * measurement are laid out in order, so reading them streams from memory
 * and only the filter's own accesses are random.  The filter is opened and
 * warmed with W inserts (untimed, batched) so that it starts at steady
 * state; then, in this order:
 *
 *     insert, single   N fresh keys
 *     insert latency   L fresh keys, each call timed alone (below)
 *     insert, batch    N fresh keys
 *     query,  single   N queries
 *     query latency    the first L of them, each call timed alone
 *     query,  batch    the same N
 *
 * with N = max(10^6, W), capped at 2^23 keys (memory) and stopped once a
 * measurement has taken --seconds (0.5 s) of timed work.  Queries are half
 * keys inserted within the last W inserts (present: a yes is required, a
 * no would be a false negative) and half keys never inserted, in random
 * order; the false-positive rate measured on those is printed as a check
 * that the filters really are at equal error.  One filter exists at a
 * time, freed before the next.
 *
 * The clock is read once per chunk of 4096 operations, and the ns/op
 * reported is the median over the chunks: on a shared machine a chunk
 * that lost a time slice to another process (a few ms) is an outlier the
 * median ignores, where the mean would absorb it.  The mean is in the CSV.
 *
 * Latency of single calls.  A median over chunks hides exactly what a
 * design that stops the world now and then (clearing a slice at a shift,
 * say) makes its caller wait, and so does a mean over millions of calls.
 * So each filter also gets a pass of L = min(N, 2^20) single calls per
 * operation, every call timed alone with CLOCK_MONOTONIC, and the table
 * after the main one gives p50, p99, p99.9 and the maximum.  vDSO
 * clock_gettime is the cheapest monotonic clock portable across Linux
 * machines (a cycle counter is neither portable nor in ns); what a pair
 * of its reads costs is measured once per run, printed in the header and
 * left in every number (nothing is subtracted: a latency is what a caller
 * timing the call would see).  The L times are kept as uint32 ns
 * (saturating at 4.29 s), 4 MiB at most, and sorted for the percentiles.
 *
 * The classic and blocked Bloom filters (and the inline one) have no window: past W keys their
 * FP rate climbs.  To keep them at capacity they are reopened and warmed
 * again with the latest W keys (untimed) after every W/8 timed inserts, and
 * once more before the queries, which therefore see exactly W keys.
 *
 * Memory cost model.  For each APBBF filter the run also times random
 * cache-line reads over a buffer of the filter's size (plain malloc, like
 * the filter's): (a) dependent, each read giving the next address (pointer
 * chasing through one random cycle of all lines: latency); (b) 16 such
 * chains advanced together, 16 independent reads in flight.  The
 * target for batched APBBF is (blocks touched per operation) x (b), with
 * the planner's expected reads (tdbf_plan_apbbf_eval, paper Table 3):
 *
 *     per query   (accesses_window + accesses_false) / 2, the 50/50 mix;
 *     per insert  k + accesses_false - 1: an insert first runs the query
 *                 (a fresh key is a negative: accesses_false reads, the
 *                 last of which, s_(l mod k), is among the k blocks it
 *                 then sets) and writes k blocks.
 *
 * The ratio to k alone (the blocks an insert writes) is printed too: with
 * k = 1 and l = 5 the query part alone reads six blocks, so k is a floor
 * no implementation of the design can reach.
 *
 * Nothing is pinned and no time is asserted.  --targets adds the product
 * goals the numbers are meant to meet, each judged from this run's ratios
 * and latencies, to read next to the machine line at the top.
 *
 * --simd chooses the vector path of the filters opened from then on
 * (tdbf_set_simd): the default takes the widest the CPU runs, and
 * `--simd portable` shows what the vector code buys.
 */
#define _POSIX_C_SOURCE 200809L

#include "../cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tdbf.h>

#include "bench_inline.h"
#include "report.h"
#include "stream.h"
#include "timing.h"

#define KEY_BYTES        LAB_KEY16_BYTES
#define DEFAULT_SEED     UINT64_C(0x7464626662656e63)   /* "tdbfbenc" */
#define ABSENT_TAG       UINT64_C(0xa5a5a5a55a5a5a5a)  /* never-inserted keys */
#define DEFAULT_BATCH    64
#define MAX_BATCH        4096
#define DEFAULT_SECONDS  0.5
#define MIN_OPS          UINT64_C(1000000)            /* N = max(10^6, W) ... */
#define MAX_OPS          (UINT64_C(1) << 23)         /* ... at most 2^23 */
#define MAX_WINDOW       UINT64_C(1000000000)
#define MAX_WINDOWS      8
#define MAX_ERRORS       4
#define LARGE_WINDOW     UINT64_C(100000000)
#define QUICK_WINDOW     UINT64_C(10000)
#define QUICK_OPS        UINT64_C(20000)
#define QUICK_SECONDS    0.05

#define CHUNK_BATCHES    64      /* operations between clock reads: 64 batches */
#define WARM_BATCH       64      /* keys per tdbf_add_batch while warming */
#define BLOOM_REWARM     8       /* Bloom: reopen after W / 8 timed inserts */
#define LINE_BYTES       64
#define LINE_WORDS       (LINE_BYTES / 8)
#define IN_FLIGHT        16      /* independent reads of the parallel loop */
#define LINE_STEPS       (UINT64_C(1) << 22)         /* reads per line test */
#define QUICK_LINE_STEPS (UINT64_C(1) << 14)
#define LINE_CHUNK       4096    /* dependent reads between clock reads */
#define LATENCY_CALLS    (UINT64_C(1) << 20)   /* L = min(N, 2^20) timed calls */
#define TIMER_PAIRS      (UINT64_C(1) << 20)   /* empty timer pairs timed: as
                                                  many as the longest pass */
#define ADD_MAX_NS       100000.0  /* goal: no apbf-line add above 100 us */

/* ======================================================================
 * The designs and options
 * ====================================================================== */

typedef struct bench_design {
    const char *name;
    tdbf_design design;
    unsigned    block_bits;   /* cfg.block_bits */
    double      plan_tolerance; /* cfg.plan_tolerance (0: the default) */
    int         inline_bloom; /* not the library: bench_inline.c's filter */
} bench_design;

/* inline-bloom: the classic Bloom filter written inline in the benchmark
 * (bench_inline.c), sized as `bloom`: what the library's generic path
 * costs.  apbf-fast: the fewest-reads APBF within 50 % more memory than
 * the least (cfg.plan_tolerance 0.5): what speed costs in memory. */
enum { D_INLINE, D_BLOOM, D_BLOOM_BLOCKED, D_APBF, D_APBBF_LINE, D_APBBF_WORD,
       D_APBF_FAST, D_APBF_LINE, D_APBF_LINE_64, D_COUNT };

static const bench_design designs[D_COUNT] = {
    [D_INLINE]        = {"inline-bloom", TDBF_BLOOM, 0, 0, 1},
    [D_BLOOM]         = {"bloom", TDBF_BLOOM, 0},
    [D_BLOOM_BLOCKED] = {"bloom-512", TDBF_BLOOM, TDBF_BLOCK_LINE},
    [D_APBF]          = {"apbf", TDBF_APBF, 0},
    [D_APBBF_LINE]    = {"apbbf-512", TDBF_APBBF, TDBF_BLOCK_LINE},
    [D_APBBF_WORD]    = {"apbbf-64", TDBF_APBBF, TDBF_BLOCK_WORD},
    [D_APBF_FAST]     = {"apbf-fast", TDBF_APBF, 0, 0.5},
    [D_APBF_LINE]     = {"apbf-line", TDBF_APBF_LINE, 0},
    [D_APBF_LINE_64]  = {"apbf-line-64", TDBF_APBF_LINE, 512},
};

enum { SINGLE, BATCH, VARIANTS };
static const char *const variant_names[VARIANTS] = {"single", "batch"};

enum { OP_INSERT, OP_QUERY };

enum {
    OPT_WINDOWS,
    OPT_LARGE,
    OPT_ERRORS,
    OPT_DESIGNS,
    OPT_BATCH,
    OPT_OPS,
    OPT_SECONDS,
    OPT_QUICK,
    OPT_CSV,
    OPT_SEED,
    OPT_SIMD,
    OPT_TARGETS,
    OPT_QUIET
};

static const cli_option bench_options[] = {
    [OPT_WINDOWS] = {"windows", "LIST", "count windows, comma-separated (default 1e4,1e6)"},
    [OPT_LARGE]   = {"large", NULL, "windows 1e4,1e6,1e8 (1e8: ~250 MB filters, 2 GB of "
                                  "keys, half an hour)"},
    [OPT_ERRORS]  = {"errors", "LIST", "target FP rates, comma-separated (default 0.01,0.001)"},
    [OPT_DESIGNS] = {"designs", "LIST", "subset of inline-bloom,bloom,bloom-512,apbf,"
                                        "apbbf-512,apbbf-64,apbf-fast,apbf-line,"
                                        "apbf-line-64"},
    [OPT_BATCH]   = {"batch", "N", "keys per batch call (default 64)"},
    [OPT_OPS]     = {"ops", "N", "operations per measurement at most (default "
                                 "max(1M, window), capped at 8Mi)"},
    [OPT_SECONDS] = {"seconds", "S", "stop a measurement after S s of timed work (default 0.5)"},
    [OPT_QUICK]   = {"quick", NULL, "CI-sized run: window 1e4, 20k ops, 0.05 s"},
    [OPT_CSV]     = {"csv", "FILE", "also write one CSV row per measurement to FILE"},
    [OPT_SEED]    = {"seed", "X", "seed of the keys and the filters (default fixed)"},
    [OPT_SIMD]    = {"simd", "PATH", "vector path of the filters: auto (default, the "
                                     "widest the CPU runs), portable, avx2, avx512"},
    [OPT_TARGETS] = {"targets", NULL, "also judge the product goals from this run "
                                      "(met / not met)"},
    [OPT_QUIET]   = {"quiet", NULL, "no progress line on stderr"},
    {NULL, NULL, NULL}
};

typedef struct bench_args {
    uint64_t    windows[MAX_WINDOWS];
    size_t      n_windows;
    double      errors[MAX_ERRORS];
    size_t      n_errors;
    int         selected[D_COUNT];
    size_t      batch;
    uint64_t    max_ops;
    double      seconds;
    uint64_t    line_steps;
    int         quick;
    const char *csv;
    uint64_t    seed;
    tdbf_simd   simd;
    int         targets;
    int         quiet;
} bench_args;

/* ======================================================================
 * Results
 * ====================================================================== */

/* A summary of single-call latencies, ns. */
enum { LAT_P50, LAT_P99, LAT_P999, LAT_MAX, LAT_COUNT };
static const double latency_quantiles[LAT_COUNT] = {0.5, 0.99, 0.999, 1.0};

/* One design at one window and error. */
typedef struct bench_cell {
    int        status;          /* TDBF_OK, or the tdbf_open error: n/a */
    tdbf_stats stats;           /* after warming */
    double     insert_ns[VARIANTS], query_ns[VARIANTS];   /* medians */
    double     insert_mean_ns[VARIANTS], query_mean_ns[VARIANTS];
    uint64_t   insert_ops[VARIANTS], query_ops[VARIANTS];
    uint32_t   insert_latency[LAT_COUNT], query_latency[LAT_COUNT];
    uint64_t   latency_calls;   /* L: calls timed per operation; 0 none */
    double     fp;              /* measured on the single-key queries */
    uint64_t   false_negatives; /* present keys answered no (a bug) */
    /* APBBF: the memory-cost model of the batch calls */
    int        has_model;
    unsigned   block_hashes;    /* b, from the planner */
    double     blocks_insert, blocks_query;  /* touched per operation */
    double     line_dependent_ns, line_parallel_ns;
} bench_cell;

typedef struct bench_keys {
    unsigned char *pool;        /* inserted keys: warm-up, then timed */
    size_t         pool_count;
    unsigned char *queries;     /* the query keys of one filter, in order */
    uint8_t       *present;     /* queries[i] was inserted */
    const void   **ptrs;        /* the keys of one measurement, in order */
    size_t        *lens;        /* all KEY_BYTES */
    uint8_t       *results;     /* answers of one batch call */
    uint32_t      *latency;     /* ns of each call of a latency pass */
    uint64_t       absent_next; /* index of the next never-inserted key */
} bench_keys;

typedef struct bench_run {
    const bench_args *args;
    bench_keys        keys;
    uint64_t          rng;
    uint64_t          budget_ns;  /* timed work per measurement */
    int               progress;   /* draw a progress line on stderr */
    size_t            step, steps;
    const char       *what;       /* "apbf, window 1,000,000, error 0.01" */
    FILE             *csv;
    bench_cell       *cells;      /* [window][error][design] */
    cli_chunk_times   chunks;     /* ns/op of each chunk of a measurement */
    uint32_t          timer[LAT_COUNT];   /* an empty pair of clock reads */
} bench_run;

static bench_cell *cell_at(const bench_run *run, size_t w, size_t e, size_t d)
{
    return &run->cells[(w * MAX_ERRORS + e) * D_COUNT + d];
}

/* ======================================================================
 * Progress line (stderr, only on a terminal)
 * ====================================================================== */

#define progress(run, ...) \
    lab_progress((run)->progress, "bench", (run)->step, (run)->steps, __VA_ARGS__)
#define progress_clear(run) lab_progress_end((run)->progress)

/* ======================================================================
 * Keys
 * ====================================================================== */

static const unsigned char *pool_key(const bench_keys *keys, size_t index)
{
    return keys->pool + index * KEY_BYTES;
}

static void keys_free(bench_keys *keys)
{
    free(keys->pool);
    free(keys->queries);
    free(keys->present);
    free(keys->ptrs);
    free(keys->lens);
    free(keys->results);
    free(keys->latency);
    memset(keys, 0, sizeof *keys);
}

/* Operations per measurement at window W: max(10^6, W), capped. */
static size_t ops_for(const bench_args *args, uint64_t window)
{
    uint64_t n = window > MIN_OPS ? window : MIN_OPS;
    return (size_t)(n < args->max_ops ? n : args->max_ops);
}

/* Calls per latency pass at window W: L = min(N, 2^20). */
static size_t latency_calls_for(const bench_args *args, uint64_t window)
{
    size_t n = ops_for(args, window);
    return n < LATENCY_CALLS ? n : (size_t)LATENCY_CALLS;
}

static int keys_alloc(bench_run *run)
{
    const bench_args *args = run->args;
    bench_keys *keys = &run->keys;
    uint64_t largest = 0;
    for (size_t w = 0; w < args->n_windows; w++)
        if (args->windows[w] > largest)
            largest = args->windows[w];
    size_t ops = ops_for(args, largest);
    size_t latency = latency_calls_for(args, largest);
    size_t lens = args->batch > WARM_BATCH ? args->batch : WARM_BATCH;

    memset(keys, 0, sizeof *keys);
    /* warm-up W, then N single, L timed one by one and N batched inserts */
    keys->pool_count = (size_t)largest + 2 * ops + latency;
    keys->pool = malloc(keys->pool_count * KEY_BYTES);
    keys->queries = malloc(ops * KEY_BYTES);
    keys->present = malloc(ops);
    keys->ptrs = malloc(ops * sizeof *keys->ptrs);
    keys->lens = malloc(lens * sizeof *keys->lens);
    keys->results = malloc(args->batch);
    /* the same array serves the timer's own pairs, once per run */
    keys->latency = malloc((latency > TIMER_PAIRS ? latency : TIMER_PAIRS) *
                           sizeof *keys->latency);
    if (!keys->pool || !keys->queries || !keys->present || !keys->ptrs ||
        !keys->lens || !keys->results || !keys->latency) {
        char count[32];
        keys_free(keys);
        return cli_error("bench", "cannot allocate %s keys of %d bytes",
                         cli_format_count(count, sizeof count, (uint64_t)ops + largest),
                         KEY_BYTES);
    }
    for (size_t i = 0; i < lens; i++)
        keys->lens[i] = KEY_BYTES;
    for (size_t i = 0; i < keys->pool_count; i++) {
        if ((i & ((1u << 22) - 1)) == 0)
            progress(run, "generating %zu keys: %zu%%", keys->pool_count,
                     (size_t)((double)i * 100.0 / (double)keys->pool_count));
        lab_key16(args->seed, i, keys->pool + i * KEY_BYTES);
    }
    return CLI_EXIT_OK;
}

/* ======================================================================
 * The filter under test
 * ====================================================================== */

typedef struct bench_filter {
    tdbf_config cfg;
    tdbf       *f;
    inline_bloom *inline_f;    /* the inline baseline instead of f */
    uint64_t    window;
    size_t      cursor;        /* next pool key to insert */
    uint64_t    since_warm;    /* timed inserts since the last warm-up */
    uint64_t    rewarm_after;  /* Bloom: reopen after this many; 0 never */
} bench_filter;

/* Insert pool keys from .. from+count-1, batched, untimed. */
static int filter_warm(const bench_run *run, bench_filter *bf, size_t from,
                       size_t count)
{
    const void *batch[WARM_BATCH];
    for (size_t done = 0; done < count;) {
        size_t n = count - done < WARM_BATCH ? count - done : WARM_BATCH;
        for (size_t j = 0; j < n; j++)
            batch[j] = pool_key(&run->keys, from + done + j);
        if (bf->inline_f != NULL) {
            inline_bloom_run(bf->inline_f, 1, batch, n, KEY_BYTES, n);
        } else {
            int rc = tdbf_add_batch(bf->f, n, batch, run->keys.lens, 0, NULL);
            if (rc != TDBF_OK)
                return rc;
        }
        done += n;
        if ((done & ((1u << 22) - 1)) == 0)
            progress(run, "%s: warming %zu%%", run->what,
                     (size_t)((double)done * 100.0 / (double)count));
    }
    return TDBF_OK;
}

/* Open the design and warm it with W inserts.  Returns tdbf_open's code
 * (the design is then n/a) or, once open, the warm-up's. */
static int filter_open(const bench_run *run, bench_filter *bf,
                       const bench_design *d, uint64_t window, double error)
{
    memset(bf, 0, sizeof *bf);
    tdbf_config_init(&bf->cfg);
    bf->cfg.design = d->design;
    bf->cfg.error = error;
    bf->cfg.window_items = window;
    bf->cfg.seed = run->args->seed;
    bf->cfg.block_bits = d->block_bits;
    if (d->plan_tolerance > 0)
        bf->cfg.plan_tolerance = d->plan_tolerance;
    bf->window = window;
    if (d->design == TDBF_BLOOM)
        bf->rewarm_after = window / BLOOM_REWARM > 0 ? window / BLOOM_REWARM : 1;
    if (d->inline_bloom) {
        bf->inline_f = inline_bloom_new(window, error, bf->cfg.seed);
        if (bf->inline_f == NULL)
            return TDBF_ENOMEM;
    } else {
        int rc = tdbf_open(&bf->f, &bf->cfg);
        if (rc != TDBF_OK)
            return rc;
    }
    bf->cursor = (size_t)window;
    return filter_warm(run, bf, 0, (size_t)window);
}

/* Bloom: start again from a filter holding exactly the last W keys. */
static int filter_rewarm(const bench_run *run, bench_filter *bf)
{
    bf->since_warm = 0;
    if (bf->inline_f != NULL) {
        inline_bloom_clear(bf->inline_f);
    } else {
        tdbf_close(bf->f);
        bf->f = NULL;
        int rc = tdbf_open(&bf->f, &bf->cfg);
        if (rc != TDBF_OK)
            return rc;
    }
    return filter_warm(run, bf, bf->cursor - (size_t)bf->window, (size_t)bf->window);
}

/* ======================================================================
 * Timed loops
 * ====================================================================== */

/* The timed work: `op` on keys[0 .. n-1], one call per key or one per
 * `batch` keys; adds the yes answers to *positives.  Returns TDBF_OK or
 * the library's error code. */
static int run_ops(const bench_filter *bf, int op, int variant, const void *const *keys,
                   size_t n, const bench_keys *bk, size_t batch,
                   uint64_t *positives)
{
    tdbf *f = bf->f;
    uint64_t yes = 0;
    if (bf->inline_f != NULL) {
        yes = inline_bloom_run(bf->inline_f, op == OP_INSERT, keys, n, KEY_BYTES,
                               variant == SINGLE ? 0 : batch);
    } else if (variant == SINGLE) {
        lab_calls calls = {.keys = keys, .len = KEY_BYTES};
        int64_t rc = lab_run_calls(f, op == OP_INSERT ? LAB_ADD : LAB_CONTAINS, &calls, 0, n);
        if (rc < 0)
            return (int)rc;
        yes = (uint64_t)rc;
    } else {
        for (size_t i = 0; i < n; i += batch) {
            size_t count = n - i < batch ? n - i : batch;
            int rc = op == OP_INSERT
                   ? tdbf_add_batch(f, count, keys + i, bk->lens, 0, bk->results)
                   : tdbf_contains_batch(f, count, keys + i, bk->lens, 0, bk->results);
            if (rc < 0)
                return rc;
            for (size_t j = 0; j < count; j++)
                yes += bk->results[j];
        }
    }
    *positives += yes;
    return TDBF_OK;
}

typedef struct bench_timing {
    double   ns;          /* per operation, median over the chunks */
    double   mean_ns;     /* per operation, total time / operations */
    uint64_t ops;         /* operations done (n, or fewer at the budget) */
    uint64_t positives;   /* yes answers */
} bench_timing;

/* Time `op` over run->keys.ptrs[0 .. n-1] in chunks, stopping early once
 * the budget is spent.  Inserts advance the filter's cursor and reopen a
 * Bloom filter when it is due (untimed). */
static int measure(bench_run *run, bench_filter *bf, int op, int variant,
                   size_t n, bench_timing *out)
{
    const void *const *keys = run->keys.ptrs;
    size_t batch = run->args->batch;
    size_t chunk_max = CHUNK_BATCHES * batch;
    uint64_t elapsed = 0, positives = 0;
    size_t done = 0;

    progress(run, "%s: %s %s", run->what, variant_names[variant],
             op == OP_INSERT ? "inserts" : "queries");
    cli_chunk_times_reset(&run->chunks);
    while (done < n && (done == 0 || elapsed < run->budget_ns)) {
        size_t chunk = n - done < chunk_max ? n - done : chunk_max;
        if (op == OP_INSERT && bf->rewarm_after != 0) {
            if (bf->since_warm >= bf->rewarm_after) {
                int rc = filter_rewarm(run, bf);
                if (rc != TDBF_OK)
                    return cli_lib_error("bench", run->what, rc);
            }
            if (chunk > bf->rewarm_after - bf->since_warm)
                chunk = (size_t)(bf->rewarm_after - bf->since_warm);
        }
        uint64_t start = cli_now_ns();
        int rc = run_ops(bf, op, variant, keys + done, chunk, &run->keys,
                         batch, &positives);
        uint64_t took = cli_now_ns() - start;
        if (rc != TDBF_OK)
            return cli_lib_error("bench", run->what, rc);
        if (cli_chunk_times_add(&run->chunks, took, chunk) != 0)
            return cli_error("bench", "out of memory");
        elapsed += took;
        done += chunk;
        if (op == OP_INSERT) {
            bf->cursor += chunk;
            bf->since_warm += chunk;
        }
    }
    out->ns = cli_chunk_times_median(&run->chunks);
    out->mean_ns = (double)elapsed / (double)done;
    out->ops = done;
    out->positives = positives;
    return CLI_EXIT_OK;
}

/* The next n inserts: fresh pool keys, in order. */
static void prepare_inserts(bench_run *run, const bench_filter *bf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        run->keys.ptrs[i] = pool_key(&run->keys, bf->cursor + i);
}

/* n queries, each with probability 1/2 a key among the last W inserted or
 * a key never inserted, copied in order into keys.queries. */
static void prepare_queries(bench_run *run, const bench_filter *bf, size_t n)
{
    bench_keys *keys = &run->keys;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = cli_rng_next(&run->rng);
        unsigned char *key = keys->queries + i * KEY_BYTES;
        keys->present[i] = (uint8_t)(r & 1);
        if (keys->present[i])
            memcpy(key, pool_key(keys, bf->cursor - 1 - (size_t)((r >> 1) % bf->window)),
                   KEY_BYTES);
        else
            lab_key16(run->args->seed ^ ABSENT_TAG, keys->absent_next++, key);
        keys->ptrs[i] = key;
    }
}

/* The FP rate of the answers to the first `done` queries, given `yes` of
 * them were yes; false negatives are counted (they must not happen). */
static void query_rates(const bench_keys *keys, uint64_t done, uint64_t yes,
                        bench_cell *cell)
{
    uint64_t present = 0;
    for (uint64_t i = 0; i < done; i++)
        present += keys->present[i];
    uint64_t absent = done - present;
    if (yes < present) {
        cell->false_negatives = present - yes;
        cell->fp = -1.0;
    } else {
        cell->fp = absent > 0 ? (double)(yes - present) / (double)absent : -1.0;
    }
}

/* ======================================================================
 * Latency of single calls
 * ====================================================================== */

static uint32_t saturate_ns(uint64_t ns)
{
    return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sort lat[0 .. n-1] (n >= 1) and read off the nearest-rank quantiles. */
static void latency_summary(uint32_t *lat, size_t n, uint32_t out[LAT_COUNT])
{
    qsort(lat, n, sizeof *lat, compare_u32);
    for (int q = 0; q < LAT_COUNT; q++) {
        size_t rank = (size_t)ceil(latency_quantiles[q] * (double)n);
        out[q] = lat[rank == 0 ? 0 : rank > n ? n - 1 : rank - 1];
    }
}

/* What timing a call costs by itself: TIMER_PAIRS pairs of clock reads
 * with nothing between them, summarised as the calls are.  Every latency
 * printed includes one such pair. */
static void timer_overhead(bench_run *run)
{
    uint32_t *lat = run->keys.latency;
    for (size_t i = 0; i < TIMER_PAIRS; i++) {
        uint64_t start = cli_now_ns();
        lat[i] = saturate_ns(cli_now_ns() - start);
    }
    latency_summary(lat, TIMER_PAIRS, run->timer);
}

/* One single-key call: the library's, or the inline filter's out-of-line
 * one, so that both sides pay one call. */
static inline int single_call(const bench_filter *bf, int op, const void *key)
{
    if (bf->inline_f != NULL)
        return op == OP_INSERT ? inline_bloom_add(bf->inline_f, key, KEY_BYTES)
                               : inline_bloom_contains(bf->inline_f, key, KEY_BYTES);
    return op == OP_INSERT ? tdbf_add(bf->f, key, KEY_BYTES, 0)
                           : tdbf_contains(bf->f, key, KEY_BYTES, 0);
}

/* Time each of n single calls of `op` alone and summarise them into out:
 * adds of the next n fresh pool keys (a Bloom filter is reopened between
 * calls when due, untimed), or queries of run->keys.ptrs[0 .. n-1]. */
static int latency_pass(bench_run *run, bench_filter *bf, int op, size_t n,
                        uint32_t out[LAT_COUNT])
{
    uint32_t *lat = run->keys.latency;
    progress(run, "%s: latency of single %s", run->what,
             op == OP_INSERT ? "inserts" : "queries");
    for (size_t i = 0; i < n; i++) {
        const void *key;
        if (op == OP_INSERT) {
            int rc;
            if (bf->rewarm_after != 0 && bf->since_warm >= bf->rewarm_after &&
                (rc = filter_rewarm(run, bf)) != TDBF_OK)
                return cli_lib_error("bench", run->what, rc);
            key = pool_key(&run->keys, bf->cursor);
            bf->cursor++;
            bf->since_warm++;
        } else {
            key = run->keys.ptrs[i];
        }
        uint64_t start = cli_now_ns();
        int rc = single_call(bf, op, key);
        uint64_t took = cli_now_ns() - start;
        if (rc < 0)
            return cli_lib_error("bench", run->what, rc);
        lat[i] = saturate_ns(took);
    }
    latency_summary(lat, n, out);
    return CLI_EXIT_OK;
}

/* ======================================================================
 * Random cache-line reads over a buffer of a filter's size
 * ====================================================================== */

/* Average ns of one random 64-byte line read over `bytes` of memory:
 * dependent (pointer chasing along one random cycle through every line)
 * and with IN_FLIGHT independent chains advancing together.  Returns 0,
 * or -1 if the buffer cannot be allocated. */
static int line_read_costs(const bench_run *run, uint64_t bytes,
                           double *dependent_ns, double *parallel_ns)
{
    size_t lines = (size_t)(bytes / LINE_BYTES);
    if (lines < 2 * IN_FLIGHT)
        lines = 2 * IN_FLIGHT;
    uint64_t *buf = aligned_alloc(LINE_BYTES, lines * LINE_BYTES);
    if (buf == NULL)
        return -1;
    /* Sattolo's shuffle of the identity gives a single cycle: a chase
     * started anywhere visits every line before it repeats. */
    uint64_t rng = run->args->seed;
    for (size_t i = 0; i < lines; i++)
        buf[i * LINE_WORDS] = i;
    for (size_t i = lines - 1; i > 0; i--) {
        size_t j = (size_t)(cli_rng_next(&rng) % i);
        uint64_t next = buf[i * LINE_WORDS];
        buf[i * LINE_WORDS] = buf[j * LINE_WORDS];
        buf[j * LINE_WORDS] = next;
    }

    uint64_t steps = run->args->line_steps;
    uint64_t at = 0, done = 0, start = cli_now_ns(), elapsed;
    do {
        for (int r = 0; r < LINE_CHUNK; r++)
            at = buf[at * LINE_WORDS];
        done += LINE_CHUNK;
        elapsed = cli_now_ns() - start;
    } while (done < steps && elapsed < run->budget_ns);
    *dependent_ns = (double)elapsed / (double)done;

    uint64_t chain[IN_FLIGHT];
    for (size_t c = 0; c < IN_FLIGHT; c++)
        chain[c] = buf[c * (lines / IN_FLIGHT) * LINE_WORDS];
    done = 0;
    start = cli_now_ns();
    do {
        for (int r = 0; r < LINE_CHUNK / IN_FLIGHT; r++)
            for (size_t c = 0; c < IN_FLIGHT; c++)
                chain[c] = buf[chain[c] * LINE_WORDS];
        done += LINE_CHUNK;
        elapsed = cli_now_ns() - start;
    } while (done < steps && elapsed < run->budget_ns);
    *parallel_ns = (double)elapsed / (double)done;

    /* keep the chases observable */
    for (size_t c = 0; c < IN_FLIGHT; c++)
        at ^= chain[c];
    volatile uint64_t sink = at;
    (void)sink;
    free(buf);
    return 0;
}

/* The memory-cost model of a batched APBBF: blocks per insert (k) and
 * per query (the planner's expected reads over the 50/50 mix), and the
 * cost of one random line read over the filter's memory. */
static void apbbf_model(const bench_run *run, const bench_design *d,
                        uint64_t window, double error, bench_cell *cell)
{
    tdbf_plan_blocked plan, eval;
    /* tdbf_open uses the fast plan (cfg.plan_tolerance default). */
    if (tdbf_plan_apbbf_fast(window, error, d->block_bits, TDBF_DEFAULT_PLAN_TOLERANCE,
                             &plan) != TDBF_OK ||
        plan.k != cell->stats.k || plan.l != cell->stats.l ||
        plan.blocks * d->block_bits != cell->stats.slice_bits)
        return;   /* the filter was not sized by this plan: no model */
    if (tdbf_plan_apbbf_eval(plan.k, plan.l, d->block_bits, plan.block_hashes,
                             window, &eval) != TDBF_OK ||
        eval.accesses_window < 0.0 || eval.accesses_false < 0.0)
        return;
    progress(run, "%s: random line reads over %llu bytes", run->what,
             (unsigned long long)cell->stats.memory_bytes);
    if (line_read_costs(run, cell->stats.memory_bytes, &cell->line_dependent_ns,
                        &cell->line_parallel_ns) != 0)
        return;
    cell->block_hashes = plan.block_hashes;
    cell->blocks_insert = plan.k + eval.accesses_false - 1.0;
    if (cell->blocks_insert < plan.k)
        cell->blocks_insert = plan.k;
    cell->blocks_query = (eval.accesses_window + eval.accesses_false) / 2.0;
    cell->has_model = 1;
}

/* ======================================================================
 * One design at one window and error
 * ====================================================================== */

/* What tdbf_get_stats would say of the inline filter. */
static void inline_stats(const bench_filter *bf, tdbf_stats *st)
{
    memset(st, 0, sizeof *st);
    st->design = TDBF_BLOOM;
    st->k = inline_bloom_hashes(bf->inline_f);
    st->slices = 1;
    st->slice_bits = inline_bloom_bits(bf->inline_f);
    st->window_items = bf->window;
    st->memory_bytes = (st->slice_bits + 511) / 512 * 64;
    st->bits_per_item = 8.0 * (double)st->memory_bytes / (double)bf->window;
}

/* The four measurements of an open, warmed filter. */
static int measure_filter(bench_run *run, bench_filter *bf, bench_cell *cell)
{
    size_t n = ops_for(run->args, bf->window);
    bench_timing timing;
    int status, rc;

    if (bf->inline_f != NULL)
        inline_stats(bf, &cell->stats);
    else
        tdbf_get_stats(bf->f, &cell->stats);
    cell->latency_calls = latency_calls_for(run->args, bf->window);
    for (int v = 0; v < VARIANTS; v++) {
        prepare_inserts(run, bf, n);
        if ((status = measure(run, bf, OP_INSERT, v, n, &timing)) != CLI_EXIT_OK)
            return status;
        cell->insert_ns[v] = timing.ns;
        cell->insert_mean_ns[v] = timing.mean_ns;
        cell->insert_ops[v] = timing.ops;
        if (v == SINGLE &&
            (status = latency_pass(run, bf, OP_INSERT, cell->latency_calls,
                                   cell->insert_latency)) != CLI_EXIT_OK)
            return status;
    }
    if (bf->since_warm > 0 && (rc = filter_rewarm(run, bf)) != TDBF_OK)
        return cli_lib_error("bench", run->what, rc);
    prepare_queries(run, bf, n);
    for (int v = 0; v < VARIANTS; v++) {
        if ((status = measure(run, bf, OP_QUERY, v, n, &timing)) != CLI_EXIT_OK)
            return status;
        cell->query_ns[v] = timing.ns;
        cell->query_mean_ns[v] = timing.mean_ns;
        cell->query_ops[v] = timing.ops;
        if (v != SINGLE)
            continue;
        query_rates(&run->keys, timing.ops, timing.positives, cell);
        if ((status = latency_pass(run, bf, OP_QUERY, cell->latency_calls,
                                   cell->query_latency)) != CLI_EXIT_OK)
            return status;
    }
    return CLI_EXIT_OK;
}

static int bench_cell_run(bench_run *run, const bench_design *d,
                          uint64_t window, double error, bench_cell *cell)
{
    char what[96], count[32];
    snprintf(what, sizeof what, "%s, window %s, error %g", d->name,
             cli_format_count(count, sizeof count, window), error);
    run->what = what;
    memset(cell, 0, sizeof *cell);

    bench_filter bf;
    progress(run, "%s: opening", what);
    int rc = filter_open(run, &bf, d, window, error);
    if (bf.f == NULL && bf.inline_f == NULL) {
        cell->status = rc;    /* this build refuses it: n/a */
        return CLI_EXIT_OK;
    }
    int status = rc == TDBF_OK ? measure_filter(run, &bf, cell)
                               : cli_lib_error("bench", what, rc);
    tdbf_close(bf.f);
    inline_bloom_free(bf.inline_f);
    if (status == CLI_EXIT_OK && d->design == TDBF_APBBF)
        apbbf_model(run, d, window, error, cell);
    run->what = NULL;
    return status;
}

/* ======================================================================
 * Output: tables, CSV, verdicts
 * ====================================================================== */

/* ns/op over the classic Bloom filter's single-key ns/op, or -1. */
static double ratio(double ns, const bench_cell *classic, int insert)
{
    if (classic == NULL || classic->status != TDBF_OK)
        return -1.0;
    double base = insert ? classic->insert_ns[SINGLE] : classic->query_ns[SINGLE];
    return base > 0.0 ? ns / base : -1.0;
}

/* ns/op over the inline Bloom filter's ns/op of the same variant (single
 * against single, batch against batch), or -1. */
static double inline_ratio(double ns, const bench_cell *baseline, int insert, int variant)
{
    if (baseline == NULL || baseline->status != TDBF_OK)
        return -1.0;
    double base = insert ? baseline->insert_ns[variant] : baseline->query_ns[variant];
    return base > 0.0 ? ns / base : -1.0;
}

/* The baselines of window w, error e: NULL where not selected. */
static const bench_cell *classic_of(const bench_run *run, size_t w, size_t e)
{
    return run->args->selected[D_BLOOM] ? cell_at(run, w, e, D_BLOOM) : NULL;
}

static const bench_cell *inline_of(const bench_run *run, size_t w, size_t e)
{
    return run->args->selected[D_INLINE] ? cell_at(run, w, e, D_INLINE) : NULL;
}

static void cell_number(cli_table *t, const char *fmt, double value)
{
    if (value < 0.0)
        cli_table_cell(t, "n/a");
    else
        cli_table_cell(t, fmt, value);
}

static void measurement_rows(cli_table *t, const bench_design *d, uint64_t window,
                             double error, const bench_cell *cell,
                             const bench_cell *classic, const bench_cell *baseline)
{
    char count[32];
    for (int v = 0; v < VARIANTS; v++) {
        int ok = cell->status == TDBF_OK;
        cli_table_cell(t, "%s", d->name);
        cli_table_cell(t, "%s", variant_names[v]);
        cli_table_cell(t, "%s", cli_format_count(count, sizeof count, window));
        cli_table_cell(t, "%g", error);
        cell_number(t, "%.2f", ok ? cell->stats.bits_per_item : -1.0);
        cell_number(t, "%.5f", ok ? cell->fp : -1.0);
        cell_number(t, "%.1f", ok ? cell->insert_ns[v] : -1.0);
        cell_number(t, "%.1f", ok ? cell->query_ns[v] : -1.0);
        cell_number(t, "%.2f", ok ? ratio(cell->insert_ns[v], classic, 1) : -1.0);
        cell_number(t, "%.2f", ok ? ratio(cell->query_ns[v], classic, 0) : -1.0);
        cell_number(t, "%.2f", ok ? inline_ratio(cell->insert_ns[v], baseline, 1, v) : -1.0);
        cell_number(t, "%.2f", ok ? inline_ratio(cell->query_ns[v], baseline, 0, v) : -1.0);
    }
}

static void model_row(cli_table *t, const bench_design *d, double error,
                      const bench_cell *cell)
{
    double target_insert = cell->blocks_insert * cell->line_parallel_ns;
    double target_query = cell->blocks_query * cell->line_parallel_ns;
    cli_table_cell(t, "%s", d->name);
    cli_table_cell(t, "%g", error);
    cli_table_cell(t, "%u", cell->stats.k);
    cli_table_cell(t, "%u", cell->stats.l);
    cli_table_cell(t, "%u", cell->block_hashes);
    cli_table_cell(t, "%.2f", cell->blocks_insert);
    cli_table_cell(t, "%.2f", cell->blocks_query);
    cli_table_cell(t, "%.1f", cell->line_dependent_ns);
    cli_table_cell(t, "%.2f", cell->line_parallel_ns);
    cli_table_cell(t, "%.1f", target_insert);
    cli_table_cell(t, "%.1f", cell->insert_ns[BATCH]);
    cli_table_cell(t, "%.2f", cell->insert_ns[BATCH] / target_insert);
    cli_table_cell(t, "%.2f", cell->insert_ns[BATCH] /
                              (cell->stats.k * cell->line_parallel_ns));
    cli_table_cell(t, "%.1f", target_query);
    cli_table_cell(t, "%.1f", cell->query_ns[BATCH]);
    cli_table_cell(t, "%.2f", cell->query_ns[BATCH] / target_query);
}

/* The second table of a window: each filter's single calls, timed one by
 * one.  A design that pauses now and then shows in p99.9 and max even
 * when its median is fine. */
static int print_latency(const bench_run *run, size_t w)
{
    const bench_args *args = run->args;
    static const char *const headers[] = {"design", "error", "op", "p50", "p99",
                                          "p99.9", "max"};
    char count[32], calls_text[32];
    uint64_t calls = 0;
    cli_table t;
    cli_table_init(&t, 7, "lrlrrrr");
    for (size_t c = 0; c < 7; c++)
        cli_table_cell(&t, "%s", headers[c]);
    for (size_t e = 0; e < args->n_errors; e++)
        for (size_t d = 0; d < D_COUNT; d++) {
            const bench_cell *cell = cell_at(run, w, e, d);
            if (!args->selected[d] || cell->status != TDBF_OK || cell->latency_calls == 0)
                continue;
            calls = cell->latency_calls;
            for (int op = OP_INSERT; op <= OP_QUERY; op++) {
                const uint32_t *lat = op == OP_INSERT ? cell->insert_latency
                                                      : cell->query_latency;
                cli_table_cell(&t, "%s", designs[d].name);
                cli_table_cell(&t, "%g", args->errors[e]);
                cli_table_cell(&t, "%s", op == OP_INSERT ? "insert" : "query");
                for (int q = 0; q < LAT_COUNT; q++)
                    cli_table_cell(&t, "%s", cli_format_count(count, sizeof count, lat[q]));
            }
        }
    if (calls == 0) {
        cli_table_free(&t);
        return CLI_EXIT_OK;
    }
    printf("\n  Latency of single calls, window %s: %s inserts and as many queries "
           "per filter, each\n  call timed alone (ns, nearest rank; every time "
           "includes one timer pair, p50 %u ns):\n\n",
           cli_format_count(count, sizeof count, args->windows[w]),
           cli_format_count(calls_text, sizeof calls_text, calls), run->timer[LAT_P50]);
    return lab_print_table(&t, "bench", 1);
}

/* The tables of one window, and notes on what is unavailable or odd. */
static int print_window(const bench_run *run, size_t w)
{
    const bench_args *args = run->args;
    char count[32];
    static const char *const headers[] = {
        "design", "variant", "window", "error", "bits/elem", "fp",
        "ns/insert", "ns/query", "insert/bloom", "query/bloom", "ins/inline",
        "qry/inline"
    };
    cli_table t;
    cli_table_init(&t, 12, "llrrrrrrrrrr");
    for (size_t c = 0; c < 12; c++)
        cli_table_cell(&t, "%s", headers[c]);
    for (size_t e = 0; e < args->n_errors; e++)
        for (size_t d = 0; d < D_COUNT; d++)
            if (args->selected[d])
                measurement_rows(&t, &designs[d], args->windows[w], args->errors[e],
                                 cell_at(run, w, e, d), classic_of(run, w, e),
                                 inline_of(run, w, e));
    printf("\nWindow %s:\n\n", cli_format_count(count, sizeof count, args->windows[w]));
    int status = lab_print_table(&t, "bench", 1);
    if (status != CLI_EXIT_OK)
        return status;

    for (size_t e = 0; e < args->n_errors; e++)
        for (size_t d = 0; d < D_COUNT; d++) {
            const bench_cell *cell = cell_at(run, w, e, d);
            if (!args->selected[d])
                continue;
            if (cell->status != TDBF_OK)
                printf("  n/a: %s at error %g: tdbf_open: %s\n", designs[d].name,
                       args->errors[e], tdbf_strerror(cell->status));
            else if (cell->false_negatives > 0)
                printf("  WARNING: %s at error %g: %llu present keys answered "
                       "absent (false negatives)\n", designs[d].name,
                       args->errors[e], (unsigned long long)cell->false_negatives);
        }
    if ((status = print_latency(run, w)) != CLI_EXIT_OK)
        return status;

    cli_table_init(&t, 16, "lrrrrrrrrrrrrrrr");
    static const char *const model_headers[] = {
        "design", "error", "k", "l", "b", "blk/ins", "blk/query", "line dep",
        "line 16x", "target ins", "batch ins", "x", "x (k)", "target qry",
        "batch qry", "x"
    };
    for (size_t c = 0; c < 16; c++)
        cli_table_cell(&t, "%s", model_headers[c]);
    size_t models = 0;
    for (size_t e = 0; e < args->n_errors; e++)
        for (size_t d = D_APBBF_LINE; d <= D_APBBF_WORD; d++)
            if (args->selected[d] && cell_at(run, w, e, d)->has_model) {
                model_row(&t, &designs[d], args->errors[e], cell_at(run, w, e, d));
                models++;
            }
    if (models == 0) {
        cli_table_free(&t);
        return CLI_EXIT_OK;
    }
    printf("\n  Batched APBBF against its memory cost, window %s: target = blocks "
           "touched per op x one\n  random line read with 16 in flight, over a "
           "buffer of the filter's size (ns).  blk/ins = k +\n  the reads of the "
           "test-query - 1; x (k) = batch ins / (k x line 16x), k = blocks "
           "written:\n\n", count);
    return lab_print_table(&t, "bench", 1);
}

static void csv_number(FILE *out, const char *fmt, double value, int last)
{
    if (value >= 0.0)
        fprintf(out, fmt, value);
    fputc(last ? '\n' : ',', out);
}

/* The latency columns of a row: single rows only (a batch call's latency
 * is that of its whole batch, not a key's). */
static void csv_latency(FILE *out, const bench_cell *cell, int variant,
                        const uint32_t timer[LAT_COUNT])
{
    int have = cell->status == TDBF_OK && variant == SINGLE && cell->latency_calls > 0;
    for (int op = OP_INSERT; op <= OP_QUERY; op++)
        for (int q = 0; q < LAT_COUNT; q++) {
            const uint32_t *lat = op == OP_INSERT ? cell->insert_latency
                                                  : cell->query_latency;
            csv_number(out, "%.0f", have ? (double)lat[q] : -1.0, 0);
        }
    csv_number(out, "%.0f", have ? (double)cell->latency_calls : -1.0, 0);
    csv_number(out, "%.0f", have ? (double)timer[LAT_P50] : -1.0, 1);
}

static void csv_rows(FILE *out, const bench_design *d, uint64_t window, double error,
                     const bench_cell *cell, const bench_cell *classic,
                     const bench_cell *baseline, const uint32_t timer[LAT_COUNT])
{
    int ok = cell->status == TDBF_OK, model = ok && cell->has_model;
    for (int v = 0; v < VARIANTS; v++) {
        fprintf(out, "%s,%s,%llu,%g,", d->name, variant_names[v],
                (unsigned long long)window, error);
        csv_number(out, "%.0f", ok ? (double)cell->stats.memory_bytes : -1.0, 0);
        csv_number(out, "%.4f", ok ? cell->stats.bits_per_item : -1.0, 0);
        csv_number(out, "%.6g", ok ? cell->fp : -1.0, 0);
        csv_number(out, "%.3f", ok ? cell->insert_ns[v] : -1.0, 0);
        csv_number(out, "%.3f", ok ? cell->query_ns[v] : -1.0, 0);
        csv_number(out, "%.4f", ok ? ratio(cell->insert_ns[v], classic, 1) : -1.0, 0);
        csv_number(out, "%.4f", ok ? ratio(cell->query_ns[v], classic, 0) : -1.0, 0);
        csv_number(out, "%.3f", ok ? cell->insert_mean_ns[v] : -1.0, 0);
        csv_number(out, "%.3f", ok ? cell->query_mean_ns[v] : -1.0, 0);
        csv_number(out, "%.0f", ok ? (double)cell->insert_ops[v] : -1.0, 0);
        csv_number(out, "%.0f", ok ? (double)cell->query_ops[v] : -1.0, 0);
        csv_number(out, "%.4f", model ? cell->blocks_insert : -1.0, 0);
        csv_number(out, "%.4f", model ? cell->blocks_query : -1.0, 0);
        csv_number(out, "%.3f", model ? cell->line_dependent_ns : -1.0, 0);
        csv_number(out, "%.3f", model ? cell->line_parallel_ns : -1.0, 0);
        csv_number(out, "%.4f", ok ? inline_ratio(cell->insert_ns[v], baseline, 1, v) : -1.0, 0);
        csv_number(out, "%.4f", ok ? inline_ratio(cell->query_ns[v], baseline, 0, v) : -1.0, 0);
        csv_latency(out, cell, v, timer);
    }
}

static const char csv_header[] =
    "design,variant,window,error,memory_bytes,bits_per_element,fp,ns_insert,"
    "ns_query,insert_ratio,query_ratio,ns_insert_mean,ns_query_mean,insert_ops,"
    "query_ops,blocks_per_insert,"
    "blocks_per_query,line_read_dependent_ns,line_read_16_in_flight_ns,"
    "insert_inline_ratio,query_inline_ratio,"
    "insert_p50_ns,insert_p99_ns,insert_p999_ns,insert_max_ns,"
    "query_p50_ns,query_p99_ns,query_p999_ns,query_max_ns,"
    "latency_calls,timer_pair_ns\n";

/* The rows of one cell, written as soon as it is measured: a long run cut
 * short keeps what it has done. */
static int write_csv_cell(const bench_run *run, size_t w, size_t e, size_t d)
{
    const bench_args *args = run->args;
    if (run->csv == NULL)
        return CLI_EXIT_OK;
    csv_rows(run->csv, &designs[d], args->windows[w], args->errors[e],
             cell_at(run, w, e, d), classic_of(run, w, e), inline_of(run, w, e),
             run->timer);
    if (fflush(run->csv) != 0 || ferror(run->csv))
        return cli_io_error("bench", "%s: write failed", args->csv);
    return CLI_EXIT_OK;
}

/* ======================================================================
 * Product goals (--targets)
 * ====================================================================== */

static const char *verdict(int met)
{
    return met ? "met" : "not met";
}

/* One goal: the designs it judges and its bound. */
typedef struct bench_goal {
    size_t   first, last;   /* designs[first .. last] */
    double   limit;
    uint64_t judge_at;      /* the window the verdict is given at; 0: every one */
} bench_goal;

/* Print the lines of one measured cell (design d at window w, error e)
 * for goal g; returns how many it printed (0: nothing to judge there). */
typedef size_t (*goal_lines)(const bench_run *run, const bench_goal *g, size_t w,
                             size_t e, size_t d, const bench_cell *cell);

/* The start of a goal's line: where it was measured. */
static void goal_where(const bench_run *run, size_t w, size_t e)
{
    char count[32];
    printf("    window %11s  error %-6g  ",
           cli_format_count(count, sizeof count, run->args->windows[w]),
           run->args->errors[e]);
}

/* Every window, error and design of goal g that was run and that the
 * library opened, through `lines`; "not measured" if none printed. */
static void goal_each(const bench_run *run, const bench_goal *g, goal_lines lines,
                      const char *needs)
{
    const bench_args *args = run->args;
    size_t printed = 0;
    for (size_t w = 0; w < args->n_windows; w++)
        for (size_t e = 0; e < args->n_errors; e++)
            for (size_t d = g->first; d <= g->last; d++) {
                const bench_cell *cell = cell_at(run, w, e, d);
                if (args->selected[d] && cell->status == TDBF_OK)
                    printed += lines(run, g, w, e, d, cell);
            }
    if (printed == 0)
        printf("    not measured (needs %s)\n", needs);
}

/* ns/op over the inline Bloom filter's, same calls (single over single,
 * batch over batch); met when insert and query are both at most the
 * limit.  A goal for large filters is judged only at its window, as a
 * small one that fits in cache would flatter it. */
static size_t inline_ratio_lines(const bench_run *run, const bench_goal *g, size_t w,
                                 size_t e, size_t d, const bench_cell *cell)
{
    const bench_cell *base = cell_at(run, w, e, D_INLINE);
    char count[32];
    (void)d;
    if (!run->args->selected[D_INLINE] || base->status != TDBF_OK)
        return 0;
    for (int v = 0; v < VARIANTS; v++) {
        double ins = inline_ratio(cell->insert_ns[v], base, 1, v);
        double qry = inline_ratio(cell->query_ns[v], base, 0, v);
        goal_where(run, w, e);
        printf("%-6s  insert %5.2fx  query %5.2fx   ", variant_names[v], ins, qry);
        if (g->judge_at == 0 || run->args->windows[w] == g->judge_at)
            printf("%s\n", verdict(ins <= g->limit && qry <= g->limit));
        else
            printf("(judged at window %s)\n",
                   cli_format_count(count, sizeof count, g->judge_at));
    }
    return VARIANTS;
}

/* Bits per element over the least-memory APBF plan's (tdbf_plan_apbf),
 * at the two errors the goal names. */
static size_t memory_lines(const bench_run *run, const bench_goal *g, size_t w,
                           size_t e, size_t d, const bench_cell *cell)
{
    double error = run->args->errors[e];
    double limit = fabs(error - 0.01) < 1e-12 ? 1.15
                 : fabs(error - 0.001) < 1e-12 ? 1.25 : 0.0;
    tdbf_plan plan;
    int rc = tdbf_plan_apbf(run->args->windows[w], error, &plan, NULL, 0, NULL);
    (void)g;
    (void)d;
    goal_where(run, w, e);
    if (rc != TDBF_OK) {
        printf("least-memory APBF plan: %s\n", tdbf_strerror(rc));
        return 1;
    }
    double x = cell->stats.bits_per_item / plan.bits_per_item;
    printf("%6.2f over %6.2f bits/elem = %5.3fx   ", cell->stats.bits_per_item,
           plan.bits_per_item, x);
    if (limit > 0.0)
        printf("%s (at most %.2fx)\n", verdict(x <= limit), limit);
    else
        printf("no goal at this error\n");
    return 1;
}

/* The slowest single add of the latency pass against the limit, ns. */
static size_t pause_lines(const bench_run *run, const bench_goal *g, size_t w,
                          size_t e, size_t d, const bench_cell *cell)
{
    char max[32], calls[32];
    uint32_t worst = cell->insert_latency[LAT_MAX];
    (void)d;
    if (cell->latency_calls == 0)
        return 0;
    goal_where(run, w, e);
    printf("max %9s ns over %s adds   %s",
           cli_format_count(max, sizeof max, worst),
           cli_format_count(calls, sizeof calls, cell->latency_calls),
           verdict((double)worst < g->limit));
    /* A pause the clock alone shows is the machine's, not the filter's:
     * say so rather than let it pass for the filter's. */
    if ((double)worst >= g->limit && (double)run->timer[LAT_MAX] >= g->limit)
        printf(" (an empty timer pair took up to %s ns in this run)",
               cli_format_count(max, sizeof max, run->timer[LAT_MAX]));
    putchar('\n');
    return 1;
}

/* Batched APBBF over blocks touched x one line read with 16 in flight. */
static size_t memory_cost_lines(const bench_run *run, const bench_goal *g, size_t w,
                                size_t e, size_t d, const bench_cell *cell)
{
    if (!cell->has_model)
        return 0;
    double ins = cell->insert_ns[BATCH] / (cell->blocks_insert * cell->line_parallel_ns);
    double qry = cell->query_ns[BATCH] / (cell->blocks_query * cell->line_parallel_ns);
    double ins_k = cell->insert_ns[BATCH] / (cell->stats.k * cell->line_parallel_ns);
    goal_where(run, w, e);
    printf("%-9s  insert %6.2fx  query %6.2fx   %-7s  (insert vs k blocks alone: "
           "%.2fx)\n", designs[d].name, ins, qry,
           verdict(ins <= g->limit && qry <= g->limit), ins_k);
    return 1;
}

static void print_targets(const bench_run *run)
{
    const bench_args *args = run->args;
    char count[32];
    uint64_t largest = 0;
    for (size_t w = 0; w < args->n_windows; w++)
        if (args->windows[w] > largest)
            largest = args->windows[w];
    const bench_goal bloom = {D_BLOOM, D_BLOOM, 1.2, 0};
    const bench_goal line_speed = {D_APBF_LINE, D_APBF_LINE, 0.5, largest};
    const bench_goal line_memory = {D_APBF_LINE, D_APBF_LINE, 0.0, 0};
    const bench_goal line_pause = {D_APBF_LINE, D_APBF_LINE, ADD_MAX_NS, 0};
    const bench_goal apbbf = {D_APBBF_LINE, D_APBBF_WORD, 2.0, 0};

    printf("\nProduct goals, judged from this run (nothing is asserted):\n");
    printf("\n  The library's classic Bloom filter within 1.2x of the inline one "
           "(bloom ns / inline-bloom ns,\n  same calls) at every window:\n");
    goal_each(run, &bloom, inline_ratio_lines, "inline-bloom and bloom");
    printf("\n  apbf-line at most 0.5x the inline Bloom filter (apbf-line ns / "
           "inline-bloom ns, same calls),\n  judged at the largest window, %s:\n",
           cli_format_count(count, sizeof count, largest));
    goal_each(run, &line_speed, inline_ratio_lines, "inline-bloom and apbf-line");
    printf("\n  apbf-line memory within 1.15x (error 0.01) and 1.25x (error 0.001) "
           "of the least-memory APBF\n  (bits/elem over that of tdbf_plan_apbf's "
           "plan for the same window and error):\n");
    goal_each(run, &line_memory, memory_lines, "apbf-line");
    printf("\n  No apbf-line add slower than %.0f us (the slowest of the single "
           "calls timed one by one):\n", ADD_MAX_NS / 1000.0);
    goal_each(run, &line_pause, pause_lines, "apbf-line");
    printf("\n  Batched APBBF within 2x of its memory cost: blocks touched x one "
           "random line read (16 in\n  flight; blocks per insert = k + test-query "
           "reads - 1, per query the planner's average):\n");
    goal_each(run, &apbbf, memory_cost_lines, "apbbf-512 or apbbf-64");
}

/* ======================================================================
 * Machine description
 * ====================================================================== */

/* The value after "key:" on the first line of `path` starting with `key`
 * (key "" = the first line), trimmed; "unknown" when absent. */
static void read_field(const char *path, const char *key, char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, in) != NULL) {
        if (strncmp(line, key, strlen(key)) != 0)
            continue;
        const char *value = line + strlen(key);
        const char *colon = strchr(value, ':');
        if (*key != '\0' && colon != NULL)
            value = colon + 1;
        value += strspn(value, " \t");
        snprintf(out, size, "%.*s", (int)strcspn(value, "\n"), value);
        break;
    }
    fclose(in);
}

static void print_header(const bench_run *run)
{
    const bench_args *args = run->args;
    char model[128], thp[128], ops[32], pairs[32], max[32];
    read_field("/proc/cpuinfo", "model name", model, sizeof model);
    read_field("/sys/kernel/mm/transparent_hugepage/enabled", "", thp, sizeof thp);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    struct timespec res;
    char resolution[32] = "unknown";
    if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
        snprintf(resolution, sizeof resolution, "%ld ns",
                 (long)res.tv_sec * 1000000000L + res.tv_nsec);

    printf("tdbf bench: libtdbf %s\n", tdbf_version_string());
    printf("machine: nproc %ld, %s; transparent huge pages: %s\n", cpus, model, thp);
    printf("vector path: %s (%s)\n", tdbf_simd_name(tdbf_simd_in_use()),
           args->simd == TDBF_SIMD_AUTO ? "auto" : "set by --simd");
    printf("keys: %d random bytes (seed 0x%llx); batch calls of %zu keys; "
           "warm-up: one window of inserts\n", KEY_BYTES,
           (unsigned long long)args->seed, args->batch);
    printf("per measurement: max(10^6, window) ops, at most %s and %.2g s of "
           "timed work\n", cli_format_count(ops, sizeof ops, args->max_ops),
           args->seconds);
    printf("queries: 1/2 keys of the last window, 1/2 never inserted; fp = "
           "measured false-positive rate\n");
    printf("ns/op: median over chunks of %zu ops; ratios at the same window and "
           "error: insert/bloom,\nquery/bloom = ns/op over the library's classic "
           "Bloom filter's single-key ns/op;\nins/inline, qry/inline = ns/op over "
           "the inline Bloom filter's (bench_inline.c) in the\nsame variant\n",
           CHUNK_BATCHES * args->batch);
    printf("latency: min(N, 2^20) single inserts and queries per filter, each timed "
           "alone with\nclock_gettime(CLOCK_MONOTONIC), resolution %s; the timer "
           "itself (an empty pair of reads,\n%s times) takes p50 %u ns, p99 %u ns, "
           "max %s ns, included in every latency (nothing\nsubtracted; its max is "
           "the machine's own noise: interrupts, preemption)\n", resolution,
           cli_format_count(pairs, sizeof pairs, TIMER_PAIRS), run->timer[LAT_P50],
           run->timer[LAT_P99], cli_format_count(max, sizeof max, run->timer[LAT_MAX]));
}

/* ======================================================================
 * Command line
 * ====================================================================== */

/* Copy the next comma-separated item of *list into item.  Returns 1 with
 * an item, 0 at the end, -1 if an item is empty or too long. */
static int next_item(const char **list, char *item, size_t size)
{
    if (**list == '\0')
        return 0;
    size_t len = strcspn(*list, ",");
    if (len == 0 || len >= size)
        return -1;
    memcpy(item, *list, len);
    item[len] = '\0';
    *list += len;
    if (**list == ',') {
        (*list)++;
        if (**list == '\0')
            return -1;     /* a trailing comma */
    }
    return 1;
}

static int parse_list(const char *cmd, int opt, const char *text, bench_args *args)
{
    const char *name = bench_options[opt].name, *list = text;
    char item[64];
    int got;
    size_t n = 0;
    while ((got = next_item(&list, item, sizeof item)) > 0) {
        size_t max = opt == OPT_WINDOWS ? MAX_WINDOWS : opt == OPT_ERRORS ? MAX_ERRORS : D_COUNT;
        if (n == max)
            return cli_usage_error(cmd, "--%s: at most %zu items", name, max);
        if (opt == OPT_WINDOWS) {
            if (cli_parse_count(cmd, name, item, 1, MAX_WINDOW, &args->windows[n]) != 0)
                return CLI_EXIT_USAGE;
        } else if (opt == OPT_ERRORS) {
            if (cli_parse_probability(cmd, name, item, &args->errors[n]) != 0)
                return CLI_EXIT_USAGE;
        } else {
            size_t d = 0;
            while (d < D_COUNT && strcmp(designs[d].name, item) != 0)
                d++;
            if (d == D_COUNT)
                return cli_usage_error(cmd, "--designs: unknown design '%s'", item);
            args->selected[d] = 1;
        }
        n++;
    }
    if (got < 0 || n == 0)
        return cli_usage_error(cmd, "--%s: '%s' is not a comma-separated list",
                               name, text);
    if (opt == OPT_WINDOWS)
        args->n_windows = n;
    else if (opt == OPT_ERRORS)
        args->n_errors = n;
    return CLI_EXIT_OK;
}

static int parse_simd(const char *cmd, const char *text, tdbf_simd *out)
{
    static const tdbf_simd paths[] = {TDBF_SIMD_AUTO, TDBF_SIMD_PORTABLE,
                                      TDBF_SIMD_AVX2, TDBF_SIMD_AVX512};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (strcmp(text, tdbf_simd_name(paths[i])) == 0) {
            *out = paths[i];
            return CLI_EXIT_OK;
        }
    return cli_usage_error(cmd, "--simd: unknown vector path '%s' (auto, portable, "
                           "avx2 or avx512)", text);
}

static int parse_args(const cli_command *self, int argc, char **argv,
                      bench_args *args)
{
    const char *cmd = self->name;
    cli_parser parser;
    cli_parser_init(&parser, cmd, self->options, argc, argv);
    int have_windows = 0, have_designs = 0, have_ops = 0, have_seconds = 0;
    int large = 0;
    uint64_t number;
    const char *value;
    int opt;

    memset(args, 0, sizeof *args);
    args->batch = DEFAULT_BATCH;
    args->seconds = DEFAULT_SECONDS;
    args->max_ops = MAX_OPS;
    args->seed = DEFAULT_SEED;
    args->line_steps = LINE_STEPS;
    while ((opt = cli_next_option(&parser, &value)) != CLI_OPT_END) {
        int status = CLI_EXIT_OK;
        switch (opt) {
        case CLI_OPT_HELP:
            cli_command_help(self, stdout);
            return -1;
        case OPT_WINDOWS:
        case OPT_ERRORS:
        case OPT_DESIGNS:
            status = parse_list(cmd, opt, value, args);
            have_windows |= opt == OPT_WINDOWS;
            have_designs |= opt == OPT_DESIGNS;
            break;
        case OPT_LARGE:
            large = 1;
            break;
        case OPT_BATCH:
            if (cli_parse_count(cmd, "batch", value, 1, MAX_BATCH, &number) != 0)
                return CLI_EXIT_USAGE;
            args->batch = (size_t)number;
            break;
        case OPT_OPS:
            if (cli_parse_count(cmd, "ops", value, 1, MAX_OPS, &args->max_ops) != 0)
                return CLI_EXIT_USAGE;
            have_ops = 1;
            break;
        case OPT_SECONDS:
            if (cli_parse_real(cmd, "seconds", value, 0.001, 60.0, &args->seconds) != 0)
                return CLI_EXIT_USAGE;
            have_seconds = 1;
            break;
        case OPT_QUICK:
            args->quick = 1;
            break;
        case OPT_CSV:
            args->csv = value;
            break;
        case OPT_SEED:
            if (cli_parse_count(cmd, "seed", value, 1, UINT64_MAX, &args->seed) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_SIMD:
            if ((status = parse_simd(cmd, value, &args->simd)) != CLI_EXIT_OK)
                return status;
            break;
        case OPT_TARGETS:
            args->targets = 1;
            break;
        case OPT_QUIET:
            args->quiet = 1;
            break;
        default:
            return CLI_EXIT_USAGE;   /* CLI_OPT_ERROR: already reported */
        }
        if (status != CLI_EXIT_OK)
            return status;
    }

    if (large && have_windows)
        return cli_usage_error(cmd, "give --large or --windows, not both");
    if (!have_windows) {
        static const uint64_t defaults[] = {10000, 1000000, LARGE_WINDOW};
        args->n_windows = args->quick ? 1 : large ? 3 : 2;
        for (size_t w = 0; w < args->n_windows; w++)
            args->windows[w] = args->quick ? QUICK_WINDOW : defaults[w];
    }
    if (args->n_errors == 0) {
        args->errors[0] = 0.01;
        args->errors[1] = 0.001;
        args->n_errors = 2;
    }
    if (!have_designs)
        for (size_t d = 0; d < D_COUNT; d++)
            args->selected[d] = 1;
    if (args->quick) {
        args->max_ops = have_ops ? args->max_ops : QUICK_OPS;
        args->seconds = have_seconds ? args->seconds : QUICK_SECONDS;
        args->line_steps = QUICK_LINE_STEPS;
    }
    return CLI_EXIT_OK;
}

static int run_all(bench_run *run)
{
    const bench_args *args = run->args;
    int status = keys_alloc(run);
    if (status != CLI_EXIT_OK)
        return status;
    timer_overhead(run);
    progress_clear(run);
    print_header(run);
    fflush(stdout);
    for (size_t w = 0; w < args->n_windows; w++) {
        for (size_t e = 0; e < args->n_errors; e++)
            for (size_t d = 0; d < D_COUNT; d++) {
                if (!args->selected[d])
                    continue;
                run->step++;
                status = bench_cell_run(run, &designs[d], args->windows[w],
                                        args->errors[e], cell_at(run, w, e, d));
                if (status == CLI_EXIT_OK)
                    status = write_csv_cell(run, w, e, d);
                if (status != CLI_EXIT_OK) {
                    progress_clear(run);
                    return status;
                }
            }
        progress_clear(run);
        status = print_window(run, w);
        if (status != CLI_EXIT_OK)
            return status;
        fflush(stdout);
    }
    if (args->targets)
        print_targets(run);
    return CLI_EXIT_OK;
}

static int run_bench(const cli_command *self, int argc, char **argv)
{
    bench_args args;
    int status = parse_args(self, argc, argv, &args);
    if (status < 0)
        return CLI_EXIT_OK;           /* --help */
    if (status != CLI_EXIT_OK)
        return status;

    /* Before any filter is opened: a filter takes its path when opened. */
    int rc = tdbf_set_simd(args.simd);
    if (rc != TDBF_OK) {
        cli_error(self->name, "--simd %s: %s", tdbf_simd_name(args.simd),
                  rc == TDBF_ENOTSUP ? "this CPU or this build cannot run that "
                                       "vector path" : tdbf_strerror(rc));
        return CLI_EXIT_USAGE;
    }

    bench_run run;
    memset(&run, 0, sizeof run);
    run.args = &args;
    run.rng = args.seed;
    run.budget_ns = (uint64_t)(args.seconds * 1e9);
    run.progress = !args.quiet && isatty(STDERR_FILENO);
    for (size_t d = 0; d < D_COUNT; d++)
        run.steps += (size_t)args.selected[d];
    run.steps *= args.n_windows * args.n_errors;
    run.cells = calloc(MAX_WINDOWS * MAX_ERRORS * D_COUNT, sizeof *run.cells);
    if (run.cells == NULL)
        return cli_error(self->name, "out of memory");
    if (args.csv != NULL) {
        run.csv = fopen(args.csv, "w");
        if (run.csv == NULL) {
            free(run.cells);
            return cli_io_error(self->name, "%s: cannot open for writing", args.csv);
        }
        fputs(csv_header, run.csv);
    }

    status = run_all(&run);
    if (args.simd != TDBF_SIMD_AUTO)
        (void)tdbf_set_simd(TDBF_SIMD_AUTO);   /* back to the process default */

    keys_free(&run.keys);
    free(run.cells);
    cli_chunk_times_free(&run.chunks);
    if (run.csv != NULL && fclose(run.csv) != 0 && status == CLI_EXIT_OK)
        status = cli_io_error(self->name, "%s: write failed", args.csv);
    return status;
}

const cli_command cli_cmd_bench = {
    .name = "bench",
    .summary = "time inserts and queries of the count-window designs against a "
               "classic Bloom filter",
    .usage = "[--windows LIST | --large] [--errors LIST] [--designs LIST] "
             "[--simd PATH] [--csv FILE] [--targets] [--quick]",
    .details =
        "For each window and target error, opens a classic Bloom filter written\n"
        "inline in the benchmark (no library), the library's classic and\n"
        "cache-line blocked Bloom filters, APBF, APBBF (512- and 64-bit blocks)\n"
        "and apbf-line (128- and 64-byte units), one at a time; warms each with\n"
        "one window of inserts, then times N inserts of fresh 16-byte keys and\n"
        "N queries (half present, half never inserted), through the single-key\n"
        "and the batch calls.  ns/op (median over chunks) is printed with its\n"
        "ratio to the library's classic Bloom filter's single-key calls, and to\n"
        "the inline one's calls of the same kind (single or batch).\n"
        "\n"
        "A second table per window, \"latency of single calls\", times each of\n"
        "min(N, 2^20) single inserts and as many queries alone and gives p50,\n"
        "p99, p99.9 and max in ns: a design that pauses now and then shows\n"
        "there even when its median is fine.  The header says what the timer\n"
        "itself costs; it is included in every latency, not subtracted.\n"
        "\n"
        "For the APBBFs it also times random cache-line reads over a buffer of\n"
        "the filter's size (dependent, and 16 in flight) and sets the batch\n"
        "calls against blocks touched x that cost.  --simd picks the vector\n"
        "path of the filters (exit 2 if this CPU or build lacks it); the header\n"
        "names the one in use.  --targets ends the output with the product\n"
        "goals, each \"met\" or \"not met\" from this run.\n"
        "\n"
        "The 10^8 window (--large) needs ~2.5 GB, and each of its filters is\n"
        "warmed with 10^8 inserts: expect half an hour; --designs and --errors\n"
        "narrow it.  --csv rows are written as each filter finishes.\n",
    .options = bench_options,
    .run = run_bench,
};
