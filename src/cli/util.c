/*
 * util.c — shared helpers of the tdbf command-line tool (see util.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tdbf.h>

/* ======================================================================
 * Diagnostics
 * ====================================================================== */

static void print_prefixed(const char *cmd, const char *fmt, va_list ap)
{
    if (cmd != NULL)
        fprintf(stderr, "tdbf %s: ", cmd);
    else
        fputs("tdbf: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_prefixed(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_DATA;
}

int cli_io_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_prefixed(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_IO;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_prefixed(cmd, fmt, ap);
    va_end(ap);
    if (cmd != NULL)
        fprintf(stderr, "Try 'tdbf %s --help'.\n", cmd);
    else
        fputs("Try 'tdbf --help'.\n", stderr);
    return CLI_EXIT_USAGE;
}

int cli_exit_code(int code)
{
    switch (code) {
    case TDBF_OK:
        return CLI_EXIT_OK;
    case TDBF_EIO:
        return CLI_EXIT_IO;
    case TDBF_ECORRUPT:
    case TDBF_EVERSION:
    case TDBF_ENOMEM:
        return CLI_EXIT_DATA;
    default:   /* what the options asked for: design, window, error, size */
        return CLI_EXIT_USAGE;
    }
}

int cli_lib_error(const char *cmd, const char *what, int code)
{
    cli_error(cmd, "%s: %s", what, tdbf_strerror(code));
    return cli_exit_code(code);
}

/* ======================================================================
 * Long-option parser
 * ====================================================================== */

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

/* ======================================================================
 * Number parsing
 * ====================================================================== */

typedef struct unit_suffix {
    const char *name;
    uint64_t    factor;
} unit_suffix;

static const unit_suffix count_suffixes[] = {
    {"k", UINT64_C(1000)},
    {"K", UINT64_C(1000)},
    {"M", UINT64_C(1000000)},
    {"G", UINT64_C(1000000000)},
    {"T", UINT64_C(1000000000000)},
    {"Ki", UINT64_C(1) << 10},
    {"Mi", UINT64_C(1) << 20},
    {"Gi", UINT64_C(1) << 30},
    {"Ti", UINT64_C(1) << 40},
    {NULL, 0}
};

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int cli_scan_count(const char *text, uint64_t *out)
{
    uint64_t value = 0;
    const char *s = text;

    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        if (*s == '\0')
            return -1;
        for (; *s != '\0'; s++) {
            int d = hex_digit((unsigned char)*s);
            if (d < 0)
                return -1;
            if (value > (UINT64_MAX >> 4))
                return -2;
            value = (value << 4) | (uint64_t)d;
        }
        *out = value;
        return 0;
    }

    if (!isdigit((unsigned char)*s))
        return -1;
    for (; *s != '\0'; s++) {
        if (*s == '_') {
            /* a separator must sit between two digits */
            if (!isdigit((unsigned char)s[-1]) ||
                !isdigit((unsigned char)s[1]))
                return -1;
            continue;
        }
        if (!isdigit((unsigned char)*s))
            break;
        uint64_t digit = (uint64_t)(*s - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -2;
        value = value * 10 + digit;
    }
    if ((*s == 'e' || *s == 'E') && isdigit((unsigned char)s[1])) {
        /* "1e6": an exact power-of-ten exponent, nothing after it */
        unsigned exponent = 0;
        for (s++; isdigit((unsigned char)*s); s++) {
            exponent = exponent * 10 + (unsigned)(*s - '0');
            if (exponent > 19)
                return value == 0 ? -1 : -2;
        }
        if (*s != '\0')
            return -1;
        for (unsigned i = 0; i < exponent; i++) {
            if (value > UINT64_MAX / 10)
                return -2;
            value *= 10;
        }
        *out = value;
        return 0;
    }
    if (*s != '\0') {
        const unit_suffix *u = count_suffixes;
        while (u->name != NULL && strcmp(u->name, s) != 0)
            u++;
        if (u->name == NULL)
            return -1;
        if (value > UINT64_MAX / u->factor)
            return -2;
        value *= u->factor;
    }
    *out = value;
    return 0;
}

int cli_parse_count(const char *cmd, const char *opt, const char *text,
                    uint64_t min, uint64_t max, uint64_t *out)
{
    const char *kind = min > 0 ? "a positive integer" : "a non-negative integer";
    uint64_t value;
    int rc = cli_scan_count(text, &value);

    if (rc == -1 || (rc == 0 && value == 0 && min > 0)) {
        cli_usage_error(cmd, "--%s: '%s' is not %s", opt, text, kind);
        return -1;
    }
    if (rc == -2 || value > max) {
        char limit[32];
        if (max == UINT64_MAX)
            cli_usage_error(cmd, "--%s: '%s' is too large", opt, text);
        else
            cli_usage_error(cmd, "--%s: '%s' is too large (at most %s)", opt,
                            text, cli_format_count(limit, sizeof limit, max));
        return -1;
    }
    if (value < min) {
        char limit[32];
        cli_usage_error(cmd, "--%s: '%s' is too small (at least %s)", opt,
                        text, cli_format_count(limit, sizeof limit, min));
        return -1;
    }
    *out = value;
    return 0;
}

/* strtod over the whole of `text` except an allowed tail; rejects leading
 * blanks (strtod would skip them), NaN and infinities.  *end gets the
 * first unparsed character.  Returns 0 or -1. */
static int scan_real(const char *text, double *out, const char **end)
{
    if (*text == '\0' || isspace((unsigned char)*text))
        return -1;
    char *stop;
    errno = 0;
    double value = strtod(text, &stop);
    if (stop == text || !isfinite(value))
        return -1;
    /* ERANGE on underflow still gives a usable (tiny or zero) value; the
     * range checks of the callers decide. */
    *out = value;
    *end = stop;
    return 0;
}

int cli_parse_probability(const char *cmd, const char *opt, const char *text,
                          double *out)
{
    double value;
    const char *end;
    if (scan_real(text, &value, &end) == 0) {
        if (strcmp(end, "%") == 0) {
            value /= 100.0;
            end++;
        }
        if (*end == '\0' && value > 0.0 && value < 1.0) {
            *out = value;
            return 0;
        }
    }
    cli_usage_error(cmd, "--%s: '%s' is not a probability strictly between "
                    "0 and 1 (e.g. 0.01, 1e-3 or 0.5%%)", opt, text);
    return -1;
}

int cli_parse_real(const char *cmd, const char *opt, const char *text,
                   double min, double max, double *out)
{
    double value;
    const char *end;
    if (scan_real(text, &value, &end) != 0 || *end != '\0') {
        cli_usage_error(cmd, "--%s: '%s' is not a number", opt, text);
        return -1;
    }
    if (value < min || value > max) {
        cli_usage_error(cmd, "--%s: '%s' is out of range (%g to %g)", opt, text,
                        min, max);
        return -1;
    }
    *out = value;
    return 0;
}

static const struct {
    const char *name;
    double      ns;
} duration_units[] = {
    {"ns", 1.0},
    {"us", 1e3},
    {"ms", 1e6},
    {"s", 1e9},
    {"m", 60e9},
    {"h", 3600e9},
    {"d", 86400e9},
    {NULL, 0.0}
};

/* A plain decimal with an optional exponent ("1.5", "2e3"): no sign, no
 * hex.  None of the unit letters below is an 'e', so an exponent cannot be
 * mistaken for one.  Returns the length of the number (0: none) and
 * stores its value. */
static size_t scan_decimal(const char *text, double *value)
{
    size_t len = 0, digits = 0, dots = 0;
    for (; isdigit((unsigned char)text[len]) || text[len] == '.'; len++) {
        if (text[len] == '.')
            dots++;
        else
            digits++;
    }
    if (digits == 0 || dots > 1 || len >= 48)
        return 0;
    if ((text[len] == 'e' || text[len] == 'E') && isdigit((unsigned char)text[len + 1])) {
        len++;
        while (isdigit((unsigned char)text[len]) && len < 48)
            len++;
    }
    char number[64];
    memcpy(number, text, len);
    number[len] = '\0';
    *value = strtod(number, NULL);
    return len;
}

/* 2^64 - 1 ns, the longest time the library counts: 213503 d 23 h. */
#define DURATION_LIMIT 18446744073709551615.0

int cli_parse_duration_ns(const char *cmd, const char *opt, const char *text,
                          uint64_t *out)
{
    double value = 0.0;
    size_t len = scan_decimal(text, &value);
    const char *unit = text + len;
    /* a bare number too large even as nanoseconds is too long, too */
    int too_long = len > 0 && *unit == '\0' && value >= DURATION_LIMIT;
    for (int i = 0; len > 0 && duration_units[i].name != NULL; i++) {
        if (strcmp(unit, duration_units[i].name) != 0)
            continue;
        double ns = value * duration_units[i].ns;
        too_long = ns >= DURATION_LIMIT;
        uint64_t rounded = too_long ? 0 : (uint64_t)(ns + 0.5);
        if (rounded == 0)
            break;
        *out = rounded;
        return 0;
    }
    if (too_long)
        cli_usage_error(cmd, "--%s: '%s' is too long: the longest duration is "
                        "213503d (2^64 - 1 ns, about 584 years)", opt, text);
    else
        cli_usage_error(cmd, "--%s: '%s' is not a positive duration "
                        "(a number with a unit: ns, us, ms, s, m, h, d)", opt, text);
    return -1;
}

/* Byte suffixes: powers of 1024 with or without "iB" (as memory sizes
 * usually are), powers of 1000 when spelt "kB", "MB", ... */
static const struct {
    const char *name;
    double      bytes;
} size_units[] = {
    {"", 1.0}, {"B", 1.0},
    {"K", 1024.0}, {"k", 1024.0}, {"KiB", 1024.0}, {"kB", 1e3}, {"KB", 1e3},
    {"M", 1048576.0}, {"MiB", 1048576.0}, {"MB", 1e6},
    {"G", 1073741824.0}, {"GiB", 1073741824.0}, {"GB", 1e9},
    {"T", 1099511627776.0}, {"TiB", 1099511627776.0}, {"TB", 1e12},
    {NULL, 0.0}
};

int cli_parse_size(const char *cmd, const char *opt, const char *text, uint64_t *out)
{
    double value = 0.0;
    size_t len = scan_decimal(text, &value);
    for (int i = 0; len > 0 && size_units[i].name != NULL; i++) {
        if (strcmp(text + len, size_units[i].name) != 0)
            continue;
        double bytes = value * size_units[i].bytes;
        if (bytes >= 18446744073709551615.0)
            break;
        if (bytes < 1.0)
            break;
        *out = (uint64_t)bytes;
        return 0;
    }
    cli_usage_error(cmd, "--%s: '%s' is not a size (bytes, or a number with K, M, G "
                    "or T: 512M, 4G, 1.5GiB; KB, MB, GB are powers of 1000)", opt, text);
    return -1;
}

/* ======================================================================
 * Formatting
 * ====================================================================== */

char *cli_format_count(char *buf, size_t size, uint64_t value)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)value);
    char grouped[32];
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            grouped[pos++] = ',';
        grouped[pos++] = digits[i];
    }
    grouped[pos] = '\0';
    snprintf(buf, size, "%s", grouped);
    return buf;
}

char *cli_format_bytes(char *buf, size_t size, uint64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    double value = (double)bytes / 1024.0;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        unit++;
    }
    if (value < 9.995)
        snprintf(buf, size, "%.2f %s", value, units[unit]);
    else if (value < 99.95)
        snprintf(buf, size, "%.1f %s", value, units[unit]);
    else
        snprintf(buf, size, "%.0f %s", value, units[unit]);
    return buf;
}

char *cli_format_duration_ns(char *buf, size_t size, uint64_t ns)
{
    /* Largest unit first; `from` is where it takes over, so that 90 s
     * stays "90 s" rather than "1.5 m". */
    static const struct {
        const char *name;
        double      ns;
        double      from;
    } units[] = {
        {"h", 3600e9, 36000e9},
        {"m", 60e9, 600e9},
        {"s", 1e9, 1e9},
        {"ms", 1e6, 1e6},
        {"us", 1e3, 1e3},
        {"ns", 1.0, 0.0},
    };
    if (ns == 0) {
        snprintf(buf, size, "0 s");
        return buf;
    }
    size_t unit = 0;
    while ((double)ns < units[unit].from)
        unit++;
    double value = (double)ns / units[unit].ns;
    snprintf(buf, size, value < 999.5 ? "%.3g %s" : "%.0f %s", value,
             units[unit].name);
    return buf;
}

/* ======================================================================
 * JSON writer
 * ====================================================================== */

void cli_json_init(cli_json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    memset(j->has_items, 0, sizeof j->has_items);
}

static void json_raw_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"':  fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (c < 0x20)
                fprintf(out, "\\u%04x", c);
            else
                fputc(c, out);
        }
    }
    fputc('"', out);
}

/* Comma and member name before a value. */
static void json_prefix(cli_json *j, const char *key)
{
    if (j->has_items[j->depth])
        fputc(',', j->out);
    j->has_items[j->depth] = 1;
    if (key != NULL) {
        json_raw_string(j->out, key);
        fputc(':', j->out);
    }
}

static void json_open(cli_json *j, const char *key, int bracket)
{
    json_prefix(j, key);
    fputc(bracket, j->out);
    if (j->depth + 1 < CLI_JSON_MAX_DEPTH)
        j->depth++;
    j->has_items[j->depth] = 0;
}

static void json_close(cli_json *j, int bracket)
{
    fputc(bracket, j->out);
    if (j->depth > 0)
        j->depth--;
}

void cli_json_object_begin(cli_json *j, const char *key) { json_open(j, key, '{'); }
void cli_json_object_end(cli_json *j) { json_close(j, '}'); }
void cli_json_array_begin(cli_json *j, const char *key) { json_open(j, key, '['); }
void cli_json_array_end(cli_json *j) { json_close(j, ']'); }

void cli_json_u64(cli_json *j, const char *key, uint64_t value)
{
    json_prefix(j, key);
    fprintf(j->out, "%llu", (unsigned long long)value);
}

void cli_json_i64(cli_json *j, const char *key, int64_t value)
{
    json_prefix(j, key);
    fprintf(j->out, "%lld", (long long)value);
}

void cli_json_double(cli_json *j, const char *key, double value)
{
    json_prefix(j, key);
    if (isfinite(value))
        fprintf(j->out, "%.10g", value);
    else
        fputs("null", j->out);
}

void cli_json_bool(cli_json *j, const char *key, int value)
{
    json_prefix(j, key);
    fputs(value ? "true" : "false", j->out);
}

void cli_json_string(cli_json *j, const char *key, const char *value)
{
    json_prefix(j, key);
    if (value != NULL)
        json_raw_string(j->out, value);
    else
        fputs("null", j->out);
}

/* ======================================================================
 * Clock
 * ====================================================================== */

void cli_progress(const char *command, const char *fmt, ...)
{
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\rtdbf %s: %s\033[K", command, line);
    fflush(stderr);
}

void cli_progress_clear(void)
{
    fputs("\r\033[K", stderr);
    fflush(stderr);
}

uint64_t cli_now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

int cli_chunk_times_add(cli_chunk_times *t, uint64_t elapsed_ns, uint64_t ops)
{
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? 2 * t->capacity : 1024;
        double *grown = realloc(t->ns_per_op, capacity * sizeof *grown);
        if (grown == NULL)
            return -1;
        t->ns_per_op = grown;
        t->capacity = capacity;
    }
    t->ns_per_op[t->count++] = (double)elapsed_ns / (double)ops;
    return 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cli_chunk_times_median(cli_chunk_times *t)
{
    size_t n = t->count;
    if (n == 0)
        return NAN;
    qsort(t->ns_per_op, n, sizeof *t->ns_per_op, compare_doubles);
    return n % 2 ? t->ns_per_op[n / 2]
                 : (t->ns_per_op[n / 2 - 1] + t->ns_per_op[n / 2]) / 2.0;
}

void cli_chunk_times_reset(cli_chunk_times *t)
{
    t->count = 0;
}

void cli_chunk_times_free(cli_chunk_times *t)
{
    free(t->ns_per_op);
    memset(t, 0, sizeof *t);
}

/* ======================================================================
 * Pseudo-random numbers
 * ====================================================================== */

uint64_t cli_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    return x ^ (x >> 33);
}

uint64_t cli_rng_next(uint64_t *state)
{
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return cli_mix64(*state);
}

/* ======================================================================
 * Tables
 * ====================================================================== */

void cli_table_init(cli_table *t, size_t cols, const char *align)
{
    memset(t, 0, sizeof *t);
    if (cols > CLI_TABLE_MAX_COLS)
        cols = CLI_TABLE_MAX_COLS;
    t->cols = cols;
    for (size_t c = 0; c < cols; c++) {
        if (align != NULL && c < strlen(align))
            t->align[c] = align[c];
        else
            t->align[c] = c == 0 ? 'l' : 'r';
    }
}

void cli_table_cell(cli_table *t, const char *fmt, ...)
{
    if (t->failed || t->cols == 0)
        return;
    if (t->rows == 0 || t->filled == t->cols) {
        if (t->rows == t->capacity) {
            size_t capacity = t->capacity == 0 ? 16 : 2 * t->capacity;
            void *grown = realloc(t->cells, capacity * t->cols * CLI_TABLE_CELL);
            if (grown == NULL) {
                t->failed = 1;
                return;
            }
            t->cells = grown;
            t->capacity = capacity;
        }
        t->rows++;
        t->filled = 0;
        for (size_t c = 0; c < t->cols; c++)
            t->cells[(t->rows - 1) * t->cols + c][0] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->cells[(t->rows - 1) * t->cols + t->filled], CLI_TABLE_CELL,
              fmt, ap);
    va_end(ap);
    t->filled++;
}

int cli_table_print(const cli_table *t, FILE *out, const char *indent,
                    int header_rule)
{
    if (t->failed)
        return -1;
    size_t width[CLI_TABLE_MAX_COLS] = {0};
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++) {
            size_t w = strlen(t->cells[r * t->cols + c]);
            if (w > width[c])
                width[c] = w;
        }
    size_t total = 0;
    for (size_t c = 0; c < t->cols; c++)
        total += width[c] + (c > 0 ? 2 : 0);

    /* Each line is built in memory so that trailing blanks (empty or
     * left-aligned last cells) can be dropped. */
    size_t line_size = strlen(indent) + total + 1;
    char *line = malloc(line_size);
    if (line == NULL)
        return -1;
    for (size_t r = 0; r < t->rows; r++) {
        size_t len = (size_t)snprintf(line, line_size, "%s", indent);
        for (size_t c = 0; c < t->cols; c++) {
            const char *cell = t->cells[r * t->cols + c];
            len += (size_t)snprintf(line + len, line_size - len,
                                    t->align[c] == 'l' ? "%s%-*s" : "%s%*s",
                                    c > 0 ? "  " : "", (int)width[c], cell);
        }
        while (len > 0 && line[len - 1] == ' ')
            line[--len] = '\0';
        fprintf(out, "%s\n", line);
        if (r == 0 && header_rule) {
            fputs(indent, out);
            for (size_t i = 0; i < total; i++)
                fputc('-', out);
            fputc('\n', out);
        }
    }
    free(line);
    return 0;
}

void cli_table_free(cli_table *t)
{
    free(t->cells);
    t->cells = NULL;
    t->rows = t->capacity = t->filled = 0;
}
