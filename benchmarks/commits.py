"""How often does ``lexecutor-c commits`` reach a verdict on real histories?

    python -m benchmarks.commits --repo PATH [--repo PATH ...] [--range REV] [--max N]
                                 [--out DIR] [--fresh] [--markdown]

For each repository, the last ``--max`` commits of ``--range`` (default
``HEAD``; first parent and merges included, as ``git rev-list`` lists them)
are checked one by one with :func:`lexecutor_c.apps.commits.check_commits`.
A *function-changing* commit modifies the code of at least one function or
method that existed before, outside test files (docstring- and
annotation-only edits included: the check answers "same" for them without
running anything; they are counted apart).  Printed per project and
overall: commits examined, function-changing commits, the share of them with
a verdict (changed or same), exceptional/undecided ones with their reasons,
the skipped commits by reason, and the time.

Results are kept per commit in ``--out`` (default ``bench-out/commits``,
one JSON-lines file per project, keyed by commit and options) so an
interrupted run resumes; ``--fresh`` starts over.  ``--samples FILE``
writes the "changed" verdicts (commit, function, input, what differed) for
hand-checking.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from collections import Counter

from lexecutor_c.apps import commits as cm


def _rev_list(repo: str, rev: str, n: int) -> list:
    out = subprocess.run(["git", "-C", repo, "rev-list", f"--max-count={n}", rev, "--"],
                         capture_output=True, text=True, check=True).stdout
    return out.split()[::-1]


def _key(opts: dict) -> str:
    return hashlib.sha1(json.dumps(opts, sort_keys=True).encode()).hexdigest()[:10]


def _skip_reason(c: dict) -> str:
    d = c["detail"]
    for needle, reason in (("merge commit", "merge commit"), ("root commit", "root commit"),
                           ("no existing function modified", "adds/removes functions only"),
                           ("changes tests only", "tests only"),
                           ("module-level code only", "module-level code only"),
                           ("does not parse", "does not parse"), ("cannot read", "unreadable"),
                           ("changes no function", "no function or module code")):
        if needle in d:
            return reason
    return d[:40]


def classify(c: dict) -> dict:
    """The benchmark's view of one commit's result."""
    mods = [f for f in c["functions"] if f["status"] in ("modified", "static")]
    out = {"commit": c["commit"], "subject": c["subject"], "verdict": c["verdict"],
           "function_changing": bool(mods), "seconds": c.get("seconds", 0.0),
           "n_functions": len(mods)}
    if not mods:
        out["skip"] = _skip_reason(c)
        return out
    out["static"] = all(f["status"] == "static" for f in mods)
    fv = Counter(f["verdict"] for f in mods)
    out["function_verdicts"] = dict(fv)
    if c["verdict"] == "undecided":
        out["why"] = "exception" if fv.get("exception") and not fv.get("unreached") else \
            "unreached"
    return out


def run_project(repo: str, rev: str, n: int, opts: dict, out_dir: str, fresh: bool,
                log=print, stored: bool = False) -> list:
    name = os.path.basename(os.path.abspath(repo).rstrip("/"))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name}.jsonl")
    key = _key(opts)
    done = {}
    if os.path.exists(path) and not fresh:
        with open(path) as f:
            for line in f:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if row.get("key") == key:
                    done[row["commit"]["commit"]] = row["commit"]
    elif fresh and os.path.exists(path):
        os.remove(path)
    shas = _rev_list(repo, rev, n)
    rows = []
    t_start = time.monotonic()
    with open(path, "a") as f:
        for i, sha in enumerate(shas, 1):
            if sha in done:
                rows.append(done[sha])
                continue
            if stored:
                continue
            (c,) = cm.check_commits(repo, sha, **opts)
            d = c.to_dict()
            rows.append(d)
            f.write(json.dumps({"key": key, "commit": d}) + "\n")
            f.flush()
            if d["functions"]:
                el = time.monotonic() - t_start
                log(f"[{name} {i}/{len(shas)} {el:.0f}s] {sha[:10]} {d['verdict']}: "
                    f"{d['detail'][:110]}")
    return rows


def table(per_project: dict) -> list:
    """Rows of the printed table: one per project, then overall."""
    out = []
    allrows = []
    for name, rows in list(per_project.items()) + [("overall", None)]:
        rows = rows if rows is not None else allrows
        if name != "overall":
            allrows.extend(rows)
        cl = [classify(r) for r in rows]
        fc = [x for x in cl if x["function_changing"]]
        verdict = [x for x in fc if x["verdict"] in ("changed", "same")]
        changed = [x for x in fc if x["verdict"] == "changed"]
        same = [x for x in fc if x["verdict"] == "same"]
        static = [x for x in same if x.get("static")]
        unreached = [x for x in fc if x.get("why") == "unreached"]
        exc = [x for x in fc if x.get("why") == "exception"]
        skipped = Counter(x["skip"] for x in cl if not x["function_changing"])
        fun = Counter()
        for x in fc:
            fun.update(x.get("function_verdicts", {}))
        secs = sum(r.get("seconds", 0.0) for r in rows)
        dyn = len(fc) - len(static)
        dyn_v = len(verdict) - len(static)
        out.append({
            "project": name, "commits": len(rows), "function_changing": len(fc),
            "verdict": len(verdict), "share": len(verdict) / len(fc) if fc else 0.0,
            "changed": len(changed), "same": len(same), "same_static": len(static),
            "share_without_static": dyn_v / dyn if dyn else 0.0,
            "undecided_unreached": len(unreached), "exceptional": len(exc),
            "skipped": dict(skipped.most_common()), "functions": dict(fun),
            "seconds": secs, "s_per_fc_commit": secs / len(fc) if fc else 0.0})
    return out


def print_table(rows: list, markdown: bool = False, out=None) -> None:
    out = out or sys.stdout
    cols = ["project", "commits", "fn-changing", "verdict", "share", "changed", "same (static)",
            "share w/o static", "unreached", "exceptional", "time", "s/commit"]
    lines = []
    for r in rows:
        lines.append([r["project"], r["commits"], r["function_changing"], r["verdict"],
                      f"{100 * r['share']:.1f}%", r["changed"],
                      f"{r['same']} ({r['same_static']})",
                      f"{100 * r['share_without_static']:.1f}%", r["undecided_unreached"],
                      r["exceptional"], f"{r['seconds'] / 60:.1f} min",
                      f"{r['s_per_fc_commit']:.1f}"])
    if markdown:
        print("| " + " | ".join(cols) + " |", file=out)
        print("|" + "---|" * len(cols), file=out)
        for ln in lines:
            print("| " + " | ".join(str(x) for x in ln) + " |", file=out)
    else:
        w = [max(len(str(c)), *(len(str(ln[i])) for ln in lines)) for i, c in enumerate(cols)]
        print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(cols)), file=out)
        for ln in lines:
            print("  ".join(str(x).ljust(w[i]) for i, x in enumerate(ln)), file=out)
    print(file=out)
    for r in rows:
        sk = ", ".join(f"{k}: {v}" for k, v in r["skipped"].items())
        fn = ", ".join(f"{k}: {v}" for k, v in sorted(r["functions"].items()))
        print(f"{r['project']}: skipped commits -- {sk or 'none'}; functions checked -- "
              f"{fn or 'none'}", file=out)


def samples(per_project: dict) -> list:
    """Every function with a "changed" verdict, for hand-checking."""
    out = []
    for name, rows in per_project.items():
        for c in rows:
            for f in c["functions"]:
                if f["verdict"] == "changed":
                    out.append({"project": name, "commit": c["commit"], "subject": c["subject"],
                                "file": f["file"], "function": f["function"],
                                "detail": f["detail"], "input": f["input"], "old": f["old"],
                                "new": f["new"]})
    return out


def _function_diff(repo: str, commit: str, path: str, qualname: str) -> str:
    """The unified diff of one function between a commit and its parent."""
    import difflib
    from lexecutor_c.apps.funcsource import function_versions

    def text(rev):
        p = subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], capture_output=True)
        return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else ""
    out = []
    for rev in (f"{commit}~1", commit):
        t = text(rev)
        try:
            v = function_versions(t, path).get(qualname)
        except SyntaxError:
            v = None
        out.append(t.splitlines()[v.node.lineno - 1:v.last_line] if v else [])
    return "\n".join(difflib.unified_diff(out[0], out[1], "old", "new", lineterm="", n=2))


def review(per_project: dict, repos: dict, n: int, seed: int, out=None) -> list:
    """A seeded random sample of ``n`` "changed" function verdicts, printed
    with the function's diff and the distinguishing input, for hand-checking."""
    import random
    out = out or sys.stdout
    pool = samples(per_project)
    pick = random.Random(seed).sample(pool, min(n, len(pool)))
    for i, s in enumerate(pick, 1):
        print(f"### {i}. {s['project']} {s['commit'][:10]} {s['subject'][:70]}", file=out)
        print(f"function {s['file']}:{s['function']} -- {s['detail']}", file=out)
        inp = s["input"] or {}
        print(f"input ({inp.get('note')}): call={json.dumps(inp.get('call'))} "
              f"arguments={json.dumps(inp.get('arguments'))}", file=out)
        if inp.get("prefix"):
            print("prefix:\n  " + inp["prefix"].rstrip().replace("\n", "\n  "), file=out)
        print(f"old: {json.dumps(s['old'])[:700]}", file=out)
        print(f"new: {json.dumps(s['new'])[:700]}", file=out)
        print(_function_diff(repos[s["project"]], s["commit"], s["file"], s["function"]),
              file=out)
        print(file=out)
    return pick


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.commits", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", action="append", required=True, metavar="PATH",
                    help="a git repository (repeat for several)")
    ap.add_argument("--range", default="HEAD", metavar="REV",
                    help="revision to walk back from, or a range A..B (default HEAD)")
    ap.add_argument("--max", type=int, default=600, metavar="N",
                    help="commits per repository (default 600)")
    ap.add_argument("--out", default="bench-out/commits", metavar="DIR")
    ap.add_argument("--fresh", action="store_true", help="ignore stored results")
    ap.add_argument("--stored", action="store_true",
                    help="report the stored results only (run nothing; a project still "
                         "being measured shows the commits done so far)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", metavar="FILE", help="write the table as JSON")
    ap.add_argument("--samples", metavar="FILE",
                    help="write the 'changed' verdicts as JSON for hand-checking")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--max-inputs", type=int, default=12)
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--max-functions", type=int, default=20,
                    help="functions checked per commit at most (default 20)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--review", type=int, default=0, metavar="N",
                    help="print a seeded random sample of N 'changed' verdicts with the "
                         "function's diff and the input, for hand-checking")
    ap.add_argument("--review-seed", type=int, default=12)
    a = ap.parse_args(argv)
    opts = {"seeds": list(range(a.seeds)), "max_inputs": a.max_inputs, "budget": a.budget,
            "timeout": a.timeout, "max_functions": a.max_functions}
    per = {}
    t0 = time.monotonic()
    for repo in a.repo:
        name = os.path.basename(os.path.abspath(repo).rstrip("/"))
        per[name] = run_project(repo, a.range, a.max, opts, a.out, a.fresh and not a.stored,
                                log=(lambda *x: None) if a.quiet else
                                (lambda s: print(s, file=sys.stderr, flush=True)),
                                stored=a.stored)
    rows = table(per)
    print(f"commits benchmark: {', '.join(per)}; last {a.max} commits of {a.range}; "
          f"options {json.dumps(opts)}; {time.monotonic() - t0:.0f} s this run")
    print_table(rows, a.markdown)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)
    if a.samples:
        with open(a.samples, "w") as f:
            json.dump(samples(per), f, indent=2)
    if a.review:
        print()
        repos = {os.path.basename(os.path.abspath(r).rstrip("/")): r for r in a.repo}
        review(per, repos, a.review, a.review_seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
