"""``lexecutor-c trace FILE``: the execution trace in the CodeExecutor format
(lexecutor_c/apps/trace.py)."""
from __future__ import annotations

import json

from .common import (EXIT_FAILED, EXIT_OK, PathArg, UsageError, add_execution_options, command,
                     confinement_notice, input_error, read_stdin)
from .ui import UI


@command("trace", help="print the execution trace of (incomplete) code in the CodeExecutor format")
def _trace_args(p):
    p.add_argument("file", metavar="FILE")
    p.add_argument("--stdin", metavar="FILE", help="file the program reads as standard input")
    add_execution_options(p)
    p.add_argument("--max-steps", type=int, default=10_000, metavar="N",
                   help="stop the program after N traced lines (default: 10000)")
    p.add_argument("--json", action="store_true", help="print one JSON document")


@_trace_args.handler
def _trace(args, ui: UI) -> int:
    from ..apps.trace import trace
    if args.max_steps < 1:
        raise UsageError("--max-steps must be positive")
    stdin = read_stdin(args.stdin)
    confinement_notice(args, ui)
    try:
        r = trace(PathArg(args.file), stdin=stdin, predictor=args.predictor,
                  abstraction=args.abstraction, seed=args.seed, randomize=args.randomize,
                  timeout=args.timeout, isolate=args.isolate, filename=args.file,
                  max_steps=args.max_steps, allow_missing=args.allow_missing)
    except Exception as e:
        msg = input_error(args.file, e)
        if msg is None:
            raise
        raise UsageError(msg)
    if args.json:
        doc = {"version": 1, "file": args.file, "trace": r.text(), **r.to_dict()}
        ui.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        ui.stdout.write(r.text())
        if r.truncated:
            ui.warn(f"{args.file}: stopped after {args.max_steps} traced lines")
        if r.error:
            ui.warn(f"{args.file}: {r.status}: {r.error}")
        elif r.status == "timeout":
            ui.warn(f"{args.file}: stopped after {args.timeout:g} s (timeout)")
    ok = r.status == "ok" or (r.status == "exit" and r.exit_code == 0)
    return EXIT_OK if ok and not r.error and not r.truncated else EXIT_FAILED
