"""Thin Python helpers around the C runtime (``lexecutor_c._core.Runtime``).

* ``Site``: a ready-made site record for ``Runtime(sites=...)``.
* Predictor registry: ``register_predictor`` / ``resolve_predictor`` /
  ``new_runtime`` let callers name their own callable predictors.
* Recording files: ``write_events`` / ``read_events`` (gzip'd JSON lines, see
  ``FORMAT`` below and docs/RUNTIME.md) and ``train_frequency`` which turns
  recorded events into the table ``Runtime(predictor="frequency",
  frequency_table=...)`` takes.
"""
from __future__ import annotations

import gzip
import json
import os
from collections import Counter, defaultdict
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from lexecutor_c import _core

__all__ = [
    "Site", "Event", "EVENT_FIELDS", "FORMAT", "FORMAT_VERSION",
    "register_predictor", "unregister_predictor", "resolve_predictor", "new_runtime",
    "write_events", "read_events", "train_frequency",
    "FREQUENCY_TABLE", "load_frequency_table", "save_frequency_table", "coarse_class",
]

BUILTIN_PREDICTORS = ("as-is", "naive", "random", "frequency", "neural")


class Site(NamedTuple):
    """One instrumented site, as ``Runtime(sites=...)`` expects it."""
    iid: int
    kind: str            # "name", "attribute", "call", "line" or "import"
    name: str = ""
    line: Optional[int] = None
    before: str = ""
    after: str = ""
    use: Optional[tuple] = None   # IidInfo.use: how the value is used (docs/LOADERS.md)


EVENT_FIELDS = ("name", "cls", "kind", "file", "line", "iid", "before", "after")


class Event(NamedTuple):
    """A value-use event as recorded by ``Runtime(record=True)``."""
    name: str
    cls: str
    kind: str
    file: str
    line: Optional[int]
    iid: int
    before: str
    after: str


# ---- predictor registry --------------------------------------------------

_registry: Dict[str, Callable] = {}


def register_predictor(name: str, predictor: Callable) -> None:
    """Register ``predictor(query) -> str | [str] | [(str, score)]`` under name."""
    if not isinstance(name, str) or not name:
        raise TypeError("predictor name must be a non-empty str")
    if name in BUILTIN_PREDICTORS:
        raise ValueError(f"{name!r} is a built-in predictor")
    if not callable(predictor):
        raise TypeError("predictor must be callable")
    _registry[name] = predictor


def unregister_predictor(name: str) -> None:
    _registry.pop(name, None)


def resolve_predictor(spec):
    """Built-in names and callables pass through; registered names become
    their callable; anything else raises ValueError."""
    if callable(spec) or spec in BUILTIN_PREDICTORS:
        return spec
    if isinstance(spec, str) and spec in _registry:
        return _registry[spec]
    raise ValueError(f"unknown predictor {spec!r}")


def new_runtime(sites=None, predictor="naive", **kwargs) -> "_core.Runtime":
    """``_core.Runtime`` with ``predictor`` resolved through the registry."""
    return _core.Runtime(sites=sites, predictor=resolve_predictor(predictor), **kwargs)


# ---- recording files -----------------------------------------------------

FORMAT = "lexecutor_c.events"
FORMAT_VERSION = 1


def _check_event(row, where: str) -> Event:
    if not isinstance(row, (list, tuple)) or len(row) != len(EVENT_FIELDS):
        raise ValueError(f"{where}: an event has {len(EVENT_FIELDS)} fields {EVENT_FIELDS}")
    ev = Event(*row)
    if not (isinstance(ev.name, str) and isinstance(ev.cls, str) and isinstance(ev.kind, str)
            and isinstance(ev.file, str) and isinstance(ev.before, str)
            and isinstance(ev.after, str)):
        raise ValueError(f"{where}: name, cls, kind, file, before, after must be str")
    if not isinstance(ev.iid, int) or not (ev.line is None or isinstance(ev.line, int)):
        raise ValueError(f"{where}: iid must be an int and line an int or null")
    return ev


def write_events(path, events: Iterable[Sequence]) -> int:
    """Write events to ``path`` (gzip'd JSON lines); returns how many.

    Line 1 is the header ``{"format": FORMAT, "version": FORMAT_VERSION,
    "fields": EVENT_FIELDS}``; every further line is one event as a JSON
    array in ``EVENT_FIELDS`` order.
    """
    n = 0
    with gzip.open(path, "wt", encoding="utf-8", newline="\n") as f:
        header = {"format": FORMAT, "version": FORMAT_VERSION, "fields": list(EVENT_FIELDS)}
        f.write(json.dumps(header) + "\n")
        for row in events:
            ev = _check_event(row, f"event {n}")
            f.write(json.dumps(list(ev), ensure_ascii=False) + "\n")
            n += 1
    return n


def read_events(path) -> List[Event]:
    """Read a file written by ``write_events``; raises ValueError on a file
    of another format or version."""
    out: List[Event] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        first = f.readline()
        try:
            header = json.loads(first)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not an events file (bad header)") from e
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ValueError(f"{path}: not an events file")
        if header.get("version") != FORMAT_VERSION:
            raise ValueError(f"{path}: events format version {header.get('version')!r}, "
                             f"this reader knows {FORMAT_VERSION}")
        for lineno, line in enumerate(f, start=2):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{lineno}: bad JSON") from e
            out.append(_check_event(row, f"{path}:{lineno}"))
    return out


def train_frequency(events: Iterable[Sequence], kinds: Optional[Iterable[str]] = None
                    ) -> Dict[str, Dict[str, int]]:
    """Count classes per name: ``{name: {cls: count}}``, the table
    ``Runtime(predictor="frequency", frequency_table=...)`` takes.  With
    ``kinds`` only events of those kinds ("name", "attribute", "call") count."""
    wanted = None if kinds is None else set(kinds)
    counts: Dict[str, Counter] = defaultdict(Counter)
    for row in events:
        name, cls, kind = row[0], row[1], row[2]
        if wanted is not None and kind not in wanted:
            continue
        counts[name][cls] += 1
    return {name: dict(c) for name, c in counts.items()}


# ---- frequency tables ----------------------------------------------------

FREQUENCY_FORMAT = "lexecutor_c.frequency"
FREQUENCY_TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "model", "frequency.json.gz")


def coarse_class(cls: str) -> str:
    """The coarse class of a fine class name (coarse names map to themselves)."""
    if cls in ("True", "False"):
        return "bool"
    head = cls.split("_", 1)[0]
    if head in _core.COARSE_CLASSES:
        return head
    raise ValueError(f"unknown class {cls!r}")


def save_frequency_table(path, table: Dict[str, Dict[str, int]], meta: Optional[dict] = None
                         ) -> None:
    """Write ``{name: {cls: count}}`` as gzip'd JSON ``{"format", "version",
    "meta", "counts"}`` (keys sorted, so equal tables give equal files)."""
    fine = set(_core.FINE_CLASSES)
    for name, row in table.items():
        if not isinstance(name, str) or not isinstance(row, dict):
            raise TypeError("table must map str names to {class: count} dicts")
        for cls, n in row.items():
            if cls not in fine:
                raise ValueError(f"unknown class {cls!r} for name {name!r}")
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise TypeError(f"count for {name!r}/{cls!r} must be an int >= 0")
    doc = {"format": FREQUENCY_FORMAT, "version": 1, "meta": meta or {}, "counts": table}
    data = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    with open(path, "wb") as f:          # mtime 0: reproducible bytes
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
            g.write(data.encode("utf-8"))


def load_frequency_table(path=None, *, with_meta: bool = False):
    """The frequency table ``{name: {cls: count}}`` for
    ``Runtime(predictor="frequency", frequency_table=...)``.  ``path``
    defaults to the table shipped in the package
    (``lexecutor_c/model/frequency.json.gz``, see docs/MODEL.md).  With
    ``with_meta`` returns ``(table, meta)``.  Raises FileNotFoundError, or
    ValueError for a file that is not a frequency table."""
    path = FREQUENCY_TABLE if path is None else path
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise ValueError(f"{path}: not a frequency table ({e})") from e
    if not isinstance(doc, dict) or doc.get("format") != FREQUENCY_FORMAT:
        raise ValueError(f"{path}: not a frequency table")
    if doc.get("version") != 1:
        raise ValueError(f"{path}: frequency table version {doc.get('version')!r}, "
                         "this reader knows 1")
    counts = doc.get("counts")
    fine = set(_core.FINE_CLASSES)
    if not isinstance(counts, dict) or not all(
            isinstance(k, str) and isinstance(v, dict) and
            all(c in fine and isinstance(n, int) for c, n in v.items())
            for k, v in counts.items()):
        raise ValueError(f"{path}: malformed counts")
    return (counts, doc.get("meta") or {}) if with_meta else counts
