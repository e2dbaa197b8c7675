"""Import hook: instrument chosen modules as they are imported.

    hook = install(["json", "re"], loaders)   # before the modules are imported
    import json                               # json and json.* run instrumented
    hook.hits                                 # dict: module name -> times instrumented
    uninstall(hook)

A module is chosen when its name equals one of *targets* or lies under one
(``"json"`` chooses ``json.decoder``); *targets* may also be a callable
``name -> bool``.  Only modules that Python would load from a ``.py`` source
file are instrumented; extension modules, frozen and built-in modules and
modules without source import as usual.

*loaders* is what the instrumented code finds in its globals: a mapping of
``_n_ _a_ _c_ _l_ _i_`` and any helper the code uses (``_op_``; the contract
of docs/LOADERS.md), a callable
returning such a mapping (called once per module, so each module can get its
own), or an object with a ``loaders()`` method (``_core.Runtime``).

The module's source, line numbers and ``__file__`` stay the original ones, so
tracebacks, ``inspect.getsource`` and ``linecache`` show the file as written.
"""
# Imports stay minimal (no importlib.abc, no collections): the hook is
# installed before the modules it instruments are first imported.
import importlib.machinery
import sys

__all__ = ["InstrumentingFinder", "install", "uninstall", "LOADER_NAMES"]

LOADER_NAMES = ("_n_", "_a_", "_c_", "_l_", "_i_", "_w_", "_f_")


def _default_instrument(source, filename):
    from lexecutor_c.engine.instrument import instrument
    return instrument(source, filename=filename)


class InstrumentingFinder:
    """Meta-path finder that hands chosen source modules to InstrumentingLoader."""

    def __init__(self, targets, loaders, *, instrument=None, path_finder=None):
        if callable(targets):
            self._wanted = targets
        else:
            names = frozenset(targets)
            self._wanted = lambda name: (name in names or
                                         any(name.startswith(t + ".") for t in names))
        self._loaders = loaders
        self.instrument = instrument or _default_instrument
        self._path_finder = path_finder or importlib.machinery.PathFinder
        self.hits = {}                 # module name -> times instrumented and executed
        self.results = {}              # module name -> last Instrumented result

    def wants(self, fullname):
        return bool(self._wanted(fullname))

    def loaders_for(self, module):
        """The mapping of loaders to put into *module*'s globals."""
        src = self._loaders
        if hasattr(src, "loaders"):
            src = src.loaders()
        elif callable(src) and not hasattr(src, "keys"):
            src = src()
        out = dict(src)  # the five loaders and whatever else the code needs (`_op_`)
        missing = [n for n in LOADER_NAMES if n not in out]
        if missing:
            raise ImportError(f"loaders for {module.__name__} lack {', '.join(missing)}")
        return out

    def find_spec(self, fullname, path=None, target=None):
        if not self.wants(fullname):
            return None
        spec = self._path_finder.find_spec(fullname, path, target)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        spec.loader = InstrumentingLoader(spec.loader, self)
        return spec

    def invalidate_caches(self):
        pass


class InstrumentingLoader:
    """Runs a source module's instrumented code; everything else is the base loader's."""

    def __init__(self, base, finder):
        self._base = base
        self._finder = finder

    def __getattr__(self, name):  # get_source, get_filename, is_package, resources, ...
        return getattr(self._base, name)

    def create_module(self, spec):
        return None

    def get_code(self, fullname):
        # bytes, not get_source(): decoding imports tokenize (re, functools, ...),
        # which may be the very modules being instrumented
        filename = self._base.get_filename(fullname)
        source = self._base.get_data(filename)
        result = self._finder.instrument(source, filename)
        self._finder.results[fullname] = result
        return result.compile(filename)

    def exec_module(self, module):
        name = module.__spec__.name if module.__spec__ is not None else module.__name__
        code = self.get_code(name)
        module.__dict__.update(self._finder.loaders_for(module))
        self._finder.hits[name] = self._finder.hits.get(name, 0) + 1
        exec(code, module.__dict__)


def install(targets, loaders, *, instrument=None, first=True):
    """Put an InstrumentingFinder on sys.meta_path (in front when *first*) and return it.

    Modules already in sys.modules stay as they are: install before importing.
    """
    finder = InstrumentingFinder(targets, loaders, instrument=instrument)
    if first:
        sys.meta_path.insert(0, finder)
    else:
        sys.meta_path.append(finder)
    return finder


def uninstall(finder):
    """Take *finder* off sys.meta_path (no error when it is not there)."""
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass
