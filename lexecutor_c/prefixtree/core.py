"""The Treefix loop (Algorithm 1 of the ICSE'25 paper) on top of run().

    result = treefix(source_or_path, generator="offline", n=10, k=10)

1. undefinedness guidance: the generator proposes n prefixes from the
   snippet's undefined references;
2. error guidance: for every prefix whose run ended in an exception, n new
   prefixes from the error (the LLM generator continues the conversation
   that produced the failing prefix);
3. coverage guidance, up to k times: the snippet with ``# uncovered`` on
   the lines no prefix reached yet, n new prefixes.

Every prefix is post-processed (run alone, without injection: the line that
raises is dropped, up to 10 rounds; a prefix that runs past the time limit is
dropped), then prepended to the snippet and run isolated with injection on
underneath (an imperfect prefix never ends a run early).  Coverage counts the
snippet's own line markers only.  P is chosen by greedy set cover over the
covered-line sets; the loop stops at full coverage, when the time budget or
the run budget is spent.
"""
from __future__ import annotations

import ast
import json
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Optional, Union

from ..engine.run import load_source, run
from .analysis import SnippetFacts, analyze
from .offline import OfflineGenerator, Plan, Proposal

MAX_DROP_ROUNDS = 10


class TreefixError(ValueError):
    """Bad input for treefix(): unknown generator, bad n/k/timeout."""


@dataclass
class TreeNode:
    """One prefix tried: ``step`` is initial/error/coverage; ``parent`` the
    node it was derived from (None for step 1)."""

    id: int
    step: str
    parent: Optional[int]
    prefix: str
    coverage: float = 0.0
    covered: list = field(default_factory=list)     # snippet line numbers
    covered_markers: int = 0
    error: Optional[dict] = None                     # {"type","message","line","where"}
    status: str = ""
    dropped_lines: list = field(default_factory=list)
    note: str = ""
    seconds: float = 0.0
    plan: Optional[Plan] = field(default=None, repr=False)
    conversation: Optional[list] = field(default=None, repr=False)

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("id", "step", "parent", "prefix", "coverage",
                                            "covered", "covered_markers", "error", "status",
                                            "dropped_lines", "note", "seconds")}
        if self.conversation is not None:
            d["conversation"] = self.conversation
        return d


@dataclass
class TreefixResult:
    filename: str
    total_lines: int                 # the snippet's line markers
    lines: list                      # the snippet's line numbers with markers
    prefixes: list                   # P: prefix texts chosen by greedy set cover
    prefix_ids: list                 # their tree node ids
    best: str                        # the best single prefix
    best_id: Optional[int]
    coverage: float                  # cumulative coverage of P
    best_coverage: float
    covered: list                    # snippet lines covered by P
    uncovered: list
    tree: list                       # TreeNode
    unresolved_imports: list
    timings: dict
    generator: str = "offline"
    baseline_coverage: Optional[float] = None   # the empty prefix (injection alone)

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in (
            "filename", "total_lines", "lines", "prefixes", "prefix_ids", "best", "best_id",
            "coverage", "best_coverage", "covered", "uncovered", "unresolved_imports",
            "timings", "generator", "baseline_coverage")}
        d["tree"] = [n.to_dict() for n in self.tree]
        return d

    def tree_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps({"filename": self.filename, "total_lines": self.total_lines,
                           "nodes": [n.to_dict() for n in self.tree]}, indent=indent)

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)


# ------------------------------------------------------------------ helpers

def greedy_cover(sets: list) -> list:
    """Indices of a subset of ``sets`` (iterables of covered lines) whose
    union is the union of all, picked greedily: each time the set adding
    the most new lines, ties to the earlier one; stops when nothing adds."""
    chosen, have = [], set()
    remaining = [set(s) for s in sets]
    while True:
        best, gain = None, 0
        for i, s in enumerate(remaining):
            g = len(s - have)
            if g > gain:
                best, gain = i, g
        if best is None:
            return chosen
        chosen.append(best)
        have |= remaining[best]


def annotate_uncovered(source: str, uncovered) -> str:
    """The snippet with `` # uncovered`` appended to the given lines."""
    unc = set(uncovered)
    out = []
    for i, ln in enumerate(source.splitlines(), 1):
        out.append(ln + "  # uncovered" if i in unc else ln)
    return "\n".join(out) + "\n"


def _statement_span(prefix: str, line: int) -> Optional[tuple]:
    """(first, last) line of the top-level statement of ``prefix`` that
    contains ``line``."""
    try:
        tree = ast.parse(prefix)
    except SyntaxError:
        return None
    for s in tree.body:
        first = min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", [])])
        if first <= line <= (s.end_lineno or s.lineno):
            return first, s.end_lineno or s.lineno
    return None


def postprocess(prefix: str, timeout: float, runner=None) -> tuple:
    """Run ``prefix`` alone without injection and drop the top-level
    statement that raises, up to 10 rounds.  Returns (prefix or None, dropped
    line numbers of the original prefix, reason): None when the prefix does not
    parse, still raises after 10 rounds, or runs past ``timeout``."""
    runner = runner or run
    if not prefix.strip():
        return "", [], None
    try:
        ast.parse(prefix)
    except SyntaxError as e:
        return None, [], f"prefix does not parse: {e.msg} (line {e.lineno})"
    lines = prefix.splitlines()
    alive = list(range(1, len(lines) + 1))         # original numbers of kept lines
    dropped: list = []
    for _ in range(MAX_DROP_ROUNDS + 1):
        text = "\n".join(lines[i - 1] for i in alive) + "\n"
        r = runner(text, predictor="as-is", timeout=timeout, filename="<prefix>")
        if r.status == "timeout":
            return None, dropped, "prefix runs past the time limit"
        if r.status in ("ok", "exit") or not r.exception or not r.exception.get("line"):
            if r.status in ("memory", "crashed"):
                return None, dropped, f"prefix {r.status}"
            return text, dropped, None
        if len(dropped) >= MAX_DROP_ROUNDS * 50:
            break
        span = _statement_span(text, r.exception["line"])
        if span is None:
            return None, dropped, "cannot locate the raising line"
        first, last = span
        gone = alive[first - 1:last]
        dropped.extend(gone)
        alive = alive[:first - 1] + alive[last:]
        if not alive:
            return "", dropped, None
    return None, dropped, "still raises after 10 rounds"


class SnippetRunner:
    """Runs prefix + snippet and maps coverage back to the snippet."""

    def __init__(self, source: str, filename: str, predictor="naive", timeout=2.0,
                 seed=None, runner=None):
        from ..engine.instrument import instrument
        self.source = source if source.endswith("\n") else source + "\n"
        self.filename = filename
        self.predictor = predictor
        self.timeout = timeout
        self.seed = seed
        self.runner = runner or run
        inst = instrument(self.source, filename=filename)
        self.markers: dict = {}
        for li in inst.lines:
            self.markers[int(li.line)] = self.markers.get(int(li.line), 0) + 1
        self.total = sum(self.markers.values())
        self.runs = 0

    def evaluate(self, prefix: str) -> dict:
        offset = prefix.count("\n") if prefix else 0
        text = prefix + self.source
        self.runs += 1
        try:
            r = self.runner(text, predictor=self.predictor, timeout=self.timeout,
                            seed=self.seed, filename=self.filename)
        except SyntaxError as e:
            return {"status": "syntax", "covered": [], "markers": 0, "coverage": 0.0,
                    "error": {"type": "SyntaxError", "message": str(e.msg),
                              "line": (e.lineno or 0) - offset, "where": "prefix"
                              if (e.lineno or 0) <= offset else "snippet"},
                    "failed_imports": []}
        covered = sorted(ln - offset for ln in (r.covered or [])
                         if ln > offset and (ln - offset) in self.markers)
        markers = sum(self.markers[ln] for ln in covered)
        err = None
        if r.exception:
            ln = r.exception.get("line")
            where = "snippet" if ln and ln > offset else "prefix"
            err = {"type": r.exception["type"], "message": r.exception["message"][:500],
                   "line": (ln - offset) if ln and ln > offset else ln, "where": where}
        elif r.status in ("timeout", "memory", "crashed"):
            err = {"type": r.status, "message": r.error or r.status, "line": None,
                   "where": "snippet"}
        return {"status": r.status, "covered": covered, "markers": markers,
                "coverage": markers / self.total if self.total else 1.0, "error": err,
                "failed_imports": [f["module"] for f in r.failed_imports]}


# ------------------------------------------------------------------ the loop

def _make_generator(generator, seed, value_model, llm_options):
    if not isinstance(generator, str):
        return generator
    if generator == "offline":
        return OfflineGenerator(value_model=value_model, seed=seed)
    if generator == "llm":
        from .llm import LLMGenerator
        return LLMGenerator(seed=seed, **(llm_options or {}))
    raise TreefixError(f"unknown generator {generator!r}; choose offline or llm")


def treefix(source_or_path, generator: Union[str, object] = "offline", n: int = 10,
            k: int = 10, timeout: float = 2.0, predictor: str = "naive",
            seed: Optional[int] = None, *, budget: Optional[float] = 60.0,
            max_runs: Optional[int] = None, value_model: Optional[Callable] = None,
            llm_options: Optional[dict] = None, install: bool = False,
            progress: Optional[Callable] = None, filename: Optional[str] = None,
            analyzer: Optional[Callable] = None) -> TreefixResult:
    """Search prefixes that make the snippet run and cover its lines.

    ``generator``: "offline" (default, no network), "llm" (an OpenAI-compatible
    endpoint configured by ``llm_options`` or LEXECUTOR_LLM_* variables) or an
    object with initial/repair/guide methods.  ``n`` prefixes per query,
    ``k`` coverage-guidance iterations, ``timeout`` seconds per run,
    ``predictor`` the injection underneath (run()'s names), ``budget``
    wall-clock seconds for the whole search (None: no limit), ``max_runs``
    prefix evaluations at most.  ``install=True`` lets pip install
    unresolved imports (never by default).  ``progress(event: dict)`` is
    called after every evaluated prefix.

    Raises what run() raises for unreadable or unparsable input, and
    TreefixError for bad arguments.
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise TreefixError("n must be a positive int")
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise TreefixError("k must be a non-negative int")
    if not isinstance(timeout, (int, float)) or not 0 < timeout < float("inf"):
        raise TreefixError("timeout must be a positive, finite number of seconds")
    if budget is not None and (not isinstance(budget, (int, float)) or budget <= 0):
        raise TreefixError("budget must be a positive number of seconds or None")
    t0 = time.monotonic()
    text, fname = load_source(source_or_path, filename)
    if not text.endswith("\n"):
        text += "\n"
    facts: SnippetFacts = analyze(text, analyzer)      # SyntaxError propagates
    gen = _make_generator(generator, seed, value_model, llm_options)
    sr = SnippetRunner(text, fname, predictor=predictor, timeout=timeout, seed=seed)
    timings = {"analysis": time.monotonic() - t0, "generate": 0.0, "postprocess": 0.0,
               "run": 0.0}
    tree: list = []
    unresolved: list = []
    deadline = None if budget is None else t0 + budget

    def out_of_budget():
        if deadline is not None and time.monotonic() > deadline:
            return True
        return max_runs is not None and len(tree) >= max_runs

    def union_cov():
        s = set()
        for nd in tree:
            s.update(nd.covered)
        return s

    def full():
        return sr.total == 0 or sum(sr.markers[ln] for ln in union_cov()) >= sr.total

    seen_prefixes: set = set()

    def evaluate(props, step, parent):
        new = []
        for p in props:
            if out_of_budget():
                break
            if p.prefix in seen_prefixes:
                continue
            seen_prefixes.add(p.prefix)
            ts = time.monotonic()
            pre, dropped, why = postprocess(p.prefix, timeout)
            timings["postprocess"] += time.monotonic() - ts
            nd = TreeNode(len(tree), step, parent, p.prefix if pre is None else pre,
                          dropped_lines=dropped, note=p.note, plan=p.plan,
                          conversation=p.conversation)
            if pre is None:
                nd.status = "dropped"
                nd.error = {"type": "PrefixError", "message": why, "line": None,
                            "where": "prefix"}
            else:
                ts = time.monotonic()
                ev = sr.evaluate(pre)
                timings["run"] += time.monotonic() - ts
                nd.status, nd.covered, nd.covered_markers = ev["status"], ev["covered"], \
                    ev["markers"]
                nd.coverage, nd.error = ev["coverage"], ev["error"]
                for m in ev["failed_imports"]:
                    if m not in unresolved:
                        unresolved.append(m)
            nd.seconds = time.monotonic() - ts
            tree.append(nd)
            new.append(nd)
            if progress is not None:
                progress({"node": nd.id, "step": step, "coverage": nd.coverage,
                          "cumulative": (sum(sr.markers[ln] for ln in union_cov()) / sr.total)
                          if sr.total else 1.0, "status": nd.status})
            if full():
                break
        return new

    def gen_call(fn, *args):
        ts = time.monotonic()
        try:
            return fn(*args)
        finally:
            timings["generate"] += time.monotonic() - ts

    # the empty prefix first: injection alone, LExecutor's coverage
    first = evaluate([Proposal("", note="empty prefix (injection alone)")], "initial", None)
    # step 1: undefinedness guidance
    first += evaluate(gen_call(gen.initial, facts, n), "initial", None)
    # step 2: error guidance, for every failing prefix
    if not full():
        for nd in list(first):
            if out_of_budget() or full():
                break
            if nd.error is None or nd.status in ("ok", "exit"):
                continue
            props = gen_call(gen.repair, facts, nd.plan, nd.error, n, nd)
            evaluate(props, "error", nd.id)
    # step 3: coverage guidance, up to k times
    for _ in range(k):
        if out_of_budget() or full():
            break
        cov = union_cov()
        uncovered = sorted(ln for ln in sr.markers if ln not in cov)
        chosen = greedy_cover([nd.covered for nd in tree])
        bases = [tree[i] for i in chosen] or sorted(tree, key=lambda x: -x.coverage)[:1]
        props = gen_call(gen.guide, facts, uncovered, bases, n,
                         annotate_uncovered(text, uncovered))
        if not props:
            break
        new = evaluate(props, "coverage", bases[0].id if bases else None)
        # errors of coverage-guided prefixes get one repair round each
        for nd in new:
            if out_of_budget() or full():
                break
            if nd.error is not None and nd.status == "exception" and \
                    nd.error.get("where") == "snippet" and nd.coverage < 1.0:
                evaluate(gen_call(gen.repair, facts, nd.plan, nd.error, max(1, n // 3), nd),
                         "error", nd.id)
    for m in getattr(gen, "unresolved_imports", []):
        if m not in unresolved:
            unresolved.append(m)
    if install and unresolved:
        timings["install"] = _install(unresolved)
    chosen = greedy_cover([nd.covered for nd in tree])
    cov = union_cov()
    best = max(tree, key=lambda x: (x.covered_markers, -x.id)) if tree else None
    timings["total"] = time.monotonic() - t0
    timings["runs"] = sr.runs
    base_nd = tree[0] if tree and tree[0].prefix == "" else None
    total = sr.total
    return TreefixResult(
        filename=fname, total_lines=total, lines=sorted(sr.markers),
        prefixes=[tree[i].prefix for i in chosen], prefix_ids=[tree[i].id for i in chosen],
        best=best.prefix if best else "", best_id=best.id if best else None,
        coverage=(sum(sr.markers[ln] for ln in cov) / total) if total else 1.0,
        best_coverage=best.coverage if best else 0.0,
        covered=sorted(cov), uncovered=sorted(ln for ln in sr.markers if ln not in cov),
        tree=tree, unresolved_imports=unresolved, timings=timings,
        generator=getattr(gen, "name", type(gen).__name__),
        baseline_coverage=base_nd.coverage if base_nd else None)


def _install(modules) -> float:
    """pip install the top-level packages of unresolved imports (only with
    install=True).  Returns the seconds spent."""
    import subprocess
    import sys
    t = time.monotonic()
    tops = sorted({m.lstrip(".").split(".")[0] for m in modules if m.lstrip(".")})
    if tops:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *tops], check=False)
    return time.monotonic() - t
