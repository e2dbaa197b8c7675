"""Module docstring: not a line to cover."""
from __future__ import annotations

import functools, collections as co
from itertools import (chain,
                       count as counter)
import os.path
import asyncio


def deco(tag):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            return (tag, fn(*args, **kwargs))
        return inner
    return wrap


@deco("d")
def with_defaults(a, b=2, *rest, c, d=4, **kw) -> list[int]:
    "function docstring"
    return [a, b, rest, c, d, sorted(kw.items())]


print(with_defaults(1, c=3), with_defaults(1, 5, 6, 7, c=8, z=9, y=0))
print(with_defaults.__doc__, with_defaults.__wrapped__.__doc__)

square = lambda x, y=3: x * x + y
print(square(4), (lambda *a, **k: (a, k))(1, b=2))

data = [3, 1, 2]
print([x * 2 for x in data if x > 1], {x: x for x in data}, {x % 2 for x in data},
      sum(x for x in data), [y for x in [[1, 2], [3]] for y in x])
total = 10
print([total + x for x in range(3)])

width, value = 8, 3.14159
name = "lx"
print(f"""{value:{width}.{2}f}|{name!r:>6}|{name=}|{value = :.1f}|{f'{name}{f"{width}"}'}""")
print(f"{'nested'}{data[0]!s}{{braces}}", f'{data}')

if (n := len(data)) > 2:
    print("walrus", n)
print([m for z in data if (m := z * 10) > 10], m)


def match_it(p):
    match p:
        case {"k": v, **others}:
            return ("dict", v, others)
        case [1, *rest]:
            return ("list", rest)
        case co.OrderedDict():
            return "od"
        case int(i) if i > 5:
            return ("big", i)
        case str() | bytes():
            return "text"
        case _:
            return "other"


print([match_it(x) for x in ({"k": 1, "j": 2}, [1, 2, 3], 7, 3, "s")])


async def agen(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i


class ACM:
    async def __aenter__(self):
        return "entered"

    async def __aexit__(self, *exc):
        return False


async def amain():
    out = [i async for i in agen(3)]
    async with ACM() as got:
        out.append(got)
    async for j in agen(2):
        out.append(j)
    return out

print(asyncio.run(amain()))

first, *middle, last = range(5)
merged = {**{"a": 1}, "b": 2}
print(first, middle, last, merged, [*data, *"ab"], (*data,))

counter_value = 0


def bump():
    global counter_value
    counter_value += 1

    def inner():
        nonlocal_box = [0]

        def deeper():
            nonlocal nonlocal_box
            nonlocal_box = nonlocal_box + [1]
            return nonlocal_box
        return deeper()
    return inner()


print(bump(), bump(), counter_value)


class Base:
    def greet(self):
        return "base"

    def __private(self):
        return "mangled"

    def call_private(self):
        return self.__private()


class Child(Base):
    """class docstring"""
    kind = "child"
    label = kind.upper()
    items = [k.title() for k in [kind] * 2]

    def greet(self):
        return "child+" + super().greet() + "+" + __class__.__name__

    @property
    def prop(self):
        return self.kind

    @staticmethod
    def stat(x: int) -> int:
        return x + 1

    @classmethod
    def make(cls):
        return cls()


c = Child.make()
print(c.greet(), c.prop, Child.stat(1), Child.label, Child.items, c.call_private(), Child.__doc__)
print(Child.__qualname__, Child.__module__ == __name__, with_defaults.__wrapped__.__annotations__)

x = 5
print(1 < x < 10, 1 < x > 10, x if x else -x, not x, -x, ~x, x ** 2, x // 2, x % 3)
seq = list(range(10))
print(seq[1:8:2], seq[::-1][:3], seq[-1], seq[:], seq[slice(2)])
seq[1:3] = ["a", "b"]; del seq[0]; print(seq)

long_value = 1 + \
    2 + \
    3
print(long_value); a = 1; b = 2; print(a + b)
text = """multi
line {not an f-string}
"""
print(len(text), chain([1], [2]).__next__(), next(counter(5)), os.path.basename("/a/b"))

try:
    import does_not_exist_anywhere
except ImportError:
    print("guarded import kept its except branch")

try:
    raise KeyError("k")
except (KeyError, ValueError) as err:
    print("caught", repr(err))
finally:
    print("finally")

for i in range(3):
    if i == 0:
        continue
    elif i == 2:
        break
    else:
        print("i", i)
else:
    print("no break")

while x > 3:
    x -= 1
else:
    print("while else", x)

with open(os.devnull, "w") as sink, open(os.devnull) as src:
    print("with", sink.writable(), src.readable())

ns = {}
exec("q = 1", ns)
print(ns["q"], eval("x + 1"), type(print), isinstance(x, int), getattr(c, "kind"))
é = "unicode identifier"; print(é)
print(functools.reduce(lambda acc, v: acc + v, [1, 2, 3]))
print(co.Counter("hello").most_common(1))
