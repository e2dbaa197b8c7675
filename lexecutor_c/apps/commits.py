"""Semantics-changing commits (RQ4 of the LExecutor paper), per function.

For every commit of a range (or the staged changes), each changed ``.py``
file is parsed at both revisions and its functions and methods are keyed by
qualified name.  Every function whose code changed (docstrings, annotations,
comments and formatting do not count) gets its own check: the old and the
new version run on the same inputs and are compared
(:mod:`lexecutor_c.apps.behaviour`: return values, exception types, printed
output, mutations of the arguments and of ``self``).  Functions in test files
are reported apart; their calls of the changed function with literal
arguments become inputs.  Added and removed functions, and module-level code
that changed, are reported.

A commit is ``changed`` when some input distinguishes the versions of one of
its functions (the report shows that input), ``same`` when every changed
function ran its changed lines alike on every input, else ``undecided``
(some function's changed lines were never reached, or every run failed).

Commits are found with ``git`` through ``subprocess``: no extra dependency,
and revision ranges mean exactly what they mean to ``git log``.
"""
from __future__ import annotations

import ast
import re
import os
import subprocess
import time
from dataclasses import dataclass, field
from typing import Optional

from .behaviour import (CHANGED, EXCEPTION, SAME, UNREACHED, FunctionCheck, Input, Options,
                        Tree, Version, check_function, code_dump, function_versions)

__all__ = ["GitError", "CommitCheck", "FunctionCheck", "check_commits", "summary",
           "is_test_path", "module_level_dump", "CHANGED", "SAME", "UNDECIDED", "SKIPPED"]

#: commit verdicts (function checks also use UNREACHED / EXCEPTION / added / removed)
UNDECIDED, SKIPPED = "undecided", "skipped"
DEFAULT_SEEDS = (0, 1)


class GitError(Exception):
    """git failed, or the path is no git repository: one line for the user."""


# ---------------------------------------------------------------- git

def _git(repo: str, *args: str, binary: bool = False):
    try:
        p = subprocess.run(["git", "-C", repo, *args], capture_output=True, timeout=60)
    except FileNotFoundError:
        raise GitError("git is not installed (no 'git' on PATH)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {' '.join(args)} took too long") from None
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        first = next((m for m in msg if m.startswith("fatal:")), msg[0] if msg else "")
        raise GitError(first.removeprefix("fatal: ") or f"git {args[0]} failed")
    return p.stdout if binary else p.stdout.decode("utf-8", "replace")


def repo_root(path: str) -> str:
    if not os.path.isdir(path):
        raise GitError(f"not a directory: {path}")
    try:
        return _git(path, "rev-parse", "--show-toplevel").strip()
    except GitError as e:
        if "not a git repository" in str(e):
            raise GitError(f"not a git repository: {path}") from None
        raise


def _commits(repo: str, rev_range: str) -> list[tuple[str, list[str], str]]:
    """(sha, parents, subject) oldest first.  A single revision (no '..',
    no '^') means that one commit."""
    if rev_range.startswith("-"):
        raise GitError(f"bad revision range {rev_range!r}")
    single = ".." not in rev_range and "^" not in rev_range
    args = ["log", "--format=%H%x1f%P%x1f%s", "--reverse"]
    if single:
        args += ["--no-walk"]
    try:
        out = _git(repo, *args, rev_range, "--")
    except GitError as e:
        raise GitError(f"bad revision range {rev_range!r}: {e}") from None
    rows = []
    for line in out.splitlines():
        if not line.strip():
            continue
        sha, parents, subject = (line.split("\x1f") + ["", ""])[:3]
        rows.append((sha, parents.split(), subject))
    return rows


def _changed_py_files(repo: str, old: str, new: Optional[str]) -> list[tuple[str, str, str]]:
    """(status, old path, new path) of changed .py files between two trees;
    new None: the index (staged changes)."""
    if new is None:
        out = _git(repo, "diff", "--cached", "--name-status", "-M", "-z", old, "--")
    else:
        out = _git(repo, "diff-tree", "-r", "--name-status", "-M", "-z", old, new, "--")
    parts = out.split("\0")
    rows = []
    i = 0
    while i < len(parts) and parts[i]:
        st = parts[i]
        if st[0] in "RC":
            a, b = parts[i + 1], parts[i + 2]
            i += 3
        else:
            a = b = parts[i + 1]
            i += 2
        if a.endswith(".py") or b.endswith(".py"):
            rows.append((st[0], a, b))
    return rows


def _show(repo: str, rev: Optional[str], path: str) -> bytes:
    return _git(repo, "show", f"{rev or ''}:{path}", binary=True)



# ---------------------------------------------------------------- what a commit touches

_TEST_DIRS = {"test", "tests", "testing", "unittests"}


def is_test_path(path: str) -> bool:
    """Test code by the usual conventions: a test/tests/testing folder,
    test_*.py, *_test.py, conftest.py."""
    parts = path.replace("\\", "/").split("/")
    base = parts[-1]
    return any(p in _TEST_DIRS for p in parts[:-1]) or base.startswith("test_") or \
        base.endswith("_test.py") or base in ("conftest.py", "tests.py", "test.py")


class _Blank(ast.NodeTransformer):
    def _fn(self, node):
        node.body = [ast.Pass()]
        node.decorator_list = [d for d in node.decorator_list]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _fn


def module_level_dump(tree: ast.Module) -> str:
    """The module with every function body replaced by ``pass``: what is left
    is module-level and class-level code (docstrings and annotations
    normalized away)."""
    import copy
    t = _Blank().visit(copy.deepcopy(tree))
    return code_dump(t)


@dataclass
class _Touched:
    path: str
    qualname: str
    old: Optional[Version]
    new: Optional[Version]
    test: bool

    @property
    def status(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "modified"


def _decode(data: bytes, path: str) -> str:
    from ..engine.run import load_source
    if b"\0" in data:
        raise ValueError(f"{path} is a binary file")
    text, _ = load_source(data, path)
    return text


def _touched(repo: str, old_rev: str, new_rev: Optional[str]):
    """(touched functions, files whose module-level code changed, problems)."""
    touched, module_files, problems = [], [], []
    for st, a, b in _changed_py_files(repo, old_rev, new_rev):
        try:
            old_text = _decode(_show(repo, old_rev, a), a) if st != "A" and a.endswith(".py") \
                else ""
            new_text = _decode(_show(repo, new_rev, b), b) if st != "D" and b.endswith(".py") \
                else ""
        except (ValueError, GitError) as e:
            problems.append(f"cannot read {b}: {e}")
            continue
        fns, trees = [], []
        bad = False
        for label, text, path in (("old", old_text, a), ("new", new_text, b)):
            try:
                fns.append(function_versions(text, path))
                trees.append(ast.parse(text, path))
            except (SyntaxError, ValueError, RecursionError) as e:
                where = f" (line {e.lineno})" if getattr(e, "lineno", None) else ""
                problems.append(f"the {label} version of {path} does not parse{where}")
                bad = True
                break
        if bad:
            continue
        old_f, new_f = fns
        test = is_test_path(b)
        if not test and st not in "AD" and module_level_dump(trees[0]) != \
                module_level_dump(trees[1]):
            module_files.append(b)
        for q in list(old_f) + [q for q in new_f if q not in old_f]:
            o, n = old_f.get(q), new_f.get(q)
            if o is None or n is None or code_dump(o.node, False) != code_dump(n.node, False):
                touched.append(_Touched(b, q, o, n, test))
    return touched, module_files, problems


# ---------------------------------------------------------------- inputs from tests

_MAX_TEST_CALLS = 6
_BUILTINS = set(dir(__import__("builtins")))


def _free_names(e: ast.AST) -> set:
    """Names an expression reads that it does not bind itself (lambda
    parameters, comprehension targets)."""
    bound, used = set(), set()
    for x in ast.walk(e):
        if isinstance(x, ast.Lambda):
            a = x.args
            bound.update(p.arg for p in a.posonlyargs + a.args + a.kwonlyargs)
            bound.update(p.arg for p in (a.vararg, a.kwarg) if p is not None)
        elif isinstance(x, ast.comprehension):
            bound.update(n.id for n in ast.walk(x.target) if isinstance(n, ast.Name))
        elif isinstance(x, ast.NamedExpr) and isinstance(x.target, ast.Name):
            bound.add(x.target.id)
        elif isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load):
            used.add(x.id)
    return used - bound


#: a line with its end (``\r\n``, ``\r`` or ``\n``; not the other breaks
#: ``str.splitlines`` knows, as the parser counts lines)
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def test_basedir(repo: str, rev: Optional[str], path: str) -> Optional[str]:
    """The folder pytest puts on ``sys.path`` for the test file ``path`` (its
    "prepend" import mode: the first folder up from the file's own that is
    no package), relative to the repository's root ("" for the root); None
    where git cannot tell.  Test helpers and data packages beside the tests
    (``from support import ...``, ``finder('foofoo')``) import from there."""
    folder = os.path.dirname(path)
    try:
        while folder:
            try:
                _show(repo, rev, f"{folder}/__init__.py")
            except GitError:
                break
            folder = os.path.dirname(folder)
    except Exception:
        return None
    return folder


class _TestFile:
    basedir: Optional[str] = None       # test_basedir, once read

    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.tree = ast.parse(text, path)
        self.imports: dict = {}          # name -> import statement source
        for s in self.tree.body:
            if isinstance(s, (ast.Import, ast.ImportFrom)) and not getattr(s, "level", 0):
                src = ast.get_source_segment(text, s) or ""
                for nm in _bound_by_import(s):
                    self.imports[nm] = src
        self.parents: dict = {}
        for node in ast.walk(self.tree):
            for ch in ast.iter_child_nodes(node):
                self.parents[ch] = node
        # the lines with their ends, split once (``ast.get_source_segment``
        # splits the whole text on every call: a test file of thousands of
        # calls took minutes)
        self._lines = _LINES.findall(text)

    def function_of(self, node) -> Optional[ast.AST]:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return node
        return None

    def src(self, e) -> str:
        """``e``'s source text, as ``ast.get_source_segment`` gives it."""
        try:
            a, b = e.lineno - 1, e.end_lineno - 1
            ca, cb = e.col_offset, e.end_col_offset
        except (AttributeError, TypeError):
            return ""
        if ca is None or cb is None or not 0 <= a <= b < len(self._lines):
            return ""
        if a == b:
            return self._lines[a].encode()[ca:cb].decode(errors="replace")
        return "".join([self._lines[a].encode()[ca:].decode(errors="replace"),
                        *self._lines[a + 1:b],
                        self._lines[b].encode()[:cb].decode(errors="replace")])

    def usable(self, exprs) -> Optional[list]:
        """The import statements the expressions need; None when they read
        a name neither a builtin nor imported at the test module's top."""
        need = []
        for e in exprs:
            for nm in _free_names(e):
                if nm in _BUILTINS:
                    continue
                if nm not in self.imports:
                    return None
                if self.imports[nm] not in need:
                    need.append(self.imports[nm])
        return need

    def receiver(self, recv: ast.AST, call: ast.AST):
        """The expression that made the object a method is called on: the
        expression itself, or the last ``name = expr`` before the call in
        the same test function."""
        if not isinstance(recv, ast.Name):
            return recv
        fn = self.function_of(call)
        if fn is None:
            return None
        best = None
        for s in ast.walk(fn):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], ast.Name) and s.targets[0].id == recv.id and \
                    s.lineno < call.lineno:
                if best is None or s.lineno > best.lineno:
                    best = s
        return best.value if best is not None else None


def _bound_by_import(s) -> list:
    if isinstance(s, ast.Import):
        return [(a.asname or a.name).split(".")[0] for a in s.names]
    return [a.asname or a.name for a in s.names if a.name != "*"]


#: special methods and how code uses them: a builtin called on the object,
#: or an operator whose left operand (right, for ``in``) it is
_DUNDER_USES = {
    "__repr__": "repr", "__str__": "str", "__len__": "len", "__hash__": "hash",
    "__bool__": "bool", "__iter__": "list", "__eq__": ast.Eq, "__ne__": ast.NotEq,
    "__lt__": ast.Lt, "__le__": ast.LtE, "__gt__": ast.Gt, "__ge__": ast.GtE,
    "__contains__": ast.In, "__getitem__": ast.Subscript, "__add__": ast.Add,
    "__sub__": ast.Sub, "__mul__": ast.Mult, "__and__": ast.BitAnd, "__or__": ast.BitOr,
    "__truediv__": ast.Div, "__mod__": ast.Mod,
}


def _dunder_use(e: ast.AST, name: str):
    """(receiver expression, argument expressions) when ``e`` uses the
    special method ``name`` (``repr(x)``, ``x == y``, ``k in x``, ``x[k]``)."""
    use = _DUNDER_USES[name]
    if isinstance(use, str):
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == use \
                and len(e.args) == 1 and not e.keywords:
            return e.args[0], []
        return None
    if use is ast.Subscript:
        if isinstance(e, ast.Subscript) and isinstance(e.ctx, ast.Load) and \
                not isinstance(e.slice, ast.Slice):
            return e.value, [e.slice]
        return None
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], use):
        if use is ast.In:
            return e.comparators[0], [e.left]
        return e.left, [e.comparators[0]]
    if isinstance(e, ast.BinOp) and isinstance(e.op, use):
        return e.left, [e.right]
    return None


def _call_input(tf: _TestFile, v: Version, e: ast.AST) -> Optional[Input]:
    """An Input from one expression of a test file that calls ``v``."""
    kind = v.kind
    name = v.name
    cls_name = v.cls.name if v.cls is not None else None
    self_e = None
    if kind == "method" and name in _DUNDER_USES:
        found = _dunder_use(e, name)
        if found is None:
            return None
        recv, args = found
        self_e = tf.receiver(recv, e)
        if self_e is None:
            return None
        kws = []
    elif kind == "getter":
        if not (isinstance(e, ast.Attribute) and e.attr == name and
                isinstance(e.ctx, ast.Load)):
            return None
        if isinstance(tf.parents.get(e), ast.Call) and tf.parents[e].func is e:
            return None
        self_e = tf.receiver(e.value, e)
        args, kws = [], []
    else:
        if not isinstance(e, ast.Call):
            return None
        f = e.func
        called = f.id if isinstance(f, ast.Name) else f.attr \
            if isinstance(f, ast.Attribute) else None
        if name == "__init__" and cls_name:
            if called != cls_name:
                return None
        elif called != name:
            return None
        elif kind == "method":
            if not isinstance(f, ast.Attribute):
                return None
            self_e = tf.receiver(f.value, e)
            if self_e is None:
                return None
        elif kind == "function" and isinstance(f, ast.Attribute) and not (
                isinstance(f.value, ast.Name) and f.value.id in tf.imports):
            return None
        if any(isinstance(a, ast.Starred) for a in e.args) or \
                any(k.arg is None for k in e.keywords):
            return None
        args, kws = list(e.args), list(e.keywords)
    exprs = ([self_e] if self_e is not None else []) + args + [k.value for k in kws]
    imports = tf.usable(exprs)
    if imports is None:
        return None
    call = {"self": tf.src(self_e) if self_e is not None else None,
            "args": [tf.src(a) for a in args],
            "kwargs": {k.arg: tf.src(k.value) for k in kws}, "imports": imports}
    if tf.basedir is not None:
        call["testdir"] = tf.basedir
    if any(not x for x in call["args"]) or any(not x for x in call["kwargs"].values()):
        return None
    return Input("", call, 0, f"test call {tf.path}:{e.lineno}")


def inputs_from_tests(repo: str, rev: Optional[str], v: Version, touched_tests=(),
                      seed: int = 0, cap: int = _MAX_TEST_CALLS) -> list:
    """Inputs from calls of ``v``'s function in the repository's test files
    at ``rev`` (None: the index), those in test functions the commit touched
    first: the call's argument expressions and, for a method, the expression
    that made the object (evaluated in the module; they may only use builtins
    and what the test module imports)."""
    name = v.cls.name if v.cls is not None and (v.name == "__init__" or
                                                 v.name in _DUNDER_USES) else v.name
    args = ["grep", "-l", "-w", "-F", "-e", name]
    args += ["--cached"] if rev is None else [rev]
    args += ["--", "*.py"]
    try:
        out = _git(repo, *args)
    except GitError:
        return []
    files = []
    for line in out.splitlines():
        path = line.split(":", 1)[1] if rev is not None and ":" in line else line
        if is_test_path(path):
            files.append(path)
    touched = {(p, q.split("#")[0].split(".")[-1]) for p, q in touched_tests}
    files.sort(key=lambda p: not any(t[0] == p for t in touched))
    first, rest = [], []
    for path in files[:8]:
        try:
            tf = _TestFile(path, _decode(_show(repo, rev, path), path))
        except Exception:
            continue
        tf.basedir = test_basedir(repo, rev, path)
        # the test functions the commit touched first, whole: the search
        # below stops once it has enough, and a test added at the end of a
        # long file would not be reached
        hot_fns = [n for n in ast.walk(tf.tree)
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                   (path, n.name) in touched]
        for fn_node in hot_fns:
            for e in ast.walk(fn_node):
                if len(first) >= cap:
                    break
                if tf.function_of(e) is not fn_node:
                    continue
                inp = _call_input(tf, v, e)
                if inp is not None:
                    inp.seed = seed
                    first.append(inp)
        for e in ast.walk(tf.tree):
            if len(first) >= cap or len(first) + len(rest) >= 4 * cap:
                break           # enough (the touched tests' files come first)
            fn = tf.function_of(e)
            if fn is not None and fn in hot_fns:
                continue        # taken above
            inp = _call_input(tf, v, e)
            if inp is None:
                continue
            inp.seed = seed
            rest.append(inp)
    out_inputs, seen = [], set()
    for inp in first + rest:
        k = repr(inp.call)
        if k in seen:
            continue
        seen.add(k)
        out_inputs.append(inp)
        if len(out_inputs) >= cap:
            break
    return out_inputs


def _references(node: ast.AST) -> set:
    """Names a function's body refers to: plain names and attribute names
    (``self._helper(...)``, ``Parser(...)``)."""
    out = set()
    for x in ast.walk(node):
        if isinstance(x, ast.Name):
            out.add(x.id)
        elif isinstance(x, ast.Attribute):
            out.add(x.attr)
    return out


def callers_of(v: Version, depth: int = 3) -> list:
    """Functions and methods of ``v``'s module that call it, directly or
    through others of the module (up to ``depth`` calls away), nearest
    first: the entry points a project's tests may reach it through.  A
    reference by name is taken for a call (a method by its name on any
    object; a constructor by its class's name)."""
    from .funcsource import function_versions
    try:
        versions = function_versions(v.text, v.path)
    except SyntaxError:
        return []
    refs = {q: _references(w.node) for q, w in versions.items()}

    def names_of(w: Version) -> set:
        if w.name == "__init__" and w.cls is not None:
            return {w.cls.name}
        return {w.name}
    out, seen = [], {v.qualname}
    frontier = [v]
    for _ in range(depth):
        nxt = []
        for target in frontier:
            want = names_of(target)
            for q, w in versions.items():
                if q in seen or "<locals>" in q or not (refs[q] & want):
                    continue
                if w.name.startswith("__") and w.name != "__init__":
                    continue
                seen.add(q)
                nxt.append(w)
        out.extend(nxt)
        frontier = nxt
    return out


def inputs_from_callers(repo: str, rev: Optional[str], v: Version, touched_tests=(),
                        seed: int = 0, limit: int = 4) -> list:
    """Inputs through callers (:func:`callers_of`): the tests' calls of a
    function or method of the module that leads to ``v``; in module mode the
    caller runs and ``v``'s changed lines are tracked.  Marked with
    ``call["entry"]`` (the caller's path in the module and kind)."""
    pool = []
    for w in callers_of(v):
        if w.kind in ("setter", "deleter"):
            continue
        path = (w.qualname.split("#")[0]).split(".")
        for inp in inputs_from_tests(repo, rev, w, touched_tests, seed, cap=24):
            inp.call["entry"] = {"path": path, "kind": w.kind, "name": w.qualname}
            inp.note = f"{inp.note} through {w.qualname}"
            pool.append(inp)
        if len(pool) >= 48:
            break
    if len(pool) <= limit:
        return pool
    # spread over the pool (the tests of different features), nearest first
    step = len(pool) / limit
    return [pool[int(i * step)] for i in range(limit)]


# ---------------------------------------------------------------- checkouts (module mode)

class _Trees:
    """Checkouts of revisions (their .py files) in a temporary folder, the
    last few kept; ``None`` revision: the index."""

    def __init__(self, repo: str, keep: int = 4):
        import tempfile
        self.repo = repo
        self.base = tempfile.mkdtemp(prefix="lexecutor_c-commits-")
        self.cache: dict = {}
        self.keep = keep
        self.n = 0

    def get(self, rev: Optional[str]) -> Optional[Tree]:
        key = rev or ":index"
        if key in self.cache:
            return self.cache[key]
        import shutil
        import tarfile
        import io
        self.n += 1
        dest = os.path.join(self.base, f"t{self.n}")
        os.makedirs(dest)
        try:
            if rev is None:
                _git(self.repo, "checkout-index", "-a", f"--prefix={dest}/")
            else:
                data = _git(self.repo, "archive", "--format=tar", rev, binary=True)
                with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                    members = [m for m in tar.getmembers()
                               if m.isfile() and m.name.endswith(".py")]
                    tar.extractall(dest, members=members, filter="data")
        except (GitError, tarfile.TarError, OSError):
            shutil.rmtree(dest, ignore_errors=True)
            self.cache[key] = None
            return None
        pk = set()
        for d, _, files in os.walk(dest):
            if "__init__.py" in files:
                pk.add(os.path.relpath(d, dest).replace(os.sep, "/"))
        tree = Tree(dest, pk)
        self.cache[key] = tree
        while len(self.cache) > self.keep:
            old = next(iter(self.cache))
            t = self.cache.pop(old)
            if t is not None:
                shutil.rmtree(t.root, ignore_errors=True)
        return tree

    def close(self) -> None:
        import shutil
        shutil.rmtree(self.base, ignore_errors=True)


# ---------------------------------------------------------------- commits

@dataclass
class CommitCheck:
    commit: str                       # sha, or "staged"
    subject: str
    verdict: str                      # changed | same | undecided | skipped
    detail: str = ""
    parent: Optional[str] = None
    functions: list = field(default_factory=list)     # FunctionCheck, non-test code
    tests: list = field(default_factory=list)         # "file:qualname (status)"
    module_level: list = field(default_factory=list)  # files whose module-level code changed
    seconds: float = 0.0

    @property
    def file(self) -> Optional[str]:
        f = self.first()
        return f.file if f else None

    @property
    def function(self) -> Optional[str]:
        f = self.first()
        return f.function if f else None

    def first(self) -> Optional[FunctionCheck]:
        """The function that decides the verdict (the first changed one, else
        the first modified one)."""
        mods = [f for f in self.functions if f.status in ("modified", "static")]
        for f in mods:
            if f.verdict == CHANGED:
                return f
        return mods[0] if mods else (self.functions[0] if self.functions else None)

    def modified(self) -> list:
        return [f for f in self.functions if f.status in ("modified", "static")]

    def to_dict(self) -> dict:
        return {"commit": self.commit, "subject": self.subject, "verdict": self.verdict,
                "detail": self.detail, "parent": self.parent, "file": self.file,
                "function": self.function, "functions": [f.to_dict() for f in self.functions],
                "tests": self.tests, "module_level": self.module_level,
                "seconds": round(self.seconds, 3)}


def _commit_verdict(c: CommitCheck) -> None:
    mods = c.modified()
    added = [f for f in c.functions if f.status == "added"]
    removed = [f for f in c.functions if f.status == "removed"]
    extra = []
    if added:
        extra.append(f"adds {', '.join(f.function for f in added[:3])}"
                     f"{', ...' if len(added) > 3 else ''}")
    if removed:
        extra.append(f"removes {', '.join(f.function for f in removed[:3])}"
                     f"{', ...' if len(removed) > 3 else ''}")
    if c.module_level:
        extra.append(f"module-level code of {', '.join(c.module_level[:2])}"
                     f"{', ...' if len(c.module_level) > 2 else ''}")
    if c.tests:
        extra.append(f"{len(c.tests)} test function{'s' if len(c.tests) != 1 else ''}")
    tail = ("; " + "; ".join(extra)) if extra else ""
    if not mods:
        c.verdict = SKIPPED
        if added or removed:
            c.detail = "no existing function modified" + tail
        elif c.tests:
            c.detail = "changes tests only" + tail
        elif c.module_level:
            c.detail = "changes module-level code only" + tail
        else:
            c.detail = (c.detail or "changes no function") + tail
        return
    changed = [f for f in mods if f.verdict == CHANGED]
    same = [f for f in mods if f.verdict == SAME]
    if changed:
        f = changed[0]
        c.verdict = CHANGED
        c.detail = f"{f.function}: {f.detail}"
        if len(changed) > 1:
            c.detail += f" (+{len(changed) - 1} more changed)"
    elif len(same) == len(mods):
        c.verdict = SAME
        c.detail = f"{len(mods)} function{'s' if len(mods) != 1 else ''} alike"
    else:
        c.verdict = UNDECIDED
        counts: dict = {}
        for f in mods:
            counts[f.verdict] = counts.get(f.verdict, 0) + 1
        c.detail = ", ".join(f"{n} {k}" for k, n in counts.items())
        f = next(f for f in mods if f.verdict != SAME)
        c.detail += f" ({f.function}: {f.detail})"
    c.detail += tail


def check_commits(repo: str = ".", rev_range: Optional[str] = None, *, staged: bool = False,
                  seeds=DEFAULT_SEEDS, predictor="constraints", timeout: float = 5.0,
                  max_inputs: int = 24, budget: float = 30.0, max_functions: int = 20,
                  use_tests: bool = True, module: bool = True, compare_messages: bool = True,
                  points: str = "gate", progress=None, only: Optional[set] = None) -> list:
    """Check each commit of ``rev_range`` (default ``HEAD``: the last commit)
    or, with ``staged``, the staged changes against ``HEAD``.  ``seeds``:
    seeds of the injected values and of the prefix generator; ``predictor``:
    the injection under the prefixes; ``timeout``: seconds per run;
    ``max_inputs``/``budget``: inputs and seconds per function;
    ``max_functions``: functions checked per commit (the rest are reported
    as not checked); ``use_tests``: inputs from calls in the project's
    tests; ``module``: run each version inside its module, loaded from a
    checkout of its revision (else the function with its context alone);
    ``compare_messages``: a different exception message is a change too
    (the default; False: it is only noted); ``points``: the values where
    the changed lines are left (behaviour.Options.points: "gate", "change",
    "off"); ``only``: a set of ``(path, qualname)`` pairs, the functions to
    check (the others touched are listed as not checked).
    Raises GitError for a path that is no repository, a bad
    range, or git failing."""
    root = repo_root(repo)
    if staged:
        if rev_range:
            raise GitError("give either a revision range or --staged, not both")
        try:
            _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
        except GitError:
            raise GitError("--staged needs a commit to compare with (the repository has none)") \
                from None
        todo = [("staged", ["HEAD"], "staged changes")]
    else:
        todo = _commits(root, rev_range or "HEAD")
    opts = Options(predictor=predictor, seeds=tuple(seeds) or (0,), timeout=timeout,
                   max_inputs=max_inputs, budget=budget, compare_messages=compare_messages,
                   points=points)
    trees = _Trees(root) if module else None
    results = []
    try:
        for sha, parents, subject in todo:
            if progress is not None:
                progress(sha, subject)
            results.append(_check_commit(root, sha, parents, subject, opts, trees,
                                         max_functions, use_tests, only))
    finally:
        if trees is not None:
            trees.close()
    return results


def _check_commit(root, sha, parents, subject, opts, trees, max_functions, use_tests,
                  only=None):
    t0 = time.monotonic()
    new_rev = None if sha == "staged" else sha
    if len(parents) > 1:
        return CommitCheck(sha, subject, SKIPPED, "merge commit", parent=parents[0])
    if not parents:
        return CommitCheck(sha, subject, SKIPPED, "root commit: no old version")
    touched, module_files, problems = _touched(root, parents[0], new_rev)
    c = CommitCheck(sha, subject, SKIPPED, parent=parents[0], module_level=module_files)
    if problems and not any(not t.test for t in touched):
        c.detail = problems[0]
    touched_tests = [(t.path, t.qualname) for t in touched if t.test and t.new is not None]
    n_checked = 0
    for t in touched:
        if t.test:
            c.tests.append(f"{t.path}:{t.qualname} ({t.status})")
            continue
        if t.status != "modified":
            c.functions.append(FunctionCheck(t.path, t.qualname, t.status, t.status,
                                             f"{t.status} in this commit"))
            continue
        static = code_dump(t.old.node) == code_dump(t.new.node)
        if only is not None and (t.path, t.qualname) not in only:
            c.functions.append(FunctionCheck(t.path, t.qualname, "modified", UNDECIDED,
                                             "not checked: not among the functions asked for"))
            continue
        if n_checked >= max_functions and not static:
            c.functions.append(FunctionCheck(t.path, t.qualname, "modified", UNDECIDED,
                                             f"not checked: more than {max_functions} "
                                             "functions in the commit"))
            continue
        n_checked += 0 if static else 1
        tests = inputs_from_tests(root, new_rev, t.new, touched_tests, opts.seeds[0]) \
            if use_tests else []
        old_tree = new_tree = None
        if trees is not None:
            old_tree, new_tree = trees.get(parents[0]), trees.get(new_rev)
        if use_tests and len(tests) < 2 and old_tree is not None and new_tree is not None:
            # few tests call it: the tests of the module's functions that do
            tests += inputs_from_callers(root, new_rev, t.new, touched_tests, opts.seeds[0],
                                         limit=8 - len(tests))
        fc = check_function(t.old, t.new, opts=opts, test_inputs=tests, file=t.path,
                            old_tree=old_tree, new_tree=new_tree)
        if fc.mode == "module" and fc.verdict in (UNDECIDED, UNREACHED, EXCEPTION):
            fc = _alone_if_changed(fc, t, opts)
        c.functions.append(fc)
    if problems and c.functions:
        c.module_level.extend(problems)
    _commit_verdict(c)
    c.seconds = time.monotonic() - t0
    return c


def _alone_if_changed(fc: FunctionCheck, t, opts) -> FunctionCheck:
    """A function its module's runs left undecided or unreached, checked
    alone as ``lexecutor-c compare`` checks it (its module's other code
    made up where it does not load with the function: inputs the module's
    real objects never let it see, made-up values for what it reads): that
    check's "changed", with its distinguishing input, else ``fc``.  (On our
    labelled repositories the function alone told apart changing edits the
    module's runs had left undecided or unreached many times more often
    than preserving ones: docs/APPLICATIONS.md.)"""
    t0 = time.monotonic()
    try:
        alone = check_function(t.old, t.new, opts=opts, file=t.path)
    except Exception:       # (the engine's own failure: the module's answer stands)
        return fc
    if alone.verdict != CHANGED:
        fc.seconds += time.monotonic() - t0
        return fc
    alone.detail = f"{alone.detail} (the function alone; in its module: {fc.verdict})"
    alone.seconds += fc.seconds
    alone.runs += fc.runs
    return alone


def summary(checks: list) -> dict:
    counts = {CHANGED: 0, SAME: 0, UNDECIDED: 0, SKIPPED: 0}
    for c in checks:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    return {"commits": len(checks), **counts}
