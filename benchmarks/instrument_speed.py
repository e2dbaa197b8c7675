"""How fast is the instrumenter?  Lines per second over the standard library.

Three ways to process every stdlib .py file that CPython compiles, each file
given as the bytes on disk, in one process, compile() excluded from all
(instrument() and ast.parse alternate file by file, so load on a shared
machine hits both alike; --repeat keeps the best pass):

  instrument()   lexecutor_c.instrument (tree-sitter parse + rewrite + iid table)
  ast.parse      CPython's own parser building the ast (the bar to meet)
  LibCST         benchmarks/libcst_transform.py, the same rewrite written with
                 LibCST as the LExecutor paper's instrumenter is (the paper
                 reports 4.5 s per 1,000 lines).  LibCST is slow, so it runs on a
                 fixed random sample of files (--sample, a fraction of the lines)
                 and its rate is extrapolated; the table says so.

Targets: instrument() no slower than ast.parse, and at least 200x LibCST.

    python -m benchmarks.instrument_speed [--sample 0.02] [--json FILE] [--repeat N]
"""
import argparse
import gc
import json
import os
import platform
import sys
import time

import benchmarks as corpus

TARGET_VS_AST = 1.0
TARGET_VS_LIBCST = 200.0
PAPER_LIBCST_S_PER_KLOC = 4.5  # LExecutor (FSE'23), its LibCST-based instrumenter


def _time_all(fns, files, repeat):
    """Time each of *fns* on every file, interleaved file by file, so that a
    shared machine's changing load hits all of them alike.  Per function: the
    best total over *repeat* passes and the files on which it raised."""
    clock = time.perf_counter
    best = [None] * len(fns)
    failed = [[] for _ in fns]
    for r in range(repeat):
        gc.collect()
        totals = [0.0] * len(fns)
        failed = [[] for _ in fns]
        for f in files:
            for i, fn in enumerate(fns):
                t0 = clock()
                try:
                    fn(f.source, f.path)
                except Exception as e:  # noqa: BLE001 - reported, never hidden
                    failed[i].append((f.path, f"{type(e).__name__}: {e}"))
                totals[i] += clock() - t0
        best = [t if b is None else min(b, t) for b, t in zip(best, totals)]
    return list(zip(best, failed))


def _sample_by_lines(files, fraction, seed):
    """A fixed random sample of files holding about *fraction* of all lines."""
    import random
    total = sum(f.lines for f in files)
    order = list(range(len(files)))
    random.Random(seed).shuffle(order)
    chosen, lines = [], 0
    for i in order:
        if lines >= fraction * total:
            break
        chosen.append(i)
        lines += files[i].lines
    return [files[i] for i in sorted(chosen)]


def measure(files, sample_fraction, repeat, seed=0, progress=print):
    import ast
    from benchmarks import libcst_transform

    total_lines = sum(f.lines for f in files)
    rows = []

    def row(name, secs, lines, nfiles, failed, note=""):
        rate = lines / secs if secs else float("inf")
        rows.append({"name": name, "files": nfiles, "lines": lines, "seconds": secs,
                     "lines_per_s": rate, "failures": len(failed), "failed": failed[:20],
                     "note": note})

    progress(f"instrument() and ast.parse, interleaved: {len(files)} files, {total_lines} lines")
    (secs_i, failed_i), (secs_a, failed_a) = _time_all(
        [lambda s, p: corpus.instrument(s, filename=p), lambda s, p: ast.parse(s, p)], files, repeat)
    row("instrument()", secs_i, total_lines, len(files), failed_i)
    row("ast.parse", secs_a, total_lines, len(files), failed_a)

    some = _sample_by_lines(files, sample_fraction, seed)
    some_lines = sum(f.lines for f in some)
    progress(f"LibCST: {len(some)} files, {some_lines} lines ({some_lines / total_lines:.1%})")
    # instrument() runs on the sample too, interleaved, for a ratio on the same files
    (secs_si, _), (secs, failed) = _time_all(
        [lambda s, p: corpus.instrument(s, filename=p), libcst_transform.instrument], some, 1)
    row("LibCST transform", secs, some_lines, len(some), failed,
        note=f"sample of {some_lines / total_lines:.1%} of the lines (seed {seed}); "
             f"all lines would take {total_lines / (some_lines / secs):.0f} s; "
             f"instrument() on the same files, interleaved: {some_lines / secs_si:,.0f} lines/s")

    by = {r["name"]: r["lines_per_s"] for r in rows}
    ratios = {
        "instrument/ast.parse": by["instrument()"] / by["ast.parse"],
        "instrument/LibCST": secs / secs_si,  # same files, same moments
    }
    paper_rate = 1000 / PAPER_LIBCST_S_PER_KLOC
    return {
        "instrumenter": corpus.instrumenter_name(),
        "python": sys.version.split()[0],
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "cpu_count": os.cpu_count(),
        "repeat": repeat,
        "rows": rows,
        "ratios": ratios,
        "targets": {"instrument/ast.parse": TARGET_VS_AST, "instrument/LibCST": TARGET_VS_LIBCST},
        "libcst_seconds_per_kloc": 1000 / by["LibCST transform"],
        "instrument_vs_paper_libcst": by["instrument()"] / paper_rate,
    }


def render(result):
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Instrumentation speed, stdlib .py files CPython compiles "
                        f"(Python {result['python']}, {result['instrumenter']})")
    for col, just in (("", "left"), ("files", "right"), ("lines", "right"),
                      ("seconds", "right"), ("lines/s", "right"), ("failures", "right")):
        table.add_column(col, justify=just)
    for r in result["rows"]:
        table.add_row(r["name"] + (" *" if r["note"] else ""), f"{r['files']:,}", f"{r['lines']:,}",
                      f"{r['seconds']:.2f}", f"{r['lines_per_s']:,.0f}", str(r["failures"]))
    console = Console()
    console.print(table)
    for r in result["rows"]:
        if r["note"]:
            console.print(f"* {r['name']}: {r['note']}")
        for path, why in r["failed"][:5]:
            console.print(f"  {r['name']} failed on {corpus.relpath(path)}: {why[:200]}")
    console.print(f"LibCST: {result['libcst_seconds_per_kloc']:.2f} s per 1,000 lines here; "
                  f"the LExecutor paper reports {PAPER_LIBCST_S_PER_KLOC}, against which "
                  f"instrument() is {result['instrument_vs_paper_libcst']:,.0f}x faster")
    for name, value in result["ratios"].items():
        target = result["targets"][name]
        verdict = "[green]meets[/green]" if value >= target else "[red]misses[/red]"
        console.print(f"{name}: {value:,.2f}x  (target >= {target:g}x: {verdict})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", type=float, default=0.02,
                    help="fraction of the lines LibCST runs on (default 0.02)")
    ap.add_argument("--files", type=float, default=1.0,
                    help="fraction of the stdlib files to use at all (default 1: all)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="passes of instrument() and ast.parse; the best counts")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)

    paths = corpus.stdlib_files()
    if args.files < 1:
        paths = corpus.sample(paths, fraction=args.files)
    files = corpus.load_corpus(paths)
    result = measure(files, args.sample, args.repeat, progress=lambda m: print(m, file=sys.stderr))
    render(result)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    missed = [n for n, v in result["ratios"].items() if v < result["targets"][n]]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
