"""``lexecutor-c train``: train and export the neural value model (docs/MODEL.md)."""
from __future__ import annotations

import json

from .common import EXIT_OK, UsageError, command
from .ui import UI


@command("train", help="train the neural value model on recorded events and export it "
                       "(TorchScript + tokenizer) for predictor='neural'")
def _train_args(p):
    p.add_argument("--events", nargs="+", required=True, metavar="FILE",
                   help="events files written by `record` (globs allowed)")
    p.add_argument("--out", required=True, metavar="MODEL", help="model file to write (.pt)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epochs", type=float, default=4.0)
    p.add_argument("--max-steps", type=int, default=None)
    p.add_argument("--max-minutes", type=float, default=None,
                   help="stop training after this long (the model is still exported)")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--ff", type=int, default=256)
    p.add_argument("--buckets", type=int, default=16384)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cap", type=int, default=300,
                   help="most examples per (project, name, kind, class); 0: no cap")
    p.add_argument("--heldout-projects", default="",
                   help="comma-separated projects to test on (default: a random 5%% split)")
    p.add_argument("--report", metavar="JSON", help="also write the report here")
    p.add_argument("--latency", action="store_true",
                   help="measure per-query latency through the C shim after training")
    p.add_argument("--json", action="store_true",
                   help="print the report as one JSON document (what train prints anyway)")


@_train_args.handler
def _train(args, ui: UI) -> int:
    if args.dim % args.heads or args.dim <= 0 or args.layers < 0 or args.buckets < 2 \
            or args.batch_size < 1 or args.epochs <= 0 or args.threads < 1:
        raise UsageError("train: bad model settings (dim must be a positive multiple of heads, "
                         "buckets >= 2, batch size, epochs and threads positive)")
    try:
        from ..model.training.train import latency, train
        report = train(args.events, args.out, seed=args.seed, epochs=args.epochs,
                       batch_size=args.batch_size, lr=args.lr, dim=args.dim,
                       layers=args.layers, heads=args.heads, ff=args.ff, buckets=args.buckets,
                       threads=args.threads, cap=args.cap or None,
                       heldout_projects=[p for p in args.heldout_projects.split(",") if p],
                       max_steps=args.max_steps, max_minutes=args.max_minutes,
                       log=lambda m: ui.warn(f"train: {m}"))
    except (FileNotFoundError, ValueError, RuntimeError) as e:
        raise UsageError(f"train: {e}")
    if args.latency:
        from ..model.neural import NeuralUnavailable
        from ..model.training import dataset as ds
        try:
            exs = ds.examples_from_events(
                [f for e in args.events for f in (__import__("glob").glob(e) or [e])])
            report["latency"] = latency(args.out, exs)
        except NeuralUnavailable as e:
            ui.warn(f"train: no latency measurement: {e}")
    doc = {"version": 1, **report}
    if args.report:
        with open(args.report, "w") as f:
            json.dump(doc, f, indent=2)
    ui.stdout.write(json.dumps(doc, indent=2) + "\n")
    return EXIT_OK
