/* rt_internal.h - declarations shared by the runtime files
 * (runtime.c, rt_values.c, rt_dummy.c, rt_predict.c).  Not part of the
 * module's public C surface.
 *
 * Conventions: functions returning PyObject * return a NEW reference or NULL
 * with an exception set; functions returning int return 0 on success and -1
 * with an exception set, unless documented otherwise.
 */
#ifndef LX_RT_INTERNAL_H
#define LX_RT_INTERNAL_H

#include "lx.h"
#include <stdint.h>

/* ---- abstract value classes ------------------------------------------
 * Indices into lx_runtime_state.all_classes.  0 .. LX_N_FINE-1 are the
 * fine-grained classes (FINE_CLASSES, in this order); the coarse-only names
 * follow.  COARSE_CLASSES reuses None/resource/callable/object. */
enum {
    LX_C_NONE, LX_C_TRUE, LX_C_FALSE,
    LX_C_INT_NEG, LX_C_INT_ZERO, LX_C_INT_POS,
    LX_C_FLOAT_NEG, LX_C_FLOAT_ZERO, LX_C_FLOAT_POS,
    LX_C_STR_EMPTY, LX_C_STR_NONEMPTY,
    LX_C_LIST_EMPTY, LX_C_LIST_NONEMPTY,
    LX_C_TUPLE_EMPTY, LX_C_TUPLE_NONEMPTY,
    LX_C_SET_EMPTY, LX_C_SET_NONEMPTY,
    LX_C_DICT_EMPTY, LX_C_DICT_NONEMPTY,
    LX_C_RESOURCE, LX_C_CALLABLE, LX_C_OBJECT,
    LX_N_FINE,
    LX_C_BOOL = LX_N_FINE, LX_C_INT, LX_C_FLOAT, LX_C_STR,
    LX_C_LIST, LX_C_TUPLE, LX_C_SET, LX_C_DICT,
    LX_N_CLASSES
};
#define LX_N_COARSE 12

extern const char *const lx_class_names[LX_N_CLASSES];
extern const int lx_coarse_members[LX_N_COARSE];
extern const int lx_fine_to_coarse[LX_N_FINE];

/* ---- predictor kinds -------------------------------------------------- */
enum {
    LX_PRED_ASIS, LX_PRED_NAIVE, LX_PRED_RANDOM, LX_PRED_FREQUENCY,
    LX_PRED_CALLABLE
};

/* Returned by lx_predict / lx_inject when the predictor declines to inject
 * (predictor "as-is"): no exception is set by the runtime in that case. */
#define LX_NO_INJECT (-2)

/* ---- the Runtime object ---------------------------------------------- */
typedef struct {
    PyObject_HEAD
    lx_state *st;             /* borrowed: module state; the type keeps the module alive */
    int predictor;            /* LX_PRED_* */
    int fine;                 /* 1: fine-grained abstraction, 0: coarse */
    int randomize;
    int record;
    uint64_t seed;
    PyObject *predictor_fn;   /* callable predictor or NULL */
    PyObject *freq_best;      /* dict name -> class index (int), or NULL */
    PyObject *filename;       /* str */
    PyObject *sites;          /* dict iid -> (kind, name, line, before, after) */
    PyObject *injections;     /* list of (iid, kind, name, line, cls, repr) */
    PyObject *events;         /* list of (name, cls, kind, file, line, iid, before, after) */
    PyObject *failed_imports; /* list of (iid, module, names) */
    PyObject *predictor_errors; /* list of (iid, kind, name, repr(result)) */
    PyObject *name_values;    /* dict name -> value injected for kind "name" this run */
    uint8_t *bits;            /* reached line markers, bit per iid (PyMem) */
    Py_ssize_t nbits_bytes;
    PyObject *weakreflist;
} lx_runtime_obj;

/* ---- Dummy objects ---------------------------------------------------- */
#define LX_DUMMY_CALLABLE 1   /* concretization of "callable" */

typedef struct {
    PyObject_HEAD
    PyObject *rt;       /* strong ref to the lx_runtime_obj that made it, or NULL */
    PyObject *name;     /* str: the name it stands for */
    PyObject *attrs;    /* dict of attributes read/written so far, or NULL */
    PyObject *items;    /* dict of items written/read so far, or NULL */
    int flags;
    PyObject *weakreflist;
} lx_dummy_obj;

/* rt_values.c */
int lx_values_exec(PyObject *m, lx_state *st);
uint64_t lx_mix64(uint64_t x);
uint64_t lx_hash_str(PyObject *s, uint64_t h);  /* FNV-1a over UTF-8; never fails */
int lx_class_from_str(lx_state *st, PyObject *name);  /* index, -1 if not a class (no exception) */
int lx_abstract(lx_state *st, PyObject *value, int fine); /* index */
int lx_parse_seed(PyObject *o, uint64_t *out);  /* None -> 0; ints wrap mod 2**64 */
PyObject *lx_concretize(lx_state *st, lx_runtime_obj *rt, int cls, int randomize,
                        uint64_t seed, PyObject *name);

/* rt_dummy.c */
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
PyObject *lx_dummy_getattr_at(lx_dummy_obj *d, PyObject *name, Py_ssize_t iid,
                              lx_runtime_obj *rt);
PyObject *lx_dummy_call_at(lx_dummy_obj *d, Py_ssize_t iid, lx_runtime_obj *rt,
                           PyObject *name);

/* rt_predict.c */
int lx_predict_exec(PyObject *m, lx_state *st);
int lx_predictor_setup(lx_runtime_obj *rt, PyObject *predictor, PyObject *freq_table);
int lx_predict(lx_state *st, lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind,
               PyObject *name);
/* 0 with *out a new reference, LX_NO_INJECT (no exception) or -1 */
int lx_inject(lx_state *st, lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind,
              PyObject *name, PyObject **out);
PyObject *lx_site_field(lx_runtime_obj *rt, Py_ssize_t iid, int field); /* borrowed or NULL */

#endif
