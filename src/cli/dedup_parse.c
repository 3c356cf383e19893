/*
 * dedup_parse.c — options of `tdbf dedup`, and keys and times of lines
 * (see dedup_parse.h).  Pure functions: no I/O besides usage errors on
 * stderr, no clock, no global state.
 */
#define _POSIX_C_SOURCE 200809L

#include "dedup_parse.h"
#include "common/diag.h"
#include "common/numbers.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S UINT64_C(1000000000)

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
    OPT_MAX_MEMORY
};

const cli_option dedup_options[] = {
    [OPT_WINDOW]     = {"window", "T", "time window: drop a line whose key was seen in the "
                                       "last T (10m, 30s; default design tlbf-line)"},
    [OPT_LAST]       = {"last", "N", "count window: drop a line whose key is among the "
                                     "last N lines' (default design apbf-line)"},
    [OPT_ERROR]      = {"error", "E", "false-positive rate: share of lines whose key was never "
                                      "seen, or last seen before the window + its slack, "
                                      "wrongly dropped (default 0.01)"},
    [OPT_DESIGN]     = {"design", "NAME", "filter design with that kind of window (tlbf-line, "
                                          "tlbf, clock, exact; apbf-line, apbf, ...)"},
    [OPT_CAPACITY]   = {"capacity", "N", "time windows: expected keys per window "
                                         "(a sizing hint; default: the input files' lines, or learn the rate)"},
    [OPT_FIELD]      = {"field", "N", "key = field N (1-based) of the line; a line "
                                      "with fewer fields is keyed by all of it"},
    [OPT_DELIMITER]  = {"delimiter", "C", "field separator, one byte or \\t "
                                          "(default: runs of blanks, like awk)"},
    [OPT_KEY_REGEX]  = {"key-regex", "RE", "key = first group of the POSIX extended "
                                           "RE (or its match); no match: the line"},
    [OPT_TIME_FIELD] = {"time-field", "N", "time of a line = field N, to replay logs "
                                           "(default: the clock when read)"},
    [OPT_TIME_FORMAT] = {"time-format", "F", "unix (s), unix_ms, unix_us, unix_ns or "
                                             "iso8601 (default unix)"},
    [OPT_SKIP_BAD]   = {"skip-bad", NULL, "drop lines whose time field is missing or "
                                          "bad (default: stop, exit 1)"},
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
    {NULL, NULL, NULL}
};

static const char *const time_format_names[] = {
    [DEDUP_TIME_ARRIVAL] = "arrival",
    [DEDUP_TIME_UNIX]    = "unix",
    [DEDUP_TIME_UNIX_MS] = "unix_ms",
    [DEDUP_TIME_UNIX_US] = "unix_us",
    [DEDUP_TIME_UNIX_NS] = "unix_ns",
    [DEDUP_TIME_ISO8601] = "iso8601",
};

#define TIME_FORMAT_COUNT (sizeof time_format_names / sizeof time_format_names[0])

const char *dedup_time_format_name(dedup_time_format format)
{
    return (unsigned)format < TIME_FORMAT_COUNT ? time_format_names[format]
                                                : "?";
}

static int parse_time_format(const char *text, dedup_time_format *out)
{
    /* "arrival" is the default, not a format one can ask for */
    for (unsigned i = DEDUP_TIME_UNIX; i < TIME_FORMAT_COUNT; i++)
        if (strcmp(text, time_format_names[i]) == 0) {
            *out = (dedup_time_format)i;
            return 0;
        }
    return -1;
}

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

static int parse_field_number(const char *opt, const char *value,
                              unsigned *out)
{
    uint64_t number;
    if (cli_parse_count("dedup", opt, value, 1, DEDUP_MAX_FIELD, &number) != 0)
        return -1;
    *out = (unsigned)number;
    return 0;
}

/* Apply one option.  Returns 0, or -1 after a usage error. */
static int apply_option(dedup_args *a, int opt, const char *value,
                        const char **key_regex)
{
    const char *cmd = "dedup";
    switch (opt) {
    case OPT_WINDOW:
        return cli_parse_duration_ns(cmd, "window", value, &a->window_ns);
    case OPT_LAST:
        return cli_parse_count(cmd, "last", value, 1, UINT64_MAX,
                               &a->window_items);
    case OPT_ERROR:
        return cli_parse_probability(cmd, "error", value, &a->error);
    case OPT_DESIGN:
        if (tdbf_design_parse(value, &a->design) != TDBF_OK) {
            char names[256] = "";
            for (int d = 0; d < TDBF_DESIGN_COUNT; d++) {
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%s%s",
                         d > 0 ? ", " : "", tdbf_design_name((tdbf_design)d));
            }
            cli_usage_error(cmd, "--design: unknown design '%s' (%s)", value,
                            names);
            return -1;
        }
        a->design_given = 1;
        return 0;
    case OPT_CAPACITY:
        return cli_parse_count(cmd, "capacity", value, 1, UINT64_MAX,
                               &a->capacity);
    case OPT_FIELD:
        return parse_field_number("field", value, &a->field);
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
    case OPT_TIME_FIELD:
        return parse_field_number("time-field", value, &a->time_field);
    case OPT_TIME_FORMAT:
        if (parse_time_format(value, &a->time_format) != 0) {
            cli_usage_error(cmd, "--time-format: '%s' is not unix, unix_ms, "
                            "unix_us, unix_ns or iso8601", value);
            return -1;
        }
        a->time_format_given = 1;
        return 0;
    case OPT_SKIP_BAD:
        a->skip_bad = 1;
        return 0;
    case OPT_SEED:
        return cli_parse_count(cmd, "seed", value, 1, UINT64_MAX, &a->seed);
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
        return cli_parse_size(cmd, "max-memory", value, &a->max_memory);
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
    else if (a->time_field != 0 && a->window_items != 0)
        problem = "--time-field needs a time window (--window), not --last";
    else if (a->capacity != 0 && a->window_items != 0)
        problem = "--capacity is for time windows; --last N already sizes "
                  "the filter";
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
    a->delimiter = DEDUP_BLANKS;
    a->files = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *a->files);
    if (a->files == NULL) {
        cli_error("dedup", "out of memory");
        return CLI_OPT_ERROR;
    }

    cli_parser parser;
    cli_parser_init(&parser, "dedup", dedup_options, argc, argv);
    parser.operands = 1;
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
    out->delimiter = a->delimiter;
    out->time_field = a->time_field;
    out->time_format = a->time_field != 0 ? (unsigned)a->time_format : DEDUP_TIME_ARRIVAL;
    out->regex = a->has_regex ? a->key_regex : NULL;
}

int dedup_args_name_keys(const dedup_args *a)
{
    return a->field != 0 || a->delimiter_given || a->has_regex || a->time_field != 0 ||
           a->time_format_given;
}

int dedup_args_adopt_keyspec(dedup_args *a, const dedup_keyspec *spec)
{
    if (a->has_regex)
        regfree(&a->regex);
    a->has_regex = 0;
    a->key_regex = NULL;
    a->field = spec->field;
    a->delimiter = spec->delimiter;
    a->time_field = spec->time_field;
    a->time_format = (dedup_time_format)spec->time_format;
    return spec->regex != NULL ? compile_regex(a, spec->regex) : 0;
}

void dedup_args_free(dedup_args *a)
{
    if (a->has_regex)
        regfree(&a->regex);
    a->has_regex = 0;
    free(a->files);
    a->files = NULL;
    a->n_files = 0;
}

/* ======================================================================
 * Fields and keys
 * ====================================================================== */

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int dedup_field(const char *line, size_t len, int delimiter, unsigned index,
                const char **start, size_t *field_len)
{
    if (index == 0)
        return 0;
    if (delimiter == DEDUP_BLANKS) {
        size_t pos = 0;
        for (unsigned n = 1;; n++) {
            while (pos < len && is_blank(line[pos]))
                pos++;
            if (pos == len)
                return 0;
            size_t begin = pos;
            while (pos < len && !is_blank(line[pos]))
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

void dedup_line_key(const dedup_args *a, char *line, size_t len,
                    const char **key, size_t *key_len)
{
    if (a->field != 0 &&
        dedup_field(line, len, a->delimiter, a->field, key, key_len))
        return;
    if (a->has_regex && regex_key(a, line, len, key, key_len))
        return;
    *key = line;
    *key_len = len;
}

/* ======================================================================
 * Times
 * ====================================================================== */

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Read exactly `count` digits at text[*pos] into *value. */
static int fixed_digits(const char *text, size_t len, size_t *pos,
                        unsigned count, unsigned *value)
{
    unsigned v = 0;
    for (unsigned i = 0; i < count; i++) {
        if (*pos >= len || !is_digit(text[*pos]))
            return -1;
        v = v * 10 + (unsigned)(text[(*pos)++] - '0');
    }
    *value = v;
    return 0;
}

/* Read a run of at least one digit into *value (-1 on overflow). */
static int integer_digits(const char *text, size_t len, size_t *pos,
                          uint64_t *value)
{
    uint64_t v = 0;
    size_t start = *pos;
    for (; *pos < len && is_digit(text[*pos]); (*pos)++) {
        uint64_t digit = (uint64_t)(text[*pos] - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return -1;
        v = v * 10 + digit;
    }
    *value = v;
    return *pos > start ? 0 : -1;
}

/* A fraction after the decimal point, as a count of units of 10^-places:
 * "5" with places 3 is 500.  Digits past `places` are read and dropped
 * (truncation).  At least one digit. */
static int fraction_digits(const char *text, size_t len, size_t *pos,
                           unsigned places, uint64_t *value)
{
    uint64_t v = 0;
    unsigned used = 0;
    size_t start = *pos;
    for (; *pos < len && is_digit(text[*pos]); (*pos)++)
        if (used < places) {
            v = v * 10 + (uint64_t)(text[*pos] - '0');
            used++;
        }
    for (; used < places; used++)
        v *= 10;
    *value = v;
    return *pos > start ? 0 : -1;
}

/* value * unit + extra without wrapping past 2^64 - 1. */
static int scale_add(uint64_t value, uint64_t unit, uint64_t extra,
                     uint64_t *out)
{
    if (value > (UINT64_MAX - extra) / unit)
        return -1;
    *out = value * unit + extra;
    return 0;
}

/* unix, unix_ms, unix_us: an integer with an optional fraction;
 * unix_ns: an integer. */
static int parse_unix(const char *text, size_t len, uint64_t unit_ns,
                      unsigned fraction_places, uint64_t *ns)
{
    size_t pos = 0;
    uint64_t whole, fraction = 0;
    if (integer_digits(text, len, &pos, &whole) != 0)
        return -1;
    if (pos < len && text[pos] == '.' && fraction_places > 0) {
        pos++;
        if (fraction_digits(text, len, &pos, fraction_places, &fraction) != 0)
            return -1;
    }
    if (pos != len)
        return -1;
    return scale_add(whole, unit_ns, fraction, ns);
}

static int is_leap_year(unsigned year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

static unsigned days_in_month(unsigned year, unsigned month)
{
    static const unsigned char days[12] = {31, 28, 31, 30, 31, 30,
                                           31, 31, 30, 31, 30, 31};
    return month == 2 && is_leap_year(year) ? 29 : days[month - 1];
}

/* Days from 1970-01-01 to year-month-day (proleptic Gregorian), for a
 * year from 1 on; negative before 1970. */
static int64_t days_since_epoch(unsigned year, unsigned month, unsigned day)
{
    static const unsigned short before_month[12] = {
        0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    /* leap days in the years before `year`, counted from year 1 */
    int64_t prior = (int64_t)year - 1;
    int64_t leaps = prior / 4 - prior / 100 + prior / 400;
    int64_t leaps_before_1970 = 1969 / 4 - 1969 / 100 + 1969 / 400;
    int64_t days = ((int64_t)year - 1970) * 365 + (leaps - leaps_before_1970) +
                   before_month[month - 1] + (int64_t)day - 1;
    if (month > 2 && is_leap_year(year))
        days++;
    return days;
}

/* A UTC offset after the time: Z, or +hh, +hhmm, +hh:mm (or -).
 * *seconds gets the offset east of UTC; none means UTC. */
static int parse_zone(const char *text, size_t len, size_t *pos,
                      int64_t *seconds)
{
    *seconds = 0;
    if (*pos == len)
        return 0;
    char c = text[*pos];
    if (c == 'Z' || c == 'z') {
        (*pos)++;
        return 0;
    }
    if (c != '+' && c != '-')
        return -1;
    (*pos)++;
    unsigned hours, minutes = 0;
    if (fixed_digits(text, len, pos, 2, &hours) != 0 || hours > 23)
        return -1;
    if (*pos < len) {
        if (text[*pos] == ':')
            (*pos)++;
        if (fixed_digits(text, len, pos, 2, &minutes) != 0 || minutes > 59)
            return -1;
    }
    int64_t offset = (int64_t)hours * 3600 + (int64_t)minutes * 60;
    *seconds = c == '+' ? offset : -offset;
    return 0;
}

/* YYYY-MM-DD[(T|t|space)hh:mm[:ss[(.|,)fraction]][zone]] */
static int parse_iso8601(const char *text, size_t len, uint64_t *ns)
{
    size_t pos = 0;
    unsigned year, month, day, hour = 0, minute = 0, second = 0;
    uint64_t fraction = 0;
    int64_t offset = 0;

    if (fixed_digits(text, len, &pos, 4, &year) != 0 || pos >= len ||
        text[pos++] != '-' ||
        fixed_digits(text, len, &pos, 2, &month) != 0 || pos >= len ||
        text[pos++] != '-' ||
        fixed_digits(text, len, &pos, 2, &day) != 0)
        return -1;
    if (year < 1 || month < 1 || month > 12 || day < 1 ||
        day > days_in_month(year, month))
        return -1;
    if (pos < len) {
        char sep = text[pos++];
        if (sep != 'T' && sep != 't' && sep != ' ')
            return -1;
        if (fixed_digits(text, len, &pos, 2, &hour) != 0 || hour > 23 ||
            pos >= len || text[pos++] != ':' ||
            fixed_digits(text, len, &pos, 2, &minute) != 0 || minute > 59)
            return -1;
        if (pos < len && text[pos] == ':') {
            pos++;
            /* 60: a leap second, read as the first second of the next
             * minute (the filter clamps time, so order is kept) */
            if (fixed_digits(text, len, &pos, 2, &second) != 0 || second > 60)
                return -1;
            if (pos < len && (text[pos] == '.' || text[pos] == ',')) {
                pos++;
                if (fraction_digits(text, len, &pos, 9, &fraction) != 0)
                    return -1;
            }
        }
        if (parse_zone(text, len, &pos, &offset) != 0)
            return -1;
    }
    if (pos != len)
        return -1;

    int64_t seconds = days_since_epoch(year, month, day) * 86400 +
                      (int64_t)hour * 3600 + (int64_t)minute * 60 +
                      (int64_t)second - offset;
    if (seconds < 0)
        return -1;
    return scale_add((uint64_t)seconds, NS_PER_S, fraction, ns);
}

int dedup_parse_time(dedup_time_format format, const char *text, size_t len,
                     uint64_t *ns)
{
    /* trim blanks, and the CR of a CRLF line whose last field this is */
    while (len > 0 && (is_blank(text[0]) || text[0] == '\r')) {
        text++;
        len--;
    }
    while (len > 0 && (is_blank(text[len - 1]) || text[len - 1] == '\r'))
        len--;
    if (len == 0)
        return -1;
    switch (format) {
    case DEDUP_TIME_UNIX:    return parse_unix(text, len, NS_PER_S, 9, ns);
    case DEDUP_TIME_UNIX_MS: return parse_unix(text, len, 1000000, 6, ns);
    case DEDUP_TIME_UNIX_US: return parse_unix(text, len, 1000, 3, ns);
    case DEDUP_TIME_UNIX_NS: return parse_unix(text, len, 1, 0, ns);
    case DEDUP_TIME_ISO8601: return parse_iso8601(text, len, ns);
    case DEDUP_TIME_ARRIVAL:
    default:                 return -1;
    }
}

int dedup_line_time(const dedup_args *a, const char *line, size_t len,
                    uint64_t *ns)
{
    const char *text;
    size_t text_len;
    if (!dedup_field(line, len, a->delimiter, a->time_field, &text, &text_len))
        return -1;
    return dedup_parse_time(a->time_format, text, text_len, ns) == 0 ? 0 : -2;
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
