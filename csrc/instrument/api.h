/* instrument/api.h - what module.c sees of the instrumenter (csrc/instrument/).
 *
 * lx_instrument_exec adds instrument(), IidInfo, LineInfo and MAX_DEPTH to the
 * module and fills the instrumenter's part of the module state (grammar,
 * builtin names, struct sequence types): 0, or -1 with an exception set.
 * traverse / clear visit and drop the references that part owns.
 */
#ifndef LX_INSTRUMENT_API_H
#define LX_INSTRUMENT_API_H

#include "lx.h"

int lx_instrument_exec(PyObject *m, lx_state *st);
int lx_instrument_traverse(lx_state *st, visitproc visit, void *arg);
void lx_instrument_clear(lx_state *st);

#endif
