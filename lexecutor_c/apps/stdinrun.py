"""Runtime errors of programs that read their input (issue 23): make valid
inputs, run the program confined with each, and report the crashes.

* **Inputs.** From a grammar (apps/inputspec.py: a description or its JSON
  form): the samples first, then the boundaries (``min``, ``max`` within a
  size cap, all ``equal``, ``sorted``, ``reversed``, ``zeros``), then random
  inputs of growing size.  Every generated input is checked against the
  grammar before it is run; an input the grammar does not accept never
  makes a crash.  Without a description, the inputs are *inferred from the
  reads*: the program runs with a standard input that answers each read
  with what the reading line uses it as (``int(input())`` an integer,
  ``map(int, input().split())`` integers, as many as the targets or as the
  last integer read, ``input()`` a word), and records the stream it gave.
* **Runs.** Each input is one confined run (engine/sandbox.py) of the plain
  program with that standard input; timeouts and memory exhaustion are
  reported apart from exceptions.
* **Crashes** are grouped by (type, line); each keeps the smallest input
  found that triggers it, after shrinking: inputs regenerated with smaller
  caps and integers of the input lowered, kept when the grammar accepts
  them and the same crash happens.
* **Complete programs.** A program whose undefined names are only Python 2
  leftovers (``raw_input``, ``xrange``...) and typos of names it binds or
  of builtins, and whose imports resolve, needs nothing but its input: it
  runs as it is and an undefined name is a real ``NameError`` where it is
  read.  Otherwise the imports the knowledge index places are restored and a
  ``NameError`` of another name is ``missing``, not real.
"""
from __future__ import annotations

import ast
import builtins
import difflib
import importlib.util
import random
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Optional

from ..engine import sandbox
from .funcsource import bound_names
from .inputspec import Grammar

__all__ = ["Completeness", "StdinCrash", "StdinReport", "completeness", "find_stdin_errors",
           "PY2_NAMES"]

PY2_NAMES = frozenset({"raw_input", "xrange", "unicode", "long", "basestring", "unichr",
                       "reduce", "cmp", "file", "execfile", "reload", "intern", "apply",
                       "buffer", "coerce", "raw_print"})
_BUILTINS = set(dir(builtins))


@dataclass
class Completeness:
    complete: bool
    #: name -> why it is undefined: "python2", "typo of X", "unknown"
    undefined: dict = field(default_factory=dict)
    unresolved_imports: list = field(default_factory=list)

    def describe(self) -> str:
        if self.complete:
            extra = ""
            if self.undefined:
                extra = " (undefined: " + ", ".join(f"{k}: {v}" for k, v in
                                                    sorted(self.undefined.items())) + ")"
            return "complete program: it needs nothing but its input" + extra
        what = [k for k, v in self.undefined.items() if v == "unknown"]
        return ("incomplete program: " +
                (f"undefined {', '.join(sorted(what))}" if what else "") +
                ("; " if what and self.unresolved_imports else "") +
                (f"unresolved imports {', '.join(self.unresolved_imports)}"
                 if self.unresolved_imports else ""))


def completeness(text: str, filename: str = "<program>") -> Completeness:
    """Whether the program needs nothing but its input (module docstring)."""
    from ..engine.instrument import instrument
    tree = ast.parse(text, filename)
    undefined = {u.name for u in instrument(text, filename=filename).undefined}
    bound = bound_names(tree)
    why: dict = {}
    for name in sorted(undefined):
        if name in PY2_NAMES:
            why[name] = "python2"
            continue
        close = difflib.get_close_matches(name, sorted((bound | _BUILTINS) - {name}), 1, 0.75)
        why[name] = f"typo of {close[0]}" if close else "unknown"
    unresolved = []
    for n in ast.walk(tree):
        mods = []
        if isinstance(n, ast.Import):
            mods = [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
            mods = [n.module]
        for m in mods:
            try:
                ok = importlib.util.find_spec(m.split(".")[0]) is not None
            except (ImportError, ValueError):
                ok = False
            if not ok:
                unresolved.append(m)
    complete = all(v != "unknown" for v in why.values()) and not unresolved
    return Completeness(complete, why, sorted(set(unresolved)))


# ---------------------------------------------------------------- the child

class _Sink:
    def write(self, s):
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False


def _exc_info(e: BaseException, filename: str) -> dict:
    tb = e.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    try:
        msg = str(e)[:300]
    except BaseException:
        msg = "?"
    return {"type": type(e).__name__, "line": line, "message": msg}


def _stdin_child(text: str, filename: str, prefix: str, offset: int,
                 shapes: Optional[dict], seed: int, mode: str) -> dict:
    code = compile(prefix + text, filename, "exec", dont_inherit=True)
    stream = None
    if shapes is not None:
        stream = _ReadStream(shapes, filename, offset, random.Random(seed), mode)
        sys.stdin = stream
    out: dict = {"status": "ok", "exception": None}
    env = {"__name__": "__main__", "__builtins__": builtins, "__file__": filename}
    sys.stdout = _Sink()
    try:
        exec(code, env)
    except SystemExit:
        out["status"] = "exit"
    except sandbox.Timeout:
        out["status"] = "timeout"
    except MemoryError:
        out["status"] = "memory"
    except BaseException as e:
        out["status"] = "exception"
        info = _exc_info(e, filename)
        if info["line"] is not None:
            info["line"] -= offset
        out["exception"] = info
    finally:
        sandbox._disarm()
        sys.stdout = sys.__stdout__
    if stream is not None:
        out["stream"] = "".join(stream.given)
    env.clear()
    return out


# ---------------------------------------------------------------- reads -> shapes

def _read_call(n: ast.AST) -> bool:
    """input(), raw_input(), sys.stdin.readline(), stdin.readline(), a
    local alias of them (input = sys.stdin.readline is found by name)."""
    if not isinstance(n, ast.Call):
        return False
    f = n.func
    if isinstance(f, ast.Name) and f.id in ("input", "raw_input", "I", "inp", "rl", "readline"):
        return True
    return isinstance(f, ast.Attribute) and f.attr in ("readline",)


def read_shapes(tree: ast.AST) -> dict:
    """line -> the shape of what the read on it becomes: ("int", 1),
    ("ints", k or None), ("str", 1), ("strs", k or None), ("float", 1),
    ("floats", k), ("all", None) for a read of the whole stream."""
    shapes: dict = {}
    for stmt in ast.walk(tree):
        if not isinstance(stmt, (ast.Assign, ast.Expr, ast.AugAssign, ast.For, ast.Return,
                                 ast.If, ast.While, ast.AnnAssign)):
            continue
        reads = [n for n in ast.walk(stmt) if _read_call(n)]
        whole = [n for n in ast.walk(stmt) if isinstance(n, ast.Call) and
                 isinstance(n.func, ast.Attribute) and n.func.attr in ("read", "readlines")]
        if not reads and not whole:
            continue
        line = stmt.lineno
        src = ast.unparse(stmt) if hasattr(ast, "unparse") else ""
        if whole and not reads:
            shapes[line] = ("all", None)
            continue
        k = None
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], (ast.Tuple, ast.List)):
            elts = stmt.targets[0].elts
            if not any(isinstance(e, ast.Starred) for e in elts):
                k = len(elts)
        is_int = bool(re.search(r"\bint\b", src))
        is_float = bool(re.search(r"\bfloat\b", src))
        split = ".split(" in src
        if split:
            kind = "ints" if is_int else "floats" if is_float else "strs"
            shapes[line] = (kind, k)
        elif is_int:
            shapes[line] = ("int", 1)
        elif is_float:
            shapes[line] = ("float", 1)
        elif re.search(r"\blist\(|\bsorted\(|\bset\(", src) and k is None:
            shapes[line] = ("chars", None)
        else:
            shapes[line] = ("str", 1)
    return shapes


def compare_reads(grammar: Grammar, tree: ast.AST) -> list:
    """Notes where the program's first read and the description's first
    line disagree on how many values they hold (``n = int(input())``
    against a first line of two integers)."""
    shapes = read_shapes(tree)
    if not shapes or not grammar.nodes or grammar.nodes[0].kind != "line":
        return []
    kind, k = shapes[min(shapes)]
    fields = grammar.nodes[0].fields
    if any(f.kind not in ("int", "float", "str") for f in fields):
        return []
    want = {"int": 1, "float": 1}.get(kind, k if kind in ("ints", "floats", "strs") else None)
    if want is None or want == len(fields):
        return []
    return [f"the first read (line {min(shapes)}) takes {want} value(s), the description's "
            f"first line has {len(fields)}: check the grammar (--show-grammar)"]


class _ReadStream:
    """A standard input that answers each read by the shape of the line
    that reads (read_shapes), and records what it gave."""

    def __init__(self, shapes: dict, filename: str, offset: int, rng: random.Random,
                 mode: str):
        self.shapes, self.filename, self.offset = shapes, filename, offset
        self.rng, self.mode = rng, mode
        self.given: list = []
        self.last_int: Optional[int] = None
        self.first_int: Optional[int] = None
        self.lines = 0
        self.buffer = self

    def fileno(self):
        raise OSError("no descriptor")

    def isatty(self):
        return False

    def _site(self):
        f = sys._getframe(2)
        while f is not None and f.f_code.co_filename != self.filename:
            f = f.f_back
        return None if f is None else f.f_lineno - self.offset

    def _int(self) -> int:
        """A small positive integer; after the first one (a count, by the
        competitive-programming convention) at most that count, since later
        values are often indices of it."""
        if self.mode == "min":
            v = 1
        elif self.mode == "equal":
            v = 2
        else:
            v = self.rng.choice([1, 2, 3, self.rng.randint(1, 10), self.rng.randint(1, 6)])
        if self.first_int is None:
            self.first_int = v
        elif v > self.first_int:
            v = self.rng.randint(1, self.first_int)
        return v

    def _word(self, n=None) -> str:
        n = n or (1 if self.mode == "min" else self.rng.randint(1, 6))
        if self.mode == "equal":
            return "a" * n
        return "".join(self.rng.choice("abc") for _ in range(n))

    def _make(self, shape) -> str:
        kind, k = shape
        if kind == "int":
            v = self._int()
            self.last_int = v
            return str(v)
        if kind == "float":
            return f"{self._int()}.5"
        if kind in ("ints", "floats", "strs"):
            n = k or (self.last_int if self.last_int is not None and self.last_int <= 50
                      else self.rng.randint(1, 5))
            vals = [self._int() for _ in range(n)]
            if kind == "ints" and k and k >= 1:
                self.last_int = vals[0]
            if kind == "strs":
                return " ".join(self._word() for _ in range(n))
            return " ".join(map(str, vals))
        if kind == "chars":
            return self._word(self.last_int if self.last_int and self.last_int <= 50 else None)
        return self._word(self.last_int if self.last_int and self.last_int <= 50 else None)

    def readline(self, *a):
        self.lines += 1
        if self.lines > 10_000:
            return ""
        site = self._site()
        shape = self.shapes.get(site, ("str", 1))
        if shape[0] == "all":
            return self.read()
        s = self._make(shape) + "\n"
        self.given.append(s)
        return s

    def read(self, *a):
        n = self._int()
        s = f"{n}\n" + " ".join(str(self._int()) for _ in range(n)) + "\n"
        self.given.append(s)
        self.lines = 10_001
        return s

    def readlines(self):
        return [ln + "\n" for ln in self.read().splitlines()]

    def __iter__(self):
        while True:
            s = self.readline()
            if not s:
                return
            yield s

    def write(self, s):
        return len(s)

    def flush(self):
        pass


# ---------------------------------------------------------------- the report

@dataclass
class StdinCrash:
    type: str
    line: Optional[int]
    message: str
    category: str
    input: str                  # the smallest triggering input found
    runs: int                   # inputs that triggered it
    first_input: str = ""       # the first triggering input, before shrinking


@dataclass
class StdinReport:
    filename: str
    mode: str                   # "grammar", "samples" or "inferred"
    assumption: str             # Completeness.describe()
    complete: bool
    crashes: list
    timeouts: list = field(default_factory=list)      # inputs that timed out
    memory: list = field(default_factory=list)        # inputs that ran out of memory
    #: inputs on which the interpreter died ({"input", "why"}: a signal, a C crash)
    killed: list = field(default_factory=list)
    inputs_run: int = 0
    rejected: int = 0           # generated inputs the grammar did not accept (not run)
    grammar: Optional[str] = None
    notes: list = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def _shorter(a: str, b: str) -> bool:
    return (len(a.split()), len(a)) < (len(b.split()), len(b))


def _lower_ints(text: str) -> list:
    """Variants of ``text`` with one integer token lowered (to 0, 1, half)."""
    toks = list(re.finditer(r"-?\d+", text))
    out = []
    for m in toks[:40]:
        v = int(m.group())
        for w in {0, 1, v // 2, -1 if v < 0 else None} - {None, v}:
            if abs(w) < abs(v) or (w == 0 and v != 0):
                out.append(text[:m.start()] + str(w) + text[m.end():])
    return out


def find_stdin_errors(text: str, filename: str, *, grammar: Optional[Grammar] = None,
                      samples: tuple = (), per_run: float = 2.0, budget: float = 8.0,
                      random_inputs: int = 40, max_cap: int = 2000, seed: int = 0,
                      restore: bool = True, shrink: bool = True) -> StdinReport:
    """Run the program on valid inputs (module docstring).  ``samples``:
    inputs (str/bytes) run first, as given; ``grammar`` None and no samples:
    inputs inferred from the reads."""
    t0 = time.monotonic()
    comp = completeness(text, filename)
    prefix, notes = "", []
    if not comp.complete and restore:
        from .prefixes import restore_imports
        restored = restore_imports(text, filename)
        prefix = "".join(stmt + "\n" for _, stmt, _s in restored)
        if restored:
            notes.append("restored: " + "; ".join(stmt for _, stmt, _s in restored))
    offset = prefix.count("\n")
    limits = sandbox.Limits(timeout=per_run, memory=512 * 1024 * 1024)
    unknown = {k for k, v in comp.undefined.items() if v == "unknown"}
    tree = ast.parse(text, filename)
    shapes = read_shapes(tree) if grammar is None and not samples else None
    mode = "grammar" if grammar is not None else "samples" if samples else "inferred"
    whole_stream = shapes is not None and any(v[0] == "all" for v in shapes.values())
    groups: dict = {}
    timeouts: list = []
    memory: list = []
    killed: list = []
    seen: set = set()
    runs = [0]
    rejected = [0]
    trusted = [True]        # False: the grammar rejects a sample
    generated = [False]     # the runs are on generated inputs now

    def run_one(data: str, seed_=0, gen_mode="random") -> Optional[tuple]:
        """(key, exception dict, the input) of a crash, else None."""
        runs[0] += 1
        out = sandbox.call_isolated(_stdin_child, text, filename, prefix, offset, shapes,
                                    seed_, gen_mode, limits=limits,
                                    stdin=None if shapes is not None else data.encode())
        if out.status == "timeout" or (out.ok and out.value.get("status") == "timeout"):
            if len(timeouts) < 5:
                timeouts.append(data[:2000])
            return None
        if out.status == "memory" or (out.ok and out.value.get("status") == "memory"):
            if len(memory) < 5:
                memory.append(data[:2000])
            return None
        if not out.ok or not isinstance(out.value, dict):
            if len(killed) < 5:             # the interpreter died (a signal, a C crash)
                killed.append({"input": data[:2000], "why": out.describe()})
            return None
        v = out.value
        if shapes is not None:
            data = v.get("stream", "")
        e = v.get("exception")
        if e is None:
            return None
        return (e["type"], e["line"]), e, data

    def record(res, category_of):
        key, e, data = res
        g = groups.get(key)
        if g is None:
            groups[key] = StdinCrash(e["type"], e["line"], e["message"], category_of(e), data,
                                     1, data)
        else:
            g.runs += 1
            if _shorter(data, g.input) and (trusted[0] or not generated[0]):
                g.input = data

    def category_of(e) -> str:
        if generated[0] and not trusted[0]:
            return "input-shape"
        if e["type"] in ("NameError", "UnboundLocalError") and not comp.complete:
            m = re.search(r"name '(\w+)'", e["message"])
            if m and m.group(1) in unknown:
                return "missing"
        if e["line"] is None:
            return "missing" if e["type"] in ("ModuleNotFoundError", "ImportError") \
                else "real"
        if mode == "inferred" and ("invalid literal" in e["message"] or
                                   e["type"] == "EOFError" or whole_stream):
            # the inferred shape, not the program, may be wrong: a token of
            # another type, too few lines, or a stream read at once (whose
            # shape the reads do not tell)
            return "input-shape"
        return "real"

    def out_of_time(extra=0.0) -> bool:
        return time.monotonic() - t0 > budget + extra

    if grammar is not None:
        notes.extend(compare_reads(grammar, tree))
    # samples first, as given
    for s in samples:
        s = s.decode(errors="replace") if isinstance(s, (bytes, bytearray)) else s
        if grammar is not None:
            why = grammar.check(s)
            if why:
                trusted[0] = False
                notes.append(f"the grammar does not accept a sample ({why}): crashes on "
                             "generated inputs are not claimed (fix the grammar, "
                             "--show-grammar)")
        seen.add(s)
        res = run_one(s)
        if res:
            record(res, category_of)
            e = res[1]
            if e["type"] == "EOFError" or (e["type"] == "ValueError" and re.search(
                    r"invalid literal|values to unpack|could not convert", e["message"])):
                notes.append(f"the program reads a sample differently from its description: "
                             f"{e['type']} at line {e['line']} ({e['message'][:80]})")
    rng = random.Random(seed)
    generated[0] = True
    plan: list = []
    if grammar is not None:
        plan = [("min", 8), ("min", 1), ("equal", 8), ("sorted", 8), ("reversed", 8),
                ("zeros", 8), ("max", 8), ("equal", 3), ("max", max_cap)]
        for k in range(random_inputs):
            plan.append(("random", (1, 2, 3, 5, 8, 20)[k % 6]))
        plan.append(("max", max_cap))
        plan.append(("random", max_cap))
        gen_failed = 0
        for gmode, cap in plan:
            if out_of_time():
                notes.append(f"budget of {budget:g} s spent after {runs[0]} inputs")
                break
            try:
                data = grammar.generate(rng, gmode, cap)
            except (RecursionError, ValueError, OverflowError, MemoryError):
                gen_failed += 1
                continue
            if data in seen:
                continue
            seen.add(data)
            if grammar.check(data) is not None:
                rejected[0] += 1
                continue
            res = run_one(data)
            if res:
                record(res, category_of)
        if gen_failed:
            notes.append(f"{gen_failed} inputs could not be generated")
    elif shapes is not None:
        for k, gmode in enumerate(["min", "equal"] + ["random"] * random_inputs):
            if out_of_time():
                break
            res = run_one("", seed + k, gmode)
            if res:
                record(res, category_of)
    # shrinking: smaller valid inputs with the same crash
    if shrink and grammar is not None and trusted[0]:
        for key, g in groups.items():
            cands: list = []
            srng = random.Random(seed + 1)
            for cap in (1, 1, 2, 2, 3, 3):
                for gmode in ("min", "random", "equal", "zeros"):
                    try:
                        cands.append(grammar.generate(srng, gmode, cap))
                    except (RecursionError, ValueError, OverflowError, MemoryError):
                        pass
            tried = 0
            for c in sorted(set(cands), key=lambda c: (len(c.split()), len(c))):
                if out_of_time(4.0) or tried >= 12:
                    break
                if not _shorter(c, g.input) or grammar.check(c) is not None:
                    continue
                tried += 1
                res = run_one(c)
                if res and res[0] == key:
                    g.input = c
                    break
            for _ in range(2):          # lower the integers of what was found
                better = False
                for c in _lower_ints(g.input)[:30]:
                    if out_of_time(4.0):
                        break
                    if c == g.input or grammar.check(c) is not None:
                        continue
                    res = run_one(c)
                    if res and res[0] == key:
                        g.input = c
                        better = True
                        break
                if not better:
                    break
    crashes = sorted(groups.values(), key=lambda g: (g.category != "real", -g.runs,
                                                     g.line or 0))
    return StdinReport(filename, mode, comp.describe(), comp.complete, crashes, timeouts,
                       memory, killed, runs[0], rejected[0],
                       grammar.show() if grammar is not None else None, notes,
                       round(time.monotonic() - t0, 3))
