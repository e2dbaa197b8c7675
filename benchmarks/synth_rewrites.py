"""Rewrites of one function in a module, made with libcst, for pairs labelled
by construction (``python -m benchmarks.labelled_commits synth``).

Refactorings (semantics-preserving):

* ``rename-local``: a local variable (assigned in the function, not a
  parameter, not global/nonlocal, in a function that does not call
  ``locals``/``vars``/``eval``/``exec``) renamed everywhere it is used;
* ``extract-variable``: ``return <call or operation>`` becomes
  ``_lx_result = <expr>`` then ``return _lx_result``;
* ``inline-variable``: ``x = <expr>`` directly followed by ``return x``,
  ``x`` used nowhere else, becomes ``return <expr>``;
* ``swap-branches``: ``if c: A else: B`` becomes ``if not c: B else: A``
  (``bool(c)`` is evaluated once either way), likewise for ``a if c else b``;
* ``not-in``/``is-not``: ``not (a in b)`` -> ``a not in b``,
  ``not a is b`` -> ``a is not b``.

Mutations (semantics-changing, as mutation testing makes them):

* ``arith-op``: ``+`` <-> ``-``, ``*`` -> ``+``, ``//`` -> ``*``, ``%`` -> ``//``;
* ``compare-op``: ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``,
  ``in`` <-> ``not in``, ``is`` <-> ``is not``;
* ``constant``: an integer ``n`` -> ``n + 1``, a (non-docstring) string gets
  ``"_x"`` appended, ``True`` <-> ``False``;
* ``negate-condition``: ``if c`` / ``while c`` / ``elif c`` -> ``not (c)``;
* ``bool-op``: ``and`` <-> ``or``;
* ``drop-call``: a call statement (``f(...)`` on its own line) becomes ``pass``.

A mutation can happen to be equivalent (e.g. an operator in dead code); the
label says what the rewrite is meant to be, as in mutation testing.
"""
from __future__ import annotations

import random
from typing import Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from lexecutor_c.apps.funcsource import code_dump, function_versions

REFACTORINGS = ("rename-local", "extract-variable", "inline-variable", "swap-branches",
                "not-in")
MUTATIONS = ("arith-op", "compare-op", "constant", "negate-condition", "bool-op",
             "drop-call")

_ARITH = {cst.Add: cst.Subtract, cst.Subtract: cst.Add, cst.Multiply: cst.Add,
          cst.FloorDivide: cst.Multiply, cst.Modulo: cst.FloorDivide}
_CMP = {cst.LessThan: cst.LessThanEqual, cst.LessThanEqual: cst.LessThan,
        cst.GreaterThan: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.GreaterThan,
        cst.Equal: cst.NotEqual, cst.NotEqual: cst.Equal, cst.In: cst.NotIn,
        cst.NotIn: cst.In, cst.Is: cst.IsNot, cst.IsNot: cst.Is}
_DYNAMIC = {"locals", "vars", "eval", "exec", "globals"}


def _not(e: cst.BaseExpression) -> cst.BaseExpression:
    return cst.UnaryOperation(cst.Not(), e.with_changes(
        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))


class _Sites(cst.CSTVisitor):
    """Candidate nodes of each operator inside the target function."""

    def __init__(self, target: cst.FunctionDef):
        self.target = target
        self.inside = 0
        self.sites = {op: [] for op in REFACTORINGS + MUTATIONS}
        self.calls = set()
        self.docstrings = set()

    def visit_FunctionDef(self, node):
        if node is self.target:
            self.inside += 1
        if self.inside:
            body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
            if body and isinstance(body[0], cst.SimpleStatementLine) and \
                    isinstance(body[0].body[0], cst.Expr) and \
                    isinstance(body[0].body[0].value, (cst.SimpleString,
                                                       cst.ConcatenatedString)):
                self.docstrings.add(body[0].body[0].value)

    def leave_FunctionDef(self, node):
        if node is self.target:
            self.inside -= 1

    # -- mutations
    def visit_BinaryOperation(self, node):
        if self.inside and type(node.operator) in _ARITH:
            self.sites["arith-op"].append(node)

    def visit_ComparisonTarget(self, node):
        if self.inside and type(node.operator) in _CMP:
            self.sites["compare-op"].append(node)

    def visit_Integer(self, node):
        if self.inside:
            self.sites["constant"].append(node)

    def visit_SimpleString(self, node):
        if self.inside and node not in self.docstrings and node.prefix.lower() in ("", "u"):
            self.sites["constant"].append(node)

    def visit_Name(self, node):
        if self.inside and node.value in ("True", "False"):
            self.sites["constant"].append(node)
        if self.inside and node.value in _DYNAMIC:
            self.calls.add(node.value)

    def visit_If(self, node):
        if self.inside:
            self.sites["negate-condition"].append(node)
            if isinstance(node.orelse, cst.Else):
                self.sites["swap-branches"].append(node)

    def visit_While(self, node):
        if self.inside:
            self.sites["negate-condition"].append(node)

    def visit_IfExp(self, node):
        if self.inside:
            self.sites["swap-branches"].append(node)

    def visit_BooleanOperation(self, node):
        if self.inside:
            self.sites["bool-op"].append(node)

    def visit_SimpleStatementLine(self, node):
        if self.inside and len(node.body) == 1 and isinstance(node.body[0], cst.Expr) and \
                isinstance(node.body[0].value, cst.Call):
            self.sites["drop-call"].append(node)

    def visit_Return(self, node):
        if self.inside and isinstance(node.value, (cst.Call, cst.BinaryOperation)):
            self.sites["extract-variable"].append(node)

    def visit_UnaryOperation(self, node):
        if self.inside and isinstance(node.operator, cst.Not) and \
                isinstance(node.expression, cst.Comparison) and \
                len(node.expression.comparisons) == 1 and \
                type(node.expression.comparisons[0].operator) in (cst.In, cst.Is):
            self.sites["not-in"].append(node)

    def visit_IndentedBlock(self, node):
        if not self.inside:
            return
        body = list(node.body)
        for a, b in zip(body, body[1:]):
            if isinstance(a, cst.SimpleStatementLine) and len(a.body) == 1 and \
                    isinstance(a.body[0], cst.Assign) and len(a.body[0].targets) == 1 and \
                    isinstance(a.body[0].targets[0].target, cst.Name) and \
                    isinstance(b, cst.SimpleStatementLine) and len(b.body) == 1 and \
                    isinstance(b.body[0], cst.Return) and \
                    isinstance(b.body[0].value, cst.Name) and \
                    b.body[0].value.value == a.body[0].targets[0].target.value:
                self.sites["inline-variable"].append((node, a, b))


class _Replace(cst.CSTTransformer):
    def __init__(self, target, make):
        self.target, self.make = target, make

    def on_leave(self, original, updated):
        if original is self.target:
            return self.make(updated)
        return updated


class _Rename(cst.CSTTransformer):
    def __init__(self, nodes: set, new: str):
        self.nodes, self.new = nodes, new

    def leave_Name(self, original, updated):
        if original in self.nodes:
            return updated.with_changes(value=self.new)
        return updated


def _find(wrapper: MetadataWrapper, line: int) -> Optional[cst.FunctionDef]:
    pos = wrapper.resolve(PositionProvider)
    for node, p in pos.items():
        if isinstance(node, cst.FunctionDef) and p.start.line == line:
            return node
    return None


_CACHE: dict = {}


def _analyse(source: str, line: int):
    """(wrapper, function node, sites), the module parsed once per source."""
    key = (hash(source), line)
    if key not in _CACHE:
        if len(_CACHE) > 64:
            _CACHE.clear()
        wrapper = MetadataWrapper(cst.parse_module(source))
        fn = _find(wrapper, line)
        sites = None
        if fn is not None:
            sites = _Sites(fn)
            wrapper.module.visit(sites)
        _CACHE[key] = (wrapper, fn, sites)
    return _CACHE[key]


def _locals_to_rename(wrapper: MetadataWrapper, fn: cst.FunctionDef) -> list:
    """(name, nodes to rename) for each plain local of ``fn``."""
    scopes = wrapper.resolve(ScopeProvider)
    scope = scopes.get(fn.body)
    if scope is None:
        return []
    params = {p.name.value for p in (list(fn.params.params) + list(fn.params.kwonly_params) +
                                     list(fn.params.posonly_params))}
    for star in (fn.params.star_arg, fn.params.star_kwarg):
        if isinstance(star, cst.Param):
            params.add(star.name.value)
    out = []
    for name in sorted({a.name for a in scope.assignments}):
        if name in params or name.startswith("__"):
            continue
        assigns = list(scope.assignments[name])
        nodes = set()
        ok = True
        for a in assigns:
            node = getattr(a, "node", None)
            if not isinstance(node, cst.Name):
                ok = False          # an import, def, class, global...: leave it
                break
            nodes.add(node)
            for ref in a.references:
                if not isinstance(ref.node, cst.Name):
                    ok = False
                    break
                nodes.add(ref.node)
        if ok and nodes:
            out.append((name, nodes))
    return out


def apply(source: str, qualname: str, op: str, rng: random.Random) -> Optional[str]:
    """``source`` with operator ``op`` applied once to function ``qualname``
    (a site chosen with ``rng``), or None when the function has no site for it."""
    v = function_versions(source).get(qualname)
    if v is None:
        return None
    wrapper, fn, sites = _analyse(source, v.first_line)
    if fn is None:
        return None
    module = wrapper.module
    if op == "rename-local":
        if sites.calls or "nonlocal " in source or "global " in source:
            return None
        cands = _locals_to_rename(wrapper, fn)
        if not cands:
            return None
        name, nodes = rng.choice(cands)
        taken = set(source.split())
        new = f"{name}_renamed"
        while new in taken or new in source:
            new += "_"
        return module.visit(_Rename(nodes, new)).code
    if op == "inline-variable":
        if not sites.sites[op]:
            return None
        block, a, b = rng.choice(sites.sites[op])
        name = a.body[0].targets[0].target.value
        # used nowhere else in the function
        uses = sum(1 for n in _walk_names(fn) if n == name)
        if uses != 2:
            return None
        ret = b.with_changes(body=[b.body[0].with_changes(value=a.body[0].value)])

        def make(upd):
            body = list(upd.body)
            for i in range(len(body) - 1):
                if body[i].deep_equals(a) and body[i + 1].deep_equals(b):
                    body[i:i + 2] = [ret.with_changes(leading_lines=body[i].leading_lines)]
                    break
            return upd.with_changes(body=body)
        return module.visit(_Replace(block, make)).code
    cands = sites.sites.get(op)
    if not cands:
        return None
    target = rng.choice(cands)
    make = _MAKERS[op]
    return module.visit(_Replace(target, make)).code


def _walk_names(fn: cst.CSTNode):
    out = []

    class V(cst.CSTVisitor):
        def visit_Name(self, node):
            out.append(node.value)
    fn.visit(V())
    return out


def _arith(n: cst.BinaryOperation):
    return n.with_changes(operator=_ARITH[type(n.operator)]())


def _compare(n: cst.ComparisonTarget):
    return n.with_changes(operator=_CMP[type(n.operator)]())


def _constant(n):
    if isinstance(n, cst.Integer):
        try:
            val = int(n.value.replace("_", ""), 0)
        except ValueError:
            return n
        return n.with_changes(value=str(val + 1))
    if isinstance(n, cst.SimpleString):
        q = n.quote
        return n.with_changes(value=n.value[:-len(q)] + "_x" + q)
    if isinstance(n, cst.Name):
        return n.with_changes(value="False" if n.value == "True" else "True")
    return n


def _negate(n):
    return n.with_changes(test=_not(n.test))


def _boolop(n: cst.BooleanOperation):
    op = cst.Or() if isinstance(n.operator, cst.And) else cst.And()
    return n.with_changes(operator=op)


def _drop(n: cst.SimpleStatementLine):
    return n.with_changes(body=[cst.Pass()])


def _extract(n: cst.Return):
    # the Return's line becomes two statements on one line: same line number
    # for both (a SimpleStatementLine may hold several small statements)
    return cst.FlattenSentinel([
        cst.Assign(targets=[cst.AssignTarget(cst.Name("_lx_result"))], value=n.value),
        n.with_changes(value=cst.Name("_lx_result"))])


def _swap(n):
    if isinstance(n, cst.IfExp):
        return n.with_changes(test=_not(n.test), body=n.orelse, orelse=n.body)
    return n.with_changes(test=_not(n.test), body=n.orelse.body,
                          orelse=n.orelse.with_changes(body=n.body))


def _not_in(n: cst.UnaryOperation):
    comp = n.expression
    t = comp.comparisons[0]
    op = cst.NotIn() if isinstance(t.operator, cst.In) else cst.IsNot()
    return comp.with_changes(comparisons=[t.with_changes(operator=op)],
                             lpar=n.lpar, rpar=n.rpar)


_MAKERS = {"arith-op": _arith, "compare-op": _compare, "constant": _constant,
           "negate-condition": _negate, "bool-op": _boolop, "drop-call": _drop,
           "extract-variable": _extract, "swap-branches": _swap, "not-in": _not_in}


def variants(source: str, qualname: str, family: tuple, rng: random.Random,
             n: int = 1) -> list:
    """Up to ``n`` (operator, new source) pairs from ``family`` for one
    function: operators tried in a seeded random order, each result parsed
    and checked to change the function's code."""
    ops = list(family)
    rng.shuffle(ops)
    out = []
    try:
        before = function_versions(source)[qualname]
    except (SyntaxError, KeyError):
        return out
    for op in ops:
        if len(out) >= n:
            break
        try:
            new = apply(source, qualname, op, rng)
        except (cst.ParserSyntaxError, ValueError, TypeError, AttributeError, KeyError):
            new = None
        if new is None or new == source:
            continue
        try:
            after = function_versions(new).get(qualname)
        except SyntaxError:
            continue
        if after is None or code_dump(after.node) == code_dump(before.node):
            continue
        out.append((op, new))
    return out
