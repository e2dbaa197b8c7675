"""What confinement costs per run (issue 13).

    python -m benchmarks.isolation [--runs 300] [--seconds 10] [--markdown]

Three ways to run a trivial function, and run() on a trivial snippet:

* ``bare fork``: os.fork(), the child exits at once, the parent waits
  (the floor: what any fork-based sandbox pays);
* ``sandbox, no layers``: lexecutor_c.sandbox.call_isolated with
  ``Limits(layers=())`` -- the sandbox before confinement (rlimits, a pids
  cgroup, a network namespace, pipes, a temp directory);
* ``sandbox, all layers``: the default: user, PID, mount, network and IPC
  namespaces, the read-only root, Landlock, seccomp, the scrubbed
  environment.

Sequential latency is measured in interleaved rounds (every mode once per
round, so load drift hits all alike) and given as median and the 10th-90th
percentile; throughput is measured with one worker process per core, each
doing runs back to back for ``--seconds``.  The machine is shared: the
load average is printed before and after, and the figures are only
comparable within one invocation.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import statistics
import sys
import time

from lexecutor_c import run
from lexecutor_c.engine import sandbox
from lexecutor_c.engine.sandbox import Limits, call_isolated

SNIPPET = "x = 1\ny = x + 1\n"
UNCONFINED = Limits(timeout=10, layers=())
CONFINED = Limits(timeout=10)


def _noop():
    return None


def bare_fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def sandbox_plain():
    out = call_isolated(_noop, limits=UNCONFINED)
    assert out.ok, out


def sandbox_confined():
    out = call_isolated(_noop, limits=CONFINED)
    assert out.ok, out


def run_plain():
    r = run(SNIPPET, limits=UNCONFINED)
    assert r.status == "ok", r


def run_confined():
    r = run(SNIPPET, limits=CONFINED)
    assert r.status == "ok", r


MODES = [
    ("bare fork", bare_fork),
    ("sandbox, no layers", sandbox_plain),
    ("sandbox, all layers", sandbox_confined),
    ("run(), no layers", run_plain),
    ("run(), all layers", run_confined),
]


def _cpu() -> float:
    """CPU seconds of this process and its reaped children so far."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def latency(runs: int, batch: int = 10):
    """{mode: [ms per run]} and {mode: CPU ms per run (parent + child)}."""
    samples = {name: [] for name, _ in MODES}
    cpu = {name: 0.0 for name, _ in MODES}
    for _, fn in MODES:         # warm up: imports, the shared netns, the seccomp program
        fn()
    rounds = max(1, runs // batch)
    for _ in range(rounds):
        for name, fn in MODES:
            c0 = _cpu()
            for _ in range(batch):
                t = time.perf_counter()
                fn()
                samples[name].append((time.perf_counter() - t) * 1e3)
            cpu[name] += _cpu() - c0
    n = rounds * batch
    return samples, {k: v / n * 1e3 for k, v in cpu.items()}


def _worker(fn_name, seconds, q):
    fn = dict(MODES)[fn_name]
    fn()
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        fn()
        n += 1
    q.put(n)


def throughput(name: str, seconds: float, workers: int) -> float:
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(name, seconds, q)) for _ in range(workers)]
    for p in procs:
        p.start()
    total = sum(q.get() for _ in procs)
    for p in procs:
        p.join()
    return total / seconds


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=300, help="sequential runs per mode")
    ap.add_argument("--seconds", type=float, default=10.0, help="throughput: seconds per mode")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)

    load0 = os.getloadavg()
    print(sandbox.describe_capabilities())
    print(f"load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}; "
          f"{os.cpu_count()} CPUs; workers {args.workers}")
    samples, cpu = latency(args.runs)
    rates = {name: throughput(name, args.seconds, args.workers) for name, _ in MODES}
    load1 = os.getloadavg()
    print(f"load average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")

    med = {n: statistics.median(v) for n, v in samples.items()}
    rows = []
    for name, _ in MODES:
        v = samples[name]
        rows.append((name, med[name], pct(v, 10), pct(v, 90), cpu[name], rates[name]))
    added_sb = med["sandbox, all layers"] - med["sandbox, no layers"]
    added_run = med["run(), all layers"] - med["run(), no layers"]
    added_bare = med["sandbox, all layers"] - med["bare fork"]
    added_cpu = cpu["run(), all layers"] - cpu["run(), no layers"]
    if args.markdown:
        print(f"| mode | ms/run median | p10-p90 | CPU ms/run | runs/s on {args.workers} cores |")
        print("|---|---|---|---|---|")
        for name, m, lo, hi, c, rate in rows:
            print(f"| {name} | {m:.2f} | {lo:.2f}-{hi:.2f} | {c:.2f} | {rate:.0f} |")
    else:
        print(f"{'mode':22s} {'ms/run':>8s} {'p10-p90':>14s} {'CPU ms':>7s} {'runs/s':>8s}")
        for name, m, lo, hi, c, rate in rows:
            print(f"{name:22s} {m:8.2f} {lo:6.2f}-{hi:<7.2f} {c:7.2f} {rate:8.0f}")
    print(f"confinement adds {added_sb:.2f} ms per call_isolated "
          f"({added_run:.2f} ms per run(), {added_cpu:.2f} ms of CPU); "
          f"{added_bare:.2f} ms over a bare fork")
    print(f"confined run() throughput on {args.workers} cores: "
          f"{rates['run(), all layers']:.0f} runs/s (goal: >= 100); "
          f"added per run (goal: <= 5 ms): {added_run:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
