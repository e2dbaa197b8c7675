"""Result of one lexecutor_c.run(): what ran, what was injected, how it ended."""
from __future__ import annotations

import ast
import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Iterable, Optional

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
    marker reached / with markers none of which was reached.  That is the
    papers' metric (benchmarks/coverage.py); what a person asks -- which
    lines ran -- is ``lines_ran``/``lines_skipped`` and ``what_ran()``
    (see :func:`lines_ran`): an ``if`` whose block is skipped ran its test.
    ``imported_modules``: missing names that were modules and were imported
    instead of injected (``run(import_missing=True)``, the default), and
    those that name a module not installed here (injected as before).
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
    #: original lines that ran / that did not (None: unknown); see lines_ran()
    lines_ran: Optional[list] = None
    lines_skipped: Optional[list] = None
    #: "3 of the 4 lines ran (line 2, the raise, was skipped)"
    lines_ran_text: str = ""
    #: whether missing names that are modules were imported (run(import_missing=))
    import_missing: bool = False
    #: dicts: name, module, imported (bool); package and reason where not imported
    imported_modules: list = field(default_factory=list)

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

    def what_ran(self) -> str:
        """Which lines ran, in words: "3 of the 4 lines ran (line 2, the
        raise, was skipped)"."""
        if self.lines_ran_text:
            return self.lines_ran_text
        if self.lines_ran is None:
            if self.covered_lines is None:
                return "which lines ran is unknown (the run did not report back)"
            # a Result from before lines_ran existed: the markers' lines
            return LinesRan(list(self.covered), list(self.uncovered)).text
        return LinesRan(list(self.lines_ran), list(self.lines_skipped or [])).text

    def summary(self) -> str:
        """One line for humans."""
        cov = self.what_ran()
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


# ---------------------------------------------------------------- lines ran

#: how a skipped statement is named: "line 2, the raise, was skipped"
_KIND_WORDS = {
    ast.Raise: "the raise", ast.Return: "the return", ast.If: "the if",
    ast.For: "the for loop", ast.AsyncFor: "the for loop", ast.While: "the while loop",
    ast.With: "the with", ast.AsyncWith: "the with", ast.Try: "the try",
    ast.FunctionDef: "a def", ast.AsyncFunctionDef: "a def", ast.ClassDef: "a class",
    ast.Import: "an import", ast.ImportFrom: "an import", ast.Assign: "an assignment",
    ast.AugAssign: "an assignment", ast.AnnAssign: "an assignment", ast.Break: "the break",
    ast.Continue: "the continue", ast.Pass: "the pass", ast.Assert: "the assert",
    ast.Delete: "the del", ast.Match: "the match", ast.ExceptHandler: "the except",
}
if hasattr(ast, "TryStar"):
    _KIND_WORDS[ast.TryStar] = "the try"
_JUMPS = (ast.Raise, ast.Return, ast.Break, ast.Continue)


def _ranges(nums: list) -> str:
    out: list = []
    for n in sorted(nums):
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


@dataclass
class LinesRan:
    """Which of a source's lines ran, for people: ``ran`` and ``skipped``
    are line numbers (together the lines that hold code: the lines of
    ``Result.covered`` and ``Result.uncovered``), ``what`` names the
    statement on a skipped line ("the raise").  ``text`` says it in words."""

    ran: list
    skipped: list
    what: dict = field(default_factory=dict)

    @property
    def total(self) -> int:
        return len(self.ran) + len(self.skipped)

    @property
    def text(self) -> str:
        n, m = len(self.ran), self.total
        if m == 0:
            return "no lines of code"
        if not self.skipped:
            return "the only line ran" if m == 1 else f"all {m} lines ran"
        head = f"{n} of the {m} lines ran" if m > 1 else "the only line did not run"
        sk = sorted(self.skipped)
        named = [(ln, self.what.get(ln)) for ln in sk]
        if len(sk) == 1:
            ln, w = named[0]
            tail = f"line {ln}, {w}, was skipped" if w else f"line {ln} was skipped"
        elif len(sk) <= 3 and all(w for _, w in named):
            parts = [f"{ln} ({w})" for ln, w in named]
            tail = f"lines {', '.join(parts[:-1])} and {parts[-1]} were skipped"
        else:
            tail = f"lines {_ranges(sk)} were skipped"
        return f"{head} ({tail})" if m > 1 else head

    def to_dict(self) -> dict:
        return {"ran": list(self.ran), "skipped": list(self.skipped), "text": self.text}


def _kind(st) -> Optional[str]:
    if isinstance(st, ast.Expr):
        return "a call" if isinstance(st.value, ast.Call) else "an expression"
    return _KIND_WORDS.get(type(st))


def _bodies(node) -> list:
    out = []
    for name in ("body", "orelse", "finalbody"):
        b = getattr(node, name, None)
        if isinstance(b, list) and b and isinstance(b[0], ast.stmt):
            out.append(b)
    for h in getattr(node, "handlers", None) or []:
        out.append(h.body)
    for c in getattr(node, "cases", None) or []:
        out.append(c.body)
    return out


def _start(node) -> int:
    decos = getattr(node, "decorator_list", None) or []
    return min([node.lineno] + [d.lineno for d in decos])


def lines_ran(source: str, covered: Iterable[int], uncovered: Iterable[int], *,
              injected_lines: Iterable[Optional[int]] = (),
              exception_line: Optional[int] = None, finished: bool = False) -> LinesRan:
    """Which lines of ``source`` ran, as a person counts them.

    The papers' markers count a line when it completes, and a block header
    only when its block is entered, so ``if not ok(): raise ...`` with the
    raise skipped shows one line of two.  Here a statement ran when it
    started: its marker was reached, a value was injected in it, the run's
    exception was raised in it, something inside it ran (a header whose
    block ran), a later statement of the same block ran, the statement
    before it completed normally, or -- ``finished``: the source's top level
    ran to its end (``Result.status == "ok"``) -- it is at the top level.

    ``covered``/``uncovered``: the lines with markers reached / not reached
    (``Result.covered``, ``Result.uncovered``, or the transparent-mode
    hook's coverage dicts), which are the lines counted.  Reusable wherever
    those are known (the CLI, the magics, the pytest plugin)."""
    covered = {int(x) for x in covered}
    counted = covered | {int(x) for x in uncovered}
    evidence = set(covered) | {int(x) for x in injected_lines if x is not None}
    if exception_line is not None:
        evidence.add(int(exception_line))
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        ran = sorted(counted & evidence)
        return LinesRan(ran, sorted(counted - set(ran)))
    started: set = set()          # ids of statements that started
    what: dict = {}
    blocks: list = [tree.body]
    nodes: list = []
    i = 0
    while i < len(blocks):
        for st in blocks[i]:
            nodes.append(st)
            blocks.extend(_bodies(st))
            what.setdefault(_start(st), _kind(st))
            for h in getattr(st, "handlers", None) or []:
                what.setdefault(h.lineno, "the except")
        i += 1
    for st in nodes:            # evidence inside a statement: it started
        lo, hi = _start(st), getattr(st, "end_lineno", None) or st.lineno
        if any(lo <= ln <= hi for ln in evidence):
            started.add(id(st))
    if finished:
        started.update(id(st) for st in tree.body)
    changed = True
    while changed:
        changed = False
        for body in blocks:
            for k, st in enumerate(body):
                if id(st) in started:
                    continue
                later = any(id(x) in started for x in body[k + 1:])
                prev = body[k - 1] if k else None
                flows = prev is not None and id(prev) in started and \
                    not isinstance(prev, _JUMPS) and not _bodies(prev) and \
                    prev.lineno in covered and \
                    (getattr(prev, "end_lineno", prev.lineno) or prev.lineno) < st.lineno
                if later or flows:
                    started.add(id(st))
                    changed = True
    ran_lines = set(covered)
    for st in nodes:
        if id(st) in started:
            ran_lines.add(_start(st))
            ran_lines.add(st.lineno)
    ran = sorted(counted & ran_lines)
    skipped = sorted(counted - ran_lines)
    return LinesRan(ran, skipped, {ln: what[ln] for ln in skipped if what.get(ln)})
