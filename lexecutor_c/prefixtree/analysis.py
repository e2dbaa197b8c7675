"""Static facts about a snippet for Treefix prefix generation.

Two sources:

* the instrumenter's undefined-reference analysis
  (``lexecutor_c.instrument(src).undefined``: names read but bound nowhere a
  read can see, with scopes done right, attribute and call arities), which
  decides *which* names a prefix has to define;
* a walk over Python's ``ast`` that follows each undefined name through
  attribute chains, calls, subscripts, simple assignments (``r = f(x)``,
  ``self.email = r(a, b)``) and loop targets, and records how every value
  on the way is used: compared with which constants, tested for None,
  iterated, unpacked, used as a path, raised from inside a ``try``.  The
  offline generator turns these facts into values; the branch guards
  (which names decide whether a line runs) drive coverage guidance.
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Optional

STR_METHODS = {
    "startswith", "endswith", "split", "rsplit", "strip", "lstrip", "rstrip", "lower", "upper",
    "replace", "format", "encode", "join", "find", "rfind", "splitlines", "isdigit", "isalpha",
    "title", "capitalize", "casefold", "partition", "rpartition", "zfill", "center", "ljust",
    "rjust", "isspace", "isupper", "islower", "count", "index", "decode", "format_map",
}
LIST_METHODS = {"append", "extend", "pop", "sort", "insert", "remove", "reverse", "clear",
                "copy", "index", "count"}
DICT_METHODS = {"items", "keys", "values", "get", "setdefault", "update", "pop", "popitem",
                "clear", "copy"}
PATH_FUNCS = {"open", "os.path.exists", "os.path.isfile", "os.path.isdir", "os.listdir",
              "os.path.join", "os.path.basename", "os.path.dirname", "os.path.splitext",
              "os.stat", "os.remove", "Path", "pathlib.Path", "pd.read_csv", "np.load",
              "np.loadtxt", "json.load", "shutil.copy"}
ITER_FUNCS = {"enumerate", "zip", "sorted", "list", "tuple", "set", "sum", "min", "max", "any",
              "all", "map", "filter", "reversed", "dict", "frozenset", "iter", "next"}


@dataclass
class Node:
    """One value reachable from an undefined name: the name itself, an
    attribute of a node (``path`` 'self.email'), a call result ('f()') or
    an element ('xs[]')."""

    path: str
    attrs: dict = field(default_factory=dict)        # attr -> Node
    ret: Optional["Node"] = None                      # result of calling it
    item: Optional["Node"] = None                     # element (iteration, [int])
    arities: set = field(default_factory=set)         # call arities seen
    uses: set = field(default_factory=set)            # kinds of use, see _use()
    keys: list = field(default_factory=list)          # str subscripts / dict keys
    int_keys: list = field(default_factory=list)      # int subscripts
    compared: list = field(default_factory=list)      # (op, constant value)
    contains: list = field(default_factory=list)      # constants c with `c in node`
    member_of: list = field(default_factory=list)     # constants: `node in (...)`
    isinstance_of: list = field(default_factory=list)  # type names
    raises: list = field(default_factory=list)        # exception names to reach handlers
    width: Optional[int] = None                       # unpacked into so many names
    lines: set = field(default_factory=set)
    written: set = field(default_factory=set)         # attributes the snippet assigns
    arg_specs: list = field(default_factory=list)     # use-site constraints (knowledge specs)

    def attr(self, name: str) -> "Node":
        n = self.attrs.get(name)
        if n is None:
            n = self.attrs[name] = Node(f"{self.path}.{name}")
        return n

    def result(self) -> "Node":
        if self.ret is None:
            self.ret = Node(f"{self.path}()")
        return self.ret

    def element(self) -> "Node":
        if self.item is None:
            self.item = Node(f"{self.path}[]")
        return self.item

    def walk(self):
        yield self
        for c in list(self.attrs.values()) + [self.ret, self.item]:
            if c is not None:
                yield from c.walk()


@dataclass
class SnippetFacts:
    source: str
    undefined: list                  # the instrumenter's UndefinedName records
    roots: dict                      # name -> Node, in order of first use
    constants: list                  # literal strings and numbers, in order, unique
    guards: dict                     # line -> list of node paths deciding whether it runs
    handler_lines: dict              # except-clause line -> exception names
    files: list                      # constant strings that look like file names
    kwargs_names: set = field(default_factory=set)
    required_files: dict = field(default_factory=dict)  # constant path -> spec ('path:image')
    imports: dict = field(default_factory=dict)         # the snippet's own: bound name -> module

    def node(self, path: str) -> Optional[Node]:
        for r in self.roots.values():
            for n in r.walk():
                if n.path == path:
                    return n
        return None

    def nodes_on_line(self, line: int) -> list:
        out = []
        for r in self.roots.values():
            for n in r.walk():
                if line in n.lines:
                    out.append(n)
        return out


def _const(e: ast.AST):
    """The Python value of a literal expression (constant, -constant,
    tuple/list/set of constants); raises ValueError otherwise."""
    return ast.literal_eval(e)


def _dotted(e: ast.AST) -> Optional[str]:
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        base = _dotted(e.value)
        return None if base is None else f"{base}.{e.attr}"
    return None


def _arity(call: ast.Call) -> int:
    if any(isinstance(a, ast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return -1
    return len(call.args)


class _Miner(ast.NodeVisitor):
    def __init__(self, names: set):
        self.names = names
        self.roots: dict[str, Node] = {}
        self.alias: dict[str, Node] = {}
        self.guard_stack: list[list[str]] = []
        self.try_stack: list[list[str]] = []
        self.guards: dict[int, list[str]] = {}
        self.handler_lines: dict[int, list[str]] = {}
        self.constants: list = []
        self.parents: dict[int, ast.AST] = {}
        self.imports: dict[str, str] = {}
        self.required_files: dict[str, str] = {}

    # -- use-site constraints (lexecutor_c.knowledge.constraints)
    def callee_qualname(self, func: ast.AST) -> Optional[str]:
        """The qualified name of a callee as the constraint table spells it:
        the snippet's imports expanded (``np.zeros`` -> ``numpy.zeros`` after
        ``import numpy as np``), methods of literals as ``str.join``."""
        d = _dotted(func)
        if d is not None:
            head, _, rest = d.partition(".")
            if head in self.imports:
                return self.imports[head] + ("." + rest if rest else "")
            return d
        if isinstance(func, ast.Attribute):
            v = func.value
            if isinstance(v, ast.Constant) and isinstance(v.value, (str, bytes)):
                return f"{type(v.value).__name__}.{func.attr}"
            if isinstance(v, (ast.List, ast.ListComp)):
                return f"list.{func.attr}"
            if isinstance(v, (ast.Dict, ast.DictComp)):
                return f"dict.{func.attr}"
            if isinstance(v, ast.JoinedStr):
                return f"str.{func.attr}"
        return None

    def constrain(self, node: Optional[Node], spec: Optional[str]):
        if node is not None and spec and spec not in node.arg_specs:
            node.arg_specs.append(spec)

    def call_constraints(self, e: ast.Call):
        from ..knowledge.constraints import constraint_for, format_string_fields, \
            known_callee
        qual = self.callee_qualname(e.func)
        if qual is not None and not known_callee(qual) and isinstance(e.func, ast.Attribute) \
                and e.func.attr == "join" and len(e.args) == 1:
            qual = "str.join"              # sep.join(xs): a str method, whatever sep is
        if qual is None:
            return
        if qual == "str.format" and isinstance(e.func, ast.Attribute) and \
                isinstance(e.func.value, ast.Constant):
            for key, kind in format_string_fields(e.func.value.value):
                if kind is None:
                    continue
                if isinstance(key, int) and key < len(e.args):
                    self.constrain(self.resolve(e.args[key], e.lineno), kind)
                for k in e.keywords:
                    if k.arg == key:
                        self.constrain(self.resolve(k.value, e.lineno), kind)
            return
        if not known_callee(qual):
            return
        writing = False
        if qual in ("open", "builtins.open", "io.open"):
            mode = e.args[1] if len(e.args) > 1 else next(
                (k.value for k in e.keywords if k.arg == "mode"), None)
            writing = isinstance(mode, ast.Constant) and isinstance(mode.value, str) and \
                any(c in mode.value for c in "wax")
        args = [(i, a) for i, a in enumerate(e.args)]
        args += [(k.arg, k.value) for k in e.keywords if k.arg]
        for key, a in args:
            if isinstance(a, ast.Starred):
                break
            spec = constraint_for(qual, key)
            if spec is None:
                continue
            text = str(spec)
            if writing and text.startswith("path"):
                text = "path:w"
            node = self.resolve(a, e.lineno)
            if node is not None:
                self.constrain(node, text)
            elif isinstance(a, ast.Constant) and isinstance(a.value, str) and \
                    text.startswith(("path:r", "path:image", "path:npy", "path:numbers",
                                     "path:zip", "path:gz", "path:dir")) and \
                    0 < len(a.value) < 260 and "\n" not in a.value and "\x00" not in a.value:
                self.required_files.setdefault(a.value, text)

    def format_constraints(self, e: ast.JoinedStr):
        from ..knowledge.constraints import format_spec_kind
        for v in e.values:
            if isinstance(v, ast.FormattedValue) and isinstance(v.format_spec, ast.JoinedStr) \
                    and all(isinstance(x, ast.Constant) for x in v.format_spec.values):
                spec = "".join(str(x.value) for x in v.format_spec.values)
                self.constrain(self.resolve(v.value, e.lineno), format_spec_kind(spec))

    # -- resolution of expressions to nodes
    def resolve(self, e: ast.AST, line: int) -> Optional[Node]:
        n = self._resolve(e, line)
        if n is not None:
            n.lines.add(line)
        return n

    def _resolve(self, e, line):
        if isinstance(e, ast.Name):
            if e.id in self.alias:
                return self.alias[e.id]
            if e.id in self.names:
                n = self.roots.get(e.id)
                if n is None:
                    n = self.roots[e.id] = Node(e.id)
                return n
            return None
        if isinstance(e, ast.Attribute):
            d = _dotted(e)
            if d is not None and d in self.alias:
                return self.alias[d]
            base = self.resolve(e.value, line)
            return None if base is None else base.attr(e.attr)
        if isinstance(e, ast.Call):
            f = self.resolve(e.func, line)
            if f is None:
                return None
            f.arities.add(_arity(e))
            for tstack in self.try_stack:
                for exc in tstack:
                    if exc not in f.raises:
                        f.raises.append(exc)
            return f.result()
        if isinstance(e, ast.Subscript):
            base = self.resolve(e.value, line)
            if base is None:
                return None
            try:
                k = _const(e.slice)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                k = None
                if isinstance(e.slice, ast.Slice):
                    base.uses.add("sliced")
                    return base
                base.uses.add("indexed")
            if isinstance(k, str) and k not in base.keys:
                base.keys.append(k)
            elif isinstance(k, int) and not isinstance(k, bool) and k not in base.int_keys:
                base.int_keys.append(k)
            return base.element()
        return None

    def bind(self, target: ast.AST, node: Optional[Node]):
        if node is None:
            return
        d = _dotted(target)
        if d is not None:
            self.alias[d] = node
        elif isinstance(target, (ast.Tuple, ast.List)):
            node.width = len(target.elts)
            node.uses.add("unpack")
            for i, t in enumerate(target.elts):
                sub = node.attr(f"_{i}")
                self.bind(t, sub)

    def bind_iter(self, target, it, line):
        """``for target in it``: the target names the iterable's element,
        through enumerate(), zip(), sorted(), d.items() and the like."""
        fname = _dotted(it.func) if isinstance(it, ast.Call) else None
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
                it.func.attr in ("items", "keys", "values") and not it.args:
            n = self.resolve(it.func.value, line)
            if n is None:
                return
            n.uses.add("dictmeth")
            if it.func.attr == "items" and isinstance(target, ast.Tuple) and \
                    len(target.elts) == 2:
                self.bind(target.elts[1], n.element())
            elif it.func.attr == "values":
                self.bind(target, n.element())
            return
        if fname in ("enumerate", "sorted", "reversed", "list", "tuple", "set", "iter") \
                and it.args:
            n = self.resolve(it.args[0], line)
            if n is None:
                return
            n.uses.add("iter")
            if fname == "enumerate":
                if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                    self.bind(target.elts[1], n.element())
            else:
                self.bind(target, n.element())
            return
        if fname == "zip" and isinstance(target, ast.Tuple) and \
                len(target.elts) == len(it.args):
            for t, a in zip(target.elts, it.args):
                n = self.resolve(a, line)
                if n is not None:
                    n.uses.add("iter")
                    self.bind(t, n.element())
            return
        n = self.resolve(it, line)
        if n is not None:
            n.uses.add("iter")
            self.bind(target, n.element())

    # -- statements
    def generic_visit(self, node):
        for child in ast.iter_child_nodes(node):
            self.parents[id(child)] = node
        super().generic_visit(node)

    def _stmt_line(self, s):
        line = s.end_lineno if isinstance(s, ast.stmt) and not isinstance(
            s, (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.FunctionDef,
                ast.ClassDef, ast.AsyncFunctionDef)) else s.lineno
        if self.guard_stack:
            flat = [p for g in self.guard_stack for p in g]
            self.guards.setdefault(s.lineno, [])
            self.guards.setdefault(line, [])
            for ln in {s.lineno, line}:
                for p in flat:
                    if p not in self.guards[ln]:
                        self.guards[ln].append(p)
        return line

    def _paths(self, e: ast.AST, line: int) -> list:
        out = []
        for sub in ast.walk(e):
            if isinstance(sub, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                n = self.resolve(sub, line)
                if n is not None and n.path not in out:
                    out.append(n.path)
        return out

    def visit_body(self, stmts, guard_paths):
        self.guard_stack.append(guard_paths)
        for s in stmts:
            self.visit(s)
        self.guard_stack.pop()

    def visit_Assign(self, s):
        self._stmt_line(s)
        self.visit(s.value)
        n = self.resolve(s.value, s.lineno)
        for t in s.targets:
            if isinstance(t, ast.Attribute):
                base = self.resolve(t.value, s.lineno)
                if base is not None:
                    base.written.add(t.attr)
            elif isinstance(t, ast.Subscript):
                self.visit(t)
            self.bind(t, n)

    def visit_AnnAssign(self, s):
        self._stmt_line(s)
        if s.value is not None:
            self.visit(s.value)
            self.bind(s.target, self.resolve(s.value, s.lineno))

    def visit_AugAssign(self, s):
        self._stmt_line(s)
        self.visit(s.value)
        n = self.resolve(s.target, s.lineno)
        if n is not None:
            try:
                c = _const(s.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                c = None
            n.uses.add("str" if isinstance(c, str) else "list" if isinstance(c, list)
                       else "num")

    def visit_If(self, s):
        self._stmt_line(s)
        self.visit(s.test)
        paths = self._paths(s.test, s.lineno)
        self.visit_body(s.body, paths)
        self.visit_body(s.orelse, paths)

    def visit_While(self, s):
        self.visit_If(s)

    def visit_For(self, s):
        self._stmt_line(s)
        self.visit(s.iter)
        paths = self._paths(s.iter, s.lineno)
        self.bind_iter(s.target, s.iter, s.lineno)
        self.visit_body(s.body, paths)
        self.visit_body(s.orelse, paths)

    visit_AsyncFor = visit_For

    def visit_With(self, s):
        self._stmt_line(s)
        for it in s.items:
            self.visit(it.context_expr)
            n = self.resolve(it.context_expr, s.lineno)
            if n is not None:
                n.uses.add("with")
                if it.optional_vars is not None:
                    self.bind(it.optional_vars, n)
        self.visit_body(s.body, [])

    visit_AsyncWith = visit_With

    def visit_Try(self, s):
        self._stmt_line(s)
        excs = []
        for h in s.handlers:
            names = []
            if h.type is None:
                names = ["Exception"]
            elif isinstance(h.type, ast.Tuple):
                names = [_dotted(x) for x in h.type.elts if _dotted(x)]
            elif _dotted(h.type):
                names = [_dotted(h.type)]
            excs.extend(names)
            self.handler_lines[h.lineno] = names
        self.try_stack.append(excs)
        self.visit_body(s.body, [])
        self.try_stack.pop()
        for h in s.handlers:
            self.guards.setdefault(h.lineno, [])
            self.visit_body(h.body, [])
        self.visit_body(s.orelse, [])
        self.visit_body(s.finalbody, [])

    visit_TryStar = visit_Try

    def visit_FunctionDef(self, s):
        self._stmt_line(s)
        for d in s.decorator_list:
            self.visit(d)
        self.visit_body(s.body, [])

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, s):
        self._stmt_line(s)
        for b in s.bases:
            self.visit(b)
        self.visit_body(s.body, [])

    def visit_Import(self, s):
        self._stmt_line(s)
        for a in s.names:
            if a.asname:
                self.imports[a.asname] = a.name
            else:
                top = a.name.split(".")[0]
                self.imports[top] = top

    def visit_ImportFrom(self, s):
        self._stmt_line(s)
        if s.level == 0 and s.module:
            for a in s.names:
                if a.name != "*":
                    self.imports[a.asname or a.name] = f"{s.module}.{a.name}"

    def visit_stmt_default(self, s):
        self._stmt_line(s)
        self.generic_visit(s)

    def visit(self, node):
        if isinstance(node, ast.stmt) and not hasattr(self, "visit_" + type(node).__name__):
            self._stmt_line(node)
        return super().visit(node)

    # -- expressions: uses
    def visit_Constant(self, e):
        v = e.value
        if isinstance(v, (str, int, float)) and not isinstance(v, bool):
            if isinstance(v, str) and len(v) > 200:
                return
            if v not in self.constants:
                self.constants.append(v)

    def visit_Compare(self, e):
        self.generic_visit(e)
        operands = [e.left] + list(e.comparators)
        for i, op in enumerate(e.ops):
            a, b = operands[i], operands[i + 1]
            na, nb = self.resolve(a, e.lineno), self.resolve(b, e.lineno)
            try:
                cb = _const(b)
                has_cb = True
            except (ValueError, TypeError, SyntaxError, RecursionError):
                has_cb = False
            try:
                ca = _const(a)
                has_ca = True
            except (ValueError, TypeError, SyntaxError, RecursionError):
                has_ca = False
            if isinstance(op, (ast.Is, ast.IsNot)) and na is not None:
                na.uses.add("none")
            elif isinstance(op, (ast.In, ast.NotIn)):
                if nb is not None and na is not None:
                    nb.compared.append(("InLink", na.path))
                    na.compared.append(("MemberLink", nb.path))
                if nb is not None:
                    nb.uses.add("container")
                    if has_ca and ca not in nb.contains:
                        nb.contains.append(ca)
                if na is not None and has_cb and isinstance(cb, (tuple, list, set, frozenset)):
                    for v in cb:
                        if v not in na.member_of:
                            na.member_of.append(v)
                elif na is not None and has_cb and isinstance(cb, (str, dict)):
                    na.member_of.extend(x for x in ([cb] if isinstance(cb, str) else cb)
                                        if x not in na.member_of)
            else:
                sym = type(op).__name__
                if na is not None and has_cb:
                    na.compared.append((sym, cb))
                if nb is not None and has_ca:
                    nb.compared.append((_flip(sym), ca))
                if na is not None and nb is not None:
                    na.compared.append(("Link", nb.path))
                    nb.compared.append(("Link", na.path))
                elif na is not None and not has_cb:
                    na.uses.add("compared")

    def visit_BoolOp(self, e):
        self.generic_visit(e)
        for v in e.values:
            n = self.resolve(v, e.lineno)
            if n is not None:
                n.uses.add("bool")

    def visit_UnaryOp(self, e):
        self.generic_visit(e)
        if isinstance(e.op, ast.Not):
            n = self.resolve(e.operand, e.lineno)
            if n is not None:
                n.uses.add("bool")
        elif isinstance(e.op, ast.USub):
            n = self.resolve(e.operand, e.lineno)
            if n is not None:
                n.uses.add("num")

    def visit_BinOp(self, e):
        self.generic_visit(e)
        if isinstance(e.op, ast.Mod) and isinstance(e.left, ast.Constant) and \
                isinstance(e.left.value, str):
            from ..knowledge.constraints import percent_fields
            kinds = percent_fields(e.left.value)
            vals = e.right.elts if isinstance(e.right, ast.Tuple) else [e.right]
            if len(kinds) == len(vals):
                for v, kind in zip(vals, kinds):
                    self.constrain(self.resolve(v, e.lineno), kind)
        for a, b in ((e.left, e.right), (e.right, e.left)):
            n = self.resolve(a, e.lineno)
            if n is None:
                continue
            try:
                c = _const(b)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                c = None
            if isinstance(e.op, ast.Mod) and a is e.left and isinstance(c, (tuple, str)):
                n.uses.add("str")
            elif isinstance(c, str):
                n.uses.add("str")
            elif isinstance(c, (int, float)):
                n.uses.add("num")
            elif isinstance(c, list):
                n.uses.add("list")
            else:
                n.uses.add("num")

    def visit_IfExp(self, e):
        self.generic_visit(e)
        n = self.resolve(e.test, e.lineno)
        if n is not None:
            n.uses.add("bool")

    def visit_JoinedStr(self, e):
        self.generic_visit(e)
        self.format_constraints(e)

    def visit_comprehension(self, c):
        self.generic_visit(c)
        self.bind_iter(c.target, c.iter, c.iter.lineno)

    def visit_Call(self, e):
        # comprehension targets must be bound before the element is visited
        self.generic_visit(e)
        self.call_constraints(e)
        fname = _dotted(e.func)
        for i, a in enumerate(e.args):
            n = self.resolve(a, e.lineno)
            if n is None:
                continue
            if fname in PATH_FUNCS and i == 0:
                n.uses.add("path")
            elif fname in ITER_FUNCS or fname == "len":
                n.uses.add("iter" if fname != "len" else "len")
            elif fname in ("int", "float", "range", "abs", "round"):
                n.uses.add("numlike")
            elif fname in ("isinstance", "issubclass") and len(e.args) == 2 and i == 1:
                n.uses.add("type")
            elif fname == "isinstance" and len(e.args) == 2:
                t = e.args[1]
                names = [_dotted(x) for x in (t.elts if isinstance(t, ast.Tuple) else [t])]
                for nm in names:
                    if nm and nm not in n.isinstance_of:
                        n.isinstance_of.append(nm)
            elif fname in ("str.join",) or (isinstance(e.func, ast.Attribute) and
                                            e.func.attr == "join"):
                n.uses.add("iter")
            if isinstance(a, ast.Starred):
                n.uses.add("iter")
        for k in e.keywords:
            n = self.resolve(k.value, e.lineno)
            if n is not None and k.arg is None:
                n.uses.add("kwargs")
        if isinstance(e.func, ast.Attribute):
            base = self.resolve(e.func.value, e.lineno)
            if base is not None:
                if e.func.attr in STR_METHODS:
                    base.uses.add("strmeth")
                if e.func.attr in DICT_METHODS:
                    base.uses.add("dictmeth")
                if e.func.attr in LIST_METHODS:
                    base.uses.add("listmeth")
                if e.func.attr in ("startswith", "endswith") and e.args:
                    try:
                        c = _const(e.args[0])
                        base.compared.append((e.func.attr, c))
                    except (ValueError, TypeError, SyntaxError, RecursionError):
                        pass

    def visit_Starred(self, e):
        self.generic_visit(e)
        n = self.resolve(e.value, e.lineno)
        if n is not None:
            n.uses.add("iter")

    def visit_Subscript(self, e):
        self.generic_visit(e)
        self.resolve(e, e.lineno)

    def visit_Attribute(self, e):
        self.generic_visit(e)
        self.resolve(e, e.lineno)

    def visit_Name(self, e):
        self.resolve(e, e.lineno)


def _flip(sym: str) -> str:
    return {"Lt": "Gt", "Gt": "Lt", "LtE": "GtE", "GtE": "LtE"}.get(sym, sym)


FILE_EXTS = (".txt", ".csv", ".json", ".xml", ".html", ".log", ".dat", ".yaml", ".yml",
             ".ini", ".cfg", ".py", ".md", ".tsv", ".pkl", ".png", ".jpg", ".zip", ".db")


def undefined_names(source: str, analyzer=None) -> list:
    """The undefined references of ``source`` as the instrumenter reports
    them (``Instrumented.undefined``).  ``analyzer`` replaces the
    instrumenter (a callable source -> list of records)."""
    if analyzer is not None:
        return list(analyzer(source))
    from ..engine.instrument import instrument
    inst = instrument(source)
    und = getattr(inst, "undefined", None)
    if und is None:
        raise RuntimeError("this build's instrumenter has no undefined-reference analysis "
                           "(Instrumented.undefined); rebuild lexecutor_c")
    return list(und)


def analyze(source: str, analyzer=None) -> SnippetFacts:
    """Facts for the offline generator and the loop.  Raises SyntaxError for
    source that does not parse."""
    tree = ast.parse(source)
    und = undefined_names(source, analyzer)
    names = {u.name for u in und}
    m = _Miner(names)
    for s in tree.body:
        m.visit(s)
    # roots in the instrumenter's order, then any the miner found besides
    roots = {}
    for u in und:
        roots[u.name] = m.roots.get(u.name) or Node(u.name)
        r = roots[u.name]
        r.lines.update(u.lines)
        for a, ar in u.attrs.items():
            an = r.attr(a)
            for x in ar:
                if x is not None:
                    an.arities.add(x)
        for x in u.calls:
            r.arities.add(x)
        if getattr(u, "iterated", False):
            r.uses.add("iter")
        if getattr(u, "context", False):
            r.uses.add("with")
    files = [c for c in m.constants if isinstance(c, str) and c.lower().endswith(FILE_EXTS)
             and "\n" not in c and len(c) < 200]
    facts = SnippetFacts(source, und, roots, m.constants, m.guards, m.handler_lines, files)
    facts.required_files = dict(m.required_files)
    facts.imports = dict(m.imports)
    return facts


BUILTIN_NAMES = set(dir(builtins))
