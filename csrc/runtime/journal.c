/* runtime/journal.c - the run journal in shared memory (layout and purpose
 * in runtime/journal.h). */
#include "runtime/journal.h"
#include <string.h>

static const char magic[4] = {'L', 'X', 'J', '1'};

static uint64_t
get_u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static unsigned char *
base(lx_runtime_obj *rt)
{
    return (unsigned char *)rt->journal.buf;
}

int
lx_journal_attach(lx_runtime_obj *rt, PyObject *obj)
{
    Py_buffer view;
    if (rt->journal.obj != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the Runtime is attached to a journal already");
        return -1;
    }
    if (PyObject_GetBuffer(obj, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        return -1;
    }
    const unsigned char *p = view.buf;
    uint64_t bits = 0, log = 0;
    if (view.len >= LX_JOURNAL_HEADER) {
        bits = get_u64(p + 16);
        log = get_u64(p + 24);
    }
    if (view.len < LX_JOURNAL_HEADER || memcmp(p, magic, 4) != 0 ||
            bits > (uint64_t)view.len || log > (uint64_t)view.len ||
            LX_JOURNAL_HEADER + bits + log > (uint64_t)view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "not a journal: expected a writable buffer that "
                        "lexecutor_c.engine.journal.create() made");
        return -1;
    }
    rt->journal = view;
    unsigned char *shared = base(rt) + LX_JOURNAL_HEADER;
    if (rt->nbits_bytes <= (Py_ssize_t)bits) {
        memset(shared, 0, (size_t)bits);
        if (rt->bits != NULL) {
            memcpy(shared, rt->bits, (size_t)rt->nbits_bytes);
            PyMem_Free(rt->bits);
        }
        rt->bits = shared;
        rt->nbits_bytes = (Py_ssize_t)bits;
        rt->bits_shared = 1;
    }
    else {
        lx_journal_bits_overflow(rt);
    }
    return 0;
}

int
lx_journal_detach(lx_runtime_obj *rt)
{
    if (rt->journal.obj == NULL) {
        return 0;
    }
    if (rt->bits_shared) {
        uint8_t *p = PyMem_Malloc(rt->nbits_bytes ? (size_t)rt->nbits_bytes : 1);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(p, rt->bits, (size_t)rt->nbits_bytes);
        rt->bits = p;
        rt->bits_shared = 0;
    }
    PyBuffer_Release(&rt->journal);
    memset(&rt->journal, 0, sizeof(rt->journal));
    return 0;
}

void
lx_journal_reset(lx_runtime_obj *rt)
{
    if (rt->journal.obj != NULL) {
        memset(base(rt) + 4, 0, 12);        /* flags and log_used */
    }
}

void
lx_journal_bits_overflow(lx_runtime_obj *rt)
{
    if (rt->journal.obj != NULL) {
        uint32_t flags;
        memcpy(&flags, base(rt) + 4, 4);
        flags |= LX_JOURNAL_BITS_OVERFLOW;
        memcpy(base(rt) + 4, &flags, 4);
    }
}

/* UTF-8 of a str (borrowed from the object's cache), or NULL for None and
 * for anything that cannot be encoded. */
static const char *
utf8(PyObject *s, Py_ssize_t *n)
{
    if (s == NULL || !PyUnicode_Check(s)) {
        return NULL;
    }
    const char *u = PyUnicode_AsUTF8AndSize(s, n);
    if (u == NULL) {
        PyErr_Clear();
    }
    return u;
}

/* The record: header fields, then nstr strings (NULL: None); appended only
 * when it fits, and made visible by advancing log_used last. */
static void
append(lx_runtime_obj *rt, char type, Py_ssize_t iid, long long line, int nstr,
       const char **strs, Py_ssize_t *lens)
{
    if (rt->journal.obj == NULL) {
        return;
    }
    unsigned char *b = base(rt);
    uint64_t used = get_u64(b + 8), cap = get_u64(b + 24), bits = get_u64(b + 16);
    unsigned char *log = b + LX_JOURNAL_HEADER + bits;
    uint64_t size = 4 + 1 + 8 + 8;
    for (int i = 0; i < nstr; i++) {
        size += 4 + (strs[i] ? (uint64_t)lens[i] : 0);
    }
    if (used > cap || size > cap - used) {
        uint32_t flags;
        memcpy(&flags, b + 4, 4);
        flags |= LX_JOURNAL_LOG_FULL;
        memcpy(b + 4, &flags, 4);
        return;
    }
    unsigned char *p = log + used;
    uint32_t size32 = (uint32_t)size;
    int64_t iid64 = (int64_t)iid, line64 = (int64_t)line;
    memcpy(p, &size32, 4);
    p[4] = (unsigned char)type;
    memcpy(p + 5, &iid64, 8);
    memcpy(p + 13, &line64, 8);
    p += 21;
    for (int i = 0; i < nstr; i++) {
        uint32_t n = strs[i] ? (uint32_t)lens[i] : 0xffffffffu;
        memcpy(p, &n, 4);
        p += 4;
        if (strs[i]) {
            memcpy(p, strs[i], (size_t)lens[i]);
            p += lens[i];
        }
    }
    uint64_t now = used + size;
    __atomic_store(&((uint64_t *)(void *)(b + 8))[0], &now, __ATOMIC_RELEASE);
}

void
lx_journal_injection(lx_runtime_obj *rt, Py_ssize_t iid, PyObject *kind, PyObject *name,
                     PyObject *line, PyObject *cls, PyObject *repr)
{
    if (rt->journal.obj == NULL) {
        return;
    }
    const char *s[4];
    Py_ssize_t n[4] = {0, 0, 0, 0};
    s[0] = utf8(kind, &n[0]);
    s[1] = utf8(name, &n[1]);
    s[2] = utf8(cls, &n[2]);
    s[3] = utf8(repr, &n[3]);
    if (s[3] != NULL && n[3] > LX_JOURNAL_REPR_MAX) {
        n[3] = LX_JOURNAL_REPR_MAX;
        while (n[3] > 0 && ((unsigned char)s[3][n[3]] & 0xC0) == 0x80) {
            n[3]--;     /* not in the middle of a character */
        }
    }
    long long ln = -1;
    if (line != NULL && PyLong_Check(line)) {
        ln = PyLong_AsLongLong(line);
        if (ln == -1 && PyErr_Occurred()) {
            PyErr_Clear();
        }
    }
    append(rt, 'I', iid, ln, 4, s, n);
}

void
lx_journal_failed_import(lx_runtime_obj *rt, Py_ssize_t iid, PyObject *module, PyObject *names)
{
    if (rt->journal.obj == NULL) {
        return;
    }
    PyObject *joined = NULL;
    const char *s[2];
    Py_ssize_t n[2] = {0, 0};
    s[0] = utf8(module, &n[0]);
    s[1] = NULL;
    if (names != NULL && PyUnicode_Check(names)) {
        s[1] = utf8(names, &n[1]);
    }
    else if (names != NULL && PyTuple_Check(names)) {
        /* ",a,b": a leading comma tells a tuple of names from a str ("*") */
        PyObject *comma = PyUnicode_FromString(",");
        PyObject *body = comma ? PyUnicode_Join(comma, names) : NULL;
        joined = body ? PyUnicode_Concat(comma, body) : NULL;
        Py_XDECREF(body);
        Py_XDECREF(comma);
        if (joined == NULL) {
            PyErr_Clear();
        }
        s[1] = utf8(joined, &n[1]);
    }
    append(rt, 'F', iid, -1, 2, s, n);
    Py_XDECREF(joined);
}
