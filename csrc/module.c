/* module.c - definition of lexecutor_c._core: multi-phase init, and the
 * module state's exec / traverse / clear, which call each part's own (the
 * parts live in csrc/instrument/, runtime/, transparent/, llm/ and sandbox/; the state
 * struct is in lx.h).  This file only wires them together. */
#include "lx.h"
#include "instrument/api.h"
#include "runtime/api.h"
#include "transparent/api.h"
#include "llm/api.h"
#include "sandbox/api.h"

static int
core_exec(PyObject *m)
{
    lx_state *st = lx_get_state(m);
    if (lx_instrument_exec(m, st) < 0) {
        return -1;
    }
    if (lx_runtime_exec(m, st) < 0) {
        return -1;
    }
    if (lx_evalframe_exec(m, st) < 0) {
        return -1;
    }
    if (lx_llm_exec(m) < 0) {
        return -1;
    }
    if (lx_sandbox_exec(m, st) < 0) {
        return -1;
    }
    return 0;
}

static int
core_traverse(PyObject *m, visitproc visit, void *arg)
{
    lx_state *st = lx_get_state(m);
    if (st == NULL) {
        return 0;
    }
    int r = lx_instrument_traverse(st, visit, arg);
    if (r) {
        return r;
    }
    r = lx_runtime_traverse(st, visit, arg);
    if (r) {
        return r;
    }
    return lx_sandbox_traverse(st, visit, arg);
}

static int
core_clear(PyObject *m)
{
    lx_state *st = lx_get_state(m);
    if (st != NULL) {
        lx_instrument_clear(st);
        lx_runtime_clear(st);
        lx_evalframe_clear(st);
        lx_sandbox_clear(st);
    }
    return 0;
}

static void
core_free(void *m)
{
    (void)core_clear((PyObject *)m);
}

static PyModuleDef_Slot core_slots[] = {
    {Py_mod_exec, core_exec},
    {0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "lexecutor_c._core",
    .m_doc = "C core of lexecutor_c: instrumenter and runtime.",
    .m_size = sizeof(lx_state),
    .m_slots = core_slots,
    .m_traverse = core_traverse,
    .m_clear = core_clear,
    .m_free = core_free,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    return PyModuleDef_Init(&core_module);
}
