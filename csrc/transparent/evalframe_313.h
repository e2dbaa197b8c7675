/* transparent/evalframe_313.h - CPython 3.13's internals as the
 * frame-evaluation hook uses them (see evalframe_internal.h for the
 * interface).  Included through evalframe_internal.h only; every item names
 * where it comes from in the CPython 3.13 source tree.
 */
#ifndef LX_EVALFRAME_313_H
#define LX_EVALFRAME_313_H

#if PY_VERSION_HEX < 0x030D0000 || PY_VERSION_HEX >= 0x030E0000
#error "transparent/evalframe_313.h is for CPython 3.13 only"
#endif

/* struct _PyInterpreterFrame (f_executable instead of 3.12's f_code,
 * instr_ptr instead of prev_instr, f_funcobj, stacktop, owner, localsplus),
 * FRAME_OWNED_BY_THREAD, _PyFrame_GetCode, _PyCode_CODE,
 * _PyThreadState_PopFrame (exported since 3.13):
 * Include/internal/pycore_frame.h and pycore_code.h (3.13).  Py_BUILD_CORE
 * is defined just for the include. */
#ifndef Py_BUILD_CORE
#define Py_BUILD_CORE 1
#define LX_UNDEF_BUILD_CORE
#endif
#include "internal/pycore_frame.h"
#ifdef LX_UNDEF_BUILD_CORE
#undef Py_BUILD_CORE
#undef LX_UNDEF_BUILD_CORE
#endif

/* The PEP 523 API is unchanged from 3.11 (Include/cpython/pystate.h,
 * Include/cpython/ceval.h); as on 3.12 any evaluation function other than
 * the default turns off the inlined Python-to-Python calls
 * (Python/bytecodes.c: DEOPT_IF(tstate->interp->eval_frame)).
 * Code-object extra slots as on 3.12 (PyUnstable_Code_GetExtra, ...); the
 * block behind co_extra is Objects/codeobject.c's private
 *   typedef struct { Py_ssize_t ce_size; void *ce_extras[1]; } _PyCodeObjectExtra;
 * (mirrored, and checked at install time). */
typedef struct {
    Py_ssize_t ce_size;
    void *ce_extras[1];
} lx_code_extra_mirror;

/* Not started: _PyFrame_Initialize sets instr_ptr to the first code unit
 * (3.13 no longer points before it).  Owned by the thread, no frame object
 * (see evalframe_312.h). */
static inline int
lx_frame_is_fresh(struct _PyInterpreterFrame *f)
{
    return f->owner == FRAME_OWNED_BY_THREAD && PyCode_Check(f->f_executable) &&
           f->instr_ptr == _PyCode_CODE(_PyFrame_GetCode(f)) && f->frame_obj == NULL;
}

/* As on 3.12 the evaluation loop clears and pops the frames it finishes
 * (Python/ceval.c: clear_thread_frame); for a frame the hook replaced:
 *   _PyFrame_ClearExceptCode -> _PyFrame_ClearLocals (Python/frame.c):
 *     stacktop to 0, drop localsplus[0:stacktop], f_locals; then f_funcobj;
 *   clear_thread_frame: the f_executable reference, then
 *   _PyThreadState_PopFrame (Python/pystate.c; exported). */
static inline void
lx_frame_discard(PyThreadState *ts, struct _PyInterpreterFrame *f)
{
    int top = f->stacktop;
    f->stacktop = 0;
    for (int i = 0; i < top; i++) {
        Py_XDECREF(f->localsplus[i]);
    }
    Py_CLEAR(f->f_locals);
    Py_DECREF(f->f_funcobj);
    Py_DECREF(f->f_executable);
    _PyThreadState_PopFrame(ts, f);
}

#define LX_FRAME_CODE(f) _PyFrame_GetCode(f)
#define LX_FRAME_FUNC(f) \
    (PyFunction_Check((f)->f_funcobj) ? (PyFunctionObject *)(f)->f_funcobj : NULL)
#define LX_FRAME_GLOBALS(f) ((f)->f_globals)
#define LX_FRAME_LOCALS(f) ((f)->f_locals)
/* Arguments sit at the front of localsplus, in parameter order
 * (Python/ceval.c: initialize_locals). */
#define LX_FRAME_LOCALSPLUS(f) ((f)->localsplus)

#endif
