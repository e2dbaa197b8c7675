"""Treefix loop: static facts, prefix post-processing, set cover, the tree,
the loop on snippets with known answers, offline repairs, bad input, CLI."""
import json
import re
import os

import pytest

import lexecutor_c
from lexecutor_c import TreefixError, treefix
from lexecutor_c.prefixtree import (OfflineGenerator, Plan, Proposal, annotate_uncovered,
                                  greedy_cover, name_heuristic, postprocess)
from lexecutor_c.prefixtree.analysis import analyze
from lexecutor_c.prefixtree.core import SnippetRunner

HERE = os.path.dirname(__file__)
FIGURE1 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
                       "examples", "treefix_figure1.py")
FIGURE1_TEXT = """\
try:
    register = get_register_func(self.user_type)
    if register is not None:
        self.email = register(self.name, self.alias)
        if '@' in self.email:
            result = 0
        else:
            result = -1
    else:
        result = -2
except SystemExit:
    result = 1
"""

# ---------------------------------------------------------------- static facts


def test_undefined_names_come_from_the_instrumenter_with_scopes():
    src = ("import os\n"
           "def f(a):\n"
           "    return a + b + d.year + p.init(1, 2)\n"
           "x = [y for y in range(3)]\n"
           "print(x, z)\n")
    facts = analyze(src)
    assert [u.name for u in facts.undefined] == ["b", "d", "p", "z"]
    assert facts.roots["d"].attrs["year"].path == "d.year"
    assert facts.roots["p"].attrs["init"].arities == {2}


def test_facts_follow_assignments_calls_and_branches():
    facts = analyze(FIGURE1_TEXT)
    reg = facts.node("get_register_func()")
    assert reg is not None and "none" in reg.uses            # register is not None
    email = facts.node("get_register_func()()")
    assert email.contains == ["@"]                            # '@' in self.email
    assert facts.node("get_register_func").raises == ["SystemExit"]
    assert facts.handler_lines == {11: ["SystemExit"]}
    assert "get_register_func()" in facts.guards[6]


def test_facts_iteration_keys_comparisons_and_paths():
    src = ("for k, v in cfg.items():\n"
           "    if v['mode'] == 'fast':\n"
           "        print(k)\n"
           "for a, b in pairs:\n"
           "    print(a + 1)\n"
           "with open(data_file) as f:\n"
           "    pass\n"
           "if name.startswith('test_'):\n"
           "    pass\n")
    facts = analyze(src)
    v = facts.node("cfg[]")
    assert "mode" in v.keys and ("Eq", "fast") in v.element().compared
    assert facts.roots["pairs"].element().width == 2
    assert "path" in facts.roots["data_file"].uses
    assert ("startswith", "test_") in facts.roots["name"].compared


def test_augmented_assignment_operand_is_used_like_its_target():
    facts = analyze("self.count += by\n"
                    "cfg.text += 'x'\n"
                    "cfg.text += sep\n"
                    "cfg.items += [1]\n"
                    "cfg.items += more\n"
                    "size = 1\n"
                    "size *= k\n"
                    "label = ''\n"
                    "label += part\n")
    assert facts.roots["by"].uses == {"num"}
    assert facts.roots["sep"].uses == {"str"}
    assert facts.roots["more"].uses == {"list"}
    assert facts.roots["k"].uses == {"num"}
    assert "num" not in facts.roots["part"].uses     # the local's type is not known here
    plans = OfflineGenerator(seed=0).initial(analyze("self.count += by\n"), 4)
    assert re.search(r"^by = \d+$", plans[0].prefix, re.M)


def test_a_parameter_used_as_a_plain_value_gets_a_value_not_an_import():
    # a function's body: ``index`` and ``copy`` are its parameters, passed on
    # and read, never called nor asked for an attribute (operator.index and
    # copy.copy are what their names alone would import)
    src = "lists[0].insert(index, item)\nif copy:\n    lists = list(lists)\n"
    guessed = OfflineGenerator(seed=0).initial(analyze(src), 4)[0].prefix
    assert "from operator import index" in guessed and "from copy import copy" in guessed
    plans = OfflineGenerator(seed=0, passed=frozenset({"index", "copy", "item", "lists"})) \
        .initial(analyze(src), 4)
    assert not any("import" in p.prefix for p in plans), [p.prefix for p in plans]
    assert re.search(r"^index = \d+$", plans[0].prefix, re.M), plans[0].prefix
    # a parameter the body calls keeps the guess (a passed-in function)
    called = OfflineGenerator(seed=0, passed=frozenset({"dumps"})).initial(
        analyze("text = dumps(value)\n"), 4)
    assert any("import dumps" in p.prefix for p in called), [p.prefix for p in called]


def test_a_value_of_a_class_python_will_not_build_comes_from_its_factory_or_a_stand_in():
    # ``m = pattern.match(text)`` then ``m.groupdict()``: the index's class
    # with those methods is re.Match, which ``re.Match()`` cannot build; the
    # prefix's statement raised, was dropped, and the stand-in's method
    # returned a name never bound (NameError in every run)
    from lexecutor_c.knowledge.resolve import construct, constructible
    src = "m = pattern.match(text)\nif m is not None:\n    print(m.groupdict(), m.group(1))\n"
    plans = OfflineGenerator(seed=0).initial(analyze(src), 4)
    assert plans
    for p in plans:
        ns: dict = {}
        exec(compile(p.prefix, "<prefix>", "exec"), ns)     # every statement runs
        ns["pattern"].match("abc")                           # and the stand-in answers
    assert any("re.match(" in p.prefix for p in plans), [p.prefix for p in plans]
    imp, expr = construct("re.Match", {})
    ns = {}
    exec(imp, ns)
    assert type(eval(expr, ns)).__name__ == "Match"
    # classes calling cannot build, without a factory: no candidate
    for q in ("types.FrameType", "numbers.Real", "os.DirEntry", "importlib.metadata.EntryPoint"):
        assert not constructible(q), q
    for q in ("re.Match", "re.Pattern", "collections.deque", "io.StringIO", "somepkg.Thing"):
        assert constructible(q), q


def test_a_call_s_result_the_body_returns_gets_an_object_not_none():
    # diskcache's DjangoCache.delete: ``self._cache.delete(key)`` became
    # ``return self._cache.delete(key)``; a stand-in answering None made the
    # two versions return the same None on every input
    from lexecutor_c.prefixtree.flow import WRAPPER
    src = (f"def {WRAPPER}():\n    key = self.make_key(key)\n"
           "    return self._cache.delete(key, retry)\n")
    facts = analyze(src)
    assert "returned" in facts.node("self._cache.delete()").uses
    assert "returned" not in facts.node("self.make_key()").uses
    first = OfflineGenerator(seed=0).initial(facts, 4)[0].prefix
    ns: dict = {}
    exec(compile(first, "<prefix>", "exec"), ns)
    assert ns["self"]._cache.delete("k", True) is not None, first
    # a result the body only uses as an argument keeps what it had
    plain = OfflineGenerator(seed=0).initial(analyze(
        f"def {WRAPPER}():\n    self._cache.delete(key, retry)\n    return None\n"), 4)[0]
    ns = {}
    exec(compile(plain.prefix, "<prefix>", "exec"), ns)
    got = getattr(getattr(ns.get("self"), "_cache", None), "delete", None)
    assert got is None or got("k", True) is None, plain.prefix


# ---------------------------------------------------------------- post-processing


def test_postprocess_drops_raising_statements():
    pre = "x = 1\ny = undefined_thing\nz = [x]\nw = 1 / 0\n"
    text, dropped, why = postprocess(pre, timeout=5)
    assert why is None
    assert text == "x = 1\nz = [x]\n"
    assert dropped == [2, 4]


def test_postprocess_drops_whole_compound_statements():
    pre = "class A:\n    v = nope\nok = 1\n"
    text, dropped, why = postprocess(pre, timeout=5)
    assert text == "ok = 1\n" and dropped == [1, 2]


def test_postprocess_gives_up_after_ten_rounds():
    pre = "".join(f"v{i} = missing{i}\n" for i in range(12)) + "good = 1\n"
    text, dropped, why = postprocess(pre, timeout=5)
    assert text is None and "10 rounds" in why and len(dropped) == 11


def test_postprocess_time_limit_and_syntax():
    text, _, why = postprocess("while True:\n    pass\n", timeout=0.3)
    assert text is None and "time limit" in why
    text, _, why = postprocess("def (:\n", timeout=1)
    assert text is None and "does not parse" in why
    assert postprocess("", timeout=1) == ("", [], None)


# ---------------------------------------------------------------- set cover, tree


def test_greedy_cover_picks_a_small_covering_set():
    sets = [[1, 2, 3], [1, 2], [4], [3, 4, 5], [5]]
    assert greedy_cover(sets) == [0, 3]
    assert greedy_cover([[], []]) == []
    assert greedy_cover([[1], [1]]) == [0]                     # ties: the earlier


def test_annotate_uncovered():
    assert annotate_uncovered("a\nb\nc\n", [2]) == "a\nb  # uncovered\nc\n"


def test_coverage_counts_only_the_snippets_lines():
    sr = SnippetRunner("a = x\nb = 2\n", "<s>", timeout=5)
    ev = sr.evaluate("x = 1\ny = 2\nz = 3\n")
    assert sr.total == 2 and ev["covered"] == [1, 2] and ev["coverage"] == 1.0
    ev = sr.evaluate("x = 1\n")
    assert ev["covered"] == [1, 2]


def test_tree_json_and_result_fields():
    r = treefix("if flag is None:\n    a = 1\nelse:\n    b = d.year\n", budget=20, seed=1)
    doc = json.loads(r.tree_json())
    assert doc["total_lines"] == r.total_lines
    nodes = doc["nodes"]
    assert nodes[0]["prefix"] == "" and nodes[0]["step"] == "initial"
    for nd in nodes:
        assert set(nd) >= {"id", "step", "parent", "prefix", "coverage", "covered", "error"}
        assert nd["step"] in ("initial", "error", "coverage")
        assert nd["parent"] is None or nd["parent"] < nd["id"]
    full = json.loads(r.to_json())
    assert full["coverage"] == r.coverage and full["prefixes"] == r.prefixes
    assert set(r.timings) >= {"total", "run", "postprocess", "generate", "runs"}


# ---------------------------------------------------------------- the loop


def test_loop_reaches_both_branches_and_the_attribute():
    src = "if x is None:\n    a = 1\nelse:\n    b = d.year + 1\n    c = b * 2\n"
    r = treefix(src, budget=20, seed=0)
    assert r.coverage == 1.0
    assert len(r.prefixes) >= 2
    assert r.best_coverage < 1.0                    # no single prefix takes both branches
    assert any("x = None" in p for p in r.prefixes)


def test_figure1_is_fully_covered_by_P():
    src = FIGURE1 if os.path.exists(FIGURE1) else FIGURE1_TEXT
    r = treefix(src, budget=20, seed=0)
    assert r.coverage == 1.0
    assert r.baseline_coverage is not None and r.baseline_coverage < 1.0
    assert any("SystemExit" in p for p in r.prefixes)
    assert any("@" in p for p in r.prefixes)


def test_loop_stops_at_full_coverage_and_respects_max_runs():
    r = treefix("a = 1\nb = a + 1\n", budget=10)
    assert r.coverage == 1.0 and len(r.tree) == 1          # the empty prefix is enough
    r = treefix("if x > 3:\n    a = 1\nelif x == 0:\n    b = 2\nelse:\n    c = 3\n",
                max_runs=3)
    assert len(r.tree) <= 3


class ScriptedGenerator:
    """A generator with fixed answers: checks how the loop calls steps 2 and 3."""
    name = "scripted"

    def __init__(self):
        self.calls = []

    def initial(self, facts, n):
        self.calls.append("initial")
        return [Proposal("v = {}\n", note="bad"), Proposal("v = {'k': 1}\n")]

    def repair(self, facts, plan, error, n, node=None):
        self.calls.append(("repair", error["type"], node.id))
        return [Proposal("v = {'k': 2}\n")]

    def guide(self, facts, uncovered, bases, n, annotated=""):
        self.calls.append(("guide", tuple(uncovered), "# uncovered" in annotated))
        return [Proposal("v = {'k': 0}\n")]


def test_loop_steps_with_a_scripted_generator():
    gen = ScriptedGenerator()
    src = "x = v['k']\nif x:\n    y = 1\nelse:\n    y = 2\n"
    r = treefix(src, generator=gen, k=2, budget=20)
    assert gen.calls[0] == "initial"
    assert ("repair", "KeyError", 1) in gen.calls
    assert ("guide", (5,), True) in gen.calls
    assert r.coverage == 1.0
    steps = {nd.prefix: (nd.step, nd.parent) for nd in r.tree}
    assert steps["v = {'k': 2}\n"] == ("error", 1)
    assert steps["v = {'k': 0}\n"][0] == "coverage"


# ---------------------------------------------------------------- offline generator


def _repair(src, error, plan=None):
    facts = analyze(src)
    gen = OfflineGenerator(seed=0)
    return facts, gen, gen.repair(facts, plan or Plan(), error, 20)


def test_repair_missing_key():
    facts, gen, props = _repair("x = cfg['a']\ny = cfg['zz']\n",
                                {"type": "KeyError", "message": "'zz'", "line": 2})
    assert any("'zz'" in p.prefix for p in props)


def test_repair_file_not_found_creates_the_file():
    src = "with open(name_of_file) as f:\n    rows = f.read().split()\n"
    facts, gen, props = _repair(src, {"type": "FileNotFoundError", "line": 1,
                                      "message": "[Errno 2] No such file or directory: 'in.csv'"})
    p = next(p for p in props if "in.csv" in p.prefix)
    assert "open('in.csv', 'w')" in p.prefix
    r = treefix(src, budget=20)
    assert r.coverage == 1.0


def test_repair_unpacking_width_and_not_iterable():
    src = "for a, b, c in rows:\n    print(a)\n"
    facts, gen, props = _repair(src, {"type": "ValueError", "line": 1, "message":
                                      "not enough values to unpack (expected 3, got 2)"})
    assert any("(" in p.prefix and p.prefix.count(",") >= 2 for p in props)
    facts, gen, props = _repair("for v in things:\n    pass\n",
                                {"type": "TypeError", "line": 1,
                                 "message": "'int' object is not iterable"})
    assert any("things = [" in p.prefix for p in props)


def test_repair_a_made_up_number_joined_to_a_path_becomes_text():
    src = ("from pathlib import Path\nBASE = Path('/tmp')\ncfg = load()\n"
           "dest = BASE / cfg.into\nprint(dest.name)\n")
    facts, gen, props = _repair(src, {"type": "TypeError", "line": 4, "message":
                                      "unsupported operand type(s) for /: 'PosixPath' and 'int'"})
    assert "_load_ret.into = 'into'" in props[0].prefix, props[0].prefix


def test_repair_a_value_of_the_wrong_type_first_gives_a_call_its_result():
    src = "n = '%.1f' % value\ns = n.replace('.', separator())\n"
    facts, gen, props = _repair(src, {"type": "TypeError", "line": 2, "message":
                                      "replace() argument 2 must be str, not NoneType"})
    assert "def separator(*args, **kwargs):\n    return 'separator'" in props[0].prefix
    # the name called is never made a text
    assert not any("separator = '" in p.prefix for p in props)


def test_repair_super_and_tolerant_open():
    facts, gen, props = _repair("x = super().run()\n", {"type": "RuntimeError", "line": 1,
                                                        "message": "super(): no arguments"})
    assert any("def super(" in p.prefix for p in props)
    r = treefix("f = open('x.log', 'a', 0)\nf.write('a')\n", budget=20)
    assert r.coverage == 1.0


def test_offline_branch_values_and_handlers():
    src = ("try:\n"
           "    v = load(path)\n"
           "except ValueError:\n"
           "    v = None\n"
           "if mode == 'fast':\n"
           "    speed = 2\n"
           "elif mode in ('slow', 'idle'):\n"
           "    speed = 0\n"
           "if text.startswith('#'):\n"
           "    kind = 'comment'\n")
    r = treefix(src, budget=30, seed=0)
    assert r.coverage == 1.0


def test_imports_for_module_aliases_and_unresolved():
    facts = analyze("a = np.zeros(3)\nb = os.path.join('a', 'b')\nc = pd.DataFrame()\n")
    gen = OfflineGenerator(check_module=lambda m: m in ("numpy", "os"))
    prefix = gen.render(facts, Plan())
    assert "import numpy as np" in prefix and "import os" in prefix
    assert "pandas" in gen.unresolved_imports and "pandas" not in prefix


def test_value_model_is_pluggable():
    asked = []

    def model(name, kind, context):
        asked.append((name, kind))
        return ["dict_nonempty"] if name == "thing" else []

    facts = analyze("print(thing)\n")
    gen = OfflineGenerator(value_model=model)
    assert gen.candidates(facts, facts.roots["thing"])[0] == ("dict",)
    assert ("thing", "name") in asked
    assert name_heuristic("is_valid") == ["True", "False"]
    assert name_heuristic("items")[0] == "list_nonempty"
    assert name_heuristic("out_path") == ["path"]
    assert name_heuristic("n_rows")[0] == "int_pos"
    assert name_heuristic("alias")[0] == "str_nonempty"


def test_generated_methods_have_the_call_sites_arity():
    facts = analyze("p.init(1, 2)\nq = f(3)\n")
    prefix = OfflineGenerator().render(facts, Plan())
    assert "def init(self, a0=None, a1=None, *args, **kwargs)" in prefix
    assert "def f(a0=None, *args, **kwargs)" in prefix      # called by keyword too


# ---------------------------------------------------------------- bad input, CLI


def test_bad_input():
    with pytest.raises(TreefixError):
        treefix("x = 1\n", n=0)
    with pytest.raises(TreefixError):
        treefix("x = 1\n", k=-1)
    with pytest.raises(TreefixError):
        treefix("x = 1\n", generator="gpt")
    with pytest.raises(TreefixError):
        treefix("x = 1\n", timeout=0)
    with pytest.raises(SyntaxError):
        treefix("print 'hello'\n")
    with pytest.raises(TypeError):
        treefix(42)


def test_cli_treefix_json_and_errors(tmp_path, capsys):
    from lexecutor_c.cli import main
    f = tmp_path / "s.py"
    f.write_text("if x is None:\n    a = 1\nelse:\n    b = x.year\n")
    tree = tmp_path / "tree.json"
    assert main(["treefix", str(f), "--json", "--budget", "20", "--tree", str(tree)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["coverage"] == 1.0 and out["tree"]
    assert json.loads(tree.read_text())["nodes"]
    assert main(["treefix", str(f), "-n", "0"]) == 2
    assert main(["treefix", str(tmp_path / "missing.py")]) == 2
    bad = tmp_path / "bad.py"
    bad.write_text("print 'x'\n")
    assert main(["treefix", str(bad)]) == 2
    assert "syntax error" in capsys.readouterr().err
    assert main(["treefix", str(f)]) == 0
    out = capsys.readouterr().out
    assert "together (greedy set cover), all 3 lines ran" in out
    assert "(the papers' coverage metric): P 100.0%" in out


def test_the_values_min_and_max_compare_are_numbers():
    # ``min(result, self.max)``: each of two values a number, not an
    # iterable (only ``min(values)`` takes one); a list for ``self.max`` made
    # every input fail alike at the call
    facts = analyze("result = min(result, self.max)\nlow = max(values)\n")
    assert facts.roots["result"].uses == {"num"}
    assert facts.roots["self"].attrs["max"].uses == {"num"}
    assert facts.roots["values"].uses == {"iter"}


def test_a_name_request_is_not_given_flasks_context_proxy():
    # flask's ``request`` raises RuntimeError on every use outside a request:
    # a parameter (or snippet name) so called got it and no run went past its
    # first use; names whose module is known still get their import
    from lexecutor_c.prefixtree.offline import ALIASES
    assert "request" not in ALIASES and ALIASES["Flask"] == "flask.Flask"
    gen = OfflineGenerator()
    assert gen._module_for("request") is None
    assert gen._module_for("np") in ("numpy", None)
    assert gen._module_for("json") == "json"


def test_a_match_whose_groups_the_code_reads_by_name_has_those_groups():
    # ``groups = m.groupdict()`` then ``groups['scheme']`` / ``.get('login')``
    # and ``m.group('path')``: a real match with one named group each (an
    # unnamed ``(.)`` group raised KeyError before the lines after it ran)
    src = ("m = VCS_REGEX.match(line)\nif m is not None:\n    groups = m.groupdict()\n"
           "    if groups.get('login'):\n        uri = groups['scheme'] + m.group('path')\n")
    plans = OfflineGenerator(seed=0, passed=frozenset({"line"})).initial(analyze(src), 6)
    found = []
    for p in plans:
        ns: dict = {}
        exec(compile(p.prefix, "<prefix>", "exec"), ns)
        m = ns["VCS_REGEX"].match("x") if "VCS_REGEX" in ns else None
        if m is not None and hasattr(m, "groupdict"):
            found.append(m.groupdict())
    assert any({"login", "scheme", "path"} <= set(g) and g["login"] for g in found), \
        [p.prefix for p in plans]


def test_a_dict_spread_into_a_format_template_holds_each_field():
    # '{scheme}://{path}'.format(**groups): groups needs both keys
    from lexecutor_c.prefixtree.analysis import _format_fields
    facts = analyze("uri = '{scheme}://{login}@{path}'.format(**groups)\n")
    assert {"scheme", "login", "path"} <= set(facts.roots["groups"].keys)
    assert _format_fields("{a.b}{c[0]}{}{0}{{x}}") == ["a", "c"]
    assert _format_fields("{unclosed") == []
    plans = OfflineGenerator(seed=0).initial(facts, 4)
    for p in plans:
        ns: dict = {}
        exec(compile(p.prefix, "<prefix>", "exec"), ns)
        if isinstance(ns.get("groups"), dict):
            "{scheme}://{login}@{path}".format(**ns["groups"])      # no KeyError
            break
    else:
        raise AssertionError([p.prefix for p in plans])


def test_a_sequence_entered_by_a_with_is_its_own_context_manager():
    # ``with self._transact() as (sql, cleanup)``: the value made for the call
    # is unpacked by the target, so a tuple is chosen; a bare tuple is no
    # context manager and the with statement failed before its body ran
    src = "with db.transact(retry) as (sql, cleanup):\n    rows = sql('SELECT 1')\n"
    plans = OfflineGenerator(seed=0, passed=frozenset({"retry"})).initial(analyze(src), 8)
    ran = 0
    for p in plans:
        if "_lx_Entered_tuple(" not in p.prefix:
            continue
        ns: dict = {}
        exec(compile(p.prefix, "<prefix>", "exec"), ns)
        with ns["db"].transact(1) as (sql, cleanup):
            ran += 1
    assert ran, [p.prefix for p in plans]


def test_a_comprehension_tells_what_its_items_are():
    # what ``[n[1:] for n in xs if n[-1:] != '/' and n.startswith('a')]``
    # does with ``n`` is what the items of ``xs`` are, as in the ``for``
    # statement written out (the element and the conditions used to be read
    # before ``n`` was bound, so the items were made up as lists)
    comp = analyze("names = [n[1:] for n in store.listing() "
                   "if n[-1:] != '/' and n.startswith('a')]\n")
    loop = analyze("for n in store.listing():\n"
                   "    if n[-1:] != '/' and n.startswith('a'):\n        x = n[1:]\n")
    item = comp.node("store.listing()[]")
    assert item is not None and {"sliced", "strmeth"} <= item.uses
    assert item.uses == loop.node("store.listing()[]").uses
    # a dict comprehension's key and value; a generator's item
    d = analyze("out = {k: v.strip() for k, v in pairs.items() if k}\n")
    assert "strmeth" in d.node("pairs[]").uses
    g = analyze("total = sum(x.count('a') for x in rows)\n")
    assert "strmeth" in g.node("rows[]").uses
    plans = OfflineGenerator(seed=0).initial(comp, 4)
    for p in plans:
        ns: dict = {}
        exec(compile(p.prefix, "<prefix>", "exec"), ns)
        items = list(ns["store"].listing()) if "store" in ns else []
        if items and all(isinstance(x, str) for x in items):
            break
    else:
        raise AssertionError([p.prefix for p in plans])
