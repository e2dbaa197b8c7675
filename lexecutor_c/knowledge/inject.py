"""Use-site constraints for the run-time injector.

``ConstraintPredictor(fallback)`` is a callable predictor (docs/RUNTIME.md,
"Callable predictors"): for a missing value passed straight to a callable
the constraint table knows (``range(n)``, ``len(data)``, ``",".join(words)``,
``open(path)``), it answers the abstract class closest to the argument's
spec (``int_pos``, ``list_nonempty``, ``str_nonempty``, ...); otherwise it
asks ``fallback`` (a predictor name's constant class, or another callable).

    import lexecutor_c
    from lexecutor_c.knowledge.inject import ConstraintPredictor
    lexecutor_c.run(src, predictor=ConstraintPredictor())

The call site comes from the query's ``before`` text (the tokens before the
name, space-separated as the instrumenter gives them).
"""
from __future__ import annotations

from typing import Optional, Union

from .constraints import constraint_for, runtime_class

_OPEN, _CLOSE = "([{", ")]}"


def use_site(before: str) -> Optional[tuple]:
    """(callee, argument position or keyword) when the tokens ``before`` a
    value end inside a call's argument list; None otherwise."""
    toks = before.split()
    depth, commas, kw = 0, 0, None
    if len(toks) >= 2 and toks[-1] == "=" and toks[-2].isidentifier():
        kw = toks[-2]
        toks = toks[:-2]
    i = len(toks) - 1
    while i >= 0:
        t = toks[i]
        if t in _CLOSE:
            depth += 1
        elif t in _OPEN:
            if depth == 0:
                break
            depth -= 1
        elif t == "," and depth == 0:
            commas += 1
        elif t in (":", "=", "lambda") and depth == 0 and kw is None:
            return None
        i -= 1
    if i < 1 or toks[i] != "(":
        return None
    # the callee: NAME ( . NAME )* or LITERAL . NAME just before "("
    j = i - 1
    parts = [toks[j]]
    while j >= 2 and toks[j - 1] == ".":
        parts.insert(0, toks[j - 2])
        j -= 2
    head = parts[0]
    if head[:1] in "\"'" or head[:2] in ("r'", 'r"', "f'", 'f"', "b'", 'b"'):
        parts[0] = "bytes" if head[:1] == "b" else "str"
    elif not all(p.isidentifier() for p in parts):
        return None
    if j >= 1 and toks[j - 1] in ("def", "class"):
        return None
    callee = ".".join(parts)
    return callee, (kw if kw is not None else commas)


class ConstraintPredictor:
    """A callable predictor honouring use-site constraints (module docstring)."""

    def __init__(self, fallback: Union[str, object] = "object"):
        self.fallback = fallback
        self.answered = 0

    def __repr__(self) -> str:
        return "constraints"

    def spec_for(self, query):
        if getattr(query, "kind", "") not in ("name", "attribute", "call"):
            return None
        site = use_site(getattr(query, "before", "") or "")
        if site is None:
            return None
        return constraint_for(*site)

    def __call__(self, query):
        spec = self.spec_for(query)
        if spec is not None and query.kind != "call":
            self.answered += 1
            return runtime_class(spec)
        if callable(self.fallback):
            return self.fallback(query)
        return self.fallback
