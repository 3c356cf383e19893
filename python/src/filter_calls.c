/*
 * filter_calls.c — what tdbf.Filter does with keys and time: add and
 * contains (one key, and `key in f`), add_many and contains_many (an
 * iterable, in library batches with the GIL released), advance,
 * current_error, stats, and the inference calls posterior and
 * expected_age; each parses the time of the call (see Time in
 * filter_object.h) and refuses adds past the filter's error bound.  The
 * type, its lifecycle, attributes and persistence are filter.c's.
 */
#include "filter_object.h"

#include <math.h>
#include <string.h>

/* Keys gathered per library call of add_many/contains_many. */
#define BATCH_KEYS 1024

const char pytdbf_filter_not_open[] =
    "the filter is not open or was closed (create one with tdbf.Filter(window, ...) "
    "or tdbf.load)";

/* ---- argument parsing: (first, now=None, *, now_ns=None) ------------------ */

static int keyword_is(PyObject *name, const char *expected)
{
    return PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, expected) == 0;
}

/* The time of one call: the one it gave, or its filter's default, which
 * for the 'filter' clock is read under the lock (at_clock). */
typedef struct call_time {
    uint64_t ns;
    int      at_clock;
} call_time;

/* now / now_ns (NULL or None: not given) to the time of a call.  A time
 * given switches the filter to its own clock (see Time in
 * filter_object.h).  Count designs never read a clock: they get 0 unless
 * a time was given. */
static int call_time_of(filter_object *self, PyObject *now_obj, PyObject *now_ns,
                        call_time *when)
{
    when->ns = 0;
    when->at_clock = 0;
    int given = pytdbf_now(now_obj, now_ns, &when->ns);
    if (given != 0) {
        if (given > 0)
            self->filter_clock = 1;
        return given < 0 ? -1 : 0;
    }
    if (self->filter != NULL && self->window_ns == 0)
        return 0;
    if (self->filter_clock)
        when->at_clock = 1;
    else
        when->ns = pytdbf_wall_ns();
    return 0;
}

/* Under the lock: the time a call runs at. */
static uint64_t time_now(const filter_object *self, const call_time *when)
{
    return when->at_clock ? self->clock_ns : when->ns;
}

/* Under the lock, after an add or advance at `now` succeeded: the
 * filter's clock is the largest time it was given (libtdbf clamps the
 * same way, so this is its tdbf_stats.now_ns). */
static void clock_reached(filter_object *self, uint64_t now)
{
    if (now > self->clock_ns)
        self->clock_ns = now;
}

/* Parse a vectorcall of `fname` taking an optional leading positional
 * argument (when `first` is not NULL: required), then now, and now_ns by
 * keyword, into the time of the call. */
static int parse_call(filter_object *self, const char *fname, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames, PyObject **first, call_time *when)
{
    Py_ssize_t fixed = first != NULL ? 1 : 0;
    PyObject *now_obj = NULL, *now_ns = NULL;
    if (nargs < fixed || nargs > fixed + 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes %s positional argument%s (%zd given)",
                     fname, fixed ? "1 or 2" : "at most 1", fixed ? "s" : "", nargs);
        return -1;
    }
    if (first != NULL)
        *first = args[0];
    if (nargs > fixed)
        now_obj = args[fixed];
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        PyObject **slot = keyword_is(name, "now") ? &now_obj
                        : keyword_is(name, "now_ns") ? &now_ns : NULL;
        if (slot == NULL || *slot != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got %s keyword argument %R", fname,
                         slot == NULL ? "an unexpected" : "a repeated", name);
            return -1;
        }
        *slot = args[nargs + i];
    }
    return call_time_of(self, now_obj, now_ns, when);
}

/* ---- refusing adds past the bound ---------------------------------------- */

/* What an add call's check returns when it refuses (tdbf_add gives 0 or 1). */
#define ADD_REFUSED 2

/* A fixed-size filter (bloom, clock, rotating) fed past what it was sized
 * for answers "present" for ever more new keys; past max_error_ratio x
 * its target an add is refused instead, as the Redis module and `tdbf
 * dedup` do.  tdbf_current_error is O(1) to O(slices).  Under the lock. */
static int overloaded(const filter_object *self, uint64_t now, double *estimate)
{
    if (self->max_error_ratio <= 0.0)
        return 0;
    return tdbf_current_error(self->filter, now, estimate) == TDBF_OK &&
           *estimate > self->max_error_ratio * self->error;
}

/* Raise tdbf.FullError; `answers` (add_many's answers for the keys added
 * before the refusal, or NULL) becomes its .answers.  Returns NULL. */
static PyObject *raise_full(const filter_object *self, double estimate, PyObject *answers)
{
    char message[320];     /* PyErr_Format has no %g */
    snprintf(message, sizeof message,
             "filter is full: its estimated false-positive rate %.3g is above %g x its "
             "target %g; create it for more keys (%s), use a design that grows "
             "(tlbf-line), or wait for keys to expire", estimate, self->max_error_ratio,
             self->error, self->window_ns != 0 ? "capacity" : "window");
    PyErr_SetString(pytdbf_full_error, message);
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (value != NULL &&
        PyObject_SetAttrString(value, "answers", answers != NULL ? answers : Py_None) != 0) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
        return NULL;
    }
    PyErr_Restore(type, value, traceback);
    return NULL;
}

/* ---- single operations ------------------------------------------------- */

/* One add or contains: key checked and converted before the lock. */
static PyObject *single_call(filter_object *self, const char *fname, int adding,
                             PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *key_obj;
    call_time when;
    pytdbf_key key;
    if (parse_call(self, fname, args, nargs, kwnames, &key_obj, &when) != 0 ||
        pytdbf_key_get(key_obj, &key) != 0)
        return NULL;
    int rc = TDBF_EINVAL, open;
    double estimate = 0.0;
    lock_filter(self);
    open = self->filter != NULL;
    uint64_t now = time_now(self, &when);
    if (open && adding && overloaded(self, now, &estimate))
        rc = ADD_REFUSED;
    else if (open)
        rc = adding ? tdbf_add(self->filter, key.data, key.len, now)
                    : tdbf_contains(self->filter, key.data, key.len, now);
    if (adding && rc >= 0 && rc != ADD_REFUSED) {
        clock_reached(self, now);
        self->count++;
    }
    unlock_filter(self);
    pytdbf_key_release(&key);
    if (!open) {
        PyErr_SetString(PyExc_ValueError, pytdbf_filter_not_open);
        return NULL;
    }
    if (rc == ADD_REFUSED)
        return raise_full(self, estimate, NULL);
    if (rc < 0)
        return pytdbf_raise(rc, fname, 0);
    /* add answers "was it new", contains "is it there": the C code is
     * "present" for both */
    return PyBool_FromLong(adding ? rc == 0 : rc == 1);
}

PyObject *pytdbf_filter_add(filter_object *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    return single_call(self, "add", 1, args, nargs, kwnames);
}

PyObject *pytdbf_filter_contains(filter_object *self, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames)
{
    return single_call(self, "contains", 0, args, nargs, kwnames);
}

/* `key in f`: at the wall clock for time designs. */
int pytdbf_filter_sq_contains(filter_object *self, PyObject *key_obj)
{
    PyObject *answer = single_call(self, "__contains__", 0, &key_obj, 1, NULL);
    if (answer == NULL)
        return -1;
    int present = answer == Py_True;
    Py_DECREF(answer);
    return present;
}

/* ---- batches ------------------------------------------------------------ */

typedef struct key_batch {
    size_t       n, cap;
    int          exhausted;     /* the iterator has no more keys */
    pytdbf_key  *keys;
    PyObject   **owners;        /* a reference to each key object */
    const void **data;
    size_t      *lens;
    uint8_t     *results;
} key_batch;

static void batch_clear(key_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        pytdbf_key_release(&b->keys[i]);
        Py_DECREF(b->owners[i]);
    }
    b->n = 0;
}

static void batch_free(key_batch *b)
{
    batch_clear(b);
    PyMem_Free(b->keys);
    PyMem_Free(b->owners);
    PyMem_Free(b->data);
    PyMem_Free(b->lens);
    PyMem_Free(b->results);
}

static int batch_alloc(key_batch *b, Py_ssize_t hint)
{
    memset(b, 0, sizeof *b);
    b->cap = hint > 0 && hint < BATCH_KEYS ? (size_t)hint : BATCH_KEYS;
    b->keys = PyMem_New(pytdbf_key, b->cap);
    b->owners = PyMem_New(PyObject *, b->cap);
    b->data = PyMem_New(const void *, b->cap);
    b->lens = PyMem_New(size_t, b->cap);
    b->results = PyMem_New(uint8_t, b->cap);
    if (!b->keys || !b->owners || !b->data || !b->lens || !b->results) {
        batch_free(b);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Take up to cap keys from the iterator.  The references keep every key's
 * bytes alive (and immovable: bytes and str are immutable, a buffer's
 * export pins it) while the GIL is released. */
static int batch_fill(key_batch *b, PyObject *iter)
{
    while (b->n < b->cap) {
        PyObject *item = PyIter_Next(iter);
        if (item == NULL) {
            if (PyErr_Occurred())
                return -1;
            b->exhausted = 1;
            return 0;
        }
        if (pytdbf_key_get(item, &b->keys[b->n]) != 0) {
            Py_DECREF(item);
            return -1;
        }
        b->owners[b->n] = item;
        b->data[b->n] = b->keys[b->n].data;
        b->lens[b->n] = b->keys[b->n].len;
        b->n++;
    }
    return 0;
}

/* One library batch call with the GIL released; TDBF_EINVAL if closed,
 * ADD_REFUSED (with *estimate) if the filter is past its bound. */
static int batch_run(filter_object *self, key_batch *b, int adding, const call_time *when,
                     int *open, double *estimate)
{
    int rc = TDBF_EINVAL;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    *open = self->filter != NULL;
    uint64_t now = time_now(self, when);
    if (*open && adding && overloaded(self, now, estimate))
        rc = ADD_REFUSED;
    else if (*open)
        rc = adding ? tdbf_add_batch(self->filter, b->n, b->data, b->lens, now, b->results)
                    : tdbf_contains_batch(self->filter, b->n, b->data, b->lens, now,
                                          b->results);
    if (adding && rc == TDBF_OK) {
        clock_reached(self, now);
        self->count += b->n;
    }
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return rc;
}

static int batch_answers(PyObject *list, const key_batch *b, int adding)
{
    for (size_t i = 0; i < b->n; i++) {
        /* results[i] is "was present"; add_many answers "was new" */
        int yes = adding ? b->results[i] == 0 : b->results[i] != 0;
        if (PyList_Append(list, yes ? Py_True : Py_False) != 0)
            return -1;
    }
    return 0;
}

static PyObject *batch_call(filter_object *self, const char *fname, int adding,
                            PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *keys;
    call_time when;
    if (parse_call(self, fname, args, nargs, kwnames, &keys, &when) != 0)
        return NULL;
    if (PyUnicode_Check(keys) || PyBytes_Check(keys) || PyByteArray_Check(keys)) {
        /* iterating a str would add its characters: surely a mistake */
        PyErr_Format(PyExc_TypeError, "%s(): keys must be an iterable of keys, not a "
                     "single %.100s", fname, Py_TYPE(keys)->tp_name);
        return NULL;
    }
    Py_ssize_t hint = PyObject_LengthHint(keys, BATCH_KEYS);
    PyObject *iter = hint < 0 ? NULL : PyObject_GetIter(keys);
    if (iter == NULL)
        return NULL;
    PyObject *answers = PyList_New(0);
    key_batch b;
    if (answers == NULL || batch_alloc(&b, hint) != 0) {
        Py_XDECREF(answers);
        Py_DECREF(iter);
        return NULL;
    }
    int failed = 0;
    while (!failed && !b.exhausted) {
        if (batch_fill(&b, iter) != 0) {
            failed = 1;
            break;
        }
        if (b.n == 0)
            break;
        double estimate = 0.0;
        int open, rc = batch_run(self, &b, adding, &when, &open, &estimate);
        if (!open)
            PyErr_SetString(PyExc_ValueError, pytdbf_filter_not_open);
        else if (rc == ADD_REFUSED)
            raise_full(self, estimate, answers);
        else if (rc != TDBF_OK)
            pytdbf_raise(rc, fname, 0);
        failed = !open || rc != TDBF_OK || batch_answers(answers, &b, adding) != 0;
        batch_clear(&b);
    }
    batch_free(&b);
    Py_DECREF(iter);
    if (failed) {
        Py_DECREF(answers);
        return NULL;
    }
    return answers;
}

PyObject *pytdbf_filter_add_many(filter_object *self, PyObject *const *args,
                                 Py_ssize_t nargs, PyObject *kwnames)
{
    return batch_call(self, "add_many", 1, args, nargs, kwnames);
}

PyObject *pytdbf_filter_contains_many(filter_object *self, PyObject *const *args,
                                      Py_ssize_t nargs, PyObject *kwnames)
{
    return batch_call(self, "contains_many", 0, args, nargs, kwnames);
}

/* ---- time, introspection ---------------------------------------------- */

/* advance and current_error: one call at one time, under the lock. */
static PyObject *clock_call(filter_object *self, const char *fname, int estimate,
                           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    call_time when;
    if (parse_call(self, fname, args, nargs, kwnames, NULL, &when) != 0)
        return NULL;
    double error = 0.0;
    int rc = TDBF_EINVAL, open;
    lock_filter(self);
    open = self->filter != NULL;
    uint64_t now = time_now(self, &when);
    if (open)
        rc = estimate ? tdbf_current_error(self->filter, now, &error)
                      : tdbf_advance(self->filter, now);
    if (!estimate && rc == TDBF_OK)
        clock_reached(self, now);
    unlock_filter(self);
    if (!open) {
        PyErr_SetString(PyExc_ValueError, pytdbf_filter_not_open);
        return NULL;
    }
    if (rc != TDBF_OK)
        return pytdbf_raise(rc, fname, 0);
    if (estimate)
        return PyFloat_FromDouble(error);
    Py_RETURN_NONE;
}

PyObject *pytdbf_filter_advance(filter_object *self, PyObject *const *args,
                                Py_ssize_t nargs, PyObject *kwnames)
{
    return clock_call(self, "advance", 0, args, nargs, kwnames);
}

PyObject *pytdbf_filter_current_error(filter_object *self, PyObject *const *args,
                                      Py_ssize_t nargs, PyObject *kwnames)
{
    return clock_call(self, "current_error", 1, args, nargs, kwnames);
}

PyObject *pytdbf_filter_stats(filter_object *self, PyObject *unused)
{
    (void)unused;
    tdbf_stats st;
    int rc = TDBF_EINVAL, open;
    Py_BEGIN_ALLOW_THREADS                 /* error_estimated may count bits */
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    open = self->filter != NULL;
    if (open)
        rc = tdbf_get_stats(self->filter, &st);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    if (!open) {
        PyErr_SetString(PyExc_ValueError, pytdbf_filter_not_open);
        return NULL;
    }
    if (rc != TDBF_OK)
        return pytdbf_raise(rc, "stats", 0);
    return pytdbf_stats_dict(&st);
}

/* ---- inference ---------------------------------------------------------- */

typedef enum { ASK_POSTERIOR, ASK_EXPECTED_AGE } inference_question;

static int prior_model(PyObject *model, tdbf_prior_model *out)
{
    const char *name = model == NULL ? "uniform" : PyUnicode_Check(model)
                                                       ? PyUnicode_AsUTF8(model) : NULL;
    if (name != NULL && strcmp(name, "uniform") == 0)
        *out = TDBF_PRIOR_UNIFORM;
    else if (name != NULL && (strcmp(name, "power_law") == 0 || strcmp(name, "zipf") == 0))
        *out = TDBF_PRIOR_POWER_LAW;
    else {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "model: %R is not a prior model ('uniform', "
                     "'power_law')", model);
        return -1;
    }
    return 0;
}

static PyObject *inference(filter_object *self, PyObject *args, PyObject *kwds,
                           inference_question question)
{
    static char *kwlist[] = {"key", "universe", "now", "model", "exponent",
                             "key_probability", "now_ns", NULL};
    const char *fname = question == ASK_POSTERIOR ? "posterior" : "expected_age";
    PyObject *key_obj, *universe, *now_obj = NULL, *model = NULL, *exponent = NULL;
    PyObject *key_probability = NULL, *now_ns = NULL;
    char format[32];
    snprintf(format, sizeof format, "OO|O$OOOO:%s", fname);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &key_obj, &universe,
                                     &now_obj, &model, &exponent, &key_probability, &now_ns))
        return NULL;
    tdbf_prior prior;
    tdbf_prior_model kind;
    double size, power, probability;
    call_time when;
    pytdbf_key key;
    if (prior_model(model, &kind) != 0 ||
        pytdbf_real(universe, "universe", 0.0, INFINITY, 0, 0.0, &size) != 0 ||
        pytdbf_real(exponent, "exponent", 0.0, INFINITY, 1, 1.0, &power) != 0 ||
        pytdbf_real(key_probability, "key_probability", 0.0, 1.0 + 1e-12, 1, 0.0,
                    &probability) != 0 ||
        call_time_of(self, now_obj, now_ns, &when) != 0 || pytdbf_key_get(key_obj, &key) != 0)
        return NULL;
    tdbf_prior_init(&prior, kind, size);
    prior.exponent = power;
    prior.key_probability = probability > 1.0 ? 1.0 : probability;

    double answer = 0.0;
    int rc = TDBF_EINVAL, open;
    lock_filter(self);
    open = self->filter != NULL;
    uint64_t now = time_now(self, &when);
    if (open && question == ASK_POSTERIOR)
        rc = tdbf_posterior(self->filter, key.data, key.len, now, &prior, &answer);
    else if (open)
        rc = tdbf_expected_age(self->filter, key.data, key.len, now, &prior, &answer);
    unlock_filter(self);
    pytdbf_key_release(&key);
    if (!open) {
        PyErr_SetString(PyExc_ValueError, pytdbf_filter_not_open);
        return NULL;
    }
    if (rc == TDBF_EINVAL)
        return PyErr_Format(PyExc_ValueError, "%s: invalid prior (universe >= 1; "
                            "power_law: key_probability in (0, 1] is needed)", fname);
    if (rc == TDBF_ENOTSUP)
        return PyErr_Format(pytdbf_error, "%s: design '%s' has no inference (tbf, btbf, "
                            "apbf, apbbf and apbf-line have)", fname,
                            tdbf_design_name(self->design));
    if (rc != TDBF_OK)
        return pytdbf_raise(rc, fname, 0);
    return PyFloat_FromDouble(answer);
}

PyObject *pytdbf_filter_posterior(filter_object *self, PyObject *args, PyObject *kwds)
{
    return inference(self, args, kwds, ASK_POSTERIOR);
}

PyObject *pytdbf_filter_expected_age(filter_object *self, PyObject *args, PyObject *kwds)
{
    return inference(self, args, kwds, ASK_EXPECTED_AGE);
}
