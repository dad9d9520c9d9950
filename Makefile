# Two commands set a fresh Debian/Python 3.11 machine up: `make demo` and `make test`.
# Each step leaves a stamp in .stamps/ so re-runs are fast; stamps depend on the
# files that define the step, so editing pyproject.toml re-installs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMPS := .stamps
PYTEST_ARGS ?=

.PHONY: help venv install data demo test lint bench clean

help:
	@echo "make demo   - install into .venv if needed, then run the main job"
	@echo "make test   - install if needed, then run the whole test suite"
	@echo "make lint   - ruff"
	@echo "make bench  - run the benchmarks in bench/"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMPS)/core: pyproject.toml | $(PY)
	@mkdir -p $(STAMPS)
	$(PIP) install --quiet -e ".[dev,eval]"
	@touch $@

venv install: $(STAMPS)/core

# Always run: it is a no-op (no network) once the data directory is complete.
data: $(STAMPS)/core
	$(VENV)/bin/symplan data fetch

demo: data
	$(VENV)/bin/symplan demo

test: data
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest -q $(PYTEST_ARGS)

lint: $(STAMPS)/core
	$(VENV)/bin/ruff check .

bench: data
	$(PY) bench/bench_parse.py

clean:
	rm -rf $(STAMPS) ros2_ws/build ros2_ws/install ros2_ws/log
