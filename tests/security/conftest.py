"""The hostile-input suite: fixtures that set up what a snippet must not
reach (canary files, another user's file, secrets in the environment,
victim processes, listening sockets) and the summary line

    breached N of M

that `make security` prints (a probe that fails is a breach)."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import pytest

_outcomes = {}


def pytest_configure(config):
    config.addinivalue_line("markers", "probe: one hostile snippet and its host check")


def pytest_runtest_logreport(report):
    if "probe" in report.keywords and report.when == "call":
        _outcomes[report.nodeid] = report.outcome
    elif "probe" in report.keywords and report.when == "setup" and report.outcome != "passed":
        _outcomes[report.nodeid] = report.outcome


def pytest_terminal_summary(terminalreporter):
    if not _outcomes:
        return
    breached = sorted(n for n, o in _outcomes.items() if o == "failed")
    skipped = sum(1 for o in _outcomes.values() if o == "skipped")
    total = len(_outcomes) - skipped
    terminalreporter.write_line("")
    for n in breached:
        terminalreporter.write_line(f"BREACHED: {n.split('::')[-1]}")
    extra = f" ({skipped} probes skipped)" if skipped else ""
    terminalreporter.write_line(f"breached {len(breached)} of {total}{extra}")


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2:].split()[0].decode()


class Host:
    """What the probes attack, and how to check it afterwards."""

    def __init__(self, base):
        tag = uuid.uuid4().hex[:12]
        self.base = base
        self.canary = os.path.join(base, "canary.txt")
        self.canary_text = f"CANARY-{tag}"
        self.secret = os.path.join(base, "secret.txt")
        self.secret_text = f"SECRET-{tag}"
        self.other = os.path.join(base, "other-user.txt")
        self.other_text = f"OTHERUSER-{tag}"
        self.env_secret = f"sk-probe-{tag}"
        self.marker = os.path.join(base, "pwned")
        self.tag = tag
        with open(self.canary, "w") as f:
            f.write(self.canary_text)
        os.chmod(self.canary, 0o666)       # world-writable: only confinement protects it
        with open(self.secret, "w") as f:
            f.write(self.secret_text)
        os.chmod(self.secret, 0o644)       # world-readable: likewise
        with open(self.other, "w") as f:
            f.write(self.other_text)
        os.chmod(self.other, 0o600)
        if os.geteuid() == 0:
            os.chown(self.other, 4321, 4321)
        os.chmod(base, 0o777)
        self.canary_stat = os.stat(self.canary)
        self.tmp_mode = os.stat("/tmp").st_mode
        self.victims = []
        self.servers = []

    def values(self):
        return {"base": self.base, "canary": self.canary, "secret": self.secret,
                "other": self.other, "marker": self.marker, "tag": self.tag,
                "caller": os.getpid(), "victims": [v.pid for v in self.victims],
                "tcp": self.tcp_port, "tcp6": self.tcp6_port, "unix": self.unix_path,
                "abstract": self.abstract_name,
                "home": os.path.realpath(os.path.expanduser("~")),
                "package": os.path.dirname(__import__("lexecutor_c").__file__)}

    # -------- checks
    def canary_intact(self):
        with open(self.canary) as f:
            text = f.read()
        st = os.stat(self.canary)
        assert text == self.canary_text, "canary file changed"
        assert st.st_mode == self.canary_stat.st_mode, "canary mode changed"
        assert st.st_mtime_ns == self.canary_stat.st_mtime_ns, "canary mtime changed"
        assert st.st_ino == self.canary_stat.st_ino, "canary replaced"
        assert st.st_nlink == 1, "canary got a hard link"

    def victims_fine(self):
        for v in self.victims:
            st = _state(v.pid)
            assert st is not None and st not in ("Z", "X"), f"victim {v.pid} died"
            assert st not in ("T", "t"), f"victim {v.pid} was stopped"

    def close(self):
        for v in self.victims:
            v.kill()
            v.wait()
        for s in self.servers:
            s.close()
        shutil.rmtree(self.base, ignore_errors=True)


@pytest.fixture(scope="module")
def host():
    base = tempfile.mkdtemp(prefix="lx-security-")
    h = Host(base)
    # victims: one with the caller's identity, one as nobody
    h.victims.append(subprocess.Popen(["sleep", "600"], start_new_session=True))
    if os.geteuid() == 0 and shutil.which("setpriv"):
        h.victims.append(subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534",
                                           "--clear-groups", "sleep", "600"],
                                          start_new_session=True))
    # listeners a snippet must not reach
    s4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s4.bind(("127.0.0.1", 0))
    s4.listen(8)
    s4.setblocking(False)
    h.tcp_port = s4.getsockname()[1]
    h.servers.append(s4)
    try:
        s6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s6.bind(("::1", 0))
        s6.listen(8)
        s6.setblocking(False)
        h.tcp6_port = s6.getsockname()[1]
        h.servers.append(s6)
    except OSError:
        h.tcp6_port = None
    h.unix_path = os.path.join(base, "host.sock")
    su = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    su.bind(h.unix_path)
    os.chmod(h.unix_path, 0o777)
    su.listen(8)
    su.setblocking(False)
    h.servers.append(su)
    h.abstract_name = f"lexecutor-probe-{h.tag}"
    sa = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sa.bind("\0" + h.abstract_name)
    sa.listen(8)
    sa.setblocking(False)
    h.servers.append(sa)
    old = {k: os.environ.get(k) for k in ("LEXECUTOR_PROBE_API_KEY", "OPENAI_API_KEY")}
    os.environ["LEXECUTOR_PROBE_API_KEY"] = h.env_secret
    os.environ["OPENAI_API_KEY"] = h.env_secret
    time.sleep(0.05)
    yield h
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    h.close()


def accepted(sock):
    """True when someone connected to the listening socket."""
    try:
        conn, _ = sock.accept()
    except (BlockingIOError, OSError):
        return False
    conn.close()
    return True


@pytest.fixture
def caller_alive():
    """The caller (this process) must still be running and not stopped --
    trivially true when the check runs, so it also asserts signal state."""
    yield
    assert signal.getsignal(signal.SIGINT) is not None
