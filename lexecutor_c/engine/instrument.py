"""Python face of the C instrumenter (``lexecutor_c._core.instrument``)."""
from __future__ import annotations

import ast
import codecs
import io
import tokenize
from dataclasses import dataclass, field
from types import CodeType

from .. import _core

IidInfo = _core.IidInfo
LineInfo = _core.LineInfo


def _undecodable(data: bytes, encoding: str, exc: UnicodeDecodeError) -> SyntaxError:
    line = data.count(b"\n", 0, exc.start) + 1
    err = SyntaxError(f"source is not valid {encoding}: byte 0x{data[exc.start]:02x} "
                      f"at offset {exc.start} (line {line})")
    err.lineno = line
    return err


def _cpython_accepts(data: bytes) -> bool:
    try:
        compile(data, "<source>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def decode_source(data: bytes) -> str:
    """Decode Python source bytes as CPython does: a BOM or a PEP 263 coding
    cookie picks the codec, UTF-8 otherwise; undecodable bytes raise
    SyntaxError naming the line, like compile() does."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as uexc:
            if not _cpython_accepts(data):
                raise _undecodable(data, "utf-8", uexc) from exc
            return data.decode("utf-8", errors="replace")
        raise
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        # CPython 3.11 tolerates undecodable bytes inside comments: so do we
        # (they become U+FFFD, which changes nothing a program can see)
        if not _cpython_accepts(data):
            raise _undecodable(data, encoding, exc) from exc
        text = data.decode(encoding, errors="replace")
    except LookupError as exc:
        raise SyntaxError(f"unknown source encoding {encoding!r}") from exc
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


@dataclass(frozen=True)
class UndefinedName:
    """A name the snippet reads but binds nowhere (and no builtin).

    ``lines``: where it is read.  ``attrs``: attribute -> list of call
    arities (``None`` for a plain attribute read) of ``name.attr`` uses.
    ``calls``: arities of calls of the name itself (-1: with ``*``/``**``).
    ``keys``: source text of subscripts ``name[key]``.  ``compared``:
    source text of what it is compared with.  ``iterated``/``context``: used
    as a loop iterable / a ``with`` context manager.
    """

    name: str
    lines: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    calls: list = field(default_factory=list)
    keys: list = field(default_factory=list)
    compared: list = field(default_factory=list)
    iterated: bool = False
    context: bool = False


def group_undefined(uses) -> list[UndefinedName]:
    """Group the instrumenter's flat undefined-use tuples by name."""
    by_name: dict[str, UndefinedName] = {}
    for name, line, _col, use, detail, arity in uses:
        u = by_name.setdefault(name, UndefinedName(name))
        if line not in u.lines:
            u.lines.append(line)
        if use in ("attr", "method"):
            arities = u.attrs.setdefault(detail, [])
            if arity not in arities:
                arities.append(arity)
        elif use == "call" and arity not in u.calls:
            u.calls.append(arity)
        elif use == "subscript" and detail is not None and detail not in u.keys:
            u.keys.append(detail)
        elif use == "compare" and detail is not None and detail not in u.compared:
            u.compared.append(detail)
        elif use == "iterate":
            object.__setattr__(u, "iterated", True)
        elif use == "with":
            object.__setattr__(u, "context", True)
    return list(by_name.values())


@dataclass(frozen=True)
class Instrumented:
    """The result of :func:`instrument`.

    ``source``: the instrumented text.  ``iids``: one :class:`IidInfo` per
    instrumented site.  ``lines``: one :class:`LineInfo` per line marker (the
    papers' coverable lines: a statement, or a block header that counts when
    its block is entered).  ``line_map``: ``None`` when instrumented and
    original line numbers agree, else a list mapping instrumented line - 1 to
    the original line.
    """

    source: str
    iids: list
    lines: list
    line_map: list | None
    filename: str = "<snippet>"
    original: str = field(default="", repr=False)
    undefined_uses: list = field(default_factory=list, repr=False)

    @property
    def undefined(self) -> list[UndefinedName]:
        """Names read but bound nowhere, with how they are used (Treefix's
        undefinedness guidance), in order of first use."""
        return group_undefined(self.undefined_uses)

    def original_line(self, line: int) -> int:
        """The original line of an instrumented line number."""
        if self.line_map is None or not 1 <= line <= len(self.line_map):
            return line
        return self.line_map[line - 1]

    def compile(self, filename: str | None = None, flags: int = 0) -> CodeType:
        """Compile the instrumented source; the code object's line numbers
        are those of the original source.  ``flags`` as for compile(), e.g.
        ``ast.PyCF_ALLOW_TOP_LEVEL_AWAIT`` for a snippet that awaits at top
        level (the code object is then a coroutine to run)."""
        filename = filename or self.filename
        try:
            if self.line_map is None:
                return compile(self.source, filename, "exec", flags=flags, dont_inherit=True)
            tree = ast.parse(self.source, filename)
        except SyntaxError:
            # tree-sitter accepted what CPython rejects (e.g. `return` outside
            # a function): report CPython's error on the original text.
            if self.original:
                compile(self.original, filename, "exec", flags=flags, dont_inherit=True)
            raise
        fix = self.line_map
        top = len(fix)
        for node in ast.walk(tree):
            if hasattr(node, "lineno") and node.lineno is not None:
                node.lineno = fix[min(node.lineno, top) - 1]
                end = getattr(node, "end_lineno", None)
                if end is not None:
                    node.end_lineno = max(fix[min(end, top) - 1], node.lineno)
        return compile(tree, filename, "exec", flags=flags, dont_inherit=True)


TREE_SITTER_GAVE_UP = "tree-sitter could not parse this"


def reindent_continuations(text: str) -> str | None:
    """Indent continuation lines inside brackets to at least the indentation
    of the line that opened them.  Python ignores that indentation, but
    tree-sitter's indentation scanner can lose track of a dedented line in
    brackets (CPython's own test_compile has such code).  Line numbers stay;
    columns on the touched lines move.  None when nothing was changed."""
    lines = text.splitlines(keepends=True)
    fix: dict[int, int] = {}
    depth = 0
    indent = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                if depth == 0:
                    row = tok.start[0] - 1
                    indent = len(lines[row]) - len(lines[row].lstrip(" \t"))
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth = max(0, depth - 1)
            elif depth > 0 and tok.type not in (tokenize.NL, tokenize.COMMENT):
                row = tok.start[0] - 1
                line = lines[row]
                lead = len(line) - len(line.lstrip(" \t"))
                if tok.start[1] == lead and lead < indent and row not in fix:
                    fix[row] = indent - lead
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    if not fix:
        return None
    for row, extra in fix.items():
        lines[row] = " " * extra + lines[row]
    return "".join(lines)


def parenthesize_starred_tuples(text: str) -> str | None:
    """Put parentheses around unparenthesized tuples with a starred item in
    ``return``, ``yield`` and assignment values (``return *xs, 1``), which
    tree-sitter-python 0.23 cannot parse.  The parentheses change nothing:
    the value is the same tuple.  None when there is nothing to change."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line.encode("utf-8")))
    data = text.encode("utf-8")
    spans = []
    for node in ast.walk(tree):
        value = getattr(node, "value", None)
        if not isinstance(node, (ast.Return, ast.Assign, ast.AnnAssign, ast.AugAssign,
                                 ast.Yield)) or not isinstance(value, ast.Tuple):
            continue
        if not any(isinstance(e, ast.Starred) for e in value.elts):
            continue
        a = starts[value.lineno - 1] + value.col_offset
        b = starts[value.end_lineno - 1] + value.end_col_offset
        if data[a:a + 1] != b"(":
            spans.append((a, b))
    if not spans:
        return None
    for a, b in sorted(spans, reverse=True):
        data = data[:a] + b"(" + data[a:b] + b")" + data[b:]
    return data.decode("utf-8")


def instrument(source: str | bytes, *, filename: str = "<snippet>", context: int = 16,
               elide: bool = True) -> Instrumented:
    """Rewrite ``source`` so every name read, attribute read and call goes
    through the loaders ``_n_``, ``_a_``, ``_c_`` and every statement is
    followed by a line marker ``_l_`` (docs/LOADERS.md).

    ``context`` is the number of tokens kept on each side of a site for the
    value model; ``elide=False`` wraps even reads that cannot fail.
    Raises SyntaxError for invalid code, ValueError for NUL bytes or sources
    over 256 MiB, RecursionError for nesting deeper than CPython compiles.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = decode_source(bytes(source))
    elif not isinstance(source, str):
        raise TypeError(f"instrument() takes str or bytes, not {type(source).__name__}")
    elif source.startswith("\ufeff"):
        source = source[1:]
    if "\r" in source:
        # CPython reads \r\n and a lone \r as \n; tree-sitter and the line
        # map count \n only, so give them the text CPython sees
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    try:
        text, iids, lines, line_map, undefined = _core.instrument(source, filename, context, elide)
    except SyntaxError as exc:
        # CPython accepted the code but tree-sitter did not: retry once with
        # bracketed continuation lines re-indented (see above).
        if TREE_SITTER_GAVE_UP not in str(exc):
            raise
        for fix in (reindent_continuations, parenthesize_starred_tuples):
            retry = fix(source)
            if retry is None:
                continue
            try:
                text, iids, lines, line_map, undefined = _core.instrument(
                    retry, filename, context, elide)
                break
            except SyntaxError:
                continue
        else:
            raise
    return Instrumented(text, iids, lines, line_map, filename, source, undefined)
