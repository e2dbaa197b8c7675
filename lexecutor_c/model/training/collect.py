"""Collect training data: ``python -m lexecutor_c.model.training.collect``.

One command regenerates everything (docs/MODEL.md):

1. ``pip download`` the sdist of each project in ``PROJECTS`` into
   ``DATA/sdists`` (skipped when already there) and unpack it into
   ``DATA/src/<project>``;
2. run its test suite under ``lexecutor_c.record`` (the project's own files
   instrumented, pytest with ``--assert=plain`` so test modules are recorded
   too) into ``DATA/events/<project>.jsonl.gz``; and a few stdlib test
   modules with their target modules (``STDLIB``) likewise;
3. build the deduplicated dataset ``DATA/dataset/{all,train,test,
   proj_train,proj_test}.jsonl.gz`` (random 95/5 split by seed; project
   split holding out ``--heldout`` projects);
4. write the frequency table (all examples) to ``--table`` (default: the
   file shipped in the package, ``lexecutor_c/model/frequency.json.gz``) and
   ``DATA/manifest.json`` with the counts and the table's accuracy on the
   held-out examples.

``DATA`` is ``data/`` in the working directory by default (git-ignored).
The network is needed for step 1 only; ``--offline`` uses what is in
``DATA/sdists``.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from typing import Dict, List, Optional, Sequence

from lexecutor_c.engine.record import record
from lexecutor_c.engine.runtime import FREQUENCY_TABLE, coarse_class, save_frequency_table
from lexecutor_c.model.training import dataset as ds

# Projects whose test suites run here offline in a few minutes.  The
# benchmark projects of the papers (black, flask, pandas, scrapy, tensorflow)
# must never be added: they are what the model is evaluated on.
PROJECTS = (
    "attrs",
    "more-itertools",
    "python-dateutil",
    "idna",
    "packaging",
    "toolz",
    "boltons",
    "tabulate",
    "click",
    "six",
    "pyparsing",
    "cachetools",
    "markdown",
    "humanize",
    "wcwidth",
)
FORBIDDEN = {"black", "flask", "pandas", "scrapy", "tensorflow"}

# stdlib test modules and the modules they test
STDLIB: Dict[str, List[str]] = {
    "test_json": ["json"],
    "test_textwrap": ["textwrap"],
    "test_statistics": ["statistics"],
    "test_shlex": ["shlex"],
    "test_fractions": ["fractions"],
    "test_difflib": ["difflib"],
}

PYTEST_ARGS = ["-q", "-p", "no:cacheprovider", "--assert=plain", "-o", "addopts=",
               "--continue-on-collection-errors", "-p", "no:warnings"]


def log(msg: str) -> None:
    print(f"[collect] {msg}", flush=True)


def download(project: str, sdists: str) -> str:
    """The sdist of ``project`` in ``sdists`` (downloaded when missing)."""
    norm = project.replace("-", "_").lower()
    found = [p for p in glob.glob(os.path.join(sdists, "*.tar.gz"))
             if os.path.basename(p).lower().replace("-", "_").startswith(norm + "_")
             or os.path.basename(p).lower().replace("-", "_").rsplit("_", 1)[0] == norm]
    if found:
        return sorted(found)[-1]
    os.makedirs(sdists, exist_ok=True)
    log(f"pip download {project}")
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--no-binary", ":all:", "-d", sdists, project], check=True)
    return download_existing(project, sdists)


def download_existing(project, sdists):
    norm = project.replace("-", "_").lower()
    for p in sorted(glob.glob(os.path.join(sdists, "*.tar.gz")), reverse=True):
        if os.path.basename(p).lower().replace("-", "_").startswith(norm + "_"):
            return p
    raise FileNotFoundError(f"no sdist of {project} in {sdists}")


def unpack(sdist: str, dest: str) -> str:
    """Unpack into ``dest`` (replaced) and return the project root in it."""
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    with tarfile.open(sdist) as tf:
        tf.extractall(dest, filter="data")
    entries = [e for e in os.listdir(dest) if os.path.isdir(os.path.join(dest, e))]
    return os.path.join(dest, entries[0]) if len(entries) == 1 else dest


def test_target(root: str) -> List[str]:
    for cand in ("tests", "test", "testing"):
        if os.path.isdir(os.path.join(root, cand)):
            return [cand]
    inner = glob.glob(os.path.join(root, "src", "*", "tests")) + \
        glob.glob(os.path.join(root, "*", "tests"))
    return [os.path.relpath(inner[0], root)] if inner else []


def record_project(name: str, root: str, out: str, timeout: float) -> dict:
    env = dict(os.environ)
    pypath = [os.path.join(root, "src")] if os.path.isdir(os.path.join(root, "src")) else []
    pypath.append(root)
    if env.get("PYTHONPATH"):
        pypath.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(pypath)
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [sys.executable, "-m", "pytest", *PYTEST_ARGS, *test_target(root)]
    t0 = time.monotonic()
    with open(out + ".log", "w") as logf:
        r = record(cmd, cwd=root, out=out, env=env, timeout=timeout, stdout=logf,
                   stderr=subprocess.STDOUT)
    return {"project": name, "returncode": r.returncode, "timed_out": r.timed_out,
            "events": r.events, "modules": len(r.modules), "processes": r.processes,
            "seconds": round(time.monotonic() - t0, 1), "warnings": r.warnings}


def record_stdlib(test: str, modules: List[str], out: str, timeout: float, cwd: str) -> dict:
    cmd = [sys.executable, "-m", "unittest", "-q", f"test.{test}"]
    t0 = time.monotonic()
    with open(out + ".log", "w") as logf:
        r = record(cmd, cwd=cwd, out=out, include=[*modules, f"test.{test}"],
                   timeout=timeout, stdout=logf, stderr=subprocess.STDOUT)
    return {"project": f"stdlib-{test}", "returncode": r.returncode, "timed_out": r.timed_out,
            "events": r.events, "modules": len(r.modules), "processes": r.processes,
            "seconds": round(time.monotonic() - t0, 1), "warnings": r.warnings}


def topk_frequency(table, examples, ks=(1, 3, 5), coarse=False) -> Dict[str, float]:
    """Top-k accuracy of ranking a name's classes by their counts (unknown
    names: "object" first, then the classes in FINE_CLASSES order)."""
    from lexecutor_c import _core
    order = list(_core.FINE_CLASSES)
    hits = {k: 0 for k in ks}
    for ex in examples:
        row = table.get(ex.name, {})
        ranked = sorted(row, key=lambda c: (-row[c], order.index(c)))
        rest = ["object"] + [c for c in order if c != "object"]
        ranked += [c for c in rest if c not in ranked]
        if coarse:
            seen, cr = set(), []
            for c in ranked:
                cc = coarse_class(c)
                if cc not in seen:
                    seen.add(cc)
                    cr.append(cc)
            ranked, target = cr, coarse_class(ex.cls)
        else:
            target = ex.cls
        for k in ks:
            hits[k] += target in ranked[:k]
    n = max(1, len(examples))
    return {f"top{k}": round(hits[k] / n, 4) for k in ks}


def build_dataset(events: List[str], outdir: str, seed: int, heldout: Sequence[str],
                  cap: Optional[int] = 300) -> dict:
    os.makedirs(outdir, exist_ok=True)
    stats: dict = {}
    examples = ds.examples_from_events(events, cap=cap, stats=stats)
    train, test = ds.random_split(examples, 0.05, seed)
    ptrain, ptest = ds.project_split(examples, heldout)
    for name, part in (("all", examples), ("train", train), ("test", test),
                       ("proj_train", ptrain), ("proj_test", ptest)):
        ds.write_examples(os.path.join(outdir, f"{name}.jsonl.gz"), part)
    per_project: Dict[str, int] = {}
    for ex in examples:
        per_project[ex.project] = per_project.get(ex.project, 0) + 1
    per_kind: Dict[str, int] = {}
    for ex in examples:
        per_kind[ex.kind] = per_kind.get(ex.kind, 0) + 1
    info = {**stats, "cap": cap, "examples": len(examples), "train": len(train), "test": len(test),
            "proj_train": len(ptrain), "proj_test": len(ptest), "heldout_projects": list(heldout),
            "names": len({ex.name for ex in examples}), "per_project": per_project,
            "per_kind": per_kind}
    t_train = ds.class_counts(train)
    info["frequency_random_split"] = {
        "fine": topk_frequency(t_train, test), "coarse": topk_frequency(t_train, test, coarse=True)}
    if ptest:
        t_ptrain = ds.class_counts(ptrain)
        info["frequency_project_split"] = {
            "fine": topk_frequency(t_ptrain, ptest),
            "coarse": topk_frequency(t_ptrain, ptest, coarse=True)}
    return info, examples


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lexecutor_c.model.training.collect",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="data", help="cache and output directory (default: data)")
    ap.add_argument("--projects", default=",".join(PROJECTS),
                    help="comma-separated PyPI projects (default: all of PROJECTS)")
    ap.add_argument("--stdlib", default=",".join(STDLIB),
                    help="comma-separated stdlib test modules ('' for none)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per test suite")
    ap.add_argument("--offline", action="store_true", help="use only sdists already in DATA")
    ap.add_argument("--skip-record", action="store_true",
                    help="reuse DATA/events; only rebuild the dataset and table")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--heldout", default="tabulate,toolz",
                    help="projects held out for the project-disjoint split")
    ap.add_argument("--cap", type=int, default=300,
                    help="most examples per (project, name, kind, class); 0: no cap")
    ap.add_argument("--table", default=FREQUENCY_TABLE,
                    help="where to write the frequency table (default: the shipped one)")
    args = ap.parse_args(argv)

    data = os.path.abspath(args.data)
    projects = [p for p in args.projects.split(",") if p]
    bad = sorted(FORBIDDEN & {p.lower() for p in projects})
    if bad:
        ap.error(f"benchmark projects cannot be training data: {', '.join(bad)}")
    tests = [t for t in args.stdlib.split(",") if t]
    unknown = [t for t in tests if t not in STDLIB]
    if unknown:
        ap.error(f"unknown stdlib test modules: {', '.join(unknown)} (known: {', '.join(STDLIB)})")
    evdir = os.path.join(data, "events")
    os.makedirs(evdir, exist_ok=True)
    runs = []
    if not args.skip_record:
        for p in projects:
            try:
                sdist = download_existing(p, os.path.join(data, "sdists")) if args.offline \
                    else download(p, os.path.join(data, "sdists"))
            except (subprocess.CalledProcessError, FileNotFoundError) as e:
                log(f"{p}: no sdist ({e}); skipped")
                continue
            root = unpack(sdist, os.path.join(data, "src", p))
            log(f"{p}: recording {os.path.basename(sdist)}")
            info = record_project(p, root, os.path.join(evdir, f"{p}.jsonl.gz"), args.timeout)
            log(f"{p}: {info}")
            runs.append(info)
        for t in tests:
            info = record_stdlib(t, STDLIB[t], os.path.join(evdir, f"stdlib-{t}.jsonl.gz"),
                                 args.timeout, data)
            log(f"stdlib {t}: {info}")
            runs.append(info)
    wanted = set(projects) | {f"stdlib-{t}" for t in tests}
    events = sorted(p for p in glob.glob(os.path.join(evdir, "*.jsonl.gz"))
                    if ds.project_of(p) in wanted)
    if not events:
        log("no events files: nothing to build")
        return 1
    heldout = [h for h in args.heldout.split(",") if h]
    info, examples = build_dataset(events, os.path.join(data, "dataset"), args.seed, heldout,
                                   args.cap or None)
    table = ds.class_counts(examples)
    meta = {"events": info["events"], "examples": len(examples), "names": len(table),
            "projects": sorted({ex.project for ex in examples}), "seed": args.seed}
    save_frequency_table(args.table, table, meta)
    info["table"] = args.table
    # keep what earlier invocations recorded for the projects not re-run now
    mpath = os.path.join(data, "manifest.json")
    if os.path.exists(mpath):
        try:
            with open(mpath) as f:
                old = {r["project"]: r for r in json.load(f).get("runs", [])}
        except (OSError, ValueError, KeyError, TypeError):
            old = {}
        old.update({r["project"]: r for r in runs})
        runs = [old[k] for k in sorted(old) if k in wanted]
    manifest = {"runs": runs, "dataset": info, "events_files": [os.path.basename(e) for e in events]}
    with open(mpath, "w") as f:
        json.dump(manifest, f, indent=2)
    log(json.dumps(info, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
