"""Input descriptions to input grammars, and grammars to inputs.

The input section of a problem statement (plain text, Markdown with
``$$$n$$$`` or ``$n$``, HTML, LaTeX ``\\le``) is read by rules for the usual
notations into a small grammar of the stream:

* ``line``: one line of fields -- ``int`` / ``float`` (a name, a range whose
  bounds may name earlier fields: ``1 <= k <= n``), ``ints`` / ``floats``
  (an array of ``count`` values, ``distinct``, or a ``perm``\\ utation),
  ``str`` (a token over an ``alphabet``, its length a range or a count),
  ``strs`` (``count`` tokens), ``text`` (the whole line);
* ``repeat``: ``count`` times its body (``t`` test cases, "each of the next
  n lines"); ``tree``: the body's first two fields are the edges of a tree
  on the nodes ``1..nodes``.

:func:`parse_description` gives a :class:`Grammar`; :meth:`Grammar.accepts`
tells whether a text is a valid input (the check of the samples);
:meth:`Grammar.generate` makes one (modes: ``min``, ``max``, ``random``,
``equal``, ``sorted``, ``reversed``, ``zeros``) within a size cap;
:meth:`Grammar.show` prints it; :meth:`Grammar.to_dict` /
:func:`grammar_from_dict` are its JSON form, which is also what the optional
LLM backend (:func:`llm_grammar`, off by default) is asked to answer.
"""
from __future__ import annotations

import ast
import functools
import html
import json
import random
import re
import string
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["Grammar", "SpecError", "parse_description", "grammar_from_dict", "llm_grammar",
           "normalize", "extract_samples", "load_spec", "MODES"]

MODES = ("min", "max", "random", "equal", "sorted", "reversed", "zeros")
_DEFAULT_INT = ("1", "100")
_DEFAULT_COUNT_HI = 10
LOWER = string.ascii_lowercase


class SpecError(ValueError):
    """A description the rules cannot read into a grammar."""


# ---------------------------------------------------------------- expressions

@functools.lru_cache(maxsize=4096)
def _parse_expr(expr: str):
    text = expr.strip().replace("^", "**").replace("·", "*")
    text = re.sub(r"\|(\w+)\|", r"len_\1", text)
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError):
        return None


def _eval(expr, env: dict) -> Optional[int]:
    """An integer expression over earlier fields (``n``, ``n-1``, ``2*n``,
    ``10^9``, ``|s|``); None when it names something unknown."""
    if expr is None:
        return None
    if isinstance(expr, (int, float)):
        return int(expr)
    if "??" in str(expr):
        for alt in str(expr).split("??"):
            v = _eval(alt, env)
            if v is not None:
                return v
        return None
    node = _parse_expr(str(expr))
    if node is None:
        return None

    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return n.value
        if isinstance(n, ast.Name):
            if n.id in env and isinstance(env[n.id], (int, float)):
                return env[n.id]
            if n.id.startswith("len_") and isinstance(env.get(n.id[4:]), str):
                return len(env[n.id[4:]])
            raise KeyError(n.id)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.FloorDiv: lambda: a // b, ast.Div: lambda: a // b,
                   ast.Pow: lambda: a ** b if abs(b) < 64 else None}
            f = ops.get(type(n.op))
            if f is None:
                raise KeyError("op")
            return f()
        raise KeyError("node")
    try:
        v = ev(node)
    except (KeyError, ZeroDivisionError, TypeError, OverflowError):
        return None
    return None if v is None else int(v)


# ---------------------------------------------------------------- the grammar

@dataclass
class Field:
    kind: str                       # int float ints floats str strs text
    name: str = ""
    lo: Optional[str] = None
    hi: Optional[str] = None
    count: Optional[str] = None     # arrays: how many; str: its length
    len_lo: Optional[str] = None
    len_hi: Optional[str] = None
    alphabet: Optional[str] = None
    distinct: bool = False
    perm: bool = False
    #: arrays: the index of the first element (bounds may name ``i``)
    start: int = 1
    #: a field of the same line this one differs from (``u ≠ v``)
    neq: Optional[str] = None


@dataclass
class Node:
    kind: str                       # line, repeat
    fields: list = field(default_factory=list)
    count: Optional[str] = None
    body: list = field(default_factory=list)
    tree: Optional[str] = None      # repeat of edges: the node count
    distinct_pairs: bool = False


def _show_field(f: Field) -> str:
    rng = f"[{f.lo}..{f.hi}]" if f.lo is not None or f.hi is not None else ""
    if f.kind in ("int", "float"):
        return f"{f.name}:{f.kind}{rng}" + (f"≠{f.neq}" if f.neq else "")
    if f.kind in ("ints", "floats"):
        extra = " perm" if f.perm else (" distinct" if f.distinct else "")
        return f"{f.name}:{f.kind[:-1]}{rng} x {f.count or '*'}{extra}"
    if f.kind in ("str", "strs"):
        ln = f"len {f.count}" if f.count else f"len [{f.len_lo}..{f.len_hi}]"
        alpha = f.alphabet or LOWER
        alpha = "a-z" if alpha == LOWER else "A-Z" if alpha == string.ascii_uppercase \
            else alpha
        many = f" x {f.count}" if f.kind == "strs" else ""
        if f.kind == "strs":
            ln = f"len [{f.len_lo}..{f.len_hi}]"
        return f"{f.name}:str({alpha!r}, {ln}){many}"
    return f"{f.name}:text"


@dataclass
class Grammar:
    nodes: list
    notes: list = field(default_factory=list)

    # -------------------------------------------------------- showing
    def show(self) -> str:
        out: list[str] = []

        def walk(nodes, depth):
            pad = "  " * depth
            for n in nodes:
                if n.kind == "line":
                    out.append(pad + "line: " + " ".join(_show_field(f) for f in n.fields))
                else:
                    tail = f" (edges of a tree on 1..{n.tree})" if n.tree else ""
                    out.append(pad + f"repeat {n.count} times{tail}:")
                    walk(n.body, depth + 1)
        walk(self.nodes, 0)
        return "\n".join(out) + "\n"

    def to_dict(self) -> dict:
        def nd(n: Node) -> dict:
            d: dict = {"kind": n.kind}
            if n.kind == "line":
                d["fields"] = [{k: v for k, v in f.__dict__.items()
                                if v not in (None, False)} for f in n.fields]
            else:
                d.update(count=n.count, body=[nd(b) for b in n.body])
                if n.tree:
                    d["tree"] = n.tree
            return d
        return {"nodes": [nd(n) for n in self.nodes]}

    def names(self) -> set:
        out = set()

        def walk(nodes):
            for n in nodes:
                for f in n.fields:
                    out.add(f.name)
                walk(n.body)
        walk(self.nodes)
        return out

    def _count_names(self) -> set:
        """Names used as a count, a length or a bound of another field."""
        out: set = set()

        def names_in(e):
            return set(re.findall(r"[A-Za-z_]\w*", str(e))) if e is not None else set()

        def walk(nodes):
            for n in nodes:
                out.update(names_in(n.count) | names_in(n.tree))
                for f in n.fields:
                    out.update(names_in(f.count) | names_in(f.len_hi))
                walk(n.body)
        walk(self.nodes)
        return out

    # -------------------------------------------------------- accepting
    def accepts(self, text: str) -> bool:
        try:
            return self.check(text) is None
        except RecursionError:
            return False

    def check(self, text: str) -> Optional[str]:
        """None when ``text`` is a valid input, else why not."""
        lines = [ln.split() for ln in text.replace("\r\n", "\n").split("\n")]
        raw = text.replace("\r\n", "\n").split("\n")
        keep = [i for i, ln in enumerate(lines) if ln]
        lines = [lines[i] for i in keep]
        raw = [raw[i] for i in keep]
        env: dict = {}
        pos = [0]

        def match(nodes) -> Optional[str]:
            for n in nodes:
                if n.kind == "line":
                    if n.fields and all(f.kind in ("ints", "floats", "strs") and
                                        _eval(f.count, env) == 0 for f in n.fields):
                        for f in n.fields:
                            env[f.name] = 0
                        continue                # an empty line, or none
                    if pos[0] >= len(lines):
                        return f"line {pos[0] + 1}: missing"
                    why = _match_line(n.fields, lines[pos[0]], raw[pos[0]], env)
                    if why:
                        return f"line {pos[0] + 1}: {why}"
                    pos[0] += 1
                else:
                    c = _eval(n.count, env)
                    if c is None:
                        if n.count is not None:
                            return f"unknown count {n.count}"
                        while pos[0] < len(lines):
                            start = pos[0]
                            why = match(n.body)
                            if why or pos[0] == start:
                                return why
                        continue
                    if c < 0:
                        return f"negative count {n.count}"
                    for _ in range(c):
                        why = match(n.body)
                        if why:
                            return why
            return None
        why = match(self.nodes)
        if why:
            return why
        if pos[0] < len(lines):
            return f"line {pos[0] + 1}: more input than the grammar describes"
        return None

    # -------------------------------------------------------- generating
    def generate(self, rng: random.Random, mode: str = "random", cap: int = 8,
                 max_tokens: int = 100_000) -> str:
        """One input: ``cap`` bounds every count and length (the time and
        memory budget), ``mode`` picks values (module docstring)."""
        counts = self._count_names()
        env: dict = {}
        out: list[str] = []
        budget = [max_tokens]

        def emit_node(nodes, depth):
            for n in nodes:
                if n.kind == "line":
                    toks = [_gen_field(f, env, rng, mode, cap, f.name in counts, budget)
                            for f in n.fields]
                    out.append(" ".join(t for t in toks if t != "" or len(toks) == 1))
                else:
                    c = _eval(n.count, env)
                    if c is None:
                        c = rng.randint(1, 3)
                    if n.tree:
                        nodes_n = _eval(n.tree, env) or c + 1
                        edges = _tree_edges(nodes_n, rng, mode)[:c]
                        line = n.body[0] if n.body and n.body[0].kind == "line" else None
                        for u, v in edges:
                            extra = []
                            if line is not None:
                                env[line.fields[0].name] = u
                                if len(line.fields) > 1:
                                    env[line.fields[1].name] = v
                                extra = [_gen_field(f, env, rng, mode, cap, False, budget)
                                         for f in line.fields[2:]]
                            out.append(" ".join([str(u), str(v)] + extra))
                        continue
                    for _ in range(c):
                        emit_node(n.body, depth + 1)
        emit_node(self.nodes, 0)
        return "\n".join(out) + "\n"


def _clamp_range(lo, hi, env, default=_DEFAULT_INT) -> tuple[int, int]:
    a = _eval(lo if lo is not None else default[0], env)
    b = _eval(hi if hi is not None else default[1], env)
    if a is None:
        a = _eval(default[0], env) or 1
    if b is None:
        b = max(a, _eval(default[1], env) or 100)
    return a, b


_INT = re.compile(r"[+-]?\d+")


def _names_i(f: Field) -> bool:
    return any(re.search(r"\bi\b", str(x)) for x in (f.lo, f.hi) if x is not None)


def _match_tok(f: Field, tok: str, env: dict, kind: str) -> Optional[str]:
    if kind == "int":
        if not re.fullmatch(r"[+-]?\d+", tok):
            return f"{f.name}: {tok!r} is not an integer"
        v = int(tok)
    elif kind == "float":
        try:
            v = float(tok)
        except ValueError:
            return f"{f.name}: {tok!r} is not a number"
    else:
        alpha = f.alphabet
        if alpha and any(ch not in alpha for ch in tok):
            return f"{f.name}: {tok!r} has characters outside {alpha!r}"
        ln = _eval(f.count, env) if f.kind == "str" and f.count else None
        if ln is not None and len(tok) != ln:
            return f"{f.name}: length {len(tok)}, not {ln}"
        lo, hi = _eval(f.len_lo, env), _eval(f.len_hi, env)
        if (lo is not None and len(tok) < lo) or (hi is not None and len(tok) > hi):
            return f"{f.name}: length {len(tok)} outside [{f.len_lo}..{f.len_hi}]"
        return None
    lo, hi = _eval(f.lo, env), _eval(f.hi, env)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        return f"{f.name}={tok} outside [{f.lo}..{f.hi}]"
    if f.neq is not None and env.get(f.neq) == v:
        return f"{f.name} = {f.neq} = {tok}"
    if kind == "int":
        env[f.name] = v
    return None


def _match_line(fields: list, toks: list, raw: str, env: dict) -> Optional[str]:
    i = 0
    for k, f in enumerate(fields):
        if f.kind == "text":
            env[f.name] = raw
            return None
        if f.kind in ("int", "float", "str"):
            if i >= len(toks):
                return f"{f.name}: missing"
            why = _match_tok(f, toks[i], env, "int" if f.kind == "int" else
                             "float" if f.kind == "float" else "str")
            if why:
                return why
            if f.kind == "str":
                env[f.name] = toks[i]
            i += 1
            continue
        c = _eval(f.count, env)
        if c is None:
            c = len(toks) - i - sum(1 for g in fields[k + 1:])
        if c < 0 or i + c > len(toks):
            return f"{f.name}: {c} values expected, {len(toks) - i} there"
        vals = toks[i:i + c]
        kind = {"ints": "int", "floats": "float", "strs": "str"}[f.kind]
        if kind == "int":
            lo, hi = _eval(f.lo, env), _eval(f.hi, env)
            per_i = _names_i(f)
            for k, t in enumerate(vals):
                if not _INT.fullmatch(t):
                    return f"{f.name}: {t!r} is not an integer"
                v = int(t)
                if per_i:
                    e2 = dict(env, i=f.start + k)
                    lo, hi = _eval(f.lo, e2), _eval(f.hi, e2)
                if (lo is not None and v < lo) or (hi is not None and v > hi):
                    return f"{f.name}={t} outside [{f.lo}..{f.hi}]"
        else:
            for t in vals:
                why = _match_tok(f, t, env, kind)
                if why:
                    return why
        if (f.distinct or f.perm) and len(set(vals)) != len(vals):
            return f"{f.name}: values are not distinct"
        if f.perm and sorted(int(v) for v in vals) != list(range(1, c + 1)):
            return f"{f.name}: not a permutation of 1..{c}"
        env[f.name] = c
        i += c
    if i != len(toks):
        return f"{len(toks) - i} tokens too many"
    return None


def _pick(lo: int, hi: int, rng: random.Random, mode: str) -> int:
    if hi < lo:
        hi = lo
    if mode == "min":
        return lo
    if mode == "max":
        return hi
    if mode == "zeros" and lo <= 0 <= hi:
        return 0
    if rng.random() < 0.25:
        return rng.choice([lo, hi, min(hi, lo + 1), max(lo, hi - 1)])
    if hi - lo > 1000 and rng.random() < 0.5:       # small values matter too
        return rng.randint(lo, min(hi, lo + 10))
    return rng.randint(lo, hi)


def _gen_field(f: Field, env: dict, rng, mode: str, cap: int, is_count: bool,
               budget: list) -> str:
    if f.kind in ("int", "float"):
        lo, hi = _clamp_range(f.lo, f.hi, env)
        if is_count:
            hi = max(lo, min(hi, lo + cap - 1 if mode != "max" else cap))
            hi = max(lo, min(hi, max(1, budget[0])))
            budget[0] -= 1
        m = mode if mode in ("min", "max", "zeros") or is_count else "random"
        v = _pick(lo, hi, rng, m)
        if f.neq is not None and f.neq in env:
            for _ in range(50):
                if v != env[f.neq]:
                    break
                v = _pick(lo, hi, rng, "random")
        env[f.name] = v
        if f.kind == "float":
            return f"{v + (rng.random() if v < hi else 0):.3f}" if m == "random" else str(v)
        return str(v)
    if f.kind in ("str", "strs"):
        alpha = f.alphabet or LOWER

        def word():
            if f.kind == "str" and f.count:
                ln = _eval(f.count, env)
            else:
                ln = None
            if ln is None:
                lo, hi = _clamp_range(f.len_lo, f.len_hi, env, ("1", str(_DEFAULT_COUNT_HI)))
                hi = max(lo, min(hi, cap if mode == "max" else lo + cap - 1))
                ln = _pick(lo, hi, rng, "max" if mode == "max" else
                           "min" if mode == "min" else "random")
            ln = max(0, ln)
            budget[0] -= ln
            if mode in ("equal", "min", "zeros"):
                return alpha[0] * ln
            s = [rng.choice(alpha) for _ in range(ln)]
            if mode == "sorted":
                s.sort()
            elif mode == "reversed":
                s.sort(reverse=True)
            return "".join(s)
        if f.kind == "str":
            w = word()
            env[f.name] = w
            return w
        c = _eval(f.count, env)
        c = rng.randint(1, 3) if c is None else c
        return " ".join(word() for _ in range(c))
    if f.kind == "text":
        alpha = f.alphabet or LOWER + " "
        ln = rng.randint(1, cap)
        return "".join(rng.choice(alpha) for _ in range(ln)).strip() or alpha.strip()[:1] or "a"
    # arrays
    c = _eval(f.count, env)
    if c is None:
        c = rng.randint(1, cap)
    c = max(0, c)
    budget[0] -= c
    if f.perm:
        vals = list(range(1, c + 1))
        if mode == "reversed":
            vals.reverse()
        elif mode not in ("sorted", "min"):
            rng.shuffle(vals)
        env[f.name] = c
        return " ".join(map(str, vals))
    lo, hi = _clamp_range(f.lo, f.hi, env)
    if _names_i(f) and not f.distinct:
        vals = []
        for k in range(c):
            lo, hi = _clamp_range(f.lo, f.hi, dict(env, i=f.start + k))
            vals.append(_pick(lo, hi, rng, "min" if mode == "min" else
                              "max" if mode == "max" else "random"))
        env[f.name] = c
        return " ".join(map(str, vals))
    if f.distinct:
        if hi - lo + 1 < c:
            hi = lo + c - 1
        if hi - lo < 4 * c:
            vals = rng.sample(range(lo, hi + 1), c)
        else:
            seen: set = set()
            while len(seen) < c:
                seen.add(_pick(lo, hi, rng, "random"))
            vals = list(seen)
            rng.shuffle(vals)
        if mode in ("sorted", "min"):
            vals.sort()
        elif mode in ("reversed", "max"):
            vals.sort(reverse=True)
    else:
        if mode == "equal":
            v = _pick(lo, hi, rng, "random")
            vals = [v] * c
        elif mode in ("min", "max", "zeros"):
            v = _pick(lo, hi, rng, mode)
            vals = [v] * c
        else:
            vals = [_pick(lo, hi, rng, "random") for _ in range(c)]
            if mode == "sorted":
                vals.sort()
            elif mode == "reversed":
                vals.sort(reverse=True)
    env[f.name] = c
    if f.kind == "floats":
        return " ".join(f"{v:.2f}" for v in vals)
    return " ".join(map(str, vals))


def _tree_edges(n: int, rng: random.Random, mode: str) -> list:
    if n < 2:
        return []
    if mode in ("min", "sorted"):
        return [(i, i + 1) for i in range(1, n)]              # a path
    if mode in ("max", "reversed"):
        return [(1, i) for i in range(2, n + 1)]              # a star
    edges = []
    perm = list(range(1, n + 1))
    rng.shuffle(perm)
    for i in range(1, n):
        p = perm[rng.randint(0, i - 1)]
        u, v = (p, perm[i]) if rng.random() < 0.5 else (perm[i], p)
        edges.append((u, v))
    rng.shuffle(edges)
    return edges


def grammar_from_dict(d: dict) -> Grammar:
    """The JSON form back (SpecError for anything malformed)."""
    if not isinstance(d, dict) or not isinstance(d.get("nodes"), list):
        raise SpecError("a grammar is an object with a list of \"nodes\"")
    names = set(Field.__dataclass_fields__)

    def node(x) -> Node:
        if not isinstance(x, dict) or x.get("kind") not in ("line", "repeat"):
            raise SpecError(f"not a grammar node: {x!r:.80}")
        if x["kind"] == "line":
            fs = []
            for f in x.get("fields") or []:
                if not isinstance(f, dict) or f.get("kind") not in (
                        "int", "float", "ints", "floats", "str", "strs", "text"):
                    raise SpecError(f"not a field: {f!r:.80}")
                fs.append(Field(**{k: (str(v) if k in ("lo", "hi", "count", "len_lo",
                                                         "len_hi") and v is not None else v)
                                   for k, v in f.items() if k in names}))
            return Node("line", fs)
        return Node("repeat", count=None if x.get("count") is None else str(x["count"]),
                    body=[node(b) for b in x.get("body") or []],
                    tree=None if x.get("tree") is None else str(x["tree"]))
    return Grammar([node(x) for x in d["nodes"]])


# ---------------------------------------------------------------- normalizing text

_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def normalize(text: str) -> str:
    """Plain text from Markdown, HTML and LaTeX notation."""
    t = text
    if re.search(r"<(p|div|sub|sup|var|span|br|li|ul|code|b|i|em|strong)\b", t, re.I):
        t = re.sub(r"<sub>\s*(.*?)\s*</sub>", r"_\1", t, flags=re.I | re.S)
        t = re.sub(r"<sup>\s*(.*?)\s*</sup>", r"^\1", t, flags=re.I | re.S)
        t = re.sub(r"<(br|/p|/li|/div)\s*/?>", "\n", t, flags=re.I)
        t = re.sub(r"<[^>]+>", "", t)
    t = html.unescape(t)
    t = re.sub(r"(?m)^[ \t]*[*\-][ \t]+", "• ", t)       # bullets are no minus signs
    t = t.replace("$$$", "$").replace("$$", "$")
    t = t.replace("\\(", "").replace("\\)", "")
    reps = [(r"\\leqslant", "≤"), (r"\\leq", "≤"), (r"\\le\b", "≤"), (r"\\geqslant", "≥"),
            (r"\\geq", "≥"), (r"\\ge\b", "≥"), (r"\\lt\b", "<"), (r"\\gt\b", ">"),
            (r"\\ne(q)?\b", "≠"), (r"\\neq", "≠"), (r"\\cdot", "*"), (r"\\times", "*"),
            (r"\\ldots|\\dots|\\cdots|…", "..."), (r"\\[,;:! ]", " "), (r"~", " "),
            (r"\\(text|mathrm|mathit|textit|textbf|mathbf|texttt)\{([^}]*)\}", r"\2"),
            (r"\\\|", "|"), (r"\\mid", "|"), (r"\\left|\\right", ""),
            (r"<=", "≤"), (r">=", "≥"), (r"!=", "≠"), (r"⩽", "≤"), (r"⩾", "≥"),
            (r"·|×|⋅", "*"), (r"[—–]", " - "), (r"\\?\$", ""), (r"\\_", "_")]
    for a, b in reps:
        t = re.sub(a, b, t)
    t = t.translate(_SUP)
    t = re.sub(r"_\{([^{}]*)\}", r"_\1", t)           # a_{i} -> a_i, a_{n-1} -> a_n-1
    t = re.sub(r"\^\{([^{}]*)\}", r"^\1", t)
    t = re.sub(r"(\d)\s*\*\*\s*(\d)", r"\1^\2", t)
    t = re.sub(r"(?<=\d) (?=000\b)", "", t)           # 100 000
    t = re.sub(r"(?<=\d),(?=000\b)", "", t)           # 100,000
    t = re.sub(r"\b(\d+)e(\d+)\b", lambda m: m.group(1) + "*10^" + m.group(2), t)
    t = t.replace("\\", "")
    t = re.sub(r"[ \t]+", " ", t)
    return t


# ---------------------------------------------------------------- the rules

_NUMW = {"a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5,
         "six": 6, "pair": 2}
_NUM = r"-?\s*\d+(?:\s*\*\s*10\s*\^\s*-?\d+|\s*\^\s*\d+)?|-?\s*10\s*\^\s*\d+"
_VAR = r"\|?[A-Za-z][A-Za-z0-9']*(?:_(?:\{[^}]*\}|[A-Za-z0-9+\-]+))?\|?"
_BOUND = rf"(?:{_NUM}|[A-Za-z]\w*(?:[ \t]*[-+*][ \t]*\w+)?)"


def _num(s: str) -> str:
    s = re.sub(r"\s+", "", s)
    return s


def _base(var: str) -> str:
    """a_i, a_1, a_{i,j} -> a; |s| -> |s|."""
    v = var.strip()
    if v.startswith("|") and v.endswith("|"):
        return "|" + _base(v[1:-1]) + "|"
    return re.split(r"_", v)[0].strip("'")


def _constraints(text: str) -> dict:
    """name -> [lo, hi] from chains like ``1 ≤ n, m ≤ 10^5``, ``0 < a_i < 10``,
    ``n (2 ≤ n ≤ 100)``, ``between 1 and 100``, ``|a_i| ≤ 10^9``."""
    out: dict = {}
    vars_ = rf"{_VAR}(?:\s*,\s*(?:\.\.\.\s*,\s*)?{_VAR})*"
    chains = {}
    for m in re.finditer(rf"({_BOUND})\s*(≤|<)\s*({_VAR})\s*(≤|<)\s*({_VAR})\s*(≤|<)\s*"
                         rf"({_BOUND})", text):
        lo, o1, x, o2, y, o3, hi = m.groups()
        x, y, lo, hi = _base(x), _base(y), _num(lo), _num(hi)
        lo = lo + ("+1" if o1 == "<" else "")
        hi = hi + ("-1" if o3 == "<" else "")
        # x <= y: each bound names the other when it is known, else the outer one
        chains[x] = [lo, f"{y}{'-1' if o2 == '<' else ''} ?? {hi}"]
        chains[y] = [f"{x}{'+1' if o2 == '<' else ''} ?? {lo}", hi]
    for m in re.finditer(rf"({_BOUND})\s*(≤|<)\s*({vars_})\s*(≤|<)\s*({_BOUND})", text):
        lo, op1, vs, op2, hi = m.groups()
        lo, hi = _num(lo), _num(hi)
        if op1 == "<":
            lo = f"{lo}+1"
        if op2 == "<":
            hi = f"{hi}-1"
        for v in re.split(r"\s*,\s*", vs):
            if v.strip() and v.strip() != "...":
                b = _base(v)
                if re.fullmatch(r"[A-Za-z][ijk]|[A-Za-z]\d", b):
                    b = b[0]
                if b.startswith("|"):
                    out.setdefault(b, [lo, hi])
                else:
                    out[b] = [lo, hi]
    out.update(chains)
    out["#neq"] = [(_base(a), _base(b)) for a, b in
                   re.findall(rf"({_VAR})\s*≠\s*({_VAR})", text)]
    for m in re.finditer(rf"\|({_VAR})\|\s*(≤|<)\s*({_BOUND})", text):
        b = _base(m.group(1))
        hi = _num(m.group(3)) + ("-1" if m.group(2) == "<" else "")
        out.setdefault(b, [f"-({hi})", hi])
    for m in re.finditer(rf"({_VAR})\s*(≤|<)\s*({_NUM})(?!\s*≤)", text):
        b = _base(m.group(1))
        if b not in out and not b.startswith("|") and b not in ("sum",):
            pre = text[max(0, m.start() - 3):m.start()]
            if "≤" not in pre and "<" not in pre:
                out[b] = [None, _num(m.group(3)) + ("-1" if m.group(2) == "<" else "")]
    for m in re.finditer(rf"({_VAR})\s*(≥|>)\s*({_NUM})", text):
        b = _base(m.group(1))
        lo = _num(m.group(3)) + ("+1" if m.group(2) == ">" else "")
        if b in out and out[b][0] is None:
            out[b][0] = lo
        elif b not in out:
            out[b] = [lo, None]
    for m in re.finditer(rf"\b({_VAR})\b[^.;]{{0,40}}?between\s+({_NUM})\s+and\s+({_NUM})",
                         text):
        out.setdefault(_base(m.group(1)), [_num(m.group(2)), _num(m.group(3))])
    return out


def _alphabet(sent: str) -> Optional[str]:
    s = sent.lower()
    if re.search(r"binary|(only|of) (the )?(characters? |digits? )?['\"]?0['\"]? (and|or) "
                 r"['\"]?1", s) or "zeros and ones" in s:
        return "01"
    quoted = re.findall(r"['\"`«](\S)['\"`»]", sent)
    if len(set(quoted)) >= 2 and re.search(r"either|character|symbol|consist|only|cell", s):
        return "".join(dict.fromkeys(quoted))
    m = re.search(r"\beither\s+(\S)\s+or\s+(\S)(?=[\s.,;]|$)", sent)
    if m:
        return m.group(1) + m.group(2)
    m = re.search(r"(?:characters?|letters?|symbols?)\s+((?:['\"`«]\S['\"`»](?:\s*,\s*|\s+"
                  r"(?:and|or)\s+)?)+)", sent)
    if m is None:
        m = re.search(r"(?:only of|consist(?:s|ing)? of|either|is)\s+((?:['\"`«]\S['\"`»]"
                      r"(?:\s*,\s*|\s+(?:and|or)\s+|\s*/\s*)?){2,})", sent)
    if m:
        chars = re.findall(r"['\"`«](\S)['\"`»]", m.group(1))
        if chars:
            return "".join(dict.fromkeys(chars))
    up = "uppercase" in s or "capital" in s or "upper-case" in s
    low = "lowercase" in s or "small" in s or "lower-case" in s
    if up and low:
        return LOWER + string.ascii_uppercase
    if up:
        return string.ascii_uppercase
    if low or "latin letters" in s or "english letters" in s or "letters" in s:
        return LOWER
    m = re.search(r"first\s+(\w+)\s+(?:lowercase\s+)?(?:latin\s+|english\s+)?letters", s)
    if m:
        k = _NUMW.get(m.group(1)) or (int(m.group(1)) if m.group(1).isdigit() else None)
        if k:
            return LOWER[:k]
    if "digits" in s:
        return "0123456789"
    return None


def _split_sentences(text: str) -> list[str]:
    text = re.sub(r",\s+(?:and\s+)?the(?=\s+(?:second|third|fourth|next|last|following)\s+"
                  r"lines?\b)", ". The", text)
    parts = re.split(r"(?<=[.;:])\s+(?=[A-Z(])|\n\s*\n|\n(?=\s*[-*•]\s)|\n(?=[A-Z])", text)
    return [re.sub(r"\s+", " ", p).strip() for p in parts if p and p.strip()]


def _count_expr(word: str, var_hint: Optional[str] = None) -> Optional[str]:
    w = word.strip().lower().strip("()")
    if w in _NUMW:
        return str(_NUMW[w])
    if re.fullmatch(r"\d+", w):
        return w
    w = word.strip().strip("()")
    if re.fullmatch(r"[A-Za-z]\w*(?:\s*[-+*]\s*\w+)?|\d+\s*\*\s*[A-Za-z]\w*", w):
        return w.replace(" ", "")
    return None


def _content(sent: str, cons: dict, declared: list) -> list:
    """The fields of one line described by ``sent``; a line of mixed kinds
    ("a real number r ... and an integer k") part by part."""
    body = re.split(r"\s-\s", sent)[0]
    parts = re.split(r",?\s+and\s+(?=(?:a|an|one|the)\s+(?:single\s+|positive\s+)?"
                     r"(?:integer|real|string|number|word|float)\b)", body)
    if len(parts) > 1:
        out: list = []
        for k, part in enumerate(parts):
            out += _content_one(part if k == 0 else "contains " + part, cons, declared)
        return out
    return _content_one(sent, cons, declared)


def _content_one(sent: str, cons: dict, declared: list) -> list:
    # the part after "contain(s)" etc., up to an explanation dash
    m = re.search(r"\b(?:contains?|containing|consists? of|consisting of|has|have|with|gives?|"
                  r"describes?|denoting|is|are)\b(.*)", sent, re.I)
    body = m.group(1) if m else sent
    body_nodash = re.split(r"\s-\s|\s:\s", body)[0]
    body_noparen = re.sub(r"\([^()]*\)", " ", body_nodash)
    low = body_noparen.lower()
    fields: list[Field] = []
    # an array: "n integers a_1, a_2, ..., a_n" / "a_1, a_2, ..., a_n" / "n space-separated"
    if re.search(r"\bsentence\b|\btext\b|separated by (?:single )?spaces", low) and \
            not re.search(r"integers?|numbers?", low):
        return [Field("text", "line")]
    arr = re.search(r"(?<![\w|])([A-Za-z])(_\{[^}]*\}|_[\w+\-]+|\d+|[ijk])\s*,\s*"
                    r"(?:\1(?:_\S+|\d+|[ijk])"
                    r"\s*,\s*)?\.\.\.\s*,?\s*\1(_\{[^}]*\}|_[\w+\-*]+|\w+)", body_noparen)
    kind_word = re.search(r"(integers?|numbers?|strings?|words?|characters?|letters?|"
                          r"digits?|real numbers?|permutation|values?|elements?|names?|"
                          r"edges?|queries|pairs?)", low)
    is_float = bool(re.search(r"real|floating|decimal|fractional", low))
    if arr:
        b = arr.group(1)
        first_idx = arr.group(2).lstrip("_").strip("{}")
        ie = arr.group(3).lstrip("_").strip("{}").replace(" ", "")
        count = None
        if re.fullmatch(r"\d+", ie):
            count = str(int(ie) - (int(first_idx) - 1 if first_idx.isdigit() else 0))
        elif re.fullmatch(r"[A-Za-z]\w*(?:[-+*]\w+)?|\d+\*?[A-Za-z]\w*", ie):
            count = ie
            if re.fullmatch(r"\d+[A-Za-z]\w*", count):
                count = re.sub(r"(\d+)", r"\1*", count, 1)
            if first_idx.isdigit() and int(first_idx) > 1:
                count = f"{count}-{int(first_idx) - 1}"
            elif first_idx == "0":
                count = f"{count}+1"
        start = int(first_idx) if first_idx.isdigit() else 1
        # the count in words before it: "n integers"
        cw = re.search(r"\b(\w+)\s+(?:space[- ]separated\s+|distinct\s+|positive\s+|"
                       r"non-negative\s+|nonnegative\s+|real\s+)*(?:integers|numbers|strings|"
                       r"words|values|elements)", body_noparen)
        if count is None and cw:
            count = _count_expr(cw.group(1))
        is_str = bool(re.search(r"strings?|words?|names?", low)) and not \
            re.search(r"integers?|numbers?", low)
        f = Field("strs" if is_str else ("floats" if is_float else "ints"), b, count=count,
                  start=start)
        lohi = cons.get(b)
        if lohi:
            f.lo, f.hi = lohi
        if is_str:
            f.alphabet = _alphabet(sent)
            if cons.get(f"|{b}|"):
                f.len_lo, f.len_hi = cons[f"|{b}|"]
        if "permutation" in sent.lower():
            f.perm = True
        if re.search(r"distinct|different", sent, re.I) and not f.perm:
            f.distinct = True
        # fields before the array on the same line: "an integer k and then k integers"
        return fields + [f]
    # a counted array without names: "n integers" / "contains n space-separated integers"
    cw = re.search(r"\b([A-Za-z]\w{0,2}|[A-Za-z]_?\d|\d+)\s+(?:space[- ]separated\s+|"
                   r"distinct\s+|different\s+|positive\s+|non-negative\s+|nonnegative\s+|"
                   r"real\s+)*(integers|numbers|strings|words|elements|values)\b", body_noparen)
    if cw and cw.group(1).lower() not in _NUMW and not cw.group(1).isdigit() and \
            cw.group(1).lower() not in ("of", "the", "with", "two", "three", "some", "and",
                                        "separated", "space", "following", "positive",
                                        "distinct", "contains", "are", "all"):
        name = re.search(rf"(?:integers|numbers|strings|words)\s+({_VAR})", body_noparen)
        if name and name.group(1).lower() in ("each", "separated", "in", "from", "between",
                                              "and", "of", "the", "on", "per", "where"):
            name = None
        b = _base(name.group(1)) if name else "a"
        is_str = cw.group(2) in ("strings", "words") or (
            cw.group(2) in ("elements", "values") and bool(re.search(r"strings?|words?", low))
            and not re.search(r"integers?|numbers?", low))
        f = Field("strs" if is_str else ("floats" if is_float else "ints"), b,
                  count=_count_expr(cw.group(1)))
        btw = re.search(rf"between\s+({_NUM})\s+and\s+({_NUM})", sent)
        if cons.get(b):
            f.lo, f.hi = cons[b]
        elif btw and not is_str:
            f.lo, f.hi = _num(btw.group(1)), _num(btw.group(2))
        elif not is_str:
            # "n integers (1 ≤ a_i ≤ 10^9)": the one element range
            rng = [v for k, v in cons.items() if k not in declared and not k.startswith("|")
                   and k != f.count]
            if len(rng) == 1:
                f.lo, f.hi = rng[0]
        if is_str:
            f.alphabet = _alphabet(sent)
        if "permutation" in sent.lower():
            f.perm = True
        elif re.search(r"distinct|different", sent, re.I):
            f.distinct = True
        return [f]
    # scalars: "two integers n and m", "a single integer n", "the string s"
    names_part = re.sub(r"\b(?:a|an|the|one|single|two|three|four|five|six|positive|"
                        r"non-negative|nonnegative|space[- ]separated|integers?|numbers?|"
                        r"strings?|words?|line|lines|of|and|or|followed|by|then|respectively|"
                        r"real|separated|spaces?|by|only|each|character|characters|letters?|"
                        r"lowercase|uppercase|latin|english|non-empty|nonempty|length|"
                        r"consisting|consists|with|in|it|its|which|that|where|is|are|"
                        r"distinct|given|values?|text|sentence|test|case|cases|number|"
                        r"symbols?|queries|query|edges?|vertices|nodes|pairs?|digits?|"
                        r"from|to|input|output|this|these|as|follows|a\s)\b",
                        " ", body_noparen, flags=re.I)
    names = re.findall(rf"(?<![\w|]){_VAR}(?![\w|])", names_part)
    names = [n for n in names if not re.fullmatch(r"\d+", n) and len(_base(n)) <= 3
             and _base(n).lower() not in ("x", "i", "j", "k") or _base(n) in cons
             or n in ("x", "k", "i", "j")]
    names = [n for n in names if not re.fullmatch(r"\d.*", n)]
    seen = []
    for n in names:
        b = _base(n)
        if b not in seen and b not in ("s", "t") or b in ("s", "t") and b not in seen:
            seen.append(b)
    kw = re.search(r"\b(?:integers?|numbers?|strings?|words?|names?|characters?|letters?)"
                   r"\b\s*(.*)", body_noparen, re.I)
    if kw:
        v = (r"(?!(?:of|or|in|is|on|to|by|as|it|at|an|and|the|if|be|we|no)\b)"
             r"[A-Za-z][A-Za-z0-9]?(?:_\{[^}]*\}|_\w+)?'?")
        m2 = re.match(rf"({v}(?:\s*(?:,\s*and|,|and)\s*{v})*)(?=\s|$|[.;:)])", kw.group(1))
        if m2:
            after = [_base(x) for x in re.split(r"\s*,\s*and\s+|\s*,\s*|\s+and\s+",
                                                  m2.group(1)) if x.strip()]
            if after:
                seen = list(dict.fromkeys(after))
    is_str = bool(re.search(r"\bstrings?\b|\bwords?\b|\bnames?\b|\bcharacters\b|"
                            r"\bsentence\b|\btext\b", low))
    n_words = re.search(r"\b(one|single|a|an|two|three|four|five|six|\d+)\s+(?:space[- ]"
                        r"separated\s+|positive\s+|non-negative\s+|real\s+)*(integers?|"
                        r"numbers?|strings?|words?)", low)
    expected = _NUMW.get(n_words.group(1), None) if n_words and not \
        n_words.group(1).isdigit() else (int(n_words.group(1)) if n_words else None)
    if not seen and expected:
        seen = [f"_{k}" for k in range(expected)]
    if not seen:
        if is_str:
            seen = ["s"]
        elif re.search(r"integer|number", low):
            seen = ["_0"]
        else:
            return []
    glen = re.search(rf"\b(?:string|row|line|word)s?\s+(?:of|with|containing|consisting of)\s+"
                     rf"(?:exactly\s+)?({_VAR}|\d+)\s+(?:characters|symbols|letters|digits)",
                     body_noparen) or re.search(
        rf"^\s*(?:exactly\s+)?({_VAR}|\d+)\s+(?:characters|symbols|letters|digits)\b",
        body_noparen)
    if glen and not seen[1:] and (seen == [] or _base(glen.group(1)) in seen):
        c = _base(glen.group(1)) if not glen.group(1).isdigit() else glen.group(1)
        return [Field("str", "row" if c != "s" else "s", count=c, alphabet=_alphabet(sent))]
    text_line = bool(re.search(r"\bsentence\b|\btext\b|spaces", low)) and is_str
    for b in seen:
        if text_line:
            fields.append(Field("text", b))
            continue
        if is_str and not re.search(r"integers?|numbers?", low) or \
                (is_str and b in ("s", "t") and b not in cons):
            f = Field("str", b, alphabet=_alphabet(sent))
            lm = re.search(rf"length\s+(?:of\s+)?(?:exactly\s+)?({_VAR}|\d+)", sent) or \
                re.search(rf"\|{re.escape(b)}\|\s*=\s*({_VAR}|\d+)", sent)
            if lm and _base(lm.group(1)) != b:
                f.count = _base(lm.group(1)) if not lm.group(1).isdigit() else lm.group(1)
            elif cons.get(f"|{b}|"):
                f.len_lo, f.len_hi = cons[f"|{b}|"]
            elif cons.get(b) and not re.search(r"integer|number", low):
                f.len_lo, f.len_hi = cons[b]
            fields.append(f)
            continue
        f = Field("float" if is_float else "int", b)
        if cons.get(b):
            f.lo, f.hi = cons[b]
            if is_float and f.lo and f.lo.endswith("+1"):
                f.lo = f.lo[:-2]            # 0 < r: a real just above 0 is valid
        fields.append(f)
    return fields


def _line_count(sent: str) -> tuple[Optional[str], bool]:
    """(count, is repetition) of a sentence like "each of the next n lines"."""
    s = sent
    pats = [rf"(?:each|every) of the (?:next|following|last|remaining) ({_BOUND}|\w+) lines",
            rf"the (?:next|following|last|remaining) ({_BOUND}|\w+) lines",
            rf"(?:then|next|after that),?\s+({_BOUND}|\w+) lines? follows?",
            rf"^({_BOUND}|\w+) lines? follows?",
            rf"the i-th of (?:the|them|these|which)[^,]*?(?:next|following)? ?({_BOUND}|\w+)? "
            rf"lines",
            rf"({_BOUND}) (?:more |further |additional )?lines",
            rf"(?:each|every) of (?:the|them|these) ({_BOUND}) lines"]
    for p in pats:
        m = re.search(p, s, re.I)
        if m and m.group(1):
            c = _count_expr(m.group(1).replace(" ", ""))
            if c and c.lower() not in ("following", "next", "remaining", "the", "of", "two"
                                       ) or (c and c.isdigit()):
                if c.lower() in ("each", "every"):
                    continue
                return c, True
    return None, False


_VDOTS = {":", "vdots", "⋮", ".", "..", "...", "︙"}


def _format_rows(norm: str) -> Optional[list]:
    """The rows of a format block ("in the following format:" then lines of
    names such as ``N K`` / ``A_1 A_2 ... A_N`` / ``S_1`` / ``:`` / ``S_H``)."""
    m = re.search(r"(?i)following format\s*[:.]?\s*\n", norm)
    if m is None:
        return None
    rows = []
    for ln in norm[m.end():].split("\n"):
        t = ln.strip()
        if not t:
            if rows:
                break
            continue
        if re.fullmatch(r"(?i)#*\s*(constraints?|output|notes?|examples?|samples?.*|input)"
                        r"\s*:?", t):
            break
        toks = t.split()
        if all(x in _VDOTS or re.fullmatch(r"[A-Za-z][A-Za-z0-9']*(?:_\S+)?", x)
               for x in toks) and not (len(toks) > 1 and all(
                   len(x) > 3 and x.isalpha() and x.islower() for x in toks)):
            rows.append(toks)
        else:
            break
    return rows or None


def _index_of(tok: str) -> tuple[str, Optional[str]]:
    """A_1 -> (A, "1"); A_{1,1} -> (A, "1,1"); N -> (N, None)."""
    m = re.fullmatch(r"([A-Za-z][A-Za-z0-9']*)_\{?([^{}]*)\}?", tok)
    if m is None:
        m = re.fullmatch(r"([a-z])(\d+|[A-Za-z])", tok)      # x1 ... xn, s1 ... sN
    return (m.group(1), m.group(2)) if m else (tok, None)


def _format_nodes(rows: list, norm: str, cons: dict) -> list:
    sents = _split_sentences(norm)

    def field(name: str, count: Optional[str] = None) -> Field:
        about = [x for x in sents if re.search(rf"(?<![\w|]){re.escape(name)}(?:_\w+)?\b", x)]
        is_str = any(re.search(rf"{re.escape(name)}(?:_\w+)?\s+(?:is|are|consists?)\b[^.]*"
                               rf"\bstrings?\b|\bstrings?\s+{re.escape(name)}\b", x)
                     for x in about)
        if is_str:
            f = Field("strs" if count else "str", name, count=count)
            for x in about:
                lm = re.search(r"length\s+(?:of\s+)?([A-Za-z]\w*|\d+)\b", x)
                if lm and not count:
                    f.count = lm.group(1)
                a = _alphabet(x)
                if a:
                    f.alphabet = a
            if cons.get(f"|{name}|") and f.count is None:
                f.len_lo, f.len_hi = cons[f"|{name}|"]
            return f
        f = Field("ints" if count else "int", name, count=count)
        if cons.get(name):
            f.lo, f.hi = cons[name]
        if count and any(re.search(r"distinct|pairwise different", x) and name in x
                         for x in sents):
            f.distinct = True
        return f

    def line_of(toks: list) -> list:
        out: list = []
        k = 0
        while k < len(toks):
            t = toks[k]
            base, idx = _index_of(t)
            if k + 2 < len(toks) and toks[k + 1] in _VDOTS or (
                    k + 1 < len(toks) and idx is not None and
                    _index_of(toks[k + 1])[0] == base and toks[k + 1] not in _VDOTS):
                # an array: A_1 A_2 ... A_N
                j = k
                while j + 1 < len(toks) and (toks[j + 1] in _VDOTS or
                                             _index_of(toks[j + 1])[0] == base):
                    j += 1
                last = _index_of(toks[j])[1] or ""
                last = last.split(",")[-1]
                out.append(field(base, last if last and not last.isdigit() or
                                 last.isdigit() and int(last) > 1 else None))
                k = j + 1
                continue
            out.append(field(base))
            k += 1
        return out

    nodes: list = []
    k = 0
    while k < len(rows):
        row = rows[k]
        if len(row) == 1 and row[0] in _VDOTS and nodes and k + 1 < len(rows):
            nxt = rows[k + 1]
            first_idx = _index_of(nxt[0])[1] or ""
            count = first_idx.split(",")[0] or None
            # drop the instances before the dots (S_1, S_2 / A_{1,1} ... rows)
            body = Node("line", line_of([re.sub(r"_\{?[^{},]*,", "_{", t) if "," in t
                                         else _index_of(t)[0] for t in nxt]))
            if any("," in t for t in nxt):
                body = Node("line", line_of(nxt_cols(nxt)))
            bases = {_index_of(t)[0] for t in nxt}
            while nodes and nodes[-1].kind == "line" and nodes[-1].fields and \
                    {f.name for f in nodes[-1].fields} <= bases:
                nodes.pop()
            rep = Node("repeat", count=count, body=[body])
            nodes.append(rep)
            k += 2
            continue
        nodes.append(Node("line", line_of(row)))
        k += 1
    return nodes


def nxt_cols(toks: list) -> list:
    """A_{H,1} ... A_{H,W} -> A_1 ... A_W (a row of a matrix)."""
    return [re.sub(r"_\{?[^{},]*,\s*([^{}]*)\}?$", r"_\1", t) for t in toks]


def parse_description(text: str) -> Grammar:
    """A description's input section -> Grammar (SpecError when nothing in
    it reads as a line of input)."""
    norm = normalize(text)
    rows = _format_rows(norm)
    if rows:
        nodes = _format_nodes(rows, norm, _constraints(norm))
        if nodes:
            g = Grammar(nodes, ["read from the format block"])
            names = g.names()

            def fix(nodes_):
                for n in nodes_:
                    for f in n.fields:
                        if f.count and not _known(f.count, names):
                            f.count = None
                    fix(n.body)
            fix(nodes)
            return g
    m = re.search(r"(?im)^\s*#*\s*(input|input format|input specification)\s*:?\s*$", norm)
    if m:
        norm = norm[m.end():]
    m = re.search(r"(?im)^\s*#*\s*(output|output format|output specification|examples?|"
                  r"sample input|note)\s*:?\s*$", norm)
    if m:
        norm = norm[:m.start()]
    cons = _constraints(norm)
    sents = _split_sentences(norm)
    nodes: list[Node] = []
    declared: list[str] = []
    tc: Optional[Node] = None           # the test-case repetition, once seen
    notes: list[str] = []
    whole = norm.lower()
    tree_words = bool(re.search(r"\btree\b", whole))
    pending: Optional[str] = None       # "Then n lines follow." waiting for its content

    def add(node: Node, in_case: bool):
        target = tc.body if (tc is not None and in_case) else nodes
        target.append(node)
        for f in node.fields:
            declared.append(f.name)

    for sent in sents:
        low = sent.lower()
        if re.search(r"\bguaranteed\b|\bit is known\b|\bnote that\b", low) and \
                not re.search(r"\bline", low):
            continue
        if re.search(r"sum of|over all test", low) and not re.search(r"\bcontains?\b", low):
            continue
        if re.search(r"\b(at most|at least|no more than|does not exceed|not exceeding)\b",
                     low) and not re.search(r"\bcontain|\bconsist|\bfollow|\bgiven|"
                                            r"\bline of|\btext\b|\bintegers?\b|\bstrings?\b",
                                            low):
            continue
        in_case = tc is not None and bool(re.search(
            r"test case|each case|of each|each query|each test|every test|the description of",
            low))
        # "t test cases follow" / "the number of test cases"
        tm = re.search(r"\b(\w+)\s*\(?[^()]*\)?\s*(?:-\s*)?(?:the )?number of (?:test cases|"
                       r"testcases|tests|queries|cases|datasets)", sent, re.I)
        tf = re.search(r"\b([A-Za-z]\w*)\s+(?:test cases|testcases|tests|queries|cases|lines "
                       r"with test cases|descriptions? of test cases)\s+follows?", sent, re.I)
        if tc is None and (tm or tf) and re.search(r"\bfirst\b|\bonly\b|\bsingle\b|line",
                                                   low + " line"):
            flds = _content(sent, cons, declared)
            cname = None
            if flds and flds[0].kind == "int":
                cname = flds[0].name
            elif tf:
                cname = _base(tf.group(1))
            if cname is None:
                cname = "t"
                flds = [Field("int", "t", *cons.get("t", [None, None]))]
            if flds:
                f0 = flds[0]
                if f0.kind == "int" and f0.lo is None:
                    f0.lo, f0.hi = cons.get(f0.name, ["1", "100"])
                add(Node("line", flds[:1]), False)
            tc = Node("repeat", count=cname)
            nodes.append(tc)
            continue
        if tc is None and tf:
            tc = Node("repeat", count=_base(tf.group(1)))
            nodes.append(tc)
            continue
        if tc is not None and re.search(r"^(each|every) test case|test cases? follows?|"
                                        r"^the description of", low) and \
                not re.search(r"\bcontains?\b|\bconsists? of (a|one|two|three|\w+) "
                              r"(single )?line", low) and \
                not re.search(r"\bline\b.*\b(integers?|numbers?|strings?)\b", low):
            continue
        if tc is not None and not tc.body and re.search(
                r"^(each|every) test case (is|consists of|contains) (a|one) (single )?line",
                low):
            flds = _content(re.sub(r"^.*?\bline\b", "line", sent), cons, declared)
            if flds:
                tc.body.append(Node("line", flds))
                declared.extend(f.name for f in flds)
                continue
        if re.search(r"\b(several|multiple|many|some) lines\b", low) and \
                not re.search(r"\b(each|contain)", low):
            continue
        count, rep = _line_count(sent)
        starts = re.search(r"\blines?\b", low) or re.search(r"^input\s*:", low) or \
            pending is not None or \
            re.search(r"^(?:the )?input (?:consists|contains|is)", low) or \
            re.search(r"^(?:each|every) test case (?:contains|consists)", low)
        if not starts:
            continue
        if re.search(r"^(?:each|every) test case (?:contains|consists of|is)", low) and \
                tc is not None and count is None:
            in_case = True
        if rep and count is not None and re.fullmatch(
                r"(?:then |next |after that,? )?\S+ (?:more )?lines? follows?\.?", low):
            pending = count                     # "Then n lines follow." + the next one
            continue
        if pending is not None and count is None and re.search(
                r"^(the )?(i-th|each|every|j-th|k-th) (of (them|these|which)|line)", low):
            count, rep = pending, True
        pending = None
        if rep and count is not None:
            flds = _content(sent, cons, declared)
            if not flds and re.search(r"\bfollows?\b", low) and \
                    not re.search(r"\b(each|contain|consist|integers?|strings?)\b", low):
                pending = count                 # "Then n lines follow." + the next one
                continue
            if not flds:
                flds = [Field("str", "s", alphabet=_alphabet(sent))]
            if tc is not None and not tc.body and count == tc.count:
                tc.body.append(Node("line", flds))      # a test case per line
                declared.extend(f.name for f in flds)
                continue
            node = Node("repeat", count=count, body=[Node("line", flds)])
            if (tree_words and re.search(r"edge|connected|tree", low + whole) and
                    re.fullmatch(r"\w+-1", count) and len(flds) >= 2 and
                    all(f.kind == "int" for f in flds[:2])):
                node.tree = count[:-2]
            add(node, in_case or (tc is not None and not re.search(r"^the first line of "
                                                                    r"(the )?input", low)))
            continue
        flds = _content(sent, cons, declared)
        if not flds:
            notes.append(f"not read: {sent[:80]}")
            continue
        if tc is not None and not in_case and re.search(r"^the (first|second|third|next|last)"
                                                       r" line contains", low):
            in_case = True
        add(Node("line", flds), in_case)
    if tc is not None and not tc.body:
        notes.append("test cases without a readable body")
    if not nodes:
        raise SpecError("no line of input could be read from the description")
    # relations between the fields of a line: u ≠ v
    neq = cons.get("#neq") or []

    def relate(nodes_):
        for n in nodes_:
            before: list = []
            for f in n.fields:
                for a, b in neq:
                    other = b if f.name == a else a if f.name == b else None
                    if other in before and f.kind == "int":
                        f.neq = other
                before.append(f.name)
            relate(n.body)
    relate(nodes)
    # a count name that is never a field is unknown: bind it to the line's length
    g = Grammar(nodes, notes)
    names = g.names() | {f"len_{n}" for n in g.names()}

    def fix(nodes_):
        for n in nodes_:
            for f in n.fields:
                if f.count and not _known(f.count, names):
                    f.count = None
            if n.kind == "repeat" and n.count and not _known(n.count, names):
                n.count = None
            fix(n.body)
    fix(nodes)
    return g


def _known(expr: str, names: set) -> bool:
    for w in re.findall(r"[A-Za-z_]\w*", expr):
        if w not in names:
            return False
    return True


# ---------------------------------------------------------------- the LLM backend

LLM_SYSTEM = (
    "You turn the input section of a programming problem into a grammar of its standard "
    "input.  Answer with one JSON object and nothing else: {\"nodes\": [...]}.  A node is "
    "{\"kind\": \"line\", \"fields\": [...]} or {\"kind\": \"repeat\", \"count\": EXPR, "
    "\"body\": [nodes], \"tree\": EXPR-or-absent}.  A field is {\"kind\": one of int, float, "
    "ints, floats, str, strs, text; \"name\": str; \"lo\", \"hi\": EXPR bounds; \"count\": "
    "EXPR (arrays: how many; str: its length); \"len_lo\", \"len_hi\"; \"alphabet\": the "
    "characters of a string; \"distinct\", \"perm\": booleans}.  EXPR is an integer or an "
    "arithmetic expression over earlier field names, e.g. \"n-1\", \"10^9\".")


def llm_grammar(description: str, *, chat=None, **options) -> Grammar:
    """Ask an OpenAI-compatible endpoint (the client of
    prefixtree/llm.py, ``_core.llm_chat``) for the grammar of a description
    the rules cannot read.  ``options``: base_url, api_key, model, timeout,
    max_retries (else the LEXECUTOR_LLM_* environment variables).  Raises
    SpecError when the answer is no grammar, RuntimeError when there is no
    client."""
    from ..prefixtree.llm import _json_objects
    if chat is None:
        from .. import _core
        chat = getattr(_core, "llm_chat", None)
        if chat is None:
            raise RuntimeError("this build has no LLM client (_core.llm_chat)")
    messages = [{"role": "system", "content": LLM_SYSTEM},
                {"role": "user", "content": "Input section:\n" + description}]
    opts = {k: v for k, v in options.items() if v is not None}
    opts.setdefault("temperature", 0.0)
    ans = chat(messages=messages, n=1, **opts)
    for ch in ans.get("choices", []):
        for text in _json_objects(ch.get("content", "")):
            try:
                obj = json.loads(text)
            except ValueError:
                continue
            if isinstance(obj, dict) and "nodes" in obj:
                g = grammar_from_dict(obj)
                g.notes.append("grammar from the LLM backend")
                return g
    raise SpecError("the LLM answer holds no grammar")


_SAMPLE_HEAD = re.compile(r"(?im)^[ \t#*]*(?:sample|example)s?[ \t]*(?:input|in)?[ \t]*"
                          r"(?:#?\d+)?[ \t]*:?[ \t]*$")
_OUTPUT_HEAD = re.compile(r"(?im)^[ \t#*]*(?:sample|example)?[ \t]*output[ \t]*(?:#?\d+)?"
                          r"[ \t]*:?[ \t]*$")


def extract_samples(text: str) -> list:
    """The sample inputs a statement shows: ``<pre>`` blocks after a
    "Sample Input" heading (HTML), fenced or plain blocks after one
    (Markdown, text), up to the next "Output" heading."""
    out: list = []
    if re.search(r"<pre\b", text, re.I):
        for m in re.finditer(r"(?is)(sample|example)\s*input[^<]*</[^>]+>\s*(?:<[^>]+>\s*)*"
                             r"<pre[^>]*>(.*?)</pre>", text):
            body = html.unescape(re.sub(r"<[^>]+>", "", m.group(2))).strip("\n")
            if body.strip():
                out.append(body.strip() + "\n")
        return out
    heads = list(_SAMPLE_HEAD.finditer(text))
    for k, m in enumerate(heads):
        rest = text[m.end():]
        stop = _OUTPUT_HEAD.search(rest)
        nxt = _SAMPLE_HEAD.search(rest)
        end = min(x.start() for x in (stop, nxt) if x is not None) if (stop or nxt) \
            else len(rest)
        block = rest[:end]
        fence = re.search(r"```[^\n]*\n(.*?)```", block, re.S)
        body = fence.group(1) if fence else block
        body = body.strip("\n")
        if body.strip():
            out.append("\n".join(ln.rstrip() for ln in body.strip().split("\n")) + "\n")
    return out


def load_spec(text: str) -> Grammar:
    """A --input-spec file: a grammar in its JSON form, or a description."""
    s = text.strip()
    if s.startswith("{"):
        try:
            d = json.loads(s)
        except json.JSONDecodeError as e:
            raise SpecError(f"not valid JSON: {e}")
        return grammar_from_dict(d)
    return parse_description(text)
