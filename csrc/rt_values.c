/* rt_values.c - abstract value classes (LExecutor, Table 1): abstraction of
 * real values, concretization of classes into values (deterministic and
 * seeded-randomized), and the stable string hash / mixer the randomized
 * choices are built on.
 *
 * Python surface: _core.FINE_CLASSES, _core.COARSE_CLASSES,
 * _core.abstract(value, fine=True), _core.concretize(cls, *, randomize=False,
 * seed=0, name="").
 */
#include "rt_internal.h"

/* All class names: the fine-grained ones first (index < LX_N_FINE), then the
 * names that only the coarse-grained abstraction uses. */
const char *const lx_class_names[LX_N_CLASSES] = {
    "None", "True", "False",
    "int_neg", "int_zero", "int_pos",
    "float_neg", "float_zero", "float_pos",
    "str_empty", "str_nonempty",
    "list_empty", "list_nonempty",
    "tuple_empty", "tuple_nonempty",
    "set_empty", "set_nonempty",
    "dict_empty", "dict_nonempty",
    "resource", "callable", "object",
    "bool", "int", "float", "str", "list", "tuple", "set", "dict",
};

const int lx_coarse_members[LX_N_COARSE] = {
    LX_C_NONE, LX_C_BOOL, LX_C_INT, LX_C_FLOAT, LX_C_STR, LX_C_LIST,
    LX_C_TUPLE, LX_C_SET, LX_C_DICT, LX_C_RESOURCE, LX_C_CALLABLE, LX_C_OBJECT,
};

const int lx_fine_to_coarse[LX_N_FINE] = {
    [LX_C_NONE] = LX_C_NONE, [LX_C_TRUE] = LX_C_BOOL, [LX_C_FALSE] = LX_C_BOOL,
    [LX_C_INT_NEG] = LX_C_INT, [LX_C_INT_ZERO] = LX_C_INT, [LX_C_INT_POS] = LX_C_INT,
    [LX_C_FLOAT_NEG] = LX_C_FLOAT, [LX_C_FLOAT_ZERO] = LX_C_FLOAT,
    [LX_C_FLOAT_POS] = LX_C_FLOAT,
    [LX_C_STR_EMPTY] = LX_C_STR, [LX_C_STR_NONEMPTY] = LX_C_STR,
    [LX_C_LIST_EMPTY] = LX_C_LIST, [LX_C_LIST_NONEMPTY] = LX_C_LIST,
    [LX_C_TUPLE_EMPTY] = LX_C_TUPLE, [LX_C_TUPLE_NONEMPTY] = LX_C_TUPLE,
    [LX_C_SET_EMPTY] = LX_C_SET, [LX_C_SET_NONEMPTY] = LX_C_SET,
    [LX_C_DICT_EMPTY] = LX_C_DICT, [LX_C_DICT_NONEMPTY] = LX_C_DICT,
    [LX_C_RESOURCE] = LX_C_RESOURCE, [LX_C_CALLABLE] = LX_C_CALLABLE,
    [LX_C_OBJECT] = LX_C_OBJECT,
};

/* ---- stable hashing and the seeded generator ----------------------------
 * Python's str hash is salted per process, so randomized choices use their
 * own: FNV-1a over the code points, finished with the splitmix64 mixer. */

uint64_t
lx_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint64_t
lx_hash_str(PyObject *s, uint64_t h)
{
    h ^= 0xCBF29CE484222325ull;
    if (s == NULL || !PyUnicode_Check(s) || PyUnicode_READY(s) < 0) {
        PyErr_Clear();
        return lx_mix64(h);
    }
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        do {
            h ^= (uint64_t)(c & 0xFF);
            h *= 0x100000001B3ull;
            c >>= 8;
        } while (c != 0);
    }
    return lx_mix64(h);
}

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

/* ---- abstraction -------------------------------------------------------- */

int
lx_class_from_str(lx_state *st, PyObject *name)
{
    if (name == NULL || !PyUnicode_Check(name)) {
        return -1;
    }
    PyObject *idx = PyDict_GetItemWithError(st->rt.class_index, name); /* borrowed */
    if (idx == NULL) {
        PyErr_Clear();
        return -1;
    }
    return (int)PyLong_AsLong(idx);
}

static int
abstract_fine(lx_state *st, PyObject *v)
{
    if (v == Py_None) {
        return LX_C_NONE;
    }
    if (v == Py_True) {
        return LX_C_TRUE;
    }
    if (v == Py_False) {
        return LX_C_FALSE;
    }
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyUnicode_Type) {
        return PyUnicode_GET_LENGTH(v) == 0 ? LX_C_STR_EMPTY : LX_C_STR_NONEMPTY;
    }
    if (t == &PyLong_Type) {
        Py_ssize_t sz = Py_SIZE(v);   /* 3.11: the sign of ob_size is the sign */
        return sz < 0 ? LX_C_INT_NEG : (sz == 0 ? LX_C_INT_ZERO : LX_C_INT_POS);
    }
    if (t == &PyFloat_Type) {
        double d = PyFloat_AS_DOUBLE(v);
        return d < 0 ? LX_C_FLOAT_NEG : (d == 0 ? LX_C_FLOAT_ZERO : LX_C_FLOAT_POS);
    }
    if (t == &PyList_Type) {
        return PyList_GET_SIZE(v) == 0 ? LX_C_LIST_EMPTY : LX_C_LIST_NONEMPTY;
    }
    if (t == &PyTuple_Type) {
        return PyTuple_GET_SIZE(v) == 0 ? LX_C_TUPLE_EMPTY : LX_C_TUPLE_NONEMPTY;
    }
    if (t == &PySet_Type) {
        return PySet_GET_SIZE(v) == 0 ? LX_C_SET_EMPTY : LX_C_SET_NONEMPTY;
    }
    if (t == &PyDict_Type) {
        return PyDict_GET_SIZE(v) == 0 ? LX_C_DICT_EMPTY : LX_C_DICT_NONEMPTY;
    }
    if (t == (PyTypeObject *)st->rt.resource_type) {
        return LX_C_RESOURCE;
    }
    if (t == (PyTypeObject *)st->rt.dummy_type) {
        return (((lx_dummy_obj *)v)->flags & LX_DUMMY_CALLABLE) ? LX_C_CALLABLE
                                                                : LX_C_OBJECT;
    }
    if (PyCallable_Check(v)) {
        /* hasattr() semantics; errors raised by odd __getattr__s are dropped
         * so that recording can never disturb the program it observes. */
        if (PyObject_HasAttrString(v, "__enter__") && PyObject_HasAttrString(v, "__exit__")) {
            return LX_C_RESOURCE;
        }
        return LX_C_CALLABLE;
    }
    return LX_C_OBJECT;
}

int
lx_abstract(lx_state *st, PyObject *value, int fine)
{
    int c = abstract_fine(st, value);
    return fine ? c : lx_fine_to_coarse[c];
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

/* ---- Python functions ---------------------------------------------------- */

int
lx_parse_seed(PyObject *o, uint64_t *out)
{
    if (o == NULL || o == Py_None) {
        *out = 0;
        return 0;
    }
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "seed must be an int or None, not %.100s",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLongMask(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

/* abstract(value, fine=True) -> str */
static PyObject *
py_abstract(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"value", "fine", NULL};
    PyObject *value;
    int fine = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p:abstract", kwlist, &value, &fine)) {
        return NULL;
    }
    lx_state *st = lx_get_state(module);
    int c = lx_abstract(st, value, fine);
    return Py_NewRef(PyTuple_GET_ITEM(st->rt.all_classes, c));
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

static PyMethodDef values_functions[] = {
    {"abstract", (PyCFunction)(void (*)(void))py_abstract, METH_VARARGS | METH_KEYWORDS,
     "abstract(value, fine=True) -> str\n\nAbstract class of a real value "
     "(FINE_CLASSES, or COARSE_CLASSES when fine is false)."},
    {"concretize", (PyCFunction)(void (*)(void))py_concretize, METH_VARARGS | METH_KEYWORDS,
     "concretize(cls, *, randomize=False, seed=0, name='') -> value\n\nA value of "
     "abstract class cls (fine or coarse name).  Randomized values depend only on "
     "(seed, name, cls)."},
    {NULL, NULL, 0, NULL},
};

int
lx_values_exec(PyObject *m, lx_state *st)
{
    lx_runtime_state *rs = &st->rt;
    rs->all_classes = PyTuple_New(LX_N_CLASSES);
    rs->class_index = PyDict_New();
    rs->fine_classes = PyTuple_New(LX_N_FINE);
    rs->coarse_classes = PyTuple_New(LX_N_COARSE);
    if (rs->all_classes == NULL || rs->class_index == NULL || rs->fine_classes == NULL
        || rs->coarse_classes == NULL) {
        return -1;
    }
    for (int i = 0; i < LX_N_CLASSES; i++) {
        PyObject *s = PyUnicode_InternFromString(lx_class_names[i]);
        if (s == NULL) {
            return -1;
        }
        PyTuple_SET_ITEM(rs->all_classes, i, s);    /* steals s */
        PyObject *idx = PyLong_FromLong(i);
        if (idx == NULL || PyDict_SetItem(rs->class_index, s, idx) < 0) {
            Py_XDECREF(idx);
            return -1;
        }
        Py_DECREF(idx);
        if (i < LX_N_FINE) {
            PyTuple_SET_ITEM(rs->fine_classes, i, Py_NewRef(s));
        }
    }
    for (int i = 0; i < LX_N_COARSE; i++) {
        PyTuple_SET_ITEM(rs->coarse_classes, i,
                         Py_NewRef(PyTuple_GET_ITEM(rs->all_classes, lx_coarse_members[i])));
    }
    if (PyModule_AddObjectRef(m, "FINE_CLASSES", rs->fine_classes) < 0
        || PyModule_AddObjectRef(m, "COARSE_CLASSES", rs->coarse_classes) < 0) {
        return -1;
    }
    return PyModule_AddFunctions(m, values_functions);
}
