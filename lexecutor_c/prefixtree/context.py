"""The context a function body ran in, and instances of real classes.

A body torn out of its function lost more than its parameters: ``self``,
``cls`` and ``mcs`` were an instance, a class and a metaclass; ``super()``
had the function's class; a test body's parameters were pytest fixtures;
its module may have had ``from __future__ import annotations``.  This
module gives the offline generator candidates and prefix text for these:

* :func:`context_values`: what an assert needs first (``assert f() ==
  'x'``: ``f()`` returns ``'x'``), a pytest fixture's value for a root named
  like one of pytest's built-in fixtures, a class for ``cls`` (a subclass of
  ``X`` for ``X.__new__(cls, ...)``), a metaclass for ``mcs``;
* :data:`SUPER_STANDIN`: a ``super`` that works outside a class body (its
  methods accept anything and return None);
* :func:`instance_expr`: an instance of a class the snippet tests with
  ``isinstance``: a builtin value for the standard library's ABCs and
  builtin types, else ``T.__new__(T)`` (an instance without running the
  constructor; its attributes are then injected).
"""
from __future__ import annotations

import sys
from typing import Optional

from .analysis import Node, SnippetFacts

#: pytest's built-in fixtures: (imports, expression)
FIXTURES = {
    "tmp_path": (("import pathlib", "import tempfile"), "pathlib.Path(tempfile.mkdtemp())"),
    "tmpdir": (("import pathlib", "import tempfile"), "pathlib.Path(tempfile.mkdtemp())"),
    "tmp_path_factory": ((), "_lx_TmpFactory()"),
    "capsys": ((), "_lx_Capture()"),
    "capfd": ((), "_lx_Capture()"),
    "capsysbinary": ((), "_lx_Capture(b'')"),
    "monkeypatch": (("import pytest",), "pytest.MonkeyPatch()"),
    "caplog": ((), "_lx_Caplog()"),
    "recwarn": (("import warnings",), "warnings.catch_warnings(record=True).__enter__()"),
}

#: helper classes the fixture expressions use
FIXTURE_HELPERS = {
    "_lx_Capture": (
        "class _lx_Capture:\n"
        "    def __init__(self, empty=''):\n"
        "        self.empty = empty\n"
        "    def readouterr(self):\n"
        "        import collections\n"
        "        R = collections.namedtuple('CaptureResult', 'out err')\n"
        "        return R(self.empty, self.empty)\n"
        "    def disabled(self):\n"
        "        import contextlib\n"
        "        return contextlib.nullcontext()"),
    "_lx_Caplog": (
        "class _lx_Caplog:\n"
        "    records = []\n"
        "    record_tuples = []\n"
        "    messages = []\n"
        "    text = ''\n"
        "    def set_level(self, *args, **kwargs):\n"
        "        pass\n"
        "    def at_level(self, *args, **kwargs):\n"
        "        import contextlib\n"
        "        return contextlib.nullcontext()\n"
        "    def clear(self):\n"
        "        pass"),
    "_lx_TmpFactory": (
        "class _lx_TmpFactory:\n"
        "    def mktemp(self, *args, **kwargs):\n"
        "        import pathlib, tempfile\n"
        "        return pathlib.Path(tempfile.mkdtemp())\n"
        "    def getbasetemp(self):\n"
        "        import pathlib, tempfile\n"
        "        return pathlib.Path(tempfile.gettempdir())"),
}

SUPER_STANDIN = ("class _lx_Super:\n"
                 "    def __init__(self, *args, **kwargs):\n"
                 "        pass\n"
                 "    def __getattr__(self, name):\n"
                 "        return lambda *args, **kwargs: None\n"
                 "def super(*args, **kwargs):\n"
                 "    return _lx_Super()")

#: names a body uses for its class and metaclass
CLASS_NAMES = {"cls", "klass", "kls", "clazz", "class_"}
META_NAMES = {"mcs", "mcls", "metacls", "meta", "metaclass"}

#: classes a subclass may derive from by name without an import
_BASES = {"object", "str", "bytes", "int", "float", "list", "dict", "tuple", "set",
          "frozenset", "type", "Exception", "BaseException", "ValueError", "TypeError",
          "KeyError", "RuntimeError"}

#: builtin values for isinstance() targets: the standard library's ABCs and
#: the builtin types, by the target's last name
_INSTANCES = {
    "Mapping": "{'key': 1}", "MutableMapping": "{'key': 1}", "dict": "{'key': 1}",
    "Dict": "{'key': 1}", "OrderedDict": "{'key': 1}",
    "Sequence": "[1, 2]", "MutableSequence": "[1, 2]", "list": "[1, 2]", "List": "[1, 2]",
    "Set": "{1, 2}", "AbstractSet": "{1, 2}", "MutableSet": "{1, 2}", "set": "{1, 2}",
    "frozenset": "frozenset({1, 2})", "FrozenSet": "frozenset({1, 2})",
    "Iterable": "[1, 2]", "Collection": "[1, 2]", "Container": "[1, 2]", "Sized": "[1, 2]",
    "Reversible": "[1, 2]", "Iterator": "iter([1, 2])", "Generator": "(x for x in [1, 2])",
    "Callable": "(lambda *args, **kwargs: None)", "Hashable": "'text'",
    "Number": "1", "Complex": "1", "Integral": "1", "int": "1", "Real": "1.5",
    "Rational": "1", "float": "1.5", "bool": "True", "complex": "1j",
    "str": "'text'", "Text": "'text'", "bytes": "b'data'", "ByteString": "b'data'",
    "bytearray": "bytearray(b'data')", "tuple": "(1, 2)", "Tuple": "(1, 2)",
    "type": "type('T', (), {})", "Type": "type('T', (), {})", "range": "range(3)",
    "memoryview": "memoryview(b'data')", "NoneType": "None",
}


def _stdlib_module(mod: str) -> bool:
    return mod.split(".")[0] in sys.stdlib_module_names


#: standard-library modules whose classes code commonly tests with isinstance()
_TYPE_MODULES = {"collections", "collections.abc", "numbers", "typing", "datetime", "pathlib",
                 "decimal", "fractions", "io", "enum", "types", "uuid", "ipaddress"}


def stdlib_import(stmt: str) -> bool:
    """Whether an import statement brings a class isinstance() tests are
    commonly made with: an ABC or builtin-like name, or a class of a common
    standard-library module (collections.abc, numbers, datetime, pathlib...)."""
    parts = stmt.replace(",", " ").split()
    if len(parts) < 2 or not _stdlib_module(parts[1]):
        return False
    names = parts[3:] if parts[0] == "from" else []
    return parts[1] in _TYPE_MODULES or any(n in _INSTANCES for n in names)


def instance_expr(name: str) -> Optional[str]:
    """A builtin value passing ``isinstance(v, name)`` for the standard
    library's ABCs and the builtin types; None otherwise."""
    return _INSTANCES.get(name.rsplit(".", 1)[-1])


def context_values(facts: SnippetFacts, node: Node) -> list:
    """Candidates that go first (see the module docstring)."""
    out: list = []
    eqs = [a[1] for a in node.asserted if isinstance(a, tuple) and a[0] == "Eq"]
    if len(eqs) >= 2 and node.path.endswith("()"):
        # asserted equal to several literals: successive results, in order
        out.append(("seq", eqs + [eqs[-1]]))
    for a in node.asserted:
        if isinstance(a, tuple) and a[0] == "Eq":
            out.append(("none",) if a[1] is None else ("const", a[1]))
        elif a == "none":
            out.append(("none",))
        elif a == "false":
            out.append(("const", False))
    is_root = "." not in node.path and not node.path.endswith(("()", "]"))
    if not is_root:
        return out
    if node.path in FIXTURES and not node.arities:
        out.append(("fixture", node.path))
    bases = [b for b in node.subclass_of if b in _BASES]
    if bases:
        out.append(("subclass", bases[0]))
    elif node.path in META_NAMES:
        out.append(("subclass", "type"))
    elif node.path in CLASS_NAMES:
        out.append(("class",))
    return out
