"""How far ``lexecutor-c trace`` gets on forum snippets, alone and after the
best Treefix prefix (issue 12, "Traces").

    python -m benchmarks.trace [--snippets DIR] [--budget S] [--jobs J] [--limit N] [--json]

DIR (default ../shared/bench/treefix_sample/so, the 58 Stack Overflow
snippets of the Treefix sample) holds ``*.py`` files.  Each snippet is traced
twice, in the sandbox: with ``treefix=False`` (the code alone, injection
underneath) and with ``treefix=True`` (the default of the command: when the
code alone injects or raises, the best Treefix prefix from the offline
generator, ``--budget`` seconds).  Per variant:

* ends without exception: traces whose program ran to its end;
* stopped by a missing file: traces ending in FileNotFoundError;
* lines traced: distinct snippet lines with a ``<line>`` entry, summed;
* ran after a prefix / got further: snippets where the prefix was used,
  and where that trace has more distinct lines or ends without exception
  where the code alone raised.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

DEFAULT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..",
                       "shared", "bench", "treefix_sample", "so")


def _summary(r) -> dict:
    lines = {e["line"] for e in r.entries if e["kind"] == "line"}
    return {"status": r.status, "exception": (r.exception or {}).get("type"),
            "lines": len(lines), "prefix": r.prefix is not None,
            "error": r.error}


def evaluate(job: dict) -> dict:
    from lexecutor_c.apps.trace import trace
    row = {"file": job["file"]}
    for key, tf in (("alone", False), ("prefix", True)):
        t = time.monotonic()
        try:
            r = trace(job["path"], treefix=tf, treefix_budget=job["budget"], timeout=10.0)
        except Exception as e:          # unparsable snippets stay in the table as errors
            row[key] = {"status": "error", "exception": None, "lines": 0, "prefix": False,
                        "error": f"{type(e).__name__}: {e}"}
        else:
            row[key] = _summary(r)
        row[key]["seconds"] = round(time.monotonic() - t, 2)
    return row


def metrics(rows: list) -> dict:
    out: dict = {"snippets": len(rows)}
    for key in ("alone", "prefix"):
        out[key] = {
            "ends_without_exception": sum(1 for r in rows if r[key]["status"] in ("ok", "exit")),
            "file_not_found": sum(1 for r in rows if r[key]["exception"] == "FileNotFoundError"),
            "lines_traced": sum(r[key]["lines"] for r in rows),
            "errors": sum(1 for r in rows if r[key]["status"] == "error"),
            "seconds": round(sum(r[key]["seconds"] for r in rows), 1),
        }
    out["ran_after_prefix"] = sum(1 for r in rows if r["prefix"]["prefix"])
    out["got_further"] = sum(
        1 for r in rows if r["prefix"]["prefix"] and (
            r["prefix"]["lines"] > r["alone"]["lines"] or
            (r["prefix"]["status"] in ("ok", "exit") and r["alone"]["status"] == "exception")))
    return out


def table(m: dict) -> str:
    a, p = m["alone"], m["prefix"]
    rows = [("ends without exception", a["ends_without_exception"], p["ends_without_exception"]),
            ("stopped by a missing file (FileNotFoundError)", a["file_not_found"],
             p["file_not_found"]),
            ("distinct snippet lines traced (sum)", a["lines_traced"], p["lines_traced"]),
            ("could not be traced (syntax, ...)", a["errors"], p["errors"]),
            ("seconds (sum)", a["seconds"], p["seconds"])]
    out = [f"{m['snippets']} snippets", "",
           "| | `--no-treefix` | default (Treefix prefix) |", "| --- | --- | --- |"]
    out += [f"| {k} | {x} | {y} |" for k, x, y in rows]
    out += ["", f"ran after a prefix: {m['ran_after_prefix']}; got further with it: "
                f"{m['got_further']}"]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.trace",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--snippets", default=DEFAULT, metavar="DIR")
    ap.add_argument("--budget", type=float, default=10.0, help="Treefix seconds per snippet")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, metavar="N")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.jobs < 1 or a.limit < 0 or a.budget <= 0:
        print("--jobs must be at least 1, --limit not negative, --budget positive",
              file=sys.stderr)
        return 2
    if not os.path.isdir(a.snippets):
        print(f"{a.snippets}: no such directory", file=sys.stderr)
        return 2
    files = sorted(f for f in os.listdir(a.snippets) if f.endswith(".py"))
    if a.limit:
        files = files[:a.limit]
    jobs = [{"file": f, "path": os.path.join(a.snippets, f), "budget": a.budget} for f in files]
    with ProcessPoolExecutor(max_workers=a.jobs) as ex:
        rows = list(ex.map(evaluate, jobs, chunksize=1))
    m = metrics(rows)
    if a.json:
        print(json.dumps({"metrics": m, "rows": rows}, indent=2))
    else:
        print(table(m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
