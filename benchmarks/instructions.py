"""Instruction counts of the overhead kernels, plain / instrumented / recording.

    python -m benchmarks.instructions [--kernels richards,nbody] [--modes plain,instrumented]

Wall-clock ratios on a loaded machine move by tens of percent between runs;
instruction counts (valgrind's callgrind) do not, so they decide between
variants of the runtime and the emitted code.  Each (kernel, mode) runs in a
child interpreter under ``valgrind --tool=callgrind``: the kernel is loaded
as benchmarks/runtime_overhead.py loads it, ``bench()`` runs once to warm
the specialising interpreter up, and only a second ``bench()`` call is
counted (collection is switched on inside ``operator.call``, which nothing
else calls).  Needs valgrind (``apt-get install valgrind``).
"""
from __future__ import annotations

import argparse
import operator
import re
import shutil
import subprocess
import sys
from pathlib import Path

KERNELS = Path(__file__).parent / "kernels"
MODES = ("plain", "instrumented", "recording")


def _child(kernel: str, mode: str) -> None:
    from benchmarks.runtime_overhead import load
    bench, _rt = load(KERNELS / f"{kernel}.py", mode)
    bench()
    operator.call(bench)


def count(kernel: str, mode: str) -> int:
    """Instructions one warm bench() call of *kernel* takes in *mode*."""
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
           "--toggle-collect=_operator_call", "--callgrind-out-file=/dev/null",
           sys.executable, "-m", "benchmarks.instructions", "--child", kernel, mode]
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent)
    m = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or m is None:
        raise RuntimeError(f"{kernel}/{mode}: valgrind failed:\n{proc.stderr[-2000:]}")
    return int(m.group(1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", help="comma-separated (default: all)")
    ap.add_argument("--modes", default="plain,instrumented,recording")
    ap.add_argument("--child", nargs=2, metavar=("KERNEL", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind not found (apt-get install valgrind)", file=sys.stderr)
        return 2
    kernels = (args.kernels.split(",") if args.kernels
               else sorted(p.stem for p in KERNELS.glob("*.py")))
    modes = args.modes.split(",")
    print(" | ".join(["kernel"] + [f"{m} Minstr" for m in modes]
                     + [f"{m} ratio" for m in modes if m != "plain"]))
    print(" | ".join("---" for _ in range(1 + len(modes) + len(modes) - 1)))
    for k in kernels:
        c = {m: count(k, m) for m in modes}
        cells = [k] + [f"{c[m] / 1e6:.1f}" for m in modes]
        if "plain" in c:
            cells += [f"{c[m] / c['plain']:.2f}x" for m in modes if m != "plain"]
        print(" | ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
