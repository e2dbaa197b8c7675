/* runtime.h - module state of the runtime part (loaders, values, Dummy).
 *
 * Included by lx.h after <Python.h>.  Every member is a strong reference
 * owned by the module state; lx_runtime_traverse / lx_runtime_clear in
 * runtime.c visit and drop all of them.
 */
#ifndef LX_RUNTIME_H
#define LX_RUNTIME_H

typedef struct {
    /* heap types (created with PyType_FromModuleAndSpec) */
    PyObject *runtime_type;     /* _core.Runtime */
    PyObject *dummy_type;       /* _core.Dummy */
    PyObject *resource_type;    /* _core.DummyResource */
    PyObject *iter_type;        /* _core._DummyIter: iteration / await helper */
    PyObject *missing_type;     /* type of the MISSING sentinel */
    PyObject *query_type;       /* _core.PredictorQuery (struct sequence) */
    PyObject *predictor_error;  /* _core.PredictorError exception class */

    PyObject *missing;          /* _core.MISSING, the single instance */
    PyObject *all_classes;      /* tuple of every class name (fine, then coarse-only) */
    PyObject *fine_classes;     /* _core.FINE_CLASSES */
    PyObject *coarse_classes;   /* _core.COARSE_CLASSES */
    PyObject *class_index;      /* dict: class name -> int index into all_classes */
    PyObject *builtin_import;   /* builtins.__import__ as found at module exec */

    /* interned strings used on slow paths */
    PyObject *s_name, *s_attribute, *s_call, *s_fine, *s_coarse;
    PyObject *s_empty, *s_all, *s_dunder_name, *s_dunder_dict, *s_dunder_import;
    PyObject *s_star, *s_dot;

    /* code sizes (in code units) of `lambda: g` reading a global and of
     * `lambda: c` reading a closure cell, measured at module exec; _n_ reads
     * such thunks' variable directly instead of calling them */
    Py_ssize_t thunk_global_size, thunk_deref_size;
} lx_runtime_state;

#endif
