/*
 * dedup_time.h — the timestamps of `tdbf dedup --time-format`: unix,
 * unix_ms, unix_us, unix_ns, iso8601, and strptime-style patterns.
 *
 * Pure: no clock, no locale.  dedup_parse.c cuts a line's time fields
 * and hands their text here; the fuzz target drives both.
 */
#ifndef TDBF_CLI_DEDUP_TIME_H
#define TDBF_CLI_DEDUP_TIME_H

#include <stddef.h>
#include <stdint.h>

/* Where a line's time comes from. */
typedef enum dedup_time_format {
    DEDUP_TIME_ARRIVAL = 0,  /* the clock when the line was read */
    DEDUP_TIME_UNIX,         /* seconds since 1970, fraction allowed */
    DEDUP_TIME_UNIX_MS,      /* milliseconds since 1970, fraction allowed */
    DEDUP_TIME_UNIX_US,      /* microseconds since 1970, fraction allowed */
    DEDUP_TIME_UNIX_NS,      /* nanoseconds since 1970, an integer */
    DEDUP_TIME_ISO8601,      /* 2024-05-01T12:00:00.5Z, offsets, UTC default */
    DEDUP_TIME_PATTERN       /* a strptime-style pattern: dedup_check_time_pattern */
} dedup_time_format;

/* Blanks as fields and patterns mean them: space and tab. */
int dedup_is_blank(char c);

/* c with ASCII letters folded to lower case, other bytes as they are. */
char dedup_ascii_lower(char c);

/* Name of a time format as --time-format spells it ("unix_ms"; "pattern"
 * for DEDUP_TIME_PATTERN, whose text is the pattern itself). */
const char *dedup_time_format_name(dedup_time_format format);

/* The named format `text` spells (unix ... iso8601; not "arrival", the
 * default, nor "pattern": a pattern is asked for by writing one).
 * Returns 0 and sets *out, or -1. */
int dedup_time_format_parse(const char *text, dedup_time_format *out);

/* Check a --time-format pattern.  Returns NULL if it reads a full time,
 * else a static phrase saying why not ("is a conversion this tdbf does
 * not read"); then, if fault is not NULL, *fault points at the
 * conversion to blame in the pattern, or is NULL when the pattern as a
 * whole falls short ("does not give a full time"). */
const char *dedup_check_time_pattern(const char *pattern, const char **fault);

/* 1 if a pattern dedup_check_time_pattern accepts names the year (%Y,
 * or %s), 0 if it takes it from a reference time. */
int dedup_time_pattern_has_year(const char *pattern);

/* Parse one timestamp text[0 .. len) in a named `format` (not ARRIVAL nor
 * PATTERN).  Blanks and a carriage return around it are ignored.
 * iso8601 needs the date and the time to the second (a date alone is not
 * midnight): YYYY-MM-DD, 'T' or one blank, hh:mm:ss, then optionally a
 * fraction (. or ,) and a zone (Z, +hh, +hhmm, +hh:mm; none is UTC).
 * Returns 0 and sets *ns, or -1 (malformed, an impossible date or time,
 * before 1970, or past the year 2554 where uint64 ns end). */
int dedup_parse_time(dedup_time_format format, const char *text, size_t len,
                     uint64_t *ns);

/* Parse text[0 .. len) (blanks and a CR around it ignored) with a pattern
 * that dedup_check_time_pattern accepts.  Conversions: %Y year (4
 * digits), %m month, %d day, %e day (may be blank-padded), %H, %M, %S
 * (1 or 2 digits; a second of 60 is a leap second), %b / %B month name in
 * English (abbreviated or full, any case), %T = %H:%M:%S, %z zone (Z,
 * +hh, +hhmm, +hh:mm), %s seconds since 1970, %f fraction of a second
 * (any digits), %% a '%'; a run of blanks matches one or more blanks,
 * any other byte itself.  No %z: UTC.  No year: the year of reference_ns,
 * or the one before if that puts the time more than a day after the
 * reference (December's lines read in January).  Returns 0 and sets
 * *ns, or -1 as dedup_parse_time. */
int dedup_parse_time_pattern(const char *pattern, const char *text, size_t len,
                             uint64_t reference_ns, uint64_t *ns);

#endif /* TDBF_CLI_DEDUP_TIME_H */
