/* runtime/guard.c - loop guards, layer 4 of the runtime (with loaders.c).
 *
 * Injected values can keep a loop alive for ever: a Dummy is always truthy,
 * `current = current.parent` over Dummies never reaches None, a stand-in
 * call never returns the value that ends the loop.  The instrumenter wraps
 * every while condition and every (non-async) for iterable:
 *
 *     while _w_(m, (cond)):          for x in _f_(m, (iterable)):
 *
 * m being the iid of the loop body's line marker.  The Runtime counts its
 * *activity*: every injection and every operation on one of its Dummies.
 * An iteration during which the activity changed is *busy*; a loop whose
 * busy iterations reach the bound ends as if its condition were false / its
 * iterator exhausted (its else clause runs), and rt.bounded_loops counts it.
 * Bounds: loop_bound (Runtime argument, default 3) busy iterations for a
 * while loop, LX_FOR_BOUND_FACTOR times that for a for loop (they end on
 * their own unless the iterable grows or never ends).  Loops that touch no
 * injected value are never bounded, and while no value was injected in the
 * run the guards cost one C call (while) or nothing per item (for, which
 * then gets its iterable back untouched).  Choice and limits:
 * docs/RUNTIME.md, "Loops that injected values keep alive".
 */
#include "runtime/loaders.h"

/* ---- bookkeeping ------------------------------------------------------------ */

/* rt.bounded_loops[iid] += 1 */
static int
note_bounded(lx_runtime_obj *rt, Py_ssize_t iid)
{
    PyObject *key = PyLong_FromSsize_t(iid), *n = NULL;
    long count = 0;
    int r = -1;
    if (key == NULL || rt->bounded == NULL) {
        goto done;
    }
    PyObject *old = PyDict_GetItemWithError(rt->bounded, key);   /* borrowed */
    if (old == NULL && PyErr_Occurred()) {
        goto done;
    }
    if (old != NULL) {
        count = PyLong_AsLong(old);
        if (count == -1 && PyErr_Occurred()) {
            goto done;
        }
    }
    n = PyLong_FromLong(count + 1);
    if (n != NULL) {
        r = PyDict_SetItem(rt->bounded, key, n);
    }
done:
    Py_XDECREF(n);
    Py_XDECREF(key);
    return r;
}

/* The state of the while loop iid (zeroed when new), or NULL with
 * MemoryError: an open-addressing table (linear probing, at most half
 * full) in rt->loops / rt->nloops, so an iid's size costs nothing. */
static lx_loop_state *
loop_state(lx_runtime_obj *rt, Py_ssize_t iid)
{
    uint64_t key = (uint64_t)iid + 1;          /* 0 marks an empty slot */
    if (rt->loops == NULL || (rt->nloops_used + 1) * 2 > rt->nloops) {
        Py_ssize_t n = rt->nloops ? rt->nloops * 2 : 64;
        lx_loop_state *p = PyMem_Calloc((size_t)n, sizeof(lx_loop_state));
        if (p == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        for (Py_ssize_t i = 0; i < rt->nloops; i++) {
            lx_loop_state *o = &rt->loops[i];
            if (o->key != 0) {
                size_t j = (size_t)(lx_mix64(o->key) & (uint64_t)(n - 1));
                while (p[j].key != 0) {
                    j = (j + 1) & (size_t)(n - 1);
                }
                p[j] = *o;
            }
        }
        PyMem_Free(rt->loops);
        rt->loops = p;
        rt->nloops = n;
    }
    size_t mask = (size_t)(rt->nloops - 1);
    size_t j = (size_t)(lx_mix64(key) & mask);
    while (rt->loops[j].key != 0 && rt->loops[j].key != key) {
        j = (j + 1) & mask;
    }
    if (rt->loops[j].key == 0) {
        rt->loops[j].key = key;
        rt->nloops_used++;
    }
    return &rt->loops[j];
}

/* ---- _w_ --------------------------------------------------------------------- */

/* _w_(iid, cond) -- the condition of a guarded while loop.
 *     t = bool(cond)
 *     if loop_bound == 0 or nothing was injected this run: return t
 *     s = loops[iid]
 *     if not t: s.seen = s.busy = 0; return False           # the loop ends
 *     if s.seen and s.last != activity: s.busy += 1        # a busy iteration
 *     s.seen, s.last = True, activity
 *     if s.busy >= loop_bound: s.seen = s.busy = 0; bounded_loops[iid] += 1; return False
 *     return True */
static PyObject *new_forever_guard(lx_runtime_obj *rt, Py_ssize_t iid);

PyObject *
lx_loader_w(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 && nargs != 2) {
        PyErr_Format(PyExc_TypeError, "_w_() takes 1 or 2 arguments (%zd given)", nargs);
        return NULL;
    }
    Py_ssize_t iid = get_iid("_w_", args[0]);
    if (iid < 0) {
        return NULL;
    }
    if (nargs == 1) {
        return new_forever_guard(self, iid);
    }
    int t = PyObject_IsTrue(args[1]);
    if (t < 0) {
        return NULL;
    }
    if (self->activity == 0 || self->loop_bound <= 0) {
        return Py_NewRef(t ? Py_True : Py_False);         /* the fast path */
    }
    lx_loop_state *s = loop_state(self, iid);
    if (s == NULL) {
        return NULL;
    }
    if (!t) {
        s->seen = s->busy = 0;
        Py_RETURN_FALSE;
    }
    if (s->seen && s->last != self->activity) {
        s->busy++;
    }
    s->seen = 1;
    s->last = self->activity;
    if (s->busy >= (uint32_t)self->loop_bound) {
        s->seen = s->busy = 0;
        if (note_bounded(self, iid) < 0) {
            return NULL;
        }
        Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

/* ---- _f_ and the _LoopGuard iterator ---------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *it;      /* the guarded iterator; NULL once the guard ended the loop
                          (for `while True`: an empty tuple, the item yielded) */
    PyObject *rt;      /* the Runtime (strong) */
    Py_ssize_t iid;
    uint64_t last;     /* rt activity after the previous item */
    uint32_t busy, bound;
    int seen;
    int forever;       /* 1: the guard of `while True` (_w_(m)), 0: of a for loop */
} lx_loopiter_obj;

static int
loopiter_traverse(PyObject *self, visitproc visit, void *arg)
{
    lx_loopiter_obj *li = (lx_loopiter_obj *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(li->it);
    Py_VISIT(li->rt);
    return 0;
}

static int
loopiter_clear(PyObject *self)
{
    lx_loopiter_obj *li = (lx_loopiter_obj *)self;
    Py_CLEAR(li->it);
    Py_CLEAR(li->rt);
    return 0;
}

static void
loopiter_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    (void)loopiter_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *
loopiter_self(PyObject *self)
{
    return Py_NewRef(self);
}

/* next(guard): the next item of the iterable, unless the guard ends the
 * loop (see the comment of _f_). */
static PyObject *
loopiter_next(PyObject *self)
{
    lx_loopiter_obj *li = (lx_loopiter_obj *)self;
    if (li->it == NULL || li->rt == NULL) {
        return NULL;
    }
    lx_runtime_obj *rt = (lx_runtime_obj *)li->rt;
    if (li->forever) {
        /* _w_(m, (True)) for every iteration, its state kept here */
        if (rt->activity == 0 || rt->loop_bound <= 0) {
            return Py_NewRef(li->it);                     /* the fast path */
        }
        if (li->seen && li->last != rt->activity) {
            li->busy++;
        }
        li->seen = 1;
        li->last = rt->activity;
        if (li->busy >= (uint32_t)rt->loop_bound) {
            Py_CLEAR(li->it);
            (void)note_bounded(rt, li->iid);   /* on failure its exception propagates */
            return NULL;
        }
        return Py_NewRef(li->it);
    }
    if (li->seen && rt->activity != li->last) {
        li->busy++;
    }
    if (li->busy >= li->bound) {
        Py_CLEAR(li->it);
        (void)note_bounded(rt, li->iid);   /* on failure its exception propagates */
        return NULL;                       /* else: StopIteration */
    }
    PyObject *item = Py_TYPE(li->it)->tp_iternext(li->it);
    li->seen = 1;
    li->last = rt->activity;
    return item;
}

static PyType_Slot loopiter_slots[] = {
    {Py_tp_dealloc, loopiter_dealloc},
    {Py_tp_traverse, loopiter_traverse},
    {Py_tp_clear, loopiter_clear},
    {Py_tp_iter, loopiter_self},
    {Py_tp_iternext, loopiter_next},
    {Py_tp_doc, "Iterator of a guarded for loop (_f_): ends the loop once its busy "
                "iterations reach the bound."},
    {0, NULL},
};

static PyType_Spec loopiter_spec = {
    .name = "lexecutor_c._core._LoopGuard",
    .basicsize = sizeof(lx_loopiter_obj),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = loopiter_slots,
};

/* _f_(iid, iterable) -- the iterable of a guarded for loop.
 *     if loop_bound == 0 or nothing was injected this run: return iterable
 *     return _LoopGuard(iter(iterable))
 * The guard yields the iterator's items; before each item after the first
 * it counts the previous iteration busy when the activity changed, and ends
 * the loop (bounded_loops[iid] += 1) once the busy iterations reach
 * loop_bound * LX_FOR_BOUND_FACTOR. */
PyObject *
lx_loader_f(lx_runtime_obj *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "_f_() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    Py_ssize_t iid = get_iid("_f_", args[0]);
    if (iid < 0) {
        return NULL;
    }
    if (self->activity == 0 || self->loop_bound <= 0) {
        return Py_NewRef(args[1]);                        /* the fast path */
    }
    PyObject *it = PyObject_GetIter(args[1]);
    if (it == NULL) {
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)RS(self)->loopiter_type;
    lx_loopiter_obj *li = (lx_loopiter_obj *)tp->tp_alloc(tp, 0);
    if (li == NULL) {
        Py_DECREF(it);
        return NULL;
    }
    li->it = it;
    li->rt = Py_NewRef((PyObject *)self);
    li->iid = iid;
    li->last = 0;
    li->busy = 0;
    li->bound = (uint32_t)self->loop_bound * LX_FOR_BOUND_FACTOR;
    li->seen = 0;
    li->forever = 0;
    return (PyObject *)li;
}

/* _w_(iid) -- the guard of `while True:`, emitted as `for [] in _w_(m):`:
 * an iterator yielding () until the loop is bounded, deciding each
 * iteration as _w_(m, (True)) does (a fresh state per entry to the loop). */
static PyObject *
new_forever_guard(lx_runtime_obj *rt, Py_ssize_t iid)
{
    PyTypeObject *tp = (PyTypeObject *)RS(rt)->loopiter_type;
    PyObject *item = PyTuple_New(0);
    if (item == NULL) {
        return NULL;
    }
    lx_loopiter_obj *li = (lx_loopiter_obj *)tp->tp_alloc(tp, 0);
    if (li == NULL) {
        Py_DECREF(item);
        return NULL;
    }
    li->it = item;
    li->rt = Py_NewRef((PyObject *)rt);
    li->iid = iid;
    li->forever = 1;
    return (PyObject *)li;
}

int
lx_guard_exec(PyObject *m, lx_state *st)
{
    st->rt.loopiter_type = PyType_FromModuleAndSpec(m, &loopiter_spec, NULL);
    return st->rt.loopiter_type == NULL ? -1 : 0;
}
