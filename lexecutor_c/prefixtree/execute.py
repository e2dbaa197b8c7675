"""One isolated child per prefix: the prefix's post-processing and the
snippet's run together.

Treefix used to fork twice per prefix: once to run the prefix alone without
injection (dropping the top-level statements that raise, rerunning up to ten
times) and once to run prefix + snippet, instrumenting the concatenation
afresh every time.  Here the snippet is instrumented and compiled once per
search (:class:`CompiledSnippet`), the prefix's top-level statements are
compiled one by one in the parent, and one sandbox child
(``engine.sandbox.call_isolated``) executes them in order without
injection -- a statement that raises is skipped and reported as dropped,
which is what dropping it and rerunning the prefix gives for prefixes whose
statements do not depend on each other's partial effects -- and then the
instrumented snippet in the same globals with injection on.  Coverage comes
straight in the snippet's own line numbers.

A prefix that does not parse, drops more than ``max_drops`` statements or
runs past the time limit before the snippet starts is reported as dropped
(the old post-processing's verdicts).
"""
from __future__ import annotations

import __future__
import ast
import builtins
import os
import signal
import sys
import time
from dataclasses import dataclass
from typing import Optional

from ..engine import sandbox
from ..engine.instrument import instrument
from ..engine.result import coverage_fields

PREFIX_FILENAME = "<prefix>"
CO_COROUTINE = 0x0080
#: output of the executed code kept per run (nothing reads it)
OUTPUT_KEEP = 1 << 14


class _HardExit(BaseException):
    """os._exit() called by the executed code: unwinds so coverage is kept."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


@dataclass
class PrefixCode:
    """A prefix split into its top-level statements, each compiled alone."""

    text: str
    spans: list            # (first line, last line) per statement
    codes: list            # code objects, one per statement
    future_annotations: bool = False
    modules: tuple = ()    # modules its import statements name


def imported_modules(tree: ast.AST) -> list:
    """Absolute module names of the import statements in ``tree`` (any depth),
    in order, without repeats."""
    out: list = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            names = [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module and \
                n.module != "__future__":
            # `from pkg import sub`: sub may be a module of its own
            names = [n.module] + [f"{n.module}.{a.name}" for a in n.names if a.name != "*"]
        else:
            continue
        for m in names:
            if m not in out:
                out.append(m)
    return out


def compile_prefix(text: str) -> PrefixCode:
    """Raises SyntaxError when the prefix does not parse."""
    tree = ast.parse(text, PREFIX_FILENAME)
    spans, codes = [], []
    future = False
    for s in tree.body:
        first = min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])])
        spans.append((first, s.end_lineno or s.lineno))
        if isinstance(s, ast.ImportFrom) and s.module == "__future__":
            future = future or any(a.name == "annotations" for a in s.names)
            codes.append(None)         # takes effect through the snippet's flags
            continue
        codes.append(compile(ast.Module([s], []), PREFIX_FILENAME, "exec", dont_inherit=True))
    return PrefixCode(text, spans, codes, future, tuple(imported_modules(tree)))


def prefix_without(pc: PrefixCode, dropped: list) -> tuple:
    """(text of the prefix without the dropped statements, their line numbers)."""
    lines = pc.text.splitlines()
    gone: set = set()
    for i in dropped:
        first, last = pc.spans[i]
        gone.update(range(first, last + 1))
    kept = [ln for n, ln in enumerate(lines, 1) if n not in gone]
    text = "\n".join(kept) + "\n" if any(x.strip() for x in kept) else ""
    return text, sorted(gone)


class CompiledSnippet:
    """The snippet instrumented and compiled once; ``run(prefix)`` executes
    a prefix and the snippet in one isolated child."""

    def __init__(self, source: str, filename: str, predictor="naive", seed=None,
                 max_drops: int = 10):
        self.source = source
        self.filename = filename
        self.predictor = predictor
        self.seed = seed
        self.max_drops = max_drops
        self.inst = instrument(source, filename=filename)
        self.lines = [(int(r.line), int(r.iid)) for r in self.inst.lines]
        self._codes: dict = {}
        try:
            self.modules = imported_modules(ast.parse(source))
        except SyntaxError:
            self.modules = []

    def code(self, future_annotations: bool = False):
        key = bool(future_annotations)
        c = self._codes.get(key)
        if c is None:
            flags = __future__.annotations.compiler_flag if key else 0
            try:
                c = self.inst.compile(flags=flags)
            except SyntaxError as e:
                msg = str(e.msg)
                if "outside" not in msg or ("async" not in msg + str(e.text)
                                            and "await" not in msg):
                    raise
                c = self.inst.compile(flags=flags | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            self._codes[key] = c
        return c

    def run(self, pc: PrefixCode, timeout: float, snippet_limit: Optional[float] = None) -> dict:
        """Plain data: status (run()'s, or ``prefix-timeout`` /
        ``prefix-fails``), covered (snippet lines), error, dropped
        (statement indices), failed_imports, wall, and ``snippet_s`` (the
        snippet's part).  ``timeout`` bounds the whole child; the snippet
        itself stops after ``snippet_limit`` seconds (soft: what it covered
        counts)."""
        code = self.code(pc.future_annotations)
        t0 = time.monotonic()
        lim = sandbox.Limits(timeout=timeout, stdout_max=OUTPUT_KEEP, stderr_max=OUTPUT_KEEP)
        out = sandbox.call_isolated(_child, pc.codes, code, self.inst.iids, self.lines,
                                    self.filename, self.predictor, self.seed, self.max_drops,
                                    snippet_limit, limits=lim)
        wall = time.monotonic() - t0
        if out.status == "ok" and isinstance(out.value, dict):
            res = out.value
        else:
            prog = out.progress if isinstance(out.progress, dict) else {}
            phase = prog.get("phase")
            if out.status == "timeout":
                status = "prefix-timeout" if phase != "snippet" else "timeout"
            elif out.status == "memory":
                status = "memory"
            else:
                status = "crashed"
            res = {"status": status, "covered": [], "error": None,
                   "dropped": prog.get("dropped", []), "failed_imports": [],
                   "known": False, "why": out.error or out.describe()}
        res["wall"] = wall
        return res

    def run_batch(self, pcs: list, timeout: float, snippet_limit: Optional[float],
                  budget: float, have=(), markers=()) -> list:
        """Run several prefixes in one sandbox child, each in a grandchild of
        its own (see _batch_child).  Returns one result per prefix run, in
        order; fewer than ``pcs`` when the budget ran out or the covered
        lines reached ``markers``."""
        futures = {pc.future_annotations for pc in pcs}
        codes = {f: self.code(f) for f in futures}
        jobs = [(pc.codes, pc.future_annotations) for pc in pcs]
        warm = [m for m in self.modules + [m for pc in pcs for m in pc.modules]
                if _findable(m)]
        lim = sandbox.Limits(timeout=budget + 2.0, stdout_max=OUTPUT_KEEP,
                             stderr_max=OUTPUT_KEEP)
        out = sandbox.call_isolated(_batch_child, jobs, codes, self.inst.iids, self.lines,
                                    self.filename, self.predictor, self.seed, self.max_drops,
                                    timeout, snippet_limit, budget, sorted(have),
                                    set(markers), list(dict.fromkeys(warm)), limits=lim)
        if out.status == "ok" and isinstance(out.value, list):
            return [r for r in out.value if isinstance(r, dict)]
        # the batch itself failed (should not happen): run them one by one
        return [self.run(pc, timeout, snippet_limit) for pc in pcs[:1]]


def _no_progress(value) -> bool:
    return False


def _on_alarm(signum, frame):
    raise sandbox.Timeout("time limit of the prefix's run reached")


def _read_result(fd: int, pid: int, limit: float) -> Optional[bytes]:
    """What the grandchild writes to ``fd`` before it closes it; None when
    it does not finish within ``limit`` seconds."""
    import selectors
    chunks = []
    end = time.monotonic() + limit
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            if not sel.select(left):
                continue
            data = os.read(fd, 1 << 16)
            if not data:
                return b"".join(chunks)
            chunks.append(data)
            if sum(map(len, chunks)) > RESULT_MAX:
                return None


#: the least time a snippet gets once a run of the batch has timed out
MIN_SNIPPET_LIMIT = 0.3
#: largest result a grandchild may send (JSON)
RESULT_MAX = 8 << 20


_FINDABLE: dict = {}


def _findable(module: str) -> bool:
    """Whether ``module``'s top-level package is installed (cached)."""
    top = module.split(".")[0]
    ok = _FINDABLE.get(top)
    if ok is None:
        import importlib.util
        try:
            ok = importlib.util.find_spec(top) is not None
        except (ImportError, ValueError):
            ok = False
        _FINDABLE[top] = ok
    return ok


def _warm_imports(modules: list, limit: float) -> None:
    """Import the modules the snippet and the prefixes import, once, before
    the grandchildren fork: each run then finds them in sys.modules instead
    of paying their import time.  Failures are ignored (the run itself meets
    them); at most ``limit`` seconds."""
    import importlib
    if not modules:
        return
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        for m in modules:
            if m in sys.modules:
                continue
            try:
                importlib.import_module(m)
            except Exception:           # not a module (a name in one), or broken
                pass
    except sandbox.Timeout:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)


def _batch_child(jobs, codes_by_flag, iids, lines, filename, predictor, seed, max_drops,
                 timeout, snippet_limit, budget, have, markers, warm=()) -> list:
    """Runs in the sandbox child: one forked grandchild per prefix, each in
    a fresh working directory and its own process group, with a soft time
    limit (SIGALRM, as the sandbox's) and a hard one (killed).  Stops when
    ``budget`` seconds are spent or the union of the covered lines (``have``
    to begin with) reaches every marker line.  The modules in ``warm`` are
    imported first (_warm_imports)."""
    import json
    import tempfile
    import gc
    sandbox._disarm()                 # this process keeps its own deadlines
    gc.freeze()                       # the grandchildren's collections skip what is here
    base = os.getcwd()
    t_end = time.monotonic() + budget
    _warm_imports(list(warm), min(timeout, budget / 2))
    covered = set(have)
    results: list = []
    slowest = 0.0
    for i, (codes, future) in enumerate(jobs):
        left = t_end - time.monotonic()
        if left <= 0.02:
            break
        lim = min(timeout, left)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:                                      # the grandchild
            me = os.getpid()
            try:
                os.close(r)
                os.setpgid(0, 0)
                d = os.path.join(base, f"p{i}")
                os.mkdir(d, 0o700)
                os.chdir(d)
                os.environ["TMPDIR"] = d
                tempfile.tempdir = None
                signal.signal(signal.SIGALRM, _on_alarm)
                signal.setitimer(signal.ITIMER_REAL, lim)
                res = _run_one(codes, codes_by_flag[future], iids, lines, filename, predictor,
                               seed, max_drops, snippet_limit, _no_progress)
                if os.getpid() != me:
                    sandbox._exit(0)     # a process the snippet forked came back here
                data = json.dumps(res).encode()
                view = memoryview(data)
                while view:
                    view = view[os.write(w, view):]
            except BaseException:
                pass
            finally:
                sandbox._exit(0)
        os.close(w)
        ts = time.monotonic()
        try:
            data = _read_result(r, pid, lim + 0.5)
        finally:
            os.close(r)
        if data is None:
            for target in (-pid, pid):
                try:
                    os.kill(target, signal.SIGKILL)
                except OSError:
                    pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        res = None
        if data:
            try:
                res = json.loads(data)
            except ValueError:
                res = None
        if not isinstance(res, dict):
            res = {"status": "timeout" if data is None else "crashed", "covered": [],
                   "error": None, "dropped": [], "failed_imports": [], "known": False,
                   "why": "killed at the time limit" if data is None else
                   "the run died before reporting"}
        res["wall"] = time.monotonic() - ts
        results.append(res)
        if res.get("status") == "timeout":       # the rest of the batch: a shorter limit
            cap = max(MIN_SNIPPET_LIMIT, 3 * slowest)
            snippet_limit = cap if snippet_limit is None else min(snippet_limit, cap)
        elif isinstance(res.get("snippet_s"), (int, float)):
            slowest = max(slowest, float(res["snippet_s"]))
        covered.update(x for x in res.get("covered") or () if isinstance(x, int))
        if markers and covered >= markers:
            break
    return results


def _frames(exc: BaseException, names: tuple) -> list:
    out = []
    tb = exc.__traceback__
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if fn in names:
            out.append((fn, tb.tb_lineno))
        tb = tb.tb_next
    return out


def _describe(exc: BaseException, filename: str) -> dict:
    frames = _frames(exc, (filename, PREFIX_FILENAME))
    line = None
    for fn, ln in frames:
        if fn == filename:
            line = ln
    if line is None and isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    where = "prefix" if frames and frames[-1][0] == PREFIX_FILENAME else "snippet"
    t = type(exc)
    tname = t.__qualname__ if t.__module__ in ("builtins", "__main__") else \
        f"{t.__module__}.{t.__qualname__}"
    try:
        msg = str(exc)
    except BaseException:
        msg = f"<unprintable {t.__name__}>"
    return {"type": tname, "message": msg[:500], "line": line, "where": where}


def _child(codes, snippet_code, iids, lines, filename, predictor, seed, max_drops,
           snippet_limit) -> dict:
    """Runs in the sandbox child: one prefix."""
    return _run_one(codes, snippet_code, iids, lines, filename, predictor, seed, max_drops,
                    snippet_limit, sandbox.report_progress)


def _run_one(codes, snippet_code, iids, lines, filename, predictor, seed, max_drops,
             snippet_limit, progress) -> dict:
    """The prefix's statements without injection, then the snippet with it,
    in this process (a sandbox child or a grandchild of the batch)."""
    import types
    from .._core import Runtime
    # the globals are a real __main__ module's: what the snippet defines can
    # be pickled by reference (multiprocessing, concurrent.futures)
    main = types.ModuleType("__main__")
    env = main.__dict__
    env.update({"__builtins__": builtins, "__file__": filename})
    sys.modules["__main__"] = main
    real_exit = os._exit

    def _exit(code):
        raise _HardExit(code)
    os._exit = _exit
    dropped: list = []
    t_start = time.monotonic()
    progress({"phase": "prefix", "dropped": dropped})
    try:
        for i, c in enumerate(codes):
            if c is None:
                continue
            try:
                exec(c, env)
            except (Exception, SystemExit, _HardExit, KeyboardInterrupt, GeneratorExit):
                dropped.append(i)
                if len(dropped) > max_drops:
                    return {"status": "prefix-fails", "covered": [], "error": None,
                            "dropped": dropped, "failed_imports": [], "known": True}
    except sandbox.Timeout:
        return {"status": "prefix-timeout", "covered": [], "error": None,
                "dropped": dropped, "failed_imports": [], "known": True}
    prefix_s = time.monotonic() - t_start
    progress({"phase": "snippet", "dropped": dropped})
    rt = Runtime(sites=iids, predictor=predictor, abstraction="fine", seed=seed,
                 randomize=False, record=False, filename=filename)
    env.update(rt.loaders())
    status, error = "ok", None
    if snippet_limit is not None:
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        if left == 0 or snippet_limit < left:
            signal.setitimer(signal.ITIMER_REAL, max(snippet_limit, 0.01))
    ts = time.monotonic()
    try:
        if snippet_code.co_flags & CO_COROUTINE:
            import asyncio
            asyncio.run(eval(snippet_code, env))
        else:
            exec(snippet_code, env)
    except (SystemExit, _HardExit):
        status = "exit"
    except MemoryError as e:
        status, error = "memory", _describe(e, filename)
    except sandbox.Timeout:
        status = "timeout"
    except BaseException as e:
        status, error = "exception", _describe(e, filename)
    finally:
        os._exit = real_exit
        sandbox._disarm()
    try:
        env.clear()
    except BaseException:
        pass
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except BaseException:
            pass
    spent = time.monotonic() - ts
    reached = set(rt.reached())
    cov = coverage_fields(lines, reached)
    return {"status": status, "covered": cov["covered"], "error": error, "dropped": dropped,
            "failed_imports": [str(m) for (_, m, _) in rt.failed_imports], "known": True,
            "snippet_s": spent, "prefix_s": prefix_s}
