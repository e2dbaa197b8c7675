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


from benchmarks.compare_kinds import CHANGING, PRESERVING  # noqa: E402  (the pairs)


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
    import functools
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
    # a helper of the module under a decorator that wraps it (click's
    # ``@contextlib.contextmanager def _tempfilepager``): the helper itself
    exec(compile("import contextlib, functools\n"
                 "@contextlib.contextmanager\ndef cm(): yield 1\n"
                 "def deco(f):\n    @functools.wraps(f)\n    def w(*a): return f(*a)\n"
                 "    return w\n"
                 "@deco\ndef g(): pass\n", "<f>", "exec"), ns)
    assert callee_name(ns["cm"], "<f>", dummies, (20, 30)) == "internal:cm"
    # (a wrapper of the module's own code is named by what wraps copied)
    assert callee_name(ns["g"], "<f>", dummies, (20, 30)) == "internal:g"
    # a function of elsewhere that wraps one: not the module's
    wrapped = functools.wraps(ns["h"])(lambda: None)
    assert callee_name(wrapped, "<f>", dummies, (20, 30)) == "internal:h"
    assert callee_name(functools.wraps(len)(lambda: None), "<f>", dummies) != "internal:len"


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


def test_cli_compare_points(tmp_path, capsys):
    # a value the function computes but never shows: "gate" keeps "same"
    # back, "change" calls it a change, a bad mode is a usage error
    old = "def f(xs, n):\n    t = 0\n    for x in xs:\n        t += x * 2\n    return n > 3\n"
    (tmp_path / "o.py").write_text(old)
    (tmp_path / "n.py").write_text(old.replace("x * 2", "x * 3"))
    files = [str(tmp_path / "o.py"), str(tmp_path / "n.py")]
    code = cli.main(["compare", *files, "--json"])
    doc = json.loads(capsys.readouterr()[0])
    assert code == 0 and doc["verdict"] == "undecided", doc
    assert "a value after the changed lines" in doc["detail"]
    code = cli.main(["compare", *files, "--points", "change", "--fail-on-change"])
    out, _ = capsys.readouterr()
    assert code == 1 and "t = " in out, out
    assert '"after_changed_lines": {"exit": 1, "name": "t"' in out, out
    assert cli.main(["compare", *files, "--points", "sometimes"]) == 2
    assert "--points" in capsys.readouterr()[1]
    with pytest.raises(ValueError):
        compare_sources(old, old, "f", points="sometimes")


def test_a_signature_break_is_a_change_without_running():
    c = compare_sources("def f(a, predicate=None):\n    return a\n",
                        "def f(a, pred=None):\n    return a\n", "f")
    assert c.verdict == "changed" and "'predicate'" in c.detail
    assert c.evidence["strength"] == "signature" and c.evidence["runs"] == 0
    c = compare_sources("def f(a):\n    return a\n", "def f(a, b):\n    return a\n", "f")
    assert c.verdict == "changed" and "positional" in c.detail
    # either way: a parameter with a default added takes a call the old
    # version refused, a keyword-only one refuses a positional call it took
    c = compare_sources("def f(a):\n    return a\n", "def f(a, b=2):\n    return a\n", "f")
    assert c.verdict == "changed" and c.evidence["strength"] == "signature", c.detail
    assert "2 positional arguments works with the new version" in c.detail, c.detail
    c = compare_sources("def f(a, key=None):\n    return a\n",
                        "def f(a, *, key=None):\n    return a\n", "f")
    assert c.verdict == "changed" and "works with the old version" in c.detail, c.detail
    c = compare_sources("def f(a, /):\n    return a\n", "def f(a):\n    return a\n", "f")
    assert c.verdict == "changed" and "a=..." in c.detail, c.detail
    # **kwargs taking the old keyword: that call still binds (the positional
    # one it no longer takes is the break)
    c = compare_sources("def f(a, k=1):\n    return a\n", "def f(a, **kw):\n    return a\n",
                        "f")
    assert "k=" not in c.detail and "2 positional" in c.detail, c.detail
    # the same parameters under other names of locals: no break
    c = compare_sources("def f(a, *args, k=1, **kw):\n    x = a\n    return x\n",
                        "def f(a, *args, k=1, **kw):\n    y = a\n    return y\n", "f")
    assert "signature" not in c.detail, c.detail


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


def test_what_a_doctest_did_to_its_object_comes_before_the_call():
    # ``q = Queue()``, then ``for x in 'abc': q.push(x)``, then ``q.peek()``:
    # the call gets the object with those items (it got a bare ``Queue()``,
    # on which peek never passes its emptiness test)
    from lexecutor_c.apps.diffinputs import doctest_calls
    old = d('''
        class Queue:
            """
            >>> q = Queue()
            >>> for x in 'abc':
            ...     print(q.push(x))
            0
            1
            2
            >>> q.peek()
            'a'
            >>> Queue().peek() is None
            True
            """
            def __init__(self):
                self.items = []

            def push(self, x):
                self.items.append(x)
                return len(self.items) - 1

            def peek(self):
                if not self.items:
                    return None
                return self.items[0]
        ''')
    new = old.replace("return self.items[0]", "return self.items[-1]")
    v = function_versions(new)["Queue.peek"]
    calls = doctest_calls(v)
    assert calls[0][0] == {"self": "_lx_doc_q", "args": [], "kwargs": {}, "imports": [
        "_lx_doc_q = Queue()", "for x in 'abc':\n    print(_lx_doc_q.push(x))"]}, calls
    assert calls[1][0]["self"] == "Queue()" and calls[1][0]["imports"] == []
    c = compare_sources(old, new, "Queue.peek")
    assert c.verdict == "changed", c.detail
    shown = c.evidence["distinguishing_input"]
    assert shown["note"].startswith("doctest: q.peek()"), shown
    assert "_lx_doc_q.push" in json.dumps(shown), shown


def test_an_attribute_only_the_new_version_sets_is_a_change():
    old = d('''
        class Spec:
            def __init__(self, name):
                self.name = name
        ''')
    new = old + "        self._submodules = []\n"
    c = compare_sources(old, new, "Spec.__init__")
    assert c.verdict == "changed" and "_submodules" in json.dumps(c.evidence)


def test_messages_count_where_the_edit_wrote_them():
    from lexecutor_c.apps import behaviour as bh
    (v,) = function_versions(d('''
        def f(x):
            if x < 0:
                raise ValueError("port must not be negative")
            return x
        ''')).values()
    strings = bh._strings_on(v, {3})
    assert strings == {"port must not be negative"}
    assert bh._edited_message({"message": "port must not be negative"}, {"message": "bad"},
                              strings)
    assert not bh._edited_message({"message": "tuple index out of range"}, {"message": ""},
                                  strings)


def test_overload_stubs_pair_apart_from_the_definition_that_runs():
    # overload stubs added before a function: the function itself still pairs
    # with its old definition (it was paired with the first stub, which the
    # module never binds: "target not found" on every input); a stub's edit
    # is a type checker's business
    impl = "def f(x, n=1):\n    return x * n\n"
    stubs = textwrap.dedent('''\
        from typing import overload
        import typing


        @overload
        def f(x: int) -> int: ...
        @typing.overload
        def f(x: str, n: int) -> str: ...
        ''')
    vs = function_versions(stubs + "\n\n" + impl)
    assert list(vs) == ["f@overload", "f@overload#2", "f"]
    old, new = impl, stubs + "\n\n" + impl.replace("x * n", "x * n * 2")
    r = compare_sources(old, new, "f")
    assert r.verdict == "changed", r.to_dict()
    same = stubs + "\n\n" + impl.replace("return x * n", "y = x * n\n    return y")
    r = compare_sources(old, same, "f")
    assert r.verdict in ("same", "undecided"), r.to_dict()
    r = compare_sources(stubs + "\n\n" + impl,
                        stubs.replace("-> int: ...", "-> int:\n    raise NotImplementedError")
                        + "\n\n" + impl)
    assert [(p.function, p.verdict) for p in r.functions] == [("f@overload", "same")]
    assert "overload" in r.functions[0].detail


def test_a_versions_module_is_compiled_once_not_in_every_run(monkeypatch):
    # the runs are forked after the module text was instrumented and
    # compiled in the checking process: a run compiling it again (what
    # took most of a run's time for a large module) fails here
    import os
    from lexecutor_c.apps import funcrun
    checker = os.getpid()
    compiled = funcrun._statement_codes

    def only_in_the_checker(inst, filename):
        if os.getpid() != checker:
            raise RuntimeError("compiled again in a run")
        return compiled(inst, filename)
    monkeypatch.setattr(funcrun, "_statement_codes", only_in_the_checker)
    monkeypatch.setattr(funcrun, "_PREPARED", {})
    old = d('''
        def fee(amount):
            if amount > 100:
                return amount * 0.02
            return 1.5
        ''')
    c = compare_sources(old, old.replace("0.02", "0.03"), "fee")
    assert c.verdict == "changed", c.to_dict()
    assert funcrun._PREPARED, "nothing was made before the runs"


def test_preparing_a_module_keeps_the_last_few_and_leaves_bad_text_to_the_run(monkeypatch):
    from lexecutor_c.apps import funcrun
    monkeypatch.setattr(funcrun, "_PREPARED", {})
    src = "def f(x):\n    return x + 1\n"
    funcrun.prepare({"text": src, "filename": "m.py"})
    inst, codes = funcrun._instrumented(src, "m.py")
    assert funcrun._instrumented(src, "m.py")[1] is codes      # found, not made again
    assert "_n_" in inst.source or "_l_" in inst.source
    # text that does not instrument: nothing kept, nothing raised; the run
    # itself meets the error, as before
    funcrun.prepare({"text": "def (:\n", "filename": "bad.py"})
    assert ("def (:\n", "bad.py") not in funcrun._PREPARED
    with pytest.raises(SyntaxError):
        funcrun._instrumented("def (:\n", "bad.py")
    funcrun.prepare({"text": None, "filename": "m.py"})       # no text: ignored
    funcrun.prepare({})
    for i in range(funcrun._PREPARED_MAX + 3):
        funcrun.prepare({"text": f"x = {i}\n", "filename": "m.py"})
    assert len(funcrun._PREPARED) == funcrun._PREPARED_MAX
    assert ("x = 0\n", "m.py") not in funcrun._PREPARED
    assert (f"x = {funcrun._PREPARED_MAX + 2}\n", "m.py") in funcrun._PREPARED
