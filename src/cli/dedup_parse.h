/*
 * dedup_parse.h — the pure parts of `tdbf dedup`: its options, and how a
 * line becomes a key and a time.
 *
 * Nothing here reads files, clocks or signals, so the fuzz target
 * tests/fuzz/fuzz_cli.c links this file (and the common/ helpers it calls) and drives it with
 * arbitrary command lines and lines, without running the command.
 */
#ifndef TDBF_CLI_DEDUP_PARSE_H
#define TDBF_CLI_DEDUP_PARSE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include <tdbf.h>

#include "common/options.h"

/* ======================================================================
 * Options
 * ====================================================================== */

/* Where a line's time comes from. */
typedef enum dedup_time_format {
    DEDUP_TIME_ARRIVAL = 0,  /* the clock when the line was read */
    DEDUP_TIME_UNIX,         /* seconds since 1970, fraction allowed */
    DEDUP_TIME_UNIX_MS,      /* milliseconds since 1970, fraction allowed */
    DEDUP_TIME_UNIX_US,      /* microseconds since 1970, fraction allowed */
    DEDUP_TIME_UNIX_NS,      /* nanoseconds since 1970, an integer */
    DEDUP_TIME_ISO8601       /* 2024-05-01T12:00:00.5Z, offsets, UTC default */
} dedup_time_format;

/* A field delimiter meaning "runs of blanks (space, tab)", as awk does. */
#define DEDUP_BLANKS (-1)

/* --max-skew by default: one day.  Wider than any honest skew between
 * the clock that stamped a log and this machine's (a local time written
 * without its offset is at most 14 h off), so a good line is not
 * refused; narrow enough to refuse a garbage stamp (2099-01-01) before it
 * moves the filter's clock: time never goes back (the library clamps it),
 * so every later line would be taken at 2099, the window would stop
 * moving, and a key would be dropped forever after its first line. */
#define DEDUP_DEFAULT_MAX_SKEW_NS (UINT64_C(86400) * UINT64_C(1000000000))

/* Largest accepted --field / --time-field. */
#define DEDUP_MAX_FIELD 1000000u

/* Everything the command line says.  A field of 0 means "not given". */
typedef struct dedup_args {
    /* the filter */
    uint64_t     window_ns;      /* --window: time window */
    uint64_t     window_items;   /* --last: count window */
    double       error;          /* --error, 0 = not given */
    int          design_given;   /* --design */
    tdbf_design  design;
    uint64_t     capacity;       /* --capacity: keys per time window, hint */
    uint64_t     seed;           /* --seed, 0 = not given */
    const char  *seed_file;      /* --seed-file */
    /* the key */
    unsigned     field;          /* --field, 1-based; 0 = the whole line */
    int          delimiter;      /* --delimiter byte, or DEDUP_BLANKS */
    int          delimiter_given;
    int          has_regex;      /* --key-regex compiled into `regex` */
    regex_t      regex;
    /* the time */
    unsigned     time_field;     /* --time-field, 1-based; 0 = arrival */
    dedup_time_format time_format;
    int          time_format_given;
    int          skip_bad;       /* --skip-bad: pass bad lines through */
    int          drop_bad;       /* --drop-bad: drop bad lines */
    uint64_t     max_skew_ns;    /* --max-skew; 0 = off ("off") */
    int          max_skew_given;
    /* the output */
    int          invert;         /* --invert: print the repeats only */
    int          count;          /* --count: print all, prefixed 0/1 */
    int          stats;          /* --stats */
    int          quiet;          /* --quiet: no progress line */
    int          line_buffered;  /* --line-buffered: flush after each line */
    char         terminator;     /* '\n', or '\0' with --null-data */
    const char  *key_regex;      /* --key-regex as given (argv), or NULL */
    uint64_t     max_memory;     /* --max-memory, bytes; 0 = the library's 4 GiB */
    /* persistence */
    const char  *state_path;     /* --state */
    uint64_t     checkpoint_ns;  /* --checkpoint, 0 = only at exit */
    /* operands: input files ("-" = standard input); none = stdin */
    char       **files;          /* points into argv */
    size_t       n_files;
} dedup_args;

/* What a run asked for: the key and time of a line, and the window (a
 * state file keeps it: dedup_state.h). */
typedef struct dedup_keyspec {
    uint64_t    window_items;  /* --last */
    uint64_t    window_ns;     /* --window */
    unsigned    field;
    int         delimiter;     /* a byte, or DEDUP_BLANKS */
    unsigned    time_field;
    unsigned    time_format;   /* dedup_time_format */
    const char *regex;         /* NULL: none; owned by whoever filled it */
} dedup_keyspec;

/* The option table of `tdbf dedup` (NULL-terminated). */
extern const cli_option dedup_options[];

/* Parse `tdbf dedup` arguments (argv[0] is "dedup").  Returns 0 on
 * success, CLI_OPT_HELP if --help was asked, or CLI_OPT_ERROR after
 * printing a usage error ("tdbf dedup: ...").  Checks everything that
 * does not need the file system: conflicting options, the regex.  On
 * success the caller owns *a and releases it with dedup_args_free; on
 * failure nothing is held.  a->files points into argv. */
int dedup_parse_args(dedup_args *a, int argc, char **argv);

/* Release what dedup_parse_args allocated (the compiled regex, the file
 * list).  Accepts a zeroed or already released *a. */
void dedup_args_free(dedup_args *a);

/* The spec of *a (regex points into argv). */
void dedup_args_keyspec(const dedup_args *a, dedup_keyspec *out);

/* 1 if the command line says anything about keys or times (--field,
 * --delimiter, --key-regex, --time-field, --time-format), else 0. */
int dedup_args_name_keys(const dedup_args *a);

/* Take the key and time options of `spec` (a resumed state's) in place
 * of *a's, compiling its regex.  Returns 0, or -1 after an error message
 * (a pattern this regex library refuses). */
int dedup_args_adopt_keyspec(dedup_args *a, const dedup_keyspec *spec);

/* Name of a time format as --time-format spells it ("unix_ms"). */
const char *dedup_time_format_name(dedup_time_format format);

/* ======================================================================
 * Lines
 * ====================================================================== */

/* Find field `index` (1-based) of line[0 .. len).  With DEDUP_BLANKS,
 * fields are separated by runs of spaces and tabs and leading blanks are
 * ignored (awk's default); with a delimiter byte every occurrence
 * separates two fields (so fields may be empty).  Returns 1 and sets
 * *start, *field_len, or 0 if the line has fewer fields. */
int dedup_field(const char *line, size_t len, int delimiter, unsigned index,
                const char **start, size_t *field_len);

/* The key of a line (its bytes without the newline): field a->field, or
 * the first capture group of a->regex (the whole match if the regex has
 * no group or the group did not take part), or else the whole line -- a
 * line without that field, or that the regex does not match, is keyed by
 * all of it.  line[len] must be writable: the regex matcher puts a NUL
 * there for a moment and restores it.  The key points into the line. */
void dedup_line_key(const dedup_args *a, char *line, size_t len,
                    const char **key, size_t *key_len);

/* The time of a line from field a->time_field in a->time_format, in ns
 * since 1970-01-01 UTC.  Returns 0, or -1 if the field is missing and -2
 * if it does not parse (nothing is stored). */
int dedup_line_time(const dedup_args *a, const char *line, size_t len,
                    uint64_t *ns);

/* Parse one timestamp text[0 .. len) in `format` (not ARRIVAL).  Blanks
 * and a carriage return around it are ignored.  Returns 0 and sets *ns,
 * or -1 (malformed, before 1970, or past the year 2554 where uint64 ns
 * end). */
int dedup_parse_time(dedup_time_format format, const char *text, size_t len,
                     uint64_t *ns);

/* The contents of a --seed-file: a number (as --seed reads it, surrounding
 * blanks and newlines ignored), or exactly 8 raw bytes read as a
 * little-endian integer (head -c 8 /dev/urandom).  Returns 0 and sets
 * *seed, or -1 if it is neither or is 0. */
int dedup_parse_seed(const unsigned char *data, size_t len, uint64_t *seed);

#endif /* TDBF_CLI_DEDUP_PARSE_H */
