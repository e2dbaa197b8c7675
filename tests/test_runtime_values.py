"""Abstract value classes, concretization, and the Dummy protocols."""
import asyncio
import copy
import gc
import math
import pickle
import weakref

import pytest

from lexecutor_c import _core

# The class list of the LExecutor replication package (ValueAbstraction).
FINE = ["None", "True", "False", "int_neg", "int_zero", "int_pos", "float_neg",
        "float_zero", "float_pos", "str_empty", "str_nonempty", "list_empty",
        "list_nonempty", "tuple_empty", "tuple_nonempty", "set_empty", "set_nonempty",
        "dict_empty", "dict_nonempty", "resource", "callable", "object"]
COARSE = ["None", "bool", "int", "float", "str", "list", "tuple", "set", "dict",
          "resource", "callable", "object"]


def test_class_tables():
    assert list(_core.FINE_CLASSES) == FINE
    assert list(_core.COARSE_CLASSES) == COARSE
    assert isinstance(_core.FINE_CLASSES, tuple)


class Res:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def __call__(self):
        return 1


@pytest.mark.parametrize("value,fine,coarse", [
    (None, "None", "None"), (True, "True", "bool"), (False, "False", "bool"),
    (-5, "int_neg", "int"), (0, "int_zero", "int"), (10 ** 30, "int_pos", "int"),
    (-0.1, "float_neg", "float"), (0.0, "float_zero", "float"), (2.5, "float_pos", "float"),
    ("", "str_empty", "str"), ("é", "str_nonempty", "str"),
    ([], "list_empty", "list"), ([0], "list_nonempty", "list"),
    ((), "tuple_empty", "tuple"), ((1,), "tuple_nonempty", "tuple"),
    (set(), "set_empty", "set"), ({1}, "set_nonempty", "set"),
    ({}, "dict_empty", "dict"), ({1: 2}, "dict_nonempty", "dict"),
    (len, "callable", "callable"), (lambda: 0, "callable", "callable"), (Res, "resource", "resource"),
    (Res(), "resource", "resource"), (object(), "object", "object"), (b"x", "object", "object"),
    (frozenset(), "object", "object"), (1j, "object", "object"),
])
def test_abstract(value, fine, coarse):
    assert _core.abstract(value) == fine
    assert _core.abstract(value, fine=False) == coarse
    assert _core.abstract(value, False) == coarse


def test_abstract_of_injected_values():
    assert _core.abstract(_core.Dummy()) == "object"
    assert _core.abstract(_core.DummyResource()) == "resource"
    assert _core.abstract(_core.concretize("callable")) == "callable"


@pytest.mark.parametrize("cls", FINE)
@pytest.mark.parametrize("randomize,seed", [(False, 0), (True, 0), (True, 1), (True, 99)])
def test_fine_round_trip(cls, randomize, seed):
    v = _core.concretize(cls, randomize=randomize, seed=seed, name="thing")
    assert _core.abstract(v) == cls


@pytest.mark.parametrize("cls", COARSE)
@pytest.mark.parametrize("randomize,seed", [(False, 0), (True, 3), (True, 4)])
def test_coarse_round_trip(cls, randomize, seed):
    v = _core.concretize(cls, randomize=randomize, seed=seed, name="thing")
    assert _core.abstract(v, fine=False) == cls


@pytest.mark.parametrize("cls,value", [
    ("None", None), ("True", True), ("False", False), ("int_neg", -1), ("int_zero", 0),
    ("int_pos", 1), ("float_neg", -1.0), ("float_zero", 0.0), ("float_pos", 1.0),
    ("str_empty", ""), ("str_nonempty", "a"), ("list_empty", []), ("tuple_empty", ()),
    ("set_empty", set()), ("dict_empty", {}), ("bool", True), ("int", 1), ("float", 1.0),
    ("str", "a"),
])
def test_deterministic_values(cls, value):
    v = _core.concretize(cls)
    assert v == value and type(v) is type(value)


def test_deterministic_containers_hold_one_dummy():
    for cls, typ in [("list_nonempty", list), ("tuple_nonempty", tuple), ("set_nonempty", set)]:
        v = _core.concretize(cls)
        assert type(v) is typ and len(v) == 1 and type(next(iter(v))) is _core.Dummy
    d = _core.concretize("dict_nonempty")
    assert list(d) == ["a"] and type(d["a"]) is _core.Dummy
    assert type(_core.concretize("resource")) is _core.DummyResource
    assert type(_core.concretize("object")) is _core.Dummy


def _shape(v):
    """Comparable form of a value: Dummies by type and name."""
    if isinstance(v, (_core.Dummy, _core.DummyResource)):
        return ("D", repr(v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [_shape(x) for x in v])
    if isinstance(v, set):
        return ("set", sorted(repr(_shape(x)) for x in v))
    if isinstance(v, dict):
        return ("dict", sorted((k, repr(_shape(x))) for k, x in v.items()))
    return (type(v).__name__, v)


def test_randomized_consistency_and_variety():
    classes = ["int_pos", "int_neg", "float_pos", "float_neg", "str_nonempty", "list_nonempty",
               "tuple_nonempty", "set_nonempty", "dict_nonempty", "int", "bool", "str"]
    names = [f"n{i}" for i in range(20)]
    for cls in classes:
        a = [_shape(_core.concretize(cls, randomize=True, seed=42, name=n)) for n in names]
        b = [_shape(_core.concretize(cls, randomize=True, seed=42, name=n)) for n in names]
        assert a == b, cls
        c = [_shape(_core.concretize(cls, randomize=True, seed=43, name=n)) for n in names]
        assert a != c, cls
        assert len({repr(x) for x in a}) > 1, cls


def test_concretize_errors():
    with pytest.raises(ValueError):
        _core.concretize("nope")
    with pytest.raises(TypeError):
        _core.concretize(3)
    with pytest.raises(TypeError):
        _core.concretize("int_pos", True)          # randomize is keyword-only
    with pytest.raises(TypeError):
        _core.concretize("int_pos", seed="x")
    with pytest.raises(TypeError):
        _core.concretize("int_pos", name=3)
    with pytest.raises(TypeError):
        _core.abstract()
    assert _core.concretize("int_pos", randomize=True, seed=-1) in (1, 2, 3, 5, 10, 42, 100)


def test_missing_sentinel():
    assert repr(_core.MISSING) == "MISSING"
    with pytest.raises(TypeError):
        type(_core.MISSING)()


# ---------------------------------------------------------------- Dummy protocols

@pytest.fixture(params=["Dummy", "DummyResource"])
def d(request):
    return getattr(_core, request.param)("x")


def test_dummy_attributes(d):
    a = d.foo
    assert type(a) is _core.Dummy and d.foo is a
    d.bar = 3
    assert d.bar == 3
    del d.bar
    del d.never_set
    assert type(d.bar) is _core.Dummy
    with pytest.raises(AttributeError):
        d.__array_interface__     # protocol probes are not answered
    with pytest.raises(TypeError):
        setattr(d, 3, 1)
    with pytest.raises(TypeError):
        getattr(d, 3)


def test_dummy_call_iter_len_bool(d):
    assert type(d(1, k=2)) is _core.Dummy
    items = list(d)
    assert len(items) == 1 and type(items[0]) is _core.Dummy
    assert len(d) == 1 and bool(d) is True
    for _ in d:
        break
    else:
        pytest.fail("loop body not entered")
    assert len(list(reversed(d))) == 1


def test_dummy_unpacks_into_as_many_names_as_the_target_has(d):
    # rows = sql(...).fetchall(); ((rowid, key, mode),) = rows: the outer
    # unpacking takes one item, the inner three (a Dummy iterating one item
    # raised "not enough values to unpack (expected 3, got 1)")
    ((rowid, key, mode),) = d
    assert all(type(x) is _core.Dummy for x in (rowid, key, mode))
    a, b = d
    assert type(a) is _core.Dummy and type(b) is _core.Dummy
    first, *rest, last = d                  # EXTENDED_ARG: 1 | 1 << 8
    assert rest == [] and type(last) is _core.Dummy
    *only, = d
    assert len(only) == 1
    () = d
    for k, v in d:                          # each item unpacks too
        assert type(k) is _core.Dummy and type(v) is _core.Dummy
    many = "(" + ", ".join(f"n{i}" for i in range(300)) + ",) = d"
    ns = {"d": d}
    exec(many, ns)                          # a width past one byte
    assert type(ns["n299"]) is _core.Dummy
    assert len(list(d)) == 1 and len([x for x in d]) == 1   # no target: one item


def test_dummy_numbers(d):
    for r in (d + 1, 1 + d, d - 1, 2 - d, d * 3, "s" * d, d / 2, 2 / d, d // 2, 2 // d,
              d % 2, 2 % d, d ** 2, 2 ** d, pow(d, 2, 5), d @ d, d << 1, 1 >> d, d & 1,
              1 | d, d ^ d, -d, +d, abs(d), ~d, [1] + d, d + d):
        assert type(r) is _core.Dummy
    q, m = divmod(d, 3)
    assert type(q) is _core.Dummy and type(m) is _core.Dummy
    assert (int(d), float(d), round(d), complex(d)) == (1, 1.0, 1, 1 + 0j)
    assert [10, 20, 30][d] == 20 and list(range(d)) == [0]
    assert math.floor(d) == 1
    e = d
    e += 1
    e *= 2
    e **= 2
    e @= d
    assert e is d


def test_dummy_comparisons_and_hash(d):
    other = _core.Dummy("x")
    assert d == d and not (d != d) and d != other and not (d == other)
    assert not (d < 1) and not (d > 1) and not (d <= 1) and not (d >= 1)
    assert not (1 < d)
    assert len({d, other, d}) == 2 and {d: 1}[d] == 1
    assert sorted([d, other, d]) is not None


def test_dummy_items(d):
    v = d["k"]
    assert type(v) is _core.Dummy and d["k"] is v and "k" in d
    assert "other" not in d
    d["k"] = 5
    assert d["k"] == 5
    del d["k"]
    del d["absent"]
    assert "k" not in d
    assert type(d[1:2]) is _core.Dummy      # unhashable key: not remembered
    d[[1]] = 3
    del d[[1]]
    assert [1] not in d


def test_dummy_with_and_async(d):
    with d as inner:
        assert inner is d
    with pytest.raises(KeyError):         # __exit__ returns False: exceptions propagate
        with d:
            raise KeyError("x")

    async def main():
        async with d as a:
            assert a is d
        got = await d
        items = [x async for x in d]
        return got, items
    got, items = asyncio.run(main())
    assert got is d and items == []


def test_dummy_text(d):
    kind = type(d).__name__
    assert repr(d) == f"<{kind} 'x'>" and str(d) == repr(d)
    assert f"{d}" == repr(d)
    assert f"{d:>20}" == repr(d).rjust(20)
    assert f"{d:.2f}" == "1.00" and f"{d:d}" == "1" and f"{d:x}" == "1"
    assert "%s" % d == repr(d)
    assert repr(_core.Dummy()) == "<Dummy>"
    assert repr(_core.concretize("callable", name="f")) == "<injected callable 'f'>"
    with pytest.raises(TypeError):
        d.__format__(3)


def test_dummy_misc_protocols(d):
    assert not isinstance(3, d) and not issubclass(int, d)

    class C(d, int):
        pass
    assert C.__mro__[1] is int
    assert copy.copy(d) is d and copy.deepcopy([d])[0] is d
    assert weakref.ref(d)() is d
    with pytest.raises(Exception):
        pickle.dumps(d)   # not picklable (documented)


def test_dummy_constructor_errors():
    with pytest.raises(TypeError):
        _core.Dummy(3)
    with pytest.raises(TypeError):
        _core.Dummy("a", "b")
    with pytest.raises(TypeError):
        _core.DummyResource(name=1)


def test_dummy_attribute_reads_ask_the_runtime():
    seen = []

    def pred(q):
        seen.append((q.kind, q.name, q.iid))
        return {"size": "int_pos", "items": "list_empty", "mk": "callable"}.get(q.name, "object")
    rt = _core.Runtime(predictor=pred)
    g = dict(rt.loaders())
    exec("d = _n_(1, 'd', lambda: d)", g)
    d = g["d"]
    assert d.size == 1 and d.items == [] and d.size == 1
    m = d.mk
    assert _core.abstract(m) == "callable"
    assert type(m()) is _core.Dummy
    assert seen == [("name", "d", 1), ("attribute", "size", 0), ("attribute", "items", 0),
                    ("attribute", "mk", 0), ("call", "mk", 0)]
    assert [i[1:3] for i in rt.injections][1:] == [("attribute", "size"), ("attribute", "items"),
                                                   ("attribute", "mk"), ("call", "mk")]


def test_dummy_cycle_with_runtime_is_collected():
    rt = _core.Runtime()
    g = dict(rt.loaders())
    exec("d = _n_(1, 'd', lambda: d)\nd.self_ref = d\nd['me'] = d", g)
    wr, wd = weakref.ref(rt), weakref.ref(g["d"])
    del rt, g
    gc.collect()
    assert wr() is None and wd() is None


def test_abstract_of_functions_and_methods_follows_hasattr():
    """Functions, bound methods and builtins are classified without the
    generic hasattr() where the answer is known; a function whose __dict__
    holds __enter__/__exit__ (and a method bound to it) still counts as a
    resource, as hasattr() says."""
    class C:
        def m(self):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def plain():
        pass

    def cm():
        pass
    cm.__enter__ = cm.__exit__ = plain
    bound = cm.__get__(C())
    for v in (C().m, [].append, len, plain, C().__enter__, bound, cm):
        expected = ("resource" if hasattr(v, "__enter__") and hasattr(v, "__exit__")
                    else "callable")
        assert _core.abstract(v) == expected
    assert _core.abstract(bound) == "resource" and _core.abstract(plain) == "callable"
    plain.__dict__                       # an empty __dict__ changes nothing
    assert _core.abstract(plain) == "callable"
