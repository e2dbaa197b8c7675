"""Runtime-error detection on ORCA's published FixEval data, beside ORCA.

    python -m benchmarks.errors --orca PATH [--variant complete|incomplete|both]
        [--limit N] [--jobs J] [--seeds S] [--timeout S] [--budget S]
        [--no-treefix] [--no-restore] [--out DIR] [--fresh] [--misses N]

PATH is ORCA's repository (github.com/SmitPatel910/orca): a checkout, a
bare git directory (read with ``git show HEAD:dataset/...``), or a folder
holding ``fixeval_merged_cfg.json`` / ``fixeval_incom_merged_cfg.json``.
The data stays where it is; nothing is copied into this repository.

The data (ORCA's ``dataset/``): 748 competitive-programming submissions
from FixEval (CodeNet) per variant, 374 that crash (all with a TypeError)
and 374 that do not, their inputs already written into the code as
literals.  The *incomplete* variant is a different sample whose import
statements ORCA removed.  Ground truth: ``exception_info`` (crashes or
not, the type) and the last entry of ``ground_truth_execution_order``, the
line that raised (in the variant's own numbering: on the complete variant
it equals the line of the plain run's exception for 372 of 373 programs).

Per program ``lexecutor_c.apps.errors.find_errors`` runs (imports restored,
naive run, and when something is injected Treefix prefixes and seeded
randomized runs) and the *first "real" group* is the prediction:

* detection accuracy: (crashing programs with a real group + clean
  programs without one) / all;
* found: crashing programs with a real group / crashing programs (ORCA's
  true-positive rate);
* false alarms: clean programs with a real group / clean programs;
* right line: crashing programs whose first real group is on the line that
  raised / crashing programs (ORCA's statement-level fault localization);
* exception type: crashing programs whose first real group has the right
  type / crashing programs.

ORCA's numbers: detection accuracy, true-positive and false-positive rates
from Tables II and IV of the ICSE'25 paper (icse2025-paper1850.pdf in the
repository), statement-level localization from Tables I and III; ORCA
publishes no exception-type accuracy, so that row is computed from its
published outputs (``output/orca/output_*cfg_merged.json``, field ``ET``),
when PATH has them.

Results are cached per program in ``--out`` (default bench-out/errors/,
JSON lines keyed by variant, program and options; ``--fresh`` starts over).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Optional

VARIANTS = {"complete": "fixeval_merged_cfg.json", "incomplete": "fixeval_incom_merged_cfg.json"}
OUTPUTS = {"complete": "output_cfg_merged.json", "incomplete": "output_incom_cfg_merged.json"}

#: ORCA's published figures (ICSE'25, Tables I-IV), in percent
ORCA_PAPER = {
    "complete": {"accuracy": 76.50, "found": 68.45, "false_alarms": 15.5, "right_line": 60.00},
    "incomplete": {"accuracy": 67.51, "found": 60.43, "false_alarms": 25.13,
                   "right_line": 47.85},
}
METRICS = [("accuracy", "detection accuracy"), ("found", "crashing programs found"),
           ("false_alarms", "false alarms (clean programs)"),
           ("right_line", "right line (statement-level)"), ("type", "exception type")]


# ---------------------------------------------------------------- data

def _read_json(root: str, rel: str) -> Optional[dict]:
    """``rel`` (``dataset/x.json``) from a checkout, a flat folder or a git dir."""
    for cand in (os.path.join(root, rel), os.path.join(root, os.path.basename(rel))):
        if os.path.isfile(cand):
            with open(cand, encoding="utf-8") as f:
                return json.load(f)
    try:
        out = subprocess.run(["git", f"--git-dir={root}", "show", f"HEAD:{rel}"],
                             capture_output=True, check=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        try:
            out = subprocess.run(["git", "-C", root, "show", f"HEAD:{rel}"],
                                 capture_output=True, check=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            return None
    return json.loads(out.stdout)


def load_programs(root: str, variant: str) -> list[dict]:
    """[{id, code, buggy, line, type}] in the file's order."""
    data = _read_json(root, f"dataset/{VARIANTS[variant]}")
    if data is None:
        raise SystemExit(f"{root}: no dataset/{VARIANTS[variant]} (a checkout of "
                         "github.com/SmitPatel910/orca, its git directory, or a folder "
                         "with the JSON files)")
    out = []
    for pid, subs in data.items():
        for sid, v in subs.items():
            exc = v.get("exception_info")
            order = v.get("ground_truth_execution_order") or []
            typ = None
            if exc:
                cls = str(exc.get("class", ""))
                typ = cls.split("'")[1] if "'" in cls else cls
            out.append({"id": f"{pid}/{sid}", "code": v["code"], "buggy": bool(exc),
                        "line": order[-1] if exc and order else None, "type": typ})
    return out


def orca_type_accuracy(root: str, variant: str) -> Optional[float]:
    """ORCA's exception-type accuracy on the crashing programs, from its
    published outputs (``ET``), in percent; None without them."""
    data = _read_json(root, f"dataset/{VARIANTS[variant]}")
    res = _read_json(root, f"output/orca/{OUTPUTS[variant]}")
    if data is None or res is None:
        return None
    n = ok = 0
    for pid, subs in data.items():
        for sid, v in subs.items():
            if not v.get("exception_info"):
                continue
            n += 1
            acc = (res.get(pid, {}).get(sid) or {}).get("accuracy") or {}
            ok += 1 if acc.get("ET") == 1 else 0
    return 100.0 * ok / n if n else None


# ---------------------------------------------------------------- one program

def evaluate(job: dict) -> dict:
    """Run find_errors on one program; a row whatever happens."""
    from lexecutor_c.apps.errors import REAL, find_errors
    t = time.monotonic()
    row = {"key": job["key"], "id": job["id"], "buggy": job["buggy"], "gt_line": job["line"],
           "gt_type": job["type"]}
    try:
        rep = find_errors(job["code"], seeds=job["seeds"], timeout=job["timeout"],
                          use_treefix=job["treefix"], restore=job["restore"],
                          treefix_budget=job["budget"], filename="<program>")
    except SyntaxError as e:
        row.update(error=f"SyntaxError: {e.msg}", predicted=False)
    except Exception as e:          # one program never ends the benchmark
        row.update(error=f"{type(e).__name__}: {e}", predicted=False)
    else:
        real = [g for g in rep.errors if g.category == REAL]
        top = real[0] if real else None
        row.update(predicted=top is not None, line=top.line if top else None,
                   type=top.type if top else None, why=top.why_real if top else None,
                   operation=top.operation if top else None,
                   runs=len(rep.runs), source=rep.source_of_runs,
                   restored=rep.restored_imports,
                   groups=[[g.type, g.line, g.category, g.message[:120]]
                           for g in rep.errors])
    row["seconds"] = round(time.monotonic() - t, 3)
    return row


# ---------------------------------------------------------------- metrics

def metrics(rows: list[dict]) -> dict:
    bug = [r for r in rows if r["buggy"]]
    clean = [r for r in rows if not r["buggy"]]
    tp = sum(1 for r in bug if r.get("predicted"))
    fp = sum(1 for r in clean if r.get("predicted"))
    tn = len(clean) - fp
    line = sum(1 for r in bug if r.get("predicted") and r.get("line") == r["gt_line"])
    typ = sum(1 for r in bug if r.get("predicted") and r.get("type") == r["gt_type"])

    def pct(a, b):
        return 100.0 * a / b if b else float("nan")
    return {"programs": len(rows), "crashing": len(bug), "clean": len(clean),
            "tp": tp, "fp": fp, "tn": tn, "fn": len(bug) - tp,
            "accuracy": pct(tp + tn, len(rows)), "found": pct(tp, len(bug)),
            "false_alarms": pct(fp, len(clean)), "right_line": pct(line, len(bug)),
            "type": pct(typ, len(bug)),
            "plain": sum(1 for r in rows if r.get("source") == "plain"),
            "restored": sum(1 for r in rows if r.get("restored")),
            "seconds": sum(r.get("seconds", 0.0) for r in rows)}


def misses(rows: list[dict]) -> dict:
    """Why crashing programs were missed or misplaced, and why clean ones
    were flagged: counts by the verdict of the group on the right line."""
    out: dict = {}
    for r in rows:
        if r["buggy"]:
            if r.get("predicted") and r.get("line") == r["gt_line"]:
                continue
            if r.get("error"):
                why = "error: " + r["error"].split(":")[0]
            else:
                here = [g for g in r.get("groups", []) if g[1] == r["gt_line"]]
                if r.get("predicted"):
                    why = "real crash on another line"
                elif here:
                    why = f"crash on the line, verdict {here[0][2]}"
                elif r.get("groups"):
                    why = "crashes elsewhere only (" + \
                        "/".join(sorted({g[2] for g in r["groups"]})) + ")"
                else:
                    why = "no crash in any run"
            key = "crashing: " + why
        else:
            if not r.get("predicted"):
                continue
            key = f"clean, flagged: {r.get('type')} ({r.get('why')})"
        out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


# ---------------------------------------------------------------- driver

def _config(a) -> dict:
    return {"seeds": a.seeds, "timeout": a.timeout, "treefix": not a.no_treefix,
            "restore": not a.no_restore, "budget": a.budget}


def _engine_hash() -> str:
    """Changes when the code under test does (lexecutor_c's Python files)."""
    import lexecutor_c
    root = os.path.dirname(lexecutor_c.__file__)
    h = hashlib.sha1()
    for sub in ("apps", "engine", "knowledge", "prefixtree"):
        d = os.path.join(root, sub)
        for name in sorted(os.listdir(d)):
            if name.endswith(".py"):
                with open(os.path.join(d, name), "rb") as f:
                    h.update(name.encode() + f.read())
    return h.hexdigest()[:12]


def run_variant(a, variant: str) -> tuple[dict, list[dict]]:
    progs = load_programs(a.orca, variant)
    if a.limit:
        # every k-th program: both classes and many problems even for small N
        step = max(1, len(progs) // a.limit)
        progs = progs[::step][:a.limit]
    cfg = _config(a)
    tag = hashlib.sha1(json.dumps([cfg, _engine_hash()], sort_keys=True).encode()).hexdigest()[:10]
    os.makedirs(a.out, exist_ok=True)
    cache = os.path.join(a.out, f"{variant}.jsonl")
    done: dict = {}
    if os.path.exists(cache) and not a.fresh:
        with open(cache, encoding="utf-8") as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                done[r["key"]] = r
    elif a.fresh and os.path.exists(cache):
        os.remove(cache)
    jobs = []
    for p in progs:
        key = f"{tag}:{p['id']}"
        if key not in done:
            jobs.append({**p, **cfg, "key": key})
    t0 = time.monotonic()
    if jobs:
        print(f"{variant}: {len(jobs)} programs to run ({len(progs) - len(jobs)} cached), "
              f"{a.jobs} jobs", file=sys.stderr)
        with open(cache, "a", encoding="utf-8") as sink, \
                ProcessPoolExecutor(max_workers=a.jobs) as ex:
            for k, row in enumerate(ex.map(evaluate, jobs, chunksize=1), 1):
                done[row["key"]] = row
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                if k % 50 == 0 or k == len(jobs):
                    print(f"  {k}/{len(jobs)} ({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    rows = [done[f"{tag}:{p['id']}"] for p in progs]
    return metrics(rows), rows


def table(variant: str, m: dict, orca_type: Optional[float], full: bool) -> str:
    paper = ORCA_PAPER[variant]
    lines = [f"### {variant} variant: {m['programs']} programs "
             f"({m['crashing']} crashing, {m['clean']} clean)", "",
             "| metric | lexecutor-c errors | ORCA |", "| --- | --- | --- |"]
    for key, label in METRICS:
        ours = f"{m[key]:.1f}%"
        if key == "type":
            theirs = f"{orca_type:.1f}% (from its outputs)" if orca_type is not None else "n/a"
        else:
            theirs = f"{paper[key]:.1f}%" + ("" if full else " (all 748)")
        lines.append(f"| {label} | {ours} | {theirs} |")
    lines.append("")
    lines.append(f"TP {m['tp']}, FN {m['fn']}, FP {m['fp']}, TN {m['tn']}; "
                 f"{m['seconds'] / max(1, m['programs']):.2f} s per program "
                 "(sum over jobs)")
    lines.append(f"imports restored in {m['restored']} programs; {m['plain']} ran plain "
                 "(nothing left to inject: one run), "
                 f"{m['programs'] - m['plain']} with injection (naive, Treefix prefixes, seeds)")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.errors",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--orca", required=True, metavar="PATH",
                   help="ORCA's repository: checkout, git directory or folder with the JSON")
    p.add_argument("--variant", choices=["complete", "incomplete", "both"], default="both")
    p.add_argument("--limit", type=int, default=0, metavar="N",
                   help="evaluate N programs spread over the data (default: all)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per run")
    p.add_argument("--budget", type=float, default=5.0, help="Treefix seconds per program")
    p.add_argument("--no-treefix", action="store_true")
    p.add_argument("--no-restore", action="store_true", help="do not restore imports")
    p.add_argument("--out", default=os.path.join("bench-out", "errors"))
    p.add_argument("--fresh", action="store_true", help="ignore cached rows")
    p.add_argument("--misses", type=int, default=1, metavar="0|1",
                   help="print why programs were missed (default 1)")
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    return p


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.limit < 0 or a.jobs < 1 or a.seeds < 0:
        print("--limit, --jobs and --seeds must not be negative (--jobs at least 1)",
              file=sys.stderr)
        return 2
    variants = ["complete", "incomplete"] if a.variant == "both" else [a.variant]
    report = {}
    for v in variants:
        m, rows = run_variant(a, v)
        report[v] = {"metrics": m, "misses": misses(rows), "config": _config(a)}
        if a.json:
            continue
        print(table(v, m, orca_type_accuracy(a.orca, v), full=not a.limit))
        if a.misses:
            print()
            for k, n in report[v]["misses"].items():
                print(f"  {n:4d}  {k}")
        print()
    if a.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
