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
