/*
 * main.c — entry point of the tdbf command-line tool: the dispatch table
 * of subcommands, top-level help and version.
 *
 *   tdbf --help | -h | help          list the commands
 *   tdbf help CMD | tdbf CMD --help  help of one command
 *   tdbf --version | -V | version    library and header versions
 *   tdbf CMD [OPTIONS]               run a command
 *
 * Exit status, the same for every command (common/diag.h): 0 success, 1 bad
 * input data or a failed run, 2 usage error, 3 I/O error, 130 / 143
 * interrupted by SIGINT / SIGTERM.
 */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include "cli.h"

#include <ctype.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <tdbf.h>

/* ---- the dispatch table: one line per subcommand --------------------- */

static const cli_command *const commands[] = {
    &cli_cmd_plan,
    &cli_cmd_demo,
    &cli_cmd_bench,
    &cli_cmd_dedup,
    &cli_cmd_info,
    &cli_cmd_eval,
    &cli_cmd_version,
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

/* ---- help ---------------------------------------------------------- */

static void print_main_help(FILE *out)
{
    size_t width = strlen("help");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strlen(commands[i]->name) > width)
            width = strlen(commands[i]->name);

    fputs("tdbf - time-decaying Bloom filters: \"have I seen this key "
          "recently?\"\n\n"
          "Usage: tdbf COMMAND [OPTIONS]\n"
          "       tdbf help COMMAND     (or: tdbf COMMAND --help)\n"
          "       tdbf --version\n\n"
          "Commands:\n", out);
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-*s  %s\n", (int)width, commands[i]->name,
                commands[i]->summary);
    fprintf(out, "  %-*s  %s\n", (int)width, "help",
            "show the help of a command");
    fputs("\nOptions take a value as '--opt VALUE' or '--opt=VALUE'.  Counts "
          "accept k, M, G\n(x1000) and Ki, Mi, Gi (x1024) suffixes.\n\n"
          CLI_EXIT_STATUS_TEXT, out);
}

/* ---- the `version` subcommand ---------------------------------------- */

static const cli_option version_options[] = {
    {NULL, NULL, NULL}
};

static int run_version(const cli_command *self, int argc, char **argv)
{
    cli_parser parser;
    cli_parser_init(&parser, self->name, self->options, argc, argv);
    const char *value;
    int opt;
    while ((opt = cli_next_option(&parser, &value)) != CLI_OPT_END) {
        if (opt == CLI_OPT_HELP) {
            cli_command_help(self, stdout);
            return CLI_EXIT_OK;
        }
        return CLI_EXIT_USAGE;   /* CLI_OPT_ERROR: already reported */
    }
    cli_print_version(stdout);
    return CLI_EXIT_OK;
}

const cli_command cli_cmd_version = {
    .name = "version",
    .summary = "print the version of the linked library and of the header",
    .usage = "",
    .details = NULL,
    .options = version_options,
    .run = run_version,
};

/* ---- signals --------------------------------------------------------- */

/* A command that does not handle SIGINT / SIGTERM itself (dedup does:
 * it saves its state first) ends with 128 + the signal, as the exit
 * status convention says, rather than dying of it. */
static void exit_on_signal(int sig)
{
    _exit(CLI_EXIT_SIGNAL + sig);
}

static void default_signal_exits(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = exit_on_signal;
    sigemptyset(&sa.sa_mask);
    static const int stops[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        struct sigaction old;
        /* a signal the caller ignores (nohup, a background job) stays so */
        if (sigaction(stops[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(stops[i], &sa, NULL);
    }
}

/* ---- main ------------------------------------------------------------ */

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_main_help(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *first = argv[1];

    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_main_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        cli_print_version(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "help") == 0) {
        if (argc == 2) {
            print_main_help(stdout);
            return CLI_EXIT_OK;
        }
        if (argc > 3)
            return cli_usage_error("help", "expected one command name, got %d",
                                   argc - 2);
        if (strcmp(argv[2], "help") == 0) {
            print_main_help(stdout);
            return CLI_EXIT_OK;
        }
        const cli_command *cmd = find_command(argv[2]);
        if (cmd == NULL)
            return cli_usage_error(NULL, "help: unknown command '%s'", argv[2]);
        cli_command_help(cmd, stdout);
        return CLI_EXIT_OK;
    }
    if (first[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s'", first);

    const cli_command *cmd = find_command(first);
    if (cmd == NULL)
        return cli_usage_error(NULL, "unknown command '%s'", first);

    default_signal_exits();
    int status = cmd->run(cmd, argc - 1, argv + 1);
    if (fflush(stdout) != 0 && status == CLI_EXIT_OK)
        return cli_io_error(cmd->name, "cannot write the output");
    return status;
}
