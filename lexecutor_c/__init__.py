"""lexecutor_c: learning-guided execution of incomplete Python code.

    import lexecutor_c as lx
    r = lx.run("x = foo()\\nprint(x.bar + z)")
    r.coverage, r.injections

Importing this package is cheap: LibTorch, libcurl and models load on first use.
"""
from . import _core
from ._instrument import IidInfo, Instrumented, LineInfo, instrument
from .api import BackendUnavailable, LExecutorError, SourceError, run
from .record import RecordResult, record
from .result import Result
from .sandbox import Limits, Outcome, call_isolated

MISSING = _core.MISSING
Dummy = _core.Dummy
DummyResource = _core.DummyResource

__all__ = [
    "BackendUnavailable", "Dummy", "DummyResource", "IidInfo", "Instrumented", "LExecutorError",
    "LineInfo", "Limits", "MISSING", "Outcome", "RecordResult", "Result", "SourceError", "call_isolated",
    "instrument", "record", "run",
]
__version__ = "0.1.0"
