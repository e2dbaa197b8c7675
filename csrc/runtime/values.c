/* runtime/values.c - abstract value classes (LExecutor, Table 1), layer 1 of
 * the runtime: abstraction of real values into classes, the class tables,
 * and the stable string hash / mixer that randomized choices are built on.
 * Concretization (class -> value) makes Dummies, so it sits one layer up,
 * in concretize.c.
 *
 * Python surface: _core.FINE_CLASSES, _core.COARSE_CLASSES,
 * _core.abstract(value, fine=True).
 */
#include "runtime/values.h"

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
        int sign = 0;
        (void)PyLong_GetSign(v, &sign);   /* cannot fail for an exact int */
        return sign < 0 ? LX_C_INT_NEG : (sign == 0 ? LX_C_INT_ZERO : LX_C_INT_POS);
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

static PyMethodDef values_functions[] = {
    {"abstract", (PyCFunction)(void (*)(void))py_abstract, METH_VARARGS | METH_KEYWORDS,
     "abstract(value, fine=True) -> str\n\nAbstract class of a real value "
     "(FINE_CLASSES, or COARSE_CLASSES when fine is false)."},
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
