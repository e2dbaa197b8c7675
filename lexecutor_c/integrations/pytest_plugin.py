"""pytest plugin: run tests with the code under test in transparent mode.

    pytest --lexecute [PATHS...]      # the project's code (tests and code under test);
                                      # paths, node ids, -k, -m, --pyargs as without it
    pytest --lexecute='myproj*'       # test functions + the modules matching the pattern(s)
    pytest --lexecute --lexecute-strict --lexecute-report=r.json --lexecute-cov
    @pytest.mark.lexecute             # this test (without the option)
    @pytest.mark.lexecute("myproj.util", predictor="random")

Each failing test gets a verdict (integrations/verdict.py): real, made-up (it follows
from an injected value, named) or unknown; --lexecute-strict reports made-up failures
as xfail.  --lexecute-cov writes coverage.py data (integrations/coverage_data.py).

Targets run as instrumented twins (lexecutor_c.hook): a missing name,
attribute or import inside them gets a predicted value instead of failing,
and a fixture the test asks for that nobody defines is given a Dummy.  The
terminal summary lists what was injected per test.  A test still fails for
a real reason: a wrong assert or an exception the injected values did not
cause.  Module targets are on from the start of the run (so importing them
during collection works even when they import something missing).

Registered through the ``pytest11`` entry point ``lexecutor_c``, so it loads
into every pytest run of an environment where lexecutor_c is installed.  It
must never break those runs: loading it imports pytest and the standard
library only (``import lexecutor_c`` is lazy); the C extension and the hook
are imported when ``--lexecute`` or the marker is used.  When the extension
is not there it says so once (a ``LexecutorUnavailableWarning``) and stays
out of the way; ``--lexecute`` is then a usage error and a marked test an
error with the reason.  Load it by hand with ``-p
lexecutor_c.integrations.pytest_plugin``; switch it off with ``-p
no:lexecutor_c``.  The structure follows pytest-cov: all options in one
group, an early ``tryfirst`` hook that starts the run-wide part, and a plugin
object that delegates to a controller.
"""
from __future__ import annotations

import copy
import importlib.util
import os
import re
import warnings
from typing import Optional

import pytest

MARK = "lexecute"
_PLUGIN_NAME = "_lexecutor_c_controller"
#: folders of a rootdir that never hold the project's own code
_NOT_PROJECT = {"build", "dist", "node_modules", "site-packages", "__pycache__"}


class LexecutorUnavailableWarning(pytest.PytestWarning):
    """lexecutor_c's pytest plugin is installed but its C extension cannot be used."""


def extension_problem() -> Optional[str]:
    """Why lexecutor_c's C extension cannot be used here, found without loading it (the
    file is looked up, not imported); None when it is in place."""
    try:
        spec = importlib.util.find_spec("lexecutor_c._core")
    except (ImportError, ValueError) as e:
        return f"{type(e).__name__}: {e}"
    if spec is None:
        return "its C extension lexecutor_c._core is missing: a broken build or install"
    return None


def load_problem() -> Optional[str]:
    """Import the transparent-mode hook (and with it the C extension); the reason when
    that fails, else None."""
    try:
        from . import hook  # noqa: F401
    except ImportError as e:
        return f"{type(e).__name__}: {e}"
    return None


def default_targets(rootdir: str) -> list[str]:
    """What ``--lexecute`` without a pattern instruments: every Python file under the
    rootdir (its test modules, conftest files and the code under test; never an
    environment's site-packages inside it), plus the rootdir's top-level packages (also
    found under ``src/``) by module name, so that an installed copy of the code under
    test is covered as well."""
    targets: list[str] = [rootdir]
    for base in (rootdir, os.path.join(rootdir, "src")):
        try:
            entries = sorted(os.scandir(base), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name.startswith(".") or e.name in _NOT_PROJECT or not e.name.isidentifier():
                continue
            if e.is_dir() and os.path.isfile(os.path.join(e.path, "__init__.py")):
                targets.append(e.name)
    return targets


def split_attached_value(args: list) -> bool:
    """``--lexecute ARG`` (ARG not an option) means ``--lexecute`` and a path, node id or
    ``--pyargs`` name, as the same ARG means without the option; argparse's optional value
    would take ARG as the pattern instead.  Rewrites *args* in place to ``--lexecute=``
    followed by ARG (a pattern is only ever given as ``--lexecute=PATTERN``); True when it
    changed something.  Arguments after ``--`` are left alone."""
    changed = False
    for i, a in enumerate(args):
        if a == "--":
            break
        if a == "--lexecute" and i + 1 < len(args) and isinstance(args[i + 1], str) \
                and args[i + 1] and not args[i + 1].startswith("-"):
            args[i] = "--lexecute="
            changed = True
    return changed


def argument_dirs(args: list, pyargs: bool, invocation_dir: str) -> list[str]:
    """The folders of the paths (node ids, ``--pyargs`` module names) pytest is given:
    their conftest files and test modules are the project's code even when they lie
    outside the rootdir."""
    out: list[str] = []
    for a in args:
        a = str(a).split("::")[0]
        if not a:
            continue
        path = os.path.join(invocation_dir, a)
        if pyargs and not os.path.exists(path):
            try:
                spec = importlib.util.find_spec(a)
            except (ImportError, ValueError, AttributeError):
                spec = None
            if spec is None:
                continue
            locs = list(spec.submodule_search_locations or [])
            if locs:
                path = locs[0]
            elif spec.origin and os.path.isfile(spec.origin):
                path = spec.origin
            else:
                continue
        if os.path.isfile(path):
            path = os.path.dirname(path)
        if os.path.isdir(path):
            path = os.path.realpath(path)
            if path not in out:
                out.append(path)
    return out


def pytest_addoption(parser):
    group = parser.getgroup("lexecutor_c", "learning-guided execution (lexecutor_c)")
    group.addoption(
        "--lexecute", action="store", nargs="?", const="", default=None, metavar="PATTERN",
        dest="lexecute",
        help="run tests in transparent mode, missing values injected: without PATTERN "
             "every Python file under the rootdir and the folders of the paths given (tests, "
             "conftest files and the code under test) and the rootdir's packages run "
             "instrumented; with --lexecute=PATTERN (fnmatch, comma-separated; always "
             "attached with '=': `--lexecute tests/x.py` is the option and a path) the test "
             "functions and the modules whose names match")
    group.addoption(
        "--lexecute-predictor", action="store", default="naive", dest="lexecute_predictor",
        metavar="NAME", help="predictor for injected values (default: naive)")
    group.addoption(
        "--lexecute-seed", action="store", type=int, default=None, dest="lexecute_seed",
        metavar="N", help="seed of the predictor / randomized values")
    group.addoption(
        "--lexecute-no-report", action="store_true", default=False, dest="lexecute_no_report",
        help="do not list injected values in the terminal summary")
    group.addoption(
        "--lexecute-no-import-missing", action="store_false", default=True,
        dest="lexecute_import_missing",
        help="inject a value for a missing name that is an installed module (json, np, ...) "
             "instead of importing it (the default imports it and says so)")
    group.addoption(
        "--lexecute-strict", action="store_true", default=False, dest="lexecute_strict",
        help="only real failures fail the run: a failure that follows from an injected value "
             "is reported as xfail with the reason")
    group.addoption(
        "--lexecute-report", action="store", default=None, dest="lexecute_report",
        metavar="FILE", help="write each test's outcome, verdict and injected values as JSON")
    group.addoption(
        "--lexecute-cov", action="store", nargs="?", const=".coverage", default=None,
        dest="lexecute_cov", metavar="FILE",
        help="write the lines that ran instrumented as coverage.py data (default file "
             ".coverage; one context per test, and one per injected value on its line) and "
             "the injected values to FILE.injections.json")


def _patterns(spec: Optional[str]) -> list[str]:
    return [p.strip() for p in (spec or "").split(",") if p.strip()]


class Controller:
    """The run-wide state: the options, the session for module targets and
    the per-test results."""

    def __init__(self, enabled: bool, patterns: list, predictor: str, seed, report: bool,
                 rootdir: str = "", unavailable: Optional[str] = None, strict: bool = False,
                 report_file: Optional[str] = None, cov_file: Optional[str] = None,
                 import_missing: bool = True):
        self.enabled = enabled
        self.patterns = patterns         # the run-wide targets: patterns, names, folders
        self.unavailable = unavailable   # why the extension cannot be used; None: it can
        self.warned = unavailable is not None
        self.options = {"predictor": predictor, "seed": seed,
                        "import_missing": bool(import_missing)}
        self.report = report
        self.rootdir = rootdir
        self.run_session = None
        self.results: dict[str, dict] = {}     # nodeid -> {"injections", "fixtures", "notes"}
        self.strict = strict
        self.report_file = report_file
        self.cov_file = cov_file
        self.outcomes: dict[str, str] = {}     # nodeid -> passed / failed / error / ...
        self.verdicts: dict[str, dict] = {}    # nodeid -> Verdict.to_dict() of its failure
        self.import_injections: Optional[list] = None   # injected while modules were imported
        self.import_coverage: dict = {}
        self.raised_lines: dict[str, dict] = {}   # nodeid -> {file: lines an exception left}
        self.lost_decorators: dict[str, list] = {}  # nodeid -> decorators that were Dummies

    def usable(self) -> bool:
        """Load the hook the first time a test needs it; False (with one warning) when
        the extension cannot load."""
        if self.unavailable is None:
            self.unavailable = load_problem()
        if self.unavailable is not None and not self.warned:
            self.warned = True
            warnings.warn(LexecutorUnavailableWarning(
                f"lexecutor_c cannot load its C extension ({self.unavailable}); tests marked "
                "lexecute cannot run"))
        return self.unavailable is None

    def start_run(self) -> None:
        if self.enabled and self.patterns and self.run_session is None:
            problem = self.unavailable or load_problem()
            if problem is not None:
                raise pytest.UsageError(
                    f"--lexecute: lexecutor_c cannot load its C extension ({problem}); "
                    "reinstall lexecutor_c, or run without --lexecute")
            from . import hook
            self.run_session = hook.enable(self.patterns, respect_handlers=True,
                                           **self.options)

    def stop_run(self) -> None:
        if self.run_session is not None:
            self.run_session.disable()
            self.run_session = None

    def wanted(self, item) -> bool:
        return self.enabled or item.get_closest_marker(MARK) is not None

    def targets_for(self, item) -> tuple[list, dict]:
        """The test function and the mark's targets; the module patterns are
        the run-wide session's (their twins keep its loaders)."""
        targets, options = [], dict(self.options)
        fn = getattr(item, "obj", None)
        if fn is not None and callable(fn):
            targets.append(fn)
        for mark in item.iter_markers(MARK):
            targets.extend(mark.args)
            options.update(mark.kwargs)
        return targets, options

    def missing_fixtures(self, item) -> list[str]:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            return []
        return [n for n in info.argnames if n not in info.name2fixturedefs and n != "request"]

    def snapshot_imports(self) -> None:
        """What the run-wide session injected and ran before the first test (collection:
        test modules, conftest files and the code under test imported): those injected
        values stay in the modules' globals for every test."""
        if self.import_injections is None:
            run = self.run_session
            self.import_injections = list(run.injections) if run is not None else []
            self.import_coverage = dict(run.coverage) if run is not None else {}

    def relpath(self, filename: str) -> str:
        if self.rootdir and not filename.startswith("<"):
            rel = os.path.relpath(filename, self.rootdir)
            if not rel.startswith(".."):
                return rel
        return filename

    def judge(self, item, exc: BaseException, session) -> dict:
        from . import hook
        from .verdict import judge
        during = list(session.injections)
        if self.run_session is not None:
            during += list(self.run_session.injections)
        injections = list(self.import_injections or []) + during
        with hook.paused():
            v = judge(exc, injections, getattr(item, "_lexecute_fixtures", []),
                      hook.instrumented_for, self.relpath, None, during)
            if v.verdict != "made-up":
                from .verdict import decorator_injections
                marked = decorator_injections(getattr(item, "function", None),
                                              self.import_injections or [])
                if marked:
                    i = marked[0]
                    v.verdict = "made-up"
                    v.why = (f"its decorators (markers) at {self.relpath(i.file)}:{i.line} "
                             "were built from injected values")
                    v.injected = [f"{x.name} ({x.kind} at {self.relpath(x.file)}:{x.line} -> "
                                  f"{x.value})" for x in marked[:3]]
            if v.verdict == "real" and v.why != "nothing was injected for this test":
                # values made up while the code under test was imported can reach a failure
                # unseen (a decorator that chose its wrapper by an injected flag): no claim
                imported = [i for i in self.import_injections or []
                            if not os.path.basename(i.file).startswith(("test_", "conftest"))]
                if imported:
                    v.verdict = "unknown"
                    v.why = (f"no operand comes from an injected value, but {len(imported)} "
                             "values were injected while the code under test was imported")
                    v.injected = [f"{i.name} ({i.kind} at {self.relpath(i.file)}:{i.line})"
                                  for i in imported[:3]]
            lost = self.lost_decorators.get(item.nodeid) or \
                list(getattr(getattr(item, "obj", None), hook.DROPPED, ()))
            if lost and v.verdict != "made-up":
                v.verdict = "made-up"
                v.why = ("the test ran without its decorator " + ", ".join(lost) +
                         ", an injected value")
                v.injected = [f"{d} (decorator)" for d in lost]
            # the lines where the exception passed through twins started running
            tb = exc.__traceback__
            while tb is not None:
                code = tb.tb_frame.f_code
                if hook.instrumented_for(code) is not None:
                    self.raised_lines.setdefault(item.nodeid, {}).setdefault(
                        code.co_filename, set()).add(tb.tb_lineno)
                tb = tb.tb_next
        return v.to_dict()

    def record(self, item, session, fixtures: list) -> None:
        injections, notes, coverage = session.injections, list(session.notes), session.coverage
        error = session.hook_error
        imported = list(session.imported)
        run = self.run_session
        if run is not None:
            injections = run.injections + injections
            imported = [m for m in run.imported if m not in imported] + imported
            notes += [n for n in run.notes if n not in notes]
            coverage = {**run.coverage, **coverage}
            error = error or run.hook_error
        self.results[item.nodeid] = {"injections": injections, "fixtures": fixtures,
                                     "notes": notes, "coverage": coverage, "hook_error": error,
                                     "imported": imported}
        raised = self.raised_lines.get(item.nodeid, {})
        if raised:
            # a statement that raised started running: it ran, as coverage.py counts it
            coverage = {f: _with_lines(cv, raised.get(f, ())) for f, cv in coverage.items()}
        if self.cov_file:
            self.results[item.nodeid]["coverage"] = {
                f: {"covered": cv["covered"], "uncovered": cv["uncovered"]}
                for f, cv in coverage.items()}
        else:
            self.results[item.nodeid]["coverage"] = {
                f: {"covered": len(cv["covered"]),
                    "total": len(cv["covered"]) + len(cv["uncovered"])}
                for f, cv in coverage.items()}


class LexecutePlugin:
    """Hooks of a run that uses lexecutor_c; the work is the controller's."""

    def __init__(self, controller: Controller):
        self.controller = controller

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        c = self.controller
        if not c.wanted(item):
            return
        if not c.usable():
            pytest.fail(f"lexecutor_c is not usable here: {c.unavailable}", pytrace=False)
        from .._core import Dummy
        missing = c.missing_fixtures(item)
        funcargs = getattr(item, "funcargs", None)
        if missing and isinstance(funcargs, dict):
            for name in missing:
                funcargs.setdefault(name, Dummy(name))
            item._lexecute_fixtures = missing

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        c = self.controller
        if not c.wanted(item) or c.unavailable is not None:
            return (yield)
        from . import hook
        targets, options = c.targets_for(item)
        session = hook.Session(targets, respect_handlers=True, **options)
        c.snapshot_imports()
        if c.run_session is not None:
            c.run_session.reset()       # the module targets' values of this test only
        session.enable()
        try:
            return (yield)
        except BaseException as e:
            session.disable()
            if isinstance(e, (Exception, pytest.fail.Exception)) and \
                    not isinstance(e, _OUTCOMES):
                try:
                    c.verdicts[item.nodeid] = c.judge(item, e, session)
                except Exception as err:          # the analysis never loses the test's result
                    c.verdicts[item.nodeid] = {"verdict": "unknown",
                                               "why": f"analysis failed: {err!r}"}
            raise
        finally:
            session.disable()
            c.record(item, session, getattr(item, "_lexecute_fixtures", []))
            item._lexecute_session = session      # a unittest failure is judged later

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(self, collector, name, obj):
        """A test function turned into an injected value by a missing decorator: collect
        the undecorated function (its failures are then made-up: it ran without the
        decorator)."""
        c = self.controller
        if not c.enabled or c.run_session is None or not _is_dummy(obj):
            return None
        try:
            if not collector.funcnamefilter(name):
                return None
            found = recover_test_function(collector, name)
        except Exception:
            return None
        if found is None:
            return None
        fn, decorators = found
        try:
            setattr(collector.obj, name, fn)
        except (AttributeError, TypeError):
            return None
        items = list(collector._genfunctions(name, fn))
        for it in items:
            c.lost_decorators[it.nodeid] = decorators
        return items

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        c = self.controller
        if not c.wanted(item) or c.unavailable is not None:
            return report
        if report.when == "call" or report.outcome != "passed":
            c.outcomes[item.nodeid] = _outcome(report)
        v = c.verdicts.get(item.nodeid)
        session = getattr(item, "_lexecute_session", None)
        if report.when == "call" and report.failed and v is None and \
                call.excinfo is not None and session is not None:
            # a unittest.TestCase: its failure reaches pytest through the test result,
            # not through the call; its traceback still holds the frames
            e = call.excinfo.value
            if isinstance(e, (Exception, pytest.fail.Exception)) and \
                    not isinstance(e, _OUTCOMES):
                try:
                    v = c.verdicts[item.nodeid] = c.judge(item, e, session)
                except Exception as err:
                    v = c.verdicts[item.nodeid] = {"verdict": "unknown",
                                                   "why": f"analysis failed: {err!r}"}
        if report.when == "call":
            item._lexecute_session = None
        if report.when == "call" and report.failed and v is None and call.excinfo is None:
            # no exception: a strict xfail that passed
            r = c.results.get(item.nodeid, {})
            if r.get("injections") or r.get("fixtures"):
                v = {"verdict": "made-up", "why": "it passed with injected values although "
                     "marked xfail (strict)", "file": None, "line": None, "operation": None,
                     "injected": [f"{i.name} ({i.kind} at {c.relpath(i.file)}:{i.line})"
                                  for i in r.get("injections", [])[:3]]}
            else:
                v = {"verdict": "real", "why": "it passed although marked xfail (strict); "
                     "nothing was injected", "file": None, "line": None, "operation": None,
                     "injected": []}
            c.verdicts[item.nodeid] = v
        if report.when == "call" and report.failed and v is not None:
            report.sections.append(("lexecutor_c verdict", _verdict_line(v)))
            if c.strict and v["verdict"] == "made-up":
                report.outcome = "skipped"
                report.wasxfail = "lexecutor_c: made-up failure: " + v["why"] + (
                    f" ({'; '.join(v['injected'][:2])})" if v.get("injected") else "")
                c.outcomes[item.nodeid] = "xfailed"
        return report

    def pytest_terminal_summary(self, terminalreporter):
        c = self.controller
        tr = terminalreporter
        if c.results or c.verdicts:
            _write_verdicts(tr, c)
        if c.cov_file and c.results:
            _write_coverage(tr, c)
        if c.report_file:
            _write_report(tr, c)
        if not c.report or not c.results:
            return
        tr.write_sep("=", "lexecutor_c: injected values")
        for nodeid, r in c.results.items():
            injections, fixtures = r["injections"], r["fixtures"]
            imported = r.get("imported") or []
            if not injections and not fixtures and not r["notes"] and r["hook_error"] is None:
                tr.write_line(f"{nodeid}: nothing injected")
                _write_imported(tr, c, imported)
                continue
            tr.write_line(f"{nodeid}: {len(injections) + len(fixtures)} injected")
            _write_imported(tr, c, imported)
            for name in fixtures:
                tr.write_line(f"    fixture {name} -> <Dummy {name!r}>")
            for i in injections:
                where = os.path.relpath(i.file, c.rootdir) if c.rootdir and \
                    not i.file.startswith("<") else i.file
                tr.write_line(f"    {where}:{i.line} {i.kind} {i.name} -> {i.value} ({i.cls})")
            for note in r["notes"]:
                tr.write_line(f"    note: {note}")
            if r["hook_error"] is not None:
                tr.write_line(f"    hook switched off after an internal error: {r['hook_error']!r}")

    def pytest_unconfigure(self, config):
        self.controller.stop_run()


def _write_imported(tr, c: "Controller", imported: list) -> None:
    """The missing names that were modules: imported on the code's behalf (or, where not
    installed, injected with the package named)."""
    from ..engine.autoimport import describe
    for m in imported:
        where = m.get("file", "")
        if c.rootdir and where and not where.startswith("<"):
            where = os.path.relpath(where, c.rootdir)
        for line in describe([m]):
            tr.write_line(f"    {where}: {line}")


def _is_dummy(obj) -> bool:
    t = type(obj)
    return t.__module__ == "lexecutor_c._core" and t.__name__ in ("Dummy", "DummyResource")


def recover_test_function(collector, name: str):
    """A test function whose decorator is an injected value (``@freeze_time(...)`` with
    freezegun missing) became that value's result, a Dummy, when its module ran as a twin.
    Its code is still in the twin module: make the function again from it, undecorated,
    in the module's globals.  Returns ``(function, decorators as written)`` or None."""
    from . import hook
    owner = getattr(collector, "obj", None)
    module = getattr(collector, "module", None)
    g = getattr(module, "__dict__", None)
    filename = str(getattr(collector, "path", "") or "")
    if g is None or not filename:
        return None
    qual = name if isinstance(owner, type(module)) else \
        f"{getattr(owner, '__qualname__', '')}.{name}"
    found = hook.twin_codes(filename, qual)
    if len(found) != 1:
        return None
    code = found[0]
    if code.co_freevars:
        return None
    import types
    fn = types.FunctionType(code, g, name)
    fn.__qualname__ = qual
    fn.__module__ = g.get("__name__", fn.__module__)
    decorators = hook.decorators_of(filename, code)
    lost = []
    scope = dict(vars(owner)) if isinstance(owner, type) else {}
    for d in reversed(decorators):
        # the decorators that are real (pytest.mark.parametrize...) are applied again, in
        # order; those that evaluate to an injected value are left out
        try:
            # compiled under its own name: code named after the file would be a target of
            # the run (its twin, the module body, would run instead)
            with hook.paused():
                value = eval(compile(d[1:], "<lexecutor_c: decorator>", "eval"), g, scope)
            if _is_dummy(value):
                raise LookupError(d)
            new = value(fn)
            if _is_dummy(new) or not callable(new):
                raise LookupError(d)
            fn = new
        except Exception:
            lost.append(d)
    return fn, lost[::-1]


#: pytest's own outcomes (skip, xfail, exit, fail from a hook) are no test failures to judge
_OUTCOMES = (pytest.skip.Exception, pytest.exit.Exception, pytest.xfail.Exception)


def _with_lines(cv: dict, lines) -> dict:
    extra = set(lines) & set(cv["uncovered"])
    if not extra:
        return cv
    return {**cv, "covered": sorted(set(cv["covered"]) | extra),
            "uncovered": [ln for ln in cv["uncovered"] if ln not in extra]}


def _outcome(report) -> str:
    if report.when != "call" and report.failed:
        return "error"
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else "xpassed"
    return report.outcome


def _verdict_line(v: dict) -> str:
    where = f"{v['file']}:{v['line']}" if v.get("file") and v.get("line") else ""
    op = f" `{v['operation']}`" if v.get("operation") else ""
    out = f"{v['verdict']}: {v['why']}" + (f" at {where}{op}" if where else "")
    if v.get("injected"):
        out += "; injected: " + "; ".join(v["injected"][:3])
    return out


def _counts(c: "Controller") -> dict:
    failed = [n for n, o in c.outcomes.items() if o == "failed" or
              (o == "xfailed" and n in c.verdicts)]
    by: dict = {"real": [], "made-up": [], "unknown": []}
    for n in failed:
        by[c.verdicts.get(n, {}).get("verdict", "unknown")].append(n)
    return {"failed": failed, **by}


def _write_verdicts(tr, c: "Controller") -> None:
    k = _counts(c)
    if not k["failed"]:
        return
    tr.write_sep("=", "lexecutor_c: failures")
    n = len(k["failed"])
    strict = " (made-up ones reported as xfail: --lexecute-strict)" if c.strict else ""
    tr.write_line(f"{n} failed: {len(k['made-up'])} through made-up values, "
                  f"{len(k['real'])} real, {len(k['unknown'])} unknown{strict}")
    for label in ("real", "unknown", "made-up"):
        for nodeid in k[label]:
            tr.write_line(f"{label.upper():8} {nodeid}")
            tr.write_line("         " + _verdict_line(c.verdicts.get(
                nodeid, {"verdict": "unknown", "why": "no exception was seen (a hook or "
                         "fixture failed the test)"})).split(": ", 1)[1])


def _lines_ran(cov: dict) -> tuple[int, int]:
    ran = total = 0
    for f in cov.values():
        ran += f["ran"]
        total += f["total"]
    return ran, total


def _write_coverage(tr, c: "Controller") -> None:
    from .coverage_data import write
    try:
        summary = write(c)
    except Exception as e:          # a usage problem (coverage missing, unwritable file)
        tr.write_line(f"lexecutor_c: --lexecute-cov: {type(e).__name__}: {e}", red=True)
        return
    tr.write_sep("=", "lexecutor_c: what ran")
    ran, total = _lines_ran(summary["files"])
    tr.write_line(f"{ran} of {total} lines ran, in {len(summary['files'])} files "
                  f"(coverage.py data: {summary['data']}; injected values: "
                  f"{summary['side_table']})")
    for f, info in sorted(summary["files"].items()):
        missed = info["not_ran"]
        named = ""
        if missed and len(missed) <= 8:
            named = f" (not run: lines {', '.join(map(str, missed))})"
        tr.write_line(f"    {c.relpath(f)}: {info['ran']} of {info['total']} lines ran{named}")


def _write_report(tr, c: "Controller") -> None:
    import json
    k = _counts(c)
    tests = []
    for nodeid, outcome in c.outcomes.items():
        r = c.results.get(nodeid, {})
        t: dict = {"nodeid": nodeid, "outcome": outcome}
        if nodeid in c.verdicts:
            t.update(c.verdicts[nodeid])
        t["injections"] = [{"file": c.relpath(i.file), "line": i.line, "kind": i.kind,
                            "name": i.name, "cls": i.cls, "value": i.value}
                           for i in r.get("injections", [])]
        t["fixtures"] = list(r.get("fixtures", []))
        t["imported"] = [{**m, "file": c.relpath(m["file"])} if m.get("file") else dict(m)
                         for m in r.get("imported", [])]
        tests.append(t)
    data = {"summary": {"tests": len(c.outcomes), "failed": len(k["failed"]),
                        "real": len(k["real"]), "made-up": len(k["made-up"]),
                        "unknown": len(k["unknown"]), "strict": c.strict},
            "tests": tests}
    try:
        with open(str(c.report_file), "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
    except OSError as e:
        tr.write_line(f"lexecutor_c: --lexecute-report: cannot write {c.report_file}: {e}",
                      red=True)
        return
    tr.write_line(f"lexecutor_c: report written to {c.report_file}")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "lexecute(*targets, predictor='naive', seed=None): run this test in lexecutor_c's "
        "transparent mode; targets are extra functions, modules or module patterns")
    if config.pluginmanager.get_plugin(_PLUGIN_NAME) is None:
        _register(config)


_MARK_USE = re.compile(rb"\bmark\.([A-Za-z_][A-Za-z0-9_]*)")
_BUILTIN_MARKS = {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings",
                  "lexecute"}


def marks_used(dirs: list, limit: int = 5000) -> set:
    """The ``pytest.mark.NAME`` names the project's Python files use (NAME of any
    ``mark.NAME``), for the markers a missing plugin would have registered."""
    found: set = set()
    seen = 0
    for top in dirs:
        for base, subdirs, files in os.walk(top):
            subdirs[:] = [d for d in subdirs if not d.startswith(".") and d not in _NOT_PROJECT
                          and d not in ("dist-packages",)]
            for f in files:
                if not f.endswith(".py"):
                    continue
                seen += 1
                if seen > limit:
                    return found
                try:
                    with open(os.path.join(base, f), "rb") as fh:
                        data = fh.read(1 << 20)
                except OSError:
                    continue
                found.update(m.decode() for m in _MARK_USE.findall(data))
    return found - _BUILTIN_MARKS


def register_unknown_marks(config, dirs: list) -> list:
    """Register the marks the project uses that nobody registered (a test plugin that is
    not installed, such as pytest-cov's ``no_cover``): without it pytest warns about each
    (an error under ``filterwarnings = error`` or ``--strict-markers``).  Returns them."""
    known = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    added = sorted(m for m in marks_used(dirs) if m not in known)
    for m in added:
        config.addinivalue_line(
            "markers", f"{m}: used by the project, registered by lexecutor_c --lexecute "
            "(the plugin that defines it may not be installed)")
    return added


def _register(config) -> None:
    opt = config.option
    spec = getattr(opt, "lexecute", None)
    rootdir = str(getattr(config, "rootpath", "") or "")
    problem = extension_problem()
    if problem is not None and spec is None:
        # someone else's pytest run in an environment with a broken lexecutor_c: one
        # warning, nothing else
        config.issue_config_time_warning(LexecutorUnavailableWarning(
            f"lexecutor_c's pytest plugin is installed but cannot work here ({problem}); "
            "--lexecute and @pytest.mark.lexecute are unavailable (-p no:lexecutor_c "
            "silences this)"), stacklevel=2)
    controller = Controller(
        enabled=spec is not None,
        patterns=_patterns(spec) or (_project_targets(config, rootdir)
                                     if spec is not None and rootdir else []),
        predictor=getattr(opt, "lexecute_predictor", None) or "naive",
        seed=getattr(opt, "lexecute_seed", None),
        report=not getattr(opt, "lexecute_no_report", False),
        rootdir=rootdir,
        unavailable=problem,
        strict=bool(getattr(opt, "lexecute_strict", False)),
        report_file=getattr(opt, "lexecute_report", None),
        cov_file=getattr(opt, "lexecute_cov", None),
        import_missing=bool(getattr(opt, "lexecute_import_missing", True)),
    )
    config.pluginmanager.register(LexecutePlugin(controller), _PLUGIN_NAME)
    if controller.enabled and rootdir and not _patterns(spec):
        try:
            register_unknown_marks(config, [t for t in controller.patterns
                                            if os.path.isdir(t)])
        except (OSError, ValueError):
            pass
    controller.start_run()


def _project_targets(config, rootdir: str) -> list[str]:
    """``--lexecute`` without a pattern: the rootdir's files and packages, and the folders
    of the paths given (the conftest files pytest loads from them)."""
    targets = default_targets(rootdir)
    ns = getattr(config, "known_args_namespace", None) or config.option
    args = list(getattr(ns, "file_or_dir", None) or [])
    if not args:
        try:
            args = list(config.getini("testpaths") or [])
        except (ValueError, KeyError):
            args = []
    invocation = str(config.invocation_params.dir)
    real_root = os.path.join(os.path.realpath(rootdir), "")
    for d in argument_dirs(args, bool(getattr(ns, "pyargs", False)), invocation):
        if not os.path.join(d, "").startswith(real_root):
            targets.append(d)
    return targets


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_parse(pluginmanager, args):
    """A plugin loaded before the command line is parsed (``-p``, ``PYTEST_PLUGINS``):
    keep ``--lexecute tests/test_x.py`` a path before pytest finds its rootdir."""
    if isinstance(args, list):
        split_attached_value(args)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Start the run-wide session before conftest files and test modules are
    imported, so module targets imported by them already run instrumented."""
    if isinstance(args, list) and split_attached_value(args):
        # loaded through its entry point: the early parse already took the path as the
        # option's value; parse again as pytest does (the same list is parsed in full later)
        confcutdir = early_config.known_args_namespace.confcutdir
        early_config.known_args_namespace = parser.parse_known_args(
            args, namespace=copy.copy(early_config.option))
        if early_config.known_args_namespace.confcutdir is None:
            early_config.known_args_namespace.confcutdir = confcutdir
    ns = early_config.known_args_namespace
    spec = getattr(ns, "lexecute", None)
    if spec is not None and early_config.pluginmanager.get_plugin(_PLUGIN_NAME) is None:
        for name in ("lexecute_predictor", "lexecute_seed", "lexecute_no_report",
                     "lexecute_strict", "lexecute_report", "lexecute_cov"):
            setattr(early_config.option, name, getattr(ns, name, None))
        early_config.option.lexecute_import_missing = getattr(ns, "lexecute_import_missing",
                                                              True)
        early_config.option.lexecute = spec
        _register(early_config)
