"""``lexecutor-c record -- CMD...``: record value-use events while a command runs."""
from __future__ import annotations

import argparse
import json

from .common import EXIT_FAILED, UsageError, command, positive_float
from .ui import UI


@command("record", help="run a command (e.g. python -m pytest) recording value-use events "
                        "of the chosen modules")
def _record_args(p):
    p.add_argument("--include", action="append", nargs="+", metavar="PATTERN",
                   help="module name pattern (mypkg, test_*) or path (./src, lib/x.py) to "
                        "instrument; default: the current directory (never the stdlib or "
                        "site-packages unless a pattern names them)")
    p.add_argument("--out", default="events.jsonl.gz", metavar="FILE",
                   help="events file to write (default: events.jsonl.gz)")
    p.add_argument("--all-events", action="store_true",
                   help="keep every event, not one per site, name and class per process")
    p.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="kill the command after this long")
    p.add_argument("--flush-interval", type=float, default=5.0, metavar="SECONDS",
                   help="write events to disk this often (default 5; 0: only at exit)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON document about the recording on stdout")
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- COMMAND ...",
                   help="the command to run")


@_record_args.handler
def _record(args, ui: UI) -> int:
    from ..engine.record import RecordError, record
    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("record: give the command to run after --, e.g. "
                         "lexecutor-c record --include mypkg -- python -m pytest tests")
    include = None
    if args.include:
        include = [pat for group in args.include for pat in group]
    try:
        r = record(cmd, include=include, out=args.out, unique=not args.all_events,
                   timeout=args.timeout, flush_interval=args.flush_interval)
    except RecordError as e:
        raise UsageError(f"record: {e}")
    except (FileNotFoundError, PermissionError) as e:
        raise UsageError(f"record: cannot run {cmd[0]!r}: {e.strerror or e}")
    for w in r.warnings:
        ui.warn(f"record: {w}")
    for path, why in r.failed[:10]:
        ui.warn(f"record: not instrumented: {path}: {why}")
    ended = ("timed out" if r.timed_out else
             f"exit status {r.returncode}" if r.returncode >= 0 else
             f"killed by signal {-r.returncode}")
    ui.warn(f"record: {r.events} events from {len(r.modules)} modules in {r.processes} "
            f"process(es) written to {r.out}; the command ended with {ended}")
    if args.json:
        doc = {"version": 1, "command": r.command, "out": r.out, "events": r.events,
               "processes": r.processes, "returncode": r.returncode, "timed_out": r.timed_out,
               "modules": [{"module": m, "file": f} for m, f in r.modules],
               "failed": [{"file": f, "why": why} for f, why in r.failed],
               "warnings": list(r.warnings)}
        ui.stdout.write(json.dumps(doc, indent=2) + "\n")
    if r.timed_out:
        return EXIT_FAILED
    return r.returncode if 0 <= r.returncode < 256 else EXIT_FAILED
