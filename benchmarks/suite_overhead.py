"""Overhead on a real project's test suite: plain / instrumented / recording.

    python -m benchmarks.suite_overhead [--project bottle==0.13.4] [--repeat 3] [--json FILE]

The project's sdist (pinned in benchmarks/devset/manifest.json, taken from
the dev-set cache or downloaded with pip) is extracted to a temporary
directory and its test suite is run with pytest in a child interpreter,
three ways, interleaved:

* ``plain``: as shipped;
* ``instrumented``: the project's own modules instrumented at import
  (lexecutor_c.engine.importhook, a Runtime(predictor="as-is") per module:
  what the pytest plugin and transparent mode execute);
* ``recording``: what ``lexecutor_c record --include MODULE -- pytest``
  runs (lexecutor_c.engine._recorder: events of every value the project's
  code reads, deduplicated, flushed at exit as gzip'd JSON lines).

Reported per mode: the child's CPU time (user + system, best of --repeat;
less sensitive to a loaded machine than wall time) and the pytest outcome,
which must be the same in the three modes.  Dev-set projects only (the
reserved evaluation projects must not be used here).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

MODES = ("plain", "instrumented", "recording")
MANIFEST = Path(__file__).parent / "devset" / "manifest.json"
# project -> (its top-level modules, pytest arguments run from the sdist root)
SUITES = {
    "bottle": (["bottle"], ["-q", "-p", "no:cacheprovider", "test"]),
}


def _child(mode: str, modules: list[str], record_dir: str, pytest_args: list[str]) -> int:
    """Runs in the child interpreter: install the mode's import hook, then pytest."""
    sys.path.insert(0, os.getcwd())
    if mode == "instrumented":
        from lexecutor_c import _core
        from lexecutor_c.engine import importhook
        importhook.install(modules, lambda: _core.Runtime(predictor="as-is").loaders())
    elif mode == "recording":
        from lexecutor_c.engine import _recorder
        rec = _recorder.start({"dir": record_dir, "modules": modules, "paths": [],
                               "excluded": [], "flush_interval": 5.0})
    import pytest
    rc = int(pytest.main(pytest_args))
    if mode == "recording":
        rec.flush()          # the count, after the last events are written (a quick
        print(f"recorded events: {rec.written}")   # suite ends before the periodic flush)
    hooked = [m for m in modules if "_l_" in getattr(sys.modules.get(m), "__dict__", {})]
    print(f"instrumented modules: {len(hooked)}")
    return rc


def run_once(mode: str, root: str, modules: list[str], pytest_args: list[str]) -> dict:
    """One run of the suite in a child; its CPU seconds and pytest's summary line."""
    with tempfile.TemporaryDirectory(prefix="lx-suite-rec-") as rec:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks.suite_overhead", "--child", mode,
             "--modules", ",".join(modules), "--record-dir", rec, "--"] + pytest_args,
            cwd=root, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = re.findall(r"^=*\s*(\d+ passed.*?)\s*=*$", proc.stdout, re.M)
    events = re.findall(r"^recorded events: (\d+)$", proc.stdout, re.M)
    hooked = re.findall(r"^instrumented modules: (\d+)$", proc.stdout, re.M)
    if mode != "plain" and hooked != [str(len(modules))]:
        raise SystemExit(f"{mode}: the project's modules were not instrumented "
                         f"({hooked}):\n{proc.stdout[-500:]}{proc.stderr[-500:]}")
    return {"cpu": cpu, "rc": proc.returncode,
            "summary": re.sub(r" in [\d.]+s.*", "", summary[-1]) if summary else
            proc.stdout.strip().splitlines()[-1:] or proc.stderr[-300:],
            "events": int(events[-1]) if events else None}


def sdist_for(project: str) -> str:
    from benchmarks.devset import DEFAULT_CACHE, fetch_sdist
    manifest = json.loads(MANIFEST.read_text())
    entry = next((p for p in manifest["projects"] if p["project"] == project), None)
    if entry is None:
        raise SystemExit(f"{project} is not a dev-set project of {MANIFEST}")
    name, version = project.split("==")
    return fetch_sdist(name, version, DEFAULT_CACHE, entry.get("sdist_sha256"),
                       say=lambda m: print(m, file=sys.stderr))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", default="bottle==0.13.4")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    ap.add_argument("--modules", help=argparse.SUPPRESS)
    ap.add_argument("--record-dir", help=argparse.SUPPRESS)
    ap.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return _child(args.child, args.modules.split(","), args.record_dir, args.rest)

    name = args.project.split("==")[0]
    if name not in SUITES:
        raise SystemExit(f"no suite settings for {name} (known: {', '.join(SUITES)})")
    modules, pytest_args = SUITES[name]
    with tempfile.TemporaryDirectory(prefix="lx-suite-") as tmp:
        with tarfile.open(sdist_for(args.project)) as tf:
            tf.extractall(tmp, filter="data")
        root = next(p for p in Path(tmp).iterdir() if p.is_dir())
        best = {m: None for m in MODES}
        for _ in range(args.repeat):
            for mode in MODES:
                r = run_once(mode, str(root), modules, pytest_args)
                if best[mode] is None or r["cpu"] < best[mode]["cpu"]:
                    best[mode] = r
    outcomes = {m: (best[m]["rc"], best[m]["summary"]) for m in MODES}
    print(f"{args.project} test suite (pytest {' '.join(pytest_args)}), "
          f"child CPU seconds, best of {args.repeat}")
    print("mode | CPU s | ratio | outcome")
    print("--- | --- | --- | ---")
    for m in MODES:
        extra = f", {best[m]['events']} events" if best[m]["events"] is not None else ""
        print(f"{m} | {best[m]['cpu']:.2f} | {best[m]['cpu'] / best['plain']['cpu']:.2f}x | "
              f"{best[m]['summary']}{extra}")
    if args.json:
        Path(args.json).write_text(json.dumps({"project": args.project, "rows": best}, indent=2))
    if len(set(outcomes.values())) != 1:
        print(f"outcomes differ between modes: {outcomes}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
