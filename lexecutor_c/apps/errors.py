"""Runtime errors in incomplete code (the task of ORCA and of runtime-error
prediction): run the code several times under injection and report the
exceptions that end the runs, telling those the code itself causes from
those an unrealistic injected value causes.  docs/APPLICATIONS.md has the
whole story; in short:

**What runs.**  Each run executes, in a sandbox child, the file after a
prefix:

1. the *restored imports* (apps/prefixes.py): ``import math``,
   ``from collections import deque``, ``import numpy as np``... for the
   names the file reads and never binds, when the knowledge index places
   them -- every run has them;
2. one run with the deterministic ``naive`` predictor.  When it injected
   nothing (and the program's input is known or not read) it is the
   program's own behaviour and the only run;
3. otherwise one run per Treefix prefix (the best prefix set, best first)
   and ``seeds`` runs with the ``random`` predictor and randomized values.
   Injected values honour the use-site constraints (``range(n)`` gets an
   int, ``",".join(xs)`` a list of str): the runtime's constraint hook,
   whose fixed numbers the randomized runs draw from their seed.

A file that is a function body (``return`` at top level) runs wrapped in a
function.  Line numbers are always the file's own.

**The verdict of a run that ends in an exception** follows the *failing
operation* (apps/taint.py): the instruction that raised, read from the
traceback's last instruction, its operands, and for each operand whether it
holds an injected value (a loader inside it injected, or its value is a
Dummy), or a value computed from one (a static closure over the file's
names, seeded with the names injected in this run, the names a Treefix
prefix binds to generated values, and what is read from standard input
when none was given):

* ``missing`` -- NameError, UnboundLocalError, ImportError (a value the
  injection did not cover), EOFError when no input was given;
* ``injected`` -- an operand holds an injected value, or the exception
  came from library code holding a Dummy, or the message names our Dummy;
* ``derived`` -- an operand is computed from injected values;
* ``real`` -- none of that.

**Groups.**  Runs are grouped by (exception type, line).  A group is
``real`` when one of its runs is, *or* when the crash does not depend on
the injected values: it happened in at least two runs with different
values of the inputs its operands come from, with the same message, no
operand was a Dummy, and no run in which those inputs were real values
reached the line without raising it there.  Else the group takes the
weakest other verdict (``derived``, ``injected``, ``missing``).
``inputs`` shows the injected values under which it happened.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import sys
import warnings
from dataclasses import asdict, dataclass, field
from typing import Optional

from ..engine import sandbox
from . import taint
from .prefixes import prefix_bindings, restore_imports, treefix_prefixes

__all__ = ["ErrorReport", "ErrorGroup", "Run", "find_errors", "classify_order", "REAL",
           "DERIVED", "INJECTED", "MISSING"]

REAL, DERIVED, INJECTED, MISSING = "real", "derived", "injected", "missing"
#: strongest claim first: a group takes the first category any of its runs has
classify_order = (REAL, DERIVED, INJECTED, MISSING)
_MISSING_TYPES = ("NameError", "UnboundLocalError", "ImportError", "ModuleNotFoundError")
#: text that shows an injected object in an exception message
_DUMMY_MARKS = ("<Dummy", "Dummy'", "Dummy object", "_core.Dummy", "DummyResource",
                "<injected callable")
#: abstract classes the runtime injects as Dummy objects rather than real values
_DUMMY_CLASSES = ("object", "resource", "callable")
#: the function a top-level `return` is wrapped in
_WRAPPER = "__lexecutor_snippet__"


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
    header = taint.control_header(node)
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


#: classes whose randomized values vary with the seed (concretize.c's choices)
_VARIED = ((int, "int_pos", "int_neg"), (float, "float_pos", "float_neg"))


def _varied_hook(use, value, cls, kind, name):
    """The runtime's constraint hook for the randomized runs, with one
    change: where it replaces an argument by a fixed number (``range(n)``
    -> 3), the number is drawn from the run's seed when a seeded value of
    the same sign also meets the argument's spec.  Without it every seed
    would give ``n`` the same value, and a crash could never be seen to
    happen "for every value" (the group rule)."""
    from ..knowledge.inject import arg_spec, fits, runtime_hook
    ans = runtime_hook(use, value, cls, kind, name)
    if not callable(ans) or not (isinstance(use, tuple) and len(use) >= 3 and use[0] == "arg"):
        return ans
    try:
        spec = arg_spec(use[1], use[2], use[3] if len(use) > 3 else None)
    except Exception:
        return ans

    def make(rt):
        v = ans(rt)
        for typ, pos, neg in _VARIED:
            if type(v) is typ and v != 0:
                alt = rt.concretize(pos if v > 0 else neg, name or "")
                if spec is None or fits(alt, spec):
                    return alt
        return v
    return make


def _runtime(inst, filename: str, opts: dict):
    """A Runtime whose injected values honour the use-site constraints
    (docs/RUNTIME.md): the default hook, or _varied_hook in randomized runs."""
    from .._core import Runtime
    return Runtime(sites=inst.iids, predictor=opts["predictor"],
                   constraints=_varied_hook if opts["randomize"] else True,
                   abstraction="fine", seed=opts["seed"], randomize=opts["randomize"],
                   record=False, filename=filename)


def _errors_child(text: str, filename: str, opts: dict, offset: int) -> dict:
    from ..engine.instrument import instrument
    inst = instrument(text, filename=filename)
    code = inst.compile()
    rt = _runtime(inst, filename, opts)
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
        out["exception"] = _analyse(e, filename, text, offset, inst)
    finally:
        sandbox._disarm()
    out["injections"] = [{"iid": int(i), "kind": str(k), "name": None if n is None else str(n),
                          "line": None if ln is None else int(ln) - offset, "cls": str(c),
                          "value": str(v)[:200]}
                         for (i, k, n, ln, c, v) in rt.injections]
    marks = {int(r.iid): int(r.line) for r in inst.lines}
    out["reached"] = sorted({marks[i] - offset for i in rt.reached() if i in marks})
    env.clear()
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except BaseException:
            pass
    return out


def _analyse(e: BaseException, filename: str, text: str, offset: int, inst=None) -> dict:
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
            "dummy_in_library": False, "dummy_values": [], "operation": None}
    for fr in after_user:
        try:
            if any(_injected_type(v) for v in list(fr.f_locals.values())):
                info["dummy_in_library"] = True
                break
        except BaseException:
            pass
    if inst is not None and user_line is not None and user_line > offset:
        try:
            op = taint.failing_operation(e, filename, inst, offset)
        except Exception:           # never let the analysis lose the run
            op = None
        if op is not None:
            info["operation"] = op
    if user_frame is not None and user_line is not None and info["operation"] is None:
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
    #: lines (the file's) whose statements finished at least once
    reached: list = field(default_factory=list)
    #: source -> the value it had in this run (names injected, prefix, stdin)
    inputs: dict = field(default_factory=dict)
    #: sources whose values were Dummy objects in this run
    dummy_sources: list = field(default_factory=list)


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
    #: the failing operation as written (``r ** 2``), when it could be told
    operation: Optional[str] = None
    #: the injected values (source -> value) of the first run it happened in
    inputs: dict = field(default_factory=dict)
    #: why the group is real: "operands" (no injected operand) or
    #: "every value" (the same crash for every value tried); None otherwise
    why_real: Optional[str] = None
    #: programs that read their input (apps/stdinrun.py): the smallest
    #: standard input found that triggers it
    input: Optional[str] = None


@dataclass
class ErrorReport:
    filename: str
    source_of_runs: str                 # "treefix+injection", "injection" or "plain"
    runs: list
    errors: list                        # ErrorGroup, real ones first
    notes: list = field(default_factory=list)
    restored_imports: list = field(default_factory=list)
    #: programs that read their input: the grammar, the assumption
    #: (complete or not), timeouts, memory, inputs run (apps/stdinrun.py)
    stdin: Optional[dict] = None

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def real(self) -> list:
        return [g for g in self.errors if g.category == REAL]


class _Context:
    """What the classification of one file's runs needs."""

    def __init__(self, text: str, tree: Optional[ast.AST], stdin_known: bool,
                 guessed: tuple = ()):
        self.tree = tree
        #: restored imports that are guesses: their values count as injected
        self.guessed = {n: {f"{n} (guessed import)"} for n in guessed}
        self.dep = taint.Dependence(tree) if tree is not None else None
        self.stdin_known = stdin_known
        self.stdin_seeds: dict = {}
        if self.dep is not None and not stdin_known:
            self.stdin_seeds = {n: {taint.STDIN} for n in self.dep.stdin_targets}

    def seeds(self, injections: list, prefix_names: set) -> dict:
        """name -> sources for one run."""
        out: dict = {k: set(v) for k, v in self.stdin_seeds.items()}
        for k, v in self.guessed.items():
            out.setdefault(k, set()).update(v)
        for i in injections:
            if not i["name"]:
                continue
            if i["kind"] == "name":
                out.setdefault(i["name"], set()).add(i["name"])
            elif self.dep is not None and i["line"] is not None and i["line"] > 0:
                stmt = self.dep.statement_at(i["line"])
                if stmt is not None:
                    for t in self.dep.assigned(stmt):
                        out.setdefault(t, set()).add(source_name(i))
        for n in prefix_names:
            out.setdefault(n, set()).add(n)
        return out


def source_name(injection: dict) -> str:
    """How an injection is named as a source: ``n`` (a name), ``.attr``
    (an attribute), ``f()`` (a call's result)."""
    kind, name = injection["kind"], injection["name"]
    if kind == "attribute":
        return "." + name
    if kind == "call":
        return name + "()"
    return name


def _dummy_message(msg: str) -> bool:
    return any(m in msg for m in _DUMMY_MARKS)


def _classify(run_exc: dict, injections: list, tree: Optional[ast.AST],
              ctx: Optional[_Context] = None, prefix_names: frozenset = frozenset()
              ) -> tuple[str, list]:
    """(category, involved sources) of one run's exception."""
    typ = run_exc["type"].split(".")[-1]
    if typ in _MISSING_TYPES:
        return MISSING, []
    if typ == "EOFError" and ctx is not None and not ctx.stdin_known:
        return MISSING, [taint.STDIN]
    if _dummy_message(run_exc["message"]):
        return INJECTED, []
    op = run_exc.get("operation")
    if op is None or ctx is None or ctx.dep is None:
        return _classify_line(run_exc, injections, tree)
    by_iid = {i["iid"]: i for i in injections if i.get("iid") is not None}
    involved: set = set()
    names: set = set()
    for o in op["operands"]:
        for iid in o["iids"]:
            i = by_iid.get(iid)
            if i is not None and i["name"]:
                involved.add(source_name(i))
        if o["injected_value"]:
            involved.update(o["names"] or ["<injected>"])
        names.update(o["names"])
    seeds = ctx.seeds(injections, prefix_names)
    sources = ctx.dep.sources_of(names, seeds)
    if not ctx.stdin_known and any(o.get("stdin") for o in op["operands"]):
        sources.setdefault(taint.STDIN, [])
    if involved or run_exc.get("dummy_in_library"):
        # the sources of an injected operand: what was injected in it, and
        # what its names derive from
        return INJECTED, sorted(involved | set(sources))
    if sources:
        return DERIVED, sorted(sources)
    return REAL, []


def _direct_injection(run: "Run") -> bool:
    """An operand of the failing operation is itself an injected value (not
    one computed from it): its type is the injector's choice."""
    op = (run.exception or {}).get("operation")
    if op is None:
        return True
    iids = {i.get("iid") for i in run.injections}
    return any(o["injected_value"] or (o.get("direct_iid") is not None and
                                       o["direct_iid"] in iids) for o in op["operands"])


def _classify_line(run_exc: dict, injections: list, tree: Optional[ast.AST]) -> tuple[str, list]:
    """The line-level rule, when the failing operation cannot be told: any
    injected name the line reads, or one computed from it."""
    line = run_exc["line"]
    inj_names = {i["name"] for i in injections if i["kind"] == "name" and i["name"]}
    inj_other = {i["name"] for i in injections if i["kind"] != "name" and i["name"]}
    names, attrs = (reads_at(tree, line) if tree is not None and line is not None
                    else (set(), set()))
    involved = sorted((names & inj_names) | (attrs & inj_other) | (names & inj_other) |
                      set(run_exc.get("dummy_values") or []))
    if involved or run_exc.get("dummy_in_library"):
        return INJECTED, involved
    if tree is not None and inj_names:
        derived = derived_names(tree, inj_names) & names
        if derived:
            return DERIVED, sorted(derived)
    return REAL, []


# ---------------------------------------------------------------- preparing the text

def _wrap_needed(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<snippet>", "exec", dont_inherit=True)
    except SyntaxError as e:
        msg = str(e.msg)
        return ("'return' outside function" in msg or "'yield' outside function" in msg or
                "'nonlocal'" in msg)
    except ValueError:
        return False
    return False


def _wrap(text: str) -> tuple[str, str, str]:
    """(head, body, tail): the file as the body of a function that is then
    called; body lines keep their count."""
    unit = "\t" if any(ln.startswith("\t") for ln in text.splitlines()) else "    "
    body = "".join(unit + ln if ln.strip() else ln for ln in text.splitlines(True))
    if not body.endswith("\n"):
        body += "\n"
    return f"def {_WRAPPER}():\n", body, f"{_WRAPPER}()\n"


def find_errors(source_or_path, *, stdin=None, seeds: int = 5, timeout: float = 10.0,
                use_treefix: bool = True, filename: Optional[str] = None,
                restore: bool = True, treefix_budget: float = 5.0, input_spec=None,
                infer_input: Optional[bool] = None, budget: float = 8.0,
                samples=None) -> ErrorReport:
    """Run the code (see the module docstring) and group its exceptions.
    Raises like lexecutor_c.run for unreadable or unparsable input.

    Programs that read their input (apps/stdinrun.py): ``input_spec`` (the
    input section of a problem statement as text, a path to it, a grammar
    in its JSON form or an inputspec.Grammar) makes valid inputs from it
    (``stdin``, when given, is run first as a sample; else ``samples``, else
    the sample inputs a description as text shows); without it and
    without ``stdin``, a complete program that reads its input runs on
    inputs inferred from its reads (``infer_input`` False: never, True:
    also for incomplete ones).  ``budget``: seconds for those runs.
    inputspec.SpecError for a description the rules cannot read."""
    from ..engine import run as api
    text, filename = api.load_source(source_or_path, filename)
    if input_spec is not None or (stdin is None and infer_input is not False):
        rep = _stdin_errors(text, filename, stdin, input_spec, infer_input, timeout, budget,
                            restore, samples)
        if rep is not None:
            return rep
    wrap = _wrap_needed(text)
    if wrap:
        head0, body, tail = _wrap(text)
        tree = ast.parse(head0 + body + tail, filename)
    else:
        head0, body, tail = "", text, ""
        tree = ast.parse(text, filename)          # SyntaxError for the caller
    if isinstance(stdin, str):
        stdin = stdin.encode()
    notes: list[str] = []
    if wrap:
        notes.append("top-level return: the file runs as the body of a function")
    restored = restore_imports(text, filename) if restore else []
    imports = "".join(stmt + "\n" for _, stmt, _sure in restored)
    base = imports + head0
    # the analysis sees the file in its own numbering (a wrapper's def line
    # is part of the prefix)
    if wrap:
        ast.increment_lineno(tree, -head0.count("\n"))
    ctx = _Context(text, tree, stdin_known=stdin is not None,
                   guessed=tuple(n for n, _stmt, sure in restored if not sure))
    tree_for_rule = ctx.tree
    limits = sandbox.Limits(timeout=timeout)

    def execute(label, prefix, predictor, seed, randomize) -> Run:
        full_prefix = prefix + base
        if prefix and not prefix.endswith("\n"):
            full_prefix = prefix + "\n" + base
        offset = full_prefix.count("\n")
        opts = {"predictor": predictor, "seed": seed, "randomize": randomize}
        out = sandbox.call_isolated(_errors_child, full_prefix + body + tail, filename, opts,
                                    offset, limits=limits, stdin=stdin)
        if out.status != "ok" or not isinstance(out.value, dict):
            status = out.status if out.status in ("timeout", "memory") else "crashed"
            if out.status == "exception" and prefix:
                status = "prefix-failed"
            return Run(label, status, error=out.describe())
        r = out.value
        run = Run(label, r["status"], r["exception"], injections=r["injections"],
                  reached=r.get("reached", []))
        generated = prefix_bindings(prefix)[0] if prefix else set()
        run.inputs, run.dummy_sources = _inputs_of(run, generated, label, stdin)
        if r["exception"] is not None:
            if r["exception"].get("in_prefix"):
                run.status = "prefix-failed"
                run.exception = None
            else:
                run.category, run.involved = _classify(r["exception"], r["injections"],
                                                       tree_for_rule, ctx,
                                                       frozenset(generated))
        return run

    runs: list[Run] = [execute("naive injection", "", "naive", None, False)]
    first = runs[0]
    reads_stdin = bool(ctx.stdin_seeds) or (ctx.dep is not None and not ctx.stdin_known and
                                            taint.stdin_reads(ctx.tree))
    plain = (first.status not in ("crashed",) and not first.injections and not reads_stdin)
    prefixes = None
    if plain:
        source = "plain"
    else:
        if use_treefix:
            prefixes = treefix_prefixes(base + body + tail, notes, budget=treefix_budget)
        for k, p in enumerate(prefixes or []):
            runs.append(execute(f"treefix prefix {k + 1}", p, "naive", None, False))
        for s in range(seeds):
            runs.append(execute(f"random seed {s}", "", "random", s, True))
        source = "treefix+injection" if prefixes else "injection"
        if prefixes is None and use_treefix and not any("treefix" in n for n in notes):
            notes.append("lexecutor_c.treefix is not available: injected runs only")
    return ErrorReport(filename, source, runs, _group(runs), notes,
                       [stmt + ("" if sure else "  # guessed") for _, stmt, sure in restored])


def _inputs_of(run: Run, generated: set, label: str, stdin) -> tuple[dict, list]:
    """(source -> value, sources injected as Dummies) for one run."""
    inputs: dict = {}
    dummies: set = set()
    for i in run.injections:
        src = source_name(i) if i["name"] else None
        if src is None or src in inputs:
            continue
        inputs[src] = i["value"]
        if i["cls"] in _DUMMY_CLASSES:
            dummies.add(src)
    for n in generated:
        inputs.setdefault(n, f"<{label}>")
    inputs[taint.STDIN] = "<empty>" if not stdin else \
        "sha1:" + hashlib.sha1(stdin).hexdigest()[:12]
    return inputs, sorted(dummies)


def _every_value(key: tuple, rs: list, all_runs: list) -> bool:
    """Whether a crash does not depend on the injected values (the group
    rule of the module docstring)."""
    typ, line = key
    sources = sorted({s for r in rs for s in r.involved})
    if not sources or len(rs) < 2 or line is None:
        return False
    if len({r.exception["message"] for r in rs}) != 1:
        return False
    if _dummy_message(rs[0].exception["message"]):
        return False
    for r in rs:
        if r.exception.get("dummy_in_library") or r.exception.get("dummy_values"):
            return False
        if _direct_injection(r):
            return False
    for r in all_runs:
        if r in rs or r.status in ("crashed", "prefix-failed", "memory"):
            continue
        present = [s for s in sources if s in r.inputs]
        if present and all(s in r.dummy_sources for s in present):
            continue                    # a Dummy is no value of the input
        crashed_here = r.exception is not None and r.exception.get("line") == line
        if crashed_here or line in r.reached:
            return False                # a value that did not raise it
    distinct = {tuple(r.inputs.get(s) for s in sources) for r in rs}
    return len(distinct) >= 2


def _group(runs: list[Run]) -> list[ErrorGroup]:
    groups: dict[tuple, list[Run]] = {}
    for r in runs:
        if r.exception is not None and r.category is not None:
            groups.setdefault((r.exception["type"], r.exception["line"]), []).append(r)
    out = []
    for (typ, line), rs in groups.items():
        cats = {r.category for r in rs}
        cat = next(c for c in classify_order if c in cats)
        why = "operands" if cat == REAL else None
        if cat in (DERIVED, INJECTED) and _every_value((typ, line), rs, runs):
            cat, why = REAL, "every value"
        lead = next(r for r in rs if r.category == cat) if why == "operands" else rs[0]
        involved = sorted({n for r in rs for n in r.involved})
        values = set()
        for r in rs:
            values.add(tuple(sorted((k, v) for k, v in r.inputs.items()
                                    if k in r.involved or not r.involved)))
        op = lead.exception.get("operation") or {}
        inputs = {k: v for k, v in lead.inputs.items()
                  if k in involved or (not involved and k != taint.STDIN)}
        out.append(ErrorGroup(typ, line, lead.exception["message"], cat, len(rs),
                              [r.label for r in rs], involved, len(values),
                              op.get("text"), inputs, why))
    out.sort(key=lambda g: (classify_order.index(g.category), -g.runs, g.line or 0))
    return out


# ---------------------------------------------------------------- programs that read their input

def _stdin_errors(text, filename, stdin, input_spec, infer_input, timeout, budget,
                  restore, given_samples=None) -> Optional[ErrorReport]:
    """The report of apps/stdinrun.py, or None when it does not apply (no
    description and the program does not read its input, or is incomplete)."""
    import os
    from . import inputspec, stdinrun
    grammar = None
    if input_spec is not None:
        if isinstance(input_spec, inputspec.Grammar):
            grammar = input_spec
        elif isinstance(input_spec, dict):
            grammar = inputspec.grammar_from_dict(input_spec)
        elif isinstance(input_spec, os.PathLike):
            with open(input_spec, encoding="utf-8") as f:
                grammar = inputspec.load_spec(f.read())
        elif isinstance(input_spec, str):
            grammar = inputspec.load_spec(input_spec)
        else:
            raise TypeError("input_spec: a description (str), a path, a dict or a Grammar")
    if _wrap_needed(text):
        return None                     # a function body: the injected runs
    try:
        tree = ast.parse(text, filename)
    except (SyntaxError, ValueError):
        return None                     # the caller's parse raises
    if grammar is None:
        if not taint.stdin_reads(tree) and not stdinrun.read_shapes(tree):
            return None
        if infer_input is None and not stdinrun.completeness(text, filename).complete:
            return None
    samples: tuple = (stdin,) if stdin is not None else tuple(given_samples or ())
    spec_text = None
    if isinstance(input_spec, os.PathLike):
        with open(input_spec, encoding="utf-8") as f:
            spec_text = f.read()
    elif isinstance(input_spec, str):
        spec_text = input_spec
    if not samples and spec_text is not None:
        samples = tuple(inputspec.extract_samples(spec_text))
    rep = stdinrun.find_stdin_errors(text, filename, grammar=grammar, samples=samples,
                                     per_run=min(timeout, 2.0), budget=budget, restore=restore)
    groups = []
    for c in rep.crashes:
        cat = {"input-shape": DERIVED}.get(c.category, c.category)
        groups.append(ErrorGroup(c.type, c.line, c.message, cat, c.runs, ["stdin input"],
                                 [taint.STDIN] if cat != REAL else [], c.runs, None,
                                 {taint.STDIN: c.input},
                                 {"grammar": "a valid input", "samples": "a sample input",
                                  "inferred": "an input inferred from the reads"}[rep.mode]
                                 if cat == REAL else None, c.input))
    notes = [rep.assumption] + rep.notes
    if rep.timeouts:
        notes.append(f"{len(rep.timeouts)} input(s) timed out (reported apart, not as "
                     f"errors), e.g. {rep.timeouts[0][:60]!r}")
    if rep.memory:
        notes.append(f"{len(rep.memory)} input(s) ran out of memory (reported apart), e.g. "
                     f"{rep.memory[0][:60]!r}")
    if rep.killed:
        notes.append(f"the interpreter died on {len(rep.killed)} input(s) "
                     f"({rep.killed[0]['why']}), e.g. {rep.killed[0]['input'][:60]!r}")
    info = rep.to_dict()
    info.pop("crashes")
    return ErrorReport(filename, f"stdin inputs ({rep.mode})", [], groups, notes, [], info)
