"""``lexecutor-c instrument FILE``: print a file as instrumented (and its table of sites)."""
from __future__ import annotations

import json

from .common import EXIT_OK, PathArg, UsageError, command, input_error
from .ui import UI


@command("instrument", help="print a file as instrumented (loaders _n_ _a_ _c_ _l_ _i_)")
def _instrument_args(p):
    p.add_argument("file", metavar="FILE")
    p.add_argument("--iids", action="store_true", help="also print the table of sites")
    p.add_argument("--json", action="store_true",
                   help="print one JSON document (source, sites, lines, undefined names)")


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
    if args.json:
        ui.stdout.write(json.dumps(_document(filename, inst), indent=2) + "\n")
        return EXIT_OK
    ui.stdout.write(inst.source if inst.source.endswith("\n") else inst.source + "\n")
    if args.iids:
        rows = []
        for s in inst.iids:
            span = f"{s.line}:{s.col}-{s.end_line}:{s.end_col}"
            rows.append([s.iid, s.kind, getattr(s, "name", None) or "", span])
        ui.table(f"{filename}: {len(rows)} sites", ["iid", "kind", "name", "span"], rows)
    return EXIT_OK


def _document(filename: str, inst) -> dict:
    """instrument --json: the instrumented text, its sites, its coverable lines, the
    instrumented-to-original line map and the names read but bound nowhere."""
    from dataclasses import asdict
    return {
        "version": 1, "file": filename, "source": inst.source,
        "sites": [{"iid": s.iid, "kind": s.kind, "name": getattr(s, "name", None),
                   "line": s.line, "col": s.col, "end_line": s.end_line,
                   "end_col": s.end_col} for s in inst.iids],
        "lines": [{"iid": li.iid, "line": li.line, "end_line": li.end_line}
                  for li in inst.lines],
        "line_map": inst.line_map,
        "undefined": [asdict(u) for u in inst.undefined],
    }
