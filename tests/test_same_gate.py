"""What a "same" verdict of the commit check needs (issue 20): mutants of the
changed lines that the agreeing inputs tell apart (lexecutor_c.apps.mutants,
the gate in apps/behaviour.py), and the agreeing inputs in other shapes
(funcrun.reshape) before "same" is said."""
import ast
import datetime
import math
import textwrap
import types

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
    assert set(diff) == {"condition negated", "and -> or", "comparison >= -> <"}
    assert all(m.diff for m in ms[:3]) and not any(m.diff for m in ms[3:])
    whats = {m.what for m in ms}
    assert "condition negated" in whats and "and -> or" in whats
    assert "2 -> 3" in whats and "0 -> 1" in whats      # the constants of the line


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
    for x, how in ((True, "neg"), ([], "iter"), ("AB", "upper"), (1, "float"),
                   (datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc), "tz"),
                   (type("L", (list,), {})([1]), "iter"), (None, "empty")):
        assert reshape(x, how) is SAME_SHAPE, (x, how)
    assert set(RESHAPES) == {"iter", "neg", "big", "nan", "tz", "empty", "upper",
                             "bytes", "getitem", "mapping"}


def test_shapes_read_from_snapshots():
    assert B._shapes_of("['list', '1', '2']") == {"iter", "getitem", "empty"}
    assert B._shapes_of("['list']") == {"iter", "getitem"}
    # an int stays an int: a float where the code was given an int is
    # another type, and no caller may pass it
    assert B._shapes_of("5") == {"neg", "big"}
    assert B._shapes_of("2.5") == {"neg", "big", "nan"}
    assert B._shapes_of("'ab'") == {"bytes", "empty", "upper"}
    assert B._shapes_of("['datetime.datetime', 'datetime.datetime(2020, 1, 1, 0, 0)']") == \
        {"tz"}
    assert B._shapes_of("['dict', [\"'a'\", '1']]") == {"mapping", "empty"}
    assert B._shapes_of("<Dummy 'x'>") == set()


def test_weak_inputs_make_undecided_not_same():
    # only key 20's entry changed: inputs that run the line but never look
    # the entry up agree, and no mutant of the entry is noticed
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
    fa, fb = function_versions(old, "m.py")["label"], function_versions(new, "m.py")["label"]
    ch_o, ch_n = changed_lines(fa, fb)
    opts = B.Options(aimed=False, variants=0, max_inputs=4)
    # an input that never asks for 20: mutants of the changed entry survive
    so, sn = B._Side(fa, ["n"], [], None), B._Side(fb, ["n"], [], None)

    def runs(prefix):
        inp = B.Input(prefix)
        return [(inp, so.run(inp, opts), sn.run(inp, opts))]
    agree = runs("n = 5")
    assert agree[0][1]["ret"] == agree[0][2]["ret"] == "\"'?'\""
    gate = B._mutation_gate(fa, fb, ch_o, ch_n, agree,
                            (["n"], [], ["n"], []), (None, None), opts)
    assert gate["tried"] >= 2 and not gate["passed"]
    # only the coarse mutants (the dict itself replaced by None) are noticed;
    # the entry the edit wrote and its neighbours survive
    assert gate["killed"] == 2
    assert "new line 2: 'B' -> 'B_lx' (a token the edit wrote)" in gate["survivors"]
    assert "old line 2: 'b' -> 'b_lx' (a token the edit wrote)" in gate["survivors"]
    assert not any("assigns None" in s for s in gate["survivors"])
    # an input that looks the entry up tells its mutants apart
    gate = B._mutation_gate(fa, fb, ch_o, ch_n, runs("n = 20"),
                            (["n"], [], ["n"], []), (None, None), opts)
    assert gate["killed"] >= 1


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
    assert c.verdict == "changed" and c.evidence["first_difference"]["what"].startswith(
        "calls to the outside world"), c.to_dict()
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
    assert [v.reshape for v in vs][:2] == ["suffix:x@0", "suffix:@@0"]
    opts = B.Options(aimed=False, max_inputs=1, min_killed=0)
    so, sn = B._Side(fa, ["word"], [], None), B._Side(fb, ["word"], [], None)
    for v in vs[:2]:
        ro, rn = so.run(v, opts), sn.run(v, opts)
        assert ro["input"]["(reshape)"] == v.reshape
    assert (ro["ret"], rn["ret"]) == ("\"'friend@s'\"", "\"'friend@s'\"")
    ro, rn = so.run(vs[0], opts), sn.run(vs[0], opts)
    assert (ro["ret"], rn["ret"]) == ("\"'friendxs'\"", "\"'friendxes'\"")
