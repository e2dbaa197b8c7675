"""From index facts to what a prefix should say: imports for undefined
names, real classes for values used with a known set of methods."""
from __future__ import annotations

import importlib
import importlib.util
from typing import Callable, Iterable, Optional

#: below this many corpus imports, an unknown-looking name is not imported
#: from a third-party module (it is more likely the snippet's own variable)
MIN_FROM_COUNT = 3
MIN_ALIAS_COUNT = 3


def importable(top: str) -> bool:
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def candidate_imports(name: str, index, importable: Optional[Callable] = None,
                      attrs: Iterable[str] = (), called: bool = False) -> list:
    """Import statements that may bind ``name``, best first: [(statement,
    qualified target, confidence)], confidence in (0, 1].  ``attrs``: the
    attributes the snippet reads from the name (an interpretation must have
    them); ``called``: the snippet calls it (a module cannot be called)."""
    check = importable or globals()["importable"]
    attrs = [a for a in attrs if not a.startswith("_")]
    out: list = []

    def members_ok(target: str, kind: str) -> float:
        if not attrs:
            return 1.0
        if kind == "m":
            names = set(index.module_names(target))
            have = names | index.submodules(target)
        elif kind == "c":
            info = index.class_info(target)
            have = set(info["methods"]) | set(info["attrs"]) if info else set()
        else:
            return 0.0
        if not have:
            return 0.3
        hit = sum(1 for a in attrs if a in have)
        if kind == "m":
            # modules bind names dynamically (torch, star imports from C):
            # unknown attributes weaken a module interpretation, never veto
            # it; the stdlib's stubs are complete, so there a miss says more
            # (`string.upper()` is a str called string)
            floor = 0.5 if index.project_of(target) == "stdlib" else 0.8
            return max(floor, hit / len(attrs))
        return hit / len(attrs)

    # 1. an alias the corpus uses: np, pd, plt, sns, ...
    total = sum(c for _, c in index.alias_modules(name))
    aliased = False
    for mod, c in index.alias_modules(name):
        if c < MIN_ALIAS_COUNT or c < 0.3 * total or called:
            continue
        aliased = True
        if not check(mod.split(".")[0]):
            continue
        fit = members_ok(mod, "m")
        if fit > 0:
            out.append((f"import {mod} as {name}", mod, min(1.0, 0.5 + c / 40) * fit))
    # 2. the name is a module: json, re, math, os
    if index.is_module(name) and not called and check(name):
        fit = members_ok(name, "m")
        if fit > 0:
            conf = (0.9 if (index.project_of(name) == "stdlib" or
                            index.module_imports.get(name, 0) >= 5) else 0.5) * fit
            out.append((f"import {name}", name, conf))
    counts = index.from_imports.get(name, {})
    # 2b. a submodule imported by name: `from PIL import Image`,
    #     `from matplotlib import pyplot`
    for mod, c in sorted(counts.items(), key=lambda kv: -kv[1]):
        sub = f"{mod}.{name}"
        if called or not index.is_module(sub) or c < 2 or not check(mod.split(".")[0]):
            continue
        fit = members_ok(sub, "m")
        if fit > 0:
            # below a top-level module of that name (0.9): `token` is the
            # stdlib's before lib2to3.pgen2's
            out.append((f"from {mod} import {name}", sub, min(0.85, 0.6 + c / 20) * fit))
    if aliased:
        return _unique(out)     # `pd` means pandas: no other module's `pd`
    # 3. a module-level name: deque, Path, defaultdict, datetime
    def worth(mod):
        return counts.get(mod, 0) >= MIN_FROM_COUNT or index.project_of(mod) == "stdlib"

    for mod, kind in index.providers(name, limit=8, where=worth):
        if kind == "m" and called:
            continue
        c = counts.get(mod, 0)
        stdlib = index.project_of(mod) == "stdlib"
        if c < MIN_FROM_COUNT and not (stdlib and (c >= 1 or kind in ("c", "f"))):
            continue
        if not check(mod.split(".")[0]):
            continue
        target = f"{mod}.{name}"
        fit = members_ok(target, kind) if kind in ("c", "m") else (0.0 if attrs else 1.0)
        if attrs and kind == "f":
            fit = 0.0
        if fit <= 0:
            continue
        # a stdlib name no corpus imports is weak evidence unless it is a
        # class-like name (turtle exports `width`, `color`, `reset`, ...)
        base = 0.4 + c / 20 + (0.3 if stdlib and (c >= 1 or name[:1].isupper()) else
                               0.0 if stdlib else 0.0)
        if stdlib and c == 0 and not name[:1].isupper():
            base = 0.35
        conf = min(1.0, base) * fit
        if not stdlib:
            # a bare name from a third-party package (`dtype`, `is_scalar`):
            # the import costs every run its import time and pins real
            # semantics, so the generated stand-in goes first
            conf = min(conf, 0.55)
        out.append((f"from {mod} import {name}", target, conf))
    return _unique(out)


def _unique(out: list) -> list:
    seen, uniq = set(), []
    for s in sorted(out, key=lambda t: -t[2]):
        if s[0] not in seen:
            seen.add(s[0])
            uniq.append(s)
    return uniq


def module_named(name: str, attrs: Iterable[str] = ()) -> Optional[tuple]:
    """(module, project) when the index says ``name``, read with ``attrs``
    and never called, is a module or a corpus alias of one (``yaml`` ->
    ('yaml', 'yaml'), ``pd`` -> ('pandas', ...)), installed here or not;
    else None.  The engine asks this by name (engine/autoimport.py) to name
    the package of a module that is not installed."""
    from . import get_index
    index = get_index()
    for stmt, target, conf in candidate_imports(name, index, lambda top: True, attrs, False):
        if conf >= 0.6 and (stmt == f"import {name}" or stmt.endswith(f" as {name}")) \
                and stmt.startswith("import "):
            return target, index.project_of(target)
    return None


def import_for(name: str, importable: Optional[Callable] = None, index=None,
               attrs: Iterable[str] = (), called: bool = False) -> Optional[str]:
    c = candidate_imports(name, index, importable, attrs, called)
    return c[0][0] if c else None


#: classes that stand for a builtin type's methods alone: a value used only
#: with these is better a plain list/dict/str, which the generator has
_BUILTIN_TYPES = {"builtins.list", "builtins.dict", "builtins.str", "builtins.set",
                  "builtins.tuple", "builtins.bytes", "builtins.int", "builtins.float",
                  "builtins.object", "builtins.frozenset", "builtins.bytearray"}


def class_for_members(members, index, importable: Optional[Callable] = None,
                      limit: int = 5) -> list:
    """Importable classes of the index having every one of ``members``,
    constructible without arguments or from an iterable, best first:
    [(qualname, info)]."""
    check = importable or globals()["importable"]
    out = []
    for q, info in index.classes_with(members, limit=limit * 4):
        mod = q.rsplit(".", 1)[0]
        if q in _BUILTIN_TYPES or mod.startswith("typing") or mod.startswith("_") or \
                "abc" in mod.split("."):
            if q in _BUILTIN_TYPES:
                return out                  # a builtin type fits best: nothing else
            continue
        if not check(mod.split(".")[0]):
            continue
        init = info.get("init") or [0, 0]
        container = {"__iter__", "append", "extend", "add", "update"} & set(info["methods"])
        if init[0] > 1 or (init[0] == 1 and not container):
            continue
        out.append((q, info))
        if len(out) >= limit:
            break
    return out


#: standard-library classes whose instances come from a function, not from
#: calling the class (``re.Match()`` raises TypeError): (import, expression;
#: ``{elements}`` an iterable's elements)
_FACTORIES = {
    "re.Match": ("import re", "re.match(r'(?s)(.)', 'a')"),
    "re.Pattern": ("import re", "re.compile(r'(\\w+)')"),
    "urllib.parse.ParseResult": ("import urllib.parse",
                                 "urllib.parse.urlparse('https://example.com/path?q=1#top')"),
    "urllib.parse.SplitResult": ("import urllib.parse",
                                 "urllib.parse.urlsplit('https://example.com/path?q=1#top')"),
    "urllib.parse.DefragResult": ("import urllib.parse",
                                  "urllib.parse.urldefrag('https://example.com/path#top')"),
    "types.GeneratorType": ("", "(_lx_x for _lx_x in {elements})"),
}


def constructible(qualname: str) -> bool:
    """Whether :func:`construct` can build an instance of the class: False
    for a standard-library class that calling with no arguments cannot
    build (abstract, a protocol, a C type that refuses instantiation such
    as ``re.Match``, a required parameter) and that has no factory.  The
    class is looked at, not called; a module that is not the standard
    library's, or not importable, is given the benefit of the doubt."""
    import sys
    if qualname in _FACTORIES:
        return True
    mod, _, name = qualname.rpartition(".")
    if mod.split(".")[0] not in sys.stdlib_module_names:
        return True
    try:
        cls = getattr(importlib.import_module(mod), name)
    except Exception:
        return True
    if not isinstance(cls, type):
        return True
    import inspect
    if inspect.isabstract(cls) or getattr(cls, "_is_protocol", False) or \
            cls.__flags__ & (1 << 7):       # Py_TPFLAGS_DISALLOW_INSTANTIATION
        return False
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return True
    return not any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD,
                                                        p.KEYWORD_ONLY)
                   for p in sig.parameters.values())


def construct(qualname: str, info: dict, elements: Optional[str] = None) -> tuple:
    """(import statement, expression) building an instance of a class from
    the index: from an iterable of ``elements`` when it is a container whose
    constructor takes one, else with no arguments; a class whose instances
    a function makes, through it (``_FACTORIES``)."""
    if qualname in _FACTORIES:
        imp, expr = _FACTORIES[qualname]
        return imp, expr.replace("{elements}", elements or "[1, 2, 3]")
    mod, name = qualname.rsplit(".", 1)
    init = info.get("init") or [0, 0]
    imp = f"import {mod}" if mod != "builtins" else ""
    ref = f"{mod}.{name}" if mod != "builtins" else name
    container = {"__iter__", "append", "extend", "add", "popleft", "update"} & \
        set(info.get("methods", {}))
    if elements is not None and container and (init[1] == -1 or init[1] >= 1):
        return imp, f"{ref}({elements})"
    if init[0] == 1:
        return imp, f"{ref}({elements or '[]'})"
    return imp, f"{ref}()"
