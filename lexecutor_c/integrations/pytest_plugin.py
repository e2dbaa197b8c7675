"""pytest plugin: run tests with the code under test in transparent mode.

    pytest --lexecute                 # the project's code (tests and code under test)
    pytest --lexecute='myproj*'       # test functions + the modules matching the pattern(s)
    @pytest.mark.lexecute             # this test (without the option)
    @pytest.mark.lexecute("myproj.util", predictor="random")

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

import importlib.util
import os
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


def pytest_addoption(parser):
    group = parser.getgroup("lexecutor_c", "learning-guided execution (lexecutor_c)")
    group.addoption(
        "--lexecute", action="store", nargs="?", const="", default=None, metavar="PATTERN",
        dest="lexecute",
        help="run tests in transparent mode, missing values injected: without PATTERN "
             "every Python file under the rootdir (tests and the code under test) and the "
             "rootdir's packages run instrumented; with PATTERN (fnmatch, comma-separated) the "
             "test functions and the modules whose names match")
    group.addoption(
        "--lexecute-predictor", action="store", default="naive", dest="lexecute_predictor",
        metavar="NAME", help="predictor for injected values (default: naive)")
    group.addoption(
        "--lexecute-seed", action="store", type=int, default=None, dest="lexecute_seed",
        metavar="N", help="seed of the predictor / randomized values")
    group.addoption(
        "--lexecute-no-report", action="store_true", default=False, dest="lexecute_no_report",
        help="do not list injected values in the terminal summary")


def _patterns(spec: Optional[str]) -> list[str]:
    return [p.strip() for p in (spec or "").split(",") if p.strip()]


class Controller:
    """The run-wide state: the options, the session for module targets and
    the per-test results."""

    def __init__(self, enabled: bool, patterns: list, predictor: str, seed, report: bool,
                 rootdir: str = "", unavailable: Optional[str] = None):
        self.enabled = enabled
        self.patterns = patterns         # the run-wide targets: patterns, names, folders
        self.unavailable = unavailable   # why the extension cannot be used; None: it can
        self.warned = unavailable is not None
        self.options = {"predictor": predictor, "seed": seed}
        self.report = report
        self.rootdir = rootdir
        self.run_session = None
        self.results: dict[str, dict] = {}     # nodeid -> {"injections", "fixtures", "notes"}

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
            self.run_session = hook.enable(self.patterns, **self.options)

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

    def record(self, item, session, fixtures: list) -> None:
        injections, notes, coverage = session.injections, list(session.notes), session.coverage
        error = session.hook_error
        run = self.run_session
        if run is not None:
            injections = run.injections + injections
            notes += [n for n in run.notes if n not in notes]
            coverage = {**run.coverage, **coverage}
            error = error or run.hook_error
        self.results[item.nodeid] = {"injections": injections, "fixtures": fixtures,
                                     "notes": notes, "coverage": coverage, "hook_error": error}


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
        session = hook.Session(targets, **options)
        if c.run_session is not None:
            c.run_session.reset()       # the module targets' values of this test only
        session.enable()
        try:
            return (yield)
        finally:
            session.disable()
            c.record(item, session, getattr(item, "_lexecute_fixtures", []))

    def pytest_terminal_summary(self, terminalreporter):
        c = self.controller
        if not c.report or not c.results:
            return
        tr = terminalreporter
        tr.write_sep("=", "lexecutor_c: injected values")
        for nodeid, r in c.results.items():
            injections, fixtures = r["injections"], r["fixtures"]
            if not injections and not fixtures and not r["notes"] and r["hook_error"] is None:
                tr.write_line(f"{nodeid}: nothing injected")
                continue
            tr.write_line(f"{nodeid}: {len(injections) + len(fixtures)} injected")
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


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "lexecute(*targets, predictor='naive', seed=None): run this test in lexecutor_c's "
        "transparent mode; targets are extra functions, modules or module patterns")
    if config.pluginmanager.get_plugin(_PLUGIN_NAME) is None:
        _register(config)


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
        patterns=_patterns(spec) or (default_targets(rootdir) if spec is not None and rootdir
                                     else []),
        predictor=getattr(opt, "lexecute_predictor", None) or "naive",
        seed=getattr(opt, "lexecute_seed", None),
        report=not getattr(opt, "lexecute_no_report", False),
        rootdir=rootdir,
        unavailable=problem,
    )
    config.pluginmanager.register(LexecutePlugin(controller), _PLUGIN_NAME)
    controller.start_run()


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Start the run-wide session before conftest files and test modules are
    imported, so module targets imported by them already run instrumented."""
    ns = early_config.known_args_namespace
    spec = getattr(ns, "lexecute", None)
    if spec is not None and early_config.pluginmanager.get_plugin(_PLUGIN_NAME) is None:
        for name in ("lexecute_predictor", "lexecute_seed", "lexecute_no_report"):
            setattr(early_config.option, name, getattr(ns, name, None))
        early_config.option.lexecute = spec
        _register(early_config)
