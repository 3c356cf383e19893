/*
 * cli.h — the subcommands of the tdbf command-line tool.
 *
 * Each subcommand lives in src/cli/cmd_NAME.c (the experiments: eval, bench,
 * demo, in src/cli/lab/cmd_NAME.c) and exports one cli_command
 * descriptor; main.c lists them in its dispatch table.  Adding a command:
 * write cmd_NAME.c with a descriptor, declare it below, add one line to the
 * table in main.c.
 */
#ifndef TDBF_CLI_H
#define TDBF_CLI_H

#include "util.h"

typedef struct cli_command {
    const char       *name;     /* "plan" */
    const char       *summary;  /* one line for `tdbf --help` */
    const char       *usage;    /* arguments after "tdbf NAME ": "--error E ..." */
    const char       *details;  /* paragraph(s) for `tdbf help NAME`, or NULL */
    const cli_option *options;  /* NULL-terminated; --help is implicit */
    const cli_alias  *aliases;  /* one-letter options (-i), or NULL */
    /* Run with argv[0] == name.  Returns a CLI_EXIT_* code. */
    int (*run)(const struct cli_command *self, int argc, char **argv);
} cli_command;

/* Print the full help of a command (usage, details, options) on `out`. */
void cli_command_help(const cli_command *cmd, FILE *out);

/* Print both the linked library's and the header's version. */
void cli_print_version(FILE *out);

extern const cli_command cli_cmd_plan;
extern const cli_command cli_cmd_demo;
extern const cli_command cli_cmd_bench;
extern const cli_command cli_cmd_dedup;
extern const cli_command cli_cmd_info;
extern const cli_command cli_cmd_eval;
extern const cli_command cli_cmd_version;

#endif /* TDBF_CLI_H */
