"""Fuzz lexecutor_c.instrument with mutated real Python files (atheris/libFuzzer).

Inputs are bytes.  instrument() must either succeed or raise SyntaxError,
ValueError, UnicodeDecodeError or RecursionError; anything else, or a crash,
is a finding.  When it succeeds on an input that CPython compiles, the
instrumented text and Instrumented.compile() must compile too.

The seed corpus is 400 small stdlib files (written to build/fuzz-corpus unless
a corpus directory is given).  Each input is a seed or an earlier input with
one to three edits: libFuzzer's byte mutations, or line-level edits (delete,
duplicate, swap, indent, splice a line from another seed, insert a snippet of
tricky syntax) that keep many mutants valid Python.  The C code is not built
with coverage instrumentation, so this is mutation fuzzing without coverage
guidance: the mutator goes back to the seeds itself.

    python tests/fuzz_instrument.py -max_total_time=300        # fuzz
    python tests/fuzz_instrument.py crash-<sha1>               # rerun one finding
    python tests/fuzz_instrument.py --strict ...               # also: SyntaxError on valid input
    python tests/fuzz_instrument.py --report-known ...         # also the findings already filed
    python tests/fuzz_instrument.py --no-atheris -max_total_time=60   # without atheris

libFuzzer writes each finding as crash-<sha1> (see -artifact_prefix=DIR/).
"""
import os
import random
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import benchmarks as corpus  # noqa: E402

EXPECTED = (SyntaxError, ValueError, UnicodeDecodeError, RecursionError)
# Findings already reported (tests/findings/): a failing output line matching
# one of these is counted, not reported again, unless --report-known.
# (with_parenthesized_as.py was here until main 2138dd0 fixed it.)
KNOWN = {}
REPORT_KNOWN = False
known_hits = {}
SEED_MAX_BYTES = 4096
MAX_LEN = 8192
STRICT = False

SNIPPETS = [
    b"class C:\n    x = y\n    def m(self): return __x + super().m()\n",
    b"match p:\n    case Point(x=0) | [a, *rest] if a: pass\n    case {'k': v, **kw}: v\n",
    b"f = lambda *a, k=x, **kw: (yield)\n",
    b"x = f'{a!r:>{w}} {b.c[d]:{e}}'\n",
    b"async def g():\n    async with a as b, c: await d\n    async for i in j: yield i\n",
    b"@dec(a)(b)\n@x.y\ndef h(a, /, b, *, c=d): nonlocal z\n",
    b"global q\n",
    b"del a.b, c[d], e\n",
    b"if (n := len(a)) > 10: print(n)\n",
    b"try:\n    import missing as m\nexcept* ValueError as e:\n    raise e from None\n",
    b"from . import *\n",
    b"from .pkg.mod import (a as b,\n    c)\n",
    b"import a.b.c as d, e\n",
    b"x: int = y\nz: 'T'\n",
    b"[i for i in range(3) if i for j in k]\n",
    b"with (open(a) as f, open(b) as g):\n    pass\n",
    b"print(*a, **b, sep='')\n",
    b"while x:\n    break\nelse:\n    continue\n",
    b"for (a, b) in c: a.b.c += 1\n",
    b"return x\n",
    b"a = b = c[1:2, ::3] = d\n",
    b"assert x, y\n",
    b"x = \\\n    1\n",
    b"s = '''\nmulti\n''' ; t = r'\\x'\n",
    b"# -*- coding: latin-1 -*-\n",
    b"\xef\xbb\xbf",
    b"\t\n",
    b"lambda: (yield from x)\n",
    b"class D(B, metaclass=M, **kw): __slots__ = ()\n",
    b"type(c).attr = type(c)\n",
    b"print >> sys.stderr, 'x'\n",
    b"with (ctx() as c):\n    pass\n",
    b"with (ctx() as c, d as e,):\n    pass\n",
    b"class L:\n    locals = dict\n    if a: b = 1\n    c = b\n",
    b"\n\n",
    b"def f[T](x): pass\n",
    b"x = [*a, *b]; y = {**c, 'd': e}\n",
]

_seeds = []


def load_seeds(limit=400):
    """Small stdlib files that CPython compiles (a fixed sample)."""
    files = [f for f in corpus.load_corpus(corpus.stdlib_files())
             if 0 < len(f.source) <= SEED_MAX_BYTES]
    return corpus.sample(files, count=min(limit, len(files)), seed=7)


def write_seed_corpus(directory):
    os.makedirs(directory, exist_ok=True)
    if os.listdir(directory):
        return
    for i, f in enumerate(load_seeds()):
        with open(os.path.join(directory, f"seed-{i:04d}.py"), "wb") as out:
            out.write(f.source)


def mutate_lines(data, rng):
    """One line-level edit of *data*."""
    lines = data.splitlines(keepends=True) or [b""]
    i = rng.randrange(len(lines))
    op = rng.randrange(7)
    if op == 0 and len(lines) > 1:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[i])
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3:
        lines[i] = b"    " + lines[i]
    elif op == 4:
        lines[i] = lines[i].lstrip(b" ")
    elif op == 5 and _seeds:
        other = rng.choice(_seeds).splitlines(keepends=True)
        if other:
            lines.insert(i, rng.choice(other))
    else:
        snippet = rng.choice(SNIPPETS)
        indent = lines[i][:len(lines[i]) - len(lines[i].lstrip(b" "))]
        lines.insert(i, b"".join(indent + ln for ln in snippet.splitlines(keepends=True)))
    return b"".join(lines)


def check(data):
    """The property; raises on a finding."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        valid = corpus.cpython_compiles(data, "<fuzz>")
        try:
            res = corpus.instrument(data, filename="<fuzz>")
        except EXPECTED as e:
            if STRICT and valid and isinstance(e, SyntaxError):
                raise AssertionError(f"instrument() rejected valid input: {e!r}") from e
            return
        if not valid:
            return
        try:
            compile(res.source, "<fuzz-instrumented>", "exec", dont_inherit=True)
        except Exception as e:  # noqa: BLE001
            if _known(e, res.source):
                return
            raise AssertionError(f"instrumented output does not compile: {e!r}\n"
                                 f"--- output ---\n{res.source[:4000]}") from e
        corpus.compile_instrumented(res, "<fuzz>")


def _known(exc, text):
    import re
    if REPORT_KNOWN or not isinstance(exc, SyntaxError) or not exc.lineno:
        return False
    lines = text.splitlines()
    line = lines[exc.lineno - 1] if exc.lineno <= len(lines) else ""
    for name, pattern in KNOWN.items():
        if re.search(pattern, line):
            n = known_hits[name] = known_hits.get(name, 0) + 1
            if n & (n - 1) == 0:  # 1, 2, 4, 8, ...: libFuzzer exits without atexit
                print(f"known finding {name} hit {n} times (not reported)", file=sys.stderr)
            return True
    return False


def TestOneInput(data):
    check(data)


def CustomMutator(data, max_size, seed):
    """Start from a seed file now and then (libFuzzer sees no coverage of the C
    code unless it is built for it, so it would keep only one corpus input),
    then one to three byte-level or line-level edits."""
    rng = random.Random(seed)
    if _seeds and (len(data) < 16 or rng.random() < 0.3):
        data = rng.choice(_seeds)
    for _ in range(rng.randrange(1, 4)):
        if rng.random() < 0.4:
            import atheris
            data = atheris.Mutate(data, max_size)
        else:
            data = mutate_lines(data, rng)
    return data[:max_size]


def run_without_atheris(argv):
    """A plain mutation loop: -max_total_time=N, -seed=S; findings to fuzz-findings/."""
    import hashlib
    import time
    opts = dict(a[1:].split("=", 1) for a in argv if a.startswith("-") and "=" in a)
    budget = float(opts.get("max_total_time", 60))
    rng = random.Random(int(opts.get("seed", 0)))
    pool = list(_seeds)
    t_end, runs, findings = time.time() + budget, 0, 0
    while time.time() < t_end:
        data = rng.choice(pool)
        for _ in range(rng.randrange(1, 4)):
            data = mutate_lines(data, rng)[:MAX_LEN]
        runs += 1
        try:
            check(data)
        except Exception as e:  # noqa: BLE001
            findings += 1
            os.makedirs("fuzz-findings", exist_ok=True)
            name = os.path.join("fuzz-findings", "crash-" + hashlib.sha1(data).hexdigest())
            with open(name, "wb") as f:
                f.write(data)
            print(f"FINDING {name}: {type(e).__name__}: {str(e)[:300]}", flush=True)
            continue
        if runs % 500 == 0:
            pool.append(data)
    print(f"{runs} runs, {findings} findings in {budget:.0f}s")
    return 1 if findings else 0


def main(argv):
    global STRICT, REPORT_KNOWN
    STRICT, REPORT_KNOWN = "--strict" in argv, "--report-known" in argv
    argv = [a for a in argv if a not in ("--strict", "--report-known")]

    use_atheris = "--no-atheris" not in argv
    argv = [a for a in argv if a != "--no-atheris"]
    print(f"fuzzing {corpus.instrumenter_name()}", file=sys.stderr)
    _seeds.extend(f.source for f in load_seeds())
    if use_atheris:
        try:
            import atheris
        except ImportError:
            print("atheris is not installed (pip install atheris); running --no-atheris",
                  file=sys.stderr)
            use_atheris = False
    if not use_atheris:
        return run_without_atheris(argv[1:])
    args = list(argv)
    rerun = [a for a in args[1:] if not a.startswith("-") and os.path.isfile(a)]
    if not rerun and not any(not a.startswith("-") for a in args[1:]):
        seed_dir = os.path.join(ROOT, "build", "fuzz-corpus")
        write_seed_corpus(seed_dir)
        args.append(seed_dir)
    if not any(a.startswith("-max_len=") for a in args):
        args.append(f"-max_len={MAX_LEN}")
    atheris.Setup(args, TestOneInput, custom_mutator=CustomMutator)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
