/* sandbox/api.h - what module.c sees of the confinement part (sandbox/):
 * sandbox_fork() and sandbox_probe() added to the module, and the part's
 * module state (lx_state.sandbox_*: the seccomp program, this process's PID
 * namespace). */
#ifndef LX_SANDBOX_API_H
#define LX_SANDBOX_API_H

#include "lx.h"

int lx_sandbox_exec(PyObject *m, lx_state *st);
int lx_sandbox_traverse(lx_state *st, visitproc visit, void *arg);
void lx_sandbox_clear(lx_state *st);

#endif
