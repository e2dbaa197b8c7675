"""What the commit check's runs observe beyond a return value (issue 20):
a frozen wall clock, the standard protocols of objects of classes the
function builds, exceptions raised while a returned iterator is iterated,
public attributes, arguments passed to the input's stand-ins; and the
inputs aimed at the edit: samples for the standard library's classes in
``isinstance`` tests, numbers where rounding carries a digit over."""
import ast
import datetime
import re
import textwrap
import time

import pytest

from lexecutor_c.apps import behaviour as B
from lexecutor_c.apps import diffinputs as D
from lexecutor_c.apps.compare import compare_sources
from lexecutor_c.apps.funcrun import FROZEN_CLOCK, clock_frozen_available
from lexecutor_c.apps.funcsource import changed_lines, closed_classes, function_versions


def d(s):
    return textwrap.dedent(s).lstrip("\n")


def _versions(old, new, q):
    a, b = function_versions(old, "m.py")[q], function_versions(new, "m.py")[q]
    return a, b, changed_lines(a, b)


OPTS = B.Options(aimed=False, max_inputs=1, min_killed=0)

needs_clock = pytest.mark.skipif(not clock_frozen_available(),
                                 reason="time-machine is not installed")


@needs_clock
def test_every_run_sees_the_same_frozen_wall_clock():
    src = d('''
        import time
        from datetime import datetime

        def stamp(tag):
            return (tag, time.time(), datetime.now().isoformat())
        ''')
    v = function_versions(src, "m.py")["stamp"]
    side = B._Side(v, ["tag"], [], None)
    first = side.run(B.Input("tag = 'a'"), OPTS)
    again = side.run(B.Input("tag = 'a'"), OPTS)
    assert first["outcome"] == "returned" and first["ret"] == again["ret"]
    ret = ast.literal_eval(first["ret"])
    assert float(ret[2]) == FROZEN_CLOCK
    # the clock's own local time, whatever this machine's zone
    assert ret[3].strip("'") == datetime.datetime.fromtimestamp(FROZEN_CLOCK).isoformat()


@needs_clock
def test_ctime_and_asctime_without_an_argument_show_the_frozen_clock():
    # time-machine leaves them on the real clock (a digest's nonce hashed
    # ``time.ctime()``: its runs differed from second to second)
    src = d('''
        import time

        def stamp(tag):
            return (tag, time.ctime(), time.asctime(), time.ctime(0), time.asctime(time.gmtime(0)))
        ''')
    v = function_versions(src, "m.py")["stamp"]
    side = B._Side(v, ["tag"], [], None)
    r = side.run(B.Input("tag = 'a'"), OPTS)
    assert r["outcome"] == "returned", r
    ret = [x.strip("'") for x in ast.literal_eval(r["ret"])[2:]]     # after the kind, the tag
    frozen = time.ctime(FROZEN_CLOCK)
    assert ret[:2] == [frozen, frozen], ret
    # with an argument they show that time, as before
    assert ret[2:] == [time.ctime(0), time.asctime(time.gmtime(0))], ret


def test_inputs_that_reach_the_changed_lines_but_differ_unsteadily_are_no_unreached():
    # the changed line's value differs from run to run (a clock no run
    # freezes); an input that fails before it does not reach it: the
    # inputs that reached it make the verdict "undecided", not "unreached"
    old = d('''
        import time

        def elapsed(flag):
            if flag is None:
                raise ValueError("no flag")
            return "%.9f" % time.perf_counter()
        ''')
    c = compare_sources(old, old.replace('"%.9f"', '"%.8f"'), "elapsed")
    assert c.verdict == "undecided", c.detail
    assert "a run again of each gave other values" in c.detail, c.detail


@needs_clock
def test_an_edit_to_what_is_computed_from_the_clock_is_found():
    old = d('''
        import time

        def deadline(seconds):
            return time.time() + seconds
        ''')
    c = compare_sources(old, old.replace("+ seconds", "+ seconds * 2"), "deadline")
    assert c.verdict == "changed", c.detail
    # the same computation written another way: nothing to tell apart
    same = old.replace("return time.time() + seconds",
                       "now = time.time()\n    return now + seconds")
    assert compare_sources(old, same, "deadline").verdict != "changed"


def test_every_run_of_an_input_draws_the_same_random_bytes():
    src = d('''
        import os
        import random
        import secrets
        import uuid

        def tokens(tag):
            return (tag, os.urandom(4).hex(), secrets.token_hex(4), str(uuid.uuid4()),
                    random.Random().random())
        ''')
    v = function_versions(src, "m.py")["tokens"]
    side = B._Side(v, ["tag"], [], None)
    first = side.run(B.Input("tag = 'a'"), OPTS)
    again = side.run(B.Input("tag = 'a'"), OPTS, shift=2)
    other = side.run(B.Input("tag = 'a'", seed=7), OPTS)
    assert first["outcome"] == "returned" and first["ret"] == again["ret"]
    # another input's seed, other bytes: a seed, not a constant
    assert other["outcome"] == "returned" and other["ret"] != first["ret"]
    # the parent's own are untouched
    import os
    assert os.urandom(8) != os.urandom(8)


def test_an_argument_added_to_the_call_that_hashes_a_nonce_is_found():
    # requests' digest auth: ``hashlib.sha1(s, usedforsecurity=False)`` over
    # a nonce made of ``os.urandom(8)``; with other bytes in every run the
    # calls differed from one run of a version to the next and did not count
    old = d('''
        import hashlib
        import os

        def cnonce(count):
            s = str(count).encode("utf-8") + os.urandom(8)
            return hashlib.sha1(s).hexdigest()[:16]
        ''')
    new = old.replace("hashlib.sha1(s)", "hashlib.sha1(s, usedforsecurity=False)")
    c = compare_sources(old, new, "cnonce")
    assert c.verdict == "changed", c.detail
    assert "usedforsecurity" in c.detail
    same = old.replace("return hashlib.sha1(s).hexdigest()[:16]",
                       "h = hashlib.sha1(s)\n    return h.hexdigest()[:16]")
    assert compare_sources(old, same, "cnonce").verdict != "changed"


def test_a_temporary_directory_s_name_is_the_same_in_every_run_of_an_input():
    # diskcache's FanoutCache.deque: what it makes keeps the directory
    # ``tempfile.mkdtemp(prefix=...)`` made, another random name in every
    # run, so the versions' difference (a setting) was taken for a value
    # that changes from one run to the next
    old = d('''
        import tempfile

        def store(name):
            return {"directory": tempfile.mkdtemp(prefix=name + "-"), "policy": "lru"}
        ''')
    new = old.replace('"policy": "lru"', '"policy": "none"')
    assert new != old
    c = compare_sources(old, new, "store")
    assert c.verdict == "changed", c.detail
    assert "none" in c.detail
    v = function_versions(old, "m.py")["store"]
    side = B._Side(v, ["name"], [], None)
    first = side.run(B.Input("name = 'q'"), OPTS)
    again = side.run(B.Input("name = 'q'"), OPTS, shift=2)
    assert first["outcome"] == "returned" and first["ret"] == again["ret"], (first, again)
    assert "q-" in str(first["ret"])
    # the parent's own names are still random
    import tempfile
    assert len({next(tempfile._get_candidate_names()) for _ in range(4)}) > 1


def test_a_parameter_annotated_with_a_standard_library_value_type_gets_one():
    # cachecontrol's expire_after: ``span: timedelta`` was given an int by the
    # prefixes (``datetime + 3`` raised in every run, in both versions), so
    # the edit to what ``start`` defaults to never showed
    old = d('''
        from datetime import datetime, timedelta
        from typing import Optional

        def expiry(span: timedelta, start: Optional[datetime] = None) -> datetime:
            start = start or datetime.utcnow()
            return start + span
        ''')
    new = old.replace("datetime.utcnow()", "datetime.now(timezone.utc)") \
        .replace("import datetime, timedelta", "import datetime, timedelta, timezone")
    c = compare_sources(old, new, "expiry")
    assert c.verdict == "changed", c.detail
    assert "tzinfo" in c.detail
    samples = D._type_samples(ast.parse("Optional[dt.datetime]", mode="eval").body)
    assert len(samples) == 2 and "datetime(" in samples[0] and samples[1] == "None"
    assert "timedelta(" in D._type_samples(ast.parse("timedelta", mode="eval").body)[0]
    assert D._type_samples(ast.parse("Widget", mode="eval").body) == []


def test_isinstance_of_a_standard_library_class_gets_a_value_of_it():
    assert D._sample_of("datetime") == D._sample_of("dt.datetime")
    assert "datetime(" in D._sample_of("datetime.datetime")
    assert "Decimal(" in D._sample_of("decimal.Decimal")
    assert D._sample_of("collections.abc.Mapping") == D._SAMPLES["Mapping"]
    assert D._sample_of("mymodule.thing") is None and D._sample_of("Thing") is None
    for name in ("datetime", "date", "time", "timedelta", "Decimal", "Fraction", "Path"):
        eval(D._sample_of(name))             # each one builds
    old = d('''
        import datetime as dt

        def local(value):
            return value
        ''')
    new = d('''
        import datetime as dt

        def local(value):
            if isinstance(value, dt.datetime) and value.tzinfo is not None:
                value = value.replace(tzinfo=None)
            return value
        ''')
    fa, fb, (ch_o, ch_n) = _versions(old, new, "local")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, ch_o, ch_n)]
    assert any("').datetime(2024, 6, 15" in n for n in notes), notes
    # the aimed datetime, made aware (a variant), tells the versions apart
    c = compare_sources(old, new, "local")
    assert c.verdict == "changed", c.detail


def test_numbers_where_rounding_carries_over_for_the_changed_arithmetic():
    old = d('''
        def size(value, fmt="%.1f"):
            if value < 1000:
                return "%d B" % value
            kb = value / 1000
            return (fmt % kb) + " kB"
        ''')
    new = d('''
        def size(value, fmt="%.1f"):
            if value < 1000:
                return "%d B" % value
            kb = value / 1000
            if float(fmt % (value / 1000)) >= 1000:
                return (fmt % (kb / 1000)) + " MB"
            return (fmt % kb) + " kB"
        ''')
    fa, fb, (ch_o, ch_n) = _versions(old, new, "size")
    changed, _ = D._changed_nodes(fb, ch_n)
    hints = D._carry_hints(changed, D._Scope(fb), fb.node)
    assert hints and hints[0][0] == ["value"], hints
    assert "999999" in hints[0][1] and "999.96" in hints[0][1]
    # the format is no number: ``fmt % kb`` gives it no hint
    assert all(h[0] != ["fmt"] for h in hints)
    # 999999 is where the two versions part
    inp = B.Input("value = 999999")
    ro = B._Side(fa, ["value"], [], None).run(inp, OPTS)
    rn = B._Side(fb, ["value"], [], None).run(inp, OPTS)
    assert (ro["ret"], rn["ret"]) == (repr("'1000.0 kB'"), repr("'1.0 MB'")), (ro, rn)
    assert compare_sources(old, new, "size").verdict == "changed"


def test_constants_from_powers_and_their_order():
    fn = ast.parse("def f(x):\n    if x >= 10 ** 3:\n        return x / 1024\n").body[0]
    got = D._number_constants(fn)
    assert got.index(1000) < got.index(1024) and 3 not in got
    assert D._number_constants(ast.parse("x = 5 + 3").body[0]) == []


def test_the_protocols_of_an_object_of_a_class_the_function_builds():
    old = d('''
        def make_sentinel(name):
            class Sentinel(object):
                def __repr__(self):
                    return name
                def __copy__(self):
                    return self
                def __deepcopy__(self):
                    return self
            return Sentinel()
        ''')
    new = old.replace("def __deepcopy__(self):", "def __deepcopy__(self, memo):")
    c = compare_sources(old, new, "make_sentinel")
    assert c.verdict == "changed", c.detail
    assert "deepcopy" in c.detail
    # the same class written another way keeps every protocol's answer
    same = old.replace("def __copy__(self):\n            return self",
                       "def __copy__(self):\n            me = self\n            return me")
    assert same != old
    assert compare_sources(old, same, "make_sentinel").verdict != "changed"
    # objects of classes defined elsewhere are not probed
    src = d('''
        class Box:
            def __deepcopy__(self):
                return self

        def make():
            return Box()
        ''')
    v = function_versions(src, "m.py")["make"]
    r = B._Side(v, [], [], None).run(B.Input(""), OPTS)
    assert r["outcome"] == "returned" and "<protocols>" not in r["ret"], r


def test_a_public_attribute_renamed_is_a_change_a_private_one_is_not():
    x = ["Box", [["converter", "1"], ["size", "2"]]]
    y = ["Box", [["_converter", "1"], ["size", "2"]]]
    assert not B._alike_but_renamed(x, y)
    p = ["Box", [["_conv", "1"], ["size", "2"]]]
    q = ["Box", [["_converter", "1"], ["size", "2"]]]
    assert B._alike_but_renamed(p, q)
    old = d('''
        class Box:
            def __init__(self, converter):
                self.converter = converter
        ''')
    c = compare_sources(old, old.replace("self.converter =", "self._converter ="),
                        "Box.__init__")
    assert c.verdict == "changed", c.detail


def test_an_exception_while_iterating_is_told_from_one_the_call_raises():
    old = d('''
        def tail(n, items):
            if n < 0:
                raise ValueError("n < 0")
            yield from iter(items[len(items) - n:])
        ''')
    new = old.replace("yield from iter(", "return iter(")
    fa, fb, _ = _versions(old, new, "tail")
    inp = B.Input("n = -1\nitems = [1, 2]")
    ro = B._Side(fa, ["n", "items"], [], None).run(inp, OPTS)
    rn = B._Side(fb, ["n", "items"], [], None).run(inp, OPTS)
    assert ro["outcome"] == rn["outcome"] == "raised:ValueError", (ro, rn)
    assert ro.get("ret") and not rn.get("ret")
    assert "when iterated" in B._oc(ro) and B._oc(rn) == "raises ValueError"
    assert B._differences(ro, rn) == ["ret"]
    c = compare_sources(old, new, "tail")
    assert c.verdict == "changed" and "when iterated" in c.detail, c.detail
    # both lazy: no difference in when
    lazy = old.replace("yield from iter(items[len(items) - n:])",
                       "for x in items[len(items) - n:]:\n        yield x")
    assert lazy != old
    fl = function_versions(lazy, "m.py")["tail"]
    rl = B._Side(fl, ["n", "items"], [], None).run(inp, OPTS)
    assert not B._differences(ro, rl), (ro, rl)


def test_other_arguments_to_a_stand_in_after_the_same_calls_are_the_codes_own():
    a = {"calls": repr([["<input>.f", ["1"], []], ["<input>._", ["'today'"], []]])}
    b = {"calls": repr([["<input>.f", ["1"], []], ["<input>._", ["'yesterday'"], []]])}
    assert B._own_call_difference(a, b)
    # the first difference decides: here f's own argument
    c = {"calls": repr([["<input>.f", ["2"], []], ["<input>._", ["'yesterday'"], []]])}
    assert B._own_call_difference(a, c)
    e = {"calls": repr([["<input>.g", ["1"], []]])}
    assert not B._own_call_difference(a, e)      # another callee
    f = {"calls": repr([["<input>.f", ["1"], []], ["<input>._", ["<Dummy 'x'>"], []]])}
    assert not B._own_call_difference(a, f)      # a made-up argument
    assert not B._own_call_difference(a, a)      # no difference at all


def test_parameters_named_for_a_text_format_get_text_of_that_format():
    src = d('''
        def parse(timestr, url, count=0, times=None, timeout=None, when_date="x"):
            return timestr
        ''')
    v = function_versions(src, "m.py")["parse"]
    got = {h[0][0]: h[1] for h in D._name_hints(v)}
    assert set(got) == {"timestr", "url", "when_date"}, got
    assert "'21:21:09.371254'" in got["timestr"]
    assert got["url"][0].startswith("'https://")
    assert "'2024-06-15'" in got["when_date"]
    # a function that compares with bytes literals gets bytes
    bsrc = d('''
        def parse_time(timestr):
            if timestr[0:1] in b'-+Z':
                return None
            return timestr
        ''')
    bv = function_versions(bsrc, "m.py")["parse_time"]
    assert D._name_hints(bv)[0][1][0] == repr(b"21:21:09.371254")
    # a parameter whose default is a number is no text, whatever its name
    nsrc = d('''
        def f(date=3):
            return date
        ''')
    assert D._name_hints(function_versions(nsrc, "m.py")["f"]) == []


def test_star_args_items_are_shown_and_can_be_reshaped():
    old = d('''
        def first_each(*seqs):
            return [next(iter(s)) for s in seqs]
        ''')
    v = function_versions(old, "m.py")["first_each"]
    side = B._Side(v, [], [], None, ("seqs", "seqs"))
    opts = B.Options(aimed=False, max_inputs=1, min_killed=0)
    inp = B.Input("seqs = [[1, 2], [3]]", given=("seqs",))
    r = side.run(inp, opts)
    assert r["outcome"] == "returned" and r["ret"] == "['list', '1', '3']", r
    assert list(r["input"]) == ["*seqs[0]", "*seqs[1]"], r["input"]
    # "iter@1": the second item as an iterator
    r2 = side.run(B.Input("seqs = [[1, 2], [3]]", given=("seqs",), reshape="iter@1"), opts)
    assert r2["outcome"] == "returned" and r2["input"]["(reshape)"] == "iter@1", r2


def test_a_bound_compared_through_a_name_bound_to_a_constant_expression():
    assert D._number_of(ast.parse("211 ** 2", mode="eval").body) == 44521
    assert D._number_of(ast.parse("-(1 << 10)", mode="eval").body) == -1024
    for text in ("2 ** 100000", "x + 1", "1 / 0", "'a' * 3"):
        assert D._number_of(ast.parse(text, mode="eval").body) is D._NO, text
    src = d('''
        def small(n):
            limit = 211 ** 2
            if n < limit:
                return "small"
            return "big"
        ''')
    v = function_versions(src, "m.py")["small"]
    scope = D._Scope(v)
    assert scope.constants == {"limit": 44521}
    hints = D._hints(v.node, scope)
    assert (["n"], ["44520", "44521", "44522"], False) in hints, hints
    # a name bound twice is no constant
    two = function_versions(src.replace("    if n < limit:", "    limit += 1\n    if n < limit:"),
                            "m.py")["small"]
    assert "limit" not in D._Scope(two).constants


def test_a_helper_called_again_with_the_same_arguments_is_no_interaction():
    one = {"calls": repr([["internal:parse", ["'12'"], []], ["os.remove", ["'a'"], []]])}
    two = {"calls": repr([["internal:parse", ["'12'"], []], ["internal:parse", ["'12'"], []],
                          ["os.remove", ["'a'"], []]])}
    assert B._differences({"outcome": "returned", **one},
                          {"outcome": "returned", **two}) == []
    # other arguments, or an outside call repeated, still differ
    other = {"calls": repr([["internal:parse", ["'12'"], []], ["internal:parse", ["'13'"], []],
                            ["os.remove", ["'a'"], []]])}
    assert B._differences({"outcome": "returned", **one},
                          {"outcome": "returned", **other}) == ["calls"]
    twice = {"calls": repr([["internal:parse", ["'12'"], []], ["os.remove", ["'a'"], []],
                            ["os.remove", ["'a'"], []]])}
    assert B._differences({"outcome": "returned", **one},
                          {"outcome": "returned", **twice}) == ["calls"]
    # two helpers called in the other order: no difference; two outside calls: one
    ab = {"outcome": "returned", "calls": repr([["internal:a", [], []], ["internal:b", [], []]])}
    ba = {"outcome": "returned", "calls": repr([["internal:b", [], []], ["internal:a", [], []]])}
    assert B._differences(ab, ba) == []
    xy = {"outcome": "returned", "calls": repr([["os.remove", ["'x'"], []],
                                                ["os.remove", ["'y'"], []]])}
    yx = {"outcome": "returned", "calls": repr([["os.remove", ["'y'"], []],
                                                ["os.remove", ["'x'"], []]])}
    assert B._differences(xy, yx) == ["calls"]


def test_a_helper_of_the_package_handed_bytes_or_a_bytearray_of_them_is_one_call():
    # idna's ``label_bytes = label`` -> ``label_bytes = bytes(label)`` before
    # ``check_label(label_bytes)``: the helper runs for real in both
    def run(*calls):
        return {"outcome": "returned", "calls": repr(list(calls))}
    as_array = ["internal:check_label", [["bytearray", "b'a'"]], []]
    as_bytes = ["internal:check_label", ["b'a'"], []]
    assert B._differences(run(as_array), run(as_bytes)) == []
    moved = ["idna.(package).check_label", [["bytearray", "b'a'"]], []]
    assert B._differences(run(moved), run(["idna.(package).check_label", ["b'a'"], []])) == []
    # other bytes, or the outside world handed a bytearray, still differ
    assert B._differences(run(as_array), run(["internal:check_label", ["b'b'"], []])) == \
        ["calls"]
    sent = ["socket.socket.send", [["bytearray", "b'a'"]], []]
    assert B._differences(run(sent), run(["socket.socket.send", ["b'a'"], []])) == ["calls"]


def test_a_made_up_self_does_not_shadow_what_the_class_defines():
    src = d('''
        class P:
            SEP = b':'
            mode = None

            def has_sep(self, s):
                return (s[2:3] == self.SEP, self.mode)
        ''')
    v = function_versions(src, "m.py")["P.has_sep"]
    inp = B.Input("class C_self:\n    pass\n_self = C_self()\n_self.SEP = 1\n"
                  "_self.mode = 'fast'\n_self.other = 5\nself = _self\ns = b'21:21'")
    r = B._Side(v, ["s"], [], None).run(inp, OPTS)
    # the class's own separator; a class default of None may be given
    assert r["outcome"] == "returned" and r["ret"] == "['tuple', 'True', \"'fast'\"]", r
    assert "'other'" in r["self"] and "'SEP'" not in r["self"], r["self"]
    # what the other version's class defines is not copied either
    r2 = B._Side(v, ["s"], [], None, class_attrs=("other",)).run(inp, OPTS)
    assert "'other'" not in r2["self"], r2["self"]
    old, new = function_versions(src, "m.py")["P.has_sep"], function_versions(
        src.replace("    mode = None\n", "    mode = None\n    other = 2\n"), "m.py")["P.has_sep"]
    assert B._class_values(old) == {"SEP", "has_sep"}
    assert B._class_values(new) == {"SEP", "other", "has_sep"}
    # a declaration whose value instances get later (attrs' ``x = attrib()``) is
    # no value of the class's own: a made-up one may stand in for it
    decl = function_versions(src.replace("    mode = None\n", "    mode = attrib()\n"),
                             "m.py")["P.has_sep"]
    assert "mode" not in B._class_values(decl)
    r3 = B._Side(decl, ["s"], [], None).run(inp, OPTS)
    assert r3["outcome"] == "returned" and "'fast'" in r3["ret"], r3


def test_super_and_locals_read_the_frame_of_the_code_not_of_the_trace():
    src = d('''
        class Base:
            def size(self):
                return 1

        class Box(Base):
            def size(self):
                # (extract mode gives the class a stand-in base: object's
                # methods are what super() finds)
                n = 2 if super().__eq__(self) is True else 0
                return (n, sorted(locals()), "Box" in globals(), dir())
        ''')
    v = function_versions(src, "m.py")["Box.size"]
    r = B._Side(v, [], [], None).run(B.Input(""), OPTS)
    assert r["outcome"] == "returned", r
    names = ["list", "'__class__'", "'n'", "'self'"]      # as Python's own locals()
    assert ast.literal_eval(r["ret"]) == ["tuple", "2", names, "True", names], r["ret"]
    new = src.replace("n = 2 if", "n = 3 if")
    c = compare_sources(src, new, "Box.size")
    assert c.verdict == "changed", c.detail


def test_a_class_keeps_its_builtin_bases_in_extract_mode():
    from lexecutor_c.apps.funcsource import build_driver
    src = d('''
        class Multi(dict):
            def first(self, k, default=None):
                return super().get(k, [default])[0]

        class Plain(object):
            def f(self):
                return 1

        class Other(Base):
            def f(self):
                return 1
        ''')
    vs = function_versions(src, "m.py")
    assert "class Multi(dict, __lx_base__):" in build_driver(vs["Multi.first"]).text
    assert "class Plain(__lx_base__):" in build_driver(vs["Plain.f"]).text
    assert "class Other(__lx_base__):" in build_driver(vs["Other.f"]).text
    r = B._Side(vs["Multi.first"], ["k"], [], None).run(B.Input("k = 'a'"), OPTS)
    assert r["outcome"] == "returned" and r["ret"] == "'None'", r


def test_same_needs_every_changed_line_run():
    old = d('''
        def f(x):
            return x
        ''')
    new = d('''
        def f(x):
            if hash(repr(x)) == 12345:
                return None
            return x
        ''')
    c = compare_sources(old, new, "f")
    assert c.verdict == "undecided", c.detail
    assert "no input ran the changed new line" in c.detail
    # without the rule, the mutation gate is what stands between these
    # inputs and "same"; with it off too, they say "same"
    fa, fb, _ = _versions(old, new, "f")
    fc = B.check_function(fa, fb, opts=B.Options(cover_all=False, min_killed=0))
    assert fc.verdict == "same", fc.detail


def test_a_reworded_format_template_is_found_in_the_formatted_message():
    assert B._holds_text("expected a float, not -2.0_x", "expected a float, not %r_x")
    assert B._holds_text("bad 3 for key 'k'", "bad {} for key {!r}")
    assert not B._holds_text("something else entirely", "expected a float, not %r_x")
    assert not B._holds_text("x", "%s")        # nothing literal to look for
    old = d('''
        def seek(rel):
            if not -1.0 < rel < 1.0:
                raise ValueError("expected a float between -1.0 and 1.0, not %r" % rel)
            return rel
        ''')
    new = old.replace("not %r\"", "not %r!\"")
    c = compare_sources(old, new, "seek")
    assert c.verdict == "changed" and "exception message" in c.detail, c.detail
    assert compare_sources(old, new, "seek", ignore_messages=True).verdict != "changed"


def test_an_attribute_error_about_the_edits_own_name_is_no_artefact():
    old = d('''
        class Frozen(Exception):
            pass

        def frozen_delattr(self, name):
            raise Frozen
        ''')
    new = d('''
        class Frozen(Exception):
            pass

        def frozen_delattr(self, name):
            if isinstance(self, BaseException) and name in ("__notes__",):
                BaseException.__delattr__(self, name)
                return
            raise Frozen
        ''')
    c = compare_sources(old, new, "frozen_delattr")
    assert c.verdict == "changed", c.detail
    # the rule itself: only an AttributeError naming one of the edit's tokens
    inp = B.Input("", note="aimed: self = ValueError('a')")
    ro = {"outcome": "raised:Frozen", "message": ""}
    rn = {"outcome": "raised:AttributeError",
          "message": "'ValueError' object has no attribute '__notes__'"}
    assert not B._artefact(ro, rn, inp, ("__notes__",))
    assert B._artefact(ro, rn, inp, ("other",))


def test_membership_and_sentinel_tests_get_a_value_of_the_other_answer():
    src = d('''
        no_default = object()

        def f(name, left=no_default):
            if name in ("a", "b") and left is no_default:
                return 1
            return 2
        ''')
    v = function_versions(src, "m.py")["f"]
    hints = D._hints(v.node, D._Scope(v))
    by = {tuple(p): vals for p, vals, _ in hints if p != "RAW"}
    assert by[("name",)] == ["'a'", "'b'", "'other'"], by
    assert D._outside([1, 3]) == [4] and D._outside([1.5]) == []


def test_a_sentinel_compared_by_identity_gets_none_as_the_other_value():
    old = d('''
        from toolz.utils import no_default

        def join(how, left_default=no_default, right_default=no_default):
            if (left_default is no_default) and (right_default is no_default):
                return "inner"
            return "outer"
        ''')
    new = old.replace(") and (right_default", ") or (right_default")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "join")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, ch_o, ch_n)]
    assert "aimed: left_default = None" in notes, notes
    assert compare_sources(old, new, "join").verdict == "changed"


def test_a_boundary_the_changed_comparison_met_at_run_time_is_tried():
    # the bounds come from a module table the function loops over: no
    # constant on the changed line says 1024; the run shows it
    old = d('''
        _BOUNDS = [(1, "B"), (1 << 10, "K"), (1 << 20, "M"), (1 << 30, "G")]
        _RANGES = list(zip(_BOUNDS, _BOUNDS[1:]))

        def human(nbytes):
            size, symbol = _BOUNDS[0]
            for (size, symbol), (next_size, next_symbol) in _RANGES:
                if nbytes <= next_size:
                    break
            return "%d%s" % (nbytes // size, symbol)
        ''')
    new = old.replace("nbytes <= next_size", "nbytes < next_size")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "human")
    assert B._edit_comparisons(fa, fb, ch_o, ch_n) == [("nbytes", "next_size")]
    run = {"points": [{"nbytes": repr("5"), "next_size": repr("1024")},
                      {"nbytes": repr("5"), "next_size": repr("1048576")}]}
    assert B._boundaries(5, (run,), [("nbytes", "next_size")]) == [1024, 1048576]
    assert B._boundaries(-5, (run,), [("nbytes", "next_size")]) == [-1024, -1048576]
    assert B._boundaries(7, (run,), [("nbytes", "next_size")]) == []
    c = compare_sources(old, new, "human")
    assert c.verdict == "changed", c.detail


def test_the_subject_of_simple_arithmetic_gets_the_values_that_make_it():
    e = ast.parse("value % 100", mode="eval").body
    sub, vals = D._invert(e, [11, 12])
    assert ast.unparse(sub) == "value" and vals == [11, 111, 12, 112]
    sub, vals = D._invert(ast.parse("n // 10 + 1", mode="eval").body, [3])
    assert ast.unparse(sub) == "n" and vals == [20, 29]
    old = d('''
        def ordinal(value):
            if value % 100 in (11, 12, 13):
                return "%dth" % value
            return "%d%s" % (value, ["th", "st", "nd", "rd"][min(value % 10, 3)])
        ''')
    new = old.replace("value % 100 in", "value // 100 in")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "ordinal")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, ch_o, ch_n)]
    assert "aimed: value = 11" in notes and "aimed: value = 1100" in notes, notes


def test_getattr_type_tests_and_a_helpers_tests_give_the_subject_values():
    src = d('''
        def _norm(other):
            if type(other) in (set, frozenset):
                return other, None
            return NotImplemented, None

        class S:
            def __get__(self, obj, obj_type):
                self.name = getattr(self, "__name__", None)
                return self

            def __le__(self, other):
                inc, exc = _norm(other)
                if inc is NotImplemented:
                    return NotImplemented
                return inc <= self.items
        ''')
    vs = function_versions(src, "m.py")
    got = D._hints(vs["S.__get__"].node, D._Scope(vs["S.__get__"]))
    assert (["self", "__name__"], ["'a'"], False) in got, got
    le = vs["S.__le__"]
    called = D._callee_hints(le, D._Scope(le))
    assert (["other"], ["{1}", "frozenset({1})", "type('_LxSub', (set,), {})({1})",
                        "type('_LxSub', (frozenset,), {})(frozenset({1}))"], False) in called, \
        called


def test_an_enumeration_of_the_module_is_defined_in_extract_mode():
    from lexecutor_c.apps.funcsource import build_driver
    src = d('''
        from enum import Enum
        from functools import total_ordering

        @total_ordering
        class Unit(Enum):
            SECONDS = 2
            MINUTES = 3

            def __lt__(self, other):
                return self.value < other.value

        class Helper:
            pass

        def unit_of(name):
            u = Unit[name.upper()]
            if u not in (Unit.SECONDS,):
                raise ValueError(name)
            return u >= Unit.SECONDS, Helper
        ''')
    v = function_versions(src, "m.py")["unit_of"]
    text = build_driver(v).text
    assert "@total_ordering\nclass Unit(Enum):" in text and "class Helper" not in text
    r = B._Side(v, ["name"], [], None).run(B.Input("name = 'seconds'"), OPTS)
    assert r["outcome"] == "returned" and r["ret"].startswith("['tuple', 'True'"), r


def test_a_docstring_is_no_line_that_has_to_run():
    old = d('''
        def f(x, y=1):
            """Add."""
            return x + y
        ''')
    new = d('''
        def f(x, y=2):
            """Add y (2 by default)."""
            return x + y
        ''')
    fa, fb, (ch_o, ch_n) = _versions(old, new, "f")
    assert ch_o == {3} and ch_n == {3}, (ch_o, ch_n)
    only_doc = function_versions('def g():\n    """Doc."""\n', "m.py")["g"]
    assert changed_lines(only_doc, only_doc) == (set(), set())
    from lexecutor_c.apps.funcsource import _to_markers
    assert _to_markers(only_doc, {1, 2}) == set()


def test_the_names_an_edit_swapped_and_the_stand_ins_made_for_them():
    old = d('''
        from .compat import iteritems

        def pairs(d):
            return sorted(iteritems(d))
        ''')
    new = d('''
        def pairs(d):
            return sorted(d.items())
        ''')
    fa, fb, _ = _versions(old, new, "pairs")
    assert {"iteritems", "items"} <= B._swapped_names(fa, fb)
    ro = {"ret": "\"<Dummy 'iteritems'>\""}
    rn = {"ret": "['list', ['tuple', \"'a'\", '1']]"}
    assert B._swapped_stand_ins(ro, rn, {"iteritems"}) == ["iteritems"]
    assert not B._swapped_stand_ins(ro, rn, {"other"})
    # a difference through the stand-in stays weak evidence, never "same"
    assert compare_sources(old, new, "pairs").verdict != "same"


def test_two_arguments_in_another_shape_at_once():
    from lexecutor_c.apps.funcrun import PAIR, reshape
    it = reshape("ab", "iter")
    assert list(it) == ["a", "b"]                # a string's characters (pairs only)
    assert "iter" not in B._shapes_of("'ab'")    # never alone
    old = d('''
        def lengths(*iterables, repeat=1):
            """
            >>> lengths('ab', 'cde')
            [2, 3]
            """
            pools = tuple(map(tuple, iterables * repeat))
            return [len(p) for p in pools]
        ''')
    new = d('''
        def lengths(*iterables, repeat=1):
            """
            >>> lengths('ab', 'cde')
            [2, 3]
            """
            pools = tuple(map(tuple, iterables)) * repeat
            return [len(p) for p in pools]
        ''')
    fa, fb, _ = _versions(old, new, "lengths")
    side_o = B._Side(fa, [], [], None, ("iterables", "iterables"))
    side_n = B._Side(fb, [], [], None, ("iterables", "iterables"))
    given = ("iterables",)
    inp = B.Input("iterables = ['ab', 'cd']", given=given,
                  reshape=f"big@repeat{PAIR}iter@0")
    ro, rn = side_o.run(inp, OPTS), side_n.run(inp, OPTS)
    assert ro["outcome"] == rn["outcome"] == "returned", (ro, rn)
    assert ro["ret"] != rn["ret"]                # the iterator ran dry in the old one
    # one at a time, neither shows it
    for one in ("big@repeat", "iter@0"):
        one_in = B.Input("iterables = [['a', 'b'], 'cd']", given=given, reshape=one)
        r1, r2 = side_o.run(one_in, OPTS), side_n.run(one_in, OPTS)
        assert r1["outcome"] == "returned" and r1["ret"] == r2["ret"], (one, r1, r2)
    c = compare_sources(old, new, "lengths")
    assert c.verdict == "changed", c.detail


def test_a_quoted_text_for_a_subject_tested_at_both_ends():
    src = d('''
        def unquote(annot):
            if annot.startswith(("'", '"')) and annot.endswith(("'", '"')):
                annot = annot[1:-1]
            return annot.startswith(_PREFIXES)
        _PREFIXES = ("ClassVar", "typing.ClassVar")
        ''')
    v = function_versions(src, "m.py")["unquote"]
    vals = [x for p, vs, _ in D._hints(v.node, D._Scope(v)) if p == ["annot"] for x in vs]
    assert "\"'ClassVar'\"" in vals and "'typing.ClassVar'" in vals, vals


def test_one_input_falls_through_every_early_return():
    old = d('''
        class Table:
            def _set_width(self, reset=False):
                if reset:
                    self._width = 0
                if self._width:
                    return
                if self.headers:
                    self._width = len(self.headers)
                    return
                self._width = max([len(r) for r in self._data])
        ''')
    new = old.replace("for r in self._data])", "for r in self._data], default=0)")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "Table._set_width")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, ch_o, ch_n)]
    assert "aimed (edge): reset = None, self._width = None, self.headers = None, " \
        "self._data = []" in notes, notes
    c = compare_sources(old, new, "Table._set_width")
    assert c.verdict == "changed" and "ValueError" in c.detail, c.detail


def test_an_attribute_that_stands_in_for_its_subject_gets_the_subjects_values():
    src = d('''
        def is_class_var(annot):
            annot = getattr(annot, "__forward_arg__", annot)
            annot = str(annot)
            return annot.startswith("ClassVar")
        ''')
    v = function_versions(src, "m.py")["is_class_var"]
    got = D._hints(v.node, D._Scope(v))
    assert (["annot", "__forward_arg__"], ["'ClassVar'", "'other'"], False) in got, got


def test_agreement_through_made_up_values_of_a_swapped_name_is_no_same():
    old = d('''
        def covers(excluded, other):
            return excluded.issupserset(other)
        ''')
    new = old.replace("issupserset", "issuperset")
    fa, fb, _ = _versions(old, new, "covers")
    # a made-up ``excluded`` answers both names alike: no "same" from that
    side_o, side_n = B._Side(fa, ["excluded", "other"], [], None), \
        B._Side(fb, ["excluded", "other"], [], None)
    inp = B.Input("other = {1}")
    ro, rn = side_o.run(inp, OPTS), side_n.run(inp, OPTS)
    assert B._differences(ro, rn) == [], (ro, rn)
    assert B._swapped_stand_ins(ro, rn, B._swapped_names(fa, fb))
    c = compare_sources(old, new, "covers")
    assert c.verdict != "same", c.detail


def test_a_file_object_for_what_is_read_and_a_loop_the_edit_ends():
    old = d('''
        class Lines:
            def align(self):
                fo, bsize = self._file_obj, self._blocksize
                cur = ''
                while '\\n' not in cur:
                    cur = fo.read(bsize)
                return fo.tell()
        ''')
    new = old.replace("cur = fo.read(bsize)\n",
                      "cur = fo.read(bsize)\n            if not cur:\n                return None\n")
    fa, fb, _ = _versions(old, new, "Lines.align")
    got = D._file_hints(fb, D._Scope(fb))
    assert got and all(h[0] == "RAW" for h in got)
    assert "self._file_obj = __import__('io').StringIO('ab')" in got[0][1]
    assert "self._blocksize = 4" in got[0][1]
    # a loop without end in one version, an answer in the other: a change
    assert B._hang({"outcome": "timeout"}, {"outcome": "returned", "input": {}})
    assert not B._hang({"outcome": "timeout"}, {"outcome": "timeout"})
    assert not B._hang({"outcome": "timeout"},
                       {"outcome": "returned", "input": {"x": "<Dummy 'x'>"}})
    c = compare_sources(old, new, "Lines.align", timeout=1.0)
    assert c.verdict == "changed" and "time limit" in c.detail, c.detail


def test_a_parameter_named_for_a_traceback_gets_traceback_text():
    v = function_versions("def parse(cls, tb_str):\n    return tb_str\n", "m.py")["parse"]
    (path, vals, _), = D._name_hints(v)
    assert path == ["tb_str"] and len(vals) == 2
    full = ast.literal_eval(vals[0])
    assert full.startswith("Traceback (most recent call last):\n  File ")
    assert "^^^^^^" in full and full.rstrip().endswith("ZeroDivisionError: division by zero")
    assert not ast.literal_eval(vals[1]).rstrip().endswith("zero")     # cut off


def test_a_method_runs_on_an_instance_its_constructor_built():
    from lexecutor_c.apps.funcsource import build_driver
    src = d('''
        class Info:
            def __init__(self):
                self.units = {"k": 1000}

        class Reader:
            def __init__(self, info=None):
                self.info = info or Info()

            def scale(self, unit):
                return self.info.units[unit]

        class Needy:
            def __init__(self, size):
                self.size = size

            def twice(self):
                return 2
        ''')
    vs = function_versions(src, "m.py")
    text = build_driver(vs["Reader.scale"]).text
    assert "class Info" in text             # what the constructor builds is defined
    r = B._Side(vs["Reader.scale"], ["unit"], [], None).run(B.Input("unit = 'k'"), OPTS)
    assert r["outcome"] == "returned" and r["ret"] == "'1000'", r
    # a constructor that needs arguments is not called: a bare instance
    r = B._Side(vs["Needy.twice"], [], [], None).run(B.Input(""), OPTS)
    assert r["outcome"] == "returned" and r["ret"] == "'2'", r


def test_a_method_of_an_abstract_class_runs_on_a_concrete_subclass(tmp_path):
    # module mode: ``object.__new__`` refuses an abstract class, so a method
    # of one (tenacity's ``BaseRetrying.wraps``) ran on no input
    src = d('''
        import abc

        class Base(abc.ABC):
            @abc.abstractmethod
            def __call__(self, x):
                ...

            def twice(self, x):
                return [self(x), self(x)]

        class Doubler(Base):
            def __call__(self, x):
                return 2 * x
        ''')
    bare = src[:src.index("class Doubler")]

    def run(text):
        (tmp_path / "m.py").write_text(text)
        v = function_versions(text, "m.py")["Base.twice"]
        return B._Side(v, ["x"], [], B.Tree(str(tmp_path))).run(B.Input("x = 3"), OPTS)
    r = run(src)            # the subclass the module defines
    assert r["outcome"] == "returned" and r["ret"] == "['list', '6', '6']", r
    r = run(bare)           # none defined: one made here, the abstract body kept
    assert r["outcome"] == "returned" and r["ret"] == "['list', 'None', 'None']", r


def test_a_parameter_tested_against_a_computed_container_gets_its_members(monkeypatch):
    # semver's ``next_version``: no literal names "pre", the member of
    # ``cls.NAMES[:-1]`` that reaches the edit; the run reads the container
    old = d('''
        class Version:
            NAMES = tuple(n.strip("_") for n in ("_major", "_minor", "_pre", "_build"))

            def next(self, part, token="rc"):
                cls = type(self)
                valid = cls.NAMES[:-1]
                if part not in valid:
                    raise ValueError(part)
                if part in cls.NAMES[:2]:
                    return part
                return [token]
        ''')
    new = old.replace("return [token]", "return [token, 0]")
    v = function_versions(old, "m.py")["Version.next"]
    guards = B._param_guards(v)
    assert [g[1:] for g in guards] == [["part", "valid", "in"], ["part", "cls.NAMES[:2]", "in"]]
    assert compare_sources(old, new, "Version.next").verdict == "changed"
    monkeypatch.setattr(B, "_OBSERVED_INPUTS", 0)
    assert compare_sources(old, new, "Version.next").verdict != "changed"


def test_a_parameter_looked_up_in_a_computed_dict_gets_its_keys(monkeypatch):
    old = d('''
        CODES = dict(zip("abc", range(3)))

        def level(code, default=None):
            n = CODES.get(code, default) if default else CODES[code]
            if n == 1:
                return "one"
            return n
        ''')
    new = old.replace('return "one"', 'return "ONE"')
    v = function_versions(old, "m.py")["level"]
    assert [g[1:] for g in B._param_guards(v)] == [["code", "CODES", "key"]] * 2
    assert compare_sources(old, new, "level").verdict == "changed"
    monkeypatch.setattr(B, "_OBSERVED_INPUTS", 0)
    assert compare_sources(old, new, "level").verdict != "changed"


def test_a_helper_whose_result_fails_the_line_calling_it_is_made_up(monkeypatch):
    # wcwidth's ``fetch_unicode_versions()[-1]``: empty without its data
    # files, so every input raised IndexError before the changed lines
    old = d('''
        import os

        def versions():
            found = []
            for name in os.listdir("/nonexistent-data") if os.path.isdir("/nonexistent-data") else []:
                found.append(name)
            return sorted(found)

        def latest(n):
            v = versions()[-1]
            return [v, n]
        ''')
    new = old.replace("return [v, n]", "return [n, v]")
    v = function_versions(old, "m.py")["latest"]
    assert B._helpers_by_line(v, B._called_helpers(v)) == {10: {"versions"}}
    assert compare_sources(old, new, "latest").verdict == "changed"
    monkeypatch.setattr(B, "_helpers_by_line", lambda v, helpers: {})
    assert compare_sources(old, new, "latest").verdict == "unreached"


def test_a_part_of_a_parameter_a_local_holds_gets_the_guard_values(monkeypatch):
    old = d('''
        CODES = dict(zip("abc", range(3)))

        def level(codes, opts):
            first = codes[0]
            mode = opts.mode
            if mode != CODES["c"]:
                return None
            n = CODES[first]
            if n == 1:
                return "one"
            return n
        ''')
    new = old.replace('return "one"', 'return "ONE"')
    v = function_versions(old, "m.py")["level"]
    assert sorted(g[1:] for g in B._param_guards(v)) == [
        ["codes[0]", "CODES", "key"], ["opts.mode", "CODES['c']", "=="]]
    assert B._setting("codes[0]", "'b'", "x = 1") == "x = 1\ncodes = ['b'] * 1"
    assert B._setting("codes[-2]", "'b'", "") == "\ncodes = ['b'] * 2"
    assert B._setting("codes['k']", "1", "") == "\ncodes = {'k': 1}"
    assert "opts.mode = 2" in B._setting("opts.mode", "2", "")
    assert B._setting("codes[1:]", "1", "") is None
    assert compare_sources(old, new, "level").verdict == "changed"
    monkeypatch.setattr(B, "_OBSERVED_INPUTS", 0)
    assert compare_sources(old, new, "level").verdict != "changed"


def test_a_call_failing_on_a_made_up_value_of_the_wrong_type_is_repaired():
    # humanize's ``intword``: its doctests' calls reach the edit, and there
    # ``(format % v).replace(".", decimal_separator())`` fails on the made-up
    # helper's value; the call again after a prefix that makes it a text
    old = d('''
        def show(value, unit="kB"):
            return "%.1f %s" % (value, unit)
        ''')
    new = d('''
        from .i18n import decimal_separator


        def show(value, unit="kB"):
            return "%s %s" % (("%.1f" % value).replace(".", decimal_separator()), unit)
        ''')
    a = function_versions(old, "m.py")["show"]
    b = function_versions(new, "m.py")["show"]
    ch_old, ch_new = changed_lines(a, b)
    src = B._InputSource(a, b, ch_old, ch_new, [], B.Options())
    call = {"self": None, "args": ["1.5"], "kwargs": {}, "imports": []}
    line = next(i for i, t in enumerate(new.splitlines(), 1) if "replace" in t)
    failed = {"outcome": "raised:TypeError", "line": line, "reached": [],
              "message": "replace() argument 2 must be str, not lexecutor_c._core.Dummy"}
    src.feedback(B.Input("", call, 0, "doctest: show(1.5)"), {"outcome": "returned"}, failed)
    first = src.guided_queue[0]
    assert first.call == call and first.note == "error guidance (TypeError, new)"
    assert "def decimal_separator(*args, **kwargs):\n    return 'decimal_separator'" \
        in first.prefix, first.prefix
    # another failure (not a made-up value's): nothing
    src = B._InputSource(a, b, ch_old, ch_new, [], B.Options())
    src.feedback(B.Input("", call, 0, "doctest"), {"outcome": "returned"},
                 dict(failed, message="replace() argument 2 must be str, not int"))
    assert src.guided_queue == []


def test_a_parameter_with_a_default_that_guards_the_edit_gets_another_value():
    # attrs' ``from_counting_attr``: the edited message is raised only when
    # ``type`` is given (not its default None) and ``ca.type`` is set too
    old = d('''
        def from_counting(name, ca, type=None):
            if type is None:
                type = ca.type
            elif ca.type is not None:
                raise ValueError("both given")
            return (name, type)
        ''')
    new = old.replace('"both given"', 'f"both given for {name!r}"')
    a, b, _ = _versions(old, new, "from_counting")
    ch_old, ch_new = changed_lines(a, b)
    changed, guards = D._changed_nodes(b, ch_new)
    assert D._parameter_alternatives(b, changed) == []
    heads = [p for g in guards for p in D._headers(g)]
    assert D._parameter_alternatives(b, changed + heads) == [(["type"], ["1", "'x'"], "value")]
    assert compare_sources(old, new, "from_counting").verdict == "changed"


def test_a_made_up_call_of_a_swapped_dependency_is_no_difference(monkeypatch):
    # attrs' ``cmp_using``: ``_make_ne()`` -> ``__ne__``, both imported from a
    # module extract mode has not; the old version calls a stand-in, the new
    # reads one: no evidence either way
    old = d('''
        from ._make import _make_ne


        def build(name, eq=None):
            body = {"name": name}
            if eq is not None:
                body["__ne__"] = _make_ne()
            return sorted(body)
        ''')
    new = old.replace("_make_ne()", "__ne__").replace("import _make_ne", "import __ne__")
    assert compare_sources(old, new, "build").verdict not in ("changed", "same")
    monkeypatch.setattr(B, "_swapped_calls", lambda *a: False)
    assert compare_sources(old, new, "build").verdict == "changed"
    # a call of a stand-in the edit added, with no name swapped: a change
    monkeypatch.undo()
    added = old.replace('body["__ne__"] = _make_ne()', 'body["__ne__"] = _make_ne()\n        _make_ne()')
    assert compare_sources(old, added, "build").verdict == "changed"


def test_a_made_up_callee_called_once_more_with_the_same_arguments_is_a_swapped_call():
    # requests' ``isinstance(fp, _SupportsRead) or hasattr(fp, "read")`` ->
    # ``_t.has_read(fp)`` with ``_t`` made up: the new version calls the
    # stand-in once more with arguments another made-up call has too; as
    # sets the two lists of calls were alike and the extra call was "changed"
    one = ['<injected>', ["<Dummy 'd'>"], []]
    a = {"calls": repr([one, ["os.getcwd", [], []]])}
    b = {"calls": repr([one, one, ["os.getcwd", [], []]])}
    assert B._swapped_calls(["calls"], a, b, {"_SupportsRead"}, {"has_read"})
    assert B._swapped_calls(["calls"], b, a, {"_SupportsRead"}, {"has_read"})
    # a real callee called once more is the code's own
    c = {"calls": repr([one, ["os.getcwd", [], []], ["os.getcwd", [], []]])}
    assert not B._swapped_calls(["calls"], a, c, {"_SupportsRead"}, {"has_read"})
    # and no name swapped: no excuse
    assert not B._swapped_calls(["calls"], a, b, set(), {"has_read"})


def test_a_method_renamed_on_a_made_up_object_is_no_difference(monkeypatch):
    # semver's ``Version.isvalid(v)`` -> ``Version.is_valid(v)`` with
    # ``Version`` imported from a module extract mode has not: the input's
    # stand-in defines the one name (answering False), the other name is
    # injected (answering a made-up value): the versions part there, but on
    # what two made-up callees answered, not on the code
    old = d('''
        from .version import Version


        def cmd_check(args):
            if Version.isvalid(args.version):
                return None
            raise ValueError("Invalid version %r" % args.version)
        ''')
    new = old.replace("Version.isvalid(", "Version.is_valid(")
    assert compare_sources(old, new, "cmd_check").verdict not in ("changed", "same")
    monkeypatch.setattr(B, "_swapped_answers", lambda *a: False)
    assert compare_sources(old, new, "cmd_check").verdict == "changed"
    monkeypatch.undo()
    # the same rename with the test turned round: still the code's own
    turned = new.replace("if Version.is_valid(", "if not Version.is_valid(")
    assert compare_sources(old, turned, "cmd_check").verdict == "changed"


def test_made_up_callees_told_apart_by_a_swapped_name_alone_answer_for_themselves():
    inj = ["<injected>", ["'version'"], []]
    stand = ["<input>.C_Version.is_valid", ["'version'"], []]
    real = ["os.getcwd", [], []]
    a = {"calls": repr([real, inj])}
    b = {"calls": repr([real, stand])}
    assert B._swapped_answers(a, b, {"isvalid"}, {"is_valid"})
    assert B._swapped_answers(b, a, {"isvalid"}, {"is_valid"})
    # other arguments: what the code passes, a change
    other = {"calls": repr([real, ["<input>.C_Version.is_valid", ["'other'"], []]])}
    assert not B._swapped_answers(a, other, {"isvalid"}, {"is_valid"})
    # a stand-in for a name both versions read: no swapped name to excuse it
    kept = {"calls": repr([real, ["<input>.C_Version.parse", ["'version'"], []]])}
    assert not B._swapped_answers(a, kept, {"isvalid"}, {"is_valid"})
    # a real callee in place of the made-up one: the code's own
    outside = {"calls": repr([real, ["posix.is_valid", ["'version'"], []]])}
    assert not B._swapped_answers(a, outside, {"isvalid"}, {"is_valid"})
    # a call one version alone makes: not a pair
    assert not B._swapped_answers(a, {"calls": repr([real])}, {"isvalid"}, {"is_valid"})
    # names swapped on one side only: nothing renamed
    assert not B._swapped_answers(a, b, set(), {"is_valid"})
    # a name a builtin value has (``x.issupserset`` -> ``x.issuperset``, a
    # typo fixed): the real object may be a set, and the old name fails there
    sup = {"calls": repr([real, ["<input>.C_x.issuperset", ["'version'"], []]])}
    assert not B._swapped_answers(a, sup, {"issupserset"}, {"issuperset"})


def test_what_an_exception_of_the_project_holds_is_compared():
    # build's ``BuildBackendException(exception, exc_info=sys.exc_info())``
    # -> ``BuildBackendException(exception)``: the same type, the same
    # message, another ``exc_info`` attribute for the caller that reads it
    old = d('''
        import sys


        class BackendError(Exception):
            def __init__(self, exception, description=None, exc_info=(None, None, None)):
                super().__init__(exception)
                self.exception = exception
                self.description = description
                self.exc_info = exc_info

            def __str__(self):
                return self.description or repr(self.exception)


        def call_backend(hook, value):
            try:
                return hook(value)
            except ValueError as exception:
                raise BackendError(exception, exc_info=sys.exc_info()[:2]) from None
        ''')
    new = old.replace("raise BackendError(exception, exc_info=sys.exc_info()[:2])",
                      "raise BackendError(exception)")
    c = compare_sources(old, new, "call_backend")
    assert c.verdict == "changed", c.detail
    assert "attributes" in c.detail, c.detail
    # the same attributes another way: no difference there
    same = old.replace("exc_info=sys.exc_info()[:2]", "exc_info=tuple(sys.exc_info()[:2])")
    assert compare_sources(old, same, "call_backend").verdict != "changed"
    # a traceback it keeps as text: where the code sits in its file is no
    # behaviour (glom's ``GlomError`` keeps one; the edit moved the raise)
    kept = d('''
        import traceback


        class Failed(Exception):
            def __init__(self, msg, where=""):
                super().__init__(msg)
                self.where = where


        def check(v):
            try:
                if v < 0:
                    raise ValueError(v)
            except ValueError:
                raise Failed("negative", traceback.format_exc())
            return v
        ''')
    moved = kept.replace("        if v < 0:", "        limit = 0\n        if v < limit:")
    assert compare_sources(kept, moved, "check").verdict != "changed"
    # (a field of its own, compared where both versions raised)
    a = {"outcome": "raised:ValueError", "message": "x", "raised": repr([["exc_info", "'1'"]])}
    b = {"outcome": "raised:ValueError", "message": "x", "raised": repr([["exc_info", "'2'"]])}
    assert B._differences(a, b) == ["raised"]
    assert B._differences(a, dict(a)) == []


def test_a_guard_value_is_read_without_running_the_programs_code():
    import sys
    from lexecutor_c.apps.funcrun import _observe_guard
    asked = []

    class Lazy:
        kinds = ("a", "b", 3, object())

        def __getattr__(self, name):         # (injection answers here)
            asked.append(name)
            return ("made", "up")

        @property
        def computed(self):
            asked.append("computed")
            return ("x",)

    def probe(part, obj):
        return sys._getframe()
    fr = probe("z", Lazy())
    out = set()
    _observe_guard(fr, [("part", ast.parse(src, mode="eval").body, op) for src, op in (
        ("obj.kinds", "in"), ("obj.kinds[1:]", "in"), ("obj.missing", "in"),
        ("obj.computed", "in"), ("obj.kinds[0]", "=="), ("obj.kinds[9]", "in"),
        ("obj.kinds", "key"))], out)
    assert out == {("part", "'a'"), ("part", "'b'"), ("part", "3")}
    assert asked == []


def test_a_handler_is_reached_through_a_method_of_the_object_raising():
    src = d('''
        class P:
            def parse(self, text):
                try:
                    return self._build(text)
                except ValueError as e:
                    raise LookupError(str(e))
        ''')
    v = function_versions(src, "m.py")["P.parse"]
    got = D._handler_hints(v.node, D._Scope(v))
    notes = [n for _, n in got]
    assert "self._build raises ValueError" in notes, notes
    assert "self._build raises ValueError('lx', 2)" in notes, notes
    assert "self._build = _lx_raise" in got[0][0]


def test_a_parameter_unpacked_into_a_call_gets_rows_of_unequal_lengths():
    old = d('''
        def transpose(it):
            return zip(*it, strict=True)
        ''')
    new = old.replace("strict=True", "strict=False")
    fa, fb, _ = _versions(old, new, "transpose")
    (path, vals, _), = D._iterable_hints(fb, [])
    assert path == ["it"] and "[[1, 2], [3]]" in vals
    assert compare_sources(old, new, "transpose").verdict == "changed"


def test_no_constructed_instance_when_the_versions_constructors_differ():
    old = d('''
        class Factory:
            def __init__(self):
                self.cache = {}

            def get(self, k):
                return self.cache.get(k, k)
        ''')
    new = old.replace("self.cache = {}", "self.cache = {}\n        self.lock = None").replace(
        "return self.cache.get(k, k)", "return self.cache.get(k, k * 1)")
    fa, fb, _ = _versions(old, new, "Factory.get")
    assert B._init_code(fa) != B._init_code(fb) and B._init_code(fa) is not None
    assert B._init_code(function_versions("def f():\n    pass\n", "m.py")["f"]) is None
    c = compare_sources(old, new, "Factory.get")
    # the state another constructor starts with is no difference of the method
    assert c.verdict != "changed", c.detail
    # parameters and locals renamed are no swapped dependency
    ga = function_versions("def g(obj_type):\n    return helper(obj_type)\n", "m.py")["g"]
    gb = function_versions("def g(objtype):\n    return other(objtype)\n", "m.py")["g"]
    assert B._swapped_names(ga, gb) == {"helper", "other"}


def test_a_keyword_far_down_a_long_outside_call_is_part_of_the_call():
    head = "def make(x):\n    Field(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, kw_only=%s)\n" \
        "    return x\n"
    old, new = head % "False", head % "None"
    c = compare_sources(old, new, "make")
    assert c.verdict == "changed", c.detail
    assert "kw_only" in c.detail, c.detail


def test_a_flag_is_tried_the_other_way_and_its_default_counts():
    from lexecutor_c.apps.funcrun import _SAME, RESHAPES, reshape
    assert "flip" in RESHAPES
    assert reshape(True, "flip") is False and reshape(False, "flip") is True
    from lexecutor_c.apps.funcrun import _SAME
    assert reshape(1, "flip") is _SAME
    assert "flip" in B._shapes_of("True") and "flip" not in B._shapes_of("1")
    v = function_versions("def f(x, with_headers=True, n=2, name=None):\n    return x\n",
                          "m.py")["f"]
    assert B._defaults(v) == {"with_headers": "True", "n": "2"}


def test_a_value_an_aimed_input_gave_is_tried_on_a_concrete_call():
    # the aimed input ``default = None`` had made-up other arguments; the
    # same value on a concrete call (a doctest's) shows the difference: the
    # old version adds None, the new one starts without an initial value
    head = d('''
        import functools
        from toolz.utils import no_default

        def _reduce(func, seq, initial=None):
            if initial is None:
                return functools.reduce(func, seq)
            return functools.reduce(func, seq, initial)

        def fold(binop, seq, default=no_default):
            if default == no_default:
                return functools.reduce(binop, seq)
        ''')
    old = head + "    return functools.reduce(binop, seq, default)\n"
    new = head + "    return _reduce(binop, seq, initial=default)\n"
    from lexecutor_c.apps.funcrun import reshape, _SAME
    assert reshape(object(), "lit:None") is None
    assert reshape(None, "lit:None") is _SAME
    assert reshape(2, "lit:'2'") == "2"
    aimed = B.Input("default = None", note="aimed: default = None", given=("default",))
    values = B._aimed_values([(aimed, {}, {"input": {"binop": "<Dummy 'binop'>",
                                                     "default": "None"}}, True)])
    assert values == {"default": ["None"]}
    concrete = B.Input("from operator import add\nbinop = add\nseq = [1, 2, 3]",
                       note="doctest: fold(add, [1, 2, 3])")
    run = {"outcome": "returned", "input": {"binop": "<function add>",
                                            "seq": "['list', '1', '2', '3']"}}
    got = [v.reshape for v in B._variants([(concrete, run, run)], 2, aimed_values=values)]
    assert "lit:None@default" in got, got
    # not on an aimed input itself, nor on one with made-up arguments
    assert not any(r.startswith("lit:") for r in (v.reshape for v in B._variants(
        [(aimed, run, run)], 2, aimed_values=values)))
    fa, fb, _ = _versions(old, new, "fold")
    side_o = B._Side(fa, ["binop", "seq"], ["default"], None)
    side_n = B._Side(fb, ["binop", "seq"], ["default"], None)
    inp = B.Input(concrete.prefix, reshape="lit:None@default")
    ro, rn = side_o.run(inp, OPTS), side_n.run(inp, OPTS)
    assert ro["outcome"] == "raised:TypeError" and rn["outcome"] == "returned", (ro, rn)
    assert rn["ret"] == "'6'"


def test_a_value_between_the_bounds_of_two_guards():
    assert D._between([-1.0, 0, 1.0]) == [-0.5, 0.5]
    assert D._between([0, 1, 10]) == [5]
    old = d('''
        def seek(rel):
            if rel is None:
                return 0.0
            elif not -1.0 < rel < 1.0:
                raise ValueError(rel)
            elif rel < 0:
                rel = 1.0 - rel
            return rel
        ''')
    new = old.replace("1.0 - rel", "1.0 + rel")
    fa, fb, (co, cn) = _versions(old, new, "seek")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, co, cn)]
    assert "aimed: rel = -0.5" in notes, notes
    c = compare_sources(old, new, "seek")
    assert c.verdict == "changed", c.detail


def test_a_parameter_kept_as_an_attribute_another_method_reads_is_a_file():
    src = d('''
        class Reader:
            def __init__(self, file_obj, rel=None):
                self._file_obj = file_obj
                self._rel = rel

            def _start(self):
                fo = self._file_obj
                fo.seek(0, 2)
                return fo.tell()
        ''')
    v = function_versions(src, "m.py")["Reader.__init__"]
    assert D._file_attributes(v.cls) == {"_file_obj"}
    got = D._file_hints(v, D._Scope(v))
    assert got and "file_obj = __import__('io').StringIO('ab')" in got[0][1], got


def test_the_object_a_doctest_builds_is_also_built_empty():
    assert B._emptied_constructions("M({'a': 'b'})") == ["M({})"]
    assert B._emptied_constructions("T([[1], [2]], headers=('a',), n=3)") == \
        ["T([], headers=('a',), n=3)", "T([[1], [2]], headers=(), n=3)"]
    assert B._emptied_constructions("m") == [] and B._emptied_constructions("M(x, 2)") == []
    assert B._emptied_constructions("M((") == []
    # a made-up object differs (weak evidence) long before the variants
    # are tried: the doctest's object built empty shows the change itself
    old = d('''
        import re

        class Multi:
            """
            >>> m = Multi({'foo': 'baz'})
            >>> m.sub('foo bar')
            'baz bar'
            """
            def __init__(self, sub_map):
                self.group_map = {}
                parts = []
                for i, (k, v) in enumerate(sub_map.items()):
                    self.group_map[f'g{i}'] = v
                    parts.append(f'(?P<g{i}>{re.escape(k)})')
                self.pattern = re.compile('|'.join(parts))

            def _value(self, match):
                return self.group_map[match.lastgroup]

            def sub(self, text):
                return self.pattern.sub(self._value, text)
        ''')
    new = old.replace("    def sub(self, text):\n",
                      "    def sub(self, text):\n"
                      "        if not self.group_map:\n"
                      "            return text\n")
    assert new != old
    c = compare_sources(old, new, "Multi.sub")
    assert c.verdict == "changed" and c.evidence.get("strength") == "concrete", \
        (c.verdict, c.detail)
    assert "Multi({})" in str(c.evidence.get("distinguishing_input")), c.evidence


def test_an_attribute_the_code_asks_for_under_its_own_handler_is_not_made_up():
    from lexecutor_c.apps import funcrun as F
    from lexecutor_c.engine.instrument import instrument
    # (a handler naming AttributeError leaves the reads to Python in the
    # instrumenter itself: tests/test_instrument.py; a broader one keeps
    # them sites, raising only for values of builtin types)
    named = d('''
        import operator

        def pick(items, index):
            try:
                start, stop = index.start, index.stop
            except AttributeError:
                index = operator.index(index)
            else:
                return items[start:stop]
            outside = index.real
            return items[index]
        ''')
    assert {i.name for i in instrument(named).iids if i.kind == "attribute"} == \
        {"index", "real"}                           # operator.index, index.real
    src = named.replace("except AttributeError:", "except Exception:")
    inst = instrument(src)
    sites = F._handled_attribute_sites(src, inst.iids)
    names = {i.name for i in inst.iids if int(i.iid) in sites}
    assert names == {"start", "stop"}, names        # not ``index.real`` outside the try
    assert F._handled_attribute_sites("def f(:\n", inst.iids) == set()
    seen = []

    def load(iid, obj, name):
        seen.append(name)
        return "made up"
    a_ = F._raising_attributes(load, sites)
    start = next(int(i.iid) for i in inst.iids if i.name == "start")
    with pytest.raises(AttributeError):
        a_(start, 3, "start")                       # an int has no ``start``: raised
    assert a_(start, B.Input(), "start") == "made up" and seen == ["start"]
    assert a_(start + 100, 3, "start") == "made up"  # not a handled site
    # an int index takes the handler's path (before, ``(1).start`` was made up
    # and the slice branch ran on made-up bounds)
    for text in (src, named):
        v = function_versions(text, "m.py")["pick"]
        side = B._Side(v, ["items", "index"], [], None)
        r = side.run(B.Input("items = [10, 20, 30]\nindex = 1"), OPTS)
        assert r["outcome"] == "returned" and r["ret"] == "'20'", r


def test_an_edited_decorator_keeps_same_back():
    old = d('''
        def deprecated(replace=None):
            def wrap(f):
                return f
            return wrap

        @deprecated(replace="a.parse")
        def parse(text):
            return text.strip()
        ''')
    new = old.replace('"a.parse"', '"a.b.parse"')
    c = compare_sources(old, new, "parse")
    assert c.verdict == "undecided" and "decorators differ" in c.detail, c.detail
    assert B._decorators(function_versions(old, "m.py")["parse"]) != \
        B._decorators(function_versions(new, "m.py")["parse"])


def test_an_exact_type_test_gets_an_instance_of_a_subclass():
    old = d('''
        def priority(s):
            if type(s) is dict:
                return 1
            return 2
        ''')
    new = old.replace("type(s) is dict", "isinstance(s, dict)")
    fa, fb, (co, cn) = _versions(old, new, "priority")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, co, cn)]
    assert "aimed: s = type('_LxSub', (dict,), {})({'a': 1})" in notes, notes
    c = compare_sources(old, new, "priority")
    assert c.verdict == "changed" and "_LxSub" in str(c.evidence), c.detail


def test_the_object_as_an_instance_of_a_subclass_when_the_edit_asks_for_its_class():
    from lexecutor_c.apps.funcrun import SUBCLASS_SELF, _as_subclass, _SAME
    old = d('''
        class Version:
            """
            >>> Version(1).bumped().n
            2
            """
            def __init__(self, n):
                self.n = n

            def bumped(self):
                return Version(self.n + 1)
        ''')
    new = old.replace("return Version(self.n + 1)", "return type(self)(self.n + 1)")
    fa, fb, (co, cn) = _versions(old, new, "Version.bumped")
    assert B._edit_own_class(fa, fb, co, cn)
    assert not B._edit_own_class(fa, fa, co, co)
    c = compare_sources(old, new, "Version.bumped")
    assert c.verdict == "changed" and SUBCLASS_SELF in str(c.evidence), (c.verdict, c.detail)

    class Slotted:
        __slots__ = ("a",)
    s = Slotted()
    assert type(_as_subclass(s)).__mro__[1] is Slotted
    assert _as_subclass(3) is _SAME                 # a builtin's class stays


def test_an_argument_that_passes_the_parameters_default_is_no_argument():
    from lexecutor_c.apps.funcrun import _without_defaults

    def g(a, b=1, *, c=None, d="x"):
        return a
    assert _without_defaults(open, ("f", "r"), {}) == (["f"], {})
    assert _without_defaults(open, ("f", "rb"), {}) == (["f", "rb"], {})
    assert _without_defaults(g, (1, 1), {"c": None, "d": "y"}) == ([1], {"d": "y"})
    assert _without_defaults(g, (1, True), {}) == ([1, True], {})   # True is no 1
    assert _without_defaults(g, (1, [1]), {}) == ([1, [1]], {})
    assert _without_defaults(g, ([1], [2]), {}) == (([1], [2]), {})  # nothing plain: as given
    assert _without_defaults(len, ("ab",), {}) == (["ab"], {})


def test_a_keyword_one_version_names_reaches_the_others_kwargs():
    old = function_versions("class Or:\n    def __init__(self, *args, **kwargs):\n"
                            "        self.only_one = kwargs.pop('only_one', False)\n",
                            "m.py")["Or.__init__"]
    new = function_versions("class Or:\n    def __init__(self, *args, only_one=False, "
                            "**kwargs):\n        self.only_one = only_one\n",
                            "m.py")["Or.__init__"]
    assert "only_one" not in B._optional(old) and "only_one" in B._optional(old, new)
    assert B._optional(new, old) == ["only_one"]
    c = compare_sources(old.text, new.text, "Or.__init__")
    assert c.verdict != "changed", c.detail


def test_the_attributes_a_decorator_sets_on_its_wrapper_are_part_of_it():
    import functools
    from lexecutor_c.apps.funcrun import snapshot

    def f():
        pass
    assert snapshot(f) == "<function test_the_attributes_a_decorator_sets_on_its_wrapper_" \
        "are_part_of_it.<locals>.f>"
    f.copied = 1

    @functools.wraps(f)
    def wrapper():
        pass
    wrapper.blocked_until = None
    got = snapshot(wrapper)
    assert got[1] == [["blocked_until", "None"]], got     # not ``copied``, nor __wrapped__


def test_a_private_attribute_is_set_under_its_mangled_name():
    src = d('''
        class Parser:
            def _match(self):
                if self.__match_re is None:
                    self.__match_re = 1
                return self.__match_re
        ''')
    v = function_versions(src, "m.py")["Parser._match"]
    scope = D._Scope(v)
    assert D._assign(["self", "__match_re"], "None", scope)[-1] == \
        "self._Parser__match_re = None"
    assert D._assign(["self", "__dict__"], "{}", scope)[-1] == "self.__dict__ = {}"
    plain = function_versions("def f(o):\n    return o.__x\n", "m.py")["f"]
    assert D._assign(["o", "__x"], "1", D._Scope(plain))[-1] == "o.__x = 1"


def test_a_value_formatted_with_percent_gets_a_tuple():
    old = d('''
        def use(callable_):
            if not callable(callable_):
                raise TypeError("Expected a callable, not %r" % callable_)
            return callable_
        ''')
    new = old.replace('"Expected a callable, not %r" % callable_',
                      'f"Expected a callable, not {callable_!r}"')
    fa, fb, (co, cn) = _versions(old, new, "use")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, co, cn)]
    assert "aimed: callable_ = (1, 2)" in notes, notes
    c = compare_sources(old, new, "use")
    assert c.verdict == "changed" and "(1, 2)" in c.detail, c.detail


def test_a_constructor_whose_parameters_say_what_they_hold_builds_the_instance():
    from lexecutor_c.apps import funcrun as F

    class Cache:
        def __init__(self, maxsize, name, *, ttl):
            self.maxsize, self.name, self.ttl = maxsize, name, ttl
            self.data = {}

        def full(self):
            return len(self.data) >= self.maxsize

    obj = F._constructed(Cache, Cache.full, {})
    assert (obj.maxsize, obj.name, obj.ttl, obj.data) == (2, "a", 2, {})

    class Keyed:
        def __init__(self, key_func):
            self.key_func = key_func

        def get(self):
            return self.key_func

    bare = F._constructed(Keyed, Keyed.get, {})
    assert type(bare) is Keyed and not hasattr(bare, "key_func")   # no guess: bare
    assert F._guessed_argument("data") is F._SAME


def test_a_constructor_that_parses_a_text_is_given_one_its_examples_or_patterns_offer():
    import re as _re

    from lexecutor_c.apps import funcrun as F

    class Version:
        """A version: ``Version('1.2.3')``."""
        version_re = _re.compile(r"^(\d+)\.(\d+)\.(\d+)$")

        def __init__(self, version_string=None, major=None):
            if (version_string is None) == (major is None):
                raise ValueError("a text or parts")
            m = self.version_re.match(version_string or "")
            if major is None and not m:
                raise ValueError(version_string)
            self.parts = tuple(map(int, m.groups())) if m else (major, 0, 0)

        def bump(self):
            return self.parts[0] + 1

    obj = F._constructed(Version, Version.bump, {})
    assert obj.parts == (1, 2, 3)            # the docstring's example
    Version.__doc__ = None
    obj = F._constructed(Version, Version.bump, {})
    assert len(obj.parts) == 3 and all(isinstance(p, int) for p in obj.parts)   # the pattern's

    class Spec:
        def __init__(self, text):
            if not text.startswith(">="):
                raise ValueError(text)
            self.low = text[2:]

        def low_bound(self):
            return self.low

    # its module's pattern, where the class has none; a required text no
    # name says is one
    env = {"SPEC": _re.compile(r">=\d\.\d")}
    assert F._constructed(Spec, Spec.low_bound, env).low[1] == "."
    # nothing to parse it from: bare, as before
    assert not hasattr(F._constructed(Spec, Spec.low_bound, {}), "low")
    assert F._constructor_texts(Spec, {"__doc__": "use ``Spec('>=2.0')``"}) == [">=2.0"]

    # not for a parameter that takes no text (mistune's ``InlineState(env)``,
    # a mapping: a text there gives an object at its defaults, where the
    # attributes the method copies should vary)
    class State:
        def __init__(self, env):
            self.env, self.depth = env, 0

        def copy(self):
            return self.depth

    assert not hasattr(F._constructed(State, State.copy, env), "env")

    class Typed:
        def __init__(self, env: "dict[str, int]"):
            self.env = env

        def get(self):
            return self.env

    assert not hasattr(F._constructed(Typed, Typed.get, env), "env")


def test_a_string_is_tried_as_bytes_only_where_the_code_deals_with_bytes():
    text = function_versions('def greet(name):\n    return "Hello, " + name\n', "m.py")["greet"]
    raw = function_versions("def head(data):\n    return data.decode()[:2]\n", "m.py")["head"]
    assert not D.handles_bytes(text) and D.handles_bytes(raw)
    inp = B.Input("name = 'ab'", note="aimed: name = 'ab'")
    run = {"outcome": "returned", "input": {"name": "'ab'"}}
    shapes = {v.reshape for v in B._variants([(inp, run, run)], 1, bytes_too=False)}
    assert "bytes@0" not in shapes and "upper@0" in shapes, shapes
    shapes = {v.reshape for v in B._variants([(inp, run, run)], 1, bytes_too=True)}
    assert "bytes@0" in shapes, shapes


# a parser whose decorator encodes its argument and whose class compares
# with bytes constants (dateutil's isoparser, in miniature)
_ISO = d('''
    def _takes_ascii(f):
        def func(self, s, *args):
            if isinstance(s, str):
                s = s.encode('ascii')
            return f(self, s, *args)
        return func

    class isoparser(object):
        _DATE_SEP = b'-'

        def __init__(self, sep=None):
            self._sep = sep

        @_takes_ascii
        def parse_isodate(self, datestr):
            parts = datestr.split(self._DATE_SEP)
            if len(parts) != 3 or not parts[0].isdigit():
                raise ValueError('not a date')
            if len(parts[2]) > 2:
                raise ValueError('String contains unknown ISO components: {}'.format(datestr))
            return tuple(int(p) for p in parts)
    ''')


def test_bytes_around_the_function_its_decorator_and_its_class():
    v = function_versions(_ISO, "m.py")["isoparser.parse_isodate"]
    assert not D._deals_with_bytes(v.node.body[-1])
    assert D._bytes_around(v) and D.handles_bytes(v)
    hints = D._name_hints(v)
    assert hints and all(x.startswith("b'") for x in hints[0][1]), hints
    plain = function_versions("def parse_date(datestr):\n    return datestr[:4]\n",
                              "m.py")["parse_date"]
    assert not D._bytes_around(plain) and not D.handles_bytes(plain)
    assert all(not x.startswith("b") for x in D._name_hints(plain)[0][1])


def test_text_appended_to_an_input_that_ran_short_of_the_changed_lines():
    new = _ISO.replace("components: {}'.format", "components: {}!'.format")
    c = compare_sources(_ISO, new, "isoparser.parse_isodate")
    assert c.verdict == "changed", (c.verdict, c.detail)
    assert "!" in c.detail, c.detail
    # the same variant, switched off: the inputs that ran to an end are no
    # source of variants, and nothing reaches the error
    inp = B.Input("datestr = b'2024-06-15'", note="aimed (value): datestr = b'2024-06-15'")
    run = {"outcome": "returned", "input": {"datestr": "b'2024-06-15'"}}
    shapes = {v.reshape for v in B._variants([(inp, run, run)], 1, tail=True)}
    assert f"suffix:{B._TAIL}@0" in shapes, shapes
    shapes = {v.reshape for v in B._variants([(inp, run, run)], 1, tail=False)}
    assert f"suffix:{B._TAIL}@0" not in shapes, shapes


def test_an_attribute_of_the_object_is_set_with_the_other_subjects_at_once():
    old = d('''
        class P:
            def parse(self, dt_str):
                if self._sep is None or dt_str[4:5] == self._sep:
                    return dt_str[:4]
                raise ValueError('unknown')
        ''')
    new = old.replace("self._sep is None or", "self._sep is None and")
    fa, fb, (co, cn) = _versions(old, new, "P.parse")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, co, cn)]
    assert any("self._sep = None" in n and "dt_str = " in n for n in notes), notes


def test_the_aimed_inputs_run_before_a_search_ends_on_made_up_differences():
    src = B._InputSource.__new__(B._InputSource)
    src.queue = [B.Input("a", note="treefix (new): x"), B.Input("b", note="aimed: v = 1")]
    src.guided_queue = [B.Input("c", note="coverage guidance (new)")]
    src.guided = 0
    assert src.keep_aimed()
    assert [i.note for i in src.queue] == ["aimed: v = 1"] and not src.guided_queue
    src.queue = [B.Input("a", note="treefix (new): x")]
    assert not src.keep_aimed()


def test_a_translation_function_the_package_provides_returns_its_message():
    from lexecutor_c.apps.funcsource import _null_translation, build_driver
    src = d('''
        from .i18n import _pgettext as P_, _ngettext, _gettext as _
        from .i18n import decimal_separator

        def ordinal(value):
            t = (P_("0", "th"), P_("1", "st"), P_("2", "nd"), P_("3", "rd")) + (P_("4", "th"),) * 6
            if value % 100 in (11, 12, 13):
                return f"{value}{t[0]}"
            return f"{value}{t[value % 10]}"
        ''')
    imp = ast.parse(src).body[0]
    assert _null_translation(imp, "P_").startswith("P_ = lambda")
    assert _null_translation(imp, "_").startswith("_ = lambda")
    assert _null_translation(ast.parse(src).body[1], "decimal_separator") == ""
    env: dict = {}
    exec(_null_translation(imp, "_ngettext"), env)
    assert env["_ngettext"]("%d hour", "%d hours", 1) == "%d hour"
    assert env["_ngettext"]("%d hour", "%d hours", 3) == "%d hours"
    drv = build_driver(function_versions(src, "m.py")["ordinal"])
    assert "P_ = lambda" in drv.text and "decimal_separator" not in drv.text
    new = src.replace("value % 100 in", "value // 100 in")
    c = compare_sources(src, new, "ordinal")
    assert c.verdict == "changed" and c.evidence["strength"] == "concrete", (c.verdict, c.detail)
    # the package named in full (not installed here): the same stand-in; a
    # module this Python has keeps its import
    full = src.replace("from .i18n import _pgettext", "from lx_no_such_pkg.i18n import _pgettext")
    drv = build_driver(function_versions(full, "m.py")["ordinal"])
    assert "P_ = lambda" in drv.text and "lx_no_such_pkg" not in drv.text, drv.text
    there = src.replace("from .i18n import _pgettext as P_, _ngettext, _gettext as _",
                        "from gettext import pgettext as P_")
    drv = build_driver(function_versions(there, "m.py")["ordinal"])
    assert "from gettext import pgettext as P_" in drv.text, drv.text


def test_the_function_extracted_finds_its_own_module_by_name():
    # a function that looks its module up by name (pickling by reference,
    # ``sys.modules[cls.__module__]``) runs on when extracted from its package
    old = d('''
        import importlib
        from .helpers import unused

        def where(x):
            mod = importlib.import_module(where.__module__)
            if getattr(mod, "where") is not where:
                raise LookupError("not found")
            return x + 1
        ''')
    new = old.replace("return x + 1", "return x + 2")
    c = compare_sources(old, new, "where")
    assert c.verdict == "changed", (c.verdict, c.detail)


def test_an_item_of_a_zipped_parameter_gets_the_keys_of_the_dict_it_looks_up():
    old = d('''
        def row(cells, aligns):
            style = {"left": "", "right": " r"}
            return "".join(f"<td{style.get(a, '')}>{c}</td>" for c, a in zip(cells, aligns))
        ''')
    new = old.replace('"left": ""', '"left": " l"')
    fa, fb, (co, cn) = _versions(old, new, "row")
    sc = D._Scope(fb)
    assert sc.items == {"c": (["cells", "aligns"], 0), "a": (["cells", "aligns"], 1)}
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, co, cn)]
    assert "aimed: cells = ['a']; aligns = ['left']" in notes, notes
    c = compare_sources(old, new, "row")
    assert c.verdict == "changed" and c.evidence["strength"] == "concrete", (c.verdict, c.detail)
    one = D._Scope(function_versions("def f(xs):\n    for i, x in enumerate(xs):\n"
                                     "        pass\n", "m.py")["f"])
    assert one.items == {"x": (["xs"], 0)}


def test_a_class_kin_to_the_tested_ones_is_tried():
    old = d('''
        def text(s):
            if isinstance(s, (bytes, bytearray)):
                s = s.decode("ascii")
            return "<" + s + ">"
        ''')
    new = old.replace("isinstance(s, (bytes, bytearray))", "not isinstance(s, str)") \
        .replace('s.decode("ascii")', 'str(s, "ascii")')
    fa, fb, (co, cn) = _versions(old, new, "text")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, co, cn)]
    assert "aimed: s = memoryview(b'a')" in notes and "aimed: s = b'a'" in notes, notes
    c = compare_sources(old, new, "text")
    assert c.verdict == "changed" and "memoryview" in str(c.evidence["distinguishing_input"]), \
        (c.verdict, c.detail)


def test_how_an_exception_is_chained_is_part_of_what_a_function_does():
    old = d('''
        class BadValue(Exception):
            pass

        def num(text):
            try:
                return int(text)
            except ValueError:
                raise BadValue(text)
        ''')
    new = old.replace("raise BadValue(text)", "raise BadValue(text) from None")
    c = compare_sources(old, new, "num")
    assert c.verdict == "changed" and "cause" in c.detail, (c.verdict, c.detail)
    c = compare_sources(old, new, "num", ignore_messages=True)
    assert c.verdict != "changed", (c.verdict, c.detail)


def test_a_definition_for_another_python_version_is_not_the_function():
    src = d('''
        import sys
        PY2 = sys.version_info[0] == 2
        if PY2:
            def f(x):
                return x.decode()
        else:
            def f(x):
                return x
        ''')
    v = function_versions(src, "m.py")
    assert "decode" not in ast.unparse(v["f"].node) and "decode" in ast.unparse(v["f#2"].node)
    from lexecutor_c.apps.funcsource import static_truth
    for test, want in (("sys.version_info >= (3, 8)", True), ("six.PY2", False),
                       ("not six.PY3", False), ("sys.version_info < (3,) or other", None),
                       ("os.name == 'nt'", None), ("sys.version_info[:2] == (2, 7)", False)):
        assert static_truth(ast.parse(test).body[0].value, ast.parse("")) is want, test
    new = "def f(x):\n    return x\n"
    c = compare_sources(src, new, "f")
    assert c.verdict == "same", (c.verdict, c.detail)


def test_a_call_of_its_own_before_any_stand_in_is_no_made_up_difference():
    run_a = {"calls": repr([["internal:h", ["'a'"], []], ["<input>.check", ["'a'"], []]])}
    run_b = {"calls": repr([["_warnings.warn", ["'old'"], []], ["internal:h", ["'a'"], []],
                            ["<input>.check", ["'a'"], []]])}
    assert not B._stand_in_before_divergence(run_a, run_b)
    assert B._own_call_difference(run_a, run_b)
    # a stand-in called where the traces part may be all the difference
    run_c = {"calls": repr([["<input>.check", ["'a'"], []]])}
    assert B._stand_in_before_divergence(run_c, {"calls": "[]"})
    run_d = {"calls": repr([["<input>.check", ["'a'"], []], ["x.y", ["1"], []]])}
    run_e = {"calls": repr([["<input>.check", ["'a'"], []], ["x.y", ["2"], []]])}
    assert B._stand_in_before_divergence(run_d, run_e)


def test_same_is_kept_back_when_the_definition_for_another_python_changed():
    old = d('''
        import sys
        PY_3_14_PLUS = sys.version_info[:2] >= (3, 14)
        if PY_3_14_PLUS:
            import annotationlib
            _get = annotationlib.get_annotations
        else:
            def _get(cls):
                return cls.__dict__.get("__annotations__", {})
        ''')
    new = old.replace("    _get = annotationlib.get_annotations\n",
                      "    def _get(cls):\n"
                      "        return annotationlib.get_annotations(cls, format=2)\n")
    assert new != old
    c = compare_sources(old, new, "_get")
    assert c.verdict == "undecided" and "another Python version" in c.detail, \
        (c.verdict, c.detail)
    # the same edit where both branches run nowhere else: "same" as before
    plain = old.replace("if PY_3_14_PLUS:", "if False and PY_3_14_PLUS:")
    c = compare_sources(plain, plain.replace("{}", "{} ") , "_get")
    assert c.verdict == "same", (c.verdict, c.detail)


def test_a_value_formatted_with_percent_d_gets_a_float_and_a_bool():
    old = d('''
        def pad(width, s):
            fmt = "{0:>%ds}" % width
            return fmt.format(s)
        ''')
    new = old.replace('"{0:>%ds}" % width', 'f"{{0:>{width}s}}"')
    fa, fb, (co, cn) = _versions(old, new, "pad")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, co, cn)]
    assert "aimed: width = 5.5" in notes and "aimed: width = True" in notes, notes
    c = compare_sources(old, new, "pad")
    assert c.verdict == "changed", (c.verdict, c.detail)


_LE = textwrap.dedent('''
    def _norm(other):
        if not isinstance(other, (set, frozenset)):
            return NotImplemented
        return other

    class Spans:
        def __le__(self, other):
            inc = _norm(other)
            if inc is NotImplemented:
                return NotImplemented
            return self._included.issubset(inc)
''')


def test_a_version_that_touched_nothing_made_up_decides_the_difference():
    # the mutant returns NotImplemented on a real set before anything made
    # up is read; the original goes on to the made-up ``self._included``
    new = _LE.replace("if inc is NotImplemented:", "if inc is not NotImplemented:")
    c = compare_sources(_LE, new, "Spans.__le__")
    assert c.verdict == "changed", c.detail
    assert c.to_dict()["evidence"]["strength"] == "concrete"


def test_a_real_run_beside_a_made_up_one_is_no_evidence_where_a_dependency_was_swapped():
    real = {"outcome": "returned", "ret": "5", "calls": "[]", "injections": 0,
            "input": {"x": "1"}, "self": ""}
    made = {"outcome": "returned", "ret": "<Dummy 'LIMIT'>", "calls": "[]", "injections": 1,
            "input": {"x": "1"}, "self": ""}
    assert B._real_side(made, real, set())
    assert B._real_side(real, made, set())
    assert not B._real_side(made, real, {"settings", "LIMIT"})   # ``settings.LIMIT`` -> 5
    assert not B._real_side(real, dict(real), set())             # both real: no side
    rejected = dict(real, outcome="raised:TypeError", ret=None)
    assert not B._real_side(made, rejected, set())               # the real run refused its input
    stand_in = dict(real, calls=repr([["<input>.f", ["1"], []]]))
    assert not B._real_side(made, stand_in, set())               # it called a stand-in


_AGO = textwrap.dedent('''
    import datetime as dt

    def age(value):
        delta = abs(value - dt.date.today())
        if delta.days >= 5 * 365 / 12:
            return value.strftime("%b %d %Y")
        return value.strftime("%b %d")
''')


def test_moments_as_far_from_the_clock_as_the_changed_limit():
    import ast as _ast
    old = function_versions(_AGO)["age"]
    new_src = _AGO.replace("5 * 365 / 12", "5 + 365 / 12")
    new = function_versions(new_src)["age"]
    ch_old, ch_new = changed_lines(old, new)
    changed, guards = D._changed_nodes(new, ch_new)
    hints = D._clock_hints(new, changed, guards, D._Scope(new))
    assert hints and hints[0][0] == ["value"]
    vals = hints[0][1]
    # 5 + 365 / 12 is 35.4: 35 and 36 days ahead and back
    assert any("timedelta(days=36)" in x and "date.today()" in x for x in vals)
    assert any("timedelta(days=-36)" in x for x in vals)
    for x in vals:
        _ast.parse(x, mode="eval")
    # between 36 and 152 days away the two versions format differently
    c = compare_sources(_AGO, new_src, "age")
    assert c.verdict == "changed", c.detail


def test_no_clock_hints_where_no_parameter_meets_the_clock():
    src = _AGO.replace("value - dt.date.today()", "value")
    v = function_versions(src)["age"]
    changed, guards = D._changed_nodes(v, {5})
    assert D._clock_hints(v, changed, guards, D._Scope(v)) == []


def test_a_parameter_bounding_a_loop_around_the_edit_gets_values_that_run_it():
    src = textwrap.dedent('''
        import math

        def pollard(n):
            gcd = math.gcd
            for b in range(1, n - 2):
                x = y = 2
                d = 1
                while d == 1:
                    x = (x * x + b) % n
                    y = (y * y + b) % n
                    y = (y * y + b) % n
                    d = gcd(x - y, n)
                if d != n:
                    return d
            raise ValueError('prime or under 5')
    ''')
    v = function_versions(src)["pollard"]
    changed, guards = D._changed_nodes(v, {9})
    # range(1, n - 2) runs once for n = 4, three times for 6, ten for 13
    assert D._range_hints(guards, D._Scope(v)) == [(["n"], ["4", "6", "13"], "value")]
    new = src.replace("while d == 1:", "while not (d == 1):")
    c = compare_sources(src, new, "pollard")
    assert c.verdict == "changed", c.detail


def test_an_attribute_of_the_subjects_class_is_given_by_a_class_of_its_own():
    v = function_versions("def f(val):\n    return getattr(val.__class__, 'x', None)\n")["f"]
    stmts = D._assign(["val", "__class__", "x"], "'a'", D._Scope(v))
    assert stmts == ["val = type('C_val', (), {'x': 'a'})()"]
    ns: dict = {}
    exec("\n".join(stmts), ns)
    assert type(ns["val"]).x == "a"
    src = textwrap.dedent('''
        def asdict(inst, recurse=True):
            return dict(inst.__dict__, recursed=recurse)

        def dump(val):
            if getattr(val.__class__, "__attrs_attrs__", None) is not None:
                return asdict(val, recurse=True)
            return val
    ''')
    c = compare_sources(src, src.replace("recurse=True", "recurse=False"), "dump")
    assert c.verdict == "changed", c.detail


_WORDS = textwrap.dedent('''
    powers = [10**x for x in (3, 6, 9, 12)]
    names = ("thousand", "million", "billion", "trillion")

    def intword(value, format="%.1f"):
        value = int(value)
        if value < powers[0]:
            return str(value)
        ordinal = 0
        while ordinal + 1 < len(powers) and powers[ordinal + 1] <= value:
            ordinal += 1
        power = powers[ordinal]
        chopped = value / power
        rounded_value = float(format % chopped)
        if ordinal + 1 < len(powers) and rounded_value * power == powers[ordinal + 1]:
            ordinal += 1
            rounded_value = 1.0
        return f"{format % rounded_value} {names[ordinal]}"
''')


def test_carry_over_values_from_the_modules_numbers_through_computed_locals():
    fn = function_versions(_WORDS)["intword"]
    assert D._module_numbers(fn.module, {"powers"}) == [1000, 10 ** 6, 10 ** 9, 10 ** 12]
    # rounded_value comes from value (format is a string: no number)
    assert D._computed_from(fn.node, D._Scope(fn)) == {"chopped": {"value"},
                                                       "rounded_value": {"value"}}
    changed, _ = D._changed_nodes(fn, {15})
    hints = D._carry_hints(changed, D._Scope(fn), fn.node, fn.module)
    assert (["value"], ["999.96", "999999", "999999.96", "999999999999"], "value") in hints
    # 999999 rounds to 1000.0 thousand: where the two versions part
    new = _WORDS.replace("rounded_value * power ==", "rounded_value + power ==")
    c = compare_sources(_WORDS, new, "intword")
    assert c.verdict == "changed", c.detail


def test_a_parameter_a_module_helper_iterates_gets_lists():
    # ``stream`` is iterated by ``_windows``, not by ``medians`` itself: the
    # lists an iterated parameter gets reach the even-length branch
    old = d('''
        def _windows(seq, k):
            window = []
            for x in seq:
                window.append(x)
                window.sort()
                if len(window) > k:
                    del window[0]
                yield list(window)


        def medians(stream, k):
            for data in _windows(stream, k):
                n = len(data)
                if n % 2 == 1:
                    yield data[n // 2]
                else:
                    i = n // 2
                    yield (data[i - 1] + data[i]) / 2
        ''')
    new = old.replace("i = n // 2", "i = n * 2")
    fa, fb, _ = _versions(old, new, "medians")
    got = D._iterable_hints(fb, [])
    assert [p for p, _, _ in got] == [["stream"]], got
    assert "[3, 1, 2]" in got[0][1]
    # ``medians`` iterates no name itself, and ``k`` (which the helper only
    # compares) gets no lists
    assert D._iterated(fb.node) == []
    # (unreached without: the made-up stream holds no numbers)
    assert compare_sources(old, new, "medians").verdict == "changed"


def test_an_aimed_value_beside_another_parameters_aimed_value():
    # the edit is in the helper: ``1.0`` (a whole number's float, beside
    # ``k in (0, 1)``) must meet ``flag = True`` (``isinstance(flag, bool)``)
    # in one input -- each aimed value alone, with the other parameter's
    # made-up value, runs both versions alike
    old = d('''
        def matches(k, flag):
            if _odd_pair(k, flag):
                return False
            return k == flag


        def _odd_pair(k, flag):
            if type(k) is int and k in (0, 1):
                return isinstance(flag, bool)
            return False
        ''')
    new = old.replace("type(k) is int and k in (0, 1)",
                      "isinstance(k, (int, float)) and not isinstance(k, bool) and k in (0, 1)"
                      ).replace("_odd_pair", "_odd_number_pair")
    assert D._equal_kin([0, 1]) == [1.0] and D._equal_kin(["a"]) == []
    assert D._equal_kin([1, 2.5]) == []
    c = compare_sources(old, new, "matches")
    assert c.verdict == "changed", c.detail
    got = c.to_dict()["evidence"]["distinguishing_input"]
    assert "k = 1.0" in got["note"] and "True for flag" in got["note"], got


def test_a_doctests_arguments_on_an_object_made_here_when_its_object_does_not_build():
    # extract mode: ``VersionText`` comes from a module of the package that
    # is not here, so ``Ver.parse("4.0")`` refuses its text; the doctest's
    # arguments still reach the new branch on an object the run builds
    old = d('''
        from ._types import VersionText


        class Ver:
            def __init__(self, major, minor):
                self.major, self.minor = major, minor

            @classmethod
            def parse(cls, text):
                if not isinstance(text, VersionText):
                    raise TypeError("not a version text: %r" % (text,))
                return cls(*map(int, text.split(".")))

            def match(self, expr):
                """
                >>> Ver.parse("1.2").match(">1.0")
                True
                >>> Ver.parse("4.0").match("4.0")
                True
                """
                op, rest = expr[:1], expr[1:]
                if op in ("<", ">"):
                    other = Ver.parse(rest)
                    return (self.major, self.minor) > (other.major, other.minor) \\
                        if op == ">" else (self.major, self.minor) < (other.major, other.minor)
                raise ValueError("an operator first: %r" % expr)
        ''')
    new = old.replace('        raise ValueError("an operator first: %r" % expr)', """\
        if expr[:1].isdigit():
            other = Ver.parse(expr)
            return (self.major, self.minor) == (other.major, other.minor)
        raise ValueError("an operator first: %r" % expr)""")
    assert new != old
    c = compare_sources(old, new, "Ver.match")
    assert c.verdict == "changed", c.detail
    got = c.to_dict()["evidence"]["distinguishing_input"]
    # (undecided without: every other input differs only through made-up values)
    assert got["note"].endswith("(its object made here)") and got["call"]["self"] is None, got
    assert c.to_dict()["evidence"]["first_difference"]["old"]["outcome"] == "raised:ValueError"


def test_a_text_written_in_the_format_it_is_parsed_by():
    # ``strptime(x, fmt)`` with both parameters: texts that parse, so the
    # branch for a format of no date and no time directive runs (the old
    # version built the error and forgot to raise it)
    old = d('''
        from datetime import datetime


        def convert(x, fmt):
            is_date = any("%" + c in fmt for c in "dbBmyY")
            is_time = any("%" + c in fmt for c in "HIMS")
            dt = datetime.strptime(x, fmt)
            if is_date and is_time:
                return dt
            elif is_date:
                return dt.date()
            elif is_time:
                return dt.time()
            else:
                ValueError("neither a date nor a time")
        ''')
    new = old.replace('        ValueError("neither', '        raise ValueError("neither')
    assert new != old
    fa, fb, _ = _versions(old, new, "convert")
    got = [h for h in D._hints(fb.node, D._Scope(fb)) if h[0] == "RAW" and "strftime" in h[1][1]]
    assert ["fmt = 'T'", f"x = {D._SAMPLE_MOMENT}.strftime(fmt)"] in [h[1] for h in got], got
    # the formats other hints give ``fmt`` too (``"%Y" in fmt``)
    src2 = old.replace("    dt = datetime", "    if '%Y' in fmt:\n        pass\n    dt = datetime")
    assert src2 != old
    fa2 = function_versions(src2, "m.py")["convert"]
    got2 = [h[1][0] for h in D._hints(fa2.node, D._Scope(fa2)) if h[0] == "RAW"]
    assert "fmt = '%Y'" in got2 and "fmt = 'T'" in got2, got2
    # (unreached without: every made-up text fails to parse)
    c = compare_sources(old, new, "convert")
    assert c.verdict == "changed", c.detail


def test_an_instance_of_a_module_class_for_isinstance_among_a_sliced_parameters_items():
    # ``isinstance(part, Segment)`` for ``part`` of ``parts[1:]``: the module's
    # own class made without its ``__init__``, twice (the slice skips one),
    # once the module ran (the extract defines the class, after the prefix)
    old = d('''
        class Segment:
            __slots__ = ("ops",)


        def join(*parts):
            out = []
            for part in parts[1:]:
                if isinstance(part, Segment):
                    out.append("seg")
                else:
                    out.append(str(part))
            return "/".join(out)
        ''')
    new = old.replace('out.append("seg")', 'out.append("segment")')
    fa, fb, _ = _versions(old, new, "join")
    sc = D._Scope(fb)
    assert sc.items == {"part": (["parts"], 0)} and sc.sliced == {"part"}
    assert "Segment" in sc.classes
    raws = [h[1] for h in D._hints(fb.node, sc) if h[0] == "RAW"]
    assert ["parts = [_LxLate('Segment', True), _LxLate('Segment', True)]"] in raws, raws
    # (unreached without: no made-up value is a Segment)
    c = compare_sources(old, new, "join")
    assert c.verdict == "changed", c.detail


def test_two_failures_on_nothing_made_up_are_two_behaviours():
    # a method without parameters on an object its own ``__init__`` built,
    # the class's empty table: ValueError before, StopIteration after --
    # no input value was invalid, so the two failures are not an artefact
    old = d('''
        class Registry:
            _SEEN = {}

            def __init__(self):
                self.count = 0

            def oldest(self):
                return self._SEEN[min(self._SEEN)]
        ''')
    new = old.replace("self._SEEN[min(self._SEEN)]", "self._SEEN[next(iter(self._SEEN))]")
    ok = {"input": "{}", "injections": 0, "args": "[]", "calls": "[]", "globals": "[]"}
    assert B._unmade(dict(ok, outcome="raised:ValueError"), dict(ok, outcome="raised:KeyError"))
    assert not B._unmade(dict(ok, input="{'k': '1'}"), ok)
    assert not B._unmade(dict(ok, injections=1), ok)
    # (undecided without: "every input ended in" a failure)
    c = compare_sources(old, new, "Registry.oldest")
    assert c.verdict == "changed", c.detail
    assert c.to_dict()["evidence"]["strength"] == "concrete"


def test_an_attribute_of_a_parameters_items_and_a_text_holding_what_replace_looks_for():
    # ``token.value`` of ``for token in stream``: the stream as a list of one
    # object with that attribute; ``.replace('\\', ...)`` on it wants a text
    # holding a backslash (the made-up value has none, and the injected
    # ``Token`` saw only made-up arguments: undecided without)
    old = d('''
        from tokpkg_not_installed import Token


        def quoted(stream):
            for token in stream:
                if token.is_newline and '\\n' in token.value:
                    yield Token('newline', token.value)
                    continue
                elif "'" in token.value:
                    token.value = token.value.replace("'", "\\\\'")
                yield Token('text', token.value)
        ''')
    new = old.replace('''elif "'" in token.value:
            token.value = token.value.replace("'", "\\\\'")''', '''else:
            token.value = token.value.replace("\\\\", "\\\\\\\\").replace("'", "\\\\'")''')
    assert new != old and "else:" in new
    fa, fb, _ = _versions(old, new, "quoted")
    got = D._hints(fb.node, D._Scope(fb))
    raws = [h[1] for h in got if h[0] == "RAW"]
    assert ["_lx_item = _LxObj()", "_lx_item.value = 'x\\\\x'", "stream = [_lx_item]"] in raws
    c = compare_sources(old, new, "quoted")
    assert c.verdict == "changed", c.detail
    assert "_lx_item.value" in c.to_dict()["evidence"]["distinguishing_input"]["note"]


def test_numbers_of_other_kinds_for_a_sum_and_a_subject_read_through_upper():
    # ``sum(values) / float(len(values))`` -> ``/ len(values)``: alike on
    # ints and floats (a wrong "same" without), not on a Fraction
    old = d('''
        def average(values):
            if values:
                return sum(values) / float(len(values))
            return None
        ''')
    new = old.replace("/ float(len(values))", "/ len(values)")
    c = compare_sources(old, new, "average")
    assert c.verdict == "changed", c.detail
    assert "Fraction" in c.to_dict()["evidence"]["distinguishing_input"]["note"]
    # ``word.upper() == 'AS'``: the subject is ``word``, given 'AS' and 'as'
    e = ast.parse("word.upper() == 'AS'", mode="eval").body.left
    sub, vals = D._recased(e, ["AS"])
    assert ast.unparse(sub) == "word" and vals == ["AS", "as"]
    sub, vals = D._recased(ast.parse("w.strip()", mode="eval").body, ["a"])
    assert ast.unparse(sub) == "w" and vals == ["a", " a "]
    # a call with arguments is not a case change
    e = ast.parse("w.upper(1)", mode="eval").body
    assert D._recased(e, ["AS"]) == (e, ["AS"])
    sub, vals = D._recased(ast.parse("w.strip().upper()", mode="eval").body, ["AS"])
    assert ast.unparse(sub) == "w" and vals == ["AS", " AS ", "as", " as "]
    # the subject ``word`` gets the lower-case text (no hint at all without)
    old = d('''
        def is_alias(word):
            return word.strip().upper() == 'AS'
        ''')
    fa, _, _ = _versions(old, old, "is_alias")
    got = [(p, vals) for p, vals, _ in D._hints(fa.node, D._Scope(fa))]
    assert (["word"], ["'AS'", "' AS '", "'as'", "' as '"]) in got, got


def test_a_containers_method_on_its_object_with_entries(monkeypatch):
    # ``rename`` raises KeyError on an object without the name (every input
    # did: unreached without); the object given entries through its own
    # ``__setitem__``, the call's arguments among the keys, reaches the edit
    # (the inputs that make ``self._names`` hold the name, aimed at the
    # lookup, reach it first: left out here, so that the filling is what runs)
    monkeypatch.setattr(D, "_lookup_hints", lambda *a: [])
    old = d('''
        class Registry:
            def __init__(self):
                self._names = {}
                self._order = []

            def __setitem__(self, name, value):
                if not isinstance(name, str) or not name.isidentifier():
                    raise ValueError(name)
                self._names[name] = value
                self._order.append(name)

            def rename(self, name, new_name):
                if name not in self._names:
                    raise KeyError(name)
                self._names[new_name] = self._names.pop(name)
                self._order[self._order.index(name)] = new_name
        ''')
    new = old.replace("self._order[self._order.index(name)] = new_name",
                      "self._order.remove(name)\n        self._order.append(new_name)")
    c = compare_sources(old, new, "Registry.rename")
    assert c.verdict == "changed", c.detail
    got = c.to_dict()["evidence"]["distinguishing_input"]
    assert got["reshape"] == "fill@self", got
    fa, _, _ = _versions(old, new, "Registry.rename")
    assert B._fillable(fa)
    monkeypatch.undo()
    c = compare_sources(old, new, "Registry.rename")
    assert c.verdict == "changed", c.detail
    assert "self._names = {name: 'x'}" in \
        c.to_dict()["evidence"]["distinguishing_input"]["prefix"]
    fi, _, _ = _versions(old, new, "Registry.__init__")
    assert not B._fillable(fi)          # (a constructor: nothing to fill yet)
    plain = d('''
        class Point:
            def norm(self):
                return abs(self.x)
        ''')
    fp, _, _ = _versions(plain, plain, "Point.norm")
    assert not B._fillable(fp)


def test_filled_gives_entries_through_setitem_or_add_and_refuses_otherwise():
    from lexecutor_c.apps.funcrun import _SAME, _filled

    class Box(dict):
        pass
    b = _filled(Box(), ["k", 3.5], {"n": 7})
    # whole-value arguments as keys first (two of them), then 'a' and 'b'
    assert dict(b) == {"k": 1, 7: 2, "a": 3, "b": 4}

    class Bag:
        def __init__(self):
            self.items = []

        def add(self, x):
            self.items.append(x)
    assert _filled(Bag(), [], {}).items == ["a", "b"]

    class Closed:
        def __setitem__(self, k, v):
            raise TypeError("read-only")
    assert _filled(Closed(), [], {}) is _SAME
    assert _filled(object(), [1], {}) is _SAME


def test_an_iterator_of_the_projects_own_class_is_shown_by_its_state():
    # ``JSONLIterator.__init__`` sets ``_rel_seek`` on an object that is its
    # own iterator: its attributes are compared, not items drained from a
    # made-up file (which raised, and hid the edit: undecided without)
    old = d('''
        class LineIterator:
            def __init__(self, file_obj, rel_seek=None):
                self._file_obj = file_obj
                if rel_seek is None:
                    pass
                elif not -1.0 < rel_seek < 1.0:
                    raise ValueError(rel_seek)
                elif rel_seek < 0:
                    rel_seek = 1.0 - rel_seek
                self._rel_seek = rel_seek
                self._line_iter = iter(self._file_obj)

            def __iter__(self):
                return self

            def __next__(self):
                return next(self._line_iter).upper()
        ''')
    new = old.replace("rel_seek = 1.0 - rel_seek", "rel_seek = 1.0 + rel_seek")
    c = compare_sources(old, new, "LineIterator.__init__")
    assert c.verdict == "changed", c.detail
    assert "_rel_seek" in c.detail
    # a generator is still shown by its items
    def gen():
        yield 1
        yield 2
    assert B.snapshot(gen()) == ["<iterator>", "1", "2"]


def test_an_assert_the_edit_added_on_an_attribute_of_unpacked_items():
    # ``for index, pattern in patterns``: the items are tuples, ``pattern``
    # the second; the edit's own ``assert`` fails on ``pattern.regex = None``
    # where the old version failed later -- two messages, and the new one is
    # the edit's wording (undecided without either)
    old = d('''
        def encoded(patterns):
            out = []
            for index, pattern in patterns:
                regex = pattern.regex
                if isinstance(regex, str):
                    regex = regex.encode()
                else:
                    assert isinstance(regex, bytes), regex
                out.append((index, regex))
            return out
        ''')
    new = old.replace("        regex = pattern.regex\n",
                      "        assert pattern.regex is not None, (index, pattern)\n"
                      "        regex = pattern.regex\n")
    assert new != old
    fa, fb, _ = _versions(old, new, "encoded")
    sc = D._Scope(fb)
    assert sc.tupled == {"index": (0, 2), "pattern": (1, 2)}
    assert D._in_tuple("x", (1, 2)) == "(0, x)" and D._in_tuple("x", None) == "x"
    lines = B._raise_lines(fb, set(changed_lines(fa, fb)[1]))
    assert len(lines) == 1
    c = compare_sources(old, new, "encoded")
    assert c.verdict == "changed", c.detail
    assert "exception message" in c.detail


def test_runs_through_the_decorators_when_an_edit_changed_them():
    # the runs call the function itself; where the decorators differ the
    # agreeing inputs run again through each version's decorated function
    # (extract mode binds it after the definition): the warning differs
    # (undecided without: "the runs call the function without them")
    old = d('''
        import functools
        import warnings


        def deprecated(replace=None):
            def deco(func):
                @functools.wraps(func)
                def wrapper(*args, **kwargs):
                    warnings.warn(f"use {replace} instead", DeprecationWarning)
                    return func(*args, **kwargs)
                return wrapper
            return deco


        @deprecated(replace="pkg.Version.parse")
        def parse_version(text):
            return tuple(int(p) for p in text.split("."))
        ''')
    new = old.replace('"pkg.Version.parse"', '"pkg.version.Version.parse"')
    c = compare_sources(old, new, "parse_version")
    assert c.verdict == "changed", c.detail
    assert "pkg.version.Version.parse instead" in c.detail
    assert "through the decorators" in c.to_dict()["evidence"]["distinguishing_input"]["note"]
    # a decorator written another way that does the same: no change
    same = old.replace('@deprecated(replace="pkg.Version.parse")',
                       '@deprecated(replace="pkg.Version." + "parse")')
    assert compare_sources(old, same, "parse_version").verdict != "changed"
    fa, _, _ = _versions(old, new, "parse_version")
    side = B._Side(fa, ["text"], [], None)
    assert side.decorated_text.rstrip().endswith(
        "parse_version = (deprecated(replace='pkg.Version.parse'))(parse_version)")


def test_one_list_of_items_for_the_tests_a_loop_makes_on_their_attribute():
    # ``for tok in tlist.tokens``: the attribute is the list; three tests of
    # ``tok.value`` set flags that decide together: one list holds an item
    # per test -- in lower case too, where the edit reads ``.upper()``
    old = d('''
        def group(tlist):
            has_create = has_table = has_as = False
            for tok in tlist.tokens:
                if tok.value.upper() == 'CREATE':
                    has_create = True
                if tok.value.upper() == 'TABLE':
                    has_table = True
                if tok.value == 'AS':
                    has_as = True
            if has_create and has_table and not has_as:
                return None
            return tlist.regroup()
        ''')
    new = old.replace("if tok.value == 'AS':", "if tok.value.upper() == 'AS':")
    fa, fb, _ = _versions(old, new, "group")
    raws = [h[1] for h in D._hints(fb.node, D._Scope(fb)) if h[0] == "RAW"]
    lower = [r for r in raws if "_lx_item2.value = 'as'" in r]
    assert lower and lower[0][-2:] == [
        "if 'tlist' not in globals(): tlist = _LxObj()",
        "tlist.tokens = [_lx_item0, _lx_item1, _lx_item2]"], raws
    assert "_lx_item0.value = 'create'" in lower[0]
    c = compare_sources(old, new, "group")
    assert c.verdict == "changed", c.detail


def test_a_callable_parameter_raises_what_the_handler_catches():
    # the ``try`` body calls a parameter; the handled class is another
    # parameter's default: the input gives ``call`` a function raising
    # ``Exception`` (without: only a made-up callable's own TypeError)
    old = d('''
        def attempt(call, default=None, errors=Exception):
            try:
                return call()
            except errors as e:
                return (default, str(e))
        ''')
    new = old.replace("str(e)", "repr(e)")
    fa, fb, _ = _versions(old, new, "attempt")
    tries = [t for t in fb.node.body if isinstance(t, ast.Try)]
    got = D._handler_hints(tries[0], D._Scope(fb))
    assert any("raise Exception(*('lx',))" in patch and "call = _lx_raise" in patch
               for patch, _ in got), got
    c = compare_sources(old, new, "attempt")
    assert c.verdict == "changed", c.detail
    assert "call raises Exception" in c.to_dict()["evidence"]["distinguishing_input"]["note"]


def test_a_whole_number_that_is_not_an_int_parts_equality_from_order():
    # ``attempt + 1 == tries`` -> ``>=``: alike for every int ("same"
    # without); a ``tries`` with ``__index__`` alone runs ``range`` in both,
    # then is unequal to every int in one version and unordered in the other
    old = d('''
        def retry(call, tries):
            for attempt in range(tries):
                try:
                    return call()
                except ValueError:
                    if attempt + 1 == tries:
                        raise
        ''')
    new = old.replace("attempt + 1 == tries", "attempt + 1 >= tries")
    from lexecutor_c.apps.funcrun import _SAME, RESHAPES, reshape
    assert "index" in RESHAPES and "index" in B._shapes_of("3")
    x = reshape(3, "index")
    assert list(range(x)) == [0, 1, 2] and x != 3
    assert reshape(True, "index") is _SAME and reshape(2.5, "index") is _SAME
    # tried only where the edit changes how its lines compare
    fa, fb, (lo, ln) = _versions(old, new, "retry")
    assert B._edit_orders(fa, fb, lo, ln)
    fa2, fb2, (lo2, ln2) = _versions(old, old.replace("raise", "raise ValueError"), "retry")
    assert not B._edit_orders(fa2, fb2, lo2, ln2)
    c = compare_sources(old, new, "retry")
    assert c.verdict == "changed", c.detail
    assert c.to_dict()["evidence"]["distinguishing_input"].get("reshape", "").startswith("index@")


def test_filled_gives_a_list_subclass_items_through_append():
    from lexecutor_c.apps.funcrun import _filled

    class Stack(list):
        pass
    # ``obj['a'] = 1`` refuses (a list wants an index): ``append`` then
    assert list(_filled(Stack(), [5], {})) == [5, "a", "b"]


def test_a_character_whose_code_point_a_long_container_leaves_out():
    # ``code_point = ord(char)`` of ``for pos, char in enumerate(domain)``:
    # the numbers compared with ``code_point`` are given to ``char`` as
    # characters, and the value outside a long tuple comes among the first
    old = d('''
        _LDH = (48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 95, 97, 98, 99, 100, 101)


        def remap(domain, strict=True):
            out = ""
            for pos, char in enumerate(domain):
                code_point = ord(char)
                if strict and code_point > 0xffff:
                    raise ValueError("too big")
                out += char.lower()
            return out
        ''')
    new = old.replace('''        if strict and code_point > 0xffff:''',
                      '''        if strict and not code_point in _LDH:
            raise ValueError("not LDH at %d" % pos)
        if strict and code_point > 0xffff:''')
    assert new != old
    fa, fb, _ = _versions(old, new, "remap")
    sc = D._Scope(fb)
    assert sc.ords == {"code_point"} and sc.derived["code_point"] == ["char"]
    raws = [h[1] for h in D._hints(fb.node, sc) if h[0] == "RAW"]
    # 48, 49, 50, then the value outside (102), as characters
    assert [["domain = ['0']"], ["domain = ['1']"], ["domain = ['2']"],
            ["domain = ['f']"]] == raws[raws.index(["domain = ['0']"]):][:4], raws
    assert ["domain = ['\\uffff']"] in raws
    c = compare_sources(old, new, "remap")
    assert c.verdict == "changed", c.detail


def test_aimed_values_cross_onto_direct_calls_not_onto_calls_through_a_caller():
    # a test's call through a caller (``span_range`` leading to ``span``) has
    # the caller's arguments: a value aimed at ``span``'s ``week_start`` has
    # nothing to land on there, and took the room of the direct calls' ones
    run = {"outcome": "returned", "input": {"frame": "'day'", "start": "1"}}
    through = B.Input("", {"self": None, "args": ["'day'", "1"], "kwargs": {}},
                      note="test call t.py:3 through Arrow.span_range")
    direct = B.Input("", {"self": "Arrow(2013)", "args": ["'day'"], "kwargs": {}},
                     note="doctest: Arrow(2013).span('day')")
    values = {"week_start": ["0", "1"]}
    lit = [v for v in B._variants([(through, run, run), (direct, run, run)], 2,
                                  aimed_values=values) if v.reshape.startswith("lit:")]
    assert [(v.reshape, v.note.split(" of ")[1]) for v in lit] == [
        ("lit:0@week_start", "doctest: Arrow(2013).span('day')"),
        ("lit:1@week_start", "doctest: Arrow(2013).span('day')")]


def test_a_split_text_holds_the_separator_but_is_not_the_separator_alone():
    # semver's ``_nat_cmp``: ``a = '.'`` and ``b = '.'`` came first among
    # twelve inputs and crowded out the one that told the versions apart
    src = d('''
        def cmp(a, b):
            x = a.split('.')
            y = b.split('.')
            return x < y
        ''')
    f = function_versions(src, "m.py")["cmp"]
    assert D._hints(f.node, D._Scope(f)) == [(["a"], ["'x.x'"], False),
                                             (["b"], ["'x.x'"], False)]


def test_a_function_of_the_module_raises_what_the_added_handler_catches():
    # ``try: ... width(ch) ... except ValueError`` added round a call of a
    # function the module defines: an input makes that function raise the
    # handled class once the module's own ``def`` ran (bound in the prefix,
    # the ``def`` rebinds it: undecided, the handler never ran)
    old = d('''
        import unicodedata


        def width(ch):
            return unicodedata.combining(ch) + len(unicodedata.name(ch))


        def check(label):
            for pos, ch in enumerate(label):
                if width(ch) > 40:
                    raise KeyError(pos)
            return True
        ''')
    new = old.replace('''        if width(ch) > 40:
            raise KeyError(pos)''', '''        try:
            if width(ch) > 40:
                raise KeyError(pos)
        except ValueError:
            raise LookupError('unknown character at {}'.format(pos))''')
    assert new != old
    c = compare_sources(old, new, "check")
    assert c.verdict == "changed", c.detail
    ev = c.to_dict()["evidence"]
    assert ev["distinguishing_input"]["note"] == "aimed: width raises ValueError"
    assert "LookupError" in str(ev)


@pytest.mark.parametrize("annotation, samples", [
    ("int", ["1", "0"]),
    ("Optional[str]", ["'a'", "''", "None"]),
    ("Union[str, bytes, bytearray]", ["'a'", "b'a'", "bytearray(b'a')", "''", "b''"]),
    ("str | None", ["'a'", "None", "''"]),
    ("'Optional[int]'", ["1", "0", "None"]),
    ("typing.Sequence[str]", ["['a']", "[]"]),
    ("Dict[str, List[int]]", ["{'a': [1]}", "{}"]),
    ("Literal['x', 2]", ["'x'", "2"]),
    ("tuple[int, str]", ["(1, 'a',)"]),
    ("Tuple[int, ...]", ["(1,)", "()"]),
    ("Callable[[int], int]", []),
    ("Iterable[Project]", []),
])
def test_the_values_an_annotation_names(annotation, samples):
    assert D._type_samples(ast.parse(annotation, mode="eval").body) == samples


def test_annotated_parameters_get_their_types_values_after_the_aimed_ones():
    # ``check_label(label: Union[str, bytes, bytearray])``: made-up values
    # stop at ``unicodedata.normalize('NFC', label)``; the annotation names
    # text, which goes on to the changed lines
    old = d('''
        import unicodedata


        def check(label: Union[str, bytes], strict: bool, self=None):
            if unicodedata.normalize('NFC', label) != label:
                raise ValueError(label)
            return label.upper()
        ''')
    new = old.replace(".upper()", ".casefold()")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "check")
    got = D.aimed_inputs(fa, fb, ch_o, ch_n)
    notes = [n for _, n, _ in got]
    first = notes.index("aimed: label = 'a'; strict = True")
    second = notes.index("aimed: label = b'a'; strict = False")
    assert first < second and all(n.startswith("aimed: ") for n in notes)
    assert got[first][2] == ["label", "strict"]
    # none for a function without annotations
    bare = function_versions("def check(label, strict):\n    return label\n", "m.py")
    assert D._annotation_hints(bare["check"]) == []


def test_a_command_line_main_gets_its_arguments_and_standard_input():
    # ``parser.parse_args()`` and ``sys.stdin.read()``: without ``sys.argv``
    # holding the declared positional argument the run ends in the parser's
    # usage error (unreached); JSON on standard input with a character
    # beyond ASCII tells ``ensure_ascii=False`` apart
    old = d('''
        import argparse
        import json
        import sys


        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument('key')
            parser.add_argument('mode', choices=['get', 'keys'])
            parser.add_argument('--indent', type=int)
            args = parser.parse_args()
            data = json.loads(sys.stdin.read())
            if args.mode == 'get':
                sys.stdout.write(json.dumps(data.get(args.key)))
            return 0
        ''')
    new = old.replace("data.get(args.key)))", "data.get(args.key), ensure_ascii=False))")
    assert new != old
    fa, fb, _ = _versions(old, new, "main")
    (h,) = D._cli_hints(fb)
    assert h[1] == ["import sys", "import io", "sys.argv = ['prog', 'a', 'get']",
                    f"sys.stdin = io.StringIO({D._STDIN_JSON!r})"]
    c = compare_sources(old, new, "main")
    assert c.verdict == "changed", c.detail
    assert "output" in c.detail
    # no such input for a function that neither parses arguments nor reads
    assert D._cli_hints(_versions("def f(x):\n    return x\n",
                                  "def f(x):\n    return -x\n", "f")[1]) == []


def test_a_dependency_renamed_without_a_change_is_no_difference(tmp_path):
    # the helper renamed, its code the same (``KeepOpenFile`` ->
    # ``_KeepOpenFile``): the function returns it and shows its name; the
    # runs differ only in that name -- no "changed", and no "same" either
    old = textwrap.dedent('''\
        def _wrap(x):
            return [x, x]


        def pair(x):
            return _wrap, _wrap(x)
        ''')
    new = old.replace("_wrap", "wrapped")
    c = compare_sources(old, new, "pair")
    assert c.verdict == "undecided", c.detail
    assert "renamed without a change (_wrap -> wrapped)" in c.detail, c.detail
    # a renamed helper whose code changed too is a change
    assert compare_sources(old, new.replace("[x, x]", "[x, x, x]"), "pair").verdict == \
        "changed"


def test_a_renamed_dependencys_twin_is_found_in_another_module_of_the_tree(tmp_path):
    fa = function_versions("from .h import _edge\n\ndef f(t):\n    return _edge(t)\n",
                           "pkg/m.py")["f"]
    fb = function_versions("from .h import edge\n\ndef f(t):\n    return edge(t)\n",
                           "pkg/m.py")["f"]
    body = "(t):\n    return t.endswith(';')\n"
    for root, name in (("a", "_edge"), ("b", "edge")):
        (tmp_path / root / "pkg").mkdir(parents=True)
        (tmp_path / root / "pkg" / "h.py").write_text(f"def {name}{body}")
    roots = (str(tmp_path / "a"), str(tmp_path / "b"))
    old_only, new_only = B._swapped_sides(fa, fb)
    assert B._renamed_twins(fa, fb, old_only, new_only, roots) == {"_edge": "edge"}
    # without the trees, or with another body, no twin
    assert B._renamed_twins(fa, fb, old_only, new_only) == {}
    (tmp_path / "b" / "pkg" / "h.py").write_text("def edge(t):\n    return t.endswith(',')\n")
    assert B._renamed_twins(fa, fb, old_only, new_only, roots) == {}
    # two runs alike but for the names (a message may quote either name)
    ro = {"outcome": "returned", "ret": "'<function _edge>'",
          "calls": "[['internal:_edge', [\"'a;'\"], []]]"}
    rn = {"outcome": "returned", "ret": "'<function edge>'",
          "calls": "[['internal:edge', [\"'a;'\"], []]]"}
    assert B._alike_renamed(ro, rn, {"_edge": "edge"})
    assert not B._alike_renamed(ro, dict(rn, ret="'<function other>'"), {"_edge": "edge"})
    assert not B._alike_renamed(ro, rn, {})


def test_a_text_a_local_last_took_from_a_parameters_attribute_is_given_what_it_starts_with():
    # ``url`` is bound three times; at the test it holds ``request.path_url``:
    # the run reads the literal the test compares with, a later input gives
    # the attribute that text, and the difference on it is the code's own
    old = textwrap.dedent('''\
        def request_url(request, proxies):
            proxy = proxies.get("http") if proxies else None
            url = request.path_url
            if url.startswith("//"):
                url = "/" + url.lstrip("/")
            if proxy:
                url = request.url
            return url
        ''')
    new = old.replace('''    if url.startswith("//"):
        url = "/" + url.lstrip("/")
''', "")
    fa = function_versions(old, "m.py")["request_url"]
    assert B._param_guards(fa) == [[4, "request.path_url", "'//'", "=="]]
    c = compare_sources(old, new, "request_url")
    assert c.verdict == "changed", c.detail
    assert c.to_dict()["evidence"]["strength"] == "concrete", c.to_dict()["evidence"]


def _busy(n):
    s = 0
    for i in range(n):
        s += i
    return s


def test_the_budget_counts_the_runs_cpu_time_and_a_third_of_the_wall_clock(monkeypatch):
    # the CPU time of a run in a child process counts once it was waited for
    from lexecutor_c.engine import sandbox
    spent = B._Spent()
    t = time.process_time()
    assert sandbox.call_isolated(_busy, 4_000_000).status == "ok"
    child = spent() - (time.process_time() - t)
    assert child > 0.05
    # a sleep uses no CPU time: it counts at a third of its length
    spent = B._Spent()
    time.sleep(0.6)
    assert 0.15 < spent() < 0.45
    # a loaded machine: 60 s on the wall clock, 10 s of CPU time -> 20 s
    # (the wall clock's third), 60 s of CPU time -> 60 s
    clock = {"wall": 100.0, "cpu": 5.0}

    class T:
        def __init__(self, cpu):
            self.user, self.system, self.children_user, self.children_system = cpu, 0, 0, 0
    monkeypatch.setattr(B.time, "monotonic", lambda: clock["wall"])
    monkeypatch.setattr(B.os, "times", lambda: T(clock["cpu"]))
    spent = B._Spent()
    clock.update(wall=160.0, cpu=15.0)
    assert spent() == pytest.approx(20.0)
    clock.update(cpu=65.0)
    assert spent() == pytest.approx(60.0)



def test_code_that_recurses_to_the_limit_stops_at_the_same_depth_in_every_run():
    # a run forks from wherever the check is on the stack (a rerun that
    # checks a difference from deeper than the first run); each run gets the
    # same room for recursion, so code that recurses to the limit stops at
    # the same depth whatever the caller's depth
    old = textwrap.dedent("""\
        def room():
            import sys
            f, n = sys._getframe(), 0
            while f is not None:
                n, f = n + 1, f.f_back
            return sys.getrecursionlimit() - n
        """)
    new = old.replace("return sys.getrecursionlimit() - n",
                      "return sys.getrecursionlimit() - n + 1")

    def shown(deeper):
        if deeper:
            return shown(deeper - 1)
        c = compare_sources(old, new, "room")
        assert c.verdict == "changed", c.to_dict()
        return c.to_dict()["detail"]

    assert shown(0) == shown(40)
    from lexecutor_c.apps import funcrun
    import sys
    limit = sys.getrecursionlimit()
    try:
        def at(k):
            if k:
                return at(k - 1)
            funcrun._fix_recursion_budget()
            return sys.getrecursionlimit()
        # 20 frames deeper: the limit 20 higher, the room the same
        assert at(20) - at(0) == 20
    finally:
        sys.setrecursionlimit(limit)


def test_a_mapping_of_the_project_is_shown_by_its_entries_and_its_attributes():
    from lexecutor_c.apps.funcrun import snapshot

    class Broken(dict):
        def items(self):
            raise ValueError("made-up state")

    a, b = Broken(x=1), Broken(x=1)
    b.cached_clear = "bound"
    sa, sb = snapshot(a), snapshot(b)
    # the entries as the dict holds them, whatever its own items() does
    assert sa[1:] == [["'x'", "1"]]
    assert sb[1:] == [["'x'", "1"], ["<attributes>", [["cached_clear", "'bound'"]]]]
    assert sa != sb

    class Unreadable(list):
        def __getitem__(self, i):
            raise ValueError("no")

    u, w = Unreadable([1]), Unreadable([1])
    w.tag = "t"
    # a container that cannot be read: shown as such, with its attributes
    assert snapshot(u).endswith(".Unreadable: ValueError>")
    assert snapshot(w)[0].endswith(".Unreadable: ValueError>")
    assert snapshot(w)[1] == [["tag", "'t'"]]


DUCK_OLD = d('''
    from collections.abc import Iterable

    def stream_length(data):
        if isinstance(data, Iterable) and not isinstance(data, (str, bytes)):
            return sum(1 for _ in data)
        return -1
    ''')
DUCK_NEW = DUCK_OLD.replace("if isinstance(data, Iterable) and",
                            "if (isinstance(data, Iterable) or hasattr(data, '__iter__')) and")


def test_a_value_behind_a_wrapper_that_hands_attributes_on():
    from collections.abc import Iterable
    from lexecutor_c.apps.funcrun import _SAME, reshape
    p = reshape([1, 2], "proxy")
    # ``hasattr`` sees the list's attributes through it, ``isinstance`` and
    # ``iter`` ask the wrapper's class, which has none
    assert hasattr(p, "__iter__") and p.count(2) == 1
    assert not isinstance(p, Iterable)
    with pytest.raises(TypeError):
        iter(p)
    assert "[1, 2]" in repr(p)
    for x in (None, 1, 2.5, True, p):
        assert reshape(x, "proxy") is _SAME, x


def test_an_edit_of_its_hasattr_tests_gets_values_behind_a_wrapper():
    fa, fb, (lo, ln) = _versions(DUCK_OLD, DUCK_NEW, "stream_length")
    assert B._edit_duck(fa, fb, lo, ln)
    # the aimed values: the subject of the new ``hasattr`` as a list behind
    # a wrapper (the wrapper's class is in every aimed input's prefix)
    made = D.aimed_inputs(fa, fb, lo, ln)
    assert any("data = _LxWrap([1, 2])" in n for _, n, _ in made), [n for _, n, _ in made]
    assert "class _LxWrap" in D.STAND_IN
    # a widened isinstance test alone, or a hasattr test both versions
    # have unchanged, is no such edit
    wide = DUCK_OLD.replace("(str, bytes)", "(str, bytes, bytearray)")
    fa2, fb2, (lo2, ln2) = _versions(DUCK_OLD, wide, "stream_length")
    assert not B._edit_duck(fa2, fb2, lo2, ln2)
    both = DUCK_NEW.replace("return -1", "return -2")
    fa3, fb3, (lo3, ln3) = _versions(DUCK_NEW, both, "stream_length")
    assert not B._edit_duck(fa3, fb3, lo3, ln3)


def test_hasattr_beside_isinstance_is_told_apart_by_a_wrapped_value():
    # a list behind a wrapper: the old test turns it away (-1), the new one
    # takes it and fails to iterate it
    c = compare_sources(DUCK_OLD, DUCK_NEW, "stream_length")
    assert c.verdict == "changed", c.detail
    ev = c.to_dict()["evidence"]
    di = ev["distinguishing_input"]
    assert "proxy" in di.get("reshape", "") or "_LxWrap" in di.get("note", ""), di
    # the same wrapped value on both sides of an edit that keeps the test
    # is no difference
    same = DUCK_NEW.replace("1 for _ in data", "1 for _item in data")
    assert compare_sources(DUCK_NEW, same, "stream_length").verdict != "changed"


# a threshold computed as log(limit / scale) rewritten as log(limit) -
# log(scale): alike for every ordinary number, but limit / scale underflows
# to 0 where limit is the smallest subnormal float and scale 2.0 (the old
# version's log raises), and overflows where limit is the largest float
WAIT_OLD = d('''
    import math

    def capped_wait(limit, scale, attempt):
        if limit > 0 and scale > 0 and attempt > math.log(limit / scale, 2):
            return limit
        return scale * 2 ** attempt
    ''')
WAIT_NEW = WAIT_OLD.replace("math.log(limit / scale, 2)",
                            "math.log(limit, 2) - math.log(scale, 2)")


def test_a_divisions_operands_are_aimed_at_the_floats_ends():
    fa, fb, (lo, ln) = _versions(WAIT_OLD, WAIT_NEW, "capped_wait")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, lo, ln)]
    assert "aimed: limit = 5e-324; scale = 2.0" in notes, notes
    assert "aimed: limit = 1.7976931348623157e+308; scale = 0.5" in notes, notes
    # early among the aimed inputs: a check's input budget reaches them
    assert notes.index("aimed: limit = 5e-324; scale = 2.0") < 12, notes
    # the dividend alone where the divisor is no subject (a constant), and
    # no such values for a division of locals the function computes
    const = WAIT_OLD.replace("limit / scale", "limit / 3")
    fa2, fb2, (lo2, ln2) = _versions(const, WAIT_NEW, "capped_wait")
    notes2 = [n for _, n, _ in D.aimed_inputs(fa2, fb2, lo2, ln2)]
    assert "aimed: limit = 5e-324" in notes2, notes2
    local = d('''
        def ratio(a, b):
            x = a + 1
            y = b + 1
            return x / y
        ''')
    fa3, fb3, (lo3, ln3) = _versions(local, local.replace("x / y", "x / y / 1"), "ratio")
    assert not any("5e-324" in n for _, n, _ in D.aimed_inputs(fa3, fb3, lo3, ln3))


def _changed_on(old, new, function) -> str:
    """The note of the input on which the check calls the pair "changed"."""
    c = compare_sources(old, new, function)
    assert c.verdict == "changed", c.detail
    return c.to_dict()["evidence"]["distinguishing_input"].get("note", "")


def test_a_division_rewritten_as_a_difference_of_logs_is_changed():
    note = _changed_on(WAIT_OLD, WAIT_NEW, "capped_wait")
    assert "5e-324" in note or "1.79" in note, note
    # the same division on both sides is no difference at the float's ends
    same = WAIT_OLD.replace("return scale * 2 ** attempt", "return scale * (2 ** attempt)")
    assert compare_sources(WAIT_OLD, same, "capped_wait").verdict != "changed"


#: positional parameter names of a callable, less an object's own first
#: parameter where its name says it is a method's
NAMES_OLD = d('''
    import inspect


    def parameter_names(fn):
        fn = inspect.unwrap(fn)
        if inspect.ismethod(fn):
            fn = fn.__func__
        code = fn.__code__
        names = code.co_varnames[:code.co_argcount]
        if names and names[0] == "self" and "." in fn.__qualname__:
            names = names[1:]
        return names
    ''')

#: ... and where it was bound to an object, whatever its name says
NAMES_NEW = d('''
    import inspect


    def parameter_names(fn):
        bound = inspect.ismethod(fn)
        fn = inspect.unwrap(fn)
        if inspect.ismethod(fn):
            bound = True
            fn = fn.__func__
        code = fn.__code__
        names = code.co_varnames[:code.co_argcount]
        if names and names[0] == "self" and (bound or "." in fn.__qualname__):
            names = names[1:]
        return names
    ''')


def test_an_inspect_predicate_is_aimed_at_a_value_it_holds_for():
    fa, fb, (lo, ln) = _versions(NAMES_OLD, NAMES_NEW, "parameter_names")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, lo, ln)]
    assert f"aimed: fn = {D._BOUND}" in notes, notes
    # a predicate imported by name, under another name, and a generator
    # function's; nothing for a function of another module of that name
    gen = d('''
        from inspect import isgeneratorfunction as isgen


        def kind(fn):
            if isgen(fn):
                return "generator"
            return "plain"
        ''')
    fa2, fb2, (lo2, ln2) = _versions(gen, gen.replace('"plain"', '"function"'), "kind")
    notes2 = [n for _, n, _ in D.aimed_inputs(fa2, fb2, lo2, ln2)]
    assert "aimed: fn = _lx_generator" in notes2, notes2
    other = gen.replace("from inspect import isgeneratorfunction as isgen",
                        "from mytools import isgen")
    fa3, fb3, (lo3, ln3) = _versions(other, other.replace('"plain"', '"function"'), "kind")
    assert not any("_lx_generator" in n for _, n, _ in D.aimed_inputs(fa3, fb3, lo3, ln3))


def test_a_method_bound_from_a_function_of_the_modules_level_is_changed():
    # the function bound to an object has a qualified name without a dot:
    # the old version kept its ``self``, the new one drops it
    note = _changed_on(NAMES_OLD, NAMES_NEW, "parameter_names")
    assert "MethodType(_lx_routine" in note, note
    # a rewrite that keeps what it answers is not called changed on it
    same = NAMES_OLD.replace("names = names[1:]", "names = tuple(names[1:])")
    assert compare_sources(NAMES_OLD, same, "parameter_names").verdict != "changed"


def test_objects_alike_but_for_their_class_differ_in_the_class_not_in_made_up_values():
    # ``Shape(**parts)`` -> ``type(self)(**parts)`` on the object of a
    # subclass: the returned objects hold the same (made-up) values, and
    # their classes differ -- the code's own difference
    held = "[['_tag', '\"<Dummy \\'_tag\\'>\"'], ['_size', '1']]"
    a = f"['geometry.shapes.Shape', {held}]"
    b = f"['lexecutor_c.apps.funcrun._LxSubShape', {held}]"
    assert B._differing_parts(a, b, objects=True) == ["geometry.shapes.Shape",
                                        "lexecutor_c.apps.funcrun._LxSubShape"]
    ra, rb = {"outcome": "returned", "ret": a}, {"outcome": "returned", "ret": b}
    assert not B._through_injection(["ret"], ra, rb)
    # a made-up class (a stand-in) beside another: still the made-up value's
    c = f"['geometry.shapes.C_shape', {held}]"
    assert B._through_injection(["ret"], {"outcome": "returned", "ret": c}, rb)
    # the same class, an attribute of the code's own set otherwise beside
    # made-up ones: that attribute is what differs
    e = a.replace("'_size', '1'", "'_size', '2'")
    assert B._differing_parts(a, e, objects=True) == ["['_size', '1']", "['_size', '2']"]
    assert not B._through_injection(["ret"], ra, {"outcome": "returned", "ret": e})
    # the class and a made-up value both differ: the made-up value counts
    d2 = b.replace("'_size', '1'", "'_size', '\"<Dummy \\'_size\\'>\"'")
    assert B._through_injection(["ret"], ra, {"outcome": "returned", "ret": d2})


#: how long ago a moment was, from another moment; the new version makes
#: both naive first, where the old one converted ``value`` alone
AGO_OLD = d('''
    import datetime as dt


    def _naive(x):
        if isinstance(x, dt.datetime) and x.tzinfo is not None:
            x = dt.datetime.fromtimestamp(x.timestamp())
        return x


    def ago(value, when=None):
        now = when or dt.datetime(2024, 6, 15, 21, 0, 0)
        value = _naive(value)
        return (now - value).total_seconds() // 60
    ''')
AGO_NEW = AGO_OLD.replace("    now = when or", "    when = _naive(when)\n    now = when or")


def test_a_tzinfo_test_is_aimed_at_a_naive_and_an_aware_datetime():
    fa, fb, (lo, ln) = _versions(AGO_OLD, AGO_NEW, "ago")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, lo, ln)]
    naive, aware = D._DATETIMES
    assert "timezone.utc" in aware and eval(aware).tzinfo is not None
    assert eval(naive).tzinfo is None
    assert f"aimed: when = {aware}" in notes, notes
    # the two parameters given the aware moment together, in one input
    assert f"aimed: when = {aware}, value = {aware}" in notes, notes


def test_two_parameters_made_aware_together_tell_a_conversion_of_both_apart():
    # aware ``when`` with a naive ``value`` cannot be subtracted in the old
    # version; both aware: the old raises TypeError, the new one answers
    note = _changed_on(AGO_OLD, AGO_NEW, "ago")
    assert "timezone.utc" in note, note
    # the difference put in a variable first is not called changed
    same = AGO_OLD.replace("return (now - value).total_seconds() // 60",
                           "delta = now - value\n    return delta.total_seconds() // 60")
    assert same != AGO_OLD
    assert compare_sources(AGO_OLD, same, "ago").verdict != "changed"


def test_a_value_shared_by_subjects_makes_one_input_where_the_kth_values_miss_it():
    subjects = {("a",): (["1", "'x'"], None), ("b",): (["'x'", "2"], None),
                ("c",): (["None"], None)}
    scopes = {id(None): D._Scope.__new__(D._Scope)}
    made = D._shared_value_inputs(subjects, set(subjects), scopes, "HEAD", ["a", "b"], [],
                                  limit=2)
    assert [n for _, n, _ in made] == ["aimed: a = 'x', b = 'x', c = None"]
    assert made[0][0] == "HEAD\na = 'x'\nb = 'x'\nc = None" and made[0][2] == ["a", "b"]
    # a subject aimed at only farther from the edit is set where it holds
    # the value (and named), left alone where it does not
    farther = {("d",): (["2"], None), ("e",): (["7"], None)}
    made = D._shared_value_inputs(subjects | farther, set(subjects), scopes, "HEAD", [], [],
                                  limit=4)
    assert [n for _, n, _ in made] == ["aimed: a = 'x', b = 'x', c = None",
                                       "aimed: a = 1, b = 2, c = None, d = 2"]
    assert made[1][2] == ["d"]
    # an edge value shared is left out; so is one an input already gives
    edge = {("a",): (["None", "1"], None), ("b",): (["None", "2"], None)}
    assert D._shared_value_inputs(edge, set(edge), scopes, "HEAD", [], []) == []
    given = [("p", "aimed: a = 'x', b = 'x', c = None", [])]
    assert D._shared_value_inputs(subjects, set(subjects), scopes, "HEAD", [], given) == []
    # a value only subjects farther from the edit share: not theirs to make
    alone = {("a",): (["1"], None)}
    assert D._shared_value_inputs(alone | farther | {("f",): (["7"], None)}, set(alone),
                                  scopes, "HEAD", [], []) == []


#: a list kept as sublists: an index before the start (below ``-len``)
#: finds no sublist; the new version inserts it at the front
BARREL_OLD = d('''
    class Barrel:
        def __init__(self):
            self.lists = [[]]

        def __len__(self):
            return sum(len(x) for x in self.lists)

        def _where(self, index):
            if index < 0:
                index += len(self)
            for i, sub in enumerate(self.lists):
                if index < len(sub):
                    return i, index
                index -= len(sub)
            return None, None

        def insert(self, index, item):
            if len(self.lists) == 1:
                self.lists[0].insert(index, item)
            else:
                i, at = self._where(index)
                if i is None:
                    raise IndexError(index)
                self.lists[i].insert(at, item)
    ''')


def test_a_method_called_on_self_gives_hints_to_the_parameters_passed_to_it():
    vs = function_versions(BARREL_OLD, "m.py")
    v = vs["Barrel.insert"]
    assert (["index"], ["-1", "0", "1"], False) in D._callee_hints(v, D._Scope(v))
    # not a static method's (its first parameter is no ``self``), nor the
    # method itself, nor ``self`` passed on
    src = d('''
        class K:
            @staticmethod
            def _check(a, b):
                return b == 7

            def run(self, a, b):
                self._check(b, a)
                return self.run(a, b)
        ''')
    k = function_versions(src, "m.py")["K.run"]
    assert D._callee_hints(k, D._Scope(k)) == []


def test_a_length_test_gives_the_other_length_and_items_shaped_as_they_are_used():
    vs = function_versions(BARREL_OLD, "m.py")
    v = vs["Barrel.insert"]
    hints = D._hints(v.node, D._Scope(v))
    lists = [h for h in hints if h[0] == ["self", "lists"]]
    assert lists and lists[0][1][:2] == ["[[0, 1] for _ in range(1)]",
                                         "[[0, 1] for _ in range(2)]"], lists
    # the two sublists are lists of their own, not one list twice
    made = eval(lists[0][1][1])
    assert made[0] is not made[1]
    node = ast.parse("def f(x, y, z):\n    x[0].get(1)\n    y[1][0]\n    len(z[0])\n")
    f, (x, y, z) = node.body[0], (ast.Name(id=n, ctx=ast.Load()) for n in "xyz")
    assert D._item_shape(f, x) == "{'a': 1}"
    assert D._item_shape(f, y) == "[0, 1]"
    assert D._item_shape(f, z) is None
    # a test of a length against more values keeps its own lengths
    sized = d('''
        def f(data):
            if len(data) > 3:
                return data
            return None
        ''')
    fv = function_versions(sized, "m.py")["f"]
    got = [h for h in D._hints(fv.node, D._Scope(fv)) if h[0] == ["data"]]
    assert got[0][1] == ["[0] * 2", "[0] * 3", "[0] * 4", "b'1' * 4", "'1' * 4"], got


def test_an_isinstance_test_of_a_slice_or_a_range_gets_one():
    assert eval(D._sample_of("slice")) == slice(1, 3)
    assert list(eval(D._sample_of("range"))) == [1, 2]
    # a sorted list's ``__getitem__`` that returns a slice within the
    # first sublist early, where it went on to the end before
    old = d('''
        class Rows:
            def __init__(self):
                self.rows = [[1, 2, 3], [4, 5]]

            def __getitem__(self, index):
                rows = self.rows
                if isinstance(index, slice):
                    start, stop, step = index.indices(sum(map(len, rows)))
                    flat = [x for r in rows for x in r]
                    return flat[start:stop:step]
                return rows[0][index]
        ''')
    new = old.replace("flat = [x for r in rows for x in r]",
                      "flat = rows[0] if stop <= 2 else [x for r in rows for x in r]")
    fa, fb, (lo, ln) = _versions(old, new, "Rows.__getitem__")
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, lo, ln)]
    assert "aimed: index = slice(1, 3)" in notes, notes


#: an inline parser's rule: an image past the depth limit is kept as text;
#: the new version keeps the rest of the source with it
IMAGE_OLD = d('''
    def parse_image(inline, m, state):
        pos = m.end()
        marker = m.group(0)
        is_image = marker[0] == "!"
        if is_image and inline.max_depth > 0 and state.depth >= inline.max_depth:
            state.tokens.append(("text", marker))
            return pos
        return None
    ''')
IMAGE_NEW = IMAGE_OLD.replace('state.tokens.append(("text", marker))\n        return pos',
                              'state.tokens.append(("text", marker + "..."))\n'
                              '        return pos + 1')


def test_every_part_of_a_guard_is_made_to_hold_in_one_input():
    fa, fb, (lo, ln) = _versions(IMAGE_OLD, IMAGE_NEW, "parse_image")
    assert IMAGE_NEW != IMAGE_OLD and ln
    changed, guards = D._changed_nodes(fb, ln)
    (raw, stmts, edge, names), = D._conjunction_hints(fb, changed, guards, D._Scope(fb))
    # the match's first character from ``is_image = marker[0] == "!"``,
    # ``max_depth > 0``, and ``depth >= max_depth`` from the value chosen
    assert raw == "RAW" and names == ["m", "inline", "state"], (stmts, names)
    assert stmts[0] == "m = __import__('re').match('(?s).*', '!x')"
    assert "inline.max_depth = 1" in stmts and "state.depth = 1" in stmts, stmts
    assert eval(stmts[0].partition(" = ")[2]).group(0) == "!x"
    # a group after the first: the groups before it empty
    grouped = IMAGE_OLD.replace("m.group(0)", "m.group(2)")
    ga, gb, (_, gn) = _versions(grouped, IMAGE_NEW.replace("m.group(0)", "m.group(2)"),
                                "parse_image")
    got = D._conjunction_hints(gb, *D._changed_nodes(gb, gn), D._Scope(gb))
    m = eval(got[0][1][0].partition(" = ")[2])
    assert m.group(2) == "!x" and m.group(1) == "", got
    # changed lines under the ``else`` of the guard: not this input's to make
    other = IMAGE_OLD.replace("\n    return None", "\n    else:\n        return None")
    oa, ob, (_, on) = _versions(other, other.replace("return None", "return 0"),
                                "parse_image")
    oc, og = D._changed_nodes(ob, on)
    assert other != IMAGE_OLD and og and oc
    assert D._conjunction_hints(ob, oc, og, D._Scope(ob)) == []


def _found_and_rewrite_kept(old: str, new: str, rewrite: str, function: str,
                            rewrite_verdict: str = "") -> None:
    """The edit ``old`` -> ``new`` is "changed"; ``rewrite``, the same body
    in other words, is not (and is ``rewrite_verdict`` where one is given)."""
    c = compare_sources(old, new, function)
    assert c.verdict == "changed", c.detail
    assert rewrite != old
    kept = compare_sources(old, rewrite, function)
    assert kept.verdict != "changed" and kept.verdict == (rewrite_verdict or kept.verdict), \
        kept.detail


def test_a_change_under_a_guard_of_several_parts_is_reached_and_changed():
    _found_and_rewrite_kept(IMAGE_OLD, IMAGE_NEW, IMAGE_OLD.replace(
        'state.tokens.append(("text", marker))',
        'token = ("text", marker)\n        state.tokens.append(token)'), "parse_image")


# an early exit before the changed line: ``mode`` must be one of two texts
# and ``size`` at most 10 at once, or the function leaves before it
EXIT_OLD = textwrap.dedent('''
    def pick(mode, size, limit):
        if mode not in ("rb", "wb") or size > 10:
            return None
        if limit is not None:
            return limit
        return mode * size
''')
EXIT_NEW = EXIT_OLD.replace("return mode * size", "return mode * (size + 1)")


def test_the_tests_of_early_exits_before_the_change_are_made_to_fail_in_one_input():
    fa, fb, (lo, ln) = _versions(EXIT_OLD, EXIT_NEW, "pick")
    assert EXIT_NEW != EXIT_OLD and ln
    changed, guards = D._changed_nodes(fb, ln)
    assert [ast.unparse(t) for t in D._early_exits(fb, sorted(ln))] == \
        ["mode not in ('rb', 'wb') or size > 10", "limit is not None"]
    (raw, stmts, edge, names), = D._conjunction_hints(fb, changed, guards, D._Scope(fb))
    assert raw == "RAW" and sorted(names) == ["limit", "mode", "size"], (stmts, names)
    env: dict = {}
    exec("\n".join(stmts), env)
    assert env["mode"] in ("rb", "wb") and env["size"] <= 10 and env["limit"] is None
    # an exit after the changed line, or one whose body holds it, is not one
    after = EXIT_OLD.replace("        return limit\n", "        return limit * 2\n")
    aa, ab, (_, an) = _versions(EXIT_OLD, after, "pick")
    assert [ast.unparse(t) for t in D._early_exits(ab, sorted(an))] == \
        ["mode not in ('rb', 'wb') or size > 10"]
    # a test that cannot be negated plainly (``and``, ``isinstance``) gives no part
    assert D._negated_parts(ast.parse("a > 1 and b", mode="eval").body) == []
    assert D._negated_parts(ast.parse("isinstance(a, int)", mode="eval").body) == []


def test_a_change_behind_early_exits_is_reached_and_changed():
    _found_and_rewrite_kept(EXIT_OLD, EXIT_NEW, EXIT_OLD.replace(
        "return mode * size", "n = size\n    return mode * n"), "pick")


# a decorator factory whose wrapper takes only ``*args``: called with none,
# ``key(*args)`` raises before the changed line (the cache hit)
CACHED_OLD = textwrap.dedent('''
    def cached(cache, key=hash):
        def decorator(func):
            def wrapper(*args):
                k = key(*args)
                if k in cache:
                    return cache[k]
                v = cache[k] = func(*args)
                return v
            return wrapper
        return decorator
''')
CACHED_NEW = CACHED_OLD.replace("return cache[k]", "return (cache[k],)")


def test_a_wrapper_taking_only_args_is_called_with_one_argument():
    _found_and_rewrite_kept(CACHED_OLD, CACHED_NEW, CACHED_OLD.replace(
        "return cache[k]", "hit = cache[k]\n                return hit"), "cached")


# a memoizer whose cache is its own: the first call always misses, so only a
# second call with the same arguments runs the changed line
MEMO_OLD = textwrap.dedent('''
    def memo(func):
        seen = {}
        def wrapper(*args):
            if args in seen:
                return ("hit", seen[args])
            seen[args] = func(*args)
            return seen[args]
        return wrapper
''')
MEMO_NEW = MEMO_OLD.replace('("hit", seen[args])', '("cached", seen[args])')


def test_a_change_only_a_second_call_of_the_wrapper_runs_is_reached_and_changed():
    _found_and_rewrite_kept(MEMO_OLD, MEMO_NEW, MEMO_OLD.replace(
        'return ("hit", seen[args])', 'got = seen[args]\n            return ("hit", got)'),
        "memo", rewrite_verdict="same")


# a guard of a prefix test through ``lower()`` and a truth test: both parts
# made to hold in one input
CERT_OLD = textwrap.dedent('''
    def cert_verify(conn, url, verify):
        if url.lower().startswith("https") and verify:
            loc = None
            if verify is not True:
                loc = verify
            if not loc:
                loc = "bundle.zip"
            return loc
        return None
''')
CERT_NEW = CERT_OLD.replace('loc = "bundle.zip"', 'loc = "bundle.pem"')


def test_a_prefix_test_and_a_truth_test_are_made_to_hold_together():
    fa, fb, (lo, ln) = _versions(CERT_OLD, CERT_NEW, "cert_verify")
    assert CERT_NEW != CERT_OLD and ln
    changed, guards = D._changed_nodes(fb, ln)
    (raw, stmts, edge, names), = D._conjunction_hints(fb, changed, guards, D._Scope(fb))
    assert raw == "RAW" and sorted(names) == ["url", "verify"], (stmts, names)
    assert "url = 'https'" in stmts and "verify = True" in stmts, stmts
    # ``not x`` of a parameter: None; a tuple of prefixes: the first
    other = CERT_OLD.replace('url.lower().startswith("https") and verify',
                             'url.endswith((".pem", ".crt")) and not verify')
    oa, ob, (_, on) = _versions(other, other.replace('"bundle.zip"', '"b"'), "cert_verify")
    got = D._conjunction_hints(ob, *D._changed_nodes(ob, on), D._Scope(ob))
    assert "url = '.pem'" in got[0][1] and "verify = None" in got[0][1], got
    c = compare_sources(CERT_OLD, CERT_NEW, "cert_verify")
    assert c.verdict == "changed", c.detail


# a class the module imports (``from collections import OrderedDict``; a
# package's own ``from .version import Version`` alike): the change is
# under an ``isinstance`` test of it
ORDERED_OLD = textwrap.dedent('''
    from collections import OrderedDict
    from typing import List


    def keys_of(mapping):
        if isinstance(mapping, OrderedDict):
            return list(mapping)
        if isinstance(mapping, List):
            return mapping
        return sorted(mapping)
''')
ORDERED_NEW = ORDERED_OLD.replace("return list(mapping)", "return list(mapping) or None")


def test_an_isinstance_test_of_an_imported_class_gets_an_instance_of_it():
    fa, fb, (lo, ln) = _versions(ORDERED_OLD, ORDERED_NEW, "keys_of")
    assert ORDERED_NEW != ORDERED_OLD and ln
    scope = D._Scope(fb)
    # a spelling of a type from ``typing`` is no class to make one of
    assert scope.imported_classes == {"OrderedDict"}, scope.imported_classes
    notes = [n for _, n, _ in D.aimed_inputs(fa, fb, lo, ln)]
    assert "aimed: mapping = _LxLate('OrderedDict', True)" in notes, notes
    assert not any("'List'" in n for n in notes), notes
    # an empty OrderedDict reaches the changed line: [] -> None
    _found_and_rewrite_kept(ORDERED_OLD, ORDERED_NEW, ORDERED_OLD.replace(
        "return list(mapping)", "return [k for k in mapping]"), "keys_of")


# a method whose object's attribute (made up: nothing sets it) reaches
# ``os.path.join``, which wants a text: a TypeError on every input before
# the changed line, until the attribute is given one
FINDER_OLD = textwrap.dedent('''
    import os


    class Finder:
        def __init__(self, module):
            self.base = os.path.dirname(getattr(module, "__file__", ""))

        def path_of(self, name):
            parts = name.split("/")
            parts.insert(0, self.base)
            result = os.path.join(*parts)
            return result
''')
FINDER_NEW = FINDER_OLD.replace("        return result", "        return result + os.sep")


def test_a_made_up_attribute_a_typeerror_wants_a_text_is_given_one():
    fa, fb, (lo, ln) = _versions(FINDER_OLD, FINDER_NEW, "Finder.path_of")
    assert FINDER_NEW != FINDER_OLD and ln
    text = "expected str, bytes or os.PathLike object, not Dummy"
    assert D.made_up_attributes(fb, ["base"], text) == [("self.base", "'a'")]
    # what the message asks for: bytes, a list, a number; else a text and a number
    assert D.made_up_attributes(fb, ["base"], "a bytes-like object is required, "
                                "not 'Dummy'") == [("self.base", "b'a'")]
    assert D.made_up_attributes(fb, ["base"], "'Dummy' object is not iterable") == \
        [("self.base", "['a']")]
    assert D.made_up_attributes(fb, ["base"], "unsupported operand type(s) for +: "
                                "'int' and 'Dummy'") == [("self.base", "1")]
    assert D.made_up_attributes(fb, ["base"], "odd") == [("self.base", "'a'"),
                                                         ("self.base", "1")]
    # not a method called on a parameter (``name.split``: ``name`` wants a
    # text), not an attribute the function only writes, not one it lacks
    assert D.made_up_attributes(fb, ["split", "insert", "other"], text) == []
    written = FINDER_OLD.replace("result = os.path.join(*parts)",
                                 "result = self.result = os.path.join(*parts)")
    wa, wb, _ = _versions(written, written.replace("return result", "return result * 2"),
                          "Finder.path_of")
    assert D.made_up_attributes(wb, ["result"], text) == []
    _found_and_rewrite_kept(FINDER_OLD, FINDER_NEW, FINDER_OLD.replace(
        "        return result", "        return str(result)"), "Finder.path_of")


def test_a_made_up_address_attribute_is_given_an_absolute_address():
    # ``self.cache_url(request.url)`` normalises the address and raises "Only
    # absolute URIs are allowed" on ``'a'``: an attribute whose name says it
    # holds an address gets one with a scheme and a host
    src = FINDER_OLD.replace("self.base", "self.base_url")
    fa, fb, _ = _versions(src, src.replace("return result", "return result * 2"),
                          "Finder.path_of")
    text = "expected str, bytes or os.PathLike object, not Dummy"
    assert D.made_up_attributes(fb, ["base_url"], text) == \
        [("self.base_url", "'https://example.com/a'")]
    assert D.made_up_attributes(fb, ["base_url"], "'Dummy' object is not iterable") == \
        [("self.base_url", "['a']")]                    # a list stays a list
    assert D._text_for("request.urlopen", "'a'") == "'a'"   # no address by its name
    assert D._text_for("self.uris", "'a'") == "'https://example.com/a'"


# a parser that raises unless its pattern matches, whose edit sits under
# an optional group that takes part (``-py3.8``) while another (``-arch``)
# does not
EGG_OLD = textwrap.dedent(r'''
    import re

    egg_re = re.compile(r"(?P<name>.+?)-(?P<ver>.+?)(-(?P<pyver>py\d\.\d+)(-(?P<arch>.+?))?)?\.egg$")


    def egg_tags(filename):
        m = egg_re.match(filename)
        if not m:
            raise ValueError("not an egg: " + filename)
        tags = {"name": m.group("name")}
        if m.group("pyver"):
            tags["abi"] = m.group("pyver").replace("py", "cp")
            if m.group("arch"):
                tags["platform"] = m.group("arch")
        return tags
''')
EGG_NEW = EGG_OLD.replace(
    '        tags["abi"] = m.group("pyver").replace("py", "cp")\n'
    '        if m.group("arch"):\n',
    '        if m.group("arch"):\n'
    '            tags["abi"] = m.group("pyver").replace("py", "cp")\n')


def test_a_text_a_pattern_matches_is_aimed_at_its_subject_each_group_taking_part_or_not():
    fa, fb, (lo, ln) = _versions(EGG_OLD, EGG_NEW, "egg_tags")
    assert EGG_NEW != EGG_OLD and ln
    got = [h for h in D._hints(fb.node, D._Scope(fb)) if h[0] == ["filename"]]
    texts = [eval(t) for t in got[0][1]]
    rx = re.compile(r"(?P<name>.+?)-(?P<ver>.+?)(-(?P<pyver>py\d\.\d+)(-(?P<arch>.+?))?)?\.egg$")
    assert texts and all(rx.match(t) for t in texts), texts
    # with the arch and without it, without the Python version
    takes_part = {(rx.match(t).group("pyver") is not None, rx.match(t).group("arch") is not None)
                  for t in texts}
    assert {(True, True), (True, False), (False, False)} <= takes_part, texts
    _found_and_rewrite_kept(EGG_OLD, EGG_NEW, EGG_OLD.replace(
        'tags = {"name": m.group("name")}', 'tags = dict(name=m.group("name"))'), "egg_tags")


# a definition made only where an import of the standard library fails
# (a fallback for an older Python): this one never runs it
FALLBACK_OLD = textwrap.dedent('''
    try:
        from json import JSONDecodeError
    except ImportError:
        class JSONDecodeError(ValueError):
            pass

        def decode_error(msg):
            return JSONDecodeError("bad json: " + msg)
''')
FALLBACK_NEW = FALLBACK_OLD.replace('"bad json: "', '"Bad JSON: "')


def test_a_definition_only_a_failed_import_makes_is_not_run_here():
    from lexecutor_c.apps.funcsource import import_fallback
    fa, fb, _ = _versions(FALLBACK_OLD, FALLBACK_NEW, "decode_error")
    assert import_fallback(fb) == "from json import JSONDecodeError"
    c = compare_sources(FALLBACK_OLD, FALLBACK_NEW, "decode_error")
    assert c.verdict == "undecided" and "never runs here" in c.detail, c.detail
    # an import that fails here, or one from outside the standard library:
    # the definition is this Python's, and the edit shows
    for imp in ("from json import no_such_name", "from lexecutor_c_absent import x"):
        old = FALLBACK_OLD.replace("from json import JSONDecodeError", imp)
        new = FALLBACK_NEW.replace("from json import JSONDecodeError", imp)
        assert import_fallback(_versions(old, new, "decode_error")[1]) is None
        assert compare_sources(old, new, "decode_error").verdict == "changed"


# a decorator factory whose inner ``wrap(func)`` now copies the decorated
# function's name and docstring onto what it returns
APPLY_OLD = textwrap.dedent('''
    import functools


    def compose(f, g):
        return lambda *args, **kwargs: f(g(*args, **kwargs))


    def apply(transform):
        def wrap(func):
            return compose(transform, func)
        return wrap
''')
APPLY_NEW = APPLY_OLD.replace("return compose(transform, func)",
                              "return functools.wraps(func)(compose(transform, func))")


def test_a_closure_parameter_named_for_a_function_is_given_one():
    from lexecutor_c.apps import funcrun

    def wrap(func, key, callback=None):
        return func

    got = funcrun._closure_args(wrap, {}, lambda _i, name, _f: f"<made-up {name}>")
    assert got == [funcrun._lx_passed, "<made-up key>"], got
    assert funcrun._lx_passed(3, 4) == 3 and funcrun._lx_passed() is None
    _found_and_rewrite_kept(APPLY_OLD, APPLY_NEW, APPLY_OLD.replace(
        "return compose(transform, func)",
        "composed = compose(transform, func)\n        return composed"), "apply")


# numbers read by a compiled pattern, each part's leading zeros now taken off:
# the pattern's own texts (``\d+`` gives ``1``) never carry a leading zero
DOTTED_OLD = textwrap.dedent('''
    import re

    LEADING_NUMBER = re.compile(r"^\\d+(?:\\.\\d+){0,2}")


    def dotted(text):
        found = LEADING_NUMBER.match(text)
        if found is None:
            raise ValueError("no number at the start of %r" % text)
        numbers = text[:found.end()].split(".")
        while len(numbers) < 3:
            numbers.append("0")
        return ".".join(numbers)
''')
DOTTED_NEW = DOTTED_OLD.replace(
    '    return ".".join(numbers)\n',
    '    return ".".join(n.lstrip("0") or "0" for n in numbers)\n')


def test_what_the_changed_lines_strip_is_put_into_the_texts_a_pattern_matches():
    fa, fb, (lo, ln) = _versions(DOTTED_OLD, DOTTED_NEW, "dotted")
    changed, _ = D._changed_nodes(fb, ln)
    got = [h for h in D._stripped_hints(fb, changed, D._Scope(fb)) if h[0] == ["text"]]
    texts = [eval(t) for h in got for t in h[1]]
    rx = re.compile(r"^\d+(?:\.\d+){0,2}")
    # each one matched by the pattern, a zero at the start of one of its parts
    assert texts and all(rx.match(t) for t in texts), texts
    assert all(any(p.startswith("0") for p in rx.match(t).group().split(".")) for t in texts)
    # none of the pattern's own texts has one: the edit was "same" without them
    assert not any(p.startswith("0") for t in D._pattern_texts(rx.pattern, 0, "match")
                   for p in t.split("."))
    _found_and_rewrite_kept(DOTTED_OLD, DOTTED_NEW, DOTTED_OLD.replace(
        '    return ".".join(numbers)\n',
        '    joined = ".".join(numbers)\n    return joined\n'), "dotted")


# a parameter stripped in the changed line itself: a text that starts with it
TAG_OLD = textwrap.dedent('''
    def tag_number(tag):
        return tag.strip()
''')
TAG_NEW = TAG_OLD.replace("tag.strip()", 'tag.strip().removeprefix("v")')


def test_a_parameter_stripped_on_the_changed_line_is_given_a_text_with_that_end():
    fa, fb, (lo, ln) = _versions(TAG_OLD, TAG_NEW, "tag_number")
    changed, _ = D._changed_nodes(fb, ln)
    hints = D._stripped_hints(fb, changed, D._Scope(fb))
    assert (["tag"], ["'v1'"], False) in hints, hints
    # characters taken off the other end, or no constant: nothing
    for other in ('tag.strip().removesuffix("v")', "tag.strip().lstrip(chars)"):
        fb2 = _versions(TAG_OLD, TAG_OLD.replace("tag.strip()", other), "tag_number")[1]
        changed2, _ = D._changed_nodes(fb2, {fb2.first_line + 1})
        assert ["tag"] not in [h[0] for h in D._stripped_hints(fb2, changed2, D._Scope(fb2))
                               if h[1] == ["'v1'"]]
    _found_and_rewrite_kept(TAG_OLD, TAG_NEW, TAG_OLD.replace(
        "return tag.strip()", "cleaned = tag.strip()\n    return cleaned"), "tag_number")


# an environment variable that holds only separators now counts as unset:
# the run's own environment does not hold the variable at all
ROOTS_OLD = textwrap.dedent('''
    import os


    def search_roots(fallback="/usr/share"):
        raw = os.environ.get("LX_SEARCH_PATH", "").strip()
        if raw:
            return [p for p in raw.split(os.pathsep) if p.strip()]
        return [fallback]
''')
ROOTS_NEW = ROOTS_OLD.replace(
    '''    raw = os.environ.get("LX_SEARCH_PATH", "").strip()
    if raw:
        return [p for p in raw.split(os.pathsep) if p.strip()]
''', '''    roots = [p.strip() for p in os.environ.get("LX_SEARCH_PATH", "").split(os.pathsep)
             if p.strip()]
    if roots:
        return roots
''')


def test_an_environment_variable_read_on_the_changed_lines_is_set_before_the_call():
    fa, fb, (lo, ln) = _versions(ROOTS_OLD, ROOTS_NEW, "search_roots")
    assert ROOTS_NEW != ROOTS_OLD and lo and ln
    changed, guards = D._changed_nodes(fa, lo)
    hints = D._environ_hints(changed, guards, D._Scope(fa))
    import os
    assert [h[1][0] for h in hints] == [
        f"__import__('os').environ['LX_SEARCH_PATH'] = {v!r}" for v in
        ("/tmp/lx-env", f"/tmp/lx-env-a{os.pathsep}/tmp/lx-env-b", os.pathsep, " ")]
    # a name not the os module's, or a variable named by no text: nothing
    for other in ('config.get("LX_SEARCH_PATH", "")', 'os.environ.get(name, "")'):
        fo = _versions(ROOTS_OLD.replace('os.environ.get("LX_SEARCH_PATH", "")', other),
                       ROOTS_NEW, "search_roots")[0]
        ch, gu = D._changed_nodes(fo, {fo.first_line + 1})
        assert D._environ_hints(ch, gu, D._Scope(fo)) == []
    c = compare_sources(ROOTS_OLD, ROOTS_NEW, "search_roots")
    assert c.verdict == "changed", c.detail
    assert "LX_SEARCH_PATH" in c.evidence["distinguishing_input"]["note"], c.evidence
    # the same reading in other words is not
    kept = compare_sources(ROOTS_OLD, ROOTS_OLD.replace(
        'raw = os.environ.get("LX_SEARCH_PATH", "").strip()',
        'raw = os.environ.get("LX_SEARCH_PATH", "")\n    raw = raw.strip()'), "search_roots")
    assert kept.verdict != "changed", kept.detail


# a branch taken for one member of an Enum the module defines: the parameter
# compared with it gets that member, made once the module ran
REASON_OLD = textwrap.dedent('''
    import enum


    class Reason(enum.Enum):
        ASKED = 1
        FULL = 2


    def removed(log, key, reason):
        log.append(key)
        if reason == Reason.FULL:
            log.append("evicted")
        return len(log)
''')
REASON_NEW = REASON_OLD.replace('log.append("evicted")', 'log.append("evicted: " + str(key))')


def test_a_parameter_compared_with_a_member_of_a_module_class_is_given_that_member():
    fa, fb, (lo, ln) = _versions(REASON_OLD, REASON_NEW, "removed")
    hints = [h for h in D._hints(fb.node, D._Scope(fb)) if h[0] == ["reason"]]
    assert any("_LxLate('Reason.FULL')" in h[1] for h in hints), hints
    # a class the module imports is not this kind (its own hints)
    fi = _versions(REASON_OLD.replace("class Reason(enum.Enum)", "class Other(enum.Enum)")
                   .replace("import enum\n", "import enum\nfrom reasons import Reason\n"),
                   REASON_NEW, "removed")[0]
    assert not any("_LxLate('Reason.FULL')" in h[1] for h in D._hints(fi.node, D._Scope(fi))
                   if h[0] == ["reason"])
    c = compare_sources(REASON_OLD, REASON_NEW, "removed")
    assert c.verdict == "changed", c.detail
    assert "Reason.FULL" in c.evidence["distinguishing_input"]["note"], c.evidence
    kept = compare_sources(REASON_OLD, REASON_OLD.replace(
        "if reason == Reason.FULL:", "if Reason.FULL == reason:"), "removed")
    assert kept.verdict != "changed", kept.detail


# a parser of "||"-joined groups of " "-separated blocks, each matched by a
# class pattern filled in with str.format, whose numbers come after a
# wildcard's letters in their alternation: the edit is under a number
RANGES_OLD = textwrap.dedent('''
    import re

    NUMBER = r"x|\\*|[1-9][0-9]*"


    class Ranges:
        BLOCK = re.compile(r"^(?P<op><|>=|)(?P<major>{n})\\.(?P<minor>{n})$".format(n=NUMBER))

        @classmethod
        def parse(cls, text):
            out = []
            for group in text.split("||"):
                for block in group.strip().split(" "):
                    m = cls.BLOCK.match(block)
                    if not m:
                        raise ValueError("bad block %r" % block)
                    if m.group("major") in ("x", "*"):
                        out.append(("any",))
                        continue
                    major, minor = int(m.group("major")), int(m.group("minor"))
                    if m.group("op") == "<":
                        out.append(("lt", major, minor))
                    else:
                        out.append(("ge", major, minor))
            return out
''')
RANGES_NEW = RANGES_OLD.replace('out.append(("lt", major, minor))',
                                'out.append(("le", major, minor - 1))')


def test_a_piece_of_a_split_parameter_gets_the_texts_its_pattern_matches_numbers_among_them():
    fa, fb, (lo, ln) = _versions(RANGES_OLD, RANGES_NEW, "Ranges.parse")
    assert ln
    # the class pattern is read through str.format, its subject traced back
    # through the loops over pieces to the parameter
    assert D._text_origin(fb.node, "block", ["cls", "text"]) == "text"
    assert D._text_origin(fb.node, "m", ["cls", "text"]) is None
    got = [h for h in D._hints(fb.node, D._Scope(fb)) if h[0] == ["text"]]
    texts = [eval(t) for h in got for t in h[1]]
    assert "<21.21" in texts, texts
    c = compare_sources(RANGES_OLD, RANGES_NEW, "Ranges.parse")
    assert c.verdict == "changed", c.detail
    kept = compare_sources(RANGES_OLD, RANGES_OLD.replace(
        'out.append(("lt", major, minor))', 'out.append(tuple(["lt", major, minor]))'),
        "Ranges.parse")
    assert kept.verdict != "changed", kept.detail


def test_a_loop_straight_over_a_parameter_is_no_text_piece_of_it():
    fn = ast.parse(textwrap.dedent('''
        def f(items, text):
            for item in items:
                m = P.match(item)
            first = text.split(",")[0]
            for word in first.split():
                P.match(word)
    ''')).body[0]
    assert D._text_origin(fn, "item", ["items", "text"]) is None
    assert D._text_origin(fn, "word", ["items", "text"]) == "text"
    assert D._text_origin(fn, "first", ["items", "text"]) == "text"


def test_imports_of_a_treefix_prefix_that_shadow_the_module_s_own_names_are_dropped():
    pre = "from typing import Never, Any\nimport os.path\nNever = 3\n"
    got = D._without_module_names(pre, {"Never", "os"})
    assert "from typing import Any" in got and "Never = 3" in got
    assert "import os" not in got and "typing import Never" not in got
    # nothing to drop, or no Python: the prefix as it was
    assert D._without_module_names(pre, {"Other"}) == pre
    assert D._without_module_names("def (:", {"Never"}) == "def (:"


# a comparison that answers only for an object of the method's own class,
# by the object's: ``other`` gets an instance of it
TOKEN_OLD = textwrap.dedent('''
    class Token:
        def __init__(self, kind):
            self.kind = kind

        def matches(self, other):
            if not isinstance(other, self.__class__):
                return False
            return True
''')
TOKEN_NEW = TOKEN_OLD.replace("return True", "return other is self")


def test_an_isinstance_test_of_the_object_s_own_class_gives_an_instance_of_the_method_s_class():
    fa, fb, (lo, ln) = _versions(TOKEN_OLD, TOKEN_NEW, "Token.matches")
    hints = [h for h in D._hints(fb.node, D._Scope(fb)) if h[0] == ["other"]]
    assert any("_LxLate('Token', True)" in h[1] for h in hints), hints
    c = compare_sources(TOKEN_OLD, TOKEN_NEW, "Token.matches")
    assert c.verdict == "changed", c.detail
    kept = compare_sources(TOKEN_OLD, TOKEN_OLD.replace("return True", "return not False"),
                           "Token.matches")
    assert kept.verdict != "changed", kept.detail


# a representation that now shows the object's id: the new version's value
# is another each run, and still no value the old version gives
REPR_OLD = textwrap.dedent('''
    class Box:
        def __init__(self):
            self.items = []

        def __repr__(self):
            return f"{type(self).__name__}({self.items!r})"
''')
REPR_NEW = REPR_OLD.replace('f"{type(self).__name__}({self.items!r})"',
                            'f"{type(self).__name__}(id={id(self)}, n={len(self.items)})"')


def test_values_that_differ_beyond_the_digits_a_rerun_changes_are_a_difference():
    assert B._digits_masked("Box(id=140, n=10)") == "Box(id=0, n=0)"
    assert B._digits_masked(1) is None
    assert B._beyond_noise("Box([])", "Box([])", "Box(id=140, n=0)", "Box(id=977, n=0)")
    # both versions show an id: what differs is the id alone
    assert not B._beyond_noise("Box(id=1)", "Box(id=2)", "Box(id=3)", "Box(id=4)")
    # digits a run may give either version (an address spelled out): noise,
    # also where two runs of one version happened to agree on some of them
    assert not B._beyond_noise("1-0-0-3", "1-0-0-3", "1-0-2-2", "1-0-5-2")
    assert B._beyond_noise("1-0-0-3", "1-0-0-3", "1+0+2+2", "1+0+5+2")
    # runs that differ in more than digits (hash order): not this rule's
    assert not B._beyond_noise("{'a', 'b'}", "{'b', 'a'}", "x", "x")
    assert not B._beyond_noise("a", "a", "b", "b")      # both steady: not this rule's
    got = B._reproduced(["ret"], {"outcome": "returned", "ret": "Box([])"},
                        {"outcome": "returned", "ret": "Box(id=140, n=0)"},
                        {"outcome": "returned", "ret": "Box([])"},
                        {"outcome": "returned", "ret": "Box(id=977, n=0)"})
    assert got == ["ret"]
    c = compare_sources(REPR_OLD, REPR_NEW, "Box.__repr__")
    assert c.verdict == "changed", c.detail
    both = REPR_NEW.replace('f"{type(self).__name__}(id={id(self)}, n={len(self.items)})"',
                            '"%s(id=%d, n=%d)" % (type(self).__name__, id(self), len(self.items))')
    kept = compare_sources(REPR_NEW, both, "Box.__repr__")
    assert kept.verdict != "changed", kept.detail


# the file a path's method looks at is part of the call, as a function's
# argument is: another name for the configuration file
CONFIG_OLD = textwrap.dedent('''
    import pathlib

    ROOT = pathlib.Path("project")


    def excluded():
        config = ROOT / ".github" / "release.yml"
        if config.exists():
            return {"bot"}
        return set()
''')
CONFIG_NEW = CONFIG_OLD.replace('"release.yml"', '"release.yaml"')


def test_a_method_of_a_path_is_traced_with_the_path_it_is_called_on():
    import pathlib
    from lexecutor_c.apps.funcrun import _with_receiver
    p = pathlib.PurePosixPath("a/b.yml")
    assert _with_receiver(p.with_suffix, (".yaml",)) == (p, ".yaml")
    assert _with_receiver("a".upper, ()) == ()
    assert _with_receiver(len, ([1],)) == ([1],)
    c = compare_sources(CONFIG_OLD, CONFIG_NEW, "excluded")
    assert c.verdict == "changed", c.detail
    assert "release.yaml" in c.detail, c.detail
    kept = compare_sources(CONFIG_OLD, CONFIG_OLD.replace(
        'ROOT / ".github" / "release.yml"', 'ROOT.joinpath(".github", "release.yml")'),
        "excluded")
    assert kept.verdict != "changed", kept.detail


# a flag the constructor takes out of ``**kwargs``, now warned about: the
# input passes ``partial=True``
FIELD_OLD = textwrap.dedent('''
    import warnings


    class Field:
        def __init__(self, *args, **kwargs):
            self.partial = kwargs.pop("partial", False)
            self.coerce = kwargs.pop("coerce", False)
            self.rest = dict(kwargs)
''')
FIELD_NEW = FIELD_OLD.replace('''        self.partial = kwargs.pop("partial", False)
''', '''        self.partial = kwargs.pop("partial", False)
        if self.partial:
            warnings.warn("partial is going away", DeprecationWarning, stacklevel=2)
''')
assert FIELD_NEW != FIELD_OLD


def test_an_item_of_kwargs_a_test_reads_through_an_attribute_is_passed_by_keyword():
    fa, fb, (lo, ln) = _versions(FIELD_OLD, FIELD_NEW, "Field.__init__")
    scope = D._Scope(fb)
    assert scope.resolved(["self", "partial"]) == ["kwargs", ("item", "partial")]
    hints = [h for h in D._hints(fb.node, scope) if h[0] == ["kwargs", ("item", "partial")]]
    assert any("True" in h[1] for h in hints), hints
    from lexecutor_c.apps.funcrun import _with_varkw

    def f(a, b=1, **kw):
        return kw
    kwargs = {}
    _with_varkw(f, kwargs, ("kw",), ["kw"], {"kw": {"partial": True, "b": 3, "1x": 0}})
    assert kwargs == {"partial": True}
    _with_varkw(f, kwargs, ("kw",), [], {"kw": {"other": 1}})     # not given: as it was
    assert kwargs == {"partial": True}
    c = compare_sources(FIELD_OLD, FIELD_NEW, "Field.__init__")
    assert c.verdict == "changed", c.detail
    assert "partial is going away" in c.detail, c.detail
    kept = compare_sources(FIELD_NEW, FIELD_NEW.replace(
        'self.partial = kwargs.pop("partial", False)',
        'self.partial = kwargs.pop("partial") if "partial" in kwargs else False'),
        "Field.__init__")
    assert kept.verdict != "changed", kept.detail


# a method that now returns a copy of its object where it returned the
# object itself: equal values, and a caller that changes what it got now
# leaves the object as it was
STACK_OLD = textwrap.dedent('''
    import copy


    class Stack:
        def __init__(self):
            self.items = [1, 2]

        def trimmed(self, level):
            if level == "all":
                return self
            return Stack()
''')
STACK_NEW = STACK_OLD.replace("return self\n", "return copy.copy(self)\n")


def test_a_returned_object_the_caller_already_holds_is_told_from_a_copy():
    from lexecutor_c.apps.funcrun import _alias_of
    box, items = object(), [1]
    assert _alias_of(box, box, (), {}, ()) == "<self itself>"
    assert _alias_of(items, None, (0, items), {}, ()) == "<argument 1 itself>"
    assert _alias_of(items, None, (), {"into": items}, ()) == "<argument into itself>"
    assert _alias_of(list(items), None, (items,), {}, ()) is None
    # values whose identity no caller can tell: not named
    text = "a"
    assert _alias_of(text, None, (text,), {}, ()) is None
    assert _alias_of(None, None, (None,), {}, ()) is None
    c = compare_sources(STACK_OLD, STACK_NEW, "Stack.trimmed")
    assert c.verdict == "changed", c.detail
    assert "itself" in c.detail, c.detail
    kept = compare_sources(STACK_OLD, STACK_OLD.replace('if level == "all":',
                                                        'if "all" == level:'), "Stack.trimmed")
    assert kept.verdict != "changed", kept.detail


# a property that reaches a base class's method through another property
# (the base class not there: made up); os.path.join wants a text of it
DIRS_OLD = textwrap.dedent('''
    import os

    from .api import PlatformDirsABC


    class Android(PlatformDirsABC):
        @property
        def user_cache_dir(self):
            return self._append_app_name_and_version("/data/cache")

        @property
        def user_log_dir(self):
            path = self.user_cache_dir
            if self.opinion:
                path = os.path.join(path, "log")
            return path
''')
DIRS_NEW = DIRS_OLD.replace('''            path = os.path.join(path, "log")
''', '''            path = os.path.join(path, "log")
            self._optionally_create_directory(path)
''')
assert DIRS_NEW != DIRS_OLD


def test_a_base_class_method_the_class_calls_on_its_object_answers_the_kind_a_typeerror_wants():
    fa, fb, _ = _versions(DIRS_OLD, DIRS_NEW, "Android.user_log_dir")
    got = D.made_up_attributes(fb, ["opinion", "_append_app_name_and_version"],
                               "expected str, bytes or os.PathLike object, not Dummy")
    assert got == [("self.opinion", "'a'"),
                   ("self._append_app_name_and_version", "(lambda *a, **k: 'a')")], got
    # a name the class defines itself, or never calls on its object: not one
    assert D._own_calls(fb, ["user_cache_dir", "join"]) == []
    c = compare_sources(DIRS_OLD, DIRS_NEW, "Android.user_log_dir")
    assert c.verdict == "changed", c.detail
    assert "_optionally_create_di" in c.detail, c.detail
    kept = compare_sources(DIRS_OLD, DIRS_OLD.replace('os.path.join(path, "log")',
                                                      'os.path.join(path, "l" + "og")'),
                           "Android.user_log_dir")
    assert kept.verdict != "changed", kept.detail


# a container's equality that read the peer's values and dropped them (a
# lazily built store: ``try: self._cells`` / ``except AttributeError``, the
# slot numbers unpacked from ``range``)
BAG_OLD = textwrap.dedent('''
    KEY, VALUE = range(2)


    class Bag(dict):
        def _cells(self):
            try:
                return self._store
            except AttributeError:
                self._store = []
                return self._store

        def __setitem__(self, k, v):
            self._cells().append((k, v))
            super().__setitem__(k, v)

        def __iter__(self):
            return iter([c[KEY] for c in self._cells()])

        def __eq__(self, other):
            if len(other) != len(self):
                return False
            for k in self:
                try:
                    other[k] == self[k]
                except KeyError:
                    return False
            return True
''')
BAG_NEW = BAG_OLD.replace('''                other[k] == self[k]
''', '''                if other[k] != self[k]:
                    return False
''')
assert BAG_NEW != BAG_OLD


def test_a_container_s_equality_is_tried_with_a_peer_of_its_entries_one_value_other():
    from lexecutor_c.apps.funcrun import _SAME, _filled, _peer
    bag = {}
    assert _filled(bag, ["k"], {}) is bag and bag == {"k": 1, "a": 2, "b": 3}
    assert _peer(bag, "peer") == {"k": 1, "a": 2, "b": 3}
    assert _peer(bag, "peerdiff") == {"k": 1, "a": 2, "b": 4}
    assert _peer({}, "peer") is _SAME and _peer({}, "peerdiff") is _SAME
    # items that are no keys of their container: a list of them
    assert _peer(["x", "y"], "peerdiff") == ["x", "yx"]

    # an object whose entries land in made-up state (built without
    # ``__init__``): for a peer, the class's own empty object is filled
    class Cells(dict):
        def __init__(self):
            super().__init__()
            self.order = []

        def __setitem__(self, k, v):
            self.order.append(k)
            super().__setitem__(k, v)

        def __iter__(self):
            return iter(self.order)

    def broken():
        o = Cells.__new__(Cells)
        o.order = [object()]
        return o
    kept = broken()
    assert _filled(kept, ["k"], {}) is kept
    got = _filled(broken(), ["k"], {}, fresh=True)
    assert type(got) is Cells and list(got) == ["k", "a", "b"], list(got)
    vs = function_versions(BAG_OLD + textwrap.dedent('''
        class Other(dict):
            def merge(self, x, other):
                pass

            @staticmethod
            def pair(a, other):
                pass
        '''), "m.py")
    assert [B._peer_param(vs[q]) for q in ("Bag.__eq__", "Other.merge", "Other.pair")] == \
        [0, 1, None]
    c = compare_sources(BAG_OLD, BAG_NEW, "Bag.__eq__")
    assert c.verdict == "changed", c.detail
    assert "peerdiff" in str(c.to_dict()["evidence"]["distinguishing_input"]), c.to_dict()
    kept = compare_sources(BAG_OLD, BAG_OLD.replace("if len(other) != len(self):",
                                                    "if not len(other) == len(self):"),
                           "Bag.__eq__")
    assert kept.verdict != "changed", kept.detail


def test_module_constants_a_tuple_unpacks_to_go_with_an_extracted_function():
    from lexecutor_c.apps import funcsource as S
    v = S.function_versions(BAG_OLD)["Bag.__iter__"]
    text = S.build_driver(v).text
    assert "KEY, VALUE = range(2)" in text, text


# build's _parse_build_system_table: where the table is missing, the module's
# default itself was returned (a caller that appended to its ``requires``
# changed the default for every later call); now a copy
DEFAULTS_OLD = textwrap.dedent('''
    _DEFAULT = {"requires": ["setuptools"], "backend": "setuptools.build_meta"}


    def build_system(table):
        if "build-system" not in table:
            return _DEFAULT
        return dict(table["build-system"])
''')
DEFAULTS_NEW = DEFAULTS_OLD.replace(
    "return _DEFAULT\n", 'return {**_DEFAULT, "requires": list(_DEFAULT["requires"])}\n')


def test_a_module_default_returned_itself_is_told_from_a_copy_of_it():
    from lexecutor_c.apps.funcrun import _alias_of
    shared = {"a": [1]}
    env = {"SHARED": shared, "_lx_x": shared, "LIMIT": 3}
    assert _alias_of(shared, None, (), {}, (), env) == "<global SHARED itself>"
    assert _alias_of(dict(shared), None, (), {}, (), env) is None
    assert _alias_of(3, None, (), {}, (), env) is None
    c = compare_sources(DEFAULTS_OLD, DEFAULTS_NEW, "build_system")
    assert c.verdict == "changed", c.detail
    assert "global _DEFAULT itself" in c.detail, c.detail
    kept = compare_sources(DEFAULTS_OLD, DEFAULTS_OLD.replace(
        'if "build-system" not in table:\n        return _DEFAULT',
        'if not "build-system" in table:\n        return _DEFAULT'), "build_system")
    assert kept.verdict != "changed", kept.detail


# wcwidth's split into modules: a helper of the module (``_parse_open(seq)``,
# real, answering None) replaced by a class imported from a new module
# (``HyperlinkParams.parse(seq)``), made up in extract mode: the one version
# returns the real None, the other what the stand-in's method returned
PARSE_OLD = textwrap.dedent('''
    import re

    _OPEN = re.compile(r"\\x1b]8;([^;]*);([^\\x07]*)\\x07")


    def _parse_open(seq):
        m = _OPEN.match(seq)
        return (m.group(2), m.group(1)) if m else None


    def track(text, state):
        for seq in text.split(" "):
            if seq.startswith("\\x1b]8;"):
                state = _parse_open(seq)
        return state
''')
PARSE_NEW = PARSE_OLD.replace("import re\n", "import re\n\nfrom .hyperlink import HyperlinkParams\n") \
    .replace("state = _parse_open(seq)", "state = HyperlinkParams.parse(seq)")


def test_a_real_helper_replaced_by_a_made_up_dependency_s_method_is_no_change():
    c = compare_sources(PARSE_OLD, PARSE_NEW, "track")
    assert c.verdict != "changed", c.detail
    real = {"outcome": "returned", "ret": "'None'",
            "calls": repr([["internal:_parse_open", ["'x'"], []]])}
    made = {"outcome": "returned", "ret": repr(["C_HyperlinkParams_parse_ret", [["url", "'u'"]]]),
            "calls": repr([["<input>.C_HyperlinkParams.parse", ["'x'"], []]])}
    assert B._apart_only_by_swapped(["ret", "calls"], real, made, {"HyperlinkParams"})
    # a stand-in of a name both versions read is no excuse, nor a real
    # callee beside it that differs
    assert not B._apart_only_by_swapped(["ret", "calls"], real, made, {"Other"})
    called = dict(made, calls=repr([["<input>.C_HyperlinkParams.parse", ["'x'"], []],
                                    ["os.remove", ["'x'"], []]]))
    assert not B._apart_only_by_swapped(["ret", "calls"], real, called, {"HyperlinkParams"})


# cachecontrol's "remove compat module": ``text_type(v)`` -> ``str(v)`` with
# ``text_type`` from the project's own compat module, which an extract does
# not have: the old version passed made-up values where the new one passes
# real texts, and nothing else differed
COMPAT_OLD = textwrap.dedent('''
    import pickle

    from .compat import text_type


    def pack(headers, reason, body):
        data = {
            "headers": dict((text_type(k), text_type(v)) for k, v in headers.items()),
            "reason": text_type(reason),
            "body": body,
        }
        return pickle.dumps(data)
''')
COMPAT_NEW = COMPAT_OLD.replace("from .compat import text_type\n", "").replace("text_type(", "str(")


def test_a_difference_only_where_a_dependency_one_version_alone_reads_is_made_up_is_no_change():
    c = compare_sources(COMPAT_OLD, COMPAT_NEW, "pack")
    assert c.verdict == "undecided", c.detail
    assert "text_type" in c.detail, c.detail
    # a real difference beside the swapped dependency is still found
    other = compare_sources(COMPAT_OLD, COMPAT_NEW.replace('"reason":', '"why":'), "pack")
    assert other.verdict == "changed", other.detail
    assert B._apart_only_by_swapped(
        ["ret"], {"ret": "['list', \"<Dummy 'text_type'>\", '1']"},
        {"ret": "['list', \"'a'\", '1']"}, {"text_type"})
    assert not B._apart_only_by_swapped(
        ["ret"], {"ret": "['list', \"<Dummy 'text_type'>\", '1']"},
        {"ret": "['list', \"'a'\", '2']"}, {"text_type"})
    # only globals the run cannot know: not a class the module defines
    # (``Spec(...)`` -> ``ModuleSpec(...)`` swaps one real class for
    # another), nor a name a parameter or an attribute also has (their
    # made-up values carry that name too)
    old = textwrap.dedent('''
        from .compat import text_type

        class Spec:
            pass

        def make(name, method=None):
            return Spec(text_type(name))
        ''')
    new = old.replace("Spec(text_type(name))", "ModuleSpec(str(name), method=method)") \
        .replace("from .compat", "from importlib.machinery import ModuleSpec\nfrom .compat")
    vo, vn = function_versions(old, "m.py")["make"], function_versions(new, "m.py")["make"]
    assert B._swapped_globals(vo, vn) == {"text_type", "ModuleSpec"}


# diskcache's args_to_key: no annotations, but a docstring that gives each
# parameter's type (``:param tuple base:``); the prefixes made ``base`` a
# number, and ``base + args`` failed alike in both versions
DOCTYPED_OLD = textwrap.dedent('''
    def cache_key(base, args, kwargs, typed):
        """The key of a call.

        :param tuple base: the key's start
        :param tuple args: positional arguments
        :param dict kwargs: keyword arguments
        :param bool typed: whether types count
        """
        key = base + args
        if kwargs:
            key += tuple(sorted(kwargs.items()))
        if typed:
            key += tuple(type(a) for a in args)
        return key
''')


def test_the_types_a_docstring_gives_its_parameters_make_inputs():
    new = DOCTYPED_OLD.replace("key = base + args\n", "key = base + args + (None,)\n")
    c = compare_sources(DOCTYPED_OLD, new, "cache_key")
    assert c.verdict == "changed", c.detail
    assert "None" in c.detail
    fn = ast.parse(textwrap.dedent('''
        def f(a, b, c, d, e):
            """Sphinx, Google and NumPy styles.

            :type a: str or None

            Args:
                b (int, optional): b
                c (list of str): c
                d (Widget): a class of the project's: no sample
            """
        def g(x, y):
            """NumPy.

            Parameters
            ----------
            x : tuple
            y : float, optional
            """
        ''')).body
    got = {k: ast.unparse(v) for k, v in D._doc_types(fn[0]).items()}
    assert got == {"a": "str | None", "b": "int", "c": "List[str]", "d": "Widget"}, got
    assert D._type_samples(D._doc_types(fn[0])["d"]) == []
    assert {k: ast.unparse(v) for k, v in D._doc_types(fn[1]).items()} == \
        {"x": "tuple", "y": "float"}


# distro's LinuxDistribution.__repr__: ``"...{self.x!r}...".format(self=self)``
# reads the object's attributes inside str.format, where no loader makes one
# up; the object (its __init__ reads files that are not there) lacked them
# and every run ended in the same AttributeError
FORMAT_REPR_OLD = textwrap.dedent('''
    import os


    class Release:
        def __init__(self, root):
            self.root = root
            self.info = self._read(os.path.join(root, "etc", "release"))
            self.level = self._read(os.path.join(root, "etc", "level"))

        def _read(self, path):
            with open(path) as f:
                return dict(line.strip().split("=", 1) for line in f if "=" in line)

        def __repr__(self):
            return (
                "Release("
                "root={self.root!r}, "
                "info={self.info!r})".format(self=self)
            )
''')


def test_attributes_str_format_reads_on_the_object_are_given_values():
    new = FORMAT_REPR_OLD.replace('"info={self.info!r})".format(self=self)',
                           '"info={self.info!r}, "\n            "level={self.level!r})"'
                           '.format(self=self)')
    assert new != FORMAT_REPR_OLD
    c = compare_sources(FORMAT_REPR_OLD, new, "Release.__repr__")
    assert c.verdict == "changed", c.detail
    assert "level=" in c.detail, c.detail
    v = function_versions(new, "m.py")["Release.__repr__"]
    assert B._format_fields(v, "self") == ["root", "info", "level"]
    assert B._MISSING_ATTR.match("'Release' object has no attribute 'info'").groups() == \
        ("Release", "info")


# cachecontrol's FileCache: the install hint of an optional dependency's
# ImportError reworded; the import never failed here (the package is
# installed), and the message, dedented, held the edited literal's words
# with other spaces
OPTIONAL_OLD = textwrap.dedent('''
    from textwrap import dedent


    class FileStore:
        def __init__(self, directory, lock_class=None):
            if lock_class is None:
                try:
                    from lockpkg import FileLock
                except ImportError:
                    notice = dedent(
                        """
                    NOTE: the file store needs its lock package.
                    Install it with:
                      pip install lockpkg
                    """
                    )
                    raise ImportError(notice)
                lock_class = FileLock
            self.directory = directory
            self.lock_class = lock_class
''')


def test_an_optional_import_is_made_to_fail_and_a_dedented_message_is_compared():
    new = OPTIONAL_OLD.replace("pip install lockpkg", "pip install store[locks]")
    assert new != OPTIONAL_OLD
    c = compare_sources(OPTIONAL_OLD, new, "FileStore.__init__")
    assert c.verdict == "changed", c.detail
    assert "store[locks]" in c.detail, c.detail
    assert B._holds_text("x\nNOTE: a b\n  c\n", "\n        NOTE: a b\n          c\n        ")
    assert not B._holds_text("NOTE: a b c", "NOTE: a b d")


# idna's valid_contextj: ``cp_value = ord(label[pos])`` compared with a code
# point; the text's character at the place a parameter gives was never aimed
# at (only a local bound to ``ord(char)`` of a parameter was), and the
# changed lines look at the characters before the place
JOINER_OLD = textwrap.dedent('''
    def joiner_allowed(label, pos):
        cp_value = ord(label[pos])
        if cp_value == 0x200c:
            if pos > 0:
                before = label[pos - 1]
                if before.isalpha():
                    return True
            return False
        return None
''')


def test_a_code_point_read_at_a_parameter_s_place_is_aimed_at_through_the_text():
    new = JOINER_OLD.replace("if before.isalpha():", "if before.isdigit():")
    c = compare_sources(JOINER_OLD, new, "joiner_allowed")
    assert c.verdict == "changed", c.detail
    v = function_versions(JOINER_OLD, "m.py")["joiner_allowed"]
    scope = D._Scope(v)
    assert scope.offsets.get("cp_value") == ("label", "pos") and "cp_value" in scope.ords


# diskcache's Deque.reverse called ``temp.close()``, which Deque lacks: the
# program raised AttributeError there, and the fix calls
# ``temp._cache.close()``.  A made-up ``close`` hid the error, and the check
# said "same".  Deque's bases are the standard library's, the module sets
# no attributes by name: its instances have what its text gives them.
CLOSED_OLD = textwrap.dedent('''
    from collections.abc import Sequence


    class Box(Sequence):
        def __init__(self, items=()):
            self.items = list(items)

        def __getitem__(self, i):
            return self.items[i]

        def __len__(self):
            return len(self.items)

        def flip(self):
            temp = Box(reversed(self.items))
            self.items = list(temp)
            temp.close()
            return self.index(self.items[0]) if self.items else -1
''')


def test_an_attribute_a_class_of_the_module_never_has_is_not_made_up():
    new = CLOSED_OLD.replace("temp.close()", "del temp")
    c = compare_sources(CLOSED_OLD, new, "Box.flip")
    assert c.verdict == "changed", c.detail
    assert "AttributeError" in c.detail, c.detail
    # the base's own methods (``index`` from Sequence) and the attributes
    # the module assigns stay as they are
    tree = ast.parse(CLOSED_OLD)
    closed = closed_classes(tree)
    assert closed["classes"] == ["Box"]
    assert {"items", "index", "flip"} <= set(closed["attrs"])
    assert "close" not in closed["attrs"]
    # a class of the project's base, a metaclass, a ``__getattr__``, or a
    # module that sets attributes by name: not closed, injection as before
    for text in (CLOSED_OLD.replace("from collections.abc import Sequence",
                                    "from .base import Sequence"),
                 CLOSED_OLD.replace("class Box(Sequence):", "class Box(Sequence, metaclass=M):"),
                 CLOSED_OLD.replace("    def flip(self):",
                                    "    def __getattr__(self, a):\n        return 1\n\n"
                                    "    def flip(self):"),
                 CLOSED_OLD + "\nsetattr(Box, 'close', lambda self: None)\n"):
        assert closed_classes(ast.parse(text))["classes"] == [], text
    opened = CLOSED_OLD.replace("from collections.abc import Sequence",
                                "from .base import Sequence")
    c = compare_sources(opened, opened.replace("temp.close()", "del temp"), "Box.flip")
    assert "AttributeError" not in c.detail, c.detail
    # raised on a changed line, it is the edit's own error, whatever the
    # other version did after with made-up values (the real Deque.reverse
    # went on to ``rmtree`` of a made-up directory and failed there)
    miss = {"outcome": "raised:AttributeError", "line": 7, "closed_miss": ["close"],
            "message": "'Box' object has no attribute 'close'"}
    later = {"outcome": "raised:TypeError", "line": 9,
             "message": "lstat: path should be string, bytes or os.PathLike, not Dummy"}
    assert B._closed_miss_at_edit(miss, later, {7}, {7})
    assert not B._closed_miss_at_edit(miss, later, {8}, {8})
    assert not B._closed_miss_at_edit(dict(miss, closed_miss=["open"]), later, {7}, {7})
    # an attribute some statement of the module assigns is made up as before
    # (an object built without its ``__init__``, an attribute set from outside)
    given = CLOSED_OLD + "\n\ndef shut(box):\n    box.close = lambda: None\n"
    c = compare_sources(given, given.replace("temp.close()", "del temp"), "Box.flip")
    assert "AttributeError" not in c.detail, c.detail


# requirements-parser's VCS_REGEX is built from a sibling module's scheme
# names ('|'.join(s.replace('+', r'\+') for s in VCS_SCHEMES)): reading the
# text cannot tell the pattern, so no input matched it and the branch the
# edit changed (a URI's login kept) was never run.  The runs report the
# patterns as the module built them; the parameter they are applied to is
# then given texts they match, with and without each optional part.
BUILT_PATTERN_OLD = textwrap.dedent(r'''
    import re

    SCHEMES = ["git", "git+ssh", "hg+https"]
    URI = re.compile(
        "^(?P<scheme>" + "|".join(s.replace("+", r"\+") for s in SCHEMES) + ")://"
        r"((?P<login>[^/@]+)@)?(?P<path>[^#@]+)(#(?P<fragment>\S+))?")


    def parse_uri(line):
        m = URI.match(line)
        if m is None:
            return None
        groups = m.groupdict()
        if groups["fragment"]:
            key, _, value = groups["fragment"].partition("=")
            if not value:
                raise ValueError("bad fragment " + groups["fragment"])
        return "{scheme}://{path}".format(**groups)
''')


def test_a_pattern_the_module_builds_from_names_is_aimed_at_as_built():
    new = BUILT_PATTERN_OLD.replace(
        '    return "{scheme}://{path}".format(**groups)',
        '    if groups["login"]:\n'
        '        return "{scheme}://{login}@{path}".format(**groups)\n'
        '    return "{scheme}://{path}".format(**groups)')
    assert new != BUILT_PATTERN_OLD
    c = compare_sources(BUILT_PATTERN_OLD, new, "parse_uri")
    assert c.verdict == "changed", c.detail
    assert "@" in c.detail, c.detail
    # the texts: the first with every optional part, then one per shape
    texts = B._spread(D.regexdiff.member_samples(
        r"^(?P<s>git|hg)://((?P<login>[^/@]+)@)?(?P<path>[^#@]+)(#(?P<f>\S+))?", 0, 400, 400), 6)
    assert texts[0] == "git://a@a#1"
    # (the login left out, the fragment left out; ``hg://a@a#1`` has the
    # first one's shape)
    assert texts == ["git://a@a#1", "git://a#1", "git://a@a"]


# installer's _determine_scheme: ``posixpath.commonprefix([data_dir, path])``
# -> ``posixpath.commonpath([data_dir, path])``.  The two agree on most
# paths, the inputs never gave one on which they differ, and the mutants
# of the line (operators, constants) let "same" pass.  The runs record
# the swapped functions' arguments; a parameter passed on as it was is
# varied until the two differ here (an absolute path: commonpath raises).
SWAPPED_OLD = textwrap.dedent('''
    import posixpath


    def scheme(path, data_dir):
        if posixpath.commonprefix([data_dir, path]) != data_dir:
            return "root", path
        return "data", path
''')


def test_a_computing_function_swapped_for_another_is_told_apart_on_varied_inputs():
    new = SWAPPED_OLD.replace("commonprefix", "commonpath")
    c = compare_sources(SWAPPED_OLD, new, "scheme")
    assert c.verdict == "changed", c.detail
    from lexecutor_c.apps import callees as CL
    vo = function_versions(SWAPPED_OLD, "m.py")["scheme"]
    vn = function_versions(new, "m.py")["scheme"]
    lo, ln = changed_lines(vo, vn)
    assert CL.swapped_calls(vo, vn, lo, ln) == [("posixpath.commonprefix",
                                                 "posixpath.commonpath")]
    # ``os.path`` is ``posixpath``; a name the module binds is not the builtin
    assert CL.resolve("os.path.commonpath", {"os": "os"}, set()) == "posixpath.commonpath"
    assert CL.resolve("max", {}, set()) == "builtins.max"
    assert CL.resolve("max", {}, {"max"}) is None
    assert CL.resolve("os.remove", {"os": "os"}, set()) is None
    pair = ("posixpath.commonprefix", "posixpath.commonpath")
    rec = [["posixpath.commonprefix", [["list", "'pkg.data'", "'pkg.data/x'"]], []]]
    assert CL.told_apart(pair, rec) == (1, False)
    assert CL.telling_values(pair, rec, {"path": "'pkg.data/x'"})[0][0] == "path"
    apart = [["posixpath.commonpath", [["list", "'pkg.data'", "'pkg.data2'"]], []]]
    assert CL.told_apart(pair, apart) == (1, True)
    # inputs alike that never gave the two an argument on which they
    # differ: no "same"
    runs = [(None, {"watched": rec}, {"watched": rec})]
    assert "agree on each of the 2 argument lists" in B._swaps_never_apart([pair], runs)
    assert B._swaps_never_apart([pair], [(None, {"watched": apart}, {})]) is None


# installer's WheelFile: ``raise _WheelFileBadDistInfo(...)``, a class of the
# module built on ``InstallerError`` from the project's own exceptions
# module.  In an extract both were made-up values, and raising one failed
# with "exceptions must derive from BaseException" on every input.
EXC_OLD = textwrap.dedent('''
    from .exceptions import InstallerError


    class BadName(ValueError, InstallerError):
        pass


    def check(name):
        if not name.isidentifier():
            raise BadName(name)
        return name.lower()
''')


def test_the_project_s_exception_classes_are_classes_in_an_extract():
    from lexecutor_c.apps.funcsource import build_driver
    v = function_versions(EXC_OLD, "pkg/m.py")["check"]
    text = build_driver(v).text
    assert "class BadName(ValueError, InstallerError):" in text
    assert "InstallerError = __lx_exc__('InstallerError', Exception)" in text
    new = EXC_OLD.replace("return name.lower()", "return name.upper()")
    c = compare_sources(EXC_OLD, new, "check")
    assert c.verdict == "changed", c.detail
    # a caught or raised name of the project's is an exception class; an
    # input's prefix that made one already is kept
    raising = EXC_OLD.replace("raise BadName(name)", "raise InstallerError(name)")
    c = compare_sources(raising, raising.replace("raise InstallerError(name)",
                                                 "raise InstallerError(name + '!')"), "check")
    assert c.verdict == "changed", c.detail
    assert "raises InstallerError" in c.detail or "message" in c.detail, c.detail


# distro's info(): ``dict(id=...)`` -> ``InfoDict(id=...)``, a TypedDict of
# the module: the same dict.  The class was made up in an extract, and its
# made-up answer differed from the dict.
RECORD_OLD = textwrap.dedent('''
    from typing import TypedDict


    class Info(TypedDict):
        id: str
        version: str


    def info(name, version):
        return dict(id=name.lower(), version=version)
''')


def test_a_typeddict_of_the_module_is_kept_and_a_prefix_value_is_no_global():
    new = RECORD_OLD.replace("return dict(", "return Info(")
    c = compare_sources(RECORD_OLD, new, "info")
    assert c.verdict == "same", c.detail
    # what an input's prefix bound and the function returned is not the
    # module's shared global
    from lexecutor_c.apps.funcrun import _alias_of
    made = {"_r_Info": {"key": 1}}
    env = dict(made, SHARED={"a": 1})
    assert _alias_of(made["_r_Info"], None, (), {}, (), env, made) is None
    assert _alias_of(env["SHARED"], None, (), {}, (), env, made) == "<global SHARED itself>"


# distlib's Page.links: the prefix made ``self.data = [1, 0]`` and
# ``self._href.finditer(self.data)`` raised "expected string or bytes-like
# object, got 'list'" on every input.  The input is tried again with that
# value a text, one the line's pattern matches first.
TEXTED_OLD = textwrap.dedent(r'''
    import re


    class Page:
        _href = re.compile(r'href="(?P<url>[^"]+)"')

        def __init__(self, data):
            self.data = data

        def links(self):
            out = []
            for m in self._href.finditer(self.data):
                out.append(m.group("url").strip())
            return out
''')


def test_a_prefix_container_where_a_line_wants_a_text_is_made_a_text():
    vo = function_versions(TEXTED_OLD, "m.py")["Page.links"]
    r = {"outcome": "raised:TypeError", "line": 13,
         "message": "expected string or bytes-like object, got 'list'"}
    assert B._wrongly_typed("_self = C()\n_self.data = [1, 0]\nself = _self\n", r, vo) == \
        ["_self.data"]
    assert B._wrongly_typed("_self.other = [1, 0]\n", r, vo) == []
    assert B._wrongly_typed("_self.data = 'x'\n", r, vo) == []
    texts = B._line_pattern_texts(vo, 13)
    assert texts and all(re.search(r'href="[^"]+"', t) for t in texts), texts


def test_one_operand_of_a_changed_boolean_test_holds_and_the_other_fails():
    old = d('''
        def pick(count, mode):
            if count > 0 and mode == "r":
                return "read"
            return "skip"
        ''')
    new = old.replace(" and ", " or ")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "pick")
    changed, _ = D._changed_nodes(fb, ch_n)
    got = [" / ".join(h[1]) for h in D._operand_hints(fb, changed, D._Scope(fb))]
    # ``count > 0`` holds and ``mode == "r"`` fails, and the reverse: where
    # ``and`` and ``or`` part; the conjunction's hint has both hold
    assert any("count = 1" in g and "mode = 'xr'" in g for g in got), got
    assert any("count = 0" in g and "mode = 'r'" in g for g in got), got
    # (on the old version's ``and``)
    changed_o, _ = D._changed_nodes(fa, ch_o)
    conj = [" / ".join(h[1]) for h in D._conjunction_hints(fa, changed_o, [], D._Scope(fa))]
    assert conj and "count = 1" in conj[0] and "mode = 'r'" in conj[0], conj
    # a test without a boolean operator gives none
    one = d('''
        def pick(count, mode):
            if count > 0:
                return "read"
            return "skip"
        ''')
    fa, fb, (ch_o, ch_n) = _versions(one, one.replace("> 0", "> 1"), "pick")
    changed, _ = D._changed_nodes(fb, ch_n)
    assert D._operand_hints(fb, changed, D._Scope(fb)) == []


def test_an_own_raise_in_one_version_and_a_wrong_type_error_in_the_other_is_a_change():
    old = d('''
        class Locked(Exception):
            pass

        def release(self, name):
            if isinstance(self, BaseException) and name in ("__notes__",):
                BaseException.__delattr__(self, name)
                return
            raise Locked
        ''')
    new = old.replace(" and name", " or name")
    c = compare_sources(old, new, "release")
    assert c.verdict == "changed", c.detail
    # the rule itself: an aimed input, one version at its own ``raise``
    # with an exception of its own, the other failing elsewhere on a value
    # of the wrong type
    inp = B.Input("", note="aimed: self = ValueError('a'), name = 'x'")
    ro = {"outcome": "raised:Locked", "message": "", "line": 9}
    rn = {"outcome": "raised:AttributeError", "line": 7,
          "message": "'ValueError' object has no attribute 'x'"}
    own = (frozenset({9}), frozenset({9}))
    assert not B._artefact(ro, rn, inp, (), own)
    assert not B._artefact(rn, ro, inp, (), own)
    # not at a ``raise`` of its own (a failure on an invalid value), not an
    # aimed input, or both failing on wrong types: no evidence
    assert B._artefact(dict(ro, line=8), rn, inp, (), own)
    assert B._artefact(ro, rn, B.Input("", note="seed 0"), (), own)
    assert B._artefact(dict(ro, outcome="raised:TypeError"), rn, inp, (), own)
    # an attribute the code asks for by name (``expr.isdigit()`` on a
    # tuple): a value of the wrong type, no evidence
    assert B._artefact(ro, rn, inp, (), own, frozenset({"x"}))
    # a bare re-raise passes on what failed: no line of its own
    v = function_versions(d('''
        def f(x):
            try:
                return x()
            except KeyError:
                raise
            raise ValueError("no")
        '''), "m.py")["f"]
    assert B._deliberate_lines(v) == frozenset({6})
    assert B._asked_attributes(v) == frozenset()


def test_a_piece_of_each_line_compared_with_a_literal_gets_lines_holding_it():
    old = d('''
        def parse(lines):
            props = {}
            for line in lines:
                kv = line.strip("\\n").split(":", 1)
                if len(kv) != 2:
                    continue
                k, v = kv
                props[k.lower()] = v.strip()
            return props
        ''')
    new = d('''
        def parse(lines):
            props = {}
            for line in lines:
                kv = line.strip("\\n").split(":", 1)
                if len(kv) != 2:
                    continue
                k, v = kv[0], kv[1].strip()
                if v == "n/a":
                    v = ""
                props[k.lower()] = v
            return props
        ''')
    fa, fb, (ch_o, ch_n) = _versions(old, new, "parse")
    changed, guards = D._changed_nodes(fb, ch_n)
    got = D._piece_hints(fb, changed, guards, D._Scope(fb))
    # a list whose line's second piece after the one split is the literal
    assert (["lines"], ["['x:n/a']"], False) in got, got
    assert compare_sources(old, new, "parse").verdict == "changed"
    # a piece of a text split without a literal separator: no value
    other = new.replace('split(":", 1)', "split(sep, 1)").replace("parse(lines)",
                                                                     "parse(lines, sep)")
    fa, fb, (ch_o, ch_n) = _versions(other, other.replace('"n/a"', '"none"'), "parse")
    changed, guards = D._changed_nodes(fb, ch_n)
    assert D._piece_hints(fb, changed, guards, D._Scope(fb)) == []


def test_an_attribute_the_edit_sets_to_its_own_constant_is_no_made_up_difference():
    old = d('''
        def from_counting(cls, ca):
            return cls(ca.alias, ca.default, inherited=False)
        ''')
    new = old.replace("inherited=False", "inherited=True")
    fa, fb, (ch_o, ch_n) = _versions(old, new, "from_counting")
    marks = B._edit_marks(fa, fb, ch_o, ch_n)
    assert {"inherited", "alias"} <= marks[0] and {"False", "True"} <= marks[1], marks

    def ret(inherited, extra=()):
        return repr(["Attribute", [["alias", "<Dummy 'alias'>"], ["inherited", inherited],
                                   *extra]])
    ro = {"outcome": "returned", "ret": ret("False"), "self": "<Dummy 'cls'>"}
    rn = {"outcome": "returned", "ret": ret("True"), "self": "<Dummy 'cls'>"}
    # made-up values all around, but what differs is the edit's constant
    assert not B._weak(["ret"], ro, rn, set(), False, marks=marks)
    assert B._weak(["ret"], ro, rn, set(), False)
    # a value that is none of the changed lines' constants, an attribute
    # holding a made-up value, or one the changed lines do not name: weak
    assert B._weak(["ret"], dict(ro, ret=ret("'a'")), dict(rn, ret=ret("'b'")), set(), False,
                   marks=marks)
    assert B._weak(["ret"], ro, dict(rn, ret=ret("<Dummy 'x'>")), set(), False, marks=marks)
    # an attribute one object lacks: weak unless the changed lines name it
    bare = repr(["Attribute", [["alias", "<Dummy 'alias'>"]]])
    assert not B._weak(["ret"], dict(ro, ret=bare), rn, set(), False, marks=marks)
    assert B._weak(["ret"], ro, dict(ro, ret=ret("False", [["other", "'x'"]])), set(), False,
                   marks=marks)


def test_a_dict_looked_up_with_a_tuple_gets_each_part_its_place_in_the_keys():
    old = d('''
        _LAUNCHERS: dict = {
            ("console", "win-ia32"): "t32.exe",
            ("gui", "win-amd64"): "w64.exe",
        }

        def launcher(section, kind):
            key = (section, kind)
            try:
                name = _LAUNCHERS[key]
            except KeyError:
                raise ValueError(key) from None
            return name.upper()
        ''')
    new = old.replace("name.upper()", "name.title()")
    fa, fb, _ = _versions(old, new, "launcher")
    scope = D._Scope(fb)
    # an annotated module dict is one the scope knows
    assert ("console", "win-ia32") in scope.dicts["_LAUNCHERS"]
    got = {tuple(p): vs for p, vs, _ in D._hints(fb.node, scope)}
    assert got.get(("section",), [])[:2] == ["'console'", "'gui'"], got
    assert got.get(("kind",), [])[:2] == ["'win-ia32'", "'win-amd64'"], got
    assert compare_sources(old, new, "launcher").verdict == "changed"


def test_a_callee_whose_none_result_the_changed_branch_needs_is_made_to_answer_none():
    old = d('''
        import re
        from .vcs import SCHEMES

        VCS_REGEX = re.compile("^(%s)://(.*)" % "|".join(SCHEMES))
        LOCAL_REGEX = re.compile(r"^file://(.*)#(.*)")

        def parse(line):
            vcs_match = VCS_REGEX.match(line)
            local_match: object = LOCAL_REGEX.match(line)
            if vcs_match is not None:
                return ("vcs", vcs_match.group(1))
            elif local_match is not None:
                return ("local", local_match.group(1))
            else:
                path, name = line.rsplit("/", 1)
                return ("path", path, name)
        ''')
    new = old.replace('path, name = line.rsplit("/", 1)', 'path, _, name = line.rpartition("/")')
    fa, fb, (ch_o, ch_n) = _versions(old, new, "parse")
    changed, guards = D._changed_nodes(fb, ch_n)
    hints, needed = D._predicate_hints(fb, changed, guards, D._Scope(fb))
    # both callees at once first (the ``else`` needs both results None)
    assert len(hints[0][1]) == 2 and all("_lx_answers(None)" in st for st in hints[0][1])
    assert {shown for _, shown in needed} == {"VCS_REGEX.match answering None",
                                              "LOCAL_REGEX.match answering None"}
    # from the files alone the sibling module is not there: the pattern is
    # made up, and its ``match`` never answers None but when told to
    c = compare_sources(old, new, "parse")
    assert c.verdict == "changed", c.detail
    # a parameter's, a builtin's or an imported module's call is not one
    body = d('''
        import re

        def parse(line, pattern):
            m = pattern.match(line)
            n = re.match("x", line)
            if m is None and n is None:
                return 1
            return 2
        ''')
    fb = function_versions(body, "m.py")["parse"]
    test = fb.node.body[2].test
    assert D._none_tests(test, True, fb, D._Scope(fb)) == []


def test_the_commands_a_function_runs_are_made_to_succeed_and_compared_by_their_arguments():
    old = d('''
        import subprocess
        from subprocess import check_call as run_checked

        def release(version):
            run_checked(["towncrier", "build", version])
            out = subprocess.check_output(["git", "status"], text=True)
            run_checked(["git", "tag", version])
            return out
        ''')
    new = old.replace('    run_checked(["git", "tag"',
                      '    run_checked(["docstrfmt", "CHANGELOG.rst"])\n    run_checked(["git", "tag"')
    assert new != old
    fa, fb, _ = _versions(old, new, "release")
    got = D._process_statements(fb, D._Scope(fb))
    assert len(got) == 1, got
    # the module's own name for it bound again once the module ran, the
    # module's function answering success, an output wanted as text a text
    assert "['run_checked'] = _lx_answers(0)" in got[0]
    assert "_lx_subprocess.check_call = _lx_answers(0)" in got[0]
    assert "_lx_subprocess.check_output = _lx_answers('')" in got[0]
    # no command of the machine runs: the versions differ in the commands
    # they would run
    c = compare_sources(old, new, "release")
    assert c.verdict == "changed" and "docstrfmt" in c.detail, c.detail
    # a function that runs none: nothing
    plain = d('''
        import subprocess

        def f(x):
            return subprocess.list2cmdline(x)
        ''')
    fp = function_versions(plain, "m.py")["f"]
    assert D._process_statements(fp, D._Scope(fp)) == []


# a memoizing decorator factory: the edits sit in the function it returns,
# under a guard the caller may pass (``guard=None``) and in what that
# function does with the keywords it is called with
MEMOIZE_OLD = textwrap.dedent('''
    import functools


    def default_key(*args, **kwargs):
        return (args, frozenset(kwargs.items()))


    def memoize(store, make_key=default_key, guard=None):
        def decorate(fn):
            if guard is None:
                def inner(*args, **kwargs):
                    k = make_key(*args, **kwargs)
                    if k in store:
                        return store[k]
                    result = fn(*args, **kwargs)
                    try:
                        store[k] = result
                    except ValueError:
                        pass
                    return result
            else:
                def inner(*args, **kwargs):
                    k = make_key(*args, **kwargs)
                    with guard:
                        if k in store:
                            return store[k]
                    result = fn(*args, **kwargs)
                    with guard:
                        store[k] = result
                    return result
            return functools.wraps(fn)(inner)
        return decorate
''')


def test_a_wrapper_taking_keywords_is_called_with_one():
    # ``make_key(*args)`` drops the keywords the wrapper got: two calls that
    # differ only in a keyword share an entry. Called with positional
    # arguments alone, the versions agreed on every input: a wrong "same"
    new = MEMOIZE_OLD.replace("                k = make_key(*args, **kwargs)\n"
                              "                if k in store:",
                              "                k = make_key(*args)\n"
                              "                if k in store:", 1)
    assert new != MEMOIZE_OLD
    _found_and_rewrite_kept(MEMOIZE_OLD, new, MEMOIZE_OLD.replace(
        "        return functools.wraps(fn)(inner)",
        "        wrapped = functools.wraps(fn)(inner)\n"
        "        return wrapped"), "memoize")


def test_a_parameter_a_wrapper_enters_is_given_a_lock():
    # ``guard=None`` read by ``if guard is None`` and entered by ``with
    # guard:`` in the wrapper: 1 and 'x' failed at the ``with`` before the
    # edit ran
    new = MEMOIZE_OLD.replace("                    store[k] = result\n                return",
                              "                    store[str(k)] = result\n                return")
    assert new != MEMOIZE_OLD
    fa, fb, (lo, ln) = _versions(MEMOIZE_OLD, new, "memoize")
    changed, guards = D._changed_nodes(fb, ln)
    alts = D._parameter_alternatives(fb, changed + [p for g in guards for p in D._headers(g)])
    assert (["guard"], ["__import__('threading').RLock()", "1", "'x'"], "value") in alts, alts
    c = compare_sources(MEMOIZE_OLD, new, "memoize")
    assert c.verdict == "changed", c.detail
    # called for what is entered (``with guard(self):``): a function answering one
    called = MEMOIZE_OLD.replace("with guard:", "with guard(args):")
    fc = function_versions(called, "m.py")["memoize"]
    alts = D._parameter_alternatives(fc, [fc.node])
    assert (["guard"], ["(lambda *a, **k: __import__('threading').RLock())", "1", "'x'"],
            "value") in alts, alts


def test_a_parameter_stored_into_under_a_handler_is_given_one_that_refuses():
    # ``try: store[k] = result / except ValueError: pass`` (a store refusing
    # what it cannot hold): only a store that raises there runs the handler
    new = MEMOIZE_OLD.replace("                except ValueError:\n                    pass\n",
                              "                except ValueError:\n                    return None\n")
    assert new != MEMOIZE_OLD
    fa, fb, (lo, ln) = _versions(MEMOIZE_OLD, new, "memoize")
    tries = [t for t in ast.walk(fb.node) if isinstance(t, ast.Try)]
    got = D._handler_hints(tries[0], D._Scope(fb))
    assert any(note == "store refuses every item with ValueError" for _, note in got), got
    ns: dict = {}
    exec(next(p for p, note in got if note.startswith("store refuses")), ns)
    with pytest.raises(ValueError):
        ns["store"]["k"] = 1
    c = compare_sources(MEMOIZE_OLD, new, "memoize")
    assert c.verdict == "changed", c.detail


LEDGER_OLD = textwrap.dedent('''
    class Ledger:
        def __init__(self):
            self.__balances = {}
            self.__moves = 0

        def deposit(self, account, amount):
            if account in self.__balances:
                self.__balances[account] = self.__balances[account] + amount
            else:
                self.__balances[account] = amount
            self.__moves += 1
            return self.__balances[account]
''')


def test_a_dict_whose_entries_are_counted_holds_numbers_at_the_key():
    # ``account in self.__balances`` and ``self.__balances[account] +
    # amount``: the key in the dict, and a number there (a text made ``+``
    # raise TypeError in both versions)
    new = LEDGER_OLD.replace("self.__balances[account] + amount",
                             "max(self.__balances[account], amount)")
    fa, fb, (lo, ln) = _versions(LEDGER_OLD, new, "Ledger.deposit")
    got = D._lookup_hints(fa, min(lo), D._Scope(fa))        # the old version adds
    assert got and all("self._Ledger__balances = {account: 1}" in h[1] for h in got), got
    c = compare_sources(LEDGER_OLD, new, "Ledger.deposit")
    assert c.verdict == "changed", c.detail


WAITING_OLD = textwrap.dedent('''
    import collections


    class Waiting:
        def __init__(self):
            self.__queue = collections.OrderedDict()

        def take(self):
            try:
                name = next(iter(self.__queue))
            except StopIteration:
                raise LookupError("nobody waits") from None
            del self.__queue[name]
            return name
''')


def test_a_private_attribute_the_prefix_sets_is_the_mangled_one_the_method_reads():
    # the Treefix prefix sets ``_self.__queue = [1, 2, 3]`` from outside the
    # class, where no mangling happens: the method read its own empty
    # ``_Waiting__queue`` on every input and the edit (the last name, not
    # the first) was a wrong "same"
    new = WAITING_OLD.replace("next(iter(self.__queue))", "next(reversed(self.__queue))")
    c = compare_sources(WAITING_OLD, new, "Waiting.take")
    assert c.verdict == "changed", c.detail
    kept = compare_sources(WAITING_OLD, WAITING_OLD.replace(
        "next(iter(self.__queue))", "next(iter(self.__queue.keys()))"), "Waiting.take")
    assert kept.verdict != "changed", kept.detail


BOX_OLD = textwrap.dedent('''
    class Box:
        def __init__(self, limit):
            self.__limit = limit
            self.items = []

        def getsize(self, value):
            return 1

        def add(self, value):
            size = self.getsize(value)
            if size > self.__limit:
                raise ValueError("too large")
            self.items.append(value)
            return len(self.items)
''')


def test_an_ordering_against_a_computed_value_gets_that_value_at_its_bound():
    # ``size > self.__limit`` -> ``>=``: ``size`` is computed (1), no literal
    # names the bound; the run reads it as the test is about to run and a
    # later input gives the object's attribute that value (a wrong "same":
    # no input had the limit at 1)
    guards = B._param_guards(function_versions(BOX_OLD, "m.py")["Box.add"])
    assert [g[1:] for g in guards] == [["self.__limit", "size", "=="]], guards
    new = BOX_OLD.replace("if size > self.__limit:", "if size >= self.__limit:")
    _found_and_rewrite_kept(BOX_OLD, new, BOX_OLD.replace(
        "if size > self.__limit:", "if self.__limit < size:"), "Box.add")
    # through a local bound once to the attribute too
    local = BOX_OLD.replace("        size = self.getsize(value)\n",
                            "        size = self.getsize(value)\n        limit = self.__limit\n"
                            ).replace("if size > self.__limit:", "if size > limit:")
    guards = B._param_guards(function_versions(local, "m.py")["Box.add"])
    assert [g[1:] for g in guards] == [["self.__limit", "size", "=="]], guards


ARCHIVE_OLD = textwrap.dedent('''
    import functools

    class Archive:
        def __init__(self, names):
            self._names = names

        @functools.cached_property
        def root(self):
            found = [n for n in self._names if n.endswith(".meta") and "/" not in n]
            if len(found) != 1:
                raise ValueError("not one .meta directory")
            return found[0]

        def members(self):
            base = self.root
            return [n[len(base) + 1:] for n in self._names
                    if n.startswith(base + "/")]
''')


def test_a_cached_property_raising_on_made_up_state_is_given_its_cached_value(monkeypatch):
    # ``self.root`` raises on the object's made-up names before the method's
    # own lines run; a cached property's value is what the object holds once
    # read: the input again with the value the prefix gives it cached
    old = function_versions(ARCHIVE_OLD, "m.py")["Archive.members"]
    assert B._cached_reads(old) == {"root": (9, 13)}
    seen = []
    run = B._Side.run

    def spy(self, inp, opts, *a, **k):
        r = run(self, inp, opts, *a, **k)
        seen.append((inp.note, inp.given, set(r.get("reached") or ())))
        return r
    monkeypatch.setattr(B._Side, "run", spy)
    new = ARCHIVE_OLD.replace('n.startswith(base + "/")', 'n.startswith(base)')
    compare_sources(ARCHIVE_OLD, new, "Archive.members")
    cached = [(g, r) for n, g, r in seen if n.endswith("(self.root cached)")]
    assert cached and all("self.root" in g for g, _ in cached), seen
    # past ``base = self.root`` (line 16): the method's return ran
    assert any(17 in r for _, r in cached), cached


REPORTING_OLD = textwrap.dedent('''
    import contextlib


    class Failed(Exception):
        def __init__(self, exception, description=None):
            super().__init__()
            self.exception = exception
            self.description = description


    @contextlib.contextmanager
    def reporting(log):
        try:
            yield
        except Failed as e:
            log.append(str(e.exception))
            raise SystemExit(1)
''')


def test_an_exception_is_thrown_into_a_generator_whose_handler_changed():
    # a context manager's handler around its ``yield`` runs only when the
    # ``with`` block raises: the exception it catches is thrown in there,
    # made with an exception for the parameter named ``exception``
    v = function_versions(REPORTING_OLD, "m.py")["reporting"]
    assert B._throw_sites(v, {17}) == ["Failed"]
    assert B._throw_sites(v, {15}) == []          # the yield itself: nothing to throw
    changed = REPORTING_OLD.replace("log.append(str(e.exception))",
                                    "log.append(repr(e.exception))")
    c = compare_sources(REPORTING_OLD, changed, "reporting")
    assert c.verdict == "changed", c.detail
    kept = compare_sources(REPORTING_OLD, REPORTING_OLD.replace(
        "log.append(str(e.exception))", "log.append('%s' % (e.exception,))"), "reporting")
    assert kept.verdict == "same", kept.detail


def test_the_exception_thrown_in_is_made_of_what_its_parameters_hold():
    import subprocess
    from lexecutor_c.apps.funcrun import _drain, _exception_args, _thrown
    env = {"subprocess": subprocess, "Failed": KeyError, "data": 3, "__builtins__": __builtins__}
    e = _thrown(["x", "throw:subprocess.CalledProcessError"], env)
    assert isinstance(e, subprocess.CalledProcessError) and e.returncode == 1 and e.cmd == ["cmd"]
    assert isinstance(_thrown(["throw:Failed"], env), KeyError)
    # no throw asked, not a class, not an exception, not a name, not bound
    for given in ([], ["throw:data"], ["throw:dict"], ["throw:__import__('os')"],
                  ["throw:Missing"]):
        assert _thrown(given, env) is None, given

    class Wraps(Exception):
        def __init__(self, exception, code, cmd, text, *, extra=None):
            super().__init__(text)
            self.exception, self.code, self.cmd = exception, code, cmd
    args = _exception_args(Wraps)
    assert isinstance(args[0], Exception) and args[1:] == (1, ["cmd"], "thrown")

    def gen():
        try:
            yield 1
        except KeyError:
            yield 2
        yield 3
    assert _drain(gen(), None, KeyError("k")) == ["<iterator>", 1, 2, 3]
    assert _drain(gen(), None, None) == ["<iterator>", 1, 3]
    with pytest.raises(ValueError):
        _drain(gen(), None, ValueError("v"))


def test_a_call_the_edit_writes_with_its_own_text_is_the_code_s_own():
    # the new version warns on a line the old handed to a made-up parser:
    # the warning, with the edit's text and no made-up value, is the code's
    # own call, not what a made-up value did
    marks = (frozenset({"Relative entry ", " is not supported", "x"}), frozenset())
    old = {"calls": repr([["<injected>", ["'.abc'"], []]])}
    new = {"calls": repr([["_warnings.warn", ["'Relative entry .abc is not supported'"],
                           [["stacklevel", "2"]]]])}
    assert B._edit_written_call(old, new, marks, set())
    assert B._edit_written_call(new, old, marks, set())
    assert not B._edit_written_call(old, new, marks, {"Entry"})     # a swapped dependency
    assert not B._edit_written_call(old, new, (frozenset({"x"}), frozenset()), set())
    # both warn (another text: the message field's matter), or the warning
    # shows a made-up value, or the callee is the input's own
    both = {"calls": repr([["_warnings.warn", ["'Relative entry .a is not supported'"], []]])}
    assert not B._edit_written_call(both, new, marks, set())
    made = {"calls": repr([["_warnings.warn", ["\"Relative entry <Dummy 'x'> is not supported\""],
                            []]])}
    assert not B._edit_written_call(old, made, marks, set())
    stand_in = {"calls": repr([["<input>.log", ["'Relative entry .abc is not supported'"], []]])}
    assert not B._edit_written_call(old, stand_in, marks, set())


PORT_OLD = textwrap.dedent('''
    import sys


    def parse_port(text):
        try:
            return int(text)
        except ValueError:
            err = sys.exc_info()[1]
            return "bad port: %s" % (err,)
''')


def test_reading_the_exception_being_handled_is_no_interaction():
    # ``sys.exc_info()[1]`` -> ``except ValueError as err``: asking the
    # interpreter which exception it handles is no call to the outside world
    # (it was the one difference, a wrong "changed")
    new = PORT_OLD.replace("    except ValueError:\n        err = sys.exc_info()[1]\n",
                           "    except ValueError as err:\n")
    assert new != PORT_OLD
    c = compare_sources(PORT_OLD, new, "parse_port")
    assert c.verdict != "changed", c.detail
    # what the handler does with it still counts
    c = compare_sources(PORT_OLD, PORT_OLD.replace('"bad port: %s"', '"bad port %s"'),
                        "parse_port")
    assert c.verdict == "changed", c.detail


def test_a_branch_that_skips_a_made_up_callee_is_the_code_s_own():
    # requirements-parser's ``parse``: a new branch skips ``--hash=`` lines,
    # which the old version still hands to ``Requirement.parse`` (imported
    # from a module the files do not have, so made up): the line decided
    # the branch in both versions alike
    old = d('''
        from .requirement import Requirement


        def parse(text):
            if not isinstance(text, str):
                text = text.read()
            for line in text.splitlines():
                line = line.strip()
                if not line or line.startswith('#'):
                    continue
                elif line.startswith('-r'):
                    continue
                else:
                    yield Requirement.parse(line)
        ''')
    new = old.replace("        elif line.startswith('-r'):",
                      "        elif line.startswith('--hash='):\n"
                      "            continue\n"
                      "        elif line.startswith('-r'):")
    assert new != old
    c = compare_sources(old, new, "parse")
    assert c.verdict == "changed", c.detail
    # the same lines skipped another way: no difference
    same = old.replace("line.startswith('-r')", "line[:2] == '-r'")
    assert compare_sources(old, same, "parse").verdict != "changed"
    # the rule itself: traces alike up to a made-up callee one run alone
    # calls with arguments of no made-up value, injections alike before it
    real = ["<input>.C_text.splitlines", [], []]
    a = {"calls": repr([real, ["<injected>", ["'--hash=x'"], []]]),
         "injected": [["name", "Requirement", 1], ["attribute", "parse", 9],
                      ["call", "parse", 9]]}
    b = {"calls": repr([real]), "injected": [["name", "Requirement", 1]]}
    assert B._branch_into_made_up(a, b) and B._branch_into_made_up(b, a)
    # a value injected for another name before the call (what the branch
    # may have decided on): no evidence
    b2 = dict(b, injected=[["name", "Requirement", 1]])
    a2 = dict(a, injected=[["name", "Requirement", 1], ["attribute", "flag", 5],
                           ["attribute", "parse", 9], ["call", "parse", 9]])
    assert not B._branch_into_made_up(a2, b2)
    # an argument that is itself made up: what a made-up value held
    a3 = dict(a, calls=repr([real, ["<injected>", ["<Dummy 'x'>"], []]]))
    assert not B._branch_into_made_up(a3, b)
    # the same made-up callee called with other arguments: not a branch
    b4 = dict(b, calls=repr([real, ["<injected>", ["'y'"], []]]), injected=a["injected"])
    assert not B._branch_into_made_up(a, b4)
    # another callee where the one version called the made-up one (the
    # same statement written otherwise: ``joining_types.get(c)`` ->
    # ``joining_types().get(c)``): no branch skipped
    b5 = dict(b, calls=repr([real, ["<input>.C_idnadata.joining_types", [], []]]))
    assert not B._branch_into_made_up(a, b5) and not B._branch_into_made_up(b5, a)
    # the same calls again after the skipped one: a branch still
    a6 = dict(a, calls=repr([real, ["<injected>", ["'--hash=x'"], []], real]))
    b6 = dict(b, calls=repr([real, real]))
    assert B._branch_into_made_up(a6, b6)


def test_a_name_a_feature_probe_binds_is_the_module_s_own():
    # more-itertools: ``try: zip(strict=True)`` / ``except TypeError:
    # _zip_strict = zip`` / ``else: _zip_strict = partial(zip, strict=True)``:
    # the function alone keeps the block, so the name is the module's, not
    # a stand-in an input makes up (which answered where zip raises)
    from lexecutor_c.apps.funcsource import build_driver
    old = d('''
        from functools import partial

        try:
            zip(strict=True)
        except TypeError:
            _zip_strict = zip
        else:
            _zip_strict = partial(zip, strict=True)


        def transpose(it):
            return _zip_strict(*it)
        ''')
    text = build_driver(function_versions(old, "m.py")["transpose"]).text
    assert "_zip_strict = partial(zip, strict=True)" in text and "zip(strict=True)" in text
    new = old.replace("return _zip_strict(*it)", "return zip(*it, strict=True)")
    assert compare_sources(old, new, "transpose").verdict != "changed"
    # a block that does more than probe and bind is no compat block
    busy = old.replace("    _zip_strict = zip", "    _zip_strict = zip\n    print('old')")
    assert "print('old')" not in build_driver(function_versions(busy, "m.py")["transpose"]).text


def test_what_a_helper_the_commit_changed_too_is_handed_is_its_own_business():
    # tabulate's ``_build_line``: ``_build_simple_row(cells, (begin, sep,
    # end))`` -> ``_build_simple_row(cells, DataRow(begin, sep, end))``, the
    # helper changed in the same commit to read the fields by name: the
    # argument differs, what comes of it does not
    old = d('''
        def _row(cells, fmt):
            begin, sep, end = fmt
            return begin + sep.join(cells) + end


        def build_line(cells, sep):
            return _row([str(c) for c in cells], ("|", sep, "|"))
        ''')
    new = old.replace('''    begin, sep, end = fmt
    return begin + sep.join(cells) + end''', '''    return fmt["begin"] + fmt["sep"].join(cells) + fmt["end"]''')
    new = new.replace('("|", sep, "|")', 'dict(begin="|", sep=sep, end="|")')
    assert new.count("dict(") == 1 and 'fmt["sep"]' in new
    c = compare_sources(old, new, "build_line")
    assert c.verdict != "changed", c.detail
    # the helper unchanged: what it is handed is the function's own doing
    same_helper = old.replace('("|", sep, "|")', '("[", sep, "]")')
    assert compare_sources(old, same_helper, "build_line").verdict == "changed"
    fa = function_versions(old, "m.py")["build_line"]
    fb = function_versions(new, "m.py")["build_line"]
    assert B._changed_helpers(fa, fb) == frozenset({"_row"})
    # the helper's parameters changed (annotations aside) and the call hands
    # the new one a value of its own (boltons' ``remap(..., cache=False)``):
    # that is asking the helper for something else
    asked = old.replace("def _row(cells, fmt):", "def _row(cells, fmt, lead=''):")
    asked = asked.replace("return begin + sep.join(cells) + end",
                          "return lead + begin + sep.join(cells) + end")
    asked = asked.replace('("|", sep, "|"))', '("|", sep, "|"), lead="> ")')
    assert asked.count("lead") == 3
    fc = function_versions(asked, "m.py")["build_line"]
    assert B._changed_helpers(fa, fc) == frozenset()
    assert compare_sources(old, asked, "build_line").verdict == "changed"
    # a positional parameter renamed, handed what the commit now hands it
    # (click's ``_tempfilepager(cmd_parts, color)`` ->
    # ``_tempfilepager(cmd_path, color)``): the same parameters
    renamed = new.replace("def _row(cells, fmt):", "def _row(cells, row_format):")
    renamed = renamed.replace('fmt["', 'row_format["')
    assert "fmt" not in renamed.split("def build_line")[0]
    assert B._changed_helpers(fa, function_versions(renamed, "m.py")["build_line"]) == \
        frozenset({"_row"})
    assert compare_sources(old, renamed, "build_line").verdict != "changed"
    typed = new.replace("def _row(cells, fmt):", "def _row(cells: list, fmt: dict) -> str:")
    assert B._changed_helpers(fa, function_versions(typed, "m.py")["build_line"]) == \
        frozenset({"_row"})
    shown = B._helper_calls_by_name(repr([["internal:_row", ["1"], []], ["os.getcwd", [], []]]),
                                    frozenset({"_row"}))
    assert B._parse_calls(shown) == [["internal:_row", [B._CHANGED_HELPER], []],
                                     ["os.getcwd", [], []]]


def test_a_dataclass_of_fields_alone_is_kept_in_the_function_alone_as_a_named_tuple_is():
    # tabulate's ``DataRow = namedtuple(...)`` rewritten as ``@dataclass
    # class DataRow: begin: str ...``: a made-up class in its place answers
    # made-up values where the named tuple was built for real
    from lexecutor_c.apps.funcsource import _record_class, build_driver
    src = d('''
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class DataRow:
            """A row's format."""
            begin: str
            sep: str = "|"


        class Table:
            rows: list

            def add(self, row):
                self.rows.append(row)


        def row(cells):
            fmt = DataRow("[")
            return fmt.begin + fmt.sep.join(cells)
        ''')
    mod = ast.parse(src)
    kinds = {n.name: _record_class(n) for n in mod.body if isinstance(n, ast.ClassDef)}
    assert kinds == {"DataRow": True, "Table": False}
    text = build_driver(function_versions(src, "m.py")["row"]).text
    assert "@dataclass(frozen=True)" in text and "class DataRow" in text
    assert compare_sources(src, src.replace('sep: str = "|"', 'sep: str = ","'),
                           "row").verdict == "changed"


def test_an_assertion_of_a_made_up_predicate_is_no_interaction():
    # requests' typed ``build_response``: ``assert _is_prepared(req)`` added
    # for a type checker, ``_is_prepared`` imported from a module the
    # function alone does not bring: the made-up predicate's call is no
    # call to the outside world; whether it could fail is the made-up
    # value's say, so the answer is not "same" either
    old = d('''
        from .models import Response


        def build(req, resp):
            response = Response()
            response.status = getattr(resp, "status", None)
            response.url = req.url
            return response
        ''')
    new = old.replace("from .models import Response",
                      "from .models import Response\nfrom ._types import is_prepared")
    new = new.replace("    response = Response()",
                      "    assert is_prepared(req)\n    response = Response()")
    assert new.count("assert is_prepared(req)") == 1
    c = compare_sources(old, new, "build")
    assert c.verdict == "undecided", (c.verdict, c.detail)
    # the same call outside an assertion is an interaction
    called = new.replace("    assert is_prepared(req)", "    is_prepared(req)")
    assert compare_sources(old, called, "build").verdict == "changed"
    # an assertion both versions make is left in the trace
    both = old.replace("    response = Response()",
                       "    assert is_prepared(req)\n    response = Response()")
    both = both.replace("from .models import Response",
                        "from .models import Response\nfrom ._types import is_prepared")
    fa, fb = (function_versions(t, "m.py")["build"] for t in (both, new))
    assert B._assert_tests(fa) == B._assert_tests(fb) != []
    assert B._assert_tests(None) is None
    from lexecutor_c.apps.funcrun import _sites_within, quiet_spans

    def quiet_call_sites(text, iids, lines, other_asserts):
        return _sites_within(iids, "call", quiet_spans(text, lines, other_asserts))
    from lexecutor_c.engine.instrument import instrument
    iids = instrument(new, filename="m.py").iids
    lines = (fb.node.lineno, fb.node.end_lineno)
    sites = quiet_call_sites(new, iids, lines, [])
    assert [i.name for i in iids if int(i.iid) in sites] == ["is_prepared"]
    assert quiet_call_sites(new, iids, lines, B._assert_tests(fa)) == set()
    assert quiet_call_sites(new, iids, lines, None) == set()
    assert quiet_call_sites("def (", iids, lines, []) == set()


def test_an_optional_parameter_one_version_stops_reading_is_given_a_value_of_its_own():
    # pyiso8601's ``parse_timezone``: ``return default_timezone`` ->
    # ``return UTC`` where UTC is the parameter's own default; inputs that
    # leave it at its default agree, so "same" needs one that gives it a
    # value, and the variant that gives it None tells the versions apart
    old = d('''
        import datetime

        UTC = datetime.timezone.utc


        def parse_timezone(matches, default_timezone=UTC):
            if matches["timezone"] == "Z":
                return default_timezone
            return None
        ''')
    new = old.replace("        return default_timezone", "        return UTC")
    assert new != old
    c = compare_sources(old, new, "parse_timezone")
    assert c.verdict == "changed", (c.verdict, c.detail)
    assert "None" in str(c.to_dict()["evidence"]["distinguishing_input"])
    # where the parameter is still read on the other side too, nothing is
    # required of the inputs (a rename of the returned expression)
    kept = old.replace("        return default_timezone",
                       "        tz = default_timezone\n        return tz")
    assert compare_sources(old, kept, "parse_timezone").verdict == "same"
    o, n, (ch_o, ch_n) = _versions(old, new, "parse_timezone")
    assert B._one_side_params(o, n, ch_o, ch_n) == ["default_timezone"]
    assert B._params_never_given(["default_timezone"], []) is not None


def test_what_the_function_writes_to_stderr_is_output_but_a_warning_s_display_is_not():
    # natsort's ``dev/bump.py:git``: the lines printed to stderr when git
    # fails were dropped; stderr is compared as printed output is
    old = d('''
        import sys


        def check(x):
            if x > 3:
                print("too big:", x, file=sys.stderr)
                sys.stderr.write("giving up\\n")
            return x
        ''')
    new = old.replace('        print("too big:", x, file=sys.stderr)\n', "")
    assert new != old
    c = compare_sources(old, new, "check")
    assert c.verdict == "changed", (c.verdict, c.detail)
    assert "stderr" in c.detail and "too big" in c.detail
    # a warning both versions give, from another line: the call is the same,
    # and the display (which names the line) is no output
    warned = d('''
        import warnings


        def check(x):
            if x > 3:
                warnings.warn("too big", UserWarning)
            return x
        ''')
    moved = warned.replace("def check(x):\n", "def check(x):\n    y = x\n").replace(
        "    return x", "    return y")
    assert "    y = x\n" in moved and "return y" in moved
    c = compare_sources(warned, moved, "check")
    assert c.verdict != "changed", (c.verdict, c.detail)
