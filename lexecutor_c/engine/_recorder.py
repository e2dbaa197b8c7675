"""Child side of ``lexecutor_c.record``: runs inside the recorded interpreter.

The parent (``lexecutor_c.record``) puts a ``sitecustomize.py`` on
``PYTHONPATH`` that calls :func:`start` with the settings from the
``LEXECUTOR_C_RECORD`` environment variable (a Python literal).  ``start``
installs an import hook (``lexecutor_c.engine.importhook``) that instruments the
chosen modules, one ``_core.Runtime(predictor="as-is", record=True)`` per
module, and writes the recorded events to ``<dir>/<pid>.events.gz``:
appended gzip members of JSON-array lines, one member per flush, so a
crash loses at most the events since the last flush.  Modules instrumented
(or that could not be) are listed in ``<dir>/<pid>.modules`` as
``status<TAB>module<TAB>path`` lines.

Imports are kept few on purpose (no json, no gzip, no lexecutor_c package
``__init__``): whatever this module imports before the hook is installed
cannot be instrumented afterwards.
"""
import os
import sys
import threading
import time
import zlib

from lexecutor_c import _core
from lexecutor_c.engine.importhook import InstrumentingFinder, InstrumentingLoader

ENV = "LEXECUTOR_C_RECORD"
_FLUSH_PENDING = 200_000        # flush early when this many events are waiting


def _json_str(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or 0xD800 <= o <= 0xDFFF:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _json_row(row):
    parts = []
    for v in row:
        if v is None:
            parts.append("null")
        elif isinstance(v, str):
            parts.append(_json_str(v))
        else:
            parts.append(str(int(v)))
    return "[" + ",".join(parts) + "]\n"


def _under(path, root):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Selector:
    """Which modules to instrument (see ``lexecutor_c.engine.record.record``)."""

    def __init__(self, modules, paths, excluded):
        from fnmatch import fnmatchcase
        self._fnmatch = fnmatchcase
        self.modules = list(modules)            # module-name patterns
        self.paths = list(paths)                # absolute path patterns
        self.excluded = list(excluded)          # stdlib / site-packages roots

    def _module_match(self, name):
        for pat in self.modules:
            if name == pat or name.startswith(pat + ".") or self._fnmatch(name, pat):
                return True
        return False

    def __call__(self, name, origin):
        if name == "lexecutor_c" or name.startswith("lexecutor_c."):
            return False
        if self._module_match(name):
            return True
        if not origin:
            return False
        origin = os.path.realpath(origin)
        for pat in self.paths:
            if _under(origin, pat) or self._fnmatch(origin, pat):
                # a path inside stdlib/site-packages counts only when the
                # pattern itself points there
                if any(_under(origin, ex) and not _under(pat, ex) for ex in self.excluded):
                    continue
                return True
        return False


class _Plain:
    """Stands in for an Instrumented result when instrumenting failed."""
    iids = ()

    def __init__(self, source, filename):
        self._source = source
        self.filename = filename

    def compile(self, filename=None):
        return compile(self._source, filename or self.filename, "exec", dont_inherit=True)


class RecordingLoader(InstrumentingLoader):
    """Instrumented code only for exec_module.  runpy (``python -m pkg.mod``)
    calls get_code() and executes the code in globals of its own, where the
    loaders would be missing: it gets the plain code."""

    _local = threading.local()

    def get_code(self, fullname):
        if getattr(self._local, "depth", 0) > 0:
            return super().get_code(fullname)
        self._finder.recorder.note("plain", fullname, "run by runpy, not imported")
        return self._base.get_code(fullname)

    def exec_module(self, module):
        self._local.depth = getattr(self._local, "depth", 0) + 1
        try:
            code = super().get_code(module.__spec__.name if module.__spec__ is not None
                                    else module.__name__)
        finally:
            self._local.depth -= 1
        name = module.__spec__.name if module.__spec__ is not None else module.__name__
        module.__dict__.update(self._finder.loaders_for(module))
        self._finder.hits[name] = self._finder.hits.get(name, 0) + 1
        exec(code, module.__dict__)


class RecordingFinder(InstrumentingFinder):
    """InstrumentingFinder that selects by module name *and* file path and
    gives every module its own recording Runtime (iids are per file)."""

    def __init__(self, recorder):
        super().__init__(lambda name: True, None, instrument=self._instrument)
        self.recorder = recorder
        self._loading_instrumenter = False

    def _instrument(self, source, filename):
        from lexecutor_c.engine.instrument import instrument
        try:
            return instrument(source, filename=filename)
        except Exception as e:       # keep the module working, uninstrumented
            self.recorder.note("failed", filename, f"{type(e).__name__}: {e}")
            return _Plain(source, filename)

    def find_spec(self, fullname, path=None, target=None):
        from importlib.machinery import SourceFileLoader
        if self._loading_instrumenter:
            # a module that the instrumenter itself imports (dataclasses,
            # tokenize, ...): instrumenting it would need the instrumenter
            # that is still being imported, so it stays plain
            return None
        if "lexecutor_c.engine.instrument" not in sys.modules:
            self._loading_instrumenter = True
            try:
                import lexecutor_c.engine.instrument  # noqa: F401
            finally:
                self._loading_instrumenter = False
        spec = self._path_finder.find_spec(fullname, path, target)
        if spec is None or not isinstance(spec.loader, SourceFileLoader):
            return None
        if not self.recorder.selector(fullname, spec.origin):
            return None
        spec.loader = RecordingLoader(spec.loader, self)
        return spec

    def loaders_for(self, module):
        name = module.__spec__.name if module.__spec__ is not None else module.__name__
        result = self.results.get(name)
        filename = getattr(module, "__file__", None) or name
        rt = self.recorder.new_runtime(name, filename, getattr(result, "iids", ()) or ())
        return rt.loaders()


class Recorder:
    def __init__(self, out_dir, selector, *, unique=True, flush_interval=5.0, root=None):
        self.out_dir = out_dir
        self.selector = selector
        self.unique = unique
        self.flush_interval = flush_interval
        self.root = root
        self.runtimes = []
        self.seen = set()
        self.written = 0
        self._lock = threading.Lock()
        self._open_files()

    # -- files
    def _open_files(self):
        pid = os.getpid()
        self.events_path = os.path.join(self.out_dir, f"{pid}.events.gz")
        self.modules_path = os.path.join(self.out_dir, f"{pid}.modules")

    def _append(self, path, data):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def note(self, status, filename, detail=""):
        line = "\t".join(str(x).replace("\t", " ").replace("\n", " ")
                         for x in (status, filename, detail)) + "\n"
        try:
            self._append(self.modules_path, line.encode("utf-8", "replace"))
        except OSError:
            pass

    def display_name(self, filename):
        if self.root and _under(os.path.abspath(filename), self.root):
            return os.path.relpath(os.path.abspath(filename), self.root)
        return filename

    def new_runtime(self, module, filename, sites):
        rt = _core.Runtime(sites=list(sites), predictor="as-is", record=True,
                           filename=self.display_name(filename))
        with self._lock:
            self.runtimes.append(rt)
        self.note("instrumented" if sites else "plain", module, filename)
        return rt

    # -- flushing
    def pending(self):
        return sum(len(rt.events) for rt in self.runtimes)

    def flush(self):
        with self._lock:
            rows = []
            for rt in list(self.runtimes):
                evs = rt.events
                n = len(evs)
                if not n:
                    continue
                batch = evs[:n]
                del evs[:n]
                if self.unique:
                    seen = self.seen
                    for ev in batch:
                        key = (ev[3], ev[5], ev[2], ev[0], ev[1])   # file, iid, kind, name, cls
                        if key not in seen:
                            seen.add(key)
                            rows.append(ev)
                else:
                    rows.extend(batch)
            if not rows:
                return 0
            text = "".join(_json_row(r) for r in rows).encode("utf-8")
            comp = zlib.compressobj(6, zlib.DEFLATED, 31)      # one gzip member
            self._append(self.events_path, comp.compress(text) + comp.flush())
            self.written += len(rows)
            return len(rows)

    def _loop(self):
        last = time.monotonic()
        while True:
            time.sleep(0.5)
            try:
                now = time.monotonic()
                if now - last >= self.flush_interval or self.pending() >= _FLUSH_PENDING:
                    self.flush()
                    last = now
            except Exception:        # never disturb the recorded program
                pass

    def start_thread(self):
        if self.flush_interval and self.flush_interval > 0:
            t = threading.Thread(target=self._loop, name="lexecutor-c-record-flush",
                                 daemon=True)
            t.start()

    def after_fork(self):
        # the child has copies of the parent's unflushed events: drop them
        self._lock = threading.Lock()
        for rt in self.runtimes:
            del rt.events[:]
        self._open_files()
        self.note("started", sys.executable, "fork")
        self.start_thread()

    def at_exit(self):
        try:
            self.flush()
        except Exception as e:
            sys.stderr.write(f"lexecutor_c record: could not write events: {e}\n")


_recorder = None


def start(settings):
    """Install the recording hook described by *settings* (a dict)."""
    global _recorder
    if _recorder is not None:
        return _recorder
    import atexit
    sel = Selector(settings.get("modules", ()), settings.get("paths", ()),
                   settings.get("excluded", ()))
    rec = Recorder(settings["dir"], sel, unique=settings.get("unique", True),
                   flush_interval=float(settings.get("flush_interval", 5.0)),
                   root=settings.get("root"))
    rec.note("started", sys.executable, "")
    sys.meta_path.insert(0, RecordingFinder(rec))
    atexit.register(rec.at_exit)
    os.register_at_fork(after_in_child=rec.after_fork)
    rec.start_thread()
    _recorder = rec
    return rec
