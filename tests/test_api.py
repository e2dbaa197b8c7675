"""lexecutor_c.run() (lexecutor_c/engine/run.py) and Result, with the real instrumenter and
runtime."""
import json
import os
import pathlib
import sys

import pytest

from conftest import needs_address_space_limit

from lexecutor_c.engine import run as api
from lexecutor_c.engine.run import SourceError, run
from lexecutor_c.engine.result import Result

HERE = pathlib.Path(__file__).resolve().parent
FIGURE1 = pathlib.Path(__file__).resolve().parents[2] / "shared" / "examples" / "lexecutor_figure1.py"
PACKAGED_FIGURE1 = HERE.parent / "lexecutor_c" / "examples" / "lexecutor_figure1.py"


def _figure1_text():
    path = PACKAGED_FIGURE1 if PACKAGED_FIGURE1.exists() else FIGURE1
    return path.read_text()


# ---------------------------------------------------------------- end to end

@pytest.mark.parametrize("isolate", [True, False])
def test_figure1_runs_to_the_end_with_injection(isolate):
    r = run(_figure1_text(), isolate=isolate)
    assert r.status == "ok", r.summary()
    assert r.ok and r.exception is None
    # the if block (line 1 counts only when entered) and its raise are
    # skipped under a truthy Dummy; lines 4 and 6 run
    assert {4, 6} <= set(r.covered)
    assert 2 in r.uncovered
    assert 0 < r.covered_lines < r.total_lines
    assert r.coverage == pytest.approx(r.covered_lines / r.total_lines)
    names = {i["name"] for i in r.injections}
    assert {"has_min_size", "all_data", "logger", "config_str"} <= names
    for inj in r.injections:
        assert set(inj) == {"iid", "kind", "name", "line", "cls", "value"}
        assert inj["line"] in (1, 4, 6)
    assert r.isolated is isolate


def test_figure1_as_is_crashes_at_line_1():
    r = run(_figure1_text(), predictor="as-is")
    assert r.status == "exception"
    assert r.exception["type"] == "NameError"
    assert "has_min_size" in r.exception["message"]
    assert r.exception["line"] == 1
    assert r.injections == []
    assert not r.ok
    assert 4 in r.uncovered and 6 in r.uncovered


def test_marker_counts():
    r = run("a = 1\nb = a + 1\nif b:\n    c = 3\nelse:\n    c = 4\n")
    # markers: 2 simple statements, the if, c = 3, c = 4
    assert r.total_lines == 5 and r.covered_lines == 4
    assert r.covered == [1, 2, 3, 4] and r.uncovered == [6]


def test_result_is_json_round_trippable():
    r = run("print('hi')\nx = undefined_name\n")
    text = json.dumps(r.to_dict())
    back = Result.from_dict(json.loads(text))
    assert back == r
    assert r.to_json() == text
    with pytest.raises(ValueError):
        Result.from_dict({**r.to_dict(), "bogus": 1})


def test_globals_of_the_executed_code(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text("print(__name__, __file__)\n")
    r = run(path)
    assert r.stdout == f"__main__ {path}\n"
    assert r.filename == str(path)


# ---------------------------------------------------------------- input

def test_path_as_str_and_pathlib(tmp_path):
    path = tmp_path / "p.py"
    path.write_text("x = 1\ny = x / 0\n")
    for arg in (path, str(path)):
        r = run(arg)
        assert r.status == "exception"
        assert r.exception == {"type": "ZeroDivisionError", "message": "division by zero",
                               "line": 2}
        assert r.filename == str(path)


def test_str_that_is_not_a_file_is_source():
    r = run("print('src')")
    assert r.filename == "<snippet>" and r.stdout == "src\n"
    r = run(b"print('bytes')", filename="given.py")
    assert r.filename == "given.py" and r.stdout == "bytes\n"


def test_non_utf8_bytes_are_a_clear_error(tmp_path):
    path = tmp_path / "latin.py"
    path.write_bytes(b"x = '\xe9t\xe9'\n")
    with pytest.raises(SourceError, match=r"not valid UTF-8 \(byte 0xe9 at offset 5, line 1\)"):
        run(path)
    with pytest.raises(SourceError, match="not valid UTF-8"):
        run(b"\xff\xfe\x00garbage")


def test_coding_declaration_and_bom_are_honoured(tmp_path):
    path = tmp_path / "latin.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nprint('\xe9t\xe9')\n")
    assert run(path).stdout == "\u00e9t\u00e9\n"
    assert run(b"\xef\xbb\xbfprint('bom')\n").stdout == "bom\n"
    with pytest.raises(SourceError, match="unknown encoding"):
        run(b"# coding: no-such-codec\nx = 1\n")


def test_nul_bytes_are_a_clear_error():
    with pytest.raises(SourceError, match="NUL"):
        run("x = 1\0\n")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError):
        run(tmp_path / "nope.py")
    with pytest.raises(IsADirectoryError):
        run(tmp_path)


@pytest.mark.parametrize("isolate", [True, False])
def test_syntax_error_is_raised(isolate):
    with pytest.raises(SyntaxError) as info:
        run("x = 1\ndef f(:\n    pass\n", isolate=isolate, filename="bad.py")
    assert info.value.filename == "bad.py"
    assert info.value.lineno == 2


def test_bad_arguments():
    with pytest.raises(ValueError, match="predictor"):
        run("x = 1", predictor="oracle")
    with pytest.raises(ValueError, match="abstraction"):
        run("x = 1", abstraction="medium")
    for bad in (0, -1, float("nan"), float("inf"), "10"):
        with pytest.raises(ValueError, match="timeout"):
            run("x = 1", timeout=bad)
    with pytest.raises(TypeError):
        run(42)
    with pytest.raises(TypeError):
        run("x = 1", stdin=3)


# ---------------------------------------------------------------- how runs end

@pytest.mark.parametrize("isolate", [True, False])
def test_sys_exit(isolate):
    r = run("print('a')\nimport sys\nsys.exit(3)\nprint('b')\n", isolate=isolate)
    assert r.status == "exit" and r.exit_code == 3
    assert r.stdout == "a\n"
    assert 4 in r.uncovered and 1 in r.covered
    r = run("raise SystemExit('bye')\n", isolate=isolate)
    assert r.status == "exit" and r.exit_code == 1 and r.stderr == "bye\n"
    r = run("exit()\n", isolate=isolate)
    assert r.status == "exit" and r.exit_code == 0 and r.ok


def test_os_exit_keeps_coverage_when_isolated():
    r = run("import os\nprint('x')\nos._exit(4)\nprint('y')\n")
    assert r.status == "exit" and r.exit_code == 4
    assert r.stdout == "x\n"
    # an exit call's line counts as reached before the call (`_l_(5, (4))`, docs/LOADERS.md)
    assert r.covered == [1, 2, 3] and r.uncovered == [4]


def test_exception_line_is_in_the_original_source():
    src = "def f(d):\n    return d['k']\n\n\nx = 1\nf({})\n"
    r = run(src)
    assert r.status == "exception"
    assert r.exception["type"] == "KeyError" and r.exception["line"] == 2


def test_exception_outside_the_file_is_attributed_to_the_call_site():
    r = run("import json\njson.loads('{')\n")
    assert r.exception["type"] == "json.decoder.JSONDecodeError"
    assert r.exception["line"] == 2


def test_infinite_loop_times_out_with_coverage():
    r = run("x = 0\nwhile True:\n    x += 1\n", timeout=0.5)
    assert r.status == "timeout"
    assert r.covered_lines == r.total_lines and r.coverage == 1.0
    assert 0.4 < r.wall_time < 3


def test_swallowed_timeout_is_killed_and_marker_total_known():
    src = "import time\nwhile True:\n    try:\n        time.sleep(100)\n    except BaseException:\n        pass\n"
    r = run(src, limits=api.sandbox.Limits(timeout=0.3, grace=0.2))
    assert r.status == "timeout"
    assert r.total_lines is not None and r.total_lines > 0
    # killed, yet the lines it reached are known (the run journal)
    assert r.covered[:2] == [1, 2] and 0 < r.coverage < 1


def test_segfault_is_crashed():
    r = run("import ctypes\nprint('before')\nctypes.string_at(0)\n")
    assert r.status == "crashed" and r.signal == 11
    assert "SIGSEGV" in r.error
    assert r.stdout == "before\n"
    assert r.total_lines == 3 and r.covered == [1, 2] and r.uncovered == [3]


@needs_address_space_limit
def test_memory_bomb():
    r = run("x = []\nwhile True:\n    x.append(bytearray(1 << 26))\n",
            limits=api.sandbox.Limits(timeout=10, memory=256 << 20))
    assert r.status == "memory"
    assert r.exception["type"] == "MemoryError" and r.exception["line"] == 3


def test_failed_imports_are_recorded():
    r = run("import no_such_module_xyz\nfrom os import path\nprint(path.sep)\n")
    assert r.failed_imports == [{"iid": 1, "module": "no_such_module_xyz", "names": None}]
    assert r.status == "ok" and r.stdout == "/\n"


# ---------------------------------------------------------------- i/o

@pytest.mark.parametrize("isolate", [True, False])
def test_stdin_and_bounded_output(isolate):
    src = "name = input()\nprint('hello', name)\nimport sys\nsys.stderr.write('e' * 5000)\n"
    r = run(src, stdin=b"world\n", isolate=isolate, output_max=1000)
    assert r.stdout == "hello world\n" and not r.stdout_truncated
    assert r.stderr == "e" * 1000 and r.stderr_truncated
    r = run("print(input())", isolate=isolate)
    assert r.status == "exception" and r.exception["type"] == "EOFError"


def test_in_process_restores_streams_and_reports():
    before = sys.stdout, sys.stderr, sys.stdin
    r = run("print('x')\nraise ValueError('boom')\n", isolate=False)
    assert (sys.stdout, sys.stderr, sys.stdin) == before
    assert r.status == "exception" and r.stdout == "x\n"
    assert r.isolation == {"in_process": True}


def test_many_runs_leak_no_descriptors():
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(15):
        run("x = 1\n")
    assert len(os.listdir("/proc/self/fd")) == before
