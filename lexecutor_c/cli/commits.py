"""``lexecutor-c commits [RANGE]``: semantics-changing commits (lexecutor_c/apps/commits.py)."""
from __future__ import annotations

import json

from .common import EXIT_FAILED, EXIT_OK, UsageError, command, positive_float
from .ui import UI


@command("commits", help="find commits that change one function and whether they change "
                         "its behaviour (old vs new version under identical injected values)")
def _commits_args(p):
    p.add_argument("rev_range", nargs="?", metavar="REV_RANGE",
                   help="commits to check, as for git log (A..B); one revision: that commit "
                        "(default: HEAD)")
    p.add_argument("--repo", default=".", metavar="PATH", help="the git repository (default: .)")
    p.add_argument("--staged", action="store_true",
                   help="check the staged changes against HEAD (for a pre-commit hook)")
    p.add_argument("--seeds", type=int, default=5, metavar="N",
                   help="seeded randomized runs per version (default: 5)")
    p.add_argument("--predictor", choices=("random", "naive", "frequency"), default="random",
                   help="predictor of the injected values (default: random)")
    p.add_argument("--timeout", type=positive_float, default=5.0, metavar="S",
                   help="wall-clock seconds per run (default: 5)")
    p.add_argument("--fail-on-change", action="store_true",
                   help="exit with status 1 when a commit changes behaviour")
    p.add_argument("--json", action="store_true", help="print one JSON document")


@_commits_args.handler
def _commits(args, ui: UI) -> int:
    from ..apps import commits as cm
    if args.seeds < 1:
        raise UsageError("--seeds must be positive")
    try:
        checks = cm.check_commits(args.repo, args.rev_range, staged=args.staged,
                                  seeds=tuple(range(args.seeds)), predictor=args.predictor,
                                  timeout=args.timeout)
    except cm.GitError as e:
        raise UsageError(str(e))
    summ = cm.summary(checks)
    if args.json:
        doc = {"version": 1, "repo": args.repo, "range": args.rev_range, "staged": args.staged,
               "seeds": list(range(args.seeds)), "predictor": args.predictor,
               "commits": [c.to_dict() for c in checks], "summary": summ}
        ui.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        rows = [[c.commit[:10], c.subject[:40], c.file or "", c.function or "", c.verdict,
                 c.detail] for c in checks]
        ui.table("semantics-changing commits", ["commit", "subject", "file", "function",
                                                "verdict", "detail"], rows)
        ui.line(f"{summ['commits']} commits: {summ['changed']} change behaviour, "
                f"{summ['same']} keep it, {summ['exception']} raise, {summ['skipped']} skipped")
    if args.fail_on_change and summ["changed"]:
        return EXIT_FAILED
    return EXIT_OK
