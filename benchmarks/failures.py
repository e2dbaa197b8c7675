"""Why coverage stops: the not-fully-covered snippets of a coverage run,
rerun with offline Treefix, with where and why each one stops.

    python -m benchmarks.failures --results bench-out/results.json --dataset devset \\
        [--sample 80] [--seed 0] [--out failures.jsonl]

For each snippet that ``treefix-offline`` (the approach in --approach) did
not fully cover in that run, Treefix runs again with the benchmark's
settings (n=10, k=10, 2 s per prefix, --budget) and one JSON line is written:
the snippet's text, P's coverage, the best prefix, its run's end (status,
exception type, message, line and the text of that line), the first line P
never reached and the statement before it, the error types over the whole
tree and its six most frequent errors in the snippet (type, line, message),
unresolved imports, and a first guess at the category (``guess``) by
these rules, in order:

* ``timeout``: the best prefix's run hit the time limit;
* ``raise-by-design``: the run ended in an exception raised by the snippet's
  own ``raise`` statement (a branch taken on an injected value);
* ``import``: ImportError/ModuleNotFoundError (often a relative import);
* ``assertion``: AssertionError (a test's assert on injected values);
* ``file``: FileNotFoundError/IsADirectoryError/PermissionError;
* ``attribute``: AttributeError;
* ``type``: TypeError (a value of the wrong type for an operation or builtin);
* ``value``: ValueError/KeyError/IndexError/StopIteration/... (right type,
  wrong content);
* ``exit-early``: the run ended by ``exit()`` (the papers' ``return``) before
  the uncovered lines;
* ``branch``: the run ended normally and some block was never entered.

The guess is a starting point for reading the snippets, not the analysis.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import random
import sys
import time
from collections import Counter
from typing import Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

_VALUE = {"ValueError", "KeyError", "IndexError", "StopIteration", "ZeroDivisionError",
          "UnicodeDecodeError", "UnicodeEncodeError", "OverflowError", "LookupError",
          "RecursionError", "UnboundLocalError", "NameError", "RuntimeError"}
_FILE = {"FileNotFoundError", "IsADirectoryError", "PermissionError", "NotADirectoryError"}


def _raise_lines(text: str) -> set:
    try:
        return {n.lineno for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Raise)}
    except SyntaxError:
        return set()


def _stmt_before(text: str, line: int) -> Optional[str]:
    """The source line of the last statement that starts before ``line``."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    starts = sorted({n.lineno for n in ast.walk(tree) if isinstance(n, ast.stmt)
                     and n.lineno < line})
    if not starts:
        return None
    return text.splitlines()[starts[-1] - 1].strip()


def guess(rec: dict) -> str:
    best = rec["best_run"]
    err = best.get("error") or {}
    t = err.get("type")
    if best.get("status") == "timeout" or t == "timeout":
        return "timeout"
    if t and err.get("where") == "snippet" and err.get("line") in rec["raise_lines"]:
        return "raise-by-design"
    if t in ("ImportError", "ModuleNotFoundError"):
        return "import"
    if t == "AssertionError":
        return "assertion"
    if t in _FILE:
        return "file"
    if t == "AttributeError":
        return "attribute"
    if t == "TypeError":
        return "type"
    if t in _VALUE or (t and t.endswith("Error")):
        return "value"
    if best.get("status") == "exit":
        return "exit-early"
    return "branch"


def analyse(path: str, budget: float = 5.0) -> dict:
    """Treefix on one snippet (the benchmark's settings) and where it stops."""
    import lexecutor_c
    with open(path, encoding="utf-8") as f:
        text = f.read()
    t0 = time.monotonic()
    tf = lexecutor_c.treefix(path, generator="offline", n=10, k=10, timeout=2.0,
                             budget=budget, seed=0)
    lines = text.splitlines()
    nodes = [n.to_dict() for n in tf.tree]
    best = next((n for n in nodes if n["id"] == tf.best_id), nodes[0] if nodes else {})
    err = best.get("error") or {}
    eline = err.get("line") if err.get("where") == "snippet" else None
    first_unc = min(tf.uncovered) if tf.uncovered else None
    rec = {
        "file": os.path.basename(path), "coverage": tf.coverage,
        "best_coverage": tf.best_coverage, "baseline": tf.baseline_coverage,
        "total_lines": tf.total_lines, "prefixes": len(tf.tree),
        "seconds": round(time.monotonic() - t0, 2),
        "best_prefix": tf.best,
        "best_run": {"status": best.get("status"), "error": err or None,
                     "line_text": lines[eline - 1].strip() if eline and
                     0 < eline <= len(lines) else None},
        "uncovered": tf.uncovered,
        "first_uncovered": first_unc,
        "first_uncovered_text": lines[first_unc - 1].strip() if first_unc else None,
        "before_first_uncovered": _stmt_before(text, first_unc) if first_unc else None,
        "tree_errors": dict(Counter(
            f"{(n.get('error') or {}).get('type') or n.get('status')}"
            for n in nodes)),
        "node_errors": [
            {"type": t, "line": ln, "message": m, "count": c} for (t, ln, m), c in Counter(
                ((n.get("error") or {}).get("type"), (n.get("error") or {}).get("line"),
                 " ".join(str((n.get("error") or {}).get("message") or "").split())[:160])
                for n in nodes if n.get("error")
                and (n.get("error") or {}).get("where") == "snippet").most_common(6)],
        "unresolved_imports": tf.unresolved_imports,
        "raise_lines": sorted(_raise_lines(text)),
        "text": text,
    }
    rec["guess"] = guess(rec)
    return rec


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.failures",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--results", required=True, help="results.json of benchmarks.coverage")
    p.add_argument("--approach", default="treefix-offline")
    p.add_argument("--dataset", default=None, help="only this dataset")
    p.add_argument("--sample", type=int, default=None, metavar="N",
                   help="N of the not-fully-covered snippets, drawn with --seed")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=float, default=5.0)
    p.add_argument("--out", default="failures.jsonl")
    args = p.parse_args(argv)
    with open(args.results, encoding="utf-8") as f:
        doc = json.load(f)
    paths = {s["file"]: s for s in doc["snippets"]}
    data_dirs = doc["meta"]["data"]
    data_dirs = data_dirs if isinstance(data_dirs, list) else [data_dirs]
    rows = [r for r in doc["rows"] if r["approach"] == args.approach
            and (args.dataset is None or r["dataset"] == args.dataset)
            and r["coverage"] < 1.0 - 1e-9]
    if args.sample is not None and args.sample < len(rows):
        rows = sorted(random.Random(args.seed).sample(rows, args.sample),
                      key=lambda r: r["file"])
    todo = []
    for r in rows:
        base = os.path.basename(r["file"])
        cands = [os.path.join(d, base) for d in data_dirs] + \
                [os.path.join(d, r["file"]) for d in data_dirs]
        path = next((c for c in cands if os.path.exists(c)), None)
        if path is None or r["file"] not in paths:
            print(f"{r['file']}: not found under {data_dirs}", file=sys.stderr)
            continue
        todo.append((r, path))
    cats: Counter = Counter()
    with open(args.out, "w", encoding="utf-8") as out:
        for i, (r, path) in enumerate(todo, 1):
            try:
                rec = analyse(path, args.budget)
            except Exception as e:          # an engine failure is a finding too
                rec = {"file": os.path.basename(path), "guess": "engine-error",
                       "error": f"{type(e).__name__}: {e}"}
            rec["benchmark_coverage"] = r["coverage"]
            out.write(json.dumps(rec) + "\n")
            out.flush()
            cats[rec["guess"]] += 1
            print(f"[{i}/{len(todo)}] {rec['file']}: {rec['guess']}", file=sys.stderr)
    for c, n in cats.most_common():
        print(f"{n:4d}  {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
