/*
 * options.c — the long-option parser of every subcommand (see options.h).
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

int cli_next_option(cli_parser *p, const char **value)
{
    *value = NULL;
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
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        p->index++;
        return CLI_OPT_HELP;
    }
    if (arg[0] != '-' || arg[1] == '\0') {
        cli_usage_error(p->cmd, "unexpected argument '%s'", arg);
        return CLI_OPT_ERROR;
    }
    if (arg[1] != '-') {
        cli_usage_error(p->cmd, "unknown option '%s'", arg);
        return CLI_OPT_ERROR;
    }

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
        return found;
    }
    /* "--window --json": the next word is an option, not a value. */
    if (p->index >= p->argc ||
        (p->argv[p->index][0] == '-' && p->argv[p->index][1] == '-' &&
         p->argv[p->index][2] != '\0')) {
        cli_usage_error(p->cmd, "option '--%s' needs a value (%s)", opt->name,
                        opt->metavar);
        return CLI_OPT_ERROR;
    }
    *value = p->argv[p->index++];
    return found;
}

void cli_print_options(FILE *out, const cli_option *options)
{
    size_t width = strlen("--help");
    for (int i = 0; options[i].name != NULL; i++) {
        size_t w = 2 + strlen(options[i].name);
        if (options[i].metavar != NULL)
            w += 1 + strlen(options[i].metavar);
        if (w > width)
            width = w;
    }
    char spec[96];
    for (int i = 0; options[i].name != NULL; i++) {
        if (options[i].metavar != NULL)
            snprintf(spec, sizeof spec, "--%s %s", options[i].name,
                     options[i].metavar);
        else
            snprintf(spec, sizeof spec, "--%s", options[i].name);
        fprintf(out, "  %-*s  %s\n", (int)width, spec, options[i].help);
    }
    fprintf(out, "  %-*s  %s\n", (int)width, "--help", "show this help");
}
