"""The knowledge index: where names come from.

Loaded lazily from the shipped ``data/index.zip`` (see build.py for how
it is made and extract.py for the entry format), optionally extended with
what the running environment has installed (local.py).  Queries:

* ``lookup("collections.deque")`` / ``entry("collections", "deque")``: the
  entry, re-exports followed;
* ``providers("deque")``: modules that define or re-export a name, ranked;
* ``alias_modules("np")``: modules imported under an alias, ranked by how
  often the corpus does it;
* ``classes_with({"popleft", "extend"})``: classes whose methods and
  attributes include all of these, ranked;
* ``is_module("json")``, ``module_names("json")``.
"""
from __future__ import annotations

import gzip
import json
import os
import zipfile
from collections import defaultdict
from typing import Iterable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED = os.path.join(HERE, "data", "index.zip")

#: modules a snippet most plausibly means, whatever the corpus counts say
_PREFERRED_TOPS = {"builtins": 50, "collections": 30, "os": 20, "pathlib": 20, "re": 15,
                   "json": 15, "datetime": 15, "itertools": 12, "functools": 12,
                   "math": 12, "random": 10, "time": 10, "typing": 8, "numpy": 10,
                   "matplotlib": 6, "PIL": 6, "scipy": 4, "sys": 10, "io": 8,
                   "decimal": 6, "fractions": 6, "string": 6, "copy": 6}


def load_file(path: str) -> dict:
    """The index dict of a file: the shipped zip (format 3: modules left to
    load per top-level package, ``_archive`` names the file), or a
    ``.json``/``.json.gz`` of plain dicts (build.assemble's shape)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            d = json.loads(z.read("index.json"))
        d["modules"] = dict.fromkeys(d.pop("module_list", ()))
        d["_archive"] = path
        return d
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    d = json.loads(data)
    if not isinstance(d, dict) or "modules" not in d:
        raise ValueError(f"{path}: not a knowledge index")
    return d


class KnowledgeIndex:
    """Queries over one or more index dicts (later ones override modules of
    earlier ones)."""

    def __init__(self, data: Optional[dict] = None):
        self.modules: dict = {}
        self.aliases: dict = {}
        self.from_imports: dict = {}
        self.module_imports: dict = {}
        self.meta: dict = {}
        self._providers: Optional[dict] = None
        self._by_method: Optional[dict] = None
        self._tops: Optional[set] = None
        self._children: Optional[dict] = None
        self._class_cache: dict = {}
        self._plain: list = []          # modules added as dicts: reverse maps computed
        self._archive_of: dict = {}     # top-level package -> zip holding its modules
        self._tops_project: dict = {}   # top-level package -> project (shipped index)
        self._zips: dict = {}
        self._local_rev: list = []      # reverse maps local.py computed with its scan
        self._rev_done: set = set()     # modules those maps cover
        self._rev_texts: list = []
        self._decoded: dict = {}
        self._blobs: list = []          # (provides, members) text blobs of shipped files
        if data:
            self.add(data)

    def add(self, data: dict, override: bool = True) -> None:
        """Merge an index dict (shipped format 2: modules as JSON strings and
        reverse-map blobs; or plain dicts, as build.assemble and local.py
        make them)."""
        archive = data.get("_archive")
        if "reverse" in data:
            self._local_rev.append(data["reverse"])
            self._rev_done.update(data.get("modules", {}))
        for top, project in data.get("tops", {}).items():
            if override or top not in self._tops_project:
                self._tops_project[top] = project
        for m, v in data.get("modules", {}).items():
            if override or m not in self.modules:
                self.modules[m] = v
                if v is None:
                    self._archive_of[m.split(".")[0]] = archive
                else:
                    self._plain.append(m)
        if archive is not None:
            self._blobs.append((archive, list(data.get("modules", {}))))
        for key in ("aliases", "from_imports"):
            mine = getattr(self, key)
            for name, counts in data.get(key, {}).items():
                cur = mine.setdefault(name, {})
                for mod, c in counts.items():
                    cur[mod] = cur.get(mod, 0) + c
        for mod, c in data.get("module_imports", {}).items():
            self.module_imports[mod] = self.module_imports.get(mod, 0) + c
        if not self.meta:
            self.meta = dict(data.get("meta", {}))
        self._providers = self._by_method = self._tops = self._children = None
        self._class_cache: dict = {}

    # ------------------------------------------------------------ basic lookups
    def is_module(self, name: str) -> bool:
        return name in self.modules

    def top_level_modules(self) -> set:
        if self._tops is None:
            self._tops = {m.split(".")[0] for m in self.modules}
        return self._tops

    def submodules(self, module: str) -> set:
        """Last components of the index's direct submodules of ``module``."""
        if self._children is None:
            ch = defaultdict(set)
            for m in self.modules:
                if "." in m:
                    parent, last = m.rsplit(".", 1)
                    ch[parent].add(last)
            self._children = ch
        return set(self._children.get(module, ()))

    def _m(self, module: str) -> Optional[dict]:
        """A module's record; a shipped module's package is read from the
        archive on first use."""
        v = self.modules.get(module)
        if v is None and module in self.modules:
            top = module.split(".")[0]
            archive = self._archive_of.pop(top, None)
            if archive is not None:
                try:
                    group = json.loads(self._zip(archive).read(f"m/{top}.json"))
                except (OSError, KeyError, ValueError, zipfile.BadZipFile):
                    group = {}
                for m, rec in group.items():
                    if self.modules.get(m, 0) is None:
                        self.modules[m] = rec
            v = self.modules.get(module)
        return v

    def module_names(self, module: str) -> dict:
        m = self._m(module)
        return dict(m["n"]) if m else {}

    def project_of(self, module: str) -> Optional[str]:
        top = module.split(".")[0]
        if top in self._tops_project and module in self.modules:
            return self._tops_project[top]
        m = self._m(module)
        return m.get("p") if m else None

    def entry(self, module: str, name: str, _depth: int = 0) -> Optional[tuple]:
        """(defining module, name, entry) for ``module.name``, re-exports
        followed; a submodule not bound in its package is ``["m", module]``."""
        if _depth > 10:
            return None
        m = self._m(module)
        e = m["n"].get(name) if m else None
        if e is None:
            sub = f"{module}.{name}"
            if sub in self.modules:
                return module, name, ["m", sub]
            return None
        if e[0] == "r":
            found = self.entry(e[1], e[2], _depth + 1)
            if found is None and f"{e[1]}.{e[2]}" in self.modules:
                return e[1], e[2], ["m", f"{e[1]}.{e[2]}"]
            return found
        return module, name, e

    def lookup(self, qualname: str) -> Optional[tuple]:
        """``entry()`` for a dotted name: 'collections.deque',
        'os.path.join', 'numpy.linalg.norm', 'collections.deque.popleft'
        (a method: ``["f", lo, hi]`` from the class)."""
        if qualname in self.modules:
            return qualname, None, ["m", qualname]
        parts = qualname.split(".")
        for i in range(len(parts) - 1, 0, -1):
            mod = ".".join(parts[:i])
            if mod not in self.modules:
                continue
            found = self.entry(mod, parts[i])
            rest = parts[i + 1:]
            while found is not None and rest:
                kind = found[2][0]
                if kind == "m":
                    found = self.entry(found[2][1], rest[0])
                elif kind == "c":
                    meth = found[2][1].get(rest[0])
                    if meth is None:
                        return None if rest[0] not in found[2][2] else \
                            (found[0], f"{found[1]}.{rest[0]}", ["v", "object"])
                    found = (found[0], f"{found[1]}.{rest[0]}", ["f"] + list(meth))
                else:
                    return None
                rest = rest[1:]
            return found
        return None

    def class_info(self, qualname: str) -> Optional[dict]:
        """{'methods': {name: [lo, hi]}, 'attrs': [...], 'bases': [...],
        'init': [lo, hi] or None, 'module', 'name'} with inherited methods of
        bases the index knows (one level of resolution per base, depth 5)."""
        if qualname in self._class_cache:
            return self._class_cache[qualname]
        info = self._class_info(qualname)
        self._class_cache[qualname] = info
        return info

    def _class_info(self, qualname: str) -> Optional[dict]:
        found = self.lookup(qualname)
        if found is None or found[2][0] != "c":
            return None
        mod, name, e = found
        methods, attrs = dict(e[1]), set(e[2])
        init = e[4]
        stack, seen = [(mod, b) for b in e[3]], set()
        while stack and len(seen) < 12:
            bmod, b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            be = self._resolve_base(bmod, b)
            if be is None:
                continue
            for k, v in be[2][1].items():
                methods.setdefault(k, v)
            attrs.update(be[2][2])
            if init is None:
                init = be[2][4]
            stack.extend((be[0], x) for x in be[2][3])
        return {"module": mod, "name": name, "methods": methods, "attrs": sorted(attrs),
                "bases": list(e[3]), "init": init}

    def _resolve_base(self, mod: str, base: str) -> Optional[tuple]:
        cands = [f"{mod}.{base}", base, f"builtins.{base}", f"typing.{base}",
                 f"collections.abc.{base}"]
        for c in cands:
            f = self.lookup(c)
            if f is not None and f[2][0] == "c":
                return f
        return None

    # ------------------------------------------------------------ reverse maps
    def _popularity(self, module: str) -> float:
        top = module.split(".")[0]
        score = float(self.module_imports.get(module, 0)) + 0.2 * self.module_imports.get(top, 0)
        score += 40 * _PREFERRED_TOPS.get(top, 0)
        if (self.project_of(module) or "") == "stdlib":
            score += 100
        score -= 15 * module.count(".")
        if any(p.startswith("_") for p in module.split(".")):
            score -= 500
        return score

    def providers(self, name: str, kinds: Optional[Iterable[str]] = None,
                  limit: int = 12, where=None) -> list:
        """Modules binding ``name`` at module level, best first:
        [(module, kind)], kind 'f', 'c', 'v' or 'm'.  Ranked by how often
        the corpus imports the name from the module, then by how common the
        module is (the standard library first among equals).  ``where(module)``
        filters before an entry is resolved."""
        if self._providers is None:
            self._build_reverse()
        counts = self.from_imports.get(name, {})
        ranked = sorted(((1000 * counts.get(mod, 0) + self._popularity(mod), mod)
                         for mod in self._decode("provides", name)),
                        key=lambda t: (-t[0], t[1]))
        out = []
        for _, mod in ranked:               # entries resolved for the best only
            if where is not None and not where(mod):
                continue                    # (reading its package costs a parse)
            found = self.entry(mod, name)
            if found is None:
                continue
            kind = found[2][0]
            if kinds is not None and kind not in kinds:
                continue
            out.append((mod, kind))
            if len(out) >= limit:
                break
        return out

    def _build_reverse(self) -> None:
        """name -> modules and member -> classes.  The shipped blobs stay
        text (``\nkey<TAB>ids\n`` lines, found with str.find per key: no
        parse at load); modules added as dicts contribute their own maps
        (local.py stores them with its cache)."""
        from .build import reverse_maps
        self._rev_texts = []
        for archive, mods in self._blobs:
            try:
                z = self._zip(archive)
                rev = json.loads(z.read("reverse.json"))
            except (OSError, KeyError, ValueError, zipfile.BadZipFile):
                continue
            self._rev_texts.append(("\n" + rev["provides"] + "\n", mods,
                                    "\n" + rev["members"] + "\n", rev["class_list"]))
        prov: dict = {}
        by: dict = {}
        for rev in self._local_rev:
            for table, extra in ((prov, rev.get("provides", {})), (by, rev.get("members", {}))):
                for k, v in extra.items():
                    table.setdefault(k, []).extend(v)
        pending = [m for m in dict.fromkeys(self._plain) if m not in self._rev_done
                   and isinstance(self.modules.get(m), dict)]
        if pending:
            p2, b2 = reverse_maps({m: self.modules[m] for m in pending}, self.entry)
            for table, extra in ((prov, p2), (by, b2)):
                for k, v in extra.items():
                    table.setdefault(k, []).extend(sorted(v))
        self._providers, self._by_method = prov, by
        self._decoded = {}

    def _decode(self, which: str, key: str) -> list:
        """The values of a reverse map ('provides' or 'members') for one key."""
        ck = (which, key)
        got = self._decoded.get(ck)
        if got is not None:
            return got
        out: list = []
        needle = "\n" + key + "\t"
        for ptext, mods, mtext, classes in self._rev_texts:
            text, names = (ptext, mods) if which == "provides" else (mtext, classes)
            i = text.find(needle)
            if i >= 0:
                j = text.index("\n", i + 1)
                out.extend(names[int(x, 36)] for x in text[i + len(needle):j].split())
        extra = (self._providers if which == "provides" else self._by_method).get(key)
        if extra:
            out.extend(extra)
        out = list(dict.fromkeys(out))
        self._decoded[ck] = out
        return out

    def _zip(self, archive: str) -> zipfile.ZipFile:
        """The archive, opened once per process (a forked child opens its own)."""
        key = (archive, os.getpid())
        z = self._zips.get(key)
        if z is None:
            z = self._zips[key] = zipfile.ZipFile(archive)
        return z

    def alias_modules(self, alias: str) -> list:
        """Modules imported as ``alias`` in the corpus (``import numpy as
        np``), most frequent first: [(module, count)]."""
        c = self.aliases.get(alias, {})
        return sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))

    def classes_with(self, members: Iterable[str], limit: int = 10) -> list:
        """Classes whose methods (own and inherited) and attributes include
        every name in ``members``, best first: [(qualname, class_info)].
        Ranked by the corpus' use of the class name and module, then by
        specificity (fewer members)."""
        want = {m for m in members if m}
        if not want:
            return []
        if self._by_method is None:
            self._build_reverse()
        # a rare member narrows the search; inherited members are checked below
        pools = sorted((set(self._decode("members", w)) for w in want), key=len)
        pool = set(pools[0]) if pools and pools[0] else set()
        if not pool:
            return []
        if len(pool) > 3000:
            return []                  # no member is distinctive enough
        # classes defining every member themselves first, then by the cheap
        # part of the score; class_info (which reads packages) for 40 only
        direct = set.intersection(*pools)

        def cheap(q):
            mod, name = q.rsplit(".", 1)
            return (q not in direct, -(1000 * self.from_imports.get(name, {}).get(mod, 0)
                                       + self._popularity(mod)), q)
        scored = []
        for q in sorted(pool, key=cheap)[:40]:
            info = self.class_info(q)
            if info is None:
                continue
            have = set(info["methods"]) | set(info["attrs"])
            if not want <= have:
                continue
            mod, name = q.rsplit(".", 1)
            uses = self.from_imports.get(name, {}).get(mod, 0)
            score = 1000 * uses + self._popularity(mod) - 0.5 * len(have)
            scored.append((score, q, info))
        scored.sort(key=lambda t: (-t[0], t[1]))
        out, seen_defs = [], set()
        for _, q, info in scored:          # one spelling per class: the best
            key = (info["module"], info["name"])
            if key not in seen_defs:
                seen_defs.add(key)
                out.append((q, info))
        return out[:limit]


def load(path: Optional[str] = None) -> KnowledgeIndex:
    """A KnowledgeIndex of one file (default: the shipped one; an empty
    index when it is missing)."""
    path = path or SHIPPED
    if not os.path.exists(path):
        return KnowledgeIndex()
    return KnowledgeIndex(load_file(path))
