"""Missing names that are modules are imported, not injected.

``y = json.loads(s)`` with ``json`` never imported: the code meant the
standard library's module, and a Dummy for ``json`` (and a Dummy result)
helps nobody.  :func:`import_missing` imports such names into the namespace
the code runs in -- a name read with attributes and never called that is a
module installed here, or a well-known alias (``np``, ``pd``, ``plt``...)
of one -- and says what it did.  A name that denotes a module which is not
installed here is left missing (the predictor injects a value, as before)
and reported with the package to install.

``run(import_missing=True)`` (the default; ``lexecutor-c run
--no-import-missing`` turns it off) calls it in the confined child, so the
import runs confined like the code; ``%%lexecute`` calls it on the user
namespace; the papers' baselines (benchmarks/coverage.py: naive, random,
frequency) run with ``import_missing=False``.

Where the knowledge index (lexecutor_c.knowledge, a layer above) is already
loaded in this process, it is asked by name -- a plug-in lookup, not an
import -- whether an unknown name is a module (``yaml`` -> PyYAML).
"""
from __future__ import annotations

import builtins
import importlib
import importlib.util
import sys
from typing import Iterable, Optional

#: aliases people use without saying so: name in the code -> module
WELL_KNOWN = {
    "np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot", "mpl": "matplotlib",
    "tf": "tensorflow", "sns": "seaborn", "sp": "scipy", "nx": "networkx",
    "ET": "xml.etree.ElementTree", "tk": "tkinter", "px": "plotly.express",
    "xr": "xarray", "sm": "statsmodels.api", "jnp": "jax.numpy",
}

#: module -> the package that installs it, where the names differ
PACKAGES = {
    "yaml": "PyYAML", "cv2": "opencv-python", "PIL": "Pillow", "sklearn": "scikit-learn",
    "bs4": "beautifulsoup4", "dateutil": "python-dateutil", "skimage": "scikit-image",
    "attr": "attrs", "google.protobuf": "protobuf", "serial": "pyserial",
    "usb": "pyusb", "Crypto": "pycryptodome", "dotenv": "python-dotenv", "jwt": "PyJWT",
}

#: modules never imported on the code's behalf: importing them does something
#: (prints, opens a browser) or they are test packages whose names are common
#: variable names
NEVER = frozenset({"this", "antigravity", "__hello__", "__phello__", "idlelib", "turtledemo",
                   "test", "tests", "__main__", "builtins", "__future__"})

#: the knowledge part's lookup (lexecutor_c.knowledge.resolve.module_named),
#: asked only when that module is already loaded (run() loads it before forking)
_KNOWLEDGE = "lexecutor_c.knowledge.resolve"


def _installed(name: str) -> bool:
    """Whether ``name`` (a top-level module, or a submodule of an imported
    package) can be imported here, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):
        return False


def package_of(module: str) -> str:
    """The package that installs ``module`` (pip's name)."""
    top = module.split(".")[0]
    return PACKAGES.get(module) or PACKAGES.get(top) or top


def _ask_knowledge(name: str, attrs: list) -> Optional[tuple]:
    mod = sys.modules.get(_KNOWLEDGE)
    ask = getattr(mod, "module_named", None)
    if not callable(ask):
        return None
    try:
        return ask(name, attrs)
    except Exception:          # a broken index costs only its advice
        return None


def _has_some(module, attrs: list, modname: str) -> bool:
    """Whether ``module`` has at least one of the attributes the code reads
    (an attribute or a submodule): ``string.upper()`` is a str called
    string, not the standard library's module."""
    public = [a for a in attrs if not a.startswith("__")]
    if not public:
        return True
    for a in public:
        if hasattr(module, a):
            return True
        if getattr(module, "__path__", None) is not None and _installed(f"{modname}.{a}"):
            return True
    return False


def import_missing(undefined: Iterable, namespace: dict) -> list[dict]:
    """Import into ``namespace`` the missing names that are modules.

    ``undefined``: the instrumenter's undefined names
    (``lexecutor_c.instrument(src).undefined``: objects with ``name``,
    ``attrs``, ``calls``).  A name already in ``namespace`` or a builtin is
    left alone.  Returns one dict per name that is a module: ``name``,
    ``module``, ``imported`` (True: bound in ``namespace``); where not
    imported also ``package`` and ``reason`` ("not installed", "import
    failed: ...", ...): such a name stays missing and is injected."""
    out: list[dict] = []
    for u in undefined:
        name = getattr(u, "name", None)
        if not isinstance(name, str) or not name.isidentifier() or name in namespace or \
                hasattr(builtins, name):
            continue
        attrs = [str(a) for a in (getattr(u, "attrs", None) or {})]
        if getattr(u, "calls", None):
            continue                    # a module cannot be called
        module = WELL_KNOWN.get(name)
        known = module is not None
        if module is None:
            if not attrs:
                continue                # a module used without attributes: a variable
            module = name
        top = module.split(".")[0]
        if name in NEVER or top in NEVER:
            continue
        if not _installed(top):
            if not known:
                hint = _ask_knowledge(name, attrs)
                if not hint:
                    continue
                module = hint[0]
                package = package_of(module) if module.split(".")[0] in PACKAGES or \
                    module in PACKAGES else (hint[1] or package_of(module))
                top = module.split(".")[0]
                if _installed(top):     # an alias the index knows: import it
                    known = True
                else:
                    out.append({"name": name, "module": module, "imported": False,
                                "package": package, "reason": "not installed"})
                    continue
            else:
                out.append({"name": name, "module": module, "imported": False,
                            "package": package_of(module), "reason": "not installed"})
                continue
        try:
            mod = importlib.import_module(module)
        except (Exception, SystemExit) as e:
            out.append({"name": name, "module": module, "imported": False,
                        "package": package_of(module),
                        "reason": f"import failed: {type(e).__name__}: {e}"[:300]})
            continue
        if not known and not _has_some(mod, attrs, module):
            continue                    # a variable that happens to share a module's name
        for a in attrs:                 # xml.etree, os.path: submodules the code reads
            if not a.startswith("_") and not hasattr(mod, a) and \
                    getattr(mod, "__path__", None) is not None and _installed(f"{module}.{a}"):
                try:
                    importlib.import_module(f"{module}.{a}")
                except (Exception, SystemExit):
                    pass
        namespace[name] = mod
        out.append({"name": name, "module": module, "imported": True})
    return out


def describe(records: Iterable[dict]) -> list[str]:
    """One line per record, for reports."""
    lines = []
    for m in records:
        if m.get("imported"):
            lines.append(f"imported {m['module']}" +
                         (f" as {m['name']}" if m["name"] != m["module"] else "") +
                         " (the code uses it without importing it)")
        else:
            pkg = f" (package {m['package']})" if m.get("package") else ""
            lines.append(f"{m['name']} is module {m['module']}{pkg}, "
                         f"{m.get('reason') or 'not importable'} here: injected instead")
    return lines
