/*
 * pytdbf.h — shared declarations of the tdbf._tdbf extension module.
 *
 * The extension is five files over the public libtdbf API (tdbf.h and
 * tdbf_model.h only),
 * each using only those listed below it:
 *   module.c  the module: its exception types, version, design names,
 *             plan()
 *   filter.c  the Filter type: lifecycle, attributes, copy and clear,
 *             persistence (to_bytes, save, load, pickle)
 *   filter_calls.c  what a Filter does with keys and time: add,
 *             contains, the batches, advance, current_error, stats,
 *             posterior and expected_age (the two share filter_object.h)
 *   results.c what libtdbf gives back, as Python: return codes as
 *             exceptions, tdbf_stats as a dict
 *   args.c    turning Python objects into what libtdbf takes: keys
 *             (bytes, str as UTF-8, any contiguous buffer), the filter
 *             options (as text for the library's parameter language),
 *             times (seconds, datetimes, ns) and unsigned 64-bit
 *             integers, each with a ValueError or TypeError that names
 *             the parameter and its range
 */
#ifndef PYTDBF_H
#define PYTDBF_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include <tdbf_model.h>

/* ---- results.c ------------------------------------------------------- */

/* tdbf.Error, created by the module at import, and its subclass
 * tdbf.FullError (an add refused: the filter is past its error bound). */
extern PyObject *pytdbf_error;
extern PyObject *pytdbf_full_error;

/* Raise the Python exception for a negative libtdbf return code, the
 * message prefixed with `what` ("open apbf-line", "load seen.tdbf").
 * `loading` marks codes about data read back (a design or memory figure
 * that came from a file): they are tdbf.Error, not ValueError.  Returns
 * NULL, for `return pytdbf_raise(...)`. */
PyObject *pytdbf_raise(int code, const char *what, int loading);

/* Raise the ValueError for a configuration tdbf_open or a planner refused
 * with `code`, naming the parameter at fault where the code tells it
 * (window, max_memory, error).  Returns NULL. */
PyObject *pytdbf_config_error(int code, const tdbf_config *cfg, const char *what);

/* tdbf_stats as a dict: its fields by their own names, the design and
 * SIMD level by name, the window in seconds (time) or items (count).
 * Returns a new reference, or NULL with an exception. */
PyObject *pytdbf_stats_dict(const tdbf_stats *st);

/* ---- filter.c (filter_calls.c: see filter_object.h) ------------------ */

/* The Filter type, ready once pytdbf_filter_ready succeeded. */
extern PyTypeObject pytdbf_filter_type;
int pytdbf_filter_ready(PyObject *module);

/* ---- args.c ----------------------------------------------------------- */

/* Import what the conversions need (datetime).  Returns 0 or -1. */
int pytdbf_args_init(void);

/* A key's bytes.  `view` is used (and must be released) only for buffer
 * objects; bytes and str keys point into the object itself, which the
 * caller keeps alive. */
typedef struct pytdbf_key {
    const void *data;
    size_t      len;
    int         has_view;
    Py_buffer   view;
} pytdbf_key;

/* Fill *key from bytes, str (UTF-8) or a C-contiguous buffer; TypeError
 * for anything else.  Returns 0 or -1 with an exception set. */
int pytdbf_key_get(PyObject *obj, pytdbf_key *key);
void pytdbf_key_release(pytdbf_key *key);

/* The options every front shares (tdbf_config_set's), as Python objects:
 * NULL or None where not given. */
typedef struct pytdbf_options {
    PyObject *window, *window_items, *window_seconds;
    PyObject *error, *design, *capacity, *seed, *max_memory;
} pytdbf_options;

/* The time of an operation in ns: `now` in seconds (int or float, since
 * any epoch the caller keeps to) or a datetime (naive: UTC), or `now_ns`
 * an int.  Returns 1 with *out set, 0 if neither was given (NULL/None:
 * the caller picks the clock), or -1 with an exception. */
int pytdbf_now(PyObject *now, PyObject *now_ns, uint64_t *out);

/* The wall clock in ns since 1970. */
uint64_t pytdbf_wall_ns(void);

/* An int in [min, max]; None gives `none_value` when allow_none.  Returns
 * 0 or -1 with ValueError/TypeError naming `name` and the range. */
int pytdbf_u64(PyObject *obj, const char *name, uint64_t min, uint64_t max,
               int allow_none, uint64_t none_value, uint64_t *out);

/* A finite float in the open interval (low, high) (or None -> none_value
 * when allow_none).  Returns 0 or -1 with an exception naming `name`. */
int pytdbf_real(PyObject *obj, const char *name, double low, double high,
                int allow_none, double none_value, double *out);

/* What Filter, plan and dedup share: a config from tdbf_config_init with
 * the options set through the library's parameter language
 * (tdbf_config_set, then tdbf_config_check: the CLI's and the module's
 * ranges and rules).  A str is passed as it is; an int as decimal text;
 * a float error as "%.17g"; a timedelta or window_seconds as "<ns>ns".
 * The window is given once, as window, window_items or window_seconds; a
 * float window is a TypeError naming both keywords.  Returns 0, or -1
 * with ValueError "<keyword>: <why>" or TypeError. */
int pytdbf_config(const pytdbf_options *opt, tdbf_config *cfg);

#endif /* PYTDBF_H */
