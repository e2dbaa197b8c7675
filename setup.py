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

REQUIRED = {
    "tree-sitter": "libtree-sitter-dev",
    "libcjson": "libcjson-dev",
    "libcurl": "libcurl4-openssl-dev",
    "libseccomp": "libseccomp-dev",
}


def pkg_config(*args):
    return subprocess.run(["pkg-config", *args], check=True, capture_output=True,
                          text=True).stdout.split()


def check_system_libraries():
    if shutil.which("pkg-config") is None:
        sys.exit("lexecutor_c build: pkg-config is missing (apt-get install pkg-config)")
    missing = [deb for pc, deb in REQUIRED.items()
               if subprocess.run(["pkg-config", "--exists", pc]).returncode != 0]
    if missing:
        sys.exit("lexecutor_c build: missing system libraries; run "
                 "`apt-get install " + " ".join(missing) + "` (or `make deps`)")


check_system_libraries()

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
    extra_compile_args=cflags + pkg_config("--cflags", "tree-sitter", "libcurl", "libcjson", "libseccomp"),
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
    return [Extension(
        "lexecutor_c._torch_shim",
        sources=["csrc/torch_shim.cpp"],
        include_dirs=include_paths(),
        library_dirs=libdirs,
        libraries=["c10", "torch_cpu"],
        language="c++",
        extra_compile_args=["-std=c++20", "-O2", "-fvisibility=hidden",
                            f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-Wno-unused-parameter"],
        extra_link_args=[f"-Wl,-rpath,{d}" for d in libdirs],
    )]


setup(ext_modules=[core] + torch_shim())
