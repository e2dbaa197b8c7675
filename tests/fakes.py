"""TEST DOUBLES ONLY -- stand-ins for the C instrumenter and runtime.

Until ``lexecutor_c.instrument`` and ``lexecutor_c._core.Runtime`` land,
the execution layer (api.py, cli.py) is tested against these.  They follow
the interfaces in docs/LOADERS.md closely enough for that and nothing more:

* ``fake_instrument`` rewrites the AST: a ``_l_`` marker after each simple
  statement and before each compound one (jumps get theirs before them), reads
  of non-builtin names outside class bodies become ``_n_`` calls, plain imports
  become ``_i_`` calls.  No ``_a_``/``_c_`` sites.
* ``FakeRuntime`` records markers reached; with any predictor but "as-is" a
  missing name or import becomes a ``FakeDummy`` (recorded as an injection).

Neither is part of the package, and neither should be used for anything but
tests of the execution layer.
"""
import ast
import builtins
import importlib
from types import SimpleNamespace

_BUILTINS = frozenset(dir(builtins))
_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
             ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match)
_JUMPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
if hasattr(ast, "TryStar"):
    _COMPOUND += (ast.TryStar,)


class FakeInstrumented:
    def __init__(self, tree, filename, iids, lines):
        self._tree = tree
        self.filename = filename
        self.iids = iids
        self.lines = lines
        self.line_map = None
        self.source = ast.unparse(tree)

    def compile(self):
        return compile(self._tree, self.filename, "exec", dont_inherit=True)


class _Rewriter(ast.NodeTransformer):
    def __init__(self):
        self.next_iid = 0
        self.iids = []
        self.lines = []
        self.class_depth = 0          # directly inside a class body: no _n_ (no closure)

    def _site(self, kind, node, name=None):
        self.next_iid += 1
        self.iids.append(SimpleNamespace(
            iid=self.next_iid, kind=kind, name=name, line=node.lineno, col=node.col_offset,
            end_line=node.end_lineno, end_col=node.end_col_offset, start_byte=None,
            end_byte=None, before="", after=""))
        return self.next_iid

    def _marker(self, stmt):
        iid = self._site("line", stmt)
        self.lines.append(SimpleNamespace(line=stmt.lineno, iid=iid, end_line=stmt.end_lineno))
        call = ast.Call(ast.Name("_l_", ast.Load()), [ast.Constant(iid)], [])
        return ast.copy_location(ast.Expr(call), stmt)

    def _body(self, stmts):
        out = []
        for stmt in stmts:
            new = self.visit(stmt)
            new = new if isinstance(new, list) else [new]
            if isinstance(stmt, _COMPOUND) or isinstance(stmt, _JUMPS):
                out.append(self._marker(stmt))
                out.extend(new)
            else:
                out.extend(new)
                out.append(self._marker(stmt))
        return out

    def generic_visit(self, node):
        for fname in ("body", "orelse", "finalbody"):
            val = getattr(node, fname, None)
            if isinstance(val, list) and val and isinstance(val[0], ast.stmt):
                if isinstance(node, ast.ClassDef) and fname == "body":
                    self.class_depth += 1
                    setattr(node, fname, self._body(val))
                    self.class_depth -= 1
                else:
                    saved = self.class_depth
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.class_depth = 0
                    setattr(node, fname, self._body(val))
                    self.class_depth = saved
        for fname, val in ast.iter_fields(node):
            if fname in ("body", "orelse", "finalbody") and isinstance(val, list) and val \
                    and isinstance(val[0], ast.stmt):
                continue
            if isinstance(val, list):
                new = []
                for item in val:
                    if isinstance(item, ast.AST):
                        item = self.visit(item)
                    new.append(item)
                setattr(node, fname, new)
            elif isinstance(val, ast.AST):
                setattr(node, fname, self.visit(val))
        return node

    def visit_Module(self, node):
        node.body = self._body(node.body)
        return node

    def visit_Lambda(self, node):
        return node                   # leave lambdas alone

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load) or node.id in _BUILTINS or self.class_depth:
            return node
        iid = self._site("name", node, node.id)
        thunk = ast.Lambda(ast.arguments([], [], None, [], [], None, []),
                           ast.Name(node.id, ast.Load()))
        call = ast.Call(ast.Name("_n_", ast.Load()),
                        [ast.Constant(iid), ast.Constant(node.id), thunk], [])
        return ast.copy_location(call, node)

    def _i_call(self, node, module, level, names):
        iid = self._site("import", node, module)
        return ast.Call(ast.Name("_i_", ast.Load()),
                        [ast.Constant(iid), ast.Constant(module), ast.Constant(level),
                         ast.Constant(names)], [])

    def visit_Import(self, node):
        out = []
        for alias in node.names:
            if alias.asname:
                target, names = alias.asname, ()
            else:
                target, names = alias.name.split(".")[0], None
            assign = ast.Assign([ast.Name(target, ast.Store())],
                                self._i_call(node, alias.name, 0, names))
            out.append(ast.copy_location(assign, node))
        return out

    def visit_ImportFrom(self, node):
        if node.module == "__future__":
            return node
        module = node.module or ""
        if node.names[0].name == "*":
            return ast.copy_location(ast.Expr(self._i_call(node, module, node.level, "*")), node)
        names = tuple(a.name for a in node.names)
        targets = ast.Tuple([ast.Name(a.asname or a.name, ast.Store()) for a in node.names],
                            ast.Store())
        return ast.copy_location(
            ast.Assign([targets], self._i_call(node, module, node.level, names)), node)

    def visit_Try(self, node):
        # imports under a try with handlers stay as written (as in LOADERS.md)
        if node.handlers:
            saved_i, saved_f = self.visit_Import, self.visit_ImportFrom
            self.visit_Import = self.visit_ImportFrom = lambda n: n
            try:
                node.body = self._body(node.body)
            finally:
                self.visit_Import, self.visit_ImportFrom = saved_i, saved_f
            for h in node.handlers:
                h.body = self._body(h.body)
                if h.type is not None:
                    h.type = self.visit(h.type)
            node.orelse = self._body(node.orelse)
            node.finalbody = self._body(node.finalbody)
            return node
        return self.generic_visit(node)


def fake_instrument(source, *, filename="<snippet>"):
    """TEST DOUBLE of lexecutor_c.instrument."""
    if isinstance(source, bytes):
        source = source.decode("utf-8")
    tree = ast.parse(source, filename)
    rw = _Rewriter()
    tree = rw.visit(tree)
    ast.fix_missing_locations(tree)
    return FakeInstrumented(tree, filename, rw.iids, rw.lines)


class FakeDummy:
    """What the fake runtime injects for a missing value."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *a, **k):
        return self

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return self

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 1

    def __repr__(self):
        return f"<FakeDummy {self._name}>"


MISSING = object()


class FakeRuntime:
    """TEST DOUBLE of lexecutor_c._core.Runtime (same constructor and
    accessors, pass-through loaders)."""

    def __init__(self, *, sites, predictor="naive", abstraction="fine", seed=None,
                 randomize=False, record=False, filename="<snippet>"):
        self.sites = {s.iid: s for s in sites}
        self.predictor = predictor
        self.abstraction = abstraction
        self.filename = filename
        self._reached = set()
        self.injections = []
        self.failed_imports = []

    def _inject(self, iid, kind, name):
        value = FakeDummy(name)
        line = self.sites[iid].line if iid in self.sites else 0
        self.injections.append((iid, kind, name, line, "object", repr(value)))
        return value

    def loaders(self):
        def _l_(iid, *value):
            self._reached.add(iid)
            return value[0] if value else None

        def _n_(iid, name, thunk, ns=None):
            if ns is not None and name in ns:
                return ns[name]
            try:
                value = thunk()
            except NameError:
                value = MISSING
            if value is MISSING:
                if self.predictor == "as-is":
                    raise NameError(f"name {name!r} is not defined")
                return self._inject(iid, "name", name)
            return value

        def _a_(iid, obj, attr):
            try:
                return getattr(obj, attr)
            except AttributeError:
                if self.predictor == "as-is":
                    raise
                return self._inject(iid, "attribute", attr)

        def _c_(iid, fn, *args, **kwargs):
            return fn(*args, **kwargs)

        def _i_(iid, module, level, names):
            try:
                mod = importlib.import_module(module)
            except ImportError:
                self.failed_imports.append((iid, module, names))
                if names is None or names == ():
                    return MISSING
                if names == "*":
                    return None
                return tuple(MISSING for _ in names)
            if names is None:
                return importlib.import_module(module.split(".")[0])
            if names == ():
                return mod
            if names == "*":
                return None
            return tuple(getattr(mod, n, MISSING) for n in names)

        return {"_l_": _l_, "_n_": _n_, "_a_": _a_, "_c_": _c_, "_i_": _i_}

    def reached(self):
        return sorted(self._reached)
