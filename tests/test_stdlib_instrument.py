"""Instrument real code and compile the result.

Every .py file of the installed standard library and of site-packages that
CPython itself compiles must instrument without error, the instrumented text
must compile, and the code object of ``Instrumented.compile()`` must carry the
original file's line numbers.  Failures are listed with the file, the error
and the lines around it (original and instrumented).

    python -m pytest tests/test_stdlib_instrument.py -m slow      # everything
    python -m pytest tests/test_stdlib_instrument.py -m "not slow"  # 50 files
    python tests/test_stdlib_instrument.py [--site-packages] [--sample F]
"""
from __future__ import annotations

import argparse
import ast
import multiprocessing
import os
import sys
import time
import traceback
import warnings

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchmarks as corpus  # noqa: E402

WORKERS = 2
FAST_SAMPLE = 50
CONTEXT = 3  # lines either side in failure reports


# -- checking one file ---------------------------------------------------------

def _code_lines(code):
    """Line numbers that carry instructions, over a code object and its children."""
    lines, todo = set(), [code]
    while todo:
        co = todo.pop()
        lines.update(ln for _, _, ln in co.co_lines() if ln is not None)
        todo.extend(c for c in co.co_consts if hasattr(c, "co_lines"))
    return lines


def _excerpt(text, line, label):
    rows = text.splitlines()
    lo, hi = max(1, line - CONTEXT), min(len(rows), line + CONTEXT)
    out = [f"    --- {label}, lines {lo}-{hi}"]
    for n in range(lo, hi + 1):
        out.append(f"    {'>' if n == line else ' '}{n:5d}| {rows[n - 1][:160]}")
    return "\n".join(out)


def check_source(src, path):
    """None when *src* passes, else a failure report (str).

    A source CPython does not compile is no test: returns the string "skip".
    """
    if not corpus.cpython_compiles(src, path):
        return "skip"
    original = corpus.decode(src) if isinstance(src, bytes) else src
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = corpus.instrument(src, filename=path)
        except BaseException as e:  # noqa: BLE001 - every error is a finding here
            return f"instrument() raised {type(e).__name__}: {e}\n" + _where(e, original, None)
        text = res.source
        try:
            tree = ast.parse(text, path)
            plain = compile(tree, path, "exec", dont_inherit=True)
        except BaseException as e:  # noqa: BLE001
            return f"instrumented source does not compile: {type(e).__name__}: {e}\n" + _where(e, original, res)
        try:
            code = corpus.compile_instrumented(res, path)
        except BaseException as e:  # noqa: BLE001
            return f"Instrumented.compile() raised {type(e).__name__}: {e}\n" + traceback.format_exc(limit=-3)
    return _check_lines(res, tree, plain, code, original)


LOADER_CALLS = frozenset({"_n_", "_a_", "_c_", "_i_"})


def _check_lines(res, tree, plain, code, original):
    """Line numbers: Instrumented.compile() against line_map, loader calls against the iid table."""
    # CPython counts \r\n and a lone \r as line breaks too
    n_orig = corpus.count_lines(original.replace("\r\n", "\n").replace("\r", "\n"))
    lm = getattr(res, "line_map", None)

    def orig(line):
        return lm[line - 1] if lm and 1 <= line <= len(lm) else line

    got = _code_lines(code)
    outside = sorted(ln for ln in got if not 0 <= ln <= max(n_orig, 1))  # 0: RESUME
    if outside:
        return (f"Instrumented.compile() has line numbers outside the file (1..{n_orig}): "
                f"{outside[:10]}")
    mapped = {orig(ln) if ln else 0 for ln in _code_lines(plain)}
    if mapped != got:
        return (f"Instrumented.compile() disagrees with line_map: lines only in compile() "
                f"{sorted(got - mapped)[:10]}, only in the mapped source {sorted(mapped - got)[:10]}")
    records = {r.iid: r for r in (getattr(res, "iids", None) or ())}
    if not records:
        return None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in LOADER_CALLS and node.args
                and isinstance(node.args[0], ast.Constant) and type(node.args[0].value) is int):
            continue
        iid, line = node.args[0].value, orig(node.lineno)
        rec = records.get(iid)
        if rec is None:
            return f"{node.func.id}({iid}, ...) at line {line} has no iid record"
        if not rec.line <= line <= rec.end_line:
            return (f"{node.func.id}({iid}, ...) for {rec.kind} {rec.name!r} is at original line "
                    f"{line}, its record says lines {rec.line}-{rec.end_line}\n"
                    + _excerpt(original, rec.line, "original")
                    + "\n" + _excerpt(res.source, node.lineno, "instrumented"))
    return None


def _where(exc, original, res):
    """Excerpts around a SyntaxError: the instrumented text and the original."""
    line = getattr(exc, "lineno", None)
    if not isinstance(exc, SyntaxError) or not line:
        return "".join(traceback.format_exception(exc, limit=-3))
    parts = []
    if res is not None:
        parts.append(_excerpt(res.source, line, "instrumented"))
        lm = getattr(res, "line_map", None)
        if lm and 0 < line <= len(lm):
            line = lm[line - 1]
    parts.append(_excerpt(original, line, "original"))
    return "\n".join(parts)


def check_path(path):
    try:
        src = corpus.read_bytes(path)
    except OSError as e:
        return path, 0, f"unreadable: {e}"
    return path, corpus.count_lines(src), check_source(src, path)


# -- running over many files -----------------------------------------------------

def run_check(paths, workers=WORKERS, progress=False):
    """Check *paths* in *workers* processes; (files, lines, failures, seconds)."""
    t0 = time.perf_counter()
    failures, files, lines = [], 0, 0
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(workers) as pool:
        results = pool.imap_unordered(check_path, paths, chunksize=8)
        if progress:
            try:
                from tqdm import tqdm
                results = tqdm(results, total=len(paths), unit="file", mininterval=2)
            except ImportError:
                pass
        for path, n, verdict in results:
            if verdict == "skip":
                continue
            files += 1
            lines += n
            if verdict is not None:
                failures.append((path, verdict))
    failures.sort()
    return files, lines, failures, time.perf_counter() - t0


def format_failures(failures, limit=50):
    out = []
    for path, why in failures[:limit]:
        out.append(f"{corpus.relpath(path)}: {why}")
    if len(failures) > limit:
        out.append(f"... and {len(failures) - limit} more")
    return "\n".join(out)


def _assert_clean(name, paths):
    files, lines, failures, secs = run_check(paths)
    print(f"\n{name}: {files} files, {lines} lines checked in {secs:.1f}s "
          f"with {corpus.instrumenter_name()}; {len(failures)} failures")
    if failures:
        print(format_failures(failures, limit=len(failures)))
    assert files > 0, f"{name}: no file to check"
    assert not failures, f"{len(failures)} of {files} files fail:\n" + format_failures(failures)


# -- the tests -------------------------------------------------------------------

def fast_sample():
    return corpus.sample(corpus.stdlib_files(), count=FAST_SAMPLE, seed=1)


def test_sample_of_stdlib():
    """A fixed sample of 50 stdlib files (the quick check)."""
    _assert_clean("stdlib sample", fast_sample())


@pytest.mark.slow
def test_whole_stdlib():
    _assert_clean("stdlib", corpus.stdlib_files())


#: test_site_packages checks one file of site-packages in SITE_SHARE, picked by a
#: hash of its path below site-packages: the same files wherever they are installed,
#: whatever else is (the whole of site-packages, 20,461 files with torch, ray and
#: their kin, took 983 s of a 3,473 s run of the suite on two cores);
#: LX_SITE_PACKAGES=all (`make test-site-packages`) checks every file
SITE_SHARE = 8


def site_packages_share(paths, env=None):
    """The files of ``paths`` (below site-packages) that test_site_packages checks."""
    env = os.environ if env is None else env
    if env.get("LX_SITE_PACKAGES", "").strip().lower() == "all":
        return list(paths)
    import zlib
    return [p for p in paths
            if zlib.crc32(corpus.relpath(p).replace(os.sep, "/").encode()) % SITE_SHARE == 0]


def test_site_packages_share_is_fixed_and_spread():
    # one file in SITE_SHARE, the same ones however the list was made, in
    # every package (not the first few folders), all of them on request
    names = [f"pkg{i}/mod{j}.py" for i in range(40) for j in range(50)]
    paths = [os.path.join(corpus.SITE_PACKAGES, *n.split("/")) for n in names]
    got = site_packages_share(paths, env={})
    assert len(paths) // (2 * SITE_SHARE) < len(got) < 2 * len(paths) // SITE_SHARE
    assert site_packages_share(list(reversed(paths)), env={}) == list(reversed(got))
    assert site_packages_share(paths[::2], env={}) == [p for p in got if p in set(paths[::2])]
    assert len({os.path.relpath(p, corpus.SITE_PACKAGES).split(os.sep)[0] for p in got}) > 30
    assert site_packages_share(paths, env={"LX_SITE_PACKAGES": "all"}) == paths


@pytest.mark.slow
def test_site_packages():
    paths = corpus.site_packages_files()
    if not paths:
        pytest.skip("no site-packages outside the stdlib")
    share = site_packages_share(paths)
    _assert_clean("site-packages" if len(share) == len(paths) else
                  f"site-packages (one file in {SITE_SHARE}: {len(share)} of {len(paths)})",
                  share)


FINDINGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "findings")
OPEN_FINDINGS: set = set()  # see tests/findings/README.md


def _run_capturing(code, loaders=None):
    import contextlib
    import io
    out = io.StringIO()
    g = {"__name__": "__finding__", **(loaders or {})}
    with contextlib.redirect_stdout(out):
        try:
            exec(code, g)
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            print(f"raised {type(e).__name__}: {e}")
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(FINDINGS) if n.endswith(".py")))
def test_findings_stay_fixed(name):
    """Each reproducer in tests/findings/: instruments, compiles with the right
    lines, and prints what the original prints (pass-through loaders)."""
    path = os.path.join(FINDINGS, name)
    src = corpus.read_bytes(path)
    why = check_source(src, path)
    if why is None:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import passthrough
        res = corpus.instrument(src, filename=path)
        want = _run_capturing(compile(src, path, "exec", dont_inherit=True))
        got = _run_capturing(corpus.compile_instrumented(res, path), passthrough.loaders())
        if got != want:
            why = f"prints {got!r}, the original prints {want!r}"
    if name in OPEN_FINDINGS:
        assert why is not None, f"{name} passes now: take it out of OPEN_FINDINGS and the README"
        pytest.xfail(f"open finding: {why.splitlines()[0]}")
    assert why is None, why


def test_checker_reports_broken_output(monkeypatch):
    """The harness itself: output that does not compile is reported, with context."""
    class Broken:
        source = "x = (\n"
        line_map = None

        def compile(self, filename=None):
            raise AssertionError("not reached")

    monkeypatch.setattr(corpus, "instrument", lambda src, filename: Broken())
    why = check_source(b"x = 1\n", "<t>")
    assert why is not None and "does not compile" in why and "instrumented" in why


@pytest.mark.parametrize("compiled, expect", [
    ("x = 1\n\n\n\ny = 2\n", "outside the file"),     # y moved to line 5
    ("x = 1; y = 2\n", "disagrees with line_map"),        # y moved onto line 1
])
def test_checker_reports_wrong_line_numbers(monkeypatch, compiled, expect):
    class Moved:
        source = "x = 1\ny = 2\n"
        line_map = None
        iids = []

        def compile(self, filename=None):
            return compile(compiled, filename, "exec")

    monkeypatch.setattr(corpus, "instrument", lambda src, filename: Moved())
    why = check_source(b"x = 1\ny = 2\n", "<t>")
    assert why is not None and expect in why, why


def test_checker_reports_loader_call_off_its_record(monkeypatch):
    """A leading blank line dropped: the loader call lands a line above its record."""
    class Rec:
        iid, kind, name, line, end_line = 1, "attribute", "sep", 3, 3

    class Shifted:
        source = "import os\n_a_(1, os, 'sep')\n"
        line_map = None
        iids = [Rec()]

        def compile(self, filename=None):
            return compile(self.source, filename, "exec")

    monkeypatch.setattr(corpus, "instrument", lambda src, filename: Shifted())
    why = check_source(b"\nimport os\nos.sep\n", "<t>")
    assert why is not None and "its record says lines 3-3" in why, why


def test_checker_skips_what_cpython_rejects():
    assert check_source(b"def f(:\n", "<t>") == "skip"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site-packages", action="store_true", help="also site-packages")
    ap.add_argument("--sample", type=float, help="fraction of files to check")
    ap.add_argument("--workers", type=int, default=WORKERS)
    args = ap.parse_args(argv)
    groups = [("stdlib", corpus.stdlib_files())]
    if args.site_packages:
        groups.append(("site-packages", corpus.site_packages_files()))
    bad = 0
    for name, paths in groups:
        if args.sample:
            paths = corpus.sample(paths, fraction=args.sample)
        files, lines, failures, secs = run_check(paths, args.workers, progress=sys.stderr.isatty())
        print(f"{name}: {files} files, {lines} lines in {secs:.1f}s; {len(failures)} failures")
        if failures:
            print(format_failures(failures, limit=len(failures)))
        bad += len(failures)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
