"""lexecutor_c.knowledge: the ecosystem index, its builder, the run-time
extension from site-packages, the use-site constraints, and the offline
Treefix generator's use of them (issue 14, items 1 and 2)."""
import importlib.util
import json
import os
import subprocess
import sys
import time

import pytest

from lexecutor_c.knowledge import build as kbuild
from lexecutor_c.knowledge import constraints as C
from lexecutor_c.knowledge import local as klocal
from lexecutor_c.knowledge.index import SHIPPED, KnowledgeIndex, load
from lexecutor_c.knowledge.resolve import candidate_imports, class_for_members, construct

HAS_PIL = importlib.util.find_spec("PIL") is not None


# ---------------------------------------------------------------- a tiny package

FAKE = {
    "shapes/__init__.py": ("from .core import Square, area\nfrom .util import *\n"
                           "import shapes.util as util\nVERSION = '1.0'\n__all__ = "
                           "['Square', 'area', 'VERSION', 'scale', 'util']\n"),
    "shapes/core.py": ("class Base:\n    def describe(self):\n        return 'base'\n"
                       "class Square(Base):\n    sides = 4\n"
                       "    def __init__(self, side=1):\n        self.side = side\n"
                       "    def grow(self, by):\n        self.side += by\n"
                       "    def shrink(self, by, *more):\n        pass\n"
                       "    @property\n    def perimeter(self):\n        return 4 * self.side\n"
                       "def area(shape, unit='cm'):\n    return shape.side ** 2\n"
                       "def _private():\n    pass\n"),
    "shapes/util.py": "__all__ = ['scale']\ndef scale(x, k=2):\n    return x * k\nLIMIT = 10\n",
    "shapes/tests/test_x.py": "def test_x():\n    pass\n",
    "app/main.py": ("import numpy as np\nimport numpy as np\nimport numpy as np\n"
                    "from shapes import Square\nfrom shapes import Square\n"
                    "from shapes import Square\nimport shapes\nimport shapes\n"),
}


def _write_tree(root, files):
    for rel, text in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)


@pytest.fixture()
def fake_index(tmp_path):
    src = tmp_path / "src"
    _write_tree(str(src), FAKE)
    projects = tmp_path / "projects.txt"
    projects.write_text(f"# a local folder\npath:{src}\n")
    out = tmp_path / "index.zip"
    rc = kbuild.main(["--projects", str(projects), "--out", str(out), "--no-stdlib",
                      "--cache", str(tmp_path / "cache")])
    assert rc == 0
    return load(str(out)), out


def test_build_command_on_a_fake_package(fake_index):
    idx, out = fake_index
    import zipfile
    with zipfile.ZipFile(out) as z:
        head = json.loads(z.read("index.json"))
        group = json.loads(z.read("m/shapes.json"))
        assert {"provides", "members", "class_list"} <= set(json.loads(z.read("reverse.json")))
    assert head["format"] == kbuild.FORMAT
    assert head["meta"]["modules"] == len(head["module_list"]) == len(group) + 1   # + app.main
    # tests/ folders are not indexed, private names are not
    assert not any("tests" in m for m in head["module_list"])
    assert "_private" not in group["shapes.core"]["n"]
    mod, name, e = idx.lookup("shapes.Square")
    assert (mod, name, e[0]) == ("shapes.core", "Square", "c")
    info = idx.class_info("shapes.Square")
    assert info["methods"]["grow"] == [1, 1] and info["methods"]["shrink"] == [1, -1]
    assert "describe" in info["methods"]                       # inherited from Base
    assert {"side", "sides", "perimeter"} <= set(info["attrs"])
    assert info["init"] == [0, 1]
    assert idx.lookup("shapes.area")[2] == ["f", 1, 2]
    assert idx.lookup("shapes.scale")[2] == ["f", 1, 2]        # through the star import
    assert idx.lookup("shapes.VERSION")[2] == ["v", "str"]
    assert idx.lookup("shapes.util.LIMIT")[2] == ["v", "int"]
    assert idx.lookup("shapes.Square.grow")[2] == ["f", 1, 1]
    assert idx.lookup("shapes.nothing") is None


def test_aliases_and_reverse_maps_from_the_corpus(fake_index):
    idx, _ = fake_index
    assert idx.alias_modules("np") == [("numpy", 3)]
    assert idx.from_imports["Square"] == {"shapes": 3}
    assert idx.providers("Square")[0] == ("shapes", "c")
    assert [q for q, _ in idx.classes_with({"grow", "shrink"})] == ["shapes.Square"]
    assert idx.classes_with({"grow", "no_such_method"}) == []
    imps = candidate_imports("Square", idx, lambda top: True, called=True)
    assert imps[0][0] == "from shapes import Square"
    assert candidate_imports("Square", idx, lambda top: False, called=True) == []
    imps = candidate_imports("np", idx, lambda top: True)
    assert imps[0][0] == "import numpy as np"
    found = class_for_members({"grow", "shrink"}, idx, lambda top: True)
    assert found[0][0] == "shapes.Square"
    assert construct("shapes.Square", found[0][1]) == ("import shapes", "shapes.Square()")


def test_builder_refuses_reserved_and_devset_projects(tmp_path, capsys):
    for bad in ("flask", "Pandas==2.0", "beautifulsoup4", "PyYAML", "itsdangerous"):
        p = tmp_path / "p.txt"
        p.write_text(f"numpy\n{bad}\n")
        rc = kbuild.main(["--projects", str(p), "--out", str(tmp_path / "o.zip"),
                          "--cache", str(tmp_path / "c")])
        assert rc == 2
        assert "refusing" in capsys.readouterr().err
        assert not (tmp_path / "o.zip").exists()
    with pytest.raises(kbuild.BuildError):
        kbuild.check_allowed(["tornado"])
    kbuild.check_allowed(["numpy", "path:/somewhere/flask"])   # local folders are the user's


def test_vendored_copies_of_excluded_projects_are_skipped(tmp_path):
    src = tmp_path / "src"
    _write_tree(str(src), {"requests/__init__.py": "def get(url):\n    pass\n",
                           "okpkg/__init__.py": "def fine():\n    pass\n"})
    stats = __import__("collections").Counter()
    facts = kbuild.read_project(str(src), "x", stats)
    assert [mf.name for mf, _ in facts] == ["okpkg"]
    assert stats["skipped_excluded_modules"] == 1


def test_shipped_list_names_no_excluded_project():
    projects = kbuild.read_projects(kbuild.DEFAULT_PROJECTS)     # raises if it did
    assert len(projects) >= 150


needs_shipped = pytest.mark.skipif(
    not os.path.exists(SHIPPED), reason="no shipped index (python -m lexecutor_c.knowledge.build)")


@needs_shipped
def test_shipped_index_knows_the_common_names():
    t = time.perf_counter()
    idx = load()
    elapsed = time.perf_counter() - t
    assert elapsed < 5.0                                       # measured ~0.3 s
    assert idx.lookup("collections.deque")[2][0] == "c"
    assert idx.lookup("os.path.join")[2][0] == "f"
    assert idx.lookup("json.loads")[2][:2] == ["f", 1]
    assert idx.providers("deque")[0][0] == "collections"
    assert idx.providers("defaultdict")[0][0] == "collections"
    assert idx.providers("Path")[0][0] == "pathlib"
    assert idx.alias_modules("np")[0][0] == "numpy"
    assert idx.alias_modules("plt")[0][0] == "matplotlib.pyplot"
    assert [q for q, _ in idx.classes_with({"popleft", "extend"})][0] == "collections.deque"
    meta = idx.meta
    assert len(meta["projects"]) >= 150
    names = {p.split("==")[0].lower().replace("_", "-") for p in meta["projects"]}
    assert not names & kbuild.EXCLUDED
    assert os.path.getsize(SHIPPED) < 12_000_000


def test_shipped_index_loads_lazily():
    code = ("import sys, lexecutor_c.knowledge as k; "
            "assert 'lexecutor_c.knowledge.index' not in sys.modules; "
            "assert 'json' not in sys.modules or True; print(k._INDEX)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "None"


# ---------------------------------------------------------------- run-time extension

def test_local_extension_scans_a_site_dir_and_caches_it(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    _write_tree(str(site), {"localpkg/__init__.py": "from .m import Thing\n",
                            "localpkg/m.py": ("class Thing:\n    def ping(self):\n        "
                                              "pass\n    def pong(self, x):\n        pass\n"),
                            "pandas/__init__.py": "def read_csv(path):\n    pass\n",
                            "skipme/__init__.py": "X = 1\n"})
    monkeypatch.setenv("LEXECUTOR_KNOWLEDGE_CACHE_DIR", str(tmp_path / "cache"))
    [data] = klocal.local_index(skip={"skipme"}, dirs=[str(site)])
    idx = KnowledgeIndex(data)
    assert idx.lookup("localpkg.Thing")[2][0] == "c"
    assert [q for q, _ in idx.classes_with({"ping", "pong"})] == ["localpkg.Thing"]
    assert idx.lookup("pandas.read_csv")[2] == ["f", 1, 1]   # the user's machine: allowed
    assert not idx.is_module("skipme")
    assert len(os.listdir(tmp_path / "cache")) == 1
    # the second call reads the cache
    calls = []
    monkeypatch.setattr(klocal, "scan_dir", lambda *a, **k: calls.append(a) or {})
    [again] = klocal.local_index(skip={"skipme"}, dirs=[str(site)])
    assert calls == [] and again["modules"] == data["modules"]
    # installing a package changes the folder's mtime: scanned again
    (site / "newmod.py").write_text("def hello():\n    pass\n")
    st = os.stat(site)
    os.utime(site, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))
    klocal.local_index(skip={"skipme"}, dirs=[str(site)])
    assert len(calls) == 1


def test_get_index_merges_the_environment(tmp_path, monkeypatch):
    import lexecutor_c.knowledge as K
    site = tmp_path / "site-packages"
    _write_tree(str(site), {"zzlocal/__init__.py": "def only_here(a, b):\n    pass\n"})
    monkeypatch.setenv("LEXECUTOR_KNOWLEDGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(klocal, "site_dirs", lambda: [str(site)])
    K.reset()
    try:
        idx = K.get_index(local=True)
        assert idx.lookup("zzlocal.only_here")[2] == ["f", 2, 2]
    finally:
        K.reset()


# ---------------------------------------------------------------- constraints

@pytest.mark.parametrize("callee,arg,check", [
    ("range", 0, lambda v: isinstance(v, int) and not isinstance(v, bool)),
    ("range", 2, lambda v: isinstance(v, int) and v != 0),
    ("len", 0, lambda v: len(v) >= 0),
    ("int", 0, lambda v: int(v) == 3),
    ("float", 0, lambda v: float(v) == 3.0),
    ("str.join", 0, lambda v: "-".join(v) is not None),
    ("sum", 0, lambda v: sum(v) is not None),
    ("zip", 3, lambda v: iter(v) is not None),
    ("isinstance", 1, lambda v: isinstance(1, v) or True),
    ("json.loads", 0, lambda v: json.loads(v)["value"] == 10),
    ("re.compile", 0, lambda v: __import__("re").compile(v) is not None),
    ("datetime.datetime", 1, lambda v: 1 <= v <= 12),
    ("dict", 0, lambda v: dict(v) is not None),
    ("math.sqrt", 0, lambda v: v >= 0),
    ("math.log", 0, lambda v: v > 0),
    ("random.choice", 0, lambda v: len(v) > 0),
    ("os.path.join", 4, lambda v: isinstance(v, str)),
    ("np.zeros", 0, lambda v: v == 3 or isinstance(v, tuple)),
])
def test_constraints_give_values_that_work(callee, arg, check, tmp_path):
    spec = C.constraint_for(callee, arg)
    assert spec is not None
    v = C.example(spec, str(tmp_path))
    assert C.satisfies(v, spec)
    assert check(v)


def test_constraints_paths_are_real_files(tmp_path):
    p = C.example(C.constraint_for("open", 0), str(tmp_path))
    with open(p) as f:
        assert f.read().startswith("first line")
    d = C.example(C.constraint_for("os.listdir", 0), str(tmp_path))
    assert os.listdir(d)
    assert C.constraint_for("open", "file") == C.constraint_for("builtins.open", 0)
    assert C.constraint_for("print", 0) is None and C.constraint_for("nope.nope", 0) is None
    assert not C.satisfies([1], "iter[str]") and C.satisfies(["a"], "iter[str]")
    assert not C.satisfies("x", "numstr") and C.satisfies("2.5", "numstr")
    assert C.runtime_class(C.constraint_for("range", 0)) == "int_pos"
    assert C.runtime_class("iter[str]") == "str_nonempty"      # a str iterates strs
    assert C.runtime_class("iter[num]") == "list_nonempty"
    with pytest.raises(ValueError):
        C.parse_spec("no_such_kind")


@pytest.mark.skipif(not HAS_PIL, reason="PIL is not installed: the image is written as PNG "
                                        "bytes instead, which only PIL could check")
def test_constraints_image_paths_open_with_pil(tmp_path):
    from PIL import Image
    p = C.example(C.constraint_for("PIL.Image.open", 0), str(tmp_path))
    assert Image.open(p).size == (64, 48)
    q = tmp_path / "raw.png"
    q.write_bytes(C.png_bytes())
    assert Image.open(q).size == (8, 8)


def test_format_specs():
    assert C.format_string_fields("{} {:.2f} {name:>5d} {0!r}") == [
        (0, None), (1, "num"), ("name", "int"), (0, None)]
    assert C.percent_fields("%s is %5.1f%% of %d") == [None, "num", "int"]


# ---------------------------------------------------------------- the offline generator

def _first_prefix(src, **kw):
    from lexecutor_c.prefixtree import OfflineGenerator, Plan
    from lexecutor_c.prefixtree.analysis import analyze
    facts = analyze(src)
    gen = OfflineGenerator(**kw)
    return facts, gen, gen.render(facts, Plan())


@needs_shipped
def test_generator_imports_deque_and_math():
    _, _, prefix = _first_prefix("todo = deque([1, 2])\nwhile todo:\n    x = todo.popleft()\n")
    assert "from collections import deque" in prefix
    _, _, prefix = _first_prefix("print(math.sqrt(16), math.pi)\n")
    assert "import math" in prefix and "math =" not in prefix
    _, _, prefix = _first_prefix("d = defaultdict(list)\np = Path('x') / 'y'\n")
    assert "from collections import defaultdict" in prefix
    assert "from pathlib import Path" in prefix


@needs_shipped
def test_generator_alias_only_when_importable():
    src = "a = np.zeros(3)\nb = plt.figure()\n"
    _, gen, prefix = _first_prefix(src, check_module=lambda m: m == "numpy")
    assert "import numpy as np" in prefix
    assert "matplotlib" not in prefix and "plt" in prefix              # a stand-in
    assert "matplotlib.pyplot" in gen.unresolved_imports


@needs_shipped
def test_generator_builds_a_real_deque_from_the_methods_used():
    _, _, prefix = _first_prefix("q.extend([1])\nx = q.popleft()\n")
    assert "collections.deque(" in prefix
    ns = {}
    exec(prefix, ns)
    assert type(ns["q"]).__name__ == "deque"


def test_generator_range_argument_is_an_int():
    facts, gen, prefix = _first_prefix("total = 0\nfor i in range(n):\n    total += i\n")
    assert "int" in facts.roots["n"].arg_specs
    ns = {}
    exec(prefix, ns)
    assert isinstance(ns["n"], int) and not isinstance(ns["n"], bool)


def test_generator_unpacking_width_and_format_specs():
    facts, gen, prefix = _first_prefix("w, h = img.size\nprint(f'{ratio:.2f}', w // 2)\n")
    ns = {}
    exec(prefix, ns)
    w, h = ns["img"].size
    assert isinstance(ns["ratio"], (int, float))


def test_treefix_open_creates_the_file(tmp_path):
    import lexecutor_c
    src = ("with open(path) as f:\n    text = f.read()\nwords = text.split()\n"
           "print(len(words))\n")
    r = lexecutor_c.treefix(src, budget=20, seed=0)
    assert r.coverage == 1.0
    assert "open(" in r.best or "'data" in r.best


def test_treefix_range_covers_the_loop():
    import lexecutor_c
    r = lexecutor_c.treefix("total = 0\nfor i in range(n):\n    total += i * 2\n"
                            "if total > 10:\n    print('big')\n", budget=20, seed=0)
    assert r.coverage == 1.0


@pytest.mark.skipif(not HAS_PIL, reason="PIL is not installed here: the image a Windows path "
                                        "names cannot be opened without it")
def test_treefix_writes_the_image_a_windows_path_names():
    import lexecutor_c
    src = ('img = Image.open(r"C:\\Users\\me\\Pictures\\ybear.jpg")\n'
           "w, h = img.size\nsmall = img.resize((w // 2, h // 2))\nprint(small.size)\n")
    r = lexecutor_c.treefix(src, budget=30, seed=0)
    assert r.coverage == 1.0
    assert "_LxImage.new(" in r.best


def test_file_not_found_repair_unescapes_the_name():
    from lexecutor_c.prefixtree import OfflineGenerator, Plan
    from lexecutor_c.prefixtree.analysis import analyze
    facts = analyze("f = open(name)\n")
    gen = OfflineGenerator()
    msg = "[Errno 2] No such file or directory: 'C:\\\\data\\\\in.csv'"
    props = gen.repair(facts, Plan(), {"type": "FileNotFoundError", "message": msg,
                                       "line": 1}, 5)
    assert any("C:\\\\data\\\\in.csv" in p.prefix or "'C:\\\\data\\\\in.csv'" in p.prefix
               for p in props)
    files = [p.plan.files for p in props if p.plan.files]
    assert files and "C:\\data\\in.csv" in files[0]


# ---------------------------------------------------------------- the run-time injector

def test_use_site_parsing():
    from lexecutor_c.knowledge.inject import use_site
    assert use_site("for i in range (") == ("range", 0)
    assert use_site('y = "," . join (') == ("str.join", 0)
    assert use_site("z = os . path . join ( a , b ,") == ("os.path.join", 2)
    assert use_site("print ( a , sep =") == ("print", "sep")
    assert use_site("foo ( bar ( x ) ,") == ("foo", 1)
    assert use_site("x = (") is None and use_site("x =") is None and use_site("") is None


def test_constraint_predictor_makes_the_run_work():
    import lexecutor_c
    from lexecutor_c.knowledge.inject import ConstraintPredictor
    src = ('total = 0\nfor i in range(n):\n    total += i\nx = len(data)\n'
           'y = ",".join(words)\nprint(total, x, y)\n')
    naive = lexecutor_c.run(src, predictor="naive", isolate=False)
    assert naive.status == "exception" and naive.exception["line"] == 5
    p = ConstraintPredictor()
    r = lexecutor_c.run(src, predictor=p, isolate=False)
    assert r.status == "ok" and r.coverage == 1.0
    assert p.answered == 3


@needs_shipped
def test_generator_keeps_guesses_and_heavy_imports_behind_stand_ins():
    # a bare name some third-party package exports is the snippet's variable first
    _, _, prefix = _first_prefix("print(dtype.kind)\nprint(var + 1)\n")
    assert "numpy" not in prefix and "dask" not in prefix
    # an isinstance() target is a generated class: the values are generated too
    _, _, prefix = _first_prefix("for child in node.children:\n"
                                 "    if isinstance(child, Leaf):\n        print(child)\n")
    assert "import Leaf" not in prefix


@needs_shipped
def test_generator_links_to_a_real_modules_constant():
    src = "if leaf.type == token.COLON:\n    print('colon')\n"
    _, _, prefix = _first_prefix(src)
    assert "import token" in prefix and "leaf.type = token.COLON" in prefix.replace("_leaf", "leaf")
    ns = {}
    exec(prefix, ns)
    assert ns["leaf"].type == ns["token"].COLON


@needs_shipped
@pytest.mark.skipif(not HAS_PIL, reason="PIL is not installed: `Image` cannot be imported here")
def test_generator_imports_pil_image_as_a_submodule():
    _, _, prefix = _first_prefix("im = Image.open('a.png')\nprint(im.size)\n")
    assert "from PIL import Image" in prefix
