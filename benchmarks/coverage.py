"""Coverage benchmark: line coverage of incomplete code per approach.

    python -m benchmarks.coverage                       # every available approach
    python -m benchmarks.coverage --approach as-is naive --markdown
    python -m benchmarks.coverage --executor dask       # a local dask cluster (or ray)
    python -m benchmarks.coverage --data bench-data/devset --data ../shared/bench/treefix_sample

Reads the Treefix sample (``<repo>/../shared/bench/treefix_sample``) or any
``--data`` folder in place: ``DIR/*.py`` (one dataset named after DIR) or
``DIR/<dataset>/*.py`` (the sample: ``so/`` and ``functions/``), with
Treefix's results per snippet where there are some (``--reference CSV``,
default ``DIR/treefix_gpt4o.csv``) and ``lines.json`` (the lines the papers
count) where present.
Every (snippet, approach, seed) is one task: ``lexecutor_c.run(...,
isolate=True)`` in a worker of an executor (a local process pool by default),
so a snippet that hangs or crashes costs its timeout, not the run.  Finished
rows go to a JSONL checkpoint in the output folder; a restart skips them.
Outputs: ``rows.csv``, ``results.json``, ``table.md``, ``coverage_boxplot.png``.
See docs/BENCHMARK.md for the metric and its details.
"""
from __future__ import annotations

import argparse
import ast
import concurrent.futures as cf
import csv
import dataclasses
import glob
import hashlib
import json
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:                      # python benchmarks/coverage.py
    sys.path.insert(0, REPO)

DEFAULT_DATA = os.path.join(REPO, "..", "shared", "bench", "treefix_sample")
DEFAULT_OUT = os.path.join(REPO, "bench-out")
DEFAULT_FREQUENCY_TABLE = os.path.join(REPO, "lexecutor_c", "model", "frequency.json.gz")
DATASETS = ("functions", "so")
DATASET_TITLES = {"functions": "Open-source functions", "so": "Stack Overflow snippets",
                  "overall": "Overall"}

#: bump when the way a row is computed from a Result changes (invalidates checkpoints)
ROW_VERSION = 2

#: LExecutor (FSE'23) published means over the full datasets, fine-grained
#: neural model, and executing the code as is (Table/RQ1 of the paper).
PAPER_LEXECUTOR = {"functions": 0.516, "so": 0.651}
PAPER_AS_IS = {"functions": 0.041, "so": 0.438}

#: statements after which the papers' marker can never run: a line holding
#: one of them never counts as covered (see docs/BENCHMARK.md)
_NEVER_COMPLETE = (ast.Raise, ast.Break, ast.Continue)


# ================================================================ dataset

@dataclass
class Snippet:
    dataset: str
    file: str                      # "<dataset>/<name>.py": "so/snippet_3.py"
    path: str                      # absolute
    paper_total_lines: Optional[int] = None
    coverage_P: Optional[float] = None
    coverage_pbest: Optional[float] = None
    paper_lines: Optional[list] = None   # lines.json
    total_lines: Optional[int] = None    # our instrumenter's count (line_agreement)

    @property
    def key(self) -> tuple:
        return (self.dataset, self.file)


def _float(s) -> Optional[float]:
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


REFERENCE_CSV = "treefix_gpt4o.csv"


def read_reference(csv_path: str) -> dict[str, dict]:
    """Treefix's results per snippet (``file`` -> row: total_lines,
    coverage_P, coverage_pbest, ...); ValueError without a ``file`` column."""
    with open(csv_path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or "file" not in reader.fieldnames:
            raise ValueError(f"{csv_path}: a reference CSV needs a 'file' column "
                             "(and total_lines, coverage_P, coverage_pbest)")
        return {row["file"]: row for row in reader}


def _py_files(folder: str) -> list[str]:
    return sorted(glob.glob(os.path.join(folder, "*.py")), key=_natural)


def find_datasets(data_dir: str, meta: Optional[dict] = None) -> list[tuple[str, str]]:
    """(dataset name, folder) of a data folder: the folder itself when it holds
    ``.py`` files (named after it), else its subfolders that do; with a
    reference CSV only the datasets it names (the shared sample's
    ``so_invalid/`` is not one).  The sample's order first (functions, so)."""
    data_dir = os.path.abspath(data_dir)
    if _py_files(data_dir):
        return [(os.path.basename(data_dir.rstrip(os.sep)), data_dir)]
    subs = [d for d in sorted(os.listdir(data_dir))
            if os.path.isdir(os.path.join(data_dir, d)) and _py_files(os.path.join(data_dir, d))]
    if meta:
        named = {r.get("dataset") or r["file"].split("/", 1)[0] for r in meta.values()}
        subs = [d for d in subs if d in named] or subs
    subs.sort(key=lambda d: (DATASETS.index(d) if d in DATASETS else len(DATASETS), d))
    return [(d, os.path.join(data_dir, d)) for d in subs]


def load_dataset(data_dir: str, datasets: Optional[Iterable[str]] = None,
                 files: Optional[Iterable[str]] = None, reference: Optional[str] = None,
                 rename: Optional[dict] = None) -> list[Snippet]:
    """The snippets of a data folder: ``data_dir/*.py`` (one dataset named
    after the folder) or ``data_dir/<dataset>/*.py``; with Treefix's numbers
    from ``reference`` (default ``data_dir/treefix_gpt4o.csv`` when present)
    and the papers' lines from ``data_dir/lines.json`` where present.
    ``datasets``: only these (by default all: see find_datasets); ``files``:
    only these (relative names or basenames, or globs); ``rename``: dataset
    -> name to use (two data folders with the same dataset names)."""
    data_dir = os.path.abspath(data_dir)
    if not os.path.isdir(data_dir):
        raise FileNotFoundError(f"no benchmark data at {data_dir} (use --data)")
    if reference is None and os.path.exists(os.path.join(data_dir, REFERENCE_CSV)):
        reference = os.path.join(data_dir, REFERENCE_CSV)
    meta = read_reference(reference) if reference else {}
    lines_path = os.path.join(data_dir, "lines.json")
    lines = {}
    if os.path.exists(lines_path):
        with open(lines_path, encoding="utf-8") as f:
            lines = json.load(f)
    found = find_datasets(data_dir, meta)
    if datasets is not None:
        datasets = list(datasets)
        have = dict(found)
        for ds in datasets:
            if ds not in have and os.path.isdir(os.path.join(data_dir, ds)):
                have[ds] = os.path.join(data_dir, ds)        # named explicitly: so_invalid
        missing = [ds for ds in datasets if ds not in have]
        if missing:
            raise FileNotFoundError(f"no dataset folder {os.path.join(data_dir, missing[0])}")
        found = [(ds, have[ds]) for ds in datasets]
    wanted = list(files) if files else None
    out = []
    for ds, folder in found:
        name = (rename or {}).get(ds, ds)
        for path in _py_files(folder):
            base = os.path.basename(path)
            rel = f"{ds}/{base}"
            if wanted and not any(_matches(rel, w) for w in wanted):
                continue
            m = meta.get(rel) or meta.get(base) or {}
            tl = m.get("total_lines")
            out.append(Snippet(name, f"{name}/{base}", path,
                               paper_total_lines=int(tl) if tl not in (None, "") else None,
                               coverage_P=_float(m.get("coverage_P")),
                               coverage_pbest=_float(m.get("coverage_pbest")),
                               paper_lines=lines.get(rel)))
    return out


def load_datasets(data_dirs: list[str], datasets: Optional[Iterable[str]] = None,
                  files: Optional[Iterable[str]] = None,
                  reference: Optional[str] = None) -> list[Snippet]:
    """The snippets of several data folders (``--data`` given more than once).
    ``datasets`` filters by name across them (FileNotFoundError when one is in
    none); a dataset name that two folders share is prefixed with the later
    folder's name (``devset2-functions``)."""
    datasets = list(datasets) if datasets is not None else None
    out: list[Snippet] = []
    taken: set = set()
    seen_ds: set = set()
    for d in data_dirs:
        d = os.path.abspath(d)
        if not os.path.isdir(d):
            raise FileNotFoundError(f"no benchmark data at {d} (use --data)")
        ref = reference
        if ref is None and os.path.exists(os.path.join(d, REFERENCE_CSV)):
            ref = os.path.join(d, REFERENCE_CSV)
        names = [n for n, _ in find_datasets(d, read_reference(ref) if ref else None)]
        if datasets is not None:
            pick = [n for n in datasets if n in names or
                    (os.path.isdir(os.path.join(d, n)) and _py_files(os.path.join(d, n)))]
            if not pick:
                continue
        else:
            pick = None
        base = os.path.basename(d.rstrip(os.sep))
        rename = {}
        for n in (pick or names):
            if n in taken:
                rename[n] = f"{base}-{n}"
            taken.add(rename.get(n, n))
            seen_ds.add(n)
        out += load_dataset(d, pick, files, ref, rename)
    if datasets is not None:
        missing = [n for n in datasets if n not in seen_ds]
        if missing:
            raise FileNotFoundError(f"no dataset {missing[0]!r} in "
                                    f"{', '.join(map(str, data_dirs))}")
    return out


def _matches(rel: str, pattern: str) -> bool:
    import fnmatch
    return (rel == pattern or os.path.basename(rel) == pattern
            or fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(os.path.basename(rel), pattern))


def _natural(path: str):
    import re
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", os.path.basename(path))]


# ================================================================ approaches

@dataclass
class Options:
    """What every task needs besides the snippet (plain data: it travels to
    the workers)."""
    timeout: float = 10.0
    frequency_table: Optional[str] = None
    treefix_budget: float = 5.0      # seconds of prefix search per snippet


@dataclass
class Approach:
    name: str
    run: Callable                   # (path, seed, Options) -> lexecutor_c.Result
    available: Callable             # (Options) -> None | "why not"
    seeded: bool = False            # results depend on the seed
    model: Callable = lambda opts: ""   # (Options) -> text folded into the version


APPROACHES: dict[str, Approach] = {}


def approach(name: str, *, seeded: bool = False, available=None, model=None):
    """Register ``fn(path, seed, opts) -> Result`` as an approach.  Adding one
    (neural, treefix, ...) is one decorated function:

        @approach("neural", available=lambda o: None if have_model() else "no model")
        def _neural(path, seed, opts):
            return _run(path, "neural", seed, opts)
    """
    def deco(fn):
        APPROACHES[name] = Approach(name, fn, available or (lambda opts: None), seeded,
                                    model or (lambda opts: ""))
        return fn
    return deco


def _run(path: str, predictor: str, seed: Optional[int], opts: Options, **kw):
    import lexecutor_c
    # the papers' baselines: a missing module is injected like any missing
    # value (run()'s default import_missing=True is for users, not for these)
    kw.setdefault("import_missing", False)
    return lexecutor_c.run(path, predictor=predictor, timeout=opts.timeout, isolate=True,
                           seed=seed, filename=path, **kw)


@approach("as-is")
def _as_is(path, seed, opts):
    return _run(path, "as-is", None, opts)


@approach("naive")
def _naive(path, seed, opts):
    return _run(path, "naive", None, opts)


@approach("random", seeded=True)
def _random(path, seed, opts):
    return _run(path, "random", seed, opts)


def _frequency_available(opts: Options) -> Optional[str]:
    p = opts.frequency_table
    if not p:
        return "no frequency table given (--frequency-table)"
    if not os.path.exists(p):
        return (f"no frequency table at {p} (train one from recorded events and pass "
                "--frequency-table PATH)")
    try:
        load_frequency_table(p)
    except (OSError, ValueError) as e:
        return f"cannot read the frequency table {p}: {e}"
    return None


def _file_digest(path: Optional[str]) -> str:
    if not path or not os.path.exists(path):
        return ""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:12]


_TABLES: dict[str, dict] = {}


def load_frequency_table(path: str) -> dict:
    """``{name: {class: count}}`` from a JSON table (``.json`` or
    ``.json.gz``; the table itself or ``{"table": ...}``) or from a recorded
    events file (``lexecutor_c.runtime.write_events``), trained on the fly."""
    if path in _TABLES:
        return _TABLES[path]
    import gzip
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        first = f.readline()
    try:
        header = json.loads(first)
    except json.JSONDecodeError:
        header = None
    if isinstance(header, dict) and header.get("format") == "lexecutor_c.events":
        from lexecutor_c.engine.runtime import read_events, train_frequency
        table = train_frequency(read_events(path))
    elif isinstance(header, dict) and "counts" in header:
        # the format lexecutor_c writes (and ships): lexecutor_c.runtime's reader
        from lexecutor_c.engine.runtime import load_frequency_table as load_shipped
        table = load_shipped(path)
    else:
        with opener(path, "rt", encoding="utf-8") as f:
            doc = json.load(f)
        table = doc.get("table", doc) if isinstance(doc, dict) else None
        if not isinstance(table, dict) or not all(isinstance(v, dict)
                                                  for v in table.values()):
            raise ValueError("not a frequency table ({name: {class: count}}) "
                             "nor an events file")
    _TABLES[path] = table
    return table


def _treefix_result(path: str, opts: Options, generator: str, **kw):
    """A Result for the coverage of Treefix's prefix set P (injection stays on
    under every prefix); the best single prefix's coverage rides along."""
    import lexecutor_c
    from lexecutor_c.engine.result import Result
    t0 = time.monotonic()
    tf = lexecutor_c.treefix(path, generator=generator, n=10, k=10,
                             timeout=min(2.0, opts.timeout), budget=opts.treefix_budget, seed=0,
                             **kw)
    r = Result(filename=path, status="ok", covered_lines=len(tf.covered),
               total_lines=tf.total_lines, coverage=tf.coverage, covered=list(tf.covered),
               uncovered=list(tf.uncovered))
    r.wall_time = time.monotonic() - t0
    r.best_coverage = tf.best_coverage
    # prefix runs that timed out (a loop that never ends costs the run's timeout)
    r.prefix_runs = len(tf.tree)
    r.prefix_timeouts = sum(1 for nd in tf.tree
                            if isinstance(nd.error, dict) and nd.error.get("type") == "timeout")
    return r


def _neural_available(opts: Options) -> Optional[str]:
    try:
        from lexecutor_c.model import neural
        neural.load_shim()
    except Exception as e:          # no torch, no shim built, ...
        return f"the neural predictor is unavailable ({type(e).__name__}: {e})"
    if not os.path.exists(neural.MODEL_FILE):
        return f"no model at {neural.MODEL_FILE}"
    return None


@approach("neural", available=_neural_available,
          model=lambda opts: _file_digest(__import__("lexecutor_c.model.neural").model.neural.MODEL_FILE))
def _neural(path, seed, opts):
    return _run(path, "neural", None, opts)


@approach("treefix-offline", model=lambda opts: f"budget={opts.treefix_budget}")
def _treefix_offline(path, seed, opts):
    return _treefix_result(path, opts, "offline")


_VALUE_MODEL = None


@approach("treefix-offline-neural", available=_neural_available,
          model=lambda opts: f"budget={opts.treefix_budget}," + _file_digest(
              __import__("lexecutor_c.model.neural").model.neural.MODEL_FILE))
def _treefix_offline_neural(path, seed, opts):
    """The offline generator with the neural model as its value model
    (lexecutor_c.model.value_model), one per worker process."""
    global _VALUE_MODEL
    if _VALUE_MODEL is None:
        from lexecutor_c.model.value_model import NeuralValueModel
        _VALUE_MODEL = NeuralValueModel()
    return _treefix_result(path, opts, "offline", value_model=_VALUE_MODEL)


@approach("frequency", available=_frequency_available,
          model=lambda opts: _file_digest(opts.frequency_table))
def _frequency(path, seed, opts):
    return _run(path, "frequency", None, opts,
                frequency_table=load_frequency_table(opts.frequency_table))


# ================================================================ one task

def code_version() -> str:
    """Content hash of the engine (lexecutor_c's Python files and built
    extensions, subpackages included) plus ROW_VERSION: checkpoint rows of
    another build are redone."""
    import lexecutor_c
    pkg = os.path.dirname(lexecutor_c.__file__)
    h = hashlib.sha256()
    files = []
    for dirpath, dirnames, filenames in os.walk(pkg):     # subpackages too (prefixtree/, knowledge/, ...)
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        files += [os.path.join(dirpath, f) for f in filenames if f.endswith((".py", ".so"))]
    for p in sorted(files):
        h.update(os.path.relpath(p, pkg).encode())
        with open(p, "rb") as f:
            h.update(f.read())
    return f"{h.hexdigest()[:12]}.r{ROW_VERSION}"


@dataclass(frozen=True)
class Task:
    dataset: str
    file: str
    path: str
    approach: str
    seed: int
    version: str                  # code version + approach model + timeout

    @property
    def key(self) -> tuple:
        return (self.dataset, self.file, self.approach, self.seed, self.version)


def task_version(code: str, appr: Approach, opts: Options) -> str:
    model = appr.model(opts)
    return f"{code}|t{opts.timeout:g}" + (f"|m{model}" if model else "")


def never_complete_lines(source: str) -> set[int]:
    """First lines of ``raise``/``break``/``continue`` statements."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {n.lineno for n in ast.walk(tree) if isinstance(n, _NEVER_COMPLETE)}


def result_row(task: Task, r, source: Optional[str] = None) -> dict:
    """One benchmark row from a Result.  ``coverage`` follows the papers:
    raise/break/continue lines never count as covered, and a run whose
    coverage is unknown (the process died) counts 0.  ``engine_coverage`` is
    the Result's own number."""
    engine_cov = r.coverage
    covered = r.covered_lines
    if covered is not None and source is not None:
        covered -= len(never_complete_lines(source) & set(r.covered))
    total = r.total_lines
    if covered is None or not total:
        cov = 1.0 if total == 0 else 0.0
    else:
        cov = covered / total
    exc = r.exception or {}
    return {
        "dataset": task.dataset, "file": task.file, "approach": task.approach,
        "seed": task.seed, "version": task.version,
        "status": r.status, "coverage": cov, "coverage_known": r.coverage is not None,
        "covered_lines": covered, "total_lines": total,
        "engine_coverage": engine_cov, "engine_covered_lines": r.covered_lines,
        "wall_time": round(float(r.wall_time), 6),
        "injections": len(r.injections), "failed_imports": len(r.failed_imports),
        "exception": exc.get("type"), "exception_line": exc.get("line"),
        "exception_message": " ".join(str(exc.get("message") or "").split())[:300] or None,
        "error": r.error, "signal": r.signal, "exit_code": r.exit_code,
        "covered": list(r.covered), "uncovered": list(r.uncovered),
        "best_coverage": getattr(r, "best_coverage", None),
        "prefix_runs": getattr(r, "prefix_runs", None),
        "prefix_timeouts": getattr(r, "prefix_timeouts", None),
    }


def error_row(task: Task, status: str, message: str, wall: float = 0.0) -> dict:
    return {
        "dataset": task.dataset, "file": task.file, "approach": task.approach,
        "seed": task.seed, "version": task.version, "status": status, "coverage": 0.0,
        "coverage_known": False, "covered_lines": None, "total_lines": None,
        "engine_coverage": None, "engine_covered_lines": None, "wall_time": round(wall, 6),
        "injections": 0, "failed_imports": 0, "exception": None, "exception_line": None,
        "exception_message": None, "error": " ".join(str(message).split())[:500],
        "signal": None, "exit_code": None,
        "covered": [], "uncovered": [],
    }


def run_task(task: Task, opts: Options) -> dict:
    """Execute one task (in a worker process); never raises for anything the
    snippet does: unreadable or unparsable input is an ``error`` row."""
    t0 = time.monotonic()
    try:
        with open(task.path, "rb") as f:
            data = f.read()
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError:
            source = None
        r = APPROACHES[task.approach].run(task.path, task.seed, opts)
    except Exception as e:          # SyntaxError, SourceError, OSError, engine bugs
        return error_row(task, "error", f"{type(e).__name__}: {e}", time.monotonic() - t0)
    return result_row(task, r, source)


# ================================================================ executors

def make_executor(kind: str = "local", workers: Optional[int] = None,
                  scheduler: Optional[str] = None):
    """(executor, close): the shared executors of lexecutor_c.engine.executors
    (``local`` process pool, ``dask`` LocalCluster or the scheduler at
    ``scheduler``, ``ray`` local instance or the cluster at ``scheduler``);
    their workers get the repository on sys.path (benchmarks.coverage)."""
    from lexecutor_c.engine import executors
    spec = kind
    if scheduler and kind in ("dask", "ray"):
        spec = scheduler if "://" in scheduler or scheduler == "ray:auto" else \
            f"{kind}://{scheduler}"
    ex = executors.open_executor(spec, workers, sys_path=[REPO])
    return ex, ex.close


def _run_one(payload):
    return run_task(*payload)


# ================================================================ checkpoint + runner

class Checkpoint:
    """Append-only JSONL of finished rows, keyed by Task.key."""

    def __init__(self, path: str, fresh: bool = False):
        self.path = path
        self.rows: dict[tuple, dict] = {}
        if fresh and os.path.exists(path):
            os.replace(path, path + ".old")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    try:
                        row = json.loads(line)
                    except json.JSONDecodeError:      # a line cut by an interruption
                        continue
                    self.rows[_row_key(row)] = row
        self._f = None

    def __contains__(self, key):
        return key in self.rows

    def add(self, row: dict) -> None:
        if self._f is None:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            self._f = open(self.path, "a", encoding="utf-8")
        self._f.write(json.dumps(row) + "\n")
        self._f.flush()
        self.rows[_row_key(row)] = row

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None


def _row_key(row: dict) -> tuple:
    return (row["dataset"], row["file"], row["approach"], row["seed"], row["version"])


def run_tasks(tasks: list[Task], opts: Options, executor,
              checkpoint: Optional[Checkpoint] = None,
              on_row: Optional[Callable[[dict, bool], None]] = None,
              window: Optional[int] = None) -> list[dict]:
    """Run the tasks not already in the checkpoint on ``executor`` (from
    make_executor; a batch whose worker was lost is resubmitted there); rows in
    ``tasks`` order.  ``on_row(row, cached)`` after each (raising from it,
    e.g. KeyboardInterrupt, stops the run; finished rows stay checkpointed).
    An exception of the executor itself (a worker died) gives an ``error``
    row that is not checkpointed, so a restart tries it again."""
    done: dict[tuple, dict] = {}
    todo = []
    for t in tasks:
        if checkpoint is not None and t.key in checkpoint:
            done[t.key] = checkpoint.rows[t.key]
            if on_row:
                on_row(done[t.key], True)
        else:
            todo.append(t)
    from lexecutor_c.engine import executors
    for (t, _), row in executors.run_batches(executor, _run_one, ((t, opts) for t in todo),
                                             window=window):
        if isinstance(row, BaseException):   # the executor's own failure: not checkpointed
            row = error_row(t, "error", f"executor: {type(row).__name__}: {row}")
        elif checkpoint is not None:
            checkpoint.add(row)
        done[t.key] = row
        if on_row:
            on_row(row, False)
    return [done[t.key] for t in tasks if t.key in done]


def make_tasks(snippets: list[Snippet], approaches: list[str], seeds: list[int],
               opts: Options, code: Optional[str] = None) -> list[Task]:
    code = code or code_version()
    digests = {sn.path: _file_digest(sn.path)[:10] for sn in snippets}
    tasks = []
    for a in approaches:
        appr = APPROACHES[a]
        version = task_version(code, appr, opts)
        for s in (seeds if appr.seeded else seeds[:1]):
            for sn in snippets:
                # the snippet's content too: a rebuilt data folder reruns what changed
                tasks.append(Task(sn.dataset, sn.file, sn.path, a, s,
                                  f"{version}|f{digests[sn.path]}"))
    return tasks


# ================================================================ summary

def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def _total_lines(row: dict, by_snip: dict) -> Optional[int]:
    """A row's line count; a run that failed before counting (``error``) takes
    the snippet's count from the line check."""
    if row.get("total_lines"):
        return row["total_lines"]
    s = by_snip.get((row["dataset"], row["file"]))
    return s.total_lines if s is not None else None


def summarize(rows: list[dict], snippets: list[Snippet]) -> dict:
    """Per dataset (and ``overall``) and approach: n, mean coverage (papers'
    rule), mean engine coverage, full-execution rate (coverage 1.0), mean
    seconds per snippet, ms per counted line, statuses; and the reference
    numbers (Treefix+GPT-4o on the same snippets, LExecutor's paper)."""
    by_snip = {s.key: s for s in snippets}
    approaches = list(dict.fromkeys(r["approach"] for r in rows))
    groups = list(dict.fromkeys(s.dataset for s in snippets))
    out = {"approaches": {}, "reference": {}}
    for g in groups + ["overall"]:
        out["approaches"][g] = {}
        for a in approaches:
            rs = [r for r in rows if r["approach"] == a and (g == "overall" or r["dataset"] == g)]
            if not rs:
                continue
            statuses: dict[str, int] = {}
            for r in rs:
                statuses[r["status"]] = statuses.get(r["status"], 0) + 1
            lines = sum(_total_lines(r, by_snip) or 0 for r in rs)
            secs = sum(r["wall_time"] for r in rs)
            out["approaches"][g][a] = {
                "n": len(rs),
                "snippets": len({(r["dataset"], r["file"]) for r in rs}),
                "coverage": _mean(r["coverage"] for r in rs),
                "engine_coverage": _mean(r["engine_coverage"] if r["coverage_known"] else 0.0
                                         for r in rs),
                "median_coverage": statistics.median(r["coverage"] for r in rs),
                "full_rate": sum(1 for r in rs if r["coverage"] >= 1.0 - 1e-12) / len(rs),
                "seconds_per_snippet": secs / len(rs),
                "ms_per_line": 1000 * secs / lines if lines else None,
                "statuses": statuses,
                "timeouts": statuses.get("timeout", 0),
            }
            runs = [r for r in rs if r.get("prefix_runs") is not None]
            if runs:     # prefix-set approaches: their prefix runs that timed out
                out["approaches"][g][a]["prefix_runs"] = sum(r["prefix_runs"] for r in runs)
                out["approaches"][g][a]["prefix_timeouts"] = sum(r["prefix_timeouts"] or 0
                                                                 for r in runs)
                out["approaches"][g][a]["snippets_with_prefix_timeouts"] = sum(
                    1 for r in runs if r["prefix_timeouts"])
            best = [r["best_coverage"] for r in rs if r.get("best_coverage") is not None]
            if best:     # prefix-set approaches: their best single prefix too
                out["approaches"][g][f"{a}, best prefix"] = {
                    "n": len(best), "snippets": len(best), "coverage": _mean(best),
                    "engine_coverage": None, "median_coverage": statistics.median(best),
                    "full_rate": sum(1 for b in best if b >= 1.0 - 1e-12) / len(best),
                    "seconds_per_snippet": None, "ms_per_line": None, "statuses": {},
                }
        sn = [s for s in snippets if g == "overall" or s.dataset == g]
        withp = [s for s in sn if s.coverage_P is not None]
        out["reference"][g] = {
            "snippets": len(sn),
            "treefix_snippets": len(withp),
            "treefix_coverage_P": _mean(s.coverage_P for s in withp),
            "treefix_coverage_pbest": _mean(s.coverage_pbest for s in withp),
            "treefix_full_rate_P": (sum(1 for s in withp if s.coverage_P >= 1.0 - 1e-12)
                                    / len(withp)) if withp else None,
            "lexecutor_paper": PAPER_LEXECUTOR.get(g),
            "as_is_paper": PAPER_AS_IS.get(g),
        }
    return out


# ================================================================ line counting

def _marker_spans(texts: dict) -> dict:
    import lexecutor_c
    out = {}
    for key, text in texts.items():
        try:
            inst = lexecutor_c.instrument(text, filename=key)
            out[key] = [[int(li.line), int(getattr(li, "end_line", li.line))]
                        for li in inst.lines]
        except Exception as e:
            out[key] = f"{type(e).__name__}: {e}"
    return out


def line_agreement(snippets: list[Snippet], isolate: bool = True) -> dict:
    """Compare our line markers with the papers': per snippet the count with
    ``treefix_gpt4o.csv``'s total_lines and the lines with lines.json (a
    paper line matches a marker whose statement spans it).  The instrumenter
    runs in one sandbox child (it reads unreviewed code)."""
    texts = {}
    for s in snippets:
        with open(s.path, "rb") as f:
            texts[s.file] = f.read().decode("utf-8", errors="replace")
    spans = None
    if isolate:
        from lexecutor_c.engine.sandbox import Limits, call_isolated
        o = call_isolated(_marker_spans, texts, limits=Limits(timeout=120))
        if o.status == "ok" and isinstance(o.value, dict):
            spans = o.value
    if spans is None:      # the batch died: one child per snippet
        spans = {}
        for k, t in texts.items():
            if isolate:
                from lexecutor_c.engine.sandbox import Limits, call_isolated
                o = call_isolated(_marker_spans, {k: t}, limits=Limits(timeout=30))
                spans[k] = o.value[k] if o.status == "ok" else f"instrumenter {o.describe()}"
            else:
                spans.update(_marker_spans({k: t}))
    per = []
    for s in snippets:
        sp = spans.get(s.file)
        entry = {"dataset": s.dataset, "file": s.file, "paper_total_lines": s.paper_total_lines}
        if isinstance(sp, str):
            entry.update(total_lines=None, count_match=False, lines_match=False, reason=sp)
            per.append(entry)
            continue
        entry["total_lines"] = len(sp)
        s.total_lines = len(sp)
        entry["count_match"] = (s.paper_total_lines is None or
                                len(sp) == s.paper_total_lines)
        reason = ""
        if s.paper_lines is not None:
            paper = list(s.paper_lines)
            unmatched_paper = [ln for ln in paper if not any(a <= ln <= b for a, b in sp)]
            unmatched_ours = [[a, b] for a, b in sp
                              if not any(a <= ln <= b for ln in paper)]
            entry["lines_match"] = not unmatched_paper and not unmatched_ours
            entry["paper_only"] = unmatched_paper
            entry["ours_only"] = [a if a == b else f"{a}-{b}" for a, b in unmatched_ours]
            if not entry["lines_match"] or not entry["count_match"]:
                reason = _mismatch_reason(texts[s.file], unmatched_paper, unmatched_ours,
                                          len(sp), s.paper_total_lines)
        else:
            entry["lines_match"] = None
            if not entry["count_match"]:
                reason = f"{len(sp)} markers, the papers count {s.paper_total_lines}"
        entry["reason"] = reason
        per.append(entry)
    summary = {}
    for g in list(dict.fromkeys(s.dataset for s in snippets)) + ["overall"]:
        mine = [e for e in per if g == "overall" or e["dataset"] == g]
        es = [e for e in mine if e["paper_total_lines"] is not None]
        summary[g] = {"compared": len(es),
                      "count_match": sum(1 for e in es if e["count_match"]),
                      "lines_match": sum(1 for e in es if e.get("lines_match")),
                      "snippets": len(mine),
                      "lines": sum(e["total_lines"] or 0 for e in mine)}
    return {"summary": summary, "snippets": per,
            "mismatches": [e for e in per if e["paper_total_lines"] is not None and
                           (not e["count_match"] or e.get("lines_match") is False)]}


def _mismatch_reason(text: str, paper_only: list, ours_only: list, ours: int,
                     theirs: Optional[int]) -> str:
    """One line saying why: what the papers count that we do not, and back."""
    src = text.splitlines()
    parts = []
    try:
        tree = ast.parse(text)
        stmts = {n.lineno: n for n in ast.walk(tree) if isinstance(n, ast.stmt)}
    except SyntaxError:
        stmts = {}

    def what(ln):
        n = stmts.get(ln)
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and \
                isinstance(n.value.value, str):
            return "a bare string statement"
        code = src[ln - 1].strip() if 0 < ln <= len(src) else "?"
        return repr(code[:40])
    if paper_only:
        parts.append("papers count " + ", ".join(f"line {ln} ({what(ln)})" for ln in paper_only)
                     + ", we do not")
    if ours_only:
        parts.append("we count " + ", ".join(f"line {a}" + ("" if a == b else f"-{b}") +
                                             f" ({what(a)})" for a, b in ours_only)
                     + ", the papers do not")
    if theirs is not None and ours != theirs:
        parts.append(f"{ours} markers vs {theirs}")
    return "; ".join(parts)


# ================================================================ output

def _pct(x, digits=1):
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def table_rows(summary: dict) -> list[list[str]]:
    """Rows of the results table: per dataset its approaches, then the
    reference numbers."""
    rows = []
    for g, per in summary["approaches"].items():
        ref = summary["reference"][g]
        for a, m in per.items():
            st = ", ".join(f"{k} {v}" for k, v in sorted(m["statuses"].items()))
            rows.append([g, a, str(m["snippets"]), _pct(m["coverage"]),
                         _pct(m["engine_coverage"]), _pct(m["full_rate"], 0),
                         "" if m["seconds_per_snippet"] is None
                         else f"{m['seconds_per_snippet']:.3f}",
                         "-" if m["ms_per_line"] is None else f"{m['ms_per_line']:.2f}", st])
        if ref["treefix_snippets"]:
            rows.append([g, "Treefix+GPT-4o, P", str(ref["treefix_snippets"]),
                         _pct(ref["treefix_coverage_P"]), "", _pct(ref["treefix_full_rate_P"], 0),
                         "", "", "published per snippet"])
            rows.append([g, "Treefix+GPT-4o, best prefix", str(ref["treefix_snippets"]),
                         _pct(ref["treefix_coverage_pbest"]), "", "", "", "",
                         "published per snippet"])
        if ref["lexecutor_paper"] is not None:
            rows.append([g, "LExecutor paper (neural)", "full set",
                         _pct(ref["lexecutor_paper"]), "", "", "", "", "published mean"])
            rows.append([g, "as-is, LExecutor paper", "full set", _pct(ref["as_is_paper"]),
                         "", "", "", "", "published mean"])
    return rows


TABLE_COLUMNS = ["dataset", "approach", "snippets", "coverage", "engine cov.", "full exec.",
                 "s/snippet", "ms/line", "statuses"]


def markdown_table(summary: dict) -> str:
    cols = TABLE_COLUMNS[:-1]
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in table_rows(summary):
        r = r[:-1]
        out.append("| " + " | ".join(c if c else "" for c in r) + " |")
    return "\n".join(out) + "\n" + timeout_lines(summary)


def timeout_lines(summary: dict) -> str:
    """Runs that timed out, per dataset and approach (prefix-set approaches:
    their prefix runs), as markdown list items; empty when none ran."""
    out = []
    for g, per in summary["approaches"].items():
        parts = []
        for a, m in per.items():
            if "timeouts" not in m:
                continue
            text = f"{a} {m['timeouts']} of {m['n']}"
            if "prefix_runs" in m:
                text = (f"{a} {m['prefix_timeouts']} of {m['prefix_runs']} prefix runs "
                        f"({m['snippets_with_prefix_timeouts']} snippets)")
            parts.append(text)
        if parts:
            out.append(f"- timed out, {g}: " + "; ".join(parts))
    return ("\n" + "\n".join(out) + "\n") if out else ""


def print_table(summary: dict, console=None, title="Line coverage per snippet") -> None:
    from rich.console import Console
    from rich.table import Table
    console = console or Console()
    t = Table(title=title, title_justify="left")
    for c in TABLE_COLUMNS:
        t.add_column(c, justify="right" if c not in ("dataset", "approach", "statuses")
                     else "left", overflow="fold")
    last = None
    for r in table_rows(summary):
        if last is not None and r[0] != last:
            t.add_section()
        last = r[0]
        style = "dim" if r[-1].startswith("published") else None
        t.add_row(*r, style=style)
    console.print(t)


CSV_FIELDS = ["dataset", "file", "approach", "seed", "status", "coverage", "covered_lines",
              "total_lines", "engine_coverage", "engine_covered_lines", "coverage_known",
              "wall_time", "injections", "failed_imports", "exception", "exception_line",
              "exception_message", "error", "signal", "exit_code", "paper_total_lines", "treefix_coverage_P",
              "treefix_coverage_pbest", "version"]


def write_outputs(out_dir: str, rows: list[dict], snippets: list[Snippet], summary: dict,
                  lines: Optional[dict], meta: dict, plot: bool = True) -> dict:
    os.makedirs(out_dir, exist_ok=True)
    by_snip = {s.file: s for s in snippets}
    paths = {"csv": os.path.join(out_dir, "rows.csv"),
             "json": os.path.join(out_dir, "results.json"),
             "markdown": os.path.join(out_dir, "table.md")}
    with open(paths["csv"], "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            s = by_snip.get(r["file"])
            w.writerow(dict(r, paper_total_lines=s and s.paper_total_lines,
                            treefix_coverage_P=s and s.coverage_P,
                            treefix_coverage_pbest=s and s.coverage_pbest))
    doc = {"version": 1, "meta": meta, "summary": summary,
           "line_agreement": lines,
           "snippets": [dataclasses.asdict(s) | {"path": None} for s in snippets],
           "rows": rows}
    with open(paths["json"], "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    with open(paths["markdown"], "w", encoding="utf-8") as f:
        f.write(markdown_table(summary))
    if plot:
        try:
            paths["png"] = boxplot(os.path.join(out_dir, "coverage_boxplot.png"), rows,
                                   snippets)
        except ImportError:
            paths["png"] = None
    return paths


def boxplot(path: str, rows: list[dict], snippets: list[Snippet]) -> str:
    """Box plots of per-snippet coverage per approach, one panel per dataset
    (like Figure 4 of the LExecutor paper), Treefix+GPT-4o beside them."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    approaches = list(dict.fromkeys(r["approach"] for r in rows))
    groups = [d for d in dict.fromkeys(s.dataset for s in snippets)
              if any(r["dataset"] == d for r in rows)]
    fig, axes = plt.subplots(1, len(groups), figsize=(3.2 + 1.1 * (len(approaches) + 2)
                                                       * len(groups), 4.2),
                             sharey=True, squeeze=False)
    for ax, g in zip(axes[0], groups):
        data, labels, colors = [], [], []
        for a in approaches:
            per_file: dict[str, list] = {}
            for r in rows:
                if r["approach"] == a and r["dataset"] == g:
                    per_file.setdefault(r["file"], []).append(r["coverage"])
            data.append([100 * sum(v) / len(v) for v in per_file.values()])
            labels.append(a)
            colors.append("#9ecae1")
        sn = [s for s in snippets if s.dataset == g and s.coverage_P is not None
              and any(r["file"] == s.file for r in rows)]
        if sn:
            data.append([100 * min(s.coverage_P, 1.0) for s in sn])
            labels.append("Treefix\nGPT-4o P")
            colors.append("#fdd0a2")
            data.append([100 * s.coverage_pbest for s in sn])
            labels.append("Treefix\nbest prefix")
            colors.append("#fdd0a2")
        bp = ax.boxplot(data, patch_artist=True, showmeans=True, widths=0.6,
                        meanprops=dict(marker="^", markerfacecolor="black",
                                       markeredgecolor="black", markersize=5),
                        medianprops=dict(color="#08519c"))
        ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=8)
        for patch, c in zip(bp["boxes"], colors):
            patch.set_facecolor(c)
        for i, d in enumerate(data, start=1):
            if d:
                ax.annotate(f"{sum(d) / len(d):.1f}", (i, 103), ha="center", va="bottom",
                            fontsize=7)
        ax.set_title(f"{DATASET_TITLES.get(g, g)} (n={len(data[0]) if data else 0})",
                     fontsize=10)
        ax.set_ylim(-3, 112)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("line coverage per snippet (%)")
    fig.suptitle("Line coverage per snippet (triangle and number: mean)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


# ================================================================ main

DESCRIPTION = ("Line coverage of incomplete code per approach on the Treefix sample "
               "(or any folder of snippets), as the papers measure it.")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.coverage", description=DESCRIPTION)
    add_arguments(p)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``python -m benchmarks.coverage``."""
    p.add_argument("--data", action="append", default=None, metavar="DIR",
                   help="a folder of snippets: DIR/*.py (one dataset named after DIR) or "
                        "DIR/<dataset>/*.py; repeatable (default: <repo>/../shared/bench/"
                        "treefix_sample)")
    p.add_argument("--reference", default=None, metavar="CSV",
                   help="Treefix results per snippet (file,total_lines,coverage_P,"
                        "coverage_pbest); default DIR/treefix_gpt4o.csv where present, "
                        "else no Treefix+GPT-4o rows")
    p.add_argument("--dataset", nargs="+", default=None, metavar="NAME",
                   help="only these datasets (default: all of each DIR; for the sample "
                        "functions and so)")
    p.add_argument("--approach", nargs="+", default=None, metavar="NAME",
                   help=f"approaches ({', '.join(APPROACHES)}; default: all available)")
    p.add_argument("--files", nargs="+", default=None, metavar="GLOB",
                   help="only these snippets (e.g. 'so/snippet_1*.py', 'black_body_0.py')")
    p.add_argument("--seeds", nargs="+", type=int, default=[0], metavar="N",
                   help="seeds for seeded approaches (random); default 0")
    p.add_argument("--treefix-budget", type=float, default=5.0, metavar="S",
                   help="seconds of prefix search per snippet for treefix-* (default 5)")
    p.add_argument("--timeout", type=float, default=10.0, metavar="S",
                   help="wall-clock seconds per snippet (default 10)")
    p.add_argument("--frequency-table", default=None, metavar="PATH",
                   help="frequency table or recorded events file (default: the shipped "
                        "lexecutor_c/model/frequency.json.gz)")
    p.add_argument("--executor", choices=("local", "dask", "ray"), default="local",
                   help="lexecutor_c.engine.executors: a process pool, Dask or Ray")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler (HOST:PORT) or Ray cluster (ray://HOST:PORT) "
                        "instead of a local one")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes (default: CPU count)")
    p.add_argument("--out", default=DEFAULT_OUT, help="output folder (default bench-out/)")
    p.add_argument("--fresh", action="store_true", help="ignore the checkpoint")
    p.add_argument("--markdown", action="store_true", help="print the markdown table")
    p.add_argument("--no-plot", action="store_true", help="skip the PNG")
    p.add_argument("--no-progress", action="store_true")


def select_approaches(names: Optional[list[str]], opts: Options, say) -> list[str]:
    """The approaches to run: ``names`` (default: all registered), less those
    whose ``available`` check fails (said through ``say``)."""
    chosen = []
    for n in names or list(APPROACHES):
        if n not in APPROACHES:
            raise ValueError(f"unknown approach {n!r}; known: {', '.join(APPROACHES)}")
        why = APPROACHES[n].available(opts)
        if why:
            say(f"skipping approach {n}: {why}")
            continue
        chosen.append(n)
    return chosen


def main(argv: Optional[list[str]] = None) -> int:
    return run_benchmark(build_parser().parse_args(argv))


def run_benchmark(args: argparse.Namespace) -> int:
    """The benchmark for parsed options; returns the exit status (0 done,
    1 the executor broke, 2 bad input, 130 interrupted: rerun to resume)."""
    from rich.console import Console
    console = Console(width=None if sys.stdout.isatty() else 160)
    err = Console(stderr=True)
    freq = args.frequency_table
    if freq is None and os.path.exists(DEFAULT_FREQUENCY_TABLE):
        freq = DEFAULT_FREQUENCY_TABLE
    opts = Options(timeout=args.timeout, frequency_table=freq,
                   treefix_budget=args.treefix_budget)
    try:
        approaches = select_approaches(args.approach, opts,
                                       lambda m: err.print(m, style="yellow", markup=False))
    except ValueError as e:
        err.print(str(e), style="red", markup=False)
        return 2
    if not approaches:
        err.print("no approach to run")
        return 2
    data_dirs = args.data or [DEFAULT_DATA]
    try:
        snippets = load_datasets(data_dirs, args.dataset, args.files, args.reference)
    except (FileNotFoundError, ValueError) as e:
        err.print(str(e), style="red", markup=False)
        return 2
    except OSError as e:
        err.print(f"cannot read the data: {e}", style="red", markup=False)
        return 2
    if not snippets:
        err.print("no snippets selected")
        return 2
    t_start = time.monotonic()
    code = code_version()
    tasks = make_tasks(snippets, approaches, args.seeds, opts, code)
    os.makedirs(args.out, exist_ok=True)
    ckpt = Checkpoint(os.path.join(args.out, "checkpoint.jsonl"), fresh=args.fresh)
    cached = sum(1 for t in tasks if t.key in ckpt)
    err.print(f"{len(snippets)} snippets x {', '.join(approaches)}: {len(tasks)} runs "
              f"({cached} from the checkpoint), timeout {args.timeout:g} s, "
              f"executor {args.executor}, code {code}")
    from lexecutor_c.engine.executors import ExecutorError
    try:
        executor, close = make_executor(args.executor, args.workers, args.scheduler)
    except ExecutorError as e:
        err.print(f"error: {e}", markup=False)
        return 2
    progress = None
    _sigterm_interrupts()
    try:
        if not args.no_progress:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
            progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TimeElapsedColumn(),
                                TimeRemainingColumn(), console=err, transient=False)
            progress.start()
            bar = progress.add_task("running", total=len(tasks))

        def on_row(row, was_cached):
            if progress is not None:
                progress.update(bar, advance=1,
                                description=f"{row['approach']:>9} {row['file']}")
        rows = run_tasks(tasks, opts, executor, ckpt, on_row)
    except KeyboardInterrupt:
        if progress is not None:
            progress.stop()
        err.print(f"interrupted: {len(ckpt.rows)} rows kept in {ckpt.path}; run again to "
                  "resume")
        return 130
    except cf.BrokenExecutor as e:
        if progress is not None:
            progress.stop()
        err.print(f"the executor broke ({type(e).__name__}: {e}); {len(ckpt.rows)} rows kept "
                  f"in {ckpt.path}; run again to resume", markup=False)
        return 1
    finally:
        if progress is not None:
            progress.stop()
        ckpt.close()
        close()
    elapsed = time.monotonic() - t_start
    lines = line_agreement(snippets)
    by_snip = {s.key: s for s in snippets}
    for r in rows:
        if not r.get("total_lines"):
            r["total_lines"] = _total_lines(r, by_snip)
    summary = summarize(rows, snippets)
    meta = {"approaches": approaches, "seeds": args.seeds, "timeout": args.timeout,
            "executor": args.executor, "workers": args.workers or os.cpu_count(),
            "code_version": code, "data": [os.path.abspath(d) for d in data_dirs],
            "reference": args.reference,
            "frequency_table": freq if "frequency" in approaches else None,
            "elapsed_seconds": round(elapsed, 2), "runs": len(tasks),
            "runs_from_checkpoint": cached, "python": sys.version.split()[0]}
    paths = write_outputs(args.out, rows, snippets, summary, lines, meta,
                          plot=not args.no_plot)
    print_table(summary, console)
    show_line_agreement(lines, console)
    if args.markdown:
        console.file.flush()
        sys.stdout.write(markdown_table(summary))
        sys.stdout.flush()
    console.print(f"{len(tasks)} runs in {elapsed:.1f} s ({cached} from the checkpoint); "
                  f"outputs: {', '.join(p for p in paths.values() if p)}",
                  highlight=False)
    return 0


def _sigterm_interrupts() -> None:
    """SIGTERM stops the run like Ctrl-C (finished rows stay checkpointed)."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return

    def handler(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


def show_line_agreement(lines: dict, console) -> None:
    s = lines["summary"]
    console.print("Lines counted: " + "; ".join(
        f"{g}: {v['lines']} in {v['snippets']} snippets" for g, v in s.items()),
        highlight=False)
    parts = [f"{g}: {v['count_match']}/{v['compared']} counts, {v['lines_match']}/"
             f"{v['compared']} line sets" for g, v in s.items() if v["compared"]]
    if parts:
        console.print("Line counting vs the papers (total_lines of the reference CSV, "
                      "lines.json): " + "; ".join(parts), highlight=False)
    for e in lines["mismatches"]:
        tag = "count" if not e["count_match"] else "lines"
        console.print(f"  {e['file']}: {e['total_lines']} vs {e['paper_total_lines']} "
                      f"[{tag}] {e['reason']}", highlight=False, markup=False)


if __name__ == "__main__":
    sys.exit(main())
