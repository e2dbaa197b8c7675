"""IPython / Jupyter magics of lexecutor_c.

    %load_ext lexecutor_c
    %%lexecute [-p PREDICTOR] [-s SEED] [-r]
    ...cell...                     # runs with missing values injected; shows a table

    %lexecute_treefix ...          # Treefix's prefix loop on a cell (needs lexecutor_c.treefix)

IPython is imported only when the extension is loaded.  The cell runs in
the user namespace, as the cell itself (its functions and classes are
defined there), through the transparent-mode hook (lexecutor_c.hook); the
hook is switched off again in ``finally``, whatever happens.
"""
from __future__ import annotations

import html
from typing import Any, Optional

__all__ = ["load_ipython_extension", "unload_ipython_extension", "LexecuteReport"]


class LexecuteReport:
    """What a ``%%lexecute`` cell did: injections, coverage, the exception
    it ended with.  Shown as an HTML table in a notebook, as text in a
    terminal."""

    def __init__(self, injections, coverage: dict, exception: Optional[BaseException],
                 failed_imports=(), notes=()):
        self.injections = list(injections)
        self.coverage = coverage
        self.exception = exception
        self.failed_imports = list(failed_imports)
        self.notes = list(notes)

    def _status(self) -> str:
        c = self.coverage
        cov = f"{c['covered_lines']}/{c['total_lines']} lines covered ({c['coverage']:.0%})"
        end = "ran to the end" if self.exception is None else \
            f"raised {type(self.exception).__name__}: {self.exception}"
        return f"{end}; {cov}; {len(self.injections)} injected values"

    def _rows(self):
        for i in self.injections:
            yield (str(i.line), i.kind, i.name, i.cls, i.value)
        for rec in self.failed_imports:
            yield ("", "import", str(rec[2]), "MISSING", "not importable")

    def __repr__(self) -> str:
        head = ("line", "kind", "name", "class", "value")
        rows = list(self._rows())
        widths = [max([len(h)] + [len(r[k]) for r in rows]) for k, h in enumerate(head)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        out = [self._status()]
        if rows:
            out.append(fmt.format(*head))
            out.append(fmt.format(*("-" * w for w in widths)))
            out.extend(fmt.format(*r) for r in rows)
        if self.coverage.get("uncovered"):
            out.append("not reached: lines " + ", ".join(map(str, self.coverage["uncovered"])))
        out.extend(f"note: {n}" for n in self.notes)
        return "\n".join(out)

    def _repr_html_(self) -> str:
        e = html.escape
        cells = "".join(
            "<tr>" + "".join(f"<td>{e(v)}</td>" for v in r) + "</tr>" for r in self._rows())
        table = ("<table class='lexecutor-c'><thead><tr><th>line</th><th>kind</th><th>name</th>"
                 f"<th>class</th><th>value</th></tr></thead><tbody>{cells}</tbody></table>"
                 if cells else "<p>nothing injected</p>")
        c = self.coverage
        bar = (f"<progress max='{c['total_lines']}' value='{c['covered_lines']}'></progress>"
               if c["total_lines"] else "")
        miss = (f"<p>not reached: lines {e(', '.join(map(str, c['uncovered'])))}</p>"
                if c.get("uncovered") else "")
        return f"<div><p><b>lexecutor_c</b>: {e(self._status())} {bar}</p>{table}{miss}</div>"


def _magics_class():
    from IPython.core.error import UsageError
    from IPython.core.magic import Magics, cell_magic, line_cell_magic, magics_class
    from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

    @magics_class
    class LexecuteMagics(Magics):

        @magic_arguments()
        @argument("-p", "--predictor", default="naive",
                  help="predictor of injected values: as-is, naive, random, frequency "
                       "(default: naive)")
        @argument("-s", "--seed", type=int, default=None, help="seed of the predictor")
        @argument("-r", "--randomize", action="store_true",
                  help="randomized concrete values")
        @argument("-q", "--quiet", action="store_true", help="show no table")
        @cell_magic
        def lexecute(self, line, cell):
            """Run the cell with learning-guided execution: every missing name,
            attribute or import gets a predicted value instead of an error.

            The cell runs in the user namespace (functions and classes it
            defines stay there).  Afterwards a table lists the injected values
            and the coverage of the cell's lines; the result is a
            LexecuteReport (HTML in a notebook, text in a terminal).
            Exceptions the cell raises are shown as usual.
            """
            args = parse_argstring(self.lexecute, line)
            if not cell.strip():
                raise UsageError("%%lexecute needs a cell body")
            from . import hook
            shell = self.shell
            source = shell.transform_cell(cell)
            filename = shell.compile.cache(source, shell.execution_count, raw_code=cell)
            try:
                code = compile(source, filename, "exec", dont_inherit=True)
            except SyntaxError:
                shell.showsyntaxerror(filename=filename)
                return None
            try:
                session = hook.Session([code], predictor=args.predictor, seed=args.seed,
                                       randomize=args.randomize)
            except (ValueError, TypeError, NotImplementedError) as e:
                raise UsageError(f"%%lexecute: {e}") from None
            exception = None
            try:
                session.enable()
                exec(code, shell.user_ns)
            except Exception as e:          # shown like a normal cell's error
                exception = e
                shell.showtraceback()
            finally:
                session.disable()
            cov = session.coverage.get(filename) or {
                "covered_lines": 0, "total_lines": 0, "coverage": 1.0, "covered": [],
                "uncovered": []}
            report = LexecuteReport(session.injections, cov, exception,
                                    session.failed_imports, session.notes)
            return None if args.quiet else report

        @line_cell_magic
        def lexecute_treefix(self, line, cell=None):
            """Run Treefix's prefix loop on a cell (or on the code given on the
            line): prefixes of assignments that make the code run further,
            with the tree of attempts.  Needs lexecutor_c.treefix.

            Usage: %%lexecute_treefix [options passed to lexecutor_c.treefix]
            """
            from ..prefixtree import treefix     # the one import of an integration beyond engine
            source = cell if cell is not None else line
            if not source or not source.strip():
                raise UsageError("%lexecute_treefix needs code (a cell body or the line)")
            result = treefix(source)
            print(f"Treefix: coverage of P {result.coverage:.0%} with {len(result.prefixes)} "
                  f"prefix(es); best single prefix {result.best_coverage:.0%}; "
                  f"{len(result.tree)} prefixes tried")
            for i, prefix in enumerate(result.prefixes, 1):
                print(f"--- prefix {i} of P")
                print(prefix.rstrip() or "# (empty prefix: injection alone)")
            return result

    return LexecuteMagics


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext lexecutor_c`` (or ``lexecutor_c.integrations.magics``)."""
    ipython.register_magics(_magics_class())


def unload_ipython_extension(ipython: Any) -> None:
    """Nothing to undo: magics stay registered, the hook is only on inside a cell."""
