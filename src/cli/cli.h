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

#include "common/cmdline.h"
#include "common/diag.h"
#include "common/output.h"

extern const cli_command cli_cmd_plan;
extern const cli_command cli_cmd_demo;
extern const cli_command cli_cmd_bench;
extern const cli_command cli_cmd_dedup;
extern const cli_command cli_cmd_info;
extern const cli_command cli_cmd_eval;
extern const cli_command cli_cmd_version;

#endif /* TDBF_CLI_H */
