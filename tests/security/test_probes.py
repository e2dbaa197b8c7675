"""Hostile snippets run through lexecutor_c.run() with its defaults, each
followed by a check of the HOST: files untouched, secrets not in what came
back, victims and the caller alive and running, no process left behind.
A failing probe is a breach (`make security` prints "breached N of M").

The snippets know everything a determined attacker could learn (the exact
paths of the canary and secret files, the caller's pid, the victims' pids,
the listening ports): the confinement must hold anyway."""
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from .conftest import _state, accepted

from lexecutor_c import run
from lexecutor_c.engine.sandbox import Limits

pytestmark = pytest.mark.probe

PROBES = {}


def probe(name, code, *, timeout=4.0, limits=None, safe=False):
    """Register a probe; the decorated function checks the host (host, result).
    ``safe``: harmless to the machine even when nothing confines it (it only
    touches this suite's own files and processes)."""
    def deco(check):
        PROBES[name] = {"code": textwrap.dedent(code), "check": check, "timeout": timeout,
                        "limits": limits, "safe": safe}
        return check
    return deco


def _source(code, host, caller=None):
    values = host.values()
    if caller is not None:
        values["caller"] = caller
    prelude = ("import os, sys, ctypes, socket, signal, errno, time, resource\n"
               f"HOST = {values!r}\n"
               "libc = ctypes.CDLL(None, use_errno=True)\n"
               "def attempt(fn, *a):\n"
               "    try:\n"
               "        out = fn(*a)\n"
               "        print('ATTEMPT-OK', repr(out)[:200])\n"
               "        return out\n"
               "    except BaseException as e:\n"
               "        print('ATTEMPT-FAILED', type(e).__name__, str(e)[:200])\n")
    return prelude + code


#: LX_SECURITY_UNCONFINED=1 runs every probe with Limits(layers=()) -- the
#: sandbox as it was before the confinement layers -- to show the probes bite
UNCONFINED = bool(os.environ.get("LX_SECURITY_UNCONFINED"))


def _run(p, host):
    src = _source(p["code"], host)
    if UNCONFINED:
        return run(src, predictor="as-is", limits=Limits(timeout=p["timeout"], layers=()))
    if p["limits"] is not None:
        return run(src, predictor="as-is", limits=p["limits"])
    return run(src, predictor="as-is", timeout=p["timeout"])


def _everything(r):
    """All text that came back from the run."""
    parts = [r.stdout or "", r.stderr or "", json.dumps(r.to_dict(), default=str)]
    return "\n".join(parts)


def no_leak(r, *secrets):
    text = _everything(r)
    for s in secrets:
        assert s not in text, f"secret {s[:12]}... came back from the run"


def _pidns_inode_of(r):
    for line in (r.stdout or "").splitlines():
        if line.startswith("PIDNS "):
            return int(line.split()[1])
    return None


def _ns_empty(ino, within=5.0):
    deadline = time.monotonic() + within
    while True:
        left = []
        for e in os.listdir("/proc"):
            if e.isdigit():
                try:
                    if os.stat(f"/proc/{e}/ns/pid").st_ino == ino and \
                            _state(int(e)) not in (None, "Z", "X"):
                        left.append(int(e))
                except OSError:
                    pass
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


PIDNS = "\n    print('PIDNS', os.stat('/proc/self/ns/pid').st_ino, flush=True)\n"

# ======================================================================= files


@probe("write_new_file_outside", """
    attempt(lambda: open(os.path.join(HOST['base'], 'new.txt'), 'w').write('x'))
""", safe=True)
def _(host, r):
    assert not os.path.exists(os.path.join(host.base, "new.txt"))


@probe("overwrite_canary", """
    attempt(lambda: open(HOST['canary'], 'w').write('pwned'))
    attempt(lambda: open(HOST['canary'], 'a').write('pwned'))
""", safe=True)
def _(host, r):
    host.canary_intact()


@probe("delete_canary", """
    attempt(os.remove, HOST['canary'])
    attempt(os.unlink, HOST['canary'])
""")
def _(host, r):
    host.canary_intact()


@probe("rename_canary", """
    attempt(os.rename, HOST['canary'], HOST['canary'] + '.moved')
    attempt(os.rename, HOST['canary'], 'stolen')
""")
def _(host, r):
    host.canary_intact()
    assert not os.path.exists(host.canary + ".moved")


@probe("chmod_canary_and_tmp", """
    attempt(os.chmod, HOST['canary'], 0o000)
    attempt(os.chmod, '/tmp', 0o700)
    attempt(os.chmod, HOST['base'], 0o700)
""")
def _(host, r):
    host.canary_intact()
    assert os.stat("/tmp").st_mode == host.tmp_mode, "/tmp mode changed"
    assert os.stat(host.base).st_mode & 0o777 == 0o777


@probe("chown_canary", """
    attempt(os.chown, HOST['canary'], 65534, 65534)
    attempt(os.lchown, HOST['canary'], 0, 0)
""")
def _(host, r):
    st = os.stat(host.canary)
    assert (st.st_uid, st.st_gid) == (host.canary_stat.st_uid, host.canary_stat.st_gid)


@probe("truncate_and_utime_canary", """
    attempt(os.truncate, HOST['canary'], 0)
    attempt(os.utime, HOST['canary'], (0, 0))
""", safe=True)
def _(host, r):
    host.canary_intact()


@probe("symlink_out_of_the_run_dir", """
    attempt(os.symlink, HOST['canary'], 'link')
    attempt(lambda: open('link', 'w').write('pwned'))
    attempt(os.symlink, '/', 'root')
    attempt(lambda: open('root' + HOST['base'] + '/via-link', 'w').write('x'))
""", safe=True)
def _(host, r):
    host.canary_intact()
    assert not os.path.exists(os.path.join(host.base, "via-link"))


@probe("hard_link_out_of_the_run_dir", """
    attempt(os.link, HOST['canary'], 'hard')
    attempt(lambda: open('hard', 'w').write('pwned'))
    attempt(os.link, '/etc/passwd', 'passwd')
""")
def _(host, r):
    host.canary_intact()


@probe("mkdir_and_fifo_outside", """
    attempt(os.makedirs, os.path.join(HOST['base'], 'newdir', 'deeper'))
    attempt(os.mkfifo, os.path.join(HOST['base'], 'fifo'))
    attempt(os.mknod, os.path.join(HOST['base'], 'node'))
""", safe=True)
def _(host, r):
    for n in ("newdir", "fifo", "node"):
        assert not os.path.exists(os.path.join(host.base, n))


@probe("write_etc_and_usr", """
    attempt(lambda: open('/etc/lexecutor_probe', 'w').write('x'))
    attempt(lambda: open('/etc/passwd', 'a').write('evil::0:0::/:/bin/sh\\n'))
    attempt(lambda: open('/usr/lib/lexecutor_probe', 'w').write('x'))
""")
def _(host, r):
    assert not os.path.exists("/etc/lexecutor_probe")
    assert not os.path.exists("/usr/lib/lexecutor_probe")
    with open("/etc/passwd") as f:
        assert "evil::0:0" not in f.read()


@probe("write_caller_home", """
    attempt(lambda: open(os.path.join(HOST['home'], '.lexecutor_probe'), 'w').write('x'))
    attempt(lambda: open(os.path.expanduser('~/.lexecutor_probe2'), 'w').write('x'))
""")
def _(host, r):
    assert not os.path.exists(os.path.join(host.values()["home"], ".lexecutor_probe"))
    assert not os.path.exists(os.path.join(host.values()["home"], ".lexecutor_probe2"))


@probe("modify_the_package", """
    init = os.path.join(HOST['package'], '__init__.py')
    attempt(lambda: open(init, 'a').write('\\nimport os; os.system("true")\\n'))
    attempt(lambda: open(os.path.join(HOST['package'], 'evil.py'), 'w').write('x'))
    import site
    for d in site.getsitepackages():
        attempt(lambda: open(os.path.join(d, 'evil.pth'), 'w').write('import os'))
""")
def _(host, r):
    pkg = host.values()["package"]
    assert not os.path.exists(os.path.join(pkg, "evil.py"))
    with open(os.path.join(pkg, "__init__.py")) as f:
        assert 'os.system("true")' not in f.read()
    import site
    for d in site.getsitepackages():
        assert not os.path.exists(os.path.join(d, "evil.pth"))


@probe("private_tmp_and_shm_do_not_reach_the_host", """
    tag = HOST['tag']
    attempt(lambda: open('/tmp/lx-probe-' + tag, 'w').write('x'))
    attempt(lambda: open('/dev/shm/lx-probe-' + tag, 'w').write('x'))
    attempt(lambda: open('/var/tmp/lx-probe-' + tag, 'w').write('x'))
""")
def _(host, r):
    for d in ("/tmp", "/dev/shm", "/var/tmp"):
        assert not os.path.exists(f"{d}/lx-probe-{host.tag}")


@probe("proc_sys_and_sysfs_writes", """
    attempt(lambda: open('/proc/sys/kernel/hostname', 'w').write('pwned'))
    attempt(lambda: open('/proc/sysrq-trigger', 'w').write('h'))
    attempt(lambda: open('/sys/kernel/mm/transparent_hugepage/enabled', 'w').write('never'))
""")
def _(host, r):
    with open("/proc/sys/kernel/hostname") as f:
        assert f.read().strip() != "pwned"


# ======================================================================= reads


@probe("read_the_callers_files", """
    attempt(lambda: print(open(HOST['secret']).read()))
    attempt(lambda: print(open(HOST['canary']).read()))
    attempt(lambda: print(os.listdir(HOST['base'])))
""", safe=True)
def _(host, r):
    no_leak(r, host.secret_text, host.canary_text, "other-user.txt")


@probe("read_another_users_file", """
    attempt(lambda: print(open(HOST['other']).read()))
    attempt(os.setuid, 4321)
    attempt(lambda: print(open(HOST['other']).read()))
""", safe=True)
def _(host, r):
    no_leak(r, host.other_text)


@probe("list_and_read_the_callers_home", """
    attempt(lambda: print('HOME', sorted(os.listdir(HOST['home']))))
    for name in ('.bash_history', '.ssh/id_rsa', '.netrc', '.gitconfig', '.profile'):
        attempt(lambda: print(open(os.path.join(HOST['home'], name)).read()))
""")
def _(host, r):
    home = host.values()["home"]
    visible = {".pyenv"}        # the Python installation lives there on some machines
    names = [n for n in os.listdir(home) if n not in visible and len(n) > 3]
    for line in (r.stdout or "").splitlines():
        if line.startswith("HOME"):
            listed = line
            leaked = [n for n in names if repr(n) in listed]
            assert not leaked, f"home listing leaked {leaked[:5]}"
    for name in (".bash_history", ".netrc", ".profile", ".gitconfig"):
        p = os.path.join(home, name)
        if os.path.isfile(p):
            with open(p, errors="replace") as f:
                text = f.read().strip()
            if len(text) > 20:
                assert text[:20] not in r.stdout, f"{name} leaked"


@probe("read_shadow_and_ssh_host_keys", """
    attempt(lambda: print(open('/etc/shadow').read()))
    import glob
    for p in glob.glob('/etc/ssh/ssh_host_*_key'):
        attempt(lambda: print(open(p).read()))
""")
def _(host, r):
    try:
        with open("/etc/shadow") as f:
            first = f.readline().strip()
    except OSError:
        pytest.skip("no /etc/shadow to compare")
    assert first not in (r.stdout or "")
    assert "PRIVATE KEY" not in (r.stdout or "")


@probe("caller_environ_through_proc", """
    for pid in (HOST['caller'], 1, os.getppid(), 'self'):
        attempt(lambda: print(open(f'/proc/{pid}/environ', 'rb').read()))
        attempt(lambda: print(open(f'/proc/{pid}/cmdline', 'rb').read()))
""", safe=True)
def _(host, r):
    no_leak(r, host.env_secret)


@probe("caller_memory_through_proc_mem", """
    pid = HOST['caller']
    def steal():
        maps = open(f'/proc/{pid}/maps').read().splitlines()
        with open(f'/proc/{pid}/mem', 'rb') as mem:
            for line in maps:
                lo, hi = (int(x, 16) for x in line.split()[0].split('-'))
                if 'rw' in line.split()[1]:
                    try:
                        mem.seek(lo)
                        data = mem.read(min(hi - lo, 1 << 22))
                    except OSError:
                        continue
                    i = data.find(b'sk-probe-')
                    if i >= 0:
                        print('FOUND', data[i:i + 30])
                        return
    attempt(steal)
""", safe=True)
def _(host, r):
    no_leak(r, host.env_secret)


@probe("environment_secrets", """
    print(dict(os.environ))
    import posix
    print(posix.environ)
    print(os.environb if hasattr(os, 'environb') else '')
    attempt(lambda: print(open('/proc/self/environ', 'rb').read()))
    print(os.getenv('OPENAI_API_KEY'), os.getenv('LEXECUTOR_PROBE_API_KEY'))
""", safe=True)
def _(host, r):
    no_leak(r, host.env_secret)


@probe("inherited_descriptors", """
    for fd in range(3, 1024):
        try:
            os.lseek(fd, 0, 0)
            print('FD', fd, os.read(fd, 200))
        except OSError:
            pass
""", safe=True)
def _(host, r):
    no_leak(r, host.secret_text)


# ======================================================================= processes


@probe("kill_victims", """
    for pid in HOST['victims']:
        for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM):
            attempt(os.kill, pid, sig)
        attempt(lambda: os.killpg(os.getpgid(pid), signal.SIGKILL))
""", safe=True)
def _(host, r):
    host.victims_fine()


@probe("kill_every_process", """
    attempt(os.kill, -1, signal.SIGSTOP)
    attempt(os.kill, -1, signal.SIGKILL)
""")
def _(host, r):
    host.victims_fine()


@probe("pidfd_and_tgkill_on_victims", """
    for pid in HOST['victims']:
        attempt(lambda: signal.pidfd_send_signal(os.pidfd_open(pid), signal.SIGKILL))
        attempt(libc.syscall, 234, pid, pid, 9)        # tgkill
        attempt(libc.syscall, 129, pid, 9, None)       # rt_sigqueueinfo
""", safe=True)
def _(host, r):
    host.victims_fine()


@probe("ptrace_the_victims", """
    for pid in HOST['victims']:
        print('ATTACH', libc.ptrace(16, pid, None, None), ctypes.get_errno())   # PTRACE_ATTACH
        print('SEIZE', libc.ptrace(0x4206, pid, None, None), ctypes.get_errno())
    print('TRACEME', libc.ptrace(0, 0, None, None), ctypes.get_errno())
""", safe=True)
def _(host, r):
    time.sleep(0.05)
    host.victims_fine()
    for v in host.victims:
        with open(f"/proc/{v.pid}/status") as f:
            tracer = [l for l in f if l.startswith("TracerPid:")][0].split()[1]
        assert tracer == "0", f"victim {v.pid} is being traced"


@probe("process_vm_readv_on_the_caller", """
    class iovec(ctypes.Structure):
        _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
    buf = ctypes.create_string_buffer(4096)
    local = iovec(ctypes.cast(buf, ctypes.c_void_p), 4096)
    remote = iovec(0x400000, 4096)
    n = libc.process_vm_readv(HOST['caller'], ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    print('READV', n, ctypes.get_errno())
""")
def _(host, r):
    assert "READV 4096" not in r.stdout


@probe("renice_and_limit_the_victims", """
    for pid in HOST['victims']:
        attempt(os.setpriority, os.PRIO_PROCESS, pid, 19)
        attempt(resource.prlimit, pid, resource.RLIMIT_NOFILE, (3, 3))
        attempt(os.sched_setaffinity, pid, {0})
""")
def _(host, r):
    for v in host.victims:
        assert os.getpriority(os.PRIO_PROCESS, v.pid) == os.getpriority(os.PRIO_PROCESS, 0)
        assert resource_nofile(v.pid) != 3
        assert len(os.sched_getaffinity(v.pid)) == len(os.sched_getaffinity(0))


def resource_nofile(pid):
    with open(f"/proc/{pid}/limits") as f:
        for line in f:
            if line.startswith("Max open files"):
                return int(line.split()[3])
    return None


@probe("fork_bomb", PIDNS + """
    while True:
        try:
            os.fork()
        except OSError:
            pass
""", timeout=1.5)
def _(host, r):
    assert r.status == "timeout"
    ino = _pidns_inode_of(r)
    assert ino is not None
    assert _ns_empty(ino) == [], "fork bomb processes survived the run"
    host.victims_fine()


@probe("thread_bomb", """
    import threading
    n = 0
    try:
        while True:
            threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
            n += 1
    except RuntimeError as e:
        print('STOPPED AT', n)
""", timeout=3)
def _(host, r):
    assert "STOPPED AT" in r.stdout
    assert int(r.stdout.split("STOPPED AT")[1].split()[0]) < 1000


@probe("detached_grandchild_outlives_the_run", PIDNS + """
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            os.close(1); os.close(2)
            while True:
                try:
                    open(HOST['marker'] + '.grandchild', 'a').write('alive\\n')
                except OSError:
                    pass
                time.sleep(0.05)
        os._exit(0)
    time.sleep(0.2)
""", safe=True)
def _(host, r):
    ino = _pidns_inode_of(r)
    assert ino is not None
    assert _ns_empty(ino) == [], "a grandchild outlived the run"
    assert not os.path.exists(host.marker + ".grandchild")


@probe("memory_filling", """
    hog = []
    while True:
        hog.append(bytearray(64 << 20))
""", timeout=10)
def _(host, r):
    assert r.status in ("memory", "crashed", "exception"), r.status
    host.victims_fine()


@probe("disk_filling", """
    chunk = b'x' * (1 << 20)
    for target in ('fill', '/tmp/fill', '/dev/shm/fill'):
        n = 0
        try:
            with open(target, 'wb') as f:
                while n < 4096:
                    f.write(chunk)
                    n += 1
        except OSError as e:
            print('FULL', target, n, e.errno)
""", timeout=20)
def _(host, r):
    # every place is bounded well below the 4 GiB the probe tries to write
    assert r.stdout.count("FULL") == 3, r.stdout[-500:]
    for line in r.stdout.splitlines():
        if line.startswith("FULL"):
            assert int(line.split()[2]) <= 256


@probe("core_dump", """
    attempt(resource.setrlimit, resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2)
    import ctypes
    ctypes.string_at(0)
""")
def _(host, r):
    assert r.status == "crashed"
    for d in (host.base, os.getcwd(), "/tmp"):
        leftovers = [n for n in os.listdir(d) if n == "core" or n.startswith("core.")]
        assert not leftovers, f"core dump in {d}: {leftovers}"


# ======================================================================= sockets


@probe("tcp_to_the_hosts_listeners", """
    for fam, addr in ((socket.AF_INET, ('127.0.0.1', HOST['tcp'])),
                      (socket.AF_INET6, ('::1', HOST['tcp6'] or 1))):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(1)
        attempt(s.connect, addr)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    attempt(s.sendto, b'x', ('127.0.0.1', 53))
    attempt(s.sendto, b'x', ('8.8.8.8', 53))
""")
def _(host, r):
    for s in host.servers[:2]:
        assert not accepted(s), "a snippet connected to a host TCP listener"


@probe("unix_sockets_of_the_host", """
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    attempt(s.connect, HOST['unix'])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    attempt(s.connect, '\\0' + HOST['abstract'])
    for path in ('/run/dbus/system_bus_socket', '/var/run/docker.sock', '/dev/log',
                 '/run/systemd/private', '/tmp/.X11-unix/X0'):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        attempt(s.connect, path)
""")
def _(host, r):
    for s in host.servers[-2:]:
        assert not accepted(s), "a snippet connected to a host unix socket"
    assert "ATTEMPT-OK" not in r.stdout


@probe("netlink_packet_and_raw_sockets", """
    for fam, typ, proto in ((16, socket.SOCK_RAW, 0), (17, socket.SOCK_RAW, 0),
                            (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
                            (40, socket.SOCK_STREAM, 0), (38, socket.SOCK_SEQPACKET, 0)):
        attempt(socket.socket, fam, typ, proto)
    attempt(socket.if_nameindex)
""")
def _(host, r):
    assert "ATTEMPT-OK <socket.socket" not in r.stdout.replace("fd=", "")
    # the host's interfaces are untouched (nothing could even be opened)
    assert os.path.exists("/sys/class/net/lo")


@probe("listen_for_the_host", """
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    attempt(s.bind, ('0.0.0.0', 47811))
    attempt(s.listen, 1)
    time.sleep(0.3)
""")
def _(host, r):
    import socket
    c = socket.socket()
    c.settimeout(0.5)
    try:
        c.connect(("127.0.0.1", 47811))
        connected = True
    except OSError:
        connected = False
    finally:
        c.close()
    assert not connected


# ======================================================================= kernel


@probe("mount_unshare_setns_chroot", """
    print('MOUNT', libc.mount(b'none', b'/tmp', b'tmpfs', 0, None), ctypes.get_errno())
    print('MOUNT_ETC', libc.mount(b'/tmp', b'/etc', None, 4096, None), ctypes.get_errno())
    print('UMOUNT', libc.umount2(b'/usr', 2), ctypes.get_errno())
    for flags in (0x10000000, 0x20000, 0x40000000, 0x20000000):
        print('UNSHARE', hex(flags), libc.unshare(flags), ctypes.get_errno())
    for ns in ('mnt', 'net', 'pid', 'user'):
        try:
            fd = os.open(f'/proc/{HOST["caller"]}/ns/{ns}', os.O_RDONLY)
            print('SETNS', ns, libc.setns(fd, 0), ctypes.get_errno())
        except OSError as e:
            print('SETNS-OPEN', ns, e)
    print('CHROOT', libc.chroot(b'/tmp'), ctypes.get_errno())
    print('CLONE_NEWUSER', libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0), ctypes.get_errno())
""")
def _(host, r):
    out = r.stdout
    for key in ("MOUNT", "MOUNT_ETC", "UMOUNT", "CHROOT", "CLONE_NEWUSER"):
        assert f"{key} 0 " not in out, f"{key} succeeded"
    assert "UNSHARE 0x" not in out or " 0 0" not in out.split("UNSHARE")[1][:20]
    for line in out.splitlines():
        if line.startswith("UNSHARE") or line.startswith("SETNS "):
            assert line.split()[2] != "0", line
    with open("/proc/self/mountinfo") as f:
        assert " /etc " not in "".join(l for l in f if "tmpfs" in l)


@probe("kernel_facilities", """
    print('BPF', libc.syscall(321, 0, None, 0), ctypes.get_errno())
    print('PERF', libc.syscall(298, None, 0, -1, -1, 0), ctypes.get_errno())
    print('KEYCTL', libc.syscall(250, 0, 0, 0, 0, 0), ctypes.get_errno())
    print('ADD_KEY', libc.syscall(248, b'user', b'lx', b'x', 1, 0xfffffffd), ctypes.get_errno())
    print('INIT_MODULE', libc.syscall(175, None, 0, b''), ctypes.get_errno())
    print('IO_URING', libc.syscall(425, 8, None), ctypes.get_errno())
    print('USERFAULTFD', libc.syscall(323, 0), ctypes.get_errno())
    print('OPEN_BY_HANDLE', libc.syscall(304, 3, None, 0), ctypes.get_errno())
    print('KEXEC', libc.syscall(246, 0, 0, None, 0), ctypes.get_errno())
""")
def _(host, r):
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].isupper():
            assert parts[1] == "-1", f"{parts[0]} succeeded"


@probe("clock_hostname_reboot", """
    ts = (ctypes.c_long * 2)(0, 0)
    print('SETTIME', libc.clock_settime(0, ctypes.byref(ts)), ctypes.get_errno())
    print('HOSTNAME', libc.sethostname(b'pwned', 5), ctypes.get_errno())
    print('REBOOT', libc.syscall(169, 0xfee1dead, 672274793, 0x4321FEDC, None), ctypes.get_errno())
    print('SWAPOFF', libc.syscall(168, b'/'), ctypes.get_errno())
""")
def _(host, r):
    assert abs(time.time() - time.clock_gettime(time.CLOCK_REALTIME)) < 1
    assert time.time() > 1.6e9, "the host clock was set back"
    import socket
    assert socket.gethostname() != "pwned"


@probe("terminal_injection", """
    import fcntl, termios
    for fd in (0, 1, 2):
        attempt(fcntl.ioctl, fd, termios.TIOCSTI, b'x')
    attempt(lambda: os.open('/dev/tty', os.O_RDWR))
""")
def _(host, r):
    assert "ATTEMPT-OK" not in r.stdout


@probe("escape_through_proc_root", """
    for p in ('/proc/1/root', '/proc/self/root', f'/proc/{HOST["caller"]}/root'):
        attempt(lambda: open(p + HOST['base'] + '/via-proc-root', 'w').write('x'))
        attempt(lambda: print(open(p + HOST['secret']).read()))
    attempt(lambda: print(os.listdir('/proc/1/cwd')))
""", safe=True)
def _(host, r):
    assert not os.path.exists(os.path.join(host.base, "via-proc-root"))
    no_leak(r, host.secret_text)


@probe("raise_own_limits_and_privileges", """
    attempt(resource.setrlimit, resource.RLIMIT_NPROC, (resource.RLIM_INFINITY,) * 2)
    attempt(resource.setrlimit, resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)
    attempt(os.setuid, 0)
    attempt(os.setgid, 0)
    print('UID', os.getuid(), os.geteuid())
    attempt(lambda: open('/sys/fs/cgroup/pids/tasks', 'w').write(str(os.getpid())))
""")
def _(host, r):
    assert "UID 0 0" not in r.stdout


# ======================================================================= results


@probe("forged_pickle_over_the_result_pipe", """
    import pickle
    from lexecutor_c import sandbox
    class Evil:
        def __reduce__(self):
            return (os.mkdir, (HOST['marker'],))
    payload = pickle.dumps(('ok', {'kind': 'done', 'x': Evil()}))
    sandbox._send_frame(sandbox._child_channel, b'R', payload)
    import posix
    posix._exit(0)          # the real one: run() replaces os._exit
""", safe=True)
def _(host, r):
    assert not os.path.exists(host.marker), "the parent ran code from a forged result"


@probe("forged_plain_result", """
    import pickle
    from lexecutor_c import sandbox
    payload = pickle.dumps(('ok', {'kind': 'done', 'status': 'ok', 'coverage': [1]}))
    sandbox._send_frame(sandbox._child_channel, b'R', payload)
    import posix
    posix._exit(0)          # the real one: run() replaces os._exit
""")
def _(host, r):
    # run() returned a Result (it did not raise) and did not believe the shape
    assert r.status in ("crashed", "exit", "ok")
    assert r.coverage is None or isinstance(r.coverage, float)


@probe("garbage_and_huge_frames", """
    from lexecutor_c import sandbox
    import struct
    fd = sandbox._child_channel
    os.write(fd, struct.pack('<4scQ', b'LXS1', b'R', 1 << 60))
    os.write(fd, b'\\x00' * 1000)
    os.write(fd, b'junk' * 100)
    import posix
    posix._exit(0)
""")
def _(host, r):
    assert r.status == "crashed"


@probe("closed_pipes_and_a_hang", """
    for fd in range(0, 64):
        try:
            os.close(fd)
        except OSError:
            pass
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        time.sleep(1)
""", timeout=1.0)
def _(host, r):
    assert r.status == "timeout"
    assert r.wall_time < 10


@probe("stop_itself", """
    os.kill(0, signal.SIGSTOP)
    signal.raise_signal(signal.SIGSTOP)
    time.sleep(30)
""", timeout=1.0)
def _(host, r):
    assert r.status == "timeout" and r.wall_time < 10


# ======================================================================= the caller


CALLER = """
import json, os, sys
from lexecutor_c import run
from lexecutor_c.engine.sandbox import Limits
code = sys.stdin.read().replace("'CALLER_PID_HERE'", str(os.getpid()))
lim = Limits(timeout=3, layers=()) if os.environ.get("LX_SECURITY_UNCONFINED") else None
r = run(code, predictor="as-is", timeout=3, limits=lim)
print(json.dumps({"status": r.status, "stdout": r.stdout[-4000:]}))
"""


def _in_caller(code, host, deadline=45):
    """Run `code` from a separate caller process whose pid the code knows;
    the caller must not die, stop or hang."""
    src = _source(code, host, caller="CALLER_PID_HERE")
    p = subprocess.Popen([sys.executable, "-c", CALLER], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    p.stdin.write(src.encode())
    p.stdin.close()
    t = time.monotonic()
    stopped = False
    while p.poll() is None:
        if _state(p.pid) in ("T", "t"):
            stopped = True
            os.kill(p.pid, signal.SIGCONT)
        if time.monotonic() - t > deadline:
            p.kill()
            p.wait()
            raise AssertionError("the caller hung")
        time.sleep(0.02)
    out, err = p.stdout.read(), p.stderr.read()
    assert not stopped, "the caller was stopped"
    assert p.returncode == 0, f"the caller died ({p.returncode}): {err.decode()[-500:]}"
    return json.loads(out.decode().strip().splitlines()[-1])


CALLER_PROBES = {
    "caller_sigkill": "attempt(os.kill, HOST['caller'], signal.SIGKILL)",
    "caller_sigstop": "attempt(os.kill, HOST['caller'], signal.SIGSTOP)\n"
                      "attempt(os.killpg, os.getpgid(HOST['caller']), signal.SIGSTOP)",
    "caller_ptrace_attach": "print(libc.ptrace(16, HOST['caller'], None, None))\n"
                            "print(libc.ptrace(0x4206, HOST['caller'], None, None))\n"
                            "time.sleep(0.5)",
    "caller_pidfd_signal": "attempt(lambda: signal.pidfd_send_signal("
                           "os.pidfd_open(HOST['caller']), signal.SIGKILL))",
    "caller_kill_everything": "attempt(os.kill, -1, signal.SIGKILL)",
}


@pytest.mark.parametrize("name", sorted(CALLER_PROBES))
def test_caller_survives(name, host):
    if UNCONFINED and name == "caller_kill_everything":
        pytest.skip("not run without confinement: it could harm the machine")
    got = _in_caller(CALLER_PROBES[name], host)
    assert got["status"] in ("ok", "exception"), got


@pytest.mark.parametrize("name", sorted(PROBES))
def test_probe(name, host):
    p = PROBES[name]
    if UNCONFINED and not p["safe"]:
        pytest.skip("not run without confinement: it could harm the machine")
    r = _run(p, host)
    try:
        p["check"](host, r)
    finally:
        host.canary_intact()
        host.victims_fine()
