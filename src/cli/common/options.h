/*
 * options.h — the option parser of every subcommand (the tdbf command-line
 * tool): long options (--field 2, --field=2), and one-letter aliases for
 * some of them (-i, bundled flags -ic, -f2 or -f 2 for a value).
 */
#ifndef TDBF_CLI_COMMON_OPTIONS_H
#define TDBF_CLI_COMMON_OPTIONS_H

#include <stdio.h>

/* ======================================================================
 * Option parser
 * ====================================================================== */

/* One option of a subcommand.  A NULL-name entry ends a table. */
typedef struct cli_option {
    const char *name;     /* long name without the dashes: "window" */
    const char *metavar;  /* value placeholder ("N"), or NULL for a flag */
    const char *help;     /* one line for `tdbf CMD --help` */
} cli_option;

/* A one-letter alias of an option ('i' for -i).  A table of them sits
 * beside the option table (so option tables keep their three members);
 * a zero letter ends it.  Never 'h': -h is always --help. */
typedef struct cli_alias {
    char letter;
    int  option;          /* its index in the option table */
} cli_alias;

/* Options per table whose repetition the parser can tell (a table may be
 * longer; the options past this many are not checked). */
#define CLI_OPTIONS_TRACKED 64

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
    const cli_alias  *aliases;  /* set after init for one-letter options;
                                   default NULL: none */
    const char       *bundle;   /* the rest of "-ic" after -i, or NULL */
    unsigned char     given[CLI_OPTIONS_TRACKED]; /* options with a value seen */
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
 * options, missing or unexpected values, an option with a value given
 * twice ("--field given twice": keeping the last would hide a mistake)
 * and positional arguments are reported on stderr (CLI_OPT_ERROR),
 * except that with p->operands set a word that is not an option ("-"
 * included) is returned as CLI_OPT_OPERAND, in order.  "--" ends the
 * options (what follows is operands, or an error without p->operands).
 * A word "-xyz" is short options: flags may be bundled, and one that
 * takes a value takes the rest of the word or else the next word. */
int cli_next_option(cli_parser *p, const char **value);

/* Print "  --name VALUE   help" lines for an option table ("  -i, --name"
 * where `aliases` (may be NULL) gives an option a letter; the long names
 * stay aligned). */
void cli_print_options(FILE *out, const cli_option *options,
                       const cli_alias *aliases);

#endif /* TDBF_CLI_COMMON_OPTIONS_H */
