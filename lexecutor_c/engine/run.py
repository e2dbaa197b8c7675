"""lexecutor_c.run(): instrument a file or snippet (engine/instrument.py), execute it with
value injection (``_core.Runtime``), in the sandbox (engine/sandbox.py) by default, and
return a Result (engine/result.py).
"""
from __future__ import annotations

import ast
import builtins
import importlib
import io
import os
import sys
import time
import tokenize
from typing import Any, Callable, Iterable, Optional, Union

from .._core import Runtime
from . import sandbox
from . import journal
from .instrument import instrument
from .autoimport import import_missing
from .result import Result, coverage_fields, lines_ran

__all__ = [
    "run", "load_source", "LExecutorError", "SourceError", "BackendUnavailable", "PREDICTORS",
    "ABSTRACTIONS",
]

PREDICTORS = ("as-is", "naive", "random", "frequency", "neural")
CO_COROUTINE = 0x0080           # inspect.CO_COROUTINE, without importing inspect
ABSTRACTIONS = ("fine", "coarse")

#: bytes of stdout/stderr a Result keeps by default
OUTPUT_MAX = 1 << 20


class LExecutorError(Exception):
    """Base class of the errors lexecutor_c.run() raises itself."""


class SourceError(LExecutorError, ValueError):
    """The input cannot be read as Python source (not valid in its encoding,
    NUL bytes, a bad coding declaration)."""


class BackendUnavailable(LExecutorError, RuntimeError):
    """Kept for the public API; no longer raised (the instrumenter and the runtime are
    always part of the build)."""


# ---------------------------------------------------------------- input

def load_source(source_or_path: Union[str, bytes, os.PathLike],
                filename: Optional[str] = None) -> tuple[str, str]:
    """(text, filename) for run()'s first argument: a pathlib.Path or other
    os.PathLike, a str naming an existing file, or else source as str/bytes.
    Bytes are decoded as Python does (PEP 263 coding declaration, UTF-8 BOM,
    else UTF-8).  Raises OSError subclasses for unreadable files and
    SourceError for undecodable content."""
    data: Union[str, bytes]
    if isinstance(source_or_path, os.PathLike):
        path = os.fspath(source_or_path)
        data = _read(path)
        filename = filename or str(path)
    elif isinstance(source_or_path, str):
        if _looks_like_path(source_or_path):
            data = _read(source_or_path)
            filename = filename or source_or_path
        else:
            data = source_or_path
            filename = filename or "<snippet>"
    elif isinstance(source_or_path, (bytes, bytearray, memoryview)):
        data = bytes(source_or_path)
        filename = filename or "<snippet>"
    else:
        raise TypeError("run() takes source (str or bytes) or a path (str or os.PathLike), "
                        f"not {type(source_or_path).__name__}")
    text = _decode(data, filename) if isinstance(data, bytes) else data
    if "\0" in text:
        raise SourceError(f"{filename}: source contains NUL bytes (binary file?)")
    return text, filename


def _looks_like_path(s: str) -> bool:
    if not s or "\n" in s or "\0" in s or len(s) > 4096:
        return False
    try:
        return os.path.exists(s)
    except (OSError, ValueError):
        return False


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _decode(data: bytes, filename: str) -> str:
    problem = None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        # a bad or unknown coding declaration, or the first lines are not UTF-8
        problem = str(e.msg if getattr(e, "msg", None) else e)
        if "unknown encoding" in problem:
            enc = problem.split(":")[-1].strip()
            raise SourceError(f"{filename}: unknown encoding {enc!r} in its coding "
                              "declaration") from None
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
        if problem is not None:
            raise SourceError(f"{filename}: {problem}")
        return text
    except UnicodeDecodeError as e:
        bad = data[e.start:e.start + 1]
        line = data.count(b"\n", 0, e.start) + 1
        name = "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
        raise SourceError(f"{filename}: not valid {name} (byte 0x{bad.hex()} at offset "
                          f"{e.start}, line {line}); is it a Python source file?") from None
    except LookupError:
        raise SourceError(f"{filename}: unknown encoding {encoding!r} in its coding "
                          "declaration") from None


# ---------------------------------------------------------------- execution

class _HardExit(BaseException):
    """os._exit() called by executed code inside the sandbox child: turned
    into an exception so the coverage reached so far is still reported."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


def _exception_line(exc: BaseException, filename: str) -> Optional[int]:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is None and isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    return line


def _type_name(t: type) -> str:
    if t.__module__ in ("builtins", "__main__"):
        return t.__qualname__
    return f"{t.__module__}.{t.__qualname__}"


def _safe_str(obj) -> str:
    try:
        return str(obj)
    except BaseException:
        return f"<unprintable {type(obj).__name__}>"



_FREQUENCY_TABLE = None


def _shipped_frequency_table():
    """lexecutor_c/model/frequency.json.gz (docs/MODEL.md), loaded once; None
    when the package has none (the predictor then always answers object)."""
    global _FREQUENCY_TABLE
    if _FREQUENCY_TABLE is None:
        from .runtime import load_frequency_table
        try:
            _FREQUENCY_TABLE = load_frequency_table()
        except FileNotFoundError:
            return None
    return _FREQUENCY_TABLE


def _execute(text: str, filename: str, opts: dict, in_child: bool, shared=None) -> dict:
    """Instrument, run and collect; returns plain data.  Runs in the sandbox
    child (in_child) or in-process.  ``shared``: the run journal, memory shared with the
    parent (lexecutor_c.engine.journal) where the runtime keeps its markers
    and injections, for a run that dies before it can report."""
    try:
        inst = instrument(text, filename=filename)
        try:
            code = inst.compile()
        except SyntaxError as e:
            # `await` / `async for` at top level (code torn out of a coroutine):
            # run it as a coroutine, like asyncio's REPL does
            if "outside" not in str(e.msg) or "async" not in str(e.msg) + str(e.text) \
                    and "await" not in str(e.msg):
                raise
            code = inst.compile(flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as e:
        return {"kind": "syntax", "msg": _safe_str(e.msg), "lineno": e.lineno,
                "offset": e.offset, "text": e.text, "filename": e.filename or filename}
    except ValueError as e:       # e.g. compile() on NUL bytes
        return {"kind": "source", "message": _safe_str(e)}
    lines = [(int(r.line), int(r.iid)) for r in inst.lines]
    if in_child:
        # if this process dies from here on, the parent still knows the markers
        sandbox.report_progress({"lines": lines})
    extra = {}
    if opts.get("frequency_table") is not None:
        extra["frequency_table"] = opts["frequency_table"]
    elif opts["predictor"] == "frequency":      # the table shipped in the package
        extra["frequency_table"] = _shipped_frequency_table()
    rt = Runtime(sites=inst.iids, predictor=_predictor_for_run(opts["predictor"], text, inst),
                 abstraction=opts["abstraction"],
                 seed=opts["seed"], randomize=opts["randomize"], record=False, filename=filename,
                 **extra)
    if shared is not None:
        rt.attach_journal(shared)
    env = {"__name__": "__main__", "__builtins__": builtins, "__file__": filename}
    env.update(rt.loaders())
    imported: list = []
    if opts.get("import_missing"):
        # confined like the code: this runs in the sandbox child
        try:
            imported = import_missing(inst.undefined, env)
        except Exception as e:      # never stops the run; reported
            imported = [{"name": "?", "module": "?", "imported": False,
                         "reason": f"internal error: {type(e).__name__}: {_safe_str(e)}"}]
    status, exception, exit_code = "ok", None, None
    real_exit = os._exit
    if in_child:
        def _exit(code):
            raise _HardExit(code)
        os._exit = _exit
    try:
        if code.co_flags & CO_COROUTINE:
            import asyncio      # only for code that awaits at top level
            asyncio.run(eval(code, env))
        else:
            exec(code, env)
    except SystemExit as e:
        status = "exit"
        c = e.code
        if c is None:
            exit_code = 0
        elif isinstance(c, int):
            exit_code = int(c)
        else:
            exit_code = 1
            print(_safe_str(c), file=sys.stderr)
    except _HardExit as e:
        status, exit_code = "exit", e.code
    except MemoryError as e:
        status = "memory"
        exception = {"type": "MemoryError", "message": _safe_str(e),
                     "line": _exception_line(e, filename)}
    except sandbox.Timeout as e:
        status = "timeout"
        exception = None
        del e
    except BaseException as e:
        status = "exception"
        exception = {"type": _type_name(type(e)), "message": _safe_str(e),
                     "line": _exception_line(e, filename)}
    finally:
        os._exit = real_exit
        if in_child:
            sandbox._disarm()     # no soft timeout while collecting
    env.clear()
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except BaseException:
            pass
    reached = set(rt.reached())
    out = {"kind": "done", "status": status, "exception": exception, "exit_code": exit_code,
           "imported_modules": [{k: (v if isinstance(v, bool) else str(v))
                                 for k, v in m.items()} for m in imported]}
    out.update(coverage_fields(lines, reached))
    out["injections"] = [
        {"iid": int(i), "kind": str(k), "name": None if n is None else str(n),
         "line": None if ln is None else int(ln), "cls": str(c), "value": str(v)}
        for (i, k, n, ln, c, v) in rt.injections]
    out["failed_imports"] = [
        {"iid": int(i), "module": str(m),
         "names": n if n is None or isinstance(n, str) else [str(x) for x in n]}
        for (i, m, n) in rt.failed_imports]
    return out


class _BoundedText(io.TextIOBase):
    """stdout/stderr stand-in for isolate=False: keeps the first ``limit``
    characters."""

    def __init__(self, limit: int):
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.truncated = False

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        room = self.limit - self.kept
        if len(s) > room:
            self.truncated = True
            s_kept = s[:max(room, 0)]
        else:
            s_kept = s
        if s_kept:
            self.parts.append(s_kept)
            self.kept += len(s_kept)
        return len(s)

    def getvalue(self):
        return "".join(self.parts)


#: named predictors that the C runtime resolves to a Python object
#: (csrc/runtime/predict.c); run() prepares them before the sandbox forks
_NAMED_PREDICTOR_MODULES = {"neural": "lexecutor_c.model.neural"}


def _named_predictor(predictor):
    """The object behind a named predictor that the C runtime resolves in
    Python ("neural"), else ``predictor`` itself."""
    if isinstance(predictor, str):
        mod = _NAMED_PREDICTOR_MODULES.get(predictor)
        if mod is None:
            return predictor
        # resolved by name like the C runtime does: the engine layer does not
        # import the model layer (pyproject.toml [tool.importlinter])
        return importlib.import_module(mod).runtime_predictor()
    return predictor


def _predictor_for_run(predictor, text: str, inst):
    """A predictor with ``for_run(source, sites)`` gets to see the whole
    snippet: the run uses what that returns (docs/RUNTIME.md)."""
    obj = _named_predictor(predictor)
    bind = getattr(obj, "for_run", None)
    if callable(bind) and not isinstance(obj, str):
        return bind(text, inst.iids)
    return predictor


def prepare_predictor(predictor) -> None:
    """Load what a predictor needs once, in this process, so that every
    sandbox child forked afterwards inherits it instead of loading it again:
    for ``"neural"`` the LibTorch shim and the model (a second or more per
    child otherwise).  A callable predictor with a ``prepare()`` method gets
    it called.  A predictor that cannot prepare (no torch, no model file) is
    left alone: the run reports the error from the child as before."""
    predictor = _named_predictor(predictor)
    prepare = getattr(predictor, "prepare", None)
    if callable(prepare):
        try:
            prepare()
        except Exception:         # reported by the run itself, with its context
            pass


def _load_frequency_table(path=None) -> dict:
    """The frequency predictor's table: from ``path``, else the shipped one."""
    from .runtime import load_frequency_table
    return load_frequency_table(path)


# The runtime's default use-site constraint hook (docs/RUNTIME.md) lives in the
# knowledge part, a layer above this one; the C runtime imports it by name on
# the first injection that needs it.  Importing it here, before the sandbox
# forks, means each confined run finds it loaded instead of importing it anew.
_CONSTRAINT_HOOK = "lexecutor_c.knowledge.inject"


def _warm_constraint_hook() -> None:
    if _CONSTRAINT_HOOK not in sys.modules:
        try:
            importlib.import_module(_CONSTRAINT_HOOK)
        except ImportError:     # the runtime reports it on first use, as before
            pass


_KNOWLEDGE_RESOLVE = "lexecutor_c.knowledge.resolve"


def _warm_knowledge() -> None:
    """Load the knowledge index (by name: a layer above) before the sandbox forks, so
    engine/autoimport.py can name the package of a module that is not installed without
    each child loading it anew -- against its own time limit, and with a cold cache
    (after a pip install) building it from site-packages.  Checked on the index itself,
    not on the module being imported: knowledge.reset() forgets the index."""
    try:
        resolve = importlib.import_module(_KNOWLEDGE_RESOLVE)
        knowledge = importlib.import_module("lexecutor_c.knowledge")
        if getattr(knowledge, "_INDEX", None) is None:
            knowledge.get_index()
            # the index builds its lookup tables on the first question: ask one here, or
            # every child would build them again (0.15 s of each run)
            resolve.module_named("lexecutor_c_warm_up", ["attribute"])
    except Exception:           # no advice then; imports still happen
        sys.modules.pop(_KNOWLEDGE_RESOLVE, None)


def run(source_or_path: Union[str, bytes, os.PathLike],
        predictor: Union[str, Callable[..., Any]] = "naive", abstraction: str = "fine",
        timeout: Optional[float] = 10.0, isolate: bool = True,
        stdin: Union[bytes, bytearray, str, None] = None,
        seed: Optional[int] = None, randomize: bool = False,
        filename: Optional[str] = None, *, limits: Optional[sandbox.Limits] = None,
        output_max: int = OUTPUT_MAX,
        frequency_table: Union[dict, str, os.PathLike, None] = None,
        allow_missing: Union[str, Iterable[str]] = (),
        import_missing: bool = True) -> Result:
    """Execute a Python file or snippet with learning-guided value injection.

    ``source_or_path``: a path (pathlib.Path, or a str naming an existing
    file) or source code (str or bytes).  ``isolate=True`` executes in a
    sandbox child process (see lexecutor_c.sandbox) with a wall-clock
    ``timeout`` (seconds; None: no limit); ``limits`` replaces the default
    limits altogether.  ``isolate=False`` executes in this process (stdout and
    stderr are captured via sys.stdout/sys.stderr; nothing is enforced:
    timeout and limits are ignored).  ``stdin``: bytes/str for the code's
    standard input (default: empty).  ``predictor`` is a name from
    PREDICTORS or a callable (see docs/RUNTIME.md for its signature);
    ``frequency_table`` (a dict name -> {class: count}, or a path of one
    written by lexecutor_c.runtime) feeds the frequency predictor.
    ``allow_missing``: confinement layers (sandbox.LAYERS, or "all") the run
    may go without where the kernel lacks them; by default a missing layer
    raises sandbox.ConfinementError and nothing runs (docs/RUNNING.md).
    ``import_missing`` (default True): a missing name that is a module
    installed here (``json``, ``os``) or a well-known alias of one (``np``,
    ``pd``, ``plt``) is imported -- inside the confined run -- instead of
    injected, and ``Result.imported_modules`` says so; one that names a
    module not installed is injected as before and reported with its
    package (engine/autoimport.py).  False gives the papers' baselines
    (benchmarks/coverage.py passes it for naive, random, frequency...).

    Raises OSError for unreadable files, SourceError for undecodable input,
    SyntaxError for source that does not parse, ValueError/TypeError for bad
    arguments.  How the executed code ended is in the Result, never raised.
    """
    if not callable(predictor) and predictor not in PREDICTORS:
        raise ValueError(f"unknown predictor {predictor!r}; choose from {', '.join(PREDICTORS)}")
    if predictor == "neural":
        # NeuralUnavailable here, not as a crash of the child, where torch is absent
        Runtime(predictor="neural")
    if isinstance(frequency_table, (str, os.PathLike)) or \
            (predictor == "frequency" and frequency_table is None):
        frequency_table = _load_frequency_table(frequency_table)
    if abstraction not in ABSTRACTIONS:
        raise ValueError(f"unknown abstraction {abstraction!r}; choose from "
                         f"{', '.join(ABSTRACTIONS)}")
    if timeout is not None and not (isinstance(timeout, (int, float)) and
                                    0 < timeout < float("inf")):
        raise ValueError("timeout must be a positive, finite number of seconds or None")
    if seed is not None and not isinstance(seed, int):
        raise TypeError("seed must be an int or None")
    if stdin is not None and not isinstance(stdin, (bytes, bytearray, str)):
        raise TypeError(f"stdin must be bytes, str or None, not {type(stdin).__name__}")
    text, filename = load_source(source_or_path, filename)
    opts = {"predictor": predictor, "abstraction": abstraction, "seed": seed,
            "randomize": bool(randomize), "frequency_table": frequency_table,
            "import_missing": bool(import_missing)}
    predictor_name = predictor if isinstance(predictor, str) else \
        getattr(predictor, "__qualname__", type(predictor).__name__)
    base = dict(filename=filename, predictor=predictor_name, abstraction=abstraction, seed=seed,
                randomize=bool(randomize), isolated=bool(isolate),
                import_missing=bool(import_missing))
    if import_missing:
        _warm_knowledge()
    t0 = time.monotonic()
    if isolate:
        prepare_predictor(predictor)
        lim = limits if limits is not None else sandbox.Limits(
            timeout=timeout, stdout_max=output_max, stderr_max=output_max,
            allow_missing=allow_missing)
        shared = journal.create()
        _warm_constraint_hook()
        try:
            outcome = sandbox.call_isolated(_execute, text, filename, opts, True, shared,
                                            limits=lim, stdin=stdin)
            result = _from_outcome(outcome, base, shared)
        finally:
            shared.close()
    else:
        result = _run_in_process(text, filename, opts, stdin, output_max, base)
    result.wall_time = time.monotonic() - t0
    _add_lines_ran(result, text)
    return result


def _add_lines_ran(result: Result, text: str) -> None:
    """Result.lines_ran/lines_skipped/lines_ran_text, computed here in the
    caller from the markers, the injections and the exception."""
    if result.covered_lines is None:
        return
    exc = result.exception or {}
    lr = lines_ran(text, result.covered, result.uncovered,
                   injected_lines=[i.get("line") for i in result.injections],
                   exception_line=exc.get("line") if isinstance(exc, dict) else None,
                   finished=result.status == "ok")
    result.lines_ran, result.lines_skipped, result.lines_ran_text = lr.ran, lr.skipped, lr.text


def _raise_for(report: dict) -> None:
    if report.get("kind") == "syntax":
        err = SyntaxError(report["msg"], (report["filename"], report["lineno"],
                                          report["offset"], report["text"]))
        raise err
    if report.get("kind") == "source":
        raise SourceError(report["message"])


def _decode_output(b: bytes) -> str:
    return b.decode("utf-8", errors="replace")


def _is_int(x) -> bool:
    return type(x) is int


def _opt(check, x) -> bool:
    return x is None or check(x)


def _valid_report(v: dict) -> bool:
    """The child's report has the shape _execute gives it (the code that
    ran in the child could have written a report of its own: plain data is
    all the parent accepts, and only in this shape)."""
    try:
        if v.get("kind") == "syntax":
            return isinstance(v.get("msg"), str) and isinstance(v.get("filename"), str) and \
                _opt(_is_int, v.get("lineno")) and _opt(_is_int, v.get("offset")) and \
                _opt(lambda t: isinstance(t, str), v.get("text"))
        if v.get("kind") == "source":
            return isinstance(v.get("message"), str)
        if v.get("kind") != "done":
            return False
        exc = v["exception"]
        ints = lambda xs: isinstance(xs, list) and all(_is_int(x) for x in xs)  # noqa: E731
        return (v["status"] in ("ok", "exit", "exception", "timeout", "memory") and
                (exc is None or (isinstance(exc, dict) and isinstance(exc.get("type"), str) and
                                 isinstance(exc.get("message"), str) and
                                 _opt(_is_int, exc.get("line")))) and
                _opt(_is_int, v["exit_code"]) and _is_int(v["covered_lines"]) and
                _is_int(v["total_lines"]) and
                _opt(lambda c: type(c) in (int, float), v["coverage"]) and
                ints(v["covered"]) and ints(v["uncovered"]) and
                isinstance(v["injections"], list) and
                all(isinstance(i, dict) and _is_int(i.get("iid")) and
                    isinstance(i.get("kind"), str) and isinstance(i.get("cls"), str) and
                    isinstance(i.get("value"), str) and _opt(_is_int, i.get("line")) and
                    _opt(lambda n: isinstance(n, str), i.get("name"))
                    for i in v["injections"]) and
                isinstance(v.get("imported_modules", []), list) and
                all(isinstance(m, dict) and isinstance(m.get("name"), str) and
                    isinstance(m.get("module"), str) and isinstance(m.get("imported"), bool) and
                    all(isinstance(x, (str, bool)) for x in m.values())
                    for m in v.get("imported_modules", [])) and
                isinstance(v["failed_imports"], list) and
                all(isinstance(f, dict) and _is_int(f.get("iid")) and
                    isinstance(f.get("module"), str) for f in v["failed_imports"]))
    except (KeyError, TypeError, AttributeError):
        return False


def _from_outcome(outcome: sandbox.Outcome, base: dict, shared=None) -> Result:
    r = Result(status="crashed", **base)
    r.stdout, r.stderr = _decode_output(outcome.stdout), _decode_output(outcome.stderr)
    r.stdout_truncated, r.stderr_truncated = outcome.stdout_truncated, outcome.stderr_truncated
    r.isolation = dict(outcome.isolation)
    if outcome.status == "ok" and isinstance(outcome.value, dict) and \
            not _valid_report(outcome.value):
        r.error = "the child's report was malformed (written by the executed code?)"
        return r
    if outcome.status == "ok" and isinstance(outcome.value, dict) and \
            outcome.value.get("kind") == "done":
        v = outcome.value
        for k in ("status", "exception", "exit_code", "covered_lines", "total_lines",
                  "coverage", "covered", "uncovered", "injections", "failed_imports"):
            setattr(r, k, v[k])
        r.imported_modules = list(v.get("imported_modules", []))
        return r
    if outcome.status == "ok" and isinstance(outcome.value, dict):
        _raise_for(outcome.value)
    # The run did not finish normally: what is known from the progress report.
    prog = outcome.progress if isinstance(outcome.progress, dict) else {}
    lines = prog.get("lines")
    if isinstance(lines, list):
        r.total_lines = len(lines)
        # what the run covered and injected before it died, from the journal
        j = journal.read(shared) if shared is not None else None
        if j is not None and all(isinstance(x, (list, tuple)) and len(x) == 2 and
                                 all(type(v) is int for v in x) for x in lines):
            for k, v in coverage_fields([tuple(x) for x in lines], j.reached).items():
                setattr(r, k, v)
            r.injections = j.injections
            r.failed_imports = j.failed_imports
    if outcome.status == "timeout":
        r.status = "timeout"
        r.error = f"timed out ({outcome.timeout_kind})"
    elif outcome.status == "memory":
        r.status = "memory"
        r.error = outcome.error
    elif outcome.status == "exit":
        r.status, r.exit_code = "exit", outcome.exit_code
    elif outcome.status == "signal":
        r.status, r.signal = "crashed", outcome.signal
        r.error = f"killed by {outcome.signal_name}"
    elif outcome.status == "exception":
        r.status = "crashed"
        r.error = f"internal error: {outcome.exc_type}: {outcome.exc_message}"
        if outcome.traceback:
            r.stderr += "\n" + outcome.traceback
    else:
        r.status = "crashed"
        r.error = outcome.error or outcome.describe()
    return r


def _run_in_process(text, filename, opts, stdin, output_max, base) -> Result:
    out, err = _BoundedText(output_max), _BoundedText(output_max)
    if isinstance(stdin, str):
        stdin = stdin.encode("utf-8")
    fake_in = io.TextIOWrapper(io.BytesIO(bytes(stdin or b"")), encoding="utf-8")
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = fake_in, out, err
    try:
        report = _execute(text, filename, opts, False)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    _raise_for(report)
    r = Result(status=report["status"], **base)
    for k in ("exception", "exit_code", "covered_lines", "total_lines", "coverage",
              "covered", "uncovered", "injections", "failed_imports", "imported_modules"):
        setattr(r, k, report[k])
    r.stdout, r.stderr = out.getvalue(), err.getvalue()
    r.stdout_truncated, r.stderr_truncated = out.truncated, err.truncated
    r.isolation = {"in_process": True}
    return r
