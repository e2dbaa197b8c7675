"""From recorded events to a deduplicated dataset of value-use examples.

An example is ``(name, kind, before, after, cls, project)``: the use of a
value named ``name`` (``kind`` "name", "attribute" or "call"), the source
tokens around the site, and the fine class of the value seen there.  The
dataset keeps one example per distinct ``(name, kind, before, after, cls)``
(the same site executed many times, or the same code in two files, counts
once), as the paper does.

Splits are pure functions of the examples and a seed:

* ``random_split``: 95/5 by a hash of the example (not of its position, so
  adding a project does not reshuffle the others' examples);
* ``project_split``: whole projects held out.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from lexecutor_c.engine.runtime import read_events

KINDS = ("name", "attribute", "call")


class Example(NamedTuple):
    name: str
    kind: str
    before: str
    after: str
    cls: str
    project: str


def project_of(path: str) -> str:
    """The project an events file belongs to: its file name up to the first dot."""
    return os.path.basename(path).split(".")[0]


def examples_from_events(paths: Sequence[str], cap: Optional[int] = 300,
                         stats: Optional[dict] = None) -> List[Example]:
    """Deduplicated examples of the events files, in a stable order (files in
    the given order, events in file order; the first occurrence wins).

    ``cap``: at most this many examples per (project, name, kind, class), so
    that generated test files (thousands of near-identical test methods)
    do not swamp the rest; ``None`` keeps all.  ``stats`` (a dict) receives
    ``events`` (read), ``duplicates`` and ``capped`` counts."""
    seen = set()
    per: Dict[tuple, int] = {}
    out: List[Example] = []
    n_events = dup = capped = 0
    for path in paths:
        proj = project_of(path)
        for ev in read_events(path):
            n_events += 1
            if ev.kind not in KINDS or not ev.name:
                continue
            key = (ev.name, ev.kind, ev.before, ev.after, ev.cls)
            if key in seen:
                dup += 1
                continue
            seen.add(key)
            group = (proj, ev.name, ev.kind, ev.cls)
            if cap is not None:
                if per.get(group, 0) >= cap:
                    capped += 1
                    continue
                per[group] = per.get(group, 0) + 1
            out.append(Example(ev.name, ev.kind, ev.before, ev.after, ev.cls, proj))
    if stats is not None:
        stats.update(events=n_events, duplicates=dup, capped=capped)
    return out


def _bucket(ex: Example, seed: int) -> float:
    h = hashlib.blake2b(f"{seed}\x00{ex.name}\x00{ex.kind}\x00{ex.before}\x00{ex.after}"
                        f"\x00{ex.cls}".encode("utf-8", "replace"), digest_size=8).digest()
    return int.from_bytes(h, "little") / 2.0 ** 64


def random_split(examples: Iterable[Example], test_fraction: float = 0.05, seed: int = 0
                 ) -> Tuple[List[Example], List[Example]]:
    train, test = [], []
    for ex in examples:
        (test if _bucket(ex, seed) < test_fraction else train).append(ex)
    return train, test


def project_split(examples: Iterable[Example], test_projects: Sequence[str]
                  ) -> Tuple[List[Example], List[Example]]:
    held = set(test_projects)
    train, test = [], []
    for ex in examples:
        (test if ex.project in held else train).append(ex)
    return train, test


def write_examples(path: str, examples: Iterable[Example]) -> int:
    n = 0
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for ex in examples:
            f.write(json.dumps(ex._asdict(), ensure_ascii=False) + "\n")
            n += 1
    return n


def read_examples(path: str) -> List[Example]:
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                out.append(Example(**{k: d[k] for k in Example._fields}))
    return out


def class_counts(examples: Iterable[Example]) -> Dict[str, Dict[str, int]]:
    """``{name: {cls: count}}`` over examples: the frequency table."""
    table: Dict[str, Dict[str, int]] = {}
    for ex in examples:
        row = table.setdefault(ex.name, {})
        row[ex.cls] = row.get(ex.cls, 0) + 1
    return table
