"""``lexecutor-c commits [RANGE]``: semantics-changing commits (lexecutor_c/apps/commits.py)."""
from __future__ import annotations

import json

from .common import EXIT_FAILED, EXIT_OK, UsageError, command, positive_float
from .ui import UI


@command("commits", help="check whether each commit changes what its edited functions do "
                         "(old vs new version of every changed function on the same inputs)")
def _commits_args(p):
    p.add_argument("rev_range", nargs="?", metavar="REV_RANGE",
                   help="commits to check, as for git log (A..B); one revision: that commit "
                        "(default: HEAD)")
    p.add_argument("--repo", default=".", metavar="PATH", help="the git repository (default: .)")
    p.add_argument("--staged", action="store_true",
                   help="check the staged changes against HEAD (for a pre-commit hook)")
    p.add_argument("--seeds", type=int, default=2, metavar="N",
                   help="seeds of the injected values and the prefix generator (default: 2)")
    p.add_argument("--predictor", choices=("constraints", "naive", "frequency", "neural",
                                           "random"), default="constraints",
                   help="injection for what the inputs leave undefined (default: "
                        "constraints: a Dummy, which never raises, except where a use-site "
                        "constraint asks for another class)")
    p.add_argument("--timeout", type=positive_float, default=5.0, metavar="S",
                   help="CPU seconds per run, three times that on the wall clock "
                        "(default: 5)")
    p.add_argument("--max-inputs", type=int, default=24, metavar="N",
                   help="inputs per function at most (default: 24)")
    p.add_argument("--budget", type=positive_float, default=30.0, metavar="S",
                   help="CPU seconds per function at most, three times that on the wall "
                        "clock (default: 30)")
    p.add_argument("--max-functions", type=int, default=20, metavar="N",
                   help="functions checked per commit at most (default: 20)")
    p.add_argument("--no-test-inputs", dest="use_tests", action="store_false",
                   help="do not take inputs from calls in the project's tests")
    p.add_argument("--compare-messages", action="store_true", default=True,
                   help="count a different exception message (same type) as a change "
                        "(the default since issue 20)")
    p.add_argument("--ignore-messages", dest="compare_messages", action="store_false",
                   help="a reworded exception message (same type) is no change, only noted")
    p.add_argument("--points", choices=("gate", "change", "off"), default="gate",
                   help="values where the changed lines are left (the locals both versions "
                        "have; ChangeGuard's program points): gate (default) -- a difference "
                        "there keeps \"same\" back; change -- it counts as a change; off -- "
                        "not compared")
    p.add_argument("--fail-on-change", action="store_true",
                   help="exit with status 1 when a commit changes behaviour")
    p.add_argument("--json", action="store_true", help="print one JSON document")


@_commits_args.handler
def _commits(args, ui: UI) -> int:
    from ..apps import commits as cm
    if args.seeds < 1:
        raise UsageError("--seeds must be positive")
    if args.max_inputs < 1:
        raise UsageError("--max-inputs must be positive")
    if args.max_functions < 1:
        raise UsageError("--max-functions must be positive")
    seeds = tuple(range(args.seeds))
    try:
        checks = cm.check_commits(args.repo, args.rev_range, staged=args.staged, seeds=seeds,
                                  predictor=args.predictor, timeout=args.timeout,
                                  max_inputs=args.max_inputs, budget=args.budget,
                                  max_functions=args.max_functions, use_tests=args.use_tests,
                                  compare_messages=args.compare_messages,
                                  points=args.points)
    except cm.GitError as e:
        raise UsageError(str(e))
    summ = cm.summary(checks)
    if args.json:
        doc = {"version": 1, "repo": args.repo, "range": args.rev_range, "staged": args.staged,
               "seeds": list(seeds), "predictor": args.predictor,
               "commits": [c.to_dict() for c in checks], "summary": summ}
        ui.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        rows = []
        for c in checks:
            rows.append([c.commit[:10], c.subject[:40], "", c.verdict, c.detail])
            for f in c.functions:
                rows.append(["", "", f"{f.file}:{f.function}", f.verdict, _function_detail(f)])
        ui.table("semantics-changing commits", ["commit", "subject", "function",
                                                "verdict", "detail"], rows)
        ui.line(f"{summ['commits']} commits: {summ['changed']} change behaviour, "
                f"{summ['same']} keep it, {summ['undecided']} undecided, "
                f"{summ['skipped']} skipped")
    if args.fail_on_change and summ["changed"]:
        return EXIT_FAILED
    return EXIT_OK


def _function_detail(f) -> str:
    d = f.detail
    if f.input:
        args = ", ".join(f"{k}={v}" for k, v in (f.input.get("arguments") or {}).items())
        d += f"; input: ({args})" if args else ""
        pre = (f.input.get("prefix") or "").strip()
        if pre:
            lines = pre.splitlines()
            d += f"; prefix: {'; '.join(lines[:4])}{' ...' if len(lines) > 4 else ''}"
    return d
