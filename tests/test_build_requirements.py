"""setup.py stops a build that lacks a system requirement with one message naming each
missing piece and the Debian and Fedora packages that provide it, before any compiler runs
(a user building the sdist sees that, not a compiler or linker error); an sdist or metadata
build needs none of them."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(shutil.which("pkg-config") is None,
                                reason="pkg-config is missing: the build itself says so")


def _setup(tmp_path, *args, **env):
    """Run setup.py from a copy holding just setup.py and pyproject.toml (no sources: the
    check must come before any compiling)."""
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(os.path.join(ROOT, name), tmp_path / name)
    (tmp_path / "lexecutor_c").mkdir()
    shutil.copy(os.path.join(ROOT, "lexecutor_c", "_version.py"),
                tmp_path / "lexecutor_c" / "_version.py")
    e = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    e.update(LX_NO_TORCH="1", **env)
    return subprocess.run([sys.executable, "setup.py", *args], cwd=tmp_path, env=e,
                          capture_output=True, text=True, timeout=120)


def test_missing_libraries_named_with_their_packages(tmp_path):
    # pkg-config finds nothing: every library is missing
    p = _setup(tmp_path, "build_ext", PKG_CONFIG_LIBDIR=str(tmp_path / "none"),
               PKG_CONFIG_PATH="")
    assert p.returncode != 0
    err = p.stderr
    assert "lexecutor_c build: missing system requirements" in err
    for lib, deb, fed in [("libtree-sitter", "libtree-sitter-dev", "libtree-sitter-devel"),
                          ("libcjson", "libcjson-dev", "cjson-devel"),
                          ("libcurl", "libcurl4-openssl-dev", "libcurl-devel"),
                          ("libseccomp", "libseccomp-dev", "libseccomp-devel")]:
        line = next((ln for ln in err.splitlines() if ln.strip().startswith(lib + " ")), "")
        assert f"Debian: {deb}" in line and f"Fedora: {fed}" in line, err
    assert ("apt-get install libtree-sitter-dev libcjson-dev libcurl4-openssl-dev "
            "libseccomp-dev") in err
    assert "dnf install libtree-sitter-devel cjson-devel libcurl-devel libseccomp-devel" in err
    assert "pip install lexecutor_c" in err
    # one message, no compiler run, no traceback
    assert "gcc" not in err and "Traceback" not in err and "error:" not in err.lower()


def test_one_missing_library_is_named_alone(tmp_path):
    """Only libcjson hidden from pkg-config: a directory of .pc files without it."""
    pcdir = tmp_path / "pc"
    pcdir.mkdir()
    out = subprocess.run(["pkg-config", "--variable", "pc_path", "pkg-config"],
                         capture_output=True, text=True).stdout.strip()
    for d in out.split(":"):
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".pc") and f != "libcjson.pc" and not (pcdir / f).exists():
                    os.symlink(os.path.join(d, f), pcdir / f)
    p = _setup(tmp_path, "build_ext", PKG_CONFIG_LIBDIR=str(pcdir), PKG_CONFIG_PATH="")
    assert p.returncode != 0
    assert "apt-get install libcjson-dev\n" in p.stderr and "dnf install cjson-devel" in p.stderr
    assert "libcurl" not in p.stderr.split("missing system requirements")[1].split("install")[0]


def test_metadata_needs_no_system_library(tmp_path):
    """Metadata (what `pip install` of the sdist asks first) works without the libraries:
    only the build of the extension checks."""
    p = _setup(tmp_path, "--version", PKG_CONFIG_LIBDIR=str(tmp_path / "none"),
               PKG_CONFIG_PATH="")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().splitlines()[-1] == _version()


def _version():
    ns = {}
    with open(os.path.join(ROOT, "lexecutor_c", "_version.py")) as f:
        exec(f.read(), ns)
    return ns["__version__"]
