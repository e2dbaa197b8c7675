"""lexecutor-c commits: one check per changed function, on repositories the
tests build (real instrumenter, runtime, sandbox and git)."""
import json
import shutil
import subprocess
import textwrap

import pytest

from lexecutor_c import cli
from lexecutor_c.apps import behaviour as bh
from lexecutor_c.apps.commits import (CHANGED, SAME, SKIPPED, UNDECIDED, check_commits,
                                      is_test_path, inputs_from_tests, _touched)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

CORE = '''\
import time


def label(n):
    """A label."""
    return "item" + str(n)


def scale(values, factor):
    return [v * factor for v in values]


def greet(name):
    print("hello", name)
    return len(name)


def push(items, x):
    items.append(x)
    return None


def stamp(x):
    return (x, time.time())


def parse_flag(text):
    if text == "on":
        return True
    return False


def _norm(s):
    return s.strip().lower()


def is_yes(s):
    return _norm(s) == "yes"


def fragile(d):
    return d["key"] + 1


class Counter:
    def __init__(self, start):
        self.count = start
        self.history = []

    def bump(self, by):
        self.count += by
        self.history.append(by)
        return self.count

    def describe(self):
        return f"{self.name}: {self.count}"
'''

TESTS = '''\
from pkg.core import scale, Counter


def test_scale():
    assert scale([1, 2], 3) == [3, 6]


def test_bump():
    c = Counter(5)
    assert c.bump(2) == 7
'''


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def new_repo(parent, name):
    """An empty repository ``parent/name`` with an author set."""
    r = parent / name
    r.mkdir()
    git(r, "init", "-q")
    git(r, "config", "user.email", "t@example.org")
    git(r, "config", "user.name", "t")
    return r


def write(repo, path, text):
    p = repo / path
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def commit(repo, msg, files):
    for path, text in files.items():
        write(repo, path, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", msg)


def edit(repo, path, old, new):
    p = repo / path
    text = p.read_text()
    assert old in text, old
    p.write_text(text.replace(old, new))


def step(repo, msg, *edits, path="pkg/core.py"):
    for old, new in edits:
        edit(repo, path, old, new)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", msg)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    r = tmp_path_factory.mktemp("repo")
    git(r, "init", "-q")
    git(r, "config", "user.email", "t@example.org")
    git(r, "config", "user.name", "t")
    write(r, "pkg/__init__.py", "")
    write(r, "pkg/core.py", CORE)
    write(r, "tests/test_core.py", TESTS)
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "initial")
    step(r, "refactor label", ('return "item" + str(n)', 'return f"item{n}"'))
    step(r, "change label", ('return f"item{n}"', 'return f"item-{n}"'))
    step(r, "two functions and a test",
         ("return [v * factor for v in values]", "return [v * factor + 1 for v in values]"),
         ('if text == "on":', 'if text in ("on", "yes"):'))
    edit(r, "tests/test_core.py", "[3, 6]", "[4, 7]")
    git(r, "commit", "-q", "-am", "fix the test")
    step(r, "add and remove",
         ("def fragile(d):", "def sturdy(d):\n    return d.get('key', 0)\n\n\ndef fragile(d):"),
         ('def _norm(s):\n    return s.strip().lower()\n\n\n', ""),
         ("return _norm(s) == \"yes\"", "return s.strip().lower() == \"yes\""))
    step(r, "bump counts twice", ("self.count += by\n", "self.count += 2 * by\n"))
    step(r, "greet louder", ('print("hello", name)', 'print("HELLO", name)'))
    step(r, "push at the front", ("items.append(x)", "items.insert(0, x)"))
    step(r, "stamp refactor", ("return (x, time.time())",
                               "now = time.time()\n    return (x, now)"))
    step(r, "docstring only", ('"""A label."""', '"""The label of an item."""'))
    step(r, "module constant", ("import time\n", "import time\n\nLIMIT = 3\n"))
    step(r, "fragile error type", ('return d["key"] + 1', 'return int(d["key"]) + 1'))
    edit(r, "tests/test_core.py", "def test_bump():", "def test_bump_twice():")
    git(r, "commit", "-q", "-am", "rename a test")
    step(r, "describe refactor", ('return f"{self.name}: {self.count}"',
                                  'return "%s: %s" % (self.name, self.count)'))
    return r


OPTS = dict(seeds=(0,), max_inputs=6, budget=20.0, timeout=5.0)


@pytest.fixture(scope="module")
def checks(repo):
    out = check_commits(str(repo), "HEAD~13..HEAD", **OPTS)
    return {c.subject: c for c in out}


def fn(c, name):
    (f,) = [f for f in c.functions if f.function == name]
    return f


def test_one_check_per_commit_in_order(checks):
    assert list(checks) == [
        "refactor label", "change label", "two functions and a test", "fix the test",
        "add and remove", "bump counts twice", "greet louder", "push at the front",
        "stamp refactor", "docstring only", "module constant", "fragile error type",
        "rename a test", "describe refactor"][1:]
    assert checks["rename a test"].tests == ["tests/test_core.py:test_bump (removed)",
                                             "tests/test_core.py:test_bump_twice (added)"]


def test_refactoring_is_same(repo):
    (c,) = check_commits(str(repo), "HEAD~13", **OPTS)
    assert c.subject == "refactor label"
    assert c.verdict == SAME
    (f,) = c.functions
    assert (f.file, f.function, f.verdict) == ("pkg/core.py", "label", SAME)
    assert f.reached and f.inputs >= 1


def test_value_change_shows_the_input(checks):
    c = checks["change label"]
    assert c.verdict == CHANGED
    f = fn(c, "label")
    assert f.verdict == CHANGED
    assert "return value" in f.detail and "item-" in f.detail
    assert f.input is not None and "n" in f.input["arguments"]
    assert f.old["outcome"] == f.new["outcome"] == "returned"
    assert f.old["ret"] != f.new["ret"]


def test_multi_function_commit_one_check_each_test_apart(checks):
    c = checks["two functions and a test"]
    assert sorted(f.function for f in c.functions) == ["parse_flag", "scale"]
    assert fn(c, "scale").verdict == CHANGED
    assert fn(c, "parse_flag").verdict in (CHANGED, SAME)
    assert c.verdict == CHANGED
    # a test-only commit: reported apart, nothing checked
    t = checks["fix the test"]
    assert t.verdict == SKIPPED and t.functions == []
    assert t.tests == ["tests/test_core.py:test_scale (modified)"]
    assert "tests only" in t.detail


def test_added_and_removed_functions_are_reported(checks):
    c = checks["add and remove"]
    st = {f.function: (f.status, f.verdict) for f in c.functions}
    assert st["sturdy"] == ("added", "added")
    assert st["_norm"] == ("removed", "removed")
    assert st["is_yes"][0] == "modified"
    assert "adds sturdy" in c.detail and "removes _norm" in c.detail


def test_method_with_self_attributes(checks):
    f = fn(checks["bump counts twice"], "Counter.bump")
    assert f.verdict == CHANGED
    # the input comes from the test's call: Counter(5).bump(2)
    assert f.input["call"]["self"] == "Counter(5)"
    assert f.old["ret"] == "'7'" and f.new["ret"] == "'9'"


def test_output_change(checks):
    f = fn(checks["greet louder"], "greet")
    assert f.verdict == CHANGED
    assert f.detail.startswith("printed output")
    assert "hello" in f.old["out"] and "HELLO" in f.new["out"]


def test_argument_mutation(checks):
    f = fn(checks["push at the front"], "push")
    assert f.verdict == CHANGED
    assert f.detail.startswith("arguments after the call")
    assert f.old["ret"] == f.new["ret"] == "'None'"


def test_flaky_function_is_not_changed(checks):
    f = fn(checks["stamp refactor"], "stamp")
    assert f.verdict == SAME       # time.time() differs between any two runs


def test_docstring_only_is_same_without_running(checks):
    f = fn(checks["docstring only"], "label")
    assert (f.status, f.verdict, f.runs) == ("static", SAME, 0)


def test_module_level_change_is_reported(checks):
    c = checks["module constant"]
    assert c.verdict == SKIPPED and c.module_level == ["pkg/core.py"]
    assert "module-level code" in c.detail


def test_exception_types(checks):
    # d["key"] + 1 vs int(d["key"]) + 1: a str value raises TypeError only in
    # the old version, a missing key KeyError in both
    f = fn(checks["fragile error type"], "fragile")
    assert f.verdict == CHANGED
    assert "raises" in f.detail or "return value" in f.detail


def test_format_refactoring_of_a_method_is_same(checks):
    f = fn(checks["describe refactor"], "Counter.describe")
    assert f.verdict == SAME and f.reached


def test_test_calls_become_inputs(repo):
    touched, _, _ = _touched(str(repo), "HEAD~8~1", "HEAD~8")
    (t,) = [t for t in touched if t.qualname == "Counter.bump"]
    (inp,) = inputs_from_tests(str(repo), "HEAD~8", t.new)
    assert inp.call == {"self": "Counter(5)", "args": ["2"], "kwargs": {},
                        "imports": ["from pkg.core import scale, Counter"],
                        "testdir": "tests"}


def test_flaky_output_never_changed(tmp_path):
    """A function whose printed output and return value are random: any
    edit that keeps the randomness is not a change."""
    r = new_repo(tmp_path, "flaky")
    commit(r, "init", {"roll.py": "import random\n\n\ndef roll(n):\n"
                                    "    x = random.random()\n    print(x)\n"
                                    "    return [x] * n\n"})
    edit(r, "roll.py", "    return [x] * n\n", "    out = [x] * n\n    return out\n")
    git(r, "commit", "-q", "-am", "refactor")
    (c,) = check_commits(str(r), "HEAD", **OPTS)
    assert c.verdict == SAME, c.detail


def test_unreached_change_is_undecided(tmp_path):
    r = new_repo(tmp_path, "unreached")
    src = textwrap.dedent('''\
        def f(x):
            raise RuntimeError("always")
            return x + 1
    ''')
    commit(r, "init", {"m.py": src})
    edit(r, "m.py", "return x + 1", "return x + 2")
    git(r, "commit", "-q", "-am", "dead code")
    (c,) = check_commits(str(r), "HEAD", **OPTS)
    assert c.verdict == UNDECIDED
    assert c.functions[0].verdict == bh.UNREACHED
    assert "RuntimeError" in c.functions[0].detail


def test_extract_mode_without_checkouts():
    old = bh.function_versions(CORE, "pkg/core.py")
    new = bh.function_versions(CORE.replace("self.count += by", "self.count -= by"),
                               "pkg/core.py")
    f = bh.check_function(old["Counter.bump"], new["Counter.bump"], **OPTS)
    assert f.mode == "extract"
    assert f.verdict == CHANGED
    same = bh.check_function(old["greet"], bh.function_versions(
        CORE.replace('print("hello", name)', 'print("hello", name, sep=" ")'),
        "pkg/core.py")["greet"], **OPTS)
    assert same.verdict == SAME


def test_is_test_path():
    assert is_test_path("tests/test_x.py") and is_test_path("test_x.py")
    assert is_test_path("pkg/x_test.py") and is_test_path("conftest.py")
    assert not is_test_path("pkg/testing_utils.py") and not is_test_path("pkg/core.py")


def test_snapshot_is_deterministic_and_safe():
    from lexecutor_c import _core
    d = _core.Dummy("x")
    assert bh.snapshot({3, 1, 2}) == ["set", "1", "2", "3"]
    assert bh.snapshot({"b": 1, "a": [d]}) == ["dict", ["'a'", ["list", "<Dummy 'x'>"]],
                                             ["'b'", "1"]]

    class P:
        def __init__(self):
            self.v = 1
    assert bh.snapshot(P())[1] == [["v", "1"]]
    assert "0x" not in str(bh.snapshot(object()))

    # a named tuple by its fields, each shown in full (its repr hides what an
    # object it holds holds), as a tuple still: a dataclass of the same
    # fields shows the same fields, but cannot be unpacked
    import collections
    import dataclasses
    Out = collections.namedtuple("Out", ["data", "flags"])
    got = bh.snapshot(Out(P(), 2))
    assert got[1] == [["data", got[1][0][1]], ["flags", "2"]] and got[2] == "<tuple>"
    assert got[1][0][1][1] == [["v", "1"]]

    @dataclasses.dataclass
    class Out2:
        data: object
        flags: int
    kept = bh.snapshot(Out2(P(), 2))
    assert kept[1] == got[1] and kept != got


def test_cli_table_json_and_fail_on_change(capsys, repo):
    base = ["commits", "--repo", str(repo), "--seeds", "1", "--max-inputs", "4"]
    assert cli.main(base + ["HEAD~13..HEAD~11"]) == 0
    out = capsys.readouterr().out
    assert "change label" in out and "changed" in out and "pkg/core.py:label" in out
    code = cli.main(base + ["HEAD~12", "--fail-on-change", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert doc["summary"]["changed"] == 1
    (c,) = doc["commits"]
    assert c["verdict"] == "changed" and c["functions"][0]["input"]["arguments"]
    assert cli.main(base + ["HEAD~13", "--fail-on-change"]) == 0


def test_staged_changes_for_a_pre_commit_hook(capsys, repo, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    edit(clone, "pkg/core.py", "return len(name)", "return len(name) + 1")
    git(clone, "add", "pkg/core.py")
    code = cli.main(["commits", "--repo", str(clone), "--staged", "--fail-on-change",
                     "--json", "--seeds", "1", "--max-inputs", "4"])
    doc = json.loads(capsys.readouterr().out)
    (c,) = doc["commits"]
    assert c["commit"] == "staged" and c["function"] == "greet"
    assert c["verdict"] == "changed" and code == 1
    # a staged refactoring passes the hook
    git(clone, "reset", "-q", "--hard")
    edit(clone, "pkg/core.py", 'print("HELLO", name)', 'print("HELLO", name, sep=" ")')
    git(clone, "add", "pkg/core.py")
    assert cli.main(["commits", "--repo", str(clone), "--staged", "--fail-on-change",
                     "--seeds", "1", "--max-inputs", "4"]) == 0
    capsys.readouterr()


def test_unparsable_and_binary_versions_are_skipped(tmp_path):
    r = new_repo(tmp_path, "r2")
    commit(r, "init", {"m.py": "def f():\n    return 1\n"})
    commit(r, "broken", {"m.py": "def f(:\n    return 2\n"})
    (r / "m.py").write_bytes(b"\x00\x01binary")
    git(r, "commit", "-q", "-am", "binary")
    checks = {c.subject: c for c in check_commits(str(r), "HEAD~2..HEAD", **OPTS)}
    assert checks["broken"].verdict == SKIPPED and "does not parse" in checks["broken"].detail
    assert checks["binary"].verdict == SKIPPED and "binary" in checks["binary"].detail


@pytest.mark.parametrize("argv, needle", [
    (["--repo", "{tmp}"], "not a git repository"),
    (["--repo", "{tmp}/nope"], "not a directory"),
    (["--repo", "{repo}", "nosuch..HEAD"], "bad revision range"),
    (["--repo", "{repo}", "--seeds", "0"], "--seeds"),
    (["--repo", "{repo}", "--max-inputs", "0"], "--max-inputs"),
    (["--repo", "{repo}", "--max-functions", "0"], "--max-functions"),
    (["--repo", "{repo}", "--staged", "HEAD"], "either a revision range or --staged"),
])
def test_bad_input(capsys, repo, tmp_path, argv, needle):
    argv = [a.format(tmp=tmp_path, repo=repo) for a in argv]
    code = cli.main(["commits", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and needle in err


def test_changes_inside_a_returned_closure_are_reached():
    src = textwrap.dedent('''\
        from functools import wraps


        def memoize(func):
            cache = {}

            @wraps(func)
            def wrapper(*args):
                if args not in cache:
                    cache[args] = func(*args)
                return cache[args]
            return wrapper
    ''')
    old = bh.function_versions(src)["memoize"]
    new = bh.function_versions(src.replace("return cache[args]",
                                           "return [cache[args]]"))["memoize"]
    f = bh.check_function(old, new, **OPTS)
    assert f.verdict == CHANGED and f.reached
    assert "<calls>" in f.old["ret"]


def test_module_mode_with_a_broken_package_and_old_stdlib_names(tmp_path):
    """The package's __init__ fails to import and the module imports a name
    Python 3.10 removed: the module still loads from the checkout, with its
    sibling imported for real (no injection), and the check sees the edit."""
    r = new_repo(tmp_path, "old")
    commit(r, "init", {
        "lib/__init__.py": "raise ImportError('this package needs something missing')\n",
        "lib/util.py": "def twice(x):\n    return 2 * x\n",
        "lib/core.py": textwrap.dedent('''\
            from collections import Mapping
            from .util import twice


            def size(d):
                if isinstance(d, Mapping):
                    return twice(len(d))
                return 0
        '''),
        "tests/test_core.py": "from lib.core import size\n\n\ndef test_size():\n"
                               "    assert size({'a': 1}) == 2\n"})
    edit(r, "lib/core.py", "return twice(len(d))", "return twice(len(d)) + 1")
    git(r, "commit", "-q", "-am", "off by one")
    (c,) = check_commits(str(r), "HEAD", **OPTS)
    (f,) = c.functions
    assert f.mode == "module" and f.verdict == CHANGED
    assert (f.old["ret"], f.new["ret"]) == ("'2'", "'3'")     # real twice(), real Mapping


def test_module_names_in_a_checkout():
    from lexecutor_c.apps.funcsource import module_name_of
    pk = {"src/pkg", "src/pkg/sub"}.__contains__
    assert module_name_of("src/pkg/sub/m.py", pk) == ("src", "pkg.sub.m", False)
    assert module_name_of("src/pkg/__init__.py", pk) == ("src", "pkg", True)
    assert module_name_of("parse.py", pk) == ("", "parse", False)
    # a namespace package (no __init__.py) that the module imports relatively from
    assert module_name_of("ns/m.py", pk, levels=1) == ("", "ns.m", False)


def test_special_methods_get_inputs_from_builtins_and_operators():
    import ast
    from lexecutor_c.apps.commits import _TestFile, _call_input
    src = ("class Bag:\n    def __repr__(self):\n        return 'b'\n"
           "    def __contains__(self, x):\n        return True\n"
           "    def __getitem__(self, k):\n        return k\n")
    v = bh.function_versions(src)
    tf = _TestFile("tests/test_bag.py", "from bag import Bag\n\n\ndef test_bag():\n"
                   "    b = Bag(3)\n    assert repr(b) == 'b'\n    assert 1 in b\n"
                   "    assert Bag()[2] == 2\n")

    def calls(q):
        return [i.call for e in ast.walk(tf.tree) for i in [_call_input(tf, v[q], e)] if i]
    assert [c["self"] for c in calls("Bag.__repr__")] == ["Bag(3)"]
    (c,) = calls("Bag.__contains__")
    assert (c["self"], c["args"]) == ("Bag(3)", ["1"])
    (c,) = calls("Bag.__getitem__")
    assert (c["self"], c["args"]) == ("Bag()", ["2"])


def test_a_renamed_attribute_is_no_change():
    """A refactoring that renames an attribute keeps the object's state (its
    values); values moved between attributes both versions have still
    differ."""
    src = textwrap.dedent('''\
        class Box:
            def __init__(self, value, label):
                self._value = value
                self.label = label
    ''')
    old = bh.function_versions(src)["Box.__init__"]
    renamed = bh.function_versions(src.replace("self._value =", "self._content ="))
    f = bh.check_function(old, renamed["Box.__init__"], **OPTS)
    assert f.verdict == SAME, f.detail
    swapped = bh.function_versions(src.replace("self._value = value", "self._value = label")
                                   .replace("self.label = label", "self.label = value"))
    f = bh.check_function(old, swapped["Box.__init__"], **OPTS)
    assert f.verdict == CHANGED and "self after the call" in f.detail
    # the comparison itself
    obj = "['m.Box', [['_value', \"'a'\"], ['label', '1']]]"
    assert bh._same_value(obj, obj.replace("_value", "_content"))
    assert not bh._same_value(obj, obj.replace("'a'", "'b'").replace("_value", "_content"))
    assert not bh._same_value(obj, "['m.Other', [['_content', \"'a'\"], ['label', '1']]]")
    # an attribute only the new version sets is a change of the object's
    # state (issue 20); so is a value lost
    assert not bh._same_value(obj, obj.replace("['label', '1']", "['label', '1'], ['x', '2']"))
    assert not bh._same_value(obj, obj.replace("['label', '1']", "['label', '3'], ['x', '2']"))
    assert not bh._same_value(obj, obj.replace("_value", "_content").replace("'a'", "'c'")
                              .replace("['label', '1']", "['label', '1'], ['x', '2']"))
    assert not bh._same_value("['list', '1', '2']", "['list', '2', '1']")


def test_an_added_parameter_is_no_change_of_the_other_arguments():
    # (a call with the new argument raised TypeError with the old version: a
    # change of the signature, found without running)
    old = bh.function_versions("def put(items, x):\n    items.append(x)\n")["put"]
    new = bh.function_versions("def put(items, x, log=print):\n"
                               "    items.append(x)\n")["put"]
    f = bh.check_function(old, new, **OPTS)
    assert f.verdict == CHANGED and f.evidence == "signature", f.detail
    # where ``**kw`` took it before, the runs compare the other arguments alike
    old = bh.function_versions("def put(items, x, *rest, **kw):\n    items.append(x)\n")["put"]
    new = bh.function_versions("def put(items, x, *rest, log=print, **kw):\n"
                               "    items.append(x)\n")["put"]
    f = bh.check_function(old, new, **OPTS)
    assert f.verdict == SAME, f.detail
    assert bh._same_value("['1', '2']", "['1', '2', '3']", arguments=True)
    assert not bh._same_value("['1', '2']", "['1', '5', '3']", arguments=True)
    assert bh._same_value("['1', '2']", "['1', '9', '2']", arguments=True)   # in the middle
    assert not bh._same_value("['1', '2']", "['1', '2']".replace("2", "3") + "", arguments=True)


def test_a_stand_in_lacking_an_operation_is_no_evidence():
    """``x.copy()`` and ``x[:]`` on a list are alike; on the generator's
    empty stand-in class one gets an injected attribute and the other a
    TypeError: that says nothing about the function."""
    src = textwrap.dedent('''\
        class Parser:
            def __init__(self):
                self._fields = []

            @property
            def fields(self):
                return self._fields.copy()
    ''')
    old = bh.function_versions(src)["Parser.fields"]
    new = bh.function_versions(src.replace("self._fields.copy()", "self._fields[:]"))
    f = bh.check_function(old, new["Parser.fields"], **OPTS)
    assert f.verdict != CHANGED, (f.detail, f.input)
    prefix = "class C_self__fields:\n    pass\n"
    r = {"outcome": "raised:TypeError", "message": "'C_self__fields' object is not subscriptable"}
    assert bh._stand_in_failure(r, prefix)
    assert not bh._stand_in_failure(r, "")             # a class of the code under test
    assert bh._stand_in_failure({"outcome": "raised:TypeError", "message":
                                 "sequence item 1: expected str instance, "
                                 "lexecutor_c._core.Dummy found"}, "")
    assert not bh._stand_in_failure({"outcome": "raised:ValueError",
                                     "message": "'C_self__fields'"}, prefix)
    assert bh._stand_in_failure({"outcome": "raised:ValueError", "message":
                                 "callable <Dummy 'func'> is not supported by signature"}, "")


def test_both_failing_on_made_up_values_is_no_evidence():
    """Both versions raise on the generator's values, in different places:
    no evidence; on a test's own call a different exception type still is
    one (test_exception_types), and so is one version returning."""
    a = {"outcome": "raised:AttributeError", "message": "'int' object has no attribute 'x'"}
    b = {"outcome": "raised:TypeError", "message": "expected str, not list"}
    ok = {"outcome": "returned", "ret": "'1'"}
    made_up = bh.Input("items = [1, 2]\n", None)
    from_test = bh.Input("", {"self": None, "args": ["[1, 2]"], "kwargs": {}})
    assert bh._artefact(a, b, made_up)
    assert not bh._artefact(a, b, from_test)
    assert not bh._artefact(a, ok, made_up)


def test_a_test_files_source_segments_are_read_without_resplitting_it():
    import ast as _ast
    from lexecutor_c.apps.commits import _TestFile
    text = ("import x\r\ndef test_a():\n    assert f('\u00e9', [1,\n  2]) == '\u00fc'  \r"
            "z = g(\u00e9l\u00e8ve)\n\x0cq = h(1)")
    tf = _TestFile("t.py", text)
    nodes = [n for n in _ast.walk(tf.tree) if getattr(n, "end_col_offset", None) is not None]
    assert len(nodes) > 10
    for n in nodes:
        assert tf.src(n) == (_ast.get_source_segment(text, n) or ""), _ast.dump(n)
    assert tf.src(tf.tree) == ""


def test_a_touched_test_at_the_end_of_a_long_test_file_gives_the_first_input(tmp_path):
    # the search for test calls stops once it has enough of the others; the
    # test the commit added, after a hundred others, still comes first
    r = new_repo(tmp_path, "long")
    others = "".join(f"\n\ndef test_{i}():\n    assert twice({i}) == {2 * i}\n"
                     for i in range(100))
    commit(r, "init", {"m.py": "def twice(x):\n    return x * 2\n",
                       "test_m.py": "from m import twice\n" + others})
    edit(r, "test_m.py", others, others + "\n\ndef test_odd():\n    assert twice(-7) == -14\n")
    git(r, "commit", "-q", "-am", "a test")
    touched, _, _ = _touched(str(r), "HEAD~1", "HEAD")
    tests = [(t.path, t.qualname) for t in touched if t.test and t.new is not None]
    assert tests == [("test_m.py", "test_odd")]
    from lexecutor_c.apps.funcsource import function_versions
    v = function_versions((r / "m.py").read_text(), "m.py")["twice"]
    got = inputs_from_tests(str(r), "HEAD", v, tests)
    assert got[0].call["args"] == ["-7"], [i.call for i in got[:3]]


def _clock_commit(tmp_path, name: str, methods: str, expected: str):
    """A package whose ``Clock`` (built by ``Clock.named``, which triples
    the zone) has ``methods``; a test asserting
    ``pkg.Clock.named('abc').label() == expected``; then a commit that makes
    the method returning "even" return "odd" for a zone of 9 characters.
    The check of that commit."""
    r = new_repo(tmp_path, name)
    core = textwrap.dedent('''\
        class Clock:
            def __init__(self, zone):
                self.zone = zone

            @classmethod
            def named(cls, zone):
                return cls(zone * 3)
        ''') + textwrap.indent(textwrap.dedent(methods), "    ")
    commit(r, "init", {"pkg/__init__.py": "from .core import Clock\n", "pkg/core.py": core,
                       "tests/test_clock.py": "import pkg\n\n\ndef test_label():\n"
                       f"    assert pkg.Clock.named('abc').label() == {expected!r}\n"})
    edit(r, "pkg/core.py", '''        return "even"\n''',
         '''        if len(self.zone) % 11 == 9:\n            return "odd"\n'''
         '''        return "even"\n''')
    git(r, "commit", "-q", "-am", "odd zones")
    (c,) = check_commits(str(r), "HEAD", **OPTS)
    return c


def test_a_tests_object_built_through_the_package_runs_the_versions_method(tmp_path):
    # ``import pkg; pkg.Clock.named("abc").label()``: the test's object is of
    # the package's own class, not of the version loaded from source; it runs
    # as an object of the version's class with its state (it was refused as
    # "another class", and only the test's object shows the edit)
    c = _clock_commit(tmp_path, "clock", '''
        def label(self):
            return "even"
        ''', "even")
    (f,) = [f for f in c.functions if f.function == "Clock.label"]
    assert f.verdict == CHANGED, f.detail
    assert f.input["note"].startswith("test call"), f.input


def test_a_caller_reached_through_the_package_runs_on_the_versions_class(tmp_path):
    # the test calls ``pkg.Clock.named("abc").label()``; the changed method
    # is ``_mark``, which ``label`` calls: the entry's object is of the
    # package's own ``Clock`` and was refused as "another class" (no input
    # reached the change); it runs as an object of the version's class
    c = _clock_commit(tmp_path, "clockentry", '''
        def _mark(self):
            return "even"

        def label(self):
            return self._mark().upper()
        ''', "EVEN")
    (f,) = [f for f in c.functions if f.function == "Clock._mark"]
    assert f.verdict == CHANGED, f.detail
    assert "through Clock.label" in f.input["note"], f.input


def test_an_object_of_the_installed_class_as_one_of_the_versions_class():
    from lexecutor_c.apps.funcrun import _as_version_class

    def clock_class(module, **extra):
        return type("Clock", (), {"__module__": module, "__init__":
                                  lambda self, z: setattr(self, "zone", z), **extra})
    installed, version = clock_class("pkg.core"), clock_class("core")
    twin = _as_version_class(installed("abc"), version)
    assert type(twin) is version and twin.zone == "abc"
    # another class of that name, or one in another module: refused
    assert _as_version_class(installed("abc"), clock_class("pkg.other")) is None
    other = type("Watch", (), {"__module__": "core"})
    assert _as_version_class(installed("abc"), other) is None
    # a layout the state does not carry over to (slots): refused
    slotted = type("Clock", (), {"__module__": "core", "__slots__": ("zone", "tick")})
    assert _as_version_class(installed("abc"), slotted) is None


def test_a_namedtuple_method_runs_on_a_tuple_built_from_its_fields(tmp_path):
    # a method of a ``typing.NamedTuple`` in its repository: ``__new__``
    # alone cannot build the object (three fields missing), and every input
    # ended in "input:TypeError"; the tuple is built from its fields
    r = new_repo(tmp_path, "sizes")
    core = textwrap.dedent('''\
        from typing import NamedTuple


        class Size(NamedTuple):
            w: int
            h: int

            def area(self):
                return self.w * self.h
        ''')
    commit(r, "init", {"pkg/__init__.py": "", "pkg/core.py": core})
    edit(r, "pkg/core.py", "        return self.w * self.h\n",
         "        return max(self.w, 0) * self.h\n")
    git(r, "commit", "-q", "-am", "no negative area")
    (c,) = check_commits(str(r), "HEAD", **OPTS)
    (f,) = [f for f in c.functions if f.function == "Size.area"]
    assert "input:TypeError" not in (f.detail or ""), f.detail
    assert f.verdict == CHANGED, f.detail


FINDER = '''\
import importlib
import os


def locate(package, name):
    mod = importlib.import_module(package)
    base = os.path.dirname(mod.__file__)
    if ".." in name.split("/"):
        raise ValueError("name escapes package: %r" % name)
    return os.path.join(base, name)
'''

FINDER_TESTS = '''\
import pytest

from pkg.finder import locate


def test_inside():
    assert locate("fixture_pkg", "data.txt").endswith("data.txt")


def test_escape():
    with pytest.raises(ValueError):
        locate("fixture_pkg", "../x")
'''


def test_a_test_s_helpers_import_from_where_pytest_puts_them_and_checkouts_read_alike(
        tmp_path):
    """A test's call of the function imports a data package that sits beside
    the test file (``tests/fixture_pkg``, importable under pytest's
    "prepend" mode): the call reaches the reworded message.  The two
    versions' checkouts are two folders; a path into them is no difference
    (a rewrite that keeps behaviour is not "changed")."""
    from lexecutor_c.apps.commits import test_basedir
    r = new_repo(tmp_path, "finder")
    commit(r, "base", {"pkg/__init__.py": "", "pkg/finder.py": FINDER,
                       "tests/test_finder.py": FINDER_TESTS,
                       "tests/fixture_pkg/__init__.py": "",
                       "tests/unit/__init__.py": "", "tests/unit/test_x.py": ""})
    assert test_basedir(str(r), "HEAD", "tests/test_finder.py") == "tests"
    assert test_basedir(str(r), "HEAD", "tests/unit/test_x.py") == "tests"
    assert test_basedir(str(r), "HEAD", "test_top.py") == ""
    step(r, "reword", ('"name escapes package: %r"', '"Name escapes package: %r"'),
         path="pkg/finder.py")
    step(r, "rename a local", ("base = os.path.dirname(mod.__file__)",
                               "folder = os.path.dirname(mod.__file__)"),
         ("return os.path.join(base, name)", "return os.path.join(folder, name)"),
         path="pkg/finder.py")
    reworded, renamed = check_commits(str(r), "HEAD~2..HEAD")
    (f,) = [x for x in reworded.functions if x.function == "locate"]
    assert f.verdict == CHANGED, f.detail
    assert "Name escapes package" in f.detail and "'../x'" in f.detail, f.detail
    (g,) = [x for x in renamed.functions if x.function == "locate"]
    assert g.verdict != CHANGED, g.detail
    assert bh._without_checkout({"ret": ["/tmp/c/t1/pkg", 3]}, "/tmp/c/t1") == \
        {"ret": ["<checkout>/pkg", 3]}


def test_a_function_its_module_leaves_unreached_is_checked_alone_too(tmp_path):
    # the module's real setting never lets the changed line run; the
    # function alone, its setting made up, is told apart: "changed", said
    # to come from the function alone
    r = new_repo(tmp_path, "alone")
    commit(r, "initial", {"pkg/__init__.py": "", "pkg/config.py": "MODE = None\n",
                          "pkg/core.py": "from .config import MODE\n\n\n"
                                         "def speed(x):\n    if MODE == 'fast':\n"
                                         "        return x + 1\n    return x\n\n\n"
                                         "def same(x):\n    return x * 2\n"})
    step(r, "faster", ("return x + 1", "return x + 2"))
    step(r, "refactor", ("return x * 2", "y = x * 2\n    return y"))
    out = check_commits(str(r), "HEAD~2..HEAD", **OPTS)
    f = fn(out[0], "speed")
    assert f.verdict == CHANGED and f.mode == "extract", (f.verdict, f.detail)
    assert "the function alone; in its module: unreached" in f.detail
    # a module's own answer other than undecided or unreached stands
    g = fn(out[1], "same")
    assert g.verdict != CHANGED and g.mode == "module", (g.verdict, g.detail)


def test_a_caller_s_run_that_went_apart_before_the_function_ran_is_no_evidence(tmp_path):
    # tabulate's ``_build_line`` reached through ``tabulate``: the commit
    # also rebuilt a table of the module, which the caller hands a helper
    # before the function runs; the function's own edit is a refactoring
    core = ("TABLE = ('a', 'b')\n\n\n"
            "def _prepare(table):\n    return [str(x) for x in table]\n\n\n"
            "def show(row):\n    return '|'.join(row)\n\n\n"
            "def render():\n    return show(_prepare(TABLE))\n")
    tests = "from pkg.core import render\n\n\ndef test_render():\n" \
            "    assert render() == 'a|b'\n"
    r = new_repo(tmp_path, "caller")
    commit(r, "initial", {"pkg/__init__.py": "", "pkg/core.py": core,
                          "tests/test_core.py": tests})
    step(r, "a list, and a separator named",
         ("TABLE = ('a', 'b')", "TABLE = ['a', 'b']"),
         ("return '|'.join(row)", "sep = '|'\n    return sep.join(row)"))
    (c,) = check_commits(str(r), "HEAD~1..HEAD", **OPTS)
    f = fn(c, "show")
    assert f.verdict != CHANGED, f.detail
    # the runs through the caller: apart before ``show`` ran
    a = {"target_at": 1, "calls": repr([["internal:_prepare", [["tuple", "'a'"]], []]])}
    b = {"target_at": 1, "calls": repr([["internal:_prepare", [["list", "'a'"]], []]])}
    assert bh._apart_before_target(a, b)
    assert not bh._apart_before_target(a, dict(a))
    assert not bh._apart_before_target(a, dict(b, target_at=None))
    assert not bh._apart_before_target(dict(a, target_at=0), dict(b, target_at=0))
