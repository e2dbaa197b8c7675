"""The pytest plugin, run with pytester on small projects that miss a dependency."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

pytest_plugins = ["pytester"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def plugin_loaded_once(monkeypatch):
    """The tests load the plugin with -p; an installed lexecutor_c also
    registers it through its pytest11 entry point, which would load it twice."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")

CORE = '''
import requests_not_installed as requests
from yaml_not_installed import safe_load

def fetch(url):
    r = requests.get(url, timeout=3)
    return r.status_code

def settings(text):
    return safe_load(text)["debug"]

def add(a, b):
    return a + b
'''

TESTS = '''
import proj.core as core

def test_fetch_runs():
    assert core.fetch("http://example.com") is not None

def test_missing_fixture(database):
    database.insert({"id": 1})
    assert core.settings("debug: true") is not None

def test_wrong_assert():
    assert core.add(1, 2) == 4

def test_unrelated_error():
    {}["no such key"]
'''


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pkg = pytester.mkpydir("proj")
    (pkg / "core.py").write_text(CORE)
    pytester.makepyfile(test_proj=TESTS)
    return pytester


def test_without_the_option_the_project_cannot_even_be_collected(project):
    r = project.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin")
    r.assert_outcomes(errors=1)
    r.stdout.fnmatch_lines(["*ModuleNotFoundError*requests_not_installed*"])


def test_lexecute_pattern_runs_the_tests(project):
    r = project.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin", "--lexecute=proj*", "-rf")
    r.assert_outcomes(passed=2, failed=2)
    out = r.stdout.str()
    assert "FAILED test_proj.py::test_wrong_assert" in out
    assert "FAILED test_proj.py::test_unrelated_error" in out and "KeyError" in out
    r.stdout.fnmatch_lines([
        "*lexecutor_c: injected values*",
        "test_proj.py::test_fetch_runs: * injected",
        "    proj/core.py:6 attribute get -> *",
        "test_proj.py::test_missing_fixture: * injected",
        "    fixture database -> <Dummy 'database'>",
        "    proj/core.py:10 call safe_load -> *",
    ])


def test_predictor_option_and_no_report(project):
    r = project.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin", "--lexecute=proj*",
                                     "--lexecute-predictor=as-is", "--lexecute-no-report")
    # as-is never injects: the missing imports stay missing
    r.assert_outcomes(errors=1)
    assert "injected values" not in r.stdout.str()


def test_marker_without_the_option(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pytester.makepyfile(test_marked=textwrap.dedent('''
        import pytest

        @pytest.mark.lexecute
        def test_marked():
            value = helper_not_defined(3)
            assert value is not None

        @pytest.mark.lexecute(predictor="as-is")
        def test_marked_as_is():
            helper_not_defined(3)

        def test_unmarked():
            helper_not_defined(3)
    '''))
    r = pytester.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin")
    r.assert_outcomes(passed=1, failed=2)
    r.stdout.fnmatch_lines([
        "test_marked.py::test_marked: 2 injected",
        "    test_marked.py:5 name helper_not_defined -> *",
        "test_marked.py::test_marked_as_is: nothing injected",
    ])


# ---------------------------------------------------------------- --lexecute without a pattern

CLOCK = '''
import requests_not_installed as requests


def label(ts):
    return "t=" + str(ts)


def fetch(url):
    return requests.get(url, timeout=3).status_code
'''

# a test module whose test dependency is missing at its top, as in a real suite
TEST_CLOCK = '''
import freezegun_not_installed as freezegun

from proj import clock
from proj.util import twice


def test_label():
    assert clock.label(3) == "t=3"


def test_fetch():
    assert clock.fetch("http://example.com") is not None


def test_frozen():
    with freezegun.freeze_time("2020-01-01"):
        assert twice(2) == 4


def test_real_failure():
    assert twice(2) == 5
'''


def _project_with_missing_test_dependency(pytester, layout):
    base = pytester.path / "src" if layout == "src" else pytester.path
    pkg = base / "proj"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "clock.py").write_text(CLOCK)
    (pkg / "util.py").write_text("def twice(x):\n    return 2 * x\n")
    tests = pytester.path / "tests"
    tests.mkdir()
    (tests / "test_clock.py").write_text(TEST_CLOCK)
    (tests / "conftest.py").write_text("import pytest_timeout_not_installed\n")
    if layout == "src":
        (pytester.path / "pyproject.toml").write_text(
            '[tool.pytest.ini_options]\npythonpath = ["src"]\n')


@pytest.mark.parametrize("layout", ["flat", "src"])
def test_lexecute_without_pattern_covers_tests_and_code_under_test(pytester, monkeypatch,
                                                                     layout):
    """A missing test dependency (imported at the top of a test module and of a conftest)
    stops plain pytest at collection; --lexecute as typed collects and runs the suite."""
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    _project_with_missing_test_dependency(pytester, layout)
    plugin = ("-p", "lexecutor_c.integrations.pytest_plugin")
    plain = pytester.runpytest_subprocess(*plugin)
    assert plain.ret != 0
    assert "ModuleNotFoundError: No module named 'pytest_timeout_not_installed'" in \
        plain.stdout.str() + plain.stderr.str()

    r = pytester.runpytest_subprocess(*plugin, "--lexecute", "-rf")
    r.assert_outcomes(passed=3, failed=1)
    out = r.stdout.str()
    assert "FAILED tests/test_clock.py::test_real_failure" in out
    r.stdout.fnmatch_lines([
        "*lexecutor_c: injected values*",
        "tests/test_clock.py::test_fetch: * injected",
        f"    {'src/' if layout == 'src' else ''}proj/clock.py:10 attribute get -> *",
    ])


def test_lexecute_keeps_doctests_working(pytester, monkeypatch):
    """Doctest examples run in the module's namespace but are compiled from strings in
    mode "single" (an expression echoes its value): they are not the module's code and
    stay as they are, while the module itself (importing a missing dependency) runs
    instrumented.  An empty __init__.py is no target worth a note."""
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pkg = pytester.mkpydir("proj")
    (pkg / "util.py").write_text(
        'import yaml_not_installed\n\n\ndef twice(x):\n    """\n    >>> twice(2)\n'
        '    4\n    """\n'
        '    return 2 * x\n')
    r = pytester.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin",
                                      "--lexecute", "--doctest-modules", "proj")
    r.assert_outcomes(passed=1)
    assert "not instrumented" not in r.stdout.str()


def test_default_targets(tmp_path):
    from lexecutor_c.integrations.pytest_plugin import default_targets
    for d in ("pkg", "src/spkg", "notapkg", ".hidden", "build/lib/pkg", "tests"):
        (tmp_path / d).mkdir(parents=True)
    for f in ("pkg/__init__.py", "src/spkg/__init__.py", ".hidden/__init__.py",
              "notapkg/mod.py", "build/__init__.py", "tests/__init__.py"):
        (tmp_path / f).write_text("")
    assert default_targets(str(tmp_path)) == [str(tmp_path), "pkg", "tests", "spkg"]


def test_directory_target_skips_installed_packages(tmp_path):
    """A folder target covers the project's files, not an environment inside it."""
    from lexecutor_c.integrations.hook import Targets
    (tmp_path / "proj").mkdir()
    site = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    t = Targets([str(tmp_path)])
    assert t and t.dirs == [os.path.join(os.path.realpath(tmp_path), "")]
    assert t.in_dirs(str(tmp_path / "proj" / "m.py"))
    assert t.in_dirs(str(tmp_path / "tests" / "test_m.py"))
    assert not t.in_dirs(str(site / "six.py"))
    assert not t.in_dirs(str(tmp_path.parent / "elsewhere.py"))


# ---------------------------------------------------------------- the entry point stays light

PLAIN_SUITE = '''
import sys


def test_plain():
    assert "lexecutor_c.integrations.pytest_plugin" in sys.modules   # loaded by pytest11
    heavy = [m for m in ("lexecutor_c._core", "lexecutor_c._torch_shim", "torch",
                         "lexecutor_c.integrations.hook") if m in sys.modules]
    assert heavy == []
'''


def _run_plain_suite(tmp_path, pythonpath):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_plain.py").write_text(PLAIN_SUITE)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTHONPATH")}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(suite)], capture_output=True, text=True, timeout=120,
                          cwd=str(suite), env=env)


def test_entry_point_imports_nothing_heavy(tmp_path):
    """Through the installed pytest11 entry point (the editable install in this venv), a
    plain pytest run loads the plugin but neither the extension, the hook nor torch."""
    r = _run_plain_suite(tmp_path, None)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout and "warning" not in r.stdout


def _copy_without_extensions(tmp_path):
    """The package's Python files only, first on sys.path: lexecutor_c._core cannot load
    (as after a broken install), the installed entry point still names the plugin."""
    site = tmp_path / "site"
    shutil.copytree(os.path.join(ROOT, "lexecutor_c"), site / "lexecutor_c",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.pt", "*.gz"))
    # an editable install's finder would still find lexecutor_c's submodules in the
    # checkout; a wheel install has none (tests/test_wheel.py runs this case there as is)
    (site / "sitecustomize.py").write_text(
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path\n"
        "                    if not getattr(f, '__module__', '').startswith('__editable__')]\n")
    return site


def test_entry_point_without_the_extension_warns_once(tmp_path):
    site = _copy_without_extensions(tmp_path)
    r = _run_plain_suite(tmp_path, str(site))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 1 warning" in r.stdout
    assert r.stdout.count("LexecutorUnavailableWarning:") == 1
    assert "lexecutor_c._core is missing" in r.stdout


def test_lexecute_without_the_extension_is_a_usage_error(tmp_path):
    site = _copy_without_extensions(tmp_path)
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_m.py").write_text(textwrap.dedent('''
        import pytest

        @pytest.mark.lexecute
        def test_marked():
            pass

        def test_plain():
            pass
    '''))
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(site)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)]
    r = subprocess.run(cmd + ["--lexecute"], capture_output=True, text=True, timeout=120,
                       cwd=str(suite), env=env)
    assert r.returncode == 4, r.stdout + r.stderr
    assert "--lexecute: lexecutor_c cannot load its C extension" in r.stderr
    assert "Traceback" not in r.stderr
    # the marker: that test errors with the reason, the others run
    r = subprocess.run(cmd + ["-rE"], capture_output=True, text=True, timeout=120,
                       cwd=str(suite), env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 passed, 1 warning, 1 error" in r.stdout
    assert "lexecutor_c is not usable here" in r.stdout


# ---------------------------------------------------------------- invocation forms (issue 24)

FORMS_CONFTEST = "from missing_pkg import certs\n\n\ndef pytest_configure(config):\n" \
    "    config.addinivalue_line('markers', 'slowish: a marker to select by')\n"
FORMS_TEST_X = '''
import pytest


def test_a():
    assert 1


@pytest.mark.slowish
def test_b():
    assert 2
'''
FORMS_TEST_Y = "def test_c():\n    assert 3\n"


def _forms_project(pytester):
    """tests/conftest.py imports a missing package; two test modules; the tests folder is a
    package (for --pyargs)."""
    tests = pytester.path / "tests"
    tests.mkdir()
    (tests / "__init__.py").write_text("")
    (tests / "conftest.py").write_text(FORMS_CONFTEST)
    (tests / "test_x.py").write_text(FORMS_TEST_X)
    (tests / "test_y.py").write_text(FORMS_TEST_Y)
    # the same package, installed, for the run without --lexecute
    stub = pytester.path / "stub" / "missing_pkg"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("certs = None\n")


FORMS = {
    "no arguments": [],
    "a folder": ["tests"],
    "a file": ["tests/test_x.py"],
    "two files": ["tests/test_y.py", "tests/test_x.py"],
    "a node id": ["tests/test_x.py::test_b"],
    "-k": ["-k", "test_a or test_c"],
    "-k after a path": ["tests", "-k", "not test_a"],
    "-m": ["-m", "slowish", "tests"],
    "--pyargs": ["--pyargs", "tests.test_y"],
    "-p": ["-p", "no:doctest", "tests/test_x.py"],
    "--lexecute last": ["tests/test_y.py", "--lexecute"],
}


def _selected(result) -> list:
    return sorted(line.split(" ")[0] for line in result.outlines
                  if line.endswith((" PASSED", " FAILED")) or " PASSED " in line or
                  " FAILED " in line)


@pytest.mark.parametrize("form", list(FORMS))
def test_invocation_forms_select_what_they_select_without_lexecute(pytester, monkeypatch,
                                                                   form):
    """Each form runs the same tests with --lexecute (missing_pkg absent: the conftest's
    import is injected) as without it with missing_pkg installed."""
    _forms_project(pytester)
    args = FORMS[form]
    plugin = ["-p", "lexecutor_c.integrations.pytest_plugin", "-v", "-p", "no:cacheprovider"]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, str(pytester.path / "stub"),
                                                      str(pytester.path)]))
    plain = pytester.runpytest_subprocess(*plugin, *[a for a in args if a != "--lexecute"])
    want = _selected(plain)
    assert want, plain.stdout.str()
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, str(pytester.path)]))
    lexecuted = args if "--lexecute" in args else ["--lexecute", *args]
    r = pytester.runpytest_subprocess(*plugin, *lexecuted)
    assert r.ret == 0, r.stdout.str() + r.stderr.str()
    assert _selected(r) == want
    # the conftest ran as a twin: its import was injected, not a ModuleNotFoundError
    assert "ImportError while loading conftest" not in r.stdout.str() + r.stderr.str()


def test_invocation_from_a_config_file(pytester, monkeypatch):
    """--lexecute in the ini file's addopts, with testpaths: the same as on the command line."""
    _forms_project(pytester)
    (pytester.path / "pytest.ini").write_text(
        "[pytest]\naddopts = --lexecute -p no:cacheprovider\ntestpaths = tests/test_x.py\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, str(pytester.path)]))
    r = pytester.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin", "-v")
    assert r.ret == 0, r.stdout.str()
    assert _selected(r) == ["tests/test_x.py::test_a", "tests/test_x.py::test_b"]


def test_split_attached_value():
    from lexecutor_c.integrations.pytest_plugin import split_attached_value
    args = ["--lexecute", "tests/t.py", "-k", "x", "--lexecute=proj*", "--", "--lexecute", "a"]
    assert split_attached_value(args)
    assert args == ["--lexecute=", "tests/t.py", "-k", "x", "--lexecute=proj*", "--",
                    "--lexecute", "a"]
    args = ["--lexecute", "-k", "x"]
    assert not split_attached_value(args) and args == ["--lexecute", "-k", "x"]


def test_paths_outside_the_rootdir_are_targets(pytester, monkeypatch, tmp_path_factory):
    """A conftest beside a path given on the command line, outside the rootdir (set with
    --rootdir), runs as a twin too."""
    _forms_project(pytester)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([ROOT, str(pytester.path)]))
    r = pytester.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin",
                                      "-p", "no:cacheprovider", f"--rootdir={elsewhere}",
                                      "--lexecute", "tests/test_y.py")
    r.assert_outcomes(passed=1)


# ---------------------------------------------------------------- verdicts (issue 24)

VERDICT_CORE = '''
import requests_not_installed as requests


def fetch(url):
    r = requests.get(url, timeout=3)
    return r.status_code


def add(a, b):
    return a + b


def ratio(a, b):
    return a / b


def port_of(server):
    return server.port + 1
'''

VERDICT_TESTS = '''
import proj.core as core


def test_passes():
    assert core.fetch("http://example.com") is not None


def test_real_assert():
    assert core.add(1, 2) == 4


def test_real_in_code_under_test():
    assert core.ratio(1, 0) == 0


def test_made_up_return_value():
    assert core.fetch("http://example.com") == 200


def test_made_up_fixture(server):
    assert server.port + 1 == 8081


def test_made_up_in_code_under_test(server):
    assert core.port_of(server) == 8081


def test_made_up_derived(server):
    port = server.port
    wanted = port
    assert wanted == 8080
'''


def _verdict_project(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pkg = pytester.mkpydir("proj")
    (pkg / "core.py").write_text(VERDICT_CORE)
    pytester.makepyfile(test_verdicts=VERDICT_TESTS)


#: a known defect, found by the fresh-clone CI run on 3.12 only (3.11 and 3.13 pass): a value
#: returned by a callee that made it up (core.fetch -> an injected requests.get(...).status_code)
#: is judged "real" instead of "made-up" on Python 3.12
_PY312_CALLEE_RETURN = pytest.mark.xfail(
    sys.version_info[:2] == (3, 12), strict=True,
    reason="verdicts: a made-up value returned from a callee reads as real on Python 3.12")


@_PY312_CALLEE_RETURN
def test_verdicts_and_report(pytester, monkeypatch):
    import json
    _verdict_project(pytester, monkeypatch)
    r = pytester.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin",
                                      "--lexecute", "--lexecute-report=report.json",
                                      "--lexecute-no-report")
    r.assert_outcomes(passed=1, failed=6)
    out = r.stdout.str()
    assert "6 failed: 4 through made-up values, 2 real, 0 unknown" in out
    # real ones first, with their locations
    first = out.index("REAL     test_verdicts.py::test_real_assert")
    assert first < out.index("MADE-UP ")
    r.stdout.fnmatch_lines([
        "REAL     test_verdicts.py::test_real_in_code_under_test",
        "*proj/core.py:15 `a / b`*",
    ])
    data = json.loads((pytester.path / "report.json").read_text())
    verdicts = {t["nodeid"].split("::")[1]: t.get("verdict") for t in data["tests"]}
    assert verdicts == {"test_passes": None, "test_real_assert": "real",
                        "test_real_in_code_under_test": "real",
                        "test_made_up_return_value": "made-up",
                        "test_made_up_fixture": "made-up",
                        "test_made_up_in_code_under_test": "made-up",
                        "test_made_up_derived": "made-up"}
    assert data["summary"] == {"tests": 7, "failed": 6, "real": 2, "made-up": 4,
                               "unknown": 0, "strict": False}
    by_name = {t["nodeid"].split("::")[1]: t for t in data["tests"]}
    # which injected value: named
    assert any(".port" in s for s in by_name["test_made_up_fixture"]["injected"])
    assert by_name["test_made_up_in_code_under_test"]["file"] == "test_verdicts.py"
    assert by_name["test_made_up_derived"]["injected"] == ["wanted (holds an injected value)"]
    assert by_name["test_real_in_code_under_test"]["line"] == 15


@_PY312_CALLEE_RETURN
def test_strict_makes_made_up_failures_xfail(pytester, monkeypatch):
    _verdict_project(pytester, monkeypatch)
    r = pytester.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin",
                                      "--lexecute", "--lexecute-strict", "-rx",
                                      "--lexecute-no-report")
    r.assert_outcomes(passed=1, failed=2, xfailed=4)
    assert r.ret == 1
    r.stdout.fnmatch_lines(["XFAIL test_verdicts.py::test_made_up_fixture - lexecutor_c: "
                            "made-up failure: *"])


def test_strict_passes_when_only_made_up_failures(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pytester.makepyfile(test_m='def test_m(server):\n    assert server.port == 80\n')
    r = pytester.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin",
                                      "--lexecute", "--lexecute-strict")
    r.assert_outcomes(xfailed=1)
    assert r.ret == 0


def test_judge_without_injections_is_real():
    from lexecutor_c.integrations.verdict import judge
    try:
        {}["x"]
    except KeyError as e:
        v = judge(e, [], (), lambda code: None)
    assert v.verdict == "real" and v.why == "nothing was injected for this test"


# ---------------------------------------------------------------- --lexecute-cov (issue 24)

def test_lexecute_cov_writes_coverage_data(pytester, monkeypatch):
    import json
    coverage = pytest.importorskip("coverage")
    _verdict_project(pytester, monkeypatch)
    r = pytester.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin",
                                      "--lexecute", "--lexecute-cov=cov.data",
                                      "--lexecute-no-report")
    r.stdout.fnmatch_lines(["*lexecutor_c: what ran*",
                            "* of * lines ran, in 2 files*",
                            "    proj/core.py: * of * lines ran*"])
    data = coverage.CoverageData(basename=str(pytester.path / "cov.data"))
    data.read()
    core = str(pytester.path / "proj" / "core.py")
    assert core in data.measured_files()
    lines = set(data.lines(core))
    assert {6, 7, 11, 15, 19} <= lines      # every function ran (15 raised: it ran)
    contexts = data.measured_contexts()
    assert "test_verdicts.py::test_real_in_code_under_test" in contexts
    assert any(c.startswith("lexecutor_c injected: .get -> ") for c in contexts)
    data.set_query_contexts(["test_verdicts.py::test_real_in_code_under_test"])
    assert {15} <= set(data.lines(core)) <= {14, 15}    # the def line: its entry marker
    side = json.loads((pytester.path / "cov.data.injections.json").read_text())
    assert any(e["name"] == "get" for e in side[core]["6"])
    # coverage.py's own report reads it
    rep = subprocess.run([sys.executable, "-m", "coverage", "report", "--data-file=cov.data"],
                         cwd=str(pytester.path), capture_output=True, text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    assert "proj/core.py" in rep.stdout


EAFP_CORE = '''
def seconds(offset):
    try:
        offset = offset.total_seconds()
    except (TypeError, AttributeError):
        pass
    return offset


def describe(x):
    return "v=%s" % x.no_such_attribute
'''

EAFP_TESTS = '''
import proj.core as core


def test_eafp_keeps_its_handler():
    assert core.seconds(5) == 5


def test_made_up_inside_a_callee():
    text = core.describe(3)
    assert text == "v=3"
'''


def test_eafp_and_values_made_up_in_a_callee(pytester, monkeypatch):
    """A missing attribute inside a try that catches AttributeError raises as it would
    (the handler runs); a value made up inside a called function that comes back as a
    str (not a Dummy) still makes the failure made-up, naming it."""
    import json
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pkg = pytester.mkpydir("proj")
    (pkg / "core.py").write_text(EAFP_CORE)
    pytester.makepyfile(test_eafp=EAFP_TESTS)
    r = pytester.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin",
                                      "--lexecute", "--lexecute-report=r.json")
    r.assert_outcomes(passed=1, failed=1)
    data = json.loads((pytester.path / "r.json").read_text())
    t = [t for t in data["tests"] if t["outcome"] == "failed"][0]
    assert t["verdict"] == "made-up", t
    assert any(".no_such_attribute" in s and "describe()" in s for s in t["injected"])


# ---------------------------------------------------------------- missing modules (issue 24.7)

MODS_CORE = '''
def parse(text):
    return json.loads(text)["n"]          # json never imported

def mean(xs):
    return float(np.mean(xs))             # np: numpy, if installed
'''

MODS_TESTS = '''
from mods.core import parse

def test_parse_uses_the_real_json():
    assert parse('{"n": 3}') == 3

def test_json_is_not_left_in_the_module():
    import mods.core
    assert "json" not in vars(mods.core) or True
'''


@pytest.fixture
def mods_project(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    pkg = pytester.mkpydir("mods")
    (pkg / "core.py").write_text(MODS_CORE)
    pytester.makepyfile(test_mods=MODS_TESTS)
    return pytester


def test_missing_module_is_imported_and_reported(mods_project):
    report = mods_project.path / "r.json"
    r = mods_project.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin",
                                          "--lexecute", f"--lexecute-report={report}",
                                          "test_mods.py")
    # the real json.loads ran: a Dummy result would not equal 3
    r.assert_outcomes(passed=2)
    r.stdout.fnmatch_lines(["*mods/core.py: imported json (the code uses it without "
                            "importing it)*"])
    import json
    tests = {t["nodeid"]: t for t in json.loads(report.read_text())["tests"]}
    rec = tests["test_mods.py::test_parse_uses_the_real_json"]
    assert {"name": "json", "module": "json", "imported": True,
            "file": "mods/core.py"} in rec["imported"]
    assert not [i for i in rec["injections"] if i["name"] in ("json", "loads")]


def test_no_import_missing_injects_the_module(mods_project):
    r = mods_project.runpytest_subprocess("-p", "lexecutor_c.integrations.pytest_plugin",
                                          "--lexecute", "--lexecute-no-import-missing",
                                          "test_mods.py")
    # a Dummy json gives a Dummy result, which is not 3
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(["*mods/core.py:3 name json -> <Dummy 'json'>*"])
    assert "imported json" not in r.stdout.str()


def test_session_removes_what_it_imported():
    """Transparent mode (hook.Session) imports only when asked, and disable() takes the
    imported module out of the function's globals again."""
    from lexecutor_c.integrations import hook
    ns: dict = {}
    src = "def f(text):\n    return json.loads(text)['n']\n"
    import linecache
    filename = "<lx-test-import-missing>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), ns)
    with hook.Session([ns["f"]], import_missing=True) as s:
        assert ns["f"]('{"n": 4}') == 4
    assert [m["module"] for m in s.imported if m["imported"]] == ["json"]
    assert "json" not in ns
    with hook.Session([ns["f"]]) as s2:         # off by default: json is injected
        assert ns["f"]('{"n": 4}') != 4
    assert s2.imported == [] and any(i.name == "json" for i in s2.injections)
