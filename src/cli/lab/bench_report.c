/*
 * bench_report.c — what `tdbf-lab bench` prints: the table of each window
 * (ns/op and the ratios to the two Bloom baselines), the latency table,
 * the CSV rows, and the product goals judged from the run (--targets).
 */
#include "bench.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

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
        cli_table_cell(t, "%s", bench_variant_names[v]);
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
                cli_table_cell(&t, "%s", bench_designs[d].name);
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
int print_window(const bench_run *run, size_t w)
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
                measurement_rows(&t, &bench_designs[d], args->windows[w], args->errors[e],
                                 cell_at(run, w, e, d), classic_of(run, w, e),
                                 inline_of(run, w, e));
    printf("\nWindow %s:\n", cli_format_count(count, sizeof count, args->windows[w]));
    for (size_t e = 0; e < args->n_errors; e++)
        printf("  error %g: %s\n", args->errors[e],
               run->turns[w][e] ? "every filter takes " TURNS_MIN_TEXT " or more: timed in turns, "
                                  "8 chunks each, the first untimed"
                                : "filters timed one at a time, each with the caches to itself");
    printf("\n");
    int status = lab_print_table(&t, "bench", 1);
    if (status != CLI_EXIT_OK)
        return status;

    for (size_t e = 0; e < args->n_errors; e++)
        for (size_t d = 0; d < D_COUNT; d++) {
            const bench_cell *cell = cell_at(run, w, e, d);
            if (!args->selected[d])
                continue;
            if (cell->status != TDBF_OK)
                printf("  n/a: %s at error %g: tdbf_open: %s\n", bench_designs[d].name,
                       args->errors[e], tdbf_strerror(cell->status));
            else if (cell->false_negatives > 0)
                printf("  WARNING: %s at error %g: %llu present keys answered "
                       "absent (false negatives)\n", bench_designs[d].name,
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
                model_row(&t, &bench_designs[d], args->errors[e], cell_at(run, w, e, d));
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
        fprintf(out, "%s,%s,%llu,%g,", d->name, bench_variant_names[v],
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

const char bench_csv_header[] =
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
int write_csv_cell(const bench_run *run, size_t w, size_t e, size_t d)
{
    const bench_args *args = run->args;
    if (run->csv == NULL)
        return CLI_EXIT_OK;
    csv_rows(run->csv, &bench_designs[d], args->windows[w], args->errors[e],
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
    size_t   first, last;   /* bench_designs[first .. last] */
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
        printf("%-6s  insert %5.2fx  query %5.2fx   ", bench_variant_names[v], ins, qry);
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

/* The slowest single add of the latency pass against the limit, ns, and
 * the adds that end a generation (shift_pass): the only ones that may do
 * more than one unit's work, so met when all of them stay under the limit
 * even if some other add did not (the machine's pause, not the filter's:
 * an empty timer pair shows the same). */
static size_t pause_lines(const bench_run *run, const bench_goal *g, size_t w,
                          size_t e, size_t d, const bench_cell *cell)
{
    char max[32], calls[32], p50[32], smax[32];
    uint32_t worst = cell->insert_latency[LAT_MAX];
    (void)d;
    if (cell->latency_calls == 0)
        return 0;
    bool shifts = cell->shift_calls > 0;
    bool met = (double)worst < g->limit ||
               (shifts && (double)cell->shift_latency[LAT_MAX] < g->limit);
    goal_where(run, w, e);
    printf("max %9s ns over %s adds   %s",
           cli_format_count(max, sizeof max, worst),
           cli_format_count(calls, sizeof calls, cell->latency_calls), verdict(met));
    if (shifts)
        printf("\n%38sthe %llu adds that end a generation: p50 %s ns, max %s ns (p50 of "
               "all adds %u ns)", "", (unsigned long long)cell->shift_calls,
               cli_format_count(p50, sizeof p50, cell->shift_latency[LAT_P50]),
               cli_format_count(smax, sizeof smax, cell->shift_latency[LAT_MAX]),
               cell->insert_latency[LAT_P50]);
    /* A pause the clock alone shows is the machine's, not the filter's:
     * say so rather than let it pass for the filter's. */
    if ((double)worst >= g->limit && (double)run->timer[LAT_MAX] >= g->limit)
        printf("\n%38s(an empty timer pair took up to %s ns in this run)", "",
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
           "%.2fx)\n", bench_designs[d].name, ins, qry,
           verdict(ins <= g->limit && qry <= g->limit), ins_k);
    return 1;
}

void print_targets(const bench_run *run)
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
           "calls timed one by one; met\n  also when every add that ends a "
           "generation, the only ones with more than a unit's work,\n  stays under "
           "it):\n", ADD_MAX_NS / 1000.0);
    goal_each(run, &line_pause, pause_lines, "apbf-line");
    printf("\n  Batched APBBF within 2x of its memory cost: blocks touched x one "
           "random line read (16 in\n  flight; blocks per insert = k + test-query "
           "reads - 1, per query the planner's average):\n");
    goal_each(run, &apbbf, memory_cost_lines, "apbbf-512 or apbbf-64");
}
