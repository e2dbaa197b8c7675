/* instrument/uses.c - the use site of each instrumented value (IidInfo.use).
 *
 * A value read through a loader is often used in a way that constrains it:
 * passed to a known callee (`range(n)`, `open(p)`, `", ".join(parts)`),
 * iterated with a target of some width (`for k, v in d.items()`), unpacked
 * (`a, b = f()`), formatted (`"%s=%s" % pair`, `f"{x:.2f}"`), subscripted
 * with a literal key, called, entered as a context manager, searched with
 * `in`, or caught (`except E`).  The runtime's injector asks the constraint
 * table for a value that satisfies the use (docs/RUNTIME.md, "Use-site
 * constraints"); the offline generator can read it from the Instrumented
 * result.  Computed from the tree when the result is built: the emitted
 * text does not depend on it.
 *
 * A use is a tuple whose first item names its kind (docs/LOADERS.md):
 *
 *   ("arg", callee, key)           argument of a call; callee is the dotted
 *                                  name as written ("range", "os.path.join",
 *                                  "self.rng.randint"; a str or bytes literal
 *                                  receiver reads "str" / "bytes"), key the
 *                                  0-based position or the keyword
 *   ("arg", callee, key, literal)  the same with the literal receiver's
 *                                  source text ('"{:.2f}".format(x)')
 *   ("iter", width, starred)       iterated by `for` or a comprehension:
 *                                  width is the number of targets when the
 *                                  target is a tuple/list pattern (0: one
 *                                  plain target), starred whether one is *x;
 *                                  ("iter", 0, False) also for `*value`
 *   ("unpack", width, starred)     right side of `a, b = value`
 *   ("percent", literal)           right operand of `"..." % value`
 *   ("format", spec)               f-string field with a format spec
 *   ("subscript", key, store)      base of value[key] with a literal key
 *                                  (its source text); store: the item is
 *                                  assigned or deleted
 *   ("call",)                      called: value(...)
 *   ("with",)                      context manager of a with statement
 *   ("contains",)                  right operand of `in` / `not in`
 *   ("in", literal)                left operand of `in` / `not in` a plain
 *                                  string literal (its source text) follows
 *   ("except",)                    what an except clause catches (or an
 *                                  item of its tuple)
 *   ("kwargs",)                    unpacked with ** in a call or a dict
 *                                  display: f(**value), {**value}
 *
 * Everything else is None.  Literal and key texts longer than
 * USE_TEXT_MAX bytes are not carried (no use).
 */
#include "instrument/instrument.h"

#define USE_TEXT_MAX 1000

/* The parent of n, skipping parentheses around it; *child is the node on
 * the path (n itself, or the outermost parenthesized expression). */
static uint32_t
use_parent(Ctx *c, uint32_t n, uint32_t *child)
{
    uint32_t p = N(n).parent;
    while (p != NONE_IDX && KIND(p) == K_PAREN_EXPR) {
        n = p;
        p = N(n).parent;
    }
    *child = n;
    return p;
}

static PyObject *
src_text(Ctx *c, uint32_t from, uint32_t to)
{
    return PyUnicode_DecodeUTF8(c->src + from, (Py_ssize_t)(to - from), "replace");
}

/* 1 for a string literal that is no f-string (concatenations of such
 * included); *bytes_out: it has a b prefix. */
static int
plain_string(Ctx *c, uint32_t n, int *bytes_out)
{
    if (KIND(n) == K_CONCAT_STRING) {
        int any = 0;
        CHILDREN(n, ch) {
            if (KIND(ch) == K_COMMENT) {
                continue;
            }
            if (!plain_string(c, ch, bytes_out)) {
                return 0;
            }
            any = 1;
        }
        return any;
    }
    if (KIND(n) != K_STRING) {
        return 0;
    }
    uint32_t start = N(n).first;
    if (start == NONE_IDX || KIND(start) != K_STRING_START) {
        return 0;
    }
    *bytes_out = 0;
    for (uint32_t i = N(start).start; i < N(start).end; i++) {
        char ch = c->src[i];
        if (ch == 'f' || ch == 'F') {
            return 0;
        }
        if (ch == 'b' || ch == 'B') {
            *bytes_out = 1;
        }
    }
    return 1;
}

/* The callee's dotted name into b: identifiers joined by dots, a plain
 * string literal at its root read as "str" / "bytes".  1 done, 0 not a
 * dotted name, -1 error. */
static int
dotted(Ctx *c, uint32_t n, Buf *b)
{
    while (KIND(n) == K_PAREN_EXPR && N(n).first != NONE_IDX) {
        uint32_t inner = NONE_IDX;
        CHILDREN(n, ch) {
            if (N(ch).named && KIND(ch) != K_COMMENT) {
                inner = ch;
                break;
            }
        }
        if (inner == NONE_IDX) {
            return 0;
        }
        n = inner;
    }
    int bytes = 0;
    switch (KIND(n)) {
    case K_IDENT:
        return buf_put(b, c->src + N(n).start, N(n).end - N(n).start) < 0 ? -1 : 1;
    case K_ATTRIBUTE: {
        uint32_t obj = field_child(c, n, c->st->field.object);
        uint32_t attr = field_child(c, n, c->st->field.attribute);
        if (obj == NONE_IDX || attr == NONE_IDX) {
            return 0;
        }
        int r = dotted(c, obj, b);
        if (r <= 0) {
            return r;
        }
        if (buf_put(b, ".", 1) < 0 ||
            buf_put(b, c->src + N(attr).start, N(attr).end - N(attr).start) < 0) {
            return -1;
        }
        return 1;
    }
    case K_STRING: case K_CONCAT_STRING:
        if (!plain_string(c, n, &bytes)) {
            return 0;
        }
        return buf_puts(b, bytes ? "bytes" : "str") < 0 ? -1 : 1;
    default:
        return 0;
    }
}

/* ("arg", callee, key[, literal]) for an argument of call; key is a new
 * reference (stolen). */
static PyObject *
arg_use(Ctx *c, uint32_t call, PyObject *key)
{
    PyObject *res = NULL, *callee = NULL, *literal = NULL;
    Buf b = {0};
    uint32_t fn = field_child(c, call, c->st->field.function);
    if (key == NULL) {
        return NULL;
    }
    int r = fn == NONE_IDX ? 0 : dotted(c, fn, &b);
    if (r < 0) {
        goto done;
    }
    if (r == 0 || b.len == 0) {
        res = Py_NewRef(Py_None);
        goto done;
    }
    callee = PyUnicode_DecodeUTF8(b.data, (Py_ssize_t)b.len, "replace");
    if (callee == NULL) {
        goto done;
    }
    /* a literal receiver: '"{:.2f}".format(x)' carries its text */
    uint32_t obj = KIND(fn) == K_ATTRIBUTE ? field_child(c, fn, c->st->field.object) : NONE_IDX;
    int bytes = 0;
    if (obj != NONE_IDX && plain_string(c, obj, &bytes) &&
        N(obj).end - N(obj).start <= USE_TEXT_MAX) {
        literal = src_text(c, N(obj).start, N(obj).end);
        if (literal == NULL) {
            goto done;
        }
        res = Py_BuildValue("(sOOO)", "arg", callee, key, literal);
    }
    else {
        res = Py_BuildValue("(sOO)", "arg", callee, key);
    }
done:
    PyMem_Free(b.data);
    Py_XDECREF(callee);
    Py_XDECREF(literal);
    Py_DECREF(key);
    return res;
}

/* Targets of a for / assignment: the number of them when t is a pattern
 * (tuple, list), 0 for one plain target; *starred when one is *x. */
static int
target_width(Ctx *c, uint32_t t, int *starred)
{
    *starred = 0;
    int k = KIND(t);
    if (k != K_PATTERN_LIST && k != K_TUPLE_PATTERN && k != K_LIST_PATTERN && k != K_TUPLE &&
        k != K_LIST && k != K_EXPR_LIST) {
        return 0;
    }
    int n = 0, commas = 0;
    CHILDREN(t, ch) {
        if (!N(ch).named || KIND(ch) == K_COMMENT) {
            commas += !N(ch).named && text_is(c, ch, ",");
            continue;
        }
        if (KIND(ch) == K_LIST_SPLAT_PATTERN || KIND(ch) == K_LIST_SPLAT) {
            *starred = 1;
        }
        else {
            n++;
        }
    }
    if (n == 1 && !*starred && commas == 0 && k != K_LIST_PATTERN && k != K_LIST) {
        return 0;                            /* `for (x) in ...`: one plain target */
    }
    return n;
}

static int
is_async(Ctx *c, uint32_t n)
{
    CHILDREN(n, ch) {
        if (!N(ch).named && text_is(c, ch, "async")) {
            return 1;
        }
    }
    return 0;
}

/* Is the subscript s stored into or deleted (not only read)? */
static int
is_store(Ctx *c, uint32_t s)
{
    uint32_t child, p = use_parent(c, s, &child);
    while (p != NONE_IDX && (KIND(p) == K_PATTERN_LIST || KIND(p) == K_TUPLE_PATTERN ||
                             KIND(p) == K_LIST_PATTERN || KIND(p) == K_EXPR_LIST)) {
        p = use_parent(c, p, &child);
    }
    if (p == NONE_IDX) {
        return 0;
    }
    if (KIND(p) == K_DELETE) {
        return 1;
    }
    return (KIND(p) == K_ASSIGNMENT || KIND(p) == K_AUGASSIGN || KIND(p) == K_FOR) &&
           N(child).field == c->st->field.left;
}

/* The literal key of a subscript (a plain string, an int or -int), or
 * NONE_IDX. */
static uint32_t
literal_key(Ctx *c, uint32_t sub, uint32_t base)
{
    uint32_t key = NONE_IDX;
    CHILDREN(sub, ch) {
        if (ch == base || !N(ch).named || KIND(ch) == K_COMMENT) {
            continue;
        }
        if (key != NONE_IDX) {
            return NONE_IDX;          /* a[i, j] */
        }
        key = ch;
    }
    if (key == NONE_IDX) {
        return NONE_IDX;
    }
    int bytes = 0;
    if (KIND(key) == K_INTEGER || plain_string(c, key, &bytes)) {
        return key;
    }
    if (KIND(key) == K_UNARY && c->src[N(key).start] == '-') {
        CHILDREN(key, ch) {
            if (N(ch).named) {
                return KIND(ch) == K_INTEGER ? key : NONE_IDX;
            }
        }
    }
    return NONE_IDX;
}

/* Is the token before operand m of a comparison `in` or `not in`? */
static int
after_in(Ctx *c, uint32_t m)
{
    uint32_t op = N(m).prev;
    if (op == NONE_IDX || N(op).named) {
        return 0;
    }
    uint32_t s = N(op).start, e = N(op).end;
    if (e - s < 2 || memcmp(c->src + e - 2, "in", 2) != 0) {
        return 0;
    }
    return e - s == 2 || memcmp(c->src + s, "not", 3) == 0;
}

/* The plain string literal m is tested against with `in` / `not in`
 * (`ch in '-_'`), or NONE_IDX. */
static uint32_t
in_literal(Ctx *c, uint32_t m)
{
    uint32_t op = N(m).next, lit;
    int bytes = 0;
    if (op == NONE_IDX || N(op).named) {
        return NONE_IDX;
    }
    for (lit = N(op).next; lit != NONE_IDX && KIND(lit) == K_COMMENT; lit = N(lit).next) {
    }
    if (lit == NONE_IDX || !after_in(c, lit) || !plain_string(c, lit, &bytes) ||
        N(lit).end - N(lit).start > USE_TEXT_MAX) {
        return NONE_IDX;
    }
    return lit;
}

static int
except_clause(Ctx *c, uint32_t p)
{
    return p != NONE_IDX && (KIND(p) == K_EXCEPT || KIND(p) == K_EXCEPT_GROUP);
}

/* first named, non-comment child */
static uint32_t
first_named(Ctx *c, uint32_t n)
{
    CHILDREN(n, ch) {
        if (N(ch).named && KIND(ch) != K_COMMENT) {
            return ch;
        }
    }
    return NONE_IDX;
}

PyObject *
lxi_site_use(Ctx *c, uint32_t n)
{
    const lx_fields *f = &c->st->field;
    uint32_t m, p = use_parent(c, n, &m);
    int starred = 0, bytes = 0;
    if (p == NONE_IDX) {
        Py_RETURN_NONE;
    }
    switch (KIND(p)) {
    case K_ARGLIST: {
        uint32_t call = N(p).parent;
        if (call == NONE_IDX || KIND(call) != K_CALL) {
            break;
        }
        long pos = 0;
        CHILDREN(p, ch) {
            if (ch == m) {
                return arg_use(c, call, PyLong_FromLong(pos));
            }
            if (!N(ch).named || KIND(ch) == K_COMMENT || KIND(ch) == K_KWARG) {
                continue;
            }
            if (KIND(ch) == K_LIST_SPLAT || KIND(ch) == K_DICT_SPLAT) {
                break;                       /* positions after *args are unknown */
            }
            pos++;
        }
        break;
    }
    case K_KWARG: {
        uint32_t name = field_child(c, p, f->name);
        uint32_t args = N(p).parent;
        if (N(m).field != f->value || name == NONE_IDX || args == NONE_IDX ||
            KIND(args) != K_ARGLIST || N(args).parent == NONE_IDX ||
            KIND(N(args).parent) != K_CALL) {
            break;
        }
        return arg_use(c, N(args).parent, src_text(c, N(name).start, N(name).end));
    }
    case K_LIST_SPLAT:
        return Py_BuildValue("(siO)", "iter", 0, Py_False);
    case K_DICT_SPLAT:
        return Py_BuildValue("(s)", "kwargs");
    case K_FOR: case K_FOR_IN_CLAUSE: {
        uint32_t left = field_child(c, p, f->left);
        if (N(m).field != f->right || left == NONE_IDX || is_async(c, p)) {
            break;
        }
        int w = target_width(c, left, &starred);
        return Py_BuildValue("(siO)", "iter", w, starred ? Py_True : Py_False);
    }
    case K_ASSIGNMENT: {
        uint32_t left = field_child(c, p, f->left);
        if (N(m).field != f->right || left == NONE_IDX) {
            break;
        }
        int w = target_width(c, left, &starred);
        if (w == 0 && !starred) {
            break;
        }
        return Py_BuildValue("(siO)", "unpack", w, starred ? Py_True : Py_False);
    }
    case K_BINOP: {
        uint32_t left = field_child(c, p, f->left);
        if (N(m).field != f->right || left == NONE_IDX || !plain_string(c, left, &bytes) ||
            N(left).end - N(left).start > USE_TEXT_MAX) {
            break;
        }
        uint32_t op = N(m).prev;
        if (op == NONE_IDX || !text_is(c, op, "%")) {
            break;
        }
        PyObject *lit = src_text(c, N(left).start, N(left).end);
        if (lit == NULL) {
            return NULL;
        }
        PyObject *res = Py_BuildValue("(sO)", "percent", lit);
        Py_DECREF(lit);
        return res;
    }
    case K_INTERPOLATION: {
        uint32_t spec = field_child(c, p, f->format_specifier);
        if (N(m).field != f->expression || spec == NONE_IDX) {
            break;
        }
        uint32_t s = N(spec).start, e = N(spec).end;
        CHILDREN(spec, ch) {
            if (KIND(ch) == K_FORMAT_EXPR) {
                Py_RETURN_NONE;             /* nested fields: {x:{w}} */
            }
        }
        if (s < e && c->src[s] == ':') {
            s++;
        }
        if (s >= e || e - s > USE_TEXT_MAX) {
            break;
        }
        PyObject *t = src_text(c, s, e);
        if (t == NULL) {
            return NULL;
        }
        PyObject *res = Py_BuildValue("(sO)", "format", t);
        Py_DECREF(t);
        return res;
    }
    case K_SUBSCRIPT: {
        if (N(m).field != f->value) {
            break;
        }
        uint32_t key = literal_key(c, p, m);
        if (key == NONE_IDX || N(key).end - N(key).start > USE_TEXT_MAX) {
            break;
        }
        PyObject *t = src_text(c, N(key).start, N(key).end);
        if (t == NULL) {
            return NULL;
        }
        PyObject *res = Py_BuildValue("(sOO)", "subscript", t,
                                      is_store(c, p) ? Py_True : Py_False);
        Py_DECREF(t);
        return res;
    }
    case K_CALL:
        if (N(m).field == f->function) {
            return Py_BuildValue("(s)", "call");
        }
        break;
    case K_WITH_ITEM:
        if (N(m).field == f->value) {
            return Py_BuildValue("(s)", "with");
        }
        break;
    case K_AS_PATTERN: {
        uint32_t gp = N(p).parent;
        if (m != first_named(c, p) || gp == NONE_IDX) {
            break;
        }
        if (KIND(gp) == K_WITH_ITEM) {
            return Py_BuildValue("(s)", "with");
        }
        if (except_clause(c, gp)) {
            return Py_BuildValue("(s)", "except");
        }
        break;
    }
    case K_TUPLE: {
        uint32_t child, gp = use_parent(c, p, &child);
        if (gp != NONE_IDX && KIND(gp) == K_AS_PATTERN && child == first_named(c, gp)) {
            gp = N(gp).parent;
        }
        else if (gp != NONE_IDX && N(child).field != f->value) {
            break;
        }
        if (except_clause(c, gp)) {
            return Py_BuildValue("(s)", "except");
        }
        break;
    }
    case K_EXCEPT: case K_EXCEPT_GROUP:
        if (N(m).field == f->value) {
            return Py_BuildValue("(s)", "except");
        }
        break;
    case K_COMPARISON: {
        if (after_in(c, m)) {
            return Py_BuildValue("(s)", "contains");
        }
        uint32_t lit = in_literal(c, m);
        if (lit == NONE_IDX) {
            break;
        }
        PyObject *t = src_text(c, N(lit).start, N(lit).end);
        if (t == NULL) {
            return NULL;
        }
        PyObject *res = Py_BuildValue("(sO)", "in", t);
        Py_DECREF(t);
        return res;
    }
    default:
        break;
    }
    Py_RETURN_NONE;
}
