"""Syntax that Python 3.12 and 3.13 add, through the instrumenter.

PEP 695 (type parameters, ``type X = ...``) and PEP 701 (f-strings: nested
quotes of the same kind, line breaks, comments and backslashes in replacement
fields).  The shape of the output is checked on every version (tree-sitter
reads these forms whatever interpreter runs it); compiling and running it,
against the original's output, only where the interpreter accepts the syntax.
"""
import contextlib
import io
import sys

import pytest

import lexecutor_c
from lexecutor_c import _core

PY312 = sys.version_info >= (3, 12)
needs_312 = pytest.mark.skipif(not PY312, reason=f"Python {sys.version.split()[0]} rejects "
                               "this syntax (3.12+)")

GENERIC = '''\
type Pair[K] = tuple[K, K]
type Alias = int | str

def first[T](xs: list[T], default: T | None = None) -> T:
    return xs[0] if xs else default

class Box[T: (int, str), *Ts, **P](list[T]):
    kind = "box"
    def get[U](self, u: U, tag: kind = None) -> tuple[T, U]:
        return (self[0], u, T.__name__, U.__name__)
    def name(self) -> T:
        return T.__name__

def make[S: int](x: S) -> S:
    def inner() -> S:
        return S
    return x + 1, inner().__name__

print(first([3, 4]), Box([5]).get("a"), Box([1]).name(), make(2))
print(Pair.__type_params__, Pair.__value__, Alias.__value__)
print(Box.__type_params__, first.__type_params__)
type = 5
print(type)
'''

FSTRINGS = '''\
songs = ["a", "b"]
d = {"k": 1}
x = 3
print(f"{", ".join(songs)}")
print(f"{d["k"]} {f"{f"{d["k"]}"}"}")
print(f"{x
      + 1}")
print(f"{x # a comment
      * 2}")
print(f"{'\\n'.join(songs)!r}")
print(f"{"\\\\"}")
print(f"{x:{"<"}5}|{x!r:>{x}}|")
print(f"{x=}, {x = }, {x + 1 = # comment
}")
print(f"""{
    "multi"
}""")
print(f"{len(songs)} {songs[0]:>{len(songs)}}")
'''


def run(code, loaders=None):
    out = io.StringIO()
    g = {"__name__": "__main__", **(loaders or {})}
    with contextlib.redirect_stdout(out):
        exec(code, g)
    return out.getvalue()


@needs_312      # 3.11's compiler rejects `type X = ...`, and so does instrument() there
def test_type_parameters_and_aliases_stay_as_written():
    r = lexecutor_c.instrument(GENERIC)
    src = r.source
    # type parameters, their bounds, and the annotations / bases of a generic
    # definition are evaluated in its annotation scope: left as written
    assert "type Pair[K] = tuple[K, K]" in src
    assert "def first[T](xs: list[T], default: T | None = None) -> T:" in src
    assert "class Box[T: (int, str), *Ts, **P](list[T]):" in src
    assert "def get[U](self, u: U, tag: kind = None) -> tuple[T, U]:" in src
    # ... while reads of a type parameter in a body are closure reads
    assert '_n_(' in src and '"T", lambda: T)' in src and '"S", lambda: S)' in src
    # the parameters are bound: never reported as undefined names
    assert not {u.name for u in r.undefined} & {"T", "U", "S", "K", "Ts", "P"}


def test_debug_fstring_with_a_comment_stays_as_written():
    r = lexecutor_c.instrument('y = 2\nprint(f"{y + 1 = # c\n}")\n')
    assert 'f"{y + 1 = # c\n}"' in r.source


@needs_312
@pytest.mark.parametrize("source", [GENERIC, FSTRINGS], ids=["pep695", "pep701"])
def test_output_compiles_and_means_the_same(source):
    want = run(compile(source, "<orig>", "exec"))
    for elide in (True, False):
        r = lexecutor_c.instrument(source, elide=elide)
        rt = _core.Runtime(predictor="as-is", sites=r.iids)
        assert run(r.compile(), rt.loaders()) == want, r.source


@needs_312
def test_missing_values_inside_generic_code_are_injected():
    src = ("def f[T](x: T) -> T:\n"
           "    return helper(x), T.__name__\n"
           "class C[T]:\n"
           "    def m(self):\n"
           "        return missing.attr, T\n")
    r = lexecutor_c.instrument(src)
    rt = _core.Runtime(predictor="naive", sites=r.iids)
    g = {"__name__": "m", **rt.loaders()}
    exec(r.compile(), g)
    value, tname = g["f"](3)
    assert tname == "T"
    got, t = g["C"]().m()
    assert t is g["C"].__type_params__[0]
    assert {name for _iid, _kind, name, *_ in rt.injections} == {"helper", "missing", "attr"}
