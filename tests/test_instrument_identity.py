"""The identity check of benchmarks/instrument_identity.py tells same from different."""
import gzip
import json

from benchmarks import instrument_identity as ident


def test_fingerprint_covers_every_part_and_variant():
    fp = ident.fingerprint(b"import os\nx = os.sep\nprint(y)\n")
    assert set(fp) == {"elide", "noelide"}
    for variant in fp.values():
        assert set(variant) == set(ident.PARTS)
    # elide=False wraps reads that elide=True leaves alone: the sources differ
    same = ident.fingerprint(b"def f(a):\n    return a\n")
    assert same["elide"]["source"] != same["noelide"]["source"]


def test_fingerprint_records_errors():
    fp = ident.fingerprint(b"def f(:\n")
    assert fp["elide"]["error"].startswith("SyntaxError")


def test_compare_counts_and_names_the_difference():
    a = {"x.py": ident.fingerprint(b"x = 1\n"), "y.py": ident.fingerprint(b"y = z\n"),
         "gone.py": ident.fingerprint(b"\n")}
    b = dict(a)
    b["y.py"] = ident.fingerprint(b"y = zz\n")          # a different undefined name
    del b["gone.py"]
    b["new.py"] = a["x.py"]
    same, diff, missing, new, report = ident.compare(a, b)
    assert (same, diff, missing, new) == (1, 1, ["gone.py"], ["new.py"])
    assert "y.py" in report[0] and "source" in report[0] and "undefined" in report[0]


def test_main_save_then_compare(tmp_path, monkeypatch, capsys):
    files = [tmp_path / "a.py", tmp_path / "b.py"]
    files[0].write_text("import os\nos.getcwd()\n")
    files[1].write_text("print(q)\n")
    monkeypatch.setattr(ident, "files", lambda: [str(f) for f in files])
    saved = tmp_path / "fp.json.gz"
    assert ident.main(["--save", str(saved), "--workers", "1"]) == 0
    assert len(json.load(gzip.open(saved, "rt"))["files"]) == 2
    assert ident.main(["--compare", str(saved), "--workers", "1"]) == 0
    assert "identical: 2  different: 0" in capsys.readouterr().out
    files[1].write_text("print(r)\n")
    assert ident.main(["--compare", str(saved), "--workers", "1"]) == 1
    out = capsys.readouterr().out
    assert "identical: 1  different: 1" in out and "b.py" in out
