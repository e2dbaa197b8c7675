"""A labelled set of function changes for the commit check, and pairs
labelled by construction.

    python -m benchmarks.labelled_commits build --repo PATH [--repo PATH ...]
        [--max-commits N] [--per-repo N] [--skip SET ...] [--out FILE]
    python -m benchmarks.labelled_commits show FILE [--unlabelled] [--from I] [--n N]
    python -m benchmarks.labelled_commits label FILE --labels TSV
    python -m benchmarks.labelled_commits synth FILE [--out FILE] [--per-function N]
    python -m benchmarks.labelled_commits stats FILE

``build`` walks the non-merge history of each repository
(newest first) and keeps the functions and methods outside test files whose
code (docstrings and annotations aside) an edit modified, with a small diff
(at most ``--max-lines`` changed lines, a function of at most 120 lines, at
most 2 functions of one commit, files that Python 3.11 parses), and none
that a set given with ``--skip`` already holds (the same commit, file and
function: a new development set repeats no item of another).  Each item
keeps the whole file before and after, the qualified name, the repository
and the commit, so the benchmark runs offline.  File texts are stored once,
in ``<FILE stem>.sources.json.xz`` next to the JSON-lines file (keyed by a
SHA-1 of the text).

Labels are given by a person who read the diff: ``changing`` (some call can
behave differently: result, exception, output, what is passed to the
outside world), ``preserving`` (no call can tell the versions apart), or
``unclear``; each with a one-line reason.  ``label`` merges a TSV file of
``id<TAB>label<TAB>reason`` lines into the set; ``show`` prints the diffs to
read.

``synth`` derives pairs labelled by construction from the set's old
versions: semantics-preserving rewrites made with libcst (rename a local,
extract a subexpression into a new local, inline a local used once, idiom
rewrites such as ``not a == b`` -> ``a != b``) and semantics-changing
mutations (an arithmetic or comparison operator, an integer or string
constant, a negated condition, a dropped call statement).  It is seeded and
deterministic: the same input file gives the same pairs.
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import lzma
import os
import random
import subprocess
import sys
from typing import Optional

from lexecutor_c.apps.commits import is_test_path
from lexecutor_c.apps.funcsource import code_dump, function_versions

LABELS = ("changing", "preserving", "unclear")
DEFAULT_SET = os.path.join(os.path.dirname(__file__), "data", "labelled_changes.jsonl")


# ------------------------------------------------------------------ storage

def sources_path(path: str) -> str:
    stem = path[:-len(".jsonl")] if path.endswith(".jsonl") else path
    return stem + ".sources.json.xz"


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def load(path: str, with_sources: bool = True) -> list:
    """The items of a labelled set, each with ``old_source``/``new_source``
    filled in from the sources file (or given inline)."""
    items = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                items.append(json.loads(line))
            except ValueError as e:
                raise ValueError(f"{path}:{n}: not JSON: {e}") from None
    if with_sources and any("old_source" not in it for it in items):
        sp = sources_path(path)
        if not os.path.exists(sp):
            raise FileNotFoundError(f"{sp}: the sources of {path} are missing")
        with lzma.open(sp, "rt", encoding="utf-8") as f:
            texts = json.load(f)
        for it in items:
            if "old_source" not in it:
                it["old_source"] = texts[it["old_key"]]
                it["new_source"] = texts[it["new_key"]]
    return items


def save(path: str, items: list) -> None:
    """Items to ``path`` (JSON lines) and their texts to the sources file."""
    texts = {}
    rows = []
    for it in items:
        it = dict(it)
        for side in ("old", "new"):
            t = it.pop(f"{side}_source", None)
            if t is not None:
                k = text_key(t)
                texts[k] = t
                it[f"{side}_key"] = k
        rows.append(it)
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    if texts:
        old = {}
        sp = sources_path(path)
        if os.path.exists(sp):
            with lzma.open(sp, "rt", encoding="utf-8") as fh:
                old = json.load(fh)
        keep = {r[f"{s}_key"] for r in rows for s in ("old", "new") if f"{s}_key" in r}
        old = {k: v for k, v in old.items() if k in keep}
        old.update(texts)
        with lzma.open(sp, "wt", encoding="utf-8", preset=9) as fh:
            json.dump(old, fh, sort_keys=True)


def function_diff(old_source: str, new_source: str, qualname: str, context: int = 2) -> str:
    def lines(src):
        try:
            v = function_versions(src).get(qualname)
        except SyntaxError:
            v = None
        if not v:
            return []
        # from the first decorator: an edited ``@deprecated(...)`` is part of it
        top = min([v.first_line] + [d.lineno for d in v.node.decorator_list])
        return src.splitlines()[top - 1:v.last_line]
    return "\n".join(difflib.unified_diff(lines(old_source), lines(new_source), "old", "new",
                                          lineterm="", n=context))


# ------------------------------------------------------------------ build

def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, check=True
                          ).stdout.decode("utf-8", "replace")


def _show(repo: str, rev: str, path: str) -> Optional[str]:
    p = subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], capture_output=True)
    if p.returncode != 0:
        return None
    try:
        return p.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _skip_path(path: str) -> bool:
    parts = path.split("/")
    return is_test_path(path) or parts[-1] in ("setup.py", "conf.py", "noxfile.py") or \
        any(p in ("docs", "doc", "misc", "benchmarks", "scripts", "tools", "examples")
            for p in parts[:-1])


def candidates_of_commit(repo: str, name: str, sha: str, max_lines: int = 12,
                         max_per_commit: int = 2) -> list:
    parents = _git(repo, "rev-list", "--parents", "-n", "1", sha).split()[1:]
    if len(parents) != 1:
        return []
    parent = parents[0]
    subject = _git(repo, "log", "-1", "--format=%s", sha).strip()
    out = []
    files = _git(repo, "diff-tree", "-r", "--name-status", "--no-renames", parent, sha
                 ).splitlines()
    for row in files:
        st, _, path = row.partition("\t")
        if st != "M" or not path.endswith(".py") or _skip_path(path):
            continue
        a, b = _show(repo, parent, path), _show(repo, sha, path)
        if a is None or b is None or len(a) > 150_000 or len(b) > 150_000:
            continue
        try:
            va, vb = function_versions(a, path), function_versions(b, path)
        except (SyntaxError, ValueError):
            continue
        mods = []
        for q, v in vb.items():
            w = va.get(q)
            if w is None or "#" in q:
                continue
            if code_dump(w.node) == code_dump(v.node):
                continue
            if v.last_line - v.first_line > 120:
                continue
            d = function_diff(a, b, q, context=0)
            changed = [ln for ln in d.splitlines()[2:] if ln[:1] in "+-"]
            if not changed or len(changed) > max_lines:
                continue
            mods.append((q, d))
        if not mods:
            continue
        for q, _d in mods[:max_per_commit]:
            out.append({"id": f"{name}:{sha[:10]}:{path}:{q}", "source": "real",
                        "repo": name, "commit": sha, "subject": subject, "file": path,
                        "function": q, "label": None, "reason": "",
                        "old_source": a, "new_source": b})
        if len(out) >= max_per_commit:
            break
    return out[:max_per_commit]


def repo_name(repo: str) -> str:
    """owner/name for a mirror at .../owner+name/repo, else the folder's name."""
    p = os.path.abspath(repo).rstrip("/")
    if os.path.basename(p) in ("repo", ".git"):
        p = os.path.dirname(p)
    return os.path.basename(p).replace("+", "/")


def item_place(it: dict) -> tuple:
    """What makes two items the same change: the commit (its first ten
    hex digits, as ids give it), the file and the function."""
    return (str(it.get("commit", ""))[:10], it.get("file"), it.get("function"))


def build(repos: list, max_commits: int, per_repo: int, max_lines: int, log=print,
          skip: frozenset = frozenset()) -> list:
    """Up to ``per_repo`` candidates from each repository's history; none
    whose :func:`item_place` is in ``skip``."""
    items = []
    for repo in repos:
        name = repo_name(repo)
        shas = _git(repo, "rev-list", "--no-merges",
                    f"--max-count={max_commits}", "HEAD").split()
        got = []
        skipped = 0
        for sha in shas:
            for it in candidates_of_commit(repo, name, sha, max_lines):
                if item_place(it) in skip:
                    skipped += 1
                else:
                    got.append(it)
            if len(got) >= per_repo:
                break
        log(f"{name}: {len(got)} candidates from {len(shas)} commits" +
            (f" ({skipped} left out: in a set given with --skip)" if skipped else ""))
        items.extend(got[:per_repo])
    return items


# ------------------------------------------------------------------ labels

def merge_labels(items: list, tsv_lines) -> int:
    by_id = {it["id"]: it for it in items}
    n = 0
    for ln in tsv_lines:
        ln = ln.rstrip("\n")
        if not ln.strip() or ln.startswith("#"):
            continue
        parts = ln.split("\t")
        if len(parts) < 3:
            raise ValueError(f"label line needs id, label, reason: {ln!r}")
        ident, label, reason = parts[0], parts[1], "\t".join(parts[2:])
        if label not in LABELS:
            raise ValueError(f"{ident}: label must be one of {LABELS}, not {label!r}")
        if ident not in by_id:
            raise ValueError(f"{ident}: no such item")
        by_id[ident]["label"], by_id[ident]["reason"] = label, reason.strip()
        n += 1
    return n


# ------------------------------------------------------------------ synth

def _synth(items: list, per_function: int, seed: int, max_functions: int = 0,
           log=None) -> list:
    from benchmarks import synth_rewrites as sr
    out = []
    seen = set()
    # a seeded order, so a cap still draws from every project
    items = sorted(items, key=lambda it: hashlib.sha1(f"{seed}:{it['id']}".encode()).hexdigest())
    for n, it in enumerate(items, 1):
        if max_functions and len(seen) >= max_functions:
            break
        if log and n % 20 == 0:
            log(f"{n}/{len(items)} functions, {len(out)} pairs")
        rng = random.Random(f"{seed}:{it['id']}")
        src, q = it["old_source"], it["function"]
        key = (text_key(src), q)
        if key in seen:
            continue
        seen.add(key)
        for kind, label, family in (("refactoring", "preserving", sr.REFACTORINGS),
                                    ("mutation", "changing", sr.MUTATIONS)):
            made = sr.variants(src, q, family, rng, per_function)
            for op, new in made:
                out.append({"id": f"{kind}:{op}:{it['id']}", "source": kind,
                            "repo": it.get("repo"), "commit": it.get("commit"),
                            "file": it.get("file"), "function": q, "label": label,
                            "reason": f"by construction: {op}", "old_source": src,
                            "new_source": new})
    return out


# ------------------------------------------------------------------ cli

def _stats(items: list) -> str:
    from collections import Counter
    by = Counter((it.get("source", "real"), it.get("repo"), it.get("label")) for it in items)
    lines = []
    for (s, r, lab), n in sorted(by.items(), key=lambda x: tuple(map(str, x[0]))):
        lines.append(f"{s:12} {str(r):32} {str(lab):11} {n}")
    tot = Counter((it.get("source", "real"), it.get("label")) for it in items)
    lines.append("totals: " + ", ".join(f"{s}/{lab}: {n}" for (s, lab), n in
                                         sorted(tot.items(), key=lambda x: tuple(map(str, x[0])))))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.labelled_commits",
                                 description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="extract modified functions from git histories")
    b.add_argument("--repo", action="append", required=True, metavar="PATH")
    b.add_argument("--max-commits", type=int, default=800)
    b.add_argument("--per-repo", type=int, default=45)
    b.add_argument("--max-lines", type=int, default=12)
    b.add_argument("--skip", action="append", default=[], metavar="SET",
                   help="a labelled set whose items are left out (repeatable)")
    b.add_argument("--out", default=DEFAULT_SET)
    s = sub.add_parser("show", help="print the diffs of a set's items")
    s.add_argument("file")
    s.add_argument("--unlabelled", action="store_true")
    s.add_argument("--from", dest="start", type=int, default=0)
    s.add_argument("--n", type=int, default=1000)
    lb = sub.add_parser("label", help="merge id<TAB>label<TAB>reason lines into a set")
    lb.add_argument("file")
    lb.add_argument("--labels", required=True)
    sy = sub.add_parser("synth", help="pairs labelled by construction from a set's functions")
    sy.add_argument("file", nargs="?", default=DEFAULT_SET)
    sy.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data",
                                                  "synth_pairs.jsonl"))
    sy.add_argument("--per-function", type=int, default=1)
    sy.add_argument("--seed", type=int, default=20)
    sy.add_argument("--max-functions", type=int, default=160,
                    help="functions rewritten at most (default 160; 0: all)")
    st = sub.add_parser("stats", help="counts per source, repository and label")
    st.add_argument("file")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "build":
            skip = frozenset(item_place(it) for f in a.skip
                             for it in load(f, with_sources=False))
            items = build(a.repo, a.max_commits, a.per_repo, a.max_lines,
                          log=lambda m: print(m, file=sys.stderr), skip=skip)
            save(a.out, items)
            print(f"{len(items)} items -> {a.out}")
        elif a.cmd == "show":
            items = load(a.file)
            if a.unlabelled:
                items = [it for it in items if not it.get("label")]
            for i, it in enumerate(items[a.start:a.start + a.n], a.start):
                print(f"=== [{i}] {it['id']}  ({it.get('subject', '')[:70]})"
                      f"{'  label=' + it['label'] if it.get('label') else ''}")
                print(function_diff(it["old_source"], it["new_source"], it["function"]))
        elif a.cmd == "label":
            items = load(a.file)
            with open(a.labels, encoding="utf-8") as f:
                n = merge_labels(items, f)
            save(a.file, items)
            print(f"{n} labels merged into {a.file}")
        elif a.cmd == "synth":
            items = [it for it in load(a.file) if it.get("source", "real") == "real"]
            pairs = _synth(items, a.per_function, a.seed, a.max_functions,
                           log=lambda m: print(m, file=sys.stderr, flush=True))
            save(a.out, pairs)
            print(f"{len(pairs)} pairs -> {a.out}")
            print(_stats(pairs))
        elif a.cmd == "stats":
            print(_stats(load(a.file, with_sources=False)))
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"labelled_commits: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
