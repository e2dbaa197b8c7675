"""The offline generator's values, stand-ins and search (docs/TREEFIX.md):
each capability on a small snippet written here."""
import ast
import os

import pytest

from lexecutor_c.prefixtree import treefix
from lexecutor_c.prefixtree.analysis import analyze
from lexecutor_c.prefixtree.core import SnippetRunner
from lexecutor_c.prefixtree.flow import unbound_reads, unreachable_lines
from lexecutor_c.prefixtree.offline import OfflineGenerator, Plan
from lexecutor_c.prefixtree.values import string_values


def _tf(src, budget=20, **kw):
    return treefix(src, budget=budget, seed=0, **kw)


def _cands(src, path):
    facts = analyze(src)
    gen = OfflineGenerator()
    return gen.candidates(facts, facts.node(path))


# ---------------------------------------------------------------- flow facts


def test_names_read_before_the_snippet_binds_them():
    src = ("if tzinfo is None:\n    tzinfo = 3\nx = 1\nprint(x, y)\ny = 2\n"
           "for i in range(2):\n    z = i\nprint(z)\nz = 0\n"
           "if format not in ('a', 'b'):\n    format = 'a'\n")
    got = unbound_reads(ast.parse(src))
    assert got == {"tzinfo": 1, "y": 4, "z": 8, "format": 10}   # format: a parameter
    facts = analyze(src)
    assert facts.roots["tzinfo"].maybe_bound and "none" in facts.roots["tzinfo"].uses
    # never an import for a name the snippet binds itself
    assert not any(c[0] in ("imp", "import") for c in _cands(src, "tzinfo"))


def test_unreachable_lines_follow_statements_that_always_leave():
    src = ("a = 1\nif a:\n    exit(a)\n    b = 2\nc = 3\n"
           "while True:\n    pass\nd = 4\n")
    assert unreachable_lines(ast.parse(src)) == {4, 8}
    src = "if x:\n    raise ValueError\nelse:\n    exit(1)\ny = 2\n"
    assert unreachable_lines(ast.parse(src)) == {5}


def test_search_stops_when_only_unreachable_lines_are_left():
    r = _tf("v = compute(1)\nexit(v)\nw = 2\n")
    assert r.uncovered == [3] and len(r.tree) == 1          # no time spent on line 3


# ---------------------------------------------------------------- values the code names


def test_none_and_false_variants_of_tested_values():
    src = "if cfg.cache is not None:\n    exit(cfg.cache)\nrest = 1\n"
    assert ("none",) in _cands(src, "cfg.cache")
    r = _tf(src)
    assert r.coverage == 1.0
    assert any("cache = None" in p for p in r.prefixes)


def test_parameter_reassigned_after_a_none_test():
    r = _tf("if tzinfo is None:\n    tzinfo = 'UTC'\nzone = tzinfo.upper()\n")
    assert r.coverage == 1.0 and r.best_coverage == 1.0


def test_literals_give_one_value_per_branch():
    src = ("if mode not in ('narrow', 'short', 'long'):\n    raise TypeError(mode)\n"
           "if mode == 'short':\n    a = 1\nelif mode.startswith('lo'):\n    b = 2\n")
    cands = _cands(src, "mode")
    for v in ("narrow", "short", "long"):
        assert ("const", v) in cands
    r = _tf(src)
    assert r.coverage == 1.0


def test_strings_built_from_split_separators_and_indexes():
    src = "for part in header.split(';'):\n    name, value = part.split('=', 1)\n"
    facts = analyze(src)
    vals = [c[1] for c in string_values(facts.node("header"))]
    assert vals and ";" in vals[0] or "=" in vals[0]
    src = "if s[-1] == 't':\n    kind = 'tab'\n"
    assert ("const", "abt") in _cands(src, "s") or any(
        c[0] == "const" and isinstance(c[1], str) and c[1].endswith("t") for c in
        _cands(src, "s"))
    r = _tf("key, _, rest = line.partition(':')\nif rest.startswith('//'):\n    url = 1\n")
    assert r.coverage == 1.0


def test_numbers_lengths_and_indexes():
    src = "assert start >= 0\nif len(items) > 3:\n    x = items[3]\n"
    assert ("const", 0) in _cands(src, "start")
    assert ("len", 4) in _cands(src, "items")
    r = _tf(src)
    assert r.coverage == 1.0


def test_unpacking_width_of_iterated_elements_and_call_results():
    src = ("for name, kind, size in table.values():\n    total = size + 1\n"
           "lo, hi, a, b = bounds(ref)\nspan = hi - lo\n")
    r = _tf(src)
    assert r.coverage == 1.0


def test_isinstance_targets_of_the_standard_library_are_imported():
    src = ("if isinstance(form, Mapping):\n    keys = list(form)\nelse:\n"
           "    keys = [form]\n")
    r = _tf(src)
    assert r.coverage == 1.0
    assert any("from collections.abc import Mapping" in p for p in
               [nd.prefix for nd in r.tree])


# ---------------------------------------------------------------- stand-ins that behave


def test_generated_callables_accept_keywords():
    r = _tf("out = show_diff(file_input='a', file_output='b', color=True)\n"
            "n = out.count\n")
    assert r.coverage == 1.0


def test_successive_results_end_a_loop_over_a_call():
    src = "n = 0\nwhile tok.peek() == '-':\n    n += 1\n    tok.forward()\nend = n\n"
    assert any(c[0] == "seq" for c in _cands(src, "tok.peek()"))
    r = _tf(src)
    assert r.coverage == 1.0
    assert all(nd.status != "timeout" for nd in r.tree[1:])


def test_stand_in_raises_what_a_handler_catches():
    src = ("try:\n    data = conn.fetch()\nexcept QueueFull:\n    data = None\n"
           "except OSError:\n    data = 'retry'\n")
    r = _tf(src)
    assert r.coverage == 1.0


def test_call_backs_reach_nested_functions():
    src = ("@app.route('/')\ndef index():\n    page = 'home'\n"
           "def will_fail():\n    raise AssertionError('x')\n"
           "checker.assertRaises(AssertionError, will_fail)\n")
    r = _tf(src)
    assert r.coverage == 1.0


# ---------------------------------------------------------------- context


def test_cls_is_a_class_and_super_works_outside_a_class():
    src = "obj = str.__new__(cls, prefix)\nsuper().__init__(obj)\ndone = obj.upper()\n"
    assert _cands(src, "cls")[0] == ("subclass", "str")
    r = _tf(src)
    assert r.coverage == 1.0


def test_metaclass_argument():
    r = _tf("new = type.__new__(mcs, name, bases, d)\nkind = new.__name__\n")
    assert r.coverage == 1.0


def test_pytest_fixtures_and_asserts_against_literals():
    src = ("code = api.sort_code('import b\\nimport a\\n')\n"
           "assert code == 'import a\\nimport b\\n'\n"
           "out, err = capsys.readouterr()\nassert not err\nfinal = 1\n")
    cands = _cands(src, "api.sort_code()")
    assert cands[0] == ("const", "import a\nimport b\n")
    assert _cands(src, "capsys")[0] == ("fixture", "capsys")
    r = _tf(src)
    assert r.coverage == 1.0 and r.best_coverage == 1.0


def test_future_annotations_when_annotations_name_missing_things():
    src = "buffer: typing.Deque[bytes | memoryview[bytes]] = make()\nsize = 1\n"
    facts = analyze(src)
    assert facts.annotations
    r = _tf(src)
    assert r.coverage == 1.0
    assert r.best.startswith("from __future__ import annotations")


# ---------------------------------------------------------------- plans


def test_sparse_plan_defines_only_the_decided_value():
    src = "if self.canonical:\n    a = self.width + 1\nb = self.stream.write('x')\n"
    facts = analyze(src)
    gen = OfflineGenerator()
    node = facts.node("self.canonical")
    i = gen.candidates(facts, node).index(("const", False))
    p = Plan(sparse=True, choice={"self.canonical": i})
    text = gen.render(facts, p)
    assert "canonical = False" in text and "width" not in text and "stream" not in text
    q = Plan(sparse=True, choice={"self.width": 0})
    m = p.merged(q)
    assert m.sparse and set(m.choice) == {"self.canonical", "self.width"}
    assert "width" in gen.render(facts, m)


def test_timed_out_plans_are_not_proposed_again():
    src = "while node.busy:\n    node.step()\nafter = 1\n"
    facts = analyze(src)
    gen = OfflineGenerator()
    p = Plan()
    gen.note_timeout(facts, p)
    assert gen._hazardous(facts, p.copy())
    other = Plan(choice={"node.busy": len(gen.candidates(facts, facts.node("node.busy"))) - 1})
    assert not gen._hazardous(facts, other)


# ---------------------------------------------------------------- running prefixes


def test_batch_runs_each_prefix_in_its_own_directory_and_drops_raising_statements():
    src = ("import os\nfiles = sorted(os.listdir('.'))\nassert not files\n"
           "if x == 3:\n    done = 1\n")
    sr = SnippetRunner(src, "<s>", timeout=5)
    evs = sr.evaluate_batch(["x = 1\nopen('a.txt', 'w').write('a')\n",
                             "x = undefined_name\ny = 2\nx = 4\n",
                             "x = 3\n", "x = 5\n"], budget=20)
    # the file the first prefix wrote is not in the next run's directory;
    # the batch stops once every line is covered
    assert [e["status"] for e in evs] == ["exception", "ok", "ok"]
    assert evs[1]["dropped_lines"] == [1] and evs[1]["prefix"] == "y = 2\nx = 4\n"
    assert evs[2]["coverage"] == 1.0


def test_batch_timeouts_keep_coverage_and_shorten_the_limit():
    sr = SnippetRunner("a = 1\nwhile flag:\n    pass\nb = 2\n", "<s>", timeout=2)
    first = sr.evaluate_prefix("flag = False\n")
    assert first["covered"] == [1, 4] and sr.snippet_limit < 2
    evs = sr.evaluate_batch(["flag = True\n", "flag = 1\n"], budget=20)
    assert [e["status"] for e in evs] == ["timeout", "timeout"]
    assert all(e["covered"] == [1, 2, 3] for e in evs)
    assert sum(e["wall"] for e in evs) < 2.5


def test_a_prefix_that_runs_forever_is_dropped():
    sr = SnippetRunner("a = b\n", "<s>", timeout=0.5)
    ev = sr.evaluate_prefix("while True:\n    pass\n")
    assert ev["status"] == "dropped" and "time limit" in ev["why"]


def test_search_keeps_going_after_k_rounds_while_the_budget_lasts():
    src = ("if m == 'p':\n    r1 = 1\nelif m == 'q':\n    r2 = 1\nelif m == 'r':\n"
           "    r3 = 1\nelif m == 's':\n    r4 = 1\nelse:\n    r5 = 1\n")
    r = _tf(src, n=1, k=1)
    assert r.coverage == 1.0 and len(r.prefixes) == 5 and len(r.tree) > 3


# ---------------------------------------------------------------- use-site fits (cov2)


def test_a_mapping_passed_with_double_star_is_empty_first():
    # f(**kw) into a real callable: any made-up key is an unexpected keyword
    src = "import textwrap\nout = textwrap.dedent('  a', **options)\ndone = out\n"
    cands = _cands(src, "options")
    assert cands[0] == ("const", {})
    r = _tf(src, budget=10)
    assert r.coverage == 1.0 and r.best_coverage == 1.0


def test_isinstance_target_is_never_a_non_type():
    # a guard (isinstance(x, T) else-branch exit) must not make T None/False:
    # isinstance() would raise instead of choosing a branch
    src = ("if isinstance(expr, Widget):\n    exit(1)\nelif isinstance(expr, Gadget):\n"
           "    exit(2)\nelse:\n    raise ValueError(expr)\n")
    for name in ("Widget", "Gadget"):
        cands = _cands(src, name)
        assert cands and all(c[0] not in ("none", "int", "str", "list", "dict") for c in cands)
        assert not any(c[0] == "const" and not isinstance(c[1], type) for c in cands)
    r = _tf(src, budget=10)
    assert r.coverage == 1.0
    assert not any(nd.error and "isinstance() arg 2" in nd.error.get("message", "")
                   for nd in r.tree)


def test_items_of_a_joined_tuple_literal_are_strings():
    src = "line = ''.join((span, part.text, end))\nexit(line)\n"
    facts = analyze(src)
    for path in ("span", "part.text", "end"):
        assert "str" in facts.node(path).uses
    r = _tf(src, budget=10)
    assert r.best_coverage == 1.0


def test_a_list_copy_passes_the_element_shape_to_its_source():
    # triples = list(self.find()); for a, b, c in triples: the call's result
    # holds 3-tuples
    src = ("triples = list(self.find(domain))\nif not triples:\n    raise Missing(domain)\n"
           "for loc, po, mo in triples:\n    out = (loc, po, mo)\nexit(out)\n")
    facts = analyze(src)
    ret = facts.node("self.find()")
    assert ret is not None and "iter" in ret.uses
    assert facts.node("self.find()[]").width == 3
    r = _tf(src, budget=10)
    assert 5 in r.covered and 6 in r.covered


def test_sparse_plans_define_raised_names_as_exception_classes():
    src = "if flag:\n    raise Missing('x')\ndone = 1\n"
    facts = analyze(src)
    gen = OfflineGenerator()
    plan = Plan(sparse=True)
    plan.choice["flag"] = 0
    text = gen.render(facts, plan)
    assert "Missing" in text and "Exception" in text
    r = _tf(src, budget=10)
    assert r.coverage == 1.0
    assert not any(nd.error and "derive from BaseException" in nd.error.get("message", "")
                   for nd in r.tree if nd.plan is not None and nd.plan.sparse and nd.prefix)


def test_items_of_a_local_list_given_to_join_are_strings():
    # parts = [fmt(x) for x in xs]; parts.insert(-1, sep); " ".join(parts)
    src = ("parts = [fmt(t) for t in frames]\nif sep:\n    parts.insert(-1, sep)\n"
           "text = ' '.join(parts)\nexit(text)\n")
    facts = analyze(src)
    assert "str" in facts.node("fmt()").uses and "str" in facts.node("sep").uses
    r = _tf(src, budget=10)
    assert r.best_coverage == 1.0


def test_a_value_only_tested_for_truth_is_true_or_false():
    src = ("if self.seekable:\n    pos = 0\nelse:\n    while self.read_length <= self.start:\n"
           "        self.read_length += 1\nexit(pos)\n")
    assert _cands(src, "self.seekable") == [("const", True), ("const", False), ("none",)]


def test_next_gets_an_iterator_and_str_with_an_encoding_gets_bytes():
    src = ("if value is None:\n    exit()\nvalue = str(value, 'utf-8')\n"
           "if next(PATTERN.finditer(value), None):\n    raise Bad(value)\nexit(value)\n")
    assert ("const", b"abc") in _cands(src, "value")
    cands = _cands(src, "PATTERN.finditer()")
    assert ("iterator",) in cands and ("iterator", "empty") in cands
    r = _tf(src, budget=10)
    assert r.coverage == 1.0


def test_generated_exception_classes_take_keywords():
    src = "try:\n    raise Warn('m', fp=1)\nexcept Warn as e:\n    got = e.args\nexit(got)\n"
    r = _tf(src, budget=10)
    assert r.best_coverage == 1.0


def test_module_checks_import_nothing():
    # from IPython.display import HTML: whether HTML is a module was decided by
    # importlib.util.find_spec, which imports the package (a second and more)
    import subprocess
    import sys
    code = ("import sys\nfrom lexecutor_c.prefixtree.offline import _module_exists\n"
            "assert _module_exists('xml.dom.minidom') and _module_exists('os.path')\n"
            "assert not _module_exists('xml.nosuch') and not _module_exists('nosuch.x')\n"
            "assert 'xml.dom' not in sys.modules and 'xml.dom.minidom' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_raised_name_is_only_ever_an_exception_class():
    src = "if size > limit:\n    raise TooBig('x')\ndone = 1\n"
    assert _cands(src, "TooBig") == [("exc_class",)]


def test_digits_reach_through_strip_to_the_receiver():
    src = ("h = h.lstrip('#')\nr = int(h[:2], 16)\ng = int(h[2:4], 16)\n"
           "b = int(h[4:], 16)\nexit((r, g, b))\n")
    assert _cands(src, "h")[0] == ("const", "123456")
    assert _tf(src, budget=10).best_coverage == 1.0
