/*
 * bench_measure.c — how `tdbf-lab bench` measures one filter (the method is
 * cmd_bench.c's essay): the key pool, the filter under test and its
 * warm-ups, the timed loops, single-call latencies, and random cache-line
 * reads for the blocked designs' memory-cost model.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The designs and variants measured: the tables the options, the runs
 * and the reports (cmd_bench.c, bench_report.c) all index. */
const bench_design bench_designs[D_COUNT] = {
    [D_INLINE]        = {"inline-bloom", TDBF_BLOOM, 0, 0, 1},
    [D_BLOOM]         = {"bloom", TDBF_BLOOM, 0},
    [D_BLOOM_BLOCKED] = {"bloom-512", TDBF_BLOOM, TDBF_BLOCK_LINE},
    [D_APBF]          = {"apbf", TDBF_APBF, 0},
    [D_APBBF_LINE]    = {"apbbf-512", TDBF_APBBF, TDBF_BLOCK_LINE},
    [D_APBBF_WORD]    = {"apbbf-64", TDBF_APBBF, TDBF_BLOCK_WORD},
    [D_APBF_FAST]     = {"apbf-fast", TDBF_APBF, 0, 0.5},
    [D_APBF_LINE]     = {"apbf-line", TDBF_APBF_LINE, 0},
    [D_APBF_LINE_64]  = {"apbf-line-64", TDBF_APBF_LINE, 512},
    [D_APBF_LINE_128] = {"apbf-line-128", TDBF_APBF_LINE, 1024},
    [D_SQF]           = {"sqf", TDBF_SQF, 0},
    [D_SQF_64]        = {"sqf-64", TDBF_SQF, 512},
    [D_SQF_128]       = {"sqf-128", TDBF_SQF, 1024},
};

const char *const bench_variant_names[VARIANTS] = {"single", "batch"};

static const double latency_quantiles[LAT_COUNT] = {0.5, 0.99, 0.999, 1.0};

/* ======================================================================
 * Keys
 * ====================================================================== */

/* Key `index` of the pool, which the measurements never run past; the
 * pass over generation ends (shift_pass) wraps around it: re-adds. */
static const unsigned char *pool_key(const bench_keys *keys, size_t index)
{
    if (index >= keys->pool_count)   /* (no division on the measurements' keys) */
        index %= keys->pool_count;
    return keys->pool + index * KEY_BYTES;
}

void keys_free(bench_keys *keys)
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

int keys_alloc(bench_run *run)
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
    const char *what;          /* "apbf, window 1,000,000, error 0.01" */
    char        what_text[96];
    /* the measurement in progress (measure_in_turns) */
    cli_chunk_times chunks;    /* ns/op of each chunk */
    uint64_t    elapsed;       /* timed ns */
    uint64_t    timed_ops;     /* operations timed (warm-up chunks are not) */
    uint64_t    positives;     /* yes answers, all chunks */
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
static int filter_open(bench_run *run, bench_filter *bf,
                       const bench_design *d, uint64_t window, double error)
{
    memset(bf, 0, sizeof *bf);
    char count[32];
    snprintf(bf->what_text, sizeof bf->what_text, "%s, window %s, error %g", d->name,
             cli_format_count(count, sizeof count, window), error);
    bf->what = bf->what_text;
    run->what = bf->what;
    progress(run, "%s: opening", bf->what);
    tdbf_config_init(&bf->cfg);
    bf->cfg.design = d->design;
    bf->cfg.error = error;
    bf->cfg.window_items = window;
    bf->cfg.seed = run->args->seed;
    if (d->design == TDBF_APBF_LINE || d->design == TDBF_TLBF_LINE || d->design == TDBF_SQF)
        bf->cfg.unit_bits = d->block_bits;    /* the line designs' unit */
    else
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
    uint64_t ops;         /* operations done, timed or warming (n, or fewer) */
    uint64_t positives;   /* yes answers */
} bench_timing;

/* One filter's chunk: `op` on keys[0 .. chunk-1], the filter's cursor
 * advanced for inserts, timed unless `warm_up`.  A Bloom filter due to be
 * reopened is reopened between the pieces of the chunk, with the clock
 * stopped. */
static int run_chunk(const bench_run *run, bench_filter *bf, int op, int variant,
                     const void *const *keys, size_t chunk, bool warm_up)
{
    uint64_t took = 0;
    for (size_t done = 0; done < chunk;) {
        size_t piece = chunk - done;
        if (op == OP_INSERT && bf->rewarm_after != 0) {
            if (bf->since_warm >= bf->rewarm_after) {
                int rc = filter_rewarm(run, bf);
                if (rc != TDBF_OK)
                    return rc;
            }
            if (piece > bf->rewarm_after - bf->since_warm)
                piece = (size_t)(bf->rewarm_after - bf->since_warm);
        }
        uint64_t start = cli_now_ns();
        int rc = run_ops(bf, op, variant, keys + done, piece, &run->keys,
                         run->args->batch, &bf->positives);
        took += cli_now_ns() - start;
        if (rc != TDBF_OK)
            return rc;
        done += piece;
        if (op == OP_INSERT) {
            bf->cursor += piece;
            bf->since_warm += piece;
        }
    }
    if (warm_up)
        return TDBF_OK;
    bf->elapsed += took;
    bf->timed_ops += chunk;
    return cli_chunk_times_add(&bf->chunks, took, chunk) == 0 ? TDBF_OK : TDBF_ENOMEM;
}

/* Time `op` over run->keys.ptrs[0 .. n-1] on every open filter of the
 * window, in turns: each filter in its turn runs the next TURN_CHUNKS
 * chunks of the same keys, so the machine's slow and fast moments (a
 * shared VM's come and go over seconds) fall on all of them alike and the
 * ratios between them hold.  The first chunk of a turn is not timed: it
 * brings the filter's lines back into the caches the other filters'
 * turns took them from, as a filter running alone would have them.
 * Rounds stop at n keys, or once the slowest filter has had the budget of
 * timed work. */
static int measure_in_turns(bench_run *run, bench_filter *bfs, size_t count, int op,
                            int variant, size_t n, bench_timing *out)
{
    const void *const *keys = run->keys.ptrs;
    size_t chunk_max = CHUNK_BATCHES * run->args->batch;
    for (size_t i = 0; i < count; i++) {
        cli_chunk_times_reset(&bfs[i].chunks);
        bfs[i].elapsed = 0;
        bfs[i].timed_ops = 0;
        bfs[i].positives = 0;
    }
    size_t done = 0;
    uint64_t slowest = 0;
    while (done < n && (done == 0 || slowest < run->budget_ns)) {
        size_t turn = n - done < TURN_CHUNKS * chunk_max ? n - done : TURN_CHUNKS * chunk_max;
        progress(run, "window %llu, error %g: %s %s, %zu%%",
                 (unsigned long long)bfs[0].window, bfs[0].cfg.error,
                 bench_variant_names[variant], op == OP_INSERT ? "inserts" : "queries",
                 (size_t)((double)done * 100.0 / (double)n));
        for (size_t i = 0; i < count; i++) {
            if (bfs[i].f == NULL && bfs[i].inline_f == NULL)
                continue;
            for (size_t at = 0; at < turn;) {
                size_t chunk = turn - at < chunk_max ? turn - at : chunk_max;
                /* a turn of one chunk is timed: the last, short turn */
                bool warm_up = at == 0 && chunk < turn;
                int rc = run_chunk(run, &bfs[i], op, variant, keys + done + at, chunk, warm_up);
                if (rc != TDBF_OK)
                    return cli_lib_error("bench", bfs[i].what, rc);
                at += chunk;
            }
            if (bfs[i].elapsed > slowest)
                slowest = bfs[i].elapsed;
        }
        done += turn;
    }
    for (size_t i = 0; i < count; i++) {
        out[i].ns = cli_chunk_times_median(&bfs[i].chunks);
        out[i].mean_ns = bfs[i].timed_ops ? (double)bfs[i].elapsed / (double)bfs[i].timed_ops
                                          : NAN;
        out[i].ops = done;
        out[i].positives = bfs[i].positives;
    }
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
void timer_overhead(bench_run *run)
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

/* One single call of `op` on key, timed alone into *ns. */
static int time_call(const bench_run *run, const bench_filter *bf, int op, const void *key,
                     uint32_t *ns)
{
    uint64_t start = cli_now_ns();
    int rc = single_call(bf, op, key);
    uint64_t took = cli_now_ns() - start;
    if (rc < 0)
        return cli_lib_error("bench", run->what, rc);
    *ns = saturate_ns(took);
    return CLI_EXIT_OK;
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
        int status = time_call(run, bf, op, key, &lat[i]);
        if (status != CLI_EXIT_OK)
            return status;
    }
    latency_summary(lat, n, out);
    return CLI_EXIT_OK;
}

/* The adds that end a generation of a count design, timed one by one:
 * the only adds that may do more than one unit's work (apbf-line's shift;
 * the sweep or the units' turns leave it nothing to do, by design), so a
 * pause of the filter's would show in them, whatever the machine adds to
 * any single call.  SHIFT_SAMPLES times: the generation filled with batch
 * adds (wrapping around the pool), then its last add timed alone.  Run
 * after the queries, whose present keys these adds would age out. */
static int shift_pass(bench_run *run, bench_filter *bf, uint32_t out[LAT_COUNT])
{
    uint32_t *lat = run->keys.latency;         /* TIMER_PAIRS >= SHIFT_SAMPLES */
    for (size_t i = 0; i < SHIFT_SAMPLES; i++) {
        tdbf_stats st;
        int rc = tdbf_get_stats(bf->f, &st);
        if (rc != TDBF_OK)
            return cli_lib_error("bench", run->what, rc);
        progress(run, "%s: the add that ends generation %zu of %d", run->what, i + 1,
                 SHIFT_SAMPLES);
        uint64_t left = st.generation_size - st.generation_fill;
        if (left > 0 && (rc = filter_warm(run, bf, bf->cursor, left)) != TDBF_OK)
            return cli_lib_error("bench", run->what, rc);
        bf->cursor += left;
        int status = time_call(run, bf, OP_INSERT, pool_key(&run->keys, bf->cursor++), &lat[i]);
        if (status != CLI_EXIT_OK)
            return status;
    }
    latency_summary(lat, SHIFT_SAMPLES, out);
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

/* The window's filters, one per selected design in table order, opened
 * and warmed one after another (untimed); a design this build refuses
 * stays closed and its cell says so (n/a).  Returns a CLI_EXIT_* code. */
static int open_filters(bench_run *run, size_t w, size_t e, bench_filter *bfs,
                        size_t *designs, size_t *count)
{
    uint64_t window = run->args->windows[w];
    *count = 0;
    for (size_t d = 0; d < D_COUNT; d++) {
        if (!run->args->selected[d])
            continue;
        bench_cell *cell = cell_at(run, w, e, d);
        bench_filter *bf = &bfs[*count];
        memset(cell, 0, sizeof *cell);
        designs[(*count)++] = d;
        run->step++;
        int rc = filter_open(run, bf, &bench_designs[d], window, run->args->errors[e]);
        if (bf->f == NULL && bf->inline_f == NULL) {
            cell->status = rc;    /* this build refuses it: n/a */
            continue;
        }
        if (rc != TDBF_OK)
            return cli_lib_error("bench", bf->what, rc);
        if (bf->inline_f != NULL)
            inline_stats(bf, &cell->stats);
        else
            tdbf_get_stats(bf->f, &cell->stats);
        cell->latency_calls = latency_calls_for(run->args, window);
    }
    return CLI_EXIT_OK;
}

static bool is_open(const bench_filter *bf)
{
    return bf->f != NULL || bf->inline_f != NULL;
}

/* Time `op` on the window's filters: in turns (measure_in_turns) when
 * every one of them takes TURNS_MIN_BYTES or more, so lives in memory;
 * one after another otherwise.  Turns keep the machine's drift out of the
 * ratios, but a filter that fits in the caches would pay, in every turn,
 * for the lines the other filters' turns evicted (measured at 10^6 keys:
 * apbf-line's insert 17 ns alone, 35 ns in turns with the inline Bloom
 * filter), so smaller filters are timed alone, each with the caches to
 * itself, as a program would run it.  The bound is a constant, not the
 * cache size the processor reports: this VM reports 508 MiB of L3, while
 * its dependent reads over 256 MiB take ~300 ns, DRAM's latency.  8 MiB
 * is 8x the L2: at 10^7 keys (12 to 45 MB) timed one after another, the
 * planner's apbf-line and apbf-line-128, the same filter, once gave batch
 * queries of 47 and 16 ns in one run, the drift between their moments. */
static int measure_all(bench_run *run, bench_filter *bfs, size_t count, int op, int variant,
                       size_t n, bool in_turns, bench_timing *out)
{
    if (in_turns)
        return measure_in_turns(run, bfs, count, op, variant, n, out);
    for (size_t i = 0; i < count; i++) {
        int status = measure_in_turns(run, &bfs[i], 1, op, variant, n, &out[i]);
        if (status != CLI_EXIT_OK)
            return status;
    }
    return CLI_EXIT_OK;
}

/* A measurement's figures, into a cell's arrays of one operation. */
static void keep_timing(const bench_timing *t, int v, double *ns, double *mean_ns,
                        uint64_t *ops)
{
    ns[v] = t->ns;
    mean_ns[v] = t->mean_ns;
    ops[v] = t->ops;
}

/* The measurements of one operation, single then batch, each filter's
 * single-call latencies after the single calls (one filter at a time: a
 * latency is not a ratio).  Inserts take fresh keys for each variant;
 * queries are the same for both, and for every filter (Bloom filters are
 * first warmed again to hold exactly the last W keys). */
static int measure_op(bench_run *run, bench_filter *bfs, bench_cell **cells, size_t count,
                      size_t first, size_t n, bool in_turns, int op)
{
    bench_timing timing[D_COUNT];
    for (size_t i = 0; i < count && op == OP_QUERY; i++) {
        int rc;
        if (is_open(&bfs[i]) && bfs[i].since_warm > 0 &&
            (rc = filter_rewarm(run, &bfs[i])) != TDBF_OK)
            return cli_lib_error("bench", bfs[i].what, rc);
    }
    if (op == OP_QUERY)
        prepare_queries(run, &bfs[first], n);
    for (int v = 0; v < VARIANTS; v++) {
        if (op == OP_INSERT)
            prepare_inserts(run, &bfs[first], n);   /* every cursor is the same */
        int status = measure_all(run, bfs, count, op, v, n, in_turns, timing);
        for (size_t i = 0; i < count && status == CLI_EXIT_OK; i++) {
            bench_cell *cell = cells[i];
            if (!is_open(&bfs[i]))
                continue;
            if (op == OP_INSERT)
                keep_timing(&timing[i], v, cell->insert_ns, cell->insert_mean_ns,
                            cell->insert_ops);
            else
                keep_timing(&timing[i], v, cell->query_ns, cell->query_mean_ns,
                            cell->query_ops);
            if (v != SINGLE)
                continue;
            if (op == OP_QUERY)
                query_rates(&run->keys, timing[i].ops, timing[i].positives, cell);
            run->what = bfs[i].what;
            status = latency_pass(run, &bfs[i], op, cell->latency_calls,
                                  op == OP_INSERT ? cell->insert_latency : cell->query_latency);
        }
        if (status != CLI_EXIT_OK)
            return status;
    }
    return CLI_EXIT_OK;
}

int bench_window_run(bench_run *run, size_t w, size_t e)
{
    bench_filter bfs[D_COUNT];
    bench_cell *cells[D_COUNT];
    size_t designs[D_COUNT], count = 0, first = D_COUNT;
    memset(bfs, 0, sizeof bfs);
    int status = open_filters(run, w, e, bfs, designs, &count);
    for (size_t i = 0; i < count; i++) {
        cells[i] = cell_at(run, w, e, designs[i]);
        if (first == D_COUNT && is_open(&bfs[i]))
            first = i;
    }
    uint64_t smallest = UINT64_MAX;
    for (size_t i = 0; i < count; i++)
        if (is_open(&bfs[i]) && cells[i]->stats.memory_bytes < smallest)
            smallest = cells[i]->stats.memory_bytes;
    bool in_turns = smallest != UINT64_MAX && smallest >= TURNS_MIN_BYTES;
    run->turns[w][e] = in_turns;
    size_t n = ops_for(run->args, run->args->windows[w]);
    if (status == CLI_EXIT_OK && first < D_COUNT)
        status = measure_op(run, bfs, cells, count, first, n, in_turns, OP_INSERT);
    if (status == CLI_EXIT_OK && first < D_COUNT)
        status = measure_op(run, bfs, cells, count, first, n, in_turns, OP_QUERY);
    for (size_t i = 0; i < count && status == CLI_EXIT_OK; i++) {
        if (bfs[i].f != NULL && bench_designs[designs[i]].design == TDBF_APBF_LINE) {
            run->what = bfs[i].what;
            status = shift_pass(run, &bfs[i], cells[i]->shift_latency);
            cells[i]->shift_calls = status == CLI_EXIT_OK ? SHIFT_SAMPLES : 0;
        }
    }
    for (size_t i = 0; i < count; i++) {
        bool opened = is_open(&bfs[i]);
        tdbf_close(bfs[i].f);
        inline_bloom_free(bfs[i].inline_f);
        cli_chunk_times_free(&bfs[i].chunks);
        if (status == CLI_EXIT_OK && opened && bench_designs[designs[i]].design == TDBF_APBBF)
            apbbf_model(run, &bench_designs[designs[i]], run->args->windows[w],
                        run->args->errors[e], cells[i]);
    }
    run->what = NULL;
    return status;
}
