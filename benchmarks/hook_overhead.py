"""Cost of the transparent-mode hook for code that is not a target.

    python -m benchmarks.hook_overhead [--repeat 9] [--kernel nbody] [--json FILE]
    valgrind --tool=callgrind python -m benchmarks.hook_overhead --kernel richards \
        --mode "no targets" --loops 20       # one mode, no timing: for instruction counts

Times (process CPU time, best of --repeat samples of about 0.1 s) the CPU-bound kernels of benchmarks/kernels/ in one process, the modes
interleaved (a busy machine slows them alike), and prints the ratio of the
best times to the hook-off time:

* ``off``: no evaluation hook;
* ``bare PEP 523``: a C evaluation function that only forwards to the
  default one -- the floor any hook pays on 3.11;
* ``no targets``: ``lexecutor_c.hook.enable([])`` -- the hook is installed,
  every frame is a non-target;
* ``other target``: a session whose target is a function the kernel never
  calls, so the resolver has a target set to check against;
* ``sys.monitoring`` (3.12+ only): the floor of a PEP 669 design instead: a
  tool with a PY_START callback that answers DISABLE for every code object
  (what a non-target would cost a detector built on sys.monitoring).

Target: at most 1.05x.  On CPython 3.11-3.13 any PEP 523 function switches
off the inlined Python-to-Python calls of the evaluation loop for the whole
interpreter, so call-heavy kernels pay for that besides the hook's own check
(docs/TRANSPARENT.md says why transparent mode still uses PEP 523 on 3.12+).
"""
from __future__ import annotations

import argparse
import builtins
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import lexecutor_c.integrations.hook as hook
from lexecutor_c import _core

KERNELS = Path(__file__).parent / "kernels"
MODES = ("off", "bare PEP 523", "no targets", "other target")
if sys.version_info >= (3, 12):
    MODES += ("sys.monitoring",)
TARGET = 1.05


def _never_called(x):
    return x + 1


def load(path: Path):
    g = {"__name__": f"kernel_{path.stem}", "__builtins__": builtins}
    exec(compile(path.read_text(), str(path), "exec"), g)
    return g["bench"]


def _monitoring(on: bool) -> None:
    """A PEP 669 tool whose PY_START callback disables itself for every code
    object: after the first call of each function the event costs nothing."""
    mon = sys.monitoring
    tool = mon.PROFILER_ID
    if on:
        mon.use_tool_id(tool, "lexecutor_c benchmark")
        mon.register_callback(tool, mon.events.PY_START, lambda code, offset: mon.DISABLE)
        mon.set_events(tool, mon.events.PY_START)
        mon.restart_events()
    else:
        mon.set_events(tool, 0)
        mon.register_callback(tool, mon.events.PY_START, None)
        mon.free_tool_id(tool)


def timed(fn, mode: str, loops: int = 1) -> tuple[float, object]:
    s = None
    if mode == "sys.monitoring":
        _monitoring(True)
    if mode == "bare PEP 523":
        _core._hook_bare(True)
    elif mode == "no targets":
        s = hook.enable([])
    elif mode == "other target":
        s = hook.enable([_never_called])
    try:
        gc.collect()
        t0 = time.process_time()
        for _ in range(loops):
            result = fn()
        return (time.process_time() - t0) / loops, result
    finally:
        if s is not None:
            s.disable()
        if mode == "bare PEP 523":
            _core._hook_bare(False)
        if mode == "sys.monitoring":
            _monitoring(False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--kernel", action="append", help="only these kernels (file stems)")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--mode", choices=MODES, help="run the kernels --loops times in this mode "
                    "only, untimed (for instruction counts under callgrind)")
    ap.add_argument("--loops", type=int, default=10)
    args = ap.parse_args(argv)
    if args.mode:
        for path in sorted(KERNELS.glob("*.py")):
            if not args.kernel or path.stem in args.kernel:
                timed(load(path), args.mode, args.loops)
        return 0

    rows = []
    for path in sorted(KERNELS.glob("*.py")):
        if args.kernel and path.stem not in args.kernel:
            continue
        fn = load(path)
        # CPU time of this process (the shared box is noisy); samples of about 0.1 s
        once, _ = timed(fn, "off")
        loops = max(1, int(0.1 / max(once, 1e-6)))
        best = {m: float("inf") for m in MODES}
        results = {}
        for _ in range(args.repeat):
            for mode in MODES:
                t, results[mode] = timed(fn, mode, loops)
                best[mode] = min(best[mode], t)
        if len({repr(v) for v in results.values()}) != 1:
            print(f"{path.stem}: results differ: {results}", file=sys.stderr)
            return 1
        row = {"kernel": path.stem, **{m: best[m] for m in MODES}}
        for m in MODES[1:]:
            row[f"{m} ratio"] = best[m] / best["off"]
        rows.append(row)

    print("kernel | off s | " + " | ".join(MODES[1:]))
    print("--- | --- | " + " | ".join("---" for _ in MODES[1:]))
    for r in rows:
        print(f"{r['kernel']} | {r['off']:.4f} | " +
              " | ".join(f"{r[m + ' ratio']:.3f}x" for m in MODES[1:]))
    out = {"rows": rows, "target": TARGET, "python": sys.version.split()[0]}
    print(f"CPython {out['python']}")
    for m in MODES[1:]:
        geo = statistics.geometric_mean(r[f"{m} ratio"] for r in rows)
        out[f"{m} geomean"] = geo
        print(f"{m}: geometric mean {geo:.3f}x, worst "
              f"{max(r[f'{m} ratio'] for r in rows):.3f}x (target: at most {TARGET}x)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
