"""The neural value predictor: tokenizer, training, export, the LibTorch shim,
predictor='neural'; and the frequency table helpers."""
import json
import os
import random
import subprocess
import sys
import zipfile

import pytest

from lexecutor_c import _core
from lexecutor_c.model.neural import (NeuralModel, NeuralPredictor, NeuralUnavailable, Tokenizer,
                                TokenizerConfig, fnv1a, word_features)
from lexecutor_c.engine.runtime import (coarse_class, load_frequency_table, save_frequency_table,
                                 write_events)
from lexecutor_c.model.training import dataset as ds

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# `make asan` builds without the shim and keeps LibTorch out of the
# sanitized process (LibTorch is not built for ASan)
UNDER_ASAN = bool(os.environ.get("LX_UNDER_ASAN"))
try:
    if UNDER_ASAN:
        raise ImportError("LibTorch is not loaded under AddressSanitizer")
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False
try:
    if UNDER_ASAN:
        raise ImportError("no shim under AddressSanitizer")
    from lexecutor_c import _torch_shim  # noqa: F401
    HAVE_SHIM = True
except ImportError:
    HAVE_SHIM = False

PY = f"{sys.version_info[0]}.{sys.version_info[1]}"
NO_TORCH = (f"torch is not installed for Python {PY} (this machine has a torch 2.13.0 build for "
            "3.11 only; elsewhere: pip install torch==2.13.0)")
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason=NO_TORCH)
needs_shim = pytest.mark.skipif(not (HAVE_TORCH and HAVE_SHIM),
                                reason=NO_TORCH if not HAVE_TORCH else
                                "lexecutor_c._torch_shim not built (needs torch at build time)")


# ---------------------------------------------------------------- tokenizer

def test_fnv1a_known_values():
    assert fnv1a(b"") == 0x811C9DC5
    assert fnv1a(b"a") == 0xE40C292C


def test_word_features():
    f = word_features(b"getHTTPResponse_code", 12)
    assert f[0] == b"w:getHTTPResponse_code"
    assert f[1:5] == [b"s:get", b"s:http", b"s:response", b"s:code"]
    assert f[5] == b"g:^ge" and len(f) == 12
    assert word_features(b"x", 12) == [b"w:x", b"g:^x$"]
    assert word_features(b"(", 12) == [b"w:(", b"g:^($"]
    assert word_features(b"Name", 12)[1] == b"s:name"     # one piece, differs in case
    assert not any(x.startswith(b"s:") for x in word_features(b"name", 12))
    assert word_features(b"a" * 100, 3)[0] == b"w:" + b"a" * 32


def test_tokenizer_layout_and_errors():
    cfg = TokenizerConfig(buckets=1000, max_len=10, max_feats=4, ctx=3)
    tok = Tokenizer(cfg)
    rows = tok.encode("x", "name", "a b c d", "e f g h")
    # name, kind, 3 before, mask, 3 after
    assert len(rows) == 9
    assert rows[2] == tok.word_ids(b"b") and rows[6] == tok.word_ids(b"e")
    assert all(1 <= i < 1000 for r in rows for i in r)
    assert rows[5] == tok.encode("y", "call", "", "")[2]          # the <mask> position
    padded = tok.encode_padded("x", "name", "", "")
    assert len(padded) == 10 and all(len(r) == 4 for r in padded) and padded[-1] == [0] * 4
    with pytest.raises(ValueError, match="empty input"):
        tok.encode("", "name", "", "")
    with pytest.raises(ValueError, match="kind"):
        tok.encode("x", "bogus", "", "")
    cfg2, fine, coarse = TokenizerConfig.from_text(cfg.to_text(["a", "b"], ["c"]))
    assert (cfg2.buckets, cfg2.max_len, cfg2.max_feats, cfg2.ctx) == (1000, 10, 4, 3)
    assert fine == ["a", "b"] and coarse == ["c"]
    with pytest.raises(ValueError):
        TokenizerConfig.from_text("something else")


# ---------------------------------------------------------------- dataset

def ev(name, cls, kind="name", before="a =", after="+ 1", file="f.py", iid=1):
    return (name, cls, kind, file, 1, iid, before, after)


def test_examples_dedup_cap_and_splits(tmp_path):
    p1 = tmp_path / "proja.jsonl.gz"
    p2 = tmp_path / "projb.events.gz"
    write_events(p1, [ev("x", "int_pos"), ev("x", "int_pos", iid=2), ev("x", "None"),
                      ev("y", "callable", kind="attribute")] +
                 [ev("z", "str_nonempty", before=f"t{i}") for i in range(10)])
    write_events(p2, [ev("x", "int_pos"), ev("w", "dict_empty", kind="call")])
    stats = {}
    exs = ds.examples_from_events([str(p1), str(p2)], cap=4, stats=stats)
    assert stats == {"events": 16, "duplicates": 2, "capped": 6,
                     "per_project_events": {"proja": 14, "projb": 2},
                     "per_project_capped": {"proja": 6, "projb": 0}}
    assert [e.project for e in exs].count("projb") == 1
    assert sum(e.name == "z" for e in exs) == 4
    train, test = ds.random_split(exs, 0.5, seed=1)
    assert sorted(train + test) == sorted(exs)
    assert ds.random_split(exs, 0.5, seed=1) == (train, test)          # deterministic
    ptrain, ptest = ds.project_split(exs, ["projb"])
    assert [e.name for e in ptest] == ["w"]
    path = tmp_path / "x.jsonl.gz"
    ds.write_examples(path, exs)
    assert ds.read_examples(path) == exs
    table = ds.class_counts(exs)
    assert table["x"] == {"int_pos": 1, "None": 1}


# ---------------------------------------------------------------- frequency table

def test_frequency_table_round_trip_and_runtime(tmp_path):
    path = tmp_path / "t.json.gz"
    table = {"has_min_size": {"callable": 3, "object": 1}, "n": {"int_pos": 2}}
    save_frequency_table(path, table, {"note": "test"})
    first = path.read_bytes()
    save_frequency_table(path, table, {"note": "test"})
    assert path.read_bytes() == first                               # reproducible bytes
    loaded, meta = load_frequency_table(path, with_meta=True)
    assert loaded == table and meta == {"note": "test"}
    rt = _core.Runtime(predictor="frequency", frequency_table=loaded)
    g = {**rt.loaders()}
    assert callable(eval("_n_(1, 'has_min_size', lambda: has_min_size)", g))
    with pytest.raises(ValueError, match="unknown class"):
        save_frequency_table(path, {"x": {"bogus": 1}})
    (tmp_path / "bad.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="not a frequency table"):
        load_frequency_table(tmp_path / "bad.gz")
    with pytest.raises(FileNotFoundError):
        load_frequency_table(tmp_path / "missing.gz")


def test_shipped_frequency_table_loads():
    table, meta = load_frequency_table(with_meta=True)
    assert len(table) > 1000 and meta["examples"] > 10000
    assert len(meta["projects"]) >= 8
    best = lambda n: max(table[n], key=table[n].get)                 # noqa: E731
    assert best("len") == "int_pos"
    assert best("isinstance") == "True" or best("isinstance") == "False"
    assert best("append") in ("callable", "None")


def test_coarse_class():
    assert [coarse_class(c) for c in ("True", "int_neg", "str_empty", "dict_nonempty",
                                       "resource", "object", "None")] == \
        ["bool", "int", "str", "dict", "resource", "object", "None"]
    with pytest.raises(ValueError):
        coarse_class("bogus")


# ---------------------------------------------------------------- lazy loading

@needs_shim
def test_import_and_runtime_creation_load_no_torch():
    code = ("import sys, lexecutor_c\n"
            "from lexecutor_c import _core\n"
            "rt = _core.Runtime(predictor='neural')\n"
            "print(repr(rt.predictor), 'torch' in sys.modules,"
            " 'lexecutor_c._torch_shim' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["neural", "False", "False"]


@pytest.fixture
def without_torch(monkeypatch):
    """Make this interpreter look like one without torch and without a shim
    (as Python 3.12/3.13 are here), whatever it has."""
    import importlib.util
    from lexecutor_c.model import neural
    real = importlib.util.find_spec

    def find_spec(name, *a, **k):
        if name == "torch" or name.startswith("torch.") or name.endswith("_torch_shim"):
            return None
        return real(name, *a, **k)
    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.setattr(neural, "_default", None)


def test_neural_without_torch_fails_at_once(without_torch):
    from lexecutor_c import run
    msg = f"torch is not installed for this Python \\({PY}\\)"
    with pytest.raises(NeuralUnavailable, match=msg):
        _core.Runtime(predictor="neural")
    # run() raises in the caller, before a child is started
    with pytest.raises(NeuralUnavailable, match=msg):
        run("x = foo()\n", predictor="neural", isolate=True)
    # the other predictors are unaffected
    assert run("x = foo()\n", predictor="naive", isolate=False).status == "ok"


@pytest.mark.skipif(HAVE_SHIM or UNDER_ASAN, reason="this interpreter has the shim (under "
                    "ASan: hidden from the tests only): test_neural_without_torch_fails_at_once "
                    "covers the message")
def test_cli_without_torch_says_so(tmp_path):
    (tmp_path / "snippet.py").write_text("x = foo()\nprint(x)\n")
    p = subprocess.run([sys.executable, "-m", "lexecutor_c", "run", "--predictor", "neural",
                        str(tmp_path / "snippet.py")],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    if HAVE_TORCH:      # torch without a shim (a build with LX_NO_TORCH=1)
        assert "_torch_shim is not built" in p.stderr
    else:
        assert f"torch is not installed for this Python ({PY})" in p.stderr


def test_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(NeuralUnavailable, match="does not exist"):
        NeuralModel(str(tmp_path / "nope.pt"))
    pred = NeuralPredictor(str(tmp_path / "nope.pt"))
    rt = _core.Runtime(predictor=pred)
    with pytest.raises(_core.PredictorError) as ei:
        exec("_n_(1, 'x', lambda: x)", rt.loaders())
    assert isinstance(ei.value.__cause__, NeuralUnavailable)


def test_shim_missing_message(monkeypatch):
    import builtins
    from lexecutor_c.model import neural
    real = builtins.__import__

    def fake(name, globals=None, locals=None, fromlist=(), level=0):
        if fromlist and "_torch_shim" in fromlist:
            raise ImportError("simulated: no shim")
        return real(name, globals, locals, fromlist, level)
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(NeuralUnavailable, match="torch"):
        neural.load_shim()


# ---------------------------------------------------------------- training + shim

def synthetic_events(n=600, seed=0):
    rng = random.Random(seed)
    rows = []
    kinds = [("is_{}", "True", "call"), ("is_{}", "callable", "name"), ("count_{}", "int_pos", "name"),
             ("{}_name", "str_nonempty", "attribute"), ("{}s", "list_nonempty", "name"),
             ("on_{}", "callable", "attribute"), ("{}_map", "dict_nonempty", "name")]
    words = ["user", "item", "file", "node", "row", "key", "page", "task"]
    for i in range(n):
        pat, cls, kind = kinds[i % len(kinds)]
        name = pat.format(rng.choice(words) + str(rng.randrange(50)))
        before = " ".join(rng.choice(["x", "=", "(", ")", "if", "self", "."]) for _ in range(6))
        rows.append((name, cls, kind, "syn.py", i, i + 1, before, ": pass"))
    return rows


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    if not (HAVE_TORCH and HAVE_SHIM):
        pytest.skip("torch / lexecutor_c._torch_shim not available")
    d = tmp_path_factory.mktemp("model")
    write_events(d / "syn.jsonl.gz", synthetic_events())
    out = d / "tiny.pt2"
    p = subprocess.run([sys.executable, "-m", "lexecutor_c", "train", "--events",
                        str(d / "syn.jsonl.gz"), "--out", str(out), "--max-steps", "60", "--epochs", "100",
                        "--dim", "32", "--heads", "2", "--ff", "64", "--layers", "1",
                        "--buckets", "4096", "--batch-size", "64", "--lr", "5e-3",
                        "--threads", "1", "--seed", "3", "--checkpoint", str(d / "tiny.ckpt")],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    return out, report


@needs_shim
def test_train_reports_and_exports(tiny_model):
    out, report = tiny_model
    assert report["steps"] == 60 and report["train"] + report["test"] == report["examples"]
    assert set(report["test_metrics"]["fine"]) == {"top1", "top3", "top5"}
    assert report["test_metrics"]["fine"]["top1"] > 0.5         # separable synthetic data
    assert os.path.getsize(out) == report["model_bytes"]


@needs_shim
def test_shim_tokenizer_matches_python(tiny_model):
    out, _ = tiny_model
    m = NeuralModel(str(out))
    info = m.info
    tok = Tokenizer(TokenizerConfig(info["buckets"], info["max_len"], info["max_feats"],
                                    info["ctx"]))
    rng = random.Random(5)
    alphabet = "aZ_9 .(\t\u00e9\u4e2d\"'x\u2028\u3000-"
    cases = [("getHTTPResponse", "call", "self . conn .", "( ) . status"),
             ("x", "name", "", ""), ("é_ü", "attribute", "a\u00a0b", "c\u3000d"),
             ("A" * 50, "name", " ".join(["w"] * 40), " ".join(["v"] * 40))]
    for _ in range(200):
        rnd = lambda n: "".join(rng.choice(alphabet) for _ in range(rng.randrange(n)))  # noqa
        cases.append((rnd(12) or "n", rng.choice(["name", "attribute", "call"]), rnd(60),
                      rnd(60)))
    for name, kind, before, after in cases:
        assert m.tokenize(name, kind, before, after) == tok.encode(name, kind, before, after)


@needs_shim
def test_shim_predictions_and_errors(tiny_model, tmp_path):
    out, _ = tiny_model
    m = NeuralModel(str(out))
    top = m.predict("is_valid", "call", "if x .", ": pass", k=5)
    assert len(top) == 5 and all(c in _core.FINE_CLASSES for c, _ in top)
    probs = [p for _, p in top]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1.0001
    assert top[0][0] == "True"
    assert m.predict("count_rows", "name", "x =", "+ 1", k=1)[0][0] == "int_pos"
    ctop = m.predict("is_valid", "call", "", "", k=3, coarse=True)
    assert len(ctop) == 3 and all(c in _core.COARSE_CLASSES for c, _ in ctop)
    assert len(m.predict("x", "name", k=100)) == len(_core.FINE_CLASSES)
    with pytest.raises(ValueError, match="empty input"):
        m.predict("", "name")
    with pytest.raises(ValueError, match="kind"):
        m.predict("x", "subscript")
    with pytest.raises(ValueError, match="k must be"):
        m.predict("x", "name", k=0)
    with pytest.raises(TypeError):
        m.predict(3, "name")
    bad = tmp_path / "corrupt.pt2"
    bad.write_bytes(b"PK\x03\x04 this is not a model")
    with pytest.raises(ValueError, match="cannot load model"):
        NeuralModel(str(bad))
    # metadata is read before the package's library: packages that are not
    # ours, of another format or for another CPU are refused with a reason
    tok = TokenizerConfig(buckets=64, max_len=5, max_feats=2, ctx=1).to_text(
        list(_core.FINE_CLASSES), list(_core.COARSE_CLASSES))
    cases = [({"AOTI_CPU_ISA": "AVX2"}, "not a lexecutor_c model"),
             ({"tokenizer.txt": tok, "lexecutor_c.format": "7"}, "model format 7"),
             ({"tokenizer.txt": "lexecutor_c.tokenizer 1\nbuckets x\n"}, "bad number"),
             ({"tokenizer.txt": tok, "AOTI_MACHINE": "x86_64",
               "AOTI_CPU_ISA": "AVX2 SOME_FUTURE_ISA"}, "this CPU lacks SOME_FUTURE_ISA"),
             ({"tokenizer.txt": tok, "AOTI_CPU_ISA": "AVX2"}, "cannot load model")]
    for i, (meta, msg) in enumerate(cases):
        fake = tmp_path / f"fake{i}.pt2"
        with zipfile.ZipFile(fake, "w") as z:
            z.writestr(f"fake{i}/data/aotinductor/model/x.wrapper_metadata.json",
                       json.dumps(meta))
            z.writestr(f"fake{i}/archive_format", "pt2")
        with pytest.raises(ValueError, match=msg):
            NeuralModel(str(fake))


@needs_shim
def test_runtime_neural_predictor_end_to_end(tiny_model):
    out, _ = tiny_model
    code = ("import lexecutor_c as lx\n"
            "src = 'if is_ready_user3():\\n    n = count_user4 + 1\\n'\n"
            "inst = lx.instrument(src)\n"
            "from lexecutor_c import _core\n"
            "for abstraction in ('fine', 'coarse'):\n"
            "    rt = _core.Runtime(sites=inst.iids, predictor='neural', abstraction=abstraction)\n"
            "    g = {**rt.loaders(), '__name__': '__main__'}\n"
            "    exec(inst.compile(), g)\n"
            "    print(abstraction, g['n'], [i[4] for i in rt.injections])\n")
    env = dict(os.environ, LEXECUTOR_C_MODEL=str(out))
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "fine 2 ['callable', 'True', 'int_pos']"
    assert lines[1] == "coarse 2 ['callable', 'bool', 'int']"


@needs_torch
def test_training_is_reproducible(tmp_path):
    import torch
    from lexecutor_c.model.training.train import train
    write_events(tmp_path / "syn.jsonl.gz", synthetic_events(200))
    kw = dict(seed=7, max_steps=5, dim=16, heads=2, ff=16, layers=1, buckets=512,
              batch_size=32, threads=1, log=lambda m: None, do_export=False)
    out = str(tmp_path / "unused.pt2")

    def weights(name):
        return torch.load(str(tmp_path / name), weights_only=True)["state_dict"]
    r1 = train([str(tmp_path / "syn.jsonl.gz")], out, checkpoint=str(tmp_path / "a.ckpt"), **kw)
    r2 = train([str(tmp_path / "syn.jsonl.gz")], out, checkpoint=str(tmp_path / "b.ckpt"), **kw)
    a, b = weights("a.ckpt"), weights("b.ckpt")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert r1["test_metrics"] == r2["test_metrics"]
    assert not os.path.exists(out)
    kw["seed"] = 8
    train([str(tmp_path / "syn.jsonl.gz")], out, checkpoint=str(tmp_path / "c.ckpt"), **kw)
    c = weights("c.ckpt")
    assert not all(torch.equal(a[k], c[k]) for k in a)
    with pytest.raises(FileNotFoundError):
        train([str(tmp_path / "missing.jsonl.gz")], out, **kw)


@pytest.mark.slow
@needs_shim
def test_checkpoint_exports_again_to_the_same_model(tiny_model, tmp_path):
    """--from-checkpoint compiles the saved weights again: the same answers."""
    out, report = tiny_model
    again = tmp_path / "again.pt2"
    p = subprocess.run([sys.executable, "-m", "lexecutor_c", "train", "--from-checkpoint",
                        str(out.parent / "tiny.ckpt"), "--out", str(again)],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["test_metrics"] == report["test_metrics"]
    m1, m2 = NeuralModel(str(out)), NeuralModel(str(again))
    for name, kind, before, after in [("is_valid", "call", "if x .", ": pass"),
                                      ("count_rows", "name", "x =", "+ 1"), ("q", "name", "", "")]:
        assert m1.predict(name, kind, before, after, k=22) == \
            m2.predict(name, kind, before, after, k=22)
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(b"not a checkpoint")
    p = subprocess.run([sys.executable, "-m", "lexecutor_c", "train", "--from-checkpoint",
                        str(bad), "--out", str(tmp_path / "x.pt2")],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 2 and "not a checkpoint" in p.stderr


@needs_shim
def test_shipped_model_predicts_sensibly():
    from lexecutor_c.model.neural import MODEL_FILE
    if not os.path.exists(MODEL_FILE):
        pytest.skip("no shipped model")
    assert os.path.getsize(MODEL_FILE) < 30 * 2 ** 20
    m = NeuralModel(MODEL_FILE)
    assert m.predict("len", "call", "n =", "( items )", k=1)[0][0] in ("int_pos", "int_zero")
    assert m.predict("append", "attribute", "out .", "( x )", k=1)[0][0] == "callable"
    assert m.predict("isinstance", "call", "if", "( x , int ) :", k=2, coarse=True)[0][0] == "bool"


def test_next_use_filter_keeps_classes_that_survive_the_next_use():
    from lexecutor_c.model.neural import fit_next_use
    ranked = [("int_pos", 0.5), ("list_nonempty", 0.3), ("callable", 0.2)]
    # called next: only a callable (or an object) survives
    assert fit_next_use(ranked, "name", "( a )") == [("callable", 0.2)]
    # indexed next
    assert fit_next_use(ranked, "attribute", "[ 0 ]") == [("list_nonempty", 0.3)]
    # a call's value is indexed after its (nested) argument list
    assert fit_next_use(ranked, "call", "( a , ( b ) ) [ 0 ]") == [("list_nonempty", 0.3)]
    # the right operand of `in`: a container; none in the top k -> object
    assert fit_next_use([("int_pos", 0.9)], "name", ": pass", "for x in") == ["object"]
    # anything else: the model's ranking as it is
    assert fit_next_use(ranked, "name", ") + 1", "f (") == ranked


@needs_torch
def test_training_on_a_dataset_directory(tmp_path):
    """--dataset: the project-disjoint split collect wrote (docs/MODEL.md)."""
    from lexecutor_c.model.training.train import train
    write_events(tmp_path / "syn.jsonl.gz", synthetic_events(120))
    exs = ds.examples_from_events([str(tmp_path / "syn.jsonl.gz")])
    d = tmp_path / "dataset"
    d.mkdir()
    ds.write_examples(str(d / "train.jsonl.gz"), exs[:100])
    ds.write_examples(str(d / "test.jsonl.gz"), [e._replace(project="held") for e in exs[100:]])
    info = {"format": "lexecutor_c.dataset", "version": 1, "events": 120,
            "heldout_projects": ["held"]}
    (d / "dataset.json").write_text(json.dumps(info))
    kw = dict(max_steps=2, dim=16, heads=2, ff=16, layers=1, buckets=512, batch_size=32,
              threads=1, log=lambda m: None, do_export=False)
    r = train([], str(tmp_path / "unused.pt2"), dataset=str(d), **kw)
    assert (r["train"], r["test"]) == (100, len(exs) - 100)
    assert r["split"]["kind"] == "project" and r["split"]["heldout"] == ["held"]
    assert r["test_metrics"]["n"] == len(exs) - 100
    # the frequency baseline per kind too, on the same test examples
    fb = r["frequency_baseline"]
    assert sum(v["n"] for v in fb["per_kind"].values()) == len(exs) - 100
    assert set(fb["per_kind"]) == {"name", "attribute", "call"}
    assert set(fb["per_kind"]["call"]["fine"]) == {"top1", "top3", "top5"}
    (d / "dataset.json").write_text(json.dumps({**info, "version": 9}))
    with pytest.raises(ValueError, match="not a lexecutor_c.dataset version 1"):
        train([], str(tmp_path / "unused.pt2"), dataset=str(d), **kw)
    with pytest.raises(FileNotFoundError, match="no dataset.json"):
        train([], str(tmp_path / "unused.pt2"), dataset=str(tmp_path), **kw)


@needs_shim
@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_run_loads_the_model_once_before_forking(tiny_model):
    """run(predictor="neural") loads the model in the calling process (its
    children inherit it) and leaves no LibTorch thread behind to fork."""
    out, _ = tiny_model
    code = ("import os, lexecutor_c\n"
            "from lexecutor_c.model import neural\n"
            "p = neural.runtime_predictor()\n"
            "assert p._model is None\n"
            "r = lexecutor_c.run('if is_ready_user3():\\n    n = count_user4 + 1\\n',"
            " predictor='neural')\n"
            "print(r.status, [i['cls'] for i in r.injections])\n"
            "print(p._model is not None, len(os.listdir('/proc/self/task')))\n")
    env = dict(os.environ, LEXECUTOR_C_MODEL=str(out))
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    first, second = p.stdout.splitlines()
    assert first == "ok ['callable', 'True', 'int_pos']"
    assert second == "True 1"


def test_frequency_baseline_counts_per_kind():
    """train's report: the frequency table of the train part ranks a test
    name's classes by count, overall and per kind (hand-counted)."""
    from lexecutor_c.model.training.train import frequency_baseline
    E = ds.Example
    train_ex = [E("x", "name", "", "", "int_pos", "p")] * 3 + \
        [E("x", "name", "", "", "str_nonempty", "p"), E("f", "call", "", "", "None", "p")]
    test_ex = [E("x", "name", "", "", "int_pos", "q"), E("x", "name", "", "", "str_nonempty", "q"),
               E("f", "call", "", "", "None", "q"), E("g", "call", "", "", "object", "q")]
    fb = frequency_baseline(train_ex, test_ex)
    assert fb["per_kind"]["name"]["n"] == 2 and fb["per_kind"]["name"]["fine"]["top1"] == 0.5
    assert fb["per_kind"]["name"]["fine"]["top3"] == 1.0
    # f is known (None); g is not: object first
    assert fb["per_kind"]["call"]["fine"]["top1"] == 1.0
    assert fb["per_kind"]["attribute"] == {"n": 0, "fine": {"top1": 0.0, "top3": 0.0, "top5": 0.0},
                                          "coarse": {"top1": 0.0, "top3": 0.0, "top5": 0.0}}
    assert fb["fine"]["top1"] == 0.75


@needs_shim
def test_shipped_model_runs_figure1_as_the_paper_describes():
    """`make demo`: LExecutor's Figure 1 under predictor='neural' with the
    shipped model -- has_min_size a callable returning True, all_data a
    non-empty list, config_str a non-empty string, logger.info a callable
    returning None, and the lines the paper runs (all but the raise)."""
    from lexecutor_c.cli.demo import example_path, figure1_matches
    from lexecutor_c.model.neural import MODEL_FILE
    if not os.path.exists(MODEL_FILE):
        pytest.skip("no shipped model")
    import lexecutor_c
    r = lexecutor_c.run(example_path(), predictor="neural")
    got = figure1_matches(r)
    assert got == {"has_min_size": True, "all_data": True, "config_str": True, "logger": True,
                   "lines_run": [1, 4, 6], "coverage": True}, r.injections
    assert r.status == "ok" and r.exception is None
