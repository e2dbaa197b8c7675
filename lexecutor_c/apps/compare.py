"""Two versions of a module without git: does an edit change what its
functions do?  ``compare_sources(old_source, new_source, function=...)``
(``lexecutor_c.compare``, ``lexecutor-c compare OLD.py NEW.py``) runs each
function whose code changed through the commit check's engine
(:func:`lexecutor_c.apps.behaviour.check_function`, extract mode) and gives
one :class:`Comparison` per call.

Verdicts: ``changed`` (an input distinguishes the versions: the input and
the first difference side by side), ``same`` (the changed lines ran in
both versions on inputs whose traces agree), ``unreached`` (no input
reached the changed lines), ``undecided`` (some inputs ran, but not enough
to say "same"; or every run failed), ``error`` (a version does not parse,
or the function is missing).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["Comparison", "compare_sources", "changed_functions", "VERDICTS"]

VERDICTS = ("changed", "same", "unreached", "undecided", "error")


@dataclass
class Comparison:
    """The verdict on one function (or on the whole edit, see
    :attr:`functions`)."""

    verdict: str
    function: Optional[str] = None
    evidence: dict = field(default_factory=dict)
    seconds: float = 0.0
    detail: str = ""
    functions: list = field(default_factory=list)   # per-function Comparisons

    def to_dict(self) -> dict:
        d = {"verdict": self.verdict, "function": self.function, "detail": self.detail,
             "evidence": self.evidence, "seconds": self.seconds}
        if self.functions:
            d["functions"] = [c.to_dict() for c in self.functions]
        return d

    def __str__(self) -> str:
        return f"{self.function or '<edit>'}: {self.verdict}" + \
            (f" ({self.detail})" if self.detail else "")


#: the file name both versions are compiled under: one module at two times
#: (code that shows its own file name -- ``inspect.getfile``, a warning's
#: filename -- shows the same in both runs)
_NAME = "<compared>"


def changed_functions(old_source: str, new_source: str) -> list:
    """Qualified names of the functions and methods whose code differs
    (docstrings and annotations aside) and that both versions have.
    Raises SyntaxError."""
    from .funcsource import code_dump, function_versions
    a = function_versions(old_source, _NAME)
    b = function_versions(new_source, _NAME)
    out = []
    for q, v in b.items():
        if q in a and (code_dump(a[q].node) != code_dump(v.node) or a[q].kind != v.kind):
            out.append(q)
    return out


def _combine(parts: list) -> str:
    verdicts = {c.verdict for c in parts}
    for v in ("changed", "error", "undecided", "unreached"):
        if v in verdicts:
            return v
    return "same"


def compare_sources(old_source: str, new_source: str, function: Optional[str] = None, *,
                    ignore_messages: bool = False, max_inputs: Optional[int] = None,
                    timeout: Optional[float] = None, seed: int = 0,
                    points: str = "gate") -> Comparison:
    """Compare one function (``function``: its qualified name, ``Class.method``)
    of two versions of a module, or, when ``function`` is None, every
    function and method whose code changed (the result's verdict is the
    strongest of theirs, ``functions`` holds each one).  ``max_inputs``:
    inputs per function; ``timeout``: seconds per run; ``seed``: of the
    injection and the input generator; ``points``: the values where the
    changed lines are left -- "gate" (a difference keeps "same" back),
    "change" (it is a change), "off" (behaviour.Options.points).  Raises
    TypeError for sources that are not text, ValueError for another
    ``points``."""
    t0 = time.monotonic()
    if not isinstance(old_source, str) or not isinstance(new_source, str):
        raise TypeError("compare_sources() takes the two versions' source text (str)")
    from .behaviour import POINTS_MODES
    if points not in POINTS_MODES:
        raise ValueError(f"points must be one of {', '.join(POINTS_MODES)}, not {points!r}")
    from .funcsource import function_versions
    try:
        a = function_versions(old_source, _NAME)
    except SyntaxError as e:
        return Comparison("error", function, {}, round(time.monotonic() - t0, 3),
                          f"the old version does not parse: {e.msg} (line {e.lineno})")
    try:
        b = function_versions(new_source, _NAME)
    except SyntaxError as e:
        return Comparison("error", function, {}, round(time.monotonic() - t0, 3),
                          f"the new version does not parse: {e.msg} (line {e.lineno})")
    if function is not None:
        return _compare_one(a, b, function, ignore_messages, max_inputs, timeout, seed, t0,
                            points)
    names = changed_functions(old_source, new_source)
    parts = [_compare_one(a, b, q, ignore_messages, max_inputs, timeout, seed,
                          time.monotonic(), points) for q in names]
    if not parts:
        return Comparison("same", None, {"functions_changed": 0},
                          round(time.monotonic() - t0, 3),
                          "no function's code changed (only docstrings, annotations, "
                          "comments, formatting or module-level code)")
    secs = round(time.monotonic() - t0, 3)
    if len(parts) == 1:         # one function changed: its verdict and evidence
        p = parts[0]
        return Comparison(p.verdict, p.function, dict(p.evidence, functions_changed=1), secs,
                          p.detail, parts)
    verdict = _combine(parts)
    detail = ", ".join(f"{c.function}: {c.verdict}" for c in parts)
    return Comparison(verdict, None, {"functions_changed": len(parts)}, secs, detail, parts)


def _compare_one(a: dict, b: dict, q: str, ignore_messages: bool,
                 max_inputs: Optional[int], timeout: Optional[float], seed: int,
                 t0: float, points: str = "gate") -> Comparison:
    from .behaviour import Options, check_function
    if q not in a or q not in b:
        where = "either version" if q not in a and q not in b else \
            "the old version" if q not in a else "the new version"
        return Comparison("error", q, {}, round(time.monotonic() - t0, 3),
                          f"no function {q!r} in {where}")
    opts = Options(seeds=(seed,), compare_messages=not ignore_messages, points=points)
    if max_inputs is not None:
        opts.max_inputs = max_inputs
    if timeout is not None:
        opts.timeout = timeout
    fc = check_function(a[q], b[q], opts=opts, file=_NAME)
    return from_check(fc, t0)


def from_check(fc, t0: Optional[float] = None) -> Comparison:
    """A :class:`Comparison` from the engine's FunctionCheck."""
    verdict = {"changed": "changed", "same": "same", "unreached": "unreached",
               "undecided": "undecided", "exception": "undecided"}.get(fc.verdict, "error")
    ev = {"inputs": fc.inputs, "runs": fc.runs,
          "agreeing_inputs": fc.agreeing,
          "changed_lines": {"old": fc.changed_old, "new": fc.changed_new},
          "changed_lines_ran": {"old": fc.lines_old, "new": fc.lines_new}}
    if fc.mutants:
        ev["mutants"] = {k: fc.mutants[k] for k in ("tried", "killed", "survivors")
                         if k in fc.mutants}
    if fc.verdict == "changed":
        ev["distinguishing_input"] = fc.input
        ev["first_difference"] = {"what": fc.detail, "old": fc.old, "new": fc.new}
        ev["strength"] = fc.evidence
    elif fc.old is not None:
        ev["example"] = {"old": fc.old, "new": fc.new}
    secs = fc.seconds if t0 is None else round(time.monotonic() - t0, 3)
    return Comparison(verdict, fc.function, ev, secs, fc.detail)
