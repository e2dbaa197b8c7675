"""Semantics-changing commits (RQ4 of the LExecutor paper).

For every commit of a range that changes exactly one Python function, the
old and the new version of that function are executed under injection and
their return values compared:

* The function is extracted on its own (decorators dropped, methods
  dedented) and executed in a sandbox child; everything it reads that is not
  defined in it -- module globals, imports, ``self``'s attributes, results of
  calls of other code -- is missing and gets injected.
* Randomized injection with a fixed seed: the runtime derives every injected
  value from ``(seed, name, class)`` only, so the unchanged parts of the two
  versions read identical values.  The arguments come from the same
  mechanism: every parameter without a default is injected by its name
  (``self`` included); parameters with defaults keep them, so a changed
  default shows up.
* Per seed the pair is ``exception`` (either version raised, timed out or
  crashed), ``changed`` (return types differ, primitive return values
  differ, or collection sizes differ) or ``same``.  Over the seeds: a
  commit is ``changed`` if any seed differs, else ``same`` if some seed ran
  both versions to a return, else ``exception``.

Commits are found with ``git`` through ``subprocess``: no extra dependency,
and revision ranges mean exactly what they mean to ``git log``.
"""
from __future__ import annotations

import ast
import inspect
import itertools
import os
import subprocess
import textwrap
from dataclasses import asdict, dataclass, field
from typing import Optional

from ..engine import sandbox

__all__ = ["GitError", "FunctionDef", "CommitCheck", "check_commits", "functions_of",
           "compare_function", "describe_value", "compare_values"]

#: values of the tool's verdicts
CHANGED, SAME, EXCEPTION, SKIPPED = "changed", "same", "exception", "skipped"
DEFAULT_SEEDS = (0, 1, 2, 3, 4)
_PRIMITIVES = (type(None), bool, int, float, complex, str, bytes)
_COLLECTIONS = (list, tuple, dict, set, frozenset, bytearray, range)
_GEN_MAX = 1000


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


# ---------------------------------------------------------------- functions

@dataclass
class FunctionDef:
    qualname: str
    name: str
    source: str            # dedented, without decorators
    dump: str              # ast.dump without positions: equal dumps = same code
    line: int
    required: list         # parameters without default, passed positionally
    kwonly: list           # keyword-only parameters without default
    is_async: bool


def _function_def(node, qualname: str, text: str) -> FunctionDef:
    seg = ast.get_source_segment(text, node, padded=True) or ""
    a = node.args
    positional = a.posonlyargs + a.args
    n_required = len(positional) - len(a.defaults)
    required = [p.arg for p in positional[:n_required]]
    kwonly = [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
    return FunctionDef(qualname, node.name, textwrap.dedent(seg),
                       ast.dump(node, include_attributes=False), node.lineno, required,
                       kwonly, isinstance(node, ast.AsyncFunctionDef))


def functions_of(text: str, filename: str = "<file>") -> dict[str, FunctionDef]:
    """qualname -> FunctionDef for the functions and methods of a module
    (nested functions belong to their enclosing function; a name defined
    twice gets ``#2``).  Raises SyntaxError."""
    tree = ast.parse(text, filename)
    out: dict[str, FunctionDef] = {}

    def visit(stmts, prefix):
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + s.name
                k, n = q, 1
                while k in out:
                    n += 1
                    k = f"{q}#{n}"
                out[k] = _function_def(s, k, text)
            elif isinstance(s, ast.ClassDef):
                visit(s.body, f"{prefix}{s.name}.")
            else:
                for attr in ("body", "orelse", "finalbody"):
                    visit(getattr(s, attr, None) or [], prefix)
                for h in getattr(s, "handlers", None) or []:
                    visit(h.body, prefix)
                for c in getattr(s, "cases", None) or []:
                    visit(c.body, prefix)
    visit(tree.body, "")
    return out


# ---------------------------------------------------------------- execution

def describe_value(v) -> dict:
    """What the comparison looks at: the type, the value of primitives, the
    size of collections (generators are drained, up to 1000 items)."""
    if inspect.isgenerator(v):
        items = list(itertools.islice(v, _GEN_MAX))
        return {"type": "generator", "size": len(items)}
    t = type(v)
    name = t.__qualname__ if t.__module__ in ("builtins", "__main__") else \
        f"{t.__module__}.{t.__qualname__}"
    d = {"type": name}
    if isinstance(v, _PRIMITIVES) and t in _PRIMITIVES:
        d["value"] = repr(v)
    elif t in _COLLECTIONS:
        d["size"] = len(v)
    return d


def _absent():
    raise NameError("absent")


def _run_function(fsrc: str, name: str, required: list, kwonly: list, is_async: bool,
                  seed: int, predictor: str, filename: str) -> dict:
    """In the sandbox child: define the function under injection, inject its
    arguments by name and call it."""
    import builtins
    from .._core import Runtime
    from ..engine import run as api
    from ..engine.instrument import instrument
    inst = instrument(fsrc, filename=filename)
    code = inst.compile()
    rt = Runtime(sites=inst.iids, predictor=predictor, abstraction="fine",
                 seed=seed, randomize=True, record=False, filename=filename)
    loaders = rt.loaders()
    env = {"__name__": "__lexecuted__", "__builtins__": builtins, "__file__": filename}
    env.update(loaders)
    try:
        exec(code, env)
        fn = env.get(name)
        inject = loaders["_n_"]
        args = [inject(0, p, _absent) for p in required]
        kwargs = {p: inject(0, p, _absent) for p in kwonly}
        if is_async:
            import asyncio
            value = asyncio.run(fn(*args, **kwargs))
        else:
            value = fn(*args, **kwargs)
        out = {"returned": describe_value(value)}
    except sandbox.Timeout:
        out = {"raised": {"type": "Timeout", "message": "timed out", "line": None}}
    except BaseException as e:
        out = {"raised": {"type": api._type_name(type(e)), "message": api._safe_str(e)[:300],
                          "line": api._exception_line(e, filename)}}
    out["injections"] = len(rt.injections)
    return out


def run_version(fn: FunctionDef, seed: int, *, predictor: str = "random",
                timeout: float = 5.0, filename: str = "<function>") -> dict:
    """One isolated run: ``{"returned": {...}}`` or ``{"raised": {...}}``."""
    out = sandbox.call_isolated(_run_function, fn.source, fn.name, fn.required, fn.kwonly,
                                fn.is_async, seed, predictor, filename,
                                limits=sandbox.Limits(timeout=timeout))
    if out.status == "ok" and isinstance(out.value, dict):
        return out.value
    what = {"timeout": "Timeout", "memory": "MemoryError"}.get(out.status, "Crash")
    return {"raised": {"type": what, "message": out.describe(), "line": None}}


def compare_values(old: dict, new: dict) -> tuple[str, str]:
    """(verdict, detail) for two runs of one seed."""
    if "raised" in old or "raised" in new:
        def s(r):
            if "raised" in r:
                x = r["raised"]
                return f"raised {x['type']}: {x['message']}"
            return f"returned {r['returned']['type']}"
        return EXCEPTION, f"old {s(old)}; new {s(new)}"
    a, b = old["returned"], new["returned"]
    if a["type"] != b["type"]:
        return CHANGED, f"return type {a['type']} -> {b['type']}"
    if "value" in a and a.get("value") != b.get("value"):
        return CHANGED, f"return value {a['value']} -> {b['value']}"
    if "size" in a and a.get("size") != b.get("size"):
        return CHANGED, f"{a['type']} size {a['size']} -> {b['size']}"
    return SAME, f"both return {a['type']}" + (f" {a['value']}" if "value" in a else "") + \
        (f" of size {a['size']}" if "size" in a else "")


def compare_function(old: FunctionDef, new: FunctionDef, seeds=DEFAULT_SEEDS, *,
                     predictor: str = "random", timeout: float = 5.0,
                     filename: str = "<function>") -> tuple[str, str, list]:
    """Run both versions with every seed: (verdict, detail, per-seed rows)."""
    rows = []
    for seed in seeds:
        a = run_version(old, seed, predictor=predictor, timeout=timeout, filename=filename)
        b = run_version(new, seed, predictor=predictor, timeout=timeout, filename=filename)
        verdict, detail = compare_values(a, b)
        rows.append({"seed": seed, "verdict": verdict, "detail": detail, "old": a, "new": b})
    changed = [r for r in rows if r["verdict"] == CHANGED]
    same = [r for r in rows if r["verdict"] == SAME]
    if changed:
        r = changed[0]
        return CHANGED, f"seed {r['seed']}: {r['detail']}", rows
    if same:
        n_exc = len(rows) - len(same)
        extra = f" ({n_exc} of {len(rows)} seeds raised)" if n_exc else ""
        return SAME, f"{same[0]['detail']} in {len(same)} of {len(rows)} seeds{extra}", rows
    return EXCEPTION, f"seed {rows[0]['seed']}: {rows[0]['detail']}" if rows else "", rows


# ---------------------------------------------------------------- commits

@dataclass
class CommitCheck:
    commit: str                       # sha, or "staged"
    subject: str
    verdict: str                      # changed | same | exception | skipped
    detail: str = ""
    file: Optional[str] = None
    function: Optional[str] = None
    parent: Optional[str] = None
    seeds: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def _decode(data: bytes, path: str) -> str:
    from ..engine.run import load_source
    if b"\0" in data:
        raise ValueError(f"{path} is a binary file")
    text, _ = load_source(data, path)
    return text


def _touched(repo: str, old_rev: str, new_rev: Optional[str]):
    """(list of (file, qualname, old FunctionDef|None, new FunctionDef|None),
    reason to skip or None)."""
    touched = []
    for st, a, b in _changed_py_files(repo, old_rev, new_rev):
        try:
            old_text = _decode(_show(repo, old_rev, a), a) if st != "A" and a.endswith(".py") \
                else ""
            new_text = _decode(_show(repo, new_rev, b), b) if st != "D" and b.endswith(".py") \
                else ""
        except (ValueError, GitError) as e:
            return [], f"cannot read {b}: {e}"
        fns = []
        for label, text, path in (("old", old_text, a), ("new", new_text, b)):
            try:
                fns.append(functions_of(text, path))
            except (SyntaxError, ValueError) as e:
                where = f" (line {e.lineno})" if getattr(e, "lineno", None) else ""
                return [], f"the {label} version of {path} does not parse{where}"
        old_f, new_f = fns
        for q in list(old_f) + [q for q in new_f if q not in old_f]:
            o, n = old_f.get(q), new_f.get(q)
            if o is None or n is None or o.dump != n.dump:
                touched.append((b, q, o, n))
    return touched, None


def check_commits(repo: str = ".", rev_range: Optional[str] = None, *, staged: bool = False,
                  seeds=DEFAULT_SEEDS, predictor: str = "random", timeout: float = 5.0,
                  progress=None) -> list[CommitCheck]:
    """Check each commit of ``rev_range`` (default ``HEAD``: the last commit)
    or, with ``staged``, the staged changes against ``HEAD``.  Raises GitError
    for a path that is no repository, a bad range, or git failing."""
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
    results = []
    for sha, parents, subject in todo:
        if progress is not None:
            progress(sha, subject)
        new_rev = None if sha == "staged" else sha
        if len(parents) > 1:
            results.append(CommitCheck(sha, subject, SKIPPED, "merge commit", parent=parents[0]))
            continue
        if not parents:
            results.append(CommitCheck(sha, subject, SKIPPED, "root commit: no old version"))
            continue
        touched, why = _touched(root, parents[0], new_rev)
        if why is not None:
            results.append(CommitCheck(sha, subject, SKIPPED, why, parent=parents[0]))
            continue
        if not touched:
            results.append(CommitCheck(sha, subject, SKIPPED, "changes no function",
                                       parent=parents[0]))
            continue
        if len(touched) > 1:
            names = ", ".join(f"{f}:{q}" for f, q, _, _ in touched[:4])
            more = "" if len(touched) <= 4 else ", ..."
            results.append(CommitCheck(sha, subject, SKIPPED,
                                       f"changes {len(touched)} functions ({names}{more})",
                                       parent=parents[0]))
            continue
        path, q, old, new = touched[0]
        if old is None or new is None:
            results.append(CommitCheck(sha, subject, SKIPPED,
                                       "adds the function" if old is None else
                                       "removes the function",
                                       file=path, function=q, parent=parents[0]))
            continue
        verdict, detail, rows = compare_function(old, new, seeds, predictor=predictor,
                                                 timeout=timeout, filename=path)
        results.append(CommitCheck(sha, subject, verdict, detail, file=path, function=q,
                                   parent=parents[0], seeds=rows))
    return results


def summary(checks: list[CommitCheck]) -> dict:
    counts = {CHANGED: 0, SAME: 0, EXCEPTION: 0, SKIPPED: 0}
    for c in checks:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    return {"commits": len(checks), **counts}
