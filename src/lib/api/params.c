/*
 * params.c — the parameter language every front reads options with
 * (include/tdbf.h, "The parameter language"; docs/options.md).
 *
 * The tool, the Python package and the Redis module each spell an option
 * their own way (--window, window=, WINDOW) but hand its text here, so a
 * value means the same on every front and a bad one is refused with the
 * same reason.  Nothing here reads the locale: strtod would take "0,01"
 * in a process that set LC_NUMERIC, and "0.01" would stop at the point.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tdbf.h"
#include "util/wide.h"

/* 2^64 as a double: every count of ns or bytes stays below it. */
#define U64_LIMIT 18446744073709551616.0

/* Texts longer than this are quoted cut short in reasons. */
#define QUOTE_MAX 40

static int refuse(char *why, size_t why_size, const char *fmt, ...)
{
    if (why != NULL && why_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_size, fmt, ap);
        va_end(ap);
    }
    return TDBF_EINVAL;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* ---- counts ------------------------------------------------------------ */

static const struct {
    const char *name;
    uint64_t    factor;
} count_suffixes[] = {
    {"k", UINT64_C(1000)},          {"K", UINT64_C(1000)},
    {"M", UINT64_C(1000000)},       {"G", UINT64_C(1000000000)},
    {"T", UINT64_C(1000000000000)},
    {"Ki", UINT64_C(1) << 10},      {"Mi", UINT64_C(1) << 20},
    {"Gi", UINT64_C(1) << 30},      {"Ti", UINT64_C(1) << 40},
    {NULL, 0}
};

enum { SCAN_OK = 0, SCAN_MALFORMED = -1, SCAN_OVERFLOW = -2 };

static int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int scan_hex(const char *s, uint64_t *out)
{
    uint64_t value = 0;
    if (*s == '\0')
        return SCAN_MALFORMED;
    for (; *s != '\0'; s++) {
        int d = hex_value(*s);
        if (d < 0)
            return SCAN_MALFORMED;
        if (value > UINT64_MAX >> 4)
            return SCAN_OVERFLOW;
        value = value << 4 | (uint64_t)d;
    }
    *out = value;
    return SCAN_OK;
}

/* value * 10^exponent, the exponent's digits at s ("1e6": exact, no
 * fraction, nothing after it). */
static int scale_by_exponent(const char *s, uint64_t value, uint64_t *out)
{
    unsigned exponent = 0;
    for (; is_digit(*s); s++) {
        exponent = exponent * 10 + (unsigned)(*s - '0');
        if (exponent > 19)
            return value == 0 ? SCAN_MALFORMED : SCAN_OVERFLOW;
    }
    if (*s != '\0')
        return SCAN_MALFORMED;
    for (unsigned i = 0; i < exponent; i++) {
        if (value > UINT64_MAX / 10)
            return SCAN_OVERFLOW;
        value *= 10;
    }
    *out = value;
    return SCAN_OK;
}

static int scale_by_suffix(const char *s, uint64_t value, uint64_t *out)
{
    if (*s != '\0') {
        int i = 0;
        while (count_suffixes[i].name != NULL && strcmp(count_suffixes[i].name, s) != 0)
            i++;
        if (count_suffixes[i].name == NULL)
            return SCAN_MALFORMED;
        if (value > UINT64_MAX / count_suffixes[i].factor)
            return SCAN_OVERFLOW;
        value *= count_suffixes[i].factor;
    }
    *out = value;
    return SCAN_OK;
}

static int scan_count(const char *text, uint64_t *out)
{
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        return scan_hex(text + 2, out);
    const char *s = text;
    uint64_t value = 0;
    if (!is_digit(*s))
        return SCAN_MALFORMED;
    for (; is_digit(*s) || *s == '_'; s++) {
        if (*s == '_') {
            if (!is_digit(s[-1]) || !is_digit(s[1]))  /* only between digits */
                return SCAN_MALFORMED;
            continue;
        }
        uint64_t digit = (uint64_t)(*s - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return SCAN_OVERFLOW;
        value = value * 10 + digit;
    }
    if ((*s == 'e' || *s == 'E') && is_digit(s[1]))
        return scale_by_exponent(s + 1, value, out);
    return scale_by_suffix(s, value, out);
}

static const char count_examples[] = "1000, 1_000_000, 1e6, 1M = 10^6, 64Ki = 65536";

int tdbf_parse_count(const char *text, uint64_t *out, char *why, size_t why_size)
{
    if (text == NULL || out == NULL)
        return refuse(why, why_size, "no value");
    uint64_t value;
    int rc = scan_count(text, &value);
    if (rc == SCAN_OVERFLOW)
        return refuse(why, why_size, "'%.*s' is too large (at most 2^64 - 1)", QUOTE_MAX, text);
    if (rc != SCAN_OK)
        return refuse(why, why_size, "'%.*s' is not a count (%s)", QUOTE_MAX,
                      text, count_examples);
    *out = value;
    return TDBF_OK;
}

/* A count of at least 1 (a window, a capacity). */
static int parse_positive(const char *text, uint64_t *out, char *why, size_t why_size)
{
    uint64_t value;
    int rc = tdbf_parse_count(text, &value, why, why_size);
    if (rc == TDBF_OK && value == 0)
        return refuse(why, why_size, "'%.*s' is not a positive integer (%s)", QUOTE_MAX,
                      text, count_examples);
    if (rc == TDBF_OK)
        *out = value;
    return rc;
}

/* ---- decimals, without the locale -------------------------------------- */

/* 10^n, exact in a double up to 10^22 (and in a long double further where
 * it is wider). */
static long double power_of_ten(unsigned n)
{
    long double p = 1.0L;
    for (unsigned i = 0; i < n; i++)
        p *= 10.0L;
    return p;
}

/* Significant bits of x (0 for 0). */
static unsigned bit_length(uint64_t x)
{
    unsigned n = 0;
    for (; x != 0; x >>= 1)
        n++;
    return n;
}

/* The double nearest n * 2^shift, n > 0, where `sticky` says nonzero bits
 * were already dropped below n's last (n then has more than 54 bits).
 * Rounds n to 53 bits in integers, half to even, and scales exactly with
 * ldexp: no floating-point operation rounds, so the result is the same
 * on every FPU (x87's extended registers would round twice). */
static double round_wide(tdbf_u128 n, int sticky, int shift)
{
    unsigned bits = n.hi != 0 ? 64 + bit_length(n.hi) : bit_length(n.lo);
    if (bits <= 53)
        return ldexp((double)n.lo, shift);
    unsigned drop = bits - 53;
    uint64_t keep, rest_top, rest_low;   /* the dropped bits: top one, others != 0 */
    if (drop < 64) {
        keep = (n.lo >> drop) | (drop == 0 ? 0 : n.hi << (64 - drop));
        rest_top = (n.lo >> (drop - 1)) & 1u;
        rest_low = drop > 1 ? n.lo & ((UINT64_C(1) << (drop - 1)) - 1) : 0;
    } else {
        keep = n.hi >> (drop - 64);
        rest_top = drop == 64 ? n.lo >> 63 : (n.hi >> (drop - 65)) & 1u;
        rest_low = drop == 64 ? n.lo & (UINT64_MAX >> 1)
                              : (n.hi & ((UINT64_C(1) << (drop - 65)) - 1)) | n.lo;
    }
    int below_half = rest_low != 0 || sticky;
    if (rest_top && (below_half || (keep & 1u)))
        keep++;
    if (keep == UINT64_C(1) << 53) {
        keep >>= 1;
        drop++;
    }
    return ldexp((double)keep, (int)drop + shift);
}

static uint64_t power_of_five(unsigned n)   /* n <= 27: below 2^63 */
{
    uint64_t p = 1;
    for (unsigned i = 0; i < n; i++)
        p *= 5;
    return p;
}

/* mantissa * 10^scale as the double nearest it.  10^s = 5^s 2^s, and for
 * |scale| <= 22, 5^s < 2^52: the product, or the quotient to 56 bits and
 * more with its remainder, is exact in integers and round_wide rounds it
 * once, so "0.001" is the double nearest 0.001 on every machine.  Beyond
 * that (a decimal of more than 22 digits' scale) through a long double,
 * within an ulp. */
static double scale_decimal(uint64_t mantissa, int scale)
{
    if (mantissa == 0)
        return 0.0;
    if (scale >= 0 && scale <= 22)
        return round_wide(tdbf_mul_wide(mantissa, power_of_five((unsigned)scale)), 0, scale);
    if (scale < 0 && scale >= -22) {
        uint64_t divisor = power_of_five((unsigned)-scale);
        unsigned want = 56 + bit_length(divisor);
        unsigned up = want > bit_length(mantissa) ? want - bit_length(mantissa) : 0;
        tdbf_u128 n;
        n.hi = up == 0 ? 0 : up >= 64 ? mantissa << (up - 64) : mantissa >> (64 - up);
        n.lo = up >= 64 ? 0 : mantissa << up;
        uint64_t rest;
        tdbf_u128 q = { 0, tdbf_div_wide(n, divisor, &rest) };
        return round_wide(q, rest != 0, scale - (int)up);
    }
    long double value = (long double)mantissa;
    for (; scale > 22; scale -= 22)
        value *= 1e22L;
    for (; scale < -22; scale += 22)
        value /= 1e22L;
    long double p = power_of_ten((unsigned)(scale < 0 ? -scale : scale));
    return (double)(scale < 0 ? value / p : value * p);
}

/* A decimal at s: digits with at most one '.', then an optional exponent
 * (e, an optional sign, digits).  No sign in front, no hex, no "inf".
 * Returns the characters read (0: no number), the value being
 * *mantissa * 10^*scale (up to 19 significant digits are kept). */
static size_t scan_decimal_parts(const char *s, uint64_t *mantissa_out, int *scale_out)
{
    uint64_t mantissa = 0;
    int scale = 0;
    size_t len = 0, digits = 0;
    int seen_point = 0;
    for (;; len++) {
        char c = s[len];
        if (c == '.' && !seen_point) {
            seen_point = 1;
            continue;
        }
        if (!is_digit(c))
            break;
        digits++;
        if (mantissa < UINT64_C(1000000000000000000)) {
            mantissa = mantissa * 10 + (uint64_t)(c - '0');
            scale -= seen_point;
        } else {
            scale += !seen_point;  /* a digit past the 19th: dropped */
        }
    }
    if (digits == 0)
        return 0;
    if ((s[len] == 'e' || s[len] == 'E') &&
        (is_digit(s[len + 1]) || ((s[len + 1] == '-' || s[len + 1] == '+') && is_digit(s[len + 2])))) {
        size_t at = len + 1;
        int negative = s[at] == '-';
        at += s[at] == '-' || s[at] == '+';
        int exponent = 0;
        for (; is_digit(s[at]); at++)
            exponent = exponent < 10000 ? exponent * 10 + (s[at] - '0') : exponent;
        scale += negative ? -exponent : exponent;
        len = at;
    }
    *mantissa_out = mantissa;
    *scale_out = scale;
    return len;
}

static size_t scan_decimal(const char *s, double *out)
{
    uint64_t mantissa;
    int scale;
    size_t len = scan_decimal_parts(s, &mantissa, &scale);
    if (len > 0)
        *out = scale_decimal(mantissa, scale);
    return len;
}

/* A C99 hexadecimal float ("0x1.47ae147ae147bp-7", as printf's %a and
 * Python's float.hex() write it): read exactly, so a front that passes a
 * double on as text gets the very same double back. */
static size_t scan_hex_float(const char *s, double *out)
{
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return 0;
    uint64_t mantissa = 0;
    long exponent = 0;
    size_t len = 2, digits = 0;
    int seen_point = 0;
    for (;; len++) {
        if (s[len] == '.' && !seen_point) {
            seen_point = 1;
            continue;
        }
        int d = hex_value(s[len]);
        if (d < 0)
            break;
        digits++;
        if (mantissa >> 60 == 0) {
            mantissa = mantissa << 4 | (uint64_t)d;
            exponent -= seen_point ? 4 : 0;
        } else {
            exponent += seen_point ? 0 : 4;   /* beyond 64 bits: dropped */
        }
    }
    if (digits == 0 || (s[len] != 'p' && s[len] != 'P'))
        return 0;
    size_t at = len + 1;
    int negative = s[at] == '-';
    at += s[at] == '-' || s[at] == '+';
    if (!is_digit(s[at]))
        return 0;
    long power = 0;
    for (; is_digit(s[at]); at++)
        power = power < 100000 ? power * 10 + (s[at] - '0') : power;
    exponent += negative ? -power : power;
    if (exponent < -2000)
        exponent = -2000;
    if (exponent > 2000)
        exponent = 2000;
    double value = (double)mantissa;   /* rounds once if over 53 bits */
    for (; exponent > 0; exponent--)
        value *= 2.0;
    for (; exponent < 0; exponent++)
        value /= 2.0;
    *out = value;
    return at;
}

int tdbf_parse_error(const char *text, double *out, char *why, size_t why_size)
{
    if (text == NULL || out == NULL)
        return refuse(why, why_size, "no value");
    double value = 0.0;
    size_t len = scan_hex_float(text, &value);
    if (len == 0) {
        uint64_t mantissa;
        int scale;
        len = scan_decimal_parts(text, &mantissa, &scale);
        if (len > 0 && text[len] == '%') {
            scale -= 2;           /* exact: "0.3%" is the double nearest 0.003 */
            len++;
        }
        if (len > 0)
            value = scale_decimal(mantissa, scale);
    }
    if (len == 0 || text[len] != '\0' || !(value > 0.0 && value < 1.0))
        return refuse(why, why_size, "'%.*s' is not a probability strictly between 0 and 1 "
                      "(0.01, 1e-2 or 1%%)", QUOTE_MAX, text);
    *out = value;
    return TDBF_OK;
}

/* ---- durations and sizes ------------------------------------------------- */

static const struct {
    const char *name;
    double      ns;
} duration_units[] = {
    /* two-letter units first: "ms" is not "m" followed by a stray "s" */
    {"ns", 1.0}, {"us", 1e3}, {"ms", 1e6},
    {"s", 1e9},  {"m", 60e9}, {"h", 3600e9}, {"d", 86400e9},
    {NULL, 0.0}
};

/* One <number><unit> term at *p, added to *total.  Returns 0 or -1. */
static int duration_term(const char **p, double *total)
{
    double value;
    size_t len = scan_decimal(*p, &value);
    if (len == 0)
        return -1;
    const char *unit = *p + len;
    for (int i = 0; duration_units[i].name != NULL; i++) {
        size_t n = strlen(duration_units[i].name);
        if (strncmp(unit, duration_units[i].name, n) == 0 &&
            !(unit[n] >= 'a' && unit[n] <= 'z')) {
            *total += value * duration_units[i].ns;
            *p = unit + n;
            return 0;
        }
    }
    return -1;
}

/* The ns of a duration text: 0 = ok, -1 malformed, -2 out of range. */
static int scan_duration(const char *text, uint64_t *ns)
{
    const char *p = text;
    double total = 0.0;
    if (*p == '\0')
        return -1;
    while (*p != '\0')
        if (duration_term(&p, &total) != 0)
            return -1;
    if (!(total + 0.5 >= 1.0) || total + 0.5 >= U64_LIMIT)
        return -2;
    *ns = (uint64_t)(total + 0.5);
    return 0;
}

static const char duration_examples[] = "10m, 1h30m, 1.5s, 250ms; units ns us ms s m h d";

int tdbf_parse_duration(const char *text, uint64_t *ns, char *why, size_t why_size)
{
    if (text == NULL || ns == NULL)
        return refuse(why, why_size, "no value");
    int rc = scan_duration(text, ns);
    if (rc == -2)
        return refuse(why, why_size, "'%.*s' is out of range (1ns .. 213503d, 2^64 - 1 ns)",
                      QUOTE_MAX, text);
    if (rc != 0)
        return refuse(why, why_size, "'%.*s' is not a duration (%s)", QUOTE_MAX, text,
                      duration_examples);
    return TDBF_OK;
}

static const struct {
    const char *name;
    double      bytes;
} size_units[] = {
    /* memory sizes are powers of 1024, with or without "iB"; "kB", "MB"
     * ... are powers of 1000 */
    {"", 1.0}, {"B", 1.0},
    {"K", 1024.0}, {"k", 1024.0}, {"KiB", 1024.0}, {"kB", 1e3}, {"KB", 1e3},
    {"M", 1048576.0}, {"MiB", 1048576.0}, {"MB", 1e6},
    {"G", 1073741824.0}, {"GiB", 1073741824.0}, {"GB", 1e9},
    {"T", 1099511627776.0}, {"TiB", 1099511627776.0}, {"TB", 1e12},
    {NULL, 0.0}
};

int tdbf_parse_size(const char *text, uint64_t *bytes, char *why, size_t why_size)
{
    if (text == NULL || bytes == NULL)
        return refuse(why, why_size, "no value");
    double value = 0.0;
    size_t len = scan_decimal(text, &value);
    for (int i = 0; len > 0 && size_units[i].name != NULL; i++) {
        if (strcmp(text + len, size_units[i].name) != 0)
            continue;
        double total = value * size_units[i].bytes;
        if (total >= 1.0 && total < U64_LIMIT) {
            *bytes = (uint64_t)total;
            return TDBF_OK;
        }
        break;
    }
    return refuse(why, why_size, "'%.*s' is not a size of at least 1 byte (bytes, or a "
                  "number with K, M, G or T: 512M, 4G, 1.5GiB; kB, MB, GB are powers of 1000)",
                  QUOTE_MAX, text);
}

int tdbf_parse_window(const char *text, uint64_t *items, uint64_t *ns, char *why,
                      size_t why_size)
{
    if (text == NULL || items == NULL || ns == NULL)
        return refuse(why, why_size, "no value");
    uint64_t value;
    int rc = scan_count(text, &value);
    if (rc == SCAN_OK && value > 0) {
        *items = value;
        *ns = 0;
        return TDBF_OK;
    }
    if (rc == SCAN_OVERFLOW || (rc == SCAN_OK && value == 0))
        return parse_positive(text, &value, why, why_size);
    rc = scan_duration(text, &value);
    if (rc == 0) {
        *items = 0;
        *ns = value;
        return TDBF_OK;
    }
    if (rc == -2)
        return tdbf_parse_duration(text, &value, why, why_size);
    return refuse(why, why_size, "'%.*s' is neither a count of insertions (1000, 1e6, 1M = "
                  "10^6) nor a duration (10m, 1h30m, 250ms)", QUOTE_MAX, text);
}

/* ---- options ------------------------------------------------------------- */

static const char *const option_names[TDBF_OPTION_COUNT] = {
    "window", "error", "capacity", "seed", "design", "max-memory"
};

const char *tdbf_option_name(tdbf_option opt)
{
    return (unsigned)opt < TDBF_OPTION_COUNT ? option_names[opt] : NULL;
}

/* A design by name: any case, '_' for '-' ("apbf_line" as Python users
 * write identifiers), and one this build has. */
static int parse_design(const char *text, tdbf_design *out, char *why, size_t why_size)
{
    char spelled[32];
    size_t len = strlen(text);
    if (len < sizeof spelled) {
        for (size_t i = 0; i <= len; i++)
            spelled[i] = text[i] == '_' ? '-' : text[i];
        if (tdbf_design_parse(spelled, out) == TDBF_OK && tdbf_design_available(*out))
            return TDBF_OK;
    }
    char names[256] = "";
    for (int d = 0; d < TDBF_DESIGN_COUNT; d++) {
        if (!tdbf_design_available((tdbf_design)d))
            continue;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                 tdbf_design_name((tdbf_design)d));
    }
    return refuse(why, why_size, "unknown design '%.*s' (one of %s)", QUOTE_MAX, text, names);
}

static int parse_seed(const char *text, uint64_t *seed, char *why, size_t why_size)
{
    uint64_t value;
    if (scan_count(text, &value) == SCAN_OK && value == 0)
        return refuse(why, why_size, "0 is not a seed: leave the seed out for a random one");
    return tdbf_parse_count(text, seed, why, why_size);
}

/* Parse text as option opt into a copy of the fields it sets. */
static int parse_option(tdbf_config *c, tdbf_option opt, const char *text, char *why,
                        size_t why_size)
{
    switch (opt) {
    case TDBF_OPT_WINDOW:
        return tdbf_parse_window(text, &c->window_items, &c->window_ns, why, why_size);
    case TDBF_OPT_ERROR:
        return tdbf_parse_error(text, &c->error, why, why_size);
    case TDBF_OPT_CAPACITY:
        return parse_positive(text, &c->capacity, why, why_size);
    case TDBF_OPT_SEED:
        return parse_seed(text, &c->seed, why, why_size);
    case TDBF_OPT_DESIGN:
        return parse_design(text, &c->design, why, why_size);
    case TDBF_OPT_MAX_MEMORY:
        return tdbf_parse_size(text, &c->max_memory, why, why_size);
    }
    return refuse(why, why_size, "unknown option %d", (int)opt);
}

int tdbf_config_set(tdbf_config *cfg, unsigned *given, tdbf_option opt, const char *text,
                    char *why, size_t why_size)
{
    if (cfg == NULL || given == NULL || (unsigned)opt >= TDBF_OPTION_COUNT)
        return refuse(why, why_size, "invalid argument");
    if (text == NULL)
        return refuse(why, why_size, "a value is required");
    if (*given & (1u << opt))
        return refuse(why, why_size, "given twice (once is enough: which one was meant?)");
    tdbf_config next = *cfg;
    int rc = parse_option(&next, opt, text, why, why_size);
    if (rc != TDBF_OK)
        return rc;
    *cfg = next;
    *given |= 1u << opt;
    return TDBF_OK;
}

int tdbf_config_check(tdbf_config *cfg, unsigned given, char *why, size_t why_size)
{
    if (cfg == NULL)
        return refuse(why, why_size, "invalid argument");
    int timed = cfg->window_ns != 0;
    if (!(given & (1u << TDBF_OPT_WINDOW)) && cfg->window_items == 0 && !timed)
        return refuse(why, why_size, "a window is required: a count of insertions (1M) or "
                      "a duration (10m)");
    if ((given & (1u << TDBF_OPT_CAPACITY)) && !timed)
        return refuse(why, why_size, "capacity applies to a time window (keys expected per "
                      "window); a count window is sized by the window itself");
    if (!(given & (1u << TDBF_OPT_DESIGN)))
        cfg->design = timed ? TDBF_TLBF_LINE : TDBF_APBF_LINE;
    return TDBF_OK;
}
