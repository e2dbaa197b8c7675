"""``pytest --lexecute-cov``: what ran instrumented, as coverage.py data.

The plugin's twins report the line markers they reached (engine/result.py's coverage
fields: ``covered`` and ``uncovered`` lines of each instrumented file).  This module
writes them with coverage.py's own ``CoverageData`` API, so ``coverage report``,
``coverage html`` and pytest-cov users read them as usual:

* one *context* per test (its node id: ``coverage html --show-contexts`` names the tests
  that ran each line, as pytest-cov's ``--cov-context=test`` does), plus the context
  ``lexecutor_c: import`` for the module bodies run while the tests were collected;
* one context per injected value on the line where it was injected
  (``lexecutor_c injected: .get -> <Dummy ...>``): coverage.py has no other way to
  annotate a line in its HTML report, and a context is shown next to the line there;
* the same injections as a side table, ``FILE.injections.json`` (file -> line -> the
  values, with the tests they were injected in).

Only lines that carry a line marker count (statements; an ``if`` header counts as
run when it was evaluated).  coverage.py measures its own way, so a file measured by
both differs a little; combine with care.
"""
from __future__ import annotations

import json
import os


def _context_label(inj) -> str:
    kind, name = inj.kind, inj.name or "?"
    label = "." + name if kind == "attribute" else name + "()" if kind == "call" else name
    value = inj.value if len(inj.value) <= 80 else inj.value[:77] + "..."
    return f"lexecutor_c injected: {label} -> {value}"


def write(controller) -> dict:
    """Write the data of a finished run; returns ``{"data", "side_table", "files": {file:
    {"ran", "total", "not_ran"}}}``.  Raises ImportError when coverage.py is missing."""
    from coverage import CoverageData        # coverage.py, a dependency of --lexecute-cov

    c = controller
    path = os.path.abspath(c.cov_file)
    data = CoverageData(basename=path)
    data.erase()
    ran: dict = {}
    every: dict = {}

    def note(cov: dict) -> dict:
        lines = {}
        for f, cv in cov.items():
            if f.startswith("<"):
                continue
            covered = list(cv.get("covered", []))
            ran.setdefault(f, set()).update(covered)
            every.setdefault(f, set()).update(covered, cv.get("uncovered", []))
            if covered:
                lines[f] = covered
        return lines

    first = note(c.import_coverage or {})
    if first:
        data.set_context("lexecutor_c: import")
        data.add_lines(first)
    side: dict = {}
    by_context: dict = {}
    for i in c.import_injections or []:
        side.setdefault(i.file, {}).setdefault(str(i.line), []).append(
            {"kind": i.kind, "name": i.name, "value": i.value, "cls": i.cls,
             "tests": ["<import>"]})
        by_context.setdefault(_context_label(i), {}).setdefault(i.file, set()).add(i.line)
    for nodeid, r in c.results.items():
        lines = note(r.get("coverage", {}))
        if lines:
            data.set_context(nodeid)
            data.add_lines(lines)
        for i in r.get("injections", []):
            if i.file.startswith("<") or i.line is None:
                continue
            entries = side.setdefault(i.file, {}).setdefault(str(i.line), [])
            for e in entries:
                if (e["kind"], e["name"], e["value"]) == (i.kind, i.name, i.value):
                    if nodeid not in e["tests"]:
                        e["tests"].append(nodeid)
                    break
            else:
                entries.append({"kind": i.kind, "name": i.name, "value": i.value,
                                "cls": i.cls, "tests": [nodeid]})
            by_context.setdefault(_context_label(i), {}).setdefault(i.file, set()).add(i.line)
    for label, files in by_context.items():
        data.set_context(label)
        data.add_lines({f: sorted(ls) for f, ls in files.items()})
    data.write()
    side_path = path + ".injections.json"
    with open(side_path, "w", encoding="utf-8") as f:
        json.dump(side, f, indent=1, sort_keys=True)
    files = {f: {"ran": len(ran.get(f, ())), "total": len(ls),
                 "not_ran": sorted(ls - ran.get(f, set()))}
             for f, ls in every.items() if ls}
    return {"data": path, "side_table": side_path, "files": files}
