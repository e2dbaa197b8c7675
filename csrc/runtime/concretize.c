/* runtime/concretize.c - concretization, layer 2 of the runtime (with
 * dummy.c): an abstract value class made into a value, deterministic or
 * seeded-randomized.  "callable", "object" and "resource" become Dummies,
 * which is why this is not in values.c: layer 1 knows no Dummy.
 *
 * Python surface: _core.concretize(cls, *, randomize=False, seed=0, name="").
 */
#include "runtime/dummy.h"

/* One step of the splitmix64 sequence held in *state. */
static uint64_t
rng_next(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15ull;
    return lx_mix64(*state);
}

static uint64_t
rng_below(uint64_t *state, uint64_t n)
{
    return rng_next(state) % n;
}

/* ---- concretization ------------------------------------------------------ */

static PyObject *
make_dummy(lx_state *st, lx_runtime_obj *rt, int cls, PyObject *name)
{
    if (cls == LX_C_RESOURCE) {
        return lx_dummy_new(st, st->rt.resource_type, rt, name, 0);
    }
    return lx_dummy_new(st, st->rt.dummy_type, rt, name,
                        cls == LX_C_CALLABLE ? LX_DUMMY_CALLABLE : 0);
}

static const long int_choices[] = {1, 2, 3, 5, 10, 42, 100};
static const double float_choices[] = {0.5, 1.0, 1.5, 2.0, 3.14, 10.0, 100.0};
static const char *const str_choices[] = {"a", "abc", "hello", "x", "foo bar", "42", NULL};
static const char *const key_choices[] = {"a", "b", "key", "name", "id", "value"};
#define N_OF(a) ((uint64_t)(sizeof(a) / sizeof((a)[0])))

/* A randomized scalar of fine class cls (a number or string class). */
static PyObject *
random_scalar(int cls, uint64_t *rng, PyObject *name)
{
    switch (cls) {
    case LX_C_INT_NEG:
        return PyLong_FromLong(-int_choices[rng_below(rng, N_OF(int_choices))]);
    case LX_C_INT_POS:
        return PyLong_FromLong(int_choices[rng_below(rng, N_OF(int_choices))]);
    case LX_C_FLOAT_NEG:
        return PyFloat_FromDouble(-float_choices[rng_below(rng, N_OF(float_choices))]);
    case LX_C_FLOAT_POS:
        return PyFloat_FromDouble(float_choices[rng_below(rng, N_OF(float_choices))]);
    case LX_C_STR_NONEMPTY: {
        /* the last slot (NULL) stands for the name itself when it has one */
        uint64_t k = rng_below(rng, N_OF(str_choices));
        if (str_choices[k] == NULL) {
            if (name != NULL && PyUnicode_Check(name) && PyUnicode_GET_LENGTH(name) > 0) {
                return Py_NewRef(name);
            }
            k = 0;
        }
        return PyUnicode_FromString(str_choices[k]);
    }
    default:
        PyErr_SetString(PyExc_SystemError, "lexecutor_c: bad scalar class");
        return NULL;
    }
}

/* One element of a randomized container: all elements of one container
 * share an element kind (elem_cls). */
static PyObject *
random_element(lx_state *st, lx_runtime_obj *rt, int elem_cls, uint64_t *rng,
               PyObject *name)
{
    if (elem_cls == LX_C_OBJECT) {
        return make_dummy(st, rt, LX_C_OBJECT, name);
    }
    return random_scalar(elem_cls, rng, name);
}

static const int elem_classes[] = {LX_C_OBJECT, LX_C_OBJECT, LX_C_INT_POS, LX_C_STR_NONEMPTY,
                                   LX_C_FLOAT_POS};

static PyObject *
random_container(lx_state *st, lx_runtime_obj *rt, int cls, uint64_t *rng, PyObject *name)
{
    Py_ssize_t n = 1 + (Py_ssize_t)rng_below(rng, 3);
    int elem = elem_classes[rng_below(rng, N_OF(elem_classes))];
    PyObject *res = NULL, *item = NULL;
    if (cls == LX_C_DICT_NONEMPTY) {
        res = PyDict_New();
        uint64_t first = rng_below(rng, N_OF(key_choices));
        for (Py_ssize_t i = 0; res != NULL && i < n; i++) {
            item = random_element(st, rt, elem, rng, name);
            if (item == NULL
                || PyDict_SetItemString(res, key_choices[(first + (uint64_t)i) % N_OF(key_choices)],
                                        item) < 0) {
                goto fail;
            }
            Py_CLEAR(item);
        }
        return res;
    }
    res = (cls == LX_C_SET_NONEMPTY) ? PySet_New(NULL) : PyList_New(0);
    for (Py_ssize_t i = 0; res != NULL && i < n; i++) {
        item = random_element(st, rt, elem, rng, name);
        if (item == NULL) {
            goto fail;
        }
        int r = (cls == LX_C_SET_NONEMPTY) ? PySet_Add(res, item) : PyList_Append(res, item);
        if (r < 0) {
            goto fail;
        }
        Py_CLEAR(item);
    }
    if (res != NULL && cls == LX_C_TUPLE_NONEMPTY) {
        Py_SETREF(res, PyList_AsTuple(res));
    }
    return res;
fail:
    Py_XDECREF(item);
    Py_XDECREF(res);
    return NULL;
}

/* Deterministic values of the fine classes (and of the coarse-only names,
 * which map onto the "canonical" fine member: bool -> True, int -> 1, ...). */
static PyObject *
fixed_value(lx_state *st, lx_runtime_obj *rt, int cls, PyObject *name)
{
    PyObject *d = NULL, *res = NULL;
    switch (cls) {
    case LX_C_NONE: return Py_NewRef(Py_None);
    case LX_C_TRUE: case LX_C_BOOL: return Py_NewRef(Py_True);
    case LX_C_FALSE: return Py_NewRef(Py_False);
    case LX_C_INT_NEG: return PyLong_FromLong(-1);
    case LX_C_INT_ZERO: return PyLong_FromLong(0);
    case LX_C_INT_POS: case LX_C_INT: return PyLong_FromLong(1);
    case LX_C_FLOAT_NEG: return PyFloat_FromDouble(-1.0);
    case LX_C_FLOAT_ZERO: return PyFloat_FromDouble(0.0);
    case LX_C_FLOAT_POS: case LX_C_FLOAT: return PyFloat_FromDouble(1.0);
    case LX_C_STR_EMPTY: return Py_NewRef(st->rt.s_empty);
    case LX_C_STR_NONEMPTY: case LX_C_STR: return PyUnicode_FromString("a");
    case LX_C_LIST_EMPTY: return PyList_New(0);
    case LX_C_TUPLE_EMPTY: return PyTuple_New(0);
    case LX_C_SET_EMPTY: return PySet_New(NULL);
    case LX_C_DICT_EMPTY: return PyDict_New();
    case LX_C_RESOURCE: case LX_C_CALLABLE: case LX_C_OBJECT:
        return make_dummy(st, rt, cls, name);
    default:
        break;
    }
    /* non-empty containers holding one Dummy */
    d = make_dummy(st, rt, LX_C_OBJECT, name);
    if (d == NULL) {
        return NULL;
    }
    switch (cls) {
    case LX_C_LIST_NONEMPTY: case LX_C_LIST:
        res = PyList_New(1);
        if (res != NULL) {
            PyList_SET_ITEM(res, 0, Py_NewRef(d));
        }
        break;
    case LX_C_TUPLE_NONEMPTY: case LX_C_TUPLE:
        res = PyTuple_Pack(1, d);
        break;
    case LX_C_SET_NONEMPTY: case LX_C_SET:
        res = PySet_New(NULL);
        if (res != NULL && PySet_Add(res, d) < 0) {
            Py_CLEAR(res);
        }
        break;
    case LX_C_DICT_NONEMPTY: case LX_C_DICT:
        res = PyDict_New();
        if (res != NULL && PyDict_SetItemString(res, "a", d) < 0) {
            Py_CLEAR(res);
        }
        break;
    default:
        PyErr_Format(PyExc_SystemError, "lexecutor_c: bad class index %d", cls);
        break;
    }
    Py_DECREF(d);
    return res;
}

/* coarse class -> the fine classes it covers */
static int
coarse_members(int cls, int *out)
{
    int n = 0;
    for (int f = 0; f < LX_N_FINE; f++) {
        if (lx_fine_to_coarse[f] == cls) {
            out[n++] = f;
        }
    }
    return n;
}

PyObject *
lx_concretize(lx_state *st, lx_runtime_obj *rt, int cls, int randomize, uint64_t seed,
              PyObject *name)
{
    if (cls < 0 || cls >= LX_N_CLASSES) {
        PyErr_Format(PyExc_SystemError, "lexecutor_c: bad class index %d", cls);
        return NULL;
    }
    if (name == NULL) {
        name = st->rt.s_empty;
    }
    if (!randomize) {
        return fixed_value(st, rt, cls, name);
    }
    /* The generator state depends on (seed, name, class) only, so a name
     * gets the same value in every run with the same seed, whatever order
     * the values are asked for in. */
    uint64_t rng = lx_hash_str(name, lx_mix64(seed ^ 0x6C65786563757465ull));
    rng = lx_mix64(rng ^ (uint64_t)cls);
    if (cls >= LX_N_FINE) {
        int members[LX_N_FINE];
        int n = coarse_members(cls, members);
        cls = members[rng_below(&rng, (uint64_t)n)];
    }
    switch (cls) {
    case LX_C_INT_NEG: case LX_C_INT_POS: case LX_C_FLOAT_NEG: case LX_C_FLOAT_POS:
    case LX_C_STR_NONEMPTY:
        return random_scalar(cls, &rng, name);
    case LX_C_LIST_NONEMPTY: case LX_C_TUPLE_NONEMPTY: case LX_C_SET_NONEMPTY:
    case LX_C_DICT_NONEMPTY:
        return random_container(st, rt, cls, &rng, name);
    default:
        return fixed_value(st, rt, cls, name);
    }
}

/* concretize(cls, *, randomize=False, seed=0, name="") -> value */
static PyObject *
py_concretize(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"cls", "randomize", "seed", "name", NULL};
    PyObject *cls_name, *seed_obj = NULL, *name = NULL;
    int randomize = 0;
    uint64_t seed;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U|$pOU:concretize", kwlist, &cls_name,
                                     &randomize, &seed_obj, &name)) {
        return NULL;
    }
    if (lx_parse_seed(seed_obj, &seed) < 0) {
        return NULL;
    }
    lx_state *st = lx_get_state(module);
    int c = lx_class_from_str(st, cls_name);
    if (c < 0) {
        PyErr_Format(PyExc_ValueError, "unknown abstract value class %R", cls_name);
        return NULL;
    }
    return lx_concretize(st, NULL, c, randomize, seed, name);
}

static PyMethodDef concretize_functions[] = {
    {"concretize", (PyCFunction)(void (*)(void))py_concretize, METH_VARARGS | METH_KEYWORDS,
     "concretize(cls, *, randomize=False, seed=0, name='') -> value\n\nA value of "
     "abstract class cls (fine or coarse name).  Randomized values depend only on "
     "(seed, name, cls)."},
    {NULL, NULL, 0, NULL},
};

int
lx_concretize_exec(PyObject *m, lx_state *st)
{
    (void)st;
    return PyModule_AddFunctions(m, concretize_functions);
}
