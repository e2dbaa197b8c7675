/* instrument/emit_stmt.c - emission of statements and blocks.
 *
 * Every statement is followed by its line marker _l_(iid); a block header's
 * marker goes in front of the block's first statement.  Imports become _i_
 * calls, compound statements (if, for, while, try, with, match, def, class)
 * have their headers emitted and their blocks walked with the definite
 * assignment state saved and restored around them.
 */
#include "instrument/instrument.h"

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
        return lxi_emit(c, expr);
    }
    if (lxi_put_marks(c, marks, nmarks, " or ") < 0 || buf_puts(&c->out, "(") < 0 ||
        lxi_emit(c, expr) < 0) {
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
            if (lxi_emit_raw(c, item) < 0) {
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
                        r = lxi_emit_target(c, q);
                    }
                    else if (N(q).named && !seen_expr) {
                        seen_expr = 1;
                        r = header_expr(c, q, first ? marks : NULL, first ? nmarks : 0);
                    }
                    else {
                        r = lxi_emit(c, q);
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
                        (N(q).field == f->alias ? lxi_emit_target(c, q) : lxi_emit_raw(c, q)) < 0) {
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
            else if (lxi_emit_raw(c, v) < 0) {
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
                    if (alias != NONE_IDX && lxi_definite_target(c, alias) < 0) {
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
                uint32_t m = lxi_new_marker(c, n, colon_row(c, n, ch));
                if (m == 0) {
                    return -1;
                }
                bm[nb++] = m;
            }
            uint32_t mark = c->nundo;
            if (kind == K_FOR) {
                uint32_t left = field_child(c, n, f->left);
                if (left != NONE_IDX && lxi_definite_target(c, left) < 0) {
                    return -1;
                }
            }
            else if (kind == K_WITH && definite_with_targets(c, n) < 0) {
                return -1;
            }
            r = lxi_emit_block(c, ch, bm, nb);
            lxi_undo_to(c, mark);
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
            r = lxi_emit_target(c, ch);
        }
        else if (ck == K_ELIF || ck == K_ELSE || ck == K_EXCEPT || ck == K_EXCEPT_GROUP ||
                 ck == K_FINALLY || ck == K_CASE) {
            r = emit_compound(c, ch, NULL, 0);
        }
        else if (ck == K_AS_PATTERN) {
            r = lxi_emit_with_field(c, ch, f->alias, lxi_emit_target, 0);
        }
        else if (ck == K_CASE_PATTERN || !N(ch).named) {
            r = lxi_emit_raw(c, ch);
        }
        else {
            r = lxi_emit(c, ch);
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
    /* PEP 695 (3.12): with type parameters, the annotations, return type and
     * bases are evaluated in an annotation scope, where the parameters are
     * bound and a class's names stay visible; no loader call could read
     * them there as CPython does, so they stay as written (the parameters'
     * bounds are lazy and stay as written too).  Defaults are evaluated
     * outside that scope and are instrumented as usual. */
    int generic = field_child(c, n, f->type_parameters) != NONE_IDX;
    CHILDREN(n, ch) {
        if (copy(c, pos, N(ch).start) < 0) {
            return -1;
        }
        pos = N(ch).end;
        int r;
        uint16_t fid = N(ch).field;
        if (fid == f->parameters) {
            int saved_raw = c->raw_annotations;
            c->raw_annotations = generic;
            r = lxi_emit_params(c, ch);
            c->raw_annotations = saved_raw;
        }
        else if (generic && (fid == f->return_type || fid == f->superclasses ||
                             fid == f->type_parameters)) {
            r = lxi_emit_raw(c, ch);
        }
        else if (fid == f->return_type) {
            r = lxi_emit_annotation(c, ch, 0);
        }
        else if (fid == f->superclasses) {
            r = lxi_emit(c, ch);
        }
        else if (fid == f->body) {
            uint32_t m = lxi_new_marker(c, n, colon_row(c, n, ch));
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
                    r = lxi_definite_params(c, params);
                }
            }
            else if (name != NONE_IDX) {
                c->cls_off = N(name).start;
                c->cls_len = N(name).end - N(name).start;
            }
            if (r == 0) {
                r = lxi_emit_block(c, ch, &m, 1);
            }
            lxi_undo_to(c, mark);
            c->cur_scope = saved;
            c->cls_off = saved_off;
            c->cls_len = saved_len;
        }
        else if (N(ch).named && KIND(ch) != K_IDENT && KIND(ch) != K_COMMENT) {
            r = lxi_emit(c, ch);   /* e.g. type parameters */
        }
        else {
            r = lxi_emit_raw(c, ch);
        }
        if (r < 0) {
            return -1;
        }
    }
    if (copy(c, pos, N(n).end) < 0) {
        return -1;
    }
    return name != NONE_IDX ? lxi_make_definite(c, name) : 0;
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
                    r = lxi_emit_raw(c, e);
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
            r = lxi_emit_raw(c, ch);
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
        if (lxi_emit_raw(c, id) < 0) {
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
                lxi_emit_raw(c, alias != NONE_IDX ? alias : N(dotted).first) < 0 ||
                lxi_putf(c, " = _i_(%lu, \"", iid) < 0 || put_dotted(c, dotted) < 0 ||
                buf_puts(&c->out, alias != NONE_IDX ? "\", 0, ()" : "\", 0, None") < 0) {
                return -1;
            }
            for (; newlines > 0; newlines--) {
                if (buf_put(&c->out, "\n", 1) < 0) {
                    return -1;
                }
            }
            if (buf_puts(&c->out, ")") < 0 ||
                lxi_add_site(c, iid, 4, NONE_IDX, ch, N(ch).start, N(ch).end) < 0) {
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
            if (target == NONE_IDX || lxi_emit_raw(c, target) < 0 || buf_puts(&c->out, ", ") < 0) {
                return -1;
            }
        }
        if (buf_puts(&c->out, "= ") < 0) {
            return -1;
        }
    }
    uint32_t iid = c->next_iid++;
    if (lxi_putf(c, "_i_(%lu, \"", iid) < 0 || (dotted != NONE_IDX && put_dotted(c, dotted) < 0) ||
        lxi_putf(c, "\", %lu, ", level) < 0) {
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
    if (buf_puts(&c->out, ")") < 0 ||
        lxi_add_site(c, iid, 4, NONE_IDX, s, N(s).start, N(s).end) < 0) {
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
            if (left != NONE_IDX && lxi_definite_target(c, left) < 0) {
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
        return lxi_emit_raw(c, s);
    }
    if (lxi_put_marks(c, marks, nmarks, "; ") < 0) {
        return -1;
    }
    if (k == K_BREAK || k == K_CONTINUE) {
        uint32_t m = lxi_new_marker(c, s, N(s).erow);
        return (m == 0 || lxi_putf(c, "_l_(%lu); ", m) < 0) ? -1 : lxi_emit_raw(c, s);
    }
    if (k == K_RETURN || k == K_RAISE) {
        uint32_t last = NONE_IDX;
        CHILDREN(s, ch) {
            if (N(ch).named && KIND(ch) != K_COMMENT) {
                last = ch;
            }
        }
        if (last == NONE_IDX) {
            uint32_t m = lxi_new_marker(c, s, N(s).erow);
            return (m == 0 || lxi_putf(c, "_l_(%lu); ", m) < 0) ? -1 : lxi_emit_raw(c, s);
        }
        uint32_t pos = N(s).start;
        CHILDREN(s, ch) {
            if (copy(c, pos, N(ch).start) < 0) {
                return -1;
            }
            pos = N(ch).end;
            if (ch == last) {
                size_t at = c->out.len;
                if (lxi_emit(c, ch) < 0 || buf_puts(&c->out, "))") < 0) {
                    return -1;
                }
                uint32_t m = lxi_new_marker(c, s, N(s).erow);
                if (m == 0 || lxi_insertf(c, at, "_l_(%lu, (", m) < 0) {
                    return -1;
                }
            }
            else if ((N(ch).named ? lxi_emit(c, ch) : lxi_emit_raw(c, ch)) < 0) {
                return -1;
            }
        }
        return copy(c, pos, N(s).end);
    }
    int r;
    if (k == K_PRINT_STMT || k == K_EXEC_STMT || k == K_TYPE_ALIAS_STMT) {
        r = lxi_emit_raw(c, s);   /* only reached when CPython accepted the source */
    }
    else if (k == K_IMPORT || k == K_IMPORT_FROM) {
        r = import_is_guarded(c, s) ? lxi_emit_raw(c, s) : emit_import(c, s);
    }
    else if (k == K_GLOBAL || k == K_NONLOCAL || k == K_PASS) {
        r = lxi_emit_raw(c, s);
    }
    else if (k == K_EXPR_STMT && N(s).first != NONE_IDX && KIND(N(s).first) == K_CALL &&
             N(N(s).first).next == NONE_IDX && is_exit_call(c, N(s).first) &&
             exit_last_arg(c, N(s).first) == NONE_IDX) {
        /* exit() with nothing to evaluate after the callee: mark first */
        uint32_t m = lxi_new_marker(c, s, N(s).erow);
        return (m == 0 || lxi_putf(c, "_l_(%lu); ", m) < 0) ? -1 : lxi_emit(c, s);
    }
    else if (k == K_EXPR_STMT && N(s).first != NONE_IDX && KIND(N(s).first) == K_CALL &&
             N(N(s).first).next == NONE_IDX && is_exit_call(c, N(s).first)) {
        uint32_t saved_call = c->exit_call, saved_m = c->exit_marker;
        c->exit_call = N(s).first;
        c->exit_marker = c->next_iid++;
        uint32_t m = c->exit_marker;
        if (GROW(c->lines, c->linecap, c->nlines + 1) < 0 ||
            lxi_add_site(c, m, 3, NONE_IDX, s, N(s).start, N(s).end) < 0) {
            return -1;
        }
        c->lines[c->nlines].line = N(s).srow + 1;
        c->lines[c->nlines].end_line = N(s).erow + 1;
        c->lines[c->nlines].iid = m;
        c->nlines++;
        r = lxi_emit(c, s);
        c->exit_call = saved_call;
        c->exit_marker = saved_m;
        return r;
    }
    else {
        r = lxi_emit(c, s);
    }
    if (r < 0) {
        return -1;
    }
    if (k == K_EXPR_STMT && definite_after(c, s) < 0) {
        return -1;
    }
    uint32_t m = lxi_new_marker(c, s, N(s).erow);
    return (m == 0) ? -1 : lxi_putf(c, "; _l_(%lu)", m);
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
            if (lxi_put_marks(c, marks, nmarks, "; ") < 0 || buf_puts(&c->out, "\n") < 0 ||
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
        return name == NONE_IDX ? 0 : lxi_make_definite(c, name);
    }
    case K_DELETE:
        if (lxi_put_marks(c, marks, nmarks, "; ") < 0 ||
            lxi_emit_parts(c, s, lxi_part_target, NULL) < 0) {
            return -1;
        }
        {
            uint32_t m = lxi_new_marker(c, s, N(s).erow);
            return m == 0 ? -1 : lxi_putf(c, "; _l_(%lu)", m);
        }
    default:
        if (is_docstring(c, s)) {
            /* a docstring, or a bare string statement: no effect, not a
             * line to cover (as the papers count) */
            if (lxi_emit_raw(c, s) < 0) {
                return -1;
            }
            for (int i = 0; i < nmarks; i++) {
                if (lxi_putf(c, "; _l_(%lu)", marks[i]) < 0) {
                    return -1;
                }
            }
            return 0;
        }
        return emit_simple(c, s, marks, nmarks);
    }
}

int
lxi_emit_block(Ctx *c, uint32_t block, const uint32_t *marks, int nmarks)
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
            r = lxi_emit_raw(c, ch);
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
        if (lxi_put_marks(c, marks, nmarks, "; ") < 0) {
            return -1;
        }
    }
    return copy(c, pos, block == 0 ? c->len : N(block).end);
}
