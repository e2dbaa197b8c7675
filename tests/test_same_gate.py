"""What a "same" verdict of the commit check needs (issue 20): mutants of the
changed lines that the agreeing inputs tell apart (lexecutor_c.apps.mutants,
the gate in apps/behaviour.py), and the agreeing inputs in other shapes
(funcrun.reshape) before "same" is said."""
import ast
import datetime
import math
import textwrap
import types

import pytest

from lexecutor_c.apps import behaviour as B
from lexecutor_c.apps.compare import compare_sources
from lexecutor_c.apps.funcrun import RESHAPES, reshape
from lexecutor_c.apps.funcrun import _SAME as SAME_SHAPE
from lexecutor_c.apps.funcsource import changed_lines, function_versions
from lexecutor_c.apps.mutants import mutants


def d(s):
    return textwrap.dedent(s).lstrip("\n")


OLD = d('''
    import os

    def pick(xs, limit=3):
        out = []
        for x in xs:
            if x > limit and x % 2 == 0:
                out.append(x * 2)
        return out
    ''')
NEW = OLD.replace("x > limit and", "x >= limit and")


def _versions(old, new, q):
    a, b = function_versions(old, "m.py")[q], function_versions(new, "m.py")[q]
    return a, b, changed_lines(a, b)


def test_mutants_keep_every_line_and_put_the_edits_tokens_first():
    a, b, (ch_old, ch_new) = _versions(OLD, NEW, "pick")
    ms = mutants(b, ch_new, a, limit=10)
    assert ms, "the changed condition has mutable nodes"
    n = len(NEW.splitlines())
    for m in ms:
        assert m.text != NEW
        assert len(m.text.splitlines()) == n          # line numbers kept
        ast.parse(m.text)
        assert m.line in ch_new
    # the nodes the old version lacks (the new comparison and what holds it)
    # come first; the constants both versions have come after them
    diff = [m.what for m in ms if m.diff]
    assert set(diff) == {"condition false on no input", "condition true on no input",
                         "condition negated", "and -> or", "comparison >= -> <"}
    assert all(m.diff for m in ms[:5]) and not any(m.diff for m in ms[5:])
    whats = {m.what for m in ms}
    assert "condition true on no input" in whats and "and -> or" in whats
    assert "2 -> 3" in whats and "0 -> 1" in whats      # the constants of the line
    # the probes come besides the limit's other mutants, not in their place
    few = mutants(b, ch_new, a, limit=2)
    assert sum(m.probe for m in few) == 2 and sum(not m.probe for m in few) == 2


def test_a_condition_both_versions_have_is_negated_not_probed():
    # an import inserted above an unchanged ``if``: the old version's marker
    # of the insertion is the ``if``'s line, whose outcomes the edit does
    # not ask about (humanize's ``_format_not_finite``)
    old = d('''
        import math

        def fmt(value):
            if math.isnan(value):
                return "NaN"
            return str(value)
        ''')
    new = old.replace("import math\n\n", "").replace(
        "def fmt(value):\n", "def fmt(value):\n    import math\n\n")
    a, b, (ch_old, ch_new) = _versions(old, new, "fmt")
    whats = {m.what for m in mutants(a, {a.node.body[0].lineno}, b, limit=10)}
    assert "condition negated" in whats
    assert not whats & {"condition false on no input", "condition true on no input"}
    c = compare_sources(old, new, "fmt")
    assert c.verdict == "same", c.detail


def test_mutants_of_statements_and_multiline_expressions():
    src = d('''
        def f(a, b):
            total = (a +
                     b)
            g(total, key=1)
            total += 1
            return total
        ''')
    v = function_versions(src, "m.py")["f"]
    ms = mutants(v, {2, 4, 5, 6}, None, limit=20)
    whats = {m.what for m in ms}
    assert {"operator + -> -", "assigns None instead", "call dropped", "keyword key= dropped",
            "+= -> -=", "returns None instead"} <= whats
    for m in ms:
        assert len(m.text.splitlines()) == len(src.splitlines())
        compile(m.text, "<m>", "exec")
    minus = next(m for m in ms if m.what == "operator + -> -")
    assert "(a - b\n" in minus.text
    # no changed lines, no mutants; a limit is kept
    assert mutants(v, set(), None) == []
    assert len(mutants(v, {2, 4, 5, 6}, None, limit=2)) == 2


def test_reshape_each_kind_and_exact_types_only():
    g = reshape([1, 2], "iter")
    assert isinstance(g, types.GeneratorType) and list(g) == [1, 2]
    gi = reshape((1, 2), "getitem")
    assert not hasattr(gi, "__iter__") and list(iter(gi)) == [1, 2]
    assert reshape(3, "neg") == -3 and reshape(0, "neg") == -1
    assert reshape(2, "big") == 2999
    assert math.isnan(reshape(2.5, "nan"))
    aware = reshape(datetime.datetime(2020, 1, 1), "tz")
    assert aware.utcoffset() == datetime.timedelta(hours=5, minutes=30)
    assert reshape("ab", "upper") == "AB" and reshape("ab", "bytes") == b"ab"
    assert reshape([1], "empty") == [] and reshape({"a": 1}, "empty") == {}
    assert isinstance(reshape({"a": 1}, "mapping"), types.MappingProxyType)
    # what a reshape does not apply to is left alone
    for x, how in ((True, "neg"), ([], "iter"), ("AB", "upper"), (1.5, "float"), (2.0, "frac"),
                   (datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc), "tz"),
                   (type("L", (list,), {})([1]), "iter"), (None, "empty")):
        assert reshape(x, how) is SAME_SHAPE, (x, how)
    assert set(RESHAPES) == {"iter", "neg", "big", "nan", "tz", "empty", "upper",
                             "lower", "bytes", "getitem", "mapping", "index", "flip"}
    # bytes take the case reshapes and the edit's tokens (as latin-1)
    assert reshape(b"12Z", "lower") == b"12z" and reshape("Ab", "lower") == "ab"
    assert reshape(b"12", "suffix:z") == b"12z" and reshape(b"12", "const:z") == b"z"
    assert reshape("en_GB", "const:en") == "en"
    assert reshape("en", "const:en") is SAME_SHAPE      # nothing would change
    assert reshape("x", "none") is None and reshape(None, "none") is SAME_SHAPE
    assert type(reshape(1, "float")) is float and reshape(1, "float") == 1.0


def test_shapes_read_from_snapshots():
    assert B._shapes_of("['list', '1', '2']") == {"iter", "getitem", "empty"}
    assert B._shapes_of("['list']") == {"iter", "getitem"}
    # an int stays an int: a float where the code was given an int is
    # another type, and no caller may pass it
    # (and an object with ``__index__`` alone: _variants tries it only
    # where the edit changes how its lines compare)
    assert B._shapes_of("5") == {"neg", "big", "index"}
    assert B._shapes_of("2.5") == {"neg", "big", "nan"}
    assert B._shapes_of("'ab'") == {"text", "bytes", "empty", "upper"}
    assert B._shapes_of("'AB'") == {"text", "bytes", "empty", "lower"}
    assert B._shapes_of("b'aZ'") == {"text", "empty", "upper", "lower"}
    assert B._shapes_of("b'12Z'") == {"text", "empty", "lower"}
    assert B._shapes_of("b''") == {"text"}
    assert B._shapes_of("['datetime.datetime', 'datetime.datetime(2020, 1, 1, 0, 0)']") == \
        {"tz"}
    assert B._shapes_of("['dict', [\"'a'\", '1']]") == {"mapping", "empty"}
    assert B._shapes_of("<Dummy 'x'>") == set()


class _CodesEntry:
    """``label``, whose only change is key 20's entry of a dict, ready to
    run: ``agree(*prefixes)`` runs both versions on each prefix, ``gate``
    runs the mutant gate on such runs."""

    def __init__(self):
        old = d('''
            def label(n):
                codes = {10: 'a',
                         20: 'b',
                         30: 'c'}
                if n < 0:
                    return '-'
                return codes.get(n, '?')
            ''')
        new = old.replace("20: 'b'", "20: 'B'")
        self.fa = function_versions(old, "m.py")["label"]
        self.fb = function_versions(new, "m.py")["label"]
        self.ch_o, self.ch_n = changed_lines(self.fa, self.fb)
        self.opts = B.Options(aimed=False, variants=0, max_inputs=8)
        self.so, self.sn = B._Side(self.fa, ["n"], [], None), B._Side(self.fb, ["n"], [], None)

    def agree(self, *prefixes):
        out = []
        for prefix in prefixes:
            inp = B.Input(prefix)
            out.append((inp, self.so.run(inp, self.opts), self.sn.run(inp, self.opts)))
        return out

    def gate(self, agree):
        # (the setup the sides were built with: no class values, and an
        # instance, were there one, built by its ``__init__``)
        return B._mutation_gate(self.fa, self.fb, self.ch_o, self.ch_n, agree,
                                (["n"], [], ["n"], []), (None, None), self.opts, ((), True))


def test_weak_inputs_make_undecided_not_same():
    # only key 20's entry changed: inputs that run the line but never look
    # the entry up agree, and no mutant of the entry is noticed
    e = _CodesEntry()
    # an input that never asks for 20: mutants of the changed entry survive
    agree = e.agree("n = 5")
    assert agree[0][1]["ret"] == agree[0][2]["ret"] == "\"'?'\""
    gate = e.gate(agree)
    assert gate["tried"] >= 2 and not gate["passed"]
    # only the coarse mutants (the dict itself replaced by None) are noticed;
    # the entry the edit wrote and its neighbours survive
    assert gate["killed"] == 2
    assert "new line 2: 'B' -> 'B_lx' (a token the edit wrote)" in gate["survivors"]
    assert "old line 2: 'b' -> 'b_lx' (a token the edit wrote)" in gate["survivors"]
    assert not any("assigns None" in s for s in gate["survivors"])
    # an input that looks the entry up tells its mutants apart
    assert e.gate(e.agree("n = 20"))["killed"] >= 1


def test_a_mutant_is_run_on_up_to_six_agreeing_inputs():
    # the one input of six that looks the changed entry up comes last: the
    # gate still runs the mutants on it (on three, the entry's survived)
    e = _CodesEntry()
    agree = e.agree("n = 1", "n = 2", "n = 3", "n = 4", "n = 5", "n = 20")
    gate = e.gate(agree)
    assert gate["inputs"] == 6
    assert not any("'B' -> 'B_lx'" in s or "'b' -> 'b_lx'" in s
                   for s in gate["survivors"]), gate["survivors"]
    # the same inputs without the last: the entry's mutants survive
    gate = e.gate(agree[:5])
    assert "new line 2: 'B' -> 'B_lx' (a token the edit wrote)" in gate["survivors"]


def test_same_states_how_many_mutants_its_inputs_kill():
    old = d('''
        def total(xs):
            s = 0
            for x in xs:
                s += x
            return s
        ''')
    new = old.replace("s", "acc").replace("def total(xacc)", "def total(xs)") \
        .replace("for x in xacc", "for x in xs")
    c = compare_sources(old, new, "total")
    assert c.verdict == "same", c.to_dict()
    m = c.evidence["mutants"]
    assert m["tried"] >= 2 and m["killed"] == m["tried"]
    assert f"{m['killed']} of {m['tried']} mutants" in c.detail


def test_a_variant_of_an_agreeing_input_finds_an_iterator_change():
    # a list works the same in both; an iterator does not: x[0] needs a
    # sequence.  The variant is shown as the distinguishing input
    old = d('''
        def head(xs):
            if not xs:
                return None
            return list(xs)[0]
        ''')
    new = d('''
        def head(xs):
            if not xs:
                return None
            for x in xs:
                return x
        ''')
    fa, fb = function_versions(old, "m.py")["head"], function_versions(new, "m.py")["head"]
    base = B.Options(aimed=False, variants=0, max_inputs=3, min_killed=0)
    fc0 = B.check_function(fa, fb, opts=base)
    assert fc0.verdict in ("same", "undecided"), fc0.to_dict()
    fc = B.check_function(fa, fb, opts=B.Options(aimed=False, max_inputs=3, min_killed=0))
    assert fc.verdict == "changed", fc.to_dict()
    assert fc.input.get("reshape") in ("iter@0", "getitem@0"), fc.input
    assert fc.input["arguments"]["(reshape)"] == fc.input["reshape"]


def test_variants_reshape_one_argument_at_a_time():
    # a negative number of digits is clamped now; the value stays as it was
    old = d('''
        def fmt(value, digits):
            return round(value * 1.0, digits)
        ''')
    new = old.replace("1.0, digits)", "1.0, max(digits, 0))")
    fa, fb = function_versions(old, "m.py")["fmt"], function_versions(new, "m.py")["fmt"]
    inp = B.Input("value = 1234.5678\ndigits = 2")
    opts = B.Options(aimed=False, max_inputs=1, min_killed=0)
    so, sn = B._Side(fa, ["value", "digits"], [], None), B._Side(fb, ["value", "digits"], [],
                                                                     None)
    r = sn.run(B.Input(inp.prefix, reshape="neg@1"), opts)
    assert r["input"] == {"value": "1234.5678", "digits": "2", "(reshape)": "neg@1"}
    assert r["ret"] == "'1235.0'"                  # round(v, max(-2, 0))
    assert so.run(B.Input(inp.prefix, reshape="neg@1"), opts)["ret"] == "'1200.0'"
    # a reshape that applies to no argument is no input
    assert so.run(B.Input(inp.prefix, reshape="tz@0"), opts)["outcome"] == "input:unchanged"
    vs = B._variants([(inp, {}, {"input": {"value": "1234.5678", "digits": "2"}})], 3)
    assert [v.reshape for v in vs] == ["neg@0", "big@0", "nan@0", "neg@1", "big@1"]
    assert all(v.prefix == inp.prefix and v.note.startswith("variant (") for v in vs)


def test_a_variant_reshapes_an_optional_parameters_default():
    # negative precision is clamped now: only a call that passes one shows it
    old = d('''
        def metric(value, precision=3):
            return round(value * 1.0, precision)
        ''')
    new = old.replace("1.0, precision)", "1.0, max(precision, 0))")
    fa, fb = function_versions(old, "m.py")["metric"], function_versions(new, "m.py")["metric"]
    assert B._defaults(fb) == {"precision": "3"}
    assert B._defaults(function_versions("def f(a, b=-2, *, c='x', d=None, e=g):\n pass\n",
                                         "m.py")["f"]) == {"b": "-2", "c": "'x'"}
    opts = B.Options(aimed=False, max_inputs=1, min_killed=0)
    so, sn = B._Side(fa, ["value"], [], None), B._Side(fb, ["value"], [], None)
    inp = B.Input("value = 1234.5678", reshape="neg@precision")
    ro, rn = so.run(inp, opts), sn.run(inp, opts)
    assert ro["input"] == {"value": "1234.5678", "precision": "3", "(reshape)": "neg@precision"}
    assert (ro["ret"], rn["ret"]) == ("'1000.0'", "'1235.0'")
    vs = B._variants([(B.Input("value = 1234.5678"), {}, {"input": {"value": "1234.5678"}})],
                     3, defaults=B._defaults(fb))
    assert [v.reshape for v in vs] == ["neg@0", "big@0", "nan@0", "neg@precision",
                                       "big@precision"]
    fc = B.check_function(fa, fb, opts=B.Options(aimed=False, max_inputs=2, min_killed=0))
    assert fc.verdict == "changed" and fc.input["reshape"] == "neg@precision", fc.to_dict()


def test_raise_class_or_instance_is_no_change_but_a_dropped_call_is():
    old = d('''
        class Frozen:
            def __setattr__(self, name, value):
                raise FrozenInstanceError()
        ''')
    new = old.replace("FrozenInstanceError()", "FrozenInstanceError")
    c = compare_sources(old, new, "Frozen.__setattr__")
    assert c.verdict == "same", c.to_dict()
    # a call without arguments dropped before a raise is a change
    old = d('''
        def shut(f):
            f.flush()
            f.close()
            raise Closed
        ''')
    new = old.replace("    f.close()\n", "")
    c = compare_sources(old, new, "shut")
    # (seen in the calls, or -- on an in-memory file, the aimed input for an
    # argument that is flushed -- in the file left open)
    assert c.verdict == "changed" and c.evidence["first_difference"]["what"].startswith(
        ("calls to the outside world", "arguments after the call")), c.to_dict()
    fa = function_versions(old, "m.py")["shut"]
    assert not B._raise_forms(fa, fa, {4}, {4})


def test_the_edits_own_short_strings_are_appended_to_string_arguments():
    old = d('''
        def plural(word, n=2):
            if word.endswith('s'):
                return word + 'es'
            return word + ('s' if n != 1 else '')
        ''')
    new = old.replace("endswith('s')", "endswith(('s', 'x'))")
    fa, fb = function_versions(old, "m.py")["plural"], function_versions(new, "m.py")["plural"]
    ch_o, ch_n = changed_lines(fa, fb)
    assert B._edit_tokens(fa, fb, ch_o, ch_n) == ["x"]      # 's' is in both versions
    assert reshape("bo", "suffix:x") == "box" and reshape(3, "suffix:x") is SAME_SHAPE
    inp = B.Input("word = 'friend'")
    vs = B._variants([(inp, {}, {"input": {"word": "'friend'"}})], 3, tokens=("x", "@"))
    assert [v.reshape for v in vs][:4] == ["suffix:x@0", "const:x@0", "suffix:@@0",
                                           "const:@@0"]
    opts = B.Options(aimed=False, max_inputs=1, min_killed=0)
    so, sn = B._Side(fa, ["word"], [], None), B._Side(fb, ["word"], [], None)
    for v in (vs[0], vs[2]):
        ro, rn = so.run(v, opts), sn.run(v, opts)
        assert ro["input"]["(reshape)"] == v.reshape
    assert (ro["ret"], rn["ret"]) == ("\"'friend@s'\"", "\"'friend@s'\"")
    ro, rn = so.run(vs[0], opts), sn.run(vs[0], opts)
    assert (ro["ret"], rn["ret"]) == ("\"'friendxs'\"", "\"'friendxes'\"")
    # the token for the argument: 'x' itself
    ro, rn = so.run(vs[1], opts), sn.run(vs[1], opts)
    assert (ro["ret"], rn["ret"]) == ("\"'xs'\"", "\"'xes'\"")


def test_star_args_get_the_items_an_aimed_input_gives():
    # ``isinstance(dicts[0], dict)`` -> ``Mapping``: only a non-dict mapping
    # passed as the one positional argument tells them apart
    old = d('''
        from collections.abc import Mapping

        def merge(*dicts, **kwargs):
            if len(dicts) == 1 and not isinstance(dicts[0], dict):
                dicts = dicts[0]
            rv = {}
            for dd in dicts:
                rv.update(dd)
            return rv
        ''')
    new = old.replace("isinstance(dicts[0], dict)", "isinstance(dicts[0], Mapping)")
    c = compare_sources(old, new, "merge")
    assert c.verdict == "changed", c.to_dict()
    # the item is given as a list, which ``*dicts`` takes
    from lexecutor_c.apps.diffinputs import _assign, _Scope
    fa = function_versions(old, "m.py")["merge"]
    assert _assign(["dicts", ("item", 0)], "X", _Scope(fa)) == ["dicts = [X] * 1"]
    assert _assign(["opts", ("item", "k")], "X", _Scope(fa))[-1] == "opts = {'k': X}"


def test_star_args_follow_the_optional_positional_parameters():
    from lexecutor_c.apps.funcrun import _with_varargs

    def f(a, b=2, *rest, c=0):
        return a, b, rest, c
    env = {"rest": (7, 8)}
    assert _with_varargs(f, [1], {"b": 5, "c": 1}, ("rest",), ("rest",), env) == [1, 5, 7, 8]
    kw = {"c": 1}
    assert _with_varargs(f, [1], kw, ("rest",), ("rest",), env) == [1, 2, 7, 8]
    assert kw == {"c": 1}
    # not named by the input, not iterable, or no *args: the arguments as they were
    assert _with_varargs(f, [1], {}, ("rest",), (), env) == [1]
    assert _with_varargs(f, [1], {}, ("rest",), ("rest",), {"rest": 3}) == [1]
    assert _with_varargs(lambda a: a, [1], {}, ("rest",), ("rest",), env) == [1]
    # renamed between the versions: the other version's name reaches it
    assert _with_varargs(f, [1], {}, ("rest", "args"), ("args",), {"args": [9]}) == \
        [1, 2, 9]


def test_the_edits_token_replaces_a_string_and_none_when_the_edit_tests_for_it():
    old = d('''
        def activate(locale, path=None):
            if locale.startswith("en_"):
                return "builtin"
            return "lookup " + locale
        ''')
    new = old.replace('locale.startswith("en_")',
                      'locale is None or locale.startswith("en")')
    fa, fb, (ch_o, ch_n) = _versions(old, new, "activate")
    assert B._edit_tokens(fa, fb, ch_o, ch_n) == ["en", "en_", "_"]
    assert B._edit_none(fa, fb, ch_o, ch_n) and not B._edit_none(fa, fa, ch_o, ch_o)
    inp = B.Input("locale = 'en_GB'")
    vs = B._variants([(inp, {}, {"input": {"locale": "'en_GB'"}})], 3,
                     tokens=("en",), none=True)
    hows = [v.reshape for v in vs]
    assert hows[:3] == ["none@0", "suffix:en@0", "const:en@0"], hows
    opts = B.Options(aimed=False, max_inputs=1, min_killed=0)
    so, sn = B._Side(fa, ["locale"], [], None), B._Side(fb, ["locale"], [], None)
    ro, rn = so.run(vs[0], opts), sn.run(vs[0], opts)       # None
    assert ro["args"] == rn["args"] == "['None']"
    # the old version reaches ``None.startswith`` (a made-up value there)
    assert "<injected>" in ro["calls"] and rn["ret"] == "\"'builtin'\"", (ro, rn)
    ro, rn = so.run(vs[2], opts), sn.run(vs[2], opts)       # 'en'
    assert (ro["ret"], rn["ret"]) == ("\"'lookup en'\"", "\"'builtin'\""), (ro, rn)


def test_bytes_constants_give_the_characters_the_edit_added():
    old = d('''
        def tz_start(s):
            if s[-1:] in b'-+Z':
                return len(s) - 1
            return -1
        ''')
    new = old.replace("b'-+Z'", "b'-+Zz'")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "tz_start")
    assert B._edit_tokens(fa, fb, ch_o, ch_n) == ["-+Zz", "-+Z", "z"]


def test_docstrings_are_not_mutated():
    src = d('''
        def f(x):
            """Doc."""
            return x + 1
        ''')
    v = function_versions(src, "m.py")["f"]
    ms = mutants(v, {2, 3})
    assert ms and all(m.line == 3 for m in ms), [(m.line, m.what) for m in ms]


def test_a_fraction_for_a_whole_number_when_the_edit_rounds_differently():
    old = d('''
        def seconds(value):
            value = int(value)
            return value * 2
        ''')
    new = old.replace("int(value)", "round(value)")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "seconds")
    assert B._edit_rounds(fa, fb, ch_o, ch_n) and not B._edit_rounds(fa, fa, ch_o, ch_o)
    assert not B._edit_rounds(fa, fb, set(), set())
    assert reshape(3, "frac") == 3.7 and reshape(3.5, "frac") is SAME_SHAPE
    inp = B.Input("value = 3")
    vs = B._variants([(inp, {}, {"input": {"value": "3"}})], 3, rounds=True)
    assert vs[0].reshape == "frac@0"
    opts = B.Options(aimed=False, max_inputs=1, min_killed=0)
    so, sn = B._Side(fa, ["value"], [], None), B._Side(fb, ["value"], [], None)
    ro, rn = so.run(vs[0], opts), sn.run(vs[0], opts)
    assert (ro["ret"], rn["ret"]) == ("'6'", "'8'"), (ro, rn)
    # without the rounding edit, no fraction is tried
    assert all(v.reshape != "frac@0" for v in
               B._variants([(inp, {}, {"input": {"value": "3"}})], 3))


def test_both_versions_draw_the_same_pseudo_random_numbers():
    import random
    src = d('''
        import random

        def pick(xs):
            return [random.randrange(100) for _ in xs]
        ''')
    v = function_versions(src, "m.py")["pick"]
    side = B._Side(v, ["xs"], [], None)
    opts = B.Options(aimed=False, max_inputs=1, min_killed=0)
    inp = B.Input("xs = [1, 2, 3, 4, 5]")
    first = side.run(inp, opts)
    random.random()          # this process's own draws do not reach the runs
    again = side.run(inp, opts)
    assert first["outcome"] == "returned" and first["ret"] == again["ret"], (first, again)
    # another input seed, other numbers
    other = side.run(B.Input("xs = [1, 2, 3, 4, 5]", None, 7), opts)
    assert other["ret"] != first["ret"]


POINTS_OLD = d('''
    def f(xs, n):
        total = 0
        for x in xs:
            total += x * 2
        if n > 100:
            total = 0
        return n > 3
    ''')


def test_a_value_after_the_changed_lines_keeps_same_back():
    # the result never shows ``total``; the value where the changed line is
    # left does (ChangeGuard's program points)
    new = POINTS_OLD.replace("x * 2", "x * 3")
    fa, fb, (ch_o, ch_n) = _versions(POINTS_OLD, new, "f")
    fc = B.check_function(fa, fb)                 # "gate": no "same"
    assert fc.verdict == "undecided", fc.detail
    assert "they differ in a value after the changed lines" in fc.detail and \
        "total" in fc.detail, fc.detail
    # "change": a difference like one in what the function does
    fc = B.check_function(fa, fb, opts=B.Options(points="change"))
    assert fc.verdict == "changed", fc.detail
    assert fc.detail.startswith("a value after the changed lines") and "total" in fc.detail
    assert fc.old["after_changed_lines"]["name"] == "total"
    assert fc.old["after_changed_lines"]["value"] != fc.new["after_changed_lines"]["value"]
    # "off": nothing the function does shows the edit, and its mutants
    # (``total = 0`` never read) survive: not "same" either, for that reason
    fc = B.check_function(fa, fb, opts=B.Options(points="off"))
    assert fc.verdict == "undecided" and "mutants" in fc.detail, fc.detail
    with pytest.raises(ValueError):
        B.Options(points="yes")


def test_program_points_ignore_renamed_locals_and_made_up_values():
    # a local renamed: no name both versions have differs
    new = POINTS_OLD.replace("total", "acc")
    assert compare_sources(POINTS_OLD, new, "f").verdict != "changed"
    pd = B._point_difference
    a = {"points": [{"x": "1", "t": "2"}]}
    assert pd(a, {"points": [{"x": "1", "t": "3"}]}) == (0, "t", "2", "3")
    assert pd(a, {"points": [{"x": "1", "u": "3"}]}) is None          # other names
    assert pd(a, {"points": [{"x": "1", "t": "2"}, {"x": "2"}]}) is None  # left twice
    assert pd(a, {"points": [{"x": "1", "t": "<Dummy 't'>"}]}) is None  # made up
    assert pd({}, {}) is None
    assert B._differences(a, {"points": [{"x": "1", "t": "3"}]}) == []
    assert B._differences(a, {"points": [{"x": "1", "t": "3"}]}, points=True) == ["points"]


def test_a_local_bound_to_a_parameter_passes_the_compared_value_on():
    from lexecutor_c.apps.diffinputs import aimed_inputs
    old = d('''
        def size(value, gnu=False):
            if isinstance(value, str):
                b = float(value)
            else:
                b = value
            a = abs(b)
            if a == 1 and not gnu:
                return f"{b} Byte"
            return "many"
        ''')
    new = old.replace('f"{b} Byte"', 'f"{int(b)} Byte"')
    fa, fb, (ch_o, ch_n) = _versions(old, new, "size")
    notes = [n for _, n, _ in aimed_inputs(fa, fb, ch_o, ch_n)]
    assert "aimed: value = 1" in notes, notes
    # reached with 1, told apart with 1 as a float (the edit adds int())
    c = compare_sources(old, new, "size")
    assert c.verdict == "changed" and "1.0 Byte" in c.detail, c.to_dict()


def test_a_parameter_the_changed_lines_make_whole_gets_a_fraction():
    from lexecutor_c.apps.diffinputs import aimed_inputs
    old = d('''
        import datetime as dt

        def ago(value, precise=False):
            value = int(value)
            return dt.timedelta(seconds=value)
        ''')
    new = old.replace("value = int(value)", "value = value if precise else round(value)")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "ago")
    notes = [n for _, n, _ in aimed_inputs(fa, fb, ch_o, ch_n)]
    assert "aimed (value): value = 1.7" in notes, notes
    # with ``precise`` at its other value, together
    assert any("value = 1.7" in n and "precise = True" in n for n in notes), notes
    assert compare_sources(old, new, "ago").verdict == "changed"


def test_the_extracted_function_takes_the_same_helpers_whatever_the_hash_seed():
    # more helpers than the driver takes: which ones make the limit must not
    # depend on a set's order (it changes with PYTHONHASHSEED)
    import os
    import subprocess
    import sys
    helpers = "".join(f"def h{i}(x):\n    return x + {i}\n\n" for i in range(20))
    body = " + ".join(f"h{i}(x)" for i in range(20))
    src = helpers + f"def f(x):\n    return {body}\n"
    code = ("import sys\nfrom lexecutor_c.apps.funcsource import function_versions, "
            "build_driver\nsrc = sys.stdin.read()\n"
            "print(build_driver(function_versions(src, 'm.py')['f']).text)")
    texts = set()
    for seed in ("1", "2", "3", "4"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code], input=src, env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        texts.add(out.stdout)
    assert len(texts) == 1
    assert next(iter(texts)).count("def h") == 12


def test_a_call_the_edit_wrote_is_unwrapped_by_a_mutant():
    # ``return str(name)`` where the inputs' names are all texts: the
    # mutant returning ``name`` itself survives, and "same" needs more
    # (click's ``_format_default``: a file's name may be a number)
    old = d('''
        def fmt(default):
            name = getattr(default, "name", None)
            if name is not None:
                return name
            return default
        ''')
    new = old.replace("return name", "return str(name)")
    fa, fb = function_versions(old, "m.py")["fmt"], function_versions(new, "m.py")["fmt"]
    ch_o, ch_n = changed_lines(fa, fb)
    ms = mutants(fb, ch_n, fa)
    assert [m.what for m in ms if m.what.startswith("argument")] == ["argument instead of str()"]
    assert "return (name)" in [m for m in ms if m.what.startswith("argument")][0].text
    # nor a copy of a container, or a question asked of the value
    # (``list(x)`` of a list, ``len(x)`` in a test)
    fl = function_versions(old.replace("return name", "return list(name)"), "m.py")["fmt"]
    assert not any(m.what.startswith("argument") for m in mutants(fl, changed_lines(fa, fl)[1], fa))
    # a call both versions make is not unwrapped
    assert not any(m.what.startswith("argument") for m in mutants(fa, ch_o, fb))
    fc = function_versions(new.replace("str(name)", "str(name) + '!'"), "m.py")["fmt"]
    assert not any(m.what.startswith("argument")
                   for m in mutants(fc, changed_lines(fb, fc)[1], fb))


def test_a_mutant_runs_with_the_class_values_its_version_runs_with():
    # the gate built a mutant's side without the class-level values that a
    # made-up ``self`` must not shadow: the mutant's ``self.top`` was the
    # stand-in's number where the version's own run got the cached
    # property's made-up item, so every mutant "differed" and an edit that
    # only a made-up value hid (``30 + top`` -> ``33 + top``) was "same"
    old = d('''
        import functools


        class Shelf:
            def label(self):
                return self.count * 10 + self.top

            @functools.cached_property
            def top(self):
                return self.books[0]

            def __init__(self, books):
                self.books = books

            @functools.cached_property
            def count(self):
                return len(self.books)
        ''')
    new = old.replace("self.count * 10", "self.count * 11")
    got = compare_sources(old, new, "Shelf.label")
    assert got.verdict != "same", got.detail
    if got.verdict == "undecided":
        # the mutants of the changed line survive where the edit did
        assert "mutants" in got.detail, got.detail


def test_a_default_the_edit_changed_is_a_mutant_the_inputs_must_notice():
    # pyjwt's ``encode``: ``algorithm="HS256"`` -> ``algorithm=_UNSET``; the
    # inputs leave it at its default but none gets to where it is used, so
    # another value there goes unnoticed and "same" is not said
    old = d('''
        _UNSET = object()


        class Coder:
            def encode(self, payload, key, algorithm="HS256", headers=None):
                if not isinstance(payload, dict):
                    raise TypeError("Expecting a dict object")
                return self._signer.sign(payload, key, algorithm, headers)
        ''')
    new = old.replace('algorithm="HS256"', "algorithm=_UNSET")
    a, b, (ch_old, ch_new) = _versions(old, new, "Coder.encode")
    ms = mutants(b, ch_new, a, limit=6)
    first = ms[0]
    assert (first.what, first.diff) == ("default of algorithm replaced", True)
    assert "algorithm=(object())" in first.text and first.line == 5
    assert len(first.text.splitlines()) == len(new.splitlines())
    # the old version's default too, and none for a default both keep
    assert mutants(a, ch_old, b, limit=6)[0].what == "default of algorithm replaced"
    assert not any("headers" in m.what for m in ms)
    assert not any(m.what.startswith("default") for m in mutants(b, ch_new, None, limit=6))


def test_a_standard_library_name_this_python_lacks_is_no_evidence_of_same():
    # humanfriendly's ``update``: ``collections.Mapping`` (gone since 3.10)
    # -> ``Mapping`` from ``collections.abc``; the runs stand a made-up
    # value in for the old name, so inputs alike say nothing of a real run,
    # which raises AttributeError in the old version
    old = d('''
        import collections


        def merge(target, other=None):
            if isinstance(other, collections.Mapping):
                for key, value in other.items():
                    target[key.lower()] = value
            elif isinstance(other, collections.Iterable):
                for key, value in other:
                    target[key.lower()] = value
            return target
        ''')
    new = old.replace("collections.Mapping", "collections.abc.Mapping").replace(
        "collections.Iterable", "collections.abc.Iterable").replace(
        "import collections\n", "import collections\nimport collections.abc\n")
    a, b, (ch_old, ch_new) = _versions(old, new, "merge")
    assert B._absent_module_reads(a, ch_old) == ["collections.Mapping (line 5)",
                                                 "collections.Iterable (line 8)"]
    assert B._absent_module_reads(b, ch_new) == []
    c = compare_sources(old, new, "merge")
    assert c.verdict != "same", c.detail
    if c.verdict == "undecided" and "alike" in c.detail:
        assert "collections.Mapping" in c.detail
    # a name both versions read alike is no such reason
    assert B._absent_reads_note(a, a, ch_old, ch_old) is None


def test_an_edit_that_regroups_float_arithmetic_is_not_called_same():
    # humanize's ``naturalsize``: ``base * bytes_ / unit`` -> ``base *
    # (bytes_ / unit)``.  The versions part only where a float's rounding
    # shows, which a few inputs alike do not rule out: no "same"
    old = textwrap.dedent('''
        def share(part, whole):
            if not isinstance(part, int) or not isinstance(whole, int) or whole <= 0 or \\
                    not 0 <= part <= whole:
                raise ValueError("a part of a whole")
            return round(100 * part / whole, 1)
        ''')
    new = old.replace("100 * part / whole", "100 * (part / whole)")
    assert new != old
    c = compare_sources(old, new, "share")
    assert c.verdict == "undecided", c.detail
    assert "regroups the same arithmetic" in c.detail


def test_the_precision_note_names_the_kinds_of_number_and_nothing_else():
    def note(old, new):
        a, b, (lo, ln) = _versions(textwrap.dedent(old), textwrap.dedent(new), "f")
        return B._precision_note(a, b, lo, ln)
    base = '''
        def f(s):
            return int(float("0." + s) * 1e6)
        '''
    got = note(base, base.replace('float("0." + s) * 1e6',
                                  'Decimal("0." + s) * Decimal("1000000")'))
    assert got is not None and "float() -> Decimal(), Decimal()" in got
    # another constant, another operator, a grouping with + alone: none
    assert note(base, base.replace("1e6", "1e3")) is None
    assert note(base, base.replace("* 1e6", "/ 1e6")) is None
    plus = '''
        def f(a, b, c):
            return a + b + c
        '''
    assert note(plus, plus.replace("a + b + c", "a + (b + c)")) is None
    times = plus.replace("a + b + c", "a * b / c")
    assert "regroups" in note(times, times.replace("a * b / c", "a * (b / c)"))
    # operands of * in the other order: the same product, no note
    assert note(times, times.replace("a * b / c", "b * a / c")) is None


def test_an_edit_of_the_float_functions_or_the_stripped_ends_is_not_called_same():
    # parver's ``intwidth``: ``floor(log10(abs(n))) + 1`` -> ``len(str(abs(n)))``
    # parts only from 15 digits on (log10(999999999999999) rounds to 15.0);
    # pyproject-metadata's ``private.lstrip()`` -> ``private.strip()`` only on
    # a text with whitespace after the tag.  Inputs alike on a few numbers or
    # texts say little of those: "undecided", with the reason
    old = textwrap.dedent('''
        from math import floor, log10

        def width(n):
            if isinstance(n, int):
                if n == 0:
                    return 1
                return floor(log10(abs(n))) + 1
            return len(n)
        ''')
    new = old.replace('''        if n == 0:
            return 1
        return floor(log10(abs(n))) + 1''', "        return len(str(abs(n)))")
    assert new != old
    c = compare_sources(old, new, "width")
    assert c.verdict == "undecided", c.detail
    assert "float functions" in c.detail and "log10() -> none" in c.detail
    tag = textwrap.dedent('''
        def private(name):
            base, sep, rest = name.partition(";")
            if sep and rest.lstrip() != "private":
                raise ValueError(name)
            return base.rstrip()
        ''')

    def note(old, new):
        a, b, (lo, ln) = _versions(old, new, "private")
        return B._text_ends_note(a, b, lo, ln)
    assert "(lstrip() -> strip())" in note(tag, tag.replace("rest.lstrip()", "rest.strip()"))
    # the same strip calls, or none on either side: no note
    assert note(tag, tag.replace('"private"', '"public"')) is None
    assert note(tag, tag.replace("base.rstrip()", "base.rstrip(' ')")) is not None
    assert note(tag, tag.replace("raise ValueError(name)", "raise KeyError(name)")) is None


def test_an_edit_of_whether_repeated_items_are_kept_is_not_called_same():
    # cattrs' _make_subclasses_tree: ``[cl] + [...]`` -> a dict of ``seen``
    # keys, listed; resolvelib's Resolution.resolve: causes gathered in a
    # list -> ``self._extract_causes(...)``, a method of the class that keys
    # them by id.  The versions part only where an item comes twice, which
    # the inputs alike never held: "same" was wrong, now "undecided"
    old = textwrap.dedent('''
        def tree(cl, subclasses):
            return [cl] + [s for sub in subclasses(cl) for s in tree(sub, subclasses)]
        ''')
    new = textwrap.dedent('''
        def tree(cl, subclasses):
            seen = {cl: None}
            for sub in subclasses(cl):
                for s in tree(sub, subclasses):
                    seen[s] = None
            return list(seen)
        ''')
    a, b, (lo, ln) = _versions(old, new, "tree")
    assert "(none -> a dict keyed by items)" in B._collapse_note(a, b, lo, ln)
    cls = textwrap.dedent('''
        class Resolution:
            def _extract(self, found):
                return list({id(i): i for c in found for i in c.information}.values())

            def causes(self, found):
                return [i for c in found for i in c.information]
        ''')
    a, b, (lo, ln) = _versions(cls, cls.replace(
        "return [i for c in found for i in c.information]",
        "return self._extract(found)"), "Resolution.causes")
    assert "a dict keyed by items" in B._collapse_note(a, b, lo, ln)
    # the same kinds on both sides (a set written another way), or none: no note
    s = textwrap.dedent('''
        def names(xs):
            return set([x.name for x in xs])
        ''')
    a, b, (lo, ln) = _versions(s, s.replace("set([x.name for x in xs])",
                                            "{x.name for x in xs}"), "names")
    assert B._collapse_note(a, b, lo, ln) is None
    a, b, (lo, ln) = _versions(old, old.replace("[cl] +", "[cl, cl] +"), "tree")
    assert B._collapse_note(a, b, lo, ln) is None
    c = compare_sources(old, new, "tree")
    assert c.verdict != "same", c.detail


def test_an_edit_of_when_a_text_is_stripped_is_not_called_same():
    # xmltodict's endElement: ``if self.strip_whitespace and data and item:``
    # -> ``if self.strip_whitespace and data:`` over ``data = data.strip()``;
    # the parsed documents of the tests ran it alike in both versions
    # ('same'): none had a text-only element with whitespace at its ends
    from lexecutor_c.apps import behaviour as B
    from lexecutor_c.apps.funcsource import changed_lines, function_versions
    old = textwrap.dedent('''
        def end(self, name):
            data = self.data
            item = self.item
            if self.strip and data and item:
                data = data.strip() or None
            return data
        ''')
    new = old.replace("if self.strip and data and item:", "if self.strip and data:")

    def note(a_src, b_src):
        a, b = function_versions(a_src, "m.py")["end"], function_versions(b_src, "m.py")["end"]
        return B._strip_guard_note(a, b, *changed_lines(a, b))
    n = note(old, new)
    assert n is not None and "self.strip and data and item: strip()" in n, n
    # the same test with its branches swapped is no edit of when
    swapped = old.replace("if self.strip and data and item:\n        data = data.strip() or None\n",
                          "if not (self.strip and data and item):\n        pass\n    else:\n"
                          "        data = data.strip() or None\n")
    assert swapped != old
    assert note(old, swapped) is None
    # nor a test edited that guards no strip
    other = old.replace("data = data.strip() or None", "data = data or None")
    assert note(other, other.replace("and item:", "and item is not None:")) is None
