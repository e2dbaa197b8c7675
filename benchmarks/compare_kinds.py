"""Per kind of edit: does the commit check's engine say "changed" on the
semantics-changing edits issue 20 lists, and never on refactorings?

    python -m benchmarks.compare_kinds [--markdown]

Each pair is a small module before and after one edit
(tests/test_apps_compare.py runs the same pairs); the engine is
:func:`lexecutor_c.apps.compare.compare_sources` with its defaults.  Printed:
per pair the expected and the given verdict, the first difference or the
evidence, and the seconds; then "changed" on changing edits, "changed" on
refactorings, and the median seconds.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import textwrap
import time


def d(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


# (name, old, new, function) -- each edit changes behaviour, and only on
# inputs that the edit's own constants and conditions point at
CHANGING = [
    ("dict_entry", """
        def version_label(x):
            names = {10: '1', 20: '2', 30: '3'}
            return names.get(x, 'unknown')
        """, """
        def version_label(x):
            names = {10: '1', 20: '2.0', 30: '3'}
            return names.get(x, 'unknown')
        """, None),
    ("membership_widened", """
        def is_json(mime):
            if 'json' in mime:
                return True
            return False
        """, """
        def is_json(mime):
            if any(t in mime for t in ('json', 'javascript', 'text')):
                return True
            return False
        """, None),
    ("warn_stacklevel", """
        import warnings

        def old_api(x):
            warnings.warn("old_api is deprecated", DeprecationWarning)
            return x + 1
        """, """
        import warnings

        def old_api(x):
            warnings.warn("old_api is deprecated", DeprecationWarning, stacklevel=2)
            return x + 1
        """, None),
    ("default_value", """
        def chunks(items, size=10):
            return [items[i:i + size] for i in range(0, len(items), size)]
        """, """
        def chunks(items, size=20):
            return [items[i:i + size] for i in range(0, len(items), size)]
        """, None),
    ("message_reworded", """
        def check_port(port):
            if port < 0:
                raise ValueError("bad port")
            return port
        """, """
        def check_port(port):
            if port < 0:
                raise ValueError("port must not be negative")
            return port
        """, None),
    ("platform_branch", """
        import sys

        def config_dir(home):
            return home + "/.config"
        """, """
        import sys

        def config_dir(home):
            if sys.platform == "win32":
                return home + "/AppData"
            return home + "/.config"
        """, None),
    ("errno_branch", """
        import errno
        import os

        def ensure_dir(path):
            try:
                os.makedirs(path)
            except OSError as e:
                raise
            return path
        """, """
        import errno
        import os

        def ensure_dir(path):
            try:
                os.makedirs(path)
            except OSError as e:
                if e.errno != errno.EEXIST:
                    raise
            return path
        """, None),
    ("early_return", """
        def first(items):
            return items[0]
        """, """
        def first(items):
            if not items:
                return None
            return items[0]
        """, None),
    ("logger_call_added", """
        import logging
        log = logging.getLogger("x")

        def total(xs):
            return sum(xs)
        """, """
        import logging
        log = logging.getLogger("x")

        def total(xs):
            log.debug("summing %d items", len(xs))
            return sum(xs)
        """, None),
    ("isinstance_branch", """
        def norm(v):
            return str(v).strip()
        """, """
        def norm(v):
            if isinstance(v, bytes):
                return v.decode().strip()
            return str(v).strip()
        """, None),
    ("attribute_guard_of_self", """
        class Reader:
            def mode_name(self):
                if self.mode == 'r':
                    return 'read'
                return 'other'
        """, """
        class Reader:
            def mode_name(self):
                if self.mode == 'r':
                    return 'read'
                if self.mode == 'w':
                    return 'write'
                return 'other'
        """, "Reader.mode_name"),
    ("two_conditions_and_optional_parameters", """
        def backoff(start, stop, count=None, factor=2.0):
            if count is None:
                count = int(stop / start) // int(factor - 1) + 1
            return count
        """, """
        def backoff(start, stop, count=None, factor=2.0):
            if count is None:
                if factor == 1.0:
                    raise ValueError('expected factor > 1.0')
                count = int(stop / start) // int(factor - 1) + 1
            return count
        """, None),
    ("keyword_passed_to_a_helper", """
        def remap(root, enter=None, cache=True):
            return root

        def research(root):
            return remap(root, enter=len)
        """, """
        def remap(root, enter=None, cache=True):
            return root

        def research(root):
            return remap(root, enter=len, cache=False)
        """, "research"),
    ("relative_boundary", """
        def fits(val, n):
            if val > 2 ** n:
                raise ValueError('too big')
            return True
        """, """
        def fits(val, n):
            if val >= 2 ** n:
                raise ValueError('too big')
            return True
        """, None),
    ("case_shown_by_a_doctest", """
        def fraction_us(s):
            parts = s.split('.')
            return int(parts[-1])
        """, """
        def fraction_us(s):
            """ + '"""' + """
            >>> fraction_us('00.851')
            851000
            """ + '"""' + """
            parts = s.split('.')
            if len(parts) > 1:
                return int(parts[1].ljust(6, '0')[:6])
            return int(parts[-1])
        """, None),
    ("boundary", """
        def grade(score):
            if score >= 90:
                return 'A'
            return 'B'
        """, """
        def grade(score):
            if score > 90:
                return 'A'
            return 'B'
        """, None),
]

PRESERVING = [
    ("renamed_local", """
        def mean(xs):
            total = 0
            for x in xs:
                total += x
            return total / len(xs)
        """, """
        def mean(xs):
            acc = 0
            for x in xs:
                acc += x
            return acc / len(xs)
        """),
    ("extracted_variable", """
        import warnings

        def scaled(x, factor):
            warnings.warn("scaling %s" % (x * factor))
            return x * factor + 1
        """, """
        import warnings

        def scaled(x, factor):
            product = x * factor
            warnings.warn("scaling %s" % product)
            return product + 1
        """),
    ("idiom_len", """
        def describe(items):
            if len(items) == 0:
                return 'empty'
            return 'has %d' % len(items)
        """, """
        def describe(items):
            if not items:
                return 'empty'
            return 'has %d' % len(items)
        """),
    ("inline_dict_get", """
        def lookup(table, key):
            if key in table:
                return table[key]
            return None
        """, """
        def lookup(table, key):
            return table.get(key)
        """),
    ("extracted_helper", """
        def area(w, h):
            return w * h + 1
        """, """
        def _product(w, h):
            return w * h

        def area(w, h):
            return _product(w, h) + 1
        """),
    ("fstring", """
        def greet(name):
            return "Hello, " + name + "!"
        """, """
        def greet(name):
            return f"Hello, {name}!"
        """),
]




def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.compare_kinds")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    from lexecutor_c.apps.compare import compare_sources
    from lexecutor_c.apps.funcsource import function_versions
    compare_sources("def f(x):\n    return x\n", "def f(x):\n    return (x)\n")   # warm up
    rows = []
    for expect, cases in (("changed", CHANGING), ("not changed", [(*c, None) for c in PRESERVING])):
        for name, old, new, fn in cases:
            t = time.monotonic()
            c = compare_sources(d(old), d(new), fn)
            secs = time.monotonic() - t
            ok = (c.verdict == "changed") == (expect == "changed")
            rows.append((name, expect, c.verdict, ok, secs, c.detail))
    if args.markdown:
        print("| edit | expected | verdict | s | first difference / evidence |")
        print("| --- | --- | --- | --- | --- |")
        for name, expect, v, ok, secs, det in rows:
            det = det.replace("|", "\\|")[:90]
            print(f"| {name} | {expect} | {v}{'' if ok else ' (wrong)'} | {secs:.1f} | {det} |")
    else:
        for name, expect, v, ok, secs, det in rows:
            print(f"{name:40} {expect:12} {v:10} {'ok ' if ok else 'WRONG'} {secs:6.2f}s  "
                  f"{det[:80]}")
    ch = [r for r in rows if r[1] == "changed"]
    pr = [r for r in rows if r[1] != "changed"]
    kinds = ", ".join(f"{v} {sum(r[2] == v for r in pr)}"
                      for v in ("same", "undecided", "unreached"))
    print(f"\nchanging edits said changed: {sum(r[2] == 'changed' for r in ch)}/{len(ch)}; "
          f"refactorings said changed: {sum(r[2] == 'changed' for r in pr)}/{len(pr)} "
          f"({kinds}); median {statistics.median(r[4] for r in rows):.2f} s per function")
    return 0


if __name__ == "__main__":
    sys.exit(main())
