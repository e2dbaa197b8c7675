"""Command line: ``python -m lexecutor_c`` / ``lexecutor-c``.

One module per command (run, instrument, demo, trace, commits, compare, errors,
treefix, record, train); each registers itself with :func:`command` from
common.py: a function that configures its argparse sub-parser and a handler
returning the exit status:

    @command("record", help="...")
    def _record_args(p): p.add_argument(...)
    @_record_args.handler
    def _record(args, ui): ...; return 0

Exit statuses (EXIT_STATUS_HELP in common.py, shown by --help): 0 done,
1 a failed run or a finding, 2 usage errors and input that cannot be read or
parsed, 130 interrupted.  Errors are one line on stderr, never a traceback.
Every command takes --json (one document on stdout, docs/RUNNING.md).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

from .._version import __version__
from .common import (COMMANDS, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_STATUS_HELP,
                     EXIT_USAGE, PROG, Command, UsageError, add_execution_options, command,
                     predictor_problem)
from .ui import UI
# the commands, in the order `lexecutor-c --help` lists them
from . import run, instrument, demo, trace, commits, compare, errors, treefix, record, train  # noqa: F401,E501
from .demo import FIGURE1_EXPECTED, example_path

__all__ = ["COMMANDS", "Command", "EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK",
           "EXIT_STATUS_HELP", "EXIT_USAGE", "FIGURE1_EXPECTED",
           "PROG", "UI", "UsageError", "add_execution_options", "build_parser", "command",
           "example_path", "main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):        # one line (plus usage), status 2
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Learning-guided execution of incomplete "
                                            "Python code (LExecutor, FSE'23).",
                     epilog=EXIT_STATUS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for cmd in COMMANDS.values():
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help,
                           epilog=EXIT_STATUS_HELP,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        cmd.configure(p)
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point; returns the exit status (the console script exits with it)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:          # --help, or a usage error already printed
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    ui = UI()
    try:
        problem = predictor_problem(getattr(args, "predictor", None))
        if problem is not None:
            raise UsageError(problem)
        return COMMANDS[args.command].run(args, ui)
    except UsageError as e:
        ui.error(str(e))
        return EXIT_USAGE
    except Exception as e:
        from ..engine.sandbox import ConfinementError
        if not isinstance(e, ConfinementError):
            raise
        ui.error(str(e))          # nothing ran: a layer the kernel lacks (fail closed)
        return EXIT_USAGE
    except KeyboardInterrupt:
        ui.warn("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (| head): say nothing more on a dead pipe
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_FAILED

