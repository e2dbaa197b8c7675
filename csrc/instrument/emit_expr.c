/* instrument/emit_expr.c - emission of expressions.
 *
 * The output helpers (putf, insertf, sites and line markers) and the
 * rewriting of every expression kind: name reads become _n_, attribute reads
 * _a_, calls _c_ (docs/LOADERS.md).  iids are numbered in post-order (an
 * operand before the operation that uses it), so a wrapper's prefix is
 * spliced in front of its already emitted operands (insertf).
 *
 *     x = foo()        ->  x = _c_(2, _n_(1, "foo", lambda: foo)); _l_(3)
 *     y = x.bar + z    ->  y = _a_(5, _n_(4, "x", lambda: x), "bar") + _n_(6, "z", lambda: z); _l_(7)
 */
#include "instrument/instrument.h"

/* -------------------------------------------------------------- emission */


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

int
lxi_putf(Ctx *c, const char *fmt, unsigned long v)
{
    char tmp[64];
    int sp = fmt[0] == '_' && glued(c, c->out.len);
    if (sp) {
        tmp[0] = ' ';
    }
    int k = PyOS_snprintf(tmp + sp, sizeof tmp - 1, fmt, v);
    return buf_put(&c->out, tmp, (size_t)k + (size_t)sp);
}

int
lxi_insertf(Ctx *c, size_t pos, const char *fmt, unsigned long v)
{
    char tmp[64];
    int sp = glued(c, pos);
    if (sp) {
        tmp[0] = ' ';
    }
    int k = PyOS_snprintf(tmp + sp, sizeof tmp - 1, fmt, v);
    return buf_insert(&c->out, pos, tmp, (size_t)k + (size_t)sp);
}

int
lxi_add_site(Ctx *c, uint32_t iid, int kind, uint32_t name_node, uint32_t node,
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
uint32_t
lxi_new_marker(Ctx *c, uint32_t n, uint32_t end_row)
{
    uint32_t iid = c->next_iid++;
    if (GROW(c->lines, c->linecap, c->nlines + 1) < 0 ||
        lxi_add_site(c, iid, 3, NONE_IDX, n, N(n).start, N(n).end) < 0) {
        return 0;
    }
    LineRec *r = &c->lines[c->nlines++];
    r->line = N(n).srow + 1;
    r->end_line = end_row + 1;
    r->iid = iid;
    return iid;
}

int
lxi_put_marks(Ctx *c, const uint32_t *marks, int n, const char *sep)
{
    if (n > 0 && glued(c, c->out.len) && buf_put(&c->out, " ", 1) < 0) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (lxi_putf(c, "_l_(%lu)", marks[i]) < 0 || buf_puts(&c->out, sep) < 0) {
            return -1;
        }
    }
    return 0;
}


/* The quote character a wrapper may use here: inside an f-string
 * expression (3.11) the string's own single-character delimiter is not
 * allowed; 0 when neither quote is (then the use is left as written). */
static char
quote_char(Ctx *c)
{
    return !c->forbid_dq ? '"' : !c->forbid_sq ? '\'' : 0;
}


static int
emit_name(Ctx *c, uint32_t n)
{
    if (lxi_is_undefined(c, n) && lxi_note_undefined_read(c, n) < 0) {
        return -1;
    }
    int mode = lxi_read_mode(c, n);
    char q = quote_char(c);
    if (mode == READ_PLAIN || q == 0) {
        return copy(c, N(n).start, N(n).end);
    }
    uint32_t iid = c->next_iid++;
    const char *name = c->src + N(n).start;
    size_t len = N(n).end - N(n).start;
    if (lxi_putf(c, "_n_(%lu, ", iid) < 0 || buf_put(&c->out, &q, 1) < 0 ||
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
    return lxi_add_site(c, iid, 0, n, n, N(n).start, N(n).end);
}

/* -- generic and expression emission */

/* The one emission loop: n's text with each child replaced by what
 * part(c, child, arg) emits and the text between children kept. */
int
lxi_emit_parts(Ctx *c, uint32_t n, part_fn part, const void *arg)
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
    return lxi_emit(c, ch);
}

static int
emit_generic(Ctx *c, uint32_t n)
{
    return lxi_emit_parts(c, n, part_emit, NULL);
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
    return rule->other_raw ? copy(c, N(ch).start, N(ch).end) : lxi_emit(c, ch);
}

/* Emit n's children, sending the one with the given field to fn and
 * copying every other child as written (other_raw) or emitting it. */
int
lxi_emit_with_field(Ctx *c, uint32_t n, uint16_t field, int (*fn)(Ctx *, uint32_t),
                int other_raw)
{
    struct field_rule rule = {field, fn, other_raw};
    return lxi_emit_parts(c, n, part_field, &rule);
}

int
lxi_emit_raw(Ctx *c, uint32_t n)
{
    return copy(c, N(n).start, N(n).end);
}

/* inside a target list (or `del`): targets, and punctuation as written */
int
lxi_part_target(Ctx *c, uint32_t ch, const void *arg)
{
    (void)arg;
    return N(ch).named ? lxi_emit_target(c, ch) : lxi_emit_raw(c, ch);
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

/* Does the subtree at n hold the identifier `AttributeError`? */
static int
names_attribute_error(Ctx *c, uint32_t n)
{
    static const char want[] = "AttributeError";
    if (KIND(n) == K_IDENT) {
        return N(n).end - N(n).start == sizeof want - 1 &&
            memcmp(c->src + N(n).start, want, sizeof want - 1) == 0;
    }
    if (KIND(n) == K_BLOCK) {
        return 0;
    }
    CHILDREN(n, ch) {
        if (names_attribute_error(c, ch)) {
            return 1;
        }
    }
    return 0;
}

/* Is the attribute read n inside the body of a try statement (in the same
 * scope) with an except clause that names AttributeError (`except
 * AttributeError:`, `except (KeyError, AttributeError) as e:`)?  Then the
 * code handles a missing attribute itself (`try: m = self._map` / `except
 * AttributeError: m = self._map = {}`, a lazily built state) and the read
 * is left to Python: no value is made up for it. */
static int
attribute_is_guarded(Ctx *c, uint32_t n)
{
    while (N(n).parent != NONE_IDX) {
        uint32_t p = N(n).parent;
        int pk = KIND(p);
        if (pk == K_FUNCDEF || pk == K_CLASSDEF || pk == K_MODULE || pk == K_LAMBDA) {
            return 0;
        }
        if (pk == K_TRY && N(n).field == c->st->field.body) {
            CHILDREN(p, ch) {
                if ((KIND(ch) == K_EXCEPT || KIND(ch) == K_EXCEPT_GROUP) &&
                    names_attribute_error(c, ch)) {
                    return 1;
                }
            }
        }
        n = p;
    }
    return 0;
}

/* obj.attr  ->  _a_(iid, obj, "attr")
 * (obj.attr as written, obj still read through a loader, where the code
 * handles AttributeError around it: attribute_is_guarded) */
static int
emit_attribute(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    uint32_t obj = field_child(c, n, f->object), attr = field_child(c, n, f->attribute);
    char q = quote_char(c);
    if (obj != NONE_IDX && attr != NONE_IDX && KIND(obj) == K_IDENT && lxi_is_undefined(c, obj)) {
        int method = c->calling == n;
        if (lxi_add_undef(c, obj, method ? U_METHOD : U_ATTR, attr,
                      method ? c->calling_arity : -2) < 0) {
            return -1;
        }
    }
    if (obj == NONE_IDX || attr == NONE_IDX || q == 0) {
        return lxi_emit_target(c, n);   /* object still read through a loader */
    }
    if (attribute_is_guarded(c, n)) {
        return lxi_emit(c, obj) < 0 ? -1 : copy(c, N(obj).end, N(n).end);
    }
    size_t pos = c->out.len;
    if (lxi_emit(c, obj) < 0 || copy_newlines(c, N(obj).end, N(attr).start) < 0 ||
        buf_puts(&c->out, ", ") < 0 || buf_put(&c->out, &q, 1) < 0 ||
        mangled_attr(c, attr) < 0 || buf_put(&c->out, &q, 1) < 0 ||
        buf_puts(&c->out, ")") < 0) {
        return -1;
    }
    uint32_t iid = c->next_iid++;
    if (lxi_insertf(c, pos, "_a_(%lu, ", iid) < 0) {
        return -1;
    }
    return lxi_add_site(c, iid, 1, attr, n, N(attr).start, N(attr).end);
}

static int
emit_kwarg(Ctx *c, uint32_t n)
{
    return lxi_emit_with_field(c, n, c->st->field.value, lxi_emit, 1);
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
    int fr = lxi_emit(c, fn);
    c->calling = saved_calling;
    c->calling_arity = saved_arity;
    if (fr < 0 || copy_newlines(c, N(fn).end, N(args).start) < 0) {
        return -1;
    }
    if (KIND(args) == K_GENEXP) {
        if (buf_puts(&c->out, ", ") < 0 || lxi_emit(c, args) < 0) {
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
                r = lxi_emit(c, ch);
                if (r == 0) {
                    uint32_t m = c->exit_marker;
                    r = buf_puts(&c->out, "))");
                    if (r == 0) {
                        r = lxi_insertf(c, apos, "_l_(%lu, (", m);
                    }
                }
            }
            else {
                r = lxi_emit(c, ch);
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
    if (lxi_insertf(c, pos, "_c_(%lu, ", iid) < 0) {
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
    return lxi_add_site(c, iid, 2, name, n, ms, me);
}

/* Annotations: left as written where Python does not evaluate them
 * (`from __future__ import annotations`, annotated locals of functions). */
int
lxi_emit_annotation(Ctx *c, uint32_t t, int variable)
{
    if (c->future_annotations || c->raw_annotations ||
        (variable && c->scopes[c->cur_scope].kind != S_MODULE &&
         c->scopes[c->cur_scope].kind != S_CLASS)) {
        return lxi_emit_raw(c, t);
    }
    return lxi_emit(c, t);
}

/* a parameter: its default is evaluated, its annotation maybe, its name
 * stays as written */
static int
part_param(Ctx *c, uint32_t q, const void *arg)
{
    (void)arg;
    if (N(q).field == c->st->field.value) {
        return lxi_emit(c, q);
    }
    if (N(q).field == c->st->field.type) {
        return lxi_emit_annotation(c, q, 0);
    }
    return lxi_emit_raw(c, q);
}

/* a parameter list: a parameter with a default or an annotation goes
 * through part_param, a bare name or separator stays as written */
static int
part_params(Ctx *c, uint32_t p, const void *arg)
{
    (void)arg;
    int k = KIND(p);
    if (k == K_DEFAULT_PARAM || k == K_TYPED_DEFAULT_PARAM || k == K_TYPED_PARAM) {
        return lxi_emit_parts(c, p, part_param, NULL);
    }
    return lxi_emit_raw(c, p);
}

int
lxi_emit_params(Ctx *c, uint32_t params)
{
    return lxi_emit_parts(c, params, part_params, NULL);
}

/* Make the parameters of the function/lambda n definite in its scope. */
int
lxi_definite_params(Ctx *c, uint32_t params)
{
    CHILDREN(params, p) {
        if (KIND(p) == K_IDENT) {
            if (lxi_make_definite(c, p) < 0) {
                return -1;
            }
            continue;
        }
        CHILDREN(p, q) {
            if (KIND(q) == K_IDENT && N(q).field != c->st->field.value) {
                if (lxi_make_definite(c, q) < 0) {
                    return -1;
                }
            }
            else if (KIND(q) == K_LIST_SPLAT_PATTERN || KIND(q) == K_DICT_SPLAT_PATTERN) {
                CHILDREN(q, r) {
                    if (KIND(r) == K_IDENT && lxi_make_definite(c, r) < 0) {
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
            if (lxi_emit_params(c, ch) < 0) {
                goto done;
            }
            c->cur_scope = N(n).scope;
            if (lxi_definite_params(c, ch) < 0) {
                goto done;
            }
        }
        else if (N(ch).field == f->body) {
            c->cur_scope = N(n).scope;
            if (lxi_emit(c, ch) < 0) {
                goto done;
            }
        }
        else if (lxi_emit_raw(c, ch) < 0) {
            goto done;
        }
    }
    rc = copy(c, pos, N(n).end);
done:
    lxi_undo_to(c, mark);
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
            if (left != NONE_IDX && lxi_definite_target(c, left) < 0) {
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
                    r = lxi_emit_target(c, q);
                }
                else if (N(q).field == f->right && first_clause) {
                    c->cur_scope = saved;
                    r = lxi_emit(c, q);
                    c->cur_scope = inner;
                }
                else {
                    r = lxi_emit(c, q);
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
        else if (lxi_emit(c, ch) < 0) {
            goto done;
        }
    }
    rc = copy(c, pos, N(n).end);
done:
    lxi_undo_to(c, mark);
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
    /* 3.12 (PEP 701) allows a comment and line breaks in the field; the
     * debug text then drops the comment, which no literal we could write
     * reproduces: such a field stays as written */
    if (memchr(c->src + N(open).end, '#', lit_end - N(open).end) != NULL ||
        memchr(c->src + N(open).end, '\n', lit_end - N(open).end) != NULL) {
        return lxi_emit_raw(c, n);
    }
    if (escape_braces(c, N(open).end, lit_end) < 0 || buf_puts(&c->out, "{") < 0 ||
        lxi_emit(c, expr) < 0) {
        return -1;
    }
    if (conv != NONE_IDX) {
        if (lxi_emit_raw(c, conv) < 0) {
            return -1;
        }
    }
    else if (spec == NONE_IDX && buf_puts(&c->out, "!r") < 0) {
        return -1;
    }
    if (spec != NONE_IDX && lxi_emit(c, spec) < 0) {
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
    if (lxi_emit_raw(c, left) < 0 || buf_puts(&c->out, " = _op_.") < 0 ||
        buf_puts(&c->out, fn) < 0 || buf_puts(&c->out, "(") < 0 || emit_name(c, left) < 0 ||
        buf_puts(&c->out, ", ") < 0 || lxi_emit(c, right) < 0) {
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
        return lxi_emit_target(c, ch);
    }
    if (N(ch).field == c->st->field.type) {
        return lxi_emit_annotation(c, ch, 1);
    }
    return lxi_emit(c, ch);
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
            quote_char(c) != 0 && lxi_read_mode(c, left) != READ_PLAIN) {
            return emit_augassign_name(c, n, left, right, fn);
        }
    }
    return lxi_emit_parts(c, n, part_assignment, NULL);
}

int
lxi_emit(Ctx *c, uint32_t n)
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
        return lxi_emit_with_field(c, n, f->value, lxi_emit, 1);
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
        return lxi_emit_with_field(c, n, f->alias, lxi_emit_target, 0);
    case K_MEMBER_TYPE: case K_CASE_PATTERN: case K_COMMENT: case K_STRING_START:
        return lxi_emit_raw(c, n);
    default:
        if (N(n).first == NONE_IDX) {
            return lxi_emit_raw(c, n);
        }
        return emit_generic(c, n);
    }
}

/* Store targets: names stay as written; the object of `a.b = v` and the
 * parts of `a[i] = v` are reads. */
int
lxi_emit_target(Ctx *c, uint32_t n)
{
    switch (KIND(n)) {
    case K_IDENT:
        return lxi_emit_raw(c, n);
    case K_ATTRIBUTE: {
        uint32_t obj = field_child(c, n, c->st->field.object);
        if (obj == NONE_IDX) {
            return lxi_emit_raw(c, n);
        }
        /* `obj.attr = v` reads obj: an undefined obj is reported, as a plain
         * read (the attribute is only stored); `obj.attr += v` reads the
         * attribute too, reported as emit_attribute does for a load */
        uint32_t attr = field_child(c, n, c->st->field.attribute);
        if (attr != NONE_IDX && KIND(obj) == K_IDENT && lxi_is_undefined(c, obj)) {
            uint32_t p = N(n).parent;
            int aug = p != NONE_IDX && KIND(p) == K_AUGASSIGN;
            if (lxi_add_undef(c, obj, aug ? U_ATTR : U_READ, aug ? attr : NONE_IDX, -2) < 0) {
                return -1;
            }
        }
        return lxi_emit(c, obj) < 0 ? -1 : copy(c, N(obj).end, N(n).end);
    }
    case K_PATTERN_LIST: case K_TUPLE_PATTERN: case K_LIST_PATTERN: case K_TUPLE:
    case K_LIST: case K_PAREN_EXPR: case K_EXPR_LIST: case K_LIST_SPLAT_PATTERN:
    case K_LIST_SPLAT: case K_AS_PATTERN_TARGET:
        return lxi_emit_parts(c, n, lxi_part_target, NULL);
    case K_COMMENT:
        return lxi_emit_raw(c, n);
    default:
        return lxi_emit(c, n);
    }
}

/* -- statements */
