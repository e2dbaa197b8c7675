/* runtime/runtime.c - the Runtime type (construction, GC, methods,
 * properties), the MISSING sentinel, and the module-state exec / traverse /
 * clear of the whole runtime part; layer 4 of the runtime, with loaders.c.
 */
#include "runtime/loaders.h"
#include "runtime/journal.h"
#include "runtime/api.h"
#include <string.h>
#include <structmember.h>

/* ---- Runtime: construction and GC ------------------------------------------ */

static const char *const site_attrs[] = {"iid", "kind", "name", "line", "before", "after"};

/* sites[iid] = (kind, name, line, before, after) for every record. */
static int
load_sites(lx_runtime_obj *rt, PyObject *sites)
{
    PyObject *it = NULL, *rec = NULL, *vals[6] = {NULL};
    Py_ssize_t max_iid = 0;
    int err = -1;
    it = PyObject_GetIter(sites);
    if (it == NULL) {
        PyErr_SetString(PyExc_TypeError, "sites must be None or an iterable of site records");
        return -1;
    }
    while ((rec = PyIter_Next(it)) != NULL) {
        for (int i = 0; i < 6; i++) {
            vals[i] = PyObject_GetAttrString(rec, site_attrs[i]);
            if (vals[i] == NULL) {
                if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
                    PyErr_SetString(PyExc_TypeError, "site records need attributes iid, kind, "
                                    "name, line, before, after");
                }
                goto fail;
            }
        }
        Py_ssize_t iid = get_iid("Runtime", vals[0]);
        if (iid < 0) {
            goto fail;
        }
        for (int i = 1; i < 6; i++) {
            if (vals[i] == Py_None && i != 3) {
                Py_SETREF(vals[i], Py_NewRef(RS(rt)->s_empty));
            }
            if (i == 3 ? (vals[i] != Py_None && !PyLong_Check(vals[i]))
                       : !PyUnicode_Check(vals[i])) {
                PyErr_Format(PyExc_TypeError, "site %zd: %s must be %s", iid, site_attrs[i],
                             i == 3 ? "an int or None" : "a str or None");
                goto fail;
            }
        }
        PyObject *t = PyTuple_Pack(5, vals[1], vals[2], vals[3], vals[4], vals[5]);
        if (t == NULL || PyDict_SetItem(rt->sites, vals[0], t) < 0) {
            Py_XDECREF(t);
            goto fail;
        }
        Py_DECREF(t);
        if (iid > max_iid) {
            max_iid = iid;
        }
        for (int i = 0; i < 6; i++) {
            Py_CLEAR(vals[i]);
        }
        Py_CLEAR(rec);
    }
    if (PyErr_Occurred()) {
        goto fail;
    }
    /* size the marker bitmap up front so _l_ never reallocates */
    err = max_iid > 0 ? lx_grow_bits(rt, (max_iid >> 3) + 1) : 0;
fail:
    for (int i = 0; i < 6; i++) {
        Py_XDECREF(vals[i]);
    }
    Py_XDECREF(rec);
    Py_XDECREF(it);
    return err;
}

static int
new_run_state(lx_runtime_obj *rt)
{
    Py_XSETREF(rt->injections, PyList_New(0));
    Py_XSETREF(rt->events, PyList_New(0));
    Py_XSETREF(rt->failed_imports, PyList_New(0));
    Py_XSETREF(rt->predictor_errors, PyList_New(0));
    Py_XSETREF(rt->name_values, PyDict_New());
    if (rt->injections == NULL || rt->events == NULL || rt->failed_imports == NULL
        || rt->predictor_errors == NULL || rt->name_values == NULL) {
        return -1;
    }
    if (rt->bits != NULL) {
        memset(rt->bits, 0, (size_t)rt->nbits_bytes);
    }
    lx_journal_reset(rt);
    return 0;
}

/* Runtime(sites=None, predictor="naive", abstraction="fine", seed=None,
 *         randomize=False, record=False, filename="<snippet>",
 *         frequency_table=None) */
static PyObject *
runtime_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"sites", "predictor", "abstraction", "seed", "randomize",
                             "record", "filename", "frequency_table", NULL};
    PyObject *sites = Py_None, *predictor = NULL, *abstraction = NULL, *seed = Py_None;
    PyObject *filename = NULL, *freq = Py_None;
    int randomize = 0, record = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOUOppUO:Runtime", kwlist, &sites,
                                     &predictor, &abstraction, &seed, &randomize, &record,
                                     &filename, &freq)) {
        return NULL;
    }
    lx_state *st = (lx_state *)PyType_GetModuleState(type);
    if (st == NULL) {
        return NULL;
    }
    lx_runtime_obj *rt = (lx_runtime_obj *)type->tp_alloc(type, 0);
    if (rt == NULL) {
        return NULL;
    }
    rt->st = st;
    rt->randomize = randomize;
    rt->record = record;
    rt->fine = 1;
    if (abstraction != NULL) {
        if (PyUnicode_CompareWithASCIIString(abstraction, "coarse") == 0) {
            rt->fine = 0;
        }
        else if (PyUnicode_CompareWithASCIIString(abstraction, "fine") != 0) {
            PyErr_Format(PyExc_ValueError, "abstraction must be 'fine' or 'coarse', not %R",
                         abstraction);
            goto fail;
        }
    }
    if (lx_parse_seed(seed, &rt->seed) < 0) {
        goto fail;
    }
    rt->filename = filename ? Py_NewRef(filename) : PyUnicode_FromString("<snippet>");
    rt->sites = PyDict_New();
    if (rt->filename == NULL || rt->sites == NULL || new_run_state(rt) < 0) {
        goto fail;
    }
    if (sites != Py_None && load_sites(rt, sites) < 0) {
        goto fail;
    }
    if (predictor == NULL) {
        rt->predictor = LX_PRED_NAIVE;
        if (freq != Py_None) {
            PyErr_SetString(PyExc_ValueError,
                            "frequency_table is only used with predictor='frequency'");
            goto fail;
        }
    }
    else if (lx_predictor_setup(rt, predictor, freq) < 0) {
        goto fail;
    }
    return (PyObject *)rt;
fail:
    Py_DECREF(rt);
    return NULL;
}

static int
runtime_traverse(PyObject *self, visitproc visit, void *arg)
{
    lx_runtime_obj *rt = (lx_runtime_obj *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(rt->predictor_fn);
    Py_VISIT(rt->freq_best);
    Py_VISIT(rt->filename);
    Py_VISIT(rt->sites);
    Py_VISIT(rt->injections);
    Py_VISIT(rt->events);
    Py_VISIT(rt->failed_imports);
    Py_VISIT(rt->predictor_errors);
    Py_VISIT(rt->name_values);
    return 0;
}

/* Only the references that can be part of a cycle are dropped here (the
 * predictor callable and the per-name injected values, which hold Dummies
 * that point back to the Runtime); the record lists hold plain tuples and
 * stay usable until dealloc, so a loader reached from a finalizer during
 * collection never sees NULL lists. */
static int
runtime_clear(PyObject *self)
{
    lx_runtime_obj *rt = (lx_runtime_obj *)self;
    Py_CLEAR(rt->predictor_fn);
    Py_CLEAR(rt->name_values);
    return 0;
}

static void
runtime_free_all(lx_runtime_obj *rt)
{
    Py_CLEAR(rt->predictor_fn);
    Py_CLEAR(rt->freq_best);
    Py_CLEAR(rt->filename);
    Py_CLEAR(rt->sites);
    Py_CLEAR(rt->injections);
    Py_CLEAR(rt->events);
    Py_CLEAR(rt->failed_imports);
    Py_CLEAR(rt->predictor_errors);
    Py_CLEAR(rt->name_values);
}

static void
runtime_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    lx_runtime_obj *rt = (lx_runtime_obj *)self;
    PyObject_GC_UnTrack(self);
    if (rt->weakreflist != NULL) {
        PyObject_ClearWeakRefs(self);
    }
    runtime_free_all(rt);
    if (!rt->bits_shared) {
        PyMem_Free(rt->bits);
    }
    rt->bits = NULL;
    rt->bits_shared = 0;
    if (rt->journal.obj != NULL) {
        PyBuffer_Release(&rt->journal);
    }
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* ---- Runtime: methods and properties --------------------------------------- */

static int
check_alive(lx_runtime_obj *rt)
{
    if (rt->injections == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Runtime is not initialised");
        return -1;
    }
    return 0;
}

static const char *const loader_names[] = {"_n_", "_a_", "_c_", "_l_", "_i_"};

static PyObject *
runtime_loaders(PyObject *self, PyObject *unused)
{
    (void)unused;
    PyObject *d = PyDict_New();
    for (int i = 0; d != NULL && i < 5; i++) {
        PyObject *f = PyObject_GetAttrString(self, loader_names[i]);
        if (f == NULL || PyDict_SetItemString(d, loader_names[i], f) < 0) {
            Py_XDECREF(f);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(f);
    }
    /* `_op_`: the operator module, for `x = _op_.iadd(_n_(...), e)`, the
     * shape of an augmented assignment to a name that may be missing */
    if (d != NULL) {
        PyObject *op = PyImport_ImportModule("operator");
        if (op == NULL || PyDict_SetItemString(d, "_op_", op) < 0) {
            Py_CLEAR(d);
        }
        Py_XDECREF(op);
    }
    return d;
}

static PyObject *
runtime_reached(PyObject *self, PyObject *unused)
{
    (void)unused;
    lx_runtime_obj *rt = (lx_runtime_obj *)self;
    PyObject *res = PyList_New(0);
    for (Py_ssize_t b = 0; res != NULL && b < rt->nbits_bytes; b++) {
        if (rt->bits[b] == 0) {
            continue;
        }
        for (int k = 0; k < 8; k++) {
            if (rt->bits[b] & (1u << k)) {
                PyObject *n = PyLong_FromSsize_t(b * 8 + k);
                if (n == NULL || PyList_Append(res, n) < 0) {
                    Py_XDECREF(n);
                    Py_CLEAR(res);
                    break;
                }
                Py_DECREF(n);
            }
        }
    }
    return res;
}

static PyObject *
runtime_attach_journal(PyObject *self, PyObject *obj)
{
    if (lx_journal_attach((lx_runtime_obj *)self, obj) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
runtime_detach_journal(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (lx_journal_detach((lx_runtime_obj *)self) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
runtime_reset(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (new_run_state((lx_runtime_obj *)self) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
runtime_site(PyObject *self, PyObject *arg)
{
    lx_runtime_obj *rt = (lx_runtime_obj *)self;
    Py_ssize_t iid = get_iid("site", arg);
    if (iid < 0) {
        return NULL;
    }
    PyObject *kind = lx_site_field(rt, iid, 0);
    if (kind == NULL) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(nOOOOO)", iid, kind, lx_site_field(rt, iid, 1),
                         lx_site_field(rt, iid, 2), lx_site_field(rt, iid, 3),
                         lx_site_field(rt, iid, 4));
}

static PyMethodDef runtime_methods[] = {
    {"_n_", (PyCFunction)(void (*)(void))lx_loader_n, METH_FASTCALL,
     "_n_(iid, name, thunk[, mapping]): variable read (see docs/LOADERS.md)"},
    {"_a_", (PyCFunction)(void (*)(void))lx_loader_a, METH_FASTCALL,
     "_a_(iid, obj, attr): attribute read"},
    {"_c_", (PyCFunction)(void (*)(void))lx_loader_c, METH_FASTCALL | METH_KEYWORDS,
     "_c_(iid, fn, *args, **kwargs): call"},
    {"_l_", (PyCFunction)(void (*)(void))lx_loader_l, METH_FASTCALL,
     "_l_(iid[, value]): line marker; returns value (None)"},
    {"_i_", (PyCFunction)(void (*)(void))lx_loader_i, METH_FASTCALL,
     "_i_(iid, module, level, names): import returning MISSING on ImportError"},
    {"loaders", runtime_loaders, METH_NOARGS,
     "loaders() -> dict of the five loaders, to put into exec globals"},
    {"reached", runtime_reached, METH_NOARGS, "reached() -> sorted list of marker iids hit"},
    {"attach_journal", runtime_attach_journal, METH_O,
     "attach_journal(buffer): keep the markers in, and append injections and failed imports "
     "to, the run journal (lexecutor_c.engine.journal.create()), memory shared with the "
     "parent, so that a run that dies still reports them"},
    {"detach_journal", runtime_detach_journal, METH_NOARGS,
     "detach_journal(): markers back to private memory; the journal is released"},
    {"reset", runtime_reset, METH_NOARGS,
     "reset(): start a new run (markers, injections, events, failed imports, "
     "predictor errors and per-name values are cleared; old lists are left intact)"},
    {"site", runtime_site, METH_O,
     "site(iid) -> (iid, kind, name, line, before, after) or None"},
    {NULL, NULL, 0, NULL},
};

#define LIST_GETTER(field)                                          \
    static PyObject *                                               \
    get_##field(PyObject *self, void *closure)                      \
    {                                                               \
        (void)closure;                                              \
        lx_runtime_obj *rt = (lx_runtime_obj *)self;                \
        if (check_alive(rt) < 0) {                                  \
            return NULL;                                            \
        }                                                           \
        return Py_NewRef(rt->field);                                \
    }
LIST_GETTER(injections)
LIST_GETTER(events)
LIST_GETTER(failed_imports)
LIST_GETTER(predictor_errors)

static PyObject *
get_abstraction(PyObject *self, void *closure)
{
    (void)closure;
    lx_runtime_obj *rt = (lx_runtime_obj *)self;
    return Py_NewRef(rt->fine ? RS(rt)->s_fine : RS(rt)->s_coarse);
}

static PyObject *
get_seed(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((lx_runtime_obj *)self)->seed);
}

static PyObject *
get_randomize(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((lx_runtime_obj *)self)->randomize);
}

static PyObject *
get_record(PyObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((lx_runtime_obj *)self)->record);
}

static PyObject *
get_filename(PyObject *self, void *closure)
{
    (void)closure;
    lx_runtime_obj *rt = (lx_runtime_obj *)self;
    return Py_NewRef(rt->filename ? rt->filename : Py_None);
}

static PyObject *
get_predictor(PyObject *self, void *closure)
{
    (void)closure;
    static const char *const names[] = {"as-is", "naive", "random", "frequency"};
    lx_runtime_obj *rt = (lx_runtime_obj *)self;
    if (rt->predictor == LX_PRED_CALLABLE) {
        return Py_NewRef(rt->predictor_fn ? rt->predictor_fn : Py_None);
    }
    return PyUnicode_FromString(names[rt->predictor]);
}

static PyGetSetDef runtime_getset[] = {
    {"injections", get_injections, NULL,
     "list of (iid, kind, name, line, cls, repr_of_value), one per injection", NULL},
    {"events", get_events, NULL,
     "list of (name, cls, kind, file, line, iid, before, after) value-use events "
     "(record=True)", NULL},
    {"failed_imports", get_failed_imports, NULL, "list of (iid, module, names)", NULL},
    {"predictor_errors", get_predictor_errors, NULL,
     "list of (iid, kind, name, repr(answer)) for unusable callable-predictor answers", NULL},
    {"abstraction", get_abstraction, NULL, "'fine' or 'coarse'", NULL},
    {"seed", get_seed, NULL, "seed as an unsigned 64-bit int", NULL},
    {"randomize", get_randomize, NULL, "randomized concretization", NULL},
    {"record", get_record, NULL, "value-use events are recorded", NULL},
    {"filename", get_filename, NULL, "file name put into events", NULL},
    {"predictor", get_predictor, NULL, "predictor name, or the callable", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef runtime_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(lx_runtime_obj, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot runtime_slots[] = {
    {Py_tp_new, runtime_new},
    {Py_tp_dealloc, runtime_dealloc},
    {Py_tp_traverse, runtime_traverse},
    {Py_tp_clear, runtime_clear},
    {Py_tp_methods, runtime_methods},
    {Py_tp_getset, runtime_getset},
    {Py_tp_members, runtime_members},
    {Py_tp_doc,
     "Runtime(sites=None, predictor='naive', abstraction='fine', seed=None,\n"
     "        randomize=False, record=False, filename='<snippet>', frequency_table=None)\n\n"
     "Loaders, predictor and per-run state for executing instrumented code."},
    {0, NULL},
};

static PyType_Spec runtime_spec = {
    .name = "lexecutor_c._core.Runtime",
    .basicsize = sizeof(lx_runtime_obj),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = runtime_slots,
};

/* ---- MISSING ------------------------------------------------------------------ */

static PyObject *
missing_repr(PyObject *self)
{
    (void)self;
    return PyUnicode_FromString("MISSING");
}

static void
missing_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot missing_slots[] = {
    {Py_tp_repr, missing_repr},
    {Py_tp_dealloc, missing_dealloc},
    {Py_tp_doc, "Type of _core.MISSING: what _i_ returns for a value it could not import."},
    {0, NULL},
};

static PyType_Spec missing_spec = {
    .name = "lexecutor_c._core._MissingType",
    .basicsize = sizeof(PyObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = missing_slots,
};

/* ---- module state ------------------------------------------------------------- */

static int
intern(PyObject **slot, const char *s)
{
    *slot = PyUnicode_InternFromString(s);
    return *slot == NULL ? -1 : 0;
}

/* The code object of the first lambda found in code's constants (borrowed). */
static PyObject *
find_lambda(PyObject *code)
{
    PyObject *consts = ((PyCodeObject *)code)->co_consts;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts); i++) {
        PyObject *c = PyTuple_GET_ITEM(consts, i);
        if (PyCode_Check(c)) {
            if (PyUnicode_CompareWithASCIIString(((PyCodeObject *)c)->co_name, "<lambda>") == 0) {
                return c;
            }
            PyObject *inner = find_lambda(c);
            if (inner != NULL) {
                return inner;
            }
        }
    }
    return NULL;
}

static int
measure_thunks(lx_runtime_state *rs)
{
    static const char *const probes[2] = {
        "lambda: _lx_probe_\n",
        "def _lx_outer_():\n    _lx_probe_ = 1\n    return lambda: _lx_probe_\n",
    };
    Py_ssize_t *sizes[2] = {&rs->thunk_global_size, &rs->thunk_deref_size};
    for (int i = 0; i < 2; i++) {
        PyObject *code = Py_CompileString(probes[i], "<lexecutor_c probe>",
                                          i == 0 ? Py_eval_input : Py_file_input);
        if (code == NULL) {
            return -1;
        }
        PyObject *lam = find_lambda(code);
        *sizes[i] = lam != NULL ? Py_SIZE(lam) : -1;   /* -1: never matches */
        Py_DECREF(code);
    }
    return 0;
}

int
lx_runtime_exec(PyObject *m, lx_state *st)
{
    lx_runtime_state *rs = &st->rt;
    if (intern(&rs->s_name, "name") < 0 || intern(&rs->s_attribute, "attribute") < 0
        || intern(&rs->s_call, "call") < 0 || intern(&rs->s_fine, "fine") < 0
        || intern(&rs->s_coarse, "coarse") < 0 || intern(&rs->s_empty, "") < 0
        || intern(&rs->s_all, "__all__") < 0 || intern(&rs->s_dunder_name, "__name__") < 0
        || intern(&rs->s_dunder_dict, "__dict__") < 0
        || intern(&rs->s_dunder_import, "__import__") < 0 || intern(&rs->s_star, "*") < 0
        || intern(&rs->s_dot, ".") < 0) {
        return -1;
    }
    PyObject *builtins = PyImport_ImportModule("builtins");
    if (builtins == NULL) {
        return -1;
    }
    rs->builtin_import = PyObject_GetAttrString(builtins, "__import__");
    Py_DECREF(builtins);
    if (rs->builtin_import == NULL) {
        return -1;
    }
    if (lx_values_exec(m, st) < 0 || lx_concretize_exec(m, st) < 0 || lx_dummy_exec(m, st) < 0
        || lx_predict_exec(m, st) < 0) {
        return -1;
    }
    rs->missing_type = PyType_FromModuleAndSpec(m, &missing_spec, NULL);
    if (rs->missing_type == NULL) {
        return -1;
    }
    rs->missing = PyType_GenericAlloc((PyTypeObject *)rs->missing_type, 0);
    if (rs->missing == NULL || PyModule_AddObjectRef(m, "MISSING", rs->missing) < 0) {
        return -1;
    }
    if (measure_thunks(rs) < 0) {
        return -1;
    }
    rs->runtime_type = PyType_FromModuleAndSpec(m, &runtime_spec, NULL);
    if (rs->runtime_type == NULL || PyModule_AddType(m, (PyTypeObject *)rs->runtime_type) < 0) {
        return -1;
    }
    return 0;
}

#define RT_FIELDS(X)                                                             \
    X(runtime_type) X(dummy_type) X(resource_type) X(iter_type) X(missing_type)  \
    X(query_type) X(predictor_error) X(missing) X(all_classes) X(fine_classes)   \
    X(coarse_classes) X(class_index) X(builtin_import) X(s_name) X(s_attribute)  \
    X(s_call) X(s_fine) X(s_coarse) X(s_empty) X(s_all) X(s_dunder_name)         \
    X(s_dunder_dict) X(s_dunder_import) X(s_star) X(s_dot)

int
lx_runtime_traverse(lx_state *st, visitproc visit, void *arg)
{
#define VISIT_FIELD(f) Py_VISIT(st->rt.f);
    RT_FIELDS(VISIT_FIELD)
#undef VISIT_FIELD
    return 0;
}

void
lx_runtime_clear(lx_state *st)
{
#define CLEAR_FIELD(f) Py_CLEAR(st->rt.f);
    RT_FIELDS(CLEAR_FIELD)
#undef CLEAR_FIELD
}
