# Build, test, lint and benchmark aqmlab. `.ci/run` installs the system packages first.

VENV ?= .venv
PYTHON := $(VENV)/bin/python
CARGO ?= $(shell command -v cargo 2>/dev/null || echo $$HOME/.cargo/bin/cargo)
AQMLAB := $(PYTHON) -m aqmlab.cli

# maturin and pyo3 find cargo and the interpreter through these.
export PATH := $(dir $(CARGO)):$(PATH)
export PYO3_PYTHON := $(abspath $(PYTHON))

SCENARIO2 := experiments/betared/scenario2.toml
SCENARIO2_SETS := --set traffic.schedule.n_max=800

.PHONY: build run test lint bench

# The virtual environment with the Python build and test tools.
$(VENV)/.installed: pyproject.toml
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet maturin pandas pyarrow numpy tqdm pytest ruff
	touch $@

# Always rebuilt (cargo skips what is unchanged), so a stale extension is never tested.
build: $(VENV)/.installed
	. $(VENV)/bin/activate && maturin develop --release --quiet

run: build
	$(AQMLAB) run $(SCENARIO2) --set queue.aqm=droptail $(SCENARIO2_SETS) \
		--out results/scenario2-droptail
	$(AQMLAB) run $(SCENARIO2) --set queue.aqm=red $(SCENARIO2_SETS) \
		--out results/scenario2-red
	$(AQMLAB) compare results/scenario2-droptail results/scenario2-red

test: build
	$(CARGO) test --release --workspace --exclude aqmlab-py
	$(PYTHON) -m pytest -q

lint: $(VENV)/.installed
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests benches

bench: build
	$(PYTHON) benches/bench.py
