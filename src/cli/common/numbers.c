/*
 * numbers.c — strict parsing of counts, probabilities, reals, durations
 * and sizes (see numbers.h): the syntax is the library's parameter
 * language (tdbf_parse_*), shared with the Python package and the Redis
 * module; this file adds the tool's ranges and its usage errors.
 */
#include "numbers.h"
#include "diag.h"
#include "format.h"
#include "tdbf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cli_scan_count(const char *text, uint64_t *out)
{
    return tdbf_parse_count(text, out, NULL, 0) == TDBF_OK ? 0 : -1;
}

int cli_parse_count(const char *cmd, const char *opt, const char *text,
                    uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t value;
    char why[200];
    if (tdbf_parse_count(text, &value, why, sizeof why) != TDBF_OK) {
        cli_usage_error(cmd, "--%s: %s", opt, why);
        return -1;
    }
    char limit[32];
    if (value == 0 && min > 0) {
        cli_usage_error(cmd, "--%s: '%s' is not a positive integer", opt, text);
        return -1;
    }
    if (value > max) {
        cli_usage_error(cmd, "--%s: '%s' is too large (at most %s)", opt, text,
                        cli_format_count(limit, sizeof limit, max));
        return -1;
    }
    if (value < min) {
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
    char why[200];
    if (tdbf_parse_error(text, out, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
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

int cli_parse_duration_ns(const char *cmd, const char *opt, const char *text,
                          uint64_t *out)
{
    char why[200];
    if (tdbf_parse_duration(text, out, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
    return -1;
}

int cli_parse_size(const char *cmd, const char *opt, const char *text, uint64_t *out)
{
    char why[240];
    if (tdbf_parse_size(text, out, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
    return -1;
}

int cli_parse_window(const char *cmd, const char *opt, const char *text, uint64_t *items,
                     uint64_t *ns)
{
    char why[200];
    if (tdbf_parse_window(text, items, ns, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
    return -1;
}

int cli_config_set(const char *cmd, const char *opt, tdbf_config *cfg, unsigned *given,
                   tdbf_option which, const char *text)
{
    char why[240];
    if (tdbf_config_set(cfg, given, which, text, why, sizeof why) == TDBF_OK)
        return 0;
    cli_usage_error(cmd, "--%s: %s", opt, why);
    return -1;
}

int cli_parse_design(const char *cmd, const char *opt, const char *text, tdbf_design *out)
{
    tdbf_config scratch;
    unsigned given = 0;
    tdbf_config_init(&scratch);
    if (cli_config_set(cmd, opt, &scratch, &given, TDBF_OPT_DESIGN, text) != 0)
        return -1;
    *out = scratch.design;
    return 0;
}
