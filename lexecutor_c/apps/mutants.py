"""Mutants of an edit's changed lines: the evidence a "same" verdict needs.

Two versions that agree on some inputs say little when those inputs would
not notice any change of the changed lines: a dict entry that no input's key
reaches, a membership test whose answer the inputs never flip, a keyword
whose value no input makes matter.  The commit check (apps/behaviour.py)
therefore asks, before it answers "same", whether the inputs on which the
versions agreed tell small changes of the changed lines apart: the
constants, comparisons, boolean and arithmetic operators, conditions,
returned values and call statements on those lines are mutated one at a
time (as mutation testing does), each mutant runs on the agreeing inputs,
and it is *killed* when its run differs from the unmutated version's.
Inputs that kill few mutants are weak evidence: the verdict is then
"undecided", not "same".

Mutants are made on the source text, node by node, so that every other line
keeps its number and its text (the line markers of the changed lines, and
the module's other code, stay as they are).  Nodes that the other version
does not have (the tokens the edit wrote: a new constant, a new comparison)
come first: ``diff`` is True for their mutants.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from .funcsource import defaulted_params

__all__ = ["Mutant", "mutants"]

_CMP_FLIP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
             ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In,
             ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.Div: ast.Mult,
          ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult,
          ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr, ast.LShift: ast.RShift,
          ast.RShift: ast.LShift}


@dataclass
class Mutant:
    """One mutant of a version's module text: ``what`` it changed (for the
    report), on which ``line``, and whether the node is one the edit wrote
    (``diff``)."""

    text: str
    what: str
    line: int
    diff: bool
    probe: bool = False     # a condition's probe: killed where an outcome occurred


def _header_exprs(st: ast.stmt) -> list:
    """The expressions a statement evaluates itself (a compound statement's
    test or iterable, not its body's)."""
    if isinstance(st, (ast.If, ast.While)):
        return [st.test]
    if isinstance(st, (ast.For, ast.AsyncFor)):
        return [st.iter]
    if isinstance(st, (ast.With, ast.AsyncWith)):
        return [i.context_expr for i in st.items]
    if isinstance(st, ast.Try) or isinstance(st, getattr(ast, "TryStar", ())):
        return []
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    if isinstance(st, getattr(ast, "Match", ())):
        return [st.subject]
    return [st]


def _walk_expr(node: ast.AST):
    """The nodes under ``node``, f-strings' insides aside (their positions
    are unreliable).  A lambda's body is walked: its code runs only when
    something calls the lambda, so an input that runs the line without
    calling it shows nothing of an edit there (``re.sub(lambda m: '%%%2x' %
    ..., url)`` -> ``'%%%02x'`` on a URL nothing in it matches), and the
    mutant there, not killed, says so."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, ast.JoinedStr):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def _shape(n: ast.AST) -> str:
    return ast.dump(n)


def _candidates(st: ast.stmt) -> list:
    """(node, replacement expression or None, description) for the
    statement ``st``; replacement None: the node is replaced by ``None``."""
    out = []
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
        # a docstring or a bare constant: nothing runs that could notice
        return out
    roots = _header_exprs(st)
    for root in roots:
        if isinstance(st, ast.If) and root is st.test:
            out += _fixed_conditions(st.test)
        elif isinstance(st, ast.While) and root is st.test:
            out.append((st.test, ast.UnaryOp(ast.Not(), st.test), _NEGATED))
        for n in _walk_expr(root):
            if isinstance(n, ast.Constant):
                v = n.value
                if isinstance(v, bool):
                    out.append((n, ast.Constant(not v), f"{v!r} -> {not v!r}"))
                elif isinstance(v, int):
                    out.append((n, ast.Constant(v + 1), f"{v!r} -> {v + 1!r}"))
                elif isinstance(v, float):
                    out.append((n, ast.Constant(v + 1.5), f"{v!r} -> {v + 1.5!r}"))
                elif isinstance(v, str):
                    w = v + "_lx" if v else "lx"
                    out.append((n, ast.Constant(w), f"{_short(v)!r} -> {_short(w)!r}"))
                elif isinstance(v, bytes):
                    out.append((n, ast.Constant(v + b"_lx"), f"{_short(v)!r} changed"))
            elif isinstance(n, ast.Compare) and len(n.ops) == 1 and \
                    type(n.ops[0]) in _CMP_FLIP:
                op = _CMP_FLIP[type(n.ops[0])]()
                m = ast.Compare(n.left, [op], n.comparators)
                out.append((n, m, f"comparison {_op(n.ops[0])} -> {_op(op)}"))
            elif isinstance(n, ast.BoolOp):
                op = ast.Or() if isinstance(n.op, ast.And) else ast.And()
                out.append((n, ast.BoolOp(op, n.values),
                            f"{'and -> or' if isinstance(n.op, ast.And) else 'or -> and'}"))
            elif isinstance(n, ast.BinOp) and type(n.op) in _ARITH:
                op = _ARITH[type(n.op)]()
                out.append((n, ast.BinOp(n.left, op, n.right),
                            f"operator {_op(n.op)} -> {_op(op)}"))
            elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
                out.append((n, n.operand, "'not' dropped"))
            elif isinstance(n, ast.IfExp):
                out += _fixed_conditions(n.test)
            elif isinstance(n, ast.Call) and not n.keywords and len(n.args) == 1 and \
                    not isinstance(n.args[0], ast.Starred) and (
                        isinstance(n.func, ast.Attribute) or
                        isinstance(n.func, ast.Name) and n.func.id not in _KEPT_CALLS):
                # a conversion or wrapper (``str(name)``, ``self.id_class(i)``):
                # its argument as it is (kept for a call the edit wrote)
                name = n.func.id if isinstance(n.func, ast.Name) else n.func.attr
                out.append((n, n.args[0], f"{_UNWRAPPED} {name}()"))
            elif isinstance(n, ast.Call) and n.keywords:
                for i, k in enumerate(n.keywords):
                    if k.arg is None:
                        continue
                    kws = n.keywords[:i] + n.keywords[i + 1:]
                    out.append((n, ast.Call(n.func, n.args, kws),
                                f"keyword {k.arg}= dropped"))
    if isinstance(st, ast.Return) and st.value is not None and not (
            isinstance(st.value, ast.Constant) and st.value.value is None):
        out.append((st.value, ast.Constant(None), "returns None instead"))
    if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None and not (
            isinstance(st.value, ast.Constant) and st.value.value is None):
        out.append((st.value, ast.Constant(None), "assigns None instead"))
    if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
        out.append((st.value, ast.Constant(None), "call dropped"))
    if isinstance(st, ast.AugAssign) and type(st.op) in _ARITH:
        op = _ARITH[type(st.op)]()
        out.append((st, ast.AugAssign(st.target, op, st.value),
                    f"{_op(st.op)}= -> {_op(op)}="))
    return out


#: what the probes of a condition are called, and its negation (the one for
#: a condition both versions have, the probes for one the edit wrote)
_PROBES = ("condition false on no input", "condition true on no input")
_NEGATED = "condition negated"

#: what a call replaced by its one argument is called (made for calls the
#: edit wrote only)
_UNWRAPPED = "argument instead of"

#: builtins not unwrapped: a copy or view of a container (``list(x)`` of a
#: list is the list again, ``len(x)`` in a test is its truth), a question
#: asked of the value, or what no value passes through
_KEPT_CALLS = frozenset(dir(__import__("builtins"))) - {
    "str", "int", "float", "bytes", "repr", "abs", "round", "ord", "chr", "hex", "oct",
    "bin", "ascii", "format", "complex"}

#: how many probes a version's mutants get at the most (two conditions')
_PROBES_MAX = 4


def _fixed_conditions(test: ast.expr) -> list:
    """Two probes of a condition (an ``if``'s, a conditional expression's):
    one raises where the condition is false, the other where it is true,
    and each behaves as the condition does otherwise.  The inputs kill both
    only when each outcome occurred: an edited condition that was true on
    every input says nothing of when it is false (a negated condition is
    killed by either outcome alone; a condition fixed at true or false
    would survive where the branch it skips happens not to matter, an
    early return that the code after it would also give).  And the
    condition negated (whether its outcome matters): :func:`mutants` keeps
    the probes of a condition the edit wrote only, not of one both versions
    have (a line next to an inserted one)."""
    if isinstance(test, ast.Constant):
        return []
    boom = ast.BinOp(ast.Constant(1), ast.FloorDiv(), ast.Constant(0))
    return [(test, ast.BoolOp(ast.Or(), [test, boom]), _PROBES[0]),
            (test, ast.BoolOp(ast.And(), [test, boom]), _PROBES[1]),
            (test, ast.UnaryOp(ast.Not(), test), _NEGATED)]


def _short(v, n: int = 24):
    if len(v) <= n:
        return v
    return v[:n - 3] + ("..." if isinstance(v, str) else b"...")


def _op(op) -> str:
    return {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=",
            "In": "in", "NotIn": "not in", "Is": "is", "IsNot": "is not", "Add": "+",
            "Sub": "-", "Mult": "*", "Div": "/", "FloorDiv": "//", "Mod": "%", "Pow": "**",
            "BitOr": "|", "BitAnd": "&", "LShift": "<<", "RShift": ">>"}.get(
                type(op).__name__, type(op).__name__)


def _replace(lines: list, node: ast.AST, repl: ast.AST) -> Optional[list]:
    """The module's lines (bytes, each with its newline) with ``node``'s
    source replaced by ``repl``, every line keeping its number; None when
    the node has no usable position."""
    l1, c1 = node.lineno, node.col_offset
    l2, c2 = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if l2 is None or c2 is None or l1 < 1 or l2 > len(lines):
        return None
    try:
        code = ast.unparse(repl)
    except Exception:                       # an odd node: no mutant from it
        return None
    if isinstance(node, ast.stmt):
        if l1 != l2:
            return None
        text = code.encode()
    else:
        # an expression: in parentheses, the lines it spanned kept inside them
        text = b"(" + code.encode() + b"\n" * (l2 - l1) + b")"
    first, last = lines[l1 - 1], lines[l2 - 1]
    new = first[:c1] + text + last[c2:]
    return lines[:l1 - 1] + [new] + lines[l2:]


def _no_kind() -> ast.expr:
    """``object()``: a value no code expects as a default."""
    return ast.Call(func=ast.Name(id="object", ctx=ast.Load()), args=[], keywords=[])


def _changed_defaults(fn, other) -> list:
    """(name, default node of ``fn``) for the parameters both functions
    have, each with a default, whose default expressions differ
    (``algorithm="HS256"`` -> ``algorithm=_ALGORITHM_UNSET``)."""
    if other is None:
        return []

    def defaults(f) -> dict:
        return {p.arg: d for p, d in defaulted_params(f)}
    mine, theirs = defaults(fn), defaults(other.node)
    return [(n, d) for n, d in mine.items()
            if n in theirs and ast.dump(d) != ast.dump(theirs[n])]


def mutants(v, lines: set, other=None, limit: int = 6) -> list:
    """Up to ``limit`` :class:`Mutant` of version ``v`` (a funcsource
    Version) for its statements whose line markers are ``lines``; nodes the
    ``other`` version's function does not have first (``diff``), then the
    rest, each group in line order; and besides them up to four probes of
    the conditions the edit wrote (``probe``).  Mutants that do not compile
    are left out."""
    fn = v.node
    theirs = set()
    if other is not None:
        theirs = {_shape(n) for n in ast.walk(other.node) if isinstance(n, ast.expr)}
    stmts = [s for s in ast.walk(fn) if isinstance(s, ast.stmt) and s is not fn
             and s.lineno in lines]
    stmts.sort(key=lambda s: (s.lineno, s.col_offset))
    found = []
    for st in stmts:
        for node, repl, what in _candidates(st):
            diff = other is not None and isinstance(node, ast.expr) and \
                _shape(node) not in theirs
            if what in _PROBES and not diff:
                # a condition the other version has too (a line next to
                # an inserted one): whether each outcome occurred is not
                # the edit's question (one the edit wrote: its negation,
                # whether its outcome matters, and its probes)
                continue
            if what.startswith(_UNWRAPPED) and not diff:
                # a call both versions make, on a line beside the edit
                continue
            found.append((not diff, st.lineno, node, repl, what, diff))
    found.sort(key=lambda t: (t[0], t[1]))
    # a default the edit changed: the inputs that leave the parameter at
    # its default should notice another value there (an object of no
    # kind), before anything else
    found = [(False, d.lineno, d, _no_kind(), f"default of {name} replaced", True)
             for name, d in _changed_defaults(fn, other)] + found
    src = v.text if v.text.endswith("\n") else v.text + "\n"
    blines = src.encode().splitlines(keepends=True)
    out, seen = [], set()
    # spread over the lines: the first candidate of each line, then the next ...
    by_group: dict = {}
    for t in found:
        by_group.setdefault(t[0], []).append(t)
    ordered = []
    for key in sorted(by_group):
        group, rounds = by_group[key], {}
        for t in group:
            rounds.setdefault(t[1], []).append(t)
        while any(rounds.values()):
            for ln in sorted(rounds):
                if rounds[ln]:
                    ordered.append(rounds[ln].pop(0))
    regular = probes = 0
    for _, line, node, repl, what, diff in ordered:
        probe = what in _PROBES
        # (a condition's probes come besides the ``limit`` others, not in
        # their place: the other mutants would ask less of "same" than before)
        if probe and probes >= _PROBES_MAX or not probe and regular >= limit:
            continue
        new = _replace(blines, node, repl)
        if new is None:
            continue
        text = b"".join(new)
        if text in seen:
            continue
        try:
            s = text.decode()
            compile(s, "<mutant>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, UnicodeDecodeError):
            continue
        seen.add(text)
        out.append(Mutant(s, what, line, diff, probe))
        probes += probe
        regular += not probe
    return out
