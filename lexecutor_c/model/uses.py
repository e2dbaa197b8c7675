"""What a snippet does with each injected value, and which candidate values
survive it: the use analysis behind ``predictor="neural"``'s choice.

A value injected for a missing name, attribute or call result is used
somewhere: called, indexed, iterated, compared, passed to ``len``, tested by
an ``if``.  A Dummy survives almost every use; a concrete value (``"a"``,
``[Dummy]``, ``1``) survives only some, and each one that it does not survive
ends the run there.  ``Uses(source, sites)`` parses the snippet once
(``ast``) and maps every site of the instrumenter (``iid`` -> the
``Name``/``Attribute``/``Call`` node at its position) to the expressions that
use its value:

* a missing *name* gets one value per run (docs/RUNTIME.md), so all its
  reads count;
* an *attribute* stored on a Dummy is read again by the same expression
  text (``self.items`` twice), so those count too;
* a *call result* is used where the call is.

``Uses.probe(value, iid)`` *tries* the uses on a small example value of a
class (``_core.concretize``): it climbs from the site's node through its
parents and carries out each step that is safe to carry out here --
attribute reads, calls of methods of builtin types with literal arguments,
subscripts with literal keys, comparisons and arithmetic with literals,
``len``/``tuple``/``isinstance``/... and other side-effect-free builtins
with literal or Dummy arguments, iteration with unpacking, ``with``,
``raise``, ``await``, format specs -- following a value assigned to a plain
name into that name's reads (one step).  A step that raises means the value
does not survive; a step it cannot judge (an unknown callee, a key only
known at run time on a container that is not a Dummy) ends the probe as
survived, except where the next use is certain to fail for a concrete value.
Nothing of the snippet is executed: only builtin-type example values, the
snippet's own literals and Dummies (made without a runtime, so they answer
like ``"naive"``) take part.

The probe also reports the *guards* its value decides: an ``if``/``assert``
whose test it evaluated, with the outcome and whether that branch leaves
early (``raise``, ``return``, ``break``, ``continue``, ``exit()``), so the
predictor can prefer values that keep the run going.
"""
from __future__ import annotations

import ast
import builtins
import math
from collections import deque
from typing import Dict, List, Optional, Tuple

from .. import _core
from ..knowledge.constraints import constraint_for, satisfies
from ..knowledge.inject import runtime_hook

#: builtins without side effects that a probe may call with example values
_PURE_BUILTINS = frozenset({
    "len", "tuple", "list", "set", "frozenset", "sorted", "reversed", "sum", "min", "max",
    "abs", "int", "float", "complex", "str", "bool", "range", "enumerate", "zip", "iter",
    "isinstance", "issubclass", "hasattr", "getattr", "round", "divmod", "hash", "any", "all",
    "map", "filter", "ord", "chr", "hex", "bin", "oct", "format", "dict", "repr", "callable",
    "slice", "ascii", "next", "bytes", "bytearray",
})
#: types whose methods a probe may call (on its own copy of an example value)
_BUILTIN_TYPES = (str, bytes, list, tuple, dict, set, frozenset, int, float, bool, complex,
                  type(None), range, enumerate, zip, map, filter, reversed)
#: literals larger than this are not evaluated (``"a" * 10**9``)
_BIG = 10_000
#: calls that leave the program (Expr(Call(...)) in a branch)
_EXIT_CALLS = frozenset({"exit", "quit", "sys.exit", "os._exit", "os.abort"})

_NOTHING = object()
_REPLACED = object()        # _injected_value: the constraint replaced it (self._replacement)
_EITHER = object()          # a test whose outcome other operands decide


class _ProbeRuntime:
    """Stands for the run's ``Runtime`` where a use-site constraint's factory
    makes a value (``rt.concretize``): Dummies without a runtime."""

    @staticmethod
    def concretize(cls: str, name: str = ""):
        return _core.concretize(cls, name=name)


class _Unknown(Exception):
    """The probe cannot judge the next step: it counts as survived."""


def _literal(node: ast.AST):
    """The value of a literal expression; _Unknown otherwise or when big."""
    try:
        v = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _Unknown from None
    if not _small(v):
        raise _Unknown
    return v


def _small(v, depth: int = 0) -> bool:
    if depth > 3:
        return False
    if isinstance(v, bool) or v is None:
        return True
    if isinstance(v, int):
        return abs(v) <= _BIG
    if isinstance(v, float):
        return math.isnan(v) or abs(v) <= _BIG
    if isinstance(v, (str, bytes)):
        return len(v) <= _BIG
    if isinstance(v, complex):
        return True
    if isinstance(v, (list, tuple, set, frozenset)):
        return len(v) <= 100 and all(_small(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return len(v) <= 100 and all(_small(k, depth + 1) and _small(x, depth + 1)
                                     for k, x in v.items())
    return False


def _is_dummy(v) -> bool:
    return isinstance(v, (_core.Dummy, _core.DummyResource))


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_exit_call(s: ast.stmt) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
        _dotted(s.value.func) in _EXIT_CALLS


def _size(s: ast.AST) -> int:
    """Line markers in a statement if all of it runs (bodies of functions and
    classes not counted: they run only when called)."""
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return 1
    n = 1
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for c in getattr(s, field, None) or ():
            n += _size(c)
    return n


#: an exception ending the run weighs this many lines less than a normal end
RAISE_PENALTY = 0.5


class Probe:
    """Outcome of one probe: ``ok`` (the value survived every use),
    ``decided`` (guards whose outcome it fixed), ``score`` (line markers
    expected from those guards on, see ``Uses.branch_score``), ``risky``
    (a use failed with an unknown operand standing as a Dummy and worked
    only with some typical values for it: the value survives only if that
    operand is not what the run will most likely have there, a Dummy),
    ``replaced`` (the runtime's use-site constraint injects another value
    instead of this class's at the site: the probe judged that one)."""

    __slots__ = ("ok", "decided", "score", "risky", "replaced")

    def __init__(self):
        self.ok = True
        self.decided = 0
        self.score = 0.0
        self.risky = False
        self.replaced = False


class Uses:
    """The use analysis of one snippet; see the module docstring."""

    def __init__(self, source: str, sites) -> None:
        self.tree = _parse(source)
        self.parent: Dict[ast.AST, ast.AST] = {}
        self.by_pos: Dict[tuple, ast.AST] = {}
        self.reads: Dict[str, List[ast.Name]] = {}
        self.text_reads: Dict[str, List[ast.AST]] = {}   # a.b.c -> its reads
        self._sizes: Dict[ast.AST, int] = {}
        self.bound: set = set()
        self.imported: set = set()
        self.bound_other: set = set()       # by def, class, import, global
        self.sites = {}
        self._placeholders: dict = {}
        self._probing_kind = "name"
        self._probe: Optional[Probe] = None
        self._replacement = None
        #: missing name -> the class answered for it in this run (one value
        #: per name per run): an operand the probe then knows
        self.injected: Dict[str, str] = {}
        if self.tree is None:
            return
        stores: Dict[str, int] = {}
        # ast.walk's order (breadth first), with the parent map in the same pass
        todo = deque([self.tree])
        while todo:
            node = todo.popleft()
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
                todo.append(child)
            if isinstance(node, (ast.Name, ast.Attribute, ast.Call)):
                key = (type(node).__name__, node.lineno, node.col_offset, node.end_lineno,
                       node.end_col_offset)
                self.by_pos.setdefault(key, node)
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    self.reads.setdefault(node.id, []).append(node)
                else:
                    self.bound.add(node.id)
                    stores[node.id] = stores.get(node.id, 0) + 1
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound.add(node.name)
                self.bound_other.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for a in node.names:
                    self.bound.add((a.asname or a.name).split(".")[0])
                    self.bound_other.add((a.asname or a.name).split(".")[0])
                    self.imported.add((a.asname or a.name).split(".")[0])
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.bound_other.update(node.names)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                key = _dotted(node)
                if key is not None:
                    self.text_reads.setdefault(key, []).append(node)
        # names bound once, by a top-level assignment of a literal
        self.consts: Dict[str, tuple] = {}
        for stmt in self.tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name) and \
                    stores.get(stmt.targets[0].id) == 1 and stmt.targets[0].id not in self.bound_other:
                try:
                    self.consts[stmt.targets[0].id] = (stmt.lineno, self._const(stmt.value))
                except _Unknown:
                    pass
        for s in sites or ():
            kind = getattr(s, "kind", None)
            if kind in ("name", "attribute", "call") and getattr(s, "col", None) is not None:
                self.sites[s.iid] = s

    # ------------------------------------------------------------ nodes
    def node(self, iid: int) -> Optional[ast.AST]:
        s = self.sites.get(iid)
        if s is None:
            return None
        typ = {"name": "Name", "attribute": "Attribute", "call": "Call"}[s.kind]
        return self.by_pos.get((typ, s.line, s.col, s.end_line, s.end_col))

    def use_nodes(self, iid: int) -> List[ast.AST]:
        """The expressions whose value is the one injected at ``iid``."""
        node = self.node(iid)
        if node is None:
            return []
        if isinstance(node, ast.Name):
            return self.reads.get(node.id, [node])[:20]
        if isinstance(node, ast.Attribute):
            key = _dotted(node)
            same = self.text_reads.get(key) if key is not None else None
            return (same or [node])[:20]
        return [node]

    def only_called(self, iid: int) -> bool:
        """Whether every use of the value at ``iid`` calls it (``x.m(...)``)."""
        nodes = self.use_nodes(iid)
        if not nodes:
            return False
        for n in nodes:
            par = self.parent.get(n)
            if not (isinstance(par, ast.Call) and par.func is n):
                return False
        return True

    def known(self, iid: int) -> bool:
        return self.node(iid) is not None

    # ------------------------------------------------------------ probing
    def probe(self, cls: str, iid: int) -> Probe:
        """Try every use of the value injected at ``iid`` on an example of
        class ``cls`` (a fresh value per use: probes may mutate it)."""
        res = Probe()
        self._probe = res
        site = self.sites.get(iid)
        self._probing_kind = getattr(site, "kind", "name")
        for node in self.use_nodes(iid):
            try:
                value = self._injected_value(cls, iid)
            except ValueError:
                res.ok = False
                return res
            if value is _REPLACED:
                res.replaced = True
                value = self._replacement
            ok = self._climb(value, node, res, 0)
            self._placeholders.clear()
            if not ok:
                res.ok = False
                return res
        return res

    def _injected_value(self, cls: str, iid: int):
        """What the runtime injects at ``iid`` when the predictor answers
        ``cls``: the class's example value, unless the site's use-site
        constraint (docs/RUNTIME.md, ``knowledge.inject.runtime_hook``)
        replaces it -- a Dummy iterated as ``for k, v in x`` becomes
        ``[(Dummy, Dummy)]``, an object entered by ``with`` a resource.  The
        probe must judge the value the run will see, not the one asked for.
        Uses of kind ``arg`` are left to the probe's own check: their
        replacement may write a file for ``open()``."""
        value = _core.concretize(cls)
        site = self.sites.get(iid)
        use = getattr(site, "use", None)
        if not isinstance(use, tuple) or not use or use[0] == "arg":
            return value
        try:
            answer = runtime_hook(use, value, cls, site.kind, site.name or "")
        except Exception:          # the runtime would raise PredictorError: no better guess
            return value
        if answer is None:
            return value
        if isinstance(answer, str):
            self._replacement = _core.concretize(answer)
        else:
            self._replacement = answer(_ProbeRuntime)
        return _REPLACED

    def _climb(self, val, cur: ast.AST, res: Probe, depth: int) -> bool:
        try:
            for _ in range(32):
                par = self.parent.get(cur)
                if par is None:
                    return True
                val = self._step(val, cur, par, res, depth)
                if val is _NOTHING:
                    return True
                cur = par
            return True
        except _Unknown:
            return True
        except _Fail:
            return False
        except RecursionError:
            return True
        except Exception:        # the use raised on this value: it does not survive
            return False

    def _other(self, node: ast.AST):
        """An operand that is not the probed value: its literal value, else a
        placeholder Dummy standing for whatever it is at run time."""
        try:
            return self._const(node)
        except _Unknown:
            pass
        if isinstance(node, ast.Name) and node.id not in self.bound and \
                isinstance(getattr(builtins, node.id, None), type):
            return getattr(builtins, node.id)        # str, int, ValueError, ...
        if isinstance(node, ast.Name) and node.id in self.injected and \
                node.id not in self.bound:
            try:             # a missing name this run has already answered
                return _core.concretize(self.injected[node.id])
            except ValueError:
                pass
        if isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load) and \
                len(node.elts) <= 16 and \
                not any(isinstance(e, ast.Starred) for e in node.elts):
            # its width is known (`fmt % (a, b)`); unknown elements stand in
            t = tuple(self._other(e) for e in node.elts)
            if any(id(e) in self._placeholders for e in t):
                self._placeholders[id(t)] = t
            return t
        d = _core.Dummy()
        if isinstance(node, ast.BinOp) and (self._missing_root(node.left) or
                                            self._missing_root(node.right)):
            return d             # `s + missing`: a Dummy operand makes a Dummy
        if not self._missing_root(node):
            self._placeholders[id(d)] = d
        return d

    def _retry(self, fn, args: list, kwargs: dict):
        """fn(*args, **kwargs) failed and some argument is a placeholder: the
        call again with every placeholder replaced by one typical value after
        another.  Some work: the failure says nothing about the probed value
        (_Unknown).  None works: it fails whatever they are (re-raised)."""
        ph = self._placeholders
        for stand_in in ("a", 1, (1, 2)):
            a2 = [stand_in if id(a) in ph else a for a in args]
            k2 = {k: (stand_in if id(v) in ph else v) for k, v in kwargs.items()}
            try:
                fn(*a2, **k2)
            except Exception:
                continue
            if self._probe is not None:
                self._probe.risky = True
            raise _Unknown
        raise _Fail

    def _check_absorbed(self, op, val, val_left: bool) -> None:
        """``val <op> Dummy`` worked because a Dummy absorbs arithmetic; if
        it fails with every typical value in the Dummy's place (``None +
        x``), the value survives only if that operand stays a Dummy -- which
        another site the predictor answers may not: risky."""
        for stand_in in ("a", 1, 1.5, (1, 2), [1]):
            try:
                _binop(op, *((val, stand_in) if val_left else (stand_in, val)))
                return
            except Exception:
                continue
        if self._probe is not None:
            self._probe.risky = True

    def _missing_root(self, node: ast.AST) -> bool:
        """Whether an expression reads from a name the snippet never binds
        (and no builtin): injected at run time, most likely a Dummy -- which
        the probe's Dummy then stands for, not a placeholder."""
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return isinstance(node, ast.Name) and node.id not in self.bound and \
            not hasattr(builtins, node.id)

    def _const(self, node: ast.AST):
        """The value of a literal, of a concatenation of literals, or of a
        name the snippet assigns once, at top level, to one; _Unknown
        otherwise."""
        try:
            return _literal(node)
        except _Unknown:
            pass
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = self._const(node.left), self._const(node.right)
            if type(a) is type(b) and isinstance(a, (str, bytes, tuple, list)) and \
                    len(a) + len(b) <= _BIG:
                return a + b
            raise _Unknown
        if isinstance(node, ast.Name) and node.id in self.consts:
            line, v = self.consts[node.id]
            if node.lineno > line:
                return _copy(v)
        raise _Unknown

    def _guarded(self, fn, *args):
        """fn(*args); an exception from a step that involved a placeholder
        says nothing about the probed value (_Unknown)."""
        try:
            return fn(*args)
        except (_Unknown, _Fail):
            raise
        except Exception:
            if any(id(a) in self._placeholders for a in args):
                self._retry(fn, list(args), {})
            raise

    def _step(self, val, cur, par, res: Probe, depth: int):
        """One use of ``val`` (the value of ``cur``) by its parent ``par``:
        the new value, _NOTHING when the probe ends here (survived); raises
        _Fail, _Unknown or the use's own exception."""
        if val is _EITHER:
            return self._either(cur, par, res)
        if isinstance(par, ast.Attribute) and par.value is cur:
            if isinstance(par.ctx, (ast.Store, ast.Del)):
                if _is_dummy(val):
                    return _NOTHING
                raise _Fail                     # builtin values take no new attributes
            if _is_dummy(val):                  # the runtime answers (dunders too)
                return _core.Dummy()
            return getattr(val, par.attr)
        if isinstance(par, ast.Call):
            if par.func is cur:
                if not callable(val):
                    raise _Fail
                if _is_dummy(val):              # its result is a query of its own
                    return _EITHER
                return self._call(val, par, None, None)
            return self._as_argument(val, cur, par)
        if isinstance(par, ast.keyword):
            call = self.parent.get(par)
            if isinstance(call, ast.Call) and par.arg is not None:
                return self._call_with(call, val, par.arg)
            if isinstance(call, ast.Call):           # **val
                if _is_dummy(val) or isinstance(val, dict):
                    return _NOTHING
                raise _Fail
            return _NOTHING
        if isinstance(par, ast.Starred):
            iter(val)
            return _NOTHING
        if isinstance(par, ast.Subscript):
            if par.value is cur:
                return self._subscript(val, par)
            return _NOTHING                          # used as a key: anything hashable-ish
        if isinstance(par, ast.Compare):
            operands = [par.left] + list(par.comparators)
            vals = [val if o is cur else self._other(o) for o in operands]
            return self._guarded(_compare_chain, par.ops, *vals)
        if isinstance(par, ast.BinOp):
            other = self._other(par.right if par.left is cur else par.left)
            left, right = (val, other) if par.left is cur else (other, val)
            out = self._guarded(_binop, par.op, left, right)
            if _is_dummy(other) and not _is_dummy(val):
                self._check_absorbed(par.op, val, par.left is cur)
            return out
        if isinstance(par, ast.UnaryOp):
            return _unaryop(par.op, val)
        if isinstance(par, ast.BoolOp):
            if all(v is cur or isinstance(v, ast.Constant) for v in par.values):
                return _boolop(par, cur, val)
            # `a and b`: a falsy operand decides the whole test (a truthy one
            # for `or`); otherwise the others decide it
            if bool(val) != isinstance(par.op, ast.And):
                return val
            return _EITHER
        if isinstance(par, ast.If) and par.test is cur:
            res.decided += 1
            res.score += self.branch_score(par, bool(val))
            return _NOTHING
        if isinstance(par, ast.While) and par.test is cur:
            res.decided += 1
            res.score += self.loop_score(par, bool(val),
                                         _is_dummy(val) or (depth == 0 and
                                                             self._probing_kind != "name"))
            return _NOTHING
        if isinstance(par, ast.Assert) and par.test is cur:
            res.decided += 1
            res.score += self.rest(par) if val else -RAISE_PENALTY
            return _NOTHING
        if isinstance(par, ast.IfExp) and par.test is cur:
            bool(val)
            return _NOTHING
        if isinstance(par, (ast.For, ast.AsyncFor, ast.comprehension)) and par.iter is cur:
            if isinstance(par, ast.AsyncFor):
                if _is_dummy(val):
                    return _NOTHING
                raise _Fail
            first = next(iter(val), _NOTHING)
            if first is not _NOTHING:
                _unpack(first, par.target)
            elif isinstance(par, ast.For):
                # an empty iterable skips the loop's block (header included)
                res.decided += 1
                res.score -= 1 + sum(self.size(x) for x in par.body)
            return _NOTHING
        if isinstance(par, (ast.Assign, ast.AnnAssign)) and par.value is cur:
            targets = par.targets if isinstance(par, ast.Assign) else [par.target]
            for t in targets:
                if isinstance(t, (ast.Tuple, ast.List)):
                    _unpack(val, t)
                elif isinstance(t, ast.Name) and depth < 1:
                    for rd in self.reads.get(t.id, [])[:10]:
                        if (rd.lineno, rd.col_offset) > (t.lineno, t.col_offset) and \
                                not self._climb(_copy(val), rd, res, depth + 1):
                            raise _Fail
            return _NOTHING
        if isinstance(par, ast.AugAssign):
            if par.target is cur:
                return self._guarded(_binop, par.op, val, self._other(par.value))
            return _NOTHING
        if isinstance(par, ast.withitem) and par.context_expr is cur:
            if _is_dummy(val) or hasattr(type(val), "__enter__"):
                return _NOTHING
            raise _Fail
        if isinstance(par, ast.Raise) and par.exc is cur:
            if isinstance(val, BaseException) or (isinstance(val, type) and
                                                  issubclass(val, BaseException)):
                return _NOTHING
            raise _Fail
        if isinstance(par, ast.Await):
            if _is_dummy(val) or hasattr(type(val), "__await__"):
                return _NOTHING
            raise _Fail
        if isinstance(par, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                cur in par.decorator_list:
            if callable(val):                   # a decorator is called with the function
                return _NOTHING
            raise _Fail
        if isinstance(par, ast.ClassDef) and cur in par.bases:
            if _is_dummy(val) or isinstance(val, type):
                return _NOTHING
            raise _Fail
        if isinstance(par, ast.FormattedValue):
            spec = par.format_spec
            if spec is not None and all(isinstance(v, ast.Constant) for v in spec.values):
                format(val, "".join(str(v.value) for v in spec.values))
            return _NOTHING
        return _NOTHING

    # ------------------------------------------------------------ guards
    def _either(self, cur, par, res: Probe):
        """A step on a value the probe cannot know (what a Dummy's call
        returns is a query of its own): through ``not``, ``and``/``or`` and
        comparisons it stays unknown; a test it reaches counts the better of
        its outcomes."""
        if (isinstance(par, ast.UnaryOp) and isinstance(par.op, ast.Not)) or \
                isinstance(par, (ast.BoolOp, ast.Compare)):
            return _EITHER
        if isinstance(par, ast.If) and par.test is cur:
            res.decided += 1
            res.score += max(self.branch_score(par, True), self.branch_score(par, False))
        elif isinstance(par, ast.While) and par.test is cur:
            res.decided += 1
            res.score += max(self.loop_score(par, True, True), self.loop_score(par, False))
        elif isinstance(par, ast.Assert) and par.test is cur:
            res.decided += 1
            res.score += self.rest(par)
        return _NOTHING

    def loop_score(self, node: ast.While, outcome: bool, bounded: bool = False) -> float:
        """Line markers expected when a ``while`` test is always ``outcome``
        (the same value every time): false skips the block; true runs it and,
        without a ``break``/``return``/``raise``/``exit()`` in it, never
        leaves -- the run ends by its timeout, the worst outcome here --
        unless ``bounded``: the test injects or touches a Dummy on every
        evaluation (a call's result, an attribute of a Dummy, a Dummy's
        truth), so the runtime's loop guard (``_w_``, docs/RUNTIME.md) ends
        the loop after a few iterations as if the test were false."""
        if not outcome:
            return self.rest(node) + sum(self.size(x) for x in node.orelse)
        body = 1 + sum(self.size(x) for x in node.body)
        leaves = any(isinstance(n, (ast.Break, ast.Return, ast.Raise)) or
                     (isinstance(n, ast.stmt) and _is_exit_call(n))
                     for x in node.body for n in ast.walk(x))
        if leaves:
            return body + self.rest(node)
        if bounded:
            return body + self.rest(node) + sum(self.size(x) for x in node.orelse)
        return -1.0

    def size(self, stmt: ast.AST) -> int:
        """_size, remembered per statement."""
        n = self._sizes.get(stmt)
        if n is None:
            n = self._sizes[stmt] = _size(stmt)
        return n

    def rest(self, stmt: ast.stmt) -> int:
        """Line markers after ``stmt`` until the snippet ends, if all run:
        the rest of its block, then of the enclosing blocks (a loop's too),
        up to the enclosing function."""
        n, cur = 0, stmt
        for _ in range(64):
            par = self.parent.get(cur)
            if par is None or isinstance(par, (ast.FunctionDef, ast.AsyncFunctionDef,
                                               ast.ClassDef, ast.Lambda)):
                return n
            for field in ("body", "orelse", "finalbody"):
                block = getattr(par, field, None)
                if isinstance(block, list) and cur in block:
                    n += sum(self.size(x) for x in block[block.index(cur) + 1:])
                    break
            cur = par
        return n

    def branch_score(self, node: ast.If, outcome: bool) -> float:
        """Line markers expected when the test of ``node`` is ``outcome``:
        the header (counted when its block is entered), the branch up to a
        statement that leaves (raise, return, exit(), break, continue), and
        what follows the ``if`` unless the branch left; an exception ending
        the run weighs RAISE_PENALTY less."""
        n = 1.0 if outcome else 0.0
        for s in (node.body if outcome else node.orelse):
            n += self.size(s)
            if isinstance(s, ast.Raise):
                return n - RAISE_PENALTY
            if isinstance(s, ast.Return) or _is_exit_call(s):
                return n
            if isinstance(s, (ast.Break, ast.Continue)):
                loop = self.parent.get(node)
                while loop is not None and not isinstance(loop, (ast.For, ast.While,
                                                                 ast.AsyncFor)):
                    loop = self.parent.get(loop)
                return n + (self.rest(loop) if loop is not None else 0)
        return n + self.rest(node)

    # ------------------------------------------------------------ steps
    def _args(self, call: ast.Call, val=_NOTHING, slot=None):
        """Positional and keyword arguments of ``call``: literals as they
        are, ``val`` in ``slot`` (an index or keyword), Dummies elsewhere."""
        args, kwargs = [], {}
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Starred):
                raise _Unknown
            args.append(val if slot == i else self._other(a))
        for k in call.keywords:
            if k.arg is None:
                raise _Unknown
            kwargs[k.arg] = val if slot == k.arg else self._other(k.value)
        return args, kwargs

    def _call(self, fn, call: ast.Call, val, slot):
        if _is_dummy(fn):
            return _core.Dummy()
        owner = getattr(fn, "__self__", None)
        safe = (isinstance(owner, _BUILTIN_TYPES) and getattr(fn, "__module__", None) is None) \
            or fn in _PURE_FUNCS
        if not safe:
            raise _Unknown
        args, kwargs = self._args(call, val, slot)
        try:
            return fn(*args, **kwargs)
        except Exception:
            if any(id(a) in self._placeholders for a in list(args) + list(kwargs.values())):
                self._retry(fn, args, kwargs)  # may be the placeholder's fault
            raise

    def _callee(self, call: ast.Call):
        """The callable at ``call.func`` when the probe may call it: a pure
        builtin the snippet does not rebind, or a method of a literal."""
        f = call.func
        if isinstance(f, ast.Name) and f.id in _PURE_BUILTINS and f.id not in self.bound:
            return getattr(builtins, f.id)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Constant) and \
                isinstance(f.value.value, (str, bytes)) and len(f.value.value) <= _BIG:
            return getattr(f.value.value, f.attr)
        raise _Unknown

    def _as_argument(self, val, cur, call: ast.Call):
        if cur in call.args:
            return self._call_with(call, val, call.args.index(cur))
        return _NOTHING

    def _call_with(self, call: ast.Call, val, slot):
        try:
            fn = self._callee(call)
        except _Unknown:
            return self._constraint(call, val, slot)
        return self._call(fn, call, val, slot)

    def _constraint(self, call: ast.Call, val, slot):
        """An argument of a callee the knowledge's constraint table knows
        (``os.path.join``, ``open``, ``re.match``, ...; lexecutor_c.knowledge):
        the value must satisfy its spec.  Only for callees that are what their
        name says: a builtin the snippet does not rebind, or reached through a
        module the snippet imports (a missing module is a Dummy, which takes
        any argument)."""
        name = _dotted(call.func)
        if name is None:
            raise _Unknown
        root = name.split(".")[0]
        if not (root in self.imported or (root not in self.bound and hasattr(builtins, root))):
            raise _Unknown
        spec = constraint_for(name, slot)
        if spec is None:
            raise _Unknown
        kind = spec.kind
        if kind.startswith("path:") and kind != "path:w" and not _writes(call):
            raise _Fail                # no injected value names an existing file
        if not satisfies(val, spec):
            raise _Fail
        return _NOTHING

    def _subscript(self, val, par: ast.Subscript):
        if _is_dummy(val):
            return _NOTHING if not isinstance(par.ctx, ast.Load) else _core.Dummy()
        sl = par.slice
        if isinstance(par.ctx, ast.Load) and not hasattr(type(val), "__getitem__"):
            raise _Fail                            # None, numbers, ...
        if isinstance(sl, ast.Slice):
            try:
                key = slice(*(None if p is None else self._const(p)
                              for p in (sl.lower, sl.upper, sl.step)))
            except _Unknown:
                # bounds only known at run time: slicing a sequence never
                # fails on them, a mapping always does
                if isinstance(val, (dict, set, frozenset)):
                    raise _Fail from None
                return val[:] if isinstance(par.ctx, ast.Load) else _NOTHING
        else:
            try:
                key = self._const(sl)
            except _Unknown:
                # a key only known at run time on a real container: a dict
                # lacks it, a one-item list is out of range for most indices
                raise _Fail from None
        if isinstance(par.ctx, ast.Store):
            val[key] = _core.Dummy()
            return _NOTHING
        if isinstance(par.ctx, ast.Del):
            del val[key]
            return _NOTHING
        return val[key]



_PURE_FUNCS = frozenset(getattr(builtins, n) for n in _PURE_BUILTINS)




class _Fail(Exception):
    """The value certainly does not survive this use."""


def _writes(call: ast.Call) -> bool:
    """open(path, mode) with a literal mode that creates or appends."""
    mode = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and \
        any(c in mode.value for c in "wax")


def _parse(source: str) -> Optional[ast.AST]:
    try:
        return compile(source, "<uses>", "exec",
                       ast.PyCF_ONLY_AST | getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0),
                       dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _copy(v):
    if isinstance(v, (list, dict, set)):
        return v.copy()
    return v


def _unpack(val, target: ast.AST) -> None:
    if not isinstance(target, (ast.Tuple, ast.List)):
        return
    if any(isinstance(e, ast.Starred) for e in target.elts):
        need = len(target.elts) - 1
        got = sum(1 for _ in zip(range(need + 1), iter(val)))
        if got < need:
            raise _Fail
        return
    items = [x for _, x in zip(range(len(target.elts) + 1), iter(val))]
    if len(items) != len(target.elts):
        raise _Fail


_BINOPS = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b, ast.MatMult: lambda a, b: a @ b,
    ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
    ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
    ast.BitAnd: lambda a, b: a & b,
}


def _binop(op, a, b):
    if isinstance(op, ast.Pow):
        if isinstance(b, (int, float)) and abs(b) > 64:
            raise _Unknown
        return a ** b
    if isinstance(op, (ast.Mult, ast.LShift)):
        for x in (a, b):
            if isinstance(x, int) and not isinstance(x, bool) and abs(x) > _BIG:
                raise _Unknown
    fn = _BINOPS.get(type(op))
    if fn is None:
        raise _Unknown
    return fn(a, b)


def _unaryop(op, v):
    if isinstance(op, ast.Not):
        return not v
    if isinstance(op, ast.USub):
        return -v
    if isinstance(op, ast.UAdd):
        return +v
    if isinstance(op, ast.Invert):
        return ~v
    raise _Unknown


def _boolop(par: ast.BoolOp, cur, val):
    vals = [val if v is cur else _literal(v) for v in par.values]
    out = vals[0]
    for v in vals[1:]:
        if isinstance(par.op, ast.And):
            out = out and v
        else:
            out = out or v
    return out


def _compare_chain(ops, *vals) -> bool:
    for op, a, b in zip(ops, vals, vals[1:]):
        if not _cmp(op, a, b):
            return False
    return True


def _cmp(op, a, b) -> bool:
    if isinstance(op, ast.Eq):
        return bool(a == b)
    if isinstance(op, ast.NotEq):
        return bool(a != b)
    if isinstance(op, ast.Lt):
        return bool(a < b)
    if isinstance(op, ast.LtE):
        return bool(a <= b)
    if isinstance(op, ast.Gt):
        return bool(a > b)
    if isinstance(op, ast.GtE):
        return bool(a >= b)
    if isinstance(op, ast.Is):
        return a is b
    if isinstance(op, ast.IsNot):
        return a is not b
    if isinstance(op, ast.In):
        return a in b
    if isinstance(op, ast.NotIn):
        return a not in b
    raise _Unknown


def site_uses(source: str, sites) -> Optional[Uses]:
    """A Uses for the snippet, or None when it does not parse."""
    u = Uses(source, sites)
    return u if u.tree is not None else None


__all__ = ["Uses", "Probe", "site_uses"]
