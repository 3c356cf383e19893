/*
 * module.c — tdbf._tdbf: the exception types, version, designs, plan().
 *
 * plan() returns, as a dict, what `tdbf plan --json` prints for the same
 * request, from the same library planners (tdbf_plan_apbf, _apbbf_fast,
 * _apbf_line, _design, _decay; sqf from tdbf_plan_shape).  Designs without a planner of their own
 * (tlbf, tbf, btbf, bloom, exact) are sized by opening the filter they
 * describe and reading its stats, so every design can be planned.
 */
#include "pytdbf.h"

#include <stddef.h>
#include <string.h>

/* ---- plan --------------------------------------------------------------- */

/* Up to this many alternatives, as `tdbf plan` shows by default. */
#define PLAN_ALTS 8

/* The fields the APBF and APBBF plans share: generation size, window,
 * slack, bits (and bytes), bits per item, FP. */
static PyObject *sized_fields(uint64_t g, uint64_t window, uint64_t slack, uint64_t bits,
                              double bits_per_item, double fp)
{
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:d,s:d}", "g", (unsigned long long)g,
                         "window", (unsigned long long)window,
                         "slack", (unsigned long long)slack,
                         "bits", (unsigned long long)bits,
                         "bytes", (unsigned long long)((bits + 7) / 8),
                         "bits_per_item", bits_per_item, "fp", fp);
}

static PyObject *merged(PyObject *dict, PyObject *extra);

static PyObject *apbf_fields(const tdbf_plan *p)
{
    return merged(sized_fields(p->g, p->window, p->slack, p->bits, p->bits_per_item, p->fp),
                  Py_BuildValue("{s:I,s:I,s:K,s:d,s:d,s:d,s:d}", "k", p->k, "l", p->l,
                                "m", (unsigned long long)p->m, "fp_paper", p->fp_paper,
                                "eff", p->eff, "npws", p->npws,
                                "accesses_false", p->accesses_false));
}

/* dict.update(extra), dropping extra; dict is cleared (NULL) on failure. */
static PyObject *merged(PyObject *dict, PyObject *extra)
{
    if (dict != NULL && (extra == NULL || PyDict_Update(dict, extra) != 0))
        Py_CLEAR(dict);
    Py_XDECREF(extra);
    return dict;
}

static int same_apbf(const tdbf_plan *a, const tdbf_plan *b)
{
    return a->k == b->k && a->l == b->l && a->m == b->m;
}

/* apbf: the least-memory plan, the one tdbf_open builds (the fewest reads
 * within 5 %), and the alternatives with other k. */
static PyObject *plan_apbf(const tdbf_config *cfg, int *rc)
{
    tdbf_plan best, fast, alts[PLAN_ALTS + 2];
    size_t n_alts = 0;
    Py_BEGIN_ALLOW_THREADS
    *rc = tdbf_plan_apbf(cfg->window_items, cfg->error, &best, alts, PLAN_ALTS + 2, &n_alts);
    if (*rc == TDBF_OK)
        *rc = tdbf_plan_apbf_fast(cfg->window_items, cfg->error,
                                  TDBF_DEFAULT_PLAN_TOLERANCE, &fast);
    Py_END_ALLOW_THREADS
    if (*rc != TDBF_OK)
        return NULL;
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < n_alts && PyList_GET_SIZE(list) < PLAN_ALTS; i++) {
        if (same_apbf(&alts[i], &best) || same_apbf(&alts[i], &fast))
            continue;                     /* shown already */
        PyObject *alt = apbf_fields(&alts[i]);
        if (alt == NULL || PyList_Append(list, alt) != 0)
            Py_CLEAR(list);
        Py_XDECREF(alt);
    }
    PyObject *extra = list ? Py_BuildValue("{s:N,s:O,s:O,s:K,s:O}", "built_plan",
                                           apbf_fields(&fast), "built_is_least_memory",
                                           same_apbf(&best, &fast) ? Py_True : Py_False,
                                           "meets_target", best.fp <= cfg->error
                                                               ? Py_True : Py_False,
                                           "requested_window",
                                           (unsigned long long)cfg->window_items,
                                           "alternatives", list) : NULL;
    Py_XDECREF(list);
    return merged(apbf_fields(&best), extra);
}

static PyObject *blocked_fields(const tdbf_plan_blocked *p)
{
    return merged(sized_fields(p->g, p->window, p->slack, p->bits, p->bits_per_item, p->fp),
                  Py_BuildValue("{s:I,s:I,s:I,s:I,s:K,s:d,s:d,s:d}", "k", p->k, "l", p->l,
                                "block_bits", p->block_bits, "block_hashes",
                                p->block_hashes, "blocks", (unsigned long long)p->blocks,
                                "accesses_false", p->accesses_false,
                                "accesses_window", p->accesses_window, "npws", p->npws));
}

/* apbbf: what tdbf_open builds (the fewest block reads within 5 % of the
 * least memory), and the least-memory plan beside it. */
static PyObject *plan_apbbf(const tdbf_config *cfg, int *rc)
{
    tdbf_plan_blocked fast, least;
    Py_BEGIN_ALLOW_THREADS
    *rc = tdbf_plan_apbbf_fast(cfg->window_items, cfg->error, cfg->block_bits,
                               TDBF_DEFAULT_PLAN_TOLERANCE, &fast);
    if (*rc == TDBF_OK)
        *rc = tdbf_plan_apbbf(cfg->window_items, cfg->error, cfg->block_bits, &least);
    Py_END_ALLOW_THREADS
    if (*rc != TDBF_OK)
        return NULL;
    return merged(blocked_fields(&fast),
                  Py_BuildValue("{s:N}", "least_memory", blocked_fields(&least)));
}

static PyObject *line_fields(const tdbf_line_plan *p)
{
    return Py_BuildValue("{s:I,s:I,s:I,s:I,s:I,s:I,s:K,s:K,s:K,s:K,s:d,s:d}",
                         "k", p->k, "l", p->l, "b", p->b, "unit_bits", p->unit_bits,
                         "fields", p->fields, "field_bits", p->field_bits,
                         "units", (unsigned long long)p->units,
                         "g", (unsigned long long)p->generation,
                         "window", (unsigned long long)p->window,
                         "bytes", (unsigned long long)p->bytes,
                         "bits_per_item", p->bits_per_item, "fp", p->fp);
}

/* sqf: its shape as tdbf_open builds it (tdbf_plan_shape: k 1, l 7,
 * the window 7 g, bytes, the model's worst-case FP) and its bin size,
 * which the shape does not hold: the planner takes the bins of least
 * memory, 64 bytes on a tie, so it is the size whose forced plan
 * (cfg.unit_bits) takes the same bytes. */
static PyObject *plan_sqf(const tdbf_config *cfg, const tdbf_shape *built)
{
    unsigned bin_bits = cfg->unit_bits;
    if (bin_bits == 0) {
        tdbf_config small = *cfg;
        small.unit_bits = 512;
        small.block_bits = 0;
        tdbf_shape shape;
        bin_bits = tdbf_plan_shape(&small, &shape) == TDBF_OK &&
                   shape.memory_bytes == built->memory_bytes ? 512 : 1024;
    }
    if (cfg->window_ns != 0) {   /* its first core, at the capacity */
        uint64_t keys = cfg->capacity ? cfg->capacity : 1024;
        uint64_t span = cfg->window_ns / built->l + (cfg->window_ns % built->l != 0);
        return Py_BuildValue("{s:I,s:I,s:I,s:K,s:K,s:K,s:d,s:d}", "k", built->k, "l",
                             built->l, "unit_bits", bin_bits,
                             "capacity", (unsigned long long)keys,
                             "generation_ns", (unsigned long long)span,
                             "bytes", (unsigned long long)built->memory_bytes,
                             "bits_per_item", 8.0 * (double)built->memory_bytes / (double)keys,
                             "fp", built->error_planned);
    }
    return Py_BuildValue("{s:I,s:I,s:I,s:K,s:K,s:K,s:d,s:d}", "k", built->k, "l", built->l,
                         "unit_bits", bin_bits,
                         "g", (unsigned long long)(built->window_items / built->l),
                         "window", (unsigned long long)built->window_items,
                         "bytes", (unsigned long long)built->memory_bytes,
                         "bits_per_item", 8.0 * (double)built->memory_bytes /
                                          (double)cfg->window_items,
                         "fp", built->error_planned);
}

/* apbf-line's and tlbf-line's "least_memory": the sqf of the same
 * window, error (and capacity), the design of least memory (None when
 * none meets the error). */
static PyObject *least_memory_sqf(const tdbf_config *cfg)
{
    tdbf_config sqf = *cfg;
    sqf.design = TDBF_SQF;
    sqf.unit_bits = 0;
    sqf.block_bits = 0;
    sqf.max_memory = UINT64_MAX;
    tdbf_shape shape;
    if (tdbf_plan_shape(&sqf, &shape) != TDBF_OK)
        return Py_BuildValue("{s:O}", "least_memory", Py_None);
    PyObject *fields = merged(plan_sqf(&sqf, &shape), Py_BuildValue("{s:s}", "design", "sqf"));
    return fields ? Py_BuildValue("{s:N}", "least_memory", fields) : NULL;
}

/* apbf-line, and tlbf-line's first ring as tdbf_open sizes it (its
 * share of the error, a generation being window / l of time). */
static PyObject *plan_line(const tdbf_config *cfg, int *rc)
{
    int rings = cfg->design == TDBF_TLBF_LINE;
    tdbf_line_plan p;
    Py_BEGIN_ALLOW_THREADS
    *rc = rings ? tdbf_plan_tlbf_line(cfg, &p) : tdbf_plan_apbf_line(cfg, &p);
    Py_END_ALLOW_THREADS
    if (*rc != TDBF_OK)
        return NULL;
    PyObject *dict = line_fields(&p);
    if (!rings)
        return merged(dict, least_memory_sqf(cfg));
    uint64_t capacity = cfg->capacity ? cfg->capacity : 1024;
    uint64_t span = cfg->window_ns / p.l + (cfg->window_ns % p.l != 0);
    dict = merged(dict, Py_BuildValue("{s:K,s:K}", "capacity", (unsigned long long)capacity,
                                      "generation_ns", (unsigned long long)span));
    return dict ? merged(dict, least_memory_sqf(cfg)) : NULL;
}

/* tlbf: the (k, l) its open plans (tdbf_plan_shape), and the slices of
 * that pair for the planned keys per window (tdbf_plan_eval). */
static PyObject *plan_tlbf(const tdbf_config *cfg, const tdbf_shape *built, int *rc)
{
    tdbf_plan slices;
    uint64_t keys = cfg->capacity ? cfg->capacity : 1024;
    *rc = tdbf_plan_eval(built->k, built->l, keys, &slices);
    if (*rc != TDBF_OK)
        return NULL;
    uint64_t span = cfg->window_ns / built->l ? cfg->window_ns / built->l : 1;
    return Py_BuildValue("{s:I,s:I,s:K,s:K,s:K,s:K,s:d,s:d}", "k", built->k, "l", built->l,
                         "capacity", (unsigned long long)keys,
                         "generation_ns", (unsigned long long)span,
                         "slice_bits", (unsigned long long)slices.m,
                         "bytes", (unsigned long long)((slices.bits + 7) / 8),
                         "bits_per_item", slices.bits_per_item, "fp", built->error_planned);
}

static PyObject *plan_clock_rotating(const tdbf_config *cfg, int *rc)
{
    tdbf_clock_rotating_plan p;
    *rc = tdbf_plan_clock_rotating(cfg, &p);
    if (*rc != TDBF_OK)
        return NULL;
    return Py_BuildValue("{s:K,s:I,s:I,s:I,s:I,s:K,s:K,s:K,s:d,s:d,s:d}",
                         "cells", (unsigned long long)p.cells, "k", p.k,
                         "cell_bits", p.cell_bits, "filters", p.filters,
                         "resolution", p.resolution,
                         "capacity", (unsigned long long)p.capacity,
                         "bits", (unsigned long long)p.bits,
                         "bytes", (unsigned long long)p.memory_bytes,
                         "bits_per_item", p.bits_per_item, "fp", p.fp, "fn_window", 0.0);
}

static PyObject *plan_decay(const tdbf_config *cfg, int *rc)
{
    tdbf_decay_plan p;
    *rc = tdbf_plan_decay(cfg, &p);
    if (*rc != TDBF_OK)
        return NULL;
    /* forgetting halfway through the window shows the curve's shape */
    double fn_half = p.design == TDBF_FPDECAY
        ? 1.0 - tdbf_fpdecay_survival(p.cells, p.k, p.cell_bits, p.window / 2)
        : tdbf_stable_forget(p.cells, p.k, p.cell_bits, p.decrements, p.window / 2);
    return Py_BuildValue("{s:K,s:I,s:I,s:K,s:K,s:K,s:d,s:d,s:d,s:d,s:d}",
                         "cells", (unsigned long long)p.cells, "k", p.k,
                         "cell_bits", p.cell_bits,
                         "decrements", (unsigned long long)p.decrements,
                         "window", (unsigned long long)p.window,
                         "bytes", (unsigned long long)p.bytes,
                         "bits_per_item", p.bits_per_item, "fp", p.fp,
                         "fn_window", 1.0 - p.survival, "fn_half_window", fn_half,
                         "survival_target", p.survival_target);
}

/* tbf, btbf, bloom, exact: their shape is all there is to plan. */
static PyObject *plan_shape_only(const tdbf_shape *st)
{
    double bits_per_item = st->window_items ? 8.0 * (double)st->memory_bytes /
                                                  (double)st->window_items : 0.0;
    return Py_BuildValue("{s:I,s:I,s:K,s:K,s:d,s:d}", "k", st->k, "l", st->l,
                         "window", (unsigned long long)st->window_items,
                         "bytes", (unsigned long long)st->memory_bytes,
                         "bits_per_item", bits_per_item, "fp", st->error_planned);
}

static PyObject *plan_design(const tdbf_config *cfg, const tdbf_shape *built, int *rc)
{
    switch (cfg->design) {
    case TDBF_APBF:
        return plan_apbf(cfg, rc);
    case TDBF_APBBF:
        return plan_apbbf(cfg, rc);
    case TDBF_APBF_LINE:
    case TDBF_TLBF_LINE:
        return plan_line(cfg, rc);
    case TDBF_TLBF:
        return plan_tlbf(cfg, built, rc);
    case TDBF_SQF:
        return plan_sqf(cfg, built);
    case TDBF_CLOCK:
    case TDBF_ROTATING:
        return plan_clock_rotating(cfg, rc);
    case TDBF_FPDECAY:
    case TDBF_STABLE:
        return plan_decay(cfg, rc);
    default:
        return plan_shape_only(built);
    }
}

PyDoc_STRVAR(doc_plan,
"plan(window=None, error=0.01, design=None, *, window_items=None, window_seconds=None, capacity=None, block_bits=None)\n"
"--\n"
"\n"
"The parameters a filter for `window` and `error` gets, without building it:\n"
"what `tdbf plan --json` prints, as a dict.  Always: design, k, l, bytes,\n"
"bits_per_item, fp (the analytic worst-case false-positive rate),\n"
"target_error, window, window_ns, and built: the k, l and window Filter\n"
"builds.  Each design adds its own fields: apbf the least-memory plan (m, g,\n"
"slack, npws, ...) with built_plan, what Filter builds (the fewest reads\n"
"within 5 %), and alternatives with other k; apbbf block_bits, block_hashes\n"
"and least_memory; apbf-line and tlbf-line b, unit_bits, field_bits, units\n"
"(apbf-line also least_memory: the sqf beside it, the count design of least\n"
"memory); sqf unit_bits (its bin: block_bits 512 or 1024 forces it) and g;\n"
"tlbf and tlbf-line capacity and generation_ns; clock and rotating cells,\n"
"filters, resolution; fpdecay and stable cells, fn_window, fn_half_window.\n"
"design None is what Filter would build: apbf-line for a count window,\n"
"tlbf-line for a time window.  The window, error, design and capacity are\n"
"read as Filter reads them (a str in the parameter language; a float\n"
"window is a TypeError: window_items= or window_seconds=).  Raises\n"
"ValueError as Filter does.");

static PyObject *module_plan(PyObject *module, PyObject *args, PyObject *kwds)
{
    (void)module;
    static char *kwlist[] = {"window", "error", "design", "window_items", "window_seconds",
                             "capacity", "block_bits", NULL};
    pytdbf_options opt = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *block_bits = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OOO$OOOO:plan", kwlist, &opt.window,
                                     &opt.error, &opt.design, &opt.window_items,
                                     &opt.window_seconds, &opt.capacity, &block_bits))
        return NULL;
    tdbf_config cfg;
    uint64_t bits;
    if (pytdbf_config(&opt, &cfg) != 0 ||
        pytdbf_u64(block_bits, "block_bits", 64, 1024, 1, 0, &bits) != 0)
        return NULL;
    /* block_bits names the line designs' unit and sqf's bin too
     * (cfg.unit_bits) */
    if (cfg.design == TDBF_APBF_LINE || cfg.design == TDBF_TLBF_LINE || cfg.design == TDBF_SQF)
        cfg.unit_bits = (unsigned)bits;
    else
        cfg.block_bits = (unsigned)bits;
    /* what tdbf_open builds: `tdbf plan --json`'s "built" */
    tdbf_shape built;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = tdbf_plan_shape(&cfg, &built);
    Py_END_ALLOW_THREADS
    PyObject *dict = rc == TDBF_OK ? plan_design(&cfg, &built, &rc) : NULL;
    if (dict == NULL && rc != TDBF_OK)
        return pytdbf_config_error(rc, &cfg, "plan");
    if (dict == NULL)
        return NULL;
    PyObject *common = Py_BuildValue("{s:s,s:d,s:K,s:{s:I,s:I,s:K,s:K}}", "design",
                                     tdbf_design_name(cfg.design), "target_error", cfg.error,
                                     "window_ns", (unsigned long long)cfg.window_ns, "built",
                                     "k", built.k, "l", built.l, "window_items",
                                     (unsigned long long)built.window_items, "window_ns",
                                     (unsigned long long)built.window_ns);
    /* window: the guaranteed count where the planner gives one, else as asked */
    PyObject *asked = cfg.window_ns ? PyFloat_FromDouble((double)cfg.window_ns / 1e9)
                                    : PyLong_FromUnsignedLongLong(cfg.window_items);
    int keep = cfg.window_ns == 0 && dict != NULL && PyDict_GetItemString(dict, "window");
    if (common == NULL || asked == NULL || PyDict_Update(dict, common) != 0 ||
        (!keep && PyDict_SetItemString(dict, "window", asked) != 0))
        Py_CLEAR(dict);
    Py_XDECREF(common);
    Py_XDECREF(asked);
    return dict;
}

/* ---- small functions ------------------------------------------------------ */

PyDoc_STRVAR(doc_designs,
"designs()\n"
"--\n"
"\n"
"The names of the designs this build has, in the library's order.");

static PyObject *module_designs(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *list = PyList_New(0);
    for (int d = 0; list != NULL && d < TDBF_DESIGN_COUNT; d++) {
        if (!tdbf_design_available((tdbf_design)d))
            continue;
        PyObject *name = PyUnicode_FromString(tdbf_design_name((tdbf_design)d));
        if (name == NULL || PyList_Append(list, name) != 0)
            Py_CLEAR(list);
        Py_XDECREF(name);
    }
    return list;
}

PyDoc_STRVAR(doc_parse_duration,
"parse_duration(text, /)\n"
"--\n"
"\n"
"A duration string in seconds (float): '10m' -> 600.0, '1h30m' -> 5400.0.\n"
"Units ns, us, ms, s, m, h, d; ValueError for anything else.");

static PyObject *module_parse_duration(PyObject *module, PyObject *text)
{
    (void)module;
    if (!PyUnicode_Check(text))
        return PyErr_Format(PyExc_TypeError, "duration: expected str, not %.100s",
                            Py_TYPE(text)->tp_name);
    const char *utf8 = PyUnicode_AsUTF8(text);
    if (utf8 == NULL)
        return NULL;
    uint64_t ns;
    char why[256];
    if (tdbf_parse_duration(utf8, &ns, why, sizeof why) != TDBF_OK)
        return PyErr_Format(PyExc_ValueError, "duration: %s", why);
    return PyFloat_FromDouble((double)ns / 1e9);
}

static PyMethodDef module_methods[] = {
    {"plan", (PyCFunction)(void (*)(void))module_plan, METH_VARARGS | METH_KEYWORDS, doc_plan},
    {"designs", module_designs, METH_NOARGS, doc_designs},
    {"parse_duration", module_parse_duration, METH_O, doc_parse_duration},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tdbf._tdbf",
    .m_doc = "The C extension under the tdbf package (libtdbf linked statically).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__tdbf(void);

/* Add an exception type to the module, which takes a reference of its own
 * (PyModule_AddObject steals one on success; AddObjectRef is 3.10+): the
 * global keeps the reference it was created with. */
static int add_exception(PyObject *module, const char *name, PyObject *type)
{
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, type) != 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__tdbf(void)
{
    if (pytdbf_args_init() != 0)
        return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        return NULL;
    pytdbf_error = PyErr_NewExceptionWithDoc(
        "tdbf.Error",
        "A filter's data is corrupt, truncated, of an unknown format version or "
        "design, or an operation the design does not support.  .code is libtdbf's "
        "error code.", NULL, NULL);
    pytdbf_full_error = pytdbf_error == NULL ? NULL : PyErr_NewExceptionWithDoc(
        "tdbf.FullError",
        "An add was refused: the filter's estimated false-positive rate is above "
        "max_error_ratio times its target (a fixed-size design fed past what it "
        "was sized for).  Nothing of the refused call was added after the check; "
        ".answers holds add_many's answers for the keys it added before (None "
        "for add).", pytdbf_error, NULL);
    if (pytdbf_full_error == NULL ||
        add_exception(module, "Error", pytdbf_error) != 0 ||
        add_exception(module, "FullError", pytdbf_full_error) != 0 ||
        pytdbf_filter_ready(module) != 0 ||
        PyModule_AddStringConstant(module, "__version__", tdbf_version_string()) != 0 ||
        PyModule_AddStringConstant(module, "simd", tdbf_simd_name(tdbf_simd_in_use())) != 0) {
        Py_CLEAR(pytdbf_full_error);
        Py_CLEAR(pytdbf_error);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
