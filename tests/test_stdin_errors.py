"""Runtime errors of programs that read their input (issue 23): input
descriptions to grammars (apps/inputspec.py), valid inputs, confined runs,
shrinking and complete-program detection (apps/stdinrun.py), the
``errors --input-spec`` command and ``find_errors(input_spec=)``."""
import json
import random

import pytest

import lexecutor_c
from lexecutor_c import cli
from lexecutor_c.apps import inputspec
from lexecutor_c.apps.inputspec import SpecError, grammar_from_dict, parse_description
from lexecutor_c.apps.stdinrun import completeness, find_stdin_errors

MARKDOWN = r"""The first line contains a single integer $$$t$$$ ($$$1 \le t \le 10^4$$$) — the
number of test cases. Then $$$t$$$ test cases follow.

The first line of each test case contains one integer $$$n$$$ ($$$1 \le n \le 2 \cdot 10^5$$$).

The second line of each test case contains $$$n$$$ integers $$$a_1, a_2, \ldots, a_n$$$
($$$1 \le a_i \le 10^9$$$).
"""

PLAIN_GRID = """Input
The first line contains two integers n and m (1 <= n, m <= 50). Each of the next n lines
contains a string of m characters, each of which is either '.' or '#'.
"""

HTML_TREE = """<p>The first line contains an integer <var>N</var>
(2 &le; N &le; 10<sup>5</sup>).</p>
<p>Each of the next N-1 lines contains two integers u and v (1 &le; u, v &le; N) — an edge
of the tree.</p>"""

LATEX = r"""The first line contains two integers $n$ and $k$ ($1 \leq k \leq n \leq 100$). The
second line contains $n$ distinct integers $a_1, \dots, a_n$ ($|a_i| \le 10^9$)."""

PERM = r"""The first line contains $$$n$$$ ($$$1 \le n \le 10^5$$$). The second line contains a
permutation $$$p_1, p_2, \ldots, p_n$$$ of the integers from $$$1$$$ to $$$n$$$."""

STRING = """The only line contains a string s (1 ≤ |s| ≤ 20) consisting only of characters 'a',
'b' and 'c'."""

PARENTS = r"""The first line contains $$$n$$$ ($$$2 \le n \le 100$$$). The second line contains
$$$n-1$$$ integers $$$p_2, p_3, \ldots, p_n$$$ ($$$1 \le p_i < i$$$)."""

EDGES = r"""The first line contains two integers $$$n$$$ and $$$m$$$ ($$$2 \le n \le 10$$$,
$$$1 \le m \le 10$$$). Each of the next $$$m$$$ lines contains two integers $$$u_i$$$ and
$$$v_i$$$ ($$$1 \le u_i, v_i \le n$$$, $$$u_i \ne v_i$$$)."""

PAIRS = """The first line contains n (1 ≤ n ≤ 5). Each of the next n lines contains two integers
l and r (1 ≤ l ≤ r ≤ 9)."""


def ints(text):
    return [list(map(int, ln.split())) for ln in text.strip().split("\n")]


# ---------------------------------------------------------------- parsing each notation

def test_markdown_test_cases():
    g = parse_description(MARKDOWN)
    assert g.show() == ("line: t:int[1..10^4]\nrepeat t times:\n  line: n:int[1..2*10^5]\n"
                        "  line: a:int[1..10^9] x n\n")
    assert g.accepts("2\n3\n1 2 3\n1\n5\n")
    assert "values expected" in g.check("1\n3\n1 2\n")          # count mismatch
    assert "outside" in g.check("1\n1\n0\n")                    # below the range
    assert "more input" in g.check("1\n1\n5\n7\n")


def test_plain_grid():
    g = parse_description(PLAIN_GRID)
    assert g.accepts("2 3\n.#.\n##.\n")
    assert "outside '.#'" in g.check("2 3\n.#.\n#a.\n")
    assert "length 2, not 3" in g.check("2 3\n.#.\n#.\n")


def test_html_tree():
    g = parse_description(HTML_TREE)
    (line, rep) = g.nodes
    assert rep.kind == "repeat" and rep.count == "N-1" and rep.tree == "N"
    assert g.accepts("3\n1 2\n2 3\n")
    assert not g.accepts("3\n1 2\n")                            # N-1 edges


def test_latex_chain_and_distinct():
    g = parse_description(LATEX)
    d = g.to_dict()["nodes"]
    k = d[0]["fields"][1]
    assert k["name"] == "k" and k["lo"] == "1" and k["hi"].startswith("n")
    assert d[1]["fields"][0].get("distinct") and d[1]["fields"][0]["lo"] == "-(10^9)"
    assert g.accepts("3 2\n-5 0 7\n")
    assert "distinct" in g.check("3 2\n1 1 2\n")
    assert "outside" in g.check("3 4\n1 2 3\n")                 # k > n


def test_permutation_string_parents_edges():
    g = parse_description(PERM)
    assert g.accepts("3\n2 3 1\n") and "permutation" in g.check("3\n1 2 4\n")
    g = parse_description(STRING)
    assert g.nodes[0].fields[0].alphabet == "abc"
    assert g.accepts("abca\n") and not g.accepts("abd\n") and not g.accepts("a" * 21 + "\n")
    g = parse_description(PARENTS)
    assert g.nodes[1].fields[0].count == "n-1"
    assert g.accepts("4\n1 1 2\n") and not g.accepts("4\n1 3 2\n")     # p_3 < 3
    g = parse_description(EDGES)
    assert g.accepts("3 2\n1 2\n2 3\n") and "= u" in g.check("3 1\n2 2\n")


def test_normalize_notations():
    t = inputspec.normalize(r"$$$1 \le n \le 2 \cdot 10^{5}$$$, a_{i} &le; 10<sup>9</sup>")
    assert "1 ≤ n ≤ 2 * 10^5" in t and "a_i ≤ 10^9" in t


def test_unreadable_description():
    with pytest.raises(SpecError):
        parse_description("Nothing to see here.")
    with pytest.raises(SpecError):
        inputspec.load_spec("{not json")
    with pytest.raises(SpecError):
        grammar_from_dict({"nodes": [{"kind": "loop"}]})


# ---------------------------------------------------------------- generating

@pytest.mark.parametrize("desc", [MARKDOWN, PLAIN_GRID, HTML_TREE, LATEX, PERM, STRING,
                                  PARENTS, EDGES, PAIRS])
def test_generated_inputs_are_accepted(desc):
    g = parse_description(desc)
    rng = random.Random(3)
    for mode in inputspec.MODES:
        for cap in (1, 3, 8):
            text = g.generate(rng, mode, cap)
            assert g.check(text) is None, (mode, cap, text)


def test_generator_respects_ranges_and_relations():
    g = parse_description(PAIRS)
    rng = random.Random(0)
    seen_eq = False
    for _ in range(200):
        rows = ints(g.generate(rng, "random", 5))
        (n,), pairs = rows[0], rows[1:]
        assert 1 <= n <= 5 and len(pairs) == n
        for l, r in pairs:
            assert 1 <= l <= r <= 9
            seen_eq |= l == r
    assert seen_eq                      # the boundary l == r is reached
    g = parse_description(MARKDOWN)
    big = ints(g.generate(rng, "max", 50))
    assert big[0][0] <= 50 and all(len(big[i]) <= 50 for i in range(1, len(big)))
    assert ints(g.generate(rng, "min", 8)) == [[1], [1], [1]]


def test_generated_tree_is_a_tree():
    g = parse_description(HTML_TREE)
    rng = random.Random(1)
    for mode in ("random", "min", "max"):
        rows = ints(g.generate(rng, mode, 9))
        n, edges = rows[0][0], rows[1:]
        parent = list(range(n + 1))

        def find(x):
            while parent[x] != x:
                x = parent[x]
            return x
        for u, v in edges:
            assert find(u) != find(v)       # no cycle
            parent[find(u)] = find(v)
        assert len(edges) == n - 1


def test_json_grammar_round_trip():
    g = parse_description(MARKDOWN)
    g2 = inputspec.load_spec(json.dumps(g.to_dict()))
    assert g2.show() == g.show()


# ---------------------------------------------------------------- running

ARRAY = r"""The first line contains $$$n$$$ ($$$1 \le n \le 20$$$). The second line contains
$$$n$$$ integers $$$a_1, \ldots, a_n$$$ ($$$1 \le a_i \le 9$$$)."""


def test_crash_found_and_shrunk():
    prog = ("n = int(input())\na = list(map(int, input().split()))\n"
            "if n >= 3 and a[2] >= 5:\n    print(a[n])\nprint(sum(a))\n")
    g = parse_description(ARRAY)
    rep = find_stdin_errors(prog, "prog.py", grammar=g, samples=["2\n1 2\n"], budget=20)
    (c,) = rep.crashes
    assert (c.type, c.line, c.category) == ("IndexError", 4, "real")
    assert g.accepts(c.input)
    rows = ints(c.input)
    assert rows[0] == [3] and rows[1][2] >= 5       # the smallest n that crashes
    assert len(c.input) <= len(c.first_input)
    assert rep.complete and rep.inputs_run > 10 and rep.rejected == 0


def test_clean_program_and_timeouts_apart():
    g = parse_description("The only line contains an integer x (0 ≤ x ≤ 100).")
    clean = "x = int(input())\nprint(x * 2)\n"
    rep = find_stdin_errors(clean, "c.py", grammar=g, budget=10)
    assert rep.crashes == [] and rep.timeouts == []
    loops = "x = int(input())\nwhile x % 2 == 0:\n    x //= 2\nprint(x)\n"
    rep = find_stdin_errors(loops, "l.py", grammar=g, budget=10, per_run=0.5)
    assert rep.crashes == [] and "0\n" in rep.timeouts


def test_complete_program_name_errors_are_real():
    c = completeness("s = raw_input()\nprint(len(s))\n")
    assert c.complete and c.undefined == {"raw_input": "python2"}
    g = parse_description(STRING)
    rep = find_stdin_errors("s = raw_input()\nprint(len(s))\n", "p2.py", grammar=g, budget=5)
    assert [(x.type, x.line, x.category) for x in rep.crashes] == [("NameError", 1, "real")]
    typo = ("n = int(input())\na = list(map(int, input().split()))\nif n == 1:\n"
            "    prnt(a[0])\nelse:\n    print(max(a))\n")
    assert completeness(typo).undefined == {"prnt": "typo of print"}
    rep = find_stdin_errors(typo, "t.py", grammar=parse_description(ARRAY), budget=10)
    (x,) = rep.crashes
    assert (x.type, x.line, x.category) == ("NameError", 4, "real") and x.input.startswith("1\n")
    assert "complete program" in rep.assumption


def test_incomplete_program_name_error_is_missing():
    prog = "n = int(input())\nprint(solve_it(n))\n"
    c = completeness(prog)
    assert not c.complete and c.undefined == {"solve_it": "unknown"}
    g = parse_description("The only line contains an integer n (1 ≤ n ≤ 9).")
    rep = find_stdin_errors(prog, "i.py", grammar=g, budget=5)
    assert [(x.type, x.category) for x in rep.crashes] == [("NameError", "missing")]
    assert rep.assumption.startswith("incomplete program")


def test_inferred_from_reads_without_description():
    prog = ("n = int(input())\na = list(map(int, input().split()))\n"
            "print(a[1] - a[0])\n")
    rep = lexecutor_c.find_errors(prog, budget=5)
    assert rep.source_of_runs == "stdin inputs (inferred)"
    (g,) = rep.real
    assert (g.type, g.line) == ("IndexError", 3) and g.input.split("\n")[0] == "1"


def test_find_errors_with_input_spec(tmp_path):
    p = tmp_path / "prog.py"
    p.write_text("t = int(input())\nfor _ in range(t):\n    n = int(input())\n"
                 "    a = list(map(int, input().split()))\n"
                 "    print(sum(a) // (max(a) - min(a)))\n")
    rep = lexecutor_c.find_errors(p, input_spec=MARKDOWN, stdin="1\n2\n1 3\n", budget=10)
    (g,) = rep.errors
    assert (g.type, g.line, g.category) == ("ZeroDivisionError", 5, "real")
    assert rep.stdin["mode"] == "grammar" and "repeat t times" in rep.stdin["grammar"]
    assert parse_description(MARKDOWN).accepts(g.input)


# ---------------------------------------------------------------- the command

@pytest.fixture
def files(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("n = int(input())\na = list(map(int, input().split()))\n"
                    "print(a[-2])\n")
    clean = tmp_path / "clean.py"
    clean.write_text("n = int(input())\na = list(map(int, input().split()))\nprint(a[-1])\n")
    spec = tmp_path / "input.md"
    spec.write_text(ARRAY)
    return prog, clean, spec, tmp_path


def test_cli_exit_codes_and_json(files, capsys):
    prog, clean, spec, tmp = files
    code = cli.main(["errors", str(prog), "--input-spec", str(spec), "--json",
                     "--budget", "5"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    (e,) = doc["errors"]
    assert (e["category"], e["type"], e["line"]) == ("real", "IndexError", 3)
    assert e["input"].startswith("1\n")
    code = cli.main(["errors", str(clean), "--input-spec", str(spec), "--budget", "5",
                     "--show-grammar"])
    out = capsys.readouterr().out
    assert code == 0 and "a:int[1..9] x n" in out and "no run ended" in out


def test_cli_bad_spec_files(files, capsys):
    prog, _clean, _spec, tmp = files
    assert cli.main(["errors", str(prog), "--input-spec", str(tmp / "nope.md")]) == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp / "bad.md"
    bad.write_text("Nothing here reads as input.")
    assert cli.main(["errors", str(prog), "--input-spec", str(bad)]) == 2
    assert "cannot read the input description" in capsys.readouterr().err
    bad.write_text('{"nodes": 3}')
    assert cli.main(["errors", str(prog), "--input-spec", str(bad)]) == 2
    bad.write_bytes(b"\xff\xfe\x00")
    assert cli.main(["errors", str(prog), "--input-spec", str(bad)]) == 2
    assert cli.main(["errors", str(prog), "--show-grammar"]) == 2


# ---------------------------------------------------------------- the LLM backend

def test_llm_backend_with_a_scripted_client():
    answer = json.dumps({"nodes": [{"kind": "line", "fields": [
        {"kind": "int", "name": "n", "lo": 1, "hi": 5}]}]})
    seen = {}

    def chat(messages, n, **kw):
        seen.update(kw, messages=messages)
        return {"choices": [{"content": "Here:\n```json\n" + answer + "\n```"}]}
    g = inputspec.llm_grammar("An integer, you know.", chat=chat, model="m")
    assert g.accepts("3\n") and not g.accepts("6\n")
    assert seen["model"] == "m" and "An integer" in seen["messages"][1]["content"]
    with pytest.raises(SpecError):
        inputspec.llm_grammar("x", chat=lambda **kw: {"choices": [{"content": "no idea"}]})


def test_llm_backend_on_loopback(httpserver):
    pytest.importorskip("pytest_httpserver")
    from lexecutor_c import _core
    if getattr(_core, "llm_chat", None) is None:
        pytest.skip("no LLM client in this build")
    answer = {"nodes": [{"kind": "line", "fields": [{"kind": "str", "name": "s",
                                                     "alphabet": "ab"}]}]}
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_json(
        {"choices": [{"index": 0, "message": {"role": "assistant",
                                              "content": json.dumps(answer)},
                      "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
    g = inputspec.llm_grammar("strings", base_url=httpserver.url_for("/v1"), model="m",
                              api_key="k", max_retries=0)
    assert g.accepts("abba\n") and not g.accepts("abc\n")


def test_format_block_notation():
    g = parse_description("""Input is given from Standard Input in the following format:
H W
S_1
S_2
:
S_H

Constraints
* 1 \\leq H, W \\leq 20
* S_i is a string of length W consisting of '.' and '#'.
""")
    assert g.show() == ("line: H:int[1..20] W:int[1..20]\nrepeat H times:\n"
                        "  line: S:str('.#', len W)\n")
    assert g.accepts("2 3\n.#.\n###\n") and not g.accepts("2 3\n.#.\n##\n")
    g = parse_description("Input is given in the following format:\nN\nA_1 A_2 ... A_N\n"
                          "\nConstraints\n- 2 <= N <= 5\n- -3 <= A_i <= 3\n")
    assert g.accepts("2\n-3 3\n") and not g.accepts("2\n-4 3\n") and not g.accepts("1\n0\n")


def test_then_lines_follow_and_test_case_per_line():
    g = parse_description("The first line contains n (1 ≤ n ≤ 9). Then n lines follow. The "
                          "i-th of them contains two integers a_i and b_i (0 ≤ a_i, b_i ≤ 5).")
    assert g.accepts("2\n0 5\n1 1\n") and not g.accepts("2\n0 5\n")
    g = parse_description(r"The first line contains the number of test cases $T$ ($1 \le T \le "
                          r"5$). Each test case is a line with three integers $a$, $b$, $c$ "
                          r"($0 \le a, b, c \le 10$).")
    assert g.accepts("2\n1 2 3\n0 0 0\n") and not g.accepts("2\n1 2 3\n")


def test_grammar_that_rejects_a_sample_claims_nothing_from_generated_inputs():
    g = parse_description("The only line contains an integer x (1 ≤ x ≤ 9).")
    prog = "s = input().split()\nprint(int(s[0]) + int(s[1]))\n"
    rep = find_stdin_errors(prog, "w.py", grammar=g, samples=["3 4\n"], budget=5)
    assert any("does not accept a sample" in n for n in rep.notes)
    assert rep.crashes and all(c.category != "real" for c in rep.crashes)


def test_samples_extracted_from_a_whole_statement(tmp_path):
    html_doc = ("<h3>Input</h3><p>The only line contains an integer n (1 &le; n &le; 9).</p>"
                "<h3>Output</h3><p>Print it.</p><h3>Sample Input 1</h3><pre>\n4\n</pre>"
                "<h3>Sample Output 1</h3><pre>4</pre><h3>Sample Input 2</h3><pre>7\n</pre>")
    assert inputspec.extract_samples(html_doc) == ["4\n", "7\n"]
    md = ("## Input\nThe only line contains an integer n (1 <= n <= 9).\n\n## Output\nIt.\n\n"
          "### Sample Input 1\n```\n5\n```\n### Sample Output 1\n```\n5\n```\n")
    assert inputspec.extract_samples(md) == ["5\n"]
    assert parse_description(md).accepts("5\n") and not parse_description(md).accepts("10\n")
    # a grammar that rejects the statement's own sample is not trusted
    spec = tmp_path / "statement.md"
    spec.write_text(md.replace("```\n5\n```\n### Sample Output", "```\n5 5\n```\n### Sample "
                                                                  "Output"))
    prog = tmp_path / "p.py"
    prog.write_text("a = input().split()\nprint(10 // (int(a[0]) - 5))\n")
    rep = lexecutor_c.find_errors(prog, input_spec=spec, budget=5)
    assert any("does not accept a sample" in n for n in rep.notes)
    assert [(g.type, g.line, g.category) for g in rep.errors] == [
        ("ZeroDivisionError", 2, "real")]          # the sample itself crashes
    assert rep.errors[0].input == "5 5\n"


def test_interpreter_death_is_reported_apart():
    g = parse_description("The only line contains an integer x (0 ≤ x ≤ 3).")
    prog = "import ctypes\nx = int(input())\nif x == 0:\n    ctypes.string_at(0)\nprint(x)\n"
    rep = find_stdin_errors(prog, "k.py", grammar=g, budget=5)
    assert rep.crashes == [] and rep.killed and rep.killed[0]["input"] == "0\n"
    assert "SIGSEGV" in rep.killed[0]["why"]


def test_cli_llm_failure_exits_1(files, capsys, monkeypatch):
    prog, _clean, _spec, tmp = files
    bad = tmp / "vague.md"
    bad.write_text("Nothing here reads as input.")
    monkeypatch.setattr(inputspec, "llm_grammar",
                        lambda text, **kw: (_ for _ in ()).throw(RuntimeError("no route")))
    assert cli.main(["errors", str(prog), "--input-spec", str(bad), "--llm"]) == 1
    assert "LLM backend gave no grammar: no route" in capsys.readouterr().err


def test_reads_checked_against_the_description():
    from lexecutor_c.apps.stdinrun import compare_reads
    import ast
    g = parse_description("The first line contains two integers n and m (1 ≤ n, m ≤ 5).")
    assert compare_reads(g, ast.parse("n = int(input())\n")) == [
        "the first read (line 1) takes 1 value(s), the description's first line has 2: "
        "check the grammar (--show-grammar)"]
    assert compare_reads(g, ast.parse("n, m = map(int, input().split())\n")) == []
    assert compare_reads(g, ast.parse("a, b, c = map(int, input().split())\n"))
