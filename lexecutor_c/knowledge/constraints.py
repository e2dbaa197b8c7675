"""Use-site constraints: what an argument of a well-known callable must be.

The table ``TABLE`` maps a callee's qualified name (``range``,
``os.path.join``, ``str.join``, ``PIL.Image.open``; builtins without a
prefix, methods of builtin types as ``type.method``) to its arguments:
positions (0-based ints), keyword names, or ``"*"`` for every positional
argument not listed.  Each argument has a *spec*, written in a small
language so the table stays data:

=================  ======================================================
spec               a value that satisfies it
=================  ======================================================
``int``            an int (``int>=0``, ``int>0``, ``int!=0``: bounded)
``num``            an int or a float (``num>=0``, ``num>0`` likewise)
``numstr``         a str that ``int()``/``float()`` accept, or a number
``str``            a str; ``ident``: an identifier; ``char``: one char
``regex``          a str regular expression; ``json``: a JSON document
``fmt``            a format string (``strftime``/``struct``: by callee)
``path:r``         a str path of an existing file (``path:rb`` binary,
                   ``path:image`` an image, ``path:dir`` a folder)
``path:w``         a str path that can be written
``path``           a str path (existing or not)
``bytes``          bytes
``iter``           an iterable; ``iter[S]``: of elements satisfying S,
                   e.g. ``iter[str]``, ``iter[num]``, ``iter[pair]``
``seq``            a sequence (``seq[S]`` likewise); ``sized``: has len()
``nonempty``       a non-empty sequence (``random.choice``)
``pair``           a 2-tuple; ``tuple[int,int]``: a tuple of such
``mapping``        a dict; ``hashable``: a dict key
``callable``       a callable (``callable1``, ``callable2``: its arity)
``type``           a class or tuple of classes (``isinstance``)
``file:r``         an open readable text file (``file:rb``, ``file:w``)
``date:y/m/d``     ints valid as year, month, day (``datetime(...)``)
``A|B``            either
=================  ======================================================

API (used by the offline generator and available to injectors):

* :func:`constraint_for` ``(callee, arg) -> Spec | None``;
* :func:`source_for` ``(spec, hint) -> Built``: a source expression, the
  statements to run first and the files to create (the generator);
* :func:`example` ``(spec, workdir)``: a concrete value, files written into
  ``workdir`` (a runtime injector, tests);
* :func:`satisfies` ``(value, spec)``: whether a value fits;
* :func:`runtime_class` ``(spec)``: the abstract value class of
  docs/RUNTIME.md (``int_pos``, ``str_nonempty``, ...) closest to it.
"""
from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass, field
from typing import Optional, Union

# ------------------------------------------------------------------ the table

_DATE = {0: "date:y", 1: "date:m", 2: "date:d", 3: "int>=0", 4: "int>=0", 5: "int>=0",
         "year": "date:y", "month": "date:m", "day": "date:d"}
_PATH1 = {0: "path"}
_PATHR = {0: "path:r"}

TABLE: dict = {
    # builtins
    "range": {0: "int", 1: "int", 2: "int!=0"},
    "len": {0: "sized"},
    "open": {0: "path:r", "file": "path:r", 1: "str", "mode": "str", "encoding": "str"},
    "int": {0: "numstr", 1: "int>0", "base": "int>0"},
    "float": {0: "numstr"},
    "complex": {0: "num", 1: "num"},
    "bool": {},
    "zip": {"*": "iter"},
    "enumerate": {0: "iter", 1: "int", "start": "int"},
    "sorted": {0: "iter[num]", "key": "callable1", "reverse": "bool"},
    "reversed": {0: "seq"},
    "sum": {0: "iter[num]", 1: "num"},
    "min": {0: "iter[num]", "*": "num", "key": "callable1"},
    "max": {0: "iter[num]", "*": "num", "key": "callable1"},
    "list": {0: "iter"}, "tuple": {0: "iter"}, "set": {0: "iter[hashable]"},
    "frozenset": {0: "iter[hashable]"},
    "dict": {0: "mapping|iter[pair]"},
    "map": {0: "callable1", "*": "iter"},
    "filter": {0: "callable1", 1: "iter"},
    "any": {0: "iter"}, "all": {0: "iter"},
    "iter": {0: "iter"}, "next": {0: "iter"},
    "isinstance": {1: "type"}, "issubclass": {0: "type", 1: "type"},
    "getattr": {1: "ident"}, "setattr": {1: "ident"}, "hasattr": {1: "ident"},
    "delattr": {1: "ident"},
    "abs": {0: "num"}, "round": {0: "num", 1: "int"}, "divmod": {0: "num", 1: "num>0"},
    "pow": {0: "num", 1: "num"},
    "chr": {0: "int>0"}, "ord": {0: "char"}, "hex": {0: "int"}, "oct": {0: "int"},
    "bin": {0: "int"}, "format": {1: "str"}, "hash": {0: "hashable"},
    "bytes": {0: "int>=0|iter[int]"}, "bytearray": {0: "int>=0|iter[int]"},
    "input": {0: "str"}, "exec": {0: "str"}, "eval": {0: "str"}, "vars": {},
    "callable": {}, "print": {}, "repr": {}, "str": {}, "type": {},
    # methods of builtin types
    "str.join": {0: "iter[str]"},
    "str.split": {0: "str", 1: "int", "sep": "str", "maxsplit": "int"},
    "str.rsplit": {0: "str", 1: "int"},
    "str.replace": {0: "str", 1: "str", 2: "int"},
    "str.startswith": {0: "str"}, "str.endswith": {0: "str"},
    "str.strip": {0: "str"}, "str.lstrip": {0: "str"}, "str.rstrip": {0: "str"},
    "str.find": {0: "str"}, "str.rfind": {0: "str"}, "str.index": {0: "str"},
    "str.count": {0: "str"}, "str.partition": {0: "str"}, "str.encode": {0: "str"},
    "str.zfill": {0: "int>=0"}, "str.center": {0: "int>=0", 1: "char"},
    "str.ljust": {0: "int>=0", 1: "char"}, "str.rjust": {0: "int>=0", 1: "char"},
    "bytes.decode": {0: "str"},
    "list.insert": {0: "int"}, "list.pop": {0: "int"}, "list.extend": {0: "iter"},
    "dict.get": {0: "hashable"}, "dict.pop": {0: "hashable"},
    "dict.setdefault": {0: "hashable"}, "dict.update": {0: "mapping|iter[pair]"},
    "dict.fromkeys": {0: "iter[hashable]"},
    "set.update": {"*": "iter[hashable]"}, "set.union": {"*": "iter"},
    "set.add": {0: "hashable"},
    # os, os.path, shutil, glob, pathlib
    "os.path.join": {"*": "str"},
    "os.path.exists": _PATH1, "os.path.isfile": _PATHR, "os.path.isdir": {0: "path:dir"},
    "os.path.getsize": _PATHR, "os.path.getmtime": _PATHR, "os.path.basename": _PATH1,
    "os.path.dirname": _PATH1, "os.path.splitext": _PATH1, "os.path.split": _PATH1,
    "os.path.abspath": _PATH1, "os.path.realpath": _PATH1, "os.path.normpath": _PATH1,
    "os.path.expanduser": _PATH1, "os.path.relpath": {0: "path", 1: "path"},
    "os.listdir": {0: "path:dir"}, "os.scandir": {0: "path:dir"}, "os.walk": {0: "path:dir"},
    "os.chdir": {0: "path:dir"}, "os.stat": _PATHR, "os.remove": _PATHR, "os.unlink": _PATHR,
    "os.rename": {0: "path:r", 1: "path:w"}, "os.makedirs": {0: "path:w"},
    "os.mkdir": {0: "path:w"}, "os.rmdir": {0: "path:dir"}, "os.getenv": {0: "str"},
    "os.system": {0: "str"}, "os.environ.get": {0: "str"},
    "shutil.copy": {0: "path:r", 1: "path:w"}, "shutil.copyfile": {0: "path:r", 1: "path:w"},
    "shutil.copy2": {0: "path:r", 1: "path:w"}, "shutil.move": {0: "path:r", 1: "path:w"},
    "shutil.rmtree": {0: "path:dir"}, "glob.glob": {0: "str"}, "glob.iglob": {0: "str"},
    "pathlib.Path": {"*": "path"}, "pathlib.PurePath": {"*": "path"},
    "pathlib.Path.open": {0: "str"}, "pathlib.Path.glob": {0: "str"},
    # re
    "re.compile": {0: "regex", 1: "int>=0"},
    "re.match": {0: "regex", 1: "str"}, "re.search": {0: "regex", 1: "str"},
    "re.fullmatch": {0: "regex", 1: "str"}, "re.findall": {0: "regex", 1: "str"},
    "re.finditer": {0: "regex", 1: "str"}, "re.split": {0: "regex", 1: "str"},
    "re.sub": {0: "regex", 1: "str", 2: "str"}, "re.subn": {0: "regex", 1: "str", 2: "str"},
    "re.escape": {0: "str"},
    "re.Pattern.match": {0: "str"}, "re.Pattern.search": {0: "str"},
    "re.Pattern.findall": {0: "str"}, "re.Pattern.sub": {0: "str", 1: "str"},
    # serialisation
    "json.loads": {0: "json"}, "json.load": {0: "file:r"}, "json.dump": {1: "file:w"},
    "pickle.load": {0: "file:rb"}, "pickle.loads": {0: "bytes"}, "pickle.dump": {1: "file:wb"},
    "csv.reader": {0: "file:r|iter[str]"}, "csv.DictReader": {0: "file:r|iter[str]"},
    "csv.writer": {0: "file:w"}, "csv.DictWriter": {0: "file:w", 1: "iter[str]"},
    "base64.b64encode": {0: "bytes"}, "base64.b64decode": {0: "bytes"},
    "hashlib.md5": {0: "bytes"}, "hashlib.sha1": {0: "bytes"}, "hashlib.sha256": {0: "bytes"},
    "struct.pack": {0: "fmt"}, "struct.unpack": {0: "fmt", 1: "bytes"},
    "zipfile.ZipFile": {0: "path:zip"}, "tarfile.open": {0: "path:r"},
    "sqlite3.connect": {0: "path:w"}, "gzip.open": {0: "path:gz"},
    "subprocess.run": {0: "iter[str]|str"}, "subprocess.call": {0: "iter[str]|str"},
    "subprocess.check_output": {0: "iter[str]|str"}, "subprocess.Popen": {0: "iter[str]|str"},
    "urllib.parse.urlparse": {0: "str"}, "urllib.parse.quote": {0: "str"},
    # datetime, time
    "datetime.datetime": _DATE, "datetime.date": _DATE,
    "datetime.time": {0: "int>=0", 1: "int>=0", 2: "int>=0"},
    "datetime.timedelta": {"*": "num", "days": "num", "seconds": "num", "hours": "num",
                           "minutes": "num", "weeks": "num"},
    "datetime.datetime.strptime": {0: "str", 1: "fmt"},
    "datetime.datetime.fromtimestamp": {0: "num>=0"},
    "datetime.datetime.strftime": {0: "fmt"}, "datetime.date.strftime": {0: "fmt"},
    "time.sleep": {0: "num>=0"}, "time.strftime": {0: "fmt"}, "time.strptime": {0: "str",
                                                                               1: "fmt"},
    "time.localtime": {0: "num>=0"}, "time.gmtime": {0: "num>=0"},
    # math, random, statistics
    "math.sqrt": {0: "num>=0"}, "math.log": {0: "num>0", 1: "num>0"}, "math.log10": {0: "num>0"},
    "math.log2": {0: "num>0"}, "math.exp": {0: "num"}, "math.floor": {0: "num"},
    "math.ceil": {0: "num"}, "math.factorial": {0: "int>=0"}, "math.gcd": {"*": "int"},
    "math.sin": {0: "num"}, "math.cos": {0: "num"}, "math.tan": {0: "num"},
    "math.radians": {0: "num"}, "math.degrees": {0: "num"}, "math.pow": {0: "num", 1: "num"},
    "math.isclose": {0: "num", 1: "num"}, "math.hypot": {"*": "num"},
    "math.comb": {0: "int>=0", 1: "int>=0"}, "math.fsum": {0: "iter[num]"},
    "random.randint": {0: "int", 1: "int"}, "random.randrange": {0: "int>0", 1: "int"},
    "random.choice": {0: "nonempty"}, "random.sample": {0: "seq", 1: "int>=0"},
    "random.shuffle": {0: "list"}, "random.uniform": {0: "num", 1: "num"},
    "random.seed": {}, "statistics.mean": {0: "nonempty[num]"},
    "statistics.median": {0: "nonempty[num]"}, "statistics.stdev": {0: "nonempty[num]"},
    # collections, itertools, functools, operator
    "collections.deque": {0: "iter", 1: "int>0", "maxlen": "int>0"},
    "collections.Counter": {0: "iter[hashable]|mapping"},
    "collections.OrderedDict": {0: "mapping|iter[pair]"},
    "collections.defaultdict": {0: "callable"},
    "collections.namedtuple": {0: "ident", 1: "iter[str]|str"},
    "itertools.chain": {"*": "iter"}, "itertools.islice": {0: "iter", 1: "int>=0"},
    "itertools.product": {"*": "iter"}, "itertools.permutations": {0: "iter", 1: "int>=0"},
    "itertools.combinations": {0: "iter", 1: "int>=0"}, "itertools.groupby": {0: "iter"},
    "itertools.cycle": {0: "iter"}, "itertools.repeat": {1: "int>=0"},
    "itertools.accumulate": {0: "iter[num]"}, "itertools.zip_longest": {"*": "iter"},
    "functools.reduce": {0: "callable2", 1: "iter"}, "functools.partial": {0: "callable"},
    "heapq.heappush": {0: "list"}, "heapq.heappop": {0: "nonempty"},
    "heapq.heapify": {0: "list"}, "heapq.nlargest": {0: "int>=0", 1: "iter[num]"},
    "heapq.nsmallest": {0: "int>=0", 1: "iter[num]"},
    "bisect.bisect_left": {0: "seq[num]", 1: "num"}, "bisect.insort": {0: "list", 1: "num"},
    "operator.itemgetter": {}, "operator.attrgetter": {"*": "str"},
    "textwrap.wrap": {0: "str", 1: "int>0"}, "textwrap.dedent": {0: "str"},
    "string.Template": {0: "str"},
    "decimal.Decimal": {0: "numstr"}, "fractions.Fraction": {0: "numstr", 1: "int!=0"},
    "uuid.UUID": {0: "str"},
    # third-party libraries forum snippets use most
    "PIL.Image.open": {0: "path:image"}, "PIL.Image.new": {0: "str", 1: "tuple[int,int]"},
    "numpy.array": {0: "iter[num]"}, "numpy.asarray": {0: "iter[num]"},
    "numpy.zeros": {0: "int>=0|tuple[int,int]"}, "numpy.ones": {0: "int>=0|tuple[int,int]"},
    "numpy.empty": {0: "int>=0|tuple[int,int]"}, "numpy.arange": {0: "num", 1: "num", 2: "num>0"},
    "numpy.linspace": {0: "num", 1: "num", 2: "int>0"}, "numpy.load": {0: "path:npy"},
    "numpy.loadtxt": {0: "path:numbers"}, "numpy.genfromtxt": {0: "path:numbers"},
    "numpy.mean": {0: "iter[num]"}, "numpy.sum": {0: "iter[num]"},
    "numpy.sqrt": {0: "num>=0"}, "numpy.random.rand": {"*": "int>0"},
    "numpy.random.randint": {0: "int", 1: "int"}, "numpy.reshape": {0: "iter[num]"},
    "matplotlib.pyplot.plot": {0: "iter[num]", 1: "iter[num]"},
    "matplotlib.pyplot.imread": {0: "path:image"}, "matplotlib.pyplot.savefig": {0: "path:w"},
    "cv2.imread": {0: "path:image"}, "imageio.imread": {0: "path:image"},
}

#: callee spellings that name the same table row
ALIASES = {"builtins." + k: k for k in TABLE if "." not in k}
ALIASES.update({"np." + k[6:]: k for k in TABLE if k.startswith("numpy.")})
ALIASES.update({"plt." + k[18:]: k for k in TABLE if k.startswith("matplotlib.pyplot.")})
ALIASES.update({"Image.open": "PIL.Image.open", "Image.new": "PIL.Image.new",
                "Path": "pathlib.Path", "deque": "collections.deque",
                "Counter": "collections.Counter", "defaultdict": "collections.defaultdict",
                "OrderedDict": "collections.OrderedDict", "namedtuple": "collections.namedtuple",
                "datetime": "datetime.datetime", "date": "datetime.date",
                "timedelta": "datetime.timedelta", "datetime.strptime":
                "datetime.datetime.strptime", "reduce": "functools.reduce",
                "posixpath.join": "os.path.join", "Decimal": "decimal.Decimal",
                "Fraction": "fractions.Fraction", "sleep": "time.sleep",
                "randint": "random.randint", "choice": "random.choice", "sqrt": "math.sqrt"})

# ------------------------------------------------------------------ specs


@dataclass(frozen=True)
class Spec:
    """A parsed constraint: ``kind`` with an optional element spec, bounds
    and alternatives."""

    kind: str
    op: str = ""                  # ">=", ">", "!=" (with ``bound``)
    bound: float = 0
    sub: tuple = ()               # element spec(s): iter[S] -> (S,), tuple[a,b] -> (a, b)
    alts: tuple = ()              # A|B -> (A, B); kind "alt"
    text: str = field(default="", compare=False)

    def __str__(self) -> str:
        return self.text or self.kind


def _split_top(s: str, sep: str) -> list:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


_SPEC_CACHE: dict = {}


def parse_spec(text: str) -> Spec:
    """A Spec of the table's little language; ValueError for unknown specs."""
    sp = _SPEC_CACHE.get(text)
    if sp is not None:
        return sp
    s = text.strip()
    alts = _split_top(s, "|")
    if len(alts) > 1:
        sp = Spec("alt", alts=tuple(parse_spec(a) for a in alts), text=s)
    elif "[" in s and s.endswith("]"):
        head, inner = s[:-1].split("[", 1)
        if head not in ("iter", "seq", "tuple", "nonempty", "list"):
            raise ValueError(f"unknown constraint spec {text!r}")
        sp = Spec(head, sub=tuple(parse_spec(x) for x in _split_top(inner, ",")), text=s)
    else:
        kind, op, bound = s, "", 0.0
        for o in (">=", "!=", ">"):
            if o in s:
                kind, b = s.split(o, 1)
                op, bound = o, float(b)
                break
        if kind not in _KINDS and not kind.startswith(("path", "file", "date:")):
            raise ValueError(f"unknown constraint spec {text!r}")
        sp = Spec(kind, op, bound, text=s)
    _SPEC_CACHE[text] = sp
    return sp


_KINDS = {"int", "num", "numstr", "str", "ident", "char", "regex", "json", "fmt", "bytes",
          "iter", "seq", "sized", "nonempty", "pair", "tuple", "list", "mapping", "hashable",
          "callable", "callable1", "callable2", "type", "bool", "path"}


def normalize_callee(callee: str) -> str:
    c = callee.strip()
    return ALIASES.get(c, c)


def constraint_for(callee: str, arg: Union[int, str]) -> Optional[Spec]:
    """The spec of argument ``arg`` (0-based position or keyword name) of
    ``callee`` (a qualified name: 'range', 'os.path.join', 'str.join',
    'PIL.Image.open'), or None when the table says nothing."""
    row = TABLE.get(normalize_callee(callee))
    if row is None:
        return None
    text = row.get(arg)
    if text is None and isinstance(arg, int):
        text = row.get("*")
    return parse_spec(text) if text else None


def known_callee(callee: str) -> bool:
    return normalize_callee(callee) in TABLE


# ------------------------------------------------------------------ files

def png_bytes(width: int = 8, height: int = 8, rgb=(200, 120, 40)) -> bytes:
    """A valid RGB PNG image, built with zlib (no imaging library needed)."""
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(
            ">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height,
                                                              8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp", ".ico",
              ".ppm")


def pil_available() -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec("PIL") is not None
    except (ImportError, ValueError):
        return False


def image_setup(fname: str) -> str:
    """Statements writing a real image at ``fname`` with PIL (format from the
    extension, PNG when PIL does not know it), else PNG bytes."""
    return ("try:\n"
            "    from PIL import Image as _LxImage\n"
            f"    _lx_img = _LxImage.new('RGB', (64, 48), (200, 120, 40))\n"
            "    try:\n"
            f"        _lx_img.save({fname!r})\n"
            "    except (KeyError, ValueError, OSError):\n"
            f"        _lx_img.save({fname!r}, format='PNG')\n"
            "except ImportError:\n"
            f"    open({fname!r}, 'wb').write({png_bytes()!r})")


def file_content(fname: str) -> Union[str, bytes]:
    """Content fitting a file name's extension: text for text formats,
    bytes for images (PNG), pickles, archives, NumPy arrays."""
    low = fname.lower()
    if low.endswith(".csv"):
        return "id,name,value\n1,alpha,10\n2,beta,20\n3,gamma,30\n"
    if low.endswith(".tsv"):
        return "id\tname\tvalue\n1\talpha\t10\n2\tbeta\t20\n"
    if low.endswith(".json"):
        return '{"name": "alpha", "value": 10, "items": [1, 2, 3]}\n'
    if low.endswith((".yaml", ".yml")):
        return "name: alpha\nvalue: 10\n"
    if low.endswith((".xml", ".html", ".htm")):
        return "<root><item name=\"alpha\">10</item><item name=\"beta\">20</item></root>\n"
    if low.endswith((".ini", ".cfg")):
        return "[DEFAULT]\nname = alpha\nvalue = 10\n"
    if low.endswith(IMAGE_EXTS):
        return png_bytes()
    if low.endswith((".pkl", ".pickle", ".p")):
        import pickle
        return pickle.dumps({"name": "alpha", "value": 10, "items": [1, 2, 3]}, protocol=2)
    if low.endswith(".zip"):
        import io
        import zipfile
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("data.txt", "first line\nsecond line\n")
        return buf.getvalue()
    if low.endswith(".gz"):
        import gzip
        return gzip.compress(b"first line\nsecond line\n", mtime=0)
    if low.endswith(".npy"):
        # a 1-d float64 array [1, 2, 3] in NumPy's .npy format (version 1.0)
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
        pad = (64 - (10 + len(header) + 1) % 64) % 64
        hb = (header + " " * pad + "\n").encode("latin1")
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hb)) + hb + \
            struct.pack("<3d", 1.0, 2.0, 3.0)
    if low.endswith((".dat", ".txt")) and "number" in low:
        return "1 2 3\n4 5 6\n"
    return "first line\nsecond line\nthird line\n"


# ------------------------------------------------------------------ builders

@dataclass
class Built:
    """What the generator needs to give a value: ``expr`` (source), ``setup``
    statements to run first, ``files`` to create (name -> str or bytes)."""

    expr: str
    setup: list = field(default_factory=list)
    files: dict = field(default_factory=dict)


_EXT_FOR = {"path:image": ".png", "path:npy": ".npy", "path:numbers": ".txt",
            "path:zip": ".zip", "path:gz": ".gz", "path:rb": ".bin", "path:r": ".txt"}


def _int_for(spec: Spec, hint=None) -> int:
    if isinstance(hint, int) and not isinstance(hint, bool) and _int_ok(hint, spec):
        return hint
    v = 3
    if spec.op in (">=", ">") and v <= spec.bound:
        v = int(spec.bound) + 1
    return v


def _int_ok(v, spec: Spec) -> bool:
    if spec.op == ">=":
        return v >= spec.bound
    if spec.op == ">":
        return v > spec.bound
    if spec.op == "!=":
        return v != spec.bound
    return True


def source_for(spec: Union[Spec, str], hint=None, name: str = "") -> Built:
    """Source for a value satisfying ``spec``.  ``hint``: a value the snippet
    suggests (a constant it compares with, a file name it uses) kept when it
    fits; ``name``: the snippet's name for the value (file names)."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    k = spec.kind
    if k == "alt":
        for a in spec.alts:                 # the first alternative a hint fits
            if hint is not None and satisfies(hint, a):
                return source_for(a, hint, name)
        return source_for(spec.alts[0], hint, name)
    if k == "int":
        return Built(repr(_int_for(spec, hint)))
    if k == "num":
        if isinstance(hint, (int, float)) and not isinstance(hint, bool) and \
                _int_ok(hint, spec):
            return Built(repr(hint))
        return Built("2.5" if spec.op != ">" or spec.bound < 2.5 else repr(spec.bound + 1))
    if k == "bool":
        return Built("True")
    if k == "numstr":
        if isinstance(hint, str) and satisfies(hint, spec):
            return Built(repr(hint))
        return Built("'3'")
    if k in ("str", "fmt"):
        if isinstance(hint, str):
            return Built(repr(hint))
        return Built(repr("%Y-%m-%d" if k == "fmt" else (name or "text")))
    if k == "ident":
        return Built(repr(hint if isinstance(hint, str) and hint.isidentifier() else
                          (name if name.isidentifier() else "value")))
    if k == "char":
        return Built("'x'")
    if k == "regex":
        return Built(repr(hint) if isinstance(hint, str) else r"r'\w+'")
    if k == "json":
        return Built(repr('{"name": "alpha", "value": 10, "items": [1, 2, 3]}'))
    if k == "bytes":
        return Built("b'data'")
    if k in ("iter", "seq", "nonempty", "list", "sized"):
        el = spec.sub[0] if spec.sub else None
        if el is None:
            return Built("[1, 2, 3]")
        b = source_for(el)
        return Built(f"[{b.expr}, {b.expr}]", b.setup, b.files)
    if k == "tuple":
        parts = [source_for(s) for s in (spec.sub or (parse_spec("int"), parse_spec("int")))]
        return Built("(" + ", ".join(p.expr for p in parts) + ("," if len(parts) == 1 else "")
                     + ")", [s for p in parts for s in p.setup],
                     {k2: v for p in parts for k2, v in p.files.items()})
    if k == "pair":
        return Built("('key', 1)")
    if k == "mapping":
        return Built("{'key': 1}")
    if k == "hashable":
        return Built(repr(hint) if isinstance(hint, (str, int)) else "'key'")
    if k in ("callable", "callable1"):
        return Built("(lambda *a, **k: a[0] if a else None)")
    if k == "callable2":
        return Built("(lambda a, b: a)")
    if k == "type":
        return Built("object")
    if k.startswith("date:"):
        return Built({"date:y": "2020", "date:m": "1", "date:d": "15"}[k])
    if k.startswith("file:"):
        mode = k.split(":", 1)[1]
        fname = (hint if isinstance(hint, str) else "") or ("data.bin" if "b" in mode
                                                            else "data.txt")
        files = {} if "w" in mode else {fname: file_content(fname)}
        return Built(f"open({fname!r}, {mode!r})", [], files)
    if k.startswith("path"):
        sub = k.split(":", 1)[1] if ":" in k else ""
        fname = hint if isinstance(hint, str) and hint else (
            (name if name and "." in name else "data") + ("" if "." in name else
                                                          _EXT_FOR.get(k, ".txt")))
        if sub == "dir":
            dname = hint if isinstance(hint, str) and hint else "data_dir"
            return Built(repr(dname), [f"import os as _lx_os\n_lx_os.makedirs({dname!r}, "
                                       "exist_ok=True)\n"
                                       f"open(_lx_os.path.join({dname!r}, 'a.txt'), 'w')"
                                       ".write('first line\\n')"])
        if sub in ("", "w"):
            return Built(repr(fname))
        if sub == "image" or fname.lower().endswith(IMAGE_EXTS):
            return Built(repr(fname), [image_setup(fname)])
        return Built(repr(fname), [], {fname: file_content(fname)})
    return Built("None")


def build_value(built: Built, keep_existing: bool = False):
    """Evaluate ``built`` in the current folder: write its files (those that
    exist already are kept when ``keep_existing``), run its set-up
    statements, return the value of its expression."""
    for fname, content in built.files.items():
        if keep_existing and os.path.exists(fname):
            continue
        with open(fname, "wb" if isinstance(content, bytes) else "w") as f:
            f.write(content)
    ns: dict = {}
    for stmt in built.setup:
        exec(compile(stmt, "<constraint setup>", "exec"), ns)
    return eval(compile(built.expr, "<constraint value>", "eval"), ns)


def example(spec: Union[Spec, str], workdir: Optional[str] = None, hint=None):
    """A concrete value satisfying ``spec``; files it needs are written into
    ``workdir`` (default: the current folder) and paths are relative to it."""
    b = source_for(spec, hint)
    cwd = os.getcwd()
    if workdir is not None:
        os.makedirs(workdir, exist_ok=True)
        os.chdir(workdir)
    try:
        value = build_value(b)
        if workdir is not None and isinstance(value, str) and \
                (str(spec).startswith("path") or "path" in str(spec)) and \
                not os.path.isabs(value):
            value = os.path.join(workdir, value)
        return value
    finally:
        os.chdir(cwd)


def satisfies(value, spec: Union[Spec, str]) -> bool:
    """Whether ``value`` fits ``spec`` (paths: only that they are str;
    whether the file exists depends on where the code runs)."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    k = spec.kind
    if k == "alt":
        return any(satisfies(value, a) for a in spec.alts)
    if k == "int":
        return isinstance(value, int) and not isinstance(value, bool) and _int_ok(value, spec)
    if k == "num":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and \
            _int_ok(value, spec)
    if k == "numstr":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
        try:
            float(value)
            return isinstance(value, str)
        except (TypeError, ValueError):
            return False
    if k in ("str", "fmt", "regex") or k.startswith("path"):
        return isinstance(value, str) or (k.startswith("path") and isinstance(value, os.PathLike))
    if k == "ident":
        return isinstance(value, str) and value.isidentifier()
    if k == "char":
        return isinstance(value, str) and len(value) == 1
    if k == "json":
        import json
        try:
            json.loads(value)
            return True
        except (TypeError, ValueError):
            return False
    if k == "bytes":
        return isinstance(value, (bytes, bytearray))
    if k == "bool":
        return True
    if k in ("iter", "seq", "nonempty", "list", "sized"):
        if k == "list" and not isinstance(value, list):
            return False
        if k == "sized" and not hasattr(value, "__len__"):
            return False
        if k in ("seq", "nonempty") and not hasattr(value, "__getitem__"):
            return False
        try:
            items = list(value) if not isinstance(value, (str, bytes)) or not spec.sub \
                else list(value)
        except TypeError:
            return False
        if k == "nonempty" and not items:
            return False
        if spec.sub:
            return all(satisfies(x, spec.sub[0]) for x in items[:50])
        return True
    if k == "tuple":
        return isinstance(value, tuple) and (not spec.sub or (
            len(value) == len(spec.sub) and all(satisfies(v, s) for v, s in zip(value,
                                                                                 spec.sub))))
    if k == "pair":
        try:
            return len(value) == 2
        except TypeError:
            return False
    if k == "mapping":
        return hasattr(value, "keys") and hasattr(value, "__getitem__")
    if k == "hashable":
        try:
            hash(value)
            return True
        except TypeError:
            return False
    if k.startswith("callable"):
        return callable(value)
    if k == "type":
        return isinstance(value, type) or (isinstance(value, tuple) and
                                           all(isinstance(t, type) for t in value))
    if k.startswith("date:"):
        rng = {"date:y": (1, 9999), "date:m": (1, 12), "date:d": (1, 28)}[k]
        return isinstance(value, int) and rng[0] <= value <= rng[1]
    if k.startswith("file:"):
        return hasattr(value, "read" if "r" in k else "write")
    return True


def runtime_class(spec: Union[Spec, str]) -> str:
    """The abstract value class (docs/RUNTIME.md) closest to ``spec``, for
    an injector that speaks in classes."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    k = spec.kind
    if k == "alt":
        return runtime_class(spec.alts[0])
    if k in ("int", "date:y", "date:m", "date:d") or k.startswith("date:"):
        return "int_pos"
    if k == "num":
        return "float_pos" if spec.op == ">" else "int_pos"
    if k in ("str", "fmt", "regex", "numstr", "ident", "char", "json") or k.startswith("path"):
        return "str_nonempty"
    if k in ("iter", "seq", "nonempty", "sized") and spec.sub and spec.sub[0].kind in (
            "str", "char"):
        return "str_nonempty"            # a str is an iterable of str: ",".join("ab")
    if k in ("iter", "seq", "nonempty", "list", "sized"):
        return "list_nonempty"
    if k in ("tuple", "pair"):
        return "tuple_nonempty"
    if k == "mapping":
        return "dict_nonempty"
    if k.startswith("callable"):
        return "callable"
    if k == "bool":
        return "True"
    if k.startswith("file:"):
        return "resource"
    return "object"


def format_spec_kind(fmt_spec: str) -> Optional[str]:
    """The spec a value formatted with ``fmt_spec`` (``.2f``, ``d``, ``>10``)
    must satisfy: 'int' for integer presentation types, 'num' for float
    ones, None when any value will do."""
    s = fmt_spec.strip()
    if not s:
        return None
    t = s[-1]
    if t in "bcdoxXn":
        return "int"
    if t in "eEfFgG%":
        return "num"
    return None


def format_string_fields(fmt: str) -> list:
    """[(field, spec kind)] of a ``str.format`` template: field is an int
    position or a keyword name; kinds from :func:`format_spec_kind`."""
    import string
    out, auto = [], 0
    try:
        parsed = list(string.Formatter().parse(fmt))
    except ValueError:
        return []
    for _lit, fname, spec, _conv in parsed:
        if fname is None:
            continue
        head = fname.split(".", 1)[0].split("[", 1)[0]
        if head == "":
            key: Union[int, str] = auto
            auto += 1
        elif head.isdigit():
            key = int(head)
        else:
            key = head
        out.append((key, format_spec_kind(spec or "")))
    return out


def percent_fields(fmt: str) -> list:
    """Spec kinds of the ``%`` conversions of an old-style format string,
    in order ('int', 'num' or None)."""
    import re
    out = []
    for m in re.finditer(r"%(?:\([^)]*\))?[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?([a-zA-Z%])", fmt):
        c = m.group(1)
        if c == "%":
            continue
        out.append("int" if c in "dixXoc" else "num" if c in "eEfFgG" else None)
    return out
