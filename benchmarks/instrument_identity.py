"""Is the instrumenter's output unchanged?  A fingerprint of every result.

For every .py file of the standard library and of site-packages (the corpus of
tests/test_stdlib_instrument.py, plus every other site-packages directory the
interpreter sees, e.g. the system one behind a venv), instrument the bytes on
disk twice (``elide=True``, the default, and ``elide=False``) and hash a
stable repr of everything the instrumenter returns: the instrumented source,
the iid table, the line table, the line map and the undefined-name uses.  A
file the instrumenter rejects is recorded by its exception (type and
message), so errors must stay identical too.  Files CPython does not compile
are kept: their errors are part of the behaviour.

    python -m benchmarks.instrument_identity --save before.json.gz
    python -m benchmarks.instrument_identity --compare before.json.gz

``--compare`` prints how many files are identical, different, new and missing,
and the first differing files with the part that differs; the exit status is
1 when anything differs.  Meant for refactorings of csrc/ that must not change
the output (issue 15): save before, compare after.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import multiprocessing
import os
import site
import sys
import time
import warnings

import benchmarks as corpus

PARTS = ("source", "iids", "lines", "line_map", "undefined")
VARIANTS = (("elide", True), ("noelide", False))


def files():
    """The corpus: stdlib, then each site-packages directory, sorted, no duplicates."""
    roots = [corpus.SITE_PACKAGES] + [p for p in site.getsitepackages() if p != corpus.SITE_PACKAGES]
    out, seen = list(corpus.stdlib_files()), set()
    for root in roots:
        if not os.path.isdir(root) or os.path.samefile(root, corpus.STDLIB):
            continue
        out.extend(corpus._walk(root, {"__pycache__"}))
    uniq = []
    for p in out:
        real = os.path.realpath(p)
        if real not in seen:
            seen.add(real)
            uniq.append(p)
    return uniq


def _h(obj) -> str:
    return hashlib.sha256(repr(obj).encode("utf-8", "surrogatepass")).hexdigest()[:24]


def fingerprint(src: bytes) -> dict:
    """Per variant: a hash per result part, or the exception raised."""
    import lexecutor_c
    out = {}
    for name, elide in VARIANTS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = lexecutor_c.instrument(src, filename="<identity>", elide=elide)
            except BaseException as e:  # noqa: BLE001 - an error is a result too
                out[name] = {"error": f"{type(e).__name__}: {e}"}
                continue
        out[name] = {
            "source": _h(r.source),
            "iids": _h([tuple(i) for i in r.iids]),
            "lines": _h([tuple(i) for i in r.lines]),
            "line_map": _h(r.line_map),
            "undefined": _h(r.undefined_uses),
        }
    return out


def _one(path):
    try:
        src = corpus.read_bytes(path)
    except OSError as e:
        return path, {"unreadable": str(e)}
    return path, fingerprint(src)


def collect(paths, workers):
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers) as pool:
        return dict(pool.imap_unordered(_one, paths, chunksize=16))


def _diff(a: dict, b: dict) -> str:
    why = []
    for variant in sorted(set(a) | set(b)):
        x, y = a.get(variant), b.get(variant)
        if x == y:
            continue
        if not isinstance(x, dict) or not isinstance(y, dict):
            why.append(f"{variant}: {x!r} -> {y!r}")
            continue
        for part in sorted(set(x) | set(y)):
            if x.get(part) != y.get(part):
                why.append(f"{variant}.{part}: {x.get(part)!r} -> {y.get(part)!r}")
    return "; ".join(why)


def compare(before: dict, after: dict, show: int = 20):
    """(identical, different, missing, new, report lines)."""
    same = diff = 0
    report = []
    for path in sorted(before):
        if path not in after:
            continue
        if before[path] == after[path]:
            same += 1
        else:
            diff += 1
            if len(report) < show:
                report.append(f"  {path}: {_diff(before[path], after[path])}")
    missing = sorted(set(before) - set(after))
    new = sorted(set(after) - set(before))
    return same, diff, missing, new, report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="FILE", help="write the fingerprints (.json.gz)")
    g.add_argument("--compare", metavar="FILE", help="compare with saved fingerprints")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=int, help="only the first N files (a quick try)")
    args = ap.parse_args(argv)

    paths = files()
    if args.limit:
        paths = paths[:args.limit]
    t0 = time.perf_counter()
    got = collect(paths, args.workers)
    secs = time.perf_counter() - t0
    errors = sum(1 for v in got.values()
                 if any(isinstance(r, dict) and "error" in r for r in v.values()))
    import lexecutor_c
    core = getattr(lexecutor_c, "_core", None)
    print(f"{len(got)} files fingerprinted in {secs:.1f}s ({errors} raise in at least one "
          f"variant), extension {getattr(core, '__file__', '?')}")
    if args.save:
        with gzip.open(args.save, "wt", encoding="utf-8") as f:
            json.dump({"files": got}, f, sort_keys=True)
        print(f"saved to {args.save}")
        return 0
    with gzip.open(args.compare, "rt", encoding="utf-8") as f:
        before = json.load(f)["files"]
    same, diff, missing, new, report = compare(before, got)
    print(f"identical: {same}  different: {diff}  missing now: {len(missing)}  "
          f"new now: {len(new)}")
    if report:
        print("first differing files:")
        print("\n".join(report))
    for label, names in (("missing now", missing), ("new now", new)):
        if names:
            print(f"{label} (first 5): " + ", ".join(names[:5]))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
