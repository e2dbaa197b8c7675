/* instrument.c - the LExecutor-style source rewriter on the tree-sitter C API.
 *
 * instrument(source) parses with tree-sitter-python, flattens the syntax tree
 * into an array (O(1) navigation, parent links, field ids), runs a scope pass
 * (what each function, class, lambda and comprehension binds, declares global
 * or nonlocal, or deletes), then emits the rewritten text in one walk:
 *
 *     x = foo()        ->  x = _c_(2, _n_(1, "foo", lambda: foo)); _l_(3)
 *     y = x.bar + z    ->  y = _a_(5, _n_(4, "x", lambda: x), "bar") + _n_(6, "z", lambda: z); _l_(7)
 *
 * The contract with the runtime is docs/LOADERS.md.  iids are numbered in
 * post-order (an operand before the operation that uses it), so a wrapper's
 * prefix is spliced in front of its already emitted operands.
 *
 * Python-equivalent of the entry point:
 *
 *     def instrument(source: str, filename="<snippet>", context=16, elide=True):
 *         tree = parse(source)             # SyntaxError on ERROR/MISSING nodes
 *         scopes = analyse(tree)
 *         text, sites, lines, inserted = emit(tree, scopes)
 *         return text, [IidInfo(...)], [LineInfo(...)], line_map or None
 */
#include "lx.h"

#include <stddef.h>
#include <string.h>
#include <tree_sitter/api.h>

#define LX_MAX_DEPTH 2000          /* CPython gives up near 3000 nested binops */
#define LX_MAX_SOURCE (256u << 20) /* tree-sitter offsets are 32-bit */
#define LX_MAX_PENDING 64
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

static const struct { const char *name; unsigned char kind; } kind_names[] = {
    {"module", K_MODULE}, {"identifier", K_IDENT}, {"attribute", K_ATTRIBUTE},
    {"call", K_CALL}, {"argument_list", K_ARGLIST}, {"keyword_argument", K_KWARG},
    {"function_definition", K_FUNCDEF}, {"class_definition", K_CLASSDEF},
    {"decorated_definition", K_DECORATED}, {"decorator", K_DECORATOR},
    {"lambda", K_LAMBDA}, {"lambda_parameters", K_LAMBDA_PARAMS},
    {"parameters", K_PARAMS}, {"default_parameter", K_DEFAULT_PARAM},
    {"typed_parameter", K_TYPED_PARAM},
    {"typed_default_parameter", K_TYPED_DEFAULT_PARAM},
    {"list_splat_pattern", K_LIST_SPLAT_PATTERN},
    {"dictionary_splat_pattern", K_DICT_SPLAT_PATTERN},
    {"assignment", K_ASSIGNMENT}, {"augmented_assignment", K_AUGASSIGN},
    {"named_expression", K_NAMED_EXPR}, {"for_statement", K_FOR},
    {"for_in_clause", K_FOR_IN_CLAUSE}, {"while_statement", K_WHILE},
    {"if_statement", K_IF}, {"elif_clause", K_ELIF}, {"else_clause", K_ELSE},
    {"try_statement", K_TRY}, {"except_clause", K_EXCEPT},
    {"except_group_clause", K_EXCEPT_GROUP}, {"finally_clause", K_FINALLY},
    {"with_statement", K_WITH}, {"with_clause", K_WITH_CLAUSE},
    {"with_item", K_WITH_ITEM}, {"as_pattern", K_AS_PATTERN},
    {"as_pattern_target", K_AS_PATTERN_TARGET}, {"match_statement", K_MATCH},
    {"case_clause", K_CASE}, {"case_pattern", K_CASE_PATTERN},
    {"block", K_BLOCK}, {"expression_statement", K_EXPR_STMT},
    {"return_statement", K_RETURN}, {"raise_statement", K_RAISE},
    {"pass_statement", K_PASS}, {"break_statement", K_BREAK},
    {"continue_statement", K_CONTINUE}, {"delete_statement", K_DELETE},
    {"global_statement", K_GLOBAL}, {"nonlocal_statement", K_NONLOCAL},
    {"assert_statement", K_ASSERT}, {"import_statement", K_IMPORT},
    {"import_from_statement", K_IMPORT_FROM},
    {"future_import_statement", K_FUTURE_IMPORT},
    {"aliased_import", K_ALIASED_IMPORT}, {"dotted_name", K_DOTTED_NAME},
    {"relative_import", K_RELATIVE_IMPORT}, {"import_prefix", K_IMPORT_PREFIX},
    {"wildcard_import", K_WILDCARD_IMPORT}, {"print_statement", K_PRINT_STMT},
    {"exec_statement", K_EXEC_STMT}, {"type_alias_statement", K_TYPE_ALIAS_STMT},
    {"comment", K_COMMENT}, {"string", K_STRING}, {"string_start", K_STRING_START},
    {"concatenated_string", K_CONCAT_STRING}, {"interpolation", K_INTERPOLATION},
    {"type", K_TYPE}, {"member_type", K_MEMBER_TYPE},
    {"pattern_list", K_PATTERN_LIST}, {"tuple_pattern", K_TUPLE_PATTERN},
    {"list_pattern", K_LIST_PATTERN}, {"tuple", K_TUPLE}, {"list", K_LIST},
    {"parenthesized_expression", K_PAREN_EXPR}, {"expression_list", K_EXPR_LIST},
    {"list_splat", K_LIST_SPLAT}, {"subscript", K_SUBSCRIPT},
    {"list_comprehension", K_LISTCOMP}, {"set_comprehension", K_SETCOMP},
    {"dictionary_comprehension", K_DICTCOMP},
    {"generator_expression", K_GENEXP}, {"ERROR", K_ERROR},
    {"splat_pattern", K_SPLAT_PATTERN}, {"keyword_pattern", K_KEYWORD_PATTERN},
    {"class_pattern", K_CLASS_PATTERN}, {"comparison_operator", K_COMPARISON},
};

/* ------------------------------------------------------------------ buffer */

typedef struct {
    char *data;
    size_t len, cap;
} Buf;

static int
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

static int
buf_put(Buf *b, const char *s, size_t n)
{
    if (buf_reserve(b, n) < 0) {
        return -1;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

static int
buf_puts(Buf *b, const char *s)
{
    return buf_put(b, s, strlen(s));
}

/* Insert n bytes at pos, moving the tail (used to put a wrapper's prefix in
 * front of operands already emitted, so iids come out in post-order). */
static int
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
    int elide;
    int context;
} Ctx;

#define N(i) (c->nodes[(i)])
#define KIND(i) (c->nodes[(i)].kind)
#define CHILDREN(p, ch) for (uint32_t ch = N(p).first; ch != NONE_IDX; ch = N(ch).next)

static int
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

/* -------------------------------------------------------------- flatten */

static uint32_t
add_node(Ctx *c, TSNode tn, uint16_t field, uint32_t parent)
{
    if (GROW(c->nodes, c->cap, c->nnodes + 1) < 0) {
        return NONE_IDX;
    }
    uint32_t i = c->nnodes++;
    Node *n = &c->nodes[i];
    TSPoint sp = ts_node_start_point(tn), ep = ts_node_end_point(tn);
    TSSymbol sym = ts_node_symbol(tn);
    n->start = ts_node_start_byte(tn);
    n->end = ts_node_end_byte(tn);
    n->srow = sp.row;
    n->scol = sp.column;
    n->erow = ep.row;
    n->ecol = ep.column;
    n->parent = parent;
    n->first = n->next = n->prev = NONE_IDX;
    n->scope = -1;
    n->field = field;
    n->named = ts_node_is_named(tn);
    n->kind = sym == (TSSymbol)-1 ? K_ERROR   /* ts_builtin_sym_error */
              : (n->named && sym < c->st->nsymbols) ? c->st->symkind[sym] : K_OTHER;
    if (c->first_error == NONE_IDX && (n->kind == K_ERROR || ts_node_is_missing(tn))) {
        c->first_error = i;
    }
    if (c->forbidden == NONE_IDX &&
        (n->kind == K_PRINT_STMT || n->kind == K_EXEC_STMT || n->kind == K_TYPE_ALIAS_STMT)) {
        c->forbidden = i;
    }
    return i;
}

/* Iterative pre-order walk with one cursor: node i's children follow it. */
static int
flatten(Ctx *c, TSNode root)
{
    TSTreeCursor cur = ts_tree_cursor_new(root);
    uint32_t *stack = NULL, scap = 0, depth = 0;
    int rc = -1;

    if (add_node(c, root, 0, NONE_IDX) == NONE_IDX || GROW(stack, scap, 1) < 0) {
        goto done;
    }
    stack[0] = 0;
    for (;;) {
        if (ts_tree_cursor_goto_first_child(&cur)) {
            depth++;
            if (depth > LX_MAX_DEPTH) {
                PyErr_Format(PyExc_RecursionError,
                             "source nests more than %d levels deep", LX_MAX_DEPTH);
                goto done;
            }
            if (GROW(stack, scap, depth + 1) < 0) {
                goto done;
            }
            uint32_t parent = stack[depth - 1];
            uint32_t i = add_node(c, ts_tree_cursor_current_node(&cur),
                                  ts_tree_cursor_current_field_id(&cur), parent);
            if (i == NONE_IDX) {
                goto done;
            }
            c->nodes[parent].first = i;
            stack[depth] = i;
            continue;
        }
        for (;;) {
            if (depth == 0) {
                rc = 0;
                goto done;
            }
            if (ts_tree_cursor_goto_next_sibling(&cur)) {
                uint32_t prev = stack[depth];
                uint32_t i = add_node(c, ts_tree_cursor_current_node(&cur),
                                      ts_tree_cursor_current_field_id(&cur),
                                      stack[depth - 1]);
                if (i == NONE_IDX) {
                    goto done;
                }
                c->nodes[prev].next = i;
                c->nodes[i].prev = prev;
                stack[depth] = i;
                break;
            }
            ts_tree_cursor_goto_parent(&cur);
            depth--;
        }
    }
done:
    ts_tree_cursor_delete(&cur);
    PyMem_Free(stack);
    return rc;
}

/* Context tokens for the value model: leaves in source order, a string
 * literal counting as one token, comments left out. */
static int
collect_leaves(Ctx *c)
{
    uint32_t cap = 0, skip_until = 0;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        Node *n = &c->nodes[i];
        if (n->start < skip_until || n->kind == K_COMMENT) {
            continue;
        }
        if (n->kind == K_STRING || (n->first == NONE_IDX && n->end > n->start)) {
            if (GROW(c->leaves, cap, c->nleaves + 1) < 0) {
                return -1;
            }
            c->leaves[c->nleaves].start = n->start;
            c->leaves[c->nleaves].end = n->end;
            c->nleaves++;
            if (n->kind == K_STRING) {
                skip_until = n->end;
            }
        }
    }
    return 0;
}

/* ----------------------------------------------------------- name table */

static uint32_t
name_hash(const char *s, uint32_t len, int32_t scope)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    }
    return h ^ ((uint32_t)scope * 2654435761u);
}

/* Find the entry for (scope, name) -- all that is known of that name in that
 * scope, as flags -- with create, add it if absent.  Returns NULL when
 * absent (or on memory error with an exception set). */
static HEntry *
ht_find(Ctx *c, int32_t scope, uint32_t off, uint32_t len, int create)
{
    HTable *t = &c->names;
    if (create && (t->n + 1) * 2 > t->cap) {
        uint32_t ncap = t->cap ? t->cap * 2 : 256;
        HEntry *ne = PyMem_Calloc(ncap, sizeof(HEntry));
        if (ne == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        for (uint32_t i = 0; i < t->cap; i++) {
            if (t->e[i].used) {
                uint32_t j = t->e[i].hash & (ncap - 1);
                while (ne[j].used) {
                    j = (j + 1) & (ncap - 1);
                }
                ne[j] = t->e[i];
            }
        }
        PyMem_Free(t->e);
        t->e = ne;
        t->cap = ncap;
    }
    if (t->cap == 0) {
        return NULL;
    }
    uint32_t h = name_hash(c->src + off, len, scope);
    uint32_t j = h & (t->cap - 1);
    while (t->e[j].used) {
        HEntry *e = &t->e[j];
        if (e->hash == h && e->scope == scope && e->len == len &&
            memcmp(c->src + e->off, c->src + off, len) == 0) {
            return e;
        }
        j = (j + 1) & (t->cap - 1);
    }
    if (!create) {
        return NULL;
    }
    HEntry *e = &t->e[j];
    e->used = 1;
    e->hash = h;
    e->flags = 0;
    e->scope = scope;
    e->off = off;
    e->len = len;
    e->count = 0;
    t->n++;
    return e;
}

#define HAS(e, tag) ((e) != NULL && ((tag) == T_DEFINITE ? (e)->count > 0 : ((e)->flags >> (tag)) & 1))

static int
ht_has(Ctx *c, unsigned char tag, int32_t scope, uint32_t off, uint32_t len)
{
    HEntry *e = ht_find(c, scope, off, len, 0);
    return HAS(e, tag);
}

static int
ht_add(Ctx *c, unsigned char tag, int32_t scope, uint32_t off, uint32_t len)
{
    HEntry *e = ht_find(c, scope, off, len, 1);
    if (e == NULL) {
        return -1;
    }
    e->flags |= (unsigned char)(1u << tag);
    return 0;
}

/* ------------------------------------------------------------ scope pass */

static int32_t
new_scope(Ctx *c, int kind, int32_t parent, uint32_t node)
{
    if (c->nscopes >= c->scopecap) {
        uint32_t cap = (uint32_t)c->scopecap;
        if (GROW(c->scopes, cap, (uint32_t)c->nscopes + 1) < 0) {
            return -1;
        }
        c->scopecap = (int32_t)cap;
    }
    int32_t s = c->nscopes++;
    c->scopes[s].kind = kind;
    c->scopes[s].parent = parent;
    c->nodes[node].scope = s;
    return s;
}

static int
bind(Ctx *c, int32_t scope, uint32_t ident)
{
    uint32_t off = N(ident).start, len = N(ident).end - N(ident).start;
    if (ht_add(c, T_BOUND, scope, off, len) < 0 || ht_add(c, T_FILEBOUND, -1, off, len) < 0) {
        return -1;
    }
    /* `global x; x = 1` in a function binds the module's x */
    if (scope > 0 && ht_has(c, T_GLOBAL, scope, off, len)) {
        return ht_add(c, T_BOUND, 0, off, len);
    }
    return 0;
}

static int
mark_deleted(Ctx *c, int32_t scope, uint32_t ident)
{
    uint32_t off = N(ident).start, len = N(ident).end - N(ident).start;
    if (ht_add(c, T_DELETED, scope, off, len) < 0) {
        return -1;
    }
    if (ht_has(c, T_GLOBAL, scope, off, len)) {
        return ht_add(c, T_DELETED, 0, off, len);
    }
    if (ht_has(c, T_NONLOCAL, scope, off, len)) {
        for (int32_t s = c->scopes[scope].parent; s > 0; s = c->scopes[s].parent) {
            if (ht_add(c, T_DELETED, s, off, len) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* Names bound by an assignment-like target (identifiers, unpacking). */
static int
bind_target(Ctx *c, int32_t scope, uint32_t n, int deleted)
{
    switch (KIND(n)) {
    case K_IDENT:
        if (bind(c, scope, n) < 0) {
            return -1;
        }
        return deleted ? mark_deleted(c, scope, n) : 0;
    case K_PATTERN_LIST: case K_TUPLE_PATTERN: case K_LIST_PATTERN: case K_TUPLE:
    case K_LIST: case K_PAREN_EXPR: case K_EXPR_LIST: case K_LIST_SPLAT_PATTERN:
    case K_LIST_SPLAT: case K_AS_PATTERN_TARGET:
        CHILDREN(n, ch) {
            if (N(ch).named && bind_target(c, scope, ch, deleted) < 0) {
                return -1;
            }
        }
        return 0;
    default:
        return 0;
    }
}

/* Capture names of a match pattern (an approximation that errs towards
 * "bound", which only ever makes the rewriter more careful). */
static int
bind_pattern(Ctx *c, int32_t scope, uint32_t n)
{
    switch (KIND(n)) {
    case K_DOTTED_NAME: {
        uint32_t first = N(n).first;
        if (first != NONE_IDX && N(first).next == NONE_IDX && KIND(first) == K_IDENT) {
            uint32_t p = N(n).parent;
            if (!(KIND(p) == K_CLASS_PATTERN && N(p).first == n)) {
                return bind(c, scope, first);
            }
        }
        return 0;
    }
    case K_IDENT: {
        uint32_t p = N(n).parent;
        if (KIND(p) == K_KEYWORD_PATTERN && N(p).first == n) {
            return 0;
        }
        return bind(c, scope, n);
    }
    default:
        CHILDREN(n, ch) {
            if (N(ch).named && bind_pattern(c, scope, ch) < 0) {
                return -1;
            }
        }
        return 0;
    }
}

static int analyse(Ctx *c, uint32_t n, int32_t scope);

static int
analyse_children(Ctx *c, uint32_t n, int32_t scope)
{
    CHILDREN(n, ch) {
        if (N(ch).named && analyse(c, ch, scope) < 0) {
            return -1;
        }
    }
    return 0;
}

static int32_t
function_scope_of(Ctx *c, int32_t scope)
{
    while (scope > 0 && c->scopes[scope].kind == S_COMP) {
        scope = c->scopes[scope].parent;
    }
    return scope;
}

/* Parameters: names bind in the new scope, defaults and annotations are
 * evaluated (and analysed) in the enclosing one. */
static int
analyse_params(Ctx *c, uint32_t params, int32_t outer, int32_t inner)
{
    CHILDREN(params, p) {
        switch (KIND(p)) {
        case K_IDENT:
            if (bind(c, inner, p) < 0) {
                return -1;
            }
            break;
        case K_DEFAULT_PARAM: case K_TYPED_DEFAULT_PARAM: case K_TYPED_PARAM:
        case K_LIST_SPLAT_PATTERN: case K_DICT_SPLAT_PATTERN:
            CHILDREN(p, q) {
                if (KIND(q) == K_IDENT && N(q).field != c->st->field.value) {
                    if (bind(c, inner, q) < 0) {
                        return -1;
                    }
                }
                else if (KIND(q) == K_LIST_SPLAT_PATTERN || KIND(q) == K_DICT_SPLAT_PATTERN) {
                    CHILDREN(q, r) {
                        if (KIND(r) == K_IDENT && bind(c, inner, r) < 0) {
                            return -1;
                        }
                    }
                }
                else if (N(q).named && analyse(c, q, outer) < 0) {
                    return -1;
                }
            }
            break;
        default:
            if (N(p).named && analyse(c, p, outer) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

static int
analyse(Ctx *c, uint32_t n, int32_t scope)
{
    const lx_fields *f = &c->st->field;
    switch (KIND(n)) {
    case K_FUNCDEF:
    case K_CLASSDEF: {
        int isfunc = KIND(n) == K_FUNCDEF;
        int32_t inner = new_scope(c, isfunc ? S_FUNC : S_CLASS, scope, n);
        if (inner < 0) {
            return -1;
        }
        CHILDREN(n, ch) {
            if (N(ch).field == f->name) {
                if (bind(c, scope, ch) < 0) {
                    return -1;
                }
            }
            else if (N(ch).field == f->parameters) {
                if (analyse_params(c, ch, scope, inner) < 0) {
                    return -1;
                }
            }
            else if (N(ch).field == f->body) {
                if (analyse_children(c, ch, inner) < 0) {
                    return -1;
                }
            }
            else if (N(ch).named && analyse(c, ch, scope) < 0) {
                return -1;
            }
        }
        return 0;
    }
    case K_LAMBDA: {
        int32_t inner = new_scope(c, S_FUNC, scope, n);
        if (inner < 0) {
            return -1;
        }
        CHILDREN(n, ch) {
            if (N(ch).field == f->parameters) {
                if (analyse_params(c, ch, scope, inner) < 0) {
                    return -1;
                }
            }
            else if (N(ch).named && analyse(c, ch, inner) < 0) {
                return -1;
            }
        }
        return 0;
    }
    case K_LISTCOMP: case K_SETCOMP: case K_DICTCOMP: case K_GENEXP: {
        int32_t inner = new_scope(c, S_COMP, scope, n);
        int first_clause = 1;
        if (inner < 0) {
            return -1;
        }
        CHILDREN(n, ch) {
            if (KIND(ch) == K_FOR_IN_CLAUSE) {
                CHILDREN(ch, q) {
                    if (N(q).field == f->left) {
                        if (bind_target(c, inner, q, 0) < 0 || analyse(c, q, inner) < 0) {
                            return -1;
                        }
                    }
                    else if (N(q).named &&
                             analyse(c, q, (first_clause && N(q).field == f->right) ? scope : inner) < 0) {
                        return -1;
                    }
                }
                first_clause = 0;
            }
            else if (N(ch).named && analyse(c, ch, inner) < 0) {
                return -1;
            }
        }
        return 0;
    }
    case K_ASSIGNMENT: case K_AUGASSIGN: case K_FOR:
        CHILDREN(n, ch) {
            if (N(ch).field == f->left && bind_target(c, scope, ch, 0) < 0) {
                return -1;
            }
        }
        return analyse_children(c, n, scope);
    case K_NAMED_EXPR:
        CHILDREN(n, ch) {
            if (N(ch).field == f->name && bind(c, function_scope_of(c, scope), ch) < 0) {
                return -1;
            }
        }
        return analyse_children(c, n, scope);
    case K_AS_PATTERN: {
        uint32_t p = N(n).parent;
        int in_except = KIND(p) == K_EXCEPT || KIND(p) == K_EXCEPT_GROUP;
        CHILDREN(n, ch) {
            if (N(ch).field == f->alias && bind_target(c, scope, ch, in_except) < 0) {
                return -1;
            }
        }
        return analyse_children(c, n, scope);
    }
    case K_DELETE:
        CHILDREN(n, ch) {
            if (N(ch).named && bind_target(c, scope, ch, 1) < 0) {
                return -1;
            }
        }
        return analyse_children(c, n, scope);
    case K_GLOBAL: case K_NONLOCAL:
        CHILDREN(n, ch) {
            if (KIND(ch) == K_IDENT) {
                uint32_t off = N(ch).start, len = N(ch).end - N(ch).start;
                if (ht_add(c, KIND(n) == K_GLOBAL ? T_GLOBAL : T_NONLOCAL, scope, off, len) < 0 ||
                    ht_add(c, T_FILEBOUND, -1, off, len) < 0) {
                    return -1;
                }
            }
        }
        return 0;
    case K_IMPORT: case K_IMPORT_FROM:
        CHILDREN(n, ch) {
            if (N(ch).field != f->name) {
                continue;
            }
            uint32_t target = NONE_IDX;
            if (KIND(ch) == K_ALIASED_IMPORT) {
                CHILDREN(ch, q) {
                    if (N(q).field == f->alias) {
                        target = q;
                    }
                }
            }
            else if (KIND(ch) == K_DOTTED_NAME) {
                target = N(ch).first;   /* import a.b binds a; from m import x binds x */
            }
            if (target != NONE_IDX && KIND(target) == K_IDENT && bind(c, scope, target) < 0) {
                return -1;
            }
        }
        return 0;
    case K_FUTURE_IMPORT:
        CHILDREN(n, ch) {
            if (KIND(ch) == K_DOTTED_NAME && N(ch).end - N(ch).start == 11 &&
                memcmp(c->src + N(ch).start, "annotations", 11) == 0) {
                c->future_annotations = 1;
            }
        }
        return 0;
    case K_CASE:
        CHILDREN(n, ch) {
            if (KIND(ch) == K_CASE_PATTERN) {
                if (bind_pattern(c, scope, ch) < 0) {
                    return -1;
                }
            }
            else if (N(ch).named && analyse(c, ch, scope) < 0) {
                return -1;
            }
        }
        return 0;
    default:
        return analyse_children(c, n, scope);
    }
}

/* -------------------------------------------------------------- emission */

static int emit(Ctx *c, uint32_t n);
static int emit_target(Ctx *c, uint32_t n);
static int emit_block(Ctx *c, uint32_t block, const uint32_t *marks, int nmarks);

static int
copy(Ctx *c, uint32_t from, uint32_t to)
{
    return to > from ? buf_put(&c->out, c->src + from, to - from) : 0;
}

/* Keep only the line breaks of a dropped stretch (it always lies inside
 * parentheses we opened, so plain newlines are safe there). */
static int
copy_newlines(Ctx *c, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++) {
        if (c->src[i] == '\n' && buf_put(&c->out, "\n", 1) < 0) {
            return -1;
        }
    }
    return 0;
}


/* Would text inserted at pos fuse with a keyword or name before it, as in
 * `if(x)` or `return(x)`? */
static int
glued(Ctx *c, size_t pos)
{
    if (pos == 0) {
        return 0;
    }
    unsigned char ch = (unsigned char)c->out.data[pos - 1];
    return ch == '_' || ch >= 0x80 || (ch >= '0' && ch <= '9') ||
           ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z');
}

static int
putf(Ctx *c, const char *fmt, unsigned long v)
{
    char tmp[64];
    int sp = fmt[0] == '_' && glued(c, c->out.len);
    if (sp) {
        tmp[0] = ' ';
    }
    int k = PyOS_snprintf(tmp + sp, sizeof tmp - 1, fmt, v);
    return buf_put(&c->out, tmp, (size_t)k + (size_t)sp);
}

static int
insertf(Ctx *c, size_t pos, const char *fmt, unsigned long v)
{
    char tmp[64];
    int sp = glued(c, pos);
    if (sp) {
        tmp[0] = ' ';
    }
    int k = PyOS_snprintf(tmp + sp, sizeof tmp - 1, fmt, v);
    return buf_insert(&c->out, pos, tmp, (size_t)k + (size_t)sp);
}

static int
add_site(Ctx *c, uint32_t iid, int kind, uint32_t name_node, uint32_t node,
         uint32_t mask_start, uint32_t mask_end)
{
    if (GROW(c->sites, c->sitecap, c->nsites + 1) < 0) {
        return -1;
    }
    Site *s = &c->sites[c->nsites++];
    s->iid = iid;
    s->kind = (unsigned char)kind;
    s->name_off = name_node == NONE_IDX ? 0 : N(name_node).start;
    s->name_len = name_node == NONE_IDX ? 0 : N(name_node).end - N(name_node).start;
    s->node = node;
    s->mask_start = mask_start;
    s->mask_end = mask_end;
    return 0;
}

/* A new line marker for the statement or block header n; returns its iid. */
static uint32_t
new_marker(Ctx *c, uint32_t n, uint32_t end_row)
{
    uint32_t iid = c->next_iid++;
    if (GROW(c->lines, c->linecap, c->nlines + 1) < 0 ||
        add_site(c, iid, 3, NONE_IDX, n, N(n).start, N(n).end) < 0) {
        return 0;
    }
    LineRec *r = &c->lines[c->nlines++];
    r->line = N(n).srow + 1;
    r->end_line = end_row + 1;
    r->iid = iid;
    return iid;
}

static int
put_marks(Ctx *c, const uint32_t *marks, int n, const char *sep)
{
    if (n > 0 && glued(c, c->out.len) && buf_put(&c->out, " ", 1) < 0) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (putf(c, "_l_(%lu)", marks[i]) < 0 || buf_puts(&c->out, sep) < 0) {
            return -1;
        }
    }
    return 0;
}

static uint32_t
field_child(Ctx *c, uint32_t n, uint16_t field)
{
    CHILDREN(n, ch) {
        if (N(ch).field == field) {
            return ch;
        }
    }
    return NONE_IDX;
}

static int
text_is(Ctx *c, uint32_t n, const char *s)
{
    size_t k = strlen(s);
    return N(n).end - N(n).start == k && memcmp(c->src + N(n).start, s, k) == 0;
}

/* -- definite assignment: names certainly bound at this point of a scope */

static int
make_definite(Ctx *c, uint32_t ident)
{
    HEntry *e = ht_find(c, c->cur_scope, N(ident).start, N(ident).end - N(ident).start, 1);
    if (e == NULL || GROW(c->undo, c->undocap, c->nundo + 1) < 0) {
        return -1;
    }
    e->count++;
    c->undo[c->nundo].off = N(ident).start;
    c->undo[c->nundo].len = N(ident).end - N(ident).start;
    c->undo[c->nundo].scope = c->cur_scope;
    c->nundo++;
    return 0;
}

static int
definite_target(Ctx *c, uint32_t n)
{
    switch (KIND(n)) {
    case K_IDENT:
        return make_definite(c, n);
    case K_PATTERN_LIST: case K_TUPLE_PATTERN: case K_LIST_PATTERN: case K_TUPLE:
    case K_LIST: case K_PAREN_EXPR: case K_LIST_SPLAT_PATTERN: case K_LIST_SPLAT:
    case K_AS_PATTERN_TARGET:
        CHILDREN(n, ch) {
            if (N(ch).named && definite_target(c, ch) < 0) {
                return -1;
            }
        }
        return 0;
    default:
        return 0;
    }
}

static void
undo_to(Ctx *c, uint32_t mark)
{
    /* keys, not slots, are logged: inserting a key may rehash the table */
    while (c->nundo > mark) {
        c->nundo--;
        struct undo_rec *u = &c->undo[c->nundo];
        HEntry *e = ht_find(c, u->scope, u->off, u->len, 0);
        if (e != NULL) {
            e->count--;
        }
    }
}

/* -- name reads */

enum { READ_PLAIN, READ_WRAP, READ_WRAP_NS, READ_GLOBAL };

/* Does a read of this name in the current scope resolve in the module's
 * globals (LOAD_GLOBAL / LOAD_NAME falling through to globals)? */
static int
resolves_global(Ctx *c, uint32_t off, uint32_t len)
{
    int32_t s = c->cur_scope;
    int first = 1;
    while (s > 0) {
        int kind = c->scopes[s].kind;
        HEntry *e = ht_find(c, s, off, len, 0);
        if (HAS(e, T_GLOBAL)) {
            return 1;
        }
        if (HAS(e, T_NONLOCAL)) {
            return 0;
        }
        if (HAS(e, T_BOUND) && (kind != S_CLASS || first)) {
            return 0;
        }
        first = 0;
        s = c->scopes[s].parent;
    }
    return 1;
}

/* Is the name one of the builtins module's?  (binary search, no objects) */
static int
is_builtin(Ctx *c, uint32_t off, uint32_t len)
{
    const char *name = c->src + off;
    uint32_t lo = 0, hi = c->st->nbuiltins;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const char *b = c->st->builtins_sorted[mid];
        int cmp = strncmp(b, name, len);
        if (cmp == 0 && b[len] != '\0') {
            cmp = 1;   /* b is longer: b > name */
        }
        if (cmp == 0) {
            return 1;
        }
        if (cmp < 0) {
            lo = mid + 1;
        }
        else {
            hi = mid;
        }
    }
    return 0;
}

static int
read_mode(Ctx *c, uint32_t ident)
{
    uint32_t off = N(ident).start, len = N(ident).end - N(ident).start;
    int32_t s = c->cur_scope;
    HEntry *e = ht_find(c, s, off, len, 0);   /* one lookup for all that is known */
    int local = HAS(e, T_BOUND) && !HAS(e, T_GLOBAL) && !HAS(e, T_NONLOCAL);
    if (c->elide) {
        if (local && !HAS(e, T_DELETED) && HAS(e, T_DEFINITE)) {
            return READ_PLAIN;
        }
        if (!local && !ht_has(c, T_FILEBOUND, -1, off, len) && is_builtin(c, off, len)) {
            return READ_PLAIN;
        }
    }
    if (c->scopes[s].kind == S_CLASS &&
        (local || text_is(c, ident, "__module__") || text_is(c, ident, "__qualname__"))) {
        return READ_WRAP_NS;
    }
    if (text_is(c, ident, "__class__")) {
        return READ_WRAP;   /* the implicit cell of methods: keep it a closure read */
    }
    return resolves_global(c, off, len) ? READ_GLOBAL : READ_WRAP;
}

/* The quote character a wrapper may use here: inside an f-string
 * expression (3.11) the string's own single-character delimiter is not
 * allowed; 0 when neither quote is (then the use is left as written). */
static char
quote_char(Ctx *c)
{
    return !c->forbid_dq ? '"' : !c->forbid_sq ? '\'' : 0;
}

/* Is the name read here bound in no scope it can see, and no builtin? */
static int
is_undefined(Ctx *c, uint32_t ident)
{
    uint32_t off = N(ident).start, len = N(ident).end - N(ident).start;
    if (!ht_has(c, T_FILEBOUND, -1, off, len)) {
        /* bound nowhere in the file: undefined unless a builtin */
        return !is_builtin(c, off, len) && !text_is(c, ident, "__class__");
    }
    int32_t s = c->cur_scope;
    int first = 1;
    while (s >= 0) {
        HEntry *e = ht_find(c, s, off, len, 0);
        if (HAS(e, T_GLOBAL)) {
            return !ht_has(c, T_BOUND, 0, off, len) && !is_builtin(c, off, len);
        }
        if (HAS(e, T_NONLOCAL)) {
            return 0;
        }
        if (HAS(e, T_BOUND) && (c->scopes[s].kind != S_CLASS || first)) {
            return 0;
        }
        first = 0;
        s = c->scopes[s].parent;
    }
    return !is_builtin(c, off, len) && !text_is(c, ident, "__class__");
}

static int
add_undef(Ctx *c, uint32_t ident, int use, uint32_t detail, int32_t arity)
{
    if (GROW(c->undef, c->undefcap, c->nundef + 1) < 0) {
        return -1;
    }
    UndefUse *u = &c->undef[c->nundef++];
    u->ident = ident;
    u->use = (unsigned char)use;
    u->detail = detail;
    u->arity = arity;
    return 0;
}

/* Record a plain read of an undefined name with what its parent does to it. */
static int
note_undefined_read(Ctx *c, uint32_t ident)
{
    const lx_fields *f = &c->st->field;
    uint32_t p = N(ident).parent;
    int pk = p == NONE_IDX ? K_OTHER : KIND(p);
    if (p != NONE_IDX && c->calling == ident) {
        return add_undef(c, ident, U_CALL, NONE_IDX, c->calling_arity);
    }
    if (pk == K_ATTRIBUTE && N(ident).field == f->object) {
        return 0;   /* recorded by emit_attribute with the attribute's name */
    }
    if (pk == K_SUBSCRIPT && N(ident).field == f->value) {
        uint32_t key = NONE_IDX;
        CHILDREN(p, ch) {
            if (ch != ident && N(ch).named && KIND(ch) != K_COMMENT) {
                key = ch;
                break;
            }
        }
        return add_undef(c, ident, U_SUBSCRIPT, key, -2);
    }
    if ((pk == K_FOR || pk == K_FOR_IN_CLAUSE) && N(ident).field == f->right) {
        return add_undef(c, ident, U_ITERATE, NONE_IDX, -2);
    }
    if (pk == K_COMPARISON) {
        uint32_t other = NONE_IDX;
        CHILDREN(p, ch) {
            if (ch != ident && N(ch).named && KIND(ch) != K_COMMENT) {
                other = ch;
                break;
            }
        }
        return add_undef(c, ident, U_COMPARE, other, -2);
    }
    if (pk == K_WITH_ITEM || (pk == K_AS_PATTERN && N(p).parent != NONE_IDX &&
                              KIND(N(p).parent) == K_WITH_ITEM)) {
        return add_undef(c, ident, U_WITH, NONE_IDX, -2);
    }
    return add_undef(c, ident, U_READ, NONE_IDX, -2);
}

static int
emit_name(Ctx *c, uint32_t n)
{
    if (is_undefined(c, n) && note_undefined_read(c, n) < 0) {
        return -1;
    }
    int mode = read_mode(c, n);
    char q = quote_char(c);
    if (mode == READ_PLAIN || q == 0) {
        return copy(c, N(n).start, N(n).end);
    }
    uint32_t iid = c->next_iid++;
    const char *name = c->src + N(n).start;
    size_t len = N(n).end - N(n).start;
    if (putf(c, "_n_(%lu, ", iid) < 0 || buf_put(&c->out, &q, 1) < 0 ||
        buf_put(&c->out, name, len) < 0 || buf_put(&c->out, &q, 1) < 0) {
        return -1;
    }
    if (mode == READ_GLOBAL) {
        if (buf_puts(&c->out, ")") < 0) {
            return -1;
        }
    }
    else if (buf_puts(&c->out, ", lambda: ") < 0 || buf_put(&c->out, name, len) < 0 ||
             buf_puts(&c->out, mode == READ_WRAP_NS ? ", ...)" : ")") < 0) {
        return -1;
    }
    return add_site(c, iid, 0, n, n, N(n).start, N(n).end);
}

/* -- generic and expression emission */

/* The one emission loop: n's text with each child replaced by what
 * part(c, child, arg) emits and the text between children kept. */
typedef int (*part_fn)(Ctx *c, uint32_t child, const void *arg);

static int
emit_parts(Ctx *c, uint32_t n, part_fn part, const void *arg)
{
    uint32_t pos = N(n).start;
    CHILDREN(n, ch) {
        if (copy(c, pos, N(ch).start) < 0 || part(c, ch, arg) < 0) {
            return -1;
        }
        pos = N(ch).end;
    }
    return copy(c, pos, N(n).end);
}

static int
part_emit(Ctx *c, uint32_t ch, const void *arg)
{
    (void)arg;
    return emit(c, ch);
}

static int
emit_generic(Ctx *c, uint32_t n)
{
    return emit_parts(c, n, part_emit, NULL);
}

struct field_rule {
    uint16_t field;
    int (*fn)(Ctx *, uint32_t);
    int other_raw;
};

static int
part_field(Ctx *c, uint32_t ch, const void *arg)
{
    const struct field_rule *rule = arg;
    if (N(ch).field == rule->field) {
        return rule->fn(c, ch);
    }
    return rule->other_raw ? copy(c, N(ch).start, N(ch).end) : emit(c, ch);
}

/* Emit n's children, sending the one with the given field to fn and
 * copying every other child as written (other_raw) or emitting it. */
static int
emit_with_field(Ctx *c, uint32_t n, uint16_t field, int (*fn)(Ctx *, uint32_t),
                int other_raw)
{
    struct field_rule rule = {field, fn, other_raw};
    return emit_parts(c, n, part_field, &rule);
}

static int
emit_raw(Ctx *c, uint32_t n)
{
    return copy(c, N(n).start, N(n).end);
}

/* inside a target list (or `del`): targets, and punctuation as written */
static int
part_target(Ctx *c, uint32_t ch, const void *arg)
{
    (void)arg;
    return N(ch).named ? emit_target(c, ch) : emit_raw(c, ch);
}

static int
mangled_attr(Ctx *c, uint32_t attr)
{
    const char *a = c->src + N(attr).start;
    uint32_t len = N(attr).end - N(attr).start;
    int mangle = c->cls_len > 0 && len > 2 && a[0] == '_' && a[1] == '_' &&
                 !(a[len - 1] == '_' && a[len - 2] == '_');
    if (mangle) {
        const char *cls = c->src + c->cls_off;
        uint32_t clen = c->cls_len;
        while (clen > 0 && *cls == '_') {
            cls++;
            clen--;
        }
        if (clen > 0 && (buf_put(&c->out, "_", 1) < 0 || buf_put(&c->out, cls, clen) < 0)) {
            return -1;
        }
    }
    return buf_put(&c->out, a, len);
}

/* obj.attr  ->  _a_(iid, obj, "attr") */
static int
emit_attribute(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    uint32_t obj = field_child(c, n, f->object), attr = field_child(c, n, f->attribute);
    char q = quote_char(c);
    if (obj != NONE_IDX && attr != NONE_IDX && KIND(obj) == K_IDENT && is_undefined(c, obj)) {
        int method = c->calling == n;
        if (add_undef(c, obj, method ? U_METHOD : U_ATTR, attr,
                      method ? c->calling_arity : -2) < 0) {
            return -1;
        }
    }
    if (obj == NONE_IDX || attr == NONE_IDX || q == 0) {
        return emit_target(c, n);   /* object still read through a loader */
    }
    size_t pos = c->out.len;
    if (emit(c, obj) < 0 || copy_newlines(c, N(obj).end, N(attr).start) < 0 ||
        buf_puts(&c->out, ", ") < 0 || buf_put(&c->out, &q, 1) < 0 ||
        mangled_attr(c, attr) < 0 || buf_put(&c->out, &q, 1) < 0 ||
        buf_puts(&c->out, ")") < 0) {
        return -1;
    }
    uint32_t iid = c->next_iid++;
    if (insertf(c, pos, "_a_(%lu, ", iid) < 0) {
        return -1;
    }
    return add_site(c, iid, 1, attr, n, N(attr).start, N(attr).end);
}

static int
emit_kwarg(Ctx *c, uint32_t n)
{
    return emit_with_field(c, n, c->st->field.value, emit, 1);
}

/* f(args)  ->  _c_(iid, f, args) */
static int
emit_call(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    uint32_t fn = field_child(c, n, f->function), args = field_child(c, n, f->arguments);
    if (fn == NONE_IDX || args == NONE_IDX) {
        return emit_generic(c, n);
    }
    size_t pos = c->out.len;
    uint32_t saved_calling = c->calling;
    int32_t saved_arity = c->calling_arity;
    c->calling = fn;
    c->calling_arity = 0;
    if (KIND(args) == K_GENEXP) {
        c->calling_arity = 1;
    }
    else {
        CHILDREN(args, ch) {
            if (N(ch).named && KIND(ch) != K_COMMENT) {
                if (c->src[N(ch).start] == '*') {
                    c->calling_arity = -1;
                    break;
                }
                c->calling_arity++;
            }
        }
    }
    int fr = emit(c, fn);
    c->calling = saved_calling;
    c->calling_arity = saved_arity;
    if (fr < 0 || copy_newlines(c, N(fn).end, N(args).start) < 0) {
        return -1;
    }
    if (KIND(args) == K_GENEXP) {
        if (buf_puts(&c->out, ", ") < 0 || emit(c, args) < 0) {
            return -1;
        }
    }
    else {
        /* argument_list: '(' items ')' */
        uint32_t open = N(args).first, close = NONE_IDX, last_item = NONE_IDX;
        int nitems = 0;
        CHILDREN(args, ch) {
            close = ch;
            if (ch != open && N(ch).next != NONE_IDX && N(ch).named && KIND(ch) != K_COMMENT) {
                nitems++;
                last_item = ch;
            }
        }
        if (open == NONE_IDX || close == NONE_IDX || open == close) {
            return -1;
        }
        if (nitems > 0 && buf_puts(&c->out, ", ") < 0) {
            return -1;
        }
        uint32_t p = N(open).end;
        for (uint32_t ch = N(open).next; ch != close; ch = N(ch).next) {
            if (nitems > 0) {
                if (copy(c, p, N(ch).start) < 0) {
                    return -1;
                }
            }
            else if (copy_newlines(c, p, N(ch).start) < 0) {
                return -1;
            }
            int r;
            if (nitems == 0) {
                r = copy_newlines(c, N(ch).start, N(ch).end);
            }
            else if (KIND(ch) == K_KWARG) {
                r = emit_kwarg(c, ch);
            }
            else if (ch == last_item && c->exit_call == n) {
                size_t apos = c->out.len;
                r = emit(c, ch);
                if (r == 0) {
                    uint32_t m = c->exit_marker;
                    r = buf_puts(&c->out, "))");
                    if (r == 0) {
                        r = insertf(c, apos, "_l_(%lu, (", m);
                    }
                }
            }
            else {
                r = emit(c, ch);
            }
            if (r < 0) {
                return -1;
            }
            p = N(ch).end;
        }
        if ((nitems > 0 ? copy(c, p, N(close).start) : copy_newlines(c, p, N(close).start)) < 0) {
            return -1;
        }
        if (buf_puts(&c->out, ")") < 0) {
            return -1;
        }
        goto wrap;
    }
    if (buf_puts(&c->out, ")") < 0) {
        return -1;
    }
wrap:;
    uint32_t iid = c->next_iid++;
    if (insertf(c, pos, "_c_(%lu, ", iid) < 0) {
        return -1;
    }
    /* name of the site: the callee's last identifier */
    uint32_t name = NONE_IDX;
    if (KIND(fn) == K_IDENT) {
        name = fn;
    }
    else if (KIND(fn) == K_ATTRIBUTE) {
        name = field_child(c, fn, f->attribute);
    }
    uint32_t ms = name != NONE_IDX ? N(name).start : N(fn).start;
    uint32_t me = name != NONE_IDX ? N(name).end : N(fn).end;
    return add_site(c, iid, 2, name, n, ms, me);
}

/* Annotations: left as written where Python does not evaluate them
 * (`from __future__ import annotations`, annotated locals of functions). */
static int
emit_annotation(Ctx *c, uint32_t t, int variable)
{
    if (c->future_annotations ||
        (variable && c->scopes[c->cur_scope].kind != S_MODULE &&
         c->scopes[c->cur_scope].kind != S_CLASS)) {
        return emit_raw(c, t);
    }
    return emit(c, t);
}

/* a parameter: its default is evaluated, its annotation maybe, its name
 * stays as written */
static int
part_param(Ctx *c, uint32_t q, const void *arg)
{
    (void)arg;
    if (N(q).field == c->st->field.value) {
        return emit(c, q);
    }
    if (N(q).field == c->st->field.type) {
        return emit_annotation(c, q, 0);
    }
    return emit_raw(c, q);
}

/* a parameter list: a parameter with a default or an annotation goes
 * through part_param, a bare name or separator stays as written */
static int
part_params(Ctx *c, uint32_t p, const void *arg)
{
    (void)arg;
    int k = KIND(p);
    if (k == K_DEFAULT_PARAM || k == K_TYPED_DEFAULT_PARAM || k == K_TYPED_PARAM) {
        return emit_parts(c, p, part_param, NULL);
    }
    return emit_raw(c, p);
}

static int
emit_params(Ctx *c, uint32_t params)
{
    return emit_parts(c, params, part_params, NULL);
}

/* Make the parameters of the function/lambda n definite in its scope. */
static int
definite_params(Ctx *c, uint32_t params)
{
    CHILDREN(params, p) {
        if (KIND(p) == K_IDENT) {
            if (make_definite(c, p) < 0) {
                return -1;
            }
            continue;
        }
        CHILDREN(p, q) {
            if (KIND(q) == K_IDENT && N(q).field != c->st->field.value) {
                if (make_definite(c, q) < 0) {
                    return -1;
                }
            }
            else if (KIND(q) == K_LIST_SPLAT_PATTERN || KIND(q) == K_DICT_SPLAT_PATTERN) {
                CHILDREN(q, r) {
                    if (KIND(r) == K_IDENT && make_definite(c, r) < 0) {
                        return -1;
                    }
                }
            }
        }
    }
    return 0;
}

static int
emit_lambda(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    int32_t saved = c->cur_scope;
    uint32_t mark = c->nundo;
    uint32_t pos = N(n).start;
    int rc = -1;
    CHILDREN(n, ch) {
        if (copy(c, pos, N(ch).start) < 0) {
            goto done;
        }
        pos = N(ch).end;
        if (N(ch).field == f->parameters) {
            if (emit_params(c, ch) < 0) {
                goto done;
            }
            c->cur_scope = N(n).scope;
            if (definite_params(c, ch) < 0) {
                goto done;
            }
        }
        else if (N(ch).field == f->body) {
            c->cur_scope = N(n).scope;
            if (emit(c, ch) < 0) {
                goto done;
            }
        }
        else if (emit_raw(c, ch) < 0) {
            goto done;
        }
    }
    rc = copy(c, pos, N(n).end);
done:
    undo_to(c, mark);
    c->cur_scope = saved;
    return rc;
}

static int
emit_comprehension(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    int32_t saved = c->cur_scope, inner = N(n).scope;
    uint32_t mark = c->nundo;
    uint32_t pos = N(n).start;
    int first_clause = 1, rc = -1;

    /* every loop target is bound before the element and the conditions run */
    c->cur_scope = inner;
    CHILDREN(n, ch) {
        if (KIND(ch) == K_FOR_IN_CLAUSE) {
            uint32_t left = field_child(c, ch, f->left);
            if (left != NONE_IDX && definite_target(c, left) < 0) {
                goto done;
            }
        }
    }
    CHILDREN(n, ch) {
        if (copy(c, pos, N(ch).start) < 0) {
            goto done;
        }
        pos = N(ch).end;
        if (KIND(ch) == K_FOR_IN_CLAUSE) {
            uint32_t qpos = N(ch).start;
            CHILDREN(ch, q) {
                if (copy(c, qpos, N(q).start) < 0) {
                    goto done;
                }
                qpos = N(q).end;
                int r;
                if (N(q).field == f->left) {
                    r = emit_target(c, q);
                }
                else if (N(q).field == f->right && first_clause) {
                    c->cur_scope = saved;
                    r = emit(c, q);
                    c->cur_scope = inner;
                }
                else {
                    r = emit(c, q);
                }
                if (r < 0) {
                    goto done;
                }
            }
            if (copy(c, qpos, N(ch).end) < 0) {
                goto done;
            }
            first_clause = 0;
        }
        else if (emit(c, ch) < 0) {
            goto done;
        }
    }
    rc = copy(c, pos, N(n).end);
done:
    undo_to(c, mark);
    c->cur_scope = saved;
    return rc;
}

static int
escape_braces(Ctx *c, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++) {
        char ch = c->src[i];
        if ((ch == '{' || ch == '}') && buf_put(&c->out, &ch, 1) < 0) {
            return -1;
        }
        if (buf_put(&c->out, &ch, 1) < 0) {
            return -1;
        }
    }
    return 0;
}

/* f-string replacement field.  A self-documenting `{expr=}` keeps its text:
 * it becomes the literal `expr=` followed by `{<wrapped expr>!r}` (or with
 * the written conversion / format spec), which formats identically. */
static int
emit_interpolation(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    uint32_t expr = field_child(c, n, f->expression);
    uint32_t eq = NONE_IDX, conv = field_child(c, n, f->type_conversion);
    uint32_t spec = field_child(c, n, f->format_specifier);
    CHILDREN(n, ch) {
        if (!N(ch).named && text_is(c, ch, "=")) {
            eq = ch;
        }
    }
    if (expr == NONE_IDX || eq == NONE_IDX) {
        return emit_generic(c, n);
    }
    uint32_t open = N(n).first;
    uint32_t lit_end = conv != NONE_IDX ? N(conv).start
                       : spec != NONE_IDX ? N(spec).start : N(eq).end;
    /* whitespace after '=' belongs to the literal too */
    if (conv == NONE_IDX && spec == NONE_IDX) {
        uint32_t close = N(n).first;
        CHILDREN(n, ch) {
            close = ch;
        }
        lit_end = N(close).start;
    }
    if (escape_braces(c, N(open).end, lit_end) < 0 || buf_puts(&c->out, "{") < 0 ||
        emit(c, expr) < 0) {
        return -1;
    }
    if (conv != NONE_IDX) {
        if (emit_raw(c, conv) < 0) {
            return -1;
        }
    }
    else if (spec == NONE_IDX && buf_puts(&c->out, "!r") < 0) {
        return -1;
    }
    if (spec != NONE_IDX && emit(c, spec) < 0) {
        return -1;
    }
    return buf_puts(&c->out, "}");
}

/* A string literal: an f-string forbids its own one-character delimiter
 * inside its replacement fields. */
static int
emit_string(Ctx *c, uint32_t n)
{
    uint32_t start = N(n).first;
    int fstring = 0, dq = 0, sq = 0;
    if (start != NONE_IDX && KIND(start) == K_STRING_START) {
        uint32_t a = N(start).start, b = N(start).end;
        for (uint32_t i = a; i < b; i++) {
            fstring |= c->src[i] == 'f' || c->src[i] == 'F';
        }
        uint32_t ql = (b - a >= 3 && c->src[b - 1] == c->src[b - 2] && c->src[b - 2] == c->src[b - 3]) ? 3 : 1;
        if (fstring && ql == 1) {
            dq = c->src[b - 1] == '"';
            sq = c->src[b - 1] == '\'';
        }
    }
    c->forbid_dq += dq;
    c->forbid_sq += sq;
    int r = emit_generic(c, n);
    c->forbid_dq -= dq;
    c->forbid_sq -= sq;
    return r;
}

/* The operator-module function of an augmented assignment token. */
static const char *
inplace_function(Ctx *c, uint32_t op)
{
    static const struct { const char *tok, *fn; } ops[] = {
        {"+=", "iadd"}, {"-=", "isub"}, {"*=", "imul"}, {"@=", "imatmul"},
        {"/=", "itruediv"}, {"//=", "ifloordiv"}, {"%=", "imod"}, {"**=", "ipow"},
        {"<<=", "ilshift"}, {">>=", "irshift"}, {"&=", "iand"}, {"^=", "ixor"},
        {"|=", "ior"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (text_is(c, op, ops[i].tok)) {
            return ops[i].fn;
        }
    }
    return NULL;
}

/* `x += e` where x may be unbound:  x = _op_.iadd(_n_(iid, "x", ...), e)
 * -- the same load, evaluation order, in-place operation and store, with
 * the load going through the loader so a missing x is injected. */
static int
emit_augassign_name(Ctx *c, uint32_t n, uint32_t left, uint32_t right, const char *fn)
{
    if (emit_raw(c, left) < 0 || buf_puts(&c->out, " = _op_.") < 0 ||
        buf_puts(&c->out, fn) < 0 || buf_puts(&c->out, "(") < 0 || emit_name(c, left) < 0 ||
        buf_puts(&c->out, ", ") < 0 || emit(c, right) < 0) {
        return -1;
    }
    (void)n;
    return buf_puts(&c->out, ")");
}

/* an assignment: the left side is a target, a variable annotation is
 * evaluated only where Python evaluates it, the rest is read */
static int
part_assignment(Ctx *c, uint32_t ch, const void *arg)
{
    (void)arg;
    if (N(ch).field == c->st->field.left) {
        return emit_target(c, ch);
    }
    if (N(ch).field == c->st->field.type) {
        return emit_annotation(c, ch, 1);
    }
    return emit(c, ch);
}

static int
emit_assignment(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    if (KIND(n) == K_AUGASSIGN) {
        uint32_t left = field_child(c, n, f->left), right = field_child(c, n, f->right);
        uint32_t op = NONE_IDX;
        CHILDREN(n, ch) {
            if (!N(ch).named && ch != left && ch != right) {
                op = ch;
            }
        }
        const char *fn = op == NONE_IDX ? NULL : inplace_function(c, op);
        if (left != NONE_IDX && right != NONE_IDX && fn != NULL && KIND(left) == K_IDENT &&
            quote_char(c) != 0 && read_mode(c, left) != READ_PLAIN) {
            return emit_augassign_name(c, n, left, right, fn);
        }
    }
    return emit_parts(c, n, part_assignment, NULL);
}

static int
emit(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    switch (KIND(n)) {
    case K_IDENT:
        return emit_name(c, n);
    case K_ATTRIBUTE:
        return emit_attribute(c, n);
    case K_CALL:
        return emit_call(c, n);
    case K_KWARG:
        return emit_kwarg(c, n);
    case K_NAMED_EXPR:
        return emit_with_field(c, n, f->value, emit, 1);
    case K_LAMBDA:
        return emit_lambda(c, n);
    case K_LISTCOMP: case K_SETCOMP: case K_DICTCOMP: case K_GENEXP:
        return emit_comprehension(c, n);
    case K_INTERPOLATION:
        return emit_interpolation(c, n);
    case K_ASSIGNMENT: case K_AUGASSIGN:
        return emit_assignment(c, n);
    case K_STRING:
        return emit_string(c, n);
    case K_AS_PATTERN:   /* `(cm as x)` inside a parenthesized with-item */
        return emit_with_field(c, n, f->alias, emit_target, 0);
    case K_MEMBER_TYPE: case K_CASE_PATTERN: case K_COMMENT: case K_STRING_START:
        return emit_raw(c, n);
    default:
        if (N(n).first == NONE_IDX) {
            return emit_raw(c, n);
        }
        return emit_generic(c, n);
    }
}

/* Store targets: names stay as written; the object of `a.b = v` and the
 * parts of `a[i] = v` are reads. */
static int
emit_target(Ctx *c, uint32_t n)
{
    switch (KIND(n)) {
    case K_IDENT:
        return emit_raw(c, n);
    case K_ATTRIBUTE: {
        uint32_t obj = field_child(c, n, c->st->field.object);
        if (obj == NONE_IDX) {
            return emit_raw(c, n);
        }
        return emit(c, obj) < 0 ? -1 : copy(c, N(obj).end, N(n).end);
    }
    case K_PATTERN_LIST: case K_TUPLE_PATTERN: case K_LIST_PATTERN: case K_TUPLE:
    case K_LIST: case K_PAREN_EXPR: case K_EXPR_LIST: case K_LIST_SPLAT_PATTERN:
    case K_LIST_SPLAT: case K_AS_PATTERN_TARGET:
        return emit_parts(c, n, part_target, NULL);
    case K_COMMENT:
        return emit_raw(c, n);
    default:
        return emit(c, n);
    }
}

/* -- statements */

static int
is_docstring(Ctx *c, uint32_t s)
{
    if (KIND(s) != K_EXPR_STMT) {
        return 0;
    }
    uint32_t e = N(s).first;
    if (e == NONE_IDX || N(e).next != NONE_IDX) {
        return 0;
    }
    if (KIND(e) == K_CONCAT_STRING) {
        e = N(e).first;
    }
    if (e == NONE_IDX || KIND(e) != K_STRING) {
        return 0;
    }
    uint32_t start = N(e).first;
    if (start == NONE_IDX) {
        return 0;
    }
    for (uint32_t i = N(start).start; i < N(start).end; i++) {
        char ch = c->src[i];
        if (ch == 'f' || ch == 'F' || ch == 'b' || ch == 'B') {
            return 0;
        }
    }
    return 1;
}

static int
header_expr(Ctx *c, uint32_t expr, const uint32_t *marks, int nmarks)
{
    if (nmarks == 0) {
        return emit(c, expr);
    }
    if (put_marks(c, marks, nmarks, " or ") < 0 || buf_puts(&c->out, "(") < 0 ||
        emit(c, expr) < 0) {
        return -1;
    }
    return buf_puts(&c->out, ")");
}

static int
block_has_marker(int kind)
{
    switch (kind) {
    case K_IF: case K_ELIF: case K_FOR: case K_WHILE: case K_TRY: case K_EXCEPT:
    case K_EXCEPT_GROUP: case K_WITH: case K_FUNCDEF: case K_CLASSDEF: case K_CASE:
    case K_FINALLY:
        return 1;
    default:
        return 0;
    }
}

static uint32_t
colon_row(Ctx *c, uint32_t parent, uint32_t block)
{
    uint32_t row = N(parent).srow;
    CHILDREN(parent, ch) {
        if (ch == block) {
            break;
        }
        if (!N(ch).named && text_is(c, ch, ":")) {
            row = N(ch).srow;
        }
    }
    return row;
}

static int
emit_with_clause(Ctx *c, uint32_t clause, const uint32_t *marks, int nmarks)
{
    const lx_fields *f = &c->st->field;
    uint32_t pos = N(clause).start;
    int first = 1;
    CHILDREN(clause, item) {
        if (copy(c, pos, N(item).start) < 0) {
            return -1;
        }
        pos = N(item).end;
        if (KIND(item) != K_WITH_ITEM) {
            if (emit_raw(c, item) < 0) {
                return -1;
            }
            continue;
        }
        uint32_t ipos = N(item).start;
        CHILDREN(item, v) {
            if (copy(c, ipos, N(v).start) < 0) {
                return -1;
            }
            ipos = N(v).end;
            if (KIND(v) == K_AS_PATTERN) {
                uint32_t vpos = N(v).start;
                int seen_expr = 0;
                CHILDREN(v, q) {
                    if (copy(c, vpos, N(q).start) < 0) {
                        return -1;
                    }
                    vpos = N(q).end;
                    int r;
                    if (N(q).field == f->alias) {
                        r = emit_target(c, q);
                    }
                    else if (N(q).named && !seen_expr) {
                        seen_expr = 1;
                        r = header_expr(c, q, first ? marks : NULL, first ? nmarks : 0);
                    }
                    else {
                        r = emit(c, q);
                    }
                    if (r < 0) {
                        return -1;
                    }
                }
                if (copy(c, vpos, N(v).end) < 0) {
                    return -1;
                }
            }
            else if (KIND(v) == K_PAREN_EXPR && N(v).first != NONE_IDX &&
                     N(N(v).first).next != NONE_IDX &&
                     KIND(N(N(v).first).next) == K_AS_PATTERN) {
                /* `with (cm as x):` -- the marker goes inside the parentheses */
                uint32_t ap = N(N(v).first).next;
                uint32_t expr = N(ap).first;
                if (copy(c, N(v).start, N(expr).start) < 0 ||
                    header_expr(c, expr, first ? marks : NULL, first ? nmarks : 0) < 0 ||
                    copy(c, N(expr).end, N(ap).start) < 0) {
                    return -1;
                }
                uint32_t apos = N(expr).end;
                for (uint32_t q = N(expr).next; q != NONE_IDX; q = N(q).next) {
                    if (copy(c, apos, N(q).start) < 0 ||
                        (N(q).field == f->alias ? emit_target(c, q) : emit_raw(c, q)) < 0) {
                        return -1;
                    }
                    apos = N(q).end;
                }
                if (copy(c, apos, N(v).end) < 0) {
                    return -1;
                }
            }
            else if (N(v).named) {
                if (header_expr(c, v, first ? marks : NULL, first ? nmarks : 0) < 0) {
                    return -1;
                }
            }
            else if (emit_raw(c, v) < 0) {
                return -1;
            }
            first = 0;
        }
        if (copy(c, ipos, N(item).end) < 0) {
            return -1;
        }
    }
    return copy(c, pos, N(clause).end);
}

/* with-statement targets, made definite inside its body */
static int
definite_with_targets(Ctx *c, uint32_t stmt)
{
    CHILDREN(stmt, clause) {
        if (KIND(clause) != K_WITH_CLAUSE) {
            continue;
        }
        CHILDREN(clause, item) {
            CHILDREN(item, v) {
                if (KIND(v) == K_AS_PATTERN) {
                    uint32_t alias = field_child(c, v, c->st->field.alias);
                    if (alias != NONE_IDX && definite_target(c, alias) < 0) {
                        return -1;
                    }
                }
            }
        }
    }
    return 0;
}

static int emit_stmt(Ctx *c, uint32_t s, const uint32_t *marks, int nmarks);

/* if/elif/else, for, while, try/except/finally, with, match/case: headers
 * keep their text, the first evaluated header expression carries the
 * markers of the enclosing block, and each block opens with its own marker. */
static int
emit_compound(Ctx *c, uint32_t n, const uint32_t *marks, int nmarks)
{
    const lx_fields *f = &c->st->field;
    int kind = KIND(n);
    int used = nmarks == 0;
    uint32_t pos = N(n).start;
    CHILDREN(n, ch) {
        if (copy(c, pos, N(ch).start) < 0) {
            return -1;
        }
        pos = N(ch).end;
        int ck = KIND(ch);
        int r;
        if (ck == K_BLOCK) {
            uint32_t bm[LX_MAX_PENDING + 1];
            int nb = 0;
            if (!used) {
                memcpy(bm, marks, sizeof(uint32_t) * (size_t)nmarks);
                nb = nmarks;
                used = 1;
            }
            if (block_has_marker(kind)) {
                uint32_t m = new_marker(c, n, colon_row(c, n, ch));
                if (m == 0) {
                    return -1;
                }
                bm[nb++] = m;
            }
            uint32_t mark = c->nundo;
            if (kind == K_FOR) {
                uint32_t left = field_child(c, n, f->left);
                if (left != NONE_IDX && definite_target(c, left) < 0) {
                    return -1;
                }
            }
            else if (kind == K_WITH && definite_with_targets(c, n) < 0) {
                return -1;
            }
            r = emit_block(c, ch, bm, nb);
            undo_to(c, mark);
        }
        else if (!used && (N(ch).field == f->condition || N(ch).field == f->subject ||
                           (kind == K_FOR && N(ch).field == f->right))) {
            r = header_expr(c, ch, marks, nmarks);
            used = 1;
        }
        else if (ck == K_WITH_CLAUSE) {
            r = emit_with_clause(c, ch, used ? NULL : marks, used ? 0 : nmarks);
            used = 1;
        }
        else if (kind == K_FOR && N(ch).field == f->left) {
            r = emit_target(c, ch);
        }
        else if (ck == K_ELIF || ck == K_ELSE || ck == K_EXCEPT || ck == K_EXCEPT_GROUP ||
                 ck == K_FINALLY || ck == K_CASE) {
            r = emit_compound(c, ch, NULL, 0);
        }
        else if (ck == K_AS_PATTERN) {
            r = emit_with_field(c, ch, f->alias, emit_target, 0);
        }
        else if (ck == K_CASE_PATTERN || !N(ch).named) {
            r = emit_raw(c, ch);
        }
        else {
            r = emit(c, ch);
        }
        if (r < 0) {
            return -1;
        }
    }
    return copy(c, pos, N(n).end);
}

static int
emit_def(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    int isfunc = KIND(n) == K_FUNCDEF;
    uint32_t pos = N(n).start;
    uint32_t name = field_child(c, n, f->name);
    CHILDREN(n, ch) {
        if (copy(c, pos, N(ch).start) < 0) {
            return -1;
        }
        pos = N(ch).end;
        int r;
        uint16_t fid = N(ch).field;
        if (fid == f->parameters) {
            r = emit_params(c, ch);
        }
        else if (fid == f->return_type) {
            r = emit_annotation(c, ch, 0);
        }
        else if (fid == f->superclasses) {
            r = emit(c, ch);
        }
        else if (fid == f->body) {
            uint32_t m = new_marker(c, n, colon_row(c, n, ch));
            if (m == 0) {
                return -1;
            }
            int32_t saved = c->cur_scope;
            uint32_t saved_off = c->cls_off, saved_len = c->cls_len;
            uint32_t mark = c->nundo;
            c->cur_scope = N(n).scope;
            r = 0;
            if (isfunc) {
                uint32_t params = field_child(c, n, f->parameters);
                if (params != NONE_IDX) {
                    r = definite_params(c, params);
                }
            }
            else if (name != NONE_IDX) {
                c->cls_off = N(name).start;
                c->cls_len = N(name).end - N(name).start;
            }
            if (r == 0) {
                r = emit_block(c, ch, &m, 1);
            }
            undo_to(c, mark);
            c->cur_scope = saved;
            c->cls_off = saved_off;
            c->cls_len = saved_len;
        }
        else if (N(ch).named && KIND(ch) != K_IDENT && KIND(ch) != K_COMMENT) {
            r = emit(c, ch);   /* e.g. type parameters */
        }
        else {
            r = emit_raw(c, ch);
        }
        if (r < 0) {
            return -1;
        }
    }
    if (copy(c, pos, N(n).end) < 0) {
        return -1;
    }
    return name != NONE_IDX ? make_definite(c, name) : 0;
}

static int
emit_decorated(Ctx *c, uint32_t n, const uint32_t *marks, int nmarks)
{
    uint32_t pos = N(n).start;
    int used = nmarks == 0;
    CHILDREN(n, ch) {
        if (copy(c, pos, N(ch).start) < 0) {
            return -1;
        }
        pos = N(ch).end;
        int r;
        if (KIND(ch) == K_DECORATOR) {
            uint32_t dpos = N(ch).start;
            r = 0;
            CHILDREN(ch, e) {
                if (copy(c, dpos, N(e).start) < 0) {
                    return -1;
                }
                dpos = N(e).end;
                if (N(e).named && KIND(e) != K_COMMENT) {
                    r = header_expr(c, e, used ? NULL : marks, used ? 0 : nmarks);
                    used = 1;
                }
                else {
                    r = emit_raw(c, e);
                }
                if (r < 0) {
                    return -1;
                }
            }
            r = copy(c, dpos, N(ch).end);
        }
        else if (KIND(ch) == K_FUNCDEF || KIND(ch) == K_CLASSDEF) {
            r = emit_def(c, ch);
        }
        else {
            r = emit_raw(c, ch);
        }
        if (r < 0) {
            return -1;
        }
    }
    return copy(c, pos, N(n).end);
}

/* Is the import statement s inside the body of a try statement that has
 * except clauses (in the same scope)?  Then the code handles ImportError
 * itself and the import is left as written. */
static int
import_is_guarded(Ctx *c, uint32_t s)
{
    uint32_t n = s;
    while (N(n).parent != NONE_IDX) {
        uint32_t p = N(n).parent;
        int pk = KIND(p);
        if (pk == K_FUNCDEF || pk == K_CLASSDEF || pk == K_MODULE) {
            return 0;
        }
        if (pk == K_TRY && N(n).field == c->st->field.body) {
            CHILDREN(p, ch) {
                if (KIND(ch) == K_EXCEPT || KIND(ch) == K_EXCEPT_GROUP) {
                    return 1;
                }
            }
        }
        n = p;
    }
    return 0;
}

static int
put_dotted(Ctx *c, uint32_t dotted)
{
    int first = 1;
    CHILDREN(dotted, id) {
        if (KIND(id) != K_IDENT) {
            continue;
        }
        if (!first && buf_put(&c->out, ".", 1) < 0) {
            return -1;
        }
        if (emit_raw(c, id) < 0) {
            return -1;
        }
        first = 0;
    }
    return 0;
}

/* import a.b           ->  a = _i_(iid, "a.b", 0, None)
 * import a.b as c      ->  c = _i_(iid, "a.b", 0, ())
 * from .m import x, y  ->  x, y, = _i_(iid, "m", 1, ("x", "y", ))
 * from m import *      ->  _i_(iid, "m", 0, "*")                        */
static int
emit_import(Ctx *c, uint32_t s)
{
    const lx_fields *f = &c->st->field;
    int first = 1;
    uint32_t newlines = 0;
    for (uint32_t i = N(s).start; i < N(s).end; i++) {
        newlines += c->src[i] == '\n';
    }
    if (KIND(s) == K_IMPORT) {
        CHILDREN(s, ch) {
            if (N(ch).field != f->name) {
                continue;
            }
            uint32_t dotted = ch, alias = NONE_IDX;
            if (KIND(ch) == K_ALIASED_IMPORT) {
                dotted = field_child(c, ch, f->name);
                alias = field_child(c, ch, f->alias);
            }
            if (dotted == NONE_IDX || KIND(dotted) != K_DOTTED_NAME) {
                return -1;
            }
            uint32_t iid = c->next_iid++;
            if ((!first && buf_puts(&c->out, "; ") < 0) ||
                emit_raw(c, alias != NONE_IDX ? alias : N(dotted).first) < 0 ||
                putf(c, " = _i_(%lu, \"", iid) < 0 || put_dotted(c, dotted) < 0 ||
                buf_puts(&c->out, alias != NONE_IDX ? "\", 0, ()" : "\", 0, None") < 0) {
                return -1;
            }
            for (; newlines > 0; newlines--) {
                if (buf_put(&c->out, "\n", 1) < 0) {
                    return -1;
                }
            }
            if (buf_puts(&c->out, ")") < 0 || add_site(c, iid, 4, NONE_IDX, ch, N(ch).start, N(ch).end) < 0) {
                return -1;
            }
            c->sites[c->nsites - 1].name_off = N(dotted).start;
            c->sites[c->nsites - 1].name_len = N(dotted).end - N(dotted).start;
            first = 0;
        }
        return 0;
    }
    /* from-import */
    uint32_t module = field_child(c, s, f->module_name);
    uint32_t wildcard = NONE_IDX;
    if (module == NONE_IDX) {
        return -1;
    }
    unsigned long level = 0;
    uint32_t dotted = module;
    if (KIND(module) == K_RELATIVE_IMPORT) {
        dotted = NONE_IDX;
        CHILDREN(module, q) {
            if (KIND(q) == K_IMPORT_PREFIX) {
                level = N(q).end - N(q).start;
            }
            else if (KIND(q) == K_DOTTED_NAME) {
                dotted = q;
            }
        }
    }
    CHILDREN(s, ch) {
        if (KIND(ch) == K_WILDCARD_IMPORT) {
            wildcard = ch;
        }
    }
    if (wildcard == NONE_IDX) {
        CHILDREN(s, ch) {
            if (N(ch).field != f->name) {
                continue;
            }
            uint32_t target = ch;
            if (KIND(ch) == K_ALIASED_IMPORT) {
                target = field_child(c, ch, f->alias);
            }
            else if (KIND(ch) == K_DOTTED_NAME) {
                target = N(ch).first;
            }
            if (target == NONE_IDX || emit_raw(c, target) < 0 || buf_puts(&c->out, ", ") < 0) {
                return -1;
            }
        }
        if (buf_puts(&c->out, "= ") < 0) {
            return -1;
        }
    }
    uint32_t iid = c->next_iid++;
    if (putf(c, "_i_(%lu, \"", iid) < 0 || (dotted != NONE_IDX && put_dotted(c, dotted) < 0) ||
        putf(c, "\", %lu, ", level) < 0) {
        return -1;
    }
    if (wildcard != NONE_IDX) {
        if (buf_puts(&c->out, "\"*\"") < 0) {
            return -1;
        }
    }
    else {
        if (buf_puts(&c->out, "(") < 0) {
            return -1;
        }
        CHILDREN(s, ch) {
            if (N(ch).field != f->name) {
                continue;
            }
            uint32_t nm = KIND(ch) == K_ALIASED_IMPORT ? field_child(c, ch, f->name) : ch;
            if (nm == NONE_IDX || buf_puts(&c->out, "\"") < 0 || put_dotted(c, nm) < 0 ||
                buf_puts(&c->out, "\", ") < 0) {
                return -1;
            }
        }
        if (buf_puts(&c->out, ")") < 0) {
            return -1;
        }
    }
    for (; newlines > 0; newlines--) {
        if (buf_put(&c->out, "\n", 1) < 0) {
            return -1;
        }
    }
    if (buf_puts(&c->out, ")") < 0 || add_site(c, iid, 4, NONE_IDX, s, N(s).start, N(s).end) < 0) {
        return -1;
    }
    c->sites[c->nsites - 1].name_off = N(module).start;
    c->sites[c->nsites - 1].name_len = N(module).end - N(module).start;
    return 0;
}

/* exit(x), quit(x), sys.exit(x), os._exit(x) as a statement */
static int
is_exit_call(Ctx *c, uint32_t call)
{
    const lx_fields *f = &c->st->field;
    uint32_t fn = field_child(c, call, f->function);
    if (fn == NONE_IDX) {
        return 0;
    }
    if (KIND(fn) == K_IDENT) {
        return text_is(c, fn, "exit") || text_is(c, fn, "quit");
    }
    if (KIND(fn) == K_ATTRIBUTE) {
        uint32_t obj = field_child(c, fn, f->object), attr = field_child(c, fn, f->attribute);
        return obj != NONE_IDX && attr != NONE_IDX && KIND(obj) == K_IDENT &&
               ((text_is(c, obj, "sys") && text_is(c, attr, "exit")) ||
                (text_is(c, obj, "os") && text_is(c, attr, "_exit")));
    }
    return 0;
}

/* The last argument of an exit call, when it is a plain positional one. */
static uint32_t
exit_last_arg(Ctx *c, uint32_t call)
{
    uint32_t args = field_child(c, call, c->st->field.arguments);
    if (args == NONE_IDX || KIND(args) != K_ARGLIST) {
        return NONE_IDX;
    }
    uint32_t last = NONE_IDX;
    CHILDREN(args, ch) {
        if (N(ch).named && KIND(ch) != K_COMMENT) {
            last = ch;
        }
    }
    if (last == NONE_IDX || KIND(last) == K_KWARG || c->src[N(last).start] == '*') {
        return NONE_IDX;   /* keyword, *args or **kwargs: mark before the call */
    }
    return last;
}

/* names an expression statement certainly binds once it completes */
static int
definite_after(Ctx *c, uint32_t s)
{
    const lx_fields *f = &c->st->field;
    CHILDREN(s, e) {
        uint32_t a = e;
        while (a != NONE_IDX && (KIND(a) == K_ASSIGNMENT || KIND(a) == K_AUGASSIGN)) {
            uint32_t left = field_child(c, a, f->left), right = field_child(c, a, f->right);
            if (right == NONE_IDX) {
                break;   /* bare annotation binds nothing */
            }
            if (left != NONE_IDX && definite_target(c, left) < 0) {
                return -1;
            }
            a = right;
        }
    }
    return 0;
}

static int
emit_simple(Ctx *c, uint32_t s, const uint32_t *marks, int nmarks)
{
    int k = KIND(s);
    if (k == K_FUTURE_IMPORT) {
        return emit_raw(c, s);
    }
    if (put_marks(c, marks, nmarks, "; ") < 0) {
        return -1;
    }
    if (k == K_BREAK || k == K_CONTINUE) {
        uint32_t m = new_marker(c, s, N(s).erow);
        return (m == 0 || putf(c, "_l_(%lu); ", m) < 0) ? -1 : emit_raw(c, s);
    }
    if (k == K_RETURN || k == K_RAISE) {
        uint32_t last = NONE_IDX;
        CHILDREN(s, ch) {
            if (N(ch).named && KIND(ch) != K_COMMENT) {
                last = ch;
            }
        }
        if (last == NONE_IDX) {
            uint32_t m = new_marker(c, s, N(s).erow);
            return (m == 0 || putf(c, "_l_(%lu); ", m) < 0) ? -1 : emit_raw(c, s);
        }
        uint32_t pos = N(s).start;
        CHILDREN(s, ch) {
            if (copy(c, pos, N(ch).start) < 0) {
                return -1;
            }
            pos = N(ch).end;
            if (ch == last) {
                size_t at = c->out.len;
                if (emit(c, ch) < 0 || buf_puts(&c->out, "))") < 0) {
                    return -1;
                }
                uint32_t m = new_marker(c, s, N(s).erow);
                if (m == 0 || insertf(c, at, "_l_(%lu, (", m) < 0) {
                    return -1;
                }
            }
            else if ((N(ch).named ? emit(c, ch) : emit_raw(c, ch)) < 0) {
                return -1;
            }
        }
        return copy(c, pos, N(s).end);
    }
    int r;
    if (k == K_PRINT_STMT || k == K_EXEC_STMT || k == K_TYPE_ALIAS_STMT) {
        r = emit_raw(c, s);   /* only reached when CPython accepted the source */
    }
    else if (k == K_IMPORT || k == K_IMPORT_FROM) {
        r = import_is_guarded(c, s) ? emit_raw(c, s) : emit_import(c, s);
    }
    else if (k == K_GLOBAL || k == K_NONLOCAL || k == K_PASS) {
        r = emit_raw(c, s);
    }
    else if (k == K_EXPR_STMT && N(s).first != NONE_IDX && KIND(N(s).first) == K_CALL &&
             N(N(s).first).next == NONE_IDX && is_exit_call(c, N(s).first) &&
             exit_last_arg(c, N(s).first) == NONE_IDX) {
        /* exit() with nothing to evaluate after the callee: mark first */
        uint32_t m = new_marker(c, s, N(s).erow);
        return (m == 0 || putf(c, "_l_(%lu); ", m) < 0) ? -1 : emit(c, s);
    }
    else if (k == K_EXPR_STMT && N(s).first != NONE_IDX && KIND(N(s).first) == K_CALL &&
             N(N(s).first).next == NONE_IDX && is_exit_call(c, N(s).first)) {
        uint32_t saved_call = c->exit_call, saved_m = c->exit_marker;
        c->exit_call = N(s).first;
        c->exit_marker = c->next_iid++;
        uint32_t m = c->exit_marker;
        if (GROW(c->lines, c->linecap, c->nlines + 1) < 0 ||
            add_site(c, m, 3, NONE_IDX, s, N(s).start, N(s).end) < 0) {
            return -1;
        }
        c->lines[c->nlines].line = N(s).srow + 1;
        c->lines[c->nlines].end_line = N(s).erow + 1;
        c->lines[c->nlines].iid = m;
        c->nlines++;
        r = emit(c, s);
        c->exit_call = saved_call;
        c->exit_marker = saved_m;
        return r;
    }
    else {
        r = emit(c, s);
    }
    if (r < 0) {
        return -1;
    }
    if (k == K_EXPR_STMT && definite_after(c, s) < 0) {
        return -1;
    }
    uint32_t m = new_marker(c, s, N(s).erow);
    return (m == 0) ? -1 : putf(c, "; _l_(%lu)", m);
}

static int
emit_stmt(Ctx *c, uint32_t s, const uint32_t *marks, int nmarks)
{
    switch (KIND(s)) {
    case K_IF: case K_FOR: case K_WHILE: case K_TRY: case K_WITH: case K_MATCH:
        return emit_compound(c, s, marks, nmarks);
    case K_FUNCDEF:
    case K_CLASSDEF:
        if (nmarks > 0) {
            /* nothing in the header is evaluated: the marker needs a line */
            uint32_t ls = N(s).start;
            while (ls > 0 && c->src[ls - 1] != '\n') {
                ls--;
            }
            if (put_marks(c, marks, nmarks, "; ") < 0 || buf_puts(&c->out, "\n") < 0 ||
                copy(c, ls, N(s).start) < 0 ||
                GROW(c->inserted, c->inscap, c->ninserted + 1) < 0) {
                return -1;
            }
            c->inserted[c->ninserted++] = N(s).srow;
        }
        return emit_def(c, s);
    case K_DECORATED: {
        if (emit_decorated(c, s, marks, nmarks) < 0) {
            return -1;
        }
        uint32_t def = field_child(c, s, c->st->field.definition);
        uint32_t name = def == NONE_IDX ? NONE_IDX : field_child(c, def, c->st->field.name);
        return name == NONE_IDX ? 0 : make_definite(c, name);
    }
    case K_DELETE:
        if (put_marks(c, marks, nmarks, "; ") < 0 || emit_parts(c, s, part_target, NULL) < 0) {
            return -1;
        }
        {
            uint32_t m = new_marker(c, s, N(s).erow);
            return m == 0 ? -1 : putf(c, "; _l_(%lu)", m);
        }
    default:
        if (is_docstring(c, s)) {
            /* a docstring, or a bare string statement: no effect, not a
             * line to cover (as the papers count) */
            if (emit_raw(c, s) < 0) {
                return -1;
            }
            for (int i = 0; i < nmarks; i++) {
                if (putf(c, "; _l_(%lu)", marks[i]) < 0) {
                    return -1;
                }
            }
            return 0;
        }
        return emit_simple(c, s, marks, nmarks);
    }
}

static int
emit_block(Ctx *c, uint32_t block, const uint32_t *marks, int nmarks)
{
    /* the module node starts at its first token: keep leading blank lines */
    uint32_t pos = block == 0 ? 0 : N(block).start;
    int first = 1;
    CHILDREN(block, ch) {
        if (copy(c, pos, N(ch).start) < 0) {
            return -1;
        }
        pos = N(ch).end;
        int r;
        if (!N(ch).named || KIND(ch) == K_COMMENT) {
            r = emit_raw(c, ch);
        }
        else if (KIND(ch) == K_CASE) {
            r = emit_compound(c, ch, NULL, 0);
        }
        else if (first) {
            r = emit_stmt(c, ch, marks, nmarks);
            first = 0;
        }
        else {
            r = emit_stmt(c, ch, NULL, 0);
        }
        if (r < 0) {
            return -1;
        }
    }
    if (first && nmarks > 0) {
        /* a block with no statement (cannot happen in valid code) */
        if (put_marks(c, marks, nmarks, "; ") < 0) {
            return -1;
        }
    }
    return copy(c, pos, block == 0 ? c->len : N(block).end);
}

/* -------------------------------------------------------- result objects */

/* The context tokens of every site are slices of one string: the leaves,
 * each cut to LX_TOKEN_MAX bytes, joined by single spaces. */
static int
build_stream(Ctx *c)
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

static PyObject *
build_result(Ctx *c, PyObject *empty)
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
        Py_INCREF(kind_str[s->kind]);
        PyObject *vals[11] = {
            PyLong_FromUnsignedLong(s->iid), kind_str[s->kind], name,
            PyLong_FromUnsignedLong(n->srow + 1), PyLong_FromUnsignedLong(n->scol),
            PyLong_FromUnsignedLong(n->erow + 1), PyLong_FromUnsignedLong(n->ecol),
            PyLong_FromUnsignedLong(n->start), PyLong_FromUnsignedLong(n->end),
            before, after,
        };
        int bad = 0;
        for (int j = 0; j < 11; j++) {
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
    if (flatten(c, ts_tree_root_node(tree)) < 0) {
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
    if (context > 0 && (collect_leaves(c) < 0 || build_stream(c) < 0)) {
        goto done;
    }
    if (new_scope(c, S_MODULE, -1, 0) < 0 || analyse_children(c, 0, 0) < 0) {
        goto done;
    }
    c->cur_scope = 0;
    if (emit_block(c, 0, NULL, 0) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_SyntaxError, "unsupported syntax tree shape");
        }
        goto done;
    }
    empty = PyUnicode_FromStringAndSize("", 0);
    if (empty == NULL) {
        goto done;
    }
    res = build_result(c, empty);
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
    {NULL, NULL},
};

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

static PyMethodDef instrument_methods[] = {
    {"instrument", (PyCFunction)(void (*)(void))core_instrument, METH_VARARGS | METH_KEYWORDS,
     instrument_doc},
    {NULL, NULL, 0, NULL},
};

static int
load_fields(lx_state *st)
{
    static const struct { const char *name; size_t off; } names[] = {
#define F(x) {#x, offsetof(lx_fields, x)}
        F(left), F(right), F(name), F(value), F(body), F(function), F(arguments),
        F(object), F(attribute), F(alias), F(condition), F(consequence),
        F(alternative), F(parameters), F(superclasses), F(return_type), F(type),
        F(subject), F(module_name), F(definition), F(expression),
        F(format_specifier), F(type_conversion), F(guard),
#undef F
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        TSFieldId id = ts_language_field_id_for_name(st->language, names[i].name,
                                                     (uint32_t)strlen(names[i].name));
        if (id == 0) {
            PyErr_Format(PyExc_ImportError, "tree-sitter-python grammar lacks field %s",
                         names[i].name);
            return -1;
        }
        *(uint16_t *)((char *)&st->field + names[i].off) = id;
    }
    return 0;
}

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
    st->nsymbols = ts_language_symbol_count(st->language);
    st->symkind = PyMem_Calloc(st->nsymbols ? st->nsymbols : 1, 1);
    if (st->symkind == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (uint32_t s = 0; s < st->nsymbols; s++) {
        const char *name = ts_language_symbol_name(st->language, (TSSymbol)s);
        if (name == NULL || ts_language_symbol_type(st->language, (TSSymbol)s) != TSSymbolTypeRegular) {
            continue;
        }
        for (size_t k = 0; k < sizeof kind_names / sizeof kind_names[0]; k++) {
            if (strcmp(kind_names[k].name, name) == 0) {
                st->symkind[s] = kind_names[k].kind;
                break;
            }
        }
    }
    if (load_fields(st) < 0) {
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
    st->IidInfo = (PyObject *)PyStructSequence_NewType(&iid_desc);
    st->LineInfo = (PyObject *)PyStructSequence_NewType(&line_desc);
    if (st->IidInfo == NULL || st->LineInfo == NULL) {
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
