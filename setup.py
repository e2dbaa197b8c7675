"""Build of the lexecutor_c._core extension.

The extension links Debian's libtree-sitter (0.20.7) and takes the Python
grammar (tree-sitter-python 0.23.x, language ABI 14) from the installed
wheel's capsule at import time, so no generated parser is vendored here.
libcurl and libcjson carry the LLM client of the Treefix loop (csrc/llm/).
"""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext

#: what the build needs from the system and not from pip: pkg-config name ->
#: (what it is, Debian package, Fedora package)
REQUIRED = {
    "tree-sitter": ("libtree-sitter", "libtree-sitter-dev", "libtree-sitter-devel"),
    "libcjson": ("libcjson", "libcjson-dev", "cjson-devel"),
    "libcurl": ("libcurl", "libcurl4-openssl-dev", "libcurl-devel"),
    "libseccomp": ("libseccomp", "libseccomp-dev", "libseccomp-devel"),
}
TOOLS = {   # executable -> (what it is, Debian package, Fedora package)
    "pkg-config": ("pkg-config", "pkg-config", "pkgconf-pkg-config"),
}


def pkg_config(*args):
    return subprocess.run(["pkg-config", *args], check=True, capture_output=True,
                          text=True).stdout.split()


class MissingSystemLibraries(SystemExit):
    """The build stops before any compiler runs, naming what to install."""


def missing_system_requirements():
    """[(what, Debian package, Fedora package)] that the build needs and this system lacks:
    pkg-config, a C compiler, Python's headers, the four libraries (by pkg-config)."""
    import sysconfig
    missing = [need for exe, need in TOOLS.items() if shutil.which(exe) is None]
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(os.environ.get("CC", cc).split()[0]) is None:
        missing.append((f"a C compiler ({os.environ.get('CC', cc)})", "build-essential",
                        "gcc"))
    include = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(include, "Python.h")):
        v = "%d.%d" % sys.version_info[:2]
        missing.append((f"the Python {v} headers ({include}/Python.h)", f"python{v}-dev",
                        "python3-devel"))
    if shutil.which("pkg-config") is None:        # cannot tell: name every library
        return missing + list(REQUIRED.values())
    return missing + [need for pc, need in REQUIRED.items()
                      if subprocess.run(["pkg-config", "--exists", pc]).returncode != 0]


def check_system_libraries():
    """Stop with one message naming every missing system requirement (and the Debian and
    Fedora packages that provide it) instead of a compiler or linker error."""
    missing = missing_system_requirements()
    if missing:
        width = max(len(what) for what, _, _ in missing)
        lines = [f"  {what:<{width}}  Debian: {deb:<22} Fedora: {fed}"
                 for what, deb, fed in missing]
        raise MissingSystemLibraries(
            "lexecutor_c build: missing system requirements (they do not come from pip):\n"
            + "\n".join(lines) + "\n"
            "install them:\n"
            "  apt-get install " + " ".join(d for _, d, _ in missing) + "\n"
            "  dnf install " + " ".join(f for _, _, f in missing) + "\n"
            "or install a prebuilt wheel (pip install lexecutor_c), which bundles the "
            "libraries.")


class build_ext(_build_ext):
    """Checks the system first, then asks pkg-config for the flags: only a build of the
    extensions needs the libraries (an sdist or metadata does not)."""

    def run(self):
        check_system_libraries()
        for ext in self.extensions:
            if ext.name == "lexecutor_c._core":
                ext.extra_compile_args = ext.extra_compile_args + pkg_config(
                    "--cflags", *REQUIRED)
        super().run()


cflags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-missing-field-initializers",
          "-Wno-cast-function-type", "-fvisibility=hidden"]
ldflags = []
if os.environ.get("LX_SANITIZE"):
    cflags += ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O1", "-g"]
    ldflags += ["-fsanitize=address,undefined"]
if os.environ.get("LX_DEBUG"):
    cflags += ["-O0", "-g"]

core = Extension(
    "lexecutor_c._core",
    # every .c under csrc/, folders included (csrc/instrument/, csrc/runtime/, ...):
    # a new folder needs no edit here; headers are included as "folder/name.h"
    sources=sorted(glob.glob("csrc/**/*.c", recursive=True)),
    depends=sorted(glob.glob("csrc/**/*.h", recursive=True)),
    include_dirs=["csrc"],
    extra_compile_args=cflags,      # + pkg-config --cflags (build_ext.run)
    extra_link_args=ldflags,
    libraries=["tree-sitter", "curl", "cjson", "seccomp"],
)


def torch_shim():
    """lexecutor_c._torch_shim (csrc/torch_shim.cpp), only when torch is
    installed (LX_NO_TORCH=1 skips it): the neural predictor's LibTorch
    inference, linked against the wheel's own libraries."""
    if os.environ.get("LX_NO_TORCH"):
        return []
    try:
        import torch
        from torch.utils.cpp_extension import include_paths, library_paths
    except ImportError:
        print("lexecutor_c build: torch not installed, skipping the neural predictor's shim")
        return []
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    libdirs = library_paths()
    # torch's own libraries are never bundled.  A build for this machine links them (their
    # directory in the RUNPATH).  A release build (LX_RELEASE_BUILD=1, make wheels) names
    # none of them: lexecutor_c.model.neural loads the installed torch's libc10 and
    # libtorch_cpu with RTLD_GLOBAL before importing the shim, which takes its symbols from
    # them, so the wheel works with any torch 2.13.0 on sys.path and auditwheel finds no
    # library outside the wheel
    release = bool(os.environ.get("LX_RELEASE_BUILD"))
    return [Extension(
        "lexecutor_c._torch_shim",
        sources=["csrc/torch_shim.cpp"],
        include_dirs=include_paths(),
        library_dirs=[] if release else libdirs,
        libraries=[] if release else ["c10", "torch_cpu"],
        language="c++",
        extra_compile_args=["-std=c++20", "-O2", "-fvisibility=hidden",
                            f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-Wno-unused-parameter"],
        extra_link_args=[] if release else [f"-Wl,-rpath,{d}" for d in libdirs],
    )]


setup(ext_modules=[core] + torch_shim(), cmdclass={"build_ext": build_ext})
