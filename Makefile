# Two commands on a fresh machine:
#   make run   -> virtualenv, install the kit alone (DuckDB, no other engine), full TPC-H run
#                 on embedded DuckDB with a report
#   make test  -> virtualenv, install every engine and the dev tools, lint, type-check and the
#                 whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SF     ?= 1
RUNDIR ?= runs/duckdb-sf$(SF)
# Two installs, each with its stamp: `make run` needs the kit and psutil (the run's resource
# telemetry) only; `make test` adds every engine's extra and the dev tools (about 2.6 GB).
RUN_STAMP  := $(VENV)/.dbbench-installed-run
TEST_STAMP := $(VENV)/.dbbench-installed-test
# pytest-xdist workers: one more than the CPUs, as the suite also waits on servers, JVMs
# and subprocesses (on a 2-core VM, 3 workers kept the CPUs 91 % busy where 2 left them idle
# in between: pytest 523 s against 660 s)
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))

.PHONY: run test setup lint typecheck pytest bench clean

$(RUN_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[telemetry]'
	@touch $(RUN_STAMP)

$(TEST_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	@touch $(TEST_STAMP) $(RUN_STAMP)

run: $(RUN_STAMP)
	$(BIN)/dbbench run --engine duckdb -s $(SF) --out $(RUNDIR) --force

test: setup $(TEST_STAMP) lint typecheck pytest

# Servers up, Chromium, HammerDB's Tcl packages, Galera: the same script .ci/run uses.
setup:
	@bash .ci/setup

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(TEST_STAMP)
	$(BIN)/mypy

# The JUnit report keeps each test's seconds: `python tests/xdist_schedule.py
# .pytest_cache/junit.xml` turns a run's into the schedule's durations.json.
# A failed test is run once more (its first failure is still reported, as R): the signal
# and timing tests flake on a loaded 2-core VM; one that fails twice fails the run.
pytest: $(TEST_STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile --reruns 1 --junitxml=.pytest_cache/junit.xml

bench: $(TEST_STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
