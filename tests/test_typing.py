"""The public API is typed (PEP 561): a py.typed marker, a stub for the C extension that
matches it, annotations a strict type checker accepts, and lazy names that all resolve."""
import ast
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import lexecutor_c
from lexecutor_c import _core

ROOT = pathlib.Path(__file__).resolve().parent.parent
PKG = ROOT / "lexecutor_c"

try:
    import mypy  # noqa: F401
    HAVE_MYPY = True
except ImportError:                       # reported by the tests, not as a collection error
    HAVE_MYPY = False


def _needs_mypy():
    if not HAVE_MYPY:
        pytest.fail("mypy is missing: pip install mypy (a test dependency: Makefile PYDEPS, "
                    "pyproject's test extra)")


def test_py_typed_marker_is_shipped():
    assert (PKG / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    assert '"py.typed"' in text and '"_core.pyi"' in text     # package data


def test_stub_names_are_the_extensions_names():
    tree = ast.parse((PKG / "_core.pyi").read_text())
    stub = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stub.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            stub.add(node.target.id)
    real = {n for n in dir(_core) if not n.startswith("__")}
    real.add("_MissingType")               # the type of MISSING, not a module attribute
    assert stub == real


def test_every_public_name_resolves():
    for name in lexecutor_c.__all__:
        assert getattr(lexecutor_c, name) is not None, name
        assert name in dir(lexecutor_c)
    for name in ("hook", "magics", "sandbox", "runtime", "result", "load_ipython_extension",
                 "__version__"):
        assert getattr(lexecutor_c, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        lexecutor_c.nope  # noqa: B018


def test_import_is_lazy():
    code = ("import sys, lexecutor_c\n"
            "print(sorted(m for m in sys.modules if m.startswith('lexecutor_c')))\n"
            "lexecutor_c.run\n"
            "print('lexecutor_c._core' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=str(ROOT)).stdout.splitlines()
    assert out == ["['lexecutor_c', 'lexecutor_c._version']", "True"]


USER_CODE = '''
import lexecutor_c as lx

r = lx.run("x = foo()\\nprint(x.bar)", predictor="naive", timeout=5.0)
coverage: float | None = r.coverage
inst = lx.instrument("x = y\\n")
text: str = inst.source
t = lx.treefix("x = y\\n", n=2, k=1)
prefixes: list[str] = t.prefixes
outcome = lx.call_isolated(len, [1, 2], limits=lx.Limits(timeout=2.0))
d: lx.Dummy = lx.Dummy("d")
ok: bool = lx.call(len, [1]).ok


@lx.lexecute
def f(a: int) -> int:
    return a


@lx.lexecute(predictor="random", seed=3)
def g() -> None: ...


res: lx.CallResult = f(1)
'''


def _mypy(tmp_path, *args):
    env = dict(os.environ, MYPYPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                           "--no-error-summary", f"--cache-dir={tmp_path / 'cache'}", *args],
                          capture_output=True, text=True, timeout=300, env=env,
                          cwd=str(tmp_path))


def test_mypy_strict_accepts_the_public_api_and_code_using_it(tmp_path):
    _needs_mypy()
    r = _mypy(tmp_path, str(PKG / "__init__.py"), str(PKG / "_core.pyi"))
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path / "use.py").write_text(USER_CODE)
    r = _mypy(tmp_path, "use.py")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_catches_a_misuse(tmp_path):
    """The annotations say something: a wrong argument type is an error."""
    _needs_mypy()
    (tmp_path / "bad.py").write_text(textwrap.dedent('''
        import lexecutor_c as lx
        lx.run(42)
        x: int = lx.instrument("y\\n")
        lx.Limits(wall_time=2)
    '''))
    r = _mypy(tmp_path, "bad.py")
    assert r.returncode == 1
    assert 'Argument 1 to "run" has incompatible type "int"' in r.stdout
    assert 'has type "Instrumented"' in r.stdout
    assert 'Unexpected keyword argument "wall_time"' in r.stdout
