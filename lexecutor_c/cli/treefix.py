"""``lexecutor-c treefix FILE``: Treefix's prefix search on one snippet
(lexecutor_c/prefixtree/)."""
from __future__ import annotations

import json
import os

from .common import EXIT_FAILED, EXIT_OK, UsageError, command, input_error, positive_float
from .ui import UI


@command("treefix", help="search code prefixes that make a snippet run and cover its lines "
                         "(Treefix, ICSE'25)")
def _treefix_args(p):
    p.add_argument("file", help="a Python file (snippet)")
    p.add_argument("--generator", choices=["offline", "llm"], default="offline",
                   help="offline (default, no network) or llm (LEXECUTOR_LLM_* settings)")
    p.add_argument("-n", type=int, default=10, metavar="N", help="prefixes per query (10)")
    p.add_argument("-k", type=int, default=10, metavar="K",
                   help="coverage-guidance iterations (10)")
    p.add_argument("--predictor", choices=["as-is", "naive", "random", "frequency", "neural"],
                   default="naive", help="injection underneath the prefixes (naive)")
    p.add_argument("--timeout", type=positive_float, default=2.0, metavar="S",
                   help="seconds per run of prefix + snippet (2)")
    p.add_argument("--budget", type=positive_float, default=60.0, metavar="S",
                   help="seconds for the whole search (60)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--model", help="LLM model (else LEXECUTOR_LLM_MODEL)")
    p.add_argument("--base-url", help="LLM endpoint (else LEXECUTOR_LLM_BASE_URL)")
    p.add_argument("--install", action="store_true",
                   help="pip install unresolved imports (off by default)")
    p.add_argument("--tree", metavar="FILE", help="write the prefix tree as JSON to FILE")
    p.add_argument("--json", action="store_true", help="print one JSON document")


@_treefix_args.handler
def _treefix(args, ui: UI) -> int:
    """Run the Treefix loop on one file; a one-line progress display on a
    terminal's stderr; the chosen prefixes and coverage, or --json."""
    from ..prefixtree import TreefixError
    from ..prefixtree import treefix as run_treefix
    if args.n < 1 or args.k < 0:
        raise UsageError("-n must be at least 1 and -k at least 0")
    if not os.path.isfile(args.file):
        raise UsageError(f"cannot read {args.file}: no such file")
    live = ui.stderr.isatty()

    def progress(ev):
        if live:
            ui.stderr.write(f"\r  prefix {ev['node'] + 1:4d}  step {ev['step']:<9} "
                            f"coverage {ev['coverage']:6.1%}  cumulative {ev['cumulative']:6.1%}")
            ui.stderr.flush()

    llm_options = None
    if args.generator == "llm":
        llm_options = {k: v for k, v in (("model", args.model), ("base_url", args.base_url))
                       if v}
    try:
        r = run_treefix(args.file, generator=args.generator, n=args.n, k=args.k,
                        timeout=args.timeout, predictor=args.predictor, seed=args.seed,
                        budget=args.budget, progress=progress, install=args.install,
                        llm_options=llm_options)
    except (TreefixError, ValueError, TypeError) as e:
        msg = input_error(args.file, e) if isinstance(e, (SyntaxError, ValueError)) else None
        raise UsageError(msg or str(e)) from None
    except (SyntaxError, OSError) as e:
        raise UsageError(input_error(args.file, e) or str(e)) from None
    except RuntimeError as e:            # LLM client errors (_core.LLMError) and the like
        if live:
            ui.stderr.write("\n")
        ui.error(str(e))
        return EXIT_FAILED
    finally:
        if live:
            ui.stderr.write("\r" + " " * 78 + "\r")
    if args.tree:
        with open(args.tree, "w") as f:
            f.write(r.tree_json())
    if args.json:
        print(json.dumps({"version": 1, **r.to_dict()}, indent=2), file=ui.stdout)
        return EXIT_OK
    from ..engine.result import lines_ran
    try:
        with open(args.file, "rb") as f:
            source = f.read().decode("utf-8", errors="replace")
    except OSError:
        source = ""
    for i, pre in enumerate(r.prefixes):
        nd = r.tree[r.prefix_ids[i]]
        err = nd.error or {}
        alone = lines_ran(source, nd.covered, sorted(set(r.lines) - set(nd.covered)),
                          exception_line=err.get("line") if err.get("where") == "snippet"
                          else None)
        ui.line(f"prefix {i + 1} of P (node {nd.id}, {nd.step}): alone, {alone.text}",
                style="bold")
        ui.code(pre if pre.strip() else "# (empty prefix: injection alone)\n")
    together = lines_ran(source, r.covered, r.uncovered)
    ui.line(f"{r.filename}: with the {len(r.prefixes)} prefixes of P together (greedy set "
            f"cover), {together.text}; {len(r.tree)} prefixes tried in "
            f"{r.timings['total']:.1f} s")
    ui.line(f"  line markers reached (the papers' coverage metric): P {r.coverage:.1%}, "
            f"best single prefix {r.best_coverage:.1%}, injection alone "
            f"{(r.baseline_coverage or 0):.1%}")
    if r.unresolved_imports:
        ui.line(f"  unresolved imports: {', '.join(r.unresolved_imports)}")
    return EXIT_OK
