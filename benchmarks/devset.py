"""The development set: function bodies from the dev-set projects, rebuilt
from pinned sdists.

    python -m benchmarks.devset build [--set b] [--out DIR] [--cache DIR]
    python -m benchmarks.devset make  [--set b] [--per-project N] [--seed S] [--test-share F]

Other projects' code is never committed: ``benchmarks/devset/manifest.json``
names each body (project==version, sdist file and its sha256, source path,
function qualname and line, library/test, sha256 of the body file), and
``build`` downloads the pinned sdists from PyPI with pip (``pip download
--no-deps --no-binary NAME NAME==VERSION``; cached in
``~/.cache/lexecutor_c/devset``, ``$LEXECUTOR_DEVSET_CACHE`` or ``--cache``), extracts the bodies with
``benchmarks.extract_bodies`` and writes exactly the manifest's files into
``bench-data/devset/`` (git-ignored), each checked against its hash.
``make`` is how the manifest was made: it samples the bodies afresh from the
sdists (``--per-project`` per project, ``--test-share`` of them from the test
suites: the papers' sample has 16 test bodies of 87) and writes the manifest
and the files.

The projects are the dev-set projects of the project's rules: used for
development sets only, never for training data or the knowledge index.  The
reserved evaluation projects are refused.

``--set b`` is the held-out check set (``benchmarks/devset/manifest-b.json``,
written to ``bench-data/devset-b/``): bodies from other popular pure-Python
projects (``PINS_B``) that are neither reserved, nor dev-set projects, nor
sources of the knowledge index (``lexecutor_c/knowledge/projects.txt``).  It
is measured at milestones only, never read while tuning the generator, so it
says whether an improvement on the dev set carries over to code nobody
looked at; ``make --set b`` refuses any project of those three lists.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from typing import Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

from benchmarks import extract_bodies as eb  # noqa: E402

MANIFEST = os.path.join(REPO, "benchmarks", "devset", "manifest.json")
DEFAULT_OUT = os.path.join(REPO, "bench-data", "devset")
MANIFEST_B = os.path.join(REPO, "benchmarks", "devset", "manifest-b.json")
DEFAULT_OUT_B = os.path.join(REPO, "bench-data", "devset-b")
KNOWLEDGE_PROJECTS = os.path.join(REPO, "lexecutor_c", "knowledge", "projects.txt")
DEFAULT_CACHE = os.environ.get(
    "LEXECUTOR_DEVSET_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "lexecutor_c", "devset"))
FORMAT = "lexecutor_c.devset/1"

#: the dev-set projects (the project's rules) and the releases pinned here
PINS = {
    "tqdm": "4.70.1", "pyyaml": "6.0.4", "jsonschema": "4.26.0", "arrow": "1.4.0",
    "pygments": "2.21.0", "werkzeug": "3.1.9", "tornado": "6.6.1", "urllib3": "2.8.0",
    "babel": "2.18.0", "openpyxl": "3.1.5", "beautifulsoup4": "4.15.0", "isort": "9.0.2",
    "peewee": "4.5.3", "bottle": "0.13.4",
}
#: the held-out check set ``--set b``: popular pure-Python projects outside the
#: dev set, the reserved list and the knowledge index's sources
PINS_B = {
    "boltons": "26.2.0", "pyflakes": "4.1.0", "pycodestyle": "2.15.0", "natsort": "8.4.0",
    "mako": "1.4.3", "cerberus": "1.3.8",
}
#: never in a dev set (evaluation only)
RESERVED = {"black", "flask", "pandas", "scrapy", "tensorflow", "requests", "jinja2", "rich",
            "sqlparse", "networkx", "marshmallow", "itsdangerous"}


class DevsetError(Exception):
    """A clear message for the command line (exit status 1)."""


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _find_sdist(cache: str, name: str, version: str) -> Optional[str]:
    """The sdist of name==version in the cache (file names differ in case and
    separators: PyYAML-6.0.tar.gz, pyyaml-6.0.4.tar.gz)."""
    if not os.path.isdir(cache):
        return None
    want = eb._normalize(name)
    for fn in sorted(os.listdir(cache)):
        m = eb._SDIST.match(fn)
        if m and eb._normalize(m["name"]) == want and m["version"] == version:
            return os.path.join(cache, fn)
    return None


def fetch_sdist(name: str, version: str, cache: str, sha256: Optional[str] = None,
                say=print) -> str:
    """Path of the sdist of name==version, downloaded with pip into ``cache``
    when absent; checked against ``sha256`` when given."""
    path = _find_sdist(cache, name, version)
    if path is None:
        os.makedirs(cache, exist_ok=True)
        say(f"downloading {name}=={version} (pip download) into {cache}")
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
               "--no-binary", name, "--dest", cache, f"{name}=={version}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        path = _find_sdist(cache, name, version)
        if path is None:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
            raise DevsetError(f"pip could not download the sdist of {name}=={version}:\n{tail}")
    if sha256 and _sha256_file(path) != sha256:
        raise DevsetError(f"{path}: sha256 differs from the manifest's (a different file "
                          f"under the same name); delete it to download it again")
    return path


def _settings_args(settings: dict) -> dict:
    return {"min_lines": settings.get("min_lines", 2),
            "keep_nested": settings.get("keep_nested_returns", False)}


def extract_project(sdist: str, project: str, settings: dict,
                    only: Optional[set] = None) -> tuple[list, eb.Stats]:
    """Every function of the sdist (``only``: of these source files; their
    numbers are then not the project's)."""
    src = eb.open_source(sdist, project=eb._normalize(project))
    if only is not None:
        src.only = frozenset(only)
    stats = eb.Stats()
    return eb.extract(src, stats=stats, **_settings_args(settings)), stats


def _libcst_version() -> str:
    try:
        from importlib.metadata import version
        return version("libcst")
    except Exception:
        return "?"


# ================================================================ make

def knowledge_projects(path: str = KNOWLEDGE_PROJECTS) -> set:
    """The normalized names of the projects the knowledge index is built from."""
    out = set()
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line and not line.startswith("path:"):
                    out.add(eb._normalize(re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0]))
    except OSError:
        pass
    return out


def check_held_out(projects: list[str]) -> None:
    """DevsetError unless every project is outside the dev set, the reserved
    list and the knowledge index's sources (the held-out set's rule)."""
    dev = {eb._normalize(p) for p in PINS}
    known = knowledge_projects()
    bad = []
    for spec in projects:
        name = eb._normalize(spec.split("==")[0])
        if name in dev:
            bad.append(f"{name} (a dev-set project)")
        elif name in known:
            bad.append(f"{name} (a knowledge-index project)")
    if bad:
        raise DevsetError("not allowed in the held-out set: " + ", ".join(bad))


def make(projects: list[str], per_project: int, seed: int, test_share: float, cache: str,
         manifest: str, out: Optional[str], min_lines: int = 2, say=print,
         pins: Optional[dict] = None, held_out: bool = False) -> dict:
    """Sample a dev set afresh from the pinned sdists; write the manifest (and
    the files into ``out`` when given).  ``held_out``: the check set's rule
    (check_held_out) applies too."""
    bad = [p for p in projects if p.split("==")[0].lower() in RESERVED]
    if bad:
        raise DevsetError(f"reserved for evaluation, never in a dev set: {', '.join(bad)}")
    if held_out:
        check_held_out(projects)
    pins = PINS if pins is None else pins
    settings = {"per_project": per_project, "seed": seed, "test_share": test_share,
                "min_lines": min_lines, "keep_nested_returns": False}
    doc = {"format": FORMAT,
           "about": ("Held-out check set: function bodies in the LExecutor/Treefix papers' "
                     "format from projects outside the dev set, the reserved list and the "
                     "knowledge index; measured at milestones only; rebuild with "
                     "`python -m benchmarks.devset build --set b`." if held_out else
                     "Function bodies in the LExecutor/Treefix papers' format from the dev-set "
                     "projects; rebuild with `python -m benchmarks.devset build`."),
           "made_with": (f"python -m benchmarks.devset make {'--set b ' if held_out else ''}"
                         f"--per-project {per_project} "
                         f"--seed {seed} --test-share {test_share} --min-lines {min_lines}"),
           "settings": settings, "libcst": _libcst_version(), "projects": [], "bodies": []}
    chosen_all = []
    for spec in projects:
        name, _, version = spec.partition("==")
        version = version or pins.get(name)
        if not version:
            raise DevsetError(f"{name}: no pinned version (give {name}==VERSION)")
        sdist = fetch_sdist(name, version, cache, say=say)
        bodies, stats = extract_project(sdist, name, settings)
        cands = [b for b in bodies if b.skipped is None]
        chosen = eb.sample(bodies, per_project, seed, test_share)
        chosen_all += chosen
        doc["projects"].append({
            "project": f"{name}=={version}", "sdist": os.path.basename(sdist),
            "sdist_sha256": _sha256_file(sdist), "files": stats.files,
            "functions": stats.functions,
            "candidates": {"library": sum(b.kind != "test" for b in cands),
                           "test": sum(b.kind == "test" for b in cands)},
            "chosen": {"library": sum(b.kind != "test" for b in chosen),
                       "test": sum(b.kind == "test" for b in chosen)},
        })
        for b in chosen:
            doc["bodies"].append({"file": b.filename, "project": f"{name}=={version}",
                                  "sdist": os.path.basename(sdist), "source": b.source,
                                  "qualname": b.qualname, "line": b.line, "kind": b.kind,
                                  "lines": b.lines, "sha256": b.sha256})
        say(f"{name}=={version}: {len(chosen)} of {len(cands)} candidate bodies "
            f"({sum(b.kind == 'test' for b in chosen)} test)")
    os.makedirs(os.path.dirname(os.path.abspath(manifest)), exist_ok=True)
    with open(manifest, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    if out:
        _write_exact(chosen_all, out, {eb._normalize(p.split("==")[0]) for p in projects})
    return doc


# ================================================================ build

_BODY = re.compile(r"^(?P<project>.+)_body_(?P<n>\d+)\.py$")


def _write_exact(bodies: list, out: str, projects: set) -> None:
    """Write the bodies; remove other ``<project>_body_<n>.py`` files of these
    projects from ``out`` so that it holds exactly the set."""
    os.makedirs(out, exist_ok=True)
    keep = {b.filename for b in bodies}
    for fn in os.listdir(out):
        m = _BODY.match(fn)
        if m and m["project"] in projects and fn not in keep:
            os.remove(os.path.join(out, fn))
    eb.write_bodies(bodies, out)


def load_manifest(path: str = MANIFEST) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise DevsetError(f"cannot read the manifest {path}: {e.strerror or e}")
    except json.JSONDecodeError as e:
        raise DevsetError(f"{path} is not JSON: {e}")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DevsetError(f"{path} is not a dev-set manifest (format {FORMAT})")
    return doc


def build(manifest: str, out: str, cache: str, say=print) -> dict:
    """Regenerate exactly the manifest's files in ``out``; DevsetError when
    a body is missing or its hash differs."""
    doc = load_manifest(manifest)
    settings = doc.get("settings", {})
    if doc.get("libcst") not in (None, _libcst_version()):
        say(f"note: the manifest was made with libcst {doc['libcst']}, this is "
            f"{_libcst_version()}; a hash mismatch may come from that")
    wanted: dict[str, list] = {}
    for e in doc["bodies"]:
        wanted.setdefault(e["project"], []).append(e)
    sdists = {p["project"]: p for p in doc["projects"]}
    written, problems = [], []
    for proj, entries in wanted.items():
        name, _, version = proj.partition("==")
        meta = sdists.get(proj, {})
        sdist = fetch_sdist(name, version, cache, meta.get("sdist_sha256"), say=say)
        # only the files that hold the manifest's bodies: a body is found by
        # (source, qualname, line), its number comes from the manifest
        bodies, _ = extract_project(sdist, name, settings, {e["source"] for e in entries})
        by_key = {(b.source, b.qualname, b.line): b for b in bodies}
        for e in entries:
            b = by_key.get((e["source"], e["qualname"], e["line"]))
            m = _BODY.match(e["file"])
            if b is None or m is None:
                problems.append(f"{e['file']}: no function {e['qualname']} at line {e['line']} "
                                f"of {e['source']}")
                continue
            b.index = int(m["n"])
            if b.filename != e["file"]:
                problems.append(f"{e['file']}: the project name gives {b.filename}")
                continue
            if b.skipped:
                problems.append(f"{e['file']}: skipped by the extractor ({b.skipped})")
                continue
            if b.sha256 != e["sha256"]:
                problems.append(f"{e['file']}: content hash differs ({b.sha256[:12]} vs "
                                f"{e['sha256'][:12]})")
                continue
            written.append(b)
        say(f"{proj}: {sum(1 for b in written if b.project == eb._normalize(name))} bodies")
    if problems:
        raise DevsetError(f"{len(problems)} of {len(doc['bodies'])} bodies do not match the "
                          "manifest:\n  " + "\n  ".join(problems[:20]))
    _write_exact(written, out, {eb._normalize(p.split("==")[0]) for p in wanted})
    return {"written": len(written), "out": out}


# ================================================================ main

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.devset", description=__doc__.split(
        "\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="regenerate the manifest's bodies from the pinned sdists")
    b.add_argument("--set", choices=("a", "b"), default="a", dest="which",
                   help="a: the dev set (default); b: the held-out check set (manifest-b.json, "
                        "bench-data/devset-b)")
    b.add_argument("--out", default=None, help="output folder (default bench-data/devset, "
                                               "or bench-data/devset-b with --set b)")
    b.add_argument("--cache", default=DEFAULT_CACHE, help=f"sdist cache (default {DEFAULT_CACHE})")
    b.add_argument("--manifest", default=None)
    m = sub.add_parser("make", help="sample a new manifest from the pinned sdists")
    m.add_argument("--set", choices=("a", "b"), default="a", dest="which",
                   help="b: the held-out check set (PINS_B; projects outside the dev set, the "
                        "reserved list and the knowledge index)")
    m.add_argument("--projects", nargs="+", default=None, metavar="NAME[==VERSION]",
                   help="default: the 14 dev-set projects at their pinned versions (--set b: "
                        "PINS_B)")
    m.add_argument("--per-project", type=int, default=24, metavar="N")
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--test-share", type=float, default=0.2, metavar="F")
    m.add_argument("--min-lines", type=int, default=2, metavar="K")
    m.add_argument("--cache", default=DEFAULT_CACHE)
    m.add_argument("--manifest", default=None)
    m.add_argument("--out", default=None,
                   help="also write the bodies here (default bench-data/devset or "
                        "bench-data/devset-b; '' for none)")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)

    def say(msg):
        print(msg, file=sys.stderr)
    held_out = args.which == "b"
    if args.manifest is None:
        args.manifest = MANIFEST_B if held_out else MANIFEST
    if args.out is None:
        args.out = DEFAULT_OUT_B if held_out else DEFAULT_OUT
    try:
        if args.command == "build":
            r = build(args.manifest, args.out, args.cache, say)
            say(f"wrote {r['written']} bodies to {r['out']} (all hashes match the manifest)")
        else:
            if args.per_project < 1 or not 0 <= args.test_share <= 1:
                say("--per-project must be >= 1 and --test-share in [0, 1]")
                return 2
            pins = PINS_B if held_out else PINS
            projects = args.projects or sorted(pins)
            doc = make(projects, args.per_project, args.seed, args.test_share, args.cache,
                       args.manifest, args.out or None, args.min_lines, say, pins=pins,
                       held_out=held_out)
            n = len(doc["bodies"])
            t = sum(e["kind"] == "test" for e in doc["bodies"])
            say(f"manifest {args.manifest}: {n} bodies ({n - t} library, {t} test) from "
                f"{len(doc['projects'])} projects")
    except eb.tarfile.TarError as e:
        say(f"cannot read an sdist: {e}")
        return 1
    except DevsetError as e:
        say(str(e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
