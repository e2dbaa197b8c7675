"""Runs that cannot end (issue 14, item 3): the loop guards _w_/_f_ end loops
that injected values keep alive (docs/RUNTIME.md, "Loops that injected
values keep alive")."""
import time

import pytest

import lexecutor_c
from lexecutor_c import _core


def _run(src, **kw):
    inst = lexecutor_c.instrument(src)
    rt = _core.Runtime(sites=inst.iids, **kw)
    g = {"__name__": "__main__"}
    g.update(rt.loaders())
    exec(inst.compile(), g)
    return rt, g


def test_while_over_a_dummy_ends_after_the_bound():
    rt, g = _run("n = 0\nwhile todo:\n    n += 1\nelse:\n    done = True\n")
    assert g["n"] == 3 and g["done"] is True         # the else clause runs
    assert list(rt.bounded_loops.values()) == [1]


@pytest.mark.parametrize("bound", [1, 2, 5])
def test_loop_bound_is_the_number_of_busy_iterations(bound):
    rt, g = _run("n = 0\nwhile todo:\n    n += 1\n", loop_bound=bound)
    assert g["n"] == bound and rt.loop_bound == bound


def test_parent_chain_and_deque_of_injected_nodes_end():
    src = ("current = logger\nwhile current:\n    current = current.parent\n"
           "todo = deque([root])\nseen = 0\nwhile todo:\n    node = todo.popleft()\n"
           "    todo.extend(node.children)\n    seen += 1\nprint(seen)\n")
    rt, g = _run(src)
    assert g["seen"] == 3 and len(rt.bounded_loops) == 2
    from collections import deque                      # the real deque: the children grow it
    rt, g = _run(src.replace("todo = deque", "from collections import deque\ntodo = deque"))
    assert g["seen"] == 3


def test_while_true_driven_by_stand_in_calls_ends():
    src = ("curly = 0\nwhile True:\n    curly = reader.find('{', curly)\n"
           "    if curly == -1:\n        break\n    if reader[curly + 1] not in ('{', '%'):\n"
           "        curly += 1\n        continue\n    break\nafter = 1\n")
    rt, g = _run(src)
    assert g["after"] == 1 and rt.bounded_loops


def test_peek_with_injected_values_ends():
    src = "n = 0\nwhile self.peek() in '-_':\n    n += 1\n    self.forward()\nend = 1\n"
    rt, g = _run(src, predictor=lambda q: "str_nonempty")
    assert g["end"] == 1
    rt, g = _run(src)              # naive: the use asks for a str ('-'), the guard ends it
    assert g["n"] == 3


def test_loops_that_touch_no_injected_value_are_not_bounded():
    rt, g = _run("x = missing\ni = 0\nwhile i < 100:\n    i += 1\nj = 0\n"
                 "for k in range(500):\n    j += 1\n")
    assert g["i"] == 100 and g["j"] == 500 and not rt.bounded_loops


def test_if_on_a_dummy_is_unaffected():
    rt, g = _run("hits = 0\nfor i in range(10):\n    if flag:\n        hits += 1\n")
    assert g["hits"] == 10


def test_for_loops_get_a_wider_bound():
    src = "nodes = [root]\nfor n in nodes:\n    nodes.extend(n.children)\n"
    rt, g = _run(src, loop_bound=2)
    assert len(g["nodes"]) == 2 * 32 + 1 and rt.bounded_loops
    rt, g = _run("x = missing\nn = 0\nfor i in range(1000):\n    x.attr\n    n += 1\n",
                 loop_bound=1)
    assert g["n"] == 32


def test_loop_bound_zero_switches_the_guards_off():
    rt, g = _run("n = 0\nwhile todo:\n    n += 1\n    if n == 50:\n        break\n",
                 loop_bound=0)
    assert g["n"] == 50 and not rt.bounded_loops


def test_guards_fast_path_returns_the_value_untouched():
    rt = _core.Runtime()
    ld = rt.loaders()
    obj = [1, 2]
    assert ld["_f_"](1, obj) is obj and ld["_w_"](1, obj) is True and ld["_w_"](1, 0) is False
    ld["_n_"](2, "missing", lambda: missing)  # noqa: F821 - injects
    it = ld["_f_"](1, obj)
    assert it is not obj and list(it) == [1, 2] and iter(it) is it


def test_reset_clears_the_loop_state():
    rt, g = _run("while todo:\n    pass\n")
    assert rt.bounded_loops
    rt.reset()
    assert rt.bounded_loops == {}
    assert rt.loaders()["_f_"](1, "ab") == "ab"      # no activity in the new run


@pytest.mark.parametrize("loader, args, exc", [
    ("_w_", (), TypeError), ("_w_", (1, 2, 3), TypeError), ("_w_", ("1",), TypeError),
    ("_w_", (-1,), ValueError),
    ("_w_", ("1", True), TypeError), ("_w_", (-1, True), ValueError),
    ("_w_", (1 << 40, True), ValueError),
    ("_f_", (), TypeError), ("_f_", (1,), TypeError), ("_f_", ("1", []), TypeError),
    ("_f_", (-1, []), ValueError),
])
def test_guard_argument_errors(loader, args, exc):
    with pytest.raises(exc):
        _core.Runtime().loaders()[loader](*args)


def test_guard_errors_of_the_operands_propagate():
    class Bad:
        def __bool__(self):
            raise ZeroDivisionError
    ld = _core.Runtime().loaders()
    with pytest.raises(ZeroDivisionError):
        ld["_w_"](1, Bad())
    ld["_n_"](2, "missing", lambda: missing)  # noqa: F821 - activity: _f_ calls iter()
    with pytest.raises(TypeError, match="not iterable"):
        ld["_f_"](3, 42)

    def gen():
        yield 1
        raise KeyError("inner")
    with pytest.raises(KeyError):
        list(ld["_f_"](4, gen()))


def test_loop_bound_argument_errors():
    with pytest.raises(ValueError):
        _core.Runtime(loop_bound=-1)
    with pytest.raises(ValueError):
        _core.Runtime(loop_bound=10 ** 7)
    with pytest.raises(TypeError):
        _core.Runtime(loop_bound="3")


def test_timeouts_become_coverage(tmp_path):
    # werkzeug_body_5's shape: timed out (hard) before the guards, 0 %
    src = ("level = logger.getEffectiveLevel()\ncurrent = logger\n\nwhile current:\n"
           "    if any(handler.level <= level for handler in current.handlers):\n"
           "        exit(True)\n\n    if not current.propagate:\n        break\n\n"
           "    current = current.parent\n\nexit(False)\n")
    t0 = time.monotonic()
    r = lexecutor_c.run(src, timeout=10)
    assert r.status == "exit" and r.coverage > 0.5
    assert time.monotonic() - t0 < 5


def test_while_true_becomes_a_guarded_for_loop():
    """`while True:` / `while 1:` are emitted as `for [] in _w_(m):` (a for
    loop jumps back with JUMP_BACKWARD, which lets CPython 3.11 specialize a
    function that spends its time in the loop); break, continue, else and
    the enclosing block's folded marker behave as in the while loop."""
    src = ("def f(n):\n    i = 0\n    while True:\n        i += 1\n        if i > n:\n"
           "            break\n    while 1:\n        if i > 100:\n            continue\n"
           "        break\n    else:\n        i = -1\n    return i\n"
           "if f(2) == 3:\n    while True:\n        r = f(4)\n        break\n")
    inst = lexecutor_c.instrument(src)
    assert inst.source.count("for [] in _w_(") == 2
    assert inst.source.count("for [] in _l_(") == 1    # the if block's marker, folded
    assert "while" not in inst.source
    rt, g = _run(src)
    assert g["r"] == 5 and not rt.bounded_loops
    marker_lines = {m.line for m in inst.lines if m.iid in set(rt.reached())}
    assert {3, 4, 7, 10, 13, 14, 15, 16} <= marker_lines
    assert 12 not in marker_lines                      # the else clause did not run


def test_while_true_guard_ends_a_loop_injected_values_keep_alive():
    src = ("cur = node\nn = 0\nwhile True:\n    cur = cur.parent\n    n += 1\n"
           "    if cur is None:\n        break\nelse:\n    done = n\n")
    rt, g = _run(src, loop_bound=2)
    assert g["done"] == 2 and list(rt.bounded_loops.values()) == [1]
    ld = _core.Runtime().loaders()
    it = ld["_w_"](5)
    assert iter(it) is it and [next(it) for _ in range(3)] == [(), (), ()]
