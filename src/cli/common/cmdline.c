/*
 * cmdline.c — the command line of every tdbf command: the option parser
 * (long options, one-letter aliases), strict parsing of counts,
 * probabilities, durations, sizes and designs, the command
 * descriptor with its help text, and cli_main: the program around a
 * table of commands (tdbf's, tdbf-lab's).
 */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include "cmdline.h"
#include "diag.h"
#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tdbf.h>

/* ======================================================================
 * The option parser of every subcommand.
 * ====================================================================== */

void cli_parser_init(cli_parser *p, const char *cmd, const cli_option *options,
                     int argc, char **argv)
{
    p->cmd = cmd;
    p->options = options;
    p->argc = argc;
    p->argv = argv;
    p->index = 1;   /* argv[0] is the subcommand itself */
    p->operands = 0;
    p->only_operands = 0;
    p->aliases = NULL;
    p->bundle = NULL;
    memset(p->given, 0, sizeof p->given);
}

static int find_option(const cli_option *options, const char *name,
                       size_t name_len)
{
    for (int i = 0; options[i].name != NULL; i++) {
        if (strlen(options[i].name) == name_len &&
            memcmp(options[i].name, name, name_len) == 0)
            return i;
    }
    return -1;
}

static int find_alias(const cli_alias *aliases, char letter)
{
    for (int i = 0; aliases != NULL && aliases[i].letter != 0; i++)
        if (aliases[i].letter == letter)
            return aliases[i].option;
    return -1;
}

/* The letter of option `index`, or 0. */
static char letter_of(const cli_alias *aliases, int index)
{
    for (int i = 0; aliases != NULL && aliases[i].letter != 0; i++)
        if (aliases[i].option == index)
            return aliases[i].letter;
    return 0;
}

/* An option that takes a value may be given once: a second one is more
 * likely a slip (two --field where a list was meant) than an override. */
static int note_given(cli_parser *p, int found)
{
    if (found >= CLI_OPTIONS_TRACKED)
        return found;
    if (p->given[found]) {
        cli_usage_error(p->cmd, "--%s given twice", p->options[found].name);
        return CLI_OPT_ERROR;
    }
    p->given[found] = 1;
    return found;
}

/* The value of option `found` when it is not attached to its name: the
 * next word, unless that is a long option ("--window --json"). */
static int next_word_value(cli_parser *p, int found, const char **value)
{
    const cli_option *opt = &p->options[found];
    if (p->index >= p->argc ||
        (p->argv[p->index][0] == '-' && p->argv[p->index][1] == '-' &&
         p->argv[p->index][2] != '\0')) {
        cli_usage_error(p->cmd, "option '--%s' needs a value (%s)", opt->name,
                        opt->metavar);
        return CLI_OPT_ERROR;
    }
    *value = p->argv[p->index++];
    return note_given(p, found);
}

/* The next letter of a "-xyz" word (p->bundle points at it). */
static int next_short_option(cli_parser *p, const char **value)
{
    char letter = *p->bundle++;
    if (*p->bundle == '\0')
        p->bundle = NULL;
    if (letter == 'h')
        return CLI_OPT_HELP;
    int found = find_alias(p->aliases, letter);
    if (found < 0) {
        p->bundle = NULL;
        cli_usage_error(p->cmd, "unknown option '-%c'", letter);
        return CLI_OPT_ERROR;
    }
    if (p->options[found].metavar == NULL)
        return found;
    if (p->bundle != NULL) {      /* -f2: the rest of the word */
        *value = p->bundle;
        p->bundle = NULL;
        return note_given(p, found);
    }
    return next_word_value(p, found, value);
}

static int next_long_option(cli_parser *p, const char *arg, const char **value)
{
    const char *name = arg + 2;
    const char *equals = strchr(name, '=');
    size_t name_len = equals != NULL ? (size_t)(equals - name) : strlen(name);
    int found = find_option(p->options, name, name_len);
    if (found < 0) {
        cli_usage_error(p->cmd, "unknown option '--%.*s'", (int)name_len,
                        name);
        return CLI_OPT_ERROR;
    }
    const cli_option *opt = &p->options[found];
    p->index++;

    if (opt->metavar == NULL) {
        if (equals != NULL) {
            cli_usage_error(p->cmd, "option '--%s' takes no value",
                            opt->name);
            return CLI_OPT_ERROR;
        }
        return found;
    }
    if (equals != NULL) {
        *value = equals + 1;
        return note_given(p, found);
    }
    return next_word_value(p, found, value);
}

int cli_next_option(cli_parser *p, const char **value)
{
    *value = NULL;
    if (p->bundle != NULL)
        return next_short_option(p, value);
    if (p->index >= p->argc)
        return CLI_OPT_END;

    const char *arg = p->argv[p->index];

    if (p->only_operands ||
        (p->operands && (arg[0] != '-' || arg[1] == '\0'))) {
        p->index++;
        *value = arg;
        return CLI_OPT_OPERAND;
    }
    if (strcmp(arg, "--") == 0) {
        p->index++;
        if (p->operands) {
            p->only_operands = 1;
            return cli_next_option(p, value);
        }
        if (p->index < p->argc) {
            cli_usage_error(p->cmd, "unexpected argument '%s'",
                            p->argv[p->index]);
            return CLI_OPT_ERROR;
        }
        return CLI_OPT_END;
    }
    if (strcmp(arg, "--help") == 0) {
        p->index++;
        return CLI_OPT_HELP;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
        cli_usage_error(p->cmd, "unexpected argument '%s'", arg);
        return CLI_OPT_ERROR;
    }
    if (arg[1] != '-') {
        p->index++;
        p->bundle = arg + 1;
        return next_short_option(p, value);
    }
    return next_long_option(p, arg, value);
}

void cli_print_options(FILE *out, const cli_option *options,
                       const cli_alias *aliases)
{
    /* with aliases: "-i, " before a long name, four blanks before one
     * without, so the long names line up */
    const char *no_alias = aliases != NULL && aliases[0].letter != 0 ? "    " : "";
    size_t width = strlen(no_alias) + strlen("--help");
    for (int i = 0; options[i].name != NULL; i++) {
        size_t w = strlen(no_alias) + 2 + strlen(options[i].name);
        if (options[i].metavar != NULL)
            w += 1 + strlen(options[i].metavar);
        if (w > width)
            width = w;
    }
    char spec[96], alias[8];
    for (int i = 0; options[i].name != NULL; i++) {
        char letter = letter_of(aliases, i);
        if (letter != 0)
            snprintf(alias, sizeof alias, "-%c, ", letter);
        else
            snprintf(alias, sizeof alias, "%s", no_alias);
        if (options[i].metavar != NULL)
            snprintf(spec, sizeof spec, "%s--%s %s", alias, options[i].name,
                     options[i].metavar);
        else
            snprintf(spec, sizeof spec, "%s--%s", alias, options[i].name);
        fprintf(out, "  %-*s  %s\n", (int)width, spec, options[i].help);
    }
    snprintf(spec, sizeof spec, "%s--help", *no_alias ? "-h, " : "");
    fprintf(out, "  %-*s  %s\n", (int)width, spec, "show this help");
}

/* ======================================================================
 * Strict parsing of counts, probabilities, reals, durations and
 * sizes: the syntax is the library's parameter language
 * (tdbf_parse_*), shared with the Python package and the Redis
 * module; this file adds the tool's ranges and its usage errors.
 * ====================================================================== */

int cli_scan_count(const char *text, uint64_t *out)
{
    return tdbf_parse_count(text, out, NULL, 0) == TDBF_OK ? 0 : -1;
}

int cli_parse_count(const char *cmd, const char *opt, const char *text,
                    uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t value;
    char why[200];
    if (tdbf_parse_count(text, &value, why, sizeof why) != TDBF_OK) {
        cli_usage_error(cmd, "--%s: %s", opt, why);
        return -1;
    }
    char limit[32];
    if (value == 0 && min > 0) {
        cli_usage_error(cmd, "--%s: '%s' is not a positive integer", opt, text);
        return -1;
    }
    if (value > max) {
        cli_usage_error(cmd, "--%s: '%s' is too large (at most %s)", opt, text,
                        cli_format_count(limit, sizeof limit, max));
        return -1;
    }
    if (value < min) {
        cli_usage_error(cmd, "--%s: '%s' is too small (at least %s)", opt,
                        text, cli_format_count(limit, sizeof limit, min));
        return -1;
    }
    *out = value;
    return 0;
}

/* strtod over the whole of `text` except an allowed tail; rejects leading
 * blanks (strtod would skip them), NaN and infinities.  *end gets the
 * first unparsed character.  Returns 0 or -1. */
static int scan_real(const char *text, double *out, const char **end)
{
    if (*text == '\0' || isspace((unsigned char)*text))
        return -1;
    char *stop;
    errno = 0;
    double value = strtod(text, &stop);
    if (stop == text || !isfinite(value))
        return -1;
    /* ERANGE on underflow still gives a usable (tiny or zero) value; the
     * range checks of the callers decide. */
    *out = value;
    *end = stop;
    return 0;
}

int cli_parse_probability(const char *cmd, const char *opt, const char *text,
                          double *out)
{
    char why[200];
    if (tdbf_parse_error(text, out, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
    return -1;
}

int cli_parse_real(const char *cmd, const char *opt, const char *text,
                   double min, double max, double *out)
{
    double value;
    const char *end;
    if (scan_real(text, &value, &end) != 0 || *end != '\0') {
        cli_usage_error(cmd, "--%s: '%s' is not a number", opt, text);
        return -1;
    }
    if (value < min || value > max) {
        cli_usage_error(cmd, "--%s: '%s' is out of range (%g to %g)", opt, text,
                        min, max);
        return -1;
    }
    *out = value;
    return 0;
}

int cli_parse_duration_ns(const char *cmd, const char *opt, const char *text,
                          uint64_t *out)
{
    char why[200];
    if (tdbf_parse_duration(text, out, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
    return -1;
}

int cli_parse_size(const char *cmd, const char *opt, const char *text, uint64_t *out)
{
    char why[240];
    if (tdbf_parse_size(text, out, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
    return -1;
}

int cli_parse_window(const char *cmd, const char *opt, const char *text, uint64_t *items,
                     uint64_t *ns)
{
    char why[200];
    if (tdbf_parse_window(text, items, ns, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
    return -1;
}

int cli_config_set(const char *cmd, const char *opt, tdbf_config *cfg, unsigned *given,
                   tdbf_option which, const char *text)
{
    char why[240];
    if (tdbf_config_set(cfg, given, which, text, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
    return -1;
}

int cli_parse_design(const char *cmd, const char *opt, const char *text, tdbf_design *out)
{
    tdbf_config scratch;
    unsigned given = 0;
    tdbf_config_init(&scratch);
    if (cli_config_set(cmd, opt, &scratch, &given, TDBF_OPT_DESIGN, text) != 0)
        return -1;
    *out = scratch.design;
    return 0;
}

/* ======================================================================
 * Commands and their help
 * ====================================================================== */

void cli_command_help(const cli_command *cmd, FILE *out)
{
    /* usage may hold several forms, one per line */
    const char *line = cmd->usage;
    int first = 1;
    while (line != NULL && *line != '\0') {
        const char *newline = strchr(line, '\n');
        int len = newline != NULL ? (int)(newline - line) : (int)strlen(line);
        fprintf(out, "%s %s %s %.*s\n", first ? "Usage:" : "      ",
                cli_program(), cmd->name, len, line);
        first = 0;
        line = newline != NULL ? newline + 1 : NULL;
    }
    if (first)
        fprintf(out, "Usage: %s %s\n", cli_program(), cmd->name);
    /* the summary, as a sentence */
    fprintf(out, "\n%c%s.\n", toupper((unsigned char)cmd->summary[0]),
            cmd->summary + 1);
    if (cmd->details != NULL)
        fprintf(out, "\n%s", cmd->details);
    fputs("\nOptions:\n", out);
    cli_print_options(out, cmd->options, cmd->aliases);
    fputs("\n" CLI_EXIT_STATUS_TEXT, out);
}

void cli_print_version(FILE *out)
{
    fprintf(out, "%s %s\n", cli_program(), TDBF_VERSION_STRING);
    fprintf(out, "libtdbf %s (linked), tdbf.h %s (compiled against)\n",
            tdbf_version_string(), TDBF_VERSION_STRING);
    if (tdbf_version_number() != TDBF_VERSION_NUMBER)
        fprintf(out, "warning: the linked library is not the version of the "
                "header this tool was built with\n");
}

/* ======================================================================
 * The `version` command, and the program around the commands
 * ====================================================================== */

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

static const cli_command *find_command(const cli_program_def *prog, const char *name)
{
    for (size_t i = 0; i < prog->count; i++)
        if (strcmp(prog->commands[i]->name, name) == 0)
            return prog->commands[i];
    return NULL;
}

static void print_program_help(const cli_program_def *prog, FILE *out)
{
    size_t width = strlen("help");
    for (size_t i = 0; i < prog->count; i++)
        if (strlen(prog->commands[i]->name) > width)
            width = strlen(prog->commands[i]->name);

    fprintf(out, "%s - %s\n\n"
            "Usage: %s COMMAND [OPTIONS]\n"
            "       %s help COMMAND     (or: %s COMMAND --help)\n"
            "       %s --version\n\n"
            "Commands:\n", prog->name, prog->title, prog->name, prog->name, prog->name,
            prog->name);
    for (size_t i = 0; i < prog->count; i++)
        fprintf(out, "  %-*s  %s\n", (int)width, prog->commands[i]->name,
                prog->commands[i]->summary);
    fprintf(out, "  %-*s  %s\n", (int)width, "help",
            "show the help of a command");
    if (prog->epilogue != NULL)
        fprintf(out, "\n%s", prog->epilogue);
    fputs("\nOptions take a value as '--opt VALUE' or '--opt=VALUE'.  Counts "
          "accept k, M, G\n(x1000) and Ki, Mi, Gi (x1024) suffixes.\n\n"
          CLI_EXIT_STATUS_TEXT, out);
}

/* `PROGRAM help [COMMAND]`. */
static int run_help(const cli_program_def *prog, int argc, char **argv)
{
    if (argc > 3)
        return cli_usage_error("help", "expected one command name, got %d", argc - 2);
    if (argc == 2 || strcmp(argv[2], "help") == 0) {
        print_program_help(prog, stdout);
        return CLI_EXIT_OK;
    }
    const cli_command *cmd = find_command(prog, argv[2]);
    if (cmd == NULL)
        return cli_usage_error(NULL, "help: unknown command '%s'", argv[2]);
    cli_command_help(cmd, stdout);
    return CLI_EXIT_OK;
}

int cli_main(const cli_program_def *prog, int argc, char **argv)
{
    cli_set_program(prog->name);
    if (argc < 2) {
        print_program_help(prog, stderr);
        return CLI_EXIT_USAGE;
    }
    const char *first = argv[1];

    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_program_help(prog, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        cli_print_version(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "help") == 0)
        return run_help(prog, argc, argv);
    if (first[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s'", first);

    const cli_command *cmd = find_command(prog, first);
    if (cmd == NULL) {
        const char *elsewhere = prog->elsewhere != NULL ? prog->elsewhere(first) : NULL;
        if (elsewhere != NULL)
            return cli_usage_error(NULL, "unknown command '%s' (%s)", first, elsewhere);
        return cli_usage_error(NULL, "unknown command '%s'", first);
    }

    default_signal_exits();
    int status = cmd->run(cmd, argc - 1, argv + 1);
    if (fflush(stdout) != 0 && status == CLI_EXIT_OK)
        return cli_io_error(cmd->name, "cannot write the output");
    return status;
}
