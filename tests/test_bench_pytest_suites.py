"""benchmarks/pytest_suites.py: its configuration and the parts that need no network."""
import math

from benchmarks import pytest_suites as ps


def test_each_project_drops_a_third_of_its_runtime_dependencies():
    for p in ps.PROJECTS.values():
        assert set(p.dropped) <= set(p.runtime), p.name
        assert len(p.dropped) == math.ceil(len(p.runtime) / 3), p.name
        assert all("==" in d for d in p.runtime + p.plugins), p.name   # pinned


def test_outcomes_from_junit(tmp_path):
    xml = tmp_path / "r.xml"
    xml.write_text(
        '<testsuites><testsuite>'
        '<testcase classname="tests.test_a" name="test_ok"/>'
        '<testcase classname="tests.test_a" name="test_bad"><failure message="x"/></testcase>'
        '<testcase classname="tests.test_a" name="test_err"><error message="x"/></testcase>'
        '<testcase classname="tests.test_a" name="test_skip"><skipped message="x"/></testcase>'
        '</testsuite></testsuites>')
    assert ps._outcomes(xml) == {"tests.test_a::test_ok": "passed",
                                 "tests.test_a::test_bad": "failed",
                                 "tests.test_a::test_err": "error",
                                 "tests.test_a::test_skip": "skipped"}
    assert ps._outcomes(tmp_path / "missing.xml") == {}
