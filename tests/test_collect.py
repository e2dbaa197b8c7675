"""lexecutor_c.model.training.collect on tiny local 'sdists' (no network), on a
real two-worker Dask LocalCluster."""
import io
import json
import os
import subprocess
import sys
import tarfile

import pytest

from lexecutor_c.engine.runtime import load_frequency_table, read_events
from lexecutor_c.model.training import collect
from lexecutor_c.model.training import dataset as ds
from lexecutor_c.model.training import projects

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TINY = {
    "tinyproj-1.0/src/tinyproj/__init__.py":
        "def words(text):\n    parts = text.split()\n    return [p.upper() for p in parts]\n",
    "tinyproj-1.0/tests/test_tiny.py":
        "from tinyproj import words\n\ndef test_words():\n"
        "    assert words('a b') == ['A', 'B']\n\n"
        "def test_fails():\n    assert words('') == [1]\n",
}
OTHER = {
    "otherproj-2.1/otherproj.py":
        "def total(xs):\n    n = len(xs)\n    return sum(xs) / n if n else 0.0\n",
    "otherproj-2.1/tests.py":
        "from otherproj import total\n\ndef test_total():\n    assert total([1, 2]) == 1.5\n",
}
SLOW = {
    "slowproj-0.1/slowproj.py": "import time\n\ndef nap():\n    time.sleep(120)\n",
    "slowproj-0.1/tests/test_slow.py":
        "from slowproj import nap\n\ndef test_nap():\n    nap()\n",
}
NOTESTS = {"notests-3.0/notests.py": "X = 1\n"}


def make_sdist(path, files):
    with tarfile.open(path, "w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


@pytest.fixture
def data(tmp_path, monkeypatch):
    d = tmp_path / "data"
    (d / "sdists").mkdir(parents=True)
    make_sdist(d / "sdists" / "tinyproj-1.0.tar.gz", TINY)
    make_sdist(d / "sdists" / "otherproj-2.1.tar.gz", OTHER)
    make_sdist(d / "sdists" / "slowproj-0.1.tar.gz", SLOW)
    make_sdist(d / "sdists" / "notests-3.0.tar.gz", NOTESTS)
    # the Dask workers and the recorded interpreters import this checkout
    monkeypatch.setenv("PYTHONPATH", ROOT)
    return d


def cli(argv):
    """The command in a process of its own: a LocalCluster leaves
    multiprocessing's resource tracker behind as a child of its process."""
    r = subprocess.run([sys.executable, "-m", "lexecutor_c.model.training.collect", *argv],
                       capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout


def test_collect_offline_dask_end_to_end(data, tmp_path, capsys):
    table = tmp_path / "freq.json.gz"
    argv = ["--data", str(data), "--projects", "tinyproj,otherproj,slowproj,notests",
            "--stdlib", "", "--offline", "--workers", "2", "--timeout", "8",
            "--table", str(table)]
    rc, out = cli(argv)
    assert rc == 0, out
    assert "4 to run on 2 workers" in out
    manifest = json.loads((data / "manifest.json").read_text())
    runs = manifest["projects"]
    assert {n: r["state"] for n, r in runs.items()} == {
        "tinyproj": "ok", "otherproj": "ok", "slowproj": "timeout", "notests": "failed"}
    tiny = runs["tinyproj"]
    assert tiny["version"] == "1.0" and tiny["returncode"] == 1
    assert tiny["test_counts"] == {"passed": 1, "failed": 1}
    assert tiny["tests"] == 2 and tiny["failures"] == 1
    assert tiny["examples"] > 0 and tiny["events"] >= tiny["examples"]
    assert runs["otherproj"]["tests"] == 1 and runs["otherproj"]["returncode"] == 0
    assert runs["slowproj"]["timed_out"] is True
    assert "no tests" in runs["notests"]["error"]

    events = read_events(data / "events" / "tinyproj.jsonl.gz")
    assert {e.file for e in events} == {"src/tinyproj/__init__.py", "tests/test_tiny.py"}
    by = {}
    for e in events:
        by.setdefault((e.name, e.kind), set()).add(e.cls)
    assert by[("split", "call")] == {"list_nonempty", "list_empty"}
    assert by[("upper", "attribute")] == {"callable"}

    # the dataset: the ok and timeout projects, one of the two with examples held out
    info = json.loads((data / "dataset" / "dataset.json").read_text())
    assert info["format"] == "lexecutor_c.dataset" and info["version"] == 1
    train, test, info2 = ds.load_split(str(data / "dataset"))
    assert info2 == info
    everything = ds.read_examples(data / "dataset" / "all.jsonl.gz")
    assert len(everything) == info["examples"] == len(train) + len(test)
    held = info["heldout_projects"]
    assert len(held) == 1 and held[0] in ("tinyproj", "otherproj", "slowproj")
    assert {e.project for e in test} <= set(held)
    assert not {e.project for e in train} & set(held)
    assert info["per_project"]["tinyproj"]["examples"] == tiny["examples"]
    assert "notests" not in info["per_project"]
    counts, meta = load_frequency_table(table, with_meta=True)
    assert counts["split"] == {"callable": 1, "list_nonempty": 1, "list_empty": 1}
    assert "notests" not in meta["projects"]

    assert collect.main(["--data", str(data), "--summary"]) == 0
    out = capsys.readouterr().out
    assert "used: 3 PyPI projects, 0 stdlib test modules" in out
    assert f"held out: {held[0]}" in out
    assert "| tinyproj | 1.0 | ok | 2 | 1 |" in out
    assert "| notests | 3.0 | failed: RuntimeError: the sdist has no tests |" in out

    # resumable: nothing runs again...
    first = (data / "manifest.json").read_text()
    assert collect.main(argv + ["--no-dataset"]) == 0
    assert "0 to run on 2 workers, 4 done before" in capsys.readouterr().out
    assert (data / "manifest.json").read_text() == first
    # ... except the failed and timed-out ones with --retry
    rc, out = cli(argv + ["--no-dataset", "--retry", "--projects", "tinyproj,notests,slowproj"])
    assert rc == 0 and "2 to run on 2 workers" in out
    rc, out = cli(argv + ["--no-dataset", "--retry=failed", "--projects",
                          "tinyproj,notests,slowproj"])
    assert rc == 0 and "1 to run on 2 workers" in out
    again = json.loads((data / "manifest.json").read_text())["projects"]
    assert again["tinyproj"] == runs["tinyproj"]
    assert again["notests"]["finished"] >= runs["notests"]["finished"]


def test_interrupted_project_runs_again(tmp_path):
    m = {"projects": {"a": {"state": "running"}, "b": {"state": "ok"},
                      "c": {"state": "timeout"}, "d": {"state": "failed"}}}
    assert collect.to_run(["a", "b", "c", "d", "e"], m, retry=False, force=False) == ["a", "e"]
    assert collect.to_run(["a", "b", "c", "d"], m, retry=True, force=False) == ["a", "c", "d"]
    assert collect.to_run(["b"], m, retry=False, force=True) == ["b"]
    assert collect.to_run(["a", "b", "c", "d"], m, retry={"failed"}, force=False) == ["a", "d"]
    # a retry of c that was interrupted: c keeps its finished result
    m["projects"]["c"] = {"state": "running", "previous_state": "timeout"}
    assert collect.to_run(["c"], m, retry={"failed"}, force=False) == []
    assert collect.to_run(["c"], m, retry={"timeout"}, force=False) == ["c"]
    path = str(tmp_path / "m.json")
    collect.save_manifest(path, m)
    assert collect.load_manifest(path) == m
    (tmp_path / "bad.json").write_text("{not json")
    assert collect.load_manifest(str(tmp_path / "bad.json"))["projects"] == {}


@pytest.mark.parametrize("name", ["Flask", "requests", "itsdangerous", "tqdm", "PyYAML",
                                  "beautifulsoup4", "sqlparse", "Werkzeug"])
def test_collect_refuses_reserved_and_dev_set_projects(tmp_path, capsys, name):
    with pytest.raises(SystemExit) as ei:
        collect.main(["--data", str(tmp_path), "--projects", f"attrs,{name}", "--offline"])
    assert ei.value.code == 2
    assert "cannot be training data" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        collect.main(["--data", str(tmp_path), "--projects", f"{name}==1.0"])


def test_project_list_is_clean():
    names = [projects.normalize(p.name) for p in projects.PROJECTS]
    assert len(names) == len(set(names)), "a project is listed twice"
    assert not [n for n in names if projects.forbidden(n)]
    assert all(p.version and p.version[0].isdigit() for p in projects.PROJECTS)


def test_unknown_project_needs_a_version(tmp_path, capsys):
    with pytest.raises(SystemExit):
        collect.main(["--data", str(tmp_path), "--projects", "no-such-project-xyz"])
    assert "NAME==VERSION" in capsys.readouterr().err


def test_choose_heldout():
    names = [f"p{i}" for i in range(50)]
    held = ds.choose_heldout(names, 0.1, seed=0)
    assert len(held) == 5 and set(held) <= set(names)
    assert ds.choose_heldout(reversed(names), 0.1, seed=0) == held      # order-free
    assert ds.choose_heldout(names, 0.1, seed=1) != held
    # adding a project moves at most one in or out
    assert len(set(ds.choose_heldout(names + ["p50"], 0.1, 0)) ^ set(held)) <= 2
    assert ds.choose_heldout(["a"], 0.1) == [] and len(ds.choose_heldout(["a", "b"], 0.1)) == 1


def test_test_counts():
    assert collect.test_counts("x\n== 3 failed, 10 passed, 2 skipped in 1.20s ==\n") == {
        "failed": 3, "passed": 10, "skipped": 2}
    assert collect.test_counts("1 error in 0.5s") == {"errors": 1}
    log = "....\n----\nRan 12 tests in 0.3s\n\nFAILED (failures=2, errors=1)\n"
    assert collect.test_counts(log) == {"run": 12, "failures": 2, "errors": 1}
    assert collect.tests_run({"run": 12}) == 12
    assert collect.tests_run({"passed": 3, "failed": 1, "skipped": 5}) == 4
    assert collect.test_counts("Traceback ...\nImportError\n") == {}


def test_cap_counts_what_it_removes(tmp_path):
    from lexecutor_c.engine.runtime import Event, write_events
    evs = [Event(name="f", cls="int_pos", kind="call", file="t.py", line=i, iid=i,
                 before=f"b{i}", after="") for i in range(5)]
    path = tmp_path / "proj.jsonl.gz"
    write_events(str(path), evs + evs[:1])
    stats = {}
    out = ds.examples_from_events([str(path)], cap=3, stats=stats)
    assert len(out) == 3
    assert stats["duplicates"] == 1 and stats["capped"] == 2
    assert stats["per_project_capped"] == {"proj": 2}
    assert stats["per_project_events"] == {"proj": 6}


def test_topk_frequency():
    exs = [ds.Example("n", "name", "", "", "int_pos", "p"),
           ds.Example("n", "name", "", "", "int_zero", "p"),
           ds.Example("unknown", "name", "", "", "object", "p")]
    table = {"n": {"int_pos": 3, "int_zero": 1}}
    assert collect.topk_frequency(table, exs) == {"top1": 0.6667, "top3": 1.0, "top5": 1.0}
    assert collect.topk_frequency(table, exs, coarse=True)["top1"] == 1.0


def test_install_env_falls_back_and_reuses(tmp_path, monkeypatch):
    calls = []

    class R:
        def __init__(self, rc):
            self.returncode = rc

    def fake_run(cmd, **kw):
        calls.append(cmd[cmd.index("--target") + 2:])
        # the first attempt (extras + common deps) cannot be resolved
        return R(1 if len(calls) == 1 else 0)

    monkeypatch.setattr(collect.subprocess, "run", fake_run)
    p = projects.Project("demo", "1.0", deps=("extra-dep==2",))
    envdir = str(tmp_path / "env")
    log = io.StringIO()
    collect.install_env(p, envdir, 60, log)
    assert calls == [["demo[test,tests,testing]==1.0", *projects.COMMON_DEPS, "extra-dep==2"],
                     ["demo[test,tests,testing]==1.0", "extra-dep==2"]]
    collect.install_env(p, envdir, 60, log)          # the stamp: no pip again
    assert len(calls) == 2 and "reusing" in log.getvalue()
    monkeypatch.setattr(collect.subprocess, "run", lambda cmd, **kw: R(1))
    with pytest.raises(RuntimeError, match="pip install --target failed"):
        collect.install_env(p._replace(version="2.0"), envdir, 60, log)
