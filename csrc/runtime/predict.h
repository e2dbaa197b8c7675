/* runtime/predict.h - layer 3 of the runtime: predictors and injection
 * (predict.c).  Includes layer 2; see runtime/objects.h for the layering. */
#ifndef LX_RUNTIME_PREDICT_H
#define LX_RUNTIME_PREDICT_H

#include "runtime/dummy.h"

/* PredictorQuery, PredictorError into the module; sets st->rt.inject. */
int lx_predict_exec(PyObject *m, lx_state *st);
int lx_predictor_setup(lx_runtime_obj *rt, PyObject *predictor, PyObject *freq_table);
/* class index, LX_NO_INJECT (no exception) or -1 */
int lx_predict(lx_state *st, lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind,
               PyObject *name);
/* 0 with *out a new reference, LX_NO_INJECT (no exception) or -1 */
int lx_inject(lx_state *st, lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind,
              PyObject *name, PyObject **out);
PyObject *lx_site_field(lx_runtime_obj *rt, Py_ssize_t iid, int field); /* borrowed or NULL */

#endif
