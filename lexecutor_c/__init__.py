"""lexecutor_c: learning-guided execution of incomplete Python code.

    import lexecutor_c as lx
    r = lx.run("x = foo()\\nprint(x.bar + z)")
    r.coverage, r.injections

Importing this package is cheap: LibTorch, libcurl and models load on first use.
"""
from . import _core
from .engine.instrument import IidInfo, Instrumented, LineInfo, UndefinedName, instrument
from .engine.run import BackendUnavailable, LExecutorError, SourceError, run
from .engine.record import RecordResult, record
from .engine.result import Result
from .engine.sandbox import Limits, Outcome, call_isolated
from .engine import result, runtime, sandbox     # modules named in the docs: lexecutor_c.sandbox...

from .prefixtree import TreefixError, TreefixResult
# the runtime's use-site constraint hook (docs/RUNTIME.md): imported here, before any
# sandbox child is forked, so that runs do not import it each
from .knowledge import inject as _constraint_hook  # noqa: F401


def treefix(source_or_path, generator="offline", n=10, k=10, timeout=2.0, predictor="naive",
            seed=None, **options):
    """Treefix prefix search (docs/TREEFIX.md); see lexecutor_c.prefixtree.treefix."""
    from .prefixtree import treefix as _treefix
    return _treefix(source_or_path, generator=generator, n=n, k=k, timeout=timeout,
                    predictor=predictor, seed=seed, **options)

MISSING = _core.MISSING
Dummy = _core.Dummy
DummyResource = _core.DummyResource

__all__ = [
    "BackendUnavailable", "Dummy", "DummyResource", "IidInfo", "Instrumented", "LExecutorError",
    "LineInfo", "Limits", "MISSING", "Outcome", "RecordResult", "Result", "SourceError",
    "UndefinedName", "call_isolated", "instrument", "record", "run", "treefix", "TreefixError",
    "TreefixResult",
]
__version__ = "0.1.0"

from .integrations.hook import CallResult, call, lexecute          # transparent mode (issue 7)
from .integrations.magics import load_ipython_extension, unload_ipython_extension  # %load_ext lexecutor_c
from .integrations import hook, magics          # lexecutor_c.hook.enable(...) as in the docs
