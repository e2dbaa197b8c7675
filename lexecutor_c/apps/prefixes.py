"""What the applications put before a snippet before running it: the
imports the snippet lost (restored from the knowledge index) and the
Treefix prefix set.

* ``restored_imports(text)``: for every name the snippet reads and never
  binds, the import statement the knowledge index (lexecutor_c/knowledge,
  docs/KNOWLEDGE.md) proposes, when it is confident: a standard-library
  module or name (``math``, ``sqrt`` -> ``from math import sqrt``,
  ``deque`` -> ``from collections import deque``), or an installed
  third-party module under its own name or a corpus alias (``np`` ->
  ``import numpy as np``).  Third-party *bare names* (``N`` from sympy) are
  never imported: they are more often the snippet's own variables.  An
  interpretation must have the attributes the snippet reads from the name.
* ``treefix_prefixes(text)``: the prefix set P of the Treefix loop
  (lexecutor_c/prefixtree), best first; a module registered as
  ``lexecutor_c.treefix`` (a plug-in, or a test's stand-in) is used instead.
"""
from __future__ import annotations

import ast
import sys
from typing import Optional

__all__ = ["restored_imports", "restore_imports", "treefix_prefixes", "prefix_bindings", "RESTORE_MIN_STDLIB",
           "RESTORE_MIN_THIRD_PARTY"]

#: least confidence (knowledge.resolve.candidate_imports) for a standard-library import
RESTORE_MIN_STDLIB = 0.3
#: least confidence for a third-party module import (``import numpy as np``)
RESTORE_MIN_THIRD_PARTY = 0.5
#: below this confidence a restored import is a guess (see restore_imports)
RESTORE_SURE = 0.5


def restored_imports(text: str, filename: str = "<snippet>") -> list[tuple[str, str]]:
    """[(name, import statement)] for the undefined names of ``text`` that
    the knowledge index can place (module docstring), in first-use order."""
    return [(name, stmt) for name, stmt, _sure in restore_imports(text, filename)]


def restore_imports(text: str, filename: str = "<snippet>") -> list[tuple[str, str, bool]]:
    """[(name, import statement, sure)]: ``sure`` is False for a guess
    (confidence below RESTORE_SURE); the applications treat a guessed
    name's values as they treat injected ones.  Among the acceptable
    interpretations, those taking the arities the snippet calls the name
    and its attributes with come first, then the standard library's."""
    from ..engine.instrument import instrument
    from ..knowledge import get_index
    from ..knowledge.resolve import candidate_imports
    try:
        undefined = instrument(text, filename=filename).undefined
    except (SyntaxError, ValueError):
        return []
    if not undefined:
        return []
    idx = get_index()
    out = []
    for u in undefined:
        try:
            cands = candidate_imports(u.name, idx, attrs=list(u.attrs), called=bool(u.calls))
        except Exception:           # a broken index entry costs that name only
            continue
        ok = []
        for stmt, target, conf in cands:
            if not _use_ok(idx, target, u):
                continue
            stdlib = idx.project_of(target.split(".")[0]) == "stdlib"
            if stdlib and conf >= RESTORE_MIN_STDLIB:
                ok.append((0, stmt, target, conf))
            elif not stdlib and stmt.startswith("import ") and conf >= RESTORE_MIN_THIRD_PARTY:
                ok.append((1, stmt, target, conf))
        if not ok:
            alias = _alias_by_members(idx, u)
            if alias is not None:
                out.append((u.name, alias, True))
            continue
        fits = [c for c in ok if _fits(idx, c[2], u)]
        pick = min(fits or ok, key=lambda c: c[0])
        # the arities only choose between interpretations (`datetime.date(y, m, d)`:
        # the module, not the class): a wrong-arity call of the only one is
        # the snippet's own bug more often than a wrong guess
        sure = pick[3] >= RESTORE_SURE
        out.append((u.name, pick[1], sure))
    return out


def _alias_by_members(idx, u) -> Optional[str]:
    """``import heapq as hp`` for a name used only as a module whose
    attributes (``hp.heapify``, ``hp.heappush``) exactly one
    standard-library module provides; None otherwise."""
    attrs = [a for a in (u.attrs or {}) if not a.startswith("_")]
    if u.calls or not attrs or not u.name.isidentifier():
        return None
    common = None
    for a in attrs:
        mods = {m for m, _k in idx.providers(
            a, limit=50, where=lambda m: idx.project_of(m.split(".")[0]) == "stdlib")
            if not any(p.startswith("_") for p in m.split("."))}
        common = mods if common is None else common & mods
        if not common:
            return None
    if common is None or len(common) != 1:
        return None
    (mod,) = common
    from ..knowledge.resolve import importable
    if not importable(mod.split(".")[0]):
        return None
    return f"import {mod} as {u.name}"


def _use_ok(idx, target: str, u) -> bool:
    """A value the snippet iterates or subscripts is no function, class or
    module (``for ch in text``: not ``cgitb.text``)."""
    if not (u.iterated or u.keys):
        return True
    try:
        found = idx.lookup(target)
    except Exception:
        return True
    return found is None or found[2][0] not in ("f", "c", "m")


def _arity_ok(entry, arities) -> bool:
    """Whether a function/class entry of the index accepts every call arity
    (-1: a call with *args or **kwargs, not checked)."""
    if entry is None:
        return True
    e = entry[2]
    if e[0] == "f":
        lo, hi = e[1], e[2]
    elif e[0] == "c":
        init = e[4] if len(e) > 4 else None
        if not init:
            return True
        lo, hi = init
    else:
        return True
    for n in arities:
        if n < 0:
            continue
        if n < lo or (hi >= 0 and n > hi):
            return False
    return True


def _fits(idx, target: str, u) -> bool:
    """Whether the interpretation ``target`` of an undefined name takes the
    calls the snippet makes: of the name itself and of its attributes."""
    try:
        if u.calls and not _arity_ok(idx.lookup(target), u.calls):
            return False
        for attr, arities in (u.attrs or {}).items():
            if arities and not _arity_ok(idx.lookup(f"{target}.{attr}"), arities):
                return False
    except Exception:
        return True
    return True


def treefix_prefixes(text: str, notes: list, budget: float = 5.0,
                     seed: int = 0) -> Optional[list[str]]:
    """The Treefix prefix set for ``text`` (texts, best first), None when the
    search is unavailable or fails (with a note saying why)."""
    mod = sys.modules.get("lexecutor_c.treefix")
    fn = getattr(mod, "treefix", None) if mod is not None else None
    if fn is None:
        from ..prefixtree import treefix as fn
    if not callable(fn):
        notes.append("lexecutor_c.treefix has no treefix(); using injection only")
        return None
    try:
        try:
            t = fn(text, generator="offline", budget=budget, seed=seed)
        except TypeError:           # a stand-in without those options
            t = fn(text, generator="offline")
        items = list(getattr(t, "prefixes", None) or [])
        best = getattr(t, "best", None)
    except Exception as e:          # a failing optional stage must not end the command
        notes.append(f"treefix failed ({type(e).__name__}: {e}); using injection only")
        return None
    out = []
    for p in items:
        s = _prefix_text(p)
        if s is not None:
            out.append(s)
    b = _prefix_text(best) if best is not None else None
    if b is not None and b in out:
        out.remove(b)
        out.insert(0, b)
    return out


def _prefix_text(p) -> Optional[str]:
    if isinstance(p, str):
        return p
    for attr in ("source", "code", "text", "prefix"):
        v = getattr(p, attr, None)
        if isinstance(v, str):
            return v
    return None


def prefix_bindings(prefix: str) -> tuple[set, set]:
    """(names a prefix binds to generated values, names it imports)."""
    from .taint import bound_names
    try:
        tree = ast.parse(prefix)
    except (SyntaxError, ValueError):
        return set(), set()
    every = bound_names(tree, imports=True)
    generated = bound_names(tree, imports=False)
    return generated, every - generated
