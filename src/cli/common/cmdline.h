/*
 * cmdline.h — the command line of every tdbf command: the option parser
 * (long options, one-letter aliases), strict parsing of counts,
 * probabilities, durations, sizes and designs, the command
 * descriptor with its help text, and cli_main: the program around a
 * table of commands (tdbf's, tdbf-lab's).
 */
#ifndef TDBF_CLI_COMMON_CMDLINE_H
#define TDBF_CLI_COMMON_CMDLINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tdbf.h>

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

/* ======================================================================
 * Number parsing.  Each function prints a usage error naming the option
 * ("tdbf plan: --window: '12x' is not a positive integer") and returns -1,
 * or stores the value and returns 0.
 * ====================================================================== */

/* An unsigned integer in [min, max] with an optional suffix: k, M, G, T
 * (powers of 1000) or Ki, Mi, Gi, Ti (powers of 1024), or a power-of-ten
 * exponent ("1e6").  Digits may be grouped with '_' ("1_000_000").
 * Hexadecimal "0x..." is accepted without suffix. */
int cli_parse_count(const char *cmd, const char *opt, const char *text,
                    uint64_t min, uint64_t max, uint64_t *out);

/* The same syntax, silently (for text that must not be echoed, such as a
 * secret): returns 0 and stores the value, or -1 (malformed or too
 * large). */
int cli_scan_count(const char *text, uint64_t *out);

/* A probability strictly between 0 and 1: "0.001", "1e-3" or "0.1%". */
int cli_parse_probability(const char *cmd, const char *opt, const char *text,
                          double *out);

/* A finite real number in [min, max]. */
int cli_parse_real(const char *cmd, const char *opt, const char *text,
                   double min, double max, double *out);

/* A positive duration in nanoseconds: a number (decimals and exponents
 * allowed) followed by one of ns, us, ms, s, m, h, d.  A bare number is
 * rejected: the unit must be explicit.  At most 2^64 - 1 ns (213503 d);
 * a longer one, with or without a unit, is "too long" with that maximum. */
int cli_parse_duration_ns(const char *cmd, const char *opt, const char *text,
                          uint64_t *out);

/* A size in bytes, at least 1: a number (decimals and exponents allowed)
 * with an optional suffix K, M, G, T (powers of 1024; also KiB, MiB, ...)
 * or kB, MB, GB, TB (powers of 1000): "512M", "4G", "1.5GiB". */
int cli_parse_size(const char *cmd, const char *opt, const char *text, uint64_t *out);

/* A window: a count of insertions ("1M") or a duration ("10m"); exactly
 * one of *items and *ns becomes nonzero. */
int cli_parse_window(const char *cmd, const char *opt, const char *text, uint64_t *items,
                     uint64_t *ns);

/* Set option `which` of cfg from text, as the library's parameter
 * language reads it (tdbf_config_set: the same values and refusals as the
 * Python package and the Redis module); `opt` is the tool's spelling
 * for the usage error.  *given collects the options set: a second
 * option setting the same field is "given twice". */
int cli_config_set(const char *cmd, const char *opt, tdbf_config *cfg, unsigned *given,
                   tdbf_option which, const char *text);

/* A design name as every front reads it (any case, '_' or '-'). */
int cli_parse_design(const char *cmd, const char *opt, const char *text, tdbf_design *out);

/* ======================================================================
 * Commands: what `tdbf NAME` (or a lab program's NAME) runs, and its help
 * ====================================================================== */

typedef struct cli_command {
    const char       *name;     /* "plan" */
    const char       *summary;  /* one line for `tdbf --help` */
    const char       *usage;    /* arguments after "tdbf NAME ": "--error E ..." */
    const char       *details;  /* paragraph(s) for `tdbf help NAME`, or NULL */
    const cli_option *options;  /* NULL-terminated; --help is implicit */
    const cli_alias  *aliases;  /* one-letter options (-i), or NULL */
    /* Run with argv[0] == name.  Returns a CLI_EXIT_* code. */
    int (*run)(const struct cli_command *self, int argc, char **argv);
} cli_command;

/* Print the full help of a command (usage, details, options) on `out`. */
void cli_command_help(const cli_command *cmd, FILE *out);

/* Print both the linked library's and the header's version. */
void cli_print_version(FILE *out);

/* The `version` command every program has. */
extern const cli_command cli_cmd_version;

/* A program made of commands: tdbf, and the lab's tdbf-lab. */
typedef struct cli_program_def {
    const char *name;                   /* "tdbf": usage lines, messages */
    const char *title;                  /* what it is, after "NAME - " */
    const char *epilogue;               /* a paragraph after the commands, or NULL */
    const cli_command *const *commands; /* the dispatch table */
    size_t count;
    /* For a name that is no command here, where it is instead (a phrase
     * for the usage error), or NULL; the hook may be NULL. */
    const char *(*elsewhere)(const char *name);
} cli_program_def;

/* The whole program: top-level help (--help, -h, help [COMMAND]),
 * --version (-V), then the command named by argv[1] with argv + 1, under
 * signal handlers that end with 128 + the signal (SIGINT, SIGTERM, unless
 * ignored), and a failed final flush of stdout as an I/O error.  Returns
 * the exit status. */
int cli_main(const cli_program_def *prog, int argc, char **argv);

#endif /* TDBF_CLI_COMMON_CMDLINE_H */
