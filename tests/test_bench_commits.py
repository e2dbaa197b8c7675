"""benchmarks/commits.py on a small repository the test builds: the table's
counts, resuming from stored results, --stored, and the review sample."""
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import commits as bcm  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(r, *a):
    subprocess.run(["git", "-C", str(r), *a], check=True, capture_output=True)


@pytest.fixture(scope="module")
def small_repo(tmp_path_factory):
    r = tmp_path_factory.mktemp("bench") / "tiny"
    r.mkdir()
    _git(r, "init", "-q")
    _git(r, "config", "user.email", "t@example.org")
    _git(r, "config", "user.name", "t")
    core = r / "core.py"
    core.write_text("def inc(x):\n    return x + 1\n\n\ndef name(n):\n    return 'n' + str(n)\n")
    _git(r, "add", "-A")
    _git(r, "commit", "-q", "-m", "init")
    for old, new, msg in (("x + 1", "x + 2", "inc by two"),
                          ("'n' + str(n)", "f'n{n}'", "f-string"),
                          ("def name", "def other(y):\n    return y\n\n\ndef name", "add other")):
        core.write_text(core.read_text().replace(old, new))
        _git(r, "commit", "-q", "-am", msg)
    (r / "README").write_text("docs\n")
    _git(r, "add", "README")
    _git(r, "commit", "-q", "-m", "docs")
    return r


def test_table_counts_resume_stored_and_review(small_repo, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["--repo", str(small_repo), "--max", "10", "--out", str(out), "--seeds", "1",
            "--max-inputs", "4", "--json", str(tmp_path / "t.json"), "--review", "5",
            "--quiet"]
    assert bcm.main(argv) == 0
    text = capsys.readouterr().out
    (row, overall) = json.loads((tmp_path / "t.json").read_text())
    assert row["project"] == "tiny" and row["commits"] == 5
    # inc changed, name refactored; the root, the added function and the docs are skipped
    assert (row["function_changing"], row["verdict"], row["changed"], row["same"]) == (2, 2, 1, 1)
    assert row["share"] == 1.0 and overall["commits"] == 5
    assert row["skipped"] == {"root commit": 1, "adds/removes functions only": 1,
                              "no function or module code": 1}
    # the review shows the one 'changed' verdict with the function's diff
    assert "### 1. tiny" in text and "core.py:inc" in text and "+    return x + 2" in text
    # stored results are reused; --stored runs nothing for commits not stored
    stored = (out / "tiny.jsonl").read_text().splitlines()
    assert len(stored) == 5
    lines = [ln for ln in stored if json.loads(ln)["commit"]["subject"] != "inc by two"]
    (out / "tiny.jsonl").write_text("\n".join(lines) + "\n")
    assert bcm.main(argv[:-1] + ["--stored", "--quiet"]) == 0
    (row, _) = json.loads((tmp_path / "t.json").read_text())
    assert row["commits"] == 4 and row["changed"] == 0
    assert len((out / "tiny.jsonl").read_text().splitlines()) == 4
