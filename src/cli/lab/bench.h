/*
 * bench.h — what the files of `tdbf-lab bench` share: the designs measured,
 * the options as parsed, the results of a run and the calls between
 * cmd_bench.c (options, header, the run), bench_measure.c (the designs
 * measured, keys, filters, timed loops, latencies, the memory-cost model)
 * and bench_report.c (tables, CSV, product goals).  The essay on what is
 * measured and how is cmd_bench.c's.
 */
#ifndef TDBF_CLI_LAB_BENCH_H
#define TDBF_CLI_LAB_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tdbf_model.h>

#include "../common/cmdline.h"
#include "../common/diag.h"
#include "../common/measure.h"
#include "../common/output.h"
#include "bench_inline.h"
#include "report.h"
#include "workload.h"
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
#define TURN_CHUNKS      8       /* chunks a filter runs in its turn, the first untimed */
#define TURNS_MIN_BYTES  (UINT64_C(8) << 20)    /* filters timed in turns from here */
#define TURNS_MIN_TEXT   "8 MiB"
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
#define SHIFT_SAMPLES    16        /* apbf-line adds that end a generation, timed */

/* ======================================================================
 * The designs and options
 * ====================================================================== */

typedef struct bench_design {
    const char *name;
    tdbf_design design;
    unsigned    block_bits;   /* cfg.block_bits; the line designs: cfg.unit_bits */
    double      plan_tolerance; /* cfg.plan_tolerance (0: the default) */
    int         inline_bloom; /* not the library: bench_inline.c's filter */
} bench_design;

/* inline-bloom: the classic Bloom filter written inline in the benchmark
 * (bench_inline.c), sized as `bloom`: what the library's generic path
 * costs.  apbf-fast: the fewest-reads APBF within 50 % more memory than
 * the least (cfg.plan_tolerance 0.5): what speed costs in memory. */
enum { D_INLINE, D_BLOOM, D_BLOOM_BLOCKED, D_APBF, D_APBBF_LINE, D_APBBF_WORD,
       D_APBF_FAST, D_APBF_LINE, D_APBF_LINE_64, D_APBF_LINE_128, D_SQF, D_SQF_64,
       D_SQF_128, D_COUNT };

extern const bench_design bench_designs[D_COUNT];

enum { SINGLE, BATCH, VARIANTS };
extern const char *const bench_variant_names[VARIANTS];

enum { OP_INSERT, OP_QUERY };

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

/* One design at one window and error. */
typedef struct bench_cell {
    int        status;          /* TDBF_OK, or the tdbf_open error: n/a */
    tdbf_stats stats;           /* after warming */
    double     insert_ns[VARIANTS], query_ns[VARIANTS];   /* medians */
    double     insert_mean_ns[VARIANTS], query_mean_ns[VARIANTS];
    uint64_t   insert_ops[VARIANTS], query_ops[VARIANTS];
    uint32_t   insert_latency[LAT_COUNT], query_latency[LAT_COUNT];
    uint64_t   latency_calls;   /* L: calls timed per operation; 0 none */
    uint32_t   shift_latency[LAT_COUNT];  /* adds that end a generation */
    uint64_t   shift_calls;     /* SHIFT_SAMPLES, or 0: not timed */
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
    /* The window's filters all take TURNS_MIN_BYTES or more: they are
     * timed in turns (bench_measure.c, measure_all); per window, error. */
    int               turns[MAX_WINDOWS][MAX_ERRORS];
    uint32_t          timer[LAT_COUNT];   /* an empty pair of clock reads */
} bench_run;

static inline bench_cell *cell_at(const bench_run *run, size_t w, size_t e, size_t d)
{
    return &run->cells[(w * MAX_ERRORS + e) * D_COUNT + d];
}

#define progress(run, ...) \
    lab_progress((run)->progress, "bench", (run)->step, (run)->steps, __VA_ARGS__)
#define progress_clear(run) lab_progress_end((run)->progress)

/* ---- bench_measure.c -------------------------------------------------- */

/* Generate the key pool for the largest window; reports and returns a
 * CLI_EXIT_* code. */
int keys_alloc(bench_run *run);
void keys_free(bench_keys *keys);
/* What an empty pair of clock reads costs, into run->timer. */
void timer_overhead(bench_run *run);
/* Measure every selected design at window w and error e (indexes into
 * the arguments) into their cells: all the window's filters open at once,
 * timed in turns; returns a CLI_EXIT_* code (a design the library refuses
 * is a cell with status, not an error). */
int bench_window_run(bench_run *run, size_t w, size_t e);

/* ---- bench_report.c --------------------------------------------------- */

/* The tables of window w; returns a CLI_EXIT_* code. */
int print_window(const bench_run *run, size_t w);
/* The CSV's first line. */
extern const char bench_csv_header[];
/* The rows of one cell, written as soon as it is measured; returns a
 * CLI_EXIT_* code. */
int write_csv_cell(const bench_run *run, size_t w, size_t e, size_t d);
/* --targets: each product goal judged from this run. */
void print_targets(const bench_run *run);

#endif /* TDBF_CLI_LAB_BENCH_H */
