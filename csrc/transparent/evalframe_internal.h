/* transparent/evalframe_internal.h - the CPython-internal details the
 * frame-evaluation hook (evalframe.c) relies on, one header per CPython
 * minor version.  Only evalframe.c includes this file.
 *
 * Every version header gives evalframe.c the same small interface:
 *   lx_code_extra_mirror        the private layout behind PyCodeObject.co_extra
 *   LX_FRAME_CODE(f)            PyCodeObject * (borrowed)
 *   LX_FRAME_FUNC(f)            PyFunctionObject * or NULL (borrowed)
 *   LX_FRAME_GLOBALS(f), LX_FRAME_LOCALS(f), LX_FRAME_LOCALSPLUS(f)
 *   lx_frame_is_fresh(f)        not started, owned by the thread, replaceable
 *   lx_frame_discard(ts, f)     what the evaluator does with a frame it has
 *                               finished, for a frame the hook replaced
 * Each item names where it comes from in that version's CPython source.  The
 * tripwire stops the build on any other version instead of letting the hook
 * read frames wrongly: a new version needs its own header, checked against
 * its source.
 */
#ifndef LX_EVALFRAME_INTERNAL_H
#define LX_EVALFRAME_INTERNAL_H

#ifdef Py_GIL_DISABLED
#error "csrc/transparent/evalframe.c: the free-threaded build's frames are not supported; port it first"
#endif

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#include "transparent/evalframe_311.h"
#elif PY_VERSION_HEX >= 0x030C0000 && PY_VERSION_HEX < 0x030D0000
#include "transparent/evalframe_312.h"
#elif PY_VERSION_HEX >= 0x030D0000 && PY_VERSION_HEX < 0x030E0000
#include "transparent/evalframe_313.h"
#else
#error "csrc/transparent/evalframe.c uses CPython internals of 3.11, 3.12 and 3.13 (_PyInterpreterFrame, PEP 523 API); add a header for this version before building for it"
#endif

#endif
