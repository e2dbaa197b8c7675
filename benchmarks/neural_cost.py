"""What the neural predictor costs: per query, and per run against naive injection.

    python -m benchmarks.neural_cost                       # the sample's function bodies
    python -m benchmarks.neural_cost --data DIR --limit 80 --repeat 3
    python -m benchmarks.neural_cost --queries 0           # runs only

1. **Per query**: ``NeuralModel.predict`` through the LibTorch shim, in this
   process, one intra-op thread, on the sites of the snippets (their real
   context tokens): median and p99 milliseconds of wall time and of this
   thread's CPU time (what a busy machine changes least).
2. **Per run**: ``lexecutor_c.run(file, predictor=..., isolate=True)`` on
   each snippet, naive and neural interleaved (the model is loaded before the
   first timed run, as run() does before forking its children): wall time
   and CPU time (this process and its reaped children) per run and per line,
   and the neural/naive ratios.

Timings taken while other jobs run are noisy: compare the ratios, repeat
(``--repeat``), and read the CPU columns.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

DEFAULT_DATA = os.path.join(REPO, "..", "shared", "bench", "treefix_sample", "functions")


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def per_query(files, n: int) -> dict:
    import lexecutor_c
    from lexecutor_c.model.neural import runtime_predictor
    model = runtime_predictor().model
    queries = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            src = fh.read()
        try:
            sites = lexecutor_c.instrument(src).iids
        except SyntaxError:
            continue
        queries += [(s.name, s.kind, s.before or "", s.after or "") for s in sites
                    if s.kind in ("name", "attribute", "call") and s.name]
        if len(queries) >= n:
            break
    queries = queries[:n]
    wall, cpu = [], []
    for q in queries:
        t, c = time.perf_counter(), time.thread_time()
        model.predict(*q, 22)
        cpu.append((time.thread_time() - c) * 1000)
        wall.append((time.perf_counter() - t) * 1000)

    def p99(v):
        return round(sorted(v)[min(len(v) - 1, int(len(v) * 0.99))], 3)
    return {"queries": len(queries), "wall_median_ms": round(statistics.median(wall), 3),
            "wall_p99_ms": p99(wall), "cpu_median_ms": round(statistics.median(cpu), 3),
            "cpu_p99_ms": p99(cpu)}


def per_run(files, repeat: int, timeout: float, preload: bool = True) -> dict:
    import lexecutor_c
    if preload:
        lexecutor_c.run("x = 1\n", predictor="neural", import_missing=False)      # load once, untimed
    else:
        # as before run() loaded the model in the parent: every child loads it
        from lexecutor_c.engine import run as run_mod
        run_mod.prepare_predictor = lambda predictor: None
    cpu = {"naive": 0.0, "neural": 0.0}
    wall = {"naive": 0.0, "neural": 0.0}
    lines = runs = 0
    for _ in range(repeat):
        for f in files:
            for pred in ("naive", "neural"):
                c, w = _cpu(), time.perf_counter()
                r = lexecutor_c.run(f, predictor=pred, timeout=timeout, import_missing=False)
                wall[pred] += time.perf_counter() - w
                cpu[pred] += _cpu() - c
            lines += r.total_lines or 0
            runs += 1
    out = {"runs": runs, "lines": lines}
    for p in ("naive", "neural"):
        out[p] = {"wall_ms_per_run": round(1000 * wall[p] / runs, 2),
                  "wall_ms_per_line": round(1000 * wall[p] / max(lines, 1), 3),
                  "cpu_ms_per_run": round(1000 * cpu[p] / runs, 2),
                  "cpu_ms_per_line": round(1000 * cpu[p] / max(lines, 1), 3)}
    out["ratio_wall"] = round(wall["neural"] / wall["naive"], 2)
    out["ratio_cpu"] = round(cpu["neural"] / cpu["naive"], 2)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, help="a folder of snippets (*.py)")
    p.add_argument("--limit", type=int, default=40, help="snippets used (default 40)")
    p.add_argument("--queries", type=int, default=500, help="queries timed (0: none)")
    p.add_argument("--repeat", type=int, default=1, help="passes over the snippets")
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--no-preload", action="store_true",
                   help="do not load the model before forking (every child loads it, as "
                        "before run() did so): the cost this saves")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    files = sorted(glob.glob(os.path.join(args.data, "*.py")))[:args.limit]
    if not files:
        print(f"no snippets in {args.data}", file=sys.stderr)
        return 2
    res = {"data": os.path.abspath(args.data), "snippets": len(files)}
    if args.queries and not args.no_preload:
        res["per_query"] = per_query(files, args.queries)
    res["per_run"] = per_run(files, args.repeat, args.timeout, not args.no_preload)
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    if "per_query" in res:
        q = res["per_query"]
        print(f"per query ({q['queries']}): wall median {q['wall_median_ms']} ms, p99 "
              f"{q['wall_p99_ms']} ms; CPU median {q['cpu_median_ms']} ms, p99 "
              f"{q['cpu_p99_ms']} ms")
    r = res["per_run"]
    print(f"per run ({r['runs']} runs, {r['lines']} lines):")
    for pred in ("naive", "neural"):
        x = r[pred]
        print(f"  {pred:7s} wall {x['wall_ms_per_run']:8.2f} ms/run {x['wall_ms_per_line']:7.3f} "
              f"ms/line   CPU {x['cpu_ms_per_run']:8.2f} ms/run {x['cpu_ms_per_line']:7.3f} ms/line")
    print(f"  neural / naive: wall {r['ratio_wall']}x, CPU {r['ratio_cpu']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
