"""%%lexecute and %lexecute_treefix through IPython's own test shell."""
import pytest

pytest.importorskip("IPython")
from IPython.core.error import UsageError  # noqa: E402
from IPython.testing.globalipapp import get_ipython  # noqa: E402

import lexecutor_c  # noqa: E402
from lexecutor_c import _core  # noqa: E402
from lexecutor_c.integrations.magics import LexecuteReport  # noqa: E402


@pytest.fixture(scope="module")
def ip():
    shell = get_ipython()
    shell.run_line_magic("load_ext", "lexecutor_c")
    return shell


def test_cell_runs_with_injections_in_the_user_namespace(ip):
    ip.user_ns.pop("train_len", None)
    report = ip.run_cell_magic("lexecute", "", (
        "def helper(n):\n"
        "    return n * scale\n"
        "if not has_min_size(all_data):\n"
        "    raise RuntimeError('not enough data')\n"
        "train_len = round(0.8 * len(all_data))\n"
        "result = helper(train_len)\n"))
    assert isinstance(report, LexecuteReport)
    assert report.exception is None
    assert ip.user_ns["train_len"] == 1                 # len(Dummy) == 1
    names = [i.name for i in report.injections]
    assert "has_min_size" in names and "all_data" in names and "scale" in names
    # an `if` line counts when its block is entered (docs/LOADERS.md)
    assert report.coverage["covered"] == [1, 2, 5, 6]
    assert report.coverage["uncovered"] == [3, 4]
    text = repr(report)
    assert "has_min_size" in text and "line  kind" in text
    # what ran, in words: the if ran its test; helper's body ran (scale injected)
    assert report.lines_ran.ran == [1, 2, 3, 5, 6]
    assert "5 of the 6 lines ran (line 4, the raise, was skipped)" in text
    html = report._repr_html_()
    assert "<table" in html and "has_min_size" in html
    # the magic switched the hook off again; the helper it defined stays usable
    assert not _core._hook_info()["active"]
    with pytest.raises(NameError):
        ip.user_ns["helper"](2)


def test_cell_exception_is_reported_and_hook_restored(ip, capsys):
    report = ip.run_cell_magic("lexecute", "-p as-is", "x = undefined_name_here + 1\n")
    assert isinstance(report.exception, NameError)
    assert "raised NameError" in repr(report)
    assert not _core._hook_info()["active"]


def test_quiet_and_options(ip):
    assert ip.run_cell_magic("lexecute", "-q -p random -s 3", "y = missing_thing\n") is None
    assert "y" in ip.user_ns


def test_bad_input_raises_usage_error(ip):
    with pytest.raises(UsageError):
        ip.run_cell_magic("lexecute", "-p no-such-predictor", "x = 1\n")
    with pytest.raises(UsageError):
        ip.run_cell_magic("lexecute", "--no-such-flag", "x = 1\n")
    with pytest.raises(UsageError):
        ip.run_cell_magic("lexecute", "", "   \n")
    assert not _core._hook_info()["active"]


def test_syntax_error_is_shown_not_raised(ip, capsys):
    assert ip.run_cell_magic("lexecute", "", "def broken(:\n") is None
    captured = capsys.readouterr()
    assert "SyntaxError" in captured.out + captured.err


def test_help_is_the_docstring(ip):
    doc = ip.find_cell_magic("lexecute").__doc__
    assert "learning-guided execution" in doc and "--predictor" in doc


def test_treefix_magic_runs_the_prefix_loop_on_a_cell(ip, capsys):
    r = ip.run_cell_magic("lexecute_treefix", "",
                          "if x is None:\n    a = 1\nelse:\n    b = x.year\n")
    assert r.coverage == 1.0 and r.prefixes
    assert "together, all 3 lines ran" in capsys.readouterr().out


def test_missing_module_is_imported_not_injected(ip):
    ip.user_ns.pop("json", None)
    ip.user_ns.pop("parsed", None)
    report = ip.run_cell_magic("lexecute", "", "parsed = json.loads('[1, 2]')\n")
    assert report.exception is None
    assert ip.user_ns["parsed"] == [1, 2]              # the real json, not a Dummy
    assert report.injections == []
    assert report.imported_modules == [{"name": "json", "module": "json", "imported": True}]
    assert "imported json (the code uses it without importing it)" in repr(report)
    assert "imported json" in report._repr_html_()


def test_no_import_missing_injects_the_module(ip):
    ip.user_ns.pop("json", None)
    report = ip.run_cell_magic("lexecute", "-n", "parsed = json.loads('[1, 2]')\n")
    assert "json" not in ip.user_ns
    assert [i.name for i in report.injections if i.kind == "name"] == ["json"]
    assert report.imported_modules == []


def test_alias_of_a_module_not_installed_is_injected_with_its_package(ip, monkeypatch):
    from lexecutor_c.engine import autoimport
    monkeypatch.setitem(autoimport.WELL_KNOWN, "nopkg_alias", "no_such_module_xyz.sub")
    report = ip.run_cell_magic("lexecute", "", "v = nopkg_alias.thing(1)\n")
    assert [i.name for i in report.injections if i.kind == "name"] == ["nopkg_alias"]
    assert report.imported_modules == [{
        "name": "nopkg_alias", "module": "no_such_module_xyz.sub", "imported": False,
        "package": "no_such_module_xyz", "reason": "not installed"}]
    assert "not installed here: injected instead" in repr(report)
