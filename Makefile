# tallydb: `make serve` runs the server, `make test` runs the whole suite,
# `make docs` builds the documentation site into site/.
# Each creates .venv (python3 -m venv) and installs on first use what it needs:
# `make serve` only the package and what serving needs; `make test` also the
# test, lint and documentation tools. After that a stamp file makes them start
# at once until pyproject.toml changes. (--no-compile: Python compiles what the
# server imports when it first starts, not every module of botocore up front.)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.tallydb-installed
TOOLS  := $(VENV)/.tallydb-tools-installed
PIP    := $(BIN)/python -m pip install --quiet --disable-pip-version-check

HOST ?= 127.0.0.1
PORT ?= 8000
DATA ?= ./tallydb-data
SYNC ?= normal
# The modules setup.py compiles with mypyc (its COMPILED list). The editable
# install builds their C extensions in place in src/; a stale one would
# shadow an edited .py, so `make compiled` rebuilds them whenever a source
# changes (serve, test, pytest and install run it first).
# TALLYDB_PURE_PYTHON=1 installs pure Python instead.
COMPILED_SRC := $(shell sed -n 's/^ *"\(src\/tallydb\/.*\.py\)",$$/\1/p' setup.py)
BUILT  := $(VENV)/.tallydb-compiled
# Extra pytest arguments, e.g. `make test PYTEST_ARGS="-k seeds -x"`.
PYTEST_ARGS ?=

.PHONY: serve test lint typecheck pytest docs install compiled clean-venv

serve: $(STAMP) $(BUILT)
	$(BIN)/tallydb serve --host $(HOST) --port $(PORT) --data $(DATA) --sync $(SYNC)

# All four always run (so the test summary is always printed); any failure fails.
# lint-imports keeps the layers and finds any import circle (pyproject.toml).
# compileall first: the suite starts many tallydb processes (servers, CLI
# commands), and each would compile src/ again where bytecode is not written
# (PYTHONDONTWRITEBYTECODE=1), about 0.4 s of CPU a process.
test: $(TOOLS) $(BUILT)
	@$(BIN)/python -m compileall -q src >/dev/null
	@status=0; \
	$(BIN)/ruff check src || status=1; \
	$(BIN)/mypy src/tallydb || status=1; \
	$(BIN)/lint-imports || status=1; \
	$(BIN)/pytest -n 2 $(PYTEST_ARGS) || status=$$?; \
	exit $$status

lint: $(TOOLS)
	$(BIN)/ruff check src
	$(BIN)/lint-imports

typecheck: $(TOOLS)
	$(BIN)/mypy src/tallydb

# pytest exits 5 when it collects no test: make treats that as a failure too.
pytest: $(TOOLS) $(BUILT)
	@$(BIN)/python -m compileall -q src >/dev/null
	$(BIN)/pytest -n 2 $(PYTEST_ARGS)

docs: $(TOOLS)
	$(BIN)/mkdocs build --strict

install: $(STAMP) $(BUILT)

compiled: $(BUILT)

# Deletes every extension in src/ first (one of a module no longer compiled
# would shadow its .py), then builds: compiled when it can, else pure Python
# (setup.py prints which).
$(BUILT): setup.py pyproject.toml $(COMPILED_SRC) | $(STAMP)
	find src -name '*.so' -delete
	$(PIP) --no-deps --no-compile -e .
	$(BIN)/tallydb --version
	touch $@

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || { \
	  echo "python3 -m venv failed; installing python3-venv" >&2; \
	  apt-get install -y python3-venv || { apt-get update && apt-get install -y python3-venv; }; \
	  $(PYTHON) -m venv --clear $(VENV); }

$(STAMP): pyproject.toml | $(BIN)/python
	@echo "Installing tallydb and what serving needs into $(VENV) (first run only)..."
	find src -name '*.so' -delete
	$(PIP) --no-compile -e .
	touch $@ $(BUILT)

$(TOOLS): pyproject.toml | $(BIN)/python
	@echo "Installing tallydb with its test, lint and docs tools into $(VENV) (first run only)..."
	find src -name '*.so' -delete
	$(PIP) -e '.[test,docs]'
	touch $(STAMP) $@ $(BUILT)

clean-venv:
	rm -rf $(VENV)
