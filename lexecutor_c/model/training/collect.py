"""Collect training data: ``python -m lexecutor_c.model.training.collect``.

For each project of ``projects.PROJECTS`` (and each stdlib test module of
``STDLIB``), as one task on ``--workers`` processes of ``--executor``
(lexecutor_c.engine.executors; a Dask ``LocalCluster`` by default):

1. ``pip download`` the pinned sdist into ``DATA/sdists`` (skipped when it
   is there; ``--offline`` never downloads) and unpack it into
   ``DATA/src/<project>``;
2. ``pip install --target DATA/envs/<project>`` the pinned project with its
   ``test``/``tests``/``testing`` extras and the entry's ``deps``, so that
   no two projects' dependencies clash (reused when the same requirements
   were installed before);
3. run its test suite under ``lexecutor_c.record`` (the sdist's own files
   instrumented, pytest with ``--assert=plain`` so test modules are recorded
   too, the sdist before the ``--target`` directory on ``PYTHONPATH``) into
   ``DATA/events/<project>.jsonl.gz``, killed after ``--timeout`` seconds
   (the events up to then are kept).

Every finished task is written at once to ``DATA/manifest.json``
(``projects``: per project its state, version, events, examples, tests run,
seconds, failures).  The run is resumable: projects whose state is ``ok``,
``timeout`` or ``failed`` are skipped next time; ``--retry`` runs the
``timeout`` and ``failed`` ones again, ``--force`` all.  A project that was
running when the driver died has state ``running`` and runs again.

Then (unless ``--no-dataset``) the dataset is built from the events of the
``ok`` and ``timeout`` projects: ``DATA/dataset/`` (``dataset.build``;
docs/MODEL.md describes the files), and the frequency table of all its
examples is written to ``--table`` (default ``DATA/frequency.json.gz``;
the shipped table is ``lexecutor_c/model/frequency.json.gz``).
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import traceback
from typing import Dict, List, Optional, Sequence

from lexecutor_c.engine.runtime import coarse_class, save_frequency_table
from lexecutor_c.model.training import dataset as ds
from lexecutor_c.model.training.projects import (COMMON_DEPS, PROJECTS, Project, forbidden,
                                                 normalize)

# stdlib test modules and the (pure-Python) modules they test; each is a
# source of its own (``stdlib-<test>``), never counted as a PyPI project;
# an empty list records the test module only
STDLIB: Dict[str, List[str]] = {
    "test_json": ["json"],
    "test_textwrap": ["textwrap"],
    "test_statistics": ["statistics"],
    "test_shlex": ["shlex"],
    "test_fractions": ["fractions"],
    "test_difflib": ["difflib"],
    "test_argparse": ["argparse"],
    "test_configparser": ["configparser"],
    "test_email": ["email"],
    "test_csv": ["csv"],
    "test_decimal": ["_pydecimal"],
    "test_ipaddress": ["ipaddress"],
    "test_pathlib": ["pathlib"],
    "test_typing": ["typing"],
    "test_enum": ["enum"],
    "test_dataclasses": ["dataclasses"],
    "test_calendar": ["calendar"],
    "test_string": ["string"],
    "test_inspect": ["inspect"],
    "test_collections": ["collections"],
    "test_functools": ["functools"],
    "test_pprint": ["pprint"],
    "test_reprlib": ["reprlib"],
    "test_gettext": ["gettext"],
    "test_plistlib": ["plistlib"],
    "test_tomllib": ["tomllib"],
    "test_zipfile": ["zipfile"],
    "test_tarfile": ["tarfile"],
    "test_urlparse": ["urllib.parse"],
    "test_http_cookies": ["http.cookies"],
    "test_htmlparser": ["html.parser"],
    "test_base64": ["base64"],
    "test_optparse": ["optparse"],
    "test_getopt": ["getopt"],
    "test_netrc": ["netrc"],
    "test_mailbox": ["mailbox"],
    "test_ast": ["ast"],
    "test_tokenize": ["tokenize"],
    "test_heapq": ["heapq"],
    "test_copy": ["copy"],
    "test_glob": ["glob", "fnmatch"],
    "test_shutil": ["shutil"],
    "test_tempfile": ["tempfile"],
    "test_graphlib": ["graphlib"],
    "test_uuid": ["uuid"],
    "test_quopri": ["quopri"],
    "test_cmd": ["cmd"],
    "test_posixpath": ["posixpath", "genericpath"],
    "test_contextlib": ["contextlib"],
    "test_zoneinfo": ["zoneinfo"],
    "test_sched": ["sched"],
    "test_pickle": ["pickle"],
    "test_traceback": ["traceback"],
    "test_random": ["random"],
    "test_ntpath": ["ntpath"],
    "test_wave": ["wave"],
    "test_urllib2": ["urllib.request"],
    "test_http_cookiejar": ["http.cookiejar"],
    "test_minidom": ["xml.dom"],
    "test_sax": ["xml.sax"],
    "test_logging": ["logging"],
    "test_unittest": ["unittest"],
    "test_doctest": ["doctest"],
    "test_dis": ["dis"],
    "test_mimetypes": ["mimetypes"],
    "test_fileinput": ["fileinput"],
    "test_filecmp": ["filecmp"],
    "test_smtplib": ["smtplib"],
    "test_imaplib": ["imaplib"],
    "test_ftplib": ["ftplib"],
    "test_pydoc": ["pydoc"],
    # language-level tests: only the test module itself is recorded
    "test_asyncio": ["asyncio"],
    "test_importlib": ["importlib"],
    "test_lib2to3": ["lib2to3"],
    "test_xml_etree": ["xml.etree"],
    "test_xmlrpc": ["xmlrpc"],
    "test_httplib": ["http.client"],
    "test_httpservers": ["http.server"],
    "test_urllib": ["urllib"],
    "test_robotparser": ["urllib.robotparser"],
    "test_socketserver": ["socketserver"],
    "test_pstats": ["pstats"],
    "test_profile": ["profile"],
    "test_trace": ["trace"],
    "test_bdb": ["bdb"],
    "test_pdb": ["pdb"],
    "test_code": ["code"],
    "test_codeop": ["codeop"],
    "test_compileall": ["compileall"],
    "test_pyclbr": ["pyclbr"],
    "test_modulefinder": ["modulefinder"],
    "test_pkgutil": ["pkgutil"],
    "test_runpy": ["runpy"],
    "test_zipapp": ["zipapp"],
    "test_sysconfig": ["sysconfig"],
    "test_platform": ["platform"],
    "test_locale": ["locale"],
    "test_gzip": ["gzip"],
    "test_bz2": ["bz2"],
    "test_lzma": ["lzma"],
    "test_codecs": ["encodings"],
    "test_types": ["types"],
    "test_weakref": ["weakref"],
    "test_secrets": ["secrets"],
    "test_hmac": ["hmac"],
    "test_selectors": ["selectors"],
    "test_timeit": ["timeit"],
    "test_tabnanny": ["tabnanny"],
    "test_wsgiref": ["wsgiref"],
    "test_webbrowser": ["webbrowser"],
    "test_shelve": ["shelve"],
    "test_dbm_dumb": ["dbm"],
    "test_pickletools": ["pickletools"],
    "test_ordered_dict": ["collections"],
    "test_itertools": [],
    "test_contextlib_async": ["contextlib"],
    "test_coroutines": [],
    "test_generators": [],
    "test_exceptions": [],
    "test_warnings": ["warnings"],
    "test_linecache": ["linecache"],
    "test_fnmatch": ["fnmatch"],
    "test_stat": ["stat"],
    "test_datetime": ["datetime"],
    "test_aifc": ["aifc"],
    "test_sunau": ["sunau"],
    "test_mailcap": ["mailcap"],
    "test_xdrlib": ["xdrlib"],
    "test_nntplib": ["nntplib"],
    "test_poplib": ["poplib"],
    "test_telnetlib": ["telnetlib"],
    "test_imghdr": ["imghdr"],
    "test_sndhdr": ["sndhdr"],
    "test_uu": ["uu"],
    "test_colorsys": ["colorsys"],
    "test_symtable": ["symtable"],
    "test_opcodes": [],
    "test_operator": ["operator"],
    "test_keyword": ["keyword"],
    "test_copyreg": ["copyreg"],
    "test_bisect": ["bisect"],
    "test_queue": ["queue"],
    "test_string_literals": [],
    "test_fstring": [],
    "test_format": [],
    "test_grammar": [],
    "test_descr": [],
    "test_builtin": [],
    "test_class": [],
    "test_scope": [],
    "test_with": [],
    "test_raise": [],
    "test_list": [],
    "test_dict": [],
    "test_set": [],
    "test_bytes": [],
    "test_xml_dom_minicompat": ["xml.dom.minicompat"],
    "test_html": ["html"],
    "test_cgi": ["cgi"],
    "test_cgitb": ["cgitb"],
    "test_pulldom": ["xml.dom.pulldom"],
    "test_threading_local": ["_threading_local"],
    "test_userdict": ["collections"],
    "test_userlist": ["collections"],
    "test_userstring": ["collections"],
    "test_defaultdict": [],
    "test_dictviews": [],
    "test_enumerate": [],
    "test_sort": [],
    "test_property": [],
    "test_super": [],
    "test_funcattrs": [],
    "test_decorators": [],
    "test_unpack": [],
    "test_genexps": [],
    "test_listcomps": [],
    "test_setcomps": [],
    "test_dictcomps": [],
    "test_named_expressions": [],
    "test_patma": [],
    "test_positional_only_arg": [],
    "test_keywordonlyarg": [],
    "test_typechecks": [],
    "test_isinstance": [],
    "test_iter": [],
    "test_contains": [],
    "test_slice": [],
    "test_richcmp": [],
    "test_augassign": [],
    "test_binop": [],
    "test_compare": [],
    "test_bool": [],
    "test_pow": [],
}

PYTEST_ARGS = ["-q", "-p", "no:cacheprovider", "--assert=plain", "-o", "addopts=",
               "--continue-on-collection-errors", "-p", "no:warnings", "-p", "no:randomly",
               "-p", "no:xdist", "-p", "no:cov"]
EXTRAS = "test,tests,testing"
MANIFEST_VERSION = 2
DONE_STATES = ("ok", "timeout", "failed")


def log(msg: str) -> None:
    print(f"[collect {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# -- one project ---------------------------------------------------------------

def find_sdist(name: str, version: Optional[str], sdists: str) -> Optional[str]:
    """The sdist of ``name`` (at ``version`` when given) in ``sdists``."""
    norm = normalize(name).replace("-", "_")
    best = None
    for p in sorted(glob.glob(os.path.join(sdists, "*.tar.gz")) +
                    glob.glob(os.path.join(sdists, "*.zip"))):
        base = os.path.basename(p)
        stem = base[:-7] if base.endswith(".tar.gz") else base[:-4]
        pname, _, pver = stem.rpartition("-")
        if normalize(pname).replace("-", "_") != norm:
            continue
        if version is None or pver == version:
            best = p
    return best


def download(name: str, version: Optional[str], sdists: str, timeout: float = 600) -> str:
    found = find_sdist(name, version, sdists)
    if found:
        return found
    os.makedirs(sdists, exist_ok=True)
    req = f"{name}=={version}" if version else name
    r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--no-binary", name, "-d", sdists, req],
                       capture_output=True, text=True, timeout=timeout)
    found = find_sdist(name, version, sdists)
    if r.returncode != 0 or not found:
        raise RuntimeError(f"pip download {req} failed: {(r.stderr or r.stdout).strip()[-400:]}")
    return found


def unpack(sdist: str, dest: str) -> str:
    """Unpack into ``dest`` (replaced) and return the project root in it."""
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    if sdist.endswith(".zip"):
        import zipfile
        with zipfile.ZipFile(sdist) as zf:
            zf.extractall(dest)
    else:
        with tarfile.open(sdist) as tf:
            tf.extractall(dest, filter="data")
    entries = [e for e in os.listdir(dest) if os.path.isdir(os.path.join(dest, e))]
    return os.path.join(dest, entries[0]) if len(entries) == 1 else dest


def test_target(root: str) -> List[str]:
    for cand in ("tests", "test", "testing", "t"):
        if os.path.isdir(os.path.join(root, cand)):
            return [cand]
    inner = sorted(glob.glob(os.path.join(root, "src", "*", "tests")) +
                   glob.glob(os.path.join(root, "src", "*", "test")) +
                   glob.glob(os.path.join(root, "*", "tests")) +
                   glob.glob(os.path.join(root, "*", "test")))
    if inner:
        return [os.path.relpath(inner[0], root)]
    files = sorted(glob.glob(os.path.join(root, "test_*.py")) +
                   glob.glob(os.path.join(root, "tests.py")) +
                   glob.glob(os.path.join(root, "test.py")) +
                   glob.glob(os.path.join(root, "*", "test_*.py")) +
                   glob.glob(os.path.join(root, "src", "test_*.py")) +
                   glob.glob(os.path.join(root, "*_test.py")))
    return [os.path.relpath(f, root) for f in files]


def install_env(project: Project, envdir: str, timeout: float, logf) -> None:
    """``pip install --target envdir`` the project with its test extras,
    ``COMMON_DEPS`` and ``deps``; when pip cannot resolve that (an extra pins
    an old hypothesis, say), without ``COMMON_DEPS``, then without the
    extras.  Reused when an earlier install of the same requirements
    finished (``.lexecutor-env`` stamp)."""
    pinned = f"{project.name}=={project.version}"
    withx = f"{project.name}[{EXTRAS}]=={project.version}"
    attempts = [[withx, *COMMON_DEPS, *project.deps], [withx, *project.deps],
                [pinned, *COMMON_DEPS, *project.deps], [pinned, *project.deps]]
    stamp_file = os.path.join(envdir, ".lexecutor-env")
    try:
        with open(stamp_file) as f:
            old = f.read().strip()
        if old in {hashlib.sha256("\n".join(r).encode()).hexdigest() for r in attempts}:
            logf.write(f"[collect] reusing {envdir}\n")
            return
    except OSError:
        pass
    t_end = time.monotonic() + timeout
    r = None
    for reqs in attempts:
        if os.path.isdir(envdir):
            shutil.rmtree(envdir)
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
               "--no-warn-script-location", "--target", envdir, *reqs]
        logf.write("[collect] " + " ".join(cmd) + "\n")
        logf.flush()
        r = subprocess.run(cmd, stdout=logf, stderr=subprocess.STDOUT,
                           timeout=max(1.0, t_end - time.monotonic()))
        if r.returncode == 0:
            os.makedirs(envdir, exist_ok=True)
            with open(stamp_file, "w") as f:
                f.write(hashlib.sha256("\n".join(reqs).encode()).hexdigest() + "\n")
            return
    raise RuntimeError(f"pip install --target failed (exit {r.returncode}); see the log")


_SUMMARY = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")
_UNITTEST = re.compile(r"^Ran (\d+) tests? in ")
_UNITTEST_FAIL = re.compile(r"(failures|errors|skipped)=(\d+)")


def test_counts(log_text: str) -> Dict[str, int]:
    """Counts from the last pytest summary line (``3 failed, 10 passed in
    1.0s``) or unittest's ``Ran N tests``; empty when there is none."""
    counts: Dict[str, int] = {}
    lines = log_text.splitlines()
    for line in reversed(lines):
        if re.search(r"\b(passed|failed|error|errors|no tests ran)\b.* in [\d.]+s", line):
            for n, what in _SUMMARY.findall(line):
                what = "errors" if what.startswith("error") else what
                counts[what] = counts.get(what, 0) + int(n)
            return counts
    for i, line in enumerate(lines):
        m = _UNITTEST.match(line)
        if m:
            counts["run"] = int(m.group(1))
            tail = " ".join(lines[i + 1:i + 4])
            for what, n in _UNITTEST_FAIL.findall(tail):
                counts[what] = int(n)
    return counts


def tests_run(counts: Dict[str, int]) -> int:
    if "run" in counts:
        return counts["run"]
    return sum(counts.get(k, 0) for k in ("passed", "failed", "errors", "xfailed", "xpassed"))


def run_project(project: Project, data: str, *, offline: bool = False, timeout: float = 600,
                install_timeout: float = 600, cap: Optional[int] = 300) -> dict:
    """Download, install and record one project; never raises: failures are
    a result with ``state`` "failed" and an ``error``."""
    t0 = time.monotonic()
    res: dict = {"project": project.name, "version": project.version, "kind": "pypi",
                 "state": "failed", "events": 0, "examples": 0, "tests": 0}
    evdir = os.path.join(data, "events")
    out = os.path.join(evdir, f"{project.name}.jsonl.gz")
    logpath = out + ".log"
    try:
        os.makedirs(evdir, exist_ok=True)
        with open(logpath, "w") as logf:
            sdists = os.path.join(data, "sdists")
            sdist = find_sdist(project.name, project.version, sdists) if offline else \
                download(project.name, project.version, sdists, install_timeout)
            if not sdist:
                raise RuntimeError(f"no sdist of {project.requirement} in {sdists} (--offline)")
            res["sdist"] = os.path.basename(sdist)
            root = unpack(sdist, os.path.join(data, "src", project.name))
            targets = list(project.tests) or test_target(root)
            if not targets:
                raise RuntimeError("the sdist has no tests")
            missing = [t for t in targets if not glob.glob(os.path.join(root, t.split("::")[0]))]
            if missing:
                raise RuntimeError(f"test paths missing from the sdist: {missing}")
            envdir = os.path.join(data, "envs", project.name)
            t1 = time.monotonic()
            if not offline:
                install_env(project, envdir, install_timeout, logf)
            res["install_seconds"] = round(time.monotonic() - t1, 1)
            env = dict(os.environ)
            src = os.path.join(root, "src")
            pypath = [src] if os.path.isdir(src) else []
            pypath.append(root)
            if os.path.isdir(envdir):
                pypath.append(envdir)
            if env.get("PYTHONPATH"):
                pypath.append(env["PYTHONPATH"])
            env["PYTHONPATH"] = os.pathsep.join(pypath)
            env.pop("PYTEST_ADDOPTS", None)
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env["HYPOTHESIS_STORAGE_DIRECTORY"] = os.path.join(root, ".hypothesis")
            env.update(dict(project.env))
            cmd = [sys.executable, "-m", "pytest", *PYTEST_ARGS, "--rootdir", root,
                   *project.args, *targets]
            logf.write("[collect] " + " ".join(cmd) + "\n")
            logf.flush()
            res.update(_record(cmd, root, out, env, timeout, logf, include=None))
    except Exception as e:  # noqa: BLE001 - a failed project is a result, not a crash
        res["error"] = f"{type(e).__name__}: {e}"
        res["traceback"] = traceback.format_exc(limit=3)[-1500:]
    res["seconds"] = round(time.monotonic() - t0, 1)
    _finish(res, out, logpath, cap)
    return res


def run_stdlib(test: str, data: str, *, timeout: float = 600, cap: Optional[int] = 300) -> dict:
    """Record a stdlib test module (``python -m unittest test.<module>``)
    with the modules it tests."""
    t0 = time.monotonic()
    name = f"stdlib-{test}"
    res: dict = {"project": name, "version": sys.version.split()[0], "kind": "stdlib",
                 "state": "failed", "events": 0, "examples": 0, "tests": 0}
    evdir = os.path.join(data, "events")
    out = os.path.join(evdir, f"{name}.jsonl.gz")
    logpath = out + ".log"
    try:
        os.makedirs(evdir, exist_ok=True)
        with open(logpath, "w") as logf:
            cmd = [sys.executable, "-m", "unittest", "-q", f"test.{test}"]
            res.update(_record(cmd, data, out, None, timeout, logf,
                               include=[*STDLIB[test], f"test.{test}"]))
    except Exception as e:  # noqa: BLE001
        res["error"] = f"{type(e).__name__}: {e}"
    res["seconds"] = round(time.monotonic() - t0, 1)
    _finish(res, out, logpath, cap)
    return res


def _record(cmd, cwd, out, env, timeout, logf, include) -> dict:
    from lexecutor_c.engine.record import record
    r = record(cmd, cwd=cwd, out=out, env=env, timeout=timeout, stdout=logf,
               stderr=subprocess.STDOUT, include=include)
    return {"returncode": r.returncode, "timed_out": r.timed_out, "events": r.events,
            "modules": len(r.modules), "processes": r.processes,
            "record_warnings": list(r.warnings)[:5]}


def _finish(res: dict, out: str, logpath: str, cap: Optional[int]) -> None:
    try:
        with open(logpath, errors="replace") as f:
            text = f.read()
    except OSError:
        text = ""
    counts = test_counts(text)
    res["test_counts"] = counts
    res["tests"] = tests_run(counts)
    res["failures"] = counts.get("failed", 0) + counts.get("errors", 0) + \
        counts.get("failures", 0)
    if "error" in res:
        res["state"] = "failed"
        return
    if res.get("events", 0) and os.path.exists(out):
        st: dict = {}
        res["examples"] = len(ds.examples_from_events([out], cap=cap, stats=st))
        res["capped"] = st.get("capped", 0)
    if res.get("timed_out"):
        res["state"] = "timeout"
    elif res.get("events", 0) > 0:
        res["state"] = "ok"
    else:
        res["state"] = "failed"
        res["error"] = f"no events (exit {res.get('returncode')}, {res['tests']} tests ran)"


# -- the manifest ----------------------------------------------------------------

def load_manifest(path: str) -> dict:
    try:
        with open(path) as f:
            m = json.load(f)
        if isinstance(m, dict) and isinstance(m.get("projects"), dict):
            return m
    except (OSError, ValueError):
        pass
    return {"version": MANIFEST_VERSION, "projects": {}}


def save_manifest(path: str, manifest: dict) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def to_run(names: Sequence[str], manifest: dict, retry, force: bool) -> List[str]:
    """Which of ``names`` run now: those never finished (no entry, or
    ``running`` when an earlier driver died), plus those whose state is in
    ``retry`` (a collection of states; ``True``: timeout and failed), or
    all with ``force``."""
    if retry is True:
        retry = ("timeout", "failed")
    retry = set(retry or ())
    out = []
    for n in names:
        entry = manifest["projects"].get(n, {})
        state = entry.get("state")
        if state == "running" and entry.get("previous_state") in DONE_STATES \
                and entry["previous_state"] not in retry and not force:
            state = entry["previous_state"]     # a retry of it was interrupted
        if force or state not in DONE_STATES or state in retry:
            out.append(n)
    return out


def _call(payload):
    """The worker side of run_all: ``(name, function, args, kwargs)``."""
    _, fn, args, kwargs = payload
    return fn(*args, **kwargs)


def run_all(tasks: Dict[str, tuple], manifest: dict, mpath: str, workers: int,
            executor: str = "dask") -> None:
    """Run ``tasks`` ({name: (function, args, kwargs)}) on ``workers``
    single-threaded processes of ``executor`` (lexecutor_c.engine.executors:
    ``dask``, a LocalCluster, by default; ``local``, ``ray``, or a cluster
    address), in the given order, writing each result to the manifest as
    soon as it arrives.  A task whose worker died is recorded ``failed``
    (``--retry`` runs it again)."""
    if not tasks:
        return
    from ...engine import executors
    for n in tasks:
        entry = manifest["projects"].setdefault(n, {})
        if entry.get("state") in DONE_STATES:
            entry["previous_state"] = entry["state"]
        entry["state"] = "running"
    save_manifest(mpath, manifest)
    with executors.open_executor(executor, workers) as ex:
        # a window of one call per worker: the workers take the tasks in the given order
        done = 0
        for (n, _, _, _), res in executors.run_batches(
                ex, _call, ((n, *t) for n, t in tasks.items()), window=ex.workers,
                max_retries=0):
            if isinstance(res, BaseException):     # a worker died: record it, go on
                res = {"project": n, "state": "failed", "error": f"{type(res).__name__}: {res}"}
            res["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
            manifest["projects"][n] = res
            save_manifest(mpath, manifest)
            done += 1
            log(f"[{done}/{len(tasks)}] {n}: {res['state']}, {res.get('events', 0)} events, "
                f"{res.get('examples', 0)} examples, {res.get('tests', 0)} tests, "
                f"{res.get('seconds')} s" + (f" ({res['error']})" if res.get("error") else ""))


# -- frequency baseline ----------------------------------------------------------

def topk_frequency(table, examples, ks=(1, 3, 5), coarse=False) -> Dict[str, float]:
    """Top-k accuracy of ranking a name's classes by their counts (unknown
    names: "object" first, then the classes in FINE_CLASSES order)."""
    from lexecutor_c import _core
    order = list(_core.FINE_CLASSES)
    hits = {k: 0 for k in ks}
    for ex in examples:
        row = table.get(ex.name, {})
        ranked = sorted(row, key=lambda c: (-row[c], order.index(c)))
        rest = ["object"] + [c for c in order if c != "object"]
        ranked += [c for c in rest if c not in ranked]
        if coarse:
            seen, cr = set(), []
            for c in ranked:
                cc = coarse_class(c)
                if cc not in seen:
                    seen.add(cc)
                    cr.append(cc)
            ranked, target = cr, coarse_class(ex.cls)
        else:
            target = ex.cls
        for k in ks:
            hits[k] += target in ranked[:k]
    n = max(1, len(examples))
    return {f"top{k}": round(hits[k] / n, 4) for k in ks}


# -- the summary -----------------------------------------------------------------

def summary(manifest: dict, info: Optional[dict] = None) -> str:
    """A markdown report of a manifest (and of the dataset's ``info``):
    totals, then one row per source."""
    runs = manifest.get("projects", {})
    per = (info or {}).get("per_project", {})
    used = [r for r in runs.values() if r.get("state") in ("ok", "timeout")]
    states: Dict[str, int] = {}
    for r in runs.values():
        states[r.get("state", "?")] = states.get(r.get("state", "?"), 0) + 1
    pypi = sum(1 for r in used if r.get("kind", "pypi") == "pypi")
    lines = [f"sources: {len(runs)} ({', '.join(f'{v} {k}' for k, v in sorted(states.items()))});"
             f" used: {pypi} PyPI projects, {len(used) - pypi} stdlib test modules",
             f"raw events: {sum(r.get('events', 0) for r in used):,}"]
    if info:
        lines.append(f"dataset: {info['examples']:,} examples ({info['duplicates']:,} duplicates, "
                     f"{info['capped']:,} capped), {info['names']:,} names; train "
                     f"{info['train']:,} / test {info['test']:,}; held out: "
                     + ", ".join(info["heldout_projects"]))
    lines += ["", "| source | version | state | tests | failures | events | examples | capped "
              "| seconds | split |", "|" + " --- |" * 10]
    for n in sorted(runs):
        r = runs[n]
        d = per.get(n, {})
        note = r.get("state", "?")
        if r.get("error"):
            note += ": " + r["error"].replace("|", "/")[:80]
        lines.append(f"| {n} | {r.get('version', '')} | {note} | {r.get('tests', 0)} | "
                     f"{r.get('failures', 0)} | {r.get('events', 0):,} | "
                     f"{d.get('examples', r.get('examples', 0)):,} | "
                     f"{d.get('capped', r.get('capped', 0)):,} | {r.get('seconds', '')} | "
                     f"{d.get('split', '')} |")
    return "\n".join(lines) + "\n"


# -- the command -----------------------------------------------------------------

def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lexecutor_c.model.training.collect",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="data", help="cache and output directory (default: data)")
    ap.add_argument("--projects", default=None,
                    help="comma-separated project names of projects.PROJECTS (default: all)")
    ap.add_argument("--stdlib", default=",".join(STDLIB),
                    help="comma-separated stdlib test modules ('' for none)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--executor", default="dask",
                    help="where the tasks run (lexecutor_c.engine.executors): dask (a "
                         "LocalCluster, default), local (a process pool), ray, or "
                         "dask://HOST:PORT / ray://HOST:PORT")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds per test suite (then it is killed; events kept)")
    ap.add_argument("--install-timeout", type=float, default=600,
                    help="seconds for each pip download / install")
    ap.add_argument("--offline", action="store_true",
                    help="no pip: sdists from DATA/sdists, dependencies from DATA/envs if there")
    ap.add_argument("--retry", nargs="?", const="timeout,failed", default="",
                    help="run the projects in these states again (default with the "
                         "option: timeout,failed)")
    ap.add_argument("--force", action="store_true", help="run every chosen project again")
    ap.add_argument("--skip-record", "--no-record", dest="skip_record", action="store_true",
                    help="run nothing; only rebuild the dataset and the table")
    ap.add_argument("--no-dataset", action="store_true", help="record only")
    ap.add_argument("--seed", type=int, default=0, help="seed of the held-out project choice")
    ap.add_argument("--heldout", default=None,
                    help="comma-separated held-out projects (default: --heldout-fraction "
                         "of the PyPI projects, chosen by --seed)")
    ap.add_argument("--heldout-fraction", type=float, default=0.1)
    ap.add_argument("--cap", type=int, default=300,
                    help="most examples per (project, name, kind, class); 0: no cap")
    ap.add_argument("--summary", action="store_true",
                    help="print the manifest as a markdown table (run nothing)")
    ap.add_argument("--table", default=None,
                    help="where to write the frequency table (default DATA/frequency.json.gz)")
    args = ap.parse_args(argv)

    if args.workers < 1:
        ap.error("--workers must be at least 1")
    known = {p.name: p for p in PROJECTS}
    if args.projects is None:
        names = list(known)
    else:
        names = [p.strip() for p in args.projects.split(",") if p.strip()]
    bad = sorted(n for n in names if forbidden(n))
    if bad:
        ap.error("reserved (evaluation) and development-set projects cannot be training data: "
                 + ", ".join(bad))
    chosen: List[Project] = []
    for n in names:
        if n in known:
            chosen.append(known[n])
        elif "==" in n:      # name==version: a project not (yet) in the list
            nm, ver = n.split("==", 1)
            if forbidden(nm):
                ap.error(f"reserved (evaluation) and development-set projects cannot be "
                         f"training data: {nm}")
            chosen.append(Project(nm, ver))
        elif args.offline:   # a local sdist of any version
            chosen.append(Project(n, ""))
        else:
            ap.error(f"unknown project {n!r}: not in lexecutor_c/model/training/projects.py "
                     "(give NAME==VERSION for another)")
    tests = [t for t in args.stdlib.split(",") if t]
    unknown = [t for t in tests if t not in STDLIB]
    if unknown:
        ap.error(f"unknown stdlib test modules: {', '.join(unknown)} (known: {', '.join(STDLIB)})")

    data = os.path.abspath(args.data)
    mpath = os.path.join(data, "manifest.json")
    manifest = load_manifest(mpath)
    if args.summary:
        try:
            with open(os.path.join(data, "dataset", "dataset.json")) as f:
                info = json.load(f)
        except (OSError, ValueError):
            info = None
        sys.stdout.write(summary(manifest, info))
        return 0
    os.makedirs(os.path.join(data, "events"), exist_ok=True)
    cap = args.cap or None
    if not args.skip_record:
        all_names = [p.name for p in chosen] + [f"stdlib-{t}" for t in tests]
        retry = {x for x in args.retry.split(",") if x}
        if retry - {"timeout", "failed", "ok"}:
            ap.error(f"--retry takes states among timeout, failed, ok, not {args.retry!r}")
        todo = set(to_run(all_names, manifest, retry, args.force))
        tasks: Dict[str, tuple] = {}
        for p in chosen:
            if p.name in todo:
                if not p.version:
                    found = find_sdist(p.name, None, os.path.join(data, "sdists"))
                    ver = os.path.basename(found or "x-").rsplit("-", 1)[1].split(".tar")[0]
                    p = p._replace(version=ver)
                tasks[p.name] = (run_project, (p, data),
                                 {"offline": args.offline, "timeout": args.timeout,
                                  "install_timeout": args.install_timeout, "cap": cap})
        std = [t for t in tests if f"stdlib-{t}" in todo]
        # the (short) stdlib runs spread among the projects: one after every
        # ``every`` projects, so that a partial run has some of both
        every = max(1, len(tasks) // max(1, len(std)))
        ordered: Dict[str, tuple] = {}
        for i, (n, task) in enumerate(tasks.items()):
            ordered[n] = task
            if std and i % every == every - 1:
                t = std.pop(0)
                ordered[f"stdlib-{t}"] = (run_stdlib, (t, data),
                                          {"timeout": args.timeout, "cap": cap})
        for t in std:
            ordered[f"stdlib-{t}"] = (run_stdlib, (t, data), {"timeout": args.timeout, "cap": cap})
        tasks = ordered
        skipped = len(all_names) - len(tasks)
        log(f"{len(tasks)} to run on {args.workers} workers, {skipped} done before "
            f"(--retry / --force run them again)")
        from ...engine.executors import ExecutorError
        try:
            run_all(tasks, manifest, mpath, args.workers, args.executor)
        except ExecutorError as e:
            ap.error(str(e))
    if args.no_dataset:
        return 0
    use = {n for n, r in manifest["projects"].items()
           if r.get("state") in ("ok", "timeout") and r.get("events", 0) > 0}
    events = sorted(p for p in glob.glob(os.path.join(data, "events", "*.jsonl.gz"))
                    if ds.project_of(p) in use)
    if not events:
        log("no events files: nothing to build")
        return 1
    if args.heldout is not None:
        heldout = [h for h in args.heldout.split(",") if h]
    else:
        pypi = sorted(n for n in use if manifest["projects"][n].get("kind", "pypi") == "pypi")
        heldout = ds.choose_heldout(pypi, args.heldout_fraction, args.seed)
    info, examples = ds.build(events, os.path.join(data, "dataset"), heldout=heldout,
                              seed=args.seed, cap=cap)
    t_train = ds.class_counts(ds.read_examples(os.path.join(data, "dataset", "train.jsonl.gz")))
    test = ds.read_examples(os.path.join(data, "dataset", "test.jsonl.gz"))
    if test:
        info["frequency_project_split"] = {"fine": topk_frequency(t_train, test),
                                           "coarse": topk_frequency(t_train, test, coarse=True)}
    table_path = args.table or os.path.join(data, "frequency.json.gz")
    table = ds.class_counts(examples)
    meta = {"events": info["events"], "examples": len(examples), "names": len(table),
            "projects": sorted({ex.project for ex in examples}), "seed": args.seed}
    save_frequency_table(table_path, table, meta)
    info["table"] = table_path
    ds.write_info(os.path.join(data, "dataset"), info)
    # re-read: a collection running beside this build may have written it since
    manifest = load_manifest(mpath)
    manifest["dataset"] = {k: v for k, v in info.items() if k != "per_project"}
    save_manifest(mpath, manifest)
    log(json.dumps(manifest["dataset"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
