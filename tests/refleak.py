"""Reference-leak check of the C entry points.

Each entry point is called in rounds of many calls; after every round the
process is measured: the interpreter's total reference count
(sys.gettotalrefcount, debug builds only), allocated memory blocks
(sys.getallocatedblocks), live gc-tracked objects, memory traced by
tracemalloc and the resident set size (which also sees plain malloc, e.g.
tree-sitter trees that are never freed).  After warm-up rounds, growth in
*every* measured round above a per-call threshold is a leak.  A deliberately
leaking canary runs first: if it is not caught, the checker itself is broken.

    python tests/refleak.py                 # all entry points; exit 1 on a leak
    python tests/refleak.py -k instrument   # only those whose name contains it
    python tests/refleak.py --list          # the entry points and which exist

New entry points: write a function that makes one call (expected exceptions
caught) and decorate it with @entry_point("name", needs=...); ``needs`` names
the attribute(s) whose absence skips it (the part is not built yet).  Public
callables of lexecutor_c._core that no case names are listed as uncovered.
"""
import argparse
import gc
import os
import sys
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

WARMUP = 2
ROUNDS = 5
# growth per call that counts as a leak, in every measured round
PER_CALL = {"refs": 0.1, "blocks": 0.1, "gc objects": 0.1, "traced bytes": 8.0, "rss bytes": 64.0}
# ... and at least this much per round (RSS moves in pages, allocators in arenas)
FLOOR = {"refs": 10, "blocks": 10, "gc objects": 10, "traced bytes": 4096, "rss bytes": 65536}

CASES = []


def entry_point(name, needs=(), calls=2000):
    """Register a one-call function as the leak case *name*."""
    def deco(fn):
        CASES.append({"name": name, "fn": fn, "needs": (needs,) if isinstance(needs, str) else needs,
                      "calls": calls})
        return fn
    return deco


def _core():
    import lexecutor_c._core as core
    return core


def _has(path):
    """`path` like "lexecutor_c.instrument" or "_core.Runtime" exists."""
    import lexecutor_c
    obj = {"lexecutor_c": lexecutor_c, "_core": _core()}
    head, *rest = path.split(".")
    cur = obj[head]
    for part in rest:
        if not hasattr(cur, part):
            return False
        cur = getattr(cur, part)
    return True


# -- the cases -----------------------------------------------------------------

VALID = '''\
import os, sys as s
from collections import OrderedDict as OD
class C(Base, metaclass=M):
    __slots__ = ("a",)
    x = y
    def m(self, a, /, b=1, *c, d, **e):
        global g
        for i in range(a):
            if i % 2: continue
            try:
                yield self.__p(i, *c, **e)
            except (KeyError, ValueError) as err:
                raise RuntimeError(f"{err!r:>{b}}") from err
        return [z.w for z in c if z]
async def h():
    async with a as b:
        await b.c()
match q:
    case P(x=0) | [1, *_]: del q
    case _: pass
lambda k=v: k.attr
'''
with open(os.__file__, "rb") as _f:
    STDLIB_FILE = _f.read()


def _instrument():
    import lexecutor_c
    return lexecutor_c.instrument


@entry_point("canary (leaks on purpose)", calls=2000)
def canary(_sink=[]):
    _sink.append(object())


@entry_point("instrument(str)", needs="lexecutor_c.instrument")
def instrument_str():
    _instrument()(VALID)


@entry_point("instrument(bytes, filename=)", needs="lexecutor_c.instrument")
def instrument_bytes():
    _instrument()(VALID.encode(), filename="leak.py")


@entry_point("instrument(os.py) + all fields (IidInfo, LineInfo)", needs="lexecutor_c.instrument",
             calls=50)
def instrument_big():
    r = _instrument()(STDLIB_FILE, filename=os.__file__)
    r.source, r.iids, r.lines, r.line_map  # noqa: B018 - attribute getters are entry points too
    if r.iids:
        repr(r.iids[0])


@entry_point("Instrumented.compile()", needs="lexecutor_c.instrument", calls=300)
def instrument_compile():
    _instrument()(VALID).compile("leak.py")


@entry_point("instrument(syntax error)", needs="lexecutor_c.instrument")
def instrument_syntax_error():
    try:
        _instrument()("def f(:\n    x = (\n")
    except SyntaxError:
        pass


@entry_point("instrument(bad bytes)", needs="lexecutor_c.instrument")
def instrument_bad_bytes():
    try:
        _instrument()(b"x = '\xff\xfe\x80'\n")
    except (SyntaxError, UnicodeDecodeError, ValueError):
        pass


@entry_point("instrument(bad types)", needs="lexecutor_c.instrument")
def instrument_bad_types():
    inst = _instrument()
    for args, kw in (((123,), {}), ((None,), {}), (("x = 1",), {"filename": 5}),
                     (("x = 1",), {"nope": 1}), ((), {})):
        try:
            inst(*args, **kw)
        except TypeError:
            pass


def _runtime_loaders(predictor="as-is"):
    return _core().Runtime(predictor=predictor).loaders()


_RT = {}


def _rt(predictor="as-is"):
    """A long-lived runtime and its loaders; reset per call (a run's records
    grow by design and would read as a leak)."""
    if predictor not in _RT:
        rt = _core().Runtime(predictor=predictor)
        _RT[predictor] = (rt, rt.loaders())
    rt, ld = _RT[predictor]
    rt.reset()
    return ld


@entry_point("Runtime(...).loaders()", needs="_core.Runtime", calls=500)
def runtime_create():
    _runtime_loaders()
    _runtime_loaders("naive")


@entry_point("_n_ present / missing", needs="_core.Runtime")
def runtime_names():
    ld = _rt()
    ld["_n_"](1, "x", lambda: 42)
    ld["_n_"](2, "x", lambda: 42, {"x": 1})
    try:
        ld["_n_"](3, "nope", lambda: nope)  # noqa: F821 - missing on purpose
    except NameError:
        pass


@entry_point("_n_ missing, injected (naive)", needs="_core.Runtime")
def runtime_names_injected():
    ld = _rt("naive")
    ld["_n_"](3, "nope", lambda: nope)  # noqa: F821 - missing on purpose
    ld["_n_"](4, "nope", lambda: nope, {})  # noqa: F821


@entry_point("_a_ present / missing", needs="_core.Runtime")
def runtime_attrs():
    ld = _rt()
    ld["_a_"](4, os, "sep")
    try:
        ld["_a_"](5, os, "no_such_attribute")
    except AttributeError:
        pass


@entry_point("_a_ / _c_ missing, injected (naive)", needs="_core.Runtime")
def runtime_attrs_injected():
    ld = _rt("naive")
    value = ld["_a_"](5, os, "no_such_attribute")
    ld["_c_"](6, value, 1, k=2)


@entry_point("_c_ args / kwargs / raising", needs="_core.Runtime")
def runtime_calls():
    ld = _rt()
    ld["_c_"](6, max, 1, 2, key=abs)
    ld["_c_"](7, dict, iid=1, fn=2)
    try:
        ld["_c_"](8, int, "not a number")
    except ValueError:
        pass


@entry_point("_l_ / _l_(value)", needs="_core.Runtime")
def runtime_lines():
    ld = _rt()
    ld["_l_"](9)
    ld["_l_"](10, "v")


@entry_point("_i_ present / missing", needs="_core.Runtime")
def runtime_imports():
    ld = _rt()
    ld["_i_"](11, "os.path", 0, None)
    ld["_i_"](12, "os", 0, ("path", "sep"))
    try:
        ld["_i_"](13, "no_such_module_for_refleak", 0, ("a",))
    except ImportError:  # as-is: imports fail as written
        pass
    _rt("naive")["_i_"](14, "no_such_module_for_refleak", 0, ("a", "b"))
    sys.modules["lx_blocked_for_refleak"] = None    # blocked on purpose: propagates
    try:
        _rt("naive")["_i_"](15, "lx_blocked_for_refleak.sub", 0, ("a",))
    except ImportError:
        pass
    finally:
        del sys.modules["lx_blocked_for_refleak"]


@entry_point("abstract / concretize (every class)", needs="_core.concretize", calls=200)
def values_roundtrip():
    core = _core()
    for fine, classes in ((True, core.FINE_CLASSES), (False, core.COARSE_CLASSES)):
        for cls in classes:
            v = core.concretize(cls, name="x")
            core.abstract(v, fine)
            core.concretize(cls, randomize=True, seed=3, name="y")


@entry_point("Dummy / DummyResource use", needs="_core.Dummy", calls=500)
def dummy_use():
    core = _core()
    for d in (core.Dummy("d"), core.DummyResource("r")):
        d.attr.call(1, k=2)[0]
        d + 1, 1 - d, d == d, d < 1, bool(d), len(d), str(d), repr(d), hash(d)
        for _ in d:
            break
        (a, b), *rest, c = d        # unpacking: the width read from the frame's code
        with d as inner:
            inner.x = 1


@entry_point("callable predictor (PredictorQuery, PredictorError)", needs="_core.Runtime",
             calls=1000)
def callable_predictor(_state={}):
    core = _core()
    if "ok" not in _state:
        _state["ok"] = core.Runtime(predictor=lambda q: "int_pos")
        _state["bad"] = core.Runtime(predictor=lambda q: 1 / 0)
        _state["ld"] = {k: (rt, rt.loaders()) for k, rt in _state.items() if k in ("ok", "bad")}
    for key, (rt, ld) in _state["ld"].items():
        rt.reset()
        try:
            ld["_n_"](1, "missing", lambda: missing)  # noqa: F821 - missing on purpose
        except core.PredictorError:
            pass


HOOKED = """
def add(a, b=2, *args, k=3, **kw):
    return a + b + k + len(args) + len(kw)

def boom(n):
    if n == 0:
        raise KeyError(n)
    return boom(n - 1)

def gen(n):
    yield from range(n)

class K:
    def m(self, x):
        return [x] * 2
"""


@entry_point("transparent mode: _hook_install/_uninstall, twin calls (frames replaced, "
             "dropped), _hook_info/_hook_entry", needs="_core._hook_install", calls=300)
def hook_twin_calls(_state={}):
    import lexecutor_c.integrations.hook as hook
    if "mod" not in _state:
        import importlib
        import tempfile
        d = tempfile.mkdtemp(prefix="lx-refleak-")
        with open(os.path.join(d, "lx_refleak_hooked.py"), "w") as f:
            f.write(HOOKED)
        sys.path.insert(0, d)
        _state["mod"] = importlib.import_module("lx_refleak_hooked")
    m = _state["mod"]
    with hook.enable([m.add, m.boom, m.gen, m.K]):
        m.add(1, 2, 3, 4, k=5, z=6)
        try:
            m.boom(5)
        except KeyError:
            pass
        list(m.gen(3))
        m.K().m(1)
        _core()._hook_info()
        _core()._hook_entry(m.add.__code__)


@entry_point("_w_ / _f_ loop guards (quiet, busy, bounded, errors)", needs="_core.Runtime",
             calls=500)
def loop_guards(_state={}):
    core = _core()
    if "rt" not in _state:
        _state["rt"] = core.Runtime(predictor="naive", loop_bound=2)
        _state["ld"] = _state["rt"].loaders()
    rt, ld = _state["rt"], _state["ld"]
    rt.reset()
    ld["_w_"](1, True)                         # nothing injected: the fast path
    ld["_f_"](2, [1, 2])
    d = ld["_n_"](3, "missing", lambda: missing)  # noqa: F821 - missing on purpose
    while ld["_w_"](4, d):                     # busy: ends after 2 iterations
        d.x
    for _ in ld["_f_"](5, [d] * 100):          # ends after 2 * 32 busy items
        d.y
    for bad in ((), (1,), ("x", True), (-1, True)):
        for loader in ("_w_", "_f_"):
            try:
                ld[loader](*bad)
            except (TypeError, ValueError):
                pass
    try:
        ld["_f_"](6, 3)
    except TypeError:
        pass
    rt.reset()
    for _ in ld["_w_"](7):                     # while True, quiet: stopped by break
        break
    ld["_n_"](3, "missing", lambda: missing)  # noqa: F821
    for _ in ld["_w_"](8):                     # while True, busy: bounded
        d.z


@entry_point("recording with unique=True (events kept, repeats dropped, reset)",
             needs="_core.Runtime", calls=500)
def record_unique(_state={}):
    core = _core()
    if "rt" not in _state:
        _state["rt"] = core.Runtime(predictor="as-is", record=True, unique=True)
        _state["ld"] = _state["rt"].loaders()
    rt, ld = _state["rt"], _state["ld"]
    rt.reset()
    for v in (1, -1, 1, "s", [1]):
        ld["_n_"](1, "v", lambda: v)
        ld["_a_"](2, v, "__class__")
        ld["_c_"](3, len, [v])
        ld["_c_"](4000, abs, 1)                # a site past the table: no name
    assert len(rt.events) >= 4


@entry_point("use-site constraints (hook, factory, cache, errors); Runtime.concretize",
             needs="_core.Runtime", calls=300)
def use_site_constraints(_state={}):
    core = _core()
    from lexecutor_c.engine.runtime import Site
    if "ok" not in _state:
        sites = [Site(1, "name", "n", 1, "", "", ("arg", "range", 0)),
                 Site(2, "call", "f", 1, "", "", ("unpack", 2, False)),
                 Site(3, "name", "p", 1, "", "", ("percent", "'%s=%s'"))]
        _state["ok"] = core.Runtime(sites=sites, predictor="naive")
        _state["bad"] = core.Runtime(sites=sites, predictor="naive", constraints=lambda *a: 1)
        _state["raise"] = core.Runtime(sites=sites, predictor="naive",
                                       constraints=lambda *a: 1 / 0)
    for key in ("ok", "bad", "raise"):
        rt = _state[key]
        rt.reset()
        ld = rt.loaders()
        try:
            ld["_n_"](1, "n", lambda: n)  # noqa: F821 - missing on purpose
            f = ld["_n_"](4, "f", lambda: f)  # noqa: F821
            ld["_c_"](2, f)
            ld["_n_"](3, "p", lambda: p)  # noqa: F821
        except core.PredictorError:
            pass
        rt.concretize("list_nonempty", "x")
        try:
            rt.concretize("no such class")
        except ValueError:
            pass


# -- measuring -------------------------------------------------------------------

def _rss():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def snapshot():
    gc.collect()
    gc.collect()
    snap = {"blocks": sys.getallocatedblocks(), "gc objects": len(gc.get_objects()),
            "traced bytes": tracemalloc.get_traced_memory()[0], "rss bytes": _rss()}
    if hasattr(sys, "gettotalrefcount"):
        snap["refs"] = sys.gettotalrefcount()
    return snap


def measure(case, rounds=ROUNDS, warmup=WARMUP):
    """Per-metric growth of each measured round, and the metrics that leak."""
    fn, calls = case["fn"], case["calls"]
    gc.disable()
    try:
        before = snapshot()
        deltas = {k: [] for k in before}
        for r in range(warmup + rounds):
            for _ in range(calls):
                fn()
            after = snapshot()
            if r >= warmup:
                for k in deltas:
                    deltas[k].append(after[k] - before[k])
            before = after
    finally:
        gc.enable()
    leaks = [k for k, ds in deltas.items() if min(ds) > max(PER_CALL[k] * calls, FLOOR[k])]
    return deltas, leaks


def selected(cases, keyword):
    return [c for c in cases if not keyword or keyword in c["name"] or c["fn"] is canary]


def uncovered():
    """Public callables of _core whose name no case mentions."""
    try:
        core = _core()
    except ImportError:
        return []
    named = " ".join(c["name"] + " " + " ".join(c["needs"]) for c in CASES)
    return sorted(n for n in dir(core) if not n.startswith("_") and callable(getattr(core, n))
                  and n not in named)


def render(rows):
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        for r in rows:
            print(" | ".join(str(v) for v in r))
        return
    table = Table(title="Reference-leak check: growth per round, min..max over "
                        f"{ROUNDS} rounds after {WARMUP} warm-up")
    for col in ("entry point", "calls/round", "refs", "blocks", "gc objects", "traced KiB",
                "RSS KiB", "verdict"):
        table.add_column(col, justify="left" if col in ("entry point", "verdict") else "right")
    for r in rows:
        table.add_row(*r)
    Console(width=max(120, Console().width)).print(table)


def _fmt(ds, scale=1):
    """min..max of the per-round growth."""
    if ds is None:
        return "-"
    lo, hi = min(ds) / scale, max(ds) / scale
    return f"{lo:+.0f}" if lo == hi else f"{lo:+.0f}..{hi:+.0f}"



_SB_BAD = [
    dict(), dict(required="userns"), dict(required=("nope",)), dict(required=(), optional=(1,)),
    dict(required=(), readonly=("relative",)), dict(required=(), readonly=("/no/such/xyz",)),
    dict(required=(), readonly=(b"/usr",)), dict(required=(), links=(("/bin",),)),
    dict(required=(), links=(("/bin", 3),)), dict(required=(), keep_fds=("x",)),
    dict(required=(), environ={"A=B": "x"}), dict(required=(), environ={"A": 1}),
    dict(required=(), rundir="/tmp/a/b"), dict(required=(), hostdir="x"),
    dict(required=(), tmp_size=1), dict(required=(), stdio=(1, 2)),
]


@entry_point("sandbox_fork bad arguments, sandbox_probe", needs="_core.sandbox_fork", calls=300)
def sandbox_fork_errors():
    core = _core()
    for kw in _SB_BAD:
        try:
            core.sandbox_fork(**kw)
        except (TypeError, ValueError, OSError):
            pass
    core.sandbox_probe()


@entry_point("sandbox_fork: a confined child (all layers)", needs="_core.sandbox_fork",
             calls=60)
def sandbox_fork_child():
    core = _core()
    uid = (65534, 65534) if os.geteuid() == 0 else (-1, -1)
    pid, info = core.sandbox_fork(
        required=("userns", "pidns", "mountns", "netns", "ipcns", "landlock", "seccomp"),
        readonly=("/usr", "/etc", sys.base_prefix, os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))), links=(("/lib", "usr/lib"),),
        environ={"PATH": "/usr/bin"}, uid=uid[0], gid=uid[1])
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


@entry_point("Runtime.attach_journal / detach_journal (and refusals)",
             needs="_core.Runtime.attach_journal", calls=1000)
def runtime_journal():
    from lexecutor_c.engine import journal
    rt, ld = _RT.get("journal") or _RT.setdefault("journal", (_core().Runtime(predictor="naive"),
                                                              None))
    mm = _JOURNAL.setdefault("mm", journal.create(64, 4096))
    rt.attach_journal(mm)
    rt.reset()
    loaders = rt.loaders()
    loaders["_l_"](5)
    loaders["_n_"](3, "missing_xyz", lambda: missing_xyz)  # noqa: F821
    loaders["_i_"](4, "no_such_module_for_refleak", 0, ("a",))
    journal.read(mm)
    rt.detach_journal()
    for bad in (42, b"LXJ1", bytearray(8)):
        try:
            rt.attach_journal(bad)
        except (TypeError, ValueError, BufferError):
            pass


_JOURNAL = {}


@entry_point("llm_chat errors (bad arguments, connection refused), LLMError",
             needs="lexecutor_c._core.llm_chat", calls=200)
def llm_chat_errors():
    from lexecutor_c import _core
    try:
        _core.llm_chat(base_url="http://127.0.0.1:1/v1", api_key="k", model="m",
                       messages=[{"role": "user", "content": "x"}], timeout=2.0,
                       connect_timeout=1.0, max_retries=0)
    except _core.LLMError as e:
        e.kind, e.status, e.attempts  # noqa: B018 - attribute getters
    try:
        _core.llm_chat(base_url="http://127.0.0.1:1/v1", model="m", messages="not a list")
    except (TypeError, ValueError, _core.LLMError):
        pass

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", dest="keyword", help="only entry points whose name contains this")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    args = ap.parse_args(argv)

    cases = selected(CASES, args.keyword)
    if args.list:
        for c in cases:
            ok = all(_has(n) for n in c["needs"])
            print(f"{c['name']:40s} {'available' if ok else 'not built: ' + ', '.join(c['needs'])}")
        return 0
    tracemalloc.start()
    rows, leaked, skipped, canary_caught = [], [], [], False
    for c in cases:
        missing = [n for n in c["needs"] if not _has(n)]
        if missing:
            skipped.append(f"{c['name']} (no {', '.join(missing)})")
            continue
        deltas, leaks = measure(c, rounds=args.rounds)
        if c["fn"] is canary:
            canary_caught = bool(leaks)
            verdict = "caught (expected)" if leaks else "NOT CAUGHT: checker broken"
        else:
            verdict = ("LEAK: " + ", ".join(leaks)) if leaks else "ok"
            if leaks:
                leaked.append(c["name"])
        rows.append((c["name"], str(c["calls"]), _fmt(deltas.get("refs")), _fmt(deltas["blocks"]),
                     _fmt(deltas["gc objects"]), _fmt(deltas["traced bytes"], 1024),
                     _fmt(deltas["rss bytes"], 1024), verdict))
    render(rows)
    if not hasattr(sys, "gettotalrefcount"):
        print("refs: sys.gettotalrefcount needs a debug build; blocks, gc objects, "
              "tracemalloc and RSS stand in")
    for s in skipped:
        print(f"skipped: {s}")
    for n in uncovered():
        print(f"uncovered: lexecutor_c._core.{n} has no leak case (add one with @entry_point)")
    if not canary_caught:
        print("FAIL: the canary leak was not detected")
        return 2
    if leaked:
        print(f"FAIL: leaks in {', '.join(leaked)}")
        return 1
    ran = len(rows) - 1
    print(f"no leak in {ran} entry point(s)" if ran else "no entry point is built yet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
