# Two commands matter: `make run` (dashboard in demo mode) and `make test` (everything).
# The interpreter .venv is made with: the distribution's python3.11 where it can make a venv,
# else python3 on PATH; `make PYTHON=...` chooses another. Debian's is built with profile-guided
# optimization and without a shared libpython: the suite took 8-10 % less processor time on it
# than on a python3 built from source without them (as pyenv builds it), the dashboard's and
# the commands' tests 13 % less.
PYTHON ?= $(shell /usr/bin/python3.11 -c 'import ensurepip' 2>/dev/null && echo /usr/bin/python3.11 || echo python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501

.PHONY: focus-validator run record test bench-smoke test-clocks lint format docs cli-reference screenshots emulator bench load clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(VENV)/.runtime $@

# The FinOps Foundation's FOCUS validator (tests/exports/test_focus.py runs it on the FOCUS
# files) lives in .venv-focus: it needs Python 3.12 and numpy < 2. Python 3.12 is found as
# `python3.12` on PATH (through pyenv's shim when no 3.12 is selected); without it the venv is
# not made and the test says so (and fails under CI=true).
PYTHON312 ?= $(shell python3.12 -c 'import sys; print(sys.executable)' 2>/dev/null || \
	PYENV_VERSION=3.12 python3.12 -c 'import sys; print(sys.executable)' 2>/dev/null)
FOCUS_VENV := .venv-focus

$(FOCUS_VENV)/.installed: requirements-focus.txt
	@if [ -z "$(PYTHON312)" ]; then \
		echo "focus-validator: no python3.12 on PATH, the FOCUS validation test cannot run"; \
	else \
		$(PYTHON312) -m venv $(FOCUS_VENV) && \
		$(FOCUS_VENV)/bin/pip install --quiet -r requirements-focus.txt && touch $@; \
	fi

focus-validator: $(FOCUS_VENV)/.installed

run: $(VENV)/.runtime
	$(BIN)/streamlit run app.py --server.port $(PORT)

emulator: $(VENV)/.runtime
	$(BIN)/python -m emulator

# The suite runs on one worker more than the cores (pytest-xdist, see tests/conftest.py); a
# test file stays on one worker, so its module-wide servers and organizations are built once.
# Files are handed out in the order tests/conftest.py gives them (long-running files first),
# not by their number of tests.
# Python keeps its bytecode (in the ignored __pycache__ folders) even where the shell sets
# PYTHONDONTWRITEBYTECODE: the suite starts hundreds of Python processes, and without it each
# pytest worker rewrote the asserts of every test module and of the pytest plugins' modules
# again (schemathesis' alone are some 240), collecting in 11.7 processor-seconds instead of 6.3.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder

# The lint runs beside the suite (on a fresh clone its type check alone takes most of a
# minute), its output printed after the suite's; either failing fails the run. `make lint`
# alone gives its verdict first.
test: $(VENV)/.dev focus-validator
	@log=$$(mktemp); $(MAKE) --no-print-directory lint > $$log 2>&1 & lint=$$!; \
	$(PYTEST) -m "not smoke"; tests=$$?; \
	wait $$lint; linted=$$?; cat $$log; rm -f $$log; \
	[ $$linted -eq 0 ] || echo "make test: the lint failed (output above)"; \
	[ $$tests -eq 0 ] && [ $$linted -eq 0 ]

# The benchmark's smoke runs (marker `smoke`): `python -m bench` at 1/20 scale, every line
# reported once with a finite ratio and what each scenario claims checked against the ledger.
# They test the benchmark, not the product, and took 213 of the suite's worker-seconds (a
# sixth of it, 70 s of wall time on two cores), so they run beside `make test`, not in it;
# .ci/run runs both.
bench-smoke: $(VENV)/.dev
	$(PYTEST) -q -m smoke

# The suite with the one clock pinned at an edge: the last second of a leap-year February (a
# day's last second, a month's and a leap day's at once), but for the long-running tests (marker
# `long`: browsers, sign-ins, servers of their own, installs, large data sets): each page, command
# and figure they reach is computed by code the in-process tests run at the pinned clock, and
# `make test` holds them. Then the tests reading an organization generated relative to the clock
# (marker `demo`), the long ones too, at an instant drawn at random within the next two years,
# printed so that a failure can be replayed (USAGE_DASHBOARD_CLOCK, see docs/reliability.md).
# Each run's host keeps another local time, as a cron host does (every day the product reads is
# UTC's): the pinned run fourteen hours ahead of UTC (its local day is already 1 March), the
# drawn one eleven hours behind, its browsers too.
PINNED_TZ := Pacific/Kiritimati
DRAWN_TZ := Pacific/Pago_Pago
# `make test` itself runs at the real instant: .ci/run sees three. The benchmark pins its own day.
test-clocks: $(VENV)/.dev focus-validator
	TZ=$(PINNED_TZ) USAGE_DASHBOARD_CLOCK=2028-02-29T23:59:59.5Z $(PYTEST) -q -m "not long"
	clock=$$(date -u -d "@$$(( $$(date +%s) + $$(shuf -i 0-63072000 -n 1) ))" +%Y-%m-%dT%H:%M:%SZ); \
	echo "demo tests at $$clock; replay: TZ=$(DRAWN_TZ) USAGE_DASHBOARD_CLOCK=$$clock $(BIN)/python -m pytest -q -m demo"; \
	TZ=$(DRAWN_TZ) USAGE_DASHBOARD_CLOCK=$$clock $(PYTEST) -q -m demo

# The behaviour recording: the recorded set of commands run on the demo organization with the
# clock pinned, each one's output, exit code and files kept in DIR (tests/support/recording.py).
# Record before and after a reorganization and compare: `diff -r before after` says nothing.
record: $(VENV)/.runtime
	@[ -n "$(DIR)" ] || { echo "make record DIR=folder: the folder to record into"; exit 2; }
	$(BIN)/python -m tests.support.recording $(DIR)

# Style, the import contracts of docs/architecture.md, strict types on analytics/, and the
# documentation site (a broken link or anchor fails the build).
lint: $(VENV)/.dev
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The documentation site on http://127.0.0.1:8000, rebuilt on every edit of docs/.
docs: $(VENV)/.dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

# The command reference, written from the commands' own help (a test keeps it current).
cli-reference: $(VENV)/.runtime
	PYTHONPATH=. $(BIN)/python -m typer analytics.cli utils docs --name usage-dashboard \
		--title "Command reference" --output docs/cli-reference.md

# The site's screenshots, from the browser tests' run of every page in chromium (a team lead's
# Overview from its walk, tests/dashboard/test_team_walk.py).
SCREENSHOTS := team-lead-overview overview overview-cost keys limits limits-create-dialog limits-preview-rename limits-preview-limits limits-deactivate limits-guardrails trends tags pairs languages anomalies capacity capacity-decision chargeback export settings-teams settings-budget limits-settings-guardrails settings-prices chargeback-after-price
# Every page in the dark scheme too (<name>-dark.png), the same pass as the light one.
DARK_SCREENSHOTS := overview keys limits trends tags pairs languages anomalies capacity chargeback export
screenshots: $(VENV)/.dev
	$(BIN)/python -m pytest -q tests/dashboard/test_browser.py tests/dashboard/test_signin.py \
		tests/dashboard/test_team_walk.py
	for name in $(SCREENSHOTS); do cp test-artifacts/screenshots/$$name.png docs/screenshots/; done
	for name in $(DARK_SCREENSHOTS); do cp test-artifacts/screenshots/$$name-dark.png docs/screenshots/; done

format: $(VENV)/.dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(VENV)/.dev
	$(BIN)/python -m bench

load: $(VENV)/.dev
	LOAD_FULL=1 $(BIN)/python -m pytest -m load

clean:
	rm -rf $(VENV) $(FOCUS_VENV) .pytest_cache .ruff_cache test-artifacts site
