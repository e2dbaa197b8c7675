"""Throughput of ``lexecutor-c batch`` on each executor, and a big resumable run.

    python -m benchmarks.batch                     # the table (a few minutes)
    python -m benchmarks.batch --executors local dask --workers 1 2 4
    python -m benchmarks.batch --big 100000        # + 100,000 snippets: peak RSS, kill, resume
    python -m benchmarks.batch --big 100000 --big-only

The table: items per second for 1 and 2 workers (``--workers``) on each
executor (local process pool, Dask LocalCluster, local Ray instance) for two
corpora: ``trivial`` (``--trivial N`` generated three-line snippets) and
``functions`` (the 87 function bodies of the shared Treefix sample,
../shared/bench/treefix_sample/functions, read in place), task ``run`` with
the naive predictor, every item confined.  items/s counts the items run
after the executor started (its start-up, printed apart, is paid once per
invocation); ``speed-up`` is the 2-worker rate over the 1-worker rate of the
same executor; ``overhead`` is the per-item time over the local pool's with
the same workers ((1/rate - 1/rate_local) / (1/rate_local)).  Every rate is
the best of ``--repeat`` runs (default 1): on a shared machine the other
tenants' load makes single runs noisy, and the machine's load average is
printed with the table.

``--big N``: N generated snippets (JSONL) through ``python -m lexecutor_c
batch --task run`` in a subprocess on the local pool (``--big-executor``):
it is killed (SIGKILL to its whole process group, as when the machine goes
away) once half the rows are written, then run again to completion; prints
both invocations' items/s, the driver's peak RSS (VmHWM) and the workers'
largest RSS, the RSS of the driver at 25/50/75/100 % (flat memory: the
input and the output are streamed), how many items the second invocation
skipped, and whether any item was written twice (must be 0).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.environ.get("TREEFIX_SAMPLE", os.path.join(REPO, "..", "shared", "bench",
                                                       "treefix_sample"))


def trivial_snippets(n: int, seed: int = 0):
    """``n`` small distinct snippets: undefined names, attributes, calls, a
    loop, an exception now and then."""
    rnd = random.Random(seed)
    shapes = [
        "x = foo({i})\nprint(x.bar + {j})\n",
        "data = load('{i}.csv')\nfor row in data.rows[:3]:\n    total = row.value * {j}\n",
        "import os\nname = os.path.join(base, 'f{i}')\nsize = len(name) + {j}\n",
        "items = [{i}, {j}]\nfirst = items[0] + obj.count\nprint(first)\n",
        "d = {{'k{i}': {j}}}\nv = d['missing{i}']\n",          # KeyError: an exception row
        "def f(a):\n    return a.x + {i}\nresult = f(thing) * {j}\n",
    ]
    for i in range(n):
        yield shapes[i % len(shapes)].format(i=i, j=rnd.randrange(1000))


def write_jsonl(path: str, codes) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for c in codes:
            f.write(json.dumps({"code": c}) + "\n")
            n += 1
    return n


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def one_rate(source: str, executor: str, workers: int, timeout: float) -> dict:
    from lexecutor_c.apps.batch import batch
    out = tempfile.mkdtemp(prefix="lx-batch-bench-")
    try:
        s = batch(source, out, "run", executor=executor, workers=workers,
                  options={"timeout": timeout}, flush_rows=10_000)
        return {"items": s.ran, "rate": s.items_per_s, "startup": s.startup_seconds,
                "seconds": s.seconds, "statuses": s.statuses}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def table(args) -> list:
    work = tempfile.mkdtemp(prefix="lx-batch-bench-in-")
    corpora = {}
    if "trivial" in args.corpora:
        p = os.path.join(work, "trivial.jsonl")
        write_jsonl(p, trivial_snippets(args.trivial))
        corpora["trivial"] = p
    if "functions" in args.corpora:
        fdir = os.path.join(SAMPLE, "functions")
        if not os.path.isdir(fdir):
            print(f"no shared sample at {fdir}: functions skipped", file=sys.stderr)
        else:
            corpora["functions"] = fdir
    results = []
    print(f"load average before: {loadavg()} ({os.cpu_count()} CPUs)", file=sys.stderr)
    for name, src in corpora.items():
        for exe in args.executors:
            for w in args.workers:
                best: Optional[dict] = None
                for _ in range(args.repeat):
                    try:
                        r = one_rate(src, exe, w, args.timeout)
                    except Exception as e:  # noqa: BLE001 - an executor missing here
                        print(f"{name} {exe} {w}: {type(e).__name__}: {e}", file=sys.stderr)
                        r = None
                        break
                    if best is None or r["rate"] > best["rate"]:
                        best = r
                if best is None:
                    continue
                best.update(corpus=name, executor=exe, workers=w)
                results.append(best)
                print(f"  {name:9} {exe:5} {w} workers: {best['items']} items "
                      f"{best['rate']:.1f}/s (start {best['startup']:.1f} s) "
                      f"load {loadavg()}", file=sys.stderr, flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print()
    print(f"| corpus | executor | workers | items | items/s | speed-up (2 vs 1) | "
          f"per-item overhead vs local | start-up s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    by = {(r["corpus"], r["executor"], r["workers"]): r for r in results}
    for r in results:
        one = by.get((r["corpus"], r["executor"], 1))
        sp = f"{r['rate'] / one['rate']:.2f}x" if one and r["workers"] != 1 and one["rate"] \
            else ""
        loc = by.get((r["corpus"], "local", r["workers"]))
        ov = ""
        if loc and r["executor"] != "local" and r["rate"] and loc["rate"]:
            ov = f"{(loc['rate'] / r['rate'] - 1) * 100:+.1f}%"
        print(f"| {r['corpus']} | {r['executor']} | {r['workers']} | {r['items']} | "
              f"{r['rate']:.1f} | {sp} | {ov} | {r['startup']:.1f} |")
    print(f"\nload average after: {loadavg()} ({os.cpu_count()} CPUs; other processes on "
          "the machine share them: rates are noisy)")
    return results


# ---------------------------------------------------------------- the big run

def _status(pid: int) -> dict:
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    out[line.split(":")[0]] = int(line.split()[1]) // 1024    # MiB
    except OSError:
        pass
    return out


def _descendants(pid: int) -> list:
    try:
        import psutil
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except Exception:   # noqa: BLE001
        return []


_PART_ROWS: dict = {}


def _rows(out: str) -> int:
    """Rows written so far (each part's row count from its Parquet footer, read once)."""
    import pyarrow.parquet as pq
    try:
        names = [n for n in os.listdir(out) if n.startswith("part-")]
    except FileNotFoundError:
        return 0
    for n in names:
        if n not in _PART_ROWS:
            _PART_ROWS[n] = pq.ParquetFile(os.path.join(out, n)).metadata.num_rows
    return sum(_PART_ROWS[n] for n in names)


def _invoke(src, out, args, kill_at: Optional[int]) -> dict:
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "lexecutor_c", "batch", src, "--out", out, "--task", "run",
           "--executor", args.big_executor, "--timeout", "5", "--flush-rows",
           str(args.flush_rows), "--json", "--no-progress"]
    if args.big_workers:
        cmd += ["--workers", str(args.big_workers)]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True)
    marks, worker_peak, driver_peak, killed = {}, 0, 0, False
    next_mark = 1
    try:
        while p.poll() is None:
            time.sleep(0.5)
            st = _status(p.pid)
            driver_peak = max(driver_peak, st.get("VmHWM", 0))
            for c in _descendants(p.pid):
                worker_peak = max(worker_peak, _status(c).get("VmRSS", 0))
            done = _rows(out)
            while next_mark <= 4 and done >= args.big * next_mark // 4:
                marks[f"{25 * next_mark}%"] = st.get("VmRSS")
                next_mark += 1
            if kill_at is not None and done >= kill_at:
                os.killpg(p.pid, signal.SIGKILL)
                killed = True
                break
        o, e = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    secs = time.monotonic() - t0
    res = {"seconds": round(secs, 1), "killed": killed, "driver_peak_mib": driver_peak,
           "worker_peak_mib": worker_peak, "driver_rss_mib": marks, "returncode": p.returncode}
    if not killed:
        try:
            res["summary"] = json.loads(o)
        except ValueError:
            res["stderr"] = e[-2000:]
    return res


def big(args) -> dict:
    import pyarrow.parquet as pq
    work = args.big_dir or tempfile.mkdtemp(prefix="lx-batch-big-")
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "snippets.jsonl")
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    t = time.monotonic()
    write_jsonl(src, trivial_snippets(args.big, seed=1))
    print(f"generated {args.big:,} snippets in {time.monotonic() - t:.1f} s "
          f"({os.path.getsize(src) / 2**20:.1f} MiB): {src}", file=sys.stderr)
    first = _invoke(src, out, args, kill_at=args.big // 2)
    n_first = sum(pq.ParquetFile(os.path.join(out, f)).metadata.num_rows
                  for f in os.listdir(out) if f.startswith("part-"))
    print(f"first invocation killed after {first['seconds']} s with {n_first:,} rows written "
          f"({n_first / first['seconds']:.1f} items/s incl. start-up); driver peak "
          f"{first['driver_peak_mib']} MiB", file=sys.stderr, flush=True)
    second = _invoke(src, out, args, kill_at=None)
    keys = pq.read_table(out, columns=["key"]).column("key").to_pylist() \
        if os.listdir(out) else []
    s = second.get("summary", {})
    res = {"items": args.big, "executor": args.big_executor, "first": first,
           "rows_after_kill": n_first, "second": second, "rows": len(keys),
           "unique_rows": len(set(keys)), "written_twice": len(keys) - len(set(keys))}
    print()
    print(f"big run: {args.big:,} snippets, task run, executor {args.big_executor} "
          f"({s.get('workers', '?')} workers)")
    print(f"  1st invocation: killed (SIGKILL, whole process group) at {n_first:,} rows after "
          f"{first['seconds']} s; driver peak RSS {first['driver_peak_mib']} MiB, largest "
          f"worker RSS {first['worker_peak_mib']} MiB; driver RSS at 25/50%: "
          f"{first['driver_rss_mib']}")
    print(f"  2nd invocation: ran {s.get('ran', '?'):,} items, skipped {s.get('skipped', '?'):,}"
          f" already done, retried {s.get('retried', '?')}, lost {s.get('lost', '?')}, "
          f"{s.get('items_per_s', '?')} items/s ({s.get('seconds', '?')} s + start-up "
          f"{s.get('startup_seconds', '?')} s); driver peak RSS {second['driver_peak_mib']} "
          f"MiB, largest worker RSS {second['worker_peak_mib']} MiB; driver RSS at "
          f"25/50/75/100%: {second['driver_rss_mib']}")
    print(f"  rows {len(keys):,} (unique {len(set(keys)):,}; written twice: "
          f"{res['written_twice']}); statuses {s.get('statuses')}")
    if not args.big_dir:
        shutil.rmtree(work, ignore_errors=True)
    return res


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.batch", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--executors", nargs="+", default=["local", "dask", "ray"],
                   choices=("local", "dask", "ray"))
    p.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    p.add_argument("--corpora", nargs="+", default=["trivial", "functions"],
                   choices=("trivial", "functions"))
    p.add_argument("--trivial", type=int, default=300, metavar="N",
                   help="generated snippets of the trivial corpus (default 300)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds per item (default 5)")
    p.add_argument("--repeat", type=int, default=1, help="runs per cell; the best counts")
    p.add_argument("--big", type=int, default=0, metavar="N",
                   help="also the big run of N generated snippets (kill halfway, resume)")
    p.add_argument("--big-only", action="store_true", help="only the big run")
    p.add_argument("--big-executor", default="local")
    p.add_argument("--big-workers", type=int, default=None)
    p.add_argument("--big-dir", default=None, help="keep the big run's files here")
    p.add_argument("--flush-rows", type=int, default=1000)
    p.add_argument("--json", default=None, metavar="FILE", help="write the numbers here")
    args = p.parse_args(argv)
    doc: dict = {"cpus": os.cpu_count()}
    if not args.big_only:
        doc["table"] = table(args)
    if args.big:
        doc["big"] = big(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
