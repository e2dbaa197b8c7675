"""Command line: ``python -m lexecutor_c`` / ``lexecutor-c``.

Subcommands register themselves with :func:`command`; adding one (record,
train, treefix, ...) is a function that configures its argparse sub-parser
and a handler returning the exit status:

    @command("record", help="...")
    def _record_args(p): p.add_argument(...)
    @_record_args.handler
    def _record(args, ui): ...; return 0

Exit statuses: 0 every file ran to its end, 1 some run ended early
(exception, timeout, crash, memory, non-zero exit), 2 usage errors and input
that cannot be read or parsed.  Errors are one line on stderr, never a
traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from typing import Callable, Optional

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
PROG = "lexecutor-c"

# What the LExecutor paper reports for its Figure 1 (see
# ../shared/examples/README.md beside the project).
FIGURE1_EXPECTED = {
    "as-is": "crashes at once (NameError on line 1)",
    "has_min_size": "a function returning True",
    "all_data": "a non-empty list",
    "config_str": "a non-empty string",
    "logger": "an object whose info is a method returning None",
    "coverage": "every line runs (the raise on line 2 is skipped: has_min_size returns True)",
}


class UsageError(Exception):
    """Bad input for a command: reported in one line, exit status 2."""


# ---------------------------------------------------------------- registry

@dataclass
class Command:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Optional[Callable] = None

    def handler(self, fn):
        self.run = fn
        return fn


COMMANDS: dict[str, Command] = {}


def command(name: str, help: str):
    """Decorator for a function that adds a subcommand's arguments; the
    returned Command's ``.handler`` decorates its implementation."""
    def deco(configure):
        cmd = Command(name, help, configure)
        COMMANDS[name] = cmd
        return cmd
    return deco


class _Parser(argparse.ArgumentParser):
    def error(self, message):        # one line (plus usage), status 2
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Learning-guided execution of incomplete "
                                            "Python code (LExecutor, FSE'23).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for cmd in COMMANDS.values():
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help)
        cmd.configure(p)
    return parser


# ---------------------------------------------------------------- output

class UI:
    """Tables and lines, through rich when it is installed (plain text
    otherwise); everything for the user on stdout, problems on stderr."""

    def __init__(self, stdout=None, stderr=None):
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        try:
            from rich.console import Console
            tty = hasattr(self.stdout, "isatty") and self.stdout.isatty()
            # in pipes and logs, do not fold paths and titles at 80 columns
            self.console = Console(file=self.stdout, highlight=False, soft_wrap=False,
                                   width=None if tty else 200)
            self.err_console = Console(file=self.stderr, highlight=False)
        except ImportError:
            self.console = self.err_console = None

    def line(self, text: str = "", style: Optional[str] = None) -> None:
        if self.console is not None:
            from rich.text import Text
            self.console.print(Text(text, style=style or ""), soft_wrap=True)
        else:
            print(text, file=self.stdout)

    def table(self, title: str, columns: list[str], rows: list[list]) -> None:
        cells = [["" if c is None else str(c) for c in row] for row in rows]
        if self.console is not None:
            from rich.table import Table
            from rich.text import Text
            # the title on a line of its own: a table folds its title to the
            # table's width, which cuts file paths apart
            self.line(title, style="bold")
            t = Table(show_lines=False)
            for c in columns:
                t.add_column(c, overflow="fold")
            for row in cells:
                t.add_row(*[Text(c) for c in row])
            self.console.print(t)
            return
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
        print(title, file=self.stdout)
        print("  ".join(c.ljust(w) for c, w in zip(columns, widths)), file=self.stdout)
        for r in cells:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)), file=self.stdout)

    def code(self, text: str, filename: str = "") -> None:
        if self.console is not None:
            from rich.syntax import Syntax
            self.console.print(Syntax(text, "python", line_numbers=True,
                                      theme="ansi_dark", word_wrap=True))
        else:
            for i, ln in enumerate(text.splitlines(), 1):
                print(f"{i:4} {ln}", file=self.stdout)

    def error(self, message: str) -> None:
        print(f"{PROG}: error: {_one_line(message)}", file=self.stderr)

    def warn(self, message: str) -> None:
        print(f"{PROG}: {_one_line(message)}", file=self.stderr)


def _one_line(s: str) -> str:
    return " ".join(str(s).split())


# ---------------------------------------------------------------- input errors

def _input_error(path: str, exc: BaseException) -> Optional[str]:
    """A one-line message for errors that mean 'this input is unusable'; None
    for anything else."""
    from .engine.run import SourceError
    if isinstance(exc, SyntaxError):
        where = f"{path}:{exc.lineno}" if exc.lineno else path
        return f"{where}: syntax error: {exc.msg}"
    if isinstance(exc, SourceError):
        return str(exc)
    if isinstance(exc, UnicodeError):
        return f"{path}: {exc}"
    if isinstance(exc, OSError):
        return f"cannot read {path}: {exc.strerror or exc}"
    return None


def _status_text(r) -> str:
    if r.status == "exception" and r.exception:
        line = f" at line {r.exception['line']}" if r.exception.get("line") else ""
        return f"exception {r.exception['type']}: {r.exception['message']}{line}"
    if r.status == "exit":
        return f"exit {r.exit_code}"
    if r.status == "crashed":
        return f"crashed: {r.error}"
    if r.status in ("timeout", "memory") and r.error:
        return f"{r.status}: {r.error}"
    return r.status


def _coverage_text(r) -> str:
    if r.coverage is None:
        total = "?" if r.total_lines is None else r.total_lines
        return f"coverage unknown (?/{total} line markers: the run did not report back)"
    return f"coverage {r.coverage:.1%} ({r.covered_lines}/{r.total_lines} line markers)"


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
    ui.line(f"  {_coverage_text(r)}")
    if r.uncovered:
        ui.line(f"  lines not reached: {_ranges(r.uncovered)}")
    ui.line(f"  ended: {_status_text(r)}  [{r.wall_time:.2f} s]",
            style=None if r.ok else "bold red")
    if show_output:
        for name in ("stdout", "stderr"):
            text = getattr(r, name)
            if text:
                more = " (truncated)" if getattr(r, f"{name}_truncated") else ""
                ui.line(f"  --- {name}{more} ---")
                ui.line(text.rstrip("\n"))


def _ranges(nums: list[int]) -> str:
    out, start, prev = [], None, None
    for n in nums:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = n
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ", ".join(out)


# ---------------------------------------------------------------- run

def _positive_float(s: str) -> float:
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {s!r}")
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {s!r}")
    return v


def add_execution_options(p: argparse.ArgumentParser) -> None:
    """The options of every command that executes code (shared with later
    commands such as record or bench)."""
    from .engine.run import ABSTRACTIONS, PREDICTORS
    p.add_argument("--predictor", choices=PREDICTORS, default="naive",
                   help="how missing values are chosen (default: naive)")
    p.add_argument("--abstraction", choices=ABSTRACTIONS, default="fine",
                   help="value abstraction of the predictor (default: fine)")
    p.add_argument("--seed", type=int, default=None, help="random seed")
    p.add_argument("--randomize", action="store_true",
                   help="randomise among the predictor's choices")
    p.add_argument("--timeout", type=_positive_float, default=10.0, metavar="S",
                   help="wall-clock seconds per file (default: 10)")
    p.add_argument("--no-isolate", dest="isolate", action="store_false",
                   help="execute in this process: no sandbox, no limits (trusted code only)")


@command("run", help="execute files with value injection and report injections and coverage")
def _run_args(p):
    p.add_argument("files", nargs="+", metavar="FILE", help="Python files to execute")
    add_execution_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--output", action="store_true",
                   help="also print what each program wrote to stdout/stderr")


@_run_args.handler
def _run(args, ui: UI) -> int:
    from .engine import run as api
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
                r = api.run(_PathArg(path),
                            predictor=args.predictor, abstraction=args.abstraction,
                            timeout=args.timeout, isolate=args.isolate, seed=args.seed,
                            randomize=args.randomize, filename=path)
                entry["result"] = r
            except api.BackendUnavailable as e:
                raise UsageError(str(e))
            except Exception as e:
                msg = _input_error(path, e)
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
                           "timeout": args.timeout, "isolate": args.isolate},
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


class _PathArg(os.PathLike):
    """A command-line FILE: always a path, so a missing file is reported as
    missing instead of being executed as source code."""

    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return self.path


def _error_kind(e: BaseException) -> str:
    from .engine.run import SourceError
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
        "mean_coverage": (sum(covs) / len(covs)) if covs else None,
        "injections": sum(len(e["result"].injections) for e in entries if "result" in e),
    }


def _show_summary(ui: UI, s: dict) -> None:
    rows = [["files", s["files"]], ["ran to the end", s["ok"]],
            ["ended early", s["failed"]], ["unreadable / unparsable", s["errors"]]]
    for st, n in sorted(s["statuses"].items()):
        rows.append([f"  status {st}", n])
    rows.append(["injections", s["injections"]])
    rows.append(["mean coverage", "-" if s["mean_coverage"] is None
                 else f"{s['mean_coverage']:.1%}"])
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


# ---------------------------------------------------------------- instrument

@command("instrument", help="print a file as instrumented (loaders _n_ _a_ _c_ _l_ _i_)")
def _instrument_args(p):
    p.add_argument("file", metavar="FILE")
    p.add_argument("--iids", action="store_true", help="also print the table of sites")


@_instrument_args.handler
def _instrument(args, ui: UI) -> int:
    from .engine import run as api
    try:
        text, filename = api.load_source(_PathArg(args.file), args.file)
        inst = api.get_instrument()(text, filename=filename)
    except api.BackendUnavailable as e:
        raise UsageError(str(e))
    except Exception as e:
        msg = _input_error(args.file, e)
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


# ---------------------------------------------------------------- demo

@command("demo", help="run the paper's Figure 1 example and compare with what the paper reports")
def _demo_args(p):
    p.add_argument("--predictor", default="naive",
                   choices=[x for x in ("naive", "random", "frequency", "neural")],
                   help="predictor for the injected run (default: naive)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--json", action="store_true", help="print one JSON document")


def example_path(name: str = "lexecutor_figure1.py") -> str:
    from importlib import resources
    ref = resources.files("lexecutor_c") / "examples" / name
    return str(ref)


@_demo_args.handler
def _demo(args, ui: UI) -> int:
    from .engine import run as api
    path = example_path()
    try:
        text, _ = api.load_source(_PathArg(path), path)
        plain = api.run(text, predictor="as-is", filename="lexecutor_figure1.py")
        injected = api.run(text, predictor=args.predictor, seed=args.seed,
                           filename="lexecutor_figure1.py")
    except api.BackendUnavailable as e:
        raise UsageError(str(e))
    except OSError as e:
        raise UsageError(f"the packaged example is missing: {e}")
    if args.json:
        ui.stdout.write(json.dumps({"source": text, "as_is": plain.to_dict(),
                                    "injected": injected.to_dict(),
                                    "paper": FIGURE1_EXPECTED}, indent=2) + "\n")
        return EXIT_OK
    ui.line("LExecutor, FSE'23, Figure 1 (lexecutor_c/examples/lexecutor_figure1.py):",
            style="bold")
    ui.code(text)
    ui.line()
    ui.line(f"As is ({_status_text(plain)}); the paper: {FIGURE1_EXPECTED['as-is']}.")
    ui.line()
    by_name: dict[str, list] = {}
    for inj in injected.injections:
        by_name.setdefault(inj["name"], []).append(inj)
    rows = []
    for name in ("has_min_size", "all_data", "config_str", "logger"):
        got = by_name.pop(name, [])
        value = "; ".join(f"line {i['line']}: {i['cls']} {i['value']}" for i in got) or \
            "(not injected)"
        rows.append([name, value, FIGURE1_EXPECTED[name]])
    for name, got in by_name.items():
        rows.append([name, "; ".join(f"line {i['line']}: {i['cls']} {i['value']}"
                                     for i in got), "-"])
    ui.table(f"With the {args.predictor} predictor", ["name", "injected here", "the paper"],
             rows)
    ui.line(f"{_coverage_text(injected)}; ended: {_status_text(injected)}")
    ui.line(f"the paper: {FIGURE1_EXPECTED['coverage']}")
    if injected.uncovered:
        ui.line(f"lines not reached here: {_ranges(injected.uncovered)}")
    # a demonstration: it succeeded when both runs produced a result, however
    # the example ended (the as-is run crashes by design)
    return EXIT_OK


# ---------------------------------------------------------------- bench

def _coverage_benchmark():
    """benchmarks/coverage.py of the source checkout this package sits in,
    or None (an installed package has no benchmarks)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.path.exists(os.path.join(root, "benchmarks", "coverage.py")):
        return None
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        from benchmarks import coverage
    except ImportError:
        return None
    return coverage


@command("bench", help="coverage benchmark over the Treefix sample per approach "
                       "(benchmarks/coverage.py; see docs/BENCHMARK.md)")
def _bench_args(p):
    bench = _coverage_benchmark()
    if bench is not None:
        bench.add_arguments(p)


@_bench_args.handler
def _bench(args, ui: UI) -> int:
    bench = _coverage_benchmark()
    if bench is None:
        raise UsageError("the benchmark runs from a source checkout (benchmarks/coverage.py "
                         "is not beside this lexecutor_c)")
    return bench.run_benchmark(args)


# ---------------------------------------------------------------- trace

def _apps_read_stdin(path: Optional[str]) -> Optional[bytes]:
    """The bytes of a --stdin FILE (None without one); UsageError when unreadable."""
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}")


@command("trace", help="print the execution trace of (incomplete) code in the CodeExecutor format")
def _trace_args(p):
    p.add_argument("file", metavar="FILE")
    p.add_argument("--stdin", metavar="FILE", help="file the program reads as standard input")
    add_execution_options(p)
    p.add_argument("--max-steps", type=int, default=10_000, metavar="N",
                   help="stop the program after N traced lines (default: 10000)")
    p.add_argument("--json", action="store_true", help="print one JSON document")


@_trace_args.handler
def _trace(args, ui: UI) -> int:
    from .engine import run as api
    from .apps.trace import trace
    if args.max_steps < 1:
        raise UsageError("--max-steps must be positive")
    stdin = _apps_read_stdin(args.stdin)
    try:
        r = trace(_PathArg(args.file), stdin=stdin, predictor=args.predictor,
                  abstraction=args.abstraction, seed=args.seed, randomize=args.randomize,
                  timeout=args.timeout, isolate=args.isolate, filename=args.file,
                  max_steps=args.max_steps)
    except api.BackendUnavailable as e:
        raise UsageError(str(e))
    except Exception as e:
        msg = _input_error(args.file, e)
        if msg is None:
            raise
        raise UsageError(msg)
    if args.json:
        doc = {"version": 1, "file": args.file, "trace": r.text(), **r.to_dict()}
        ui.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        ui.stdout.write(r.text())
        if r.truncated:
            ui.warn(f"{args.file}: stopped after {args.max_steps} traced lines")
        if r.error:
            ui.warn(f"{args.file}: {r.status}: {r.error}")
        elif r.status == "timeout":
            ui.warn(f"{args.file}: stopped after {args.timeout:g} s (timeout)")
    ok = r.status == "ok" or (r.status == "exit" and r.exit_code == 0)
    return EXIT_OK if ok and not r.error and not r.truncated else EXIT_FAILED


# ---------------------------------------------------------------- commits

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
    p.add_argument("--timeout", type=_positive_float, default=5.0, metavar="S",
                   help="wall-clock seconds per run (default: 5)")
    p.add_argument("--fail-on-change", action="store_true",
                   help="exit with status 1 when a commit changes behaviour")
    p.add_argument("--json", action="store_true", help="print one JSON document")


@_commits_args.handler
def _commits(args, ui: UI) -> int:
    from .apps import commits as cm
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


# ---------------------------------------------------------------- errors

@command("errors", help="find runtime errors of (incomplete) code and tell them from crashes "
                        "caused by injected values")
def _errors_args(p):
    p.add_argument("file", metavar="FILE")
    p.add_argument("--stdin", metavar="FILE", help="file the program reads as standard input")
    p.add_argument("--seeds", type=int, default=5, metavar="N",
                   help="seeded randomized runs besides the naive one (default: 5)")
    p.add_argument("--timeout", type=_positive_float, default=10.0, metavar="S",
                   help="wall-clock seconds per run (default: 10)")
    p.add_argument("--no-treefix", dest="treefix", action="store_false",
                   help="do not use Treefix prefixes even when lexecutor_c.treefix is there")
    p.add_argument("--json", action="store_true", help="print one JSON document")


@_errors_args.handler
def _errors(args, ui: UI) -> int:
    from .engine import run as api
    from .apps.errors import find_errors
    if args.seeds < 0:
        raise UsageError("--seeds must not be negative")
    stdin = _apps_read_stdin(args.stdin)
    try:
        rep = find_errors(_PathArg(args.file), stdin=stdin, seeds=args.seeds,
                          timeout=args.timeout, use_treefix=args.treefix, filename=args.file)
    except api.BackendUnavailable as e:
        raise UsageError(str(e))
    except Exception as e:
        msg = _input_error(args.file, e)
        if msg is None:
            raise
        raise UsageError(msg)
    if args.json:
        ui.stdout.write(json.dumps({"version": 1, **rep.to_dict()}, indent=2) + "\n")
    else:
        meaning = {"real": "the code's own error", "derived": "computed from injected values",
                   "injected": "caused by an injected value", "missing": "a value left missing"}
        rows = [[g.line if g.line is not None else "?", g.type, g.message, g.category,
                 meaning[g.category] + (f" ({', '.join(g.involved)})" if g.involved else ""),
                 f"{g.runs}/{len(rep.runs)}"] for g in rep.errors]
        if rows:
            ui.table(f"{args.file}: exceptions", ["line", "type", "message", "verdict", "why",
                                                  "runs"], rows)
        else:
            ui.line(f"{args.file}: no run ended with an exception")
        statuses: dict[str, int] = {}
        for r in rep.runs:
            statuses[r.status] = statuses.get(r.status, 0) + 1
        ui.line(f"  {len(rep.runs)} runs ({rep.source_of_runs}): " +
                ", ".join(f"{n} {st}" for st, n in sorted(statuses.items())))
        for n in rep.notes:
            ui.line(f"  note: {n}")
    return EXIT_FAILED if rep.real else EXIT_OK



# ---------------------------------------------------------------- treefix

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
    p.add_argument("--timeout", type=_positive_float, default=2.0, metavar="S",
                   help="seconds per run of prefix + snippet (2)")
    p.add_argument("--budget", type=_positive_float, default=60.0, metavar="S",
                   help="seconds for the whole search (60)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--model", help="LLM model (else LEXECUTOR_LLM_MODEL)")
    p.add_argument("--base-url", help="LLM endpoint (else LEXECUTOR_LLM_BASE_URL)")
    p.add_argument("--install", action="store_true",
                   help="pip install unresolved imports (off by default)")
    p.add_argument("--tree", metavar="FILE", help="write the prefix tree as JSON to FILE")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


@_treefix_args.handler
def _treefix(args, ui: UI) -> int:
    """Run the Treefix loop on one file; a one-line progress display on a
    terminal's stderr; the chosen prefixes and coverage, or --json."""
    from . import treefix as run_treefix
    from .prefixtree import TreefixError
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
        msg = _input_error(args.file, e) if isinstance(e, (SyntaxError, ValueError)) else None
        raise UsageError(msg or str(e)) from None
    except (SyntaxError, OSError) as e:
        raise UsageError(_input_error(args.file, e) or str(e)) from None
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
        print(r.to_json(), file=ui.stdout)
        return EXIT_OK
    for i, pre in enumerate(r.prefixes):
        nd = r.tree[r.prefix_ids[i]]
        ui.line(f"prefix {i + 1} of P (node {nd.id}, {nd.step}): covers {nd.coverage:.1%}"
                f" alone: lines {_ranges(nd.covered)}", style="bold")
        ui.code(pre if pre.strip() else "# (empty prefix: injection alone)\n")
    ui.line(f"{r.filename}: coverage of P {r.coverage:.1%} ({len(r.prefixes)} prefixes, "
            f"greedy set cover), best single prefix {r.best_coverage:.1%}, injection alone "
            f"{(r.baseline_coverage or 0):.1%}; {len(r.tree)} prefixes tried in "
            f"{r.timings['total']:.1f} s")
    if r.uncovered:
        ui.line(f"  lines not reached: {_ranges(r.uncovered)}")
    if r.unresolved_imports:
        ui.line(f"  unresolved imports: {', '.join(r.unresolved_imports)}")
    return EXIT_OK


# ---------------------------------------------------------------- record

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
    p.add_argument("--timeout", type=_positive_float, default=None, metavar="SECONDS",
                   help="kill the command after this long")
    p.add_argument("--flush-interval", type=float, default=5.0, metavar="SECONDS",
                   help="write events to disk this often (default 5; 0: only at exit)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- COMMAND ...",
                   help="the command to run")


@_record_args.handler
def _record(args, ui: UI) -> int:
    from .engine.record import RecordError, record
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
    if r.timed_out:
        return EXIT_FAILED
    return r.returncode if 0 <= r.returncode < 256 else EXIT_FAILED


# ---------------------------------------------------------------- train

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


@_train_args.handler
def _train(args, ui: UI) -> int:
    if args.dim % args.heads or args.dim <= 0 or args.layers < 0 or args.buckets < 2 \
            or args.batch_size < 1 or args.epochs <= 0 or args.threads < 1:
        raise UsageError("train: bad model settings (dim must be a positive multiple of heads, "
                         "buckets >= 2, batch size, epochs and threads positive)")
    try:
        from .model.training.train import latency, train
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
        from .model.neural import NeuralUnavailable
        from .model.training import dataset as ds
        try:
            exs = ds.examples_from_events(
                [f for e in args.events for f in (__import__("glob").glob(e) or [e])])
            report["latency"] = latency(args.out, exs)
        except NeuralUnavailable as e:
            ui.warn(f"train: no latency measurement: {e}")
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
    ui.stdout.write(json.dumps(report, indent=2) + "\n")
    return EXIT_OK


# ---------------------------------------------------------------- main

def main(argv: Optional[list[str]] = None) -> int:
    """Entry point; returns the exit status (the console script exits with it)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:          # --help, or a usage error already printed
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    ui = UI()
    try:
        return COMMANDS[args.command].run(args, ui)
    except UsageError as e:
        ui.error(str(e))
        return EXIT_USAGE
    except KeyboardInterrupt:
        ui.warn("interrupted")
        return 130
    except BrokenPipeError:
        # the reader went away (| head): say nothing more on a dead pipe
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_FAILED


if __name__ == "__main__":       # pragma: no cover
    sys.exit(main())
