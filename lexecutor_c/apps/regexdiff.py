"""Texts that tell two versions of a regular expression apart (issue 20).

An edit of a pattern (``<[^>]*>`` -> ``<.*?>``, seconds made optional in a
time pattern) changes what a function does only on texts the two patterns
treat differently, and those are rarely the texts a made-up input holds
(``<a\\nb>``: a newline inside a tag).  This module finds such texts without
running the function: it builds texts each pattern matches (from the parsed
pattern, one optional part, one alternative, one repeat count at a time),
varies them one character at a time (inserted, replaced, dropped), and keeps
those on which the old and the new patterns disagree (whether they match
at the start, the whole text, where a search finds them, what a
substitution leaves, the groups).

:func:`pattern_uses` reads a version's patterns: ``re.compile`` constants of
the module (their text resolved through string constants, ``+`` and
f-strings of constants) and the patterns the function uses, each with the
expression it is applied to.  :func:`telling_texts` gives the texts.
"""
from __future__ import annotations

import ast
import re
from typing import Optional

try:                                        # Python 3.11+
    from re import _parser as _sre_parse    # type: ignore[attr-defined]
    from re import _constants as _sre_c     # type: ignore[attr-defined]
except ImportError:                         # pragma: no cover - Python < 3.11
    import sre_parse as _sre_parse          # type: ignore[no-redef]
    import sre_constants as _sre_c          # type: ignore[no-redef]

_METHODS = {"match", "fullmatch", "search", "sub", "subn", "findall", "finditer", "split"}
# where the text is among a call's arguments: ``p.sub(repl, text)``,
# ``re.sub(pattern, repl, text)``
_TEXT_AT = {"sub": 1, "subn": 1}
# characters tried at each place of a matching text
_POOL = ("\n", " ", "a", "Z", "0", "9", "-", ".", "_", ":", "/", "<", ">", '"', "'",
         "\\", "\t", "\u00e9", "+", ",", "=", ";", "#", "x")
_MAX_CANDIDATES = 6000
_MAX_LEN = 80


# ------------------------------------------------------------------ patterns

def _flag_value(e) -> Optional[int]:
    """``re.VERBOSE | re.I`` -> its value; None where it is not flags."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr):
        a, b = _flag_value(e.left), _flag_value(e.right)
        return None if a is None or b is None else a | b
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "re":
        v = getattr(re, e.attr, None)
        return int(v) if isinstance(v, re.RegexFlag) else None
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    return None


def _text_value(e, consts: dict, depth: int = 0) -> Optional[str]:
    """A string expression of constants: literals, names of module string
    constants, ``+``, f-strings of those (``rf"...{_TIME_RE_STR}..."``)."""
    if depth > 8:
        return None
    if isinstance(e, ast.Constant) and isinstance(e.value, (str, bytes)):
        return e.value if isinstance(e.value, str) else None
    if isinstance(e, ast.Name):
        v = consts.get(e.id)
        return _text_value(v, consts, depth + 1) if v is not None else None
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        a, b = _text_value(e.left, consts, depth + 1), _text_value(e.right, consts, depth + 1)
        return None if a is None or b is None else a + b
    if isinstance(e, ast.JoinedStr):
        out = []
        for part in e.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                out.append(part.value)
            elif isinstance(part, ast.FormattedValue) and part.format_spec is None and \
                    part.conversion in (-1, 115):
                v = _text_value(part.value, consts, depth + 1)
                if v is None:
                    return None
                out.append(v)
            else:
                return None
        return "".join(out)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
            e.func.attr == "format" and not any(isinstance(a, ast.Starred) for a in e.args) \
            and all(k.arg for k in e.keywords):
        # ``r"(?P<major>{nb})".format(nb=NUMBER)``: a text of constants
        # filled with texts of constants
        base = _text_value(e.func.value, consts, depth + 1)
        args = [_text_value(a, consts, depth + 1) for a in e.args]
        kws = {k.arg: _text_value(k.value, consts, depth + 1) for k in e.keywords}
        if base is None or None in args or None in kws.values():
            return None
        try:
            return base.format(*args, **kws)
        except (IndexError, KeyError, ValueError, AttributeError):
            return None
    return None


def _compiled(call, consts: dict) -> Optional[tuple]:
    """``re.compile(TEXT[, FLAGS])`` -> (text, flags)."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and
            call.func.attr == "compile" and isinstance(call.func.value, ast.Name) and
            call.func.value.id == "re" and call.args):
        return None
    text = _text_value(call.args[0], consts)
    if text is None:
        return None
    flags = 0
    fl = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "flags"), None)
    if fl is not None:
        flags = _flag_value(fl)
        if flags is None:
            return None
    return text, flags


def assignments(stmts) -> list:
    """(name, value expression) of the statements among ``stmts`` that bind
    one name to a value (``X = ...``, ``X: T = ...``), in order."""
    out = []
    for s in stmts:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name):
            out.append((s.targets[0].id, s.value))
        elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value:
            out.append((s.target.id, s.value))
    return out


def module_patterns(module: ast.Module, outer: Optional[dict] = None) -> dict:
    """name -> (pattern text, flags) of the module's top-level
    ``NAME = re.compile(...)`` (also annotated); ``outer``: the constants
    of the scope around (a class body's module), read where the body's
    own do not bind the name."""
    consts: dict = dict(outer or {})
    pats: dict = {}
    for name, value in assignments(module.body):
        c = _compiled(value, consts)
        if c is not None:
            pats[name] = c
        else:
            consts[name] = value
    return pats


def _root(e) -> Optional[str]:
    return e.id if isinstance(e, ast.Name) else None


def pattern_uses(fn, module: ast.Module, params: set, known: Optional[dict] = None) -> tuple:
    """([(pattern text, flags)] in the order the function uses them,
    {parameter: [its patterns]}) -- the parameter (or ``self``) each
    pattern is applied to, directly or through a local computed from it
    (``value = P.sub("", self)``; ``value = Q.sub("", value)``).
    ``known``: name -> (text, flags) of module patterns a run found built,
    for those whose text the module computes from what reading cannot
    tell."""
    pats = module_patterns(module)
    for k, p in (known or {}).items():
        pats.setdefault(k, p)
    consts = dict(assignments(module.body))
    assigns = {}            # id(value) -> the local a one-name assignment binds
    parents: dict = {}
    for n in ast.walk(fn):
        for ch in ast.iter_child_nodes(n):
            parents[id(ch)] = n
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name):
            assigns.setdefault(id(n.value), n.targets[0].id)
            # a local bound to a pattern inside the function
            c = _compiled(n.value, consts)
            if c is not None:
                pats[n.targets[0].id] = c
    origin: dict = {p: p for p in params}        # local -> the parameter it comes from
    used: list = []
    on: dict = {}
    calls = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Call)),
                   key=lambda c: (c.lineno, c.col_offset))
    for c in calls:
        f = c.func
        if not (isinstance(f, ast.Attribute) and f.attr in _METHODS):
            continue
        pat = None
        args = c.args
        if isinstance(f.value, ast.Name) and f.value.id in pats:
            pat = pats[f.value.id]
        elif isinstance(f.value, ast.Name) and f.value.id == "re" and args:
            text = _text_value(args[0], consts)
            if text is not None:
                pat = (text, 0)
                args = args[1:]
        else:
            c2 = _compiled(f.value, consts)
            if c2 is not None:
                pat = c2
        if pat is None:
            continue
        used.append(pat)
        at = _TEXT_AT.get(f.attr, 0)
        subject = args[at] if len(args) > at else None
        who = origin.get(_root(subject)) if subject is not None else None
        if who is not None:
            on.setdefault(who, []).append(pat)
            # the call's result, bound to a local, carries the parameter on
            node = c
            while id(node) in parents and not isinstance(parents[id(node)], ast.stmt):
                node = parents[id(node)]
            tgt = assigns.get(id(node))
            if tgt is not None:
                origin[tgt] = who
    return used, on


def changed_patterns(old_module: ast.Module, new_module: ast.Module) -> list:
    """[(name, (old text, flags), (new text, flags))] of the module-level
    patterns whose text or flags the edit changed."""
    a, b = module_patterns(old_module), module_patterns(new_module)
    return [(k, a[k], b[k]) for k in a if k in b and a[k] != b[k]]


# ------------------------------------------------------------------ texts

def _class_char(items, negate: bool) -> Optional[str]:
    """A character of a ``[...]`` set (or outside it, negated)."""
    def inside(ch: str) -> bool:
        o = ord(ch)
        for op, av in items:
            if op is _sre_c.LITERAL and av == o:
                return True
            if op is _sre_c.RANGE and av[0] <= o <= av[1]:
                return True
            if op is _sre_c.CATEGORY:
                cat = str(av)
                if "DIGIT" in cat and (ch.isdigit() != ("NOT" in cat)):
                    return True
                if "WORD" in cat and ((ch.isalnum() or ch == "_") != ("NOT" in cat)):
                    return True
                if "SPACE" in cat and (ch.isspace() != ("NOT" in cat)):
                    return True
        return False
    if negate:
        for ch in ("a", "0", " ", "x", "-", "\n", "Z"):
            if not inside(ch):
                return ch
        return None
    for op, av in items:
        if op is _sre_c.LITERAL:
            return chr(av)
        if op is _sre_c.RANGE:
            # one past the first: ``[0-9]{4}`` gives the year 1111, not 0
            return chr(av[0] + 1 if av[0] < av[1] else av[0])
        if op is _sre_c.CATEGORY:
            for ch in ("1", "a", " "):
                if inside(ch):
                    return ch
    return None


class _Gen:
    """Texts a parsed pattern matches: the default choice everywhere
    (optional parts present, first alternative, smallest repeat of at
    least one), then each choice point flipped on its own."""

    def __init__(self, parsed, members: bool = False, numbers: bool = False):
        self.parsed = parsed
        self.points = 0
        # a set's other members are choice points too (``[ \\t]``: the tab)
        self.members = members
        # an alternation's default: its first alternative that repeats a
        # digit (``x|X|\\*|0|[1-9][0-9]*``: a number, not ``x``)
        self.numbers = numbers

    def text(self, flip: int = -1) -> Optional[str]:
        self.counter = 0
        self.flip = flip
        try:
            return self._seq(self.parsed)
        except (_Stop, RecursionError):
            return None

    def _choice(self) -> bool:
        k = self.counter
        self.counter += 1
        self.points = max(self.points, self.counter)
        return k == self.flip

    def _seq(self, seq) -> str:
        return "".join(self._one(op, av) for op, av in seq)

    def _one(self, op, av) -> str:
        c = _sre_c
        if op is c.LITERAL:
            return chr(av)
        if op is c.NOT_LITERAL:
            return "a" if av != ord("a") else "b"
        if op is c.ANY:
            return "\n" if self._choice() else "a"
        if op is c.IN:
            neg = bool(av) and av[0][0] is c.NEGATE
            if self.members and not neg:
                lits = [chr(x) for o, x in av if o is c.LITERAL]
                for other in lits[1:]:
                    if self._choice():
                        return other
            ch = _class_char(av[1:] if neg else av, neg)
            if ch is None:
                raise _Stop
            return ch
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            lo, hi, sub = av
            n = max(lo, 1) if hi >= 1 else 0
            if self._choice():
                n = lo if n != lo else min(hi, lo + 1)
            return self._seq(sub) * n
        if op is c.SUBPATTERN:
            return self._seq(av[-1])
        if op is c.BRANCH:
            alts = av[1]
            pick = next((i for i, a in enumerate(alts) if _repeats_digit(a)), 0) \
                if self.numbers else 0
            for i in range(1, len(alts)):
                if self._choice():
                    pick = i
            return self._seq(alts[pick])
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            return ""
        if op is c.CATEGORY:
            cat = str(av)
            if "NOT" in cat:
                return "-" if "WORD" in cat else "a"
            return "1" if "DIGIT" in cat else " " if "SPACE" in cat else "a"
        if op is c.GROUPREF:
            raise _Stop
        raise _Stop


class _Stop(Exception):
    pass


def _repeats_digit(seq) -> bool:
    """Whether a parsed alternative repeats a digit (``[1-9][0-9]*``,
    ``\\d+``)."""
    c = _sre_c
    for op, av in seq:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)) and \
                av[1] > 1 and any(_digit_item(o, a) for o, a in av[2]):
            return True
    return False


def _digit_item(op, av) -> bool:
    c = _sre_c
    if op is c.CATEGORY:
        return "DIGIT" in str(av) and "NOT" not in str(av)
    if op is c.IN:
        return any(o is c.RANGE and a[0] <= ord("9") and a[1] >= ord("0") or
                   o is c.CATEGORY and "DIGIT" in str(a) and "NOT" not in str(a)
                   for o, a in av)
    return False


def numbers_sample(text: str, flags: int = 0) -> Optional[str]:
    """The text the pattern matches with each alternation taking its
    first alternative that repeats a digit (``v<1.1.1-b+b`` for an npm
    range block whose numbers are ``x|X|\\*|0|[1-9][0-9]*``), where it
    differs from the first choice of each."""
    try:
        parsed = _sre_parse.parse(text, flags)
    except Exception:
        return None
    t = _Gen(parsed, numbers=True).text()
    return t if t is not None and len(t) <= _MAX_LEN and t != _Gen(parsed).text() else None


def _samples(text: str, flags: int, members: bool = False, points: int = 40) -> list:
    try:
        parsed = _sre_parse.parse(text, flags)
    except Exception:
        return []
    g = _Gen(parsed, members)
    out = []
    first = g.text()
    if first is not None:
        out.append(first)
    for k in range(min(g.points, points)):
        t = g.text(k)
        if t is not None and t not in out:
            out.append(t)
    return [t for t in out if len(t) <= _MAX_LEN]


def member_samples(text: str, flags: int = 0, limit: int = 6, points: int = 40) -> list:
    """Texts the pattern matches, each choice taken on its own, a set's
    every listed member among them (``^:[ \\t]+``: ``': '`` and ``':\\t'``);
    ``points``: how many of the choice points, in order, are flipped."""
    return _samples(text, flags, members=True, points=points)[:limit]


def _varied(base: str) -> list:
    out = [base]
    for i in range(len(base) + 1):
        for ch in _POOL:
            out.append(base[:i] + ch + base[i:])
            if i < len(base) and base[i] != ch:
                out.append(base[:i] + ch + base[i + 1:])
        if i < len(base):
            out.append(base[:i] + base[i + 1:])
    return out


def _signature(pats: list, s: str, paired: bool):
    """What a version's patterns do with ``s``: each one's answers
    (paired with the other version's pattern at the same place), or the
    texts they leave applied in turn (``sub("")`` one after the other)."""
    try:
        if paired:
            sig = []
            for p in pats:
                m = p.match(s)
                f = p.fullmatch(s)
                se = p.search(s)
                sig.append((m.groups() if m else None, bool(f),
                            se.span() if se else None, p.sub("\x01", s)))
            return tuple(sig)
        t = s
        for p in pats:
            t = p.sub("", t)
        return (t,)
    except Exception:
        return None


def telling_texts(old: list, new: list, limit: int = 3) -> list:
    """Texts on which the old patterns and the new ones (each a list of
    (text, flags) in the order the code uses them) disagree, shortest
    first and one per kind of change; [] when they are the same."""
    if old == new or not old or not new:
        return []
    try:
        po = [re.compile(t, f) for t, f in old]
        pn = [re.compile(t, f) for t, f in new]
    except (re.error, TypeError, ValueError, OverflowError):
        return []
    paired = len(po) == len(pn) and all(a.groups == b.groups for a, b in zip(po, pn))
    cands: list = []
    seen: set = set()
    for t, f in list(dict.fromkeys(old + new)):
        for base in _samples(t, f):
            for s in _varied(base):
                if s not in seen:
                    seen.add(s)
                    cands.append(s)
                    if len(cands) >= _MAX_CANDIDATES:
                        break
    found: list = []
    kinds: set = set()
    for s in sorted(cands, key=len):
        a, b = _signature(po, s, paired), _signature(pn, s, paired)
        if a is None or b is None or a == b:
            continue
        # one text per way the two differ (which of the answers differ)
        kind = tuple(i for i, (x, y) in enumerate(zip(a, b)) if x != y) if paired else ()
        kind = (kind, frozenset(set(s) - set("a0")))
        if kind in kinds:
            continue
        kinds.add(kind)
        found.append(s)
        if len(found) >= limit:
            break
    return found
