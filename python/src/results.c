/*
 * results.c — what libtdbf gives back, as Python: its negative return
 * codes as exceptions (tdbf.Error and tdbf.FullError, ValueError,
 * MemoryError, OSError) and tdbf_stats as a dict.  args.c goes the other
 * way; module.c and the Filter files raise and report through this file.
 */
#include "pytdbf.h"

#include <stddef.h>
#include <stdio.h>

PyObject *pytdbf_error;
PyObject *pytdbf_full_error;

/* ---- errors ------------------------------------------------------------ */

static PyObject *error_with_code(int code, const char *message)
{
    PyObject *exc = PyObject_CallFunction(pytdbf_error, "s", message);
    if (exc == NULL)
        return NULL;
    PyObject *value = PyLong_FromLong(code);
    if (value != NULL && PyObject_SetAttrString(exc, "code", value) == 0)
        PyErr_SetObject(pytdbf_error, exc);
    Py_XDECREF(value);
    Py_DECREF(exc);
    return NULL;
}

PyObject *pytdbf_raise(int code, const char *what, int loading)
{
    char message[256];
    snprintf(message, sizeof message, "%s: %s", what, tdbf_strerror(code));
    switch (code) {
    case TDBF_ENOMEM:
        return PyErr_Format(PyExc_MemoryError, "%s", message);
    case TDBF_EIO:
        return PyErr_Format(PyExc_OSError, "%s", message);
    case TDBF_ECORRUPT:
    case TDBF_EVERSION:
    case TDBF_ENOTSUP:
        return error_with_code(code, message);
    default:
        /* What came from a file (its design, its size) is the file's
         * fault, not a bad argument. */
        if (loading)
            return error_with_code(code, message);
        return PyErr_Format(PyExc_ValueError, "%s", message);
    }
}

PyObject *pytdbf_config_error(int code, const tdbf_config *cfg, const char *what)
{
    const char *design = tdbf_design_name(cfg->design);
    int time_window = cfg->window_ns != 0;
    switch (code) {
    case TDBF_EWINDOW:
        return PyErr_Format(PyExc_ValueError, "window: design '%s' has no %s window (give %s)",
                            design, time_window ? "time" : "count",
                            time_window ? "a count of insertions, e.g. 1000000"
                                        : "a duration, e.g. '10m' or 600.0 seconds");
    case TDBF_ETOOBIG:
        return PyErr_Format(PyExc_ValueError, "max_memory: design '%s' needs more than "
                            "%llu bytes for this window and error (raise max_memory; "
                            "default 4 GiB)", design, (unsigned long long)(
                                cfg->max_memory ? cfg->max_memory : TDBF_DEFAULT_MAX_MEMORY));
    case TDBF_EINFEASIBLE: {
        char error[32];
        snprintf(error, sizeof error, "%g", cfg->error);
        return PyErr_Format(PyExc_ValueError, "error: no shape of design '%s' meets %s "
                            "(ask for a larger error or another design)", design, error);
    }
    default: {
        char where[64];
        snprintf(where, sizeof where, "%s(design='%s')", what, design);
        return pytdbf_raise(code, where, 0);
    }
    }
}

/* ---- stats ------------------------------------------------------------- */

/* The numeric fields of tdbf_stats, by type: read through offsetof so the
 * dict's keys are the struct's own field names. */
#define STATS_FIELD(name) {#name, offsetof(tdbf_stats, name)}
typedef struct stats_field {
    const char *name;
    size_t      offset;
} stats_field;

static const stats_field stats_u64[] = {
    STATS_FIELD(window_items), STATS_FIELD(window_ns), STATS_FIELD(memory_bytes),
    STATS_FIELD(items), STATS_FIELD(seed), STATS_FIELD(now_ns), STATS_FIELD(slice_bits),
    STATS_FIELD(generation_size), STATS_FIELD(generation_fill), STATS_FIELD(generations),
    STATS_FIELD(keys), STATS_FIELD(cap_hits), STATS_FIELD(cells), STATS_FIELD(padding),
    STATS_FIELD(scan_per_insert),
};
static const stats_field stats_unsigned[] = {
    STATS_FIELD(k), STATS_FIELD(l), STATS_FIELD(slices), STATS_FIELD(cell_bits),
};
static const stats_field stats_double[] = {
    STATS_FIELD(error_configured), STATS_FIELD(error_planned), STATS_FIELD(error_estimated),
    STATS_FIELD(bits_per_item),
};
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* dict[name] = value, dropping the reference; -1 if value is NULL. */
static int set_new(PyObject *dict, const char *name, PyObject *value)
{
    int rc = value != NULL ? PyDict_SetItemString(dict, name, value) : -1;
    Py_XDECREF(value);
    return rc;
}

PyObject *pytdbf_stats_dict(const tdbf_stats *st)
{
    const char *base = (const char *)st;
    PyObject *dict = PyDict_New();
    int rc = dict != NULL ? 0 : -1;
    if (rc == 0)
        rc = set_new(dict, "design", PyUnicode_FromString(tdbf_design_name(st->design)));
    if (rc == 0)
        rc = set_new(dict, "window", st->window_ns != 0
                                         ? PyFloat_FromDouble((double)st->window_ns / 1e9)
                                         : PyLong_FromUnsignedLongLong(st->window_items));
    for (size_t i = 0; rc == 0 && i < COUNT(stats_u64); i++)
        rc = set_new(dict, stats_u64[i].name, PyLong_FromUnsignedLongLong(
                         *(const uint64_t *)(base + stats_u64[i].offset)));
    for (size_t i = 0; rc == 0 && i < COUNT(stats_unsigned); i++)
        rc = set_new(dict, stats_unsigned[i].name, PyLong_FromUnsignedLong(
                         *(const unsigned *)(base + stats_unsigned[i].offset)));
    for (size_t i = 0; rc == 0 && i < COUNT(stats_double); i++)
        rc = set_new(dict, stats_double[i].name, PyFloat_FromDouble(
                         *(const double *)(base + stats_double[i].offset)));
    if (rc == 0)
        rc = set_new(dict, "simd", PyUnicode_FromString(tdbf_simd_name(st->simd)));
    if (rc != 0)
        Py_CLEAR(dict);
    return dict;
}
