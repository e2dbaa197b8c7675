"""The commit check's engine on two versions without git (issue 20):
lexecutor_c.compare / ``lexecutor-c compare``.  One small pair per kind of
edit the issue lists (each must say "changed"), semantics-preserving
refactorings (never "changed"), the verdicts' evidence, and the parts:
inputs aimed at the diff, the interaction trace's callee names."""
import ast
import json
import textwrap

import pytest

import lexecutor_c as lx
from lexecutor_c import cli
from lexecutor_c.apps.compare import Comparison, changed_functions, compare_sources
from lexecutor_c.apps.diffinputs import aimed_inputs
from lexecutor_c.apps.funcrun import callee_name
from lexecutor_c.apps.funcsource import changed_lines, function_versions


def d(s):
    return textwrap.dedent(s).lstrip("\n")


# (name, old, new, function) -- each edit changes behaviour, and only on
# inputs that the edit's own constants and conditions point at
CHANGING = [
    ("dict_entry", """
        def version_label(x):
            names = {10: '1', 20: '2', 30: '3'}
            return names.get(x, 'unknown')
        """, """
        def version_label(x):
            names = {10: '1', 20: '2.0', 30: '3'}
            return names.get(x, 'unknown')
        """, None),
    ("membership_widened", """
        def is_json(mime):
            if 'json' in mime:
                return True
            return False
        """, """
        def is_json(mime):
            if any(t in mime for t in ('json', 'javascript', 'text')):
                return True
            return False
        """, None),
    ("warn_stacklevel", """
        import warnings

        def old_api(x):
            warnings.warn("old_api is deprecated", DeprecationWarning)
            return x + 1
        """, """
        import warnings

        def old_api(x):
            warnings.warn("old_api is deprecated", DeprecationWarning, stacklevel=2)
            return x + 1
        """, None),
    ("default_value", """
        def chunks(items, size=10):
            return [items[i:i + size] for i in range(0, len(items), size)]
        """, """
        def chunks(items, size=20):
            return [items[i:i + size] for i in range(0, len(items), size)]
        """, None),
    ("message_reworded", """
        def check_port(port):
            if port < 0:
                raise ValueError("bad port")
            return port
        """, """
        def check_port(port):
            if port < 0:
                raise ValueError("port must not be negative")
            return port
        """, None),
    ("platform_branch", """
        import sys

        def config_dir(home):
            return home + "/.config"
        """, """
        import sys

        def config_dir(home):
            if sys.platform == "win32":
                return home + "/AppData"
            return home + "/.config"
        """, None),
    ("errno_branch", """
        import errno
        import os

        def ensure_dir(path):
            try:
                os.makedirs(path)
            except OSError as e:
                raise
            return path
        """, """
        import errno
        import os

        def ensure_dir(path):
            try:
                os.makedirs(path)
            except OSError as e:
                if e.errno != errno.EEXIST:
                    raise
            return path
        """, None),
    ("early_return", """
        def first(items):
            return items[0]
        """, """
        def first(items):
            if not items:
                return None
            return items[0]
        """, None),
    ("logger_call_added", """
        import logging
        log = logging.getLogger("x")

        def total(xs):
            return sum(xs)
        """, """
        import logging
        log = logging.getLogger("x")

        def total(xs):
            log.debug("summing %d items", len(xs))
            return sum(xs)
        """, None),
    ("isinstance_branch", """
        def norm(v):
            return str(v).strip()
        """, """
        def norm(v):
            if isinstance(v, bytes):
                return v.decode().strip()
            return str(v).strip()
        """, None),
    ("attribute_guard_of_self", """
        class Reader:
            def mode_name(self):
                if self.mode == 'r':
                    return 'read'
                return 'other'
        """, """
        class Reader:
            def mode_name(self):
                if self.mode == 'r':
                    return 'read'
                if self.mode == 'w':
                    return 'write'
                return 'other'
        """, "Reader.mode_name"),
    ("two_conditions_and_optional_parameters", """
        def backoff(start, stop, count=None, factor=2.0):
            if count is None:
                count = int(stop / start) // int(factor - 1) + 1
            return count
        """, """
        def backoff(start, stop, count=None, factor=2.0):
            if count is None:
                if factor == 1.0:
                    raise ValueError('expected factor > 1.0')
                count = int(stop / start) // int(factor - 1) + 1
            return count
        """, None),
    ("keyword_passed_to_a_helper", """
        def remap(root, enter=None, cache=True):
            return root

        def research(root):
            return remap(root, enter=len)
        """, """
        def remap(root, enter=None, cache=True):
            return root

        def research(root):
            return remap(root, enter=len, cache=False)
        """, "research"),
    ("relative_boundary", """
        def fits(val, n):
            if val > 2 ** n:
                raise ValueError('too big')
            return True
        """, """
        def fits(val, n):
            if val >= 2 ** n:
                raise ValueError('too big')
            return True
        """, None),
    ("case_shown_by_a_doctest", """
        def fraction_us(s):
            parts = s.split('.')
            return int(parts[-1])
        """, """
        def fraction_us(s):
            """ + '"""' + """
            >>> fraction_us('00.851')
            851000
            """ + '"""' + """
            parts = s.split('.')
            if len(parts) > 1:
                return int(parts[1].ljust(6, '0')[:6])
            return int(parts[-1])
        """, None),
    ("boundary", """
        def grade(score):
            if score >= 90:
                return 'A'
            return 'B'
        """, """
        def grade(score):
            if score > 90:
                return 'A'
            return 'B'
        """, None),
]

PRESERVING = [
    ("renamed_local", """
        def mean(xs):
            total = 0
            for x in xs:
                total += x
            return total / len(xs)
        """, """
        def mean(xs):
            acc = 0
            for x in xs:
                acc += x
            return acc / len(xs)
        """),
    ("extracted_variable", """
        import warnings

        def scaled(x, factor):
            warnings.warn("scaling %s" % (x * factor))
            return x * factor + 1
        """, """
        import warnings

        def scaled(x, factor):
            product = x * factor
            warnings.warn("scaling %s" % product)
            return product + 1
        """),
    ("idiom_len", """
        def describe(items):
            if len(items) == 0:
                return 'empty'
            return 'has %d' % len(items)
        """, """
        def describe(items):
            if not items:
                return 'empty'
            return 'has %d' % len(items)
        """),
    ("inline_dict_get", """
        def lookup(table, key):
            if key in table:
                return table[key]
            return None
        """, """
        def lookup(table, key):
            return table.get(key)
        """),
    ("extracted_helper", """
        def area(w, h):
            return w * h + 1
        """, """
        def _product(w, h):
            return w * h

        def area(w, h):
            return _product(w, h) + 1
        """),
    ("fstring", """
        def greet(name):
            return "Hello, " + name + "!"
        """, """
        def greet(name):
            return f"Hello, {name}!"
        """),
]


@pytest.mark.parametrize("name,old,new,fn", CHANGING, ids=[c[0] for c in CHANGING])
def test_semantics_changing_edit_is_changed(name, old, new, fn):
    c = compare_sources(d(old), d(new), fn)
    assert c.verdict == "changed", c.to_dict()
    ev = c.evidence
    diff = ev["first_difference"]
    assert diff["old"] != diff["new"]           # side by side, and they differ
    assert ev["distinguishing_input"]["note"]
    json.dumps(c.to_dict())


@pytest.mark.parametrize("name,old,new", PRESERVING, ids=[c[0] for c in PRESERVING])
def test_refactoring_is_never_changed(name, old, new):
    fn = "area" if name == "extracted_helper" else None
    c = compare_sources(d(old), d(new), fn)
    assert c.verdict in ("same", "undecided"), c.to_dict()
    if c.verdict == "same":
        ev = c.evidence
        assert ev["agreeing_inputs"] >= 2
        assert ev["changed_lines_ran"]["old"] and ev["changed_lines_ran"]["new"]


def test_same_needs_the_changed_lines_run_in_both_on_several_inputs():
    c = compare_sources(*[d(s) for s in PRESERVING[0][1:]])
    assert c.verdict == "same"
    ev = c.evidence
    assert ev["agreeing_inputs"] >= 2
    assert set(ev["changed_lines_ran"]["old"]) <= set(ev["changed_lines"]["old"])
    assert ev["changed_lines_ran"]["old"] and ev["changed_lines_ran"]["new"]
    # one input only (a function without parameters): not enough for "same"
    c = compare_sources("def f():\n    return 1 + 1\n", "def f():\n    return 2 * 1\n")
    assert c.verdict == "undecided"
    assert "only 1 input" in c.detail


def test_unreached_change():
    old = "def f(x):\n    if id(x) == 1:\n        return 1\n    return 0\n"
    c = compare_sources(old, old.replace("return 1", "return 2"), "f")
    assert c.verdict == "unreached", c.to_dict()
    assert c.evidence["changed_lines_ran"] == {"old": [], "new": []}


def test_ignore_messages():
    _, old, new, _ = next(c for c in CHANGING if c[0] == "message_reworded")
    c = compare_sources(d(old), d(new), "check_port", ignore_messages=True)
    assert c.verdict in ("same", "undecided")
    assert "exception message" in c.detail


def test_every_changed_function_when_none_is_named():
    old = "def a(x):\n    return x + 1\n\n\ndef b(x):\n    return x\n\n\ndef c(x):\n    return x\n"
    new = "def a(x):\n    return x + 2\n\n\ndef b(x):\n    return (x)\n\n\ndef c(x):\n" \
          "    y = x\n    return y\n"
    assert changed_functions(old, new) == ["a", "c"]
    r = compare_sources(old, new)
    assert [p.function for p in r.functions] == ["a", "c"]
    assert r.verdict == "changed" and r.functions[0].verdict == "changed"
    assert r.functions[1].verdict in ("same", "undecided")
    doc = r.to_dict()
    assert doc["functions"][0]["function"] == "a"
    # nothing but a docstring changed
    r = compare_sources('def a(x):\n    return x\n', 'def a(x):\n    "doc"\n    return x\n')
    assert r.verdict == "same" and r.evidence == {"functions_changed": 0}


def test_bad_input_is_an_error_verdict_or_type_error():
    assert compare_sources("def f(:\n", "def f(): pass\n").verdict == "error"
    assert compare_sources("def f(): pass\n", "def f(:\n").verdict == "error"
    r = compare_sources("def f(): pass\n", "def f(): pass\n", "g")
    assert r.verdict == "error" and "no function 'g'" in r.detail
    with pytest.raises(TypeError):
        compare_sources(b"def f(): pass\n", "def f(): pass\n")


def test_public_name():
    assert lx.compare is compare_sources
    assert lx.Comparison is Comparison


# ---------------------------------------------------------------- the parts

def _case(name):
    return next(c for c in CHANGING if c[0] == name)[1:3]


def _aimed(old, new):
    a = function_versions(d(old))
    b = function_versions(d(new))
    q = next(iter(b))
    co, cn = changed_lines(a[q], b[q])
    return [note for _, note, _ in aimed_inputs(a[q], b[q], co, cn)]


def test_aimed_inputs_come_from_the_diffs_constants():
    notes = _aimed(*_case('dict_entry'))
    assert "aimed: x = 20" in notes and "aimed: x = 10" in notes
    notes = _aimed(*_case('membership_widened'))
    assert "aimed: mime = 'javascript'" in notes
    notes = _aimed(*_case('platform_branch'))               # the platform
    assert "aimed: sys.platform = 'win32'" in notes
    notes = _aimed(*_case('errno_branch'))               # the errno
    assert any("os.makedirs raises OSError" in n and "EEXIST" in n for n in notes)
    notes = _aimed(*_case('boundary'))              # a boundary
    assert {"aimed: score = 89", "aimed: score = 90", "aimed: score = 91"} <= set(notes)
    notes = _aimed(*_case('attribute_guard_of_self'))              # an attribute of self
    assert "aimed: self.mode = 'w'" in notes
    notes = _aimed(*_case('default_value'))               # a changed default
    assert "aimed: items = list(range(21))" in notes


def test_aimed_prefixes_are_valid_python():
    for _, old, new, _ in CHANGING:
        a, b = function_versions(d(old)), function_versions(d(new))
        q = next(iter(b))
        co, cn = changed_lines(a[q], b[q])
        for prefix, _, _ in aimed_inputs(a[q], b[q], co, cn, "x = 1"):
            ast.parse(prefix)


def test_callee_names_of_the_interaction_trace():
    import logging
    import os
    import warnings
    from lexecutor_c._core import Dummy, DummyResource
    dummies = (Dummy, DummyResource)
    assert callee_name(warnings.warn, "<f>", dummies) == "_warnings.warn"
    assert callee_name(os.makedirs, "<f>", dummies) == "os.makedirs"
    assert callee_name(logging.getLogger("t").debug, "<f>", dummies) == "logging.Logger.debug"
    # no interaction: builtins, methods of builtin values, pure modules,
    # classes, the code under test itself
    for fn in (len, print, "a,b".split, [].append, os.path.join, ValueError, dict):
        assert callee_name(fn, "<f>", dummies) is None, fn
    ns = {}
    exec(compile("def h(): pass\n", "<f>", "exec"), ns)
    assert callee_name(ns["h"], "<f>", dummies, (1, 1)) is None      # inside the function
    assert callee_name(ns["h"], "<f>", dummies, (5, 9)) == "internal:h"   # a helper
    assert callee_name(ns["h"], "<other>", dummies) == "__main__.h" or \
        callee_name(ns["h"], "<other>", dummies).endswith(".h")


# ---------------------------------------------------------------- the command

def test_cli_compare(tmp_path, capsys):
    old, new = _case("warn_stacklevel")
    (tmp_path / "o.py").write_text(d(old))
    (tmp_path / "n.py").write_text(d(new))
    code = cli.main(["compare", str(tmp_path / "o.py"), str(tmp_path / "n.py"), "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    doc = json.loads(out)
    assert doc["verdict"] == "changed" and doc["changed_functions"] == ["old_api"]
    (f,) = doc["functions"]
    assert "stacklevel" in json.dumps(f["evidence"]["first_difference"]["new"])
    code = cli.main(["compare", str(tmp_path / "o.py"), str(tmp_path / "n.py"),
                     "--function", "old_api", "--fail-on-change"])
    out, _ = capsys.readouterr()
    assert code == 1 and "first difference" in out


def test_cli_compare_bad_input(tmp_path, capsys):
    (tmp_path / "o.py").write_text("def f(x):\n    return x\n")
    (tmp_path / "bad.py").write_text("def f(:\n")
    for argv in (["compare", str(tmp_path / "o.py"), str(tmp_path / "bad.py")],
                 ["compare", str(tmp_path / "o.py"), str(tmp_path / "missing.py")],
                 ["compare", str(tmp_path / "o.py"), str(tmp_path / "o.py"), "--function",
                  "nope"]):
        code = cli.main(argv)
        _, err = capsys.readouterr()
        assert code == 2 and "Traceback" not in err and err.strip(), argv


def test_a_signature_break_is_a_change_without_running():
    c = compare_sources("def f(a, predicate=None):\n    return a\n",
                        "def f(a, pred=None):\n    return a\n", "f")
    assert c.verdict == "changed" and "'predicate'" in c.detail
    assert c.evidence["strength"] == "signature" and c.evidence["runs"] == 0
    c = compare_sources("def f(a):\n    return a\n", "def f(a, b):\n    return a\n", "f")
    assert c.verdict == "changed" and "positional" in c.detail
    # a parameter with a default added, or **kwargs taking the old keyword: no break
    c = compare_sources("def f(a):\n    return a\n", "def f(a, b=2):\n    return a\n", "f")
    assert c.verdict != "changed"
    c = compare_sources("def f(a, k=1):\n    return a\n", "def f(a, **kw):\n    return a\n",
                        "f")
    assert "signature" not in c.detail


def test_doctest_calls_become_inputs():
    from lexecutor_c.apps.diffinputs import doctest_calls
    src = d('''
        def fold(binop, seq, chunksize=2):
            """
            >>> from operator import add
            >>> xs = [1, 2, 3]
            >>> fold(add, xs, chunksize=2)
            6
            """
            return 0
        ''')
    (v,) = function_versions(src).values()
    ((call, note),) = doctest_calls(v)
    assert call == {"self": None, "args": ["add", "[1, 2, 3]"], "kwargs": {"chunksize": "2"},
                    "imports": ["from operator import add"]}
    assert note.startswith("doctest: fold(add")
    _, old, new, _ = next(c for c in CHANGING if c[0] == "case_shown_by_a_doctest")
    c = compare_sources(d(old), d(new))
    assert c.verdict == "changed"
    assert c.evidence["distinguishing_input"]["note"].startswith("doctest:")
