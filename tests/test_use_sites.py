"""Use-site constraints (issue 14, item 2): the instrumenter records how each
value is used (IidInfo.use), the runtime asks the constraint hook when it
injects at such a site, whatever the predictor (docs/RUNTIME.md)."""
import os

import pytest

import lexecutor_c
from lexecutor_c import _core
from lexecutor_c.engine.runtime import Site
from lexecutor_c.knowledge import inject


def uses(src):
    """{(kind, name): use} of every value site (the last one per key)."""
    return {(s.kind, s.name): s.use for s in lexecutor_c.instrument(src).iids
            if s.kind in ("name", "attribute", "call")}


# ---------------------------------------------------------------- the instrumenter

def test_call_arguments_name_callee_and_key():
    u = uses("range(n)\nos.path.join(base, leaf)\n', '.join(parts)\nopen(file=p)\n"
             "isinstance(x, T)\n'{:.2f}'.format(val)\nself.rng.randint(0, hi)\nf(*a, b)\n")
    assert u[("name", "n")] == ("arg", "range", 0)
    assert u[("name", "base")] == ("arg", "os.path.join", 0)
    assert u[("name", "leaf")] == ("arg", "os.path.join", 1)
    assert u[("name", "parts")] == ("arg", "str.join", 0, "', '")
    assert u[("name", "p")] == ("arg", "open", "file")
    assert u[("name", "T")] == ("arg", "isinstance", 1)
    assert u[("name", "val")] == ("arg", "str.format", 0, "'{:.2f}'")
    assert u[("name", "hi")] == ("arg", "self.rng.randint", 1)
    assert u[("name", "b")] is None                   # after *a: position unknown
    assert u[("name", "a")] == ("iter", 0, False)


def test_callee_that_is_no_dotted_name_gives_no_use():
    u = uses("get()(x)\nitems[0](y)\nf'{a}'.join(z)\n")
    assert u[("name", "x")] is None and u[("name", "y")] is None and u[("name", "z")] is None


def test_iteration_and_unpacking_widths():
    u = uses("for k, v in d.items():\n    pass\nfor (x) in xs:\n    pass\n"
             "for y, in ys:\n    pass\nfor a, *b in zs:\n    pass\n"
             "p, q = f()\n[r, s] = g()\nt = h()\nw = [m for m, n in pairs]\n")
    assert u[("call", "items")] == ("iter", 2, False)
    assert u[("attribute", "items")] == ("call",)
    assert u[("name", "xs")] == ("iter", 0, False)
    assert u[("name", "ys")] == ("iter", 1, False)
    assert u[("name", "zs")] == ("iter", 1, True)
    assert u[("call", "f")] == ("unpack", 2, False)
    assert u[("call", "g")] == ("unpack", 2, False)
    assert u[("call", "h")] is None
    assert u[("name", "pairs")] == ("iter", 2, False)


def test_format_subscript_and_statement_uses():
    src = ("s = '%s=%s' % pair\nt = f'{w:>5} {v!r}'\nq = cfg['key'] + lst[-1]\nbox[0] = 1\n"
           "with lock:\n    pass\ntry:\n    pass\nexcept (E1, E2):\n    pass\n"
           "except E3 as e:\n    pass\nif k not in seen:\n    pass\nif ch in '-_':\n    pass\n")
    u = uses(src)
    assert u[("name", "pair")] == ("percent", "'%s=%s'")
    assert u[("name", "w")] == ("format", ">5")
    assert u[("name", "v")] is None                     # no format spec
    assert u[("name", "cfg")] == ("subscript", "'key'", False)
    assert u[("name", "lst")] == ("subscript", "-1", False)
    assert u[("name", "box")] == ("subscript", "0", True)
    assert u[("name", "lock")] == ("with",)
    assert u[("name", "E1")] == u[("name", "E2")] == u[("name", "E3")] == ("except",)
    assert u[("name", "seen")] == ("contains",)
    assert u[("name", "k")] is None
    assert u[("name", "ch")] == ("in", "'-_'")


def test_use_is_an_attribute_not_part_of_the_tuple():
    info = lexecutor_c.instrument("range(n)\n").iids[0]
    assert len(tuple(info)) == 11 and info.use == ("arg", "range", 0)
    iid, kind, name, *_ = info
    assert (kind, name) == ("name", "n")


def test_loops_are_guarded_but_async_for_and_comprehensions_are_not():
    src = ("while x:\n    pass\nfor i in range(3):\n    pass\nys = [y for y in zs]\n"
           "async def f():\n    async for a in b:\n        pass\n")
    out = lexecutor_c.instrument(src).source
    assert "while _w_(2, (" in out and "for i in _f_(" in out
    assert "async for a in _f_" not in out and "for y in _f_" not in out
    compile(out, "<x>", "exec")


# ---------------------------------------------------------------- the hook

def _hook(use, cls="object", value=None, name="x"):
    if value is None:
        value = _core.concretize(cls, name=name)
    return inject.runtime_hook(use, value, cls, "name", name)


def _make(answer, rt=None):
    rt = rt or _core.Runtime()
    if isinstance(answer, str):
        return rt.concretize(answer, "x")
    return answer(rt)


def test_hook_keeps_values_that_fit():
    assert _hook(("arg", "range", 0), "int_pos", 3) is None
    assert _hook(("arg", "len", 0)) is None                 # a Dummy has len() 1
    assert _hook(("iter", 0, False)) is None
    assert _hook(("iter", 2, False), value=[(1, 2)]) is None
    assert _hook(("unpack", 1, False)) is None              # a Dummy iterates one item
    assert _hook(("percent", "'%s'"), value="a") is None
    assert _hook(("call",)) is None
    assert _hook(("arg", "no.such.callee", 0)) is None
    assert _hook(("no such use",)) is None and _hook(()) is None


def test_hook_replaces_values_that_do_not_fit(tmp_path):
    assert _make(_hook(("arg", "range", 0))) == 3
    assert _make(_hook(("arg", "len", 0), "int_pos", 1)) != 1
    pairs = _make(_hook(("iter", 2, False)))
    assert len(pairs) == 1 and len(pairs[0]) == 2 and all(type(v) is _core.Dummy
                                                           for v in pairs[0])
    a, b, c = _make(_hook(("unpack", 3, False)))
    assert "=" in "%s=%s" % _make(_hook(("percent", "'%s=%s'")))
    assert ", ".join(_make(_hook(("arg", "str.join", 0, "', '"))))
    assert isinstance(_make(_hook(("arg", "isinstance", 1))), type)
    assert format(_make(_hook(("format", ".2f"), "str_nonempty", "a")), ".2f")
    assert type(_make(_hook(("subscript", "'k'", False), "list_nonempty", [1]))) is _core.Dummy
    assert callable(_make(_hook(("call",), "int_pos", 1)))
    assert hasattr(type(_make(_hook(("with",), "int_pos", 1))), "__enter__")
    assert _make(_hook(("except",))) is Exception
    assert _make(_hook(("in", "'-_'"))) == "-"
    path = _make(_hook(("arg", "open", 0)))
    with open(path) as f:                               # a file that exists
        assert f.read()


def test_hook_paths_live_in_the_run_folder_when_sandboxed():
    r = lexecutor_c.run("import os\nf = open(p)\nprint(os.path.isabs(p), "
                        "os.path.exists(os.path.join(os.getcwd(), p)))\n", timeout=10)
    assert r.status == "ok" and r.stdout.split() == ["False", "True"]   # relative, in cwd
    r = lexecutor_c.run("import os\nf = open(p)\nprint(os.path.isabs(p))\n", isolate=False)
    assert r.status == "ok" and r.stdout.split() == ["True"]   # in-process: a private folder


# ---------------------------------------------------------------- the runtime

def _run(src, **kw):
    inst = lexecutor_c.instrument(src)
    rt = _core.Runtime(sites=inst.iids, **kw)
    g = {"__name__": "__main__"}
    g.update(rt.loaders())
    exec(inst.compile(), g)
    return rt, g


@pytest.mark.parametrize("predictor", ["naive", "random", "frequency", "callable"])
def test_every_predictor_honours_the_uses(predictor):
    kw = {"predictor": predictor}
    if predictor == "frequency":
        kw["frequency_table"] = {"n": {"list_nonempty": 9}, "pair": {"int_pos": 3}}
    if predictor == "callable":
        kw["predictor"] = lambda q: "str_nonempty"
    src = ("total = 0\nfor i in range(n):\n    total += i\nsize = len(data)\n"
           "a, b = f()\nfor k, v in d.items():\n    pass\ns = '%s=%s' % pair\n"
           "j = ', '.join(parts)\nok = isinstance(obj, T)\nwith open(path) as fh:\n"
           "    text = fh.read()\n")
    rt, g = _run(src, **kw)
    assert isinstance(g["size"], int) and isinstance(g["j"], str)
    assert g["s"].count("=") == 1 and g["text"]
    assert all(u[3] is not None for u in rt.constraint_log)


def test_the_predictors_class_is_kept_when_it_fits():
    rt, g = _run("for i in range(n):\n    pass\nm = len(x)\n",
                 predictor=lambda q: "int_pos" if q.name == "n" else "list_nonempty")
    assert g["i"] == 0 and g["m"] == 1            # int 1, [Dummy]: untouched
    assert rt.constraint_log == []
    assert [c for (_, _, _, _, c, _) in rt.injections] == ["int_pos", "list_nonempty"]


def test_naive_range_gets_an_int_and_the_log_says_so():
    rt, g = _run("for i in range(n):\n    pass\n")
    assert g["i"] == 2
    (iid, kind, name, use, predicted, injected), = rt.constraint_log
    assert (kind, name, use, predicted, injected) == ("name", "n", ("arg", "range", 0),
                                                      "object", "int_pos")
    assert rt.injections[0][4] == "int_pos"


def test_the_hook_is_asked_once_per_site_and_class():
    calls = []

    def hook(use, value, cls, kind, name):
        calls.append((use, cls, kind, name))
        return "int_pos"
    sites = [Site(1, "call", "f", 1, "", "", ("arg", "range", 0))]
    rt = _core.Runtime(sites=sites, constraints=hook)
    f = _core.Dummy("f")
    ld = rt.loaders()
    assert [ld["_c_"](1, f) for _ in range(3)] == [1, 1, 1]
    assert calls == [(("arg", "range", 0), "object", "call", "f")]
    rt.reset()
    ld["_c_"](1, f)
    assert len(calls) == 2                         # a new run asks again


def test_hook_factory_gets_the_runtime_and_makes_fresh_values():
    sites = [Site(1, "call", "f", 1, "", "", ("iter", 0, False))]
    rt = _core.Runtime(sites=sites, constraints=lambda *a: lambda r: [r.concretize("object")])
    ld = rt.loaders()
    a, b = ld["_c_"](1, _core.Dummy()), ld["_c_"](1, _core.Dummy())
    assert a is not b and type(a[0]) is _core.Dummy
    a[0].attr                                     # belongs to rt: an injection is recorded
    assert rt.injections[-1][2] == "attr"


def test_constraints_off_and_sites_without_uses_never_call_the_hook():
    def hook(*a):
        raise AssertionError("called")
    rt = _core.Runtime(sites=[Site(1, "name", "n", 1, "", "", ("arg", "range", 0))],
                       constraints=False)
    assert type(rt.loaders()["_n_"](1, "n", lambda: n)) is _core.Dummy  # noqa: F821
    assert rt.constraints is False
    rt = _core.Runtime(sites=[Site(1, "name", "n")], constraints=hook)
    assert type(rt.loaders()["_n_"](1, "n", lambda: n)) is _core.Dummy  # noqa: F821
    rt = _core.Runtime(predictor="as-is", constraints=hook,
                       sites=[Site(1, "name", "n", 1, "", "", ("arg", "range", 0))])
    with pytest.raises(NameError):
        rt.loaders()["_n_"](1, "n", lambda: n)  # noqa: F821


@pytest.mark.parametrize("answer, cause", [(1, TypeError), ("no such class", ValueError)])
def test_bad_hook_answers_raise_predictor_error(answer, cause):
    rt = _core.Runtime(sites=[Site(1, "name", "n", 1, "", "", ("call",))],
                       constraints=lambda *a: answer)
    with pytest.raises(_core.PredictorError) as ei:
        rt.loaders()["_n_"](1, "n", lambda: n)  # noqa: F821
    assert isinstance(ei.value.__cause__, cause)


def test_raising_hook_and_factory_raise_predictor_error():
    site = [Site(1, "name", "n", 1, "", "", ("call",))]
    for hook in (lambda *a: 1 / 0, lambda *a: (lambda rt: 1 / 0)):
        rt = _core.Runtime(sites=site, constraints=hook)
        with pytest.raises(_core.PredictorError) as ei:
            rt.loaders()["_n_"](1, "n", lambda: n)  # noqa: F821
        assert isinstance(ei.value.__cause__, ZeroDivisionError)


def test_runtime_argument_errors():
    with pytest.raises(TypeError, match="constraints"):
        _core.Runtime(constraints=3)
    with pytest.raises(TypeError, match="use must be a tuple"):
        _core.Runtime(sites=[Site(1, "name", "n", 1, "", "", ["arg"])])
    rt = _core.Runtime()
    with pytest.raises(ValueError, match="unknown abstract value class"):
        rt.concretize("nope")
    with pytest.raises(TypeError):
        rt.concretize(3)
    with pytest.raises(TypeError):
        rt.concretize()
    assert rt.concretize("int_pos") == 1 and rt.concretize("object", "x").__class__ is _core.Dummy


def test_end_to_end_examples_of_the_issue():
    src = ("for i in range(n):\n    print(i)\nprint(len(x))\nwith open(p) as f:\n"
           "    print(f.readline().strip())\na, b = f2()\nfor k, v in d.items():\n"
           "    print('item')\nprint('%s=%s' % pair)\nprint(', '.join(parts))\n"
           "print(isinstance(y, T))\n")
    for predictor in ("naive", "random", "frequency"):
        r = lexecutor_c.run(src, predictor=predictor, timeout=10)
        assert r.status == "ok" and r.coverage == 1.0, (predictor, r.exception)
        assert "first line" in r.stdout and "item" in r.stdout


def test_files_are_not_overwritten(tmp_path, monkeypatch):
    monkeypatch.setattr(inject, "run_dir", lambda: str(tmp_path))
    (tmp_path / "data.txt").write_text("mine\n")
    p = _make(_hook(("arg", "open", 0)))
    assert open(p).read() == "mine\n" and os.path.dirname(p) == str(tmp_path)


def test_double_star_values_are_mappings_with_str_keys():
    u = uses("f(a, **kw)\nd = {**base, 'x': 1}\n")
    assert u[("name", "kw")] == ("kwargs",)
    assert u[("name", "base")] == ("kwargs",)
    assert _make(_hook(("kwargs",))) == {}
    assert _hook(("kwargs",), value={"a": 1}) is None
    # a Dummy unpacked into a real callable's keywords raised "keywords must
    # be strings" and ended the run at that line
    r = lexecutor_c.run("import textwrap\nout = textwrap.dedent('  a', **opts)\ndone = out\n",
                        predictor="naive")
    assert r.status == "ok" and r.covered == [1, 2, 3]
