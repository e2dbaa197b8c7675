"""Values the code names: candidates derived from what the snippet does with
a value, one per branch it can take.

Every function returns candidates in the offline generator's shape
(``("const", v)``, ``("none",)``, ``("seq", [v1, v2, ...])``, ...):

* :func:`guard_values`: None / False / empty for a value tested for None or
  truth (``if x is None``, ``if not x``, ``while x``), the other side for the
  asserted state;
* :func:`literal_values`: the literals a value is compared with (``==``,
  ``in (...)``, ``startswith``, ``x[-1] == 't'``), one value per branch,
  plus one that matches none of them;
* :func:`string_values`: strings built from the constraints on a string:
  the separators it is split by (with the right number of parts for the
  unpacking of the split, recursively for the parts), prefixes, suffixes,
  substrings, characters at indexes, the literals its lower()/strip()
  results are compared with;
* :func:`number_values`: numbers on both sides of each numeric comparison;
* :func:`length_values`: sequences long enough for the indexes and length
  comparisons;
* :func:`call_sequences`: successive results of a callable whose results
  are compared with several literals or tested in a loop condition.
"""
from __future__ import annotations

from typing import Optional

from .analysis import Node

#: str methods whose result stands for the string itself (``x.lower() == 'a'``)
_SAME_STR = ("lower", "upper", "strip", "lstrip", "rstrip", "casefold", "title")
_SPLITS = ("split", "rsplit", "partition", "rpartition", "splitlines")
_CMP = ("Lt", "LtE", "Gt", "GtE")


def _is_str_like(node: Node) -> bool:
    return bool(node.uses & {"str", "strmeth"} or node.str_args or
                (node.contains and all(isinstance(c, str) for c in node.contains)) or
                any(isinstance(v, str) and op in ("Eq", "NotEq", "startswith", "endswith")
                    for op, v in node.compared) or
                any(isinstance(v, str) for v in node.member_of) or
                any(isinstance(v, str) and isinstance(k, int) for k, _, v in node.key_cmp))


def guard_values(node: Node, top: Optional[tuple]) -> list:
    """None/False/empty variants for a value whose None-ness or truth decides
    a branch; the asserted state first."""
    out: list = []
    for a in node.asserted:
        if a == "none":
            out.append(("none",))
        elif a == "false":
            out.append(("const", False))
    tested = node.uses & {"none", "bool"} or node.asserted
    if not tested:
        return out
    if "none" in node.uses:
        out.append(("none",))
    kind = top[0] if top else None
    if kind in ("list", "tuple", "known"):
        out.append(("const", []))
    elif kind == "dict":
        out.append(("const", {}))
    elif kind == "str" or (kind == "const" and isinstance(top[1], str)) or _is_str_like(node):
        out.append(("const", ""))
    elif kind == "int" or node.uses & {"num", "numlike"}:
        out.append(("const", 0))
    if "bool" in node.uses or "false" in node.asserted:
        out.append(("const", False))
    if "none" in node.uses or "bool" in node.uses:
        out.append(("none",))
    return out


def _other(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float)):
        return v + 1
    if isinstance(v, str):
        return v + "_other" if v else "other"
    if isinstance(v, bytes):
        return v + b"_other" if v else b"other"
    return None


def literal_values(node: Node, limit: int = 40) -> list:
    """One value per literal the node is compared with (== / != / in a
    literal collection / asserted equal), then one equal to none of them."""
    out: list = []
    lits: list = []
    for a in node.asserted:
        if isinstance(a, tuple) and a[0] == "Eq":
            lits.append(a[1])
        elif isinstance(a, tuple) and a[0] == "In" and a[1]:
            lits.append(next(iter(a[1])) if not isinstance(a[1], str) else a[1][:1])
    for op, v in node.compared:
        if op in ("Eq", "NotEq") and not isinstance(v, (list, dict, set)):
            lits.append(v)
        elif op in ("LtE", "GtE") and isinstance(v, str):     # 'a' <= ch <= 'z'
            lits.append(v)
    for v in node.member_of:
        lits.append(v)
    seen = []
    for v in lits:
        if any(type(v) is type(w) and v == w for w in seen):
            continue
        seen.append(v)
        out.append(("none",) if v is None else ("const", v))
        if len(out) >= limit:
            break
    if seen:
        o = _other(seen[0])
        if o is not None and all(not (type(o) is type(w) and o == w) for w in seen):
            out.append(("const", o))
    return out


def number_values(node: Node) -> list:
    """Numbers on both sides of each numeric comparison (``x >= 0``: 0 and
    -1), the boundary itself included."""
    out: list = []
    for op, v in node.compared:
        if op in _CMP and isinstance(v, (int, float)) and not isinstance(v, bool):
            if op in ("Gt", "GtE"):
                vals = [v + 1, v, v - 1] if op == "Gt" else [v, v + 1, v - 1]
            else:
                vals = [v - 1, v, v + 1] if op == "Lt" else [v, v - 1, v + 1]
            for x in vals:
                c = ("const", x)
                if c not in out:
                    out.append(c)
    return out[:6]


def _want_len(node: Node) -> list:
    """Lengths on both sides of each length comparison, then one long
    enough for every constant index the code uses."""
    need = 0
    for k in node.int_keys:
        need = max(need, k + 1 if k >= 0 else -k)
    for k, _, _ in node.key_cmp:
        if isinstance(k, int) and not isinstance(k, bool):
            need = max(need, k + 1 if k >= 0 else -k)
    out: list = []

    def add(n):
        if 0 <= n <= 64 and n not in out:
            out.append(n)
    for op, v in node.len_cmp:
        sat = {"Gt": v + 1, "GtE": v, "Eq": v, "Lt": v - 1, "LtE": v, "NotEq": v + 1}.get(op)
        vio = {"Gt": v, "GtE": v - 1, "Eq": v + 1, "Lt": v, "LtE": v + 1, "NotEq": v}.get(op)
        if sat is not None:
            add(sat)
            add(vio)
    if need > 3:
        add(need)
    return out


def length_values(node: Node) -> list:
    """("len", n) candidates: a sequence of n elements (the generator fills
    in the elements)."""
    return [("len", n) for n in _want_len(node)]


def _child_call(node: Node, method: str) -> Optional[Node]:
    a = node.attrs.get(method)
    return a.ret if a is not None else None


def _numeric(node: Node) -> bool:
    """Whether the code converts the value to a number (``int(x)``)."""
    return any(t.startswith(("numstr", "num", "int", "float")) for t in node.arg_specs)


def _piece(sub: Optional[Node], i: int) -> str:
    """A part of a split string the code gives no constant for: a number
    where the code converts it with int()/float() (``major, minor, patch =
    v.split(".")`` then ``int(major)``), else a placeholder."""
    if sub is not None and _numeric(sub):
        return "2"
    return f"p{i}"


def string_values(node: Node, depth: int = 0, limit: int = 6) -> list:
    """Strings meeting the constraints on ``node`` (see the module
    docstring), most constrained first; [] when nothing constrains it."""
    if depth > 3:
        return []
    pre, suf, has, hasnt, eqs = [], [], [], [], []
    chars: dict = {}
    for op, v in node.compared:
        if op == "startswith":
            for x in (v if isinstance(v, tuple) else (v,)):
                if isinstance(x, str):
                    pre.append(x)
                    break
        elif op == "endswith":
            for x in (v if isinstance(v, tuple) else (v,)):
                if isinstance(x, str):
                    suf.append(x)
                    break
        elif op in ("Eq",) and isinstance(v, str):
            eqs.append(v)
    for c in node.contains:
        if isinstance(c, str):
            has.append(c)
    for k, op, v in node.key_cmp:
        if isinstance(k, int) and isinstance(v, str) and len(v) == 1 and op in ("Eq", "In"):
            chars.setdefault(k, v)
    # the results of lower()/strip()/... stand for the string itself
    for m in _SAME_STR:
        r = _child_call(node, m)
        if r is not None:
            for op, v in r.compared:
                if op == "Eq" and isinstance(v, str):
                    eqs.append(v)
                elif op in ("startswith", "endswith") and isinstance(v, str):
                    (pre if op == "startswith" else suf).append(v)
            for v in r.member_of:
                if isinstance(v, str):
                    eqs.append(v)
            has += [c for c in r.contains if isinstance(c, str)]
    # split separators: the parts joined by them, as many as the code unpacks
    split_strs = []
    for m, sep in node.str_args:
        if m not in _SPLITS or not isinstance(sep, str) or not sep:
            continue
        r = _child_call(node, m)
        width = r.width if r is not None and r.width else (3 if m.endswith("partition")
                                                           else 2)
        if m.endswith("partition"):
            width = 2
        part_node = r.item if r is not None else None
        parts = string_values(part_node, depth + 1, 2) if part_node is not None else []
        if r is not None and r.width:
            subs = [r.attrs.get(f"_{i}") for i in range(r.width)]
            sub_vals = [string_values(s, depth + 1, 1) if s is not None else [] for s in subs]
            pieces = [(sv[0][1] if sv else _piece(s, i)) for i, (s, sv) in
                      enumerate(zip(subs, sub_vals))]
            if m.endswith("partition"):
                pieces = [pieces[0], pieces[-1]]
        else:
            base = [p[1] for p in parts] or ["a", "b"]
            pieces = [base[i % len(base)] for i in range(width)]
        split_strs.append(sep.join(str(p) for p in pieces))
    if not (pre or suf or has or hasnt or eqs or chars or split_strs):
        return []
    out: list = []

    def add(s):
        c = ("const", s)
        if isinstance(s, str) and c not in out:
            out.append(c)
    for e in eqs[:3]:
        add(e)
    numeric = _numeric(node)
    core = split_strs[0] if split_strs else ("12" if numeric else "abc")

    def mid(text, piece):        # '12' with '.' inside: '1.2' (still a number)
        return text[:1] + piece + text[1:] if numeric and len(text) > 1 else text + piece
    s = core
    for h in has:
        if h not in s:
            s = mid(s, h)
    s = (pre[0] if pre else "") + s + (suf[0] if suf else "")
    if chars:
        lst = list(s)
        need = max(k + 1 if k >= 0 else -k for k in chars)
        while len(lst) < need:
            lst.append("a")
        for k, ch in chars.items():
            lst[k] = ch
        s = "".join(lst)
    add(s)
    for other in split_strs[1:]:
        add(other)
    if len(has) > 1:             # `"." in v or "e" in v`: one substring at a time
        for h in has:
            add(mid(core, h))
    if pre or suf or has:
        add(core if numeric else "zzz")   # none of the prefixes, suffixes, substrings
    for k, ch in list(chars.items())[1:]:
        lst = list(s)
        lst[list(chars)[0]] = "z"
        add("".join(lst))
    return out[:limit]


def call_sequences(node: Node, guard_in_loop: bool) -> list:
    """("seq", [v1, v2, ..., last]) candidates for the result of a call: the
    literals it is compared with in turn, then a value equal to none of them
    (a loop that reads it until something else comes ends); for a result
    tested for truth in a loop condition, truthy then falsy."""
    out: list = []
    # a result asserted equal to several literals (a test calling it again and
    # again): each of them in turn, in the order of the asserts
    asserted = [a[1] for a in node.asserted if isinstance(a, tuple) and a[0] == "Eq"]
    if len(asserted) >= 2:
        out.append(("seq", asserted + [asserted[-1]]))
    lits = [v for op, v in node.compared if op in ("Eq", "NotEq") and
            isinstance(v, (str, int, float, bool, bytes))]
    lits += [v for v in node.member_of if isinstance(v, (str, int, float, bytes))]
    lits = list(dict.fromkeys(lits))
    if len(lits) >= 2:
        out.append(("seq", lits[:4] + [_other(lits[0])]))
    elif len(lits) == 1:
        out.append(("seq", [lits[0], _other(lits[0])]))
    if guard_in_loop or ("bool" in node.uses and len(node.lines) > 1):
        out.append(("seq", [True, False]))
    if "bool" in node.uses and len(node.lines) > 1:
        # an if/elif chain asking it again and again: true at the k-th call
        for k in range(1, min(len(node.lines), 5)):
            out.append(("seq", [False] * k + [True, False]))
    return out


def derived_values(facts, node: Node) -> list:
    """The values above that apply to ``node``: literals, strings, numbers,
    and for a call's result (``f()``) successive results."""
    out = literal_values(node)
    if _is_str_like(node) or node.str_args:
        out += string_values(node)
    out += number_values(node)
    if node.path.endswith("()"):
        in_loop = any(node.path in paths for paths in facts.loop_guards.values()) \
            if getattr(facts, "loop_guards", None) else False
        out += call_sequences(node, in_loop)
    return out
