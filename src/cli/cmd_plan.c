/*
 * cmd_plan.c — `tdbf plan`: the filter a window and an error rate get.
 *
 * Without --design, the plan of the design tdbf dedup builds for that kind
 * of window (cli_default_design: apbf-line for a count, tlbf-line for a
 * time).  The APBF has two modes, both printing the same table (or one
 * JSON object):
 *   planner   --error E --window N   tdbf_plan_apbf() picks the (k, l, m)
 *             whose exact-fill FP meets E with the least memory, plus
 *             alternatives with other k (paper 004, section 5, Table 2);
 *   explicit  --k K --l L --window N  tdbf_plan_eval() evaluates one pair.
 * With --design fpdecay or stable it sizes one of the designs that forget
 * at random instead (tdbf_plan_decay) and prints its memory, its FP and
 * its false-negative rate at the window's edge; with --design clock or
 * rotating it sizes one of those (tdbf_plan_clock_rotating): memory and worst-case
 * FP, no false negatives; with --design tlbf-line the ring tdbf_open
 * starts with for a time window (tdbf_plan_apbf_line at the capacity);
 * with --design sqf the sliding quotient filter, the count design of least
 * memory (plan_sqf.c), which apbf-line's plan shows beside itself.
 * Every plan ends with its expiry bound and what --error bounds
 * (plan_print_bound, plan_designs.c).
 */
#include "plan.h"
#include "filter_sizing.h"

#include <string.h>

#include <tdbf_model.h>

#define PLAN_DEFAULT_ALTS 8
#define PLAN_DEFAULT_ERROR 0.01  /* tdbf dedup's */
#define PLAN_MAX_ALTS     TDBF_MAX_K

enum {
    OPT_ERROR,
    OPT_WINDOW,
    OPT_LAST,
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
    [OPT_WINDOW] = {"window", "N|T", "window that must never be forgotten: a count of insertions (100k, 1M = 10^6) or a duration (10m, 60s); as tdbf dedup's --last N and --window T"},
    [OPT_LAST]   = {"last", "N", "count window of N insertions, as tdbf dedup --last N"},
    [OPT_K]      = {"k", "K", "evaluate this k (slices per insertion) instead of planning; needs --l"},
    [OPT_L]      = {"l", "L", "evaluate this l (window = l generations); needs --k"},
    [OPT_ALTS]   = {"alts", "K", "show up to K alternatives with other k (default 8, 0 = none)"},
    [OPT_JSON]   = {"json", NULL, "print the chosen plan as one JSON object on one line"},
    [OPT_DESIGN] = {"design", "NAME", "default: what tdbf dedup builds, apbf-line for a count window, tlbf-line for a time window (apbf with --k/--l/--alts); sqf (the least memory for a count window, apbf-line the fastest); apbf, apbbf (blocked APBF); tlbf; clock, rotating; or fpdecay / stable: designs that forget at random"},
    [OPT_SURVIVAL] = {"survival", "S", "fpdecay, stable: least P(yes) for a key N insertions old (default 1 - E)"},
    [OPT_TIME]   = {"time", "DURATION", "time window (60s, 5m), the same as --window DURATION"},
    [OPT_CAPACITY] = {"capacity", "C", "clock, rotating, tlbf, tlbf-line with a time window: expected keys per window (default 1024)"},
    [OPT_BLOCK_BITS] = {"block-bits", "B", "apbbf: block size in bits, 512 (a cache line, default) or 64 (a word); apbf-line, tlbf-line: unit size, 1024 (two lines) or 512; sqf: bin size, 512 (a line) or 1024 (default for both: the planner's)"},
    {NULL, NULL, NULL}
};


static uint64_t plan_bytes(const tdbf_plan *plan)
{
    return (plan->bits + 7) / 8;
}

static int same_plan(const tdbf_plan *a, const tdbf_plan *b)
{
    return a->k == b->k && a->l == b->l && a->m == b->m;
}

/* ---- JSON ------------------------------------------------------------ */

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
    plan_json_bound(&j, req);
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
    plan_print_bound(req);
    return CLI_EXIT_OK;
}

/* ---- command --------------------------------------------------------- */

/* Designs with only a time window, and with only a count window. */
static int time_only(tdbf_design design)
{
    return design == TDBF_TLBF || design == TDBF_TLBF_LINE || design == TDBF_CLOCK;
}

static int count_only(tdbf_design design)
{
    return design == TDBF_APBF || design == TDBF_APBBF || design == TDBF_APBF_LINE ||
           design == TDBF_FPDECAY || design == TDBF_STABLE;
}

/* One window, of one kind: --last N, --time T, or --window N|T -- a count
 * (100k, 1e6) or a duration (10m), as the design named takes, or as it
 * reads when no design is named. */
static int resolve_window(const char *cmd, plan_request *req)
{
    int given = (req->window_text != NULL) + (req->window != 0) + (req->window_ns != 0);
    if (given > 1)
        return cli_usage_error(cmd, "give one window: --window, --last or --time");
    if (given == 0)
        return cli_usage_error(cmd, "a window is required: --last N (count), --window N "
                               "or T (10m), or --time T");
    if (req->window_text == NULL)
        return CLI_EXIT_OK;
    return cli_parse_window(cmd, "window", req->window_text, &req->window, &req->window_ns)
           ? CLI_EXIT_USAGE : CLI_EXIT_OK;
}

/* The options that only some designs take. */
static int check_design_options(const char *cmd, const plan_request *req, int apbf_options)
{
    const char *name = tdbf_design_name(req->design);
    /* the designs whose unit or bin is 512 or 1024 bits (cfg.unit_bits) */
    int line_design = req->design == TDBF_APBF_LINE || req->design == TDBF_TLBF_LINE ||
                      req->design == TDBF_SQF;
    if (time_only(req->design) && req->window_ns == 0)
        return cli_usage_error(cmd, "--design %s needs a time window (--window 10m)", name);
    if (count_only(req->design) && req->window_ns != 0)
        return cli_usage_error(cmd, "--design %s takes a count window (--last N), not a "
                               "duration", name);
    if (req->capacity != 0 && req->window_ns == 0)
        return cli_usage_error(cmd, "--capacity goes with a time window");
    if (req->survival != 0.0 && req->design != TDBF_FPDECAY && req->design != TDBF_STABLE)
        return cli_usage_error(cmd, "--survival applies to --design fpdecay or stable");
    if (req->block_bits != 0 && req->design != TDBF_APBBF && !line_design)
        return cli_usage_error(cmd, "--block-bits applies to --design apbbf, apbf-line, "
                               "tlbf-line or sqf");
    if ((req->block_bits == 64 && line_design) ||
        (req->block_bits == 1024 && req->design == TDBF_APBBF))
        return cli_usage_error(cmd, "--block-bits: 64 or 512 for apbbf, 512 or 1024 "
                               "for apbf-line, tlbf-line and sqf");
    if (apbf_options && req->design != TDBF_APBF)
        return cli_usage_error(cmd, "--k, --l and --alts are APBF options");
    return CLI_EXIT_OK;
}

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
            req->window_text = value;     /* a count or a duration: parsed below */
            break;
        case OPT_LAST:
            if (cli_parse_count(cmd, "last", value, 1, UINT64_MAX, &req->window) != 0)
                return CLI_EXIT_USAGE;
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
            req->design_given = 1;
            if (cli_parse_design(cmd, "design", value, &req->design) != 0)
                return CLI_EXIT_USAGE;
            if ((req->design != TDBF_APBF && req->design != TDBF_APBBF &&
                 req->design != TDBF_APBF_LINE && req->design != TDBF_FPDECAY &&
                 req->design != TDBF_STABLE && req->design != TDBF_CLOCK &&
                 req->design != TDBF_ROTATING && req->design != TDBF_TLBF_LINE &&
                 req->design != TDBF_TLBF && req->design != TDBF_SQF))
                return cli_usage_error(cmd, "--design: apbf, apbbf, apbf-line, sqf, tlbf, "
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
                                       "1024 (apbf-line, tlbf-line, sqf), not '%s'", value);
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

    int rc = resolve_window(cmd, req);
    if (rc != CLI_EXIT_OK)
        return rc;
    int apbf_options = req->k != 0 || req->l != 0 || have_alts;
    if (!req->design_given)
        req->design = apbf_options ? TDBF_APBF : cli_default_design(req->window_ns != 0);
    rc = check_design_options(cmd, req, apbf_options);
    if (rc != CLI_EXIT_OK)
        return rc;
    if ((req->k == 0) != (req->l == 0))
        return cli_usage_error(cmd, "--k and --l go together: give both "
                               "(explicit pair) or neither (planner)");
    if (req->k != 0 && have_alts)
        return cli_usage_error(cmd, "--alts applies to the planner, not to "
                               "an explicit --k/--l");
    /* an explicit pair is evaluated, with --error as a target if given */
    if (req->k == 0 && req->error == 0.0)
        req->error = PLAN_DEFAULT_ERROR;
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
    if (req.design == TDBF_SQF)
        return run_sqf_plan(self, &req);
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
    .summary = "show the filter tdbf dedup (or tdbf_open) builds for a window and an error rate",
    .usage = "[--error E] --last N | --window N|T [--capacity C] [--json]\n"
             "--design apbf --error E --window N [--alts K] [--json]\n"
             "--k K --l L --window N [--error E] [--json]\n"
             "--design apbbf|apbf-line|sqf --error E --window N [--block-bits B] [--json]\n"
             "--design fpdecay|stable --error E --window N [--survival S] [--json]\n"
             "--design rotating --error E --window N [--json]\n"
             "--design clock|rotating|tlbf|tlbf-line --error E --window T [--capacity C] [--json]",
    .details =
        "Without --design it shows the plan tdbf dedup builds for that kind of\n"
        "window: apbf-line for a count window (--last N, or --window N: 100k, 1e6),\n"
        "the fastest, with sqf beside it, the least memory (--json\n"
        "\"least_memory\"); tlbf-line for a time window (--window T: 10m, 60s; or\n"
        "--time T); --error defaults to 0.01 as in dedup.  --json marks it\n"
        "(\"dedup_default\": true).\n"
        "Every design shows the plan tdbf_open builds (\"built\"; in --json the\n"
        "\"built\" object: k, l and window as tdbf info reports them), and ends\n"
        "with its expiry bound: the window, and the slack past it in which a key\n"
        "may still be reported (tdbf_slack; --json \"expiry\").  --error bounds\n"
        "how often a key never seen, or last seen longer ago than the window plus\n"
        "its slack, is reported as seen -- so its line wrongly dropped by dedup.\n"
        "APBF (--design apbf, or --k/--l/--alts): the planner (tdbf_plan_apbf)\n"
        "returns the (k, l, m) whose analytic false-positive rate -- the worst\n"
        "case just before a shift, with the exact expected fill of every slice --\n"
        "meets E with the least memory; tdbf_open builds the fewest slice reads\n"
        "within 5 % of it (shown as built when it differs); the alternatives use\n"
        "other k, each with the largest l that meets E.  With --k and --l it\n"
        "evaluates that pair instead (tdbf_plan_eval).  Paper 004, section 5;\n"
        "its Table 2 lists the paper's choices.\n"
        "--design apbbf plans the blocked APBF (section 6): the plan tdbf_open\n"
        "builds and the least-memory one, with blocks read per query.\n"
        "--design apbf-line: the line-local APBF, one unit of memory per key.\n"
        "--design sqf: the sliding quotient filter, fingerprints with 3-bit age\n"
        "tags in bins of 64 or 128 bytes (--block-bits 512 or 1024; default the\n"
        "least memory), one bin read per query; the window is 7 generations of\n"
        "g adds, and a key is answered for at most g adds past it.\n"
        "--design fpdecay or stable sizes a design that forgets at random\n"
        "(tdbf_plan_decay): the least memory whose steady-state FP meets E\n"
        "and which still answers yes for a key N insertions old with\n"
        "probability S (default 1 - E).\n"
        "--design clock or rotating sizes a filter with a hard window and no\n"
        "false negatives (tdbf_plan_clock_rotating): the least memory whose worst-case\n"
        "FP meets E, for a time window of --capacity keys (default 1024) or,\n"
        "rotating only, a count window.  A burst beyond the capacity fills a\n"
        "clock filter (its memory is fixed) and grows a rotating one only up to\n"
        "a cap: past that their FP rises above E, up to 1.\n"
        "--design tlbf shows the (k, l) and slices tdbf_open chooses for a time\n"
        "window of --capacity keys (default 1024; slices follow the rate, up to\n"
        "a cap, past which its FP rises the same way).\n"
        "--design tlbf-line shows the ring tdbf_open starts a time-window\n"
        "filter with (apbf-line's plan for --capacity keys per window); the\n"
        "filter grows and shrinks by rings as the rate changes.\n",
    .options = plan_options,
    .run = run_plan,
};
