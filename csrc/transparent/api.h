/* transparent/api.h - what module.c sees of transparent mode's
 * frame-evaluation hook (csrc/transparent/evalframe.c).
 *
 * lx_evalframe_exec adds the hook's functions to the module: 0, or -1 with
 * an exception set.  lx_evalframe_clear uninstalls the hook and drops what it
 * holds.  Only evalframe.c includes evalframe_internal.h (CPython internals);
 * the folder includes lx.h and nothing of instrument/, runtime/ or llm/.
 */
#ifndef LX_TRANSPARENT_API_H
#define LX_TRANSPARENT_API_H

#include "lx.h"

int lx_evalframe_exec(PyObject *m, lx_state *st);
void lx_evalframe_clear(lx_state *st);

#endif
