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
                                    "paper": FIGURE1_EXPECTED}, indent=2) + "\n")
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
    rows = []
    for name in ("has_min_size", "all_data", "config_str", "logger"):
        got = by_name.pop(name, [])
        value = "; ".join(f"line {i['line']}: {i['cls']} {i['value']}" for i in got) or \
            "(not injected)"
        rows.append([name, value, FIGURE1_EXPECTED[name]])
    for name, got in by_name.items():
        rows.append([name, "; ".join(f"line {i['line']}: {i['cls']} {i['value']}"
                                     for i in got), "-"])
    ui.table(f"With the {args.predictor} predictor", ["name", "injected here", "the paper"],
             rows)
    ui.line(f"{coverage_text(injected)}; ended: {status_text(injected)}")
    ui.line(f"the paper: {FIGURE1_EXPECTED['coverage']}")
    if injected.uncovered:
        ui.line(f"lines not reached here: {ranges(injected.uncovered)}")
    # a demonstration: it succeeded when both runs produced a result, however
    # the example ended (the as-is run crashes by design)
    return EXIT_OK
