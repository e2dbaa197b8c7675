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
