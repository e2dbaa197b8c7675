"""Shared pieces of the checks and benchmarks: the corpus of real Python files
and the one place that calls the instrumenter.

The corpus is every ``.py`` file of the installed standard library (its
``site-packages`` left out) and, separately, of ``site-packages``.  Only files
that CPython itself compiles count: the standard library ships deliberately
broken files (``test/tokenizedata/bad_coding.py``, ``lib2to3/tests/data/...``)
and those are no test of the instrumenter.
"""
# Module-level imports stay light (no re, collections, random, dataclasses):
# the differential check imports this module before the modules it instruments.
import os
import sysconfig
import warnings

STDLIB = sysconfig.get_paths()["stdlib"]
SITE_PACKAGES = sysconfig.get_paths()["purelib"]
_SKIP_DIRS = {"__pycache__", "site-packages", "dist-packages"}


# -- the instrumenter ------------------------------------------------------------

class _StandIn:
    """The source unchanged (``LX_CHECKS_INSTRUMENTER=stand-in``), for developing
    the checks while the instrumenter is not built.  Never used silently."""

    def __init__(self, source, filename):
        self.source = source if isinstance(source, str) else decode(source)
        self._raw = source
        self.filename = filename
        self.iids, self.lines, self.line_map = [], [], None
        compile(source, filename, "exec", dont_inherit=True)  # SyntaxError like the real one

    def compile(self, filename=None):
        return compile(self._raw, filename or self.filename, "exec", dont_inherit=True)


def instrumenter_name():
    """Which instrumenter ``instrument()`` calls.

    ``lexecutor_c.instrument`` unless ``LX_CHECKS_INSTRUMENTER`` says
    ``libcst`` (benchmarks/libcst_transform.py, an independent instrumenter)
    or ``stand-in`` (the source unchanged, for developing the checks).
    """
    choice = os.environ.get("LX_CHECKS_INSTRUMENTER", "lexecutor_c")
    if choice in ("libcst", "stand-in"):
        return choice
    import lexecutor_c
    if not hasattr(lexecutor_c, "instrument"):
        raise RuntimeError("lexecutor_c.instrument is missing: build the extension, or set "
                           "LX_CHECKS_INSTRUMENTER=libcst or =stand-in to check the checks")
    return "lexecutor_c.instrument"


def instrument(source, filename="<snippet>"):
    """Instrument *source* (str or bytes); the one call of the real API.

    Returns the ``Instrumented`` result of ``lexecutor_c.instrument`` (or of
    the instrumenter that ``LX_CHECKS_INSTRUMENTER`` names).
    """
    name = instrumenter_name()
    if name == "libcst":
        from benchmarks import libcst_transform
        return libcst_transform.instrument(source, filename)
    if name == "stand-in":
        return _StandIn(source, filename)
    import lexecutor_c
    return lexecutor_c.instrument(source, filename=filename)


def compile_instrumented(result, filename):
    """Code object of an instrumented result (original line numbers)."""
    return result.compile(filename)


# -- the corpus ------------------------------------------------------------------

def _walk(root, skip_dirs):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs)
        out.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py"))
    return out


def stdlib_files():
    """Every .py file of the standard library, sorted, site-packages excluded."""
    return _walk(STDLIB, _SKIP_DIRS)


def site_packages_files():
    """Every .py file under site-packages, sorted."""
    if not os.path.isdir(SITE_PACKAGES) or os.path.samefile(SITE_PACKAGES, STDLIB):
        return []
    return _walk(SITE_PACKAGES, {"__pycache__"})


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def cpython_compiles(source, filename):
    """True when CPython's own compile() accepts *source* (bytes or str)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
            return False
    return True


def decode(source):
    """Text of a source file's bytes, as CPython decodes it (PEP 263 cookie,
    BOM); undecodable bytes (CPython 3.11 lets them pass in comments) become U+FFFD."""
    import io
    import tokenize
    enc, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return source.decode(enc, "replace")


def count_lines(source):
    """Physical lines of a source (bytes or str), the unit of every rate."""
    if not source:
        return 0
    nl = b"\n" if isinstance(source, bytes) else "\n"
    return source.count(nl) + (not source.endswith(nl))


class SourceFile:
    __slots__ = ("path", "source", "lines")

    def __init__(self, path, source, lines):
        self.path, self.source, self.lines = path, source, lines


def load_corpus(paths, *, compilable_only=True):
    """Read *paths*; keep those CPython compiles (when asked)."""
    out = []
    for p in paths:
        try:
            src = read_bytes(p)
        except OSError:
            continue
        if compilable_only and not cpython_compiles(src, p):
            continue
        out.append(SourceFile(p, src, count_lines(src)))
    return out


def sample(items, fraction=None, count=None, seed=0):
    """A fixed pseudo-random sample (same seed -> same files), in input order."""
    import random
    items = list(items)
    k = count if count is not None else max(1, round(len(items) * fraction))
    if k >= len(items):
        return items
    chosen = set(random.Random(seed).sample(range(len(items)), k))
    return [x for i, x in enumerate(items) if i in chosen]


def relpath(path):
    for root in (SITE_PACKAGES, STDLIB):
        if path.startswith(root + os.sep):
            return os.path.relpath(path, root)
    return path
