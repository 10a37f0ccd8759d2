"""`aqmlab.run` on a small scenario: tables, invariants, determinism and files."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import aqmlab
from aqmlab import RunResult, run
from aqmlab._core import catalog
from conftest import SCENARIO1

tomllib = pytest.importorskip("tomllib")

SUMMARY_KEYS = {
    "aqm", "duration_s", "window_start_s", "window_end_s", "seed", "flows_total",
    "avg_queue_pkts", "std_queue_pkts", "avg_queue_aqm_pkts", "drop_rate", "early_drop_rate",
    "overflow_drop_rate", "mark_rate", "link_efficiency", "throughput_mbps", "delay_mean_ms",
    "delay_std_ms", "jitter_ms", "jain_fairness", "settle_time_s", "events",
    "bottleneck_departures", "data_sent", "data_delivered", "data_dropped", "data_in_flight",
}  # fmt: skip
TIMESERIES_COLUMNS = {"t_s", "queue_pkts", "queue_bytes", "active_flows"}
FLOW_COLUMNS = {
    "flow", "group", "start_s", "stop_s", "rtt_prop_ms", "delivered_bytes", "throughput_mbps",
    "delay_mean_ms", "jitter_ms", "retransmits", "timeouts", "fast_recoveries", "lost_pkts",
    "size_bytes", "fct_s",
}  # fmt: skip
CWND_COLUMNS = {"t_s", "flow", "cwnd_pkts", "ssthresh_pkts"}
GROUP_COLUMNS = {
    "group", "name", "transport", "flows", "lost_pkts", "throughput_mbps",
    "flow_throughput_mbps", "delay_mean_ms", "delay_std_ms", "delay_p99_ms", "jitter_ms",
    "jain_fairness", "loss_rate",
}  # fmt: skip
PORT_COLUMNS = {
    "port", "name", "aqm", "rate_mbps", "avg_queue_pkts", "std_queue_pkts", "max_queue_pkts",
    "avg_queue_aqm_pkts", "drop_rate", "early_drop_rate", "forced_drop_rate",
    "overflow_drop_rate", "mark_rate", "link_efficiency", "throughput_mbps", "arrivals",
    "departures", "data_departures", "drops", "marks", "queue_end_pkts", "flow_queues_used",
    "new_flows", "collisions", "overlimit_drops", "ce_threshold_marks", "l_arrivals", "l_marks",
    "l_step_marks", "l_drops", "l_sojourn_mean_ms", "l_sojourn_p99_ms", "c_arrivals", "c_marks",
    "c_drops", "c_sojourn_mean_ms", "c_sojourn_p99_ms",
}  # fmt: skip
FCT_COLUMNS = {
    "group", "name", "size_min_bytes", "size_max_bytes", "flows", "completed",
    "size_mean_bytes", "fct_mean_s", "fct_median_s", "fct_p95_s", "fct_p99_s",
}  # fmt: skip


def _same(a, b) -> bool:
    """Equal, counting NaN as equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def test_tables_have_documented_columns(small_result):
    assert SUMMARY_KEYS <= set(small_result.summary.columns)
    assert len(small_result.summary) == 1
    assert TIMESERIES_COLUMNS <= set(small_result.timeseries.columns)
    assert any(c.startswith("aqm_") for c in small_result.timeseries.columns)
    assert "goodput_mbps_all" in small_result.timeseries.columns
    assert FLOW_COLUMNS <= set(small_result.flows.columns)
    assert set(small_result.groups.columns) == GROUP_COLUMNS
    assert list(small_result.groups["name"]) == ["all"]
    assert small_result.groups["flows"].iloc[0] == len(small_result.flows)
    assert CWND_COLUMNS <= set(small_result.cwnd.columns)
    assert set(small_result.ports.columns) == PORT_COLUMNS
    assert list(small_result.ports["name"]) == ["R1->R2"]
    assert (
        small_result.ports["avg_queue_pkts"].iloc[0] == small_result.summary_dict["avg_queue_pkts"]
    )
    assert set(small_result.fct.columns) == FCT_COLUMNS
    assert len(small_result.fct) == 0, "no finite flows"
    assert len(small_result.port_timeseries) == len(small_result.timeseries)
    assert len(small_result.flows) == small_result.summary_dict["flows_total"] == 10
    assert len(small_result.timeseries) > 0


def test_metrics_are_sane(small_result):
    s = small_result.summary_dict
    for key in ("drop_rate", "early_drop_rate", "overflow_drop_rate", "mark_rate"):
        assert 0.0 <= s[key] <= 1.0, key
    assert 0.0 < s["link_efficiency"] <= 1.0 + 1e-9
    assert 0.0 < s["jain_fairness"] <= 1.0 + 1e-9
    assert s["avg_queue_pkts"] >= 0.0
    assert s["throughput_mbps"] > 0.0
    assert s["delay_mean_ms"] > 0.0
    assert s["window_start_s"] == 0.0
    assert s["window_end_s"] == 5.0
    for key, value in s.items():
        undefined = key == "settle_time_s" or key.startswith("probe_rtt_")  # NaN without probes
        if not undefined and isinstance(value, float):
            assert math.isfinite(value), key


def test_packets_are_conserved(small_result):
    s = small_result.summary_dict
    assert s["data_sent"] == s["data_delivered"] + s["data_dropped"] + s["data_in_flight"]
    assert s["data_delivered"] > 0


def test_queue_never_exceeds_buffer(small_result):
    ts = small_result.timeseries
    queue_cols = [c for c in ts.columns if c.startswith(("queue_", "aqm_"))]
    assert not ts[queue_cols].isna().any().any()
    buffer_pkts = tomllib.loads(small_result.scenario_text)["queue"]["limit_pkts"]
    assert ts["queue_pkts"].between(0, buffer_pkts).all()
    assert (np.diff(ts["t_s"]) > 0).all()


def test_same_seed_same_result(small_scenario, small_result):
    again = run(small_scenario)
    assert again.seed == small_result.seed
    a, b = again.summary_dict, small_result.summary_dict
    assert a.keys() == b.keys()
    assert all(_same(a[k], b[k]) for k in a), {k for k in a if not _same(a[k], b[k])}
    assert again.timeseries.equals(small_result.timeseries)


def test_seed_argument_overrides_scenario(small_scenario):
    result = run(small_scenario, seed=12345)
    assert result.seed == 12345
    assert result.summary_dict["seed"] == 12345


def test_run_accepts_a_path(small_scenario_file):
    result = run(small_scenario_file)
    assert result.source == str(small_scenario_file)
    assert len(result.flows) == 10


def test_progress_reports_simulated_time(small_scenario):
    calls = []
    run(small_scenario, progress=lambda t_s, duration_s: calls.append((t_s, duration_s)))
    assert len(calls) > 10
    times = [t for t, _ in calls]
    assert times == sorted(times)
    assert all(0.0 <= t <= d for t, d in calls)
    assert calls[-1][1] == 5.0


def test_interrupt_from_progress_propagates(small_scenario):
    def interrupt(t_s, duration_s):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(small_scenario, progress=interrupt)


def test_write_and_read_back(small_result, tmp_path):
    out_dir = small_result.write(tmp_path / "run", csv=True)
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == sorted(
        [
            f"{t}.{ext}"
            for t in (
                "summary",
                "timeseries",
                "flows",
                "groups",
                "cwnd",
                "ports",
                "port_timeseries",
                "fct",
                "probes",
            )
            for ext in ("parquet", "csv")
        ]
        + ["summary.json", ".aqmlab.jsonl"]
    )
    meta = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    assert set(meta) == {"aqmlab_version", "seed", "scenario", "source", "overrides", "summary"}
    assert meta["aqmlab_version"] == aqmlab.__version__
    assert meta["scenario"] == small_result.scenario_text
    assert meta["source"] == str(SCENARIO1)
    assert ["duration_s", "5.0"] in meta["overrides"]
    back = RunResult.read(out_dir)
    assert back.seed == small_result.seed
    assert back.timeseries.equals(small_result.timeseries)
    assert back.flows.equals(small_result.flows)
    assert back.groups.equals(small_result.groups)
    assert back.ports.equals(small_result.ports)
    assert back.port_timeseries.equals(small_result.port_timeseries)
    assert back.fct.equals(small_result.fct)
    assert back.probes.equals(small_result.probes)
    assert all(_same(back.summary_dict[k], v) for k, v in small_result.summary_dict.items())


def test_write_replaces_previous_results_on_request(small_result, tmp_path):
    out_dir = tmp_path / "run"
    small_result.write(out_dir, csv=True)
    small_result.write(out_dir, overwrite=True)
    assert not (out_dir / "summary.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_nan_is_written_as_null(small_result, tmp_path):
    summary = dict(small_result.summary_dict, settle_time_s=float("nan"))
    result = RunResult(
        summary,
        small_result.timeseries,
        small_result.flows,
        small_result.cwnd,
        small_result.scenario_text,
        small_result.seed,
    )
    result.write(tmp_path / "run")
    text = (tmp_path / "run" / "summary.json").read_text(encoding="utf-8")
    assert "NaN" not in text
    assert json.loads(text)["summary"]["settle_time_s"] is None


def test_catalog_lists_the_aqms():
    entries = catalog()
    assert {"aqms", "tcp_presets", "congestion_controls", "schedules"} <= set(entries)
    assert {"droptail", "red"} <= set(entries["aqms"])


def test_groups_table_names_each_group(tmp_path):
    text = """
duration_s = 3.0
[topology]
bottleneck_rate_mbps = 5.0
[queue]
aqm = "red"
[queue.red]
q_min_pkts = 5.0
q_max_pkts = 30.0
[[traffic.groups]]
name = "bulk"
[traffic.groups.schedule]
kind = "constant"
flows = 3
[[traffic.groups]]
name = "late"
[traffic.groups.schedule]
kind = "events"
events = [{ t_s = 1.0, add = 2 }]
"""
    result = aqmlab.run(aqmlab.Scenario.from_text(text))
    assert list(result.groups["name"]) == ["bulk", "late"]
    assert list(result.groups["flows"]) == [3, 2]
    assert list(result.flows["group"]) == [0, 0, 0, 1, 1]
    back = type(result).read(result.write(tmp_path / "run"))
    assert back.groups.equals(result.groups)
