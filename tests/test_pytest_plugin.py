"""The pytest plugin, run with pytester on small projects that miss a dependency."""
import os
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
