/*
 * numbers.c — strict parsing of counts, probabilities, reals, durations and sizes (see numbers.h).
 */
#include "numbers.h"
#include "diag.h"
#include "format.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
