/*
 * options.h — the long-option parser of every subcommand (the tdbf command-line tool).
 */
#ifndef TDBF_CLI_COMMON_OPTIONS_H
#define TDBF_CLI_COMMON_OPTIONS_H

#include <stdio.h>

/* ======================================================================
 * Long-option parser
 * ====================================================================== */

/* One option of a subcommand.  A NULL-name entry ends a table. */
typedef struct cli_option {
    const char *name;     /* long name without the dashes: "window" */
    const char *metavar;  /* value placeholder ("N"), or NULL for a flag */
    const char *help;     /* one line for `tdbf CMD --help` */
} cli_option;

/* Parser state: initialise with cli_parser_init, then call cli_next_option
 * until it returns CLI_OPT_END.  argv[0] is the subcommand name and is
 * skipped. */
typedef struct cli_parser {
    const char       *cmd;      /* subcommand name for messages */
    const cli_option *options;  /* NULL-terminated table */
    int               argc;
    char            **argv;
    int               index;    /* next argv element to look at */
    int               operands; /* set after init to accept operands
                                   (file names, "-"); default 0: error */
    int               only_operands; /* past "--": no more options */
} cli_parser;

enum {
    CLI_OPT_END   = -1,  /* no more options */
    CLI_OPT_HELP  = -2,  /* --help or -h was given */
    CLI_OPT_ERROR = -3,  /* a usage error was already printed */
    CLI_OPT_OPERAND = -4 /* an operand (p->operands set): *value is it */
};

void cli_parser_init(cli_parser *p, const char *cmd, const cli_option *options,
                     int argc, char **argv);

/* Return the index in p->options of the next option and set *value to its
 * argument (NULL for flags), or one of the CLI_OPT_* codes.  Unknown
 * options, missing or unexpected values and positional arguments are
 * reported on stderr (CLI_OPT_ERROR), except that with p->operands set
 * a word that is not an option ("-" included) is returned as
 * CLI_OPT_OPERAND, in order.  "--" ends the options (what follows is
 * operands, or an error without p->operands). */
int cli_next_option(cli_parser *p, const char **value);

/* Print "  --name VALUE   help" lines for an option table. */
void cli_print_options(FILE *out, const cli_option *options);

#endif /* TDBF_CLI_COMMON_OPTIONS_H */
