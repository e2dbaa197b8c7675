"""notebooks/demo.ipynb runs on a real ipykernel without a cell error."""
import os

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOK = os.path.join(ROOT, "notebooks", "demo.ipynb")


def test_demo_notebook_executes(monkeypatch):
    # the kernel imports lexecutor_c from this checkout
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=60, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}})
    client.execute()          # raises CellExecutionError when a cell errors
    outputs = {i: c.get("outputs", []) for i, c in enumerate(nb.cells) if c.cell_type == "code"}
    html = [o["data"]["text/html"] for outs in outputs.values() for o in outs
            if o.get("output_type") == "execute_result" and "text/html" in o.get("data", {})]
    assert len(html) == 3                                   # the three %%lexecute tables
    assert "has_min_size" in html[0] and "<table" in html[0]
    assert "keys" in html[2] and "values" in html[2]
    texts = "".join(o.get("text", "") for outs in outputs.values() for o in outs)
    assert "Treefix" in texts or "treefix" in texts
