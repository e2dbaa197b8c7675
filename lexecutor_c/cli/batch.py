"""``lexecutor-c batch SOURCE --out DIR``: one task over a whole corpus, on a local
process pool, Dask or Ray, resumable (lexecutor_c/apps/batch.py)."""
from __future__ import annotations

import json
import sys

from .common import (EXIT_FAILED, EXIT_OK, UsageError, command, confinement_notice,
                     layer_list, positive_float)
from .ui import UI


@command("batch", help="run, trace, treefix, errors or instrument every item of a corpus "
                       "(folder, JSONL, Parquet) on a process pool, Dask or Ray; resumable")
def _batch_args(p):
    from ..engine.run import ABSTRACTIONS, PREDICTORS
    p.add_argument("source", metavar="SOURCE",
                   help="a folder of .py files, a .py file, a .jsonl(.gz) or .parquet file")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="results folder: Parquet parts, _summary.json; an existing one is "
                        "resumed (items already there are skipped)")
    p.add_argument("--task", choices=("run", "treefix", "trace", "errors", "instrument"),
                   default="run", help="what to do with each item (default: run)")
    p.add_argument("--executor", default="local", metavar="E",
                   help="local (process pool, default), dask (a LocalCluster), "
                        "dask://HOST:PORT (a running scheduler), ray (a local instance), "
                        "ray://HOST:PORT (a Ray cluster)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="worker processes of a local pool or cluster (default: CPU count)")
    p.add_argument("--code-column", default="code", metavar="NAME",
                   help="JSONL/Parquet column holding the code (default: code)")
    p.add_argument("--id-column", default=None, metavar="NAME",
                   help="JSONL/Parquet column naming each item (default: FILE:LINE / FILE:ROW)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="at most N items")
    p.add_argument("--sample", type=float, default=None, metavar="F",
                   help="a fraction F in (0, 1] of the items, chosen by content hash "
                        "(the same items every time)")
    p.add_argument("--shard", default=None, metavar="I/N",
                   help="only shard I of N (by content hash), for independent jobs")
    p.add_argument("--batch-size", type=int, default=None, metavar="N",
                   help="items sent to a worker at a time (default: 16, fewer when the "
                        "corpus has under 64 items per worker)")
    p.add_argument("--flush-rows", type=int, default=1000, metavar="N",
                   help="rows per Parquet part (default: 1000; a part is also written "
                        "every 10 s)")
    p.add_argument("--max-retries", type=int, default=3, metavar="N",
                   help="times a batch whose worker was lost is resubmitted (default: 3)")
    p.add_argument("--predictor", choices=PREDICTORS, default="naive",
                   help="how missing values are chosen (default: naive)")
    p.add_argument("--abstraction", choices=ABSTRACTIONS, default=None,
                   help="value abstraction of the predictor (run, trace; default: fine)")
    p.add_argument("--seed", type=int, default=None, help="random seed")
    p.add_argument("--randomize", action="store_true",
                   help="randomise among the predictor's choices (run, trace)")
    p.add_argument("--timeout", type=positive_float, default=None, metavar="S",
                   help="wall-clock seconds per run (default: 10; treefix: 2)")
    p.add_argument("--budget", type=positive_float, default=None, metavar="S",
                   help="seconds of Treefix search per item (treefix; default: 10)")
    p.add_argument("--seeds", type=int, default=None, metavar="N",
                   help="seeded runs besides the naive one (errors; default: 5)")
    p.add_argument("--allow-missing-layers", dest="allow_missing", type=layer_list,
                   default=frozenset(), metavar="LAYERS",
                   help="confinement layers the sandbox may go without (as for run)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress line on stderr")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON document")


def _task_options(args) -> dict:
    t = args.task
    o: dict = {}
    if t in ("run", "trace"):
        o = {"predictor": args.predictor, "abstraction": args.abstraction, "seed": args.seed,
             "randomize": args.randomize or None, "timeout": args.timeout or 10.0,
             "allow_missing": args.allow_missing or None}
    elif t == "treefix":
        o = {"predictor": args.predictor, "seed": args.seed,
             "timeout": args.timeout or 2.0,
             "budget": args.budget}
    elif t == "errors":
        o = {"seeds": args.seeds, "timeout": args.timeout or 10.0}
    if args.budget is not None and t != "treefix":
        raise UsageError("--budget is an option of --task treefix")
    if args.seeds is not None and t != "errors":
        raise UsageError("--seeds is an option of --task errors")
    return {k: v for k, v in o.items() if v is not None}


@_batch_args.handler
def _batch(args, ui: UI) -> int:
    from ..apps.batch import BatchError, batch
    from ..engine.executors import ExecutorError
    for name in ("workers", "batch_size", "flush_rows"):
        v = getattr(args, name)
        if v is not None and v < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
    if args.max_retries < 0:
        raise UsageError("--max-retries must not be negative")
    if args.task != "instrument":
        confinement_notice(args, ui)
    try:
        s = batch(args.source, args.out, args.task, executor=args.executor,
                  workers=args.workers, code_column=args.code_column,
                  id_column=args.id_column, limit=args.limit, sample=args.sample,
                  shard=args.shard, batch_size=args.batch_size, flush_rows=args.flush_rows,
                  max_retries=args.max_retries,
                  progress=sys.stderr if args.progress else None,
                  options=_task_options(args))
    except (BatchError, ExecutorError) as e:
        raise UsageError(str(e))
    if args.json:
        ui.stdout.write(json.dumps({"version": 1, **s.to_dict()}, indent=2) + "\n")
    else:
        statuses = ", ".join(f"{n} {k}" for k, n in s.statuses.items()) or "none"
        ui.line(f"{s.out}: {s.rows:,} rows ({statuses})"
                + (f", mean coverage {s.mean_coverage:.3f}" if s.mean_coverage is not None
                   else ""))
        ui.line(f"  this run: {s.ran:,} items in {s.seconds:.1f} s ({s.items_per_s:.1f} items/s) "
                f"on {s.executor}; {s.skipped:,} already done, {s.retried:,} retried, "
                f"{s.lost:,} lost")
    return EXIT_OK if not s.lost else EXIT_FAILED
