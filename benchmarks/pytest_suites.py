"""pytest --lexecute on real projects' test suites (issue 24).

    python -m benchmarks.pytest_suites [--project NAME ...] [--json FILE] [--cache DIR]

For each project (an sdist from PyPI, pinned below, with its test suite inside) three
runs of its suite, each typed as a user would (``pytest PATHS``, from the extracted
sdist's root), each in its own virtual environment (no system site-packages):

* ``a``: everything installed (runtime dependencies and test plugins), plain ``pytest``;
* ``b``: the same environment, ``pytest --lexecute``;
* ``c``: the test plugins and a third of the runtime dependencies (rounded up)
  not installed, ``pytest --lexecute``.

lexecutor_c comes from this checkout (``PYTHONPATH``) and is loaded with ``-p
lexecutor_c.integrations.pytest_plugin`` (the environments have no entry point for it).
Every run gets ``--continue-on-collection-errors`` (a test module that cannot be imported
counts as an error, the others run) and ``--tb=line`` (pytest's own long tracebacks parse
the file of every traceback entry again: minutes for hundreds of failures).
Printed per row: passed / failed (real, made-up, unknown) / errors / seconds, and for
``b`` how many tests have the same outcome as in ``a``; ``c``'s verdicts come from the
plugin's JSON report (``--lexecute-report``).  Targets (issue 24): ``b`` agrees with
``a`` on at least 99% of tests; in ``c`` at least 90% of failures get ``real`` or
``made-up``.  The environments are cached under ``--cache`` (built once, with pip).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: what every environment gets besides the project (lexecutor_c's own runtime needs)
BASE = ["pytest==9.0.3", "tree-sitter-python==0.23.6"]


@dataclass
class Project:
    name: str
    version: str
    runtime: list            # pinned runtime dependencies
    plugins: list            # pinned test dependencies (plugins and test-only libraries)
    dropped: list            # runtime dependencies left out in run c (a third, rounded up)
    args: list               # pytest arguments, as typed from the sdist root
    sdist_name: str = ""

    @property
    def sdist(self) -> str:
        return f"{self.sdist_name or self.name}-{self.version}"


PROJECTS = {
    "humanize": Project("humanize", "4.15.0", runtime=[], plugins=["freezegun==1.5.5"],
                        dropped=[], args=["tests"]),
    "python-dateutil": Project(
        "python-dateutil", "2.9.0.post0", runtime=["six==1.17.0"],
        plugins=["freezegun==1.5.5", "hypothesis==6.170.17", "mock==5.2.0",
                 "pytest-cov==7.0.0"],
        dropped=["six==1.17.0"], args=["tests"]),
    "glom": Project("glom", "24.11.0",
                    runtime=["boltons==26.2.0", "attrs==26.1.0", "face==26.0.1"],
                    plugins=["PyYAML==6.0.4"], dropped=["boltons==26.2.0"],
                    args=["glom/test"]),
}


def _cache_dir(arg) -> Path:
    if arg:
        return Path(arg)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lexecutor_c" / "pytest_suites"


def _pip(venv: Path, *args: str) -> None:
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                    "--disable-pip-version-check", *args], check=True)


def prepare(p: Project, cache: Path) -> tuple[Path, Path, Path]:
    """(source tree, full venv, reduced venv), built once."""
    cache.mkdir(parents=True, exist_ok=True)
    src = cache / p.sdist
    if not (src / ".extracted").exists():
        dl = cache / "sdists"
        dl.mkdir(exist_ok=True)
        found = [f for f in dl.glob("*.tar.gz") if f.name.lower().replace("_", "-")
                 == f"{p.sdist}.tar.gz".lower()]
        if not found:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                            "--no-binary", ":all:", f"{p.name}=={p.version}", "-d", str(dl)],
                           check=True)
            found = [f for f in dl.glob("*.tar.gz") if f.name.lower().replace("_", "-")
                     == f"{p.sdist}.tar.gz".lower()]
        with tarfile.open(found[0]) as tf:
            tf.extractall(cache, filter="data")
        (src / ".extracted").write_text("")
    venvs = []
    for kind in ("full", "reduced"):
        venv = cache / f"venv-{p.name}-{kind}"
        if not (venv / ".ready").exists():
            if venv.exists():
                shutil.rmtree(venv)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            deps = p.runtime + p.plugins if kind == "full" else \
                [d for d in p.runtime if d not in p.dropped]
            _pip(venv, *BASE)
            if deps:
                # the reduced environment without what pip would bring back (face needs
                # boltons): the pinned list is complete for the projects here
                _pip(venv, *(["--no-deps"] if kind == "reduced" else []), *deps)
            _pip(venv, "--no-deps", str(src))
            (venv / ".ready").write_text(" ".join(deps))
        venvs.append(venv)
    return src, venvs[0], venvs[1]


@dataclass
class Row:
    project: str
    run: str
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    xfailed: int = 0
    seconds: float = 0.0
    real: int = 0
    made_up: int = 0
    unknown: int = 0
    agree: str = ""
    outcomes: dict = field(default_factory=dict, repr=False)
    report: dict = field(default_factory=dict, repr=False)


def _outcomes(junit: Path) -> dict:
    """nodeid-like key -> outcome, from pytest's JUnit XML."""
    out = {}
    try:
        tree = ET.parse(junit)
    except (OSError, ET.ParseError):
        return out
    for tc in tree.iter("testcase"):
        key = f"{tc.get('classname')}::{tc.get('name')}"
        tags = {c.tag for c in tc}
        if "failure" in tags:
            o = "failed"
        elif "error" in tags:
            o = "error"
        elif "skipped" in tags:
            o = "skipped"
        else:
            o = "passed"
        out[key] = o
    return out


def run_suite(p: Project, src: Path, venv: Path, run: str, lexecute: bool,
              workdir: Path, timeout: float) -> Row:
    junit = workdir / f"{p.name}-{run}.xml"
    report = workdir / f"{p.name}-{run}.json"
    for f in (junit, report):
        if f.exists():
            f.unlink()
    cmd = [str(venv / "bin" / "python"), "-m", "pytest", *p.args, "-q", "-p",
           "no:cacheprovider", f"--junitxml={junit}", "-o", "junit_family=xunit1",
           "--continue-on-collection-errors", "--tb=line"]
    if lexecute:
        cmd += ["-p", "lexecutor_c.integrations.pytest_plugin", "--lexecute",
                f"--lexecute-report={report}", "--lexecute-no-report"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS",)}
    env["PYTHONPATH"] = str(ROOT)
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=str(src), env=env, capture_output=True, text=True,
                       timeout=timeout)
    row = Row(p.name, run, seconds=time.monotonic() - t0)
    row.outcomes = _outcomes(junit)
    for o in row.outcomes.values():
        if o == "passed":
            row.passed += 1
        elif o == "failed":
            row.failed += 1
        elif o == "error":
            row.errors += 1
        elif o == "skipped":
            row.skipped += 1
    if not row.outcomes:
        sys.stderr.write(f"{p.name} {run}: no JUnit report (exit {r.returncode})\n"
                         f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}\n")
    if lexecute and report.exists():
        row.report = json.loads(report.read_text())
        for t in row.report.get("tests", []):
            if t.get("outcome") != "failed":
                continue
            v = t.get("verdict")
            if v == "real":
                row.real += 1
            elif v == "made-up":
                row.made_up += 1
            else:
                row.unknown += 1
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project", action="append", choices=sorted(PROJECTS))
    ap.add_argument("--cache", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--prepare-only", action="store_true")
    ns = ap.parse_args(argv)
    cache = _cache_dir(ns.cache)
    names = ns.project or list(PROJECTS)
    work = cache / "runs"
    work.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    for name in names:
        p = PROJECTS[name]
        src, full, reduced = prepare(p, cache)
        if ns.prepare_only:
            continue
        a = run_suite(p, src, full, "a", False, work, ns.timeout)
        b = run_suite(p, src, full, "b", True, work, ns.timeout)
        c = run_suite(p, src, reduced, "c", True, work, ns.timeout)
        same = sum(1 for k, o in a.outcomes.items() if b.outcomes.get(k) == o)
        b.agree = f"{same}/{len(a.outcomes)}"
        rows += [a, b, c]
        _print(rows[-3:])
    if ns.prepare_only:
        return 0
    print()
    _print(rows)
    if ns.json:
        Path(ns.json).write_text(json.dumps([{k: v for k, v in r.__dict__.items()
                                              if k not in ("outcomes", "report")}
                                             for r in rows], indent=1))
    return 0


RUNS = {"a": "everything installed, plain", "b": "everything installed, --lexecute",
        "c": "plugins + 1/3 deps missing, --lexecute"}


def _print(rows) -> None:
    print("| project | run | passed | failed (real / made-up / unknown) | errors | skipped "
          "| seconds | same outcome as a |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        verdicts = f" ({r.real} / {r.made_up} / {r.unknown})" if r.run != "a" else ""
        print(f"| {r.project} | {r.run}: {RUNS[r.run]} | {r.passed} | {r.failed}{verdicts} | "
              f"{r.errors} | {r.skipped} | {r.seconds:.1f} | {r.agree} |")


if __name__ == "__main__":
    sys.exit(main())
