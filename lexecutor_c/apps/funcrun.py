"""One run of one version of a function, in a sandbox child
(:func:`run_case`, called through ``sandbox.call_isolated``):

1. the input's *prefix* runs first, as it is (no injection), one top-level
   statement at a time; a statement that raises is skipped (what Treefix's
   post-processing does by re-running);
2. the driver (lexecutor_c.apps.funcsource) runs instrumented, injection
   underneath, one top-level statement at a time (one that fails is
   skipped): in module mode the module is registered in ``sys.modules``
   under its name, its package imported first from the checkout;
3. the function is found by where its code was compiled (decorators
   unwrapped: ``__wrapped__``, property parts, static/class methods) and
   called -- with a test's argument expressions (evaluated in the module),
   or with the prefix's value of each parameter without default, else an
   injected one (by name); a method gets the object the test built, or one
   made without ``__init__`` carrying the prefix ``self``'s attributes;
4. a closure the function returns is called too (up to three levels), so
   edits inside a decorator's wrapper are reached;
5. what comes back is plain data: the outcome (returned / raised:Type), a
   :func:`snapshot` of the return value, the printed output, the arguments
   and ``self`` after the call, the lines of the function reached, and the
   interaction trace: each call to the outside world (:func:`callee_name`:
   callee, positional and keyword arguments as snapshots, in order;
   recorded by wrapping the runtime's C call loader ``_c_`` in this child)
   and the module's plain-data globals the call rebound or mutated.
"""
from __future__ import annotations

import ast
import contextlib
import itertools
import re
import types
from typing import Optional

from ..engine import sandbox

__all__ = ["run_case", "snapshot", "callee_name"]

_ADDR = re.compile(r"0x[0-9a-fA-F]{4,}")
_BUILTIN_BASES = (str, bytes, int, float, tuple, frozenset)
# a temporary file's random name (``tempfile``'s ``tmpXXXXXXXX``): another
# in every run, so a call passing it would never show the same twice
_TEMP_NAME = re.compile(r"\btmp[a-z0-9_]{8}\b")


# a traceback the function prints: the line numbers are where each version
# has its code, which any edit above moves (the frames and text still count)
_TB_LINE = re.compile(r'(^[ \t]*File "[^"\n]*", line )\d+', re.M)
#: the same anywhere in a text (a traceback kept in a value, shown by repr)
_TB_LINE_IN = re.compile(r'(File \\*"[^"\n]*?\\*", line )\d+')


def _norm(text: str) -> str:
    """A recorded text without what differs between identical runs:
    addresses, temporary files' names."""
    return _TEMP_NAME.sub("tmp?", _ADDR.sub("0x?", text))


_GEN_MAX = 200
_CALLS_MAX = 200
# arguments of one call kept in the trace: a keyword far down a long call
# (``attr.ib(..., kw_only=...)``, the eleventh) is as much the call as the first
_ARGS_MAX = 32
#: while set, snapshot() describes an iterator without consuming it (the
#: arguments of a call are described before the callee sees them)
_NO_DRAIN = [False]
#: modules whose functions only compute a value from their arguments: a call
#: of one is no interaction with the outside world (what it computes shows
#: wherever it is used), and a refactoring may well add or drop one
_PURE_MODULES = frozenset((
    "builtins", "math", "cmath", "operator", "functools", "itertools", "re", "copy",
    "string", "collections", "typing", "posixpath", "ntpath", "genericpath", "abc",
    "enum", "types", "keyword", "numbers", "textwrap", "fnmatch", "_operator",
    "_functools", "_collections", "_collections_abc", "_sre", "sre_compile", "_abc",
    "_weakrefset", "weakref", "heapq", "_heapq", "bisect", "_bisect", "dataclasses",
    "inspect", "unicodedata", "_string", "contextlib", "reprlib", "lexecutor_c",
    # values of the standard library's data types and their codecs
    "datetime", "_datetime", "decimal", "_decimal", "_pydecimal", "fractions", "json", "_json",
    "base64", "binascii", "struct", "_struct", "calendar", "statistics", "html", "shlex",
    "difflib", "pprint", "_strptime", "ipaddress", "uuid", "zlib",
    # random numbers: what they make shows in the values (and is flaky)
    "random", "_random"))


#: functions of other modules that only read the interpreter's state (the
#: exception being handled, its limits): what they answer shows in the values
_READING = frozenset((
    "sys.exc_info", "sys.exception", "sys.getrecursionlimit", "sys.getdefaultencoding",
    "sys.getfilesystemencoding", "sys.getsizeof", "sys.intern", "sys.is_finalizing"))


#: builtins that, called without arguments, read the frame that calls them
_FRAME_BUILTINS = (super, locals, vars, dir, globals)


_SLOT = type(type("_S", (), {"__slots__": ("x",)}).x)


def _class_constant(x) -> bool:
    """A class-level value that is the code's own: data of a builtin type
    (not None), a compiled pattern, a function or a descriptor wrapping
    one -- not a declaration object whose value the instance gets later
    (attrs' ``x = attrib()``) nor a made-up value."""
    import types
    if x is None or type(x) in _dummy_types():
        return False
    if isinstance(x, (str, bytes, int, float, complex, tuple, frozenset, re.Pattern,
                      types.FunctionType, staticmethod, classmethod, property, type)):
        return True
    return False


def _super_args(frame) -> tuple:
    """The explicit arguments of ``super()`` called in ``frame``:
    ``(__class__, <first argument>)``, or () when the frame is no method's
    (``super()`` raises its own error then)."""
    co = frame.f_code
    loc = frame.f_locals
    if "__class__" in co.co_freevars and co.co_argcount >= 1:
        first = co.co_varnames[0]
        if first in loc and loc.get("__class__") is not None:
            return (loc["__class__"], loc[first])
    return ()


def _frame_builtin(fn, frame):
    """What ``locals()``, ``vars()``, ``dir()`` or ``globals()`` called
    without arguments in ``frame`` return."""
    if fn is globals:
        return frame.f_globals
    if fn is dir:
        return sorted(frame.f_locals)
    return frame.f_locals


def _dummy_types():
    from .._core import Dummy, DummyResource
    return (Dummy, DummyResource)


def snapshot(v, _depth: int = 0, _dummies=None):
    """A comparable, deterministic description of a value: primitives by
    value, containers by content (sets and dict items sorted), injected
    Dummies by name, objects without their own repr by class and attributes,
    other objects by repr with addresses removed.  Never asks an injected
    value for anything (no predictor queries)."""
    if _dummies is None:
        _dummies = _dummy_types()
    t = type(v)
    if v is None or t in (bool, int, float, complex, bytes):
        return repr(v)
    if t is str:
        return repr(v) if len(v) <= 2000 else repr(v[:2000]) + "..."
    if t in _dummies:
        try:
            return _ADDR.sub("0x?", repr(v))
        except Exception:
            return "<Dummy>"
    tname = t.__qualname__ if t.__module__ in ("builtins", "__lx_check__") else \
        f"{t.__module__}.{t.__qualname__}"
    if _depth > 5:
        return f"<{tname}>"
    d = _depth + 1
    try:
        import types
        fields = getattr(t, "_fields", None) if isinstance(v, tuple) else None
        if isinstance(fields, tuple) and all(isinstance(k, str) for k in fields):
            # a named tuple: its fields by name, each by its own snapshot (as
            # an object's attributes: what its repr hides of an object it
            # holds shows), and that it is a tuple (a caller may unpack or
            # index it, as it may not a dataclass of the same fields)
            return [tname, sorted([k, snapshot(getattr(v, k, None), d, _dummies)]
                                  for k in fields[:50]), "<tuple>"]
        if isinstance(v, (list, tuple)) and (t in (list, tuple) or t.__repr__ in
                                             (list.__repr__, tuple.__repr__)):
            items = [snapshot(x, d, _dummies) for x in v[:50]]
            return [tname] + items + (["..."] if len(v) > 50 else [])
        if isinstance(v, (set, frozenset)):
            items = sorted((snapshot(x, d, _dummies) for x in list(v)[:200]), key=repr)
            return [tname] + items
        if isinstance(v, dict):
            own = _own_class(t)
            # (a mapping of the project's own: its entries as the dict holds
            # them, whatever its ``items`` does, and the attributes its
            # instance holds besides)
            pairs = dict.items(v) if own else v.items()
            items = sorted(([snapshot(k, d, _dummies), snapshot(x, d, _dummies)]
                            for k, x in list(pairs)[:200]), key=repr)
            attrs = _instance_attrs(v, d, _dummies) if own else []
            return [tname] + items + ([["<attributes>", attrs]] if attrs else [])
        if isinstance(v, (bytearray, memoryview)):
            return [tname, repr(bytes(v[:2000]))]
        if isinstance(v, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
            shown = f"<function {getattr(v, '__qualname__', '?')}>"
            # the attributes a decorator set on its wrapper
            # (``wrapper.blocked_until = None``), not those ``functools.wraps``
            # copied over
            attrs = getattr(v, "__dict__", None) or {}
            copied = getattr(attrs.get("__wrapped__"), "__dict__", None) or {}
            own = {k: x for k, x in attrs.items()
                   if k != "__wrapped__" and not k.startswith("__lx") and k not in copied}
            if not own:
                return shown
            return [shown, sorted([k, snapshot(x, d, _dummies)] for k, x in own.items())]
        if isinstance(v, type):
            return f"<class {v.__qualname__}>"
        if isinstance(v, types.ModuleType):
            return f"<module {v.__name__}>"
        if isinstance(v, types.CoroutineType):
            return f"<{tname}>"
        own = _own_class(t)
        if _is_iterator(v) and _NO_DRAIN[0] and not own:
            return f"<{tname}>"
        if _is_iterator(v) and not own:
            # a lazy sequence (generator, map, filter, zip...): its items,
            # whatever kind of iterator yields them
            try:
                items = [snapshot(x, d, _dummies) for x in itertools.islice(v, _GEN_MAX)]
            except Exception as e:
                return ["<iterator>", f"raised:{type(e).__name__}"]
            return ["<iterator>"] + items
        if isinstance(v, BaseException):
            return [tname] + [snapshot(a, d, _dummies) for a in v.args[:5]]
        if t.__repr__ is object.__repr__ or own:
            # the state of an object of the project (or without a repr of its
            # own), not what its __repr__ -- maybe edited too -- makes of it;
            # an iterator of the project's too (``JSONLIterator``): what its
            # ``__init__`` set, not the items a stand-in file gives it
            attrs = {}
            try:
                attrs = dict(vars(v))
            except TypeError:
                for cls in t.__mro__:
                    for s in getattr(cls, "__slots__", ()) or ():
                        if isinstance(s, str) and hasattr(v, s):
                            attrs[s] = getattr(v, s)
            return [tname, sorted([k, snapshot(x, d, _dummies)] for k, x in attrs.items()
                                  if not k.startswith("__lx"))]
        return [tname, _ADDR.sub("0x?", repr(v))[:2000]]
    except Exception as e:      # a broken __repr__, a container that raises
        # (and the attributes its instance holds: two objects whose repr
        # fails alike may hold different state)
        attrs = _instance_attrs(v, d, _dummies)
        shown = f"<{tname}: {type(e).__name__}>"
        return [shown, attrs] if attrs else shown


def _instance_attrs(v, depth: int, dummies) -> list:
    """The attributes in an object's instance dict (sorted, by snapshot),
    [] where it has none or they cannot be read."""
    try:
        attrs = dict(vars(v))
    except Exception:
        return []
    try:
        return sorted([k, snapshot(x, depth, dummies)] for k, x in attrs.items()
                      if isinstance(k, str) and not k.startswith("__lx"))
    except Exception:
        return []


def _wrapped_in(fn, filename: str):
    """The function of ``filename`` that ``fn`` wraps (through
    ``__wrapped__``, as :func:`functools.wraps` leaves it), or None."""
    for _ in range(8):
        try:
            fn = fn.__dict__.get("__wrapped__") if hasattr(fn, "__dict__") else None
        except Exception:
            return None
        if fn is None:
            return None
        fn = getattr(fn, "__func__", fn)
        code = getattr(fn, "__code__", None)
        if code is not None and code.co_filename == filename:
            return fn
    return None


def _module_top(name) -> str:
    return (name or "").split(".")[0] if isinstance(name, str) else ""


def callee_name(fn, filename: str, dummies, inside: tuple = (0, 0),
                package: str = "") -> Optional[str]:
    """How a call's callee is named in the interaction trace, or None for a
    call that is no interaction with the outside world: a function of the
    code under test (``filename``: its calls are traced in turn), a class
    (a constructor), a builtin function, a method of a builtin value
    (``str.join``, ``list.append``: what they do shows in the values), or a
    function of a module that only computes (:data:`_PURE_MODULES`).
    Injected callees are named by what was injected.  ``inside``: the lines
    of the function under test in ``filename``: a function of the module
    outside them (a helper, another method) is named ``internal:<qualname>``
    (the comparison matches those only when both versions call one of that
    name: a helper a refactoring extracted is no interaction); one defined
    inside them (a closure) is not named."""
    import types
    if isinstance(fn, dummies):
        return "<injected>"
    if isinstance(fn, type):
        return None
    inner = getattr(fn, "__func__", fn)
    if inner is _LxOpenBase.__init__:
        # ``super().__init__(...)`` of a class whose base the extract
        # dropped: what it passes the base is an interaction
        return OPEN_BASE_INIT
    code = getattr(inner, "__code__", None)
    if code is None or code.co_filename != filename:
        # a function of the module under a decorator that wraps it
        # (``@contextmanager``, ``@functools.wraps``): named as the function
        # itself, a helper of the module
        wrapped = _wrapped_in(inner, filename)
        if wrapped is not None:
            inner, code = wrapped, wrapped.__code__
    if code is not None and code.co_filename == filename:
        if inside[0] <= code.co_firstlineno <= inside[1]:
            return None
        # a method called on the object of the subclass a variant made
        # (``SUBCLASS_SELF``) is named by that class: a subclass's override
        # would run there (``Markup(v).unescape()`` -> ``type(self)(v)...``)
        owner = getattr(fn, "__self__", None)
        sub = owner if isinstance(owner, type) else type(owner)
        if sub.__name__.startswith(_SUB_PREFIX):
            return f"internal:{sub.__name__}.{getattr(inner, '__name__', '?')}"
        return "internal:" + getattr(inner, "__qualname__", "?")
    if isinstance(fn, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        owner = getattr(fn, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            mod = owner.__name__ if owner is not None else getattr(fn, "__module__", "")
            if _module_top(mod) in _PURE_MODULES or f"{mod}.{fn.__name__}" in _READING:
                return None
            return f"{mod}.{fn.__name__}"
        t = type(owner)
        if _module_top(t.__module__) in _PURE_MODULES or isinstance(owner, dummies):
            return None if not isinstance(owner, dummies) else "<injected>." + fn.__name__
        return f"{t.__module__}.{t.__qualname__}.{fn.__name__}"
    owner = getattr(fn, "__self__", None)
    if owner is not None and not isinstance(owner, types.ModuleType):
        t = type(owner)
        if _module_top(t.__module__) in _PURE_MODULES or _pure_path_method(owner, inner):
            return None
    mod = getattr(inner, "__module__", None) or ""
    if _module_top(mod) in _PURE_MODULES:
        return None
    if code is not None and code.co_filename == "<prefix>":
        import builtins
        if hasattr(builtins, getattr(inner, "__name__", "")):
            return None         # the input's stand-in for a builtin (``len``)
        mod = "<input>"
    q = getattr(inner, "__qualname__", None) or type(fn).__qualname__
    if package and _module_top(mod) == package:
        # a function of the package under test, named without its module: a
        # refactoring that moved it to another module of the package
        # (``wcwidth.wcwidth.iter_sequences`` -> ``wcwidth.escape_sequences.
        # iter_sequences``) moved no interaction; what it does runs and shows.
        # One that only computes (:func:`computes_only`) is marked: called
        # by one version alone, it is a test written as a helper
        # (``hasattr(fp, "read")`` -> ``_t.has_read(fp)``), no interaction
        mod = f"{package}.{COMPUTING_MARK if computes_only(inner) else PACKAGE_MARK}"
    return f"{mod}.{q}"


#: how the call of a dropped base's ``__init__`` (:class:`_LxOpenBase`) is
#: named in the trace
OPEN_BASE_INIT = "<base>.__init__"

#: how a function of another module of the package is marked in the trace
#: (``pkg.(package).name``), and one that only computes (:func:`computes_only`)
PACKAGE_MARK, COMPUTING_MARK = "(package)", "(package,computes)"

#: builtins that only compute from their arguments (and the exceptions a
#: computing function raises)
_COMPUTING_BUILTINS = frozenset((
    "hasattr", "isinstance", "issubclass", "callable", "len", "str", "int", "float",
    "bool", "bytes", "tuple", "list", "dict", "set", "frozenset", "type", "min", "max",
    "sorted", "any", "all", "abs", "repr", "enumerate", "zip", "range", "reversed",
    "sum", "ord", "chr", "round", "divmod", "hash", "getattr", "iter",
    "None", "True", "False", "ValueError", "TypeError", "KeyError", "IndexError",
    "AttributeError", "NotImplemented", "NotImplementedError"))

#: methods of builtin values that only compute
_COMPUTING_METHODS = frozenset((
    "lower", "upper", "strip", "lstrip", "rstrip", "startswith", "endswith", "split",
    "rsplit", "join", "get", "keys", "items", "values", "replace", "format", "encode",
    "decode", "find", "rfind", "count", "index", "copy", "partition", "rpartition",
    "casefold", "isdigit", "isalpha", "isalnum", "isspace", "match", "fullmatch",
    "search", "group", "groups", "groupdict"))

#: instructions that change something outside the function's own frame
_WRITING_OPS = frozenset((
    "STORE_ATTR", "STORE_SUBSCR", "STORE_GLOBAL", "DELETE_ATTR", "DELETE_SUBSCR",
    "DELETE_GLOBAL", "IMPORT_NAME", "YIELD_VALUE", "STORE_SLICE", "DELETE_DEREF",
    "STORE_DEREF", "GET_AWAITABLE"))

_COMPUTES: dict = {}


def computes_only(fn) -> bool:
    """Whether a plain function only computes a value from its arguments: its
    code (and the code it nests) writes no attribute, item or global,
    imports nothing, yields nothing, and calls only builtins and methods
    that compute (:data:`_COMPUTING_BUILTINS`, :data:`_COMPUTING_METHODS`)
    or functions of its module that only compute in turn; the globals it
    reads are those or plain data.  Read from the bytecode, so it holds on
    every Python this runs on; anything it cannot tell is False."""
    code = getattr(fn, "__code__", None)
    if code is None and callable(getattr(fn, "cache_info", None)):
        # a function under ``functools.lru_cache`` / ``cache``: computes
        # what the function it caches computes (idna's ``joining_types()``)
        fn = getattr(fn, "__wrapped__", None)
        code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        return False
    if code in _COMPUTES:
        return _COMPUTES[code]
    _COMPUTES[code] = False         # a function calling itself: not shown so
    glb = getattr(fn, "__globals__", None) or {}
    ok = _code_computes(code, glb, 0)
    _COMPUTES[code] = ok
    return ok


def _code_computes(code, glb: dict, depth: int) -> bool:
    import dis
    if depth > 3:
        return False
    try:
        ins = list(dis.get_instructions(code))
    except Exception:
        return False
    callees = calls = 0     # a call of anything else (an argument): not shown so
    for i in ins:
        op = i.opname
        if op in _WRITING_OPS:
            return False
        if op in ("CALL", "CALL_FUNCTION_EX", "CALL_KW"):
            calls += 1
        elif op == "MAKE_FUNCTION":
            callees += 1
        elif op == "LOAD_METHOD" or (op == "LOAD_ATTR" and "NULL|self" in (i.argrepr or "")):
            if i.argval not in _COMPUTING_METHODS:
                return False
            callees += 1
        elif op in ("LOAD_GLOBAL", "LOAD_NAME"):
            name = i.argval
            if name in _COMPUTING_BUILTINS:
                callees += name not in ("None", "True", "False", "NotImplemented")
                continue
            if name not in glb:
                return False
            x = glb[name]
            if isinstance(x, (type(None), bool, int, float, str, bytes, tuple, frozenset,
                              re.Pattern, type)):
                continue        # (a class: read, as isinstance's; called, not shown so)
            if isinstance(x, types.FunctionType) and computes_only(x):
                callees += 1
                continue
            return False
        elif op == "LOAD_CONST" and isinstance(i.argval, types.CodeType):
            if not _code_computes(i.argval, glb, depth + 1):
                return False
    return calls <= callees


def _alias_of(value, obj, args, kwargs: dict, dummies, env: Optional[dict] = None,
              made: Optional[dict] = None) -> Optional[str]:
    """How a returned mutable object is one the caller already holds: the
    object the method was called on (``"<self itself>"``), an argument
    (``"<argument N itself>"``, ``"<argument NAME itself>"``) or one of the
    module's data globals ``env`` holds (``"<global NAME itself>"``: a
    shared default a caller that changes what it got corrupts for the next
    call, where a copy would not); None for
    any other value, and for values whose identity no caller can tell from
    their value (None, numbers, texts, tuples), functions, classes and
    made-up values.  A method that now returns a copy instead of its
    object (``return self`` -> ``return Version(...)``) differs for a
    caller that changes what it got."""
    import types
    if isinstance(value, (type(None), bool, int, float, complex, str, bytes, tuple,
                          frozenset, range, type, types.FunctionType, types.MethodType,
                          types.BuiltinFunctionType, types.ModuleType)) or \
            isinstance(value, dummies):
        return None
    if obj is not None and value is obj:
        return "<self itself>"
    for i, a in enumerate(args):
        if value is a:
            return f"<argument {i} itself>"
    for k, a in kwargs.items():
        if value is a:
            return f"<argument {k} itself>"
    if env:
        for k, a in _data_globals(env, dummies).items():
            if value is a and not (made and k in made and made[k] is a):
                # (not a value the input's prefix made and bound: a stand-in's
                # answer, ``_r_InfoDict``, is no global of the module)
                return f"<global {k} itself>"
    return None


def _pure_path_method(owner, inner) -> bool:
    """Whether ``inner`` is a method a pure path has (``joinpath``,
    ``with_suffix``: it computes another path and looks at no file), called
    on a path: no interaction, what it computes shows in the values."""
    import pathlib
    if not isinstance(owner, pathlib.PurePath):
        return False
    name = getattr(inner, "__name__", "")
    return getattr(getattr(pathlib.PurePath, name, None), "__code__", None) is \
        getattr(inner, "__code__", False)


def _with_receiver(fn, args: tuple) -> tuple:
    """The arguments of a call to a method of a path (``release.exists()``,
    ``target.write_text(s)``) with the path first: which file the method
    looks at or writes is part of what it does, as a function's arguments
    are (``os.path.exists(p)``); other methods' objects are left out."""
    import pathlib
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, pathlib.PurePath):
        return (owner,) + tuple(args)
    return args


def _data_globals(env: dict, dummies) -> dict:
    """The module's plain-data globals (no modules, functions, classes,
    loaders or dunders), at most 100, described by :func:`snapshot`."""
    import types
    out = {}
    for k, v in list(env.items()):
        if k.startswith("__") or k.startswith("_lx") or k in ("_n_", "_a_", "_c_", "_l_",
                                                             "_i_", "_w_", "_f_", "_op_"):
            continue
        if isinstance(v, (types.ModuleType, types.FunctionType, type, types.BuiltinFunctionType,
                          types.MethodType)) or isinstance(v, dummies):
            continue
        out[k] = v
        if len(out) >= 100:
            break
    return out


def _own_class(t: type) -> bool:
    """A class of the code under test or another installed package (not the
    standard library's) whose instances carry their state in attributes."""
    import sys
    top = (t.__module__ or "").split(".")[0]
    if top in sys.stdlib_module_names or top in ("builtins", "__future__"):
        return False
    return "__dict__" in dir(t) or any(getattr(c, "__slots__", None) for c in t.__mro__)


@contextlib.contextmanager
def _not_draining():
    """While inside, :func:`snapshot` describes an iterator without
    consuming it (``_NO_DRAIN``)."""
    _NO_DRAIN[0] = True
    try:
        yield
    finally:
        _NO_DRAIN[0] = False


def _absent():
    raise NameError("absent")


def _line_of(exc: BaseException, filename: str) -> Optional[int]:
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _unwrap(obj):
    """(how it is called, function) pairs that ``obj`` (a class or module
    attribute) holds."""
    import functools
    if isinstance(obj, property):
        return [("getter", obj.fget), ("setter", obj.fset), ("deleter", obj.fdel)]
    if isinstance(obj, staticmethod):
        return [("static", obj.__func__)]
    if isinstance(obj, classmethod):
        return [("classmethod", obj.__func__)]
    if isinstance(obj, functools.cached_property):
        return [("plain", obj.func)]
    out, seen = [], 0
    while obj is not None and seen < 6:
        out.append(("plain", obj))
        try:
            obj = obj.__dict__.get("__wrapped__") if hasattr(obj, "__dict__") else None
        except Exception:
            obj = None
        seen += 1
    return out


def _find_target(container, filename: str, lo: int, hi: int):
    """(kind, function) in ``container`` (a module or class dict) whose code
    was compiled from ``filename`` and starts on lines lo..hi."""
    for obj in list(container.values()):
        for kind, fn in _unwrap(obj):
            code = getattr(fn, "__code__", None) if fn is not None else None
            if code is not None and code.co_filename == filename and \
                    lo <= code.co_firstlineno <= hi:
                return kind, fn
    return None, None


def _decorated(container, fn):
    """What ``container`` (a module or class dict) binds that wraps ``fn``
    (a function a decorator returned, ``__wrapped__`` leading to ``fn``), or
    None where ``fn`` is bound as it is."""
    import types
    for obj in list(container.values()):
        chain = _unwrap(obj)
        if len(chain) > 1 and any(f is fn for _, f in chain[1:]) and \
                isinstance(obj, types.FunctionType):
            return obj
    return None


def _is_iterator(v) -> bool:
    t = type(v)
    try:
        return hasattr(t, "__next__") and hasattr(t, "__iter__") and iter(v) is v
    except Exception:
        return False


def _awaited(value):
    """What a coroutine returns, run to its end on an event loop of its
    own; any other value as it is."""
    import types
    if not isinstance(value, types.CoroutineType):
        return value
    import asyncio
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(value)
    finally:
        loop.close()


def _drain(value, got: Optional[list] = None, throw: Optional[BaseException] = None):
    """A returned iterator's items (up to 200), drained inside the call so
    that what it raises counts as the function's exception.  ``got``: a
    list that receives ``"<iterator>"`` and the items as they come, so that
    an exception raised while iterating is told from one the call raised
    (a generator raises only when iterated, an eager function at once).
    ``throw``: an exception thrown into a generator after its first item."""
    if type(value) not in _dummy_types() and _is_iterator(value):
        items = got if got is not None else []
        items.append("<iterator>")
        if throw is not None and isinstance(value, types.GeneratorType):
            # an exception thrown in where the generator stopped first (what
            # a ``with`` block that raises does to a context manager's
            # ``yield``): what it yields then, or raises, is the function's
            for x in itertools.islice(value, 1):
                items.append(x)
                try:
                    items.append(value.throw(throw))
                except StopIteration:
                    return list(items)
        for x in itertools.islice(value, _GEN_MAX):
            items.append(x)
        return list(items)
    return value


#: a class named as the code names it (``BuildBackendException``,
#: ``subprocess.CalledProcessError``)
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _thrown(given, env: dict) -> Optional[BaseException]:
    """The exception an aimed input throws into a generator (``given``'s
    ``throw:NAME``: a class of an ``except`` clause around a ``yield``),
    made of the class the module's namespace binds to NAME: called with no
    argument, or a message, or made without its ``__init__``; None where
    there is none or NAME is no exception class."""
    name = next((str(g)[6:] for g in given or () if str(g).startswith("throw:")), None)
    if name is None or not _DOTTED.fullmatch(name):
        return None
    try:
        cls = eval(name, env)           # (a dotted name, checked above)
    except Exception:
        return None
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        return None
    for args in ((), _exception_args(cls), ("thrown",)):
        try:
            return cls(*args)
        except Exception:
            pass
    try:
        e = cls.__new__(cls)
        BaseException.__init__(e, "thrown")
        return e
    except Exception:
        return None


def _exception_args(cls) -> tuple:
    """Arguments for an exception class's required parameters, by what
    their names say they hold: an exception it wraps (``exception``,
    ``cause``), a number (``returncode``, ``errno``), a command (``cmd``),
    else a text."""
    import inspect
    try:
        params = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return ()
    out: list = []
    for p in params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or \
                p.default is not p.empty:
            break
        n = p.name.lower()
        out.append(Exception("thrown") if re.search(r"exc|error|cause|original", n) else
                   1 if re.search(r"code|errno|status|number", n) else
                   ["cmd"] if re.search(r"cmd|command|argv", n) else "thrown")
    return tuple(out)


def _defined_inside(cls, filename: str, first: int, last: int) -> bool:
    """Whether a class's own methods are written inside the function under
    test (lines ``first``..``last`` of ``filename``)."""
    import types
    try:
        attrs = list(vars(cls).values())
    except TypeError:
        return False
    for f in attrs:
        f = getattr(f, "__func__", f)
        if isinstance(f, types.FunctionType):
            c = f.__code__
            if c.co_filename == filename and first < c.co_firstlineno <= last:
                return True
    return False


#: what any caller may do with an object, by name (issue 20: the methods of
#: a class the function builds run only when something asks)
_PROTOCOLS = (("copy", lambda x: __import__("copy").copy(x)),
              ("deepcopy", lambda x: __import__("copy").deepcopy(x)),
              ("repr", repr), ("str", str), ("bool", bool), ("hash", hash),
              ("eq_self", lambda x: x == x), ("reduce", lambda x: x.__reduce_ex__(2)[0]))


def _protocols(value, filename: str, first: int, last: int, dummies) -> list:
    """[[name, result or 'raised:Type'], ...] of the standard protocols on
    ``value`` when its class is defined inside the function under test (else
    []); ``copy``/``deepcopy`` give ``'<same object>'`` when they return the
    object itself.  Results are snapshots (comparable, no addresses)."""
    t = type(value)
    if t in dummies or t.__module__ == "builtins" or \
            not _defined_inside(t, filename, first, last):
        return []
    out = []
    for name, probe in _PROTOCOLS:
        try:
            r = probe(value)
            shown = "<same object>" if r is value else \
                repr(snapshot(r, 1, dummies)) if name not in ("hash", "reduce") else \
                type(r).__name__
        except sandbox.Timeout:
            raise
        except BaseException as e:
            shown = f"raised:{type(e).__name__}"
        out.append([name, shown])
    return out


def _closure_of(value, filename: str, first: int, last: int):
    """``value`` if it is a function defined inside the function under test."""
    import types
    if isinstance(value, types.FunctionType):
        c = value.__code__
        if c.co_filename == filename and first < c.co_firstlineno <= last:
            return value
    return None


#: a closure's parameter whose name says it holds a function (a
#: decorator's ``def wrap(func)``)
_FUNC_PARAM = re.compile(r"^(f|fn|func|function|fun|method|meth|wrapped|callback|cb|"
                         r"callable|decorated|user_function)$|_(func|fn|function|method)$")


def _lx_passed(*args, **kwargs):
    """A function a closure is given where its parameter names one: it
    answers its first argument (a decorator's ``wraps(func)`` copies its
    name, which a made-up value does not have); given keywords too, what
    it was given of them as well (a wrapper that drops its ``**kwargs`` on
    the way answers otherwise)."""
    first = args[0] if args else None
    if kwargs:
        return first, tuple(sorted(kwargs.items(), key=lambda kv: kv[0]))
    return first


def _closure_args(fn, pre: dict, inject) -> list:
    """Positional arguments for a closure: the prefix's value of each
    parameter name, else an injected one -- or, for a parameter named for
    a function (``func``), :func:`_lx_passed`. A closure that takes only
    ``*args`` (a decorator's ``wrapper(*args, **kwargs)``) gets one
    argument, 1: called with none, the wrapper most often fails at once
    (``key(*args)``, ``args[0]``) and never reaches its body."""
    import inspect
    c = fn.__code__
    n_req = c.co_argcount - len(fn.__defaults__ or ())
    out = [pre[p] if p in pre else _lx_passed if _FUNC_PARAM.search(p) else
           inject(0, p, _absent) for p in c.co_varnames[:n_req]]
    if not out and c.co_flags & inspect.CO_VARARGS:
        out.append(1)
    return out


def _stub_packages(dotted: str, root: str) -> None:
    import os
    import sys
    import types
    parts = dotted.split(".")
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        if name in sys.modules and getattr(sys.modules[name], "__path__", None) is not None:
            continue
        m = types.ModuleType(name)
        m.__path__ = [os.path.join(root, *parts[:i])]
        m.__package__ = name
        sys.modules[name] = m


def _compat_aliases() -> None:
    """Names the standard library dropped since Python 3.8 that older
    histories import (the ABCs in ``collections``, ``inspect.getargspec``,
    ``formatargspec`` and ``ArgSpec``, ``asyncio.coroutine``, ``time.clock``,
    ``fractions.gcd``, ``base64.encodestring``), put back
    in this child so old code loads as it did when it was written."""
    import base64
    import collections
    import collections.abc
    import fractions
    import inspect
    import math
    import time
    for n in collections.abc.__all__:
        if not hasattr(collections, n):
            setattr(collections, n, getattr(collections.abc, n))
    if not hasattr(inspect, "getargspec"):
        from collections import namedtuple
        ArgSpec = namedtuple("ArgSpec", "args varargs keywords defaults")

        def getargspec(func):
            s = inspect.getfullargspec(func)
            return ArgSpec(s.args, s.varargs, s.varkw, s.defaults)
        inspect.getargspec, inspect.ArgSpec = getargspec, ArgSpec
    if not hasattr(inspect, "formatargspec"):
        def formatargspec(args, varargs=None, varkw=None, defaults=None, *rest,
                          formatvalue=lambda v: "=" + repr(v), **kw):
            first = len(args) - len(defaults or ())
            specs = [str(a) + (formatvalue(defaults[i - first]) if defaults and i >= first
                               else "") for i, a in enumerate(args)]
            specs += ["*" + varargs] if varargs is not None else []
            specs += ["**" + varkw] if varkw is not None else []
            return "(" + ", ".join(specs) + ")"
        inspect.formatargspec = formatargspec
    import asyncio
    import types
    if not hasattr(asyncio, "coroutine"):
        asyncio.coroutine = types.coroutine
    if not hasattr(time, "clock"):
        time.clock = time.perf_counter
    if not hasattr(fractions, "gcd"):
        fractions.gcd = math.gcd
    if not hasattr(base64, "encodestring"):
        base64.encodestring, base64.decodestring = base64.encodebytes, base64.decodebytes


def _test_namespace(call: dict, env: dict) -> dict:
    """The namespace a test's call expressions are evaluated in: the
    module's, plus what the test module imports (the module wins)."""
    ns = dict(env)
    for imp in call.get("imports", ()):
        try:
            exec(compile(imp, "<test imports>", "exec"), ns)
        except BaseException:
            pass
    ns.update(env)
    return ns


class _NoEntry(Exception):
    """The caller a test input goes through is not in this version."""


def _entry_call(entry: dict, call: dict, env: dict):
    """(callable, self object or None, args, kwargs) for a test's call of
    ``entry`` (``{"path": [class..., name], "kind": ...}``), a function of
    the module that calls the changed one."""
    path, kind = entry["path"], entry["kind"]
    holder = None
    if len(path) > 1:
        holder = env.get(path[0])
        for c in path[1:-1]:
            holder = getattr(holder, c, None)
        if not isinstance(holder, type):
            raise _NoEntry(".".join(path[:-1]))
    elif path[0] not in env:
        raise _NoEntry(path[0])
    ns = _test_namespace(call, env)
    args = [eval(compile(e, "<test call>", "eval"), ns) for e in call["args"]]
    kwargs = {k: eval(compile(e, "<test call>", "eval"), ns)
              for k, e in call["kwargs"].items()}
    name = path[-1]
    if holder is None:
        return env[name], None, args, kwargs
    if name == "__init__":
        return holder, None, args, kwargs
    if kind in ("static", "classmethod"):
        return getattr(holder, name), None, args, kwargs
    obj = eval(compile(call["self"], "<test call>", "eval"), ns) if call.get("self") else None
    if not isinstance(obj, holder):
        # an object of the package's own class (``requests.Request()``),
        # made one of this version's class of its name, if that class is
        # the entry's (a caller reached through the package was refused)
        mine = env.get(type(obj).__qualname__)
        twin = _as_version_class(obj, mine) if isinstance(mine, type) and \
            issubclass(mine, holder) else None
        if twin is None:
            raise _NoEntry("another class")
        obj = twin
    if kind == "getter":
        return (lambda: getattr(obj, name)), obj, [], {}
    return getattr(obj, name), obj, args, kwargs


#: the types of an argument that may stand for a parameter's default
_PLAIN = (type(None), bool, int, float, str, bytes)


def _without_defaults(fn, a: tuple, k: dict) -> tuple:
    """A call's arguments without those that pass a parameter's own default
    (``open(p, 'r')`` is the call ``open(p)``): the trailing positional ones
    and the keywords, where ``fn``'s signature is known."""
    if not any(type(x) in _PLAIN for x in list(a) + list(k.values())):
        return a, k
    import inspect
    try:
        sig = inspect.signature(fn)
    except Exception:           # no signature (a builtin, an odd callable): as given
        return a, k
    ps = sig.parameters
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)

    def default(p, x) -> bool:
        return p is not None and p.default is not p.empty and type(x) in _PLAIN and \
            type(x) is type(p.default) and x == p.default
    k = {n: x for n, x in k.items() if not default(ps.get(n), x)}
    a = list(a)
    order = list(ps.values())
    while a and len(a) <= len(order) and order[len(a) - 1].kind in positional and \
            default(order[len(a) - 1], a[-1]):
        a.pop()
    return a, k


#: the exception classes whose handler catches a missing attribute
_CATCH_ATTRIBUTE = {"AttributeError", "Exception", "BaseException"}


def _handled_attribute_sites(text: str, iids, spans: Optional[list] = None) -> set:
    """The attribute reads (their site ids) that sit in the body of a
    ``try`` whose handler catches AttributeError (by name, ``Exception``,
    ``BaseException``, a bare ``except``): code that asks for an attribute
    and handles its absence (``index.start`` for a slice, else
    ``operator.index(index)``).  ``spans``: :func:`handled_spans` of
    ``text``, when the caller has them already."""
    if spans is None:
        spans = handled_spans(text)
    return _sites_within(iids, "attribute", spans)


def quiet_spans(text: str, inside: tuple, other_asserts: Optional[list]) -> list:
    """The tests of the ``assert`` statements of the function on lines
    ``inside`` (first, last) of ``text`` that the other version's function
    does not assert (``other_asserts``: the dumped tests, behaviour
    ``_assert_tests``; None: no other version, none), as ``((line, col),
    (end line, end col))`` (computed once per version by the caller:
    behaviour._Side).  A call there of a made-up callee is left out of the
    interaction trace."""
    if other_asserts is None:
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    theirs = set(other_asserts)
    return [((n.test.lineno, n.test.col_offset), (n.test.end_lineno, n.test.end_col_offset))
            for n in ast.walk(tree) if isinstance(n, ast.Assert) and
            inside[0] <= n.lineno <= inside[1] and ast.dump(n.test) not in theirs]


def _sites_within(iids, kind: str, spans) -> set:
    """The ids of the instrumented sites of ``kind`` that lie within one of
    ``spans`` (``((line, col), (end line, end col))`` pairs)."""
    if not spans:
        return set()
    return {int(i.iid) for i in iids if i.kind == kind and
            any(tuple(a) <= (i.line, i.col) and (i.end_line, i.end_col) <= tuple(b)
                for a, b in spans)}


def handled_spans(text: str) -> list:
    """The bodies of the ``try`` statements in ``text`` whose handler
    catches AttributeError, as ``((line, col), (end line, end col))``
    (computed once per version by the caller: behaviour._Side)."""
    return _try_spans(text, _CATCH_ATTRIBUTE)


def name_error_spans(text: str) -> list:
    """The bodies of the ``try`` statements in ``text`` whose handler
    catches NameError by name (``try: unicode`` / ``except NameError:
    unicode = str``), as :func:`handled_spans` gives them: there a name the
    module lacks is what the code tests for, not a gap of the extract."""
    return _try_spans(text, {"NameError"}) if "NameError" in text else []


def handler_names(t: ast.Try) -> set:
    """The names of the exceptions a ``try``'s handlers catch (a bare
    ``except`` is ``BaseException``)."""
    names = set()
    for h in t.handlers:
        kinds = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        names |= {"BaseException" if k is None else
                  k.id if isinstance(k, ast.Name) else
                  k.attr if isinstance(k, ast.Attribute) else "" for k in kinds}
    return names


def _try_spans(text: str, catches: set) -> list:
    """The bodies of the ``try`` statements in ``text`` with a handler of
    one of ``catches`` (by name; a bare ``except`` is ``BaseException``)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    spans = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Try) or not n.body:
            continue
        if handler_names(n) & catches:
            first, last = n.body[0], n.body[-1]
            spans.append(((first.lineno, first.col_offset),
                          (last.end_lineno, last.end_col_offset)))
    return spans


#: the name loader that lets a read under the code's own ``except
#: NameError`` fail as it would; made with the module's globals as its own
#: (the loader reads its caller's globals)
_RAISING_NAMES = """
def _lx_raising_names(sites, load, builtins):
    def _n_(iid, name, *rest):
        if iid in sites:
            if len(rest) > 1 and name in rest[1]:
                return rest[1][name]        # (a class body's own name)
            if rest:
                return rest[0]()
            g = globals()
            if name in g:
                return g[name]
            if hasattr(builtins, name):
                return getattr(builtins, name)
            raise NameError(f"name {name!r} is not defined")
        return load(iid, name, *rest)
    return _n_
"""
_RAISING_NAMES_CODE = compile(_RAISING_NAMES, "<lexecutor_c raising names>", "exec")


def _raising_names(load, sites: set, env: dict):
    """The name loader, except at ``sites`` (reads in the body of a ``try``
    whose handler catches NameError, :func:`name_error_spans`): there a name
    neither the module nor the builtins bind raises NameError, for the
    code's own handler (``try: unicode`` / ``except NameError: unicode =
    str``), where a made-up ``unicode`` would stand for nothing."""
    import builtins
    ns: dict = {}
    exec(_RAISING_NAMES_CODE, env, ns)
    return ns["_lx_raising_names"](frozenset(sites), load, builtins)


def _closed_attributes(load, env: dict, closed: Optional[dict], missed: Optional[list] = None):
    """The attribute loader, except on an instance of a class of the module
    whose attributes the text tells in full (funcsource.closed_classes):
    an attribute that neither the instance nor its classes have, and that
    the module never assigns, raises AttributeError as in the program, where
    a made-up value would hide it (issue 20).  ``load`` itself where the
    module defines no such class."""
    if not closed or not closed.get("classes"):
        return load
    known = frozenset(closed.get("attrs") or ())
    types_ = {k for k in map(env.get, closed["classes"])
              if isinstance(k, type) and k.__module__ == env.get("__name__")}
    if not types_:
        return load

    def _a_(iid, obj, name):
        t = type(obj)
        if t in types_ and name not in known and "__" not in name and \
                not any(name in vars(k) for k in t.__mro__) and \
                name not in getattr(obj, "__dict__", {}):
            if missed is not None and len(missed) < 8:
                missed.append(name)
            raise AttributeError(f"'{t.__name__}' object has no attribute '{name}'")
        return load(iid, obj, name)
    return _a_


def _watched_functions(names) -> list:
    """[(function, qualified name)] of the names apps/callees gave the run
    to watch (functions of the standard library that only compute)."""
    from .callees import function_of
    return [(f, q) for q in names or () if isinstance(q, str)
            for f in [function_of(q)] if f is not None]


def _global_patterns(fn, env: dict) -> list:
    """[[name, pattern text, flags]] of the compiled text patterns among the
    globals ``fn`` (and the functions inside it) reads, as the module built
    them: patterns whose text the module computes from another module's
    names (``'|'.join(... for s in VCS_SCHEMES)``), which reading the text
    cannot tell, for the inputs aimed at what they match (issue 20)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    names: list = []
    todo = [code]
    while todo and len(todo) < 64:
        c = todo.pop()
        names.extend(c.co_names)
        # (instrumented code reads its globals through ``_n_(iid, "NAME")``)
        names.extend(k for k in c.co_consts if isinstance(k, str) and k.isidentifier())
        todo.extend(k for k in c.co_consts if hasattr(k, "co_names"))
    out = []
    for n in dict.fromkeys(names):
        p = env.get(n)
        if isinstance(p, re.Pattern) and isinstance(p.pattern, str) and len(p.pattern) < 2000:
            out.append([n, p.pattern, int(p.flags) & ~int(re.UNICODE)])
        if len(out) >= 8:
            break
    return out


def _raising_attributes(load, handled: set):
    """The attribute loader, except at ``handled`` sites for an object of
    a builtin type (whose attributes are what they are: a missing one is
    no gap of the extract): there the read raises AttributeError as it
    would, for the code's own handler.  Objects of the module's classes
    (perhaps built without ``__init__``) and made-up values keep injection."""
    def _a_(iid, obj, name):
        if iid in handled and type(obj).__module__ == "builtins" or \
                type(obj).__name__ == "_LxProxy":
            # (an input's object reporting another class: what it lacks it
            # lacks, as the builtin value it poses as would not)
            return getattr(obj, name)
        return load(iid, obj, name)
    return _a_


#: the instrumented module text and its statements' code, by (text,
#: filename), made in the process that forks the runs (:func:`prepare`):
#: a forked run finds them made instead of parsing and compiling the module
#: again (most of a run's time for a large module); the few last ones
_PREPARED: dict = {}
_PREPARED_MAX = 8


def prepare(drv: dict) -> None:
    """Instrument and compile the module text of the driver ``drv`` (what
    :func:`run_case` takes) once, before the runs of it are forked, so that
    each run starts from them (see ``_PREPARED``).  Text that does not
    instrument or compile is left to the run, which reports it as before."""
    key = (drv.get("text"), drv.get("filename"))
    if not isinstance(key[0], str) or not isinstance(key[1], str):
        return
    if key in _PREPARED:
        _PREPARED[key] = _PREPARED.pop(key)     # the newest last
        return
    try:
        _PREPARED[key] = _made(*key)
    except Exception:
        return
    while len(_PREPARED) > _PREPARED_MAX:
        del _PREPARED[next(iter(_PREPARED))]


def _instrumented(text: str, filename: str) -> tuple:
    """(the instrumented module, its statements' code): as
    :func:`prepare` made them, or made here."""
    got = _PREPARED.get((text, filename))
    return got if got is not None else _made(text, filename)


def _made(text: str, filename: str) -> tuple:
    """(the module ``text`` instrumented, its statements' code)."""
    from ..engine.instrument import instrument
    inst = instrument(text, filename=filename)
    return inst, _statement_codes(inst, filename)


def _statement_codes(inst, filename: str) -> list:
    """The instrumented module compiled one top-level statement at a time
    (line numbers those of the original source, ``from __future__`` flags
    given to every statement)."""
    import __future__
    try:
        tree = ast.parse(inst.source, filename)
    except SyntaxError:
        return [inst.compile()]
    fix = inst.line_map
    if fix is not None:
        top = len(fix)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) is not None:
                node.lineno = fix[min(node.lineno, top) - 1]
                end = getattr(node, "end_lineno", None)
                if end is not None:
                    node.end_lineno = max(fix[min(end, top) - 1], node.lineno)
    flags = 0
    for st in tree.body:
        if isinstance(st, ast.ImportFrom) and st.module == "__future__":
            for a in st.names:
                feature = getattr(__future__, a.name, None)
                if feature is not None:
                    flags |= feature.compiler_flag
    return [compile(ast.Module([st], []), filename, "exec", flags=flags, dont_inherit=True)
            for st in tree.body]


_SAME = object()

#: program points recorded per run (the changed lines' exits)
_POINTS_MAX = 40

#: what joins two reshapes of one input variant ("iter@0 + big@repeat")
PAIR = " + "

#: the reshape that makes ``self`` an instance of a subclass of its class
SUBCLASS_SELF = "subclass@self"

#: how the name of that subclass begins
_SUB_PREFIX = "_LxSub"

#: a dict a prefix may bind: its names are bound in the module once the
#: module's own statements ran (a function of the module that an input makes
#: raise: the module's ``def`` would rebind the name the prefix gave it)
AFTER_MODULE = "_lx_after_module"


def after_module(name: str, expr: str) -> str:
    """The prefix statement that binds ``name`` (a name of the module, or
    ``Class.method``) to the value of ``expr`` once the module's own
    statements ran (:data:`AFTER_MODULE`)."""
    return f"globals().setdefault({AFTER_MODULE!r}, {{}})[{name!r}] = {expr}"


def _as_version_class(obj: object, cls: type) -> object:
    """The object a test built with the project's installed class (``import
    arrow`` in a checkout: ``arrow.Arrow`` is not the class of the version
    loaded from source), as an object of the version's class of the same
    name and module, its state copied; None where it is another class or
    its state does not carry over."""
    import copy
    t = type(obj)
    if t.__qualname__ != cls.__qualname__ or \
            t.__module__.rpartition(".")[2] != cls.__module__.rpartition(".")[2]:
        return None
    try:
        twin = copy.copy(obj)
        twin.__class__ = cls
    except Exception:   # another layout (slots), or a copy that fails
        return None
    return twin


#: what a class holds that no code of it writes
_CLASS_MADE = frozenset(("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                         "__slots__", "__annotations__", "__firstlineno__",
                         "__static_attributes__", "__orig_bases__", "__parameters__",
                         "_abc_impl", "__abstractmethods__"))

#: how :func:`_class_state` shows an attribute that is not there
_UNSET = "<unset>"


def _class_state(cls: type, dummies) -> dict:
    """A class's own attributes (its ``__dict__`` less what Python makes),
    each described by :func:`snapshot`: before and after a class method
    ran, what it wrote to its class."""
    try:
        items = list(vars(cls).items())
    except TypeError:
        return {}
    out = {}
    for k, x in items:
        if k in _CLASS_MADE:
            continue
        try:
            out[k] = snapshot(x, 0, dummies)
        except Exception:
            out[k] = "?"
    return out


def _as_subclass(obj):
    """``obj`` with its class replaced by a new subclass of it (same layout:
    no ``__dict__`` or slots of its own), or _SAME where Python refuses."""
    cls = type(obj)
    try:
        sub = type(_SUB_PREFIX + cls.__name__, (cls,), {"__slots__": ()})
        obj.__class__ = sub
    except (TypeError, AttributeError):
        return _SAME
    return obj


#: the reshape that gives ``self`` entries before the call (a container)
FILL_SELF = "fill@self"


def _filled(obj, args, kwargs, fresh: bool = False):
    """``obj`` given up to four entries through its class's own
    ``__setitem__`` (the call's whole-value arguments as keys first, then
    'a' and 'b'; values 1, 2, ...) or, where that takes none, its ``add``/
    ``append``/``push``/``put`` (the keys as items), or _SAME where it
    takes none; with ``fresh``, the class's own empty object so filled
    where ``obj`` keeps its entries in made-up state (a peer is made of
    what it hands out: :func:`_peer`)."""
    keys: list = []
    for x in list(args) + list(kwargs.values()):
        if type(x) in (str, int, bytes, tuple) and len(keys) < 2:
            try:
                if x not in keys:
                    hash(x)
                    keys.append(x)
            except TypeError:
                pass
    keys += [k for k in ("a", "b") if k not in keys]
    if not _fill(obj, keys):
        return _SAME
    if fresh and not _hands_out(obj):
        # its entries live in made-up state (an object built without its
        # ``__init__``: a linked list's root a stand-in): the class's own
        # empty object, where it builds one without arguments
        try:
            empty = type(obj)()
        except sandbox.Timeout:
            raise
        except Exception:
            empty = None
        if empty is not None and _fill(empty, keys) and _hands_out(empty):
            return empty
    return obj


def _hands_out(obj) -> bool:
    """Does iterating ``obj`` give plain values (texts, numbers, tuples)?"""
    try:
        got = list(itertools.islice(iter(obj), 8))
    except sandbox.Timeout:
        raise
    except Exception:
        return False
    return bool(got) and all(type(g) in (str, int, bytes, tuple) for g in got)


def _fill(obj, keys: list) -> int:
    """Give ``obj`` ``keys`` as entries (values 1, 2, ...) through its
    class's ``__setitem__`` or, where that takes none, as items through its
    ``add``/``append``/``push``/``put``; how many it took."""
    done = 0
    t = type(obj)
    if getattr(t, "__setitem__", None) is not None:
        for i, k in enumerate(keys[:4], 1):
            try:
                obj[k] = i
                done += 1
            except sandbox.Timeout:
                raise
            except Exception:
                pass
    if not done:                # (a list's ``__setitem__`` wants an index)
        for name in ("add", "append", "push", "put"):
            if callable(getattr(t, name, None)):
                for k in keys[:4]:
                    try:
                        getattr(obj, name)(k)
                        done += 1
                    except sandbox.Timeout:
                        raise
                    except Exception:
                        pass
                break
    return done


#: the reshapes that give an argument a peer of ``self`` (after FILL_SELF):
#: its entries as a plain mapping (or list), and those with one value other
PEERS = ("peer", "peerdiff")


def _unlike(v):
    """A value that differs from ``v`` and is of its kind where one is at
    hand (the number after it, the text with a character appended)."""
    if type(v) is int:
        return v + 1
    if type(v) is float:
        return v + 0.5
    if type(v) is str:
        return v + "x"
    if type(v) is bytes:
        return v + b"x"
    return "<other>"


def _peer(obj, how):
    """What ``self`` holds, as something to compare it with or merge into
    it (``__eq__(self, other)``, ``update(self, other)``): its entries as a
    plain dict (a list where its items are no keys of it), and for
    ``peerdiff`` the same with the last value (or item) another of its
    kind; _SAME where ``obj`` holds nothing it hands out."""
    try:
        items = list(itertools.islice(iter(obj), 8))
        if not items:
            return _SAME
        try:
            for k in items:
                hash(k)
            pairs = {k: obj[k] for k in items}
        except sandbox.Timeout:
            raise
        except Exception:
            pairs = None
    except sandbox.Timeout:
        raise
    except Exception:
        return _SAME
    if pairs is not None and len(pairs) == len(items):
        if how == "peerdiff":
            last = items[-1]
            pairs[last] = _unlike(pairs[last])
        return pairs
    if how == "peerdiff":
        items[-1] = _unlike(items[-1])
    return items


#: the reshapes of an argument (:func:`reshape`), in the order they are tried
RESHAPES = ("iter", "neg", "big", "nan", "tz", "empty", "upper", "lower", "bytes",
            "getitem", "mapping", "index", "flip")


class _Proxy:
    """A value behind a wrapper that hands every attribute on to it through
    ``__getattr__`` (a lazy object, a file wrapper, a context-local proxy):
    ``hasattr(p, "read")`` and ``hasattr(p, "__iter__")`` answer as the
    value would, while ``isinstance(p, Iterable)``, ``iter(p)`` and every
    other operator ask the wrapper's class, which defines none of them."""

    __slots__ = ("_lx_wrapped",)

    def __init__(self, x):
        object.__setattr__(self, "_lx_wrapped", x)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "_lx_wrapped"), name)

    def __repr__(self) -> str:
        return f"_Proxy({object.__getattribute__(self, '_lx_wrapped')!r})"


class _IndexOnly:
    """A whole number that is not an int: it has ``__index__`` (``range``,
    slicing and ``operator.index`` take it) and nothing else -- where ``==``
    and ``>=`` part (the one answers False, the other raises TypeError)."""

    def __init__(self, n: int):
        self._n = n

    def __index__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return f"_IndexOnly({self._n})"


class _OnlyGetitem:
    """An iterable that has ``__getitem__`` and ``__len__`` but no
    ``__iter__`` (the old sequence protocol)."""

    def __init__(self, items):
        self._items = list(items)

    def __getitem__(self, i):
        return self._items[i]

    def __len__(self):
        return len(self._items)


def _concrete(cls):
    """``cls``, or where it is abstract (``BaseRetrying``, whose
    ``__call__`` only its subclasses define) a concrete subclass of it that
    the code defines: the nearest, of those the ones in ``cls``'s own module
    first, then by module and name (``Retrying``). Where the code defines
    none, a subclass made here whose abstract methods keep their own bodies.
    Either version of a function picks the same way."""
    if not getattr(cls, "__abstractmethods__", None):
        return cls
    level, seen = [cls], {cls}
    while level:
        found, below = [], []
        for k in level:
            try:
                subs = type.__subclasses__(k)
            except TypeError:
                subs = []
            for s in subs:
                if s in seen or s.__name__.startswith(_SUB_PREFIX):
                    continue
                seen.add(s)
                below.append(s)
                if not getattr(s, "__abstractmethods__", None):
                    found.append(s)
        if found:
            return min(found, key=lambda s: (s.__module__ != cls.__module__,
                                             s.__module__, s.__qualname__))
        level = below
    try:
        sub = type(cls)(cls.__name__, (cls,), {"__module__": cls.__module__,
                                                "__qualname__": cls.__qualname__})
        sub.__abstractmethods__ = frozenset()
    except Exception:
        return cls
    return sub


#: the most guard values a run reports (:func:`_observe_guard`), and how
#: many times a guard on a loop's line is read
_OBSERVED_MAX = 24
_GUARD_LOOKS = 8
_OBSERVED_TYPES = (str, int, float, bool, bytes, type(None))
_CONTAINERS = (tuple, list, set, frozenset, dict)


def _static_value(e, fr):
    """The value of the call-free expression ``e`` in frame ``fr``, read
    without running any of the program's code (no ``__getattr__``,
    property or ``__getitem__`` of its own, no injection): names, attributes
    found where they are stored, constant indexes and slices of builtin
    sequences and dicts; _SAME where it cannot be read so."""
    import inspect
    if isinstance(e, ast.Constant):
        return e.value
    if isinstance(e, ast.Name):
        for ns in (fr.f_locals, fr.f_globals, fr.f_builtins):
            if e.id in ns:
                return ns[e.id]
        return _SAME
    if isinstance(e, ast.Attribute):
        base = _static_value(e.value, fr)
        if base is _SAME:
            return _SAME
        try:
            return inspect.getattr_static(base, e.attr)
        except Exception:
            return _SAME
    if isinstance(e, ast.Subscript):
        base = _static_value(e.value, fr)
        if type(base) not in (tuple, list, str, bytes, dict):
            return _SAME
        try:
            if isinstance(e.slice, ast.Slice):
                key = slice(*[None if x is None else ast.literal_eval(x)
                              for x in (e.slice.lower, e.slice.upper, e.slice.step)])
            else:
                key = ast.literal_eval(e.slice)
            return base[key]
        except Exception:
            return _SAME
    return _SAME


def _observe_guard(fr, guards: list, out: set) -> None:
    """What a parameter (``guards``: (subject, the value's expression,
    "in", "==" or "key")) is tested against on the line ``fr`` is about to
    run (``if part not in validparts``, ``validparts = cls.NAMES[:-1]``):
    the members of the container, the keys of a dict it is looked up in
    (``self._codes[code]``), or the value compared, where they are
    numbers, texts, bytes, booleans or None; added to ``out`` as
    ``(parameter, repr)``.  Inputs that give the parameter each of them
    reach what the test guards (the container is computed: no literal of
    the function names its members)."""
    for param, e, op in guards:
        if len(out) >= _OBSERVED_MAX:
            return
        try:
            x = _static_value(e, fr)
        except Exception:
            continue
        if x is _SAME:
            continue
        if op == "in":
            if type(x) not in _CONTAINERS or len(x) > 32:
                continue
            members = list(x)
        elif op == "key":
            if not isinstance(x, dict) or dict.__len__(x) > 32:
                continue
            members = list(dict.keys(x))
        else:
            members = [x]
        for m in members:
            if type(m) in _OBSERVED_TYPES and (not isinstance(m, (str, bytes)) or len(m) <= 80):
                out.add((param, repr(m)))
                if len(out) >= _OBSERVED_MAX:
                    return


class _LxOpenBase:
    """The base an extract's class gets for the bases of the project that the
    extract drops (``class TomlNumpyEncoder(TomlEncoder)``): its
    ``__init__`` takes whatever ``super().__init__(_dict, preserve)``
    passes, where ``object.__init__`` would raise a TypeError on every
    input; the call shows in the trace (:data:`OPEN_BASE_INIT`) with its
    arguments.  What the dropped base would have set, injection or the
    input gives.  No slots of its own: instances of a class with ``__slots__``
    stay without a ``__dict__``, as on ``object``."""

    __slots__ = ()

    def __init__(self, *args, **kwargs):
        pass


def _bare(cls):
    cls = _concrete(cls)
    return object.__new__(cls) if cls.__new__ is object.__new__ else cls.__new__(cls)


def _constructed(cls, fn, env: dict):
    """An instance for a method to run on: built by the class's own
    ``__init__`` when that needs no arguments (``parser()``: its tables
    set up as the code expects) or only ones whose names say what they hold
    (``LRUCache(maxsize=2)``: :func:`_guessed_argument`), else -- or when it
    fails -- a bare one (``__new__`` alone), whose attributes the input and
    injection give."""
    import inspect
    cls = _concrete(cls)
    obj = _bare(cls)
    init = None
    for k in cls.__mro__:
        if k is object or k is env.get("__lx_base__"):
            break
        if "__init__" in vars(k):
            init = vars(k)["__init__"]
            break
    if init is None or not callable(init) or \
            getattr(init, "__code__", 0) is getattr(fn, "__code__", 1):
        return obj          # (the method under test is the constructor itself)
    try:
        ps = list(inspect.signature(init).parameters.values())[1:]
    except (TypeError, ValueError):
        return obj
    args, kwargs = [], {}
    first = ps[0] if ps and ps[0].kind in (ps[0].POSITIONAL_ONLY,
                                           ps[0].POSITIONAL_OR_KEYWORD) else None
    guessed = True
    for p in ps:
        if p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        # a required parameter whose name says what it holds: a small count
        # (``maxsize``, ``ttl``), a short text (``name``); else no instance
        guess = _guessed_argument(p.name)
        if guess is _SAME and p is not first:
            return obj
        guessed = guessed and guess is not _SAME
        if p.kind == p.KEYWORD_ONLY:
            kwargs[p.name] = guess
        else:
            args.append(guess)
    if guessed:
        try:
            init(obj, *args, **kwargs)
        except sandbox.Timeout:
            raise
        except BaseException:
            pass                    # half built: nothing of it
        else:
            return obj
    if first is not None and _takes_text(first):
        # a constructor that parses a text (``Version('1.2.3')``): the texts
        # the class's and its module's examples pass it, else the texts its
        # patterns match, given as the first argument
        rest = args[1:] if first.default is first.empty else args
        for text in _constructor_texts(cls, env):
            obj = _bare(cls)
            try:
                init(obj, text, *rest, **kwargs)
            except sandbox.Timeout:
                raise
            except BaseException:
                continue
            return obj
    return _bare(cls)


#: a parameter named for a text a constructor parses
_PARSED_NAME = re.compile(r"(^|_)(s|text|string|str|version|spec|specifier|expr|expression|"
                          r"source|src|line|raw|value|name|pattern)($|_)")


def _takes_text(p) -> bool:
    """Whether a constructor's parameter takes a text: annotated ``str`` (or
    a union with it), else, unannotated, named for one (``version_string``;
    not ``env``, a mapping: mistune's ``InlineState(env)``)."""
    import typing
    ann = p.annotation
    if ann is p.empty:
        return bool(_PARSED_NAME.search(p.name.lower()))
    if isinstance(ann, str):
        # (written as text: ``from __future__ import annotations``)
        try:
            e = ast.parse(ann, mode="eval").body
        except SyntaxError:
            return False

        def texty(e) -> bool:
            if isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr):
                return texty(e.left) or texty(e.right)
            if isinstance(e, ast.Subscript) and \
                    (getattr(e.value, "id", None) or getattr(e.value, "attr", None)) in \
                    ("Optional", "Union"):
                parts = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
                return any(texty(x) for x in parts)
            return isinstance(e, ast.Name) and e.id == "str"
        return texty(e)
    if ann is str:
        return True
    return typing.get_origin(ann) in (typing.Union, types.UnionType) and \
        str in typing.get_args(ann)


#: texts tried as a constructor's first argument at most
_CONSTRUCTOR_TEXTS = 6


def _constructor_texts(cls, env: dict) -> list:
    """Texts a class's constructor may parse: string literals its name is
    called with in the class's and its module's docstrings
    (``>>> Version('1.2.3')``), then texts the patterns among the class's
    attributes (``version_re``), else its module's, match from their start."""
    from . import regexdiff
    out: list = []
    name = getattr(cls, "__name__", "")
    call = re.compile(r"\b%s\(\s*(['\"])([^'\"\n]{1,80})\1\s*[,)]" % re.escape(name))
    for doc in (getattr(cls, "__doc__", None), env.get("__doc__")):
        if type(doc) is str:
            out += [m.group(2) for m in call.finditer(doc)]
    pats: list = []
    for scope in [vars(k) for k in getattr(cls, "__mro__", ())[:-1]] + [env]:
        pats += [x for x in list(scope.values())[:400]
                 if type(x) is re.Pattern and type(x.pattern) is str]
        if pats:
            break
    for pat in pats[:3]:
        try:
            texts = regexdiff.member_samples(pat.pattern, pat.flags, 8)
        except Exception:
            continue
        out += [t for t in texts if pat.match(t)][:2]
    seen: set = set()
    return [t for t in out if not (t in seen or seen.add(t))][:_CONSTRUCTOR_TEXTS]


#: a required constructor parameter's value by what its name says
_COUNT_NAME = re.compile(r"(^|_)(max|min)?(size|count|num|n|limit|capacity|length|len|ttl|"
                         r"timeout|depth|width|height|level|maxsize|maxlen|bits|base|"
                         r"precision|digits|retries|tries|index|idx|start|stop|step)($|_)")
_TEXT_NAME = re.compile(r"(^|_)(name|key|text|string|prefix|suffix|sep|label|title|tag|"
                        r"pattern|fmt|format|word|char)($|_)")


def _guessed_argument(name: str):
    """2 for a parameter named for a count or size, 'a' for one named for
    a text, else _SAME (no guess)."""
    name = name.lower()
    if name.endswith(("func", "fn", "callback", "factory", "hook", "cls", "class", "type")):
        return _SAME
    if _COUNT_NAME.search(name):
        return 2
    if _TEXT_NAME.search(name):
        return "a"
    return _SAME


def _with_varargs(fn, args: list, kwargs: dict, names, given, env: dict) -> list:
    """``args`` followed by the items the input gives the function's
    ``*args`` parameter (``names``: its name in this version, then in the
    other), when the input names it among the values it gives; the optional
    positional parameters between them get the value ``kwargs`` holds (taken
    out of it) or their default.  ``args`` unchanged otherwise."""
    import inspect
    name = next((n for n in names if n in given and n in env), None)
    if name is None:
        return args
    try:
        items = list(env[name])
        ps = list(inspect.signature(fn).parameters.values())
    except Exception:        # not iterable, or no signature: as it was
        return args
    if not any(p.kind is p.VAR_POSITIONAL for p in ps):
        return args
    middle = []
    for p in ps:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and \
                p.default is not p.empty:
            middle.append(kwargs.pop(p.name) if p.name in kwargs else p.default)
    return list(args) + middle + items


def _with_varkw(fn, kwargs: dict, names, given, env: dict) -> None:
    """Into ``kwargs``: the items the input gives the function's ``**kwargs``
    parameter (``names``: its name in this version, then in the other), when
    the input names it among the values it gives (``kwargs = {'partial':
    True}`` for ``kwargs.pop('partial', False)``); keys that name another
    parameter, or are no identifiers, are left out."""
    import inspect
    from collections.abc import Mapping
    name = next((n for n in names if n in given and n in env), None)
    if name is None or not isinstance(env[name], Mapping):
        return
    try:
        ps = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return
    if not any(p.kind is p.VAR_KEYWORD for p in ps.values()):
        return
    try:
        items = list(env[name].items())[:_ARGS_MAX]
    except Exception:        # a mapping the input made that fails: as it was
        return
    for k, x in items:
        if isinstance(k, str) and k.isidentifier() and k not in ps and k not in kwargs:
            kwargs[k] = x


def reshape(x, how: str):
    """``x`` in another shape that callers pass as often (``how``, one of
    RESHAPES; ``suffix:TEXT``: TEXT appended to a string or bytes;
    ``const:TEXT``: the string or bytes TEXT instead; ``none``: None;
    ``frac``: 0.7 added to an int; ``float``: an int as a float;
    ``num:N``: the number N instead of a number; ``flip``: a bool negated;
    ``index``: an int as an object that has ``__index__`` alone;
    ``proxy``: the value behind a ``__getattr__`` wrapper (_Proxy);
    ``lit:REPR``: the literal REPR instead of any value), or
    ``_SAME`` when ``x`` is not of a kind that reshape applies to.  Exact
    types only: a subclass keeps its shape."""
    import datetime
    t = type(x)
    if how == "iter" and t in (list, tuple, str) and x:
        # (a string's characters only in a pair: behaviour._variants)
        return (v for v in x)
    if how == "getitem" and t in (list, tuple) and x:
        return _OnlyGetitem(x)
    if how == "proxy" and x is not None and t not in (bool, int, float, _Proxy):
        return _Proxy(x)
    if how == "neg" and t in (int, float, datetime.timedelta):
        return -x if x else (-1 if t is int else -1.5 if t is float else _SAME)
    if how == "index" and t is int:
        return _IndexOnly(x)
    if how == "big" and t in (int, float):
        return x * 1000 + 999
    if how == "nan" and t is float:
        return float("nan")
    if how == "tz" and t is datetime.datetime and x.tzinfo is None:
        return x.replace(tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30)))
    if how == "empty" and t in (str, bytes, list, tuple, dict, set) and x:
        return t()
    if how == "upper" and t in (str, bytes) and x != x.upper():
        return x.upper()
    if how == "lower" and t in (str, bytes) and x != x.lower():
        return x.lower()
    if how == "none" and x is not None:
        return None
    if how == "frac" and t is int:
        return x + 0.7
    if how == "float" and t is int:
        return float(x)
    if how == "bytes" and t is str:
        return x.encode()
    if how.startswith(("suffix:", "const:")) and t in (str, bytes):
        tok = how.partition(":")[2]
        tok = tok if t is str else tok.encode("latin-1", "replace")
        y = x + tok if how.startswith("suffix:") else tok
        return y if y != x else _SAME
    if how.startswith("num:") and t in (int, float):
        # a number another operand of a changed comparison had (behaviour:
        # the operands' values at the changed lines' exits)
        try:
            n = float(how[4:])
            y = int(n) if t is int and n.is_integer() else n
        except (ValueError, OverflowError):
            return _SAME
        return y if y != x else _SAME
    if how == "mapping" and t is dict:
        import types as _t
        return _t.MappingProxyType(x)
    if how.startswith("lit:"):
        # a literal value another input gave this parameter (behaviour: an
        # aimed input's ``default = None`` on a doctest's concrete call)
        import ast
        try:
            y = ast.literal_eval(how[4:])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return _SAME
        return y if type(y) is not t or y != x else _SAME
    if how == "flip" and t is bool:
        # a flag the other way (``with_headers=False``): the path a default
        # of True never takes
        return not x
    return _SAME


#: the instant the wall clock shows in every run (UTC; not a round number,
#: so that code which rounds or buckets it has something to do; late in
#: the day, so that "today" east of UTC is already tomorrow)
FROZEN_CLOCK = 1718486469.371254     # 2024-06-15 21:21:09.371254 UTC


def clock_frozen_available() -> bool:
    """Whether runs get a frozen wall clock (the time-machine package)."""
    try:
        import time_machine  # noqa: F401
    except ImportError:
        return False
    return True


def _freeze_clock() -> None:
    """Stop the wall clock at FROZEN_CLOCK for the rest of this process (a
    sandbox child): time.time/time_ns, gmtime/localtime/strftime/ctime/
    asctime without an argument, datetime.now/utcnow/today, date.today.
    time-machine patches the C functions themselves, so ``from datetime import datetime`` and
    ``from time import time`` aliases made before this are frozen too
    (``ctime``/``asctime`` are replaced in the ``time`` module only: an
    alias made before this keeps the real clock).  The monotonic clocks
    keep running (timeouts and sleeps work).  Without the package the
    clock runs as it is."""
    try:
        import time_machine
    except ImportError:
        return
    time_machine.travel(FROZEN_CLOCK, tick=False).start()
    # time-machine leaves ``ctime()`` and ``asctime()`` without an argument
    # on the real clock (they read it in C): they show the frozen instant
    # too (a digest's nonce hashes ``time.ctime()``)
    import time
    real_ctime, real_asctime = time.ctime, time.asctime

    def ctime(secs=None):
        return real_ctime(time.time() if secs is None else secs)

    def asctime(t=None):
        return real_asctime(time.localtime() if t is None else t)
    for f in (ctime, asctime):
        f.__module__, f.__qualname__ = "time", f.__name__     # as a trace names them
    time.ctime, time.asctime = ctime, asctime


_HELD: list = []

#: lengths of ``bytes`` objects, one in each size class the object allocator
#: serves from 48 to 512 bytes (``object()`` and a two-digit int fill 16 and 32)
_BYTES_SIZES = range(2, 480, 16)


def _padding(n: int) -> list:
    """Blocks of every size class the object allocator serves from its
    pools (``n`` * 64 rounds, two of each size a round), one of each pair
    kept (returned: the caller holds them) and the other freed, in a
    shuffled order, after a block the size of ``n`` arenas: the objects
    made after it, fresh or reusing a freed block, sit at other addresses
    than without it (objects that a type keeps for reuse, dicts and frames,
    excepted)."""
    n = max(0, int(n))
    if not n:
        return []
    import random
    keep: list = []
    drop: list = []
    for i in range(64 * n):
        for got in (keep, drop):
            got.append(object())                    # 16 bytes
            got.append((1 << 40) + i)               # 32
            got.extend(bytes(k) for k in _BYTES_SIZES)          # 48 .. 512
    random.Random(n).shuffle(drop)
    while drop:
        drop.pop()
    return [bytearray(n << 20)] + keep


def _holding(n: int) -> list:
    """The first blocks free in every size class of the object allocator
    (``n`` * 8 of each), taken and kept, none freed: taken last before the
    call, after the tracer is set, so that blocks freed since the padding
    (:func:`_padding`), by whatever ran between, are held here rather than
    reused, in the same order in every run, by the objects the code makes
    (the address test failed once on 3.13 in CI, in a long test session,
    not reproduced since: the runs' iterators sat at the same addresses
    whatever the padding)."""
    n = max(0, int(n))
    if not n:
        return []
    out = [None] * (8 * n * (2 + len(_BYTES_SIZES)))  # made at once: none freed as it grows
    i = 0
    for j in range(8 * n):
        out[i] = object()                       # 16 bytes
        out[i + 1] = (1 << 40) + j              # 32
        i += 2
        for k in _BYTES_SIZES:                  # 48 .. 512
            out[i] = bytes(k)
            i += 1
    return out


def _seed_urandom(seed: int) -> None:
    """``os.urandom`` (and what reads it: ``random.SystemRandom``,
    ``secrets``, ``uuid.uuid4``, and now ``random.Random()`` made without a
    seed) made to give bytes drawn from a generator seeded with ``seed``, in
    this child only."""
    import os
    import random
    rng = random.Random(f"urandom:{seed}")

    def urandom(n, _rng=rng):
        n = int(n)
        if n < 0:
            raise ValueError("negative argument not allowed")
        return _rng.randbytes(n)
    os.urandom = urandom
    if hasattr(random, "_urandom"):
        random._urandom = urandom
    # ``Random()`` and ``seed()`` without a value seed from the kernel in C,
    # not through ``os.urandom``: from the seeded bytes instead
    real_seed = random.Random.seed

    def seed(self, a=None, version=2, _real=real_seed):
        if a is None:
            a = int.from_bytes(urandom(32), "big")
        return _real(self, a, version)
    random.Random.seed = seed


def _seed_tempfile(seed: int) -> None:
    """``tempfile``'s random names (``mkdtemp(prefix='cache-')``, a
    ``NamedTemporaryFile``) drawn from a generator seeded with ``seed``, in
    this child only: each run starts in a run directory of its own, so two
    runs of an input make the same names, and a value that holds one (an
    object keeping its directory) compares between runs and versions.  The
    generator's own reseeding after a fork is kept (a process the code
    starts draws other names)."""
    import os
    import random
    import tempfile
    seq = tempfile._RandomNameSequence()
    seq._rng = random.Random(f"tempfile:{seed}")
    seq._rng_pid = os.getpid()
    tempfile._name_sequence = seq


#: the frames the code of a run may add to the stack of ``run_case``'s caller
RECURSION_FRAMES = 900


#: what a rerun's ``id()`` adds to an object's address, per round of padding
#: (a multiple of 16, as addresses are, and more than any padding moves)
_ID_SALT = 1 << 36


def _salt_id(shift: int) -> None:
    """In a rerun (``shift`` > 0), the code's ``id()`` gives each object's
    address plus ``shift`` * ``_ID_SALT``: one constant for every object of
    the run, so ids compare and order as before (``id(a) == id(b)``, a sort
    by ``id``), while a value computed from an id's digits differs from the
    first run's, whether or not the padding moved the object (on 3.13 in a
    long CI session, a rerun's iterator sat where the first run's had, and
    its spelled-out ``id`` was taken for a difference between the versions)."""
    import builtins
    if shift <= 0:
        return
    real, salt = _REAL_ID, int(shift) * _ID_SALT

    def id(obj, /):                                  # noqa: A001 (the builtin's name, as traces show it)
        return real(obj) + salt
    id.__module__, id.__qualname__, id.__doc__ = "builtins", "id", _REAL_ID.__doc__
    builtins.id = id


_REAL_ID = id


def _fix_recursion_budget() -> None:
    """Set the recursion limit to the frames on the stack now plus
    RECURSION_FRAMES: the same room in every run, however deep in the
    parent the sandbox's fork was."""
    import sys
    depth, f = 0, sys._getframe()
    while f is not None:
        depth, f = depth + 1, f.f_back
    try:
        sys.setrecursionlimit(depth + RECURSION_FRAMES)
    except (ValueError, RecursionError):
        pass


def _no_display(*args, **kwargs) -> None:
    """``warnings.showwarning`` while a run is watched: nothing shown."""


def run_case(drv: dict, inp: dict, seed: int, predictor, randomize: bool) -> dict:
    """In the sandbox child: prefix, module or driver, call; plain data back."""
    import builtins
    import io
    import os
    import sys
    import types
    import warnings
    from .._core import Runtime
    import random
    res: dict = {"outcome": None, "dropped": 0}
    # the same pseudo-random numbers for both versions of an input (the
    # child would otherwise inherit whatever state the parent's random has)
    random.seed(seed)
    # and the same "random" bytes (``os.urandom``: a nonce, ``uuid4()``,
    # ``secrets``): else each run's differ from the next, and no difference
    # in what the code does with them counts (an argument added to the call
    # that hashes a nonce)
    _seed_urandom(seed)
    # and the same names for temporary files and directories
    _seed_tempfile(seed)
    # and the same wall clock: ``now()`` and ``time.time()`` give one fixed
    # instant in every run, so a value computed from the clock is a value
    # the versions can be compared on (else each run's differs from the
    # next and no difference in it counts)
    _freeze_clock()
    # a rerun that checks a difference allocates first, here and again just
    # before the call: the objects the code makes then sit at other
    # addresses, so a value computed from an address (``str(iter(x))``
    # spelled out as digits, an order by ``id``) differs from the first
    # run's and is no evidence.  (Padding here alone is not enough: blocks
    # of objects the parent made, freed while the module runs -- a full
    # cache evicting -- are reused first, at the same addresses whatever
    # was allocated before.)
    shift = inp.get("shift") or 0
    _HELD[:] = _padding(shift)
    _salt_id(shift)
    # and the same depth of recursion, wherever the parent called from (a
    # rerun is called from deeper in the check than the first run): code
    # that recurses to the limit (a made-up object's attribute asked of
    # itself) fails at the same point in every run
    _fix_recursion_budget()
    dummies = _dummy_types()
    filename = drv["filename"]
    real_out, real_err = sys.stdout, sys.stderr
    real_show = warnings.showwarning
    sink = io.StringIO()
    sys.stdout = sink
    # what the function writes to stderr is output too (a script's "failed!"
    # line); the warnings module's display of a warning is not: the call
    # that warned is in the trace, and the display names the line it came
    # from, which an edit moves
    err_sink = io.StringIO()
    sys.stderr = err_sink
    warnings.showwarning = _no_display

    def stop(outcome, e=None):
        sys.stdout, sys.stderr = real_out, real_err
        warnings.showwarning = real_show
        res["outcome"] = outcome
        if e is not None:
            res["message"] = _norm(f"{type(e).__name__}: {e}")[:300]
        return res

    # 0. the module object (module mode: registered, its package imported)
    if drv["mode"] == "module":
        import importlib
        sys.path.insert(0, drv["root"])
        name = drv["module_name"]
        parent = name if drv["is_package"] else name.rpartition(".")[0]
        _compat_aliases()
        if parent and parent != name:
            try:
                importlib.import_module(parent)
            except BaseException:
                # the package does not import here: a stand-in package, so
                # that the module's relative imports of its siblings work
                _stub_packages(parent, drv["root"])
        mod = types.ModuleType(name)
        mod.__file__ = drv["module_file"]
        mod.__package__ = parent
        if drv["is_package"]:
            mod.__path__ = [os.path.dirname(drv["module_file"])]
        sys.modules[name] = mod
        env = mod.__dict__
        env["__builtins__"] = builtins
    else:
        # a module registered under its name, as a module is: code that
        # looks itself up (``import_module(f.__module__)`` to pickle a
        # function by name, ``sys.modules[cls.__module__]``) finds it
        mod = types.ModuleType("__lx_check__")
        mod.__file__ = filename
        sys.modules["__lx_check__"] = mod
        env = mod.__dict__
        env["__builtins__"] = builtins
    # 1. the prefix, as it is, statement by statement
    try:
        stmts = ast.parse(inp.get("prefix") or "").body
    except SyntaxError:
        stmts = []
        res["dropped"] = -1
    for s in stmts:
        try:
            exec(compile(ast.Module([s], []), "<prefix>", "exec"), env)
        except sandbox.Timeout:
            return stop("timeout")
        except BaseException:
            res["dropped"] += 1
    params = drv["args"] + drv["kwargs"] + ([drv["self"]] if drv["self"] else [])
    given = {p: env[p] for p in params if p in env}
    pre = {k: env[k] for k in [st.id for s in stmts for st in ast.walk(s)
                               if isinstance(st, ast.Name) and isinstance(st.ctx, ast.Store)]
           if k in env}
    s_obj = given.get(drv["self"]) if drv["self"] else None
    base = _LxOpenBase if drv.get("open_base") else object
    if s_obj is not None and type(type(s_obj)) is type and \
            type(s_obj).__module__ == env.get("__name__"):
        base = type(s_obj)
        if drv.get("open_base") and base.__init__ is object.__init__:
            # (the class a prefix made for the object, with no ``__init__``
            # of its own: the open base's under it)
            base = type(base.__name__, (base, _LxOpenBase), {"__module__": base.__module__})
    env["__lx_base__"] = base
    # 2. the module or driver, instrumented, injection underneath
    inst, codes = _instrumented(drv["text"], filename)
    rt = Runtime(sites=inst.iids, predictor=predictor, abstraction="fine", seed=seed,
                 randomize=randomize, record=False, filename=filename)
    loaders = rt.loaders()
    # the interaction trace (issue 20): each call the function makes to the
    # outside world, with its arguments as they were passed, recorded while
    # the function runs (a wrapper of the C call loader, in this child)
    calls: list = []
    tracing = [False]
    inside = (drv["target_first"], drv["target_last"])
    package = (drv.get("module_name") or "").split(".")[0] if drv.get("mode") == "module" else ""
    real_call = loaders["_c_"]
    # the computing functions an edit swapped for one another (apps/callees):
    # their arguments, which the trace leaves out, for the comparison
    watched = _watched_functions(drv.get("watch"))
    watch_log: list = []
    closed_missed: list = []        # attributes a closed class of the module lacks, read

    def traced_call(iid, fn, /, *a, **k):
        if not a and not k and any(fn is b for b in _FRAME_BUILTINS):
            # ``super()``, ``locals()`` ... read the frame that calls them:
            # this wrapper's own frame is in between, so they get what
            # they would have read from the caller's
            caller = sys._getframe(1)
            if fn is not super:
                return _frame_builtin(fn, caller)
            a = _super_args(caller)
        if watched and tracing[0] and len(watch_log) < _CALLS_MAX:
            q = next((q for f, q in watched if f is fn), None)
            if q is not None:
                _NO_DRAIN[0] = True
                try:
                    watch_log.append([q, [snapshot(x, 2, dummies) for x in a[:_ARGS_MAX]],
                                      sorted([kk, snapshot(x, 2, dummies)]
                                             for kk, x in list(k.items())[:_ARGS_MAX])])
                except Exception:
                    pass
                finally:
                    _NO_DRAIN[0] = False
        if tracing[0] and len(calls) < _CALLS_MAX:
            try:
                who = callee_name(fn, filename, dummies, inside, package)
                if iid in quiet and who is not None and \
                        who.startswith(("<injected>", "<input>.")):
                    # the test of an assertion the other version does not
                    # make, of a predicate the input made up
                    # (``assert _is_prepared(req)``, a check for a type
                    # checker): it held, the run went on, and what the
                    # made-up predicate was handed is nobody's business
                    who = None
                if who is not None:
                    _NO_DRAIN[0] = True
                    try:
                        sa, sk = (a, k) if isinstance(fn, dummies) else \
                            _without_defaults(fn, a, k)
                        sa = _with_receiver(fn, sa)
                        calls.append([who, [snapshot(x, 2, dummies)
                                            for x in sa[:_ARGS_MAX]],
                                      sorted([kk, snapshot(x, 2, dummies)]
                                             for kk, x in list(sk.items())[:_ARGS_MAX])])
                    finally:
                        _NO_DRAIN[0] = False
            except Exception:
                pass
        return real_call(iid, fn, *a, **k)
    if drv.get("trace", True):
        loaders["_c_"] = traced_call
    quiet = _sites_within(inst.iids, "call", drv.get("quiet_spans"))
    handled = _handled_attribute_sites(drv["text"], inst.iids, drv.get("handled_spans"))
    if handled or "_LxProxy" in (inp.get("prefix") or ""):
        loaders["_a_"] = _raising_attributes(loaders["_a_"], handled)
    spans = drv.get("name_spans")
    named = _sites_within(inst.iids, "name", name_error_spans(drv["text"]) if spans is None
                          else spans)
    if named:
        loaders["_n_"] = _raising_names(loaders["_n_"], named, env)
    env.update(loaders)
    marks = {int(r.iid): int(r.line) for r in inst.lines}
    try:
        # one top-level statement at a time: a statement that fails (a
        # decorator of another class that injected values upset, an import
        # of the project that is not there) is skipped, as the prefix's are;
        # it fails the setup only if the function is not defined after all
        first_error = None
        for code in codes:
            try:
                exec(code, env)
            except sandbox.Timeout:
                raise
            except BaseException as e:      # noqa: B036  (the code under test's own)
                if first_error is None:
                    first_error = e
                res["skipped_statements"] = res.get("skipped_statements", 0) + 1
        after = env.pop(AFTER_MODULE, None)
        if isinstance(after, dict):
            for k, x in after.items():
                if not isinstance(k, str):
                    continue
                if "." not in k:
                    env[k] = x
                    continue
                # ``Class.method``: a method of a class of the module
                head, _, attr = k.rpartition(".")
                owner = env.get(head.split(".")[0])
                try:
                    for part in head.split(".")[1:]:
                        owner = getattr(owner, part)
                    if isinstance(owner, type):
                        setattr(owner, attr, x)
                    elif owner is not None and not isinstance(owner, types.ModuleType):
                        # ``PATTERN.match``: a method of an object of the
                        # module (a made-up one, or one whose attributes
                        # can be set; a compiled pattern's cannot)
                        setattr(owner, attr, x)
                except (AttributeError, TypeError):
                    pass

        # (after the module ran: its classes exist now, and the function's
        # globals are read when it runs)
        env["_a_"] = _closed_attributes(env["_a_"], env, drv.get("closed"), closed_missed)

        def late(x):
            # a name of the module (``role = SERVER``): what the module
            # bound, or what stands in for it; ``new``: an instance of that
            # class, made without its ``__init__``
            root, *attrs = x.name.split(".")
            got = env[root] if root in env else loaders["_n_"](0, root, _absent)
            for a in attrs:         # (``RemovalCause.FULL``: a member of it)
                got = getattr(got, a)
            if getattr(x, "new", False) is True and isinstance(got, type):
                try:
                    got = got.__new__(got)
                except Exception:
                    pass
            return got

        def is_late(x):
            return type(x).__name__ == "_LxLate" and isinstance(getattr(x, "name", None), str)
        for p in list(given) + [v for v in drv.get("varargs") or () if v in env]:
            # (what the input gave a parameter, even where the module binds
            # a name of the same name)
            x = given[p] if p in given else env[p]
            if is_late(x):
                x = late(x)
            elif type(x) in (list, tuple) and any(is_late(i) for i in x):
                # the items of a parameter (``parts = [_LxLate('Segment', True)]``)
                x = type(x)(late(i) if is_late(i) else i for i in x)
            else:
                continue
            env[p] = x
            if p in given:
                given[p] = x
        holder = env
        for c in drv["class_path"]:
            holder = holder[c].__dict__ if isinstance(holder, dict) else \
                getattr(holder, c).__dict__
        cls = None
        if drv["class_path"]:
            cls = env[drv["class_path"][0]]
            for c in drv["class_path"][1:]:
                cls = getattr(cls, c)
        found, fn = _find_target(holder, filename, drv["target_first"], drv["target_def"])
        res["patterns"] = _global_patterns(fn, env)
        if fn is None:
            if first_error is not None:
                raise first_error
            return stop("setup:TargetNotFound")
        # the decorated function, when asked for (the decorators differ
        # between the versions): what the module binds, wrapper and all
        outer = _decorated(holder, fn) if drv.get("decorated") and found == "plain" else None
    except sandbox.Timeout:
        return stop("timeout")
    except BaseException as e:
        return stop(f"setup:{type(e).__name__}", e)
    kind = drv["kind"]
    if found in ("getter", "setter", "deleter", "static", "classmethod"):
        kind = found
    needs_self = cls is not None and kind not in ("static", "classmethod")
    # 3. the arguments: a test's call expressions, or the prefix's values and injection
    call = inp.get("call")
    obj = None
    cls_before = None       # a class method's class's own attributes before the call
    entry = call.get("entry") if call else None
    try:
        if call and call.get("testdir") is not None and drv.get("checkout"):
            # where pytest would import the test's own helpers from (its
            # "prepend" mode), after everything else: no module of the
            # standard library or the package is shadowed
            tdir = os.path.join(drv["checkout"], call["testdir"])
            if os.path.isdir(tdir) and tdir not in sys.path:
                sys.path.append(tdir)
        if entry:
            # a test's call of another function of the module that leads to
            # the target (a caller): run it; the target's lines are tracked
            fn, obj, args, kwargs = _entry_call(entry, call, env)
            needs_self = False
            kind = "function"
        elif call:
            ns = dict(env)
            for imp in call.get("imports", ()):
                try:
                    exec(compile(imp, "<test imports>", "exec"), ns)
                except BaseException:
                    pass
            ns.update(env)
            args = [eval(compile(e, "<test call>", "eval"), ns) for e in call["args"]]
            kwargs = {k: eval(compile(e, "<test call>", "eval"), ns)
                      for k, e in call["kwargs"].items()}
            if needs_self and call.get("self"):
                obj = eval(compile(call["self"], "<test call>", "eval"), ns)
                if not isinstance(obj, cls):
                    obj = _as_version_class(obj, cls)
                if obj is None:
                    # the test calls a method of that name on another class
                    return stop("input:OtherClass")
        else:
            inject = loaders["_n_"]

            def arg(p):
                return given[p] if p in given else inject(0, p, _absent)
            args = [arg(p) for p in drv["args"]]
            kwargs = {p: arg(p) for p in drv["kwargs"]}
            # optional parameters an aimed input gives a value
            for p in inp.get("given") or ():
                if p in drv.get("optional", ()) and p in env and p not in kwargs:
                    kwargs[p] = env[p]
            # ``*args``, when an aimed input gives it items (``dicts[0]`` a
            # Mapping): passed after the positional parameters, the optional
            # ones at the value given or their default
            args = _with_varargs(fn, args, kwargs, drv.get("varargs") or (),
                                 inp.get("given") or (), env)
            _with_varkw(fn, kwargs, drv.get("varkw") or (), inp.get("given") or (), env)
        if needs_self and obj is None and type(s_obj) in _BUILTIN_BASES and \
                isinstance(cls, type) and issubclass(cls, type(s_obj)):
            # a subclass of str (bytes, int ...) given its value (a text an
            # edited pattern treats anew, for ``Markup.striptags``)
            try:
                obj = cls(s_obj)
            except Exception:
                obj = None
            else:
                s_obj = None
        if needs_self and obj is None and isinstance(cls, type) and issubclass(cls, tuple) \
                and isinstance(getattr(cls, "_fields", None), tuple):
            # a NamedTuple's method: the tuple built from its fields (what the
            # input gives the object's attributes, else made up), as
            # ``__new__`` alone cannot
            try:
                obj = cls(*[getattr(s_obj, f) if s_obj is not None and
                            not isinstance(s_obj, dummies) and hasattr(s_obj, f)
                            else loaders["_n_"](0, f, _absent) for f in cls._fields])
            except Exception:
                obj = None
            else:
                s_obj = None
        if needs_self and obj is None:
            obj = _constructed(cls, fn, env) if drv.get("construct", True) else _bare(cls)
            if s_obj is not None and not isinstance(s_obj, dummies):
                try:
                    src = dict(vars(s_obj))
                except TypeError:
                    src = {}
                # a private name the prefix set from outside the class
                # (``_self.__order = ...``) is the mangled one the method
                # reads (``self._LRUCache__order``)
                owner = "_" + cls.__name__.lstrip("_") if isinstance(cls, type) and \
                    cls.__name__.lstrip("_") else ""
                src = {owner + a if owner and a.startswith("__") and not a.endswith("__") and
                       owner + a not in src else a: x for a, x in src.items()}
                # what the class defines (``_TIME_SEP = b':'``, its methods),
                # in this version or the other (``class_attrs``), is the
                # code's own: a made-up value of the same name does not
                # shadow it in either run (a class default of None may be)
                skip = set(drv.get("class_attrs") or ())
                for k in cls.__mro__:
                    if k is not object and k is not env.get("__lx_base__"):
                        skip.update(a for a, x in vars(k).items() if _class_constant(x))
                # but for an attribute an aimed input gives (``self.document_class``
                # a class nothing is an instance of)
                skip -= {g[5:] for g in inp.get("given") or () if str(g).startswith("self.")}
                src = {a: x for a, x in src.items() if a not in skip}
                for a, x in src.items():
                    try:
                        if is_late(x):
                            # (``self.sep = _LxLate('UNSET')``: the module's
                            # sentinel, once the module ran)
                            x = late(x)
                        if isinstance(getattr(type(obj), a, None), _SLOT):
                            # a ``__slots__`` name: its descriptor, not the
                            # instance dict a made-up base class gives, is
                            # what the code reads (pluggy's ``HookCaller``)
                            raise AttributeError(a)
                        obj.__dict__[a] = x
                    except (AttributeError, TypeError):
                        try:
                            object.__setattr__(obj, a, x)
                        except Exception:
                            pass
        shown = None
        if inp.get("reshape"):
            # an input variant (issue 20): one argument in another shape (an
            # iterator for a list, a negative number, an aware datetime ...):
            # "how@i" the i-th argument (positional ones, then keyword ones,
            # in order), "how@name" the keyword argument ``name`` or, when
            # the input does not pass that optional parameter, its default
            # (two of them at once, joined by PAIR: an iterator *and* a
            # repeat count of two)
            spec = str(inp["reshape"])
            parts = [spec] if spec.startswith(("suffix:", "const:", "lit:")) \
                else spec.split(PAIR)
            args = list(args)
            # shown as they were given (a snapshot would consume an iterator)
            shown = (list(args), dict(kwargs))
            n_pos = len(args)
            for part in parts:
                how, _, at = part.rpartition("@")
                y = _SAME
                if part == FILL_SELF:
                    if needs_self and obj is not None:
                        y = _filled(obj, args, kwargs,
                                    fresh=any(p.rpartition("@")[0] in PEERS for p in parts))
                        if y is not _SAME:
                            obj = y
                elif part == SUBCLASS_SELF:
                    # the object as an instance of a subclass of its class
                    # (``Version(...)`` -> ``type(self)(...)``); a class
                    # method's class a new subclass of it (what a subclass's
                    # ``__init_subclass__`` and the method write to it)
                    if needs_self and obj is not None:
                        y = _as_subclass(obj)
                        if y is not _SAME:
                            obj = y
                    elif kind == "classmethod" and isinstance(cls, type):
                        cls = y = type(_SUB_PREFIX + cls.__name__, (cls,), {})
                        cls_before = {}
                elif how in PEERS:
                    # a peer of the object (its entries, one of them other)
                    # for the argument it is compared with or merged from
                    if needs_self and obj is not None and at.isdigit() and \
                            int(at) < n_pos:
                        y = _peer(obj, how)
                        if y is not _SAME:
                            args[int(at)] = y
                elif at.isdigit() and int(at) < n_pos:
                    y = reshape(args[int(at)], how)
                    if y is not _SAME:
                        args[int(at)] = y
                else:
                    name = list(shown[1])[int(at) - n_pos] \
                        if at.isdigit() and int(at) - n_pos < len(shown[1]) else at
                    if name in kwargs:
                        y = reshape(kwargs[name], how)
                    elif name in drv.get("optional", ()):
                        import inspect
                        try:
                            dv = inspect.signature(fn).parameters[name].default
                        except (ValueError, TypeError, KeyError):
                            dv = inspect.Parameter.empty
                        if dv is not inspect.Parameter.empty:
                            y = reshape(dv, how)
                            shown[1][name] = dv
                    if y is not _SAME:
                        kwargs[name] = y
                if y is _SAME:
                    return stop("input:unchanged")
    except sandbox.Timeout:
        return stop("timeout")
    except BaseException as e:
        return stop(f"input:{type(e).__name__}", e)
    lead = [obj] if needs_self else [cls] if kind == "classmethod" else []
    # positional arguments beyond the named ones (``*args`` items) are shown
    # too, so that a variant can reshape one of them
    names = [f"{entry['name']}:{i}" for i in range(len(args))] if entry else \
        list(drv["args"]) + [f"*{(drv.get('varargs') or ('args',))[0]}[{j}]"
                             for j in range(len(args) - len(drv["args"]))]
    s_args, s_kwargs = shown if shown is not None else (args, kwargs)
    # (an iterator given, a stream among them, is shown, not drained: the
    # function reads it next)
    with _not_draining():
        res["input"] = {p: _ADDR.sub("0x?", str(snapshot(x, 0, dummies)))[:300]
                        for p, x in list(zip(names, s_args)) + list(s_kwargs.items())}
    if shown is not None:
        res["input"]["(reshape)"] = inp["reshape"]
    if obj is not None and needs_self and cls_before is None:
        # the object as the call gets it: two versions whose ``__init__``
        # differ build it otherwise, and what the call leaves alone of that
        # is not the call's doing (behaviour._self_as_called)
        try:
            res["self_before"] = _ADDR.sub("0x?", repr(snapshot(obj, 0, dummies)))
        except Exception:
            pass
    if kind == "classmethod" and isinstance(cls, type) and cls_before is None:
        cls_before = _class_state(cls, dummies)
    sink = io.StringIO()
    sys.stdout = sink
    err_sink = io.StringIO()
    sys.stderr = err_sink
    # (an iterator bound, the input's stream, is shown, not drained: the
    # function reads it next)
    try:
        with _not_draining():
            globals_before = {k: snapshot(x, 0, dummies)
                              for k, x in _data_globals(env, dummies).items()}
    except Exception:
        globals_before = {}
    executed: set = set()
    # the values at the changed lines' exits (issue 20, ChangeGuard's
    # program points): the target's locals each time its frame leaves a
    # changed line for another line or returns from one
    tcode = getattr(fn, "__code__", None)
    region = {ln + drv["offset"] for ln in drv.get("changed") or ()} \
        if inp.get("points", True) else set()
    points: list = []
    in_region: dict = {}    # frame -> on a changed line now?
    # the parameters' tests against computed values (``_observe_guard``)
    guard_at: dict = {}
    for ln, param, src, op in drv.get("guards") or ():
        try:
            e = ast.parse(src, mode="eval").body
        except SyntaxError:
            continue
        guard_at.setdefault(ln + drv["offset"], []).append((param, e, op))
    observed: set = set()
    looks: dict = {}        # guard line -> times read (a loop's test: a few times)
    # a caller's run (``entry``): how many calls it had made when the
    # target's first line ran (what came before is not the target's doing)
    entered: list = [None]
    t_first, t_last = drv["target_first"], drv["target_last"]

    def at_exit(fr):
        if len(points) >= _POINTS_MAX:
            return
        # an iterator is shown, not drained: recording must not change the run
        _NO_DRAIN[0] = True
        try:
            points.append({k: _ADDR.sub("0x?", repr(snapshot(x, 0, dummies)))[:200]
                           for k, x in list(fr.f_locals.items())
                           if not k.startswith("_lx") and not k.startswith("__")})
        except Exception:
            points.append({})
        finally:
            _NO_DRAIN[0] = False

    def line_tracer(frame, event, arg):
        # the lines of the code under test that ran (exactly: the runtime's
        # markers say which blocks were entered, not which statements ran)
        if frame.f_code.co_filename != filename:
            return None

        def local(fr, ev, a):
            if ev == "line":
                executed.add(fr.f_lineno)
                if entered[0] is None and t_first <= fr.f_lineno <= t_last:
                    entered[0] = len(calls)
                if fr.f_lineno in guard_at and fr.f_code is tcode and \
                        looks.get(fr.f_lineno, 0) < _GUARD_LOOKS:
                    looks[fr.f_lineno] = looks.get(fr.f_lineno, 0) + 1
                    _observe_guard(fr, guard_at[fr.f_lineno], observed)
                if region and fr.f_code is tcode:
                    now = fr.f_lineno in region
                    if in_region.get(id(fr)) and not now:
                        at_exit(fr)
                    in_region[id(fr)] = now
            elif ev == "return" and region and fr.f_code is tcode and \
                    in_region.pop(id(fr), False):
                at_exit(fr)
            return local
        return local
    drained: list = []      # the returned iterator's items, as they came
    thrown = _thrown(inp.get("given"), env)
    if outer is not None:
        res["decorated"] = True
    _HELD.append(_padding(shift))
    try:
        tracing[0] = True
        sys.settrace(line_tracer)
        _HELD.append(_holding(shift))
        value = _drain(_awaited((outer or fn)(*lead, *args, **kwargs)), drained, thrown)
        chain = [snapshot(value, 0, dummies)]
        alias = _alias_of(value, obj if needs_self else None, args, kwargs, dummies, env, pre)
        if alias is not None:
            chain[0] = [alias, chain[0]]
        # an object of a class the function defines (a sentinel, a record
        # type): what callers do with any object -- copy it, compare it,
        # show it -- runs that class's methods, which the edit may be in
        probed = _protocols(value, filename, drv["target_first"], drv["target_last"],
                            dummies)
        # a closure the function made (a decorator's wrapper, a factory's
        # product): call it too, so that changes inside it are reached
        for _ in range(3):
            inner = _closure_of(value, filename, drv["target_first"], drv["target_last"])
            if inner is None:
                break
            try:
                # (awaited where it is a coroutine function: an async
                # decorator's wrapper)
                cargs = _closure_args(inner, pre, loaders["_n_"])
                value = _drain(_awaited(inner(*cargs)))
                chain.append(snapshot(value, 0, dummies))
                if _closure_of(value, filename, drv["target_first"],
                               drv["target_last"]) is None:
                    # the innermost closure, called again with the same
                    # arguments: what it keeps between calls (a cache, a
                    # counter, a once-only flag) decides the second call
                    chain.append(snapshot(_drain(_awaited(inner(*cargs))), 0, dummies))
                    if inner.__code__.co_flags & 0x08:          # CO_VARKEYWORDS
                        # and with a keyword (``wrapper(*args, **kwargs)``:
                        # what it does with them, ``key(*args)`` or
                        # ``func(*args)`` dropping them, shows only so)
                        chain.append(snapshot(_drain(_awaited(inner(*cargs, lx_kw=2))),
                                              0, dummies))
            except sandbox.Timeout:
                raise
            except BaseException as e:
                chain.append(f"raised:{type(e).__name__}")
                break
        if probed:
            chain.append(["<protocols>", probed])
        res["outcome"] = "returned"
        res["ret"] = _norm(repr(chain[0] if len(chain) == 1 else
                                           ["<calls>"] + chain))
    except sandbox.Timeout:
        return stop("timeout")
    except BaseException as e:
        res["outcome"] = f"raised:{type(e).__name__}"
        try:
            res["message"] = _norm(str(e))[:300]
        except BaseException:
            res["message"] = ""
        # how it is chained (``raise ... from err``: what a traceback shows
        # and ``__cause__`` holds): the cause's type, "none" for ``from
        # None``, nothing for an exception raised as it is
        cause = getattr(e, "__cause__", None)
        res["cause"] = type(cause).__name__ if cause is not None else \
            "none" if getattr(e, "__suppress_context__", False) else ""
        # what a caller that catches it reads from an exception of the
        # project's own class (build's ``BuildBackendException.exc_info``,
        # a parser error's position): its instance attributes
        try:
            attrs = _instance_attrs(e, 1, dummies) if _own_class(type(e)) else []
        except BaseException:
            attrs = []
        attrs = [kv for kv in attrs if not (kv[0].startswith("__") and kv[0].endswith("__"))]
        if attrs:
            # (a traceback it keeps as text without its line numbers: where
            # the code sits in its file is no behaviour)
            res["raised"] = _TB_LINE_IN.sub(r"\1?", _norm(repr(attrs)))
        line = _line_of(e, filename)
        res["line"] = None if line is None else line - drv["offset"]
        # raised by the environment (an exit, a file, process or host that is
        # not there), not by the module's own logic
        res["foreign"] = isinstance(e, (OSError, SystemExit)) or \
            type(e).__module__ == "subprocess"
        if drained:
            # raised while its returned iterator was iterated, not by the
            # call: what a caller that never iterates sees differs
            _NO_DRAIN[0] = True
            try:
                res["ret"] = _norm(repr(snapshot(
                    drained + [f"raised:{type(e).__name__}"], 0, dummies)))
            except Exception:
                res["ret"] = repr(["<iterator>", f"raised:{type(e).__name__}"])
            finally:
                _NO_DRAIN[0] = False
    finally:
        sys.settrace(None)
        tracing[0] = False
        sys.stdout, sys.stderr = real_out, real_err
        warnings.showwarning = real_show
    try:
        sandbox._disarm()
    except Exception:
        pass
    res["calls"] = _norm(repr(calls))
    if entry:
        res["target_at"] = entered[0]
    try:
        with _not_draining():       # (shown as before the call)
            after = {k: snapshot(x, 0, dummies)
                     for k, x in _data_globals(env, dummies).items()}
        res["globals"] = _ADDR.sub("0x?", repr(sorted(
            [k, v] for k, v in after.items() if globals_before.get(k, "<unset>") != v)))
    except Exception:
        res["globals"] = "[]"
    err = err_sink.getvalue()[:20000]
    res["out"] = _TB_LINE.sub(r"\1?", _norm(sink.getvalue()[:20000] +
                                          (f"\n[stderr]\n{err}" if err else "")))
    res["args"] = _ADDR.sub("0x?", repr([snapshot(x, 0, dummies) for x in args] +
                                        [snapshot(x, 0, dummies) for x in kwargs.values()]))
    res["self"] = _ADDR.sub("0x?", repr(snapshot(obj, 0, dummies))) if obj is not None else ""
    if cls_before is not None:
        # what a class method wrote to its class (set, changed, deleted)
        after = _class_state(cls, dummies)
        res["self"] = _ADDR.sub("0x?", repr(
            sorted([k, v] for k, v in after.items() if cls_before.get(k, _UNSET) != v) +
            sorted([k, _UNSET] for k in cls_before if k not in after)))
    first, last, off = drv["target_first"], drv["target_last"], drv["offset"]
    res["reached"] = sorted({marks[i] - off for i in rt.reached()
                             if i in marks and first <= marks[i] <= last})
    res["lines"] = sorted({ln - off for ln in executed if first <= ln <= last})
    res["injections"] = len(rt.injections)
    res["injected"] = [[str(k), str(n), ln] for (_i, k, n, ln, _c, _v) in rt.injections[:80]]
    res["points"] = points
    if watch_log:
        res["watched"] = watch_log
    if closed_missed:
        res["closed_miss"] = closed_missed
    if observed:
        res["observed"] = sorted(observed)
    return res
