/*
 * options.c — the option parser of every subcommand (see options.h).
 */
#include "options.h"
#include "diag.h"

#include <stdio.h>
#include <string.h>

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
