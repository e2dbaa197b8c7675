"""The neural model as the offline Treefix generator's value model.

``NeuralValueModel()(name, kind, context) -> [class, ...]``: the contract of
``OfflineGenerator(value_model=...)`` (docs/TREEFIX.md).  The generator
passes the snippet's source and the lines where the value is used in
``context``; the snippet is instrumented once (cached by its text) to find
the site of that name, kind and line, and the model is asked with the
site's context tokens, as ``predictor="neural"`` does at run time.  Classes
below ``floor`` probability are left out (the generator takes at most three),
and so are classes whose values do not survive what the snippet does with
the value (lexecutor_c.model.uses) as themselves (a prefix's value is
present: no use-site constraint of the runtime replaces it).  Without ``source`` in the context, or
without a matching site, the name alone is asked.
"""
from __future__ import annotations

from typing import Optional

from .neural import NeuralPredictor, runtime_predictor


class NeuralValueModel:
    """See the module docstring."""

    def __init__(self, predictor: Optional[NeuralPredictor] = None, floor: float = 0.05,
                 k: int = 3):
        self.predictor = predictor
        self.floor = floor
        self.k = k
        self._source: Optional[str] = None
        self._sites: list = []
        self._uses = None

    def _sites_of(self, source: str) -> list:
        if source != self._source:
            from ..engine.instrument import instrument
            from .uses import Uses
            try:
                self._sites = [s for s in instrument(source).iids
                               if s.kind in ("name", "attribute", "call")]
            except (SyntaxError, ValueError):
                self._sites = []
            self._uses = Uses(source, self._sites)
            self._source = source
        return self._sites

    def site(self, name: str, kind: str, context: dict):
        source = context.get("source") if isinstance(context, dict) else None
        if not source:
            return None
        lines = set(context.get("lines") or ())
        fallback = None
        for s in self._sites_of(source):
            if s.name == name and s.kind == kind:
                if not lines or s.line in lines:
                    return s
                fallback = fallback or s
        return fallback

    def __call__(self, name: str, kind: str = "name", context: Optional[dict] = None) -> list:
        if not name or kind not in ("name", "attribute", "call"):
            return []
        pred = self.predictor or runtime_predictor()
        s = self.site(name, kind, context or {})
        before, after = (s.before or "", s.after or "") if s is not None else ("", "")
        ranked = pred.model.predict(name, kind, before, after, 22)
        out = []
        for c, p in ranked:
            if p < self.floor or len(out) >= self.k:
                break
            if s is None or self._uses is None or self._survives(c, s.iid):
                out.append(c)
        return out

    def _survives(self, cls: str, iid: int) -> bool:
        """The class's value survives the snippet's uses *as itself*: a
        prefix assigns a present value, which the runtime's use-site
        constraints never replace (they act on injected values only)."""
        r = self._uses.probe(cls, iid)
        return r.ok and not r.replaced

    def __repr__(self):
        return "neural"
