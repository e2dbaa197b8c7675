"""What ran, in words (engine/result.py lines_ran, Result.what_ran) and missing
modules imported instead of injected (engine/autoimport.py, run(import_missing=))."""
import json
import pathlib

import pytest

from lexecutor_c.engine import autoimport
from lexecutor_c.engine.result import LinesRan, Result, lines_ran
from lexecutor_c.engine.run import run

HERE = pathlib.Path(__file__).resolve().parent
FIGURE1 = (HERE.parent / "lexecutor_c" / "examples" / "lexecutor_figure1.py").read_text()


# ---------------------------------------------------------------- lines ran

@pytest.mark.parametrize("isolate", [True, False])
def test_figure1_three_of_four_lines_ran(isolate):
    r = run(FIGURE1, predictor="naive", isolate=isolate)
    # the papers' metric is unchanged: the if's marker opens its block
    assert (r.covered_lines, r.total_lines) == (2, 4)
    # the if ran its test: 1, 4, 6 ran, the raise did not
    assert r.lines_ran == [1, 4, 6] and r.lines_skipped == [2]
    assert r.what_ran() == "3 of the 4 lines ran (line 2, the raise, was skipped)"
    assert "3 of the 4 lines ran" in r.summary() and "marker" not in r.summary()


def test_if_header_whose_block_is_skipped_ran():
    r = run("x = 1\nif x > 5:\n    y = 2\nprint(x)\n")
    assert r.lines_ran == [1, 2, 4] and r.lines_skipped == [3]
    assert r.what_ran() == "3 of the 4 lines ran (line 3, an assignment, was skipped)"


def test_lines_after_an_exception_did_not_run():
    r = run("a = 1\nraise ValueError('x')\nb = 2\nc = 3\n")
    assert r.status == "exception"
    assert r.lines_ran == [1, 2] and r.lines_skipped == [3, 4]
    assert r.what_ran() == ("2 of the 4 lines ran (lines 3 (an assignment) and "
                            "4 (an assignment) were skipped)")


def test_function_body_never_called_did_not_run():
    r = run("def f(a):\n    if a:\n        return 1\n    return 2\nprint('x')\n")
    assert r.lines_ran == [1, 5] and r.lines_skipped == [2, 3, 4]


def test_exception_inside_a_block_marks_the_headers_and_earlier_lines():
    src = "for i in range(3):\n    j = i\n    k = 1 / 0\n    m = 2\nz = 1\n"
    r = run(src)
    assert r.status == "exception" and r.exception["line"] == 3
    assert r.lines_ran == [1, 2, 3] and r.lines_skipped == [4, 5]


def test_while_header_false_from_the_start_ran_when_a_later_line_did():
    r = run("n = 0\nwhile n > 5:\n    n -= 1\nprint(n)\n", isolate=False)
    assert r.lines_ran == [1, 2, 4] and r.lines_skipped == [3]


def test_all_and_unknown_texts():
    assert LinesRan([1, 2], []).text == "all 2 lines ran"
    assert LinesRan([1], []).text == "the only line ran"
    assert LinesRan([], []).text == "no lines of code"
    assert LinesRan([1], [2, 3, 4, 5]).text == "1 of the 5 lines ran (lines 2-5 were skipped)"
    r = Result(filename="x", status="crashed")
    assert r.what_ran() == "which lines ran is unknown (the run did not report back)"


def test_lines_ran_without_parsable_source_uses_the_markers():
    lr = lines_ran("def broken(:\n", [1], [2, 3], injected_lines=[3])
    assert lr.ran == [1, 3] and lr.skipped == [2]


def test_lines_ran_from_hook_coverage_dicts():
    """What the pytest plugin and the magics have: a coverage dict, the
    injections' lines, the exception's line."""
    src = "def t():\n    x = make()\n    assert x.ok\n    done = 1\n"
    lr = lines_ran(src, covered=[2], uncovered=[1, 3, 4], injected_lines=[2, 3],
                   exception_line=3)
    # the def ran (something inside it ran); the line after the failing assert did not
    assert lr.ran == [1, 2, 3] and lr.skipped == [4]
    assert lr.what == {4: "an assignment"}
    assert lr.to_dict()["text"] == "3 of the 4 lines ran (line 4, an assignment, was skipped)"


def test_result_json_keeps_the_old_fields_and_adds_the_new():
    r = run(FIGURE1)
    d = json.loads(r.to_json())
    for k in ("covered_lines", "total_lines", "coverage", "covered", "uncovered"):
        assert k in d
    assert d["lines_ran"] == [1, 4, 6] and d["lines_skipped"] == [2]
    assert Result.from_dict(d).what_ran() == r.what_ran()
    # a document from before these fields still loads
    old = {k: v for k, v in d.items() if k not in (
        "lines_ran", "lines_skipped", "lines_ran_text", "import_missing", "imported_modules")}
    assert Result.from_dict(old).what_ran() == "2 of the 4 lines ran (lines 1-2 were skipped)"


# ---------------------------------------------------------------- import_missing

@pytest.mark.parametrize("isolate", [True, False])
def test_missing_stdlib_module_is_imported_not_faked(isolate):
    r = run("s = '[1, 2]'\ny = json.loads(s)\nprint(y, math.floor(2.5))\n", isolate=isolate)
    assert r.status == "ok", r.summary()
    assert r.stdout == "[1, 2] 2\n"                     # the real json and math
    assert r.injections == []
    assert r.import_missing is True
    assert r.imported_modules == [{"name": "json", "module": "json", "imported": True},
                                  {"name": "math", "module": "math", "imported": True}]


def test_no_import_missing_keeps_the_old_meaning():
    r = run("y = json.loads('[1]')\nprint(y)\n", import_missing=False)
    assert r.import_missing is False and r.imported_modules == []
    assert [i["name"] for i in r.injections if i["kind"] == "name"] == ["json"]
    assert "Dummy" in r.stdout


def test_well_known_alias_is_imported():
    pytest.importorskip("numpy")
    r = run("a = np.array([1, 2, 3])\nprint(int(a.sum()))\n")
    assert r.stdout == "6\n" and r.injections == []
    assert r.imported_modules == [{"name": "np", "module": "numpy", "imported": True}]


def test_alias_of_an_uninstalled_module_is_injected_with_its_package(monkeypatch):
    monkeypatch.setitem(autoimport.WELL_KNOWN, "zz", "no_such_module_xyz")
    monkeypatch.setitem(autoimport.PACKAGES, "no_such_module_xyz", "no-such-dist")
    r = run("v = zz.compute(1)\nprint('after')\n", isolate=False)
    assert r.status == "ok" and r.stdout == "after\n"
    assert "zz" in {i["name"] for i in r.injections}
    assert r.imported_modules == [{"name": "zz", "module": "no_such_module_xyz",
                                   "imported": False, "package": "no-such-dist",
                                   "reason": "not installed"}]


def test_variables_named_like_modules_are_left_alone():
    # called (a module cannot be), no attributes, attributes the module lacks
    r = run("a = string.upper()\nb = copy\nc = random(3)\n")
    assert r.imported_modules == []
    assert {"string", "copy", "random"} <= {i["name"] for i in r.injections}


def test_a_submodule_the_code_reads_is_imported_too():
    r = run("print(xml.dom.__name__)\n")
    assert r.stdout == "xml.dom\n" and r.injections == []
    assert r.imported_modules == [{"name": "xml", "module": "xml", "imported": True}]


def test_modules_with_import_side_effects_are_never_imported():
    r = run("print(this.s[:3])\n")
    assert r.imported_modules == [] and "this" in {i["name"] for i in r.injections}
    assert "Beautiful" not in r.stdout


def test_defined_names_and_builtins_are_not_touched():
    ns = {"json": "mine"}

    class U:
        def __init__(self, name, attrs=None, calls=()):
            self.name, self.attrs, self.calls = name, attrs or {}, list(calls)

    got = autoimport.import_missing([U("json", {"loads": [1]}), U("len", {"x": [None]}),
                                     U("os", {"path": [None]})], ns)
    assert ns["json"] == "mine" and got == [{"name": "os", "module": "os", "imported": True}]
    import os
    assert ns["os"] is os


def test_failed_import_is_reported_and_injected(tmp_path, monkeypatch):
    (tmp_path / "brokenmod_i24.py").write_text("raise RuntimeError('broken on import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    r = run("x = brokenmod_i24.value\n", isolate=False)
    assert r.status == "ok"
    [rec] = r.imported_modules
    assert rec["imported"] is False and rec["module"] == "brokenmod_i24"
    assert rec["reason"].startswith("import failed: RuntimeError: broken on import")
    assert "brokenmod_i24" in {i["name"] for i in r.injections}


def test_the_import_happens_inside_the_confined_child():
    import sys
    sys.modules.pop("colorsys", None)
    r = run("print(colorsys.rgb_to_hsv(1, 0, 0))\n")
    assert r.imported_modules[0]["imported"] is True and r.stdout.startswith("(0.0")
    assert "colorsys" not in sys.modules            # not in this process


def test_baselines_of_the_coverage_benchmark_inject_modules():
    import sys
    sys.path.insert(0, str(HERE.parent))
    try:
        from benchmarks import coverage as bc
    finally:
        sys.path.remove(str(HERE.parent))
    seen = {}

    def fake_run(path, **kw):
        seen.update(kw)
        return None

    import lexecutor_c
    orig = lexecutor_c.run
    lexecutor_c.run = fake_run
    try:
        bc._run("x.py", "naive", None, bc.Options())
    finally:
        lexecutor_c.run = orig
    assert seen["import_missing"] is False


# ---------------------------------------------------------------- transparent mode

def test_call_result_says_which_lines_of_the_function_ran():
    import lexecutor_c as lx
    from lexecutor_c.integrations import hook

    def torn():
        if not has_min_size(all_data):       # noqa: F821
            raise RuntimeError("not enough data")
        n = len(all_data)                    # noqa: F821
        return n

    r = lx.call(torn)
    first = torn.__code__.co_firstlineno
    assert r.exception is None
    assert r.what_ran == (f"4 of the 5 lines ran (line {first + 2}, the raise, was skipped)")
    s = hook.Session([torn])
    with s:
        torn()
    lr = s.lines_ran(torn.__code__.co_filename)
    assert lr.skipped == [first + 2] and first + 1 in lr.ran
    assert lr.text in s.summary()
    assert s.lines_ran("/no/such/file.py") is None
