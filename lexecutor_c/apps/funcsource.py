"""Functions in a module's source, as the commit check needs them: each
function and method keyed by qualified name (:func:`function_versions`), a
normalized dump to tell real edits from docstring/annotation edits, the
lines an edit touches, and the source a sandbox child runs to define one
version (:class:`Driver`):

* *module mode* (:func:`module_driver`): the whole module, loaded under its
  own name from a checkout of its revision, so its imports of the project
  are real;
* *extract mode* (:func:`build_driver`): the function alone with what it
  reads from its module (imports of other packages, constants, up to 12
  same-module helpers; a method with its whole class, bases replaced).

:func:`facts_source` gives Treefix's analysis the function with its
parameters turned into free names, at its own line numbers.
"""
from __future__ import annotations

import ast
import re
import sys
import difflib
from dataclasses import dataclass
from typing import Optional

__all__ = ["Version", "Driver", "function_versions", "code_dump", "changed_lines",
           "module_name_of", "relative_levels", "module_driver", "build_driver", "facts_source"]

#: decorators kept on methods in extract mode (everything else is dropped:
#: the function is called as written)
_KEPT_DECORATORS = {"property", "staticmethod", "classmethod"}
#: decorators kept on the module's helper functions in extract mode: they
#: change how the helper is called (``with helper():`` needs the context
#: manager, not the bare generator), and the standard library defines them
_HELPER_DECORATORS = {"contextlib.contextmanager", "contextlib.asynccontextmanager"}
#: and on a method besides property/staticmethod/classmethod: without it
#: ``self.name`` is a bound method rather than the value
_METHOD_DECORATORS = _HELPER_DECORATORS | {"functools.cached_property"}
_MAX_HELPERS = 12


# ------------------------------------------------------------------ one version

@dataclass
class Version:
    """One version of a function in its module: what is needed to run it."""

    qualname: str
    text: str                       # the whole module
    node: ast.AST                   # the FunctionDef / AsyncFunctionDef
    cls: Optional[ast.ClassDef]     # the class it is a method of (directly)
    module: ast.Module
    path: str = "<file>"

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def first_line(self) -> int:
        return self.node.lineno

    @property
    def last_line(self) -> int:
        return self.node.end_lineno or self.node.lineno

    def decorators(self) -> list:
        return [_dotted(d) or "" for d in self.node.decorator_list]

    @property
    def kind(self) -> str:
        """method | static | classmethod | getter | setter | deleter | function"""
        if self.cls is None:
            return "function"
        decs = self.decorators()
        if "staticmethod" in decs:
            return "static"
        if "classmethod" in decs:
            return "classmethod"
        if "property" in decs:
            return "getter"
        for d in decs:
            if d.endswith(".setter"):
                return "setter"
            if d.endswith(".deleter"):
                return "deleter"
        return "method"

    def params(self) -> tuple:
        """(positional parameters without default -- ``self``/``cls`` left out
        for methods --, keyword-only parameters without default)."""
        a = self.node.args
        positional = a.posonlyargs + a.args
        n_req = len(positional) - len(a.defaults)
        req = [p.arg for p in positional[:n_req]]
        if self.kind in ("method", "classmethod", "getter", "setter", "deleter") and \
                positional:
            first = positional[0].arg
            if req and req[0] == first:
                req = req[1:]
        kw = [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
        return req, kw

    def self_name(self) -> Optional[str]:
        if self.kind in ("method", "getter", "setter", "deleter", "classmethod"):
            pos = self.node.args.posonlyargs + self.node.args.args
            return pos[0].arg if pos else None
        return None


def defaulted_params(fn: ast.AST) -> list:
    """A function node's parameters that have a default, in order: (the
    ``ast.arg``, its default expression), positional ones first."""
    a = fn.args
    pos = a.posonlyargs + a.args
    return list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) + \
        [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]


def is_overload(node: ast.AST) -> bool:
    """Whether a definition is a ``typing.overload`` stub
    (``@overload``, ``@typing.overload``, ``@t.overload``)."""
    return any((_dotted(d) or "").rpartition(".")[2] == "overload"
               for d in getattr(node, "decorator_list", ()))


def function_versions(text: str, path: str = "<file>") -> dict:
    """qualname -> Version for the functions and methods of a module; a nested
    function belongs to its enclosing function; a name defined twice gets
    ``#2``; a ``typing.overload`` stub is ``name@overload`` (``#2`` ...).
    Raises SyntaxError."""
    tree = ast.parse(text, path)
    out: dict = {}

    def visit(stmts, prefix, cls):
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # a ``typing.overload`` stub is no code that runs (the
                # definition after it replaces it): ``f@overload``, so
                # that ``f`` is the one the name binds
                q = prefix + s.name + ("@overload" if is_overload(s) else "")
                k, n = q, 1
                while k in out:
                    n += 1
                    k = f"{q}#{n}"
                out[k] = Version(k, text, s, cls, tree, path)
            elif isinstance(s, ast.ClassDef):
                visit(s.body, f"{prefix}{s.name}.", s)
            elif isinstance(s, ast.If) and static_truth(s.test, tree) is False:
                # ``if PY2: def f ... else: def f``: the branch this Python
                # runs defines the function; the other's is ``f#2``
                visit(s.orelse, prefix, cls)
                visit(s.body, prefix, cls)
            else:
                for attr in ("body", "orelse", "finalbody"):
                    visit(getattr(s, attr, None) or [], prefix, cls)
                for h in getattr(s, "handlers", None) or []:
                    visit(h.body, prefix, cls)
                for c in getattr(s, "cases", None) or []:
                    visit(c.body, prefix, cls)
    visit(tree.body, "", None)
    return out


#: flags of the Python version as projects name them (six, compat modules)
_VERSION_FLAGS = {"PY2": sys.version_info[0] == 2, "PY3": sys.version_info[0] == 3,
                  "IS_PY2": sys.version_info[0] == 2, "IS_PY3": sys.version_info[0] == 3,
                  "PY27": False, "PY26": False}


class _VersionInfo(tuple):
    """A ``sys.version_info`` of another Python (``major``, ``minor``...)."""
    major = property(lambda self: self[0])
    minor = property(lambda self: self[1])
    micro = property(lambda self: self[2])


#: a Python newer than any: what a test for a future version asks
FUTURE_PYTHON = _VersionInfo((3, 99, 0, "final", 0))


def static_truth(test: ast.AST, module: ast.Module, depth: int = 0,
                 version: Optional[tuple] = None) -> Optional[bool]:
    """The value of a module-level ``if`` test that depends only on the
    Python version, on this interpreter: ``sys.version_info`` compared or
    indexed (``sys.version_info >= (3, 8)``, ``sys.version_info[0] == 2``,
    ``.major``), ``six.PY2``/``PY3``, a name the module binds once to such a
    test (``PY2 = sys.version_info[0] == 2``), ``not``/``and``/``or`` of
    them; None when it depends on anything else."""
    if depth > 4:
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        v = static_truth(test.operand, module, depth + 1, version)
        return None if v is None else not v
    if isinstance(test, ast.BoolOp):
        vals = [static_truth(x, module, depth + 1, version) for x in test.values]
        if isinstance(test.op, ast.And):
            return False if False in vals else None if None in vals else True
        return True if True in vals else None if None in vals else False
    if isinstance(test, ast.Attribute) and test.attr in _VERSION_FLAGS and \
            isinstance(test.value, ast.Name) and test.value.id in ("six", "compat", "_compat"):
        return _VERSION_FLAGS[test.attr]
    if isinstance(test, ast.Name):
        binds = [st for st in module.body if isinstance(st, ast.Assign) and
                 any(isinstance(t, ast.Name) and t.id == test.id for t in st.targets)]
        if len(binds) == 1 and len(binds[0].targets) == 1:
            return static_truth(binds[0].value, module, depth + 1, version)
        froms = [a for st in module.body if isinstance(st, ast.ImportFrom)
                 for a in st.names if (a.asname or a.name) == test.id]
        if not binds and len(froms) == 1 and froms[0].name in _VERSION_FLAGS:
            return _VERSION_FLAGS[froms[0].name]
        return None
    if isinstance(test, ast.Compare) and _version_expr(test):
        try:
            code = compile(ast.Expression(test), "<version test>", "eval")
            where = sys if version is None else \
                type("sys", (), {"version_info": _VersionInfo(version)})
            return bool(eval(code, {"__builtins__": {}, "sys": where}))
        except Exception:
            return None
    return None


def other_python_definitions(v: Version) -> list:
    """The module-level definitions of the function ``v`` names that sit in
    a branch this Python does not take but a newer one does (``if
    PY_3_14_PLUS: def f ...`` on 3.11), as ``(line, code dump)`` pairs: what
    the module does on a later Python version (branches for older ones,
    ``if PY2:``, are what a project drops; they are not counted)."""
    if v.cls is not None or "." in v.qualname.partition("#")[0]:
        return []
    return later_python_definitions(v.module, v.name, v.node)


#: the exceptions a handler of a failed import names
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}

#: standard modules whose import does something (opens a browser, prints,
#: starts a window system): never imported to answer :func:`import_fallback`
_LOUD_MODULES = {"antigravity", "this", "turtle", "turtledemo", "tkinter", "idlelib"}


def import_fallback(v: Version) -> Optional[str]:
    """The import statement whose failure alone defines the function ``v``
    (or its class): ``try: from ssl import match_hostname`` / ``except
    ImportError: def _dnsname_match ...`` at the module's top, the
    imports all from the standard library and all working on this Python
    -- which never runs the definition; else None."""
    import importlib
    top = v.cls if v.cls is not None else v.node
    for s in v.module.body:
        if not isinstance(s, ast.Try) or not s.body or \
                not all(isinstance(x, (ast.Import, ast.ImportFrom)) for x in s.body):
            continue
        for h in s.handlers:
            names = {n.id for n in ast.walk(h.type) if isinstance(n, ast.Name)} \
                if h.type is not None else set()
            if not names & _IMPORT_ERRORS or not any(x is top for b in h.body
                                                     for x in ast.walk(b)):
                continue
            for imp in s.body:
                mods = [a.name for a in imp.names] if isinstance(imp, ast.Import) else \
                    [imp.module] if imp.module and not imp.level else []
                if not mods or any(m.partition(".")[0] not in sys.stdlib_module_names or
                                   m.partition(".")[0] in _LOUD_MODULES for m in mods):
                    return None
                try:
                    got = [importlib.import_module(m) for m in mods]
                except Exception:
                    return None
                if isinstance(imp, ast.ImportFrom) and not all(
                        hasattr(got[0], a.name) for a in imp.names):
                    return None
            return ast.unparse(s.body[0])
    return None


def later_python_definitions(module: ast.Module, name: str,
                             skip: Optional[ast.AST] = None) -> list:
    """The module-level definitions of ``name`` in a branch this Python
    does not take but a newer one does, as ``(line, code dump)`` pairs
    (:func:`other_python_definitions`; ``skip``: a definition left out)."""
    out: list = []

    def visit(stmts, live: bool, later: bool):
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not live and later and s.name == name and s is not skip:
                    out.append((s.lineno, code_dump(s)))
            elif isinstance(s, ast.If):
                t = static_truth(s.test, module)
                f = static_truth(s.test, module, version=FUTURE_PYTHON)
                visit(s.body, live and t is not False, later and f is not False)
                visit(s.orelse, live and t is not True, later and f is not True)
            elif isinstance(s, (ast.Try, ast.With)):
                for attr in ("body", "orelse", "finalbody"):
                    visit(getattr(s, attr, None) or [], live, later)
                for h in getattr(s, "handlers", None) or []:
                    visit(h.body, live, later)
    visit(module.body, True, True)
    return out


def _version_expr(e: ast.AST) -> bool:
    """Is ``e`` made of ``sys.version_info`` (indexed, sliced, ``.major``
    and so on), literals and comparisons alone?"""
    ok = (ast.Compare, ast.Constant, ast.Tuple, ast.Subscript, ast.Slice, ast.Load,
          ast.cmpop, ast.Index if hasattr(ast, "Index") else ast.Slice)
    for n in ast.walk(e):
        if isinstance(n, ast.Attribute):
            if not (n.attr == "version_info" and isinstance(n.value, ast.Name) and
                    n.value.id == "sys" or n.attr in ("major", "minor", "micro")):
                return False
        elif isinstance(n, ast.Name):
            if n.id != "sys":
                return False
        elif not isinstance(n, ok):
            return False
    return any(isinstance(n, ast.Attribute) and n.attr == "version_info" for n in ast.walk(e))


def _strip_doc(body: list) -> list:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:] or [ast.Pass()]
    return body


class _Normalizer(ast.NodeTransformer):
    """Docstrings and annotations do not change what a call does."""

    def _fn(self, node):
        self.generic_visit(node)
        node.body = _strip_doc(node.body)
        node.returns = None
        node.type_comment = None
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _fn

    def visit_ClassDef(self, node):
        self.generic_visit(node)
        node.body = _strip_doc(node.body)
        return node

    def visit_arg(self, node):
        node.annotation = None
        node.type_comment = None
        return node

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        if node.value is None:
            return ast.Pass()
        return ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)


def code_dump(node: ast.AST, normalize: bool = True) -> str:
    """ast.dump without positions; ``normalize``: docstrings and annotations
    removed (two functions with equal normalized dumps behave alike)."""
    import copy
    if normalize:
        node = _Normalizer().visit(copy.deepcopy(node))
    return ast.dump(node, include_attributes=False)


# ------------------------------------------------------------------ source pieces

def _dotted(e) -> Optional[str]:
    if isinstance(e, ast.Call):
        e = e.func
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        b = _dotted(e.value)
        return None if b is None else f"{b}.{e.attr}"
    return None


def _lines(text: str) -> list:
    return text.splitlines()


#: the enumeration base classes of the standard library's ``enum``
_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"}


def _enum_class(s: ast.ClassDef) -> bool:
    """Whether a module's class is an enumeration of at most 120 lines (a
    base named like one of ``enum``'s): the extract mode defines it as it is,
    since a made-up stand-in has none of its members' identities (``Unit[
    name] in (Unit.SECONDS, ...)``)."""
    last = {(_dotted(b) or "").rpartition(".")[2] for b in s.bases}
    return bool(last & _ENUM_BASES) and (s.end_lineno or s.lineno) - s.lineno <= 120


def _built_by_init(v: Version, by_name: dict) -> set:
    """The module's classes a method's class constructor calls without
    arguments (``self.info = info or parserinfo()``), at most 400 lines
    each, whose bases are builtins or imports from other packages: the
    extract mode defines them, so that an instance built by the class's own
    ``__init__`` (funcrun) holds real parts, not made-up ones."""
    import builtins
    if v.cls is None:
        return set()
    init = next((st for st in v.cls.body if isinstance(st, ast.FunctionDef)
                 and st.name == "__init__"), None)
    if init is None:
        return set()
    imported = set()
    for st in v.module.body:
        if isinstance(st, ast.Import):
            imported |= {(a.asname or a.name).split(".")[0] for a in st.names}
        elif isinstance(st, ast.ImportFrom) and not st.level:
            imported |= {a.asname or a.name for a in st.names}
    out = set()
    for n in ast.walk(init):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and not n.args \
                and not n.keywords and n.func.id != v.cls.name:
            for st in by_name.get(n.func.id, []):
                if not isinstance(st, ast.ClassDef) or \
                        (st.end_lineno or st.lineno) - st.lineno > 400:
                    continue
                roots = [(_dotted(b) or "?").split(".")[0] for b in st.bases]
                if all(r in imported or hasattr(builtins, r) for r in roots):
                    out.add(st.name)
    return out


#: how many classes of the module an extract keeps as a method's class's
#: ancestors, and how long each may be
_MAX_KEPT_BASES, _MAX_BASE_LINES = 4, 400


def _module_bases(cls: ast.ClassDef, module: ast.Module, by_name: dict) -> Optional[list]:
    """The bases of a method's class that the module itself defines at its
    top (``class ErrorCollector(SimpleErrorCollector)``), with their own
    such bases: an extract keeps them, so that what the class inherits
    from its own module (``self.error(...)``) runs as written rather than
    being made up.  Only where every base of the class is such a class
    (perhaps subscripted, ``Root[T]``), ``Generic[...]``/``Protocol[...]``
    or one :func:`_builtin_bases` keeps, and so on up, at most
    ``_MAX_KEPT_BASES`` classes of at most ``_MAX_BASE_LINES`` lines; no
    class keyword but ``metaclass=ABCMeta``.  None where that does not
    hold, or no base is the module's (the bases are dropped, as before:
    the open base)."""
    kept: list = []

    def own_class(b: ast.AST, c: ast.ClassDef) -> Optional[ast.ClassDef]:
        named = b.value if isinstance(b, ast.Subscript) else b
        defs = by_name.get(named.id, []) if isinstance(named, ast.Name) else []
        if len(defs) != 1 or not isinstance(defs[0], ast.ClassDef) or defs[0] in (c, cls):
            return None
        d = defs[0]
        return d if (d.end_lineno or d.lineno) - d.lineno <= _MAX_BASE_LINES else None

    def ok(c: ast.ClassDef, depth: int) -> bool:
        if depth > _MAX_KEPT_BASES or any(
                k.arg != "metaclass" or (_dotted(k.value) or "").rpartition(".")[2] != "ABCMeta"
                for k in c.keywords):
            return False
        plain = []
        for b in c.bases:
            if _typing_generic(b):
                continue
            d = own_class(b, c)
            if d is None:
                plain.append(b)
                continue
            if d.name not in kept:
                if len(kept) >= _MAX_KEPT_BASES:
                    return False
                kept.append(d.name)
                if not ok(d, depth + 1):
                    return False
        if not plain:
            return True
        if any(isinstance(b, ast.Name) and b.id == "type" for b in plain):
            # a metaclass (dateutil's ``BaseTzFactory(type)``): its
            # instances are classes, which no input builds as an object
            return False
        probe = ast.ClassDef(name=c.name, bases=plain, keywords=[], body=c.body,
                             decorator_list=[])
        wanted = [b for b in plain if not (isinstance(b, ast.Name) and b.id == "object")]
        return len(_builtin_bases(probe, module)) == len(wanted)
    if not ok(cls, 0) or not kept:
        return None
    return kept


def _typing_generic(b: ast.AST) -> bool:
    """``Generic[T]`` or ``Protocol[T]`` as a base (typing's, by name)."""
    return isinstance(b, ast.Subscript) and \
        (_dotted(b.value) or "").rpartition(".")[2] in ("Generic", "Protocol")


def _cut(lines: list, first: int, last: int, col: int) -> list:
    """Lines first..last (1-based, inclusive) with ``col`` leading columns
    removed where they are blank (continuation lines of strings keep theirs)."""
    return [ln[col:] if not ln[:col].strip() else ln for ln in lines[first - 1:last]]


def _std_names(tops: list, wanted: "set | frozenset" = _METHOD_DECORATORS) -> dict:
    """The dotted names a standard library name of ``wanted`` (a kept
    decorator, by default) may be written as in the module, to that name
    (``contextmanager`` after ``from contextlib import contextmanager``,
    ``cl.contextmanager`` after ``import contextlib as cl``); ``tops``: the
    statements whose imports count."""
    out = {}
    for s in tops:
        if isinstance(s, ast.Import):
            for a in s.names:
                for d in wanted:
                    mod, _, name = d.partition(".")
                    if a.name == mod:
                        out[f"{a.asname or a.name}.{name}"] = d
        elif isinstance(s, ast.ImportFrom) and not s.level:
            for a in s.names:
                if f"{s.module}.{a.name}" in wanted:
                    out[a.asname or a.name] = f"{s.module}.{a.name}"
    return out


def _names_read(node: ast.AST) -> set:
    out = set()
    for e in ast.walk(node):
        if isinstance(e, ast.Name):
            out.add(e.id)
        elif isinstance(e, ast.Attribute):
            d = _dotted(e)
            if d:
                out.add(d.split(".")[0])
    return out


def bound_names(tree: ast.AST) -> set:
    """Every name ``tree`` binds anywhere: assigned or deleted, imported,
    defined, a parameter of any of its functions."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                out.add((a.asname or a.name).split(".")[0])
    return out


def _unpacked(target) -> list:
    """The names an assignment's target binds: itself, or those a tuple or
    list target unpacks to (starred ones too); none for an attribute or
    an item."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, ast.Starred):
        return _unpacked(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _unpacked(e)]
    return []


def _bound_by(stmt) -> set:
    if isinstance(stmt, ast.Import):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    if isinstance(stmt, ast.ImportFrom):
        return {a.asname or a.name for a in stmt.names if a.name != "*"}
    if isinstance(stmt, ast.Assign):
        # ``PREV, NEXT, KEY = range(3)`` binds each name it unpacks to
        return {n.id for t in stmt.targets for n in _unpacked(t)}
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and \
            isinstance(stmt.target, ast.Name):
        return {stmt.target.id}
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Try, ast.If)):
        return set().union(*(_bound_by(x) for x in _block_parts(stmt)))
    return set()


def _top_statements(module: ast.Module) -> list:
    """Module-level statements, including those inside top-level try/if
    blocks (``try: import x except ImportError: ...``); a block of imports
    and assignments alone is kept whole (``try: from collections.abc import
    Sequence`` / ``except ImportError: from collections import Sequence``,
    ``if PY2: ... else: from reprlib import Repr``): the branch that runs
    here binds the name, as in the module."""
    out = []

    def walk(stmts):
        for s in stmts:
            if isinstance(s, (ast.Try, ast.If)) and _compat_block(s):
                out.append(s)
            elif isinstance(s, ast.Try):
                walk(s.body)
            elif isinstance(s, ast.If):
                # ``if sys.version_info >= (3, 14): def f ... else: def f``:
                # the branch this Python takes binds the names
                walk(s.orelse if static_truth(s.test, module) is False else s.body)
            else:
                out.append(s)
    walk(module.body)
    return out


def _block_parts(s) -> list:
    """The statements directly inside a try/if statement, every branch."""
    parts = list(s.body) + list(s.orelse)
    if isinstance(s, ast.Try):
        parts += [x for h in s.handlers for x in h.body] + list(s.finalbody)
    return parts


def _compat_block(s) -> bool:
    """A try (with handlers) or if statement holding only imports,
    assignments and ``pass`` (nested such blocks too), and in a try's body
    expressions: the probe whose failure picks the branch (``try:
    zip(strict=True)`` / ``except TypeError: _zip_strict = zip`` / ``else:
    _zip_strict = partial(zip, strict=True)``)."""
    if isinstance(s, ast.Try) and not s.handlers:
        return False
    probes = list(s.body) if isinstance(s, ast.Try) else []
    for x in _block_parts(s):
        if isinstance(x, (ast.Try, ast.If)):
            if not _compat_block(x):
                return False
        elif not isinstance(x, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign,
                                ast.Pass)) and \
                not (isinstance(x, ast.Expr) and any(x is b for b in probes)):
            return False
    return True


@dataclass
class Driver:
    """What a sandbox child needs to define the function under test."""

    mode: str                   # "module": the whole module; "extract": the function alone
    text: str                   # the source to instrument and execute
    filename: str
    target_first: int           # the function's lines in ``text`` (first decorator .. end)
    target_def: int             # its def line in ``text``
    target_last: int
    offset: int                 # text line - module line
    class_path: list            # classes holding the method, outermost first
    kind: str                   # Version.kind
    self_name: Optional[str]
    root: Optional[str] = None          # module mode: the folder put on sys.path
    module_name: str = ""
    is_package: bool = False
    module_file: str = ""
    # an extract's class had bases of the project's (or a package's) that
    # the extract does not keep: its ``super().__init__(...)`` goes to a
    # base that takes any arguments (funcrun's ``_LxOpenBase``)
    open_base: bool = False


def module_name_of(path: str, has_init, levels: int = 0) -> tuple:
    """(root folder relative to the tree, dotted module name, is_package) for
    a file of a tree; ``has_init(folder)`` tells whether a folder of the tree
    is a package; ``levels``: how many folders up the module's relative
    imports reach (those are packages even without ``__init__.py``: PEP 420).
    ``src/pkg/mod.py`` -> ("src", "pkg.mod", False)."""
    parts = path.split("/")
    base = parts[-1][:-3]
    folders = parts[:-1]
    mod = [] if base == "__init__" else [base]
    need = levels - (1 if base == "__init__" else 0)
    while folders and (has_init("/".join(folders)) or need > 0):
        mod.insert(0, folders.pop())
        need -= 1
    return "/".join(folders), ".".join(mod), base == "__init__"


def relative_levels(module: ast.Module) -> int:
    """The deepest relative import of a module (``from .. import x``: 2)."""
    return max([s.level or 0 for s in ast.walk(module) if isinstance(s, ast.ImportFrom)],
               default=0)


def _first_line(node) -> int:
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def module_driver(v: Version, root: str, rel_root: str, module_name: str,
                  is_package: bool) -> Driver:
    """The whole module, as it is: run as ``module_name`` with ``root`` (a
    checkout of the revision) on sys.path, so its imports of the project
    are real."""
    import os
    return Driver("module", v.text if v.text.endswith("\n") else v.text + "\n",
                  f"<lx>/{v.path}", _first_line(v.node), v.node.lineno, v.last_line, 0,
                  _class_path(v), v.kind, v.self_name(), os.path.join(root, rel_root),
                  module_name, is_package, os.path.join(root, v.path))


def _class_path(v: Version) -> list:
    q = v.qualname.split("#")[0].split(".")
    return q[:-1] if v.cls is not None else []


def build_driver(v: Version) -> Driver:
    """The function alone with what it reads from its module: the imports
    of other packages, module constants and same-module helpers (up to 12),
    and for a method its whole class (bases replaced but for builtin ones
    and the module's own classes, :func:`_module_bases`; decorators other
    than property/staticmethod/classmethod dropped).  Everything else is left to
    the prefix and to injection."""
    lines = _lines(v.text)
    reads = _names_read(v.node)
    own = {v.name}
    if v.cls is not None:
        reads |= _names_read(v.cls)
        own = {v.cls.name}
    tops = _top_statements(v.module)
    by_name: dict = {}
    for s in tops:
        for nm in _bound_by(s):
            by_name.setdefault(nm, []).append(s)
    chosen: list = []
    # in a fixed order (a set's order changes with the hash seed, and with it
    # which helpers make the limit: two runs, or two versions, would load
    # different ones)
    todo = sorted(reads - own, reverse=True)
    seen = set(own)
    helpers = 0
    stubs: list = []
    built = _built_by_init(v, by_name)
    ancestors = _module_bases(v.cls, v.module, by_name) if v.cls is not None else None
    built |= set(ancestors or ())
    exc_names = _exception_names(v.module)
    while todo:
        nm = todo.pop()
        if nm in seen:
            continue
        seen.add(nm)
        for s in by_name.get(nm, []):
            if s in chosen:
                continue
            if isinstance(s, ast.ImportFrom) and s.level:
                # the project's own modules: injected, but for translation
                # functions, which get no translation, and exception classes
                stub = _null_translation(s, nm) or _exception_stub(nm, exc_names)
                if stub:
                    stubs.append(stub)
                continue
            if isinstance(s, ast.ImportFrom) and _absent_package(s.module):
                # (also where the module names its package in full, a
                # package not installed here: ``from humanize.i18n import
                # _gettext as _``)
                stub = _null_translation(s, nm) or _exception_stub(nm, exc_names)
                if stub:
                    stubs.append(stub)
                    continue
            if isinstance(s, ast.ClassDef) and not _enum_class(s) and s.name not in built \
                    and not _exception_class(s, exc_names) and not _record_class(s):
                continue                        # other classes: injected
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if helpers >= _MAX_HELPERS or s is v.node:
                    continue
                helpers += 1
            chosen.append(s)
            if not isinstance(s, (ast.Import, ast.ImportFrom)):
                todo.extend(sorted(_names_read(s) - seen, reverse=True))
    chosen.sort(key=lambda s: s.lineno)
    # the module's ``from __future__`` imports come first, whatever is read:
    # without ``annotations`` the extract would evaluate every annotation
    # (a class's ``x: Alias[T]`` with an injected ``T`` fails the class)
    out: list = [ln for s in tops
                 if isinstance(s, ast.ImportFrom) and s.module == "__future__"
                 for ln in (ast.get_source_segment(v.text, s) or "").splitlines()]
    if any(_EXC_STUB in st for st in stubs):
        stubs[0:0] = _EXC_HELPER.split("\n")       # (one line of the text each)
    out.extend(stubs)
    std = _std_names(tops)
    for s in chosen:
        # a class keeps its decorators (``@total_ordering``, ``@unique``)
        top = min([s.lineno] + [d.lineno for d in s.decorator_list]) \
            if isinstance(s, ast.ClassDef) else s.lineno
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.extend("@" + ast.unparse(d) for d in s.decorator_list
                       if std.get(_dotted(d) or "") in _HELPER_DECORATORS)
        out.extend(_cut(lines, top, s.end_lineno or s.lineno, s.col_offset))
    fname = f"<lx-extract>/{v.path}"
    if v.cls is None:
        node = v.node
        first = len(out) + 1
        out.extend(_cut(lines, node.lineno, v.last_line, node.col_offset))
        return Driver("extract", "\n".join(out) + "\n", fname, first, first, len(out),
                      first - node.lineno, [], v.kind, v.self_name())
    cls = v.cls
    if not cls.body or cls.body[0].lineno <= cls.lineno:
        raise ValueError("a one-line class")
    first_member = min(_first_line(m) for m in cls.body)
    seg = _cut(lines, cls.lineno, cls.end_lineno or cls.lineno, cls.col_offset)
    # the class header -> one line with our base, blank lines for the rest
    header_len = first_member - cls.lineno
    # builtin bases (``dict``, ``ValueError``) are kept before it: they are
    # there in every run, and what the class inherits from them is what
    # its methods' ``super()`` finds
    builtin = _builtin_bases(cls, v.module)
    if ancestors is not None:
        # the module's own classes among them kept too, in their order
        # (``Generic[...]`` aside): what the class inherits runs as written
        builtin = [ast.unparse(b) for b in cls.bases
                   if not (_typing_generic(b) or isinstance(b, ast.Name) and b.id == "object")]
    seg[0:header_len] = [f"class {cls.name}({''.join(b + ', ' for b in builtin)}__lx_base__):"] + \
        [""] * (header_len - 1)
    # decorators that are not kept become blank lines
    for m in cls.body:
        if not isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for d in m.decorator_list:
            name = _dotted(d) or ""
            keep = name in _KEPT_DECORATORS or std.get(name) in _METHOD_DECORATORS or (
                not isinstance(d, ast.Call) and name.endswith((".setter", ".getter",
                                                              ".deleter")))
            if not keep:
                for i in range(d.lineno - 1, d.end_lineno or d.lineno):
                    seg[i - cls.lineno + 1] = ""
    start = len(out) + 1
    out.extend(seg)
    off = start - cls.lineno
    # (bases it had that the extract drops: another module's ``TomlEncoder``,
    # a class keyword)
    dropped = ancestors is None and (bool(cls.keywords) or (not builtin and any(
        not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases)))
    return Driver("extract", "\n".join(out) + "\n", fname, _first_line(v.node) + off,
                  v.node.lineno + off, v.last_line + off, off, [cls.name], v.kind,
                  v.self_name(), open_base=dropped)


#: how an exception class the project's own module defines is given in an
#: extract: the class an input's prefix made for it, else a class of that
#: name (a made-up value is no class: ``raise InstallerError(...)`` would
#: fail with "exceptions must derive from BaseException", and ``except``
#: of it with a TypeError, on any input)
_EXC_STUB = "__lx_exc__("
_EXC_HELPER = ("def __lx_exc__(name, base):\n"
               "    got = globals().get(name)\n"
               "    if isinstance(got, type) and issubclass(got, BaseException):\n"
               "        return got\n"
               "    return type(name, (base,), {'__init__': lambda self, *a, **k: "
               "base.__init__(self, *a), '__module__': __name__})")
_EXC_SUFFIXES = ("Error", "Exception", "Warning", "Exc")


def _exception_names(module: ast.Module) -> set:
    """Names the module raises or catches (``raise X``, ``raise X(...)``,
    ``except X``, ``except (X, Y)``)."""
    out = set()
    for n in ast.walk(module):
        if isinstance(n, ast.Raise) and n.exc is not None:
            es = [n.exc.func if isinstance(n.exc, ast.Call) else n.exc]
        elif isinstance(n, ast.ExceptHandler) and n.type is not None:
            es = n.type.elts if isinstance(n.type, ast.Tuple) else [n.type]
        else:
            continue
        out.update(x.id for x in es if isinstance(x, ast.Name))
    return out


def _record_class(c: ast.ClassDef) -> bool:
    """Is ``c`` a ``TypedDict`` or ``NamedTuple`` class, or a dataclass of
    annotated fields alone?  Kept
    in an extract: calling it builds the dict or tuple itself, where a
    made-up class would answer a made-up value (``return InfoDict(id=...)``
    against ``return dict(id=...)``: one and the same dict)."""
    if any((_dotted(b) or "").split(".")[-1] in ("TypedDict", "NamedTuple")
           for b in c.bases):
        return True
    # a dataclass of fields alone (``@dataclass class DataRow: begin: str``,
    # a named tuple rewritten as one): kept as its named tuple would be
    return not c.bases and any(
        (_dotted(d.func if isinstance(d, ast.Call) else d) or "") in
        ("dataclass", "dataclasses.dataclass") for d in c.decorator_list) and all(
        isinstance(m, (ast.AnnAssign, ast.Pass)) or
        isinstance(m, ast.Expr) and isinstance(m.value, ast.Constant) for m in c.body)


def _exception_class(c: ast.ClassDef, raised: set) -> bool:
    """Is the module's class ``c`` an exception class the code raises or
    catches (by its name, or its bases' names: ``class BadDistInfo(
    ValueError, InstallerError)``)?  Such a class is kept in an extract:
    a made-up value in its place cannot be raised."""
    import builtins
    if c.name not in raised and not c.name.endswith(_EXC_SUFFIXES):
        return False
    for b in c.bases:
        name = b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) \
            else ""
        k = getattr(builtins, name, None)
        if isinstance(k, type) and issubclass(k, BaseException) or \
                name.endswith(_EXC_SUFFIXES):
            return True
    return False


def _exception_stub(name: str, raised: set) -> str:
    """A one-line definition of ``name``, imported from the project's own
    module, as an exception class, where the module raises or catches it or
    its name says it is one (``InstallerError``, ``DeprecatedWarning``)."""
    if not name.isidentifier() or not (name in raised or name.endswith(_EXC_SUFFIXES)) or \
            not name[:1].isupper():
        return ""
    base = "Warning" if name.endswith("Warning") else "Exception"
    return f"{name} = {_EXC_STUB}{name!r}, {base})"


#: gettext's functions by the names projects give their wrappers
#: (``_gettext``, ``pgettext``, ``ungettext``, ``gettext_lazy``, ``_ngettext_noop``)
_GETTEXT = re.compile(r"_?(u|n|p|np|un|d|dn)?gettext(_lazy|_noop)?")


def _absent_package(module: Optional[str]) -> bool:
    """Is ``module``'s top package one this Python cannot find (the project's
    own package, named in full where the check has only its files)?  Found
    without importing it."""
    import importlib.util
    top = (module or "").split(".")[0]
    if not top.isidentifier():
        return False
    try:
        return importlib.util.find_spec(top) is None
    except (ImportError, ValueError):
        return False


def _null_translation(stmt: ast.ImportFrom, name: str) -> str:
    """A one-line definition of ``name`` where the project's own module
    ``stmt`` imports it from is a translation function (``from .i18n import
    _pgettext as P_``), as gettext behaves without a catalog: the message
    back (the plural one for a count other than 1; a ``_noop`` plural
    function its two messages), else ''.  Made-up values would render every
    message the same ('None'), and edits that pick another message would
    not show."""
    for a in stmt.names:
        if (a.asname or a.name) != name or not _GETTEXT.fullmatch(a.name):
            continue
        plural = "ngettext" in a.name
        if a.name.endswith("_noop"):
            body = "tuple(a)" if plural else "a[-1]"
        elif plural:
            body = "a[-3] if a[-1] == 1 else a[-2]"
        else:
            body = "a[-1]"
        return f"{name} = lambda *a, **k: {body}"
    return ""


#: standard modules whose classes are not kept as bases (abstract classes,
#: typing's special forms: a base the made-up class cannot stand beside)
_NOT_KEPT_BASES = {"abc", "typing", "collections", "enum", "ctypes", "types"}


def _plain_std_class(module: str, name: str) -> bool:
    """Is ``module.name`` a class of the standard library whose instances
    ``__new__`` alone can make (``string.Formatter``; not ``functools.partial``,
    which wants its function)?"""
    import importlib
    import sys
    # (a module this process already imported, or one of a few known to do
    # nothing when imported: importing here, outside the sandbox, may do
    # things -- ``antigravity``)
    mod = sys.modules.get(module)
    if mod is None and module in _QUIET_MODULES:
        try:
            mod = importlib.import_module(module)
        except ImportError:
            return False
    c = getattr(mod, name, None)
    return isinstance(c, type) and c.__new__ is object.__new__


_QUIET_MODULES = frozenset({
    "string", "json", "argparse", "logging", "threading", "io", "numbers", "unittest",
    "socketserver", "configparser", "contextlib", "reprlib", "pprint", "codecs", "queue",
    "random", "datetime", "decimal", "fractions", "shlex", "textwrap", "cmd", "optparse",
    "ast", "html", "difflib", "email", "csv", "weakref"})


def _builtin_bases(cls: ast.ClassDef, module: Optional[ast.Module] = None) -> list:
    """The bases of a class statement that are builtin classes other than
    ``object`` (by name) or classes the module imports from the standard
    library (``from reprlib import Repr``: what ``super().__init__()``
    finds), when all its bases are such and it passes no keywords (a
    metaclass); else []."""
    import builtins
    import sys
    std: set = set()
    std_modules: set = set()        # ``import string``: ``string.Formatter``
    tops = list(module.body) if module is not None else []
    for st in list(tops):
        # imports under ``try``/``if`` at the module's top (``try: from repr
        # import Repr`` / ``except ImportError: from reprlib import Repr``)
        if isinstance(st, (ast.Try, ast.If)):
            tops += _block_parts(st)
    for st in tops:
        if isinstance(st, ast.ImportFrom) and not st.level and st.module:
            top = st.module.split(".")[0]
            if top in sys.stdlib_module_names and top not in _NOT_KEPT_BASES:
                std.update(a.asname or a.name for a in st.names if a.name != "*")
        elif isinstance(st, ast.Import):
            std_modules.update(a.name for a in st.names if a.asname is None and
                               "." not in a.name and a.name in sys.stdlib_module_names and
                               a.name not in _NOT_KEPT_BASES)
    names = []
    for b in cls.bases:
        if isinstance(b, ast.Name) and b.id in std and not hasattr(builtins, b.id):
            names.append(b.id)
            continue
        if isinstance(b, ast.Attribute) and isinstance(b.value, ast.Name) and \
                b.value.id in std_modules and _plain_std_class(b.value.id, b.attr):
            names.append(f"{b.value.id}.{b.attr}")
            continue
        if not (isinstance(b, ast.Name) and isinstance(getattr(builtins, b.id, None), type)):
            return []
        if b.id != "object":
            names.append(b.id)
    return [] if cls.keywords else names


def facts_source(v: Version) -> str:
    """The function as Treefix's analysis should see it: at its own line
    numbers (every other line blank), parameters removed so that they are
    free names like the globals it reads (``self`` included)."""
    from ..prefixtree.flow import WRAPPER
    lines = _lines(v.text)
    node = v.node
    body_first = node.body[0].lineno
    out = [""] * len(lines)
    if body_first <= node.lineno:          # def f(x): return x
        stmt = lines[node.lineno - 1]
        idx = stmt.find(":", stmt.find(")"))
        out[node.lineno - 1] = f"def {WRAPPER}(): " + stmt[idx + 1:].strip()
        return "\n".join(out) + "\n"
    col = node.col_offset
    out[node.lineno - 1] = f"def {WRAPPER}():"
    for i in range(body_first, v.last_line + 1):
        ln = lines[i - 1]
        out[i - 1] = ln[col:] if not ln[:col].strip() else ln
    if col and node.lineno >= 2:
        # indented in the module (a method): wrap in a block at column 0
        out[node.lineno - 1] = " " * col + f"def {WRAPPER}():"
        out[node.lineno - 2] = "if 1:"
        for i in range(body_first, v.last_line + 1):
            out[i - 1] = lines[i - 1]
    return "\n".join(out) + "\n"


def _code_keys(v: Version) -> list:
    """(line, text) for the function's lines that hold code, in order: the
    line stripped, a trailing comment removed; lines that hold only a
    comment, and blank lines, left out (no line of a multi-line string:
    its lines are the string's text).  Where the source does not tokenize,
    every line stripped (blank lines too)."""
    import io
    import tokenize
    lines = _lines(v.text)
    first, last = v.first_line, v.last_line
    comments: dict = {}         # line -> the column its comment starts at
    in_string: set = set()      # lines inside a multi-line token (a string)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(v.text).readline):
            if tok.start[0] > last:
                break
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = tok.start[1]
            elif tok.end[0] > tok.start[0]:
                in_string.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [(first + i, x.strip()) for i, x in enumerate(lines[first - 1:last])]
    out = []
    for ln in range(first, last + 1):
        x = lines[ln - 1] if ln - 1 < len(lines) else ""
        if ln in in_string:
            out.append((ln, x.strip()))
            continue
        if ln in comments:
            x = x[:comments[ln]]
        x = x.strip()
        if x:
            out.append((ln, x))
    return out


#: a clause's header that is no statement of its own (its line marker is
#: the compound statement's, which runs whichever clause does)
_CLAUSE = re.compile(r"(else|finally|except\b.*|except\*.*)\s*:$")


def changed_lines(old: Optional[Version], new: Optional[Version]) -> tuple:
    """(old lines, new lines): the statement lines (where their line markers
    are) that the edit touches, in each version's own numbering.  Lines that
    hold only a comment, and trailing comments, are no code: an edited
    comment changes no line (the loop around it runs where the edit's code
    does not)."""
    if old is None or new is None:
        return set(), set()
    a, b = _code_keys(old), _code_keys(new)
    sm = difflib.SequenceMatcher(None, [x for _, x in a], [x for _, x in b],
                                 autojunk=False)
    ca, cb = set(), set()

    def near(keys, i) -> set:
        # the code lines around an insertion point: the one before and the
        # one after it; for a clause's header (``else:``) after it, the
        # clause's first line (an ``elif`` inserted before ``else:``: the
        # inputs that take it took the ``else`` before), and none for one
        # before it (its first line is the other neighbour)
        out = set()
        for k in (i - 1, i):
            if not 0 <= k < len(keys):
                continue
            if not _CLAUSE.match(keys[k][1]):
                out.add(keys[k][0])
            elif k == i and k + 1 < len(keys):
                out.add(keys[k + 1][0])
        return out or {keys[k][0] for k in (i - 1, i) if 0 <= k < len(keys)}
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        ca.update(ln for ln, _ in a[i1:i2])
        cb.update(ln for ln, _ in b[j1:j2])
        if i1 == i2:          # pure insertion: the neighbours in the old version
            ca.update(near(a, i1))
        if j1 == j2:
            cb.update(near(b, j1))
    return _to_markers(old, ca), _to_markers(new, cb)


def _to_markers(v: Version, lines: set) -> set:
    """Each line -> the first line of the innermost statement that holds it
    (a statement's line marker sits there).  Signature lines -> the first
    body statement: entering the function reaches them.  The docstring is
    no statement that runs (no line event, no marker): its lines count as
    the signature's."""
    body = v.node.body
    doc = body[0] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        and isinstance(body[0].value.value, str) else None
    stmts = [s for s in ast.walk(v.node) if isinstance(s, ast.stmt) and s is not v.node
             and s is not doc]
    if doc is not None and len(body) == 1:
        return set()            # nothing but a docstring: nothing runs
    body_first = body[1 if doc is not None else 0].lineno
    out = set()
    for ln in lines:
        if ln < body_first:
            out.add(body_first)
            continue
        best = None
        for s in stmts:
            end = s.end_lineno or s.lineno
            if s.lineno <= ln <= end:
                # a compound statement holds its body's lines: the innermost wins
                if best is None or (end - s.lineno) < ((best.end_lineno or best.lineno)
                                                       - best.lineno):
                    best = s
        if best is not None:
            out.add(best.lineno)
    return out


#: standard classes whose instances take any attribute from outside (a
#: namespace filled by its user): a class built on them is never closed
_OPEN_STD_BASES = {("argparse", "Namespace"), ("types", "SimpleNamespace"),
                   ("threading", "local"), ("_thread", "_local")}
#: the standard modules whose classes a closed class may build on: abstract
#: bases, protocols, enums, containers -- none sets instance attributes in
#: an ``__init__`` of its own
_STATELESS_STD = frozenset({"abc", "_abc", "collections.abc", "_collections_abc", "typing",
                            "numbers", "enum", "collections", "_collections"})
#: class decorators that add no attribute names of their own beyond the
#: class's annotations and methods
_CLOSED_DECORATORS = {"dataclass", "dataclasses.dataclass", "total_ordering",
                      "functools.total_ordering", "final", "typing.final", "unique",
                      "enum.unique"}


def _std_class(module: str, name: str):
    """The class ``module.name`` of the standard library (imported only
    where it is already imported or quiet to import), else None."""
    import importlib
    top = module.split(".")[0]
    if top not in sys.stdlib_module_names or (module, name) in _OPEN_STD_BASES:
        return None
    mod = sys.modules.get(module)
    if mod is None and module in _STATELESS_STD:
        try:
            mod = importlib.import_module(module)
        except ImportError:
            return None
    c = getattr(mod, name, None)
    # (only classes that set no instance attributes of their own: an
    # object made without ``__init__`` lacks what ``logging.Handler`` or
    # ``UserDict`` would have set, and those may be made up)
    if not isinstance(c, type) or (c.__module__, c.__name__) in _OPEN_STD_BASES or \
            c.__module__ not in _STATELESS_STD or c.__name__.startswith("User"):
        return None
    return c


def closed_classes(module: ast.Module) -> dict:
    """The module's top-level classes whose attributes the module's text
    tells in full (issue 20): every base a builtin class, a class of the
    standard library or another such class of the module; no metaclass, no
    decorator that may add attributes, no ``__getattr__``; and a module that
    neither ``setattr``s nor reaches into ``__dict__``/``vars``.  On an
    instance of one of them, an attribute that no class of its own defines,
    that no statement of the module assigns on any object and that no base
    has, is missing in the program as well: reading it raises
    AttributeError, where a made-up value would hide the error (an edit
    that replaces ``temp.close()``, which the class lacks, by
    ``temp._cache.close()``).  Returns ``{"classes": names, "attrs": names
    some object of the module may have}``; no classes where the module
    cannot tell."""
    import builtins
    for n in ast.walk(module):
        if isinstance(n, ast.Name) and n.id in ("setattr", "vars", "__dict__") or \
                isinstance(n, ast.Attribute) and n.attr in ("__dict__", "__setattr__"):
            return {"classes": [], "attrs": []}
    std: dict = {}                      # a name the module imports -> (module, name)
    std_mods: dict = {}                 # ``import collections.abc as cabc``
    for s in _top_statements(module):
        for st in [s] + (_block_parts(s) if isinstance(s, (ast.Try, ast.If)) else []):
            if isinstance(st, ast.ImportFrom) and not st.level and st.module:
                for a in st.names:
                    std[a.asname or a.name] = (st.module, a.name)
            elif isinstance(st, ast.Import):
                for a in st.names:
                    std_mods[a.asname or a.name] = a.name
    attrs: set = set()
    for n in ast.walk(module):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)):
            attrs.add(n.attr)
    classes = {s.name: s for s in module.body if isinstance(s, ast.ClassDef)}
    closed: set = set()
    changed = True
    while changed:
        changed = False
        for name, c in classes.items():
            if name in closed or c.keywords:
                continue
            if any((_dotted(d.func if isinstance(d, ast.Call) else d) or "")
                   not in _CLOSED_DECORATORS for d in c.decorator_list):
                continue
            if any(isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                   m.name in ("__getattr__", "__getattribute__", "__setattr__")
                   for m in c.body):
                continue
            extra: set = set()
            ok = True
            for b in c.bases:
                if isinstance(b, ast.Subscript):        # ``Generic[T]``, ``Sequence[int]``
                    b = b.value
                d = _dotted(b) or ""
                if d in closed:
                    continue
                if "." not in d and isinstance(getattr(builtins, d, None), type):
                    extra.update(dir(getattr(builtins, d)))
                    continue
                head, _, tail = d.rpartition(".")
                k = _std_class(*std[d]) if d in std else \
                    _std_class(std_mods[head], tail) if head in std_mods else None
                if k is None:
                    ok = False
                    break
                extra.update(dir(k))
            if not ok:
                continue
            closed.add(name)
            changed = True
            attrs |= extra | bound_names(c)
            for n in ast.walk(c):
                if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                    attrs.add(n.target.id)
                elif isinstance(n, ast.Constant) and isinstance(n.value, str) and \
                        n.value.isidentifier():
                    attrs.add(n.value)          # ``__slots__``, ``__match_args__`` ...
    return {"classes": sorted(closed), "attrs": sorted(attrs)}
