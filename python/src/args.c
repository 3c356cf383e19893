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

int pytdbf_window(PyObject *obj, const char *name, uint64_t *items, uint64_t *ns)
{
    *items = 0;
    *ns = 0;
    if (PyLong_Check(obj) && !PyBool_Check(obj))
        return pytdbf_u64(obj, name, 1, UINT64_MAX, 0, 0, items);
    if (PyFloat_Check(obj))
        return seconds_to_ns(PyFloat_AS_DOUBLE(obj), obj, name, 0, ns);
    if (PyUnicode_Check(obj)) {
        const char *text = PyUnicode_AsUTF8(obj);
        return text == NULL ? -1 : pytdbf_parse_duration(text, name, ns);
    }
    if (PyDelta_Check(obj))
        return timedelta_ns(obj, name, ns);
    PyErr_Format(PyExc_TypeError,
                 "%s: expected a count of insertions (int) or a duration (str such as "
                 "'10m', float seconds, datetime.timedelta), not %.100s",
                 name, Py_TYPE(obj)->tp_name);
    return -1;
}

/* ---- time --------------------------------------------------------------- */

uint64_t pytdbf_wall_ns(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC || ts.tv_sec < 0)
        return 0;
    return (uint64_t)ts.tv_sec * NS_PER_SECOND + (uint64_t)ts.tv_nsec;
}

/* `now` in seconds: an int exactly, a float rounded to the ns, or a
 * datetime through its timestamp(). */
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
    if (PyDateTime_Check(now)) {
        PyObject *stamp = PyObject_CallMethod(now, "timestamp", NULL);
        if (stamp == NULL)
            return -1;
        double seconds = PyFloat_AsDouble(stamp);
        int rc = seconds == -1.0 && PyErr_Occurred()
                     ? -1 : seconds_to_ns(seconds, now, "now", 1, out);
        Py_DECREF(stamp);
        return rc;
    }
    PyErr_Format(PyExc_TypeError,
                 "now: expected seconds (int or float) or a datetime, not %.100s",
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
        return pytdbf_u64(now_ns, "now_ns", 0, UINT64_MAX, 0, 0, out);
    if (have_now)
        return now_seconds(now, out);
    *out = pytdbf_wall_ns();
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

int pytdbf_config(PyObject *window, PyObject *error, PyObject *design, PyObject *capacity,
                  tdbf_config *cfg)
{
    tdbf_config_init(cfg);
    if (pytdbf_window(window, "window", &cfg->window_items, &cfg->window_ns) != 0 ||
        pytdbf_design(design, cfg->window_ns ? TDBF_TLBF_LINE : TDBF_APBF_LINE, &cfg->design) != 0 ||
        pytdbf_real(error, "error", 0.0, 1.0, 1, 0.01, &cfg->error) != 0 ||
        pytdbf_u64(capacity, "capacity", 1, UINT64_MAX, 1, 0, &cfg->capacity) != 0)
        return -1;
    if (cfg->capacity != 0 && cfg->window_ns == 0) {
        PyErr_SetString(PyExc_ValueError, "capacity: applies to time windows (keys expected "
                        "per window); a count window is sized by the window itself");
        return -1;
    }
    return 0;
}
