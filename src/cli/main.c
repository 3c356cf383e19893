/*
 * main.c — entry point of the tdbf command-line tool: its dispatch table.
 *
 *   tdbf --help | -h | help          list the commands
 *   tdbf help CMD | tdbf CMD --help  help of one command
 *   tdbf --version | -V | version    library and header versions
 *   tdbf CMD [OPTIONS]               run a command
 *
 * The commands users run: dedup, plan, info, and eval, which reproduces
 * the papers' tables.  The benchmarks and the demo are for developers and
 * are tdbf-lab's (lab/tdbf_lab.c), built beside tdbf and not installed;
 * src/cli/README says why.  cli_main (common/cmdline.c) is the program
 * around the table.
 *
 * Exit status, the same for every command (common/diag.h): 0 success, 1 bad
 * input data or a failed run, 2 usage error, 3 I/O error, 130 / 143
 * interrupted by SIGINT / SIGTERM.
 */
#include "cli.h"

#include <string.h>

/* ---- the dispatch table: one line per subcommand --------------------- */

static const cli_command *const commands[] = {
    &cli_cmd_plan,
    &cli_cmd_dedup,
    &cli_cmd_info,
    &cli_cmd_eval,
    &cli_cmd_version,
};

/* The lab's commands, named to a user who tries them here. */
static const char *lab_command(const char *name)
{
    if (strcmp(name, "bench") == 0 || strcmp(name, "demo") == 0)
        return "the benchmarks and the demo are tdbf-lab's: build/tdbf-lab in a build tree";
    return NULL;
}

int main(int argc, char **argv)
{
    static const cli_program_def tool = {
        .name = "tdbf",
        .title = "time-decaying Bloom filters: \"have I seen this key recently?\"",
        .commands = commands,
        .count = sizeof commands / sizeof commands[0],
        .elsewhere = lab_command,
    };
    return cli_main(&tool, argc, argv);
}
