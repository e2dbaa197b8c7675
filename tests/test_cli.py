"""The command line: exit statuses, JSON shape, bad input, many files.

In-process tests call cli.main(argv); subprocess tests run ``python -m lexecutor_c``."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from lexecutor_c import cli
from lexecutor_c.engine import run as api

ROOT = pathlib.Path(__file__).resolve().parent.parent

@pytest.fixture
def files(tmp_path):
    def make(name, content):
        p = tmp_path / name
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)
        return str(p)
    return make


def call(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def sub(*argv, timeout=60):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "lexecutor_c", *argv], capture_output=True,
                          text=True, timeout=timeout, cwd=str(ROOT), env=env)


# ---------------------------------------------------------------- run

def test_run_ok_file_shows_injections_and_coverage(capsys, files):
    p = files("ok.py", "x = missing_value\nprint('done')\n")
    code, out, err = call(capsys, "run", p)
    assert code == 0, err
    assert "<Dummy 'missing_value'>" in out
    assert "all 2 lines ran" in out
    assert "line markers" not in out          # the papers' metric only where labelled
    assert err == ""


def test_run_names_the_skipped_lines(capsys, files):
    p = files("fig.py", "if not ok(data):\n    raise RuntimeError('x')\n\nn = 1\n")
    code, out, err = call(capsys, "run", p)
    assert code == 0, err
    assert "3 of the 3 lines" not in out
    assert "2 of the 3 lines ran (line 2, the raise, was skipped)" in out


def test_run_imports_missing_modules_and_says_so(capsys, files):
    p = files("mods.py", "print(json.dumps([1]), os.sep)\n")
    code, out, err = call(capsys, "run", p, "--output")
    assert code == 0, err
    assert "imported json, os: used but never imported by the code" in out
    assert "nothing injected" in out and '[1] /' in out
    code, out, err = call(capsys, "run", p, "--json")
    doc = json.loads(out)
    assert doc["options"]["import_missing"] is True
    res = doc["files"][0]["result"]
    assert [m["name"] for m in res["imported_modules"]] == ["json", "os"]
    # the fields the document always had are still there
    assert {"covered_lines", "total_lines", "coverage", "covered", "uncovered"} <= set(res)
    assert "mean_coverage" in doc["summary"] and doc["summary"]["lines_ran"] == 1


def test_run_no_import_missing_injects(capsys, files):
    p = files("mods2.py", "x = json.dumps([1])\n")
    code, out, err = call(capsys, "run", p, "--no-import-missing", "--json")
    res = json.loads(out)["files"][0]["result"]
    assert res["imported_modules"] == [] and res["import_missing"] is False
    assert [i["name"] for i in res["injections"] if i["kind"] == "name"] == ["json"]


def test_run_exception_exits_1(capsys, files):
    p = files("boom.py", "a = 1\nraise ValueError('boom')\n")
    code, out, err = call(capsys, "run", p)
    assert code == 1
    assert "ValueError: boom at line 2" in out


def test_run_timeout_exits_1(capsys, files):
    p = files("loop.py", "while True:\n    pass\n")
    code, out, _ = call(capsys, "run", "--timeout", "0.3", p)
    assert code == 1 and "timeout" in out


def test_run_sys_exit_0_counts_as_ran_to_the_end(capsys, files):
    p = files("bye.py", "import sys\nsys.exit(0)\n")
    assert call(capsys, "run", p)[0] == 0
    p = files("bye3.py", "import sys\nsys.exit(3)\n")
    assert call(capsys, "run", p)[0] == 1


def test_run_json_document(capsys, files):
    good = files("good.py", "print(undefined_thing)\n")
    bad = files("bad.py", "1/0\n")
    code, out, err = call(capsys, "run", "--json", "--seed", "7", good, bad)
    assert code == 1
    doc = json.loads(out)
    assert set(doc) == {"version", "options", "files", "summary"}
    assert doc["options"]["seed"] == 7 and doc["options"]["predictor"] == "naive"
    assert [f["file"] for f in doc["files"]] == [good, bad]
    r0, r1 = doc["files"][0]["result"], doc["files"][1]["result"]
    assert r0["status"] == "ok" and r0["stdout"] == "<Dummy 'undefined_thing'>\n"
    assert r0["injections"][0]["name"] == "undefined_thing"
    assert set(r0["injections"][0]) == {"iid", "kind", "name", "line", "cls", "value"}
    assert r1["status"] == "exception" and r1["exception"]["type"] == "ZeroDivisionError"
    assert doc["summary"]["files"] == 2 and doc["summary"]["ok"] == 1
    assert doc["summary"]["failed"] == 1 and doc["summary"]["errors"] == 0
    assert doc["summary"]["statuses"] == {"ok": 1, "exception": 1}
    assert err == ""


def test_run_syntax_error_file_exits_2(capsys, files):
    p = files("syn.py", "x = 1\ndef f(:\n")
    code, out, err = call(capsys, "run", p)
    assert code == 2
    assert err.strip() == f"lexecutor-c: error: {p}:2: syntax error: invalid syntax"


def test_run_binary_garbage_exits_2(capsys, files):
    p = files("garbage.py", bytes(range(128, 256)) * 4)
    code, out, err = call(capsys, "run", p)
    assert code == 2
    assert "not valid UTF-8" in err and len(err.strip().splitlines()) == 1


def test_run_nul_bytes_exit_2(capsys, files):
    p = files("nul.py", b"x = 1\x00\n")
    code, _, err = call(capsys, "run", p)
    assert code == 2 and "NUL" in err


def test_run_unreadable_files_exit_2(capsys, tmp_path):
    code, _, err = call(capsys, "run", str(tmp_path / "nope.py"), str(tmp_path))
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0].endswith("nope.py: No such file or directory")
    assert "Is a directory" in lines[1]


def test_input_errors_win_over_failures_and_others_still_run(capsys, files):
    ok = files("ok.py", "x = 1\n")
    boom = files("boom.py", "1/0\n")
    bad = files("bad.py", "def (:\n")
    code, out, err = call(capsys, "run", "--json", ok, bad, boom)
    assert code == 2
    doc = json.loads(out)
    assert doc["files"][1] == {"file": bad, "error": {
        "type": "syntax", "message": f"{bad}:1: syntax error: invalid syntax"}}
    assert doc["files"][0]["result"]["status"] == "ok"
    assert doc["files"][2]["result"]["status"] == "exception"


def test_many_files_summary(capsys, files):
    paths = [files(f"f{i}.py", f"v{i} = unknown_{i}\n" + ("1/0\n" if i % 3 == 0 else ""))
             for i in range(9)]
    code, out, err = call(capsys, "run", *paths)
    assert code == 1
    assert "summary" in out
    for p in paths:
        assert p in out
    code, out, _ = call(capsys, "run", "--json", *paths)
    doc = json.loads(out)
    assert doc["summary"]["files"] == 9 and doc["summary"]["failed"] == 3
    assert doc["summary"]["injections"] == 9


def test_no_isolate_option(capsys, files):
    p = files("p.py", "print('in process')\n")
    code, out, err = call(capsys, "run", "--json", "--no-isolate", p)
    assert code == 0
    assert json.loads(out)["files"][0]["result"]["isolated"] is False
    assert err.splitlines()[0] == "lexecutor-c: warning: --no-isolate: the code runs in " \
        "this process, unconfined"


def test_fully_confined_run_says_nothing_about_confinement(capsys, files):
    p = files("p.py", "x = 1\n")
    code, out, err = call(capsys, "run", "--json", p)
    assert code == 0 and "confinement" not in err
    layers = json.loads(out)["files"][0]["result"]["isolation"]["layers"]
    assert layers == ["userns", "pidns", "mountns", "netns", "ipcns", "landlock", "seccomp"]


@pytest.fixture
def landlock_missing(monkeypatch):
    """The kernel lacks Landlock (simulated by the sandbox itself)."""
    from lexecutor_c.engine import sandbox
    monkeypatch.setattr(sandbox, "_SIMULATE_MISSING", ("landlock",))
    monkeypatch.setattr(sandbox, "_caps_cache", {})
    yield
    sandbox._caps_cache.clear()


def test_missing_layer_first_line_and_fail_closed(capsys, files, landlock_missing):
    p = files("p.py", "print('ran')\n")
    code, out, err = call(capsys, "run", "--output", p)
    lines = err.splitlines()
    assert lines[0].startswith("lexecutor-c: warning: confinement: userns, pidns")
    assert "MISSING: landlock" in lines[0] and "--allow-missing-layers landlock" in lines[0]
    assert code == 2 and "ran" not in out
    assert "could not confine" in err and "Traceback" not in err


def test_allow_missing_layers_runs_without_them(capsys, files, landlock_missing):
    p = files("p.py", "print('ran')\n")
    code, out, err = call(capsys, "run", "--json", "--allow-missing-layers", "landlock", p)
    assert code == 0
    assert "running without them" in err.splitlines()[0]
    doc = json.loads(out)
    assert doc["options"]["allow_missing_layers"] == ["landlock"]
    iso = doc["files"][0]["result"]["isolation"]
    assert "landlock" not in iso["layers"] and "landlock" in iso["skipped"]
    code, out, err = call(capsys, "run", "--allow-missing-layers", "all", p)
    assert code == 0


@pytest.mark.parametrize("value", ["landlok", "", "userns,nope"])
def test_allow_missing_layers_bad_values(capsys, value):
    code, out, err = call(capsys, "run", "x.py", "--allow-missing-layers", value)
    assert code == 2 and "unknown layer" in err


def test_output_option_prints_program_output(capsys, files):
    p = files("p.py", "print('hello from the program')\n")
    assert "hello from the program" not in call(capsys, "run", p)[1]
    assert "hello from the program" in call(capsys, "run", "--output", p)[1]


@pytest.mark.parametrize("argv", [
    ["run"], ["run", "x.py", "--predictor", "oracle"], ["run", "x.py", "--timeout", "0"],
    ["run", "x.py", "--timeout", "soon"], ["run", "x.py", "--seed", "x"], ["frobnicate"], [],
])
def test_usage_errors_exit_2(capsys, argv):
    code, out, err = call(capsys, *argv)
    assert code == 2
    assert "error:" in err and "Traceback" not in err


def test_help_exits_0(capsys):
    code, out, _ = call(capsys, "--help")
    assert code == 0
    for name in ("run", "instrument", "demo"):
        assert name in out


# ---------------------------------------------------------------- instrument

def test_instrument_prints_source_and_iids(capsys, files):
    p = files("p.py", "x = y\n")
    code, out, _ = call(capsys, "instrument", p)
    assert code == 0
    assert out == 'x = _n_(1, "y"); _l_(2)\n'
    code, out, _ = call(capsys, "instrument", "--iids", p)
    assert code == 0 and "2 sites" in out and "1:4-1:5" in out


def test_instrument_bad_input_exits_2(capsys, files, tmp_path):
    code, _, err = call(capsys, "instrument", files("s.py", "def (:\n"))
    assert code == 2 and "syntax error" in err
    code, _, err = call(capsys, "instrument", str(tmp_path / "missing.py"))
    assert code == 2 and "No such file" in err


# ---------------------------------------------------------------- demo

def test_demo(capsys):
    code, out, err = call(capsys, "demo")
    assert code == 0, err
    assert "has_min_size" in out and "a non-empty list" in out
    assert "crashes at once" in out
    assert "What ran: 3 of the 4 lines ran (line 2, the raise, was skipped)" in out
    assert "line markers" not in out and "%" not in out


def test_demo_json(capsys):
    code, out, _ = call(capsys, "demo", "--json")
    doc = json.loads(out)
    assert doc["as_is"]["status"] == "exception"
    assert doc["injected"]["status"] == "ok"
    assert "logger" in doc["paper"]
    # the fields the JSON had stay; what ran is added
    assert doc["injected"]["covered_lines"] == 2 and doc["injected"]["total_lines"] == 4
    assert doc["injected"]["lines_ran"] == [1, 4, 6]
    assert doc["injected"]["lines_skipped"] == [2]
    assert doc["injected"]["lines_ran_text"] == \
        "3 of the 4 lines ran (line 2, the raise, was skipped)"


def test_packaged_example_matches_the_shared_one():
    shared = pathlib.Path(__file__).resolve().parents[2] / "shared" / "examples" / "lexecutor_figure1.py"
    if not shared.exists():
        pytest.skip("no shared examples here")
    assert pathlib.Path(cli.example_path()).read_text() == shared.read_text()


# ---------------------------------------------------------------- real processes

def test_subprocess_exit_codes(files):
    ok = files("ok.py", "x = unknown\n")
    boom = files("boom.py", "raise KeyError(1)\n")
    assert sub("run", ok).returncode == 0
    r = sub("run", boom)
    assert r.returncode == 1 and "KeyError" in r.stdout
    r = sub("run", "--json", ok, boom)
    assert r.returncode == 1 and json.loads(r.stdout)["summary"]["files"] == 2


def test_subprocess_bad_input(files, tmp_path):
    """python -m lexecutor_c itself: input errors as one line and status 2."""
    garbage = files("g.py", os.urandom(64) + b"\xff")
    for args in (["run", garbage], ["run", str(tmp_path / "none.py")], ["run"],
                 ["instrument", garbage]):
        r = sub(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert "Traceback" not in r.stderr
        assert r.stderr.strip().splitlines()[-1].startswith("lexecutor-c")


def test_subprocess_help():
    r = sub("--help")
    assert r.returncode == 0 and "demo" in r.stdout


def test_progress_bar_on_a_terminal(capsys, files, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")        # rich: treat stderr as a terminal
    paths = [files(f"t{i}.py", "x = 1\n") for i in range(3)]
    code, out, err = call(capsys, "run", *paths)
    assert code == 0
    assert "3/3" in err                           # the bar went to stderr ...
    assert "3/3" not in out and "summary" in out  # ... the report to stdout


def test_internal_error_is_reported_and_exits_1(capsys, files, monkeypatch):
    """A bug inside lexecutor_c (here: an instrumenter that raises, which the real one
    must never do) is exit status 1 with a message, not a traceback."""
    p = files("p.py", "x = 1\n")

    def broken(text, *, filename):
        raise RuntimeError("instrumenter bug")
    monkeypatch.setattr(api, "instrument", broken)
    code, out, err = call(capsys, "run", "--no-isolate", "--json", p)
    assert code == 1
    doc = json.loads(out)
    assert doc["files"][0]["error"]["type"] == "internal"
    assert "RuntimeError: instrumenter bug" in doc["files"][0]["error"]["message"]
    assert doc["summary"]["internal_errors"] == 1 and doc["summary"]["errors"] == 0
