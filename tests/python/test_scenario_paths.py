"""Indexed override paths (`topology.links[0].rate_mbps`, `measure.cwnd_flows[1]`) from
`Scenario.with_` and `aqmlab run --set`, and the one-line errors of a bad index, of a number
TOML cannot hold and of a byte limit below one packet."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import aqmlab
from aqmlab import ScenarioError
from conftest import TRIANGLE, assert_usage_error, run_cli, triangle

tomllib = pytest.importorskip("tomllib")


def _rates(records) -> dict[str, float]:
    return {r["name"]: r["rate_mbps"] for r in records}


def test_with_reaches_into_arrays():
    base = aqmlab.run(triangle())
    sc = triangle({"measure.cwnd_flows": [0, 1]}).with_(
        {"topology.links[2].rate_mbps": 2.5, "measure.cwnd_flows[1]": 3}
    )
    resolved = tomllib.loads(sc.resolved())
    assert [link["rate_mbps"] for link in resolved["topology"]["links"]] == [20.0, 20.0, 2.5]
    assert resolved["measure"]["cwnd_flows"] == [0, 3]
    result = aqmlab.run(sc)
    assert _rates(result.records("ports")) == {"A->B": 20.0, "B->C": 20.0, "A->C": 2.5}
    assert sorted(set(result.cwnd["flow"])) == [0, 3]
    # The slower link carries the same traffic: less goodput, each packet longer on the wire.
    assert result.summary_dict["throughput_mbps"] < base.summary_dict["throughput_mbps"]
    assert result.summary_dict["throughput_mbps"] < 2.5
    assert result.summary_dict["delay_mean_ms"] > base.summary_dict["delay_mean_ms"]


def test_cli_set_reaches_into_arrays(tmp_path):
    out = tmp_path / "out"
    proc = run_cli(
        "run", str(TRIANGLE), "--quiet", "--out", str(out),
        "--set", "topology.links[2].rate_mbps=2.5",
        "--set", "topology.links[0].queue={ aqm = 'pie' }",
        "--set", "duration_s=3",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    links = tomllib.loads(summary["scenario"])["topology"]["links"]
    assert links[2]["rate_mbps"] == 2.5
    assert links[0]["queue"] == {"aqm": "pie"}
    assert summary["overrides"][0] == ["topology.links[2].rate_mbps", "2.5"]
    ports = pd.read_parquet(out / "ports.parquet")
    assert dict(zip(ports["name"], ports["rate_mbps"])) == {"A->B": 20.0, "B->C": 20.0, "A->C": 2.5}
    # The printed tables: the summary describes the slowest link, A->B runs PIE.
    lines = [line.split() for line in proc.stdout.splitlines()]
    assert ["port", "A->C"] in lines, proc.stdout
    by_port = {cells[0]: cells for cells in lines if cells and "->" in cells[0]}
    assert by_port["A->B"][1] == "pie", proc.stdout
    assert by_port["A->C"][1] == "codel", proc.stdout
    assert by_port["B->C"][1] == "red", proc.stdout


@pytest.mark.parametrize(
    ("item", "line"),
    [
        (
            "topology.links[3].rate_mbps=5",
            "topology.links[3]: index out of range; the array has 3 elements (0..2); an "
            "override cannot add elements: set the whole array to change its length",
        ),
        (
            "topology.links[-1].rate_mbps=5",
            "topology.links[-1]: an index must be a whole number >= 0 (elements count from 0), "
            "got -1",
        ),
        (
            "topology.links[0.rate_mbps=5",
            "topology.links[0.rate_mbps: unclosed bracket; an index is written key[N] (N a "
            "whole number >= 0), as in topology.links[0]",
        ),
        (
            "queue.limit_pkts=1180591620717411303424",
            "queue.limit_pkts: integer 1180591620717411303424 does not fit in 64 bits (TOML "
            "integers are -2^63..2^63-1)",
        ),
        (
            "duration_s=1e999",
            "duration_s: float 1e999 is out of range: TOML floats are 64-bit, at most about "
            "1.8e308 in magnitude (write inf for an infinity)",
        ),
        (
            "queue.limit_bytes=10",
            "queue.limit_bytes: must be 0 (no byte limit) or at least one packet (1000 bytes "
            "here), got 10",
        ),
    ],
)
def test_bad_overrides_are_one_line_errors(tmp_path, item, line):
    out = tmp_path / "out"
    proc = run_cli("run", str(TRIANGLE), "--quiet", "--out", str(out), "--set", item)
    assert_usage_error(proc)
    assert proc.stderr == f"aqmlab: error: {line}\n"
    assert not out.exists()
    key, _, value = item.partition("=")
    with pytest.raises(ScenarioError) as caught:
        triangle().with_literals([(key, value)]).resolved()
    assert str(caught.value) == line
