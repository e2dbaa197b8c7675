"""Transparent mode: the frame-evaluation hook (csrc/transparent/evalframe.c) and
lexecutor_c.hook."""
import asyncio
import importlib
import sys
import textwrap
import threading

import pytest

import lexecutor_c
import lexecutor_c.integrations.hook as hook
from lexecutor_c import _core

SOURCE = '''
try:
    import missing_dep_for_tests
except ImportError:
    missing_dep_for_tests = None

def signature(a, b=2, /, c=3, *args, d, e=5, **kw):
    x = undefined_thing.attr
    return a, b, c, args, d, e, kw, x

def posonly(a, /, **kw):
    return a, kw

def outer(n):
    k = 10
    def inner(m):
        return m + k + n + extra
    return inner

def counter():
    count = 0
    def bump():
        nonlocal count
        count += 1
        return count
    return bump

class Base:
    def hello(self):
        return "base"

class C(Base):
    def __init__(self, v):
        self.v = v
    def hello(self):
        return "C+" + super().hello() + str(config.value)
    @classmethod
    def make(cls):
        return cls(zz)
    @staticmethod
    def st(q):
        return q + 1

def gen(n):
    for i in range(n):
        yield i + offset

async def co(x):
    await asyncio_sleep(0)
    return x + 1

async def agen():
    yield 1
    yield 2

def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)

def comp(xs):
    return [x + 1 for x in xs], {x: y for x in xs}

def failing():
    assert 1 == 2, "a real failure"

def plain(x):
    return x * 2
'''


@pytest.fixture
def mod(tmp_path, monkeypatch, request):
    """A fresh module written to disk and imported (before any session)."""
    name = f"lxhook_{request.node.name.replace('[', '_').replace(']', '_').replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module(name)
    m.asyncio_sleep = asyncio.sleep
    yield m
    sys.modules.pop(name, None)


@pytest.fixture(autouse=True)
def no_leftover_session():
    yield
    while hook.current() is not None:
        hook.disable()
    info = _core._hook_info()
    assert not info["active"], info
    assert not info["current"], info


def test_not_a_target_runs_unchanged(mod):
    assert mod.plain(2) == 4
    with hook.enable([mod.fact]) as s:
        assert mod.plain(3) == 6
        assert _core._hook_entry(mod.plain.__code__) == (False, None)
        assert mod.fact(5) == 120
        entry = _core._hook_entry(mod.fact.__code__)
        assert entry[0] is True and entry[1].co_qualname == "fact", (s.notes, entry)
    assert s.injections == []
    assert list(s.coverage) == [mod.__file__]


def test_arguments_are_passed_as_bound(mod):
    with hook.enable([mod]) as s:
        r = mod.signature(1, 20, 30, 40, 50, d=6, z=7)
        assert r[:7] == (1, 20, 30, (40, 50), 6, 5, {"z": 7})
        assert isinstance(r[7], lexecutor_c.Dummy)
        assert mod.signature(1, d=0)[:7] == (1, 2, 3, (), 0, 5, {})
        assert mod.posonly(1, a=2) == (1, {"a": 2})
    names = [(i.kind, i.name) for i in s.injections]
    assert ("name", "undefined_thing") in names and ("attribute", "attr") in names
    inj = s.injections[0]
    assert inj.file == mod.__file__ and inj.line == 8 and inj.cls == "object"


def test_closures_made_before_the_session(mod):
    inner = mod.outer(1)
    bump = mod.counter()
    assert bump() == 1
    with hook.enable([mod]) as s:
        assert isinstance(inner(2), lexecutor_c.Dummy)     # `extra` is missing
        assert bump() == 2                                  # the same cell
        assert bump() == 3
    assert bump() == 4
    assert [i.name for i in s.injections] == ["extra"]


def test_methods_super_classmethod_staticmethod(mod):
    with hook.enable([mod.C]) as s:
        c = mod.C(1)
        assert c.hello().startswith("C+base<Dummy")
        assert isinstance(mod.C.make().v, lexecutor_c.Dummy)
        assert mod.C.st(1) == 2
    assert {i.name for i in s.injections} == {"config", "value", "zz"}


def test_generators_and_coroutines(mod):
    with hook.enable([mod]) as s:
        g = mod.gen(3)
        assert g.__name__ == "gen" and g.__qualname__ == "gen"
        out = list(g)
        assert len(out) == 3 and all(isinstance(x, lexecutor_c.Dummy) for x in out)
        assert asyncio.run(mod.co(1)) == 2

        async def collect():
            return [x async for x in mod.agen()]
        assert asyncio.run(collect()) == [1, 2]
        g2 = mod.gen(2)
        next(g2)
    # a twin generator started in the session finishes after it, as-is
    with pytest.raises(NameError):
        next(g2)
    assert [i.name for i in s.injections] == ["offset"]


def test_recursion_and_comprehensions(mod):
    with hook.enable([mod.fact, mod.comp]):
        assert mod.fact(200) > 0
        assert mod.comp([1, 2])[0] == [2, 3]
        ys = mod.comp([1])[1]
        assert list(ys) == [1] and isinstance(ys[1], lexecutor_c.Dummy)


DEEP = """
import gc
freed = []

class Arg:
    def __init__(self, n):
        self.n = n
    def __del__(self):
        freed.append(sum(range(3)))      # Python code runs while a frame is dropped

def deep(n, a=None, b=1, c=2, d=3, e=4, f=5, g=6, h=7):
    i = j = k = l = m = o = p = q = r = s = t = u = v = w = 0
    if n == 0:
        return base_value                # missing: injected at the bottom
    return deep(n - 1, Arg(n))

def raising(n):
    if n == 0:
        raise KeyError("bottom")
    return raising(n - 1)
"""


def test_deep_recursion_of_targets_and_their_frames(tmp_path, monkeypatch):
    """A target that recurses through many thread-stack chunks: each replaced
    frame is dropped (on 3.12+ by the hook itself: lx_frame_discard), its
    arguments freed, finalizers run, the stack ends where it started."""
    (tmp_path / "lxdeep.py").write_text(DEEP)
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("lxdeep")
    try:
        depth = 300    # 3.12 stops at ~750 Python levels under any PEP 523 hook (TRANSPARENT.md)
        with hook.enable([m.deep, m.raising]) as s:
            for _ in range(20):
                assert isinstance(m.deep(depth), lexecutor_c.Dummy)
                with pytest.raises(KeyError, match="bottom"):
                    m.raising(depth)
        assert len(m.freed) == 20 * depth
        assert _core._hook_info()["twin_calls"] >= 40 * (depth + 1)
        assert [i.name for i in s.injections] == ["base_value"]

        def plain(n):
            return 0 if n == 0 else plain(n - 1) + 1
        assert plain(depth) == depth       # the thread's frame stack is intact
    finally:
        sys.modules.pop("lxdeep", None)


def test_real_failures_propagate(mod):
    with hook.enable([mod]) as s:
        with pytest.raises(AssertionError, match="a real failure"):
            mod.failing()
    assert s.hook_error is None
    assert _core._hook_info()["failed"] is False


def test_coverage_is_that_of_the_target_function(mod):
    with hook.enable([mod.C.hello]) as s:
        mod.C(1).hello()
    cov = s.coverage[mod.__file__]
    first = mod.C.hello.__code__.co_firstlineno
    assert cov["covered"] == [first, first + 1] and cov["uncovered"] == []
    assert cov["coverage"] == 1.0


def test_import_inside_a_session_misses_its_dependency(tmp_path, monkeypatch):
    (tmp_path / "needs_dep.py").write_text(textwrap.dedent('''
        import not_installed_anywhere
        from not_installed_either import thing
        VALUE = thing.compute(3)
        def use():
            return not_installed_anywhere.helper(VALUE)
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("needs_dep")
    sys.modules.pop("needs_dep", None)
    with hook.enable(["needs_dep"]) as s:
        m = importlib.import_module("needs_dep")
        assert isinstance(m.use(), lexecutor_c.Dummy)
    sys.modules.pop("needs_dep", None)
    assert [(f[2]) for f in s.failed_imports] == ["not_installed_anywhere", "not_installed_either"]
    assert s.coverage[m.__file__]["coverage"] == 1.0
    # after the session the module's twins run with as-is loaders
    with pytest.raises(NameError):
        m.use()


def test_file_and_pattern_targets(mod):
    with hook.enable([mod.__file__]) as s:
        mod.outer(1)(1)
    assert [i.name for i in s.injections] == ["extra"]
    with hook.enable([mod.__name__[:6] + "*"]) as s:
        mod.outer(1)(1)
    assert [i.name for i in s.injections] == ["extra"]


def test_nested_sessions(mod):
    with hook.enable([mod.outer]) as outer_s:
        with hook.enable([mod.C]) as inner_s:
            assert hook.current() is inner_s
            mod.C(1).hello()
            assert isinstance(mod.outer(1)(1), lexecutor_c.Dummy)   # the outer's target
        assert hook.current() is outer_s
        mod.outer(1)(1)
        assert _core._hook_info()["active"]
    assert {i.name for i in inner_s.injections} == {"config", "value"}
    assert [i.name for i in outer_s.injections] == ["extra"]     # one value per name per run


def test_loader_names_are_restored(mod):
    before = set(vars(mod))
    with hook.enable([mod.outer]):
        mod.outer(1)(1)
        added = set(vars(mod)) - before
        assert added and all(n.startswith("_lx") for n in added)
    # leftovers point at the as-is runtime, not at the session's
    leftovers = [vars(mod)[n] for n in added if hasattr(vars(mod)[n], "__self__")]
    assert leftovers and all(f.__self__.predictor == "as-is" for f in leftovers)
    with pytest.raises(NameError):
        mod.outer(1)(1)


def test_paused_and_threads(mod):
    results = {}
    with hook.enable([mod.outer]) as s:
        with hook.paused():
            with pytest.raises(NameError):
                mod.outer(1)(1)                       # this thread: off

            def worker():
                results["v"] = mod.outer(1)(1)       # other thread: on
            t = threading.Thread(target=worker)
            t.start()
            t.join()
        assert isinstance(results["v"], lexecutor_c.Dummy)
    assert [i.name for i in s.injections] == ["extra"]


def test_call_and_lexecute(mod):
    r = lexecutor_c.hook.call(mod.signature, 1, d=2)
    assert r.ok and r.value[:7] == (1, 2, 3, (), 2, 5, {})
    assert [i.name for i in r.injections] == ["undefined_thing", "attr"]
    assert r.coverage["coverage"] == 1.0
    r = hook.call(mod.failing)
    assert isinstance(r.exception, AssertionError) and r.value is None
    with pytest.raises(AssertionError):
        r.unwrap()

    wrapped = hook.lexecute(mod.C.hello)
    r = wrapped(mod.C(1))
    assert r.value.startswith("C+base") and len(r.injections) == 2
    ran = hook.lexecute(predictor="as-is")(mod.outer(1))
    assert isinstance(ran(1).exception, NameError)
    with pytest.raises(TypeError):
        hook.call(len, [])
    with pytest.raises(ValueError):
        hook.lexecute(predictor="no-such-predictor")


def test_bad_targets():
    with pytest.raises(TypeError):
        hook.enable([42])
    with pytest.raises(ValueError):
        hook.enable([""])


def test_resolver_error_fails_closed(mod, monkeypatch):
    def broken(self, func, code, globals_):
        if code is mod.plain.__code__:
            raise RuntimeError("resolver bug")
        return None
    monkeypatch.setattr(hook.Session, "_resolve", broken)
    with hook.enable([mod.plain]) as s:
        assert mod.plain(2) == 4                 # ran unchanged
        info = _core._hook_info()
        assert info["failed"] and isinstance(info["last_error"], RuntimeError)
        assert mod.outer(1)                      # everything else still runs
    assert isinstance(s.hook_error, RuntimeError)


def test_malformed_resolver_answers_fail_closed(mod):
    bad_answers = [
        42,
        (1, 2, 3),
        (mod.plain.__code__, None, "k", None, print, "extra"),
        (mod.posonly.__code__, None, "k", None, print),       # other parameters
        (mod.plain.__code__, (5,), "k", None, print),          # cell map size
        (mod.plain.__code__, None, 3, None, print),            # probe key
        (mod.plain.__code__, None, "k", None, 3),              # prepare
    ]
    for answer in bad_answers:
        _core._hook_install(lambda f, c, g, a=answer: a if c is mod.plain.__code__ else None)
        try:
            assert mod.plain(2) == 4
            info = _core._hook_info()
            assert info["failed"], answer
            assert isinstance(info["last_error"], (TypeError, ValueError)), answer
        finally:
            assert _core._hook_uninstall() is True


def test_prepare_error_fails_closed(mod):
    def prepare(g):
        raise KeyError("cannot install loaders")
    twin = compile("def plain(x):\n    return x * 3\n", mod.__file__, "exec").co_consts[0]
    _core._hook_install(lambda f, c, g: (twin, None, "probe", object(), prepare)
                        if c is mod.plain.__code__ else None)
    try:
        assert mod.plain(2) == 4
        assert isinstance(_core._hook_info()["last_error"], KeyError)
    finally:
        _core._hook_uninstall()
    # and a working answer substitutes
    _core._hook_install(lambda f, c, g: (twin, None, "__name__", g["__name__"], print)
                        if c is mod.plain.__code__ else None)
    try:
        assert mod.plain(2) == 6
        assert not _core._hook_info()["failed"]
    finally:
        _core._hook_uninstall()


def test_keyboard_interrupt_in_resolver_propagates(mod):
    def resolver(f, c, g):
        if c is mod.plain.__code__:
            raise KeyboardInterrupt
        return None
    _core._hook_install(resolver)
    try:
        with pytest.raises(KeyboardInterrupt):
            mod.plain(1)
        assert not _core._hook_info()["failed"]
    finally:
        _core._hook_uninstall()


def test_entry_points_reject_bad_arguments():
    with pytest.raises(TypeError):
        _core._hook_install(42)
    with pytest.raises(TypeError):
        _core._hook_entry("not code")
    with pytest.raises(TypeError):
        _core._hook_thread_off(_Unbooleable())
    with pytest.raises(TypeError):
        _core._hook_bare(_Unbooleable())
    assert _core._hook_uninstall() is True          # not installed: no error
    assert _core._hook_thread_off(False) is False


class _Unbooleable:
    def __bool__(self):
        raise TypeError("no truth value")


def test_chains_to_a_previous_evaluation_function(mod):
    capi = pytest.importorskip("_testinternalcapi")
    seen = []
    capi.set_eval_frame_record(seen)
    try:
        with hook.enable([mod.outer]) as s:
            assert _core._hook_info()["chained"]
            assert isinstance(mod.outer(1)(1), lexecutor_c.Dummy)
            mod.plain(1)
        assert s.restored_hook
        # the recorder is back in place and saw the frames we passed on
        n = len(seen)
        mod.plain(1)
        assert len(seen) > n and "plain" in seen
    finally:
        capi.set_eval_frame_default()
    assert [i.name for i in s.injections] == ["extra"]


def test_another_tool_on_top(mod):
    capi = pytest.importorskip("_testinternalcapi")
    s = hook.enable([mod.outer])
    capi.set_eval_frame_record([])            # a tool that does not chain to us
    try:
        s.disable()
        assert s.restored_hook is False
        assert not _core._hook_info()["current"]
        with pytest.raises(RuntimeError, match="on top"):
            hook.enable([mod.outer])
    finally:
        capi.set_eval_frame_default()
        _core._hook_forget()
    assert _core._hook_info()["installed"] is False


def test_bare_hook_for_benchmarks(mod):
    assert _core._hook_bare(True) is True
    try:
        assert _core._hook_bare(True) is False
        assert mod.fact(5) == 120
        with hook.enable([mod.fact]):          # chains to the bare function
            assert _core._hook_info()["chained"]
            assert mod.fact(5) == 120
            with pytest.raises(RuntimeError):
                _core._hook_bare(False)
    finally:
        assert _core._hook_bare(False) is True
    s = hook.enable([mod.fact])
    try:
        with pytest.raises(RuntimeError):
            _core._hook_bare(True)
    finally:
        s.disable()
