/*
 * numbers.h — strict parsing of counts, probabilities, reals, durations and sizes (the tdbf command-line tool).
 */
#ifndef TDBF_CLI_COMMON_NUMBERS_H
#define TDBF_CLI_COMMON_NUMBERS_H

#include <stdint.h>

#include "tdbf.h"

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

#endif /* TDBF_CLI_COMMON_NUMBERS_H */
