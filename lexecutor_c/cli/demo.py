"""``lexecutor-c demo``: the LExecutor paper's Figure 1, as is and with injection."""
from __future__ import annotations

import json

from .common import EXIT_OK, PathArg, UsageError, command
from .ui import UI, coverage_text, ranges, status_text


# What the LExecutor paper reports for its Figure 1 (see
# ../shared/examples/README.md beside the project).
FIGURE1_EXPECTED = {
    "as-is": "crashes at once (NameError on line 1)",
    "has_min_size": "a function returning True",
    "all_data": "a non-empty list",
    "config_str": "a non-empty string",
    "logger": "an object whose info is a method returning None",
    "coverage": "every line runs (the raise on line 2 is skipped: has_min_size returns True)",
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
    paper describes, and whether the lines the paper runs ran.  A line runs
    when its marker is reached or a value was injected on it: the marker of
    an ``if`` opens its block, so line 1 (whose block the paper skips) shows
    only through the values its test asked for."""
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


def _what(inj: dict) -> str:
    kind = {"name": "", "attribute": "attribute ", "call": "call returns "}[inj["kind"]]
    return f"{kind}{inj['cls']} {inj['value']}"


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
    ui.line("LExecutor, FSE'23, Figure 1 (lexecutor_c/examples/lexecutor_figure1.py):",
            style="bold")
    ui.code(text)
    ui.line()
    ui.line(f"As is ({status_text(plain)}); the paper: {FIGURE1_EXPECTED['as-is']}.")
    ui.line()
    by_name: dict[str, list] = {}
    for inj in injected.injections:
        by_name.setdefault(inj["name"], []).append(inj)
    match = figure1_matches(injected)
    # logger's info is injected on the Dummy: show it with logger
    by_name.setdefault("logger", []).extend(by_name.pop("info", []))
    rows = []
    for name in ("has_min_size", "all_data", "config_str", "logger"):
        got = by_name.pop(name, [])
        value = "; ".join(f"line {i['line']}: {_what(i)}" for i in got) or "(not injected)"
        rows.append([name, value, FIGURE1_EXPECTED[name], "yes" if match[name] else "no"])
    for name, got in by_name.items():
        rows.append([name, "; ".join(f"line {i['line']}: {_what(i)}" for i in got), "-", ""])
    ui.table(f"With the {args.predictor} predictor",
             ["name", "injected here", "the paper", "as the paper"], rows)
    ui.line(f"{coverage_text(injected)}; ended: {status_text(injected)}")
    ui.line(f"lines run: {ranges(match['lines_run'])} (line 1's `if` ran its test; its "
            "marker opens the block, which counts only when entered)")
    ui.line(f"the paper: {FIGURE1_EXPECTED['coverage']}: "
            f"{'the same here' if match['coverage'] else 'not so here'}")
    missing = [k for k in ("has_min_size", "all_data", "config_str", "logger", "coverage")
               if not match[k]]
    ui.line(f"Figure 1 as the paper describes it ({args.predictor} predictor): "
            + ("yes: every value and every line the paper runs" if not missing
               else f"no ({', '.join(missing)} differ)"),
            style="bold")
    # a demonstration: it succeeded when both runs produced a result, however
    # the example ended (the as-is run crashes by design)
    return EXIT_OK
