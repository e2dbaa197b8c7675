"""pytest plugin: run tests with the code under test in transparent mode.

    pytest --lexecute                 # every test function runs instrumented
    pytest --lexecute='myproj*'       # ... and the modules matching the pattern(s)
    @pytest.mark.lexecute             # this test (without the option)
    @pytest.mark.lexecute("myproj.util", predictor="random")

Targets run as instrumented twins (lexecutor_c.hook): a missing name,
attribute or import inside them gets a predicted value instead of failing,
and a fixture the test asks for that nobody defines is given a Dummy.  The
terminal summary lists what was injected per test.  A test still fails for
a real reason: a wrong assert or an exception the injected values did not
cause.  Module targets are on from the start of the run (so importing them
during collection works even when they import something missing).

Registered through the ``pytest11`` entry point ``lexecutor_c``; load it by
hand with ``-p lexecutor_c.integrations.pytest_plugin``.  The structure follows
pytest-cov: all options in one group, an early ``tryfirst`` hook that starts
the run-wide part, and a plugin object that delegates to a controller.
"""
from __future__ import annotations

import os
from typing import Optional

import pytest

MARK = "lexecute"
_PLUGIN_NAME = "_lexecutor_c_controller"


def pytest_addoption(parser):
    group = parser.getgroup("lexecutor_c", "learning-guided execution (lexecutor_c)")
    group.addoption(
        "--lexecute", action="store", nargs="?", const="", default=None, metavar="PATTERN",
        dest="lexecute",
        help="run tests in transparent mode: test functions and the modules whose names "
             "match PATTERN (fnmatch, comma-separated) run instrumented, with missing values "
             "injected")
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

    def __init__(self, enabled: bool, patterns: list[str], predictor: str, seed, report: bool,
                 rootdir: str = ""):
        self.enabled = enabled
        self.patterns = patterns
        self.options = {"predictor": predictor, "seed": seed}
        self.report = report
        self.rootdir = rootdir
        self.run_session = None
        self.results: dict[str, dict] = {}     # nodeid -> {"injections", "fixtures", "notes"}

    def start_run(self) -> None:
        if self.enabled and self.patterns and self.run_session is None:
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
        if not c.wanted(item):
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
    controller = Controller(
        enabled=getattr(opt, "lexecute", None) is not None,
        patterns=_patterns(getattr(opt, "lexecute", None)),
        predictor=getattr(opt, "lexecute_predictor", None) or "naive",
        seed=getattr(opt, "lexecute_seed", None),
        report=not getattr(opt, "lexecute_no_report", False),
        rootdir=str(getattr(config, "rootpath", "")),
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
