/*
 * dedup_parse.c — options of `tdbf dedup`, and keys and times of lines
 * (see dedup_parse.h).  Pure functions: no I/O besides usage errors on
 * stderr, no clock, no global state.
 */
#define _POSIX_C_SOURCE 200809L

#include "dedup_parse.h"
#include "common/diag.h"
#include "common/output.h"
#include "common/cmdline.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Options
 * ====================================================================== */

enum {
    OPT_WINDOW,
    OPT_LAST,
    OPT_ERROR,
    OPT_DESIGN,
    OPT_CAPACITY,
    OPT_FIELD,
    OPT_DELIMITER,
    OPT_KEY_REGEX,
    OPT_IGNORE_CASE,
    OPT_TIME_FIELD,
    OPT_TIME_FORMAT,
    OPT_SKIP_BAD,
    OPT_SEED,
    OPT_SEED_FILE,
    OPT_INVERT,
    OPT_COUNT,
    OPT_STATE,
    OPT_CHECKPOINT,
    OPT_STATS,
    OPT_QUIET,
    OPT_MAX_MEMORY,
    OPT_DROP_BAD,
    OPT_MAX_SKEW,
    OPT_LINE_BUFFERED,
    OPT_NULL_DATA
};

const cli_option dedup_options[] = {
    [OPT_WINDOW]     = {"window", "T|N", "time window: drop a line whose key was seen in the "
                                         "last T (10m, 30s; default design tlbf-line); a "
                                         "count N (1M) is --last N"},
    [OPT_LAST]       = {"last", "N", "count window: drop a line whose key is among the "
                                     "last N lines' (default design apbf-line)"},
    [OPT_ERROR]      = {"error", "E", "false-positive rate: share of lines whose key was never "
                                      "seen, or last seen before the window + its slack, "
                                      "wrongly dropped (default 0.01)"},
    [OPT_DESIGN]     = {"design", "NAME", "filter design with that kind of window (tlbf-line, "
                                          "tlbf, clock, exact; apbf-line, sqf (least "
                                          "memory), apbf, ...)"},
    [OPT_CAPACITY]   = {"capacity", "N", "time windows: expected keys per window "
                                         "(a sizing hint; default: the input files' lines, or learn the rate)"},
    [OPT_FIELD]      = {"field", "LIST", "key = field N (1-based) of the line, or fields "
                                         "2,5 or 1-3 joined; a line missing one, or "
                                         "with one empty, is keyed by all of it"},
    [OPT_DELIMITER]  = {"delimiter", "C", "field separator, one byte or \\t "
                                          "(default: runs of blanks, like awk)"},
    [OPT_KEY_REGEX]  = {"key-regex", "RE", "key = first group of the POSIX extended "
                                           "RE (or its match); no match or an empty "
                                           "one: the line"},
    [OPT_IGNORE_CASE] = {"ignore-case", NULL, "keys that differ only in the case of "
                                              "ASCII letters are the same key"},
    [OPT_TIME_FIELD] = {"time-field", "LIST", "time of a line = field N, or fields "
                                              "1,2 or 1-3 joined by a blank, to replay "
                                              "logs (default: the clock when read)"},
    [OPT_TIME_FORMAT] = {"time-format", "F", "unix (s), unix_ms, unix_us, unix_ns, "
                                             "iso8601, or a pattern such as "
                                             "'%b %e %H:%M:%S' (below; default unix)"},
    [OPT_SKIP_BAD]   = {"skip-bad", NULL, "pass lines with a missing, bad or too-far-ahead "
                                          "time through unchanged, unfiltered (default: stop, exit 1)"},
    [OPT_SEED]       = {"seed", "N", "hash seed, for reproducible output (default "
                                     "random; saved in --state)"},
    [OPT_SEED_FILE]  = {"seed-file", "FILE", "read a secret hash seed from FILE "
                                             "(number or 8 raw bytes)"},
    [OPT_INVERT]     = {"invert", NULL, "print only the repeats"},
    [OPT_COUNT]      = {"count", NULL, "print every line, prefixed by 0 (new) or 1 "
                                       "(repeat) and a tab"},
    [OPT_STATE]      = {"state", "FILE", "resume from FILE if it exists; save the "
                                         "filter there at exit"},
    [OPT_CHECKPOINT] = {"checkpoint", "T", "with --state: also save every T "
                                           "(default: only at exit)"},
    [OPT_STATS]      = {"stats", NULL, "print counts, memory and the estimated FP "
                                       "rate on stderr at exit"},
    [OPT_QUIET]      = {"quiet", NULL, "no progress line on stderr"},
    [OPT_MAX_MEMORY] = {"max-memory", "SIZE", "refuse a filter larger than SIZE "
                                              "(512M, 4G, 1.5GiB; default 4G)"},
    [OPT_DROP_BAD]   = {"drop-bad", NULL, "drop lines with a missing, bad or too-far-ahead "
                                          "time (default: stop, exit 1)"},
    [OPT_MAX_SKEW]   = {"max-skew", "T", "with --time-field: a time more than T ahead of "
                                         "the clock is bad (default 1d; off)"},
    [OPT_LINE_BUFFERED] = {"line-buffered", NULL, "write each line out as soon as it "
                                                  "is decided"},
    [OPT_NULL_DATA]  = {"null-data", NULL, "lines end with a NUL byte, not a newline, "
                                           "on input and output"},
    {NULL, NULL, NULL}
};

/* The letters of grep and uniq for the same ideas. */
const cli_alias dedup_aliases[] = {
    {'i', OPT_IGNORE_CASE},
    {'c', OPT_COUNT},
    {'v', OPT_INVERT},
    {'z', OPT_NULL_DATA},
    {0, 0}
};

/* One byte, or the escapes \t and \\ (a shell passes them literally). */
static int parse_delimiter(const char *text, int *out)
{
    if (text[0] != '\0' && text[1] == '\0' && text[0] != '\n') {
        *out = (unsigned char)text[0];
        return 0;
    }
    if (strcmp(text, "\\t") == 0 || strcmp(text, "tab") == 0) {
        *out = '\t';
        return 0;
    }
    if (strcmp(text, "\\\\") == 0) {
        *out = '\\';
        return 0;
    }
    return -1;
}

/* One field number of a list at *text, up to a ',' or '-' or the end. */
static int scan_field_number(const char **text, unsigned *out)
{
    unsigned long value = 0;
    const char *p = *text;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        value = value * 10 + (unsigned long)(*p - '0');
        if (value > DEDUP_MAX_FIELD)
            return -1;
    }
    if (value == 0)
        return -1;
    *text = p;
    *out = (unsigned)value;
    return 0;
}

/* Append field `index` to the list.  Returns NULL, or why not. */
static const char *add_field(dedup_fields *fields, unsigned index)
{
    for (unsigned i = 0; i < fields->count; i++)
        if (fields->index[i] == index)
            return "lists a field twice";
    if (fields->count == DEDUP_MAX_FIELDS)
        return "lists more than 16 fields";
    fields->index[fields->count++] = index;
    return NULL;
}

/* "2", "2,5", "1-3", "1-3,7": the fields in that order.  Returns NULL, or
 * why the text is not a list. */
static const char *scan_field_list(const char *text, dedup_fields *out)
{
    const char *why = NULL;
    out->count = 0;
    do {
        unsigned first, last;
        if (scan_field_number(&text, &first) != 0)
            return "is not a list of field numbers from 1 to 1000000 "
                   "(2, 2,5 or 1-3)";
        last = first;
        if (*text == '-') {
            text++;
            if (scan_field_number(&text, &last) != 0 || last < first)
                return "has a range that is not N-M with N <= M";
        }
        for (unsigned f = first; why == NULL && f <= last; f++)
            why = add_field(out, f);
        if (why != NULL)
            return why;
    } while (*text++ == ',');
    return text[-1] == '\0' ? NULL : "is not a list of field numbers (2, 2,5 or 1-3)";
}

static int parse_field_list(const char *opt, const char *value,
                            dedup_fields *fields, unsigned *first)
{
    const char *why = scan_field_list(value, fields);
    if (why != NULL) {
        cli_usage_error("dedup", "--%s: '%s' %s", opt, value, why);
        return -1;
    }
    *first = fields->index[0];
    return 0;
}

/* --time-format: a name, or a pattern (anything with a '%'). */
static int parse_time_option(dedup_args *a, const char *value)
{
    a->time_format_given = 1;
    if (strchr(value, '%') != NULL) {
        const char *fault;
        const char *why = dedup_check_time_pattern(value, &fault);
        if (why != NULL && fault != NULL) {
            cli_usage_error("dedup", "--time-format: '%s': %.2s %s", value, fault, why);
            return -1;
        }
        if (why != NULL) {
            cli_usage_error("dedup", "--time-format: '%s' %s", value, why);
            return -1;
        }
        a->time_format = DEDUP_TIME_PATTERN;
        a->time_pattern = value;
        a->time_needs_year = !dedup_time_pattern_has_year(value);
        return 0;
    }
    if (dedup_time_format_parse(value, &a->time_format) == 0)
        return 0;
    cli_usage_error("dedup", "--time-format: '%s' is not unix, unix_ms, "
                    "unix_us, unix_ns, iso8601 or a pattern with %% "
                    "conversions", value);
    return -1;
}

/* The filter's options go through the library's parameter language, so
 * they read as the Python package and the Redis module read them. */
static int set_param(dedup_args *a, const char *name, tdbf_option which, const char *value)
{
    return cli_config_set("dedup", name, &a->params, &a->params_given, which, value);
}

/* --window N|T or --last N: both set the window; --last takes a count. */
static int parse_window_option(dedup_args *a, int last, const char *value)
{
    if (a->params_given & (1u << TDBF_OPT_WINDOW)) {
        cli_usage_error("dedup", "--window and --last exclude each other (each sets "
                        "the window)");
        return -1;
    }
    uint64_t count;
    if (last && cli_parse_count("dedup", "last", value, 1, UINT64_MAX, &count) != 0)
        return -1;
    return set_param(a, last ? "last" : "window", TDBF_OPT_WINDOW, value);
}

/* The parsed filter options into the fields the command reads. */
static void adopt_params(dedup_args *a)
{
    const tdbf_config *p = &a->params;
    unsigned given = a->params_given;
    a->window_ns = p->window_ns;
    a->window_items = p->window_items;
    a->error = given & (1u << TDBF_OPT_ERROR) ? p->error : 0.0;
    a->design_given = (given & (1u << TDBF_OPT_DESIGN)) != 0;
    a->design = p->design;
    a->capacity = given & (1u << TDBF_OPT_CAPACITY) ? p->capacity : 0;
    a->seed = given & (1u << TDBF_OPT_SEED) ? p->seed : 0;
    a->max_memory = given & (1u << TDBF_OPT_MAX_MEMORY) ? p->max_memory : 0;
}

/* The rules between the filter's options, as every front applies them
 * (tdbf_config_check: a capacity needs a time window).  Without a window
 * there is nothing to check yet: a --state file may supply it. */
static int check_params(const dedup_args *a)
{
    if (!(a->params_given & (1u << TDBF_OPT_WINDOW)))
        return 0;
    tdbf_config copy = a->params;
    char why[240];
    if (tdbf_config_check(&copy, a->params_given, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error("dedup", "%s (--capacity goes with --window T)", why);
    return -1;
}

/* Apply one option.  Returns 0, or -1 after a usage error. */
static int apply_option(dedup_args *a, int opt, const char *value,
                        const char **key_regex)
{
    const char *cmd = "dedup";
    switch (opt) {
    case OPT_WINDOW:
    case OPT_LAST:
        return parse_window_option(a, opt == OPT_LAST, value);
    case OPT_ERROR:
        return set_param(a, "error", TDBF_OPT_ERROR, value);
    case OPT_DESIGN:
        return set_param(a, "design", TDBF_OPT_DESIGN, value);
    case OPT_CAPACITY:
        return set_param(a, "capacity", TDBF_OPT_CAPACITY, value);
    case OPT_FIELD:
        return parse_field_list("field", value, &a->fields, &a->field);
    case OPT_DELIMITER:
        if (parse_delimiter(value, &a->delimiter) != 0) {
            cli_usage_error(cmd, "--delimiter: '%s' is not one byte (or \\t)",
                            value);
            return -1;
        }
        a->delimiter_given = 1;
        return 0;
    case OPT_KEY_REGEX:
        *key_regex = value;
        return 0;
    case OPT_IGNORE_CASE:
        a->ignore_case = 1;
        return 0;
    case OPT_TIME_FIELD:
        return parse_field_list("time-field", value, &a->time_fields,
                                &a->time_field);
    case OPT_TIME_FORMAT:
        return parse_time_option(a, value);
    case OPT_SKIP_BAD:
        a->skip_bad = 1;
        return 0;
    case OPT_SEED:
        return set_param(a, "seed", TDBF_OPT_SEED, value);
    case OPT_SEED_FILE:
        a->seed_file = value;
        return 0;
    case OPT_INVERT:
        a->invert = 1;
        return 0;
    case OPT_COUNT:
        a->count = 1;
        return 0;
    case OPT_STATE:
        a->state_path = value;
        return 0;
    case OPT_CHECKPOINT:
        return cli_parse_duration_ns(cmd, "checkpoint", value,
                                     &a->checkpoint_ns);
    case OPT_STATS:
        a->stats = 1;
        return 0;
    case OPT_QUIET:
        a->quiet = 1;
        return 0;
    case OPT_MAX_MEMORY:
        return set_param(a, "max-memory", TDBF_OPT_MAX_MEMORY, value);
    case OPT_DROP_BAD:
        a->drop_bad = 1;
        return 0;
    case OPT_MAX_SKEW:
        a->max_skew_given = 1;
        if (strcmp(value, "off") == 0) {
            a->max_skew_ns = 0;
            return 0;
        }
        return cli_parse_duration_ns(cmd, "max-skew", value, &a->max_skew_ns);
    case OPT_LINE_BUFFERED:
        a->line_buffered = 1;
        return 0;
    case OPT_NULL_DATA:
        a->terminator = '\0';
        return 0;
    default:
        return -1;
    }
}

/* Options that contradict each other or apply to nothing.  Returns 0, or
 * -1 after a usage error.  (A missing window is checked by the command:
 * a --state file may supply it.) */
static int check_combination(const dedup_args *a, const char *key_regex)
{
    const char *cmd = "dedup";
    const char *problem = NULL;

    if (a->window_ns != 0 && a->window_items != 0)
        problem = "--window (time) and --last (count) exclude each other";
    else if (a->field != 0 && key_regex != NULL)
        problem = "--field and --key-regex exclude each other";
    else if (a->delimiter_given && a->field == 0 && a->time_field == 0)
        problem = "--delimiter applies to --field or --time-field";
    else if (a->time_format_given && a->time_field == 0)
        problem = "--time-format needs --time-field";
    else if (a->skip_bad && a->time_field == 0)
        problem = "--skip-bad applies to --time-field (bad times)";
    else if (a->drop_bad && a->time_field == 0)
        problem = "--drop-bad applies to --time-field (bad times)";
    else if (a->skip_bad && a->drop_bad)
        problem = "--skip-bad (pass bad lines through) and --drop-bad exclude "
                  "each other";
    else if (a->max_skew_given && a->time_field == 0)
        problem = "--max-skew applies to --time-field (times ahead of the clock)";
    else if (a->time_field != 0 && a->window_items != 0)
        problem = "--time-field needs a time window (--window), not --last";
    else if (a->seed != 0 && a->seed_file != NULL)
        problem = "--seed and --seed-file exclude each other";
    else if (a->invert && a->count)
        problem = "--invert and --count exclude each other (--count prints "
                  "every line)";
    else if (a->checkpoint_ns != 0 && a->state_path == NULL)
        problem = "--checkpoint needs --state FILE";
    if (problem == NULL)
        return 0;
    cli_usage_error(cmd, "%s", problem);
    return -1;
}

static int compile_regex(dedup_args *a, const char *pattern)
{
    a->key_regex = pattern;
    int rc = regcomp(&a->regex, pattern, REG_EXTENDED);
    if (rc != 0) {
        char message[128];
        regerror(rc, &a->regex, message, sizeof message);
        cli_usage_error("dedup", "--key-regex: '%s': %s", pattern, message);
        return -1;   /* a failed regcomp holds nothing */
    }
    a->has_regex = 1;
    return 0;
}

int dedup_parse_args(dedup_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    tdbf_config_init(&a->params);
    a->delimiter = DEDUP_BLANKS;
    a->terminator = '\n';
    a->max_skew_ns = DEDUP_DEFAULT_MAX_SKEW_NS;
    a->files = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *a->files);
    if (a->files == NULL) {
        cli_error("dedup", "out of memory");
        return CLI_OPT_ERROR;
    }

    cli_parser parser;
    cli_parser_init(&parser, "dedup", dedup_options, argc, argv);
    parser.operands = 1;
    parser.aliases = dedup_aliases;
    const char *key_regex = NULL;
    const char *value;
    int opt;
    while ((opt = cli_next_option(&parser, &value)) != CLI_OPT_END) {
        if (opt == CLI_OPT_HELP) {
            dedup_args_free(a);
            return CLI_OPT_HELP;
        }
        if (opt == CLI_OPT_OPERAND) {
            a->files[a->n_files++] = (char *)value;
            continue;
        }
        if (opt < 0 || apply_option(a, opt, value, &key_regex) != 0) {
            dedup_args_free(a);
            return CLI_OPT_ERROR;
        }
    }
    adopt_params(a);
    if (check_params(a) != 0) {
        dedup_args_free(a);
        return CLI_OPT_ERROR;
    }
    /* --time-field alone reads seconds, as its help says */
    if (a->time_field != 0 && !a->time_format_given)
        a->time_format = DEDUP_TIME_UNIX;
    if (check_combination(a, key_regex) != 0 ||
        (key_regex != NULL && compile_regex(a, key_regex) != 0)) {
        dedup_args_free(a);
        return CLI_OPT_ERROR;
    }
    return 0;
}

void dedup_args_keyspec(const dedup_args *a, dedup_keyspec *out)
{
    memset(out, 0, sizeof *out);
    out->window_items = a->window_items;
    out->window_ns = a->window_ns;
    out->field = a->field;
    out->key_fields = a->fields;
    out->delimiter = a->delimiter;
    out->time_field = a->time_field;
    out->time_fields = a->time_fields;
    out->time_format = a->time_field != 0 ? (unsigned)a->time_format : DEDUP_TIME_ARRIVAL;
    out->time_pattern = a->time_field != 0 && a->time_format == DEDUP_TIME_PATTERN
                        ? a->time_pattern : NULL;
    out->ignore_case = a->ignore_case;
    out->regex = a->has_regex ? a->key_regex : NULL;
}

int dedup_args_name_keys(const dedup_args *a)
{
    return a->field != 0 || a->delimiter_given || a->has_regex || a->ignore_case ||
           a->time_field != 0 || a->time_format_given;
}

/* Copies of the spec's regex and pattern in one allocation, *a's own (the
 * spec's strings belong to a state that is released after the load). */
static int adopt_strings(dedup_args *a, const dedup_keyspec *spec,
                         const char **regex, const char **pattern)
{
    size_t regex_len = spec->regex != NULL ? strlen(spec->regex) + 1 : 0;
    size_t pattern_len = spec->time_pattern != NULL ? strlen(spec->time_pattern) + 1 : 0;
    free(a->adopted);
    a->adopted = NULL;
    *regex = *pattern = NULL;
    if (regex_len + pattern_len == 0)
        return 0;
    a->adopted = malloc(regex_len + pattern_len);
    if (a->adopted == NULL) {
        cli_error("dedup", "out of memory");
        return -1;
    }
    if (regex_len > 0)
        *regex = memcpy(a->adopted, spec->regex, regex_len);
    if (pattern_len > 0)
        *pattern = memcpy(a->adopted + regex_len, spec->time_pattern, pattern_len);
    return 0;
}

int dedup_args_adopt_keyspec(dedup_args *a, const dedup_keyspec *spec)
{
    const char *regex, *pattern;
    if (a->has_regex)
        regfree(&a->regex);
    a->has_regex = 0;
    a->key_regex = NULL;
    if (adopt_strings(a, spec, &regex, &pattern) != 0)
        return -1;
    a->field = spec->field;
    a->fields = spec->key_fields;
    a->delimiter = spec->delimiter;
    a->ignore_case = spec->ignore_case;
    a->time_field = spec->time_field;
    a->time_fields = spec->time_fields;
    a->time_format = (dedup_time_format)spec->time_format;
    a->time_pattern = NULL;
    a->time_needs_year = 0;
    if (pattern != NULL && parse_time_option(a, pattern) != 0)
        return -1;
    return regex != NULL ? compile_regex(a, regex) : 0;
}

void dedup_args_free(dedup_args *a)
{
    if (a->has_regex)
        regfree(&a->regex);
    a->has_regex = 0;
    free(a->adopted);
    a->adopted = NULL;
    free(a->files);
    a->files = NULL;
    a->n_files = 0;
    free(a->kept_sections);
    a->kept_sections = NULL;
    a->kept_len = 0;
}

/* ======================================================================
 * Fields and keys
 * ====================================================================== */

int dedup_field(const char *line, size_t len, int delimiter, unsigned index,
                const char **start, size_t *field_len)
{
    if (index == 0)
        return 0;
    if (delimiter == DEDUP_BLANKS) {
        size_t pos = 0;
        for (unsigned n = 1;; n++) {
            while (pos < len && dedup_is_blank(line[pos]))
                pos++;
            if (pos == len)
                return 0;
            size_t begin = pos;
            while (pos < len && !dedup_is_blank(line[pos]))
                pos++;
            if (n == index) {
                *start = line + begin;
                *field_len = pos - begin;
                return 1;
            }
        }
    }
    const char *p = line;
    const char *end = line + len;
    for (unsigned n = 1; n < index; n++) {
        const char *next = memchr(p, delimiter, (size_t)(end - p));
        if (next == NULL)
            return 0;
        p = next + 1;
    }
    const char *stop = memchr(p, delimiter, (size_t)(end - p));
    *start = p;
    *field_len = (size_t)((stop != NULL ? stop : end) - p);
    return 1;
}

/* Run the key regex over the line.  Returns 1 and the key, or 0. */
static int regex_key(const dedup_args *a, char *line, size_t len,
                     const char **key, size_t *key_len)
{
    regmatch_t match[2];
    if (len > (size_t)INT_MAX)   /* regoff_t may be an int */
        return 0;
    /* The line as a C string for a moment.  With REG_STARTEND (glibc, the
     * BSDs) the matcher takes its bounds from match[0] and sees NUL bytes
     * inside the line too; the terminator still keeps anything that calls
     * strlen on it (ASan's interceptor does) inside the line.  Without it
     * the matcher sees the line up to its first NUL. */
    char saved = line[len];
    line[len] = '\0';
#ifdef REG_STARTEND
    match[0].rm_so = 0;
    match[0].rm_eo = (regoff_t)len;
    int rc = regexec(&a->regex, line, 2, match, REG_STARTEND);
#else
    int rc = regexec(&a->regex, line, 2, match, 0);
#endif
    line[len] = saved;
    if (rc != 0)
        return 0;
    const regmatch_t *use = &match[0];
    if (a->regex.re_nsub >= 1 && match[1].rm_so >= 0)
        use = &match[1];
    *key = line + use->rm_so;
    *key_len = (size_t)(use->rm_eo - use->rm_so);
    return 1;
}

/* The byte that joins fields: the delimiter, or a blank between fields
 * split at blanks.  No field contains it, so two different lists of
 * fields never join to the same bytes. */
static char join_byte(int delimiter)
{
    return delimiter == DEDUP_BLANKS ? ' ' : (char)delimiter;
}

/* Fields `fields` of the line joined by `joiner` into out (at most
 * `room` bytes).  Returns 0 and the length in *out_len, or -1 if a field
 * is missing, or if one is empty and empty fields are refused (keys), or
 * if the join does not fit. */
static int join_fields(const dedup_fields *fields, int delimiter, char joiner,
                       int allow_empty, const char *line, size_t len, char *out,
                       size_t room, size_t *out_len)
{
    size_t used = 0;
    for (unsigned i = 0; i < fields->count; i++) {
        const char *field;
        size_t field_len;
        if (!dedup_field(line, len, delimiter, fields->index[i], &field, &field_len) ||
            (field_len == 0 && !allow_empty) || used + (i > 0) + field_len > room)
            return -1;
        if (i > 0)
            out[used++] = joiner;
        memcpy(out + used, field, field_len);
        used += field_len;
    }
    *out_len = used;
    return 0;
}

/* The key the options cut from the line, or 0 when they cut none (no
 * such field, an empty one, no match, an empty capture). */
static int cut_key(const dedup_args *a, char *line, size_t len, char *scratch,
                   const char **key, size_t *key_len)
{
    if (a->fields.count > 1) {
        /* distinct fields and the bytes that separate them in the line:
         * the join never outgrows the line, so scratch always has room */
        *key = scratch;
        return join_fields(&a->fields, a->delimiter, join_byte(a->delimiter), 0, line,
                           len, scratch, len, key_len) == 0;
    }
    if (a->field != 0)
        return dedup_field(line, len, a->delimiter, a->field, key, key_len) &&
               *key_len > 0;
    return a->has_regex && regex_key(a, line, len, key, key_len) && *key_len > 0;
}

void dedup_line_key(const dedup_args *a, char *line, size_t len, char *scratch,
                    const char **key, size_t *key_len)
{
    if (!cut_key(a, line, len, scratch, key, key_len)) {
        *key = line;
        *key_len = len;
    }
    if (a->ignore_case) {
        /* in place when the key is already the scratch copy */
        for (size_t i = 0; i < *key_len; i++)
            scratch[i] = dedup_ascii_lower((*key)[i]);   /* ASCII only: the same
                                                            key on every machine */
        *key = scratch;
    }
}

/* ======================================================================
 * Times of lines (the formats themselves: dedup_time.c)
 * ====================================================================== */

int dedup_time_needs_reference(const dedup_args *a)
{
    return a->time_format == DEDUP_TIME_PATTERN && a->time_needs_year;
}

/* The time text of a line: its time field, or its time fields joined by
 * one blank into buf (DEDUP_TIME_TEXT_MAX bytes).  Returns 0, -1 if a
 * field is missing, or -2 if the join is too long to be a time. */
static int time_text(const dedup_args *a, const char *line, size_t len, char *buf,
                     const char **text, size_t *text_len)
{
    if (a->time_fields.count <= 1)
        return dedup_field(line, len, a->delimiter, a->time_field, text, text_len)
               ? 0 : -1;
    for (unsigned i = 0; i < a->time_fields.count; i++) {
        const char *field;
        size_t field_len;
        if (!dedup_field(line, len, a->delimiter, a->time_fields.index[i], &field,
                         &field_len))
            return -1;
    }
    *text = buf;
    /* joined by a blank whatever the delimiter: "2025-06-24 10:11:12" */
    return join_fields(&a->time_fields, a->delimiter, ' ', 1, line, len, buf,
                       DEDUP_TIME_TEXT_MAX, text_len) == 0 ? 0 : -2;
}

int dedup_line_time(const dedup_args *a, const char *line, size_t len,
                    uint64_t reference_ns, uint64_t *ns)
{
    char buf[DEDUP_TIME_TEXT_MAX];
    const char *text;
    size_t text_len;
    int rc = time_text(a, line, len, buf, &text, &text_len);
    if (rc != 0)
        return rc;
    if (a->time_format == DEDUP_TIME_PATTERN)
        rc = dedup_parse_time_pattern(a->time_pattern, text, text_len, reference_ns, ns);
    else
        rc = dedup_parse_time(a->time_format, text, text_len, ns);
    return rc == 0 ? 0 : -2;
}

void dedup_fields_format(const dedup_fields *fields, char *buf, size_t size)
{
    size_t used = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    for (unsigned i = 0; i < fields->count && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%u", i > 0 ? "," : "",
                         fields->index[i]);
        if (n < 0)
            return;
        used += (size_t)n;
    }
}

/* Up to 40 bytes of text for a message, unprintable bytes as '?'. */
static void quote_for_message(char *dst, size_t size, const char *text, size_t len)
{
    size_t n = len < 40 ? len : 40;
    if (n >= size)
        n = size - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    dst[n] = '\0';
}

void dedup_bad_time_message(const dedup_args *a, const char *line, size_t len,
                            int why, char *buf, size_t size)
{
    char list[DEDUP_MAX_FIELDS * 8], joined[DEDUP_TIME_TEXT_MAX], shown[48];
    const char *text = "";
    size_t text_len = 0;
    int several = a->time_fields.count > 1;
    dedup_fields_format(&a->time_fields, list, sizeof list);
    if (why == -1) {
        snprintf(buf, size, "no field %s (the time)", list);
        return;
    }
    if (time_text(a, line, len, joined, &text, &text_len) != 0)
        text_len = 0;
    quote_for_message(shown, sizeof shown, text, text_len);
    if (why == DEDUP_TIME_AHEAD) {
        char skew[32];
        snprintf(buf, size, "time field%s %s '%s' %s more than %s ahead of the clock "
                 "(--max-skew)", several ? "s" : "", list, shown, several ? "are" : "is",
                 cli_format_duration_ns(skew, sizeof skew, a->max_skew_ns));
    } else if (a->time_format == DEDUP_TIME_PATTERN)
        snprintf(buf, size, "time field%s %s '%s' %s not match '%s'", several ? "s" : "",
                 list, shown, several ? "do" : "does", a->time_pattern);
    else
        snprintf(buf, size, "time field%s %s '%s' %s not %s", several ? "s" : "", list,
                 shown, several ? "are" : "is", dedup_time_format_name(a->time_format));
}

/* ======================================================================
 * Seeds
 * ====================================================================== */

static int is_space_byte(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int dedup_parse_seed(const unsigned char *data, size_t len, uint64_t *seed)
{
    const unsigned char *text = data;
    size_t text_len = len;
    while (text_len > 0 && is_space_byte(text[0])) {
        text++;
        text_len--;
    }
    while (text_len > 0 && is_space_byte(text[text_len - 1]))
        text_len--;

    char number[64];
    uint64_t value;
    if (text_len > 0 && text_len < sizeof number &&
        memchr(text, '\0', text_len) == NULL) {
        memcpy(number, text, text_len);
        number[text_len] = '\0';
    } else {
        number[0] = '\0';
    }
    if (number[0] != '\0' && cli_scan_count(number, &value) == 0) {
        /* a number */
    } else if (len == 8) {
        value = 0;
        for (unsigned i = 0; i < 8; i++)
            value |= (uint64_t)data[i] << (8 * i);
    } else {
        return -1;
    }
    if (value == 0)
        return -1;
    *seed = value;
    return 0;
}
