/*
 * tdbf_lab.c — entry point of tdbf-lab, the developers' program: the
 * benchmarks (bench) and the demo, on the same stream generator, timed
 * loop and tables as `tdbf eval`.
 *
 *   tdbf-lab bench [OPTIONS]   ns per insert and query, latencies, memory
 *   tdbf-lab demo [OPTIONS]    a Zipf stream through the count and time
 *                              designs against exact windows
 *
 * It is built by `make` (build/tdbf-lab) and never installed: users run
 * tdbf (src/cli/README says why the line falls there).
 */
#include "../cli.h"

static const cli_command *const commands[] = {
    &cli_cmd_bench,
    &cli_cmd_demo,
    &cli_cmd_version,
};

int main(int argc, char **argv)
{
    static const cli_program_def lab = {
        .name = "tdbf-lab",
        .title = "benchmarks and the demo of time-decaying Bloom filters (developers' tool)",
        .epilogue = "The papers' tables are tdbf's: tdbf eval.\n",
        .commands = commands,
        .count = sizeof commands / sizeof commands[0],
    };
    return cli_main(&lab, argc, argv);
}
