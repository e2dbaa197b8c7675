"""lexecutor_c.sandbox: every way a child can misbehave, and that the parent
carries on unharmed (no zombies, no leaked descriptors, no leftover
directories or cgroups) after each."""
import ctypes
import os
import signal
import socket
import sys
import time

import pytest

from conftest import needs_address_space_limit

from lexecutor_c.engine import sandbox
from lexecutor_c.engine.sandbox import Limits, Outcome, SandboxError, Timeout, call_isolated

FAST = Limits(timeout=5.0)
#: the sandbox without confinement layers (rlimits, cgroup, network only)
UNCONFINED = Limits(timeout=5.0, layers=())
CONFINED = sandbox._core_module() is not None


def _pidns_inode():
    """In a child: the inode of its PID namespace (to find its processes
    from the host afterwards)."""
    return os.stat("/proc/self/ns/pid").st_ino


def _pidns_members(ino):
    """Host pids of live processes in the PID namespace with inode ino."""
    out = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                if os.stat(f"/proc/{e}/ns/pid").st_ino == ino and _alive(int(e)):
                    out.append(int(e))
            except OSError:
                pass
    return out


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Descriptors the sandbox keeps for the whole process (the shared empty
    network namespace, this process's PID namespace) are opened once here,
    before the per-test descriptor check."""
    call_isolated(int, limits=FAST)
    yield


def _open_fds():
    return sorted(int(x) for x in os.listdir("/proc/self/fd"))


def _resource_tracker_pid():
    """multiprocessing's resource tracker: one helper process per interpreter, started by
    the first pool that needs it (an earlier test's Dask LocalCluster, tests/test_batch.py)
    and kept until the interpreter exits; it is no child of a sandbox."""
    import multiprocessing.resource_tracker as rt
    return getattr(getattr(rt, "_resource_tracker", None), "_pid", None)


def _children_left():
    me, tracker = os.getpid(), _resource_tracker_pid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == tracker:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        if int(data[data.rfind(b")") + 2:].split()[1]) == me:
            try:
                os.waitpid(int(entry), os.WNOHANG)     # reap it if it is a zombie
            except ChildProcessError:
                pass
            return True   # a child exists (running, or a zombie we just reaped)
    return False


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return False
    state = data[data.rfind(b")") + 2:].split()[0]
    return state not in (b"Z", b"X")


@pytest.fixture(autouse=True)
def parent_stays_clean(tmp_path):
    """Around every test: the parent ends with the same descriptors, no
    children, and no sandbox directories or cgroups of its own left behind."""
    before = _open_fds()
    prefix = f"lexecutor_c-{os.getpid()}-"   # this process's sandboxes only
    tmp_before = {n for n in os.listdir("/tmp") if n.startswith(prefix)}
    yield
    assert not _children_left(), "a child process was left behind"
    after = _open_fds()
    assert after == before, f"descriptors leaked: {set(after) - set(before)}"
    tmp_after = {n for n in os.listdir("/tmp") if n.startswith(prefix)}
    assert tmp_after <= tmp_before, f"temporary directories left: {tmp_after - tmp_before}"
    base = sandbox._PidsCgroup.base()
    if base:
        mine = [n for n in os.listdir(base) if n.startswith(f"lexecutor_c.{os.getpid()}.")]
        assert mine == [], f"cgroups left: {mine}"


def _still_works():
    out = call_isolated(pow, 2, 10, limits=FAST)
    assert out.status == "ok" and out.value == 1024


# ---------------------------------------------------------------- normal calls

def test_returns_value_and_captures_output():
    def f(a, b, *, c):
        print("to stdout")
        print("to stderr", file=sys.stderr)
        return {"sum": a + b + c, "items": [1, (2, 3)], "blob": b"\x00\xff"}

    out = call_isolated(f, 1, 2, c=3, limits=FAST)
    assert out.ok and out.status == "ok"
    assert out.value == {"sum": 6, "items": [1, (2, 3)], "blob": b"\x00\xff"}
    assert out.stdout == b"to stdout\n"
    assert out.stderr == b"to stderr\n"
    assert not out.stdout_truncated and not out.stderr_truncated
    assert out.unwrap() == out.value
    assert out.pid and out.pid != os.getpid()
    assert out.wall_time > 0


def test_child_really_is_another_process_with_fresh_cwd():
    here = os.getcwd()

    def f():
        return os.getpid(), os.getsid(0), os.getcwd(), os.listdir("."), os.getppid()

    out = call_isolated(f, limits=UNCONFINED)
    pid, sid, cwd, listing, _ = out.value
    assert pid == out.pid and sid == pid            # leader of its own session
    assert cwd != here and os.path.basename(cwd).startswith("lexecutor_c-")
    assert listing == []
    assert not os.path.exists(cwd)                  # removed afterwards
    assert os.getcwd() == here
    if CONFINED:
        out = call_isolated(f, limits=FAST)
        pid, sid, cwd, listing, ppid = out.value
        assert pid == 1 and sid == 1 and ppid == 0  # init of its own PID namespace
        assert out.pid != os.getpid()
        assert cwd == sandbox.RUNDIR and listing == []


def test_stdin_default_is_empty_and_given_bytes_arrive():
    out = call_isolated(lambda: sys.stdin.read(), limits=FAST)
    assert out.value == ""
    out = call_isolated(lambda: sys.stdin.buffer.read(), stdin=b"line1\nline2\n", limits=FAST)
    assert out.value == b"line1\nline2\n"
    out = call_isolated(input, stdin="answer\n", limits=FAST)
    assert out.value == "answer"


def test_bad_stdin_type_is_a_type_error():
    with pytest.raises(TypeError):
        call_isolated(int, stdin=42, limits=FAST)


def test_rlimits_in_force():
    import resource

    def f():
        return {n: resource.getrlimit(getattr(resource, n)) for n in
                ("RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_AS")}

    out = call_isolated(f, limits=Limits(timeout=3, fsize=1 << 20, nofile=64))
    lim = out.value
    assert lim["RLIMIT_CORE"] == (0, 0)
    assert lim["RLIMIT_CPU"][0] == 4                # ceil(timeout) + 1
    assert lim["RLIMIT_FSIZE"] == (1 << 20, 1 << 20)
    assert lim["RLIMIT_NOFILE"] == (64, 64)
    assert lim["RLIMIT_AS"][0] != resource.RLIM_INFINITY


def test_file_size_limit():
    def f():
        with open("big", "wb") as fh:
            fh.write(b"x" * (2 << 20))

    out = call_isolated(f, limits=Limits(timeout=5, fsize=1 << 20))
    assert out.status == "exception"
    assert out.exc_type == "OSError" and "File too large" in out.exc_message


def test_inherited_descriptors_are_closed(tmp_path):
    path = tmp_path / "secret"
    path.write_text("s")
    fd = os.open(path, os.O_RDONLY)        # inheritable from the parent's view? close anyway
    os.set_inheritable(fd, True)
    try:
        out = call_isolated(lambda: sorted(int(x) for x in os.listdir("/proc/self/fd")),
                            limits=FAST)
    finally:
        os.close(fd)
    assert fd not in out.value
    # 0, 1, 2, the result pipe, and the descriptor listdir itself uses
    assert len(out.value) <= 5


# ---------------------------------------------------------------- failures

def test_exception_in_func():
    def f():
        raise KeyError("missing")

    out = call_isolated(f, limits=FAST)
    assert out.status == "exception"
    assert out.exc_type == "KeyError"
    assert out.exc_message == "'missing'"
    assert "raise KeyError" in out.traceback
    assert out.exception is None            # "data" mode carries no objects over
    with pytest.raises(SandboxError, match="KeyError"):
        out.unwrap()
    _still_works()


def test_exception_object_in_pickle_mode():
    out = call_isolated(lambda: int("x"), limits=FAST, result="pickle")
    assert out.status == "exception"
    assert isinstance(out.exception, ValueError)
    with pytest.raises(SandboxError) as info:
        out.unwrap()
    assert isinstance(info.value.__cause__, ValueError)


def test_segfault():
    out = call_isolated(ctypes.string_at, 0, limits=FAST)
    assert out.status == "signal"
    assert out.signal == signal.SIGSEGV and out.signal_name == "SIGSEGV"
    assert b"Segmentation fault" in out.stderr or b"Fatal Python error" in out.stderr
    _still_works()


def test_os_exit():
    out = call_isolated(os._exit, 3, limits=FAST)
    assert out.status == "exit" and out.exit_code == 3
    _still_works()


def test_sys_exit_code():
    out = call_isolated(sys.exit, 2, limits=FAST)
    assert out.status == "exit" and out.exit_code == 2 and out.exit_message is None


def test_sys_exit_message():
    out = call_isolated(sys.exit, "msg", limits=FAST)
    assert out.status == "exit" and out.exit_code == 1 and out.exit_message == "msg"
    assert out.stderr == b"msg\n"


def test_sys_exit_none_is_zero():
    out = call_isolated(sys.exit, limits=FAST)
    assert out.status == "exit" and out.exit_code == 0


@needs_address_space_limit
def test_memory_bomb():
    def f():
        hog = []
        while True:
            hog.append(bytearray(64 << 20))

    out = call_isolated(f, limits=Limits(timeout=10, memory=256 << 20))
    assert out.status == "memory", out
    _still_works()


@needs_address_space_limit
def test_single_huge_allocation():
    out = call_isolated(bytearray, 8 << 30, limits=Limits(timeout=10, memory=256 << 20))
    assert out.status == "memory"


def test_infinite_loop_soft_timeout():
    def f():
        while True:
            pass

    t = time.monotonic()
    out = call_isolated(f, limits=Limits(timeout=0.5))
    assert out.status == "timeout" and out.timeout_kind == "soft"
    assert time.monotonic() - t < 3
    _still_works()


def test_sleeping_forever_soft_timeout():
    out = call_isolated(time.sleep, 10_000, limits=Limits(timeout=0.3))
    assert out.status == "timeout" and out.timeout_kind == "soft"
    assert out.wall_time < 2


def test_timeout_that_is_swallowed_is_killed():
    def f():
        while True:
            try:
                time.sleep(10_000)
            except BaseException:
                pass

    t = time.monotonic()
    out = call_isolated(f, limits=Limits(timeout=0.3, grace=0.3))
    assert out.status == "timeout" and out.timeout_kind == "hard"
    assert 0.5 <= time.monotonic() - t < 3


def test_hard_timeout_without_soft():
    def f():
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
        time.sleep(10_000)

    out = call_isolated(f, limits=Limits(timeout=0.3, soft_timeout=False))
    assert out.status == "timeout" and out.timeout_kind == "hard"
    assert out.wall_time < 2


def test_cpu_time_soft_timeout_counts_cpu_not_the_wall_clock():
    # a loop stops at 0.4 CPU seconds, raising Timeout in the child (the code
    # sees it, as it sees the wall-clock one) ...
    def spin():
        try:
            while True:
                pass
        except Timeout as e:
            return str(e), time.process_time()

    out = call_isolated(spin, limits=Limits(timeout=20, cpu_timeout=0.4))
    assert out.status == "ok", out
    assert "CPU-time limit of 0.4 s" in out.value[0] and out.value[1] >= 0.3
    # ... and a sleep, which uses no CPU time, runs on to its end
    out = call_isolated(time.sleep, 0.8, limits=Limits(timeout=20, cpu_timeout=0.4))
    assert out.status == "ok", out
    # not caught: a soft timeout, and a loop that swallows it is killed at
    # RLIMIT_CPU after the grace
    out = call_isolated(time.sleep, 0, limits=Limits(timeout=20, cpu_timeout=0.3))
    assert out.status == "ok"

    def stubborn():
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass

    out = call_isolated(stubborn, limits=Limits(timeout=20, cpu_timeout=0.3, grace=0.5))
    assert out.status == "timeout" and out.timeout_kind == "cpu", out
    assert out.wall_time < 10


def test_cpu_time_soft_timeout_uncaught_is_a_soft_timeout():
    def f():
        while True:
            pass

    out = call_isolated(f, limits=Limits(timeout=20, cpu_timeout=0.3))
    assert out.status == "timeout" and out.timeout_kind == "soft", out
    assert out.wall_time < 10
    _still_works()


def test_cpu_limit():
    def f():
        signal.signal(signal.SIGALRM, signal.SIG_IGN)   # dodge the soft timeout
        while True:
            pass

    out = call_isolated(f, limits=Limits(timeout=20, cpu=1))
    assert out.status == "timeout" and out.timeout_kind == "cpu"   # not the wall clock
    # the init of a PID namespace ignores SIGXCPU: the hard limit's SIGKILL ends it
    assert out.signal in (signal.SIGXCPU, signal.SIGKILL)


def test_huge_output_is_truncated_without_deadlock():
    def f():
        chunk = "y" * 1023 + "\n"
        for _ in range(8 * 1024):            # 8 MiB on stdout
            sys.stdout.write(chunk)
        sys.stderr.write("e" * 100_000)
        return "done"

    out = call_isolated(f, limits=Limits(timeout=20, stdout_max=64 << 10, stderr_max=1000))
    assert out.status == "ok" and out.value == "done"
    assert len(out.stdout) == 64 << 10 and out.stdout_truncated
    assert out.stdout_size == 8 << 20
    assert len(out.stderr) == 1000 and out.stderr_truncated and out.stderr_size == 100_000


def test_raw_fd_output_is_captured():
    out = call_isolated(os.write, 1, b"raw", limits=FAST)
    assert out.value == 3 and out.stdout == b"raw"


def test_huge_return_value():
    out = call_isolated(bytes, 40 << 20, limits=Limits(timeout=20))
    assert out.status == "ok" and len(out.value) == 40 << 20


def test_return_value_over_limit():
    out = call_isolated(bytes, 2 << 20, limits=Limits(timeout=20, result_max=1 << 20))
    assert out.status == "error" and "too large" in out.error


def test_unpicklable_return_value():
    out = call_isolated(lambda: (lambda: 1), limits=FAST)
    assert out.status == "error" and "cannot be pickled" in out.error
    out = call_isolated(socket.socket, limits=FAST, result="pickle")
    assert out.status == "error" and "cannot be pickled" in out.error
    _still_works()


def test_data_mode_refuses_objects():
    class Point:
        pass

    out = call_isolated(Point, limits=FAST)
    assert out.status == "error" and "pickle" in out.error
    out = call_isolated(complex, 1, 2, limits=FAST)        # allowed plain type
    assert out.value == 1 + 2j


def test_forged_report_is_not_executed(tmp_path):
    """Code in the child can write to the result pipe; in data mode a pickle
    that would call a function in the parent is refused."""
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.mkdir, (str(marker),))

    def f():
        import pickle
        payload = pickle.dumps(("ok", Evil()))
        fd = sandbox._child_channel
        sandbox._send_frame(fd, b"R", payload)
        os._exit(0)

    out = call_isolated(f, limits=FAST)
    assert out.status == "error" and "refusing" in out.error
    assert not marker.exists()


def test_child_that_closes_fds_and_changes_cwd():
    def f():
        os.chdir("/")
        for fd in range(0, 256):
            try:
                os.close(fd)
            except OSError:
                pass
        return "never reported"

    out = call_isolated(f, limits=FAST)
    assert out.status == "error"          # the result pipe went with the rest
    _still_works()


def test_child_that_changes_cwd_and_writes_files():
    def f():
        with open("a.txt", "w") as fh:
            fh.write("x")
        os.makedirs("d/e")
        os.chmod("d", 0)
        os.chdir("/tmp")
        return "fine"

    out = call_isolated(f, limits=FAST)
    assert out.value == "fine"            # the fixture checks the directory is gone


def test_progress_survives_a_crash():
    def f():
        sandbox.report_progress({"step": 1})
        sandbox.report_progress({"step": 2})
        ctypes.string_at(0)

    out = call_isolated(f, limits=FAST)
    assert out.status == "signal" and out.progress == {"step": 2}
    assert sandbox.report_progress("outside") is False


def test_no_network():
    out = call_isolated(lambda: None, limits=FAST)
    if not out.isolation.get("netns"):
        pytest.skip(f"network namespaces not permitted here: {out.isolation.get('netns_why')}")

    def f():
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("192.0.2.1", 80))       # TEST-NET-1: never answers anyway
        finally:
            s.close()

    out = call_isolated(f, limits=FAST)
    assert out.status == "exception" and out.exc_type in ("OSError", "PermissionError")
    # Landlock (ABI 4+) refuses the connect before the empty namespace would
    assert "unreachable" in out.exc_message.lower() or \
        "permission denied" in out.exc_message.lower()
    out = call_isolated(lambda: socket.gethostbyname("localhost"), limits=FAST)
    assert out.status in ("ok", "exception")


def test_network_allowed_when_asked():
    out = call_isolated(lambda: None, limits=Limits(timeout=5, network=True))
    assert out.ok and "netns" not in out.isolation or out.isolation["netns"] is False


# ---------------------------------------------------------------- processes

def _bomb(pidfile):
    """A fork bomb that cannot finish on its own; every process it starts
    writes its pid to pidfile so the test can check they are all gone."""
    def note():
        with open(pidfile, "a") as fh:
            fh.write(f"{os.getpid()}\n")

    note()
    while True:
        try:
            if os.fork() == 0:
                note()
        except OSError:
            time.sleep(0.01)


def _all_gone(pids, within=5.0):
    """Killed processes vanish quickly, but not instantly on a loaded machine."""
    deadline = time.monotonic() + within
    while any(_alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _bomb_pids(pidfile):
    with open(pidfile) as fh:
        return [int(x) for x in fh.read().split()]


def test_fork_bomb_is_bounded_and_cleaned_up(tmp_path):
    pidfile = tmp_path / "pids"
    out = call_isolated(_bomb, str(pidfile), limits=Limits(timeout=1.0, grace=0.2, nproc=16,
                                                           layers=()))
    assert out.status == "timeout"
    pids = _bomb_pids(pidfile)
    assert 2 <= len(pids) <= 16 + 1 or out.isolation["process_limit"] != "pids cgroup"
    assert _all_gone(pids)
    _still_works()


@pytest.mark.skipif(not CONFINED, reason="no confinement in this build")
def test_confined_fork_bomb_is_bounded_and_dies_with_its_namespace():
    def bomb():
        sandbox.report_progress(_pidns_inode())
        _bomb("pids")                       # in the run's own directory

    out = call_isolated(bomb, limits=Limits(timeout=1.0, grace=0.2, nproc=16))
    assert out.status == "timeout"
    assert out.isolation["process_limit"] == "RLIMIT_NPROC in the run's user namespace"
    assert isinstance(out.progress, int)
    deadline = time.monotonic() + 5
    while _pidns_members(out.progress) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _pidns_members(out.progress) == []
    assert "escaped" not in out.isolation
    _still_works()


def test_fork_bomb_without_cgroup_uses_fork_guard(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox._PidsCgroup, "create",
                        classmethod(lambda cls, n: (None, "disabled by the test")))
    pidfile = tmp_path / "pids"
    out = call_isolated(_bomb, str(pidfile), limits=Limits(timeout=1.0, grace=0.2, nproc=16,
                                                           layers=()))
    assert out.status == "timeout"
    assert out.isolation["pids_cgroup"] is False
    assert out.isolation["process_limit"] in ("fork guard", "RLIMIT_NPROC")
    pids = _bomb_pids(pidfile)
    assert len(pids) <= 16 + 2
    assert _all_gone(pids)


def test_escaped_grandchild_is_killed(tmp_path):
    """A grandchild that starts a session of its own (daemonises) still dies
    with the sandbox when there is a pids cgroup."""
    pidfile = tmp_path / "pid"

    def f():
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                with open(pidfile, "w") as fh:
                    fh.write(str(os.getpid()))
                os.close(1)
                os.close(2)
                time.sleep(10_000)
            os._exit(0)
        for _ in range(200):
            if pidfile.exists() and pidfile.read_text():
                break
            time.sleep(0.01)
        return "parent done"

    out = call_isolated(f, limits=UNCONFINED)
    assert out.value == "parent done"
    pid = int(pidfile.read_text())
    time.sleep(0.05)
    if out.isolation.get("pids_cgroup"):
        assert not _alive(pid)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.skip("no pids cgroup here: a daemonised grandchild escapes")


@pytest.mark.skipif(not CONFINED, reason="no confinement in this build")
def test_confined_escaped_grandchild_dies_with_the_namespace():
    def f():
        r, w = os.pipe()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.write(w, b"x")
                os.close(1)
                os.close(2)
                time.sleep(10_000)
            os._exit(0)
        os.read(r, 1)
        return _pidns_inode()

    out = call_isolated(f, limits=FAST)
    assert isinstance(out.value, int)
    deadline = time.monotonic() + 5
    while _pidns_members(out.value) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _pidns_members(out.value) == []


def test_background_child_does_not_hold_the_call():
    def f():
        if os.fork() == 0:
            time.sleep(10_000)     # keeps stdout/stderr open
        return "quick"

    t = time.monotonic()
    out = call_isolated(f, limits=Limits(timeout=10))
    assert out.value == "quick"
    assert time.monotonic() - t < 2


def test_forked_process_returning_does_not_report_twice():
    def f():
        pid = os.fork()
        if pid == 0:
            return "from the grandchild"
        os.waitpid(pid, 0)
        return "from the child"

    out = call_isolated(f, limits=FAST)
    assert out.value == "from the child"


def test_many_calls_in_a_row_leak_nothing():
    for i in range(30):
        assert call_isolated(abs, -i, limits=FAST).value == i


def test_bad_limits():
    with pytest.raises(ValueError):
        call_isolated(abs, 1, limits=Limits(timeout=0))
    for bad in (0, -1, float("inf"), float("nan"), "1", True):
        with pytest.raises(ValueError, match="cpu_timeout"):
            call_isolated(abs, 1, limits=Limits(cpu_timeout=bad))
    with pytest.raises(ValueError):
        call_isolated(abs, 1, result="marshal")


def test_describe_covers_every_status():
    for st in sandbox.STATUSES:
        assert isinstance(Outcome(st).describe(), str)


def test_run_as_another_user():
    if os.getuid() != 0:
        pytest.skip("needs root")
    import pwd
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody")

    def f():
        try:
            os.kill(os.getppid(), 0)
            can_signal_parent = True
        except PermissionError:
            can_signal_parent = False
        with open("mine", "w") as fh:          # its directory is its own
            fh.write("x")
        return os.getuid(), os.getgid(), os.getgroups(), can_signal_parent

    out = call_isolated(f, limits=Limits(timeout=5, user="nobody", layers=()))
    assert out.value == (nobody.pw_uid, nobody.pw_gid, [], False)
    assert out.isolation["user"] == nobody.pw_uid
    with pytest.raises(ValueError, match="no such user"):
        call_isolated(f, limits=Limits(user="no-such-user-xyz"))
    if CONFINED:
        # confined, root callers always run the child as nobody; the caller is
        # outside its PID namespace (getppid() is 0, kill(0) is its own group)
        out = call_isolated(f, limits=FAST)
        assert out.value[:3] == (nobody.pw_uid, nobody.pw_gid, [])
        with pytest.raises(ValueError, match="unprivileged"):
            call_isolated(f, limits=Limits(user="root"))


def test_capabilities_reports_what_applies():
    caps = sandbox.capabilities()
    for layer in sandbox.LAYERS:
        entry = caps[layer]
        assert set(entry) >= {"available", "used", "why"}
        assert isinstance(entry["available"], bool) and isinstance(entry["why"], str)
        assert entry["available"] or entry["why"]
        assert entry["used"] == (entry["available"] and layer in Limits().layers)
    assert isinstance(caps["landlock"]["abi"], int)
    assert caps["process_limit"] in ("pids cgroup", "fork guard", "RLIMIT_NPROC",
                                     "RLIMIT_NPROC in the run's user namespace")
    assert sandbox.describe_capabilities(caps).startswith("confinement: ")
    assert sandbox.capabilities() is caps           # probed once per process
