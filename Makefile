# Build, test, lint and benchmark aqmlab. `.ci/run` installs the system packages first.

VENV ?= .venv
PYTHON := $(VENV)/bin/python
CARGO ?= $(shell command -v cargo 2>/dev/null || echo $$HOME/.cargo/bin/cargo)
AQMLAB := $(PYTHON) -m aqmlab.cli

# maturin and pyo3 find cargo and the interpreter through these.
export PATH := $(dir $(CARGO)):$(PATH)
export PYO3_PYTHON := $(abspath $(PYTHON))

.PHONY: build run test fuzz lint bench bench-reproduce bench-ns3 ns3

# The virtual environment with the Python build and test tools, Ray for the tests of
# `--backend ray` (a cp311 manylinux wheel exists for this version) and Optuna for `aqmlab tune`.
RAY_VERSION ?= 2.60.0
OPTUNA_VERSION ?= 5.0.0

$(VENV)/.installed: pyproject.toml
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet maturin pandas==3.1.1 pyarrow==26.0.1 numpy tqdm matplotlib scipy pytest ruff \
		polars==2.1.0 duckdb==2.0.1 \
		"ray==$(RAY_VERSION)" "optuna==$(OPTUNA_VERSION)"
	touch $@

# Always rebuilt (cargo skips what is unchanged), so a stale extension is never tested. The
# extension is profile-guided (pgo/build.sh: the simulator runs a training set instrumented,
# then is built with its profile; PGO=off builds it without); the results are the same either
# way. The package's bytecode is compiled as `pip install` compiles it: with
# PYTHONDONTWRITEBYTECODE set Python would otherwise compile every module it imports on every
# command (docs/architecture.md).
PGO ?= on
build: $(VENV)/.installed
	. $(VENV)/bin/activate && PGO=$(PGO) CARGO=$(CARGO) bash pgo/build.sh
	$(PYTHON) -m compileall -q python/aqmlab

# Every figure of the BetaRED paper on reduced grids; prints the verdict table and writes
# results/reproduce-betared-quick/report.md. Resumable: a second run reuses finished runs.
run: build
	$(AQMLAB) reproduce betared --quick

test: build
	$(CARGO) test --release --workspace --exclude aqmlab-py
	$(PYTHON) -m pytest -q

# The scenario-format property tests with 10 000 generated scenarios each (a few minutes;
# `make test` runs 160).
fuzz:
	PROPTEST_CASES=10000 $(CARGO) test --release -p aqmlab-sim --test fuzz_scenarios --test fuzz_networks

lint: $(VENV)/.installed
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests benches examples

# aqmlab's C library and the ns-3 example program with the AqmlabQueueDisc (needs libns3-dev;
# docs/ns3.md): target/ns3-bridge/aqmlab-dumbbell.
ns3:
	CARGO=$(CARGO) bash ns3/build.sh

# Scenario 2's speed, memory and (with valgrind installed) instruction counts, the model's
# speed; rewrites BENCHMARKS.md but its reproduction and earlier-figures sections.
bench: build
	$(CARGO) build --release --quiet -p aqmlab-sim --example profile_run
	$(PYTHON) benches/bench.py

# Times `aqmlab reproduce betared --quick` and the full reproduction from scratch and writes
# the "Reproduction" section of BENCHMARKS.md (the full one: about 15 CPU minutes).
bench-reproduce: build
	$(PYTHON) benches/bench.py --reproduce

# Times ns-3.37 on scenario 2 and on the large case beside `aqmlab run` (needs libns3-dev; at
# most 30 minutes of ns-3 per case) and writes the "Side by side with ns-3.37" section.
bench-ns3: build
	$(PYTHON) benches/bench_ns3.py
