"""Result of one lexecutor_c.run(): what ran, what was injected, how it ended."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Optional

#: Result.status values, in the order the CLI summary lists them.
STATUSES = ("ok", "exit", "exception", "timeout", "memory", "crashed")


@dataclass
class Result:
    """Everything one run produced.  All fields are plain data, so
    ``to_dict()`` is JSON-serialisable and ``Result.from_dict`` inverts it.

    status:
      ``ok``        the code ran to its end
      ``exit``      it called ``sys.exit``/``exit``/``os._exit`` (``exit_code``)
      ``exception`` an exception ended it (``exception``)
      ``timeout``   the wall-clock or CPU limit ended it
      ``memory``    it ran out of memory
      ``crashed``   the process running it died (``signal``, ``error``), or the
                    run could not be completed for another reason (``error``)
    Coverage counts line markers (one after each simple statement, one opening
    each block): ``covered_lines`` of ``total_lines`` were reached.  Both are
    None where unknown (the executing process died before reporting).
    ``covered``/``uncovered`` are original line numbers with at least one
    marker reached / with markers none of which was reached.
    """

    filename: str
    status: str
    covered_lines: Optional[int] = None
    total_lines: Optional[int] = None
    coverage: Optional[float] = None
    covered: list = field(default_factory=list)
    uncovered: list = field(default_factory=list)
    #: dicts: iid, kind, name, line, cls, value (the injected value's repr)
    injections: list = field(default_factory=list)
    #: dict: type, message, line (in the original source; None if not in it)
    exception: Optional[dict] = None
    exit_code: Optional[int] = None
    signal: Optional[int] = None
    error: Optional[str] = None
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    wall_time: float = 0.0
    #: dicts: iid, module, names
    failed_imports: list = field(default_factory=list)
    predictor: str = "naive"
    abstraction: str = "fine"
    seed: Optional[int] = None
    randomize: bool = False
    isolated: bool = True
    #: which isolation measures applied (see lexecutor_c.sandbox.Outcome.isolation)
    isolation: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when the code ran to its end (or exited with status 0)."""
        return self.status == "ok" or (self.status == "exit" and self.exit_code == 0)

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, data: dict) -> "Result":
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown Result fields: {sorted(unknown)}")
        return cls(**data)

    def summary(self) -> str:
        """One line for humans."""
        cov = "coverage unknown" if self.coverage is None else \
            f"coverage {self.coverage:.0%} ({self.covered_lines}/{self.total_lines} markers)"
        how = self.status
        if self.status == "exception" and self.exception:
            where = f" at line {self.exception['line']}" if self.exception.get("line") else ""
            how = f"{self.exception['type']}: {self.exception['message']}{where}"
        elif self.status == "exit":
            how = f"exit {self.exit_code}"
        elif self.status == "crashed" and self.error:
            how = f"crashed: {self.error}"
        return f"{self.filename}: {how}; {cov}; {len(self.injections)} injections"


def coverage_fields(lines: list, reached: set) -> dict[str, Any]:
    """covered_lines/total_lines/coverage/covered/uncovered from the marker
    table (``(line, iid)`` pairs) and the set of marker iids reached."""
    total = len(lines)
    hit = sum(1 for _, iid in lines if iid in reached)
    by_line: dict[int, bool] = {}
    for line, iid in lines:
        by_line[line] = by_line.get(line, False) or iid in reached
    return {
        "covered_lines": hit,
        "total_lines": total,
        "coverage": (hit / total) if total else 1.0,
        "covered": sorted(l for l, h in by_line.items() if h),
        "uncovered": sorted(l for l, h in by_line.items() if not h),
    }
