"""Which values the failing operation of a crash used, and whether any of
them was injected or computed from an injected value (``lexecutor-c errors``,
and the verdicts of ``pytest --lexecute``; it lives in the engine so that both
apps/ and integrations/ may use it, and imports nothing of lexecutor_c).

Two halves, both cheap because they run only once a run has failed:

**The failing operation** (``failing_operation``, in the sandbox child, at
the exception).  The innermost traceback entry in the analysed file gives a
frame and ``tb_lasti``, the offset of the instruction that raised.  Its
source span (``co_positions``: line, end line, columns) is located in the
parsed *instrumented* source (line numbers mapped back as
``Instrumented.compile`` does), which names the expression that failed:
``r ** 2`` (a ``BINARY_OP``), ``int(s)`` (a ``CALL`` of ``_c_``), ``a[i]``,
``for x in v`` (``GET_ITER`` on ``v``), ``a, b = v`` (``UNPACK_SEQUENCE``).
Its *operands* are the direct sub-expressions the operation consumed
(left and right, callee and arguments, container and key, ...).  For each
operand we keep

* the iids of the loaders inside it (``_n_``, ``_a_``, ``_c_``): an iid the
  runtime injected at in this run means the operand holds an injected value
  or one computed from it within the same expression (``int(n) + 'a'``);
* the names it reads (loader names and plain names) for the static half;
* whether its value, when the operand is a plain name, is an injected
  object (a ``Dummy``, ``DummyResource``, or a list/tuple/dict holding one),
  read from the failing frame.

The operands are also written back as source (the loaders removed), so the
report shows the failing operation as the user wrote it.

**Derived values** (``Dependence``, in the parent).  A flow-insensitive,
per-file closure over names: data flow (assignments, augmented assignments,
loop and ``with`` targets, walrus, comprehension targets), control flow
(what a body assigns depends on the names its ``if``/``while``/``for``/
``match`` header reads), mutation (``xs.append(v)``, ``d[k] = v`` make
``xs``/``d`` depend on ``v`` and ``k``), and functions of the file (a
function's name depends on the names its body reads; its parameters on
the names its call sites pass).  Each name carries the set of *sources* it
may be computed from: the names injected in the run, the names a Treefix
prefix binds to generated values, the targets of statements where an
attribute or a call result was injected, and ``<stdin>`` for values read
from standard input when no input was given.

Sound in the direction that matters for a "real" verdict: a value that the
code computes from a source by assignments, loops, branches, mutation of
named containers or the file's own functions is always flagged.  It
over-approximates (a name reassigned later from clean values stays
flagged), which costs "real" verdicts, not false ones; the group rule of
errors.py (a crash that happens for every injected value is real) wins
those back.  Not seen: values flowing through object attributes set in one
statement and read in another (``self.x = n`` ... ``self.x + 1``: ``self``
is flagged, so attribute reads of it are), and through library state.
"""
from __future__ import annotations

import ast
import dis
from typing import Iterable, Optional

__all__ = ["failing_operation", "operation_at", "Dependence", "bound_names", "stdin_reads",
           "STDIN", "is_injected_value", "control_header", "operands_of", "strip"]

#: the instrumenter's loaders and loop guards (``_w_``/``_f_`` wrap a while
#: condition / a for iterable)
LOADERS = ("_n_", "_a_", "_c_", "_l_", "_i_", "_w_", "_f_")
#: the pseudo-source of values read from standard input
STDIN = "<stdin>"


# ================================================================ the child side


def control_header(node: ast.AST) -> "ast.expr | None":
    """The expression that decides whether *node*'s body runs (an if/while
    test, a for loop's iterable, a match subject), or None."""
    if isinstance(node, (ast.If, ast.While)):
        return node.test
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return node.iter
    if isinstance(node, ast.Match):
        return node.subject
    return None


def is_injected_value(v, depth: int = 1) -> bool:
    """An injected object (Dummy, DummyResource), or a list/tuple/set/dict
    holding one (one level deep)."""
    t = type(v)
    if t.__module__ == "lexecutor_c._core" and t.__name__ in ("Dummy", "DummyResource"):
        return True
    if depth > 0 and t in (list, tuple, set, frozenset, dict):
        try:
            items = list(v.values())[:50] + list(v)[:50] if t is dict else list(v)[:50]
        except Exception:
            return False
        return any(is_injected_value(x, depth - 1) for x in items)
    return False


def _mapped_tree(source: str, line_map: Optional[list]) -> Optional[ast.AST]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    if line_map:
        top = len(line_map)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) is not None:
                node.lineno = line_map[min(node.lineno, top) - 1]
                end = getattr(node, "end_lineno", None)
                if end is not None:
                    node.end_lineno = max(line_map[min(end, top) - 1], node.lineno)
    return tree


def _instruction_at(code, lasti: int):
    for ins in dis.get_instructions(code):
        if ins.offset == lasti:
            return ins
    return None


def _span(node) -> tuple:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


_INDEXES: dict = {}


def _index(tree: ast.AST) -> tuple:
    """(exact span -> the deepest node with it, start line -> nodes) of a tree, cached
    while the tree lives (the pytest plugin asks once per traceback entry)."""
    hit = _INDEXES.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1], hit[2]
    exact: dict = {}
    by_line: dict = {}
    for node in ast.walk(tree):      # breadth first: a later node with a span is deeper
        if not isinstance(node, (ast.expr, ast.stmt)) or getattr(node, "end_lineno", None) is None:
            continue
        exact[_span(node)] = node
        by_line.setdefault(node.lineno, []).append(node)
    if len(_INDEXES) > 64:
        _INDEXES.clear()
    _INDEXES[id(tree)] = (tree, exact, by_line)
    return exact, by_line


def _find_node(tree: ast.AST, pos) -> Optional[ast.AST]:
    """The innermost expression (or else statement) spanning exactly ``pos``
    (lineno, end_lineno, col, end_col); failing that, the smallest node
    containing it."""
    want = (pos.lineno, pos.col_offset, pos.end_lineno, pos.end_col_offset)
    if None in want:
        return None
    exact_index, by_line = _index(tree)
    if want in exact_index:
        return exact_index[want]
    best, best_size = None, None
    for node in (n for line in sorted(by_line) if line <= want[0] for n in by_line[line]):
        if not isinstance(node, (ast.expr, ast.stmt)) or getattr(node, "end_lineno", None) is None:
            continue
        s = _span(node)
        if (s[0], s[1]) <= (want[0], want[1]) and (s[2], s[3]) >= (want[2], want[3]):
            size = (s[2] - s[0], s[3] - s[1] if s[2] == s[0] else 10**6)
            if best_size is None or size < best_size:
                best, best_size = node, size
    return best


def _loader(node) -> Optional[str]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in LOADERS and node.args and isinstance(node.args[0], ast.Constant):
        return node.func.id
    return None


def _op_call(node) -> bool:
    """``_op_.iadd(a, b)``: the rewrite of ``x += b`` on a possibly unbound x."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        isinstance(node.func.value, ast.Name) and node.func.value.id == "_op_"


def operands_of(node: ast.AST) -> list:
    """The sub-expressions a failing (instrumented) node consumed."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.Subscript):
        return [node.value, node.slice]
    if isinstance(node, ast.Attribute):
        return [node.value]
    if isinstance(node, ast.Call):
        kind = _loader(node)
        if kind == "_c_":
            return [a for a in node.args[1:]] + [k.value for k in node.keywords]
        if kind == "_a_":
            return node.args[1:2]
        if kind in ("_w_", "_f_"):
            return node.args[1:2]
        if kind in ("_n_", "_l_", "_i_"):
            return [node]
        return [node.func, *node.args, *[k.value for k in node.keywords]]
    if isinstance(node, ast.AugAssign):
        return [node.target, node.value]
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        return [node.value]
    if isinstance(node, ast.FormattedValue):
        return [node.value]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.iter]
    if isinstance(node, ast.comprehension):
        return [node.iter]
    if isinstance(node, ast.Starred):
        return [node.value]
    if isinstance(node, ast.Expr):
        return [node.value]
    return [node]


class _Strip(ast.NodeTransformer):
    """Instrumented expression -> the expression as written."""

    def visit_Call(self, node):
        kind = _loader(node)
        if kind == "_n_" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            return ast.copy_location(ast.Name(str(node.args[1].value), ast.Load()), node)
        if kind == "_a_" and len(node.args) >= 3 and isinstance(node.args[2], ast.Constant):
            obj = self.visit(node.args[1])
            return ast.copy_location(ast.Attribute(obj, str(node.args[2].value), ast.Load()),
                                     node)
        if kind == "_c_" and len(node.args) >= 2:
            fn = self.visit(node.args[1])
            args = [self.visit(a) for a in node.args[2:]]
            kws = [self.visit(k) for k in node.keywords]
            return ast.copy_location(ast.Call(fn, args, kws), node)
        if kind == "_w_" and len(node.args) == 1:       # `for [] in _w_(m)`: while True
            return ast.copy_location(ast.Constant(True), node)
        if kind in ("_l_", "_w_", "_f_"):
            return self.visit(node.args[1]) if len(node.args) > 1 else \
                ast.copy_location(ast.Constant(None), node)
        if _op_call(node) and len(node.args) == 2:
            ops = {"iadd": ast.Add, "isub": ast.Sub, "imul": ast.Mult, "itruediv": ast.Div,
                   "ifloordiv": ast.FloorDiv, "imod": ast.Mod, "ipow": ast.Pow,
                   "imatmul": ast.MatMult, "iand": ast.BitAnd, "ior": ast.BitOr,
                   "ixor": ast.BitXor, "ilshift": ast.LShift, "irshift": ast.RShift}
            op = ops.get(node.func.attr)
            if op is not None:
                return ast.copy_location(ast.BinOp(self.visit(node.args[0]), op(),
                                                   self.visit(node.args[1])), node)
        return self.generic_visit(node)

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        vals = [v for v in node.values
                if not (isinstance(v, ast.Constant) and v.value is None)]
        if len(vals) == 1:
            return vals[0]
        node.values = vals or node.values
        return node


def strip(node: ast.AST) -> ast.AST:
    import copy
    out = _Strip().visit(copy.deepcopy(node))
    return ast.fix_missing_locations(out)


def _text(node: ast.AST, limit: int = 200) -> str:
    try:
        s = ast.unparse(strip(node))
    except Exception:
        return "?"
    return s if len(s) <= limit else s[:limit - 3] + "..."


def _iids_and_names(node: ast.AST) -> tuple[list, list]:
    iids, names = [], []
    for n in ast.walk(node):
        kind = _loader(n)
        if kind in ("_n_", "_a_", "_c_"):
            iids.append(n.args[0].value)
            if kind == "_n_" and len(n.args) >= 2 and isinstance(n.args[1], ast.Constant):
                names.append(str(n.args[1].value))
        elif isinstance(n, ast.Name) and n.id not in LOADERS and n.id != "_op_":
            names.append(n.id)
    return sorted(set(i for i in iids if isinstance(i, int))), sorted(set(names))


def failing_operation(exc: BaseException, filename: str, inst, offset: int = 0) -> Optional[dict]:
    """What the innermost frame of ``filename`` was doing when ``exc`` was
    raised: ``{"line", "opname", "text", "operands": [{"text", "iids",
    "names", "injected_value", "direct_iid", "stdin"}]}`` (lines in the
    file's numbering, i.e. minus ``offset``; ``direct_iid``: the iid of the
    loader that produced the operand itself, ``stdin``: the operand reads
    standard input), or None when it cannot be told."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            last = tb
        tb = tb.tb_next
    if last is None:
        return None
    return operation_at(last, inst, offset)


_TREES: dict = {}


def _cached_tree(inst) -> Optional[ast.AST]:
    key = (id(inst), inst.source)
    hit = _TREES.get(key)
    if hit is None or hit[0] is not inst:
        if len(_TREES) > 256:
            _TREES.clear()
        hit = _TREES[key] = (inst, _mapped_tree(inst.source, inst.line_map))
    return hit[1]


def operation_at(tb, inst, offset: int = 0) -> Optional[dict]:
    """The operation one traceback entry ``tb`` (its frame runs the instrumented code of
    ``inst``) was executing: the instruction that raised, or for an outer entry the call
    that led to the inner ones; the same dict as :func:`failing_operation`, or None."""
    try:
        ins = _instruction_at(tb.tb_frame.f_code, tb.tb_lasti)
    except Exception:
        return None
    if ins is None or ins.positions is None:
        return None
    tree = _cached_tree(inst)
    if tree is None:
        return None
    node = _find_node(tree, ins.positions)
    if node is None:
        return None
    frame = tb.tb_frame
    try:
        scope = {**frame.f_globals, **frame.f_locals}
    except Exception:
        scope = {}
    ops = []
    for o in operands_of(node):
        iids, names = _iids_and_names(o)
        plain = strip(o)
        value_injected = False
        if isinstance(plain, ast.Name) and plain.id in scope:
            try:
                value_injected = is_injected_value(scope[plain.id])
            except Exception:
                value_injected = False
        top = o.value if isinstance(o, ast.Starred) else o
        direct = top.args[0].value if _loader(top) in ("_n_", "_a_", "_c_") else None
        ops.append({"text": _text(o), "iids": iids, "names": names,
                    "injected_value": value_injected, "direct_iid": direct,
                    "stdin": stdin_reads(plain)})
    return {"line": tb.tb_lineno - offset, "opname": ins.opname, "text": _text(node),
            "operands": ops}


# ================================================================ the static side

def _targets(node) -> set:
    """Names a store target binds or mutates: ``a`` of ``a``, ``a, *b``,
    ``a[k]`` and ``a.x`` (not ``k``)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Tuple, ast.List)):
        return set().union(*(_targets(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, ast.Starred):
        return _targets(node.value)
    if isinstance(node, (ast.Subscript, ast.Attribute)):
        return _targets(node.value)
    return set()


def _reads(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


_MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "push",
                       "appendleft", "extendleft", "put", "write", "__setitem__", "discard",
                       "remove", "pop", "popleft", "sort", "reverse", "clear"})


def bound_names(tree: ast.AST, imports: bool = True) -> set:
    """Names a module binds at its top level (assignments, defs, classes,
    and, with ``imports``, imports)."""
    out: set = set()
    for s in getattr(tree, "body", []):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, ast.Assign):
            for t in s.targets:
                out |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            out |= {n.id for n in ast.walk(s.target) if isinstance(n, ast.Name)}
        elif isinstance(s, (ast.Import, ast.ImportFrom)) and imports:
            for a in s.names:
                out.add((a.asname or a.name).split(".")[0])
    return out


def _is_stdin_read(call: ast.Call) -> bool:
    f = call.func
    if isinstance(f, ast.Name) and f.id in ("input", "raw_input"):
        return True
    if isinstance(f, ast.Name) and f.id == "open" and call.args and \
            isinstance(call.args[0], ast.Constant) and call.args[0].value == 0:
        return True
    chain = []
    while isinstance(f, ast.Attribute):
        chain.append(f.attr)
        f = f.value
    if isinstance(f, ast.Name):
        chain.append(f.id)
    return "stdin" in chain


def stdin_reads(node: ast.AST) -> bool:
    """Whether the expression or statement reads standard input (``input()``,
    ``sys.stdin...``, ``open(0)``, iterating ``sys.stdin``)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and _is_stdin_read(n):
            return True
        if isinstance(n, ast.Attribute) and n.attr == "stdin":
            return True
    return False


class Dependence:
    """The closure over names of one file (module docstring).

    ``sources_of(names, seeds)`` -> {source: [names through which it
    reaches]} for seeds ``{name: source}``."""

    def __init__(self, tree: ast.AST):
        self.tree = tree
        self.edges: list[tuple[frozenset, frozenset]] = []     # (targets, reads)
        self.functions: dict[str, ast.AST] = {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(node.name, node)
        self._walk(tree, frozenset())
        for name, fn in self.functions.items():
            body_reads = set()
            for s in fn.body:
                body_reads |= _reads(s)
            self._add({name}, body_reads)
        self._stdin_targets: set = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If,
                           ast.While, ast.Try, ast.With)) and stdin_reads(node):
                self._stdin_targets |= self.assigned(node)

    def _add(self, targets, reads):
        targets, reads = frozenset(targets), frozenset(reads)
        if targets and reads:
            self.edges.append((targets, reads))

    def _walk(self, node, control: frozenset) -> None:
        add = self._add
        if isinstance(node, ast.Assign):
            add(set().union(*(_targets(t) for t in node.targets)), _reads(node.value) | control |
                set().union(*(_reads(t) for t in node.targets)))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            add(_targets(node.target), _reads(node.value) | _reads(node.target) | control)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            add(_targets(node.target), _reads(node.iter) | control)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            add(_targets(node.optional_vars), _reads(node.context_expr) | control)
        elif isinstance(node, ast.NamedExpr):
            add(_targets(node.target), _reads(node.value) | control)
        elif isinstance(node, ast.Call):
            f = node.func
            arg_reads = set()
            for a in node.args:
                arg_reads |= _reads(a)
            for k in node.keywords:
                arg_reads |= _reads(k.value)
            # xs.append(v): the receiver depends on what is put in
            if isinstance(f, ast.Attribute) and f.attr in _MUTATORS:
                recv = f.value
                while isinstance(recv, (ast.Attribute, ast.Subscript)):
                    recv = recv.value
                if isinstance(recv, ast.Name):
                    add({recv.id}, arg_reads | control)
            # f(a): the parameters of the file's own f depend on the arguments
            if isinstance(f, ast.Name) and f.id in self.functions:
                fn = self.functions[f.id]
                params = {a.arg for a in fn.args.posonlyargs + fn.args.args +
                          fn.args.kwonlyargs}
                for extra in (fn.args.vararg, fn.args.kwarg):
                    if extra is not None:
                        params.add(extra.arg)
                add(params, arg_reads | control)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            add({node.name}, control)
        header = control_header(node)
        inner = control | frozenset(_reads(header)) if header is not None else control
        for field_name, value in ast.iter_fields(node):
            in_body = field_name in ("body", "orelse", "cases")
            for child in (value if isinstance(value, list) else [value]):
                if isinstance(child, ast.AST):
                    self._walk(child, inner if in_body else control)

    @staticmethod
    def assigned(stmt: ast.AST) -> set:
        """Names a simple statement binds or mutates."""
        out: set = set()
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                out |= _targets(t)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            out |= _targets(stmt.target)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            out |= _targets(stmt.target)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for it in stmt.items:
                if it.optional_vars is not None:
                    out |= _targets(it.optional_vars)
        for n in ast.walk(stmt):
            if isinstance(n, ast.NamedExpr):
                out |= _targets(n.target)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    n.func.attr in _MUTATORS:
                recv = n.func.value
                while isinstance(recv, (ast.Attribute, ast.Subscript)):
                    recv = recv.value
                if isinstance(recv, ast.Name):
                    out.add(recv.id)
        return out

    def statement_at(self, line: int, col: int = 0) -> Optional[ast.stmt]:
        """The innermost statement containing (line, col); for a compound
        statement whose header holds the position, the statement itself."""
        best = None
        for node in ast.walk(self.tree):
            if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
                if best is None or node.lineno >= best.lineno:
                    best = node
        return best

    @property
    def stdin_targets(self) -> set:
        return set(self._stdin_targets)

    def labels(self, seeds: dict) -> dict:
        """name -> set of sources, for seeds ``{name: {sources}}``."""
        lab: dict = {n: set(s) for n, s in seeds.items()}
        changed = True
        while changed:
            changed = False
            for targets, reads in self.edges:
                got: set = set()
                for r in reads:
                    s = lab.get(r)
                    if s:
                        got |= s
                if not got:
                    continue
                for t in targets:
                    cur = lab.setdefault(t, set())
                    if not got <= cur:
                        cur |= got
                        changed = True
        return lab

    def sources_of(self, names: Iterable[str], seeds: dict) -> dict:
        lab = self.labels(seeds)
        out: dict = {}
        for n in names:
            for s in lab.get(n, ()):
                out.setdefault(s, set()).add(n)
        return {k: sorted(v) for k, v in out.items()}
