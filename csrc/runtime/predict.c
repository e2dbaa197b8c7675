/* runtime/predict.c - predictors and injection, layer 3 of the runtime.
 *
 * A predictor maps a query (iid, kind, name, line, before, after,
 * abstraction) to an abstract value class.  Kinds: "as-is" (never inject),
 * "naive" (always "object"), "random" (uniform, a function of seed, kind and
 * name), "frequency" (most frequent class of the name in a table, else
 * "object"), or a Python callable; see docs/RUNTIME.md for the callable's
 * contract and what happens when it misbehaves.
 */
#include "runtime/predict.h"
#include "runtime/journal.h"

/* ---- the query passed to callable predictors ------------------------------ */

static PyStructSequence_Field query_fields[] = {
    {"iid", "site id (0: not at an instrumented site)"},
    {"kind", "'name', 'attribute' or 'call'"},
    {"name", "name of the variable, attribute or called function"},
    {"line", "source line of the site, or None"},
    {"before", "source context before the site ('' if unknown)"},
    {"after", "source context after the site ('' if unknown)"},
    {"abstraction", "'fine' or 'coarse'"},
    {NULL, NULL},
};

static PyStructSequence_Desc query_desc = {
    "lexecutor_c._core.PredictorQuery",
    "What a callable predictor is asked: predictor(query) -> class name(s).",
    query_fields,
    7,
};

/* Site table lookup: a borrowed field of the site tuple for iid, or NULL
 * (no exception) when the site is unknown.  Fields: 0 kind, 1 name, 2 line,
 * 3 before, 4 after. */
PyObject *
lx_site_field(lx_runtime_obj *rt, Py_ssize_t iid, int field)
{
    if (rt == NULL || rt->sites == NULL || iid <= 0 || PyDict_GET_SIZE(rt->sites) == 0) {
        return NULL;
    }
    PyObject *key = PyLong_FromSsize_t(iid);
    if (key == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *site = PyDict_GetItemWithError(rt->sites, key);   /* borrowed */
    Py_DECREF(key);
    if (site == NULL) {
        PyErr_Clear();
        return NULL;
    }
    return PyTuple_GET_ITEM(site, field);
}

static PyObject *
site_or(lx_runtime_obj *rt, Py_ssize_t iid, int field, PyObject *dflt)
{
    PyObject *v = lx_site_field(rt, iid, field);
    return v != NULL ? v : dflt;
}

/* ---- predictor set-up --------------------------------------------------------- */

static int
build_frequency(lx_runtime_obj *rt, PyObject *table)
{
    lx_state *st = rt->st;
    PyObject *name, *counts, *cls, *cnt;
    Py_ssize_t pos = 0;
    if (!PyDict_Check(table)) {
        PyErr_Format(PyExc_TypeError,
                     "frequency_table must be a dict name -> {class: count}, not %.100s",
                     Py_TYPE(table)->tp_name);
        return -1;
    }
    rt->freq_best = PyDict_New();
    if (rt->freq_best == NULL) {
        return -1;
    }
    while (PyDict_Next(table, &pos, &name, &counts)) {
        long long acc[LX_N_CLASSES] = {0};
        Py_ssize_t pos2 = 0;
        if (!PyUnicode_Check(name) || !PyDict_Check(counts)) {
            PyErr_SetString(PyExc_TypeError,
                            "frequency_table must map str names to dicts {class: count}");
            return -1;
        }
        while (PyDict_Next(counts, &pos2, &cls, &cnt)) {
            int c = lx_class_from_str(st, cls);
            if (c < 0) {
                PyErr_Format(PyExc_ValueError, "frequency_table: unknown class %R for name %R",
                             cls, name);
                return -1;
            }
            if (!PyLong_Check(cnt)) {
                PyErr_Format(PyExc_TypeError, "frequency_table: count for %R/%R must be an int",
                             name, cls);
                return -1;
            }
            long long n = PyLong_AsLongLong(cnt);
            if (n == -1 && PyErr_Occurred()) {
                return -1;
            }
            if (!rt->fine && c < LX_N_FINE) {
                c = lx_fine_to_coarse[c];
            }
            acc[c] += n;
        }
        int best = -1;
        for (int c = 0; c < LX_N_CLASSES; c++) {
            if (acc[c] > 0 && (best < 0 || acc[c] > acc[best])) {
                best = c;
            }
        }
        if (best >= 0) {
            PyObject *idx = PyLong_FromLong(best);
            if (idx == NULL || PyDict_SetItem(rt->freq_best, name, idx) < 0) {
                Py_XDECREF(idx);
                return -1;
            }
            Py_DECREF(idx);
        }
    }
    return 0;
}

int
lx_predictor_setup(lx_runtime_obj *rt, PyObject *predictor, PyObject *freq_table)
{
    if (freq_table == Py_None) {
        freq_table = NULL;
    }
    if (PyUnicode_Check(predictor)) {
        if (PyUnicode_CompareWithASCIIString(predictor, "as-is") == 0) {
            rt->predictor = LX_PRED_ASIS;
        }
        else if (PyUnicode_CompareWithASCIIString(predictor, "naive") == 0) {
            rt->predictor = LX_PRED_NAIVE;
        }
        else if (PyUnicode_CompareWithASCIIString(predictor, "random") == 0) {
            rt->predictor = LX_PRED_RANDOM;
        }
        else if (PyUnicode_CompareWithASCIIString(predictor, "frequency") == 0) {
            rt->predictor = LX_PRED_FREQUENCY;
        }
        else if (PyUnicode_CompareWithASCIIString(predictor, "neural") == 0) {
            /* A callable predictor backed by the LibTorch shim
             * (lexecutor_c/model/neural.py, csrc/torch_shim.cpp); it loads the
             * shim and the model on its first query, not here.  Bad
             * arguments are reported before a missing torch is. */
            if (freq_table != NULL) {
                PyErr_SetString(PyExc_ValueError,
                                "frequency_table is only used with predictor='frequency'");
                return -1;
            }
            PyObject *mod = PyImport_ImportModule("lexecutor_c.model.neural");
            if (mod == NULL) {
                return -1;
            }
            PyObject *fn = PyObject_CallMethod(mod, "runtime_predictor", NULL);
            Py_DECREF(mod);
            if (fn == NULL) {
                return -1;
            }
            rt->predictor = LX_PRED_CALLABLE;
            rt->predictor_fn = fn;
        }
        else {
            PyErr_Format(PyExc_ValueError,
                         "unknown predictor %R (expected 'as-is', 'naive', 'random', "
                         "'frequency', 'neural' or a callable)", predictor);
            return -1;
        }
    }
    else if (PyCallable_Check(predictor)) {
        rt->predictor = LX_PRED_CALLABLE;
        rt->predictor_fn = Py_NewRef(predictor);
    }
    else {
        PyErr_Format(PyExc_TypeError, "predictor must be a str or a callable, not %.100s",
                     Py_TYPE(predictor)->tp_name);
        return -1;
    }
    if (freq_table != NULL) {
        if (rt->predictor != LX_PRED_FREQUENCY) {
            PyErr_SetString(PyExc_ValueError,
                            "frequency_table is only used with predictor='frequency'");
            return -1;
        }
        return build_frequency(rt, freq_table);
    }
    return 0;
}

/* ---- asking the predictor ------------------------------------------------------- */

static int
predict_random(lx_runtime_obj *rt, PyObject *kind, PyObject *name)
{
    uint64_t h = lx_mix64(rt->seed ^ 0x7072656469637421ull);
    h = lx_hash_str(kind, h);
    h = lx_hash_str(name, h);
    if (rt->fine) {
        return (int)(h % LX_N_FINE);
    }
    return lx_coarse_members[h % LX_N_COARSE];
}

static int
predict_frequency(lx_runtime_obj *rt, PyObject *name)
{
    if (rt->freq_best == NULL) {
        return LX_C_OBJECT;
    }
    PyObject *idx = PyDict_GetItemWithError(rt->freq_best, name);   /* borrowed */
    if (idx == NULL) {
        return PyErr_Occurred() ? -1 : LX_C_OBJECT;
    }
    return (int)PyLong_AsLong(idx);
}

/* The first valid class name in a predictor's answer, or -1 (no exception)
 * when there is none. */
static int
parse_answer(lx_state *st, PyObject *ans)
{
    if (PyUnicode_Check(ans)) {
        return lx_class_from_str(st, ans);
    }
    if (!PyList_Check(ans) && !PyTuple_Check(ans)) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(ans); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(ans, i);
        if ((PyTuple_Check(item) || PyList_Check(item)) && PySequence_Fast_GET_SIZE(item) >= 1) {
            item = PySequence_Fast_GET_ITEM(item, 0);
        }
        int c = lx_class_from_str(st, item);
        if (c >= 0) {
            return c;
        }
    }
    return -1;
}

/* Turn the exception the predictor raised into PredictorError, chained. */
static void
raise_predictor_error(lx_state *st, lx_runtime_obj *rt)
{
    PyObject *typ, *val, *tb;
    PyErr_Fetch(&typ, &val, &tb);
    PyErr_NormalizeException(&typ, &val, &tb);
    if (tb != NULL && val != NULL) {
        PyException_SetTraceback(val, tb);
    }
    PyErr_Format(st->rt.predictor_error, "predictor %R raised %R", rt->predictor_fn,
                 val != NULL ? val : Py_None);
    PyObject *t2, *v2, *tb2;
    PyErr_Fetch(&t2, &v2, &tb2);
    PyErr_NormalizeException(&t2, &v2, &tb2);
    if (v2 != NULL && val != NULL) {
        PyException_SetCause(v2, Py_NewRef(val));     /* steals the new ref */
        PyException_SetContext(v2, Py_NewRef(val));   /* steals the new ref */
    }
    PyErr_Restore(t2, v2, tb2);
    Py_XDECREF(typ);
    Py_XDECREF(val);
    Py_XDECREF(tb);
}

static int
predict_callable(lx_state *st, lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind,
                 PyObject *name)
{
    PyObject *query = NULL, *ans = NULL;
    int c = -1;
    query = PyStructSequence_New((PyTypeObject *)st->rt.query_type);
    if (query == NULL) {
        return -1;
    }
    PyObject *fields[7] = {
        PyLong_FromSsize_t(iid), Py_NewRef(kind), Py_NewRef(name),
        Py_NewRef(site_or(rt, iid, 2, Py_None)),
        Py_NewRef(site_or(rt, iid, 3, st->rt.s_empty)),
        Py_NewRef(site_or(rt, iid, 4, st->rt.s_empty)),
        Py_NewRef(rt->fine ? st->rt.s_fine : st->rt.s_coarse),
    };
    for (int i = 0; i < 7; i++) {
        PyStructSequence_SET_ITEM(query, i, fields[i]);   /* steals */
    }
    if (fields[0] == NULL) {
        goto done;
    }
    ans = PyObject_CallOneArg(rt->predictor_fn, query);
    if (ans == NULL) {
        raise_predictor_error(st, rt);
        goto done;
    }
    c = parse_answer(st, ans);
    if (c < 0) {
        /* garbage answer: fall back to "object" and leave a note */
        PyObject *r = PyObject_Repr(ans);
        PyObject *note = r ? Py_BuildValue("(nOOO)", iid, kind, name, r) : NULL;
        Py_XDECREF(r);
        if (note == NULL || PyList_Append(rt->predictor_errors, note) < 0) {
            Py_XDECREF(note);
            goto done;
        }
        Py_DECREF(note);
        c = LX_C_OBJECT;
    }
done:
    Py_XDECREF(ans);
    Py_DECREF(query);
    return c;
}

/* Class index for a missing value; LX_NO_INJECT for "as-is"; -1 on error.
 * rt == NULL (Dummies made outside a Runtime) behaves like "naive". */
int
lx_predict(lx_state *st, lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind, PyObject *name)
{
    if (rt == NULL) {
        return LX_C_OBJECT;
    }
    switch (rt->predictor) {
    case LX_PRED_ASIS:
        return LX_NO_INJECT;
    case LX_PRED_RANDOM:
        return predict_random(rt, kind, name);
    case LX_PRED_FREQUENCY:
        return predict_frequency(rt, name);
    case LX_PRED_CALLABLE:
        if (rt->predictor_fn == NULL) {
            return LX_C_OBJECT;   /* cleared by the GC: behave like "naive" */
        }
        return predict_callable(st, rt, iid, kind, name);
    default:
        return LX_C_OBJECT;
    }
}

/* Inject a value for a missing name / attribute / call result.  Python:
 *     if kind == "name" and name in rt.name_values: return rt.name_values[name]
 *     cls = predict(iid, kind, name)               # may decline ("as-is")
 *     v = concretize(cls, randomize, seed, name)
 *     if kind == "name": rt.name_values[name] = v  # one value per name per run
 *     rt.injections.append((iid, kind, name, line, cls, repr(v)))
 *     return v */
int
lx_inject(lx_state *st, lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind, PyObject *name,
          PyObject **out)
{
    PyObject *v = NULL, *rec = NULL, *r = NULL;
    *out = NULL;
    if (rt != NULL && kind == st->rt.s_name && rt->predictor != LX_PRED_ASIS
        && rt->name_values != NULL) {
        v = PyDict_GetItemWithError(rt->name_values, name);   /* borrowed */
        if (v != NULL) {
            *out = Py_NewRef(v);
            return 0;
        }
        if (PyErr_Occurred()) {
            return -1;
        }
    }
    int c = lx_predict(st, rt, iid, kind, name);
    if (c < 0) {
        return c;   /* -1 or LX_NO_INJECT */
    }
    v = lx_concretize(st, rt, c, rt ? rt->randomize : 0, rt ? rt->seed : 0, name);
    if (v == NULL) {
        return -1;
    }
    if (rt != NULL) {
        if (kind == st->rt.s_name && rt->name_values != NULL
            && PyDict_SetItem(rt->name_values, name, v) < 0) {
            goto fail;
        }
        r = PyObject_Repr(v);
        if (r == NULL) {
            goto fail;
        }
        rec = Py_BuildValue("(nOOOOO)", iid, kind, name, site_or(rt, iid, 2, Py_None),
                            PyTuple_GET_ITEM(st->rt.all_classes, c), r);
        if (rec == NULL || PyList_Append(rt->injections, rec) < 0) {
            goto fail;
        }
        lx_journal_injection(rt, iid, kind, name, site_or(rt, iid, 2, Py_None),
                             PyTuple_GET_ITEM(st->rt.all_classes, c), r);
        Py_DECREF(rec);
        Py_DECREF(r);
    }
    *out = v;
    return 0;
fail:
    Py_XDECREF(rec);
    Py_XDECREF(r);
    Py_DECREF(v);
    return -1;
}

int
lx_predict_exec(PyObject *m, lx_state *st)
{
    lx_runtime_state *rs = &st->rt;
    rs->inject = lx_inject;   /* how a Dummy (layer 2) asks for a value */
    rs->query_type = (PyObject *)PyStructSequence_NewType(&query_desc);
    if (rs->query_type == NULL || PyModule_AddObjectRef(m, "PredictorQuery", rs->query_type) < 0) {
        return -1;
    }
    rs->predictor_error = PyErr_NewExceptionWithDoc(
        "lexecutor_c._core.PredictorError",
        "A callable predictor raised; the original exception is __cause__.  Derives "
        "from BaseException so that `except Exception` in the executed code cannot "
        "swallow it.",
        PyExc_BaseException, NULL);
    if (rs->predictor_error == NULL
        || PyModule_AddObjectRef(m, "PredictorError", rs->predictor_error) < 0) {
        return -1;
    }
    return 0;
}
