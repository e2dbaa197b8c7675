"""Inputs aimed at an edit (issue 20): values taken from the constants and
comparisons in and around the changed lines of a function, so that an input
reaches those lines and makes the two versions disagree.

:func:`aimed_inputs` reads both versions' ASTs and returns prefixes (Python
statements run before the function, see lexecutor_c.apps.funcrun) that give
one *subject* one value each:

* a subject is an expression the guarding code tests: a parameter (``x``), an
  attribute or item of one (``self.mode``, ``e.errno``, ``opts['k']``), an
  attribute of an imported module (``sys.platform``, ``os.name``) or of a
  free name the input leaves to injection;
* its values come from the comparison: ``==``/``!=``/``is`` operands,
  ``<``/``<=``/``>``/``>=`` boundaries (c-1, c, c+1), ``in`` tokens (each
  element of a literal container; a string holding a token), the keys of a
  dict literal the subject indexes (``d[x]``, ``d.get(x)``, ``x in d``),
  ``isinstance`` targets (a value of that builtin class), ``len(x) op c``
  (a list of that length), ``startswith``/``endswith`` arguments, and the
  edge values (None, '', 0, [], {}) where the subject is tested for truth;
  each test's other answer too (a value outside the container, text that
  does not start so, None for a sentinel); through simple arithmetic
  (``value % 100 in (11, 12)`` gives ``value`` 11 and 111); ``type(x) in
  (...)`` and ``getattr(x, "name", ...)``; the tests of the module's own
  functions a parameter is passed to (one call deep);
* an ``except`` handler that the edit touches is reached by making a call of
  the ``try`` body (a function of an imported module) raise the handled
  class, with the ``errno`` values the handler compares against.
* a predicate of the module whose truth decides whether the changed lines
  run (``if not isatty(sys.stdin): return``) answers True and False once the
  module ran, and a function of an imported module compared with a value
  (``platform.system() == "Windows"``) answers that value: the machine's own
  answer is one platform's (``_lx_answers`` makes such functions; their calls
  are the input's choice, not made-up values).

Subjects on the changed lines come first, then those of the statements that
guard them (``if``/``while`` tests, ``try`` handlers), then the rest of the
function; one input falls through every truth test (each subject None,
what the changed lines iterate over empty).  Each prefix is appended to a base prefix (the Treefix generator's
top plan), so the value overrides what the plan chose and the rest stays.
"""
from __future__ import annotations

import ast
import builtins
import io
import math
import os
import re
import sys
import datetime as _dt
from typing import Optional

from .funcrun import AFTER_MODULE, FROZEN_CLOCK, after_module
from .funcsource import _block_parts, _std_names, defaulted_params
from .mutants import _CMP_FLIP
from . import regexdiff

#: the sample datetime of an ``isinstance`` test: naive, an hour before the clock
_AN_HOUR_BEFORE = _dt.datetime.fromtimestamp(FROZEN_CLOCK - 3600, _dt.timezone.utc) \
    .replace(tzinfo=None)

__all__ = ["aimed_inputs", "STAND_IN", "WHOLE_CALLS", "called_name", "made_up_attributes"]

#: a stand-in object for a subject's root: the attributes the input sets,
#: anything else injected (``_n_`` is in the module's globals when it runs)
STAND_IN = '''class _LxObj:
    def __getattr__(self, a):
        if a.startswith("__"):
            raise AttributeError(a)
        return globals()["_n_"](0, a, _lx_absent)


def _lx_absent():
    raise NameError("absent")


def _lx_answers(value):
    # a function that answers ``value`` whatever it is asked (its name
    # tells the comparison it is the input's choice, not a made-up value)
    def _lx_answer(*args, **kwargs):
        return value
    return _lx_answer


class _LxWrap:
    # a value behind a wrapper that hands attributes on (a lazy object, a
    # file wrapper): ``hasattr`` sees through it, ``isinstance`` does not
    def __init__(self, x):
        object.__setattr__(self, "_lx_wrapped", x)

    def __getattr__(self, a):
        return getattr(object.__getattribute__(self, "_lx_wrapped"), a)


class _LxLate:
    # a name of the module, bound once the module ran (funcrun); new: an
    # instance of that class, made without its __init__
    def __init__(self, name, new=False):
        self.name = name
        self.new = new


def _lx_routine(self, a, b=1):
    # a function of the module's level whose first parameter is ``self``:
    # bound to an object, a method whose qualified name holds no dot
    return a


def _lx_generator(a, b=1):
    yield a


async def _lx_coroutine(a, b=1):
    return a
'''

#: a function of the input's top level (STAND_IN's ``_lx_routine``) bound to
#: an object: a bound method, its qualified name whatever the function's is
_BOUND = "__import__('types').MethodType(_lx_routine, _LxObj())"

_SAMPLES = {"str": "'a'", "int": "1", "float": "1.5", "bool": "True", "list": "[1]",
            "dict": "{'a': 1}", "tuple": "(1,)", "bytes": "b'a'", "set": "{1}",
            "bytearray": "bytearray(b'a')", "complex": "1j", "frozenset": "frozenset({1})",
            "type(None)": "None", "NoneType": "None",
            "Mapping": "__import__('types').MappingProxyType({'a': 1})",
            "abc.Mapping": "__import__('types').MappingProxyType({'a': 1})",
            "Iterable": "iter([1, 2])", "Iterator": "iter([1, 2])",
            "Sequence": "(1, 2)", "Sized": "(1, 2)",
            # the standard library's value types, by their last name (``dt.datetime``,
            # ``datetime.datetime`` and ``datetime`` after ``from datetime import ...``)
            # an hour before the commit check's frozen clock (funcrun.FROZEN_CLOCK):
            # code about "now", "today" and "ago" has something to do
            "datetime": "__import__('datetime')." + repr(_AN_HOUR_BEFORE).partition(".")[2],
            "date": "__import__('datetime')." + repr(_AN_HOUR_BEFORE.date()).partition(".")[2],
            "time": "__import__('datetime').time(5, 6, 7, 890)",
            "timedelta": "__import__('datetime').timedelta(seconds=3723, microseconds=5)",
            "tzinfo": "__import__('datetime').timezone.utc",
            "timezone": "__import__('datetime').timezone.utc",
            "Decimal": "__import__('decimal').Decimal('1.5')",
            "Fraction": "__import__('fractions').Fraction(3, 2)",
            "PurePath": "__import__('pathlib').PurePosixPath('a/b.txt')",
            "Path": "__import__('pathlib').Path('a/b.txt')",
            "Number": "1.5", "Real": "1.5", "Integral": "1", "Rational": "1",
            "Exception": "ValueError('a')", "BaseException": "ValueError('a')",
            # a slice of a few items from the second (``__getitem__``'s
            # ``isinstance(index, slice)``), a range
            "slice": "slice(1, 3)", "range": "range(1, 3)",
            # the kinds of callables (STAND_IN's)
            "MethodType": _BOUND, "FunctionType": "_lx_routine",
            "BuiltinFunctionType": "len", "GeneratorType": "_lx_generator(1)"}


#: a datetime without a time zone (the ``isinstance`` sample) and the same
#: moment with one (UTC): what a test of its ``tzinfo`` tells apart
_DATETIMES = (_SAMPLES["datetime"], _SAMPLES["datetime"][:-1] +
              ", tzinfo=__import__('datetime').timezone.utc)")


_SIGNED = ["_lx_routine", "lambda a, *, k=1: a", "lambda *a: a", _BOUND]
#: ``inspect``'s predicates of callables -> values (STAND_IN's) each
#: answers True for
_ROUTINES = {"ismethod": [_BOUND], "isfunction": ["_lx_routine"],
             "isroutine": [_BOUND, "_lx_routine", "len"], "isbuiltin": ["len"],
             "ismethoddescriptor": ["str.upper"],
             "isgeneratorfunction": ["_lx_generator"],
             "iscoroutinefunction": ["_lx_coroutine"],
             # what ``inspect`` reads the parameters of: functions with
             # parameters of each kind (positional with a default,
             # keyword-only, ``*args``), and one bound to an object
             "signature": _SIGNED, "getfullargspec": _SIGNED}
_ROUTINE_NAMES = frozenset(f"inspect.{p}" for p in _ROUTINES)


#: values a wrapper (STAND_IN's ``_LxWrap``) holds for ``hasattr(x, NAME)``:
#: the first whose class has NAME
_PROXIED = (("[1, 2]", list), ("{'a': 1}", dict), ("'a'", str), ("b'a'", bytes),
            ("__import__('io').BytesIO(b'a')", io.BytesIO),
            ("__import__('io').StringIO('a')", io.StringIO))


#: builtin classes whose subclass takes one of their samples
_SUBCLASSABLE = ("str", "int", "float", "list", "dict", "tuple", "bytes", "set", "frozenset")


#: a builtin class's kin that an ``isinstance`` test of it leaves out, and
#: the class of each such sample
_KINDRED = {"bytes": "memoryview(b'a')", "bytearray": "memoryview(b'a')", "str": "b'a'",
            "float": "1", "list": "(1,)", "tuple": "[1]", "set": "frozenset({1})",
            "frozenset": "{1}"}
_KINDRED_OF = {"memoryview(b'a')": "memoryview", "b'a'": "bytes", "1": "int",
               "(1,)": "tuple", "[1]": "list", "frozenset({1})": "frozenset", "{1}": "set"}


#: parsers of the standard library -> texts each takes, in the several
#: spellings it accepts (what a check of the text's form, written before
#: or after the parse, tells apart)
_PARSED = {
    "uuid.UUID": ("'12345678-1234-5678-1234-567812345678'",
                  "'12345678-1234-5678-1234-56781234567A'",
                  "'{12345678-1234-5678-1234-567812345678}'",
                  "'12345678123456781234567812345678'",
                  "'urn:uuid:12345678-1234-5678-1234-567812345678'"),
    "ipaddress.ip_address": ("'192.168.0.1'", "'::1'", "'::ffff:192.168.0.1'",
                             "'2001:DB8::1'"),
    "ipaddress.ip_network": ("'192.168.0.0/24'", "'10.0.0.0/8'", "'::/0'"),
    "ipaddress.IPv4Address": ("'192.168.0.1'", "'0.0.0.0'"),
    "ipaddress.IPv6Address": ("'::1'", "'2001:DB8::1'"),
    "decimal.Decimal": ("'1.10'", "'-0'", "'NaN'", "'1E+2'"),
    "fractions.Fraction": ("'1/3'", "'0.5'", "'-2'"),
}

#: type hints of each shape, for what ``typing.get_origin``/``get_args`` read
_HINT_SHAPES = ("list[int]", "__import__('typing').List", "__import__('typing').Optional[int]",
                "dict[str, int]", "int")


def _typing_reader(f, scope) -> bool:
    """Whether ``f`` is ``typing.get_origin`` or ``get_args`` (of
    ``typing`` or ``typing_extensions``, under the module's name for it)."""
    p = _dotted(f)
    if p is None or not all(isinstance(x, str) for x in p) or p[0] in scope.params or \
            p[-1] not in ("get_origin", "get_args"):
        return False
    if len(p) == 2:
        return "import typing" in scope.imports.get(p[0], "") or \
            "import typing_extensions" in scope.imports.get(p[0], "")
    return len(p) == 1 and any(f"from {m} import" in scope.imports.get(p[0], "")
                               for m in ("typing", "typing_extensions"))


def _inspect_predicate(f, scope) -> Optional[str]:
    """The name of the ``inspect`` predicate of :data:`_ROUTINES` that ``f``
    calls (``inspect.ismethod``, ``ismethod`` imported from it, under any
    name); None for another."""
    p = _dotted(f)
    if p is None or not all(isinstance(x, str) for x in p) or p[0] in scope.params:
        return None
    got = scope.routines.get(".".join(p))
    return got.rpartition(".")[2] if got else None


def _sample_of(name: str) -> Optional[str]:
    """The sample value of an ``isinstance`` target written ``name``:
    builtins by name, the standard library's classes by their last part."""
    if name in _SAMPLES:
        return _SAMPLES[name]
    last = name.rpartition(".")[2]
    return _SAMPLES.get(last) if "." in name and last[:1].isupper() or last in (
        "datetime", "date", "time", "timedelta", "tzinfo", "timezone") else None
_EDGES = ("None", "''", "0", "[]", "{}")
#: what a function made to answer a value is bound to, before the value
_ANSWER = "_lx_answers"
_MAX = 40
#: the other keys a dict made for an aimed key holds
_KEYS_MAX = 8

#: the text methods whose first argument is a text they look for
_SEARCHED = ("replace", "split", "rsplit", "partition", "rpartition", "count")


def _const(e) -> Optional[object]:
    """A literal's value (negative numbers too), else None-marker."""
    try:
        return ast.literal_eval(e)
    except Exception:
        return _NO


class _No:
    pass


_NO = _No()


def _dotted(e) -> Optional[list]:
    """``a.b.c`` -> ["a", "b", "c"]; ``a['k']`` -> ["a", ("item", 'k')]."""
    if isinstance(e, ast.Name):
        return [e.id]
    if isinstance(e, ast.Attribute):
        b = _dotted(e.value)
        return None if b is None else b + [e.attr]
    if isinstance(e, ast.Subscript):
        k = _const(e.slice)
        if k is _NO or isinstance(k, (list, dict, set)):
            return None
        b = _dotted(e.value)
        return None if b is None else b + [("item", k)]
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
            e.func.attr in ("get", "pop") and e.args:
        k = _const(e.args[0])
        if k is _NO or isinstance(k, (list, dict, set)):
            return None
        b = _dotted(e.func.value)
        return None if b is None else b + [("item", k)]
    return None


#: conversions a local may be bound through and still take the value the
#: code compares it with from the parameter (``float('1')`` aside: a number
#: given to the parameter is a number after them)
_CONVERSIONS = {"abs", "float", "int", "round", "str", "bool", "list", "tuple", "bytes"}


class _Scope:
    """What the names a function reads are: its parameters, the module's
    imports (root name -> the import statement), module-level definitions,
    dict literals bound to names (in the function or the module)."""

    def __init__(self, v):
        fn = self.fn = v.node
        a = fn.args
        # a private name (``self.__match_re``) in a class's code is mangled
        # (``self._Parser__match_re``): what an input sets must be too
        cls = getattr(v, "cls", None)
        self.mangle = "_" + cls.name.lstrip("_") if cls is not None and \
            cls.name.strip("_") else ""
        self.params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
        self.defaults = _param_defaults(fn)
        if a.vararg:
            self.params.append(a.vararg.arg)
        if a.kwarg:
            self.params.append(a.kwarg.arg)
        self.imports: dict = {}
        self.defined: set = set()
        self.dicts: dict = {}
        self.containers: dict = {}
        imports: list = []
        for s in ast.walk(v.module):
            if isinstance(s, (ast.Import, ast.ImportFrom)):
                imports.append(s)
            if isinstance(s, ast.Import):
                for al in s.names:
                    self.imports.setdefault((al.asname or al.name).split(".")[0],
                                            ast.unparse(s))
            elif isinstance(s, ast.ImportFrom) and not s.level:
                for al in s.names:
                    self.imports.setdefault(al.asname or al.name, ast.unparse(s))
        # how the module writes the ``inspect`` predicates of _ROUTINES
        self.routines = _std_names(imports, _ROUTINE_NAMES)
        # and the standard library's parsers of texts of _PARSED
        self.parsers = _std_names(imports, frozenset(_PARSED))
        self.defined = _defined_names(v.module)
        self.classes = {s.name for s in v.module.body if isinstance(s, ast.ClassDef)}
        # the patterns the module and the function's class compile once
        # (``NAME = re.compile(...)``)
        self.patterns = regexdiff.module_patterns(v.module)
        self.patterns.update(regexdiff.module_patterns(ast.Module(body=[
            s for s in ast.walk(fn) if isinstance(s, (ast.Assign, ast.AnnAssign))],
            type_ignores=[])))
        self.class_patterns = regexdiff.module_patterns(
            cls, dict(regexdiff.assignments(v.module.body))) if cls is not None else {}
        self.cls_name = cls.name if cls is not None else None
        # the names the module imports by ``from M import Name`` (of its own
        # package too: ``from .version import Version``) written as classes
        # are: an ``isinstance`` test of one is given an instance of what
        # the name holds once the module ran
        self.imported_classes = {
            al.asname or al.name for s in _every_top_statement(v.module)
            if isinstance(s, ast.ImportFrom) and s.module not in _TYPING for al in s.names
            if (al.asname or al.name)[:1].isupper() and al.name != "*"} - self.classes
        # every name a ``from M import name`` binds (of its own package too)
        self.imported = {al.asname or al.name for s in _every_top_statement(v.module)
                         if isinstance(s, ast.ImportFrom) for al in s.names
                         if al.name != "*"}
        self.functions = {s.name for s in v.module.body
                          if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for s in list(v.module.body) + list(ast.walk(fn)):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], ast.Name):
                self._literal(s.targets[0].id, s.value)
            elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and \
                    s.value is not None:
                # (``_LAUNCHERS: Mapping[...] = {...}``)
                self._literal(s.target.id, s.value)
        self.locals = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                       and isinstance(n.ctx, ast.Store)} - set(self.params)
        # the text keys the function reads by subscript from each object
        # (``chal["realm"]``, ``chal["nonce"]``): expression -> keys
        # ... and those it hands a helper beside the object (``to_int(matches,
        # "tz_hour")``, a helper that reads ``matches[key]`` and makes a
        # number of it): parameter -> keys, given a digit text
        self.keys_read: dict = {}
        self.keys_passed: dict = {}
        for n in ast.walk(fn):
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and \
                    isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
                got = self.keys_read.setdefault(ast.unparse(n.value), [])
                if n.slice.value not in got:
                    got.append(n.slice.value)
            elif isinstance(n, ast.Call):
                subs = [a for a in n.args if isinstance(a, ast.Name) and a.id in self.params]
                keys = [a.value for a in n.args if isinstance(a, ast.Constant) and
                        isinstance(a.value, str) and a.value.isidentifier()]
                if len(subs) == 1 and keys:
                    got = self.keys_passed.setdefault(subs[0].id, [])
                    got.extend(k for k in keys if k not in got)
        # loop variables over a parameter's items (``for a in aligns``,
        # ``for c, a in zip(values, aligns)``, ``for i, a in
        # enumerate(aligns)``): name -> (the parameters zipped, which one)
        self.items: dict = {}
        # ... over a slice of one (``for part in parts[offset:]``): the
        # parameter gets the item twice, so that a slice past the first has it
        self.sliced: set = set()
        # ... unpacked from tuple items: name -> (its place, the tuple's length)
        self.tupled: dict = {}
        # ... of a dict a parameter gives (``for key, val in env.items()``):
        # name -> how the list of items is made that dict ("dict({})")
        self.wraps: dict = {}
        # how many times the function binds each name
        stores: dict = {}
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
        self.stores = stores
        params = set(self.params)
        dicts = _dict_locals(fn, params, stores)
        for n in ast.walk(fn):
            if not isinstance(n, (ast.For, ast.comprehension)):
                continue
            it, tg = n.iter, n.target
            view = _dict_view(it, params, dicts)
            if view is not None:
                param, how = view
                names = [tg] if isinstance(tg, ast.Name) else \
                    list(tg.elts) if isinstance(tg, ast.Tuple) else []
                if how == "items" and len(names) == 2 and \
                        all(isinstance(t, ast.Name) for t in names):
                    for j, t in enumerate(names):
                        if t.id not in self.items:
                            self.items[t.id] = ([param], 0)
                            self.tupled[t.id] = (j, 2)
                            self.wraps[t.id] = "dict({})"
                elif how in ("keys", "values") and len(names) == 1 and \
                        isinstance(tg, ast.Name) and tg.id not in self.items:
                    self.items[tg.id] = ([param], 0)
                    self.wraps[tg.id] = "dict.fromkeys({})" if how == "keys" else \
                        "dict(enumerate({}))"
                continue
            if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice) and \
                    isinstance(it.value, ast.Name) and it.value.id in self.params and \
                    isinstance(tg, ast.Name) and tg.id not in self.items:
                self.items[tg.id] = ([it.value.id], 0)
                self.sliced.add(tg.id)
            elif isinstance(it, ast.Name) and it.id in self.params and \
                    isinstance(tg, ast.Name):
                self.items.setdefault(tg.id, ([it.id], 0))
            elif isinstance(it, ast.Attribute) and isinstance(it.value, ast.Name) and \
                    it.value.id in self.params and isinstance(tg, ast.Name):
                # ``for token in tlist.tokens``: the attribute is the list
                self.items.setdefault(tg.id, ([f"{it.value.id}.{it.attr}"], 0))
            elif isinstance(it, ast.Name) and it.id in self.params and \
                    isinstance(tg, ast.Tuple) and \
                    all(isinstance(t, ast.Name) for t in tg.elts):
                # ``for index, pattern in patterns``: the items are tuples,
                # ``pattern`` the second of each
                for j, t in enumerate(tg.elts):
                    if t.id not in self.items:
                        self.items[t.id] = ([it.id], 0)
                        self.tupled[t.id] = (j, len(tg.elts))
            elif isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
                    not it.keywords and isinstance(tg, ast.Tuple) and \
                    all(isinstance(t, ast.Name) for t in tg.elts):
                srcs = it.args
                if it.func.id == "enumerate" and len(srcs) == 1 and len(tg.elts) == 2:
                    names, targets = [None] + [_dotted(srcs[0])], tg.elts
                elif it.func.id == "zip" and len(srcs) == len(tg.elts):
                    names, targets = [_dotted(x) for x in srcs], tg.elts
                else:
                    continue
                if not all(x is None or len(x) == 1 and x[0] in self.params for x in names):
                    continue
                zipped = [x[0] for x in names if x is not None]
                for x, t in zip(names, targets):
                    if x is not None:
                        self.items.setdefault(t.id, (zipped, zipped.index(x[0])))
        # the places of unpacked items that a test compares with a literal
        # (``for name, value in headers: ... if name == b"content-length"``):
        # (the parameter, the place) -> the literal's source; a hint for
        # ``value`` gives ``name`` that, not a filler
        self.place_literals: dict = {}
        self.place_imports: dict = {}       # such a literal -> its import
        for n in ast.walk(fn):
            if isinstance(n, ast.Compare) and len(n.ops) == 1 and \
                    isinstance(n.ops[0], (ast.Eq, ast.Is)):
                for a, b in ((n.left, n.comparators[0]), (n.comparators[0], n.left)):
                    if not (isinstance(a, ast.Name) and a.id in self.tupled):
                        continue
                    key = (tuple(self.items[a.id][0]), self.tupled[a.id][0])
                    c = _const(b)
                    if isinstance(c, (str, bytes, int)) and not isinstance(c, bool):
                        self.place_literals.setdefault(key, repr(c))
                        continue
                    # or an attribute of an imported module (``ttype is
                    # T.Punctuation``), the import made before it
                    root = _dotted(b)
                    if isinstance(b, ast.Attribute) and root is not None and \
                            root[0] in self.imports and root[0] not in self.params:
                        self.place_literals.setdefault(key, ast.unparse(b))
                        self.place_imports[ast.unparse(b)] = self.imports[root[0]]
        # locals bound to a parameter (or something it holds) as it is or
        # through a conversion (``abs_bytes = abs(float(value))``), by every
        # assignment they have: a value the code compares the local with is
        # given to the parameter
        self.derived: dict = {}
        self.ords: set = set()
        binds: dict = {}
        # a local bound once to a slice of a parameter from a parameter's
        # place (``escape_id = src[pos:pos + 2]``): name -> (text, place)
        self.offsets: dict = {}
        for s in ast.walk(fn):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], ast.Name):
                e = s.value
                if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice) and \
                        isinstance(e.value, ast.Name) and e.value.id in self.params and \
                        isinstance(e.slice.lower, ast.Name) and \
                        e.slice.lower.id in self.params and \
                        stores.get(s.targets[0].id) == 1:
                    self.offsets[s.targets[0].id] = (e.value.id, e.slice.lower.id)
                if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                        e.func.id == "ord" and len(e.args) == 1 and not e.keywords:
                    # ``code_point = ord(char)``: a number compared with it
                    # is given to ``char`` as its character
                    self.ords.add(s.targets[0].id)
                    e = e.args[0]
                    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and \
                            e.value.id in self.params and isinstance(e.slice, ast.Name) and \
                            e.slice.id in self.params and stores.get(s.targets[0].id) == 1:
                        # ``cp_value = ord(label[pos])``: the character at a
                        # parameter's place of a text parameter
                        self.offsets[s.targets[0].id] = (e.value.id, e.slice.id)
                while isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                        e.func.id in _CONVERSIONS and len(e.args) == 1 and not e.keywords:
                    e = e.args[0]
                if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                        e.func.id == "getattr" and len(e.args) in (2, 3) and \
                        not e.keywords and isinstance(e.args[1], ast.Constant) and \
                        isinstance(e.args[1].value, str) and e.args[1].value.isidentifier():
                    # ``name = getattr(default, "name", None)``: ``default.name``
                    e = ast.Attribute(value=e.args[0], attr=e.args[1].value, ctx=ast.Load())
                binds.setdefault(s.targets[0].id, []).append(_dotted(e))
        # attributes of a parameter the function binds once to what a
        # parameter holds (``self.partial = kwargs.pop('partial', False)``):
        # (parameter, attribute) -> that path; a value a test wants of the
        # attribute is given to what it is bound from
        self.derived_attrs: dict = {}
        attr_binds: dict = {}
        for s in ast.walk(fn):
            if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for t in (s.targets if isinstance(s, ast.Assign) else [s.target]):
                    q = _dotted(t) if isinstance(t, ast.Attribute) else None
                    if q is not None and len(q) == 2 and q[0] in self.params:
                        src = _dotted(s.value) if isinstance(s, ast.Assign) and \
                            s.value is not None else None
                        attr_binds.setdefault(tuple(q), []).append(src)
        for q, srcs in attr_binds.items():
            if len(srcs) == 1 and srcs[0] is not None and srcs[0][0] in self.params and \
                    srcs[0][:2] != list(q):
                self.derived_attrs[q] = srcs[0]
        for _ in range(3):              # chains: ``b = float(v)``, ``a = abs(b)``
            for name, paths in binds.items():
                if len(paths) != stores.get(name) or name in self.params:
                    continue
                got = []
                for p in paths:
                    p = self.resolved(p)
                    got.append(p if p is not None and (p[0] in self.params or
                                                       p[0] in self.items) else None)
                if got and None not in got and all(g == got[0] for g in got):
                    self.derived[name] = got[0]
        # names the function binds exactly once, to a number computed from
        # literals: ``limit = 211 ** 2``
        self.constants: dict = {}
        for s in ast.walk(fn):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                    isinstance(s.targets[0], ast.Name):
                name = s.targets[0].id
                if stores.get(name) == 1 and name not in self.params:
                    c = _number_of(s.value)
                    if c is not _NO:
                        self.constants[name] = c
        # and the module's names bound once to such a number (a limit:
        # ``MAX_DIGITS = 20`` for ``len(value) > MAX_DIGITS``), where the
        # function binds no name of theirs
        assigned = regexdiff.assignments(v.module.body)
        # (the module's names bound to values: a pattern's text written
        # through them, ``re.match(PATTERN, s)``)
        self.consts = dict(assigned)
        bound = [n for n, _ in assigned]
        for name, value in assigned:
            if bound.count(name) == 1 and name not in self.constants and \
                    name not in self.params and name not in self.locals:
                c = _number_of(value)
                if c is not _NO:
                    self.constants[name] = c
        # the module's flags: names bound once at its top level to True,
        # False or None (``CHECK_LAST_MODIFIED = False``) that the function
        # does not bind -> the value of the other truth
        self.flags: dict = {}
        for st in v.module.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                    isinstance(st.targets[0], ast.Name) and \
                    isinstance(st.value, ast.Constant) and \
                    (st.value.value is None or isinstance(st.value.value, bool)):
                name = st.targets[0].id
                if bound.count(name) == 1 and name not in self.params and \
                        name not in self.locals:
                    self.flags[name] = repr(not st.value.value)
        # loop variables over literal containers: ``for t in ('a', 'b')``,
        # ``any(t in x for t in ('a', 'b'))``: t takes those values
        self.loopvals: dict = {}
        for n in ast.walk(fn):
            if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Name):
                els = _elements(n.iter, self)
                if els:
                    self.loopvals.setdefault(n.target.id, []).extend(els)

    def literals_beside(self, name: str) -> dict:
        """For a name unpacked from a parameter's items: the other places
        of the item -> the literal the code compares the name there with."""
        if name not in self.tupled:
            return {}
        src, j = tuple(self.items[name][0]), self.tupled[name][0]
        return {k: lit for (s, k), lit in self.place_literals.items() if s == src and k != j}

    def imports_beside(self, name: str) -> list:
        """The imports the literals beside ``name`` need (``T.Punctuation``:
        ``from sqlparse import tokens as T``)."""
        return list(dict.fromkeys(self.place_imports[lit]
                                  for lit in self.literals_beside(name).values()
                                  if lit in self.place_imports))

    def _literal(self, name: str, e) -> None:
        if isinstance(e, ast.Dict):
            keys = [k for k in (_const(x) for x in e.keys if x is not None) if k is not _NO]
            if keys:
                self.dicts.setdefault(name, []).extend(keys)
        elif isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            vals = [k for k in (_const(x) for x in e.elts) if k is not _NO]
            if vals:
                self.containers.setdefault(name, []).extend(vals)

    def resolved(self, p):
        """The path ``p`` with a local derived from a parameter read as what
        it was derived from (``b = float(v)``: ``b.x`` -> ``v.x``); ``p``
        itself otherwise (None stays None)."""
        q = self.through_attrs(p)
        if q is not p:
            return q
        return self.derived[p[0]] + p[1:] if p is not None and p[0] in self.derived else p

    def through_attrs(self, p):
        """The path ``p`` with an attribute bound once from what a parameter
        holds read as that item (``self.partial`` -> ``kwargs['partial']``);
        ``p`` itself otherwise."""
        if p is not None and len(p) >= 2 and tuple(p[:2]) in self.derived_attrs:
            return self.derived_attrs[tuple(p[:2])] + p[2:]
        return p

    def settable(self, path: list) -> bool:
        """Whether an input can give the subject a value: a parameter or
        something held by one, an attribute of an imported module, or a
        free name (left to injection otherwise)."""
        import builtins
        root = path[0]
        if root in self.params:
            return True
        if root in self.locals:
            return False
        if root in self.imports:
            return len(path) > 1 and all(isinstance(p, str) for p in path)
        return root not in self.defined and not hasattr(builtins, root)


#: calls whose one argument a loop iterates as it is (``list(env.items())``)
_AS_IS = {"list", "tuple", "sorted", "reversed"}


def _dict_source(e, params: set, dicts: dict) -> Optional[str]:
    """The parameter whose dict ``e`` is, or holds the items of: ``extra``,
    ``extra or {}``, ``dict(extra)``, ``extra.copy()``, ``{**os.environ,
    **(extra or {})}`` (the last parameter merged in), a local bound to one
    of those (``dicts``); None otherwise."""
    while True:
        if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.Or) and \
                isinstance(e.values[-1], ast.Dict) and not e.values[-1].keys:
            e = e.values[0]
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                e.func.id == "dict" and len(e.args) == 1:
            e = e.args[0]
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                e.func.attr == "copy" and not e.args and not e.keywords:
            e = e.func.value
        else:
            break
    if isinstance(e, ast.Name):
        if e.id in params:
            return e.id
        return dicts.get(e.id)
    if isinstance(e, ast.Dict):
        found = [_dict_source(v, params, dicts) for k, v in zip(e.keys, e.values) if k is None]
        found = [f for f in found if f is not None]
        return found[-1] if found else None
    return None


def _dict_locals(fn, params: set, stores: dict) -> dict:
    """The function's locals bound once (``stores``: name -> how many times
    the function binds it), to a dict a parameter gives
    (:func:`_dict_source`): name -> the parameter."""
    out: dict = {}
    for s in ast.walk(fn):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name) and s.targets[0].id not in params and \
                stores.get(s.targets[0].id) == 1:
            src = _dict_source(s.value, params, out)
            if src is not None:
                out[s.targets[0].id] = src
    return out


def _dict_view(it, params: set, dicts: dict) -> Optional[tuple]:
    """(the parameter, "items" | "keys" | "values") for a loop over a view
    of a dict a parameter gives (``env.items()``, ``list(env.items())``)."""
    while isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
            it.func.id in _AS_IS and len(it.args) == 1 and not it.keywords:
        it = it.args[0]
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and
            it.func.attr in ("items", "keys", "values") and not it.args and not it.keywords):
        return None
    src = _dict_source(it.func.value, params, dicts)
    return None if src is None else (src, it.func.attr)


def _items_input(zipped: list, i: int, items: str, stmts: list,
                 wrap: Optional[str] = None) -> tuple:
    """A RAW hint: ``stmts``, then the ``i``-th of the parameters a loop
    zips (``zipped``; one may be an attribute of a parameter, ``tlist.tokens``)
    given the list ``items`` (as ``wrap`` makes it a dict, when the loop
    reads a dict's items), the others a list of one text each."""
    if wrap is not None and len(zipped) == 1:
        items = wrap.format(items)
    made, names = [], []
    for q in zipped:
        root = q.split(".")[0]
        if "." in q:
            made.append(f"if {root!r} not in globals(): {root} = _LxObj()")
        if root not in names:
            names.append(root)
    return ("RAW", stmts + made + [f"{q} = {items}" if j == i else f"{q} = ['a']"
                                   for j, q in enumerate(zipped)], False, names)


def _item_object(name: str, attrs, src: str) -> list:
    """Statements that make ``name`` a stand-in object whose attribute path
    ``attrs`` (``['value']``, ``['tok', 'value']``) holds ``src``."""
    return [f"{name} = _LxObj()"] + [
        f"{name}.{'.'.join(attrs[:k])} = _LxObj()" for k in range(1, len(attrs))] + [
        f"{name}.{'.'.join(attrs)} = {src}"]


def _in_tuple(src: str, place, literals: Optional[dict] = None) -> str:
    """``src`` as the item of a list whose items are unpacked (``for i, x
    in pairs``: ``(0, src)``; ``place``: (its place, the tuple's length)),
    or as it is (None); ``literals``: place -> the literal the code compares
    the name at that place with, given it there."""
    if place is None:
        return src
    j, n = place
    literals = literals or {}
    # the other places a value of the same kind (a header's name and its
    # value both bytes: ``(b'content-length', b'1')``)
    try:
        kind = type(ast.literal_eval(src))
    except Exception:
        kind = None
    other = {bytes: "b'1'", str: "'1'"}.get(kind, "0")
    return "(" + ", ".join(src if k == j else literals.get(k, other) for k in range(n)) + ")"


def _targets(s) -> list:
    if isinstance(s, ast.Assign):
        return [t.id for t in s.targets if isinstance(t, ast.Name)]
    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
        return [s.target.id]
    return []


def _elements(e, scope: _Scope) -> list:
    """The constant elements of a container literal or of a name bound to one."""
    if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
        return [k for k in (_const(x) for x in e.elts) if k is not _NO]
    if isinstance(e, ast.Dict):
        return [k for k in (_const(x) for x in e.keys if x is not None) if k is not _NO]
    if isinstance(e, ast.Name):
        return scope.containers.get(e.id, []) + scope.dicts.get(e.id, [])
    return []


def _number_of(e):
    """The number a constant expression of literals makes (``211 ** 2``,
    ``1 << 10``, ``-3 * 4``), else the not-a-constant marker; small powers only."""
    if isinstance(e, ast.Constant):
        return e.value if type(e.value) in (int, float) else _NO
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        c = _number_of(e.operand)
        return _NO if c is _NO else -c
    if isinstance(e, ast.BinOp):
        a, b = _number_of(e.left), _number_of(e.right)
        if a is _NO or b is _NO:
            return _NO
        try:
            if isinstance(e.op, ast.Pow):
                return a ** b if abs(b) <= 64 and abs(a) <= 2 ** 16 else _NO
            if isinstance(e.op, ast.LShift):
                return a << b if 0 <= b <= 64 else _NO
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.FloorDiv: lambda: a // b, ast.Div: lambda: a / b}
            f = ops.get(type(e.op))
            return f() if f else _NO
        except (ArithmeticError, TypeError, ValueError):
            return _NO
    return _NO


def _callee_hints(v, scope: _Scope) -> list:
    """Hints from the module's own functions that the function passes a
    parameter to (``inc, exc = _norm_args(other)``, where ``_norm_args``
    tests ``type(other) in (set, frozenset)``), given to that parameter:
    one call deep, positional arguments.  A method of the function's own
    class called on ``self`` (``self._translate_index(index)``, which tests
    ``index < 0``) counts, its own first parameter left out."""
    import types
    defs = {s.name: s for s in v.module.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    cls = getattr(v, "cls", None)
    methods = {s.name: s for s in cls.body
               if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and
               not any(_dotted(x) in (["staticmethod"], ["classmethod"])
                       for x in s.decorator_list)} if cls is not None else {}
    out: list = []
    for n in ast.walk(v.node):
        if not isinstance(n, ast.Call):
            continue
        if isinstance(n.func, ast.Name) and n.func.id in defs and \
                defs[n.func.id] is not v.node:
            callee, skip = defs[n.func.id], 0
        elif isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and \
                n.func.value.id == "self" and "self" in scope.params and \
                n.func.attr in methods and methods[n.func.attr] is not v.node:
            callee, skip = methods[n.func.attr], 1
        else:
            continue
        names = [p.arg for p in callee.args.posonlyargs + callee.args.args][skip:]
        given = {}
        for name, arg in zip(names, n.args):
            p = _dotted(arg)
            if p is not None and p[0] in scope.params and p[0] != "self":
                given[name] = p
        if not given:
            continue
        inner = _Scope(types.SimpleNamespace(node=callee, module=v.module))
        for h in _hints(callee, inner):
            if h[0] != "RAW" and h[0][0] in given:
                out.append((given[h[0][0]] + list(h[0][1:]), h[1], h[2]))
    return out


def _tuple_key_parts(key, keys: list, scope: "_Scope") -> list:
    """(each expression of the tuple a dict is looked up with, the values
    at its place in the dict's keys, in order): ``D[key]`` with ``key =
    (self.section, kind)`` bound once, or ``D[(a, b)]``, the keys tuples
    of that length.  None but literal keys."""
    if isinstance(key, ast.Name) and scope.stores.get(key.id) == 1:
        key = next((st.value for st in ast.walk(scope.fn)
                    if isinstance(st, ast.Assign) and len(st.targets) == 1 and
                    isinstance(st.targets[0], ast.Name) and st.targets[0].id == key.id),
                   None)
    if not isinstance(key, ast.Tuple) or not 2 <= len(key.elts) <= 4:
        return []
    got = [k for k in keys if isinstance(k, tuple) and len(k) == len(key.elts)]
    return [(e, [k[j] for k in got]) for j, e in enumerate(key.elts)] if got else []


def _tuple_key_hints(v, scope: "_Scope") -> list:
    """The function looks a module dict up with a tuple of subjects
    (``_LAUNCHERS[key]``, ``key = (self.section, kind)``): one input per
    key (three at most) giving every part its place in that key at once.
    RAW hints."""
    out = []
    for n in ast.walk(v.node):
        if not (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and
                n.value.id in scope.dicts):
            continue
        parts = _tuple_key_parts(n.slice, scope.dicts[n.value.id], scope)
        paths = [scope.resolved(_dotted(e)) for e, _ in parts]
        if not parts or any(p is None or not scope.settable(p) for p in paths):
            continue
        for k in range(min(3, len(parts[0][1]))):
            stmts = [st for p, (_, vals) in zip(paths, parts)
                     for st in _assign(list(p), repr(vals[k]), scope)]
            out.append(("RAW", stmts, False, [p[0] for p in paths if p[0] in scope.params]))
    return out[:6]


def _invert(e, vals: list) -> tuple:
    """``value % 100 in (11, 12, 13)``: the subject of a simple arithmetic
    expression with a whole-number constant (``%``, ``//``, ``+``, ``-``,
    ``*``) and the values that give the expression ``vals``."""
    while isinstance(e, ast.BinOp) and isinstance(e.right, ast.Constant) and \
            type(e.right.value) is int and vals:
        c = e.right.value
        nums = [v for v in vals if type(v) in (int, float)]
        if isinstance(e.op, ast.Mod) and c > 0:
            got = [x for v in nums if type(v) is int and 0 <= v < c for x in (v, v + c)]
        elif isinstance(e.op, ast.FloorDiv) and c > 0:
            got = [x for v in nums if type(v) is int for x in (v * c, v * c + c - 1)]
        elif isinstance(e.op, ast.Add):
            got = [v - c for v in nums]
        elif isinstance(e.op, ast.Sub):
            got = [v + c for v in nums]
        elif isinstance(e.op, ast.Mult) and c:
            got = [v // c for v in nums if type(v) is int and v % c == 0]
        else:
            break
        out: list = []
        for x in got:
            if x not in out:
                out.append(x)
        e, vals = e.left, out
    return e, vals


def _outside(els: list) -> list:
    """A value of the elements' kind that is none of them (strings, whole
    numbers), or nothing."""
    if els and all(isinstance(x, str) for x in els):
        return [next(t for t in ("other", "other_", "other__") if t not in els)]
    if els and all(type(x) is int for x in els):
        return [max(els) + 1]
    return []


#: what ``sum(values)`` is given: a fraction, a decimal, a whole sum no
#: float holds (halved, it has a fraction part)
_SUMMED = ["[__import__('fractions').Fraction(1, 3)]",
           "[__import__('decimal').Decimal('1.5')]",
           "[2 ** 53 + 1, 0]"]

#: a text's methods that change its case or trim it: the subject of
#: ``x.upper() == 'AS'`` is ``x``, tested with ``'AS'`` and its other cases
_RECASED = {"upper": str.lower, "lower": str.upper, "casefold": str.upper,
            "strip": lambda t: f" {t} ", "lstrip": lambda t: f" {t}",
            "rstrip": lambda t: f"{t} "}


def _recased(e, vals: list) -> tuple:
    """``x.upper() == 'AS'``: (``x``, the values with their other cases
    beside them: 'AS' and 'as'), where the code reads the subject through a
    case change or trim; otherwise (``e``, ``vals``) as they are."""
    while isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
            e.func.attr in _RECASED and not e.args and not e.keywords and vals:
        other = _RECASED[e.func.attr]
        got: list = []
        for v in vals:
            for x in (v, other(v)) if isinstance(v, str) else (v,):
                if x not in got:
                    got.append(x)
        e, vals = e.func.value, got
    return e, vals


def _equal_kin(els: list) -> list:
    """For whole numbers, the largest as a float (``1.0`` for ``x in (0,
    1)``): equal to one of them, of another type -- where code that tells
    ints from other numbers (and from bools) parts from code that does not."""
    ints = [x for x in els if type(x) is int]
    return [float(max(ints))] if ints and len(ints) == len(els) else []


def _near(c) -> list:
    if isinstance(c, bool) or not isinstance(c, (int, float)):
        return [c]
    return [c - 1, c, c + 1]


class _Nodes(ast.AST):
    """Several nodes walked as one (``ast.walk`` over a list)."""

    _fields = ("nodes",)

    def __init__(self, nodes: list):
        super().__init__()
        self.nodes = nodes


def _bound(bounds: dict, e, c) -> None:
    """Note that ``e`` is ordered (``<``, ``>=`` ...) against the number ``c``."""
    if isinstance(c, (int, float)) and not isinstance(c, bool):
        bounds.setdefault(ast.dump(e), (e, set()))[1].add(c)


def _between(nums: list) -> list:
    """A number strictly between each two neighbours of sorted ``nums``
    (whole when both are and there is room, else their mean)."""
    out = []
    for a, b in zip(nums, nums[1:]):
        if type(a) is int and type(b) is int:
            if b - a >= 2:
                out.append((a + b) // 2)
        elif b - a > 0:
            out.append((a + b) / 2)
    return out


#: the path tests of ``os.path`` -> a path that passes them (the file made
#: by the expression itself)
_EXISTING = "(open('lx-exists.txt', 'a').close() or 'lx-exists.txt')"
_PATH_TESTS = {("os", "path", "exists"): _EXISTING, ("os", "path", "isfile"): _EXISTING,
               ("os", "path", "lexists"): _EXISTING, ("os", "path", "isdir"): "'.'"}


#: methods that tell a container's item is a list, a dict, a text
_ITEM_METHODS = (({"append", "insert", "extend", "pop", "remove", "sort", "index"}, "[0, 1]"),
                 ({"items", "keys", "values", "get", "update", "setdefault"}, "{'a': 1}"),
                 ({"startswith", "endswith", "strip", "split", "lower", "upper"}, "'ab'"))


def _item_shape(fn, subject) -> Optional[str]:
    """What an item of ``subject`` (an expression: ``self.lists``) should
    be, from how ``fn`` uses ``subject[i]``: a list where a list's method is
    called on it (``self.lists[0].insert(...)``) or it is indexed again, a
    dict, a text; None where nothing tells (a number will do)."""
    key = ast.dump(subject)
    for n in ast.walk(fn):
        if not (isinstance(n, (ast.Attribute, ast.Subscript)) and
                isinstance(n.value, ast.Subscript) and ast.dump(n.value.value) == key):
            continue
        if isinstance(n, ast.Subscript):
            return "[0, 1]"
        for names, shape in _ITEM_METHODS:
            if n.attr in names:
                return shape
    return None


def _hints(node, scope: _Scope) -> list:
    """(subject path, [values as source], edge?) in ``node``; edge: the
    values are the edge values of a truth test, not the code's own."""
    out: list = []
    item_tests: dict = {}   # (item, attribute...) -> the values of each of its tests

    def add(e, vals, *, raw=False):
        if not raw:
            e, vals = _invert(e, vals)
            e, vals = _recased(e, vals)
        p = _dotted(e)
        if p is None and isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                e.func.id == "len" and e.args:
            p = _dotted(e.args[0])
            if p is None:
                return
            ns = [int(v) for v in vals if isinstance(v, int) and 0 <= v < 1000]
            # (``len(self.lists) == 1``: and one more, the test's other answer)
            counts = ns + [ns[0] + 1] if len(ns) == 1 else ns
            # (items shaped as the function uses them: ``self.lists[0].insert``)
            item = _item_shape(scope.fn, e.args[0])
            vals = [f"[0] * {k}" if item is None else f"[{item} for _ in range({k})]"
                    for k in counts]
            if ns:
                # and texts of the longest length (a limit on digits or
                # characters: ``len(value) > MAX_DIGITS``)
                vals += [f"b'1' * {max(ns)}", f"'1' * {max(ns)}"]
            raw = True
        if p is None and isinstance(e, ast.Call) and vals:
            # a function of an imported module compared with a value
            # (``platform.system() == "Windows"``, ``os.getuid() == 0``):
            # the function made to give that value, for this run -- in the
            # module too, had it asked the same at import time
            f = _dotted(e.func)
            if f is not None and len(f) >= 2 and f[0] in scope.imports and \
                    f[0] not in scope.params and f[0] not in scope.locals and \
                    all(isinstance(x, str) for x in f) and f[:2] not in (["os", "path"],) and \
                    f[0] not in ("sys", "builtins", "time", "datetime"):
                for v in vals[:4]:
                    src = v if raw else repr(v)
                    if len(src) < 400:
                        out.append(("RAW", [f"{scope.imports[f[0]]}; "
                                            f"{'.'.join(f)} = {_ANSWER}({src})"], False, []))
            return
        if p is not None and len(p) == 1 and p[0] in scope.offsets and vals:
            # ``escape_id = src[pos:pos + 2]`` compared with ``"\\x"``: the
            # parameter holding the text, read from the start
            text, at = scope.offsets[p[0]]
            if p[0] in scope.ords and not raw:
                # (a code point compared with: its character)
                vals = [chr(v) for v in vals if type(v) is int and 0 <= v < 0x110000]
            for v in vals[:4]:
                src = v if raw else repr(v)
                if len(src) < 400:
                    out.append(("RAW", [f"{text} = {src}", f"{at} = 0"], False, [text, at]))
            if p[0] in scope.ords:
                # and the character between two others (what the code
                # looks at before and after its place: a joiner's context)
                for v in vals[:2]:
                    src = v if raw else repr(v)
                    if len(src) < 400:
                        out.append(("RAW", [f"{text} = 'a' + {src} + 'a'", f"{at} = 1"], False,
                                    [text, at]))
            return
        if p is not None and p[0] in scope.derived:
            if p[0] in scope.ords and len(p) == 1 and not raw:
                vals = [chr(v) for v in vals if type(v) is int and 0 <= v < 0x110000]
            p = scope.derived[p[0]] + p[1:]
        if p is not None and len(p) == 1 and p[0] in scope.items and vals:
            # an item of a parameter (``alignment.get(a)`` for ``a`` of
            # ``zip(values, aligns)``): the parameter as a list of one such
            # item, the parameters zipped with it one item each
            zipped, i = scope.items[p[0]]
            twice = p[0] in scope.sliced
            for v in vals[:4]:
                src = _in_tuple(v if raw else repr(v), scope.tupled.get(p[0]),
                                scope.literals_beside(p[0]))
                if len(src) < 400:
                    one = f"[{src}, {src}]" if twice else f"[{src}]"
                    out.append(_items_input(zipped, i, one, scope.imports_beside(p[0]),
                                            scope.wraps.get(p[0])))
            return
        if p is not None and len(p) > 1 and p[0] in scope.items and vals and \
                all(isinstance(x, str) and x.isidentifier() for x in p[1:]):
            # an attribute of an item (``token.value`` of ``for token in
            # stream``): the parameter as a list of one object that has it
            zipped, i = scope.items[p[0]]
            it = _in_tuple("_lx_item", scope.tupled.get(p[0]), scope.literals_beside(p[0]))
            one = f"[{it}, {it}]" if p[0] in scope.sliced else f"[{it}]"
            srcs = [v if raw else repr(v) for v in vals]
            srcs = [x for x in srcs if len(x) < 400]
            for src in srcs[:4]:
                out.append(_items_input(zipped, i, one, scope.imports_beside(p[0]) +
                                        _item_object("_lx_item", p[1:], src),
                                        scope.wraps.get(p[0])))
            if srcs and len(zipped) == 1:
                item_tests.setdefault(tuple(p), []).append(srcs)
            return
        if p is None or not scope.settable(p) or not vals:
            return
        srcs = [v if raw else repr(v) for v in vals]
        out.append((p, [s for s in srcs if len(s) < 400], False))
        if not raw and len(p) == 2 and p[0] in scope.params and p[0] != "self" and \
                isinstance(p[1], tuple) and p[1][1] in (0, -1) and type(p[1][1]) is int and \
                all(type(v) is str and len(v) == 1 for v in vals):
            # ``v[0] == '"'`` on a parameter: also a text that starts (or
            # ends) with the character -- a parser's opening token -- with
            # the character again after a letter and text after that (what
            # its closing and what follows it look like to the code)
            texts = [t for c in vals[:2] for t in
                     ((c, c + "a", c + "a" + c, c + "a" + c + "b") if p[1][1] == 0
                      else (c, "a" + c, c + "a" + c, "b" + c + "a" + c))]
            out.append(([p[0]], [repr(t) for t in dict.fromkeys(texts)], False))

    def values_of(e) -> list:
        """The constant values an operand may have: a literal, or a loop
        variable over a literal container."""
        c = _const(e)
        if c is not _NO:
            return [c]
        if isinstance(e, ast.Name):
            return list(scope.loopvals.get(e.id, []))
        return []

    ends: dict = {}     # subject -> its startswith / endswith tokens
    bounds: dict = {}   # subject -> (expression, the numbers it is ordered against)
    got_attrs: list = []    # (subject, subject.attr) of getattr(subject, "attr", ...)

    for n in ast.walk(node):
        if isinstance(n, ast.Compare):
            # (the split that names the parts may be above the changed lines)
            _release_bounds(n, scope.fn, scope, out)
            left = n.left
            for op, right in zip(n.ops, n.comparators):
                cl, cr = _const(left), _const(right)
                vl = values_of(left)
                if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and \
                        left.func.id == "type" and len(left.args) == 1 and \
                        isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot, ast.Eq,
                                        ast.NotEq)):
                    # ``type(other) in (set, frozenset)``: a value of each class
                    kinds = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) \
                        else [right]
                    names = [ast.unparse(k) for k in kinds]
                    vals = [v for v in map(_sample_of, names) if v is not None]
                    # and an instance of a subclass, which an exact type test
                    # refuses where ``isinstance`` takes it (``OrderedDict``)
                    vals += [f"type('_LxSub', ({k},), {{}})({_SAMPLES[k]})" for k in names
                             if k in _SUBCLASSABLE]
                    if vals:
                        add(left.args[0], vals, raw=True)
                    left = right
                    continue
                if isinstance(op, (ast.In, ast.NotIn)):
                    els = _elements(right, scope)
                    if els:
                        # and one value outside the container: the other
                        # answer of the test (``name in (...)`` flipped)
                        # (in a long container, the value outside among
                        # the first: what a few inputs try)
                        add(left, els[:3] + _outside(els) + els[3:] + _equal_kin(els))
                    elif vl and all(isinstance(x, str) for x in vl):
                        add(right, [x for t in vl for x in (t, f"x{t}x", [t])])
                elif isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                    vr = values_of(right)
                    if vr == [None] and isinstance(left, ast.Attribute) and \
                            left.attr == "tzinfo":
                        # ``when.tzinfo is not None``: a naive datetime and
                        # an aware one (the attribute of a datetime is not
                        # set apart from it)
                        add(left.value, list(_DATETIMES), raw=True)
                    if vr:
                        add(left, vr)
                    elif vl:
                        add(right, vl)
                    else:       # x == errno.ENOENT: the value by its name
                        for a, b in ((left, right), (right, left)):
                            pb = _dotted(b)
                            if pb and pb[0] in scope.imports and _dotted(a):
                                pa = _dotted(a)
                                if scope.settable(pa):
                                    # ``x is no_default``: the sentinel, and a
                                    # value that is not it (``default == no_default``)
                                    out.append((pa, [ast.unparse(b), "None"], False))
                            elif pb and len(pb) == 1 and pb[0] in scope.defined and \
                                    pb[0] not in scope.params and _dotted(a) and \
                                    len(_dotted(a)) == 1 and _dotted(a)[0] in scope.params:
                                # ``role is SERVER``, a name the module itself
                                # binds: what it is once the module ran
                                out.append((_dotted(a), [f"_LxLate({pb[0]!r})"], False))
                            elif pb and len(pb) == 2 and all(isinstance(x, str) for x in pb) \
                                    and pb[0] in scope.classes and pb[0] not in scope.params \
                                    and _dotted(a) and len(_dotted(a)) == 1 and \
                                    _dotted(a)[0] in scope.params:
                                # ``cause == RemovalCause.FULL``, a member of
                                # a class the module defines (an Enum's): the
                                # member, once the module ran
                                out.append((_dotted(a), [f"_LxLate({'.'.join(pb)!r})"], False))
                else:
                    # a literal, or a name bound once to a constant
                    # expression (``limit = 211 ** 2``)
                    if cr is _NO and isinstance(right, ast.Name):
                        cr = scope.constants.get(right.id, _NO)
                    if cl is _NO and isinstance(left, ast.Name):
                        cl = scope.constants.get(left.id, _NO)
                    if cr is not _NO:
                        add(left, _near(cr))
                        _bound(bounds, left, cr)
                    elif cl is not _NO:
                        add(right, _near(cl))
                        _bound(bounds, right, cl)
                    else:
                        _relative(left, right, scope, out)
                left = right
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and \
                n.value.id in scope.dicts:
            add(n.slice, scope.dicts[n.value.id])
            # ``_LAUNCHERS[key]``, ``key = (self.section, kind)``, the
            # dict's keys pairs: each part its place in the keys, in the
            # keys' order (the inputs aimed at every subject's k-th value
            # then look up the k-th key)
            for part, vals in _tuple_key_parts(n.slice, scope.dicts[n.value.id], scope):
                add(part, vals)
        elif isinstance(n, ast.Call) and (test := tuple(_dotted(n.func) or ())) in _PATH_TESTS \
                and len(n.args) == 1 and not n.keywords:
            # ``os.path.exists(fname)``: a file that is there (written by the
            # input), and one that is not
            add(n.args[0], [_PATH_TESTS[test], "'lx-missing.txt'"], raw=True)
        elif isinstance(n, ast.Call) and len(n.args) == 1 and not n.keywords and \
                (parser := scope.parsers.get(ast.unparse(n.func))) is not None:
            # ``UUID(instance)``: texts the parser takes, written each way
            # it takes them (a UUID in capitals, in braces, without dashes)
            add(n.args[0], list(_PARSED[parser]), raw=True)
        elif isinstance(n, ast.Call) and len(n.args) == 1 and not n.keywords and \
                _typing_reader(n.func, scope):
            # ``typing.get_origin(hint)``: type hints of each shape (a
            # generic with arguments, a bare one, an optional, a plain class)
            add(n.args[0], list(_HINT_SHAPES), raw=True)
        elif isinstance(n, ast.Call) and len(n.args) == 1 and not n.keywords and \
                (predicate := _inspect_predicate(n.func, scope)) is not None:
            # ``inspect.ismethod(func)``: a value the predicate answers True
            # for (a function bound to an object, a generator function)
            add(n.args[0], list(_ROUTINES[predicate]), raw=True)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            f = n.func
            if f.attr in ("get", "pop", "setdefault") and isinstance(f.value, ast.Name) and \
                    f.value.id in scope.dicts and n.args:
                add(n.args[0], scope.dicts[f.value.id])
            elif f.attr in ("get", "pop") and isinstance(f.value, ast.Dict) and n.args:
                add(n.args[0], _elements(f.value, scope))
            elif f.attr in ("match", "fullmatch", "search") and n.args and \
                    (matched := _pattern_call(n, scope)) is not None:
                # ``m = egg_re.match(path.name)``: texts the pattern matches,
                # those whose groups take part differently first -- a
                # parser's "no match: raise" lets no other text by
                (text, flags), subject = matched
                if isinstance(subject, ast.Name) and subject.id in scope.locals and \
                        (origin := _text_origin(scope.fn, subject.id, scope.params)):
                    # ``for block in group.split(' ')``, the group one of
                    # ``expression.split('||')``: the parameter, one piece
                    subject = ast.Name(id=origin, ctx=ast.Load())
                add(subject, _pattern_texts(text, flags, f.attr))
            elif f.attr in _SEARCHED and n.args and isinstance(n.args[0], ast.Constant) and \
                    isinstance(n.args[0].value, str) and n.args[0].value:
                # ``text.replace('\\', '\\\\')``, ``text.split(',')``: a text
                # holding what the call looks for (the call does nothing
                # on one without it); the searched text alone is left
                # out, it crowds out other aimed values (semver's
                # ``_nat_cmp``: ``a = '.'`` and ``b = '.'``)
                t = n.args[0].value
                add(f.value, [f"x{t}x"])
            elif f.attr in ("startswith", "endswith") and n.args:
                c = _const(n.args[0])
                if c is _NO and isinstance(n.args[0], ast.Name):
                    # a tuple of prefixes bound to a name (``_PREFIXES``)
                    c = tuple(scope.containers.get(n.args[0].id, ())) or _NO
                vals = list(c) if isinstance(c, tuple) else [c]
                vals = [x for x in vals if isinstance(x, str)]
                if vals:
                    # (and a text that does not start or end so)
                    add(f.value, vals + [t for t in _outside(vals)
                                         if not (t.startswith(tuple(vals)) or
                                                 t.endswith(tuple(vals)))])
                    key = ast.dump(f.value)
                    ends.setdefault(key, (f.value, {"startswith": [], "endswith": []}))[1][
                        f.attr].extend(vals)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id in ("min", "max") and n.func.id not in scope.params and \
                n.func.id not in scope.defined and len(n.args) > 1 and not n.keywords and \
                not any(isinstance(a, ast.Starred) for a in n.args):
            # ``max(self.w, 0)``: the values compared with each other, as
            # ``self.w < 0`` would be (each side of the constant)
            for a in n.args:
                for b in n.args:
                    if a is b:
                        continue
                    c = _const(b)
                    if c is _NO and isinstance(b, ast.Name):
                        c = scope.constants.get(b.id, _NO)
                    if c is not _NO and _const(a) is _NO:
                        add(a, _near(c))
                        _bound(bounds, a, c)
                    elif c is _NO and _const(a) is _NO:
                        _relative(a, b, scope, out)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id in ("getattr", "hasattr") and len(n.args) >= 2 and \
                isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str) and \
                n.args[1].value.isidentifier():
            # ``getattr(self, "__name__", None)``: the subject with that attribute
            attr = ast.Attribute(value=n.args[0], attr=n.args[1].value, ctx=ast.Load())
            add(attr, ["a"])
            got_attrs.append((n.args[0], attr))
            if n.func.id == "hasattr":
                # and a value that has it behind a wrapper that hands
                # attributes on (``hasattr(data, "__iter__")`` beside
                # ``isinstance(data, Iterable)``: they part on it)
                has = [src for src, cls in _PROXIED if hasattr(cls, n.args[1].value)]
                if has:
                    add(n.args[0], [f"_LxWrap({has[0]})"], raw=True)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id == "sum" and len(n.args) == 1 and not n.keywords:
            # ``sum(values) / float(len(values))``: numbers of the other
            # kinds, which a division or conversion treats each its own way,
            # and a whole sum above 2**53, which a float cannot hold
            add(n.args[0], _SUMMED, raw=True)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id == "isinstance" and len(n.args) == 2:
            t = n.args[1]
            names = [ast.unparse(x) for x in (t.elts if isinstance(t, ast.Tuple) else [t])]
            # the method's own class, by the object's (``self.__class__``)
            names = [scope.cls_name if x in ("self.__class__", "type(self)") and
                     scope.cls_name in scope.classes else x for x in names]
            vals = [v for v in map(_sample_of, names) if v is not None]
            # a class of the module: an instance made without its
            # ``__init__`` (what it holds is left to injection)
            # (a parameter's: made once the module ran, as the prefix runs
            # before the class is defined)
            sub = _dotted(n.args[0])
            late = sub is not None and len(sub) == 1 and (
                sub[0] in scope.params or sub[0] in scope.items and
                len(scope.items[sub[0]][0]) == 1) or \
                sub is not None and len(sub) == 2 and sub[0] == "self" and \
                isinstance(sub[1], str)
            vals += [f"_LxLate({x!r}, True)" if late else f"{x}.__new__({x})"
                     for x in names if x in scope.classes]
            vals += [f"_LxLate({x!r}, True)" for x in names
                     if late and x in scope.imported_classes and _sample_of(x) is None]
            # a class of a module the module imports (``_utils.Unset``)
            vals += [f"_LxLate({x!r}, True)" for x in names
                     if late and "." in x and _sample_of(x) is None and
                     x.split(".")[0] in (scope.imports.keys() | scope.imported) and
                     x.split(".")[0] not in scope.params and
                     x.rpartition(".")[2][:1].isupper()]
            for x in (t.elts if isinstance(t, ast.Tuple) else [t]):
                if isinstance(x, ast.Attribute) and _dotted(x) is not None:
                    # a class an object holds (``self.document_class``):
                    # one nothing else is an instance of, where the other
                    # version tests a class of its own
                    add(x, ["type('_LxKind', (), {})"], raw=True)
            # and a value of a kindred class the test leaves out (a
            # memoryview beside ``(bytes, bytearray)``): where a widened or
            # narrowed test shows
            vals += [k for k in dict.fromkeys(_KINDRED.get(x, "") for x in names)
                     if k and not any(_KINDRED_OF.get(k) == x for x in names)
                     and k not in vals]
            if vals:
                add(n.args[0], vals, raw=True)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Dict):
            add(n.slice, _elements(n.value, scope))
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and \
                isinstance(n.left, ast.Constant) and isinstance(n.left.value, str) and \
                not isinstance(n.right, (ast.Tuple, ast.Dict)):
            # ``"not %r" % value``: a tuple is the value's other reading (its
            # items fill the placeholders, or too many of them fail); for a
            # ``%d`` a float and a bool, which it shows as whole numbers
            add(n.right, [(1, 2), ("a",)] +
                ([5.5, True] if re.search(r"%[-+ #0]*\d*[di]", n.left.value) else []))
        elif isinstance(n, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            _truth(n.test, scope, out)
        elif isinstance(n, ast.BoolOp):
            for x in n.values:
                _truth(x, scope, out)
    for e, nums in bounds.values():
        # between each two bounds of one subject (``-1.0 < x < 1.0`` and
        # ``x < 0``: -0.5 and 0.5), the interval no bound's neighbour is in
        add(e, _between(sorted(nums)))
    for e, attr in got_attrs:
        # ``annot = getattr(annot, "__forward_arg__", annot)``: the attribute
        # may stand in for the subject -- the values the subject is tested for
        p = scope.resolved(_dotted(e))
        vals = [v for q, vs, edge in list(out) if q == p and edge is False for v in vs]
        pa = scope.resolved(_dotted(attr))
        if vals and pa is not None and scope.settable(pa):
            out.append((pa, vals[:6], False))
    for path, tests in item_tests.items():
        # an attribute of the items that several tests read (``token.value
        # == 'CREATE'``, ``== 'TABLE'``, ``.upper() == 'AS'``): one list of
        # an item per test, each at its first value, then each at its
        # second ('create', 'table', 'as') -- flags that a loop sets
        # together decide what follows it
        if len(tests) < 2:
            continue
        zipped, i = scope.items[path[0]]
        for k in range(min(2, max(len(t) for t in tests))):
            stmts, made = [], []
            for n, t in enumerate(tests[:8]):
                name = f"_lx_item{n}"
                stmts += _item_object(name, path[1:], t[k % len(t)])
                made.append(_in_tuple(name, scope.tupled.get(path[0])))
            out.append(_items_input(zipped, i, "[" + ", ".join(made) + "]", stmts,
                                    scope.wraps.get(path[0])))
    out.extend(_strptime_hints(node, scope, out))
    for e, toks in ends.values():
        # ``s.startswith(("'", '"')) and s.endswith(("'", '"'))``: a quoted
        # text, the quotes around each other prefix the subject is tested for
        heads = [t for t in toks["startswith"] if len(t) == 1][:2]
        tails = [t for t in toks["endswith"] if len(t) == 1][:2]
        mids = [t for t in toks["startswith"] if len(t) > 1][:2] or ["a"]
        wrapped = [h + m + t for h, t in zip(heads, tails) for m in mids]
        if wrapped:
            add(e, wrapped)
    return out


#: the moment a text parsed by a format is written at (a sample that every
#: directive has something to show for: not midnight, a day above 12)
_SAMPLE_MOMENT = "__import__('datetime').datetime(2024, 6, 15, 21, 21, 9)"


#: the texts a pattern's subject is given (regexdiff.member_samples)
_PATTERN_TEXTS = 4


def _pattern_texts(text: str, flags: int, how: str = "search") -> list:
    """Up to _PATTERN_TEXTS texts the pattern matches, those whose groups
    take part differently first (``name-ver-py3.8-arch.egg``, then without
    ``-arch``, then without ``-py3.8...``): a parser's branches follow its
    groups. ``how``: the pattern's method the code calls (``match``,
    ``fullmatch``, ``search``), which each text must satisfy."""
    texts = regexdiff.member_samples(text, flags, 40)
    try:
        rx = re.compile(text, flags)
    except (re.error, TypeError, ValueError):
        return texts[:_PATTERN_TEXTS]
    first, rest, seen = [], [], set()
    for t in texts:
        m = getattr(rx, how)(t)
        if m is None:           # (a sample the pattern does not take: ``.`` and a newline)
            continue
        sig = tuple(g is None for g in m.groups())
        (rest if sig in seen else first).append(t)
        seen.add(sig)
    out = (first + rest)[:_PATTERN_TEXTS]
    # and, second, the text with numbers where an alternation offers them
    # past a first alternative of letters (``x|X|\\*|0|[1-9][0-9]*``: the
    # letters are a wildcard's, seldom what a parser's branches are for)
    num = regexdiff.numbers_sample(text, flags)
    if num is not None and num not in out and getattr(rx, how)(num) is not None:
        out.insert(1, num)
    return out


#: str methods whose result is the text, or its pieces, still: a chain of
#: them leads a local back to the text it was taken from
_TEXT_STEPS = {"strip", "lstrip", "rstrip", "lower", "upper", "casefold",
               "split", "rsplit", "splitlines"}
_PIECES = {"split", "rsplit", "splitlines"}


def _text_chain(e) -> tuple:
    """(the name ``e`` is taken from through _TEXT_STEPS calls and
    subscripts, or None; whether a step splits it into pieces)."""
    split = False
    while True:
        if isinstance(e, ast.Subscript):
            e, split = e.value, False
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                e.func.attr in _TEXT_STEPS:
            split = split or e.func.attr in _PIECES
            e = e.func.value
        else:
            return (e.id if isinstance(e, ast.Name) else None), split


def _text_origin(fn, name: str, params) -> Optional[str]:
    """The parameter a local text is a piece of: bound from it through
    ``strip``/``split``/``[i]`` chains and loops over its pieces
    (``groups = expression.split('||')``, ``for group in groups``,
    ``blocks = group.split(' ')``, ``for block in blocks``) -- a text
    without the separators is its only piece.  None where there is none."""
    src: dict = {}          # local -> [(the name it comes from, a loop over it)]
    pieces: set = set()     # locals that hold a text's pieces
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name):
            root, split = _text_chain(n.value)
            if root is not None and root != n.targets[0].id:
                src.setdefault(n.targets[0].id, []).append((root, False))
                if split:
                    pieces.add(n.targets[0].id)
        elif isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Name):
            root, split = _text_chain(n.iter)
            if root is not None and (split or not isinstance(n.iter, ast.Call)):
                src.setdefault(n.target.id, []).append((root, not split))
    todo, seen = [name], {name}
    while todo:
        cur = todo.pop(0)
        if cur in params and cur != name:
            return cur
        for root, over_name in src.get(cur, ()):
            # a loop straight over a name: the name must hold pieces
            if over_name and root not in pieces:
                continue
            if root not in seen and len(seen) < 12:
                seen.add(root)
                todo.append(root)
    return None


#: the calls that only take characters off a text's ends
_END_STRIPS = ("strip", "lstrip", "rstrip")


def _piece_defs(fn) -> dict:
    """The locals -> (the expression, how) of their first binding (a
    later one, ``v = ""`` under ``if v == "n/a"``, mends the value): None
    for ``a = e``, an index for ``a, b = e`` (``e[i]``), "item" for ``for
    a in e`` (one of its items)."""
    defs: dict = {}

    def put(t, e, how):
        if isinstance(t, ast.Name):
            defs.setdefault(t.id, []).append((t.lineno, t.col_offset, e, how))

    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            t, e = n.targets[0], n.value
            if isinstance(t, ast.Tuple):
                if isinstance(e, ast.Tuple) and len(e.elts) == len(t.elts):
                    for x, y in zip(t.elts, e.elts):
                        put(x, y, None)
                else:
                    for i, x in enumerate(t.elts):
                        put(x, e, i)
            else:
                put(t, e, None)
        elif isinstance(n, (ast.For, ast.comprehension)):
            put(n.target, n.iter, "item")
    return {k: min(v, key=lambda d: d[:2])[2:] for k, v in defs.items()}


def _piece_origin(e, val, defs: dict, params, depth: int = 0) -> Optional[tuple]:
    """(the parameter, its value) that makes the expression ``e`` -- a
    piece of a parameter through ``strip``, ``split(sep[, n])[i]``,
    unpacking and loops over it -- equal ``val``: ``v == "n/a"`` with ``k,
    v = kv[0], kv[1].strip()``, ``kv = line.split(":", 1)``, ``for line in
    lines`` gives ``lines = ["x:n/a"]``.  None where a step is of another
    kind."""
    if depth > 10:
        return None
    if isinstance(e, ast.Name):
        if e.id in params:
            return e.id, val
        if e.id not in defs:
            return None
        x, how = defs[e.id]
        if how == "item":
            return _piece_origin(x, [val], defs, params, depth + 1)
        if isinstance(how, int):
            return _split_origin(x, how, val, defs, params, depth)
        return _piece_origin(x, val, defs, params, depth + 1)
    if isinstance(e, ast.Subscript) and type(i := _const(e.slice)) is int:
        return _split_origin(e.value, i, val, defs, params, depth)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
            e.func.attr in _END_STRIPS and isinstance(val, str) and len(e.args) <= 1:
        return _piece_origin(e.func.value, val, defs, params, depth + 1)
    return None


def _split_origin(x, i: int, val, defs: dict, params, depth: int) -> Optional[tuple]:
    """:func:`_piece_origin` of ``x[i]`` equal ``val``, ``x`` a text split
    on a literal separator (a text with ``val`` as its ``i``-th piece, as
    many pieces as a ``maxsplit`` allows, the others "x"), or a parameter
    (a list with ``val`` at ``i``)."""
    if not isinstance(val, str) or not 0 <= i < 4:
        return None
    if isinstance(x, ast.Name) and x.id in params:
        return x.id, ["x"] * i + [val]
    if isinstance(x, ast.Name) and x.id in defs and defs[x.id][1] is None:
        x = defs[x.id][0]
    if not (isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and
            x.func.attr in ("split", "rsplit") and x.args and not x.keywords):
        return None
    sep = _const(x.args[0])
    most = _const(x.args[1]) if len(x.args) > 1 else i
    if not isinstance(sep, str) or not sep or sep in val or type(most) is not int or \
            not i <= most < 4:
        return None
    parts = ["x"] * (most + 1)
    parts[i] = val
    return _piece_origin(x.func.value, sep.join(parts), defs, params, depth + 1)


def _piece_hints(v, changed: list, guards: list, scope: _Scope) -> list:
    """A local piece of a parameter compared with a literal on the changed
    lines or their guards (``if v == "n/a"`` where ``v`` is a part of each
    line of ``lines``): the parameter built so that the piece is the
    literal (:func:`_piece_origin`)."""
    defs = _piece_defs(v.node)
    params = set(scope.params)
    out, seen = [], set()
    roots = list(changed) + [p for g in guards for p in _headers(g)]
    for n in (n for r in roots if isinstance(r, ast.AST) for n in ast.walk(r)):
        if not (isinstance(n, ast.Compare) and len(n.ops) == 1 and
                isinstance(n.left, ast.Name) and n.left.id not in params):
            continue
        c = _const(n.comparators[0])
        if c is _NO and isinstance(n.comparators[0], ast.Name):
            c = scope.constants.get(n.comparators[0].id, _NO)
        x = _satisfying(n.ops[0], c) if c is not _NO else _NO
        if not isinstance(x, str) or not x:
            continue
        got = _piece_origin(n.left, x, defs, params)
        if got is not None and (got[0], repr(got[1])) not in seen:
            seen.add((got[0], repr(got[1])))
            out.append(([got[0]], [repr(got[1])], False))
    return out[:4]


def _pattern_call(call, scope: _Scope) -> Optional[tuple]:
    """``((pattern text, flags), subject)`` of a call that matches a text
    against a pattern the code compiled once: ``P.match(s)`` with ``P``
    of the module's top level, ``self.P`` / ``cls.P`` / ``Class.P`` of the
    function's class body, ``re.match(TEXT, s)``; else None."""
    f = call.func
    if isinstance(f.value, ast.Name) and f.value.id == "re" and f.value.id not in \
            scope.params and len(call.args) >= 2:
        text = regexdiff._text_value(call.args[0], scope.consts)
        return ((text, 0), call.args[1]) if text is not None else None
    pat = None
    if isinstance(f.value, ast.Name) and f.value.id not in scope.params:
        pat = scope.patterns.get(f.value.id)
    elif isinstance(f.value, ast.Attribute) and isinstance(f.value.value, ast.Name) and \
            f.value.value.id in ("self", "cls", scope.cls_name):
        pat = scope.class_patterns.get(f.value.attr)
    return (pat, call.args[0]) if pat is not None else None


def _release_bounds(cmp, fn, scope: _Scope, out: list) -> None:
    """``(3, 0, 2) <= (major, minor, patch) < (7, 0, 0)`` where ``major,
    minor, patch = version.split(".")[:3]`` (a parameter): the release
    numbers at each bound, one past it and one below it, as the text the
    parameter holds."""
    parts = [cmp.left] + list(cmp.comparators)
    names = next((tuple(e.id for e in p.elts) for p in parts
                  if isinstance(p, ast.Tuple) and p.elts and
                  all(isinstance(e, ast.Name) for e in p.elts)), None)
    if names is None:
        return
    source, at = None, 0
    for st in ast.walk(fn):
        # (the assignment nearest above the comparison: the same names may
        # be split from another parameter elsewhere)
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                at < st.lineno < cmp.lineno and isinstance(st.targets[0], ast.Tuple) and \
                tuple(getattr(e, "id", None) for e in st.targets[0].elts) == names:
            e = st.value.value if isinstance(st.value, ast.Subscript) else st.value
            if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                    e.func.attr == "split" and isinstance(e.func.value, ast.Name) and \
                    e.func.value.id in scope.params:
                sep = _const(e.args[0]) if e.args else None
                source = (e.func.value.id, sep if isinstance(sep, str) else ".")
                at = st.lineno
    if source is None:
        return
    vals = []
    for p in parts:
        c = _const(p)
        if isinstance(c, tuple) and c and all(type(x) is int and x >= 0 for x in c):
            up = c[:-1] + (c[-1] + 1,)
            for t in (c, up) + ((c[:-1] + (c[-1] - 1,),) if c[-1] else ()):
                v = repr(source[1].join(map(str, t + (0,) * (len(names) - len(t)))))
                if v not in vals:
                    vals.append(v)
    if vals:
        out.append(([source[0]], vals, False))


def _strptime_hints(node, scope: _Scope, got: list) -> list:
    """``datetime.strptime(text, fmt)`` with both parameters: for each format
    the hints so far give ``fmt`` (and one of no directive), ``text`` written
    in it -- a text that parses, so the code after the parse runs."""
    out = []
    for n in ast.walk(node):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                n.func.attr == "strptime" and len(n.args) == 2):
            continue
        pt, pf = _dotted(n.args[0]), _dotted(n.args[1])
        if not (pt and pf and len(pt) == 1 and len(pf) == 1 and pt != pf and
                pt[0] in scope.params and pf[0] in scope.params):
            continue
        fmts = []
        for path, vals, *_ in got:
            if path == pf:
                for v in vals:
                    try:
                        c = _const(ast.parse(v, mode="eval").body) if len(v) < 80 else _NO
                    except SyntaxError:
                        c = _NO
                    if isinstance(c, str) and c not in fmts:
                        fmts.append(c)
        for f in fmts[:6] + ["T"]:
            out.append(("RAW", [f"{pf[0]} = {f!r}",
                                f"{pt[0]} = {_SAMPLE_MOMENT}.strftime({pf[0]})"],
                        False, [pt[0], pf[0]]))
    return out


def _relative(left, right, scope: _Scope, out: list) -> None:
    """``val >= 2 ** len_``: a parameter compared with an expression of
    other parameters and constants -- inputs that set those to small
    numbers and the parameter to the expression, minus one, plus one."""
    import builtins
    for a, b in ((left, right), (right, left)):
        if not (isinstance(a, ast.Name) and a.id in scope.params):
            continue
        names = {n.id for n in ast.walk(b) if isinstance(n, ast.Name)}
        if not names or a.id in names or names & {"self", "cls"} or \
                not all(n in scope.params or hasattr(builtins, n) for n in names):
            continue
        others = sorted(n for n in names if n in scope.params)
        if not others:
            continue
        src = ast.unparse(b)
        for k in (3, 1):
            pre = [f"{n} = {k}" for n in others]
            for delta in ("", " - 1", " + 1"):
                out.append(("RAW", pre + [f"{a.id} = ({src}){delta}"], False,
                            others + [a.id]))
        return


def _truth(test, scope: _Scope, out: list) -> None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    # (an attribute bound once from what a parameter holds: that item; a
    # local alias is read as it is)
    p = scope.through_attrs(_dotted(test))
    if p is not None and scope.settable(p):
        out.append((p, list(_EDGES), True))
        if isinstance(p[-1], tuple):
            # an item a parameter may hold (``kwargs.pop('partial', False)``):
            # absent from the inputs made so far, so there also true
            out.append((p, ["True"], False))
    elif p is not None and len(p) == 1 and p[0] in scope.flags:
        # a flag of the module (``if CHECK_LAST_MODIFIED:``): its other
        # value, bound once the module's own statements ran
        out.append(("RAW", [after_module(p[0], scope.flags[p[0]])], False, []))
    elif p is None:
        # an item the code looks up by a parameter, tested for truth
        # (``if self.cache.get(key):``, ``if opts[name]:``): the parameter
        # given a key and the container that key at each edge value, which
        # is there but false (where ``key in self.cache`` says it is there)
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and \
                test.func.attr == "get" and len(test.args) == 1 and not test.keywords:
            box, key = test.func.value, test.args[0]
        elif isinstance(test, ast.Subscript):
            box, key = test.value, test.slice
        else:
            return
        q = _dotted(box)
        if isinstance(key, ast.Name) and key.id in scope.params and q is not None and \
                key.id not in q and scope.settable(q):
            for edge in _EDGES[:3]:
                out.append(("RAW", [f"{key.id} = 'key'"] + _assign(q + [("item", "key")],
                                                                    edge, scope),
                            False, [key.id]))


#: the note of a value given a parameter that a guarded call may refuse
#: (:func:`_handler_hints`): tried after the values aimed at the subjects
_REFUSED = " (a value a guarded call refuses)"

#: modules of the standard library that some machines lack: those of one
#: platform, and those built only where a system library was there
_OPTIONAL_STDLIB = frozenset({
    "readline", "curses", "_curses", "fcntl", "termios", "tty", "pty", "grp", "pwd",
    "resource", "syslog", "crypt", "spwd", "nis", "posix", "msvcrt", "winreg", "winsound",
    "_winapi", "nt", "ssl", "_ssl", "sqlite3", "_sqlite3", "lzma", "_lzma", "bz2", "_bz2",
    "zlib", "ctypes", "_ctypes", "tkinter", "_tkinter", "dbm", "_dbm", "_gdbm", "_uuid",
    "_decimal", "multiprocessing", "_multiprocessing", "_posixshmem"})


def _handler_hints(node, scope: _Scope) -> list:
    """(patch statements, note) for ``try`` statements in ``node``: a call of
    the body to a function of an imported module raises each handled class
    (with the errno values its handler compares against)."""
    out = []
    for t in ast.walk(node):
        if not isinstance(t, ast.Try):
            continue
        calls = []
        for s in t.body:
            for c in ast.walk(s):
                if isinstance(c, ast.Call):
                    p = _dotted(c.func)
                    if p and len(p) >= 2 and p[0] in scope.imports and \
                            all(isinstance(x, str) for x in p):
                        calls.append(p)
                    elif p and len(p) == 2 and p[0] == "self" and isinstance(p[1], str) \
                            and "self" in scope.params:
                        calls.append(p)     # a method of the object: patched on it
                    elif p and len(p) == 1 and p[0] in scope.params and p[0] != "self":
                        calls.append(p)     # a callable parameter (``call()``): given one
                    elif p and len(p) == 1 and p[0] in scope.functions and \
                            p[0] not in scope.locals:
                        # a function of the module (``valid_contextj(label,
                        # pos)``): the module's name bound to the raiser
                        calls.append(p)
        caught = {n.id for h in t.handlers if h.type is not None
                  for n in ast.walk(h.type) if isinstance(n, ast.Name)}
        if caught & {"AttributeError", "TypeError"}:
            # ``s.replace(...)`` on a parameter, ``except (AttributeError,
            # TypeError)``: the parameter a value of another kind, which
            # has no such method or takes other arguments
            on = []
            for st in t.body:
                for c in ast.walk(st):
                    if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and \
                            isinstance(c.func.value, ast.Name) and \
                            c.func.value.id in scope.params and c.func.value.id != "self" and \
                            c.func.value.id not in on:
                        on.append(c.func.value.id)
            for prm in on[:2]:
                for val in ("b'a'", "1", "None"):
                    out.append((f"{prm} = {val}", f"{prm} = {val}"))
        if caught & {"TypeError", "Exception", "BaseException"} or \
                any(h.type is None for h in t.handlers):
            # a parameter handed to a call in the body (``REGEX.match(text)``
            # / ``except Exception``): the parameter a value of another
            # kind, which the callee refuses with TypeError
            given = []
            for st in t.body:
                for c in ast.walk(st):
                    if isinstance(c, ast.Call):
                        for a in c.args:
                            if isinstance(a, ast.Name) and a.id in scope.params and \
                                    a.id != "self" and a.id not in given:
                                given.append(a.id)
            for prm in given[:2]:
                for val in ("None", "1"):
                    if (f"{prm} = {val}", f"{prm} = {val}") not in out:
                        out.append((f"{prm} = {val}", f"{prm} = {val}{_REFUSED}"))
        catches_import = any(h.type is None for h in t.handlers) or caught & {
            "ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
        if catches_import:
            # an optional dependency the body imports (``from filelock
            # import FileLock`` / ``except ImportError: raise ...``): the
            # import made to fail, as where the package is not installed
            mods = [a.name for st in t.body for x in ast.walk(st) if isinstance(x, ast.Import)
                    for a in x.names] + \
                [x.module for st in t.body for x in ast.walk(st)
                 if isinstance(x, ast.ImportFrom) and x.module and not x.level]
            # (a module of the standard library only where some machines
            # lack it -- ``readline`` on Windows --: the others, there on
            # every machine this Python runs on, fail only on an older
            # Python, whose fallback is no behaviour of this one)
            mods = [m for m in dict.fromkeys(mods)
                    if m.split(".")[0] not in sys.stdlib_module_names or
                    m.split(".")[0] in _OPTIONAL_STDLIB]
            for m in mods[:2]:
                out.append((f"__import__('sys').modules[{m!r}] = None",
                            f"the import of {m} fails"))
        # an item stored into a parameter (``cache[k] = v`` / ``except
        # ValueError``: a cache that refuses a value too large): the
        # parameter a dict that refuses every item with the handled class
        stores = []
        for st in t.body:
            for x in ast.walk(st):
                if isinstance(x, ast.Subscript) and isinstance(x.ctx, ast.Store) and \
                        isinstance(x.value, ast.Name) and x.value.id in scope.params and \
                        x.value.id != "self" and x.value.id not in stores:
                    stores.append(x.value.id)
        refused = [n.id for h in t.handlers if h.type is not None for n in ast.walk(h.type)
                   if isinstance(n, ast.Name) and
                   isinstance(getattr(builtins, n.id, None), type) and
                   issubclass(getattr(builtins, n.id), Exception)] if stores else []
        for prm in stores[:2]:
            for k in list(dict.fromkeys(refused))[:2]:
                out.append((f"class _LxRefusing(dict):\n"
                            f"    def __setitem__(self, key, value):\n"
                            f"        raise {k}('lx')\n"
                            f"{prm} = _LxRefusing()", f"{prm} refuses every item with {k}"))
        if not calls:
            continue
        for h in t.handlers:
            if h.type is None:
                kinds = ["Exception"]
            elif isinstance(h.type, ast.Tuple):
                kinds = [ast.unparse(x) for x in h.type.elts]
            else:
                kinds = [ast.unparse(h.type)]
            errnos = []
            for c in ast.walk(h):
                if isinstance(c, ast.Attribute) and isinstance(c.value, ast.Name) and \
                        c.value.id == "errno" and c.attr.isupper():
                    errnos.append(f"errno.{c.attr}")
                elif isinstance(c, ast.Compare):
                    for x in [c.left] + c.comparators:
                        v = _const(x)
                        if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 200:
                            errnos.append(str(v))
            # a class that a parameter holds (``except errors``): its default
            kinds = [ast.unparse(scope.defaults[k]) if k in scope.defaults and
                     isinstance(scope.defaults[k], (ast.Name, ast.Attribute)) else
                     "Exception" if k in scope.params else k for k in kinds]
            for k in kinds[:3]:
                # (two arguments too: ``e.args[0]`` and ``str(e)`` part there)
                args = [f"({e}, 'lx')" for e in errnos[:4]] or ["('lx',)", "('lx', 2)"]
                for a in args:
                    for p in calls[:2 if a != "('lx', 2)" else 1]:
                        imp = "" if len(p) == 1 else scope.imports.get(p[0], "") \
                            if p[0] != "self" else "if 'self' not in globals(): self = _LxObj()"
                        target = ".".join(p)
                        bind = f"{target} = _lx_raise"
                        if len(p) == 1 and p[0] in scope.functions:
                            # bound after the module's own ``def`` ran
                            bind = after_module(target, "_lx_raise")
                        stmts = [imp, "import errno",
                                 f"def _lx_raise(*a, **k):\n    raise {k}(*{a})", bind]
                        shown = a if errnos or a == "('lx', 2)" else ""
                        out.append(("\n".join(x for x in stmts if x),
                                    f"{target} raises {k}{shown}"))
    return out


#: the builtin types whose values take no attributes
_PLAIN = "(str, bytes, int, float, complex, list, tuple, dict, set, frozenset, type(None))"


def _assign(path: list, value: str, scope: _Scope) -> list:
    """Statements that give the subject ``path`` the value ``value`` (an
    object made for the root when the base prefix did not make one; a dict
    for an item)."""
    root = path[0]
    if len(path) == 1:
        return [f"{root} = {value}"]
    if len(path) == 3 and path[1] == "__class__" and isinstance(path[2], str):
        # an attribute of the subject's class (``getattr(val.__class__,
        # "__attrs_attrs__", None)``): an instance of a class of its own
        # (assigning to ``__class__`` wants a class)
        return [f"{root} = type({'C_' + root!r}, (), {{{path[2]!r}: {value}}})()"]
    stmts = []
    if root in scope.imports and root not in scope.params:
        stmts.append(scope.imports[root])
    elif not isinstance(path[1], tuple):
        # (a value of a builtin type the base gave the root takes no
        # attributes: ``annot = '[1, 2]'`` where ``annot.__forward_arg__``
        # is aimed at)
        stmts.append(f"if {root!r} not in globals() or isinstance({root}, {_PLAIN}): "
                     f"{root} = _LxObj()")
    expr = root
    for i, part in enumerate(path[1:], 1):
        last = i == len(path) - 1
        if isinstance(part, tuple):
            inner = value if last else "_LxObj()"
            k = part[1]
            if i == 1 and root in scope.params and type(k) is int and 0 <= k < 8:
                # a parameter indexed by position (``dicts[0]`` of ``*dicts``,
                # ``row[1]``): a list, which ``*args`` can take and code
                # iterating the parameter sees as items
                stmts.append(f"{expr} = [{inner}] * {k + 1}")
            else:
                # with the other keys the function reads from it (a dict
                # holding the aimed key alone raised KeyError on the first
                # of those, before the changed lines)
                others = "".join(f", {o!r}: {o!r}" for o in
                                 scope.keys_read.get(expr, ())[:_KEYS_MAX] if o != k)
                read = scope.keys_read.get(expr, ())[:_KEYS_MAX]
                others += "".join(f", {o!r}: '1'" for o in
                                  scope.keys_passed.get(expr, ())[:_KEYS_MAX]
                                  if o != k and o not in read)
                stmts.append(f"{expr} = {{{k!r}: {inner}{others}}}")
            expr = f"{expr}[{part[1]!r}]"
            continue
        if scope.mangle and part.startswith("__") and not part.endswith("__"):
            part = scope.mangle + part
        nxt = f"{expr}.{part}"
        if last:
            stmts.append(f"{nxt} = {value}")
        elif not isinstance(path[i + 1], tuple):
            stmts.append(f"{nxt} = _LxObj()")
        expr = nxt
    return stmts


#: what a TypeError's message says a made-up value should have been (the
#: first pattern that matches): values of that kind
_WANTED = ((re.compile(r"bytes-like object is required|a bytes-like object|must be bytes"),
            ["b'a'"]),
           (re.compile(r"\bstr\b|string|PathLike"), ["'a'"]),
           (re.compile(r"iterable|unpack"), ["['a']"]),
           (re.compile(r"\bint\b|float|operand|integer|index|not supported between|number"),
            ["1"]))


def made_up_attributes(v, names: list, message: str, limit: int = 2) -> list:
    """For a run that raised a TypeError on a made-up value (``os.path.
    join(self.base, name)`` with ``self.base`` made up): each attribute the
    run made up (``names``, the latest first) that the function reads from
    ``self`` or a parameter, with values of the kind the message asks for
    (a text for "expected str", bytes for "a bytes-like object is
    required", a list for "not iterable", a number for an operand), else a
    text and a number. ``(subject, value)`` pairs (``("self.base",
    "'a'")``) for ``limit`` attributes at most."""
    scope = _Scope(v)
    vals = next((vs for rx, vs in _WANTED if rx.search(message)), ["'a'", "1"])
    paths: dict = {}
    # (read, not written, and not a method called on them: ``name.split(sep)``
    # wants a text ``name``)
    called = {id(n.func) for n in ast.walk(v.node) if isinstance(n, ast.Call)}
    for n in sorted((n for n in ast.walk(v.node) if isinstance(n, ast.Attribute)),
                    key=lambda n: (n.lineno, n.col_offset)):
        if n.attr in names and isinstance(n.ctx, ast.Load) and id(n) not in called:
            p = scope.resolved(_dotted(n))
            if p is not None and len(p) == 2 and p[0] in scope.params and \
                    all(isinstance(x, str) for x in p):
                got = paths.setdefault(n.attr, [])
                if p not in got:
                    got.append(p)
    # and a method of the object the run made up, which the function
    # reaches through another of its class's methods or properties (``path
    # = self.user_cache_dir``, where ``self._append_app_name_and_version(
    # ...)`` of a base class that is not there gave a made-up value): the
    # object's method answering a value of the kind wanted
    own = _own_calls(v, names)
    subjects: list = []
    for a in dict.fromkeys(names):
        subjects += [(".".join(p), "{}") for p in paths.get(a, ())]
        if a in own and a not in paths:
            subjects.append((f"{scope.params[0]}.{a}", "(lambda *a, **k: {})"))
    return [(s, how.format(_text_for(s, val))) for s, how in subjects[:limit] for val in vals]


#: attribute names that hold an address (``request.url``, ``self.base_uri``)
_URL_NAME = re.compile(r"(?:^|_)(?:url|uri|href|endpoint)s?$", re.I)


def _text_for(subject: str, val: str) -> str:
    """The made-up text ``val`` for ``subject``, an absolute address where
    its name says it holds one (``cache_url(request.url)`` raises "Only
    absolute URIs are allowed" on ``'a'``)."""
    if val == "'a'" and _URL_NAME.search(subject.rsplit(".", 1)[-1]):
        return "'https://example.com/a'"
    return val


def _own_calls(v, names: list) -> list:
    """Of ``names``, those the methods of the function's class call on
    their object (``self.NAME(...)``) and the class does not define: the
    methods a base class that is not there would have had."""
    cls = getattr(v, "cls", None)
    if cls is None or not v.node.args.args or \
            any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                for d in v.node.decorator_list):
        return []
    defined = {s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    called: list = []
    for m in cls.body:
        if not isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) or not m.args.args:
            continue
        me = m.args.args[0].arg
        for n in ast.walk(m):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    isinstance(n.func.value, ast.Name) and n.func.value.id == me and \
                    n.func.attr in names and n.func.attr not in defined and \
                    n.func.attr not in called:
                called.append(n.func.attr)
    return sorted(called, key=names.index)


def _changed_nodes(v, lines: set) -> tuple:
    """(statements on the changed lines, the statements that guard them)."""
    changed, guards = [], []
    for s in ast.walk(v.node):
        if not isinstance(s, ast.stmt) or s is v.node:
            continue
        if s.lineno in lines:
            changed.append(s)
        end = s.end_lineno or s.lineno
        if isinstance(s, (ast.If, ast.While, ast.Try, ast.For, ast.With)) and \
                any(s.lineno < ln <= end for ln in lines):
            guards.append(s)
    # an ``assert`` of the blocks that hold the changed lines, before them,
    # guards them as an ``if`` would (``assert role is SERVER``)
    if lines:
        first = min(lines)
        for g in [v.node] + guards:
            for body in (getattr(g, "body", None), getattr(g, "orelse", None)):
                if isinstance(body, list):
                    guards.extend(st for st in body if isinstance(st, ast.Assert) and
                                  st.lineno < first and st not in changed)
    return changed, guards


def _satisfying(op, c) -> object:
    """A value ``x`` for which ``x <op> c`` holds (``c`` a literal's value),
    or _NO where none is plain to choose."""
    number = isinstance(c, (int, float)) and not isinstance(c, bool)
    if isinstance(op, (ast.Eq, ast.LtE, ast.GtE)) or isinstance(op, ast.Is) and \
            (c is None or isinstance(c, bool)):
        return c
    if isinstance(op, ast.IsNot) and c is None:
        # (a text: what a separator, name or label that may be None is)
        return "a"
    if isinstance(op, (ast.Lt, ast.Gt)) and number:
        return c - 1 if isinstance(op, ast.Lt) else c + 1
    if isinstance(op, ast.NotEq) and (number or isinstance(c, str)):
        return c + 1 if number else f"x{c}"
    if isinstance(op, ast.In) and isinstance(c, (tuple, list, set, frozenset)) and c:
        return sorted(c, key=repr)[0] if isinstance(c, (set, frozenset)) else c[0]
    if isinstance(op, ast.NotIn) and isinstance(c, (tuple, list, set, frozenset)) and c:
        if all(isinstance(x, str) for x in c):
            return "x" + max(c, key=len)
        if all(isinstance(x, int) and not isinstance(x, bool) for x in c):
            return max(c) + 1
    return _NO


def _early_exits(v, lines) -> list:
    """The tests that must fail for the changed lines to run: those of the
    ``if`` statements without ``else`` before the changed lines, in the
    blocks that hold them, whose body holds no changed line and always
    leaves (``if n < 0: return None``, ``if x in SKIP: continue``)."""
    if not lines:
        return []
    out = []
    stack = [v.node]
    while stack:
        node = stack.pop()
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            inside = [ln for ln in lines if block and block[0].lineno <= ln <=
                      (block[-1].end_lineno or block[-1].lineno)]
            if not inside:
                continue
            first = min(inside)
            for st in block:
                end = st.end_lineno or st.lineno
                if end < first and isinstance(st, ast.If) and not st.orelse and \
                        _exits(st.body):
                    out.append(st.test)
                elif st.lineno <= first <= end and isinstance(
                        st, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                    stack.append(st)
        for h in getattr(node, "handlers", None) or []:
            stack.append(h)
    return out


def _negated_parts(t) -> list:
    """Parts that, all holding, make the test ``t`` fail: ``a or b`` fails
    where neither holds, ``not x`` where ``x`` holds, ``x == 1`` where
    ``x != 1``; other tests give none."""
    if isinstance(t, ast.BoolOp) and isinstance(t.op, ast.Or):
        return [p for e in t.values for p in _negated_parts(e)]
    if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
        return [t.operand]
    if isinstance(t, ast.Compare) and len(t.ops) == 1 and type(t.ops[0]) in _CMP_FLIP:
        return [ast.Compare(left=t.left, ops=[_CMP_FLIP[type(t.ops[0])]()],
                            comparators=t.comparators)]
    return []


def _match_group(e, once: dict, params) -> Optional[tuple]:
    """``marker[0]`` or ``marker`` for ``marker = m.group(0)`` (``once``: the
    locals bound once -> their expressions), ``m`` a parameter: (``m``, the
    group's number, whether the expression is its first character); None
    for another expression."""
    first = isinstance(e, ast.Subscript) and _const(e.slice) == 0
    if first:
        e = e.value
    if isinstance(e, ast.Name):
        e = once.get(e.id, e)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
            e.func.attr == "group" and isinstance(e.func.value, ast.Name) and \
            e.func.value.id in params and len(e.args) <= 1 and not e.keywords:
        k = _const(e.args[0]) if e.args else 0
        if type(k) is int and 0 <= k < 10:
            return e.func.value.id, k, first
    return None


def _callee_self_hints(v, changed: list, scope: _Scope) -> list:
    """Hints for the attributes of ``self`` that the methods of the class
    the changed lines call test (one level down: ``if data and
    self._should_force_cdata(name, data)``, a method that tests
    ``isinstance(self.force_cdata, bool)`` and ``key in
    self.force_cdata``): what the method's answer turns on is the object's
    state, which the input gives."""
    cls = getattr(v, "cls", None)
    if cls is None:
        return []
    defs = {st.name: st for st in cls.body
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st is not v.node}
    out, seen = [], set()
    for s in changed:
        for n in ast.walk(s):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                    isinstance(n.func.value, ast.Name) and n.func.value.id == "self" and
                    n.func.attr in defs and n.func.attr not in seen):
                continue
            seen.add(n.func.attr)
            for st in ast.walk(defs[n.func.attr]):
                tests = [st.test] if isinstance(st, (ast.If, ast.While, ast.IfExp)) else \
                    [st.value] if isinstance(st, ast.Return) and st.value is not None else []
                for t in tests:
                    out.extend(h for h in _hints(t, scope)
                               if isinstance(h[0], list) and h[0][:1] == ["self"])
                    # ``key in self.force_cdata``, the key the method's own:
                    # a container that holds another key
                    for c in ast.walk(t):
                        if isinstance(c, ast.Compare) and len(c.ops) == 1 and \
                                isinstance(c.ops[0], (ast.In, ast.NotIn)) and \
                                (p := _dotted(c.comparators[0])) and p[0] == "self" and \
                                len(p) == 2 and isinstance(p[1], str) and \
                                _const(c.left) is _NO:
                            out.append((p, ["('lx',)"], False))
    return out


def _guard_tests(guards: list, lines) -> list:
    """The tests of the ``if`` and ``while`` statements of ``guards`` whose
    body (not ``else``) holds one of ``lines``."""
    return [g.test for g in guards if isinstance(g, (ast.If, ast.While)) and any(
        st.lineno <= ln <= (st.end_lineno or st.lineno) for st in g.body for ln in lines)]


def _conjunction_hints(v, changed: list, guards: list, scope: _Scope) -> list:
    """One input that makes every part of the tests the changed lines sit
    under hold at once (``if is_image and depth > 0 and level >= depth``:
    ``depth = 1`` and ``level = 1`` together), where the inputs aimed at
    one subject each, or at every subject's k-th value, make one part
    hold and another fail.  The parts used: a subject compared with a
    literal (``x > 0``, ``kind == "a"``, ``mode in ("r", "w")``), an
    ``isinstance`` test, and two subjects compared where one got a value
    (``level >= depth``); the tests of the ``if`` statements whose body
    (not ``else``) holds changed lines, and of the changed ``if``
    statements themselves.  A RAW hint, or none where fewer than two
    subjects get a value."""
    lines = {s.lineno for s in changed}
    tests = _guard_tests(guards, lines)
    tests += [s.test for s in changed if isinstance(s, (ast.If, ast.While))]
    once = _bound_once(v, scope)
    # the early exits before the changed lines must not be taken: their
    # tests' negations join the parts (after the guards', which win where
    # both give a subject a value)
    exits = [e for t in _early_exits(v, sorted(lines)) for e in _failing_parts(t)]
    chosen = _holding_values([e for t in tests for e in (
        t.values if isinstance(t, ast.BoolOp) and isinstance(t.op, ast.And) else [t])] + exits,
        once, scope)
    if len(chosen) < 2:
        return []
    stmts = [st for p, x in chosen.items() for st in _assign(list(p), x, scope)]
    return [("RAW", stmts, False, [p[0] for p in chosen if p[0] in scope.params])]


def _through_once(e, once: dict):
    """``e``, or the comparison a name it tests is bound to once
    (``got = self.sep is not UNSET``: ``got`` reads that; ``not got`` its
    flip, ``self.sep is UNSET``)."""
    if isinstance(e, ast.Name) and isinstance(once.get(e.id), ast.Compare):
        return once[e.id]
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not) and \
            isinstance(e.operand, ast.Name):
        c = once.get(e.operand.id)
        if isinstance(c, ast.Compare) and len(c.ops) == 1 and type(c.ops[0]) in _CMP_FLIP:
            return ast.Compare(left=c.left, ops=[_CMP_FLIP[type(c.ops[0])]()],
                               comparators=c.comparators)
    return e


def _failing_parts(e) -> list:
    """Parts that, holding, make the operand ``e`` fail: those of
    :func:`_negated_parts`, and ``not e`` for a name or attribute tested
    for truth alone (each operand of an ``or``: ``if got_a or got_b:
    raise`` is passed where neither holds)."""
    if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.Or):
        return [p for x in e.values for p in _failing_parts(x)]
    return _negated_parts(e) or (
        [ast.UnaryOp(op=ast.Not(), operand=e)] if isinstance(e, (ast.Name, ast.Attribute))
        else [])


def _operand_hints(v, changed: list, scope: _Scope, guards: list = ()) -> list:
    """Inputs that make one operand of a boolean operator on the changed
    lines hold and the others fail, and the reverse (all but one hold):
    what tells ``a and b`` from ``a or b``, or a test from the same test
    with one operand more, apart -- :func:`_conjunction_hints` makes every
    part hold at once, where the two agree.  ``isinstance(self,
    BaseException) and name in (...)`` gets an exception with another
    name.  The early exits before the changed lines are not taken.  RAW
    hints, each giving at least two subjects a value."""
    lines = sorted({s.lineno for s in changed})
    once = _bound_once(v, scope)
    exits = [e for t in _early_exits(v, lines) for e in _failing_parts(t)]
    # the tests the changed lines sit under hold (``if self.tag is None:``
    # around ``if self.implicit and self.pre is None``)
    exits += [e for t in _guard_tests(list(guards), set(lines)) for e in (
        t.values if isinstance(t, ast.BoolOp) and isinstance(t.op, ast.And) else [t])]
    out, seen = [], set()
    for s in changed:
        roots = _headers(s) if isinstance(s, (ast.If, ast.While, ast.For, ast.With,
                                              ast.Try, ast.Assert)) else [s]
        for b in (b for r in roots if isinstance(r, ast.AST) for b in ast.walk(r)):
            if not isinstance(b, ast.BoolOp) or not 2 <= len(b.values) <= 4:
                continue
            for i, e in enumerate(b.values):
                others = b.values[:i] + b.values[i + 1:]
                for holding, failing in (([e], others), (others, [e])):
                    chosen = _holding_values(
                        holding + [n for x in failing for n in _failing_parts(x)] + exits,
                        once, scope)
                    key = tuple(sorted(chosen.items()))
                    if len(chosen) < 2 or key in seen:
                        continue
                    seen.add(key)
                    stmts = [st for p, x in chosen.items() for st in _assign(list(p), x, scope)]
                    out.append(("RAW", stmts, False,
                                [p[0] for p in chosen if p[0] in scope.params]))
    return out[:8]


def _bound_once(v, scope: _Scope) -> dict:
    """The locals the function binds once (``is_image = marker[0] == "!"``,
    ``marker = m.group(0)``) -> their expressions: a test that reads one
    reads what it holds."""
    return {st.targets[0].id: st.value for st in ast.walk(v.node)
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and
            isinstance(st.targets[0], ast.Name) and
            scope.stores.get(st.targets[0].id) == 1 and st.targets[0].id not in scope.params}


def _holding_values(tests: list, once: dict, scope: _Scope) -> dict:
    """Values (as source, per subject path) that make each of ``tests``
    hold, where one is plain to choose: a subject compared with a literal,
    an ``isinstance`` test, ``startswith``/``endswith`` of a literal, a
    subject tested for truth alone, and two subjects compared where one
    got a value.  The first test to give a subject a value wins."""
    parts = [_through_once(e, once) for e in tests]

    def subject(e):
        p = scope.resolved(_dotted(e))
        return p if p is not None and all(isinstance(x, str) for x in p) and \
            scope.settable(p) else None

    chosen: dict = {}           # subject path -> value as source
    pairs = []
    for e in parts:
        if isinstance(e, ast.Compare) and len(e.ops) == 1:
            left, op, right = e.left, e.ops[0], e.comparators[0]
            pl, c = subject(left), _const(right)
            if c is _NO and isinstance(right, ast.Name):
                c = scope.constants.get(right.id, _NO)
            pr = _dotted(right) if c is _NO else None
            if pl is not None and pr and isinstance(op, (ast.Is, ast.Eq)) and \
                    (len(pl) == 1 or len(pl) == 2 and pl[0] == "self") and \
                    all(isinstance(x, str) for x in pr) and (
                        pr[0] in scope.imports or pr[0] in scope.imported or
                        pr[0] in scope.defined) and \
                    pr[0] not in scope.params and pr[0] not in scope.locals:
                # ``self.post_sep1 is UNSET``, a sentinel the module imports
                # or binds: what that name holds once the module ran (funcrun
                # resolves it in a parameter and an attribute of ``self``)
                chosen.setdefault(tuple(pl), f"_LxLate({'.'.join(pr)!r})")
                continue
            got = _match_group(left, once, scope.params) if c is not _NO else None
            if got is not None and isinstance(x := _satisfying(op, c), str):
                # a match of a pattern whose group ``k`` is that text (the
                # groups before it empty), over the text alone
                m, k, first = got
                pattern = "(?s)" + "()" * max(0, k - 1) + ("(.*)" if k else ".*")
                text = x + "x" if first and len(x) == 1 else x
                chosen.setdefault((m,), f"__import__('re').match({pattern!r}, {text!r})")
            elif pl is not None and c is not _NO:
                x = _satisfying(op, c)
                if x is not _NO:
                    chosen.setdefault(tuple(pl), repr(x))
            elif pl is not None and subject(right) is not None:
                pairs.append((tuple(pl), op, tuple(subject(right))))
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                e.func.id == "isinstance" and len(e.args) == 2 and \
                (p := subject(e.args[0])) is not None:
            t = e.args[1]
            got = [x for x in map(_sample_of, [ast.unparse(k) for k in (
                t.elts if isinstance(t, ast.Tuple) else [t])]) if x is not None]
            if got:
                chosen.setdefault(tuple(p), got[0])
        elif isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                e.func.attr in ("startswith", "endswith") and len(e.args) == 1 and \
                not e.keywords:
            # ``url.lower().startswith("https")``: the text the literal is
            # (the first of a tuple of them), through the calls of _RECASED
            base, lit = e.func.value, _const(e.args[0])
            while isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and \
                    base.func.attr in _RECASED and not base.args and not base.keywords:
                base = base.func.value
            if isinstance(lit, tuple) and lit:
                lit = lit[0]
            if isinstance(lit, (str, bytes)) and (p := subject(base)) is not None:
                chosen.setdefault(tuple(p), repr(lit))
    # a subject tested for truth alone (``if url.startswith("https") and
    # verify``) is True, one tested with ``not`` None, where no other part
    # gave it a value
    for e in parts:
        neg = isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not)
        if isinstance(e.operand if neg else e, (ast.Name, ast.Attribute)) and \
                (p := subject(e.operand if neg else e)) is not None:
            chosen.setdefault(tuple(p), "None" if neg else "True")
    # two subjects compared: the other one set from the one that has a value
    shift = {ast.Gt: 1, ast.Lt: -1}
    for a, op, b in pairs:
        for x, y, sign in ((a, b, 1), (b, a, -1)):
            if y in chosen and x not in chosen and type(op) in (
                    ast.Eq, ast.GtE, ast.LtE, ast.Gt, ast.Lt):
                val = _const(ast.parse(chosen[y], mode="eval").body)
                if isinstance(val, (int, float)) and not isinstance(val, bool):
                    chosen[x] = repr(val + sign * shift.get(type(op), 0))
    return chosen


def _headers(s) -> list:
    """The parts of a compound statement that decide whether its body runs."""
    if isinstance(s, (ast.If, ast.While)):
        return [s.test]
    if isinstance(s, ast.For):
        return [s.iter]
    if isinstance(s, ast.Try):
        return [h for h in s.handlers]
    if isinstance(s, ast.With):
        return [i.context_expr for i in s.items]
    if isinstance(s, ast.Assert):
        return [s.test]
    return []


def _default_hints(old, new) -> list:
    """A default value the edit changed (``size=10`` -> ``size=20``): values
    for the other parameters that make the default matter -- sequences
    longer than each number involved, and the numbers themselves."""
    do, dn = _param_defaults(old.node), _param_defaults(new.node)
    nums = set()
    changed = []
    for k in set(do) | set(dn):
        x, y = do.get(k), dn.get(k)
        if x is None or y is None or ast.dump(x) != ast.dump(y):
            changed.append(k)
            for d in (x, y):
                c = _const(d) if d is not None else _NO
                if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 500:
                    nums.add(c)
    if not changed:
        return []
    a = new.node.args
    others = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs
              if p.arg not in changed and p.arg not in ("self", "cls")]
    out = []
    for p in others:
        vals = [f"list(range({n + 1}))" for n in sorted(nums)] + \
            [f"'x' * {n + 1}" for n in sorted(nums)] + [str(n + 1) for n in sorted(nums)]
        if vals:
            out.append(([p], vals, False))
    return out


_ITERATING = {"iter", "map", "filter", "zip", "tuple", "list", "sorted", "enumerate", "set",
              "sum", "any", "all", "next", "reversed", "min", "max", "frozenset", "dict"}


def _shared_value_inputs(pool: dict, near: set, scopes: dict, head: str, names: list,
                         combos: list, limit: int = 2) -> list:
    """Inputs giving the subjects aimed at one value (a datetime with a
    time zone for ``value`` and ``when`` both) that value together, the
    other subjects near the edit their first: what the inputs giving every
    subject its k-th value miss where the lists differ in length or order
    (a naive and an aware datetime compared).  ``pool``: path -> (values,
    version), the subjects near the edit (the paths ``near``) first;
    a subject aimed at only farther from the edit is set where it holds the
    value (one subject near the edit must).  At most ``limit`` inputs, none
    for an edge value or one an input of ``combos`` already gives so."""
    made = []
    for val in dict.fromkeys(x for p, (vals, _) in pool.items() if p in near for x in vals):
        holders = [p for p, (vals, _) in pool.items() if val in vals]
        if len(holders) < 2 or val in _EDGES:
            continue
        given = [(p, val if p in holders else vals[0], v) for p, (vals, v) in pool.items()
                 if p in near or p in holders]
        note = "aimed: " + ", ".join(f"{'.'.join(p)} = {x}" for p, x, _ in given)
        if any(c[1] == note for c in combos):
            continue
        stmts = [st for p, x, v in given for st in _assign(list(p), x, scopes[id(v)])]
        made.append((head + "\n" + "\n".join(stmts), note,
                     names + [p[0] for p in holders if p not in near and p[0] not in names]))
        if len(made) >= limit:
            break
    return made


def _fall_through(near: list, versions: list, scopes: dict, head: str, params: set) -> list:
    """One input on which every truth test near the edit fails (its subjects
    None) and what the changed lines iterate over is empty: the path past
    every early return, where edits like ``max(xs, default=0)`` live."""
    falls: list = []
    for (path, vals, edge, *_), v in near:
        if path != "RAW" and edge is True and vals and \
                all(path != f[0] for f in falls):
            falls.append((path, vals[0], v))
    empties: list = []
    for v, lines in versions:
        try:
            changed, _ = _changed_nodes(v, lines)
        except Exception:
            continue
        for st in changed:
            for n in ast.walk(st):
                its = [n.iter] if isinstance(n, (ast.For, ast.comprehension)) else \
                    n.args if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                    n.func.id in _ITERATING else []
                for e in its:
                    p = _dotted(e)
                    if p and scopes[id(v)].settable(p) and all(p != q for q, _ in empties):
                        empties.append((p, v))
    if len(falls) + len(empties) < 2 or not falls:
        return []
    stmts: list = []
    shown: list = []
    def name(path):
        return ".".join(p if isinstance(p, str) else f"[{p[1]!r}]" for p in path)
    for path, val, v in falls:
        stmts += _assign(path, val, scopes[id(v)])
        shown.append(f"{name(path)} = {val}")
    for path, v in empties:
        stmts += _assign(path, "[]", scopes[id(v)])
        shown.append(f"{name(path)} = []")
    names = sorted({p[0] for p, *_ in falls + empties if p[0] in params})
    return [(head + "\n" + "\n".join(stmts), "aimed (edge): " + ", ".join(shown), names)]


#: what a file object is asked (``fo.read(n)``, ``fo.seek(0, 2)``)
_FILE_METHODS = {"read", "readline", "readlines", "seek", "tell", "write", "flush"}
#: file objects to try: no newline at all, lines, empty
_FILE_SAMPLES = ("__import__('io').StringIO('ab')", "__import__('io').StringIO('a\\nbc\\nd')",
                 "__import__('io').StringIO('')")


def _local_aliases(node, value_of) -> dict:
    """Names bound in ``node`` (``fo, n = self._file_obj, self._blocksize``
    pairs too) -> ``value_of(bound expression)``, the first binding for
    which that is not None."""
    out: dict = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            t, e = n.targets[0], n.value
            pairs = zip(t.elts, e.elts) if isinstance(t, ast.Tuple) and \
                isinstance(e, ast.Tuple) and len(t.elts) == len(e.elts) else [(t, e)]
            for a, b in pairs:
                if isinstance(a, ast.Name):
                    got = value_of(b)
                    if got is not None:
                        out.setdefault(a.id, got)
    return out


def _file_attributes(cls) -> set:
    """The attributes of ``self`` that a method of the class uses as a file
    object (``self._file_obj.seek(...)``, ``fo = self._file_obj; fo.read()``)."""
    out: set = set()
    for f in cls.body:
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        alias = _local_aliases(f, lambda b: b.attr if isinstance(b, ast.Attribute) and
                               isinstance(b.value, ast.Name) and b.value.id == "self"
                               else None)
        for n in ast.walk(f):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    n.func.attr in _FILE_METHODS:
                o = n.func.value
                if isinstance(o, ast.Attribute) and isinstance(o.value, ast.Name) and \
                        o.value.id == "self":
                    out.add(o.attr)
                elif isinstance(o, ast.Name) and o.id in alias:
                    out.add(alias[o.id])
    return out


def _file_hints(v, scope: _Scope) -> list:
    """Subjects the function uses as a file object (reads, seeks, tells --
    directly or through a local bound to them, ``fo, n = self._file_obj,
    self._blocksize``): an in-memory text file of a few shapes, with any
    subject given as the size of a read a small number (4).  Whole
    statements (every such subject at once)."""
    alias = _local_aliases(v.node, _dotted)

    def subject(e):
        p = _dotted(e)
        if p is not None and p[0] in alias and p[0] not in scope.params:
            p = alias[p[0]] + p[1:]
        return p if p is not None and scope.settable(p) else None
    files: list = []
    sizes: list = []
    kept = _file_attributes(v.cls) if v.cls is not None else set()
    for n in ast.walk(v.node):
        if kept and isinstance(n, ast.Assign) and len(n.targets) == 1:
            # ``self._file_obj = file_obj`` where another method reads
            # ``self._file_obj``: the parameter is that file
            t, e = n.targets[0], n.value
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and \
                    t.value.id == "self" and t.attr in kept and \
                    isinstance(e, ast.Name) and e.id in scope.params and [e.id] not in files:
                files.append([e.id])
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in _FILE_METHODS:
            p = subject(n.func.value)
            if p is None or p[0] == "sys":
                # ``sys.stdout.write``, ``sys.stdin.read``: the standard
                # streams (standard input is :func:`_cli_hints`' to give)
                continue
            if p not in files:
                files.append(p)
            if n.func.attr in ("read", "readline") and n.args:
                q = subject(n.args[0])
                if q is not None and q not in sizes:
                    sizes.append(q)
    if not files:
        return []
    out = []
    for sample in _FILE_SAMPLES:
        stmts: list = []
        for p in files:
            stmts += _assign(p, sample, scope)
        for q in sizes:
            stmts += _assign(q, "4", scope)
        out.append(("RAW", stmts, False, sorted({p[0] for p in files + sizes
                                                  if p[0] in scope.params})))
    return out


def _iterated(fn) -> list:
    """The names a function iterates over directly (``for x in p``,
    ``iter(p)``, ``map(f, p)``...), in order."""
    out = []
    for n in ast.walk(fn):
        its = []
        if isinstance(n, (ast.For, ast.comprehension)):
            its = [n.iter]
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id in _ITERATING:
            its = n.args
        for e in its:
            if isinstance(e, ast.Name) and e.id not in out:
                out.append(e.id)
    return out


def _iterable_hints(v, changed: list) -> list:
    """Parameters the function iterates over (``for x in p``, ``iter(p)``,
    ``map(f, p)``...): an empty list, a list, and an iterator (code that
    iterates twice, or calls ``next`` on an empty one, behaves differently);
    one unpacked into a call (``zip(*rows)``): rows of unequal lengths."""
    a = v.node.args
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} - {"self", "cls"}
    used = [p for p in _iterated(v.node) if p in params]
    # items of bytes where the function, or the helper that iterates the
    # parameter, deals with bytes (``bytes(line)`` on each: a bytearray
    # item is where such a conversion tells)
    of_bytes = list(used) if handles_bytes(v) else []
    # passed on to a function of the module that iterates it
    # (``for data in _sorted_window(iterator, k)``)
    module = getattr(v, "module", None)
    helpers = {s.name: s for s in getattr(module, "body", ())
               if isinstance(s, ast.FunctionDef) and s is not v.node}
    for n in ast.walk(v.node):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
                n.func.id in helpers):
            continue
        h = helpers[n.func.id]
        names = [p.arg for p in h.args.posonlyargs + h.args.args]
        passed = list(zip(names, n.args)) + [(k.arg, k.value) for k in n.keywords]
        inner = _iterated(h)
        for hp, e in passed:
            if hp in inner and isinstance(e, ast.Name) and e.id in params:
                if e.id not in used:
                    used.append(e.id)
                if _deals_with_bytes(h) and e.id not in of_bytes:
                    of_bytes.append(e.id)
    # a parameter unpacked into a call (``zip(*rows)``): rows of other lengths
    starred = []
    for n in ast.walk(v.node):
        if isinstance(n, ast.Call):
            for e in n.args:
                if isinstance(e, ast.Starred) and isinstance(e.value, ast.Name) and \
                        e.value.id in params and e.value.id not in starred:
                    starred.append(e.value.id)
    # NaN: ``not a <= b`` and ``b < a`` differ only for unordered values
    return [([p], ["[]", "[3, 1, 2]", "iter([3, 1, 2])", "[2.0, float('nan'), 1.0, 3.0]"] +
             (["[b'a']", "[bytearray(b'a')]"] if p in of_bytes else []),
             "value") for p in used if p not in starred] + \
        [([p], ["[[1, 2], [3]]", "[[1, 2], [3, 4]]", "[]"], "value") for p in starred]


def _param_defaults(fn) -> dict:
    """A function node's parameters that have a default -> its expression."""
    return {p.arg: d for p, d in defaulted_params(fn)}


def _parameter_alternatives(v, changed: list) -> list:
    """Parameters with a default that the changed lines, or the tests that
    guard them, read (``sep`` in ``result.append(sep)``; ``type`` in ``if
    type is None: ... elif ca.type is not None: raise ...``): a value other
    than the default."""
    defaults = _param_defaults(v.node)
    read = {n.id for s in changed for n in ast.walk(s) if isinstance(n, ast.Name)}
    # entered by a ``with`` (``lock=None`` and, in a wrapper, ``with lock:``),
    # or called for what is entered (``with lock(self):``)
    items = [i.context_expr for n in ast.walk(v.node) if isinstance(n, ast.With)
             for i in n.items]
    entered = {e.id: "__import__('threading').RLock()" for e in items
               if isinstance(e, ast.Name)}
    entered.update({e.func.id: "(lambda *a, **k: __import__('threading').RLock())"
                    for e in items if isinstance(e, ast.Call) and
                    isinstance(e.func, ast.Name) and e.func.id not in entered})
    out = []
    for name in sorted(read & set(defaults)):
        c = _const(defaults[name])
        if isinstance(c, bool):
            alt = [repr(not c)]
        elif isinstance(c, (int, float)):
            alt = [repr(c + 1), repr(c - 1)]
        elif isinstance(c, str):
            alt = [repr(c + "|"), repr("")]
        elif c is None:
            alt = ["1", "'x'"]
            if name in entered:
                alt.insert(0, entered[name])
        else:
            continue
        out.append(([name], alt, "value"))
    return out


#: strings of the formats a parameter's name says it holds: (words of the
#: name, words it must not have, the values); the first rule that matches
_NAMED_TEXT = (
    # a release number: three parts, two, four, and a first part past the
    # usual upper bounds (``assert (3, 0, 2) <= (major, minor, patch) < (6, 0, 0)``);
    # first: ``urllib3_version`` is no URL
    (("version",), ("versions",), ("2.0.0", "1.26", "2.0.0.1", "6.0.0", "7.0.0")),
    (("iso", "datetime", "dtstr", "dt_str", "timestamp"), (),
     ("2024-06-15T21:21:09.371254", "2024-06-15T24:00:00+05:30")),
    (("date",), ("update", "validate", "candidate"), ("2024-06-15", "20240615")),
    (("tzstr", "tz_str"), (), ("+05:30", "-0800")),
    (("time",), ("timeout", "timer", "timing", "timezone"),
     # ISO 8601's forms: extended, basic with a comma and more than six
     # fraction digits, hours and minutes, the end of the day
     ("21:21:09.371254", "212109,371254789", "21:21", "24:00:00")),
    (("url", "uri", "href"), (), ("https://example.com/a/b.txt?x=1&y=2#top",)),
    (("email",), (), ("someone@example.com",)),
    # a traceback as Python 3.11 prints it (anchors under the source lines),
    # and one cut off after a frame's source line
    (("tb_str", "tbstr", "tb_text", "traceback"), (),
     ('Traceback (most recent call last):\n  File "example.py", line 2, in <module>\n'
      '    main()\n    ^^^^^^\n  File "example.py", line 1, in main\n'
      '    return 1 / 0\n           ~~^~~\nZeroDivisionError: division by zero\n',
      'Traceback (most recent call last):\n  File "example.py", line 2, in <module>\n'
      '    main()')),
)


def _deals_with_bytes(node) -> bool:
    """A bytes literal, the names ``bytes``/``bytearray``/``memoryview`` or
    ``encode``/``decode`` anywhere in ``node``."""
    return any(isinstance(n, ast.Constant) and isinstance(n.value, bytes) or
               isinstance(n, ast.Name) and n.id in ("bytes", "bytearray", "memoryview") or
               isinstance(n, ast.Attribute) and n.attr in ("encode", "decode")
               for n in ast.walk(node))


def _bytes_around(v) -> bool:
    """Is the function handed bytes or compared with them from outside its
    body: a decorator of the module's own that deals with bytes
    (``@_takes_ascii`` encodes the argument; the runs call the function
    undecorated, so it gets its text as the decorator would hand it over),
    bytes constants of its class (``_DATE_SEP = b'-'``)?"""
    own = {n.name: n for n in v.module.body
           if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for d in v.node.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        if isinstance(f, ast.Name) and f.id in own and _deals_with_bytes(own[f.id]):
            return True
    return v.cls is not None and any(
        isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None and
        _deals_with_bytes(s.value) for s in v.cls.body)


def handles_bytes(v) -> bool:
    """Does the function deal with bytes (in its body, see
    :func:`_deals_with_bytes`, or around it, :func:`_bytes_around`)?  Only
    then is a string argument worth trying as bytes: for code about text,
    bytes are no input it is meant for (``"Hello, " + name`` and
    ``f"Hello, {name}"`` differ on bytes alone)."""
    return _deals_with_bytes(v.node) or _bytes_around(v)


def parses_bytes(v) -> bool:
    """The narrower test of the two: is the function's text *wanted* as
    bytes (a bytes literal in its body it compares with, or bytes handed
    over from around it, :func:`_bytes_around`)?  Then a named text
    parameter's hints (:func:`_name_hints`) are given as bytes rather than
    text; ``encode``/``decode`` alone (:func:`handles_bytes`) only makes
    bytes worth trying too -- ``s.encode()`` wants text."""
    return any(isinstance(n, ast.Constant) and isinstance(n.value, bytes)
               for n in ast.walk(v.node)) or _bytes_around(v)


def _name_hints(v) -> list:
    """Parameters whose names say what text they hold (``timestr``,
    ``datestr``, ``url``): strings of that format, from which the variants
    make bytes, upper case and the edit's characters appended -- random
    text does not get past a parser's first checks.  Not for a parameter
    whose default is other than a string or None."""
    a = v.node.args
    defaults = _param_defaults(v.node)
    as_bytes = parses_bytes(v)
    out = []
    for p in a.posonlyargs + a.args + a.kwonlyargs:
        name = p.arg.lower()
        if name in ("self", "cls") or name.endswith("s") and not name.endswith("ss"):
            continue            # a plural (``times``, ``dates``) holds several
        if p.arg in defaults:
            c = _const(defaults[p.arg])
            if not (c is None or isinstance(c, (str, bytes))):
                continue
        for words, nots, vals in _NAMED_TEXT:
            if any(w in name for w in words) and not any(w in name for w in nots):
                out.append(([p.arg], [repr(x.encode() if as_bytes else x) for x in vals],
                            "value"))
                break
    return out


#: sample values (as source) of the builtin types an annotation may name
_TYPE_SAMPLES = {
    "int": ["1", "0"], "float": ["1.5", "0.0"], "str": ["'a'", "''"],
    "bytes": ["b'a'", "b''"], "bytearray": ["bytearray(b'a')"], "bool": ["True", "False"],
    "complex": ["1j"], "None": ["None"], "NoneType": ["None"], "list": ["[1]", "[]"],
    "dict": ["{'a': 1}", "{}"], "tuple": ["(1,)", "()"], "set": ["{1}", "set()"],
    "frozenset": ["frozenset({1})"], "Decimal": [], "Any": [], "object": [],
}
_SEQUENCES = {"list", "List", "Sequence", "MutableSequence", "Iterable", "Collection",
              "Reversible", "Container"}
_SETS = {"set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet"}
_MAPPINGS = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}


def _type_samples(e, depth: int = 0) -> list:
    """Values (as source) of the type an annotation names: ``int`` ->
    ``1``, ``0``; ``Optional[str]`` -> ``'a'``, ``''``, ``None``;
    ``Union[str, bytes]`` -> one of each first; ``list[int]`` -> ``[1]``;
    ``dict[str, int]`` -> ``{'a': 1}``; ``Literal['x', 2]`` -> its values;
    ``str | None`` alike; ``timedelta``, ``datetime``, ``Path`` -> the
    ``isinstance`` sample.  [] for a type it cannot make (a class of the
    project, a callable)."""
    if e is None or depth > 3:
        return []
    if isinstance(e, ast.Constant) and isinstance(e.value, str):
        try:                    # a forward reference: ``'Optional[int]'``
            return _type_samples(ast.parse(e.value, mode="eval").body, depth + 1)
        except SyntaxError:
            return []
    if isinstance(e, ast.Constant) and e.value is None:
        return ["None"]
    name = e.id if isinstance(e, ast.Name) else e.attr if isinstance(e, ast.Attribute) \
        else None
    if name is not None:
        if name in _TYPE_SAMPLES:
            return list(_TYPE_SAMPLES[name])
        # the standard library's value types (``delta: timedelta``,
        # ``when: dt.datetime``, ``path: Path``): the ``isinstance`` sample
        p = _dotted(e)
        got = _sample_of(".".join(p) if p and all(isinstance(x, str) for x in p) else name)
        return [got] if got is not None else []
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr):
        return _union([_type_samples(e.left, depth + 1), _type_samples(e.right, depth + 1)])
    if not isinstance(e, ast.Subscript):
        return []
    head = e.value.id if isinstance(e.value, ast.Name) else \
        e.value.attr if isinstance(e.value, ast.Attribute) else None
    args = list(e.slice.elts) if isinstance(e.slice, ast.Tuple) else [e.slice]
    if head == "Optional":
        return _type_samples(args[0], depth + 1) + ["None"]
    if head == "Union":
        return _union([_type_samples(a, depth + 1) for a in args])
    if head == "Literal":
        return [repr(a.value) for a in args if isinstance(a, ast.Constant)]
    if head == "Annotated":
        return _type_samples(args[0], depth + 1)
    first = _type_samples(args[0], depth + 1)[:1]
    if head in _SEQUENCES:
        return [f"[{first[0]}]", "[]"] if first else []
    if head in _SETS:
        return [f"{{{first[0]}}}", "set()"] if first else []
    if head in ("tuple", "Tuple"):
        if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is ...:
            return [f"({first[0]},)", "()"] if first else []
        items = [_type_samples(a, depth + 1)[:1] for a in args]
        return [f"({', '.join(x[0] for x in items)},)"] if all(items) else []
    if head in _MAPPINGS and len(args) == 2:
        v = _type_samples(args[1], depth + 1)[:1]
        return [f"{{{first[0]}: {v[0]}}}", "{}"] if first and v else []
    return []


def _union(parts: list) -> list:
    """The members' samples, each member's first value first."""
    out: list = []
    for k in range(max((len(p) for p in parts), default=0)):
        for p in parts:
            if k < len(p) and p[k] not in out:
                out.append(p[k])
    return out


#: a parameter's type in a docstring: Sphinx's ``:param TYPE NAME:`` and
#: ``:type NAME: TYPE``, Google's ``NAME (TYPE): ...`` and NumPy's
#: ``NAME : TYPE`` (on a line of its own)
_DOC_PARAM = re.compile(r"^\s*:param\s+([A-Za-z_][\w.\[\], ]*?)\s+([A-Za-z_]\w*)\s*:", re.M)
_DOC_TYPE = re.compile(r"^\s*:type\s+([A-Za-z_]\w*)\s*:\s*(.+?)\s*$", re.M)
_DOC_GOOGLE = re.compile(r"^\s+([A-Za-z_]\w*)\s+\(([^()\n]+)\)\s*:", re.M)
_DOC_NUMPY = re.compile(r"^\s*([A-Za-z_]\w*)\s+:\s+([^\n]+?)\s*$", re.M)
#: a docstring's words for types -> the names ``_type_samples`` reads
_DOC_WORDS = {"string": "str", "integer": "int", "boolean": "bool", "iterable": "list",
              "sequence": "list", "mapping": "dict", "dictionary": "dict", "number": "float",
              "callable": "", "function": "", "object": ""}


def _doc_type(text: str) -> Optional[ast.AST]:
    """A docstring's type text as an annotation: ``tuple``, ``str or
    None`` (a union), ``int, optional``, ``list of str`` (``List[str]``);
    None where it names no type ``_type_samples`` can read."""
    t = text.strip().rstrip(".")
    t = re.sub(r",?\s*(optional|default\b.*)$", "", t, flags=re.I).strip()
    m = re.fullmatch(r"(list|tuple|set|sequence|iterable) of (\w+)s?", t, flags=re.I)
    if m:
        inner = _DOC_WORDS.get(m.group(2).lower(), m.group(2))
        t = f"List[{inner}]" if inner else "list"
    parts = [p.strip() for p in re.split(r"\s+or\s+|\s*\|\s*", t) if p.strip()]
    names = []
    for p in parts:
        p = _DOC_WORDS.get(p.lower(), p)
        if not p:
            return None
        names.append(p)
    try:
        e = ast.parse(" | ".join(names), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    return e


def _doc_types(fn) -> dict:
    """The parameters' types its docstring gives: name -> annotation."""
    doc = ast.get_docstring(fn, clean=False) if isinstance(
        fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if not doc:
        return {}
    found: dict = {}
    for m in _DOC_PARAM.finditer(doc):
        found.setdefault(m.group(2), m.group(1))
    for m in _DOC_TYPE.finditer(doc):
        found.setdefault(m.group(1), m.group(2))
    for m in _DOC_GOOGLE.finditer(doc):
        found.setdefault(m.group(1), m.group(2))
    if re.search(r"^\s*Parameters\s*\n\s*-{3,}", doc, re.M):
        for m in _DOC_NUMPY.finditer(doc):
            found.setdefault(m.group(1), m.group(2))
    out = {}
    for name, text in found.items():
        e = _doc_type(text)
        if e is not None:
            out[name] = e
    return out


def _annotation_hints(v) -> list:
    """Two inputs from the parameters' annotations (``label: Union[str,
    bytes]``), or the types the docstring gives (``:param tuple base:``)
    where there is none: every such parameter at its type's first value,
    then at its second (its first where it has one value): a concrete
    input where made-up values stop at the first use
    (``unicodedata.normalize('NFC', label)``).  ``self``/``cls`` and
    parameters with no sample are left to injection."""
    a = v.node.args
    got = []
    doc = _doc_types(v.node)
    for p in a.posonlyargs + a.args + a.kwonlyargs:
        ann = p.annotation if p.annotation is not None else doc.get(p.arg)
        if p.arg in ("self", "cls") or ann is None:
            continue
        try:
            vals = _type_samples(ann)
        except Exception:       # an odd annotation costs only its inputs
            vals = []
        vals = [x for x in vals if len(x) < 200]
        if vals:
            got.append((p.arg, vals))
    if not got:
        return []
    out = []
    for k in range(2):
        stmts = [f"{name} = {vals[min(k, len(vals) - 1)]}" for name, vals in got]
        if not out or stmts != out[-1][1]:
            out.append(("RAW", stmts, False, [name for name, _ in got]))
    return out


#: what a command-line main reads from standard input: JSON (with a
#: character beyond ASCII, a float and a null) where it parses JSON, else lines
_STDIN_JSON = '{"a": "\u00e9", "b": [1, 2.5, null]}'
_STDIN_TEXT = "a\n\u00e9 b\n"


def _cli_hints(v) -> list:
    """A command-line main (``args = parser.parse_args()``, ``sys.stdin.read()``):
    ``sys.argv`` with a value for each positional argument its parser
    declares (``add_argument('expression')``: ``'a'``, or the first of its
    ``choices``) and standard input holding data (JSON where the function
    parses JSON) -- without them it stops at the parser's usage error or
    reads nothing."""
    fn = v.node
    parses = reads = as_json = False
    positional: list = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute) and _dotted(n) == ["sys", "stdin"]:
            reads = True
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
            continue
        if n.func.attr in ("parse_args", "parse_known_args") and not n.args:
            parses = True
        elif n.func.attr in ("load", "loads") and _dotted(n.func.value) == ["json"]:
            as_json = True
        elif n.func.attr == "add_argument" and n.args:
            c = _const(n.args[0])
            if isinstance(c, str) and c and not c.startswith("-"):
                value = "a"
                for k in n.keywords:
                    if k.arg == "choices":
                        got = _const(k.value)
                        if isinstance(got, (list, tuple)) and got:
                            value = str(got[0])
                positional.append(value)
    if not (parses or reads):
        return []
    stmts = ["import sys", "import io"]
    if parses:
        stmts.append(f"sys.argv = {['prog'] + positional!r}")
    if reads:
        stmts.append(f"sys.stdin = io.StringIO({_STDIN_JSON if as_json else _STDIN_TEXT!r})")
    return [("RAW", stmts, False, [])]


#: calls that make a number whole (``int(x)``, ``math.floor(x)``)
WHOLE_CALLS = frozenset({"int", "round", "floor", "ceil", "trunc"})


def called_name(call) -> str:
    """The name a call's callee goes by: ``f`` for ``f(x)`` and ``m.f(x)``."""
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _rounding_hints(changed: list, scope: _Scope) -> list:
    """Parameters the changed lines make whole (``int(value)``,
    ``math.floor(x / 2)``'s ``x`` aside: the argument itself): numbers with
    a fraction, .5 included (``round`` and ``int`` part there)."""
    out = []
    for s in changed:
        for n in ast.walk(s):
            if not isinstance(n, ast.Call) or not n.args or called_name(n) not in WHOLE_CALLS:
                continue
            p = scope.resolved(_dotted(n.args[0]))
            if p is not None and scope.settable(p):
                out.append((p, ["1.7", "2.5", "-1.5"], "value"))
    return out


#: the values an environment variable read on the changed lines is given: a
#: path, a list of two paths, a list of only separators, a blank
_ENV_VALUES = ("/tmp/lx-env", f"/tmp/lx-env-a{os.pathsep}/tmp/lx-env-b", os.pathsep, " ")


def _environ_name(n, scope: _Scope) -> Optional[str]:
    """The variable ``os.environ.get(K)``, ``os.environ[K]``, ``os.getenv(K)``
    or ``K in os.environ`` reads (``os`` imported by the module, ``K`` a
    text or a name bound to one), else None."""
    def environ(e) -> bool:
        d = _dotted(e)
        return d == ["os", "environ"] and "os" in scope.imports or \
            d == ["environ"] and "from os import" in scope.imports.get("environ", "")

    key = None
    if isinstance(n, ast.Call) and n.args:
        f = n.func
        if isinstance(f, ast.Attribute) and f.attr == "get" and environ(f.value) or \
                _dotted(f) == ["os", "getenv"] and "os" in scope.imports or \
                _dotted(f) == ["getenv"] and \
                "from os import" in scope.imports.get("getenv", ""):
            key = n.args[0]
    elif isinstance(n, ast.Subscript) and environ(n.value):
        key = n.slice
    elif isinstance(n, ast.Compare) and len(n.ops) == 1 and \
            isinstance(n.ops[0], (ast.In, ast.NotIn)) and environ(n.comparators[0]):
        key = n.left
    if key is None:
        return None
    k = _const(key)
    if k is _NO and isinstance(key, ast.Name):
        k = scope.constants.get(key.id, _NO)
    return k if isinstance(k, str) and k else None


def _environ_hints(changed: list, guards: list, scope: _Scope) -> list:
    """An environment variable the changed lines or their guards read
    (``os.environ.get("XDG_DATA_DIRS", "").strip()``): set, before the
    call, to a path, two paths joined by ``os.pathsep``, a separator alone
    and a blank -- the run's own environment seldom holds it, and an edit
    there is about what it holds.  RAW hints."""
    names: list = []
    for part in list(changed) + [h for g in guards for h in _headers(g)]:
        for n in ast.walk(part):
            k = _environ_name(n, scope)
            if k is not None and k not in names:
                names.append(k)
    return [("RAW", [f"__import__('os').environ[{k!r}] = {val!r}"], False, [])
            for k in names[:3] for val in _ENV_VALUES]


#: str methods that take characters off a text's ends: the end each looks at
_STRIPS = {"lstrip": "head", "removeprefix": "head", "rstrip": "tail",
           "removesuffix": "tail", "strip": "both"}


#: values of other kinds than a conversion makes, for a subject the edit
#: converts in one version and reads as it is in the other
_UNCONVERTED = {
    "bool": ["1", "0", "'a'", "''", "[1]", "None"],
    "int": ["1.5", "'1'", "True"],
    "float": ["1", "'1.5'", "True"],
    "str": ["1", "b'a'", "None"],
    "list": ["(1, 2)", "'ab'", "iter([1, 2])"],
    "tuple": ["[1, 2]", "'ab'", "iter([1, 2])"],
}


def _conversion_hints(old, new, ch_old: set, ch_new: set, scope: _Scope) -> list:
    """A parameter (or attribute of ``self``) that one version's changed
    lines convert (``return bool(is_private)``) and the other's read as it
    is (``return is_private``): values of other kinds than the conversion
    makes (``1``, ``'a'``, ``None`` for ``bool``), on which the two part;
    values of its own kind (what inputs are usually given) pass the
    conversion unchanged."""
    def reads(v, lines) -> tuple:
        conv, bare = {}, set()
        for st in _changed_nodes(v, lines)[0]:
            inner = set()
            for n in ast.walk(st):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                        n.func.id in _UNCONVERTED and len(n.args) == 1 and not n.keywords:
                    p = _dotted(n.args[0])
                    if p is not None and all(isinstance(x, str) for x in p):
                        conv.setdefault(tuple(p), n.func.id)
                        inner.add(id(n.args[0]))
                elif isinstance(n, (ast.If, ast.While, ast.IfExp, ast.Assert)) or \
                        isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
                    # (a test, ``not x``, ``if x and y:``, converts x to a
                    # bool as ``bool(x)`` does: no read as it is)
                    tests = [n.operand if isinstance(n, ast.UnaryOp) else n.test]
                    while tests:
                        t = tests.pop()
                        if isinstance(t, ast.BoolOp):
                            tests.extend(t.values)
                        elif isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
                            tests.append(t.operand)
                        else:
                            inner.add(id(t))
            for n in ast.walk(st):
                if isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in inner and \
                        isinstance(getattr(n, "ctx", None), ast.Load):
                    p = _dotted(n)
                    if p is not None and all(isinstance(x, str) for x in p):
                        bare.add(tuple(p))
        return conv, bare
    (co, bo), (cn, bn) = reads(old, ch_old), reads(new, ch_new)
    out = []
    for conv, bare in ((co, bn), (cn, bo)):
        for p, kind in conv.items():
            if p in bare:
                q = scope.resolved(list(p))
                if q is not None and (q[0] in scope.params or q[0] == "self") and \
                        scope.settable(q):
                    out.append((q, list(_UNCONVERTED[kind]), False))
    return out


#: a stream's methods that give its text
_READS = frozenset(("read", "readline", "getvalue"))


def _stripped_hints(v, changed: list, scope: _Scope) -> list:
    """What the changed lines take off a text's ends (``part.lstrip('0')``,
    ``name.removesuffix('.py')``): a parameter stripped there a text that
    starts (or ends) with it; and where the stripped text comes out of a
    parameter matched against a compiled pattern (``base_re.match(
    version_string)``, then ``version.split('.')``), the texts that
    pattern matches with what is stripped put at the start of a part of
    them (``'01.1.1'``, ``'1.01.1'``) where the pattern still takes it --
    texts of one character class (``\\d+`` gives ``1``) never carry the
    leading zero an edit strips."""
    out: list = []
    cut: list = []          # (text taken off, which end)
    for s in changed:
        for n in ast.walk(s):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                    n.func.attr in _STRIPS and len(n.args) <= 1 and not n.keywords):
                continue
            # (``strip()``: whitespace, for the parameter itself only)
            c = _const(n.args[0]) if n.args else \
                (" " if not n.func.attr.startswith("remove") else None)
            if not isinstance(c, str) or not c:
                continue
            end = _STRIPS[n.func.attr]
            # (a set of characters for the strip family: its first one)
            t = c if n.func.attr.startswith("remove") else c[0]
            if n.args:
                cut.append((t, end))
            e = n.func.value
            while isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                    e.func.attr in _STRIPS:     # (``tag.strip().removeprefix("v")``)
                e = e.func.value
            vals = {"head": [f"{t}1"], "tail": [f"1{t}"], "both": [f"{t}1{t}"]}[end]
            reader = isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                e.func.attr in _READS and not e.args and not e.keywords
            p = scope.resolved(_dotted(e.func.value if reader else e))
            if p is not None and p[0] in scope.params and scope.settable(p):
                # (a stream the text is read from: one holding that text,
                # ``stream.read().removeprefix("\ufeff")``)
                out.append((p, [f"__import__('io').StringIO({x!r})" if reader else repr(x)
                                for x in vals], False))
    if not cut:
        return out
    for n in ast.walk(v.node):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                n.func.attr in ("match", "fullmatch", "search") and n.args):
            continue
        matched = _pattern_call(n, scope)
        if matched is None:
            continue
        (text, flags), subject = matched
        p = scope.resolved(_dotted(subject))
        if p is None or p[0] not in scope.params or not scope.settable(p):
            continue
        try:
            rx = re.compile(text, flags)
        except (re.error, TypeError, ValueError):
            continue
        found: list = []
        for base in _pattern_texts(text, flags, n.func.attr)[:2]:
            for t, end in cut:
                for i in range(len(base) + 1):
                    head = i == 0 or not base[i - 1].isalnum()
                    tail = i == len(base) or not base[i].isalnum()
                    if not (head if end == "head" else tail if end == "tail" else head or tail):
                        continue
                    x = base[:i] + t + base[i:]
                    m = getattr(rx, n.func.attr)(x)
                    if m is not None and m.start() <= i and m.end() >= i + len(t) and \
                            x not in found:
                        found.append(x)
        if found:
            out.append((p, [repr(x) for x in found[:3]], False))
    return out


#: the float a division makes 0 (the smallest subnormal over 2.0) and the
#: one it makes infinite (the largest finite over 0.5)
_TINY, _HUGE = "5e-324", "1.7976931348623157e+308"


def _extreme_hints(changed: list, scope: _Scope) -> list:
    """A division in the changed lines whose dividend an input can set
    (``math.log(self.max / self.multiplier)``): the dividend the smallest
    subnormal float with the divisor 2.0, where the quotient underflows to
    0, and the largest float with the divisor 0.5, where it overflows to
    infinity -- what a rewrite of the division into another order of
    operations (``log(a) - log(b)``) answers differently.  RAW hints: the
    two subjects set at once."""
    out: list = []
    for s in changed:
        for n in ast.walk(s):
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv))):
                continue
            # (not a path joined with a text: ``root / "setup.cfg"``)
            if isinstance(n.right, ast.Constant) and not isinstance(n.right.value, (int, float)):
                continue
            a, b = _dotted(n.left), _dotted(n.right)
            if a is None or not scope.settable(a) or a[0] in scope.locals:
                continue
            b = b if b is not None and b != a and scope.settable(b) else None
            paths = [a] + ([b] if b else [])
            names = list(dict.fromkeys(p[0] for p in paths if p[0] in scope.params))
            names += _given_attrs(paths)
            for top, under in ((_TINY, "2.0"), (_HUGE, "0.5")):
                stmts = _assign(a, top, scope) + (_assign(b, under, scope) if b else [])
                out.append(("RAW", stmts, False, names))
    return out


_SCALE = (ast.Div, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow)


def _number_constants(fn) -> list:
    """The function's numeric constants from 10 to 10**6 (``10 ** 3``
    evaluated), as they first appear: the bases and limits its arithmetic
    works with."""
    out: list = []
    for n in ast.walk(fn):
        c = _NO
        if isinstance(n, ast.Constant) and type(n.value) in (int, float):
            c = n.value
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow):
            a, b = _const(n.left), _const(n.right)
            if type(a) is int and type(b) is int and 0 < a <= 1024 and 0 <= b <= 6:
                c = a ** b
        if c is not _NO and 10 <= abs(c) <= 10 ** 6 and c not in out:
            out.append(c)
    return out


def _module_numbers(module, names: set) -> list:
    """The numbers the module binds the given names to at its top level: a
    list or tuple of constant expressions, or a comprehension of one over a
    literal tuple (``powers = [10**x for x in (3, 6, 9)]``)."""
    out: list = []
    for s in getattr(module, "body", []):
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and
                isinstance(s.targets[0], ast.Name) and s.targets[0].id in names):
            continue
        e = s.value
        if isinstance(e, (ast.List, ast.Tuple)):
            out += [c for c in (_number_of(x) for x in e.elts) if c is not _NO]
        elif isinstance(e, (ast.ListComp, ast.GeneratorExp)) and len(e.generators) == 1:
            g = e.generators[0]
            if g.ifs or not isinstance(g.target, ast.Name) or \
                    not isinstance(g.iter, (ast.Tuple, ast.List)):
                continue
            for x in g.iter.elts:
                k = _number_of(x)
                if k is _NO:
                    continue
                # the element with the loop variable's value in its place
                c = _number_of(_substitute(e.elt, {g.target.id: ast.Constant(k)}))
                if c is not _NO:
                    out.append(c)
    return out


def _computed_from(fn, scope: _Scope) -> dict:
    """local -> the parameters it is computed from by arithmetic,
    formatting and conversions (``chopped = value / power``,
    ``rounded = float(fmt % chopped)``: ``value``); not parameters whose
    default is a string (a format is no number)."""
    defaults = _param_defaults(fn)
    numbers = {p for p in scope.params
               if p not in defaults or not isinstance(_const(defaults[p]), (str, bytes))}
    flows: dict = {}
    assigns = [(s.targets[0].id, s.value) for s in ast.walk(fn)
               if isinstance(s, ast.Assign) and len(s.targets) == 1 and
               isinstance(s.targets[0], ast.Name)]
    for _ in range(3):
        for name, e in assigns:
            if not all(isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Name, ast.Constant,
                                      ast.Call, ast.operator, ast.unaryop, ast.expr_context))
                       for n in ast.walk(e)):
                continue
            if any(isinstance(n, ast.Call) and (not isinstance(n.func, ast.Name) or
                                                n.func.id not in _CONVERSIONS)
                   for n in ast.walk(e)):
                continue
            got = set()
            for n in ast.walk(e):
                if isinstance(n, ast.Name) and not (isinstance(n.ctx, ast.Load) and
                                                    n.id in _CONVERSIONS):
                    got |= {n.id} & numbers if n.id in scope.params else flows.get(n.id, set())
            if got and name not in scope.params:
                flows[name] = flows.get(name, set()) | got
    return flows


def _carry_hints(changed: list, scope: _Scope, fn, module=None) -> list:
    """Numbers just under a power of the function's constants (999999 and
    999.96 for 1000) for the parameters the changed lines compute with:
    where rounding carries a digit over (999.96 shows as ``1000``), the
    boundary edits to formatting code are about."""
    # the constants the changed lines compare with first, then theirs, then
    # the rest of the function's
    consts: list = []
    # (the module's numbers under names the changed lines read: ``powers[i]``)
    read = {n.id for s in changed for n in ast.walk(s)
            if isinstance(n, ast.Name) and n.id not in scope.params and n.id not in scope.locals}
    for group in ([c for s in changed for n in ast.walk(s) if isinstance(n, ast.Compare)
                   for c in _number_constants(n)],
                  [c for s in changed for c in _number_constants(s)],
                  _number_constants(fn),
                  [c for c in _module_numbers(module, read)
                   if type(c) is int and 10 <= abs(c) <= 10 ** 6]):
        consts += [c for c in group if c not in consts]
    if not consts:
        return []
    numeric: set = set()
    computed = _computed_from(fn, scope)
    for s in changed:
        for n in ast.walk(s):
            ops = []
            # scaled or compared (``x / base``, ``x >= limit``), not a count
            # moved by one (``precision - 1``); ``fmt % (x / y)``: the format
            # is no number
            if isinstance(n, ast.BinOp) and isinstance(n.op, _SCALE):
                ops = [n.right] if isinstance(n.op, ast.Mod) else [n.left, n.right]
            elif isinstance(n, ast.AugAssign) and isinstance(n.op, _SCALE):
                ops = [n.target, n.value]
            elif isinstance(n, ast.Compare):
                ops = [n.left] + list(n.comparators)
            elif isinstance(n, ast.Call) and n.args and called_name(n) in \
                    ("float", "int", "abs", "round", "log", "log10", "format"):
                ops = list(n.args)
            for e in ops:
                p = _dotted(e)
                if p is not None and len(p) == 1:
                    p = scope.resolved(p)
                    if p[0] in scope.params and len(p) == 1:
                        numeric.add(p[0])
                    else:
                        numeric |= computed.get(p[0], set())
    vals: list = []
    for c in consts[:2]:
        for x in (c - 0.04, c * c - 1):
            if x not in vals:
                vals.append(x)
    return [([p], [repr(x) for x in vals], "value") for p in sorted(numeric)]


def _range_hints(guards: list, scope: _Scope) -> list:
    """Numbers for a parameter that bounds a loop guarding the changed lines
    (``for b in range(1, n - 2)``): the loop runs once, a few times and ten
    times -- a value of the parameter's own comparisons rarely gets past
    such a bound (``n`` of 1 or 2 runs no pass at all)."""
    out = []
    for g in guards:
        it = g.iter if isinstance(g, ast.For) else None
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                it.func.id == "range" and 1 <= len(it.args) <= 3 and not it.keywords):
            continue
        start = _number_of(it.args[0]) if len(it.args) >= 2 else 0
        stop = it.args[1] if len(it.args) >= 2 else it.args[0]
        if start is _NO or not isinstance(start, int):
            continue
        shift = 0               # stop = p + shift
        if isinstance(stop, ast.BinOp) and isinstance(stop.op, (ast.Add, ast.Sub)):
            k = _number_of(stop.right)
            if not isinstance(k, int) or isinstance(k, bool):
                continue
            shift, stop = (k if isinstance(stop.op, ast.Add) else -k), stop.left
        p = _dotted(stop)
        if p is None or len(p) != 1:
            continue
        p = scope.resolved(p)
        if len(p) == 1 and p[0] in scope.params:
            out.append(([p[0]], [repr(start - shift + m) for m in (1, 3, 10)], "value"))
    return out


#: calls that read the clock (``date.today()``, ``datetime.now(tz)``)
_CLOCK_CALLS = frozenset({"now", "today", "utcnow"})
#: the units a compared ``timedelta`` part counts in
_DELTA_UNITS = {"days": "days", "seconds": "seconds", "total_seconds": "seconds",
                "microseconds": "microseconds"}


def _clock_hints(v, changed: list, guards: list, scope: _Scope) -> list:
    """Moments as far from the (frozen) clock as the changed lines' limits:
    where the function takes the clock from a parameter (``value -
    date.today()``, ``now - when``) and the changed lines or their guards
    compare with numbers (``delta.days >= 5 * 365 / 12``), the parameter
    gets the clock's moment moved by each number (and one more), forward
    and back.  The moments are written relative to the clock and computed
    when the input runs, under the frozen clock every run sees."""
    fn = v.node

    def clock(e) -> Optional[str]:
        # the kind of moment a clock call gives: ``date`` or ``datetime``
        if isinstance(e, ast.Call) and called_name(e) in _CLOCK_CALLS:
            text = ast.unparse(e.func)
            return "date" if called_name(e) == "today" and "datetime" not in text else \
                "datetime"
        return None
    clocks = {}                 # locals bound to the clock: ``now = datetime.now()``
    for s in ast.walk(fn):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name) and (kind := clock(s.value)):
            clocks[s.targets[0].id] = kind
    subjects: dict = {}         # parameter -> the kind of moment
    for n in ast.walk(fn):
        if not isinstance(n, ast.BinOp) or not isinstance(n.op, ast.Sub):
            continue
        for a, b in ((n.left, n.right), (n.right, n.left)):
            kind = clock(a) or (clocks.get(a.id) if isinstance(a, ast.Name) else None)
            p = _dotted(b)
            if kind and p is not None and len(p) == 1:
                p = scope.resolved(p)
                if len(p) == 1 and p[0] in scope.params:
                    subjects.setdefault(p[0], kind)
    if not subjects:
        return []
    limits: list = []           # (number, unit)
    for s in list(changed) + [h for g in guards for h in _headers(g)]:
        for n in ast.walk(s):
            if not isinstance(n, ast.Compare):
                continue
            sides = [n.left] + list(n.comparators)
            unit = "days"
            for e in sides:
                e = e.func if isinstance(e, ast.Call) else e
                if isinstance(e, ast.Attribute) and e.attr in _DELTA_UNITS:
                    unit = _DELTA_UNITS[e.attr]
            for e in sides:
                c = _number_of(e)
                if c is _NO and isinstance(e, ast.Name):
                    c = scope.constants.get(e.id, _NO)
                if c is not _NO and not isinstance(c, bool) and abs(c) < 10 ** 7 and \
                        (c, unit) not in limits:
                    limits.append((c, unit))
    out = []
    for p, kind in sorted(subjects.items()):
        vals: list = []
        for c, unit in limits[:4]:
            whole = math.floor(c)
            for k in (whole, whole + 1, -whole, -(whole + 1)):
                x = (f"__import__('datetime').{kind}.{'today' if kind == 'date' else 'now'}()"
                     f" + __import__('datetime').timedelta({unit}={k})")
                if x not in vals:
                    vals.append(x)
        if vals:
            out.append(([p], vals[:12], "value"))
    return out


def _class_report_hints(changed: list, scope: _Scope) -> list:
    """``type(s) is str`` or ``s.__class__ is str`` on a changed line: the
    two differ only for an object that reports a class it is not of (a
    proxy: ``__class__`` a property), so one such object, whose text is
    markup, for the parameter.  It reports the class compared with only
    where that is a class (a proxy stands in for an object of one);
    ``s.__class__ is Union`` holds for no object at all (typing's ``Union``
    is no class), and there the proxy reports its own."""
    out = []
    for st in changed:
        for n in ast.walk(st):
            if not isinstance(n, ast.Compare) or len(n.comparators) != 1:
                continue
            e, k = n.left, n.comparators[0]
            if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                    e.func.id == "type" and len(e.args) == 1:
                e = e.args[0]
            elif isinstance(e, ast.Attribute) and e.attr == "__class__":
                e = e.value
            else:
                continue
            if isinstance(e, ast.Name) and e.id in scope.params and e.id != "self" and \
                    isinstance(k, (ast.Name, ast.Attribute)):
                cls = ast.unparse(k)
                out.append(([e.id], [
                    "type('_LxProxy', (), {'__class__': property(lambda self: "
                    f"{cls} if isinstance({cls}, __import__('builtins').type) else "
                    "__import__('builtins').type(self)), "
                    f"'__str__': lambda self: '<a&b>'}})()"], False))
    return out


def _store_hints(fn, changed: list, scope: _Scope) -> list:
    """``self.dump_funcs[k] = f`` on a changed line, the attribute set
    nowhere in the function: an empty dict for it, so that what the
    versions write into it shows in the object after the call (a made-up
    value keeps no entries)."""
    out, seen = [], set()
    set_here = {ast.unparse(t) for n in ast.walk(fn)
                for t in (n.targets if isinstance(n, ast.Assign) else
                          [n.target] if isinstance(n, (ast.AnnAssign, ast.AugAssign)) else [])
                if isinstance(t, ast.Attribute)}
    for st in changed:
        for n in ast.walk(st):
            targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else \
                [n.target] if isinstance(n, ast.AugAssign) else []
            for t in targets:
                if not isinstance(t, ast.Subscript) or not isinstance(t.value, ast.Attribute):
                    continue
                p = _dotted(t.value)
                if p is None or len(p) != 2 or p[0] not in scope.params or \
                        not all(isinstance(x, str) for x in p):
                    continue
                if ast.unparse(t.value) in set_here or tuple(p) in seen:
                    continue
                seen.add(tuple(p))
                out.append((p, ["{}"], False))
    return out


def _parametrize_hints(v) -> list:
    """A test's ``@pytest.mark.parametrize("n", LENS)`` values (a literal
    list, or a module constant's): the values its runner passes, in each
    version (an edit of the constant is what such a test shows)."""
    consts = dict(regexdiff.assignments(v.module.body))
    out = []
    for d in getattr(v.node, "decorator_list", []):
        if not (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and
                d.func.attr == "parametrize" and len(d.args) >= 2):
            continue
        names = d.args[0]
        if isinstance(names, ast.Constant) and isinstance(names.value, str):
            names = [x.strip() for x in names.value.split(",") if x.strip()]
        elif isinstance(names, (ast.List, ast.Tuple)) and all(
                isinstance(x, ast.Constant) and isinstance(x.value, str) for x in names.elts):
            names = [x.value for x in names.elts]
        else:
            continue
        values = d.args[1]
        for _ in range(3):
            if isinstance(values, ast.Name) and values.id in consts:
                values = consts[values.id]
        if not isinstance(values, (ast.List, ast.Tuple)):
            continue
        per = {n: [] for n in names}
        for el in values.elts[:8]:
            if len(names) == 1:
                parts = [el]
            elif isinstance(el, (ast.Tuple, ast.List)) and len(el.elts) == len(names):
                parts = el.elts
            else:
                continue
            for n, part in zip(names, parts):
                src = ast.unparse(part)
                if len(src) < 300 and src not in per[n]:
                    per[n].append(src)
        out.extend(([n], vals, "value") for n, vals in per.items() if vals)
    return out


_MATCH_METHODS = {"group", "groups", "groupdict", "start", "end", "span", "expand"}


def _regex_hints(old, new, scopes: dict) -> list:
    """Texts the two versions' patterns treat differently (regexdiff), for
    the parameter (or ``self``, a ``str`` subclass's) each pattern is
    applied to; and for a parameter that is a match object (``m.groups()``)
    a match of a pattern the edit changed, on such a text.  ``scopes``:
    id(version) -> its :class:`_Scope`."""
    out: list = []
    s_old, s_new = scopes[id(old)], scopes[id(new)]
    used_o, on_o = regexdiff.pattern_uses(old.node, old.module, set(s_old.params))
    used_n, on_n = regexdiff.pattern_uses(new.node, new.module, set(s_new.params))
    for p in list(dict.fromkeys(list(on_n) + list(on_o))):
        a, b = on_o.get(p, used_o), on_n.get(p, used_n)
        texts = regexdiff.telling_texts(a, b)
        if texts:
            v = new if p in s_new.params else old
            out.append((([p], [repr(t) for t in texts], False), v))
    changed = regexdiff.changed_patterns(old.module, new.module)
    if not changed:
        return out
    words = set(re.split(r"_+", new.name.lower())) - {""}
    changed.sort(key=lambda c: -len(words & set(re.split(r"_+", c[0].lower()))))
    for p in s_new.params:
        if p in on_n or p in on_o:
            continue
        if not any(isinstance(n, ast.Attribute) and n.attr in _MATCH_METHODS and
                   isinstance(n.value, ast.Name) and n.value.id == p
                   for n in ast.walk(new.node)):
            continue
        vals = []
        for _name, po, pn in changed[:2]:
            for t in regexdiff.telling_texts([po], [pn]):
                for text, flags in (pn, po):
                    try:
                        if re.compile(text, flags).match(t):
                            vals.append(f"__import__('re').compile({text!r}, {flags})"
                                        f".match({t!r})")
                            break
                    except (re.error, TypeError, ValueError):
                        break
        if vals:
            out.append((([p], vals[:4], False), new))
    return out


def _span_hints(v, scope: _Scope) -> list:
    """A text and the two positions bounding where the function reads it
    (``while pos < max_pos: line = _get_line(src, pos, max_pos)``), set
    together: the text one the function's own patterns match (each member
    of a set in turn: ``^:[ \\t]+`` gives ``':\\t'``), the first position 0
    and the last the text's length.  Made up one by one, the two positions
    are rarely in order and inside the text, and the loop never runs."""
    fn = v.node
    params = [p for p in scope.params if p not in ("self", "cls")]
    pairs = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and \
                isinstance(n.left, ast.Name) and isinstance(n.comparators[0], ast.Name):
            a, b = n.left.id, n.comparators[0].id
            if a in params and b in params and a != b:
                if isinstance(n.ops[0], (ast.Lt, ast.LtE)):
                    pairs.append((a, b))
                elif isinstance(n.ops[0], (ast.Gt, ast.GtE)):
                    pairs.append((b, a))
    if not pairs:
        return []
    lo, hi = pairs[0]
    text = None
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and \
                n.value.id in params and n.value.id not in (lo, hi) and \
                {x.id for x in ast.walk(n.slice) if isinstance(x, ast.Name)} & {lo, hi}:
            text = n.value.id
        elif isinstance(n, ast.Call):
            names = [a.id for a in n.args if isinstance(a, ast.Name)]
            others = [a for a in names if a in params and a not in (lo, hi)]
            if others and (lo in names or hi in names):
                text = others[0]
        if text is not None:
            break
    if text is None:
        return []
    texts: list = []
    used, _on = regexdiff.pattern_uses(fn, v.module, set(params))
    for pat, flags in list(dict.fromkeys(used))[:3]:
        for t in regexdiff.member_samples(pat, flags, 3):
            for full in (t + "x\n", t):
                if full and full not in texts:
                    texts.append(full)
    out = []
    for t in texts[:6]:
        stmts = [f"{text} = {t!r}", f"{lo} = 0", f"{hi} = {len(t)}"]
        out.append(("RAW", stmts, False, [text, lo, hi]))
    return out


#: the values the first parameter looked up in a dict of the object takes, in
#: turn, the others ones of the same kind (a NaN is found as a key only as the
#: very object stored: ``nan == nan`` is False)
_LOOKUP_VALUES = ("'a'", "float('nan')", "1")


def _lookup_hints(v, first_changed: int, scope: _Scope) -> list:
    """The dicts of ``self`` (or of a parameter) that the function looks a
    parameter up in before the changed lines (``oldval = fwdm.get(key,
    MISSING)``, ``fwdm = self._fwdm``; ``if key in self._cache``) made to
    hold it, every such lookup at once: the value the entry holds is the
    other parameter looked up (a two-way map's ``{key: val}`` and ``{val:
    key}``), else a text.  Made up one at a time, the object's dicts are
    empty or made-up, and the branch for a key that is there never runs."""
    fn = v.node
    params = [p for p in scope.params if p not in ("self", "cls")]
    roots = set(scope.params)
    stores = scope.stores
    alias: dict = {}
    for st in ast.walk(fn):
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            t, e = st.targets[0], st.value
            pairs = [(t, e)] if isinstance(t, ast.Name) else \
                list(zip(t.elts, e.elts)) if isinstance(t, ast.Tuple) and \
                isinstance(e, ast.Tuple) and len(t.elts) == len(e.elts) else []
            for a, b in pairs:
                p = _dotted(b)
                if isinstance(a, ast.Name) and stores.get(a.id) == 1 and p is not None and \
                        len(p) >= 2 and p[0] in roots:
                    alias[a.id] = list(p)

    def path_of(e):
        p = _dotted(e)
        if p is None:
            return None
        if p[0] in alias:
            p = alias[p[0]] + list(p[1:])
        return list(p) if len(p) >= 2 and p[0] in roots and \
            all(isinstance(x, str) for x in p) else None
    found: dict = {}            # dict path -> [keys looked up]
    for n in ast.walk(fn):
        if getattr(n, "lineno", first_changed) >= first_changed:
            continue
        d = key = None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in ("get", "pop", "setdefault") and n.args and \
                isinstance(n.args[0], ast.Name):
            d, key = n.func.value, n.args[0].id
        elif isinstance(n, ast.Compare) and len(n.ops) == 1 and \
                isinstance(n.ops[0], (ast.In, ast.NotIn)) and isinstance(n.left, ast.Name):
            d, key = n.comparators[0], n.left.id
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and \
                isinstance(n.slice, ast.Name):
            d, key = n.value, n.slice.id
        if key not in params:
            continue
        p = path_of(d)
        if p is not None and key not in found.setdefault(tuple(p), []):
            found[tuple(p)].append(key)
    if not found:
        return []
    keys = list(dict.fromkeys(k for ks in found.values() for k in ks))

    def kin(val: str, i: int) -> str:
        # the i-th key: the value itself first, the others other objects of
        # its kind (each NaN is one of its own)
        if i == 0 or val.startswith("float"):
            return val
        return str(i + 1) if val == "1" else repr(f"b{i}")

    # the dicts whose entries the function orders or computes with
    # (``self.__size[key] < size``, ``size - self.__size[key]``): numbers
    counted = set()
    for n in ast.walk(fn):
        parts = [n.left] + n.comparators if isinstance(n, ast.Compare) and all(
            isinstance(o, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for o in n.ops) else \
            [n.left, n.right] if isinstance(n, ast.BinOp) and \
            isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv)) else \
            [n.value] if isinstance(n, ast.AugAssign) and \
            isinstance(n.op, (ast.Add, ast.Sub)) else []
        for x in parts:
            if isinstance(x, ast.Subscript) and path_of(x.value) is not None:
                counted.add(tuple(path_of(x.value)))

    def entry(k: str, path) -> str:
        # what the dict holds at ``k``: a number where it is counted, the
        # other key of two, else a text
        if path in counted:
            return "1"
        return next(o for o in keys if o != k) if len(keys) == 2 else repr("x")
    out = []
    for val in _LOOKUP_VALUES:
        stmts = [f"{k} = {kin(val, i)}" for i, k in enumerate(keys)]
        for path, ks in found.items():
            items = ", ".join(f"{k}: {entry(k, path)}" for k in ks)
            stmts += _assign(list(path), "{" + items + "}", scope)
        names = keys + [p[0] for p in found if p[0] in scope.params and p[0] != "self"] + \
            _given_attrs([list(p) for p in found])
        out.append(("RAW", stmts, False, list(dict.fromkeys(names))))
    return out


def _patched_methods(patch: str) -> list:
    """``self.name`` for each method of ``self`` a patch makes raise
    (``self._add_to_criteria = _lx_raise``): the run keeps it where the
    class defines that method (funcrun keeps the class's own functions
    over what an input sets, but for what it gives)."""
    return re.findall(r"^(self\.\w+) = _lx_raise$", patch, re.M)


def _given_attrs(paths) -> list:
    """``self.name`` for each subject that is an attribute of ``self``, or
    an item or attribute of one (``self._info['id']``): the run keeps the
    value the input aims at there even where the class holds one of its own
    (``document_class = Document``, a ``cached_property``; funcrun)."""
    return list(dict.fromkeys(f"self.{p[1]}" for p in paths if len(p) >= 2 and
                              p[0] == "self" and isinstance(p[1], str)))


def _exits(st) -> bool:
    """Whether a block's last statement leaves it (``return``, ``raise``,
    ``continue``, ``break``)."""
    return bool(st) and isinstance(st[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))


def _answers(test, want: Optional[bool]) -> list:
    """(call, the answer it should give) for the calls whose truth a test
    reads directly (``f(x)``, ``not f(x)``, the parts of ``and``/``or``);
    ``want``: the truth the test should have (None: not known, both)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _answers(test.operand, None if want is None else not want)
    if isinstance(test, ast.BoolOp):
        # every part true makes ``and`` true; every part false, ``or`` false
        whole = isinstance(test.op, ast.And) == bool(want)
        return [x for part in test.values
                for x in _answers(part, want if want is not None and whole else None)]
    if isinstance(test, ast.Call):
        return [(test, want)]
    return []


class _NoneTest:
    """A test that a call's result, bound to a local, is None: the callee's
    name (``NAME`` or ``NAME.attr``, a module's) and the call."""

    def __init__(self, name: str, call, lineno: int):
        self.name, self.call, self.lineno = name, call, lineno


def _none_tests(test, want, v, scope: _Scope) -> list:
    """The :class:`_NoneTest` of a test (``m is None``, ``m is not None``,
    ``not m``, ``m``, in ``and``/``or`` too) that wants ``m`` None, ``m``
    bound once (``m = PATTERN.match(s)``, annotated or not) to a call of a
    module's function or of a method of a module's object, not a
    parameter's, a local's, a builtin's or an imported module's."""
    import builtins
    if want is None:
        return []
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _none_tests(test.operand, not want, v, scope)
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And) != bool(want):
            return []           # (one part alone decides: not known which)
        return [x for p in test.values for x in _none_tests(p, want, v, scope)]
    name = None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and \
            isinstance(test.ops[0], (ast.Is, ast.IsNot)) and \
            isinstance(test.left, ast.Name) and _const(test.comparators[0]) is None:
        if isinstance(test.ops[0], ast.Is) == bool(want):
            name = test.left.id
    elif isinstance(test, ast.Name) and not want:
        name = test.id
    if name is None or scope.stores.get(name) != 1 or name in scope.params:
        return []
    call = next((st.value for st in ast.walk(v.node)
                 if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None and
                 [t.id for t in (st.targets if isinstance(st, ast.Assign) else [st.target])
                  if isinstance(t, ast.Name)] == [name]), None)
    if not isinstance(call, ast.Call):
        return []
    p = _dotted(call.func)
    if p is None or not 1 <= len(p) <= 2 or not all(isinstance(x, str) for x in p):
        return []
    root = p[0]
    if root in scope.params or root in scope.locals or hasattr(builtins, root) or \
            root in scope.imports or root in ("self", "cls"):
        return []
    return [(_NoneTest(".".join(p), call, test.lineno), want)]


#: the functions of ``subprocess`` that run a command to its end, and what
#: each answers in an input that makes them succeed without running it
_PROCESS_ANSWERS = {"call": "0", "check_call": "0", "check_output": "b''",
                    "getoutput": "''", "getstatusoutput": "(0, '')",
                    "run": "__import__('subprocess').CompletedProcess([], 0, b'', b'')"}


def _process_statements(v, scope: _Scope) -> list:
    """Where the function runs a command (``check_call(['towncrier', ...])``,
    ``subprocess.run(...)``): the statements of an input in which each such
    ``subprocess`` function succeeds without running anything and answers
    an empty output -- its calls, with their arguments, are then what the
    two versions do.  A command here is not there (or is not this
    project's), and its failure ends every run before the changed lines.
    The module's ``from subprocess import ...`` names are bound again once
    the module ran; an output wanted as text (``text=True``) is ``''``."""
    modules = {n for n, st in scope.imports.items()
               if re.fullmatch(r"import subprocess( as \w+)?", st)}
    named = {}
    for n, st in scope.imports.items():
        m = re.fullmatch(r"from subprocess import (.+)", st)
        if m:
            for part in m.group(1).strip("()").split(","):
                name, _, alias = part.strip().partition(" as ")
                if (alias.strip() or name) == n and name in _PROCESS_ANSWERS:
                    named[n] = name
    used, text = [], False
    for n in ast.walk(v.node):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        name = named.get(f.id) if isinstance(f, ast.Name) else \
            f.attr if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
            f.value.id in modules and f.attr in _PROCESS_ANSWERS else None
        if name is None:
            continue
        used.append((f.id if isinstance(f, ast.Name) else None, name))
        text = text or any(k.arg in ("text", "universal_newlines", "encoding") and
                           _const(k.value) not in (False, None) for k in n.keywords)
    if not used:
        return []

    def answer(name):
        a = _PROCESS_ANSWERS[name]
        return a.replace("b''", "''") if text else a
    stmts = ["import subprocess as _lx_subprocess"] + [
        f"_lx_subprocess.{name} = {_ANSWER}({answer(name)})"
        for name in dict.fromkeys(name for _, name in used)]
    stmts += [after_module(local, f"{_ANSWER}({answer(name)})")
              for local, name in dict.fromkeys(used) if local is not None]
    return ["\n".join(stmts)]


def _predicate_hints(v, changed: list, guards: list, scope: _Scope) -> list:
    """The module's predicates that decide whether the changed lines run
    (``if not isatty(sys.stdin): return None`` before them, ``if
    is_windows():`` around them): each made to answer True, and False, once
    the module's own statements ran -- in a checkout the real one answers
    for this machine only (no terminal, not Windows).  A function of the
    module or one it imports by name, or a method of the function's own
    class (``self._closed()``); not a builtin, a parameter or a local.
    Returns (RAW hints, the answer the changed lines need first; the
    (statement, note) of the answers that are known to be needed)."""
    import builtins
    first = min((s.lineno for s in changed), default=None)
    tests: list = []           # (test, the truth that lets the changed lines run)
    for g in guards:
        if isinstance(g, (ast.If, ast.While)):
            inside = any(g.lineno < s.lineno <= (g.body[-1].end_lineno or 0) for s in changed)
            tests.append((g.test, True if inside else False if isinstance(g, ast.If) and
                          g.orelse else None))
    if first is not None:
        # an early exit before the changed lines, in a block that holds them
        for blk in [v.node] + [g for g in guards]:
            for body in (getattr(blk, "body", None), getattr(blk, "orelse", None)):
                if not isinstance(body, list):
                    continue
                for st in body:
                    if isinstance(st, ast.If) and (st.end_lineno or st.lineno) < first and \
                            _exits(st.body) and not st.orelse:
                        tests.append((st.test, False))
    cls = getattr(v, "cls", None)
    top_class = cls is not None and v.qualname.count(".") == 1
    out: list = []
    needed: list = []
    named: set = set()
    # a local bound once to a call whose result a test reads for None
    # (``vcs_match = VCS_REGEX.match(line)``, ``if vcs_match is not None``):
    # the callee made to answer None -- a made-up one never does
    tests = [(t, w) for test, want in tests for t, w in _none_tests(test, want, v, scope)] + \
        tests
    none_names: list = []
    # the tests nearest the changed lines first (the innermost guard, the
    # last early exit), the module's predicates of two of them at most
    tests.sort(key=lambda t: -t[0].lineno)
    for test, want in tests:
        if len(out) >= 4:
            break
        for call, need in (_answers(test, want) if not isinstance(test, _NoneTest)
                           else [(test.call, None)]):
            f = call.func
            if isinstance(test, _NoneTest):
                if test.name in named:
                    continue
                named.add(test.name)
                none_names.append(test.name)
                out.append(("RAW", [after_module(test.name, f"{_ANSWER}(None)")], False, []))
                needed.append((after_module(test.name, f"{_ANSWER}(None)"),
                               f"{test.name} answering None"))
                if len(none_names) == 2:
                    # (every such callee at once: ``if a is not None: ...
                    # elif b is not None: ... else: <changed>``)
                    out.insert(0, ("RAW", [after_module(n, f"{_ANSWER}(None)")
                                           for n in none_names], False, []))
                continue
            if isinstance(f, ast.Name) and f.id not in scope.params and \
                    f.id not in scope.locals and not hasattr(builtins, f.id):
                name = f.id
            elif top_class and isinstance(f, ast.Attribute) and \
                    isinstance(f.value, ast.Name) and f.value.id == "self" and \
                    scope.params[:1] == ["self"]:
                name = f"{cls.name}.{f.attr}"
            else:
                continue
            if name in named:
                continue
            named.add(name)
            order = [need] if need is not None else []
            order += [x for x in (True, False) if x not in order]
            for answer in order:
                out.append(("RAW", [after_module(name, f"{_ANSWER}({answer})")],
                            False, []))
            if need is not None:
                needed.append((after_module(name, f"{_ANSWER}({need})"),
                               f"{name} answering {need}"))
    return out, needed


def _switches(v) -> dict:
    """The parameters with a default of True or False that the test of an
    ``if`` whose branches call something reads (``if not _parsed:`` over
    ``name = bytesify(name)``): name -> the statement that gives it the
    other value.  Turned, the branch's calls (to helpers a module run alone
    makes up) are skipped, or made."""
    bools = {p: d.value for p, d in _param_defaults(v.node).items()
             if isinstance(d, ast.Constant) and isinstance(d.value, bool)}
    tested = set()
    for n in ast.walk(v.node):
        if not isinstance(n, ast.If) or not any(
                isinstance(c, ast.Call) for st in n.body + n.orelse for c in ast.walk(st)):
            continue
        t = n.test.operand if isinstance(n.test, ast.UnaryOp) and \
            isinstance(n.test.op, ast.Not) else n.test
        tests = t.values if isinstance(t, ast.BoolOp) else [t]
        tested.update(x.id for x in tests if isinstance(x, ast.Name))
    return {p: f"{p} = {not d}" for p, d in bools.items() if p in tested}


def aimed_inputs(old, new, ch_old: set, ch_new: set, base: str = "") -> list:
    """(prefix, note, names) triples aimed at the edit between two
    :class:`~lexecutor_c.apps.funcsource.Version` objects; ``ch_old`` /
    ``ch_new``: the changed statement lines (funcsource.changed_lines);
    ``base``: a prefix each one extends; ``names``: the parameters the
    prefix gives a value (passed by keyword where they have a default).

    Order: one subject at a time, those of the changed lines and of the
    statements guarding them first (patches that make an ``except`` run
    before them); then up to four inputs that set every such subject at
    once (the k-th value of each: ``factor == 1.0`` and ``count is None``
    together); then the subjects of the rest of the function."""
    near: list = []             # ((path, [values], edge), version): changed lines, guards
    rest: list = []             # the rest of the function
    handlers: list = []
    exits_passed: list = []     # (statements, shown, parameter): _early_exits passed
    extremes: list = []         # divisions' operands at the float's ends (_extreme_hints)
    scopes = {id(v): _Scope(v) for v in (old, new)}
    cli_of: dict = {}       # version -> its command-line hints
    predicates: list = []   # the answers of the module's predicates the edit needs
    answering: list = []    # inputs that make functions answer (_predicate_hints, _ANSWER)
    try:
        near.extend((h, new) for h in _default_hints(old, new))
    except Exception:
        pass
    try:
        near.extend(_regex_hints(old, new, scopes))
    except Exception:
        pass
    try:
        near.extend((h, new) for h in _span_hints(new, scopes[id(new)]))
    except Exception:
        pass
    for v in (new, old):
        try:
            near.extend((h, v) for h in _parametrize_hints(v))
        except Exception:
            pass
    for v, lines in ((new, ch_new), (old, ch_old)):
        try:
            scope = scopes[id(v)]
            changed, guards = _changed_nodes(v, lines)
            for s in changed:
                near.extend((h, v) for h in _hints(s, scope))
            for g in guards:
                for part in _headers(g):
                    near.extend((h, v) for h in _hints(part, scope))
            # the bounds of the changed lines and their guards together: a
            # value between ``-1.0 < x < 1.0`` in one ``elif`` and ``x < 0``
            # in the next (what each alone already gave is not repeated)
            near.extend((h, v) for h in _hints(
                _Nodes([p for g in guards for p in _headers(g)] + list(changed)), scope))
            for g in guards + changed:
                handlers.extend(_handler_hints(g, scope))
            # what passes the early exits before the changed lines (``if
            # self._states: raise RuntimeError(...)``), for the patches
            # below that make an ``except`` run
            passing = _holding_values(
                [e for t in _early_exits(v, sorted({s.lineno for s in changed}))
                 for e in _failing_parts(t)], _bound_once(v, scope), scope)
            if passing and not exits_passed:
                exits_passed.extend((_assign(list(p), x, scope), f"{'.'.join(p)} = {x}", p)
                                    for p, x in passing.items())
            near.extend((h, v) for h in _parameter_alternatives(
                v, changed + [p for g in guards for p in _headers(g)]))
            near.extend((h, v) for h in _class_report_hints(changed, scope))
            near.extend((h, v) for h in _callee_self_hints(v, changed, scope))
            near.extend((h, v) for h in _store_hints(v.node, changed, scope))
            near.extend((h, v) for h in _rounding_hints(changed, scope))
            near.extend((h, v) for h in _stripped_hints(v, changed, scope))
            if v is new:
                near.extend((h, v) for h in _conversion_hints(old, new, ch_old, ch_new, scope))
            near.extend((h, v) for h in _environ_hints(changed, guards, scope))
            extremes.extend((h, v) for h in _extreme_hints(changed, scope))
            near.extend((h, v) for h in _carry_hints(changed, scope, v.node, v.module))
            near.extend((h, v) for h in _clock_hints(v, changed, guards, scope))
            near.extend((h, v) for h in _range_hints(guards, scope))
            near.extend((h, v) for h in _conjunction_hints(v, changed, guards, scope))
            near.extend((h, v) for h in _operand_hints(v, changed, scope, guards))
            near.extend((h, v) for h in _piece_hints(v, changed, guards, scope))
            near.extend((h, v) for h in _tuple_key_hints(v, scope))
            for st in _process_statements(v, scope):
                near.append((("RAW", [st], False, []), v))
                predicates.append((st, "the commands it runs answering success"))
            got, needed = _predicate_hints(v, changed, guards, scope)
            answering.extend((h, v) for h in got)
            predicates.extend(needed)
            if lines:
                near.extend((h, v) for h in _lookup_hints(v, min(lines), scope))
            near.extend((h, v) for h in _name_hints(v))
            near.extend((h, v) for h in _file_hints(v, scope))
            cli_of[id(v)] = _cli_hints(v)
            near.extend((h, v) for h in cli_of[id(v)])
            rest.extend((h, v) for h in _callee_hints(v, scope))
            rest.extend((h, v) for h in _iterable_hints(v, changed))
            rest.extend((h, v) for h in _hints(v.node, scope))
        except Exception:        # an odd AST costs only these inputs
            continue
    # a function of an imported module made to answer the value the code
    # compares it with (``platform.system() == "Windows"``): with the
    # predicates, after every other aimed value
    for group in (near, rest):
        moved = [x for x in group if x[0][0] == "RAW" and len(x[0][1]) == 1 and
                 f" = {_ANSWER}(" in x[0][1][0] and AFTER_MODULE not in x[0][1][0]]
        for x in moved:
            group.remove(x)
            if x in answering:
                continue
            answering.append(x)
            # (after the import, which holds no "; ": the value may)
            fname, _, answer = x[0][1][0].partition("; ")[2].partition(f" = {_ANSWER}(")
            predicates.append((x[0][1][0], f"{fname} answering {answer[:-1]}"))
    params = set(scopes[id(old)].params) | set(scopes[id(new)].params)
    if base:
        base = _without_module_names(base, (scopes[id(old)].defined & scopes[id(new)].defined)
                                     - params)
    head = STAND_IN + ("\n" + base if base else "")
    # a command-line main's arguments and input: under every aimed input
    cli = [st for v in (new, old) for h in cli_of.get(id(v), ()) for st in h[1]]
    if cli:
        head += "\n" + "\n".join(dict.fromkeys(cli))
    seen: set = set()
    out: list = []

    def single(group) -> list:
        items = []
        for h, v in group:
            if h[0] == "RAW":        # statements made whole (_relative)
                key = repr(h[1])
                if key not in seen:
                    seen.add(key)
                    items.append((head + "\n" + "\n".join(x for x in h[1] if x not in cli),
                                  "aimed: " + "; ".join(h[1]), list(h[3])))
                continue
            path, vals, edge = h
            for val in vals:
                key = (repr(path), val)
                if key in seen:
                    continue
                seen.add(key)
                stmts = _assign(path, val, scopes[id(v)])
                shown = ".".join(p if isinstance(p, str) else f"[{p[1]!r}]" for p in path)
                label = {True: " (edge)", "value": " (value)"}.get(edge, "")
                items.append((head + "\n" + "\n".join(stmts),
                              f"aimed{label}: {shown} = {val}",
                              ([path[0]] if path[0] in params else []) + _given_attrs([path])))
        return items

    # a function of the module made to raise: after every value aimed at a
    # subject (the module's own code, not an outside failure, is what it
    # stands for; the subjects' values reach the handler more often)
    late = [h for h in handlers if AFTER_MODULE in h[0]]
    handlers = [h for h in handlers if AFTER_MODULE not in h[0]]
    # (a value a guarded call refuses, after the values aimed at the
    # subjects, and with no other subject at once: it is one subject's value)
    refused = [h for h in handlers if h[1].endswith(_REFUSED)]
    handlers = [h for h in handlers if not h[1].endswith(_REFUSED)]

    def patched(group):
        for patch, note in group:
            if (patch,) not in seen:
                seen.add((patch,))
                # (a patch binding a parameter gives it, default or not)
                out.append((head + "\n" + patch, f"aimed: {note}",
                            [n for n in params if patch.startswith(f"{n} = ")] +
                            _patched_methods(patch)))
    patched(handlers)
    singles = single([x for x in near if not x[0][2] or x[0][0] == "RAW"])
    # every subject near the edit at once
    subjects: dict = {}
    for (path, vals, edge, *_), v in near:
        if path != "RAW" and edge in (False, "value") and vals and (
                len(path) == 1 or len(path) == 2 and path[0] == "self" and
                isinstance(path[1], str)):
            # every hint's values for the subject, in order (an ``isinstance``
            # sample and a fraction for ``int(value)`` alike); the object's
            # own attributes too (``self._sep is None`` with ``dt_str``)
            got = subjects.setdefault(tuple(path), ([], v))[0]
            got.extend(x for x in vals if x not in got)
    # what every subject at once gives: those parameters, those attributes of ``self``
    named = [p[0] for p in subjects if len(p) == 1 and p[0] in params] + _given_attrs(subjects)
    if subjects:
        # the patches that make an ``except`` run, with every subject at its
        # first value (a parser's handler is reached by well-formed text)
        stmts, shown = [], []
        for path, (vals, v) in subjects.items():
            stmts += _assign(list(path), vals[0], scopes[id(v)])
            shown.append(f"{'.'.join(path)} = {vals[0]}")
        for patch, note in handlers[:4]:
            out.append((head + "\n" + patch + "\n" + "\n".join(stmts),
                        f"aimed: {note}, " + ", ".join(shown),
                        named + _patched_methods(patch)))
    if exits_passed and handlers:
        # the same patches with the early exits passed alone (every subject
        # at its first value may leave the loop the handler is in unrun:
        # ``requirements = []``)
        stmts = [st for sts, _, _ in exits_passed for st in sts]
        paths = [p for _, _, p in exits_passed]
        given = [p[0] for p in paths if len(p) == 1 and p[0] in params] + _given_attrs(paths)
        had = {o[0] for o in out}
        for patch, note in handlers[:4]:
            if head + "\n" + patch + "\n" + "\n".join(stmts) not in had:
                out.append((head + "\n" + patch + "\n" + "\n".join(stmts),
                            f"aimed: {note}, " + ", ".join(sh for _, sh, _ in exits_passed),
                            given + _patched_methods(patch)))
    # the module's flags flipped (``if CHECK_LAST_MODIFIED:``) go with
    # every subject at once: statement -> flag
    flips = {after_module(name, x): name for sc in scopes.values() for name, x in sc.flags.items()}
    flags = list(dict.fromkeys(st for (path, sts, *_), _ in near + rest if path == "RAW"
                               for st in sts if st in flips))
    # the callees made to answer None where the changed lines need a
    # result that is None (a made-up callee never answers None), and the
    # commands the function runs made to succeed, go with every subject
    # at once as the flags do
    nones = {st: shown for st, shown in predicates
             if shown.endswith((" answering None", " answering success"))}
    flags += [st for st in nones if st not in flags]

    def at_once(n: int, lead: list, lead_shown: list, names: list) -> list:
        # the first ``n`` inputs giving every subject its k-th value, after
        # the statements ``lead``
        made = []
        for k in range(min(n, max(len(vals) for vals, _ in subjects.values()))):
            stmts, shown = list(lead), list(lead_shown)
            for path, (vals, v) in subjects.items():
                val = vals[k % len(vals)]
                stmts += _assign(list(path), val, scopes[id(v)])
                shown.append(f"{'.'.join(path)} = {val}")
            made.append((head + "\n" + "\n".join(stmts), "aimed: " + ", ".join(shown), names))
        return made
    flipped = [f"{flips[st]} flipped" if st in flips else nones[st] for st in flags]
    combos = at_once(4, flags, flipped, named) if len(subjects) >= 2 or subjects and flags \
        else []
    # (and the values aimed at them, and at the parameters, in the rest of
    # the function and its helpers)
    pool: dict = {p: (list(vals), v) for p, (vals, v) in subjects.items()}
    for (q, xs, edge, *_), v in rest:
        if q != "RAW" and edge in (False, "value") and (
                tuple(q) in subjects or len(q) == 1 and q[0] in params):
            got = pool.setdefault(tuple(q), ([], v))[0]
            got.extend(x for x in xs if x not in got)
    shared = _shared_value_inputs(pool, set(subjects), scopes, head, named, combos)
    # every subject at once with the function's own switches turned the
    # other way (``_parsed=True`` skips the normalising helpers that a
    # module run alone makes up, and the subjects' values reach the edit)
    switches: dict = {}
    for v in (new, old):
        try:
            switches.update(_switches(v))
        except Exception:
            pass
    turned = list(switches.values())

    def with_switches(names: list) -> list:
        return names + [p for p in switches if p in params and p not in names]
    switched = at_once(2, flags + turned, flipped + turned, with_switches(named)) \
        if subjects and switches else []
    switched_raw = []
    if switches:
        # and the first statements made whole for the changed lines (the
        # header a loop over a parameter unpacks), one of each shape (not
        # ``[0] * 19`` and ``[0] * 20``), four at most, after the first
        # inputs aimed at one subject alone
        raws: list = []
        for (path, sts, *more), _ in near:
            shape = re.sub(r"\d+", "#", repr(sts))
            if path == "RAW" and shape not in raws and len(raws) < 4:
                raws.append(shape)
                got = list(more[-1]) if more and isinstance(more[-1], (list, tuple)) else []
                stmts = list(sts) + turned
                switched_raw.append((head + "\n" + "\n".join(stmts),
                                     "aimed: " + "; ".join(stmts), with_switches(got)))
    # the first two of them before the values aimed at one subject alone (a
    # value that matters only where the other parameters let the code reach
    # it: a release's upper bound behind another parameter's parse), the
    # rest after them
    # (a division's operands at the float's ends after the first four: the
    # input budget seldom reaches the end of the singles)
    out.extend(combos[:2] + switched + singles[:4] + shared + switched_raw + single(extremes) +
               singles[4:] + combos[2:])
    patched(refused)
    out.extend(_fall_through(near + rest, [(new, ch_new), (old, ch_old)], scopes, head,
                             params))
    out.extend(single([x for x in near if x[0][2] and x[0][0] != "RAW"]))
    rest_items = single(rest)
    # the values aimed at the rest of the function (``os.path.exists(fname)``
    # before the flag's test) with the module's flags flipped too
    out.extend((prefix + "\n" + "\n".join(flags), f"{note} (the module's flags flipped)"[:200],
                names) for prefix, note, names in rest_items[:6] if flags)
    out.extend(rest_items)
    # the parameters at the values their annotations name, all at once,
    # after every value the code itself aims at (they displaced those)
    try:
        out.extend(single([(h, v) for v in (new, old) for h in _annotation_hints(v)]))
    except Exception:
        pass
    mark = len(out)
    patched(late)
    # the functions that decide whether the changed lines run made to
    # answer: each answer alone, then the answer each needs (one function
    # each, the nearest test's first) with every subject at once and with
    # the first values aimed at the rest of the function
    lead, lead_shown, fns = [], [], set()
    for st, shown in dict.fromkeys(predicates):
        fn_name = shown.partition(" answering ")[0]
        if fn_name not in fns:
            fns.add(fn_name)
            lead.append(st)
            lead_shown.append(shown)
    group = single(answering)
    if lead:
        group += at_once(2, lead, lead_shown, named) if subjects else []
        group += [(prefix + "\n" + "\n".join(lead),
                   f"{note}, " + ", ".join(lead_shown), names)
                  for prefix, note, names in rest_items[:3]]
    if not group:
        return out[:_MAX]
    # (they keep a room of their own, after the patches that make an
    # ``except`` run: values aimed at more subjects do not push those out)
    group = group[:_MAX // 4]
    tail = out[mark:] + group
    return out[:max(0, min(mark, _MAX - len(tail)))] + tail[:_MAX]


# ------------------------------------------------------------------ doctests

def doctest_calls(v, limit: int = 8) -> list:
    """Calls of the function ``v`` (a funcsource.Version) in the doctest
    examples of its module's docstrings: ``(call, note)`` pairs, ``call`` as
    the commit check's test calls are (``{"self", "args", "kwargs",
    "imports"}``, expressions evaluated in the module after it ran).  A name
    an earlier example of the same docstring assigned (``>>> b = Bits(5)``)
    is replaced by its expression."""
    import doctest
    name = v.name
    cls_name = v.cls.name if v.cls is not None else None
    parser = doctest.DocTestParser()
    out, seen = [], set()
    # what the module defines at its top: ``semver.Version.parse(...)`` in
    # a docstring is ``Version.parse(...)`` where the module runs
    own = _defined_names(v.module)
    docs = []
    for n in ast.walk(v.module):
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            d = ast.get_docstring(n, clean=True)
            if d and ">>>" in d:
                docs.append(d)
    for d in docs:
        try:
            examples = parser.get_examples(d)
        except ValueError:
            continue
        bound: dict = {}
        imports: list = []
        steps: dict = {}        # name -> what earlier examples did to its object
        for ex in examples:
            try:
                tree = _unqualified(ast.parse(ex.source), own, bound)
            except (SyntaxError, ValueError, RecursionError):
                continue
            for st in tree.body:
                if isinstance(st, (ast.Import, ast.ImportFrom)) and not getattr(st, "level", 0):
                    imports.append(ast.unparse(st))
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                        isinstance(st.targets[0], ast.Name):
                    bound[st.targets[0].id] = _substitute(st.value, bound)
                    steps.pop(st.targets[0].id, None)
                    continue
                # ``for letter in 'abc': cache.push(letter)`` before
                # ``cache.peek()``: the object the call gets has had that done
                if not any(_doctest_call(e, v, name, cls_name, bound) is not None
                           for e in ast.walk(st)):
                    for nm in _acted_on(st, bound):
                        steps.setdefault(nm, []).append(st)
            for e in ast.walk(tree):
                call = _doctest_call(e, v, name, cls_name, bound)
                if call is None:
                    continue
                used = {n.id for n in ast.walk(e) if isinstance(n, ast.Name)} & set(steps)
                setup = _doctest_setup(used, bound, steps) if used else []
                if setup:
                    view = dict(bound, **{nm: ast.Name(f"_lx_doc_{nm}", ast.Load())
                                          for nm in used})
                    call = _doctest_call(e, v, name, cls_name, view) or call
                call["imports"] = list(imports) + setup
                key = repr(call)
                if key in seen:
                    continue
                seen.add(key)
                out.append((call, f"doctest: {ex.source.strip()[:70]}"))
                if len(out) >= limit:
                    return out
    return out


#: the modules whose classes are types' spellings (``List``), not classes
#: an instance is made of
_TYPING = ("typing", "typing_extensions")


def _every_top_statement(module) -> list:
    """The statements of a module's top level, those in every branch of its
    top-level ``if``, ``try`` and ``with`` blocks too (``try: from typing
    import Literal`` / ``except ImportError: ...``) -- unlike
    funcsource's ``_top_statements``, which keeps the branch this Python
    takes."""
    out: list = []
    todo = list(module.body)
    while todo:
        s = todo.pop(0)
        out.append(s)
        if isinstance(s, (ast.If, ast.Try)):
            todo[:0] = _block_parts(s)
        elif isinstance(s, ast.With):
            todo[:0] = list(s.body)
    return out


def _without_module_names(prefix: str, defined: set) -> str:
    """``prefix`` (a Treefix prefix the aimed inputs extend) without the
    names its imports bind that the module itself defines (``from typing
    import Never`` over the module's own ``class Never``: a class of
    another module by the same name, which the code never meant).
    ``prefix`` as it is where nothing is dropped, or it does not parse."""
    try:
        tree = ast.parse(prefix)
    except (SyntaxError, ValueError):
        return prefix
    kept, dropped = [], False
    for st in tree.body:
        if isinstance(st, (ast.Import, ast.ImportFrom)):
            names = [a for a in st.names
                     if (a.asname or a.name).split(".")[0] not in defined]
            dropped = dropped or len(names) < len(st.names)
            if not names:
                continue
            st.names = names
        kept.append(st)
    if not dropped:
        return prefix
    return ast.unparse(ast.Module(body=kept, type_ignores=[])) + "\n"


def _defined_names(module) -> set:
    """The names a module binds at its top by ``def``, ``class`` or
    assignment (imports aside)."""
    out: set = set()
    for s in module.body:
        out.update(_targets(s))
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
    return out


def _unqualified(tree, defined: set, bound: dict):
    """``tree`` with a reference through the package or module itself
    (``semver.Version``, ``semver.version.Version``: a root name that is no
    builtin, no standard module and bound by nothing but the examples' own
    imports) to a name the module defines (``defined``) made bare
    (``Version``), and the imports of such roots dropped."""
    import builtins
    import sys
    roots: set = set()

    class Strip(ast.NodeTransformer):
        def visit_Attribute(self, n):
            chain, e = [n.attr], n.value
            while isinstance(e, ast.Attribute):
                chain.append(e.attr)
                e = e.value
            if isinstance(e, ast.Name) and e.id not in bound and e.id not in defined and \
                    not hasattr(builtins, e.id) and e.id not in sys.stdlib_module_names:
                chain.reverse()             # root.a.b.attr -> a, b, attr
                for i, part in enumerate(chain):
                    if part in defined:
                        roots.add(e.id)
                        out: ast.expr = ast.Name(part, ast.Load())
                        for rest in chain[i + 1:]:
                            out = ast.Attribute(out, rest, ast.Load())
                        out.ctx = n.ctx
                        return ast.copy_location(out, n)
            self.generic_visit(n)
            return n
    tree = Strip().visit(tree)
    if roots:
        tree.body = [st for st in tree.body if not (
            isinstance(st, ast.Import) and all(a.name.split(".")[0] in roots
                                               for a in st.names) or
            isinstance(st, ast.ImportFrom) and not st.level and st.module and
            st.module.split(".")[0] in roots)]
    return ast.fix_missing_locations(tree)


def _acted_on(st, bound: dict) -> list:
    """The names of ``bound`` (a doctest's ``cache = Cache()``) whose object
    the statement ``st`` calls a method of (``cache.push(letter)``, in a
    loop or a ``print`` too): what it does to that object, in order."""
    out = []
    for n in ast.walk(st):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                isinstance(n.func.value, ast.Name) and n.func.value.id in bound and \
                isinstance(bound[n.func.value.id], ast.Call) and n.func.value.id not in out:
            out.append(n.func.value.id)
    return out


def _doctest_setup(names: set, bound: dict, steps: dict) -> list:
    """Statements that build the objects ``names`` hold in a doctest and do
    to them what its earlier examples did, each under its own name
    (``_lx_doc_cache``: not one the module binds); [] where one does not
    unparse."""
    class Rename(ast.NodeTransformer):
        def visit_Name(self, n):
            if n.id in names:
                return ast.copy_location(ast.Name(f"_lx_doc_{n.id}", n.ctx), n)
            return n
    out = []
    try:
        for nm in sorted(names):
            out.append(f"_lx_doc_{nm} = {ast.unparse(bound[nm])}")
        rest = {k: x for k, x in bound.items() if k not in names}
        for nm in sorted(names):
            for st in steps.get(nm, ())[:8]:
                # (``_substitute`` works on a copy: the doctest's tree stays)
                done = Rename().visit(_substitute(st, rest))
                text = ast.unparse(ast.fix_missing_locations(done))
                if text not in out:
                    out.append(text)
    except Exception:
        return []
    return out


def _substitute(e, bound: dict):
    class Sub(ast.NodeTransformer):
        def visit_Name(self, n):
            if isinstance(n.ctx, ast.Load) and n.id in bound:
                return bound[n.id]
            return n
    import copy
    return Sub().visit(copy.deepcopy(e))


def _doctest_call(e, v, name: str, cls_name, bound: dict):
    if not isinstance(e, ast.Call):
        return None
    if any(isinstance(a, ast.Starred) for a in e.args) or any(k.arg is None
                                                                for k in e.keywords):
        return None
    f = e.func
    self_e = None
    if name == "__init__" and cls_name:
        if not (isinstance(f, ast.Name) and f.id == cls_name):
            return None
    elif v.kind == "function":
        if not (isinstance(f, ast.Name) and f.id == name):
            return None
    elif v.kind in ("static", "classmethod"):
        if not (isinstance(f, ast.Attribute) and f.attr == name):
            return None
    elif v.kind == "method":
        if not (isinstance(f, ast.Attribute) and f.attr == name):
            return None
        self_e = _substitute(f.value, bound)
    else:
        return None
    try:
        return {"self": ast.unparse(self_e) if self_e is not None else None,
                "args": [ast.unparse(_substitute(a, bound)) for a in e.args],
                "kwargs": {k.arg: ast.unparse(_substitute(k.value, bound))
                           for k in e.keywords},
                "imports": []}
    except Exception:
        return None
