"""Differential check: CPython's own test suites against instrumented modules.

Each case runs a stdlib test module (``test.test_json``, ...) twice in a fresh
interpreter: once as is, once with its target modules (``json`` and
``json.*``, ...) instrumented by ``lexecutor_c/importhook.py`` and run with
pass-through loaders.  Both runs must give the same outcome for every test id
(passed, failed, error, skipped, expected failure, unexpected success).
The instrumented run must also show that the hook really instrumented the
modules the tests use (hook hits per module, loader calls counted).

Loaders: ``passthrough`` (pure Python, tests/passthrough.py) and ``runtime``
(the C runtime, ``lexecutor_c._core.Runtime(predictor="as-is").loaders()``,
skipped while it does not exist).

    python -m pytest tests/test_stdlib_differential.py -m "not slow"   # smoke
    python -m pytest tests/test_stdlib_differential.py -m slow         # all cases
    python tests/test_stdlib_differential.py test_json json            # one case, report
"""
# The child part of this file runs before the target modules may be imported:
# keep the module-level imports to ones that import none of them.
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHILD_TIMEOUT = 600

# test module -> (target modules, modules the hook must have instrumented)
CASES = {
    "test_json": (["json"], ["json", "json.decoder", "json.encoder", "json.scanner"]),
    "test_re": (["re"], ["re", "re._parser", "re._compiler"]),
    "test_collections": (["collections"], ["collections"]),
    "test_functools": (["functools"], ["functools"]),
    "test_dataclasses": (["dataclasses"], ["dataclasses"]),
    "test_textwrap": (["textwrap"], ["textwrap"]),
    "test_statistics": (["statistics"], ["statistics"]),
    "test_fractions": (["fractions"], ["fractions"]),
    "test_heapq": (["heapq"], ["heapq"]),
    "test_bisect": (["bisect"], ["bisect"]),
    "test_difflib": (["difflib"], ["difflib"]),
    "test_shlex": (["shlex"], ["shlex"]),
    "test_ipaddress": (["ipaddress"], ["ipaddress"]),
    "test_base64": (["base64"], ["base64"]),
    "test_pprint": (["pprint"], ["pprint"]),
    "test_configparser": (["configparser"], ["configparser"]),
    "test_tomllib": (["tomllib"], ["tomllib", "tomllib._parser"]),
    "test_string": (["string"], ["string"]),
}
SMOKE = ["test_textwrap", "test_bisect", "test_shlex"]
# Known, explained differences per loader kind: test id prefix -> why.  These
# ids are left out of the comparison (and listed in its output).
KNOWN_DIFFERENCES = {
    "passthrough": {
        # the pure-Python loaders add a frame per call: recursion limits come sooner
        "test.test_tomllib.test_misc.TestMiscellaneous.test_inline_array_recursion_limit":
            "recursion limit (Python loader frames)",
        "test.test_tomllib.test_misc.TestMiscellaneous.test_inline_table_recursion_limit":
            "recursion limit (Python loader frames)",
    },
}
LOADER_KINDS = ["passthrough", "runtime"]


# -- child: run one test module, write a JSON report ----------------------------

def _make_loaders(kind):
    if kind == "passthrough":
        import passthrough
        made = passthrough.Loaders()
        return made.loaders, made
    if kind == "runtime":
        from lexecutor_c import _core
        runtime = _core.Runtime(predictor="as-is")
        return runtime.loaders, runtime
    raise ValueError(kind)


class _Precomputed:
    """An instrumented module made by the parent: its text and its code object."""

    def __init__(self, source, code):
        self.source, self._code = source, code

    def compile(self, filename=None):
        import marshal
        return marshal.loads(self._code)  # a fresh code object per import


def _child_instrument():
    """The hook's instrument function in the child: the parent's results.

    The child never runs the instrumenter: its Python side imports (and
    imports lazily, e.g. ast.walk imports collections) modules that may be
    targets, and the tests must see fresh, instrumented copies of those.
    """
    import marshal
    with open(os.environ["LX_CHILD_PRECOMPUTED"], "rb") as f:
        made = marshal.load(f)

    def instrument(source, filename):
        return _Precomputed(*made[filename])
    return instrument


def _loader_report(made):
    """What the loaders saw: calls, markers reached, swallowed imports, injections."""
    if made is None:
        return {"loader_calls": {}, "markers": 0, "import_failures": [], "injections": []}
    if hasattr(made, "reached"):  # the C runtime
        return {"loader_calls": {"markers reached": len(made.reached())},
                "markers": len(made.reached()),
                "import_failures": [list(map(str, f)) for f in made.failed_imports],
                "injections": [list(map(str, f)) for f in made.injections]}
    return {"loader_calls": dict(made.counts), "markers": made.counts["l"],
            "import_failures": [list(map(str, f)) for f in made.import_failures],
            "injections": []}


def _is_target(name, targets):
    return any(name == t or name.startswith(t + ".") for t in targets)


def child(test_module, targets, loader_kind, out_path):
    # -S: site imports re, collections, ...; site-packages comes from the parent
    sys.path[:0] = [ROOT, HERE]
    sys.path.extend(p for p in os.environ.get("LX_CHILD_SITE", "").split(os.pathsep) if p)
    # The same set-up in every run, plain or not: the instrumenter's package
    # may import target modules (lexecutor_c imports dataclasses, tokenize, ...).
    from lexecutor_c.engine import importhook
    hook = made = None
    if loader_kind != "none":
        instrument = _child_instrument()
        loaders, made = _make_loaders(loader_kind)
    # Targets imported by the set-up are dropped from sys.modules, so that the
    # tests import them afresh (through the hook when it is on); the set-up's
    # own modules keep the copies they already hold.
    preloaded = sorted(m for m in sys.modules if _is_target(m, targets))
    if loader_kind != "none":
        hook = importhook.install(targets, loaders, instrument=instrument)
    for m in preloaded:
        del sys.modules[m]
    import json
    import time
    import traceback
    import unittest

    outcomes, details = {}, {}

    class Recorder(unittest.TestResult):
        def _put(self, test, outcome, err=None):
            tid = test.id()
            outcomes[tid] = outcome
            if err is not None:
                details[tid] = "".join(traceback.format_exception(*err))[-3000:]

        def addSuccess(self, test):
            super().addSuccess(test)
            outcomes.setdefault(test.id(), "passed")

        def addFailure(self, test, err):
            super().addFailure(test, err)
            self._put(test, "failed", err)

        def addError(self, test, err):
            super().addError(test, err)
            self._put(test, "error", err)

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            self._put(test, "skipped")

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            self._put(test, "expected failure")

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            self._put(test, "unexpected success")

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                outcome = "failed" if issubclass(err[0], test.failureException) else "error"
                self._put(subtest, outcome, err)

    t0 = time.perf_counter()
    suite = unittest.defaultTestLoader.loadTestsFromName("test." + test_module)
    result = Recorder()
    suite.run(result)
    report = {
        "test_module": test_module,
        "loaders": loader_kind,
        "seconds": time.perf_counter() - t0,
        "tests_run": result.testsRun,
        "counts": {k: sum(1 for v in outcomes.values() if v == k) for k in set(outcomes.values())},
        "outcomes": outcomes,
        "details": details,
        "preloaded": preloaded,
        "hits": dict(hook.hits) if hook else {},
        "live": {name: "_l_" in getattr(m, "__dict__", {})
                 for name, m in list(sys.modules.items()) if _is_target(name, targets)},
        **_loader_report(made),
    }
    with open(out_path, "w") as f:
        json.dump(report, f)


# -- parent: run both, compare --------------------------------------------------

def _target_files(targets):
    """The .py files of *targets* (a package: all of its .py files)."""
    import importlib.util
    files = []
    for t in targets:
        spec = importlib.util.find_spec(t)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        if spec.submodule_search_locations:
            for d in spec.submodule_search_locations:
                for dirpath, dirnames, names in os.walk(d):
                    dirnames[:] = [n for n in dirnames if n != "__pycache__"]
                    files += [os.path.join(dirpath, n) for n in names if n.endswith(".py")]
        else:
            files.append(spec.origin)
    return sorted(files)


def _precompute(targets, tmpdir):
    """Instrument and compile every file of *targets* here, for the child."""
    sys.path.insert(0, ROOT)
    import benchmarks
    import marshal
    made = {}
    for path in _target_files(targets):
        res = benchmarks.instrument(benchmarks.read_bytes(path), path)
        made[path] = (res.source, marshal.dumps(benchmarks.compile_instrumented(res, path)))
    out = os.path.join(tmpdir, "precomputed-" + "-".join(targets) + ".marshal")
    with open(out, "wb") as f:
        marshal.dump(made, f)
    return out


def run_child(test_module, targets, loader_kind, tmpdir, timeout=CHILD_TIMEOUT):
    import json
    import subprocess
    out = os.path.join(tmpdir, f"{test_module}-{loader_kind}.json")
    cmd = [sys.executable, "-I", "-S", os.path.abspath(__file__), "--child",
           test_module, ",".join(targets), loader_kind, out]
    env = dict(os.environ, PYTHONHASHSEED="0",
               LX_CHILD_SITE=os.pathsep.join(p for p in sys.path if p.endswith("-packages")))
    if loader_kind != "none":
        env["LX_CHILD_PRECOMPUTED"] = _precompute(targets, tmpdir)
    proc = subprocess.run(cmd, cwd=tmpdir, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0 or not os.path.exists(out):
        raise AssertionError(f"{test_module} [{loader_kind}] child exited {proc.returncode}:\n"
                             f"{proc.stderr[-4000:]}")
    with open(out) as f:
        return json.load(f)


def _without(outcomes, ignore):
    return {t: o for t, o in outcomes.items() if not t.startswith(tuple(ignore))}


def _counts(outcomes):
    counts = {}
    for o in outcomes.values():
        counts[o] = counts.get(o, 0) + 1
    return counts


def compare(base, inst, must_hit, ignore=()):
    """Problems (list of str) between a plain and an instrumented report.

    Test ids starting with a prefix in *ignore* are left out (known differences).
    """
    problems = []
    plain = sorted(m for m in must_hit if inst["live"].get(m) is False)
    if plain:
        problems.append(f"sys.modules holds uninstrumented {plain} after the tests")
    missed = [m for m in must_hit if inst["hits"].get(m, 0) < 1]
    if missed:
        problems.append(f"the hook never instrumented {missed} (hits: {inst['hits']})")
    if inst["tests_run"] != base["tests_run"]:
        problems.append(f"tests run: {base['tests_run']} plain, {inst['tests_run']} instrumented")
    a, b = _without(base["outcomes"], ignore), _without(inst["outcomes"], ignore)
    if _counts(a) != _counts(b):
        problems.append(f"outcome counts differ: plain {_counts(a)}, instrumented {_counts(b)}")
    diff = sorted(t for t in a.keys() | b.keys() if a.get(t) != b.get(t))
    for tid in diff[:20]:
        line = f"  {tid}: plain {a.get(tid, 'absent')}, instrumented {b.get(tid, 'absent')}"
        detail = inst["details"].get(tid) or base["details"].get(tid)
        if detail:
            line += "\n" + "\n".join("      " + ln for ln in detail.strip().splitlines()[-12:])
        problems.append(line)
    if len(diff) > 20:
        problems.append(f"  ... {len(diff) - 20} more test ids differ")
    if inst["import_failures"]:
        problems.append(f"_i_ swallowed ImportErrors the plain run did not have: {inst['import_failures'][:5]}")
    if inst.get("injections"):
        problems.append(f"values were injected in a run with nothing missing: {inst['injections'][:5]}")
    return problems


def summary(base, inst):
    return (f"{inst['test_module']} [{inst['loaders']}]: {inst['tests_run']} tests; plain "
            f"{base['counts']} in {base['seconds']:.1f}s; instrumented {inst['counts']} in "
            f"{inst['seconds']:.1f}s; hook hits {sum(inst['hits'].values())} "
            f"({', '.join(sorted(inst['hits']))}); loader calls {inst['loader_calls']}"
            + (f"; re-imported after set-up: {', '.join(inst['preloaded'])}" if inst["preloaded"] else ""))


# -- pytest -------------------------------------------------------------------

if __name__ != "__main__":
    import pytest

    _baselines = {}

    def _available(kind):
        if kind == "runtime":
            try:
                from lexecutor_c import _core
            except ImportError:
                return False
            return hasattr(_core, "Runtime")
        return True

    def _real_instrumenter():
        sys.path.insert(0, ROOT)
        import benchmarks
        return benchmarks.instrumenter_name() == "lexecutor_c.instrument"

    def _check(test_module, kind, tmp_path_factory):
        if not _available(kind):
            pytest.skip(f"{kind} loaders are not built yet")
        targets, must_hit = CASES[test_module]
        tmp = str(tmp_path_factory.mktemp(test_module))
        if test_module not in _baselines:
            _baselines[test_module] = run_child(test_module, targets, "none", tmp)
        base = _baselines[test_module]
        inst = run_child(test_module, targets, kind, tmp)
        print("\n" + summary(base, inst))
        assert base["tests_run"] > 0, f"{test_module} ran no test"
        ignore = KNOWN_DIFFERENCES.get(kind, {})
        for tid, why in ignore.items():
            if tid.startswith("test." + test_module + "."):
                print(f"  not compared: {tid} ({why})")
        problems = compare(base, inst, must_hit, ignore)
        if _real_instrumenter() and inst["markers"] == 0:
            problems.append("no line marker ran: the instrumented code never executed")
        assert not problems, f"{test_module} [{kind}]:\n" + "\n".join(problems)

    @pytest.mark.parametrize("kind", LOADER_KINDS)
    @pytest.mark.parametrize("test_module", SMOKE)
    def test_smoke(test_module, kind, tmp_path_factory):
        _check(test_module, kind, tmp_path_factory)

    @pytest.mark.slow
    @pytest.mark.parametrize("kind", LOADER_KINDS)
    @pytest.mark.parametrize("test_module", sorted(set(CASES) - set(SMOKE)))
    def test_differential(test_module, kind, tmp_path_factory):
        _check(test_module, kind, tmp_path_factory)

    def test_compare_reports_differences():
        """The comparison itself: a changed outcome and a missed hook are reported."""
        base = {"tests_run": 2, "counts": {"passed": 2}, "outcomes": {"t.a": "passed", "t.b": "passed"},
                "details": {}}
        inst = dict(base, counts={"passed": 1, "failed": 1},
                    outcomes={"t.a": "passed", "t.b": "failed"},
                    details={"t.b": "Traceback ...\nAssertionError: boom"},
                    live={"m": True}, hits={"m": 1}, import_failures=[])
        problems = compare(base, inst, ["m", "m.sub"])
        text = "\n".join(problems)
        assert "never instrumented ['m.sub']" in text
        assert "t.b: plain passed, instrumented failed" in text and "boom" in text
        assert compare(base, dict(base, live={"m": True}, hits={"m": 1}, import_failures=[]),
                       ["m"]) == []
        assert "uninstrumented ['m']" in "\n".join(
            compare(base, dict(inst, live={"m": False}), ["m"]))
        assert compare(base, inst, ["m"], ignore=["t.b"]) == []


# -- the harness's own parts: pass-through loaders and the import hook ---------

if __name__ != "__main__":

    def _pt():
        sys.path.insert(0, HERE)
        import passthrough
        return passthrough

    def _run_with_passthrough(src):
        pt = _pt()
        made = pt.Loaders()
        g = dict(made.loaders(), __name__="pt_case")
        exec(compile(src, "<pt>", "exec"), g)
        return g, made

    def test_passthrough_frame_sensitive_builtins():
        import warnings
        g, _ = _run_with_passthrough(
            "class A:\n"
            "    def m(self): return 'A'\n"
            "class B(A):\n"
            "    def m(self): return _c_(1, super).m() + 'B'\n"
            "def f():\n"
            "    x = 5\n"
            "    return _c_(2, locals), _c_(3, globals)['__name__'], _c_(4, eval, 'x + 1')\n"
            "def w():\n"
            "    _c_(5, warn, 'w', UserWarning, stacklevel=2)\n"
            "def outer():\n"
            "    _c_(6, w)\n")
        g["warn"] = warnings.warn
        assert g["B"]().m() == "AB"
        assert g["f"]() == ({"x": 5}, "pt_case", 6)
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            g["outer"]()
        assert [(w.filename, w.lineno) for w in ws] == [("<pt>", 11)]

    def test_passthrough_name_forms():
        g, made = _run_with_passthrough(
            "G = 1\n"
            "class C:\n"
            "    locals = None\n"
            "    a = 2\n"
            "    b = _n_(1, 'a', lambda: a, ...)\n"        # class namespace, read from the frame
            "    c = _n_(2, 'G', lambda: G, ...)\n"        # not in it: the thunk
            "d = _n_(3, 'G'), _n_(4, 'len')\n"              # global, builtin
            "x = 1\n"
            "x = _op_.iadd(_n_(5, 'x'), 2)\n")
        assert (g["C"].b, g["C"].c, g["d"], g["x"]) == (2, 1, (1, len), 3)
        try:
            g["_n_"](6, "no_such_global_lx")
        except NameError as err:
            assert err.name == "no_such_global_lx"
        else:
            raise AssertionError("a missing global must raise NameError")

    def test_passthrough_imports():
        g, made = _run_with_passthrough(
            "a = _i_(1, 'os.path', 0, None)\n"
            "b = _i_(2, 'os.path', 0, ())\n"
            "c, d = _i_(3, 'json', 0, ('decoder', 'no_such_name'))\n"
            "e = _i_(4, 'no_such_module_lx', 0, None)\n"
            "_i_(5, 'string', 0, '*')\n")
        pt = _pt()
        import json.decoder
        import os.path
        assert g["a"] is os and g["b"] is os.path and g["c"] is json.decoder
        assert g["d"] is pt.MISSING and g["e"] is pt.MISSING
        assert "ascii_letters" in g and "Template" in g
        assert [f[0] for f in made.import_failures] == [3, 4]
        try:
            g["_n_"](6, "e", lambda: g["e"])
        except NameError as err:
            assert "e" in str(err)
        else:
            raise AssertionError("reading a MISSING import must raise NameError")
        assert g["_n_"](7, "x", lambda: 1, {"x": 2}) == 2     # class namespace first
        assert g["_c_"](8, dict, iid=1, fn=2) == {"iid": 1, "fn": 2}
        assert g["_l_"](9) is None and g["_l_"](10, "v") == "v"
        assert made.counts == {"n": 2, "a": 0, "c": 1, "l": 2, "i": 5}

    def test_import_hook_instruments_chosen_modules(tmp_path):
        sys.path.insert(0, ROOT)
        from lexecutor_c.engine import importhook
        pkg = tmp_path / "lxpkg"
        (pkg / "sub").mkdir(parents=True)
        (pkg / "__init__.py").write_text("VALUE = 1\n")
        (pkg / "sub" / "__init__.py").write_text("")
        (pkg / "sub" / "leaf.py").write_text("def f():\n    return 2\n")
        (tmp_path / "lxother.py").write_text("VALUE = 3\n")
        seen = []

        class Result:
            def __init__(self, source, filename):
                self.source = source.decode() + "_l_(1)\n"
                self.filename = filename

            def compile(self, filename=None):
                return compile(self.source, filename or self.filename, "exec")

        def fake_instrument(source, filename):
            seen.append(os.path.basename(filename))
            return Result(source, filename)

        made = _pt().Loaders()
        sys.path.insert(0, str(tmp_path))
        hook = importhook.install(["lxpkg"], made, instrument=fake_instrument)
        try:
            import lxother
            import lxpkg.sub.leaf
        finally:
            importhook.uninstall(hook)
            sys.path.remove(str(tmp_path))
            for m in [m for m in sys.modules if m.startswith(("lxpkg", "lxother"))]:
                del sys.modules[m]
        assert hook not in sys.meta_path
        assert hook.hits == {"lxpkg": 1, "lxpkg.sub": 1, "lxpkg.sub.leaf": 1}
        assert seen == ["__init__.py", "__init__.py", "leaf.py"]
        assert made.counts["l"] == 3 and "_l_" not in vars(lxother)
        assert lxpkg.sub.leaf.f() == 2 and lxpkg.sub.leaf.__file__.endswith("leaf.py")
        assert set(importhook.LOADER_NAMES) <= set(vars(lxpkg.sub.leaf))


def main(argv):
    if argv[:1] == ["--child"]:
        test_module, targets, kind, out = argv[1:5]
        child(test_module, targets.split(","), kind, out)
        return 0
    import tempfile
    kinds = [k for k in LOADER_KINDS if k in argv] or ["passthrough"]
    names = [a for a in argv if a not in LOADER_KINDS] or sorted(CASES)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            targets, must_hit = CASES.get(name, ([name[5:]], [name[5:]]))  # test_x -> x
            base = run_child(name, targets, "none", tmp)
            for kind in kinds:
                inst = run_child(name, targets, kind, tmp)
                print(summary(base, inst))
                problems = compare(base, inst, must_hit, KNOWN_DIFFERENCES.get(kind, {}))
                for p in problems:
                    print("   ", p)
                bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
