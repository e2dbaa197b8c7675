/* runtime/loaders.c - the loaders instrumented code calls, layer 4 of the
 * runtime: _n_ _a_ _c_ _l_ _i_ (contract in docs/LOADERS.md, behaviour in
 * docs/RUNTIME.md).  They are methods of the Runtime type (runtime.c).
 *
 * Hot paths: a loader whose value exists does the read it wraps plus a few
 * type checks; it allocates nothing (unless record=True).  Everything that
 * injects, records or imports is a slow path.
 */
#include "runtime/loaders.h"
#include "runtime/journal.h"
#include <string.h>

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

/* unique=True: the word of per-iid flags (bit c: an event of class c was
 * recorded this run; SEEN_CHECKED / SEEN_DYNAMIC: the call site's name was
 * looked up / is empty, so a call's event name comes from the callee and
 * the site cannot be deduplicated by class alone), or NULL with
 * MemoryError.  Grown like the marker bits. */
#define SEEN_CHECKED (1u << 30)
#define SEEN_DYNAMIC (1u << 31)
_Static_assert(LX_N_FINE <= 30, "fine classes must fit below SEEN_CHECKED");

static uint32_t *
seen_word(lx_runtime_obj *rt, Py_ssize_t iid)
{
    if (iid >= rt->nseen) {
        Py_ssize_t n = rt->nseen ? rt->nseen * 2 : 256;
        if (n <= iid) {
            n = iid + 1;
        }
        uint32_t *p = PyMem_Realloc(rt->seen, (size_t)n * sizeof(uint32_t));
        if (p == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        memset(p + rt->nseen, 0, (size_t)(n - rt->nseen) * sizeof(uint32_t));
        rt->seen = p;
        rt->nseen = n;
    }
    return &rt->seen[iid];
}

/* Append the event (name, cls, kind, file, line, iid, before, after) for a
 * value seen in a real run.  Injected Dummies and MISSING are not events.
 * With unique=True an event whose (iid, class) was recorded before in this
 * run is dropped here, before any object is built: *dedup* is 1 when the
 * event's name is fixed by its site (reads, attribute reads, calls whose
 * site names the callee), which makes (iid, class) the whole key that
 * the recorder deduplicates by (file, iid, kind, name, class). */
static int
record_event(lx_runtime_obj *rt, PyObject *kind, PyObject *name, Py_ssize_t iid,
             PyObject *value, int dedup)
{
    lx_state *st = rt->st;
    if (value == RS(rt)->missing || lx_is_dummy(st, value)) {
        return 0;
    }
    int c = lx_abstract(st, value, 1);
    if (dedup && rt->unique) {
        uint32_t *w = seen_word(rt, iid);
        if (w == NULL) {
            return -1;
        }
        if (*w & (1u << c)) {
            return 0;                                      /* recorded before */
        }
        *w |= 1u << c;
    }
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
    if (PyObject_GetOptionalAttr(fn, RS(rt)->s_dunder_name, &n) < 0) {
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
PyObject *
lx_loader_n(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
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
            if (iid < 0 || record_event(self, RS(self)->s_name, name, iid, v, 1) < 0) {
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
PyObject *
lx_loader_a(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
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
            if (iid < 0 || record_event(self, RS(self)->s_attribute, name, iid, v, 1) < 0) {
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
PyObject *
lx_loader_c(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
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
        int dedup = 0;
        if (iid >= 0 && self->unique) {
            uint32_t *w = seen_word(self, iid);
            if (w == NULL) {
                Py_DECREF(v);
                return NULL;
            }
            if (!(*w & SEEN_CHECKED)) {
                PyObject *sn = lx_site_field(self, iid, 1);   /* borrowed */
                int named = sn != NULL && PyUnicode_Check(sn) && PyUnicode_GET_LENGTH(sn) > 0;
                *w |= SEEN_CHECKED | (named ? 0u : SEEN_DYNAMIC);
            }
            dedup = !(*w & SEEN_DYNAMIC);
            if (dedup && (*w & (1u << lx_abstract(self->st, v, 1)))
                && v != RS(self)->missing && !lx_is_dummy(self->st, v)) {
                return v;                                  /* recorded before */
            }
        }
        PyObject *n = iid < 0 ? NULL : call_name(self, iid, fn);
        if (n == NULL || record_event(self, RS(self)->s_call, n, iid, v, dedup) < 0) {
            Py_XDECREF(n);
            Py_DECREF(v);
            return NULL;
        }
        Py_DECREF(n);
    }
    return v;
}

/* ---- _l_ -------------------------------------------------------------------- */

int
lx_grow_bits(lx_runtime_obj *rt, Py_ssize_t need)
{
    Py_ssize_t n = rt->nbits_bytes * 2;
    if (n < need) {
        n = need;
    }
    if (n < 64) {
        n = 64;
    }
    uint8_t *p;
    if (rt->bits_shared) {
        /* past the journal's bitmap: markers from here on stay private */
        p = PyMem_Malloc((size_t)n);
        if (p != NULL) {
            memcpy(p, rt->bits, (size_t)rt->nbits_bytes);
            rt->bits_shared = 0;
            lx_journal_bits_overflow(rt);
        }
    }
    else {
        p = PyMem_Realloc(rt->bits, (size_t)n);
    }
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
PyObject *
lx_loader_l(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 && nargs != 2 && check_nargs("_l_", nargs, 1, 2) < 0) {
        return NULL;
    }
    Py_ssize_t iid = get_iid("_l_", args[0]);
    if (iid < 0) {
        return NULL;
    }
    Py_ssize_t byte = iid >> 3;
    if (byte >= self->nbits_bytes && lx_grow_bits(self, byte + 1) < 0) {
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
    if (PyObject_GetOptionalAttr(v, name, &x) != 0) {
        return x;   /* found, or an error other than AttributeError */
    }
    if (PyObject_GetOptionalAttr(v, RS(rt)->s_dunder_name, &pkgname) < 0) {
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
    if (PyObject_GetOptionalAttr(v, RS(rt)->s_all, &all) < 0) {
        return -1;
    }
    if (all == NULL) {
        if (PyObject_GetOptionalAttr(v, RS(rt)->s_dunder_dict, &dict) < 0) {
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
    if (r == 0) {
        lx_journal_failed_import(rt, iid, mod, names);
    }
    Py_XDECREF(rec);
    Py_XDECREF(mod);
    Py_XDECREF(dots);
    return r;
}

/* Whether an absolute import of ``name`` was blocked on purpose: the module
 * or a package above it is None in sys.modules (the documented way to make
 * an import fail).  Such a failure is what the caller asked for, so it is
 * not stood in for.  1 blocked, 0 not, -1 error. */
static int
import_is_blocked(PyObject *name, int level)
{
    if (level != 0) {
        return 0;
    }
    PyObject *modules = PyImport_GetModuleDict();   /* borrowed */
    Py_ssize_t len = PyUnicode_GET_LENGTH(name);
    Py_ssize_t end = 0;
    while (end < len) {
        Py_ssize_t dot = PyUnicode_FindChar(name, '.', end, len, 1);
        if (dot == -2) {
            return -1;
        }
        end = dot < 0 ? len : dot;
        PyObject *part = PyUnicode_Substring(name, 0, end);
        if (part == NULL) {
            return -1;
        }
        PyObject *m = PyDict_GetItemWithError(modules, part);   /* borrowed */
        Py_DECREF(part);
        if (m == NULL && PyErr_Occurred()) {
            return -1;
        }
        if (m == Py_None) {
            return 1;
        }
        end++;
    }
    return 0;
}

/* _i_(iid, module, level, names) -- an import that must not end the run.
 *     names None:  return __import__(module, globals, None, None, level)   # top package
 *     names ():    walk module's dotted path with IMPORT_FROM        # import a.b as c
 *     names "*":   star-import into the caller's globals; return None
 *     names tuple: m = __import__(module, globals, None, names, level)
 *                  return tuple(IMPORT_FROM(m, n) for n in names)
 * ImportError -> the failure is recorded in failed_imports and MISSING stands
 * in for every value that could not be imported (a tuple of them for the
 * from-form).  With predictor "as-is", or where the module was blocked on
 * purpose (None in sys.modules), the ImportError propagates (after being
 * recorded).  Other exceptions always propagate. */
PyObject *
lx_loader_i(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
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
    int blocked = 0;
    {
        PyObject *t, *e, *tb;
        PyErr_Fetch(&t, &e, &tb);
        blocked = import_is_blocked(name, (int)level);
        if (blocked < 0) {
            Py_XDECREF(t);
            Py_XDECREF(e);
            Py_XDECREF(tb);
            goto done;
        }
        PyErr_Restore(t, e, tb);
    }
    if (self->predictor == LX_PRED_ASIS || blocked) {
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
