/*
 * args.c — Python objects to libtdbf arguments.
 *
 * Every conversion names the parameter and the accepted range in its
 * error, so a user sees "window: 0 is out of range (1 .. 2**64-1)" rather
 * than a bare OverflowError.  Nothing here takes the filter lock: buffer
 * exporters and datetime.timestamp() may run Python code, which must not
 * happen while a filter is locked (it could call back into that filter).
 */
#include "pytdbf.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include <datetime.h>

#define NS_PER_SECOND UINT64_C(1000000000)
/* 2^64 as a double: every ns count must stay below it. */
#define U64_LIMIT 18446744073709551616.0

int pytdbf_args_init(void)
{
    PyDateTime_IMPORT;
    return PyDateTimeAPI != NULL ? 0 : -1;
}

/* ---- keys ------------------------------------------------------------- */

int pytdbf_key_get(PyObject *obj, pytdbf_key *key)
{
    key->has_view = 0;
    if (PyBytes_Check(obj)) {
        key->data = PyBytes_AS_STRING(obj);
        key->len = (size_t)PyBytes_GET_SIZE(obj);
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        /* The UTF-8 form is cached in the str object, which the caller
         * holds, so the pointer stays valid as long as the key does. */
        Py_ssize_t len;
        key->data = PyUnicode_AsUTF8AndSize(obj, &len);
        if (key->data == NULL)
            return -1;
        key->len = (size_t)len;
        return 0;
    }
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "key: expected bytes, str or a bytes-like object, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PyObject_GetBuffer(obj, &key->view, PyBUF_SIMPLE) != 0) {
        /* A strided view (memoryview slice with a step) has no single run
         * of bytes to hash: that is a wrong type of key, not a bad value. */
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "key: a %.100s key must be a C-contiguous buffer",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    key->has_view = 1;
    key->data = key->view.buf;
    key->len = (size_t)key->view.len;
    return 0;
}

void pytdbf_key_release(pytdbf_key *key)
{
    if (key->has_view)
        PyBuffer_Release(&key->view);
    key->has_view = 0;
}

/* ---- integers and reals ----------------------------------------------- */

static void range_error(PyObject *obj, const char *name, uint64_t min, uint64_t max)
{
    if (max == UINT64_MAX)
        PyErr_Format(PyExc_ValueError, "%s: %R is out of range (%llu .. 2**64-1)",
                     name, obj, (unsigned long long)min);
    else
        PyErr_Format(PyExc_ValueError, "%s: %R is out of range (%llu .. %llu)", name,
                     obj, (unsigned long long)min, (unsigned long long)max);
}

int pytdbf_u64(PyObject *obj, const char *name, uint64_t min, uint64_t max,
               int allow_none, uint64_t none_value, uint64_t *out)
{
    if (obj == NULL || (allow_none && obj == Py_None)) {
        *out = none_value;
        return 0;
    }
    if (!PyLong_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: expected an int%s, not %.100s", name,
                     allow_none ? " or None" : "", Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow;
    long long small = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (small == -1 && PyErr_Occurred())
        return -1;
    if (overflow < 0 || (overflow == 0 && small < 0)) {
        range_error(obj, name, min, max);
        return -1;
    }
    unsigned long long value = PyLong_AsUnsignedLongLong(obj);
    if (value == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        range_error(obj, name, min, max);
        return -1;
    }
    if (value < min || value > max) {
        range_error(obj, name, min, max);
        return -1;
    }
    *out = value;
    return 0;
}

int pytdbf_real(PyObject *obj, const char *name, double low, double high,
                int allow_none, double none_value, double *out)
{
    if (obj == NULL || (allow_none && obj == Py_None)) {
        *out = none_value;
        return 0;
    }
    if (!PyFloat_Check(obj) && (!PyLong_Check(obj) || PyBool_Check(obj))) {
        PyErr_Format(PyExc_TypeError, "%s: expected a number, not %.100s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    double value = PyFloat_AsDouble(obj);
    if (value == -1.0 && PyErr_Occurred())
        PyErr_Clear();          /* an int too big for a double: out of range */
    else if (isfinite(value) && value > low && value < high) {
        *out = value;
        return 0;
    }
    char range[80];
    snprintf(range, sizeof range, "strictly between %g and %g", low, high);
    PyErr_Format(PyExc_ValueError, "%s: %R is out of range (%s)", name, obj, range);
    return -1;
}

/* ---- durations and windows -------------------------------------------- */

static const struct {
    const char *name;
    double      ns;
} duration_units[] = {
    /* two-letter units first: "ms" must not be read as "m" and a stray "s" */
    {"ns", 1.0}, {"us", 1e3}, {"ms", 1e6},
    {"s", 1e9},  {"m", 60e9}, {"h", 3600e9}, {"d", 86400e9},
    {NULL, 0.0}
};

/* A plain decimal at s ("90", "1.5", ".25"): digits by hand, not strtod,
 * whose decimal point follows the locale a program may have set.  Returns
 * the characters read, 0 if there is no number. */
static size_t decimal(const char *s, double *value)
{
    double whole = 0.0, scale = 1.0;
    size_t len = 0, digits = 0;
    int in_fraction = 0;
    for (;; len++) {
        if (isdigit((unsigned char)s[len])) {
            whole = whole * 10.0 + (s[len] - '0');
            scale *= in_fraction ? 10.0 : 1.0;
            digits++;
        } else if (s[len] == '.' && !in_fraction) {
            in_fraction = 1;
        } else {
            break;
        }
    }
    *value = whole / scale;
    return digits > 0 ? len : 0;
}

/* One <number><unit> term at *p; adds its ns to *total.  Returns 0 or -1. */
static int duration_term(const char **p, double *total)
{
    double value;
    size_t len = decimal(*p, &value);
    if (len == 0)
        return -1;
    const char *unit = *p + len;
    size_t unit_len = 0;
    while (isalpha((unsigned char)unit[unit_len]))
        unit_len++;
    for (int i = 0; duration_units[i].name != NULL; i++) {
        if (strlen(duration_units[i].name) == unit_len &&
            strncmp(unit, duration_units[i].name, unit_len) == 0) {
            *total += value * duration_units[i].ns;
            *p = unit + unit_len;
            return 0;
        }
    }
    return -1;
}

int pytdbf_parse_duration(const char *text, const char *name, uint64_t *ns)
{
    const char *p = text;
    double total = 0.0;
    while (*p == ' ')
        p++;
    int terms = 0;
    while (*p != '\0' && *p != ' ') {
        if (duration_term(&p, &total) != 0)
            break;
        terms++;
    }
    while (*p == ' ')
        p++;
    if (terms == 0 || *p != '\0') {
        PyErr_Format(PyExc_ValueError,
                     "%s: '%.100s' is not a duration (numbers with units, e.g. '10m', "
                     "'1h30m', '250ms', '1.5s'; units ns, us, ms, s, m, h, d)", name, text);
        return -1;
    }
    if (total + 0.5 < 1.0 || total >= U64_LIMIT) {
        PyErr_Format(PyExc_ValueError,
                     "%s: '%.100s' is out of range (1 ns .. about 584 years)", name, text);
        return -1;
    }
    *ns = (uint64_t)(total + 0.5);
    return 0;
}

/* Seconds as a float to ns, or -1 with ValueError. */
static int seconds_to_ns(double seconds, PyObject *obj, const char *name, int zero_ok,
                         uint64_t *ns)
{
    double value = seconds * 1e9;
    if (isfinite(value) && value < U64_LIMIT && (value > 0.0 || (zero_ok && value == 0.0))) {
        *ns = (uint64_t)(value + 0.5 < U64_LIMIT ? value + 0.5 : value);
        if (*ns > 0 || zero_ok)
            return 0;
    }
    PyErr_Format(PyExc_ValueError, "%s: %R is out of range (%s 18446744073.709551615 s)",
                 name, obj, zero_ok ? "0 .." : "1 ns ..");
    return -1;
}

static int timedelta_ns(PyObject *obj, const char *name, uint64_t *ns)
{
    long long days = PyDateTime_DELTA_GET_DAYS(obj);
    long long seconds = PyDateTime_DELTA_GET_SECONDS(obj);
    long long micros = PyDateTime_DELTA_GET_MICROSECONDS(obj);
    /* 2^64 ns is 213503.98 days: anything at or past 213503 days is
     * checked in floating point before the exact sum. */
    double approx = ((double)days * 86400.0 + (double)seconds) * 1e9 + (double)micros * 1e3;
    if (days < 0 || approx <= 0.0 || approx >= U64_LIMIT) {
        PyErr_Format(PyExc_ValueError, "%s: %R is out of range (1 us .. about 584 years)",
                     name, obj);
        return -1;
    }
    *ns = ((uint64_t)days * 86400u + (uint64_t)seconds) * NS_PER_SECOND +
          (uint64_t)micros * 1000u;
    return 0;
}

/* window=: an int count, a str (count or duration), a timedelta.  A float
 * is refused: Filter(1e6) meant a million keys as often as 11.6 days. */
static int window_value(PyObject *obj, uint64_t *items, uint64_t *ns)
{
    if (PyLong_Check(obj) && !PyBool_Check(obj))
        return pytdbf_u64(obj, "window", 1, UINT64_MAX, 0, 0, items);
    if (PyUnicode_Check(obj)) {
        const char *text = PyUnicode_AsUTF8(obj);
        return text == NULL ? -1 : pytdbf_parse_duration(text, "window", ns);
    }
    if (PyDelta_Check(obj))
        return timedelta_ns(obj, "window", ns);
    if (PyFloat_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "window: a float is ambiguous (%R: a count of keys, or seconds?): "
                     "give window_items=<int> for the last N keys, or window_seconds=%R or "
                     "a str such as '10m' for a time window", obj, obj);
        return -1;
    }
    PyErr_Format(PyExc_TypeError,
                 "window: expected a count of keys (int, or a str such as '1M') or a "
                 "duration (a str such as '10m', a datetime.timedelta), not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

/* window_seconds=: int or float seconds. */
static int window_seconds_value(PyObject *obj, uint64_t *ns)
{
    if (PyLong_Check(obj) && !PyBool_Check(obj)) {
        uint64_t seconds;
        if (pytdbf_u64(obj, "window_seconds", 1, UINT64_MAX / NS_PER_SECOND, 0, 0,
                       &seconds) != 0)
            return -1;
        *ns = seconds * NS_PER_SECOND;
        return 0;
    }
    if (PyFloat_Check(obj))
        return seconds_to_ns(PyFloat_AS_DOUBLE(obj), obj, "window_seconds", 0, ns);
    PyErr_Format(PyExc_TypeError, "window_seconds: expected seconds (int or float), not "
                 "%.100s", Py_TYPE(obj)->tp_name);
    return -1;
}

static int given(PyObject *obj)
{
    return obj != NULL && obj != Py_None;
}

int pytdbf_window(const pytdbf_options *opt, uint64_t *items, uint64_t *ns)
{
    *items = 0;
    *ns = 0;
    int spellings = given(opt->window) + given(opt->window_items) +
                    given(opt->window_seconds);
    if (spellings != 1) {
        PyErr_SetString(PyExc_ValueError, spellings == 0
            ? "window: required: a count of keys (window=1000000 or window_items=1000000) "
              "or a duration (window='10m' or window_seconds=600)"
            : "window, window_items, window_seconds: give one of them, not several");
        return -1;
    }
    if (given(opt->window_items))
        return pytdbf_u64(opt->window_items, "window_items", 1, UINT64_MAX, 0, 0, items);
    if (given(opt->window_seconds))
        return window_seconds_value(opt->window_seconds, ns);
    return window_value(opt->window, items, ns);
}

/* ---- time --------------------------------------------------------------- */

uint64_t pytdbf_wall_ns(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC || ts.tv_sec < 0)
        return 0;
    return (uint64_t)ts.tv_sec * NS_PER_SECOND + (uint64_t)ts.tv_nsec;
}

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d (exact, in
 * integers: a date is a count of days, not a float of seconds). */
static int64_t days_since_epoch(int64_t year, int64_t month, int64_t day)
{
    /* March-based years put the leap day last: the day of the year is
     * then a fixed function of the month (153 days per 5 months). */
    year -= month <= 2;
    int64_t era = (year >= 0 ? year : year - 399) / 400;
    int64_t year_of_era = year - era * 400;
    int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + day_of_era - 719468;
}

/* A timedelta in ns, signed (a UTC offset may be negative). */
static int64_t delta_signed_ns(PyObject *delta)
{
    return ((int64_t)PyDateTime_DELTA_GET_DAYS(delta) * 86400 +
            PyDateTime_DELTA_GET_SECONDS(delta)) * (int64_t)NS_PER_SECOND +
           (int64_t)PyDateTime_DELTA_GET_MICROSECONDS(delta) * 1000;
}

/* A datetime in ns since 1970, exactly.  A naive datetime is UTC, as the
 * CLI reads an ISO 8601 time without an offset: never the local zone,
 * which would shift a log's times by the reader's time zone.  An aware
 * one is moved to UTC by its utcoffset(). */
static int datetime_ns(PyObject *when, uint64_t *out)
{
    int64_t days = days_since_epoch(PyDateTime_GET_YEAR(when), PyDateTime_GET_MONTH(when),
                                    PyDateTime_GET_DAY(when));
    int64_t seconds = days * 86400 + PyDateTime_DATE_GET_HOUR(when) * 3600 +
                      PyDateTime_DATE_GET_MINUTE(when) * 60 + PyDateTime_DATE_GET_SECOND(when);
    PyObject *offset = PyObject_CallMethod(when, "utcoffset", NULL);
    if (offset == NULL)
        return -1;
    int64_t offset_ns = PyDelta_Check(offset) ? delta_signed_ns(offset) : 0;
    Py_DECREF(offset);
    /* int64 ns reach 2262 (year 9999 would overflow them): check in
     * seconds before scaling, leaving room for the microseconds and an
     * offset of up to a day either way */
    int64_t limit = INT64_MAX / (int64_t)NS_PER_SECOND - 2 * 86400;
    int64_t micros = PyDateTime_DATE_GET_MICROSECOND(when);
    if (seconds < -limit || seconds > limit)
        seconds = -1;
    int64_t ns = seconds < 0 ? -1 : seconds * (int64_t)NS_PER_SECOND + micros * 1000 - offset_ns;
    if (ns < 0) {
        PyErr_Format(PyExc_ValueError, "now: %R is out of range (1970-01-01 UTC .. 2262)",
                     when);
        return -1;
    }
    *out = (uint64_t)ns;
    return 0;
}

/* `now` in seconds: an int exactly, a float rounded to the ns, or a
 * datetime (naive: UTC). */
static int now_seconds(PyObject *now, uint64_t *out)
{
    if (PyLong_Check(now) && !PyBool_Check(now)) {
        uint64_t seconds;
        if (pytdbf_u64(now, "now", 0, UINT64_MAX / NS_PER_SECOND, 0, 0, &seconds) != 0)
            return -1;
        *out = seconds * NS_PER_SECOND;
        return 0;
    }
    if (PyFloat_Check(now))
        return seconds_to_ns(PyFloat_AS_DOUBLE(now), now, "now", 1, out);
    if (PyDateTime_Check(now))
        return datetime_ns(now, out);
    PyErr_Format(PyExc_TypeError,
                 "now: expected seconds (int or float) or a datetime (naive: UTC), not %.100s",
                 Py_TYPE(now)->tp_name);
    return -1;
}

int pytdbf_now(PyObject *now, PyObject *now_ns, uint64_t *out)
{
    int have_now = now != NULL && now != Py_None;
    int have_ns = now_ns != NULL && now_ns != Py_None;
    if (have_now && have_ns) {
        PyErr_SetString(PyExc_ValueError, "now, now_ns: give one of them, not both");
        return -1;
    }
    if (have_ns)
        return pytdbf_u64(now_ns, "now_ns", 0, UINT64_MAX, 0, 0, out) == 0 ? 1 : -1;
    if (have_now)
        return now_seconds(now, out) == 0 ? 1 : -1;
    return 0;
}

/* ---- designs ------------------------------------------------------------ */

int pytdbf_design(PyObject *obj, tdbf_design fallback, tdbf_design *out)
{
    if (obj == NULL || obj == Py_None) {
        *out = fallback;
        return 0;
    }
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "design: expected a design name (str), not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *name = PyUnicode_AsUTF8(obj);
    if (name == NULL)
        return -1;
    char spelled[32];
    size_t len = strlen(name);
    if (len < sizeof spelled) {
        /* apbf_line reads as apbf-line: Python users write identifiers */
        for (size_t i = 0; i <= len; i++)
            spelled[i] = name[i] == '_' ? '-' : name[i];
        if (tdbf_design_parse(spelled, out) == TDBF_OK && tdbf_design_available(*out))
            return 0;
    }
    char names[256] = "";
    for (int d = 0; d < TDBF_DESIGN_COUNT; d++) {
        if (!tdbf_design_available((tdbf_design)d))
            continue;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                 tdbf_design_name((tdbf_design)d));
    }
    PyErr_Format(PyExc_ValueError, "design: unknown design %R (one of %s)", obj, names);
    return -1;
}

/* ---- the common configuration ------------------------------------------ */

int pytdbf_config(const pytdbf_options *opt, tdbf_config *cfg)
{
    tdbf_config_init(cfg);
    if (pytdbf_window(opt, &cfg->window_items, &cfg->window_ns) != 0 ||
        pytdbf_design(opt->design, cfg->window_ns ? TDBF_TLBF_LINE : TDBF_APBF_LINE,
                      &cfg->design) != 0 ||
        pytdbf_real(opt->error, "error", 0.0, 1.0, 1, 0.01, &cfg->error) != 0 ||
        pytdbf_u64(opt->capacity, "capacity", 1, UINT64_MAX, 1, 0, &cfg->capacity) != 0 ||
        pytdbf_u64(opt->seed, "seed", 1, UINT64_MAX, 1, 0, &cfg->seed) != 0 ||
        pytdbf_u64(opt->max_memory, "max_memory", 1, UINT64_MAX, 1, cfg->max_memory,
                   &cfg->max_memory) != 0)
        return -1;
    if (cfg->capacity != 0 && cfg->window_ns == 0) {
        PyErr_SetString(PyExc_ValueError, "capacity: applies to time windows (keys expected "
                        "per window); a count window is sized by the window itself");
        return -1;
    }
    return 0;
}
