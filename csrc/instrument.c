#include "lx.h"
int lx_instrument_exec(PyObject *m, lx_state *st) { (void)m; (void)st; return 0; }
int lx_instrument_traverse(lx_state *st, visitproc visit, void *arg) { (void)st; (void)visit; (void)arg; return 0; }
void lx_instrument_clear(lx_state *st) { (void)st; }
