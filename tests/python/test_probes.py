"""Latency probes in Python: the probe table and summary columns of a run with a probe group,
written and read back; a run without probes has the same schema, NaN RTTs and no rows; the
memory estimate counts the probes; `aqmlab run` prints the probes' RTT."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aqmlab
from aqmlab import RunResult
from aqmlab.engine import memory
from conftest import run_cli

PROBE_SUMMARY = [
    "probe_rtt_mean_ms",
    "probe_rtt_p50_ms",
    "probe_rtt_p90_ms",
    "probe_rtt_p99_ms",
    "probes_sent",
    "probes_lost",
]
PROBE_DTYPES = {"t_s": "float64", "flow": "int64", "group": "int64", "rtt_ms": "float64",
                "lost": "int64"}  # fmt: skip

RRUL = """
duration_s = 10.0
[topology]
bottleneck_rate_mbps = 10.0
[queue]
aqm = "droptail"
limit_pkts = 200
[[traffic.groups]]
name = "tcp"
[traffic.groups.schedule]
kind = "constant"
flows = 4
[[traffic.groups]]
name = "ping"
transport = "udp"
[traffic.groups.source]
kind = "probe"
interval_ms = 100.0
[traffic.groups.schedule]
kind = "constant"
flows = 2
"""


@pytest.fixture(scope="module")
def probed() -> RunResult:
    return aqmlab.run(aqmlab.Scenario.from_text(RRUL))


def test_the_probe_table_has_one_row_per_probe(probed):
    probes = probed.probes
    assert probes.dtypes.astype(str).to_dict() == PROBE_DTYPES
    # Two flows, a request every 100 ms from their start (within the 1 s start jitter) to 10 s.
    assert set(probes["flow"]) == {4, 5}
    assert set(probes["group"]) == {1}
    assert 2 * 91 <= len(probes) <= 2 * 101
    assert probed.summary_dict["probes_sent"] == len(probes)
    assert probed.summary_dict["probes_lost"] == probes["lost"].sum()
    answered = probes["rtt_ms"].dropna().to_numpy()
    assert (answered > 2 * (10.0 + 1.0 + 1.0)).all()
    assert probes.loc[probes["lost"] == 1, "rtt_ms"].isna().all()


def test_summary_percentiles_are_nearest_ranks_of_the_table(probed):
    rtt = probed.probes["rtt_ms"].dropna().to_numpy()
    s = probed.summary_dict
    for p in (50, 90, 99):
        assert s[f"probe_rtt_p{p}_ms"] == np.percentile(rtt, p, method="inverted_cdf")
    assert math.isclose(s["probe_rtt_mean_ms"], rtt.mean(), rel_tol=1e-12)
    # The two probe flows are left out of the summary's fairness: the TCP group's index.
    groups = probed.groups.set_index("name")
    assert s["jain_fairness"] == groups.loc["tcp", "jain_fairness"]
    assert s["flows_total"] == 6


def test_probes_are_written_and_read_back(probed, tmp_path):
    out = probed.write(tmp_path / "run", csv=True)
    assert (out / "probes.parquet").exists() and (out / "probes.csv").exists()
    back = RunResult.read(out)
    assert back.probes.equals(probed.probes)
    assert all(back.summary_dict[k] == probed.summary_dict[k] for k in PROBE_SUMMARY)
    header = (out / "probes.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "t_s,flow,group,rtt_ms,lost"


def test_a_run_without_probes_keeps_the_schema(small_result, tmp_path):
    assert small_result.rows("probes") == 0
    assert small_result.probes.dtypes.astype(str).to_dict() == PROBE_DTYPES
    s = small_result.summary_dict
    assert all(math.isnan(s[k]) for k in PROBE_SUMMARY[:4])
    assert (s["probes_sent"], s["probes_lost"]) == (0, 0)
    back = RunResult.read(small_result.write(tmp_path / "run"))
    assert back.probes.dtypes.astype(str).to_dict() == PROBE_DTYPES
    # A folder written before the probe table existed reads as one without probes.
    (tmp_path / "run" / "probes.parquet").unlink()
    assert RunResult.read(tmp_path / "run").rows("probes") == 0


def test_the_memory_estimate_counts_the_probes(probed):
    sc = aqmlab.Scenario.from_text(RRUL)
    size = memory.check_run(sc.text, sc.overrides)
    assert size["probes"] == probed.rows("probes")
    assert size["probe_values"] == 5 * size["probes"]
    # 10^8 probes from each flow: about 45 GiB, most of it the probe table.
    many = sc.with_({"duration_s": 1e5, "traffic.groups[1].source.interval_ms": 1.0})
    with pytest.raises(memory.MemoryBudgetError, match="latency probes: fewer probe flows"):
        memory.check_run(many.text, many.overrides, max_memory="8G")


def test_run_prints_the_probes_rtt(tmp_path):
    (tmp_path / "rrul.toml").write_text(RRUL, encoding="utf-8")
    proc = run_cli("run", "rrul.toml", "--out", "out", "--quiet", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for label in ("probes sent / lost", "probe RTT p50 (ms)", "probe RTT p99 (ms)"):
        assert label in proc.stdout
    assert (tmp_path / "out" / "probes.parquet").exists()
