"""lexecutor-c errors: runtime errors in (incomplete) competitive-programming
style programs, told apart from crashes caused by injected values."""
import json
import pathlib
import sys
import types

import pytest

from lexecutor_c import cli
from lexecutor_c.apps.errors import INJECTED, MISSING, REAL, derived_names, find_errors, reads_at

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs" / "errors"

#: program -> (exception type, line) of its known crash, complete version
KNOWN = {
    "orca": ("ZeroDivisionError", 13),
    "index": ("IndexError", 12),
    "key": ("KeyError", 11),
}


def stdin_of(name):
    p = PROGRAMS / f"{name}.in"
    return p.read_bytes() if p.exists() else None


@pytest.mark.parametrize("prog", sorted(KNOWN))
def test_complete_program_crash_is_found_and_real(prog):
    rep = find_errors(PROGRAMS / f"{prog}_complete.py", stdin=stdin_of(f"{prog}_complete"),
                      seeds=2, use_treefix=False)
    assert [(g.type, g.line, g.category) for g in rep.errors] == [(*KNOWN[prog], REAL)]
    g = rep.errors[0]
    # nothing to inject and the input is given: the plain run is the program's
    # own behaviour, and the only run
    assert rep.source_of_runs == "plain"
    assert g.runs == len(rep.runs) == 1 and rep.runs[0].injections == []
    assert g.why_real == "operands" and g.operation


def test_orca_message():
    rep = find_errors(PROGRAMS / "orca_complete.py", seeds=0, use_treefix=False)
    assert rep.errors[0].message == "division by zero"


@pytest.mark.parametrize("prog", sorted(KNOWN))
def test_incomplete_program_never_blames_the_code_for_injected_values(prog):
    """What the tool guarantees once imports, definitions and initial values
    are gone: whatever is found, a crash on a line that reads an injected
    value (or one computed from it) is not reported as the code's own."""
    rep = find_errors(PROGRAMS / f"{prog}_incomplete.py", seeds=5, use_treefix=False)
    assert rep.real == []
    for g in rep.errors:
        assert g.category != REAL
        if g.category == INJECTED:
            assert g.involved or "Dummy" in g.message
    for r in rep.runs:
        if r.exception is not None and r.category != MISSING:
            assert r.injections                # the run had injected values


def test_orca_incomplete_naive_run_injects_the_augmented_assignment():
    # `total += i` with total undefined: the instrumenter routes the read of
    # total through a loader, so the naive run goes on to the end
    rep = find_errors(PROGRAMS / "orca_incomplete.py", seeds=0, use_treefix=False)
    (run,) = rep.runs
    assert run.exception is None and run.status == "ok"
    assert not rep.real


def test_treefix_prefixes_restore_the_real_crash(monkeypatch):
    fake = types.ModuleType("lexecutor_c.treefix")

    class T:
        prefixes = ["n = 4\nans = ''\ntotal = 4\n", "n = 0\ntotal = 1\n"]

    fake.treefix = lambda source, generator="offline": T()
    monkeypatch.setitem(sys.modules, "lexecutor_c.treefix", fake)
    rep = find_errors(PROGRAMS / "orca_incomplete.py", seeds=0)
    assert rep.source_of_runs == "treefix+injection"
    assert [r.label for r in rep.runs] == ["naive injection", "treefix prefix 1",
                                           "treefix prefix 2"]
    first = rep.errors[0]
    # line numbers are those of the incomplete file, not of prefix + file;
    # the crash needs the prefix's values (n = 0 does not raise it): derived
    assert (first.type, first.line, first.category) == ("ZeroDivisionError", 10, "derived")
    assert first.labels == ["treefix prefix 1"] and "total" in first.involved
    assert rep.runs[2].status == "ok"          # n = 0: the loop never runs, 1/(1-13)


def test_broken_treefix_falls_back(monkeypatch):
    fake = types.ModuleType("lexecutor_c.treefix")

    def boom(source, generator="offline"):
        raise RuntimeError("no model")

    fake.treefix = boom
    monkeypatch.setitem(sys.modules, "lexecutor_c.treefix", fake)
    rep = find_errors(PROGRAMS / "orca_incomplete.py", seeds=0)
    assert rep.source_of_runs == "injection"
    assert any("treefix failed" in n for n in rep.notes)


def test_injected_value_crash_is_attributed():
    rep = find_errors("x = 1\ny = x + 1\nz = [1, 2][k]\n", seeds=0, use_treefix=False)
    # naive: k is a Dummy, index 1 -> fine; now force an obviously injected crash
    assert rep.errors == []
    rep = find_errors("v = [0][len(missing) + 5]\n", seeds=0, use_treefix=False)
    (g,) = rep.errors
    assert (g.type, g.category, g.involved) == ("IndexError", INJECTED, ["missing"])
    assert g.operation == "[0][len(missing) + 5]"


def test_derived_values():
    import ast
    tree = ast.parse("for i in range(n):\n    t = i * 2\nu = t + 1\nw = 5\nr = 1 / (u - 3)\n")
    assert derived_names(tree, {"n"}) == {"i", "t", "u", "r"}
    assert reads_at(tree, 5) == ({"u"}, set())
    rep = find_errors("t = 0\nfor i in range(n):\n    t = 3\nr = 1 / (t - 3)\n", seeds=0,
                      use_treefix=False)
    (g,) = rep.errors
    assert (g.type, g.line, g.category) == ("ZeroDivisionError", 4, "derived")


def test_cli(capsys):
    p = str(PROGRAMS / "index_complete.py")
    code = cli.main(["errors", p, "--stdin", str(PROGRAMS / "index_complete.in"),
                     "--seeds", "1", "--no-treefix"])
    out, err = capsys.readouterr()
    assert code == 1 and "IndexError" in out and "real" in out
    code = cli.main(["errors", str(PROGRAMS / "key_incomplete.py"), "--seeds", "1",
                     "--json", "--no-treefix"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["version"] == 1 and len(doc["runs"]) == 2
    assert all(g["category"] != "real" for g in doc["errors"])


@pytest.mark.parametrize("content, needle", [
    (b"\x00\x01", "binary"),
    (b"def f(:\n", "syntax error"),
])
def test_bad_input(capsys, tmp_path, content, needle):
    p = tmp_path / "bad.py"
    p.write_bytes(content)
    code = cli.main(["errors", str(p)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and needle in err
    assert cli.main(["errors", str(tmp_path / "missing.py")]) == 2


# ---------------------------------------------------------------- issue 12's examples

def test_crash_for_every_injected_value_is_real():
    """`total - total` is 0 whatever n is: the ZeroDivisionError is the
    code's own although its operands are computed from the injected n."""
    rep = find_errors("total = 0\nfor i in range(n):\n    total += i\n"
                      "print(1 / (total - total))\n", seeds=5, use_treefix=False)
    (g,) = rep.errors
    assert (g.type, g.line, g.category, g.why_real) == ("ZeroDivisionError", 4, REAL,
                                                         "every value")
    assert g.operation == "1 / (total - total)" and g.involved == ["n"]
    assert g.distinct_values >= 2 and g.runs == len(rep.runs) == 6
    # range(n) honours the use site: n is an int in every run, no TypeError
    assert all(r.exception["type"] == "ZeroDivisionError" for r in rep.runs)
    assert all(isinstance(eval(r.inputs["n"]), int) for r in rep.runs)


def test_crash_on_values_of_the_code_is_real_beside_injected_names():
    """The verdict follows the failing operation (`r ** 2`), not the line:
    `scale` is injected but the power fails before it is used."""
    rep = find_errors("r = '2'\narea = scale * r ** 2\nprint(area)\n", seeds=3,
                      use_treefix=False)
    g = rep.errors[0]
    assert (g.type, g.line, g.category, g.why_real) == ("TypeError", 2, REAL, "operands")
    assert g.operation == "r ** 2" and g.involved == []
    assert any(i["name"] == "scale" for r in rep.runs for i in r.injections)


def test_a_crash_that_depends_on_the_injected_value_is_not_real():
    rep = find_errors("xs = [1, 2, 3]\nprint(xs[k])\n", seeds=5, use_treefix=False)
    assert rep.real == []


def test_stripped_stdlib_import_is_restored():
    """`math` was stripped: it comes back from the standard library, so
    math.ceil is the real one (no Dummy whose ceil is a list)."""
    rep = find_errors("x = 7\nprint(math.ceil(x / 2))\nprint(1 // (x - 7))\n", seeds=2,
                      use_treefix=False)
    assert rep.restored_imports == ["import math"]
    assert rep.source_of_runs == "plain"
    (g,) = rep.errors
    assert (g.type, g.line, g.category) == ("ZeroDivisionError", 3, REAL)
    rep = find_errors("print(math.ceil(7 / 2))\n", seeds=0, use_treefix=False,
                      restore=False)
    assert rep.restored_imports == [] and rep.runs[0].injections


@pytest.mark.parametrize("message", [
    "'Dummy' object is not subscriptable",
    "unsupported operand type(s) for +: 'int' and 'lexecutor_c._core.Dummy'",
    "<Dummy x> has no len()",
])
def test_message_naming_our_dummy_is_never_real(message):
    from lexecutor_c.apps.errors import _classify
    exc = {"type": "TypeError", "message": message, "line": 1, "operation": None,
           "dummy_in_library": False, "dummy_values": []}
    assert _classify(exc, [], None)[0] == INJECTED


def test_cli_shows_operation_verdict_and_inputs(capsys, tmp_path):
    p = tmp_path / "zero.py"
    p.write_text("total = 0\nfor i in range(n):\n    total += i\nprint(1 / (total - total))\n")
    code = cli.main(["errors", str(p), "--seeds", "3", "--no-treefix"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "1 / (total - total)" in out and "every injected value" in out and "n=" in out
    p.write_text("x = 7\nprint(math.floor(x / 2))\n")
    code = cli.main(["errors", str(p), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["restored_imports"] == ["import math"] and doc["errors"] == []
    code = cli.main(["errors", str(p), "--json", "--no-restore", "--no-treefix", "--seeds", "0"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["restored_imports"] == [] and doc["runs"][0]["injections"]
