/*
 * filter_object.h — what the two files of tdbf.Filter share: the object
 * (one libtdbf handle, a lock, what never changes, the clock), its lock,
 * and the calls filter_calls.c gives the type that filter.c builds.
 * Private to filter.c and filter_calls.c.
 *
 * Locking.  A libtdbf handle is not internally locked (tdbf.h: one writer
 * at a time, readers only while nobody writes), and the batch calls,
 * saves, loads and stats release the GIL while they run, so the GIL alone
 * does not serialise them.  Each Filter therefore owns a lock, held
 * around every library call on its handle.  The one rule that keeps it
 * deadlock-free: nobody waits for the filter lock while holding the GIL.
 * A single add tries the lock without waiting (the common case, ~20 ns)
 * and, if a batch holds it, releases the GIL before waiting; a batch
 * takes the lock after releasing the GIL and gives it back before taking
 * the GIL again.  Python code (iterators, buffer exporters, datetime) only
 * ever runs outside the lock, so it may call back into the same filter.
 *
 * Time.  Count-window designs ignore time and never read a clock.  Time
 * designs take `now` (seconds) or `now_ns`.  A call without either takes
 * the filter's clock mode: 'wall' (the wall clock in ns since 1970) until
 * the first call that names a time, 'filter' from then on (the filter's
 * own clock, the largest time an add or advance gave it).  A filter fed
 * log timestamps would otherwise answer `key in f` at today's date, where
 * everything it holds has long expired.  libtdbf clamps a time behind the
 * latest it saw to that latest, so mixing the two never rewinds a filter.
 */
#ifndef PYTDBF_FILTER_OBJECT_H
#define PYTDBF_FILTER_OBJECT_H

#include "pytdbf.h"

typedef struct filter_object {
    PyObject_HEAD
    tdbf              *filter;      /* NULL until opened or loaded */
    PyThread_type_lock lock;
    /* fixed for the filter's life, read once from its stats */
    tdbf_design design;
    uint64_t    window_items;       /* guaranteed count window, or 0 */
    uint64_t    window_ns;          /* time window, or 0 */
    double      error;              /* configured false-positive rate */
    uint64_t    seed;
    unsigned    l;                  /* generations in the window (0: none) */
    /* as asked for (0: default, or unknown for a loaded filter) */
    uint64_t    asked_items, asked_ns, capacity, max_memory;
    double      max_error_ratio;    /* adds refused past this x error; 0: never */
    /* the clock (see Time above); clock_ns and count change under the lock */
    int         filter_clock;       /* 1: calls without a time use clock_ns */
    uint64_t    clock_ns;           /* largest time given to the library */
    uint64_t    count;              /* adds since open or clear (stats items) */
    PyObject   *weakrefs;
} filter_object;

/* The ValueError's message for a call on a closed or never opened filter. */
extern const char pytdbf_filter_not_open[];

/* ---- the lock (see Locking above) ---------------------------------------- */

/* Take the lock, waiting for it (a batch holds it) only with the GIL
 * released. */
static inline void lock_filter(filter_object *self)
{
    if (PyThread_acquire_lock(self->lock, NOWAIT_LOCK))
        return;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
}

static inline void unlock_filter(filter_object *self)
{
    PyThread_release_lock(self->lock);
}

/* ---- filter_calls.c: the calls on keys and on the clock ----------------- */

/* add(key, now=None, *, now_ns=None) and contains(...): one key. */
PyObject *pytdbf_filter_add(filter_object *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames);
PyObject *pytdbf_filter_contains(filter_object *self, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames);
/* `key in f`: 1, 0, or -1 with an exception. */
int pytdbf_filter_sq_contains(filter_object *self, PyObject *key_obj);
/* add_many(keys, now=None, *, now_ns=None) and contains_many(...): a list
 * of answers for an iterable of keys, in library batches. */
PyObject *pytdbf_filter_add_many(filter_object *self, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames);
PyObject *pytdbf_filter_contains_many(filter_object *self, PyObject *const *args,
                                      Py_ssize_t nargs, PyObject *kwnames);
/* advance(now=None, *, now_ns=None) and current_error(...). */
PyObject *pytdbf_filter_advance(filter_object *self, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames);
PyObject *pytdbf_filter_current_error(filter_object *self, PyObject *const *args,
                                      Py_ssize_t nargs, PyObject *kwnames);
/* stats(): tdbf_stats as a dict. */
PyObject *pytdbf_filter_stats(filter_object *self, PyObject *unused);
/* posterior(key, universe, ...) and expected_age(...): the inference of
 * tdbf_posterior and tdbf_expected_age under a prior. */
PyObject *pytdbf_filter_posterior(filter_object *self, PyObject *args, PyObject *kwds);
PyObject *pytdbf_filter_expected_age(filter_object *self, PyObject *args, PyObject *kwds);

#endif /* PYTDBF_FILTER_OBJECT_H */
