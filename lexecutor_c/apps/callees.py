"""Edits that call one computing function where the other version called
another, with the same arguments (issue 20).

``posixpath.commonprefix([data_dir, path])`` -> ``posixpath.commonpath(
[data_dir, path])``, ``max(a, b)`` -> ``min(a, b)``, ``quote(s)`` ->
``quote_plus(s)``: the two functions agree on most arguments, and inputs
that never give them one on which they differ show the versions alike,
whatever the edit does.  The mutants of the changed lines (apps/mutants.py)
change operators and constants, not the function called, so they let such a
"same" pass.  This module finds the pairs (:func:`swapped_calls`) among
functions of the standard library that only compute, and tells whether the
arguments the runs recorded for them (funcrun's ``watched`` calls) include
one on which the two differ (:func:`told_apart`).
"""
from __future__ import annotations

import ast
import importlib
from typing import Optional

__all__ = ["swapped_calls", "told_apart", "telling_values", "resolve"]

#: the functions whose swap is looked for: of the standard library, they
#: only compute from their arguments (no file, clock or state), and calling
#: them here, on values a run recorded, is safe
COMPUTING = frozenset(
    [f"posixpath.{n}" for n in ("commonprefix", "commonpath", "join", "normpath", "basename",
                                "dirname", "split", "splitext", "isabs", "normcase")] +
    [f"builtins.{n}" for n in ("min", "max", "round", "int", "abs", "str", "repr", "ascii",
                               "len", "sum", "sorted", "bool", "float", "any", "all", "hex",
                               "oct", "bin", "ord", "chr")] +
    [f"math.{n}" for n in ("floor", "ceil", "trunc", "fabs", "sqrt", "log", "log2",
                           "log10", "isclose")] +
    [f"shlex.{n}" for n in ("quote", "split", "join")] +
    [f"urllib.parse.{n}" for n in ("quote", "quote_plus", "unquote", "unquote_plus",
                                   "urljoin")] +
    ["html.escape", "html.unescape", "re.escape", "textwrap.dedent", "fnmatch.fnmatch",
     "fnmatch.fnmatchcase", "operator.lt", "operator.le", "operator.gt", "operator.ge",
     "operator.eq", "operator.ne", "operator.contains"])

#: a module some Python names by another (``os.path`` is ``posixpath`` here)
_SAME_MODULE = {"os.path": "posixpath", "genericpath": "posixpath"}


def _dotted(e) -> Optional[str]:
    parts = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    if not isinstance(e, ast.Name):
        return None
    parts.append(e.id)
    return ".".join(reversed(parts))


def _imports(module: ast.Module) -> dict:
    """Local name -> what it is a name of (``import os.path as p``: ``p`` ->
    ``os.path``; ``from os.path import join``: ``join`` -> ``os.path.join``),
    from the module's imports at any depth (a function's own ``import``)."""
    out: dict = {}
    for s in ast.walk(module):
        if isinstance(s, ast.Import):
            for a in s.names:
                if a.asname:
                    out[a.asname] = a.name
                else:
                    out[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(s, ast.ImportFrom) and not s.level and s.module:
            for a in s.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"{s.module}.{a.name}"
    return out


def resolve(dotted: str, imports: dict, local: set) -> Optional[str]:
    """The qualified name of a callee written ``dotted`` (``os.path.join``
    -> ``posixpath.join``; ``max`` -> ``builtins.max`` unless the module or
    the function binds ``max``), if it is one of :data:`COMPUTING`."""
    head, _, rest = dotted.partition(".")
    if head in imports:
        full = imports[head] + ("." + rest if rest else "")
    elif head in local:
        return None
    elif not rest:
        full = f"builtins.{head}"
    else:
        return None
    mod, _, name = full.rpartition(".")
    full = f"{_SAME_MODULE.get(mod, mod)}.{name}"
    return full if full in COMPUTING else None


def _calls_on(v, lines: set) -> list:
    """(callee as written, the arguments' dump, line) of the calls on the
    function's ``lines``."""
    out = []
    for n in ast.walk(v.node):
        if isinstance(n, ast.Call) and getattr(n, "lineno", 0) in lines:
            d = _dotted(n.func)
            if d is not None:
                out.append((d, ast.dump(ast.Tuple(n.args, ast.Load())) +
                            ast.dump(ast.Tuple([k.value for k in n.keywords], ast.Load())) +
                            repr([k.arg for k in n.keywords]), n.lineno))
    return out


def swapped_calls(old, new, ch_old: set, ch_new: set) -> list:
    """[(old callee, new callee)] qualified names of :data:`COMPUTING`
    functions the edit swapped: a call on the changed lines of one version
    whose arguments a call on the changed lines of the other has as they
    are, to another such function."""
    from .funcsource import bound_names
    pairs: list = []
    io, inn = _imports(old.module), _imports(new.module)
    lo, ln = bound_names(old.module), bound_names(new.module)
    co, cn = _calls_on(old, ch_old), _calls_on(new, ch_new)
    for d_o, args_o, _ in co:
        q_o = resolve(d_o, io, lo)
        if q_o is None:
            continue
        for d_n, args_n, _ in cn:
            if args_n != args_o:
                continue
            q_n = resolve(d_n, inn, ln)
            if q_n is not None and q_n != q_o and (q_o, q_n) not in pairs:
                pairs.append((q_o, q_n))
    return pairs[:4]


def function_of(qualified: str):
    """The function :data:`COMPUTING` names ``qualified``; None elsewhere."""
    if qualified not in COMPUTING:
        return None
    mod, _, name = qualified.rpartition(".")
    try:
        return getattr(importlib.import_module(mod), name, None)
    except ImportError:
        return None


def _value(snap):
    """The value a funcrun snapshot shows, for texts, numbers, bytes, None,
    booleans and lists, tuples and dicts of those; ValueError otherwise."""
    if isinstance(snap, str):
        v = ast.literal_eval(snap)
        if isinstance(v, (str, bytes, int, float, bool, type(None))):
            return v
        raise ValueError(snap)
    if isinstance(snap, list) and snap and snap[0] in ("list", "tuple"):
        items = [_value(x) for x in snap[1:]]
        return items if snap[0] == "list" else tuple(items)
    if isinstance(snap, list) and snap and snap[0] == "dict":
        return {_value(k): _value(x) for k, x in snap[1:]}
    raise ValueError(repr(snap)[:80])


def _outcome(fn, args: tuple, kwargs: dict):
    try:
        return ("returns", repr(fn(*args, **kwargs)))
    except Exception as e:              # noqa: BLE001 (what the function raises is its answer)
        return ("raises", type(e).__name__)


def told_apart(pair: tuple, recorded: list) -> tuple:
    """(how many of the ``recorded`` argument lists ([callee, [arguments],
    [[keyword, value]]] as funcrun writes them) the pair's callees were
    called with, whether one of them makes the two differ)."""
    a, b = function_of(pair[0]), function_of(pair[1])
    if a is None or b is None:
        return 0, True
    n = 0
    for rec in recorded:
        if not (isinstance(rec, list) and len(rec) == 3 and rec[0] in pair):
            continue
        try:
            args = tuple(_value(x) for x in rec[1])
            kwargs = {str(k): _value(x) for k, x in rec[2]}
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            # a value this side cannot rebuild: no claim either way
            return n, True
        n += 1
        if _outcome(a, args, kwargs) != _outcome(b, args, kwargs):
            return n, True
    return n, False


def _variants(v) -> list:
    """Values near ``v``: a text with a character put in at, or taken out
    of, each of its first places, a separator before or after it; a number
    one off, zero, negated."""
    if isinstance(v, bool) or v is None:
        return []
    if isinstance(v, int):
        return [v + 1, v - 1, 0, -v, v * 2]
    if isinstance(v, float):
        return [v + 0.5, v - 0.5, 0.0, -v, round(v)]
    if not isinstance(v, str):
        return []
    out = ["/" + v, v + "/", v + "/x", "", v + v, "x" + v]
    for i in range(min(len(v), 24) + 1):
        out.append(v[:i] + "x" + v[i:])
        if i < len(v):
            out.append(v[:i] + v[i + 1:])
    return list(dict.fromkeys(x for x in out if x != v))


def _replaced(value, old, new):
    """``value`` with every part equal to ``old`` replaced by ``new`` (in
    lists, tuples and dicts' values too); (value, count)."""
    if type(value) is type(old) and value == old:
        return new, 1
    if isinstance(value, (list, tuple)):
        got = [_replaced(x, old, new) for x in value]
        return type(value)(g[0] for g in got), sum(g[1] for g in got)
    if isinstance(value, dict):
        got = {k: _replaced(x, old, new) for k, x in value.items()}
        return {k: g[0] for k, g in got.items()}, sum(g[1] for g in got.values())
    return value, 0


def telling_values(pair: tuple, recorded: list, given: dict, limit: int = 4) -> list:
    """[(parameter, value)] that make the pair's callees differ: a
    parameter's value (``given``: parameter -> the snapshot of what a run
    gave it) that a recorded call passed on as it was, varied
    (:func:`_variants`) until the two functions, called here on the
    arguments with it, answer differently."""
    a, b = function_of(pair[0]), function_of(pair[1])
    if a is None or b is None:
        return []
    params = {}
    for p, snap in (given or {}).items():
        # (a run's input shows a value as its snapshot: a text's repr, or a
        # container's snapshot written out)
        for form in (lambda x: _value(x), lambda x: _value(ast.literal_eval(x))):
            try:
                params[p] = form(snap)
                break
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
    out: list = []
    for rec in recorded:
        if not (isinstance(rec, list) and len(rec) == 3 and rec[0] in pair):
            continue
        try:
            args = [_value(x) for x in rec[1]]
            kwargs = {str(k): _value(x) for k, x in rec[2]}
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        for p, v in params.items():
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                continue
            if _replaced([args, kwargs], v, v)[1] == 0:
                continue            # the call does not pass this parameter on
            found = 0
            for w in _variants(v):
                (a2, k2), _n = _replaced([args, kwargs], v, w)
                if _outcome(a, tuple(a2), k2) != _outcome(b, tuple(a2), k2):
                    if (p, w) not in out:
                        out.append((p, w))
                        found += 1
                    if found >= 2 or len(out) >= limit:
                        break
            if len(out) >= limit:
                return out
    return out
