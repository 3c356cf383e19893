/*
 * cmd_plan.c — `tdbf plan`: size an Age-Partitioned Bloom filter.
 *
 * Two modes, both printing the same table (or one JSON object):
 *   planner   --error E --window N   tdbf_plan_apbf() picks the (k, l, m)
 *             whose exact-fill FP meets E with the least memory, plus
 *             alternatives with other k (paper 004, section 5, Table 2);
 *   explicit  --k K --l L --window N  tdbf_plan_eval() evaluates one pair.
 * With --design fpdecay or stable it sizes one of the designs that forget
 * at random instead (tdbf_plan_decay) and prints its memory, its FP and
 * its false-negative rate at the window's edge; with --design clock or
 * rotating it sizes one of those (tdbf_plan_design): memory and worst-case
 * FP, no false negatives; with --design tlbf-line the ring tdbf_open
 * starts with for a time window (tdbf_plan_apbf_line at the capacity).
 */
#define _POSIX_C_SOURCE 200809L /* isatty */
#include "cli.h"

#include <string.h>
#include <unistd.h>

#include <tdbf.h>

#define PLAN_DEFAULT_ALTS 8
#define PLAN_MAX_ALTS     TDBF_MAX_K

enum {
    OPT_ERROR,
    OPT_WINDOW,
    OPT_K,
    OPT_L,
    OPT_ALTS,
    OPT_JSON,
    OPT_DESIGN,
    OPT_SURVIVAL,
    OPT_TIME,
    OPT_CAPACITY,
    OPT_BLOCK_BITS
};

static const cli_option plan_options[] = {
    [OPT_ERROR]  = {"error", "E", "target false-positive rate, 0 < E < 1 (0.001, 1e-3, 0.1%)"},
    [OPT_WINDOW] = {"window", "N", "window in insertions that must never be forgotten (1M = 10^6); tlbf-line: a duration (60s), as --time"},
    [OPT_K]      = {"k", "K", "evaluate this k (slices per insertion) instead of planning; needs --l"},
    [OPT_L]      = {"l", "L", "evaluate this l (window = l generations); needs --k"},
    [OPT_ALTS]   = {"alts", "K", "show up to K alternatives with other k (default 8, 0 = none)"},
    [OPT_JSON]   = {"json", NULL, "print the chosen plan as one JSON object on one line"},
    [OPT_DESIGN] = {"design", "NAME", "apbf (default); apbbf (blocked APBF); apbf-line (line-local APBF, what tdbf_open builds by default); tlbf (time window, as tdbf dedup --window); tlbf-line (its line-local twin); clock, rotating; or fpdecay / stable: designs that forget at random"},
    [OPT_SURVIVAL] = {"survival", "S", "fpdecay, stable: least P(yes) for a key N insertions old (default 1 - E)"},
    [OPT_TIME]   = {"time", "DURATION", "clock, rotating, tlbf, tlbf-line: time window instead of --window (60s, 5m)"},
    [OPT_CAPACITY] = {"capacity", "C", "clock, rotating, tlbf, tlbf-line with a time window: expected keys per window (default 1024)"},
    [OPT_BLOCK_BITS] = {"block-bits", "B", "apbbf: block size in bits, 512 (a cache line, default) or 64 (a word); apbf-line, tlbf-line: unit size, 1024 (two lines, default) or 512"},
    {NULL, NULL, NULL}
};

typedef struct plan_request {
    uint64_t window;
    double   error;       /* target, or 0 when not given */
    unsigned k, l;        /* explicit pair, or 0 */
    uint64_t alts;
    int      json;
    tdbf_design design;   /* APBF, CLOCK, ROTATING, FPDECAY or STABLE */
    double   survival;    /* FPDECAY, STABLE: 0 = 1 - error */
    uint64_t window_ns;   /* CLOCK, ROTATING: time window, or 0 */
    uint64_t capacity;    /* CLOCK, ROTATING, time window: 0 = default */
    unsigned block_bits;  /* APBBF: 64 or 512 (0 = 512) */
    const char *window_text; /* --window as given: a count, or (tlbf-line) a duration */
} plan_request;

static uint64_t plan_bytes(const tdbf_plan *plan)
{
    return (plan->bits + 7) / 8;
}

static int same_plan(const tdbf_plan *a, const tdbf_plan *b)
{
    return a->k == b->k && a->l == b->l && a->m == b->m;
}

/* ---- JSON ------------------------------------------------------------ */

/* "built": the shape tdbf_open gives a filter of this request, as
 * tdbf_get_shape and `tdbf info` report it (k, l, window).  Every design's
 * JSON has it, so scripts (and the tests) can compare. */
static void json_built(cli_json *j, unsigned k, unsigned l, uint64_t window_items,
                       uint64_t window_ns)
{
    cli_json_object_begin(j, "built");
    cli_json_u64(j, "k", k);
    cli_json_u64(j, "l", l);
    cli_json_u64(j, "window_items", window_items);
    cli_json_u64(j, "window_ns", window_ns);
    cli_json_object_end(j);
}

static void json_plan_fields(cli_json *j, const tdbf_plan *plan)
{
    cli_json_u64(j, "k", plan->k);
    cli_json_u64(j, "l", plan->l);
    cli_json_u64(j, "m", plan->m);
    cli_json_u64(j, "g", plan->g);
    cli_json_u64(j, "window", plan->window);
    cli_json_u64(j, "slack", plan->slack);
    cli_json_u64(j, "bits", plan->bits);
    cli_json_u64(j, "bytes", plan_bytes(plan));
    cli_json_double(j, "bits_per_item", plan->bits_per_item);
    cli_json_double(j, "fp", plan->fp);
    cli_json_double(j, "fp_paper", plan->fp_paper);
    cli_json_double(j, "eff", plan->eff);
    cli_json_double(j, "npws", plan->npws);
    cli_json_double(j, "accesses_false", plan->accesses_false);
}

static void print_json(const plan_request *req, const tdbf_plan *best,
                       const tdbf_plan *built, const tdbf_plan *alts, size_t n_alts)
{
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "design", "apbf");
    json_plan_fields(&j, best);
    /* what tdbf_open (and tdbf dedup --design apbf) builds */
    json_built(&j, built->k, built->l, built->window, 0);
    cli_json_object_begin(&j, "built_plan");
    json_plan_fields(&j, built);
    cli_json_object_end(&j);
    cli_json_bool(&j, "built_is_least_memory", same_plan(best, built));
    cli_json_u64(&j, "requested_window", req->window);
    if (req->error > 0.0) {
        cli_json_double(&j, "target_error", req->error);
        cli_json_bool(&j, "meets_target", best->fp <= req->error);
    } else {
        cli_json_string(&j, "target_error", NULL);
    }
    cli_json_array_begin(&j, "alternatives");
    for (size_t i = 0; i < n_alts; i++) {
        cli_json_object_begin(&j, NULL);
        json_plan_fields(&j, &alts[i]);
        cli_json_object_end(&j);
    }
    cli_json_array_end(&j);
    cli_json_object_end(&j);
    fputc('\n', stdout);
}

/* ---- table ----------------------------------------------------------- */

static void table_row(cli_table *t, const tdbf_plan *plan, const char *label)
{
    char buf[32];
    cli_table_cell(t, "%s", label);
    cli_table_cell(t, "%u", plan->k);
    cli_table_cell(t, "%u", plan->l);
    cli_table_cell(t, "%s", cli_format_count(buf, sizeof buf, plan->m));
    cli_table_cell(t, "%s", cli_format_count(buf, sizeof buf, plan->g));
    cli_table_cell(t, "%s", cli_format_count(buf, sizeof buf, plan->window));
    cli_table_cell(t, "%s", cli_format_count(buf, sizeof buf, plan->slack));
    cli_table_cell(t, "%s", cli_format_bytes(buf, sizeof buf, plan_bytes(plan)));
    cli_table_cell(t, "%.2f", plan->bits_per_item);
    cli_table_cell(t, "%.4g", plan->fp);
    cli_table_cell(t, "%.4g", plan->fp_paper);
    cli_table_cell(t, "%.2f", plan->eff);
    cli_table_cell(t, "%.2f", plan->accesses_false);
    cli_table_cell(t, "%.3f", plan->npws);
}

static int print_table(const plan_request *req, const tdbf_plan *best,
                       const tdbf_plan *built, const tdbf_plan *alts, size_t n_alts)
{
    char window[32];
    cli_format_count(window, sizeof window, req->window);
    if (req->k == 0)
        printf("APBF plan for a window of %s insertions, target error %g "
               "(least memory with fp <= target):\n\n", window, req->error);
    else if (req->error > 0.0)
        printf("APBF with k=%u, l=%u for a window of %s insertions, target "
               "error %g:\n\n", req->k, req->l, window, req->error);
    else
        printf("APBF with k=%u, l=%u for a window of %s insertions:\n\n",
               req->k, req->l, window);

    cli_table t;
    cli_table_init(&t, 14, "lrrrrrrrrrrrrr");
    static const char *const headers[] = {
        "plan", "k", "l", "m", "g", "window", "slack", "memory", "bits/item",
        "fp", "fp_paper", "eff", "acc_false", "npws"
    };
    for (size_t c = 0; c < sizeof headers / sizeof headers[0]; c++)
        cli_table_cell(&t, "%s", headers[c]);
    int both = same_plan(best, built);
    if (req->k != 0)
        table_row(&t, best, "given (built)");
    else
        table_row(&t, best, both ? "least memory, built" : "least memory");
    if (req->k == 0 && !both)
        table_row(&t, built, "built");
    for (size_t i = 0; i < n_alts; i++)
        table_row(&t, &alts[i], "");
    int rc = cli_table_print(&t, stdout, "", 1);
    cli_table_free(&t);
    if (rc != 0)
        return cli_error("plan", "out of memory");

    printf("\n%s"
           "m = bits per slice, g = insertions per generation, window = l*g "
           "(guaranteed), slack = k*g,\n"
           "memory = (k+l)*m bits, bits/item = memory / requested window.\n"
           "fp = analytic worst case just before a shift, with the real fill "
           "of each slice;\n"
           "fp_paper = paper Table 2's linear-fill model; eff = space "
           "efficiency vs a Bloom filter (paper 5.5);\n"
           "acc_false = expected slice reads of a negative query; npws = peak "
           "normalized probability-weighted slack.\n",
           req->k == 0 ? "least memory = tdbf_plan_apbf's choice; built = what tdbf_open and "
                         "tdbf dedup --design apbf\nbuild (the fewest slice reads within "
                         "5 % of the least memory, cfg.plan_tolerance);\nthe others trade "
                         "memory for fewer reads (small k) or less slack (large l).\n"
                       : "built = what tdbf_open builds with cfg.k and cfg.l set.\n");
    if (req->k != 0 && req->error > 0.0 && best->fp > req->error)
        printf("\nNote: fp %.4g exceeds the target %g; run without --k/--l "
               "to let the planner choose.\n", best->fp, req->error);
    return CLI_EXIT_OK;
}

/* ---- designs that forget at random ----------------------------------- */

/* The configuration a request describes (fields a design does not use
 * are ignored by its planner). */
static void request_config(const plan_request *req, tdbf_config *cfg)
{
    tdbf_config_init(cfg);
    cfg->design = req->design;
    cfg->error = req->error;
    cfg->window_items = req->window;
    cfg->window_ns = req->window_ns;
    cfg->capacity = req->capacity;
    cfg->survival = req->survival;
    cfg->max_memory = UINT64_MAX;     /* show the plan whatever its size */
}

static int run_decay_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    tdbf_decay_plan plan;
    char what[96], cells[32], memory[32], window[32];
    int fpdecay = req->design == TDBF_FPDECAY;

    request_config(req, &cfg);
    int rc = tdbf_plan_decay(&cfg, &plan);
    snprintf(what, sizeof what, "%s, window %llu, error %g",
             tdbf_design_name(req->design), (unsigned long long)req->window,
             req->error);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    /* forgetting halfway through the window, to show the curve's shape */
    double fn_half = fpdecay
        ? 1.0 - tdbf_fpdecay_survival(plan.cells, plan.k, plan.cell_bits, plan.window / 2)
        : tdbf_stable_forget(plan.cells, plan.k, plan.cell_bits, plan.decrements,
                             plan.window / 2);

    if (req->json) {
        cli_json j;
        cli_json_init(&j, stdout);
        cli_json_object_begin(&j, NULL);
        cli_json_string(&j, "design", tdbf_design_name(plan.design));
        json_built(&j, plan.k, 0, plan.window, 0);
        cli_json_u64(&j, "cells", plan.cells);
        cli_json_u64(&j, "k", plan.k);
        cli_json_u64(&j, "cell_bits", plan.cell_bits);
        cli_json_u64(&j, "decrements", plan.decrements);
        cli_json_u64(&j, "window", plan.window);
        cli_json_u64(&j, "bytes", plan.bytes);
        cli_json_double(&j, "bits_per_item", plan.bits_per_item);
        cli_json_double(&j, "fp", plan.fp);
        cli_json_double(&j, "fn_window", 1.0 - plan.survival);
        cli_json_double(&j, "fn_half_window", fn_half);
        cli_json_double(&j, "survival_target", plan.survival_target);
        cli_json_double(&j, "target_error", req->error);
        cli_json_object_end(&j);
        fputc('\n', stdout);
        return CLI_EXIT_OK;
    }
    cli_format_count(window, sizeof window, plan.window);
    cli_format_count(cells, sizeof cells, plan.cells);
    cli_format_bytes(memory, sizeof memory, plan.bytes);
    printf("%s plan for a window of %s insertions:\ntarget error %g, "
           "survival %g at the window's edge (least memory meeting both)\n\n",
           fpdecay ? "FPDECAY (fingerprint decay array, paper 003)"
                   : "STABLE (Stable Bloom filter, Deng & Rafiei 2006)",
           window, req->error, plan.survival_target);
    if (fpdecay)
        printf("  cells s           %s in %u segments\n"
               "  fingerprint b     %u bits\n"
               "  positions n       %u cells per key\n",
               cells, plan.k, plan.cell_bits, plan.k);
    else
        printf("  cells m           %s in %u segments\n"
               "  bits per cell d   %u (Max = %u)\n"
               "  positions K       %u cells per key\n"
               "  decrements P      %llu cells per insertion\n",
               cells, plan.k, plan.cell_bits, (1u << plan.cell_bits) - 1,
               plan.k, (unsigned long long)plan.decrements);
    printf("  memory            %s (%.2f bits/item)\n"
           "  fp                %.4g (%s)\n"
           "  fn at age N       %.4g\n"
           "  fn at age N/2     %.4g\n\n"
           "It forgets at random: a key added t insertions ago is missed with "
           "a probability\nthat grows with t (tdbf.h section 12); there is no "
           "hard window.\n",
           memory, plan.bits_per_item, plan.fp,
           fpdecay ? "every cell filled" : "at the stable point",
           1.0 - plan.survival, fn_half);
    return CLI_EXIT_OK;
}

/* ---- clock and rotating: hard windows, no false negatives ----------- */

static int run_design_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    tdbf_design_plan plan;
    char what[96], window[32], cells[32], memory[32];
    int clock = req->design == TDBF_CLOCK;

    request_config(req, &cfg);
    int rc = tdbf_plan_design(&cfg, &plan);
    if (req->window_ns)
        snprintf(window, sizeof window, "%s",
                 cli_format_duration_ns(what, sizeof what, req->window_ns));
    else
        cli_format_count(window, sizeof window, req->window);
    snprintf(what, sizeof what, "%s, window %s, error %g",
             tdbf_design_name(req->design), window, req->error);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);

    if (req->json) {
        cli_json j;
        cli_json_init(&j, stdout);
        cli_json_object_begin(&j, NULL);
        cli_json_string(&j, "design", tdbf_design_name(plan.design));
        json_built(&j, plan.k, 0, req->window_ns ? 0 : plan.capacity, req->window_ns);
        cli_json_u64(&j, "cells", plan.cells);
        cli_json_u64(&j, "k", plan.k);
        cli_json_u64(&j, "cell_bits", plan.cell_bits);
        cli_json_u64(&j, "filters", plan.filters);
        cli_json_u64(&j, "resolution", plan.resolution);
        cli_json_u64(&j, "window", req->window);
        cli_json_u64(&j, "window_ns", req->window_ns);
        cli_json_u64(&j, "capacity", plan.capacity);
        cli_json_u64(&j, "bits", plan.bits);
        cli_json_u64(&j, "bytes", plan.memory_bytes);
        cli_json_double(&j, "bits_per_item", plan.bits_per_item);
        cli_json_double(&j, "fp", plan.fp);
        cli_json_double(&j, "fn_window", 0.0);
        cli_json_double(&j, "target_error", req->error);
        cli_json_object_end(&j);
        fputc('\n', stdout);
        return CLI_EXIT_OK;
    }
    cli_format_bytes(memory, sizeof memory, plan.memory_bytes);
    cli_format_count(cells, sizeof cells, plan.cells);
    printf("%s plan for a window of %s%s:\ntarget error %g "
           "(worst case, least memory)\n\n",
           clock ? "CLOCK (continuous clock-cell filter, paper 000)"
                 : "ROTATING (ring of Bloom filters, paper 000)",
           window, req->window_ns ? "" : " insertions", req->error);
    if (req->window_ns) {
        char capacity[32];
        printf("  keys per window   %s (planned rate; above it FP rises)\n",
               cli_format_count(capacity, sizeof capacity, plan.capacity));
    }
    if (clock)
        printf("  cells m           %s of %u bits\n"
               "  resolution d      %u ticks per window\n"
               "  positions k       %u cells per key\n",
               cells, plan.cell_bits, plan.resolution, plan.k);
    else
        printf("  sub-filters       %u (N = %u per window, plus one)\n"
               "  bits per filter   %s\n"
               "  positions k       %u bits per key\n",
               plan.filters, plan.resolution, cells, plan.k);
    printf("  memory            %s (%.2f bits/item)\n"
           "  fp                %.4g (worst case)\n"
           "  fn in window      0 (keys expire after the window, never "
           "inside it)\n",
           memory, plan.bits_per_item, plan.fp);
    return CLI_EXIT_OK;
}

/* ---- blocked APBF ------------------------------------------------------ */

static void json_blocked_fields(cli_json *j, const tdbf_plan_blocked *p)
{
    cli_json_u64(j, "k", p->k);
    cli_json_u64(j, "l", p->l);
    cli_json_u64(j, "block_bits", p->block_bits);
    cli_json_u64(j, "block_hashes", p->block_hashes);
    cli_json_u64(j, "blocks", p->blocks);
    cli_json_u64(j, "g", p->g);
    cli_json_u64(j, "window", p->window);
    cli_json_u64(j, "bits", p->bits);
    cli_json_double(j, "bits_per_item", p->bits_per_item);
    cli_json_double(j, "fp", p->fp);
}

/* The top level is the built plan; "built_plan" repeats it and
 * "least_memory" gives tdbf_plan_apbbf's. */
static void print_blocked_json(const plan_request *req, const tdbf_plan_blocked *p,
                               const tdbf_plan_blocked *least)
{
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "design", "apbbf");
    json_built(&j, p->k, p->l, p->window, 0);
    cli_json_object_begin(&j, "built_plan");
    json_blocked_fields(&j, p);
    cli_json_object_end(&j);
    cli_json_object_begin(&j, "least_memory");
    json_blocked_fields(&j, least);
    cli_json_object_end(&j);
    json_blocked_fields(&j, p);
    cli_json_u64(&j, "slack", p->slack);
    cli_json_double(&j, "accesses_false", p->accesses_false);
    cli_json_double(&j, "accesses_window", p->accesses_window);
    cli_json_double(&j, "npws", p->npws);
    cli_json_double(&j, "target_error", req->error);
    cli_json_object_end(&j);
    fputc('\n', stdout);
}

static void print_blocked_row(const char *what, const tdbf_plan_blocked *p)
{
    char memory[32];
    cli_format_bytes(memory, sizeof memory, (p->bits + 7) / 8);
    printf("  %-13s %3u %3u %5u %3u %12llu %10s %9.2f %10.4g %7.2f %7.2f\n",
           what, p->k, p->l, p->block_bits, p->block_hashes,
           (unsigned long long)p->g, memory, p->bits_per_item, p->fp,
           p->accesses_false, p->accesses_window);
}

/* What tdbf_open builds (the fewest block reads within 5 % of the least
 * memory, tdbf_plan_apbbf_fast) next to the least-memory plan. */
static int run_blocked_plan(const cli_command *self, const plan_request *req)
{
    tdbf_plan_blocked chosen, least;
    char what[96];
    unsigned block_bits = req->block_bits ? req->block_bits : 512;
    snprintf(what, sizeof what, "apbbf B=%u, window %llu, error %g", block_bits,
             (unsigned long long)req->window, req->error);
    int progress = !req->json && isatty(STDERR_FILENO);
    if (progress)
        fprintf(stderr, "%s: planning (a second or two for small windows)...\r",
                self->name);
    int rc = tdbf_plan_apbbf_fast(req->window, req->error, block_bits,
                                  TDBF_DEFAULT_PLAN_TOLERANCE, &chosen);
    if (rc == TDBF_OK)
        rc = tdbf_plan_apbbf(req->window, req->error, block_bits, &least);
    if (progress)
        fprintf(stderr, "%*s\r", 60, "");
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    if (req->json) {
        print_blocked_json(req, &chosen, &least);
        return CLI_EXIT_OK;
    }
    printf("APBBF (blocked APBF, paper 004 section 6) for a window of %llu "
           "insertions,\ntarget error %g, blocks of %u bits\n\n",
           (unsigned long long)req->window, req->error, block_bits);
    printf("  %-13s %3s %3s %5s %3s %12s %10s %9s %10s %7s %7s\n", "plan", "k",
           "l", "B", "b", "g", "memory", "bits/item", "fp", "rd neg", "rd win");
    print_blocked_row("built", &chosen);
    print_blocked_row("least memory", &least);
    printf("\nbuilt: what tdbf_open, tdbf dedup and TDBF.RESERVE build, the fewest block "
           "reads per\nnegative query within 5 %% of the least memory.  fp: "
           "worst case, just before a\nshift.  rd neg / rd win: expected "
           "blocks read by a query for an absent key /\na key inside the "
           "window (paper Table 3).  A key may linger k*g = %llu\ninsertions "
           "past the window (built plan).\n",
           (unsigned long long)chosen.slack);
    return CLI_EXIT_OK;
}

/* ---- line-local APBF ---------------------------------------------------- */

static void print_line_json(const plan_request *req, const tdbf_line_plan *p)
{
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "design", "apbf-line");
    json_built(&j, p->k, p->l, p->window, 0);
    cli_json_u64(&j, "k", p->k);
    cli_json_u64(&j, "l", p->l);
    cli_json_u64(&j, "b", p->b);
    cli_json_u64(&j, "unit_bits", p->unit_bits);
    cli_json_u64(&j, "fields", p->fields);
    cli_json_u64(&j, "field_bits", p->field_bits);
    cli_json_u64(&j, "units", p->units);
    cli_json_u64(&j, "g", p->generation);
    cli_json_u64(&j, "window", p->window);
    cli_json_u64(&j, "bytes", p->bytes);
    cli_json_double(&j, "bits_per_item", p->bits_per_item);
    cli_json_double(&j, "fp", p->fp);
    cli_json_double(&j, "target_error", req->error);
    cli_json_object_end(&j);
    fputc('\n', stdout);
}

static void print_line_row(const char *what, const tdbf_line_plan *p)
{
    char memory[32];
    cli_format_bytes(memory, sizeof memory, p->bytes);
    printf("  %-14s %3u %3u %2u %5u %3u %12llu %10s %9.2f %10.4g\n", what, p->k, p->l, p->b,
           p->unit_bits / 8, p->field_bits, (unsigned long long)p->generation, memory,
           p->bits_per_item, p->fp);
}

/* What tdbf_open builds, both unit sizes, and the least-memory APBF. */
static int run_line_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_APBF_LINE;
    cfg.window_items = req->window;
    cfg.error = req->error;
    cfg.block_bits = req->block_bits;
    char what[96];
    snprintf(what, sizeof what, "apbf-line, window %llu, error %g",
             (unsigned long long)req->window, req->error);
    tdbf_line_plan chosen, other;
    int rc = tdbf_plan_apbf_line(&cfg, &chosen);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    if (req->json) {
        print_line_json(req, &chosen);
        return CLI_EXIT_OK;
    }
    cfg.block_bits = chosen.unit_bits == 1024 ? 512 : 1024;
    int have_other = tdbf_plan_apbf_line(&cfg, &other) == TDBF_OK;
    tdbf_plan apbf;
    int have_apbf = tdbf_plan_apbf(req->window, req->error, &apbf, NULL, 0, NULL) == TDBF_OK;
    printf("APBF-LINE (line-local APBF: one unit of memory per key) for a window of %llu\n"
           "insertions, target error %g\n\n", (unsigned long long)req->window, req->error);
    printf("  %-14s %3s %3s %2s %5s %3s %12s %10s %9s %10s\n", "plan", "k", "l", "b", "unit",
           "W", "g", "memory", "bits/item", "fp");
    print_line_row("built", &chosen);
    if (have_other)
        print_line_row(other.unit_bits == 1024 ? "128-byte unit" : "64-byte unit", &other);
    if (have_apbf)
        printf("  %-14s %3u %3u %39s %9.2f %10.4g\n", "apbf (least)", apbf.k, apbf.l, "",
               apbf.bits_per_item, apbf.fp);
    printf("\nunit: bytes a key's fields live in (one read per query); W: bits per field, "
           "of\nk + l fields a unit (each unit empties its oldest field on its own turn, a\n"
           "unit or so per insert: no pause; the library's concurrent mode plans k + l +\n"
           "1 fields, one a spare).\n"
           "b: bits a key sets per field.  fp: the model's, the same at every moment\n"
           "(units' loads shared by neighbouring fields included; with a spare, just\n"
           "before a shift).  A key may linger (k+l)*g = %llu insertions.\n",
           (unsigned long long)((uint64_t)(chosen.k + chosen.l) * chosen.generation));
    return CLI_EXIT_OK;
}

/* ---- line-local rings over a time window ----------------------------- */

/* The ring tdbf_open starts a tlbf-line filter with (apbf-line's plan for
 * a count window of the capacity, with the spare field concurrent mode
 * plans too: rings shift all at once), and what the time window makes of
 * it. */
static int run_tlbf_line_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_APBF_LINE;
    cfg.window_items = req->capacity ? req->capacity : 1024;
    cfg.error = req->error;
    cfg.block_bits = req->block_bits;
    cfg.concurrent = 1;
    char window[32], what[96], span[32], slack[32], memory[32], capacity[32];
    cli_format_duration_ns(window, sizeof window, req->window_ns);
    snprintf(what, sizeof what, "tlbf-line, window %s, error %g", window, req->error);
    tdbf_line_plan ring;
    int rc = tdbf_plan_apbf_line(&cfg, &ring);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    uint64_t span_ns = req->window_ns / ring.l + (req->window_ns % ring.l != 0);
    uint64_t slack_ns = span_ns > UINT64_MAX / (ring.k + ring.l) ? UINT64_MAX
                                                                 : span_ns * (ring.k + ring.l);
    if (req->json) {
        cli_json j;
        cli_json_init(&j, stdout);
        cli_json_object_begin(&j, NULL);
        cli_json_string(&j, "design", "tlbf-line");
        json_built(&j, ring.k, ring.l, 0, req->window_ns);
        cli_json_u64(&j, "window_ns", req->window_ns);
        cli_json_u64(&j, "capacity", cfg.window_items);
        cli_json_u64(&j, "generation_ns", span_ns);
        cli_json_u64(&j, "k", ring.k);
        cli_json_u64(&j, "l", ring.l);
        cli_json_u64(&j, "b", ring.b);
        cli_json_u64(&j, "unit_bits", ring.unit_bits);
        cli_json_u64(&j, "field_bits", ring.field_bits);
        cli_json_u64(&j, "units", ring.units);
        cli_json_u64(&j, "g", ring.generation);
        cli_json_u64(&j, "bytes", ring.bytes);
        cli_json_double(&j, "bits_per_item", ring.bits_per_item);
        cli_json_double(&j, "fp", ring.fp);
        cli_json_double(&j, "target_error", req->error);
        cli_json_object_end(&j);
        fputc('\n', stdout);
        return CLI_EXIT_OK;
    }
    cli_format_duration_ns(span, sizeof span, span_ns);
    cli_format_duration_ns(slack, sizeof slack, slack_ns);
    cli_format_bytes(memory, sizeof memory, ring.bytes);
    cli_format_count(capacity, sizeof capacity, cfg.window_items);
    printf("TLBF-LINE (line-local APBF rings over a time window) for a window of %s,\n"
           "%s keys per window, target error %g\n\n", window, capacity, req->error);
    printf("  %-14s %3s %3s %2s %5s %3s %12s %10s %9s %10s\n", "ring", "k", "l", "b", "unit",
           "W", "g", "memory", "bits/item", "fp");
    print_line_row("at capacity", &ring);
    printf("\n  generation        %s (window / l)\n"
           "  memory            %s at the planned rate, one ring (%.2f bits/item)\n"
           "  fn in window      0 (a key may answer for up to (k+l) generations: %s)\n\n"
           "Faster streams open larger rings (2x to 4x a step) and read the older\n"
           "ones until they age out; slower ones hand over to smaller rings: memory\n"
           "follows the rate, a query reads one unit per live ring.  fp: the ring's\n"
           "model at its planned load, just before a shift.\n",
           span, memory, ring.bits_per_item, slack);
    return CLI_EXIT_OK;
}

/* ---- TLBF ---------------------------------------------------------------- */

/* TLBF has no planner of its own in the API, but its open allocates no
 * slice before the first add: a throwaway filter says which (k, l) it
 * takes (tdbf_get_shape), and tdbf_plan_eval the slices of that pair for
 * the planned keys per window. */
static int run_tlbf_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    request_config(req, &cfg);
    char window[32], what[96], span[32], memory[32], capacity[32];
    cli_format_duration_ns(window, sizeof window, req->window_ns);
    snprintf(what, sizeof what, "tlbf, window %s, error %g", window, req->error);
    tdbf *probe;
    int rc = tdbf_open(&probe, &cfg);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    tdbf_shape shape;
    tdbf_get_shape(probe, &shape);
    tdbf_close(probe);
    uint64_t keys = req->capacity ? req->capacity : 1024;
    tdbf_plan slices;
    rc = tdbf_plan_eval(shape.k, shape.l, keys, &slices);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    uint64_t span_ns = req->window_ns / shape.l ? req->window_ns / shape.l : 1;
    if (req->json) {
        cli_json j;
        cli_json_init(&j, stdout);
        cli_json_object_begin(&j, NULL);
        cli_json_string(&j, "design", "tlbf");
        json_built(&j, shape.k, shape.l, 0, req->window_ns);
        cli_json_u64(&j, "capacity", keys);
        cli_json_u64(&j, "generation_ns", span_ns);
        cli_json_u64(&j, "slice_bits", slices.m);
        cli_json_u64(&j, "bytes", (slices.bits + 7) / 8);
        cli_json_double(&j, "bits_per_item", slices.bits_per_item);
        cli_json_double(&j, "fp", shape.error_planned);
        cli_json_double(&j, "target_error", req->error);
        cli_json_object_end(&j);
        fputc('\n', stdout);
        return CLI_EXIT_OK;
    }
    cli_format_duration_ns(span, sizeof span, span_ns);
    cli_format_bytes(memory, sizeof memory, (slices.bits + 7) / 8);
    cli_format_count(capacity, sizeof capacity, keys);
    printf("TLBF (time-limited Bloom filter) for a window of %s, %s keys per window,\n"
           "target error %g: what tdbf_open and tdbf dedup --window build\n\n"
           "  k, l              %u, %u (least memory)\n"
           "  generation        %s of time (window / l)\n"
           "  slices            %u of %s bits at the planned rate\n"
           "  memory            %s at the planned rate (%.2f bits/item)\n"
           "  fp                %.4g (worst case, just before a shift)\n\n"
           "Slices are sized as keys arrive, from the rate seen: memory follows the\n"
           "rate, and a burst adds slices (up to a cap) rather than forgetting keys.\n",
           window, capacity, req->error, shape.k, shape.l, span, shape.k + shape.l,
           cli_format_count(what, sizeof what, slices.m), memory, slices.bits_per_item,
           shape.error_planned);
    return CLI_EXIT_OK;
}

/* ---- command --------------------------------------------------------- */

static int parse_args(const cli_command *self, int argc, char **argv,
                      plan_request *req)
{
    const char *cmd = self->name;
    cli_parser parser;
    cli_parser_init(&parser, cmd, self->options, argc, argv);
    int have_alts = 0;
    uint64_t number;
    const char *value;
    int opt;

    memset(req, 0, sizeof *req);
    req->alts = PLAN_DEFAULT_ALTS;
    while ((opt = cli_next_option(&parser, &value)) != CLI_OPT_END) {
        switch (opt) {
        case CLI_OPT_HELP:
            cli_command_help(self, stdout);
            return -1;
        case CLI_OPT_ERROR:
            return CLI_EXIT_USAGE;
        case OPT_ERROR:
            if (cli_parse_probability(cmd, "error", value, &req->error) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_WINDOW:
            req->window_text = value;     /* a count or a duration: by design */
            break;
        case OPT_K:
            if (cli_parse_count(cmd, "k", value, 1, TDBF_MAX_K, &number) != 0)
                return CLI_EXIT_USAGE;
            req->k = (unsigned)number;
            break;
        case OPT_L:
            if (cli_parse_count(cmd, "l", value, 1, TDBF_MAX_L, &number) != 0)
                return CLI_EXIT_USAGE;
            req->l = (unsigned)number;
            break;
        case OPT_ALTS:
            if (cli_parse_count(cmd, "alts", value, 0, PLAN_MAX_ALTS,
                                &req->alts) != 0)
                return CLI_EXIT_USAGE;
            have_alts = 1;
            break;
        case OPT_JSON:
            req->json = 1;
            break;
        case OPT_DESIGN:
            if (tdbf_design_parse(value, &req->design) != TDBF_OK ||
                (req->design != TDBF_APBF && req->design != TDBF_APBBF &&
                 req->design != TDBF_APBF_LINE && req->design != TDBF_FPDECAY &&
                 req->design != TDBF_STABLE && req->design != TDBF_CLOCK &&
                 req->design != TDBF_ROTATING && req->design != TDBF_TLBF_LINE &&
                 req->design != TDBF_TLBF))
                return cli_usage_error(cmd, "--design: apbf, apbbf, apbf-line, tlbf, "
                                       "tlbf-line, clock, rotating, fpdecay or stable, not '%s'",
                                       value);
            break;
        case OPT_TIME:
            if (cli_parse_duration_ns(cmd, "time", value, &req->window_ns) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_CAPACITY:
            if (cli_parse_count(cmd, "capacity", value, 1, UINT64_MAX,
                                &req->capacity) != 0)
                return CLI_EXIT_USAGE;
            break;
        case OPT_BLOCK_BITS:
            if (cli_parse_count(cmd, "block-bits", value, 64, 1024, &number) != 0)
                return CLI_EXIT_USAGE;
            if (number != 64 && number != 512 && number != 1024)
                return cli_usage_error(cmd, "--block-bits: 64 or 512 (apbbf), 512 or "
                                       "1024 (apbf-line), not '%s'", value);
            req->block_bits = (unsigned)number;
            break;
        case OPT_SURVIVAL:
            if (cli_parse_probability(cmd, "survival", value, &req->survival) != 0)
                return CLI_EXIT_USAGE;
            break;
        default:
            return CLI_EXIT_USAGE;
        }
    }

    int line_rings = req->design == TDBF_TLBF_LINE;
    int time_only = line_rings || req->design == TDBF_TLBF;
    int timed_design = req->design == TDBF_CLOCK || req->design == TDBF_ROTATING || time_only;
    if (req->window_text && time_only) {
        if (req->window_ns != 0)
            return cli_usage_error(cmd, "give --window or --time, not both");
        if (cli_parse_duration_ns(cmd, "window", req->window_text, &req->window_ns) != 0)
            return CLI_EXIT_USAGE;
    } else if (req->window_text &&
               cli_parse_count(cmd, "window", req->window_text, 1, UINT64_MAX,
                               &req->window) != 0) {
        return CLI_EXIT_USAGE;
    }
    if (req->window_ns != 0 && !timed_design)
        return cli_usage_error(cmd, "--time applies to --design clock, rotating, tlbf "
                               "or tlbf-line");
    if (req->capacity != 0 && req->window_ns == 0)
        return cli_usage_error(cmd, "--capacity goes with --time");
    if ((req->design == TDBF_CLOCK || time_only) && req->window_ns == 0)
        return cli_usage_error(cmd, "--design %s needs a time window (--time 60s)",
                               tdbf_design_name(req->design));
    if (req->window != 0 && req->window_ns != 0)
        return cli_usage_error(cmd, "give --window or --time, not both");
    if (req->window == 0 && req->window_ns == 0)
        return cli_usage_error(cmd, "--window is required");
    if (timed_design && req->survival != 0.0)
        return cli_usage_error(cmd, "--survival applies to --design fpdecay "
                               "or stable");
    if (req->block_bits != 0 && req->design != TDBF_APBBF && req->design != TDBF_APBF_LINE &&
        !line_rings)
        return cli_usage_error(cmd, "--block-bits applies to --design apbbf, apbf-line or "
                               "tlbf-line");
    if ((req->block_bits == 64 && (req->design == TDBF_APBF_LINE || line_rings)) ||
        (req->block_bits == 1024 && req->design == TDBF_APBBF))
        return cli_usage_error(cmd, "--block-bits: 64 or 512 for apbbf, 512 or 1024 "
                               "for apbf-line");
    if (req->design != TDBF_APBF) {
        if (req->k != 0 || req->l != 0 || have_alts)
            return cli_usage_error(cmd, "--k, --l and --alts are APBF options");
        if (req->error == 0.0)
            return cli_usage_error(cmd, "--error is required");
        return CLI_EXIT_OK;
    }
    if (req->survival != 0.0)
        return cli_usage_error(cmd, "--survival applies to --design fpdecay "
                               "or stable");
    if ((req->k == 0) != (req->l == 0))
        return cli_usage_error(cmd, "--k and --l go together: give both "
                               "(explicit pair) or neither (planner)");
    if (req->k == 0 && req->error == 0.0)
        return cli_usage_error(cmd, "--error is required (or give --k and "
                               "--l to evaluate an explicit pair)");
    if (req->k != 0 && have_alts)
        return cli_usage_error(cmd, "--alts applies to the planner, not to "
                               "an explicit --k/--l");
    return CLI_EXIT_OK;
}

static int run_plan(const cli_command *self, int argc, char **argv)
{
    plan_request req;
    int status = parse_args(self, argc, argv, &req);
    if (status < 0)
        return CLI_EXIT_OK;           /* --help */
    if (status != CLI_EXIT_OK)
        return status;
    if (req.design == TDBF_CLOCK || req.design == TDBF_ROTATING)
        return run_design_plan(self, &req);
    if (req.design == TDBF_APBBF)
        return run_blocked_plan(self, &req);
    if (req.design == TDBF_APBF_LINE)
        return run_line_plan(self, &req);
    if (req.design == TDBF_TLBF_LINE)
        return run_tlbf_line_plan(self, &req);
    if (req.design == TDBF_TLBF)
        return run_tlbf_plan(self, &req);
    if (req.design != TDBF_APBF)
        return run_decay_plan(self, &req);

    tdbf_plan best, built;
    tdbf_plan alts[PLAN_MAX_ALTS + 2];
    size_t n_alts = 0;
    char what[96];
    int rc;

    if (req.k != 0) {
        rc = tdbf_plan_eval(req.k, req.l, req.window, &best);
        snprintf(what, sizeof what, "k=%u, l=%u, window %llu", req.k, req.l,
                 (unsigned long long)req.window);
    } else {
        /* ask for two more than shown: the least-memory and the built
         * plans may be among them */
        rc = tdbf_plan_apbf(req.window, req.error, &best,
                            req.alts > 0 ? alts : NULL, (size_t)req.alts + 2,
                            &n_alts);
        /* tdbf_open's choice at the default cfg.plan_tolerance */
        if (rc == TDBF_OK)
            rc = tdbf_plan_apbf_fast(req.window, req.error, TDBF_DEFAULT_PLAN_TOLERANCE,
                                     &built);
        snprintf(what, sizeof what, "window %llu, error %g",
                 (unsigned long long)req.window, req.error);
    }
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    if (req.k != 0)
        built = best;         /* tdbf_open with cfg.k, cfg.l: tdbf_plan_eval */

    /* Alternatives other than the plans above, at most req.alts of them. */
    size_t kept = 0;
    for (size_t i = 0; i < n_alts && kept < req.alts; i++)
        if (!same_plan(&alts[i], &best) && !same_plan(&alts[i], &built))
            alts[kept++] = alts[i];

    if (req.json) {
        print_json(&req, &best, &built, alts, kept);
        return CLI_EXIT_OK;
    }
    return print_table(&req, &best, &built, alts, kept);
}

const cli_command cli_cmd_plan = {
    .name = "plan",
    .summary = "choose APBF parameters (k, l, m) for a window and an error rate",
    .usage = "--error E --window N [--alts K] [--json]\n"
             "--k K --l L --window N [--error E] [--json]\n"
             "--design fpdecay|stable --error E --window N [--survival S] [--json]\n"
             "--design rotating --error E --window N [--json]\n"
             "--design apbbf --error E --window N [--block-bits 64|512] [--json]\n"
             "--design clock|rotating --error E --time DURATION [--capacity C] [--json]\n"
             "--design tlbf --error E --time DURATION [--capacity C] [--json]\n"
             "--design tlbf-line --error E --time DURATION [--capacity C] [--block-bits 512|1024] [--json]",
    .details =
        "Every design shows the plan tdbf_open builds (\"built\"; in --json the\n"
        "\"built\" object: k, l and window as tdbf info reports them).\n"
        "APBF: the planner (tdbf_plan_apbf) returns the (k, l, m) whose analytic\n"
        "false-positive rate -- the worst case just before a shift, with the\n"
        "exact expected fill of every slice -- meets E with the least memory;\n"
        "tdbf_open builds the fewest slice reads within 5 % of it (shown as\n"
        "built when it differs); the alternatives use other k, each with the\n"
        "largest l that meets E.  tdbf_open's default design is apbf-line.\n"
        "With --k and --l it evaluates that pair instead (tdbf_plan_eval).\n"
        "Paper 004, section 5; its Table 2 lists the paper's choices.\n"
        "--design apbbf plans the blocked APBF (section 6): the plan tdbf_open\n"
        "builds and the least-memory one, with blocks read per query.\n"
        "--design fpdecay or stable sizes a design that forgets at random\n"
        "(tdbf_plan_decay): the least memory whose steady-state FP meets E\n"
        "and which still answers yes for a key N insertions old with\n"
        "probability S (default 1 - E).\n"
        "--design clock or rotating sizes a filter with a hard window and no\n"
        "false negatives (tdbf_plan_design): the least memory whose worst-case\n"
        "FP meets E, for a time window of --capacity keys (default 1024) or,\n"
        "rotating only, a count window.\n"
        "--design tlbf shows the (k, l) and slices tdbf_open chooses for a time\n"
        "window of --capacity keys (default 1024; slices follow the rate).\n"
        "--design tlbf-line shows the ring tdbf_open starts a time-window\n"
        "filter with (apbf-line's plan for --capacity keys per window); the\n"
        "filter grows and shrinks by rings as the rate changes.\n",
    .options = plan_options,
    .run = run_plan,
};
