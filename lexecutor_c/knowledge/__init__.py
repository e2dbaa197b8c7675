"""Knowledge of the Python ecosystem for generating missing code.

Two parts, both cheap to import (the data loads on first use):

* **where names come from** (index.py): module-level names of the standard
  library and of popular PyPI projects (functions with arities, classes with
  their method and attribute sets, constants with their type), the import
  aliases a code corpus uses (``np``, ``pd``, ``plt``, ...), and reverse
  maps (a name -> the modules providing it; a set of methods -> the classes
  having them).  Shipped in ``data/index.zip``, rebuilt with
  ``python -m lexecutor_c.knowledge.build``, extended at run time from the
  environment's site-packages (local.py, cached on disk);
* **use-site constraints** (constraints.py): what an argument of a builtin
  or well-known function must be (``range`` -> int, ``open`` -> an existing
  file, ``str.join`` -> iterable of str, ...), and values that satisfy them.

See docs/KNOWLEDGE.md.
"""
from __future__ import annotations

import os
import threading
from typing import Optional

__all__ = ["get_index", "reset", "import_for", "class_for_members", "constraint_for",
           "source_for", "example", "satisfies", "runtime_class"]

_lock = threading.Lock()
_INDEX = None


def get_index(local: Optional[bool] = None):
    """The process-wide KnowledgeIndex: the shipped index, plus this
    environment's site-packages unless ``local`` is False or
    ``LEXECUTOR_KNOWLEDGE_LOCAL=0``.  Loaded once."""
    global _INDEX
    if _INDEX is not None:
        return _INDEX
    with _lock:
        if _INDEX is None:
            from .index import load
            idx = load(os.environ.get("LEXECUTOR_KNOWLEDGE_INDEX") or None)
            if local is None:
                local = os.environ.get("LEXECUTOR_KNOWLEDGE_LOCAL", "1") not in ("0", "")
            if local:
                from .local import local_index
                try:
                    for data in local_index(skip=idx.top_level_modules()):
                        idx.add(data, override=False)
                except Exception:          # a broken site dir costs only its facts
                    pass
            _INDEX = idx
    return _INDEX


def reset() -> None:
    """Forget the loaded index (tests, after installing packages)."""
    global _INDEX
    with _lock:
        _INDEX = None


def import_for(name: str, importable=None, index=None) -> Optional[str]:
    """The import statement that binds ``name`` as a snippet means it
    (``deque`` -> ``from collections import deque``, ``np`` -> ``import numpy
    as np``, ``json`` -> ``import json``), or None.  ``importable(top)``
    decides whether a module can be imported here (default: find_spec);
    modules that cannot are skipped."""
    from .resolve import import_for as _f
    return _f(name, importable=importable, index=index or get_index())


def class_for_members(members, index=None, importable=None, limit: int = 5) -> list:
    """Classes having all of ``members`` (methods/attributes), best first:
    [(qualname, info)]; see KnowledgeIndex.classes_with."""
    from .resolve import class_for_members as _f
    return _f(members, index=index or get_index(), importable=importable, limit=limit)


def constraint_for(callee: str, arg):
    from .constraints import constraint_for as _f
    return _f(callee, arg)


def source_for(spec, hint=None, name: str = ""):
    from .constraints import source_for as _f
    return _f(spec, hint, name)


def example(spec, workdir: Optional[str] = None, hint=None):
    from .constraints import example as _f
    return _f(spec, workdir, hint)


def satisfies(value, spec) -> bool:
    from .constraints import satisfies as _f
    return _f(value, spec)


def runtime_class(spec) -> str:
    from .constraints import runtime_class as _f
    return _f(spec)
