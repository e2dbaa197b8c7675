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
#: builtins whose result holds the elements of their one argument
COPYING_CALLS = ("list", "tuple", "sorted", "reversed")
PATH_FUNCS = {"open", "os.path.exists", "os.path.isfile", "os.path.isdir", "os.listdir",
              "os.path.join", "os.path.basename", "os.path.dirname", "os.path.splitext",
              "os.stat", "os.remove", "Path", "pathlib.Path", "pd.read_csv", "np.load",
              "np.loadtxt", "json.load", "shutil.copy"}
ITER_FUNCS = {"enumerate", "zip", "sorted", "list", "tuple", "set", "sum", "min", "max", "any",
              "all", "map", "filter", "reversed", "dict", "frozenset", "iter", "next"}


def _format_fields(text: str) -> list:
    """The named fields of a ``str.format`` template (``'{scheme}://{path}'``
    -> ['scheme', 'path']); none for a template that does not parse."""
    import string
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return []
    out = []
    for _, field, _, _ in parsed:
        name = (field or "").split(".")[0].split("[")[0]
        if name.isidentifier() and name not in out:
            out.append(name)
    return out


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
    len_cmp: list = field(default_factory=list)       # (op, n): len(node) op n
    key_cmp: list = field(default_factory=list)       # (key, op, value): node[key] op value
    str_args: list = field(default_factory=list)      # (method, constant): node.split(',')
    asked: list = field(default_factory=list)         # (method, key): d.get('k'), m.group('k')
    kwnames: list = field(default_factory=list)       # keyword names at its call sites
    callback: bool = False                            # gets a snippet function to call back
    decorator: bool = False                           # decorates a snippet function
    subclass_of: list = field(default_factory=list)   # X.__new__(node, ...): a subclass of X
    asserted: list = field(default_factory=list)      # what asserts need: true, false, none,
    #                                                   notnone, ("Eq", v), ("In", values)
    maybe_bound: bool = False                         # the snippet binds it later itself
    fits: list = field(default_factory=list)          # literal values its use-site requires
    sub_links: list = field(default_factory=list)     # paths of values it is subscripted with

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
    unbound: dict = field(default_factory=dict)   # name -> line: read before the snippet binds it
    unreachable: set = field(default_factory=set)  # lines after a statement that always leaves
    super_calls: bool = False     # super() without arguments outside a function
    annotations: bool = False     # annotations evaluated at run time (module or class level)
    functions: set = field(default_factory=set)   # functions the snippet defines
    loop_guards: dict = field(default_factory=dict)  # while line -> paths in its condition
    exits: list = field(default_factory=list)     # lines of exit()/raise statements, in order

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


def _str_valued(e: ast.AST) -> bool:
    """An expression that makes a string: an f-string, '...' % x, 'a' + x."""
    if isinstance(e, ast.JoinedStr):
        return True
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mod, ast.Add)):
        return any(isinstance(x, ast.Constant) and isinstance(x.value, str)
                   for x in (e.left, e.right))
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
            isinstance(e.func.value, ast.Constant) and isinstance(e.func.value.value, str):
        return True                                   # '...'.format(x), ','.join(x)
    return False


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
        #: local lists the snippet builds: name -> nodes of their items
        #: (parts = [f(x) for x in xs]; parts.append(g())), so that what the
        #: code does with the list (", ".join(parts)) reaches the items
        self.local_items: dict[str, list] = {}
        self.joined: set = set()          # names given to str.join (analyze())
        self.guard_stack: list[list[str]] = []
        self.try_stack: list[list[str]] = []
        self.guards: dict[int, list[str]] = {}
        self.handler_lines: dict[int, list[str]] = {}
        self.constants: list = []
        self.parents: dict[int, ast.AST] = {}
        self.imports: dict[str, str] = {}
        self.required_files: dict[str, str] = {}
        self.functions: set = set()
        self.loop_guards: dict = {}
        self.def_depth = 0
        self.super_calls = False
        self.annotations = False

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
        # ``min(result, self.max)``: each of two or more values a number
        # (only ``min(values)`` takes an iterable)
        compared = qual in ("min", "max", "builtins.min", "builtins.max") and len(e.args) > 1
        for key, a in args:
            if isinstance(a, ast.Starred):
                break
            spec = constraint_for(qual, "*" if compared and key == 0 else key)
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
            for k in e.keywords:
                if k.arg and k.arg not in f.kwnames:
                    f.kwnames.append(k.arg)
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
                if _str_valued(e.slice):            # d['ext.%s' % name]: a str key
                    base.uses.add("strkey")
                kn = self.resolve(e.slice, line)          # d[key]: key's value is a key
                if kn is not None and kn.path not in base.sub_links and kn is not base:
                    base.sub_links.append(kn.path)
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
        """The values an expression tests: the outermost resolvable parts
        (``self.x is None`` tests ``self.x``, not ``self``)."""
        out = []
        inner = set()
        for sub in ast.walk(e):
            if isinstance(sub, (ast.Attribute, ast.Subscript)):
                inner.add(id(sub.value))
            elif isinstance(sub, ast.Call):
                inner.add(id(sub.func))
        for sub in ast.walk(e):
            if isinstance(sub, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                n = self.resolve(sub, line)
                if n is None:
                    continue
                if id(sub) in inner and any(
                        id(p.value if isinstance(p, (ast.Attribute, ast.Subscript))
                           else p.func) == id(sub) and self._resolves(p, line)
                        for p in ast.walk(e) if isinstance(p, (ast.Attribute, ast.Subscript,
                                                               ast.Call))):
                    continue
                if n.path not in out:
                    out.append(n.path)
        return out

    def _resolves(self, e, line) -> bool:
        return self.resolve(e, line) is not None

    def visit_body(self, stmts, guard_paths):
        self.guard_stack.append(guard_paths)
        for s in stmts:
            self.visit(s)
        self.guard_stack.pop()

    def visit_Assign(self, s):
        self._stmt_line(s)
        self.visit(s.value)
        n = self.resolve(s.value, s.lineno)
        v = s.value
        if n is None and isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and \
                v.func.id in COPYING_CALLS and v.func.id not in self.names and \
                len(v.args) == 1 and not v.keywords and not isinstance(v.args[0], ast.Starred):
            # x = list(E): x holds E's elements, so what the code does with
            # x's elements (for a, b, c in x) shapes E's
            n = self.resolve(v.args[0], s.lineno)
            if n is not None:
                n.uses.add("iter")
        for t in s.targets:
            if isinstance(t, ast.Name) and t.id not in self.names and t.id in self.joined:
                if isinstance(v, (ast.List, ast.Tuple, ast.ListComp)):
                    elts = [v.elt] if isinstance(v, ast.ListComp) else v.elts
                    items = [self.resolve(x, s.lineno) for x in elts
                             if not isinstance(x, ast.Starred)]
                    self.local_items[t.id] = [x for x in items if x is not None]
                else:
                    self.local_items.pop(t.id, None)
            if isinstance(t, ast.Attribute):
                base = self.resolve(t.value, s.lineno)
                if base is not None:
                    base.written.add(t.attr)
            elif isinstance(t, ast.Subscript):
                self.visit(t)
            self.bind(t, n)

    def visit_AnnAssign(self, s):
        self._stmt_line(s)
        if self.def_depth == 0 and not (isinstance(s.annotation, ast.Name) and
                                        s.annotation.id in BUILTIN_NAMES):
            self.annotations = True
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
        # the operand is used like the target: `self.total += by` makes `by`
        # a number unless the target is known to be a str or list (`+=` only)
        # (a local the snippet binds itself tells nothing about its type here)
        v = self.resolve(s.value, s.lineno)
        if v is not None and (n is not None or not isinstance(s.op, ast.Add)):
            kind = "num"
            if isinstance(s.op, ast.Add):
                kind = "str" if "str" in n.uses else "list" if "list" in n.uses else "num"
            v.uses.add(kind)

    def visit_If(self, s):
        self._stmt_line(s)
        self.visit(s.test)
        n = self.resolve(s.test, s.lineno)
        if n is not None:                   # `if x:` tests its truth
            n.uses.add("bool")
        paths = self._paths(s.test, s.lineno)
        self.visit_body(s.body, paths)
        self.visit_body(s.orelse, paths)

    def visit_While(self, s):
        self.visit_If(s)
        self.loop_guards[s.lineno] = self._paths(s.test, s.lineno)

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
            n = self.resolve(d, s.lineno)
            if n is not None:             # @app.route("/"): called with the function
                n.arities.add(1)
                n.callback = True
                n.decorator = True
        self.def_depth += 1
        self.visit_body(s.body, [])
        self.def_depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, s):
        self._stmt_line(s)
        for b in s.bases:
            self.visit(b)
        self.visit_body(s.body, [])

    def visit_Raise(self, s):
        self._stmt_line(s)
        self.generic_visit(s)
        e = s.exc.func if isinstance(s.exc, ast.Call) else s.exc
        n = self.resolve(e, s.lineno) if e is not None else None
        if n is not None:                   # raise X(...): X is an exception class
            n.uses.add("raised")

    def visit_Return(self, s):
        self._stmt_line(s)
        self.generic_visit(s)
        if isinstance(s.value, ast.Call):
            # return f(...): the result is what the code hands its caller
            n = self.resolve(s.value, s.lineno)
            if n is not None:
                n.uses.add("returned")

    def visit_Lambda(self, e):
        self.def_depth += 1
        self.generic_visit(e)
        self.def_depth -= 1

    def visit_Assert(self, s):
        self._stmt_line(s)
        self.generic_visit(s)
        t = s.test
        need = "true"
        if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
            t, need = t.operand, "false"
        if isinstance(t, ast.Compare) and len(t.ops) == 1:
            n = self.resolve(t.left, s.lineno)
            op, right = t.ops[0], t.comparators[0]
            if n is None and isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                n = self.resolve(right, s.lineno)          # assert 'x' == f()
                right = t.left
            if n is None:
                return
            try:
                c = _const(right)
                has_c = True
            except (ValueError, TypeError, SyntaxError, RecursionError):
                has_c = False
            flip = need == "false"
            if isinstance(op, (ast.Is, ast.IsNot)) and has_c and c is None:
                want = "none" if isinstance(op, ast.Is) != flip else "notnone"
                n.asserted.append(want)
            elif isinstance(op, (ast.Eq, ast.NotEq)) and has_c and \
                    isinstance(op, ast.Eq) != flip:
                n.asserted.append(("Eq", c))
            elif isinstance(op, (ast.In, ast.NotIn)) and has_c and \
                    isinstance(op, ast.In) != flip and isinstance(c, (tuple, list, set, str)):
                n.asserted.append(("In", c))
            return
        n = self.resolve(t, s.lineno)
        if n is not None:
            n.asserted.append(need)

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
            sym0 = type(op).__name__
            for side, const_ok, cval, symx in ((a, has_cb, cb if has_cb else None, sym0),
                                               (b, has_ca, ca if has_ca else None,
                                                _flip(sym0))):
                if not const_ok:
                    continue
                if isinstance(side, ast.Call) and isinstance(side.func, ast.Name) and \
                        side.func.id == "len" and len(side.args) == 1:
                    ln = self.resolve(side.args[0], e.lineno)
                    if ln is not None and isinstance(cval, int):
                        ln.len_cmp.append((symx, cval))
                elif isinstance(side, ast.Subscript):
                    try:
                        key = _const(side.slice)
                    except (ValueError, TypeError, SyntaxError, RecursionError):
                        continue
                    base = self.resolve(side.value, e.lineno)
                    if base is not None and isinstance(key, (int, str)):
                        base.key_cmp.append((key, symx, cval))
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
                    # `ch in '-_'`: a character of it (a scanner), or the string
                    vals = ([c for c in cb[:2]] + [cb]) if isinstance(cb, str) else list(cb)
                    na.member_of.extend(x for x in vals if x not in na.member_of)
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

    def _visit_comp(self, e):
        # the generators first, each bound before its conditions are read,
        # then the element: what ``[n[1:] for n in xs if n[-1:] != '/']``
        # does with ``n`` is what the items of ``xs`` are
        for child in ast.iter_child_nodes(e):
            self.parents[id(child)] = e
        for c in e.generators:
            for child in ast.iter_child_nodes(c):
                self.parents[id(child)] = c
            self.visit(c.iter)
            self.bind_iter(c.target, c.iter, c.iter.lineno)
            self.visit(c.target)
            for cond in c.ifs:
                self.visit(cond)
        for part in ((e.key, e.value) if isinstance(e, ast.DictComp) else (e.elt,)):
            self.visit(part)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp

    def visit_Call(self, e):
        # comprehension targets must be bound before the element is visited
        self.generic_visit(e)
        self.call_constraints(e)
        fname = _dotted(e.func)
        if fname == "super" and not e.args and self.def_depth == 0:
            self.super_calls = True
        if any((isinstance(a, ast.Name) and a.id in self.functions) or
               isinstance(a, ast.Lambda) for a in list(e.args) +
               [k.value for k in e.keywords]):
            f = self.resolve(e.func, e.lineno)
            if f is not None:
                f.callback = True
        if isinstance(e.func, ast.Attribute) and e.func.attr in ("__new__", "__init__") \
                and e.args:
            n = self.resolve(e.args[0], e.lineno)
            if n is not None:
                base = _dotted(e.func.value) or "object"
                if base not in n.subclass_of:
                    n.subclass_of.append(base)
        # '{scheme}://{path}'.format(**groups): groups holds each field's key
        if isinstance(e.func, ast.Attribute) and e.func.attr == "format" and \
                isinstance(e.func.value, ast.Constant) and isinstance(e.func.value.value, str):
            for k in e.keywords:
                n = self.resolve(k.value, e.lineno) if k.arg is None else None
                for f in _format_fields(e.func.value.value) if n is not None else ():
                    if f not in n.keys:
                        n.keys.append(f)
        # source given to exec/eval/compile: code that runs
        if fname in ("exec", "eval", "compile", "builtins.exec", "builtins.eval") and e.args:
            n = self.resolve(e.args[0], e.lineno)
            v = "1" if fname.endswith("eval") else "x = 1"
            if n is not None and v not in n.fits:
                n.fits.append(v)
            if len(e.args) > 1 and fname.endswith(("exec", "eval")):
                g = self.resolve(e.args[1], e.lineno)
                if g is not None and {} not in g.fits:
                    g.fits.append({})
        # type(name, bases, namespace) and type.__new__(mcs, name, bases, namespace)
        targs = e.args[1:] if fname == "type.__new__" else e.args if fname == "type" else []
        if len(targs) == 3:
            for a, v in zip(targs, ("T", (), {})):
                n = self.resolve(a, e.lineno)
                if n is not None and v not in n.fits:
                    n.fits.append(v)
        self.resolve(e, e.lineno)     # a call statement too: arity, keywords, handlers
        if isinstance(e.func, ast.Attribute) and e.args and \
                e.func.attr in STR_METHODS | {"index", "count"}:
            base = self.resolve(e.func.value, e.lineno)
            if base is not None:
                try:
                    c = _const(e.args[0])
                except (ValueError, TypeError, SyntaxError, RecursionError):
                    c = None
                if isinstance(c, (str, bytes, tuple)) and (e.func.attr, c) not in base.str_args:
                    base.str_args.append((e.func.attr, c))
        if isinstance(e.func, ast.Attribute) and e.args and \
                e.func.attr in ("get", "pop", "setdefault", "group") and \
                isinstance(e.args[0], ast.Constant) and isinstance(e.args[0].value, str):
            base = self.resolve(e.func.value, e.lineno)
            if base is not None and (e.func.attr, e.args[0].value) not in base.asked:
                base.asked.append((e.func.attr, e.args[0].value))
        joining = fname == "str.join" or (isinstance(e.func, ast.Attribute) and
                                          e.func.attr == "join" and fname not in PATH_FUNCS)
        if isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name) and \
                e.func.value.id in self.local_items and e.func.attr in ("append", "insert") \
                and e.args:
            m = self.resolve(e.args[-1], e.lineno)        # parts.append(x), insert(i, x)
            if m is not None and m not in self.local_items[e.func.value.id]:
                self.local_items[e.func.value.id].append(m)
        for i, a in enumerate(e.args):
            if joining and isinstance(a, (ast.Tuple, ast.List)):
                # "".join((a, b.c, d())): each item must be a str
                for elt in a.elts:
                    m = self.resolve(elt, e.lineno)
                    if m is not None:
                        m.uses.add("str")
            if joining and isinstance(a, ast.Name) and a.id in self.local_items:
                for m in self.local_items[a.id]:           # " ".join(parts)
                    m.uses.add("str")
            n = self.resolve(a, e.lineno)
            if n is None:
                continue
            if fname == "next" and i == 0:
                n.uses.add("iterator")            # next(x): x has __next__
            elif fname in ("str", "bytes.decode") and i == 0 and (
                    len(e.args) > 1 or any(k.arg == "encoding" for k in e.keywords)):
                if b"abc" not in n.fits:          # str(value, encoding): bytes
                    n.fits.append(b"abc")
            elif fname in PATH_FUNCS and i == 0:
                n.uses.add("path")
            elif fname in ("min", "max") and len(e.args) > 1 and \
                    not any(isinstance(x, ast.Starred) for x in e.args):
                # ``min(result, self.max)``: the values compared, each a
                # number (only ``min(values)`` takes an iterable)
                n.uses.add("num")
            elif fname in ITER_FUNCS or fname == "len":
                n.uses.add("iter" if fname != "len" else "len")
            elif fname in ("int", "float", "range", "abs", "round"):
                n.uses.add("numlike")
            elif fname == "vars" and i == 0:
                n.uses.add("namespace")           # an object with a __dict__
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
    from .flow import unbound_reads, unreachable_lines
    tree = ast.parse(source)
    und = undefined_names(source, analyzer)
    unbound = {n: ln for n, ln in unbound_reads(tree).items()
               if n not in {u.name for u in und}}
    names = {u.name for u in und} | set(unbound)
    m = _Miner(names)
    m.functions = {d.name for d in ast.walk(tree)
                   if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))}
    # local lists given to str.join somewhere: only their items are followed
    # (resolving the items of every list literal adds lines and uses to the
    # values they name)
    m.joined = {a.id for c in ast.walk(tree) if isinstance(c, ast.Call) and
                isinstance(c.func, ast.Attribute) and c.func.attr == "join"
                for a in c.args if isinstance(a, ast.Name)}
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
    for name, line in unbound.items():
        r = roots[name] = m.roots.get(name) or Node(name)
        r.maybe_bound = True
        r.lines.add(line)
    facts = SnippetFacts(source, und, roots, m.constants, m.guards, m.handler_lines, files)
    facts.required_files = dict(m.required_files)
    facts.imports = dict(m.imports)
    facts.unbound = unbound
    facts.unreachable = unreachable_lines(tree)
    facts.super_calls = m.super_calls
    facts.annotations = m.annotations
    facts.functions = set(m.functions)
    facts.loop_guards = dict(m.loop_guards)
    facts.exits = sorted({x.lineno for x in ast.walk(tree) if isinstance(x, ast.Raise) or (
        isinstance(x, ast.Expr) and isinstance(x.value, ast.Call) and
        _dotted(x.value.func) in ("exit", "quit", "sys.exit"))})
    return facts


BUILTIN_NAMES = set(dir(builtins))
