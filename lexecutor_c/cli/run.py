"""``lexecutor-c run FILE...``: execute files with value injection; report injections,
coverage and a summary."""
from __future__ import annotations

import json

from .common import (EXIT_FAILED, EXIT_OK, EXIT_USAGE, PathArg,
                     add_execution_options, command, confinement_notice, input_error)
from .ui import UI, coverage_text, status_text


@command("run", help="execute files with value injection and report injections and coverage")
def _run_args(p):
    p.add_argument("files", nargs="+", metavar="FILE", help="Python files to execute")
    add_execution_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--output", action="store_true",
                   help="also print what each program wrote to stdout/stderr")
    p.add_argument("--no-import-missing", dest="import_missing", action="store_false",
                   help="inject a value for a missing name even where it is a module "
                        "installed here (json, np, ...); by default such a module is "
                        "imported, inside the confined run")


@_run_args.handler
def _run(args, ui: UI) -> int:
    from ..engine import run as api
    from ..engine.sandbox import ConfinementError
    confinement_notice(args, ui)
    entries = []
    progress = None
    if len(args.files) > 1 and not args.json:
        progress = _make_progress(ui)
    task = None
    if progress is not None:
        progress.start()
        task = progress.add_task("running", total=len(args.files))
    try:
        for path in args.files:
            entry = {"file": path}
            if progress is not None:
                progress.update(task, description=_short(path))
                progress.refresh()
            try:
                r = api.run(PathArg(path),
                            predictor=args.predictor, abstraction=args.abstraction,
                            timeout=args.timeout, isolate=args.isolate, seed=args.seed,
                            randomize=args.randomize, filename=path,
                            allow_missing=args.allow_missing,
                            import_missing=args.import_missing)
                entry["result"] = r
            except ConfinementError:
                raise                   # the same for every file: stop (main reports it)
            except Exception as e:
                msg = input_error(path, e)
                if msg is None:
                    msg = f"{path}: internal error: {type(e).__name__}: {e}"
                    entry["error"] = {"type": "internal", "message": msg}
                else:
                    entry["error"] = {"type": _error_kind(e), "message": msg}
            if not args.json:
                if progress is not None:
                    progress.stop()
                if "result" in entry:
                    _show_result(ui, entry["result"], args.output)
                else:
                    ui.error(entry["error"]["message"])
                if progress is not None:
                    progress.start()
            entries.append(entry)
            if progress is not None:
                progress.advance(task)
                progress.refresh()
    finally:
        if progress is not None:
            progress.stop()
    summary = _summary(entries)
    if args.json:
        doc = {"version": 1,
               "options": {"predictor": args.predictor, "abstraction": args.abstraction,
                           "seed": args.seed, "randomize": args.randomize,
                           "timeout": args.timeout, "isolate": args.isolate,
                           "import_missing": args.import_missing,
                           "allow_missing_layers": sorted(args.allow_missing)
                           if args.allow_missing != "all" else "all"},
               "files": [{"file": e["file"], "result": e["result"].to_dict()} if "result" in e
                         else {"file": e["file"], "error": e["error"]} for e in entries],
               "summary": summary}
        ui.stdout.write(json.dumps(doc, indent=2) + "\n")
    elif len(entries) > 1:
        _show_summary(ui, summary)
    if summary["errors"]:
        return EXIT_USAGE
    if summary["failed"]:
        return EXIT_FAILED
    return EXIT_OK


def _error_kind(e: BaseException) -> str:
    from ..engine.run import SourceError
    if isinstance(e, SyntaxError):
        return "syntax"
    if isinstance(e, SourceError):
        return "source"
    if isinstance(e, OSError):
        return "unreadable"
    return "internal"


def _summary(entries: list[dict]) -> dict:
    statuses: dict[str, int] = {}
    covs = []
    ran = total = 0
    failed = 0
    for e in entries:
        r = e.get("result")
        if r is None:
            continue
        statuses[r.status] = statuses.get(r.status, 0) + 1
        if not r.ok:
            failed += 1
        if r.coverage is not None:
            covs.append(r.coverage)
        if r.lines_ran is not None:
            ran += len(r.lines_ran)
            total += len(r.lines_ran) + len(r.lines_skipped or [])
    n_results = sum(1 for e in entries if "result" in e)
    internal = sum(1 for e in entries if e.get("error", {}).get("type") == "internal")
    return {
        "files": len(entries),
        "ran": n_results,
        "ok": n_results - failed,
        # runs that ended early, and files lexecutor_c itself failed on (exit 1)
        "failed": failed + internal,
        # files that cannot be read, decoded or parsed (exit 2)
        "errors": sum(1 for e in entries if "error" in e) - internal,
        "internal_errors": internal,
        "statuses": statuses,
        # the papers' metric: mean over files of line markers reached
        "mean_coverage": (sum(covs) / len(covs)) if covs else None,
        "lines_ran": ran,
        "lines": total,
        "injections": sum(len(e["result"].injections) for e in entries if "result" in e),
    }


def _show_summary(ui: UI, s: dict) -> None:
    rows = [["files", s["files"]], ["ran to the end", s["ok"]],
            ["ended early", s["failed"]], ["unreadable / unparsable", s["errors"]]]
    for st, n in sorted(s["statuses"].items()):
        rows.append([f"  status {st}", n])
    rows.append(["injections", s["injections"]])
    rows.append(["lines that ran", f"{s['lines_ran']} of {s['lines']}"])
    ui.table("summary", ["", ""], rows)


def _short(path: str, width: int = 40) -> str:
    return path if len(path) <= width else "..." + path[-(width - 3):]


def _make_progress(ui: UI):
    """A progress bar on stderr; no refresh thread (the sandbox forks, and a
    fork while another thread holds the console's lock is best avoided)."""
    try:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn)
    except ImportError:
        return None
    console = Console(file=ui.stderr)
    if not console.is_terminal:
        return None
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, auto_refresh=False, transient=True)


def _show_result(ui: UI, r, show_output: bool) -> None:
    rows = [[i["line"], i["kind"], i["name"], i["cls"], i["value"]] for i in r.injections]
    if rows:
        ui.table(f"{r.filename}: injected values", ["line", "kind", "name", "class", "value"],
                 rows)
    else:
        ui.line(f"{r.filename}: nothing injected")
    for f in r.failed_imports:
        names = "" if f["names"] in (None, []) else f" ({', '.join(f['names']) if isinstance(f['names'], list) else f['names']})"
        ui.line(f"  failed import: {f['module']}{names}")
    done = [m for m in r.imported_modules if m.get("imported")]
    if done:
        names = ", ".join(m["module"] if m["name"] == m["module"] else
                          f"{m['module']} as {m['name']}" for m in done)
        ui.line(f"  imported {names}: used but never imported by the code "
                "(--no-import-missing injects instead)")
    for m in r.imported_modules:
        if m.get("imported"):
            continue
        else:
            pkg = f" (package {m['package']})" if m.get("package") else ""
            ui.line(f"  not imported: {m['name']} is module {m['module']}{pkg}, "
                    f"{m.get('reason') or 'not importable'} here: injected")
    ui.line(f"  {coverage_text(r)}")
    ui.line(f"  ended: {status_text(r)}  [{r.wall_time:.2f} s]",
            style=None if r.ok else "bold red")
    if show_output:
        for name in ("stdout", "stderr"):
            text = getattr(r, name)
            if text:
                more = " (truncated)" if getattr(r, f"{name}_truncated") else ""
                ui.line(f"  --- {name}{more} ---")
                ui.line(text.rstrip("\n"))
