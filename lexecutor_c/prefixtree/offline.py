"""The offline prefix generator: no network, no model required.

A prefix is rendered from a *plan*: for every value reachable from an
undefined name (a :class:`~.analysis.Node`) the plan picks one of its ranked
candidate values; overrides added by error repairs (extra dict keys, tuple
widths, files to create, statements) ride along.  Candidates come from what
the snippet does with the value (analysis.py), from constants mined from the
snippet, and from a pluggable *value model* ``(name, kind, context) ->
ranked class names`` (default: :func:`name_heuristic`).

* initial (undefinedness guidance): the top choice for every value, then
  plans that flip one value that guards some line to its next candidate;
* error guidance: the observed exception picks a repair (missing key,
  unpacking width, not iterable, file not found, ...), else the values used
  on the failing line move to their next candidate;
* coverage guidance: the values that guard uncovered lines (enclosing
  conditions, loop iterables, callees inside a ``try`` whose handler is not
  reached) take other candidates, alone and in pairs, on top of the plans
  in the current set P.
"""
from __future__ import annotations

import ast
import importlib.util
import itertools
import keyword
import random
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from .analysis import BUILTIN_NAMES, STR_METHODS, Node, SnippetFacts
from .context import FIXTURE_HELPERS, FIXTURES, SUPER_STANDIN, context_values, instance_expr
from .context import stdlib_import as _stdlib_stmt
from .values import derived_values, guard_values, length_values

#: the methods a list has (a value asked others of them is no list)
_LIST_METHODS = frozenset(a for a in dir(list) if not a.startswith("_"))

#: common aliases of modules: name in the snippet -> (module, import statement)
ALIASES = {
    "np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot", "tf": "tensorflow",
    "sns": "seaborn", "mpl": "matplotlib", "sp": "scipy", "nx": "networkx", "torch": "torch",
    "sk": "sklearn", "cv2": "cv2", "Image": "PIL.Image", "ET": "xml.etree.ElementTree",
    "dt": "datetime", "tk": "tkinter", "bs4": "bs4", "BeautifulSoup": "bs4.BeautifulSoup",
    "defaultdict": "collections.defaultdict", "Counter": "collections.Counter",
    "OrderedDict": "collections.OrderedDict", "namedtuple": "collections.namedtuple",
    "deque": "collections.deque", "datetime": "datetime.datetime", "date": "datetime.date",
    "timedelta": "datetime.timedelta", "Path": "pathlib.Path", "partial": "functools.partial",
    "reduce": "functools.reduce", "wraps": "functools.wraps", "chain": "itertools.chain",
    "Decimal": "decimal.Decimal", "Fraction": "fractions.Fraction", "pprint": "pprint.pprint",
    "StringIO": "io.StringIO", "BytesIO": "io.BytesIO", "sleep": "time.sleep",
    "choice": "random.choice", "randint": "random.randint", "copy": "copy",
    "deepcopy": "copy.deepcopy", "Enum": "enum.Enum", "dataclass": "dataclasses.dataclass",
    "attrgetter": "operator.attrgetter", "itemgetter": "operator.itemgetter",
    "sqrt": "math.sqrt", "pi": "math.pi", "product": "itertools.product",
    "permutations": "itertools.permutations", "combinations": "itertools.combinations",
    "groupby": "itertools.groupby", "islice": "itertools.islice", "Queue": "queue.Queue",
    "Thread": "threading.Thread", "Flask": "flask.Flask",
    # (not ``request``: flask's is a proxy whose every use outside a request
    # raises RuntimeError -- a parameter so named was given it and no run
    # got past its first use)
}

_CLASS_VALUES = {
    "None": ("none",), "True": ("const", True), "False": ("const", False),
    "bool": ("const", True), "int_neg": ("const", -1), "int_zero": ("const", 0),
    "int_pos": ("int",), "int": ("int",), "float_neg": ("const", -1.5),
    "float_zero": ("const", 0.0), "float_pos": ("const", 2.5), "float": ("const", 2.5),
    "str_empty": ("const", ""), "str_nonempty": ("str",), "str": ("str",),
    "list_empty": ("const", []), "list_nonempty": ("list",), "list": ("list",),
    "tuple_empty": ("const", ()), "tuple_nonempty": ("list",), "tuple": ("list",),
    "set_empty": ("const", set()), "set_nonempty": ("list",), "set": ("list",),
    "dict_empty": ("const", {}), "dict_nonempty": ("dict",), "dict": ("dict",),
    "resource": ("resource",), "callable": ("func",), "object": ("obj",),
}


def name_heuristic(name: str, kind: str = "name", context: Optional[dict] = None) -> list:
    """Ranked abstract value classes (docs/RUNTIME.md names) for a value
    called ``name``, from the name alone.  The default value model."""
    n = name.lower().lstrip("_")
    if re.match(r"(is|has|should|can|use|allow|enable|do|need)_|.*(enabled|flag|_ok)$", n):
        return ["True", "False"]
    if re.match(r"(n|num|nb|count|max|min)_|.*(count|size|length|len|idx|index|num|total|width"
                r"|height|depth|level|offset|port|year|month|day|id)$", n) or \
            n in ("i", "j", "k", "n", "m", "x", "y", "z", "start", "end", "step", "limit"):
        return ["int_pos", "int_zero"]
    if re.match(r".*(path|file|filename|fname|dir|directory|folder)$", n):
        return ["path"]
    if re.match(r".*(name|text|msg|message|title|label|url|key|string|str|prefix|suffix"
                r"|line|word|char|pattern|fmt|format|encoding|sep|delimiter|host|user|email"
                r"|type|mode|tag|s)$", n) and not n.endswith("ss"):
        if _plural(n):
            return ["list_nonempty", "list_empty"]
        return ["str_nonempty", "str_empty"]
    if re.match(r".*(dict|map|mapping|config|cfg|conf|options|opts|params|kwargs|settings"
                r"|headers|env)$", n):
        return ["dict_nonempty", "dict_empty"]
    if re.match(r".*(list|items|values|args|elements|rows|lines|data|seq|array|arr)$", n) or \
            _plural(n):
        return ["list_nonempty", "list_empty"]
    if re.match(r".*(func|fn|callback|handler|hook)$", n):
        return ["callable"]
    return []


def _model_context(node: Node, facts: Optional[SnippetFacts]) -> dict:
    """What a value model is told besides the name and kind: the node's path
    and uses, the snippet's source and the lines that use the value (a model
    of the source context, such as the neural one, finds the site there)."""
    ctx = {"path": node.path, "uses": sorted(node.uses), "lines": sorted(node.lines)}
    if facts is not None:
        ctx["source"] = facts.source
    return ctx


def _plural(n: str) -> bool:
    return n.endswith("s") and len(n) > 3 and not n.endswith(
        ("ss", "us", "is", "as", "os", "ics", "status", "news"))


@dataclass
class Plan:
    """Choices for one prefix: node path -> index into its candidates, plus
    repairs."""

    choice: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)        # path -> extra dict keys
    width: dict = field(default_factory=dict)       # path -> tuple width of elements
    kinds: dict = field(default_factory=dict)       # path -> forced candidate
    files: dict = field(default_factory=dict)       # file name -> content
    stmts: list = field(default_factory=list)       # extra statements at the end
    undefine: set = field(default_factory=set)      # roots left to injection
    #: sparse: only the values with a decision of their own (choice, kinds,
    #: keys, width) and what holds them are defined; injection does the rest
    sparse: bool = False

    def copy(self) -> "Plan":
        return Plan(dict(self.choice), {k: list(v) for k, v in self.keys.items()},
                    dict(self.width), dict(self.kinds), dict(self.files), list(self.stmts),
                    set(self.undefine), self.sparse)

    def key(self):
        return (tuple(sorted(self.choice.items())), tuple(sorted(
            (k, tuple(v)) for k, v in self.keys.items())), tuple(sorted(self.width.items())),
            tuple(sorted((k, repr(v)) for k, v in self.kinds.items())),
            tuple(sorted(self.files.items())), tuple(self.stmts), tuple(sorted(self.undefine)),
            self.sparse)

    def decided(self) -> set:
        """Paths with a decision of their own."""
        out = set(self.choice) | set(self.kinds) | set(self.keys)
        out |= {p[:-2] if p.endswith("[]") else p for p in self.width}
        return out

    def merged(self, other: "Plan") -> "Plan":
        """This plan with ``other``'s decisions added where this one has none;
        sparse only when both are."""
        p = self.copy()
        for k, v in other.choice.items():
            p.choice.setdefault(k, v)
        for k, v in other.kinds.items():
            p.kinds.setdefault(k, v)
        for k, v in other.keys.items():
            p.keys.setdefault(k, list(v))
        for k, v in other.width.items():
            p.width.setdefault(k, v)
        for k, v in other.files.items():
            p.files.setdefault(k, v)
        p.stmts += [x for x in other.stmts if x not in p.stmts]
        p.undefine &= other.undefine if not other.sparse else p.undefine
        p.sparse = self.sparse and other.sparse
        return p


@dataclass
class Proposal:
    """A prefix proposed by a generator, with what produced it: the plan
    (offline) or the conversation (LLM)."""

    prefix: str
    plan: Optional[Plan] = None
    conversation: Optional[list] = None
    note: str = ""


def _ident(path: str) -> str:
    s = re.sub(r"\W+", "_", path.replace("()", "_ret").replace("[]", "_item")).strip("_")
    return s or "v"


def _file_content(fname: str):
    """Content for a file the snippet reads, by its extension (text, or bytes
    for images, pickles, archives: lexecutor_c.knowledge.constraints)."""
    from ..knowledge.constraints import file_content
    return file_content(fname)


def _is_image(fname: str) -> bool:
    from ..knowledge.constraints import IMAGE_EXTS
    return fname.lower().endswith(IMAGE_EXTS)


def _local_path(fname: str) -> bool:
    """A file name the prefix may create: relative (a Windows path such as
    ``C:\\x\\y.jpg`` is one file name on POSIX), inside the run's folder."""
    return bool(fname) and not fname.startswith(("/", "~")) and ".." not in \
        fname.replace("\\", "/").split("/") and "\x00" not in fname


class OfflineGenerator:
    """See the module docstring.  ``value_model(name, kind, context)``
    returns ranked class names; ``seed`` drives the random combinations."""

    name = "offline"

    def __init__(self, value_model: Optional[Callable] = None, seed: Optional[int] = None,
                 check_module: Optional[Callable] = None, knowledge=None,
                 passed: frozenset = frozenset()):
        # ``passed``: names whose value a caller passes (a function's
        # parameters, where the snippet is its body): no import is guessed
        # for one that the body neither calls nor reads an attribute of
        # (``index`` compared and passed on is a number, not operator.index)
        self.passed = frozenset(passed)
        self.value_model = value_model or name_heuristic
        self.rng = random.Random(seed or 0)
        self.check_module = check_module or _importable
        self.seen: set = set()
        self.seen_plans: set = set()
        self.hazards: list = []
        self._cands: dict = {}
        self.unresolved_imports: list = []
        self.knowledge = knowledge          # a KnowledgeIndex; None: the process-wide one

    # ------------------------------------------------------------ candidates
    def candidates(self, facts: SnippetFacts, node: Node) -> list:
        c = self._cands.get(node.path)
        if c is None:
            c = self._cands[node.path] = self._candidates(facts, node)
        return c

    def _candidates(self, facts: SnippetFacts, node: Node) -> list:
        out: list = []
        is_root = "." not in node.path and not node.path.endswith(("()", "]"))
        leaf = node.path.rsplit(".", 1)[-1].rstrip("()[]")
        exc_names = {e for names in facts.handler_lines.values() for e in names}
        out.extend(context_values(facts, node))        # fixtures, cls, asserted values
        out.extend(("const", v) for v in node.fits)    # what its use-site requires
        if node.path in exc_names or "raised" in node.uses:
            out.append(("exc_class",))
        weak_imports: list = []
        plain = node.path in self.passed and not node.arities and \
            not any(not _pseudo(a) for a in node.attrs)
        if is_root and not node.maybe_bound and not plain:
            # (a name the snippet binds is its own; a parameter used as a
            # plain value is one)
            # an isinstance() target the snippet never calls: its instances
            # are the generator's, so a generated class (type(value)) fits
            # where a real import would make every isinstance() false -- except
            # for a standard-library class (Mapping, Path, datetime): the
            # instance is then one of the real class (inst_expr)
            type_only = "type" in node.uses and not node.arities
            for stmt, conf in self._imports_for(node):
                strong = conf >= 0.6 and not (type_only and not stmt.startswith("import ")
                                              and not _stdlib_stmt(stmt))
                (out if strong else weak_imports).append(("imp", stmt))
            if not out and not weak_imports:
                mod = self._module_for(node.path)
                if mod:
                    out.append(("import", mod))
        attrs0 = {a for a in node.attrs if not _pseudo(a)}
        for m in _SAME_TEXT & set(node.attrs):
            # x.strip() keeps x's characters: int(x.lstrip('#')[:2], 16)
            # needs digits in x itself
            r = node.attrs[m].ret
            if r is not None and ("numlike" in r.uses or any(
                    t.startswith("numstr") for t in r.arg_specs)):
                out.append(("const", "123456") if "sliced" in r.uses else ("spec", "numstr"))
                break
        # use-site constraints (range(n): an int; open(p): an existing file):
        # first for a plain value, after the structural ones for an object
        specs = [_spec_candidate(t, node) for t in node.arg_specs]
        if any(t.startswith(("int", "num")) for t in node.arg_specs):
            # other values that still fit: past each bound the snippet tests
            bounds = sorted({c + 1 for c in facts.constants if isinstance(c, int)
                             and not isinstance(c, bool) and 1 < c < 1000})
            specs += [("const", b) for b in bounds[-3:]] + [("const", 10)]
        if specs and not attrs0 and not node.arities:
            out.extend(specs)
            specs = []
        if node.width and "unpack" in node.uses and not node.uses & {"iter"}:
            out.append(("tuple",))
        if node.arities or node.ret is not None:
            out.append(("func",))
            out.extend(("raise", e) for e in node.raises)
            if any(a.isupper() for a in leaf[:1]):
                out.append(("class",))
        attrs = {a for a in node.attrs if not _pseudo(a)}
        if "type" in node.uses:
            out.append(("class",))
        if "strkey" in node.uses:
            out.append(("anykey",))       # any computed key is there
        if "iterator" in node.uses:
            # next(x): a list is iterable but no iterator; an exhausted one
            # takes next()'s default
            out.extend([("iterator",), ("iterator", "empty")])
        if "namespace" in node.uses:
            out.append(("obj",))              # vars(x): an instance has a __dict__
        if "kwargs" in node.uses and not node.keys:
            # f(**kw) into a real callable: an empty mapping is the one that
            # fits every signature (a made-up key is an unexpected keyword)
            out.append(("const", {}))
        if node.keys or "kwargs" in node.uses or (node.sub_links and not node.int_keys) or \
                "strkey" in node.uses:
            out.append(("dict",))
        if attrs:
            # a distinctive method set (few classes have all of it) is that
            # class: before the builtin containers and the generated stand-in
            # methods a str has: a str (the knowledge index would find Path for
            # .replace, datetime for .strftime alone)
            known, strong = ([], False) if attrs <= STR_METHODS else \
                self._known_classes(node)
            if strong:
                out.extend(("known", q) for q in known)
            dict_only = {"items", "keys", "values", "get", "setdefault", "update", "popitem"}
            # (a text first where it is sliced or indexed too but asked a
            # method a list lacks: ``n[-1:]`` and ``n.startswith('a')``)
            text = attrs <= STR_METHODS and "dictmeth" not in node.uses and \
                bool(attrs - _LIST_METHODS)
            if (node.int_keys or "indexed" in node.uses or "sliced" in node.uses) and not text:
                out.append(("list",))
            if attrs <= STR_METHODS and "dictmeth" not in node.uses:
                out.append(("str",))
            elif attrs & dict_only:
                out.append(("dict",))
            elif "listmeth" in node.uses:
                out.append(("list",))
            out.append(("obj",))
            if not strong:
                out.extend(("known", q) for q in known)
        if node.contains:
            if all(isinstance(x, str) for x in node.contains):
                out.extend(derived_values(facts, node))    # strings holding them (values.py)
            else:
                out.append(("const", list(node.contains)))
                out.append(("const", []))
        for op, v in node.compared:
            if op == "Link" and (node.uses | getattr(facts.node(v), "uses", set())) & \
                    {"num", "numlike"}:
                out.append(("const", 1))
                out.append(("const", 2) if v < node.path else ("const", 0))
            elif op == "Link":
                # one side of an equality between two values copies the other's
                # string, so the first plan makes them equal; "str" breaks it.
                # A constant of a really imported module (token.COLON) can only
                # be matched by linking to it: then the link goes first.
                if v < node.path or self._really_imported(facts, v, node):
                    out.append(("link", v))
                out.append(("str",))
                if v >= node.path:
                    out.append(("link", v))
            elif op == "InLink":
                out.append(("const", [_leaf(v)]))
                out.append(("const", []))
            elif op == "MemberLink":
                out.append(("str",))
            elif op in ("Eq", "NotEq"):
                out.append(("const", v))       # one value matching none: literal_values
            elif op in ("Lt", "LtE", "Gt", "GtE") and isinstance(v, (int, float)):
                out.append(("const", v + 1))
                out.append(("const", v - 1))
            elif op in ("startswith", "endswith") and isinstance(v, str):
                out.append(("const", v + "abc" if op == "startswith" else "abc" + v))
                out.append(("const", "zzz"))
            elif op in ("startswith", "endswith") and isinstance(v, tuple) and v:
                out.append(("const", str(v[0]) + "abc"))
        for v in node.member_of:
            out.append(("const", v))
        out.extend(derived_values(facts, node))          # values.py: one per branch
        for t in node.isinstance_of:
            out.append(("inst", t))
        if node.int_keys or "indexed" in node.uses or "sliced" in node.uses:
            out.append(("list",))
        if node.uses & {"iter", "len", "unpack", "listmeth"}:
            out.append(("list",))
        out.extend(length_values(node))
        if "with" in node.uses:
            out.append(("resource",))
        if "path" in node.uses:
            out.append(("path",))
        if node.uses & {"str", "strmeth"}:
            out.append(("str",))
        if node.uses & {"num", "numlike"}:
            out.append(("int",))
        out.extend(specs)
        for cls in self._model(node, leaf, facts):
            out.append(("path",) if cls == "path" else _CLASS_VALUES.get(cls, ("obj",)))
        if not out and node.uses == {"bool"} and not (node.attrs or node.arities or
                                                      node.item is not None):
            # only its truth is tested (if x:, x and y): one truthy and the
            # falsy values, not six truthy kinds that all take the same branch
            out.extend([("const", True), ("const", False), ("none",)])
        if not out:
            # a call's result the code returns, nothing else known of it: an
            # object first, not None (``f(x)`` and ``return f(x)`` would
            # otherwise hand the caller the same None)
            first = [("obj",), ("skip",)] if "returned" in node.uses else [("skip",), ("obj",)]
            out.extend(first + [("str",), ("int",), ("list",), ("dict",), ("none",)])
        out.extend(weak_imports)         # guesses: never the first choice
        # alternatives that flip truthiness / None-ness of values that guard lines
        guarding = any(node.path in g for g in facts.guards.values())
        out.extend(guard_values(node, out[0]))
        if guarding and not node.uses & {"none", "bool"}:
            first = out[0]
            if first[0] in ("list", "dict"):
                out.append(("const", [] if first[0] == "list" else {}))
            elif first[0] == "str":
                out.append(("const", ""))
            elif first[0] == "int":
                out.append(("const", 0))
            out.append(("none",))
            out.append(("const", False))
        if node.uses & {"iter", "len"} and ("const", []) not in out:
            out.append(("const", []))
        if "type" in node.uses and not (attrs0 or node.arities or node.uses & {
                "none", "bool", "iter", "str", "num", "numlike", "kwargs"}):
            # only an isinstance()/issubclass() target: a value that is no type
            # (None, False, a constant) makes the call raise, never a branch
            out = [c for c in out if (c[0] not in _NOT_TYPES or (
                c[0] == "spec" and str(c[1]).startswith("type"))) and not (
                c[0] == "const" and not isinstance(c[1], type))] or [("class",)]
            # a generated class before `object`: instances of it (the "inst"
            # candidates) make the test true, anything else false; `object`
            # makes it true whatever the value
            if ("class",) in out:
                out.remove(("class",))
                at = next((i for i, c in enumerate(out) if c[0] == "spec"), len(out))
                out.insert(at, ("class",))
        if "raised" in node.uses and ("exc_class",) in out and not node.attrs:
            # raise X(...): a generated function or plain class there only
            # raises "exceptions must derive from BaseException"
            out = [c for c in out if c[0] not in ("func", "class", "obj", "skip")]
        seen, uniq = set(), []
        for c in _promote(out, node):
            k = repr(c)
            if k not in seen:
                seen.add(k)
                uniq.append(c)
        return uniq

    def _model(self, node: Node, leaf: str, facts: Optional[SnippetFacts] = None) -> list:
        kind = "name" if "." not in node.path else "attribute"
        if node.path.endswith("()"):
            kind = "call"
        try:
            ranked = self.value_model(leaf, kind, _model_context(node, facts))
        except Exception:        # a broken value model costs only its advice
            return []
        out = []
        for r in ranked or ():
            cls = r[0] if isinstance(r, (tuple, list)) else r
            if isinstance(cls, str) and (cls in _CLASS_VALUES or cls == "path"):
                out.append(cls)
        return out[:3]

    def _index(self):
        if self.knowledge is None:
            from ..knowledge import get_index
            try:
                self.knowledge = get_index()
            except Exception:            # a broken index costs only its advice
                from ..knowledge.index import KnowledgeIndex
                self.knowledge = KnowledgeIndex()
        return self.knowledge

    def _imports_for(self, node: Node) -> list:
        """[(import statement, confidence)] for an undefined root name, from
        the knowledge index (lexecutor_c.knowledge): the corpus' aliases
        (np, plt), modules (json, re), module-level names (deque, Path).
        Modules that cannot be imported here are reported as unresolved."""
        from ..knowledge.resolve import candidate_imports
        attrs = [a for a in node.attrs if not _pseudo(a)]
        called = bool(node.arities)
        idx = self._index()
        try:
            cands = candidate_imports(node.path, idx, lambda top: True, attrs, called)
        except Exception:
            return []
        out = []
        for stmt, target, conf in cands[:3]:
            top = target.split(".")[0]
            if not attrs and _binds_module(stmt, target):
                continue          # a module used without any attribute: a variable
            if self.check_module(top):
                out.append((stmt, conf))
            elif conf >= 0.6 and not out:
                if target not in self.unresolved_imports and stmt.startswith("import "):
                    self.unresolved_imports.append(target)
        return out

    def _known_classes(self, node: Node) -> list:
        """(classes of the index having every method the snippet calls on the
        value, whether the match is distinctive): ``.popleft()`` and
        ``.extend()`` -> ([collections.deque], True)."""
        methods = {a for a, sub in node.attrs.items()
                   if not _pseudo(a) and (sub.arities or sub.ret is not None)}
        if not methods or (len(methods) == 1 and len(next(iter(methods))) < 6):
            return [], False
        from ..knowledge.resolve import class_for_members, constructible
        try:
            idx = self._index()
            # (a class the prefix cannot build is no candidate: the made-up
            # stand-in comes instead of a statement that raises)
            found = [(q, info) for q, info in
                     class_for_members(methods, idx, self.check_module, limit=2)
                     if constructible(q)]
            # distinctive (few classes have all these methods): before the
            # generated stand-in; otherwise after it
            # a real instance's methods do real work: only the standard
            # library's classes (deque, Counter, ...) are trusted to go first
            strong = bool(found) and len(idx.classes_with(methods, limit=4)) <= 2 and \
                all(idx.project_of(q.rsplit(".", 1)[0]) == "stdlib" for q, _ in found)
        except Exception:
            return [], False
        self._class_infos = getattr(self, "_class_infos", {})
        for q, info in found:
            self._class_infos[q] = info
        return [q for q, _ in found], strong

    def _really_imported(self, facts: SnippetFacts, path: str, node: Node) -> bool:
        root = path.split(".")[0]
        if "." not in path or root == node.path.split(".")[0] or root not in facts.roots:
            return False
        busy = getattr(self, "_busy", set())
        if root in busy:
            return False
        self._busy = busy | {root}
        try:
            first = self.candidates(facts, facts.roots[root])[0]
        finally:
            self._busy = busy
        return first[0] in ("imp", "import")

    def _module_for(self, name: str) -> Optional[str]:
        mod = ALIASES.get(name)
        if mod is None and _looks_like_module(name):
            mod = name
        if mod is None:
            return None
        top = mod.split(".")[0]
        if self.check_module(top):
            return mod
        if name in ALIASES or mod == name:
            if mod not in self.unresolved_imports:
                self.unresolved_imports.append(mod)
        return None

    # ------------------------------------------------------------ rendering
    def render(self, facts: SnippetFacts, plan: Plan) -> str:
        r = _Renderer(self, facts, plan)
        for name, root in facts.roots.items():
            if name in plan.undefine or not r.want(root):
                continue
            expr = r.expr(root)
            if expr is not None and expr != name:
                r.emit(f"{name} = {expr}")
        for fname, spec in facts.required_files.items():
            # files the snippet reads by a constant name: Image.open(r"C:\...\a.jpg")
            if fname in plan.files or not _local_path(fname):
                continue
            if spec == "path:image" or _is_image(fname):
                from ..knowledge.constraints import image_setup
                r.emit(image_setup(fname))
            elif spec == "path:dir":
                r.emit(f"import os as _lx_os\n_lx_os.makedirs({fname!r}, exist_ok=True)")
            else:
                plan.files.setdefault(fname, _file_content(fname))
        body = r.imports + list(r.helpers.values()) + r.stmts
        if facts.super_calls:            # super() outside a class: a stand-in
            body.insert(len(r.imports), SUPER_STANDIN)
        if facts.annotations:            # annotations that name what is not there
            body.insert(0, "from __future__ import annotations")
        for fname, content in plan.files.items():
            mode = "wb" if isinstance(content, bytes) else "w"
            folder = fname.replace("\\", "/").rpartition("/")[0] if "/" in fname else ""
            if folder:                  # ``pkg/_version.py``: its folder first
                body.append(f"import os as _lx_os\n_lx_os.makedirs({folder!r}, exist_ok=True)")
            body.append(f"with open({fname!r}, {mode!r}) as _f:\n    _f.write({content!r})")
        body.extend(plan.stmts)
        return "\n".join(body) + ("\n" if body else "")

    # ------------------------------------------------------------ the steps
    def _propose(self, facts, plans, n, note):
        """Up to ``n`` proposals from the (lazy) stream of plans: plans already
        proposed, rendering to a text already proposed, or reproducing the
        decisions of a run that timed out are skipped."""
        out = []
        looked = 0
        for p in plans:
            looked += 1
            if looked > 40 * n + 200:          # a stream of repeats: give up for now
                break
            k = p.key()
            if k in self.seen_plans:
                continue
            self.seen_plans.add(k)
            if self._hazardous(facts, p):
                continue
            text = self.render(facts, p)
            if text in self.seen:
                continue
            self.seen.add(text)
            out.append(Proposal(text, plan=p, note=note))
            if len(out) >= n:
                break
        return out

    def _hazardous(self, facts: SnippetFacts, plan: Plan) -> bool:
        """Whether ``plan`` gives the values that steer a loop the same
        candidates as a plan whose run timed out."""
        for paths, sig in self.hazards:
            if all(self._sig(facts, plan, p) == v for p, v in zip(paths, sig)):
                return True
        return False

    def _sig(self, facts, plan, path):
        node = facts.node(path)
        if node is None:
            return None
        root = path.split(".")[0].split("(")[0].split("[")[0]
        if root in plan.undefine:
            return "injected"
        if plan.sparse and path not in _Renderer(self, facts, plan).wanted:
            return "injected"
        return repr(self._chosen(facts, plan, node))

    def note_timeout(self, facts: SnippetFacts, plan: Optional[Plan]) -> None:
        """A run of ``plan`` timed out: later plans giving the values that
        steer loops (while conditions, iterated values) the same candidates
        are not proposed."""
        if plan is None:
            return
        loopish = []
        for paths in facts.loop_guards.values():
            loopish += [p for p in paths if p not in loopish]
        for r in facts.roots.values():
            for x in r.walk():
                if "iter" in x.uses and x.path not in loopish:
                    loopish.append(x.path)
        if not loopish:
            return
        sig = tuple(self._sig(facts, plan, p) for p in loopish)
        if all(v == "injected" for v in sig):
            return                  # injection alone loops: the runtime's business
        self.hazards.append((tuple(loopish), sig))

    def _guard_nodes(self, facts: SnippetFacts, lines) -> list:
        score: dict = {}
        for ln in lines:
            for p in facts.guards.get(ln, []):
                score[p] = score.get(p, 0) + 1
        return [p for p, _ in sorted(score.items(), key=lambda kv: -kv[1])]

    def _all_nodes(self, facts):
        return [n for r in facts.roots.values() for n in r.walk()]

    def _flips(self, facts, base: Plan, paths, depth=1):
        """Plans changing one value of ``base`` to each other candidate
        (depth 2: pairs of values among the first six, four candidates
        each).  Lazy."""
        nodes = [facts.node(p) for p in paths]
        nodes = [n for n in nodes if n is not None]
        if depth == 1:
            for n in nodes:
                cands = self.candidates(facts, n)
                cur = base.choice.get(n.path, 0)
                for i in self._flip_order(n, cands, cur):
                    if i != cur:
                        p = base.copy()
                        p.choice[n.path] = i
                        p.kinds.pop(n.path, None)
                        yield p
            return
        for a, b in itertools.combinations(nodes[:6], 2):
            ca, cb = self.candidates(facts, a), self.candidates(facts, b)
            for i in range(min(len(ca), 4)):
                for j in range(min(len(cb), 4)):
                    p = base.copy()
                    p.choice[a.path], p.choice[b.path] = i, j
                    yield p

    def _sparse(self, facts, paths, base: Optional[Plan] = None):
        """Plans deciding one value each, every candidate of each node in
        turn, on top of ``base`` (default: a sparse plan of nothing: the
        value alone, injection for the rest)."""
        for path in paths:
            node = facts.node(path)
            if node is None:
                continue
            for i in self._flip_order(node, self.candidates(facts, node), None):
                p = base.copy() if base is not None else Plan(sparse=True)
                if p.choice.get(path) == i and path in p.choice:
                    continue
                p.choice[path] = i
                p.kinds.pop(path, None)
                yield p

    def _flip_order(self, node: Node, cands: list, cur: Optional[int]) -> list:
        """Candidate indices to try for ``node``: in order, except that for a
        value deciding where the runs stopped (an exit()/raise it guards)
        the falsy ones (None, False, '', 0, empty) come first: the runs so
        far had it truthy (a Dummy or a stand-in)."""
        idx = list(range(len(cands)))
        if node.path in getattr(self, "_flip_falsy", ()):
            idx.sort(key=lambda i: 0 if _falsy(cands[i]) else 1)
        return idx

    def _order(self, facts, lines=None) -> list:
        """Node paths: those deciding whether an early exit()/raise runs
        (earliest first), then those guarding the most lines (of ``lines``,
        else all), then the others."""
        order = []
        for ln in facts.exits:
            for p in facts.guards.get(ln, []):
                if p not in order:
                    order.append(p)
        self._flip_falsy = set(order)
        order += [p for p in self._guard_nodes(facts, facts.guards.keys() if lines is None
                                               else lines) if p not in order]
        return order + [x.path for x in self._all_nodes(facts) if x.path not in order]

    def _past_exits(self, facts, base: Plan) -> Optional[Plan]:
        """``base`` with every value that guards an exit()/raise falsy (its
        first falsy candidate): the runs get past all early exits at once
        (``if args.help: exit(0)``, ``if args.version: exit(0)``, ...)."""
        p = base.copy()
        changed = False
        for path in self._flip_falsy:
            node = facts.node(path)
            if node is None or path in p.choice:
                continue
            cands = self.candidates(facts, node)
            i = next((i for i, c in enumerate(cands) if _falsy(c)), None)
            if i is not None:
                p.choice[path] = i
                changed = True
        return p if changed else None

    def initial(self, facts: SnippetFacts, n: int) -> list:
        base = Plan()
        order = self._order(facts)
        past = [x for x in (self._past_exits(facts, Plan(sparse=True)),
                            self._past_exits(facts, base)) if x is not None]
        plans = itertools.chain(
            [base], past,
            _roundrobin(self._sparse(facts, order), iter(self._flips(facts, base, order))))
        return self._propose(facts, plans, n, "undefinedness")

    def repair(self, facts: SnippetFacts, plan: Optional[Plan], error: dict, n: int,
               node=None) -> list:
        base = plan.copy() if plan is not None else Plan()
        etype, msg = error.get("type", ""), error.get("message", "")
        line = error.get("line")
        on_line = facts.nodes_on_line(line) if line else []
        plans = []
        m = re.search(r"No such file or directory: ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")",
                      msg)
        if etype in ("FileNotFoundError", "IsADirectoryError") and m:
            try:
                fname = ast.literal_eval(m.group(1))     # the message quotes the repr
            except (ValueError, SyntaxError):
                fname = m.group(1)[1:-1]
            if isinstance(fname, str) and _local_path(fname):
                p = base.copy()
                if _is_image(fname):
                    from ..knowledge.constraints import image_setup
                    p.stmts.append(image_setup(fname))
                else:
                    p.files[fname] = _file_content(fname)
                plans.append(p)
        if etype == "KeyError":
            key = msg.strip("'\"")
            for node in on_line:
                if node.keys or self._chosen(facts, base, node)[0] == "dict":
                    p = base.copy()
                    p.keys.setdefault(node.path, []).append(key)
                    plans.append(p)
        m = re.search(r"values to unpack \(expected (\d+)", msg)
        if m:
            for node in on_line:
                if node.item is not None or node.uses & {"iter", "unpack"}:
                    p = base.copy()
                    p.width[node.path + "[]"] = int(m.group(1))
                    p.width[node.path] = int(m.group(1))
                    plans.append(p)
        if "super(): no arguments" in msg or "super() argument 1" in msg:
            p = base.copy()
            p.stmts.append("class _Base:\n    def __init__(self, *a, **k):\n        pass\n"
                           "    def __getattr__(self, name):\n"
                           "        return lambda *a, **k: None\n"
                           "def super(*a, **k):\n    return _Base()")
            plans.append(p)
        if "keywords must be strings" in msg or "argument after ** must be a mapping" in msg:
            for node in on_line:
                p = base.copy()
                p.kinds[node.path] = ("dict",)
                plans.append(p)
        if re.search(r"not iterable|not subscriptable|has no len", msg):
            for node in on_line:
                p = base.copy()
                p.kinds[node.path] = ("list",)
                plans.append(p)
        # a value of the wrong type on the line: a name the line calls is no
        # candidate (a text is not callable), and what a call returns goes
        # first (``.replace(".", decimal_separator())``: its result, made up)
        called = {x.path[:-2] for x in on_line if x.path.endswith("()")}
        valued = sorted((x for x in on_line if x.path not in called),
                        key=lambda x: not x.path.endswith(")"))
        if re.search(r"must be str|expected str|can only concatenate str|string or bytes", msg):
            for node in valued:
                p = base.copy()
                p.kinds[node.path] = ("str",)
                plans.append(p)
        # "globals must be a dict, not C_self_defaults_copy_ret": the type asked
        # for, given to the value whose stand-in class the message names (else
        # to each value on the line)
        wanted = _wanted_kinds(msg)
        if wanted:
            culprits = _culprits(facts, msg) or valued
            for node in culprits:
                for kind in wanted:
                    p = base.copy()
                    p.kinds[node.path] = kind
                    plans.append(p)
        # "unsupported operand type(s) for /: 'PosixPath' and 'int'": the
        # value of the offending type on the line (a made-up number joined to
        # a path) as the other operand wants it (a text for a path)
        m = re.search(r"unsupported operand type\(s\) for [^:]+: '(\w+)' and '(\w+)'", msg)
        if m:
            pairs = [(bad, _OPERAND_KINDS[good]) for bad, good in (m.groups(), m.groups()[::-1])
                     if good in _OPERAND_KINDS and bad != good]
            hits = [(x, want) for bad, want in pairs for x in on_line
                    if _kind_named(self._chosen(facts, base, x), bad)] or \
                [(x, want) for _, want in pairs if want == ("str",) for x in on_line]
            for node, want in hits:
                p = base.copy()
                p.kinds[node.path] = want
                plans.append(p)
        if re.search(r"takes (\d+) positional|missing \d+ required|unexpected keyword", msg):
            for node in on_line:
                if node.arities:
                    p = base.copy()
                    p.kinds[node.path] = ("func",)
                    plans.append(p)
        for b in _builtins_called(facts.source, line):
            stmt = TOLERANT_BUILTINS.get(b)
            if stmt:
                p = base.copy()
                p.stmts.append(stmt)
                plans.append(p)
        if etype in ("ModuleNotFoundError", "ImportError"):
            mm = re.search(r"No module named '([^']+)'", msg)
            if mm and mm.group(1) not in self.unresolved_imports:
                self.unresolved_imports.append(mm.group(1))
        # generic: values used on the failing line take their next candidates,
        # or are left to injection
        for node in on_line:
            cands = self.candidates(facts, node)
            cur = base.choice.get(node.path, 0)
            for i in list(range(cur + 1, len(cands))) + list(range(0, cur)):
                p = base.copy()
                p.choice[node.path] = i
                p.kinds.pop(node.path, None)
                plans.append(p)
        roots = [r for r in facts.roots if any(line in x.lines for x in facts.roots[r].walk())]
        for r in roots:
            p = base.copy()
            p.undefine.add(r)
            plans.append(p)
        return self._propose(facts, plans, n, f"error {etype}")

    def _chosen(self, facts, plan, node):
        if node.path in plan.kinds:
            return plan.kinds[node.path]
        cands = self.candidates(facts, node)
        if plan.sparse and node.path not in plan.choice:
            return _carrier(node, plan, cands)
        return cands[min(plan.choice.get(node.path, 0), len(cands) - 1)]

    def guide(self, facts: SnippetFacts, uncovered: list, bases: list, n: int,
              annotated: str = "") -> list:
        """Coverage guidance: merges of the plans in P (one prefix doing what
        several do), values of the nodes guarding the uncovered lines alone
        (sparse) and on top of each plan of P, callees raising what an
        unreached handler catches, pairs, then everything else and random
        re-draws, so the search goes on while there is budget."""
        ends = []                 # where the runs of P stopped: exit() or an exception
        for b in bases:
            err = getattr(b, "error", None)
            if err and err.get("line"):
                ends.append(err["line"])
            elif getattr(b, "status", "") == "exit" and getattr(b, "covered", None):
                ends.append(max(b.covered))
        bases = [getattr(b, "plan", b) for b in bases]
        bases = [b for b in bases if b is not None] or [Plan()]
        exit_guards = self._guard_nodes(facts, ends)
        paths = exit_guards + [p for p in self._guard_nodes(facts, uncovered)
                               if p not in exit_guards]
        self._flip_falsy = set(exit_guards)   # try the other truth value first there
        handler = [ln for ln in uncovered if ln in facts.handler_lines]
        return self._propose(facts, self._guide_plans(facts, bases, paths, handler, n), n,
                             "coverage")

    def consolidate(self, facts: SnippetFacts, best, others: list, n: int) -> list:
        """Prefixes doing what several prefixes of P do: the best prefix's
        plan with the decisions of each other member of P added where it has
        none, all of them at once, and the other way round (the member's
        decisions first); the values of the best plan that guard lines only
        the others reached take the others' candidates.  ``best`` and
        ``others`` are tree nodes."""
        bp = getattr(best, "plan", None)
        plans = [getattr(o, "plan", None) for o in others]
        plans = [p for p in plans if p is not None]
        if bp is None or not plans:
            return []

        def gen():
            acc = bp
            for q in plans:
                yield bp.merged(q)
                acc = acc.merged(q)
            yield acc
            for q in plans:
                yield q.merged(bp)
            # values guarding what only the others covered: theirs, on top of
            # the best plan
            mine = set(best.covered)
            for o, q in zip(others, plans):
                extra = [ln for ln in o.covered if ln not in mine]
                for path in self._guard_nodes(facts, extra):
                    if path in q.choice and q.choice[path] != bp.choice.get(path):
                        p = bp.copy()
                        p.choice[path] = q.choice[path]
                        p.kinds.pop(path, None)
                        if path in q.kinds:
                            p.kinds[path] = q.kinds[path]
                        yield p
        return self._propose(facts, gen(), n, "consolidate")

    def _guide_plans(self, facts, bases, paths, handler, n):
        # 1. one prefix with the decisions of several
        if len(bases) > 1:
            acc = bases[0]
            for b in bases[1:]:
                yield bases[0].merged(b)
                acc = acc.merged(b)
                yield acc
            for b in bases[1:]:
                yield b.merged(bases[0])
        # 2. handlers not reached: callees raising what they catch
        if handler:
            for b in bases:
                for node in self._all_nodes(facts):
                    for i, c in enumerate(self.candidates(facts, node)):
                        if c[0] == "raise" and any(c[1] in facts.handler_lines[h]
                                                   for h in handler):
                            p = b.copy()
                            p.choice[node.path] = i
                            yield p
        # 3. the values guarding uncovered lines: alone, then on each base
        yield from _roundrobin(self._sparse(facts, paths),
                               *[iter(self._flips(facts, b, paths)) for b in bases])
        for b in bases:
            yield from self._sparse(facts, paths, b)
        # 4. pairs, everything else, random re-draws
        for b in bases:
            yield from self._flips(facts, b, paths, depth=2)
        others = [x.path for x in self._all_nodes(facts) if x.path not in paths]
        yield from self._sparse(facts, others)
        for b in bases:
            yield from self._flips(facts, b, others)
        allnodes = self._all_nodes(facts)
        for _ in range(10 * n):
            b = self.rng.choice(bases)
            p = b.copy()
            for node in allnodes:
                if self.rng.random() < 0.3:
                    p.choice[node.path] = self.rng.randrange(
                        len(self.candidates(facts, node)))
            yield p


def _roundrobin(*iterables):
    """Items of the iterables in turn: a0, b0, a1, b1, ..."""
    its = [iter(x) for x in iterables]
    while its:
        nxt = []
        for it in its:
            try:
                yield next(it)
            except StopIteration:
                continue
            nxt.append(it)
        its = nxt


#: str methods whose result holds the receiver's characters
_SAME_TEXT = {"strip", "lstrip", "rstrip", "lower", "upper", "casefold"}

#: the constructor of a generated exception class: any arguments
_EXC_INIT = "def __init__(self, *args, **kwargs):\n        Exception.__init__(self, *args)"

#: candidate kinds that are never a type (isinstance's second argument)
_NOT_TYPES = ("none", "int", "str", "list", "dict", "tuple", "obj", "path", "resource",
              "len", "spec", "anykey", "func", "iterator")


_CONTAINER_SPECS = ("iter", "seq", "sized", "nonempty", "list", "tuple", "pair")


def _spec_candidate(text: str, node: Node) -> tuple:
    """The candidate for a use-site constraint: the generator's own list,
    dict and function (which build elements, keys and results from what the
    snippet does with them) where the spec asks for a container, mapping or
    callable; else a value built from the spec."""
    head = text.split("|", 1)[0]
    kind = head.split("[", 1)[0]
    if kind in _CONTAINER_SPECS and (node.item is not None or "[" not in head):
        return ("list",)
    if kind == "mapping":
        return ("dict",)
    if kind.startswith("callable"):
        return ("func",)
    return ("spec", text)


def _leaf(path: str) -> str:
    return path.rsplit(".", 1)[-1].strip("()[]_") or "text"


# builtins that raise on values a snippet did not mean (Python 2 habits, Dummies):
# a prefix may shadow them with a tolerant wrapper
TOLERANT_BUILTINS = {
    "open": ("def open(file, mode='r', buffering=-1, *args, **kwargs):\n"
             "    import builtins, io\n"
             "    try:\n"
             "        return builtins.open(file, mode, buffering, *args, **kwargs)\n"
             "    except (ValueError, TypeError):\n"
             "        return builtins.open(file, mode)\n"
             "    except OSError:\n"
             "        return io.StringIO('first line\\nsecond line\\n')"),
    "vars": ("def vars(*args):\n    import builtins\n    try:\n"
             "        return builtins.vars(*args)\n    except TypeError:\n        return {}"),
    "len": ("def len(obj):\n    import builtins\n    try:\n        return builtins.len(obj)\n"
            "    except TypeError:\n        return 1"),
    "int": None, "str": None,
}


def _other(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float)):
        return v + 1
    if isinstance(v, str):
        return v + "_other" if v else "other"
    if v is None:
        return 0
    return None


_STDLIB = {"os", "sys", "re", "json", "math", "time", "random", "string", "itertools",
           "functools", "collections", "subprocess", "shutil", "glob", "csv", "datetime",
           "logging", "pickle", "socket", "threading", "struct", "hashlib", "base64",
           "urllib", "typing", "pathlib", "tempfile", "copy", "io", "operator", "argparse",
           "unittest", "inspect", "textwrap", "decimal", "fractions", "statistics", "heapq",
           "bisect", "array", "uuid", "zipfile", "tarfile", "gzip", "warnings", "traceback",
           "platform", "signal", "queue", "contextlib", "dataclasses", "enum", "abc",
           "numbers", "codecs", "locale", "calendar", "pprint", "html", "xml", "sqlite3",
           "asyncio", "weakref", "types", "ast", "dis", "timeit", "secrets", "hmac",
           "numpy", "scipy", "matplotlib", "requests", "yaml", "flask"}


def _looks_like_module(name: str) -> bool:
    return name in _STDLIB


def _importable(top: str) -> bool:
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


class _Renderer:
    def __init__(self, gen: OfflineGenerator, facts: SnippetFacts, plan: Plan):
        self.gen, self.facts, self.plan = gen, facts, plan
        self.imports: list = []
        self.stmts: list = []
        self.done: dict = {}
        self.depth = 0
        self.helpers: dict = {}            # name -> definition, emitted before the values
        # sparse plans: the decided paths and every path that leads to one
        self.wanted: Optional[set] = None
        if plan.sparse:
            self.wanted = set()
            decided = plan.decided()
            # names the code catches, raises or tests with isinstance() are
            # classes in every plan, vars() arguments objects: a Dummy there
            # only raises a TypeError ("exceptions must derive from
            # BaseException", "vars() argument must have __dict__")
            handled = {e for names in facts.handler_lines.values() for e in names}
            for r in facts.roots.values():
                for x in r.walk():
                    if x.path in handled or x.uses & {"raised", "namespace"} or (
                            "type" in x.uses and not x.arities and not x.attrs):
                        decided.add(x.path)
            for p in list(decided):
                # a stand-in raising yaml.YAMLError needs yaml.YAMLError defined
                node = facts.node(p)
                c = gen._chosen(facts, plan, node) if node is not None else None
                if c is not None and c[0] == "raise" and facts.node(c[1]) is not None:
                    decided.add(c[1])
            for p in decided:
                self.wanted.add(p)
                for anc in _ancestors(p):
                    self.wanted.add(anc)

    def want(self, node: Node) -> bool:
        return self.wanted is None or node.path in self.wanted

    def helper(self, name: str, text: str) -> str:
        """A helper definition emitted once, before the values; returns its name."""
        self.helpers.setdefault(name, text)
        return name

    def emit(self, s: str):
        self.stmts.append(s)

    def _import(self, s: str):
        if s not in self.imports:
            self.imports.append(s)

    def var(self, node: Node) -> str:
        return "_" + _ident(node.path)

    def expr(self, node: Node) -> Optional[str]:
        """An expression for the node's value under the plan (statements it
        needs are emitted first); None: leave it to injection."""
        if node.path in self.done:
            return self.done[node.path]
        if self.depth > 6 or not self.want(node):
            return None
        self.depth += 1
        self.done[node.path] = None          # cycles: inner references get injection
        try:
            val = self._expr(node, self.gen._chosen(self.facts, self.plan, node))
        finally:
            self.depth -= 1
        self.done[node.path] = val
        return val

    def _str_for(self, node: Node) -> str:
        leaf = node.path.rsplit(".", 1)[-1].strip("()[]_") or "text"
        strs = [c for c in self.facts.constants if isinstance(c, str) and 0 < len(c) < 40
                and "\n" not in c]
        if node.path.endswith("[]") and strs:
            return strs[0]
        return leaf if leaf.isidentifier() else "text"

    def _elements(self, node: Node) -> list:
        """Element expressions for a list made for ``node``; elements the
        code compares at constant indexes (``stack[-2] == 'string'``) hold
        the compared value, and the list is long enough for them."""
        els = self._elements0(node)
        at = {}
        for k, op, v in node.key_cmp:
            if isinstance(k, int) and not isinstance(k, bool) and op in ("Eq", "In") and \
                    k not in at and -64 < k < 64:
                at[k] = repr(v)
        if not at:
            return els
        need = max(k + 1 if k >= 0 else -k for k in at)
        out = [els[i % len(els)] for i in range(max(need, len(els)))]
        for k, v in at.items():
            out[k] = v
        return out

    def _elements0(self, node: Node) -> list:
        width = self.plan.width.get(node.path + "[]") or self.plan.width.get(node.path)
        item = node.item
        if width and width > 0:
            parts = []
            for i in range(width):
                sub = item.attrs.get(f"_{i}") if item is not None else None
                e = self.expr(sub) if sub is not None else None
                parts.append(e if e is not None else repr(f"v{i}"))
            t = "(" + ", ".join(parts) + ("," if width == 1 else "") + ")"
            return [t, t]
        if item is not None:
            e = self.expr(item)
            if e is not None:
                return [e, e]
        ints = [c for c in self.facts.constants if isinstance(c, int) and not isinstance(c, bool)]
        if "num" in node.uses or (item is not None and item.uses & {"num", "numlike"}):
            return ["1", "2", "3"]
        if ints and len(ints) >= 2:
            return [repr(x) for x in ints[:3]]
        return ["1", "2", "3"]

    def _expr(self, node: Node, cand: tuple) -> Optional[str]:
        val = self._expr0(node, cand)
        if val is not None and cand[0] in ("tuple", "list", "len") and "with" in node.uses:
            # ``with f() as (a, b)``: the value entered is the sequence the
            # target unpacks, so the sequence is its own context manager
            kind = "tuple" if val.startswith("(") else "list"
            name = self.helper(f"_lx_Entered_{kind}", (
                f"class _lx_Entered_{kind}({kind}):\n"
                "    def __enter__(self):\n        return self\n"
                "    def __exit__(self, *exc):\n        return False"))
            return f"{name}({val})"
        return val

    def _expr0(self, node: Node, cand: tuple) -> Optional[str]:
        kind = cand[0]
        leaf = node.path.rsplit(".", 1)[-1]
        if kind == "skip":
            return None
        if kind == "none":
            return "None"
        if kind == "const":
            return repr(cand[1])
        if kind == "seq":
            return repr(cand[1][0])
        if kind == "fixture":
            imps, text = FIXTURES[cand[1]]
            for i in imps:
                self._import(i)
            for h, definition in FIXTURE_HELPERS.items():
                if h + "(" in text:
                    self.helper(h, definition)
            return text
        if kind == "subclass":
            return self._class(node, callable_cls=True, base=cand[1])
        if kind == "len":
            if _str_like(node):
                return repr(("abcdefghij" * 7)[:cand[1]])
            els = self._elements(node) or ["1"]
            return "[" + ", ".join(els[i % len(els)] for i in range(cand[1])) + "]"
        if kind == "int":
            ints = [c for c in self.facts.constants if isinstance(c, int)
                    and not isinstance(c, bool) and c > 0]
            return repr(ints[0] if ints else 3)
        if kind == "str":
            return repr(self._str_for(node))
        if kind == "link":
            partner = self.facts.node(cand[1])
            real = self._imported_chain(cand[1])
            if real is not None:
                return real       # leaf.type == token.COLON: the module's own value
            return repr(self._str_for(partner) if partner is not None else _leaf(cand[1]))
        if kind == "import":
            mod = cand[1]
            name = node.path
            if "." in mod:
                pkg, attr = mod.rsplit(".", 1)
                if name == attr:
                    self._import(f"from {pkg} import {attr}")
                else:
                    self._import(f"import {mod} as {name}" if _is_module(mod)
                                 else f"from {pkg} import {attr} as {name}")
            elif mod == name:
                self._import(f"import {mod}")
            else:
                self._import(f"import {mod} as {name}")
            return name
        if kind == "imp":
            self._import(cand[1])
            return node.path
        if kind == "spec":
            return self._spec(node, cand[1])
        if kind == "tuple":
            parts = []
            for i in range(node.width or 2):
                sub = node.attrs.get(f"_{i}")
                e = self.expr(sub) if sub is not None else None
                parts.append(e if e is not None else str(i + 2))
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        if kind == "known":
            from ..knowledge.resolve import construct
            info = getattr(self.gen, "_class_infos", {}).get(cand[1])
            if info is None:
                return self._obj(node)
            imp, expr = construct(cand[1], info, "[" + ", ".join(self._elements(node)) + "]")
            if imp:
                self._import(imp)
            if cand[1] == "re.Match":
                expr = _match_with_groups(node) or expr
            return expr
        if kind == "path":
            fname = self.facts.files[0] if self.facts.files else "data.txt"
            self.plan.files.setdefault(fname, _file_content(fname))
            return repr(fname)
        if kind == "list":
            return "[" + ", ".join(self._elements(node)) + "]"
        if kind == "iterator":
            return "iter([])" if cand[1:] == ("empty",) else \
                "iter([" + ", ".join(self._elements(node)) + "])"
        if kind == "anykey":
            val = self.expr(node.item) if node.item is not None else None
            self._import("import collections")
            return f"collections.defaultdict(lambda: {val or '1'})"
        if kind == "dict":
            keys = list(node.keys) + list(self.plan.keys.get(node.path, []))
            linked = []
            for lp in node.sub_links:          # d[key]: the value key has in this plan
                ln = self.facts.node(lp)
                e = self.expr(ln) if ln is not None else None
                if e is not None and e not in linked:
                    linked.append(e)
            if not keys and not linked:
                keys = [c for c in self.facts.constants if isinstance(c, str)
                        and c.isidentifier()][:2] or ["key"]
            val = self.expr(node.item) if node.item is not None else None
            if val is None:
                val = "1"
            # d['href'] == 'url3', d['class'] == ['cls']: each key its own value
            per_key = {}
            for k, op, v in node.key_cmp:
                if op in ("Eq", "In") and k not in per_key and isinstance(k, str):
                    per_key[k] = repr(v)
            items = [f"{k!r}: {per_key.get(k, val)}" for k in dict.fromkeys(keys)]
            items += [f"{e}: {val}" for e in linked]
            return "{" + ", ".join(items) + "}"
        if kind == "inst":
            t = cand[1]
            root = self.facts.roots.get(t.split(".")[0])
            real = root is not None and root.path not in self.plan.undefine and \
                self.gen._chosen(self.facts, self.plan, root)[0] in ("imp", "import")
            if root is None or real:
                simple = instance_expr(t)
                if simple is not None:
                    if real:
                        self.expr(root)               # the import itself
                    return simple
                if real and re.fullmatch(r"[A-Za-z_][\w.]*", t):
                    self.expr(root)
                    return f"{t}.__new__({t})"      # no constructor: attributes injected
            if t in self.facts.roots:
                if self.done.get(t):
                    return self._class(node, base=self.done[t])
                var = self._obj(node)
                self.emit(f"{t} = type({var})")
                self.done[t] = t
                return var
            return self._obj(node)
        if kind == "exc_class":
            if node.path.isidentifier():
                cname = node.path
                # raised as the code's own class is: with keywords too
                # (TqdmDeprecationWarning(msg, fp_write=...))
                self.emit(f"class {cname}(Exception):\n    {_EXC_INIT}")
                return cname
            return (f"type({_leaf(node.path)!r}, (Exception,), {{'__init__': lambda self, "
                    f"*args, **kwargs: Exception.__init__(self, *args)}})")
        if kind == "raise":
            fname = "_f_" + _ident(node.path)
            exc = cand[1]
            if exc.split(".")[0] not in BUILTIN_NAMES and exc in self.facts.roots:
                pass
            self.emit(f"def {fname}(*args, **kwargs):\n    raise {exc}()")
            return fname
        if kind == "func":
            return self._func(node)
        if kind == "class":
            return self._class(node, callable_cls=True)
        if kind == "resource":
            return self._obj(node, resource=True)
        if kind == "obj":
            return self._obj(node)
        return None

    def _imported_chain(self, path: str) -> Optional[str]:
        """``path`` itself when it is an attribute chain (``token.COLON``)
        of a root this plan imports for real, else None."""
        root, _, rest = path.partition(".")
        if not rest or not re.fullmatch(r"[A-Za-z_][\w.]*", path):
            return None
        node = self.facts.roots.get(root)
        if node is None or root in self.plan.undefine:
            return None
        if self.gen._chosen(self.facts, self.plan, node)[0] not in ("imp", "import"):
            return None
        self.expr(node)               # make sure the import is emitted
        return path

    def _spec(self, node: Node, text: str) -> Optional[str]:
        """A value meeting a use-site constraint (knowledge.constraints), with
        the files and statements it needs."""
        from ..knowledge.constraints import parse_spec, source_for
        try:
            spec = parse_spec(text)
        except ValueError:
            return None
        hint = None
        if text.startswith(("path", "file")):
            hint = next((f for f in self.facts.files if _local_path(f)), None)
        else:
            nums = [v for op, v in node.compared if op in ("Eq", "Lt", "LtE", "Gt", "GtE")
                    and isinstance(v, (int, float)) and not isinstance(v, bool)]
            ints = [c for c in self.facts.constants if isinstance(c, int)
                    and not isinstance(c, bool) and 0 < c < 1000]
            hint = nums[0] + 1 if nums else (ints[0] if ints else None)
        leaf = node.path.rsplit(".", 1)[-1].strip("()[]_")
        built = source_for(spec, hint, leaf if leaf.isidentifier() else "")
        for st in built.setup:
            self.emit(st)
        for fname, content in built.files.items():
            if _local_path(fname):
                self.plan.files.setdefault(fname, content)
        return built.expr

    def _params(self, node: Node) -> str:
        """Every parameter optional (call sites pass fewer, or by keyword),
        then *args and **kwargs."""
        ar = sorted(a for a in node.arities if a >= 0)
        hi = ar[-1] if ar else 0
        ps = [f"a{i}=None" for i in range(hi)]
        return ", ".join(ps + ["*args", "**kwargs"])

    def _ret(self, node: Node) -> str:
        if node.ret is None:
            return "None"
        e = self.expr(node.ret)
        return "None" if e is None else e

    def _body(self, node: Node, tag: str, indent: str) -> str:
        """The body of a stand-in callable for ``node``: calls back the
        snippet's functions it is given (decorators, assertRaises, sub,
        map, ...), returns successive values for a ``seq`` result, or its
        result's value (the function itself for a decorator without one)."""
        lines = []
        if node.callback and self.facts.functions:
            cb = self.helper("_lx_call_back", _call_back_helper(self.facts.functions))
            lines.append(f"{cb}(args, kwargs)")
        ret_choice = self.gen._chosen(self.facts, self.plan, node.ret) \
            if node.ret is not None and self.want(node.ret) else None
        if ret_choice is not None and ret_choice[0] == "const" and \
                _in_loop_guard(self.facts, node.ret) and \
                isinstance(ret_choice[1], (str, int, float, bool, bytes, type(None))):
            # a loop reads it until it changes: the value a few times, then another
            v = ret_choice[1]
            ret_choice = ("seq", [v, v, v, _other(v) if _other(v) is not None else None])
        if ret_choice is not None and ret_choice[0] == "seq":
            vals = list(ret_choice[1])
            last = vals[-1]
            if all(isinstance(v, bool) for v in vals):
                # then True and False in turn: `while f()` and `while not f()` both end
                self._import("import itertools")
                self.emit(f"_it_{tag} = itertools.chain({vals[:-1]!r}, "
                          f"itertools.cycle([{last!r}, {not last!r}]))")
            else:
                self.emit(f"_it_{tag} = iter({vals[:-1]!r})")
            lines.append(f"return next(_it_{tag}, {last!r})")
        else:
            ret = self._ret(node)
            if ret != "None" and not _simple(ret):
                self.emit(f"_r_{tag} = {ret}")
                ret = f"_r_{tag}"
            if node.decorator and ret == "None":
                lines.append("if len(args) == 1 and callable(args[0]) and not kwargs:")
                lines.append("    return args[0]")
            lines.append(f"return {ret}")
        return "\n".join(indent + ln for ln in lines)

    def _func(self, node: Node) -> str:
        fname = "_f_" + _ident(node.path)
        if not node.path.endswith(("()", "]")) and "." not in node.path and \
                node.path.isidentifier() and not keyword.iskeyword(node.path):
            fname = node.path
        params = self._params(node)
        if node.callback and self.facts.functions:
            params = "*args, **kwargs"
        body = self._body(node, fname, "    ")
        self.emit(f"def {fname}({params}):\n{body}")
        return fname

    def _class(self, node: Node, callable_cls=False, resource=False, base=None) -> str:
        cname = "C_" + _ident(node.path)
        methods, plain = [], []
        for a, sub in node.attrs.items():
            if _pseudo(a) or (a.startswith("__") and a.endswith("__")):
                continue
            if sub.arities or sub.ret is not None:
                chosen = self.gen._chosen(self.facts, self.plan, sub)
                if chosen[0] == "raise":
                    methods.append(f"    def {a}(self, *args, **kwargs):\n"
                                   f"        raise {chosen[1]}()")
                    continue
                if not self.want(sub):
                    continue                  # sparse: injection answers it
                ar = sorted(x for x in sub.arities if x >= 0)
                ps = [f"a{i}=None" for i in range(ar[-1] if ar else 0)]
                if sub.callback and self.facts.functions:
                    ps = []
                params = ", ".join(["self"] + ps + ["*args", "**kwargs"])
                body = self._body(sub, f"{cname}_{a}", "        ")
                methods.append(f"    def {a}({params}):\n{body}")
            else:
                plain.append(a)
        inst_var = self.var(node)
        el = ""
        if node.uses & {"iter", "len"} or node.int_keys:
            els = self._elements(node)
            el = "[" + ", ".join(els) + "]"
            methods.append(f"    def __iter__(self):\n        return iter({inst_var}_items)")
            methods.append(f"    def __len__(self):\n        return len({inst_var}_items)")
            methods.append(f"    def __getitem__(self, i):\n        return {inst_var}_items[i]"
                           f" if isinstance(i, (int, slice)) else {inst_var}_items[0]")
        if resource or "with" in node.uses:
            methods.append("    def __enter__(self):\n        return self")
            methods.append("    def __exit__(self, *exc):\n        return False")
        if node.contains:
            methods.append("    def __contains__(self, x):\n        return True")
        if callable_cls:
            init = "    def __init__(self, *args, **kwargs):\n        pass"
            methods.insert(0, init)
        body = "\n".join(methods) if methods else "    pass"
        if el:
            self.emit(f"{inst_var}_items = {el}")
        self.emit(f"class {cname}{'(' + base + ')' if base else ''}:\n{body}")
        attr_lines = []
        for a in plain:
            if not self.want(node.attrs[a]):
                continue
            e = self.expr(node.attrs[a])
            if e is not None:
                attr_lines.append((a, e))
        if callable_cls:
            for a, e in attr_lines:
                self.emit(f"{cname}.{a} = {e}")
            return cname
        self.emit(f"{inst_var} = {cname}()")
        for a, e in attr_lines:
            self.emit(f"{inst_var}.{a} = {e}")
        return inst_var

    def _obj(self, node: Node, resource=False) -> str:
        return self._class(node, resource=resource)


def _call_back_helper(functions) -> str:
    """A function that calls the snippet's own functions among the given
    arguments, each once, with the arguments that follow it when they fit
    its signature, else with permissive stand-ins; errors are ignored."""
    names = sorted(set(functions) | {"<lambda>"})
    return ("class _lx_Any:\n"
            "    def __getattr__(self, name):\n"
            "        if name.startswith('__'):\n"
            "            raise AttributeError(name)\n"
            "        return _lx_Any()\n"
            "    def __call__(self, *args, **kwargs):\n"
            "        return _lx_Any()\n"
            "    def __iter__(self):\n"
            "        return iter(())\n"
            "    def __getitem__(self, key):\n"
            "        return _lx_Any()\n"
            "    def __str__(self):\n"
            "        return 'text'\n"
            f"_lx_CALLBACKS = {names!r}\n"
            "def _lx_call_back(args, kwargs):\n"
            "    import types\n"
            "    items = list(args) + list(kwargs.values())\n"
            "    for i, f in enumerate(items):\n"
            "        if not isinstance(f, types.FunctionType) or f.__name__ not in _lx_CALLBACKS:\n"
            "            continue\n"
            "        if getattr(f, '_lx_called', False):\n"
            "            continue\n"
            "        try:\n"
            "            f._lx_called = True\n"
            "        except Exception:\n"
            "            pass\n"
            "        code = f.__code__\n"
            "        need = code.co_argcount - len(f.__defaults__ or ())\n"
            "        rest = list(args[i + 1:]) if i < len(args) else []\n"
            "        call = rest if len(rest) >= need and (len(rest) <= code.co_argcount or\n"
            "                                              code.co_flags & 4) else \\\n"
            "            [_lx_Any() for _ in range(need)]\n"
            "        try:\n"
            "            f(*call)\n"
            "        except (Exception, SystemExit):\n"
            "            pass")


_STR_SPECS = ("numstr", "str", "ident", "fmt", "json", "regex", "date")


def _promote(cands: list, node: Node) -> list:
    """A string built from the snippet's own constraints (or meeting its
    use-site constraint: int(value) and value.lower() -> '12') goes before
    the generic string, a sequence of the length the code tests before the
    generic list."""
    out = list(cands)
    if ("str",) in out:
        at = out.index(("str",))
        specs = [c for c in out[at + 1:] if c[0] == "spec" and c[1].startswith(_STR_SPECS)]
        for c in reversed(specs):
            out.remove(c)
            out.insert(at, c)
    for generic, special in ((("str",), "const"), (("list",), "len")):
        if generic not in out:
            continue
        at = out.index(generic)
        for i, c in enumerate(out):
            if i > at and c[0] == special and (special == "len" or (
                    isinstance(c[1], str) and c[1] not in ("", "zzz") and
                    generic == ("str",) and _str_like(node))):
                out.insert(at, out.pop(i))
                break
    return out


def _ancestors(path: str) -> list:
    """The paths a node's path goes through: 'a.b().c' -> ['a', 'a.b', 'a.b()']."""
    out = []
    i = 0
    while i < len(path):
        c = path[i]
        if c == "." and i:
            out.append(path[:i])
        elif c == "(" and path.startswith("()", i):
            out.append(path[:i])
            i += 1
        elif c == "[" and path.startswith("[]", i):
            out.append(path[:i])
            i += 1
        i += 1
    return [p for p in out if p and p != path]


def _match_with_groups(node: Node) -> Optional[str]:
    """A real ``re.Match`` that has a named group for each key the code reads
    of its ``groupdict()`` or asks ``group()`` for (``groups['scheme']``,
    ``m.group('path')``), each holding one character; None when it reads
    none by name."""
    names = []
    gd = node.attrs.get("groupdict")
    gd = gd.ret if gd is not None else None
    if gd is not None:
        names += [k for k in gd.keys if isinstance(k, str)]
        names += [c for m, c in gd.asked if m != "group"]
        names += [k for k, _, _ in gd.key_cmp if isinstance(k, str)]
    names += [c for m, c in node.asked if m == "group"]
    names = [k for k in dict.fromkeys(names) if k.isidentifier()][:40]
    if not names:
        return None
    pattern = "(?s)" + "".join(f"(?P<{k}>.)" for k in names)
    return f"re.match({pattern!r}, {'a' * len(names)!r})"


_CARRIES = {"attr": ("obj", "class", "resource", "subclass", "exc_class"),
            "ret": ("func", "class", "subclass"),
            "item": ("list", "dict", "obj", "len", "known", "anykey"),
            "part": ("tuple",)}
_DEFAULT_CARRIER = {"attr": ("obj",), "ret": ("func",), "item": ("list",), "part": ("tuple",)}


def _carrier(node: Node, plan: Plan, cands: list) -> tuple:
    """For a sparse plan: the first candidate of ``node`` that can hold the
    decided values below it (an object for attributes, a function for a
    call's result, a list for elements, a tuple for unpacked parts)."""
    decided = plan.decided()
    needs = set()
    for a, sub in node.attrs.items():
        if any(d == sub.path or d.startswith(sub.path) for d in decided):
            needs.add("part" if _pseudo(a) else "attr")
    if node.ret is not None and any(d.startswith(node.ret.path) for d in decided):
        needs.add("ret")
    if node.item is not None and any(d.startswith(node.item.path) for d in decided):
        needs.add("item")
    if not needs:
        return cands[0] if cands else ("skip",)
    for c in cands:
        if all(c[0] in _CARRIES[k] for k in needs):
            return c
    if "attr" in needs and "ret" in needs:
        return ("class",)
    return _DEFAULT_CARRIER[sorted(needs)[0]]


#: words of TypeError messages naming the type a builtin wanted -> candidates
_TYPE_WORDS = [
    (r"\b(dict|mapping)\b", [("dict",)]),
    (r"\b(str|string|code object)\b", [("str",)]),
    (r"\bbytes(-like)?\b", [("const", b"data")]),
    (r"\b(int|integer|index)\b", [("const", 1)]),
    (r"\b(float|real number|number)\b", [("const", 1.5)]),
    (r"\btuple\b", [("tuple",), ("const", (1, 2))]),
    (r"\b(list|sequence|iterable)\b", [("list",)]),
    (r"\bcallable\b", [("func",)]),
    (r"\btype\b", [("class",)]),
]


#: the kind a value takes beside an operand of a type (``path / x``: a text)
_OPERAND_KINDS = {"PosixPath": ("str",), "PurePosixPath": ("str",), "WindowsPath": ("str",),
                  "PureWindowsPath": ("str",), "str": ("str",), "int": ("const", 1),
                  "float": ("const", 1.5), "list": ("list",)}


def _kind_named(kind, name: str) -> bool:
    """Whether the candidate ``kind`` makes a value of the type ``name``
    (as a TypeError names it: 'int', 'NoneType', 'str')."""
    if not isinstance(kind, tuple) or not kind:
        return False
    if kind[0] == "const" and len(kind) > 1:
        return type(kind[1]).__name__ == name
    return kind[0] == name


def _wanted_kinds(msg: str) -> list:
    """Candidates for the type a TypeError says was expected ("must be a
    dict", "expected str instance", "argument must be an int")."""
    m = re.search(r"(?:must be|expected|requires|should be|need(?:s)?)\s+(?:a |an )?"
                  r"([\w ,-]+?)(?:,| not | instance|$|\))", msg)
    if not m:
        return []
    want = m.group(1)
    out = []
    for pat, cands in _TYPE_WORDS:
        if re.search(pat, want):
            out += cands
    return out


def _culprits(facts: SnippetFacts, msg: str) -> list:
    """The nodes whose generated stand-ins the message names (C_<path>,
    _f_<path>)."""
    out = []
    for r in facts.roots.values():
        for x in r.walk():
            ident = _ident(x.path)
            if re.search(rf"\b(C_|_f_){re.escape(ident)}\b", msg) or \
                    (x.path.isidentifier() and re.search(rf"'{re.escape(x.path)}'", msg)):
                out.append(x)
    return out


_MODULE_CACHE: dict = {}


def _binds_module(stmt: str, target: str) -> bool:
    """Whether the import statement binds a module (``import token``,
    ``from docutils.transforms import parts``)."""
    if stmt.startswith("import "):
        return True
    ok = _MODULE_CACHE.get(target)
    if ok is None:
        ok = _MODULE_CACHE[target] = _module_exists(target)
    return ok


def _module_exists(name: str) -> bool:
    """Whether ``name`` names an importable module, found on the path without
    importing anything (importlib.util.find_spec('a.b') imports the package
    ``a``: a second or more for IPython, in the searching process)."""
    import importlib.machinery
    import sys
    if name in sys.modules:
        return True
    parts = name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])
        for i in range(1, len(parts)):
            if spec is None or spec.submodule_search_locations is None:
                return False
            full = ".".join(parts[:i + 1])
            if full in sys.modules:
                spec = getattr(sys.modules[full], "__spec__", None) or spec
                continue
            spec = importlib.machinery.PathFinder.find_spec(
                full, list(spec.submodule_search_locations))
    except (ImportError, ValueError, AttributeError):
        return False
    return spec is not None


def _in_loop_guard(facts: SnippetFacts, node: Node) -> bool:
    return any(node.path in paths for paths in facts.loop_guards.values())


def _falsy(cand: tuple) -> bool:
    return cand[0] == "none" or (cand[0] == "const" and not isinstance(cand[1], type) and
                                 not cand[1])


def _str_like(node: Node) -> bool:
    from .values import _is_str_like
    return _is_str_like(node)


def _builtins_called(source: str, line: Optional[int]) -> list:
    import ast
    if not line:
        return []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for e in ast.walk(tree):
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                e.lineno <= line <= (e.end_lineno or e.lineno) and e.func.id in BUILTIN_NAMES \
                and e.func.id not in out:
            out.append(e.func.id)
    return out


def _pseudo(attr: str) -> bool:
    """The miner's names for unpacked tuple items: _0, _1, ..."""
    return attr[:1] == "_" and attr[1:].isdigit()


def _simple(expr: str) -> bool:
    return bool(re.fullmatch(r"[\w.]+|'[^'\n]*'|\"[^\"\n]*\"|-?\d+(\.\d+)?", expr))


def _is_module(mod: str) -> bool:
    return mod in ("matplotlib.pyplot", "xml.etree.ElementTree") or "." not in mod
