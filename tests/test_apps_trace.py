"""lexecutor-c trace: CodeExecutor-format execution traces (real backend)."""
import json
import pathlib

import pytest

from lexecutor_c import cli
from lexecutor_c.apps.trace import format_trace, show_value, trace

EXAMPLES = pathlib.Path(__file__).resolve().parent / "programs" / "apps"
SHARED = pathlib.Path(__file__).resolve().parents[2] / "shared" / "examples"


def _example(name):
    # the paper examples are copied into tests/programs/apps so the suite runs anywhere
    return EXAMPLES / name


def call(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_codeexecutor_figure1_trace_is_exactly_the_papers(capsys):
    expected = _example("codeexecutor_figure1.trace").read_text()
    code, out, err = call(capsys, "trace", str(_example("codeexecutor_figure1.py")))
    assert (code, err) == (0, "")
    assert out == expected


def test_shared_copy_matches_ours():
    if not SHARED.is_dir():
        pytest.skip("no shared examples here")
    for name in ("codeexecutor_figure1.py", "codeexecutor_figure1.trace", "orca_figure1.py"):
        assert (SHARED / name).read_text() == _example(name).read_text()


def test_orca_trace_branches_and_final_exception():
    r = trace(_example("orca_figure1.py"))
    assert r.status == "exception"
    lines = [e for e in r.entries if e["kind"] == "line"]
    # the if on line 6 is followed by line 7 (true) or line 10 (else): true, true, false, true
    branches = [lines[k + 1]["line"] == 7 for k, e in enumerate(lines) if e["line"] == 6]
    assert branches == [True, True, False, True]
    last = lines[-1]
    assert last["line"] == 13 and ["total", "13"] in last["state"]
    assert r.entries[-1] == {"kind": "exception", "type": "ZeroDivisionError",
                             "message": "division by zero", "line": 13}
    assert r.text().endswith("<exception> ZeroDivisionError: division by zero\n")


def test_injected_values_are_shown_readably():
    r = trace("x = foo\ny = [x, 1]\nz = bar.baz()\n", isolate=True)
    text = r.text().splitlines()
    assert text[0] == "<line> 1 <state> foo : <Dummy foo> ; x : <Dummy foo>"
    assert text[1].endswith("y : [<Dummy foo>, 1]")
    assert "z : <Dummy" in text[2] and "bar : <Dummy bar>" in text[2]


def test_randomized_injection_shows_the_concrete_value():
    a = trace("y = n\n", predictor="random", seed=3, randomize=True)
    b = trace("y = n\n", predictor="random", seed=3, randomize=True)
    assert a.text() == b.text()
    assert a.injections and a.injections[0]["name"] == "n"
    ((line,),) = [(e,) for e in a.entries if e["kind"] == "line"]
    assert line["state"][0][0] == "n" and line["state"][1][0] == "y"
    assert line["state"][0][1] == line["state"][1][1]


def test_function_lines_show_the_calls_locals_before_the_calling_line():
    src = "def f(a):\n    b = a + 1\n    return b\nx = f(1)\n"
    r = trace(src)
    got = [(e["line"], e["frame"], e["state"]) for e in r.entries]
    assert got == [(1, "<module>", []),
                   (2, "f", [["a", "1"], ["b", "2"]]),
                   (3, "f", [["a", "1"], ["b", "2"]]),
                   (4, "<module>", [["x", "2"]])]


def test_state_leaves_out_modules_functions_classes():
    r = trace("import os\nclass K:\n    pass\ndef g():\n    pass\nk = K()\nv = 1\n")
    last = [e for e in r.entries if e["kind"] == "line"][-1]
    assert last["state"] == [["k", "<K object>"], ["v", "1"]]


def test_multiline_statement_is_one_line_and_output_precedes_its_line():
    r = trace("xs = [1,\n      2]\nprint(len(xs))\nprint('a\\nb')\n")
    assert r.text() == ("<line> 1 <state> xs : [1, 2]\n<output> 2\n<line> 3 <state> xs : [1, 2]\n"
                        "<output> a\n<output> b\n<line> 4 <state> xs : [1, 2]\n")


def test_stdin_and_json(capsys, tmp_path):
    p = tmp_path / "p.py"
    p.write_text("n = int(input())\nprint(n * 2)\n")
    i = tmp_path / "in.txt"
    i.write_text("21\n")
    code, out, _ = call(capsys, "trace", str(p), "--stdin", str(i), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["status"] == "ok"
    assert doc["trace"] == "<line> 1 <state> n : 21\n<output> 42\n<line> 2 <state> n : 21\n"
    assert doc["trace"] == format_trace(doc["entries"])


def test_endless_loop_stops_at_max_steps(capsys, tmp_path):
    p = tmp_path / "loop.py"
    p.write_text("while True:\n    x = 1\n")
    code, out, err = call(capsys, "trace", str(p), "--max-steps", "5")
    assert code == 1 and len(out.splitlines()) == 5 and "stopped after 5" in err


@pytest.mark.parametrize("content, needle", [
    (b"\x00\x01\x02", "binary"),
    (b"x = (\n", "syntax error"),
    (b"\xff\xfe = 1\n", "not valid UTF-8"),
])
def test_bad_input_one_line_error(capsys, tmp_path, content, needle):
    p = tmp_path / "bad.py"
    p.write_bytes(content)
    code, out, err = call(capsys, "trace", str(p))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and needle in err


def test_missing_file_and_missing_stdin(capsys, tmp_path):
    assert call(capsys, "trace", str(tmp_path / "nope.py"))[0] == 2
    p = tmp_path / "p.py"
    p.write_text("x = 1\n")
    code, _, err = call(capsys, "trace", str(p), "--stdin", str(tmp_path / "nope.txt"))
    assert code == 2 and "cannot read" in err


def test_show_value():
    from lexecutor_c import _core
    assert show_value(_core.Dummy("x")) == "<Dummy x>"
    assert show_value({"a": (1,), "b": {2}}) == "{'a': (1,), 'b': {2}}"
    assert show_value(list(range(30))).endswith("...]")
    assert len(show_value("x" * 1000)) == 200


def test_exit_status_and_timeout(capsys, tmp_path):
    p = tmp_path / "e.py"
    p.write_text("import sys\nx = 1\nsys.exit(3)\n")
    code, out, _ = call(capsys, "trace", str(p))
    assert code == 1 and out.splitlines()[-1] == "<line> 3 <state> x : 1"
    p.write_text("import sys\nsys.exit(0)\n")
    assert call(capsys, "trace", str(p))[0] == 0
    p.write_text("import time\nx = 1\ntime.sleep(5)\ny = 2\n")
    code, out, err = call(capsys, "trace", str(p), "--timeout", "0.5")
    assert code == 1 and "timeout" in err
    assert out.splitlines()[-1] == "<line> 3 <state> x : 1"     # the trace so far survives


# ---------------------------------------------------------------- Treefix prefixes (issue 12)

FORUM_SNIPPET = """with open('data.txt') as f:
    lines = f.readlines()
count = len(lines)
print('lines:', count)
"""


def test_snippet_opening_a_missing_file_runs_further_with_the_treefix_prefix(capsys, tmp_path):
    p = tmp_path / "forum.py"
    p.write_text(FORUM_SNIPPET)
    # alone it stops at the FileNotFoundError on line 1
    code, out, err = call(capsys, "trace", "--no-treefix", str(p))
    assert code == 1 and out.splitlines()[-1].startswith("<exception> FileNotFoundError")
    assert "<line> 3" not in out
    # with the best prefix (which writes data.txt) it runs to its end
    code, out, err = call(capsys, "trace", str(p))
    assert code == 0, err
    assert "<exception>" not in out and "<line> 4 <state>" in out
    out_lines = [ln for ln in out.splitlines() if ln.startswith("<output>")]
    assert len(out_lines) == 1 and out_lines[0].startswith("<output> lines: ")
    assert "ran after Treefix prefix 1" in err
    # the prefix's own lines and helpers are not in the trace; the numbers are the snippet's
    assert {int(ln.split()[1]) for ln in out.splitlines() if ln.startswith("<line>")} == \
        {1, 2, 3, 4}
    assert "_f" not in out
    code, out, err = call(capsys, "trace", "--json", str(p))
    doc = json.loads(out)
    assert code == 0 and "data.txt" in doc["prefix"] and doc["status"] == "ok"


def test_prefix_defined_values_are_marked_until_the_code_rebinds_them():
    r = trace("total = n * 2\nn = 5\nprint(n)\n", prefix="n = 3\nk = 1\n")
    lines = [e for e in r.entries if e["kind"] == "line"]
    assert [e["line"] for e in lines] == [1, 2, 3]
    assert lines[0]["origins"] == {"n": "prefix", "k": "prefix"}
    assert lines[1]["origins"] == {"k": "prefix"}            # n = 5 is the code's own
    assert r.text().splitlines()[0] == "<line> 1 <state> n [prefix] : 3 ; k [prefix] : 1 ; " \
                                       "total : 6"
    assert r.prefix_names == ["n", "k"]


def test_injected_values_that_are_no_dummy_are_marked():
    r = trace("y = x + 1\n", predictor="random", seed=0, randomize=True)
    (line,) = [e for e in r.entries if e["kind"] == "line"]
    assert line["origins"] == {"x": "injected"}
    assert r.text().startswith("<line> 1 <state> x [injected] : ")
    # a Dummy reads <Dummy x> already: no mark
    r = trace("y = x\n")
    assert "origins" not in r.entries[0] and "x : <Dummy x>" in r.text()


def _fake_treefix(monkeypatch, prefixes, calls):
    import sys
    import types
    fake = types.ModuleType("lexecutor_c.treefix")

    class T:
        pass

    def fn(source, generator="offline"):
        calls.append(source)
        t = T()
        t.prefixes = list(prefixes)
        return t
    fake.treefix = fn
    monkeypatch.setitem(sys.modules, "lexecutor_c.treefix", fake)


def test_complete_code_does_not_search_prefixes(monkeypatch):
    calls = []
    _fake_treefix(monkeypatch, ["x = 1\n"], calls)
    r = trace("a = 1\nprint(a)\n", treefix=True)
    assert calls == [] and r.prefix is None and r.status == "ok"


def test_a_prefix_that_fails_itself_is_not_used(monkeypatch):
    calls = []
    _fake_treefix(monkeypatch, ["raise RuntimeError('bad prefix')\n"], calls)
    r = trace(FORUM_SNIPPET, treefix=True)
    assert len(calls) == 1
    assert r.prefix is None and r.exception["type"] == "FileNotFoundError"
    assert r.exception["line"] == 1


def test_prefix_argument_errors():
    with pytest.raises(TypeError):
        trace("x = 1\n", prefix=3)
    with pytest.raises(ValueError):
        trace("x = 1\n", prefix="y = 2\n", treefix=True)
    with pytest.raises(SyntaxError):
        trace("x = 1\n", prefix="def (:\n")
