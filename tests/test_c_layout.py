"""The layout of csrc/ (issue 15): file sizes and who may include whom.

Rules checked on the sources as they are (no build needed):

* no C/C++ source or header in csrc/ is longer than MAX_LINES lines;
* the graph of ``#include "..."`` among csrc's own files has no cycle;
* top level: compat.h includes nothing of ours, lx.h only compat.h; only
  module.c (the module definition) includes the folders' api.h headers;
* folders (instrument/, runtime/, transparent/, llm/, and any new one): a file
  may include compat.h, lx.h, headers of its own folder, and of another folder
  only that folder's api.h; a folder's api.h includes nothing of its folder;
* runtime/: the layers declared in the comment of runtime/objects.h
  ("layer N  header.h  files.c ...") cover every file of the folder but api.h,
  and a file includes only headers of its own layer or lower ones.

``#include "x"`` is resolved like the compiler does with -Icsrc: next to the
including file first, then under csrc/; names found in neither (Python's own
"internal/pycore_frame.h") are not ours and are ignored.
"""
from __future__ import annotations

import os
import re

import pytest

CSRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "csrc")
MAX_LINES = 1200
SUFFIXES = (".c", ".h", ".cpp")
TOP_HEADERS = {"compat.h": set(), "lx.h": {"compat.h"}}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root=CSRC):
    """Paths relative to root ("runtime/dummy.c"), sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            if f.endswith(SUFFIXES):
                out.append(os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/"))
    return out


def includes(root=CSRC):
    """{file: [included csrc files]} for every source under root."""
    graph = {}
    for rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        found = []
        for name in INCLUDE.findall(text):
            here = os.path.normpath(os.path.join(os.path.dirname(rel), name)).replace(os.sep, "/")
            if os.path.isfile(os.path.join(root, here)):
                found.append(here)
            elif os.path.isfile(os.path.join(root, name)):
                found.append(os.path.normpath(name).replace(os.sep, "/"))
        graph[rel] = found
    return graph


def line_counts(root=CSRC):
    out = {}
    for rel in sources(root):
        with open(os.path.join(root, rel), "rb") as f:
            out[rel] = f.read().count(b"\n")
    return out


def find_cycle(graph):
    """One include cycle as a list of files, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, ()):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                cyc = visit(m)
                if cyc:
                    return cyc
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            cyc = visit(n)
            if cyc:
                return cyc
    return None


def folder(rel):
    return rel.split("/", 1)[0] if "/" in rel else ""


def folder_violations(graph):
    """Includes that break the top-level and folder rules, as strings."""
    bad = []
    for src, incs in sorted(graph.items()):
        f = folder(src)
        for inc in incs:
            g = folder(inc)
            if src in TOP_HEADERS:
                ok = inc in TOP_HEADERS[src]
            elif f == "":
                ok = inc in TOP_HEADERS or inc.endswith("/api.h")   # module.c
            elif os.path.basename(src) == "api.h":
                ok = inc in TOP_HEADERS                               # a folder's public face
            elif g == "":
                ok = inc in TOP_HEADERS
            else:
                ok = g == f or os.path.basename(inc) == "api.h"
            if not ok:
                bad.append(f"{src} includes {inc}")
    return bad


LAYER_LINE = re.compile(r"^\s*\*\s+layer\s+(\d+)\s+(.*)$")


def declared_layers(root=CSRC):
    """{runtime file: layer} from the comment of runtime/objects.h."""
    with open(os.path.join(root, "runtime", "objects.h"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    layers, current = {}, None
    for line in lines:
        m = LAYER_LINE.match(line)
        if m:
            current = int(m.group(1))
            rest = m.group(2)
        elif current is not None and re.match(r"^\s*\*\s{6,}\S", line):
            rest = line          # continuation of the entry above
        else:
            current = None
            continue
        for name in re.findall(r"\b([A-Za-z_][A-Za-z_0-9]*\.[ch])\b", rest):
            layers.setdefault(f"runtime/{name}", current)
    return layers


def layer_violations(graph, layers):
    bad = []
    for rel in graph:
        if folder(rel) == "runtime" and rel != "runtime/api.h" and rel not in layers:
            bad.append(f"{rel} is in no layer of runtime/objects.h")
    for src, incs in sorted(graph.items()):
        if src not in layers:
            continue
        for inc in incs:
            if inc in layers and layers[inc] > layers[src]:
                bad.append(f"{src} (layer {layers[src]}) includes {inc} (layer {layers[inc]})")
    return bad


# -- the tests on csrc/ --------------------------------------------------------

def test_no_file_over_max_lines():
    counts = line_counts()
    assert len(counts) > 10
    long = {f: n for f, n in counts.items() if n > MAX_LINES}
    assert not long, f"files over {MAX_LINES} lines: {long}"


def test_include_graph_is_acyclic():
    graph = includes()
    assert any(graph.values())
    cyc = find_cycle(graph)
    assert cyc is None, f"include cycle: {' -> '.join(cyc)}"


def test_folders_include_only_what_they_may():
    bad = folder_violations(includes())
    assert not bad, "\n".join(bad)


def test_runtime_layers_are_declared_and_followed():
    layers = declared_layers()
    # the declaration itself: five layers, each with its header
    assert {layers.get(f"runtime/{h}") for h in
            ("objects.h", "values.h", "dummy.h", "predict.h", "loaders.h")} == {0, 1, 2, 3, 4}
    bad = layer_violations(includes(), layers)
    assert not bad, "\n".join(bad)


# -- the checks catch what they should (on a scratch tree) ---------------------

def _tree(tmp_path, files):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return str(tmp_path)


OBJECTS_H = """/* runtime/objects.h
 *     layer 2  dummy.h     dummy.c
 *     layer 1  values.h    values.c,
 *                          more.c
 *     layer 0  objects.h
 */
#include "lx.h"
"""


def test_checks_catch_violations(tmp_path):
    root = _tree(tmp_path, {
        "compat.h": "",
        "lx.h": '#include "compat.h"\n',
        "module.c": '#include "lx.h"\n#include "runtime/api.h"\n#include "runtime/values.h"\n',
        "runtime/api.h": '#include "lx.h"\n',
        "runtime/objects.h": OBJECTS_H,
        "runtime/values.h": '#include "runtime/objects.h"\n#include "dummy.h"\n',
        "runtime/dummy.h": '#include "runtime/values.h"\n',
        "runtime/values.c": '#include "runtime/dummy.h"\n',
        "runtime/more.c": '#include "runtime/values.h"\n#include "internal/pycore_frame.h"\n',
        "runtime/stray.c": '#include "runtime/values.h"\n',
        "llm/llm.c": '#include "runtime/objects.h"\n' + "x;\n" * (MAX_LINES + 1),
    })
    graph = includes(root)
    assert graph["runtime/more.c"] == ["runtime/values.h"]     # Python's header ignored
    cyc = find_cycle(graph)
    assert cyc is not None and set(cyc) == {"runtime/values.h", "runtime/dummy.h"}
    assert folder_violations(graph) == [
        "llm/llm.c includes runtime/objects.h", "module.c includes runtime/values.h"]
    layers = declared_layers(root)
    assert layers == {"runtime/dummy.h": 2, "runtime/dummy.c": 2, "runtime/values.h": 1,
                      "runtime/values.c": 1, "runtime/more.c": 1, "runtime/objects.h": 0}
    assert layer_violations(graph, layers) == [
        "runtime/stray.c is in no layer of runtime/objects.h",
        "runtime/values.c (layer 1) includes runtime/dummy.h (layer 2)",
        "runtime/values.h (layer 1) includes runtime/dummy.h (layer 2)",
    ]
    assert {f for f, n in line_counts(root).items() if n > MAX_LINES} == {"llm/llm.c"}


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
