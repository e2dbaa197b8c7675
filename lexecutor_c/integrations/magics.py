"""IPython / Jupyter magics of lexecutor_c.

    %load_ext lexecutor_c
    %%lexecute [-p PREDICTOR] [-s SEED] [-r] [-n]
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
                 failed_imports=(), notes=(), source: Optional[str] = None,
                 exception_line: Optional[int] = None, imported_modules=()):
        from ..engine.result import lines_ran
        self.injections = list(injections)
        self.coverage = coverage
        self.exception = exception
        self.failed_imports = list(failed_imports)
        self.notes = list(notes)
        #: engine/autoimport.py's records: modules imported instead of injected
        self.imported_modules = list(imported_modules)
        #: which lines ran (lexecutor_c.engine.result.LinesRan)
        self.lines_ran = lines_ran(
            source or "", coverage.get("covered", ()), coverage.get("uncovered", ()),
            injected_lines=[getattr(i, "line", None) for i in self.injections],
            exception_line=exception_line,
            finished=exception is None and source is not None)

    def _status(self) -> str:
        end = "ran to the end" if self.exception is None else \
            f"raised {type(self.exception).__name__}: {self.exception}"
        n = len(self.injections)
        return f"{end}; {self.lines_ran.text}; {n} injected value{'' if n == 1 else 's'}"

    def _import_notes(self) -> list:
        from ..engine.autoimport import describe
        return describe(self.imported_modules)

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
        out.extend(self._import_notes())
        out.extend(f"note: {n}" for n in self.notes)
        return "\n".join(out)

    def _repr_html_(self) -> str:
        e = html.escape
        cells = "".join(
            "<tr>" + "".join(f"<td>{e(v)}</td>" for v in r) + "</tr>" for r in self._rows())
        table = ("<table class='lexecutor-c'><thead><tr><th>line</th><th>kind</th><th>name</th>"
                 f"<th>class</th><th>value</th></tr></thead><tbody>{cells}</tbody></table>"
                 if cells else "<p>nothing injected</p>")
        lr = self.lines_ran
        bar = (f"<progress max='{lr.total}' value='{len(lr.ran)}'></progress>"
               if lr.total else "")
        notes = "".join(f"<p>{e(n)}</p>" for n in self._import_notes())
        return f"<div><p><b>lexecutor_c</b>: {e(self._status())} {bar}</p>{table}{notes}</div>"


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
        @argument("-n", "--no-import-missing", dest="import_missing", action="store_false",
                  help="inject a value for a missing name that is an installed module "
                       "(json, np, ...) instead of importing it into the namespace")
        @cell_magic
        def lexecute(self, line, cell):
            """Run the cell with learning-guided execution: every missing name,
            attribute or import gets a predicted value instead of an error.

            The cell runs in the user namespace (functions and classes it
            defines stay there).  A missing name that is a module installed
            here (``json``, ``os``) or a well-known alias of one (``np``,
            ``pd``, ``plt``) is imported into the namespace, as if the cell
            had imported it, and the report says so (``-n`` injects instead).
            Afterwards a table lists the injected values and which of the
            cell's lines ran; the result is a LexecuteReport (HTML in a
            notebook, text in a terminal).  Exceptions the cell raises are
            shown as usual.
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
            imported: list = []
            if args.import_missing:
                from ..engine.autoimport import import_missing
                from ..engine.instrument import instrument
                try:
                    imported = import_missing(instrument(source, filename=filename).undefined,
                                              shell.user_ns)
                except (SyntaxError, ValueError):
                    imported = []
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
                                    session.failed_imports, session.notes, source=source,
                                    exception_line=hook.line_in(exception, filename),
                                    imported_modules=imported)
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
            from ..engine.result import lines_ran
            lr = lines_ran(source, result.covered, result.uncovered)
            print(f"Treefix: with its {len(result.prefixes)} prefix(es) together, {lr.text}; "
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
