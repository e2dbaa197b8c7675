"""The use analysis behind predictor='neural' (lexecutor_c/model/uses.py) and
the choice among the model's classes (lexecutor_c.model.neural.choose)."""
import os
from types import SimpleNamespace

import pytest

import lexecutor_c
from lexecutor_c.model.neural import choose
from lexecutor_c.model.uses import Probe, Uses


def uses_of(src, constrained=True):
    """The use analysis of ``src``; ``constrained=False`` hides the sites'
    use-site constraints (what the runtime's hook would replace), so that
    the probe's own judgement of a use shows."""
    inst = lexecutor_c.instrument(src)
    sites = inst.iids
    if not constrained:
        sites = [SimpleNamespace(**{f: getattr(s, f) for f in _FIELDS}, use=None)
                 for s in sites]
    return Uses(src, sites), inst


_FIELDS = ("iid", "kind", "name", "line", "col", "end_line", "end_col", "before", "after")


def site(inst, kind, name, nth=0):
    found = [s for s in inst.iids if s.kind == kind and s.name == name]
    return found[nth].iid


def survivors(src, kind, name, classes, nth=0, constrained=True):
    u, inst = uses_of(src, constrained)
    iid = site(inst, kind, name, nth)
    return [c for c in classes if u.probe(c, iid).ok]


ALL = ["None", "True", "False", "int_pos", "int_zero", "float_pos", "str_empty",
       "str_nonempty", "list_empty", "list_nonempty", "tuple_nonempty", "set_nonempty",
       "dict_empty", "dict_nonempty", "callable", "resource", "object"]
DUMMIES = ["callable", "resource", "object"]


def test_len_and_arithmetic():
    assert survivors("n = len(x)\n", "name", "x", ALL) == [
        "str_empty", "str_nonempty", "list_empty", "list_nonempty", "tuple_nonempty",
        "set_nonempty", "dict_empty", "dict_nonempty", "callable", "resource", "object"]
    # a literal operand is used as it is; a Dummy survives arithmetic
    assert survivors("y = x * 2.5 + 1\n", "name", "x", ["int_pos", "str_nonempty",
                                                       "list_nonempty", "object"]) == \
        ["int_pos", "object"]


def test_methods_with_literal_arguments_are_tried():
    # list.pop takes one argument, dict.pop two
    assert survivors("a = opts.pop('k', None)\n", "name", "opts", ALL) == \
        ["dict_empty", "dict_nonempty"] + DUMMIES
    assert survivors("parts = s.split(',')\n", "name", "s", ALL) == \
        ["str_empty", "str_nonempty"] + DUMMIES


def test_every_read_of_a_name_counts():
    src = "x.append(1)\nprint(x['key'])\n"
    # a list survives the append, not the string key; a Dummy both
    assert survivors(src, "name", "x", ["list_nonempty", "dict_nonempty", "object"]) == \
        ["object"]


def test_iteration_unpacking_and_join():
    assert survivors("for k, v in d.items():\n    pass\n", "name", "d", ALL) == \
        ["dict_empty", "dict_nonempty"] + DUMMIES
    # the runtime's use-site constraint reshapes what the iteration or the
    # unpacking at the injection site cannot take ([(Dummy, Dummy)], a tuple
    # of two Dummies): the probe judges that value, so they survive
    assert survivors("for k, v in pairs:\n    pass\n", "name", "pairs",
                     ["list_nonempty", "object", "list_empty", "int_pos"]) == \
        ["list_nonempty", "object", "list_empty", "int_pos"]
    assert survivors("a, b = pair\n", "name", "pair", ["tuple_nonempty", "object"]) == \
        ["tuple_nonempty", "object"]
    # ... but only at the injection site: the second read keeps the value
    assert survivors("print(pair)\na, b = pair\n", "name", "pair",
                     ["tuple_nonempty", "object"]) == []
    # an argument's constraint is the probe's own check (its replacement may
    # write a file): a list of Dummies does not join
    assert survivors("s = ', '.join(words)\n", "name", "words",
                     ["list_nonempty", "str_nonempty", "object"]) == ["str_nonempty"]


def test_the_probe_judges_the_value_the_runtime_injects():
    # an empty str survives `for a, b in x` (nothing to unpack) but skips the
    # loop; a Dummy becomes [(Dummy, Dummy)] and runs it: the better score
    src = "for a, b in xs:\n    y = a\n    z = b\nw = 1\n"
    u, inst = uses_of(src)
    iid = site(inst, "name", "xs")
    empty, dummy = u.probe("str_empty", iid), u.probe("object", iid)
    assert empty.ok and dummy.ok
    assert empty.score < 0 and dummy.score == 0
    ranked = [("str_nonempty", 0.45), ("str_empty", 0.4), ("object", 0.15)]
    assert choose(ranked, lambda c: u.probe(c, iid)) != "str_empty"


def test_membership_comparison_and_format_spec():
    assert survivors("ok = key in 'abc'\n", "name", "key", ["str_nonempty", "int_pos"],
                     constrained=False) == ["str_nonempty"]
    # the runtime injects a character of the literal instead of the int
    assert survivors("ok = key in 'abc'\n", "name", "key", ["str_nonempty", "int_pos"]) == \
        ["str_nonempty", "int_pos"]
    assert survivors("ok = 3 in c\n", "name", "c", ["int_pos", "list_nonempty", "object"],
                     constrained=False) == ["list_nonempty", "object"]
    assert survivors("t = f'{v:.2f}'\n", "name", "v", ["float_pos", "str_nonempty",
                                                        "object"], constrained=False) == \
        ["float_pos", "object"]


def test_called_indexed_decorator_with_raise_await():
    assert survivors("f(1)\n", "name", "f", ALL, constrained=False) == \
        ["callable", "resource", "object"]
    # the runtime makes whatever is called at the injection site callable
    assert survivors("f(1)\n", "name", "f", ALL) == ALL
    assert survivors("@deco\ndef g():\n    pass\n", "name", "deco", ["str_nonempty",
                                                                  "callable"]) == ["callable"]
    assert survivors("@deco(1)\ndef g():\n    pass\n", "call", "deco", ["None",
                                                                    "callable"]) == ["callable"]
    # a key only known at run time: only a Dummy is sure to have it
    assert survivors("v = d[k]\n", "name", "d", ["dict_nonempty", "list_nonempty",
                                                  "object"]) == ["object"]
    assert survivors("v = d['a']\n", "name", "d", ["dict_nonempty", "list_nonempty"],
                     constrained=False) == ["dict_nonempty"]
    assert survivors("with r:\n    pass\n", "name", "r", ["str_nonempty", "resource",
                                                          "object"], constrained=False) == \
        ["resource", "object"]
    assert survivors("raise e\n", "name", "e", ALL) == []
    assert survivors("x.attr = 1\n", "name", "x", ["str_nonempty", "object"]) == ["object"]


def test_value_flows_into_an_assigned_name():
    src = "y = x\nn = len(y)\n"
    assert survivors(src, "name", "x", ["int_pos", "list_nonempty"]) == ["list_nonempty"]


def test_unknown_operands_and_callees_do_not_condemn():
    # isinstance(y, int) is fine for any y; an unknown callee accepts anything
    assert survivors("ok = isinstance(v, int)\nfoo(v)\n", "name", "v", ALL) == ALL
    # a step that failed only because of an operand the probe does not know
    # says nothing; an operand read from a missing name is injected, most
    # likely a Dummy, and `Dummy in "a"` fails
    assert survivors("other = f()\nt = other.x in s\n", "name", "s", ["str_nonempty"]) == \
        ["str_nonempty"]
    assert survivors("t = missing.x in s\n", "name", "s", ["str_nonempty", "object"]) == \
        ["object"]
    # a step that fails whatever the unknown operand is: isinstance wants a type
    assert survivors("y = f()\nok = isinstance(y, v)\n", "name", "v",
                     ["str_nonempty", "object"]) == ["object"]
    # builtin types are themselves: isinstance("a", str) is True
    src = "if isinstance(body, str):\n    a = 1\nelse:\n    b = 2\n"
    u, inst = uses_of(src)
    iid = site(inst, "name", "body")
    assert u.probe("str_nonempty", iid).score == 2 and u.probe("int_pos", iid).score == 1


def test_big_literals_are_not_evaluated():
    # would allocate gigabytes if tried: the probe stops and the value survives
    assert survivors("y = s * 10**9\n", "name", "s", ["str_nonempty"]) == ["str_nonempty"]
    assert survivors("y = s.zfill(10**9)\n", "name", "s", ["str_nonempty"]) == \
        ["str_nonempty"]


def test_guard_scores():
    src = ("if not has_min_size(data):\n    raise RuntimeError('x')\n"
           "n = len(data)\nprint(n)\n")
    u, inst = uses_of(src)
    iid = site(inst, "call", "has_min_size")
    t, f = u.probe("True", iid), u.probe("False", iid)
    assert t.decided == f.decided == 1
    # True skips the raise and runs the two lines after; False enters the block
    # (its header counts) and raises
    assert t.score == 2 and f.score == 2 - 0.5
    # an early exit with much after it, and a loop over an empty iterable
    src = "if done:\n    exit(0)\na = 1\nb = 2\nc = 3\nfor x in items:\n    print(x)\n"
    u, inst = uses_of(src)
    d = site(inst, "name", "done")
    assert u.probe("True", d).score == 2 and u.probe("False", d).score == 5
    it = site(inst, "name", "items")
    assert u.probe("list_empty", it).score == -2 and u.probe("list_nonempty", it).score == 0


def test_and_or_tests():
    src = "if f() and g():\n    exit(1)\nx = 1\ny = 2\nz = 3\n"
    u, inst = uses_of(src)
    iid = site(inst, "call", "f")
    # False decides the test (skip: 3 lines after); True leaves it to g(): the
    # better outcome counts
    assert u.probe("False", iid).score == 3
    assert u.probe("True", iid).score == 3


def test_unparsable_source_and_unknown_site():
    u = Uses("def (:\n", [])
    assert u.tree is None and u.use_nodes(1) == [] and not u.known(1)
    u, inst = uses_of("x = 1\n")
    assert not u.known(999)
    assert u.probe("int_pos", 999).ok


# ---------------------------------------------------------------- choose()

def fake_probe(table):
    def probe(cls):
        r = Probe()
        ok, score = table.get(cls, (True, None))
        r.ok = ok
        if score is not None:
            r.decided, r.score = 1, score
        return r
    return probe


def test_choose_confidence_and_survival():
    ranked = [("str_nonempty", 0.9), ("int_pos", 0.05), ("object", 0.01)]
    assert choose(ranked) == "str_nonempty"                       # confident
    assert choose([("str_nonempty", 0.3), ("int_pos", 0.25)]) == "object"  # doubtful (< 0.35)
    # the confident class does not survive: the next survivor, a Dummy here
    assert choose(ranked, fake_probe({"str_nonempty": (False, None)})) == "object"
    # no Dummy survives: the model's best survivor even when doubtful
    assert choose([("str_nonempty", 0.3), ("list_nonempty", 0.2)],
                  fake_probe({"object": (False, None)})) == "str_nonempty"
    # nothing survives: a Dummy, as naive injection
    assert choose(ranked, lambda c: type("R", (), {"ok": False, "decided": 0,
                                                   "score": 0})()) == "object"
    # Dummy classes need no confidence
    assert choose([("callable", 0.3), ("str_nonempty", 0.2)]) == "callable"


def test_choose_guards_prefer_the_branch_that_runs_more():
    ranked = [("False", 0.6), ("True", 0.3), ("None", 0.01)]
    probe = fake_probe({"False": (True, 1.5), "True": (True, 2.0), "object": (True, 2.0),
                        "None": (True, 9.0)})
    # True beats False; object ties with True (model order wins); None is
    # below the guard floor
    assert choose(ranked, probe) == "True"


# ---------------------------------------------------------------- through run()

class Recording:
    """A predictor with for_run() and prepare(): run() must use both."""

    def __init__(self):
        self.prepared = 0
        self.bound = []

    def prepare(self):
        self.prepared += 1

    def for_run(self, source, sites):
        self.bound.append((source, [s.name for s in sites if s.kind == "name"]))
        return lambda q: "int_pos"

    def __call__(self, q):        # never used: for_run's answer is
        return "str_nonempty"


def test_run_prepares_and_binds_per_run_predictors():
    p = Recording()
    r = lexecutor_c.run("y = x + 1\nprint(y)\n", predictor=p, isolate=False)
    assert r.status == "ok" and r.injections[0]["cls"] == "int_pos"
    assert p.bound == [("y = x + 1\nprint(y)\n", ["x"])]
    assert p.prepared == 0                  # in-process: nothing forks
    r = lexecutor_c.run("y = x + 1\n", predictor=p, isolate=True)
    assert r.status == "ok" and r.injections[0]["cls"] == "int_pos"
    assert p.prepared == 1                  # in this process, before the fork
    assert len(p.bound) == 1                # the child bound its own copy


class Broken:
    def prepare(self):
        raise RuntimeError("cannot prepare")

    def __call__(self, q):
        return "int_pos"


def test_a_failing_prepare_leaves_the_run_alone():
    r = lexecutor_c.run("y = x + 1\n", predictor=Broken(), isolate=True)
    assert r.status == "ok" and r.injections[0]["cls"] == "int_pos"


def test_use_site_constraints_of_known_callees():
    """Arguments of callees the knowledge table knows (lexecutor_c.knowledge):
    only through a module the snippet imports, or a builtin it keeps."""
    classes = ["str_nonempty", "object", "int_pos", "list_nonempty"]
    assert survivors("import os\np = os.path.join(base, name)\n", "name", "name",
                     classes) == ["str_nonempty"]
    # os is missing here: an injected Dummy takes any argument
    assert survivors("p = os.path.join(base, name)\n", "name", "name", classes) == classes
    # reading a file: no injected value names an existing one; writing: a str
    assert survivors("with open(fn, 'rb') as f:\n    pass\n", "name", "fn", classes) == []
    assert survivors("with open(fn, 'w') as f:\n    pass\n", "name", "fn", classes) == \
        ["str_nonempty"]
    # a snippet that rebinds the builtin: nothing known
    assert survivors("def open(x):\n    pass\nopen(fn)\n", "name", "fn", classes) == classes


def test_while_tests_that_never_change_end_only_by_timeout():
    src = "while not ready:\n    wait()\nx = 1\ny = 2\n"
    u, inst = uses_of(src)
    iid = site(inst, "name", "ready")
    # False: `not False` loops for ever (a name's value, read again, is
    # nothing the loop guard sees change): worst
    assert u.probe("False", iid).score == -1 and u.probe("True", iid).score == 2
    # a call's result is injected at every evaluation: the runtime's loop
    # guard ends the loop after a few iterations, then the rest runs
    src = "while not ready():\n    wait()\nx = 1\ny = 2\n"
    u, inst = uses_of(src)
    iid = site(inst, "call", "ready")
    assert u.probe("False", iid).score == (1 + 1) + 2 and u.probe("True", iid).score == 2
    # a loop that can leave: running it counts
    src = "while more():\n    if done():\n        break\nz = 1\n"
    u, inst = uses_of(src)
    assert u.probe("True", site(inst, "call", "more")).score == 1 + 2 + 1


def test_what_a_dummy_call_returns_is_left_open():
    # `c.isupper()` on a Dummy is a query of its own: the test may go either
    # way (the better one counts); on "a" it is False (the block is skipped)
    src = "if c.isupper():\n    a = 1\n    b = 2\nz = 3\n"
    u, inst = uses_of(src)
    iid = site(inst, "name", "c")
    assert u.probe("object", iid).score == 1 + 2 + 1
    assert u.probe("str_nonempty", iid).score == 1


def test_constants_assigned_once_and_subscripts():
    # `expected` is a literal assigned once: "a".endswith("xyz") is False
    src = "expected = 'x' + 'yz'\nassert result.endswith(expected)\nz = 1\n"
    u, inst = uses_of(src)
    iid = site(inst, "call", "result") if any(
        s.kind == "call" and s.name == "result" for s in inst.iids) else site(inst, "name",
                                                                               "result")
    assert u.probe("str_nonempty", iid).score == -0.5
    # None cannot be subscripted even where the bounds are unknown; a slice of
    # a sequence never fails on them, of a dict always
    src = "part = text[start:end]\n"
    assert survivors(src, "name", "text", ["None", "str_nonempty", "list_nonempty",
                                           "dict_nonempty", "object"]) == \
        ["str_nonempty", "list_nonempty", "object"]


def test_choose_guard_without_a_plausible_survivor():
    # the value decides a test, but only a doubtful class survives: no crash,
    # the ordinary rule
    probe = fake_probe({"str_nonempty": (True, 2.0), "object": (False, None)})
    assert choose([("str_nonempty", 0.01), ("int_pos", 0.009)], probe,
                  floor=0.0) == "str_nonempty"


def test_a_flaw_in_the_use_analysis_does_not_end_the_run(monkeypatch):
    from lexecutor_c.model import uses

    def broken(self, cls, iid):
        raise RuntimeError("flaw")
    monkeypatch.setattr(uses.Uses, "probe", broken)
    pytest.importorskip("lexecutor_c._torch_shim")
    r = lexecutor_c.run("y = x + 1\nprint(y)\n", predictor="neural", isolate=False)
    assert r.status == "ok" and r.injections[0]["cls"] in ("object", "callable", "resource")


def test_a_use_that_works_only_if_an_unknown_operand_is_no_dummy_is_risky():
    # `result.endswith(expected + foot)`: foot is missing, so the operand is
    # a Dummy at run time and str.endswith refuses it
    src = "expected = 'ab'\nresult = render()\nassert result.endswith(expected + foot)\nz = 1\n"
    u, inst = uses_of(src)
    iid = site(inst, "call", "render")
    assert not u.probe("str_nonempty", iid).ok
    # `lower.endswith(ext)` with ext bound by the snippet: unknown, risky
    src = "for ext in exts:\n    if low.endswith(ext):\n        z = 1\n"
    u, inst = uses_of(src)
    iid = site(inst, "name", "low")
    r = u.probe("str_nonempty", iid)
    assert r.ok and r.risky
    assert not u.probe("object", iid).risky
    # a risky concrete value is not chosen over a Dummy, however likely
    assert choose([("str_nonempty", 0.9), ("object", 0.1)], lambda c: u.probe(c, iid)) == \
        "object"


def test_a_missing_name_answered_earlier_in_the_run_is_a_known_operand():
    # n is injected once per run; once answered (int 0), `m > n` is decided
    # by m: 1 > 0 enters the block, 0 > 0 does not, a str cannot compare
    src = "print(n)\nif m > n:\n    x = 1\n    y = 2\nz = 3\n"
    u, inst = uses_of(src)
    iid = site(inst, "name", "m")
    u.injected["n"] = "int_zero"
    got = {c: u.probe(c, iid) for c in ("int_pos", "int_zero", "str_nonempty")}
    assert got["int_pos"].score == 1 + 2 + 1 and got["int_zero"].score == 1
    assert not got["str_nonempty"].ok
    # the run's predictor records its answers for names
    from lexecutor_c.model.neural import NeuralPredictor, RunPredictor

    class Fixed(NeuralPredictor):
        def ranked(self, query):
            return [("int_zero", 0.9), ("object", 0.1)]
    rp = RunPredictor(Fixed(), src, inst.iids)
    q = SimpleNamespace(iid=site(inst, "name", "n"), kind="name", name="n",
                        abstraction="fine", before="print (", after=")")
    assert rp(q) == "int_zero" and rp.uses.injected == {"n": "int_zero"}


def test_a_class_the_runtime_would_replace_ranks_after_those_it_keeps():
    # Figure 1's has_min_size: the model ranks int_pos first, but an int that
    # is called gets replaced by a callable at run time (its probe survives
    # only as that): the callable the model also offers is chosen
    src = "if not has_min_size(data):\n    raise RuntimeError('x')\nn = 1\n"
    u, inst = uses_of(src)
    iid = site(inst, "name", "has_min_size")
    r = u.probe("int_pos", iid)
    assert r.ok and r.replaced
    assert not u.probe("callable", iid).replaced
    ranked = [("int_pos", 0.28), ("False", 0.14), ("callable", 0.13), ("object", 0.08)]
    assert choose(ranked, lambda c: u.probe(c, iid)) == "callable"


def test_value_model_for_prefixes_keeps_classes_that_survive_as_themselves():
    """NeuralValueModel (the offline generator's value model): a prefix
    assigns a present value, which no use-site constraint replaces, so a
    class that survives only replaced is left out."""
    from lexecutor_c.model.value_model import NeuralValueModel

    class Stub:
        def __init__(self, ranked):
            self.model = SimpleNamespace(predict=lambda *a, **k: ranked)
    ranked = [("int_pos", 0.5), ("callable", 0.3), ("str_nonempty", 0.15), ("None", 0.01)]
    vm = NeuralValueModel(Stub(ranked))
    src = "f(1)\n"
    # an int or a str that is called would be replaced by a callable at run
    # time; in a prefix it stays what it is and fails
    assert vm("f", "name", {"source": src, "lines": [1]}) == ["callable"]
    # p below the floor is left out; without the source, the ranking alone
    assert vm("f", "name", {}) == ["int_pos", "callable", "str_nonempty"]


def test_arithmetic_that_only_a_dummy_operand_absorbs_is_risky():
    # `self.app.plugins + self.plugins`: None + Dummy works (the Dummy
    # absorbs it), but the other operand is answered by the predictor too
    # and None + anything else fails
    src = "ps = self.app.plugins + self.plugins\nn = len(ps)\n"
    u, inst = uses_of(src)
    iid = site(inst, "attribute", "plugins")
    none, lst, text = (u.probe(c, iid) for c in ("None", "list_nonempty", "str_nonempty"))
    assert none.ok and none.risky
    assert lst.ok and not lst.risky and text.ok and not text.risky
    assert choose([("None", 0.45), ("object", 0.3)], lambda c: u.probe(c, iid)) == "object"


def test_a_tuple_operand_keeps_its_width():
    # `self.FMT % (context, message)`: the str 'a' takes no two arguments,
    # whatever they are (a Dummy in place of the tuple would pass as a mapping)
    src = "key = self.FMT % (context, message)\nn = 1\n"
    assert survivors(src, "attribute", "FMT", ["str_nonempty", "object"]) == ["object"]
    # a tuple of the right width passes: '%s' % (x,) with x the probed value
    src = "key = '%s!' % (x,)\n"
    assert survivors(src, "name", "x", ["str_nonempty", "int_pos", "object"]) == \
        ["str_nonempty", "int_pos", "object"]


def test_only_called():
    src = "self.run(1)\nself.run(2)\nx = self.stop\nself.stop()\n"
    u, inst = uses_of(src)
    assert u.only_called(site(inst, "attribute", "run"))
    # self.stop is also read without a call: its value must be probed
    assert not u.only_called(site(inst, "attribute", "stop"))
