"""Shared test settings."""
import os

import pytest

# `make asan` sets this: AddressSanitizer reserves terabytes of shadow address
# space, so an RLIMIT_AS memory cap cannot be tested under it.
UNDER_ASAN = bool(os.environ.get("LX_UNDER_ASAN"))

needs_address_space_limit = pytest.mark.skipif(
    UNDER_ASAN, reason="RLIMIT_AS cannot be enforced under AddressSanitizer")


# ---------------------------------------------------------------- a clean checkout

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def clean_copy(dest: str) -> str:
    """Copy what a fresh clone of this working tree would hold to *dest*: the tracked files
    and the untracked ones git does not ignore (tracked files deleted in the work tree are
    left out), none of the build outputs.  So a file that exists here but would not be
    committed (an ignored model, a forgotten `git add`) is missing there, as in CI.  Skips
    outside a git checkout."""
    import shutil
    import subprocess
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: no clean copy to build from")
    for rel in sorted({f.decode() for f in out.split(b"\0") if f}):
        src = os.path.join(ROOT, rel)
        if not os.path.isfile(src):
            continue
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(src, target)
    return dest
