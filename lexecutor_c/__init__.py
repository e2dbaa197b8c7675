"""lexecutor_c: learning-guided execution of incomplete Python code."""
from ._instrument import IidInfo, Instrumented, LineInfo, instrument

__all__ = ["IidInfo", "Instrumented", "LineInfo", "instrument"]
__version__ = "0.1.0"
