/*
 * cli.h — the commands of the tdbf tool and of the lab's tdbf-lab.
 *
 * Each command lives in src/cli/cmd_NAME.c (the experiments: eval, bench,
 * demo, in src/cli/lab/cmd_NAME.c) and exports one cli_command
 * descriptor; main.c (tdbf) or lab/tdbf_lab.c (tdbf-lab) lists it in its
 * dispatch table.  Adding a command: write cmd_NAME.c with a descriptor,
 * declare it below, add one line to a table.
 */
#ifndef TDBF_CLI_H
#define TDBF_CLI_H

#include "common/cmdline.h"
#include "common/diag.h"
#include "common/output.h"

/* tdbf's commands (main.c) */
extern const cli_command cli_cmd_plan;
extern const cli_command cli_cmd_dedup;
extern const cli_command cli_cmd_info;
extern const cli_command cli_cmd_eval;

/* tdbf-lab's (lab/tdbf_lab.c) */
extern const cli_command cli_cmd_demo;
extern const cli_command cli_cmd_bench;

#endif /* TDBF_CLI_H */
