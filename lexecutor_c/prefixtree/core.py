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
import heapq
import json
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Optional, Union

from ..engine.run import load_source, run
from .analysis import SnippetFacts, analyze
from .offline import OfflineGenerator, Plan, Proposal

MAX_DROP_ROUNDS = 10
#: coverage-guidance rounds at most when a budget bounds the search
MAX_ROUNDS = 1000
#: repairs in a row on a prefix whose error keeps moving
REPAIR_DEPTH = 4
#: consolidation batches at most once the search is over (each must gain)
CONSOLIDATE_ROUNDS = 2


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
    """Runs prefix + snippet and maps coverage back to the snippet.

    The snippet is instrumented and compiled once (execute.CompiledSnippet);
    each prefix runs in one isolated child: its statements without injection
    (a raising statement is dropped: the post-processing), then the snippet
    with injection.  ``snippet_limit`` adapts: once a run has finished, later
    runs give the snippet ten times the slowest finished run (three times
    after a run timed out; at least MIN_SNIPPET_LIMIT), so an endless loop
    over a stand-in costs a fraction of ``timeout``; the lines a timed-out
    run reached still count."""

    MIN_SNIPPET_LIMIT = 0.3

    def __init__(self, source: str, filename: str, predictor="naive", timeout=2.0,
                 seed=None, runner=None):
        from .execute import CompiledSnippet
        self.source = source if source.endswith("\n") else source + "\n"
        self.filename = filename
        self.predictor = predictor
        self.timeout = timeout
        self.seed = seed
        self.compiled = CompiledSnippet(self.source, filename, predictor=predictor, seed=seed,
                                        max_drops=MAX_DROP_ROUNDS)
        self.markers: dict = {}
        for line, _ in self.compiled.lines:
            self.markers[line] = self.markers.get(line, 0) + 1
        self.total = sum(self.markers.values())
        self.runs = 0
        self.unreachable: set = set()   # lines no run can reach (analysis.flow)
        self.timeouts = 0
        self.slowest = 0.0          # the slowest snippet part of a finished run

    @property
    def snippet_limit(self) -> float:
        """The snippet's share of a run: ``timeout`` until a run has finished,
        then ten times the slowest finished snippet (at least
        MIN_SNIPPET_LIMIT), three times after a run timed out."""
        if self.slowest <= 0:
            return self.timeout
        k = 3 if self.timeouts else 10
        return min(self.timeout, max(self.MIN_SNIPPET_LIMIT, k * self.slowest))

    def evaluate_prefix(self, prefix: str) -> dict:
        """Post-process and run ``prefix`` with the snippet: the evaluate()
        fields plus ``prefix`` (the statements kept; None when the prefix is
        dropped), ``dropped_lines`` and ``why`` (the reason it was dropped)."""
        return self.evaluate_batch([prefix])[0]

    def evaluate_batch(self, prefixes: list, budget: Optional[float] = None,
                       have=()) -> list:
        """evaluate_prefix() for several prefixes, run in one sandbox child
        (a grandchild each) when there are several.  Returns a result per
        prefix evaluated, in order: fewer when ``budget`` seconds ran out or
        the covered lines (with ``have``) reached every marker."""
        from .execute import compile_prefix
        out: list = [None] * len(prefixes)
        todo = []
        for i, prefix in enumerate(prefixes):
            try:
                todo.append((i, compile_prefix(prefix)))
            except SyntaxError as e:
                out[i] = self._dropped(prefix, [], f"prefix does not parse: {e.msg} "
                                                   f"(line {e.lineno})")
            except (ValueError, RecursionError, MemoryError, TypeError) as e:
                out[i] = self._dropped(prefix, [], f"prefix does not compile: {e}")
        if todo:
            pcs = [pc for _, pc in todo]
            if len(pcs) == 1 and budget is None:
                raws = [self.compiled.run(pcs[0], self.timeout, self.snippet_limit)]
            else:
                raws = self.compiled.run_batch(
                    pcs, self.timeout, self.snippet_limit,
                    budget if budget is not None else self.timeout * len(pcs) + 1.0,
                    have, set(self.markers) - self.unreachable)
            for (i, pc), r in zip(todo, raws):
                out[i] = self._result(prefixes[i], pc, r)
        # results up to the first prefix not run (budget, full coverage)
        done = []
        for i, ev in enumerate(out):
            if ev is None:
                break
            done.append(ev)
        self.runs += len(done)
        return done

    def _result(self, prefix: str, pc, r: dict) -> dict:
        from .execute import prefix_without
        kept, gone = prefix_without(pc, r.get("dropped") or [])
        if r["status"] == "prefix-timeout":
            return self._dropped(prefix, gone, "prefix runs past the time limit")
        if r["status"] == "prefix-fails":
            return self._dropped(prefix, gone, f"still raises after {MAX_DROP_ROUNDS} rounds")
        if r["status"] == "timeout":
            self.timeouts += 1
        elif r.get("snippet_s") is not None:
            self.slowest = max(self.slowest, float(r["snippet_s"]))
        covered = sorted(ln for ln in r.get("covered") or () if ln in self.markers)
        markers = sum(self.markers[ln] for ln in covered)
        err = r.get("error")
        if err is None and r["status"] in ("timeout", "memory", "crashed"):
            err = {"type": r["status"], "message": r.get("why") or r["status"], "line": None,
                   "where": "snippet"}
        return {"status": r["status"], "covered": covered, "markers": markers,
                "coverage": markers / self.total if self.total else 1.0, "error": err,
                "failed_imports": list(r.get("failed_imports") or []), "prefix": kept,
                "dropped_lines": gone, "why": None, "wall": r.get("wall", 0.0)}

    def _dropped(self, prefix, gone, why) -> dict:
        return {"status": "dropped", "covered": [], "markers": 0, "coverage": 0.0,
                "error": {"type": "PrefixError", "message": why, "line": None,
                          "where": "prefix"},
                "failed_imports": [], "prefix": None, "dropped_lines": gone, "why": why,
                "wall": 0.0}

    def evaluate(self, prefix: str) -> dict:
        """Coverage of the snippet after ``prefix`` (post-processed first)."""
        return self.evaluate_prefix(prefix)


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
    sr.unreachable = set(facts.unreachable)
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
        """Every line a run can reach is covered (lines after a statement
        that always leaves its block do not count here)."""
        cov = union_cov()
        return all(ln in cov for ln in sr.markers if ln not in facts.unreachable)

    seen_prefixes: set = set()
    gains: list = []            # (seconds, lines added) per batch that added lines

    def evaluate(props, step, parent, whole=False):
        """Run the proposals not tried yet, as one batch (one sandbox child,
        a grandchild per prefix), within the budget; a tree node each.
        ``whole``: also once P covers every line, and every prefix of the
        batch runs to its end (consolidation: one prefix doing what P does)."""
        new = []
        batch = []
        for p in props:
            if p.prefix in seen_prefixes:
                continue
            seen_prefixes.add(p.prefix)
            batch.append(p)
        if max_runs is not None:
            batch = batch[:max(0, max_runs - len(tree))]
        if not batch or out_of_budget() or (full() and not whole):
            return new
        left = None if deadline is None else max(0.05, deadline - time.monotonic())
        ts = time.monotonic()
        evs = sr.evaluate_batch([p.prefix for p in batch], budget=left,
                                have=() if whole else union_cov())
        spent = time.monotonic() - ts
        timings["run"] += spent
        before = len(union_cov())
        for p, ev in zip(batch, evs):
            pre = ev["prefix"]
            nd = TreeNode(len(tree), step, parent, p.prefix if pre is None else pre,
                          dropped_lines=ev["dropped_lines"], note=p.note, plan=p.plan,
                          conversation=p.conversation)
            nd.status, nd.covered, nd.covered_markers = ev["status"], ev["covered"], \
                ev["markers"]
            nd.coverage, nd.error = ev["coverage"], ev["error"]
            for m in ev["failed_imports"]:
                if m not in unresolved:
                    unresolved.append(m)
            nd.seconds = ev.get("wall") or spent / max(1, len(evs))
            if nd.status == "timeout" and hasattr(gen, "note_timeout"):
                gen.note_timeout(facts, nd.plan)
            tree.append(nd)
            new.append(nd)
            if progress is not None:
                progress({"node": nd.id, "step": step, "coverage": nd.coverage,
                          "cumulative": (sum(sr.markers[ln] for ln in union_cov()) / sr.total)
                          if sr.total else 1.0, "status": nd.status})
        for p in batch[len(evs):]:
            seen_prefixes.discard(p.prefix)          # not run: may be proposed again
        if len(union_cov()) > before:
            timings["last_gain"] = time.monotonic() - t0
            gains.append((round(timings["last_gain"], 3), len(union_cov()) - before))
        return new

    def gen_call(fn, *args):
        ts = time.monotonic()
        try:
            return fn(*args)
        finally:
            timings["generate"] += time.monotonic() - ts

    # the empty prefix first: injection alone, LExecutor's coverage
    first = evaluate([Proposal("", plan=Plan(sparse=True),
                               note="empty prefix (injection alone)")], "initial", None)
    # step 1: undefinedness guidance
    first += evaluate(gen_call(gen.initial, facts, n), "initial", None)

    def failing(nd):
        return nd.error is not None and nd.status not in ("ok", "exit", "timeout")

    # Steps 2 and 3 interleaved: a batch of repairs for the most promising
    # failing prefix (error guidance), then a batch of coverage guidance,
    # and again, so that neither starves the other.  A repaired prefix that
    # fails differently (another error, or the same one further on) without
    # losing coverage is queued again, up to REPAIR_DEPTH repairs in a row:
    # one repair often only uncovers the next missing piece.  Coverage
    # guidance runs k times; with a budget it goes on while the budget
    # lasts and the generator has new ideas (the paper's k bounds an LLM's
    # cost; runs of the offline generator are cheap).
    pending: list = []          # (priority, node id, depth, width)

    def queue(nodes, depth, width):
        for nd in nodes:
            if failing(nd):
                heapq.heappush(pending, ((-nd.covered_markers, depth, nd.id), nd.id, depth,
                                         width))

    queue(first, 0, n)
    rounds = 0
    while not out_of_budget() and not full():
        progressed = False
        if pending:
            _, nid, depth, width = heapq.heappop(pending)
            nd = tree[nid]
            new = evaluate(gen_call(gen.repair, facts, nd.plan, nd.error, width, nd),
                           "error", nd.id)
            progressed = True
            if depth + 1 < REPAIR_DEPTH:
                moved = [c for c in new if failing(c) and
                         c.covered_markers >= nd.covered_markers and
                         _error_key(c.error) != _error_key(nd.error)]
                moved.sort(key=lambda c: (-c.covered_markers, -(c.error.get("line") or 0)))
                queue(moved[:2], depth + 1, width)
            if out_of_budget() or full():
                break
        if rounds < k or (deadline is not None and rounds < MAX_ROUNDS):
            rounds += 1
            cov = union_cov()
            uncovered = sorted(ln for ln in sr.markers if ln not in cov)
            chosen = greedy_cover([x.covered for x in tree])
            bases = [tree[i] for i in chosen] or sorted(tree, key=lambda x: -x.coverage)[:1]
            props = gen_call(gen.guide, facts, uncovered, bases, n,
                             annotate_uncovered(text, uncovered))
            if props:
                new = evaluate(props, "coverage", bases[0].id if bases else None)
                progressed = True
                # errors of coverage-guided prefixes get repairs too
                queue([x for x in new if x.status == "exception" and
                       x.error.get("where") == "snippet" and x.coverage < 1.0], 0,
                      max(1, n // 3))
            else:
                rounds = max(rounds, k) if deadline is None else MAX_ROUNDS
        if not progressed:
            break
    # Consolidation: P covers more than its best prefix: one prefix with the
    # decisions of several (the best one's first, then each other member's
    # where the best has none), while that raises the best single prefix.
    for _ in range(CONSOLIDATE_ROUNDS):
        if out_of_budget() or not hasattr(gen, "consolidate") or len(tree) < 2:
            break
        best_nd = max(tree, key=lambda x: (x.covered_markers, -x.id))
        cov_markers = sum(sr.markers[ln] for ln in union_cov())
        if best_nd.covered_markers >= cov_markers:
            break
        chosen = [tree[i] for i in greedy_cover([x.covered for x in tree])]
        others = sorted((x for x in chosen if x is not best_nd),
                        key=lambda x: -len(set(x.covered) - set(best_nd.covered)))
        props = gen_call(gen.consolidate, facts, best_nd, others, n)
        new = evaluate(props, "consolidate", best_nd.id, whole=True)
        if not new or max(x.covered_markers for x in new) <= best_nd.covered_markers:
            break
    for m in getattr(gen, "unresolved_imports", []):
        if m not in unresolved:
            unresolved.append(m)
    if install and unresolved:
        timings["install"] = _install(unresolved)
    chosen = greedy_cover([nd.covered for nd in tree])
    cov = union_cov()
    best = max(tree, key=lambda x: (x.covered_markers, -x.id)) if tree else None
    timings["total"] = time.monotonic() - t0
    timings["gains"] = gains
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


def _error_key(err: Optional[dict]) -> tuple:
    """An error without the addresses and numbers that differ between runs."""
    if not err:
        return ()
    msg = re.sub(r"0x[0-9a-f]+|\d+", "#", str(err.get("message", "")))
    return (err.get("type"), msg, err.get("line"))


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
