"""lexecutor_c: learning-guided execution of incomplete Python code.

    import lexecutor_c as lx
    r = lx.run("x = foo()\\nprint(x.bar + z)")
    r.coverage, r.injections

Importing this package is cheap: LibTorch, libcurl and models load on first use.
"""
from . import _core
from ._instrument import IidInfo, Instrumented, LineInfo, UndefinedName, instrument
from .api import BackendUnavailable, LExecutorError, SourceError, run
from .result import Result
from .sandbox import Limits, Outcome, call_isolated

from ._treefix import TreefixError, TreefixResult


def treefix(source_or_path, generator="offline", n=10, k=10, timeout=2.0, predictor="naive",
            seed=None, **options):
    """Treefix prefix search (docs/TREEFIX.md); see lexecutor_c.treefix.treefix."""
    from ._treefix import treefix as _treefix
    return _treefix(source_or_path, generator=generator, n=n, k=k, timeout=timeout,
                    predictor=predictor, seed=seed, **options)

MISSING = _core.MISSING
Dummy = _core.Dummy
DummyResource = _core.DummyResource

__all__ = [
    "BackendUnavailable", "Dummy", "DummyResource", "IidInfo", "Instrumented", "LExecutorError",
    "LineInfo", "Limits", "MISSING", "Outcome", "Result", "SourceError", "UndefinedName", "call_isolated",
    "instrument", "run", "treefix", "TreefixError", "TreefixResult",
]
__version__ = "0.1.0"

from .hook import CallResult, call, lexecute          # transparent mode (issue 7)
from .magics import load_ipython_extension, unload_ipython_extension  # %load_ext lexecutor_c
