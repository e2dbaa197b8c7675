/* runtime/dummy.h - layer 2 of the runtime: Dummy objects (dummy.c) and
 * concretization, which makes them (concretize.c).  Includes layer 1; see
 * runtime/objects.h for the layering. */
#ifndef LX_RUNTIME_DUMMY_H
#define LX_RUNTIME_DUMMY_H

#include "runtime/values.h"

/* dummy.c: the types Dummy, DummyResource, _DummyIter into the module. */
int lx_dummy_exec(PyObject *m, lx_state *st);
PyObject *lx_dummy_new(lx_state *st, PyObject *type, lx_runtime_obj *rt,
                       PyObject *name, int flags);
static inline int
lx_is_dummy(lx_state *st, PyObject *o)
{
    PyTypeObject *t = Py_TYPE(o);
    return t == (PyTypeObject *)st->rt.dummy_type
        || t == (PyTypeObject *)st->rt.resource_type;
}
/* Attribute read / call on a Dummy at site iid; the value comes from rt's
 * predictor through st->rt.inject (set by the layer above). */
PyObject *lx_dummy_getattr_at(lx_dummy_obj *d, PyObject *name, Py_ssize_t iid,
                              lx_runtime_obj *rt);
PyObject *lx_dummy_call_at(lx_dummy_obj *d, Py_ssize_t iid, lx_runtime_obj *rt,
                           PyObject *name);

/* concretize.c: a value of class cls (fine or coarse index); rt (may be NULL)
 * is the Runtime that Dummies made for it belong to. */
int lx_concretize_exec(PyObject *m, lx_state *st);   /* concretize() into the module */
PyObject *lx_concretize(lx_state *st, lx_runtime_obj *rt, int cls, int randomize,
                        uint64_t seed, PyObject *name);

#endif
