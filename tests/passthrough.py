"""Pass-through loaders in pure Python, exactly per docs/LOADERS.md.

A value that exists is returned untouched; a value that is missing raises
what the uninstrumented code would have raised (no injection).  ``_i_``
follows the contract: on ImportError it returns the sentinel ``MISSING`` in
place of each value it could not import, records the failure and does not
raise; a later read of such a name raises NameError.

These loaders are Python functions, so each ``_c_`` call adds a frame that
the C runtime does not add.  Builtins that look at their caller's frame would
see ``_c_`` instead of the instrumented code, so ``_c_`` calls them on the
caller's behalf: ``super()``, ``locals()``, ``vars()``, ``dir()``,
``globals()``, ``eval``/``exec`` without namespaces, ``sys._getframe``,
``sys._getframemodulename`` (3.12+: namedtuple, enum and typing ask it for
their caller's module) and ``warnings.warn`` (its ``stacklevel`` counted without loader frames).
Frame introspection by other means (``inspect.currentframe()``,
``inspect.stack()``, warnings raised by uninstrumented code called from
instrumented code, the recursion limit) still sees the extra frames.

``Loaders()`` makes a fresh set with its own counters; ``loaders()`` returns
the dict to put into a module's globals (the five loaders and ``_op_``, the
operator module that augmented assignments to maybe-unbound names use).
"""
# No `from __future__ import annotations` here: exec(), eval() and compile()
# called from _c_ inherit the future flags of this file.
import builtins
import operator
import sys
import warnings


class _Missing:
    __slots__ = ()

    def __repr__(self):
        return "MISSING"

    def __reduce__(self):
        return "MISSING"


MISSING = _Missing()


def _import_from(module, name):
    """IMPORT_FROM: the attribute, else sys.modules["<module>.<name>"]."""
    try:
        return getattr(module, name)
    except AttributeError:
        pass
    pkg = getattr(module, "__name__", None)
    if isinstance(pkg, str):
        found = sys.modules.get(f"{pkg}.{name}")
        if found is not None:
            return found
    raise ImportError(f"cannot import name {name!r} from {pkg!r}", name=pkg)


def _import_star(module, target):
    """IMPORT_STAR into the namespace *target*."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in module.__dict__ if not n.startswith("_")]
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"Item in {module.__name__}.__all__ must be str, not {type(n).__name__}")
        target[n] = getattr(module, n)


class Loaders:
    """One set of pass-through loaders with call counters.

    ``counts[kind]`` counts calls per loader ("n", "a", "c", "l", "i");
    ``import_failures`` lists (iid, module, level, names, error) of every
    ImportError that ``_i_`` swallowed.
    """

    def __init__(self, count=True):
        self.counts = dict.fromkeys("nacli", 0)
        self.import_failures = []
        self._count = count
        self._loader_codes = set()
        self._fixups = {}
        self._build()

    # -- frames -----------------------------------------------------------------

    def _frame(self, depth):
        """The frame *depth* levels above the instrumented caller, loader frames skipped."""
        f = sys._getframe(1)
        codes = self._loader_codes
        while f is not None and f.f_code in codes:
            f = f.f_back
        for _ in range(depth):
            f = f.f_back
            while f is not None and f.f_code in codes:
                f = f.f_back
            if f is None:
                raise ValueError("call stack is not deep enough")
        return f

    def _build(self):
        counts = self.counts
        count = self._count
        frame = self._frame

        def _n_(iid, name, thunk=None, ns=None, /):
            if count:
                counts["n"] += 1
            if thunk is None:                 # a global: LOAD_GLOBAL
                f = frame(0)
                try:
                    value = f.f_globals[name]
                except KeyError:
                    try:
                        value = f.f_builtins[name]
                    except KeyError:
                        raise NameError(f"name {name!r} is not defined", name=name) from None
                if value is MISSING:
                    raise NameError(f"name {name!r} is not defined (its import failed)", name=name)
                return value
            if ns is not None:                # a class body: its namespace first
                if ns is ...:
                    ns = frame(0).f_locals
                try:
                    return ns[name]
                except KeyError:
                    pass
            value = thunk()
            if value is MISSING:
                raise NameError(f"name {name!r} is not defined (its import failed)", name=name)
            return value

        def _a_(iid, obj, attr, /):
            if count:
                counts["a"] += 1
            return getattr(obj, attr)

        fixups = self._fixups

        def _c_(iid, fn, /, *args, **kwargs):
            if count:
                counts["c"] += 1
            fix = fixups.get(id(fn))
            if fix is not None and fix[0] is fn:
                return fix[1](args, kwargs)
            return fn(*args, **kwargs)

        def _l_(iid, value=None, /):
            if count:
                counts["l"] += 1
            return value

        failures = self.import_failures

        def _i_(iid, name, level, names, /):
            if count:
                counts["i"] += 1
            g = frame(0).f_globals
            try:
                if names is None:                     # import a.b -> a
                    return __import__(name, g, None, None, level)
                if names == ():                       # import a.b as c -> a.b
                    mod = __import__(name, g, None, None, level)
                    for part in name.split(".")[1:]:
                        mod = _import_from(mod, part)
                    return mod
                if names == "*":                      # from m import *
                    _import_star(__import__(name, g, None, ("*",), level), frame(0).f_locals)
                    return None
                mod = __import__(name, g, None, names, level)
            except ImportError as e:
                failures.append((iid, name, level, names, repr(e)))
                if names is None or names == () or names == "*":
                    return MISSING
                return (MISSING,) * len(names)
            out = []
            for n in names:
                try:
                    out.append(_import_from(mod, n))
                except ImportError as e:
                    failures.append((iid, name, level, (n,), repr(e)))
                    out.append(MISSING)
            return tuple(out)

        self._n_, self._a_, self._c_, self._l_, self._i_ = _n_, _a_, _c_, _l_, _i_
        self._loader_codes.update(f.__code__ for f in (_n_, _a_, _c_, _l_, _i_))
        self._install_fixups()

    def _install_fixups(self):
        """Frame-sensitive builtins that ``_c_`` calls on the caller's behalf."""
        frame = self._frame

        def caller():  # the instrumented frame that called _c_ (fixup and _c_ skipped)
            return frame(0)

        def fix_super(args, kwargs):
            if args or kwargs:
                return super(*args, **kwargs)
            f = caller()
            code = f.f_code
            if code.co_argcount == 0:
                raise RuntimeError("super(): no arguments")
            if "__class__" not in code.co_freevars:
                raise RuntimeError("super(): __class__ cell not found")
            names = f.f_locals
            cls = names.get("__class__")
            if cls is None:
                raise RuntimeError("super(): empty __class__ cell")
            return super(cls, names[code.co_varnames[0]])

        def fix_locals(args, kwargs):
            if args or kwargs:
                return locals(*args, **kwargs)  # raises the builtin's TypeError
            return caller().f_locals

        def fix_vars(args, kwargs):
            if args or kwargs:
                return vars(*args, **kwargs)
            return caller().f_locals

        def fix_dir(args, kwargs):
            if args or kwargs:
                return dir(*args, **kwargs)
            return sorted(caller().f_locals)

        def fix_globals(args, kwargs):
            if args or kwargs:
                return globals(*args, **kwargs)
            return caller().f_globals

        def fix_eval_exec(fn):
            def fix(args, kwargs):
                if len(args) == 1 and not ({"globals", "locals"} & kwargs.keys()):
                    f = caller()
                    return fn(args[0], f.f_globals, f.f_locals, **kwargs)
                return fn(*args, **kwargs)
            return fix

        def fix_getframe(args, kwargs):
            depth = args[0] if args else kwargs.get("depth", 0)
            if len(args) > 1 or set(kwargs) - {"depth"}:
                return sys._getframe(*args, **kwargs)
            return frame(depth.__index__())

        def fix_getframemodulename(args, kwargs):
            depth = args[0] if args else kwargs.get("depth", 0)
            if len(args) > 1 or set(kwargs) - {"depth"}:
                return sys._getframemodulename(*args, **kwargs)
            f = frame(depth.__index__())
            if f is None:
                return None
            name = f.f_globals.get("__name__")
            return name if isinstance(name, str) else None

        def fix_warn(args, kwargs):
            args, kwargs = list(args), dict(kwargs)
            if len(args) >= 3:
                level = args[2]
            else:
                level = kwargs.get("stacklevel", 1)
            if isinstance(level, int) and level >= 1:
                # count real frames from the caller up; add the loader frames between
                f, extra, seen = sys._getframe(0), 0, 0
                while f is not None and seen < level:
                    if f.f_code in self._loader_codes or f.f_code in fixup_codes:
                        extra += 1
                    else:
                        seen += 1
                    f = f.f_back
                level += extra
                if len(args) >= 3:
                    args[2] = level
                else:
                    kwargs["stacklevel"] = level
            return warnings.warn(*args, **kwargs)

        table = [
            (builtins.super, fix_super), (builtins.locals, fix_locals),
            (builtins.vars, fix_vars), (builtins.dir, fix_dir),
            (builtins.globals, fix_globals), (builtins.eval, fix_eval_exec(builtins.eval)),
            (builtins.exec, fix_eval_exec(builtins.exec)), (sys._getframe, fix_getframe),
            (warnings.warn, fix_warn),
        ]
        if hasattr(sys, "_getframemodulename"):
            table.append((sys._getframemodulename, fix_getframemodulename))
        fixup_codes = set()
        for fn, fix in table:
            self._fixups[id(fn)] = (fn, fix)
            fixup_codes.add(fix.__code__)
        fixup_codes.update(c.__code__ for c in (caller,))
        self._loader_codes.update(fixup_codes)

    def loaders(self):
        """The names instrumented code expects in its globals."""
        return {"_n_": self._n_, "_a_": self._a_, "_c_": self._c_, "_l_": self._l_,
                "_i_": self._i_, "_op_": operator}


def loaders():
    """A fresh set of pass-through loaders (a dict for a module's globals)."""
    return Loaders().loaders()
