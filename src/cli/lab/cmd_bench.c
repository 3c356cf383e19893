/*
 * cmd_bench.c — `tdbf-lab bench`: nanoseconds per insert and per query of the
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
 *     apbf-line  line-local APBF, the planner's unit     TDBF_APBF_LINE
 *     apbf-line-64  the same, 64-byte units              TDBF_APBF_LINE, U = 512
 *     apbf-line-128 the same, 128-byte units             TDBF_APBF_LINE, U = 1024
 *     sqf        sliding quotient filter, the planner's  TDBF_SQF
 *                shape (one or two cache lines a key)
 *     sqf-64     the same, 64-byte bins                  TDBF_SQF, U = 512
 *     sqf-128    the same, 128-byte bins                 TDBF_SQF, U = 1024
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
 * How the filters are measured.  Keys are 16 random bytes from a fixed
 * seed, generated before anything is timed into one array; the keys of a
 * measurement are laid out in order, so reading them streams from memory
 * and only the filter's own accesses are random.  For each window and
 * error, every selected filter is opened and warmed with the same W
 * inserts (untimed, batched) so that it starts at steady state, and all of
 * them stay open; then, in this order:
 *
 *     insert, single   N fresh keys
 *     insert latency   L fresh keys, each call timed alone (below)
 *     insert, batch    N fresh keys
 *     query,  single   N queries
 *     query latency    the first L of them, each call timed alone
 *     query,  batch    the same N
 *
 * with N = max(10^6, W), capped at 2^23 keys (memory) and stopped once the
 * slowest filter has had --seconds (0.5 s) of timed work.  Where every
 * filter of the window takes 8 MiB or more (10^7 keys and up), the four timed
 * measurements run the filters in turns: 8 chunks of the keys on each
 * filter (the first untimed: it brings back the lines the others
 * evicted), then the next 8 on each, and so on.  A shared VM's speed
 * moves by 2x within minutes (other tenants' memory traffic); measured one
 * after another, two filters' ratio would carry that drift, measured in
 * turns every filter sees the same moments.  Smaller filters are timed
 * one after another, each with the caches to itself: in turns, each would
 * pay for what the others evicted.  Every filter gets the same keys and
 * the same queries.  Queries are half
 * keys inserted within the last W inserts (present: a yes is required, a
 * no would be a false negative) and half keys never inserted, in random
 * order; the false-positive rate measured on those is printed as a check
 * that the filters really are at equal error.  The window's filters are
 * freed before the next window's are opened.
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
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
                                        "apbf-line-64,apbf-line-128,sqf,sqf-64,sqf-128"},
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

    printf("tdbf-lab bench: libtdbf %s\n", tdbf_version_string());
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
    printf("ns/op: median over chunks of %zu ops (filters of " TURNS_MIN_TEXT " and more timed in "
           "turns, below);\nratios at the same window and error: insert/bloom, "
           "query/bloom = ns/op over the\nlibrary's classic Bloom filter's "
           "single-key ns/op; ins/inline, qry/inline = ns/op\nover the inline Bloom "
           "filter's (bench_inline.c) in the same variant\n",
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
            while (d < D_COUNT && strcmp(bench_designs[d].name, item) != 0)
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
        for (size_t e = 0; e < args->n_errors; e++) {
            status = bench_window_run(run, w, e);
            for (size_t d = 0; d < D_COUNT && status == CLI_EXIT_OK; d++)
                if (args->selected[d])
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
        fputs(bench_csv_header, run.csv);
    }

    status = run_all(&run);
    if (args.simd != TDBF_SIMD_AUTO)
        (void)tdbf_set_simd(TDBF_SIMD_AUTO);   /* back to the process default */

    keys_free(&run.keys);
    free(run.cells);
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
        "and apbf-line (the planner's unit, 64- and 128-byte units), all at\n"
        "once; warms each with the same window of inserts, then times N inserts\n"
        "of fresh 16-byte keys and N queries (half present, half never\n"
        "inserted), through the single-key and the batch calls.  Filters of\n"
        "8 MiB and more are timed in turns (8 chunks of keys on each, then\n"
        "the next 8), so that the machine's drift falls on all of them alike;\n"
        "smaller ones one at a time, each with the caches to itself.  ns/op\n"
        "(median over chunks) is printed with its ratio to the library's\n"
        "classic Bloom filter's single-key calls, and to the inline one's calls\n"
        "of the same kind (single or batch).\n"
        "\n"
        "A second table per window, \"latency of single calls\", times each of\n"
        "min(N, 2^20) single inserts and as many queries alone and gives p50,\n"
        "p99, p99.9 and max in ns: a design that pauses now and then shows\n"
        "there even when its median is fine.  The header says what the timer\n"
        "itself costs; it is included in every latency, not subtracted.\n"
        "Last, apbf-line's generation is filled 16 times and the add that ends\n"
        "it (the shift, the only add with more than one unit's work) is timed\n"
        "alone each time: --targets reports their p50 and max.\n"
        "\n"
        "For the APBBFs it also times random cache-line reads over a buffer of\n"
        "the filter's size (dependent, and 16 in flight) and sets the batch\n"
        "calls against blocks touched x that cost.  --simd picks the vector\n"
        "path of the filters (exit 2 if this CPU or build lacks it); the header\n"
        "names the one in use.  --targets ends the output with the product\n"
        "goals, each \"met\" or \"not met\" from this run.\n"
        "\n"
        "The 10^8 window (--large) needs ~2 GB of keys and ~2 GB of filters\n"
        "(all open at once), and each of its filters is warmed with 10^8\n"
        "inserts: expect half an hour; --designs and --errors narrow it.\n"
        "--csv rows are written as each window and error finishes.\n",
    .options = bench_options,
    .run = run_bench,
};
