"""Two flow facts about a snippet's top-level code, from Python's ``ast``.

* :func:`unbound_reads`: names read at a point where no binding of the
  snippet has certainly run yet (``if tzinfo is None: tzinfo = ...`` in a
  function body whose parameter ``tzinfo`` is gone).  The instrumenter's
  undefined-reference analysis leaves them out because the snippet binds them
  somewhere; a prefix has to give them a value all the same, and the value
  decides the branch.
* :func:`unreachable_lines`: lines no prefix can reach because an earlier
  statement of the same block always leaves it (``exit(x)``, which the
  papers' format makes of every ``return``/``yield``, ``raise``, ``break``,
  ``continue``, an ``if`` whose branches all leave, ``while True`` without
  ``break``).  The search stops once everything else is covered.
"""
from __future__ import annotations

import ast
import builtins

_BUILTINS = set(dir(builtins))
_EXITS = {"exit", "quit", "sys.exit", "os._exit", "os.abort"}


def _target_names(t: ast.AST) -> set:
    return {n.id for n in ast.walk(t) if isinstance(n, ast.Name) and
            isinstance(n.ctx, (ast.Store, ast.Del))}


def _bound_anywhere(tree: ast.Module) -> set:
    """Names the module scope binds somewhere (outside functions and classes)."""
    out: set = set()

    def visit(stmts):
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(s.name)
                continue
            if isinstance(s, (ast.Import, ast.ImportFrom)):
                for a in s.names:
                    out.add(a.asname or a.name.split(".")[0])
                continue
            for n in ast.walk(s):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                  ast.Lambda)):
                    continue
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    out.add(n.id)
                elif isinstance(n, ast.ExceptHandler) and n.name:
                    out.add(n.name)
                elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                    out.add(n.target.id)
            for f in ("body", "orelse", "finalbody", "handlers"):
                sub = getattr(s, f, None)
                if isinstance(sub, list):
                    visit([x for x in sub if isinstance(x, ast.stmt)])
            for h in getattr(s, "handlers", []) or []:
                visit(h.body)
    visit(tree.body)
    return out


class _Reads:
    """Walks the module's statements in order with the set of names
    certainly bound at each point."""

    def __init__(self):
        self.first: dict = {}            # name -> line of its first unbound read

    def expr(self, e, bound: set):
        if e is None:
            return
        if isinstance(e, ast.Name):
            if isinstance(e.ctx, ast.Load) and e.id not in bound:
                self.first.setdefault(e.id, e.lineno)
            return
        if isinstance(e, ast.Lambda):
            for d in e.args.defaults + [x for x in e.args.kw_defaults if x is not None]:
                self.expr(d, bound)
            return                       # the body runs later
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = set(bound)
            for g in e.generators:
                self.expr(g.iter, inner)
                inner |= _target_names(g.target)
                for c in g.ifs:
                    self.expr(c, inner)
            if isinstance(e, ast.DictComp):
                self.expr(e.key, inner)
                self.expr(e.value, inner)
            else:
                self.expr(e.elt, inner)
            return
        if isinstance(e, ast.NamedExpr):
            self.expr(e.value, bound)
            if isinstance(e.target, ast.Name):
                bound.add(e.target.id)
            return
        for c in ast.iter_child_nodes(e):
            if isinstance(c, ast.expr):
                self.expr(c, bound)
            elif isinstance(c, (ast.keyword, ast.comprehension, ast.arguments)):
                for cc in ast.iter_child_nodes(c):
                    if isinstance(cc, ast.expr):
                        self.expr(cc, bound)

    def target(self, t, bound: set):
        """Reads inside an assignment target (``a.b[c] = ...`` reads a and c)."""
        if isinstance(t, (ast.Attribute, ast.Subscript)):
            self.expr(t.value, bound)
            if isinstance(t, ast.Subscript):
                self.expr(t.slice, bound)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for x in t.elts:
                self.target(x, bound)
        elif isinstance(t, ast.Starred):
            self.target(t.value, bound)

    def block(self, stmts, bound: set) -> set:
        b = set(bound)
        for s in stmts:
            b = self.stmt(s, b)
        return b

    def stmt(self, s, b: set) -> set:
        if isinstance(s, ast.Assign):
            self.expr(s.value, b)
            for t in s.targets:
                self.target(t, b)
                b = b | _target_names(t)
            return b
        if isinstance(s, ast.AugAssign):
            self.expr(s.target if isinstance(s.target, ast.Name) else None, b)
            self.target(s.target, b)
            self.expr(s.value, b)
            return b | _target_names(s.target)
        if isinstance(s, ast.AnnAssign):
            self.expr(s.value, b)
            self.target(s.target, b)
            return b | (_target_names(s.target) if s.value is not None else set())
        if isinstance(s, (ast.For, ast.AsyncFor)):
            self.expr(s.iter, b)
            self.block(s.body, b | _target_names(s.target))
            self.block(s.orelse, b)
            return b
        if isinstance(s, ast.While):
            self.expr(s.test, b)
            self.block(s.body, b)
            self.block(s.orelse, b)
            return b
        if isinstance(s, ast.If):
            self.expr(s.test, b)
            b1 = self.block(s.body, b)
            b2 = self.block(s.orelse, b)
            return b1 & b2
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for it in s.items:
                self.expr(it.context_expr, b)
                if it.optional_vars is not None:
                    b = b | _target_names(it.optional_vars)
            return self.block(s.body, b)
        if isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.block(s.body, b)
            for h in s.handlers:
                self.expr(h.type, b)
                self.block(h.body, b | ({h.name} if h.name else set()))
            self.block(s.orelse, b)
            return self.block(s.finalbody, b)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in s.decorator_list:
                self.expr(d, b)
            a = s.args
            for d in a.defaults + [x for x in a.kw_defaults if x is not None]:
                self.expr(d, b)
            return b | {s.name}
        if isinstance(s, ast.ClassDef):
            for d in s.decorator_list + s.bases + [k.value for k in s.keywords]:
                self.expr(d, b)
            self.block(s.body, b)           # runs now; its names stay in the class
            return b | {s.name}
        if isinstance(s, ast.Import):
            return b | {a.asname or a.name.split(".")[0] for a in s.names}
        if isinstance(s, ast.ImportFrom):
            return b | {a.asname or a.name for a in s.names if a.name != "*"}
        if isinstance(s, ast.Delete):
            for t in s.targets:
                self.target(t, b)
            return b - set().union(*(_target_names(t) for t in s.targets))
        if isinstance(s, ast.Match):
            self.expr(s.subject, b)
            for c in s.cases:
                caps = {n.name for n in ast.walk(c.pattern)
                        if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name}
                caps |= {n.rest for n in ast.walk(c.pattern)
                         if isinstance(n, ast.MatchMapping) and n.rest}
                self.expr(c.guard, b | caps)
                self.block(c.body, b | caps)
            return b
        if isinstance(s, (ast.Global, ast.Nonlocal)):
            return b
        for c in ast.iter_child_nodes(s):
            if isinstance(c, ast.expr):
                self.expr(c, b)
        return b


# the name of the function a function's body is wrapped in for analysis
# (funcsource.facts_source)
WRAPPER = "__lx_f__"


def unbound_reads(tree: ast.Module) -> dict:
    """{name: line} for names the snippet binds at top level but may read
    before any binding of it has run.  A builtin's name counts too: a body
    that reads ``format`` and later assigns it had a parameter of that name
    (a local of the function read before its assignment would have raised)."""
    r = _Reads()
    r.block(tree.body, set())
    bound = _bound_anywhere(tree)
    out = {n: ln for n, ln in r.first.items() if n in bound}
    # a function's body wrapped to be analysed (its parameters removed,
    # funcsource.facts_source): a parameter the body rebinds from itself
    # (``v = v.split(".")``) is a local of the wrapper, read before it is
    # bound, so the body reads it from outside like a snippet would
    # (only names read no later than the first line that binds them: a
    # local bound in one branch and read after it is no parameter)
    for fn in _wrapped_bodies(tree):
        r = _Reads()
        r.block(fn.body, set())
        bound = _bound_anywhere(ast.Module(body=fn.body, type_ignores=[]))
        first_store: dict = {}
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                first_store[n.id] = min(first_store.get(n.id, n.lineno), n.lineno)
        for n, ln in r.first.items():
            if n in bound and ln <= first_store.get(n, ln):
                out.setdefault(n, ln)
    return out


def _wrapped_bodies(tree: ast.Module) -> list:
    """The wrapper functions at the top of ``tree`` (also in an ``if 1:``
    block, where a method's body keeps its indentation)."""
    out = []
    for s in tree.body:
        for d in (s.body if isinstance(s, ast.If) else [s]):
            if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.name == WRAPPER:
                out.append(d)
    return out


def _dotted(e) -> str:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        return _dotted(e.value) + "." + e.attr
    return ""


def _leaves(s: ast.stmt) -> bool:
    """Whether executing ``s`` never falls through to the next statement."""
    if isinstance(s, (ast.Raise, ast.Return, ast.Break, ast.Continue)):
        return True
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
            _dotted(s.value.func) in _EXITS:
        return True
    if isinstance(s, ast.If):
        return bool(s.orelse) and _block_leaves(s.body) and _block_leaves(s.orelse)
    if isinstance(s, ast.While):
        const = isinstance(s.test, ast.Constant) and bool(s.test.value)
        return const and not any(isinstance(n, ast.Break) for n in _own_loop_nodes(s))
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return _block_leaves(s.body)
    return False


def _own_loop_nodes(loop):
    """The nodes of a loop's body that belong to it, not to nested loops or
    functions."""
    stack = list(loop.body)
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                          ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(n))


def _block_leaves(stmts) -> bool:
    return any(_leaves(s) for s in stmts)


def unreachable_lines(tree: ast.Module) -> set:
    """Lines of statements that follow, in the same block, a statement that
    always leaves it (see the module docstring)."""
    out: set = set()

    def block(stmts):
        dead = False
        for s in stmts:
            if dead:
                out.update(range(s.lineno, (s.end_lineno or s.lineno) + 1))
                continue
            for f in ("body", "orelse", "finalbody"):
                sub = getattr(s, f, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    block(sub)
            for h in getattr(s, "handlers", []) or []:
                block(h.body)
            for c in getattr(s, "cases", []) or []:
                block(c.body)
            if _leaves(s):
                dead = True
    block(tree.body)
    return out
