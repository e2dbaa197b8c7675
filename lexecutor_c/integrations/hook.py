"""Transparent mode: run chosen functions, modules or files as their
instrumented twins without rewriting anything (docs/TRANSPARENT.md).

    import lexecutor_c.integrations.hook as hook      # also lexecutor_c.hook
    with hook.enable([my_function, "mypkg.util", "scripts/job.py"]) as s:
        my_function(1, 2)                 # runs instrumented, values injected
    s.injections, s.coverage

    r = lexecutor_c.call(f, 1, x=2)       # CallResult(value, injections, exception, coverage)

    @lexecutor_c.lexecute                 # every call returns a CallResult
    def g(): ...

The C side (csrc/transparent/evalframe.c) asks :func:`_resolve` once per code object
and generation whether a frame is a target; everything here runs with the
hook switched off for the running thread.
"""
from __future__ import annotations

import fnmatch
import functools
import inspect
import itertools
import linecache
import os
import sys
import threading
from dataclasses import dataclass, field
from types import CodeType, FunctionType, MethodType, ModuleType
from typing import Any, Callable, Iterable, NamedTuple, Optional, ParamSpec, overload

from .. import _core
from ..engine.result import coverage_fields, lines_ran

__all__ = [
    "enable", "disable", "session", "Session", "Injection", "CallResult", "call", "lexecute",
    "paused", "current", "info", "LOADERS",
]

LOADERS = ("_n_", "_a_", "_c_", "_l_", "_i_", "_w_", "_f_", "_op_")
#: the decorator guard of respect_handlers_of (a Python function, not one of the Runtime's)
_DEC = "_dec_"
_NAMES = LOADERS + (_DEC,)
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep   # lexecutor_c/
_ABSENT = object()
_ABSENT_IMPORT = object()     # a module imported on the code's behalf: removed again
_lock = threading.RLock()


# ------------------------------------------------------------ twin cache

class _Compiled:
    """One instrumented file: the renamed module code and an index of every
    code object in it by (qualname, first line)."""

    def __init__(self, key: int, filename: str, inst):
        self.key = key
        self.filename = filename
        self.inst = inst
        self.names = {name: f"_lx{key}{name}" for name in _NAMES}
        self.code = _rename(inst.compile(filename), self.names)
        self.index: dict[tuple, list] = {}
        for c in _walk(self.code):
            self.index.setdefault((c.co_qualname, c.co_firstlineno), []).append(c)
            _TWINS[id(c)] = c
            _TWIN_FILE[id(c)] = self

    def find(self, code: CodeType) -> Optional[CodeType]:
        """The twin of an original code object, or None (not found, ambiguous,
        or its parameters differ)."""
        cands = [c for c in self.index.get((code.co_qualname, code.co_firstlineno), ())
                 if _same_signature(c, code)]
        return cands[0] if len(cands) == 1 else None


_TWINS: dict[int, CodeType] = {}           # id -> every twin code object ever made (kept alive)
_COMPILED: dict[tuple, _Compiled] = {}     # (filename, source) -> _Compiled
_TWIN_FILE: dict[int, _Compiled] = {}      # id of a twin code object -> its file


def twin_codes(filename: str, qualname: str) -> list:
    """The twin code objects of *filename* (any compiled version of it) whose qualname is
    *qualname*."""
    real = _real(filename)
    out = []
    for key, compiled in list(_COMPILED.items()):
        f = key[0]
        if f == filename or _real(f) == real:
            for (q, _line), codes in compiled.index.items():
                if q == qualname:
                    out.extend(codes)
    return out


def decorators_of(filename: str, code) -> list:
    """The decorators of the function whose (twin) code object is *code*, as written."""
    import ast
    lines = linecache.getlines(filename)
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name == code.co_name and node.decorator_list and \
                node.decorator_list[0].lineno <= code.co_firstlineno <= node.lineno:
            return ["@" + ast.unparse(d) for d in node.decorator_list]
    return []


def instrumented_for(code) -> Optional[Any]:
    """The ``Instrumented`` (source, iids, line map) a twin code object was compiled from,
    or None when *code* is no twin (it ran as it is)."""
    if _TWINS.get(id(code)) is not code:
        return None
    compiled = _TWIN_FILE.get(id(code))
    return None if compiled is None else compiled.inst
_keys = itertools.count(1)


def _walk(code: CodeType):
    yield code
    for c in code.co_consts:
        if isinstance(c, CodeType):
            yield from _walk(c)


def _rename(code: CodeType, names: dict) -> CodeType:
    consts = tuple(_rename(c, names) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_consts=consts, co_names=tuple(names.get(n, n) for n in code.co_names))


_SIG_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def _same_signature(a: CodeType, b: CodeType) -> bool:
    n = a.co_argcount + a.co_kwonlyargcount + bool(a.co_flags & inspect.CO_VARARGS) + \
        bool(a.co_flags & inspect.CO_VARKEYWORDS)
    return (a.co_name == b.co_name and a.co_argcount == b.co_argcount
            and a.co_posonlyargcount == b.co_posonlyargcount
            and a.co_kwonlyargcount == b.co_kwonlyargcount
            and (a.co_flags & _SIG_FLAGS) == (b.co_flags & _SIG_FLAGS)
            and a.co_varnames[:n] == b.co_varnames[:n])


def _compiled_for(filename: str, globals_: dict, respect_handlers: bool = False) -> _Compiled:
    """Instrument the source of *filename* (as linecache has it: files,
    IPython cells, modules with a loader).  Raises LookupError when there is
    no source, SyntaxError when it does not instrument.  *respect_handlers*: names and
    attributes read inside a ``try`` whose handlers catch what their absence raises are
    left as they are (:func:`respect_handlers`)."""
    lines = linecache.getlines(filename, globals_ if isinstance(globals_, dict) else None)
    if not lines:
        raise LookupError(f"no source for {filename}")
    source = "".join(lines)
    key = (filename, source) if not respect_handlers else (filename, source, "handlers")
    found = _COMPILED.get(key)
    if found is None:
        from ..engine.instrument import instrument
        inst = _keep_leading_blank_lines(source, instrument(source, filename=filename))
        if respect_handlers:
            inst = respect_handlers_of(inst)
        found = _Compiled(next(_keys), filename, inst)
        _COMPILED[key] = found
    return found


#: handler types that catch a missing attribute / a missing name (a bare except catches all)
_CATCH_ATTRIBUTE = frozenset({"AttributeError", "Exception", "BaseException"})
_CATCH_NAME = frozenset({"NameError", "Exception", "BaseException"})


def _caught(try_node) -> set:
    """The exception class names a try statement's handlers name; {"*"} for a bare
    except."""
    out: set = set()
    for h in getattr(try_node, "handlers", ()):
        t = h.type
        if t is None:
            return {"*"}
        for e in (t.elts if hasattr(t, "elts") else [t]):
            name = getattr(e, "id", None) or getattr(e, "attr", None)
            if name:
                out.add(name)
    return out


def respect_handlers_of(inst):
    """EAFP code (``try: x = obj.attr`` / ``except AttributeError: ...``) relies on the
    exception a missing attribute or name raises; an injected value would skip the
    handler.  In the body of a ``try`` whose handlers catch AttributeError (NameError),
    ``Exception``, ``BaseException`` or everything, attribute reads ``_a_(i, X, "a")``
    (name reads ``_n_(i, "n")``) become plain ``(X).a`` (``n``) again; code in functions
    defined there is not touched (it runs later, outside the try).  Decorators ``@X``
    become ``@_dec_(X)`` (:func:`_decorator_guard`: an injected decorator is left out).
    Lines keep their numbers; the returned Instrumented has the edited source."""
    import ast
    import dataclasses
    try:
        tree = ast.parse(inst.source)
    except (SyntaxError, ValueError, RecursionError):
        return inst
    edits: list = []          # (start line, start col, end line, end col, replacement)
    try_types: tuple = (ast.Try,) + ((getattr(ast, "TryStar"),) if hasattr(ast, "TryStar")
                                     else ())

    def loader(node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int):
            return node.func.id
        return None

    def visit(node: Any, attrs: bool, names: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                # zero-width inserts sort before replacements at the same place
                edits.append((d.lineno, d.col_offset, d.lineno, d.col_offset, "_dec_(", 0))
                edits.append((d.end_lineno, d.end_col_offset, d.end_lineno, d.end_col_offset,
                              ")", 0))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            for d in getattr(node, "decorator_list", ()):
                visit(d, attrs, names)      # evaluated where the def is
            for field_name, value in ast.iter_fields(node):
                if field_name == "decorator_list":
                    continue
                for child in (value if isinstance(value, list) else [value]):
                    if isinstance(child, ast.AST):
                        visit(child, False, False)
            return
        kind = loader(node) if (attrs or names) else None
        if kind == "_a_" and attrs and len(node.args) == 3 and not node.keywords and \
                isinstance(node.args[2], ast.Constant) and isinstance(node.args[2].value, str) \
                and node.args[2].value.isidentifier():
            x = node.args[1]
            edits.append((node.lineno, node.col_offset, x.lineno, x.col_offset, "(", 1))
            edits.append((x.end_lineno, x.end_col_offset, node.end_lineno, node.end_col_offset,
                          ")." + node.args[2].value, 1))
        elif kind == "_n_" and names and len(node.args) == 2 and \
                isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) \
                and node.args[1].value.isidentifier():
            edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset,
                          node.args[1].value, 1))
            return
        if isinstance(node, try_types):
            caught = _caught(node)
            body_attrs = attrs or "*" in caught or bool(caught & _CATCH_ATTRIBUTE)
            body_names = names or "*" in caught or bool(caught & _CATCH_NAME)
            for child in node.body:
                visit(child, body_attrs, body_names)
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                visit(child, attrs, names)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, attrs, names)

    visit(tree, False, False)
    if not edits:
        return inst
    lines = inst.source.encode("utf-8").splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))
    data = bytearray(inst.source.encode("utf-8"))
    for sl, sc, el, ec, text, _ in sorted(edits, key=lambda e: (e[0], e[1], e[5]),
                                          reverse=True):
        a, b = starts[sl - 1] + sc, starts[el - 1] + ec
        data[a:b] = text.encode("utf-8")
    source = data.decode("utf-8")
    try:
        ast.parse(source)
    except SyntaxError:
        return inst
    return dataclasses.replace(inst, source=source)


def _leading_blank(text: str) -> int:
    n = 0
    for line in text.splitlines():
        if line.strip():
            break
        n += 1
    return n


def _keep_leading_blank_lines(source: str, inst):
    """Work around the instrumenter dropping blank lines before the first
    statement (tests/findings/leading_blank_line.py on branch checks): its
    line tables are right, the text is short of those lines."""
    lost = _leading_blank(source) - _leading_blank(inst.source)
    if lost > 0:
        import dataclasses
        fix = inst.line_map
        if fix is not None:
            fix = list(range(1, lost + 1)) + [line + lost for line in fix]
        inst = dataclasses.replace(inst, source="\n" * lost + inst.source, line_map=fix)
    return inst


_passthrough_rt = None


def _passthrough(loader: str):
    """Loaders of an "as-is" runtime: twins that outlive their session behave
    like the original code (missing values raise as they would)."""
    global _passthrough_rt
    if loader == _DEC:
        return _decorator_guard
    if _passthrough_rt is None:
        _passthrough_rt = _core.Runtime(predictor="as-is", filename="<after lexecutor_c session>")
    return _passthrough_rt.loaders()[loader]


# ------------------------------------------------------------ targets

_realpaths: dict[str, str] = {}


def _real(path: str) -> str:
    r = _realpaths.get(path)
    if r is None:
        r = _realpaths[path] = os.path.realpath(path) if not path.startswith("<") else path
    return r


def _unwrap_callable(obj):
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, MethodType):
        obj = obj.__func__
    if isinstance(obj, functools.partial):
        obj = obj.func
    try:
        obj = inspect.unwrap(obj)
    except ValueError:
        pass
    return obj


def _code_lines(code: CodeType) -> tuple[int, int]:
    lines = [ln for c in _walk(code) for _, _, ln in c.co_lines() if ln is not None]
    lines.append(code.co_firstlineno)
    return min(lines), max(lines)


_ENV_DIRS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


class Targets:
    """What is a target: code objects (functions, methods, classes' methods,
    with their nested code), files, directories (every file under them that
    is not installed there: site-packages / dist-packages, e.g. a .venv or a
    .tox inside a project), module names and module-name patterns."""

    def __init__(self, targets):
        self.codes: dict[int, CodeType] = {}
        self.files: set[str] = set()
        self.dirs: list[str] = []                # real paths, each ending in os.sep
        self.modules: set[str] = set()
        self.patterns: list[str] = []
        self.ranges: dict[str, list] = {}        # filename -> [(lo, hi)], or None: whole file
        if targets is None:
            targets = ()
        if isinstance(targets, (str, os.PathLike, ModuleType, CodeType)) or callable(targets) \
                or isinstance(targets, (staticmethod, classmethod)):
            targets = (targets,)
        for t in targets:
            self.add(t)

    def add(self, t) -> None:
        if isinstance(t, ModuleType):
            self.modules.add(t.__name__)
            f = getattr(t, "__file__", None)
            if f:
                self.files.add(_real(f))
                self.ranges[f] = None
            return
        if isinstance(t, os.PathLike) or (isinstance(t, str) and (
                t.endswith(".py") or os.sep in t or t.startswith("<"))):
            p = os.fspath(t)
            if not p.startswith("<") and os.path.isdir(p):
                d = os.path.join(_real(p), "")
                if d not in self.dirs:
                    self.dirs.append(d)
                return
            self.files.add(_real(p))
            self.ranges[p] = None
            return
        if isinstance(t, str):
            if not t:
                raise ValueError("empty target name")
            if any(ch in t for ch in "*?["):
                self.patterns.append(t)
            else:
                self.modules.add(t)
            return
        if isinstance(t, type):
            for v in vars(t).values():
                v = _unwrap_callable(v)
                if isinstance(v, (FunctionType, type)) and v is not t:
                    self.add(v)
            return
        if isinstance(t, CodeType):
            code = t
        else:
            fn = _unwrap_callable(t)
            code = getattr(fn, "__code__", None)
            if not isinstance(code, CodeType):
                raise TypeError(f"cannot make {t!r} a target: not a Python function, class, "
                                "module, module name or file")
        for c in _walk(code):
            self.codes[id(c)] = c
        r = self.ranges.setdefault(code.co_filename, [])
        if r is not None:
            r.append(_code_lines(code))

    def __bool__(self) -> bool:
        return bool(self.codes or self.files or self.dirs or self.modules or self.patterns)

    def in_dirs(self, filename: str) -> bool:
        """Whether a file lies under a directory target (and not in an
        installed-packages folder under it)."""
        real = _real(filename)
        return any(real.startswith(d) and not any(e in real[len(d) - 1:] for e in _ENV_DIRS)
                   for d in self.dirs)

    def module_match(self, name) -> bool:
        if not isinstance(name, str):
            return False
        if name in self.modules or any(name.startswith(m + ".") for m in self.modules):
            return True
        return any(fnmatch.fnmatchcase(name, p) for p in self.patterns)

    def match(self, code: CodeType, globals_) -> Optional[bool]:
        """True (whole file), False (not a target) or None (a code target)."""
        if self.codes.get(id(code)) is code:
            return None
        fn = code.co_filename
        if self.files and _real(fn) in self.files:
            return True
        if self.dirs and not fn.startswith("<") and self.in_dirs(fn):
            return True
        if (self.modules or self.patterns) and isinstance(globals_, dict) \
                and self.module_match(globals_.get("__name__")) \
                and not _foreign_source(fn, globals_):
            return True
        return False


def _empty_file(filename: str) -> bool:
    """An empty file (an empty __init__.py): nothing to instrument, nothing to note."""
    try:
        return os.path.getsize(filename) == 0
    except (OSError, ValueError):
        return False


def _foreign_source(filename: str, globals_: dict) -> bool:
    """Code compiled from a string in a module's namespace (a doctest example, an exec)
    rather than from the module's file: not the module's code.  A doctest example runs
    in mode "single", whose expression statements echo their value; a twin would not."""
    own = globals_.get("__file__")
    return filename.startswith("<") and isinstance(own, str) and not own.startswith("<")


# ------------------------------------------------------------ sessions

class Injection(NamedTuple):
    """One injected value: where, what kind of use, the name, the abstract
    class the predictor chose and the repr of the value."""
    file: str
    line: Optional[int]
    kind: str
    name: str
    cls: str
    value: str
    iid: int


DROPPED = "__lexecutor_c_dropped__"


def _decorator_guard(decorator):
    """``@_dec_(X)``: X itself, unless X is an injected object (a missing plugin's
    ``@freeze_time(...)``, ``@six.add_metaclass(M)``): then the function or class stays
    undecorated, and says so in its ``__lexecutor_c_dropped__`` attribute (the reprs of
    the decorators left out) where it can carry one."""
    if type(decorator) is not _core.Dummy and type(decorator).__name__ != "DummyResource":
        return decorator
    text = repr(decorator)

    def dropped(obj):
        try:
            setattr(obj, DROPPED, tuple(getattr(obj, DROPPED, ())) + (text,))
        except (AttributeError, TypeError):
            pass
        return obj
    return dropped


class _FileRun:
    def __init__(self, session: "Session", compiled: _Compiled):
        self.compiled = compiled
        opts = session.options
        self.runtime = _core.Runtime(sites=compiled.inst.iids, filename=compiled.filename, **opts)
        loaders = self.runtime.loaders()
        loaders = dict(loaders)
        loaders[_DEC] = _decorator_guard
        self.loaders = {compiled.names[n]: loaders[n] for n in _NAMES}
        self.probe_key = compiled.names["_l_"]
        self.probe_value = self.loaders[self.probe_key]
        self.prepare = functools.partial(session._prepare, self)


class Session:
    """A set of targets and the runtimes their twins use.

    Use as a context manager, or call :meth:`enable` / :meth:`disable`.
    Sessions nest: a code object that several enabled sessions target runs
    with the innermost one's runtime; disabling a session leaves the others
    on.
    """

    def __init__(self, targets, *, predictor="naive", abstraction="fine", seed=None,
                 randomize=False, frequency_table=None, respect_handlers=False,
                 import_missing=False):
        self.targets = targets if isinstance(targets, Targets) else Targets(targets)
        self.respect_handlers = bool(respect_handlers)
        #: import_missing: a missing name of a target file that is an installed module
        #: (engine/autoimport.py) is imported into the file's globals before its twin runs
        #: (and removed again by disable()); ``imported`` lists what was done, per file
        self.import_missing = bool(import_missing)
        self.imported: list[dict] = []
        self._imported_into: set = set()
        self.options = {"predictor": predictor, "abstraction": abstraction, "seed": seed,
                        "randomize": randomize}
        if frequency_table is not None:
            self.options["frequency_table"] = frequency_table
        # fail early on bad options, with the runtime's own message
        _core.Runtime(**self.options)
        self.files: dict[str, _FileRun] = {}
        self.notes: list[str] = []           # targets that could not be substituted, and why
        self.hook_error: Optional[BaseException] = None
        self.restored_hook = True
        self._whole: set[str] = set()
        self._saved: list[tuple] = []        # (globals, name, previous value or _ABSENT)
        self._seen_globals: dict[tuple, bool] = {}
        self._noted: set = set()
        self.active = False

    # -- the resolver side (runs with the hook off for this thread)

    def _note(self, key, msg: str) -> None:
        if key not in self._noted:
            self._noted.add(key)
            self.notes.append(msg)

    def _resolve(self, func, code: CodeType, globals_):
        if _TWINS.get(id(code)) is code or code.co_filename.startswith(_PKG_DIR):
            return None
        how = self.targets.match(code, globals_)
        if how is False:
            return None
        filename = code.co_filename
        try:
            run = self._file(filename, globals_)
        except (LookupError, SyntaxError, ValueError, RecursionError) as e:
            if not (isinstance(e, LookupError) and _empty_file(filename)):
                self._note(filename, f"{filename}: not instrumented ({type(e).__name__}: {e})")
            return None
        if how:
            self._whole.add(filename)
        twin = run.compiled.find(code)
        if twin is None:
            self._note((filename, code.co_qualname, code.co_firstlineno),
                       f"{filename}:{code.co_firstlineno}: no unique twin for {code.co_qualname}")
            return None
        cellmap = None
        if twin.co_freevars != code.co_freevars:
            cellmap = tuple(code.co_freevars.index(n) if n in code.co_freevars else -1
                            for n in twin.co_freevars)
        return (twin, cellmap, run.probe_key, run.probe_value, run.prepare)

    def _file(self, filename: str, globals_) -> _FileRun:
        run = self.files.get(filename)
        if run is None:
            run = self.files[filename] = _FileRun(
                self, _compiled_for(filename, globals_, self.respect_handlers))
        return run

    def _prepare(self, run: _FileRun, globals_: dict) -> None:
        if self.import_missing and (id(globals_), run.compiled.filename) not in self._imported_into:
            self._imported_into.add((id(globals_), run.compiled.filename))
            self._import_missing(run, globals_)
        for name, loader in run.loaders.items():
            k = (id(globals_), name)
            if k not in self._seen_globals:
                self._seen_globals[k] = True
                self._saved.append((globals_, name, globals_.get(name, _ABSENT)))
            globals_[name] = loader

    def _import_missing(self, run: _FileRun, globals_: dict) -> None:
        from ..engine.autoimport import import_missing
        before = set(globals_)
        try:
            records = import_missing(run.compiled.inst.undefined, globals_)
        except Exception as e:          # never costs the test: the names stay injected
            self._note(("import", run.compiled.filename),
                       f"{run.compiled.filename}: missing modules not imported ({e!r})")
            return
        for m in records:
            if m.get("imported") and m["name"] not in before:
                self._saved.append((globals_, m["name"], _ABSENT_IMPORT))
            self.imported.append({**m, "file": run.compiled.filename})

    # -- switching

    def enable(self) -> "Session":
        with _lock:
            if self.active:
                return self
            if self in _stack:
                raise RuntimeError("a session cannot be re-entered")
            _stack.append(self)
            try:
                _core._hook_install(_resolve)
            except BaseException:
                _stack.remove(self)
                if _stack:          # the interrupted session keeps the hook
                    _core._hook_invalidate()
                raise
            self.active = True
        return self

    def disable(self) -> None:
        with _lock:
            if not self.active:
                return
            state = _core._hook_info()
            if state["failed"]:
                self.hook_error = state["last_error"]
            _stack.remove(self)
            self.active = False
            if _stack:
                _core._hook_install(_resolve)
            else:
                self.restored_hook = _core._hook_uninstall()
            for g, name, old in reversed(self._saved):
                if old is _ABSENT_IMPORT:
                    g.pop(name, None)       # a module imported on the code's behalf
                else:
                    g[name] = _passthrough(name[name.index("_", 3):]) if old is _ABSENT else old
            self._saved.clear()
            self._seen_globals.clear()
            self._imported_into.clear()

    def __enter__(self) -> "Session":
        return self.enable()

    def __exit__(self, *exc) -> None:
        self.disable()

    def reset(self) -> None:
        """Start a new run: injections, coverage and failed imports start
        empty (each missing name is predicted afresh)."""
        for run in self.files.values():
            run.runtime.reset()

    # -- results

    @property
    def injections(self) -> list[Injection]:
        out = []
        for filename, run in self.files.items():
            for iid, kind, name, line, cls, value in run.runtime.injections:
                out.append(Injection(filename, line, kind, name, cls, value, iid))
        return out

    @property
    def failed_imports(self) -> list[tuple]:
        return [(f, *rec) for f, run in self.files.items() for rec in run.runtime.failed_imports]

    @property
    def coverage(self) -> dict[str, dict]:
        """filename -> coverage of the target code in it (the whole file for
        file and module targets, else the lines of the target functions)."""
        out = {}
        for filename, run in self.files.items():
            ranges = None if filename in self._whole else self.targets.ranges.get(filename)
            lines = [(int(li.line), int(li.iid)) for li in run.compiled.inst.lines
                     if ranges is None or any(lo <= li.line <= hi for lo, hi in ranges)]
            out[filename] = coverage_fields(lines, set(run.runtime.reached()))
        return out

    def lines_ran(self, filename: str, exception_line: Optional[int] = None):
        """Which of the target lines of ``filename`` ran, as a person counts
        them (lexecutor_c.engine.result.LinesRan: ``.ran``, ``.skipped``,
        ``.text``); None for a file the session did not run."""
        c = self.coverage.get(filename)
        if c is None:
            return None
        source = "".join(linecache.getlines(filename))
        return lines_ran(source, c["covered"], c["uncovered"],
                         injected_lines=[i.line for i in self.injections if i.file == filename],
                         exception_line=exception_line)

    def summary(self) -> str:
        parts = []
        for f in self.coverage:
            parts.append(f"{f}: {self.lines_ran(f).text}")
        return "; ".join(parts) + f"; {len(self.injections)} injections"

    def __repr__(self) -> str:
        return f"<lexecutor_c.hook.Session {'active' if self.active else 'inactive'}: " \
               f"{len(self.files)} files, {len(self.injections)} injections>"


_stack: list[Session] = []


def _resolve(func, code, globals_):
    """The C hook's resolver: the innermost session that targets the code
    object decides."""
    for s in reversed(_stack):
        r = s._resolve(func, code, globals_)
        if r is not None:
            return r
    return None


def enable(targets, **options) -> Session:
    """Start transparent mode for *targets* (functions, methods, classes,
    modules or module names, ``fnmatch`` patterns of module names, file paths,
    directories)
    and return the :class:`Session`, already enabled; ``with`` it, or call
    :func:`disable`.  Options are the Runtime's: predictor, abstraction,
    seed, randomize, frequency_table."""
    return Session(targets, **options).enable()


session = enable


def current() -> Optional[Session]:
    """The innermost enabled session, or None."""
    return _stack[-1] if _stack else None


def disable(s: Optional[Session] = None) -> Optional[Session]:
    """Disable *s* (default: the innermost enabled session) and return it."""
    s = s if s is not None else current()
    if s is not None:
        s.disable()
    return s


def info() -> dict:
    """The C hook's state (installed, active, failed, generation, ...)."""
    return _core._hook_info()


class paused:
    """``with hook.paused(): ...`` runs its block with the hook off for the
    current thread (for a tool's own code)."""

    def __enter__(self):
        self._old = _core._hook_thread_off(True)
        return self

    def __exit__(self, *exc):
        _core._hook_thread_off(self._old)


# ------------------------------------------------------------ call / lexecute

@dataclass
class CallResult:
    """What :func:`call` and :func:`lexecute` return: the function's value
    (None when it raised), the injections, the exception it raised (None when
    it returned), and the coverage of the function's lines."""
    value: Any
    injections: list
    exception: Optional[BaseException]
    coverage: dict
    failed_imports: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    #: which of the function's lines ran, in words ("3 of the 4 lines ran
    #: (line 7, the raise, was skipped)")
    what_ran: str = ""

    @property
    def ok(self) -> bool:
        return self.exception is None

    def unwrap(self):
        """The value, or raise the exception."""
        if self.exception is not None:
            raise self.exception
        return self.value


def line_in(exc: Optional[BaseException], filename: str) -> Optional[int]:
    """The last line of ``filename`` in ``exc``'s traceback (where it was raised there), if
    any."""
    line = None
    tb = getattr(exc, "__traceback__", None)
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _call(options: dict, func, args, kwargs) -> CallResult:
    target = _unwrap_callable(func)
    if not isinstance(getattr(target, "__code__", None), CodeType):
        raise TypeError(f"lexecutor_c.call() needs a Python function, not {type(func).__name__}")
    s = Session([target], **options)
    value = exc = None
    with s:
        try:
            value = func(*args, **kwargs)
        except (Exception, SystemExit) as e:
            exc = e
    filename = target.__code__.co_filename
    cov = s.coverage.get(filename) or coverage_fields([], set())
    lr = s.lines_ran(filename, exception_line=line_in(exc, filename))
    return CallResult(value, s.injections, exc, cov, s.failed_imports, s.notes,
                      lr.text if lr is not None else "")


_P = ParamSpec("_P")


def call(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> CallResult:
    """Call ``func(*args, **kwargs)`` with the function (and functions nested
    in it) running instrumented, the naive predictor injecting missing
    values; returns a :class:`CallResult`.  For other predictors use
    ``lexecute(predictor=...)(func)(*args)``."""
    return _call({}, func, args, kwargs)


@overload
def lexecute(func: Callable[_P, Any], /) -> Callable[_P, CallResult]: ...


@overload
def lexecute(func: None = None, /, **options: Any
             ) -> Callable[[Callable[_P, Any]], Callable[_P, CallResult]]: ...


def lexecute(func: Optional[Callable[_P, Any]] = None, /, **options: Any) -> Any:
    """Decorator: every call of the function runs in transparent mode and
    returns a :class:`CallResult`.  ``@lexecute`` or
    ``@lexecute(predictor="random", seed=3)``."""
    if func is None:
        Session([], **options)    # validate the options now
        return functools.partial(lexecute, **options)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> CallResult:
        return _call(options, func, args, kwargs)

    wrapper.lexecute_options = dict(options)   # type: ignore[attr-defined]
    return wrapper
