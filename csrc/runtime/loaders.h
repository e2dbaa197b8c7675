/* runtime/loaders.h - layer 4 of the runtime, the top: the loaders
 * (loaders.c) and the Runtime type whose methods they are (runtime.c).
 * Includes layer 3; see runtime/objects.h for the layering. */
#ifndef LX_RUNTIME_LOADERS_H
#define LX_RUNTIME_LOADERS_H

#include "runtime/predict.h"

#define LX_MAX_IID ((Py_ssize_t)1 << 26)

static inline lx_runtime_state *
RS(lx_runtime_obj *rt)
{
    return &rt->st->rt;
}

/* iid argument: an int in [0, LX_MAX_IID). */
static inline Py_ssize_t
get_iid(const char *fname, PyObject *o)
{
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): iid must be an int, not %.100s", fname,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t iid;
    if (PyLong_CheckExact(o) && PyUnstable_Long_IsCompact((PyLongObject *)o)) {
        iid = PyUnstable_Long_CompactValue((PyLongObject *)o);   /* the usual case */
    }
    else {
        iid = PyLong_AsSsize_t(o);
        if (iid == -1 && PyErr_Occurred()) {
            return -1;
        }
    }
    if (iid < 0 || iid >= LX_MAX_IID) {
        PyErr_Format(PyExc_ValueError, "%s(): iid %zd out of range [0, %zd)", fname, iid,
                     LX_MAX_IID);
        return -1;
    }
    return iid;
}

/* The loaders: METH_FASTCALL methods of Runtime (_c_ with METH_KEYWORDS). */
PyObject *lx_loader_n(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *lx_loader_a(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *lx_loader_c(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames);
PyObject *lx_loader_l(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *lx_loader_i(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs);

/* Room for the reached-marker bit of every iid below need * 8. */
int lx_grow_bits(lx_runtime_obj *rt, Py_ssize_t need);

/* guard.c: the loop guards (docs/LOADERS.md, docs/RUNTIME.md "Loops that
 * injected values keep alive"), _LoopGuard into the module state. */
PyObject *lx_loader_w(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *lx_loader_f(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs);
int lx_guard_exec(PyObject *m, lx_state *st);
#define LX_LOOP_BOUND_DEFAULT 3
/* a guarded for loop may run this many times loop_bound busy iterations */
#define LX_FOR_BOUND_FACTOR 32

#endif
