"""Is a test that failed under transparent mode a real failure, or one that only follows
from values lexecutor_c made up?  (``pytest --lexecute``'s verdicts, docs/TRANSPARENT.md.)

The analysis is the one ``lexecutor-c errors`` applies to a crash (engine/taint.py), run
on the traceback of the test's exception while its frames are still alive:

* every traceback entry whose frame ran an instrumented twin gives an *operation*: the
  instruction that raised (the innermost twin entry), or the call that led further in (an
  outer one), with its operands;
* an operand is *injected* when a loader inside it injected in this test (or while the
  modules were imported), when its value is an injected object (a ``Dummy``, or a
  container holding one), or when the file's names it reads are computed from injected
  names (the flow-insensitive closure of engine/taint.py's ``Dependence``, seeded with the
  names injected in that file, the targets of the statements where an attribute or a call
  result was injected, and the test's parameters that got a Dummy for a missing fixture);
* a frame of code that did not run instrumented (a library) below the innermost twin
  holding an injected object in its locals, or an exception message that shows one, is
  an injected value reaching the failure as well.

Verdicts:

``made-up``
    an operand of the failing operation, or an argument of a call on the way to it, is
    injected (the report names the injected value), or the exception shows one;
``real``
    the failing operation was found and none of that holds, or nothing at all was injected
    for the test;
``unknown``
    the failing operation could not be found in instrumented code while values were
    injected (the failure is in code that ran as it is and no injected object reached it
    visibly), or a missing name or module the injection did not cover
    (``NameError``, ``ImportError``).

The static half over-approximates (a name once computed from an injected value stays
flagged), which turns some real failures into ``made-up`` rather than the reverse.  Not
seen: injected values that reach the failure only through a function's return value or
through object attributes set elsewhere, when they are not ``Dummy`` objects; with the
default ``naive`` predictor every injected value is a ``Dummy`` and is seen by value.
"""
from __future__ import annotations

import ast
import linecache
from dataclasses import dataclass, field
from typing import Iterable, Optional

from ..engine.taint import Dependence, is_injected_value, operation_at

REAL, MADE_UP, UNKNOWN = "real", "made-up", "unknown"
VERDICTS = (REAL, MADE_UP, UNKNOWN)
_MISSING_TYPES = ("NameError", "UnboundLocalError", "ImportError", "ModuleNotFoundError")
#: text that shows an injected object in an exception message
_DUMMY_MARKS = ("<Dummy", "Dummy'", "Dummy object", "_core.Dummy", "DummyResource",
                "<injected callable")


@dataclass
class Verdict:
    verdict: str                      # real / made-up / unknown
    why: str                          # one line for people
    file: Optional[str] = None        # where the failing operation is (a file's own lines)
    line: Optional[int] = None
    operation: Optional[str] = None   # the failing operation as written
    injected: list = field(default_factory=list)   # the injected values it follows from

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "why": self.why, "file": self.file,
                "line": self.line, "operation": self.operation, "injected": self.injected}


def _describe(inj) -> str:
    """``name`` / ``.attr`` / ``f()`` with where and what: ``.get at proj/x.py:6 ->
    <Dummy ...>``."""
    kind, name = inj.kind, inj.name or "?"
    label = "." + name if kind == "attribute" else name + "()" if kind == "call" else name
    return f"{label} ({kind} at {inj.file}:{inj.line} -> {inj.value})"


_DEPS: dict = {}


def _dependence(filename: str) -> Optional[Dependence]:
    """The name closure of a file's own source (cached per source text)."""
    lines = linecache.getlines(filename)
    if not lines:
        return None
    source = "".join(lines)
    key = (filename, hash(source))
    if key not in _DEPS:
        try:
            tree = ast.parse(source, filename)
        except (SyntaxError, ValueError, RecursionError):
            tree = None
        if len(_DEPS) > 512:
            _DEPS.clear()
        _DEPS[key] = Dependence(tree) if tree is not None else None
    return _DEPS[key]


def _seeds(dep: Dependence, injections: Iterable, extra: Iterable[str]) -> dict:
    """name -> {source labels} for one file's injections."""
    out: dict = {}
    for i in injections:
        if not i.name:
            continue
        label = _describe(i)
        if i.kind == "name":
            out.setdefault(i.name, set()).add(label)
        elif i.line:
            stmt = dep.statement_at(i.line)
            if stmt is not None:
                for t in dep.assigned(stmt):
                    out.setdefault(t, set()).add(label)
    for n in extra:
        out.setdefault(n, set()).add(f"{n} (missing fixture -> Dummy)")
    return out


def _frames_hold_injected(frame) -> bool:
    try:
        values = list(frame.f_locals.values())
    except Exception:
        return False
    for v in values[:200]:
        try:
            if is_injected_value(v):
                return True
        except Exception:
            continue
    return False


def _resolve(expr: ast.AST, scope: dict):
    """The value of a chain of names and attributes (``mod.fn``, ``self.m``) in *scope*,
    read with getattr_static where possible; None when it is anything else."""
    import inspect
    if isinstance(expr, ast.Name):
        return scope.get(expr.id)
    if isinstance(expr, ast.Attribute):
        base = _resolve(expr.value, scope)
        if base is None:
            return None
        try:
            v = inspect.getattr_static(base, expr.attr)
        except AttributeError:
            return None
        if isinstance(v, (staticmethod, classmethod)):
            v = v.__func__
        return v
    return None


def _code_of(obj):
    import types
    if isinstance(obj, type):
        obj = obj.__dict__.get("__init__") or obj.__dict__.get("__new__")
    obj = getattr(obj, "__func__", obj)
    try:
        import inspect
        obj = inspect.unwrap(obj)
    except Exception:
        pass
    code = getattr(obj, "__code__", None)
    if code is None and obj is not None and callable(obj) and \
            not isinstance(obj, (types.BuiltinFunctionType, types.MethodWrapperType)):
        call = getattr(type(obj), "__call__", None)      # a callable instance
        code = getattr(call, "__code__", None)
    return code if isinstance(code, types.CodeType) else None


def _code_range(code) -> tuple:
    lines = [code.co_firstlineno]
    stack = [code]
    while stack:
        c = stack.pop()
        lines.extend(ln for _, _, ln in c.co_lines() if ln is not None)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_lines"))
    return min(lines), max(lines)


def _called_with_injections(texts: Iterable[str], frame, during: list) -> list:
    """Injections of this test made inside the functions the expressions *texts* call
    (resolved in *frame*: ``mod.fn(...)``, ``self.m(...)``, ``Cls(...)``)."""
    if not during:
        return []
    try:
        scope = {**frame.f_globals, **frame.f_locals}
    except Exception:
        return []
    out = []
    seen = set()
    for text in texts:
        try:
            tree = ast.parse(text, mode="eval")
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            code = _code_of(_resolve(node.func, scope))
            if code is None or id(code) in seen:
                continue
            seen.add(id(code))
            lo, hi = _code_range(code)
            same_file = []
            for i in during:
                if i.file == code.co_filename and i.line is not None:
                    if lo <= i.line <= hi:
                        out.append(f"{_describe(i)}, in {code.co_name}() called by "
                                   f"{ast.unparse(node.func)}(...)")
                    else:
                        same_file.append(i)
            if same_file and not out:
                # made up in the callee's module while it ran (a function it called there)
                out.extend(f"{_describe(i)}, in the module of {code.co_name}() called by "
                           f"{ast.unparse(node.func)}(...)" for i in same_file[:3])
    return out


def _assigning(dep: Optional[Dependence], names: set, line: int) -> list:
    """The right-hand sides (as text) of the file's assignments to *names* before *line*."""
    if dep is None or not names:
        return []
    out = []
    for node in ast.walk(dep.tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and \
                node.value is not None and node.lineno < line:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if bound & names:
                try:
                    out.append(ast.unparse(node.value))
                except Exception:
                    pass
    return out


#: the attribute a function or class built without an injected decorator carries
#: (integrations/hook.py's DROPPED; repeated here so that judge() needs no hook)
DROPPED = "__lexecutor_c_dropped__"


def _dropped_decorators(entries) -> list:
    """Objects in the traceback's frames that were built without a decorator that was an
    injected value (``@six.add_metaclass(M)`` with six missing: a class without its
    metaclass), or are instances of such classes: ``[(what, decorators)]``."""
    import inspect
    out = []
    seen: set = set()
    for e in entries:
        try:
            values = list(e.tb_frame.f_locals.items())[:200]
        except Exception:
            continue
        expanded = []
        for name, v in values:
            expanded.append((name, v))
            # one level in: what a weak reference, a datetime's tzinfo or an instance's
            # attributes hold
            try:
                import weakref
                if isinstance(v, weakref.ref):
                    expanded.append((name + "()", v()))
                tzinfo = getattr(v, "tzinfo", None) if type(v).__module__ == "datetime" \
                    else None
                if tzinfo is not None:
                    expanded.append((name + ".tzinfo", tzinfo))
                d = inspect.getattr_static(v, "__dict__", None)
                if isinstance(d, dict):
                    expanded.extend((f"{name}.{k}", x) for k, x in list(d.items())[:20])
            except Exception:
                pass
        for name, v in expanded:
            if v is None:
                continue
            for owner in ((v, type(v)) if isinstance(v, type) or callable(v) else (type(v),)):
                try:
                    dropped = inspect.getattr_static(owner, DROPPED, None)
                except Exception:
                    dropped = None
                if dropped and id(owner) not in seen:
                    seen.add(id(owner))
                    label = getattr(owner, "__qualname__", name)
                    out.append((f"{name} ({label})", list(dropped)))
    return out


def judge(exc: BaseException, injections: list, dummy_fixtures: Iterable[str] = (),
          instrumented_for=None, relpath=lambda f: f,
          injected_results: Optional[dict] = None, during: Optional[list] = None) -> Verdict:
    """The verdict of a test's exception (module docstring).  *injections*: the
    ``hook.Injection`` records of this test and of the imports before it;
    *instrumented_for*: code object -> its ``Instrumented`` or None (``hook.instrumented_for``);
    *relpath*: how a file is shown; *injected_results*: file -> iids of calls known to
    have returned an injected object (optional: a caller that tracks them); *during*: the injections
    made while the test ran (a subset of *injections*)."""
    returned = injected_results or {}
    fixtures = list(dummy_fixtures)
    typ = type(exc).__name__
    try:
        message = str(exc)
    except Exception:
        message = ""
    by_file: dict = {}
    for i in injections:
        by_file.setdefault(i.file, []).append(i)
    nothing_injected = not injections and not fixtures
    if typ == "Failed" and message.startswith("DID NOT RAISE"):
        # pytest.raises: the exception the test expects did not come; an injected value
        # stands where code would have raised
        if during:
            return Verdict(MADE_UP, "the exception pytest.raises expects did not come while "
                           "values were injected (an injected value replaces what raised)",
                           *_where_tb(_entries(exc), relpath),
                           injected=[_describe(i) for i in during[:3]])
        if nothing_injected:
            return Verdict(REAL, "nothing was injected for this test",
                           *_where_tb(_entries(exc), relpath))
    if any(m in message for m in _DUMMY_MARKS):
        return Verdict(MADE_UP, f"the {typ} message shows an injected value",
                       injected=[_describe(i) for i in injections[:3]] or fixtures[:3])
    entries = []
    tb = exc.__traceback__
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    twin_at = [k for k, e in enumerate(entries)
               if instrumented_for is not None and instrumented_for(e.tb_frame.f_code) is not None]
    if twin_at:
        inner = twin_at[-1]
        for e in entries[inner + 1:]:
            if _frames_hold_injected(e.tb_frame):
                f = e.tb_frame.f_code
                return Verdict(MADE_UP, f"an injected value reached {f.co_name} "
                               f"({relpath(f.co_filename)}), where the {typ} was raised",
                               injected=[_describe(i) for i in injections[:3]] or fixtures[:3])
    first_op = None
    for depth, k in enumerate(reversed(twin_at)):
        e = entries[k]
        code = e.tb_frame.f_code
        inst = instrumented_for(code)
        try:
            op = operation_at(e, inst)
        except Exception:
            op = None
        if op is None:
            continue
        filename = code.co_filename
        if first_op is None:
            first_op = (filename, op)
        file_inj = by_file.get(filename, [])
        by_iid = {i.iid: i for i in file_inj}
        found: list = []
        names: set = set()
        file_returned = returned.get(filename, ())
        for o in op["operands"]:
            for iid in o["iids"]:
                if iid in by_iid:
                    found.append(_describe(by_iid[iid]))
                elif iid in file_returned:
                    found.append(f"{o['text']} (a call in it returned an injected value)")
            if o["injected_value"]:
                found.append(f"{o['text']} (holds an injected value)")
            names.update(o["names"])
        if not found and names:
            dep = _dependence(filename)
            if dep is not None:
                params = fixtures if code.co_name.startswith("test") else ()
                seeds = _seeds(dep, file_inj, params)
                if seeds:
                    for src, via in dep.sources_of(names, seeds).items():
                        found.append(f"{src}, through {', '.join(via)}")
        if not found and depth == 0 and during:
            # a value made up inside a function the operation (or the assignment of its
            # names) called, which came back as something other than a Dummy
            texts = [o["text"] for o in op["operands"]]
            texts += _assigning(_dependence(filename), names, op["line"])
            found = _called_with_injections(texts, e.tb_frame, during)
        if found:
            what = "the failing operation" if depth == 0 else \
                f"the call in {code.co_name} that led to it"
            return Verdict(MADE_UP, f"{what} uses an injected value", relpath(filename),
                           op["line"], op["text"], sorted(set(found))[:5])
    dropped = _dropped_decorators(entries)
    if dropped:
        what, decorators = dropped[0]
        return Verdict(MADE_UP, f"{what} was built without its decorator "
                       f"{', '.join(decorators)}, an injected value",
                       *(_where(first_op, relpath)),
                       injected=[f"{w}: {', '.join(d)} (decorator left out)"
                                 for w, d in dropped[:3]])
    if typ in _MISSING_TYPES and not nothing_injected:
        return Verdict(UNKNOWN, f"{typ}: a missing name or module the injection did not cover",
                       *(_where(first_op, relpath)))
    if first_op is not None and _compares_tracebacks(entries, first_op):
        return Verdict(UNKNOWN, "the test compares traceback text, which code run "
                       "instrumented prints differently (caret lines: its columns are the "
                       "instrumented text's)", *(_where(first_op, relpath)))
    if first_op is not None:
        why = "nothing was injected for this test" if nothing_injected else \
            "no operand of the failing operation comes from an injected value"
        return Verdict(REAL, why, *(_where(first_op, relpath)))
    if nothing_injected and not any(_frames_hold_injected(e.tb_frame) for e in entries):
        return Verdict(REAL, "nothing was injected for this test",
                       *_where_tb(entries, relpath))
    return Verdict(UNKNOWN, "the failure is in code that ran as it is (not instrumented), "
                   "after values were injected", *_where_tb(entries, relpath))


_TRACEBACK_TEXT = ("Traceback (most recent call last)", '\n  File "')


def _compares_tracebacks(entries, first_op) -> bool:
    """Whether an operand of the failing operation (a name in its frame, or the text of
    the operation itself) is traceback text."""
    filename, op = first_op
    for e in reversed(entries):
        if e.tb_frame.f_code.co_filename != filename:
            continue
        try:
            scope = {**e.tb_frame.f_globals, **e.tb_frame.f_locals}
        except Exception:
            return False
        texts = [op.get("text") or ""]
        for o in op["operands"]:
            texts.extend(str(scope[n]) for n in o["names"]
                         if isinstance(scope.get(n), str))
        return any(marker in t for t in texts for marker in _TRACEBACK_TEXT)
    return False


def _entries(exc) -> list:
    out = []
    tb = exc.__traceback__
    while tb is not None:
        out.append(tb)
        tb = tb.tb_next
    return out


def _where(first_op, relpath) -> tuple[Optional[str], Optional[int], Optional[str]]:
    if first_op is None:
        return (None, None, None)
    filename, op = first_op
    return (relpath(filename), op["line"], op["text"])


def _where_tb(entries, relpath) -> tuple[Optional[str], Optional[int], Optional[str]]:
    if not entries:
        return (None, None, None)
    e = entries[-1]
    return (relpath(e.tb_frame.f_code.co_filename), e.tb_lineno, None)


def decorator_injections(fn, injections: list) -> list:
    """Injections made on the decorator lines of a test function
    (``@pytest.mark.xfail(not six.PY2, ...)`` with six missing): the test's markers, its
    parametrization or its decorators were built from injected values."""
    import inspect
    try:
        fn = inspect.unwrap(fn)
    except Exception:
        pass
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    dep = _dependence(code.co_filename)
    if dep is None:
        return []
    for node in ast.walk(dep.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name == code.co_name and node.decorator_list and \
                node.decorator_list[0].lineno <= code.co_firstlineno <= node.lineno:
            lo, hi = node.decorator_list[0].lineno, node.lineno - 1
            return [i for i in injections if i.file == code.co_filename and
                    i.line is not None and lo <= i.line <= hi]
    return []

