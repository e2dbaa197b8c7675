"""What users of a command-line tool expect: --version, documented exit statuses, --json on
every command (each document's keys as docs/RUNNING.md lists them), and a clear usage
error for a predictor the environment cannot run."""
import importlib.metadata
import importlib.util
import json
import pathlib
import re
import subprocess
import sys

import pytest

import lexecutor_c
from lexecutor_c import cli
from lexecutor_c.cli.common import EXIT_STATUS_HELP

ROOT = pathlib.Path(__file__).resolve().parent.parent


def call(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


# ---------------------------------------------------------------- --version, --help

def test_version(capsys):
    code, out, _ = call(capsys, "--version")
    assert code == 0
    assert out.strip() == f"lexecutor-c {lexecutor_c.__version__}"
    # the installed metadata reads the same file (pyproject: dynamic version)
    assert importlib.metadata.version("lexecutor_c") == lexecutor_c.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", lexecutor_c.__version__)


def test_help_documents_the_exit_statuses(capsys):
    code, out, _ = call(capsys, "--help")
    assert code == 0
    assert "exit status:" in out and "130  interrupted" in out
    for status in ("0", "1", "2"):
        assert re.search(rf"^  {status}\s{{4}}\S", out, re.M), status
    for name in cli.COMMANDS:
        code, out, _ = call(capsys, name, "--help")
        assert code == 0 and "exit status:" in out and "--json" in out, name


def test_readme_and_docs_list_the_same_statuses():
    readme = (ROOT / "README.md").read_text()
    running = (ROOT / "docs" / "RUNNING.md").read_text()
    for status in ("0", "1", "2", "130"):
        assert re.search(rf"^\| {status} \|", running, re.M), status
        assert f"**{status}**" in readme, status
    assert "lexecutor-c --version" in readme
    assert "record exits with its command's own status" in EXIT_STATUS_HELP


# ---------------------------------------------------------------- --json

def documented_keys() -> dict:
    """command -> (keys always there, keys that may be there), from docs/RUNNING.md."""
    text = (ROOT / "docs" / "RUNNING.md").read_text()
    section = text[text.index("### `--json`"):]
    table = {}
    for m in re.finditer(r"^\| `([a-z]+)` \| (.+?) \| .* \|$", section, re.M):
        always = re.findall(r"(?<!\*)`([a-z_]+)`(?!\*)", m.group(2))
        optional = re.findall(r"\*`([a-z_]+)`\*", m.group(2))
        table[m.group(1)] = (always, optional)
    return table


def test_every_command_takes_json_and_is_documented():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    table = documented_keys()
    assert set(sub.choices) == set(cli.COMMANDS) == set(table)
    for name, p in sub.choices.items():
        assert any("--json" in a.option_strings for a in p._actions), name


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("conv")
    (d / "a.py").write_text("x = y\nprint(x.bar)\n")
    (d / "real.py").write_text("items = []\nfirst = items[0]\n")
    repo = d / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.org")
    git(repo, "config", "user.name", "t")
    (repo / "m.py").write_text("def label(n):\n    return 'item' + str(n)\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    (repo / "m.py").write_text("def label(n):\n    return 'item-' + str(n)\n")
    git(repo, "commit", "-q", "-am", "change label")
    return d


def _argv(name, d):
    a = str(d / "a.py")
    return {
        "run": ["run", a],
        "instrument": ["instrument", a],
        "demo": ["demo"],
        "trace": ["trace", a],
        "commits": ["commits", "--repo", str(d / "repo"), "--seeds", "1"],
        "errors": ["errors", "--seeds", "1", a],
        "treefix": ["treefix", "--budget", "5", "-k", "1", "-n", "2", a],
        "batch": ["batch", a, "--out", str(d / "batch-out"), "--workers", "1", "--no-progress"],
        "record": ["record", "--out", str(d / "ev.jsonl.gz"), "--include", "json",
                   "--", sys.executable, "-c", "import json; json.dumps([1])"],
    }[name]


@pytest.mark.parametrize("name", ["run", "instrument", "demo", "trace", "commits", "errors",
                                  "treefix", "record", "batch"])
def test_json_document_has_the_documented_keys(capsys, workdir, name):
    argv = _argv(name, workdir)
    code, out, err = call(capsys, argv[0], "--json", *argv[1:])
    assert code == 0, err
    doc = json.loads(out)
    always, optional = documented_keys()[name]
    assert list(doc)[0] == "version" and doc["version"] == 1
    assert set(always) <= set(doc) <= set(always) | set(optional), (name, sorted(doc))


def test_json_documents_in_detail(capsys, workdir):
    _, out, _ = call(capsys, "instrument", "--json", str(workdir / "a.py"))
    doc = json.loads(out)
    assert doc["source"].startswith('x = _n_(1, "y")')
    assert [s["name"] for s in doc["sites"] if s["kind"] == "name"] == ["y"]
    assert [li["line"] for li in doc["lines"]] == [1, 2]
    assert [u["name"] for u in doc["undefined"]] == ["y"]
    assert doc["undefined"][0]["attrs"] == {}          # x.bar is read on x, not on y
    _, out, _ = call(capsys, "record", "--json", "--out", str(workdir / "ev2.jsonl.gz"),
                     "--include", "json", "--", sys.executable, "-c",
                     "import json; json.dumps({'a': [1]})")
    doc = json.loads(out)
    assert doc["returncode"] == 0 and doc["processes"] == 1 and doc["events"] > 0
    assert any(m["module"].startswith("json") for m in doc["modules"])


def test_exit_statuses_as_documented(capsys, workdir):
    # errors: an error of the code's own (IndexError on a list it built) -> 1
    code, _, err = call(capsys, "errors", "--seeds", "1", str(workdir / "real.py"))
    assert code == 1, err
    # commits: a behaviour change with --fail-on-change -> 1; not a repository -> 2
    code, _, _ = call(capsys, "commits", "--repo", str(workdir / "repo"), "--seeds", "1",
                      "--fail-on-change")
    assert code == 1
    code, _, err = call(capsys, "commits", "--repo", str(workdir), "--seeds", "1")
    assert code == 2 and "Traceback" not in err
    # record passes its command's status on
    code, _, _ = call(capsys, "record", "--out", str(workdir / "ev3.jsonl.gz"), "--",
                      sys.executable, "-c", "raise SystemExit(3)")
    assert code == 3


def test_neural_predictor_without_torch_is_a_usage_error(capsys, workdir, monkeypatch):
    """Where torch is not installed the neural predictor is refused up front with the pip
    command, for every command that takes --predictor (found without importing torch)."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    a = str(workdir / "a.py")
    for argv in (["run", a], ["trace", a], ["demo"], ["treefix", a]):
        code, out, err = call(capsys, *argv, "--predictor", "neural", "--json")
        assert code == 2, argv
        assert out == ""
        assert "torch is not installed for this Python" in err
        assert "pip install 'lexecutor_c[neural]'" in err and "Traceback" not in err


@pytest.mark.skipif(importlib.util.find_spec("torch") is None
                    or importlib.util.find_spec("lexecutor_c._torch_shim") is None,
                    reason="training needs torch and the shim")
def test_train_json(tmp_path):
    import random
    from lexecutor_c.engine.runtime import write_events
    rng = random.Random(0)
    rows = [(f"is_{rng.choice('abcdef')}{i % 7}", "True", "call", "syn.py", i, i + 1,
             "if x", ": pass") for i in range(120)]
    rows += [(f"{rng.choice('abcdef')}_name", "str_nonempty", "attribute", "syn.py", i, i + 1,
              "self .", "= 1") for i in range(120)]
    write_events(tmp_path / "ev.jsonl.gz", rows)
    out = tmp_path / "m.pt"
    p = subprocess.run([sys.executable, "-m", "lexecutor_c", "train", "--json", "--events",
                        str(tmp_path / "ev.jsonl.gz"), "--out", str(out), "--max-steps", "2",
                        "--dim", "16", "--heads", "2", "--ff", "16", "--layers", "1",
                        "--buckets", "512", "--batch-size", "16", "--threads", "1",
                        "--report", str(tmp_path / "r.json")],
                       capture_output=True, text=True, timeout=600, cwd=str(ROOT))
    assert p.returncode == 0, p.stderr[-2000:]
    doc = json.loads(p.stdout)
    always, optional = documented_keys()["train"]
    assert list(doc)[0] == "version" and doc["version"] == 1
    assert set(always) <= set(doc) <= set(always) | set(optional), sorted(doc)
    assert doc["steps"] == 2 and doc["model_bytes"] == out.stat().st_size
    assert json.loads((tmp_path / "r.json").read_text()) == doc
