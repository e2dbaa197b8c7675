/* lx.h - shared declarations of the lexecutor_c._core extension.
 *
 * One module-state struct holds everything the parts own; each part
 * (instrument, runtime, ...) has an exec/traverse/clear triple that
 * module.c calls.  Python-version tripwires live here and nowhere else.
 */
#ifndef LX_H
#define LX_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000
#error "lexecutor_c._core targets CPython 3.11 exactly"
#endif

#include "runtime.h"

typedef struct TSLanguage TSLanguage;

/* Field ids of the tree-sitter-python grammar that the instrumenter uses;
 * filled in at module exec from their names. */
typedef struct {
    uint16_t left, right, name, value, body, function, arguments, object,
        attribute, alias, condition, consequence, alternative, parameters,
        superclasses, return_type, type, subject, module_name, definition,
        expression, format_specifier, type_conversion, guard;
} lx_fields;

typedef struct {
    /* instrument.c */
    const TSLanguage *language;   /* borrowed from the tree_sitter_python capsule */
    PyObject *grammar_module;     /* keeps the grammar's shared object loaded */
    PyObject *builtin_names;      /* frozenset: names of the builtins module */
    char **builtins_sorted;       /* the same names, sorted, for bsearch from C */
    uint32_t nbuiltins;
    PyObject *IidInfo;            /* struct sequence types of instrument() */
    PyObject *LineInfo;
    unsigned char *symkind;       /* symbol id -> node kind (instrument.c) */
    uint32_t nsymbols;
    lx_fields field;
    /* runtime.c and friends */
    lx_runtime_state rt;
    /* sandbox/confine.c: the seccomp program (bytes), built on first use */
    PyObject *sandbox_bpf;
    int sandbox_pidns_fd;         /* this process's PID namespace (root callers), or -1 */
} lx_state;

static inline lx_state *
lx_get_state(PyObject *module)
{
    return (lx_state *)PyModule_GetState(module);
}

/* Each part: exec adds its functions/types to the module (0 / -1 with an
 * exception set), traverse/clear visit the references it owns. */
int lx_instrument_exec(PyObject *m, lx_state *st);
int lx_instrument_traverse(lx_state *st, visitproc visit, void *arg);
void lx_instrument_clear(lx_state *st);

int lx_runtime_exec(PyObject *m, lx_state *st);
int lx_runtime_traverse(lx_state *st, visitproc visit, void *arg);
void lx_runtime_clear(lx_state *st);

int lx_evalframe_exec(PyObject *m, lx_state *st);
int lx_sandbox_exec(PyObject *m, lx_state *st);
int lx_sandbox_traverse(lx_state *st, visitproc visit, void *arg);
void lx_sandbox_clear(lx_state *st);
void lx_evalframe_clear(lx_state *st);

#endif
