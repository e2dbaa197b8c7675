"""Quick pass of lexecutor_c.treefix over the Treefix benchmark sample.

    python3 -m benchmarks.treefix_sample [--budget S] [--jobs J] [--only so|functions]
        [--out FILE.json]

Reads ../shared/bench/treefix_sample/{so,functions} (beside the repo) in place and prints,
per dataset, the mean coverage of P, of the best prefix, of the empty
prefix (injection alone, naive predictor) and Treefix+GPT-4o's numbers from
treefix_gpt4o.csv, with seconds per snippet.
"""
from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

SAMPLE = os.environ.get("TREEFIX_SAMPLE", os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "bench",
    "treefix_sample"))


def one(args):
    path, budget, n, k = args
    import lexecutor_c
    t = time.monotonic()
    try:
        r = lexecutor_c.treefix(path, n=n, k=k, timeout=2.0, budget=budget, seed=0)
        return {"file": path, "P": r.coverage, "best": r.best_coverage,
                "baseline": r.baseline_coverage, "prefixes": len(r.prefixes),
                "nodes": len(r.tree), "seconds": time.monotonic() - t,
                "unresolved": r.unresolved_imports}
    except Exception as e:        # a report per snippet, whatever happens
        return {"file": path, "error": f"{type(e).__name__}: {e}",
                "seconds": time.monotonic() - t}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=5.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-n", type=int, default=10)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--only", choices=["so", "functions"])
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    ref = {}
    with open(os.path.join(SAMPLE, "treefix_gpt4o.csv")) as f:
        for row in csv.DictReader(f):
            ref[row["file"]] = (float(row["coverage_P"]), float(row["coverage_pbest"]))
    jobs = []
    for ds in ("so", "functions"):
        if a.only and ds != a.only:
            continue
        for p in sorted(glob.glob(os.path.join(SAMPLE, ds, "*.py"))):
            jobs.append((p, a.budget, a.n, a.k))
    t0 = time.monotonic()
    with ProcessPoolExecutor(a.jobs) as ex:
        rows = list(ex.map(one, jobs))
    wall = time.monotonic() - t0
    for ds in ("so", "functions"):
        rs = [r for r in rows if f"/{ds}/" in r["file"]]
        if not rs:
            continue
        ok = [r for r in rs if "error" not in r]
        mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
        rel = [os.path.relpath(r["file"], SAMPLE) for r in rs]
        print(f"{ds}: {len(rs)} snippets, {len(rs) - len(ok)} errors; "
              f"P {mean([r.get('P', 0) for r in rs]):.3f}  best {mean([r.get('best', 0) for r in rs]):.3f}  "
              f"empty prefix {mean([r.get('baseline') or 0 for r in rs]):.3f}  "
              f"Treefix+GPT-4o P {mean([ref[f][0] for f in rel if f in ref]):.3f} "
              f"best {mean([ref[f][1] for f in rel if f in ref]):.3f}  "
              f"s/snippet {mean([r['seconds'] for r in rs]):.2f}")
        for r in rs:
            if "error" in r:
                print("   error", r["file"], r["error"])
    print(f"wall {wall:.0f} s with {a.jobs} jobs")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
