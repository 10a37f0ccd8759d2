"""The summary names the port it describes (`port`): a network's slowest link by default, the
one `measure.port` names otherwise; `aqmlab run` prints it, and an unknown name is one line
listing the measured ports."""

from __future__ import annotations

import pandas as pd

import aqmlab
from aqmlab.engine.tables import summary_table
from conftest import TRIANGLE, assert_usage_error, run_cli, triangle


def test_a_network_summary_describes_its_bottleneck():
    result = aqmlab.run(triangle())
    s = result.summary_dict
    assert s["port"] == "A->C"
    ports = {r["name"]: r for r in result.records("ports")}
    assert s["link_efficiency"] == ports["A->C"]["link_efficiency"] > 0.5
    assert ports["A->B"]["link_efficiency"] == 0.0
    idle = aqmlab.run(triangle({"measure.port": "A->B"}))
    assert idle.summary_dict["port"] == "A->B"
    assert idle.summary_dict["link_efficiency"] == 0.0
    assert idle.summary_dict["throughput_mbps"] == s["throughput_mbps"]


def test_run_prints_and_writes_the_port(tmp_path):
    path = TRIANGLE
    out = tmp_path / "out"
    proc = run_cli("run", str(path), "--quiet", "--out", str(out), "--set", "measure.port=B->C")
    assert proc.returncode == 0, proc.stderr
    assert ["port", "B->C"] in [line.split() for line in proc.stdout.splitlines()]
    assert pd.read_parquet(out / "summary.parquet")["port"].tolist() == ["B->C"]
    bad = tmp_path / "bad"
    proc = run_cli("run", str(path), "--quiet", "--out", str(bad), "--set", "measure.port=C->A")
    assert_usage_error(proc)
    assert proc.stderr == (
        'aqmlab: error: measure.port: "C->A" is not a measured port; the measured ports are '
        "A->B, B->C, A->C\n"
    )
    assert not bad.exists()


def test_the_summary_table_has_a_port_row():
    lines = summary_table({"aqm": "red", "port": "R1->R2"}).splitlines()
    assert lines[2].split() == ["AQM", "red"]
    assert lines[3].split() == ["port", "R1->R2"]
    assert ["port", "n/a"] in [line.split() for line in summary_table({}).splitlines()]
