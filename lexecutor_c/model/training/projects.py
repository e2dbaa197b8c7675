"""The PyPI projects whose test suites give the training data.

Each entry pins a version (the sdist that ``collect`` downloads and the
wheel it installs into the project's own ``--target`` directory) and says
what the suite needs beyond the project's own ``test``/``tests``/``testing``
extras: ``deps`` (more requirements), ``tests`` (pytest targets relative to
the unpacked sdist; empty: ``tests/``, ``test/``, ``testing/`` or a
``tests`` package, whichever exists), ``args`` (more pytest arguments) and
``env`` (environment variables, e.g. to choose a pure-Python fallback).

How the list was chosen (docs/MODEL.md): popular, mostly pure-Python
projects of many kinds (parsers, dates, CLI, data structures, text,
async, validation, serialization, templating, math, code tools) whose
sdists ship their tests and whose suites run offline with PyPI-installable
test dependencies.  Never any of ``RESERVED`` (the evaluation projects) or
``DEV_SET`` (the development sets): ``collect`` refuses them.
"""
from __future__ import annotations

import re
from typing import NamedTuple, Tuple

# Projects reserved for evaluation (issue 14, BRIEFING): never training data.
RESERVED = frozenset({"black", "flask", "pandas", "scrapy", "tensorflow", "requests", "jinja2",
                      "rich", "sqlparse", "networkx", "marshmallow", "itsdangerous"})
# Projects of the development sets: never training data either.
DEV_SET = frozenset({"tqdm", "pyyaml", "jsonschema", "arrow", "pygments", "werkzeug", "tornado",
                     "urllib3", "babel", "openpyxl", "beautifulsoup4", "isort", "peewee",
                     "bottle"})
FORBIDDEN = RESERVED | DEV_SET


def normalize(name: str) -> str:
    """PEP 503 normalized project name (``Foo.Bar_baz`` -> ``foo-bar-baz``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def forbidden(name: str) -> bool:
    n = normalize(name)
    # a module name spelling of a project (``yaml`` for pyyaml, ``bs4``) counts too
    return n in FORBIDDEN or n in {"yaml", "bs4"}


# Installed into every project's environment (pinned): the test runner and
# the plugins that many suites use without declaring them as extras.
COMMON_DEPS = ("pytest==9.2.0", "pytest-mock==3.17.0", "pytest-asyncio==1.5.0",
               "hypothesis==6.170.17", "freezegun==1.5.5")


class Project(NamedTuple):
    name: str
    version: str
    deps: Tuple[str, ...] = ()
    tests: Tuple[str, ...] = ()
    args: Tuple[str, ...] = ()
    env: Tuple[Tuple[str, str], ...] = ()

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


def P(name, version, deps=(), tests=(), args=(), env=()):
    return Project(name, version, tuple(deps), tuple(tests), tuple(args), tuple(env))


# Order: the large suites spread among the small ones, so that a partial run
# has both many projects and many examples.
PROJECTS: Tuple[Project, ...] = (
    P("sympy", "1.14.0", tests=tuple(f"sympy/{d}" for d in (
        "core", "functions", "simplify", "polys", "sets", "logic", "matrices", "printing",
        "solvers", "series", "integrals", "combinatorics", "ntheory", "geometry", "utilities",
        "physics"))),
    P("mistune", "3.4.0"),
    P("markdown-it-py", "4.3.0"),
    P("commonmark", "0.9.2", args=("-o", "python_files=*_tests.py")),
    P("lark", "1.3.1"),
    P("sqlglot", "30.30.0"),
    P("tomlkit", "0.15.2"),
    P("toml", "0.10.2"),
    P("pyflakes", "4.1.0"),
    P("pycodestyle", "2.15.0"),
    P("sqlalchemy", "2.1.9"),
    P("mccabe", "0.7.0"),
    P("pure-eval", "0.2.4"),
    P("python-slugify", "9.2.0"),
    P("text-unidecode", "1.3"),
    P("docutils", "0.23"),
    P("unidecode", "1.4.0"),
    P("inflection", "0.5.1"),
    P("inflect", "7.6.0"),
    P("ftfy", "6.3.1"),
    P("jedi", "0.20.1"),
    P("webencodings", "0.6.1"),
    P("html5lib", "1.1", deps=("setuptools<81",)),
    P("bleach", "6.4.0"),
    P("tinycss2", "1.5.1"),
    P("astroid", "4.3.4"),
    P("cssselect", "1.6.0", deps=("lxml==6.1.3",)),
    P("xmltodict", "1.0.4"),
    P("defusedxml", "0.7.1"),
    P("feedparser", "6.0.14", tests=("tests/runtests.py",),
      args=("-o", "python_files=runtests.py")),
    P("faker", "40.63.0"),
    P("jsonpointer", "3.12"),
    P("jsonpatch", "1.48"),
    P("glom", "25.12.0"),
    P("dpath", "2.2.0"),
    P("typer", "0.29.2"),
    P("furl", "2.1.4"),
    P("hyperlink", "21.0.0"),
    P("rfc3986", "2.0.0"),
    P("uritemplate", "4.2.0"),
    P("mpmath", "1.4.1"),
    P("pytz", "2026.6"),
    P("tzlocal", "5.4.5"),
    P("isodate", "0.7.2"),
    P("iso8601", "2.1.0", tests=("iso8601/test_iso8601.py",)),
    P("pint", "0.25.3", deps=("pytest-subtests==0.15.0",), tests=("pint/testsuite",)),
    P("parsedatetime", "2.6", args=("-o", "python_files=Test*.py")),
    P("croniter", "7.0.0"),
    P("python-crontab", "3.4.0"),
    P("fire", "0.7.1"),
    P("dateparser", "1.5.0"),
    P("argcomplete", "3.7.2"),
    P("colorama", "0.4.6"),
    P("termcolor", "3.3.0"),
    P("blessed", "1.52.0"),
    P("cattrs", "26.2.1"),
    P("prettytable", "3.18.0"),
    P("texttable", "1.7.2"),
    P("python-dotenv", "1.2.4"),
    P("configobj", "5.0.9"),
    P("phonenumbers", "9.0.43", args=("-o", "python_files=*test.py")),
    P("configargparse", "1.9.0"),
    P("pyrsistent", "0.20.0"),
    P("intervaltree", "3.2.1"),
    P("portion", "2.6.3"),
    P("trio", "0.35.0", tests=("src/trio/_tests",)),
    P("python-box", "8.0.0"),
    P("munch", "4.0.0"),
    P("addict", "2.4.0"),
    P("anytree", "2.13.0"),
    P("anyio", "4.16.0"),
    P("bitstring", "5.0.0"),
    P("construct", "2.10.70"),
    P("ordered-set", "4.1.0"),
    P("funcy", "2.1"),
    P("prompt-toolkit", "3.0.53"),
    P("pydash", "8.1.0"),
    P("sniffio", "1.3.1", tests=("sniffio/_tests",)),
    P("outcome", "1.3.0.post0"),
    P("async-timeout", "5.0.1"),
    P("parso", "0.8.7"),
    P("aiofiles", "25.1.0"),
    P("asyncstdlib", "3.14.0"),
    P("h11", "0.16.0"),
    P("h2", "4.4.1"),
    P("num2words", "0.5.14"),
    P("hpack", "4.2.0"),
    P("hyperframe", "6.1.0"),
    P("wsproto", "1.3.2"),
    P("voluptuous", "0.16.0"),
    P("chardet", "7.7.0"),
    P("schema", "0.7.8"),
    P("fastjsonschema", "2.22.3"),
    P("dacite", "1.9.2"),
    P("msgpack", "1.2.4", env=(("MSGPACK_PUREPYTHON", "1"),)),
    P("soupsieve", "4.1.3"),
    P("cbor2", "6.3.0"),
    P("typeguard", "4.6.1"),
    P("typing-extensions", "4.16.0"),
    P("chameleon", "4.6.0"),
    P("wrapt", "2.5.2", env=(("WRAPT_DISABLE_EXTENSIONS", "1"),)),
    P("uncertainties", "3.2.3"),
    P("simpleeval", "1.0.8"),
    P("asteval", "1.0.10"),
    P("setuptools-scm", "10.3.4"),
    P("click", "8.5.1"),
    P("pathspec", "1.1.1"),
    P("wheel", "0.48.0"),
    P("pyproject-hooks", "1.3.3", deps=("testpath",)),
    P("semantic-version", "2.10.0"),
    P("pyelftools", "0.33"),
    P("semver", "3.1.2"),
    P("natsort", "8.4.0"),
    P("thefuzz", "0.22.1"),
    P("textdistance", "4.6.3"),
    P("segno", "1.6.6"),
    P("tenacity", "9.2.1"),
    P("decorator", "5.3.1"),
    P("deprecated", "1.3.1"),
    P("pluggy", "1.7.0"),
    P("alembic", "1.20.1"),
    P("iniconfig", "2.3.1"),
    P("zipp", "4.1.2"),
    P("importlib-metadata", "10.2.0"),
    P("jaraco.text", "4.3.0"),
    P("pyparsing", "3.3.3"),
    P("jaraco.functools", "4.6.0"),
    P("jaraco.collections", "5.2.1"),
    P("freezegun", "1.5.5"),
    P("jsonpickle", "4.1.4"),
    P("attrs", "26.1.0"),
    P("python-json-logger", "4.2.0"),
    P("structlog", "26.1.0"),
    P("colorlog", "6.12.0"),
    P("humanfriendly", "10.0"),
    P("boltons", "26.2.0"),
    P("schedule", "1.2.2"),
    P("pyee", "13.0.1"),
    P("blinker", "1.9.0"),
    P("zope.interface", "8.7", tests=("src/zope/interface/tests",), env=(("PURE_PYTHON", "1"),)),
    P("invoke", "3.0.3"),
    P("transitions", "0.9.3"),
    P("diff-match-patch", "20241021"),
    P("unidiff", "1.0.1"),
    P("shortuuid", "1.0.13"),
    P("plumbum", "2.0.2"),
    P("base58", "2.1.1"),
    P("emoji", "2.16.0"),
    P("pyphen", "0.18.1"),
    P("pycountry", "26.2.16"),
    P("cmd2", "4.3.1"),
    P("python-stdnum", "2.2", args=("--doctest-glob=*.doctest",)),
    P("parse", "1.22.4"),
    P("parse-type", "0.6.6"),
    P("cachelib", "0.17.0"),
    P("distlib", "0.4.4"),
    P("diskcache", "5.6.3"),
    P("pyhumps", "3.8.0"),
    P("pycparser", "3.12"),
    P("xlwt", "1.3.0"),
    P("dill", "0.4.1"),
    P("odfpy", "1.4.1"),
    P("qrcode", "8.2"),
    P("astor", "0.8.1"),
    P("gast", "0.7.0"),
    P("simplejson", "4.3.0"),
    P("autopep8", "2.3.2"),
    P("yapf", "0.43.0", tests=("yapftests",)),
    P("radon", "6.0.1"),
    P("vulture", "2.16"),
    P("pyasn1", "0.6.5"),
    P("factory-boy", "3.3.3"),
    P("tinydb", "4.9.0"),
    P("markupsafe", "3.0.4"),
    P("wcmatch", "12.0.1"),
    P("mako", "1.4.3"),
    P("bracex", "3.2.2"),
    P("pathvalidate", "3.3.1"),
    P("mypy-extensions", "1.2.0"),
    P("pytest-mock", "3.17.0"),
    P("pystache", "0.6.8"),
    P("mock", "5.2.0"),
    P("first", "2.0.2"),
    P("json5", "0.17.3"),
    P("more-itertools", "11.2.1"),
    P("validators", "0.36.0"),
    P("python-dateutil", "4.0.0"),
    P("idna", "3.20"),
    P("toolz", "1.0.0"),
    P("tabulate", "0.10.0"),
    P("jsonpath-ng", "1.16.0"),
    P("six", "1.17.0"),
    P("cachetools", "8.0.2"),
    P("humanize", "4.17.0"),
    P("wcwidth", "0.9.4"),
    P("bibtexparser", "2.1.0"),
    P("asttokens", "3.0.2"),
    P("multidict", "7.2.1", env=(("MULTIDICT_NO_EXTENSIONS", "1"),)),
    P("hjson", "3.1.0"),
    P("markdown", "3.11.3"),
    P("packaging", "26.3"),
)
