"""Overhead of instrumented execution when every value is present.

    python -m benchmarks.runtime_overhead [--repeat 5] [--json FILE]

Runs CPU-bound pure-Python kernels (benchmarks/kernels/, pyperformance-style)
uninstrumented, instrumented and recording, in one process and one run, and
prints the ratios of the best times.  The loaders come from a C Runtime with
the naive predictor (nothing is missing, so nothing is injected), line
markers on; "recording" is what ``lexecutor_c record`` runs (the recorder's
Runtime(predictor="as-is", record=True, unique=True), its events flushed
after every call).  Targets (issue 11): geometric mean at most 1.5x, worst
at most 2x, recording at most 2.5x.  `--no-elide` also measures the paper's
shape, where every read goes through a loader.  benchmarks/instructions.py
counts instructions of the same runs (stable on a loaded machine);
benchmarks/suite_overhead.py measures a real project's test suite.
"""
from __future__ import annotations

import argparse
import atexit
import builtins
import gc
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import lexecutor_c as lx
from lexecutor_c import _core

KERNELS = Path(__file__).parent / "kernels"


def load(path: Path, mode: str, record_dir: str | None = None):
    """Fresh globals with the kernel's functions defined: *mode* is "plain",
    "instrumented", "no-elide" (the paper's shape) or "recording" (what
    ``lexecutor_c.record`` runs: a Runtime(predictor="as-is", record=True) made by
    the recorder, whose events are flushed to *record_dir* after every call).
    Returns (bench, runtime or None)."""
    source = path.read_text()
    g = {"__name__": f"kernel_{path.stem}", "__builtins__": builtins}
    if mode == "plain":
        code = compile(source, str(path), "exec")
        rt = None
    elif mode == "recording":
        from lexecutor_c.engine import _recorder
        if record_dir is None:
            record_dir = tempfile.mkdtemp(prefix="lx-record-bench-")
            atexit.register(shutil.rmtree, record_dir, True)
        rec = _recorder.Recorder(record_dir, lambda name, origin: True, flush_interval=0)
        inst = lx.instrument(source, filename=str(path))
        rt = rec.new_runtime(g["__name__"], str(path), inst.iids)
        g.update(rt.loaders())
        exec(inst.compile(), g)
        inner = g["bench"]

        def bench():
            result = inner()
            rec.flush()
            return result
        return bench, rt
    else:
        inst = lx.instrument(source, filename=str(path), elide=(mode == "instrumented"))
        rt = _core.Runtime(sites=inst.iids, predictor="naive")
        g.update(rt.loaders())
        code = inst.compile()
    exec(code, g)
    return g["bench"], rt


def best_time(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-elide", action="store_true", help="also time the paper's shape")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)

    modes = ["plain", "instrumented", "recording"] + (["no-elide"] if args.no_elide else [])
    rows = []
    for path in sorted(KERNELS.glob("*.py")):
        row = {"kernel": path.stem}
        loaded = {mode: load(path, mode) for mode in modes}
        best = {mode: float("inf") for mode in modes}
        results = {}
        # interleave the modes so a busy machine slows them alike
        for _ in range(args.repeat):
            for mode in modes:
                t, results[mode] = best_time(loaded[mode][0], 1)
                best[mode] = min(best[mode], t)
        for mode in modes:
            row[mode] = best[mode]
            rt = loaded[mode][1]
            if rt is not None:
                assert not rt.injections, f"{path.stem}: injected {rt.injections[:3]}"
        if len({repr(v) for v in results.values()}) != 1:
            print(f"{path.stem}: results differ: {results}", file=sys.stderr)
            return 1
        for mode in modes[1:]:
            row[f"{mode} ratio"] = row[mode] / row["plain"]
        rows.append(row)

    header = ["kernel", "plain s", "instrumented s", "ratio", "recording s", "ratio"]
    if args.no_elide:
        header += ["no-elide s", "ratio"]
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for r in rows:
        cells = [r["kernel"], f"{r['plain']:.4f}", f"{r['instrumented']:.4f}",
                 f"{r['instrumented ratio']:.2f}x", f"{r['recording']:.4f}",
                 f"{r['recording ratio']:.2f}x"]
        if args.no_elide:
            cells += [f"{r['no-elide']:.4f}", f"{r['no-elide ratio']:.2f}x"]
        print(" | ".join(cells))
    geo = statistics.geometric_mean(r["instrumented ratio"] for r in rows)
    worst = max(r["instrumented ratio"] for r in rows)
    geo_r = statistics.geometric_mean(r["recording ratio"] for r in rows)
    worst_r = max(r["recording ratio"] for r in rows)
    print(f"instrumented: geometric mean {geo:.2f}x, worst {worst:.2f}x "
          f"(targets: at most 1.5x, worst at most 2x)")
    print(f"recording: geometric mean {geo_r:.2f}x, worst {worst_r:.2f}x (target: at most 2.5x)")
    if args.no_elide:
        geo2 = statistics.geometric_mean(r["no-elide ratio"] for r in rows)
        print(f"paper's shape (every read wrapped): geometric mean {geo2:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "geomean": geo, "worst": worst,
                                               "recording_geomean": geo_r,
                                               "recording_worst": worst_r},
                                              indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
