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
* ``project_split``: whole projects held out; ``choose_heldout`` picks
  about a tenth of the projects by a seeded hash of their names.

``build`` writes a dataset directory (docs/MODEL.md, "The dataset"):
``all.jsonl.gz``, ``train.jsonl.gz`` and ``test.jsonl.gz`` (the
project-disjoint split), and ``dataset.json`` (format, counts, the held-out
projects); ``load_split`` reads it back.
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
    ``events`` (read), ``duplicates`` and ``capped`` counts, and per project
    (``per_project_events``, ``per_project_capped``)."""
    seen = set()
    ev_per: Dict[str, int] = {}
    cap_per: Dict[str, int] = {}
    per: Dict[tuple, int] = {}
    out: List[Example] = []
    n_events = dup = capped = 0
    for path in paths:
        proj = project_of(path)
        ev_per.setdefault(proj, 0)
        cap_per.setdefault(proj, 0)
        for ev in read_events(path):
            n_events += 1
            ev_per[proj] += 1
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
                    cap_per[proj] += 1
                    continue
                per[group] = per.get(group, 0) + 1
            out.append(Example(ev.name, ev.kind, ev.before, ev.after, ev.cls, proj))
    if stats is not None:
        stats.update(events=n_events, duplicates=dup, capped=capped,
                     per_project_events=ev_per, per_project_capped=cap_per)
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


def choose_heldout(projects: Iterable[str], fraction: float = 0.1, seed: int = 0) -> List[str]:
    """``round(fraction * n)`` projects (at least one when there are two or
    more), those with the smallest seeded hash of their name: the same
    projects and seed give the same choice, and adding a project moves at
    most one project in or out."""
    names = sorted(set(projects))
    if len(names) < 2 or fraction <= 0:
        return []
    k = max(1, min(len(names) - 1, round(fraction * len(names))))

    def key(n: str) -> bytes:
        return hashlib.blake2b(f"{seed}\x00{n}".encode(), digest_size=8).digest()
    return sorted(sorted(names, key=key)[:k])


FORMAT = "lexecutor_c.dataset"
FORMAT_VERSION = 1


def build(events: Sequence[str], outdir: str, heldout: Sequence[str], seed: int = 0,
          cap: Optional[int] = 300) -> Tuple[dict, List[Example]]:
    """Write the dataset directory ``outdir`` from events files (one per
    project, named ``<project>.jsonl.gz``): ``all``, ``train`` (projects not
    in ``heldout``) and ``test`` (``heldout``) ``.jsonl.gz``.  Returns the
    info (written by ``write_info``) and all examples."""
    os.makedirs(outdir, exist_ok=True)
    stats: dict = {}
    examples = examples_from_events(events, cap=cap, stats=stats)
    train, test = project_split(examples, heldout)
    for name, part in (("all", examples), ("train", train), ("test", test)):
        write_examples(os.path.join(outdir, f"{name}.jsonl.gz"), part)
    # files of an earlier format (random split) would be mistaken for this one's
    for old in ("proj_train", "proj_test"):
        try:
            os.remove(os.path.join(outdir, f"{old}.jsonl.gz"))
        except FileNotFoundError:
            pass
    per_project: Dict[str, dict] = {}
    for proj, n in stats["per_project_events"].items():
        per_project[proj] = {"events": n, "examples": 0,
                             "capped": stats["per_project_capped"][proj],
                             "split": "test" if proj in set(heldout) else "train"}
    per_kind: Dict[str, int] = {}
    for ex in examples:
        per_project[ex.project]["examples"] += 1
        per_kind[ex.kind] = per_kind.get(ex.kind, 0) + 1
    info = {"format": FORMAT, "version": FORMAT_VERSION, "seed": seed, "cap": cap,
            "events": stats["events"], "duplicates": stats["duplicates"],
            "capped": stats["capped"], "examples": len(examples), "train": len(train),
            "test": len(test), "names": len({ex.name for ex in examples}),
            "projects": len(per_project), "heldout_projects": sorted(heldout),
            "per_kind": per_kind, "per_project": per_project}
    return info, examples


def write_info(outdir: str, info: dict) -> None:
    with open(os.path.join(outdir, "dataset.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)


def load_split(outdir: str) -> Tuple[List[Example], List[Example], dict]:
    """``(train, test, info)`` of a dataset directory written by ``build``."""
    with open(os.path.join(outdir, "dataset.json")) as f:
        info = json.load(f)
    if info.get("format") != FORMAT or info.get("version") != FORMAT_VERSION:
        raise ValueError(f"{outdir}: not a {FORMAT} version {FORMAT_VERSION} dataset")
    return (read_examples(os.path.join(outdir, "train.jsonl.gz")),
            read_examples(os.path.join(outdir, "test.jsonl.gz")), info)


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
