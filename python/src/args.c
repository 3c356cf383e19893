/*
 * args.c — Python objects to libtdbf arguments.
 *
 * Every conversion names the parameter and the accepted range in its
 * error, so a user sees "now_ns: -1 is out of range (0 .. 2**64-1)" rather
 * than a bare OverflowError.  The filter options are not read here but
 * turned into text for the library's parameter language, so that they
 * mean, range and fail as in the tdbf tool and the Redis module.  Nothing
 * here takes the filter lock: buffer exporters and datetime.utcoffset()
 * may run Python code, which must not happen while a filter is locked (it
 * could call back into that filter).
 */
#include "pytdbf.h"

#include <math.h>
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

/* ---- seconds and timedeltas ------------------------------------------ */

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

/* ---- the options, through the library's parameter language ------------ */

/* Text for tdbf_config_set is at most this long; a longer str is cut (the
 * parser then refuses it, quoting its start). */
#define OPTION_TEXT 128

static int given(PyObject *obj)
{
    return obj != NULL && obj != Py_None;
}

static int is_int(PyObject *obj)
{
    return PyLong_Check(obj) && !PyBool_Check(obj);
}

/* An int as decimal text, so its range is checked by the parser, as the
 * CLI's and the module's are. */
static int int_text(PyObject *obj, char *text)
{
    PyObject *decimal = PyObject_Str(obj);
    const char *utf8 = decimal != NULL ? PyUnicode_AsUTF8(decimal) : NULL;
    if (utf8 != NULL)
        snprintf(text, OPTION_TEXT, "%s", utf8);
    Py_XDECREF(decimal);
    return utf8 != NULL ? 0 : -1;
}

static int str_text(PyObject *obj, char *text)
{
    const char *utf8 = PyUnicode_AsUTF8(obj);
    if (utf8 != NULL)
        snprintf(text, OPTION_TEXT, "%s", utf8);
    return utf8 != NULL ? 0 : -1;
}

static void ns_text(uint64_t ns, char *text)
{
    snprintf(text, OPTION_TEXT, "%lluns", (unsigned long long)ns);
}

static int wrong_type(PyObject *obj, const char *keyword, const char *expected)
{
    PyErr_Format(PyExc_TypeError, "%s: expected %s, not %.100s", keyword, expected,
                 Py_TYPE(obj)->tp_name);
    return -1;
}

/* window=: an int count, a str (count or duration), a timedelta.  A float
 * is refused: Filter(1e6) meant a million keys as often as 11.6 days. */
static int window_text(PyObject *obj, char *text)
{
    if (is_int(obj))
        return int_text(obj, text);
    if (PyUnicode_Check(obj))
        return str_text(obj, text);
    if (PyDelta_Check(obj)) {
        uint64_t ns;
        if (timedelta_ns(obj, "window", &ns) != 0)
            return -1;
        ns_text(ns, text);
        return 0;
    }
    if (PyFloat_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "window: a float is ambiguous (%R: a count of keys, or seconds?): "
                     "give window_items=<int> for the last N keys, or window_seconds=%R or "
                     "a str such as '10m' for a time window", obj, obj);
        return -1;
    }
    return wrong_type(obj, "window", "a count of keys (int, or a str such as '1M') or a "
                      "duration (a str such as '10m', a datetime.timedelta)");
}

/* window_seconds=: int or float seconds, as ns. */
static int window_seconds_text(PyObject *obj, char *text)
{
    uint64_t ns;
    if (is_int(obj)) {
        uint64_t seconds;
        if (pytdbf_u64(obj, "window_seconds", 1, UINT64_MAX / NS_PER_SECOND, 0, 0,
                       &seconds) != 0)
            return -1;
        ns = seconds * NS_PER_SECOND;
    } else if (PyFloat_Check(obj)) {
        if (seconds_to_ns(PyFloat_AS_DOUBLE(obj), obj, "window_seconds", 0, &ns) != 0)
            return -1;
    } else {
        return wrong_type(obj, "window_seconds", "seconds (int or float)");
    }
    ns_text(ns, text);
    return 0;
}

/* The one window keyword given, as text; *keyword names it. */
static int window_option(const pytdbf_options *opt, const char **keyword, char *text)
{
    int spellings = given(opt->window) + given(opt->window_items) +
                    given(opt->window_seconds);
    if (spellings != 1) {
        PyErr_SetString(PyExc_ValueError, spellings == 0
            ? "window: required: a count of keys (window=1000000, window='1M' or "
              "window_items=1000000) or a duration (window='10m' or window_seconds=600)"
            : "window, window_items, window_seconds: give one of them, not several");
        return -1;
    }
    if (given(opt->window_items)) {
        *keyword = "window_items";
        return is_int(opt->window_items) ? int_text(opt->window_items, text)
                                         : wrong_type(opt->window_items, *keyword, "an int");
    }
    if (given(opt->window_seconds)) {
        *keyword = "window_seconds";
        return window_seconds_text(opt->window_seconds, text);
    }
    *keyword = "window";
    return window_text(opt->window, text);
}

/* error=: a float, an int (0 and 1 are refused by the parser's range) or
 * a str ("1%").  A float in range goes as a hex float ("%a"), which the
 * parser reads back bit for bit; one out of range as a decimal, so the
 * refusal quotes what the user wrote. */
static int error_text(PyObject *obj, char *text)
{
    if (PyFloat_Check(obj)) {
        double rate = PyFloat_AS_DOUBLE(obj);
        snprintf(text, OPTION_TEXT, rate > 0.0 && rate < 1.0 ? "%a" : "%.17g", rate);
        return 0;
    }
    if (is_int(obj))
        return int_text(obj, text);
    if (PyUnicode_Check(obj))
        return str_text(obj, text);
    return wrong_type(obj, "error", "a rate (float, or a str such as '1%')");
}

/* capacity=, seed=, max_memory=: an int or a str ("1M", "512M"). */
static int count_text(PyObject *obj, const char *keyword, char *text)
{
    if (is_int(obj))
        return int_text(obj, text);
    if (PyUnicode_Check(obj))
        return str_text(obj, text);
    return wrong_type(obj, keyword, "an int or a str");
}

static int design_text(PyObject *obj, char *text)
{
    if (PyUnicode_Check(obj))
        return str_text(obj, text);
    return wrong_type(obj, "design", "a design name (str)");
}

/* One option through tdbf_config_set; ValueError "<keyword>: <why>". */
static int set_option(tdbf_config *cfg, unsigned *set, tdbf_option option,
                      const char *keyword, const char *text)
{
    char why[256];
    if (tdbf_config_set(cfg, set, option, text, why, sizeof why) == TDBF_OK)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s: %s", keyword, why);
    return -1;
}

int pytdbf_config(const pytdbf_options *opt, tdbf_config *cfg)
{
    tdbf_config_init(cfg);
    unsigned set = 0;
    char text[OPTION_TEXT];
    const char *keyword = "window";
    if (window_option(opt, &keyword, text) != 0 ||
        set_option(cfg, &set, TDBF_OPT_WINDOW, keyword, text) != 0)
        return -1;
    const struct {
        PyObject   *value;
        tdbf_option option;
        const char *keyword;
    } options[] = {
        {opt->error, TDBF_OPT_ERROR, "error"},
        {opt->design, TDBF_OPT_DESIGN, "design"},
        {opt->capacity, TDBF_OPT_CAPACITY, "capacity"},
        {opt->seed, TDBF_OPT_SEED, "seed"},
        {opt->max_memory, TDBF_OPT_MAX_MEMORY, "max_memory"},
    };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        if (!given(options[i].value))
            continue;
        int rc = options[i].option == TDBF_OPT_ERROR ? error_text(options[i].value, text)
               : options[i].option == TDBF_OPT_DESIGN ? design_text(options[i].value, text)
               : count_text(options[i].value, options[i].keyword, text);
        if (rc != 0 || set_option(cfg, &set, options[i].option, options[i].keyword, text) != 0)
            return -1;
    }
    char why[256];
    if (tdbf_config_check(cfg, set, why, sizeof why) != TDBF_OK) {
        /* the window is always set above: what the rules refuse is the
         * capacity of a count window */
        PyErr_Format(PyExc_ValueError, "capacity: %s", why);
        return -1;
    }
    return 0;
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

