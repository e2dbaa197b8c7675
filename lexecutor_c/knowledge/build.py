"""Rebuild the shipped knowledge index.

    python -m lexecutor_c.knowledge.build [--projects FILE] [--out FILE]
                                          [--cache DIR] [--stdlib/--no-stdlib]

Downloads every listed PyPI project with ``pip download --no-deps`` (a
wheel where there is one, else the sdist) into a cache folder outside git
(``--cache``, default ``$LEXECUTOR_KNOWLEDGE_CACHE`` or
``~/.cache/lexecutor_c/knowledge-build``), reads the archives in place (no
unpacking, nothing imported), and writes the index as a zip of JSON files (default
``lexecutor_c/knowledge/data/index.zip``).  The standard library comes
from typeshed's stdlib stubs (in the ``jedi`` wheel, downloaded the same
way) and from the running interpreter's own ``.py`` sources for modules the
stubs lack.

Projects reserved for evaluation and the dev-set projects are refused
(EXCLUDED): a projects file naming one is an error (exit status 2), and a
top-level package of theirs found inside another archive is skipped.
``--projects`` may also name local folders or archives (``path:DIR``) of
packages to read as they are (used by the tests).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile
from collections import Counter, defaultdict
from typing import Iterable, Optional

from .extract import extract_module, module_name

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "data", "index.zip")
DEFAULT_PROJECTS = os.path.join(HERE, "projects.txt")
FORMAT = 3

#: never build the shipped index from these (issue 14 and the briefing):
#: evaluation projects, then the dev-set projects
RESERVED = ("black", "flask", "pandas", "scrapy", "tensorflow", "requests", "jinja2", "rich",
            "sqlparse", "networkx", "marshmallow", "itsdangerous")
DEVSET = ("tqdm", "pyyaml", "jsonschema", "arrow", "pygments", "werkzeug", "tornado",
          "urllib3", "babel", "openpyxl", "beautifulsoup4", "isort", "peewee", "bottle")
EXCLUDED = frozenset(RESERVED + DEVSET)
#: their import names, skipped wherever they turn up (vendored copies)
EXCLUDED_MODULES = frozenset({"black", "flask", "pandas", "scrapy", "tensorflow", "requests",
                              "jinja2", "rich", "sqlparse", "networkx", "marshmallow",
                              "itsdangerous", "tqdm", "yaml", "_yaml", "jsonschema", "arrow",
                              "pygments", "werkzeug", "tornado", "urllib3", "babel",
                              "openpyxl", "bs4", "isort", "peewee", "bottle"})

MAX_FILES_PER_PROJECT = 3000
MAX_FILE_BYTES = 600_000
#: stdlib folders that are no public API or only tests
STDLIB_SKIP = {"test", "tests", "idlelib", "lib2to3", "ensurepip", "turtledemo",
               "site-packages", "dist-packages", "pydoc_data", "__phello__", "config-3.11"}


class BuildError(Exception):
    """A projects list the builder refuses, or nothing to build from."""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower().strip()


def read_projects(path: str) -> list:
    """Names (and ``path:`` entries) of a projects file; BuildError when it
    names a reserved or dev-set project."""
    out = []
    with open(path, encoding="utf-8") as f:
        for ln in f:
            ln = ln.split("#", 1)[0].strip()
            if ln:
                out.append(ln)
    check_allowed(out)
    return out


def check_allowed(projects: Iterable[str]) -> None:
    bad = sorted({canonical(p) for p in projects if not p.startswith("path:")
                  and canonical(re.split(r"[<>=!~\[; ]", p, maxsplit=1)[0]) in EXCLUDED})
    if bad:
        raise BuildError("refusing to build the index from reserved or dev-set projects: "
                         + ", ".join(bad))


# ----------------------------------------------------------------- downloads

def _pip_download(names: list, dest: str, binary_only: bool) -> bool:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", dest]
    if binary_only:
        cmd += ["--only-binary=:all:"]
    else:
        cmd += ["--no-binary=:all:", "--no-build-isolation"]
    r = subprocess.run(cmd + names, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode == 0


def _artifact_for(dest: str, project: str) -> Optional[str]:
    want = canonical(project).replace("-", "_")
    best = None
    for f in sorted(os.listdir(dest)):
        stem = f.lower()
        if not stem.endswith((".whl", ".tar.gz", ".zip", ".tgz")):
            continue
        head = re.split(r"-\d", stem, maxsplit=1)[0]
        if canonical(head).replace("-", "_") == want:
            if best is None or f.endswith(".whl"):
                best = f
    return os.path.join(dest, best) if best else None


def download(projects: list, cache: str, log=print) -> dict:
    """project -> archive path, fetching what the cache lacks (one batch,
    then one by one for the rest, then sdists)."""
    dest = os.path.join(cache, "dl")
    os.makedirs(dest, exist_ok=True)
    names = [p for p in projects if not p.startswith("path:")]
    missing = [p for p in names if _artifact_for(dest, p) is None]
    if missing:
        log(f"downloading {len(missing)} projects into {dest}")
        if not _pip_download(missing, dest, True):
            for p in missing:
                if _artifact_for(dest, p) is None and not _pip_download([p], dest, True):
                    if not _pip_download([p], dest, False):
                        log(f"  could not download {p}")
    return {p: _artifact_for(dest, p) for p in names}


# ----------------------------------------------------------------- reading

def _archive_members(path: str):
    """(relative path, bytes) of the .py/.pyi files in an archive or folder."""
    if os.path.isdir(path):
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith((".py", ".pyi")):
                    p = os.path.join(dirpath, f)
                    if os.path.getsize(p) <= MAX_FILE_BYTES:
                        with open(p, "rb") as fh:
                            yield os.path.relpath(p, path).replace(os.sep, "/"), fh.read()
        return
    if path.endswith((".whl", ".zip")):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if info.filename.endswith((".py", ".pyi")) and info.file_size <= MAX_FILE_BYTES:
                    yield info.filename, z.read(info)
        return
    with tarfile.open(path) as t:
        for m in t:
            if m.isfile() and m.name.endswith((".py", ".pyi")) and m.size <= MAX_FILE_BYTES:
                f = t.extractfile(m)
                if f is not None:
                    yield m.name, f.read()


def _sdist_root(names: list) -> str:
    """The folder of an sdist holding its packages ('pkg-1.0/src' or 'pkg-1.0')."""
    tops = {n.split("/", 1)[0] for n in names if "/" in n}
    top = sorted(tops)[0] if len(tops) == 1 else ""
    if any(n.startswith(f"{top}/src/") for n in names):
        return f"{top}/src" if top else "src"
    return top


def read_project(path: str, project: str, stats: dict, stub_root: Optional[str] = None
                 ) -> list:
    """ModuleFacts of every module in an archive or folder (``stub_root``:
    only that subfolder, e.g. a typeshed tree)."""
    members = list(_archive_members(path))
    is_sdist = path.endswith((".tar.gz", ".tgz")) or (path.endswith(".zip")
                                                       and not path.endswith(".whl"))
    root = stub_root if stub_root is not None else (
        _sdist_root([n for n, _ in members]) if is_sdist else "")
    chosen: dict = {}
    for rel, data in members:
        if root and not rel.startswith(root + "/"):
            continue
        sub = rel[len(root) + 1:] if root else rel
        mn = module_name("", sub)
        if mn is None:
            continue
        if mn[0].split(".")[0] in EXCLUDED_MODULES:
            stats["skipped_excluded_modules"] += 1
            continue
        stub = rel.endswith(".pyi")
        prev = chosen.get(mn[0])
        if prev is not None and prev[2] and not stub:
            continue
        chosen[mn[0]] = (data, mn[1], stub)
        if len(chosen) >= MAX_FILES_PER_PROJECT:
            break
    out = []
    for mod, (data, is_pkg, stub) in sorted(chosen.items()):
        try:
            mf = extract_module(data.decode("utf-8", "replace"), mod, is_pkg, stub)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            stats["unparsable"] += 1
            continue
        out.append((mf, stub))
    stats["files"] += len(out)
    return out


def stdlib_sources(stats: dict, have: set) -> list:
    """ModuleFacts of the interpreter's own stdlib ``.py`` modules the stubs
    lack."""
    base = sysconfig.get_paths()["stdlib"]
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in STDLIB_SKIP and d.isidentifier())
        for f in sorted(filenames):
            if not f.endswith(".py"):
                continue
            p = os.path.join(dirpath, f)
            mn = module_name(base, p)
            if mn is None:
                continue
            try:
                with open(p, "rb") as fh:
                    data = fh.read()
                mf = extract_module(data.decode("utf-8", "replace"), mn[0], mn[1])
                if mn[0] in have or mn[0].split(".")[0] in have:
                    mf.name = ""            # the stubs describe it: its imports only
                out.append((mf, False))
            except (OSError, SyntaxError, ValueError, RecursionError):
                stats["unparsable"] += 1
    stats["files"] += len(out)
    return out


# ----------------------------------------------------------------- assembling

def assemble(per_project: list, min_count: int = 2) -> dict:
    """The index dict from [(project, [(ModuleFacts, is_stub), ...])]."""
    modules: dict = {}
    alls: dict = {}
    stars: dict = {}
    aliases: dict = defaultdict(Counter)
    from_imports: dict = defaultdict(Counter)
    module_imports: Counter = Counter()
    for project, facts in per_project:
        for mf, stub in facts:
            if not mf.name:
                pass                       # counted for its imports only
            elif mf.name in modules and modules[mf.name]["p"] != project:
                continue                   # first project providing a module wins
            else:
                modules[mf.name] = {"p": project, "n": mf.names}
            if mf.all is not None and mf.name:
                alls[mf.name] = mf.all
            if mf.star and mf.name:
                stars[mf.name] = mf.star
            if stub:
                continue                  # stubs' imports are type-level, not usage
            for kind, mod, name in mf.imports:
                top = mod.split(".")[0]
                if top in EXCLUDED_MODULES and project == "stdlib":
                    continue
                if kind == "alias":
                    aliases[name][mod] += 1
                elif kind == "from":
                    from_imports[name][mod] += 1
                    module_imports[mod] += 1
                else:
                    module_imports[mod] += 1
    # star imports: copy the target's public names (its __all__ if any) as re-exports
    for _ in range(4):
        changed = False
        for mod, targets in stars.items():
            names = modules[mod]["n"]
            for t in targets:
                tm = modules.get(t)
                if tm is None:
                    continue
                for nm in (alls.get(t) or [n for n in tm["n"] if not n.startswith("_")]):
                    if nm not in names:
                        names[nm] = ["r", t, nm]
                        changed = True
        if not changed:
            break
    _prune_private(modules)
    top = lambda c, k: {m: n for m, n in c.most_common(k) if n >= min_count}   # noqa: E731
    al = {a: top(c, 3) for a, c in aliases.items()}
    fi = {n: top(c, 3) for n, c in from_imports.items()}
    return {
        "format": FORMAT,
        "modules": modules,
        "aliases": {a: v for a, v in al.items() if v},
        "from_imports": {n: v for n, v in fi.items() if v},
        "module_imports": {m: n for m, n in module_imports.items() if n >= min_count},
    }


def _private(mod: str) -> bool:
    return any(p.startswith("_") and not p.startswith("__") for p in mod.split("."))


#: public modules kept whole per project (the shallowest); the others keep
#: only what kept modules re-export.  Snippets import packages and their
#: first levels, not generated API types five folders down.
MODULES_PER_PROJECT = 400


def _hidden_modules(modules: dict) -> set:
    by_project: dict = defaultdict(list)
    hidden = set()
    for mod, m in modules.items():
        if _private(mod) or any(p.endswith("_test") or p in ("tests", "test", "testing")
                                for p in mod.split(".")):
            hidden.add(mod)
        else:
            by_project[m["p"]].append(mod)
    for project, mods in by_project.items():
        if project == "stdlib":
            continue
        mods.sort(key=lambda x: (x.count("."), x))
        hidden.update(mods[MODULES_PER_PROJECT:])
    return hidden


def _prune_private(modules: dict) -> None:
    """Hidden modules (private ones, tests, and each project's modules past
    the MODULES_PER_PROJECT shallowest) keep only the names visible modules
    re-export (through chains); hidden modules nobody re-exports from go."""
    hidden = _hidden_modules(modules)
    keep: dict = defaultdict(set)
    work = []
    for mod, m in modules.items():
        if mod in hidden:
            continue
        for e in m["n"].values():
            if e[0] == "r":
                work.append((e[1], e[2]))
            elif e[0] == "m":
                work.append((e[1], None))
    seen = set()
    while work:
        mod, name = work.pop()
        if (mod, name) in seen:
            continue
        seen.add((mod, name))
        m = modules.get(mod)
        if m is None:
            continue
        if name is None:
            keep[mod].add(None)
            continue
        keep[mod].add(name)
        e = m["n"].get(name)
        if e is not None and e[0] == "r":
            work.append((e[1], e[2]))
    for mod in list(modules):
        if mod not in hidden:
            continue
        if mod not in keep:
            del modules[mod]
            continue
        if None in keep[mod]:
            continue
        names = modules[mod]["n"]
        for n in list(names):
            if n not in keep[mod]:
                del names[n]


def reverse_maps(modules: dict, entry) -> tuple:
    """(provides, members): name -> visible modules binding it, and method
    name -> classes having it (each class once, under its shallowest public
    spelling), as dicts of sets.  ``entry(module, name)`` resolves
    re-exports."""
    provides: dict = defaultdict(set)
    spelling: dict = {}                 # (defining module, name) -> public qualname
    methods_of: dict = {}
    for mod, m in modules.items():
        if _private(mod):
            continue
        for n, e in m["n"].items():
            provides[n].add(mod)
            where = (mod, n)
            if e[0] == "r":
                found = entry(mod, n)
                if found is None:
                    continue
                where, e = (found[0], found[1]), found[2]
            if e[0] != "c":
                continue
            q = f"{mod}.{n}"
            best = spelling.get(where)
            if best is None or (q.count("."), q) < (best.count("."), best):
                spelling[where] = q
            methods_of[where] = e[1]
    members: dict = defaultdict(set)
    for where, q in spelling.items():
        for meth in methods_of[where]:
            members[meth].add(q)
    return provides, members


def _b36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def _id_blob(d: dict, ids: dict) -> str:
    return "\n".join(f"{k}\t{' '.join(_b36(ids[x]) for x in sorted(v))}"
                     for k, v in sorted(d.items()))


def write_index(idx: dict, out: str) -> None:
    """The shipped form (format 3, docs/KNOWLEDGE.md): a zip archive holding
    ``index.json`` (corpus counts, meta, the module list), ``reverse.json``
    (the reverse maps as id-coded text, read on the first reverse query) and
    one ``m/<top>.json`` per top-level package, read when a module of that
    package is first used."""
    from .index import KnowledgeIndex
    ki = KnowledgeIndex(idx)
    provides, members = reverse_maps(idx["modules"], ki.entry)
    names = sorted(idx["modules"])
    mod_ids = {m: i for i, m in enumerate(names)}
    classes = sorted({q for v in members.values() for q in v})
    cls_ids = {q: i for i, q in enumerate(classes)}
    head = {k: v for k, v in idx.items() if k != "modules"}
    tops: dict = {}
    for m, v in idx["modules"].items():
        tops.setdefault(m.split(".")[0], v["p"])
    head.update({"format": FORMAT, "module_list": names, "tops": tops})
    groups: dict = defaultdict(dict)
    for m, v in idx["modules"].items():
        groups[m.split(".")[0]][m] = v
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        def put(name, obj):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, json.dumps(obj, separators=(",", ":"), sort_keys=True))
        put("index.json", head)
        put("reverse.json", {"class_list": classes, "provides": _id_blob(provides, mod_ids),
                             "members": _id_blob(members, cls_ids)})
        for top, mods in sorted(groups.items()):
            put(f"m/{top}.json", mods)
    os.replace(tmp, out)


def _project_label(archive: str) -> str:
    f = os.path.basename(archive)
    m = re.match(r"(.+?)-(\d[^-]*?)(?:-|\.tar\.gz|\.zip|\.tgz|$)", f)
    return f"{m.group(1)}=={m.group(2)}" if m else f


def build(projects: list, out: str, cache: str, stdlib: bool = True, log=print) -> dict:
    check_allowed(projects)
    t0 = time.monotonic()
    stats = Counter()
    per_project = []
    used, failed = [], []
    if stdlib:
        arch = download(["jedi"], cache, log).get("jedi")
        have: set = set()
        if arch:
            members = [n for n, _ in _archive_members(arch)]
            root = next((n.rsplit("/stdlib/", 1)[0] + "/stdlib" for n in members
                         if "/typeshed/stdlib/" in n), None)
            if root:
                facts = read_project(arch, "stdlib", stats, stub_root=root)
                have = {mf.name for mf, _ in facts}
                per_project.append(("stdlib", facts))
                used.append("stdlib (typeshed stubs from " + _project_label(arch) + ")")
        per_project.append(("stdlib", stdlib_sources(stats, have)))
    archives = download(projects, cache, log)
    for p in projects:
        if p.startswith("path:"):
            path = p[5:]
            label = os.path.basename(os.path.normpath(path))
        else:
            path = archives.get(p)
            label = _project_label(path) if path else p
        if not path or not os.path.exists(path):
            failed.append(p)
            continue
        log(f"  reading {label}")
        per_project.append((label.split("==")[0], read_project(path, label, stats)))
        used.append(label)
    if not any(f for _, f in per_project):
        raise BuildError("nothing to build from")
    idx = assemble(per_project)
    idx["meta"] = {"projects": used, "failed": failed, "python": sys.version.split()[0],
                   "files": stats["files"], "unparsable": stats["unparsable"],
                   "skipped_excluded_modules": stats["skipped_excluded_modules"],
                   "modules": len(idx["modules"]),
                   "names": sum(len(m["n"]) for m in idx["modules"].values()),
                   "seconds": round(time.monotonic() - t0, 1)}
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    write_index(idx, out)
    return idx["meta"]


def default_cache() -> str:
    return os.environ.get("LEXECUTOR_KNOWLEDGE_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "lexecutor_c", "knowledge-build")


def main(argv: Optional[list] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lexecutor_c.knowledge.build",
                                 description="Rebuild the shipped knowledge index.")
    ap.add_argument("--projects", default=DEFAULT_PROJECTS,
                    help="file of PyPI project names, one a line (default: the shipped list)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output file (a zip archive)")
    ap.add_argument("--cache", default=None, help="download cache (outside git)")
    ap.add_argument("--no-stdlib", action="store_true", help="leave the standard library out")
    args = ap.parse_args(argv)
    try:
        projects = read_projects(args.projects)
        meta = build(projects, args.out, args.cache or default_cache(),
                     stdlib=not args.no_stdlib)
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    size = os.path.getsize(args.out)
    print(f"wrote {args.out}: {meta['modules']} modules, {meta['names']} names, "
          f"{size / 1e6:.2f} MB, from {len(meta['projects'])} sources in {meta['seconds']} s"
          + (f"; not downloaded: {', '.join(meta['failed'])}" if meta["failed"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
