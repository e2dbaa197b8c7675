"""``lexecutor-c errors FILE``: runtime errors that are the code's own
(lexecutor_c/apps/errors.py)."""
from __future__ import annotations

import json

from .common import (EXIT_FAILED, EXIT_OK, PathArg, UsageError, command, input_error,
                     positive_float, read_stdin)
from .ui import UI


@command("errors", help="find runtime errors of (incomplete) code and tell them from crashes "
                        "caused by injected values")
def _errors_args(p):
    p.add_argument("file", metavar="FILE")
    p.add_argument("--stdin", metavar="FILE", help="file the program reads as standard input")
    p.add_argument("--seeds", type=int, default=5, metavar="N",
                   help="seeded randomized runs besides the naive one (default: 5)")
    p.add_argument("--timeout", type=positive_float, default=10.0, metavar="S",
                   help="wall-clock seconds per run (default: 10)")
    p.add_argument("--no-treefix", dest="treefix", action="store_false",
                   help="do not use Treefix prefixes even when lexecutor_c.treefix is there")
    p.add_argument("--treefix-budget", type=positive_float, default=5.0, metavar="S",
                   help="seconds for the Treefix search (default: 5)")
    p.add_argument("--no-restore", dest="restore", action="store_false",
                   help="do not restore the imports of names the code reads and never binds "
                        "(from the knowledge index)")
    p.add_argument("--input-spec", metavar="SPEC",
                   help="the input section of the problem statement (text, Markdown or HTML; "
                        "or a grammar in JSON): the program runs on valid inputs made from it "
                        "(--stdin, when given, is run first as a sample)")
    p.add_argument("--show-grammar", action="store_true",
                   help="print the grammar read from --input-spec")
    p.add_argument("--llm", action="store_true",
                   help="when the rules cannot read --input-spec, ask the OpenAI-compatible "
                        "endpoint of LEXECUTOR_LLM_BASE_URL / _API_KEY / _MODEL (off by default)")
    p.add_argument("--no-infer-input", dest="infer_input", action="store_false", default=None,
                   help="without --stdin or --input-spec, do not run a program that reads its "
                        "input on inputs inferred from its reads")
    p.add_argument("--budget", type=positive_float, default=8.0, metavar="S",
                   help="seconds for the runs on generated inputs (default: 8)")
    p.add_argument("--json", action="store_true", help="print one JSON document")


@_errors_args.handler
def _errors(args, ui: UI) -> int:
    from ..apps.errors import find_errors
    if args.seeds < 0:
        raise UsageError("--seeds must not be negative")
    stdin = read_stdin(args.stdin)
    try:
        grammar, samples = _grammar(args) if args.input_spec is not None else (None, None)
    except _LLMFailed as e:
        ui.error(str(e))
        return EXIT_FAILED
    if args.show_grammar and grammar is None:
        raise UsageError("--show-grammar needs --input-spec")
    if args.show_grammar and not args.json:
        ui.line(f"{args.input_spec}: input grammar")
        for ln in grammar.show().splitlines():
            ui.line("  " + ln)
    try:
        rep = find_errors(PathArg(args.file), stdin=stdin, seeds=args.seeds,
                          timeout=args.timeout, use_treefix=args.treefix, filename=args.file,
                          restore=args.restore, treefix_budget=args.treefix_budget,
                          input_spec=grammar, infer_input=args.infer_input,
                          budget=args.budget, samples=samples)
    except Exception as e:
        msg = input_error(args.file, e)
        if msg is None:
            raise
        raise UsageError(msg)
    if args.json:
        ui.stdout.write(json.dumps({"version": 1, **rep.to_dict()}, indent=2) + "\n")
    else:
        meaning = {"real": "the code's own error", "derived": "computed from injected values",
                   "injected": "caused by an injected value", "missing": "a value left missing"}
        why_real = {"operands": "no operand is injected",
                    "every value": "the same crash for every injected value"}

        def why(g) -> str:
            text = why_real.get(g.why_real or "", meaning[g.category])
            if g.category != "real" and g.involved:
                text += f" ({', '.join(g.involved)})"
            return text

        def inputs(g) -> str:
            text = ", ".join(f"{k}={v}" for k, v in list(g.inputs.items())[:4]) or "-"
            if g.distinct_values > 1 and g.inputs:
                text += f" (and {g.distinct_values - 1} other values)"
            return text
        rows = [[g.line if g.line is not None else "?", g.type, g.message, g.operation or "?",
                 g.category, why(g), inputs(g), f"{g.runs}/{len(rep.runs)}"]
                for g in rep.errors]
        if rep.stdin is not None:
            rows = [[g.line if g.line is not None else "?", g.type, g.message, g.category,
                     _short(g.input or ""), g.runs] for g in rep.errors]
            if rows:
                ui.table(f"{args.file}: exceptions", ["line", "type", "message", "verdict",
                                                      "smallest input", "inputs"], rows)
            else:
                ui.line(f"{args.file}: no run ended with an exception")
            st = rep.stdin
            ui.line(f"  {st['inputs_run']} inputs run ({st['mode']}), {st['seconds']} s")
            for n in rep.notes:
                ui.line(f"  note: {n}")
            return EXIT_FAILED if rep.real else EXIT_OK
        if rows:
            ui.table(f"{args.file}: exceptions", ["line", "type", "message", "operation",
                                                  "verdict", "why", "inputs", "runs"], rows)
        else:
            ui.line(f"{args.file}: no run ended with an exception")
        statuses: dict[str, int] = {}
        for r in rep.runs:
            statuses[r.status] = statuses.get(r.status, 0) + 1
        ui.line(f"  {len(rep.runs)} runs ({rep.source_of_runs}): " +
                ", ".join(f"{n} {st}" for st, n in sorted(statuses.items())))
        for imp in rep.restored_imports:
            ui.line(f"  restored: {imp}")
        for n in rep.notes:
            ui.line(f"  note: {n}")
    return EXIT_FAILED if rep.real else EXIT_OK


def _short(text: str, limit: int = 60) -> str:
    one = text.replace("\n", "\\n")
    return one if len(one) <= limit else one[:limit - 3] + "..."


def _grammar(args):
    """(the grammar of --input-spec, the sample inputs it shows); UsageError
    when it cannot be read."""
    from ..apps import inputspec
    try:
        with open(args.input_spec, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeError) as e:
        raise UsageError(f"cannot read {args.input_spec}: {getattr(e, 'strerror', None) or e}")
    samples = inputspec.extract_samples(text) if not text.lstrip().startswith("{") else []
    try:
        return inputspec.load_spec(text), samples
    except inputspec.SpecError as e:
        if not args.llm:
            raise UsageError(f"{args.input_spec}: cannot read the input description: {e} "
                             "(write the grammar as JSON, or try --llm)")
    try:
        return inputspec.llm_grammar(text), samples
    except (inputspec.SpecError, RuntimeError, ValueError, OSError) as e:
        raise _LLMFailed(f"{args.input_spec}: the LLM backend gave no grammar: {e}")


class _LLMFailed(Exception):
    """The LLM request of --llm failed or answered no grammar (exit 1, as in treefix)."""
