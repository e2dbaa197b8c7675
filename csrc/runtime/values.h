/* runtime/values.h - layer 1 of the runtime: abstract value classes
 * (values.c).  Includes layer 0; see runtime/objects.h for the layering. */
#ifndef LX_RUNTIME_VALUES_H
#define LX_RUNTIME_VALUES_H

#include "runtime/objects.h"

/* ---- abstract value classes ------------------------------------------
 * Indices into lx_runtime_state.all_classes.  0 .. LX_N_FINE-1 are the
 * fine-grained classes (FINE_CLASSES, in this order); the coarse-only names
 * follow.  COARSE_CLASSES reuses None/resource/callable/object. */
enum {
    LX_C_NONE, LX_C_TRUE, LX_C_FALSE,
    LX_C_INT_NEG, LX_C_INT_ZERO, LX_C_INT_POS,
    LX_C_FLOAT_NEG, LX_C_FLOAT_ZERO, LX_C_FLOAT_POS,
    LX_C_STR_EMPTY, LX_C_STR_NONEMPTY,
    LX_C_LIST_EMPTY, LX_C_LIST_NONEMPTY,
    LX_C_TUPLE_EMPTY, LX_C_TUPLE_NONEMPTY,
    LX_C_SET_EMPTY, LX_C_SET_NONEMPTY,
    LX_C_DICT_EMPTY, LX_C_DICT_NONEMPTY,
    LX_C_RESOURCE, LX_C_CALLABLE, LX_C_OBJECT,
    LX_N_FINE,
    LX_C_BOOL = LX_N_FINE, LX_C_INT, LX_C_FLOAT, LX_C_STR,
    LX_C_LIST, LX_C_TUPLE, LX_C_SET, LX_C_DICT,
    LX_N_CLASSES
};
#define LX_N_COARSE 12

extern const char *const lx_class_names[LX_N_CLASSES];
extern const int lx_coarse_members[LX_N_COARSE];
extern const int lx_fine_to_coarse[LX_N_FINE];

/* Class tables and FINE_CLASSES, COARSE_CLASSES, abstract() into the module. */
int lx_values_exec(PyObject *m, lx_state *st);
uint64_t lx_mix64(uint64_t x);
uint64_t lx_hash_str(PyObject *s, uint64_t h);  /* FNV-1a over UTF-8; never fails */
int lx_class_from_str(lx_state *st, PyObject *name);  /* index, -1 if not a class (no exception) */
int lx_abstract(lx_state *st, PyObject *value, int fine); /* index; never fails */
int lx_parse_seed(PyObject *o, uint64_t *out);  /* None -> 0; ints wrap mod 2**64 */

#endif
