"""Static extraction of what modules define, with ``ast`` only.

Nothing here imports the code it reads: a module file (``.py`` or a
``.pyi`` stub) is parsed and its top level walked (through ``if``/``try``
blocks, as both branches of a version check define names).

Entries (lists, to keep the JSON small):

* ``["f", lo, hi]``: a function taking ``lo`` to ``hi`` positional
  arguments (``hi`` -1: ``*args``);
* ``["c", methods, attrs, bases, init]``: a class; ``methods`` maps a name
  to ``[lo, hi]`` (``self``/``cls`` not counted), ``attrs`` the attribute
  names (class level, properties, ``self.x = ...`` in methods), ``bases``
  dotted names as written, ``init`` the ``[lo, hi]`` of its constructor;
* ``["v", type]``: a constant (``int``, ``str``, ``float``, ``bool``,
  ``list``, ``dict``, ``tuple``, ``set``, ``bytes``, ``None``, or ``object``);
* ``["m", module]``: a module bound to the name (``import x as y``);
* ``["r", module, name]``: re-exported from another module
  (``from .core import array``), resolved when the index is queried.

Import statements are also counted (the alias corpus): ``import m as a``
-> ``aliases[a][m]``, ``from m import n`` -> ``from_imports[n][m]``,
``import m`` -> ``module_imports[m]``.
"""
from __future__ import annotations

import ast
import os
from typing import Iterable, Optional

#: dunder methods worth knowing (protocols); other private names are dropped
PROTOCOL_DUNDERS = {
    "__iter__", "__next__", "__len__", "__getitem__", "__setitem__", "__contains__",
    "__enter__", "__exit__", "__call__", "__add__", "__eq__", "__lt__", "__hash__",
    "__bool__", "__aenter__", "__aexit__", "__aiter__", "__anext__", "__delitem__",
}

SKIP_DIRS = {"tests", "test", "testing", "_vendor", "vendor", "vendored", "_vendored",
             "typings", "stubs", "third_party", "extern", "externals", "_external",
             "examples", "docs", "doc", "benchmarks", "__pycache__", "site-packages",
             "build", "dist"}


def _public(name: str) -> bool:
    return not name.startswith("_")


def _arity(args: ast.arguments, drop_first: bool) -> list:
    full = list(args.posonlyargs) + list(args.args)
    required = max(0, len(full) - len(args.defaults))
    total = len(full)
    if drop_first and full:
        total -= 1
        required = max(0, required - 1)
    return [required, -1 if args.vararg is not None else total]


def _merge_arity(a: Optional[list], b: list) -> list:
    if a is None:
        return b
    hi = -1 if -1 in (a[1], b[1]) else max(a[1], b[1])
    return [min(a[0], b[0]), hi]


def _dotted(e: ast.AST) -> Optional[str]:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        b = _dotted(e.value)
        return None if b is None else f"{b}.{e.attr}"
    if isinstance(e, ast.Subscript):          # Generic[T], MutableSequence[_T]
        return _dotted(e.value)
    if isinstance(e, ast.Call):
        return _dotted(e.func)
    return None


_CONST_TYPES = {int: "int", float: "float", str: "str", bool: "bool", bytes: "bytes",
                complex: "complex", type(None): "None"}


def _value_type(v: Optional[ast.AST], ann: Optional[ast.AST] = None) -> str:
    if v is not None and not (isinstance(v, ast.Constant) and v.value is Ellipsis):
        if isinstance(v, ast.Constant):
            return _CONST_TYPES.get(type(v.value), "object")
        if isinstance(v, ast.UnaryOp) and isinstance(v.operand, ast.Constant):
            return _CONST_TYPES.get(type(v.operand.value), "object")
        for t, name in ((ast.List, "list"), (ast.ListComp, "list"), (ast.Dict, "dict"),
                        (ast.DictComp, "dict"), (ast.Tuple, "tuple"), (ast.Set, "set"),
                        (ast.SetComp, "set"), (ast.JoinedStr, "str")):
            if isinstance(v, t):
                return name
        if isinstance(v, ast.BinOp):
            left = _value_type(v.left)
            if left in ("int", "float", "str"):
                return left
    if ann is not None:
        d = _dotted(ann)
        if d:
            d = d.rsplit(".", 1)[-1]
            low = d.lower()
            if low in ("int", "float", "str", "bool", "bytes", "list", "dict", "tuple",
                       "set", "frozenset", "complex"):
                return low
            if d == "Final" and isinstance(ann, ast.Subscript):
                return _value_type(None, ann.slice)
            return "object"
    return "object"


def _top_statements(body: Iterable[ast.stmt]):
    """Statements of a module or class body, descending into if/try blocks."""
    for s in body:
        if isinstance(s, ast.If):
            win = _windows_test(s.test)
            if win is not True:
                yield from _top_statements(s.body)
            if win is not False:
                yield from _top_statements(s.orelse)
        elif isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            yield from _top_statements(s.body)
            for h in s.handlers:
                yield from _top_statements(h.body)
            yield from _top_statements(s.orelse)
            yield from _top_statements(s.finalbody)
        else:
            yield s


def _windows_test(test: ast.AST) -> Optional[bool]:
    """True for ``sys.platform == "win32"`` (and ``os.name == "nt"``), False
    for their negations, None otherwise: the index describes a POSIX machine."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and \
            isinstance(test.comparators[0], ast.Constant) and \
            _dotted(test.left) in ("sys.platform", "os.name"):
        v = test.comparators[0].value
        if v in ("win32", "nt", "cygwin"):
            if isinstance(test.ops[0], ast.Eq):
                return True
            if isinstance(test.ops[0], ast.NotEq):
                return False
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and \
            test.func.attr == "startswith" and _dotted(test.func.value) == "sys.platform" \
            and test.args and isinstance(test.args[0], ast.Constant) and \
            test.args[0].value == "win":
        return True
    return None


def _decorators(f) -> set:
    return {(_dotted(d) or "").rsplit(".", 1)[-1] for d in f.decorator_list}


def _class_entry(c: ast.ClassDef) -> list:
    methods: dict = {}
    attrs: set = set()
    for s in _top_statements(c.body):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decs = _decorators(s)
            name = s.name
            if "property" in decs or "cached_property" in decs or \
                    any(d in ("setter", "getter", "deleter") for d in decs):
                if _public(name):
                    attrs.add(name)
                continue
            drop = "staticmethod" not in decs
            if name == "__init__" or name == "__new__":
                methods[name] = _merge_arity(methods.get(name), _arity(s.args, True))
            elif _public(name) or name in PROTOCOL_DUNDERS:
                methods[name] = _merge_arity(methods.get(name), _arity(s.args, drop))
            if name == "__init__" or name.startswith("set"):
                for sub in ast.walk(s):
                    if isinstance(sub, (ast.Assign, ast.AnnAssign)):
                        targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                        for t in targets:
                            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                                    and t.value.id == "self" and _public(t.attr):
                                attrs.add(t.attr)
        elif isinstance(s, ast.Assign):
            for t in s.targets:
                if isinstance(t, ast.Name) and _public(t.id):
                    attrs.add(t.id)
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and \
                _public(s.target.id):
            attrs.add(s.target.id)
    init = methods.pop("__init__", None)
    new = methods.pop("__new__", None)
    if init is None:
        init = new
    attrs -= set(methods)
    bases = [b for b in (_dotted(x) for x in c.bases) if b]
    return ["c", methods, sorted(attrs), bases, init]


def _resolve_relative(module: str, level: int, target: Optional[str], is_pkg: bool) -> str:
    if level == 0:
        return target or ""
    parts = module.split(".")
    if not is_pkg:
        parts = parts[:-1]
    if level > 1:
        parts = parts[:len(parts) - (level - 1)]
    base = ".".join(parts)
    if target:
        return f"{base}.{target}" if base else target
    return base


class ModuleFacts:
    """What one module file defines, plus its import statements."""

    __slots__ = ("name", "names", "star", "all", "imports", "imported")

    def __init__(self, name: str):
        self.name = name
        self.names: dict = {}
        self.star: list = []            # modules star-imported
        self.all: Optional[list] = None
        self.imported: set = set()     # names bound by import statements
        self.imports: list = []         # ("alias", module, alias) / ("from", module, name) /
        #                                 ("import", module, None)


def extract_module(source: str, module: str, is_pkg: bool = False, stub: bool = False
                   ) -> ModuleFacts:
    """Facts of one module's source (raises SyntaxError for source that does
    not parse)."""
    tree = ast.parse(source)
    mf = ModuleFacts(module)
    stub_private: set = set()
    for s in ast.walk(tree):                 # every import, for the alias corpus
        if isinstance(s, ast.Import):
            for a in s.names:
                if a.asname and a.asname != a.name.rsplit(".", 1)[-1]:
                    mf.imports.append(("alias", a.name, a.asname))
                else:
                    mf.imports.append(("import", a.name, None))
        elif isinstance(s, ast.ImportFrom) and s.level == 0 and s.module:
            for a in s.names:
                if a.name != "*":
                    mf.imports.append(("from", s.module, a.name))
    for s in _top_statements(tree.body):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _public(s.name):
                prev = mf.names.get(s.name)
                ar = _arity(s.args, False)
                if prev is not None and prev[0] == "f":
                    ar = _merge_arity(prev[1:], ar)
                mf.names[s.name] = ["f"] + ar
        elif isinstance(s, ast.ClassDef):
            if _public(s.name):
                mf.names[s.name] = _class_entry(s)
        elif isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                if not isinstance(t, ast.Name):
                    continue
                if t.id == "__all__" and isinstance(s.value, (ast.List, ast.Tuple)):
                    mf.all = [e.value for e in s.value.elts
                              if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                    continue
                if not _public(t.id):
                    continue
                v = s.value
                if isinstance(v, (ast.Name, ast.Attribute)) and _dotted(v) and \
                        isinstance(s, ast.Assign):
                    src = _dotted(v)
                    target = mf.names.get(src.split(".")[0])
                    if "." not in src and target is not None:
                        mf.names[t.id] = target
                        continue
                mf.names[t.id] = ["v", _value_type(v, getattr(s, "annotation", None))]
        elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and \
                s.target.id == "__all__" and isinstance(s.value, (ast.List, ast.Tuple)):
            mf.all = (mf.all or []) + [e.value for e in s.value.elts
                                       if isinstance(e, ast.Constant)
                                       and isinstance(e.value, str)]
        elif isinstance(s, ast.Import):
            for a in s.names:
                if a.asname and _public(a.asname):
                    # `import numpy as np` inside a library is not its API,
                    # but `import posixpath as path` in os is; stubs and
                    # re-exports `as` themselves (PEP 484) are
                    if stub or a.asname == a.name.rsplit(".", 1)[-1]:
                        mf.imported.add(a.asname)
                        mf.names[a.asname] = ["m", a.name]
        elif isinstance(s, ast.ImportFrom):
            src = _resolve_relative(module, s.level, s.module, is_pkg)
            if not src:
                continue
            for a in s.names:
                if a.name == "*":
                    mf.star.append(src)
                    continue
                bound = a.asname or a.name
                if not _public(bound):
                    continue
                if stub and s.level == 0 and a.asname != a.name:
                    # in stubs, `from x import y` without `as y` is private
                    # unless __all__ (often further down) names it
                    stub_private.add(bound)
                mf.imported.add(bound)
                mf.names[bound] = ["r", src, a.name]
    if mf.all is not None:
        keep = set(mf.all)
        for name in list(mf.names):
            if name not in keep and name in mf.imported:
                del mf.names[name]
    elif stub:
        for name in stub_private:
            mf.names.pop(name, None)
    elif not is_pkg:
        # a plain module's imports are for its own use (`from collections
        # import deque` in a library is no API of it); packages re-export
        for name in mf.imported:
            mf.names.pop(name, None)
    return mf


def module_name(root: str, path: str) -> Optional[tuple]:
    """(dotted module name, is_package) of ``path`` under ``root``; None for
    files that are no importable module (bad names, tests, vendored code)."""
    rel = os.path.relpath(path, root) if root else path
    parts = rel.replace(os.sep, "/").split("/")
    fname = parts[-1]
    stem = fname.rsplit(".", 1)[0]
    dirs = parts[:-1]
    if any(d in SKIP_DIRS or not d.isidentifier() for d in dirs):
        return None
    if stem == "__init__":
        if not dirs:
            return None
        return ".".join(dirs), True
    if not stem.isidentifier() or stem.startswith("test_") or stem.endswith("_test") or \
            stem == "setup" and not dirs \
            or stem == "conftest":
        return None
    return ".".join(dirs + [stem]), False


def iter_module_files(root: str, max_files: int = 4000, start: Optional[str] = None,
                      max_depth: Optional[int] = None):
    """(path, module, is_pkg, is_stub) for every module under ``start``
    (default ``root``; module names are relative to ``root``), at most
    ``max_depth`` folders below ``start``; a ``.pyi`` stub wins over the
    ``.py`` beside it."""
    found: dict = {}
    start = start or root
    base = start.rstrip(os.sep).count(os.sep)
    for dirpath, dirnames, filenames in os.walk(start):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and d.isidentifier())
        if max_depth is not None and dirpath.rstrip(os.sep).count(os.sep) - base >= max_depth:
            dirnames[:] = []
        for f in sorted(filenames):
            if not f.endswith((".py", ".pyi")):
                continue
            p = os.path.join(dirpath, f)
            mn = module_name(root, p)
            if mn is None:
                continue
            stub = f.endswith(".pyi")
            prev = found.get(mn[0])
            if prev is not None and prev[3] and not stub:
                continue
            found[mn[0]] = (p, mn[0], mn[1], stub)
            if len(found) >= max_files:
                return list(found.values())
    return list(found.values())
