"""A non-editable install, as a user gets it, for each release wheel: ``make wheels`` on a
clean copy of this working tree (the sdist, then from it one wheel per CPython 3.11, 3.12 and
3.13, each repaired by auditwheel into a manylinux wheel that bundles libtree-sitter,
libcjson, libcurl and libseccomp), each wheel installed into a fresh virtual environment of
its Python (no system site-packages; its dependencies from the package index), and smoke
tests there: the API, every command, the shipped data files, the pytest plugin (with and
without the C extension), the Jupyter magics, and the neural predictor's message where torch
is not installed.

Every command of the installed package runs in a mount namespace (``unshare -m``, root only)
where the system's copies of the libraries the wheel bundles (libtree-sitter, libcjson,
libcurl with its TLS, HTTP/2, Kerberos and LDAP libraries, libseccomp) are hidden: /dev/null
is bind-mounted over each, as on a machine without those packages.  ``auditwheel show``
checks the tag and that no library (torch's neither) is left outside the wheel.

The suite's editable install hides a missing file or subpackage; this test does not.
``LX_WHEELHOUSE=DIR`` takes the artefacts from DIR (``make release-check`` passes the dist/
it just built) instead of building them.  Marked ``wheel`` (and ``slow``): ``make test``
runs it, ``-m "not wheel"`` deselects it.  LX_WHEEL_TEST_KEEP=DIR keeps the build and the
venvs in DIR; ``--durations`` shows the build and install times (the setup of the first
test of each wheel)."""
import importlib.util
import json
import os
import pathlib
import re
import shlex
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
_BUILD_SWITCHES = ("LX_NO_TORCH", "LX_SANITIZE", "LX_DEBUG", "PYTHONPATH", "LX_RELEASE_BUILD")
#: the wheels `make wheels` builds (Makefile RELEASE_PYTHONS) and the tag they get (MANYLINUX)
PYTHONS = ("3.11", "3.12", "3.13")
MANYLINUX = "manylinux_2_34_x86_64"
#: the libraries the wheels must carry (the four the extension links)
BUNDLED = ("libtree-sitter", "libcjson", "libcurl", "libseccomp")
#: never in the wheel nor named by it: the torch shim uses the torch installed beside it
TORCH_LIBS = {"libc10.so", "libtorch_cpu.so", "libgomp.so.1"}
SYSTEM_LIBDIRS = ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64",
                  "/usr/lib", "/usr/local/lib")


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


def _interpreter(version):
    """This machine's CPython *version*: on PATH, else under pyenv's versions (as the
    Makefile's PYTHON lookup)."""
    found = shutil.which(f"python{version}")
    if found and _run([found, "-c", ""]).returncode == 0:
        return found
    root = _run(["pyenv", "root"]).stdout.strip() if shutil.which("pyenv") else ""
    root = root or os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    cands = sorted(pathlib.Path(root).glob(f"versions/{version}*/bin/python{version}"))
    return str(cands[-1]) if cands else None


def _unprefixed(grafted):
    """auditwheel's name of a bundled library -> the system's file name:
    libcurl-02fbea31.so.4.8.0 -> libcurl.so.4.8.0, liblber-2-64f183c1.5.so.0.1.8 ->
    liblber-2.5.so.0.1.8."""
    return re.sub(r"-[0-9a-f]{8}(?=\.)", "", grafted, count=1)


def interpreter_libraries(python):
    """The system libraries the interpreter itself links (its binary and its own extension
    modules: _ctypes -> libffi, _ssl -> libssl, ...): they are there wherever that Python
    runs, so they stay visible even where the wheel bundles a copy of one."""
    code = ("import glob, os, sys, sysconfig\n"
            "print(os.path.realpath(sys.executable))\n"
            "for f in glob.glob(os.path.join(sysconfig.get_config_var('DESTSHARED'), '*.so')):\n"
            "    print(f)\n")
    files = _check(_run([python, "-c", code])).stdout.split()
    found = set()
    for f in files:
        for line in _run(["ldd", f]).stdout.splitlines():
            if "=> /" in line:
                found.add(os.path.realpath(line.split("=>")[1].split()[0]))
    return found


def system_copies(wheel):
    """The files on this system that the wheel's lexecutor_c.libs/ are copies of."""
    with zipfile.ZipFile(wheel) as z:
        grafted = [pathlib.PurePosixPath(n).name for n in z.namelist()
                   if n.startswith("lexecutor_c.libs/")]
    found = set()
    for name in grafted:
        for d in SYSTEM_LIBDIRS:
            p = pathlib.Path(d, _unprefixed(name))
            if p.exists():
                found.add(os.path.realpath(p))
    return sorted(found)


class Installed:
    """One repaired wheel installed in a fresh venv; ``run`` runs a command with the
    system's copies of the wheel's bundled libraries hidden."""

    def __init__(self, base: pathlib.Path, dist: pathlib.Path, src: pathlib.Path,
                 version: str):
        self.base = base
        self.src = src
        self.dist = dist
        self.version = version
        self.venv = base / "venv"
        self.work = base / "work"
        self.hidden = []        # the system's copies of the bundled libraries
        self.kept = []          # ... less those the interpreter itself links

    @property
    def python(self):
        return self.venv / "bin" / "python"

    @property
    def cli(self):
        return self.venv / "bin" / "lexecutor-c"

    def wheel(self) -> pathlib.Path:
        tag = "cp" + self.version.replace(".", "")
        (w,) = self.dist.glob(f"lexecutor_c-*-{tag}-{tag}-*.whl")
        return w

    def sdist(self) -> pathlib.Path:
        (s,) = self.dist.glob("lexecutor_c-*.tar.gz")
        return s

    def hide(self, cmd):
        """*cmd* run in a private mount namespace with /dev/null over each hidden file."""
        mounts = "".join(f"mount --bind /dev/null {shlex.quote(f)} && " for f in self.hidden)
        return ["unshare", "-m", "--propagation", "private", "sh", "-c",
                mounts + 'exec "$@"', "hidden-libs", *cmd]

    def run(self, *cmd, timeout=300, env=None, cwd=None):
        return _run(self.hide(cmd), timeout=timeout, cwd=str(cwd or self.work),
                    env=env or _env(VIRTUAL_ENV=str(self.venv)))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(dist, src): the artefacts of `make wheels` on a clean copy (or LX_WHEELHOUSE's)."""
    keep = os.environ.get("LX_WHEEL_TEST_KEEP")
    base = pathlib.Path(keep) if keep else tmp_path_factory.mktemp("wheel")
    if keep and base.exists():
        shutil.rmtree(base)
    src, out = base / "src", base / "out"
    for d in (src, out):
        d.mkdir(parents=True)
    clean_copy(str(src))
    house = os.environ.get("LX_WHEELHOUSE")
    if house:
        return pathlib.Path(house), src
    if shutil.which("make") is None:
        pytest.fail("the wheel test runs `make wheels`: make is missing")
    _check(_run(["make", "-f", ROOT / "Makefile", "-C", out, "wheels", f"WHEEL_SRC={src}",
                 f"PYTHON={sys.executable}"], timeout=1800))
    return out / "dist", src


@pytest.fixture(scope="module", params=PYTHONS, ids=[f"py{v}" for v in PYTHONS])
def installed(request, built, tmp_path_factory):
    dist, src = built
    py = _interpreter(request.param)
    if py is None:
        pytest.fail(f"Python {request.param} is not installed (make wheels needs it too)")
    if _run(["unshare", "-m", "--propagation", "private", "true"]).returncode != 0:
        pytest.skip("unshare -m is not permitted here (needs root): the libraries cannot "
                    "be hidden")
    base = tmp_path_factory.mktemp(f"py{request.param}")
    inst = Installed(base, dist, src, request.param)
    inst.work.mkdir()
    inst.kept = sorted(set(system_copies(inst.wheel())) & interpreter_libraries(py))
    inst.hidden = sorted(set(system_copies(inst.wheel())) - set(inst.kept))
    _check(_run([py, "-m", "venv", "--without-pip", inst.venv]))
    # the outer pip installs into the venv (--python): no pip bootstrap in the venv
    _check(_run([sys.executable, "-m", "pip", "--python", inst.python, "install", "-q",
                 "--disable-pip-version-check", inst.wheel(), "pytest>=7", "ipython>=8"],
                timeout=600))
    return inst


# ---------------------------------------------------------------- what was built

def _has_shim(inst):
    with zipfile.ZipFile(inst.wheel()) as z:
        return any(n.startswith("lexecutor_c/_torch_shim.") for n in z.namelist())


def test_wheel_holds_every_file_of_the_package(installed):
    """Every file under lexecutor_c/ of a clean checkout is in the wheel (subpackages,
    shipped models and data, py.typed, the stub), plus the built extensions, the bundled
    libraries and the licence."""
    src_pkg = installed.src / "lexecutor_c"
    wanted = {p.relative_to(installed.src).as_posix() for p in src_pkg.rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".so"}
    with zipfile.ZipFile(installed.wheel()) as z:
        names = set(z.namelist())
        meta = {n.split("/", 1)[1]: n for n in names if ".dist-info/" in n}
        entry_points = z.read(meta["entry_points.txt"]).decode()
        metadata = z.read(meta["METADATA"]).decode()
        licence = z.read(meta["licenses/LICENSE"]).decode()
    missing = sorted(wanted - names)
    assert missing == [], f"files of the checkout missing from the wheel: {missing}"
    assert any(n.startswith("lexecutor_c/_core.") and n.endswith(".so") for n in names)
    # the shim is built only where torch was installed at build time (3.11 here)
    assert _has_shim(installed) == (installed.version == "3.11" and HAVE_TORCH)
    for must in ("lexecutor_c/model/neural.pt2", "lexecutor_c/model/frequency.json.gz",
                 "lexecutor_c/examples/lexecutor_figure1.py", "lexecutor_c/py.typed",
                 "lexecutor_c/_core.pyi"):
        assert must in names
    libs = [n.split("/")[1] for n in names if n.startswith("lexecutor_c.libs/")]
    for lib in BUNDLED:
        assert any(_unprefixed(n).startswith(lib + ".so") for n in libs), (lib, libs)
    assert not any("torch" in n or "c10" in n for n in libs), libs
    assert "lexecutor-c = lexecutor_c.cli:main" in entry_points
    assert "lexecutor_c = lexecutor_c.integrations.pytest_plugin" in entry_points
    assert "MIT License" in licence and "License-Expression: MIT" in metadata
    # the long description is the README, rendered as markdown
    assert "Description-Content-Type: text/markdown" in metadata
    readme = (installed.src / "README.md").read_text()
    assert readme.splitlines()[0] in metadata and "Requires-Dist: torch" in metadata


def test_auditwheel_show(installed):
    """The tag is manylinux (from the symbol versions: nothing newer than glibc 2.34) and no
    library is left outside the wheel: not even torch's, which the shim does not name (it
    takes torch's symbols from the torch installed beside it, loaded first)."""
    if importlib.util.find_spec("auditwheel") is None:
        pytest.fail("needs auditwheel: pip install auditwheel==6.8.2 (make wheels does)")
    w = installed.wheel()
    assert w.name.endswith(f"-{MANYLINUX}.whl"), w.name
    show = json.loads(_check(_run([sys.executable, "-m", "auditwheel", "show", "--json",
                                   w])).stdout)
    assert show["sym_tag"] == MANYLINUX and show["overall_tag"] == MANYLINUX, show
    assert show["external_libs"] == {}, show["external_libs"]
    assert not set(show["versioned_symbols"]) & TORCH_LIBS


def test_system_copies_are_hidden(installed):
    """The check below holds only if the hiding works: the system's libraries exist, are
    hidden in the namespace, and the checkout's own extension (built against them) then
    does not import there."""
    names = [os.path.basename(f) for f in installed.hidden]
    print(f"hidden: {len(names)} libraries: {' '.join(names)}; kept for the interpreter "
          f"itself: {' '.join(os.path.basename(f) for f in installed.kept) or 'none'}")
    for lib in BUNDLED:
        assert any(n.startswith(lib + ".so") for n in names), (lib, names)
    probe = ("import ctypes, sys\nfor name in sys.argv[1:]:\n    try:\n"
             "        ctypes.CDLL(name)\n    except OSError:\n        print('hidden', name)\n"
             "    else:\n        print('LOADED', name)\n")
    sonames = ["libtree-sitter.so.0", "libcjson.so.1", "libcurl.so.4", "libseccomp.so.2"]
    p = _check(_run([installed.python, "-c", probe, *sonames]))
    assert p.stdout.split() == [w for n in sonames for w in ("LOADED", n)]    # outside
    p = _check(installed.run(installed.python, "-c", probe, *sonames))
    assert p.stdout.split() == [w for n in sonames for w in ("hidden", n)]
    if list(ROOT.glob("lexecutor_c/_core*.so")):
        p = installed.run(sys.executable, "-c", "import lexecutor_c._core", cwd=ROOT,
                          env=_env(PYTHONPATH=str(ROOT)))
        assert p.returncode != 0 and "ImportError" in p.stderr, p.stderr[-2000:]


def test_sdist_builds_the_wheel(installed):
    """make wheels built the wheels from the sdist, so the sdist carries the C sources and
    headers (setup.py's depends) as well as setup.py, pyproject.toml and the licence."""
    import tarfile
    with tarfile.open(installed.sdist()) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    assert "csrc/lx.h" in names and "setup.py" in names and "pyproject.toml" in names
    assert "LICENSE" in names and "CHANGELOG.md" in names
    assert any(n.startswith("csrc/runtime/") and n.endswith(".h") for n in names)


def test_twine_check(installed):
    if importlib.util.find_spec("twine") is None:
        pytest.fail("needs twine: pip install twine==7.0.0 (make wheels does)")
    p = _check(_run([sys.executable, "-m", "twine", "check", "--strict", installed.wheel(),
                     installed.sdist()]))
    assert p.stdout.count("PASSED") == 2, p.stdout


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
    "model/neural.pt2", "model/frequency.json.gz", "examples/lexecutor_figure1.py",
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
    assert "torch is not installed for this Python" in p.stderr
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



def test_sdist_builds_in_a_fresh_venv(built, tmp_path):
    """pip in a fresh venv builds the sdist with build isolation (setuptools and wheel from
    the package index, nothing from this interpreter); without the system libraries, the
    same build stops with the message that names them."""
    dist, _ = built
    (sdist,) = dist.glob("lexecutor_c-*.tar.gz")
    venv = tmp_path / "venv"
    _check(_run([sys.executable, "-m", "venv", venv], timeout=300))
    pip = [venv / "bin" / "python", "-m", "pip", "wheel", "--no-deps", "-q",
           "--disable-pip-version-check"]
    p = _run([*pip, "-w", tmp_path / "none", sdist], timeout=900,
             env=_env(PKG_CONFIG_LIBDIR=str(tmp_path / "no-pc"), PKG_CONFIG_PATH=""))
    assert p.returncode != 0
    out = p.stdout + p.stderr
    assert "lexecutor_c build: missing system requirements" in out, out[-3000:]
    assert "Debian: libcurl4-openssl-dev" in out and "Fedora: libcurl-devel" in out
    assert "gcc" not in out, out[-3000:]
    _check(_run([*pip, "-w", tmp_path / "out", sdist], timeout=900))
    (w,) = (tmp_path / "out").glob("lexecutor_c-*.whl")
    with zipfile.ZipFile(w) as z:
        assert any(n.startswith("lexecutor_c/_core.") for n in z.namelist())


def test_neural_extra_brings_torch_and_the_shim_uses_it(installed):
    """The shim is shipped without torch: `pip install 'lexecutor_c-...whl[neural]'` adds
    torch to the venv, and the shim then loads that torch's libraries (the system's copies
    of the bundled libraries still hidden).  Last in this file: it adds torch to the venv."""
    if not _has_shim(installed):
        pytest.skip(f"the {installed.version} wheel has no shim (no torch for Python "
                    f"{installed.version} at build time)")
    _check(_run([sys.executable, "-m", "pip", "--python", installed.python, "install", "-q",
                 "--disable-pip-version-check", f"{installed.wheel()}[neural]"], timeout=900))
    (installed.work / "neural.py").write_text("x = foo()\nprint(x)\n")
    p = _check(installed.run(installed.cli, "run", "--json", "--predictor", "neural",
                             "neural.py", timeout=600))
    (f,) = json.loads(p.stdout)["files"]
    assert f["result"]["status"] == "ok" and f["result"]["coverage"] == 1.0, f
    assert [i["name"] for i in f["result"]["injections"]][:1] == ["foo"], f
    probe = ("import sys, lexecutor_c.model.neural as n; n.load_shim()\n"
             "print([l.split()[-1] for l in open('/proc/self/maps') if 'libtorch_cpu' in l][0])")
    p = _check(installed.run(installed.python, "-c", probe))
    assert p.stdout.strip().startswith(str(installed.venv)), p.stdout     # the venv's torch
