"""A non-editable install, as a user gets it: ``python -m build`` (sdist, then the wheel built
from the sdist) on a clean copy of this working tree, the wheel installed into a fresh
virtual environment (no system site-packages; its dependencies from the package index),
and a smoke test there: the API, every command, the shipped data files, the pytest plugin
(with and without the C extension), the Jupyter magics, and the neural predictor's message
where torch is not installed.

The suite's editable install hides a missing file or subpackage; this test does not.  It
builds with --no-build-isolation against the installed setuptools and torch (the torch shim
links that torch) and lets pip reuse its cache.  Marked ``wheel`` (and ``slow``):
``make test`` runs it, ``-m "not wheel"`` deselects it.  LX_WHEEL_TEST_KEEP=DIR keeps the
build and the venv in DIR; ``--durations`` shows the build and install time (the setup of
the first test)."""
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

from conftest import clean_copy

pytestmark = [pytest.mark.wheel, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parent.parent
HAVE_TORCH = importlib.util.find_spec("torch") is not None
#: build-time switches of setup.py that must not leak into the user's build
_BUILD_SWITCHES = ("LX_NO_TORCH", "LX_SANITIZE", "LX_DEBUG", "PYTHONPATH")


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in _BUILD_SWITCHES and not k.startswith("PYTEST_")}
    env.update(extra)
    return env


def _run(cmd, timeout=600, **kw):
    kw.setdefault("env", _env())
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout,
                       **kw)
    return p


def _check(p):
    assert p.returncode == 0, f"{p.args}\n--- stdout\n{p.stdout[-4000:]}\n--- stderr\n" \
                              f"{p.stderr[-4000:]}"
    return p


class Installed:
    def __init__(self, base: pathlib.Path):
        self.base = base
        self.src = base / "src"
        self.dist = base / "dist"
        self.venv = base / "venv"
        self.work = base / "work"

    @property
    def python(self):
        return self.venv / "bin" / "python"

    @property
    def cli(self):
        return self.venv / "bin" / "lexecutor-c"

    def wheel(self) -> pathlib.Path:
        (w,) = self.dist.glob("lexecutor_c-*.whl")
        return w

    def sdist(self) -> pathlib.Path:
        (s,) = self.dist.glob("lexecutor_c-*.tar.gz")
        return s

    def run(self, *cmd, timeout=300, env=None, cwd=None):
        return _run(cmd, timeout=timeout, cwd=str(cwd or self.work),
                    env=env or _env(VIRTUAL_ENV=str(self.venv)))


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    if importlib.util.find_spec("build") is None:
        pytest.fail("the wheel test needs `build`: pip install build (a test dependency: "
                    "Makefile PYDEPS, pyproject's test extra)")
    keep = os.environ.get("LX_WHEEL_TEST_KEEP")
    base = pathlib.Path(keep) if keep else tmp_path_factory.mktemp("wheel")
    if keep and base.exists():
        shutil.rmtree(base)
    inst = Installed(base)
    for d in (inst.src, inst.dist, inst.work):
        d.mkdir(parents=True)
    clean_copy(str(inst.src))

    _check(_run([sys.executable, "-m", "build", "--no-isolation", "--outdir", inst.dist,
                 inst.src], timeout=900, cwd=str(inst.src)))

    _check(_run([sys.executable, "-m", "venv", "--without-pip", inst.venv]))
    # the outer pip installs into the venv (--python): no pip bootstrap in the venv
    _check(_run([sys.executable, "-m", "pip", "--python", inst.python, "install", "-q",
                 "--disable-pip-version-check", inst.wheel(), "pytest>=7", "ipython>=8"],
                timeout=600))
    return inst


# ---------------------------------------------------------------- what was built

def test_wheel_holds_every_file_of_the_package(installed):
    """Every file under lexecutor_c/ of a clean checkout is in the wheel (subpackages,
    shipped models and data, py.typed, the stub), plus the built extensions."""
    src_pkg = installed.src / "lexecutor_c"
    wanted = {p.relative_to(installed.src).as_posix() for p in src_pkg.rglob("*")
              if p.is_file()}
    with zipfile.ZipFile(installed.wheel()) as z:
        names = set(z.namelist())
    missing = sorted(wanted - names)
    assert missing == [], f"files of the checkout missing from the wheel: {missing}"
    assert any(n.startswith("lexecutor_c/_core.") and n.endswith(".so") for n in names)
    assert any(n.startswith("lexecutor_c/_torch_shim.") for n in names) == HAVE_TORCH
    for must in ("lexecutor_c/model/neural.pt", "lexecutor_c/model/frequency.json.gz",
                 "lexecutor_c/examples/lexecutor_figure1.py", "lexecutor_c/py.typed",
                 "lexecutor_c/_core.pyi"):
        assert must in names
    meta = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    with zipfile.ZipFile(installed.wheel()) as z:
        entry_points = z.read(meta).decode()
    assert "lexecutor-c = lexecutor_c.cli:main" in entry_points
    assert "lexecutor_c = lexecutor_c.integrations.pytest_plugin" in entry_points


def test_sdist_builds_the_wheel(installed):
    """python -m build made the wheel from the sdist, so the sdist carries the C sources and
    headers (setup.py's depends) as well as setup.py and pyproject.toml."""
    import tarfile
    with tarfile.open(installed.sdist()) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    assert "csrc/lx.h" in names and "setup.py" in names and "pyproject.toml" in names
    assert any(n.startswith("csrc/runtime/") and n.endswith(".h") for n in names)


# ---------------------------------------------------------------- the installed package

SMOKE = r'''
import json, os, sys, importlib.resources as res
import lexecutor_c as lx
facts = {"file": lx.__file__, "version": lx.__version__}
r = lx.run("x = foo()\nprint(x.bar)\n", timeout=5)
facts["run"] = [r.status, r.coverage, len(r.injections)]
r = lx.run("n = len(items)\n", predictor="frequency", timeout=5)     # the shipped table
facts["frequency"] = [r.status, [i["cls"] for i in r.injections]]
facts["instrument"] = lx.instrument("x = y\n").source
t = lx.treefix("print(value.upper())\n", n=2, k=1, budget=20)
facts["treefix"] = t.coverage
facts["dummy"] = repr(lx.Dummy("d"))
def uses_missing():
    return missing_thing
facts["call"] = lx.call(uses_missing).ok
pkg = res.files("lexecutor_c")
facts["data"] = {name: (pkg / name).is_file() for name in (
    "model/neural.pt", "model/frequency.json.gz", "examples/lexecutor_figure1.py",
    "py.typed", "_core.pyi")}
facts["torch_importable"] = __import__("importlib.util").util.find_spec("torch") is not None
print(json.dumps(facts))
'''


def test_api_and_shipped_data(installed):
    (installed.work / "smoke.py").write_text(SMOKE)        # a file: lx.call needs source
    p = _check(installed.run(installed.python, "smoke.py"))
    facts = json.loads(p.stdout.strip().splitlines()[-1])
    site = str(installed.venv)
    assert facts["file"].startswith(site), facts["file"]      # not the checkout
    assert facts["version"] == _check(installed.run(installed.cli, "--version")).stdout \
        .split()[-1]
    assert facts["run"][0] == "ok" and facts["run"][1] == 1.0 and facts["run"][2] >= 1
    assert facts["frequency"][0] == "ok" and facts["frequency"][1]
    assert facts["instrument"] == 'x = _n_(1, "y"); _l_(2)\n'
    assert facts["treefix"] == 1.0
    assert facts["dummy"] == "<Dummy 'd'>"
    assert facts["call"] is True
    assert all(facts["data"].values()), facts["data"]
    assert facts["torch_importable"] is False               # a fresh venv: no torch


def test_every_command(installed):
    w = installed.work
    (w / "snippet.py").write_text("data = load(path)\nprint(data.rows[0])\n")
    (w / "own_error.py").write_text("items = []\nfirst = items[0]\n")
    ok = {}
    for argv, expect in [
            (["run", "snippet.py"], 0),
            (["instrument", "snippet.py"], 0),
            (["treefix", "snippet.py", "--budget", "10", "-n", "2", "-k", "1"], 0),
            (["trace", "snippet.py"], 0),
            (["errors", "own_error.py", "--seeds", "1"], 1),
            (["demo"], 0)]:
        p = installed.run(installed.cli, argv[0], "--json", *argv[1:])
        assert p.returncode == expect, (argv, p.stderr[-2000:])
        ok[argv[0]] = json.loads(p.stdout)["version"]
    repo = w / "repo"
    repo.mkdir()
    for args in (["init", "-q"], ["config", "user.email", "t@example.org"],
                 ["config", "user.name", "t"]):
        _check(installed.run("git", *args, cwd=repo))
    (repo / "m.py").write_text("def label(n):\n    return 'item' + str(n)\n")
    _check(installed.run("git", "add", "-A", cwd=repo))
    _check(installed.run("git", "commit", "-qm", "one", cwd=repo))
    (repo / "m.py").write_text("def label(n):\n    return 'item-' + str(n)\n")
    _check(installed.run("git", "commit", "-qam", "two", cwd=repo))
    p = installed.run(installed.cli, "commits", "--json", "--seeds", "1", "--fail-on-change",
                      cwd=repo)
    assert p.returncode == 1, p.stderr
    assert json.loads(p.stdout)["summary"]["changed"] == 1
    p = installed.run(installed.cli, "record", "--json", "--out", "ev.jsonl.gz", "--include",
                      "json", "--", installed.python, "-c", "import json; json.dumps([1])")
    assert p.returncode == 0 and json.loads(p.stdout)["events"] > 0, p.stderr
    assert _check(installed.run(installed.python, "-m", "lexecutor_c", "--help")).stdout \
        .count("exit status:") == 1


def test_neural_predictor_says_torch_is_missing(installed):
    (installed.work / "n.py").write_text("x = foo()\n")
    p = installed.run(installed.cli, "run", "--predictor", "neural", "n.py")
    assert p.returncode == 2
    assert "PyTorch is not installed in this environment" in p.stderr
    assert "pip install 'lexecutor_c[neural]'" in p.stderr and "Traceback" not in p.stderr


PROJECT_CORE = "import requests_not_installed as requests\n\n\ndef status(url):\n" \
               "    return requests.get(url).status_code\n"
PROJECT_TEST = "import freezegun_not_installed\n\nfrom proj.core import status\n\n\n" \
               "def test_status():\n    assert status('http://example.com') is not None\n"
PLAIN_TEST = textwrap.dedent('''
    import sys

    def test_plain():
        assert "lexecutor_c.integrations.pytest_plugin" in sys.modules
        assert not [m for m in ("lexecutor_c._core", "torch") if m in sys.modules]
''')


def test_pytest_plugin(installed):
    proj = installed.work / "project"
    (proj / "proj").mkdir(parents=True)
    (proj / "proj" / "__init__.py").write_text("")
    (proj / "proj" / "core.py").write_text(PROJECT_CORE)
    (proj / "tests").mkdir()
    (proj / "tests" / "test_core.py").write_text(PROJECT_TEST)
    plain = installed.run(installed.python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          cwd=proj)
    assert plain.returncode == 2 and "freezegun_not_installed" in plain.stdout
    p = installed.run(installed.python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                      "--lexecute", cwd=proj)
    assert p.returncode == 0, p.stdout[-3000:]
    assert "1 passed" in p.stdout and "lexecutor_c: injected values" in p.stdout
    other = installed.work / "other"
    other.mkdir()
    (other / "test_plain.py").write_text(PLAIN_TEST)
    p = installed.run(installed.python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                      cwd=other)
    assert p.returncode == 0 and "1 passed in" in p.stdout, p.stdout[-3000:]


def test_pytest_plugin_without_the_extension_warns_once(installed):
    """The installed package's Python files without its extensions, first on sys.path: the
    installed entry point loads the plugin, which warns once and leaves the run alone."""
    site = installed.work / "broken"
    (lib,) = installed.venv.glob("lib/python*/site-packages/lexecutor_c")
    shutil.copytree(lib, site / "lexecutor_c", ignore=shutil.ignore_patterns("*.so"))
    other = installed.work / "other2"
    other.mkdir()
    (other / "test_plain.py").write_text("def test_plain():\n    pass\n")
    p = installed.run(installed.python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                      cwd=other, env=_env(PYTHONPATH=str(site)))
    assert p.returncode == 0, p.stdout[-3000:]
    assert "1 passed, 1 warning" in p.stdout
    assert p.stdout.count("LexecutorUnavailableWarning:") == 1


MAGICS = r'''
from IPython.testing.globalipapp import get_ipython
ip = get_ipython()
ip.run_line_magic("load_ext", "lexecutor_c")
report = ip.run_cell_magic("lexecute", "", "n = len(all_data)\nresult = helper(n)\n")
print(sorted({i.name for i in report.injections}), ip.user_ns["n"])
'''


def test_jupyter_magics(installed):
    p = _check(installed.run(installed.python, "-c", MAGICS))
    assert p.stdout.strip().splitlines()[-1] == "['all_data', 'helper'] 1"

