/* compat.h - the Python versions this extension builds for (3.11, 3.12,
 * 3.13): the one place for PY_VERSION_HEX tests (included by lx.h, so by
 * every part).  Code is written against the newest API; the older versions
 * get that API here, each as a thin wrapper over what they have.  The
 * frame-evaluation hook's CPython-internal layouts have their own tripwire
 * next to them, in transparent/evalframe_internal.h (one header per version).
 */
#ifndef LX_COMPAT_H
#define LX_COMPAT_H

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030E0000
#error "lexecutor_c._core builds for CPython 3.11, 3.12 and 3.13"
#endif

#if PY_VERSION_HEX < 0x030C0000
/* 3.12 renamed the code-object extra API (Include/cpython/code.h and
 * ceval.h) and deprecated the 3.11 names. */
#define PyUnstable_Code_GetExtra _PyCode_GetExtra
#define PyUnstable_Code_SetExtra _PyCode_SetExtra
#define PyUnstable_Eval_RequestCodeExtraIndex _PyEval_RequestCodeExtraIndex
#endif

#if PY_VERSION_HEX < 0x030D0000
/* 3.13 made these public (Include/object.h, Include/cpython/pyhash.h);
 * _PyObject_LookupAttr is gone from its headers. */
static inline int
PyObject_GetOptionalAttr(PyObject *obj, PyObject *name, PyObject **result)
{
    return _PyObject_LookupAttr(obj, name, result);
}

static inline Py_hash_t
Py_HashPointer(const void *ptr)
{
    return _Py_HashPointer(ptr);
}
#endif

#if PY_VERSION_HEX < 0x030E0000
/* 3.14's public sign test (Include/cpython/longobject.h there).  The sign
 * is no longer ob_size's since 3.12 (PyLongObject.long_value.lv_tag);
 * _PyLong_Sign (Objects/longobject.c) reads it on every version. */
static inline int
PyLong_GetSign(PyObject *obj, int *sign)
{
    *sign = _PyLong_Sign(obj);
    return 0;
}
#endif

#endif
