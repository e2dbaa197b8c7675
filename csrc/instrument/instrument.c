/* instrument/instrument.c - the entry point instrument() and the part's
 * module exec / traverse / clear.
 *
 * Python-equivalent of the entry point:
 *
 *     def instrument(source: str, filename="<snippet>", context=16, elide=True):
 *         tree = parse(source)             # SyntaxError on ERROR/MISSING nodes
 *         nodes = flatten(tree)            # tree.c
 *         scopes = analyse(nodes)          # scope.c
 *         text, sites, lines, inserted = emit(nodes, scopes)   # emit_*.c
 *         return text, [IidInfo(...)], [LineInfo(...)], line_map or None, undefined
 *                                          # result.c
 * The contract of the part is at the top of instrument.h.
 */
#include "instrument/instrument.h"

/* ------------------------------------------------------------ errors */

/* Raise the best SyntaxError for a tree with an ERROR/MISSING node (or a
 * Python-2-only statement): CPython's own message if its parser rejects the
 * source too, otherwise one naming the node's position. */
static void
raise_syntax_error(Ctx *c, PyObject *source, PyObject *filename, uint32_t bad)
{
    PyCompilerFlags flags = {.cf_flags = PyCF_ONLY_AST, .cf_feature_version = PY_MINOR_VERSION};
    PyObject *ast = Py_CompileStringObject(c->src, filename, Py_file_input, &flags, -1);
    if (ast == NULL) {
        return;   /* CPython's SyntaxError (or ValueError) is set */
    }
    Py_DECREF(ast);
    (void)source;
    Node *n = &c->nodes[bad];
    uint32_t ls = n->start, le = n->start;
    while (ls > 0 && c->src[ls - 1] != '\n') {
        ls--;
    }
    while (le < c->len && c->src[le] != '\n') {
        le++;
    }
    PyObject *line = PyUnicode_DecodeUTF8(c->src + ls, le - ls, "replace");
    PyObject *args = line == NULL ? NULL :
        Py_BuildValue("(s(OkkOkk))", "invalid syntax (tree-sitter could not parse this)",
                      filename, (unsigned long)n->srow + 1, (unsigned long)n->scol + 1, line,
                      (unsigned long)n->erow + 1, (unsigned long)n->ecol + 1);
    if (args != NULL) {
        PyErr_SetObject(PyExc_SyntaxError, args);
    }
    Py_XDECREF(args);
    Py_XDECREF(line);
}

/* ------------------------------------------------------------ entry */

static void
ctx_free(Ctx *c)
{
    PyMem_Free(c->nodes);
    PyMem_Free(c->leaves);
    PyMem_Free(c->scopes);
    PyMem_Free(c->names.e);
    PyMem_Free(c->undo);
    PyMem_Free(c->out.data);
    PyMem_Free(c->sites);
    PyMem_Free(c->lines);
    PyMem_Free(c->inserted);
    PyMem_Free(c->undef);
    Py_CLEAR(c->stream);
}

PyDoc_STRVAR(instrument_doc,
"instrument(source, filename='<snippet>', context=16, elide=True)\n--\n\n"
"Rewrite Python source so every value use goes through the loaders.\n"
"Returns (text, iids, lines, line_map, undefined_uses); see lexecutor_c.instrument.");

static PyObject *
core_instrument(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"source", "filename", "context", "elide", NULL};
    PyObject *source, *filename = NULL, *res = NULL, *empty = NULL;
    int context = 16, elide = 1;
    Ctx ctx = {0};
    Ctx *c = &ctx;
    TSParser *parser = NULL;
    TSTree *tree = NULL;
    Py_ssize_t len;

    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U|Uip:instrument", kwlist, &source,
                                     &filename, &context, &elide)) {
        return NULL;
    }
    if (context < 0 || context > 1024) {
        PyErr_SetString(PyExc_ValueError, "context must be between 0 and 1024 tokens");
        return NULL;
    }
    c->st = lx_get_state(module);
    c->src = PyUnicode_AsUTF8AndSize(source, &len);
    if (c->src == NULL) {
        return NULL;   /* lone surrogates: UnicodeEncodeError */
    }
    if ((size_t)len > LX_MAX_SOURCE) {
        PyErr_Format(PyExc_ValueError, "source too large (%zd bytes; the limit is %u)",
                     len, LX_MAX_SOURCE);
        return NULL;
    }
    const char *nul = memchr(c->src, '\0', (size_t)len);
    if (nul != NULL) {
        unsigned long row = 1;
        for (const char *p = c->src; p < nul; p++) {
            row += *p == '\n';
        }
        PyErr_Format(PyExc_ValueError, "source code cannot contain null bytes (line %lu)", row);
        return NULL;
    }
    if (filename == NULL) {
        filename = PyUnicode_FromString("<snippet>");
        if (filename == NULL) {
            return NULL;
        }
    }
    else {
        Py_INCREF(filename);
    }
    c->len = (uint32_t)len;
    c->first_error = c->forbidden = c->exit_call = c->calling = NONE_IDX;
    c->elide = elide;
    c->context = context;
    c->next_iid = 1;

    parser = ts_parser_new();
    if (parser == NULL || !ts_parser_set_language(parser, c->st->language)) {
        PyErr_SetString(PyExc_RuntimeError, "tree-sitter: cannot load the Python grammar");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    tree = ts_parser_parse_string(parser, NULL, c->src, c->len);
    Py_END_ALLOW_THREADS
    if (tree == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tree-sitter: parse failed");
        goto done;
    }
    if (lxi_flatten(c, ts_tree_root_node(tree)) < 0) {
        goto done;
    }
    ts_tree_delete(tree);
    tree = NULL;
    if (c->first_error != NONE_IDX) {
        raise_syntax_error(c, source, filename, c->first_error);
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_SyntaxError, "invalid syntax");
        }
        goto done;
    }
    if (c->forbidden != NONE_IDX) {
        /* tree-sitter read a Python 2 print/exec statement or a 3.12 type
         * alias.  If CPython rejects the source that is its SyntaxError;
         * if it accepts it (`print >> f, x` is a tuple, `type(x).y = 1` an
         * assignment), those statements are left as written. */
        PyCompilerFlags flags = {.cf_flags = PyCF_ONLY_AST, .cf_feature_version = PY_MINOR_VERSION};
        PyObject *ast = Py_CompileStringObject(c->src, filename, Py_file_input, &flags, -1);
        if (ast == NULL) {
            goto done;
        }
        Py_DECREF(ast);
    }
    if (context > 0 && (lxi_collect_leaves(c) < 0 || lxi_build_stream(c) < 0)) {
        goto done;
    }
    if (lxi_new_scope(c, S_MODULE, -1, 0) < 0 || lxi_analyse_children(c, 0, 0) < 0) {
        goto done;
    }
    c->cur_scope = 0;
    if (lxi_emit_block(c, 0, NULL, 0) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_SyntaxError, "unsupported syntax tree shape");
        }
        goto done;
    }
    empty = PyUnicode_FromStringAndSize("", 0);
    if (empty == NULL) {
        goto done;
    }
    res = lxi_build_result(c, empty);
done:
    Py_XDECREF(empty);
    Py_DECREF(filename);
    if (tree != NULL) {
        ts_tree_delete(tree);
    }
    if (parser != NULL) {
        ts_parser_delete(parser);
    }
    ctx_free(c);
    return res;
}

/* ------------------------------------------------------------ module */


static PyMethodDef instrument_methods[] = {
    {"instrument", (PyCFunction)(void (*)(void))core_instrument, METH_VARARGS | METH_KEYWORDS,
     instrument_doc},
    {NULL, NULL, 0, NULL},
};


int
lx_instrument_exec(PyObject *m, lx_state *st)
{
    PyObject *lang = NULL, *builtins = NULL, *keys = NULL;
    int rc = -1;

    st->grammar_module = PyImport_ImportModule("tree_sitter_python");
    if (st->grammar_module == NULL) {
        PyErr_SetString(PyExc_ImportError,
                        "lexecutor_c needs the tree-sitter-python 0.23.x grammar: "
                        "pip install 'tree-sitter-python>=0.23,<0.24'");
        goto done;
    }
    lang = PyObject_CallMethod(st->grammar_module, "language", NULL);
    if (lang == NULL) {
        goto done;
    }
    st->language = PyCapsule_GetPointer(lang, "tree_sitter.Language");
    if (st->language == NULL) {
        goto done;
    }
    uint32_t version = ts_language_version(st->language);
    if (version < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION ||
        version > TREE_SITTER_LANGUAGE_VERSION) {
        PyErr_Format(PyExc_ImportError,
                     "tree-sitter-python grammar has language ABI %u; this libtree-sitter "
                     "accepts %d to %d (install tree-sitter-python 0.23.x)",
                     version, TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION,
                     TREE_SITTER_LANGUAGE_VERSION);
        goto done;
    }
    if (lxi_grammar_tables(st) < 0) {
        goto done;
    }
    builtins = PyImport_ImportModule("builtins");
    if (builtins == NULL) {
        goto done;
    }
    keys = PyObject_Dir(builtins);
    if (keys == NULL) {
        goto done;
    }
    st->builtin_names = PyFrozenSet_New(keys);
    if (st->builtin_names == NULL || PyList_Sort(keys) < 0) {
        goto done;
    }
    st->nbuiltins = (uint32_t)PyList_GET_SIZE(keys);
    st->builtins_sorted = PyMem_Calloc(st->nbuiltins ? st->nbuiltins : 1, sizeof(char *));
    if (st->builtins_sorted == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (uint32_t i = 0; i < st->nbuiltins; i++) {
        /* byte order of UTF-8 = code point order, so the list sort is the
         * strcmp order the search needs */
        Py_ssize_t n;
        const char *u = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(keys, i), &n);
        if (u == NULL || (st->builtins_sorted[i] = PyMem_Malloc((size_t)n + 1)) == NULL) {
            if (u != NULL) {
                PyErr_NoMemory();
            }
            goto done;
        }
        memcpy(st->builtins_sorted[i], u, (size_t)n + 1);
    }
    if (lxi_result_types(st) < 0) {
        goto done;
    }
    if (PyModule_AddObjectRef(m, "IidInfo", st->IidInfo) < 0 ||
        PyModule_AddObjectRef(m, "LineInfo", st->LineInfo) < 0 ||
        PyModule_AddIntConstant(m, "MAX_DEPTH", LX_MAX_DEPTH) < 0 ||
        PyModule_AddFunctions(m, instrument_methods) < 0) {
        goto done;
    }
    rc = 0;
done:
    Py_XDECREF(lang);
    Py_XDECREF(builtins);
    Py_XDECREF(keys);
    return rc;
}

int
lx_instrument_traverse(lx_state *st, visitproc visit, void *arg)
{
    Py_VISIT(st->grammar_module);
    Py_VISIT(st->builtin_names);
    Py_VISIT(st->IidInfo);
    Py_VISIT(st->LineInfo);
    return 0;
}

void
lx_instrument_clear(lx_state *st)
{
    Py_CLEAR(st->grammar_module);
    Py_CLEAR(st->builtin_names);
    Py_CLEAR(st->IidInfo);
    Py_CLEAR(st->LineInfo);
    PyMem_Free(st->symkind);
    st->symkind = NULL;
    if (st->builtins_sorted != NULL) {
        for (uint32_t i = 0; i < st->nbuiltins; i++) {
            PyMem_Free(st->builtins_sorted[i]);
        }
        PyMem_Free(st->builtins_sorted);
        st->builtins_sorted = NULL;
    }
    st->nbuiltins = 0;
    st->nsymbols = 0;
    st->language = NULL;
}
