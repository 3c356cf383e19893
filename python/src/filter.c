/*
 * filter.c — the tdbf.Filter type: its lifecycle (construction, the
 * handle installed with what never changes, close and the context
 * manager), the clock mode and error bound a caller sets, copy and
 * clear, persistence (to_bytes, save, from_bytes, load, pickle and the
 * copy module), the attributes and repr, and the type object itself.
 * What a filter does with keys and time is filter_calls.c's; the object
 * and its lock are in filter_object.h.
 */
#include "filter_object.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

/* Adds are refused once the estimated FP passes this multiple of the
 * target: the Redis module's default (tdbf.max-error-ratio), so every
 * front draws the line in the same place. */
#define DEFAULT_MAX_ERROR_RATIO 1.5

/* A saved clock at or past this (2001-09-09 in ns since 1970) and not in
 * the future reads as a wall-clock time: see loaded_clock. */
#define WALL_CLOCK_SINCE_NS UINT64_C(1000000000000000000)
#define WALL_CLOCK_SKEW_NS  (UINT64_C(86400) * UINT64_C(1000000000))

/* ---- lifecycle ---------------------------------------------------------- */

static PyObject *filter_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)args;
    (void)kwds;
    filter_object *self = (filter_object *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->max_error_ratio = DEFAULT_MAX_ERROR_RATIO;
    self->lock = PyThread_allocate_lock();
    if (self->lock == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static void filter_dealloc(filter_object *self)
{
    /* Nobody else can hold the lock: a running call holds a reference. */
    if (self->weakrefs != NULL)
        PyObject_ClearWeakRefs((PyObject *)self);
    tdbf_close(self->filter);
    if (self->lock != NULL)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Where a handle's clock and add count start: zero for a new filter, the
 * original's for a copy, the saved ones for a load. */
typedef struct clock_state {
    int      filter_clock;
    uint64_t clock_ns;
    uint64_t count;
} clock_state;

/* Install a freshly opened, copied or loaded handle (closing any previous
 * one, if __init__ runs twice) and cache what never changes.  Takes
 * ownership. */
static int filter_install(filter_object *self, tdbf *handle, const clock_state *clock)
{
    tdbf_shape st;
    int rc = tdbf_get_shape(handle, &st);     /* O(1): no scan of the bits */
    if (rc != TDBF_OK) {
        tdbf_close(handle);
        pytdbf_raise(rc, "shape", 0);
        return -1;
    }
    lock_filter(self);
    tdbf *old = self->filter;
    self->filter = handle;
    self->design = st.design;
    self->window_items = st.window_ns ? 0 : st.window_items;
    self->window_ns = st.window_ns;
    self->error = st.error_configured;
    self->seed = st.seed;
    self->l = st.l;
    self->filter_clock = clock->filter_clock;
    self->clock_ns = clock->clock_ns;
    self->count = clock->count;
    unlock_filter(self);
    tdbf_close(old);
    return 0;
}

/* The clock mode of a loaded filter: `mode` as asked (CLOCK_AUTO: guess).
 * The file keeps the filter's clock, not how it was driven.  A clock that
 * reads as a wall-clock time in the past (or within a day ahead: skew)
 * was most likely driven by the wall clock, as `tdbf dedup --state`
 * without --time is, and a service restarting after a pause wants its
 * keys to expire by the wall clock.  Any other clock (small times from
 * a simulation or time.monotonic(), a time in the future) was given
 * explicitly: calls without a time stay at it. */
enum { CLOCK_WALL = 0, CLOCK_FILTER = 1, CLOCK_AUTO = -1 };

static int loaded_clock(tdbf *handle, int mode, clock_state *clock)
{
    tdbf_stats st;
    int rc = tdbf_get_stats(handle, &st);     /* once per load: O(memory) */
    if (rc != TDBF_OK)
        return rc;
    clock->clock_ns = st.now_ns;
    clock->count = st.items;
    if (mode != CLOCK_AUTO) {
        clock->filter_clock = mode;
        return TDBF_OK;
    }
    uint64_t wall = pytdbf_wall_ns();
    int wall_like = st.now_ns == 0 ||
                    (st.now_ns >= WALL_CLOCK_SINCE_NS && st.now_ns <= wall + WALL_CLOCK_SKEW_NS);
    clock->filter_clock = st.window_ns != 0 && !wall_like;
    return TDBF_OK;
}

/* "wall" or "filter" (None: CLOCK_AUTO) to a mode, or -2 with ValueError. */
static int clock_mode(PyObject *value, int allow_none)
{
    if (allow_none && (value == NULL || value == Py_None))
        return CLOCK_AUTO;
    const char *name = value != NULL && PyUnicode_Check(value) ? PyUnicode_AsUTF8(value) : NULL;
    if (name != NULL && strcmp(name, "wall") == 0)
        return CLOCK_WALL;
    if (name != NULL && strcmp(name, "filter") == 0)
        return CLOCK_FILTER;
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "clock: %R is not 'wall' (calls without a time read the "
                 "wall clock) or 'filter' (they use the filter's own clock)%s", value,
                 allow_none ? " or None (guess from the saved clock)" : "");
    return -2;
}

static PyObject *get_clock(filter_object *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(self->filter_clock ? "filter" : "wall");
}

static int set_clock(filter_object *self, PyObject *value, void *closure)
{
    (void)closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "clock cannot be deleted");
        return -1;
    }
    int mode = clock_mode(value, 0);
    if (mode < 0)
        return -1;
    self->filter_clock = mode;
    return 0;
}

/* max_error_ratio: a float >= 1, or 0 / None to never refuse. */
static int set_max_error_ratio(filter_object *self, PyObject *value, void *closure)
{
    (void)closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "max_error_ratio cannot be deleted");
        return -1;
    }
    double ratio = 0.0;
    if (value != Py_None) {
        ratio = PyFloat_AsDouble(value);
        if (ratio == -1.0 && PyErr_Occurred())
            return -1;
        if (!(ratio == 0.0 || (ratio >= 1.0 && isfinite(ratio)))) {
            PyErr_Format(PyExc_ValueError, "max_error_ratio: %R is not 0 (never refuse) "
                         "or a finite ratio >= 1", value);
            return -1;
        }
    }
    lock_filter(self);
    self->max_error_ratio = ratio;
    unlock_filter(self);
    return 0;
}

static PyObject *get_max_error_ratio(filter_object *self, void *closure)
{
    (void)closure;
    return PyFloat_FromDouble(self->max_error_ratio);
}

static int filter_init(filter_object *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"window", "error", "window_items", "window_seconds", "design",
                             "seed", "capacity", "max_memory", "k", "l", "max_error_ratio",
                             NULL};
    pytdbf_options opt = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *k = NULL, *l = NULL, *ratio = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO$OOOOOOOOO:Filter", kwlist, &opt.window,
                                     &opt.error, &opt.window_items, &opt.window_seconds,
                                     &opt.design, &opt.seed, &opt.capacity, &opt.max_memory,
                                     &k, &l, &ratio))
        return -1;
    if (ratio != NULL && set_max_error_ratio(self, ratio, NULL) != 0)
        return -1;

    tdbf_config cfg;
    uint64_t value;
    if (pytdbf_config(&opt, &cfg) != 0 || pytdbf_u64(k, "k", 1, TDBF_MAX_K, 1, 0, &value) != 0)
        return -1;
    cfg.k = (unsigned)value;
    if (pytdbf_u64(l, "l", 1, TDBF_MAX_L, 1, 0, &value) != 0)
        return -1;
    cfg.l = (unsigned)value;
    if ((cfg.k == 0) != (cfg.l == 0)) {
        PyErr_SetString(PyExc_ValueError, "k, l: give both (an explicit shape) or neither "
                        "(the planner's choice)");
        return -1;
    }

    tdbf *handle = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS                 /* planning takes up to ~0.2 s */
    rc = tdbf_open(&handle, &cfg);
    Py_END_ALLOW_THREADS
    if (rc != TDBF_OK) {
        pytdbf_config_error(rc, &cfg, "Filter");
        return -1;
    }
    static const clock_state fresh = {0, 0, 0};
    if (filter_install(self, handle, &fresh) != 0)
        return -1;
    self->asked_items = cfg.window_items;
    self->asked_ns = cfg.window_ns;
    self->capacity = cfg.capacity;
    self->max_memory = cfg.max_memory;
    return 0;
}

/* ---- copy and clear ------------------------------------------------------ */

/* A new, unopened instance of cls (a Filter subclass), skipping __init__. */
static filter_object *filter_blank(PyObject *cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &pytdbf_filter_type)) {
        PyErr_SetString(PyExc_TypeError, "not a tdbf.Filter class");
        return NULL;
    }
    return (filter_object *)filter_new((PyTypeObject *)cls, NULL, NULL);
}

static PyObject *filter_copy(filter_object *self, PyObject *unused)
{
    (void)unused;
    filter_object *twin = filter_blank((PyObject *)Py_TYPE(self));
    if (twin == NULL)
        return NULL;
    tdbf *handle = NULL;
    int rc = TDBF_EINVAL, open;
    clock_state clock = {0, 0, 0};
    Py_BEGIN_ALLOW_THREADS                 /* O(memory) */
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    open = self->filter != NULL;
    if (open)
        rc = tdbf_copy(&handle, self->filter);
    clock.filter_clock = self->filter_clock;
    clock.clock_ns = self->clock_ns;
    clock.count = self->count;
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    if (!open || rc != TDBF_OK) {
        Py_DECREF(twin);
        if (!open)
            return PyErr_Format(PyExc_ValueError, pytdbf_filter_not_open);
        return pytdbf_raise(rc, "copy", 0);
    }
    if (filter_install(twin, handle, &clock) != 0) {
        Py_DECREF(twin);
        return NULL;
    }
    twin->asked_items = self->asked_items;
    twin->asked_ns = self->asked_ns;
    twin->capacity = self->capacity;
    twin->max_memory = self->max_memory;
    twin->max_error_ratio = self->max_error_ratio;
    return (PyObject *)twin;
}

static PyObject *filter_clear(filter_object *self, PyObject *unused)
{
    (void)unused;
    int rc = TDBF_EINVAL, open;
    Py_BEGIN_ALLOW_THREADS                 /* opens a new filter inside */
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    open = self->filter != NULL;
    if (open)
        rc = tdbf_clear(self->filter);
    if (rc == TDBF_OK)
        self->count = 0;                   /* the clock is kept, as libtdbf's */
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    if (!open)
        return PyErr_Format(PyExc_ValueError, pytdbf_filter_not_open);
    if (rc == TDBF_ENOTSUP)
        return PyErr_Format(pytdbf_error, "clear: a loaded filter does not know the "
                            "configuration it was opened with; open a new Filter instead");
    if (rc != TDBF_OK)
        return pytdbf_raise(rc, "clear", 0);
    Py_RETURN_NONE;
}

/* ---- serialization ------------------------------------------------------ */

typedef struct memory_sink {
    char  *cursor;
    size_t left;
} memory_sink;

static int sink_write(void *ctx, const void *buf, size_t len)
{
    memory_sink *sink = ctx;
    if (len > sink->left)
        return 1;
    memcpy(sink->cursor, buf, len);
    sink->cursor += len;
    sink->left -= len;
    return 0;
}

static PyObject *filter_to_bytes(filter_object *self, PyObject *unused)
{
    (void)unused;
    lock_filter(self);
    if (self->filter == NULL) {
        unlock_filter(self);
        PyErr_SetString(PyExc_ValueError, pytdbf_filter_not_open);
        return NULL;
    }
    uint64_t size = tdbf_saved_size(self->filter);
    /* bytes are not a GC container: allocating them never runs Python
     * code that could come back for this (held) lock */
    PyObject *data = size < PY_SSIZE_T_MAX
                         ? PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size) : NULL;
    if (data == NULL) {
        unlock_filter(self);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    memory_sink sink = {PyBytes_AS_STRING(data), (size_t)size};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = tdbf_save(self->filter, sink_write, &sink);
    Py_END_ALLOW_THREADS
    unlock_filter(self);
    if (rc == TDBF_OK && sink.left != 0)
        rc = TDBF_EIO;                     /* saved_size disagreed with save */
    if (rc != TDBF_OK) {
        Py_DECREF(data);
        return pytdbf_raise(rc, "to_bytes", 0);
    }
    return data;
}

static PyObject *filter_save(filter_object *self, PyObject *path_arg)
{
    PyObject *path;
    if (!PyUnicode_FSConverter(path_arg, &path))
        return NULL;
    int rc = TDBF_EINVAL, open, saved_errno = 0;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    open = self->filter != NULL;
    if (open) {
        rc = tdbf_save_file(self->filter, PyBytes_AS_STRING(path));
        saved_errno = errno;
    }
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    PyObject *result = Py_None;
    if (!open)
        result = PyErr_Format(PyExc_ValueError, pytdbf_filter_not_open);
    else if (rc == TDBF_EIO) {
        errno = saved_errno;
        result = PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_arg);
    } else if (rc != TDBF_OK)
        result = pytdbf_raise(rc, "save", 0);
    Py_DECREF(path);
    Py_XINCREF(result);
    return result;
}

/* The end of a load: the filter with its clock in `mode`, or (dropping
 * it) the error. */
static PyObject *loaded(filter_object *self, int rc, tdbf *handle, int mode, const char *what)
{
    clock_state clock = {0, 0, 0};
    if (rc == TDBF_OK) {
        Py_BEGIN_ALLOW_THREADS
        rc = loaded_clock(handle, mode, &clock);
        Py_END_ALLOW_THREADS
        if (rc != TDBF_OK)
            tdbf_close(handle);
    }
    if (rc != TDBF_OK) {
        Py_DECREF(self);
        return pytdbf_raise(rc, what, 1);
    }
    if (filter_install(self, handle, &clock) != 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* The arguments of from_bytes and load: (source, /, clock=None). */
static int load_args(PyObject *args, PyObject *kwds, const char *format, PyObject **source,
                     int *mode)
{
    static char *kwlist[] = {"", "clock", NULL};
    PyObject *clock = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, source, &clock))
        return -1;
    *mode = clock_mode(clock, 1);
    return *mode == -2 ? -1 : 0;
}

static PyObject *filter_from_bytes(PyObject *cls, PyObject *args, PyObject *kwds)
{
    PyObject *data;
    int mode;
    if (load_args(args, kwds, "O|O:from_bytes", &data, &mode) != 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        return PyErr_Format(PyExc_TypeError, "from_bytes: expected bytes or a "
                            "C-contiguous buffer, not %.100s", Py_TYPE(data)->tp_name);
    }
    filter_object *self = filter_blank(cls);
    tdbf *handle = NULL;
    int rc = TDBF_ENOMEM;
    if (self != NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = tdbf_load_buffer(&handle, view.buf, (size_t)view.len, NULL);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&view);
    return self != NULL ? loaded(self, rc, handle, mode, "from_bytes") : NULL;
}

static PyObject *filter_load(PyObject *cls, PyObject *args, PyObject *kwds)
{
    PyObject *path, *path_arg;
    int mode;
    if (load_args(args, kwds, "O|O:load", &path_arg, &mode) != 0 ||
        !PyUnicode_FSConverter(path_arg, &path))
        return NULL;
    filter_object *self = filter_blank(cls);
    tdbf *handle = NULL;
    int rc = TDBF_ENOMEM, saved_errno = 0;
    if (self != NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = tdbf_load_file(&handle, PyBytes_AS_STRING(path), NULL);
        saved_errno = errno;
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(path);
    if (self == NULL)
        return NULL;
    if (rc == TDBF_EIO) {
        Py_DECREF(self);
        errno = saved_errno;
        return PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_arg);
    }
    return loaded(self, rc, handle, mode, "load");
}

/* pickle: rebuilt from the saved bytes by the class's from_bytes, in the
 * same clock mode; a subclass's instance attributes travel as the state. */
static PyObject *filter_reduce(filter_object *self, PyObject *unused)
{
    (void)unused;
    PyObject *data = filter_to_bytes(self, NULL);
    if (data == NULL)
        return NULL;
    PyObject *rebuild = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "from_bytes");
    PyObject *attributes = PyObject_GetAttrString((PyObject *)self, "__dict__");
    if (attributes == NULL)
        PyErr_Clear();                      /* the base type has none */
    PyObject *result = NULL;
    if (rebuild != NULL && attributes != NULL && PyDict_Check(attributes) &&
        PyDict_GET_SIZE(attributes) > 0)
        result = Py_BuildValue("(O(Os)O)", rebuild, data,
                               self->filter_clock ? "filter" : "wall", attributes);
    else if (rebuild != NULL)
        result = Py_BuildValue("(O(Os))", rebuild, data, self->filter_clock ? "filter" : "wall");
    Py_XDECREF(attributes);
    Py_XDECREF(rebuild);
    Py_DECREF(data);
    return result;
}

/* copy.copy and copy.deepcopy: copy() (a clearable twin, where a trip
 * through the saved bytes would forget the configuration clear needs),
 * with a subclass's instance attributes copied (deepcopy: deeply). */
static PyObject *copy_with_attributes(filter_object *self, PyObject *memo)
{
    PyObject *twin = filter_copy(self, NULL);
    PyObject *attributes = twin != NULL ? PyObject_GetAttrString((PyObject *)self, "__dict__")
                                        : NULL;
    if (twin == NULL || attributes == NULL) {
        PyErr_Clear();                      /* the base type has no __dict__ */
        return twin;
    }
    PyObject *copied = NULL;
    if (memo == NULL) {
        copied = PyDict_Copy(attributes);
    } else {
        PyObject *id = PyLong_FromVoidPtr(self);
        PyObject *copy_module = PyImport_ImportModule("copy");
        if (id != NULL && copy_module != NULL && PyDict_Check(memo) &&
            PyDict_SetItem(memo, id, twin) == 0)
            copied = PyObject_CallMethod(copy_module, "deepcopy", "OO", attributes, memo);
        Py_XDECREF(id);
        Py_XDECREF(copy_module);
    }
    int rc = copied != NULL ? PyObject_SetAttrString(twin, "__dict__", copied) : -1;
    Py_XDECREF(copied);
    Py_DECREF(attributes);
    if (rc != 0)
        Py_CLEAR(twin);
    return twin;
}

static PyObject *filter_dunder_copy(filter_object *self, PyObject *unused)
{
    (void)unused;
    return copy_with_attributes(self, NULL);
}

static PyObject *filter_deepcopy(filter_object *self, PyObject *memo)
{
    return copy_with_attributes(self, memo);
}

/* ---- closing, context manager, size -------------------------------------- */

static PyObject *filter_close(filter_object *self, PyObject *unused)
{
    (void)unused;
    tdbf *handle;
    Py_BEGIN_ALLOW_THREADS                 /* waits for a batch to finish */
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    handle = self->filter;
    self->filter = NULL;
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    tdbf_close(handle);
    Py_RETURN_NONE;
}

static PyObject *filter_enter(filter_object *self, PyObject *unused)
{
    (void)unused;
    if (self->filter == NULL)
        return PyErr_Format(PyExc_ValueError, pytdbf_filter_not_open);
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *filter_exit(filter_object *self, PyObject *args)
{
    (void)args;
    PyObject *closed = filter_close(self, NULL);
    Py_XDECREF(closed);
    if (closed == NULL)
        return NULL;
    Py_RETURN_FALSE;                       /* never swallows the exception */
}

/* sys.getsizeof: the object and the filter's memory (its bits, slices,
 * rings: tdbf_shape.memory_bytes, O(1)). */
static PyObject *filter_sizeof(filter_object *self, PyObject *unused)
{
    (void)unused;
    uint64_t bytes = (uint64_t)Py_TYPE(self)->tp_basicsize;
    tdbf_shape st;
    lock_filter(self);
    if (self->filter != NULL && tdbf_get_shape(self->filter, &st) == TDBF_OK)
        bytes += st.memory_bytes;
    unlock_filter(self);
    return PyLong_FromUnsignedLongLong(bytes);
}

/* ---- attributes ------------------------------------------------------- */

static int check_open(filter_object *self)
{
    if (self->filter != NULL)
        return 0;
    PyErr_SetString(PyExc_ValueError, pytdbf_filter_not_open);
    return -1;
}

static PyObject *get_design(filter_object *self, void *closure)
{
    (void)closure;
    return check_open(self) ? NULL : PyUnicode_FromString(tdbf_design_name(self->design));
}

static PyObject *get_window(filter_object *self, void *closure)
{
    (void)closure;
    if (check_open(self))
        return NULL;
    if (self->window_ns != 0)
        return PyFloat_FromDouble((double)self->window_ns / 1e9);
    return PyLong_FromUnsignedLongLong(self->window_items);
}

static PyObject *get_time_window(filter_object *self, void *closure)
{
    (void)closure;
    return check_open(self) ? NULL : PyBool_FromLong(self->window_ns != 0);
}

static PyObject *get_error(filter_object *self, void *closure)
{
    (void)closure;
    return check_open(self) ? NULL : PyFloat_FromDouble(self->error);
}

/* The unsigned attributes, one getter: the field at `offset`; 0 reads as
 * None where it means "not set" (a default, or what a loaded filter does
 * not know); `locked` for the fields calls change under the lock. */
typedef struct u64_attribute {
    size_t offset;
    int    zero_is_none;
    int    locked;
} u64_attribute;

#define U64_ATTRIBUTE(field, zero_is_none, locked) \
    static const u64_attribute attribute_##field = { \
        offsetof(filter_object, field), zero_is_none, locked}
U64_ATTRIBUTE(seed, 0, 0);
U64_ATTRIBUTE(window_items, 0, 0);
U64_ATTRIBUTE(window_ns, 0, 0);
U64_ATTRIBUTE(capacity, 1, 0);
U64_ATTRIBUTE(max_memory, 1, 0);
U64_ATTRIBUTE(count, 0, 1);
U64_ATTRIBUTE(clock_ns, 0, 1);

static PyObject *get_u64(filter_object *self, void *closure)
{
    const u64_attribute *attribute = closure;
    if (check_open(self))
        return NULL;
    if (attribute->locked)
        lock_filter(self);
    uint64_t value = *(const uint64_t *)((const char *)self + attribute->offset);
    if (attribute->locked)
        unlock_filter(self);
    if (value == 0 && attribute->zero_is_none)
        Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(value);
}

/* ns as the terms of the parameter language, largest unit first, exact:
 * 5400e9 -> "1h30m", 1.5e9 -> "1s500ms", so the text reads back the same. */
static void duration_text(uint64_t ns, char *buf, size_t size)
{
    static const struct {
        const char *name;
        uint64_t    ns;
    } units[] = {
        {"d", UINT64_C(86400000000000)}, {"h", UINT64_C(3600000000000)},
        {"m", UINT64_C(60000000000)}, {"s", UINT64_C(1000000000)},
        {"ms", UINT64_C(1000000)}, {"us", UINT64_C(1000)}, {"ns", 1},
    };
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof units / sizeof units[0] && used < size; i++) {
        if (ns < units[i].ns)
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%llu%s",
                                 (unsigned long long)(ns / units[i].ns), units[i].name);
        ns %= units[i].ns;
    }
}

/* A window as the constructor takes it: 1000, or '1h30m' for a time. */
static void window_value_text(uint64_t value, int timed, char *buf, size_t size)
{
    if (!timed) {
        snprintf(buf, size, "%llu", (unsigned long long)value);
        return;
    }
    char duration[64];
    duration_text(value, duration, sizeof duration);
    snprintf(buf, size, "'%s'", duration);
}

/* The window asked for, and why the built one differs from it:
 * "1000 (built 1002: 6 generations of 167 adds)". */
static void window_repr(const filter_object *self, char *buf, size_t size)
{
    int timed = self->window_ns != 0;
    uint64_t built_value = timed ? self->window_ns : self->window_items;
    uint64_t asked_value = timed ? self->asked_ns : self->asked_items;
    char built[72], asked[72];
    window_value_text(built_value, timed, built, sizeof built);
    if (asked_value == 0 || asked_value == built_value) {
        snprintf(buf, size, "%s", built);
        return;
    }
    window_value_text(asked_value, timed, asked, sizeof asked);
    if (!timed && self->l > 0 && self->window_items % self->l == 0)
        snprintf(buf, size, "%s (built %s: %u generations of %llu adds)", asked, built,
                 self->l, (unsigned long long)(self->window_items / self->l));
    else
        snprintf(buf, size, "%s (built %s)", asked, built);
}

/* Filter(window=..., error=..., design=...): the window as asked, a time
 * window in the parameter language ('10m'), and the built window beside
 * it where the design rounded the request up. */
static PyObject *filter_repr(filter_object *self)
{
    if (self->filter == NULL)
        return PyUnicode_FromFormat("<%s (not open)>", Py_TYPE(self)->tp_name);
    char window[200];
    window_repr(self, window, sizeof window);
    PyObject *error = PyFloat_FromDouble(self->error);
    PyObject *text = error
        ? PyUnicode_FromFormat("%s(window=%s, error=%R, design='%s')", Py_TYPE(self)->tp_name,
                               window, error, tdbf_design_name(self->design))
        : NULL;
    Py_XDECREF(error);
    return text;
}

#include "filter_doc.h"

static PyGetSetDef filter_getset[] = {
    {"design", (getter)get_design, NULL, doc_design, NULL},
    {"window", (getter)get_window, NULL, doc_window, NULL},
    {"time_window", (getter)get_time_window, NULL, doc_time_window, NULL},
    {"error", (getter)get_error, NULL, doc_error, NULL},
#define U64_GETTER(name, field) \
    {#name, (getter)get_u64, NULL, doc_##name, (void *)&attribute_##field}
    U64_GETTER(seed, seed),
    U64_GETTER(window_items, window_items),
    U64_GETTER(window_ns, window_ns),
    U64_GETTER(capacity, capacity),
    U64_GETTER(max_memory, max_memory),
    U64_GETTER(count, count),
    U64_GETTER(now_ns, clock_ns),
    {"clock", (getter)get_clock, (setter)set_clock, doc_clock, NULL},
    {"max_error_ratio", (getter)get_max_error_ratio, (setter)set_max_error_ratio,
     doc_max_error_ratio, NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

#define FASTCALL_KW (METH_FASTCALL | METH_KEYWORDS)

static PyMethodDef filter_methods[] = {
    {"add", (PyCFunction)(void (*)(void))pytdbf_filter_add, FASTCALL_KW, doc_add},
    {"contains", (PyCFunction)(void (*)(void))pytdbf_filter_contains, FASTCALL_KW,
     doc_contains},
    {"add_many", (PyCFunction)(void (*)(void))pytdbf_filter_add_many, FASTCALL_KW,
     doc_add_many},
    {"contains_many", (PyCFunction)(void (*)(void))pytdbf_filter_contains_many, FASTCALL_KW,
     doc_contains_many},
    {"advance", (PyCFunction)(void (*)(void))pytdbf_filter_advance, FASTCALL_KW, doc_advance},
    {"current_error", (PyCFunction)(void (*)(void))pytdbf_filter_current_error, FASTCALL_KW,
     doc_current_error},
    {"stats", (PyCFunction)pytdbf_filter_stats, METH_NOARGS, doc_stats},
    {"copy", (PyCFunction)filter_copy, METH_NOARGS, doc_copy},
    {"clear", (PyCFunction)filter_clear, METH_NOARGS, doc_clear},
    {"posterior", (PyCFunction)(void (*)(void))pytdbf_filter_posterior,
     METH_VARARGS | METH_KEYWORDS, doc_posterior},
    {"expected_age", (PyCFunction)(void (*)(void))pytdbf_filter_expected_age,
     METH_VARARGS | METH_KEYWORDS, doc_expected_age},
    {"to_bytes", (PyCFunction)filter_to_bytes, METH_NOARGS, doc_to_bytes},
    {"save", (PyCFunction)filter_save, METH_O, doc_save},
    {"from_bytes", (PyCFunction)(void (*)(void))filter_from_bytes,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, doc_from_bytes},
    {"load", (PyCFunction)(void (*)(void))filter_load, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     doc_load},
    {"close", (PyCFunction)filter_close, METH_NOARGS, doc_close},
    {"__enter__", (PyCFunction)filter_enter, METH_NOARGS, doc_enter},
    {"__exit__", (PyCFunction)filter_exit, METH_VARARGS, doc_exit},
    {"__sizeof__", (PyCFunction)filter_sizeof, METH_NOARGS, doc_sizeof},
    {"__copy__", (PyCFunction)filter_dunder_copy, METH_NOARGS, doc_dunder_copy},
    {"__deepcopy__", (PyCFunction)filter_deepcopy, METH_O, doc_deepcopy},
    {"__reduce__", (PyCFunction)filter_reduce, METH_NOARGS, doc_reduce},
    {NULL, NULL, 0, NULL}
};

static PySequenceMethods filter_as_sequence = {
    .sq_contains = (objobjproc)pytdbf_filter_sq_contains,
};

PyTypeObject pytdbf_filter_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tdbf.Filter",
    .tp_basicsize = sizeof(filter_object),
    .tp_dealloc = (destructor)filter_dealloc,
    .tp_repr = (reprfunc)filter_repr,
    .tp_as_sequence = &filter_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_weaklistoffset = offsetof(filter_object, weakrefs),
    .tp_doc = doc_filter,
    .tp_methods = filter_methods,
    .tp_getset = filter_getset,
    .tp_init = (initproc)filter_init,
    .tp_new = filter_new,
};

int pytdbf_filter_ready(PyObject *module)
{
    if (PyType_Ready(&pytdbf_filter_type) != 0)
        return -1;
    Py_INCREF(&pytdbf_filter_type);
    if (PyModule_AddObject(module, "Filter", (PyObject *)&pytdbf_filter_type) != 0) {
        Py_DECREF(&pytdbf_filter_type);
        return -1;
    }
    return 0;
}
