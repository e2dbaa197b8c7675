"""Run a function in a throw-away, confined child process with resource limits.

``call_isolated(func, *args, limits=Limits(...), **kwargs)`` forks a child
confined in layers (``Limits.layers``; the C part is csrc/sandbox/): a user
namespace in which it is an unprivileged id, a PID namespace of its own, a
read-only minimal view of the file system with a private writable /tmp, no
network, Landlock, a seccomp filter, no_new_privs, an allow-listed
environment and no inherited descriptors.  A layer the kernel refuses makes
the call raise :class:`ConfinementError` (fail closed) unless the caller
allowed it to be missing (``Limits.allow_missing``).  The child also joins a
fresh pids cgroup when the kernel lets it, sets rlimits, has stdin from the
given bytes (``/dev/null`` by default) and stdout/stderr connected to pipes
that the parent reads into bounded buffers.  The child runs
``func(*args, **kwargs)`` and sends the outcome back over a pipe; the parent
enforces a wall-clock limit, kills everything the child started, reaps it,
removes the directory and returns an :class:`Outcome` that says what happened.

The parent never unpickles arbitrary objects from the child unless asked to
(``result="pickle"``): code that runs in the child can write to the result
pipe as well as ``func`` can, so by default only plain data (``None``, bools,
numbers, strings, bytes and the built-in containers) is accepted.

See docs/RUNNING.md for the isolation model and what was measured to work.
"""
from __future__ import annotations

import ctypes
import errno
import faulthandler
import io
import math
import os
import pickle
import resource
import selectors
import shutil
import signal
import struct
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Union

__all__ = [
    "Limits", "Outcome", "Timeout", "call_isolated", "report_progress",
    "SandboxError", "ConfinementError", "capabilities", "LAYERS", "ALL_LAYERS",
]

MiB = 1 << 20

# The real os._exit, kept in case code run in a child replaces os._exit.
_exit = os._exit

#: Outcome.status values.
STATUSES = ("ok", "exception", "exit", "timeout", "signal", "memory", "error")


class SandboxError(RuntimeError):
    """Raised by :meth:`Outcome.unwrap` when the call did not return a value."""


class ConfinementError(SandboxError):
    """A confinement layer that the call requires could not be applied (the
    kernel lacks it or refuses it).  Nothing was executed.  ``layer`` names
    it; ``Limits(allow_missing=...)`` (``run(..., allow_missing=...)``, the
    CLI's ``--allow-missing-layers``) runs without it."""

    def __init__(self, message: str, layer: Optional[str] = None):
        super().__init__(message)
        self.layer = layer


#: The confinement layers, in the order the child applies them (docs/RUNNING.md).
LAYERS = ("userns", "pidns", "mountns", "netns", "ipcns", "landlock", "seccomp")
ALL_LAYERS = frozenset(LAYERS)

#: Environment variables the child keeps (names; a trailing * is a prefix).
ENV_ALLOW = ("PATH", "LANG", "LANGUAGE", "LC_*", "TZ", "TERM", "PYTHONHASHSEED",
             "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONDONTWRITEBYTECODE")

#: The run directory inside a mount namespace (cwd, HOME, TMPDIR).
RUNDIR = "/tmp/lexecutor_c-run"


class Timeout(BaseException):
    """Raised inside the child when the wall-clock limit (or ``cpu_timeout``) is reached.

    A BaseException so that ``except Exception`` in the executed code does not
    swallow it; code that swallows it anyway is killed ``Limits.grace`` seconds
    later.
    """


@dataclass(frozen=True)
class Limits:
    """Limits for one isolated call.  ``None`` switches a limit off."""

    #: wall-clock seconds for the whole call
    timeout: Optional[float] = 10.0
    #: raise :class:`Timeout` in the child at ``timeout`` (SIGALRM), then kill
    #: ``grace`` seconds later; False: kill at ``timeout`` straight away
    soft_timeout: bool = True
    grace: float = 1.0
    #: RLIMIT_CPU seconds; None: ceil(timeout) + 1 when there is a timeout
    #: (ceil(cpu_timeout + grace) + 1 where that is sooner)
    cpu: Optional[int] = None
    #: CPU seconds of the child after which :class:`Timeout` is raised in it
    #: (SIGPROF), as at ``timeout`` on the wall clock: a limit that stops the
    #: same code at the same point on a loaded machine as on an idle one (a
    #: caller gives ``timeout`` a few times as much for code that waits)
    cpu_timeout: Optional[float] = None
    #: address space the child may add to what it has mapped at the fork
    #: (RLIMIT_AS = current size + memory)
    memory: Optional[int] = 1024 * MiB
    #: RLIMIT_FSIZE: largest file the child may write
    fsize: Optional[int] = 64 * MiB
    #: RLIMIT_NOFILE
    nofile: Optional[int] = 256
    #: processes and threads the child may have at once, itself included
    #: (pids cgroup where available, RLIMIT_NPROC otherwise)
    nproc: Optional[int] = 32
    #: bytes of stdout / stderr kept (the rest is read and counted, not kept)
    stdout_max: int = 1 * MiB
    stderr_max: int = 1 * MiB
    #: largest serialized return value accepted
    result_max: int = 256 * MiB
    #: False: move the child into an empty network namespace when permitted
    network: bool = False
    #: close every inherited descriptor except stdin/stdout/stderr
    close_fds: bool = True
    #: a caller that is root runs the child as this unprivileged user (name or
    #: uid; its primary group too); None: "nobody".  Without confinement
    #: layers (layers=()), None keeps the caller's identity.
    user: Optional[object] = None
    #: confinement layers to apply (a subset of LAYERS); () switches the
    #: confinement off (rlimits, cgroup and network namespace only)
    layers: frozenset = ALL_LAYERS
    #: layers the call may run without when the kernel refuses them (a
    #: subset of LAYERS, or "all"); the default () fails closed: a missing
    #: layer raises ConfinementError and nothing is executed
    allow_missing: object = frozenset()
    #: bytes of the private /tmp (and of /dev/shm) inside the mount namespace
    disk: int = 64 * MiB
    #: extra paths the child may read (besides the system, the Python
    #: installation, sys.path and the package)
    readable: tuple = ()
    #: extra environment variables for the child (the rest is ENV_ALLOW)
    env: Optional[dict] = None


@dataclass
class Outcome:
    """What happened to one isolated call.

    status is one of:

    ``ok``         func returned; ``value`` holds what it returned
    ``exception``  func raised; ``exc_type``, ``exc_message``, ``traceback``
                   (text) and, where it could be carried over, ``exception``
    ``exit``       the child exited on its own: ``sys.exit`` / ``SystemExit``
                   in func, ``os._exit``; ``exit_code`` (and ``exit_message``
                   for ``sys.exit("msg")``)
    ``timeout``    the wall-clock limit (``timeout_kind`` "soft": the child
                   stopped at the Timeout exception; "hard": it had to be
                   killed) or the CPU limit (``timeout_kind`` "cpu") was hit
    ``signal``     the child was killed by signal ``signal`` (e.g. SIGSEGV)
    ``memory``     MemoryError in func, or the interpreter died for lack of
                   memory
    ``error``      the call did not produce a usable outcome (fork failed, the
                   return value could not be pickled or was too large, a
                   malformed report); ``error`` says why
    """

    status: str
    value: Any = None
    exc_type: Optional[str] = None
    exc_message: Optional[str] = None
    traceback: Optional[str] = None
    exception: Optional[BaseException] = None
    exit_code: Optional[int] = None
    exit_message: Optional[str] = None
    signal: Optional[int] = None
    timeout_kind: Optional[str] = None
    error: Optional[str] = None
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    stdout_size: int = 0
    stderr_size: int = 0
    #: the last value the child passed to report_progress(), or None
    progress: Any = None
    wall_time: float = 0.0
    cpu_time: Optional[float] = None
    max_rss_kib: Optional[int] = None
    pid: Optional[int] = None
    #: the child's exit status, or minus the signal that killed it
    returncode: Optional[int] = None
    #: which isolation measures were in force, and why not when not
    isolation: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def signal_name(self) -> Optional[str]:
        if self.signal is None:
            return None
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return f"signal {self.signal}"

    def describe(self) -> str:
        """One line for humans."""
        s = self.status
        if s == "ok":
            return "returned normally"
        if s == "exception":
            return f"raised {self.exc_type}: {self.exc_message}"
        if s == "exit":
            extra = f" ({self.exit_message})" if self.exit_message else ""
            return f"exited with code {self.exit_code}{extra}"
        if s == "timeout":
            return f"timed out ({self.timeout_kind})"
        if s == "signal":
            return f"killed by {self.signal_name}"
        if s == "memory":
            return "ran out of memory"
        return f"sandbox error: {self.error}"

    def unwrap(self) -> Any:
        """The return value, or SandboxError (chained to the original
        exception where there is one)."""
        if self.status == "ok":
            return self.value
        raise SandboxError(self.describe()) from self.exception


# --------------------------------------------------------------------------
# Child-side helpers


_child_channel: Optional[int] = None   # result fd while inside a child
_MAGIC = b"LXS1"
_NO_REPORT = 71                        # child exit status: report could not be sent
_HEADER = struct.Struct("<4scQ")       # magic, kind (b"P" progress / b"R" result), length


def report_progress(value: Any) -> bool:
    """Inside an isolated call: send ``value`` (plain data) to the parent,
    where it appears as ``Outcome.progress`` even if the child dies later.
    Returns False (and does nothing) outside an isolated call."""
    if _child_channel is None:
        return False
    _send_frame(_child_channel, b"P", pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    return True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[n:]


def _send_frame(fd: int, kind: bytes, payload: bytes) -> None:
    _write_all(fd, _HEADER.pack(_MAGIC, kind, len(payload)) + payload)


# --------------------------------------------------------------------------
# Capabilities: what this kernel lets us do (probed once, cached)

_libc = None
CLONE_NEWNET = 0x40000000


def _get_libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _unshare_net() -> Optional[str]:
    """Move the calling process into a new network namespace.  Returns None
    on success, else the reason it was not possible."""
    unshare = getattr(os, "unshare", None)     # Python 3.12+
    if unshare is not None:
        try:
            unshare(os.CLONE_NEWNET)
            return None
        except OSError as e:
            return os.strerror(e.errno)
    try:
        libc = _get_libc()
        fn = libc.unshare
    except (OSError, AttributeError):
        return "unshare() not available"
    fn.argtypes = [ctypes.c_int]
    if fn(CLONE_NEWNET) == 0:
        return None
    return os.strerror(ctypes.get_errno())


class _PidsCgroup:
    """A pids cgroup of our own, for one child: bounds how many processes
    the child can have (RLIMIT_NPROC does nothing for root) and lists every
    process it started, including ones that left its session."""

    _counter = 0
    _lock = threading.Lock()
    _base: Optional[str] = None
    _base_probed = False
    _base_why = ""

    @classmethod
    def base(cls) -> Optional[str]:
        if not cls._base_probed:
            cls._base_probed = True
            cls._base, cls._base_why = cls._find_base()
            if cls._base is not None:
                cls._sweep(cls._base)
        return cls._base

    @staticmethod
    def _find_base():
        try:
            with open("/proc/self/cgroup") as f:
                lines = f.read().splitlines()
        except OSError as e:
            return None, f"/proc/self/cgroup: {e.strerror}"
        for line in lines:
            parts = line.split(":", 2)
            if len(parts) == 3 and "pids" in parts[1].split(","):     # cgroup v1
                path = "/sys/fs/cgroup/pids" + parts[2]
                if os.path.isdir(path) and os.access(path, os.W_OK):
                    return path, ""
                return None, f"{path} is not writable"
        for line in lines:                                              # cgroup v2
            parts = line.split(":", 2)
            if len(parts) == 3 and parts[0] == "0" and parts[1] == "":
                path = "/sys/fs/cgroup" + parts[2]
                try:
                    with open(os.path.join(path, "cgroup.subtree_control")) as f:
                        if "pids" in f.read().split() and os.access(path, os.W_OK):
                            return path, ""
                except OSError:
                    pass
                return None, "no writable cgroup with the pids controller"
        return None, "no pids cgroup controller"

    @staticmethod
    def _sweep(base: str) -> None:
        """Remove empty leftovers of earlier processes that died early."""
        try:
            names = os.listdir(base)
        except OSError:
            return
        for name in names:
            if not name.startswith("lexecutor_c."):
                continue
            try:
                owner = int(name.split(".")[1])
            except (IndexError, ValueError):
                continue
            path = os.path.join(base, name)
            try:
                # old ones only: a pid namespace we cannot see could own a new one
                # that its child is about to join
                old = time.time() - os.stat(path).st_mtime > 300
            except OSError:
                continue
            if old and owner != os.getpid() and not os.path.exists(f"/proc/{owner}"):
                try:
                    os.rmdir(path)      # fails unless empty
                except OSError:
                    pass

    @classmethod
    def create(cls, max_pids: Optional[int]):
        base = cls.base()
        if base is None:
            return None, cls._base_why
        with cls._lock:
            cls._counter += 1
            name = f"lexecutor_c.{os.getpid()}.{cls._counter}"
        path = os.path.join(base, name)
        try:
            os.mkdir(path, 0o755)
        except OSError as e:
            return None, f"mkdir {path}: {e.strerror}"
        self = cls(path)
        try:
            self._write("pids.max", "max" if max_pids is None else str(max_pids))
        except OSError as e:
            self.remove()
            return None, f"{path}/pids.max: {e.strerror}"
        return self, ""

    def __init__(self, path: str):
        self.path = path

    def _write(self, name: str, text: str) -> None:
        with open(os.path.join(self.path, name), "w") as f:
            f.write(text)

    def join(self) -> None:
        """Called in the child: move the calling process in."""
        self._write("cgroup.procs", str(os.getpid()))

    def pids(self) -> list[int]:
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            return []

    def kill_all(self, deadline: float) -> bool:
        """SIGKILL every member until none is left.  Processes forking while
        we kill are bounded by pids.max, so this converges."""
        if os.path.exists(os.path.join(self.path, "cgroup.kill")):
            try:
                self._write("cgroup.kill", "1")
            except OSError:
                pass
        while True:
            pids = self.pids()
            if not pids:
                return True
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)

    def remove(self) -> bool:
        for _ in range(200):
            try:
                os.rmdir(self.path)
                return True
            except FileNotFoundError:
                return True
            except OSError as e:
                if e.errno != errno.EBUSY:
                    return False
                time.sleep(0.005)   # killed members are still being torn down
        return False


def _session_members(sid: int) -> list[int]:
    """Processes whose session id is ``sid`` (fallback when there is no
    cgroup: catches processes that changed process group, not ones that
    started a session of their own)."""
    out = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for e in entries:
        if not e.isdigit():
            continue
        try:
            with open(f"/proc/{e}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp session ...; comm may contain spaces/parens
        rest = data[data.rfind(b")") + 2:].split()
        try:
            if int(rest[3]) == sid:
                out.append(int(e))
        except (IndexError, ValueError):
            continue
    return out


def _uid_process_count(uid: Optional[int] = None) -> int:
    uid = os.getuid() if uid is None else uid
    n = 0
    try:
        for e in os.listdir("/proc"):
            if e.isdigit():
                try:
                    if os.stat(f"/proc/{e}").st_uid == uid:
                        n += 1
                except OSError:
                    pass
    except OSError:
        pass
    return n


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


_SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_view_cache: dict = {}


def _home_dirs() -> set:
    """The caller's home directory (never bound as a whole)."""
    out = set()
    for h in (os.environ.get("HOME"), ):
        if h:
            out.add(os.path.realpath(h))
    try:
        import pwd
        out.add(os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir))
    except (KeyError, ImportError):
        pass
    return out


def _view(extra=()) -> tuple:
    """(readonly paths, symlinks) the child sees inside its mount namespace:
    the system directories, the Python installation, the existing sys.path
    entries and this package -- canonical, deduplicated (a path below a
    listed one is dropped), never "/" nor a home directory or one of its
    ancestors.  Cached per process and sys.path."""
    key = (tuple(sys.path), tuple(extra))
    hit = _view_cache.get(key)
    if hit is not None:
        return hit
    homes = _home_dirs()
    links = []
    cands = []
    for d in _SYSTEM_DIRS:
        if os.path.islink(d):
            links.append((d, os.readlink(d)))
        cands.append(d)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # the package
    cands += [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, here]
    cands += [p for p in sys.path if p]
    cands += [os.fspath(p) for p in extra]
    real = []
    for c in cands:
        if not os.path.isabs(c):
            continue
        r = os.path.realpath(c)
        if r == "/" or not os.path.exists(r):
            continue
        if any(h == r or h.startswith(r.rstrip("/") + "/") for h in homes):
            continue        # a home directory, or above one
        real.append(r)
        if r != os.path.normpath(c) and c not in _SYSTEM_DIRS:
            links.append((os.path.normpath(c), r))
    kept: list = []
    for r in sorted(set(real)):
        if not any(r.startswith(k + "/") for k in kept):
            kept.append(r)
    # a link is only needed where no bound tree already shows the path
    links = [(p, t) for p, t in dict(links).items()
             if not any(p == k or p.startswith(k + "/") for k in kept)]
    out = (tuple(kept), tuple(links))
    if len(_view_cache) > 16:
        _view_cache.clear()
    _view_cache[key] = out
    return out


def _sandbox_user(user) -> tuple:
    """(uid, gid) a root caller drops to."""
    resolved = _resolve_user("nobody" if user is None else user)
    if resolved is None or resolved[0] == 0:
        raise ValueError("Limits.user must name an unprivileged user (not root)")
    return resolved


_netns_fd: Optional[int] = None


def _shared_netns() -> int:
    """An empty network namespace kept open by this (root) process, which
    confined children join (setns) instead of creating one each: creating
    and tearing down a namespace costs about a millisecond of kernel time
    per run.  -1 when it cannot be made."""
    global _netns_fd
    if _netns_fd is not None and _netns_fd >= 0:
        try:
            os.fstat(_netns_fd)
            return _netns_fd
        except OSError:
            pass
    _netns_fd = -1
    r, w = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            ok = _unshare_net() is None
            os.write(w, b"y" if ok else b"n")
            time.sleep(30)
        finally:
            _exit(0)
    os.close(w)
    try:
        if os.read(r, 1) == b"y":
            _netns_fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        _netns_fd = -1
    finally:
        os.close(r)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    return _netns_fd


_caps_cache: dict = {}


def capabilities(refresh: bool = False) -> dict:
    """What confinement this machine gives a child, probed once per process
    (in a child run with every layer allowed to be missing):

    ``{layer: {"available": bool, "used": bool, "why": str}}`` for each of
    LAYERS (``used``: applied by default, i.e. available and in the default
    ``Limits.layers``; ``why``: the kernel's answer when not available; the
    landlock entry has ``abi``), plus ``"pids_cgroup"`` and
    ``"process_limit"`` (how fork bombs are bounded), ``"uid"`` (the id the
    child runs as) and ``"root"`` (whether the caller is root)."""
    key = os.geteuid()
    if not refresh and key in _caps_cache:
        return _caps_cache[key]
    out = call_isolated(_probe, limits=Limits(timeout=10, nproc=8, allow_missing="all"))
    iso = out.isolation
    applied = set(iso.get("layers", ()))
    skipped = iso.get("skipped", {})
    caps: dict = {}
    core = _core_module()
    for layer in LAYERS:
        ok = layer in applied
        why = "" if ok else skipped.get(layer, "")
        if not ok and not why:
            why = "this build of lexecutor_c has no confinement (_core.sandbox_fork)" \
                if core is None else (out.error or "not applied")
        caps[layer] = {"available": ok, "used": ok and layer in Limits().layers, "why": why}
    caps["landlock"]["abi"] = iso.get("landlock_abi", 0)
    caps["pids_cgroup"] = {"available": bool(iso.get("pids_cgroup")),
                           "used": bool(iso.get("pids_cgroup")),
                           "why": iso.get("pids_cgroup_why", "")}
    caps["process_limit"] = iso.get("process_limit")
    caps["root"] = key == 0
    caps["uid"] = out.value.get("uid") if out.ok and isinstance(out.value, dict) else None
    _caps_cache[key] = caps
    return caps


def describe_capabilities(caps: Optional[dict] = None) -> str:
    """One line: the layers applied and the ones missing, with why."""
    caps = capabilities() if caps is None else caps
    have = [l + (f" (ABI {caps[l]['abi']})" if l == "landlock" else "")
            for l in LAYERS if caps[l]["available"]]
    missing = [f"{l} ({caps[l]['why']})" for l in LAYERS if not caps[l]["available"]]
    line = "confinement: " + (", ".join(have) if have else "none")
    if missing:
        line += "; MISSING: " + "; ".join(missing)
    return line


def _core_module():
    try:
        from .. import _core
    except ImportError:
        return None
    return _core if hasattr(_core, "sandbox_fork") else None


def _probe():
    return {"uid": os.getuid(), "pid": os.getpid()}


# --------------------------------------------------------------------------
# The child


def _child_main(func, args, kwargs, limits: Limits, fds: dict, cg: Optional[_PidsCgroup],
                tmpdir: Optional[str], info_fd: int, plan: dict, confined: Optional[dict]) -> None:
    """Runs in the forked child; never returns.  ``confined``: what
    _core.sandbox_fork applied (it has done steps 1-6 then), else None."""
    global _child_channel
    res_w = fds["res_w"]
    code = 70
    try:
        notes = {}
        if confined is not None:
            notes["layers"] = list(confined["applied"])
            notes["skipped"] = dict(confined["skipped"])
            notes["landlock_abi"] = confined["landlock_abi"]
            notes["netns"] = "netns" in confined["applied"]
            if "netns" not in confined["applied"] and "netns" in plan["layers"]:
                notes["netns_why"] = confined["skipped"].get("netns", "")
            notes["pids_cgroup"] = cg is not None
            _write_all(info_fd, pickle.dumps(notes))
            os.close(info_fd)
            if "mountns" in confined["applied"] or tmpdir is None:
                tmpdir = RUNDIR
            # the C environment is the allow-listed one already; now Python's views
            env = dict(plan["env"])
            env.update(HOME=tmpdir, TMPDIR=tmpdir, PWD=tmpdir)
            os.environ.clear()
            try:
                import posix
                posix.environ.clear()
                posix.environ.update({k.encode(): v.encode("utf-8", "surrogateescape")
                                      for k, v in env.items()})
            except (ImportError, AttributeError):
                pass
            os.environ.update(env)
            if "userns" in confined["applied"] and limits.nproc is not None:
                # the user namespace counts this run's processes alone
                plan["nproc"] = limits.nproc
                plan["fork_guard"] = None
            elif plan["user"] is not None:
                plan["fork_guard"] = None
        else:
            _child_setup_unconfined(limits, fds, cg, tmpdir, info_fd, plan, notes, res_w)
        os.environ["TMPDIR"] = tmpdir
        tempfile.tempdir = None
        os.umask(0o077)
        # 7. signals: defaults for the ones a parent may have customised
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGUSR1,
                    signal.SIGUSR2):
            try:
                signal.signal(sig, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
        signal.signal(signal.SIGINT, signal.default_int_handler)
        # 8. Python-level streams on the new descriptors
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8",
                                     errors="surrogateescape")
        # unbuffered (as python -u): what was printed is in the pipe, whatever
        # ends the run afterwards
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                      errors="backslashreplace", write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                      errors="backslashreplace", write_through=True)
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
        try:
            faulthandler.enable(file=sys.stderr)   # a crash leaves a traceback on stderr
        except (RuntimeError, ValueError, OSError):
            pass
        # 9. rlimits (last: the setup above must not run into them)
        _setrlim(resource.RLIMIT_CORE, 0)
        if plan["cpu"] is not None:
            _setrlim(resource.RLIMIT_CPU, plan["cpu"], plan["cpu"] + 1)
        if plan["as"] is not None:
            _setrlim(resource.RLIMIT_AS, plan["as"])
        if limits.fsize is not None:
            _setrlim(resource.RLIMIT_FSIZE, limits.fsize)
        if limits.nofile is not None:
            _setrlim(resource.RLIMIT_NOFILE, limits.nofile)
        if plan["nproc"] is not None:
            _setrlim(resource.RLIMIT_NPROC, plan["nproc"])
        if plan["fork_guard"] is not None:
            _install_fork_guard(plan["fork_guard"])
        # 10. soft timeout
        if plan["soft"] is not None:
            def on_alarm(signum, frame):
                raise Timeout(f"wall-clock limit of {limits.timeout:g} s reached")
            signal.signal(signal.SIGALRM, on_alarm)
            signal.setitimer(signal.ITIMER_REAL, plan["soft"])
        if plan["soft_cpu"] is not None:
            def on_prof(signum, frame):
                raise Timeout(f"CPU-time limit of {limits.cpu_timeout:g} s reached")
            signal.signal(signal.SIGPROF, on_prof)
            signal.setitimer(signal.ITIMER_PROF, plan["soft_cpu"])
        _child_channel = res_w
    except BaseException as e:   # setup failed: report and leave
        _emergency_report(res_w, ("error", f"sandbox setup failed: {type(e).__name__}: {e}"))
        _exit(code)

    # ---- run ----
    me = os.getpid()
    report = None
    try:
        value = func(*args, **kwargs)
        report = ("ok", value)
        del value
    except SystemExit as e:
        report = _exit_report(e)
    except MemoryError:
        report = None          # build the report once the frames are gone
    except BaseException as e:
        report = _exception_report(e, plan["result"] == "pickle")
    finally:
        _disarm()
    if os.getpid() != me:
        # a process that func forked came back here: only the child reports
        _exit(0)
    if report is None:
        report = ("memory", "MemoryError")
    code = _finish(res_w, report, limits.result_max, plan["result"])
    _exit(code)


def _child_setup_unconfined(limits, fds, cg, tmpdir, info_fd, plan, notes, res_w) -> None:
    """Steps 1-6 of the child without confinement layers (Limits(layers=()))."""
    # 1. detach: own session and process group (the parent kills the group)
    os.setsid()
    # 2. pids cgroup (before anything else can fork)
    if cg is not None:
        try:
            cg.join()
            notes["pids_cgroup"] = True
        except OSError as e:
            notes["pids_cgroup"] = False
            notes["pids_cgroup_why"] = f"joining failed: {e.strerror}"
    # 3. network
    if not limits.network:
        why = _unshare_net()
        notes["netns"] = why is None
        if why is not None:
            notes["netns_why"] = why
    # tell the parent which measures took effect (tiny, before any output)
    _write_all(info_fd, pickle.dumps(notes))
    os.close(info_fd)
    # 4. standard streams
    os.dup2(fds["stdin"], 0)
    os.dup2(fds["out_w"], 1)
    os.dup2(fds["err_w"], 2)
    # 5. descriptors: keep 0, 1, 2 and the result pipe
    if limits.close_fds:
        if res_w > 3:
            os.closerange(3, res_w)
        os.closerange(res_w + 1, 1 << 20 if plan["maxfd"] > (1 << 20) else plan["maxfd"])
    else:
        for k in ("stdin", "out_w", "err_w"):
            if fds[k] > 2:
                os.close(fds[k])
    # 6. a directory of its own
    os.chdir(tmpdir)
    if plan["user"] is not None:
        uid, gid = plan["user"]
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)


def _install_fork_guard(budget: int) -> None:
    """Fallback fork-bomb guard for root without a pids cgroup, where
    RLIMIT_NPROC is not enforced: every Python-level way to start a process
    (os.fork, os.forkpty, os.posix_spawn[p], subprocess) draws from one budget
    shared by the whole process tree, and fails with EAGAIN once it is spent.
    The budget is a pipe pre-filled with one byte per process: a one-byte
    read from a pipe is atomic, so concurrent forks in the tree cannot both
    take the last token (a shared counter with read-modify-write could, and
    did, overshoot under load).  Code that calls fork() through ctypes is not
    covered; the session kill on the way out still is."""
    budget = max(0, min(int(budget), 65536))      # a pipe holds 64 KiB
    tokens, fill = os.pipe()
    try:
        os.write(fill, b"t" * budget)
    finally:
        os.close(fill)
    os.set_blocking(tokens, False)

    def take():
        try:
            got = os.read(tokens, 1)
        except OSError:
            got = b""
        if not got:
            raise BlockingIOError(errno.EAGAIN, "sandbox: process budget exhausted")

    def wrap(fn):
        def guarded(*a, **k):
            take()
            return fn(*a, **k)
        guarded.__name__ = getattr(fn, "__name__", "guarded")
        guarded.__wrapped__ = fn
        return guarded

    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp"):
        if hasattr(os, name):
            setattr(os, name, wrap(getattr(os, name)))
    try:
        import _posixsubprocess
        _posixsubprocess.fork_exec = wrap(_posixsubprocess.fork_exec)
    except ImportError:
        pass


def _setrlim(which, soft, hard=None):
    if hard is None:
        hard = soft
    try:
        cur_soft, cur_hard = resource.getrlimit(which)
        if cur_hard != resource.RLIM_INFINITY:
            hard = min(hard, cur_hard)
            soft = min(soft, hard)
        resource.setrlimit(which, (soft, hard))
    except (OSError, ValueError):
        pass


def _disarm():
    try:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, signal.SIG_IGN)
    except (OSError, ValueError):
        pass


def _exit_report(e: SystemExit):
    c = e.code
    if c is None:
        return ("exit", 0, None)
    if isinstance(c, bool):
        return ("exit", int(c), None)
    if isinstance(c, int):
        return ("exit", c & 0xFF if c < 0 or c > 255 else c, None)
    try:
        msg = str(c)
    except BaseException:
        msg = "<unprintable exit message>"
    try:            # what the interpreter itself does with sys.exit("msg")
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()
    except BaseException:
        pass
    return ("exit", 1, msg)


def _exception_report(e: BaseException, keep_object: bool):
    try:
        tb = "".join(traceback.format_exception(e))
    except BaseException:
        tb = None
    try:
        msg = str(e)
    except BaseException:
        msg = "<unprintable exception>"
    t = type(e)
    name = t.__qualname__ if t.__module__ in ("builtins", "__main__") else \
        f"{t.__module__}.{t.__qualname__}"
    blob = None
    if keep_object:
        try:
            blob = pickle.dumps(e, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:
            blob = None
    kind = "timeout" if isinstance(e, Timeout) else "exception"
    e.__traceback__ = None
    return (kind, name, msg, tb, blob)


def _finish(res_w: int, report, result_max: int, mode: str) -> int:
    """Serialise and send the report; the child's exit code."""
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except BaseException:
            pass
    try:
        payload = pickle.dumps(report, protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        report = ("memory", "MemoryError while serialising the return value")
        payload = pickle.dumps(report)
    except BaseException as e:
        what = type(report[1]).__name__ if report[0] == "ok" else "outcome"
        report = ("error", f"return value of type {what} cannot be pickled: "
                           f"{type(e).__name__}: {e}")
        payload = pickle.dumps(report)
    if len(payload) > result_max:
        payload = pickle.dumps(("error", f"return value too large: {len(payload)} bytes "
                                         f"pickled, limit {result_max}"))
    try:
        _send_frame(res_w, b"R", payload)
    except BaseException:
        return _NO_REPORT
    return 0


def _emergency_report(fd: int, report) -> None:
    try:
        _send_frame(fd, b"R", pickle.dumps(report))
    except BaseException:
        pass


# --------------------------------------------------------------------------
# The parent


class _SafeUnpickler(pickle.Unpickler):
    """Plain data only: refuses every global except a few harmless types."""

    ALLOWED = {
        ("builtins", "complex"), ("builtins", "bytearray"), ("builtins", "set"),
        ("builtins", "frozenset"), ("builtins", "slice"), ("builtins", "range"),
        ("collections", "OrderedDict"),
    }

    def __init__(self, data, extra=()):
        super().__init__(io.BytesIO(data))
        self.allowed = self.ALLOWED | set(extra)

    def find_class(self, module, name):
        if (module, name) in self.allowed:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing {module}.{name} from an isolated child "
                                     f"(use result='pickle' to trust it)")


def _loads(data: bytes, mode: str, extra=()):
    if mode == "pickle":
        return pickle.loads(data)
    return _SafeUnpickler(data, extra).load()


class _Buffer:
    def __init__(self, limit: int):
        self.limit = limit
        self.chunks: list[bytes] = []
        self.kept = 0
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.limit - self.kept
        if room > 0:
            piece = data[:room]
            self.chunks.append(piece)
            self.kept += len(piece)

    def value(self) -> bytes:
        return b"".join(self.chunks)

    @property
    def truncated(self) -> bool:
        return self.total > self.kept


def _layer_set(value, what: str) -> frozenset:
    if value == "all":
        return ALL_LAYERS
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        raise TypeError(f"Limits.{what} must be a collection of layer names or 'all'")
    out = frozenset(value)
    unknown = out - ALL_LAYERS
    if unknown:
        raise ValueError(f"Limits.{what}: unknown layer(s) {', '.join(sorted(map(str, unknown)))}"
                         f"; known: {', '.join(LAYERS)}")
    return out


def _plan(limits: Limits, result: str) -> dict:
    plan = {"result": result}
    t = limits.timeout
    if t is not None and not 0 < t < float("inf"):
        raise ValueError("Limits.timeout must be positive and finite, or None")
    plan["soft"] = t if (t is not None and limits.soft_timeout) else None
    c = limits.cpu_timeout
    if c is not None and (isinstance(c, bool) or not isinstance(c, (int, float))
                          or not 0 < c < float("inf")):
        raise ValueError("Limits.cpu_timeout must be positive and finite, or None")
    plan["soft_cpu"] = float(c) if c is not None else None
    # the kill at RLIMIT_CPU: a second after the wall-clock limit, or after
    # the CPU-time limit and its grace, whichever comes first
    kills = ([int(math.ceil(t)) + 1] if t is not None else []) + \
        ([int(math.ceil(c + limits.grace)) + 1] if c is not None else [])
    if limits.cpu is not None:
        plan["cpu"] = max(1, int(limits.cpu))
    else:
        plan["cpu"] = min(kills) if kills else None
    plan["as"] = None if limits.memory is None else _vm_size() + int(limits.memory)
    try:
        plan["maxfd"] = os.sysconf("SC_OPEN_MAX")
    except (OSError, ValueError):
        plan["maxfd"] = 4096
    plan["nproc"] = None
    plan["fork_guard"] = None
    layers = _layer_set(limits.layers, "layers")
    if limits.network:
        layers -= {"netns"}
    allow = _layer_set(limits.allow_missing, "allow_missing")
    plan["layers"] = layers
    plan["required"] = layers - allow
    plan["optional"] = layers & allow
    if layers:
        if not isinstance(limits.disk, int) or limits.disk < 4096:
            raise ValueError("Limits.disk must be an int of at least 4096 bytes")
        plan["user"] = _sandbox_user(limits.user) if os.geteuid() == 0 else None
        plan["view"] = _view(limits.readable)
        env = {}
        for name, value in os.environ.items():
            if any(name == a or (a.endswith("*") and name.startswith(a[:-1]))
                   for a in ENV_ALLOW):
                env[name] = value
        if limits.env:
            for k, v in limits.env.items():
                if not isinstance(k, str) or not isinstance(v, str) or not k or "=" in k:
                    raise ValueError(f"Limits.env: bad entry {k!r}: {v!r}")
            env.update(limits.env)
        plan["env"] = env
    else:
        plan["user"] = _resolve_user(limits.user)
    return plan


def _resolve_user(user) -> Optional[tuple[int, int]]:
    if user is None:
        return None
    import pwd
    try:
        entry = pwd.getpwuid(user) if isinstance(user, int) else pwd.getpwnam(str(user))
    except (KeyError, TypeError):
        raise ValueError(f"Limits.user: no such user {user!r}") from None
    if os.getuid() != 0 and entry.pw_uid != os.getuid():
        raise ValueError("Limits.user needs root")
    return entry.pw_uid, entry.pw_gid


def _rmtree(path: str) -> bool:
    def onerror(fn, p, exc):
        try:
            os.chmod(os.path.dirname(p), 0o700)
            os.chmod(p, 0o700)
        except OSError:
            pass
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass
    try:
        shutil.rmtree(path, onerror=onerror)
    except OSError:
        pass
    return not os.path.exists(path)


def _stdin_fd(stdin) -> int:
    if stdin is None:
        return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    if isinstance(stdin, str):
        stdin = stdin.encode("utf-8")
    if not isinstance(stdin, (bytes, bytearray, memoryview)):
        raise TypeError(f"stdin must be bytes, str or None, not {type(stdin).__name__}")
    try:
        fd = os.memfd_create("lexecutor_c-stdin", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        f = tempfile.TemporaryFile()
        fd = os.dup(f.fileno())
        f.close()
    _write_all(fd, bytes(stdin))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def call_isolated(func: Callable[..., Any], *args: Any, limits: Optional[Limits] = None,
                  stdin: Union[bytes, bytearray, str, None] = None, result: str = "data",
                  allowed_classes: Iterable[tuple[str, str]] = (), **kwargs: Any) -> Outcome:
    """Run ``func(*args, **kwargs)`` in a forked, limited child; see the module
    docstring.  ``stdin``: bytes/str fed to the child's standard input (None:
    /dev/null).  ``result``: "data" accepts plain data back (plus the
    (module, name) pairs in ``allowed_classes``); "pickle" accepts any
    picklable object and carries exceptions over as objects -- only for
    functions whose code is trusted, since the child could forge the report.
    Never raises for anything the child does; ValueError/TypeError for bad
    arguments."""
    if limits is None:
        limits = Limits()
    if result not in ("data", "pickle"):
        raise ValueError("result must be 'data' or 'pickle'")
    plan = _plan(limits, result)
    t0 = time.monotonic()
    isolation = {"netns": False, "pids_cgroup": False}
    opened: list[int] = []

    def close_all():
        for fd in opened:
            try:
                os.close(fd)
            except OSError:
                pass
        opened.clear()

    cg = None
    tmpdir = None
    try:
        stdin_fd = _stdin_fd(stdin)
        opened.append(stdin_fd)
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        opened += [out_r, out_w]
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        opened += [err_r, err_w]
        res_r, res_w = os.pipe2(os.O_CLOEXEC)
        opened += [res_r, res_w]
        info_r, info_w = os.pipe2(os.O_CLOEXEC)
        opened += [info_r, info_w]
        core = _core_module() if plan["layers"] else None
        if plan["layers"] and core is None:
            raise ConfinementError(
                "this build of lexecutor_c has no confinement (_core.sandbox_fork); pass "
                "Limits(layers=()) to run with rlimits only", None)
        confined = core is not None
        plan["confined"] = confined
        if not confined or "mountns" not in plan["required"]:
            # the child's directory on the host: without a mount namespace
            tmpdir = tempfile.mkdtemp(prefix=f"lexecutor_c-{os.getpid()}-")
            if plan["user"] is not None:
                os.chown(tmpdir, *plan["user"])
        if plan["user"] is not None:
            isolation["user"] = plan["user"][0]
        if confined and {"userns", "pidns"} <= plan["required"]:
            # fork bombs stop at RLIMIT_NPROC counted in the run's own user
            # namespace, and everything dies with the PID namespace's init:
            # a pids cgroup would add nothing but an RCU-synchronised attach
            cg, why = None, "not needed: user and PID namespaces bound the run's processes"
        else:
            cg, why = _PidsCgroup.create(None if limits.nproc is None else limits.nproc)
        if cg is None:
            isolation["pids_cgroup_why"] = why
            if limits.nproc is not None and confined and "userns" in plan["required"]:
                plan["nproc"] = limits.nproc        # counted in the run's own user namespace
            elif limits.nproc is not None:
                target = plan["user"][0] if plan["user"] is not None else os.getuid()
                plan["nproc"] = _uid_process_count(target) + limits.nproc
                if target == 0:
                    # RLIMIT_NPROC is not enforced for root: count forks instead
                    plan["fork_guard"] = limits.nproc
                    isolation["fork_guard"] = True
        cg_fd = -1
        if confined and cg is not None:
            cg_fd = os.open(os.path.join(cg.path, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
            opened.append(cg_fd)
        netns_fd = -1
        if confined and "netns" in plan["layers"] and os.geteuid() == 0:
            netns_fd = _shared_netns()
    except (OSError, TypeError) as e:
        close_all()
        if cg is not None:
            cg.remove()
        if tmpdir:
            _rmtree(tmpdir)
        if isinstance(e, TypeError):
            raise
        return Outcome("error", error=f"could not set up the sandbox: {e}",
                       wall_time=time.monotonic() - t0, isolation=isolation)
    except ConfinementError:
        close_all()
        raise

    fds = {"stdin": stdin_fd, "out_w": out_w, "err_w": err_w, "res_w": res_w}
    for s in (sys.stdout, sys.stderr):      # no buffered output duplicated in the child
        try:
            s.flush()
        except Exception:
            pass
    info = None
    parent_pid = os.getpid()
    try:
        if confined:
            ro, links = plan["view"]
            uid, gid = plan["user"] if plan["user"] is not None else (-1, -1)
            env = dict(plan["env"])
            rundir = tmpdir if tmpdir is not None and "mountns" not in plan["layers"] \
                else RUNDIR
            env.update(HOME=rundir, TMPDIR=rundir, PWD=rundir)
            pid, info = core.sandbox_fork(
                required=plan["required"], optional=plan["optional"], readonly=ro, links=links,
                stdio=(stdin_fd, out_w, err_w), keep_fds=(res_w, info_w), environ=env,
                uid=uid, gid=gid, tmp_size=limits.disk, tmp_inodes=16384, netns_fd=netns_fd,
                cgroup_fd=cg_fd, rundir=RUNDIR, hostdir=tmpdir,
                simulate_missing=_SIMULATE_MISSING)
        else:
            pid = os.fork()
    except OSError as e:
        if os.getpid() != parent_pid:
            # the confinement failed in the child (fail closed): report, leave
            _emergency_report(res_w, ("confine", str(e)))
            _exit(72)
        close_all()
        if cg is not None:
            cg.remove()
        if tmpdir:
            _rmtree(tmpdir)
        return Outcome("error", error=f"fork failed: {e.strerror or e}",
                       wall_time=time.monotonic() - t0, isolation=isolation)
    if pid == 0:
        try:
            if not confined:            # sandbox_fork closed it already
                os.close(info_r)
            os.set_inheritable(res_w, False)
            _child_main(func, args, kwargs, limits, fds, cg, tmpdir, info_w, plan, info)
        finally:
            _exit(70)

    # ---- parent ----
    for fd in (stdin_fd, out_w, err_w, res_w, info_w):
        os.close(fd)
        opened.remove(fd)
    try:
        out = _supervise(pid, limits, plan, t0, cg, isolation, out_r, err_r, res_r, info_r,
                         allowed_classes)
    finally:
        close_all()
        if cg is not None:
            if not cg.remove():
                isolation["cgroup_left"] = cg.path
        if tmpdir is not None and not _rmtree(tmpdir):
            isolation["tmpdir_left"] = tmpdir
    if out.status == "error" and out.error and out.error.startswith("confinement failed: "):
        msg = out.error[len("confinement failed: "):]
        layer = next((l for l in LAYERS if msg.startswith(f"sandbox: {l}")), None)
        hint = (f"; Limits(allow_missing={{'{layer}'}}) (run(allow_missing=...), CLI "
                f"--allow-missing-layers {layer}) runs without it") if layer else ""
        raise ConfinementError(f"could not confine the child: {msg}{hint}", layer)
    return out


#: tests: layers that sandbox_fork treats as missing from the kernel
_SIMULATE_MISSING: tuple = ()


def _supervise(pid, limits, plan, t0, cg, isolation, out_r, err_r, res_r, info_r,
               allowed_classes) -> Outcome:
    out_buf = _Buffer(limits.stdout_max)
    err_buf = _Buffer(limits.stderr_max)
    res_buf = bytearray()
    res_overflow = False
    info_buf = bytearray()
    frame_cap = limits.result_max + 4 * _HEADER.size + (1 << 16)

    sel = selectors.DefaultSelector()
    for fd in (out_r, err_r, res_r, info_r):
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    pidfd = None
    try:
        pidfd = os.pidfd_open(pid)
        sel.register(pidfd, selectors.EVENT_READ)
    except (AttributeError, OSError):
        pidfd = None

    def read_ready(fd) -> bool:
        """Read what is there; False at EOF."""
        nonlocal res_overflow
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                return True
            except InterruptedError:
                continue
            except OSError:
                return False
            if not data:
                return False
            if fd == out_r:
                out_buf.add(data)
            elif fd == err_r:
                err_buf.add(data)
            elif fd == res_r:
                if len(res_buf) + len(data) <= frame_cap:
                    res_buf.extend(data)
                else:
                    res_overflow = True
            else:
                if len(info_buf) < (1 << 16):
                    info_buf.extend(data)

    hard_deadline = None
    if limits.timeout is not None:
        hard_deadline = t0 + limits.timeout + (limits.grace if plan["soft"] is not None else 0)
    killed_by_us = False
    open_fds = {out_r, err_r, res_r, info_r}
    try:
        while True:
            now = time.monotonic()
            if hard_deadline is not None and now >= hard_deadline:
                killed_by_us = True
                break
            wait = 0.05 if pidfd is None else 1.0
            if hard_deadline is not None:
                wait = min(wait, max(0.0, hard_deadline - now))
            for key, _ in sel.select(wait):
                fd = key.fd
                if fd == pidfd:
                    continue
                if not read_ready(fd):
                    sel.unregister(fd)
                    open_fds.discard(fd)
            if _has_exited(pid):
                break
    except BaseException:
        # KeyboardInterrupt or the like in the parent: do not leave the child behind
        _kill_everything(pid, cg, _in_pidns(plan, info_buf))
        _reap_blocking(pid)
        raise
    # The child is gone (or is being killed): take everything it started with it,
    # then reap it.
    _kill_everything(pid, cg, _in_pidns(plan, info_buf))
    status = _reap_blocking(pid)
    # Drain what is left in the pipes; all writers are dead now, except in the
    # fallback mode where a process may have escaped into a session of its own.
    drain_deadline = time.monotonic() + 0.5
    while open_fds and time.monotonic() < drain_deadline:
        for key, _ in sel.select(0.05):
            fd = key.fd
            if fd == pidfd:
                continue
            if not read_ready(fd):
                sel.unregister(fd)
                open_fds.discard(fd)
    sel.close()
    if pidfd is not None:
        os.close(pidfd)
    if open_fds:
        isolation["escaped"] = "a process outside the sandbox's reach kept its output open"

    wstatus, rusage = status
    out = Outcome("error", pid=pid, wall_time=time.monotonic() - t0)
    out.stdout, out.stdout_truncated, out.stdout_size = out_buf.value(), out_buf.truncated, \
        out_buf.total
    out.stderr, out.stderr_truncated, out.stderr_size = err_buf.value(), err_buf.truncated, \
        err_buf.total
    if rusage is not None:
        out.cpu_time = rusage.ru_utime + rusage.ru_stime
        out.max_rss_kib = rusage.ru_maxrss
    try:
        notes = pickle.loads(bytes(info_buf)) if info_buf else {}
        if not isinstance(notes, dict):
            notes = {}
    except Exception:
        notes = {}
    for k, v in notes.items():
        if k in ("netns", "netns_why", "pids_cgroup", "pids_cgroup_why") and \
                isinstance(v, (bool, str)):
            isolation[k] = v
        elif k == "layers" and isinstance(v, list) and all(x in ALL_LAYERS for x in v):
            isolation[k] = v
        elif k == "skipped" and isinstance(v, dict) and \
                all(x in ALL_LAYERS and isinstance(y, str) for x, y in v.items()):
            isolation[k] = v
        elif k == "landlock_abi" and type(v) is int:
            isolation[k] = v
    if cg is None and "pids_cgroup" not in notes:
        isolation["pids_cgroup"] = False
    if limits.nproc is None:
        isolation["process_limit"] = None
    elif isolation.get("pids_cgroup"):
        isolation["process_limit"] = "pids cgroup"
    elif isolation.get("fork_guard"):
        isolation["process_limit"] = "fork guard"
    elif "userns" in isolation.get("layers", ()):
        isolation["process_limit"] = "RLIMIT_NPROC in the run's user namespace"
    else:
        isolation["process_limit"] = "RLIMIT_NPROC"
    out.isolation = isolation

    # frames
    final = None
    problem = None
    if res_overflow:
        problem = f"report larger than the limit of {limits.result_max} bytes"
    else:
        pos = 0
        data = bytes(res_buf)
        while pos + _HEADER.size <= len(data):
            magic, kind, length = _HEADER.unpack_from(data, pos)
            if magic != _MAGIC or kind not in (b"P", b"R"):
                problem = "malformed report from the child"
                break
            start = pos + _HEADER.size
            if start + length > len(data):
                problem = "truncated report from the child"
                break
            payload = data[start:start + length]
            pos = start + length
            if kind == b"P":
                try:
                    out.progress = _loads(payload, "data")
                except Exception:
                    pass
            else:
                final = payload
        else:
            if pos != len(data):
                problem = "truncated report from the child"

    if os.WIFSIGNALED(wstatus):
        out.returncode = -os.WTERMSIG(wstatus)
    elif os.WIFEXITED(wstatus):
        out.returncode = os.WEXITSTATUS(wstatus)

    report = None
    if final is not None:
        try:
            report = _loads(final, plan["result"], allowed_classes)
            if not isinstance(report, tuple) or not report or not isinstance(report[0], str):
                raise ValueError("not a report")
        except Exception as e:
            report = None
            problem = f"could not decode the child's report: {type(e).__name__}: {e}"

    if killed_by_us:
        out.status, out.timeout_kind = "timeout", "hard"
        return out
    if report is not None:
        kind = report[0]
        try:
            if kind == "ok":
                out.status, out.value = "ok", report[1]
            elif kind in ("exception", "timeout"):
                _, out.exc_type, out.exc_message, out.traceback, blob = report
                if blob is not None:
                    try:
                        out.exception = _loads(blob, plan["result"])
                    except Exception:
                        out.exception = None
                if kind == "timeout":
                    out.status, out.timeout_kind = "timeout", "soft"
                else:
                    out.status = "exception"
            elif kind == "exit":
                out.status, out.exit_code, out.exit_message = "exit", report[1], report[2]
            elif kind == "memory":
                out.status, out.error = "memory", report[1]
            elif kind == "error":
                out.status, out.error = "error", report[1]
            elif kind == "confine":
                out.status, out.error = "error", f"confinement failed: {report[1]}"

            else:
                raise ValueError(kind)
        except (ValueError, TypeError, IndexError):
            out.status, out.error = "error", "malformed report from the child"
            out.value = None
        return out
    # No report: the child died or left on its own.
    if os.WIFSIGNALED(wstatus):
        sig = os.WTERMSIG(wstatus)
        out.signal = sig
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and plan["cpu"] is not None and
                                     out.cpu_time is not None and out.cpu_time >= plan["cpu"]):
            out.status, out.timeout_kind = "timeout", "cpu"
        elif sig == signal.SIGABRT and _looks_like_oom(out.stderr):
            out.status, out.error = "memory", "the interpreter aborted for lack of memory"
        else:
            out.status = "signal"
        return out
    code = os.WEXITSTATUS(wstatus) if os.WIFEXITED(wstatus) else None
    if code is not None and _looks_like_oom(out.stderr) and code != 0:
        out.status, out.error, out.exit_code = "memory", "out of memory", code
        return out
    if problem is not None:
        out.status, out.error, out.exit_code = "error", problem, code
        return out
    if code == _NO_REPORT:
        out.status, out.exit_code = "error", code
        out.error = (f"the child could not deliver its report (exit status {code}: "
                     "its result pipe was closed or broken)")
        return out
    out.status, out.exit_code = "exit", code
    return out


def _looks_like_oom(stderr: bytes) -> bool:
    tail = stderr[-4096:]
    return b"MemoryError" in tail or b"Cannot allocate memory" in tail or \
        b"out of memory" in tail


def _has_exited(pid) -> bool:
    """True once the child has terminated; it stays a zombie (not reaped), so
    its pid -- also the id of its process group -- cannot be reused before we
    have killed the group."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True
    except InterruptedError:
        return False


def _reap_blocking(pid):
    while True:
        try:
            _, wstatus, rusage = os.wait4(pid, 0)
            return (wstatus, rusage)
        except InterruptedError:
            continue
        except ChildProcessError:
            return (0, None)


def _in_pidns(plan: dict, info_buf) -> bool:
    """Whether the child is the init of a PID namespace (then its death
    takes every process it started with it)."""
    if not plan.get("confined"):
        return False
    if "pidns" in plan["required"]:
        return True
    try:
        notes = _SafeUnpickler(bytes(info_buf)).load() if info_buf else {}
        return isinstance(notes, dict) and "pidns" in notes.get("layers", ())
    except Exception:
        return False


def _kill_everything(pid: int, cg: Optional[_PidsCgroup], pidns: bool = False) -> None:
    """SIGKILL the child's process group, every member of its cgroup and,
    without a cgroup or PID namespace, every process of its session."""
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass
    if pidns:
        return      # the namespace's init is dead or dying: the kernel kills the rest
    if cg is not None:
        cg.kill_all(time.monotonic() + 5.0)
    else:
        for _ in range(20):
            members = _session_members(pid)
            if not members:
                break
            for p in members:
                try:
                    os.kill(p, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.005)

