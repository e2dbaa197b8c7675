"""``lexecutor-c demo``: the LExecutor paper's Figure 1, as is and with injection."""
from __future__ import annotations

import json

from .common import EXIT_OK, PathArg, UsageError, command
from .ui import UI, status_text


# What the LExecutor paper reports for its Figure 1 (see
# ../shared/examples/README.md beside the project).
FIGURE1_EXPECTED = {
    "as-is": "crashes at once (NameError on line 1)",
    "has_min_size": "a function returning True",
    "all_data": "a non-empty list",
    "config_str": "a non-empty string",
    "logger": "an object whose info is a method returning None",
    "coverage": "every line runs but the raise on line 2, skipped because has_min_size "
                "returns True",
}
#: the same as checks on the injections: name -> [(kind, classes that match)]
FIGURE1_CHECKS = {
    "has_min_size": [("name", {"callable"}), ("call", {"True"})],
    "all_data": [("name", {"list_nonempty"})],
    "config_str": [("name", {"str_nonempty"})],
    "logger": [("name", {"object"}), ("attribute info", {"callable"}), ("call info", {"None"})],
}
#: the lines the paper's run executes: all but the raise on line 2
FIGURE1_LINES_RUN = [1, 4, 6]


def figure1_matches(result) -> dict:
    """For each name of FIGURE1_CHECKS whether the run injected what the
    paper describes, and whether the lines the paper runs ran
    (Result.lines_ran: the ``if`` on line 1 ran its test although its block
    was skipped)."""
    got = {}
    for inj in result.injections:
        key = inj["name"] if inj["kind"] == "name" else f"{inj['kind']} {inj['name']}"
        got.setdefault(key, []).append(inj["cls"])
    out = {}
    for name, checks in FIGURE1_CHECKS.items():
        ok = True
        for kind, classes in checks:
            key = name if kind == "name" else (f"{kind} {name}" if " " not in kind else kind)
            ok = ok and bool(got.get(key)) and all(c in classes for c in got[key])
        out[name] = ok
    ran = result.lines_ran
    if ran is None:          # a Result from an older version: markers and injections
        ran = sorted(set(result.covered or []) | {i["line"] for i in result.injections
                                                   if i["line"] is not None})
    out["lines_run"] = ran
    out["coverage"] = ran == FIGURE1_LINES_RUN and result.status == "ok"
    return out


@command("demo", help="run the paper's Figure 1 example and compare with what the paper reports")
def _demo_args(p):
    p.add_argument("--predictor", default="naive",
                   choices=[x for x in ("naive", "random", "frequency", "neural")],
                   help="predictor for the injected run (default: naive)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--json", action="store_true", help="print one JSON document")


def example_path(name: str = "lexecutor_figure1.py") -> str:
    from importlib import resources
    ref = resources.files("lexecutor_c") / "examples" / name
    return str(ref)


#: value classes (docs/RUNTIME.md) in words
_CLASS_WORDS = {"callable": "a function", "list_nonempty": "a non-empty list",
                "list_empty": "an empty list", "str_nonempty": "a non-empty string",
                "str_empty": "an empty string", "object": "an object", "None": "None",
                "True": "True", "False": "False", "int_pos": "a positive int",
                "dict_nonempty": "a non-empty dict", "resource": "a resource"}


def _what(inj: dict) -> str:
    cls = _CLASS_WORDS.get(inj["cls"], inj["cls"])
    if inj["kind"] == "call":
        return f"line {inj['line']}: the call returned {inj['value']}"
    if inj["kind"] == "attribute":
        return f"line {inj['line']}: its .{inj['name']} is {cls}"
    shown = "" if cls == inj["value"] or inj["value"].startswith("<") else f" {inj['value']}"
    return f"line {inj['line']}: {cls}{shown}"


@_demo_args.handler
def _demo(args, ui: UI) -> int:
    from ..engine import run as api
    path = example_path()
    try:
        text, _ = api.load_source(PathArg(path), path)
        plain = api.run(text, predictor="as-is", filename="lexecutor_figure1.py")
        injected = api.run(text, predictor=args.predictor, seed=args.seed,
                           filename="lexecutor_figure1.py")
    except OSError as e:
        raise UsageError(f"the packaged example is missing: {e}")
    if args.json:
        ui.stdout.write(json.dumps({"version": 1, "source": text, "as_is": plain.to_dict(),
                                    "injected": injected.to_dict(),
                                    "paper": FIGURE1_EXPECTED,
                                    "as_the_paper": figure1_matches(injected)},
                                   indent=2) + "\n")
        return EXIT_OK
    ui.line("LExecutor, FSE'23, Figure 1 (lexecutor_c/examples/lexecutor_figure1.py): "
            "code that never defines has_min_size, all_data, config_str or logger",
            style="bold")
    ui.code(text)
    ui.line()
    ui.line("1. Run as it is, it stops at once: " + status_text(plain) + ".")
    ui.line(f"   The paper: {FIGURE1_EXPECTED['as-is']}.")
    ui.line()
    ui.line(f"2. Run under lexecutor_c ({args.predictor} predictor): each missing value is "
            "predicted and filled in where the code needs it.")
    by_name: dict[str, list] = {}
    for inj in injected.injections:
        by_name.setdefault(inj["name"], []).append(inj)
    match = figure1_matches(injected)
    # logger's info is injected on the Dummy: show it with logger
    by_name.setdefault("logger", []).extend(by_name.pop("info", []))
    rows = []
    for name in ("has_min_size", "all_data", "config_str", "logger"):
        got = by_name.pop(name, [])
        value = "; ".join(_what(i) for i in got) or "(not injected)"
        rows.append([name, value, FIGURE1_EXPECTED[name], "yes" if match[name] else "no"])
    for name, got in by_name.items():
        rows.append([name, "; ".join(_what(i) for i in got), "-", ""])
    ui.table("   What was filled in", ["name", "filled in here", "the paper", "same"], rows)
    end = "it ran to the end" if injected.status == "ok" else f"it ended: {status_text(injected)}"
    ui.line(f"   What ran: {injected.what_ran()}; {end}.")
    ui.line(f"   The paper: {FIGURE1_EXPECTED['coverage']}: "
            f"{'the same here' if match['coverage'] else 'not so here'}.")
    missing = [k for k in ("has_min_size", "all_data", "config_str", "logger", "coverage")
               if not match[k]]
    ui.line()
    ui.line(f"Figure 1 as the paper describes it ({args.predictor} predictor): "
            + ("yes, every value and every line" if not missing
               else f"no ({', '.join(missing)} differ"
               + ("; `lexecutor-c demo --predictor neural` uses the learned model)"
                  if args.predictor != "neural" else ")")),
            style="bold")
    # a demonstration: it succeeded when both runs produced a result, however
    # the example ended (the as-is run crashes by design)
    return EXIT_OK
