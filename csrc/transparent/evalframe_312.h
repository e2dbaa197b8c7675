/* transparent/evalframe_312.h - CPython 3.12's internals as the
 * frame-evaluation hook uses them (see evalframe_internal.h for the
 * interface).  Included through evalframe_internal.h only; every item names
 * where it comes from in the CPython 3.12 source tree.
 */
#ifndef LX_EVALFRAME_312_H
#define LX_EVALFRAME_312_H

#if PY_VERSION_HEX < 0x030C0000 || PY_VERSION_HEX >= 0x030D0000
#error "transparent/evalframe_312.h is for CPython 3.12 only"
#endif

/* struct _PyInterpreterFrame (f_code, f_funcobj, prev_instr, stacktop,
 * owner, localsplus), FRAME_OWNED_BY_THREAD, _PyInterpreterFrame_LASTI:
 * Include/internal/pycore_frame.h (3.12).  Defining Py_BUILD_CORE just for
 * the include: the header declares structs, enums and static inline
 * helpers; we call none of its non-inline functions (they are not exported). */
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
 * Include/cpython/ceval.h): an evaluation function other than the default
 * makes every call site that would inline a Python-to-Python call
 * (CALL_PY_EXACT_ARGS and friends in Python/bytecodes.c: DEOPT_IF
 * tstate->interp->eval_frame) take the generic path through _PyEval_Vector.
 *
 * Code-object extra slots: PyUnstable_Code_GetExtra/SetExtra,
 * PyUnstable_Eval_RequestCodeExtraIndex (Include/cpython/code.h,
 * Include/cpython/ceval.h; the 3.11 names are deprecated).  The block behind
 * co_extra is still Objects/codeobject.c's private
 *   typedef struct { Py_ssize_t ce_size; void *ce_extras[1]; } _PyCodeObjectExtra;
 * (mirrored, and checked at install time as on 3.11). */
typedef struct {
    Py_ssize_t ce_size;
    void *ce_extras[1];
} lx_code_extra_mirror;

/* Not started: _PyFrame_Initialize sets prev_instr to the code unit before
 * the first one.  Owned by the thread (generator frames are resumes).  No
 * frame object: nothing outside can see the frame, and lx_frame_discard
 * need not hand the frame's data over to one (take_ownership in
 * Python/frame.c is private). */
static inline int
lx_frame_is_fresh(struct _PyInterpreterFrame *f)
{
    return f->owner == FRAME_OWNED_BY_THREAD && _PyInterpreterFrame_LASTI(f) < 0 &&
           f->frame_obj == NULL;
}

/* Since 3.12 the evaluation loop, not _PyEval_Vector, clears and pops the
 * frame it finishes (Python/ceval.c: _PyEval_Vector returns
 * _PyEval_EvalFrame(...) directly; the loop's exit paths call
 * _PyEvalFrameClearAndPop -> clear_thread_frame).  A frame the hook replaced
 * never reaches the loop, so the hook does what clear_thread_frame does for
 * a thread-owned frame without frame object:
 *   _PyFrame_ClearExceptCode (Python/frame.c): drop localsplus[0:stacktop],
 *     f_locals, f_funcobj; then the f_code reference;
 *   _PyThreadState_PopFrame (Python/pystate.c, not exported in 3.12): move
 *     datastack_top back to the frame, or, when the frame opens a chunk, free
 *     the chunk with the object arena allocator (_PyObject_VirtualFree is
 *     that allocator's free) and return to the previous chunk. */
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
    Py_DECREF(f->f_code);
    PyObject **base = (PyObject **)f;
    _PyStackChunk *chunk = ts->datastack_chunk;
    if (base == &chunk->data[0]) {
        _PyStackChunk *previous = chunk->previous;
        ts->datastack_top = &previous->data[previous->top];
        ts->datastack_chunk = previous;
        ts->datastack_limit = (PyObject **)(((char *)previous) + previous->size);
        PyObjectArenaAllocator arena;
        PyObject_GetArenaAllocator(&arena);
        arena.free(arena.ctx, chunk, chunk->size);
    }
    else {
        ts->datastack_top = base;
    }
}

#define LX_FRAME_CODE(f) ((f)->f_code)
#define LX_FRAME_FUNC(f) \
    (PyFunction_Check((f)->f_funcobj) ? (PyFunctionObject *)(f)->f_funcobj : NULL)
#define LX_FRAME_GLOBALS(f) ((f)->f_globals)
#define LX_FRAME_LOCALS(f) ((f)->f_locals)
/* Arguments sit at the front of localsplus, in parameter order
 * (Python/ceval.c: initialize_locals). */
#define LX_FRAME_LOCALSPLUS(f) ((f)->localsplus)

#endif
