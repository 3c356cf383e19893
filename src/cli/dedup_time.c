/*
 * dedup_time.c — the timestamps `tdbf dedup --time-format` reads (see
 * dedup_time.h): seconds since 1970 at four scales, ISO 8601 to the
 * second, and strptime-style patterns.
 *
 * Pure functions, no clock and no locale: a pattern without a year takes
 * it from a reference the caller passes, and month names are English, so
 * a log replays to the same times on every machine.  Every result is
 * checked to be a real instant (no February 30th, no hour 24) in the
 * range of uint64 nanoseconds since 1970 (up to the year 2554).
 */
#include "dedup_time.h"

#include <string.h>

#define NS_PER_S UINT64_C(1000000000)

/* ======================================================================
 * Bytes
 * ====================================================================== */

int dedup_is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* ASCII only: a locale's idea of case would read the same bytes two ways
 * on two machines. */
char dedup_ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* ======================================================================
 * Format names
 * ====================================================================== */

static const char *const time_format_names[] = {
    [DEDUP_TIME_ARRIVAL] = "arrival",
    [DEDUP_TIME_UNIX]    = "unix",
    [DEDUP_TIME_UNIX_MS] = "unix_ms",
    [DEDUP_TIME_UNIX_US] = "unix_us",
    [DEDUP_TIME_UNIX_NS] = "unix_ns",
    [DEDUP_TIME_ISO8601] = "iso8601",
    [DEDUP_TIME_PATTERN] = "pattern",
};

#define TIME_FORMAT_COUNT (sizeof time_format_names / sizeof time_format_names[0])

const char *dedup_time_format_name(dedup_time_format format)
{
    return (unsigned)format < TIME_FORMAT_COUNT ? time_format_names[format]
                                                : "?";
}

int dedup_time_format_parse(const char *text, dedup_time_format *out)
{
    /* "arrival" is the default, not a format one can ask for; a pattern
     * is asked for by writing one */
    for (unsigned i = DEDUP_TIME_UNIX; i <= DEDUP_TIME_ISO8601; i++)
        if (strcmp(text, time_format_names[i]) == 0) {
            *out = (dedup_time_format)i;
            return 0;
        }
    return -1;
}

/* ======================================================================
 * Numbers, dates and zones
 * ====================================================================== */

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Drop blanks around a time, and the CR of a CRLF line whose last field
 * it is. */
static void trim_time_text(const char **text, size_t *len)
{
    while (*len > 0 && (dedup_is_blank((*text)[0]) || (*text)[0] == '\r')) {
        (*text)++;
        (*len)--;
    }
    while (*len > 0 && (dedup_is_blank((*text)[*len - 1]) || (*text)[*len - 1] == '\r'))
        (*len)--;
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

/* A UTC offset: Z, or +hh, +hhmm, +hh:mm (or -).  *seconds gets the
 * offset east of UTC.  What follows it is the caller's (a pattern may
 * go on: "%z]"). */
static int parse_zone(const char *text, size_t len, size_t *pos,
                      int64_t *seconds)
{
    *seconds = 0;
    if (*pos == len)
        return -1;
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
    if (*pos < len && (text[*pos] == ':' || is_digit(text[*pos]))) {
        if (text[*pos] == ':')
            (*pos)++;
        if (fixed_digits(text, len, pos, 2, &minutes) != 0 || minutes > 59)
            return -1;
    }
    int64_t offset = (int64_t)hours * 3600 + (int64_t)minutes * 60;
    *seconds = c == '+' ? offset : -offset;
    return 0;
}

/* Seconds since 1970 of a broken-down UTC time less `offset` (the
 * zone's seconds east of UTC), after checking that it names a real
 * instant: no February 30th, no hour 24, no second 61 (60 is a leap
 * second, read as the first second of the next minute: the filter clamps
 * time, so order is kept).  Returns -1 for an impossible or pre-1970
 * time. */
static int64_t checked_seconds(unsigned year, unsigned month, unsigned day,
                               unsigned hour, unsigned minute, unsigned second,
                               int64_t offset)
{
    if (year < 1 || month < 1 || month > 12 || day < 1 ||
        day > days_in_month(year, month) || hour > 23 || minute > 59 || second > 60)
        return -1;
    int64_t seconds = days_since_epoch(year, month, day) * 86400 +
                      (int64_t)hour * 3600 + (int64_t)minute * 60 +
                      (int64_t)second - offset;
    return seconds < 0 ? -1 : seconds;
}

/* Seconds and a fraction (in ns) as ns since 1970, if they fit. */
static int to_ns(int64_t seconds, uint64_t fraction_ns, uint64_t *ns)
{
    return seconds < 0 ? -1 : scale_add((uint64_t)seconds, NS_PER_S, fraction_ns, ns);
}

/* YYYY-MM-DD(T|t|blank)hh:mm:ss[(.|,)fraction][zone].  The time to the
 * second is required: a date alone, read as midnight, would make every
 * line of a day simultaneous. */
static int parse_iso8601(const char *text, size_t len, uint64_t *ns)
{
    size_t pos = 0;
    unsigned year, month, day, hour, minute, second;
    uint64_t fraction = 0;
    int64_t offset = 0;

    if (fixed_digits(text, len, &pos, 4, &year) != 0 || pos >= len ||
        text[pos++] != '-' ||
        fixed_digits(text, len, &pos, 2, &month) != 0 || pos >= len ||
        text[pos++] != '-' ||
        fixed_digits(text, len, &pos, 2, &day) != 0 || pos >= len)
        return -1;
    char sep = text[pos++];
    if (sep != 'T' && sep != 't' && sep != ' ')
        return -1;
    if (fixed_digits(text, len, &pos, 2, &hour) != 0 ||
        pos >= len || text[pos++] != ':' ||
        fixed_digits(text, len, &pos, 2, &minute) != 0 ||
        pos >= len || text[pos++] != ':' ||
        fixed_digits(text, len, &pos, 2, &second) != 0)
        return -1;
    if (pos < len && (text[pos] == '.' || text[pos] == ',')) {
        pos++;
        if (fraction_digits(text, len, &pos, 9, &fraction) != 0)
            return -1;
    }
    if (pos < len && parse_zone(text, len, &pos, &offset) != 0)
        return -1;
    if (pos != len)
        return -1;
    return to_ns(checked_seconds(year, month, day, hour, minute, second, offset),
                 fraction, ns);
}

/* ======================================================================
 * strptime-style patterns
 * ====================================================================== */

/* What a conversion of a pattern gives. */
enum {
    PART_YEAR = 1 << 0,
    PART_MONTH = 1 << 1,
    PART_DAY = 1 << 2,
    PART_HOUR = 1 << 3,
    PART_MINUTE = 1 << 4,
    PART_SECOND = 1 << 5,
    PART_ZONE = 1 << 6,
    PART_UNIX = 1 << 7,
    PART_FRACTION = 1 << 8,
    PART_CLOCK = PART_HOUR | PART_MINUTE | PART_SECOND,
    PART_CALENDAR = PART_YEAR | PART_MONTH | PART_DAY | PART_CLOCK | PART_ZONE
};

/* The parts conversion letter c gives, 0 for %%, or -1 if this tdbf does
 * not read it. */
static int conversion_parts(char c)
{
    switch (c) {
    case 'Y': return PART_YEAR;
    case 'm': case 'b': case 'B': return PART_MONTH;
    case 'd': case 'e': return PART_DAY;
    case 'H': return PART_HOUR;
    case 'M': return PART_MINUTE;
    case 'S': return PART_SECOND;
    case 'T': return PART_CLOCK;
    case 'z': return PART_ZONE;
    case 's': return PART_UNIX;
    case 'f': return PART_FRACTION;
    case '%': return 0;
    default:  return -1;
    }
}

/* The parts a pattern gives in *parts.  Returns NULL, or why it is not
 * a pattern this tdbf reads, with *fault at the conversion to blame. */
static const char *pattern_parts(const char *pattern, int *parts, const char **fault)
{
    *parts = 0;
    for (const char *p = pattern; *p != '\0'; p++) {
        if (*p != '%')
            continue;
        *fault = p;
        int give = conversion_parts(*++p);
        if (*p == '\0') {
            *fault = NULL;
            return "ends in a lone %";
        }
        if (give < 0)
            return "is a conversion this tdbf does not read (it reads %Y %m "
                   "%d %e %H %M %S %T %b %B %z %s %f %%)";
        if (*parts & give)
            return "gives a part of the time a second time";
        *parts |= give;
    }
    *fault = NULL;
    return NULL;
}

int dedup_time_pattern_has_year(const char *pattern)
{
    int parts;
    const char *fault;
    return pattern_parts(pattern, &parts, &fault) == NULL &&
           (parts & (PART_YEAR | PART_UNIX)) != 0;
}

const char *dedup_check_time_pattern(const char *pattern, const char **fault)
{
    int parts;
    const char *at;
    const char *why = pattern_parts(pattern, &parts, fault != NULL ? fault : &at);
    if (why != NULL)
        return why;
    if (parts & PART_UNIX)
        return parts & PART_CALENDAR ? "mixes %s (the whole time) with calendar "
                                       "conversions" : NULL;
    if ((parts & (PART_MONTH | PART_DAY | PART_CLOCK)) != (PART_MONTH | PART_DAY | PART_CLOCK))
        return "does not give a full time: it needs the month, the day, hours, "
               "minutes and seconds (or %s)";
    return NULL;
}

/* A broken-down time as a pattern reads it. */
typedef struct time_parts {
    unsigned year, month, day, hour, minute, second;
    uint64_t fraction_ns;
    int64_t  offset;       /* zone, seconds east of UTC */
    uint64_t unix_seconds; /* %s */
} time_parts;

static const char *const month_names[12] = {
    "january", "february", "march", "april", "may", "june", "july",
    "august", "september", "october", "november", "december"};

/* `count` letters of text at *pos equal to name's, in any case. */
static int letters_match(const char *text, size_t len, size_t pos,
                         const char *name, size_t count)
{
    if (len - pos < count)
        return 0;
    for (size_t i = 0; i < count; i++)
        if (dedup_ascii_lower(text[pos + i]) != name[i])
            return 0;
    return 1;
}

/* %b / %B: an English month name, full or in three letters. */
static int month_name(const char *text, size_t len, size_t *pos, unsigned *month)
{
    for (unsigned m = 0; m < 12; m++) {
        size_t full = strlen(month_names[m]);
        size_t take = letters_match(text, len, *pos, month_names[m], full) ? full
                      : letters_match(text, len, *pos, month_names[m], 3) ? 3 : 0;
        if (take > 0) {
            *pos += take;
            *month = m + 1;
            return 0;
        }
    }
    return -1;
}

/* One or two digits (strptime's %m %d %H ...: "7" and "07" both). */
static int short_number(const char *text, size_t len, size_t *pos, unsigned *value)
{
    if (fixed_digits(text, len, pos, 1, value) != 0)
        return -1;
    unsigned second_digit;
    if (*pos < len && is_digit(text[*pos]) &&
        fixed_digits(text, len, pos, 1, &second_digit) == 0)
        *value = *value * 10 + second_digit;
    return 0;
}

/* Read one conversion (the letter after '%') at text[*pos]. */
static int read_conversion(char c, const char *text, size_t len, size_t *pos,
                           time_parts *t)
{
    switch (c) {
    case 'Y': return fixed_digits(text, len, pos, 4, &t->year);
    case 'm': return short_number(text, len, pos, &t->month);
    case 'e':
        if (*pos < len && text[*pos] == ' ')   /* " 4": blank-padded */
            (*pos)++;
        return short_number(text, len, pos, &t->day);
    case 'd': return short_number(text, len, pos, &t->day);
    case 'H': return short_number(text, len, pos, &t->hour);
    case 'M': return short_number(text, len, pos, &t->minute);
    case 'S': return short_number(text, len, pos, &t->second);
    case 'T':
        return short_number(text, len, pos, &t->hour) != 0 || *pos >= len ||
               text[(*pos)++] != ':' || short_number(text, len, pos, &t->minute) != 0 ||
               *pos >= len || text[(*pos)++] != ':' ||
               short_number(text, len, pos, &t->second) != 0 ? -1 : 0;
    case 'b': case 'B': return month_name(text, len, pos, &t->month);
    case 'z': return parse_zone(text, len, pos, &t->offset);
    case 's': return integer_digits(text, len, pos, &t->unix_seconds);
    case 'f': return fraction_digits(text, len, pos, 9, &t->fraction_ns);
    case '%': return *pos < len && text[(*pos)++] == '%' ? 0 : -1;
    default:  return -1;
    }
}

/* Walk the pattern over the text, filling *t.  Returns 0 if all of the
 * text matches all of the pattern. */
static int match_pattern(const char *pattern, const char *text, size_t len,
                         time_parts *t)
{
    size_t pos = 0;
    for (const char *p = pattern; *p != '\0'; p++) {
        if (dedup_is_blank(*p)) {
            /* a run of blanks matches a run of blanks */
            while (dedup_is_blank(p[1]))
                p++;
            if (pos >= len || !dedup_is_blank(text[pos]))
                return -1;
            while (pos < len && dedup_is_blank(text[pos]))
                pos++;
        } else if (*p == '%') {
            if (read_conversion(*++p, text, len, &pos, t) != 0)
                return -1;
        } else if (pos >= len || text[pos++] != *p) {
            return -1;
        }
    }
    return pos == len ? 0 : -1;
}

/* The calendar year that the reference time falls in. */
static unsigned year_of(uint64_t reference_ns)
{
    int64_t days = (int64_t)(reference_ns / NS_PER_S / 86400);
    unsigned year = 1970 + (unsigned)(days / 366);   /* at or before it */
    while (days_since_epoch(year + 1, 1, 1) <= days)
        year++;
    return year;
}

/* A pattern without a year: the reference's year, unless that puts the
 * time more than a day after the reference -- a log line is not from
 * the future, so it is last year's (December's lines read in January).
 * The day of grace absorbs clocks and zones that differ a little. */
static void infer_year(time_parts *t, uint64_t reference_ns)
{
    t->year = year_of(reference_ns);
    /* Feb 29 is checked against the year chosen, so date it by Feb 28 */
    unsigned day = t->month == 2 && t->day == 29 ? 28 : t->day;
    int64_t seconds = checked_seconds(t->year, t->month, day, t->hour,
                                      t->minute, t->second, t->offset);
    if (seconds > (int64_t)(reference_ns / NS_PER_S) + 86400)
        t->year--;
}

int dedup_parse_time_pattern(const char *pattern, const char *text, size_t len,
                             uint64_t reference_ns, uint64_t *ns)
{
    int parts;
    const char *fault;
    time_parts t;
    memset(&t, 0, sizeof t);
    trim_time_text(&text, &len);
    if (len == 0 || pattern_parts(pattern, &parts, &fault) != NULL ||
        match_pattern(pattern, text, len, &t) != 0)
        return -1;
    if (parts & PART_UNIX)
        return scale_add(t.unix_seconds, NS_PER_S, t.fraction_ns, ns);
    if (!(parts & PART_YEAR))
        infer_year(&t, reference_ns);
    return to_ns(checked_seconds(t.year, t.month, t.day, t.hour, t.minute,
                                 t.second, t.offset), t.fraction_ns, ns);
}

int dedup_parse_time(dedup_time_format format, const char *text, size_t len,
                     uint64_t *ns)
{
    trim_time_text(&text, &len);
    if (len == 0)
        return -1;
    switch (format) {
    case DEDUP_TIME_UNIX:    return parse_unix(text, len, NS_PER_S, 9, ns);
    case DEDUP_TIME_UNIX_MS: return parse_unix(text, len, 1000000, 6, ns);
    case DEDUP_TIME_UNIX_US: return parse_unix(text, len, 1000, 3, ns);
    case DEDUP_TIME_UNIX_NS: return parse_unix(text, len, 1, 0, ns);
    case DEDUP_TIME_ISO8601: return parse_iso8601(text, len, ns);
    case DEDUP_TIME_ARRIVAL:
    case DEDUP_TIME_PATTERN:
    default:                 return -1;
    }
}
