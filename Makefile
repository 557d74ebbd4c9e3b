# tallydb: `make serve` runs the server, `make test` runs the whole suite.
# Both create .venv (python3 -m venv) and install the package on first use;
# after that the stamp file makes them start at once until pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.tallydb-installed

HOST ?= 127.0.0.1
PORT ?= 8000
DATA ?= ./tallydb-data
SYNC ?= normal
# Extra pytest arguments, e.g. `make test PYTEST_ARGS="-k seeds -x"`.
PYTEST_ARGS ?=

.PHONY: serve test lint typecheck pytest install clean-venv

serve: $(STAMP)
	$(BIN)/tallydb serve --host $(HOST) --port $(PORT) --data $(DATA) --sync $(SYNC)

# All three always run (so the test summary is always printed); any failure fails.
test: $(STAMP)
	@status=0; \
	$(BIN)/ruff check src || status=1; \
	$(BIN)/mypy src/tallydb || status=1; \
	$(BIN)/pytest -n 2 $(PYTEST_ARGS) || status=$$?; \
	exit $$status

lint: $(STAMP)
	$(BIN)/ruff check src

typecheck: $(STAMP)
	$(BIN)/mypy src/tallydb

# pytest exits 5 when it collects no test: make treats that as a failure too.
pytest: $(STAMP)
	$(BIN)/pytest -n 2 $(PYTEST_ARGS)

install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || { \
	  echo "python3 -m venv failed; installing python3-venv" >&2; \
	  apt-get install -y python3-venv || { apt-get update && apt-get install -y python3-venv; }; \
	  $(PYTHON) -m venv --clear $(VENV); }

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

clean-venv:
	rm -rf $(VENV)
