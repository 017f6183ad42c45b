# hexarena: `make demo` and `make test` work on a fresh machine with python3 and make.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
EXTRAS  ?= all

.PHONY: demo test test-all bench lint setup clean

setup: $(STAMP)

# (Re)install whenever pyproject.toml changes. Debian's python3-venv is added if venv is missing.
$(STAMP): pyproject.toml scripts/setup-system.sh
	@bash scripts/setup-system.sh
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/hexarena demo --out runs/demo
	$(BIN)/hexarena arena examples/demo-arena.yaml --out runs/demo/arena

test: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

test-all: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS),bench]"
	$(BIN)/python -m benchmarks

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

clean:
	rm -rf $(VENV) runs .pytest_cache
