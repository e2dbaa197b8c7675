"""``lexecutor-c instrument FILE``: print a file as instrumented (and its table of sites)."""
from __future__ import annotations

from .common import EXIT_OK, PathArg, UsageError, command, input_error
from .ui import UI


@command("instrument", help="print a file as instrumented (loaders _n_ _a_ _c_ _l_ _i_)")
def _instrument_args(p):
    p.add_argument("file", metavar="FILE")
    p.add_argument("--iids", action="store_true", help="also print the table of sites")


@_instrument_args.handler
def _instrument(args, ui: UI) -> int:
    from ..engine.instrument import instrument
    from ..engine.run import load_source
    try:
        text, filename = load_source(PathArg(args.file), args.file)
        inst = instrument(text, filename=filename)
    except Exception as e:
        msg = input_error(args.file, e)
        if msg is None:
            raise
        raise UsageError(msg)
    ui.stdout.write(inst.source if inst.source.endswith("\n") else inst.source + "\n")
    if args.iids:
        rows = []
        for s in inst.iids:
            span = f"{s.line}:{s.col}-{s.end_line}:{s.end_col}"
            rows.append([s.iid, s.kind, getattr(s, "name", None) or "", span])
        ui.table(f"{filename}: {len(rows)} sites", ["iid", "kind", "name", "span"], rows)
    return EXIT_OK
