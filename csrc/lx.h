/* lx.h - the module state of the lexecutor_c._core extension.
 *
 * One module-state struct (lx_state) holds everything the parts own; each
 * part (instrument/, runtime/, transparent/, llm/, sandbox/) has its exec / traverse /
 * clear functions in its folder's api.h, which module.c calls.  Every C file
 * but llm/llm.c (which keeps no state) includes this header, directly or
 * through its folder's header.  Python-version tests live in compat.h.
 */
#ifndef LX_H
#define LX_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "compat.h"

typedef struct TSLanguage TSLanguage;
typedef struct lx_state lx_state;
typedef struct lx_runtime_obj lx_runtime_obj;   /* runtime/objects.h */

/* The runtime's injection: a value for a missing name, attribute or call
 * result at site iid (0 with *out a new reference, LX_NO_INJECT, or -1);
 * runtime/predict.c's lx_inject, stored here at module exec so that the
 * Dummy layer below it can call it (see runtime/objects.h). */
typedef int (*lx_inject_fn)(lx_state *st, lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind,
                            PyObject *name, PyObject **out);

/* The runtime's part of the module state (csrc/runtime/).  Every PyObject
 * member is a strong reference owned by the module state; lx_runtime_traverse
 * / lx_runtime_clear (runtime/runtime.c) visit and drop all of them. */
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

    lx_inject_fn inject;        /* set by runtime/predict.c; not a reference */
} lx_runtime_state;

/* Field ids of the tree-sitter-python grammar that the instrumenter uses;
 * filled in at module exec from their names. */
typedef struct {
    uint16_t left, right, name, value, body, function, arguments, object,
        attribute, alias, condition, consequence, alternative, parameters,
        superclasses, return_type, type, subject, module_name, definition,
        expression, format_specifier, type_conversion, guard, type_parameters;
} lx_fields;

struct lx_state {
    /* instrument/ */
    const TSLanguage *language;   /* borrowed from the tree_sitter_python capsule */
    PyObject *grammar_module;     /* keeps the grammar's shared object loaded */
    PyObject *builtin_names;      /* frozenset: names of the builtins module */
    char **builtins_sorted;       /* the same names, sorted, for bsearch from C */
    uint32_t nbuiltins;
    PyObject *IidInfo;            /* struct sequence types of instrument() */
    PyObject *LineInfo;
    unsigned char *symkind;       /* symbol id -> node kind (instrument/tree.c) */
    uint32_t nsymbols;
    lx_fields field;
    /* runtime/ */
    lx_runtime_state rt;
    /* sandbox/ */
    PyObject *sandbox_bpf;        /* the seccomp program (bytes), built on first use */
    int sandbox_pidns_fd;         /* this process's PID namespace (root callers), or -1 */
};

static inline lx_state *
lx_get_state(PyObject *module)
{
    return (lx_state *)PyModule_GetState(module);
}

#endif
