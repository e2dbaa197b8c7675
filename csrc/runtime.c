/* runtime.c - the Runtime object and the loaders instrumented code calls
 * (_n_ _a_ _c_ _l_ _i_; contract in docs/LOADERS.md, behaviour in
 * docs/RUNTIME.md), plus the module-state exec/traverse/clear of the
 * runtime part.
 *
 * Hot paths: a loader whose value exists does the read it wraps plus a few
 * type checks; it allocates nothing (unless record=True).  Everything that
 * injects, records or imports is a slow path.
 */
#include "rt_internal.h"
#include <string.h>
#include <structmember.h>

#define LX_MAX_IID ((Py_ssize_t)1 << 26)

static inline lx_runtime_state *
RS(lx_runtime_obj *rt)
{
    return &rt->st->rt;
}

/* ---- argument helpers ------------------------------------------------------ */

static int
check_nargs(const char *fname, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi)
{
    if (nargs < lo || nargs > hi) {
        if (lo == hi) {
            PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", fname, lo,
                         nargs);
        }
        else {
            PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments (%zd given)", fname,
                         lo, hi, nargs);
        }
        return -1;
    }
    return 0;
}

/* iid argument: an int in [0, LX_MAX_IID). */
static Py_ssize_t
get_iid(const char *fname, PyObject *o)
{
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): iid must be an int, not %.100s", fname,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t iid = PyLong_AsSsize_t(o);
    if (iid == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (iid < 0 || iid >= LX_MAX_IID) {
        PyErr_Format(PyExc_ValueError, "%s(): iid %zd out of range [0, %zd)", fname, iid,
                     LX_MAX_IID);
        return -1;
    }
    return iid;
}

static int
check_str(const char *fname, const char *what, PyObject *o)
{
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): %s must be a str, not %.100s", fname, what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    return 0;
}

/* ---- recording ------------------------------------------------------------- */

/* Append the event (name, cls, kind, file, line, iid, before, after) for a
 * value seen in a real run.  Injected Dummies and MISSING are not events. */
static int
record_event(lx_runtime_obj *rt, PyObject *kind, PyObject *name, Py_ssize_t iid,
             PyObject *value)
{
    lx_state *st = rt->st;
    if (value == RS(rt)->missing || lx_is_dummy(st, value)) {
        return 0;
    }
    int c = lx_abstract(st, value, 1);
    PyObject *line = lx_site_field(rt, iid, 2);
    PyObject *before = lx_site_field(rt, iid, 3);
    PyObject *after = lx_site_field(rt, iid, 4);
    PyObject *ev = Py_BuildValue("(OOOOOnOO)", name, PyTuple_GET_ITEM(RS(rt)->all_classes, c),
                                 kind, rt->filename, line ? line : Py_None, iid,
                                 before ? before : RS(rt)->s_empty,
                                 after ? after : RS(rt)->s_empty);
    if (ev == NULL) {
        return -1;
    }
    int r = PyList_Append(rt->events, ev);
    Py_DECREF(ev);
    return r;
}

/* The name a call site stands for: the site table's name, else fn.__name__,
 * else "".  New reference. */
static PyObject *
call_name(lx_runtime_obj *rt, Py_ssize_t iid, PyObject *fn)
{
    PyObject *n = lx_site_field(rt, iid, 1);
    if (n != NULL && PyUnicode_Check(n) && PyUnicode_GET_LENGTH(n) > 0) {
        return Py_NewRef(n);
    }
    if (fn == NULL) {
        return NULL;
    }
    if (_PyObject_LookupAttr(fn, RS(rt)->s_dunder_name, &n) < 0) {
        PyErr_Clear();
    }
    if (n != NULL && PyUnicode_Check(n)) {
        return n;
    }
    Py_XDECREF(n);
    return Py_NewRef(RS(rt)->s_empty);
}

/* ---- thunk peeking ----------------------------------------------------------
 * `_n_(iid, "x", lambda: x)` pays for a Python frame to run the thunk.  When
 * the thunk is exactly `lambda: x` (no parameters, the code size of the
 * probe lambdas measured at exec, its only name being x) the runtime does
 * what its single LOAD_GLOBAL / LOAD_DEREF would do instead. */

static int
same_str(PyObject *a, PyObject *b)
{
    return a == b || (PyUnicode_Check(a) && PyUnicode_GET_LENGTH(a) == PyUnicode_GET_LENGTH(b)
                      && PyUnicode_Compare(a, b) == 0);
}

enum { PEEK_ERROR = -1, PEEK_UNBOUND = 0, PEEK_FOUND = 1, PEEK_CALL = 2 };

/* PEEK_FOUND with *out a new reference, PEEK_UNBOUND (the read would raise
 * NameError), PEEK_CALL (not a recognised thunk: call it), PEEK_ERROR. */
static int
thunk_peek(lx_runtime_state *rs, PyObject *thunk, PyObject *name, PyObject **out)
{
    if (!PyFunction_Check(thunk)) {
        return PEEK_CALL;
    }
    PyFunctionObject *fn = (PyFunctionObject *)thunk;
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    if (co->co_argcount != 0 || co->co_kwonlyargcount != 0
        || (co->co_flags & (CO_VARARGS | CO_VARKEYWORDS)) != 0) {
        return PEEK_CALL;
    }
    if (co->co_nfreevars == 0 && co->co_nlocalsplus == 0
        && Py_SIZE(co) == rs->thunk_global_size && PyTuple_GET_SIZE(co->co_names) == 1
        && same_str(PyTuple_GET_ITEM(co->co_names, 0), name)
        && PyDict_CheckExact(fn->func_globals) && PyDict_CheckExact(fn->func_builtins)) {
        PyObject *v = PyDict_GetItemWithError(fn->func_globals, name);    /* borrowed */
        if (v == NULL && !PyErr_Occurred()) {
            v = PyDict_GetItemWithError(fn->func_builtins, name);         /* borrowed */
        }
        if (v != NULL) {
            *out = Py_NewRef(v);
            return PEEK_FOUND;
        }
        return PyErr_Occurred() ? PEEK_ERROR : PEEK_UNBOUND;
    }
    if (co->co_nfreevars == 1 && co->co_nlocalsplus == 1 && Py_SIZE(co) == rs->thunk_deref_size
        && same_str(PyTuple_GET_ITEM(co->co_localsplusnames, 0), name)
        && fn->func_closure != NULL && PyTuple_Check(fn->func_closure)
        && PyTuple_GET_SIZE(fn->func_closure) == 1) {
        PyObject *cell = PyTuple_GET_ITEM(fn->func_closure, 0);
        if (!PyCell_Check(cell)) {
            return PEEK_CALL;
        }
        PyObject *v = PyCell_GET(cell);
        if (v == NULL) {
            return PEEK_UNBOUND;
        }
        *out = Py_NewRef(v);
        return PEEK_FOUND;
    }
    return PEEK_CALL;
}

/* LOAD_GLOBAL in the caller's frame. */
static int
global_peek(PyObject *name, PyObject **out)
{
    PyObject *globals = PyEval_GetGlobals();     /* borrowed */
    PyObject *builtins = PyEval_GetBuiltins();   /* borrowed */
    PyObject *v = NULL;
    if (globals == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_n_(iid, name) must be called from Python code");
        return PEEK_ERROR;
    }
    v = PyDict_CheckExact(globals) ? Py_XNewRef(PyDict_GetItemWithError(globals, name))
                                   : PyObject_GetItem(globals, name);
    if (v == NULL && !PyDict_CheckExact(globals) && PyErr_ExceptionMatches(PyExc_KeyError)) {
        PyErr_Clear();
    }
    if (v == NULL && !PyErr_Occurred() && builtins != NULL) {
        v = PyDict_CheckExact(builtins) ? Py_XNewRef(PyDict_GetItemWithError(builtins, name))
                                        : PyObject_GetItem(builtins, name);
        if (v == NULL && !PyDict_CheckExact(builtins)
            && PyErr_ExceptionMatches(PyExc_KeyError)) {
            PyErr_Clear();
        }
    }
    if (v != NULL) {
        *out = v;
        return PEEK_FOUND;
    }
    return PyErr_Occurred() ? PEEK_ERROR : PEEK_UNBOUND;
}

/* ---- _n_ -------------------------------------------------------------------- */

/* _n_(iid, name, thunk[, mapping]) -- read of a variable.
 *     if mapping given and name in mapping: return mapping[name]   # class body
 *     try: v = thunk()
 *     except NameError: v = MISSING          # UnboundLocalError included
 *     if v is MISSING: return inject(iid, "name", name)
 *     return v
 * With predictor "as-is" the NameError propagates unchanged (and a MISSING
 * result raises NameError).
 *
 * _n_(iid, name) -- optional thunk-free form for a module-level (global)
 * name: the thunk is replaced by a lookup in the caller's globals, then its
 * builtins (what LOAD_GLOBAL does), saving the cost of creating a lambda. */
static PyObject *
rt_n(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 && check_nargs("_n_", nargs, 2, 4) < 0) {
        return NULL;
    }
    PyObject *name = args[1], *v;
    if (!PyLong_Check(args[0])) {
        (void)get_iid("_n_", args[0]);   /* raises the TypeError */
        return NULL;
    }
    if (check_str("_n_", "name", name) < 0) {
        return NULL;
    }
    int peek;
    if (nargs == 2) {
        peek = global_peek(name, &v);
        if (peek == PEEK_UNBOUND && self->predictor == LX_PRED_ASIS) {
            PyErr_Format(PyExc_NameError, "name %R is not defined", name);
            return NULL;
        }
        goto have_value;
    }
    if (nargs == 4) {
        PyObject *mapping = args[3];
        if (mapping == Py_Ellipsis) {
            /* `...`: the caller's own namespace (a class body's), read
             * without calling a `locals` the code may have rebound */
            mapping = PyEval_GetLocals();   /* borrowed */
            if (mapping == NULL) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_RuntimeError, "_n_: no calling frame");
                }
                return NULL;
            }
        }
        if (PyDict_CheckExact(mapping)) {
            v = PyDict_GetItemWithError(mapping, name);    /* borrowed */
            if (v != NULL) {
                return Py_NewRef(v);
            }
            if (PyErr_Occurred()) {
                return NULL;
            }
        }
        else {
            v = PyObject_GetItem(mapping, name);
            if (v != NULL) {
                return v;
            }
            if (!PyErr_ExceptionMatches(PyExc_KeyError)) {
                return NULL;
            }
            PyErr_Clear();
        }
    }
    peek = thunk_peek(RS(self), args[2], name, &v);
have_value:
    if (peek == PEEK_ERROR) {
        return NULL;
    }
    if (peek == PEEK_CALL) {
        v = PyObject_CallNoArgs(args[2]);
    }
    else if (peek == PEEK_UNBOUND) {
        v = NULL;
        if (self->predictor == LX_PRED_ASIS) {
            /* as-is: the thunk raises the genuine NameError / UnboundLocalError */
            v = PyObject_CallNoArgs(args[2]);
            if (v != NULL && v != RS(self)->missing) {
                return v;
            }
            Py_XDECREF(v);
            if (v == NULL) {
                return NULL;
            }
            PyErr_Format(PyExc_NameError, "name %R is not defined", name);
            return NULL;
        }
    }
    if (v != NULL && v != RS(self)->missing) {
        if (self->record) {
            Py_ssize_t iid = get_iid("_n_", args[0]);
            if (iid < 0 || record_event(self, RS(self)->s_name, name, iid, v) < 0) {
                Py_DECREF(v);
                return NULL;
            }
        }
        return v;                                          /* the fast path */
    }
    if (v == NULL && peek == PEEK_CALL) {
        if (!PyErr_ExceptionMatches(PyExc_NameError) || self->predictor == LX_PRED_ASIS) {
            return NULL;
        }
        PyErr_Clear();
    }
    else if (v != NULL) {
        Py_DECREF(v);                                      /* MISSING */
        if (self->predictor == LX_PRED_ASIS) {
            PyErr_Format(PyExc_NameError, "name %R is not defined", name);
            return NULL;
        }
    }
    Py_ssize_t iid = get_iid("_n_", args[0]);
    if (iid < 0) {
        return NULL;
    }
    PyObject *res = NULL;
    int r = lx_inject(self->st, self, iid, RS(self)->s_name, name, &res);
    if (r == LX_NO_INJECT) {
        PyErr_Format(PyExc_NameError, "name %R is not defined", name);
        return NULL;
    }
    return res;
}

/* ---- _a_ -------------------------------------------------------------------- */

/* _a_(iid, obj, attr) -- attribute read.
 *     if obj is a Dummy: return obj's attribute, asking the predictor at iid
 *     try: return getattr(obj, attr)
 *     except AttributeError: return inject(iid, "attribute", attr)
 * "as-is" lets the AttributeError propagate. */
static PyObject *
rt_a(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_nargs("_a_", nargs, 3, 3) < 0) {
        return NULL;
    }
    PyObject *obj = args[1], *name = args[2];
    if (!PyLong_Check(args[0])) {
        (void)get_iid("_a_", args[0]);   /* raises the TypeError */
        return NULL;
    }
    if (check_str("_a_", "attribute name", name) < 0) {
        return NULL;
    }
    if (lx_is_dummy(self->st, obj)) {
        Py_ssize_t iid = get_iid("_a_", args[0]);
        return iid < 0 ? NULL : lx_dummy_getattr_at((lx_dummy_obj *)obj, name, iid, self);
    }
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v != NULL) {
        if (self->record) {
            Py_ssize_t iid = get_iid("_a_", args[0]);
            if (iid < 0 || record_event(self, RS(self)->s_attribute, name, iid, v) < 0) {
                Py_DECREF(v);
                return NULL;
            }
        }
        return v;                                          /* the fast path */
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError) || self->predictor == LX_PRED_ASIS) {
        return NULL;
    }
    PyErr_Clear();
    Py_ssize_t iid = get_iid("_a_", args[0]);
    if (iid < 0) {
        return NULL;
    }
    PyObject *res = NULL;
    int r = lx_inject(self->st, self, iid, RS(self)->s_attribute, name, &res);
    if (r == LX_NO_INJECT) {
        PyErr_Format(PyExc_AttributeError, "'%.100s' object has no attribute '%U'",
                     Py_TYPE(obj)->tp_name, name);
        return NULL;
    }
    return res;
}

/* ---- _c_ -------------------------------------------------------------------- */

/* _c_(iid, fn, *args, **kwargs) -- call.
 *     if fn is an injected value (Dummy / DummyResource / injected callable):
 *         return inject(iid, "call", site name or fn's name)
 *     return fn(*args, **kwargs)       # arguments forwarded untouched
 * Exceptions raised by a real call propagate unchanged. */
static PyObject *
rt_c(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs < 2) {
        PyErr_Format(PyExc_TypeError, "_c_() takes at least 2 positional arguments (%zd given)",
                     nargs);
        return NULL;
    }
    PyObject *fn = args[1];
    if (!PyLong_Check(args[0])) {
        (void)get_iid("_c_", args[0]);   /* raises the TypeError */
        return NULL;
    }
    if (lx_is_dummy(self->st, fn)) {
        Py_ssize_t iid = get_iid("_c_", args[0]);
        if (iid < 0) {
            return NULL;
        }
        PyObject *n = lx_site_field(self, iid, 1);   /* borrowed */
        if (n != NULL && (!PyUnicode_Check(n) || PyUnicode_GET_LENGTH(n) == 0)) {
            n = NULL;
        }
        return lx_dummy_call_at((lx_dummy_obj *)fn, iid, self, n);
    }
    PyObject *v = PyObject_Vectorcall(fn, args + 2, (size_t)(nargs - 2), kwnames);
    if (v != NULL && self->record) {
        Py_ssize_t iid = get_iid("_c_", args[0]);
        PyObject *n = iid < 0 ? NULL : call_name(self, iid, fn);
        if (n == NULL || record_event(self, RS(self)->s_call, n, iid, v) < 0) {
            Py_XDECREF(n);
            Py_DECREF(v);
            return NULL;
        }
        Py_DECREF(n);
    }
    return v;
}

/* ---- _l_ -------------------------------------------------------------------- */

static int
grow_bits(lx_runtime_obj *rt, Py_ssize_t need)
{
    Py_ssize_t n = rt->nbits_bytes * 2;
    if (n < need) {
        n = need;
    }
    if (n < 64) {
        n = 64;
    }
    uint8_t *p = PyMem_Realloc(rt->bits, (size_t)n);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(p + rt->nbits_bytes, 0, (size_t)(n - rt->nbits_bytes));
    rt->bits = p;
    rt->nbits_bytes = n;
    return 0;
}

/* _l_(iid[, value]) -- line marker.
 *     reached.add(iid); return value (None when not given) */
static PyObject *
rt_l(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 && nargs != 2 && check_nargs("_l_", nargs, 1, 2) < 0) {
        return NULL;
    }
    Py_ssize_t iid = get_iid("_l_", args[0]);
    if (iid < 0) {
        return NULL;
    }
    Py_ssize_t byte = iid >> 3;
    if (byte >= self->nbits_bytes && grow_bits(self, byte + 1) < 0) {
        return NULL;
    }
    self->bits[byte] |= (uint8_t)(1u << (iid & 7));
    return Py_NewRef(nargs == 2 ? args[1] : Py_None);
}

/* ---- _i_ -------------------------------------------------------------------- */

/* __import__ through the frame's builtins, like IMPORT_NAME. */
static PyObject *
do_import(lx_runtime_obj *rt, PyObject *name, PyObject *globals, PyObject *fromlist,
          PyObject *level_obj, int level)
{
    PyObject *builtins = PyEval_GetBuiltins();   /* borrowed */
    PyObject *import_func = builtins ? PyDict_GetItemWithError(builtins,
                                                               RS(rt)->s_dunder_import)
                                     : NULL;     /* borrowed */
    if (import_func == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ImportError, "__import__ not found");
        }
        return NULL;
    }
    if (import_func == RS(rt)->builtin_import) {
        return PyImport_ImportModuleLevelObject(name, globals, Py_None, fromlist, level);
    }
    return PyObject_CallFunctionObjArgs(import_func, name, globals, Py_None, fromlist,
                                        level_obj, NULL);
}

/* IMPORT_FROM: getattr(module, name), else sys.modules[f"{module.__name__}.{name}"]. */
static PyObject *
import_from(lx_runtime_obj *rt, PyObject *v, PyObject *name)
{
    PyObject *x = NULL, *pkgname = NULL, *full = NULL;
    if (_PyObject_LookupAttr(v, name, &x) != 0) {
        return x;   /* found, or an error other than AttributeError */
    }
    if (_PyObject_LookupAttr(v, RS(rt)->s_dunder_name, &pkgname) < 0) {
        return NULL;
    }
    if (pkgname != NULL && PyUnicode_Check(pkgname)) {
        full = PyUnicode_FromFormat("%U.%U", pkgname, name);
        if (full == NULL) {
            goto done;
        }
        x = PyImport_GetModule(full);
        if (x != NULL || PyErr_Occurred()) {
            goto done;
        }
        PyObject *msg = PyUnicode_FromFormat("cannot import name %R from %R", name, pkgname);
        if (msg != NULL) {
            PyErr_SetImportError(msg, pkgname, NULL);
            Py_DECREF(msg);
        }
    }
    else {
        PyErr_Format(PyExc_ImportError, "cannot import name %R (unknown location)", name);
    }
done:
    Py_XDECREF(full);
    Py_XDECREF(pkgname);
    return x;
}

/* from module import *: names from __all__, else public names of __dict__. */
static int
import_all_from(lx_runtime_obj *rt, PyObject *globals, PyObject *v)
{
    PyObject *all = NULL, *dict = NULL, *name = NULL, *value = NULL;
    int skip_private = 0, err = -1;
    if (_PyObject_LookupAttr(v, RS(rt)->s_all, &all) < 0) {
        return -1;
    }
    if (all == NULL) {
        if (_PyObject_LookupAttr(v, RS(rt)->s_dunder_dict, &dict) < 0) {
            return -1;
        }
        if (dict == NULL) {
            PyErr_SetString(PyExc_ImportError,
                            "from-import-* object has no __dict__ and no __all__");
            return -1;
        }
        all = PyMapping_Keys(dict);
        Py_DECREF(dict);
        if (all == NULL) {
            return -1;
        }
        skip_private = 1;
    }
    for (Py_ssize_t pos = 0;; pos++) {
        name = PySequence_GetItem(all, pos);
        if (name == NULL) {
            if (PyErr_ExceptionMatches(PyExc_IndexError)) {
                PyErr_Clear();
                err = 0;
            }
            break;
        }
        if (!PyUnicode_Check(name)) {
            PyErr_Format(PyExc_TypeError, "%s in __all__/__dict__ of an imported module must be "
                         "str, not %.100s", skip_private ? "Key" : "Item",
                         Py_TYPE(name)->tp_name);
            break;
        }
        if (skip_private && PyUnicode_READ_CHAR(name, 0) == '_') {
            Py_CLEAR(name);
            continue;
        }
        value = PyObject_GetAttr(v, name);
        if (value == NULL) {
            break;
        }
        int r = PyDict_CheckExact(globals) ? PyDict_SetItem(globals, name, value)
                                           : PyObject_SetItem(globals, name, value);
        Py_CLEAR(value);
        Py_CLEAR(name);
        if (r < 0) {
            break;
        }
    }
    Py_XDECREF(name);
    Py_XDECREF(value);
    Py_DECREF(all);
    return err;
}

static int
record_failed_import(lx_runtime_obj *rt, Py_ssize_t iid, PyObject *name, int level,
                     PyObject *names)
{
    PyObject *dots = PySequence_Repeat(RS(rt)->s_dot, level);
    PyObject *mod = dots ? PyUnicode_Concat(dots, name) : NULL;
    PyObject *rec = mod ? Py_BuildValue("(nOO)", iid, mod, names) : NULL;
    int r = rec ? PyList_Append(rt->failed_imports, rec) : -1;
    Py_XDECREF(rec);
    Py_XDECREF(mod);
    Py_XDECREF(dots);
    return r;
}

/* _i_(iid, module, level, names) -- an import that must not end the run.
 *     names None:  return __import__(module, globals, None, None, level)   # top package
 *     names ():    walk module's dotted path with IMPORT_FROM        # import a.b as c
 *     names "*":   star-import into the caller's globals; return None
 *     names tuple: m = __import__(module, globals, None, names, level)
 *                  return tuple(IMPORT_FROM(m, n) for n in names)
 * ImportError -> the failure is recorded in failed_imports and MISSING stands
 * in for every value that could not be imported (a tuple of them for the
 * from-form).  With predictor "as-is" the ImportError propagates (after
 * being recorded).  Other exceptions always propagate. */
static PyObject *
rt_i(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_nargs("_i_", nargs, 4, 4) < 0) {
        return NULL;
    }
    PyObject *name = args[1], *level_obj = args[2], *names = args[3];
    PyObject *fromlist = NULL, *mod = NULL, *res = NULL, *missing_names = NULL;
    Py_ssize_t iid = get_iid("_i_", args[0]);
    if (iid < 0 || check_str("_i_", "module", name) < 0) {
        return NULL;
    }
    if (!PyLong_Check(level_obj)) {
        PyErr_Format(PyExc_TypeError, "_i_(): level must be an int, not %.100s",
                     Py_TYPE(level_obj)->tp_name);
        return NULL;
    }
    long level = PyLong_AsLong(level_obj);
    if (level == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (level < 0 || level > 1000) {
        PyErr_Format(PyExc_ValueError, "_i_(): level must be in [0, 1000], got %ld", level);
        return NULL;
    }
    int star = 0;
    if (names == Py_None || (PyTuple_Check(names) && PyTuple_GET_SIZE(names) == 0)) {
        fromlist = Py_NewRef(Py_None);
    }
    else if (PyUnicode_Check(names)) {
        if (PyUnicode_CompareWithASCIIString(names, "*") != 0) {
            PyErr_SetString(PyExc_ValueError, "_i_(): names must be None, a tuple of str or '*'");
            return NULL;
        }
        star = 1;
        fromlist = PyTuple_Pack(1, RS(self)->s_star);
    }
    else if (PyTuple_Check(names)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
            if (check_str("_i_", "each imported name", PyTuple_GET_ITEM(names, i)) < 0) {
                return NULL;
            }
        }
        fromlist = Py_NewRef(names);
    }
    else {
        PyErr_Format(PyExc_TypeError, "_i_(): names must be None, a tuple of str or '*', "
                     "not %.100s", Py_TYPE(names)->tp_name);
        return NULL;
    }
    if (fromlist == NULL) {
        return NULL;
    }
    if (PyTuple_Check(names) && PyTuple_GET_SIZE(names) == 0 && level != 0) {
        PyErr_SetString(PyExc_ValueError, "_i_(): names=() needs level 0 (import a.b as c)");
        goto done;
    }
    PyObject *globals = PyEval_GetGlobals();   /* borrowed */
    if (globals == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_i_() must be called from Python code");
        goto done;
    }
    mod = do_import(self, name, globals, fromlist, level_obj, (int)level);
    if (mod == NULL) {
        goto import_failed;
    }
    if (names == Py_None) {
        res = Py_NewRef(mod);
    }
    else if (star) {
        if (import_all_from(self, globals, mod) == 0) {
            res = Py_NewRef(Py_None);
        }
    }
    else if (PyTuple_GET_SIZE(names) == 0) {
        /* import a.b.c as d: __import__ gave the top package, walk down */
        PyObject *parts = PyUnicode_Split(name, RS(self)->s_dot, -1);
        if (parts == NULL) {
            goto done;
        }
        res = Py_NewRef(mod);
        for (Py_ssize_t i = 1; res != NULL && i < PyList_GET_SIZE(parts); i++) {
            Py_SETREF(res, import_from(self, res, PyList_GET_ITEM(parts, i)));
        }
        Py_DECREF(parts);
        if (res == NULL) {
            goto import_failed;
        }
    }
    else {
        Py_ssize_t n = PyTuple_GET_SIZE(names);
        res = PyTuple_New(n);
        missing_names = PyList_New(0);
        for (Py_ssize_t i = 0; res != NULL && missing_names != NULL && i < n; i++) {
            PyObject *nm = PyTuple_GET_ITEM(names, i);
            PyObject *v = import_from(self, mod, nm);
            if (v == NULL) {
                if (!PyErr_ExceptionMatches(PyExc_ImportError)) {
                    Py_CLEAR(res);
                    break;
                }
                if (self->predictor == LX_PRED_ASIS) {
                    PyObject *t, *e, *tb;
                    PyErr_Fetch(&t, &e, &tb);
                    PyObject *one = PyTuple_Pack(1, nm);
                    if (one != NULL) {
                        (void)record_failed_import(self, iid, name, (int)level, one);
                        Py_DECREF(one);
                    }
                    PyErr_Restore(t, e, tb);
                    Py_CLEAR(res);
                    break;
                }
                PyErr_Clear();
                if (PyList_Append(missing_names, nm) < 0) {
                    Py_CLEAR(res);
                    break;
                }
                v = Py_NewRef(RS(self)->missing);
            }
            PyTuple_SET_ITEM(res, i, v);
        }
        if (res != NULL && missing_names != NULL && PyList_GET_SIZE(missing_names) > 0) {
            PyObject *t = PyList_AsTuple(missing_names);
            if (t == NULL || record_failed_import(self, iid, name, (int)level, t) < 0) {
                Py_CLEAR(res);
            }
            Py_XDECREF(t);
        }
        if (missing_names == NULL) {
            Py_CLEAR(res);
        }
    }
    goto done;

import_failed:
    if (!PyErr_ExceptionMatches(PyExc_ImportError)) {
        goto done;
    }
    if (self->predictor == LX_PRED_ASIS) {
        PyObject *t, *e, *tb;
        PyErr_Fetch(&t, &e, &tb);
        (void)record_failed_import(self, iid, name, (int)level, names);
        PyErr_Restore(t, e, tb);
        goto done;
    }
    PyErr_Clear();
    if (record_failed_import(self, iid, name, (int)level, names) < 0) {
        goto done;
    }
    if (PyTuple_Check(names) && PyTuple_GET_SIZE(names) > 0) {
        Py_ssize_t n = PyTuple_GET_SIZE(names);
        res = PyTuple_New(n);
        for (Py_ssize_t i = 0; res != NULL && i < n; i++) {
            PyTuple_SET_ITEM(res, i, Py_NewRef(RS(self)->missing));
        }
    }
    else {
        res = Py_NewRef(RS(self)->missing);
    }

done:
    Py_XDECREF(missing_names);
    Py_XDECREF(mod);
    Py_XDECREF(fromlist);
    return res;
}

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
    err = max_iid > 0 ? grow_bits(rt, (max_iid >> 3) + 1) : 0;
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
    PyMem_Free(rt->bits);
    rt->bits = NULL;
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
    {"_n_", (PyCFunction)(void (*)(void))rt_n, METH_FASTCALL,
     "_n_(iid, name, thunk[, mapping]): variable read (see docs/LOADERS.md)"},
    {"_a_", (PyCFunction)(void (*)(void))rt_a, METH_FASTCALL,
     "_a_(iid, obj, attr): attribute read"},
    {"_c_", (PyCFunction)(void (*)(void))rt_c, METH_FASTCALL | METH_KEYWORDS,
     "_c_(iid, fn, *args, **kwargs): call"},
    {"_l_", (PyCFunction)(void (*)(void))rt_l, METH_FASTCALL,
     "_l_(iid[, value]): line marker; returns value (None)"},
    {"_i_", (PyCFunction)(void (*)(void))rt_i, METH_FASTCALL,
     "_i_(iid, module, level, names): import returning MISSING on ImportError"},
    {"loaders", runtime_loaders, METH_NOARGS,
     "loaders() -> dict of the five loaders, to put into exec globals"},
    {"reached", runtime_reached, METH_NOARGS, "reached() -> sorted list of marker iids hit"},
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
    if (lx_values_exec(m, st) < 0 || lx_dummy_exec(m, st) < 0 || lx_predict_exec(m, st) < 0) {
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
