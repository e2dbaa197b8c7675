"""``lexecutor-c compare OLD.py NEW.py``: does an edit change what a function
does?  Two versions without git (lexecutor_c/apps/compare.py)."""
from __future__ import annotations

import ast
import json

from .common import EXIT_FAILED, EXIT_OK, UsageError, command, positive_float
from .ui import UI


@command("compare", help="compare two versions of a module: does the edit change what its "
                         "changed functions do (same engine as commits)")
def _compare_args(p):
    p.add_argument("old", metavar="OLD.py", help="the version before the edit")
    p.add_argument("new", metavar="NEW.py", help="the version after the edit")
    p.add_argument("--function", metavar="NAME", default=None,
                   help="the function or method to compare (Class.method); default: every "
                        "function whose code changed")
    p.add_argument("--ignore-messages", action="store_true",
                   help="a reworded exception or warning message is no change")
    p.add_argument("--max-inputs", type=int, default=None, metavar="N",
                   help="inputs per function at most (default: 24)")
    p.add_argument("--timeout", type=positive_float, default=None, metavar="S",
                   help="CPU seconds per run, three times that on the wall clock "
                        "(default: 5)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed of the injected values and the input generator (default: 0)")
    p.add_argument("--points", choices=("gate", "change", "off"), default="gate",
                   help="values where the changed lines are left (the locals both versions "
                        "have; ChangeGuard's program points): gate (default) -- a difference "
                        "there keeps \"same\" back; change -- it counts as a change; off -- "
                        "not compared")
    p.add_argument("--fail-on-change", action="store_true",
                   help="exit with status 1 when the edit changes behaviour")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not UTF-8: {e.reason} at byte {e.start}")
    try:
        ast.parse(text, path)
    except SyntaxError as e:
        raise UsageError(f"{path}:{e.lineno}: syntax error: {e.msg}")
    except ValueError as e:          # null bytes
        raise UsageError(f"{path}: {e}")
    return text


@_compare_args.handler
def _compare(args, ui: UI) -> int:
    from ..apps.compare import changed_functions, compare_sources
    from ..apps.funcsource import function_versions
    if args.max_inputs is not None and args.max_inputs < 1:
        raise UsageError("--max-inputs must be positive")
    old, new = _read(args.old), _read(args.new)
    if args.function is not None:
        missing = [p for p, t in ((args.old, old), (args.new, new))
                   if args.function not in function_versions(t, p)]
        if missing:
            raise UsageError(f"no function {args.function!r} in {' or '.join(missing)}")
    c = compare_sources(old, new, args.function, ignore_messages=args.ignore_messages,
                        max_inputs=args.max_inputs, timeout=args.timeout, seed=args.seed,
                        points=args.points)
    parts = c.functions or ([c] if c.function else [])
    if args.json:
        doc = {"version": 1, "old": args.old, "new": args.new, "function": args.function,
               "verdict": c.verdict, "detail": c.detail, "seconds": c.seconds,
               "functions": [p.to_dict() for p in parts],
               "changed_functions": changed_functions(old, new)}
        ui.stdout.write(json.dumps(doc, indent=2, default=str) + "\n")
    else:
        rows = []
        for p in parts:
            ev = p.evidence
            ran = ev.get("changed_lines_ran", {})
            what = p.detail
            if p.verdict == "changed":
                inp = ev.get("distinguishing_input") or {}
                args_ = ", ".join(f"{k}={v}" for k, v in (inp.get("arguments") or {}).items())
                what += f"; input: {inp.get('note', '')}" + (f" ({args_})" if args_ else "")
            rows.append([p.function, p.verdict, str(ev.get("inputs", 0)),
                         f"old {ran.get('old', [])} new {ran.get('new', [])}", what])
        ui.table("behaviour of the changed functions",
                 ["function", "verdict", "inputs", "changed lines run", "detail"], rows)
        for p in parts:
            diff = p.evidence.get("first_difference")
            if diff:
                ui.line(f"{p.function}: first difference: {diff['what']}")
                for side in ("old", "new"):
                    d = diff.get(side) or {}
                    shown = {k: d[k] for k in ("outcome", "ret", "message", "calls", "out",
                                               "after_changed_lines") if k in d}
                    ui.line(f"  {side}: {json.dumps(shown)[:300]}")
        ui.line(f"verdict: {c.verdict}" + ("" if parts else f" ({c.detail})"))
    if args.fail_on_change and c.verdict == "changed":
        return EXIT_FAILED
    return EXIT_OK
