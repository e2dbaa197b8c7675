"""The taint analysis of ``lexecutor-c errors``: moved to lexecutor_c/engine/taint.py so
that integrations/ (the pytest plugin's verdicts) may use it too; this module keeps the
old import path working."""
from __future__ import annotations

from ..engine.taint import (LOADERS, STDIN, Dependence, bound_names, control_header,  # noqa: F401
                            failing_operation, is_injected_value, operands_of, operation_at,
                            stdin_reads, strip)

__all__ = ["failing_operation", "operation_at", "Dependence", "bound_names", "stdin_reads",
           "STDIN", "is_injected_value", "control_header", "operands_of", "strip"]
