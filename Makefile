# lexecutor_c — every target installs what it needs itself (as root on a
# fresh Debian machine: apt-get for system libraries, pip for Python ones).
PYTHON  ?= python3
PIP     := $(PYTHON) -m pip
DEBS    := build-essential pkg-config git libtree-sitter-dev libcjson-dev libcurl4-openssl-dev
PYDEPS  := "tree-sitter-python>=0.23,<0.24" "rich>=13" "pytest>=7" "libcst>=1.0" \
           "pytest-httpserver>=1.0" "ipython>=8" nbclient ipykernel nbformat \
           "dask[distributed]" matplotlib setuptools wheel \
           "build>=1.0" "mypy>=1.10" "pre-commit>=3.0" \
           "import-linter>=2.17" torch==2.13.0
# torch is pinned: this machine kind carries that CPU wheel locally; an
# unpinned torch would pull gigabytes of CUDA packages.
STAMP   := .make

.PHONY: all deps build demo test test-fast dist asan refleak fuzz bench clean

all: build

$(STAMP)/debs:
	@mkdir -p $(STAMP)
	@if ! dpkg -s $(DEBS) >/dev/null 2>&1; then \
	  echo "== apt-get install $(DEBS)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS) >/dev/null; \
	fi
	@touch $@

$(STAMP)/pydeps: $(STAMP)/debs
	$(PIP) install -q $(PYDEPS)
	@touch $@

deps: $(STAMP)/pydeps

build: deps
	$(PIP) install -q --no-build-isolation -e .

demo: build
	$(PYTHON) -m lexecutor_c demo --predictor neural

# Everything, the wheel test included (tests/test_wheel.py, tests/test_precommit.py: the
# sdist and wheel built from a clean copy of the working tree, installed into a fresh venv
# and smoke-tested there; -m "not wheel" deselects them).
test: build
	$(PYTHON) -m pytest -q -ra

# Quick loop while developing: skips the whole-stdlib checks and the wheel build.
test-fast: build
	$(PYTHON) -m pytest -q -ra -m "not slow"

# sdist and wheel of the last commit (a clean checkout: git archive HEAD) in dist/, built
# against the installed setuptools and torch (the torch shim links that torch).
dist: deps
	rm -rf dist $(STAMP)/dist-src && mkdir -p $(STAMP)/dist-src
	git archive --format=tar HEAD | tar -x -C $(STAMP)/dist-src
	$(PYTHON) -m build --no-isolation --outdir dist $(STAMP)/dist-src

# AddressSanitizer + UndefinedBehaviorSanitizer build, then the test suite
# under it (libasan preloaded, Python's allocator off so ASan sees every block).
asan: deps
	rm -rf build lexecutor_c/_core*.so lexecutor_c/_torch_shim*.so
	LX_NO_TORCH=1 LX_SANITIZE=1 CC=gcc $(PYTHON) setup.py -q build_ext --inplace
	LX_UNDER_ASAN=1 ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:handle_segv=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  PYTHONMALLOC=malloc LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
	  $(PYTHON) -m pytest -q -x -m "not slow" -p no:cacheprovider
	rm -f lexecutor_c/_core*.so && $(MAKE) build

# Reference-leak check: every C entry point called in loops until the
# process-wide reference total settles (needs no debug build: uses
# sys.gettotalrefcount when present, else live-object counts).
refleak: build
	$(PYTHON) tests/refleak.py

fuzz: build
	$(PYTHON) -m pip install -q atheris
	$(PYTHON) tests/fuzz_instrument.py -max_total_time=$${FUZZ_SECONDS:-120}

bench: build
	$(PYTHON) -m benchmarks.instrument_speed

clean:
	rm -rf build dist $(STAMP) lexecutor_c/*.so *.egg-info
