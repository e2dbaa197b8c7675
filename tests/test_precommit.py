"""The commit check as a pre-commit hook, run by pre-commit itself from this checkout's
.pre-commit-hooks.yaml: a project whose config names the hook refuses a staged change
that alters a function's behaviour and accepts one that keeps it.

pre-commit installs the hook the way it does for users (a virtualenv, ``pip install`` of a
clone of a clean copy of this working tree, with the C extension compiled), so this test
costs one build; marked ``wheel`` and ``slow`` like tests/test_wheel.py."""
import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest
import yaml

from conftest import clean_copy

pytestmark = [pytest.mark.wheel, pytest.mark.slow]

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASE = "def label(n):\n    return 'item' + str(n)\n\n\ndef total(xs):\n    return sum(xs)\n"


def _env(home):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LX_NO_TORCH", "LX_SANITIZE", "LX_DEBUG",
                        "VIRTUAL_ENV") and not k.startswith("PYTEST_")}
    env["PRE_COMMIT_HOME"] = str(home)
    env["GIT_AUTHOR_NAME"] = env["GIT_COMMITTER_NAME"] = "t"
    env["GIT_AUTHOR_EMAIL"] = env["GIT_COMMITTER_EMAIL"] = "t@example.org"
    return env


def git(cwd, *args, env):
    return subprocess.run(["git", *args], cwd=str(cwd), env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_manifest_names_the_documented_command():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "lexecutor-c-commits"
    assert hook["entry"] == "lexecutor-c commits --staged --fail-on-change"
    assert hook["language"] == "python" and hook["pass_filenames"] is False


def test_pre_commit_runs_the_commit_check(tmp_path):
    if importlib.util.find_spec("pre_commit") is None:
        pytest.fail("pre-commit is missing: pip install pre-commit (a test dependency: "
                    "Makefile PYDEPS, pyproject's test extra)")
    env = _env(tmp_path / "pre-commit-home")
    hooks = pathlib.Path(clean_copy(str(tmp_path / "hooks")))
    git(hooks, "init", "-q", env=env)
    git(hooks, "add", "-A", env=env)
    git(hooks, "commit", "-q", "-m", "hook repository", env=env)
    rev = git(hooks, "rev-parse", "HEAD", env=env)

    proj = tmp_path / "project"
    proj.mkdir()
    git(proj, "init", "-q", env=env)
    (proj / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n"
        f"      - id: lexecutor-c-commits\n")
    (proj / "m.py").write_text(BASE)
    git(proj, "add", "-A", env=env)
    git(proj, "commit", "-q", "-m", "initial", env=env)

    def pre_commit():
        return subprocess.run([sys.executable, "-m", "pre_commit", "run"], cwd=str(proj),
                              env=env, capture_output=True, text=True, timeout=900)

    # a change of behaviour: refused, with the check's table
    (proj / "m.py").write_text(BASE.replace("'item' + str(n)", "'item-' + str(n)"))
    git(proj, "add", "m.py", env=env)
    r = pre_commit()
    assert r.returncode == 1, r.stdout[-4000:] + r.stderr[-2000:]
    assert "lexecutor-c commits" in r.stdout and "Failed" in r.stdout
    assert "label" in r.stdout and "changed" in r.stdout

    # a refactoring that keeps behaviour: accepted
    git(proj, "reset", "-q", "--hard", env=env)
    (proj / "m.py").write_text(BASE.replace("return sum(xs)",
                                            "t = 0\n    for x in xs:\n        t += x\n"
                                            "    return t"))
    git(proj, "add", "m.py", env=env)
    r = pre_commit()
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "Passed" in r.stdout

    # no Python file staged: the hook is skipped
    git(proj, "reset", "-q", "--hard", env=env)
    (proj / "notes.txt").write_text("x\n")
    git(proj, "add", "notes.txt", env=env)
    r = pre_commit()
    assert r.returncode == 0 and "Skipped" in r.stdout, r.stdout
