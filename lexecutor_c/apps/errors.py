"""Runtime errors in incomplete code (the task of ORCA and of runtime-error
prediction): run the code several times under injection and report the
exceptions that end the runs, telling those the code itself causes from
those an unrealistic injected value causes.

Runs (each in a sandbox child, with the same standard input):

1. with the Treefix prefix set, when ``lexecutor_c.treefix`` is importable:
   one run per prefix, the prefix placed before the code (injection stays on
   underneath);
2. one run with the deterministic ``naive`` predictor (for complete code
   this is the plain run: nothing is missing, nothing injected);
3. ``seeds`` runs with the ``random`` predictor and randomized values.

The rule, per run that ends in an exception at line L (the innermost frame
of the file):

* ``missing`` -- NameError, UnboundLocalError or ImportError: a missing value
  the injection did not cover (e.g. ``x += 1`` on a name never assigned).
* ``injected`` -- the exception involves an injected value: line L reads a
  name that was injected in this run, or an attribute or a call result the
  runtime injected under that name, or a variable whose value at the crash
  is an injected Dummy; or the exception was raised in library code called
  from L while one of its frames held a Dummy; or its message shows one.
* ``derived`` -- line L reads a variable that the code computes from an
  injected name (a flow-insensitive closure over the file's assignments,
  augmented assignments, loop targets and ``with`` targets), or assigns
  under an ``if``/``for``/``while``/``match`` whose header reads one.
* ``real`` -- none of that: L reads no injected value nor anything computed
  from one.  Complete code gets no injections, so each of its crashes is
  ``real``.

Runs are grouped by (exception type, line).  A group is ``real`` if any of
its runs is; else the weakest other involvement (``derived`` before
``injected`` before ``missing``).  ``distinct_values`` counts the different
injected values under which a group occurred: a crash that persists across
several different injected values is more likely the code's own.
"""
from __future__ import annotations

import ast
import builtins
import sys
from dataclasses import asdict, dataclass, field
from typing import Optional

from ..engine import sandbox

__all__ = ["ErrorReport", "find_errors", "classify_order"]

REAL, DERIVED, INJECTED, MISSING = "real", "derived", "injected", "missing"
#: strongest claim first: a group takes the first category any of its runs has
classify_order = (REAL, DERIVED, INJECTED, MISSING)
_MISSING_TYPES = ("NameError", "UnboundLocalError", "ImportError", "ModuleNotFoundError")


# ---------------------------------------------------------------- static helpers

def _stmt_at(tree: ast.AST, line: int) -> list[ast.AST]:
    """The innermost statement(s) starting at or spanning ``line``; for a
    compound statement only its header parts."""
    best: list[ast.AST] = []

    def visit(stmts):
        nonlocal best
        for s in stmts:
            if not (s.lineno <= line <= (s.end_lineno or s.lineno)):
                continue
            bodies = [getattr(s, a) for a in ("body", "orelse", "finalbody")
                      if isinstance(getattr(s, a, None), list) and getattr(s, a)]
            inner = [x for b in bodies for x in b]
            for h in getattr(s, "handlers", None) or []:
                inner.extend(h.body)
            for c in getattr(s, "cases", None) or []:
                inner.extend(c.body)
            if inner and any(x.lineno <= line <= (x.end_lineno or x.lineno) for x in inner):
                visit(inner)
                return
            if inner:       # the header: test, iter, items, ...
                best = [v for k, v in ast.iter_fields(s)
                        if k not in ("body", "orelse", "finalbody", "handlers", "cases")
                        and isinstance(v, ast.AST)]
                best += [x for k, v in ast.iter_fields(s) if k in ("items", "decorator_list")
                         and isinstance(v, list) for x in v if isinstance(x, ast.AST)]
            else:
                best = [s]
            return
    visit(tree.body)
    return best


def reads_at(tree: ast.AST, line: int) -> tuple[set, set]:
    """(names read, attribute names read or called) by the statement at line."""
    names, attrs = set(), set()
    for node in _stmt_at(tree, line):
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                names.add(n.id)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and \
                    isinstance(node, ast.AugAssign):
                names.add(n.id)
            elif isinstance(n, ast.Attribute):
                attrs.add(n.attr)
    return names, attrs


def _targets(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _edges(node, control: frozenset, edges: list) -> None:
    """(targets, names read) pairs: data flow, plus control flow from the
    header of an enclosing if/for/while/match to what its body assigns."""
    def add(targets, reads):
        if targets:
            edges.append((targets, reads | control))
    if isinstance(node, ast.Assign):
        add(set().union(*(_targets(t) for t in node.targets)), _targets(node.value))
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
        t = _targets(node.target)
        add(t, _targets(node.value) | (t if isinstance(node, ast.AugAssign) else set()))
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        add(_targets(node.target), _targets(node.iter))
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        add(_targets(node.optional_vars), _targets(node.context_expr))
    elif isinstance(node, ast.NamedExpr):
        add(_targets(node.target), _targets(node.value))
    header = None
    if isinstance(node, (ast.If, ast.While)):
        header = node.test
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        header = node.iter
    elif isinstance(node, ast.Match):
        header = node.subject
    inner = control | frozenset(_targets(header)) if header is not None else control
    for field_name, value in ast.iter_fields(node):
        in_body = field_name in ("body", "orelse", "cases")
        for child in (value if isinstance(value, list) else [value]):
            if isinstance(child, ast.AST):
                _edges(child, inner if in_body else control, edges)


def derived_names(tree: ast.AST, seeds: set) -> set:
    """Names whose values the file computes from ``seeds`` (flow-insensitive;
    data flow and the control flow of if/for/while/match headers)."""
    edges: list[tuple[set, set]] = []      # (targets, names read)
    _edges(tree, frozenset(), edges)
    out = set(seeds)
    changed = True
    while changed:
        changed = False
        for targets, reads in edges:
            if reads & out and not targets <= out:
                out |= targets
                changed = True
    return out - set(seeds)


# ---------------------------------------------------------------- the child

def _injected_type(v) -> bool:
    t = type(v)
    return t.__module__ == "lexecutor_c._core" and t.__name__ in ("Dummy", "DummyResource")


def _errors_child(text: str, filename: str, opts: dict, offset: int) -> dict:
    from .._core import Runtime
    from ..engine.instrument import instrument
    inst = instrument(text, filename=filename)
    code = inst.compile()
    rt = Runtime(sites=inst.iids, predictor=opts["predictor"], abstraction="fine",
                 seed=opts["seed"], randomize=opts["randomize"], record=False,
                 filename=filename)
    env = {"__name__": "__main__", "__builtins__": builtins, "__file__": filename}
    env.update(rt.loaders())
    out: dict = {"status": "ok", "exception": None}
    try:
        exec(code, env)
    except SystemExit:
        out["status"] = "exit"
    except sandbox.Timeout:
        out["status"] = "timeout"
    except BaseException as e:
        out["status"] = "exception"
        out["exception"] = _analyse(e, filename, text, offset)
    finally:
        sandbox._disarm()
    out["injections"] = [{"kind": str(k), "name": None if n is None else str(n),
                          "line": None if ln is None else int(ln) - offset, "cls": str(c),
                          "value": str(v)}
                         for (_i, k, n, ln, c, v) in rt.injections]
    env.clear()
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except BaseException:
            pass
    return out


def _analyse(e: BaseException, filename: str, text: str, offset: int) -> dict:
    from ..engine import run as api
    tb = e.__traceback__
    user_frame, user_line, after_user = None, None, []
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            user_frame, user_line, after_user = tb.tb_frame, tb.tb_lineno, []
        else:
            after_user.append(tb.tb_frame)
        tb = tb.tb_next
    info = {"type": api._type_name(type(e)), "message": api._safe_str(e)[:500],
            "line": None if user_line is None else user_line - offset,
            "in_prefix": user_line is not None and user_line <= offset,
            "dummy_in_library": False, "dummy_values": []}
    for fr in after_user:
        try:
            if any(_injected_type(v) for v in list(fr.f_locals.values())):
                info["dummy_in_library"] = True
                break
        except BaseException:
            pass
    if user_frame is not None and user_line is not None:
        try:
            names, _ = reads_at(ast.parse(text), user_line)
        except (SyntaxError, ValueError):
            names = set()
        ns = {**user_frame.f_globals, **user_frame.f_locals}
        info["dummy_values"] = sorted(n for n in names if n in ns and _injected_type(ns[n]))
    return info


# ---------------------------------------------------------------- runs

@dataclass
class Run:
    label: str
    status: str
    exception: Optional[dict] = None
    category: Optional[str] = None
    involved: list = field(default_factory=list)
    injections: list = field(default_factory=list)
    error: Optional[str] = None


@dataclass
class ErrorGroup:
    type: str
    line: Optional[int]
    message: str
    category: str
    runs: int
    labels: list
    involved: list
    distinct_values: int


@dataclass
class ErrorReport:
    filename: str
    source_of_runs: str                 # "treefix+injection" or "injection"
    runs: list
    errors: list                        # ErrorGroup, real ones first
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def real(self) -> list:
        return [g for g in self.errors if g.category == REAL]


def _treefix_prefixes(text: str, notes: list) -> Optional[list[str]]:
    """The Treefix prefix set (lexecutor_c/prefixtree/), None when the search fails."""
    # a module registered as lexecutor_c.treefix (a plug-in, or a test's stand-in)
    # takes precedence
    mod = sys.modules.get("lexecutor_c.treefix")
    fn = getattr(mod, "treefix", None) if mod is not None else None
    if fn is None:
        from ..prefixtree import treefix as fn
    if not callable(fn):
        notes.append("lexecutor_c.treefix has no treefix(); using injection only")
        return None
    try:
        t = fn(text, generator="offline")
        items = list(getattr(t, "prefixes", None) or [])
    except Exception as e:          # a failing optional stage must not end the command
        notes.append(f"treefix failed ({type(e).__name__}: {e}); using injection only")
        return None
    out = []
    for p in items:
        if isinstance(p, str):
            out.append(p)
            continue
        for attr in ("source", "code", "text", "prefix"):
            v = getattr(p, attr, None)
            if isinstance(v, str):
                out.append(v)
                break
    return out


def _classify(run_exc: dict, injections: list, tree: Optional[ast.AST]) -> tuple[str, list]:
    if run_exc["type"].split(".")[-1] in _MISSING_TYPES:
        return MISSING, []
    line = run_exc["line"]
    inj_names = {i["name"] for i in injections if i["kind"] == "name" and i["name"]}
    inj_other = {i["name"] for i in injections if i["kind"] != "name" and i["name"]}
    names, attrs = (reads_at(tree, line) if tree is not None and line is not None
                    else (set(), set()))
    involved = sorted((names & inj_names) | (attrs & inj_other) | (names & inj_other) |
                      set(run_exc.get("dummy_values") or []))
    if involved or run_exc.get("dummy_in_library") or "<Dummy" in run_exc["message"] or \
            "<injected callable" in run_exc["message"]:
        return INJECTED, involved
    if tree is not None and inj_names:
        derived = derived_names(tree, inj_names) & names
        if derived:
            return DERIVED, sorted(derived)
    return REAL, []


def find_errors(source_or_path, *, stdin=None, seeds: int = 5, timeout: float = 10.0,
                use_treefix: bool = True, filename: Optional[str] = None) -> ErrorReport:
    """Run the code (see the module docstring) and group its exceptions.
    Raises like lexecutor_c.run for unreadable or unparsable input."""
    from ..engine import run as api
    text, filename = api.load_source(source_or_path, filename)
    tree = ast.parse(text, filename)          # SyntaxError for the caller
    if isinstance(stdin, str):
        stdin = stdin.encode()
    notes: list[str] = []
    plan = []          # (label, prefix, predictor, seed, randomize)
    prefixes = _treefix_prefixes(text, notes) if use_treefix else None
    for k, p in enumerate(prefixes or []):
        plan.append((f"treefix prefix {k + 1}", p, "naive", None, False))
    plan.append(("naive injection", "", "naive", None, False))
    for s in range(seeds):
        plan.append((f"random seed {s}", "", "random", s, True))
    runs: list[Run] = []
    for label, prefix, predictor, seed, randomize in plan:
        if prefix and not prefix.endswith("\n"):
            prefix += "\n"
        offset = prefix.count("\n")
        opts = {"predictor": predictor, "seed": seed, "randomize": randomize}
        out = sandbox.call_isolated(_errors_child, prefix + text, filename, opts, offset,
                                    limits=sandbox.Limits(timeout=timeout), stdin=stdin)
        if out.status != "ok" or not isinstance(out.value, dict):
            status = out.status if out.status in ("timeout", "memory") else "crashed"
            if out.status == "exception" and prefix:
                status = "prefix-failed"
            runs.append(Run(label, status, error=out.describe()))
            continue
        r = out.value
        run = Run(label, r["status"], r["exception"], injections=r["injections"])
        if r["exception"] is not None:
            if r["exception"].get("in_prefix"):
                run.status = "prefix-failed"
                run.exception = None
            else:
                run.category, run.involved = _classify(r["exception"], r["injections"], tree)
        runs.append(run)
    if prefixes is None and use_treefix:
        notes.append("lexecutor_c.treefix is not available: injected runs only")
    return ErrorReport(filename, "treefix+injection" if prefixes else "injection", runs,
                       _group(runs), notes)


def _group(runs: list[Run]) -> list[ErrorGroup]:
    groups: dict[tuple, list[Run]] = {}
    for r in runs:
        if r.exception is not None and r.category is not None:
            groups.setdefault((r.exception["type"], r.exception["line"]), []).append(r)
    out = []
    for (typ, line), rs in groups.items():
        cats = {r.category for r in rs}
        cat = next(c for c in classify_order if c in cats)
        involved = sorted({n for r in rs for n in r.involved})
        values = set()
        for r in rs:
            values.add(tuple(sorted((i["name"], i["value"]) for i in r.injections
                                    if i["name"] in r.involved or not r.involved)))
        out.append(ErrorGroup(typ, line, rs[0].exception["message"], cat, len(rs),
                              [r.label for r in rs], involved, len(values)))
    out.sort(key=lambda g: (classify_order.index(g.category), -g.runs, g.line or 0))
    return out
