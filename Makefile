# Two commands matter: `make run` (dashboard in demo mode) and `make test` (everything).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501

.PHONY: run test lint format emulator bench load clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(VENV)/.runtime $@

run: $(VENV)/.runtime
	$(BIN)/streamlit run app.py --server.port $(PORT)

emulator: $(VENV)/.runtime
	$(BIN)/python -m emulator

test: lint
	$(BIN)/python -m pytest

# Style, the import contracts of docs/architecture.md, and strict types on analytics/.
lint: $(VENV)/.dev
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy

format: $(VENV)/.dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(VENV)/.dev
	$(BIN)/python -m bench

load: $(VENV)/.dev
	LOAD_FULL=1 $(BIN)/python -m pytest -m load

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache test-artifacts
