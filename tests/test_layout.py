"""Who may import whom inside lexecutor_c (docs/ARCHITECTURE.md).

The rules are import-linter contracts in pyproject.toml ([tool.importlinter]); these tests
run them on the package, check the one rule they cannot express (no module inside the
package imports the package itself, except to reach the C extensions), and show on a copy
of the package that a forbidden import breaks them."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONFIG = ROOT / "pyproject.toml"

try:
    import grimp
    from importlinter.cli import lint_imports
except ImportError:                    # reported by the tests, not as a collection error
    grimp = lint_imports = None


def _needs_import_linter():
    if lint_imports is None:
        pytest.fail("import-linter is missing: pip install 'import-linter>=2.17' "
                    "(a test dependency: Makefile PYDEPS, pyproject's test extra)")


def facade_imports(package: str = "lexecutor_c") -> list[str]:
    """Imports of the package itself by its own modules that do not reach for a C extension
    (``from .. import _core``: the extension has no .py file, so import-linter sees an import
    of the package).  Everything else must import the part it uses, never the public API."""
    graph = grimp.build_graph(package, cache_dir=None)
    bad = []
    for module in sorted(graph.modules):
        if module == package:
            continue
        for d in graph.get_import_details(importer=module, imported=package):
            if not re.search(r"\b(_core|_torch_shim)\b", d["line_contents"]):
                bad.append(f"{module}:{d['line_number']}: {d['line_contents']}")
    return bad


def test_import_contracts_are_kept(capsys):
    _needs_import_linter()
    code = lint_imports(config_filename=str(CONFIG), no_cache=True, no_logo=True)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "0 broken" in out


def test_no_module_imports_the_package_itself():
    _needs_import_linter()
    assert facade_imports() == []


def test_a_forbidden_import_breaks_the_contracts(tmp_path):
    """The same checks on a copy of the package with one forbidden import per rule."""
    _needs_import_linter()
    pkg = tmp_path / "lexecutor_c"
    shutil.copytree(ROOT / "lexecutor_c", pkg,
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.pt", "*.gz"))
    shutil.copy(CONFIG, tmp_path / "pyproject.toml")
    for rel, line in [("engine/result.py", "from lexecutor_c.apps import trace"),
                      ("integrations/hook.py", "from lexecutor_c.model import neural"),
                      ("apps/commits.py", "import benchmarks"),
                      ("engine/sandbox.py", "import lexecutor_c")]:
        with open(pkg / rel, "a") as f:
            f.write(f"\n{line}  # a violation\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT / "tests")]))
    lint = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
         "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, "
         "no_logo=True))"],
        capture_output=True, text=True, timeout=120, cwd=str(tmp_path), env=env)
    assert lint.returncode == 1, lint.stdout + lint.stderr
    assert "0 kept, 3 broken" in lint.stdout
    assert "lexecutor_c.engine is not allowed to import lexecutor_c.apps" in lint.stdout
    assert "lexecutor_c.integrations is not allowed to import lexecutor_c.model" in lint.stdout
    assert "lexecutor_c is not allowed to import benchmarks" in lint.stdout
    facade = subprocess.run(
        [sys.executable, "-c", "from test_layout import facade_imports; "
         "print('\\n'.join(facade_imports()))"],
        capture_output=True, text=True, timeout=120, cwd=str(tmp_path), env=env)
    assert facade.returncode == 0, facade.stderr
    found = facade.stdout.split()
    assert len(facade.stdout.strip().splitlines()) == 1, facade.stdout
    assert found[0].startswith("lexecutor_c.engine.sandbox:")
    assert found[1:3] == ["import", "lexecutor_c"]
