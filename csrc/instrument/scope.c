/* instrument/scope.c - what each name refers to.
 *
 * The name table (a hash table keyed by tag, scope and name bytes), the scope
 * pass that records what each module, class, function, lambda and
 * comprehension binds, declares global or nonlocal, or deletes, the
 * definite-assignment bookkeeping that emission updates as it walks (a read
 * of a name certainly bound needs no loader), how a read resolves (plain,
 * wrapped, global), and the undefined-name uses (Treefix's guidance).
 */
#include "instrument/instrument.h"

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

int32_t
lxi_new_scope(Ctx *c, int kind, int32_t parent, uint32_t node)
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

int
lxi_analyse_children(Ctx *c, uint32_t n, int32_t scope)
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

/* PEP 695 type parameters (`def f[T: int, *Ts, **P]`, `class C[T]`, 3.12):
 * they open an annotation scope between the definition's scope and its
 * body, which binds the parameters' names.  Each parameter is a `type`
 * holding an identifier, a constrained_type (name: bound) or a splat_type
 * (*Ts, **P).  Returns the new scope, or -1. */
static int32_t
type_param_scope(Ctx *c, uint32_t tparams, int32_t scope)
{
    int32_t tp = lxi_new_scope(c, S_FUNC, scope, tparams);
    if (tp < 0) {
        return -1;
    }
    CHILDREN(tparams, t) {
        uint32_t x = KIND(t) == K_TYPE ? N(t).first : NONE_IDX;
        if (x != NONE_IDX && KIND(x) != K_IDENT) {
            x = N(x).first;                    /* constrained_type's type, splat_type's name */
            if (x != NONE_IDX && KIND(x) == K_TYPE) {
                x = N(x).first;
            }
        }
        if (x != NONE_IDX && KIND(x) == K_IDENT && bind(c, tp, x) < 0) {
            return -1;
        }
    }
    return tp;
}

static int
analyse(Ctx *c, uint32_t n, int32_t scope)
{
    const lx_fields *f = &c->st->field;
    switch (KIND(n)) {
    case K_FUNCDEF:
    case K_CLASSDEF: {
        int isfunc = KIND(n) == K_FUNCDEF;
        int32_t body_parent = scope;
        uint32_t tparams = field_child(c, n, f->type_parameters);
        if (tparams != NONE_IDX && (body_parent = type_param_scope(c, tparams, scope)) < 0) {
            return -1;
        }
        int32_t inner = lxi_new_scope(c, isfunc ? S_FUNC : S_CLASS, body_parent, n);
        if (inner < 0) {
            return -1;
        }
        CHILDREN(n, ch) {
            if (N(ch).field == f->type_parameters) {
                continue;   /* bound above; bounds and constraints stay as written */
            }
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
                if (lxi_analyse_children(c, ch, inner) < 0) {
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
        int32_t inner = lxi_new_scope(c, S_FUNC, scope, n);
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
        int32_t inner = lxi_new_scope(c, S_COMP, scope, n);
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
        return lxi_analyse_children(c, n, scope);
    case K_NAMED_EXPR:
        CHILDREN(n, ch) {
            if (N(ch).field == f->name && bind(c, function_scope_of(c, scope), ch) < 0) {
                return -1;
            }
        }
        return lxi_analyse_children(c, n, scope);
    case K_AS_PATTERN: {
        uint32_t p = N(n).parent;
        int in_except = KIND(p) == K_EXCEPT || KIND(p) == K_EXCEPT_GROUP;
        CHILDREN(n, ch) {
            if (N(ch).field == f->alias && bind_target(c, scope, ch, in_except) < 0) {
                return -1;
            }
        }
        return lxi_analyse_children(c, n, scope);
    }
    case K_DELETE:
        CHILDREN(n, ch) {
            if (N(ch).named && bind_target(c, scope, ch, 1) < 0) {
                return -1;
            }
        }
        return lxi_analyse_children(c, n, scope);
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
        return lxi_analyse_children(c, n, scope);
    }
}


/* -- definite assignment: names certainly bound at this point of a scope */

int
lxi_make_definite(Ctx *c, uint32_t ident)
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

int
lxi_definite_target(Ctx *c, uint32_t n)
{
    switch (KIND(n)) {
    case K_IDENT:
        return lxi_make_definite(c, n);
    case K_PATTERN_LIST: case K_TUPLE_PATTERN: case K_LIST_PATTERN: case K_TUPLE:
    case K_LIST: case K_PAREN_EXPR: case K_LIST_SPLAT_PATTERN: case K_LIST_SPLAT:
    case K_AS_PATTERN_TARGET:
        CHILDREN(n, ch) {
            if (N(ch).named && lxi_definite_target(c, ch) < 0) {
                return -1;
            }
        }
        return 0;
    default:
        return 0;
    }
}

void
lxi_undo_to(Ctx *c, uint32_t mark)
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

int
lxi_read_mode(Ctx *c, uint32_t ident)
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

/* Is the name read here bound in no scope it can see, and no builtin? */
int
lxi_is_undefined(Ctx *c, uint32_t ident)
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

int
lxi_add_undef(Ctx *c, uint32_t ident, int use, uint32_t detail, int32_t arity)
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
int
lxi_note_undefined_read(Ctx *c, uint32_t ident)
{
    const lx_fields *f = &c->st->field;
    uint32_t p = N(ident).parent;
    int pk = p == NONE_IDX ? K_OTHER : KIND(p);
    if (p != NONE_IDX && c->calling == ident) {
        return lxi_add_undef(c, ident, U_CALL, NONE_IDX, c->calling_arity);
    }
    if (pk == K_ATTRIBUTE && N(ident).field == f->object) {
        return 0;   /* recorded by emit_attribute (emit_expr.c) with the attribute's name */
    }
    if (pk == K_SUBSCRIPT && N(ident).field == f->value) {
        uint32_t key = NONE_IDX;
        CHILDREN(p, ch) {
            if (ch != ident && N(ch).named && KIND(ch) != K_COMMENT) {
                key = ch;
                break;
            }
        }
        return lxi_add_undef(c, ident, U_SUBSCRIPT, key, -2);
    }
    if ((pk == K_FOR || pk == K_FOR_IN_CLAUSE) && N(ident).field == f->right) {
        return lxi_add_undef(c, ident, U_ITERATE, NONE_IDX, -2);
    }
    if (pk == K_COMPARISON) {
        uint32_t other = NONE_IDX;
        CHILDREN(p, ch) {
            if (ch != ident && N(ch).named && KIND(ch) != K_COMMENT) {
                other = ch;
                break;
            }
        }
        return lxi_add_undef(c, ident, U_COMPARE, other, -2);
    }
    if (pk == K_WITH_ITEM || (pk == K_AS_PATTERN && N(p).parent != NONE_IDX &&
                              KIND(N(p).parent) == K_WITH_ITEM)) {
        return lxi_add_undef(c, ident, U_WITH, NONE_IDX, -2);
    }
    return lxi_add_undef(c, ident, U_READ, NONE_IDX, -2);
}
