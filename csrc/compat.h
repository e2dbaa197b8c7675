/* compat.h - the Python versions this extension builds for: the one place
 * for PY_VERSION_HEX tests (included by lx.h, so by every part).  The
 * frame-evaluation hook's CPython-internal layouts have their own tripwire
 * next to them, in transparent/evalframe_internal.h.
 */
#ifndef LX_COMPAT_H
#define LX_COMPAT_H

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000
#error "lexecutor_c._core targets CPython 3.11 exactly"
#endif

#endif
