"""Runtime errors of programs that read their input (issue 23).

A data folder holds one folder per problem::

    DIR/<problem>/input.{txt,md,html}   the input section of the statement
    DIR/<problem>/samples/*.in          its sample inputs
    DIR/<problem>/gen.py                an independent generator of valid inputs,
                                        ``gen(rng) -> str`` (labelling only)
    DIR/<problem>/programs/*.py         Python 3 programs
    DIR/<problem>/labels.json           written by --label

``python -m benchmarks.stdin_errors --label DIR`` runs every program,
confined, on its samples and on ``--label-inputs`` inputs of gen.py and
writes the crashes seen, (type, line), per program: a program is labelled
``crash`` when some valid input crashes it, ``clean`` otherwise (timeouts
are counted apart).  The tool under test never sees gen.py or the labels.

``python -m benchmarks.stdin_errors --data DIR`` runs ``find_errors(program,
input_spec=<input section>, stdin=<first sample>)`` on each program and
prints: crashing programs found with the right type and line (a real error
whose (type, line) is among the labelled ones), with the right type
anywhere, false alarms (clean programs with a real error), seconds per
program.  ``--no-spec``: inputs inferred from the reads instead.

``python -m benchmarks.stdin_errors --grammar-check DIR`` prints the share of
descriptions whose grammar (rules only) accepts every sample input.
"""
from __future__ import annotations

import argparse
import builtins
import glob
import json
import os
import random
import sys
import time


def _problems(root: str) -> list:
    return sorted(d for d in glob.glob(os.path.join(root, "*")) if os.path.isdir(d))


def _description(pdir: str) -> str:
    for ext in ("md", "html", "txt"):
        p = os.path.join(pdir, "input." + ext)
        if os.path.exists(p):
            return p
    raise FileNotFoundError(f"{pdir}: no input.md/html/txt")


def _samples(pdir: str) -> list:
    out = []
    for p in sorted(glob.glob(os.path.join(pdir, "samples", "*.in"))):
        with open(p) as f:
            out.append(f.read())
    return out


# ---------------------------------------------------------------- labelling

def _label_child(code_text: str, filename: str) -> dict:
    from lexecutor_c.engine import sandbox
    code = compile(code_text, filename, "exec", dont_inherit=True)
    env = {"__name__": "__main__", "__builtins__": builtins}
    devnull = open(os.devnull, "w")
    sys.stdout = devnull
    try:
        exec(code, env)
    except SystemExit:
        return {"status": "exit"}
    except sandbox.Timeout:
        return {"status": "timeout"}
    except BaseException as e:
        tb, line = e.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                line = tb.tb_lineno
            tb = tb.tb_next
        return {"status": "exception", "type": type(e).__name__, "line": line}
    finally:
        sandbox._disarm()
        sys.stdout = sys.__stdout__
    return {"status": "ok"}


def label(root: str, n_inputs: int, seed: int) -> None:
    from lexecutor_c.engine import sandbox
    limits = sandbox.Limits(timeout=2.0)
    for pdir in _problems(root):
        ns: dict = {}
        with open(os.path.join(pdir, "gen.py")) as f:
            exec(compile(f.read(), os.path.join(pdir, "gen.py"), "exec"), ns)
        rng = random.Random(seed)
        inputs = _samples(pdir) + [ns["gen"](rng) for _ in range(n_inputs)]
        labels = {}
        for prog in sorted(glob.glob(os.path.join(pdir, "programs", "*.py"))):
            with open(prog) as f:
                text = f.read()
            crashes: dict = {}
            timeouts = 0
            example: dict = {}
            for data in inputs:
                out = sandbox.call_isolated(_label_child, text, prog, limits=limits,
                                            stdin=data.encode())
                v = out.value if out.ok and isinstance(out.value, dict) else {}
                if out.status == "timeout" or v.get("status") == "timeout":
                    timeouts += 1
                elif v.get("status") == "exception":
                    key = f"{v['type']}:{v['line']}"
                    crashes[key] = crashes.get(key, 0) + 1
                    example.setdefault(key, data)
            name = os.path.basename(prog)
            labels[name] = {"label": "crash" if crashes else "clean",
                            "crashes": [{"type": k.split(":")[0], "line": int(k.split(":")[1])
                                         if k.split(":")[1] != "None" else None,
                                         "inputs": c, "example": example[k][:300]}
                                        for k, c in sorted(crashes.items())],
                            "timeouts": timeouts, "inputs": len(inputs)}
            print(f"{os.path.basename(pdir)}/{name}: {labels[name]['label']} "
                  f"{sorted(crashes)} timeouts={timeouts}")
        with open(os.path.join(pdir, "labels.json"), "w") as f:
            json.dump({"labelled_with": f"samples + {n_inputs} inputs of gen.py, seed {seed}",
                       "programs": labels}, f, indent=1)
            f.write("\n")


# ---------------------------------------------------------------- the benchmark

def evaluate(root: str, use_spec: bool, budget: float, verbose: bool,
             sample_only: bool = False) -> dict:
    from lexecutor_c.apps.errors import find_errors
    from lexecutor_c.apps.inputspec import SpecError
    rows = []
    for pdir in _problems(root):
        lp = os.path.join(pdir, "labels.json")
        if not os.path.exists(lp):
            print(f"{pdir}: no labels.json (run --label first)", file=sys.stderr)
            continue
        with open(lp) as f:
            labels = json.load(f)["programs"]
        desc = _description(pdir)
        samples = _samples(pdir)
        for name, lab in sorted(labels.items()):
            prog = os.path.join(pdir, "programs", name)
            t0 = time.monotonic()
            err = None
            try:
                with open(desc) as f:
                    spec = f.read() if use_spec else None
                if sample_only:         # the tool before issue 23: --stdin SAMPLE
                    rep = find_errors(prog, stdin=samples[0], timeout=2.0)
                else:
                    rep = find_errors(prog, input_spec=spec,
                                      stdin=samples[0] if samples and use_spec else None,
                                      budget=budget, timeout=2.0)
                real = [(g.type, g.line) for g in rep.real]
            except SpecError as e:
                real, err = [], f"spec: {e}"
            dt = time.monotonic() - t0
            want = {(c["type"], c["line"]) for c in lab["crashes"]}
            want_types = {c["type"] for c in lab["crashes"]}
            row = {"program": f"{os.path.basename(pdir)}/{name}", "label": lab["label"],
                   "found": real, "line_ok": bool(want & set(real)),
                   "type_ok": bool(want_types & {t for t, _ in real}),
                   "alarm": lab["label"] == "clean" and bool(real), "seconds": dt,
                   "error": err}
            rows.append(row)
            if verbose:
                mark = ("ok" if row["line_ok"] else "MISS") if lab["label"] == "crash" else \
                    ("FALSE ALARM" if row["alarm"] else "ok")
                print(f"  {row['program']:42} {lab['label']:5} {mark:11} found={real} "
                      f"want={sorted(want, key=str)} {dt:.1f}s {err or ''}")
    crash = [r for r in rows if r["label"] == "crash"]
    clean = [r for r in rows if r["label"] == "clean"]
    return {"programs": len(rows), "crashing": len(crash), "clean": len(clean),
            "type_line": sum(r["line_ok"] for r in crash),
            "type_any": sum(r["type_ok"] for r in crash),
            "false_alarms": sum(r["alarm"] for r in clean),
            "seconds": sum(r["seconds"] for r in rows) / max(1, len(rows)), "rows": rows}


def grammar_check(root: str, verbose: bool) -> dict:
    from lexecutor_c.apps.inputspec import SpecError, parse_description
    ok, total, failures = 0, 0, []
    for pdir in _problems(root):
        total += 1
        with open(_description(pdir)) as f:
            text = f.read()
        try:
            g = parse_description(text)
        except SpecError as e:
            failures.append((os.path.basename(pdir), f"no grammar: {e}"))
            continue
        whys = [g.check(s) for s in _samples(pdir)]
        bad = [w for w in whys if w]
        if bad or not whys:
            failures.append((os.path.basename(pdir), bad[0] if bad else "no sample"))
        else:
            ok += 1
        if verbose:
            print(f"--- {os.path.basename(pdir)}: {'accepts' if not bad else bad[0]}")
            print(g.show(), end="")
    return {"descriptions": total, "accepted": ok, "failures": failures}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.stdin_errors",
                                 description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--data", metavar="DIR")
    g.add_argument("--grammar-check", metavar="DIR")
    g.add_argument("--label", metavar="DIR")
    ap.add_argument("--label-inputs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=8.0, help="seconds of runs per program")
    ap.add_argument("--no-spec", action="store_true",
                    help="no description and no sample: inputs inferred from the reads")
    ap.add_argument("--sample-only", action="store_true",
                    help="the baseline: find_errors(program, stdin=<first sample>), no description")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    a = ap.parse_args(argv)
    if a.label:
        label(a.label, a.label_inputs, a.seed)
        return 0
    if a.grammar_check:
        r = grammar_check(a.grammar_check, a.verbose)
        pct = 100.0 * r["accepted"] / max(1, r["descriptions"])
        print(f"descriptions: {r['descriptions']}; grammar accepts every sample: "
              f"{r['accepted']} ({pct:.1f}%)  [target >= 95%]")
        for pid, why in r["failures"]:
            print(f"  {pid}: {why}")
        return 0
    r = evaluate(a.data, not a.no_spec, a.budget, a.verbose, a.sample_only)
    c, k = max(1, r["crashing"]), max(1, r["clean"])
    mode = "inputs inferred from the reads" if a.no_spec else "input section + first sample"
    if a.sample_only:
        mode = "baseline: --stdin <first sample> only"
    print(f"stdin programs ({mode}): {r['programs']} programs, {r['crashing']} crash on valid "
          f"inputs, {r['clean']} never do")
    print(f"| measure | value | target |\n|---|---|---|")
    print(f"| crashes found, right type and line | {r['type_line']}/{r['crashing']} "
          f"({100 * r['type_line'] / c:.1f}%) | >= 80% |")
    print(f"| crashes found, right type anywhere | {r['type_any']}/{r['crashing']} "
          f"({100 * r['type_any'] / c:.1f}%) | |")
    print(f"| false alarms on clean programs | {r['false_alarms']}/{r['clean']} "
          f"({100 * r['false_alarms'] / k:.1f}%) | <= 5% |")
    print(f"| seconds per program | {r['seconds']:.2f} | <= 10 |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
