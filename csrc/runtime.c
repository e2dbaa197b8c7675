/* runtime.c - placeholder until the runtime part lands. */
#include "lx.h"

int
lx_runtime_exec(PyObject *m, lx_state *st)
{
    (void)m;
    st->rt.placeholder = NULL;
    return 0;
}

int
lx_runtime_traverse(lx_state *st, visitproc visit, void *arg)
{
    Py_VISIT(st->rt.placeholder);
    return 0;
}

void
lx_runtime_clear(lx_state *st)
{
    Py_CLEAR(st->rt.placeholder);
}
