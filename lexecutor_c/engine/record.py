"""Record value-use events of a real run: ``lexecutor_c.record(command, ...)``.

    from lexecutor_c import record
    r = record(["python", "-m", "pytest", "tests/"], include=["mypkg"], out="ev.jsonl.gz",
               cwd="/path/to/project")
    r.returncode, r.events, r.modules

The command runs in a subprocess.  Every Python interpreter it starts (the
command itself and the interpreters *it* starts, as long as they inherit the
environment and honour ``PYTHONPATH``) instruments the chosen modules as
they are imported, executes them with ``_core.Runtime(predictor="as-is",
record=True)`` (nothing is injected: the program behaves as it would
uninstrumented, only slower) and appends the events to per-process part
files, flushed every ``flush_interval`` seconds and at exit.  When the
command has ended (whatever its exit status) the parts are merged into
``out`` (``lexecutor_c.engine.runtime.write_events`` format) and removed.

Module choice (``include``): each pattern is either

* a *module* pattern: a dotted name (``mypkg``, ``mypkg.sub``) choosing the
  module and everything under it, or an ``fnmatch`` pattern over module names
  (``test_*``).  Module patterns are explicit: they may name stdlib or
  site-packages modules (``json``);
* a *path* pattern (contains a ``/``, starts with ``.`` or ``~``, or names an
  existing file or directory under ``cwd``): modules whose file lies under
  it, or matches it as an ``fnmatch`` pattern.  Files in the standard library
  and in site-packages are skipped unless the pattern itself points inside
  them.

Without ``include`` the pattern is ``cwd`` (the project being run).
``lexecutor_c`` itself is never instrumented, and neither is a module that
was imported before the hook was installed (``sitecustomize`` time).

Test modules that pytest rewrites for its assertion messages are loaded by
pytest's own import hook and so are not instrumented; run pytest with
``--assert=plain`` to record them too.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import tempfile
import zlib
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence, Tuple, Union

from .runtime import Event, EVENT_FIELDS, write_events

__all__ = ["record", "RecordResult", "RecordError", "read_parts", "excluded_roots",
           "classify_patterns"]

ENV = "LEXECUTOR_C_RECORD"
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # lexecutor_c/
_MODULE_PAT = re.compile(r"^[A-Za-z_*?\[\]][\w*?\[\]!-]*(\.[\w*?\[\]!-]+)*$")

SITECUSTOMIZE = '''\
# Written by lexecutor_c.record: starts recording in this interpreter, then
# runs the sitecustomize this file shadows (if any).
def _lexecutor_c_record():
    import os, sys
    here = os.path.dirname(os.path.abspath(__file__))
    raw = os.environ.get("LEXECUTOR_C_RECORD")
    if raw:
        try:
            import ast
            import importlib.util
            settings = ast.literal_eval(raw)
            if "lexecutor_c" not in sys.modules:
                pkg = settings["package"]
                init = os.path.join(pkg, "__init__.py")
                spec = importlib.util.spec_from_file_location(
                    "lexecutor_c", init, submodule_search_locations=[pkg])
                stub = importlib.util.module_from_spec(spec)
                # The package __init__ imports much of the stdlib (json, ...),
                # which then could not be instrumented: run it on first use.
                def __getattr__(attr, _stub=stub, _init=init, _pkg=pkg):
                    d = _stub.__dict__
                    if not attr.startswith("__") and not d.get("_lx_init_done"):
                        # `from lexecutor_c import _core`: a submodule, no __init__
                        import importlib
                        for entry in os.listdir(_pkg):
                            if entry == attr + ".py" or (entry.startswith(attr + ".")
                                                         and entry.endswith(".so")):
                                return importlib.import_module("lexecutor_c." + attr)
                    if not d.get("_lx_init_done"):
                        d["_lx_init_done"] = True
                        with open(_init, "rb") as f:
                            exec(compile(f.read(), _init, "exec"), d)
                        if attr in d:
                            return d[attr]
                    raise AttributeError(f"module 'lexecutor_c' has no attribute {attr!r}")
                stub.__getattr__ = __getattr__
                sys.modules["lexecutor_c"] = stub
            from lexecutor_c.engine import _recorder
            _recorder.start(settings)
        except Exception as e:
            sys.stderr.write("lexecutor_c record: not recording in this process: "
                             f"{type(e).__name__}: {e}\\n")
    me = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        import sitecustomize  # noqa: F401  (the one this file shadows)
    except ImportError:
        pass
    finally:
        sys.path[:] = saved
        if me is not None:
            sys.modules["sitecustomize"] = me
_lexecutor_c_record()
del _lexecutor_c_record
'''


class RecordError(ValueError):
    """Bad arguments for record()."""


@dataclass
class RecordResult:
    """What ``record()`` did."""
    command: List[str]
    returncode: int               # the command's exit status (negative: killed by signal)
    out: str                      # the events file
    events: int                   # events written to out
    processes: int                # Python processes that recorded
    modules: List[Tuple[str, str]] = field(default_factory=list)   # (module, file) instrumented
    failed: List[Tuple[str, str]] = field(default_factory=list)    # (file, why) not instrumented
    timed_out: bool = False
    warnings: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def excluded_roots() -> List[str]:
    """Directories skipped by path patterns: the standard library and site-packages."""
    roots = set()
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            roots.add(paths[key])
    try:
        roots.update(site.getsitepackages())
    except AttributeError:
        pass
    user = getattr(site, "getusersitepackages", lambda: None)()
    if user:
        roots.add(user)
    return sorted({os.path.realpath(r) for r in roots})


def classify_patterns(include: Optional[Sequence[str]], cwd: str) -> Tuple[List[str], List[str]]:
    """Split ``include`` into (module patterns, absolute path patterns)."""
    if include is None:
        return [], [os.path.realpath(cwd)]
    if isinstance(include, str):
        include = [include]
    modules, paths = [], []
    for pat in include:
        if not isinstance(pat, str) or not pat.strip():
            raise RecordError(f"include patterns must be non-empty strings, not {pat!r}")
        pat = pat.strip()
        candidate = os.path.join(cwd, os.path.expanduser(pat))
        is_path = ("/" in pat or os.sep in pat or pat.startswith((".", "~"))
                   or os.path.exists(candidate))
        if is_path:
            if any(c in pat for c in "*?["):
                paths.append(os.path.abspath(candidate))
            elif not os.path.exists(candidate):
                raise RecordError(f"include path {pat!r} does not exist (under {cwd})")
            else:
                paths.append(os.path.realpath(candidate))
        else:
            if not _MODULE_PAT.match(pat):
                raise RecordError(f"include pattern {pat!r} is neither a module name "
                                  "pattern nor a path")
            modules.append(pat)
    if not modules and not paths:
        raise RecordError("include: give at least one pattern (or leave it out for cwd)")
    return modules, paths


def _clean(s):
    if isinstance(s, str):
        return s.encode("utf-8", "replace").decode("utf-8") if _has_surrogate(s) else s
    return s


def _has_surrogate(s):
    try:
        s.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def read_parts(path: str) -> Tuple[List[Event], bool]:
    """Events of one part file; ``(events, complete)`` where ``complete`` is
    False when the file ends in a truncated member (its lost tail skipped)."""
    import json
    out: List[Event] = []
    complete = True
    with open(path, "rb") as f:
        data = f.read()
    text = b""
    pos = 0
    while pos < len(data):
        d = zlib.decompressobj(31)
        try:
            chunk = d.decompress(data[pos:])
        except zlib.error:
            complete = False
            break
        if not d.eof:
            complete = False
            break
        text += chunk
        pos = len(data) - len(d.unused_data)
    for line in text.decode("utf-8", "replace").splitlines():
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            complete = False
            continue
        if isinstance(row, list) and len(row) == len(EVENT_FIELDS):
            out.append(Event(*[_clean(v) for v in row]))
    return out, complete


def _signal_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def record(command: Union[str, Sequence[str]], *, include: Optional[Sequence[str]] = None,
           out: str = "events.jsonl.gz", cwd: Optional[str] = None,
           env: Optional[dict] = None, unique: bool = True,
           timeout: Optional[float] = None, flush_interval: float = 5.0,
           stdout: Any = None, stderr: Any = None) -> RecordResult:
    """Run ``command`` recording value-use events; see the module docstring.

    ``command``: list of str (a str is split like a shell would).  ``out``:
    the events file to write (its directory must exist).  ``unique``: keep
    one event per (file, site, kind, name, class) and process instead of one
    per execution.  ``timeout``: seconds, then the command's process group is
    killed (``timed_out``).  ``stdout``/``stderr`` go to ``subprocess.Popen``
    (default: inherited).  Raises ``RecordError`` (a ValueError) for bad
    arguments and ``FileNotFoundError`` when the program does not exist.
    """
    if isinstance(command, str):
        command = shlex.split(command)
    if not isinstance(command, (list, tuple)) or not command or \
            not all(isinstance(c, str) for c in command):
        raise RecordError("command must be a non-empty list of strings")
    command = list(command)
    cwd = os.path.abspath(cwd or os.getcwd())
    if not os.path.isdir(cwd):
        raise RecordError(f"cwd {cwd!r} is not a directory")
    if not isinstance(out, (str, os.PathLike)) or not str(out):
        raise RecordError("out must be a file path")
    out = os.path.abspath(os.fspath(out))
    out_dir = os.path.dirname(out)
    if not os.path.isdir(out_dir):
        raise RecordError(f"the directory of out ({out_dir}) does not exist")
    if os.path.isdir(out):
        raise RecordError(f"out {out!r} is a directory")
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
        raise RecordError("timeout must be a positive number or None")
    if not (isinstance(flush_interval, (int, float)) and flush_interval >= 0):
        raise RecordError("flush_interval must be a number >= 0")
    modules, paths = classify_patterns(include, cwd)

    parts = tempfile.mkdtemp(prefix=".lexecutor-record-", dir=out_dir)
    boot = os.path.join(parts, "boot")
    os.mkdir(boot)
    with open(os.path.join(boot, "sitecustomize.py"), "w", encoding="utf-8") as f:
        f.write(SITECUSTOMIZE)
    settings = {"package": _PKG_DIR, "dir": parts, "modules": modules, "paths": paths,
                "excluded": excluded_roots(), "unique": bool(unique),
                "flush_interval": float(flush_interval), "root": cwd}
    child_env = dict(os.environ if env is None else env)
    child_env[ENV] = repr(settings)
    old = child_env.get("PYTHONPATH")
    child_env["PYTHONPATH"] = boot + (os.pathsep + old if old else "")
    child_env.pop("PYTHONNOUSERSITE", None)

    timed_out = False
    try:
        proc = subprocess.Popen(command, cwd=cwd, env=child_env, stdout=stdout,
                                stderr=stderr, start_new_session=True)
    except (FileNotFoundError, PermissionError):
        shutil.rmtree(parts, ignore_errors=True)
        raise
    try:
        while True:
            try:
                proc.wait(timeout=timeout)
                break
            except subprocess.TimeoutExpired:
                timed_out = True
                _signal_group(proc, signal.SIGTERM)
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    _signal_group(proc, signal.SIGKILL)
                    proc.wait()
                break
            except KeyboardInterrupt:
                _signal_group(proc, signal.SIGINT)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    _signal_group(proc, signal.SIGKILL)
                    proc.wait()
                raise
    finally:
        result = _merge(parts, out, command, proc.returncode, unique)
        result.timed_out = timed_out
        shutil.rmtree(parts, ignore_errors=True)
    return result


def _merge(parts: str, out: str, command, returncode, unique: bool) -> RecordResult:
    rows: List[Event] = []
    seen = set()
    modules, failed, warnings = [], [], []
    processes = 0
    names = sorted(os.listdir(parts))
    for name in names:
        path = os.path.join(parts, name)
        if name.endswith(".modules"):
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    bits = line.rstrip("\n").split("\t")
                    if len(bits) < 3:
                        continue
                    status, what, detail = bits[0], bits[1], bits[2]
                    if status == "started":
                        processes += 1
                    elif status == "instrumented":
                        modules.append((what, detail))
                    elif status == "failed":
                        failed.append((what, detail))
        elif name.endswith(".events.gz"):
            evs, complete = read_parts(path)
            if not complete:
                warnings.append(f"process {name.split('.')[0]}: the last events were "
                                "cut off (it died while writing)")
            for ev in evs:
                if unique:
                    key = (ev.file, ev.iid, ev.kind, ev.name, ev.cls)
                    if key in seen:
                        continue
                    seen.add(key)
                rows.append(ev)
    if processes == 0:
        warnings.append("no Python process recorded: the command started none, or it "
                        "ignored PYTHONPATH (python -E/-I), or ran another interpreter")
    elif not modules:
        warnings.append("no module matched the include patterns")
    n = write_events(out, rows)
    return RecordResult(command=list(command), returncode=returncode, out=out, events=n,
                        processes=processes, modules=sorted(set(modules)), failed=failed,
                        warnings=warnings)
