"""The instrumentation written with LibCST, as the LExecutor paper's instrumenter is.

Name reads become ``_n_(iid, "x", lambda: x)`` (with ``locals()`` as a fourth
argument in class bodies, where a thunk cannot see the class namespace), attribute reads ``_a_(iid, obj, "attr")`` (private names
mangled), calls ``_c_(iid, f, *args, **kwargs)``, and every simple statement
is followed by ``; _l_(iid)`` on its line.  Imports, annotations and match
patterns are left as written.  No read is elided and ``_i_`` is not used: this
is the baseline for the speed comparison, and a second, independent
instrumenter that the differential check can run (``instrument()`` returns an
object with the same ``.source`` / ``.compile()`` surface).

    python -m benchmarks.libcst_transform FILE      # print the instrumented file
"""
import sys

import libcst as cst
from libcst.metadata import (ClassScope, ExpressionContext,
                             ExpressionContextProvider, ScopeProvider)

_PATTERNS = tuple(getattr(cst, n) for n in (
    "MatchAs", "MatchValue", "MatchClass", "MatchSequence", "MatchMapping", "MatchOr",
    "MatchStar", "MatchSingleton", "MatchList", "MatchTuple"))
_SKIP = _PATTERNS + (cst.Annotation, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)
_CONSTANT_NAMES = {"True", "False", "None"}


def _mangle(name, cls):
    if cls is None or not name.startswith("__") or name.endswith("__"):
        return name
    stripped = cls.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def _call(fn, *args):
    return cst.Call(func=cst.Name(fn), args=[cst.Arg(a) for a in args])


class Instrumenter(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (ExpressionContextProvider, ScopeProvider)

    def __init__(self):
        super().__init__()
        self.iid = 0
        self.skip = 0          # > 0 inside imports, annotations, match patterns
        self.classes = [None]  # enclosing class names, for private-name mangling
        self.quotes = []       # quote characters of the enclosing f-strings

    def _next(self):
        self.iid += 1
        return cst.Integer(str(self.iid))

    # -- regions left alone ---------------------------------------------------------

    def on_visit(self, node):
        if isinstance(node, _SKIP):
            self.skip += 1
        if isinstance(node, cst.FormattedString):
            self.quotes.append(node.end)
        if isinstance(node, cst.ClassDef):
            self.classes.append(node.name.value)
        elif isinstance(node, (cst.FunctionDef, cst.Lambda)):
            self.classes.append(self.classes[-1])
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        if isinstance(original_node, _SKIP):
            self.skip -= 1
        if isinstance(original_node, cst.FormattedString):
            self.quotes.pop()
        if isinstance(original_node, (cst.ClassDef, cst.FunctionDef, cst.Lambda)):
            self.classes.pop()
        return result

    def _string(self, text):
        """A string literal that may stand inside the enclosing f-strings (None if none can)."""
        used = "".join(self.quotes)
        for q in ("'", '"'):
            if q not in used:
                return cst.SimpleString(q + text + q)  # identifiers need no escaping
        return None

    def _load(self, node):
        if self.skip:
            return False
        ctx = self.get_metadata(ExpressionContextProvider, node, None)
        return ctx is ExpressionContext.LOAD

    # -- reads and calls --------------------------------------------------------------

    def leave_Name(self, original_node, updated_node):
        name = original_node.value
        if name in _CONSTANT_NAMES or not self._load(original_node):
            return updated_node
        text = self._string(_mangle(name, self.classes[-1]))
        if text is None:
            return updated_node
        args = [self._next(), text, cst.Lambda(params=cst.Parameters(), body=cst.Name(name))]
        scope = self.get_metadata(ScopeProvider, original_node, None)
        if isinstance(scope, ClassScope):
            # a thunk cannot see the class namespace: pass it along, unless the
            # class body rebinds `locals` itself (then the read stays as written)
            if scope.assignments["locals"]:
                return updated_node
            args.append(_call("locals"))
        return _call("_n_", *args).with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_Attribute(self, original_node, updated_node):
        updated_node = updated_node.with_changes(attr=original_node.attr)
        if not self._load(original_node):
            return updated_node
        text = self._string(_mangle(original_node.attr.value, self.classes[-1]))
        if text is None:
            return updated_node
        return _call("_a_", self._next(), updated_node.value, text).with_changes(
            lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_Arg(self, original_node, updated_node):
        return updated_node.with_changes(keyword=original_node.keyword)

    def leave_Call(self, original_node, updated_node):
        if self.skip:
            return updated_node
        args = list(updated_node.args)
        if len(args) == 1 and isinstance(args[0].value, cst.GeneratorExp) and not args[0].value.lpar:
            args[0] = args[0].with_changes(value=args[0].value.with_changes(
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        head = [cst.Arg(self._next(), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Arg(updated_node.func, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                        if args else cst.MaybeSentinel.DEFAULT)]
        return cst.Call(func=cst.Name("_c_"), args=head + args,
                        lpar=updated_node.lpar, rpar=updated_node.rpar)

    # -- line markers -------------------------------------------------------------------

    def _marked(self, body):
        if not body:
            return body
        last = body[-1]
        if isinstance(last, (cst.Return, cst.Raise, cst.Continue, cst.Break)):
            return body
        if any(isinstance(s, cst.ImportFrom) and isinstance(s.module, cst.Name)
               and s.module.value == "__future__" for s in body):
            return body
        marker = cst.Expr(_call("_l_", self._next()))
        return [*body[:-1], last.with_changes(semicolon=cst.Semicolon(
            whitespace_before=cst.SimpleWhitespace(""),
            whitespace_after=cst.SimpleWhitespace(" "))), marker]

    def leave_SimpleStatementLine(self, original_node, updated_node):
        return updated_node.with_changes(body=self._marked(list(updated_node.body)))

    def leave_SimpleStatementSuite(self, original_node, updated_node):
        return updated_node.with_changes(body=self._marked(list(updated_node.body)))


class Result:
    """The same surface the checks use from ``lexecutor_c.instrument``."""

    def __init__(self, source, filename, iids):
        self.source = source
        self.filename = filename
        self.line_map = None
        self.iid_count = iids

    def compile(self, filename=None):
        return compile(self.source, filename or self.filename, "exec", dont_inherit=True)


def instrument(source, filename="<snippet>"):
    """Instrument *source* (str or bytes) with LibCST."""
    module = cst.parse_module(source)  # bytes: honours the coding cookie
    tool = Instrumenter()
    out = cst.MetadataWrapper(module, unsafe_skip_copy=True).visit(tool)
    return Result(out.code, filename, tool.iid)


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        sys.stdout.write(instrument(f.read(), sys.argv[1]).source)
