"""Output of the commands: tables and lines through rich (plain text without it), and
the wording of run results shared by several commands."""
from __future__ import annotations

import sys
from typing import Optional

from .common import PROG


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
        print(f"{PROG}: error: {one_line(message)}", file=self.stderr)

    def warn(self, message: str) -> None:
        print(f"{PROG}: {one_line(message)}", file=self.stderr)


def one_line(s: str) -> str:
    return " ".join(str(s).split())


def status_text(r) -> str:
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


def coverage_text(r) -> str:
    """Which lines ran, in words (Result.what_ran): "3 of the 4 lines ran
    (line 2, the raise, was skipped)".  The papers' line-marker metric is
    shown only where it is labelled so (marker_text, the benchmarks)."""
    return r.what_ran()


def marker_text(r) -> str:
    """The papers' metric, labelled: "line markers (the papers' metric): 2 of 4"."""
    if r.coverage is None:
        return "line markers (the papers' metric): unknown"
    return (f"line markers reached (the papers' coverage metric): {r.covered_lines} of "
            f"{r.total_lines}, {r.coverage:.1%}")


def ranges(nums: list[int]) -> str:
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
