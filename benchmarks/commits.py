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

Labelled mode: ``--labelled FILE`` (repeatable) scores the commit check's
engine (:func:`lexecutor_c.apps.compare.compare_sources`) on function
changes with a known answer (``benchmarks/data/labelled_changes.jsonl``,
labelled by reading each diff; ``benchmarks/data/synth_pairs.jsonl``,
refactorings and mutations labelled by construction; see
``benchmarks.labelled_commits``).  Printed per source (real / refactoring /
mutation): the verdicts on changing and on preserving edits, precision and
recall of "changed", the share of "same" verdicts that are on changing
edits (wrong-same), the unreached share, the share of "changed" verdicts,
the precision of the "changed" verdicts shown on concrete values (or by
the signature) -- not only through injected values -- with their number,
and the median and mean seconds per function.  ``--limit N`` runs at most
N items per source (a seeded sample, so a short run still mixes projects
and labels).  Results are kept per item in ``--out`` (resumable).

    python -m benchmarks.commits --labelled benchmarks/data/labelled_changes.jsonl \
        --labelled benchmarks/data/synth_pairs.jsonl [--limit N] [--markdown]

With ``--checkouts DIR`` the labelled items whose repository has a git
checkout ``DIR/NAME`` are checked as ``lexecutor-c commits`` checks them
in a repository (:func:`lexecutor_c.apps.commits.check_commits` on the
item's commit: each version inside its module with the rest of its
package, the project's tests as inputs, the CLI's defaults) instead of
from the two file texts alone (where a module that imports its package's
other modules runs its function extracted, those imports made up).

    python -m benchmarks.commits --labelled benchmarks/data/labelled_dev2.jsonl \
        --checkouts /work/data/commits6
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
from typing import Optional

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


def _cached_rows(path: str, key: str) -> list:
    """The rows of a results file (JSON lines) kept under options key ``key``; a torn or
    foreign line is passed over."""
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if isinstance(row, dict) and row.get("key") == key:
                    rows.append(row)
    return rows


def run_project(repo: str, rev: str, n: int, opts: dict, out_dir: str, fresh: bool,
                log=print, stored: bool = False) -> list:
    name = os.path.basename(os.path.abspath(repo).rstrip("/"))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name}.jsonl")
    key = _key(opts)
    if fresh and os.path.exists(path):
        os.remove(path)
    done = {row["commit"]["commit"]: row["commit"] for row in _cached_rows(path, key)}
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
            try:
                (c,) = cm.check_commits(repo, sha, **opts)
            except cm.GitError as e:
                # a commit git cannot read (an object missing from a partial
                # clone) is skipped and said so; the history goes on
                c = cm.CommitCheck(commit=sha, subject="", verdict=cm.SKIPPED,
                                   detail=f"cannot read the commit: {e}")
            d = c.to_dict()
            rows.append(d)
            f.write(json.dumps({"key": key, "commit": d}) + "\n")
            f.flush()
            if d["functions"]:
                el = time.monotonic() - t_start
                log(f"[{name} {i}/{len(shas)} {el:.0f}s] {sha[:10]} {d['verdict']}: "
                    f"{d['detail'][:110]}")
    return rows


def _median(xs: list) -> float:
    import statistics
    return statistics.median(xs) if xs else 0.0


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
        fsecs = [f.get("seconds", 0.0) for r in rows for f in r.get("functions", ())
                 if f.get("status") == "modified"]
        dyn = len(fc) - len(static)
        dyn_v = len(verdict) - len(static)
        out.append({
            "project": name, "commits": len(rows), "function_changing": len(fc),
            "verdict": len(verdict), "share": len(verdict) / len(fc) if fc else 0.0,
            "changed": len(changed), "same": len(same), "same_static": len(static),
            "share_without_static": dyn_v / dyn if dyn else 0.0,
            "undecided_unreached": len(unreached), "exceptional": len(exc),
            "skipped": dict(skipped.most_common()), "functions": dict(fun),
            "undecided_functions": fun.get("undecided", 0) + fun.get("exception", 0),
            "median_s_per_function": _median(fsecs),
            "seconds": secs, "s_per_fc_commit": secs / len(fc) if fc else 0.0})
    return out


def print_table(rows: list, markdown: bool = False, out=None) -> None:
    out = out or sys.stdout
    cols = ["project", "commits", "fn-changing", "verdict", "share", "changed", "same (static)",
            "share w/o static", "unreached", "exceptional", "undecided fns", "time",
            "s/commit", "median s/fn"]
    lines = []
    for r in rows:
        lines.append([r["project"], r["commits"], r["function_changing"], r["verdict"],
                      f"{100 * r['share']:.1f}%", r["changed"],
                      f"{r['same']} ({r['same_static']})",
                      f"{100 * r['share_without_static']:.1f}%", r["undecided_unreached"],
                      r["exceptional"], r.get("undecided_functions", 0),
                      f"{r['seconds'] / 60:.1f} min", f"{r['s_per_fc_commit']:.1f}",
                      f"{r.get('median_s_per_function', 0.0):.1f}"])
    _table(cols, lines, markdown, out)
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


# ------------------------------------------------------------------ labelled mode

SOURCES = ("real", "dev2", "dev3", "heldout", "refactoring", "mutation")
VERDICTS = ("changed", "same", "unreached", "undecided", "error")


def _engine(item: dict, opts: dict) -> dict:
    """One item through compare_sources: its verdict, seconds and evidence."""
    from lexecutor_c.apps.compare import compare_sources
    t0 = time.monotonic()
    try:
        c = compare_sources(item["old_source"], item["new_source"], item["function"],
                            ignore_messages=opts.get("ignore_messages", False),
                            max_inputs=opts.get("max_inputs"), timeout=opts.get("timeout"),
                            seed=opts.get("seed", 0), points=opts.get("points", "gate"))
        d = c.to_dict()
        d["seconds"] = c.seconds or round(time.monotonic() - t0, 3)
    except Exception as e:          # a crash of the engine is a result, not the end
        d = {"verdict": "error", "detail": f"{type(e).__name__}: {e}"[:300],
             "seconds": round(time.monotonic() - t0, 3), "evidence": {}}
    if d.get("verdict") not in VERDICTS:
        d["detail"] = f"unknown verdict {d.get('verdict')!r}: {d.get('detail', '')}"
        d["verdict"] = "error"
    ev = d.get("evidence") or {}
    return {"verdict": d["verdict"], "seconds": d.get("seconds", 0.0),
            "detail": str(d.get("detail", ""))[:300],
            "inputs": ev.get("inputs"), "agreeing_inputs": ev.get("agreeing_inputs"),
            "mutants": ev.get("mutants"),
            "input_note": (ev.get("distinguishing_input") or {}).get("note"),
            # a "changed" on concrete values, or only through injected ones
            "strength": ev.get("strength")}


def checkout_of(item: dict, root: str) -> Optional[str]:
    """The checkout of an item's repository under ``root`` (``root/NAME``
    for ``owner/NAME`` or ``NAME``), if there is one."""
    name = str(item.get("repo") or "").rpartition("/")[2]
    path = os.path.join(root, name) if name else ""
    return path if path and os.path.isdir(os.path.join(path, ".git")) else None


def repo_engine(root: str, items: Optional[list] = None):
    """An engine for :func:`run_labelled` that checks each item the way
    ``lexecutor-c commits`` does in its repository (a checkout under
    ``root``, see :func:`checkout_of`): both versions run inside their
    module, loaded from a checkout of each revision with the rest of the
    package, and calls in the project's tests are inputs.  One commit is
    checked once for all its items (``items``: every item to be run, so
    that only their functions are checked; else all the commit touches).
    Items without a checkout, or whose function the commit check did not
    list, are "error" (one it answered without running -- only docstrings
    changed, a definition this Python never makes -- has that answer)."""
    from lexecutor_c.apps.commits import GitError, check_commits
    from lexecutor_c.apps.compare import from_check
    done: dict = {}
    wanted: dict = {}
    for it in items or []:
        wanted.setdefault(it.get("commit"), set()).add((it.get("file"), it.get("function")))

    def engine(item: dict, opts: dict) -> dict:
        repo = checkout_of(item, root)
        t0 = time.monotonic()
        if repo is None:
            return {"verdict": "error", "seconds": 0.0,
                    "detail": f"no checkout of {item.get('repo')} under {root}"}
        key = (repo, item["commit"])
        if key not in done:
            try:
                kw = {"max_inputs": opts["max_inputs"]} if opts.get("max_inputs") else {}
                if opts.get("timeout"):
                    kw["timeout"] = opts["timeout"]
                # the CLI's defaults (two seeds, 24 inputs per function)
                done[key] = check_commits(repo, f"{item['commit']}^..{item['commit']}",
                                          compare_messages=not opts.get("ignore_messages"),
                                          points=opts.get("points", "gate"),
                                          only=wanted.get(item["commit"]), **kw)
            except (GitError, OSError) as e:
                done[key] = e
        got = done[key]
        if isinstance(got, Exception):
            return {"verdict": "error", "seconds": round(time.monotonic() - t0, 3),
                    "detail": f"{type(got).__name__}: {got}"[:300]}
        fcs = [f for c in got for f in c.functions
               if f.file == item.get("file") and f.function == item["function"]]
        if not fcs or fcs[0].status not in ("modified", "static"):
            return {"verdict": "error", "seconds": round(time.monotonic() - t0, 3),
                    "detail": "the commit check did not check this function"}
        fc = fcs[0]
        d = from_check(fc).to_dict()
        ev = d.get("evidence") or {}
        return {"verdict": d["verdict"], "seconds": fc.seconds,
                "detail": str(d.get("detail", ""))[:300], "mode": fc.mode,
                "inputs": ev.get("inputs"), "agreeing_inputs": ev.get("agreeing_inputs"),
                "mutants": ev.get("mutants"),
                "input_note": (ev.get("distinguishing_input") or {}).get("note"),
                "strength": ev.get("strength")}
    return engine


def pick(items: list, limit: Optional[int], seed: int = 0) -> list:
    """At most ``limit`` items per source, a seeded sample in a stable order."""
    import random
    if not limit:
        return list(items)
    out = []
    for src in sorted({it.get("source", "real") for it in items}):
        group = [it for it in items if it.get("source", "real") == src]
        chosen = set(random.Random(f"{seed}:{src}").sample(range(len(group)),
                                                           min(limit, len(group))))
        out.extend(it for i, it in enumerate(group) if i in chosen)
    return out


def run_labelled(items: list, opts: dict, cache: str, fresh: bool = False, stored: bool = False,
                 log=print, engine=None) -> list:
    """Each item's result (its id, source, label and the engine's answer),
    kept in the JSON-lines file ``cache`` keyed by item and options."""
    engine = engine or _engine
    key = _key(opts)
    d = os.path.dirname(cache)
    if d:
        os.makedirs(d, exist_ok=True)
    if fresh and os.path.exists(cache):
        os.remove(cache)
    done = {row["id"]: row for row in _cached_rows(cache, key)}
    rows = []
    t0 = time.monotonic()
    with open(cache, "a") as f:
        for i, it in enumerate(items, 1):
            if it["id"] in done:
                rows.append(done[it["id"]])
                continue
            if stored:
                continue
            r = engine(it, opts)
            row = {"key": key, "id": it["id"], "source": it.get("source", "real"),
                   "label": it.get("label"), "repo": it.get("repo"), **r}
            rows.append(row)
            f.write(json.dumps(row) + "\n")
            f.flush()
            log(f"[{i}/{len(items)} {time.monotonic() - t0:.0f}s] {row['source']} "
                f"{row['label']} -> {row['verdict']} ({row['seconds']:.1f}s) {it['id'][:80]}")
    return rows


def _ratio(a: int, b: int) -> Optional[float]:
    return a / b if b else None


def score(rows: list) -> list:
    """Per source, then overall: counts per label and verdict, precision and
    recall of "changed", wrong-same rate, unreached share, seconds."""
    out = []
    groups = [(s, [r for r in rows if r.get("source", "real") == s]) for s in SOURCES]
    groups += [(s, [r for r in rows if r.get("source") == s]) for s in
               sorted({r.get("source") for r in rows} - set(SOURCES) - {None})]
    for name, rs in groups:
        if not rs:
            continue
        counts = {lab: {v: 0 for v in VERDICTS} for lab in ("changing", "preserving", "unclear")}
        for r in rs:
            lab = r.get("label") if r.get("label") in counts else "unclear"
            counts[lab][r["verdict"] if r["verdict"] in VERDICTS else "error"] += 1
        ch, pr = counts["changing"], counts["preserving"]
        n_ch, n_pr = sum(ch.values()), sum(pr.values())
        labelled = n_ch + n_pr
        tp, fp = ch["changed"], pr["changed"]
        # "changed" shown on concrete values (or by the signature), not only
        # through injected ones: the confident answers
        firm = [r for r in rs if r["verdict"] == "changed" and r.get("strength") != "injected"]
        tp_f = sum(1 for r in firm if r.get("label") == "changing")
        fp_f = sum(1 for r in firm if r.get("label") == "preserving")
        same = ch["same"] + pr["same"]
        secs = [r.get("seconds", 0.0) for r in rs]
        out.append({
            "source": name, "items": len(rs), "changing": n_ch, "preserving": n_pr,
            "unclear": sum(counts["unclear"].values()), "counts": counts,
            "precision": _ratio(tp, tp + fp), "recall": _ratio(tp, n_ch),
            "precision_firm": _ratio(tp_f, tp_f + fp_f), "firm": tp_f + fp_f,
            "wrong_same": _ratio(ch["same"], same), "same": same,
            "unreached": _ratio(ch["unreached"] + pr["unreached"], labelled),
            "changed_share": _ratio(tp + fp, labelled),
            "changed_on_preserving": _ratio(fp, n_pr),
            "median_s": _median(secs), "mean_s": sum(secs) / len(secs) if secs else 0.0})
    return out


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _table(cols: list, lines: list, markdown: bool, out) -> None:
    """A table of ``lines`` under ``cols``: Markdown, or columns padded to their widest cell;
    then a blank line."""
    if markdown:
        print("| " + " | ".join(cols) + " |", file=out)
        print("|" + "---|" * len(cols), file=out)
        for ln in lines:
            print("| " + " | ".join(str(x) for x in ln) + " |", file=out)
    else:
        w = [max(len(str(c)), *(len(str(ln[i])) for ln in lines)) if lines else len(str(c))
             for i, c in enumerate(cols)]
        print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(cols)), file=out)
        for ln in lines:
            print("  ".join(str(x).ljust(w[i]) for i, x in enumerate(ln)), file=out)
    print(file=out)


def print_scores(scores: list, markdown: bool = False, out=None) -> None:
    out = out or sys.stdout

    def emit(cols, lines):
        _table(cols, lines, markdown, out)
    cols = ["source", "label", "items"] + list(VERDICTS)
    lines = []
    for sc in scores:
        for lab in ("changing", "preserving", "unclear"):
            c = sc["counts"][lab]
            if sum(c.values()):
                lines.append([sc["source"], lab, sum(c.values())] + [c[v] for v in VERDICTS])
    emit(cols, lines)
    cols = ["source", "items", "precision", "recall", "wrong-same (of same)", "unreached",
            "changed", "changed on preserving", "precision (concrete)", "median s", "mean s"]
    lines = [[sc["source"], sc["items"], _pct(sc["precision"]), _pct(sc["recall"]),
              f"{_pct(sc['wrong_same'])} ({sc['counts']['changing']['same']}/{sc['same']})",
              _pct(sc["unreached"]), _pct(sc["changed_share"]),
              _pct(sc["changed_on_preserving"]),
              f"{_pct(sc['precision_firm'])} ({sc['firm']})", f"{sc['median_s']:.1f}",
              f"{sc['mean_s']:.1f}"] for sc in scores]
    emit(cols, lines)


def main_labelled(a) -> int:
    from benchmarks.labelled_commits import load
    items = []
    try:
        for path in a.labelled:
            items.extend(load(path))
    except (OSError, ValueError, KeyError) as e:
        print(f"benchmarks.commits: {e}", file=sys.stderr)
        return 2
    items = [it for it in items if it.get("label")]
    items = pick(items, a.limit, a.sample_seed)
    opts = {"engine": "compare_sources", "max_inputs": a.max_inputs, "timeout": a.timeout,
            "seed": 0, "ignore_messages": a.ignore_messages, "points": a.points}
    engine = None
    if a.checkouts:
        # in each item's repository, as ``lexecutor-c commits`` runs
        items = [it for it in items if checkout_of(it, a.checkouts)]
        if not items:
            print(f"benchmarks.commits: no item has a checkout under {a.checkouts}",
                  file=sys.stderr)
            return 2
        opts["engine"] = "check_commits"
        engine = repo_engine(a.checkouts, items)
    cache = os.path.join(a.out, "labelled.jsonl")
    t0 = time.monotonic()
    rows = run_labelled(items, opts, cache, a.fresh and not a.stored, a.stored,
                        log=(lambda *x: None) if a.quiet else
                        (lambda m: print(m, file=sys.stderr, flush=True)), engine=engine)
    scores = score(rows)
    print(f"labelled commit-check benchmark: {', '.join(a.labelled)}; "
          f"{len(rows)} of {len(items)} items; options {json.dumps(opts)}; "
          f"{time.monotonic() - t0:.0f} s this run")
    print_scores(scores, a.markdown)
    if a.misses:
        print_misses(items, rows)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"scores": scores, "rows": rows}, f, indent=2)
    return 0


def print_misses(items: list, rows: list, out=None) -> None:
    """The wrong answers with the label's reason: changing edits without a
    "changed" verdict, and "changed" verdicts on preserving edits."""
    out = out or sys.stdout
    why = {it["id"]: it.get("reason", "") for it in items}
    for title, cond in (("changing edits not found", lambda r: r["label"] == "changing" and
                         r["verdict"] != "changed"),
                        ("'changed' on preserving edits", lambda r: r["label"] == "preserving"
                         and r["verdict"] == "changed")):
        bad = [r for r in rows if cond(r)]
        print(f"{title}: {len(bad)}", file=out)
        for r in bad:
            print(f"  [{r['source']}] {r['verdict']:9} {r['id']}", file=out)
            print(f"      label: {why.get(r['id'], '')}", file=out)
            if r.get("detail"):
                print(f"      engine: {r['detail'][:160]}", file=out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.commits", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", action="append", metavar="PATH",
                    help="a git repository (repeat for several)")
    ap.add_argument("--labelled", action="append", metavar="FILE",
                    help="score a labelled set (JSON lines, see benchmarks.labelled_commits; "
                         "repeat for several) instead of walking histories")
    ap.add_argument("--checkouts", metavar="DIR", default=None,
                    help="with --labelled: check each item in its repository, a git "
                         "checkout DIR/NAME (NAME: the repository's name), as "
                         "`lexecutor-c commits` does (items without one are left out)")
    ap.add_argument("--limit", type=int, default=0, metavar="N",
                    help="labelled mode: at most N items per source (a seeded sample)")
    ap.add_argument("--sample-seed", type=int, default=0)
    ap.add_argument("--misses", action="store_true",
                    help="labelled mode: list the changing edits not found and the "
                         "'changed' verdicts on preserving edits, with the labels' reasons")
    ap.add_argument("--ignore-messages", action="store_true",
                    help="labelled mode: a reworded exception message is not a change")
    ap.add_argument("--points", choices=("gate", "change", "off"), default="gate",
                    help="the values where the changed lines are left: a difference keeps "
                         "'same' back (gate, the default), is a change, or is not compared")
    ap.add_argument("--range", default="HEAD", metavar="REV",
                    help="revision to walk back from, or a range A..B (default HEAD)")
    ap.add_argument("--max", type=int, default=600, metavar="N",
                    help="commits per repository (default 600)")
    ap.add_argument("--out", default=None, metavar="DIR",
                    help="stored results (default bench-out/commits, or "
                         "bench-out/commits-labelled in labelled mode)")
    ap.add_argument("--fresh", action="store_true", help="ignore stored results")
    ap.add_argument("--stored", action="store_true",
                    help="report the stored results only (run nothing; a project still "
                         "being measured shows the commits done so far)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", metavar="FILE", help="write the table as JSON")
    ap.add_argument("--samples", metavar="FILE",
                    help="write the 'changed' verdicts as JSON for hand-checking")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--max-inputs", type=int, default=None,
                    help="inputs per function (default 12; labelled mode: the engine's)")
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per run (default 5; labelled mode: the engine's)")
    ap.add_argument("--max-functions", type=int, default=20,
                    help="functions checked per commit at most (default 20)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--review", type=int, default=0, metavar="N",
                    help="print a seeded random sample of N 'changed' verdicts with the "
                         "function's diff and the input, for hand-checking")
    ap.add_argument("--review-seed", type=int, default=12)
    a = ap.parse_args(argv)
    if not a.repo and not a.labelled:
        ap.error("give --repo PATH (histories) or --labelled FILE")
    if a.labelled:
        if a.repo:
            ap.error("--repo and --labelled are separate modes")
        a.out = a.out or "bench-out/commits-labelled"
        return main_labelled(a)
    a.out = a.out or "bench-out/commits"
    a.max_inputs = 12 if a.max_inputs is None else a.max_inputs
    a.timeout = 5.0 if a.timeout is None else a.timeout
    opts = {"seeds": list(range(a.seeds)), "max_inputs": a.max_inputs, "budget": a.budget,
            "timeout": a.timeout, "max_functions": a.max_functions, "points": a.points}
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
