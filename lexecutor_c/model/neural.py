"""The neural value predictor: tokenizer (reference implementation) and the
lazily loaded LibTorch shim (``lexecutor_c._torch_shim``, csrc/torch_shim.cpp).

Importing this module imports neither torch nor the shim.  The shim (which
links LibTorch) is loaded on the first prediction; the model file is
``lexecutor_c/model/neural.pt2`` unless ``LEXECUTOR_C_MODEL`` or an explicit
path names another.  See docs/MODEL.md.

Tokenizer (version 1).  A query is laid out as positions

    [name] [k:kind] [before tokens (last CTX)] [<mask>] [after tokens (first CTX)]

truncated / padded to ``max_len`` positions.  Context strings are split on
ASCII whitespace.  Every position is a bag of at most ``max_feats`` hashed
features of the word's UTF-8 bytes (only its first 32 bytes are used):

* ``w:`` + the word;
* for identifiers ([A-Za-z_][A-Za-z0-9_]*, ASCII): ``s:`` + each lowercased
  piece after splitting on ``_`` and camelCase boundaries (at most 4,
  distinct, only when there are two or more pieces or the piece differs from
  the word);
* ``g:`` + the byte trigrams of ``^`` + lowercased word (first 24 bytes) + ``$``
  while slots are left.

Special positions have one feature: ``k:name`` / ``k:attribute`` /
``k:call`` and ``t:<mask>``.  A feature's id is FNV-1a (32 bit) of its bytes
modulo ``buckets - 1``, plus 1 (0 is padding).  csrc/torch_shim.cpp
implements the same function; tests compare the two.
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Dict, List, Optional, Sequence, Tuple

TOKENIZER_VERSION = 1
KINDS = ("name", "attribute", "call")
MODEL_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "neural.pt2")
ENV_MODEL = "LEXECUTOR_C_MODEL"


class TokenizerConfig:
    """The tokenizer's parameters; written into the exported model."""

    def __init__(self, buckets: int = 16384, max_len: int = 36, max_feats: int = 12,
                 ctx: int = 16):
        if buckets < 2 or max_len < 3 or max_feats < 1 or ctx < 0:
            raise ValueError("bad tokenizer configuration")
        self.buckets, self.max_len, self.max_feats, self.ctx = buckets, max_len, max_feats, ctx

    def to_text(self, fine: Sequence[str], coarse: Sequence[str]) -> str:
        return (f"lexecutor_c.tokenizer {TOKENIZER_VERSION}\n"
                f"buckets {self.buckets}\nmax_len {self.max_len}\n"
                f"max_feats {self.max_feats}\nctx {self.ctx}\n"
                f"fine {' '.join(fine)}\ncoarse {' '.join(coarse)}\n")

    @classmethod
    def from_text(cls, text: str) -> Tuple["TokenizerConfig", List[str], List[str]]:
        kv = {}
        lines = text.splitlines()
        if not lines or lines[0].split() != ["lexecutor_c.tokenizer", str(TOKENIZER_VERSION)]:
            raise ValueError("not a version 1 lexecutor_c tokenizer description")
        for ln in lines[1:]:
            if ln.strip():
                k, _, v = ln.partition(" ")
                kv[k] = v
        cfg = cls(int(kv["buckets"]), int(kv["max_len"]), int(kv["max_feats"]), int(kv["ctx"]))
        return cfg, kv["fine"].split(), kv["coarse"].split()


def fnv1a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


_IDENT_FIRST = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_IDENT_REST = _IDENT_FIRST | frozenset(b"0123456789")


def _lower(b: bytes) -> bytes:
    return bytes(c + 32 if 65 <= c <= 90 else c for c in b)


def _pieces(w: bytes) -> List[bytes]:
    out: List[bytes] = []
    cur = bytearray()
    n = len(w)
    for i, c in enumerate(w):
        if c == 95:                               # _
            if cur:
                out.append(bytes(cur))
                cur = bytearray()
            continue
        up = 65 <= c <= 90
        if up and cur and i > 0:
            p = w[i - 1]
            prev_low_or_digit = 97 <= p <= 122 or 48 <= p <= 57
            prev_up = 65 <= p <= 90
            next_low = i + 1 < n and 97 <= w[i + 1] <= 122
            if prev_low_or_digit or (prev_up and next_low):
                out.append(bytes(cur))
                cur = bytearray()
        cur.append(c)
    if cur:
        out.append(bytes(cur))
    return [_lower(p) for p in out]


def word_features(word: bytes, max_feats: int) -> List[bytes]:
    w = word[:32]
    feats = [b"w:" + w]
    if w and w[0] in _IDENT_FIRST and all(c in _IDENT_REST for c in w):
        ps = _pieces(w)
        if len(ps) > 1 or (ps and ps[0] != w):
            seen = []
            for p in ps:
                if p not in seen:
                    seen.append(p)
                if len(seen) == 4:
                    break
            feats.extend(b"s:" + p for p in seen)
    g = b"^" + _lower(w[:24]) + b"$"
    i = 0
    while len(feats) < max_feats and i + 3 <= len(g):
        feats.append(b"g:" + g[i:i + 3])
        i += 1
    return feats[:max_feats]


class Tokenizer:
    """Python reference of the shim's tokenizer (used for training)."""

    def __init__(self, cfg: TokenizerConfig):
        self.cfg = cfg
        self._cache: Dict[bytes, List[int]] = {}

    def _ids(self, feats: List[bytes]) -> List[int]:
        m = self.cfg.buckets - 1
        return [fnv1a(f) % m + 1 for f in feats]

    def word_ids(self, word: bytes) -> List[int]:
        ids = self._cache.get(word)
        if ids is None:
            ids = self._ids(word_features(word, self.cfg.max_feats))
            if len(self._cache) < 2_000_000:
                self._cache[word] = ids
        return ids

    def encode(self, name: str, kind: str, before: str, after: str) -> List[List[int]]:
        """The feature ids of each position (no padding)."""
        if not name:
            raise ValueError("empty input: the name is empty")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        cfg = self.cfg
        enc = lambda s: s.encode("utf-8", "surrogatepass")   # noqa: E731
        rows = [self.word_ids(enc(name)), self._ids([b"k:" + kind.encode()])]
        # bytes.split(): ASCII whitespace only, like the shim
        bw = enc(before).split()[-cfg.ctx:] if cfg.ctx else []
        aw = enc(after).split()[:cfg.ctx] if cfg.ctx else []
        rows.extend(self.word_ids(w) for w in bw)
        rows.append(self._ids([b"t:<mask>"]))
        rows.extend(self.word_ids(w) for w in aw)
        return rows[:cfg.max_len]

    def encode_padded(self, name, kind, before, after) -> List[List[int]]:
        rows = self.encode(name, kind, before, after)
        F = self.cfg.max_feats
        out = [r + [0] * (F - len(r)) for r in rows]
        out.extend([[0] * F] * (self.cfg.max_len - len(out)))
        return out


# ---- the predictor used by Runtime(predictor="neural") ---------------------

class NeuralUnavailable(RuntimeError):
    """The neural predictor cannot run here (no shim/torch, no model)."""


def _has_torch() -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def _no_torch_message() -> str:
    return (f"the neural predictor needs PyTorch, and torch is not installed for this Python "
            f"({sys.version_info[0]}.{sys.version_info[1]}): pip install "
            "'lexecutor_c[neural]' (torch==2.13.0, the version the shim is built against) "
            "where torch has a build for this Python; a source checkout is then rebuilt "
            "(python setup.py build_ext --inplace) to get lexecutor_c._torch_shim")


def _preload_torch_libraries() -> None:
    """Load the installed torch's libc10 and libtorch_cpu into the global symbol scope
    (without importing torch): a release wheel's shim names no torch library and takes its
    symbols from these (setup.py, LX_RELEASE_BUILD), so it works with the torch that pip put
    anywhere on sys.path; a local build's shim links them and finds them loaded already."""
    import ctypes
    import importlib.util
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return
    for where in (spec.submodule_search_locations or []) if spec else []:
        for name in ("libc10.so", "libtorch_cpu.so"):
            path = os.path.join(where, "lib", name)
            if os.path.exists(path):
                try:
                    ctypes.CDLL(path, mode=os.RTLD_GLOBAL)
                except OSError:
                    return          # the shim's import then says what is wrong
        return


def load_shim():
    """The LibTorch shim extension; NeuralUnavailable with the reason when absent."""
    _preload_torch_libraries()
    try:
        from lexecutor_c import _torch_shim
    except ImportError as e:
        if not _has_torch():
            raise NeuralUnavailable(_no_torch_message()) from e
        raise NeuralUnavailable(
            "lexecutor_c._torch_shim is not built or cannot be loaded "
            f"({e}); rebuild with torch installed: python setup.py build_ext --inplace") from e
    return _torch_shim


def check_available() -> None:
    """Raise NeuralUnavailable now when torch is missing (a wheel's shim links
    the build machine's LibTorch, so it must not be loaded without torch) or
    the shim was never built (no torch for this interpreter at build time:
    e.g. Python 3.12/3.13 here), without loading either; a built shim is
    loaded on the first query only."""
    import importlib.util
    if not _has_torch():
        raise NeuralUnavailable(_no_torch_message())
    try:
        has_shim = importlib.util.find_spec("lexecutor_c._torch_shim") is not None
    except (ImportError, ValueError):
        has_shim = False
    if not has_shim:
        raise NeuralUnavailable("lexecutor_c._torch_shim is not built; rebuild with torch "
                                "installed: python setup.py build_ext --inplace")


class NeuralModel:
    """A model loaded through the shim: ``predict(name, kind, before, after,
    k=5, coarse=False) -> [(class, probability), ...]``."""

    def __init__(self, path: Optional[str] = None):
        path = path or os.environ.get(ENV_MODEL) or MODEL_FILE
        if not os.path.exists(path):
            raise NeuralUnavailable(f"neural model file {path!r} does not exist "
                                    "(train one: python -m lexecutor_c train ...)")
        self.path = path
        self._shim = load_shim()
        self._handle = self._shim.load(path)
        self.info = self._shim.info(self._handle)

    def predict(self, name: str, kind: str, before: str = "", after: str = "", k: int = 5,
                coarse: bool = False) -> List[Tuple[str, float]]:
        return self._shim.predict(self._handle, name, kind, before or "", after or "", k,
                                  bool(coarse))

    def tokenize(self, name: str, kind: str, before: str = "", after: str = ""):
        return self._shim.tokenize(self._handle, name, kind, before or "", after or "")


#: the injected values that are Dummies (survive nearly every use)
DUMMY_CLASSES = frozenset({"object", "callable", "resource"})
#: a concrete class is injected instead of a Dummy only when the model gives
#: it at least this probability (or when no Dummy survives the uses)
CONFIDENCE = 0.35
#: classes below this probability are not considered at all
FLOOR = 0.02
#: a value that decides an if/assert: the candidates (besides object)
GUARD_FLOOR = 0.05
#: at most this many of the model's classes are probed per query
MAX_PROBED = 8
#: a survivor whose probe was risky (a use worked only if an unknown operand
#: is not a Dummy) loses this many expected lines in a guard's choice
RISK_PENALTY = 0.25


def choose(ranked, probe=None, confidence: float = CONFIDENCE, floor: float = FLOOR,
           max_probed: int = MAX_PROBED, guard_floor: float = GUARD_FLOOR) -> str:
    """The class to inject from the model's ``ranked`` [(class, p), ...].

    ``probe(cls) -> Probe`` (lexecutor_c.model.uses) says whether a value
    of the class survives the snippet's uses of it and which guards it
    decides.  The rule:

    1. candidates: the model's classes with p >= ``floor`` (at most
       ``max_probed``), in its order, then ``object``; without a probe, all
       survive;
    2. none survives: ``object`` (a Dummy, as naive injection);
    3. the value decides an ``if``/``assert``: among the survivors with p >=
       ``guard_floor`` (and ``object``), the one under which the most line
       markers are expected to run (``Uses.branch_score``: an entered block
       counts its header, a branch that raises or returns ends the count)
       -- the model's order among equals;
    4. otherwise the first survivor if it is a Dummy class or the model
       gives it at least ``confidence`` and its probe was not ``risky``
       (a use worked only if an unknown operand is not a Dummy); else
       ``object`` when a Dummy survives (it survives what the snippet does
       next, a doubtful concrete value may not), else the first survivor.
       In step 3 a risky survivor's score loses ``RISK_PENALTY``.

    A class that survives only because the runtime's use-site constraint
    replaces its value (``Probe.replaced``: an int called, a str iterated
    as pairs) is a survivor in step 3 (scored with the value the run gets)
    but ranks after the classes that survive as themselves, and in step 4
    counts only when none of those survives.
    """
    cands, seen = [], set()
    for cls, p in ranked:
        if (p >= floor or not cands) and cls not in seen and len(cands) < max_probed:
            cands.append((cls, p))
            seen.add(cls)
    if "object" not in seen:
        cands.append(("object", 0.0))
    memo: dict = {}

    def tried(cls):
        if cls not in memo:
            memo[cls] = probe(cls) if probe is not None else None
        return memo[cls]

    def survives(cls):
        r = tried(cls)
        return r is None or r.ok

    def kept(cls):            # survives as itself: no use-site constraint replaces it
        r = tried(cls)
        return survives(cls) and not (r is not None and r.replaced)

    # the first survivor, probing lazily (most queries end here); one that
    # the runtime would replace only when no class survives as itself
    first = next(((c, p) for c, p in cands if kept(c)), None) or \
        next(((c, p) for c, p in cands if survives(c)), None)
    if first is None:
        return "object"
    r = tried(first[0])
    if r is not None and r.decided:
        # the value decides if/assert tests: the plausible survivor that
        # keeps most of the snippet running; the model's order among equals
        best = None
        for cls, p in cands:
            if (p >= guard_floor or cls == "object") and survives(cls):
                rc = tried(cls)
                sc = rc.score if rc is not None else float("-inf")
                if rc is not None and rc.risky:
                    sc -= RISK_PENALTY
                # among equal scores a class that stays itself before one
                # the runtime replaces, then the model's order
                key = (sc, kept(cls))
                if best is None or key > best[0]:
                    best = (key, cls)
        if best is not None:
            return best[1]
    cls, p = first
    r = tried(cls)
    if cls in DUMMY_CLASSES or (p >= confidence and not (r is not None and r.risky)):
        return cls
    if survives("object"):
        return "object"
    return cls


class NeuralPredictor:
    """Callable predictor (docs/RUNTIME.md) backed by the shim.  Loads the
    shim and the model on the first query, not before.  ``for_run(source,
    sites)`` gives the predictor of one run, which also knows what the
    snippet does with each value (``uses``); the predictor itself sees
    only the query's context tokens."""

    def __init__(self, path: Optional[str] = None, k: int = 3,
                 confidence: float = CONFIDENCE):
        self.path = path
        self.k = k
        self.confidence = confidence
        self._model: Optional[NeuralModel] = None
        self._lock = threading.Lock()

    @property
    def model(self) -> NeuralModel:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = NeuralModel(self.path)
        return self._model

    def prepare(self) -> None:
        """Load the shim and the model now, and the use analysis (run() calls
        this before forking its sandbox children, which then share them)."""
        self.model
        from . import uses   # noqa: F401  (and the knowledge's constraint table)

    def ranked(self, query) -> List[Tuple[str, float]]:
        """The model's classes for a query, most probable first (all of them)."""
        coarse = query.abstraction == "coarse"
        return self.model.predict(query.name or "", query.kind, query.before or "",
                                  query.after or "", 22 if not coarse else 12, coarse)

    def __call__(self, query):
        if not query.name:              # e.g. calling an unnamed Dummy: nothing to go on
            return "object"
        ranked = fit_next_use(self.ranked(query), query.kind, query.after or "",
                              query.before or "")
        ranked = [r if isinstance(r, tuple) else (r, 1.0) for r in ranked]
        return choose(ranked, None, self.confidence)

    def for_run(self, source: str, sites) -> "RunPredictor":
        """The predictor of one run of ``source`` (instrumented into ``sites``)."""
        return RunPredictor(self, source, sites)

    def __repr__(self):
        return "neural"


class RunPredictor:
    """``NeuralPredictor`` for one run: the model ranks, the snippet's uses of
    the value (lexecutor_c.model.uses, built on the first query) filter, and
    :func:`choose` decides.  Answers are remembered per site and query."""

    def __init__(self, base: NeuralPredictor, source: str, sites):
        self.base = base
        self._source = source
        self._sites = list(sites or ())
        self._uses = None
        self._memo: Dict[tuple, str] = {}

    @property
    def uses(self):
        if self._uses is None:
            from .uses import Uses
            self._uses = Uses(self._source, self._sites)
        return self._uses

    def __call__(self, query):
        key = (query.iid, query.kind, query.name, query.abstraction)
        got = self._memo.get(key)
        if got is not None:
            return got
        uses = self.uses if query.iid else None
        if not query.name:
            got = "object"
        elif uses is None or not uses.known(query.iid):
            # no site to look at (a read inside library code, a snippet that
            # does not parse): only a Dummy is safe whatever comes next
            got = next((c for c, _ in self.base.ranked(query) if c in DUMMY_CLASSES),
                       "object")
        else:
            ranked = self.base.ranked(query)
            try:
                if ranked and ranked[0][0] == "callable" and ranked[0][1] >= 0.5 and \
                        uses.only_called(query.iid):
                    # a method read that is only ever called: the callable
                    # survives, and every other class either fails the call
                    # or is replaced by a callable (choose() would answer
                    # callable too, after probing each)
                    got = "callable"
                else:
                    got = choose(ranked, lambda c: uses.probe(c, query.iid),
                                 self.base.confidence)
            except Exception:        # a flaw of the use analysis must not end the run
                got = next((c for c, _ in ranked if c in DUMMY_CLASSES), "object")
        self._memo[key] = got
        if query.kind == "name" and query.name and self._uses is not None:
            self._uses.injected.setdefault(query.name, got)
        return got

    def __repr__(self):
        return "neural"


#: classes whose values survive being called / indexed / searched right away
_CALLABLE = {"callable", "object", "resource"}
_INDEXABLE = {"list_nonempty", "tuple_nonempty", "dict_nonempty", "str_nonempty",
              "list", "tuple", "dict", "str", "object", "resource"}
_CONTAINER = {"list_empty", "list_nonempty", "tuple_empty", "tuple_nonempty", "set_empty",
              "set_nonempty", "dict_empty", "dict_nonempty", "str_empty", "str_nonempty",
              "list", "tuple", "set", "dict", "str", "object", "resource"}


def _next_token(kind: str, after: str) -> str:
    """The first context token after the value: for a call's return value,
    the one after its balanced argument list."""
    tokens = after.split()
    if kind == "call":
        depth = 0
        for i, t in enumerate(tokens):
            depth += t in ("(", "[", "{")
            depth -= t in (")", "]", "}")
            if depth == 0:
                return tokens[i + 1] if i + 1 < len(tokens) else ""
        return ""
    return tokens[0] if tokens else ""


def fit_next_use(ranked, kind: str, after: str, before: str = ""):
    """Keep the ranked classes compatible with what the code does next with
    the value: called (`x(`) needs a callable, indexed (`x[`) a non-empty
    container, the right operand of `in` (a loop or a membership test) a
    container; nothing compatible in the top k: ``object`` (a Dummy, which
    survives all of these).  Read from the context tokens only."""
    nxt = _next_token(kind, after)
    prev = before.split()[-1:] if kind in ("name", "attribute") else []
    if nxt == "(":
        allowed = _CALLABLE
    elif nxt == "[":
        allowed = _INDEXABLE
    elif prev == ["in"]:
        allowed = _CONTAINER
    else:
        return list(ranked)
    names = [r[0] if isinstance(r, (tuple, list)) else r for r in ranked]
    kept = [r for r, n in zip(ranked, names) if n in allowed]
    return kept or ["object"]


_default: Optional[NeuralPredictor] = None


def runtime_predictor() -> NeuralPredictor:
    """What ``Runtime(predictor="neural")`` uses: one shared lazy predictor.
    NeuralUnavailable at once where the shim was never built."""
    global _default
    check_available()
    if _default is None:
        _default = NeuralPredictor()
    return _default
