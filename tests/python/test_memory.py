"""A run, a sweep or a model command whose result would not fit in the memory budget is refused
before any work, with the estimate and what to change; the budget can be raised."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import aqmlab
from aqmlab.engine import memory
from aqmlab.engine.memory import MemoryBudgetError
from conftest import REPO_ROOT, SCENARIO1, assert_usage_error, run_cli

FIG3 = REPO_ROOT / "experiments" / "betared" / "fig3.toml"
DENSE = ["--set", "duration_s=10", "--set", "measure.sample_interval_ms=0.001"]
"""10⁷ samples: about 5.9 GiB, above the default budget (the run took 4.7 GB when allowed,
before the time series had its per-group goodput column)."""


def test_dense_sampling_is_refused_with_the_estimate_and_the_key(tmp_path):
    proc = run_cli("run", str(SCENARIO1), *DENSE, "--out", str(tmp_path / "o"))
    assert_usage_error(proc, "about 5.9 GiB", "4.0 GiB allowed", "measure.sample_interval_ms")
    assert "--max-memory" in proc.stderr
    assert not (tmp_path / "o").exists()


def test_a_budget_below_a_mebibyte_is_shown_in_its_own_unit(tmp_path):
    assert [memory.gib(n) for n in (512, 2048, 5 * 2**20, 3 * 2**30)] == [
        "512 bytes",
        "2 KiB",
        "5 MiB",
        "3.0 GiB",
    ]
    proc = run_cli("run", str(SCENARIO1), "--max-memory", "1K", "--out", str(tmp_path / "o"))
    assert_usage_error(proc, "more than the 1 KiB allowed")
    assert not (tmp_path / "o").exists()


def test_a_long_cwnd_trace_names_the_cwnd_flows():
    flows = ",".join(str(i) for i in range(50))
    sc = aqmlab.Scenario.load(SCENARIO1).with_literals(
        [("duration_s", "10000"), ("measure.cwnd_flows", f"[{flows}]")]
    )
    with pytest.raises(MemoryBudgetError, match="cwnd_flows"):
        aqmlab.run(sc)


def test_the_budget_can_be_raised_by_option_or_environment():
    sc = aqmlab.Scenario.load(SCENARIO1).with_literals(
        [("duration_s", "10"), ("measure.sample_interval_ms", "0.001")]
    )
    with pytest.raises(MemoryBudgetError):
        memory.check_run(sc.text, sc.overrides)
    size = memory.check_run(sc.text, sc.overrides, max_memory="8G")
    assert size["samples"] == 10_000_001
    assert memory.run_need(size) > 4 * 2**30
    env = {**os.environ, memory.ENV_VAR: "8G"}
    code = (
        "import aqmlab.engine.memory as m, aqmlab;"
        f"sc = aqmlab.Scenario.load({str(SCENARIO1)!r}).with_literals("
        "[('duration_s', '10'), ('measure.sample_interval_ms', '0.001')]);"
        "m.check_run(sc.text, sc.overrides); print('fits')"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.stdout.strip() == "fits", proc.stderr


def test_a_small_budget_refuses_an_ordinary_run(tmp_path):
    proc = run_cli("run", str(SCENARIO1), "--max-memory", "100M", "--out", str(tmp_path / "o"))
    assert_usage_error(proc, "100 MiB allowed")


@pytest.mark.parametrize("size", ["12Q", "0", "-5G", "G", "1e99G"])
def test_bad_sizes(size):
    assert_usage_error(run_cli("run", str(SCENARIO1), "--max-memory", size), "--max-memory")
    with pytest.raises(MemoryBudgetError, match="not a size"):
        memory.parse_size(size)


def test_sizes():
    assert memory.parse_size("8G") == 8 * 2**30
    assert memory.parse_size("512MiB") == 512 * 2**20
    assert memory.parse_size("1.5g") == 3 * 2**29
    assert memory.parse_size("2000") == 2000


def test_a_sweep_checks_every_run_before_writing(tmp_path):
    out = tmp_path / "s"
    proc = run_cli("sweep", str(FIG3), "--quick", "--max-memory", "10M", "--out", str(out))
    assert_usage_error(proc, "10 MiB allowed")
    assert not out.exists()


def test_model_tables_share_the_budget(tmp_path):
    proc = run_cli("model", "bifurcation", "--points", "100000", "--keep", "1000")
    assert_usage_error(proc, "values × --keep = 100,000,000 rows", "4.0 GiB allowed")
    proc = run_cli(
        "model", "bifurcation", "--points", "10", "--max-memory", "1M", "--out", str(tmp_path)
    )
    assert_usage_error(proc, "1 MiB allowed")
