"""The coverage benchmark (benchmarks/coverage.py): the metric on snippets
counted by hand, the aggregation, checkpoint/resume, the line-count check
against the papers, the outputs, and the executors (local pool, dask)."""
import csv
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import coverage as bc  # noqa: E402
from lexecutor_c import cli  # noqa: E402

# ---------------------------------------------------------------- helpers

# name: (source, approach, status, covered (papers' rule), total, engine covered)
# Markers: one after each simple statement, one opening each block.
CASES = {
    # x=1 | if-block | y | z | w: the block is not entered
    "if_not_entered": ("x = 1\nif x > 5:\n    y = 2\n    z = 3\nw = 4\n",
                       "as-is", "ok", 2, 5, 2),
    # a | raise | b: a raise never completes, so the papers never count it
    # (their marker follows it); the engine counts it when reached
    "raise": ("a = 1\nraise ValueError('no')\nb = 2\n", "as-is", "exception", 1, 3, 2),
    # t | for-block | t+= | print
    "loop": ("t = 0\nfor i in range(3):\n    t += i\nprint(t)\n", "as-is", "ok", 4, 4, 4),
    # break/continue never complete either: for-block, if-block, break, continue
    "break_continue": ("for i in range(2):\n    if i:\n        break\n    continue\n",
                       "as-is", "ok", 2, 4, 4),
    # def-block | b | return | c: only c runs
    "function_never_called": ("def f(a):\n    b = a + 1\n    return b\nc = 2\n",
                              "as-is", "ok", 1, 4, 1),
    # try-block | x=1/0 | y | except-block | z | finally-block | w
    "try_except": ("try:\n    x = 1 / 0\n    y = 2\nexcept ZeroDivisionError:\n    z = 3\n"
                   "finally:\n    w = 4\n", "as-is", "ok", 5, 7, 5),
    # a missing name: as is, the first line raises; naive injection runs both
    "missing_as_is": ("x = foo()\ny = x.bar\n", "as-is", "exception", 0, 2, 0),
    "missing_naive": ("x = foo()\ny = x.bar\n", "naive", "ok", 2, 2, 2),
    # exit(X) counts once X is evaluated (the papers' aux = X marker)
    "exit": ("a = 1\nexit(a)\nb = 2\n", "as-is", "exit", 2, 3, 2),
}


def _task(tmp_path, name, source, approach="as-is", dataset="so"):
    d = tmp_path / dataset
    d.mkdir(exist_ok=True)
    p = d / f"{name}.py"
    p.write_text(source)
    return bc.Task(dataset, f"{dataset}/{p.name}", str(p), approach, 0, "test")


@pytest.mark.parametrize("name", sorted(CASES))
def test_metric_on_hand_counted_snippets(tmp_path, name):
    src, approach, status, covered, total, engine = CASES[name]
    row = bc.run_task(_task(tmp_path, name, src, approach), bc.Options(timeout=5))
    assert row["status"] == status
    assert (row["covered_lines"], row["total_lines"]) == (covered, total)
    assert row["coverage"] == pytest.approx(covered / total)
    assert row["engine_covered_lines"] == engine
    assert row["engine_coverage"] == pytest.approx(engine / total)
    assert row["coverage_known"] is True


def test_hang_costs_its_timeout_and_keeps_coverage(tmp_path):
    # n | while-block | n += 1: the soft timeout stops it with coverage known
    row = bc.run_task(_task(tmp_path, "hang", "n = 0\nwhile True:\n    n += 1\n"),
                      bc.Options(timeout=0.5))
    assert row["status"] == "timeout"
    assert (row["covered_lines"], row["total_lines"], row["coverage"]) == (3, 3, 1.0)
    assert 0.5 <= row["wall_time"] < 3


def test_hang_that_swallows_the_timeout_counts_the_lines_it_reached(tmp_path):
    src = ("import time\nwhile True:\n    try:\n        time.sleep(10)\n"
           "    except BaseException:\n        pass\n")
    row = bc.run_task(_task(tmp_path, "hard", src), bc.Options(timeout=0.5))
    assert row["status"] == "timeout"
    # killed at the hard timeout; the run journal still has its markers
    assert row["coverage_known"] is True and row["total_lines"] == 6
    assert row["covered"][:2] == [1, 2] and row["coverage"] == row["covered_lines"] / 6
    assert row["wall_time"] < 4            # timeout + 1 s grace, not the sleep


def test_segfault_is_a_crash_that_counts_the_lines_before_it(tmp_path):
    src = "import ctypes\nx = 1\nctypes.string_at(0)\ny = 2\n"
    row = bc.run_task(_task(tmp_path, "segv", src), bc.Options(timeout=5))
    assert row["status"] == "crashed" and row["signal"] == 11
    assert row["coverage_known"] is True and row["covered"] == [1, 2]
    assert row["total_lines"] == 4 and row["covered_lines"] == 2 and row["coverage"] == 0.5


def test_unparsable_snippet_is_an_error_row(tmp_path):
    row = bc.run_task(_task(tmp_path, "bad", "print 'python 2'\n"), bc.Options())
    assert row["status"] == "error" and "SyntaxError" in row["error"]
    assert row["coverage"] == 0.0


# ---------------------------------------------------------------- aggregation

def _row(ds, f, a, cov, total, wall, status="ok", seed=0):
    return {"dataset": ds, "file": f, "approach": a, "seed": seed, "version": "v",
            "status": status, "coverage": cov, "coverage_known": True,
            "covered_lines": round(cov * total), "total_lines": total,
            "engine_coverage": cov, "engine_covered_lines": round(cov * total),
            "wall_time": wall}


def test_summary_aggregation():
    snippets = [bc.Snippet("so", "so/a.py", "/a", 4, 1.0, 0.5),
                bc.Snippet("so", "so/b.py", "/b", 2, 0.5, 0.5),
                bc.Snippet("functions", "functions/c.py", "/c", 10, None, None)]
    rows = [_row("so", "so/a.py", "naive", 1.0, 4, 0.2),
            _row("so", "so/b.py", "naive", 0.5, 2, 0.4, status="exception"),
            _row("functions", "functions/c.py", "naive", 0.0, 10, 0.6, status="timeout"),
            _row("so", "so/a.py", "as-is", 0.25, 4, 0.1, status="exception")]
    s = bc.summarize(rows, snippets)
    so = s["approaches"]["so"]["naive"]
    assert so["coverage"] == pytest.approx(0.75)
    assert so["full_rate"] == pytest.approx(0.5)
    assert so["seconds_per_snippet"] == pytest.approx(0.3)
    assert so["ms_per_line"] == pytest.approx(1000 * 0.6 / 6)
    assert so["statuses"] == {"ok": 1, "exception": 1}
    ov = s["approaches"]["overall"]["naive"]
    assert ov["snippets"] == 3
    assert ov["coverage"] == pytest.approx(0.5)
    assert ov["ms_per_line"] == pytest.approx(1000 * 1.2 / 16)
    assert s["approaches"]["so"]["as-is"]["coverage"] == pytest.approx(0.25)
    assert "as-is" not in s["approaches"]["functions"]
    ref = s["reference"]
    assert ref["so"]["treefix_coverage_P"] == pytest.approx(0.75)
    assert ref["so"]["treefix_coverage_pbest"] == pytest.approx(0.5)
    assert ref["so"]["treefix_full_rate_P"] == pytest.approx(0.5)
    assert ref["functions"]["treefix_snippets"] == 0
    assert ref["overall"]["treefix_coverage_P"] == pytest.approx(0.75)
    assert ref["so"]["lexecutor_paper"] == 0.651 and ref["functions"]["as_is_paper"] == 0.041
    md = bc.markdown_table(s)
    assert "| so | naive | 2 | 75.0% | 75.0% | 50% | 0.300 | 100.00 |" in md
    assert "| so | Treefix+GPT-4o, P | 2 | 75.0% |" in md
    assert "| functions | LExecutor paper (neural) | full set | 51.6% |" in md
    assert "- timed out, functions: naive 1 of 1" in md
    assert "- timed out, overall: naive 1 of 3; as-is 0 of 1" in md


def test_prefix_run_timeouts_are_summed():
    snippets = [bc.Snippet("so", "so/a.py", "/a"), bc.Snippet("so", "so/b.py", "/b")]
    rows = [dict(_row("so", "so/a.py", "treefix-offline", 1.0, 4, 2.0), prefix_runs=10,
                 prefix_timeouts=2),
            dict(_row("so", "so/b.py", "treefix-offline", 0.5, 2, 2.0), prefix_runs=5,
                 prefix_timeouts=0)]
    m = bc.summarize(rows, snippets)["approaches"]["so"]["treefix-offline"]
    assert (m["prefix_runs"], m["prefix_timeouts"], m["snippets_with_prefix_timeouts"]) == \
        (15, 2, 1)
    assert "treefix-offline 2 of 15 prefix runs (1 snippets)" in bc.markdown_table(
        bc.summarize(rows, snippets))


def test_treefix_rows_count_their_prefix_runs_and_timeouts(tmp_path):
    # a loop on real values only: no guard ends it, every prefix run times out
    src = "x = foo()\nwhile True:\n    pass\n"
    row = bc.run_task(_task(tmp_path, "spin", src, "treefix-offline"),
                      bc.Options(timeout=0.5, treefix_budget=1.5))
    assert row["prefix_runs"] >= 1 and 1 <= row["prefix_timeouts"] <= row["prefix_runs"]
    row = bc.run_task(_task(tmp_path, "calm", "x = foo()\n", "treefix-offline"),
                      bc.Options(timeout=2, treefix_budget=1))
    assert row["prefix_runs"] >= 1 and row["prefix_timeouts"] == 0


def test_unknown_coverage_counts_zero_in_engine_mean():
    snippets = [bc.Snippet("so", "so/a.py", "/a")]
    r = _row("so", "so/a.py", "naive", 0.0, 4, 1.0, status="crashed")
    r.update(coverage_known=False, engine_coverage=None, covered_lines=None)
    s = bc.summarize([r], snippets)["approaches"]["so"]["naive"]
    assert s["coverage"] == 0.0 and s["engine_coverage"] == 0.0


# ---------------------------------------------------------------- dataset + resume

SMALL = {
    "so/snippet_1.py": "x = 1\nif x > 5:\n    y = 2\nw = 4\n",
    "so/snippet_2.py": "x = foo()\ny = x.bar\n",
    "so/snippet_3.py": "a = 1\nraise ValueError('no')\nb = 2\n",
    "functions/lib_body_1.py": "# Extracted from x.py\n\"\"\"Doc.\"\"\"\nv = compute(a)\nexit(v)\n",
    "functions/lib_body_2.py": "for i in items:\n    total += i\nexit(total)\n",
}


@pytest.fixture
def small_data(tmp_path):
    data = tmp_path / "data"
    for rel, src in SMALL.items():
        p = data / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(src)
    (data / "so" / "snippet_4.py").write_text("x = 1\n'bare string'\ny = 2\n")
    with open(data / "treefix_gpt4o.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["dataset", "file", "total_lines", "num_covered_lines", "coverage_P",
                    "coverage_pbest"])
        w.writerow(["so", "so/snippet_1.py", 4, 3, 0.75, 0.75])
        w.writerow(["so", "so/snippet_2.py", 2, 2, 1.0, 1.0])
        w.writerow(["so", "so/snippet_3.py", 3, 1, 0.333, 0.333])
        w.writerow(["so", "so/snippet_4.py", 3, 3, 1.0, 1.0])
        w.writerow(["functions", "functions/lib_body_1.py", 2, 2, 1.0, 1.0])
        w.writerow(["functions", "functions/lib_body_2.py", 3, 3, 1.0, 0.667])
    lines = {"so/snippet_1.py": [1, 2, 3, 4], "so/snippet_2.py": [1, 2],
             "so/snippet_3.py": [1, 2, 3], "so/snippet_4.py": [1, 2, 3],
             "functions/lib_body_1.py": [3, 4], "functions/lib_body_2.py": [1, 2, 3]}
    (data / "lines.json").write_text(json.dumps(lines))
    return data


def test_load_dataset(small_data):
    sn = bc.load_dataset(str(small_data))
    assert [s.file for s in sn] == ["functions/lib_body_1.py", "functions/lib_body_2.py",
                                    "so/snippet_1.py", "so/snippet_2.py", "so/snippet_3.py",
                                    "so/snippet_4.py"]
    s1 = sn[2]
    assert (s1.paper_total_lines, s1.coverage_P, s1.paper_lines) == (4, 0.75, [1, 2, 3, 4])
    assert [s.file for s in bc.load_dataset(str(small_data), ["so"], ["snippet_[12].py"])] \
        == ["so/snippet_1.py", "so/snippet_2.py"]
    with pytest.raises(FileNotFoundError):
        bc.load_dataset(str(small_data / "nope"))


def test_line_agreement(small_data):
    sn = bc.load_dataset(str(small_data))
    la = bc.line_agreement(sn)
    # so: 4 + 1 + 3 + 2 markers (snippet_4's bare string is none)
    assert la["summary"]["so"] == {"compared": 4, "count_match": 3, "lines_match": 3,
                                   "snippets": 4, "lines": 11}
    assert la["summary"]["functions"] == {"compared": 2, "count_match": 2, "lines_match": 2,
                                          "snippets": 2, "lines": 5}
    assert [s.total_lines for s in sn] == [2, 3, 4, 2, 3, 2]
    assert la["summary"]["overall"]["count_match"] == 5
    (m,) = la["mismatches"]
    assert m["file"] == "so/snippet_4.py" and (m["total_lines"], m["paper_total_lines"]) == (2, 3)
    assert m["paper_only"] == [2]
    assert "line 2 (a bare string statement)" in m["reason"] and "2 markers vs 3" in m["reason"]


@pytest.mark.skipif(not os.path.isdir(bc.DEFAULT_DATA), reason="shared benchmark data absent")
def test_line_agreement_on_the_treefix_sample():
    la = bc.line_agreement(bc.load_dataset(bc.DEFAULT_DATA))
    ov = la["summary"]["overall"]
    assert ov["compared"] == 145
    assert ov["count_match"] / ov["compared"] >= 0.95
    assert all(m["reason"] for m in la["mismatches"])


def _comparable(summary):
    """The summary without timings."""
    out = {}
    for g, per in summary["approaches"].items():
        for a, m in per.items():
            out[(g, a)] = {k: v for k, v in m.items()
                           if k not in ("seconds_per_snippet", "ms_per_line")}
    return out, summary["reference"]


class Stop(Exception):
    pass


def test_checkpoint_resume_gives_the_same_table(small_data, tmp_path):
    sn = bc.load_dataset(str(small_data))
    opts = bc.Options(timeout=5)
    tasks = bc.make_tasks(sn, ["as-is", "naive"], [0], opts)
    assert len(tasks) == 12
    ex, close = bc.make_executor("local", 2)
    try:
        ck_path = str(tmp_path / "out" / "checkpoint.jsonl")
        seen = []

        def stop_after_3(row, cached):
            seen.append(row)
            if len(seen) == 3:
                raise Stop
        ck = bc.Checkpoint(ck_path)
        with pytest.raises(Stop):
            bc.run_tasks(tasks, opts, ex, ck, stop_after_3, window=2)
        ck.close()
        kept = bc.Checkpoint(ck_path)
        assert len(kept.rows) >= 3
        events = []
        rows = bc.run_tasks(tasks, opts, ex, kept, lambda r, c: events.append(c))
        kept.close()
        assert len(rows) == 12 and events.count(True) == len(kept.rows) - events.count(False)
        assert events.count(True) >= 3 and events.count(False) == 12 - events.count(True)
        # a third run does nothing new
        again = bc.Checkpoint(ck_path)
        assert len(again.rows) == 12
        assert bc.run_tasks(tasks, opts, ex, again, lambda r, c: c or pytest.fail("reran")) \
            == [again.rows[t.key] for t in tasks]
        # and a fresh run without checkpoint gives the same table
        fresh = bc.run_tasks(tasks, opts, ex, None)
    finally:
        close()
    assert _comparable(bc.summarize(rows, sn)) == _comparable(bc.summarize(fresh, sn))
    # --fresh moves the old checkpoint aside
    assert len(bc.Checkpoint(ck_path, fresh=True).rows) == 0
    assert os.path.exists(ck_path + ".old")


def test_checkpoint_key_includes_version_and_survives_a_cut_line(tmp_path):
    p = tmp_path / "ck.jsonl"
    ck = bc.Checkpoint(str(p))
    row = _row("so", "so/a.py", "naive", 1.0, 4, 0.1)
    ck.add(row)
    ck.close()
    with open(p, "a") as f:
        f.write('{"dataset": "so", "fi')              # interrupted mid-write
    ck = bc.Checkpoint(str(p))
    assert ("so", "so/a.py", "naive", 0, "v") in ck
    assert ("so", "so/a.py", "naive", 0, "other") not in ck
    opts = bc.Options(timeout=3)
    v1 = bc.task_version("abc", bc.APPROACHES["naive"], opts)
    assert v1 != bc.task_version("abd", bc.APPROACHES["naive"], opts)
    assert v1 != bc.task_version("abc", bc.APPROACHES["naive"], bc.Options(timeout=4))


def test_seeded_approaches_run_per_seed(small_data):
    sn = bc.load_dataset(str(small_data), ["so"])
    tasks = bc.make_tasks(sn, ["naive", "random"], [1, 2, 3], bc.Options(), code="c")
    assert sum(t.approach == "naive" for t in tasks) == 4
    assert sorted({t.seed for t in tasks if t.approach == "random"}) == [1, 2, 3]
    assert sum(t.approach == "random" for t in tasks) == 12


# ---------------------------------------------------------------- outputs, main, cli

def test_main_writes_csv_json_markdown_png(small_data, tmp_path, capsys):
    out = tmp_path / "out"
    code = bc.main(["--data", str(small_data), "--approach", "as-is", "naive", "--out",
                    str(out), "--markdown", "--no-progress", "--workers", "2",
                    "--timeout", "5"])
    assert code == 0
    stdout = capsys.readouterr().out
    assert "| dataset | approach |" in stdout and "| so | naive | 4 |" in stdout
    assert "so/snippet_4.py" in stdout                      # the line-count mismatch
    with open(out / "rows.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 12
    assert set(bc.CSV_FIELDS) == set(rows[0])
    r = next(r for r in rows if r["file"] == "so/snippet_2.py" and r["approach"] == "naive")
    assert (r["status"], float(r["coverage"]), r["treefix_coverage_P"]) == ("ok", 1.0, "1.0")
    doc = json.loads((out / "results.json").read_text())
    assert doc["summary"]["approaches"]["so"]["naive"]["snippets"] == 4
    assert doc["line_agreement"]["summary"]["overall"]["count_match"] == 5
    assert len(doc["rows"]) == 12 and doc["meta"]["approaches"] == ["as-is", "naive"]
    assert (out / "table.md").read_text().startswith("| dataset |")
    assert len(open(out / "checkpoint.jsonl").readlines()) == 12
    pytest.importorskip("matplotlib")
    assert (out / "coverage_boxplot.png").read_bytes()[:4] == b"\x89PNG"


def test_frequency_approach(small_data, tmp_path, capsys):
    (small_data / "so" / "snippet_5.py").write_text("assert foo == 1\nprint('ok')\n")
    table = tmp_path / "table.json"
    table.write_text(json.dumps({"foo": {"int_pos": 3, "str_nonempty": 1}}))
    t = bc.Task("so", "so/snippet_5.py", str(small_data / "so" / "snippet_5.py"),
                "frequency", 0, "x")
    assert bc.run_task(t, bc.Options(frequency_table=str(table)))["coverage"] == 1.0
    naive = bc.run_task(bc.Task(t.dataset, t.file, t.path, "naive", 0, "x"), bc.Options())
    assert naive["coverage"] == 0.0                      # a Dummy is not == 1
    from lexecutor_c.engine.runtime import write_events
    ev = tmp_path / "events.gz"
    write_events(str(ev), [("foo", "int_pos", "name", "f.py", 1, 1, "", "")])
    assert bc.load_frequency_table(str(ev)) == {"foo": {"int_pos": 1}}
    # without a table the approach is skipped with a message
    said = []
    assert bc.select_approaches(["naive", "frequency"],
                                bc.Options(frequency_table=str(tmp_path / "none.json.gz")),
                                said.append) == ["naive"]
    assert "no frequency table" in said[0]
    with pytest.raises(ValueError):
        bc.select_approaches(["nope"], bc.Options(), said.append)


def test_benchmark_is_its_own_command_not_a_cli_one(small_data, tmp_path, capsys):
    """`python -m benchmarks.coverage` runs the benchmark; lexecutor-c has no `bench`
    (the package never imports benchmarks/, which an installed package does not have)."""
    assert cli.main(["bench"]) == 2
    assert "invalid choice: 'bench'" in capsys.readouterr().err
    code = bc.main(["--data", str(small_data), "--dataset", "so", "--approach", "naive",
                    "--out", str(tmp_path / "o"), "--no-plot", "--no-progress", "--markdown"])
    assert code == 0
    assert "| so | naive | 4 | 70.8% |" in capsys.readouterr().out


# ---------------------------------------------------------------- executors

def _executor_rows(kind, small_data):
    sn = bc.load_dataset(str(small_data))
    opts = bc.Options(timeout=5)
    tasks = bc.make_tasks(sn, ["naive"], [0], opts)
    ex, close = bc.make_executor(kind, 2)
    try:
        futs = [ex.submit(os.getpid) for _ in range(8)]
        pids = {f.result(timeout=60) for f in futs}
        rows = bc.run_tasks(tasks, opts, ex, None)
    finally:
        close()
    return pids, [(r["file"], r["status"], r["covered_lines"], r["total_lines"]) for r in rows]


def test_local_process_pool_executor(small_data):
    pids, rows = _executor_rows("local", small_data)
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert ("so/snippet_2.py", "ok", 2, 2) in rows and len(rows) == 6


def test_dask_local_cluster_executor(small_data, tmp_path):
    """A real LocalCluster (2 worker processes).  It runs in a child Python:
    dask's processes leave multiprocessing's resource tracker running for the
    life of the process that started them, and other tests check that pytest
    has no children left."""
    pytest.importorskip("dask.distributed")
    script = (
        "import json, os, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from benchmarks import coverage as bc\n"
        "ex, close = bc.make_executor('dask', 2)\n"
        "try:\n"
        "    pids = sorted({ex.submit(os.getpid).result(timeout=60) for _ in range(8)})\n"
        f"    sn = bc.load_dataset({str(small_data)!r})\n"
        "    opts = bc.Options(timeout=5)\n"
        "    rows = bc.run_tasks(bc.make_tasks(sn, ['naive'], [0], opts), opts, ex, None)\n"
        "finally:\n"
        "    close()\n"
        "print(json.dumps({'me': os.getpid(), 'pids': pids, 'rows': [[r['file'], r['status'],"
        " r['covered_lines'], r['total_lines']] for r in rows]}))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["me"] not in got["pids"] and 1 <= len(got["pids"]) <= 2
    assert [tuple(r) for r in got["rows"]] == _executor_rows("local", small_data)[1]


def test_cli_dask_executor_end_to_end(small_data, tmp_path):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "o"
    proc = subprocess.run([sys.executable, "-m", "benchmarks.coverage", "--data",
                           str(small_data), "--approach", "naive", "--executor", "dask",
                           "--workers", "2", "--out", str(out), "--no-plot", "--no-progress",
                           "--markdown"], capture_output=True, text=True, timeout=120,
                          cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "| so | naive | 4 | 70.8% |" in proc.stdout
    assert json.loads((out / "results.json").read_text())["meta"]["executor"] == "dask"


def test_executors_are_the_shared_ones():
    """The benchmark runs on lexecutor_c.engine.executors (tested against real Dask and Ray
    in tests/test_batch.py); an unknown one is refused with the list."""
    from lexecutor_c.engine import executors
    ex, close = bc.make_executor("local", 1)
    try:
        assert isinstance(ex, executors.LocalExecutor)
    finally:
        close()
    with pytest.raises(executors.ExecutorError, match="unknown executor 'spark'"):
        bc.make_executor("spark", 1)
    proc = subprocess.run([sys.executable, "-m", "benchmarks.coverage", "--executor", "spark",
                           "--no-plot", "--no-progress"], capture_output=True, text=True,
                          timeout=60, cwd=str(ROOT))
    assert proc.returncode == 2
    assert "invalid choice: 'spark'" in proc.stderr


# ---------------------------------------------------------------- any folder (--data DIR)

BODIES = {
    # for-block | total += | exit: naive injection runs all 3
    "proj_body_1.py": "# Extracted from proj/a.py\nfor i in items:\n    total += i\nexit(total)\n",
    # docstring (no line) | x = | if-block | exit | y =: exit ends it before y
    "proj_body_2.py": '# Extracted from proj/b.py\n"""Doc."""\nx = 1\nif x:\n    exit(x)\ny = 2\n',
}


@pytest.fixture
def flat_data(tmp_path):
    d = tmp_path / "mydev"
    d.mkdir()
    for name, src in BODIES.items():
        (d / name).write_text(src)
    (d / "README.md").write_text("not a snippet")
    return d


def test_flat_folder_is_one_dataset_named_after_it(flat_data):
    sn = bc.load_dataset(str(flat_data))
    assert [(s.dataset, s.file) for s in sn] == [("mydev", "mydev/proj_body_1.py"),
                                                 ("mydev", "mydev/proj_body_2.py")]
    assert all(s.coverage_P is None and s.paper_total_lines is None for s in sn)
    la = bc.line_agreement(sn)
    assert la["summary"]["mydev"] == {"compared": 0, "count_match": 0, "lines_match": 0,
                                      "snippets": 2, "lines": 7}
    assert [s.total_lines for s in sn] == [3, 4] and la["mismatches"] == []


def test_datasets_of_a_folder_without_reference(tmp_path, small_data):
    # without the CSV every subfolder with .py files is a dataset; with it,
    # only those the CSV names (the sample's so_invalid/ is not one)
    (small_data / "so_invalid").mkdir()
    (small_data / "so_invalid" / "x.py").write_text("print 'py2'\n")
    assert [d for d, _ in bc.find_datasets(str(small_data),
                                           bc.read_reference(str(small_data /
                                                                 "treefix_gpt4o.csv")))] \
        == ["functions", "so"]
    os.remove(small_data / "treefix_gpt4o.csv")
    assert [d for d, _ in bc.find_datasets(str(small_data))] == ["functions", "so",
                                                                 "so_invalid"]
    sn = bc.load_dataset(str(small_data), ["so_invalid"])
    assert [s.file for s in sn] == ["so_invalid/x.py"]
    assert all(s.coverage_P is None for s in bc.load_dataset(str(small_data)))


def test_reference_csv_given_apart_and_a_bad_one(flat_data, tmp_path):
    ref = tmp_path / "ref.csv"
    ref.write_text("dataset,file,total_lines,num_covered_lines,coverage_P,coverage_pbest\n"
                   "mydev,mydev/proj_body_1.py,3,3,1.0,0.667\n")
    sn = bc.load_dataset(str(flat_data), reference=str(ref))
    assert (sn[0].coverage_P, sn[0].coverage_pbest, sn[0].paper_total_lines) == (1.0, 0.667, 3)
    assert sn[1].coverage_P is None
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="'file' column"):
        bc.load_dataset(str(flat_data), reference=str(bad))


def test_several_data_folders_and_clashing_names(flat_data, small_data, tmp_path):
    other = tmp_path / "other"
    (other / "so").mkdir(parents=True)
    (other / "so" / "s.py").write_text("a = 1\n")
    sn = bc.load_datasets([str(small_data), str(flat_data), str(other)])
    assert list(dict.fromkeys(s.dataset for s in sn)) == ["functions", "so", "mydev",
                                                          "other-so"]
    assert sn[-1].file == "other-so/s.py"
    only = bc.load_datasets([str(small_data), str(flat_data)], ["mydev"])
    assert {s.dataset for s in only} == {"mydev"}
    with pytest.raises(FileNotFoundError, match="no dataset 'nope'"):
        bc.load_datasets([str(small_data), str(flat_data)], ["nope"])
    with pytest.raises(FileNotFoundError):
        bc.load_datasets([str(tmp_path / "missing")])


def test_main_on_folders_without_reference(flat_data, small_data, tmp_path, capsys):
    out = tmp_path / "out"
    code = bc.main(["--data", str(flat_data), "--data", str(small_data), "--approach",
                    "naive", "--out", str(out), "--markdown", "--no-progress", "--no-plot",
                    "--workers", "2", "--timeout", "5"])
    assert code == 0
    stdout = capsys.readouterr().out
    # proj_body_1 3/3, proj_body_2 3/4 (y = 2 after exit): mean 87.5 %
    assert "| mydev | naive | 2 | 87.5% |" in stdout
    assert "Treefix+GPT-4o" in stdout                       # small_data has its CSV
    md = (out / "table.md").read_text()
    mydev = [ln for ln in md.splitlines() if ln.startswith("| mydev |")]
    assert len(mydev) == 1                                  # no reference rows for it
    assert "Lines counted: mydev: 7 in 2 snippets" in stdout
    doc = json.loads((out / "results.json").read_text())
    assert doc["meta"]["data"] == [str(flat_data), str(small_data)]
    # a changed snippet reruns: its content is part of the checkpoint key
    (flat_data / "proj_body_2.py").write_text("x = 1\ny = 2\n")
    assert bc.main(["--data", str(flat_data), "--approach", "naive", "--out", str(out),
                    "--markdown", "--no-progress", "--no-plot", "--workers", "2"]) == 0
    assert "| mydev | naive | 2 | 100.0% |" in capsys.readouterr().out
    assert bc.main(["--data", str(flat_data), "--dataset", "so", "--out", str(out),
                    "--no-progress"]) == 2


# ---------------------------------------------------------------- failures (why Treefix stops)

def test_failures_guess_rules():
    from benchmarks import failures as bf

    def rec(status, etype=None, line=None, where="snippet", raises=()):
        err = {"type": etype, "line": line, "where": where, "message": ""} if etype else None
        return {"best_run": {"status": status, "error": err}, "raise_lines": list(raises)}
    assert bf.guess(rec("timeout", "timeout")) == "timeout"
    assert bf.guess(rec("exception", "ValueError", 3, raises=[3])) == "raise-by-design"
    assert bf.guess(rec("exception", "ValueError", 4, raises=[3])) == "value"
    assert bf.guess(rec("exception", "ModuleNotFoundError", 1)) == "import"
    assert bf.guess(rec("exception", "AssertionError", 2)) == "assertion"
    assert bf.guess(rec("exception", "FileNotFoundError", 2)) == "file"
    assert bf.guess(rec("exception", "AttributeError", 2)) == "attribute"
    assert bf.guess(rec("exception", "TypeError", 2)) == "type"
    assert bf.guess(rec("exit")) == "exit-early"
    assert bf.guess(rec("ok")) == "branch"


def test_failures_records_where_the_search_stops(tmp_path):
    from benchmarks import failures as bf
    p = tmp_path / "lib_body_1.py"
    # a | exit(a) | b: b follows the papers' exit() and no prefix reaches it
    p.write_text("# Extracted from lib.py\na = 1\nexit(a)\nb = 2\n")
    rec = bf.analyse(str(p), budget=2.0)
    assert rec["coverage"] == pytest.approx(2 / 3) and rec["total_lines"] == 3
    assert rec["uncovered"] == [4] and rec["first_uncovered_text"] == "b = 2"
    assert rec["before_first_uncovered"] == "exit(a)"
    assert rec["best_run"]["status"] == "exit" and rec["guess"] == "exit-early"
