/*
 * cmd_eval.c — `tdbf eval EXPERIMENT`: recompute the papers' tables and
 * figures.  The experiments live in eval_*.c (see eval.h); this file parses
 * the options, finds the experiment and opens and closes its CSV.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "eval.h"

#include <string.h>

#include <tdbf.h>

enum {
    OPT_CSV,
    OPT_QUICK,
    OPT_LIST,
    OPT_SEED
};

static const cli_option eval_options[] = {
    [OPT_CSV]   = {"csv", "FILE", "also write the rows as CSV to FILE ('-' = stdout)"},
    [OPT_QUICK] = {"quick", NULL, "smaller runs (tbf: seconds instead of minutes; fig6, tlbf-slices: fewer probes, 90 s)"},
    [OPT_LIST]  = {"list", NULL, "list the experiments and exit"},
    [OPT_SEED]  = {"seed", "N", "seed of the tbf streams, of fig6/tlbf-slices hashes (default 1)"},
    {NULL, NULL, NULL}
};


/* ---- the experiments ------------------------------------------------- */

static const eval_experiment *const experiments[] = {
    &eval_table2,
    &eval_table3,
    &eval_tbf,
    &eval_fig6,
    &eval_tlbf_slices,
};

#define EXPERIMENTS (sizeof experiments / sizeof experiments[0])

static void list_experiments(FILE *out)
{
    for (size_t i = 0; i < EXPERIMENTS; i++)
        fprintf(out, "  %-11s  %s\n", experiments[i]->name, experiments[i]->summary);
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
        case OPT_QUICK:
            req->quick = 1;
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

    eval_csv csv;
    if (csv_open(&csv, req.csv_path) != 0)
        return cli_error(self->name, "cannot create %s", req.csv_path);
    status = experiments[which]->run(self->name, &req, &csv);
    if (csv_close(&csv) != 0 && status == CLI_EXIT_OK)
        status = cli_error(self->name, "cannot write %s", req.csv_path);
    return status;
}

const cli_command cli_cmd_eval = {
    .name = "eval",
    .summary = "recompute the papers' tables and experiments (APBF, APBBF, TLBF, TBF)",
    .usage = "EXPERIMENT [--csv FILE] [--quick] [--seed N]\n--list",
    .details =
        "Experiments (tdbf eval --list):\n"
        "  table2  APBF, paper 004 Table 2: the paper's 25 (k, l) pairs through\n"
        "          tdbf_plan_eval, beside the values the paper printed;\n"
        "  table3  APBBF, paper 004 Table 3: its 16 (k, l, B, b) rows through\n"
        "          tdbf_plan_apbbf_eval;\n"
        "  tbf     paper 002 section 5 through tdbf_infer_evaluate: penalty\n"
        "          ratio standard/inferential, posterior error (eq 28) and\n"
        "          Pos/Neg per bits per item on the uniform and power-law\n"
        "          streams.  The paper's sizes take minutes; --quick seconds.\n"
        "  fig6    APBF, paper 004 Figure 6: measured FP vs insertions of the\n"
        "          lowest (k, l) per error, window 10^3, beside the analytic\n"
        "          worst case;\n"
        "  tlbf-slices  TLBF, paper 001 Figures 1-2: slices, slice-0 size,\n"
        "          bits per item and estimated FP per simulated second at\n"
        "          100 keys/s, capacity 100 (under) and 100000 (over).\n"
        "Each prints a table; --csv FILE writes the same rows as CSV.\n",
    .options = eval_options,
    .run = run_eval,
};
