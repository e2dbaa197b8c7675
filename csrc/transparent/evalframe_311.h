/* transparent/evalframe_311.h - CPython 3.11's internals as the
 * frame-evaluation hook uses them (see evalframe_internal.h for the
 * interface).  Included through evalframe_internal.h only; every item names
 * where it comes from in the CPython 3.11 source tree.
 */
#ifndef LX_EVALFRAME_311_H
#define LX_EVALFRAME_311_H

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000
#error "transparent/evalframe_311.h is for CPython 3.11 only"
#endif

/* struct _PyInterpreterFrame, FRAME_OWNED_BY_THREAD, _PyInterpreterFrame_LASTI:
 * Include/internal/pycore_frame.h (3.11).  The header refuses to be
 * included without Py_BUILD_CORE; it declares only structs, enums and
 * static inline helpers, so defining Py_BUILD_CORE just for it links
 * against nothing private. */
#ifndef Py_BUILD_CORE
#define Py_BUILD_CORE 1
#define LX_UNDEF_BUILD_CORE
#endif
#include "internal/pycore_frame.h"
#ifdef LX_UNDEF_BUILD_CORE
#undef Py_BUILD_CORE
#undef LX_UNDEF_BUILD_CORE
#endif

/* The PEP 523 API, 3.11 form (Include/cpython/pystate.h, Include/cpython/ceval.h):
 *   typedef PyObject *(*_PyFrameEvalFunction)(PyThreadState *, struct _PyInterpreterFrame *, int);
 *   _PyInterpreterState_GetEvalFrameFunc / _PyInterpreterState_SetEvalFrameFunc
 *   _PyEval_EvalFrameDefault
 * Setting _PyEval_EvalFrameDefault stores NULL in interp->eval_frame
 * (Python/pystate.c), which re-enables the inlined Python-to-Python calls of
 * Python/ceval.c; any other function disables them for the whole
 * interpreter, which is the price every frame pays while the hook is on.
 *
 * Code-object extra slots (Include/cpython/code.h, Include/cpython/ceval.h;
 * compat.h gives them their 3.12 names PyUnstable_Code_GetExtra, ...).
 * The layout of the block behind PyCodeObject.co_extra is private to
 * Objects/codeobject.c (3.11):
 *   typedef struct { Py_ssize_t ce_size; void *ce_extras[1]; } _PyCodeObjectExtra;
 * We mirror it to read a slot with one load on the hot path; evalframe.c
 * checks the mirror against PyUnstable_Code_GetExtra when the hook is
 * installed and falls back to the function when they disagree. */
typedef struct {
    Py_ssize_t ce_size;
    void *ce_extras[1];
} lx_code_extra_mirror;

/* A frame that has not started yet: _PyFrame_InitializeSpecials
 * (Include/internal/pycore_frame.h) sets prev_instr to the code unit before
 * the first one; the evaluation loop moves it on its first instruction. */
static inline int
lx_frame_is_fresh(struct _PyInterpreterFrame *f)
{
    return f->owner == FRAME_OWNED_BY_THREAD && _PyInterpreterFrame_LASTI(f) < 0;
}

/* 3.11's _PyEval_Vector (Python/ceval.c) clears and pops the frame after
 * the evaluation function returns, whether that function ran it or not:
 * nothing to do for a frame the hook replaced. */
static inline void
lx_frame_discard(PyThreadState *ts, struct _PyInterpreterFrame *f)
{
    (void)ts;
    (void)f;
}

#define LX_FRAME_CODE(f) ((f)->f_code)
#define LX_FRAME_FUNC(f) ((f)->f_func)
#define LX_FRAME_GLOBALS(f) ((f)->f_globals)
#define LX_FRAME_LOCALS(f) ((f)->f_locals)
/* Arguments sit at the front of localsplus, in parameter order
 * (Python/ceval.c: initialize_locals). */
#define LX_FRAME_LOCALSPLUS(f) ((f)->localsplus)

#endif
