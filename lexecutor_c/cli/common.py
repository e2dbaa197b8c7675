"""What every command shares: exit statuses, UsageError, the command registry,
and the argument and input helpers of the commands that execute code."""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import Callable, Optional

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
PROG = "lexecutor-c"

#: what the exit statuses mean, for `lexecutor-c --help` (README and docs/RUNNING.md say the same)
EXIT_STATUS_HELP = """\
exit status:
  0    success: every file ran to its end (run, trace); no error of the code's own
       (errors); no behaviour change, or no --fail-on-change (commits)
  1    a run ended early (exception, timeout, crash, memory, non-zero exit); errors
       found an error of the code's own; commits --fail-on-change found a change;
       an LLM request failed (treefix, errors --llm); an internal error of
       lexecutor_c
  2    usage: bad arguments; input that cannot be read, decoded or parsed; not a git
       repository or revision; a predictor this environment cannot run (neural
       without torch).  One line on stderr, never a traceback
  130  interrupted (Ctrl-C)
  record exits with its command's own status (1 when that was killed or timed out).
--json (every command) prints one JSON document on stdout, with "version": 1;
messages stay on stderr and the exit status is the same."""


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


# ---------------------------------------------------------------- arguments and input

def positive_float(s: str) -> float:
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {s!r}")
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {s!r}")
    return v


def add_execution_options(p: argparse.ArgumentParser) -> None:
    """The options of every command that executes code (run, trace)."""
    from ..engine.run import ABSTRACTIONS, PREDICTORS
    p.add_argument("--predictor", choices=PREDICTORS, default="naive",
                   help="how missing values are chosen (default: naive)")
    p.add_argument("--abstraction", choices=ABSTRACTIONS, default="fine",
                   help="value abstraction of the predictor (default: fine)")
    p.add_argument("--seed", type=int, default=None, help="random seed")
    p.add_argument("--randomize", action="store_true",
                   help="randomise among the predictor's choices")
    p.add_argument("--timeout", type=positive_float, default=10.0, metavar="S",
                   help="wall-clock seconds per file (default: 10)")
    p.add_argument("--no-isolate", dest="isolate", action="store_false",
                   help="execute in this process: no sandbox, no limits (trusted code only)")
    p.add_argument("--allow-missing-layers", dest="allow_missing", type=layer_list,
                   default=frozenset(), metavar="LAYERS",
                   help="confinement layers the sandbox may go without where the kernel "
                        "lacks them (comma-separated: userns,pidns,mountns,netns,ipcns,"
                        "landlock,seccomp; or 'all'); by default a missing layer stops "
                        "the run")


def layer_list(s: str):
    """--allow-missing-layers: "all" or a comma-separated list of layer names."""
    from ..engine.sandbox import LAYERS
    if s.strip() == "all":
        return "all"
    names = frozenset(x.strip() for x in s.split(",") if x.strip())
    bad = sorted(names - set(LAYERS))
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"unknown layer(s) {', '.join(bad) or repr(s)}; choose from {', '.join(LAYERS)} "
            "or 'all'")
    return names


def confinement_notice(args, ui) -> None:
    """The first line of a command that executes code, on stderr, when the
    code will not be fully confined: --no-isolate, or layers the kernel
    lacks (which then stop the run unless --allow-missing-layers names them)."""
    if not getattr(args, "isolate", True):
        ui.warn("warning: --no-isolate: the code runs in this process, unconfined")
        return
    from ..engine import sandbox
    caps = sandbox.capabilities()
    missing = [layer for layer in sandbox.LAYERS if not caps[layer]["available"]]
    if not missing:
        return
    allowed = sandbox.ALL_LAYERS if args.allow_missing == "all" else args.allow_missing
    line = sandbox.describe_capabilities(caps)
    refused = [layer for layer in missing if layer not in allowed]
    if refused:
        line += (f" -- runs stop unless you accept running without them: "
                 f"--allow-missing-layers {','.join(refused)}")
    else:
        line += " -- running without them (--allow-missing-layers)"
    ui.warn("warning: " + line)


def predictor_problem(predictor: Optional[str]) -> Optional[str]:
    """Why this environment cannot run *predictor*, found without loading torch or the
    shim (model.neural.check_available); None when it can."""
    if predictor != "neural":
        return None
    from ..model.neural import NeuralUnavailable, check_available
    try:
        check_available()
    except NeuralUnavailable as e:
        return f"--predictor neural: {e}"
    return None


class PathArg(os.PathLike):
    """A command-line FILE: always a path, so a missing file is reported as
    missing instead of being executed as source code."""

    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return self.path


def input_error(path: str, exc: BaseException) -> Optional[str]:
    """A one-line message for errors that mean 'this input is unusable'; None
    for anything else."""
    from ..engine.run import SourceError
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


def read_stdin(path: Optional[str]) -> Optional[bytes]:
    """The bytes of a --stdin FILE (None without one); UsageError when unreadable."""
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}")
