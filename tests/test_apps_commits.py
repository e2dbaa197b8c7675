"""lexecutor-c commits: semantics-changing commits in a repository the test
builds (real backend, real git)."""
import json
import shutil
import subprocess

import pytest

from lexecutor_c import cli
from lexecutor_c.apps.commits import (CHANGED, EXCEPTION, SAME, SKIPPED, check_commits,
                                 compare_values, functions_of)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

BASE = '''import os


def label(n):
    return "item" + str(n)


class Bag:
    def size(self, items):
        total = 0
        for _ in items:
            total += 1
        return total
'''


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def commit(repo, text, msg, name="m.py"):
    (repo / name).write_text(text) if isinstance(text, str) else (repo / name).write_bytes(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", msg)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    r = tmp_path_factory.mktemp("repo")
    git(r, "init", "-q")
    git(r, "config", "user.email", "t@example.org")
    git(r, "config", "user.name", "t")
    text = BASE
    commit(r, text, "initial")
    text = text.replace('return "item" + str(n)', 'return f"item{n}"')
    commit(r, text, "refactor label")                                   # keeps behaviour
    text = text.replace('return f"item{n}"', 'return f"item-{n}"')
    commit(r, text, "change label")                                     # changes the value
    text = text.replace("total = 0", "total = 1").replace('f"item-{n}"', 'f"item_{n}"')
    commit(r, text, "touch two functions")                              # skipped
    text = text.replace('return f"item_{n}"', "raise ValueError(n)")
    commit(r, text, "label raises")                                     # exceptional
    text = text.replace("import os", "import os  # a comment")
    commit(r, text, "comment only")                                     # no function
    text = text.replace("        return total", "        return [total]")
    commit(r, text, "size returns a list")                              # return type
    return r


def by_subject(checks):
    return {c.subject: c for c in checks}


def test_verdicts(repo):
    checks = by_subject(check_commits(str(repo), "HEAD~6..HEAD", seeds=(0, 1, 2)))
    assert list(checks) == ["refactor label", "change label", "touch two functions",
                            "label raises", "comment only", "size returns a list"]
    assert checks["refactor label"].verdict == SAME
    assert (checks["refactor label"].file, checks["refactor label"].function) == ("m.py", "label")
    assert checks["change label"].verdict == CHANGED
    assert "return value 'item" in checks["change label"].detail
    assert checks["touch two functions"].verdict == SKIPPED
    assert "2 functions" in checks["touch two functions"].detail
    assert checks["label raises"].verdict == EXCEPTION
    assert "ValueError" in checks["label raises"].detail
    assert checks["comment only"].verdict == SKIPPED
    assert checks["size returns a list"].function == "Bag.size"
    assert checks["size returns a list"].verdict in (CHANGED, EXCEPTION)


def test_same_seed_same_injected_arguments(repo):
    c = by_subject(check_commits(str(repo), "HEAD~5", seeds=(0, 1, 2, 3)))["refactor label"]
    # identical injected argument in both versions: the strings agree in every seed
    for row in c.seeds:
        assert row["verdict"] == SAME
        assert row["old"]["returned"] == row["new"]["returned"]
    assert len({row["old"]["returned"]["value"] for row in c.seeds}) > 1   # seeds differ


def test_root_commit_and_single_revision(repo):
    (c,) = check_commits(str(repo), "HEAD~6")
    assert c.verdict == SKIPPED and "root commit" in c.detail


def test_cli_table_json_and_fail_on_change(capsys, repo):
    assert cli.main(["commits", "--repo", str(repo), "HEAD~6..HEAD", "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert "change label" in out and "changed" in out and "skipped" in out
    code = cli.main(["commits", "--repo", str(repo), "HEAD~5..HEAD~4", "--fail-on-change",
                     "--json", "--seeds", "2"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert doc["summary"]["changed"] == 1 and doc["commits"][0]["verdict"] == "changed"
    assert cli.main(["commits", "--repo", str(repo), "HEAD~6..HEAD~5", "--fail-on-change",
                     "--seeds", "2"]) == 0


def test_staged_changes_for_a_pre_commit_hook(capsys, repo, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    text = (clone / "m.py").read_text().replace("raise ValueError(n)", "return 'x'")
    (clone / "m.py").write_text(text)
    git(clone, "add", "m.py")
    code = cli.main(["commits", "--repo", str(clone), "--staged", "--fail-on-change",
                     "--json", "--seeds", "2"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["commits"][0]["commit"] == "staged"
    assert doc["commits"][0]["function"] == "label"
    assert doc["commits"][0]["verdict"] == "exception"      # the old version raised
    assert code == 0


def test_unparsable_and_binary_versions_are_skipped(tmp_path):
    r = tmp_path / "r2"
    r.mkdir()
    git(r, "init", "-q")
    git(r, "config", "user.email", "t@example.org")
    git(r, "config", "user.name", "t")
    commit(r, "def f():\n    return 1\n", "init")
    commit(r, "def f(:\n    return 2\n", "broken")
    commit(r, b"\x00\x01binary", "binary")
    checks = by_subject(check_commits(str(r), "HEAD~2..HEAD", seeds=(0,)))
    assert checks["broken"].verdict == SKIPPED and "does not parse" in checks["broken"].detail
    assert checks["binary"].verdict == SKIPPED and "binary" in checks["binary"].detail


@pytest.mark.parametrize("argv, needle", [
    (["--repo", "{tmp}"], "not a git repository"),
    (["--repo", "{tmp}/nope"], "not a directory"),
    (["--repo", "{repo}", "nosuch..HEAD"], "bad revision range"),
    (["--repo", "{repo}", "--seeds", "0"], "--seeds"),
])
def test_bad_input(capsys, repo, tmp_path, argv, needle):
    argv = [a.format(tmp=tmp_path, repo=repo) for a in argv]
    code = cli.main(["commits", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and needle in err


def test_functions_of_and_compare_values():
    fns = functions_of("class A:\n    def m(self, x, y=1, *, k, z=2):\n        return x\n"
                       "def f():\n    def g():\n        pass\n")
    assert list(fns) == ["A.m", "f"]
    assert fns["A.m"].required == ["self", "x"] and fns["A.m"].kwonly == ["k"]
    assert fns["A.m"].source.startswith("def m(")
    r = lambda **d: {"returned": d}   # noqa: E731
    assert compare_values(r(type="int", value="1"), r(type="int", value="1"))[0] == SAME
    assert compare_values(r(type="int", value="1"), r(type="int", value="2"))[0] == CHANGED
    assert compare_values(r(type="int", value="1"), r(type="str", value="'1'"))[0] == CHANGED
    assert compare_values(r(type="list", size=1), r(type="list", size=2))[0] == CHANGED
    assert compare_values(r(type="list", size=1), {"raised": {"type": "E", "message": ""}})[0] \
        == EXCEPTION
