/* instrument/instrument.h - internal header of the instrumenter (csrc/instrument/).
 *
 * Contract of the part: lexecutor_c._core.instrument(source, filename,
 * context, elide) takes the source text (str, already decoded and with \n
 * line ends: lexecutor_c's Python side does that) and returns a NEW tuple
 * (text, iids, lines, line_map, undefined_uses): the rewritten source, one
 * IidInfo per instrumented site, one LineInfo per line marker, None or a list
 * mapping instrumented line - 1 to the original line, and one tuple per use
 * of an undefined name.  It raises SyntaxError for code tree-sitter or
 * CPython rejects, ValueError for NUL bytes or sources over LX_MAX_SOURCE,
 * RecursionError for nesting deeper than LX_MAX_DEPTH.  The loaders that the
 * text calls are specified in docs/LOADERS.md.
 *
 * The pipeline, one file per step, all working on one Ctx:
 *
 *     instrument.c  entry point: arguments, tree-sitter parse, the steps below
 *                   in order, SyntaxError reporting; module exec/traverse/clear
 *     tree.c        the grammar's kinds and fields (at exec), flattening the
 *                   tree-sitter tree into c->nodes, context leaves
 *     scope.c       name table, scope pass (what each scope binds), definite
 *                   assignment, how a name read resolves, undefined names
 *     emit_expr.c   emission of expressions (loader calls _n_ _a_ _c_)
 *     emit_stmt.c   emission of statements and blocks (line markers _l_,
 *                   imports _i_)
 *     result.c      the result objects (IidInfo, LineInfo, context tokens)
 *
 * Ownership: a Ctx lives on the C stack of one instrument() call and owns
 * every array in it (PyMem, freed by ctx_free in instrument.c) and the one
 * Python object c->stream.  c->st is borrowed module state; c->src borrows the
 * UTF-8 buffer of the source str, which the caller keeps alive.  Functions
 * returning int return 0 (or a non-negative value) on success and -1 with an
 * exception set; uint32_t results use NONE_IDX / 0 for failure as noted.
 * Functions shared between the files carry the lxi_ prefix; everything else
 * is static to its file.
 *
 * Includes: lx.h (module state) and <tree_sitter/api.h>; nothing from
 * runtime/, transparent/ or llm/.
 */
#ifndef LX_INSTRUMENT_INSTRUMENT_H
#define LX_INSTRUMENT_INSTRUMENT_H

#include "lx.h"

#include <stddef.h>
#include <string.h>
#include <tree_sitter/api.h>

#define LX_MAX_DEPTH 2000          /* CPython gives up near 3000 nested binops */
#define LX_MAX_SOURCE (256u << 20) /* tree-sitter offsets are 32-bit */
#define LX_MAX_PENDING 64         /* line markers one block header can carry */
#define LX_TOKEN_MAX 24            /* bytes of one context token */
#define NONE_IDX UINT32_MAX

/* ------------------------------------------------------------------ kinds */

enum {
    K_OTHER = 0, K_MODULE, K_IDENT, K_ATTRIBUTE, K_CALL, K_ARGLIST, K_KWARG,
    K_FUNCDEF, K_CLASSDEF, K_DECORATED, K_DECORATOR, K_LAMBDA, K_LAMBDA_PARAMS,
    K_PARAMS, K_DEFAULT_PARAM, K_TYPED_PARAM, K_TYPED_DEFAULT_PARAM,
    K_LIST_SPLAT_PATTERN, K_DICT_SPLAT_PATTERN, K_ASSIGNMENT, K_AUGASSIGN,
    K_NAMED_EXPR, K_FOR, K_FOR_IN_CLAUSE, K_WHILE, K_IF, K_ELIF, K_ELSE, K_TRY,
    K_EXCEPT, K_EXCEPT_GROUP, K_FINALLY, K_WITH, K_WITH_CLAUSE, K_WITH_ITEM,
    K_AS_PATTERN, K_AS_PATTERN_TARGET, K_MATCH, K_CASE, K_CASE_PATTERN, K_BLOCK,
    K_EXPR_STMT, K_RETURN, K_RAISE, K_PASS, K_BREAK, K_CONTINUE, K_DELETE,
    K_GLOBAL, K_NONLOCAL, K_ASSERT, K_IMPORT, K_IMPORT_FROM, K_FUTURE_IMPORT,
    K_ALIASED_IMPORT, K_DOTTED_NAME, K_RELATIVE_IMPORT, K_IMPORT_PREFIX,
    K_WILDCARD_IMPORT, K_PRINT_STMT, K_EXEC_STMT, K_TYPE_ALIAS_STMT, K_COMMENT,
    K_STRING, K_STRING_START, K_CONCAT_STRING, K_INTERPOLATION, K_TYPE,
    K_MEMBER_TYPE, K_PATTERN_LIST, K_TUPLE_PATTERN, K_LIST_PATTERN, K_TUPLE,
    K_LIST, K_PAREN_EXPR, K_EXPR_LIST, K_LIST_SPLAT, K_SUBSCRIPT, K_LISTCOMP,
    K_SETCOMP, K_DICTCOMP, K_GENEXP, K_ERROR, K_SPLAT_PATTERN,
    K_KEYWORD_PATTERN, K_CLASS_PATTERN, K_COMPARISON,
    K__COUNT
};

/* ------------------------------------------------------------------ buffer */

typedef struct {
    char *data;
    size_t len, cap;
} Buf;

static inline int
buf_reserve(Buf *b, size_t extra)
{
    if (b->len + extra <= b->cap) {
        return 0;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra) {
        cap *= 2;
    }
    char *p = PyMem_Realloc(b->data, cap);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

static inline int
buf_put(Buf *b, const char *s, size_t n)
{
    if (buf_reserve(b, n) < 0) {
        return -1;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

static inline int
buf_puts(Buf *b, const char *s)
{
    return buf_put(b, s, strlen(s));
}

/* Insert n bytes at pos, moving the tail (used to put a wrapper's prefix in
 * front of operands already emitted, so iids come out in post-order). */
static inline int
buf_insert(Buf *b, size_t pos, const char *s, size_t n)
{
    if (buf_reserve(b, n) < 0) {
        return -1;
    }
    memmove(b->data + pos + n, b->data + pos, b->len - pos);
    memcpy(b->data + pos, s, n);
    b->len += n;
    return 0;
}

/* ------------------------------------------------------------------ tree */

typedef struct {
    uint32_t start, end;         /* byte range */
    uint32_t srow, scol, erow, ecol;
    uint32_t parent, first, next, prev;
    int32_t scope;               /* scope this node opens, or -1 */
    uint16_t field;              /* field id under the parent, 0 = none */
    unsigned char kind;
    unsigned char named;
} Node;

typedef struct {
    uint32_t start, end;         /* bytes in the source */
    uint32_t cstart, cend;       /* code points in the token stream */
} Leaf;

/* Hash table of names, keyed by (tag, scope, name bytes).  Tags say what the
 * entry records; DEFINITE entries carry a count because the same name can be
 * made definite by nested blocks and undone when they end. */
enum { T_BOUND, T_GLOBAL, T_NONLOCAL, T_DELETED, T_FILEBOUND, T_DEFINITE };

typedef struct {
    uint32_t off, len, hash;
    int32_t scope;
    int32_t count;               /* DEFINITE: how many open blocks made it so */
    unsigned char flags, used;   /* 1 << T_BOUND, T_GLOBAL, ... */
} HEntry;

typedef struct {
    HEntry *e;
    uint32_t cap, n;
} HTable;

enum { S_MODULE, S_CLASS, S_FUNC, S_COMP };

typedef struct {
    int kind;
    int32_t parent;
} Scope;

typedef struct {
    uint32_t iid;
    unsigned char kind;          /* 0 name 1 attribute 2 call 3 line 4 import */
    uint32_t name_off, name_len; /* slice of the source naming the site */
    uint32_t node;               /* node for positions */
    uint32_t mask_start, mask_end;
} Site;

typedef struct {
    uint32_t line, end_line, iid;
} LineRec;

/* A use of a name bound nowhere in the file and not a builtin (Treefix's
 * undefinedness guidance): how it is used, on which line. */
enum { U_READ, U_CALL, U_ATTR, U_METHOD, U_SUBSCRIPT, U_ITERATE, U_COMPARE, U_WITH };

typedef struct {
    uint32_t ident;              /* the name's identifier node */
    uint32_t detail;             /* attribute / key / compared operand node, or NONE_IDX */
    int32_t arity;               /* arguments of a call, -1 with * or **, -2 none */
    unsigned char use;
} UndefUse;

typedef struct {
    lx_state *st;
    const char *src;
    uint32_t len;
    Node *nodes;
    uint32_t nnodes, cap;
    uint32_t first_error;
    uint32_t forbidden;          /* first Python-2-only statement */
    Leaf *leaves;
    uint32_t nleaves;
    PyObject *stream;            /* the leaves as one str, joined by spaces */
    Scope *scopes;
    int32_t nscopes, scopecap;
    HTable names;
    struct undo_rec { uint32_t off, len; int32_t scope; } *undo; /* DEFINITE keys to decrement */
    uint32_t nundo, undocap;
    int forbid_dq, forbid_sq;    /* inside f-strings delimited by " or ' */
    Buf out;
    Site *sites;
    uint32_t nsites, sitecap;
    LineRec *lines;
    uint32_t nlines, linecap;
    uint32_t *inserted;          /* source rows before which a line was added */
    uint32_t ninserted, inscap;
    uint32_t next_iid;
    int32_t cur_scope;
    uint32_t cls_off, cls_len;   /* innermost class name, for mangling */
    uint32_t exit_call;          /* call whose last argument carries a marker */
    uint32_t exit_marker;
    uint32_t calling;            /* function node of the call being emitted */
    int32_t calling_arity;
    UndefUse *undef;
    uint32_t nundef, undefcap;
    int future_annotations;
    int raw_annotations;         /* in a PEP 695 annotation scope: annotations as written */
    int elide;
    int context;
} Ctx;

#define N(i) (c->nodes[(i)])
#define KIND(i) (c->nodes[(i)].kind)
#define CHILDREN(p, ch) for (uint32_t ch = N(p).first; ch != NONE_IDX; ch = N(ch).next)

static inline int
grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    uint32_t ncap = *cap ? *cap : 64;
    while (ncap < need) {
        if (ncap > UINT32_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        ncap *= 2;
    }
    void *p = PyMem_Realloc(*arr, (size_t)ncap * elem);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *arr = p;
    *cap = ncap;
    return 0;
}

#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* tree access */

static inline uint32_t
field_child(Ctx *c, uint32_t n, uint16_t field)
{
    CHILDREN(n, ch) {
        if (N(ch).field == field) {
            return ch;
        }
    }
    return NONE_IDX;
}

static inline int
text_is(Ctx *c, uint32_t n, const char *s)
{
    size_t k = strlen(s);
    return N(n).end - N(n).start == k && memcmp(c->src + N(n).start, s, k) == 0;
}

/* the source bytes [from, to) into the output */
static inline int
copy(Ctx *c, uint32_t from, uint32_t to)
{
    return to > from ? buf_put(&c->out, c->src + from, to - from) : 0;
}

/* ---------------------------------------------------------------- tree.c */

/* Fill st->symkind and st->field from the grammar (module exec); 0 / -1. */
int lxi_grammar_tables(lx_state *st);
/* Flatten the tree under root into c->nodes (pre-order, children linked). */
int lxi_flatten(Ctx *c, TSNode root);
/* c->leaves: the context tokens, in source order. */
int lxi_collect_leaves(Ctx *c);

/* --------------------------------------------------------------- scope.c */

/* Scope pass: new_scope returns the new scope's index or -1. */
int32_t lxi_new_scope(Ctx *c, int kind, int32_t parent, uint32_t node);
int lxi_analyse_children(Ctx *c, uint32_t n, int32_t scope);

/* Definite assignment: names certainly bound at this point of the current
 * scope.  undo_to(mark) forgets those made definite since c->nundo was mark. */
int lxi_make_definite(Ctx *c, uint32_t ident);
int lxi_definite_target(Ctx *c, uint32_t n);
void lxi_undo_to(Ctx *c, uint32_t mark);

/* How a read of an identifier is emitted (never fails). */
enum { READ_PLAIN, READ_WRAP, READ_WRAP_NS, READ_GLOBAL };
int lxi_read_mode(Ctx *c, uint32_t ident);

/* Undefined names: is_undefined never fails; the others record a use. */
int lxi_is_undefined(Ctx *c, uint32_t ident);
int lxi_note_undefined_read(Ctx *c, uint32_t ident);
int lxi_add_undef(Ctx *c, uint32_t ident, int use, uint32_t detail, int32_t arity);

/* ----------------------------------------------------------- emit_expr.c */

int lxi_putf(Ctx *c, const char *fmt, unsigned long v);
int lxi_insertf(Ctx *c, size_t pos, const char *fmt, unsigned long v);
int lxi_add_site(Ctx *c, uint32_t iid, int kind, uint32_t name_node, uint32_t node,
                 uint32_t mask_start, uint32_t mask_end);
/* A new line marker for the statement or block header n: its iid, 0 on failure. */
uint32_t lxi_new_marker(Ctx *c, uint32_t n, uint32_t end_row);
int lxi_put_marks(Ctx *c, const uint32_t *marks, int n, const char *sep);

/* The one emission loop: n's text with each child replaced by what
 * part(c, child, arg) emits and the text between children kept. */
typedef int (*part_fn)(Ctx *c, uint32_t child, const void *arg);
int lxi_emit_parts(Ctx *c, uint32_t n, part_fn part, const void *arg);
int lxi_part_target(Ctx *c, uint32_t ch, const void *arg);
/* n's children: the one with the given field sent to fn, every other one
 * copied as written (other_raw) or emitted */
int lxi_emit_with_field(Ctx *c, uint32_t n, uint16_t field, int (*fn)(Ctx *, uint32_t),
                        int other_raw);

int lxi_emit(Ctx *c, uint32_t n);          /* any expression (or statement part) */
int lxi_emit_target(Ctx *c, uint32_t n);   /* an assignment / del / for target */
int lxi_emit_raw(Ctx *c, uint32_t n);      /* n as written */
int lxi_emit_annotation(Ctx *c, uint32_t t, int variable);
int lxi_emit_params(Ctx *c, uint32_t params);
int lxi_definite_params(Ctx *c, uint32_t params);

/* ----------------------------------------------------------- emit_stmt.c */

/* The statements of block (0: the module) with the line markers marks[0..nmarks)
 * of its header put in front of its first statement. */
int lxi_emit_block(Ctx *c, uint32_t block, const uint32_t *marks, int nmarks);

/* -------------------------------------------------------------- result.c */

/* Make st->IidInfo and st->LineInfo (module exec); 0 / -1. */
int lxi_result_types(lx_state *st);
/* c->stream: the context tokens as one str (needs c->leaves). */
int lxi_build_stream(Ctx *c);
/* The result tuple of instrument(): a NEW reference or NULL. */
PyObject *lxi_build_result(Ctx *c, PyObject *empty);

#endif
