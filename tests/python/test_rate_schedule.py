"""A bottleneck whose rate changes during the run (`topology.bottleneck_rate_schedule`,
docs/scenario-format.md, "Rate schedules") from the command line and from Python: the run
follows the schedule and stores it, and a bad schedule is one line naming the pair."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import aqmlab
from conftest import assert_usage_error, run_cli

tomllib = pytest.importorskip("tomllib")

KEY = "topology.bottleneck_rate_schedule"


def test_a_run_follows_its_schedule_and_stores_it(small_scenario_file, tmp_path):
    # The small scenario's 50 Mb/s bottleneck runs at 2 Mb/s from 1 s on; its 10 flows fill it.
    out = tmp_path / "out"
    proc = run_cli(
        "run", str(small_scenario_file), "--quiet", "--out", str(out),
        "--set", f"{KEY}=[[1.0, 2.0]]", "--set", "measure.window=[2.0, 5.0]",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    port = pd.read_parquet(out / "ports.parquet").iloc[0]
    assert port["rate_mbps"] == 50.0, "the rate the link starts with"
    # At most 2 Mb/s over the 3 s window (and the packet on the wire at its end), nearly all of it.
    assert 0.98 * 2.0 < port["throughput_mbps"] <= 2.0 + 8e3 / 3.0 / 1e6
    stored = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert tomllib.loads(stored["scenario"])["topology"][KEY.split(".")[1]] == [[1.0, 2.0]]


def test_a_schedule_set_from_python_changes_the_run_after_its_time(small_scenario):
    fixed = aqmlab.run(small_scenario)
    slowed = aqmlab.run(small_scenario.with_({KEY: [[2.5, 5.0]]}))
    before = fixed.timeseries["t_s"] <= 2.5
    pd.testing.assert_frame_equal(fixed.timeseries[before], slowed.timeseries[before])
    assert slowed.ports["throughput_mbps"].iloc[0] < fixed.ports["throughput_mbps"].iloc[0]


@pytest.mark.parametrize(
    ("value", "fragments"),
    [
        ("[[3.0, 10.0], [2.0, 20.0]]", [f"{KEY}[1][0]", "later than the change before it"]),
        ("[[1.0, 0.0]]", [f"{KEY}[0][1]", "rate_mbps must be a number > 0"]),
        ("[[9.0, 10.0]]", [f"{KEY}[0][0]", "[0, 5] (duration_s)"]),
        ("[1.0, 10.0]", [f"{KEY}[0]", "must be a pair [t_s, rate_mbps]"]),
    ],
)
def test_a_bad_schedule_is_one_line_naming_the_pair(
    small_scenario_file, tmp_path, value, fragments
):
    out = tmp_path / "out"
    proc = run_cli("run", str(small_scenario_file), "--set", f"{KEY}={value}", "--out", str(out))
    assert_usage_error(proc, *fragments)
    assert not out.exists()
