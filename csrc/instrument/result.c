/* instrument/result.c - the Python objects instrument() returns.
 *
 * The IidInfo and LineInfo struct sequence types (made at module exec), the
 * context token stream (every site's `before`/`after` are slices of one str),
 * and the result tuple (text, iids, lines, line_map, undefined_uses) built
 * from a finished Ctx.
 */
#include "instrument/instrument.h"

/* -------------------------------------------------------- result objects */

/* The context tokens of every site are slices of one string: the leaves,
 * each cut to LX_TOKEN_MAX bytes, joined by single spaces. */
int
lxi_build_stream(Ctx *c)
{
    Buf b = {0};
    uint32_t chars = 0;
    for (uint32_t i = 0; i < c->nleaves; i++) {
        uint32_t s = c->leaves[i].start, e = c->leaves[i].end;
        if (e - s > LX_TOKEN_MAX) {
            e = s + LX_TOKEN_MAX;
            while (e > s && ((unsigned char)c->src[e] & 0xC0) == 0x80) {
                e--;
            }
        }
        if (i > 0) {
            if (buf_put(&b, " ", 1) < 0) {
                goto fail;
            }
            chars++;
        }
        c->leaves[i].cstart = chars;
        for (uint32_t k = s; k < e; k++) {
            chars += ((unsigned char)c->src[k] & 0xC0) != 0x80;
        }
        c->leaves[i].cend = chars;
        if (buf_put(&b, c->src + s, e - s) < 0) {
            goto fail;
        }
    }
    c->stream = PyUnicode_DecodeUTF8(b.data ? b.data : "", (Py_ssize_t)b.len, "replace");
    PyMem_Free(b.data);
    return c->stream == NULL ? -1 : 0;
fail:
    PyMem_Free(b.data);
    return -1;
}

static PyObject *
context_slice(Ctx *c, uint32_t lo, uint32_t hi, PyObject *empty)
{
    if (lo >= hi) {
        return Py_NewRef(empty);
    }
    return PyUnicode_Substring(c->stream, c->leaves[lo].cstart, c->leaves[hi - 1].cend);
}

/* first leaf starting at or after pos */
static uint32_t
leaf_at(Ctx *c, uint32_t pos)
{
    uint32_t lo = 0, hi = c->nleaves;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->leaves[mid].start < pos) {
            lo = mid + 1;
        }
        else {
            hi = mid;
        }
    }
    return lo;
}

PyObject *
lxi_build_result(Ctx *c, PyObject *empty)
{
    static const char *kinds[] = {"name", "attribute", "call", "line", "import"};
    PyObject *kind_str[5] = {NULL};
    PyObject *text = NULL, *iids = NULL, *lines = NULL, *line_map = NULL, *res = NULL;
    PyObject *undef = NULL;

    for (int i = 0; i < 5; i++) {
        kind_str[i] = PyUnicode_InternFromString(kinds[i]);
        if (kind_str[i] == NULL) {
            goto done;
        }
    }
    text = PyUnicode_DecodeUTF8(c->out.data ? c->out.data : "", (Py_ssize_t)c->out.len, "strict");
    iids = PyList_New(c->nsites);
    lines = PyList_New(c->nlines);
    if (text == NULL || iids == NULL || lines == NULL) {
        goto done;
    }
    for (uint32_t i = 0; i < c->nsites; i++) {
        Site *s = &c->sites[i];
        Node *n = &c->nodes[s->node];
        PyObject *rec = PyStructSequence_New((PyTypeObject *)c->st->IidInfo);
        if (rec == NULL) {
            goto done;
        }
        PyList_SET_ITEM(iids, i, rec);
        PyObject *before = empty, *after = empty;
        Py_INCREF(before);
        Py_INCREF(after);
        if (c->context > 0 && s->kind < 3) {
            uint32_t a = leaf_at(c, s->mask_start), b = leaf_at(c, s->mask_end);
            uint32_t k = (uint32_t)c->context;
            Py_DECREF(before);
            Py_DECREF(after);
            before = context_slice(c, a > k ? a - k : 0, a, empty);
            after = context_slice(c, b, b + k < c->nleaves ? b + k : c->nleaves, empty);
            if (before == NULL || after == NULL) {
                Py_XDECREF(before);
                Py_XDECREF(after);
                goto done;
            }
        }
        PyObject *name = PyUnicode_DecodeUTF8(c->src + s->name_off, s->name_len, "replace");
        if (name == NULL) {
            Py_DECREF(before);
            Py_DECREF(after);
            goto done;
        }
        PyObject *use = s->kind < 3 ? lxi_site_use(c, s->node) : Py_NewRef(Py_None);
        if (use == NULL) {
            Py_DECREF(before);
            Py_DECREF(after);
            Py_DECREF(name);
            goto done;
        }
        Py_INCREF(kind_str[s->kind]);
        PyObject *vals[12] = {
            PyLong_FromUnsignedLong(s->iid), kind_str[s->kind], name,
            PyLong_FromUnsignedLong(n->srow + 1), PyLong_FromUnsignedLong(n->scol),
            PyLong_FromUnsignedLong(n->erow + 1), PyLong_FromUnsignedLong(n->ecol),
            PyLong_FromUnsignedLong(n->start), PyLong_FromUnsignedLong(n->end),
            before, after, use,
        };
        int bad = 0;
        for (int j = 0; j < 12; j++) {
            if (vals[j] == NULL) {
                bad = 1;
            }
            PyStructSequence_SET_ITEM(rec, j, vals[j]);
        }
        if (bad) {
            goto done;
        }
    }
    for (uint32_t i = 0; i < c->nlines; i++) {
        PyObject *rec = PyStructSequence_New((PyTypeObject *)c->st->LineInfo);
        if (rec == NULL) {
            goto done;
        }
        PyList_SET_ITEM(lines, i, rec);
        PyObject *vals[3] = {
            PyLong_FromUnsignedLong(c->lines[i].line),
            PyLong_FromUnsignedLong(c->lines[i].iid),
            PyLong_FromUnsignedLong(c->lines[i].end_line),
        };
        int bad = 0;
        for (int j = 0; j < 3; j++) {
            if (vals[j] == NULL) {
                bad = 1;
            }
            PyStructSequence_SET_ITEM(rec, j, vals[j]);
        }
        if (bad) {
            goto done;
        }
    }
    if (c->ninserted == 0) {
        line_map = Py_NewRef(Py_None);
    }
    else {
        /* instrumented line L (1-based) -> original line; an inserted line
         * maps to the line that follows it */
        uint32_t total = 1;
        for (size_t i = 0; i < c->out.len; i++) {
            total += c->out.data[i] == '\n';
        }
        line_map = PyList_New(total);
        if (line_map == NULL) {
            goto done;
        }
        uint32_t k = 0, orig = 0;
        for (uint32_t out = 0; out < total; out++) {
            PyObject *v;
            if (k < c->ninserted && c->inserted[k] == orig) {
                v = PyLong_FromUnsignedLong(orig + 1);
                k++;
            }
            else {
                v = PyLong_FromUnsignedLong(orig + 1);
                orig++;
            }
            if (v == NULL) {
                goto done;
            }
            PyList_SET_ITEM(line_map, out, v);
        }
    }
    undef = PyList_New(c->nundef);
    if (undef == NULL) {
        goto done;
    }
    for (uint32_t i = 0; i < c->nundef; i++) {
        static const char *uses[] = {"read", "call", "attr", "method", "subscript",
                                     "iterate", "compare", "with"};
        UndefUse *u = &c->undef[i];
        Node *n = &c->nodes[u->ident];
        PyObject *detail = u->detail == NONE_IDX ? Py_NewRef(Py_None)
            : PyUnicode_DecodeUTF8(c->src + c->nodes[u->detail].start,
                                   c->nodes[u->detail].end - c->nodes[u->detail].start, "replace");
        PyObject *arity = u->arity == -2 ? Py_NewRef(Py_None) : PyLong_FromLong(u->arity);
        PyObject *t = (detail == NULL || arity == NULL) ? NULL :
            Py_BuildValue("(s#kksOO)", c->src + n->start, (Py_ssize_t)(n->end - n->start),
                          (unsigned long)n->srow + 1, (unsigned long)n->scol, uses[u->use],
                          detail, arity);
        Py_XDECREF(detail);
        Py_XDECREF(arity);
        if (t == NULL) {
            goto done;
        }
        PyList_SET_ITEM(undef, i, t);
    }
    res = PyTuple_Pack(5, text, iids, lines, line_map, undef);
done:
    Py_XDECREF(undef);
    for (int i = 0; i < 5; i++) {
        Py_XDECREF(kind_str[i]);
    }
    Py_XDECREF(text);
    Py_XDECREF(iids);
    Py_XDECREF(lines);
    Py_XDECREF(line_map);
    return res;
}


static PyStructSequence_Field iid_fields[] = {
    {"iid", "instrumentation id of the site"},
    {"kind", "name, attribute, call, line or import"},
    {"name", "name read, attribute, callee, or module"},
    {"line", "first line (1-based)"},
    {"col", "first column (UTF-8 byte offset)"},
    {"end_line", "last line (1-based)"},
    {"end_col", "end column (UTF-8 byte offset)"},
    {"start_byte", "start offset in the UTF-8 source"},
    {"end_byte", "end offset in the UTF-8 source"},
    {"before", "context tokens before the masked use"},
    {"after", "context tokens after the masked use"},
    {"use", "how the value is used: a tuple naming the use (call argument, iteration, "
            "unpacking, ...; docs/LOADERS.md) or None; an attribute, not part of the tuple"},
    {NULL, NULL},
};

/* 11 fields in the sequence (unpacking an IidInfo gives those); `use` is
 * an attribute only. */
static PyStructSequence_Desc iid_desc = {
    "lexecutor_c.IidInfo", "One instrumented site.", iid_fields, 11,
};

static PyStructSequence_Field line_fields[] = {
    {"line", "line of the statement or block header (1-based)"},
    {"iid", "iid of its line marker"},
    {"end_line", "last line of the statement or header"},
    {NULL, NULL},
};

static PyStructSequence_Desc line_desc = {
    "lexecutor_c.LineInfo", "One coverable line (one line marker).", line_fields, 3,
};

int
lxi_result_types(lx_state *st)
{
    st->IidInfo = (PyObject *)PyStructSequence_NewType(&iid_desc);
    st->LineInfo = (PyObject *)PyStructSequence_NewType(&line_desc);
    if (st->IidInfo == NULL || st->LineInfo == NULL) {
        return -1;
    }
    return 0;
}
