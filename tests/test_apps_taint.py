"""The parts of `lexecutor-c errors` that decide what a crash depends on
(apps/taint.py) and what runs before the code (apps/prefixes.py)."""
import ast

import pytest

from lexecutor_c.apps.errors import DERIVED, INJECTED, REAL, find_errors
from lexecutor_c.apps.prefixes import prefix_bindings, restore_imports
from lexecutor_c.apps.taint import Dependence


def sources(text, name, seeds):
    dep = Dependence(ast.parse(text))
    return set(dep.sources_of([name], {s: {s} for s in seeds}))


@pytest.mark.parametrize("text, name, expected", [
    ("a = n + 1\nb = a * 2\n", "b", {"n"}),                       # data flow
    ("b = 0\nif n > 3:\n    b = 1\n", "b", {"n"}),                # control flow
    ("xs = []\nxs.append(n)\n", "xs", {"n"}),                     # mutation
    ("d = {}\nd[n] = 1\n", "d", {"n"}),
    ("def f(p):\n    return p\ny = f(n)\n", "p", {"n"}),          # the file's functions
    ("for i in range(n):\n    t = i\n", "t", {"n"}),
    ("a = n\nc = 5\n", "c", set()),                               # unrelated
])
def test_dependence(text, name, expected):
    assert sources(text, name, ["n"]) == expected


def test_failing_operation_is_the_expression_that_raised():
    rep = find_errors("d = {'a': 1}\nx = y + d['b']\n", seeds=0, use_treefix=False)
    (g,) = rep.errors
    assert (g.type, g.line, g.operation, g.category) == ("KeyError", 2, "d['b']", REAL)
    # the same line, but the operand that fails is the injected one
    rep = find_errors("s = 'abc'\nx = s[len(k) + 10]\n", seeds=0, use_treefix=False)
    (g,) = rep.errors
    assert (g.type, g.category, g.involved) == ("IndexError", INJECTED, ["k"])


def test_value_computed_from_an_injected_one_is_derived():
    # one run: no evidence that every value of n raises it
    rep = find_errors("m = len(str(n)) + 10\nxs = [1, 2]\nprint(xs[m])\n", seeds=0,
                      use_treefix=False)
    (g,) = rep.errors
    assert (g.type, g.line, g.category, g.involved) == ("IndexError", 3, DERIVED, ["n"])


def test_function_body_with_top_level_return_runs_wrapped():
    rep = find_errors("x = [1]\nreturn x[3]\n", seeds=0, use_treefix=False)
    (g,) = rep.errors
    assert (g.type, g.line, g.category) == ("IndexError", 2, REAL)
    assert any("body of a function" in n for n in rep.notes)


@pytest.mark.parametrize("text, expected", [
    ("q = deque()\nq.append(1)\n", [("deque", "from collections import deque", True)]),
    ("a = np.zeros(3)\n", [("np", "import numpy as np", True)]),
    ("print(sqrt(4))\n", [("sqrt", "from math import sqrt", True)]),
    ("hp.heappush(h, 1)\nhp.heapify(h)\n", [("hp", "import heapq as hp", True)]),
    # a module attribute the module lacks: still math, but a guess
    ("print(math.floot(2))\n", [("math", "import math", False)]),
    # a capital single letter and an iterated name are the snippet's own values
    ("print(N + 1)\n", []),
    ("for ch in text:\n    print(ch)\n", []),
])
def test_restored_imports(text, expected):
    assert restore_imports(text) == expected


def test_guessed_import_counts_as_injected():
    """`comb(..., exact=True)` is scipy's signature: math.comb is a guess, and
    the TypeError the guess raises is not claimed as the code's own."""
    rep = find_errors("s = ['2', '1']\nc = comb(s[0], 2, exact=True)\n", seeds=0,
                      use_treefix=False)
    assert rep.restored_imports == ["from math import comb  # guessed"]
    (g,) = rep.errors
    assert (g.type, g.line) == ("TypeError", 2) and g.category != REAL
    assert "comb (guessed import)" in g.involved


def test_prefix_bindings():
    generated, imported = prefix_bindings("import os\nfrom math import pi\nn = 3\n"
                                          "def f():\n    pass\n")
    assert generated == {"n", "f"} and imported == {"os", "pi"}


def test_strip_shows_a_while_true_guard_as_written():
    """`while True:` is instrumented as `for [] in _w_(m):`; the failing
    operation's text shows the guard as the `True` it stands for."""
    from lexecutor_c.apps.taint import strip
    node = ast.parse("_w_(3)", mode="eval").body
    assert ast.unparse(strip(node)) == "True"
    node = ast.parse("_w_(3, (x > _n_(1, 'y')))", mode="eval").body
    assert ast.unparse(strip(node)) == "x > y"
