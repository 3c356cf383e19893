/*
 * util.h — shared helpers of the tdbf command-line tool.
 *
 * Everything a subcommand needs besides the library itself:
 *   - diagnostics: one line on stderr prefixed "tdbf CMD:", exit codes
 *   - a long-option parser ("--opt value" and "--opt=value")
 *   - strict number parsing with suffixes (counts k/M/G, durations ns..h)
 *   - number formatting (thousands separators, human-readable bytes and
 *     durations)
 *   - a tiny one-line JSON writer
 *   - a monotonic clock
 *   - aligned text tables
 *
 * The CLI sees the library only through <tdbf.h>, like any other user.
 */
#ifndef TDBF_CLI_UTIL_H
#define TDBF_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__)
#define CLI_PRINTF(fmt_index, first_arg) \
    __attribute__((format(printf, fmt_index, first_arg)))
#else
#define CLI_PRINTF(fmt_index, first_arg)
#endif

/* ======================================================================
 * Exit codes and diagnostics
 * ====================================================================== */

/* One convention for every subcommand (CLI_EXIT_STATUS_TEXT says it in
 * each --help). */
enum {
    CLI_EXIT_OK     = 0,   /* success */
    CLI_EXIT_DATA   = 1,   /* bad input data (a malformed line, a corrupt or
                              mismatched state file), or the run itself
                              failed (out of memory, a check that failed) */
    CLI_EXIT_USAGE  = 2,   /* bad or conflicting options, including a
                              filter they ask for that cannot be built */
    CLI_EXIT_IO     = 3,   /* a file cannot be opened, read or written */
    CLI_EXIT_SIGNAL = 128  /* + the signal number: 130 SIGINT, 143 SIGTERM */
};

/* The paragraph every help ends with. */
#define CLI_EXIT_STATUS_TEXT \
    "Exit status: 0 success; 1 bad input data (a malformed line, a corrupt or\n" \
    "mismatched state file) or a failed run (out of memory, a failed check);\n" \
    "2 usage error (bad or conflicting options); 3 I/O error (a file cannot\n" \
    "be opened, read or written); 130 / 143 interrupted by SIGINT / SIGTERM\n" \
    "(tdbf dedup saves its --state first).\n"

/* Print "tdbf CMD: message" on stderr and return CLI_EXIT_DATA. */
int cli_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* The same for a file that cannot be opened, read or written: returns
 * CLI_EXIT_IO. */
int cli_io_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Print "tdbf CMD: message" and the hint "Try 'tdbf CMD --help'." on
 * stderr and return CLI_EXIT_USAGE.  cmd NULL means the top level. */
int cli_usage_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Report a library return code: "tdbf CMD: WHAT: <tdbf_strerror(code)>"
 * and return the exit code of its kind: CLI_EXIT_IO for TDBF_EIO,
 * CLI_EXIT_DATA for corrupt data and out of memory, CLI_EXIT_USAGE for
 * the rest (a design, window, error rate or size the options asked for
 * that the library refuses). */
int cli_lib_error(const char *cmd, const char *what, int code);

/* The exit code cli_lib_error uses for a library return code. */
int cli_exit_code(int code);

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
 * secret): returns 0 and stores the value, -1 if malformed, -2 on
 * overflow. */
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

/* ======================================================================
 * Formatting
 * ====================================================================== */

/* "3,000,000".  Returns buf. */
char *cli_format_count(char *buf, size_t size, uint64_t value);

/* "1.71 MiB", "512 B".  Returns buf. */
char *cli_format_bytes(char *buf, size_t size, uint64_t bytes);

/* A duration in the units cli_parse_duration_ns reads, three significant
 * digits: "750 ns", "1.33 s", "60 s", "25 m" (minutes from 10 m on, hours
 * from 10 h on).  Returns buf. */
char *cli_format_duration_ns(char *buf, size_t size, uint64_t ns);

/* ======================================================================
 * JSON writer: compact output, one value per call, commas handled.
 * Doubles are printed with %.10g; NaN and infinities become null.
 * ====================================================================== */

#define CLI_JSON_MAX_DEPTH 16

typedef struct cli_json {
    FILE    *out;
    int      depth;
    unsigned char has_items[CLI_JSON_MAX_DEPTH];  /* a comma is needed */
} cli_json;

void cli_json_init(cli_json *j, FILE *out);
/* key is the member name inside an object, NULL inside an array or at the
 * top level. */
void cli_json_object_begin(cli_json *j, const char *key);
void cli_json_object_end(cli_json *j);
void cli_json_array_begin(cli_json *j, const char *key);
void cli_json_array_end(cli_json *j);
void cli_json_u64(cli_json *j, const char *key, uint64_t value);
void cli_json_i64(cli_json *j, const char *key, int64_t value);
void cli_json_double(cli_json *j, const char *key, double value);
void cli_json_bool(cli_json *j, const char *key, int value);
void cli_json_string(cli_json *j, const char *key, const char *value);

/* ======================================================================
 * Clock
 * ====================================================================== */

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t cli_now_ns(void);

/* Timings of a measurement cut into chunks of operations (the clock is
 * read once per chunk).  Reported as the median ns/op over the chunks: on
 * a shared machine a chunk that lost a time slice to another process (a
 * few ms) is an outlier the median ignores, where the mean would absorb
 * it.  Start zeroed ({0}); reset between measurements keeps the memory. */
typedef struct cli_chunk_times {
    double *ns_per_op;       /* one entry per chunk */
    size_t  count, capacity;
} cli_chunk_times;

/* Record a chunk of `ops` operations (>= 1) that took `elapsed_ns`.
 * Returns 0, or -1 when out of memory. */
int cli_chunk_times_add(cli_chunk_times *t, uint64_t elapsed_ns, uint64_t ops);
/* The median ns/op over the chunks recorded (sorts them); NaN if none. */
double cli_chunk_times_median(cli_chunk_times *t);
/* Forget the chunks recorded (the memory is kept for the next). */
void cli_chunk_times_reset(cli_chunk_times *t);
void cli_chunk_times_free(cli_chunk_times *t);

/* ======================================================================
 * Progress line: one line on stderr, redrawn in place ("\r", then
 * clear to the end of the line), for commands that run for a while.
 * Callers draw it only when stderr is a terminal and not --quiet.
 * ====================================================================== */

/* How often a command redraws its line, at most. */
#define CLI_PROGRESS_PERIOD_NS UINT64_C(500000000)

/* Draw "tdbf COMMAND: " and the formatted text over the current line. */
void cli_progress(const char *command, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Erase the line (before the command prints its results). */
void cli_progress_clear(void);

/* ======================================================================
 * Pseudo-random numbers for generated workloads (not for secrets)
 * ====================================================================== */

/* MurmurHash3's 64-bit finalizer: a bijective scramble of x. */
uint64_t cli_mix64(uint64_t x);
/* The next number of the sequence *state: adds the golden-ratio increment
 * 0x9e3779b97f4a7c15 to *state and returns it scrambled by cli_mix64.
 * Any seed, 0 included, gives a full-period sequence. */
uint64_t cli_rng_next(uint64_t *state);

/* ======================================================================
 * Tables: collect cells, then print with each column padded to its widest
 * cell.  Columns are right-aligned unless their align letter is 'l'.
 * ====================================================================== */

#define CLI_TABLE_MAX_COLS 16
#define CLI_TABLE_CELL     96

typedef struct cli_table {
    size_t  cols;
    char    align[CLI_TABLE_MAX_COLS];
    size_t  rows;            /* rows stored, header included */
    size_t  capacity;        /* rows allocated */
    size_t  filled;          /* cells filled in the last row */
    char  (*cells)[CLI_TABLE_CELL];
    int     failed;          /* an allocation failed: print refuses */
} cli_table;

/* Set up a table with `cols` columns (at most CLI_TABLE_MAX_COLS); align
 * is a string of 'l'/'r', one per column (NULL: all right-aligned but the
 * first). */
void cli_table_init(cli_table *t, size_t cols, const char *align);
/* Append one cell (printf format) to the current row; a new row starts
 * once the previous one has `cols` cells.  Long cells are truncated. */
void cli_table_cell(cli_table *t, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Print every row, each prefixed by `indent`, columns separated by two
 * spaces; a dashed rule follows the first row if `header_rule`.
 * Returns 0, or -1 if an allocation had failed (nothing printed). */
int cli_table_print(const cli_table *t, FILE *out, const char *indent,
                    int header_rule);
void cli_table_free(cli_table *t);

#endif /* TDBF_CLI_UTIL_H */
