/* transparent/evalframe.c - frame-evaluation hook (PEP 523) of transparent mode.
 *
 * While the hook is installed the interpreter hands every frame to
 * lx_eval_frame before running it.  Each code object carries a small entry
 * in one of its co_extra slots: "skip" (run as usual: one load and two
 * compares) or "twin" (run the instrumented twin instead).  Entries carry
 * the generation they were decided in; enabling or disabling targets bumps
 * the generation, so every code object is decided again, once, by the
 * Python resolver (lexecutor_c.hook._resolve) that owns the targets.
 *
 * A target frame is replaced at the function level: the hook does not
 * evaluate the frame it was given.  It builds a function object around the
 * twin code (same globals, closure cells mapped by name, the original's
 * qualname), calls it with the arguments already bound in the given frame's
 * localsplus (positional values, *args items, keyword-only values and
 * **kwargs items; defaults were applied by the caller's binding), and
 * returns the twin's result as the frame's result.  The original frame is
 * then cleared without having run (by _PyEval_Vector on 3.11, by the hook
 * since 3.12: lx_frame_discard).  Module and
 * class bodies (frames with f_locals) run their twin with PyEval_EvalCodeEx
 * and the same locals mapping.  Only frames that have not started yet and
 * belong to the thread are replaced; generator resumes and throws run as
 * they are (a twin generator's frames have twin code, which is "skip").
 *
 * Safety: a per-thread off switch (set while the resolver and the loader
 * installer run, and from Python through _hook_thread_off) makes the hook a
 * pass-through for that thread; an internal error (resolver raised, returned
 * something malformed, out of memory while building the call) records the
 * exception, switches the hook off for good ("failed") and runs the frame
 * unchanged.  Exceptions raised by the twin itself are the program's and
 * propagate.
 *
 * Every CPython-internal detail is in evalframe_internal.h.
 */
#include "transparent/api.h"
#include "transparent/evalframe_internal.h"

/* One per code object that has been seen while the hook was on. */
typedef struct {
    uint64_t gen;
    PyObject *twin;        /* twin code object, or NULL: skip */
    PyObject *cellmap;     /* NULL: pass the original closure; else tuple of int */
    PyObject *probe_key;   /* a loader name in the globals ... */
    PyObject *probe_value; /* ... and the object it must be bound to */
    PyObject *prepare;     /* callable(globals): installs the loaders */
} lx_entry;

static struct {
    int installed;                 /* lx_eval_frame is in the interpreter's chain */
    int active;                    /* substituting frames */
    int failed;                    /* an internal error switched the hook off */
    int mirror_ok;                 /* the co_extra layout mirror was verified */
    PyInterpreterState *interp;    /* where extra_index and the hook belong */
    _PyFrameEvalFunction prev;     /* the function we chain to */
    Py_ssize_t extra_index;        /* -1 until requested */
    uint64_t gen;
    PyObject *resolver;            /* strong */
    PyObject *last_error;          /* strong: the exception that failed the hook */
    void *owner;                   /* module state of the module that installed it */
    Py_ssize_t n_twin_calls, n_resolved;
} H = {.extra_index = -1, .gen = 1};

static _Thread_local int lx_off;

static void
entry_drop(lx_entry *e)
{
    Py_CLEAR(e->twin);
    Py_CLEAR(e->cellmap);
    Py_CLEAR(e->probe_key);
    Py_CLEAR(e->probe_value);
    Py_CLEAR(e->prepare);
}

/* freefunc of the co_extra slot: runs from code_dealloc with the GIL held */
static void
entry_free(void *p)
{
    if (p != NULL) {
        entry_drop((lx_entry *)p);
        PyMem_RawFree(p);
    }
}

static inline lx_entry *
entry_get(PyCodeObject *co)
{
    if (H.mirror_ok) {
        lx_code_extra_mirror *x = (lx_code_extra_mirror *)co->co_extra;
        if (x == NULL || x->ce_size <= H.extra_index) {
            return NULL;
        }
        return (lx_entry *)x->ce_extras[H.extra_index];
    }
    void *p = NULL;
    if (PyUnstable_Code_GetExtra((PyObject *)co, H.extra_index, &p) < 0) {
        PyErr_Clear();
        return NULL;
    }
    return (lx_entry *)p;
}

static inline PyObject *
run_prev(PyThreadState *ts, struct _PyInterpreterFrame *f, int throwflag)
{
    return H.prev(ts, f, throwflag);
}

/* f will not run, and an exception is pending.  A fresh frame is dropped
 * the way its evaluator would have dropped it (evalframe_internal.h: on 3.11
 * by its caller, since 3.12 by us); a started one (a generator being
 * resumed) gets the exception thrown in, so its owner sees it finish as
 * usual. */
static PyObject *
frame_not_run(PyThreadState *ts, struct _PyInterpreterFrame *f)
{
    if (lx_frame_is_fresh(f)) {
        lx_frame_discard(ts, f);
        return NULL;
    }
    return run_prev(ts, f, 1);
}

/* Record the pending exception as the reason the hook failed; from now on
 * every frame runs unchanged.  Exceptions that are not Exceptions
 * (KeyboardInterrupt, SystemExit) are left pending: returns 1 then. */
static int
fail_closed(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (type != NULL && !PyErr_GivenExceptionMatches(type, PyExc_Exception)) {
        PyErr_Restore(type, value, tb);
        return 1;
    }
    PyErr_NormalizeException(&type, &value, &tb);
    if (value != NULL && tb != NULL) {
        PyException_SetTraceback(value, tb);
    }
    H.failed = 1;
    Py_XSETREF(H.last_error, value != NULL ? value : Py_NewRef(Py_None));
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return 0;
}

static inline int
thread_off_set(int v)
{
    int old = lx_off;
    lx_off = v;
    return old;
}

/* Ask the resolver about a code object; store and return its entry, or NULL
 * with an exception set. */
static lx_entry *
resolve(struct _PyInterpreterFrame *f, lx_entry *e)
{
    PyObject *func = (PyObject *)LX_FRAME_FUNC(f);
    PyObject *code = (PyObject *)LX_FRAME_CODE(f);
    PyObject *args[3] = {func != NULL ? func : Py_None, code, LX_FRAME_GLOBALS(f)};
    PyObject *resolver = Py_NewRef(H.resolver);
    int old = thread_off_set(1);
    PyObject *r = PyObject_Vectorcall(resolver, args, 3, NULL);
    thread_off_set(old);
    Py_DECREF(resolver);
    if (r == NULL) {
        return NULL;
    }
    PyObject *twin = NULL, *cellmap = NULL, *key = NULL, *val = NULL, *prep = NULL;
    if (r != Py_None) {
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 5) {
            PyErr_Format(PyExc_TypeError, "hook resolver must return None or a 5-tuple, not %.100s",
                         Py_TYPE(r)->tp_name);
            goto bad;
        }
        twin = PyTuple_GET_ITEM(r, 0);
        cellmap = PyTuple_GET_ITEM(r, 1);
        key = PyTuple_GET_ITEM(r, 2);
        val = PyTuple_GET_ITEM(r, 3);
        prep = PyTuple_GET_ITEM(r, 4);
        if (!PyCode_Check(twin) || (cellmap != Py_None && !PyTuple_Check(cellmap)) ||
            !PyUnicode_Check(key) || !PyCallable_Check(prep)) {
            PyErr_SetString(PyExc_TypeError, "hook resolver: expected (code, tuple|None, str, "
                                             "object, callable)");
            goto bad;
        }
        PyCodeObject *tc = (PyCodeObject *)twin, *oc = (PyCodeObject *)code;
        const int sig = CO_VARARGS | CO_VARKEYWORDS;
        if (tc->co_argcount != oc->co_argcount || tc->co_kwonlyargcount != oc->co_kwonlyargcount ||
            tc->co_posonlyargcount != oc->co_posonlyargcount ||
            (tc->co_flags & sig) != (oc->co_flags & sig)) {
            PyErr_SetString(PyExc_ValueError, "hook resolver: twin's parameters differ");
            goto bad;
        }
        Py_ssize_t nfree = tc->co_nfreevars;
        if (cellmap != Py_None) {
            if (PyTuple_GET_SIZE(cellmap) != nfree) {
                PyErr_SetString(PyExc_ValueError, "hook resolver: cell map has the wrong size");
                goto bad;
            }
            for (Py_ssize_t i = 0; i < nfree; i++) {
                PyObject *x = PyTuple_GET_ITEM(cellmap, i);
                long v = PyLong_Check(x) ? PyLong_AsLong(x) : -2;
                if (v == -1 && PyErr_Occurred()) {
                    goto bad;
                }
                if (v < -1 || v >= oc->co_nfreevars) {
                    PyErr_SetString(PyExc_ValueError, "hook resolver: bad cell map entry");
                    goto bad;
                }
            }
        }
        else if (nfree != oc->co_nfreevars) {
            PyErr_SetString(PyExc_ValueError, "hook resolver: closure sizes differ");
            goto bad;
        }
    }
    int fresh_entry = 0;
    if (e == NULL) {
        e = PyMem_RawCalloc(1, sizeof(lx_entry));
        if (e == NULL) {
            PyErr_NoMemory();
            goto bad;
        }
        fresh_entry = 1;
    }
    else {
        entry_drop(e);
    }
    e->gen = H.gen;
    e->twin = Py_XNewRef(twin);
    e->cellmap = cellmap == Py_None ? NULL : Py_XNewRef(cellmap);
    e->probe_key = Py_XNewRef(key);
    e->probe_value = Py_XNewRef(val);
    e->prepare = Py_XNewRef(prep);
    if (fresh_entry && PyUnstable_Code_SetExtra(code, H.extra_index, e) < 0) {
        entry_free(e);
        goto bad;
    }
    H.n_resolved++;
    Py_DECREF(r);
    return e;
bad:
    Py_DECREF(r);
    return NULL;
}

/* The twin's closure: new reference, or NULL with *err set on failure;
 * NULL without error when the twin has no free variables. */
static PyObject *
twin_closure(struct _PyInterpreterFrame *f, lx_entry *e, int *err)
{
    PyFunctionObject *fn = LX_FRAME_FUNC(f);
    PyObject *orig = fn != NULL ? fn->func_closure : NULL;
    *err = 0;
    if (e->cellmap == NULL) {
        return Py_XNewRef(orig);
    }
    Py_ssize_t n = PyTuple_GET_SIZE(e->cellmap);
    if (n == 0) {
        return NULL;
    }
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        *err = 1;
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long j = PyLong_AsLong(PyTuple_GET_ITEM(e->cellmap, i));
        PyObject *cell;
        if (j >= 0 && orig != NULL && PyTuple_Check(orig) && j < PyTuple_GET_SIZE(orig)) {
            cell = Py_NewRef(PyTuple_GET_ITEM(orig, j));
        }
        else {
            cell = PyCell_New(NULL);   /* unbound: reading it is a missing value */
            if (cell == NULL) {
                Py_DECREF(t);
                *err = 1;
                return NULL;
            }
        }
        PyTuple_SET_ITEM(t, i, cell);
    }
    return t;
}

/* The twin is about to run in f's globals: make sure they hold this
 * session's loaders.  0 / -1 with an exception set. */
static int
ensure_loaders(PyObject *globals, lx_entry *e)
{
    if (!PyDict_Check(globals)) {
        PyErr_SetString(PyExc_TypeError, "hook: frame globals are not a dict");
        return -1;
    }
    PyObject *have = PyDict_GetItemWithError(globals, e->probe_key);
    if (have == e->probe_value) {
        return 0;
    }
    if (have == NULL && PyErr_Occurred()) {
        return -1;
    }
    int old = thread_off_set(1);
    PyObject *r = PyObject_CallOneArg(e->prepare, globals);
    thread_off_set(old);
    if (r == NULL) {
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

/* Build the call: positional values, then *args items; keyword-only values
 * and **kwargs items as keywords.  Returns the twin's result; *internal is
 * set when the failure happened before the twin ran. */
static PyObject *
call_twin_function(struct _PyInterpreterFrame *f, lx_entry *e, PyObject *closure, int *internal)
{
    PyCodeObject *co = LX_FRAME_CODE(f);
    PyObject **lp = LX_FRAME_LOCALSPLUS(f);
    Py_ssize_t na = co->co_argcount, nk = co->co_kwonlyargcount, nparams = na + nk;
    PyObject *varargs = NULL, *varkw = NULL;
    if (co->co_flags & CO_VARARGS) {
        varargs = lp[nparams++];
    }
    if (co->co_flags & CO_VARKEYWORDS) {
        varkw = lp[nparams++];
    }
    *internal = 1;
    for (Py_ssize_t i = 0; i < nparams; i++) {
        if (lp[i] == NULL) {
            PyErr_SetString(PyExc_SystemError, "hook: unbound parameter in a fresh frame");
            return NULL;
        }
    }
    if ((varargs != NULL && !PyTuple_Check(varargs)) || (varkw != NULL && !PyDict_Check(varkw))) {
        PyErr_SetString(PyExc_SystemError, "hook: unexpected *args/**kwargs objects");
        return NULL;
    }
    Py_ssize_t nvar = varargs != NULL ? PyTuple_GET_SIZE(varargs) : 0;
    Py_ssize_t nkw = nk + (varkw != NULL ? PyDict_GET_SIZE(varkw) : 0);
    Py_ssize_t npos = na + nvar;
    PyObject *fn = NULL, *kwnames = NULL, *result = NULL;
    PyObject **stack = PyMem_Malloc(sizeof(PyObject *) * (size_t)(npos + nkw + 1));
    if (stack == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    PyObject *qualname = LX_FRAME_FUNC(f) != NULL ? LX_FRAME_FUNC(f)->func_qualname : NULL;
    fn = PyFunction_NewWithQualName(e->twin, LX_FRAME_GLOBALS(f), qualname);
    if (fn == NULL) {
        goto done;
    }
    if (closure != NULL && PyFunction_SetClosure(fn, closure) < 0) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < na; i++) {
        stack[i] = lp[i];
    }
    for (Py_ssize_t i = 0; i < nvar; i++) {
        stack[na + i] = PyTuple_GET_ITEM(varargs, i);
    }
    if (nkw > 0) {
        kwnames = PyTuple_New(nkw);
        if (kwnames == NULL) {
            goto done;
        }
        for (Py_ssize_t i = 0; i < nk; i++) {
            PyTuple_SET_ITEM(kwnames, i, Py_NewRef(PyTuple_GET_ITEM(co->co_localsplusnames, na + i)));
            stack[npos + i] = lp[na + i];
        }
        Py_ssize_t pos = 0, i = nk;
        PyObject *k, *v;
        while (varkw != NULL && PyDict_Next(varkw, &pos, &k, &v)) {
            if (i >= nkw) {
                PyErr_SetString(PyExc_RuntimeError, "hook: **kwargs changed size");
                goto done;
            }
            PyTuple_SET_ITEM(kwnames, i, Py_NewRef(k));
            stack[npos + i] = v;
            i++;
        }
        if (i != nkw) {
            PyErr_SetString(PyExc_RuntimeError, "hook: **kwargs changed size");
            goto done;
        }
    }
    *internal = 0;
    H.n_twin_calls++;
    /* the values in stack are borrowed from f, which outlives the call */
    result = PyObject_Vectorcall(fn, stack, (size_t)npos, kwnames);
done:
    Py_XDECREF(kwnames);
    Py_XDECREF(fn);
    PyMem_Free(stack);
    return result;
}

static PyObject *
run_twin(PyThreadState *ts, struct _PyInterpreterFrame *f, lx_entry *e)
{
    int internal = 1, err = 0;
    PyObject *result = NULL;
    PyObject *closure = NULL;
    /* the entry may be re-resolved while the twin runs; keep what we use */
    lx_entry keep = {0};
    keep.twin = Py_NewRef(e->twin);
    keep.cellmap = Py_XNewRef(e->cellmap);
    keep.probe_key = Py_NewRef(e->probe_key);
    keep.probe_value = Py_XNewRef(e->probe_value);
    keep.prepare = Py_NewRef(e->prepare);
    if (ensure_loaders(LX_FRAME_GLOBALS(f), &keep) < 0) {
        goto out;
    }
    closure = twin_closure(f, &keep, &err);
    if (err) {
        goto out;
    }
    if (LX_FRAME_LOCALS(f) != NULL) {
        internal = 0;
        H.n_twin_calls++;
        result = PyEval_EvalCodeEx(keep.twin, LX_FRAME_GLOBALS(f), LX_FRAME_LOCALS(f), NULL, 0,
                                   NULL, 0, NULL, 0, NULL, closure);
    }
    else {
        result = call_twin_function(f, &keep, closure, &internal);
    }
out:
    Py_XDECREF(closure);
    entry_drop(&keep);
    if (result == NULL && internal) {
        if (fail_closed()) {
            return frame_not_run(ts, f);
        }
        return run_prev(ts, f, 0);
    }
    lx_frame_discard(ts, f);   /* the twin ran in f's place */
    return result;
}

static PyObject *
lx_eval_frame_slow(PyThreadState *ts, struct _PyInterpreterFrame *f, int throwflag, lx_entry *e)
{
    if (!H.active || H.failed || lx_off || throwflag || H.resolver == NULL ||
        PyErr_Occurred()) {
        return run_prev(ts, f, throwflag);
    }
    if (e == NULL || e->gen != H.gen) {
        e = resolve(f, e);
        if (e == NULL) {
            if (fail_closed()) {
                return frame_not_run(ts, f);
            }
            return run_prev(ts, f, throwflag);
        }
    }
    if (e->twin == NULL || !lx_frame_is_fresh(f)) {
        return run_prev(ts, f, throwflag);
    }
    return run_twin(ts, f, e);
}

static PyObject *
lx_eval_frame(PyThreadState *ts, struct _PyInterpreterFrame *f, int throwflag)
{
    lx_entry *e = entry_get(LX_FRAME_CODE(f));
    if (e != NULL && e->twin == NULL && e->gen == H.gen) {
        return H.prev(ts, f, throwflag);     /* the non-target fast path */
    }
    return lx_eval_frame_slow(ts, f, throwflag, e);
}

/* ------------------------------------------------------------ Python API */

static int
check_interp(void)
{
    PyInterpreterState *interp = PyInterpreterState_Get();
    if (H.interp != NULL && H.interp != interp) {
        PyErr_SetString(PyExc_RuntimeError,
                        "lexecutor_c hook: already used by another interpreter");
        return -1;
    }
    return 0;
}

/* Verify the co_extra mirror on a throwaway code object. */
static int
verify_mirror(void)
{
    PyCodeObject *co = PyCode_NewEmpty("<lx>", "<lx>", 1);
    if (co == NULL) {
        return -1;
    }
    int ok = 0;
    lx_entry *e = PyMem_RawCalloc(1, sizeof(lx_entry));
    if (e == NULL) {
        Py_DECREF(co);
        PyErr_NoMemory();
        return -1;
    }
    if (PyUnstable_Code_SetExtra((PyObject *)co, H.extra_index, e) < 0) {
        PyMem_RawFree(e);
        Py_DECREF(co);
        return -1;
    }
    H.mirror_ok = 1;
    ok = entry_get(co) == e;
    void *via_api = NULL;
    if (PyUnstable_Code_GetExtra((PyObject *)co, H.extra_index, &via_api) < 0) {
        ok = 0;
        PyErr_Clear();
    }
    H.mirror_ok = ok && via_api == (void *)e;
    Py_DECREF(co);   /* frees e through entry_free */
    return 0;
}

static int
ensure_index(void)
{
    if (H.extra_index >= 0) {
        return 0;
    }
    Py_ssize_t idx = PyUnstable_Eval_RequestCodeExtraIndex(entry_free);
    if (idx < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "lexecutor_c hook: no free code extra slot");
        }
        return -1;
    }
    H.extra_index = idx;
    H.interp = PyInterpreterState_Get();
    return verify_mirror();
}

PyDoc_STRVAR(hook_install_doc,
"_hook_install(resolver)\n--\n\n"
"Install the frame-evaluation hook (or re-activate it) with resolver(func, code,\n"
"globals) -> None | (twin_code, cellmap, probe_key, probe_value, prepare).\n"
"Clears a previous failure and starts a new generation.");

static PyObject *
hook_install(PyObject *m, PyObject *resolver)
{
    if (!PyCallable_Check(resolver)) {
        PyErr_SetString(PyExc_TypeError, "_hook_install: resolver must be callable");
        return NULL;
    }
    if (check_interp() < 0 || ensure_index() < 0) {
        return NULL;
    }
    PyInterpreterState *interp = PyInterpreterState_Get();
    if (H.installed && _PyInterpreterState_GetEvalFrameFunc(interp) != lx_eval_frame) {
        PyErr_SetString(PyExc_RuntimeError,
                        "lexecutor_c hook: another tool's evaluation function is on top of "
                        "ours; remove it first (or _hook_forget() if it dropped ours)");
        return NULL;
    }
    if (!H.installed) {
        _PyFrameEvalFunction prev = _PyInterpreterState_GetEvalFrameFunc(interp);
        H.prev = prev != NULL ? prev : _PyEval_EvalFrameDefault;
        _PyInterpreterState_SetEvalFrameFunc(interp, lx_eval_frame);
        H.installed = 1;
        H.owner = PyModule_GetState(m);
    }
    Py_XSETREF(H.resolver, Py_NewRef(resolver));
    Py_CLEAR(H.last_error);
    H.failed = 0;
    H.active = 1;
    H.gen++;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(hook_uninstall_doc,
"_hook_uninstall() -> bool\n--\n\n"
"Stop substituting frames.  Restores the evaluation function that was in place\n"
"before _hook_install and returns True; returns False when another tool has\n"
"installed its own function on top of ours since (ours then stays in its chain\n"
"as a pass-through).  No error when the hook is not installed.");

static PyObject *
hook_uninstall(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    if (check_interp() < 0) {
        return NULL;
    }
    H.active = 0;
    H.gen++;
    Py_CLEAR(H.resolver);
    if (!H.installed) {
        Py_RETURN_TRUE;
    }
    PyInterpreterState *interp = PyInterpreterState_Get();
    if (_PyInterpreterState_GetEvalFrameFunc(interp) != lx_eval_frame) {
        Py_RETURN_FALSE;
    }
    _PyInterpreterState_SetEvalFrameFunc(interp, H.prev);
    H.installed = 0;
    H.owner = NULL;
    Py_RETURN_TRUE;
}

PyDoc_STRVAR(hook_forget_doc,
"_hook_forget()\n--\n\n"
"Forget that the hook is installed, after another tool replaced our evaluation\n"
"function without restoring it.  RuntimeError while ours is the current one.");

static PyObject *
hook_forget(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    if (check_interp() < 0) {
        return NULL;
    }
    if (_PyInterpreterState_GetEvalFrameFunc(PyInterpreterState_Get()) == lx_eval_frame) {
        PyErr_SetString(PyExc_RuntimeError, "_hook_forget: the hook is current; use _hook_uninstall");
        return NULL;
    }
    H.installed = 0;
    H.active = 0;
    H.owner = NULL;
    H.gen++;
    Py_CLEAR(H.resolver);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(hook_invalidate_doc,
"_hook_invalidate()\n--\n\n"
"Start a new generation: every code object is asked about again.");

static PyObject *
hook_invalidate(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    H.gen++;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(hook_thread_off_doc,
"_hook_thread_off(off) -> bool\n--\n\n"
"Set this thread's off switch (frames run unchanged while it is on); returns\n"
"the previous setting.");

static PyObject *
hook_thread_off(PyObject *Py_UNUSED(m), PyObject *arg)
{
    int v = PyObject_IsTrue(arg);
    if (v < 0) {
        return NULL;
    }
    return PyBool_FromLong(thread_off_set(v));
}

PyDoc_STRVAR(hook_info_doc,
"_hook_info() -> dict\n--\n\n"
"State of the hook: installed, active, failed, current (whether ours is the\n"
"interpreter's evaluation function), chained (whether it chains to another\n"
"tool's function), thread_off, generation, twin_calls, resolved, last_error.");

static PyObject *
hook_info(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(ignored))
{
    PyInterpreterState *interp = PyInterpreterState_Get();
    _PyFrameEvalFunction cur = _PyInterpreterState_GetEvalFrameFunc(interp);
    return Py_BuildValue(
        "{s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:K,s:n,s:n,s:O}",
        "installed", H.installed ? Py_True : Py_False,
        "active", H.active ? Py_True : Py_False,
        "failed", H.failed ? Py_True : Py_False,
        "current", cur == lx_eval_frame ? Py_True : Py_False,
        "chained", (H.installed && H.prev != _PyEval_EvalFrameDefault) ? Py_True : Py_False,
        "thread_off", lx_off ? Py_True : Py_False,
        "mirror", H.mirror_ok ? Py_True : Py_False,
        "generation", (unsigned long long)H.gen,
        "twin_calls", H.n_twin_calls,
        "resolved", H.n_resolved,
        "last_error", H.last_error != NULL ? H.last_error : Py_None);
}

PyDoc_STRVAR(hook_entry_doc,
"_hook_entry(code) -> None | tuple\n--\n\n"
"The hook's cached decision for a code object: None when none is cached for the\n"
"current generation, else (is_twin, twin_code_or_None).");

static PyObject *
hook_entry(PyObject *Py_UNUSED(m), PyObject *code)
{
    if (!PyCode_Check(code)) {
        PyErr_Format(PyExc_TypeError, "_hook_entry: expected a code object, not %.100s",
                     Py_TYPE(code)->tp_name);
        return NULL;
    }
    if (H.extra_index < 0) {
        Py_RETURN_NONE;
    }
    lx_entry *e = entry_get((PyCodeObject *)code);
    if (e == NULL || e->gen != H.gen) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(OO)", e->twin ? Py_True : Py_False, e->twin ? e->twin : Py_None);
}

/* A PEP 523 function that only forwards: what any hook costs on 3.11
 * (benchmarks/hook_overhead.py compares against it). */
static PyObject *
lx_eval_bare(PyThreadState *ts, struct _PyInterpreterFrame *f, int throwflag)
{
    return _PyEval_EvalFrameDefault(ts, f, throwflag);
}

PyDoc_STRVAR(hook_bare_doc,
"_hook_bare(on) -> bool\n--\n\n"
"Benchmark aid: install (on) or remove a PEP 523 function that only forwards to\n"
"the default evaluation.  Returns whether it changed anything; raises\n"
"RuntimeError while the real hook or another tool's function is installed.");

static PyObject *
hook_bare(PyObject *Py_UNUSED(m), PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0) {
        return NULL;
    }
    PyInterpreterState *interp = PyInterpreterState_Get();
    _PyFrameEvalFunction cur = _PyInterpreterState_GetEvalFrameFunc(interp);
    if (cur != lx_eval_bare && cur != _PyEval_EvalFrameDefault) {
        PyErr_SetString(PyExc_RuntimeError, "_hook_bare: another evaluation function is installed");
        return NULL;
    }
    if ((cur == lx_eval_bare) == on) {
        Py_RETURN_FALSE;
    }
    _PyInterpreterState_SetEvalFrameFunc(interp, on ? lx_eval_bare : _PyEval_EvalFrameDefault);
    Py_RETURN_TRUE;
}

static PyMethodDef evalframe_methods[] = {
    {"_hook_bare", hook_bare, METH_O, hook_bare_doc},
    {"_hook_install", hook_install, METH_O, hook_install_doc},
    {"_hook_uninstall", hook_uninstall, METH_NOARGS, hook_uninstall_doc},
    {"_hook_forget", hook_forget, METH_NOARGS, hook_forget_doc},
    {"_hook_invalidate", hook_invalidate, METH_NOARGS, hook_invalidate_doc},
    {"_hook_thread_off", hook_thread_off, METH_O, hook_thread_off_doc},
    {"_hook_info", hook_info, METH_NOARGS, hook_info_doc},
    {"_hook_entry", hook_entry, METH_O, hook_entry_doc},
    {NULL, NULL, 0, NULL},
};

int
lx_evalframe_exec(PyObject *m, lx_state *st)
{
    (void)st;
    return PyModule_AddFunctions(m, evalframe_methods);
}

void
lx_evalframe_clear(lx_state *st)
{
    /* The module that installed the hook is going away (interpreter
     * shutdown): take the hook out of the interpreter if it is on top. */
    if (!H.installed || H.owner != (void *)st) {
        return;
    }
    H.active = 0;
    H.gen++;
    Py_CLEAR(H.resolver);
    PyInterpreterState *interp = PyInterpreterState_Get();
    if (_PyInterpreterState_GetEvalFrameFunc(interp) == lx_eval_frame) {
        _PyInterpreterState_SetEvalFrameFunc(interp, H.prev);
        H.installed = 0;
        H.owner = NULL;
    }
}
