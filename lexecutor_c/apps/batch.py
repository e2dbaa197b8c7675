"""Run one task over a whole corpus: ``lexecutor-c batch`` and ``lexecutor_c.batch``.

    lexecutor_c.batch("snippets.jsonl", out="results/", task="run",
                      executor="dask", workers=8)

Items come from a folder of ``.py`` files, a ``.py`` file, a JSONL file
(``.jsonl``, ``.jsonl.gz``; one JSON object a line) or a Parquet file, read
as a stream (the code is in the column ``code_column``).  Each item is keyed
by the content hash of (task, options, code): an item whose key is already
in ``out`` is skipped, so a run that was killed continues where it stopped,
and an item that appears twice runs once.

``out`` is a folder of Parquet parts (``part-*.parquet``, one row per item;
each part is written to a hidden temporary name and renamed, so the folder
can be read while it grows: ``pyarrow.parquet.read_table(out)``), the run's
options (``_batch.json``) and a summary (``_summary.json``).  Only the driver
writes; results arrive from the workers (engine/executors.py: a local process
pool, Dask or Ray) in batches.  Every item runs confined in the sandbox, as
``lexecutor-c run`` does.

Row columns: ``key`` (32 hex digits), ``id`` (where the item came from: a
relative path, ``FILE:LINE`` or the id column), ``index`` (position in the
input), ``task``, ``status`` (the run's status: ok, exit, exception,
timeout, crashed, memory, ...; ``error`` when the input could not be read or
parsed), ``coverage``, ``covered_lines``, ``total_lines``, ``covered`` (line
numbers), ``injections`` (count), ``exception`` (``Type: message``),
``error``, ``seconds``, ``worker`` (``host:pid``) and ``detail``: the task's
own result as a JSON document (the run's injections and output, the trace,
the Treefix prefixes and tree, the error groups, the instrumented text).
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Tuple

from ..engine import executors as ex

__all__ = ["TASKS", "BatchError", "BatchSummary", "batch", "auto_batch_size", "iter_items",
           "read_results", "run_items"]

TASKS = ("run", "treefix", "trace", "errors", "instrument")
#: options each task takes (anything else is refused)
TASK_OPTIONS = {
    "run": {"predictor", "abstraction", "seed", "randomize", "timeout", "allow_missing"},
    "trace": {"predictor", "abstraction", "seed", "randomize", "timeout", "allow_missing",
              "max_steps", "treefix", "treefix_budget"},
    "treefix": {"predictor", "seed", "timeout", "budget", "n", "k"},
    "errors": {"seeds", "timeout", "treefix", "treefix_budget"},
    "instrument": set(),
}
DETAIL_MAX = 200_000          # characters of one row's detail JSON (longer: cut, noted)
OUTPUT_MAX = 2_000            # characters of a run's stdout/stderr kept in detail


class BatchError(Exception):
    """Bad input or options for a batch run (the CLI reports it in one line, exit 2)."""


# ================================================================ items

@dataclass
class Item:
    index: int
    id: str
    code: Optional[str]             # None: could not be read (see error)
    error: Optional[str] = None
    key: str = ""


def _key(task: str, options_json: str, code: Optional[str], error: Optional[str]) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(task.encode() + b"\0" + options_json.encode() + b"\0")
    if code is None:
        h.update(b"\1" + (error or "").encode("utf-8", "replace"))
    else:
        h.update(b"\0" + code.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _decode(data: bytes) -> Tuple[Optional[str], Optional[str]]:
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as e:
        return None, f"not UTF-8: {e}"


def _walk(root: str) -> Iterator[str]:
    """``.py`` files under ``root``, in sorted order, one directory at a time."""
    stack = [root]
    while stack:
        d = stack.pop()
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if not e.name.startswith(".") and e.name != "__pycache__":
                    subdirs.append(e.path)
            elif e.name.endswith(".py") and e.is_file():
                yield e.path
        stack.extend(reversed(subdirs))


def _kind(source: str) -> str:
    if os.path.isdir(source):
        return "folder"
    low = source.lower()
    if low.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
        return "jsonl"
    if low.endswith((".parquet", ".pq")):
        return "parquet"
    if low.endswith(".py"):
        return "py"
    raise BatchError(f"{source}: not a folder, .py, .jsonl(.gz) or .parquet file")


def _open_text(path: str):
    if path.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def iter_items(source: str, code_column: str = "code", id_column: Optional[str] = None
               ) -> Iterator[Item]:
    """The items of ``source``, streamed (see the module docstring).  Raises
    BatchError for a source that does not exist or lacks the code column."""
    source = os.fspath(source)
    if not os.path.exists(source):
        raise BatchError(f"{source}: no such file or folder")
    kind = _kind(source)
    if kind == "folder":
        for i, path in enumerate(_walk(source)):
            try:
                with open(path, "rb") as f:
                    code, err = _decode(f.read())
            except OSError as e:
                code, err = None, f"cannot read: {e.strerror or e}"
            yield Item(i, os.path.relpath(path, source), code, err)
    elif kind == "py":
        with open(source, "rb") as f:
            code, err = _decode(f.read())
        yield Item(0, os.path.basename(source), code, err)
    elif kind == "jsonl":
        name = os.path.basename(source)
        with _open_text(source) as f:
            index = 0
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                ident = f"{name}:{lineno}"
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    if index == 0:
                        raise BatchError(f"{source}:{lineno}: not JSON ({e.msg})") from None
                    yield Item(index, ident, None, f"not JSON: {e.msg}")
                    index += 1
                    continue
                if not isinstance(obj, dict) or code_column not in obj:
                    if index == 0:
                        cols = ", ".join(map(str, obj)) if isinstance(obj, dict) else "none"
                        raise BatchError(f"{source}:{lineno}: no column {code_column!r} "
                                         f"(columns: {cols}); choose one with --code-column")
                    yield Item(index, ident, None, f"no column {code_column!r}")
                    index += 1
                    continue
                if id_column is not None and isinstance(obj, dict) and id_column in obj:
                    ident = str(obj[id_column])
                code = obj[code_column]
                if not isinstance(code, str):
                    yield Item(index, ident, None, f"column {code_column!r} is not a string")
                else:
                    yield Item(index, ident, code)
                index += 1
    else:
        import pyarrow.parquet as pq
        try:
            pf = pq.ParquetFile(source)
        except Exception as e:          # ArrowInvalid: not a Parquet file
            raise BatchError(f"{source}: not a readable Parquet file ({e})") from None
        names = pf.schema_arrow.names
        for col in [code_column] + ([id_column] if id_column else []):
            if col not in names:
                raise BatchError(f"{source}: no column {col!r} (columns: {', '.join(names)})"
                                 + ("; choose one with --code-column" if col == code_column
                                    else ""))
        cols = [code_column] + ([id_column] if id_column else [])
        name = os.path.basename(source)
        index = 0
        for rb in pf.iter_batches(batch_size=1024, columns=cols):
            codes = rb.column(0).to_pylist()
            ids = rb.column(1).to_pylist() if id_column else None
            for j, code in enumerate(codes):
                ident = str(ids[j]) if ids is not None else f"{name}:{index}"
                if isinstance(code, bytes):
                    code, err = _decode(code)
                    yield Item(index, ident, code, err)
                elif isinstance(code, str):
                    yield Item(index, ident, code)
                else:
                    yield Item(index, ident, None, f"column {code_column!r} is not text")
                index += 1


def count_items(source: str) -> Optional[int]:
    """A quick upper bound of the number of items (for the ETA), or None."""
    try:
        kind = _kind(source)
        if kind == "folder":
            return sum(1 for _ in _walk(source))
        if kind == "py":
            return 1
        if kind == "jsonl":
            if source.lower().endswith(".gz"):
                return None
            n = 0
            with open(source, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    n += chunk.count(b"\n")
            return n
        import pyarrow.parquet as pq
        return pq.ParquetFile(source).metadata.num_rows
    except Exception:
        return None


def parse_shard(s: str) -> Tuple[int, int]:
    """``I/N`` (0 <= I < N) to (I, N)."""
    try:
        i, n = (int(x) for x in s.split("/"))
    except ValueError:
        raise BatchError(f"--shard wants I/N, e.g. 0/4, not {s!r}") from None
    if n < 1 or not 0 <= i < n:
        raise BatchError(f"--shard {s}: need 0 <= I < N")
    return i, n


def select(items: Iterable[Item], task: str, options_json: str, *,
           shard: Optional[Tuple[int, int]] = None, sample: Optional[float] = None,
           limit: Optional[int] = None) -> Iterator[Item]:
    """Key every item; keep those of the shard (by key, so the same item
    always lands in the same shard) and of the sample (a fraction, by key:
    the same items every time), at most ``limit``."""
    taken = 0
    for it in items:
        if limit is not None and taken >= limit:
            return
        it.key = _key(task, options_json, it.code, it.error)
        k = int(it.key[:16], 16)
        if shard is not None and k % shard[1] != shard[0]:
            continue
        if sample is not None and ((k >> 11) & ((1 << 53) - 1)) / float(1 << 53) >= sample:
            continue
        taken += 1
        yield it


# ================================================================ the worker side

def _cut(text: Optional[str], n: int = OUTPUT_MAX) -> Optional[str]:
    if text is None or len(text) <= n:
        return text
    return text[:n] + f"... [{len(text) - n} more characters]"


def _exc_text(exc: Any) -> Optional[str]:
    if not exc:
        return None
    if isinstance(exc, dict):
        t, m = exc.get("type", "?"), exc.get("message", "")
        return f"{t}: {m}" if m else str(t)
    return str(exc)


def _row(item: Tuple, task: str) -> dict:
    key, ident, index = item[0], item[1], item[2]
    return {"key": key, "id": ident, "index": index, "task": task, "status": "error",
            "coverage": None, "covered_lines": None, "total_lines": None, "covered": None,
            "injections": None, "exception": None, "error": None, "seconds": 0.0,
            "worker": ex.worker_id(), "detail": None}


def _do(task: str, opts: dict, code: str, ident: str, row: dict) -> None:
    """Run one item and fill in its row."""
    if task == "run":
        from ..engine.run import run
        r = run(code, filename=ident, isolate=True, **opts)
        row.update(status=r.status, coverage=r.coverage, covered_lines=r.covered_lines,
                   total_lines=r.total_lines, covered=list(r.covered),
                   injections=len(r.injections), exception=_exc_text(r.exception),
                   error=r.error)
        row["detail"] = {"injections": r.injections, "stdout": _cut(r.stdout),
                         "stderr": _cut(r.stderr), "exit_code": r.exit_code,
                         "signal": r.signal, "failed_imports": r.failed_imports}
    elif task == "trace":
        from .trace import trace
        o = dict(opts)
        o.setdefault("treefix", False)
        r = trace(code, filename=ident, isolate=True, **o)
        row.update(status=r.status, injections=len(r.injections),
                   exception=_exc_text(r.exception), error=r.error)
        row["detail"] = {"trace": r.text(), **r.to_dict()}
    elif task == "treefix":
        from ..prefixtree import treefix
        o = dict(opts)
        o.setdefault("budget", 10.0)
        r = treefix(code, filename=ident, **o)
        d = r.to_dict()
        row.update(status="ok", coverage=r.coverage, covered_lines=len(r.covered),
                   total_lines=r.total_lines, covered=list(r.covered))
        row["detail"] = d
    elif task == "errors":
        from .errors import find_errors
        o = dict(opts)
        if "treefix" in o:
            o["use_treefix"] = o.pop("treefix")
        rep = find_errors(code, filename=ident, **o)
        real = rep.real
        row.update(status="error-found" if real else "ok",
                   exception=(f"{real[0].type}: {real[0].message}" if real else None))
        row["detail"] = rep.to_dict()
    elif task == "instrument":
        from ..engine.instrument import instrument
        r = instrument(code, filename=ident)
        row.update(status="ok", total_lines=len(r.lines))
        row["detail"] = {"source": r.source, "sites": len(r.iids),
                         "undefined": [str(u) for u in r.undefined]}
    else:                               # pragma: no cover - checked by the driver
        raise ValueError(f"unknown task {task!r}")


def run_items(payload: Tuple[str, dict, list]) -> list:
    """The worker function: ``payload`` = (task, options, [(key, id, index,
    code, error), ...]); one row dict per item.  Never raises for anything an
    item does (its row says ``error``)."""
    from ..engine.sandbox import ConfinementError
    task, opts, items = payload
    rows = []
    for item in items:
        row = _row(item, task)
        code, err = item[3], item[4]
        t0 = time.monotonic()
        if code is None:
            row["error"] = err or "unreadable input"
        else:
            try:
                _do(task, opts, code, item[1], row)
            except ConfinementError:    # the sandbox cannot confine here: stop the run
                raise
            except Exception as e:     # SyntaxError, SourceError, engine bugs: the item's row
                row["status"] = "error"
                row["error"] = " ".join(f"{type(e).__name__}: {e}".split())[:2000]
        row["seconds"] = round(time.monotonic() - t0, 6)
        d = row["detail"]
        if d is not None:
            text = json.dumps(d, default=str)
            if len(text) > DETAIL_MAX:
                text = json.dumps({"cut": True, "chars": len(text),
                                   "head": text[:DETAIL_MAX]})
            row["detail"] = text
        rows.append(row)
    return rows


def warm(task: str, opts: dict) -> str:
    """Load the extension (and the model, for the neural predictor) once in
    this worker: run a trivial item (a failure shows on the first real batch)."""
    try:
        run_items((task, opts, [("0" * 32, "<warm-up>", -1, "pass\n", None)]))
    except Exception:
        pass
    return ex.worker_id()


# ================================================================ output

def _schema():
    import pyarrow as pa
    return pa.schema([
        ("key", pa.string()), ("id", pa.string()), ("index", pa.int64()), ("task", pa.string()),
        ("status", pa.string()), ("coverage", pa.float64()), ("covered_lines", pa.int64()),
        ("total_lines", pa.int64()), ("covered", pa.list_(pa.int32())),
        ("injections", pa.int64()), ("exception", pa.string()), ("error", pa.string()),
        ("seconds", pa.float64()), ("worker", pa.string()), ("detail", pa.string()),
    ])


def _parts(out: str) -> list:
    try:
        return sorted(os.path.join(out, n) for n in os.listdir(out)
                      if n.startswith("part-") and n.endswith(".parquet"))
    except FileNotFoundError:
        return []


def read_results(out: str, columns: Optional[Sequence[str]] = None):
    """The rows written so far under ``out`` as one ``pyarrow.Table``."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    parts = _parts(out)
    if not parts:
        return _schema().empty_table() if columns is None else \
            pa.schema([_schema().field(c) for c in columns]).empty_table()
    return pa.concat_tables(pq.read_table(p, columns=columns) for p in parts)


class PartWriter:
    """Buffers rows and writes them as Parquet parts: at ``flush_rows`` rows
    or ``flush_seconds`` after the first buffered row.  A part is complete or
    absent (temporary name, then rename)."""

    def __init__(self, out: str, flush_rows: int = 1000, flush_seconds: float = 10.0):
        self.out = out
        self.flush_rows = max(1, flush_rows)
        self.flush_seconds = flush_seconds
        self.rows: list = []
        self.first = 0.0
        self.seq = 0
        self.written = 0
        # unique per invocation: a part is never replaced by a later run's
        self.run_id = time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def add(self, row: dict) -> None:
        if not self.rows:
            self.first = time.monotonic()
        self.rows.append(row)
        if len(self.rows) >= self.flush_rows:
            self.flush()

    def tick(self) -> None:
        if self.rows and time.monotonic() - self.first >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        if not self.rows:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq
        table = pa.Table.from_pylist(self.rows, schema=_schema())
        name = f"part-{self.run_id}-{self.seq:05d}.parquet"
        tmp = os.path.join(self.out, "." + name + ".tmp")
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, os.path.join(self.out, name))
        self.seq += 1
        self.written += len(self.rows)
        self.rows = []


def _write_json(path: str, doc: dict) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


# ================================================================ progress

class Progress:
    """items/s and ETA on stderr: one rewritten line on a terminal, a line
    every ``every`` seconds otherwise; or a callback."""

    def __init__(self, total: Optional[int], stream=None, every: float = 10.0,
                 callback: Optional[Callable[[dict], None]] = None):
        self.total = total
        self.stream = stream
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.every = 0.2 if self.tty else every
        self.callback = callback
        self.t0 = time.monotonic()
        self.last = 0.0
        self.done = self.skipped = self.retried = 0

    def state(self) -> dict:
        el = max(1e-9, time.monotonic() - self.t0)
        rate = self.done / el
        left = None
        if self.total is not None:
            rest = max(0, self.total - self.done - self.skipped)
            left = rest / rate if rate > 0 else None
        return {"done": self.done, "skipped": self.skipped, "retried": self.retried,
                "total": self.total, "seconds": el, "items_per_s": rate, "eta_s": left}

    def show(self, force: bool = False) -> None:
        if self.callback is not None:
            self.callback(self.state())
        now = time.monotonic()
        if self.stream is None or (not force and now - self.last < self.every):
            return
        self.last = now
        s = self.state()
        tot = f"/{s['total']:,}" if s["total"] is not None else ""
        eta = _hms(s["eta_s"]) if s["eta_s"] is not None else "?"
        line = (f"batch: {s['done'] + s['skipped']:,}{tot} items ({s['done']:,} run, "
                f"{s['skipped']:,} already done, {s['retried']:,} retried)  "
                f"{s['items_per_s']:.1f} items/s  ETA {eta}")
        if self.tty:
            self.stream.write("\r" + line + "\x1b[K")
            if force:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _hms(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else \
        f"{s // 60}:{s % 60:02d}"


# ================================================================ the driver

@dataclass
class BatchSummary:
    """What one invocation did, and the totals of ``out`` after it."""
    out: str
    task: str
    executor: str
    workers: int
    selected: int = 0           # items of the input this invocation considered
    ran: int = 0                # items run (and written) now
    skipped: int = 0            # already in out (an earlier run) or a duplicate
    retried: int = 0            # items resubmitted because their worker was lost
    lost: int = 0               # items given up after max retries (not written: rerun)
    startup_seconds: float = 0.0  # starting the executor and warming its workers
    seconds: float = 0.0        # running the items (after the start)
    items_per_s: float = 0.0    # ran / seconds
    interrupted: bool = False
    rows: int = 0               # rows in out now
    statuses: dict = field(default_factory=dict)
    mean_coverage: Optional[float] = None

    def to_dict(self) -> dict:
        from dataclasses import asdict
        return asdict(self)


def _check_options(task: str, options: dict) -> dict:
    if task not in TASKS:
        raise BatchError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    bad = sorted(set(options) - TASK_OPTIONS[task])
    if bad:
        raise BatchError(f"task {task} takes no option(s) {', '.join(bad)}")
    o = {k: v for k, v in options.items() if v is not None}
    if "allow_missing" in o:
        am = o["allow_missing"]
        o["allow_missing"] = am if isinstance(am, str) else sorted(am)
        if not o["allow_missing"]:
            del o["allow_missing"]
    return o


def _done_keys(out: str) -> set:
    import pyarrow.parquet as pq
    keys: set = set()
    for p in _parts(out):
        for k in pq.read_table(p, columns=["key"]).column(0).to_pylist():
            keys.add(int(k[:16], 16))
    return keys


def _totals(out: str) -> Tuple[int, dict, Optional[float]]:
    import pyarrow.compute as pc
    t = read_results(out, columns=["status", "coverage"])
    statuses: dict = {}
    if t.num_rows:
        vc = pc.value_counts(t.column("status")).to_pylist()
        statuses = {d["values"]: d["counts"] for d in vc}
    cov = pc.mean(t.column("coverage")).as_py() if t.num_rows else None
    return t.num_rows, dict(sorted(statuses.items())), (round(cov, 4) if cov is not None
                                                         else None)


def _repo_path() -> str:
    """The folder holding the lexecutor_c package (workers put it on sys.path)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def auto_batch_size(total: Optional[int], workers: int, most: int = 16) -> int:
    """The default batch size: ``most`` items, or fewer so that a corpus of
    ``total`` items (None: not known) makes at least four batches per
    worker."""
    if not total or workers < 1:
        return most
    return max(1, min(most, -(-total // (4 * workers))))


def batch(source: str, out: str, task: str = "run", *, executor: str = "local",
          workers: Optional[int] = None, code_column: str = "code",
          id_column: Optional[str] = None, limit: Optional[int] = None,
          sample: Optional[float] = None, shard: Optional[Any] = None,
          batch_size: Optional[int] = None, flush_rows: int = 1000, flush_seconds: float = 10.0,
          max_retries: int = 3, progress: Any = None, options: Optional[dict] = None,
          _executor: Optional[ex.Executor] = None) -> BatchSummary:
    """Apply ``task`` to every item of ``source``; results under ``out``
    (see the module docstring).  ``options``: the task's options
    (predictor, timeout, seed, ...; TASK_OPTIONS).  ``shard``: ``"I/N"`` or
    (I, N).  ``progress``: a stream (sys.stderr) for the progress line, or a
    callable given a dict (done, skipped, retried, total, items_per_s,
    eta_s).  Raises BatchError for bad input or options, before anything
    runs; KeyboardInterrupt stops the run after writing what is done."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise BatchError("batch writes Parquet and needs pyarrow: pip install 'pyarrow>=17' "
                         "(or lexecutor_c[batch])") from None
    opts = _check_options(task, dict(options or {}))
    options_json = json.dumps(opts, sort_keys=True, default=str)
    if batch_size is not None and batch_size < 1:
        raise BatchError("batch size must be at least 1")
    if limit is not None and limit < 0:
        raise BatchError("--limit must not be negative")
    if sample is not None and not 0 < sample <= 1:
        raise BatchError("--sample must be a fraction in (0, 1]")
    if isinstance(shard, str):
        shard = parse_shard(shard)
    out = os.fspath(out)
    source = os.fspath(source)
    items = iter_items(source, code_column, id_column)
    first = next(items, None)           # bad input fails here, before any worker starts
    if os.path.exists(out) and not os.path.isdir(out):
        raise BatchError(f"--out {out}: exists and is not a folder")
    os.makedirs(out, exist_ok=True)
    meta_path = os.path.join(out, "_batch.json")
    meta = {"version": 1, "task": task, "options": opts}
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as f:
            old = json.load(f)
        if {k: old.get(k) for k in meta} != meta:
            raise BatchError(f"--out {out} holds results of another task or other options "
                             f"({old.get('task')} {json.dumps(old.get('options'))}); "
                             "use another folder")
    else:
        _write_json(meta_path, meta)
    for n in os.listdir(out):              # parts a killed run left half-written
        if n.startswith(".part-") and n.endswith(".tmp"):
            os.unlink(os.path.join(out, n))
    done = _done_keys(out)
    total = count_items(source)
    if total is not None:
        if sample is not None:
            total = int(total * sample + 0.5)
        if shard is not None:
            total = (total + shard[1] - 1) // shard[1]
        if limit is not None:
            total = min(total, limit)
    prog = Progress(total, stream=progress if hasattr(progress, "write") else None,
                    callback=progress if callable(progress) else None)

    def chained():
        if first is not None:
            yield first
        yield from items

    selected = select(chained(), task, options_json, shard=shard, sample=sample, limit=limit)
    summ = BatchSummary(out=out, task=task, executor=executor, workers=0)
    pending: set = set()                 # keys submitted, not yet written

    def batches():
        # the batch size: as given; by default 16 items, fewer when the
        # corpus is small for the workers (at least four batches per worker,
        # so that no worker idles while one holds a long last batch)
        size = batch_size or auto_batch_size(total, summ.workers)
        buf = []
        for it in selected:
            summ.selected += 1
            k = int(it.key[:16], 16)
            if k in done or k in pending:
                summ.skipped += 1
                prog.skipped += 1
                continue
            pending.add(k)
            buf.append((it.key, it.id, it.index, it.code, it.error))
            if len(buf) >= size:
                yield (task, opts, buf)
                buf = []
        if buf:
            yield (task, opts, buf)

    def on_retry(b, exc):
        summ.retried += len(b[2])
        prog.retried += len(b[2])

    writer = PartWriter(out, flush_rows=flush_rows, flush_seconds=flush_seconds)
    own = _executor is None
    t_start = time.monotonic()
    exe = _executor or ex.open_executor(executor, workers, sys_path=[_repo_path()],
                                        initializer=warm, initargs=(task, opts))
    t0 = time.monotonic()
    summ.startup_seconds = round(t0 - t_start, 3)
    prog.t0 = t0
    summ.workers = exe.workers
    summ.executor = exe.describe()
    # a timer thread flushes a part when results trickle in slowly
    stop = threading.Event()
    lock = threading.Lock()

    def ticker():
        while not stop.wait(1.0):
            with lock:
                writer.tick()
    tick = threading.Thread(target=ticker, daemon=True)
    tick.start()
    try:
        for b, result in ex.run_batches(exe, run_items, batches(), max_retries=max_retries,
                                        on_retry=on_retry):
            if isinstance(result, ex.WorkerLost):
                summ.lost += len(b[2])
                for it in b[2]:
                    pending.discard(int(it[0][:16], 16))
                continue
            if isinstance(result, KeyboardInterrupt):
                raise KeyboardInterrupt
            if isinstance(result, BaseException):
                hint = "" if executor == "local" else (
                    " (on a cluster, the scheduler and every worker need the same lexecutor_c"
                    " installed: docs/RUNNING.md)")
                raise BatchError(f"a batch failed in the worker (not an item's own error): "
                                 f"{type(result).__name__}: {result}{hint}") from result
            with lock:
                for row in result:
                    k = int(row["key"][:16], 16)
                    if k in done:           # a resubmitted batch that also finished
                        continue
                    done.add(k)
                    pending.discard(k)
                    writer.add(row)
                    summ.ran += 1
                    prog.done += 1
            prog.show()
    except KeyboardInterrupt:
        summ.interrupted = True
        raise
    finally:
        stop.set()
        tick.join()
        with lock:
            writer.flush()
        if own:
            try:
                exe.close()
            except Exception:
                pass
        summ.seconds = round(time.monotonic() - t0, 3)
        summ.items_per_s = round(summ.ran / summ.seconds, 2) if summ.seconds else 0.0
        prog.show(force=True)
        summ.rows, summ.statuses, summ.mean_coverage = _totals(out)
        _write_summary(out, summ)
    return summ


def _write_summary(out: str, summ: BatchSummary) -> None:
    path = os.path.join(out, "_summary.json")
    runs = []
    try:
        with open(path, encoding="utf-8") as f:
            runs = json.load(f).get("runs", [])
    except (OSError, ValueError):
        pass
    d = summ.to_dict()
    runs.append({k: d[k] for k in ("executor", "workers", "selected", "ran", "skipped",
                                   "retried", "lost", "startup_seconds", "seconds",
                                   "items_per_s",
                                   "interrupted")})
    doc = {"version": 1, "task": summ.task, "rows": summ.rows, "statuses": summ.statuses,
           "mean_coverage": summ.mean_coverage,
           "retried": sum(r["retried"] for r in runs), "runs": runs}
    _write_json(path, doc)

