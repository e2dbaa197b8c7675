"""Does an edit change what one function does?  The old and the new version of
a function run on the same inputs; their return values, exceptions, printed
output and mutations of the arguments and of ``self`` are compared.

How one version runs (in a sandbox child, :func:`_run_case`):

1. the *prefix* of the input runs first, as it is (no injection), one
   top-level statement at a time; a statement that raises is skipped (what
   Treefix's post-processing does by re-running);
2. the *driver* runs instrumented, with injection underneath: the stdlib and
   third-party imports, module constants and same-module helper functions the
   function reads, then the function itself -- for a method, its whole class
   (all methods, class attributes; bases replaced by the class of the
   prefix's ``self`` so that inherited methods the prefix stubs still exist;
   decorators other than property/staticmethod/classmethod dropped);
3. the function is called: each parameter without a default gets the value
   the prefix gave its name, else an injected one (the runtime's predictor,
   by name); a method gets a ``self`` made without ``__init__``
   (``object.__new__``) carrying the prefix ``self``'s attributes.

The same input text runs both versions, and injected values depend only on
``(seed, name, class)``: the same name gets the same value in both.

Inputs: the prefixes the offline Treefix generator proposes for the
function's free names and parameters (``self`` included: a stand-in class
with the attributes and methods the code uses), with the first ones chosen
to reach the changed lines (coverage guidance) and to get past errors (error
guidance); calls of the function with literal arguments found in the
project's tests; and the empty prefix (injection alone).

Flakiness: when the two versions disagree on an input, both run a second
time; only what both runs of each version agree on counts, so a
nondeterministic function (time, random, ids, hash order) never yields
"changed".
"""
from __future__ import annotations

import ast
import difflib
import re
import time
from dataclasses import dataclass, field
from typing import Optional

from ..engine import sandbox

__all__ = ["Version", "FunctionCheck", "Options", "Input", "Tree", "function_versions",
           "check_function", "snapshot", "code_dump", "changed_lines", "build_driver",
           "facts_source", "CHANGED", "SAME", "UNREACHED", "EXCEPTION"]

CHANGED, SAME, UNREACHED, EXCEPTION = "changed", "same", "unreached", "exception"

#: decorators kept on methods (everything else is dropped: the function is
#: called as written)
_KEPT_DECORATORS = {"property", "staticmethod", "classmethod"}
_FIELDS = ("outcome", "ret", "out", "args", "self")
_FIELD_WORDS = {"outcome": "outcome", "ret": "return value", "out": "printed output",
                "args": "arguments after the call", "self": "self after the call",
                "message": "exception message"}
_ADDR = re.compile(r"0x[0-9a-fA-F]{4,}")
_GEN_MAX = 200
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


def function_versions(text: str, path: str = "<file>") -> dict:
    """qualname -> Version for the functions and methods of a module; a nested
    function belongs to its enclosing function; a name defined twice gets
    ``#2``.  Raises SyntaxError."""
    tree = ast.parse(text, path)
    out: dict = {}

    def visit(stmts, prefix, cls):
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + s.name
                k, n = q, 1
                while k in out:
                    n += 1
                    k = f"{q}#{n}"
                out[k] = Version(k, text, s, cls, tree, path)
            elif isinstance(s, ast.ClassDef):
                visit(s.body, f"{prefix}{s.name}.", s)
            else:
                for attr in ("body", "orelse", "finalbody"):
                    visit(getattr(s, attr, None) or [], prefix, cls)
                for h in getattr(s, "handlers", None) or []:
                    visit(h.body, prefix, cls)
                for c in getattr(s, "cases", None) or []:
                    visit(c.body, prefix, cls)
    visit(tree.body, "", None)
    return out


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


def _cut(lines: list, first: int, last: int, col: int) -> list:
    """Lines first..last (1-based, inclusive) with ``col`` leading columns
    removed where they are blank (continuation lines of strings keep theirs)."""
    return [ln[col:] if not ln[:col].strip() else ln for ln in lines[first - 1:last]]


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


def _bound_by(stmt) -> set:
    if isinstance(stmt, ast.Import):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    if isinstance(stmt, ast.ImportFrom):
        return {a.asname or a.name for a in stmt.names if a.name != "*"}
    if isinstance(stmt, ast.Assign):
        return {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and \
            isinstance(stmt.target, ast.Name):
        return {stmt.target.id}
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    return set()


def _top_statements(module: ast.Module) -> list:
    """Module-level statements, including those inside top-level try/if
    blocks (``try: import x except ImportError: ...``)."""
    out = []

    def walk(stmts):
        for s in stmts:
            if isinstance(s, ast.Try):
                walk(s.body)
            elif isinstance(s, ast.If):
                walk(s.body)
            else:
                out.append(s)
    walk(module.body)
    return out


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


def module_name_of(path: str, has_init) -> tuple:
    """(root folder relative to the tree, dotted module name, is_package) for
    a file of a tree; ``has_init(folder)`` tells whether a folder of the tree
    is a package.  ``src/pkg/mod.py`` -> ("src", "pkg.mod", False)."""
    parts = path.split("/")
    base = parts[-1][:-3]
    folders = parts[:-1]
    mod = [] if base == "__init__" else [base]
    while folders and has_init("/".join(folders)):
        mod.insert(0, folders.pop())
    return "/".join(folders), ".".join(mod), base == "__init__"


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
    and for a method its whole class (bases replaced, decorators other than
    property/staticmethod/classmethod dropped).  Everything else is left to
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
    todo = list(reads - own)
    seen = set(own)
    helpers = 0
    while todo:
        nm = todo.pop()
        if nm in seen:
            continue
        seen.add(nm)
        for s in by_name.get(nm, []):
            if s in chosen:
                continue
            if isinstance(s, ast.ImportFrom) and s.level:
                continue                        # the project's own modules: injected
            if isinstance(s, ast.ClassDef):
                continue                        # other classes: injected
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if helpers >= _MAX_HELPERS or s is v.node:
                    continue
                helpers += 1
            chosen.append(s)
            if not isinstance(s, (ast.Import, ast.ImportFrom)):
                todo.extend(_names_read(s) - seen)
    chosen.sort(key=lambda s: s.lineno)
    out: list = []
    for s in chosen:
        out.extend(_cut(lines, s.lineno, s.end_lineno or s.lineno, s.col_offset))
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
    seg[0:header_len] = [f"class {cls.name}(__lx_base__):"] + [""] * (header_len - 1)
    # decorators that are not kept become blank lines
    for m in cls.body:
        if not isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for d in m.decorator_list:
            name = _dotted(d) or ""
            keep = name in _KEPT_DECORATORS or (
                not isinstance(d, ast.Call) and name.endswith((".setter", ".getter",
                                                              ".deleter")))
            if not keep:
                for i in range(d.lineno - 1, d.end_lineno or d.lineno):
                    seg[i - cls.lineno + 1] = ""
    start = len(out) + 1
    out.extend(seg)
    off = start - cls.lineno
    return Driver("extract", "\n".join(out) + "\n", fname, _first_line(v.node) + off,
                  v.node.lineno + off, v.last_line + off, off, [cls.name], v.kind,
                  v.self_name())


def facts_source(v: Version) -> str:
    """The function as Treefix's analysis should see it: at its own line
    numbers (every other line blank), parameters removed so that they are
    free names like the globals it reads (``self`` included)."""
    lines = _lines(v.text)
    node = v.node
    body_first = node.body[0].lineno
    out = [""] * len(lines)
    if body_first <= node.lineno:          # def f(x): return x
        stmt = lines[node.lineno - 1]
        idx = stmt.find(":", stmt.find(")"))
        out[node.lineno - 1] = "def __lx_f__(): " + stmt[idx + 1:].strip()
        return "\n".join(out) + "\n"
    col = node.col_offset
    out[node.lineno - 1] = "def __lx_f__():"
    for i in range(body_first, v.last_line + 1):
        ln = lines[i - 1]
        out[i - 1] = ln[col:] if not ln[:col].strip() else ln
    if col and node.lineno >= 2:
        # indented in the module (a method): wrap in a block at column 0
        out[node.lineno - 1] = " " * col + "def __lx_f__():"
        out[node.lineno - 2] = "if 1:"
        for i in range(body_first, v.last_line + 1):
            out[i - 1] = lines[i - 1]
    return "\n".join(out) + "\n"


def changed_lines(old: Optional[Version], new: Optional[Version]) -> tuple:
    """(old lines, new lines): the statement lines (where their line markers
    are) that the edit touches, in each version's own numbering."""
    if old is None or new is None:
        return set(), set()
    a = _lines(old.text)[old.first_line - 1:old.last_line]
    b = _lines(new.text)[new.first_line - 1:new.last_line]
    sm = difflib.SequenceMatcher(None, [x.strip() for x in a], [x.strip() for x in b],
                                 autojunk=False)
    ca, cb = set(), set()
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        ca.update(range(old.first_line + i1, old.first_line + i2))
        cb.update(range(new.first_line + j1, new.first_line + j2))
        if i1 == i2:          # pure insertion: the neighbours in the old version
            ca.update({old.first_line + max(i1 - 1, 0), old.first_line + i1})
        if j1 == j2:
            cb.update({new.first_line + max(j1 - 1, 0), new.first_line + j1})
    return _to_markers(old, ca), _to_markers(new, cb)


def _to_markers(v: Version, lines: set) -> set:
    """Each line -> the first line of the innermost statement that holds it
    (a statement's line marker sits there).  Signature lines -> the first
    body statement: entering the function reaches them."""
    stmts = [s for s in ast.walk(v.node) if isinstance(s, ast.stmt) and s is not v.node]
    body_first = v.node.body[0].lineno
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


# ------------------------------------------------------------------ the child

def _dummy_types():
    from .._core import Dummy, DummyResource
    return (Dummy, DummyResource)


def snapshot(v, _depth: int = 0, _dummies=None):
    """A comparable, deterministic description of a value: primitives by
    value, containers by content (sets and dict items sorted), injected
    Dummies by name, objects without their own repr by class and attributes,
    other objects by repr with addresses removed.  Never asks an injected
    value for anything (no predictor queries)."""
    if _dummies is None:
        _dummies = _dummy_types()
    t = type(v)
    if v is None or t in (bool, int, float, complex, bytes):
        return repr(v)
    if t is str:
        return repr(v) if len(v) <= 2000 else repr(v[:2000]) + "..."
    if t in _dummies:
        try:
            return _ADDR.sub("0x?", repr(v))
        except Exception:
            return "<Dummy>"
    tname = t.__qualname__ if t.__module__ in ("builtins", "__lx_check__") else \
        f"{t.__module__}.{t.__qualname__}"
    if _depth > 5:
        return f"<{tname}>"
    d = _depth + 1
    try:
        import types
        if isinstance(v, (list, tuple)) and (t in (list, tuple) or t.__repr__ in
                                             (list.__repr__, tuple.__repr__)):
            items = [snapshot(x, d, _dummies) for x in v[:50]]
            return [tname] + items + (["..."] if len(v) > 50 else [])
        if isinstance(v, (set, frozenset)):
            items = sorted((snapshot(x, d, _dummies) for x in list(v)[:200]), key=repr)
            return [tname] + items
        if isinstance(v, dict):
            items = sorted(([snapshot(k, d, _dummies), snapshot(x, d, _dummies)]
                            for k, x in list(v.items())[:200]), key=repr)
            return [tname] + items
        if isinstance(v, (bytearray, memoryview)):
            return [tname, repr(bytes(v[:2000]))]
        if isinstance(v, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
            return f"<function {getattr(v, '__qualname__', '?')}>"
        if isinstance(v, type):
            return f"<class {v.__qualname__}>"
        if isinstance(v, types.ModuleType):
            return f"<module {v.__name__}>"
        if isinstance(v, (types.GeneratorType, types.CoroutineType)):
            return f"<{tname}>"
        if isinstance(v, BaseException):
            return [tname] + [snapshot(a, d, _dummies) for a in v.args[:5]]
        if t.__repr__ is object.__repr__:
            attrs = {}
            try:
                attrs = dict(vars(v))
            except TypeError:
                for cls in t.__mro__:
                    for s in getattr(cls, "__slots__", ()) or ():
                        if isinstance(s, str) and hasattr(v, s):
                            attrs[s] = getattr(v, s)
            return [tname, sorted([k, snapshot(x, d, _dummies)] for k, x in attrs.items()
                                  if not k.startswith("__lx"))]
        return [tname, _ADDR.sub("0x?", repr(v))[:2000]]
    except Exception as e:      # a broken __repr__, a container that raises
        return f"<{tname}: {type(e).__name__}>"


def _absent():
    raise NameError("absent")


def _line_of(exc: BaseException, filename: str) -> Optional[int]:
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _unwrap(obj):
    """(how it is called, function) pairs that ``obj`` (a class or module
    attribute) holds."""
    import functools
    if isinstance(obj, property):
        return [("getter", obj.fget), ("setter", obj.fset), ("deleter", obj.fdel)]
    if isinstance(obj, staticmethod):
        return [("static", obj.__func__)]
    if isinstance(obj, classmethod):
        return [("classmethod", obj.__func__)]
    if isinstance(obj, functools.cached_property):
        return [("plain", obj.func)]
    out, seen = [], 0
    while obj is not None and seen < 6:
        out.append(("plain", obj))
        try:
            obj = obj.__dict__.get("__wrapped__") if hasattr(obj, "__dict__") else None
        except Exception:
            obj = None
        seen += 1
    return out


def _find_target(container, filename: str, lo: int, hi: int):
    """(kind, function) in ``container`` (a module or class dict) whose code
    was compiled from ``filename`` and starts on lines lo..hi."""
    for obj in list(container.values()):
        for kind, fn in _unwrap(obj):
            code = getattr(fn, "__code__", None) if fn is not None else None
            if code is not None and code.co_filename == filename and \
                    lo <= code.co_firstlineno <= hi:
                return kind, fn
    return None, None


def _run_case(drv: dict, inp: dict, seed: int, predictor, randomize: bool) -> dict:
    """In the sandbox child: prefix, module or driver, call; plain data back."""
    import builtins
    import io
    import os
    import sys
    import types
    from .._core import Runtime
    from ..engine.instrument import instrument
    res: dict = {"outcome": None, "dropped": 0}
    dummies = _dummy_types()
    filename = drv["filename"]
    real_out = sys.stdout
    sink = io.StringIO()
    sys.stdout = sink

    def stop(outcome, e=None):
        sys.stdout = real_out
        res["outcome"] = outcome
        if e is not None:
            res["message"] = _ADDR.sub("0x?", f"{type(e).__name__}: {e}")[:300]
        return res

    # 0. the module object (module mode: registered, its package imported)
    if drv["mode"] == "module":
        import importlib
        sys.path.insert(0, drv["root"])
        name = drv["module_name"]
        parent = name if drv["is_package"] else name.rpartition(".")[0]
        if parent and parent != name:
            try:
                importlib.import_module(parent)
            except BaseException:
                pass
        mod = types.ModuleType(name)
        mod.__file__ = drv["module_file"]
        mod.__package__ = parent
        if drv["is_package"]:
            mod.__path__ = [os.path.dirname(drv["module_file"])]
        sys.modules[name] = mod
        env = mod.__dict__
        env["__builtins__"] = builtins
    else:
        env = {"__name__": "__lx_check__", "__builtins__": builtins, "__file__": filename}
    # 1. the prefix, as it is, statement by statement
    try:
        stmts = ast.parse(inp.get("prefix") or "").body
    except SyntaxError:
        stmts = []
        res["dropped"] = -1
    for s in stmts:
        try:
            exec(compile(ast.Module([s], []), "<prefix>", "exec"), env)
        except sandbox.Timeout:
            return stop("timeout")
        except BaseException:
            res["dropped"] += 1
    params = drv["args"] + drv["kwargs"] + ([drv["self"]] if drv["self"] else [])
    given = {p: env[p] for p in params if p in env}
    s_obj = given.get(drv["self"]) if drv["self"] else None
    base = object
    if s_obj is not None and type(type(s_obj)) is type and \
            type(s_obj).__module__ == env.get("__name__"):
        base = type(s_obj)
    env["__lx_base__"] = base
    # 2. the module or driver, instrumented, injection underneath
    inst = instrument(drv["text"], filename=filename)
    code = inst.compile()
    rt = Runtime(sites=inst.iids, predictor=predictor, abstraction="fine", seed=seed,
                 randomize=randomize, record=False, filename=filename)
    loaders = rt.loaders()
    env.update(loaders)
    marks = {int(r.iid): int(r.line) for r in inst.lines}
    try:
        exec(code, env)
        holder = env
        for c in drv["class_path"]:
            holder = holder[c].__dict__ if isinstance(holder, dict) else \
                getattr(holder, c).__dict__
        cls = None
        if drv["class_path"]:
            cls = env[drv["class_path"][0]]
            for c in drv["class_path"][1:]:
                cls = getattr(cls, c)
        found, fn = _find_target(holder, filename, drv["target_first"], drv["target_def"])
        if fn is None:
            return stop("setup:TargetNotFound")
    except sandbox.Timeout:
        return stop("timeout")
    except BaseException as e:
        return stop(f"setup:{type(e).__name__}", e)
    kind = drv["kind"]
    if found in ("getter", "setter", "deleter", "static", "classmethod"):
        kind = found
    needs_self = cls is not None and kind not in ("static", "classmethod")
    # 3. the arguments: a test's call expressions, or the prefix's values and injection
    call = inp.get("call")
    obj = None
    try:
        if call:
            ns = dict(env)
            for imp in call.get("imports", ()):
                try:
                    exec(compile(imp, "<test imports>", "exec"), ns)
                except BaseException:
                    pass
            ns.update(env)
            args = [eval(compile(e, "<test call>", "eval"), ns) for e in call["args"]]
            kwargs = {k: eval(compile(e, "<test call>", "eval"), ns)
                      for k, e in call["kwargs"].items()}
            if needs_self and call.get("self"):
                obj = eval(compile(call["self"], "<test call>", "eval"), ns)
                if not isinstance(obj, cls):
                    # the test calls a method of that name on another class
                    return stop("input:OtherClass")
        else:
            inject = loaders["_n_"]

            def arg(p):
                return given[p] if p in given else inject(0, p, _absent)
            args = [arg(p) for p in drv["args"]]
            kwargs = {p: arg(p) for p in drv["kwargs"]}
        if needs_self and obj is None:
            obj = object.__new__(cls) if cls.__new__ is object.__new__ else cls.__new__(cls)
            if s_obj is not None and not isinstance(s_obj, dummies):
                try:
                    src = dict(vars(s_obj))
                except TypeError:
                    src = {}
                for a, x in src.items():
                    try:
                        obj.__dict__[a] = x
                    except (AttributeError, TypeError):
                        try:
                            object.__setattr__(obj, a, x)
                        except Exception:
                            pass
    except sandbox.Timeout:
        return stop("timeout")
    except BaseException as e:
        return stop(f"input:{type(e).__name__}", e)
    lead = [obj] if needs_self else [cls] if kind == "classmethod" else []
    res["input"] = {p: _ADDR.sub("0x?", str(snapshot(x, 0, dummies)))[:300]
                    for p, x in list(zip(drv["args"], args)) + list(kwargs.items())}
    sink = io.StringIO()
    sys.stdout = sink
    try:
        value = fn(*lead, *args, **kwargs)
        if isinstance(value, types.CoroutineType):
            import asyncio
            loop = asyncio.new_event_loop()
            try:
                value = loop.run_until_complete(value)
            finally:
                loop.close()
        if isinstance(value, types.GeneratorType):
            items = []
            for x in value:
                items.append(x)
                if len(items) >= _GEN_MAX:
                    break
            value = ("<generator>", items)
        res["outcome"] = "returned"
        res["ret"] = _ADDR.sub("0x?", repr(snapshot(value, 0, dummies)))
    except sandbox.Timeout:
        return stop("timeout")
    except BaseException as e:
        res["outcome"] = f"raised:{type(e).__name__}"
        try:
            res["message"] = _ADDR.sub("0x?", str(e))[:300]
        except BaseException:
            res["message"] = ""
        line = _line_of(e, filename)
        res["line"] = None if line is None else line - drv["offset"]
    finally:
        sys.stdout = real_out
    try:
        sandbox._disarm()
    except Exception:
        pass
    res["out"] = _ADDR.sub("0x?", sink.getvalue()[:20000])
    res["args"] = _ADDR.sub("0x?", repr([snapshot(x, 0, dummies) for x in args] +
                                        [snapshot(x, 0, dummies) for x in kwargs.values()]))
    res["self"] = _ADDR.sub("0x?", repr(snapshot(obj, 0, dummies))) if obj is not None else ""
    first, last, off = drv["target_first"], drv["target_last"], drv["offset"]
    res["reached"] = sorted({marks[i] - off for i in rt.reached()
                             if i in marks and first <= marks[i] <= last})
    res["injections"] = len(rt.injections)
    return res


# ------------------------------------------------------------------ comparison

@dataclass
class FunctionCheck:
    """The verdict for one function touched by an edit."""

    file: str
    function: str
    status: str                 # modified | added | removed | static
    verdict: str                # changed | same | unreached | exception | added | removed
    detail: str = ""
    input: Optional[dict] = None    # the distinguishing input: prefix, arguments
    old: Optional[dict] = None      # what each version did on it
    new: Optional[dict] = None
    inputs: int = 0             # inputs run
    reached: bool = False       # some input reached the changed lines
    runs: int = 0
    seconds: float = 0.0
    mode: str = ""              # module | extract
    test: bool = False

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in (
            "file", "function", "status", "verdict", "detail", "input", "old", "new",
            "inputs", "reached", "runs", "seconds", "mode", "test")}


@dataclass
class Options:
    """How a function is checked: ``predictor`` under the prefixes,
    ``seeds`` (of the injection and of the prefix generator), ``timeout``
    seconds per run, ``max_inputs`` and ``budget`` seconds per function;
    ``compare_messages``: a different exception message (same type) is a
    change too (by default it is only noted)."""

    predictor: object = "naive"
    seeds: tuple = (0,)
    timeout: float = 5.0
    max_inputs: int = 12
    budget: float = 30.0
    randomize: bool = False
    compare_messages: bool = False


@dataclass
class Input:
    prefix: str = ""
    call: Optional[dict] = None     # {"self": expr, "args": [expr], "kwargs": {}, "imports": []}
    seed: int = 0
    note: str = ""
    plan: object = None

    def key(self):
        return (self.prefix, repr(self.call), self.seed)

    def show(self) -> dict:
        d = {"note": self.note, "seed": self.seed}
        if self.prefix:
            d["prefix"] = self.prefix
        if self.call:
            d["call"] = {k: v for k, v in self.call.items() if k != "imports"}
        return d


@dataclass
class Tree:
    """A checkout of one revision (module mode): ``root`` on disk and the
    folders that are packages."""

    root: str
    packages: set = field(default_factory=set)

    def has_init(self, folder: str) -> bool:
        return folder in self.packages


class _Side:
    """One version ready to run."""

    def __init__(self, v: Version, args: list, kwargs: list, tree: Optional[Tree]):
        self.v = v
        if tree is not None:
            rel, name, pkg = module_name_of(v.path, tree.has_init)
            self.driver = module_driver(v, tree.root, rel, name, pkg) if name else \
                build_driver(v)
        else:
            self.driver = build_driver(v)
        d = self.driver
        self.spec = {"mode": d.mode, "text": d.text, "filename": d.filename,
                     "target_first": d.target_first, "target_def": d.target_def,
                     "target_last": d.target_last, "offset": d.offset,
                     "class_path": d.class_path, "kind": d.kind, "self": d.self_name,
                     "root": d.root, "module_name": d.module_name,
                     "is_package": d.is_package, "module_file": d.module_file,
                     "args": args, "kwargs": kwargs}

    def run(self, inp: Input, opts: Options) -> dict:
        out = sandbox.call_isolated(_run_case, self.spec, {"prefix": inp.prefix,
                                                           "call": inp.call},
                                    inp.seed, opts.predictor, opts.randomize,
                                    limits=sandbox.Limits(timeout=opts.timeout))
        if out.status == "ok" and isinstance(out.value, dict):
            r = out.value
            if r.get("outcome") is None:
                r["outcome"] = "crash"
            return r
        return {"outcome": {"timeout": "timeout", "memory": "memory"}.get(out.status, "crash"),
                "message": out.describe()[:300]}


def _inconclusive(r: dict) -> bool:
    o = r.get("outcome") or "crash"
    return o in ("timeout", "crash", "memory") or o.startswith(("setup:", "input:"))


def _differences(a: dict, b: dict) -> list:
    """Fields in which two runs differ (the exception message counts only as
    "message": by itself it does not make a change, see check_function)."""
    if a.get("outcome") != b.get("outcome"):
        return ["outcome"]
    out = [k for k in _FIELDS[1:] if a.get(k) != b.get(k)]
    if str(a.get("outcome")).startswith("raised:") and a.get("message") != b.get("message"):
        out.append("message")
    return out


def _describe(r: dict) -> dict:
    d = {"outcome": r.get("outcome")}
    for k in ("ret", "out", "args", "self", "message", "line"):
        if r.get(k) not in (None, ""):
            d[k] = r[k] if not isinstance(r[k], str) else r[k][:600]
    return d


def _short(s, n: int = 70) -> str:
    s = str(s).replace("\n", "\\n")
    return s if len(s) <= n else s[:n - 3] + "..."


def diff_excerpt(a: str, b: str, width: int = 60) -> tuple:
    """The part of two long strings around their first difference."""
    a, b = str(a).replace("\n", "\\n"), str(b).replace("\n", "\\n")
    if len(a) <= width and len(b) <= width:
        return a, b
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    start = max(0, i - 20)
    pre = "..." if start else ""

    def cut(s):
        part = s[start:start + width]
        return pre + part + ("..." if start + width < len(s) else "")
    return cut(a), cut(b)


def _summary_of(field_: str, a: dict, b: dict) -> str:
    if field_ == "outcome":
        x, y = diff_excerpt(_oc(a), _oc(b))
        return f"{x} -> {y}"
    x, y = diff_excerpt(a.get(field_), b.get(field_))
    return f"{_FIELD_WORDS[field_]} {x} -> {y}"


def _oc(r: dict) -> str:
    o = r.get("outcome", "")
    if o == "returned":
        return f"returns {r.get('ret')}"
    if o.startswith("raised:"):
        return f"raises {o[7:]}"
    return o


def check_function(old: Version, new: Version, *, opts: Optional[Options] = None,
                   test_inputs: Optional[list] = None, file: str = "",
                   old_tree: Optional[Tree] = None, new_tree: Optional[Tree] = None,
                   **kw) -> FunctionCheck:
    """Run both versions on the same inputs; see the module docstring.
    ``test_inputs``: :class:`Input` objects from the project's tests;
    ``old_tree``/``new_tree``: checkouts for module mode (else extract mode)."""
    opts = opts or Options(**kw)
    t0 = time.monotonic()
    fc = FunctionCheck(file or new.path, new.qualname, "modified", EXCEPTION)
    if code_dump(old.node) == code_dump(new.node) and \
            (old.cls is None) == (new.cls is None) and old.kind == new.kind:
        fc.status, fc.verdict = "static", SAME
        fc.detail = "only docstrings or annotations changed"
        return fc
    o_req, o_kw = old.params()
    n_req, n_kw = new.params()
    # positional arguments by position: the new version's names when the
    # counts agree, so a renamed parameter gets the same value in both
    o_args = n_req if len(o_req) == len(n_req) else o_req
    sig_note = "" if (o_req, o_kw) == (n_req, n_kw) else \
        f" (signature ({', '.join(o_req + o_kw)}) -> ({', '.join(n_req + n_kw)}))"

    def make(trees):
        return (_Side(old, o_args, o_kw, trees[0]), _Side(new, n_req, n_kw, trees[1]))
    module_mode = old_tree is not None and new_tree is not None
    try:
        sides = make((old_tree, new_tree) if module_mode else (None, None))
    except (ValueError, SyntaxError, IndexError) as e:
        fc.verdict, fc.detail = EXCEPTION, f"cannot build the driver: {e}"
        return fc
    fc.mode = sides[1].driver.mode
    ch_old, ch_new = changed_lines(old, new)
    source = _InputSource(old, new, ch_old, ch_new, test_inputs or [], opts)
    results: list = []          # (input, ro, rn, same?)
    reached = False
    n_inputs = 0
    last_err = None
    setup_failures = 0
    message_note = None
    while n_inputs < opts.max_inputs and time.monotonic() - t0 < opts.budget:
        inp = source.next()
        if inp is None:
            break
        n_inputs += 1
        ro = sides[0].run(inp, opts)
        rn = sides[1].run(inp, opts)
        fc.runs += 2
        if fc.mode == "module" and (str(ro["outcome"]).startswith("setup:") or
                                    str(rn["outcome"]).startswith("setup:")):
            setup_failures += 1
            if setup_failures >= 2 or not inp.call:
                # the module does not load here: the function with its context alone
                try:
                    sides = make((None, None))
                except (ValueError, SyntaxError, IndexError):
                    pass
                else:
                    fc.mode = "extract"
                    ro = sides[0].run(inp, opts)
                    rn = sides[1].run(inp, opts)
                    fc.runs += 2
        source.feedback(inp, ro, rn)
        if _inconclusive(ro) or _inconclusive(rn):
            last_err = ro if _inconclusive(ro) else rn
            results.append((inp, ro, rn, None))
            continue
        hit = bool(set(ro.get("reached", ())) & ch_old or set(rn.get("reached", ())) & ch_new
                   or (not ch_old and not ch_new))
        diff = _differences(ro, rn)
        if diff:
            ro2 = sides[0].run(inp, opts)
            rn2 = sides[1].run(inp, opts)
            fc.runs += 2
            every = set(_FIELDS) | {"message"}
            stable_o = every - set(_differences(ro, ro2)) \
                if ro2.get("outcome") == ro.get("outcome") else set()
            stable_n = every - set(_differences(rn, rn2)) \
                if rn2.get("outcome") == rn.get("outcome") else set()
            real = [k for k in diff if k in stable_o and k in stable_n]
            if real == ["message"] and not opts.compare_messages:
                # the same exception type is "same"; the message is noted
                if message_note is None:
                    message_note = _summary_of("message", ro, rn)
                real = []
            if real:
                fc.verdict = CHANGED
                fc.reached = True
                fc.detail = _summary_of(real[0], ro, rn) + sig_note
                fc.input = inp.show()
                fc.input["arguments"] = rn.get("input") or ro.get("input")
                fc.old, fc.new = _describe(ro), _describe(rn)
                results.append((inp, ro, rn, False))
                break
            # what differs differs between identical runs too: no evidence
        results.append((inp, ro, rn, True))
        if hit:
            reached = True
    fc.inputs = n_inputs
    fc.seconds = round(time.monotonic() - t0, 3)
    if fc.verdict == CHANGED:
        return fc
    conclusive = [r for r in results if r[3] is not None]
    fc.reached = reached
    if reached:
        fc.verdict = SAME
        n = len(conclusive)
        fc.detail = f"{n} input{'s' if n != 1 else ''} alike" + sig_note
        if message_note:
            fc.detail += f"; same exception type, but {message_note}"
        fc.old, fc.new = _describe(conclusive[0][1]), _describe(conclusive[0][2])
    elif conclusive:
        fc.verdict = UNREACHED
        r = conclusive[0][1]
        why = f" (e.g. {_oc(r)} at line {r.get('line')})" if \
            str(r.get("outcome", "")).startswith("raised:") else ""
        fc.detail = f"no input reached the changed lines{why}"
    else:
        fc.verdict = EXCEPTION
        if last_err is not None:
            fc.detail = f"every input ended in {last_err.get('outcome')}: " \
                f"{_short(last_err.get('message', ''), 120)}"
        else:
            fc.detail = "no input could be run"
    return fc


# ------------------------------------------------------------------ inputs

class _InputSource:
    """Inputs in order: the Treefix generator's top plan for each version,
    the test calls, the empty prefix (injection alone), the generator's
    other initial plans; error and coverage guidance whenever the changed
    lines are still unreached."""

    def __init__(self, old: Version, new: Version, ch_old: set, ch_new: set,
                 test_inputs: list, opts: Options):
        self.opts = opts
        self.queue: list = []           # initial inputs
        self.guided_queue: list = []    # from error and coverage guidance
        self.turn = 0
        self.seen: set = set()
        self.gens: list = []
        self.plans: dict = {}
        self.ch = {"old": ch_old, "new": ch_new}
        self.cov = {"old": set(), "new": set()}
        self.errors: list = []
        self.guided = 0
        self.seed0 = opts.seeds[0] if opts.seeds else 0
        props: dict = {}
        for label, v in (("new", new), ("old", old)):
            try:
                from ..prefixtree.analysis import analyze
                from ..prefixtree.offline import OfflineGenerator
                facts = analyze(facts_source(v))
                gen = OfflineGenerator(seed=self.seed0)
                props[label] = gen.initial(facts, 8)
                self.gens.append((label, facts, gen))
            except Exception:         # an analysis failure costs only these inputs
                props.setdefault(label, [])
        tests = list(test_inputs)
        for t in tests[:2]:
            self._add(t)
        for label in ("new", "old"):
            for p in props.get(label, [])[:1]:
                self._add(Input(p.prefix, None, self.seed0, f"treefix ({label}): {p.note}",
                                p.plan))
        for t in tests[2:]:
            self._add(t)
        self._add(Input("", None, self.seed0, "injection alone"))
        a, b = props.get("new", [])[1:], props.get("old", [])[1:]
        for i in range(max(len(a), len(b))):
            for label, lst in (("new", a), ("old", b)):
                if i < len(lst):
                    self._add(Input(lst[i].prefix, None, self.seed0,
                                    f"treefix ({label}): {lst[i].note}", lst[i].plan))
        for s in opts.seeds[1:]:
            for label in ("new", "old"):
                for p in props.get(label, [])[:1]:
                    self._add(Input(p.prefix, None, s, f"treefix ({label}), seed {s}", p.plan))

    def _add(self, inp: Input, guided: bool = False) -> None:
        k = inp.key()
        if k in self.seen:
            return
        self.seen.add(k)
        if inp.plan is not None:
            self.plans.setdefault(inp.prefix, inp.plan)
        (self.guided_queue if guided else self.queue).append(inp)

    def feedback(self, inp: Input, ro: dict, rn: dict) -> None:
        self.cov["old"].update(ro.get("reached", ()))
        self.cov["new"].update(rn.get("reached", ()))
        if inp.call:
            return
        for label, r in (("old", ro), ("new", rn)):
            if str(r.get("outcome", "")).startswith("raised:") and r.get("line"):
                self.errors.append((label, inp.prefix, r))

    def _reached(self) -> bool:
        return bool(self.cov["old"] & self.ch["old"] or self.cov["new"] & self.ch["new"])

    def next(self) -> Optional[Input]:
        """The first four initial inputs, then guided and initial ones in
        turn (guidance only while the changed lines are unreached, or when
        nothing else is left)."""
        self.turn += 1
        if self.turn > 4 and not self.guided_queue and (not self._reached() or
                                                        not self.queue):
            self._guide()
        if self.guided_queue and (self.turn > 4 and self.turn % 2 == 1 or not self.queue):
            return self.guided_queue.pop(0)
        if self.queue:
            return self.queue.pop(0)
        return self.guided_queue.pop(0) if self.guided_queue else None

    def _guide(self) -> None:
        """Error guidance for the last failures, coverage guidance for the
        changed lines not reached yet; the new prefixes go first."""
        self.guided += 1
        if self.guided > 8:
            return
        new_items = []
        for label, facts, gen in self.gens:
            for _, prefix, r in [e for e in self.errors if e[0] == label][-2:]:
                err = {"type": r["outcome"][7:], "message": r.get("message", ""),
                       "line": r.get("line"), "where": "snippet"}
                try:
                    for p in gen.repair(facts, self.plans.get(prefix), err, 2):
                        new_items.append(Input(p.prefix, None, self.seed0,
                                               f"error guidance ({err['type']}, {label})",
                                               p.plan))
                except Exception:          # a generator failure costs only its advice
                    pass
            unc = sorted(self.ch[label] - self.cov[label])
            if unc:
                bases = [pl for pl in list(self.plans.values())[:2] if pl is not None]
                try:
                    for p in gen.guide(facts, unc, bases, 2):
                        new_items.append(Input(p.prefix, None, self.seed0,
                                               f"coverage guidance ({label})", p.plan))
                except Exception:
                    pass
        self.errors.clear()
        for inp in new_items:
            self._add(inp, guided=True)
