/*
 * cmd_eval.c — `tdbf eval EXPERIMENT`: recompute the papers' tables and
 * figures.  The experiments live in eval_*.c (see eval.h); this file parses
 * the options, finds the experiment and opens and closes its CSV.
 */
#define _POSIX_C_SOURCE 200809L

#include "../cli.h"
#include "eval.h"

#include <string.h>

#include <tdbf_model.h>

enum {
    OPT_CSV,
    OPT_QUICK,
    OPT_LIST,
    OPT_SEED,
    OPT_MARKDOWN,
    OPT_LARGE
};

static const cli_option eval_options[] = {
    [OPT_CSV]   = {"csv", "FILE", "also write the rows as CSV to FILE ('-' = stdout)"},
    [OPT_QUICK] = {"quick", NULL, "smaller runs (tbf: seconds instead of minutes; fig6, tlbf-slices: fewer probes, 90 s; compare: window 10^4; line-model: windows 10^4, 10^5; sqf-model: windows 10^4, 10^5, errors to 10^-4; burst: a file of 2*10^5 keys, 2000 keys per window, fewer probes)"},
    [OPT_LIST]  = {"list", NULL, "list the experiments and exit"},
    [OPT_SEED]  = {"seed", "N", "seed of the tbf streams, of fig6/tlbf-slices hashes (default 1)"},
    [OPT_MARKDOWN] = {"markdown", "FILE", "also write the table as Markdown to FILE (burst, sqf-model)"},
    [OPT_LARGE] = {"large", NULL, "also the largest sizes (sqf-model: window 10^8, ~2 GB)"},
    {NULL, NULL, NULL}
};


/* ---- the experiments ------------------------------------------------- */

static const eval_experiment *const experiments[] = {
    &eval_table2,
    &eval_table3,
    &eval_table4,
    &eval_tbf,
    &eval_apbf_posterior,
    &eval_fig6,
    &eval_tlbf_slices,
    &eval_tlbf_bits,
    &eval_tlbf_fp,
    &eval_tlbf_faults,
    &eval_clock_rotating,
    &eval_fpdecay_survival,
    &eval_stable,
    &eval_line_model,
    &eval_sqf_model,
    &eval_burst,
    &eval_compare,
};

#define EXPERIMENTS (sizeof experiments / sizeof experiments[0])

/* The experiments whose table goes through eval_print_table, so honours
 * --markdown. */
static const eval_experiment *const with_markdown[] = {
    &eval_burst,
    &eval_sqf_model,
};

static int writes_markdown(const eval_experiment *e)
{
    for (size_t i = 0; i < sizeof with_markdown / sizeof with_markdown[0]; i++)
        if (with_markdown[i] == e)
            return 1;
    return 0;
}

static void list_experiments(FILE *out)
{
    for (size_t i = 0; i < EXPERIMENTS; i++)
        fprintf(out, "  %-16s  %s\n", experiments[i]->name, experiments[i]->summary);
}

static int parse_args(const cli_command *self, int argc, char **argv,
                      eval_request *req, int *list)
{
    const char *cmd = self->name;
    cli_parser parser;
    cli_parser_init(&parser, cmd, self->options, argc, argv);
    parser.operands = 1;
    const char *value;
    int opt;

    memset(req, 0, sizeof *req);
    req->seed = 1;
    *list = 0;
    while ((opt = cli_next_option(&parser, &value)) != CLI_OPT_END) {
        switch (opt) {
        case CLI_OPT_HELP:
            cli_command_help(self, stdout);
            return -1;
        case CLI_OPT_OPERAND:
            if (req->experiment != NULL)
                return cli_usage_error(cmd, "one experiment at a time ('%s', "
                                       "then '%s')", req->experiment, value);
            req->experiment = value;
            break;
        case OPT_CSV:
            req->csv_path = value;
            break;
        case OPT_MARKDOWN:
            req->markdown_path = value;
            break;
        case OPT_QUICK:
            req->quick = 1;
            break;
        case OPT_LARGE:
            req->large = 1;
            break;
        case OPT_LIST:
            *list = 1;
            break;
        case OPT_SEED:
            if (cli_parse_count(cmd, "seed", value, 0, UINT64_MAX, &req->seed) != 0)
                return CLI_EXIT_USAGE;
            break;
        default:
            return CLI_EXIT_USAGE;
        }
    }
    if (*list)
        return CLI_EXIT_OK;
    if (req->experiment == NULL)
        return cli_usage_error(cmd, "which experiment? (tdbf eval --list)");
    return CLI_EXIT_OK;
}

static int run_eval(const cli_command *self, int argc, char **argv)
{
    eval_request req;
    int list;
    int status = parse_args(self, argc, argv, &req, &list);
    if (status < 0)
        return CLI_EXIT_OK;            /* --help */
    if (status != CLI_EXIT_OK)
        return status;
    if (list) {
        list_experiments(stdout);
        return CLI_EXIT_OK;
    }
    size_t which = 0;
    while (which < EXPERIMENTS && strcmp(experiments[which]->name, req.experiment) != 0)
        which++;
    if (which == EXPERIMENTS)
        return cli_usage_error(self->name, "unknown experiment '%s' (tdbf eval "
                               "--list)", req.experiment);
    if (req.markdown_path != NULL && !writes_markdown(experiments[which]))
        return cli_usage_error(self->name, "%s prints no Markdown table (--markdown: burst, "
                               "sqf-model)",
                               req.experiment);

    if (req.large && experiments[which] != &eval_sqf_model)
        return cli_usage_error(self->name, "%s has no larger sizes (--large: sqf-model)",
                               req.experiment);

    eval_csv csv;
    if (csv_open(&csv, req.csv_path) != 0)
        return cli_io_error(self->name, "cannot create %s", req.csv_path);
    status = experiments[which]->run(self->name, &req, &csv);
    if (csv_close(&csv) != 0 && status == CLI_EXIT_OK)
        status = cli_io_error(self->name, "cannot write %s", req.csv_path);
    return status;
}

const cli_command cli_cmd_eval = {
    .name = "eval",
    .summary = "recompute the papers' tables and experiments (APBF, APBBF, TLBF, TBF, clock, rotating, fpdecay, stable)",
    .usage = "EXPERIMENT [--csv FILE] [--markdown FILE] [--quick] [--large] [--seed N]\n--list",
    .details =
        "Experiments (tdbf eval --list):\n"
        "  table2  APBF, paper 004 Table 2: the paper's 25 (k, l) pairs through\n"
        "          tdbf_plan_eval, beside the values the paper printed;\n"
        "  table3  APBBF, paper 004 Table 3: its 16 (k, l, B, b) rows through\n"
        "          tdbf_plan_apbbf_eval;\n"
        "  table4  APBBF vs SWAMP, paper 004 Table 4: bits per element of its 4\n"
        "          shapes at a window of 2^16 (planner) beside the paper's\n"
        "          APBBF and SWAMP numbers, and tdbf's least-memory shape;\n"
        "  tbf     paper 002 section 5 through cli_infer_evaluate: penalty\n"
        "          ratio standard/inferential, posterior error (eq 28) and\n"
        "          Pos/Neg per bits per item on the uniform and power-law\n"
        "          streams.  The paper's sizes take minutes; --quick seconds.\n"
        "  apbf-posterior  the APBF's posterior (docs/apbf_posterior.md) in the\n"
        "          same experiment, beside the BTBF at the same memory: penalty\n"
        "          ratio and posterior error per bits per item.\n"
        "  fig6    APBF, paper 004 Figure 6: measured FP vs insertions of the\n"
        "          lowest (k, l) per error, window 10^3, beside the analytic\n"
        "          worst case;\n"
        "  tlbf-slices  TLBF, paper 001 Figures 1-2: slices, slice-0 size,\n"
        "          bits per item and estimated FP per simulated second at\n"
        "          100 keys/s, capacity 100 (under) and 100000 (over), the\n"
        "          planner's (k, l) and (7, 5);\n"
        "  tlbf-bits  TLBF, paper 001 Figure 3 and Table 2: bits per element\n"
        "          over time and at steady state, errors 0.1 .. 0.00001, with\n"
        "          measured FP, beside the paper's ranges;\n"
        "  tlbf-fp  TLBF, paper 001 Figures 4-5: measured FP over time on\n"
        "          fresh keys, errors 0.1, 0.01, 0.001, under/over capacity;\n"
        "  tlbf-faults  TLBF under the reference module's failure cases\n"
        "          (bursts at one timestamp, rate x10 up and down, idle 3T):\n"
        "          slices, memory, FP, and false negatives against the exact\n"
        "          record (exit 1 if any);\n"
        "  clock-rotating  paper 000: clock and rotating filters, measured\n"
        "          FP over time beside the planner, keys kept by age;\n"
        "  fpdecay-survival  paper 003: phi(t) for n = 1..16 at s ~ 1000,\n"
        "          b = 8 and 32 (exact matching), measured beside the model;\n"
        "  stable  Stable Bloom filter (Deng & Rafiei): FP while filling and\n"
        "          at the stable point, FN by age, beside the formulas;\n"
        "  line-model  apbf-line's planner: its modelled worst-case FP beside\n"
        "          the FP measured on the filters it builds, windows 10^4 ..\n"
        "          10^7, errors 0.1 .. 0.0001, 64- and 128-byte units, with the\n"
        "          bits per item over the least-memory APBF's (exit 1 if a\n"
        "          point's 95 % interval misses +-10 % of the prediction);\n"
        "          about 3 minutes; --quick: windows 10^4 and 10^5, a second.\n"
        "  sqf-model  sqf's planner: the model's worst-case FP (error_planned)\n"
        "          beside the FP measured on the filters it builds, stopped one\n"
        "          add before a generation's last, windows 10^4 .. 10^7 (--large:\n"
        "          also 10^8, ~2 GB), errors 0.1 .. 10^-5, 64- and 128-byte bins:\n"
        "          measured/model, whether the 95 % interval is within the error,\n"
        "          bits per item beside the least-memory APBF and apbf-line (exit\n"
        "          1 if a point's interval misses +-10 % of the model or the rate\n"
        "          is over the error); about 15 minutes; --quick: seconds.\n"
        "  compare  every windowed design at one setting: window 10^6 keys\n"
        "          (60 s on a simulated clock for tlbf, clock), errors 0.01\n"
        "          and 0.001: bits/element, FP on fresh keys, FN against the\n"
        "          exact window, ns per add and query (median of 3 runs; ratio\n"
        "          to a classic Bloom filter), slack (keys w..3w old still\n"
        "          reported, NPWS).  Two streams of 4w events, seeded:\n"
        "          synthetic, ids uniform over 2w (16-byte keys); words,\n"
        "          two-word phrases of Debian's wamerican list\n"
        "          (/usr/share/dict/american-english), phrase n a fixed\n"
        "          bijection of n, each event with probability 1/2 replaying\n"
        "          the event d back (d uniform in 1..2w), else a new phrase.\n"
        "          About 3 minutes; --quick: window 10^4, seconds.\n"
        "  burst   every time-window design (tlbf-line, tlbf, clock, rotating,\n"
        "          exact) at errors 0.01 and 0.001, window 10 min on a simulated\n"
        "          clock, under four arrival patterns: a file read at full speed\n"
        "          as tdbf dedup --window reads it (blocks of 4096 keys per\n"
        "          timestamp), a steady rate, the rate x10, and a burst of 1000x\n"
        "          a generation's keys at one timestamp.  FP on never-added keys\n"
        "          at the worst moment (the peak of the file or burst, or the end\n"
        "          of an age step), its 95 % interval, tdbf_current_error's\n"
        "          estimate, bits per key of the window and whether it is within\n"
        "          the error (exit 1 if tlbf-line, the default, is over it).\n"
        "          --markdown FILE writes the table as Markdown.  About 10 CPU-\n"
        "          minutes; --quick: 20 s.\n"
        "Each prints a table; --csv FILE writes the same rows as CSV.\n",
    .options = eval_options,
    .run = run_eval,
};
