"""benchmarks/commits.py on a small repository the test builds: the table's
counts, resuming from stored results, --stored, and the review sample."""
import io
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


def test_a_commit_git_cannot_read_is_skipped_and_the_history_goes_on(small_repo, tmp_path,
                                                                     monkeypatch):
    # a partial clone can lack a commit's objects: that commit is skipped,
    # said why, and the other commits are still checked
    real = bcm.cm.check_commits
    bad = bcm._rev_list(str(small_repo), "HEAD", 10)[1]

    def check(repo, rev, **kw):
        if rev == bad:
            raise bcm.cm.GitError(f"unable to read {bad}")
        return real(repo, rev, **kw)

    monkeypatch.setattr(bcm.cm, "check_commits", check)
    argv = ["--repo", str(small_repo), "--max", "10", "--out", str(tmp_path / "out"),
            "--seeds", "1", "--max-inputs", "4", "--json", str(tmp_path / "t.json"), "--quiet"]
    assert bcm.main(argv) == 0
    (row, _) = json.loads((tmp_path / "t.json").read_text())
    assert row["commits"] == 5 and row["skipped"].get("unreadable") == 1
    stored = [json.loads(ln)["commit"] for ln in
              (tmp_path / "out" / "tiny.jsonl").read_text().splitlines()]
    assert [c["detail"] for c in stored if c["commit"] == bad] == \
        [f"cannot read the commit: unable to read {bad}"]


# ------------------------------------------------------------------ labelled mode

from benchmarks import labelled_commits as lc  # noqa: E402
from benchmarks import synth_rewrites as sr  # noqa: E402


def _item(ident, source, label, old="def f(x):\n    return x + 1\n",
          new="def f(x):\n    return x + 2\n"):
    return {"id": ident, "source": source, "label": label, "function": "f",
            "old_source": old, "new_source": new, "reason": "test"}


def test_score_counts_precision_recall_wrong_same():
    rows = ([{"source": "real", "label": "changing", "verdict": v, "seconds": 1.0}
             for v in ("changed", "changed", "changed", "same", "unreached", "undecided")] +
            [{"source": "real", "label": "preserving", "verdict": v, "seconds": 3.0}
             for v in ("changed", "same", "same", "same")] +
            [{"source": "real", "label": "unclear", "verdict": "changed", "seconds": 2.0}] +
            [{"source": "mutation", "label": "changing", "verdict": v, "seconds": 0.5}
             for v in ("changed", "same")] +
            [{"source": "refactoring", "label": "preserving", "verdict": "same",
              "seconds": 0.5}])
    sc = {s["source"]: s for s in bcm.score(rows)}
    real = sc["real"]
    assert (real["items"], real["changing"], real["preserving"], real["unclear"]) == \
        (11, 6, 4, 1)
    assert real["counts"]["changing"]["changed"] == 3
    assert real["precision"] == 3 / 4 and real["recall"] == 3 / 6
    assert real["wrong_same"] == 1 / 4 and real["same"] == 4       # 1 of 4 'same' wrong
    assert real["unreached"] == 1 / 10                              # unclear left out
    assert real["changed_on_preserving"] == 1 / 4
    # no strength recorded: every "changed" counts as concrete
    assert real["precision_firm"] == 3 / 4 and real["firm"] == 4
    assert real["median_s"] == 1.0 and abs(real["mean_s"] - 20 / 11) < 1e-9
    assert sc["mutation"]["recall"] == 0.5 and sc["mutation"]["changed_share"] == 0.5
    ref = sc["refactoring"]
    assert ref["changed_share"] == 0.0 and ref["precision"] is None and ref["recall"] is None
    assert list(sc) == ["real", "refactoring", "mutation"]


def test_precision_of_the_changed_verdicts_on_concrete_values():
    rows = [{"source": "real", "label": "changing", "verdict": "changed", "strength": s,
             "seconds": 1.0} for s in ("concrete", "signature", "injected")] + \
        [{"source": "real", "label": "preserving", "verdict": "changed", "strength": s,
          "seconds": 1.0} for s in ("injected", "injected", "concrete")]
    real = bcm.score(rows)[0]
    assert real["precision"] == 3 / 6
    assert real["precision_firm"] == 2 / 3 and real["firm"] == 3
    out = io.StringIO()
    bcm.print_scores([real], out=out)
    assert "precision (concrete)" in out.getvalue() and "66.7% (3)" in out.getvalue()


def test_labelled_mode_runs_caches_and_resumes(tmp_path, capsys, monkeypatch):
    items = [_item("a", "real", "changing"), _item("b", "real", "preserving"),
             _item("c", "mutation", "changing"), _item("d", "real", None)]
    path = str(tmp_path / "set.jsonl")
    lc.save(path, items)
    assert (tmp_path / "set.sources.json.xz").exists()
    assert "old_source" not in (tmp_path / "set.jsonl").read_text()
    calls = []

    def fake(item, opts):
        calls.append(item["id"])
        return {"verdict": "changed" if item["id"] in ("a", "b") else "same",
                "seconds": 2.0, "detail": "", "inputs": 1, "agreeing_inputs": 0}
    monkeypatch.setattr(bcm, "_engine", fake)
    out = tmp_path / "out"
    argv = ["--labelled", path, "--out", str(out), "--json", str(tmp_path / "s.json"),
            "--quiet"]
    assert bcm.main(argv) == 0
    assert sorted(calls) == ["a", "b", "c"]          # the unlabelled item is not run
    got = json.loads((tmp_path / "s.json").read_text())
    sc = {s["source"]: s for s in got["scores"]}
    assert sc["real"]["precision"] == 0.5 and sc["real"]["recall"] == 1.0
    assert sc["mutation"]["recall"] == 0.0 and sc["mutation"]["wrong_same"] == 1.0
    text = capsys.readouterr().out
    assert "precision" in text and "50.0%" in text
    # a second run reads the stored results; --fresh runs again
    calls.clear()
    assert bcm.main(argv) == 0 and calls == []
    assert bcm.main(argv + ["--fresh"]) == 0 and len(calls) == 3
    # --limit: at most N per source
    calls.clear()
    assert bcm.main(argv + ["--fresh", "--limit", "1"]) == 0
    assert len(calls) == 2
    # an unknown verdict is stored as the engine gave it and scored as an error
    r = bcm.run_labelled([_item("e", "real", "changing")], {"k": 1},
                         str(tmp_path / "c.jsonl"), log=lambda m: None,
                         engine=lambda it, o: {"verdict": "weird", "seconds": 0.0,
                                               "detail": ""})
    assert r[0]["verdict"] == "weird"
    assert bcm.score(r)[0]["counts"]["changing"]["error"] == 1


def test_engine_wrapper_turns_crashes_into_errors(monkeypatch):
    import lexecutor_c.apps.compare as cmp

    def boom(*a, **k):
        raise RuntimeError("engine broke")
    monkeypatch.setattr(cmp, "compare_sources", boom)
    r = bcm._engine(_item("x", "real", "changing"), {})
    assert r["verdict"] == "error" and "engine broke" in r["detail"]


def test_bad_labelled_file_is_a_clear_error(tmp_path, capsys):
    p = tmp_path / "bad.jsonl"
    p.write_text("{not json\n")
    assert bcm.main(["--labelled", str(p), "--out", str(tmp_path / "o")]) == 2
    assert "not JSON" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bcm.main(["--out", str(tmp_path / "o")])         # neither --repo nor --labelled


def test_label_merge_and_build_from_a_history(small_repo, tmp_path):
    items = lc.build([str(small_repo)], 20, 10, 12, log=lambda m: None)
    names = sorted(it["function"] for it in items)
    assert names == ["inc", "name"]                   # the two modified functions
    inc = next(it for it in items if it["function"] == "inc")
    assert "x + 1" in inc["old_source"] and "x + 2" in inc["new_source"]
    assert "+    return x + 2" in lc.function_diff(inc["old_source"], inc["new_source"], "inc")
    # an edited decorator is part of the function's diff
    deco = "@deprecated(replace=%r)\ndef f(x):\n    return x\n"
    assert "+@deprecated(replace='b')" in lc.function_diff(deco % "a", deco % "b", "f")
    tsv = [f"{inc['id']}\tchanging\tincrement changed\n"]
    assert lc.merge_labels(items, tsv) == 1 and inc["label"] == "changing"
    with pytest.raises(ValueError):
        lc.merge_labels(items, [f"{inc['id']}\tmaybe\tno\n"])
    with pytest.raises(ValueError):
        lc.merge_labels(items, ["nosuch\tchanging\tx\n"])


def test_build_leaves_out_the_items_of_the_sets_given_with_skip(small_repo, tmp_path, capsys):
    items = lc.build([str(small_repo)], 20, 10, 12, log=lambda m: None)
    inc = next(it for it in items if it["function"] == "inc")
    old = tmp_path / "old.jsonl"
    lc.save(str(old), [inc])
    out = tmp_path / "new.jsonl"
    assert lc.main(["build", "--repo", str(small_repo), "--skip", str(old),
                    "--out", str(out)]) == 0
    got = lc.load(str(out))
    assert sorted(it["function"] for it in got) == ["name"]
    assert "1 left out" in capsys.readouterr().err
    # a set to skip that is not there: a clear message, non-zero status
    assert lc.main(["build", "--repo", str(small_repo), "--skip", str(tmp_path / "no.jsonl"),
                    "--out", str(out)]) != 0


def test_labelled_items_checked_in_their_repository(small_repo, tmp_path, capsys):
    items = lc.build([str(small_repo)], 20, 10, 12, log=lambda m: None)
    for it in items:
        it["label"] = "changing" if it["function"] == "inc" else "preserving"
    other = dict(items[0], id="elsewhere:1", repo="owner/elsewhere")
    path = tmp_path / "set.jsonl"
    lc.save(str(path), items + [other])
    assert bcm.checkout_of(items[0], str(small_repo.parent)) == str(small_repo)
    assert bcm.checkout_of(other, str(small_repo.parent)) is None
    out = tmp_path / "out"
    argv = ["--labelled", str(path), "--checkouts", str(small_repo.parent), "--out", str(out),
            "--max-inputs", "4", "--quiet"]
    assert bcm.main(argv) == 0
    rows = [json.loads(x) for x in (out / "labelled.jsonl").read_text().splitlines()]
    # the item without a checkout is left out; the others ran in the repository
    assert sorted(r["id"] for r in rows) == sorted(it["id"] for it in items)
    got = {r["id"].rpartition(":")[2]: r for r in rows}
    assert got["inc"]["verdict"] == "changed" and got["inc"]["mode"] == "module"
    assert got["name"]["verdict"] in ("same", "undecided") and got["name"]["mode"] == "module"
    assert '"engine": "check_commits"' in capsys.readouterr().out
    # only the functions asked for are run; the others are listed, not checked
    from lexecutor_c.apps.commits import check_commits
    (c,) = check_commits(str(small_repo), "HEAD~4..HEAD~3", only={("core.py", "other")},
                         max_inputs=2, seeds=(0,))
    (f,) = c.functions
    assert f.function == "inc" and f.verdict == "undecided" and "not checked" in f.detail
    # no checkout for any item: a clear message, non-zero status
    assert bcm.main(["--labelled", str(path), "--checkouts", str(tmp_path / "none"),
                     "--out", str(out), "--quiet"]) == 2
    assert "no item has a checkout" in capsys.readouterr().err


_MOD = '''\
import math


def g(xs, k=2):
    """doc"""
    if not xs:
        return len(xs) + k
    total = 0
    for x in xs:
        if x > k:
            total = total + x * 2
        else:
            total = total - 1
    scaled = total % 7
    result = math.floor(scaled + k)
    return result
'''


def _run(src, *args):
    ns = {}
    exec(compile(src, "<m>", "exec"), ns)
    return ns["g"](*args)


@pytest.mark.parametrize("op", ["rename-local", "extract-variable", "inline-variable",
                                "swap-branches"])
def test_refactorings_keep_behaviour(op):
    import random
    new = sr.apply(_MOD, "g", op, random.Random(3))
    assert new is not None and new != _MOD
    for args in (([1, 5, 9],), ([],), ([3, 3], 3), ([10, -2, 4], 0)):
        assert _run(new, *args) == _run(_MOD, *args)


@pytest.mark.parametrize("op", sr.MUTATIONS)
def test_mutations_change_the_code(op):
    import random
    from lexecutor_c.apps.funcsource import code_dump, function_versions
    src = _MOD.replace("    scaled = total % 7\n", "    scaled = total % 7\n    print(scaled)\n")
    src = src.replace("if x > k:", "if x > k and x != 'a':")
    new = sr.apply(src, "g", op, random.Random(1))
    assert new is not None
    a = function_versions(src)["g"]
    b = function_versions(new)["g"]
    assert code_dump(a.node) != code_dump(b.node)
    assert '"""doc"""' in new                         # docstrings are never mutated


def test_variants_are_seeded_and_checked():
    import random
    one = sr.variants(_MOD, "g", sr.MUTATIONS, random.Random(5), 3)
    two = sr.variants(_MOD, "g", sr.MUTATIONS, random.Random(5), 3)
    assert one == two and len(one) == 3 and len({op for op, _ in one}) == 3
    assert sr.variants(_MOD, "nosuch", sr.MUTATIONS, random.Random(5)) == []


def test_a_verdict_given_without_running_is_kept_in_the_repository(tmp_path):
    # a definition only a failed import of the standard library makes: the
    # commit check answers "undecided" without running it (status "static");
    # in its repository that answer is the item's, not an "error"
    r = tmp_path / "fallback"
    r.mkdir()
    _git(r, "init", "-q")
    _git(r, "config", "user.email", "t@example.org")
    _git(r, "config", "user.name", "t")
    mod = r / "compat.py"
    mod.write_text("try:\n    from json import JSONDecodeError\nexcept ImportError:\n"
                   "    def decode_error(msg):\n        return ValueError('bad: ' + msg)\n")
    _git(r, "add", "-A")
    _git(r, "commit", "-q", "-m", "init")
    mod.write_text(mod.read_text().replace("'bad: '", "'Bad: '"))
    _git(r, "commit", "-q", "-am", "reword")
    items = lc.build([str(r)], 5, 5, 12, log=lambda m: None)
    assert [it["function"] for it in items] == ["decode_error"], items
    items[0]["label"] = "preserving"
    path = tmp_path / "set.jsonl"
    lc.save(str(path), items)
    out = tmp_path / "out"
    assert bcm.main(["--labelled", str(path), "--checkouts", str(tmp_path), "--out", str(out),
                     "--max-inputs", "4", "--quiet"]) == 0
    (row,) = [json.loads(x) for x in (out / "labelled.jsonl").read_text().splitlines()]
    assert row["verdict"] == "undecided" and "never runs here" in row["detail"], row
