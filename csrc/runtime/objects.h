/* runtime/objects.h - layer 0 of the runtime (csrc/runtime/): the C layouts
 * of its objects and the conventions every runtime file follows.  No
 * functions.
 *
 * The runtime executes instrumented code: the loaders _n_ _a_ _c_ _l_ _i_
 * (docs/LOADERS.md) read the real value when there is one and otherwise ask a
 * predictor for an abstract value class, which is concretized into a value,
 * often a Dummy (docs/RUNTIME.md).  Its files form layers; a file includes
 * the header of its own layer, which includes the one below, and never a
 * header above it (tests/test_c_layout.py checks this):
 *
 *     layer 4  loaders.h   loaders.c (_n_ _a_ _c_ _l_ _i_), runtime.c (the
 *                          Runtime type, MISSING, module exec/traverse/clear)
 *     layer 3  predict.h   predict.c: predictors, injection (lx_inject)
 *     layer 2  dummy.h     dummy.c: Dummy, DummyResource; concretize.c:
 *                          class -> value (makes Dummies)
 *     layer 1  values.h    values.c: abstract classes, abstraction, hashing;
 *              journal.h   journal.c: the run journal in shared memory
 *     layer 0  objects.h   this file: object layouts, conventions
 *
 * (api.h, what module.c sees, includes only lx.h.)  The one call that goes
 * upwards, a Dummy asking the predictor what an attribute read or a call on
 * it gives, goes through the function pointer lx_runtime_state.inject, which
 * predict.c sets at module exec (lx_predict_exec); dummy.c includes no
 * predictor header.
 *
 * Conventions: functions returning PyObject * return a NEW reference or NULL
 * with an exception set; functions returning int return 0 on success and -1
 * with an exception set, unless documented otherwise.
 */
#ifndef LX_RUNTIME_OBJECTS_H
#define LX_RUNTIME_OBJECTS_H

#include "lx.h"
#include <stdint.h>

/* ---- predictor kinds -------------------------------------------------- */
enum {
    LX_PRED_ASIS, LX_PRED_NAIVE, LX_PRED_RANDOM, LX_PRED_FREQUENCY,
    LX_PRED_CALLABLE
};

/* Returned by lx_predict / lx_inject when the predictor declines to inject
 * (predictor "as-is"): no exception is set by the runtime in that case. */
#define LX_NO_INJECT (-2)

/* ---- the Runtime object ---------------------------------------------- */
struct lx_runtime_obj {
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
    uint8_t *bits;            /* reached line markers, bit per iid (PyMem, or in
                                 the journal when bits_shared) */
    Py_ssize_t nbits_bytes;
    int bits_shared;          /* bits point into journal.buf */
    Py_buffer journal;        /* the run journal (runtime/journal.h); .obj NULL: none */
    PyObject *weakreflist;
};

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

#endif
