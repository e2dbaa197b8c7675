"""Execution traces of (incomplete) code in the CodeExecutor format.

    <line> 4 <state> h : 3 ; w : 7 ; n : 10 ; i : 0
    <output> 2

One ``<line>`` entry per executed line, written once the line has finished,
with the state *after* it: the user variables of the frame the line belongs
to, in the order they were first assigned.  What a line prints comes as
``<output>`` entries just before that line's entry.  A run that ends with an
exception gets a last ``<exception> Type: message`` entry (our addition to
the format).

How: the file is instrumented (missing names, attributes and call results
are injected as for ``lexecutor_c.run``) and executed with ``sys.settrace``
in a sandbox child.  Line events come from the frames of the traced file
only: the module, functions, methods and class bodies it defines
(comprehensions, lambdas and the instrumenter's thunks are part of the line
that holds them).  Lines inside a function are traced too; their state is
that call's local variables, and since a line's entry is written when the
line has finished, the body's lines come before the line that called the
function.  The module-level state also lists the names that were injected
at module level (missing names the code reads), with the value injected.

The state leaves out loaders, dunder names, modules, functions, classes and
the import sentinel of failed imports.  Values are ``repr``-like: injected
objects read ``<Dummy name>``, ``<DummyResource name>``,
``<injected callable name>``; objects without their own ``__repr__`` read
``<ClassName object>`` (no addresses, so traces are reproducible).
"""
from __future__ import annotations

import ast
import builtins
import io
import re
import sys
import types
from dataclasses import asdict, dataclass, field
from typing import Optional

from ..engine import sandbox

__all__ = ["TraceResult", "trace", "format_trace", "show_value"]

#: line entries after which the program is stopped
MAX_STEPS = 10_000
#: characters of one value's text
VALUE_MAX = 200

_CO_OPTIMIZED = 0x0001                  # set for function code, not for module or class bodies
_LOADERS = frozenset({"_n_", "_a_", "_c_", "_l_", "_i_"})
_INJECTED_RE = re.compile(r"<(Dummy|DummyResource|injected callable) '([^'<>]*)'>")


@dataclass
class TraceResult:
    """``entries``: dicts ``{"kind": "line", "line", "frame", "state": [[name, text], ...]}``,
    ``{"kind": "output", "text"}`` or ``{"kind": "exception", "type", "message", "line"}``.
    ``status``: ok, exit, exception, timeout, crashed (as Result.status);
    ``truncated``: the step limit stopped the program."""

    filename: str
    status: str
    entries: list = field(default_factory=list)
    exception: Optional[dict] = None
    injections: list = field(default_factory=list)
    truncated: bool = False
    exit_code: Optional[int] = None
    error: Optional[str] = None
    stderr: str = ""

    def text(self) -> str:
        return format_trace(self.entries)

    def to_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------- values

def _injected_type(t: type) -> bool:
    return t.__module__ == "lexecutor_c._core" and t.__name__ in ("Dummy", "DummyResource")


def show_value(v, depth: int = 0) -> str:
    """A readable, address-free text for a value (see the module docstring)."""
    s = _show(v, depth)
    return s if len(s) <= VALUE_MAX else s[:VALUE_MAX - 3] + "..."


def _show(v, depth: int) -> str:
    t = type(v)
    if _injected_type(t):
        return _INJECTED_RE.sub(r"<\1 \2>", repr(v))
    if v is None or t in (bool, int, float, complex, str, bytes, range):
        return repr(v)
    if t in (list, tuple, set, frozenset, dict):
        if depth >= 3:
            return "[...]" if t is list else "(...)" if t is tuple else "{...}"
        items = list(v.items()) if t is dict else list(v)
        more = len(items) > 20
        items = items[:20]
        if t is dict:
            parts = [f"{_show(k, depth + 1)}: {_show(x, depth + 1)}" for k, x in items]
        else:
            parts = [_show(x, depth + 1) for x in items]
        if more:
            parts.append("...")
        body = ", ".join(parts)
        if t is list:
            return f"[{body}]"
        if t is tuple:
            return f"({body},)" if len(parts) == 1 and not more else f"({body})"
        if t is dict:
            return "{" + body + "}"
        if not parts:
            return "set()" if t is set else "frozenset()"
        return "{" + body + "}" if t is set else "frozenset({" + body + "})"
    try:
        if type(v).__repr__ is object.__repr__:
            return f"<{t.__name__} object>"
        return repr(v)
    except BaseException:
        return f"<{t.__name__} object>"


def _show_injected_repr(text: str) -> str:
    return _INJECTED_RE.sub(r"<\1 \2>", text)


def _is_state_value(name: str, v) -> bool:
    if name in _LOADERS or (name.startswith("__") and name.endswith("__")):
        return False
    if isinstance(v, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                      types.MethodType, type)):
        return False
    from .. import _core
    return v is not _core.MISSING


# ---------------------------------------------------------------- text

def format_trace(entries: list) -> str:
    out = []
    for e in entries:
        if e["kind"] == "line":
            state = " ; ".join(f"{n} : {v}" for n, v in e["state"])
            out.append(f"<line> {e['line']} <state> {state}".rstrip())
        elif e["kind"] == "output":
            out.append(f"<output> {e['text']}".rstrip(" "))
        elif e["kind"] == "exception":
            out.append(f"<exception> {e['type']}: {e['message']}".rstrip())
    return "".join(line + "\n" for line in out)


# ---------------------------------------------------------------- lines

def statement_starts(text: str) -> dict[int, int]:
    """line -> first line of the statement it continues (only for lines that
    continue a multi-line statement or compound-statement header)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    out: dict[int, int] = {}

    def visit(stmts):
        for s in stmts:
            bodies = [getattr(s, a) for a in ("body", "orelse", "finalbody", "handlers", "cases")
                      if isinstance(getattr(s, a, None), list) and getattr(s, a)]
            if bodies:
                first = min(b[0].lineno for b in bodies if hasattr(b[0], "lineno"))
                end = max(s.lineno, first - 1)
            else:
                end = s.end_lineno or s.lineno
            for ln in range(s.lineno + 1, end + 1):
                out[ln] = s.lineno
            for b in bodies:
                for x in b:
                    if isinstance(x, ast.stmt):
                        visit([x])
                    else:                       # except handlers, match cases
                        visit(getattr(x, "body", []))
    visit(tree.body)
    return out


class _Stop(BaseException):
    """Raised into the traced program when the step limit is reached."""


class _Capture(io.TextIOBase):
    def __init__(self):
        self.parts: list[str] = []

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        self.parts.append(s)
        return len(s)

    def take(self) -> str:
        s = "".join(self.parts)
        self.parts.clear()
        return s


class _Tracer:
    def __init__(self, filename: str, code, rt, starts: dict, max_steps: int,
                 capture: _Capture):
        self.filename = filename
        self.code = code
        self.module_key: Optional[int] = None
        self.rt = rt
        self.starts = starts
        self.max_steps = max_steps
        self.capture = capture
        self.entries: list[dict] = []
        self.pending: dict[int, tuple] = {}     # id(frame) -> (line, raw line)
        self.order: dict[int, dict] = {}        # id(frame) -> name -> None (ordered)
        self.injected: dict[str, str] = {}
        self.seen_injections = 0
        self.steps = 0
        self.truncated = False

    # sys.settrace hook: pick the frames of the traced file
    def global_trace(self, frame, event, arg):
        code = frame.f_code
        if code.co_filename != self.filename:
            return None
        if code.co_name.startswith("<") and code.co_name != "<module>":
            return None
        if code is self.code and self.module_key is None:
            self.module_key = id(frame)
        self.order.setdefault(id(frame), {})
        return self.local_trace

    def local_trace(self, frame, event, arg):
        key = id(frame)
        if event == "line":
            raw = frame.f_lineno
            code = frame.f_code
            if raw == code.co_firstlineno and code is not self.code and \
                    not code.co_flags & _CO_OPTIMIZED:
                return self.local_trace        # a class body's header line
            line = self.starts.get(raw, raw)
            prev = self.pending.get(key)
            if prev is not None and prev[0] == line and (raw != line or prev[1] != line):
                self.pending[key] = (line, raw)          # continuation of the same statement
                return self.local_trace
            if prev is not None:
                self.emit(frame, prev[0])
            self.pending[key] = (line, raw)
        elif event == "return":
            prev = self.pending.pop(key, None)
            if prev is not None:
                self.emit(frame, prev[0])
            if key != self.module_key:
                self.order.pop(key, None)
        return self.local_trace

    def flush_output(self):
        text = self.capture.take()
        if not text:
            return
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        for ln in lines:
            self.entries.append({"kind": "output", "text": ln})

    def emit(self, frame, line: int):
        self.flush_output()
        module = id(frame) == self.module_key
        if module:
            self._note_injections()
            ns = frame.f_globals
        else:
            ns = frame.f_locals
        order = self.order.setdefault(id(frame), {})
        for name, v in list(ns.items()):
            if name not in order and _is_state_value(name, v):
                order[name] = None
        state = []
        for name in order:
            if name in ns:
                v = ns[name]
                if _is_state_value(name, v):
                    state.append([name, show_value(v)])
            elif module and name in self.injected:
                state.append([name, self.injected[name]])
        self.entries.append({"kind": "line", "line": line, "frame": frame.f_code.co_qualname,
                             "state": state})
        self.steps += 1
        if self.steps >= self.max_steps:
            self.truncated = True
            raise _Stop()

    def _note_injections(self):
        inj = self.rt.injections
        order = self.order.setdefault(self.module_key, {})
        for rec in inj[self.seen_injections:]:
            _iid, kind, name, _line, _cls, value = rec
            if kind == "name" and name and name not in self.injected:
                self.injected[name] = _show_injected_repr(str(value))
                order.setdefault(name, None)
        self.seen_injections = len(inj)


def _trace_child(text: str, filename: str, opts: dict, in_child: bool) -> dict:
    from .._core import Runtime
    from ..engine import run as api
    from ..engine.instrument import instrument
    try:
        inst = instrument(text, filename=filename)
        code = inst.compile()
    except SyntaxError as e:
        return {"kind": "syntax", "msg": str(e.msg), "lineno": e.lineno, "offset": e.offset,
                "text": e.text, "filename": e.filename or filename}
    except ValueError as e:
        return {"kind": "source", "message": str(e)}
    rt = Runtime(sites=inst.iids, predictor=opts["predictor"], abstraction=opts["abstraction"],
                 seed=opts["seed"], randomize=opts["randomize"], record=False,
                 filename=filename)
    env = {"__name__": "__main__", "__builtins__": builtins, "__file__": filename}
    env.update(rt.loaders())
    capture = _Capture()
    tracer = _Tracer(filename, code, rt, statement_starts(text), opts["max_steps"], capture)
    status, exception, exit_code = "ok", None, None
    saved_out = sys.stdout
    sys.stdout = capture
    try:
        sys.settrace(tracer.global_trace)
        try:
            exec(code, env)
        finally:
            sys.settrace(None)
    except _Stop:
        status = "truncated"
    except SystemExit as e:
        status = "exit"
        exit_code = 0 if e.code is None else e.code if isinstance(e.code, int) else 1
    except sandbox.Timeout:
        status = "timeout"
    except BaseException as e:
        status = "exception"
        exception = {"type": api._type_name(type(e)), "message": api._safe_str(e),
                     "line": api._exception_line(e, filename)}
    finally:
        sys.stdout = saved_out
        if in_child:
            sandbox._disarm()
    # lines still pending (a frame left by an exception has had its return event)
    tracer.flush_output()
    if exception is not None:
        tracer.entries.append({"kind": "exception", **exception})
    injections = [{"iid": int(i), "kind": str(k), "name": None if n is None else str(n),
                   "line": None if ln is None else int(ln), "cls": str(c), "value": str(v)}
                  for (i, k, n, ln, c, v) in rt.injections]
    env.clear()
    return {"kind": "done", "status": status, "exception": exception,
            "entries": tracer.entries, "injections": injections,
            "truncated": tracer.truncated, "exit_code": exit_code}


def trace(source_or_path, *, stdin=None, predictor: str = "naive", abstraction: str = "fine",
          seed: Optional[int] = None,
          randomize: bool = False, timeout: Optional[float] = 10.0, isolate: bool = True,
          filename: Optional[str] = None, max_steps: int = MAX_STEPS,
          allow_missing=()) -> TraceResult:
    """Trace a file or snippet (see the module docstring).  Raises like
    ``lexecutor_c.run`` for unreadable, undecodable or unparsable input."""
    from ..engine import run as api
    if predictor not in api.PREDICTORS:
        raise ValueError(f"unknown predictor {predictor!r}")
    if not isinstance(max_steps, int) or max_steps < 1:
        raise ValueError("max_steps must be a positive int")
    text, filename = api.load_source(source_or_path, filename)
    if isinstance(stdin, str):
        stdin = stdin.encode()
    if abstraction not in api.ABSTRACTIONS:
        raise ValueError(f"unknown abstraction {abstraction!r}")
    opts = {"predictor": predictor, "abstraction": abstraction, "seed": seed, "randomize": bool(randomize),
            "max_steps": max_steps}
    if isolate:
        out = sandbox.call_isolated(_trace_child, text, filename, opts, True,
                                    limits=sandbox.Limits(timeout=timeout,
                                                          allow_missing=allow_missing),
                                    stdin=stdin)
        if out.status != "ok" or not isinstance(out.value, dict):
            status = "timeout" if out.status == "timeout" else \
                "memory" if out.status == "memory" else "crashed"
            return TraceResult(filename, status, error=out.describe(),
                               stderr=out.stderr.decode("utf-8", "replace"))
        report = out.value
        stderr = out.stderr.decode("utf-8", "replace")
    else:
        saved_in = sys.stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
        try:
            report = _trace_child(text, filename, opts, False)
        finally:
            sys.stdin = saved_in
        stderr = ""
    api._raise_for(report)
    status = report["status"]
    return TraceResult(filename, "ok" if status == "truncated" else status,
                       entries=report["entries"], exception=report["exception"],
                       injections=report["injections"], truncated=report["truncated"],
                       exit_code=report["exit_code"], stderr=stderr)
