/*
 * dedup_parse.h — the pure parts of `tdbf dedup`: its options, and how a
 * line becomes a key and a time.
 *
 * Nothing here reads files, clocks or signals, so the fuzz target
 * tests/fuzz/fuzz_cli.c links this file (with dedup_time.c, which reads
 * the timestamps, and the common/ helpers it calls) and drives it with
 * arbitrary command lines and lines, without running the command.
 */
#ifndef TDBF_CLI_DEDUP_PARSE_H
#define TDBF_CLI_DEDUP_PARSE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include <tdbf.h>

#include "common/cmdline.h"
#include "dedup_time.h"

/* ======================================================================
 * Options
 * ====================================================================== */

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

/* Most fields in one --field or --time-field list. */
#define DEDUP_MAX_FIELDS 16u

/* Longest time text (fields joined) that is parsed; a longer one is a
 * bad time (no timestamp is that long). */
#define DEDUP_TIME_TEXT_MAX 256u

/* A --field or --time-field list: "2", "2,5", "1-3".  Distinct fields, in
 * the order given (a key or a time joins them in that order). */
typedef struct dedup_fields {
    unsigned count;                     /* 0: none given */
    unsigned index[DEDUP_MAX_FIELDS];   /* 1-based */
} dedup_fields;

/* Everything the command line says.  A field of 0 means "not given". */
typedef struct dedup_args {
    /* the filter: the options below as the parameter language read them
     * (tdbf_config_set), then copied to the named fields */
    tdbf_config  params;
    unsigned     params_given;   /* tdbf_option bits */
    uint64_t     window_ns;      /* --window T: time window */
    uint64_t     window_items;   /* --last N or --window N: count window */
    double       error;          /* --error, 0 = not given */
    int          design_given;   /* --design */
    tdbf_design  design;
    uint64_t     capacity;       /* --capacity: keys per time window, hint */
    uint64_t     seed;           /* --seed, 0 = not given */
    const char  *seed_file;      /* --seed-file */
    /* the key */
    unsigned     field;          /* the first of `fields`; 0 = the whole line */
    dedup_fields fields;         /* --field list */
    int          delimiter;      /* --delimiter byte, or DEDUP_BLANKS */
    int          delimiter_given;
    int          has_regex;      /* --key-regex compiled into `regex` */
    regex_t      regex;
    int          ignore_case;    /* --ignore-case: keys fold ASCII letters */
    /* the time */
    unsigned     time_field;     /* the first of `time_fields`; 0 = arrival */
    dedup_fields time_fields;    /* --time-field list */
    dedup_time_format time_format;
    const char  *time_pattern;   /* DEDUP_TIME_PATTERN: the pattern */
    int          time_needs_year;/* the pattern has no %Y (nor %s) */
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
    char        *adopted;        /* the regex and pattern taken from a state
                                    (dedup_args_adopt_keyspec), owned */
    uint64_t     max_memory;     /* --max-memory, bytes; 0 = the library's 4 GiB */
    /* persistence */
    const char  *state_path;     /* --state */
    unsigned char *kept_sections;/* sections of other tags read from the
                                    state, saved again after the key
                                    section at every save; owned */
    size_t       kept_len;
    uint64_t     checkpoint_ns;  /* --checkpoint, 0 = only at exit */
    /* operands: input files ("-" = standard input); none = stdin */
    char       **files;          /* points into argv */
    size_t       n_files;
} dedup_args;

/* What a run asked for: the key and time of a line, and the window (a
 * state file keeps it: dedup_state.h).  Strings are owned by whoever
 * filled the spec. */
typedef struct dedup_keyspec {
    uint64_t     window_items;  /* --last */
    uint64_t     window_ns;     /* --window */
    unsigned     field;         /* the first of key_fields (0: none) */
    dedup_fields key_fields;
    int          delimiter;     /* a byte, or DEDUP_BLANKS */
    unsigned     time_field;    /* the first of time_fields (0: arrival) */
    dedup_fields time_fields;
    unsigned     time_format;   /* dedup_time_format */
    const char  *time_pattern;  /* DEDUP_TIME_PATTERN: the pattern, else NULL */
    int          ignore_case;   /* --ignore-case */
    const char  *regex;         /* NULL: none */
} dedup_keyspec;

/* The option table of `tdbf dedup` (NULL-terminated), and its one-letter
 * aliases: -i --ignore-case, -c --count, -v --invert. */
extern const cli_option dedup_options[];
extern const cli_alias dedup_aliases[];

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
 * --delimiter, --key-regex, --ignore-case, --time-field, --time-format),
 * else 0. */
int dedup_args_name_keys(const dedup_args *a);

/* Take the key and time options of `spec` (a resumed state's) in place
 * of *a's, compiling its regex; *a keeps copies of its strings.  Returns
 * 0, or -1 after an error message (a regex this regex library refuses, a
 * time pattern this tdbf does not read, no memory). */
int dedup_args_adopt_keyspec(dedup_args *a, const dedup_keyspec *spec);


/* A field list as --field takes it ("2,5"), into buf. */
void dedup_fields_format(const dedup_fields *fields, char *buf, size_t size);


/* 1 if the times of *a need a reference time to be read (a pattern
 * without a year: dedup_line_time), else 0. */
int dedup_time_needs_reference(const dedup_args *a);

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

/* The key of a line (its bytes without the newline): field a->field, the
 * fields of a->fields joined by the delimiter (a blank for DEDUP_BLANKS:
 * no field contains it, so the join is unambiguous), or the first capture
 * group of a->regex (the whole match if the regex has no group or the
 * group did not take part), or else the whole line: a line without one
 * of those fields, with an empty one, that the regex does not match or
 * where it captures nothing, is keyed by all of it (an empty key would
 * make all such lines one).  With a->ignore_case the key's ASCII letters
 * are folded to lower case.  line[len] must be writable: the regex
 * matcher puts a NUL there for a moment and restores it.  scratch holds
 * at least len bytes; a key is either in the line or at the start of
 * scratch, so a caller that keeps several keys at once gives each line
 * its own scratch (e.g. at the line's offset in a buffer as big as the
 * one it reads into).  Allocates nothing. */
void dedup_line_key(const dedup_args *a, char *line, size_t len, char *scratch,
                    const char **key, size_t *key_len);

/* The time of a line from the fields a->time_fields (joined by one
 * blank) in a->time_format, in ns since 1970-01-01 UTC.  reference_ns
 * (the wall clock, in ns since 1970) dates a pattern without a year:
 * dedup_parse_time_pattern.  Returns 0, or -1 if a field is missing and
 * -2 if the time does not parse (nothing is stored). */
int dedup_line_time(const dedup_args *a, const char *line, size_t len,
                    uint64_t reference_ns, uint64_t *ns);

/* A time more than a->max_skew_ns ahead of the clock: the run's own
 * verdict on a time dedup_line_time read (it has no clock). */
#define DEDUP_TIME_AHEAD (-3)

/* Why a line's time was refused -- `why` is dedup_line_time's -1 or -2,
 * or DEDUP_TIME_AHEAD -- for a message: "no field 3 (the time)", "time
 * field 1 '2025-06-24' is not iso8601", "time field 1
 * '2099-01-01T00:00:00Z' is more than 24 h ahead of the clock
 * (--max-skew)" (the text quoted, unprintable bytes as '?'). */
void dedup_bad_time_message(const dedup_args *a, const char *line, size_t len,
                            int why, char *buf, size_t size);


/* The contents of a --seed-file: a number (as --seed reads it, surrounding
 * blanks and newlines ignored), or exactly 8 raw bytes read as a
 * little-endian integer (head -c 8 /dev/urandom).  Returns 0 and sets
 * *seed, or -1 if it is neither or is 0. */
int dedup_parse_seed(const unsigned char *data, size_t len, uint64_t *seed);

#endif /* TDBF_CLI_DEDUP_PARSE_H */
