"""lexecutor_c.training.collect on a tiny offline 'sdist' (no network)."""
import io
import json
import os
import tarfile

import pytest

from lexecutor_c.engine.runtime import load_frequency_table, read_events
from lexecutor_c.model.training import collect
from lexecutor_c.model.training import dataset as ds

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FILES = {
    "tinyproj-1.0/src/tinyproj/__init__.py":
        "def words(text):\n    parts = text.split()\n    return [p.upper() for p in parts]\n",
    "tinyproj-1.0/tests/test_tiny.py":
        "from tinyproj import words\n\ndef test_words():\n"
        "    assert words('a b') == ['A', 'B']\n",
}


def make_sdist(path):
    with tarfile.open(path, "w:gz") as tf:
        for name, text in FILES.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


def test_collect_offline_end_to_end(tmp_path, monkeypatch):
    data = tmp_path / "data"
    (data / "sdists").mkdir(parents=True)
    make_sdist(data / "sdists" / "tinyproj-1.0.tar.gz")
    monkeypatch.setenv("PYTHONPATH", ROOT)
    table = tmp_path / "freq.json.gz"
    rc = collect.main(["--data", str(data), "--projects", "tinyproj", "--stdlib", "",
                       "--offline", "--table", str(table), "--heldout", "tinyproj"])
    assert rc == 0
    events = read_events(data / "events" / "tinyproj.jsonl.gz")
    files = {e.file for e in events}
    assert files == {"src/tinyproj/__init__.py", "tests/test_tiny.py"}
    by = {(e.name, e.kind): e.cls for e in events}
    assert by[("split", "call")] == "list_nonempty"
    assert by[("words", "call")] == "list_nonempty"
    assert by[("upper", "attribute")] == "callable"
    manifest = json.loads((data / "manifest.json").read_text())
    assert manifest["runs"][0]["returncode"] == 0
    info = manifest["dataset"]
    assert info["examples"] == len(ds.read_examples(data / "dataset" / "all.jsonl.gz"))
    assert info["proj_test"] == info["examples"] and info["proj_train"] == 0
    counts, meta = load_frequency_table(table, with_meta=True)
    assert counts["split"] == {"callable": 1, "list_nonempty": 1}   # attribute + call
    assert meta["projects"] == ["tinyproj"]


def test_collect_refuses_benchmark_projects(tmp_path, capsys):
    with pytest.raises(SystemExit) as ei:
        collect.main(["--data", str(tmp_path), "--projects", "attrs,Flask", "--offline"])
    assert ei.value.code == 2
    assert "benchmark projects" in capsys.readouterr().err


def test_topk_frequency():
    exs = [ds.Example("n", "name", "", "", "int_pos", "p"),
           ds.Example("n", "name", "", "", "int_zero", "p"),
           ds.Example("unknown", "name", "", "", "object", "p")]
    table = {"n": {"int_pos": 3, "int_zero": 1}}
    assert collect.topk_frequency(table, exs) == {"top1": 0.6667, "top3": 1.0, "top5": 1.0}
    assert collect.topk_frequency(table, exs, coarse=True)["top1"] == 1.0
