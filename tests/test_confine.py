"""The confinement layers (csrc/sandbox/, lexecutor_c.engine.sandbox):
_core.sandbox_fork's error paths, fail-closed behaviour and the explicit
opt-down, what each layer does inside the child, and the same from an
unprivileged caller."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from lexecutor_c import _core, run
from lexecutor_c.engine import sandbox
from lexecutor_c.engine.sandbox import ConfinementError, Limits, call_isolated

pytestmark = pytest.mark.skipif(not hasattr(_core, "sandbox_fork"),
                                reason="this build has no confinement")
FAST = Limits(timeout=5)
ROOT = os.geteuid() == 0


# ------------------------------------------------------ sandbox_fork: bad input

@pytest.mark.parametrize("kwargs, exc", [
    (dict(), TypeError),                                          # required missing
    (dict(required="userns"), TypeError),                         # a str, not a collection
    (dict(required=("nope",)), ValueError),
    (dict(required=(1,)), ValueError),
    (dict(required=(), optional=("bogus",)), ValueError),
    (dict(required=(), simulate_missing=5), TypeError),
    (dict(required=(), readonly=("relative/path",)), ValueError),
    (dict(required=(), readonly=("/",)), ValueError),
    (dict(required=(), readonly=("/usr/../etc",)), ValueError),
    (dict(required=(), readonly=("/no/such/path/xyz",)), FileNotFoundError),
    (dict(required=(), readonly=(b"/usr",)), TypeError),
    (dict(required=(), readonly=("/us\0r",)), ValueError),
    (dict(required=(), readonly=5), TypeError),
    (dict(required=(), links=(("/bin",),)), TypeError),
    (dict(required=(), links=(("bin", "usr/bin"),)), ValueError),
    (dict(required=(), stdio=(1, 2)), TypeError),
    (dict(required=(), stdio=(-5, 1, 2)), ValueError),
    (dict(required=(), keep_fds=("x",)), TypeError),
    (dict(required=(), keep_fds=(-3,)), ValueError),
    (dict(required=(), environ={"A=B": "x"}), ValueError),
    (dict(required=(), environ={"": "x"}), ValueError),
    (dict(required=(), environ={"A": 1}), TypeError),
    (dict(required=(), environ=[("A", "b")]), TypeError),
    (dict(required=(), tmp_size=10), ValueError),
    (dict(required=(), uid=-7), ValueError),
    (dict(required=(), rundir="/var/run-here"), ValueError),
    (dict(required=(), rundir="/tmp/a/b"), ValueError),
    (dict(required=(), hostdir="relative"), ValueError),
])
def test_sandbox_fork_refuses_bad_arguments_without_forking(kwargs, exc):
    before = _children()
    with pytest.raises(exc):
        _core.sandbox_fork(**kwargs)
    assert _children() == before                                # no child was made


def _children():
    me = str(os.getpid())
    out = set()
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open(f"/proc/{e}/stat", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if data[data.rfind(b")") + 2:].split()[1].decode() == me:
                out.add(int(e))
    return out


def test_sandbox_fork_takes_keywords_only():
    with pytest.raises(TypeError):
        _core.sandbox_fork(("userns",))


@pytest.mark.skipif(not ROOT, reason="the root path")
def test_root_must_name_the_unprivileged_id():
    with pytest.raises(ValueError, match="unprivileged uid"):
        _core.sandbox_fork(required=("userns",))


def test_sandbox_probe():
    p = _core.sandbox_probe()
    assert set(p) == {"landlock_abi", "seccomp"}
    assert isinstance(p["landlock_abi"], int) and p["landlock_abi"] >= 0
    assert p["seccomp"] is None or isinstance(p["seccomp"], str)


# ------------------------------------------------------ fail closed / opt down

@pytest.fixture
def missing(monkeypatch):
    """Make layers look absent from the kernel (sandbox_fork simulates ENOSYS)."""
    def set_(*layers):
        monkeypatch.setattr(sandbox, "_SIMULATE_MISSING", tuple(layers))
    return set_


@pytest.mark.parametrize("layer", sandbox.LAYERS)
def test_a_missing_layer_fails_closed(missing, layer, tmp_path):
    missing(layer)
    marker = tmp_path / "ran"
    with pytest.raises(ConfinementError) as info:
        call_isolated(marker.write_text, "x", limits=FAST)
    assert info.value.layer == layer
    assert f"allow_missing={{'{layer}'}}" in str(info.value)
    assert "--allow-missing-layers" in str(info.value)
    assert not marker.exists()                                  # nothing ran
    with pytest.raises(ConfinementError):
        run("x = 1\n", timeout=5)


@pytest.mark.parametrize("layer", sandbox.LAYERS)
def test_an_allowed_missing_layer_is_skipped_and_reported(missing, layer):
    missing(layer)
    out = call_isolated(os.getuid, limits=Limits(timeout=5, allow_missing={layer}))
    assert out.ok, out
    assert layer not in out.isolation["layers"]
    assert "simulated" in out.isolation["skipped"][layer]
    others = set(sandbox.LAYERS) - {layer}
    assert others <= set(out.isolation["layers"])
    r = run("x = foo\n", timeout=5, allow_missing=[layer])
    assert r.status == "ok" and layer in r.isolation["skipped"]


def test_allow_missing_all_and_bad_values(missing):
    missing("landlock", "seccomp")
    out = call_isolated(int, limits=Limits(timeout=5, allow_missing="all"))
    assert out.ok and set(out.isolation["skipped"]) == {"landlock", "seccomp"}
    with pytest.raises(ValueError, match="unknown layer"):
        call_isolated(int, limits=Limits(allow_missing={"landlok"}))
    with pytest.raises(TypeError):
        call_isolated(int, limits=Limits(allow_missing=3))
    with pytest.raises(ValueError, match="unknown layer"):
        call_isolated(int, limits=Limits(layers={"userns", "pidz"}))


def test_layers_can_be_switched_off_explicitly():
    out = call_isolated(os.getcwd, limits=Limits(timeout=5, layers={"pidns", "netns"}))
    assert out.ok and sorted(out.isolation["layers"]) == ["netns", "pidns"]
    assert out.value.startswith("/tmp/lexecutor_c-")            # no mount namespace: host dir


def test_capabilities_after_a_simulated_absence(missing):
    missing("landlock")
    caps = sandbox.capabilities(refresh=True)
    try:
        assert caps["landlock"]["available"] is False and not caps["landlock"]["used"]
        assert "simulated" in caps["landlock"]["why"]
        assert "MISSING: landlock" in sandbox.describe_capabilities(caps)
    finally:
        missing()
        sandbox.capabilities(refresh=True)


# ------------------------------------------------------ what each layer does

def _inside():
    import socket
    res = {"uid": os.getuid(), "pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(),
           "home": os.environ.get("HOME"), "tmpdir": os.environ.get("TMPDIR"),
           "env": sorted(os.environ), "procs": sorted(int(p) for p in os.listdir("/proc")
                                                       if p.isdigit())}
    with open("/proc/self/status") as f:
        status = dict(line.split(":", 1) for line in f if ":" in line)
    res["nnp"] = status["NoNewPrivs"].strip()
    res["seccomp"] = status["Seccomp"].strip()
    res["capeff"] = status["CapEff"].strip()
    res["fds"] = sorted(int(x) for x in os.listdir("/proc/self/fd"))
    for name, fn in (("write_usr", lambda: open("/usr/lx-probe", "w")),
                     ("write_tmp", lambda: open("/tmp/lx-probe", "w").write("x")),
                     ("write_cwd", lambda: open("here", "w").write("x")),
                     ("read_etc_passwd", lambda: open("/etc/passwd").read(1)),
                     ("list_root", lambda: os.listdir("/")),
                     ("netlink", lambda: socket.socket(16, socket.SOCK_RAW, 0)),
                     ("unshare", lambda: os.unshare(0x10000000) if hasattr(os, "unshare")
                      else __import__("ctypes").CDLL(None, use_errno=True).unshare(0x10000000)
                      and (_ for _ in ()).throw(PermissionError("unshare failed")))):
        try:
            fn()
            res[name] = "ok"
        except OSError as e:
            res[name] = type(e).__name__
    return res


def test_inside_the_default_sandbox(monkeypatch):
    monkeypatch.setenv("LX_TEST_API_TOKEN", "very-secret")
    out = call_isolated(_inside, limits=FAST)
    v = out.value
    assert v["uid"] != 0
    assert v["pid"] == 1 and v["ppid"] == 0 and v["procs"] == [1]
    assert v["cwd"] == v["home"] == v["tmpdir"] == sandbox.RUNDIR
    assert "LX_TEST_API_TOKEN" not in v["env"]
    assert set(v["env"]) <= set(sandbox.ENV_ALLOW) | {"HOME", "TMPDIR", "PWD"} | \
        {e for e in v["env"] if e.startswith("LC_")}
    assert v["nnp"] == "1" and v["seccomp"] == "2" and int(v["capeff"], 16) == 0
    assert v["fds"][:3] == [0, 1, 2] and len(v["fds"]) <= 5   # + the result pipe, listdir
    assert v["write_usr"] in ("OSError", "PermissionError")
    assert v["write_tmp"] == "ok" and v["write_cwd"] == "ok"
    assert v["read_etc_passwd"] == "ok"
    assert v["list_root"] == "PermissionError"                  # Landlock: no rule for /
    assert v["netlink"] == "OSError"
    assert v["unshare"] == "PermissionError"
    assert out.isolation["layers"] == list(sandbox.LAYERS)


def test_modules_not_loaded_yet_still_import():
    def f():
        import decimal
        import json.tool    # noqa: F401
        import xml.dom.minidom
        return str(decimal.Decimal("1.5")), xml.dom.minidom.parseString("<a/>").documentElement.tagName
    assert call_isolated(f, limits=FAST).value == ("1.5", "a")


def test_readable_adds_a_path(tmp_path):
    (tmp_path / "data.txt").write_text("hello")
    os.chmod(tmp_path, 0o755)                   # the child is another user (a root caller)
    p = str(tmp_path / "data.txt")
    out = call_isolated(lambda: open(p).read(), limits=FAST)
    assert out.status == "exception"
    out = call_isolated(lambda: open(p).read(), limits=Limits(timeout=5, readable=(tmp_path,)))
    assert out.value == "hello"


def test_env_adds_variables():
    out = call_isolated(os.environ.get, "LX_GIVEN", limits=Limits(timeout=5,
                                                                   env={"LX_GIVEN": "yes"}))
    assert out.value == "yes"
    with pytest.raises(ValueError):
        call_isolated(int, limits=Limits(env={"A=B": "x"}))


def test_private_tmp_is_bounded_by_disk():
    def fill():
        with open("/tmp/fill", "wb") as f:
            for _ in range(64):
                f.write(b"x" * (1 << 20))

    out = call_isolated(fill, limits=Limits(timeout=10, disk=4 << 20))
    assert out.status == "exception" and "No space left" in out.exc_message


# ------------------------------------------------------ an unprivileged caller

UNPRIVILEGED = textwrap.dedent("""
    import json, os, sys
    from lexecutor_c import run
    from lexecutor_c.engine import sandbox
    assert os.getuid() != 0
    caps = sandbox.capabilities()
    r = run("import os\\nprint(os.getuid(), os.getpid())\\nopen('/etc/x', 'w')\\n", timeout=5)
    print(json.dumps({"caps": {l: caps[l]["available"] for l in sandbox.LAYERS},
                      "status": r.status, "stdout": r.stdout, "exc": r.exception,
                      "layers": r.isolation.get("layers"), "uid": os.getuid()}))
""")


@pytest.mark.skipif(not ROOT or not shutil.which("setpriv") or not shutil.which("unshare"),
                    reason="needs root (to become nobody), setpriv and unshare")
def test_unprivileged_caller_gets_every_layer(tmp_path):
    """The same confinement for a caller that is not root: as nobody, with
    the Python installation made reachable (it may live under /root, 0700)."""
    import tempfile
    where = tempfile.mkdtemp(prefix="lx-unpriv-")
    os.chmod(where, 0o755)
    script = os.path.join(where, "probe.py")
    with open(script, "w") as f:
        f.write(UNPRIVILEGED)
    os.chmod(script, 0o644)
    try:
        _unprivileged(tmp_path, script)
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _unprivileged(tmp_path, script):
    import lexecutor_c
    prefix = os.path.realpath(sys.base_prefix)
    checkout = os.path.dirname(os.path.dirname(os.path.realpath(lexecutor_c.__file__)))
    # a private mount namespace where the installation's and the package's
    # ancestors are traversable: the first ancestor that others cannot enter
    # (/root, 0700; a checkout under mktemp -d, 0700) is covered by a tmpfs
    # into which the path itself is bound back
    covered: dict = {}
    for path in (prefix, checkout):
        parts = path.split("/")
        for i in range(2, len(parts) + 1):
            d = "/".join(parts[:i])
            if not os.stat(d).st_mode & 0o001:
                covered.setdefault(d, []).append(path)
                break
    steps = []
    for k, (blocker, paths) in enumerate(covered.items()):
        stage = tmp_path / f"stage{k}"
        stage.mkdir()
        steps.append(f"mount --no-canonicalize --bind {blocker} {stage} && "
                     f"mount -t tmpfs -o mode=755 lx {blocker}")
        steps += [f"mkdir -p {p} && mount --bind {stage}{p[len(blocker):]} {p}" for p in paths]
    shell = " && ".join(steps + [f"exec setpriv --reuid=65534 --regid=65534 --clear-groups "
                                 f"{sys.executable} {script}"])
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", shell],
                       capture_output=True, text=True, timeout=120,
                       env=dict({"PATH": os.environ["PATH"], "PYTHONPATH": checkout},
                                **{k: v for k, v in os.environ.items()    # make asan
                                   if k in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                            "PYTHONMALLOC", "LX_UNDER_ASAN")}))
    assert p.returncode == 0, p.stderr[-2000:]
    import json
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["uid"] == 65534
    assert all(got["caps"].values()), got["caps"]
    assert got["layers"] == list(sandbox.LAYERS)
    assert got["stdout"].split() == ["65534", "1"]             # its own id, init of its PID ns
    assert got["status"] == "exception" and "Read-only" in got["exc"]["message"]


# ------------------------------------------------------ the layers one by one

def _try_write(path):
    try:
        with open(path, "w") as f:
            f.write("x")
        return "written"
    except OSError as e:
        return type(e).__name__


def _try_read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        return type(e).__name__


@pytest.fixture
def open_dir():
    """A host directory anyone may write, with a file anyone may read: only
    a confinement layer can keep the child out."""
    import pathlib
    import tempfile
    d = pathlib.Path(tempfile.mkdtemp(prefix="lx-open-"))
    os.chmod(d, 0o777)
    (d / "public.txt").write_text("public")
    os.chmod(d / "public.txt", 0o644)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_landlock_alone_keeps_writes_and_reads_in(open_dir):
    lim = Limits(timeout=5, layers={"landlock"})
    out = call_isolated(_try_write, str(open_dir / "w.txt"), limits=lim)
    assert out.value == "PermissionError" and not (open_dir / "w.txt").exists()
    assert call_isolated(_try_read, str(open_dir / "public.txt"), limits=lim).value == \
        "PermissionError"
    assert call_isolated(_try_write, "here.txt", limits=lim).value == "written"  # its run dir
    # the same without Landlock: only that layer stood in the way
    lim = Limits(timeout=5, layers={"seccomp"})
    assert call_isolated(_try_read, str(open_dir / "public.txt"), limits=lim).value == "public"
    assert call_isolated(_try_write, str(open_dir / "w.txt"), limits=lim).value == "written"


def test_mount_namespace_alone_hides_the_host(open_dir):
    lim = Limits(timeout=5, layers={"mountns", "pidns"})
    assert call_isolated(_try_read, str(open_dir / "public.txt"), limits=lim).value == \
        "FileNotFoundError"
    assert call_isolated(_try_write, "/usr/lx-probe", limits=lim).value == "OSError"


def _unshare_user():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.unshare(0x10000000), ctypes.get_errno()


def test_seccomp_alone_refuses_new_namespaces():
    import errno
    r, err = call_isolated(_unshare_user, limits=Limits(timeout=5, layers={"seccomp"})).value
    assert (r, err) == (-1, errno.EPERM)
    r, err = call_isolated(_unshare_user, limits=Limits(timeout=5, layers={"landlock"})).value
    assert r == 0                      # an unprivileged process may, without the filter
