# lexecutor_c — every target installs what it needs itself (as root on a
# fresh Debian machine: apt-get for system libraries, pip for Python ones).
#
# PYTHON picks the interpreter (3.11, 3.12 or 3.13): a name on PATH or a path;
# a name that is not on PATH is looked up under pyenv, $(pyenv root)/versions/*/bin/
# (this machine kind has python3.12 and python3.13 only there):
#     make test PYTHON=python3.12
# The Python dependencies are pip-installed into that interpreter (use a venv's
# python to keep them apart).
PYTHON  ?= python3
PY      := $(shell p='$(PYTHON)'; if "$$p" -c '' >/dev/null 2>&1; then command -v "$$p"; \
             else r=$$(pyenv root 2>/dev/null || echo "$${PYENV_ROOT:-$$HOME/.pyenv}"); \
             ls -d "$$r"/versions/*/bin/"$$p" 2>/dev/null | sort -V | tail -n 1; fi)
PYVER   := $(if $(PY),$(shell "$(PY)" -c 'import sys; print("%d.%d" % sys.version_info[:2])'))
PIP     := $(PY) -m pip
DEBS    := build-essential pkg-config git libtree-sitter-dev libcjson-dev libcurl4-openssl-dev libseccomp-dev
PYDEPS  := "tree-sitter-python>=0.23,<0.24" "rich>=13" "pytest>=7" "coverage==7.10.7" "libcst>=1.0" \
           "pytest-httpserver>=1.0" "ipython>=8" nbclient ipykernel nbformat \
           "dask[distributed]==2026.8.0" "pyarrow==26.0.1" "ray[client]==2.60.0" \
           matplotlib setuptools wheel \
           "build>=1.0" "mypy>=1.10" "pre-commit>=3.0" \
           "import-linter>=2.17"
# torch is pinned: this machine kind carries that CPU wheel locally, for 3.11
# only; an unpinned torch would pull gigabytes of CUDA packages.  On 3.12/3.13
# the neural predictor reports that torch is missing (its tests skip);
# TORCH=torch==2.13.0 asks for it anyway.
TORCH   ?= $(if $(filter 3.11,$(PYVER)),torch==2.13.0)
STAMP   := .make

.PHONY: all pycheck deps build demo test test-fast dist security asan refleak fuzz bench clean

all: build

# one stamp per interpreter: deps installed for 3.11 are not 3.12's
PYSTAMP := $(STAMP)/pydeps$(subst /,_,$(PY))

pycheck:
	@test -n "$(PY)" || { echo "make: $(PYTHON) not found (neither on PATH nor under $$(pyenv root 2>/dev/null || echo ~/.pyenv)/versions/*/bin)" >&2; exit 2; }
	@case "$(PYVER)" in 3.11|3.12|3.13) ;; *) echo "make: $(PY) is Python $(PYVER); lexecutor_c needs 3.11, 3.12 or 3.13" >&2; exit 2;; esac

$(STAMP)/debs:
	@mkdir -p $(STAMP)
	@if ! dpkg -s $(DEBS) >/dev/null 2>&1; then \
	  echo "== apt-get install $(DEBS)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS) >/dev/null; \
	fi
	@touch $@

$(PYSTAMP): $(STAMP)/debs | pycheck
	$(PIP) install -q $(PYDEPS) $(TORCH)
	@touch $@

deps: pycheck $(PYSTAMP)

build: deps
	$(PIP) install -q --no-build-isolation -e .

demo: build
	$(PY) -m lexecutor_c demo --predictor neural

# Everything, the wheel test included (tests/test_wheel.py, tests/test_precommit.py: the
# sdist and wheel built from a clean copy of the working tree, installed into a fresh venv
# and smoke-tested there; -m "not wheel" deselects them).
test: build
	$(PY) -m pytest -q -ra

# Quick loop while developing: skips the whole-stdlib checks and the wheel build.
test-fast: build
	$(PY) -m pytest -q -ra -m "not slow"

# sdist and wheel of the last commit (a clean checkout: git archive HEAD) in dist/, built
# against the installed setuptools and torch (the torch shim links that torch).
dist: deps
	rm -rf dist $(STAMP)/dist-src && mkdir -p $(STAMP)/dist-src
	git archive --format=tar HEAD | tar -x -C $(STAMP)/dist-src
	$(PY) -m build --no-isolation --outdir dist $(STAMP)/dist-src

# The hostile-input suite (tests/security): snippets that try to get out of
# the sandbox, each followed by a check of the host.  Prints "breached N of M".
security: build
	$(PY) -m pytest -q -p no:cacheprovider tests/security

# AddressSanitizer + UndefinedBehaviorSanitizer build, then the test suite
# under it (libasan preloaded, Python's allocator off so ASan sees every block).
asan: deps
	rm -rf build lexecutor_c/_core*.so lexecutor_c/_torch_shim*.so
	LX_NO_TORCH=1 LX_SANITIZE=1 CC=gcc $(PY) setup.py -q build_ext --inplace
	LX_UNDER_ASAN=1 ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:handle_segv=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  PYTHONMALLOC=malloc LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
	  $(PY) -m pytest -q -x -m "not slow" -p no:cacheprovider
	# drop the sanitized objects too: a later `pip wheel .` from this tree would reuse them
	rm -rf build lexecutor_c/_core*.so && $(MAKE) build

# Reference-leak check: every C entry point called in loops until the
# process-wide reference total settles (needs no debug build: uses
# sys.gettotalrefcount when present, else live-object counts).
refleak: build
	$(PY) tests/refleak.py

fuzz: build
	$(PY) -m pip install -q atheris
	$(PY) tests/fuzz_instrument.py -max_total_time=$${FUZZ_SECONDS:-120}

bench: build
	$(PY) -m benchmarks.instrument_speed

clean:
	rm -rf build dist $(STAMP) lexecutor_c/*.so *.egg-info
