/* runtime/dummy.c - Dummy and DummyResource, layer 2 of the runtime: the injected stand-ins for missing
 * objects, callables and resources.  They never raise by themselves; what
 * each protocol returns is listed in docs/RUNTIME.md ("Dummy behaviour").
 *
 * Ownership: a Dummy holds a strong reference to the Runtime that injected
 * it (so attribute reads and calls can ask that Runtime's predictor); the
 * Runtime keeps injected values of names alive, which forms a cycle that
 * tp_traverse / tp_clear on both sides let the GC break.
 */
#include "runtime/dummy.h"
#include <structmember.h>
#include <opcode.h>           /* UNPACK_SEQUENCE, UNPACK_EX, EXTENDED_ARG */

/* ---- _DummyIter: one helper type for iteration and await ----------------- */

enum { ITER_ONCE, ITER_RESULT, ITER_ASYNC_STOP };

typedef struct {
    PyObject_HEAD
    PyObject *value;   /* ONCE: the item yielded; RESULT: the await result */
    int mode;
    int done;
    Py_ssize_t left;   /* ONCE: how many more times the item is yielded */
} lx_iter_obj;

static PyObject *
iter_new(lx_state *st, int mode, PyObject *value)
{
    PyTypeObject *tp = (PyTypeObject *)st->rt.iter_type;
    lx_iter_obj *it = (lx_iter_obj *)tp->tp_alloc(tp, 0);
    if (it == NULL) {
        return NULL;
    }
    it->value = Py_XNewRef(value);
    it->mode = mode;
    it->done = 0;
    it->left = 1;
    return (PyObject *)it;
}

static int
iter_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(((lx_iter_obj *)self)->value);
    return 0;
}

static int
iter_clear(PyObject *self)
{
    Py_CLEAR(((lx_iter_obj *)self)->value);
    return 0;
}

static void
iter_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    (void)iter_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *
iter_next(PyObject *self)
{
    lx_iter_obj *it = (lx_iter_obj *)self;
    if (it->done) {
        return NULL;              /* plain exhaustion: StopIteration */
    }
    if (it->mode == ITER_ONCE) {
        if (it->left <= 0) {
            it->done = 1;
            return NULL;
        }
        it->left--;
        return Py_NewRef(it->value);
    }
    it->done = 1;
    switch (it->mode) {
    case ITER_RESULT: {
        /* StopIteration(value) made as an instance, so that a tuple or an
         * exception is carried as the value itself (what the private
         * _PyGen_SetStopIterationValue does; 3.13 no longer declares it) */
        PyObject *stop = PyObject_CallOneArg(PyExc_StopIteration, it->value);
        if (stop != NULL) {
            PyErr_SetObject(PyExc_StopIteration, stop);
            Py_DECREF(stop);
        }
        return NULL;
    }
    default:
        PyErr_SetNone(PyExc_StopAsyncIteration);
        return NULL;
    }
}

static PyObject *
iter_self(PyObject *self)
{
    return Py_NewRef(self);
}

static PyType_Slot iter_slots[] = {
    {Py_tp_dealloc, iter_dealloc},
    {Py_tp_traverse, iter_traverse},
    {Py_tp_clear, iter_clear},
    {Py_tp_iter, iter_self},
    {Py_tp_iternext, iter_next},
    {Py_am_await, iter_self},
    {Py_tp_doc, "Iterator / awaitable handed out by Dummy objects."},
    {0, NULL},
};

static PyType_Spec iter_spec = {
    .name = "lexecutor_c._core._DummyIter",
    .basicsize = sizeof(lx_iter_obj),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = iter_slots,
};

/* ---- Dummy: allocation, GC ---------------------------------------------- */

static void dummy_dealloc(PyObject *self);

static inline lx_state *
dummy_state(PyObject *self)
{
    return (lx_state *)PyType_GetModuleState(Py_TYPE(self));
}

static inline int
is_dummy(PyObject *o)
{
    return Py_TYPE(o)->tp_dealloc == dummy_dealloc;
}

PyObject *
lx_dummy_new(lx_state *st, PyObject *type, lx_runtime_obj *rt, PyObject *name, int flags)
{
    PyTypeObject *tp = (PyTypeObject *)type;
    lx_dummy_obj *d = (lx_dummy_obj *)tp->tp_alloc(tp, 0);
    if (d == NULL) {
        return NULL;
    }
    d->rt = Py_XNewRef((PyObject *)rt);
    d->name = Py_NewRef(name != NULL ? name : st->rt.s_empty);
    d->attrs = NULL;
    d->items = NULL;
    d->flags = flags;
    d->weakreflist = NULL;
    return (PyObject *)d;
}

/* Dummy(name="") / DummyResource(name=""): made from Python they belong to
 * no Runtime and answer attribute reads and calls with fresh Dummies. */
static PyObject *
dummy_tp_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"name", NULL};
    PyObject *name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|U:Dummy", kwlist, &name)) {
        return NULL;
    }
    lx_state *st = (lx_state *)PyType_GetModuleState(type);
    if (st == NULL) {
        return NULL;
    }
    return lx_dummy_new(st, (PyObject *)type, NULL, name, 0);
}

static int
dummy_traverse(PyObject *self, visitproc visit, void *arg)
{
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(d->rt);
    Py_VISIT(d->name);
    Py_VISIT(d->attrs);
    Py_VISIT(d->items);
    return 0;
}

static int
dummy_clear(PyObject *self)
{
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    Py_CLEAR(d->rt);
    Py_CLEAR(d->attrs);
    Py_CLEAR(d->items);
    /* name stays until dealloc so repr() of a half-cleared Dummy works */
    return 0;
}

static void
dummy_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    PyObject_GC_UnTrack(self);
    if (d->weakreflist != NULL) {
        PyObject_ClearWeakRefs(self);
    }
    (void)dummy_clear(self);
    Py_CLEAR(d->name);
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* Count an operation on a Dummy in its Runtime's activity (the loop
 * guards of runtime/guard.c end loops whose iterations touch injected
 * values).  Dummies made outside a Runtime count nowhere. */
static inline void
touch(PyObject *self)
{
    PyObject *rt = ((lx_dummy_obj *)self)->rt;
    if (rt != NULL) {
        ((lx_runtime_obj *)rt)->activity++;
    }
}

/* A fresh Dummy standing for the result of an operation on d. */
static PyObject *
derived(PyObject *self)
{
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    lx_state *st = dummy_state(self);
    return lx_dummy_new(st, st->rt.dummy_type, (lx_runtime_obj *)d->rt, d->name, 0);
}

/* ---- attributes ------------------------------------------------------------ */

/* The value the predictor gives for an attribute read or a call on a Dummy:
 * lx_inject of the layer above, reached through the module state so that this
 * file needs no predictor header.  Same results as lx_inject. */
static int
ask_predictor(lx_state *st, lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind,
              PyObject *name, PyObject **out)
{
    if (st->rt.inject == NULL) {
        *out = NULL;
        PyErr_SetString(PyExc_SystemError, "lexecutor_c: the predictor layer is not set up");
        return -1;
    }
    return st->rt.inject(st, rt, iid, kind, name, out);
}

static int
is_dunder(PyObject *name)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    if (n < 5) {
        return 0;
    }
    int k = PyUnicode_KIND(name);
    const void *p = PyUnicode_DATA(name);
    return PyUnicode_READ(k, p, 0) == '_' && PyUnicode_READ(k, p, 1) == '_'
           && PyUnicode_READ(k, p, n - 1) == '_' && PyUnicode_READ(k, p, n - 2) == '_';
}

/* Attribute read on a Dummy, Python equivalent:
 *     try: return object.__getattribute__(d, name)      # type attributes
 *     except AttributeError: pass
 *     if name in d._attrs: return d._attrs[name]
 *     if is_dunder(name) and iid == 0: raise AttributeError  # protocol probes
 *     d._attrs[name] = v = rt.inject(iid, "attribute", name)
 *     return v
 * iid is the _a_ site (0 for reads that do not come through _a_); rt the
 * Runtime whose predictor answers (the Dummy's own one outside _a_). */
PyObject *
lx_dummy_getattr_at(lx_dummy_obj *d, PyObject *name, Py_ssize_t iid, lx_runtime_obj *rt)
{
    PyObject *self = (PyObject *)d, *res = NULL;
    touch(self);
    res = PyObject_GenericGetAttr(self, name);
    if (res != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError)) {
        return res;
    }
    if (d->attrs != NULL) {
        res = PyDict_GetItemWithError(d->attrs, name);   /* borrowed */
        if (res != NULL) {
            PyErr_Clear();
            return Py_NewRef(res);
        }
    }
    if (iid == 0 && is_dunder(name)) {
        return NULL;   /* keep the AttributeError: protocol probes (copy, pickle, numpy) */
    }
    PyErr_Clear();
    lx_state *st = dummy_state(self);
    int r = ask_predictor(st, rt, iid, st->rt.s_attribute, name, &res);
    if (r == LX_NO_INJECT) {
        PyErr_Format(PyExc_AttributeError, "'%.100s' object has no attribute '%U'",
                     Py_TYPE(self)->tp_name, name);
        return NULL;
    }
    if (r < 0) {
        return NULL;
    }
    if (d->attrs == NULL && (d->attrs = PyDict_New()) == NULL) {
        Py_DECREF(res);
        return NULL;
    }
    if (PyDict_SetItem(d->attrs, name, res) < 0) {
        Py_CLEAR(res);
    }
    return res;
}

static PyObject *
dummy_getattro(PyObject *self, PyObject *name)
{
    if (!PyUnicode_Check(name)) {
        return PyObject_GenericGetAttr(self, name);   /* raises the TypeError */
    }
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    return lx_dummy_getattr_at(d, name, 0, (lx_runtime_obj *)d->rt);
}

/* setattr stores, delattr forgets; neither raises for a missing name. */
static int
dummy_setattro(PyObject *self, PyObject *name, PyObject *value)
{
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "attribute name must be string, not '%.200s'",
                     Py_TYPE(name)->tp_name);
        return -1;
    }
    if (value == NULL) {
        if (d->attrs != NULL && PyDict_DelItem(d->attrs, name) < 0) {
            if (!PyErr_ExceptionMatches(PyExc_KeyError)) {
                return -1;
            }
            PyErr_Clear();
        }
        return 0;
    }
    if (d->attrs == NULL && (d->attrs = PyDict_New()) == NULL) {
        return -1;
    }
    return PyDict_SetItem(d->attrs, name, value);
}

/* ---- calls --------------------------------------------------------------- */

/* Call of a Dummy: the predictor decides the return value (kind "call"). */
PyObject *
lx_dummy_call_at(lx_dummy_obj *d, Py_ssize_t iid, lx_runtime_obj *rt, PyObject *name)
{
    PyObject *res = NULL;
    lx_state *st = dummy_state((PyObject *)d);
    touch((PyObject *)d);
    int r = ask_predictor(st, rt, iid, st->rt.s_call, name != NULL ? name : d->name, &res);
    if (r == LX_NO_INJECT) {
        PyErr_Format(PyExc_TypeError, "'%.100s' object is not callable (predictor 'as-is')",
                     Py_TYPE(d)->tp_name);
        return NULL;
    }
    return r < 0 ? NULL : res;
}

static PyObject *
dummy_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)args;
    (void)kwargs;
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    return lx_dummy_call_at(d, 0, (lx_runtime_obj *)d->rt, NULL);
}

/* ---- str / repr / format / hash / compare -------------------------------- */

static PyObject *
dummy_repr(PyObject *self)
{
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    const char *what = (d->flags & LX_DUMMY_CALLABLE) ? "injected callable"
                                                      : _PyType_Name(Py_TYPE(self));
    if (d->name == NULL || PyUnicode_GET_LENGTH(d->name) == 0) {
        return PyUnicode_FromFormat("<%s>", what);
    }
    return PyUnicode_FromFormat("<%s %R>", what, d->name);
}

/* format(d, spec): str(d) for an empty spec; else the spec applied to str(d),
 * else to the int 1, else str(d) unformatted. */
static PyObject *
dummy_format(PyObject *self, PyObject *spec)
{
    PyObject *s = NULL, *one = NULL, *res = NULL;
    if (!PyUnicode_Check(spec)) {
        PyErr_Format(PyExc_TypeError, "format spec must be str, not %.100s",
                     Py_TYPE(spec)->tp_name);
        return NULL;
    }
    s = PyObject_Str(self);
    if (s == NULL || PyUnicode_GET_LENGTH(spec) == 0) {
        return s;
    }
    res = PyObject_Format(s, spec);
    if (res == NULL && (PyErr_ExceptionMatches(PyExc_ValueError)
                        || PyErr_ExceptionMatches(PyExc_TypeError))) {
        PyErr_Clear();
        one = PyLong_FromLong(1);
        if (one == NULL) {
            goto done;
        }
        res = PyObject_Format(one, spec);
        if (res == NULL && (PyErr_ExceptionMatches(PyExc_ValueError)
                            || PyErr_ExceptionMatches(PyExc_TypeError))) {
            PyErr_Clear();
            res = Py_NewRef(s);
        }
    }
done:
    Py_XDECREF(one);
    Py_DECREF(s);
    return res;
}

static Py_hash_t
dummy_hash(PyObject *self)
{
    return Py_HashPointer(self);
}

/* == is identity, ordering is always False (like NaN). */
static PyObject *
dummy_richcompare(PyObject *a, PyObject *b, int op)
{
    int r = 0;
    touch(is_dummy(a) ? a : b);
    if (op == Py_EQ) {
        r = (a == b);
    }
    else if (op == Py_NE) {
        r = (a != b);
    }
    return Py_NewRef(r ? Py_True : Py_False);
}

/* ---- numbers ---------------------------------------------------------------- */

static PyObject *
dummy_binop(PyObject *a, PyObject *b)
{
    PyObject *d = is_dummy(a) ? a : b;
    touch(d);
    return derived(d);
}

static PyObject *
dummy_ternop(PyObject *a, PyObject *b, PyObject *c)
{
    (void)c;
    return dummy_binop(a, b);
}

static PyObject *
dummy_inplace(PyObject *a, PyObject *b)
{
    (void)b;
    touch(a);
    return Py_NewRef(a);
}

static PyObject *
dummy_inplace_pow(PyObject *a, PyObject *b, PyObject *c)
{
    (void)b;
    (void)c;
    return Py_NewRef(a);
}

static PyObject *
dummy_divmod(PyObject *a, PyObject *b)
{
    PyObject *x = dummy_binop(a, b), *y = NULL, *res = NULL;
    if (x != NULL && (y = dummy_binop(a, b)) != NULL) {
        res = PyTuple_Pack(2, x, y);
    }
    Py_XDECREF(x);
    Py_XDECREF(y);
    return res;
}

static PyObject *
dummy_unary(PyObject *a)
{
    touch(a);
    return derived(a);
}

static int
dummy_bool(PyObject *a)
{
    touch(a);
    return 1;
}

static PyObject *
dummy_int(PyObject *a)
{
    touch(a);
    return PyLong_FromLong(1);
}

static PyObject *
dummy_float(PyObject *a)
{
    touch(a);
    return PyFloat_FromDouble(1.0);
}

/* ---- containers -------------------------------------------------------------- */

static Py_ssize_t
dummy_len(PyObject *a)
{
    touch(a);
    return 1;
}

/* Look key up in d->items: 1 found (*out new ref), 0 not there or key
 * unhashable, -1 error. */
static int
items_get(lx_dummy_obj *d, PyObject *key, PyObject **out)
{
    *out = NULL;
    if (d->items == NULL) {
        return 0;
    }
    PyObject *v = PyDict_GetItemWithError(d->items, key);
    if (v != NULL) {
        *out = Py_NewRef(v);
        return 1;
    }
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
            return -1;
        }
        PyErr_Clear();
    }
    return 0;
}

static int
dummy_contains(PyObject *self, PyObject *key)
{
    PyObject *v;
    touch(self);
    int r = items_get((lx_dummy_obj *)self, key, &v);
    Py_XDECREF(v);
    return r;
}

/* d[key]: what was stored under key, else a new Dummy (stored when key is
 * hashable, so d[k] is d[k]). */
static PyObject *
dummy_getitem(PyObject *self, PyObject *key)
{
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    PyObject *v;
    touch(self);
    int r = items_get(d, key, &v);
    if (r != 0) {
        return r > 0 ? v : NULL;
    }
    v = derived(self);
    if (v == NULL) {
        return NULL;
    }
    if (d->items == NULL && (d->items = PyDict_New()) == NULL) {
        Py_DECREF(v);
        return NULL;
    }
    if (PyDict_SetItem(d->items, key, v) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
            Py_DECREF(v);
            return NULL;
        }
        PyErr_Clear();   /* unhashable key (e.g. a slice): not remembered */
    }
    return v;
}

static int
dummy_setitem(PyObject *self, PyObject *key, PyObject *value)
{
    lx_dummy_obj *d = (lx_dummy_obj *)self;
    int r = 0;
    touch(self);
    if (value == NULL) {
        if (d->items != NULL && PyDict_DelItem(d->items, key) < 0) {
            r = -1;
        }
    }
    else {
        if (d->items == NULL && (d->items = PyDict_New()) == NULL) {
            return -1;
        }
        r = PyDict_SetItem(d->items, key, value);
    }
    if (r < 0 && (PyErr_ExceptionMatches(PyExc_KeyError)
                  || PyErr_ExceptionMatches(PyExc_TypeError))) {
        PyErr_Clear();   /* missing or unhashable key: nothing to do */
        r = 0;
    }
    return r;
}

/* How many items the instruction now running in the innermost Python frame
 * takes from an iterator: n for ``a, b, c = d`` (UNPACK_SEQUENCE n), the
 * names before and after the star for ``a, *b, c = d`` (UNPACK_EX), else
 * -1 (a for loop, list(d), a call: no width).  The code's bytes are read as
 * the compiler wrote them (PyCode_GetCode), not as specialised. */
static Py_ssize_t
unpack_width(void)
{
    PyFrameObject *f = PyEval_GetFrame();            /* borrowed */
    if (f == NULL) {
        return -1;
    }
    int lasti = PyFrame_GetLasti(f);
    if (lasti < 0) {
        return -1;
    }
    PyCodeObject *co = PyFrame_GetCode(f);
    PyObject *code = PyCode_GetCode(co);
    Py_DECREF(co);
    if (code == NULL) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t n = -1;
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(code);
    Py_ssize_t size = PyBytes_GET_SIZE(code);
    if (lasti + 1 < size) {
        int op = b[lasti], arg = b[lasti + 1];
        if (lasti >= 2 && b[lasti - 2] == EXTENDED_ARG) {
            arg |= b[lasti - 1] << 8;        /* a, *b, c = d: 1 | 1 << 8 */
        }
        if (op == UNPACK_SEQUENCE) {
            n = arg;
        } else if (op == UNPACK_EX) {
            n = (arg & 0xff) + (arg >> 8);   /* the starred name gets none */
            n = n > 0 ? n : 1;
        }
    }
    Py_DECREF(code);
    return n;
}

/* iter(d): one derived item; as many of it as an unpacking takes
 * (``(a, b), = d`` and ``a, b = d`` both work, each name the item) */
static PyObject *
dummy_iter(PyObject *self)
{
    touch(self);
    PyObject *item = derived(self);
    if (item == NULL) {
        return NULL;
    }
    PyObject *it = iter_new(dummy_state(self), ITER_ONCE, item);
    Py_DECREF(item);
    Py_ssize_t width = unpack_width();
    if (it != NULL && width >= 0) {
        ((lx_iter_obj *)it)->left = width;
    }
    return it;
}

/* ---- async --------------------------------------------------------------------- */

/* await d -> d */
static PyObject *
dummy_await(PyObject *self)
{
    return iter_new(dummy_state(self), ITER_RESULT, self);
}

static PyObject *
dummy_aiter(PyObject *self)
{
    return Py_NewRef(self);
}

/* async for: no items */
static PyObject *
dummy_anext(PyObject *self)
{
    return iter_new(dummy_state(self), ITER_ASYNC_STOP, NULL);
}

/* ---- methods ----------------------------------------------------------------- */

static PyObject *
m_self(PyObject *self, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(self);
}

static PyObject *
m_self_varargs(PyObject *self, PyObject *args)
{
    (void)args;
    return Py_NewRef(self);
}

static PyObject *
m_false_varargs(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    Py_RETURN_FALSE;
}

static PyObject *
m_aenter(PyObject *self, PyObject *unused)
{
    (void)unused;
    return iter_new(dummy_state(self), ITER_RESULT, self);
}

static PyObject *
m_aexit(PyObject *self, PyObject *args)
{
    (void)args;
    return iter_new(dummy_state(self), ITER_RESULT, Py_False);
}

static PyObject *
m_reversed(PyObject *self, PyObject *unused)
{
    (void)unused;
    return dummy_iter(self);
}

static PyObject *
m_mro_entries(PyObject *self, PyObject *bases)
{
    (void)self;
    (void)bases;
    return PyTuple_New(0);
}

static PyObject *
m_round(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    return PyLong_FromLong(1);
}

static PyMethodDef dummy_methods[] = {
    {"__enter__", m_self, METH_NOARGS, "with: returns the Dummy itself."},
    {"__exit__", m_false_varargs, METH_VARARGS, "with: returns False (exceptions propagate)."},
    {"__aenter__", m_aenter, METH_NOARGS, "async with: awaits to the Dummy itself."},
    {"__aexit__", m_aexit, METH_VARARGS, "async with: awaits to False."},
    {"__format__", dummy_format, METH_O, "format(d, spec) never fails."},
    {"__instancecheck__", m_false_varargs, METH_VARARGS, "isinstance(x, d) is False."},
    {"__subclasscheck__", m_false_varargs, METH_VARARGS, "issubclass(c, d) is False."},
    {"__mro_entries__", m_mro_entries, METH_O, "class C(d): drops d from the bases."},
    {"__copy__", m_self, METH_NOARGS, "copy.copy(d) is d."},
    {"__deepcopy__", m_self_varargs, METH_VARARGS, "copy.deepcopy(d) is d."},
    {"__reversed__", m_reversed, METH_NOARGS,
     "reversed(d): like iter(d)."},
    {"__round__", m_round, METH_VARARGS, "round(d) == 1."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef dummy_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(lx_dummy_obj, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot dummy_slots[] = {
    {Py_tp_new, dummy_tp_new},
    {Py_tp_dealloc, dummy_dealloc},
    {Py_tp_traverse, dummy_traverse},
    {Py_tp_clear, dummy_clear},
    {Py_tp_getattro, dummy_getattro},
    {Py_tp_setattro, dummy_setattro},
    {Py_tp_call, dummy_call},
    {Py_tp_repr, dummy_repr},
    {Py_tp_hash, dummy_hash},
    {Py_tp_richcompare, dummy_richcompare},
    {Py_tp_iter, dummy_iter},
    {Py_tp_methods, dummy_methods},
    {Py_tp_members, dummy_members},
    {Py_am_await, dummy_await},
    {Py_am_aiter, dummy_aiter},
    {Py_am_anext, dummy_anext},
    {Py_nb_add, dummy_binop},
    {Py_nb_subtract, dummy_binop},
    {Py_nb_multiply, dummy_binop},
    {Py_nb_remainder, dummy_binop},
    {Py_nb_divmod, dummy_divmod},
    {Py_nb_power, dummy_ternop},
    {Py_nb_negative, dummy_unary},
    {Py_nb_positive, dummy_unary},
    {Py_nb_absolute, dummy_unary},
    {Py_nb_invert, dummy_unary},
    {Py_nb_bool, dummy_bool},
    {Py_nb_lshift, dummy_binop},
    {Py_nb_rshift, dummy_binop},
    {Py_nb_and, dummy_binop},
    {Py_nb_xor, dummy_binop},
    {Py_nb_or, dummy_binop},
    {Py_nb_int, dummy_int},
    {Py_nb_float, dummy_float},
    {Py_nb_index, dummy_int},
    {Py_nb_floor_divide, dummy_binop},
    {Py_nb_true_divide, dummy_binop},
    {Py_nb_matrix_multiply, dummy_binop},
    {Py_nb_inplace_add, dummy_inplace},
    {Py_nb_inplace_subtract, dummy_inplace},
    {Py_nb_inplace_multiply, dummy_inplace},
    {Py_nb_inplace_remainder, dummy_inplace},
    {Py_nb_inplace_power, dummy_inplace_pow},
    {Py_nb_inplace_lshift, dummy_inplace},
    {Py_nb_inplace_rshift, dummy_inplace},
    {Py_nb_inplace_and, dummy_inplace},
    {Py_nb_inplace_xor, dummy_inplace},
    {Py_nb_inplace_or, dummy_inplace},
    {Py_nb_inplace_floor_divide, dummy_inplace},
    {Py_nb_inplace_true_divide, dummy_inplace},
    {Py_nb_inplace_matrix_multiply, dummy_inplace},
    {Py_sq_length, dummy_len},
    {Py_sq_contains, dummy_contains},
    {Py_mp_length, dummy_len},
    {Py_mp_subscript, dummy_getitem},
    {Py_mp_ass_subscript, dummy_setitem},
    {Py_tp_doc, "Dummy(name='')\n\nStand-in for a missing object; never raises by itself. "
                "See docs/RUNTIME.md."},
    {0, NULL},
};

static PyType_Spec dummy_spec = {
    .name = "lexecutor_c._core.Dummy",
    .basicsize = sizeof(lx_dummy_obj),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = dummy_slots,
};

/* DummyResource has the same behaviour; it is a distinct type so that it
 * abstracts to "resource" and reads as one in reprs. */
static PyType_Spec resource_spec = {
    .name = "lexecutor_c._core.DummyResource",
    .basicsize = sizeof(lx_dummy_obj),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = dummy_slots,
};

int
lx_dummy_exec(PyObject *m, lx_state *st)
{
    lx_runtime_state *rs = &st->rt;
    rs->iter_type = PyType_FromModuleAndSpec(m, &iter_spec, NULL);
    if (rs->iter_type == NULL) {
        return -1;
    }
    rs->dummy_type = PyType_FromModuleAndSpec(m, &dummy_spec, NULL);
    if (rs->dummy_type == NULL || PyModule_AddType(m, (PyTypeObject *)rs->dummy_type) < 0) {
        return -1;
    }
    rs->resource_type = PyType_FromModuleAndSpec(m, &resource_spec, NULL);
    if (rs->resource_type == NULL
        || PyModule_AddType(m, (PyTypeObject *)rs->resource_type) < 0) {
        return -1;
    }
    return 0;
}
