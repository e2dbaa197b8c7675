"""Does an edit change what one function does?  The old and the new version
of a function run on the same inputs, each in a sandbox child
(lexecutor_c.apps.funcrun; module or extract mode: lexecutor_c.apps.funcsource);
their outcomes (return or exception type), return values, printed output
and the arguments and ``self`` after the call are compared.

Inputs (:class:`Input`), in this order: calls of the function found in the
project's tests (their argument expressions and the object a method is
called on; those in tests the commit touched first); the top prefix the
offline Treefix generator proposes for each version's free names and
parameters (``self`` included: a stand-in class with the attributes and
methods the code uses); the empty prefix (injection alone); the generator's
other initial prefixes; then, while no input has reached the changed lines,
error guidance (the generator's repairs for the exceptions seen) and
coverage guidance (other values for what guards the unreached lines), in
turn with the rest.  The same input runs both versions, and what the prefix
leaves undefined is injected by ``(seed, name, class)``: the same name gets
the same value in both.

Verdict for one function: ``changed`` as soon as an input distinguishes the
versions (shown with that input); ``same`` when no input did and some input
reached the changed lines; ``unreached`` when none reached them;
``exception`` when every run failed in setup, timed out or crashed.  The
same exception type on the same input is "same" (a different message is
noted, or counted with ``compare_messages``).

Swapped dependencies: runs that agree only through made-up stand-ins for
names one version alone reads (``x.issupserset`` -> ``x.issuperset`` on a
made-up ``x``) are no evidence for "same": "undecided".

Flakiness: when the two versions disagree on an input, both run a second
time; only what both runs of each version agree on counts, so a
nondeterministic function (time, random, ids, hash order) never yields
"changed".
"""
from __future__ import annotations

import ast
import builtins
import collections
import dataclasses
import os
import re
import time
from dataclasses import dataclass, field
from typing import Optional

from ..engine import sandbox
from .callees import swapped_calls, telling_values, told_apart
from .funcrun import (AFTER_MODULE, COMPUTING_MARK, PACKAGE_MARK, after_module, handled_spans,
                      handler_names, name_error_spans, prepare, quiet_spans, run_case, snapshot)
from .diffinputs import STAND_IN, handles_bytes
from .funcsource import (Version, _names_read, bound_names, build_driver, changed_lines,
                         defaulted_params,
                         closed_classes,
                         code_dump, facts_source, function_versions, import_fallback, is_overload,
                         module_driver, module_name_of, relative_levels)

__all__ = ["Version", "FunctionCheck", "Options", "Input", "Tree", "function_versions",
           "check_function", "snapshot", "code_dump", "changed_lines", "build_driver",
           "facts_source", "CHANGED", "SAME", "UNREACHED", "EXCEPTION", "UNDECIDED"]

CHANGED, SAME, UNREACHED, EXCEPTION = "changed", "same", "unreached", "exception"
UNDECIDED = "undecided"

_FIELDS = ("outcome", "ret", "out", "args", "self", "calls", "globals")
_FIELD_WORDS = {"outcome": "outcome", "ret": "return value", "out": "printed output",
                "args": "arguments after the call", "self": "self after the call",
                "message": "exception message", "calls": "calls to the outside world",
                "globals": "globals written", "cause": "the exception's cause",
                "raised": "the exception's attributes",
                "points": "a value after the changed lines"}


#: how many times the budget a check may take on the wall clock (runs that
#: sleep or wait use no CPU time)
_WALL_FACTOR = 3.0


class _Spent:
    """The seconds a check has used of its budget: the CPU time of this
    process and of the runs it waited for, so that a budget buys the same
    runs on a loaded machine as on an idle one (a verdict that turns from
    "changed" to "undecided" because other programs ran beside it is no
    verdict), and at least a ``_WALL_FACTOR``-th of the time on the wall
    clock (runs that sleep or wait for something use no CPU time)."""

    def __init__(self):
        self.wall = time.monotonic()
        self.cpu = self._cpu()

    @staticmethod
    def _cpu() -> float:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def __call__(self) -> float:
        return max(self._cpu() - self.cpu, (time.monotonic() - self.wall) / _WALL_FACTOR)


# ------------------------------------------------------------------ comparison

@dataclass
class FunctionCheck:
    """The verdict for one function touched by an edit."""

    file: str
    function: str
    status: str                 # modified | added | removed | static
    verdict: str                # changed | same | unreached | exception | added | removed
    detail: str = ""
    input: Optional[dict] = None    # the distinguishing input: prefix, arguments
    old: Optional[dict] = None      # what each version did on it
    new: Optional[dict] = None
    inputs: int = 0             # inputs run
    reached: bool = False       # some input reached the changed lines
    runs: int = 0
    seconds: float = 0.0
    mode: str = ""              # module | extract
    test: bool = False
    evidence: str = ""          # changed: "concrete", or "injected" (the values that
                                # differ involve an injected Dummy)
    agreeing: int = 0           # inputs that ran changed lines in both versions, alike
    mutants: dict = field(default_factory=dict)     # the "same" gate: mutants tried, killed
    lines_old: list = field(default_factory=list)   # changed lines that ran (old, new)
    lines_new: list = field(default_factory=list)
    changed_old: list = field(default_factory=list)  # the changed lines (old, new)
    changed_new: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in (
            "file", "function", "status", "verdict", "detail", "input", "old", "new",
            "inputs", "reached", "runs", "seconds", "mode", "test", "evidence", "agreeing",
            "lines_old", "lines_new", "changed_old", "changed_new", "mutants")}


#: what a difference in the values where the changed lines are left does
#: (Options.points): keep "same" back, make "changed", or nothing
POINTS_MODES = ("gate", "change", "off")


@dataclass
class Options:
    """How a function is checked: ``predictor`` under the prefixes (a name
    of run()'s predictors, a callable, or "constraints": the naive Dummy
    except where a use-site constraint of the knowledge package asks for a
    value of some class, e.g. an int for ``range(n)``),
    ``seeds`` (of the injection and of the prefix generator), ``timeout``
    seconds per run (CPU seconds of the run, three times that on the wall
    clock), ``max_inputs`` and ``budget`` seconds per function
    (CPU seconds of the check and its runs, so a loaded machine buys the
    same runs; at most three times that on the wall clock: _Spent);
    ``compare_messages``: a different exception message (same type) is a
    change too (False: it is only noted); ``min_same``: "same" needs this
    many inputs that ran changed lines in both versions with traces that
    agree (fewer: "undecided"); ``aimed``: inputs aimed at the diff
    (lexecutor_c.apps.diffinputs); ``points``: the values of the locals
    both versions have where they leave the changed lines (ChangeGuard's
    program points) -- "gate": a difference there on an input of concrete
    values keeps "same" back ("undecided"), "change": it makes "changed"
    like a difference in what the function does, "off": not compared;
    ``cover_all``: "same" needs every changed statement of both versions to
    have run (else "undecided": a branch the edit added that no input took
    says nothing)."""

    predictor: object = "constraints"
    seeds: tuple = (0,)
    timeout: float = 5.0
    max_inputs: int = 24
    budget: float = 30.0
    randomize: bool = True
    compare_messages: bool = True
    min_same: int = 2
    aimed: bool = True
    min_killed: float = 1.0
    mutants: int = 6
    variants: int = 3
    points: str = "gate"
    cover_all: bool = True

    def __post_init__(self):
        if self.points not in POINTS_MODES:
            raise ValueError(f"points must be one of {', '.join(POINTS_MODES)}, "
                             f"not {self.points!r}")

    def resolved_predictor(self):
        if self.predictor == "constraints":
            from ..knowledge.inject import ConstraintPredictor
            self.predictor = ConstraintPredictor("object")
        return self.predictor


#: aimed inputs made again on an input that reached the changed lines
#: (the input source's _rebase)
_REBASED = 6
_REBASED_NOTE = "(on an input that reached the changed lines)"


@dataclass
class Input:
    prefix: str = ""
    call: Optional[dict] = None     # {"self": expr, "args": [expr], "kwargs": {}, "imports": []}
    seed: int = 0
    note: str = ""
    plan: object = None
    given: tuple = ()           # optional parameters the prefix gives a value (aimed inputs)
    reshape: str = ""           # a variant: the arguments in another shape (funcrun.reshape)

    def key(self):
        return (self.prefix, repr(self.call), self.seed, self.given, self.reshape)

    def show(self) -> dict:
        d = {"note": self.note, "seed": self.seed}
        if self.prefix:
            from .diffinputs import STAND_IN
            d["prefix"] = self.prefix.replace(STAND_IN, "").strip("\n")
        if self.call:
            d["call"] = {k: v for k, v in self.call.items() if k != "imports"}
            # (what a doctest did to the object before the call, not its imports)
            setup = [x for x in self.call.get("imports") or ()
                     if not x.startswith(("import ", "from "))]
            if setup:
                d["call"]["setup"] = setup
        if self.reshape:
            d["reshape"] = self.reshape
        return d


@dataclass
class Tree:
    """A checkout of one revision (module mode): ``root`` on disk and the
    folders that are packages."""

    root: str
    packages: set = field(default_factory=set)

    def has_init(self, folder: str) -> bool:
        return folder in self.packages


class _Side:
    """One version ready to run."""

    def __init__(self, v: Version, args: list, kwargs: list, tree: Optional[Tree],
                 varargs: tuple = (), changed: set = frozenset(), class_attrs: tuple = (),
                 construct: bool = True, other: Optional[Version] = None,
                 changed_helpers: Optional[frozenset] = None):
        self.v = v
        if tree is not None:
            rel, name, pkg = module_name_of(v.path, tree.has_init, relative_levels(v.module))
            self.driver = module_driver(v, tree.root, rel, name, pkg) if name else \
                build_driver(v)
        else:
            self.driver = build_driver(v)
        d = self.driver
        self.heads = _statement_heads(v.node)
        # the child sees a read-only view of the system (engine.sandbox): the
        # checkout its module is imported from is added to it
        self.readable = (d.root,) if d.mode == "module" and d.root else ()
        if tree is not None and d.mode == "module" and tree.root not in self.readable:
            # (and the whole checkout: a test's helpers beside its file)
            self.readable += (tree.root,)
        self.spec = {"mode": d.mode, "text": d.text, "filename": d.filename,
                     "target_first": d.target_first, "target_def": d.target_def,
                     "target_last": d.target_last, "offset": d.offset,
                     "class_path": d.class_path, "kind": d.kind, "self": d.self_name,
                     "root": d.root, "module_name": d.module_name,
                     "checkout": tree.root if tree is not None else None,
                     "is_package": d.is_package, "module_file": d.module_file,
                     "open_base": d.open_base, "args": args, "kwargs": kwargs,
                     "optional": _optional(v, other),
                     "varargs": varargs, "varkw": _varkw_names(v, other),
                     "changed": sorted(changed),
                     "class_attrs": list(class_attrs), "construct": construct,
                     "handled_spans": handled_spans(d.text),
                     "name_spans": name_error_spans(d.text), "guards": _param_guards(v),
                     "closed": closed_classes(v.module),
                     "quiet_spans": quiet_spans(d.text, (d.target_first, d.target_last),
                                                _assert_tests(other))}
        # the module's helpers the commit changed too: what a call hands them
        # is theirs to take as their new code does (``_build_simple_row(cells,
        # (begin, sep, end))`` -> ``_build_simple_row(cells, DataRow(begin,
        # sep, end))``, the helper changed to read fields): their calls are
        # compared by name, what they do shows where it goes
        self.changed_helpers = _changed_helpers(v, other) if changed_helpers is None \
            else changed_helpers
        # the text whose function is bound decorated (extract mode leaves a
        # function's decorators out; a module-level one gets them back after
        # its definition, the lines above unmoved), for runs through them
        self.decorated_text = d.text
        if d.mode != "module" and v.cls is None and v.node.decorator_list:
            import ast
            name, expr = v.node.name, v.node.name
            for dec in reversed(v.node.decorator_list):
                expr = f"({ast.unparse(dec)})({expr})"
            self.decorated_text = d.text.rstrip("\n") + f"\n{name} = {expr}\n"

    def run(self, inp: Input, opts: Options, decorated: bool = False, shift: int = 0) -> dict:
        """One run of this version on ``inp``; ``shift`` > 0 moves the heap's
        layout first (a rerun that checks a difference)."""
        spec = dict(self.spec, decorated=True, text=self.decorated_text) if decorated \
            else self.spec
        prepare(spec)       # (the module made once, here: each forked run starts from it)
        out = sandbox.call_isolated(run_case, spec, {"prefix": inp.prefix,
                                                           "call": inp.call,
                                                           "given": list(inp.given),
                                                           "reshape": inp.reshape,
                                                           "points": opts.points != "off",
                                                           "shift": shift},
                                    inp.seed, opts.resolved_predictor(), opts.randomize,
                                    limits=sandbox.Limits(timeout=opts.timeout * _WALL_FACTOR,
                                                          cpu_timeout=opts.timeout,
                                                          readable=self.readable))
        if out.status == "ok" and isinstance(out.value, dict):
            r = out.value
            if r.get("outcome") is None:
                r["outcome"] = "crash"
            if isinstance(r.get("lines"), list) and self.heads:
                # a statement whose own first line runs nothing (``if (``,
                # ``return (``) ran where a line of it did
                r["lines"] = sorted(set(r["lines"]) | {self.heads[ln] for ln in r["lines"]
                                                       if ln in self.heads})
            if self.changed_helpers and isinstance(r.get("calls"), str):
                r["calls"] = _helper_calls_by_name(r["calls"], self.changed_helpers)
            checkout = spec.get("checkout")
            if checkout:
                # each version runs in a checkout of its own (``.../t1``,
                # ``.../t2``): a path into it (a module's ``__file__``, a
                # test's data folder) names the checkout alike in both
                r = _without_checkout(r, checkout)
            return r
        return {"outcome": {"timeout": "timeout", "memory": "memory"}.get(out.status, "crash"),
                "message": out.describe()[:300]}


#: what a call of a helper the commit changed too is shown with in place of
#: its arguments
_CHANGED_HELPER = "<a helper the commit changed>"


def _changed_helpers(v: Version, other: Optional[Version]) -> frozenset:
    """The module's functions and methods (``f``, ``Class.f``) that both
    versions define with the same parameters (of the same kinds and
    defaults, positional ones perhaps renamed) and another body, the
    function itself aside.  (Not a helper that gained or lost a parameter:
    a call handing a new parameter a value other than its default asks the
    helper for something else, boltons' ``remap(..., cache=False)``; one at
    the default is no argument in the trace anyway.)"""
    import ast
    if other is None:
        return frozenset()

    def params(a) -> tuple:
        # kinds and defaults, names aside (``_tempfilepager(cmd_parts,
        # color)`` -> ``_tempfilepager(cmd_path, color)``: the same
        # parameters, handed what the commit now hands them), annotations
        # aside; keyword-only ones by name (a caller names them)
        return (len(a.posonlyargs), len(a.args), [x.arg for x in a.kwonlyargs],
                bool(a.vararg), bool(a.kwarg), [ast.dump(x) for x in a.defaults],
                [x and ast.dump(x) for x in a.kw_defaults])

    def defs(mod) -> dict:
        out: dict = {}
        for n in getattr(mod, "body", ()):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[n.name] = (params(n.args), ast.dump(n))
            elif isinstance(n, ast.ClassDef):
                for m in n.body:
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        out[f"{n.name}.{m.name}"] = (params(m.args), ast.dump(m))
        return out
    a, b = defs(v.module), defs(other.module)
    own = {v.qualname, other.qualname}
    return frozenset(k for k in a.keys() & b.keys()
                     if a[k][0] == b[k][0] and a[k][1] != b[k][1] and k not in own)


def _apart_before_target(a: dict, b: dict) -> bool:
    """Whether two runs through a caller (``target_at``: the calls made
    when the function's first line ran) made different calls before the
    function ran in both."""
    ta, tb = a.get("target_at"), b.get("target_at")
    if ta is None or tb is None:
        return False
    x, y = _parse_calls(a.get("calls")), _parse_calls(b.get("calls"))
    if x is None or y is None:
        return False
    return x[:ta] != y[:tb]


def _assert_tests(v: Optional[Version]) -> Optional[list]:
    """The tests of the ``assert`` statements of ``v``'s function, dumped
    (for the other version's runs: an assertion only it makes, of a
    predicate the input made up, is no interaction: funcrun
    ``quiet_spans``); None without another version."""
    if v is None:
        return None
    return sorted({ast.dump(n.test) for n in ast.walk(v.node) if isinstance(n, ast.Assert)})


def _helper_calls_by_name(calls: str, helpers: frozenset) -> str:
    """An interaction trace with the calls of ``helpers`` (``internal:NAME``)
    shown without their arguments."""
    x = _parse_calls(calls)
    if x is None:
        return calls
    hit = False
    for c in x:
        if isinstance(c, list) and len(c) == 3 and isinstance(c[0], str) and \
                c[0].startswith("internal:") and c[0][9:] in helpers:
            c[1], c[2] = [_CHANGED_HELPER], []
            hit = True
    return repr(x) if hit else calls


def _without_checkout(x, root: str):
    """``x`` (a run's record: texts, lists, dicts) with the checkout folder
    ``root`` written ``<checkout>`` in every text."""
    if isinstance(x, str):
        return x.replace(root, "<checkout>") if root in x else x
    if isinstance(x, list):
        return [_without_checkout(y, root) for y in x]
    if isinstance(x, dict):
        return {k: _without_checkout(y, root) for k, y in x.items()}
    return x


def _statement_heads(fn) -> dict:
    """line -> the first line of the statement it continues, for the lines
    of the function's statements after their first (a simple statement's
    whole extent, a compound statement's header: ``if (`` over the lines of
    its test).  The line tracer reports the lines that hold code, and a
    statement's first line may hold none of it (``if (``): the statement
    ran where one of those lines did."""
    out: dict = {}
    for st in ast.walk(fn):
        if not isinstance(st, ast.stmt) or st is fn:
            continue
        body = getattr(st, "body", None)
        if isinstance(st, ast.Match):
            end = st.subject.end_lineno or st.lineno
        elif isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = body[0].lineno - 1        # a compound statement: its header
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue                    # (a nested definition: its own lines)
        else:
            end = st.end_lineno or st.lineno
        for ln in range(st.lineno + 1, end + 1):
            out.setdefault(ln, st.lineno)
    return out


def _read_only(e) -> bool:
    """An expression a run can read without running the program's code
    (funcrun._static_value): names and attributes, indexed or sliced by
    constants; not a literal (the aimed inputs take those from the source)."""
    if isinstance(e, ast.Name):
        return True
    if isinstance(e, ast.Attribute):
        return _read_only(e.value)
    if isinstance(e, ast.Subscript):
        parts = [e.slice.lower, e.slice.upper, e.slice.step] \
            if isinstance(e.slice, ast.Slice) else [e.slice]
        try:
            for x in parts:
                if x is not None:
                    ast.literal_eval(x)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
        return _read_only(e.value)
    return False


#: the most guards a run reads
_GUARDS_MAX = 32


def _param_guards(v: Version) -> list:
    """The function's tests of a parameter against a value it computes
    (``validparts = cls.NAMES[:-1]; if part not in validparts``, ``kind ==
    self.default_kind``), and the dicts it looks a parameter up in:
    ``[line, subject, the value's source, "in", "==" or "key"]``.  The
    subject is a parameter, or a part of one that a local holds
    (``last_key = key[-1]; if last_key in cont``: ``key[-1]``); a literal
    a subject ``startswith``/``endswith`` is the value ("==").  A run reads
    those values as the test is about to run (funcrun._observe_guard) and
    later inputs give the subject each of them (:func:`_setting`): the
    source names no member of a computed container."""
    fn = v.node
    a = fn.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} - {"self", "cls"}
    # locals bound to a part of a parameter: line -> that part (None for
    # any other binding), by local
    stores: dict = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores.setdefault(n.id, {}).setdefault(n.lineno, None)
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name):
            e = n.value
            if isinstance(e, (ast.Subscript, ast.Attribute)) and \
                    isinstance(e.value, ast.Name) and (
                        e.value.id in params or isinstance(e, ast.Attribute) and
                        e.value.id == "self" and v.cls is not None) and \
                    _setting(ast.unparse(e), "0", "") is not None:
                # (``maxsize = self.__maxsize``: the object's attribute, as
                # the prefix sets it, mangled by funcrun)
                stores[n.targets[0].id][n.targets[0].lineno] = ast.unparse(e)

    def subject(e, line: int = 0) -> Optional[str]:
        """The parameter, or the part of one the local ``e`` holds at
        ``line``: bound once to it, or last bound to it before ``line``
        (``url = request.path_url; if url.startswith("//"): url = ...``)."""
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and \
                e.value.id == "self" and v.cls is not None and \
                isinstance(e.ctx, ast.Load):
            return ast.unparse(e)            # ``if size > self.__maxsize``
        if not isinstance(e, ast.Name):
            return None
        if e.id in params:
            return e.id
        st = stores.get(e.id) or {}
        if len(st) == 1:
            return next(iter(st.values()))
        before = [ln for ln in st if ln < line]
        return st[max(before)] if before else None
    out = []
    for n in ast.walk(fn):
        # a dict the parameter is looked up in (``self._codes[code]``,
        # ``self._codes.get(code)``): its keys
        looked = n.value if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) \
            and subject(n.slice, n.lineno) else \
            n.func.value if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
            and n.func.attr == "get" and n.args and subject(n.args[0], n.lineno) else None
        if looked is not None and _read_only(looked):
            key = subject(n.slice if isinstance(n, ast.Subscript) else n.args[0], n.lineno)
            out.append([n.lineno, key, ast.unparse(looked), "key"])
            continue
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in ("startswith", "endswith") and len(n.args) == 1 and \
                isinstance(n.args[0], ast.Constant) and \
                isinstance(n.args[0].value, (str, bytes)) and \
                subject(n.func.value, n.lineno):
            # ``url = request.path_url; if url.startswith("//")``: the text
            # itself starts (and ends) so
            out.append([n.lineno, subject(n.func.value, n.lineno), ast.unparse(n.args[0]),
                        "=="])
            continue
        if not isinstance(n, ast.Compare) or len(n.ops) != 1:
            continue
        left, right, op = n.left, n.comparators[0], n.ops[0]
        if isinstance(op, (ast.In, ast.NotIn)):
            kind = "in"
        elif isinstance(op, (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            # (an ordering, ``if size > maxsize``, too: the value it is
            # compared with is the bound, where ``>`` and ``>=`` part ways)
            kind = "=="
            if not subject(left, n.lineno):
                left, right = right, left
        else:
            continue
        if subject(left, n.lineno) and _read_only(right):
            out.append([n.lineno, subject(left, n.lineno), ast.unparse(right), kind])
    return out[:_GUARDS_MAX]


def _setting(subject: str, value: str, prefix: str) -> Optional[str]:
    """``prefix`` followed by what gives ``subject`` (a parameter, ``p[0]``,
    ``p[-1]``, ``p['k']``, ``p.attr``) the value ``value``; None for a
    subject it cannot give one."""
    try:
        e = ast.parse(subject, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(e, ast.Name):
        return f"{prefix}\n{e.id} = {value}"
    if not (isinstance(e, (ast.Subscript, ast.Attribute)) and isinstance(e.value, ast.Name)):
        return None
    p = e.value.id
    if isinstance(e, ast.Attribute):
        from .diffinputs import STAND_IN
        stand_in = "" if "class _LxObj" in prefix else STAND_IN + "\n"
        return (f"{stand_in}{prefix}\ntry:\n    {p}.{e.attr} = {value}\nexcept Exception:\n"
                f"    {p} = _LxObj()\n    {p}.{e.attr} = {value}")
    k = e.slice.value if isinstance(e.slice, ast.Constant) else \
        -e.slice.operand.value if isinstance(e.slice, ast.UnaryOp) and \
        isinstance(e.slice.op, ast.USub) and isinstance(e.slice.operand, ast.Constant) else None
    if type(k) is int and -8 <= k < 8:
        return f"{prefix}\n{p} = [{value}] * {k + 1 if k >= 0 else -k}"
    if type(k) is str:
        return f"{prefix}\n{p} = {{{k!r}: {value}}}"
    return None


def _init_code(v: Version) -> Optional[str]:
    """The code of the ``__init__`` of a method's class, as compared (None:
    a function, or a class without one)."""
    import ast
    if v.cls is None:
        return None
    # the last one, which the class binds (``@overload`` stubs come first)
    for st in reversed(v.cls.body):
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == "__init__":
            return code_dump(st)
    return None


def _class_values(v: Version) -> set:
    """The names the class of a method binds in its body to its own values:
    methods, nested classes, literals other than None (``_SEP = b':'``,
    ``_KINDS = ('a', 'b')``) and compiled patterns -- not declarations
    whose value an instance gets later (attrs' ``x = attrib()``)."""
    if v.cls is None:
        return set()
    out = set()
    for s in v.cls.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
            e = s.value
            try:
                lit = ast.literal_eval(e) is not None
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                lit = isinstance(e, ast.Call) and ast.unparse(e.func) in ("re.compile",
                                                                          "compile")
            if lit:
                for t in (s.targets if isinstance(s, ast.Assign) else [s.target]):
                    if isinstance(t, ast.Name):
                        out.add(t.id)
    return out


def _varargs_names(old: Version, new: Version) -> tuple:
    """The ``*args`` parameter's name in each version, then in the other
    (renamed ``*args`` -> ``*iterables``: the items an input gives reach
    both): (old's names, new's names)."""
    va_old, va_new = (v.node.args.vararg.arg if v.node.args.vararg else None
                      for v in (old, new))
    return (tuple(n for n in (va_old, va_new) if n),
            tuple(n for n in (va_new, va_old) if n))


def _varkw_names(v: Version, other: Optional[Version] = None) -> tuple:
    """The ``**kwargs`` parameter's name in ``v``, then in ``other``: the
    items an aimed input gives it are passed by keyword."""
    return tuple(dict.fromkeys(x.node.args.kwarg.arg for x in (v, other)
                               if x is not None and x.node.args.kwarg))


def _optional(v: Version, other: Optional[Version] = None) -> list:
    """The parameters with a default value (passed by keyword when an
    aimed input gives them a value); with ``**kwargs``, the other version's
    too that this one does not name (``kwargs.pop('only_one', False)`` in
    one, ``only_one=False`` in the other: the same call passes it to both)."""
    a = v.node.args
    pos = a.posonlyargs + a.args
    out = [p.arg for p, _d in defaulted_params(v.node) if p not in a.posonlyargs]
    if other is not None and a.kwarg is not None:
        mine = {p.arg for p in pos + a.kwonlyargs}
        out += [n for n in _optional(other) if n not in mine]
    return out


def _signature_break(old: Version, new: Version) -> str:
    """How a call valid for the old version fails with the new one (a
    keyword it accepted is gone, a parameter without default was added), or
    ""."""
    def shape(v):
        a = v.node.args
        pos = [p.arg for p in a.posonlyargs + a.args]
        skip = 1 if v.kind in ("method", "classmethod", "getter", "setter", "deleter") \
            and pos else 0
        by_kw = [p.arg for p in a.args] + [p.arg for p in a.kwonlyargs]
        if skip and by_kw and by_kw[0] == pos[0]:
            by_kw = by_kw[1:]
        n_pos_req = len(pos) - len(a.defaults) - skip
        kw_req = [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
        return set(by_kw), n_pos_req, kw_req, a.vararg is not None, a.kwarg is not None, \
            len(pos) - skip
    o_kw, o_req, o_kwreq, o_var, o_varkw, o_npos = shape(old)
    n_kw, n_req, n_kwreq, n_var, n_varkw, n_npos = shape(new)
    if not n_varkw:
        gone = sorted(o_kw - n_kw)
        if gone:
            return f"signature: the old version accepts the keyword argument {gone[0]!r}, " \
                f"the new one does not (a call with {gone[0]}=... raises TypeError)"
    if n_req > o_req and not (o_var and n_var):
        return f"signature: the new version needs {n_req} positional arguments, the old " \
            f"one {o_req} (a call with {o_req} raises TypeError)"
    extra = sorted(set(n_kwreq) - set(o_kwreq))
    if extra:
        return f"signature: the new version needs the keyword argument {extra[0]!r}"
    if o_var and not n_var and not n_varkw:
        return "signature: the old version accepts any number of positional arguments, " \
            f"the new one at most {n_npos}"
    # any other call shape one version binds and the other does not, either
    # way (a parameter made keyword-only, a keyword the new version added:
    # ``lzip(a, b, strict=True)`` raised TypeError before)
    so, sn = _signature(old), _signature(new)
    for a, b, wa, wb in ((so, sn, "old", "new"), (sn, so, "new", "old")):
        for n, kws in _call_shapes(a):
            if _binds(a, n, kws) and not _binds(b, n, kws):
                shown = ", ".join([f"{n} positional argument{'s' if n != 1 else ''}"] +
                                  [f"{k}=..." for k in kws if k != _ANY_KEYWORD] +
                                  (["another keyword"] if _ANY_KEYWORD in kws else []))
                return f"signature: a call with {shown} works with the {wa} version " \
                    f"and raises TypeError with the {wb} one"
    return ""


def _decorators(v: Version) -> list:
    """The version's decorator expressions, without positions."""
    return [code_dump(d, normalize=False) for d in v.node.decorator_list]


#: a keyword no parameter is named (taken by ``**kwargs`` alone)
_ANY_KEYWORD = "_lx_any_keyword"


def _signature(v: Version):
    """The version's parameters as an :class:`inspect.Signature` (defaults
    stand for themselves; ``self``/``cls`` of a method left out)."""
    import inspect
    P = inspect.Parameter
    a = v.node.args
    pos = a.posonlyargs + a.args
    first_default = len(pos) - len(a.defaults)
    params = [P(p.arg, P.POSITIONAL_ONLY if p in a.posonlyargs else P.POSITIONAL_OR_KEYWORD,
                default=0 if i >= first_default else P.empty) for i, p in enumerate(pos)]
    if a.vararg is not None:
        params.append(P(a.vararg.arg, P.VAR_POSITIONAL))
    params += [P(p.arg, P.KEYWORD_ONLY, default=P.empty if d is None else 0)
               for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg is not None:
        params.append(P(a.kwarg.arg, P.VAR_KEYWORD))
    if v.kind in ("method", "classmethod", "getter", "setter", "deleter") and pos:
        params = params[1:]
    return inspect.Signature(params)


def _call_shapes(sig) -> list:
    """Call shapes ``(positional count, keyword names)`` a signature takes:
    every count of positional arguments it allows (one beyond with
    ``*args``), each optional parameter by keyword, the required ones all
    by keyword, and a keyword no parameter is named when it has ``**kwargs``."""
    import inspect
    P = inspect.Parameter
    ps = list(sig.parameters.values())
    positional = [p for p in ps if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    req = [p for p in positional if p.default is P.empty]
    kw_req = tuple(p.name for p in ps if p.kind == P.KEYWORD_ONLY and p.default is P.empty)
    var = any(p.kind == P.VAR_POSITIONAL for p in ps)
    out = [(n, kw_req) for n in range(len(req), len(positional) + 1 + var)]
    out += [(len(req), kw_req + (p.name,)) for p in ps
            if p.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY) and p.default is not P.empty]
    if req and all(p.kind == P.POSITIONAL_OR_KEYWORD for p in req):
        out.append((0, tuple(p.name for p in req) + kw_req))
    if any(p.kind == P.VAR_KEYWORD for p in ps):
        out.append((len(req), kw_req + (_ANY_KEYWORD,)))
    return out


def _binds(sig, n: int, kws: tuple) -> bool:
    try:
        sig.bind(*range(n), **{k: 0 for k in kws})
    except TypeError:
        return False
    return True


def _string_constants(v: Version, lines: Optional[set] = None,
                      bytes_too: bool = False) -> list:
    """The string constants of a version's statements on ``lines`` (None:
    of all its statements), f-string pieces included, each once, in the
    order ``ast.walk`` meets them; ``bytes_too``: bytes constants as well,
    as latin-1 text."""
    import ast
    nodes = (n for st in v.node.body for n in ast.walk(st)) if lines is None else \
        _on_lines(v, lines)
    out: dict = {}
    for n in nodes:
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.setdefault(n.value, None)
        elif bytes_too and isinstance(n, ast.Constant) and isinstance(n.value, bytes):
            out.setdefault(n.value.decode("latin-1"), None)
    return list(out)


def _strings_on(v: Version, lines: set) -> set:
    """The string constants (3 characters or more) of the statements on
    ``lines`` of a version, f-string pieces included."""
    return {t.strip() for t in _string_constants(v, lines) if len(t.strip()) >= 3}


def _edited_message(ro: dict, rn: dict, strings: set) -> bool:
    """Whether either exception message holds a string the edit's lines
    write (a reworded message)."""
    msgs = [str(ro.get("message", "")), str(rn.get("message", ""))]
    return any(_holds_text(m, s) for s in strings for m in msgs)


#: a placeholder of a %-format or a str.format template
_PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[a-zA-Z%]"
                          r"|\{[^{}]*\}")


def _holds_text(message: str, template: str) -> bool:
    """Whether ``message`` holds ``template``, a string constant that may be
    a format template (``"not %r_x"`` shows as ``not -2.0_x``): its literal
    pieces of 3 characters or more, in order."""
    if template in message:
        return True
    # a multi-line text made into the message another way (``dedent``,
    # ``cleandoc``, joined lines): the same words
    flat = " ".join(template.split())
    if len(flat) >= 3 and flat in " ".join(message.split()):
        return True
    pieces = [p for p in _PLACEHOLDER.split(template) if len(p.strip()) >= 3]
    if not pieces or len(pieces) == 1 and pieces[0] == template:
        return False
    at = 0
    for p in pieces:
        i = message.find(p, at)
        if i < 0:
            return False
        at = i + len(p)
    return True


def _hang(ro: dict, rn: dict) -> bool:
    """Whether one version ran past the time limit where the other finished
    (returned or raised) on an input of concrete values: a loop the edit
    ended, or one it made endless -- a change (confirmed by the second run
    every difference gets)."""
    a, b = str(ro.get("outcome")), str(rn.get("outcome"))
    if (a == "timeout") == (b == "timeout"):
        return False
    done = rn if a == "timeout" else ro
    return not _inconclusive(done) and _concrete(done)


def _inconclusive(r: dict) -> bool:
    o = r.get("outcome") or "crash"
    return o in ("timeout", "crash", "memory") or o.startswith(("setup:", "input:"))


def _both_unpredicted(ro: dict, rn: dict) -> bool:
    """Whether both runs ended with the injection's predictor failing
    (``PredictorError``: the recursion limit hit inside it, on an object
    whose attributes recurse): nothing of either version's behaviour
    shows, so the two are not alike either (one version failing so where
    the other returns is still a difference)."""
    return ro.get("outcome") == rn.get("outcome") == "raised:PredictorError"


_DUMMY_NAME = re.compile(r"<(Dummy|DummyResource) (?:'[^'\\]*'|\"[^\"\\]*\")>")


def _unnamed(x):
    """A snapshot with the names of injected values removed: a value the
    injection made stands for "some object", whatever the name it was
    asked for (a dependency renamed by the commit, ``ifilter`` ->
    ``xfilter``, is no change of the function)."""
    return _DUMMY_NAME.sub(r"<\1>", x) if isinstance(x, str) else x


def _raise_lines(v: Version, lines: set) -> set:
    """The lines of the ``raise`` and ``assert`` statements among a
    version's changed lines (all the lines of each such statement)."""
    import ast
    out: set = set()
    for n in ast.walk(v.node):
        if isinstance(n, (ast.Raise, ast.Assert)) and n.lineno in lines:
            out.update(range(n.lineno, (n.end_lineno or n.lineno) + 1))
    return out


def _deliberate_lines(v: Version) -> frozenset:
    """The lines of a version's own ``raise X`` statements (not a bare
    re-raise, which passes on what failed)."""
    import ast
    out: set = set()
    for n in ast.walk(v.node):
        if isinstance(n, ast.Raise) and n.exc is not None:
            out.update(range(n.lineno, (n.end_lineno or n.lineno) + 1))
    return frozenset(out)


def _asked_attributes(v: Version) -> frozenset:
    """The attribute names a version's function reads by name (``x.isdigit``,
    ``getattr(x, "name")``)."""
    import ast
    out: set = set()
    for n in ast.walk(v.node):
        if isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id in ("getattr", "hasattr") and len(n.args) > 1 and \
                isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str):
            out.add(n.args[1].value)
    return frozenset(out)


def _raised_by_edit(ro: dict, rn: dict, edit_raises: tuple) -> bool:
    """Whether either run raised at a ``raise`` or ``assert`` the edit
    wrote (``assert x is not None, (i, x)``): its message is the edit's own
    wording, whatever values it shows."""
    return any(str(r.get("outcome", "")).startswith("raised") and r.get("line") in lines
               for r, lines in zip((ro, rn), edit_raises))


def _raise_forms(old: Version, new: Version, ch_old: set, ch_new: set) -> bool:
    """Whether the edit turns ``raise C()`` into ``raise C`` (or back) on
    its changed lines: the same class raised, instantiated by the code in
    one version and by Python in the other."""
    import ast

    def forms(v, lines):
        called, bare = set(), set()
        for n in ast.walk(v.node):
            if isinstance(n, ast.Raise) and n.lineno in lines and n.exc is not None:
                e = n.exc
                if isinstance(e, ast.Call) and not e.args and not e.keywords:
                    called.add(ast.dump(e.func))
                elif isinstance(e, (ast.Name, ast.Attribute)):
                    bare.add(ast.dump(e))
        return called, bare
    oc, ob = forms(old, ch_old)
    nc, nb = forms(new, ch_new)
    return bool(oc & nb or nc & ob)


def _raise_class_or_instance(x, y) -> bool:
    """Whether two interaction traces of runs that raised the same exception
    type differ only in a last call without arguments that one of them
    makes: ``raise C()`` against ``raise C``, where Python makes the
    instance itself (no call the trace sees)."""
    p, q = _parse_calls(x), _parse_calls(y)
    if p is None or q is None or abs(len(p) - len(q)) != 1:
        return False
    short, long_ = (p, q) if len(p) < len(q) else (q, p)
    last = long_[-1]
    return isinstance(last, list) and len(last) == 3 and not last[1] and not last[2] and \
        _same_value(repr(short), repr(long_[:-1]))


_CONTAINERS = ("list", "tuple", "dict", "set", "frozenset", "<iterator>")


def _object_attrs(x) -> Optional[dict]:
    """The attributes of an object snapshot (``[class, [[name, value], ...]]``,
    see funcrun.snapshot), else None."""
    if not (isinstance(x, list) and len(x) == 2 and isinstance(x[0], str)
            and x[0] not in _CONTAINERS and isinstance(x[1], list)):
        return None
    pairs = x[1]
    if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
               and p[0].isidentifier() for p in pairs):
        return None
    return {p[0]: p[1] for p in pairs}


def _each_found_in(short: list, rest: list) -> bool:
    """Whether every item of ``short`` is alike (renames allowed) to a
    distinct item of ``rest``; ``rest`` is consumed."""
    for item in short:
        i = next((j for j, z in enumerate(rest) if _alike_but_renamed(item, z)), None)
        if i is None:
            return False
        del rest[i]
    return True


def _alike_but_renamed(x, y) -> bool:
    """Whether two snapshots are equal once attributes that only one side
    has are matched by their values: an attribute renamed by a refactoring
    (``self._schema`` -> ``self._schema_class``) holds the same value and is
    no change of behaviour; one that only one version sets at all (a new
    ``self._cache_lock``) is a change of the object's state (issue 20).
    Attributes both sides have are compared as they are, so values moved
    between them still differ; a public attribute (no leading ``_``) that
    only one side has is never taken for a rename: callers read it."""
    if x == y:
        return True
    ax, ay = _object_attrs(x), _object_attrs(y)
    if ax is not None and ay is not None:
        if x[0] != y[0]:
            return False
        if not all(_alike_but_renamed(ax[k], ay[k]) for k in ax.keys() & ay.keys()):
            return False
        # attributes only one side has: renamed ones hold the same values;
        # one left over is an attribute the commit added (or dropped): the
        # object's state differs (issue 20: ``self._cache_lock`` added is a
        # change, ``hasattr`` and ``vars`` see it)
        # a public attribute one side lacks is part of what callers read
        # (``obj.converter``): renamed or dropped, it is a change; only
        # private ones (``_name``) may have been renamed
        only = (ax.keys() - ay.keys()) | (ay.keys() - ax.keys())
        if any(not k.startswith("_") for k in only):
            return False
        rest_x = [ax[k] for k in ax.keys() - ay.keys()]
        rest_y = [ay[k] for k in ay.keys() - ax.keys()]
        short, rest = (rest_x, rest_y) if len(rest_x) <= len(rest_y) else (rest_y, rest_x)
        return _each_found_in(short, rest) and not rest
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        return all(_alike_but_renamed(p, q) for p, q in zip(x, y))
    return False


def _same_value(a, b, arguments: bool = False) -> bool:
    """Two fields' snapshots (strings of funcrun.snapshot's data) describe
    the same value: equal without the injected values' names, or equal but
    for renamed attributes.  ``arguments``: the lists of the arguments after
    the call: when their lengths differ (a parameter the commit added or
    removed), each argument of the shorter list must be found among the
    other's, as the call left it."""
    a, b = _unnamed(a), _unnamed(b)
    if a == b:
        return True
    if not (isinstance(a, str) and isinstance(b, str)) or "[" not in a or "[" not in b:
        return False
    import ast
    try:
        x, y = ast.literal_eval(a), ast.literal_eval(b)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    if arguments and isinstance(x, list) and isinstance(y, list) and len(x) != len(y):
        # a parameter added or removed anywhere: each argument of the shorter
        # list must be found, as it was left, among the other's
        short, rest = (x, list(y)) if len(x) < len(y) else (y, list(x))
        return _each_found_in(short, rest)
    return _alike_but_renamed(x, y)


_QUOTED = re.compile(r"'([A-Za-z_][A-Za-z0-9_.]*)'")


def _stand_in_failure(r: dict, prefix: str) -> bool:
    """Whether a run raised because a value the input made up lacks what
    the code asks of it: a TypeError or AttributeError whose message names
    an injected Dummy or a class the prefix defined as a stand-in (``'C_x'
    object is not subscriptable``).  Such an exception says nothing about
    the function: the other version may merely ask the stand-in something
    the generator happened to give it (``x.copy()`` vs ``x[:]``)."""
    o = str(r.get("outcome", ""))
    if not o.startswith("raised:"):
        return False
    msg = str(r.get("message", ""))
    if re.search(r"\bDummy(Resource)?\b", msg):
        return True         # any exception about an injected value
    if o not in ("raised:TypeError", "raised:AttributeError"):
        return False
    made = set(re.findall(r"^class (\w+)", prefix or "", re.M))
    return any(n in made or n in ("Dummy", "DummyResource") or n.startswith("Dummy")
               for n in _QUOTED.findall(msg))


def _closed_miss_at_edit(ro: dict, rn: dict, ch_old: set, ch_new: set) -> bool:
    """Did a version raise, on one of its changed lines, the AttributeError
    of an attribute that a class of the module, whose attributes its text
    tells in full, lacks (funcrun's ``closed_miss``: ``temp.close()`` on a
    ``Deque``)?  No input could give the object that attribute: the error is
    the edit's own (made or mended), whatever the other version did after,
    made-up values or not."""
    for r, ch in ((ro, ch_old), (rn, ch_new)):
        if str(r.get("outcome")) == "raised:AttributeError" and r.get("line") in ch and \
                any(q in (r.get("closed_miss") or ()) for q in
                    _QUOTED.findall(str(r.get("message", "")))):
            return True
    return False


def _artefact(ro: dict, rn: dict, inp: "Input", own: tuple = (),
              deliberate: tuple = ((), ()), asked: frozenset = frozenset()) -> bool:
    """Whether two outcomes that differ tell nothing about the function:
    one version failed on a made-up value (:func:`_stand_in_failure`), or
    both raised on an input the generator made up (not a test's call) --
    the values were invalid for both, and only where they blew up differs.
    ``own``: strings only one version's changed lines have (the edit's
    tokens); an AttributeError about an attribute so named is the edit's
    doing (``BaseException.__delattr__(self, "__notes__")`` added), not a
    value of the wrong type.  ``deliberate``: the lines of each version's
    own ``raise X`` statements (:func:`_deliberate_lines`); on an aimed
    input, one version raising its own exception there while the other
    fails elsewhere with an AttributeError about an attribute the code
    never asks for by name (``asked``: a value's name missing, as
    ``BaseException.__delattr__(self, name)`` finds it, not a method a
    value of the wrong type lacks, ``expr.isdigit()`` on a tuple) took
    another path on the same values: a change, not a blow-up on an
    invalid value."""
    if _stand_in_failure(ro, inp.prefix) or _stand_in_failure(rn, inp.prefix):
        return True
    if inp.call:
        return False
    a, b = str(ro.get("outcome")), str(rn.get("outcome"))
    wrong_type = {"raised:TypeError", "raised:AttributeError"}
    aimed = inp.note.startswith(("aimed: ", "variant ("))
    if own and aimed and any(
            str(r.get("outcome")) == "raised:AttributeError" and
            any(q in own for q in _QUOTED.findall(str(r.get("message", "")))[1:])
            for r in (ro, rn)):
        return False
    if aimed and a.startswith("raised:") and b.startswith("raised:"):
        for (x, lx), (y, ly) in (((ro, deliberate[0]), (rn, deliberate[1])),
                                 ((rn, deliberate[1]), (ro, deliberate[0]))):
            missing = _QUOTED.findall(str(y.get("message", "")))[1:]
            if x.get("line") in lx and str(x.get("outcome")) not in wrong_type and \
                    str(y.get("outcome")) == "raised:AttributeError" and \
                    y.get("line") not in ly and missing and \
                    not any(q in asked for q in missing):
                return False
    if a.startswith("raised:") and b.startswith("raised:"):
        # on a value the code itself compares against (an aimed input), two
        # different exceptions other than wrong-type ones are two behaviours
        # (``factor == 1.0``: ZeroDivisionError before, ValueError after)
        return not (inp.note.startswith(("aimed: ", "variant (")) and a != b and
                    a not in wrong_type and b not in wrong_type)
    # one version rejects a made-up value of a kind no caller would pass
    # (``len(None)``, a function where a string belongs) that the other
    # happens to accept: the input was invalid, the edit no change.  Edge
    # values of a truth test count so whatever their type; values the code
    # itself compares against (aimed inputs from a comparison) never do
    if inp.note.startswith(("aimed: ", "variant (")):
        # a variant's shape (an iterator, a negative number ...) is one
        # callers pass: a version that rejects it behaves differently
        return False
    for r in (ro, rn):
        if str(r.get("outcome")) in wrong_type:
            if inp.note.startswith("aimed (edge)") or \
                    _ODD_TYPE.search(str(r.get("message", ""))):
                return True
    return False


_ODD_TYPE = re.compile(r"""['"](NoneType|function|builtin_function_or_method|method|module|type|"""
                       r"""generator|coroutine|ellipsis|NotImplementedType|property|bool)['"]""")


def _point_difference(a: dict, b: dict) -> Optional[tuple]:
    """The first value that differs at the changed lines' exits of two runs
    (ChangeGuard's program points): ``(exit number, name, value in a, value
    in b)``, or None.  Only when both runs left the changed lines as often,
    only names both runs have there (a renamed or extracted local says
    nothing), only values without made-up objects."""
    pa, pb = a.get("points") or [], b.get("points") or []
    if not pa or len(pa) != len(pb):
        return None
    for i, (x, y) in enumerate(zip(pa, pb)):
        if not isinstance(x, dict) or not isinstance(y, dict):
            return None
        for k in sorted(set(x) & set(y)):
            u, w = _as_called(x[k], y[k], a, b) if k == "self" else (x[k], y[k])
            if u != w and "Dummy" not in u and "Dummy" not in w and \
                    "<injected" not in u + w and not _same_value(u, w):
                return i, k, u, w
    return None


def _self_as_called(a: dict, b: dict) -> tuple:
    """The two runs' objects after the call (``self``), without the
    attributes that already differed when the call began and that the call
    left as they were on both sides: two versions whose ``__init__``
    differs (``self.from_right`` set by one alone) build the object
    otherwise, and that is not the method's doing.  The snapshots as they
    are where the objects began alike, or either is not an object."""
    return _as_called(a.get("self"), b.get("self"), a, b)


def _args_as_called(a: dict, b: dict) -> tuple:
    """The two runs' arguments after the call, without those the versions
    were given apart and that the call left as given on both sides (a
    class one module binds and the other makes up, for an aimed input's
    ``isinstance(union, AnnotationForwardRef)``: the input, not the call,
    differs there).  As they are where the inputs agree."""
    sa, sb = a.get("args"), b.get("args")
    ia, ib = a.get("input"), b.get("input")
    if not isinstance(ia, dict) or not isinstance(ib, dict) or ia == ib or \
            list(ia) != list(ib) or "(reshape)" in ia:
        return sa, sb
    pa, pb = _parsed(sa), _parsed(sb)
    if not isinstance(pa, list) or not isinstance(pb, list) or \
            not len(pa) == len(pb) == len(ia):
        return sa, sb
    keep_a, keep_b = [], []
    for k, x, y in zip(ia, pa, pb):
        # (the input's snapshots are cut at 300 characters)
        began_apart = ia[k] != ib[k]
        touched = str(x)[:300] != ia[k] or str(y)[:300] != ib[k]
        if began_apart and not touched:
            continue
        keep_a.append(x)
        keep_b.append(y)
    return repr(keep_a), repr(keep_b)


def _as_called(sa, sb, a: dict, b: dict) -> tuple:
    """Snapshots ``sa``, ``sb`` of the object in runs ``a``, ``b`` (after
    the call, or at a changed line's exit), seen as :func:`_self_as_called`
    sees them."""
    ba, bb = a.get("self_before"), b.get("self_before")
    if not ba or not bb or ba == bb or not isinstance(sa, str) or not isinstance(sb, str):
        return sa, sb
    pa, pb, qa, qb = _parsed(sa), _parsed(sb), _parsed(ba), _parsed(bb)
    oa, ob, xa, xb = (_object_attrs(x) for x in (pa, pb, qa, qb))
    if oa is None or ob is None or xa is None or xb is None or pa[0] != pb[0]:
        return sa, sb
    unset = object()
    keep_a, keep_b = [], []
    for k in sorted(oa.keys() | ob.keys()):
        began_apart = xa.get(k, unset) != xb.get(k, unset)
        touched = oa.get(k, unset) != xa.get(k, unset) or ob.get(k, unset) != xb.get(k, unset)
        if began_apart and not touched:
            continue
        if k in oa:
            keep_a.append([k, oa[k]])
        if k in ob:
            keep_b.append([k, ob[k]])
    return repr([pa[0], keep_a]), repr([pb[0], keep_b])


def _differences(a: dict, b: dict, raise_forms: bool = False, points: bool = False) -> list:
    """Fields in which two runs differ (the exception message counts only as
    "message": by itself it does not make a change, see check_function);
    ``points``: the values at the changed lines' exits too ("points", when
    nothing else differs)."""
    if a.get("outcome") != b.get("outcome"):
        return ["outcome"]
    out = [k for k in _FIELDS[1:] if k != "calls" and
           not (_same_value(*_self_as_called(a, b)) if k == "self" else
                _same_value(*_args_as_called(a, b), True) if k == "args" else
                _same_value(a.get(k), b.get(k), False))]
    ca, cb = _matched_calls(a.get("calls"), b.get("calls"))
    if not _same_value(ca, cb) and not (raise_forms and
                                        str(a.get("outcome")).startswith("raised:") and
                                        _raise_class_or_instance(ca, cb)):
        out.append("calls")
    if str(a.get("outcome")).startswith("raised:") and \
            _unnamed(a.get("message")) != _unnamed(b.get("message")):
        out.append("message")
    if str(a.get("outcome")).startswith("raised:") and \
            (a.get("cause") or "") != (b.get("cause") or ""):
        out.append("cause")     # ``raise ... from err`` added or dropped
    if str(a.get("outcome")).startswith("raised:") and \
            not _same_value(a.get("raised") or "[]", b.get("raised") or "[]"):
        out.append("raised")    # what the exception holds (its attributes)
    if points and not out and _point_difference(a, b) is not None:
        out.append("points")
    return out


#: rounds of padding a rerun allocates before it runs (funcrun._padding)
_SHIFT = 3


#: a number as large as an object's address (``id``, a default repr's hex)
_ADDRESS = re.compile(r"(?<![\w.])(?:0x[0-9a-fA-F]{8,}|[0-9]{10,})(?![\w.])")


def _address_like(fields: list, a: dict, b: dict) -> bool:
    """Whether two runs' values of ``fields`` differ in numbers the size
    of an address (one run's such numbers are not the other's)."""
    for k in fields:
        x, y = (set(_ADDRESS.findall(str(r.get(k) or ""))) for r in (a, b))
        if x != y:
            return True
    return False


#: digits in a value that differs from another only in its digits, from
#: which the value may be computed from an address (spelled out digit by digit)
_DIGITS_ONLY_MIN = 6


def _digits_only(fields: list, a: dict, b: dict) -> bool:
    """Whether two runs' values of one of ``fields`` differ only in their
    digits, holding ``_DIGITS_ONLY_MIN`` or more of them (``'2-4-4-2'``
    against ``'0-6-4-1'``): a value that may be an address's digits
    reworked, not shaped like an address."""
    for k in fields:
        x, y = str(a.get(k) or ""), str(b.get(k) or "")
        if x != y and re.sub(r"\d", "0", x) == re.sub(r"\d", "0", y) and \
                sum(c.isdigit() for c in x) >= _DIGITS_ONLY_MIN:
            return True
    return False


def _rerun_addresses(real: list, sides: list, inp, opts, ro: dict, rn: dict, fc) -> list:
    """``real`` (the fields a rerun of each version reproduced), less those
    a second rerun, on another heap, does not give again, where the two
    versions' values differ in numbers the size of an address, or only in
    many digits: a rerun may land on the first run's address by chance
    (blocks the module freed are reused first, whatever was allocated
    before)."""
    if not real or not (_address_like(real, ro, rn) or _digits_only(real, ro, rn)):
        return real
    return _rerun_reproduced(real, sides, inp, opts, ro, rn, fc, _SHIFT + 2)


def _rerun_reproduced(fields: list, sides: list, inp, opts, ro: dict, rn: dict, fc,
                      shift: int) -> list:
    """Each version run again on a heap moved by ``shift``: the fields among
    ``fields`` that both reruns gave again (:func:`_reproduced`)."""
    ro2 = sides[0].run(inp, opts, shift=shift)
    rn2 = sides[1].run(inp, opts, shift=shift)
    fc.runs += 2
    return _reproduced(fields, ro, rn, ro2, rn2)


def _reproduced(fields: list, ro: dict, rn: dict, ro2: dict, rn2: dict) -> list:
    """The fields among ``fields`` (where two versions' runs ``ro``, ``rn``
    differ) that a second run of each version (``ro2``, ``rn2``) gave
    again: what differs between identical runs is no evidence (a second
    run that ended another way reproduces nothing)."""
    every = set(_FIELDS) | {"message", "points", "cause", "raised"}

    def stable(a: dict, b: dict) -> set:
        return every - set(_differences(a, b, points=True)) \
            if b.get("outcome") == a.get("outcome") else set()
    so, sn = stable(ro, ro2), stable(rn, rn2)
    return [k for k in fields if k in so and k in sn or
            k not in ("message", "cause") and
            ro.get("outcome") == ro2.get("outcome") and rn.get("outcome") == rn2.get("outcome")
            and _beyond_noise(ro.get(k), ro2.get(k), rn.get(k), rn2.get(k))]


#: the longest value :func:`_beyond_noise` compares
_NOISE_MAX = 20000


def _digits_masked(a) -> Optional[str]:
    """A recorded text with every run of digits written ``0``; None for no
    text or one too long to compare."""
    if not isinstance(a, str) or len(a) > _NOISE_MAX:
        return None
    return re.sub(r"\d+", "0", a)


def _beyond_noise(o, o2, n, n2) -> bool:
    """Whether two versions' values of a field differ beyond what differs
    between two runs of one version (``o``, ``o2``; ``n``, ``n2``): where
    a version's two runs differ, and only in runs of digits (an ``id()``,
    a clock, an address spelled out), every run of digits is noise -- the
    versions differ where their values do with all digits written ``0``
    (``'Cache([])'`` against ``'Cache(id=140..., total_entries=0)'``; not
    ``'1-0-0-3'`` against ``'1-0-2-2'``, which a run may give either
    version)."""
    if o == o2 and n == n2:
        return False                # both steady: the usual comparison
    mo, mo2, mn, mn2 = (_digits_masked(x) for x in (o, o2, n, n2))
    if None in (mo, mo2, mn, mn2) or mo != mo2 or mn != mn2:
        return False                # runs that differ otherwise (hash order)
    return mo != mn


#: a made-up value or class named in a snapshot (``funcy._inspect.C_func``)
_MADE_UP_ANY = re.compile(r"Dummy|<injected|\bC_\w+")


def _made_up_only(u, w) -> bool:
    """Whether two snapshots of one field differ only in parts that name
    made-up values (a stand-in class named with its module in one run and
    without it in the other): how a stand-in is shown, not what the code
    computed."""
    if u is None or w is None:
        return False
    parts = _differing_parts(u, w) or [u, w]
    return all(_MADE_UP_ANY.search(str(p)) for p in parts)


#: agreeing inputs run again before a "same" (_unsteady_agreement)
_STEADY_CHECKS = 3


def _swaps_never_apart(swaps: list, agree: list) -> Optional[str]:
    """Why inputs alike do not show an edit that swapped one computing
    function for another (``commonprefix`` -> ``commonpath``): no argument
    the runs gave either one makes the two differ; None where one does."""
    for pair in swaps:
        recs = [x for _inp, ro, rn in agree for r in (ro, rn) for x in r.get("watched") or ()]
        n, apart = told_apart(pair, recs)
        if not apart:
            return f"the edit calls {pair[1]} where the old version called {pair[0]}, and " + \
                (f"the two agree on each of the {n} argument list{'s' if n != 1 else ''} " 
                 "the inputs gave them" if n else "no input called either") + \
                ": the inputs may not show what the edit changes"
    return None


def _unsteady_agreement(sides: list, agree: list, opts: "Options", fc) -> Optional[str]:
    """Before a "same": the first agreeing inputs (concrete ones first) run
    again in each version on a moved heap; where a version gives another
    value than it gave the first time (a value computed from an address,
    on which the two versions' first runs may agree by chance), the
    agreement is no evidence.  What differs (a summary), else None; an
    exception's message and cause are not compared, nor values that differ
    only where they name made-up ones."""
    for inp, ro, rn in _concrete_first(agree)[:_STEADY_CHECKS]:
        for side, r in ((sides[0], ro), (sides[1], rn)):
            r2 = side.run(inp, opts, shift=_SHIFT)
            fc.runs += 1
            # (an exception's message aside: how deep a ``RecursionError``
            # was raised says so in its wording, and a message alone makes
            # no change where messages are not compared)
            moved = [k for k in _differences(r, r2, points=True)
                     if k not in ("message", "cause") and not _made_up_only(r.get(k), r2.get(k))]
            if moved:
                return _summary_of(moved[0], r, r2)
    return None


#: a message that names an injected value or a stand-in class of the input
_MADE_UP_NAMED = re.compile(r"Dummy|<injected|'C_\w+'|\bC_\w+ object")


def _through_injection(fields: list, a: dict, b: dict) -> bool:
    """Whether the values that differ involve an injected Dummy (then the
    difference may come from what the Dummy does rather than the code)."""
    for k in fields:
        vals = [a.get(k), b.get(k)]
        if k == "calls":
            # a call is an interaction whatever its arguments are made of;
            # only a call without arguments of an injected callee (``x.copy()``
            # on a made-up ``x``: what a made-up object is asked) is weak
            x, y = _matched_calls(a.get(k), b.get(k))
            if _same_value(_drop_bare_injected(x), _drop_bare_injected(y)):
                return True
            if _first_difference_added_to_made_up(x, y):
                return True
            continue
        if k == "outcome":
            vals = [a.get("ret"), b.get("ret"), a.get("message"), b.get("message")]
            raised = [r for r in (a, b) if str(r.get("outcome", "")).startswith("raised:")]
            msg = str(raised[0].get("message") or "") if len(raised) == 1 else ""
            if msg and not _MADE_UP_NAMED.search(msg) and raised[0]["outcome"] not in (
                    "raised:TypeError", "raised:AttributeError"):
                # one version raised, of the code's own accord (its message
                # names no made-up value: ``dictionary changed size during
                # iteration``), where the other returned: that is the
                # difference, whatever the value returned holds
                vals = [msg]
        else:
            if _arity_changed(_parsed(vals[0]), _parsed(vals[1])):
                # a tuple of other length at the same place (``yield
                # stdin, encoding, color`` -> ``yield stdin, color``): the
                # code's own shape, whatever its items are made of
                continue
            vals = _differing_parts(vals[0], vals[1], objects=True) or vals
        if any("Dummy" in str(v) for v in vals if v is not None):
            return True
    return False


def _weak(real: list, ro: dict, rn: dict, swapped: set, own: bool,
          edit_raises: tuple = ((), ()), swapped_globals: frozenset = frozenset(),
          marks: tuple = ((), ())) -> bool:
    """Whether a difference in the fields ``real`` may come from what
    made-up values did rather than from the code (see the caller);
    ``swapped_globals``: :func:`_swapped_globals`; ``marks``: the names
    and constants on the changed lines (:func:`_edit_marks`)."""
    if _real_side(ro, rn, swapped, edit_raises):
        return False
    if "calls" in real and _edit_written_call(ro, rn, marks, swapped):
        return False
    if "calls" in real and not swapped and _branch_into_made_up(ro, rn):
        return False
    if "ret" in real and _own_attribute_difference(ro.get("ret"), rn.get("ret"), marks):
        return False
    if swapped_globals and _apart_only_by_swapped(real, ro, rn, swapped_globals):
        return True
    if "ret" in real and _arity_changed(_parsed(ro.get("ret")), _parsed(rn.get("ret"))):
        # a value returned or yielded as a tuple of another length at the
        # same place is the code's own shape, whatever its items are made
        # of, and whatever stand-ins the input called first
        return False
    return (_through_injection(real, ro, rn) or
            not (own or _concrete(ro) and _concrete(rn)) or
            _stand_in_before_divergence(ro, rn) and
            not _own_call_difference(ro, rn) and
            not (own and "calls" not in real))


def _branch_into_made_up(ro: dict, rn: dict) -> bool:
    """Whether, up to where their interaction traces part, the two runs
    made the same calls and were given the same injected values, and there
    one version calls a made-up callee with arguments of no made-up value
    where the other calls nothing more or another callee (``--hash=...``
    lines skipped by a new branch: the old version still hands the line to
    the made-up ``Requirement.parse``).  Everything the branch decided on
    was the same in both runs, the input's values or what the same
    stand-ins answered alike, so taking it is the code's own; the values
    injected for the callee come after it.  (Only on an edit that reads no
    name the other does not: the caller checks.)"""
    x, y = _matched_parsed(ro.get("calls"), rn.get("calls"))
    if x is None or y is None:
        return False
    n = _first_parting(x, y)
    ix, iy = ro.get("injected"), rn.get("injected")
    if not isinstance(ix, list) or not isinstance(iy, list):
        return False
    for (one, other, inj, inj_other) in ((x, y, ix, iy), (y, x, iy, ix)):
        if len(one) <= n:
            continue
        c = one[n]
        if not (isinstance(c, list) and len(c) == 3 and c[0] == "<injected>") or \
                _MADE_UP_ANY.search(repr(c[1:])):
            continue
        # the other's calls, all of them, the one's in order: the one made
        # calls the other skipped, each of the made-up callee with
        # arguments of no made-up value (not the same statement written
        # otherwise: ``joining_types.get(c)`` -> ``joining_types().get(c)``)
        rest, extra_calls = iter(map(repr, other[n:])), []
        want = next(rest, None)
        for d in one[n:]:
            if repr(d) == want:
                want = next(rest, None)
            else:
                extra_calls.append(d)
        if want is not None or not all(
                isinstance(d, list) and len(d) == 3 and d[0] == c[0] and
                not _MADE_UP_ANY.search(repr(d[1:])) for d in extra_calls):
            continue
        # the one run's injections: the other's, then only those for the
        # callee it calls there (its name, attribute and calls)
        if len(inj) < len(inj_other) or inj[:len(inj_other)] != inj_other:
            continue
        extra = inj[len(inj_other):]
        if extra and len({str(e[1]) for e in extra if isinstance(e, list) and
                          len(e) > 1}) == 1 and \
                all(isinstance(e, list) and e and e[0] in ("name", "attribute", "call")
                    for e in extra) and \
                any(e[0] == "call" for e in extra):
            return True
    return False


def _edit_written_call(ro: dict, rn: dict, marks: tuple, swapped: set) -> bool:
    """Whether one run makes a call to the outside world (a warning, a log
    line) that the other run makes to no callee of that name, with
    arguments holding no made-up value and holding a text the changed lines
    write (``warnings.warn(f'Relative path in {f}: ...')`` added on a
    branch of its own): the edit's own call, whatever made-up values the
    other run handled instead.  Not where the edit swapped a dependency
    (``swapped``: a stand-in that one version alone calls may have made
    that call for real)."""
    if swapped:
        return False
    x, y = _parse_calls(ro.get("calls")), _parse_calls(rn.get("calls"))
    texts = [t for t in (m.strip() for m in marks[0]) if len(t) >= 8 and " " in t]
    if x is None or y is None or not texts:
        return False

    def own(cs: list, other: list) -> bool:
        left = collections.Counter(repr(c) for c in other)
        callees = {str(d[0]) for d in other if isinstance(d, list) and d}
        for c in cs:
            if left[repr(c)] > 0:
                left[repr(c)] -= 1
                continue
            if not (isinstance(c, list) and c and isinstance(c[0], str)) or \
                    c[0].startswith(("<injected>", "<input>", "internal:")) or \
                    c[0] in callees:
                continue
            shown = repr(c[1:])
            if not _MADE_UP_ANY.search(shown) and any(t in shown for t in texts):
                return True
        return False
    return own(x, y) or own(y, x)


def _edit_marks(old: Version, new: Version, ch_old: set, ch_new: set) -> tuple:
    """(the names, the constants as snapshots show them) on either
    version's changed lines: attribute and keyword names, names, texts
    (a ``setattr``'s or a dict's key), and ``repr`` of every literal
    (``True``, ``'x'``, ``3``)."""
    import ast
    names: set = set()
    consts: set = set()
    for v, lines in ((old, ch_old), (new, ch_new)):
        for n in _on_lines(v, lines):
            if isinstance(n, ast.Attribute):
                names.add(n.attr)
            elif isinstance(n, ast.keyword) and n.arg:
                names.add(n.arg)
            elif isinstance(n, ast.Name):
                names.add(n.id)
            elif isinstance(n, ast.Constant) and isinstance(
                    n.value, (str, int, float, bool, type(None))):
                consts.add(repr(n.value))
                if isinstance(n.value, str):
                    names.add(n.value)
    return frozenset(names), frozenset(consts)


def _own_attribute_difference(a, b, marks: tuple) -> bool:
    """Whether two returned objects of the same class (snapshots) differ in
    attributes the edit itself sets: every attribute that differs holds no
    made-up value in either, and is named on the changed lines where one
    object lacks it (``alias_is_default`` added), or holds, in one of
    them, a literal of the changed lines (``inherited=False`` ->
    ``inherited=True``).  Made-up values elsewhere in the objects do not
    make that difference weak: it is the code's own constant."""
    names, consts = marks
    x, y = _parsed(a), _parsed(b)
    if not (_object_fields(x) and _object_fields(y) and x[0] == y[0]) or \
            _MADE_UP_ANY.search(str(x[0])):
        return False
    dx, dy = dict(x[1]), dict(y[1])
    keys = [k for k in set(dx) | set(dy) if dx.get(k) != dy.get(k)]
    if not keys:
        return False
    for k in keys:
        vals = [w for w in (dx.get(k), dy.get(k)) if w is not None]
        if any(_MADE_UP_ANY.search(repr(w)) or "..." in repr(w) for w in vals):
            return False
        one_sided = k not in dx or k not in dy
        # (a scalar's snapshot is its text: ``'True'``, ``"'x'"``)
        if not (one_sided and k in names or not one_sided and any(
                w in consts for w in vals if isinstance(w, str))):
            return False
    return True


def _apart_only_by_swapped(fields: list, a: dict, b: dict, swapped: set) -> bool:
    """Whether two runs differ, in each of ``fields``, only where one holds
    a made-up value of a name that one version alone reads (``swapped``),
    the calls of made-up callees aside: an edit that replaced a dependency
    the run could not load (``text_type(v)`` -> ``str(v)``, the compat
    module absent) passes on the made-up value where the other version
    passes the real one, and that is all that differs."""
    names = "|".join(re.escape(n) for n in sorted(swapped))
    pat = re.compile(r"<Dummy(?:Resource)? \\?'(?:%s)\\?'>" % names)
    # (or an object of the input's stand-in class for it, or for what one of
    # its methods returns: ``HyperlinkParams.parse(seq)`` on a made-up
    # ``HyperlinkParams`` gives a ``C_HyperlinkParams_parse_ret``)
    stand = re.compile(r"C_(?:%s)(?:_\w+)?" % names)
    shown = re.compile(r"%s|'%s'" % (pat.pattern, stand.pattern))
    if not any(shown.search(str(r.get(k) or "")) for k in fields for r in (a, b)):
        return False

    def made_up(x) -> bool:
        return isinstance(x, str) and bool(pat.search(x)) or \
            isinstance(x, list) and bool(x) and isinstance(x[0], str) and \
            bool(stand.fullmatch(x[0]))

    def alike(x, y) -> bool:
        if made_up(x) or made_up(y):
            return True
        if isinstance(x, list) and isinstance(y, list):
            return len(x) == len(y) and all(alike(u, w) for u, w in zip(x, y))
        return x == y

    def swapped_callee(name: str) -> bool:
        # a stand-in the input defined for a swapped name (or a method of
        # one: ``<input>.C_HyperlinkParams.parse``)
        return name.startswith("<input>.") and any(
            p in swapped or stand.fullmatch(p) for p in name[8:].split("."))

    def bare(calls):
        return [c for c in calls if not (isinstance(c, list) and c and (
            str(c[0]).startswith("<injected") or swapped_callee(str(c[0]))))]
    for k in fields:
        if k == "calls":
            # (without the helpers of the module one version alone calls:
            # the real dependency the edit replaced by the swapped one)
            x, y = _matched_parsed(a.get(k), b.get(k))
            if x is None or y is None or not alike(bare(x), bare(y)):
                return False
        elif k in ("ret", "args", "self", "globals"):
            x, y = _parsed(a.get(k)), _parsed(b.get(k))
            if x is None or y is None:
                # (as shown; or a plain value, ``'None'``, as shown against
                # the other's parts: a stand-in's object where the real
                # helper returned None)
                if alike(a.get(k), b.get(k)):
                    continue
                x = a.get(k) if x is None else x
                y = b.get(k) if y is None else y
            if not alike(x, y):
                return False
        else:
            return False
    return True


def _parsed(snap):
    """A snapshot's text (``"['tuple', '1', ...]"``) as lists again (None
    for a value that is not a container's)."""
    if not isinstance(snap, str) or not snap.startswith("["):
        return None
    try:
        return ast.literal_eval(snap)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _arity_changed(x, y) -> bool:
    """Whether two parsed snapshots hold, at the same place, tuples of
    different lengths (inside lists, tuples and iterators' items of the
    same lengths)."""
    if not (isinstance(x, list) and isinstance(y, list) and x and y and x[0] == y[0]):
        return False
    if x[0] == "tuple" and len(x) != len(y) and "..." not in x + y:
        return True
    if x[0] in ("list", "tuple", "<iterator>") and len(x) == len(y):
        return any(_arity_changed(u, w) for u, w in zip(x[1:], y[1:]) if u != w)
    return False


def _object_fields(x) -> bool:
    """Whether a parsed snapshot is an object's: its class's name and its
    attributes' ``[name, value]`` pairs."""
    return isinstance(x, list) and len(x) == 2 and isinstance(x[0], str) and \
        x[0] not in _CONTAINERS and isinstance(x[1], list) and \
        all(isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) for e in x[1])


_CONTAINERS = ("dict", "list", "tuple", "set", "frozenset")


def _differing_parts(a, b, objects: bool = False) -> Optional[list]:
    """The items of two snapshots of a container (a dict's entries, a
    list's items) that the other lacks, when both are containers of the
    same kind: a dict that gained an entry of the code's own besides
    entries from made-up values differs in that entry, not in those (None
    when they are not such snapshots).  ``objects``: two objects' too --
    the attributes one lacks where their classes are the same, the classes
    where only they differ."""
    x, y = _parsed(a), _parsed(b)
    if objects and _object_fields(x) and _object_fields(y):
        if x[0] == y[0]:
            # an attribute the edit set or left out (``alias_is_default``)
            # beside attributes from made-up values
            xs, ys = [repr(e) for e in x[1]], [repr(e) for e in y[1]]
            return [e for e in xs if e not in ys] + [e for e in ys if e not in xs]
        if x[1] == y[1] and "." in x[0] and "." in y[0] and \
                not any(_MADE_UP_ANY.search(c) for c in (x[0], y[0])):
            # alike but for their class, each a class of the code's own
            # (``Version(**parts)`` -> ``type(self)(**parts)`` on the
            # object of a subclass): the class is what differs
            return [x[0], y[0]]
    if not (isinstance(x, list) and isinstance(y, list) and x and y and x[0] == y[0] and
            x[0] in _CONTAINERS):
        return None
    xs, ys = [repr(e) for e in x[1:]], [repr(e) for e in y[1:]]
    if x[0] in ("list", "tuple") and len(xs) == len(ys):
        return [p for u, w in zip(xs, ys) if u != w for p in (u, w)]
    return [e for e in xs if e not in ys] + [e for e in ys if e not in xs]


def _swapped_names(old: Version, new: Version) -> set:
    """The names (and attribute names) one version's function reads that
    the other's does not: the dependencies an edit swapped (``iteritems(d)``
    -> ``d.items()``, ``tzutc()`` -> ``tz.UTC``)."""
    a, b = _swapped_sides(old, new)
    return a | b


def _swapped_sides(old: Version, new: Version) -> tuple:
    """:func:`_swapped_names` by version: (those only the old function
    reads, those only the new one reads)."""
    def read(v):
        bound = set(_parameter_names(v)) | \
            {n.id for n in ast.walk(v.node) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)}
        # (a parameter or local renamed is no dependency)
        return {n.id for n in ast.walk(v.node) if isinstance(n, ast.Name)
                and n.id not in bound}, \
            {n.attr for n in ast.walk(v.node) if isinstance(n, ast.Attribute)}
    (n_old, a_old), (n_new, a_new) = read(old), read(new)
    r_old, r_new = n_old | a_old, n_new | a_new
    # a builtin the module does not rebind (``TypeError``, ``isinstance``)
    # is never made up: no dependency that a stand-in could stand for
    # (an attribute of that name still counts)
    fixed = set(dir(builtins)) - bound_names(old.module) - bound_names(new.module) - \
        a_old - a_new
    return r_old - r_new - fixed, r_new - r_old - fixed


def _swapped_globals(old: Version, new: Version, swapped: Optional[set] = None) -> set:
    """Of the names one version alone reads (``swapped``, else
    :func:`_swapped_sides` of the two), the globals only: not an
    attribute's name, nor a parameter or a local of either version, whose
    made-up values would carry the same name."""
    def read(v):
        return {n.id for n in ast.walk(v.node) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Load)}

    def taken(v):
        return set(_parameter_names(v)) | \
            {n.id for n in ast.walk(v.node) if isinstance(n, ast.Name)
             and not isinstance(n.ctx, ast.Load)} | \
            {n.attr for n in ast.walk(v.node) if isinstance(n, ast.Attribute)} | \
            {n.arg for n in ast.walk(v.node) if isinstance(n, ast.keyword) and n.arg}

    def defined(v):
        # what the module itself defines (a class, a function, a constant)
        # is code the extract could have run: not a dependency no run knows
        # (``TlzSpec(...)`` -> ``ModuleSpec(...)`` replaces one class by
        # another), unlike a name of a module the run does not have
        # (``from .compat import text_type``)
        out: set = set()
        for st in ast.walk(v.module):
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(st.name)
            elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for t in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                    out.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        return out
    if swapped is None:
        old_only, new_only = _swapped_sides(old, new)
        swapped = old_only | new_only
    return (swapped & (read(old) ^ read(new))) - taken(old) - taken(new) - \
        defined(old) - defined(new)


def _asked_of(old: Version, new: Version, globals_: set, swapped: set) -> set:
    """The attributes either version reads directly on one of ``globals_``
    (:func:`_swapped_globals`) that one version alone reads (``swapped``):
    ``HyperlinkParams.parse(seq)``'s ``parse``, whose made-up value is the
    swapped dependency's too."""
    if not globals_:
        return set()
    return {n.attr for v in (old, new) for n in ast.walk(v.node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and
            n.value.id in globals_ and n.attr in swapped}


def _swapped_difference(fields: list, a: dict, b: dict, old_only: set,
                        new_only: set) -> list:
    """The names one version alone reads whose made-up values (or
    stand-in calls) show in the ``fields`` in which two runs differ (the
    return value for ``outcome``), where names of both versions show: a
    dependency the edit renamed (``make_x`` -> ``_make_x``), each name
    with made-up values of its own (none where only one version's names
    show: an attribute the edit started to set is the code's own)."""
    shown = {"outcome": ("ret", "message")}
    names = {m.group(1) or m.group(2) for k in fields for f in shown.get(k, (k,))
             for r in (a, b) for m in _DUMMY_OF.finditer(str(r.get(f) or ""))}
    both = set(_swapped_stand_ins(a, b, old_only | new_only))
    if not (names & (old_only | new_only) and both & old_only and both & new_only):
        return []
    return sorted(both)


#: a made-up value's name (also inside a text's repr: ``<Dummy \'x\'>``), or a stand-in called
_DUMMY_OF = re.compile(r"<Dummy(?:Resource)? \\?'([^'\\]+)\\?'>|'<input>\.([A-Za-z_]\w*)'")


#: what a run shows of the function's behaviour (besides its outcome)
_OBSERVED = ("ret", "message", "calls", "args", "self", "globals", "out")


def _swapped_stand_ins(a: dict, b: dict, swapped: set) -> list:
    """The ``swapped`` names for which two runs show a made-up value (or a
    call of a stand-in) in what they observed, once per place."""
    return [m.group(1) or m.group(2) for f in _OBSERVED for r in (a, b)
            for m in _DUMMY_OF.finditer(str(r.get(f) or ""))
            if (m.group(1) or m.group(2)) in swapped]


_MADE_UP_RET = re.compile(r"^\"?(?:<Dummy(?:Resource)? '([^'\\]+)'>|\['C_([A-Za-z_]\w*)')")


def _swapped_made_up(fields: list, a: dict, b: dict, swapped: set) -> bool:
    """Do the two runs differ only in their return values, each a made-up
    value (an injected Dummy, a stand-in object of the prefix) for a name
    that only its own version reads (and in calls of made-up callees)?"""
    if not swapped or "ret" not in fields or not set(fields) <= {"ret", "calls"}:
        return False
    if "calls" in fields:
        # (and calls of made-up callees alone: what each stand-in was asked)
        x, y = _matched_parsed(a.get("calls"), b.get("calls"))
        if x is None or y is None or not all(
                isinstance(c, list) and c and isinstance(c[0], str) and
                c[0].startswith(("<injected>", "<input>.")) for c in x + y):
            return False
    for r in (a, b):
        if r.get("outcome") != "returned":
            return False
        m = _MADE_UP_RET.match(str(r.get("ret") or ""))
        name = m and (m.group(1) or m.group(2))
        if not name or not any(name == n or name.startswith(n + "_") for n in swapped):
            return False
    return True


def _swapped_calls(fields: list, a: dict, b: dict, old_only: set, new_only: set) -> bool:
    """Do two runs differ only in calls of made-up callees that one of them
    alone makes, where each version reads names the other does not
    (``body["__ne__"] = _make_ne()``
    -> ``= __ne__``, both imported from a module that is not there): what a
    stand-in for a swapped dependency was asked is not the code's own."""
    if fields != ["calls"] or not old_only or not new_only:
        return False
    x, y = _matched_parsed(a.get("calls"), b.get("calls"))
    if x is None or y is None:
        return False
    rx, ry = [repr(c) for c in x], [repr(c) for c in y]
    # (as multisets: a made-up callee called once more, with arguments
    # another call has too, is a call one version alone makes)

    def extra(cs: list, rs: list, other: list) -> list:
        left = collections.Counter(rs) - collections.Counter(other)
        out = []
        for c, r in zip(cs, rs):
            if left[r] > 0:
                left[r] -= 1
                out.append(c)
        return out
    odd_x, odd_y = extra(x, rx, ry), extra(y, ry, rx)
    # (calls one version alone makes: a made-up callee called with other
    # arguments by the other version is what the code passes, a change)
    odd = odd_x if not odd_y else odd_y if not odd_x else []
    return bool(odd) and all(_made_up_callee(c) for c in odd)


def _made_up_callee(c) -> bool:
    """Whether a parsed call record is a call of a made-up callee (an
    injected value, a stand-in the input's prefix defined)."""
    return isinstance(c, list) and bool(c) and isinstance(c[0], str) and \
        c[0].startswith(("<injected>", "<input>."))


def _swapped_answers(a: dict, b: dict, old_only: set, new_only: set) -> bool:
    """Do two runs make the same calls but where one version calls a
    made-up callee for a name it alone reads and the other, at the same
    place and with the same arguments, a made-up callee for its own name
    (``Version.isvalid(v)`` -> ``Version.is_valid(v)`` on a made-up
    ``Version``: the input's stand-in defines the one name and answers
    False, the other name is injected and answers a made-up value)?  Then
    whatever differs after it is what two made-up callees answered, not
    the code's own: no evidence either way, and no "same" (the real two
    may differ)."""
    swapped = old_only | new_only
    if not old_only or not new_only:
        return False
    x, y = _matched_parsed(a.get("calls"), b.get("calls"))
    if x is None or y is None or len(x) != len(y):
        return False

    def tail(c) -> str:
        return c[0].rsplit(".", 1)[-1]

    def named(c) -> bool:
        return c[0] == "<injected>" or tail(c) in swapped
    pairs = [(cx, cy) for cx, cy in zip(x, y) if repr(cx) != repr(cy)]
    # (not where a name is a method of a builtin value: ``x.issupserset``
    # -> ``x.issuperset`` fixes a name no set has; the real object may well
    # be a set, and then the one version fails where the other answers)
    return bool(pairs) and all(
        _made_up_callee(cx) and _made_up_callee(cy) and cx[1:] == cy[1:] and
        cx[0] != cy[0] and named(cx) and named(cy) and
        _asks_swapped(swapped & {tail(cx), tail(cy)})
        for cx, cy in pairs)


def _asks_swapped(names: set) -> bool:
    """Some swapped name, and none a method of a builtin value."""
    return bool(names) and not names & _BUILTIN_METHODS


#: the names of the methods of builtin values
_BUILTIN_METHODS = frozenset(n for t in (str, bytes, bytearray, list, tuple, dict, set,
                                         frozenset, int, float, complex)
                             for n in dir(t) if not n.startswith("__"))


#: files of a checkout read at most, looking for a renamed definition
_TWIN_FILES = 600


def _definitions(v: Version, names: set, root: Optional[str]) -> dict:
    """name -> the code of each definition (``def``/``class``, at the top of
    a module or in a class) of the names in ``names`` in ``v``'s module,
    else (module mode: ``root``, the checkout) in the tree's other modules,
    with its own name (a recursive call, a class naming itself) blanked:
    two definitions with the same code are one renamed."""
    import os

    def found(tree) -> dict:
        out: dict = {}
        for n in tree.body:
            for d in [n] + (n.body if isinstance(n, ast.ClassDef) else []):
                if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                        and d.name in names:
                    out.setdefault(d.name, []).append(_blanked(d))
        return out
    got = found(v.module)
    missing = set(names) - set(got)
    if root and missing:
        wanted = tuple(f"{k} {x}" for x in sorted(missing) for k in ("def", "class"))
        own = os.path.join(root, v.path)
        seen = 0
        for d, subs, files in os.walk(root):
            subs[:] = sorted(x for x in subs if not x.startswith("."))
            for f in sorted(files):
                if not f.endswith(".py") or os.path.join(d, f) == own:
                    continue
                seen += 1
                if seen > _TWIN_FILES:
                    return got
                try:
                    with open(os.path.join(d, f), encoding="utf-8") as fh:
                        text = fh.read(1 << 20)
                    if any(w in text for w in wanted):
                        for k, x in found(ast.parse(text)).items():
                            if k in missing:
                                got.setdefault(k, []).extend(x)
                except (OSError, UnicodeDecodeError, SyntaxError, ValueError,
                        RecursionError):
                    continue
    return got


def _blanked(d) -> str:
    import copy
    d = copy.deepcopy(d)
    own = d.name
    d.name = "_lx_own"
    for n in ast.walk(d):
        if isinstance(n, ast.Name) and n.id == own:
            n.id = "_lx_own"
        elif isinstance(n, ast.Attribute) and n.attr == own:
            n.attr = "_lx_own"
    return code_dump(d)


def _renamed_twins(old: Version, new: Version, old_only: set, new_only: set,
                   roots: tuple = (None, None)) -> dict:
    """old name -> new name, for each name only the old function reads whose
    one definition is, but for its name, the one definition of one name
    only the new function reads (``_is_entity_boundary`` ->
    ``is_entity_boundary`` moved to another module, ``KeepOpenFile`` ->
    ``_KeepOpenFile``): the dependency renamed, not changed."""
    if not old_only or not new_only:
        return {}
    od = _definitions(old, old_only, roots[0])
    nd = _definitions(new, new_only, roots[1])
    out = {}
    for o, codes in od.items():
        if len(codes) != 1:
            continue
        twins = [n for n, c in nd.items() if c == codes]
        if len(twins) == 1:
            out[o] = twins[0]
    return out


def _alike_renamed(a: dict, b: dict, twins: dict, raise_forms: bool = False) -> bool:
    """Are two runs alike once both records name each renamed dependency
    (:func:`_renamed_twins`) and its twin alike?  (Both names in both
    records: a message may quote the old name in either version.)"""
    import json
    if not twins:
        return False
    one = {}
    for i, (o, n) in enumerate(sorted(twins.items())):
        one[o] = one[n] = f"_lx_twin{i}"
    pat = re.compile(r"(?<!\w)(%s)(?!\w)" % "|".join(
        sorted(map(re.escape, one), key=len, reverse=True)))
    try:
        x, y = json.dumps(a), json.dumps(b)
    except (TypeError, ValueError):
        return False
    x2, y2 = (pat.sub(lambda m: one[m.group(1)], t) for t in (x, y))
    if (x2, y2) == (x, y):
        return False
    return not _differences(json.loads(x2), json.loads(y2), raise_forms)


def _parse_calls(calls) -> Optional[list]:
    import ast
    try:
        x = ast.literal_eval(calls or "[]")
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return x if isinstance(x, list) else None


def _matched_parsed(a, b) -> tuple:
    """``_matched_calls`` of two traces, each parsed (None where one is not
    a trace's text)."""
    x, y = _matched_calls(a, b)
    return _parse_calls(x), _parse_calls(y)


def _matched_calls(a, b) -> tuple:
    """Two interaction traces without the calls of functions of the module
    (``internal:``) whose name only one trace has: a helper one version
    calls and the other does not (extracted or inlined by a refactoring)
    is compared through what it does, not as a call; the helpers' calls
    are compared as a set, after the outside calls (in order): neither a
    repeat with the same arguments nor their order is an interaction."""
    x, y = _parse_calls(a), _parse_calls(b)
    if x is None or y is None:
        return a, b

    def names(t):
        return {str(c[0]) for c in t if isinstance(c, list) and c}

    nx, ny = names(x), names(y)

    def kept(name, other):
        # a method the one version calls on the object of the variant's
        # subclass (``internal:_LxSubMarkup.unescape``) and the other on an
        # object of the class itself (``internal:Markup.unescape``): a
        # subclass's override runs in the one only
        def on_base(n, m):
            return n == f"internal:{m[1]}.{m[2]}" or (
                n.startswith("internal:") and n.endswith(f".{m[1]}.{m[2]}"))
        m = _ON_SUB.fullmatch(name)
        if m:
            return any(on_base(o, m) for o in other)
        return any((m := _ON_SUB.fullmatch(o)) and on_base(name, m) for o in other)

    moved = _moved_helpers(x, y, nx, ny)

    def keep(t, other):
        out, helpers, seen = [], [], set()
        for c in t:
            if isinstance(c, list) and c and _args_key(c) in moved:
                continue
            internal = isinstance(c, list) and c and str(c[0]).startswith("internal:")
            if internal and str(c[0]) not in other and not kept(str(c[0]), other):
                continue
            if isinstance(c, list) and c and f".{COMPUTING_MARK}." in str(c[0]) and \
                    str(c[0]) not in other:
                # a function of another module of the package that only
                # computes, called by one version alone: a test or a
                # conversion written as a helper; its value shows
                continue
            if internal or _PACKAGE_CALL.search(str(c[0]) if isinstance(c, list) and c
                                                else ""):
                # a function of the package runs for real: what it does
                # with a text of bytes shows in its own calls and values,
                # not in whether it was handed ``bytes`` or a ``bytearray``
                # of the same bytes (``check_label(label)`` ->
                # ``check_label(bytes(label))``)
                c = _bytes_alike(c)
            if internal:
                # a helper of the module called again with the same
                # arguments: what it does shows in its own calls and writes
                # (recorded in order); the repeated call itself is no
                # interaction (``self._parse(s)`` computed twice), nor is
                # the order of two helpers' calls (``_now()`` before or
                # after ``_convert(when)``)
                key = repr(c)
                if key in seen:
                    continue
                seen.add(key)
                helpers.append((key, c))
                continue
            out.append(c)
        return repr(out + [c for _, c in sorted(helpers, key=lambda h: h[0])])
    return keep(x, ny), keep(y, nx)


#: a call of a function of another module of the package (funcrun names it
#: ``pkg.(package).name``, ``pkg.(package,computes).name``)
_PACKAGE_CALL = re.compile("|".join(re.escape(f".{m}.") for m in (PACKAGE_MARK, COMPUTING_MARK)))


def _bytes_alike(x):
    """A parsed call record (or part of one) with each ``bytearray`` snapshot
    (``['bytearray', "b'a'"]``) shown as the ``bytes`` of the same bytes."""
    if isinstance(x, list):
        if len(x) == 2 and x[0] == "bytearray" and isinstance(x[1], str) and \
                x[1].startswith("b"):
            return x[1]
        return [_bytes_alike(y) for y in x]
    return x


def _base_name(name: str) -> str:
    """A callee's own name, without its module, class or leading
    underscores (``internal:_finalize_tokens`` and
    ``mistune.(package).finalize_tokens`` both ``finalize_tokens``)."""
    return name.rsplit(".", 1)[-1].split(":", 1)[-1].lstrip("_")


def _args_key(c: list) -> tuple:
    """A call record's base name and arguments (what a moved helper keeps)."""
    return (_base_name(str(c[0])), repr(c[1:]))


def _moved_helpers(x: list, y: list, nx: set, ny: set) -> set:
    """The calls (:func:`_args_key`) of a helper that one version has in its
    module (``internal:_finalize``) and the other calls from another module
    of the package (``pkg.(package).finalize``), by the same name less its
    leading underscores and with the same arguments, neither name called in
    the other version: a helper a refactoring moved to another module.  The
    helper runs for real in both, so what it does shows in the values; the
    call itself is no interaction with the outside world."""
    def one_sided(t, other, internal):
        return {_args_key(c) for c in t if isinstance(c, list) and len(c) > 1 and
                str(c[0]) not in other and
                (str(c[0]).startswith("internal:") if internal else
                 _PACKAGE_CALL.search(str(c[0])))}
    return (one_sided(x, ny, True) & one_sided(y, nx, False)) | \
        (one_sided(y, nx, True) & one_sided(x, ny, False))


#: a method called on the object of the subclass ``SUBCLASS_SELF`` made
#: (funcrun names it by that class): its class's name and the method's
_ON_SUB = re.compile(r"internal:_LxSub(\w+)\.(\w+)")

#: a call of a function the input's prefix defined (not the aimed inputs' own
#: ``_lx_raise`` patches)
_STAND_IN_CALL = re.compile(r"'<input>\.(?!_lx)")


def _first_parting(x: list, y: list) -> int:
    """Where two parsed interaction traces part: the index of the first call
    they do not share (names of made-up values aside), or the length of the
    shorter trace where one is the other's beginning."""
    n = 0
    for cx, cy in zip(x, y):
        if _unnamed(repr(cx)) != _unnamed(repr(cy)):
            break
        n += 1
    return n


def _added_to_made_up(cx, cy) -> bool:
    """Are two recorded calls of the same made-up callee apart only by what
    one of them adds (:func:`_only_added`)?  What a made-up callee takes by
    default is unknown (``s.split('.')`` and ``s.split('.', -1)``)."""
    return isinstance(cx, list) and isinstance(cy, list) and len(cx) == len(cy) == 3 \
        and cx[0] == cy[0] and str(cx[0]).startswith(("<injected", "<input>")) \
        and _only_added(cx, cy)


def _first_difference_added_to_made_up(a, b) -> bool:
    """Is the first difference of two interaction traces an argument one
    version adds to a made-up callee?"""
    x, y = _parse_calls(a), _parse_calls(b)
    if x is None or y is None:
        return False
    n = _first_parting(x, y)
    return n < min(len(x), len(y)) and _added_to_made_up(x[n], y[n])


def _only_added(cx: list, cy: list) -> bool:
    """Do two recorded calls differ only by arguments one of them adds at
    the end, or keywords one of them adds?"""
    (_, ax, kx), (_, ay, ky) = cx, cy
    short, long_ = (ax, ay) if len(ax) <= len(ay) else (ay, ax)
    kshort, klong = (kx, ky) if len(kx) <= len(ky) else (ky, kx)
    return list(long_[:len(short)]) == list(short) and \
        all(k in klong for k in kshort) and (len(short) < len(long_) or
                                             len(kshort) < len(klong))


def _stand_in_before_divergence(a: dict, b: dict) -> bool:
    """Did a version call one of the input's stand-in functions before the
    two runs' interaction traces part (the first call they do not share, or
    the end of the shorter trace)?  Only then may what a stand-in returned
    be the cause of the difference; a stand-in called after the versions
    already went different ways is not (``encode(memoryview(b'a'))`` raises
    in one version before anything calls the made-up
    ``valid_string_length``)."""
    calls = str(a.get("calls", "")) + str(b.get("calls", ""))
    if not _STAND_IN_CALL.search(calls):
        return False
    x, y = _matched_parsed(a.get("calls"), b.get("calls"))
    if x is None or y is None:
        return True
    n = _first_parting(x, y)
    if any(_STAND_IN_CALL.search(repr(c)) for c in x[:n]):
        return True
    # where they part: a stand-in called there by one version alone (what
    # it returned may be all the difference); one both call, later in the
    # other, was not where they went different ways
    # (unless the other version raised right there, having called nothing
    # more: it went its own way before the stand-in was asked anything --
    # a key its constant no longer holds)
    return any(len(t) > n and _STAND_IN_CALL.search(repr(t[n])) and
               _unnamed(repr(t[n])) not in {_unnamed(repr(c)) for c in u} and
               not (len(u) == n and str(r.get("outcome", "")).startswith("raised:"))
               for t, u, r in ((x, y, b), (y, x, a)))


def _own_call_difference(a: dict, b: dict) -> bool:
    """Whether the two runs' interaction traces agree up to a call of the
    same callee with other arguments, none of them made up: every call
    before it (stand-ins' included) was the same, so what those returned
    was the same too, and the arguments that differ are the code's own
    (``_('today')`` -> ``_('yesterday')``)."""
    x, y = _matched_parsed(a.get("calls"), b.get("calls"))
    if x is None or y is None:
        return False

    def real(c) -> bool:
        # a call of a real callee with none of its arguments made up
        return isinstance(c, list) and len(c) == 3 and \
            not str(c[0]).startswith(("<injected", "<input>")) and \
            "Dummy" not in repr(c) and "<injected" not in repr(c[1:])
    n = _first_parting(x, y)
    if n < min(len(x), len(y)):
        cx, cy = x[n], y[n]
        if isinstance(cx, list) and isinstance(cy, list) and len(cx) == len(cy) == 3 \
                and cx[0] == cy[0]:
            if _added_to_made_up(cx, cy):
                # an argument one version adds to a made-up callee may be
                # what it takes by default
                return False
            return "Dummy" not in repr(cx) + repr(cy) and \
                "<injected" not in repr(cx[1:]) + repr(cy[1:])
        # a call one version makes where the other makes another (or none):
        # the code's own when that call is real (``warnings.warn(...)``
        # added before everything both do)
        return any(real(c) and _unnamed(repr(c)) not in {_unnamed(repr(o)) for o in other}
                   for c, other in ((cx, y), (cy, x)))
    if len(x) != len(y):
        longer, shorter = (x, y) if len(x) > len(y) else (y, x)
        return real(longer[len(shorter)])
    return False


def _drop_bare_injected(calls):
    """An interaction trace without the calls of injected callees (or the
    input's stand-ins) that pass no arguments."""
    import ast
    try:
        x = ast.literal_eval(_unnamed(calls or "[]"))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return calls
    if not isinstance(x, list):
        return calls
    return repr([c for c in x if not (isinstance(c, list) and len(c) == 3 and
                                      str(c[0]).startswith(("<injected", "<input>"))
                                      and not c[1]
                                      and not c[2])])


def _concrete(r: dict) -> bool:
    """Whether a run's input (arguments, ``self``) holds no injected value."""
    return "Dummy" not in str(r.get("input", "")) and "Dummy" not in str(r.get("self", ""))


def _all_real(r: dict) -> bool:
    """Whether a run touched nothing made up: a concrete input, no value
    injected, no stand-in or injected callee called, no made-up value in
    what it returned, raised or passed on."""
    seen = "".join(str(r.get(k, "")) for k in ("ret", "message", "args", "calls", "globals"))
    return r.get("injections", 1) == 0 and _concrete(r) and "Dummy" not in seen and \
        "'<input>." not in seen and "'<injected" not in seen


def _unmade(ro: dict, rn: dict) -> bool:
    """Did both runs take no argument and touch nothing made up
    (:func:`_all_real`)?  A method without parameters on an object its
    class's own ``__init__`` built: nothing in the input was invalid, so
    two different failures are two behaviours of the code."""
    return all(str(r.get("input", "")) in ("{}", "") and _all_real(r) for r in (ro, rn))


def _real_side(ro: dict, rn: dict, swapped: set, edit_raises: tuple = ((), ())) -> bool:
    """Is one run of a pair all real (:func:`_all_real`) while the other is
    not, on an edit that swaps no dependency?  The two runs go alike up to
    the first changed statement either runs (same input, same code), so the
    other version made up nothing before it either: the versions went
    different ways on real values, at the edit, and the real run's
    behaviour is the code's own.  What the other version did afterwards
    with made-up values (returned one, or failed on one) does not make the
    difference an artefact: however those values had been, it no longer
    did what the real run did.  Not where the edit swapped a dependency
    (``return settings.LIMIT`` -> ``return 5``: the made-up ``settings``
    stands where the real value would have been equal), nor where the real
    run rejected its input's type -- unless by a ``raise`` the edit wrote
    (``edit_raises``: each version's such lines): a file opened in text
    mode turned away with a TypeError of the edit's own, where the other
    version went on only by made-up values, is the edit's behaviour."""
    if swapped:
        return False
    for a, b, own in ((ro, rn, edit_raises[0]), (rn, ro, edit_raises[1])):
        if _all_real(a) and not _all_real(b) and \
                (str(a.get("outcome")) not in ("raised:TypeError", "raised:AttributeError") or
                 a.get("line") in own):
            return True
    return False


def _one_sided_reads(old: Version, new: Version) -> tuple:
    """The names and attribute names each version's function reads that
    the other's never does: ``(old only, new only)``."""
    import ast

    def reads(v) -> set:
        return {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(v.node)
                if isinstance(n, (ast.Attribute, ast.Name)) and isinstance(n.ctx, ast.Load)}
    a, b = reads(old), reads(new)
    return frozenset(a - b), frozenset(b - a)


#: names that code can reach without binding them: a module's own dunders,
#: gettext's ``_``
_NEVER_UNBOUND = frozenset({"_"})
#: what can bind a module's globals out of sight of its text
_BINDS_UNSEEN = frozenset({"globals", "exec", "eval", "vars", "__builtins__", "builtins",
                           "__dict__", "setattr", "locals"})
#: exceptions a handler catches a NameError by
_CATCH_NAME_ERROR = frozenset({"NameError", "Exception", "BaseException"})


def never_bound(v: Version) -> frozenset:
    """The names ``v``'s function reads as globals that its whole module
    never binds and that are no builtins of this Python: each read is a
    NameError of every real run (``unicode``, ``basestring`` of Python 2).
    Empty where the module can bind names out of sight of its text (a star
    import, ``globals()``, ``exec``, ``setattr``, ``builtins``), nor a name
    read inside a ``try`` whose handler catches a NameError."""
    mod = v.module
    bound = bound_names(mod)
    if "*" in bound:
        return frozenset()
    for n in ast.walk(mod):
        if isinstance(n, ast.Name) and n.id in _BINDS_UNSEEN or \
                isinstance(n, ast.Attribute) and n.attr in _BINDS_UNSEEN:
            return frozenset()
        if isinstance(n, ast.ExceptHandler) and n.name:
            bound.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            bound.update(n.names)
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            bound.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            bound.add(n.rest)
    caught = set()
    for t in ast.walk(v.node):
        if not isinstance(t, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            continue
        if handler_names(t) & _CATCH_NAME_ERROR:
            caught |= {n.id for s in t.body for n in ast.walk(s) if isinstance(n, ast.Name)}
    return frozenset(
        n.id for n in ast.walk(v.node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound
        and n.id not in caught and n.id not in _NEVER_UNBOUND
        and not (n.id.startswith("__") and n.id.endswith("__"))
        and not hasattr(builtins, n.id))


def _never_bound_read(r: dict, v: Version, names: frozenset, off: int) -> Optional[tuple]:
    """``(name, line)`` where a run read first, of the made-up values it
    was given in ``v``'s function, one for a name of ``names``
    (:func:`never_bound`): the version's real run raises a NameError
    there.  None where another made-up value came first in the function (a
    made-up ``PY2`` leads into a branch no real run takes), or the input
    itself was made up."""
    if not names:
        return None
    for x in r.get("injected") or ():
        if len(x) < 3:
            continue
        if not isinstance(x[2], int):
            return None     # (a made-up argument)
        line = x[2] - off
        if not v.first_line <= line <= v.last_line:
            continue        # (the module's setup, a callee)
        return (x[1], line) if x[0] == "name" and x[1] in names else None
    return None


def _reads_made_up(r: dict, names: frozenset) -> bool:
    """Whether a run was given a made-up value for a name of ``names``."""
    return any(len(x) >= 2 and x[0] == "name" and x[1] in names
               for x in r.get("injected") or ())


def _prefix_binds(prefix: str, names: frozenset) -> bool:
    """Whether an input's prefix binds a name of ``names`` (a Treefix
    prefix defines the names the code lacks: ``basestring = str``), or
    cannot be read for it."""
    if not names:
        return False
    try:
        return bool(bound_names(ast.parse(prefix or "")) & names)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True


def _failed_on_one_sided_made_up(runs: tuple, offsets: tuple, one_sided: tuple) -> bool:
    """Did exactly one of two runs raise, on a line where it was given a
    made-up value for a name that only its version reads
    (:func:`_one_sided_reads`)?  ``injected`` holds kind, name and line in
    the run's text; ``offsets``: each text's lines less the module's."""
    raised = [str(r.get("outcome", "")).startswith("raised:") for r in runs]
    if raised[0] == raised[1]:
        return False
    i = 0 if raised[0] else 1
    r, off, own = runs[i], offsets[i], one_sided[i]
    line = r.get("line")
    return any(len(x) >= 3 and x[1] in own and isinstance(x[2], int) and x[2] - off == line
               for x in r.get("injected") or ())


def _raised_by_both_edits(ro: dict, rn: dict, edit_raises: tuple) -> bool:
    """Did each version raise at a ``raise`` the edit wrote in it, an
    exception of another class (``raise Exception(f"{val} ...")`` ->
    ``raise CattrsError(f"{val} ...")``)?  The two ran alike up to their
    changed lines, and each raised there of its own accord: the class is
    the edit's, whatever made-up value the message shows."""
    a, b = str(ro.get("outcome")), str(rn.get("outcome"))
    return a != b and a.startswith("raised:") and b.startswith("raised:") and \
        ro.get("line") in edit_raises[0] and rn.get("line") in edit_raises[1]


def _describe(r: dict) -> dict:
    d = {"outcome": r.get("outcome")}
    for k in ("ret", "out", "args", "self", "message", "raised", "line", "calls", "globals"):
        if r.get(k) not in (None, "", "[]"):
            d[k] = r[k] if not isinstance(r[k], str) else r[k][:600]
    return d


def _short(s, n: int = 70) -> str:
    s = str(s).replace("\n", "\\n")
    return s if len(s) <= n else s[:n - 3] + "..."


def diff_excerpt(a: str, b: str, width: int = 60) -> tuple:
    """The part of two long strings around their first difference."""
    a, b = str(a).replace("\n", "\\n"), str(b).replace("\n", "\\n")
    if len(a) <= width and len(b) <= width:
        return a, b
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    start = max(0, i - 20)
    pre = "..." if start else ""

    def cut(s):
        part = s[start:start + width]
        return pre + part + ("..." if start + width < len(s) else "")
    return cut(a), cut(b)


def _summary_of(field_: str, a: dict, b: dict) -> str:
    if field_ == "points":
        i, k, u, w = _point_difference(a, b) or (0, "?", "", "")
        x, y = diff_excerpt(u, w)
        return f"{_FIELD_WORDS[field_]} ({'first exit' if i == 0 else f'exit {i + 1}'}): " \
            f"{k} = {x} -> {k} = {y}"
    if field_ == "outcome" or field_ == "ret" and str(a.get("outcome")).startswith("raised:"):
        x, y = diff_excerpt(_oc(a), _oc(b))
        return f"{x} -> {y}"
    if field_ == "cause":
        def chained(r):
            c = r.get("cause") or ""
            return "raised 'from None'" if c == "none" else \
                f"raised 'from' a {c}" if c else "not chained"
        return f"{_FIELD_WORDS[field_]}: {chained(a)} -> {chained(b)}"
    x, y = diff_excerpt(a.get(field_), b.get(field_))
    return f"{_FIELD_WORDS[field_]} {x} -> {y}"


def _oc(r: dict) -> str:
    o = r.get("outcome", "")
    if o == "timeout":
        return "runs past the time limit"
    if o == "returned":
        return f"returns {r.get('ret')}"
    if o.startswith("raised:"):
        if r.get("ret"):
            # funcrun: the exception came while its returned iterator was iterated
            return f"returns an iterator that raises {o[7:]} when iterated: {r.get('ret')}"
        return f"raises {o[7:]}"
    return o


def _accepts(v: Version, n: int) -> bool:
    """Whether ``v`` takes ``n`` positional arguments (besides self/cls)."""
    a = v.node.args
    k = len(a.posonlyargs + a.args)
    if v.kind in ("method", "classmethod", "getter", "setter", "deleter") and k:
        k -= 1
    return a.vararg is not None or n <= k


def check_function(old: Version, new: Version, *, opts: Optional[Options] = None,
                   test_inputs: Optional[list] = None, file: str = "",
                   old_tree: Optional[Tree] = None, new_tree: Optional[Tree] = None,
                   **kw) -> FunctionCheck:
    """Run both versions on the same inputs; see the module docstring.
    ``test_inputs``: :class:`Input` objects from the project's tests;
    ``old_tree``/``new_tree``: checkouts for module mode (else extract mode)."""
    opts = opts or Options(**kw)
    import asyncio  # noqa: F401  (the children patch it: imported once, here, not in each)
    try:
        import time_machine  # noqa: F401  (the children freeze the clock with it)
    except ImportError:
        pass
    fc = _check_function(old, new, opts, test_inputs, file, old_tree, new_tree)
    if fc.verdict == SAME:
        elsewhere = _other_python_edit(old, new)
        # (a static "same": the function's code did not change)
        callees = _changed_callees(old, new) if not elsewhere and fc.status != "static" \
            else []
        held = _class_value_swap(old, new) if not (elsewhere or callees) and \
            fc.status != "static" else None
        if held:
            # ``isinstance(doc, Document)`` -> ``isinstance(doc, self.document_class)``
            # with ``document_class = Document`` in the class: alike on the
            # class as it stands, not on an object or subclass holding another
            fc.verdict = UNDECIDED
            fc.detail = f"{fc.detail}; but {held}"
        elif elsewhere:
            fc.verdict = UNDECIDED
            fc.detail = f"{fc.detail}; but {elsewhere}"
        elif callees:
            # the inputs ran the function's changed lines, not those of a
            # helper the same edit changed (a table reader that no longer
            # converts keys): what reaches that change is its own question
            fc.verdict = UNDECIDED
            fc.detail = f"{fc.detail}; but {', '.join(callees)}, which it calls, " \
                "changed too (\"same\" needs the inputs to reach that change)"
    return fc


def _class_value_swap(old: Version, new: Version) -> Optional[str]:
    """Where one version's changed lines read an attribute of the object or
    class (``self.document_class``) and the other's read, in its place, the
    name the class binds that attribute to (``document_class = Document``):
    what says so (None where not).  The two agree only while no object or
    subclass holds another value there."""
    if old.cls is None or new.cls is None:
        return None
    ch_old, ch_new = changed_lines(old, new)

    def reads(v, lines):
        attrs, names = set(), set()
        for n in ast.walk(v.node):
            if getattr(n, "lineno", None) not in lines:
                continue
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and \
                    n.value.id in ("self", "cls"):
                attrs.add(n.attr)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                names.add(n.id)
        return attrs, names

    def bound(v) -> dict:
        return {t.id: st.value.id for st in v.cls.body if isinstance(st, ast.Assign)
                and isinstance(st.value, ast.Name) for t in st.targets
                if isinstance(t, ast.Name)}
    held = {**bound(old), **bound(new)}
    (ao, no), (an, nn) = reads(old, ch_old), reads(new, ch_new)
    for attrs, names, other_attrs, other_names, who in (
            (an, nn, ao, no, "new"), (ao, no, an, nn, "old")):
        for a in sorted(attrs - other_attrs):
            x = held.get(a)
            if x is not None and x in other_names and x not in names:
                other = "old" if who == "new" else "new"
                return (f"the {who} version reads self.{a} where the {other} read {x}, "
                        f"which the class holds there: an object or a subclass may hold "
                        f"another (\"same\" needs an input that tells them apart)")
    return None


def _changed_callees(old: Version, new: Version) -> list:
    """The functions of the module, and methods of the function's class
    (``self.x()``, ``cls.x()``), that either version of the function calls
    and that the edit changed too; sorted names, [] for none."""
    def called(v) -> set:
        out = set()
        for n in ast.walk(v.node):
            if not isinstance(n, ast.Call):
                continue
            f = n.func
            if isinstance(f, ast.Name):
                out.add(("", f.id))
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                    f.value.id in ("self", "cls") and v.cls is not None:
                out.add((v.cls.name, f.attr))
        return out

    def defs(v, names: set) -> dict:
        # the dumps of the definitions of those names only
        out = {}
        for holder, body in (("", v.module.body),
                             (v.cls.name if v.cls is not None else None,
                              v.cls.body if v.cls is not None else ())):
            for st in body:
                if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        (holder, st.name) in names:
                    out.setdefault((holder, st.name), []).append(code_dump(st))
        return out
    own = {("", new.node.name), (new.cls.name if new.cls is not None else "", new.node.name)}
    names = (called(old) | called(new)) - own
    a, b = defs(old, names), defs(new, names)
    return sorted(".".join(x for x in k if x) for k in names
                  if k in a and k in b and a[k] != b[k])


def _module_bindings(module: ast.Module) -> dict:
    """name -> the dumps of the module's top-level statements binding it
    (assignments, definitions, imports), docstrings and annotations aside."""
    out: dict = {}
    for st in module.body:
        names = []
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [st.name]
        elif isinstance(st, ast.Assign):
            names = [n.id for t in st.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(st, (ast.AnnAssign, ast.AugAssign)) and \
                isinstance(st.target, ast.Name):
            names = [st.target.id]
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in st.names]
        if names:
            dump = code_dump(st)
            for n in names:
                out.setdefault(n, []).append(dump)
    return out


def _context_edit(old: Version, new: Version) -> str:
    """For a function whose own code is unchanged: the module-level names
    it reads (or that those read, two steps on) whose definitions the edit
    changed (``_TAGS = re.compile(...)`` given another pattern), as a
    phrase; '' when there are none."""
    a, b = _module_bindings(old.module), _module_bindings(new.module)
    if a == b:
        return ""
    dumps = [(st, code_dump(st)) for st in new.module.body
             if not isinstance(st, (ast.Import, ast.ImportFrom))]
    todo = _names_read(new.cls if new.cls is not None else new.node)
    seen: set = set()
    for _ in range(3):
        more: set = set()
        for nm in sorted(todo - seen):
            seen.add(nm)
            if a.get(nm) != b.get(nm) and (nm in a or nm in b):
                return f"but {nm}, which it reads, changed"
            mine = b.get(nm) or []
            for st, dump in dumps:
                if dump in mine:
                    more |= _names_read(st)
        todo = more
    return ""


def _other_python_edit(old: Version, new: Version) -> str:
    """Why "same" holds only for this Python: the definitions of the
    function for other Python versions (``if PY_3_14_PLUS: def f``) differ
    between the versions; else ''."""
    from .funcsource import other_python_definitions, later_python_definitions
    a, b = other_python_definitions(old), other_python_definitions(new)
    if [d for _, d in a] == [d for _, d in b]:
        # a function of the module either version calls whose definition
        # for a later Python the edit changed (``if sys.version_info >=
        # (3, 14): def _signature ...`` added with the call): what the
        # function does there is not what this Python showed
        called = sorted({n.func.id for v in (old, new) for n in ast.walk(v.node)
                         if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
                        - {old.name, new.name})
        for nm in called:
            x = later_python_definitions(old.module, nm)
            y = later_python_definitions(new.module, nm)
            if [d for _, d in x] != [d for _, d in y]:
                return f"{nm}, which it calls, has a definition for another Python " \
                    f"version that the edit changed ({'the new' if y else 'the old'} " \
                    f"version's line {(y or x)[0][0]}): this Python runs the other one"
        return ""
    line = (b or a)[0][0]
    return f"the definition for another Python version (the new version's line {line}) " \
        "changed: this Python runs the other one" if b else \
        "a definition for another Python version was removed"


def _check_function(old: Version, new: Version, opts: Options, test_inputs: Optional[list],
                    file: str, old_tree: Optional[Tree], new_tree: Optional[Tree]
                    ) -> FunctionCheck:
    t0 = time.monotonic()
    spent = _Spent()
    fc = FunctionCheck(file or new.path, new.qualname, "modified", EXCEPTION)
    if code_dump(old.node) == code_dump(new.node) and \
            (old.cls is None) == (new.cls is None) and old.kind == new.kind and \
            not _context_edit(old, new):
        fc.status, fc.verdict = "static", SAME
        fc.detail = "only docstrings or annotations changed"
        return fc
    fallback = import_fallback(new)
    if fallback and import_fallback(old):
        # ``except ImportError: def _dnsname_match``: what another Python
        # defines, where the import fails; this one never runs it
        fc.status, fc.verdict = "static", UNDECIDED
        fc.detail = f"defined only where `{fallback}` fails, and it works on this " \
            "Python: the definition never runs here"
        return fc
    if is_overload(old.node) and is_overload(new.node):
        # what a type checker reads: the name binds the definition after it
        fc.status, fc.verdict = "static", SAME
        fc.detail = "a typing.overload stub: no code that runs"
        return fc
    o_req, o_kw = old.params()
    n_req, n_kw = new.params()
    broken = _signature_break(old, new)
    if broken:
        # a call that works with the old version raises TypeError with the
        # new one, whatever the body does
        fc.verdict, fc.evidence, fc.detail = CHANGED, "signature", broken
        fc.seconds = round(time.monotonic() - t0, 3)
        return fc
    # positional arguments by position: the new version's names when the
    # counts agree, so a renamed parameter gets the same value in both; when
    # they differ, the longer list if both versions accept that many (a
    # parameter turned into *args), else each its own
    o_args = n_args = n_req
    if len(o_req) != len(n_req):
        longer = o_req if len(o_req) > len(n_req) else n_req
        if _accepts(old, len(longer)) and _accepts(new, len(longer)):
            o_args = n_args = longer
        else:
            o_args = o_req
    sig_note = "" if (o_req, o_kw) == (n_req, n_kw) else \
        f" (signature ({', '.join(o_req + o_kw)}) -> ({', '.join(n_req + n_kw)}))"

    va = _varargs_names(old, new)
    ch_old, ch_new = changed_lines(old, new)

    # the class-level values either version's class defines: a made-up
    # ``self`` does not shadow them in either run (funcrun)
    cattrs = tuple(sorted(_class_values(old) | _class_values(new)))

    # an instance built by the class's own constructor only where both
    # versions' constructors are the same code (else the state it starts in
    # differs, whatever the method does)
    construct = _init_code(old) == _init_code(new)

    def make(trees):
        return (_Side(old, o_args, o_kw, trees[0], va[0], ch_old, cattrs, construct, new),
                _Side(new, n_args, n_kw, trees[1], va[1], ch_new, cattrs, construct, old))
    module_mode = old_tree is not None and new_tree is not None
    try:
        sides = make((old_tree, new_tree) if module_mode else (None, None))
    except (ValueError, SyntaxError, IndexError) as e:
        fc.verdict, fc.detail = EXCEPTION, f"cannot build the driver: {e}"
        return fc
    fc.mode = sides[1].driver.mode
    fc.changed_old, fc.changed_new = sorted(ch_old), sorted(ch_new)
    # computing functions the edit swapped for one another: the runs record
    # their arguments, and "same" needs one on which the two differ
    swaps = swapped_calls(old, new, ch_old, ch_new)
    # optional parameters only one version's changed lines read: "same"
    # needs an input that gave one a value (the agreeing inputs' variants
    # give it None)
    one_side = _one_side_params(old, new, ch_old, ch_new)
    if swaps:
        for side in sides:
            side.spec["watch"] = sorted({q for p in swaps for q in p})
    edited_strings = _strings_on(old, ch_old) | _strings_on(new, ch_new)
    raise_forms = _raise_forms(old, new, ch_old, ch_new)
    edit_raises = (_raise_lines(old, ch_old), _raise_lines(new, ch_new))
    own_tokens = tuple(_edit_tokens(old, new, ch_old, ch_new))
    deliberate = (_deliberate_lines(old), _deliberate_lines(new))
    asked = _asked_attributes(old) | _asked_attributes(new)
    one_sided = _one_sided_reads(old, new)
    marks = _edit_marks(old, new, ch_old, ch_new)
    # names a version reads that its module never binds: a NameError there
    unbound = (never_bound(old), never_bound(new))
    unbound_note = ""
    old_only, new_only = _swapped_sides(old, new)
    swapped = old_only | new_only
    # (the global names among them: a made-up value of one shows as itself)
    swapped_globals = _swapped_globals(old, new, swapped)
    # (and what their made-up values are asked for: ``HyperlinkParams.parse``)
    swapped_reach = frozenset(swapped_globals) | _asked_of(old, new, swapped_globals, swapped)
    swap_note = None    # runs alike only through stand-ins of a swapped dependency
    twins = None        # dependencies renamed, their code the same (once asked for)
    ran_old: set = set()
    ran_new: set = set()
    concrete_agreeing = 0       # ... on inputs without injected values
    source = _InputSource(old, new, ch_old, ch_new, test_inputs or [], opts)
    source.swaps = swaps
    results: list = []          # (input, ro, rn, same?)
    reached = False
    n_inputs = 0
    last_err = None
    unstable_note = None        # an input whose difference a rerun did not repeat
    setup_failures = 0
    message_note = None
    best = None         # (input, old run, new run, fields, through injected values?)
    best_score = -1
    point_note = None   # a value after the changed lines that differs (points="gate")
    weak_left = 4
    agree: list = []            # (input, old run, new run) that ran changed lines in both, alike
    wobbly: list = []           # those that ran them in both, alike but for what a rerun changed
    short: list = []            # ... alike on concrete values, short of the changed lines
    early: list = []            # ... alike, a method's, raising short of the changed lines
    fillable = _fillable(old) and _fillable(new)
    variants = None             # the variants of agreeing inputs, once asked for
    sourced = False             # no more inputs from the source: on to the variants
    draining = False            # only the aimed inputs left from the source
    while spent() < opts.budget:
        if variants is None:
            inp = source.next() if n_inputs < opts.max_inputs and not sourced else None
        else:
            inp = variants.pop(0) if variants else None
        if inp is None:
            if variants is None and (best is None or best_score == 0) and \
                    (agree or wobbly or (short or fillable and early) and not reached) and \
                    opts.variants:
                # no input told the versions apart (or only through injected
                # values): the agreeing inputs in other shapes (an iterator
                # for a list, a negative number, an aware datetime ...), the
                # shapes edits often treat anew; where none reached the
                # changed lines, those that ran to an end on concrete values
                # (a well-formed date with text appended reaches a parser's
                # "unknown components" error)
                # (a container's method that raised before them -- a key
                # not found -- on its object with entries, the key among them)
                # (and those alike but for values that differ from run to
                # run: a printed timing)
                variants = _variants(agree or wobbly or short or early[:2], opts.variants,
                                     defaults=_defaults(new),
                                     tokens=_edit_tokens(old, new, ch_old, ch_new),
                                     none=_edit_none(old, new, ch_old, ch_new),
                                     rounds=_edit_rounds(old, new, ch_old, ch_new),
                                     compared=_edit_comparisons(old, new, ch_old, ch_new),
                                     aimed_values=_aimed_values(results),
                                     own_class=_edit_own_class(old, new, ch_old, ch_new),
                                     fillable=fillable,
                                     peer_at=_peer_param(new),
                                     only_fill=not (agree or wobbly or short),
                                     orders=_edit_orders(old, new, ch_old, ch_new),
                                     bytes_too=handles_bytes(old) or handles_bytes(new),
                                     tail=not (agree or wobbly),
                                     duck=_edit_duck(old, new, ch_old, ch_new),
                                     given_params=one_side)
                continue
            break
        n_inputs += 1
        ro = sides[0].run(inp, opts)
        rn = sides[1].run(inp, opts)
        fc.runs += 2
        if fc.mode == "module" and (str(ro["outcome"]).startswith("setup:") or
                                    str(rn["outcome"]).startswith("setup:")):
            setup_failures += 1
            if setup_failures >= 2 or not inp.call:
                # the module does not load here: the function with its context alone
                try:
                    sides = make((None, None))
                except (ValueError, SyntaxError, IndexError):
                    pass
                else:
                    fc.mode = "extract"
                    ro = sides[0].run(inp, opts)
                    rn = sides[1].run(inp, opts)
                    fc.runs += 2
        source.feedback(inp, ro, rn)
        if (_inconclusive(ro) or _inconclusive(rn) or _both_unpredicted(ro, rn)) and \
                not _hang(ro, rn):
            last_err = ro if _inconclusive(ro) or _both_unpredicted(ro, rn) else rn
            results.append((inp, ro, rn, None))
            continue
        h_old = set(ro.get("lines", ro.get("reached", ()))) & ch_old
        h_new = set(rn.get("lines", rn.get("reached", ()))) & ch_new
        hit = bool(h_old or h_new or (not ch_old and not ch_new))
        # evidence for "same": the changed lines ran in both versions
        both = bool(h_old and h_new) or (not ch_old and not ch_new)
        if inp.call and inp.call.get("entry") and not hit:
            # a caller's test that does not lead to the changed lines says
            # nothing about this function (another edit may show in it)
            results.append((inp, ro, rn, None))
            continue
        ran_old |= h_old
        ran_new |= h_new
        if unbound[0] or unbound[1]:
            nb = [_never_bound_read(r, v, u, side.driver.offset)
                  for r, v, u, side in zip((ro, rn), (old, new), unbound, sides)]
            i = 0 if nb[0] is not None else 1
            other = (ro, rn)[1 - i]
            if (nb[0] is None) != (nb[1] is None) and \
                    not _reads_made_up(other, unbound[1 - i]) and \
                    not _prefix_binds(inp.prefix, unbound[1 - i]) and \
                    other.get("outcome") != "raised:NameError":
                # one version read, before any other made-up value in it, a
                # name its module never binds (``(str, unicode)``): its real
                # run raises a NameError there, the other's does not (where
                # neither a made-up value nor the input's prefix stood for
                # such a name of its own: ``basestring`` -> ``unicode``)
                name, line = nb[i]
                fail = {"outcome": "raised:NameError", "line": line,
                        "message": f"name '{name}' is not defined",
                        "input": (ro, rn)[i].get("input")}
                pair = (fail, rn) if i == 0 else (ro, fail)
                unbound_note = f" ({('old', 'new')[i]} reads '{name}' at line {line}, " \
                    "a name its module never binds and no builtin: a NameError of every " \
                    "run that gets there)"
                best, best_score = (inp, pair[0], pair[1], ["outcome"], False), 2
                reached = True
                results.append((inp, pair[0], pair[1], False))
                break
        diff = _differences(ro, rn, raise_forms, opts.points == "change")
        if diff and inp.call and inp.call.get("entry") and _apart_before_target(ro, rn):
            # a caller's run that went another way before the function ran
            # (another edit of the commit: a table of the module built of
            # a class the commit rewrote): nothing of it is the function's
            if hit:
                reached = True
            results.append((inp, ro, rn, None))
            continue
        if diff == ["outcome"] and _failed_on_one_sided_made_up(
                (ro, rn), (sides[0].driver.offset, sides[1].driver.offset), one_sided):
            # one version raised on the line where it was given a made-up
            # value for a name the other never reads (``pop(self._from_index)``
            # for ``pop(-1 if self.from_right else 0)``): the value, not the
            # code, made it fail
            last_err = ro if str(ro.get("outcome")).startswith("raised:") else rn
            results.append((inp, ro, rn, None))
            continue
        if diff == ["outcome"] and _artefact(ro, rn, inp, own_tokens, deliberate, asked) and \
                not _real_side(ro, rn, swapped, edit_raises) and not _unmade(ro, rn) and \
                not _closed_miss_at_edit(ro, rn, ch_old, ch_new) and \
                not _raised_by_both_edits(ro, rn, edit_raises):
            # one version fails on a made-up value lacking an operation the
            # other version does not use, or both fail on made-up values (in
            # different places): no evidence either way
            last_err = ro if _stand_in_failure(ro, inp.prefix) else rn
            results.append((inp, ro, rn, None))
            continue
        if diff:
            real = _rerun_reproduced(diff, sides, inp, opts, ro, rn, fc, _SHIFT)
            real = _rerun_addresses(real, sides, inp, opts, ro, rn, fc)
            if not real:
                # what differs differs between identical runs of a version
                # (a value from an address, the clock, a set's order): no
                # evidence either way, nor an input the versions agree on
                if unstable_note is None:
                    unstable_note = _summary_of(diff[0], ro, rn)
                if both:
                    wobbly.append((inp, ro, rn))
                if hit:
                    # the input reached the changed lines: an unsteady run
                    # is no reason to call them unreached
                    reached = True
                results.append((inp, ro, rn, None))
                continue
            if "message" in real and opts.compare_messages and not inp.call and \
                    not _edited_message(ro, rn, edited_strings) and \
                    not _raised_by_edit(ro, rn, edit_raises):
                # a message the edit did not write (``tuple index out of
                # range`` vs a bare ``raise IndexError``) on a made-up
                # input: where the input failed, not how the edit words it
                if message_note is None:
                    message_note = _summary_of("message", ro, rn)
                real.remove("message")
                if "raised" in real:
                    # (nor what the exception holds besides: its message
                    # again, the place the input failed)
                    real.remove("raised")
            if "message" in real and not opts.compare_messages:
                # the same exception type is "same"; the message is noted
                if message_note is None:
                    message_note = _summary_of("message", ro, rn)
                real.remove("message")
            if "cause" in real and not opts.compare_messages:
                # how the exception is chained is presentation too
                if message_note is None:
                    message_note = _summary_of("cause", ro, rn)
                real.remove("cause")
            if real and _swapped_made_up(real, ro, rn, swapped):
                # both return a made-up value, each for a name only that
                # version reads (``_HyperlinkState`` -> ``HyperlinkParams``
                # moved to another module): two stand-ins, not the code
                results.append((inp, ro, rn, None))
                continue
            if real and old_only and new_only and twins is None:
                twins = _renamed_twins(old, new, old_only, new_only,
                                       (old_tree.root if old_tree else None,
                                        new_tree.root if new_tree else None))
            if real and twins and _alike_renamed(ro, rn, twins, raise_forms):
                # alike once a dependency the edit renamed (its definition
                # the same code) and its new name read as one name in both
                # runs: alike, but no "same" (what a name shows may matter)
                if swap_note is None:
                    swap_note = "they differ only in the names of dependencies renamed " \
                        "without a change (" + ", ".join(
                            f"{o} -> {n}" for o, n in sorted(twins.items()))[:120] + ")"
                real = []
            if real and (_swapped_calls(real, ro, rn, old_only, new_only) or
                         _swapped_answers(ro, rn, old_only, new_only)):
                # one called a stand-in for a name the other does not read:
                # no evidence, and no "same" either (what the real
                # dependencies do may differ)
                if swap_note is None:
                    swap_note = "they differ in calls of made-up values for names one " \
                        "version alone uses (" + ", ".join(sorted(swapped))[:120] + ")"
                if hit:
                    # (the changed lines ran: undecided, not unreached)
                    reached = True
                results.append((inp, ro, rn, None))
                continue
            if real:
                # weak: the values that differ, or the input, hold injected
                # values (what a made-up object answers may be the cause)
                # (or the versions called the input's stand-in functions:
                # the difference may be what those did)
                # an aimed input's value is the code's own constant, a
                # doctest's call the documented one: made-up values for the
                # other parameters do not make their difference weak
                own = inp.note.startswith(("aimed: ", "aimed (observed): ", "doctest: "))
                # one version all real, on an edit of no dependency: not
                # weak whatever the other did with made-up values
                # (an aimed input on which both called the same stand-ins
                # alike, and what differs holds no made-up value: a dict
                # entry the input gave that one version removes)
                weak = _weak(real, ro, rn, swapped, own, edit_raises, swapped_reach,
                             marks)
                # what the function does outside (returns, raises, calls,
                # writes) over a value at the changed lines' exits, either
                # over a difference in injected values
                score = 0 if weak else 1 if real == ["points"] else 2
                if best is None or score > best_score:
                    best, best_score = (inp, ro, rn, real, weak), score
                results.append((inp, ro, rn, False))
                if score == 2:
                    break
                # the difference shows in injected values, or only inside:
                # look a little further for one that shows outside
                weak_left -= 1
                if weak_left <= 0:
                    if variants is None and not sourced and not draining and \
                            source.keep_aimed():
                        # the inputs aimed at the edit not run yet go first:
                        # their values are the code's own constants, and a
                        # difference on them is not a made-up value's
                        draining = True
                        continue
                    if variants is not None or not any(
                            _concrete(a[1]) and _concrete(a[2]) for a in agree):
                        break
                    # enough differences in made-up values: the concrete
                    # agreeing inputs in other shapes may show one that is not
                    sourced = True
                continue
        stand_ins = _swapped_stand_ins(ro, rn, swapped) if both and swap_note is None \
            and swapped else []
        if stand_ins:
            # alike only because made-up values stand for both names of a
            # swapped dependency (``x.issupserset`` -> ``x.issuperset`` on a
            # made-up ``x``): what the real ones do may differ -- no "same"
            swap_note = "they agree through made-up values for names one version " \
                "alone uses (" + ", ".join(sorted(stand_ins)) + ")"
        results.append((inp, ro, rn, True))
        if hit:
            reached = True
        elif _concrete(ro) and _concrete(rn) and ro.get("outcome") == "returned":
            short.append((inp, ro, rn))
        elif fillable and rn.get("self") and str(ro.get("outcome")).startswith("raised"):
            early.append((inp, ro, rn))
        if both:
            fc.agreeing += 1
            agree.append((inp, ro, rn))
            if _concrete(ro) and _concrete(rn):
                concrete_agreeing += 1
                if opts.points == "gate" and point_note is None and \
                        _point_difference(ro, rn) is not None:
                    # everything the function does agrees, a value where the
                    # changed lines are left does not: no "same" (if a run
                    # again gives the same values)
                    ro2, rn2 = sides[0].run(inp, opts), sides[1].run(inp, opts)
                    fc.runs += 2
                    if ro2.get("points") == ro.get("points") and \
                            rn2.get("points") == rn.get("points"):
                        point_note = _summary_of("points", ro, rn)
    if best is None and agree and _decorators(old) != _decorators(new):
        # the runs called the function itself (funcrun unwraps it); the
        # decorators differ (``@deprecated(replace=...)``): the agreeing
        # inputs again, through each version's decorated function
        for inp, _, _ in _concrete_first(agree)[:4]:
            if spent() >= opts.budget:
                break
            ro, rn = sides[0].run(inp, opts, decorated=True), \
                sides[1].run(inp, opts, decorated=True)
            fc.runs += 2
            if not ro.get("decorated") and old.node.decorator_list or \
                    not rn.get("decorated") and new.node.decorator_list:
                break           # no wrapper to call in a version that has decorators
            real = [k for k in _differences(ro, rn, raise_forms) if k != "points"]
            if not real:
                continue
            # judged as in the loop above: what differs between identical
            # runs of either version is no evidence, nor a message the edit
            # did not write on a made-up input (or any, where messages are
            # not compared)
            ro2, rn2 = sides[0].run(inp, opts, decorated=True), \
                sides[1].run(inp, opts, decorated=True)
            fc.runs += 2
            real = _reproduced(real, ro, rn, ro2, rn2)
            if "message" in real and (not opts.compare_messages or not inp.call and
                                      not _edited_message(ro, rn, edited_strings) and
                                      not _raised_by_edit(ro, rn, edit_raises)):
                real.remove("message")
            if real:
                inp = Input(inp.prefix, inp.call, inp.seed,
                            f"{inp.note} (through the decorators)"[:200], inp.plan,
                            inp.given, inp.reshape)
                best, best_score = (inp, ro, rn, real, False), 2
                break
    fc.inputs = n_inputs
    fc.seconds = round(time.monotonic() - t0, 3)
    renamed = _swapped_difference(best[3], best[1], best[2], old_only, new_only) \
        if best is not None and best[4] and swapped else []
    if best is not None and best[4] and swapped_globals and not renamed and \
            _apart_only_by_swapped(best[3], best[1], best[2], swapped_reach):
        # (the one version's dependency made up where the other's is real:
        # ``text_type(v)`` -> ``str(v)``, the compat module not there)
        renamed = sorted(swapped_globals)
    if best is not None and best[4] and (concrete_agreeing or renamed):
        # the only differences show in injected values (what a made-up
        # object answers), while inputs of concrete values that ran the
        # changed lines in both versions agree: no evidence either way;
        # nor where the values that differ are made up for names one
        # version alone uses (a helper imported under a new name: the two
        # names get made-up values of their own)
        inp, ro, rn, real, weak = best
        fc.verdict = UNDECIDED
        fc.reached = True
        fc.lines_old, fc.lines_new = sorted(ran_old), sorted(ran_new)
        fc.detail = f"{fc.agreeing} inputs alike; differs only through injected values" + \
            (f" for names one version alone uses ({', '.join(renamed)})" if renamed else "") + \
            ": " + _summary_of(real[0], ro, rn) + sig_note
        fc.input = inp.show()
        fc.old, fc.new = _describe(ro), _describe(rn)
        return fc
    if best is not None:
        inp, ro, rn, real, weak = best
        fc.lines_old, fc.lines_new = sorted(ran_old), sorted(ran_new)
        fc.verdict = CHANGED
        fc.reached = True
        fc.evidence = "injected" if weak else "concrete"
        fc.detail = _summary_of(real[0], ro, rn) + unbound_note + sig_note
        fc.input = inp.show()
        fc.input["arguments"] = rn.get("input") or ro.get("input")
        fc.old, fc.new = _describe(ro), _describe(rn)
        pd = _point_difference(ro, rn) if real == ["points"] else None
        if pd is not None:
            # side by side: the value where each version left the changed lines
            i, k, u, w = pd
            fc.old["after_changed_lines"] = {"exit": i + 1, "name": k, "value": u}
            fc.new["after_changed_lines"] = {"exit": i + 1, "name": k, "value": w}
        return fc
    conclusive = [r for r in results if r[3] is not None]
    fc.reached = reached
    fc.lines_old, fc.lines_new = sorted(ran_old), sorted(ran_new)
    if reached and conclusive:
        n = fc.agreeing
        gate = None
        uncovered = opts.cover_all and bool(ch_old - ran_old or ch_new - ran_new)
        if n >= opts.min_same and opts.min_killed > 0 and point_note is None and \
                not uncovered:
            trees = (old_tree, new_tree) if fc.mode == "module" else (None, None)
            fc.mutants = gate = _mutation_gate(old, new, ch_old, ch_new, agree,
                                               (o_args, o_kw, n_args, n_kw), trees, opts,
                                               (cattrs, construct))
            fc.runs += gate["runs"]
        if n >= opts.min_same and point_note is not None:
            fc.verdict = UNDECIDED
            fc.detail = f"{n} input{'s' if n != 1 else ''} ran the changed lines in both " \
                f"versions, alike, but they differ in {point_note} (what the " \
                "function returns, raises, prints, calls and writes agrees)" + sig_note
        elif swap_note is not None:
            fc.verdict = UNDECIDED
            fc.detail = f"{n} input{'s' if n != 1 else ''} ran the changed lines in both " \
                f"versions, alike, but {swap_note}" + sig_note
        elif _decorators(old) != _decorators(new):
            # the runs call the function itself (funcrun unwraps it): what
            # an edited decorator does (``@deprecated(replace=...)``'s
            # warning) no run shows
            fc.verdict = UNDECIDED
            fc.detail = f"{n} input{'s' if n != 1 else ''} ran the changed lines in both " \
                "versions, alike, but the decorators differ and the runs call the " \
                "function without them" + sig_note
        elif n >= opts.min_same and uncovered:
            fc.verdict = UNDECIDED
            miss = [f"{w} line{'s' if len(m) > 1 else ''} {', '.join(map(str, sorted(m)))}"
                    for w, m in (("old", ch_old - ran_old), ("new", ch_new - ran_new)) if m]
            fc.detail = f"{n} input{'s' if n != 1 else ''} ran changed lines in both " \
                f"versions, alike, but no input ran the changed {' and '.join(miss)} " \
                "(\"same\" needs every changed line run)" + sig_note
        elif n >= opts.min_same and (gate is None or gate["passed"]) and \
                (callee_note := _swaps_never_apart(swaps, agree) or
                 _params_never_given(one_side, agree) or
                 _absent_reads_note(old, new, ch_old, ch_new) or
                 _precision_note(old, new, ch_old, ch_new) or
                 _text_ends_note(old, new, ch_old, ch_new) or
                 _strip_guard_note(old, new, ch_old, ch_new) or
                 _collapse_note(old, new, ch_old, ch_new)) is not None:
            fc.verdict = UNDECIDED
            fc.detail = f"{n} input{'s' if n != 1 else ''} ran the changed lines in both " \
                f"versions, alike, but {callee_note}" + sig_note
        elif n >= opts.min_same and (gate is None or gate["passed"]) and \
                (unsteady := _unsteady_agreement(sides, agree, opts, fc)) is not None:
            fc.verdict = UNDECIDED
            fc.detail = f"{n} input{'s' if n != 1 else ''} ran the changed lines in both " \
                "versions, alike, but a run again of a version gave other values: " \
                f"{unsteady}" + sig_note
        elif n >= opts.min_same and (gate is None or gate["passed"]):
            fc.verdict = SAME
            fc.detail = f"{n} input{'s' if n != 1 else ''} ran the changed lines in both " \
                f"versions, alike" + sig_note
            if gate and gate["tried"]:
                fc.detail += f"; they tell {gate['killed']} of {gate['tried']} mutants of " \
                    "the changed lines apart"
        elif n >= opts.min_same:
            fc.verdict = UNDECIDED
            fc.detail = f"{n} input{'s' if n != 1 else ''} ran the changed lines in both " \
                f"versions, alike, but they tell only {gate['killed']} of {gate['tried']} " \
                f"mutants of the changed lines apart (\"same\" needs " \
                f"{opts.min_killed:.0%}): the inputs may not show what the edit changes" + \
                sig_note
        elif not n and wobbly:
            fc.verdict = UNDECIDED
            fc.detail = f"the versions differ on {len(wobbly)} input" \
                f"{'s' if len(wobbly) != 1 else ''} that ran the changed lines in both, " \
                f"but a run again of each gave other values: {unstable_note}" + sig_note
        else:
            fc.verdict = UNDECIDED
            fc.detail = (f"the changed lines ran in both versions on only {n} input"
                         f"{'s' if n != 1 else ''}" if n else
                         "the changed lines ran in one version only") + \
                f" (\"same\" needs {opts.min_same})" + sig_note
            if wobbly:
                fc.detail += f"; on {len(wobbly)} more the versions differ, but a run " \
                    f"again of each gave other values: {unstable_note}"
        if message_note:
            fc.detail += f"; same exception type, but {message_note}"
        fc.old, fc.new = _describe(conclusive[0][1]), _describe(conclusive[0][2])
    elif conclusive:
        fc.verdict = UNREACHED
        r = conclusive[0][1]
        why = f" (e.g. {_oc(r)} at line {r.get('line')})" if \
            str(r.get("outcome", "")).startswith("raised:") else ""
        fc.detail = f"no input reached the changed lines{why}"
    else:
        fc.verdict = EXCEPTION
        if last_err is not None:
            fc.detail = f"every input ended in {last_err.get('outcome')}: " \
                f"{_short(last_err.get('message', ''), 120)}"
        elif unstable_note is not None:
            fc.verdict = UNDECIDED
            fc.detail = "the versions differ on every input that ran, but a run again " \
                f"of each gave other values: {unstable_note}"
        else:
            fc.detail = "no input could be run"
    return fc


# ------------------------------------------------------------------ the "same" gate

_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"-?\d+\.\d*(e[-+]?\d+)?|-?\d+e[-+]?\d+|-?inf")


def _shapes_of(snap: str) -> set:
    """The reshapes (funcrun.RESHAPES) that apply to an argument, from its
    snapshot as a run recorded it; ``text``: a string or bytes (the edit's
    own tokens apply)."""
    s = str(snap)
    out = set()
    if s.startswith(("['list'", "['tuple'")):
        out |= {"iter", "getitem"}
        if s not in ("['list']", "['tuple']"):
            out.add("empty")
    elif s in ("True", "False"):
        out.add("flip")
    elif _INT.fullmatch(s):
        out |= {"neg", "big", "index"}
    elif _FLOAT.fullmatch(s):
        out |= {"neg", "big", "nan"}
    elif s.startswith("['datetime.datetime'") and "tzinfo" not in s:
        out.add("tz")
    elif s.startswith("['datetime.timedelta'"):
        out.add("neg")
    elif s.startswith("['dict'"):
        out |= {"mapping", "empty"}
    elif s[:1] in "'\"" and len(s) >= 2 or s[:2] in ("b'", 'b"') and len(s) >= 3:
        body = s[1:] if s[0] == "b" else s
        out.add("text")
        if s[0] != "b":
            out.add("bytes")
        if len(body) > 2:
            out.add("empty")
        if body != body.upper():
            out.add("upper")
        if body != body.lower():
            out.add("lower")
    return out


def _defaults(v: Version) -> dict:
    """The optional parameters of a version whose default is a literal
    number, string or bool, with the default as a snapshot would show it."""
    import ast
    a = v.node.args
    out = {}
    for p, d in defaulted_params(v.node):
        if p in a.posonlyargs:
            continue
        if isinstance(d, ast.UnaryOp) and isinstance(d.op, ast.USub) and \
                isinstance(d.operand, ast.Constant):
            d = ast.Constant(-d.operand.value) if isinstance(d.operand.value, (int, float)) \
                else d
        if isinstance(d, ast.Constant) and type(d.value) in (int, float, str, bool):
            out[p.arg] = repr(d.value) if isinstance(d.value, str) else str(d.value)
    return out


def _edit_tokens(old: Version, new: Version, ch_old: set, ch_new: set) -> list:
    """Short strings (1 to 12 characters) on the changed lines of one
    version that the other version's function does not have: the tokens an
    edit tests for (``word.endswith('x')``), bytes constants' too, and the
    characters one such constant has beyond the other's (``b'-+Zz'`` for
    ``b'-+Z'``: ``'z'``), at most four."""
    all_old, all_new = set(_string_constants(old, bytes_too=True)), \
        set(_string_constants(new, bytes_too=True))
    mine_new = [t for t in _string_constants(new, ch_new, bytes_too=True) if t not in all_old]
    mine_old = [t for t in _string_constants(old, ch_old, bytes_too=True) if t not in all_new]
    toks = [t for t in mine_new + mine_old if 0 < len(t) <= 12]
    for a in mine_new:
        for b in mine_old:
            if 0 < len(a) <= 12 and 0 < len(b) <= 12:
                extra = set(a) ^ set(b)
                if 0 < len(extra) <= 2 and (set(a) <= set(b) or set(b) <= set(a)):
                    toks += [c for c in sorted(extra) if c not in toks]
    out: list = []
    for t in toks:
        if t not in out:
            out.append(t)
    return out[:4]


def _on_lines(v: Version, lines: set):
    """The AST nodes of a version's statements on ``lines``."""
    import ast
    for st in ast.walk(v.node):
        if isinstance(st, ast.stmt) and st is not v.node and st.lineno in lines:
            yield from ast.walk(st)


def _edit_none(old: Version, new: Version, ch_old: set, ch_new: set) -> bool:
    """Do the changed lines of one version test for None (``x is None``,
    ``x == None``) where the other version's changed lines do not?"""
    import ast

    def tests(v, lines):
        return any(isinstance(n, ast.Compare) and any(
            isinstance(c, ast.Constant) and c.value is None for c in [n.left] + n.comparators)
            for n in _on_lines(v, lines))
    return tests(old, ch_old) != tests(new, ch_new)


#: the calls that say in what kind of number arithmetic is done
_NUMBER_KINDS = frozenset(("float", "Decimal", "Fraction"))
#: functions of floats whose results round (``math.log10``), by name
_FLOAT_MATH = frozenset(("log", "log10", "log2", "log1p", "sqrt", "exp", "expm1", "hypot",
                         "fsum", "cbrt", "exp2"))
#: the methods that strip a text's ends of whitespace
_STRIPS = frozenset(("strip", "lstrip", "rstrip"))
_ARITHMETIC = frozenset(("Mult", "Div", "Add", "Sub", "Pow", "FloorDiv"))


def _precision_note(old: Version, new: Version, ch_old: set, ch_new: set) -> Optional[str]:
    """Why inputs alike do not show an edit of how the changed lines round:
    arithmetic there, and the calls that make its numbers floats, decimals
    or fractions differ (``float(s) * 1e6`` -> ``Decimal(s) * Decimal(...)``),
    or only the grouping of the same operands and operators differs
    (``base * n / unit`` -> ``base * (n / unit)``).  Such versions part on
    few of the numbers (where a float's rounding shows), and a handful of
    inputs alike says little of the rest: no "same".  None for other edits."""
    import ast

    def kind(n):
        f = n.func
        return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) \
            else None

    def canon(n) -> str:
        # an arithmetic expression with the operands of + and * in a fixed
        # order: ``x * 2`` and ``2 * x`` are one (a float's product does not
        # depend on the order), ``(a * b) / c`` and ``a * (b / c)`` are not
        if not isinstance(n, ast.BinOp):
            return ast.dump(n)
        a, b = canon(n.left), canon(n.right)
        if isinstance(n.op, (ast.Add, ast.Mult)) and b < a:
            a, b = b, a
        return f"{type(n.op).__name__}({a}, {b})"

    def parts(v, lines):
        nodes = list(_on_lines(v, lines))
        return (sorted(k for n in nodes if isinstance(n, ast.Call) and
                       (k := kind(n)) in _NUMBER_KINDS),
                sorted(type(n.op).__name__ for n in nodes if isinstance(n, ast.BinOp)),
                sorted(ast.dump(n) for n in nodes if isinstance(n, (ast.Name, ast.Constant))),
                sorted(canon(n) for n in nodes if isinstance(n, ast.BinOp)))
    def float_math(v, lines):
        return sorted(k for n in _on_lines(v, lines) if isinstance(n, ast.Call) and
                      (k := kind(n)) in _FLOAT_MATH)
    try:
        po, pn = parts(old, ch_old), parts(new, ch_new)
        fo, fn = float_math(old, ch_old), float_math(new, ch_new)
    except RecursionError:          # an expression nested past the stack: no note
        return None
    if fo != fn:
        # ``floor(log10(abs(n))) + 1`` -> ``len(str(abs(n)))``: the float
        # function parts from the exact count on numbers of 15 digits and more
        return "the edit changes the float functions its changed lines compute with (" + \
            (", ".join(f"{k}()" for k in fo) or "none") + " -> " + \
            (", ".join(f"{k}()" for k in fn) or "none") + "): the versions may part on " \
            "numbers where a float's rounding shows, which inputs alike on a few do not " \
            "rule out"
    arith = set(po[1]) & set(pn[1]) & _ARITHMETIC
    if not arith:
        return None
    if po[0] != pn[0]:
        return "the edit changes the kind of number its arithmetic is done in (" + \
            (", ".join(f"{k}()" for k in po[0]) or "no call") + " -> " + \
            (", ".join(f"{k}()" for k in pn[0]) or "no call") + \
            "): the versions may part on numbers where rounding shows, which inputs " \
            "alike on a few do not rule out"
    if po[1:3] == pn[1:3] and po[3] != pn[3] and arith & {"Mult", "Div"}:
        return "the edit only regroups the same arithmetic: the versions may part on " \
            "numbers where a float's rounding shows, which inputs alike on a few do not " \
            "rule out"
    return None


def _text_ends_note(old: Version, new: Version, ch_old: set, ch_new: set) -> Optional[str]:
    """Why inputs alike do not show an edit of which ends of a text the
    changed lines strip (``private.lstrip()`` -> ``private.strip()``): the
    versions part only on texts with whitespace at that end, which inputs
    aimed at the edit's other conditions seldom have.  None where the
    changed lines of both versions make the same strip calls (with the
    same arguments)."""
    import ast

    def strips(v, lines) -> list:
        return sorted(f"{n.func.attr}({', '.join(ast.unparse(a) for a in n.args)})"
                      for n in _on_lines(v, lines)
                      if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                      n.func.attr in _STRIPS)
    so, sn = strips(old, ch_old), strips(new, ch_new)
    if so == sn:
        return None
    return "the edit changes which ends of a text its changed lines strip (" + \
        (", ".join(so) or "none") + " -> " + (", ".join(sn) or "none") + \
        "): the versions part only on texts with whitespace there, which inputs alike " \
        "on a few do not rule out"


def _strip_guard_note(old: Version, new: Version, ch_old: set, ch_new: set) -> Optional[str]:
    """Why inputs alike do not show an edit of when a text is stripped: a
    test on the changed lines (an ``if``, a conditional expression) whose
    branches strip (``if strip and data and item:`` -> ``if strip and
    data:`` over ``data = data.strip()``).  The versions part only on texts
    with whitespace at an end where the two tests differ, which inputs
    aimed at the edit's other conditions seldom have.  None where no test
    of the changed lines guards a strip."""
    import ast

    def guarded(v, lines) -> list:
        out = []
        for n in ast.walk(v.node):
            if isinstance(n, (ast.If, ast.IfExp)) and n.test.lineno in lines:
                branches = (n.body + n.orelse) if isinstance(n, ast.If) else [n.body, n.orelse]
                calls = sorted({f"{c.func.attr}()" for b in branches for c in ast.walk(b)
                                if isinstance(c, ast.Call) and
                                isinstance(c.func, ast.Attribute) and c.func.attr in _STRIPS})
                test = n.test
                if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and \
                        n.orelse:
                    test = test.operand      # (its branches swapped: the same test)
                if calls:
                    out.append(f"{ast.unparse(test)[:60]}: {', '.join(calls)}")
        return out
    go, gn = guarded(old, ch_old), guarded(new, ch_new)
    if not go and not gn or go == gn:
        return None
    return "the edit changes when its text is stripped (" + ("; ".join(go) or "none") + \
        " -> " + ("; ".join(gn) or "none") + "): the versions part only on texts with " \
        "whitespace at an end where the tests differ, which inputs alike on a few do not " \
        "rule out"


def _own_callee(v: Version, f):
    """The ``def`` of the module (or of the method's class, for
    ``self.name``) that the call of ``f`` runs; None for another."""
    import ast
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
            f.value.id in ("self", "cls") and getattr(v, "cls", None) is not None:
        body, name = v.cls.body, f.attr
    elif isinstance(f, ast.Name) and getattr(v, "module", None) is not None:
        body, name = v.module.body, f.id
    else:
        return None
    return next((st for st in body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and st.name == name and st is not v.node), None)


def _collapsing(v: Version, lines: set) -> list:
    """What the changed lines, and the functions of the module they call,
    build that holds each item once (the kinds, sorted): ``keyed`` for a dict built
    from items (a comprehension, ``dict()``, ``fromkeys``, keys set to None
    or True one by one), ``set`` for a set (a comprehension, a literal,
    ``set()``, ``frozenset()``)."""
    import ast
    nodes = list(_on_lines(v, lines))
    for n in list(nodes):
        if isinstance(n, ast.Call) and (f := _own_callee(v, n.func)) is not None:
            nodes.extend(ast.walk(f))
    out = []
    for n in nodes:
        if isinstance(n, ast.DictComp) or isinstance(n, ast.Call) and (
                isinstance(n.func, ast.Name) and n.func.id in ("dict", "OrderedDict") and
                n.args or isinstance(n.func, ast.Attribute) and n.func.attr == "fromkeys"):
            out.append("keyed")
        elif isinstance(n, ast.Dict) and n.values and all(
                isinstance(x, ast.Constant) and x.value in (None, True) for x in n.values):
            out.append("keyed")
        elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets) \
                and isinstance(n.value, ast.Constant) and n.value.value in (None, True):
            out.append("keyed")
        elif isinstance(n, (ast.SetComp, ast.Set)) or isinstance(n, ast.Call) and \
                isinstance(n.func, ast.Name) and n.func.id in ("set", "frozenset") and n.args:
            out.append("set")
    return sorted(set(out))


def _collapse_note(old: Version, new: Version, ch_old: set, ch_new: set) -> Optional[str]:
    """Why inputs alike do not show an edit of whether repeated items are
    kept (``[cl] + [...]`` -> a dict of ``seen`` keys; causes gathered in a
    list -> ``{id(i): i ...}.values()``): the versions part only where an
    item comes twice, which inputs aimed at the edit's conditions seldom
    hold.  None where the changed lines of both versions (and what of the
    module they call) build such dicts and sets alike."""
    co, cn = _collapsing(old, ch_old), _collapsing(new, ch_new)
    if co == cn:
        return None
    say = {"keyed": "a dict keyed by items", "set": "a set"}

    def told(kinds):
        return ", ".join(say[k] for k in kinds) or "none"
    return f"the edit changes what holds each item once ({told(co)} -> {told(cn)}): " \
        "the versions part only where an item comes twice, which inputs alike on a " \
        "few do not rule out"


def _one_side_params(old: Version, new: Version, ch_old: set, ch_new: set) -> list:
    """The optional parameters, in both versions, whose default is not the
    literal None, that the changed lines of one version read and the other
    version's changed lines do not (``return default_timezone`` ->
    ``return UTC``): an input that leaves such a parameter at its default
    makes the two alike wherever the default is what the other version
    reads instead, so a value of its own for it is what tells them apart."""
    import ast

    def optional(v) -> dict:
        return {q.arg: d for q, d in defaulted_params(v.node)
                if q not in v.node.args.posonlyargs and
                not (isinstance(d, ast.Constant) and d.value is None)}

    def read(v, lines) -> set:
        return {n.id for n in _on_lines(v, lines)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    both = optional(old).keys() & optional(new).keys()
    ro, rn = read(old, ch_old), read(new, ch_new)
    return sorted(q for q in both if (q in ro) != (q in rn))


def _params_never_given(params: list, agree: list) -> Optional[str]:
    """Why inputs alike do not show an edit that reads an optional
    parameter on one side only (:func:`_one_side_params`): no agreeing
    input gave it a value, each left it at its default; None where one
    gave it one."""
    for name in params:
        if not any(name in (r.get("input") or {}) for _inp, ro, rn in agree
                   for r in (ro, rn)):
            return f"the changed lines of one version alone read {name}, and every input " \
                "left it at its default: the inputs may not show what the edit changes"
    return None


def _absent_module_reads(v: Version, lines: set) -> list:
    """``collections.Mapping`` on ``lines`` of ``v``: an attribute of a
    standard-library module the module imports whole (``import
    collections``) that this Python's module does not have -- a name a
    later Python removed.  A run reads a made-up value there where a real
    one raises AttributeError.  (Only modules this process has imported
    already: nothing is imported to find out.)"""
    import sys
    import types
    bound: dict = {}
    for n in ast.walk(v.module):
        if isinstance(n, ast.Import):
            for a in n.names:
                top = a.name.split(".")[0]
                if top in sys.stdlib_module_names:
                    bound[a.asname or top] = a.name if a.asname else top
    if not bound:
        return []
    out: list = []
    for n in _on_lines(v, lines):
        if not isinstance(n, ast.Attribute) or not isinstance(n.ctx, ast.Load):
            continue
        path, e = [], n
        while isinstance(e, ast.Attribute):
            path.insert(0, e.attr)
            e = e.value
        if not isinstance(e, ast.Name) or e.id not in bound:
            continue
        obj = sys.modules.get(bound[e.id])
        shown = e.id
        for a in path:
            if not isinstance(obj, types.ModuleType):
                break
            if not hasattr(obj, a):
                where = f"{shown}.{a} (line {n.lineno})"
                if where not in out:
                    out.append(where)
                break
            obj, shown = getattr(obj, a), f"{shown}.{a}"
    return out


def _absent_reads_note(old: Version, new: Version, ch_old: set, ch_new: set) -> Optional[str]:
    """Why inputs alike do not show an edit whose changed lines in one
    version read a name this Python's standard library lacks
    (:func:`_absent_module_reads`) that the other version does not: the
    runs stood a made-up value in for it, a real run raises there.  None
    where the two versions read the same such names (or none)."""
    a, b = _absent_module_reads(old, ch_old), _absent_module_reads(new, ch_new)
    strip = lambda xs: {x.partition(" (")[0] for x in xs}     # noqa: E731
    if strip(a) == strip(b):
        return None
    one = [f"old {x}" for x in a if x.partition(" (")[0] not in strip(b)] + \
        [f"new {x}" for x in b if x.partition(" (")[0] not in strip(a)]
    it = "it" if len(one) == 1 else "them"
    return "the changed lines read " + ", ".join(one[:3]) + ", which this Python does " \
        f"not have: the runs stood made-up values in for {it} where a real run raises " \
        "AttributeError"


def _edit_duck(old: Version, new: Version, ch_old: set, ch_new: set) -> bool:
    """Does the edit change how its lines tell what an object is, with a
    ``hasattr`` among the tests (``isinstance(fp, SupportsRead)`` ->
    ``... or hasattr(fp, "read")``)?  Then a value behind a wrapper that
    hands attributes on (the ``proxy`` reshape) may tell the versions apart:
    ``hasattr`` sees through it, ``isinstance`` does not."""
    import ast

    def tests(v, lines):
        return sorted(ast.dump(n) for n in _on_lines(v, lines)
                      if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
                      n.func.id in ("hasattr", "isinstance", "issubclass", "callable"))
    a, b = tests(old, ch_old), tests(new, ch_new)
    return a != b and any("id='hasattr'" in t for t in a + b)


def _edit_own_class(old: Version, new: Version, ch_old: set, ch_new: set) -> bool:
    """Do the changed lines of either version ask for the object's own class
    (``type(self)``, ``self.__class__``, a class method's ``cls``)?  Then an
    instance of a subclass, or a subclass, may tell the versions apart
    (``Version(...)`` -> ``type(self)(...)``)."""
    import ast

    def asks(v, lines):
        if v.kind == "classmethod" and v.node.args.args:
            # a class method: its class itself, wherever a changed line
            # uses it (``cls._x = ...`` writes to a subclass its own)
            first = v.node.args.args[0].arg
            return any(isinstance(n, ast.Name) and n.id == first for n in _on_lines(v, lines))
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
                   n.func.id == "type" and len(n.args) == 1 and
                   isinstance(n.args[0], ast.Name) and n.args[0].id == "self" or
                   isinstance(n, ast.Attribute) and n.attr == "__class__" and
                   isinstance(n.value, ast.Name) and n.value.id == "self"
                   for n in _on_lines(v, lines))
    return asks(old, ch_old) or asks(new, ch_new)


#: the methods that give a container an entry (``__setitem__`` first), and
#: the base classes that bring them
_FILLERS = ("__setitem__", "add", "append", "push", "put")
_FILLED_BASES = {"dict", "OrderedDict", "defaultdict", "list", "set", "MutableMapping",
                 "MutableSequence", "MutableSet", "UserDict", "UserList", "Counter", "deque"}


def _fillable(v: Version) -> bool:
    """Is a method's class a container its code gives entries to (it
    defines ``__setitem__``, ``add``, ``append``..., or derives from a
    mutable builtin or ABC)?  Then an object with entries reaches what an
    empty one does not (a cache's eviction, a lookup that finds its key)."""
    import ast
    if v.cls is None or v.node.name == "__init__":
        return False
    if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in _FILLERS
           for s in v.cls.body):
        return True
    return any((b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute)
                else None) in _FILLED_BASES for b in v.cls.bases)


def _parameter_names(v: Version) -> frozenset:
    """Every parameter name of the function (``self`` and ``cls`` too)."""
    a = v.node.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return frozenset(names)


#: the methods whose first argument is a peer of the object
_BINARY_DUNDERS = frozenset(f"__{n}__" for n in (
    "eq ne lt le gt ge or and xor sub ior iand ixor isub add iadd".split()))


def _peer_param(v: Version) -> Optional[int]:
    """The position (among the arguments after ``self``) of the parameter a
    method compares its object with or takes entries from: the first one of
    a binary operator's method, else one named ``other``; None where
    there is none (a static or class method has no object to copy)."""
    if v.cls is None or v.kind != "method":
        return None
    args = [a.arg for a in v.node.args.posonlyargs + v.node.args.args][1:]
    if v.node.name in _BINARY_DUNDERS and args:
        return 0
    return args.index("other") if "other" in args else None


def _edit_rounds(old: Version, new: Version, ch_old: set, ch_new: set) -> bool:
    """Do the versions' changed lines make a number whole differently
    (``int(x)`` -> ``round(x)``, a ``math.floor`` added)?  Then a number
    argument with a fraction is worth a try."""
    import ast
    from .diffinputs import WHOLE_CALLS, called_name

    def calls(v, lines):
        return sorted(called_name(n) for n in _on_lines(v, lines)
                      if isinstance(n, ast.Call) and called_name(n) in WHOLE_CALLS)
    return calls(old, ch_old) != calls(new, ch_new)


def _edit_comparisons(old: Version, new: Version, ch_old: set, ch_new: set) -> list:
    """The pairs of names the changed lines of either version compare by
    order or equality (``abs_bytes <= next_size``): inputs where one equals
    what the other held are the boundaries such an edit moves."""
    import ast
    pairs: list = []
    for v, lines in ((new, ch_new), (old, ch_old)):
        for n in _on_lines(v, lines):
            if not isinstance(n, ast.Compare):
                continue
            left = n.left
            for op, right in zip(n.ops, n.comparators):
                if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)) and \
                        isinstance(left, ast.Name) and isinstance(right, ast.Name) and \
                        (left.id, right.id) not in pairs:
                    pairs.append((left.id, right.id))
                left = right
    return pairs


def _edit_orders(old: Version, new: Version, ch_old: set, ch_new: set) -> bool:
    """Does the edit change how its lines compare (``==`` -> ``>=``, ``<``
    -> ``<=``)?  Such an edit may keep every int's answer and part on a
    whole number that is no int (the ``index`` reshape)."""
    import ast

    def ops(v, lines):
        return sorted(type(op).__name__ for n in _on_lines(v, lines)
                      if isinstance(n, ast.Compare) for op in n.ops)
    return ops(old, ch_old) != ops(new, ch_new)


def _number(text):
    """The int or float a snapshot shows, else None."""
    import ast
    x = text
    for _ in range(2):      # a point's value is the repr of a snapshot's text
        if not isinstance(x, str):
            break
        try:
            x = ast.literal_eval(x)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return x if type(x) in (int, float) and x == x and abs(x) < 1e18 else None


def _boundaries(value, runs: tuple, compared: list, limit: int = 3) -> list:
    """Numbers to try for an argument whose value was ``value``: where a
    compared name held that value (or its magnitude) at a changed line's
    exit, what the name it was compared with held then (input-to-state
    correspondence), with the argument's sign; at most ``limit``."""
    out: list = []
    for r in runs:
        for point in (r.get("points") or [])[:64]:
            if not isinstance(point, dict):
                continue
            for a, b in compared:
                for x, y in ((a, b), (b, a)):
                    vx, vy = _number(point.get(x)), _number(point.get(y))
                    if vx is None or vy is None or vx == vy:
                        continue
                    if vx == value or vx == abs(value):
                        cand = -vy if value < 0 < vy else vy
                        if cand != value and cand not in out:
                            out.append(cand)
                            if len(out) >= limit:
                                return out
    return out


def _emptied_constructions(expr: str, limit: int = 2) -> list:
    """``Cls({'a': 1}, n=[2])``, a test call's object, with one literal
    container or string argument at a time empty (``Cls({}, n=[2])``)."""
    import ast
    try:
        call = ast.parse(expr, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    if not isinstance(call, ast.Call):
        return []
    out = []
    lines = expr.splitlines(keepends=True)
    for a in list(call.args) + [k.value for k in call.keywords]:
        try:
            v = ast.literal_eval(a)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if type(v) not in (list, tuple, dict, set, str, bytes) or not v:
            continue
        empty = {set: "set()", str: "''", bytes: "b''"}.get(type(v), repr(type(v)()))
        start = sum(len(x) for x in lines[:a.lineno - 1]) + a.col_offset
        end = sum(len(x) for x in lines[:a.end_lineno - 1]) + a.end_col_offset
        out.append(expr[:start] + empty + expr[end:])
        if len(out) >= limit:
            break
    return out


#: the types of a value an aimed input gave that another input may take
_LITERAL_TYPES = (type(None), bool, int, float, str, bytes)


def _aimed_values(results: list, per: int = 4) -> dict:
    """The literal values aimed inputs gave a parameter (``default = None``,
    from the edit's own conditions), as their runs recorded them: up to
    ``per`` per parameter, for the agreeing inputs' variants (an aimed value
    among a doctest's concrete arguments, where the aimed input itself had
    made-up ones)."""
    import ast
    out: dict = {}
    for inp, ro, rn, _ in results:
        if not inp.note.startswith("aimed: ") or inp.reshape:
            continue
        aimed_at = set(inp.given or ())
        for name, snap in (rn.get("input") or {}).items():
            if name == "(reshape)" or "Dummy" in str(snap) or \
                    aimed_at and name not in aimed_at:
                # (what the base prefix gave the other parameters is not
                # the code's own value)
                continue
            try:
                v = ast.literal_eval(str(snap))
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            seen = out.setdefault(name, [])
            if type(v) in _LITERAL_TYPES and str(snap) not in seen and len(seen) < per:
                seen.append(str(snap))
    return out


def _concrete_first(agree: list) -> list:
    """Agreeing runs ``(input, old run, new run)``, those whose inputs hold
    no injected value first."""
    return sorted(agree, key=lambda t: not (_concrete(t[1]) and _concrete(t[2])))


#: what ``tail`` variants append to a string that ran short of the changed
#: lines: a character few grammars accept
_TAIL = "!"


def _variants(agree: list, per: int, limit: int = 24, defaults: Optional[dict] = None,
              tokens: tuple = (), none: bool = False, rounds: bool = False,
              compared: list = (), aimed_values: Optional[dict] = None,
              own_class: bool = False, bytes_too: bool = True, tail: bool = False,
              fillable: bool = False, only_fill: bool = False,
              orders: bool = False, duck: bool = False,
              peer_at: Optional[int] = None, given_params: list = ()) -> list:
    """Inputs to try once no input told the versions apart: up to ``per``
    agreeing inputs (concrete ones first), one argument at a time in another
    shape.  First the shapes aimed at the edit -- the edit's own tokens
    (``tokens``) after or instead of a string argument, None for an argument
    when the edit tests for None (``none``), a fraction added to a whole
    number and the number as a float when the edit makes numbers whole
    differently (``rounds``), the values a name the changed lines compare
    (``compared``) was compared with, for a number argument that name held
    --, the object as an instance of a subclass when the edit asks for its
    class (``own_class``), then each argument of each in every shape it
    allows (a string as bytes only when ``bytes_too``); at most
    ``limit`` in all; then up to four literal values aimed inputs gave a
    parameter (``aimed_values``) on inputs whose arguments are concrete, and
    up to six on the aimed inputs that agreed, for their other parameters.
    ``tail``: the inputs ran short of the changed lines; a string argument
    gets a character appended first; ``fillable``: the method's class is a
    container, whose object is tried with entries (the input's own
    arguments among their keys); ``only_fill``: that variant alone (the
    inputs raised before the changed lines); ``orders``: the edit changes
    how its lines compare -- only then an int as an object with
    ``__index__`` alone (the ``index`` shape); ``duck``: the edit changes
    how it tells what an object is, with a ``hasattr`` among the tests --
    each argument that is no number, bool or None behind a wrapper that
    hands its attributes on (the ``proxy`` shape), among the aimed ones;
    ``peer_at``: the position of the argument a container's method compares
    the object with or takes entries from (``__eq__(self, other)``): with
    ``fillable``, that argument is also the object's entries as a plain
    mapping, and those with one value other (an equality that skips the
    values, an update that keeps the old ones); ``given_params``: optional
    parameters that the changed lines of one version alone read
    (:func:`_one_side_params`), given None where the input left them at
    their default, first of all."""
    from .funcrun import FILL_SELF, PAIR, RESHAPES, SUBCLASS_SELF
    aimed, other, pairs, crossed, flips = [], [], [], [], []
    paired = []         # an aimed input's value beside another parameter's
    seen = set()
    for inp, ro, rn in _concrete_first(agree):
        if len(seen) >= per:
            break
        if inp.reshape or inp.key() in seen:
            continue
        seen.add(inp.key())
        o_start = len(other)

        def add(to, what, how):
            to.append(Input(inp.prefix, inp.call, inp.seed,
                            f"variant ({what}) of {inp.note}"[:200], inp.plan, inp.given,
                            how))

        def reshaped(shapes, what, at):
            # every reshape the value allows (a flag's flip after all the
            # others, bytes only where the code deals with them)
            for how in RESHAPES:
                if how in shapes and (bytes_too or how != "bytes") and \
                        (orders or how != "index"):
                    add(flips if how == "flip" else other, f"{how} of {what}", f"{how}@{at}")
        # one argument at a time: a negative ``precision`` beside the value
        # the input had, not every number negated at once
        given = dict(rn.get("input") or {})
        snaps = [v for k, v in given.items() if k != "(reshape)"]
        if aimed_values and not inp.note.startswith("aimed: ") and \
                _concrete(ro) and _concrete(rn):
            names = [k for k in given if k != "(reshape)"]
            for name, vals in aimed_values.items():
                if name not in given and " through " in inp.note:
                    # a test's call through a caller: the caller's arguments
                    # are what a variant changes, it has none by that name
                    continue
                at = str(names.index(name)) if name in names else name
                for v in vals:
                    if name not in given or v != str(given[name]):
                        add(crossed, f"{_short(v, 30)} for {name}", f"lit:{v}@{at}")
        for name in given_params:
            if name not in given:
                add(aimed, f"None for {name}, left at its default", f"none@{name}")
        if own_class and rn.get("self"):
            add(aimed, "the object of a subclass", SUBCLASS_SELF)
        if fillable and rn.get("self"):
            add(aimed, "the object with entries", FILL_SELF)
            if peer_at is not None:
                add(aimed, f"the object with entries, argument {peer_at + 1} a copy of them",
                    f"{FILL_SELF}{PAIR}peer@{peer_at}")
                add(aimed, f"the object with entries, argument {peer_at + 1} "
                    "a copy of them with one value other",
                    f"{FILL_SELF}{PAIR}peerdiff@{peer_at}")
        if only_fill:
            continue
        if inp.call and isinstance(inp.call.get("self"), str):
            # the object a test's call runs on, built with an empty argument
            # (``MultiReplace({})`` for the doctest's ``MultiReplace({...})``):
            # the state edits to a method often treat anew
            for expr in _emptied_constructions(inp.call["self"]):
                aimed.append(Input(inp.prefix, dict(inp.call, self=expr), inp.seed,
                                   f"variant (built as {_short(expr, 40)}) of {inp.note}"[:200],
                                   inp.plan, inp.given))
        for i, snap in enumerate(snaps):
            shapes = _shapes_of(snap)
            if none and str(snap) != "None":
                add(aimed, f"None for argument {i + 1}", f"none@{i}")
            if duck and str(snap) != "None" and _number(snap) is None and \
                    str(snap) not in ("True", "False"):
                add(aimed, f"argument {i + 1} behind a proxy", f"proxy@{i}")
            if rounds and _INT.fullmatch(str(snap)):
                add(aimed, f"a fraction added to argument {i + 1}", f"frac@{i}")
                add(aimed, f"argument {i + 1} as a float", f"float@{i}")
            num = _number(snap) if compared else None
            if num is not None:
                for b in _boundaries(num, (ro, rn), compared):
                    add(aimed, f"{b!r} for argument {i + 1}", f"num:{b!r}@{i}")
            if "text" in shapes and tail:
                # inputs that ran to an end short of the changed lines: text
                # left over after what they parsed (a parser's "unknown
                # components" error is such a line)
                add(aimed, f"text after argument {i + 1}", f"suffix:{_TAIL}@{i}")
            if "text" in shapes:           # a string: the edit's own tokens
                for t in tokens:
                    add(aimed, f"{t!r} after argument {i + 1}", f"suffix:{t}@{i}")
                    add(aimed, f"{t!r} for argument {i + 1}", f"const:{t}@{i}")
            reshaped(shapes, f"argument {i + 1}", i)
        # an optional parameter the input leaves at its default: the default
        # in another shape (a negative ``precision``)
        for name, snap in (defaults or {}).items():
            if name in given:
                continue
            if none:
                add(aimed, f"None for {name}={snap}", f"none@{name}")
            reshaped(_shapes_of(snap), f"{name}={snap}", name)
        if len(seen) == 1:
            # two arguments in another shape at once, for the first input:
            # an iterator that a repeat count exhausts, a negative start on
            # an iterator -- what one reshape at a time never shows
            mine = [v.reshape for v in other[o_start:]] + \
                [f"iter@{i}" for i, snap in enumerate(snaps) if "text" in _shapes_of(snap)
                 and not str(snap).startswith("b")]
            for a_i, a in enumerate(mine):
                for b in mine[a_i + 1:]:
                    if a.rpartition("@")[2] != b.rpartition("@")[2] and \
                            ("iter@" in a) != ("iter@" in b):
                        add(pairs, f"{a} and {b}", a + PAIR + b)
    # the aimed ones of every input first, at most two thirds of the whole;
    # up to four pairs after the single ones
    aimed = aimed[:max(1, 2 * limit // 3)]
    # an iterator with a count first (a repeat, a start, a size)
    counted = re.compile(rf"(^|{re.escape(PAIR)})(big|neg)@")
    pairs = sorted(pairs, key=lambda v: not counted.search(v.reshape))[:4]
    # and up to four aimed values on concrete inputs, beyond the limit (they
    # are few, and displace none of the shapes above)
    # (flags the other way after every other shape: where there is room)
    # on the aimed inputs that agreed, the values aimed at the other
    # parameters (``y = True`` with ``x = 1.0``: conditions on two parameters
    # at once, as a helper's ``x in (0, 1) ... isinstance(y, bool)``): up to
    # six, each parameter's first value beside every aimed input first
    for inp, ro, rn in agree if aimed_values else ():
        mine = set(inp.given or ())
        if not (mine and inp.note.startswith("aimed: ") and not inp.reshape and
                _concrete(ro) and _concrete(rn)):
            continue
        given = dict(rn.get("input") or {})
        names = [k for k in given if k != "(reshape)"]
        for name, vals in aimed_values.items():
            if name in mine:
                continue
            at = str(names.index(name)) if name in names else name
            for rank, v in enumerate(vals):
                if name not in given or v != str(given[name]):
                    paired.append((rank, len(paired), Input(
                        inp.prefix, inp.call, inp.seed,
                        f"variant ({_short(v, 30)} for {name}) of {inp.note}"[:200],
                        inp.plan, inp.given, f"lit:{v}@{at}")))
    paired = [v for _, _, v in sorted(paired, key=lambda t: t[:2])][:6]
    return (aimed + other + flips)[:limit - len(pairs)] + pairs + crossed[:4] + paired


def _mutation_gate(old: Version, new: Version, ch_old: set, ch_new: set, agree: list,
                   params: tuple, trees: tuple, opts: Options, setup: tuple) -> dict:
    """Do the inputs on which the versions agreed notice small changes of
    the changed lines?  Mutants of each version's changed lines (the tokens
    the edit wrote first: lexecutor_c.apps.mutants) run on up to six of
    those inputs; a mutant is killed when a run of it differs from the
    version's own run.  Passed when at least ``opts.min_killed`` of the
    mutants are killed (no mutant at all: passed, nothing to ask).
    ``setup`` is ``(class_attrs, construct)`` as the versions' own sides
    were built with: a mutant runs as its version does."""
    from .mutants import mutants
    o_args, o_kw, n_args, n_kw = params
    spent = _Spent()
    # inputs of concrete values first, then the others, at most six (a
    # condition's probe, which asks whether an outcome occurred at all, on
    # up to twelve)
    picked = _concrete_first(agree)[:6]
    probed = _concrete_first(agree)[:12]
    n_new = max(1, (opts.mutants + 1) // 2)
    plans = []
    for label, v, other, lines in (("new", new, old, ch_new), ("old", old, new, ch_old)):
        try:
            ms = mutants(v, lines, other, limit=opts.mutants)
        except Exception:           # an odd AST: no mutants from this version
            ms = []
        plans.append((label, v, [m for m in ms if not m.probe], [m for m in ms if m.probe]))
    # the new version's mutants first, the old one's fill what is left (and
    # each version's probes of its edited conditions besides)
    regular_new = plans[0][2][:max(n_new, opts.mutants - len(plans[1][2]))]
    regular_old = plans[1][2][:opts.mutants - len(regular_new)]
    take_new, take_old = regular_new + plans[0][3], regular_old + plans[1][3]
    # (a mutant changes its version's target alone: the helpers the commit
    # changed too are its version's)
    helpers = {"new": _changed_helpers(new, old), "old": _changed_helpers(old, new)}
    report = {"tried": 0, "killed": 0, "diff_tried": 0, "diff_killed": 0, "runs": 0,
              "survivors": [], "inputs": len(picked)}
    cattrs, construct = setup
    for label, v, ms in (("new", new, take_new), ("old", old, take_old)):
        for m in ms:
            if spent() > max(5.0, opts.budget / 3):
                break
            try:
                mv = function_versions(m.text, v.path).get(v.qualname)
            except SyntaxError:
                mv = None
            if mv is None:
                continue
            if code_dump(mv.node) == code_dump((old if label == "new" else new).node):
                # the mutant undoes the edit (a keyword the edit added,
                # dropped): it is the other version, whose agreement is the
                # question itself
                continue
            try:
                args, kw = (n_args, n_kw) if label == "new" else (o_args, o_kw)
                side = _Side(mv, args, kw, trees[1] if label == "new" else trees[0],
                             _varargs_names(old, new)[1 if label == "new" else 0],
                             class_attrs=cattrs, construct=construct,
                             other=old if label == "new" else new,
                             changed_helpers=helpers[label])
            except (ValueError, SyntaxError, IndexError):
                continue
            killed, valid = False, False
            for inp, ro, rn in probed if m.probe else picked:
                base = rn if label == "new" else ro
                r = side.run(inp, opts)
                report["runs"] += 1
                o = str(r.get("outcome"))
                if o.startswith(("setup:", "input:")):
                    continue            # the mutant does not load: says nothing
                valid = True
                if _differences(base, r):
                    killed = True
                    break
            if not valid:
                continue
            report["tried"] += 1
            report["diff_tried"] += m.diff
            if killed:
                report["killed"] += 1
                report["diff_killed"] += m.diff
            else:
                report["survivors"].append(f"{label} line {m.line}: {m.what}" +
                                           (" (a token the edit wrote)" if m.diff else ""))
    report["passed"] = not report["tried"] or \
        report["killed"] >= opts.min_killed * report["tried"] - 1e-9
    return report


# ------------------------------------------------------------------ inputs

def _top_class(v: Version):
    """The class of a method, where it stands at the module's top level
    (None for a function, or a nested class)."""
    cls = getattr(v, "cls", None)
    return cls if cls is not None and cls in v.module.body else None


def _helper_key(f, cls) -> Optional[str]:
    """How :func:`_called_helpers` names the callee ``f`` of a call: a name
    (``load_recipe``), or ``Class.name`` for a method called on ``self`` or
    ``cls`` (``cls``: the method's top-level class, or None)."""
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
            f.value.id in ("self", "cls") and cls is not None:
        return f"{cls.name}.{f.attr}"
    return None


def _called_helpers(v: Version) -> dict:
    """{name: (first line, last line, whether every call of it is a
    statement of its own)} of the module's functions that the function
    calls by name, and of its class's methods it calls on ``self``
    (``Class.name``; a class at the module's top level)."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    calls = [c.func for c in ast.walk(v.node) if isinstance(c, ast.Call)]
    # the calls whose result is thrown away (``git_clone_or_pull(...)``)
    alone = {id(s.value.func) for s in ast.walk(v.node)
             if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)}
    cls = _top_class(v)
    found = {d.name: d for d in v.module.body if isinstance(d, defs) and d is not v.node}
    if cls is not None:
        found.update({f"{cls.name}.{d.name}": d for d in cls.body
                      if isinstance(d, defs) and d is not v.node})
    out: dict = {}
    for f in calls:
        k = _helper_key(f, cls)
        if k in found:
            d = found[k]
            was = out.get(k, (0, 0, True))[2]
            out[k] = (d.lineno, d.end_lineno, was and id(f) in alone)
    return out


def _cached_reads(v: Version) -> dict:
    """{name: (first line, last line)} of the ``cached_property`` methods of
    the method's class that the method reads on ``self`` (``base =
    self.dist_info_dir``): a value cached in the object's dict is what a
    later read gets, without running the property's code again."""
    cls = _top_class(v)
    if cls is None:
        return {}
    read = {n.attr for n in ast.walk(v.node) if isinstance(n, ast.Attribute) and
            isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) and
            n.value.id == "self"}

    def cached(d) -> bool:
        return any((isinstance(x, ast.Name) and x.id == "cached_property") or
                   (isinstance(x, ast.Attribute) and x.attr == "cached_property")
                   for x in d.decorator_list)
    return {d.name: (d.lineno, d.end_lineno or d.lineno) for d in cls.body
            if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d is not v.node
            and d.name in read and cached(d)}


def _throw_sites(v: Version, changed: set) -> list:
    """The exception classes (as the code names them) of the ``except``
    clauses holding a changed line of a ``try`` whose body yields: a
    generator's (a context manager's) handler runs only when an exception
    is thrown in at its ``yield`` (a ``with`` block that raises); a bare
    ``except`` is ``Exception``'s."""
    out: list = []
    for t in ast.walk(v.node):
        if not isinstance(t, ast.Try) or not any(
                isinstance(n, (ast.Yield, ast.YieldFrom)) for st in t.body for n in ast.walk(st)):
            continue
        for h in t.handlers:
            if not set(range(h.lineno, (h.end_lineno or h.lineno) + 1)) & changed:
                continue
            kinds = h.type.elts if isinstance(h.type, ast.Tuple) else \
                [h.type] if h.type is not None else [ast.Name("Exception")]
            out.extend(n for n in map(ast.unparse, kinds) if n not in out)
    return out[:_THROWS]


#: exception classes thrown into a generator's ``yield`` at most, per version
_THROWS = 4


def _helpers_by_line(v: Version, helpers: dict) -> dict:
    """line -> the helpers (:func:`_called_helpers`) that the statement on
    that line calls: a simple statement's lines, a compound statement's
    header (``if``, ``for``, ``while``, ``with``)."""
    cls = _top_class(v)
    out: dict = {}
    for st in ast.walk(v.node):
        if not isinstance(st, ast.stmt) or st is v.node or \
                isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        parts = [st.test] if isinstance(st, (ast.If, ast.While)) else \
            [st.target, st.iter] if isinstance(st, (ast.For, ast.AsyncFor)) else \
            list(st.items) if isinstance(st, (ast.With, ast.AsyncWith)) else \
            [] if isinstance(st, (ast.Try, ast.Match)) else [st]
        keys = {k for part in parts for c in ast.walk(part) if isinstance(c, ast.Call)
                for k in [_helper_key(c.func, cls)] if k in helpers}
        if not keys:
            continue
        first = min(getattr(x, "lineno", st.lineno) for x in parts)
        last = max(getattr(x, "end_lineno", None) or st.lineno for x in parts)
        for ln in range(min(first, st.lineno), last + 1):
            out.setdefault(ln, set()).update(keys)
    return out


def _stub_for(r: dict, helpers: dict) -> Optional[str]:
    """The function of the module the function calls (a recipe loader that
    exits, a helper that runs ``git``) inside which a run raised: of the
    environment's accord (an exit, an ``OSError``, a failed subprocess),
    or anyhow where the function throws its result away (None where it
    raised elsewhere, or of its own logic in a helper whose result counts:
    a parser's ``ValueError`` on a bad text is what it does)."""
    line = r.get("line")
    if not str(r.get("outcome", "")).startswith("raised:") or not isinstance(line, int):
        return None
    return next((n for n, (a, b, alone) in helpers.items()
                 if a <= line <= (b or a) and (alone or r.get("foreign"))), None)


def _with_stubs(prefix: str, names: list) -> str:
    """``prefix`` with the functions ``names`` of the module made up: each
    returns an object whose attributes are injected, bound after the
    module's own definitions ran."""
    def stub(n):
        return "_lx_stub_" + n.replace(".", "_")
    add = [n for n in names if stub(n) not in (prefix or "")]
    if not add:
        return prefix
    stmts = [] if "class _LxObj" in (prefix or "") else [STAND_IN]
    stmts.append(prefix or "")
    for n in add:
        stmts += [f"def {stub(n)}(*a, **k):\n    return _LxObj()", after_module(n, stub(n))]
    return "\n".join(x for x in stmts if x)


def _helpers_near(v: Version, changed: set, helpers: dict) -> set:
    """The helpers of ``helpers`` (``_called_helpers``) that the function
    calls on its ``changed`` lines or in the test of an ``if``/``while``
    whose body or else branch holds one of them."""
    lines = set(changed)
    for n in ast.walk(v.node):
        if isinstance(n, (ast.If, ast.While)) and any(
                n.test.end_lineno < ln <= (n.end_lineno or n.lineno) for ln in changed):
            lines |= set(range(n.test.lineno, (n.test.end_lineno or n.test.lineno) + 1))
    cls = _top_class(v)
    keys = (_helper_key(c.func, cls) for c in ast.walk(v.node)
            if isinstance(c, ast.Call) and c.lineno in lines)
    return {k for k in keys if k in helpers}


def _prefix_methods(prefix: str, helpers: dict) -> list:
    """The helpers (functions of the module the function calls by name,
    methods of its class it calls on ``self``: ``Class.method``) that
    ``prefix`` makes up too, as a function of that name or a method of its
    made-up ``self`` (``class C_self``): a made-up answer the module's own
    code does not give (``fetch_unicode_versions()`` empty without its data
    file; ``self.get_name(plugin)`` None on an empty registry;
    ``self.render_children(token)`` failing on a token without children)."""
    try:
        tree = ast.parse(prefix or "")
    except SyntaxError:
        return []
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    made = {d.name for c in tree.body if isinstance(c, ast.ClassDef) and c.name == "C_self"
            for d in c.body if isinstance(d, defs)}
    top = {d.name for d in tree.body if isinstance(d, defs)}
    return [k for k in helpers if ("." in k and k.rpartition(".")[2] in made) or
            ("." not in k and k in top)]


def _with_prefix_methods(prefix: str, names: list) -> str:
    """``prefix`` with the helpers ``names`` (see :func:`_prefix_methods`)
    bound, after the module's own definitions ran, to what the prefix
    defines for them."""
    return "\n".join([prefix] + [after_module(n, "C_self." + n.rpartition(".")[2] if "." in n
                                               else n) for n in names])


#: the most inputs made from the values the runs saw parameters tested against
_OBSERVED_INPUTS = 8


#: inputs that give a made-up attribute a value of the kind a TypeError
#: asked for, per function
_ATTR_REPAIRS = 6


#: the message of an attribute an object lacks: its class, the attribute
_MISSING_ATTR = re.compile(r"^'([A-Za-z_]\w*)' object has no attribute '([A-Za-z_]\w*)'")


def _format_fields(v: Version, me: str) -> list:
    """The attributes of the object ``me`` that the function's texts name
    as format fields (``"{self.root_dir!r}"``): what ``str.format`` reads
    on its own, where no loader makes a value up."""
    pat = re.compile(r"\{%s\.([A-Za-z_]\w*)" % re.escape(me))
    out: list = []
    for n in ast.walk(v.node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.extend(m.group(1) for m in pat.finditer(n.value))
    return list(dict.fromkeys(out))


#: a TypeError of a builtin that wanted a text and got a container or a
#: number (``re``'s "expected string or bytes-like object, got 'list'",
#: ``os.fspath``'s "expected str, bytes or os.PathLike object, not list")
_NOT_A_TEXT = re.compile(r"expected (?:str|string)\b.*\b(?:got|not) '?(list|tuple|dict|set|int|"
                         r"float|NoneType)'?$")
_TEXT_REPAIRS = 2


def _wrongly_typed(prefix: str, r: dict, v: Version) -> list:
    """The values a prefix gave as a container or a number (``_self.data =
    [1, 0]``, ``name = 3``) that the line where the run raised
    :data:`_NOT_A_TEXT` reads (by the name, or the attribute's name):
    their targets in the prefix, the latest first."""
    m = _NOT_A_TEXT.search(str(r.get("message", "")))
    line = r.get("line")
    if m is None or not isinstance(line, int) or not prefix or \
            not str(r.get("outcome", "")).startswith("raised:TypeError"):
        return []
    words = _line_words(v, line)
    if not words:
        return []
    want = {"list": ast.List, "tuple": ast.Tuple, "dict": ast.Dict,
            "set": ast.Set}.get(m.group(1))
    try:
        stmts = ast.parse(prefix).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out: list = []
    for st in reversed(stmts):
        if not (isinstance(st, ast.Assign) and len(st.targets) == 1):
            continue
        t, val = st.targets[0], st.value
        if not (want is not None and isinstance(val, want) or
                m.group(1) in ("int", "float", "NoneType") and isinstance(val, ast.Constant) and
                type(val.value).__name__ == m.group(1)):
            continue
        if isinstance(t, ast.Name) and t.id in words or \
                isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.attr in words:
            text = ast.unparse(t)
            if text not in out:
                out.append(text)
    return out[:2]


def _line_words(v: Version, line: int) -> set:
    """The names on line ``line`` of the version's text (none past its end)."""
    lines = v.text.splitlines()
    return set(re.findall(r"[A-Za-z_]\w*", lines[line - 1])) if 0 < line <= len(lines) \
        else set()


def _line_pattern_texts(v: Version, line: int) -> list:
    """Texts that the patterns of the module or the function's class named
    on ``line`` (``self._href.finditer(...)``) match, two of each."""
    from . import regexdiff
    words = _line_words(v, line)
    if not words:
        return []
    try:
        pats = regexdiff.module_patterns(v.module)
        if v.cls is not None:
            pats.update(regexdiff.module_patterns(v.cls, dict(regexdiff.assignments(
                v.module.body))))
    except (RecursionError, ValueError):
        return []
    out: list = []
    for name, (text, flags) in pats.items():
        if name in words:
            try:
                out += regexdiff.member_samples(text, flags, 2)
            except (re.error, RecursionError, ValueError):
                continue
    return list(dict.fromkeys(out))[:4]


#: inputs aimed at telling swapped computing functions apart, per function
_SWAP_INPUTS = 6

#: texts a pattern the module builds is given, per pattern (half again for
#: an edited one's telling texts)
_BUILT_PATTERN_TEXTS = 6


def _spread(texts: list, n: int) -> list:
    """``n`` of a pattern's sample texts: the first (every optional part in
    it), then the shortest of each punctuation skeleton (``://@#``: a login
    left out; ``://@@``: the fragment the code would parse left out), not
    ``n`` members of one alternation."""
    if not texts:
        return []
    out = [texts[0]]
    seen = {_skeleton(texts[0])}
    for t in sorted(texts[1:], key=len):
        if len(out) >= n:
            break
        if _skeleton(t) not in seen:
            seen.add(_skeleton(t))
            out.append(t)
    return out


def _skeleton(text: str) -> str:
    return "".join(ch for ch in text if not ch.isalnum())


def _dummy_type_error(r: dict) -> bool:
    """Did the run raise a TypeError on a made-up value (``expected str ...
    not Dummy``)?"""
    return str(r.get("outcome", "")) == "raised:TypeError" and \
        "Dummy" in str(r.get("message", ""))


def _module_defs(v: Version) -> frozenset:
    """The names a version's module binds by a ``class`` or ``def`` at its
    top level (under a top-level ``if``/``try`` too)."""
    import ast
    out: set = set()
    todo = list(v.module.body) if v.module is not None else []
    while todo:
        st = todo.pop()
        if isinstance(st, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(st.name)
        elif isinstance(st, (ast.If, ast.Try)):
            todo.extend(st.body + st.orelse + getattr(st, "finalbody", []) +
                        [x for h in getattr(st, "handlers", []) for x in h.body])
    return frozenset(out)


def _without_imports_of(prefix: str, names: frozenset) -> str:
    """``prefix`` without the imports that bind one of ``names`` (the module
    under test defines them: what the prefix imports by that name is
    another module's object -- ``typing.Never`` for the module's own
    ``Never`` class, which then raises on every call); the other names of
    the same statement kept.  Unchanged when it binds none, or does not
    parse."""
    import ast
    if not any(n in prefix for n in names):
        return prefix
    try:
        tree = ast.parse(prefix)
    except (SyntaxError, ValueError):
        return prefix
    lines = prefix.splitlines(keepends=True)
    edits = []
    for st in tree.body:
        if not isinstance(st, (ast.Import, ast.ImportFrom)):
            continue
        keep = [a for a in st.names
                if (a.asname or a.name.split(".")[0]) not in names]
        if len(keep) == len(st.names):
            continue
        text = ""
        if keep:
            st2 = ast.ImportFrom(st.module, keep, st.level) if isinstance(st, ast.ImportFrom) \
                else ast.Import(keep)
            text = " " * st.col_offset + ast.unparse(st2) + "\n"
        edits.append((st.lineno, st.end_lineno or st.lineno, text))
    for first, last, text in reversed(edits):
        lines[first - 1:last] = [text] if text else []
    return "".join(lines)


class _InputSource:
    """Inputs in order: the Treefix generator's top plan for each version,
    the test calls, the empty prefix (injection alone), the generator's
    other initial plans; error and coverage guidance whenever the changed
    lines are still unreached."""

    def __init__(self, old: Version, new: Version, ch_old: set, ch_new: set,
                 test_inputs: list, opts: Options):
        self.opts = opts
        self.queue: list = []           # initial inputs
        self.guided_queue: list = []    # from error and coverage guidance
        self.turn = 0
        self.seen: set = set()
        self.gens: list = []
        self.plans: dict = {}
        self.ch = {"old": ch_old, "new": ch_new}
        # the module's functions each version calls by name: (first, last line)
        self.helpers = {"old": _called_helpers(old), "new": _called_helpers(new)}
        # the cached properties each version reads on ``self``
        self.cached = {"old": _cached_reads(old), "new": _cached_reads(new)}
        # the exceptions a handler around a ``yield`` with changed lines
        # catches, each thrown in on the first inputs that return
        self.throws = {"old": _throw_sites(old, ch_old), "new": _throw_sites(new, ch_new)}
        self.thrown: dict = {}
        # which of them each version calls on its changed lines or in the
        # tests that guard them; inputs with those made up as the generator
        # made them up (two at most: they take the place of others)
        self.near = {"old": _helpers_near(old, ch_old, self.helpers["old"]),
                     "new": _helpers_near(new, ch_new, self.helpers["new"])}
        self.on_line = {"old": _helpers_by_line(old, self.helpers["old"]),
                        "new": _helpers_by_line(new, self.helpers["new"])}
        self.made_up = 0
        self.stubs: list = []           # those found raising, made up from then on
        self.cov = {"old": set(), "new": set()}
        self.errors: list = []
        self.call_repairs = 0           # calls failed on a made-up value, sent to repair
        self.attr_repairs = 0           # made-up attributes given a value of the kind wanted
        self.attr_tries: dict = {}      # input key -> (subject, value) it gives
        self.concrete: list = []        # (subject, value) that got a run further, in later inputs
        self.versions = {"old": old, "new": new}
        self.observed: set = set()      # (parameter, value) from the runs' guards
        self.patterns_aimed = False     # texts for the patterns the module builds: given
        self.text_repairs = 0           # prefix values made texts where a line wanted one
        self.swaps: list = []           # computing functions the edit swapped (apps/callees)
        # the classes and functions the module defines itself: a prefix's
        # import of another module's object by such a name (``from typing
        # import Never`` for the module's own ``class Never``) is dropped
        self.own_defs = _module_defs(old) | _module_defs(new)
        self.swap_tries: set = set()    # (parameter, value) given to tell them apart
        # aimed inputs again on an input that reached the changed lines in
        # both versions (_rebase): the head each aimed prefix begins with,
        # that input's (prefix, given), those waiting for one, how many made
        self.aimed_head: Optional[str] = None
        self.aimed_base: Optional[str] = None
        self.base_failures: set = set()     # (outcome, line) the base prefix's runs raised
        self.reached_both: Optional[tuple] = None
        self.unplaced: list = []
        self.rebased = 0
        self.rebased_at = 0     # where the next goes in the guided queue
        self.literals = {repr(n.value) for v in (old, new) for n in ast.walk(v.node)
                         if isinstance(n, ast.Constant)}
        self.guided = 0
        self.seed0 = opts.seeds[0] if opts.seeds else 0
        props: dict = {}
        for label, v in (("new", new), ("old", old)):
            try:
                from ..prefixtree.analysis import analyze
                from ..prefixtree.offline import OfflineGenerator
                facts = analyze(facts_source(v))
                gen = OfflineGenerator(seed=self.seed0, passed=_parameter_names(v))
                props[label] = gen.initial(facts, 8)
                self.gens.append((label, facts, gen))
            except Exception:         # an analysis failure costs only these inputs
                props.setdefault(label, [])
        tests = list(test_inputs)
        if opts.aimed:
            # the calls in the module's doctests, both versions' (the new
            # version's docstring may show the case the edit is about)
            from .diffinputs import doctest_calls
            known = {repr(t.call) for t in tests}
            for v in (new, old):
                try:
                    found = doctest_calls(v)
                except Exception:        # an odd docstring costs only these inputs
                    found = []
                for call, note in found:
                    if repr(call) not in known:
                        known.add(repr(call))
                        tests.append(Input("", call, self.seed0, note))
        for t in tests[:2]:
            self._add(t)
        for label in ("new", "old"):
            for p in props.get(label, [])[:1]:
                self._add(Input(p.prefix, None, self.seed0, f"treefix ({label}): {p.note}",
                                p.plan))
        for t in tests[2:]:
            self._add(t)
        self._add(Input("", None, self.seed0, "injection alone"))
        if opts.aimed:
            from .diffinputs import aimed_inputs
            base = (props.get("new") or props.get("old") or [None])[0]
            self.aimed_head = STAND_IN + ("\n" + base.prefix if base is not None and
                                          base.prefix else "")
            self.aimed_base = base.prefix if base is not None else None
            try:
                aimed = aimed_inputs(old, new, ch_old, ch_new,
                                     base.prefix if base is not None else "")
            except Exception:        # an odd AST costs only these inputs
                aimed = []
            for prefix, note, names in aimed:
                self._add(Input(prefix, None, self.seed0, note, given=tuple(names)))
        a, b = props.get("new", [])[1:], props.get("old", [])[1:]
        for i in range(max(len(a), len(b))):
            for label, lst in (("new", a), ("old", b)):
                if i < len(lst):
                    self._add(Input(lst[i].prefix, None, self.seed0,
                                    f"treefix ({label}): {lst[i].note}", lst[i].plan))
        for s in opts.seeds[1:]:
            for label in ("new", "old"):
                for p in props.get(label, [])[:1]:
                    self._add(Input(p.prefix, None, s, f"treefix ({label}), seed {s}", p.plan))

    def _swap_inputs(self, inp: Input, ro: dict, rn: dict) -> None:
        """An edit swapped one computing function for another (apps/callees):
        this input again with a parameter the runs passed to it as it was
        varied until the two functions, called here on the recorded
        arguments, differ (``path = 'a.data2/x'`` where ``commonprefix``
        and ``commonpath`` of it and ``'a.data'`` part)."""
        for r in (ro, rn):
            recs = r.get("watched") or ()
            if not recs or not isinstance(r.get("input"), dict):
                continue
            for pair in self.swaps:
                for p, w in telling_values(pair, list(recs), r["input"]):
                    if len(self.swap_tries) >= _SWAP_INPUTS or (p, repr(w)) in self.swap_tries:
                        continue
                    self.swap_tries.add((p, repr(w)))
                    prefix = _setting(p, repr(w), inp.prefix or "")
                    if prefix is None:
                        continue
                    given = inp.given if p in inp.given else inp.given + (p,)
                    self._add(Input(prefix, None, inp.seed,
                                    f"aimed ({pair[0]} vs {pair[1]}): {p} = {w!r}"[:200],
                                    None, given), guided=True)

    def _built_pattern_inputs(self, inp: Input, ro: dict, rn: dict) -> None:
        """The changed lines not run yet, and the runs found patterns the
        module builds from what its text alone does not tell (a sibling
        module's names joined into an alternation): the parameters the
        function applies them to given texts they match, and texts that
        tell an edited pattern's two versions apart first (once)."""
        from . import regexdiff
        found: dict = {}
        for label, r in (("old", ro), ("new", rn)):
            for x in r.get("patterns") or ():
                if isinstance(x, (list, tuple)) and len(x) == 3 and isinstance(x[1], str) \
                        and isinstance(x[2], int):
                    found.setdefault(label, {})[str(x[0])] = (x[1], x[2])
        if not found:
            return
        self.patterns_aimed = True
        wanted: list = []           # (parameter, text, pattern name)
        for label, v in self.versions.items():
            static = regexdiff.module_patterns(v.module)
            built = {k: p for k, p in (found.get(label) or {}).items() if k not in static}
            if not built:
                continue
            try:
                _used, on = regexdiff.pattern_uses(v.node, v.module,
                                                   set(_parameter_names(v)) - {"self"}, built)
            except (RecursionError, ValueError):
                continue
            other = found.get("new" if label == "old" else "old") or {}
            for param, pats in on.items():
                for name, p in built.items():
                    if p not in pats:
                        continue
                    texts = []
                    if name in other and other[name] != p:
                        texts += regexdiff.telling_texts([p], [other[name]])
                    try:
                        texts += _spread(regexdiff.member_samples(p[0], p[1], 400, 400),
                                         _BUILT_PATTERN_TEXTS)
                    except (re.error, RecursionError, ValueError):
                        pass
                    wanted += [(param, t, name) for t in texts]
        for param, t, name in list(dict.fromkeys(wanted))[:2 * _BUILT_PATTERN_TEXTS]:
            prefix = _setting(param, repr(t), inp.prefix or "")
            if prefix is None:
                continue
            given = inp.given if param in inp.given else inp.given + (param,)
            self._add(Input(prefix, None, inp.seed,
                            f"aimed (pattern {name} as built): {param} = {t!r}"[:200], None,
                            given), guided=True)

    def _add(self, inp: Input, guided: bool = False) -> None:
        if inp.prefix and self.own_defs:
            prefix = _without_imports_of(inp.prefix, self.own_defs)
            if prefix != inp.prefix:
                inp = dataclasses.replace(inp, prefix=prefix)
        k = inp.key()
        if k in self.seen:
            return
        self.seen.add(k)
        if inp.plan is not None:
            self.plans.setdefault(inp.prefix, inp.plan)
        (self.guided_queue if guided else self.queue).append(inp)

    def _rebase(self, inp: Input, ro: dict, rn: dict) -> None:
        """An aimed input whose runs failed before the changed lines as the
        base prefix's own runs did (what the base gave the other
        parameters: ``query = True`` where the function parses a text)
        again on the prefix of an input that reached the changed lines in
        both versions, with what it aims at set last (``fragment = '#'``);
        those that fail before any input reached them wait for one
        (``_REBASED`` inputs at most, none made again)."""
        if inp.call or inp.reshape or inp.prefix is None:
            return
        failed = {(str(r.get("outcome")), r.get("line")) for r in (ro, rn)
                  if str(r.get("outcome", "")).startswith("raised:")}
        if self.aimed_base is not None and inp.prefix == self.aimed_base:
            self.base_failures |= failed
        hit = [set(r.get("lines", r.get("reached", ()))) & self.ch[k]
               for k, r in (("old", ro), ("new", rn))]
        if all(hit):
            if self.reached_both is None:
                self.reached_both = (inp.prefix, inp.given)
                waiting, self.unplaced = self.unplaced, []
                for w in waiting:
                    self._rebase_one(w)
            return
        # (only where the runs failed as the base prefix's own runs did: the
        # base's values, not the aimed one, stopped them -- an aimed value
        # that fails a check of its own is no better on another base)
        if any(hit) or not inp.note.startswith("aimed") or self.aimed_head is None or \
                _REBASED_NOTE in inp.note or not inp.prefix.startswith(self.aimed_head) or \
                not failed or not failed <= self.base_failures:
            return
        if self.reached_both is None:
            if len(self.unplaced) < _REBASED:
                self.unplaced.append(inp)
            return
        self._rebase_one(inp)

    def _rebase_one(self, inp: Input) -> None:
        if self.rebased >= _REBASED or self.reached_both is None:
            return
        base, given = self.reached_both
        if base.startswith(self.aimed_head):
            base = base[len(self.aimed_head):]
        elif base.startswith(STAND_IN):
            base = base[len(STAND_IN):]
        tail = inp.prefix[len(self.aimed_head):]
        self.rebased += 1
        n = len(self.guided_queue)
        self._add(dataclasses.replace(
            inp, prefix=self.aimed_head + "\n" + base.strip("\n") + "\n" + tail.strip("\n"),
            note=f"{inp.note[:150]} {_REBASED_NOTE}",
            given=tuple(dict.fromkeys(tuple(given) + tuple(inp.given)))), guided=True)
        if len(self.guided_queue) > n:
            # (before the guidance waiting: what it aims at is the edit)
            self.guided_queue.insert(self.rebased_at, self.guided_queue.pop())
            self.rebased_at += 1

    def feedback(self, inp: Input, ro: dict, rn: dict) -> None:
        self.cov["old"].update(ro.get("reached", ()))
        self.cov["new"].update(rn.get("reached", ()))
        self._rebase(inp, ro, rn)
        if self.swaps and not inp.call and len(self.swap_tries) < _SWAP_INPUTS:
            self._swap_inputs(inp, ro, rn)
        tried = self.attr_tries.pop(inp.key(), None)
        if tried is not None and tried not in self.concrete and \
                not any(_dummy_type_error(r) for r in (ro, rn)):
            # a made-up attribute given a text got past the TypeError: so
            # given in every later input (an aimed input that makes a helper
            # answer False needs ``self.base`` a text as much)
            self.concrete.append(tried)
        if inp.call and isinstance(inp.call.get("self"), str) and not inp.reshape and \
                not inp.call.get("entry") and all(
                    str(r.get("outcome", "")).startswith("input:") and
                    r.get("outcome") != "input:OtherClass" for r in (ro, rn)):
            # a test's or doctest's object does not build here (extract mode:
            # ``Version.parse('4.0.4')`` needs the package): its arguments
            # on an object the run builds itself, whose state is injected
            self._add(Input(inp.prefix, dict(inp.call, self=None), inp.seed,
                            f"{inp.note} (its object made here)"[:200], inp.plan, inp.given))
        if not self._reached() and not any(str(g).startswith("throw:") for g in inp.given):
            # a generator whose changed lines are in a handler around its
            # ``yield``: this input again with each exception it catches
            # thrown in there (on two inputs at most)
            for name in dict.fromkeys(self.throws["old"] + self.throws["new"]):
                if self.thrown.get(name, 0) >= 2:
                    continue
                self.thrown[name] = self.thrown.get(name, 0) + 1
                self._add(dataclasses.replace(inp, note=f"{inp.note} ({name} thrown in)"[:200],
                                              given=tuple(inp.given) + (f"throw:{name}",)),
                          guided=True)
        if not self._reached():
            # a cached property of the class, read on ``self``, raised on the
            # object's made-up state before the changed lines ran
            # (``dist_info_dir`` finding no one ``.dist-info`` directory in
            # a made-up archive): this input again with the value the
            # prefix gives it cached, as the object holds it once read
            for label, r in (("old", ro), ("new", rn)):
                line = r.get("line")
                if not str(r.get("outcome", "")).startswith("raised:") or \
                        not isinstance(line, int):
                    continue
                name = next((n for n, (a, b) in self.cached[label].items()
                             if a <= line <= b), None)
                if name is None or f"self.{name}" in inp.given or \
                        not re.search(rf"\.{re.escape(name)} = ", inp.prefix or ""):
                    continue
                self._add(dataclasses.replace(inp, note=f"{inp.note} (self.{name} cached)"[:200],
                                              given=tuple(inp.given) + (f"self.{name}",)),
                          guided=True)
                break
            # a function of the module raised before the changed lines ran:
            # this input again with it made up, and with those found so far,
            # as every later input (a loader that exits where its file is
            # not there, a helper that runs ``git``: they fail on any input)
            for label, r in (("old", ro), ("new", rn)):
                name = _stub_for(r, self.helpers[label])
                if name is None:
                    continue
                if name not in self.stubs:
                    self.stubs.append(name)
                stubbed = self._stubbed(inp)
                if stubbed is not inp:
                    self._add(stubbed, guided=True)
                break
            # the function raised on what a helper of the module gave it, on
            # the line that calls it (``fetch_unicode_versions()[-1]`` on an
            # empty list, without its data file): this input again with the
            # helpers of that line answering as the prefix makes them up
            for label, r in (("old", ro), ("new", rn)):
                line = r.get("line")
                if inp.call or AFTER_MODULE in (inp.prefix or "") or self.made_up >= 2 or \
                        not str(r.get("outcome", "")).startswith("raised:") or \
                        not isinstance(line, int):
                    continue
                at = self.on_line[label].get(line, set())
                names = _prefix_methods(inp.prefix, {k: x for k, x in self.helpers[label].items()
                                                     if k in at})
                if names:
                    self._add_made_up(inp, names)
                    break
            # a made-up attribute of the object or of a parameter reached a
            # builtin that wants a text, bytes or a number (``os.path.join(
            # self.base, name)``; TypeError: "expected str ... not Dummy"):
            # this input again with that attribute given one
            for label, r in (("old", ro), ("new", rn)):
                if inp.call or self.attr_repairs >= _ATTR_REPAIRS or not _dummy_type_error(r):
                    continue
                from .diffinputs import made_up_attributes
                names = [x[1] for x in reversed(r.get("injected") or ())
                         if x[0] == "attribute"]
                for subject, val in made_up_attributes(self.versions[label], names,
                                                       str(r.get("message", ""))):
                    if f"{subject} = " in (inp.prefix or ""):
                        continue
                    prefix = _setting(subject, val, inp.prefix or "")
                    if prefix is None:
                        continue
                    self.attr_repairs += 1
                    given = inp.given if subject in inp.given else inp.given + (subject,)
                    try_it = Input(prefix, None, inp.seed,
                                   f"{inp.note}, made-up {subject} = {val}"[:200], None, given)
                    self.attr_tries[try_it.key()] = (subject, val)
                    self._add(try_it, guided=True)
                break
            # the prefix gave a container or a number where the line wants a
            # text (``self.data = [1, 0]`` for ``P.finditer(self.data)``:
            # "expected string or bytes-like object, got 'list'"): this
            # input again with that value a text
            for label, r in (("old", ro), ("new", rn)):
                if self.text_repairs >= _TEXT_REPAIRS:
                    break
                for subject in _wrongly_typed(inp.prefix or "", r, self.versions[label]):
                    if self.text_repairs >= _TEXT_REPAIRS:
                        break
                    self.text_repairs += 1
                    # (a text the line's pattern matches, where it applies one:
                    # ``self._href.finditer(self.data)``)
                    for text in _line_pattern_texts(self.versions[label], r["line"]) + ["a"]:
                        self._add(Input(f"{inp.prefix}\n{subject} = {text!r}", None, inp.seed,
                                        f"{inp.note}, {subject} = {text!r}"[:200], None,
                                        inp.given), guided=True)
            # the object was made without an attribute the code reads where
            # no loader sees it (``"{self.root_dir!r}".format(self=self)``,
            # ``getattr`` in a builtin): AttributeError "'Cls' object has no
            # attribute 'x'"; this input again with that attribute, and each
            # one the function's format strings name, given a text
            for label, r in (("old", ro), ("new", rn)):
                if inp.call or self.attr_repairs >= _ATTR_REPAIRS or \
                        str(r.get("outcome", "")) != "raised:AttributeError":
                    continue
                v = self.versions[label]
                m = _MISSING_ATTR.match(str(r.get("message", "")))
                me = v.self_name() if v.cls is not None else None
                if m is None or me is None or m.group(1) != v.cls.name or \
                        v.kind in ("static", "classmethod"):
                    continue
                prefix = inp.prefix or ""
                added = []
                # (both versions' fields: the runs of the input compare)
                both = [f for w in self.versions.values() if w is not None and
                        w.self_name() == me for f in _format_fields(w, me)]
                for a in dict.fromkeys([m.group(2)] + both):
                    if f"{me}.{a} = " in prefix:
                        continue
                    got = _setting(f"{me}.{a}", "'a'", prefix)
                    if got is None:
                        break
                    prefix = got
                    added.append(a)
                if not added:
                    continue
                self.attr_repairs += 1
                given = inp.given + tuple(f"{me}.{a}" for a in added
                                          if f"{me}.{a}" not in inp.given)
                self._add(Input(prefix, None, inp.seed,
                                f"{inp.note}, {me}.{added[0]} given"[:200], None, given),
                          guided=True)
                break
        if not inp.call and AFTER_MODULE not in (inp.prefix or "") and self._reached() and \
                self._unrun():
            # changed lines reached, but some not run yet: this input again
            # with the helpers both versions call (the module's functions,
            # the class's methods on ``self``) answering as the generator
            # made them up, where it did (not before the changed lines are
            # reached at all: error guidance and made-up failing helpers
            # come first there)
            both = {k: v for k, v in self.helpers["new"].items() if k in self.helpers["old"] and
                    any(k in self.near[lb] for lb in ("old", "new"))}
            names = _prefix_methods(inp.prefix, both)
            if names and self.made_up < 2:
                self._add_made_up(inp, names)
        if inp.call:
            # a test's or doctest's call that failed where a builtin wanted a
            # text (a number ...) and got a made-up value (``.replace(".",
            # decimal_separator())`` with the helper not importable): the
            # call again, after a prefix that the error guidance repairs
            # the value with (twice at most)
            for label, r in (("old", ro), ("new", rn)):
                if self.call_repairs < 2 and r.get("line") and \
                        str(r.get("outcome", "")) == "raised:TypeError" and \
                        "Dummy" in str(r.get("message", "")) and self._unrun():
                    self.call_repairs += 1
                    self._repair(label, inp.prefix, r, inp.call)
                    break
            return
        if self._unrun():
            # changed lines not run yet: this input with a parameter given
            # each value the run saw it tested against (a member of
            # ``cls.NAMES[:-1]``, which no literal of the source names)
            got = {tuple(x) for r in (ro, rn) for x in r.get("observed") or ()}
            # (the values no literal of the function names first: the aimed
            # inputs have tried those)
            for param, val in sorted(got - self.observed,
                                     key=lambda x: (x[1] in self.literals, x)):
                if len(self.observed) >= _OBSERVED_INPUTS:
                    break
                self.observed.add((param, val))
                prefix = _setting(param, val, inp.prefix or "")
                if prefix is None:
                    continue
                root = re.match(r"\w+", param).group()
                given = inp.given if root in inp.given else inp.given + (root,)
                self._add(Input(prefix, None, inp.seed,
                                f"aimed (observed): {param} = {val}"[:200], None, given),
                          guided=True)
        if self._unrun() and not self.patterns_aimed:
            self._built_pattern_inputs(inp, ro, rn)
        for label, r in (("old", ro), ("new", rn)):
            if str(r.get("outcome", "")).startswith("raised:") and r.get("line"):
                self.errors.append((label, inp.prefix, r))

    def _repairs(self, label: str, facts, gen, prefix: str, r: dict, call) -> list:
        """The error guidance's inputs for the run ``r`` of ``label``'s
        version on ``prefix`` (and ``call``)."""
        err = {"type": r["outcome"][7:], "message": r.get("message", ""),
               "line": r.get("line"), "where": "snippet"}
        try:
            return [Input(p.prefix, call, self.seed0, f"error guidance ({err['type']}, {label})",
                          p.plan) for p in gen.repair(facts, self.plans.get(prefix), err, 2)]
        except Exception:          # a generator failure costs only its advice
            return []

    def _repair(self, label: str, prefix: str, r: dict, call) -> None:
        """The error guidance's inputs for a call's run, queued now."""
        for lb, facts, gen in self.gens:
            if lb == label:
                for inp in self._repairs(label, facts, gen, prefix, r, call):
                    self._add(inp, guided=True)

    def keep_aimed(self) -> bool:
        """Keep only the aimed inputs not run yet (no guidance after them);
        whether there are any."""
        self.queue = [i for i in self.queue if i.note.startswith("aimed")]
        self.guided_queue = []
        self.guided = 99
        return bool(self.queue)

    def _add_made_up(self, inp: Input, names: list) -> None:
        """``inp`` again (guided) with the helpers ``names`` answering as
        its prefix makes them up (two such inputs at most: ``made_up``)."""
        self.made_up += 1
        self._add(dataclasses.replace(
            inp, prefix=_with_prefix_methods(inp.prefix, names),
            note=f"{inp.note} (with {', '.join(names)} as it makes them up)"[:200]),
            guided=True)

    def _unrun(self) -> bool:
        """Whether a changed line of either version has not run yet."""
        return any(self.ch[k] - self.cov[k] for k in ("old", "new"))

    def _reached(self) -> bool:
        return bool(self.cov["old"] & self.ch["old"] or self.cov["new"] & self.ch["new"])

    def next(self) -> Optional[Input]:
        """The next input (see :meth:`_next`), with the functions of the
        module found raising before the changed lines made up."""
        while True:
            inp = self._next()
            if inp is None:
                return None
            stubbed = self._stubbed(inp)
            if stubbed is inp:
                return inp
            if stubbed.key() not in self.seen:
                self.seen.add(stubbed.key())
                return stubbed

    def _stubbed(self, inp: Input) -> Input:
        """``inp`` with the functions found raising made up, and the made-up
        attributes found wanting a value given theirs where the input gives
        them none (itself where its prefix has them all already)."""
        prefix = _with_stubs(inp.prefix, self.stubs) if self.stubs else inp.prefix
        given = list(inp.given or ())
        made = list(self.stubs)
        for subject, val in self.concrete if not inp.call else ():
            if f"{subject} = " in (prefix or ""):
                continue
            got = _setting(subject, val, prefix or "")
            if got is not None:
                prefix = got
                made.append(f"{subject} = {val}")
                if subject not in given:
                    given.append(subject)
        if prefix == inp.prefix:
            return inp
        note = f"{inp.note.split(' (with ')[0]} (with {', '.join(made)} made up)"
        return dataclasses.replace(inp, prefix=prefix, note=note[:200], given=tuple(given))

    def _next(self) -> Optional[Input]:
        """The first four initial inputs, then guided and initial ones in
        turn (guidance only while the changed lines are unreached, or when
        nothing else is left)."""
        self.turn += 1
        if self.turn > 4 and not self.guided_queue and (not self._reached() or
                                                        not self.queue):
            self._guide()
        if self.guided_queue and (self.turn > 4 and self.turn % 2 == 1 or not self.queue):
            return self.guided_queue.pop(0)
        if self.queue:
            return self.queue.pop(0)
        return self.guided_queue.pop(0) if self.guided_queue else None

    def _guide(self) -> None:
        """Coverage guidance for the changed lines not reached yet, then error
        guidance for the last failures; the new prefixes go first.  Coverage
        guidance leads: reaching the changed lines is what a verdict needs,
        and a failure that every input repeats (a module's missing base
        class, say) would otherwise fill the input budget with repairs."""
        self.guided += 1
        if self.guided > 8:
            return
        coverage_items, error_items = [], []
        for label, facts, gen in self.gens:
            for _, prefix, r in [e for e in self.errors if e[0] == label][-2:]:
                error_items += self._repairs(label, facts, gen, prefix, r, None)
            unc = sorted(self.ch[label] - self.cov[label])
            if unc:
                bases = [pl for pl in list(self.plans.values())[:2] if pl is not None]
                try:
                    for p in gen.guide(facts, unc, bases, 2):
                        coverage_items.append(Input(p.prefix, None, self.seed0,
                                                    f"coverage guidance ({label})", p.plan))
                except Exception:
                    pass
        self.errors.clear()
        for inp in coverage_items + error_items:
            self._add(inp, guided=True)
