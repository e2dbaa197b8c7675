"""Use-site constraints for the run-time injector.

**The runtime's hook** (``runtime_hook``; docs/RUNTIME.md, "Use-site
constraints").  The instrumenter records how each value is used
(``IidInfo.use``: a call argument, iteration with a target width,
unpacking, a ``%`` or format operand, a literal subscript, a call, a
``with``, an ``in``, an ``except``); when the runtime injects a value at
such a site, whatever the predictor, it asks

    runtime_hook(use, value, cls, kind, name)

once per site and predicted class.  ``value`` is what the predictor's class
``cls`` concretized to.  The answer is None when that value satisfies the
use (the predictor's own class is kept), else a class name or a factory
``f(rt) -> value`` that builds one that does (``rt.concretize(...)`` makes
Dummies that belong to the run).  Examples: ``range(n)`` -> ``3``;
``open(p)`` -> the path of a file written into the run's folder;
``a, b = f()`` -> a 2-tuple of Dummies; ``for k, v in d.items()`` -> a list
holding one 2-tuple; ``"%s=%s" % pair`` -> a 2-tuple; ``", ".join(parts)``
-> a list of str; ``isinstance(x, T)`` -> a class.

The checks never read an attribute of a Dummy (that would ask the
predictor and record an injection): Dummies are judged by their type.

**An opt-in callable predictor** (older): ``ConstraintPredictor(fallback)``
answers the abstract class closest to the spec of the argument a missing
value is passed as, read from the query's ``before`` tokens, and defers to
``fallback`` otherwise.

    import lexecutor_c
    from lexecutor_c.knowledge.inject import ConstraintPredictor
    lexecutor_c.run(src, predictor=ConstraintPredictor())
"""
from __future__ import annotations

import ast
import atexit
import copy
import os
import shutil
import tempfile
from typing import Callable, Optional, Union

from .. import _core
from .constraints import (Spec, build_value, constraint_for, file_content, format_spec_kind,
                          format_string_fields, parse_spec, percent_fields, runtime_class,
                          satisfies, source_for)

_OPEN, _CLOSE = "([{", ")]}"
_INJECTED = (_core.Dummy, _core.DummyResource)


# ================================================================ the runtime's hook

def runtime_hook(use, value, cls: str, kind: str, name: str):
    """The constraint hook of ``_core.Runtime`` (module docstring): None,
    a class name, or a factory ``f(rt) -> value``."""
    if not isinstance(use, tuple) or not use:
        return None
    handler = _HANDLERS.get(use[0])
    if handler is None:
        return None
    return handler(use, value, name or "")


def _injected(v) -> bool:
    return type(v) in _INJECTED


# ---------------------------------------------------------------- values that fit

#: spec kinds a Dummy satisfies: it iterates (one item), has len() 1, can be
#: indexed, hashed, called, used as a mapping, and int()/float() take it
_DUMMY_OK = {"iter", "seq", "sized", "nonempty", "mapping", "hashable", "callable",
             "callable1", "callable2", "bool", "numstr"}


def fits(value, spec: Union[Spec, str]) -> bool:
    """Whether ``value`` satisfies ``spec`` (constraints.satisfies, but Dummies
    are judged by type and containers of them element by element)."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    k = spec.kind
    if k == "alt":
        return any(fits(value, a) for a in spec.alts)
    if _injected(value):
        if k not in _DUMMY_OK:
            return False
        if spec.sub and k in ("iter", "seq", "nonempty", "sized"):
            return fits(value, spec.sub[0])         # it yields a Dummy
        return True
    if k in ("iter", "seq", "nonempty", "list", "sized") and spec.sub:
        if not isinstance(value, (list, tuple, set, frozenset, dict, str, bytes, range)):
            return False
        if k == "list" and not isinstance(value, list):
            return False
        items = list(value)[:50]
        if k == "nonempty" and not items:
            return False
        return all(fits(x, spec.sub[0]) for x in items)
    if k == "tuple" and spec.sub:
        return isinstance(value, tuple) and len(value) == len(spec.sub) and \
            all(fits(v, s) for v, s in zip(value, spec.sub))
    if k == "mapping" and isinstance(value, dict):
        return True
    if k.startswith("path:") and k not in ("path:w",):
        # a path the callee reads: it must exist (here, where the code runs)
        if not isinstance(value, (str, os.PathLike)):
            return False
        return os.path.isdir(value) if k == "path:dir" else os.path.isfile(value)
    return satisfies(value, spec)


# ---------------------------------------------------------------- files and values

_PRIVATE_DIR: Optional[str] = None


def _in_sandbox_child() -> bool:
    from ..engine import sandbox
    return getattr(sandbox, "_child_channel", None) is not None


def run_dir() -> str:
    """Where files a constraint needs are written: the run's own folder (the
    sandbox child's working directory) or, for in-process runs, a private
    temporary folder removed at exit."""
    global _PRIVATE_DIR
    if _in_sandbox_child():
        return os.getcwd()
    if _PRIVATE_DIR is None or not os.path.isdir(_PRIVATE_DIR):
        _PRIVATE_DIR = tempfile.mkdtemp(prefix="lexecutor_c-constraints-")
        atexit.register(shutil.rmtree, _PRIVATE_DIR, True)
    return _PRIVATE_DIR


def _is_pathlike_spec(spec: Spec) -> bool:
    return spec.kind.startswith("path")


def _materialize(spec: Spec, name: str):
    """A template value for ``spec``: source_for's expression evaluated in
    the run folder after writing its files (existing files are kept) and
    running its set-up statements; paths absolute unless the folder is the
    working directory."""
    built = source_for(spec, name=name)
    d = run_dir()
    cwd = os.getcwd()
    moved = os.path.realpath(d) != os.path.realpath(cwd)
    if moved:
        os.chdir(d)
    try:
        value = build_value(built, keep_existing=True)
    finally:
        if moved:
            os.chdir(cwd)
    if moved and _is_pathlike_spec(spec) and isinstance(value, str) and \
            not os.path.isabs(value):
        value = os.path.join(d, value)
    return value


def _file_factory(spec: Spec) -> Callable:
    mode = spec.kind.split(":", 1)[1] or "r"
    fname = os.path.join(run_dir(), "data.bin" if "b" in mode else "data.txt")
    if "r" in mode and not os.path.exists(fname):
        content = file_content(fname)
        with open(fname, "wb" if isinstance(content, bytes) else "w") as f:
            f.write(content)
    return lambda rt: open(fname, mode)


def spec_factory(spec: Spec, name: str):
    """A class name or a factory ``f(rt)`` whose values satisfy ``spec``."""
    if spec.kind == "alt":
        spec = spec.alts[0]
    k = spec.kind
    if k.startswith("callable"):
        return "callable"
    if k == "hashable":
        return "str_nonempty"
    if k == "mapping":
        return "dict_nonempty"
    if k in ("iter", "seq", "nonempty", "sized") and not spec.sub:
        return "list_nonempty"
    if k == "bool":
        return "True"
    if k == "type":
        cls = type(name if name.isidentifier() else "Injected", (), {})
        return lambda rt: cls                       # the same class at every injection
    if k.startswith("file:"):
        return _file_factory(spec)
    template = _materialize(spec, name)
    if isinstance(template, (str, bytes, int, float, bool, type(None), type)):
        return lambda rt: template
    return lambda rt: copy.deepcopy(template)


# ---------------------------------------------------------------- handlers

#: methods whose receiver is unknown (`sep.join(parts)`, `line.split(s)`):
#: their str row, with a spec a str meets for the ambiguous `join`
#: (os.path.join under an alias takes str too)
_STR_METHODS = {"split", "rsplit", "startswith", "endswith", "strip", "lstrip", "rstrip",
                "replace", "find", "rfind", "partition", "encode", "zfill", "center",
                "ljust", "rjust"}


def _literal(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def arg_spec(callee: str, key, literal: Optional[str] = None) -> Optional[Spec]:
    """The spec of argument ``key`` of ``callee`` as written at a call site,
    or None."""
    if callee == "str.format" and literal is not None:
        fmt = _literal(literal)
        if isinstance(fmt, str):
            for field, kind in format_string_fields(fmt):
                if field == key and kind:
                    return parse_spec(kind)
        return None
    spec = constraint_for(callee, key)
    if spec is not None or "." not in callee:
        return spec
    method = callee.rsplit(".", 1)[1]
    if method == "join":
        return parse_spec("str") if key == 0 else None
    if method in _STR_METHODS:
        return constraint_for("str." + method, key)
    for table in ("list", "dict"):
        if method in ("insert", "extend", "get", "setdefault", "fromkeys") and \
                constraint_for(f"{table}.{method}", key) is not None:
            return constraint_for(f"{table}.{method}", key)
    return None


def _arg(use, value, name):
    if len(use) < 3 or not isinstance(use[1], str):
        return None
    spec = arg_spec(use[1], use[2], use[3] if len(use) > 3 else None)
    if spec is None or fits(value, spec):
        return None
    return spec_factory(spec, name)


def _unpacks(item, width: int, starred: bool) -> bool:
    """Whether ``a, b, ... = item`` (width targets, one starred) works."""
    if _injected(item):
        n = 1                                   # a Dummy iterates one item
    elif isinstance(item, (tuple, list, str, bytes, dict, set, frozenset, range)):
        n = len(item)
    else:
        return False
    return n >= width if starred else n == width


def _tuple_factory(width: int, name: str):
    def make(rt):
        return tuple(rt.concretize("object", name) for _ in range(width))
    return make


def _iter(use, value, name):
    width, starred = int(use[1]), bool(use[2])
    plain = width == 0 and not starred
    if _injected(value):
        if plain or _unpacks(value, width, starred):   # its one item is a Dummy
            return None
    elif isinstance(value, (list, tuple, set, frozenset, dict, str, bytes, range)):
        if plain or all(_unpacks(x, width, starred) for x in list(value)[:50]):
            return None
    if plain:
        return "list_nonempty"
    make = _tuple_factory(width, name)
    return lambda rt: [make(rt)]


def _unpack(use, value, name):
    width, starred = int(use[1]), bool(use[2])
    if _unpacks(value, width, starred):
        return None
    return _tuple_factory(width, name)


def _percent(use, value, name):
    fmt = _literal(use[1])
    if not isinstance(fmt, (str, bytes)):
        return None
    try:
        fmt % value
        return None
    except Exception:
        pass
    if isinstance(fmt, bytes) or "%(" in fmt:
        return "object"                          # %(key)s: a Dummy maps every key
    kinds = percent_fields(fmt)
    if not kinds:
        return None

    def one(rt, k):
        return 1 if k == "int" else 1.5 if k == "num" else rt.concretize("object", name)

    if len(kinds) == 1:
        return lambda rt: one(rt, kinds[0])
    return lambda rt: tuple(one(rt, k) for k in kinds)


def _format(use, value, name):
    spec = use[1] if isinstance(use[1], str) else ""
    try:
        format(value, spec)
        return None
    except Exception:
        pass
    kind = format_spec_kind(spec)
    candidate = 1 if kind == "int" else 1.5 if kind == "num" else "a"
    try:
        format(candidate, spec)
    except Exception:
        return "object"                          # a Dummy formats with any spec
    return lambda rt: candidate


def _subscript(use, value, name):
    key, store = _literal(use[1]), bool(use[2])
    if _injected(value):
        return None
    if isinstance(value, dict):
        if store or (_hashable(key) and key in value):
            return None
    elif isinstance(value, (list, tuple, str, bytes)) and isinstance(key, int) and \
            not isinstance(key, bool):
        if -len(value) <= key < len(value) and (not store or isinstance(value, list)):
            return None
    return "object"                              # a Dummy has every item


def _hashable(v) -> bool:
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _call(use, value, name):
    return None if callable(value) else "callable"


def _with(use, value, name):
    t = type(value)
    return None if hasattr(t, "__enter__") and hasattr(t, "__exit__") else "resource"


def _contains(use, value, name):
    if _injected(value) or isinstance(value, (str, bytes, list, tuple, set, frozenset, dict,
                                              range)):
        return None
    return "object"


def _in(use, value, name):
    lit = _literal(use[1])
    if not isinstance(lit, (str, bytes)) or isinstance(value, type(lit)):
        return None
    one = lit[:1] or ("a" if isinstance(lit, str) else b"a")
    return lambda rt: one              # a character of the literal: the `in` branch runs


def _except(use, value, name):
    def exc_class(v):
        return isinstance(v, type) and issubclass(v, BaseException)
    if exc_class(value) or (isinstance(value, tuple) and all(exc_class(v) for v in value)):
        return None
    return lambda rt: Exception        # catches what the code around it raises


def _kwargs(use, value, name):
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return None
    # f(**value): an empty mapping fits every signature (a Dummy's keys are no
    # str: "keywords must be strings")
    return lambda rt: {}


_HANDLERS = {"kwargs": _kwargs, "arg": _arg, "iter": _iter, "unpack": _unpack, "percent": _percent,
             "format": _format, "subscript": _subscript, "call": _call, "with": _with,
             "contains": _contains, "in": _in, "except": _except}


# ================================================================ ConstraintPredictor

def use_site(before: str) -> Optional[tuple]:
    """(callee, argument position or keyword) when the tokens ``before`` a
    value end inside a call's argument list; None otherwise."""
    toks = before.split()
    depth, commas, kw = 0, 0, None
    if len(toks) >= 2 and toks[-1] == "=" and toks[-2].isidentifier():
        kw = toks[-2]
        toks = toks[:-2]
    i = len(toks) - 1
    while i >= 0:
        t = toks[i]
        if t in _CLOSE:
            depth += 1
        elif t in _OPEN:
            if depth == 0:
                break
            depth -= 1
        elif t == "," and depth == 0:
            commas += 1
        elif t in (":", "=", "lambda") and depth == 0 and kw is None:
            return None
        i -= 1
    if i < 1 or toks[i] != "(":
        return None
    # the callee: NAME ( . NAME )* or LITERAL . NAME just before "("
    j = i - 1
    parts = [toks[j]]
    while j >= 2 and toks[j - 1] == ".":
        parts.insert(0, toks[j - 2])
        j -= 2
    head = parts[0]
    if head[:1] in "\"'" or head[:2] in ("r'", 'r"', "f'", 'f"', "b'", 'b"'):
        parts[0] = "bytes" if head[:1] == "b" else "str"
    elif not all(p.isidentifier() for p in parts):
        return None
    if j >= 1 and toks[j - 1] in ("def", "class"):
        return None
    callee = ".".join(parts)
    return callee, (kw if kw is not None else commas)


class ConstraintPredictor:
    """A callable predictor honouring use-site constraints (module docstring)."""

    def __init__(self, fallback: Union[str, object] = "object"):
        self.fallback = fallback
        self.answered = 0

    def __repr__(self) -> str:
        return "constraints"

    def spec_for(self, query):
        if getattr(query, "kind", "") not in ("name", "attribute", "call"):
            return None
        site = use_site(getattr(query, "before", "") or "")
        if site is None:
            return None
        return constraint_for(*site)

    def __call__(self, query):
        spec = self.spec_for(query)
        if spec is not None and query.kind != "call":
            self.answered += 1
            return runtime_class(spec)
        if callable(self.fallback):
            return self.fallback(query)
        return self.fallback
