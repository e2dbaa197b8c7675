"""lexecutor-c batch / lexecutor_c.batch: inputs, resume by content hash, bad input, and the
executors against the real engines (a process pool, a Dask LocalCluster and a local Ray
instance started here): the same rows as the local pool, a worker killed in the middle and
nothing lost or written twice."""
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

pa = pytest.importorskip("pyarrow")
import pyarrow.parquet as pq  # noqa: E402

from lexecutor_c import cli  # noqa: E402
from lexecutor_c.apps import batch as B  # noqa: E402
from lexecutor_c.engine import executors as X  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLE = ROOT.parent / "shared" / "bench" / "treefix_sample" / "functions"

try:
    import ray  # noqa: F401
    RAY = None
except ImportError:
    RAY = (f"ray is not installed for Python {sys.version_info.major}.{sys.version_info.minor} "
           "(Makefile PYDEPS installs ray[client]==2.60.0; the ray executor says so too)")
try:
    import dask.distributed  # noqa: F401
    DASK = None
except ImportError:
    DASK = "dask[distributed] is not installed"

COMPARE = ("key", "id", "index", "status", "coverage", "covered_lines", "total_lines",
           "covered", "injections", "exception", "error")


def snippets(n, sleep=0.0):
    out = []
    for i in range(n):
        code = f"x = foo({i})\nprint(x.bar + {i})\n"
        if i % 7 == 3:
            code = f"raise ValueError('item {i}')\n"
        if i % 11 == 5:
            code = f"def f{i}(:\n"                  # does not parse: an error row
        if sleep:
            code = f"import time\ntime.sleep({sleep})\n" + code
        out.append(code)
    return out


def write_jsonl(path, codes, extra=True):
    with open(path, "w") as f:
        for i, c in enumerate(codes):
            d = {"code": c}
            if extra:
                d["name"] = f"snippet-{i}"
            f.write(json.dumps(d) + "\n")
    return str(path)


def rows(out):
    t = B.read_results(str(out))
    return sorted(t.select(list(COMPARE)).to_pylist(), key=lambda r: r["index"])


def call(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    o, e = capsys.readouterr()
    return code, o, e


# ---------------------------------------------------------------- inputs and rows

def test_jsonl_rows_statuses_and_summary(tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", snippets(12))
    s = B.batch(src, tmp_path / "out", workers=2, options={"timeout": 10})
    assert (s.ran, s.skipped, s.rows, s.lost) == (12, 0, 12, 0)
    r = rows(tmp_path / "out")
    assert [x["index"] for x in r] == list(range(12))
    assert r[0]["status"] == "ok" and r[0]["injections"] == 3 and r[0]["covered"] == [1, 2]
    assert r[3]["status"] == "exception" and r[3]["exception"] == "ValueError: item 3"
    assert r[5]["status"] == "error" and "SyntaxError" in r[5]["error"]
    assert r[1]["id"] == "s.jsonl:2"
    assert len({x["key"] for x in r}) == 12
    detail = json.loads(B.read_results(str(tmp_path / "out")).column("detail")[0].as_py())
    assert "injections" in detail and "stdout" in detail
    summ = json.loads((tmp_path / "out" / "_summary.json").read_text())
    assert summ["rows"] == 12 and summ["statuses"]["exception"] == 2
    assert summ["runs"][0]["ran"] == 12


def test_folder_and_parquet_inputs_same_keys(tmp_path):
    codes = snippets(6)
    d = tmp_path / "corpus" / "sub"
    d.mkdir(parents=True)
    for i, c in enumerate(codes):
        (d / f"f{i}.py").write_text(c)
    (d / "notes.txt").write_text("not python")
    pq.write_table(pa.table({"src": codes, "name": [f"n{i}" for i in range(6)]}),
                   tmp_path / "s.parquet")
    a = B.batch(tmp_path / "corpus", tmp_path / "o1", workers=1)
    b = B.batch(tmp_path / "s.parquet", tmp_path / "o2", workers=1, code_column="src",
                id_column="name")
    assert a.ran == b.ran == 6
    ra, rb = rows(tmp_path / "o1"), rows(tmp_path / "o2")
    assert sorted(x["key"] for x in ra) == sorted(x["key"] for x in rb)
    assert {x["id"] for x in ra} == {f"sub/f{i}.py" for i in range(6)}
    assert {x["id"] for x in rb} == {f"n{i}" for i in range(6)}


def test_instrument_and_trace_tasks(tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", ["x = foo()\nprint(x)\n"])
    B.batch(src, tmp_path / "i", task="instrument", workers=1)
    d = json.loads(B.read_results(str(tmp_path / "i")).column("detail")[0].as_py())
    assert "_n_(" in d["source"] and d["sites"] > 0
    B.batch(src, tmp_path / "t", task="trace", workers=1)
    t = B.read_results(str(tmp_path / "t"))
    assert t.column("status")[0].as_py() == "ok"
    assert "line" in json.loads(t.column("detail")[0].as_py())["trace"].lower() or \
        json.loads(t.column("detail")[0].as_py())["entries"]


def test_treefix_and_errors_tasks(tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", ["import pandas as pd\ndf = pd.read_csv(path)\n"
                                             "print(df.shape[0] + 1)\n"])
    s = B.batch(src, tmp_path / "tf", task="treefix", workers=1,
                options={"budget": 3, "n": 2, "k": 1, "timeout": 2})
    t = B.read_results(str(tmp_path / "tf")).to_pylist()[0]
    assert s.ran == 1 and t["status"] == "ok", t["error"]
    d = json.loads(t["detail"])
    assert t["total_lines"] == 3 and t["coverage"] == d["coverage"] and d["prefixes"]
    B.batch(src, tmp_path / "er", task="errors", workers=1,
            options={"seeds": 1, "timeout": 5, "treefix": False})
    e = B.read_results(str(tmp_path / "er")).to_pylist()[0]
    assert e["status"] in ("ok", "error-found") and "runs" in json.loads(e["detail"])
    with pytest.raises(B.BatchError, match="takes no option"):
        B.batch(src, tmp_path / "x", task="errors", options={"budget": 3})


def test_duplicates_run_once_and_limit_then_resume_skips_done(tmp_path):
    codes = snippets(10)
    src = write_jsonl(tmp_path / "s.jsonl", codes + codes[:3])      # 3 duplicates
    s1 = B.batch(src, tmp_path / "out", workers=2, limit=4)
    assert (s1.ran, s1.rows) == (4, 4)
    s2 = B.batch(src, tmp_path / "out", workers=2)
    assert s2.ran == 6 and s2.skipped == 4 + 3 and s2.rows == 10
    keys = B.read_results(str(tmp_path / "out")).column("key").to_pylist()
    assert len(keys) == len(set(keys)) == 10
    s3 = B.batch(src, tmp_path / "out", workers=1)
    assert s3.ran == 0 and s3.rows == 10
    assert len(json.loads((tmp_path / "out" / "_summary.json").read_text())["runs"]) == 3


def test_shards_partition_and_sample_is_stable(tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", snippets(30), extra=False)
    got = []
    for i in range(3):
        B.batch(src, tmp_path / f"sh{i}", task="instrument", workers=1, shard=f"{i}/3")
        got.append(set(B.read_results(str(tmp_path / f"sh{i}")).column("key").to_pylist()))
    assert sum(map(len, got)) == 30 and len(got[0] | got[1] | got[2]) == 30
    assert all(got)
    a = B.batch(src, tmp_path / "sa", task="instrument", workers=1, sample=0.5)
    b = B.batch(src, tmp_path / "sb", task="instrument", workers=1, sample=0.5)
    ka = set(B.read_results(str(tmp_path / "sa")).column("key").to_pylist())
    kb = set(B.read_results(str(tmp_path / "sb")).column("key").to_pylist())
    assert ka == kb and 0 < a.ran == b.ran < 30


def test_progress_reports_rate_and_eta(tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", snippets(8))
    seen = []
    B.batch(src, tmp_path / "out", task="instrument", workers=1, batch_size=2,
            progress=seen.append)
    assert seen and seen[-1]["done"] == 8 and seen[-1]["total"] == 8
    assert seen[-1]["items_per_s"] > 0 and seen[-1]["eta_s"] == 0


# ---------------------------------------------------------------- bad input

def test_bad_input_is_a_usage_error(tmp_path, capsys):
    src = write_jsonl(tmp_path / "s.jsonl", snippets(2))
    code, _, err = call(capsys, "batch", tmp_path / "missing.jsonl", "--out", tmp_path / "o")
    assert code == 2 and "no such file" in err and "Traceback" not in err
    code, _, err = call(capsys, "batch", src, "--out", tmp_path / "o", "--code-column", "src")
    assert code == 2 and "no column 'src'" in err and "code, name" in err
    assert not (tmp_path / "o").exists()
    pq.write_table(pa.table({"text": ["x = 1"]}), tmp_path / "p.parquet")
    code, _, err = call(capsys, "batch", tmp_path / "p.parquet", "--out", tmp_path / "o")
    assert code == 2 and "no column 'code'" in err and "text" in err
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    code, _, err = call(capsys, "batch", tmp_path / "bad.parquet", "--out", tmp_path / "o")
    assert code == 2 and "not a readable Parquet file" in err
    (tmp_path / "x.csv").write_text("code\n1\n")
    code, _, err = call(capsys, "batch", tmp_path / "x.csv", "--out", tmp_path / "o")
    assert code == 2 and "not a folder" in err
    for argv, msg in ((["--shard", "3/2"], "0 <= I < N"), (["--shard", "x"], "I/N"),
                      (["--sample", "0"], "fraction"),
                      (["--executor", "spark"], "unknown executor"),
                      (["--workers", "0"], "at least 1"), (["--budget", "3"], "treefix")):
        code, _, err = call(capsys, "batch", src, "--out", tmp_path / "o2", *argv)
        assert code == 2 and msg in err, (argv, err)


def test_out_folder_of_other_options_is_refused(tmp_path, capsys):
    src = write_jsonl(tmp_path / "s.jsonl", snippets(2))
    assert call(capsys, "batch", src, "--out", tmp_path / "o", "--workers", "1")[0] == 0
    code, _, err = call(capsys, "batch", src, "--out", tmp_path / "o", "--task", "instrument")
    assert code == 2 and "another task or other options" in err


def test_bad_lines_after_the_first_are_error_rows(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_text(json.dumps({"code": "x = 1\n"}) + "\n{broken\n" +
                 json.dumps({"other": 1}) + "\n" + json.dumps({"code": 5}) + "\n")
    s = B.batch(p, tmp_path / "o", workers=1)
    r = rows(tmp_path / "o")
    assert s.rows == 4 and [x["status"] for x in r] == ["ok", "error", "error", "error"]
    assert "not JSON" in r[1]["error"] and "no column" in r[2]["error"]


# ---------------------------------------------------------------- executors

def _parity(tmp_path, executor):
    src = write_jsonl(tmp_path / "s.jsonl", snippets(20))
    B.batch(src, tmp_path / "local", workers=2)
    s = B.batch(src, tmp_path / executor, executor=executor, workers=2)
    assert s.ran == 20 and s.lost == 0 and executor in s.executor
    assert rows(tmp_path / executor) == rows(tmp_path / "local")
    workers = set(B.read_results(str(tmp_path / executor)).column("worker").to_pylist())
    assert all(w.split(":")[1] != str(os.getpid()) for w in workers)   # ran in the workers


def _in_own_process(check: str, tmp_path, executor: str) -> None:
    """Run ``check(tmp_path, executor)`` of this module in a fresh interpreter: a Dask
    cluster or a Ray instance started here changes the process for the tests after it (Ray
    puts its own SIGSEGV handler under faulthandler's, multiprocessing keeps a resource
    tracker child), so the engines are started where they cannot do that to the suite."""
    code = ("import pathlib, sys; sys.path.insert(0, sys.argv[1]); import test_batch as t; "
            f"t.{check}(pathlib.Path(sys.argv[2]), sys.argv[3])")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    r = subprocess.run([sys.executable, "-c", code, str(ROOT / "tests"), str(tmp_path),
                        executor], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, f"{check}({executor}) failed:\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"


@pytest.mark.skipif(DASK is not None, reason=DASK or "")
def test_dask_local_cluster_same_rows_as_local_pool(tmp_path):
    _in_own_process("_parity", tmp_path, "dask")


@pytest.mark.skipif(RAY is not None, reason=RAY or "")
def test_ray_local_instance_same_rows_as_local_pool(tmp_path):
    _in_own_process("_parity", tmp_path, "ray")


def _kill_a_worker_midway(tmp_path, executor):
    n = 24
    src = write_jsonl(tmp_path / "s.jsonl", snippets(n, sleep=0.3))
    out = tmp_path / "out"
    killed = []

    def on_progress(state):
        if killed or state["done"] < 4:
            return
        w = B.read_results(str(out), columns=["worker"]).column("worker").to_pylist()
        pid = int(w[-1].split(":")[1])
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    s = B.batch(src, out, executor=executor, workers=2, batch_size=2, flush_rows=1,
                progress=on_progress)
    assert killed, "no worker was killed"
    assert s.retried >= 1 and s.lost == 0 and s.rows == n
    keys = B.read_results(str(out)).column("key").to_pylist()
    assert len(keys) == len(set(keys)) == n                       # nothing lost, none twice
    assert json.loads((out / "_summary.json").read_text())["retried"] == s.retried
    later = set(B.read_results(str(out)).column("worker").to_pylist())
    assert any(int(w.split(":")[1]) != killed[0] for w in later)


def test_local_pool_worker_killed_midway_nothing_lost(tmp_path):
    _kill_a_worker_midway(tmp_path, "local")


@pytest.mark.skipif(DASK is not None, reason=DASK or "")
def test_dask_worker_killed_midway_nothing_lost(tmp_path):
    _in_own_process("_kill_a_worker_midway", tmp_path, "dask")


@pytest.mark.slow
@pytest.mark.skipif(RAY is not None, reason=RAY or "")
def test_ray_worker_killed_midway_nothing_lost(tmp_path):
    _in_own_process("_kill_a_worker_midway", tmp_path, "ray")


def test_ray_missing_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)       # import ray -> ImportError
    with pytest.raises(X.ExecutorError, match=r"pip install 'ray\[client\]==2\.60\.0'"):
        X.open_executor("ray", workers=1)


def test_run_batches_resubmits_a_lost_local_worker_and_counts(tmp_path):
    marker = tmp_path / "died"
    retried = []
    with X.open_executor("local", workers=2) as exe:
        got = dict(X.run_batches(exe, _die_once, [(str(marker), i) for i in range(6)],
                                 on_retry=lambda b, e: retried.append(b)))
    assert sorted(v for v in got.values()) == [i * 10 for i in range(6)]
    assert marker.exists() and retried


def _die_once(arg):
    marker, i = arg
    if i == 2 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(9)
    time.sleep(0.05)
    return i * 10


# ---------------------------------------------------------------- interrupted CLI runs

def _interruptible():
    # Ctrl-C at a terminal: the command starts with SIGINT at its default.  A suite
    # started in the background of a non-interactive shell (``make test &``, nohup)
    # hands SIGINT on ignored; the batch driver then saw the interrupt only when a
    # sandbox child happened to be running an item (it resets SIGINT), and exited 0
    # otherwise -- a race that failed this test in such runs.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _sub(argv, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "lexecutor_c", "batch", *map(str, argv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=str(ROOT), env=env, preexec_fn=_interruptible, **kw)


def _wait_rows(out, at_least, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if B.read_results(str(out), columns=["key"]).num_rows >= at_least:
            return
        time.sleep(0.1)
    raise AssertionError("no rows written in time")


@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
def test_interrupted_run_resumes_without_redoing_done_items(tmp_path, how):
    n = 30
    src = write_jsonl(tmp_path / "s.jsonl", snippets(n, sleep=0.2))
    out = tmp_path / "out"
    p = _sub([src, "--out", out, "--workers", "2", "--batch-size", "1", "--flush-rows", "1",
              "--no-progress"], start_new_session=True)
    try:
        _wait_rows(out, 4)
        if how == "SIGINT":                     # Ctrl-C: the whole foreground group
            os.killpg(p.pid, signal.SIGINT)
            _, err = p.communicate(timeout=60)
            assert p.returncode == 130, err
        else:                                   # the machine went away: everything dies
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    first = B.read_results(str(out), columns=["key", "exception"]).to_pylist()
    assert 4 <= len(first) < n
    assert not any("KeyboardInterrupt" in (r["exception"] or "") for r in first)
    assert not [f for f in os.listdir(out) if f.endswith(".tmp")] or how == "SIGKILL"
    p2 = _sub([src, "--out", out, "--workers", "2", "--json", "--no-progress"])
    o, err = p2.communicate(timeout=120)
    assert p2.returncode == 0, err
    s = json.loads(o)
    assert s["skipped"] == len(first) and s["ran"] == n - len(first) and s["rows"] == n
    keys = B.read_results(str(out)).column("key").to_pylist()
    assert len(keys) == len(set(keys)) == n


def test_default_batch_size_leaves_no_worker_idle_on_a_small_corpus(tmp_path, monkeypatch):
    assert B.auto_batch_size(None, 2) == 16 and B.auto_batch_size(10_000, 2) == 16
    assert B.auto_batch_size(87, 2) == 11 and B.auto_batch_size(87, 16) == 2
    assert B.auto_batch_size(3, 8) == 1 and B.auto_batch_size(0, 2) == 16
    sizes = []
    real = X.run_batches

    def recording(exe, fn, batches, **kw):
        def seen():
            for b in batches:
                sizes.append(len(b[2]))
                yield b
        return real(exe, fn, seen(), **kw)
    monkeypatch.setattr(X, "run_batches", recording)
    src = write_jsonl(tmp_path / "s.jsonl", snippets(20), extra=False)
    s = B.batch(src, tmp_path / "out", task="instrument", workers=2)
    assert s.rows == 20 and sizes == [3] * 6 + [2]       # 20 items: 8 batches asked
    sizes.clear()
    B.batch(src, tmp_path / "out2", task="instrument", workers=2, batch_size=16)
    assert sizes == [16, 4]                               # as given
