"""lexecutor_c.record / `lexecutor-c record`: recording value-use events of real runs."""
import gzip
import json
import os
import subprocess
import sys
import textwrap

import pytest

from lexecutor_c import _core
from lexecutor_c.engine.record import RecordError, classify_patterns, read_parts, record
from lexecutor_c.engine.runtime import read_events, write_events

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PKG = '''\
import json

LIMIT = 3

def clip(values):
    out = []
    for v in values:
        if len(out) < LIMIT:
            out.append(v)
    return out

class Counter:
    def __init__(self):
        self.total = 0
        self.label = "c"
    def add(self, n):
        self.total += n
        return self.total

def dump(obj):
    return json.dumps(obj)
'''

TESTS = '''\
from minipkg import clip, Counter, dump

def test_clip():
    assert clip([1, 2, 3, 4]) == [1, 2, 3]

def test_counter():
    c = Counter()
    c.add(2)
    assert c.total == 2 and c.label == "c"

def test_dump():
    assert dump({"a": None}) == '{"a": null}'
'''


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "minipkg").mkdir(parents=True)
    (root / "minipkg" / "__init__.py").write_text(PKG)
    (root / "tests").mkdir()
    (root / "tests" / "test_mini.py").write_text(TESTS)
    return root


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = ROOT + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.pop("PYTEST_ADDOPTS", None)
    return e


def by_site(events):
    return {(e.file, e.line, e.kind, e.name): e.cls for e in events}


def test_records_pytest_suite_of_a_project(project, tmp_path):
    out = tmp_path / "ev.jsonl.gz"
    r = record([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "--assert=plain", "tests"], cwd=str(project), out=str(out), env=env(),
               stdout=subprocess.DEVNULL)
    assert r.returncode == 0 and r.ok
    assert r.processes == 1
    mods = dict(r.modules)
    assert set(mods) == {"minipkg", "test_mini"}
    events = read_events(out)
    assert len(events) == r.events
    sites = by_site(events)
    f = "minipkg/__init__.py"
    assert sites[(f, 8, "name", "LIMIT")] == "int_pos"
    assert sites[(f, 8, "call", "len")] in ("int_zero", "int_pos")
    assert sites[(f, 9, "attribute", "append")] == "callable"
    assert sites[(f, 9, "call", "append")] == "None"
    assert sites[(f, 18, "attribute", "total")] == "int_pos"
    assert sites[(f, 21, "attribute", "dumps")] == "callable"
    assert sites[(f, 21, "call", "dumps")] == "str_nonempty"
    t = "tests/test_mini.py"
    assert sites[(t, 4, "name", "clip")] == "callable"
    assert sites[(t, 4, "call", "clip")] == "list_nonempty"
    assert sites[(t, 7, "call", "Counter")] == "object"
    assert sites[(t, 9, "attribute", "label")] == "str_nonempty"
    # stdlib modules (json) are not instrumented by default
    assert all(not e.file.startswith("/") for e in events)
    # unique: one event per (file, iid, kind, name, class)
    keys = [(e.file, e.iid, e.kind, e.name, e.cls) for e in events]
    assert len(keys) == len(set(keys))
    # context strings come from the instrumenter
    e = next(e for e in events if e.name == "LIMIT")
    assert e.before.endswith("if len ( out ) <") and e.after.startswith(": out . append")
    # round trip through the events file format
    again = tmp_path / "again.jsonl.gz"
    write_events(again, events)
    assert read_events(again) == events


def test_all_events_keeps_repeats(project, tmp_path):
    out = tmp_path / "ev.jsonl.gz"
    r = record([sys.executable, "-c", "import minipkg; [minipkg.clip([1, 2]) for _ in range(5)]"],
               cwd=str(project), out=str(out), env=env(), unique=False)
    assert r.ok
    events = read_events(out)
    limit = [e for e in events if e.name == "LIMIT"]
    assert len(limit) == 10                     # 5 calls x 2 loop iterations


def test_failing_command_still_writes_events(project, tmp_path):
    (project / "tests" / "test_bad.py").write_text(
        "from minipkg import clip\n\ndef test_bad():\n    assert clip([]) == [1]\n")
    out = tmp_path / "ev.jsonl.gz"
    r = record([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
               cwd=str(project), out=str(out), env=env(), stdout=subprocess.DEVNULL)
    assert r.returncode == 1 and not r.ok
    names = {e.name for e in read_events(out)}
    assert {"LIMIT", "append", "dumps"} <= names   # test files: rewritten by pytest, not recorded


def test_crash_loses_only_unflushed_events(project, tmp_path):
    out = tmp_path / "ev.jsonl.gz"
    script = ("import os, signal, time, minipkg\n"
              "minipkg.clip([1])\n"
              "time.sleep(1.5)\n"             # a periodic flush happens meanwhile
              "minipkg.Counter().add(1)\n"   # not flushed: lost
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    r = record([sys.executable, "-c", script], cwd=str(project), out=str(out), env=env(),
               flush_interval=0.2)
    assert r.returncode == -9
    names = {e.name for e in read_events(out)}
    assert "LIMIT" in names and "append" in names
    assert "total" not in names


def test_forked_children_record_without_duplicates(project, tmp_path):
    out = tmp_path / "ev.jsonl.gz"
    script = ("import os, minipkg\n"
              "minipkg.clip([1])\n"
              "pid = os.fork()\n"
              "if pid == 0:\n"
              "    minipkg.Counter().add(1)\n"
              "    os._exit(0)\n"
              "os.waitpid(pid, 0)\n")
    r = record([sys.executable, "-c", script], cwd=str(project), out=str(out), env=env(),
               unique=False, flush_interval=0)
    assert r.ok and r.processes == 2
    events = read_events(out)
    assert sum(e.name == "LIMIT" for e in events) == 1
    # os._exit skips atexit in the child: its events since fork are lost, the
    # parent's are not duplicated
    assert sum(e.name == "append" and e.kind == "call" for e in events) == 1


def test_module_patterns_choose_stdlib_explicitly(project, tmp_path):
    out = tmp_path / "ev.jsonl.gz"
    r = record([sys.executable, "-c", "import minipkg, textwrap; textwrap.dedent('  a')"],
               include=["textwrap"], cwd=str(project), out=str(out), env=env())
    assert r.ok
    files = {e.file for e in read_events(out)}
    assert files and all(f.endswith("textwrap.py") for f in files)
    assert [m for m, _ in r.modules] == ["textwrap"]


def test_modules_the_instrumenter_imports_stay_plain(project, tmp_path):
    # dataclasses is imported by the instrumenter itself: choosing it used to
    # end every recorded process in an ImportError (circular import)
    out = tmp_path / "ev.jsonl.gz"
    code = ("import dataclasses, textwrap\n"
            "@dataclasses.dataclass\nclass P:\n    x: int = 1\n"
            "print(P().x, textwrap.dedent(' b'))\n")
    r = record([sys.executable, "-c", code], include=["dataclasses", "textwrap"],
               cwd=str(project), out=str(out), env=env(), stdout=subprocess.PIPE)
    assert r.returncode == 0
    assert [m for m, _ in r.modules] == ["textwrap"]
    assert {e.file for e in read_events(out)} and \
        all(e.file.endswith("textwrap.py") for e in read_events(out))


def test_path_pattern_and_glob(project, tmp_path):
    out = tmp_path / "ev.jsonl.gz"
    r = record([sys.executable, "-c", "import minipkg; minipkg.clip([1])"],
               include=["./minipkg"], cwd=str(project), out=str(out), env=env())
    assert [m for m, _ in r.modules] == ["minipkg"]
    mods, paths = classify_patterns(["mini*", "./x*/y.py"], str(project))
    assert mods == ["mini*"] and paths == [str(project / "x*" / "y.py")]


def test_runpy_main_module_runs_plain(project, tmp_path):
    (project / "minipkg" / "__main__.py").write_text("print(len('abc'))\n")
    out = tmp_path / "ev.jsonl.gz"
    r = record([sys.executable, "-m", "minipkg"], cwd=str(project), out=str(out), env=env(),
               stdout=subprocess.PIPE)
    assert r.ok                                    # no NameError for the loaders


def test_bad_arguments(project, tmp_path):
    with pytest.raises(RecordError, match="non-empty list"):
        record([], out=str(tmp_path / "x.gz"))
    with pytest.raises(RecordError, match="neither a module name"):
        record(["true"], include=["a b"], cwd=str(project), out=str(tmp_path / "x.gz"))
    with pytest.raises(RecordError, match="does not exist"):
        record(["true"], include=["./nope"], cwd=str(project), out=str(tmp_path / "x.gz"))
    with pytest.raises(RecordError, match="directory of out"):
        record(["true"], out=str(tmp_path / "no" / "x.gz"))
    with pytest.raises(RecordError, match="timeout"):
        record(["true"], out=str(tmp_path / "x.gz"), timeout=-1)
    with pytest.raises(FileNotFoundError):
        record(["/nonexistent/program"], out=str(tmp_path / "x.gz"))
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".lexecutor-record")]


def run_cli(args, cwd):
    return subprocess.run([sys.executable, "-m", "lexecutor_c", "record", *args], cwd=cwd,
                          env=env(), capture_output=True, text=True)


def test_cli_records_and_reports(project, tmp_path):
    out = tmp_path / "cli.jsonl.gz"
    p = run_cli(["--include", "minipkg", "--out", str(out), "--",
                 sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                str(project))
    assert p.returncode == 0, p.stderr
    assert "events from 1 modules" in p.stderr and str(out) in p.stderr
    events = read_events(out)
    assert {e.file for e in events} == {"minipkg/__init__.py"}


def test_cli_exit_status_is_the_commands(project, tmp_path):
    p = run_cli(["--out", str(tmp_path / "x.gz"), "--", sys.executable, "-c",
                 "raise SystemExit(3)"], str(project))
    assert p.returncode == 3
    assert "exit status 3" in p.stderr


@pytest.mark.parametrize("args, message", [
    ([], "give the command to run after --"),
    (["--"], "give the command to run after --"),
    (["--include", "a b", "--", "true"], "neither a module name"),
    (["--out", "/nonexistent-dir/x.gz", "--", "true"], "does not exist"),
    (["--", "/nonexistent/program"], "cannot run"),
    (["--timeout", "-3", "--", "true"], "timeout"),
])
def test_cli_bad_arguments(project, args, message):
    p = run_cli(args, str(project))
    assert p.returncode == 2
    assert message in p.stderr
    assert "Traceback" not in p.stderr


def test_truncated_part_keeps_complete_members(tmp_path):
    import zlib
    part = tmp_path / "1.events.gz"
    rows = [["a", "int_pos", "name", "f.py", 1, 1, "", ""],
            ["b", "None", "call", "f.py", 2, 2, "x", "y"]]
    data = b""
    for row in rows:
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        data += c.compress((json.dumps(row) + "\n").encode()) + c.flush()
    part.write_bytes(data + data[:10])             # a member cut off
    events, complete = read_parts(str(part))
    assert [e.name for e in events] == ["a", "b"] and not complete
    part.write_bytes(data)
    events, complete = read_parts(str(part))
    assert complete and events[1].before == "x"
    with gzip.open(part, "rt") as f:               # an ordinary multi-member gzip file
        assert len(f.readlines()) == 2
