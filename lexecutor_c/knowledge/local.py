"""Extend the knowledge index from what this environment has installed.

Each site-packages folder on ``sys.path`` is scanned statically (``ast``,
nothing imported) for the top-level packages and modules the shipped index
does not describe, at most ``PER_PACKAGE`` module files each (shallow ones
first) and ``PER_DIR`` in all.  The result is cached on disk per folder
(``$LEXECUTOR_KNOWLEDGE_CACHE_DIR`` or ``~/.cache/lexecutor_c/knowledge-local``),
keyed by the folder's path, its modification time (installing or removing a
package changes it), the Python version and this module's format, so the
scan runs once per environment and costs a file read afterwards.  Any
project may be described here, reserved ones included: this is the user's
machine, not the shipped index.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import site
import sys
from typing import Iterable, Optional

from .extract import extract_module, iter_module_files

FORMAT = 2
PER_PACKAGE = 40
PER_DIR = 2500


def cache_dir() -> str:
    return os.environ.get("LEXECUTOR_KNOWLEDGE_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "lexecutor_c", "knowledge-local")


def site_dirs() -> list:
    """site-packages folders of this interpreter, in sys.path order."""
    out = []
    cands = list(sys.path)
    try:
        cands += site.getsitepackages()
    except AttributeError:
        pass
    for p in cands:
        if p and os.path.basename(p.rstrip(os.sep)) in ("site-packages", "dist-packages") \
                and os.path.isdir(p) and p not in out:
            out.append(p)
    return out


def _top_entries(d: str) -> list:
    """(top-level module name, path) of the packages and modules in a site dir."""
    out = []
    try:
        names = sorted(os.listdir(d))
    except OSError:
        return out
    for n in names:
        p = os.path.join(d, n)
        if n.endswith((".dist-info", ".egg-info", ".pth", ".data")) or n.startswith("_") \
                or n == "__pycache__":
            continue
        if os.path.isdir(p):
            if n.isidentifier() and (os.path.exists(os.path.join(p, "__init__.py"))
                                     or os.path.exists(os.path.join(p, "__init__.pyi"))):
                out.append((n, p))
        elif n.endswith((".py", ".pyi")) and n.rsplit(".", 1)[0].isidentifier():
            out.append((n.rsplit(".", 1)[0], p))
    return out


def scan_dir(d: str, skip: Iterable[str] = (), per_package: int = PER_PACKAGE,
             per_dir: int = PER_DIR) -> dict:
    """An index dict (build.assemble's shape) of the site dir ``d``, without
    the top-level modules in ``skip``."""
    from .build import assemble           # only when scanning
    skip = set(skip)
    facts = []
    total = 0
    for top, path in _top_entries(d):
        if top in skip or total >= per_dir:
            continue
        if os.path.isdir(path):
            files = _package_files(d, path, per_package)
        else:
            files = [(path, top, False, path.endswith(".pyi"))]
        mods = []
        for p, mod, is_pkg, stub in files:
            try:
                if os.path.getsize(p) > 600_000:
                    continue
                with open(p, "rb") as f:
                    src = f.read().decode("utf-8", "replace")
                mods.append((extract_module(src, mod, is_pkg, stub), stub))
            except (OSError, SyntaxError, ValueError, RecursionError):
                continue
        total += len(mods)
        facts.append((top, mods))
    idx = assemble(facts, min_count=1)
    idx["meta"] = {"site_dir": d, "modules": len(idx["modules"])}
    # the reverse maps, computed once here and cached with the scan
    from .build import reverse_maps
    from .index import KnowledgeIndex
    provides, members = reverse_maps(idx["modules"], KnowledgeIndex(idx).entry)
    idx["reverse"] = {"provides": {k: sorted(v) for k, v in provides.items()},
                      "members": {k: sorted(v) for k, v in members.items()}}
    return idx


def _package_files(root: str, pkg: str, limit: int) -> list:
    """Module files of one package under ``root``, shallowest first."""
    files = iter_module_files(root, max_files=20 * limit, start=pkg, max_depth=3)
    files.sort(key=lambda t: (t[0].count(os.sep), t[1]))
    return files[:limit]


def _cache_path(d: str) -> str:
    h = hashlib.sha256(f"{os.path.realpath(d)}|{sys.version_info[:2]}".encode()).hexdigest()
    return os.path.join(cache_dir(), h[:20] + ".json.gz")


def _key(d: str, skip: Iterable[str]) -> str:
    st = os.stat(d)
    sk = hashlib.sha256(",".join(sorted(skip)).encode()).hexdigest()[:12]
    return f"{FORMAT}|{st.st_mtime_ns}|{sys.version_info[:2]}|{sk}"


def local_index(skip: Iterable[str] = (), dirs: Optional[list] = None,
                refresh: bool = False) -> list:
    """Index dicts of this environment's site dirs (cached on disk; a folder
    whose modification time changed is scanned again)."""
    skip = sorted(set(skip))
    out = []
    for d in (site_dirs() if dirs is None else dirs):
        try:
            key = _key(d, skip)
        except OSError:
            continue
        cp = _cache_path(d)
        data = None
        if not refresh:
            try:
                with open(cp, "rb") as f:
                    cached = json.loads(gzip.decompress(f.read()))
                if cached.get("key") == key:
                    data = cached["index"]
            except (OSError, ValueError, KeyError, EOFError):
                data = None
        if data is None:
            data = scan_dir(d, skip)
            try:
                os.makedirs(os.path.dirname(cp), exist_ok=True)
                tmp = f"{cp}.{os.getpid()}.tmp"
                with open(tmp, "wb") as f:
                    f.write(gzip.compress(json.dumps({"key": key, "index": data},
                                                     separators=(",", ":")).encode(), 5))
                os.replace(tmp, cp)
            except OSError:
                pass                    # a read-only home costs only the cache
        out.append(data)
    return out
