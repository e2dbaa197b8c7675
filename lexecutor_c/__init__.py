"""lexecutor_c: learning-guided execution of incomplete Python code.

    import lexecutor_c as lx
    r = lx.run("x = foo()\\nprint(x.bar + z)")
    r.coverage, r.injections

Importing this package is cheap and loads no extension: each public name is
imported from its part (engine/, prefixtree/, integrations/, the C
extension ``_core``) on first use (PEP 562), so the pytest plugin and the
console script start without it, and LibTorch, libcurl and the models load
later still, on first use.  A broken build shows as an ImportError naming
the extension at the first use of a name that needs it.
"""
from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any, Optional, Union

from ._version import __version__

# public name -> (module relative to this package, attribute; None: the module itself)
_LAZY: dict[str, tuple[str, Optional[str]]] = {
    "IidInfo": (".engine.instrument", "IidInfo"),
    "Instrumented": (".engine.instrument", "Instrumented"),
    "LineInfo": (".engine.instrument", "LineInfo"),
    "UndefinedName": (".engine.instrument", "UndefinedName"),
    "instrument": (".engine.instrument", "instrument"),
    "BackendUnavailable": (".engine.run", "BackendUnavailable"),
    "LExecutorError": (".engine.run", "LExecutorError"),
    "SourceError": (".engine.run", "SourceError"),
    "run": (".engine.run", "run"),
    "RecordResult": (".engine.record", "RecordResult"),
    "record": (".engine.record", "record"),
    "Result": (".engine.result", "Result"),
    "Limits": (".engine.sandbox", "Limits"),
    "Outcome": (".engine.sandbox", "Outcome"),
    "call_isolated": (".engine.sandbox", "call_isolated"),
    # the commit check on two versions without git (issue 20)
    "compare": (".apps.compare", "compare_sources"),
    "Comparison": (".apps.compare", "Comparison"),
    "TreefixError": (".prefixtree", "TreefixError"),
    "TreefixResult": (".prefixtree", "TreefixResult"),
    "MISSING": ("._core", "MISSING"),
    "Dummy": ("._core", "Dummy"),
    "DummyResource": ("._core", "DummyResource"),
    # transparent mode (issue 7) and %load_ext lexecutor_c
    "CallResult": (".integrations.hook", "CallResult"),
    "call": (".integrations.hook", "call"),
    "lexecute": (".integrations.hook", "lexecute"),
    "load_ipython_extension": (".integrations.magics", "load_ipython_extension"),
    "unload_ipython_extension": (".integrations.magics", "unload_ipython_extension"),
    # modules named in the docs: lexecutor_c.sandbox..., lexecutor_c.hook.enable(...)
    "result": (".engine.result", None),
    "runtime": (".engine.runtime", None),
    "sandbox": (".engine.sandbox", None),
    "hook": (".integrations.hook", None),
    "magics": (".integrations.magics", None),
}

__all__ = [
    "BackendUnavailable", "CallResult", "Comparison", "compare", "Dummy", "DummyResource", "IidInfo", "Instrumented",
    "LExecutorError", "LineInfo", "Limits", "MISSING", "Outcome", "RecordResult", "Result",
    "SourceError", "UndefinedName", "call", "call_isolated", "instrument", "lexecute", "record",
    "run", "treefix", "TreefixError", "TreefixResult",
]

if TYPE_CHECKING:       # what a type checker sees; at run time __getattr__ imports these
    from ._core import MISSING as MISSING, Dummy as Dummy, DummyResource as DummyResource
    from .apps.compare import Comparison as Comparison, compare_sources as compare
    from .engine import result as result, runtime as runtime, sandbox as sandbox
    from .engine.instrument import (IidInfo as IidInfo, Instrumented as Instrumented,
                                    LineInfo as LineInfo, UndefinedName as UndefinedName,
                                    instrument as instrument)
    from .engine.record import RecordResult as RecordResult, record as record
    from .engine.result import Result as Result
    from .engine.run import (BackendUnavailable as BackendUnavailable,
                             LExecutorError as LExecutorError, SourceError as SourceError,
                             run as run)
    from .engine.sandbox import Limits as Limits, Outcome as Outcome, call_isolated as call_isolated
    from .integrations import hook as hook, magics as magics
    from .integrations.hook import CallResult as CallResult, call as call, lexecute as lexecute
    from .integrations.magics import (load_ipython_extension as load_ipython_extension,
                                      unload_ipython_extension as unload_ipython_extension)
    from .prefixtree import TreefixError as TreefixError, TreefixResult as TreefixResult


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    mod = importlib.import_module(module, __name__)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value          # once: later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def treefix(source_or_path: Union[str, bytes, "os.PathLike[str]"],
            generator: Union[str, object] = "offline", n: int = 10, k: int = 10,
            timeout: float = 2.0, predictor: str = "naive",
            seed: Optional[int] = None, **options: Any) -> "TreefixResult":
    """Treefix prefix search (docs/TREEFIX.md); see lexecutor_c.prefixtree.treefix."""
    from .prefixtree import treefix as _treefix
    return _treefix(source_or_path, generator=generator, n=n, k=k, timeout=timeout,
                    predictor=predictor, seed=seed, **options)
