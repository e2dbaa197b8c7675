/* runtime/api.h - what module.c sees of the runtime (csrc/runtime/).
 *
 * lx_runtime_exec adds Runtime, Dummy, DummyResource, MISSING,
 * PredictorQuery, PredictorError, FINE_CLASSES, COARSE_CLASSES, abstract()
 * and concretize() to the module and fills st->rt: 0, or -1 with an exception
 * set.  traverse / clear visit and drop every reference in st->rt.
 */
#ifndef LX_RUNTIME_API_H
#define LX_RUNTIME_API_H

#include "lx.h"

int lx_runtime_exec(PyObject *m, lx_state *st);
int lx_runtime_traverse(lx_state *st, visitproc visit, void *arg);
void lx_runtime_clear(lx_state *st);

#endif
