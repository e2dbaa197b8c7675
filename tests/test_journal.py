"""The run journal (csrc/runtime/journal.c, lexecutor_c/engine/journal.py):
a run that dies -- segfault, hard timeout, os._exit past run()'s guard, a
SIGKILL -- still reports the lines it covered, its injections and its
output; the journal's C entry points refuse what is not a journal; the
parent's reader survives whatever the child wrote there."""
import mmap
import struct

import pytest

from lexecutor_c import _core, run
from lexecutor_c.engine import journal

Runtime = getattr(_core, "Runtime", None)
pytestmark = pytest.mark.skipif(Runtime is None or not hasattr(Runtime, "attach_journal"),
                                reason="this build has no journal")


# ---------------------------------------------------------------- end to end

def test_segfault_keeps_covered_lines_injections_and_output():
    r = run("import ctypes\nx = foo()\nprint('before', x)\nctypes.string_at(0)\nprint('after')\n",
            predictor="naive", timeout=5)
    assert r.status == "crashed" and r.signal == 11
    assert (r.covered_lines, r.total_lines) == (3, 5)
    assert r.covered == [1, 2, 3] and r.uncovered == [4, 5]
    assert [i["name"] for i in r.injections][:1] == ["foo"]
    assert r.injections[0]["line"] == 2 and r.injections[0]["value"] == "<Dummy 'foo'>"
    assert r.stdout.startswith("before <Dummy 'foo'>")


def test_while_loop_over_injected_objects_times_out_with_its_lines():
    # the torn-out function of the issue: the soft timeout cannot end it
    code = ("import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
            "count = 0\nwhile node is not None:\n    count += 1\n    node = node.next\n"
            "print(count)\n")
    r = run(code, predictor="naive", timeout=0.5)
    assert r.status == "timeout" and r.error == "timed out (hard)"
    assert r.total_lines == 7 and r.covered_lines == 6 and r.uncovered == [7]
    assert r.injections[0]["name"] == "node" and len(r.injections) > 10


def test_real_os_exit_keeps_lines():
    r = run("import posix\ny = bar.baz\nprint('bye')\nposix._exit(3)\nprint('no')\n",
            predictor="naive", timeout=5)
    assert r.status == "exit" and r.exit_code == 3
    assert r.covered == [1, 2, 3] and r.uncovered == [4, 5]   # a marker follows its statement
    assert r.stdout == "bye\n"
    assert [(i["kind"], i["name"]) for i in r.injections] == [("name", "bar"),
                                                              ("attribute", "baz")]


def test_failed_import_is_journaled():
    r = run("import ctypes\nimport no_such_mod_xyz\nfrom no_such_pkg_xyz import a, b\n"
            "ctypes.string_at(0)\n", predictor="naive", timeout=5)
    assert r.status == "crashed"
    mods = {f["module"]: f["names"] for f in r.failed_imports}
    assert mods == {"no_such_mod_xyz": None, "no_such_pkg_xyz": ["a", "b"]}


def test_a_finished_run_reports_the_same_with_or_without_journal():
    code = "a = foo()\nif a:\n    b = a.x\nprint(b)\n"
    r1 = run(code, predictor="naive", seed=1)
    r2 = run(code, predictor="naive", seed=1, isolate=False)
    for k in ("status", "covered", "uncovered", "injections"):
        assert getattr(r1, k) == getattr(r2, k), k


# ---------------------------------------------------------------- the C side

def test_attach_refuses_what_is_not_a_journal():
    rt = Runtime(predictor="naive")
    with pytest.raises(TypeError):
        rt.attach_journal(42)
    with pytest.raises((TypeError, BufferError)):
        rt.attach_journal(bytes(journal.create()))          # read-only
    with pytest.raises(ValueError, match="not a journal"):
        rt.attach_journal(bytearray(100))                    # no magic
    with pytest.raises(ValueError, match="not a journal"):
        rt.attach_journal(bytearray(10))                     # shorter than the header
    bad = bytearray(journal.create(64, 64))
    struct.pack_into("<Q", bad, 16, 1 << 40)                 # bitmap larger than the buffer
    with pytest.raises(ValueError, match="not a journal"):
        rt.attach_journal(bad)
    mm = journal.create()
    rt.attach_journal(mm)
    with pytest.raises(RuntimeError, match="already"):
        rt.attach_journal(mm)
    rt.detach_journal()
    rt.detach_journal()                                      # twice is fine
    mm.close()                                               # released: closable


def test_markers_and_injections_land_in_the_journal_and_survive_detach():
    mm = journal.create(bitmap_bytes=8, log_bytes=4096)
    rt = Runtime(predictor="naive")
    rt.attach_journal(mm)
    ld = rt.loaders()
    ld["_l_"](3)
    ld["_l_"](60)
    v = ld["_n_"](7, "missing_name_xyz", lambda: missing_name_xyz)  # noqa: F821
    j = journal.read(mm)
    assert j.reached == {3, 60} and not j.bits_overflow
    assert j.injections == [{"iid": 7, "kind": "name", "name": "missing_name_xyz",
                             "line": None, "cls": rt.injections[0][4], "value": repr(v)}]
    ld["_l_"](1000)                                          # past the 8-byte bitmap
    assert journal.read(mm).bits_overflow
    assert rt.reached() == [3, 60, 1000]
    rt.detach_journal()
    assert rt.reached() == [3, 60, 1000]
    rt.attach_journal(mm)
    rt.reset()                                               # a new run: empty journal
    assert rt.reached() == [] and journal.read(mm).injections == []
    assert not journal.read(mm).bits_overflow
    rt.detach_journal()
    mm.close()


def test_full_log_drops_records_and_says_so():
    mm = journal.create(bitmap_bytes=8, log_bytes=64)
    rt = Runtime(predictor="naive")
    rt.attach_journal(mm)
    for i in range(5):
        rt.loaders()["_n_"](i + 1, f"name_{i}", lambda: undefined_xyz)  # noqa: F821
    j = journal.read(mm)
    assert j.log_full and len(j.injections) < 5
    assert len(rt.injections) == 5                           # the run itself has all
    rt.detach_journal()
    mm.close()


def test_reader_survives_garbage():
    mm = journal.create(bitmap_bytes=8, log_bytes=256)
    assert journal.read(mm).injections == []
    # a record claiming to be longer than the log, then one of unknown type
    struct.pack_into("<Q", mm, 8, 256)
    struct.pack_into("<IBqq", mm, 40, 1 << 30, ord("I"), 1, 1)
    assert journal.read(mm).injections == []
    struct.pack_into("<IBqq", mm, 40, 21, ord("Z"), 1, 1)
    assert journal.read(mm).injections == []
    struct.pack_into("<IBqqI", mm, 40, 25, ord("I"), 1, 1, 1 << 31)   # string past the end
    assert journal.read(mm).injections == []
    mm[0:4] = b"XXXX"
    assert journal.read(mm) is None
    assert journal.read(b"") is None
    with pytest.raises(ValueError):
        journal.create(0, 10)
    mm.close()
